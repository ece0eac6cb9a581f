-- Specs for the nodes' topologies in the graph of an R (core/rv1_topo.h,
-- core.topologies, an acquisition state's set_topology) and in the Flux
-- loop (grove.flux.topology): each rank's node in its hwloc topology's
-- locality form, its cores and GPUs in R's numbering; a topology or a
-- scheduling graph that disagrees with R leaving that rank flat, with the
-- difference said; the module's classes of nodes and the ranks it asks
-- the instance for.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, and must not be copied here.
local core = require("grove.core")
local flux = require("grove.flux")
local h = require("flux_helper")

local FIX = "spec/fixtures/hwloc/"
-- two packages, each a NUMA domain of two cores; GPU 0 (one device under
-- CUDA, OpenCL and NVML) in the first, GPUs 1-2 (two partitions) in the
-- second, GPU 3 in no package
local TWO = FIX .. "two-packages.xml"

local function R_of(entries, hosts)
  local parts = {}
  for _, e in ipairs(entries) do
    local kids = {}
    for _, k in ipairs{"core", "gpu", "memory"} do
      if e[k] then kids[#kids + 1] = ('"%s":"%s"'):format(k, e[k]) end
    end
    parts[#parts + 1] = ('{"rank":"%s","children":{%s}}'):format(e.rank, table.concat(kids, ","))
  end
  return ('{"version":1,"execution":{"R_lite":[%s],"nodelist":["%s"],"starttime":0,'
    .. '"expiration":0}}'):format(table.concat(parts, ","), hosts)
end

-- The containment tree below v as "name(child child(...))".
local function tree(v)
  local kids = v:children_list()
  if #kids == 0 then return v:name() end
  local out = {}
  for _, k in ipairs(kids) do out[#out + 1] = tree(k) end
  return v:name() .. "(" .. table.concat(out, " ") .. ")"
end

-- A graph and matcher acquired from R (text) with the topologies t.
local function acquired(t, R, up)
  local g = core.graph()
  local m = core.matcher(g)
  local a = core.acquire(g, m, {protocol = "current"})
  a:set_topology(t)
  local ev, msg = a:apply(('{"resources":%s,"up":"%s"}'):format(R, up))
  assert(ev, msg)
  return g, m, a
end

local function slots(n, cores, gpus)
  return core.jobspec_parse(('{"version":1,"resources":[{"type":"node","count":1,"with":'
    .. '[{"type":"slot","count":%d,"label":"task","with":[{"type":"core","count":%d}%s]}]}],'
    .. '"tasks":[{"command":["true"],"slot":"task","count":{"per_slot":1}}],'
    .. '"attributes":{"system":{"duration":60}}}'):format(n, cores,
    gpus and (',{"type":"gpu","count":%d}'):format(gpus) or ""))
end

describe("core.topologies", function()
  it("loads a class from a file, a text or a description, and lists it", function()
    local t = core.topologies()
    assert.is_true(t:add("0-3", {xml = TWO}))
    assert.is_true(t:add(core.idset("4"), {synthetic = "pack:2 numa:1 core:2"}))
    local c = t:classes()
    assert.same({ranks = "0-3", source = TWO, cores = "0-3", gpus = "0-3", sockets = 2,
      numanodes = 2}, c[1])
    assert.same({ranks = "4", source = 'synthetic "pack:2 numa:1 core:2"', cores = "0-3",
      gpus = "", sockets = 2, numanodes = 2}, c[2])
  end)

  it("refuses what is not an hwloc topology, and keeps what it had", function()
    local t = core.topologies()
    local ok, msg, code = t:add("0", {xml_text = "<html></html>", source = "page.xml"})
    assert.is_nil(ok)
    assert.equal("EINVAL", code)
    assert.equal("page.xml:1: the root element is <html>, not <topology>", msg)
    ok, msg, code = t:add("0", {xml = FIX .. "none.xml"})
    assert.is_nil(ok)
    assert.equal("ENOENT", code)
    assert.matches("none.xml", msg, 1, true)
    ok, msg, code = t:add("0-x", {xml = TWO})
    assert.is_nil(ok)
    assert.equal("EINVAL", code)
    assert.matches("0-x", msg, 1, true)
    assert.equal(0, #t:classes())
    assert.has_error(function() t:add("0", {path = TWO}) end,
      "bad argument #2 to 'add' (unknown key 'path'; the keys are xml, xml_text, source, "
      .. "synthetic)")
    assert.has_error(function() t:add("0", {xmltext = "x"}) end,
      "bad argument #2 to 'add' (unknown key 'xmltext' (did you mean 'xml_text'?); the keys "
      .. "are xml, xml_text, source, synthetic)")
    assert.has_error(function() t:add("0", {}) end,
      "bad argument #2 to 'add' (give exactly one of xml, xml_text or synthetic)")
  end)
end)

describe("the graph of an R with the nodes' topologies", function()
  it("builds each rank's node in its topology's locality form", function()
    local t = core.topologies()
    assert(t:add("0-1", {xml = TWO}))
    local g = acquired(t, R_of({{rank = "0-1", core = "0-3", gpu = "0-3"}}, "n[0-1]"), "0-1")
    assert.equal("cluster0(n0(socket0(numanode0(core0 core1 gpu0)) socket1(numanode1(core2 "
      .. "core3 gpu1 gpu2)) gpu3) n1(socket0(numanode0(core0 core1 gpu0)) socket1(numanode1("
      .. "core2 core3 gpu1 gpu2)) gpu3))", tree(g:root()))
    assert.equal(1, g:vertex("/cluster0/n1/socket1/numanode1/gpu2"):rank())
    assert.same({placed = "0-1", notes = {}, more = 0}, t:report())
  end)

  it("makes only what R gives a rank, in R's numbering", function()
    local t = core.topologies()
    assert(t:add("0", {xml = TWO}))
    local g = acquired(t, R_of({{rank = "0", core = "2-3", gpu = "2"}}, "n0"), "0")
    assert.equal("cluster0(n0(socket1(numanode1(core2 core3 gpu2))))", tree(g:root()))
  end)

  it("writes a job's R with the cores and GPUs of one domain", function()
    local t = core.topologies()
    assert(t:add("0", {xml = TWO}))
    local _, m = acquired(t, R_of({{rank = "0", core = "0-3", gpu = "0-3"}}, "n0"), "0")
    -- each slot of a core and a GPU in a domain: socket0's one GPU
    -- holds one, socket1's the other
    local j = assert(m:match(slots(2, 1, 1), "allocate"))
    assert.same({{rank = "0", children = {core = "0,2", gpu = "0-1"}}},
      m:rv1(j.id):to_table().execution.R_lite)
    -- one more: socket1's last core and GPU (socket0 has a core and no
    -- GPU left)
    j = assert(m:match(slots(1, 1, 1), "allocate"))
    assert.same({{rank = "0", children = {core = "3", gpu = "2"}}},
      m:rv1(j.id):to_table().execution.R_lite)
  end)

  it("writes the R of whole nodes with every core and GPU of each rank", function()
    -- in the graph's order a node lists socket0's core0 core1 gpu0, then
    -- socket1's core2 core3 gpu1 gpu2, then gpu3: R_lite sorts each
    -- rank's cores and GPUs apart
    local t = core.topologies()
    assert(t:add("0-2", {xml = TWO}))
    local _, m = acquired(t, R_of({{rank = "0-2", core = "0-3", gpu = "0-3"}}, "n[0-2]"), "0-2")
    local j = assert(m:match(core.jobspec_parse('{"version":1,"resources":[{"type":"node",'
      .. '"count":3,"exclusive":true,"with":[{"type":"slot","count":1,"label":"task","with":'
      .. '[{"type":"core","count":1}]}]}],"tasks":[{"command":["true"],"slot":"task",'
      .. '"count":{"per_slot":1}}],"attributes":{"system":{"duration":60}}}'), "allocate"))
    assert.same({{rank = "0-2", children = {core = "0-3", gpu = "0-3"}}},
      m:rv1(j.id):to_table().execution.R_lite)
    -- and a part of each: the first slot's core and GPU of socket0 on
    -- two ranks
    m:cancel(j.id)
    j = assert(m:match(core.jobspec_parse('{"version":1,"resources":[{"type":"node",'
      .. '"count":2,"with":[{"type":"slot","count":2,"label":"task","with":'
      .. '[{"type":"core","count":1},{"type":"gpu","count":1}]}]}],"tasks":[{"command":'
      .. '["true"],"slot":"task","count":{"per_slot":1}}],"attributes":{"system":'
      .. '{"duration":60}}}'), "allocate"))
    assert.same({{rank = "0-1", children = {core = "0,2", gpu = "0-1"}}},
      m:rv1(j.id):to_table().execution.R_lite)
  end)

  it("builds flat, with a note, a rank whose topology disagrees with R", function()
    local t = core.topologies()
    assert(t:add("0-4", {xml = TWO}))
    local g = acquired(t, R_of({{rank = "0", core = "0-3", gpu = "0-3"},
      {rank = "1-2", core = "0-7"}, {rank = "3", core = "0-1", gpu = "0-4"},
      {rank = "4", core = "0", memory = "0"}}, "n[0-4]"), "0-4")
    local rep = t:report()
    assert.equal("0", rep.placed)
    assert.same({
      {ranks = "1-2", why = "R gives it core 4, not in the topology (" .. TWO
        .. " has cores 0-3 and gpus 0-3)"},
      {ranks = "3", why = "R gives it gpu 4, not in the topology (" .. TWO
        .. " has cores 0-3 and gpus 0-3)"},
      {ranks = "4", why = "R gives it memory, which a topology does not place (" .. TWO
        .. " has cores 0-3 and gpus 0-3)"}}, rep.notes)
    assert.equal("n1(core0 core1 core2 core3 core4 core5 core6 core7)",
      tree(g:vertex("/cluster0/n1")))
    assert.equal("n4(core0 memory0)", tree(g:vertex("/cluster0/n4")))
  end)

  it("rebuilds flat, with a note, a rank whose scheduling graph disagrees with R_lite",
    function()
    local t = core.topologies()
    assert(t:add("0-1", {xml = TWO}))
    local g = acquired(t, R_of({{rank = "0-1", core = "0-3", gpu = "0-3"}}, "n[0-1]"), "0-1")
    local R = core.rv1_from_graph(g, {graph = true}):to_table()
    -- R_lite gives rank 1 one core fewer than its graph
    R.execution.R_lite = {{rank = "0", children = {core = "0-3", gpu = "0-3"}},
      {rank = "1", children = {core = "0-2", gpu = "0-3"}}}
    local t2 = core.topologies()
    local g2 = acquired(t2, core.json_encode(R, 0), "0-1")
    assert.same({{ranks = "1", why = "the scheduling graph gives it cores 0-3 and gpus 0-3, "
      .. "R_lite cores 0-2 and gpus 0-3"}}, t2:report().notes)
    assert.equal(tree(g:vertex("/cluster0/n0")), tree(g2:vertex("/cluster0/n0")))
    assert.equal("n1(core0 core1 core2 gpu0 gpu1 gpu2 gpu3)", tree(g2:vertex("/cluster0/n1")))
    -- one that agrees keeps its graph
    R.execution.R_lite[2].children.core = "0-3"
    local t3 = core.topologies()
    local g3 = acquired(t3, core.json_encode(R, 0), "0-1")
    assert.same({}, t3:report().notes)
    assert.equal(tree(g:root()), tree(g3:root()))
  end)

  it("keeps the first class a rank is given", function()
    local t = core.topologies()
    assert(t:add("0", {synthetic = "pack:1 numa:1 core:4"}))
    assert(t:add("0-1", {xml = TWO}))
    local g = acquired(t, R_of({{rank = "0-1", core = "0-3"}}, "n[0-1]"), "0-1")
    assert.equal("n0(socket0(numanode0(core0 core1 core2 core3)))", tree(g:vertex("/cluster0/n0")))
    assert.equal("n1(socket0(numanode0(core0 core1)) socket1(numanode1(core2 core3)))",
      tree(g:vertex("/cluster0/n1")))
  end)
end)

describe("grove.flux's node topologies", function()
  local R = R_of({{rank = "0-1", core = "0-3", gpu = "0-3"}, {rank = "2-3", core = "0-1"}},
    "n[0-3]")
  local function first(_, up)
    return core.json_decode(('{"resources":%s,"up":"%s"}'):format(R, up or "0-3"))
  end

  it("asks the instance for one rank of each shape no class names", function()
    local s = assert(flux.new{})
    assert.same({{rank = 0, ranks = "0-1"}, {rank = 2, ranks = "2-3"}}, s:topology_asks(first(s)))
    -- the lowest rank up of the shape
    assert.same({{rank = 1, ranks = "0-1"}, {rank = 3, ranks = "2-3"}},
      s:topology_asks(first(s, "1,3")))
    s = assert(flux.new{hwloc = {{path = TWO, ranks = "0-1"}}})
    assert.same({{rank = 2, ranks = "2-3"}}, s:topology_asks(first(s)))
    s = assert(flux.new{hwloc = {{path = TWO, hosts = "n[0-2]"}}})
    assert.same({{rank = 3, ranks = "3"}}, s:topology_asks(first(s)))
    assert.same({}, assert(flux.new{hwloc = {{path = TWO}}}):topology_asks(first(s)))
    assert.same({}, assert(flux.new{topology = "flat"}):topology_asks(first(s)))
  end)

  it("builds the configured classes, then the instance's, and says what it did", function()
    local s = assert(flux.new{hwloc = {{path = TWO, ranks = "0-1"}}})
    s:topology({classes = {{ranks = "2-3", rank = 2,
      xml = io.open(FIX .. "sub-numa.xml"):read("a")}}})
    local acts = s:handle("resource.acquire", first(s))
    for _, a in ipairs(acts) do assert.are_not.equal("err", a.level) end
    local st = s:stats().topology
    assert.equal("auto", st.mode)
    assert.equal("0-3", st.placed)
    assert.same({"0-1", "2-3"}, {st.classes[1].ranks, st.classes[2].ranks})
    assert.equal("rank 2's hwloc (resource.topo-get)", st.classes[2].source)
    assert.is_nil(st.flat)
    local g = s.loop.g
    assert.equal("n3(socket0(numanode0(core0 core1)))", tree(g:vertex("n3")))
  end)

  it("schedules a rank flat when its topology does not load or disagrees, and says so",
    function()
    local s = assert(flux.new{hwloc = {{path = FIX .. "numa-above-package.xml", ranks = "0-1"},
      {path = TWO, ranks = "2"}}})
    s:topology({classes = {{ranks = "3", rank = 3, xml = "not a topology"}}})
    local acts = s:handle("resource.acquire", first(s))
    local logs = {}
    for _, a in ipairs(acts) do
      if a.op == "log" and a.level == "err" then logs[#logs + 1] = a.message end
    end
    assert.same({
      "topology: rank 3: rank 3's hwloc (resource.topo-get):1: not well-formed XML: "
        .. "Start tag expected, '<' not found; scheduled on R_lite's cores and GPUs (a flat node)",
      "topology: ranks 0-1: R gives it gpu 2, not in the topology (" .. FIX
        .. "numa-above-package.xml has cores 0-3 and gpus 0-1); scheduled on R_lite's cores "
        .. "and GPUs (a flat node)"}, logs)
    local st = s:stats().topology
    assert.equal("2", st.placed)
    assert.equal(2, #st.flat)
    assert.equal("3", st.flat[1].ranks)
    assert.equal("0-1", st.flat[2].ranks)
    -- and jobs run all the same
    acts = s:handle("sched.alloc", h.alloc(1, h.jobspec(4, 2, 60)))
    assert.equal("success", h.by_id(acts, "alloc")[1].type)
  end)

  it("keeps slots in one domain, and says when one spread (annotation and why)", function()
    local clock = {t = 1000}
    local s = assert(flux.new{hwloc = {{path = TWO, ranks = "0-1"}},
      clock = function() return clock.t end})
    s:handle("resource.acquire", ('{"resources":%s,"up":"0-1"}'):format(
      R_of({{rank = "0-1", core = "0-3", gpu = "0-3"}}, "n[0-1]")))
    local function js(c, g)
      local with = {}
      if c > 0 then with[#with + 1] = ('{"type":"core","count":%d}'):format(c) end
      if g > 0 then with[#with + 1] = ('{"type":"gpu","count":%d}'):format(g) end
      return ('{"version":1,"resources":[{"type":"slot","count":1,"label":"task","with":[%s]}],'
        .. '"tasks":[{"command":["true"],"slot":"task","count":{"per_slot":1}}],'
        .. '"attributes":{"system":{"duration":60}}}'):format(table.concat(with, ","))
    end
    -- rank 0's first domain keeps a GPU and no core, its second two
    -- cores and no GPU; then slots of a core and a GPU: rank 1's four
    -- first (three in its domains, and its GPU of no package with a
    -- core), then rank 0's, the first of them spread
    local shapes = {{2, 0}, {0, 2}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}}
    local ann = {}
    for id, sh in ipairs(shapes) do
      local acts = s:handle("sched.alloc", h.alloc(id, js(sh[1], sh[2])))
      local a = h.by_id(acts, "alloc", "success")[id]
      assert(a, "job " .. id .. " started")
      ann[id] = a.annotations.sched
    end
    for id = 1, 6 do assert.is_nil(ann[id].spread_slots, "job " .. id) end
    assert.equal(1, ann[7].spread_slots)
    assert.is_nil(ann[8].spread_slots)
    local d
    for _, a in ipairs(s:handle("sched-grove.why", {id = 7, json = true})) do
      if a.op == "respond" then d = core.json_decode(a.json or a.payload.text) end
    end
    assert.equal(1, d.spread_slots)
    local said = false
    for _, r in ipairs(d.reasons) do
      if r.kind == "spread" then
        said = true
        assert.equal("1 of its slots is spread over locality domains: when it started, no node "
          .. "had room for it within one NUMA domain", r.text)
      end
    end
    assert.is_true(said)
  end)

  it("reads topology and hwloc-xml, refusing bad values with the reason", function()
    local config = require("grove.flux.config")
    local o = assert(config.module_options({["sched-grove"] = {topology = "flat",
      ["hwloc-xml"] = {{path = TWO, hosts = "n[0-3]"}}}}, {}))
    assert.equal("flat", o.topology)
    assert.same({{path = TWO, hosts = "n[0-3]"}}, o.hwloc)
    assert.same({{path = TWO}}, assert(config.module_options(nil, {"hwloc-xml=" .. TWO})).hwloc)
    local bad = {
      {{topology = "hwloc"}, "[sched-grove]: topology=hwloc: auto or flat expected"},
      {{["hwloc-xml"] = {{path = TWO, rank = "0"}}},
        "class 1: unknown key 'rank' (did you mean 'ranks'?) (path, ranks, hosts)"},
      {{["hwloc-xml"] = {{path = TWO, ranks = "0", hosts = "n0"}}},
        "class 1: ranks or hosts, not both"},
      {{["hwloc-xml"] = {{path = TWO, ranks = "0-"}}}, "class 1: ranks: an idset expected"},
      {{["hwloc-xml"] = {{ranks = "0"}}}, "class 1: path: an hwloc XML file expected"},
      {{["hwloc-xml"] = 3}, "a path, or a list of {path = PATH, ranks = IDSET | hosts = "
        .. "HOSTLIST} expected"},
    }
    for _, b in ipairs(bad) do
      local ok, msg = config.module_options({["sched-grove"] = b[1]}, {})
      assert.is_nil(ok)
      assert.matches(b[2], msg, 1, true)
    end
  end)

  it("builds the graph once: a reload that changes the topology says when it applies",
    function()
    local s = assert(flux.module({["sched-grove"] = {["hwloc-xml"] = TWO}}, {}))
    s:handle("resource.acquire", first(s))
    local acts = s:handle("config-reload", {conf = {["sched-grove"] = {topology = "flat"}}})
    local said = false
    for _, a in ipairs(acts) do
      said = said or (a.op == "log" and a.message:find("apply when the module is loaded again",
        1, true) ~= nil)
    end
    assert.is_true(said)
    assert.equal("auto", s:stats().topology.mode)
  end)
end)

describe("a vertex's locality domain", function()
  it("is read by vertices and by a policy's hooks", function()
    local hg = core.hwloc_load{xml = TWO, hostnames = "n0",
      types = {"node", "socket", "numanode", "core", "gpu"}}
    assert.equal("/cluster0/n0/socket1/numanode1", hg:vertex("/cluster0/n0/socket1/numanode1/gpu2")
      :locality():path())
    assert.is_nil(hg:vertex("/cluster0/n0/gpu3"):locality())
    assert.is_nil(hg:vertex("/cluster0/n0/socket0"):locality())
    -- a policy that orders children by their domain's id (a socket's: its
    -- first child's), the highest first: a one-core slot goes to domain 1,
    -- not to the first core
    local pol = assert(core.policy_parse([[
      local function dom(v)
        local d = v:locality()
        if not d and v:children_list()[1] then d = v:children_list()[1]:locality() end
        return d and d:id() or -1
      end
      return {name = "bydomain", order = function(_, children)
        table.sort(children, function(a, b) return dom(a) > dom(b) end)
      end}]], "bydomain.lua"))
    local m = core.matcher(hg)
    m:set_policy(pol)
    local j = assert(m:match(core.jobspec_parse(
      '{"version":1,"resources":[{"type":"slot","count":1,"label":"t","with":[{"type":"core",'
      .. '"count":1}]}],"tasks":[{"command":["x"],"slot":"t","count":{"per_slot":1}}],'
      .. '"attributes":{"system":{"duration":60}}}')))
    local R = m:rv1(j.id):to_table()
    assert.equal("0", R.execution.R_lite[1].rank)
    assert.truthy(({["2"] = true, ["3"] = true})[R.execution.R_lite[1].children.core],
      "a core of domain 1")
  end)
end)
