-- rv1_spec.lua: the grove.rv1 userdata (RFC 20 R version 1) seen from Lua.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local expect = require("expect")

local corpus = os.getenv "GROVE_CONFORMANCE" or "../shared/conformance"

local raises = expect.raises
local fmt = string.format

local function ex(body)
  return '{"version":1,"execution":{' .. body .. '}}'
end

local two = ex('"R_lite":[{"rank":"0-1","children":{"core":"0-3","gpu":"0"}}],'
  .. '"nodelist":["n[0-1]"],"properties":{"fast":"1"},"starttime":5,"expiration":10')

describe("core.rv1_decode", function()
  it("reads the RFC example and writes it back equal", function()
    local R = assert(core.rv1_load(corpus .. "/rfc/spec_20/example1.json"))
    assert.equal("grove.rv1", getmetatable(R).__name)
    assert.same({
      version = 1,
      execution = {
        R_lite = { { rank = "19-22", children = { core = "0-47", gpu = "0-7" } } },
        nodelist = { "node[186-189]" },
        nslots = 32,
        starttime = 1676560542,
        expiration = 1676562342,
      },
    }, R:to_table())
    assert.equal('{"version":1,"execution":{"R_lite":[{"rank":"19-22","children":'
      .. '{"core":"0-47","gpu":"0-7"}}],"nodelist":["node[186-189]"],'
      .. '"starttime":1676560542,"expiration":1676562342,"nslots":32}}', R:encode())
    assert.equal(R:encode(), tostring(R))
    assert.equal(4, R:count())
    assert.equal(192, R:count "core")
    assert.equal(32, R:count "gpu")
    assert.equal(32, R:nslots())
    assert.equal(1676560542, R:starttime())
    assert.equal(1676562342, R:expiration())
    assert.equal("node187", R:hostname(20))
    assert.is_nil(R:hostname(23))
    assert.same({ core = "0-47", gpu = "0-7" }, R:children(22))
    assert.is_nil(R:children(0))
    assert.same({ "core", "gpu" }, R:types())
  end)

  it("round-trips every rv1exec document of the corpus", function()
    for _, f in ipairs {
      "tiny_rv1exec.json", "tiny_rv1exec_2-1.json", "tiny_rv1exec_2-1_split.json",
      "cancel/rank0_cancel-jgfgraph.json", "cancel/rank1_cancel.json",
      "cancel/ranks_cancel_crossracks.json",
    } do
      local path = corpus .. "/fluxion/rv1exec/" .. f
      local fh = assert(io.open(path))
      local text = fh:read "a"
      fh:close()
      local R = assert(core.rv1_decode(text, f))
      local back = assert(core.rv1_decode(R:encode()))
      assert.same(R:to_table(), back:to_table())
      assert.is_true(R == back)
      -- through a graph
      assert.is_true(R:equal(core.rv1_from_graph(R:to_graph())), f)
    end
  end)

  it("keeps a nodelist as it was given and writes the canonical form otherwise", function()
    local R = assert(core.rv1_decode(ex('"R_lite":[{"rank":"0-1","children":{"core":"0"}}],'
      .. '"nodelist":["node","node"]')))
    assert.same({ "node", "node" }, R:to_table().execution.nodelist)
    assert.equal("node,node", tostring(R:nodelist()))
    local U = R:union(R)
    assert.same({ "node,node" }, U:to_table().execution.nodelist)
  end)

  it("coalesces ranks with equal children", function()
    local R = assert(core.rv1_decode(ex('"R_lite":['
      .. '{"rank":"3","children":{"core":"0-3"}},{"rank":"1","children":{"core":"0,1,2,3"}},'
      .. '{"rank":"2","children":{"gpu":"1","core":"0-1"}}]')))
    assert.same({
      { rank = "1,3", children = { core = "0-3" } },
      { rank = "2", children = { core = "0-1", gpu = "1" } },
    }, R:to_table().execution.R_lite)
  end)

  it("returns nil, message, code for documents that break RFC 20", function()
    local cases = {
      { "{", "x.json:1: string or '}' expected near end of file" },
      { "[]", "x.json:1: top level: expected an object, got an array" },
      { '{"execution":{}}',
        'x.json:1: version: missing (an R version 1 document has "version": 1)' },
      { '{"version":2,"execution":{"R_lite":[]}}',
        "x.json:1: version: only version 1 is supported (got 2)" },
      { '{"version":1}', 'x.json:1: top level: needs "execution" or "scheduling" (or both)' },
      { ex '"nodelist":[]', 'x.json:1: execution: missing "R_lite"' },
      { ex '"R_lite":[{"rank":"-1","children":{}}]',
        'x.json:1: execution.R_lite[0].rank: invalid idset "-1": negative or missing id at '
          .. "position 1" },
      { ex '"R_lite":[{"rank":"0","children":{"core":"0-3"}}],"nodelist":["a","b"]',
        "x.json:1: execution.nodelist: 2 hosts for 1 rank" },
      { ex '"R_lite":[{"rank":"0","children":{}}],"properties":{"a(b":"0"}',
        'x.json:1: execution.properties: invalid character \'(\' in property name "a(b"' },
      { ex '"R_lite":[{"rank":"0","children":{}}],"properties":{"fast":"0-1"}',
        "x.json:1: execution.properties.fast: rank 1 is not in R_lite" },
      { ex '"R_lite":[],"starttime":20,"expiration":10',
        "x.json:1: execution.expiration: 10 is not after starttime 20" },
    }
    for _, c in ipairs(cases) do
      expect.fails("EINVAL", c[2], core.rv1_decode(c[1], "x.json"))
    end
    expect.fails("ENOENT",
      "/nonexistent/R.json: No such file or directory",
      core.rv1_load "/nonexistent/R.json")
    expect.fails_with("EINVAL",
      "execution.R_lite[0].rank: invalid idset \"-1\"",
      core.rv1_load(corpus .. "/fluxion/rv1exec/cancel/rank1_cancel_invalid.json"))
  end)

  it("raises on misuse", function()
    raises(function() core.rv1_decode(5) end,
      "bad argument #1 to 'rv1_decode' (string expected, got number)")
    raises(function() core.rv1_decode() end,
      "bad argument #1 to 'rv1_decode' (string expected, got no value)")
    local R = assert(core.rv1_decode(two))
    raises(function() R:union "x" end,
      "bad argument #1 to 'union' (grove.rv1 expected, got string)")
    raises(function() R:encode { bogus = true } end, "unknown option 'bogus'")
    raises(function() R:encode { graph = 1 } end,
      "bad option 'graph' (boolean expected, got number)")
    raises(function() R:restrict(5) end,
      "bad argument #1 to 'restrict' (idset or string expected, got number)")
    raises(function() R:hostname(-1) end,
      "bad argument #1 to 'hostname' (rank out of range [0, 4294967294])")
    R:close()
    R:close()
    raises(function() R:encode() end, "calling 'encode' on bad self (R is closed)")
    assert.equal("grove.rv1 (closed)", tostring(R))
  end)
end)

describe("grove.rv1 contents", function()
  local R = assert(core.rv1_decode(two))

  it("gives ranks as an idset and hosts as a hostlist", function()
    local r = R:ranks()
    assert.equal("grove.idset", getmetatable(r).__name)
    assert.equal("0-1", tostring(r))
    local h = R:nodelist()
    assert.equal("grove.hostlist", getmetatable(h).__name)
    assert.equal("n[0-1]", tostring(h))
    assert.same({ fast = "1" }, R:properties())
    assert.equal(5, R:starttime())
    assert.equal(10, R:expiration())
    assert.is_nil(R:nslots())
  end)

  it("has no nodelist when a rank has no host", function()
    local N = assert(core.rv1_decode(ex '"R_lite":[{"rank":"0","children":{}}]'))
    expect.fails("ENOENT", "some rank of R has no host name", N:nodelist())
  end)

  it("writes pretty text and scheduling on request", function()
    assert.matches('\n  "execution": {', R:encode { pretty = true }, 1, true)
    local withg = R:encode { graph = true }
    assert.matches('"writer":"grove"', withg, 1, true)
    local G = assert(core.rv1_decode(withg))
    assert.equal(withg, G:encode())
    assert.is_nil(G:encode { graph = false }:find "scheduling")
    assert.is_true(G == R)
  end)
end)

describe("R:summary", function()
  -- the summary made of R:to_table() (R_lite's entries in order, each
  -- entry's child types by name), in librlist's form: a set in brackets
  -- when it has two ids or more
  local function ids(s)
    if s:find("[-,]") then return "[" .. s .. "]" end
    return s
  end
  local function from_table(t)
    local parts = {}
    for _, e in ipairs(t.execution and t.execution.R_lite or {}) do
      local types, kids = {}, {}
      for k in pairs(e.children or {}) do types[#types + 1] = k end
      table.sort(types)
      for _, k in ipairs(types) do kids[#kids + 1] = k .. ids(e.children[k]) end
      parts[#parts + 1] = ("rank%s/%s"):format(ids(e.rank), table.concat(kids, ","))
    end
    return table.concat(parts, " ")
  end

  it("is what the R's table gives, for R of many shapes", function()
    local shapes = {
      ex('"R_lite":[{"rank":"0","children":{"core":"0"}}]'),
      two,
      ex('"R_lite":[{"rank":"0-3,7","children":{"gpu":"0-1","core":"0-43"}},'
        .. '{"rank":"4-6","children":{"core":"0-3,8"}},'
        .. '{"rank":"9","children":{"zeta":"1","core":"5","alpha":"2-3"}}]'),
      ex('"R_lite":[{"rank":"2","children":{}},{"rank":"0","children":{"core":"1"}}]'),
      ex('"R_lite":[]'),
      ex('"R_lite":[{"rank":"5","children":{"core":"0-1"}},'
        .. '{"rank":"1","children":{"core":"0-1"}}]'),
    }
    local seen = {}
    for _, text in ipairs(shapes) do
      local R = assert(core.rv1_decode(text))
      local want = from_table(R:to_table())
      assert.equal(want, R:summary())
      seen[#seen + 1] = want
    end
    assert.same({"rank0/core0", "rank[0-1]/core[0-3],gpu0",
      "rank[0-3,7]/core[0-43],gpu[0-1] rank[4-6]/core[0-3,8] rank9/alpha[2-3],core5,zeta1",
      "rank0/core1 rank2/", "", "rank[1,5]/core[0-1]"}, seen)
  end)

  it("describes a job's R as the matcher writes it", function()
    local g = assert(core.rv1_decode(ex('"R_lite":[{"rank":"0-3","children":'
      .. '{"core":"0-7","gpu":"0-1"}}],"nodelist":["n[0-3]"]')):to_graph())
    local m = core.matcher(g)
    local js = assert(core.jobspec_from_table({version = 1, resources = {{type = "node",
      count = 2, with = {{type = "slot", count = 1, label = "t",
        with = {{type = "core", count = 3}, {type = "gpu", count = 1}}}}}},
      tasks = {{command = {"x"}, slot = "t", count = {per_slot = 1}}},
      attributes = {system = {duration = 60}}}))
    assert(m:match(js, "allocate", 7))
    local R = assert(m:rv1(7))
    assert.equal(from_table(R:to_table()), R:summary())
    assert.equal("rank[0-1]/core[0-2],gpu0", R:summary())
  end)
end)

describe("a job's R", function()
  -- 200 nodes of 8 cores: a job of a core or of a few nodes lists few of
  -- the graph's vertices (sorted), one of many nodes a large part of them
  -- (read off a mask over the graph): both give the R of the job's
  -- vertices as rv1_from_vertices writes it from the same list
  local N = 200
  local g = assert(core.rv1_decode(ex(fmt('"R_lite":[{"rank":"0-%d","children":'
    .. '{"core":"0-7"}}],"nodelist":["n[0-%d]"]', N - 1, N - 1)))):to_graph()
  local m = core.matcher(g)
  local function js(nodes, cores, exclusive)
    local slot = {type = "slot", count = 1, label = "t", with = {{type = "core", count = cores}}}
    local res = nodes and {{type = "node", count = nodes, exclusive = exclusive, with = {slot}}}
      or {slot}
    return assert(core.jobspec_from_table({version = 1, resources = res,
      tasks = {{command = {"x"}, slot = "t", count = {per_slot = 1}}},
      attributes = {system = {duration = 60}}}))
  end
  local function below(v, out)
    for c in v:children() do
      out[#out + 1] = c
      below(c, out)
    end
  end
  it("is the R of its vertices, for jobs few and many of the graph's", function()
    local id = 0
    for _, shape in ipairs{{nil, 1}, {nil, 5}, {1, 3}, {2, 1, true}, {3, 1, true},
                           {20, 1, true}, {40, 8}, {1, 1, true}} do
      id = id + 1
      local j = assert(m:match(js(shape[1], shape[2], shape[3]), "allocate", id))
      local list = {}
      for _, p in ipairs(m:job(id).picks) do
        list[#list + 1] = p.vertex
        if p.exclusive then below(p.vertex, list) end
      end
      local want = core.rv1_from_vertices(g, list, {start = j.start, ["end"] = j["end"]})
      local R = assert(m:rv1(id))
      assert.equal(want:encode(), R:encode())
      assert.equal(shape[1] or 1, R:count())
    end
  end)
end)

describe("R_lite's entries", function()
  it("group ranks of the same children wherever they are, in order of their lowest rank",
    function()
      local R = assert(core.rv1_decode(ex('"R_lite":['
        .. '{"rank":"0-1","children":{"core":"0-3"}},{"rank":"2","children":{"core":"0-1"}},'
        .. '{"rank":"3","children":{"core":"0-3"}},{"rank":"4-5","children":{"core":"0-1"}},'
        .. '{"rank":"6","children":{"core":"0-3","gpu":"0"}},'
        .. '{"rank":"7-9","children":{"core":"0-3"}}],"nodelist":["n[0-9]"]')))
      assert.same({{rank = "0-1,3,7-9", children = {core = "0-3"}},
        {rank = "2,4-5", children = {core = "0-1"}},
        {rank = "6", children = {core = "0-3", gpu = "0"}}}, R:to_table().execution.R_lite)
    end)
end)

describe("grove.rv1 set algebra", function()
  local A = assert(core.rv1_decode(two))
  local B = assert(core.rv1_decode(ex('"R_lite":[{"rank":"1","children":{"core":"2-5"}},'
    .. '{"rank":"2","children":{"core":"0"}}],"nodelist":["n[1-2]"]')))

  it("unites, subtracts and intersects per rank and child type", function()
    assert.same({
      { rank = "0", children = { core = "0-3", gpu = "0" } },
      { rank = "1", children = { core = "0-5", gpu = "0" } },
      { rank = "2", children = { core = "0" } },
    }, A:union(B):to_table().execution.R_lite)
    assert.same({ "n[0-2]" }, A:union(B):to_table().execution.nodelist)
    assert.same({
      { rank = "0", children = { core = "0-3", gpu = "0" } },
      { rank = "1", children = { core = "0-1", gpu = "0" } },
    }, A:diff(B):to_table().execution.R_lite)
    local I = A:intersect(B)
    assert.same({ { rank = "1", children = { core = "2-3" } } }, I:to_table().execution.R_lite)
    assert.same({ fast = "1" }, I:properties())
    assert.is_true(A:diff(B):union(A:intersect(B)) == A)
    assert.is_false(A == B)
    assert.is_true(A:equal(A:copy()))
  end)

  it("restricts to ranks and excludes them", function()
    assert.equal("1", tostring(A:restrict("1"):ranks()))
    assert.equal("0", tostring(A:exclude(core.idset "1"):ranks()))
    assert.same({}, A:restrict("7"):to_table().execution.R_lite)
    expect.fails_with("EINVAL", "invalid idset", A:restrict "1-")
  end)

  it("refuses to join two R that name a rank differently", function()
    local C = assert(core.rv1_decode(
      ex '"R_lite":[{"rank":"0","children":{}}],"nodelist":["other"]'))
    expect.fails("EINVAL", "rank 0 is n0 in one R and other in the other", A:union(C))
  end)
end)

describe("grove.rv1 and graphs", function()
  it("builds cluster0 > node > core/gpu from R_lite", function()
    local R = assert(core.rv1_decode(two))
    local g = R:to_graph()
    assert.equal("grove.graph", getmetatable(g).__name)
    assert.equal(1 + 2 + 10, g:count())
    local n1 = g:vertex "/cluster0/n1"
    assert.equal(1, n1:rank())
    assert.equal("n", n1:basename())
    assert.equal(1, n1:id())
    assert.equal("", n1:property "fast")
    assert.equal(1, g:vertex("/cluster0/n1/gpu0"):rank())
    assert.is_true(core.rv1_from_graph(g) == R)
  end)

  it("reads the scheduling graph when there is one", function()
    local R = assert(core.rv1_load(corpus .. "/fluxion/jgfs/issue1284.json"))
    local g = assert(R:to_graph())
    assert.equal(86, g:count())
    assert.is_true(core.rv1_from_graph(g) == R)
    local bad = assert(core.rv1_decode('{"version":1,"scheduling":{"graph":{"nodes":[7]}}}'))
    expect.fails_like("EINVAL", "^scheduling.graph", bad:to_graph())
  end)

  it("makes R from vertices and maps shards back onto them", function()
    local g = assert(core.rv1_decode(two)):to_graph()
    local n1 = g:vertex "/cluster0/n1"
    local R = core.rv1_from_vertices(g, { n1, g:vertex "/cluster0/n1/core2" },
      { start = 5, ["end"] = 10, nslots = 2, graph = true })
    local t = R:to_table()
    assert.same({ { rank = "1", children = { core = "2" } } }, t.execution.R_lite)
    assert.same({ "n1" }, t.execution.nodelist)
    assert.equal(5, t.execution.starttime)
    assert.equal(10, t.execution.expiration)
    assert.equal(2, t.execution.nslots)
    assert.equal("grove", t.scheduling.writer)
    assert.equal(2, #t.scheduling.graph.nodes)
    local open = core.rv1_from_vertices(g, { n1 })
    assert.equal(0, open:starttime())
    assert.equal(0, open:expiration())
    -- the shard of core 2 is that core; the whole rank is the node and all below
    local vs = assert(R:vertices(g))
    assert.equal(1, #vs)
    assert.equal("/cluster0/n1/core2", vs[1]:path())
    local whole = assert(core.rv1_decode(two)):restrict "1"
    assert.equal(1 + 5, #assert(whole:vertices(g)))
    local nine = assert(core.rv1_decode(ex '"R_lite":[{"rank":"0","children":{"core":"9"}}]'))
    expect.fails("ENOENT", "rank 0: no core 9 in the graph", nine:vertices(g))
    expect.fails("EINVAL", "bad window [10, 10)",
      core.rv1_from_vertices(g, { n1 }, { start = 10, ["end"] = 10 }))
  end)

  it("raises on misuse of rv1_from_vertices", function()
    local g = assert(core.rv1_decode(two)):to_graph()
    local other = assert(core.rv1_decode(two)):to_graph()
    raises(function() core.rv1_from_vertices(g, { 1 }) end,
      "bad argument #2 to 'rv1_from_vertices' (element 1 is not a vertex)")
    raises(function() core.rv1_from_vertices(g, { other:vertex "/cluster0/n0" }) end,
      "bad argument #2 to 'rv1_from_vertices' (element 1 is a vertex of another graph)")
    raises(function() core.rv1_from_vertices(g, {}, { start = "x" }) end,
      "bad option 'start' (integer expected, got string)")
    raises(function() core.rv1_from_vertices(g, {}, { stop = 1 }) end, "unknown option 'stop'")
    raises(function() core.rv1_from_vertices({}, {}) end,
      "bad argument #1 to 'rv1_from_vertices' (grove.graph expected, got table)")
  end)
end)
