-- Specs for a rabbit site's resources as the site gives them: the R of
-- examples/rabbit.lua (the JGF shape flux-coral2's dws2jgf writes: chassis
-- holding ssd vertices with neither name nor id, down until the rabbit is
-- up, beside the compute nodes they serve), loaded by grove query and as a
-- Flux instance's graph (grove.flux), storage allocated with RFC 31
-- property constraints as flux-coral2's jobtap plugin writes them, R with
-- its scheduling key, a partial free while the ssds (no broker rank) stay
-- held, and bad rabbit JGFs refused with the place and the reason.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, and must not be copied here.
local core = require("grove.core")
local exe = require("exe_helper")
local h = require("flux_helper")
local rabbit = dofile("examples/rabbit.lua")

local alloc, by_id, ranks_of = h.alloc, h.by_id, h.ranks_of

-- A jobspec as flux-coral2 rewrites one for storage: n slots, each a node
-- (one core for the task) and gib GiB of ssd (none when nil); constraints
-- (JSON text) as its jobtap plugin joins them (the queue's, and the
-- badrabbit exclusion) unless given, none when false.
local function rabbit_jobspec(n, gib, constraints, duration)
  if constraints == nil then
    constraints = '{"and":[{"properties":["pdebug"]},{"not":[{"properties":["badrabbit"]}]}]}'
  end
  local ssd = gib and (',{"type":"ssd","count":%d,"exclusive":true}'):format(gib) or ""
  return ('{"version":1,"resources":[{"type":"slot","count":%d,"label":"rabbit","with":'
    .. '[{"type":"node","count":1,"exclusive":true,"with":[{"type":"slot","count":1,'
    .. '"label":"task","with":[{"type":"core","count":1}]}]}%s]}],"tasks":[{"command":'
    .. '["hostname"],"slot":"task","count":{"per_slot":1}}],"attributes":{"system":'
    .. '{"duration":%d%s}}}'):format(n, ssd, duration or 3600,
    constraints and ',"constraints":' .. constraints or "")
end

-- The ssd paths of an R's scheduling graph, sorted.
local function ssd_paths(R)
  local t = type(R) == "string" and core.json_decode(R) or R
  local out = {}
  for _, n in ipairs(t.scheduling.graph.nodes) do
    if n.metadata.type == "ssd" then out[#out + 1] = n.metadata.paths.containment end
  end
  table.sort(out)
  return out
end

describe("a rabbit site's JGF", function()
  it("is what flux-coral2's dws2jgf writes", function()
    local R = rabbit.R{properties = {pdebug = "0-1"}}
    local types, ssd = {}, nil
    for _, n in ipairs(R.scheduling.graph.nodes) do
      types[n.metadata.type] = (types[n.metadata.type] or 0) + 1
      if n.metadata.type == "ssd" then ssd = ssd or n.metadata end
    end
    assert.same({cluster = 1, chassis = 2, ssd = 8, node = 4, core = 16}, types)
    assert.same({type = "ssd", unit = "GiB", size = 1024, status = 1,
      paths = {containment = "/rb/chassis0/ssd0"}}, ssd)
    assert.same({"rb[0-3]"}, R.execution.nodelist)
  end)

  describe("in grove query", function()
    local dir, graph, js

    setup(function()
      dir = exe.scratch_dir()
      graph = dir .. "/rabbit.json"
      exe.write(graph, core.json_encode(rabbit.R{properties = {pdebug = "0-1"}}.scheduling, 0))
      js = dir .. "/js.json"
      exe.write(js, rabbit_jobspec(1, 1536))
    end)

    teardown(function()
      os.execute("rm -rf " .. dir)
    end)

    local function query(cmds, fmt)
      local path = dir .. "/cmds"
      exe.write(path, (cmds:gsub("JS", js)))
      return exe.run(("%s query -L %s -F %s -d < %s"):format(exe.GROVE, graph, fmt or "simple",
        path))
    end

    it("loads the ssds down, found by the paths the site gives them", function()
      local out, rc = query("find status=down\nget-status /rb/chassis1/ssd3\n"
        .. "set-status /rb/chassis1/ssd3 up\nget-status /rb/chassis1/ssd3\n"
        .. "get-status /rb/chassis1/ssd20\n")
      assert.equal(0, rc, out)
      local down = {}
      for name in out:gmatch("%-(ssd%d+)%[1024:x%]") do down[#down + 1] = name end
      assert.equal(8, #down, out)
      assert.truthy(out:find("/rb/chassis1/ssd3 is down\n/rb/chassis1/ssd3 is up\n", 1, true),
        out)
      -- ssd20 is its name, not its path
      assert.truthy(out:find("Could not find path /rb/chassis1/ssd20", 1, true), out)
    end)

    it("places storage on nodes with a property once the ssds are up", function()
      local up = {}
      for s = 0, 3 do up[#up + 1] = "set-status /rb/chassis0/ssd" .. s .. " up" end
      local out, rc = query("match allocate JS\n" .. table.concat(up, "\n")
        .. "\nmatch allocate JS\nmatch allocate JS\nmatch allocate JS\n", "rv1")
      assert.equal(0, rc, out)
      local Rs = {}
      for line in out:gmatch("[^\n]+") do
        if line:sub(1, 1) == "{" then Rs[#Rs + 1] = core.json_decode(line) end
      end
      -- the first and the last find no room: ssds down, then no pdebug node free
      assert.equal(2, #Rs, out)
      assert.truthy(out:find("INFO: JOBID=1\n", 1, true) and out:find("INFO: JOBID=4\n", 1, true))
      local ranks, paths = {}, {}
      for _, R in ipairs(Rs) do
        ranks[#ranks + 1] = R.execution.R_lite[1].rank
        local mine = ssd_paths(R)
        -- 1536 GiB: two whole ssds of 1024 (here on the node's own chassis)
        assert.equal(2, #mine)
        for _, p in ipairs(mine) do
          assert.truthy(p:match("^/rb/chassis0/ssd[0-3]$"), p)
          assert.is_nil(paths[p], "an ssd given twice: " .. p)
          paths[p] = true
        end
      end
      table.sort(ranks)
      assert.same({"0", "1"}, ranks)
    end)

    it("says a request larger than any chassis holds can never run", function()
      exe.write(js, rabbit_jobspec(1, 5000))
      local out = query("match allocate_orelse_reserve JS\n")
      exe.write(js, rabbit_jobspec(1, 1536))
      assert.truthy(out:find("No matching resources found", 1, true), out)
    end)
  end)
end)

-- The paths of what job id holds in session s (flux grove find).
local function held_paths(s, id)
  local held
  for _, act in ipairs(s:handle("sched-grove.find", {expr = "jobid-alloc=" .. id, json = true})) do
    if act.op == "respond" then held = core.json_decode(act.payload.text) end
  end
  local paths = {}
  for _, v in ipairs(held.vertices) do paths[v.path] = true end
  return paths
end

describe("a rabbit site as a Flux instance's graph", function()
  -- A session on the generated R (ssds up), R written with its graph.
  local function rabbit_session(opts)
    opts = opts or {}
    opts.match_format = opts.match_format or "rv1"
    local R = core.json_encode(rabbit.R{properties = {pdebug = "0-1"}, up = true}, 0)
    return h.session(opts, R, "0-3")
  end

  it("allocates storage with RFC 31 property constraints, R with its scheduling key",
    function()
      local s = rabbit_session()
      local acts = s:handle("sched.alloc", alloc(1, rabbit_jobspec(2, 2048)))
      local a = by_id(acts, "alloc", "success")[1]
      assert.truthy(a, "job 1 starts")
      assert.equal("0-1", ranks_of(a))
      assert.same({"/rb/chassis0/ssd0", "/rb/chassis0/ssd1", "/rb/chassis0/ssd2",
        "/rb/chassis0/ssd3"}, ssd_paths(a.R))
      -- the allowed-rabbits form: either the constraint or the property
      -- rabbit (nodes without pdebug have none: chassis1 stays out)
      acts = s:handle("sched.alloc", alloc(2, rabbit_jobspec(1, 1024,
        '{"or":[{"properties":["rabbit"]},{"properties":["pdebug"]}]}')))
      assert.is_nil(by_id(acts, "alloc", "success")[2])
      s:handle("sched.cancel", '{"id":2}')
      -- without the property: chassis1's nodes and ssds
      acts = s:handle("sched.alloc", alloc(3, rabbit_jobspec(1, 1024,
        '{"not":[{"properties":["pdebug"]}]}')))
      a = by_id(acts, "alloc", "success")[3]
      assert.truthy(a, "job 3 starts")
      assert.truthy(ssd_paths(a.R)[1]:match("^/rb/chassis1/ssd[0-3]$"))
      -- rv1_nosched: no graph in R
      local s2 = rabbit_session{match_format = "rv1_nosched"}
      a = by_id(s2:handle("sched.alloc", alloc(1, rabbit_jobspec(1, 1024))), "alloc", "success")[1]
      assert.is_nil(core.json_decode(a.R).scheduling)
    end)

  it("keeps a slot's ssds in the chassis of its node, and gives a node no rabbit serves none",
    function()
    -- rb4 hangs under the cluster: no rabbit serves it
    local R = core.json_encode(rabbit.R{properties = {pdebug = "0-1"}, up = true, plain = 1}, 0)
    local s = h.session({match_format = "rv1"}, R, "0-4")
    local pdebug = '{"properties":["pdebug"]}'
    local acts = s:handle("sched.alloc", alloc(1, rabbit_jobspec(1, 4096, pdebug)))
    local a = by_id(acts, "alloc", "success")[1]
    assert.same({"/rb/chassis0/ssd0", "/rb/chassis0/ssd1", "/rb/chassis0/ssd2",
      "/rb/chassis0/ssd3"}, ssd_paths(a.R))
    -- rb1 is free but its chassis has no ssd left: it waits (it was given
    -- one of chassis1's)
    acts = s:handle("sched.alloc", alloc(2, rabbit_jobspec(1, 1024, pdebug)))
    assert.is_nil(by_id(acts, "alloc", "success")[2])
    assert.equal("annotate", by_id(acts, "alloc")[2].type)
    s:handle("sched.cancel", '{"id":2}')
    -- the node no rabbit serves, with storage: never (it was given an ssd)
    acts = s:handle("sched.alloc", alloc(3, rabbit_jobspec(1, 1024, '{"hostlist":["rb4"]}')))
    a = by_id(acts, "alloc")[3]
    assert.equal("deny", a.type)
    assert.matches("unsatisfiable", a.note)
    -- without storage it runs there
    acts = s:handle("sched.alloc", alloc(4, rabbit_jobspec(1, nil, '{"hostlist":["rb4"]}')))
    assert.equal("4", ranks_of(by_id(acts, "alloc", "success")[4]))
    -- once job 1 ends, rb1 gets chassis0's ssd
    s:handle("sched.free", {id = 1, R = "{}", final = true})
    acts = s:handle("sched.alloc", alloc(5, rabbit_jobspec(1, 1024, pdebug)))
    a = by_id(acts, "alloc", "success")[5]
    assert.truthy(a, "job 5 starts")
    assert.truthy(ssd_paths(a.R)[1]:match("^/rb/chassis0/ssd[0-3]$"))
  end)

  it("keeps a node and its ssds in one chassis in the chassis form", function()
    local js = rabbit_jobspec(1, 4096):gsub('"type":"slot","count":1,"label":"rabbit"',
      '"type":"chassis","count":1', 1)
    assert.truthy(js:find('"type":"chassis"', 1, true))
    local s = rabbit_session()
    s:handle("sched-grove.set-status", {target = "/rb/chassis0/ssd0", status = "down"})
    -- chassis0 has three ssds up: the pdebug nodes' chassis cannot hold it
    local acts = s:handle("sched.alloc", alloc(1, js))
    assert.is_nil(by_id(acts, "alloc", "success")[1])
    acts = s:handle("sched-grove.set-status", {target = "/rb/chassis0/ssd0", status = "up"})
    local a = by_id(acts, "alloc", "success")[1]
    assert.truthy(a, "job 1 starts once chassis0 has four ssds up")
    assert.same({"/rb/chassis0/ssd0", "/rb/chassis0/ssd1", "/rb/chassis0/ssd2",
      "/rb/chassis0/ssd3"}, ssd_paths(a.R))
  end)

  it("keeps the ssds of a partial free (no broker rank) until the final one", function()
    local s = rabbit_session()
    local a = by_id(s:handle("sched.alloc", alloc(1, rabbit_jobspec(2, 2048))), "alloc",
      "success")[1]
    assert.equal("0-1", ranks_of(a))
    -- housekeeping gives back rank 0 (R without its graph, as flux-core's
    -- housekeeping sends a part)
    local acts = s:handle("sched.free", ('{"id":1,"R":%s,"final":false}'):format(
      h.R_text("0", "rb0")))
    assert.same({}, by_id(acts, "alloc"))
    -- the node is free: a job without storage starts there
    acts = s:handle("sched.alloc", alloc(2, rabbit_jobspec(1, nil)))
    assert.equal("0", ranks_of(by_id(acts, "alloc", "success")[2]))
    -- the ssds are not: job 3 waits for them
    acts = s:handle("sched.alloc", alloc(3, rabbit_jobspec(1, 1024)))
    assert.is_nil(by_id(acts, "alloc", "success")[3])
    -- the final free (the job's whole R) lets them go
    acts = s:handle("sched.free", ('{"id":1,"R":%s,"final":true}'):format(a.R))
    a = by_id(acts, "alloc", "success")[3]
    assert.truthy(a, "job 3 starts at the final free")
    assert.equal("1", ranks_of(a))
    assert.equal(1, #ssd_paths(a.R))
  end)

  it("gives back at once the ranks of a partial free below a chassis held whole", function()
    -- a chassis taken exclusively (flux-coral2's chassis form): its nodes,
    -- its ssds, all of it the job's
    local js = '{"version":1,"resources":[{"type":"chassis","count":1,"exclusive":true,'
      .. '"with":[{"type":"node","count":2,"exclusive":true,"with":[{"type":"slot",'
      .. '"count":1,"label":"task","with":[{"type":"core","count":1}]}]},'
      .. '{"type":"ssd","count":1024,"exclusive":true}]}],"tasks":[{"command":["true"],'
      .. '"slot":"task","count":{"per_slot":1}}],"attributes":{"system":{"duration":3600,'
      .. '"constraints":{"properties":["pdebug"]}}}}'
    local s = rabbit_session()
    local a = by_id(s:handle("sched.alloc", alloc(1, js)), "alloc", "success")[1]
    assert.equal("0-1", ranks_of(a))
    -- the whole chassis is written: its four ssds
    assert.equal(4, #ssd_paths(a.R))
    s:handle("sched.free", ('{"id":1,"R":%s,"final":false}'):format(h.R_text("0", "rb0")))
    -- what job 1 still holds: rank 1 and every ssd of the chassis, not rank 0
    local paths = held_paths(s, 1)
    for k = 0, 3 do assert.truthy(paths["/rb/chassis0/ssd" .. k], "ssd" .. k) end
    assert.truthy(paths["/rb/chassis0/rb1"])
    assert.is_nil(paths["/rb/chassis0/rb0"])
    assert.is_nil(paths["/rb/chassis0/rb0/core0"])
    local acts = s:handle("sched.alloc", alloc(2, rabbit_jobspec(1, nil)))
    assert.equal("0", ranks_of(by_id(acts, "alloc", "success")[2]))
    acts = s:handle("sched.alloc", alloc(3, rabbit_jobspec(1, 1024, false)))
    a = by_id(acts, "alloc", "success")[3]
    assert.truthy(a, "job 3 starts on chassis1")
    assert.equal("/rb/chassis1", ssd_paths(a.R)[1]:match("^(.*)/ssd%d$"))
    acts = s:handle("sched.alloc", alloc(4, rabbit_jobspec(1, nil)))
    assert.is_nil(by_id(acts, "alloc", "success")[4])
    -- the final free lets the rest go
    acts = s:handle("sched.free", '{"id":1,"R":' .. h.R_text("1", "rb1") .. ',"final":true}')
    assert.equal("1", ranks_of(by_id(acts, "alloc", "success")[4]))
  end)

  it("puts a rabbit job back from its R on hello, ssds included", function()
    local s = rabbit_session()
    local a = by_id(s:handle("sched.alloc", alloc(1, rabbit_jobspec(2, 2048))), "alloc",
      "success")[1]
    -- a new module (its ssds down, as the site's JGF gives them): the job
    -- comes back with rank 0 already freed, its four ssds held
    local s2 = h.session({match_format = "rv1"},
      core.json_encode(rabbit.R{properties = {pdebug = "0-1"}}, 0), "0-3")
    local acts = s2:handle("sched.hello", ('{"id":1,"priority":16,"userid":100,"t_submit":1,'
      .. '"R":%s,"free":"0"}'):format(a.R))
    assert.same({}, by_id(acts, "error"))
    local paths = held_paths(s2, 1)
    for k = 0, 3 do assert.truthy(paths["/rb/chassis0/ssd" .. k], "ssd" .. k) end
    assert.truthy(paths["/rb/chassis0/rb1"])
    assert.is_nil(paths["/rb/chassis0/rb0"])
    -- the ssds up: still job 1's
    for k = 0, 3 do
      s2:handle("sched-grove.set-status", {target = "/rb/chassis0/ssd" .. k, status = "up"})
    end
    acts = s2:handle("sched.alloc", alloc(2, rabbit_jobspec(1, 1024)))
    assert.is_nil(by_id(acts, "alloc", "success")[2])
    acts = s2:handle("sched.free", ('{"id":1,"R":%s,"final":true}'):format(a.R))
    a = by_id(acts, "alloc", "success")[2]
    assert.truthy(a, "job 2 starts once job 1 ends")
    assert.equal(1, #ssd_paths(a.R))
    -- an R naming an ssd this graph does not have: the job keeps what is
    -- left until its free (given to no other job while it is torn down)
    -- and is ended with an exception naming what is gone
    local R = core.json_decode(a.R)
    for _, n in ipairs(R.scheduling.graph.nodes) do
      if n.metadata.type == "ssd" then n.metadata.paths.containment = "/rb/chassis0/ssd7" end
    end
    local s3 = rabbit_session()
    acts = s3:handle("sched.hello", ('{"id":2,"priority":16,"userid":100,"t_submit":1,'
      .. '"R":%s}'):format(core.json_encode(R, 0)))
    local ex = by_id(acts, "exception")[2]
    assert.truthy(ex, "an exception for job 2")
    assert.equal("resource", ex.type)
    assert.matches("no longer in the instance's set", ex.note)
    assert.is_not_nil(next(held_paths(s3, 2)))
  end)

  it("marks ssds up and down by the site's paths, as flux-coral2 asks Fluxion", function()
    local R = core.json_encode(rabbit.R{properties = {pdebug = "0-1"}}, 0)
    local s = h.session({match_format = "rv1"}, R, "0-3")
    local function answer(req)
      for _, a in ipairs(s:handle("sched-grove.set-status", req)) do
        if a.op == "respond" then return a.payload.text end
        if a.op == "error" then return nil, a.errnum, a.message end
      end
    end
    -- the ssds are down as the JGF gives them: the job waits, never denied
    local acts = s:handle("sched.alloc", alloc(1, rabbit_jobspec(1, 2048)))
    assert.is_nil(by_id(acts, "alloc", "success")[1])
    assert.is_nil(by_id(acts, "alloc", "deny")[1])
    local why
    for _, act in ipairs(s:handle("sched-grove.why", {id = 1})) do
      if act.op == "respond" then why = act.payload.text end
    end
    assert.truthy(why:find("and 8 vertices without a broker rank are down (/rb/chassis0/ssd0, "
      .. "/rb/chassis0/ssd1, ", 1, true), why)
    -- Fluxion's payload, one path a request: the job starts at the second
    assert.equal("/rb/chassis0/ssd2: up\n",
      answer('{"resource_path":"/rb/chassis0/ssd2","status":"up"}'))
    acts = s:handle("sched-grove.set-status", {target = "/rb/chassis0/ssd3", status = "up"})
    local a = by_id(acts, "alloc", "success")[1]
    assert.truthy(a, "job 1 starts once two ssds are up")
    assert.same({"/rb/chassis0/ssd2", "/rb/chassis0/ssd3"}, ssd_paths(a.R))
    assert.equal("/rb/chassis0/ssd3: up already\n",
      answer({target = "/rb/chassis0/ssd3", status = "up"}))
    -- down again: job 1 keeps them; a second job cannot have them
    assert.equal("/rb/chassis0/ssd2: down\n", answer({target = "/rb/chassis0/ssd2",
      status = "down"}))
    s:handle("sched.free", ('{"id":1,"R":%s,"final":true}'):format(a.R))
    acts = s:handle("sched.alloc", alloc(2, rabbit_jobspec(1, 2048)))
    assert.is_nil(by_id(acts, "alloc", "success")[2])
    -- refusals, with the reason
    local cases = {
      {{target = "/rb/chassis0/ssd9", status = "up"}, "ENOENT",
        "set-status: no vertex at path '/rb/chassis0/ssd9' (did you mean '/rb/chassis0/ssd0'?)"},
      {{target = "/rb/chassis0/ssd0", status = "sideways"}, "EINVAL",
        "set-status: the status must be up or down, got 'sideways'"},
      {{target = "/rb/chassis0/rb0", status = "down"}, "EINVAL",
        "set-status: /rb/chassis0/rb0 has broker rank 0: its status is the resource "
        .. "module's (flux resource drain, flux resource undrain)"},
    }
    for _, c in ipairs(cases) do
      local text, code, msg = answer(c[1])
      assert.is_nil(text)
      assert.equal(c[2], code)
      assert.equal(c[3], msg)
    end
  end)

  it("leaves out a node R_lite does not hold (resource.exclude), as flux-core sends it",
    function()
      -- flux-core's resource module takes excluded ranks out of R_lite and
      -- leaves the scheduling key whole
      local R = rabbit.R{properties = {pdebug = "0-1"}, up = true}
      R.execution.R_lite[1].rank = "0-2"
      R.execution.nodelist = {"rb[0-2]"}
      local s = h.session({match_format = "rv1"}, core.json_encode(R, 0), "0-2")
      local ranks = {}
      for id = 1, 4 do
        local acts = s:handle("sched.alloc", alloc(id, rabbit_jobspec(1, 1024, false)))
        local a = by_id(acts, "alloc", "success")[id]
        if a then ranks[#ranks + 1] = ranks_of(a) end
      end
      table.sort(ranks)
      assert.same({"0", "1", "2"}, ranks)
    end)

  it("refuses a malformed rabbit JGF with the place and the reason", function()
    local function acquire_log(mutate)
      local R = rabbit.R{properties = {pdebug = "0-1"}, up = true}
      mutate(R.scheduling.graph)
      local s = assert(require("grove.flux").new{clock = function() return 1000 end})
      local acts = s:handle("resource.acquire",
        ('{"resources":%s,"up":"0-3"}'):format(core.json_encode(R, 0)))
      local logs = {}
      for _, act in ipairs(acts) do
        if act.op == "log" and act.level == "err" then logs[#logs + 1] = act.message end
      end
      return table.concat(logs, "\n"), s
    end
    local cases = {
      {function(g) g.nodes[3].metadata.size = "big" end, "nodes%[2%]%.metadata%.size"},
      {function(g) g.nodes[3].metadata.paths.containment = "/rb/chassis1/ssd0" end,
        "nodes%[2%]%.metadata%.paths%.containment: \"/rb/chassis1/ssd0\" "
          .. "disagrees with the edges"},
      {function(g) g.nodes[4].metadata.paths.containment = "/rb/chassis0/ssd0" end,
        "nodes%[3%]%.metadata%.paths%.containment: \"/rb/chassis0/ssd0\" "
          .. "is the path of nodes%[2%] too"},
      {function(g) g.edges[2].target = "99" end, "edges%[1%]%.target"},
    }
    for i, c in ipairs(cases) do
      local log, s = acquire_log(c[1])
      assert.truthy(log:find(c[2]), ("case %d: %s"):format(i, log))
      -- nothing was loaded: a job is not started on a half graph
      local acts = s:handle("sched.alloc", alloc(1, rabbit_jobspec(1, 1024)))
      assert.is_nil(by_id(acts, "alloc", "success")[1], "case " .. i)
    end
  end)
end)
