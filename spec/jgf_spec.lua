-- JSON Graph Format from Lua: core.jgf_decode, core.jgf_load, core.jgf_encode
-- and g:to_jgf, with their options and error paths.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local failed = require("expect").fails

local corpus = (os.getenv("GROVE_CONFORMANCE") or "../shared/conformance")
  .. "/fluxion/jgfs/"

-- cluster0 > node0 > core0, core1
local function small()
  local g = core.graph()
  local c = g:add_vertex { type = "cluster", id = 0 }
  local n = g:add_vertex { type = "node", id = 0, rank = 0 }
  assert(g:add_child(c, n))
  local cores = {}
  for i = 0, 1 do
    cores[i] = g:add_vertex { type = "core", id = i }
    assert(g:add_child(n, cores[i]))
  end
  return g, c, n, cores
end

describe("grove.core JGF", function()
  describe("jgf_load", function()
    it("loads a corpus graph", function()
      local g = assert(core.jgf_load(corpus .. "tiny.json"))
      assert.are.equal(100, g:count())
      assert.are.equal(99, g:edge_count())
      local c = assert(g:vertex("/tiny0/rack0/node1/socket0/core17"))
      assert.are.equal("core", c:type())
      assert.are.equal(17, c:id())
      assert.is_nil(c:rank())
      assert.are.equal(1, g:vertex("/tiny0/rack0/node1"):rank())
    end)

    it("loads the scheduling graph of an R document", function()
      local g = assert(core.jgf_load(corpus .. "issue1284.json"))
      assert.are.equal(86, g:count())
    end)

    it("fails on a missing file", function()
      failed("ENOENT", "/nonexistent/x.json: No such file or directory",
        core.jgf_load("/nonexistent/x.json"))
    end)

    it("fails on an R document without a graph", function()
      local path = corpus .. "../rv1exec/tiny_rv1exec.json"
      failed("EINVAL", path .. ": top level: no \"graph\" (nor \"scheduling\".\"graph\")",
        core.jgf_load(path))
    end)

    it("raises on misuse", function()
      assert.has_error(function() core.jgf_load() end,
        "bad argument #1 to 'jgf_load' (string expected, got no value)")
    end)
  end)

  describe("jgf_decode", function()
    it("decodes text, with RFC 4 defaults", function()
      local g = assert(core.jgf_decode([[
        {"graph": {"nodes": [
          {"id": "r", "metadata": {"type": "rack", "id": 2}},
          {"id": "s", "metadata": {"type": "ssd", "size": 800, "unit": "GiB",
                                   "paths": {"containment": "/rack2/ssd0"}}}],
         "edges": [{"source": "r", "target": "s"}]}}]], "inline"))
      local s = assert(g:vertex("/rack2/ssd0"))
      assert.are.equal("ssd", s:basename())
      assert.is_nil(s:id())
      assert.are.equal(800, s:size())
      assert.are.equal("GiB", s:unit())
      assert.are.equal("rack2", s:parent():name())
    end)

    it("reports file, line, place and reason", function()
      failed("EINVAL", "x.json:1: top level: expected an object, got an array",
        core.jgf_decode("[]", "x.json"))
      failed("EINVAL", "top level: expected an object, got an array", core.jgf_decode("[]"))
      failed("EINVAL", "x.json:2: syntax error at column 11: expected ':'",
        core.jgf_decode('{"graph":\n {"nodes" []}}', "x.json"))
      failed("EINVAL", "g.json:1: nodes[0].metadata.size: negative size -4",
        core.jgf_decode('{"graph":{"nodes":[{"id":"0","metadata":{"type":"a","size":-4}}]}}',
          "g.json"))
      failed("EINVAL", 'g.json:1: edges[0].target: unknown node id "9"',
        core.jgf_decode('{"graph":{"nodes":[{"id":"0","metadata":{"type":"a"}}],'
          .. '"edges":[{"source":"0","target":"9"}]}}', "g.json"))
    end)

    it("raises on misuse", function()
      assert.has_error(function() core.jgf_decode({}) end,
        "bad argument #1 to 'jgf_decode' (string expected, got table)")
      assert.has_error(function() core.jgf_decode("{}", {}) end,
        "bad argument #2 to 'jgf_decode' (string expected, got table)")
    end)
  end)

  describe("jgf_encode and to_jgf", function()
    it("round-trips to the same text", function()
      local g = assert(core.jgf_load(corpus .. "power.json"))
      local t1 = core.jgf_encode(g)
      local t2 = core.jgf_encode(assert(core.jgf_decode(t1)))
      assert.are.equal(t1, t2)
      assert.are.equal(t1, g:to_jgf())
    end)

    it("writes every key", function()
      local g, _, n = small()
      n:set_property("arch", "arm")
      local t = g:to_jgf { compact = true }
      assert.is_nil(t:find("\n"))
      assert.truthy(t:find('{"id":"1","metadata":{"type":"node","basename":"node",'
        .. '"name":"node0","id":0,"uniq_id":1,"rank":0,"exclusive":false,"unit":"",'
        .. '"size":1,"uuid":"' .. n:uuid() .. '","status":0,'
        .. '"properties":{"arch":"arm"},"paths":{"containment":"/cluster0/node0"}}}', 1, true))
      assert.truthy(t:find('{"source":"2","target":"1","metadata":{"subsystem":'
        .. '"containment","relationship":"in"}}', 1, true))
      assert.truthy(g:to_jgf():find('\n      {\n        "id": "0",\n', 1, true))
    end)

    it("adds the state when asked", function()
      local g, _, n, cores = small()
      n:tag("owner", "ops")
      assert(cores[1]:allocate(1, 42))
      local plain = g:to_jgf()
      assert.is_nil(plain:find('"grove"', 1, true))
      assert.truthy(plain:find('"name": "core1",\n          "id": 1,\n          "uniq_id": 3,'
        .. '\n          "rank": -1,\n          "exclusive": true', 1, true))
      local t = g:to_jgf { state = true }
      assert.truthy(t:find('"tags": {\n              "owner": "ops"', 1, true))
      local g2 = assert(core.jgf_decode(t))
      assert.are.equal(t, g2:to_jgf { state = true })
      assert.are.same({ owner = "ops" }, g2:vertex("/cluster0/node0"):tags())
      assert.are.equal(1, g2:vertex("/cluster0/node0/core1"):allocated())
    end)

    it("writes a subgraph", function()
      local g, _, n, cores = small()
      local t = g:to_jgf { vertices = { cores[0], n }, compact = true }
      local g2 = assert(core.jgf_decode(t))
      assert.are.equal(2, g2:count())
      assert.are.equal(2, g2:edge_count())
      assert.truthy(t:find('"paths":{"containment":"/cluster0/node0/core0"}', 1, true))
      assert.are.equal(core.jgf_encode(g, { vertices = {} }),
        '{\n  "graph": {\n    "nodes": [],\n    "edges": []\n  }\n}\n')
    end)

    it("raises on misuse", function()
      local g, _, _, cores = small()
      assert.has_error(function() core.jgf_encode() end,
        "bad argument #1 to 'jgf_encode' (grove.graph expected, got no value)")
      assert.has_error(function() core.jgf_encode(g, 5) end,
        "bad argument #2 to 'jgf_encode' (table expected, got number)")
      assert.has_error(function() core.jgf_encode(g, { pretty = true }) end,
        "bad argument #2 to 'jgf_encode' (unknown option 'pretty'; the options are state, "
        .. "compact, paths, short, mark, changed, vertices)")
      assert.has_error(function() core.jgf_encode(g, { "x" }) end,
        "bad argument #2 to 'jgf_encode' (unknown option '1'; the options are state, "
        .. "compact, paths, short, mark, changed, vertices)")
      assert.has_error(function() core.jgf_encode(g, { [2.5] = true }) end,
        "bad argument #2 to 'jgf_encode' (unknown option '2.5'; the options are state, "
        .. "compact, paths, short, mark, changed, vertices)")
      require("grove.suggest") -- the closest name is offered once it is loaded
      assert.has_error(function() core.jgf_encode(g, { compcat = true }) end,
        "bad argument #2 to 'jgf_encode' (unknown option 'compcat' (did you mean 'compact'?); "
        .. "the options are state, compact, paths, short, mark, changed, vertices)")
      assert.has_error(function() core.jgf_encode(g, { compact = 1 }) end,
        "bad argument #2 to 'jgf_encode' (compact must be a boolean)")
      assert.has_error(function() core.jgf_encode(g, { vertices = 3 }) end,
        "bad argument #2 to 'jgf_encode' (vertices must be a list of vertices)")
      local other = small()
      assert.has_error(function() g:to_jgf { vertices = { cores[0], other:vertex(0) } } end,
        "bad argument #1 to 'to_jgf' (vertices[2] is not a vertex of this graph)")
      assert.has_error(function() g:to_jgf { vertices = { "x" } } end,
        "bad argument #1 to 'to_jgf' (vertices[1] is not a vertex of this graph)")
      g:close()
      assert.has_error(function() g:to_jgf() end,
        "calling 'to_jgf' on bad self (graph is closed)")
    end)
  end)
end)
