-- The graph object of grove.core: construction, look-ups, iteration, the
-- RFC 4 composite methods (aggregate, copy, duplicate, merge, unlink,
-- extract) and life (close, <close>, busy guards), with error paths.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local methods = require("methods_helper")

local failed = require("expect").fails

-- cluster0 > rack0 > node0..node{n-1} > core0..core{c-1}
local function small(nodes, cores)
  local g = core.graph()
  local root = g:add_vertex { type = "cluster", id = 0 }
  local rack = g:add_vertex { type = "rack", id = 0 }
  assert(g:add_child(root, rack))
  for i = 0, (nodes or 2) - 1 do
    local n = g:add_vertex { type = "node", id = i, rank = i }
    assert(g:add_child(rack, n))
    for j = 0, (cores or 2) - 1 do
      assert(g:add_child(n, g:add_vertex { type = "core", id = j }))
    end
  end
  return g, root, rack
end

-- small(2, 2) with node1 (one unit) held by job: g and node1.
local function node1_held(job)
  local g = small(2, 2)
  local n = g:vertex("/cluster0/rack0/node1")
  assert(n:allocate(1, job))
  return g, n
end

-- small(3, cores) with a pool of 16 GB of memory in node0: g and the pool.
local function with_memory(cores)
  local g = small(3, cores)
  local mem = g:add_vertex { type = "memory", size = 16, unit = "GB" }
  g:add_child(g:vertex("/cluster0/rack0/node0"), mem)
  return g, mem
end

-- The load the aggregate and copy specs put on with_memory's graph: node1
-- down, 6 GB of the pool to job 1 and core k of node2 to job 2.
local function load(g, mem, k)
  g:vertex("/cluster0/rack0/node1"):set_status("down")
  assert(mem:allocate(6, 1))
  assert(g:vertex("/cluster0/rack0/node2/core" .. k):allocate(1, 2))
end

local function paths(list)
  local out = {}
  for i, v in ipairs(list) do
    out[i] = v:path()
  end
  return out
end

describe("grove.core.graph", function()
  it("starts empty", function()
    local g = core.graph()
    assert.are.equal(0, g:count())
    assert.are.equal(0, #g)
    assert.are.equal(0, g:edge_count())
    assert.are.equal(0, g:now())
    assert.are.same({}, g:subsystems())
    assert.are.same({}, g:roots())
    assert.is_true(g:bytes() > 0)
    assert.are.equal("grove.graph (0 vertices, 0 edges)", tostring(g))
    failed("ENOENT", "no root in subsystem containment", g:root())
    assert.are.same({}, g:aggregate())
    assert.are.same({}, g:find { type = "node" })
    assert.are.equal(0, #g:copy())
  end)

  describe("add_vertex", function()
    it("applies RFC 4 defaults", function()
      local g = core.graph()
      local v = g:add_vertex { type = "node" }
      methods.answer(v, {type = "node", basename = "node", name = "node", size = 1, unit = "",
        status = "up", vid = 0})
      assert.is_nil(v:id())
      assert.is_nil(v:rank())
      assert.matches("^%x+%-%x+%-4%x+%-[89ab]%x+%-%x+$", v:uuid())
      local w = g:add_vertex { type = "node", id = 7 }
      assert.are.equal("node7", w:name())
      local x = g:add_vertex { type = "memory", basename = "mem", id = 3 }
      assert.are.equal("mem3", x:name())
    end)

    it("takes every field", function()
      local g = core.graph()
      local u = "0a1b2c3d-0000-4000-8000-00000000abcd"
      local v = g:add_vertex {
        type = "memory", basename = "mem", name = "bank", id = 2, rank = 5, size = 32,
        unit = "GB", uuid = u, status = "drained",
        properties = { arch = "x86", speed = 3200 }, tags = { hot = true, owner = "ops" },
      }
      methods.answer(v, {name = "bank", id = 2, rank = 5, size = 32, unit = "GB", uuid = u,
        status = "drained", properties = { arch = "x86", speed = "3200" },
        tags = { hot = true, owner = "ops" }})
      assert.are.equal(v, g:vertex(u))
    end)

    it("accepts -1 as no id or rank, and size 0", function()
      local g = core.graph()
      local v = g:add_vertex { type = "x", id = -1, rank = -1, size = 0 }
      assert.is_nil(v:id())
      assert.is_nil(v:rank())
      assert.are.equal(0, v:size())
    end)

    it("raises on misuse", function()
      local g = core.graph()
      assert.has_error(function() g:add_vertex() end,
        "bad argument #1 to 'add_vertex' (table expected, got no value)")
      assert.has_error(function() g:add_vertex {} end,
        "bad argument #1 to 'add_vertex' (field 'type' is required (a non-empty string))")
      assert.has_error(function() g:add_vertex { type = "" } end,
        "bad argument #1 to 'add_vertex' (field 'type' is required (a non-empty string))")
      assert.has_error(function() g:add_vertex { type = 3 } end,
        "bad argument #1 to 'add_vertex' (field 'type' must be a string, not number)")
      assert.has_error(function() g:add_vertex { type = "n", size = -1 } end,
        "bad argument #1 to 'add_vertex' (field 'size' must be >= 0)")
      assert.has_error(function() g:add_vertex { type = "n", size = 1.5 } end,
        "bad argument #1 to 'add_vertex' (field 'size' must be an integer, not number)")
      assert.has_error(function() g:add_vertex { type = "n", id = -2 } end,
        "bad argument #1 to 'add_vertex' (field 'id' must be >= -1)")
      assert.has_error(function() g:add_vertex { type = "n", colour = "red" } end,
        "bad argument #1 to 'add_vertex' (unknown field 'colour')")
      assert.has_error(function() g:add_vertex { type = "n", status = "sleepy" } end,
        "bad argument #1 to 'add_vertex' (unknown status 'sleepy')")
      assert.has_error(function() g:add_vertex { type = "n", properties = "a=b" } end,
        "bad argument #1 to 'add_vertex' (field 'properties' must be a table)")
      assert.has_error(function() g:add_vertex { type = "n", properties = { a = true } } end,
        "bad argument #1 to 'add_vertex' (field 'properties': value of 'a' must be a string"
        .. " or a number)")
      assert.has_error(function() g:add_vertex { type = "n", properties = { "x" } } end,
        "bad argument #1 to 'add_vertex' (field 'properties': keys must be non-empty strings)")
      assert.has_error(function() g:add_vertex { type = "n", tags = { t = {} } } end,
        "bad argument #1 to 'add_vertex' (field 'tags': value of 't' must be a string or a"
        .. " boolean)")
      assert.are.equal(0, g:count())
    end)

    it("fails on a malformed or duplicate uuid, leaving the graph unchanged", function()
      local g = core.graph()
      failed("EINVAL", "malformed uuid 'nope'", g:add_vertex { type = "n", uuid = "nope" })
      local u = "0a1b2c3d-0000-4000-8000-00000000abcd"
      assert(g:add_vertex { type = "n", uuid = u })
      failed("EEXIST", "uuid " .. u .. " is already used", g:add_vertex { type = "n", uuid = u })
      assert.are.equal(1, g:count())
    end)
  end)

  describe("add_edge, add_child, set_opposite", function()
    it("adds edges with subsystem and relation", function()
      local g = core.graph()
      local a, b = g:add_vertex { type = "a" }, g:add_vertex { type = "b" }
      local e = g:add_edge(a, b)
      assert.are.equal(a, e:src())
      assert.are.equal(b, e:dst())
      assert.are.equal("containment", e:subsystem())
      assert.are.equal("contains", e:relation())
      assert.is_false(e:is_up())
      assert.is_nil(e:opposite())
      local up = g:add_edge(b, a, { relation = "in" })
      assert.is_true(up:is_up())
      assert.are.equal(e, up:opposite())
      assert.are.equal(up, e:opposite())
      local p = g:add_edge(a, b, { subsystem = "power", relation = "supplies_to" })
      assert.are.equal("power", p:subsystem())
      assert.are.equal("supplies_to", p:relation())
      assert.are.same({ "containment", "power" }, g:subsystems())
      assert.are.equal(3, g:edge_count())
      assert.are.equal("/a -contains-> /a/b (containment)", tostring(e))
    end)

    it("keeps containment a tree", function()
      local g = core.graph()
      local a, b, c = g:add_vertex { type = "a" }, g:add_vertex { type = "b" },
        g:add_vertex { type = "c" }
      assert.is_true(g:add_child(a, b))
      failed("EINVAL", "vertex b (1) would have two containment parents (a and c)",
        g:add_edge(c, b))
      failed("EINVAL", "edge b (1) -> a (0) would make a containment cycle", g:add_edge(b, a))
      failed("EINVAL", "edge 0 -> 0: a vertex cannot be its own neighbour", g:add_edge(a, a))
      failed("EINVAL", "edge b (1) -> a (0) would make a containment cycle", g:add_child(b, a))
      assert.are.equal(2, g:edge_count())
      -- other subsystems may be any graph
      assert(g:add_edge(c, b, { subsystem = "net" }))
      assert(g:add_edge(b, c, { subsystem = "net" }))
    end)

    it("adds opposite pairs with add_child in any subsystem", function()
      local g = core.graph()
      local a, b = g:add_vertex { type = "a" }, g:add_vertex { type = "b" }
      assert.is_true(g:add_child(a, b, "power"))
      local out = b:in_edges("power")
      assert.are.equal(1, #out)
      assert.are.equal("contains", out[1]:relation())
      assert.are.equal(a, b:parent("power"))
      assert.is_nil(b:parent())
    end)

    it("pairs edges with set_opposite", function()
      local g = core.graph()
      local a, b = g:add_vertex { type = "a" }, g:add_vertex { type = "b" }
      local d = g:add_edge(a, b, { subsystem = "power", relation = "supplies_to" })
      local u = g:add_edge(b, a, { subsystem = "power", relation = "draws_from" })
      assert.is_true(g:set_opposite(d, u))
      assert.is_true(u:is_up())
      assert.is_false(d:is_up())
      assert.are.equal(u, d:opposite())
      assert.are.equal(a, b:parent("power"))
      local x = g:add_edge(a, b, { subsystem = "net" })
      failed("EINVAL", nil, g:set_opposite(d, x))
      assert.has_error(function() g:set_opposite(d, "x") end,
        "bad argument #2 to 'set_opposite' (grove.edge expected, got string)")
    end)

    it("raises on misuse", function()
      local g, h = core.graph(), core.graph()
      local a = g:add_vertex { type = "a" }
      local b = h:add_vertex { type = "b" }
      assert.has_error(function() g:add_edge(a, b) end,
        "bad argument #2 to 'add_edge' (vertex of another graph)")
      assert.has_error(function() g:add_edge(a, "x") end,
        "bad argument #2 to 'add_edge' (grove.vertex expected, got string)")
      local c = g:add_vertex { type = "c" }
      assert.has_error(function() g:add_edge(a, c, { subsystem = "" }) end,
        "bad argument #3 to 'add_edge' (subsystem and relation must not be empty)")
      assert.has_error(function() g:add_edge(a, c, { kind = "x" }) end,
        "bad argument #3 to 'add_edge' (unknown field 'kind')")
      assert.has_error(function() g:add_edge(a, c, { relation = 1 }) end,
        "bad argument #3 to 'add_edge' (field 'relation' must be a string, not number)")
      assert.has_error(function() g:add_child(a, c, "") end,
        "bad argument #3 to 'add_child' (subsystem must not be empty)")
      assert.has_error(function() g.add_edge(a, a, c) end,
        "bad argument #1 to 'add_edge' (grove.graph expected, got grove.vertex)")
    end)
  end)

  describe("look-ups", function()
    it("finds vertices by path, uuid, name and vertex id", function()
      local g = small(2, 2)
      local v = g:vertex("/cluster0/rack0/node1/core0")
      assert.are.equal("core0", v:name())
      assert.are.equal(v, g:vertex(v:uuid()))
      assert.are.equal(v, g:vertex(v:vid()))
      assert.are.equal(g:vertex("/cluster0/rack0/node1"), g:vertex("node1"))
      assert.are.equal("/cluster0/rack0/node0/core0", g:vertex("core0"):path())
      assert.are.equal(g:vertex("/cluster0"), g:vertex("/cluster0/"))
      failed("ENOENT", "no vertex at path /cluster0/rack9 in containment",
        g:vertex("/cluster0/rack9"))
      failed("ENOENT", "no vertex at path /cluster0 in power", g:vertex("/cluster0", "power"))
      failed("ENOENT", "no vertex with uuid 00000000-0000-4000-8000-000000000000",
        g:vertex("00000000-0000-4000-8000-000000000000"))
      failed("ENOENT", "no vertex named node9", g:vertex("node9"))
      failed("ENOENT", "no vertex with id 99", g:vertex(99))
      failed("ENOENT", "no vertex with id -1", g:vertex(-1))
      assert.has_error(function() g:vertex() end,
        "bad argument #1 to 'vertex' (string expected, got no value)")
      assert.has_error(function() g:vertex(1.5) end,
        "bad argument #1 to 'vertex' (number has no integer representation)")
    end)

    it("gives roots and subsystems", function()
      local g, root = small(1, 1)
      assert.are.equal(root, g:root())
      assert.are.same({ root }, g:roots())
      assert.are.same({ root }, g:roots("containment"))
      assert.are.same({}, g:roots("power"))
      failed("ENOENT", "no root in subsystem power", g:root("power"))
      local p = g:add_vertex { type = "panel" }
      g:add_edge(p, g:vertex("node0"), { subsystem = "power" })
      assert.are.equal(p, g:root("power"))
      assert.are.same({ "containment", "power" }, g:subsystems())
    end)

    it("a lone vertex is the containment root", function()
      local g = core.graph()
      local v = g:add_vertex { type = "node", id = 0 }
      assert.are.equal(v, g:root())
      assert.are.equal("/node0", v:path())
      assert.are.equal(v, g:vertex("/node0"))
    end)

    it("counts", function()
      local g = small(2, 3)
      assert.are.equal(10, g:count())
      assert.are.equal(10, #g)
      assert.are.equal(6, g:count("core"))
      assert.are.equal(0, g:count("gpu"))
      assert.are.equal(18, g:edge_count())
      assert.are.equal("grove.graph (10 vertices, 18 edges)", tostring(g))
      local before = g:bytes()
      g:add_vertex { type = "x" }
      assert.is_true(g:bytes() >= before)
    end)
  end)

  describe("vertices()", function()
    local g
    before_each(function()
      g = small(3, 2)
      g:vertex("/cluster0/rack0/node1"):set_status("down")
      g:vertex("/cluster0/rack0/node2"):set_property("arch", "arm")
      g:vertex("/cluster0/rack0/node0"):set_property("arch", "x86")
      g:vertex("/cluster0/rack0/node0"):tag("drain", "maint")
      g:vertex("/cluster0/rack0/node2"):tag("hot")
    end)

    local function names(iter)
      local out = {}
      for v in iter do
        out[#out + 1] = v:name()
      end
      return out
    end

    it("iterates every vertex in id order", function()
      local all = names(g:vertices())
      assert.are.equal(11, #all)
      assert.are.same({ "cluster0", "rack0", "node0", "core0", "core1" },
        { table.unpack(all, 1, 5) })
    end)

    it("filters by type, name, rank, id, status, basename, unit", function()
      assert.are.same({ "node0", "node1", "node2" }, names(g:vertices { type = "node" }))
      assert.are.same({ "core1", "core1", "core1" }, names(g:vertices { name = "core1" }))
      assert.are.same({ "node2" }, names(g:vertices { rank = 2 }))
      assert.are.same({ "core1", "node1", "core1", "core1" }, names(g:vertices { id = 1 }))
      assert.are.same({ "node1" }, names(g:vertices { status = "down" }))
      assert.are.same({ "node1" }, names(g:vertices { type = "node", status = "down" }))
      assert.are.same({ "rack0" }, names(g:vertices { basename = "rack" }))
      assert.are.same({}, names(g:vertices { unit = "GB" }))
      assert.are.same({}, names(g:vertices { type = "never-seen" }))
      assert.are.same({}, names(g:vertices { name = "never-seen" }))
    end)

    it("filters by property and tag", function()
      assert.are.same({ "node0", "node2" }, names(g:vertices { property = "arch" }))
      assert.are.same({ "node2" }, names(g:vertices { property = { arch = "arm" } }))
      assert.are.same({ "node0", "node2" }, names(g:vertices { property = { arch = true } }))
      assert.are.same({ "node0", "node2" }, names(g:vertices { property = { "arch" } }))
      assert.are.same({ "node0" }, names(g:vertices { tag = "drain" }))
      assert.are.same({ "node0" }, names(g:vertices { tag = { drain = "maint" } }))
      assert.are.same({}, names(g:vertices { tag = { hot = "yes" } }))
      assert.are.same({ "node2" }, names(g:vertices { tag = { hot = true } }))
    end)

    it("raises on a bad spec", function()
      assert.has_error(function() g:vertices { kind = "node" } end,
        "bad argument #1 to 'vertices' (unknown spec field 'kind')")
      assert.has_error(function() g:vertices { type = 1 } end,
        "bad spec field 'type' (string expected, got number)")
      assert.has_error(function() g:vertices { rank = "1" } end,
        "bad spec field 'rank' (integer expected, got string)")
      assert.has_error(function() g:vertices { status = "asleep" } end,
        "bad spec field 'status' (unknown status 'asleep')")
      assert.has_error(function() g:vertices { property = 3 } end,
        "bad spec field 'property' (string or table expected, got number)")
      assert.has_error(function() g:vertices { property = { a = {} } } end,
        "bad spec field 'property' (value of 'a' must be a string, number or true)")
      assert.has_error(function() g:vertices "node" end,
        "bad argument #1 to 'vertices' (table expected, got string)")
    end)

    it("skips vertices removed during the iteration and raises once closed", function()
      local seen = {}
      for v in g:vertices { type = "node" } do
        seen[#seen + 1] = v:name()
        if v:name() == "node0" then
          assert(g:unlink(g:vertex("/cluster0/rack0/node1")))
        end
      end
      assert.are.same({ "node0", "node2" }, seen)
      local it = g:vertices()
      it()
      g:close()
      assert.has_error(function() it() end, "graph is closed")
    end)
  end)

  describe("edges()", function()
    it("iterates live edges, optionally of one subsystem", function()
      local g = small(1, 1)
      local p = g:add_vertex { type = "panel" }
      g:add_edge(p, g:vertex("node0"), { subsystem = "power" })
      local n, np = 0, 0
      for e in g:edges() do
        n = n + 1
        assert.is_true(e:id() >= 0)
      end
      for e in g:edges("power") do
        np = np + 1
        assert.are.equal("power", e:subsystem())
      end
      assert.are.equal(7, n)
      assert.are.equal(1, np)
      for _ in g:edges("never") do
        error("no edges expected")
      end
      local dead = g:vertex("node0"):in_edges()[1]
      assert(g:unlink(g:vertex("node0")))
      n = 0
      for _ in g:edges() do
        n = n + 1
      end
      assert.are.equal(2, n)
      assert.are.equal("grove.edge (removed)", tostring(dead))
      assert.has_error(function() dead:src() end,
        "calling 'src' on bad self (edge was removed from its graph)")
      assert.has_error(function() dead:relation() end,
        "calling 'relation' on bad self (edge was removed from its graph)")
    end)

    it("raises on misuse", function()
      local g = small(1, 1)
      assert.has_error(function() g:edges {} end,
        "bad argument #1 to 'edges' (string expected, got table)")
      local e = g:edges()()
      assert.has_error(function() e.src(g) end,
        "bad argument #1 to 'src' (grove.edge expected, got grove.graph)")
      assert.is_true(e == g:edges()())
      assert.is_false(e == g:root())
    end)
  end)

  describe("time", function()
    it("has a settable now", function()
      local g = core.graph()
      g:set_now(100)
      assert.are.equal(100, g:now())
      assert.has_error(function() g:set_now(-1) end,
        "bad argument #1 to 'set_now' (time must be >= 0)")
      assert.has_error(function() g:set_now("x") end,
        "bad argument #1 to 'set_now' (number expected, got string)")
    end)

    it("has a settable expiration, the matcher's horizon", function()
      local g = core.graph()
      assert.are.equal(0, g:expiration())
      g:set_expiration(500)
      assert.are.equal(500, g:expiration())
      assert.has_error(function() g:set_expiration(-1) end,
        "bad argument #1 to 'set_expiration' (expiration must be >= 0 (0: none))")
      g:set_expiration(0)
      assert.are.equal(0, g:expiration())
    end)

    it("is read from R: the clock at its starttime, the horizon at its expiration", function()
      local R = assert(core.rv1_decode('{"version":1,"execution":{"R_lite":[{"rank":"0",'
        .. '"children":{"core":"0-3"}}],"nodelist":["n0"],"starttime":1000.5,'
        .. '"expiration":1020.7}}'))
      local g = assert(R:to_graph())
      assert.are.equal(1001, g:now())
      assert.are.equal(1020, g:expiration())
      local copy = g:copy()
      assert.are.equal(1020, copy:expiration())
    end)
  end)

  describe("aggregate", function()
    it("counts available units by type, prunes zeros, skips unavailable subtrees", function()
      local g, mem = with_memory(4)
      assert.are.same({ cluster = 1, rack = 1, node = 3, core = 12, memory = 16 },
        g:aggregate())
      load(g, mem, 0)
      assert.are.same({ cluster = 1, rack = 1, node = 2, core = 7, memory = 10 },
        g:aggregate())
      -- a vertex: its subtree only
      assert.are.same({ node = 1, core = 3 }, g:aggregate(g:vertex("/cluster0/rack0/node2")))
      assert.are.same({}, g:aggregate(g:vertex("/cluster0/rack0/node1")))
      assert.are.same({}, g:aggregate(g:vertex("/cluster0/rack0/node1/core0")))
      -- no zero counts: a fully used memory pool disappears
      assert(mem:allocate(10, 4))
      assert.is_nil(g:aggregate().memory)
      -- an exclusively held node hides its subtree
      assert.are.equal(1, g:free_job(2))
      assert(g:vertex("/cluster0/rack0/node2"):allocate(1, 3))
      assert.are.same({ cluster = 1, rack = 1, node = 1, core = 4 }, g:aggregate())
    end)

    it("raises for a vertex of another graph", function()
      local g, h = small(1, 1), small(1, 1)
      assert.has_error(function() g:aggregate(h:root()) end,
        "bad argument #1 to 'aggregate' (vertex of another graph)")
    end)
  end)

  describe("pruning aggregates", function()
    it("are configured per graph and followed by vertices", function()
      local g = small(2, 4)
      assert.are.equal("ALL:core,ALL:node,ALL:gpu", g:aggregates())
      assert.are.equal(8, g:root():aggregate_avail("core"))
      assert.are.equal(2, g:root():aggregate_avail("node"))
      assert(g:vertex("/cluster0/rack0/node1/core2"):allocate(1, 1))
      assert.are.equal(7, g:root():aggregate_avail("core"))
      assert.is_true(g:set_aggregates("rack:node"))
      assert.are.equal("rack:node", g:aggregates())
      assert.are.equal(2, g:vertex("/cluster0/rack0"):aggregate_avail("node"))
      failed("ENOENT", "/cluster0 keeps no aggregate of node", g:root():aggregate_avail("node"))
    end)

    it("refuse a malformed specification", function()
      local g = small(1, 1)
      failed("EINVAL", "aggregates: 'core' is not HL:LL (a type or ALL, a colon, a type)",
        g:set_aggregates("core"))
      failed("EINVAL", "aggregates: empty specification", g:set_aggregates(""))
      assert.are.equal("ALL:core,ALL:node,ALL:gpu", g:aggregates())
      assert.has_error(function() g:set_aggregates() end,
        "bad argument #1 to 'set_aggregates' (string expected, got no value)")
    end)
  end)

  describe("copy", function()
    it("keeps only what is available, sizes set to available, no records", function()
      local g, mem = with_memory(2)
      load(g, mem, 1)
      local c = g:copy()
      assert.are.same({
        "/cluster0", "/cluster0/rack0", "/cluster0/rack0/node0",
        "/cluster0/rack0/node0/core0", "/cluster0/rack0/node0/core1",
        "/cluster0/rack0/node2", "/cluster0/rack0/node2/core0",
        "/cluster0/rack0/node0/memory",
      }, (function()
        local out = {}
        for v in c:vertices() do out[#out + 1] = v:path() end
        return out
      end)())
      local cm = c:vertex("/cluster0/rack0/node0/memory")
      assert.are.equal(10, cm:size())
      assert.are.equal("GB", cm:unit())
      assert.are.same({}, cm:records())
      assert.are.same({}, c:vertex("/cluster0"):records())
      assert.are.equal(mem:uuid(), cm:uuid())
      -- the original is untouched
      assert.are.equal(16, mem:size())
      assert.are.equal(2, #g:vertex("/cluster0"):records())
    end)

    it("copies a subtree with its ancestors up to the root", function()
      local g = small(2, 2)
      local c = g:copy(g:vertex("/cluster0/rack0/node1"))
      assert.are.equal(5, c:count())
      assert(c:vertex("/cluster0/rack0/node1/core1"))
      failed("ENOENT", nil, c:vertex("/cluster0/rack0/node0"))
      -- from a vertex handle too
      assert.are.equal(5, g:vertex("/cluster0/rack0/node1"):copy():count())
    end)

    it("raises for a vertex of another graph", function()
      local g, h = small(1, 1), small(1, 1)
      assert.has_error(function() g:copy(h:root()) end,
        "bad argument #1 to 'copy' (vertex of another graph)")
      assert.has_error(function() g:copy("/cluster0") end,
        "bad argument #1 to 'copy' (grove.vertex expected, got string)")
    end)

    it("keeps edges of other subsystems between copied vertices", function()
      local g = small(2, 1)
      local a, b = g:vertex("/cluster0/rack0/node0"), g:vertex("/cluster0/rack0/node1")
      g:add_edge(a, b, { subsystem = "net", relation = "link" })
      local c = g:copy()
      assert.are.same({ "containment", "net" }, c:subsystems())
      assert.are.equal(c:vertex("/cluster0/rack0/node0"),
        c:vertex("/cluster0/rack0/node1"):parent("net"))
    end)
  end)

  describe("duplicate", function()
    it("copies everything, records and vertex ids included", function()
      local g, n = node1_held(9)
      n:set_property("arch", "x86")
      local d = g:duplicate()
      assert.are.equal(g:count(), d:count())
      assert.are.equal(g:edge_count(), d:edge_count())
      local dn = d:vertex(n:vid())
      assert.are.equal(n:path(), dn:path())
      assert.are.equal(n:uuid(), dn:uuid())
      assert.are.same(n:records(), dn:records())
      assert.are.same({ arch = "x86" }, dn:properties())
      assert.are_not.equal(n, dn)
      dn:set_status("down")
      assert.are.equal("up", n:status())
    end)
  end)

  describe("merge", function()
    local function one_node(root, node, cores)
      local g = core.graph()
      local r = g:add_vertex { type = "cluster", name = root }
      local rack = g:add_vertex { type = "rack", id = 0 }
      g:add_child(r, rack)
      local n = g:add_vertex { type = "node", name = node }
      g:add_child(rack, n)
      for j = 0, cores - 1 do
        g:add_child(n, g:add_vertex { type = "core", id = j })
      end
      return g
    end

    it("merges at the common ancestor", function()
      local g = one_node("c0", "n0", 2)
      local h = one_node("c0", "n1", 3)
      h:vertex("/c0/rack0/n1"):set_property("arch", "arm")
      assert.are.equal(4, g:merge(h))
      assert.are.equal(9, g:count())
      local n1 = g:vertex("/c0/rack0/n1")
      assert.are.equal("arm", n1:property("arch"))
      assert.are.equal(3, #n1:children_list())
      assert.are.equal(2, #g:vertex("/c0/rack0"):children_list())
      -- merging the same again adds nothing
      assert.are.equal(0, g:merge(h))
    end)

    it("merges at a path", function()
      local g = one_node("c0", "n0", 1)
      local h = one_node("c1", "n9", 1)
      assert.are.equal(4, g:merge(h, "/c0/rack0"))
      assert(g:vertex("/c0/rack0/c1/rack0/n9/core0"))
    end)

    it("fails without changing the graph", function()
      local g = one_node("c0", "n0", 1)
      local h = one_node("c1", "n1", 1)
      failed("EINVAL", "merge: no common ancestor: the merged root is c1, this graph's is c0",
        g:merge(h))
      failed("EINVAL", "merge: no vertex at path /c0/nowhere", g:merge(h, "/c0/nowhere"))
      local clash = core.graph()
      clash:add_child(clash:add_vertex { type = "cluster", name = "c0" },
        clash:add_vertex { type = "switch", name = "rack0" })
      failed("EINVAL", "merge: /c0/rack0 is a rack here but a switch in the merged graph",
        g:merge(clash))
      assert.are.equal(4, g:count())
      assert.has_error(function() g:merge(g) end,
        "bad argument #1 to 'merge' (cannot merge a graph into itself)")
      assert.has_error(function() g:merge({}) end,
        "bad argument #1 to 'merge' (grove.graph expected, got table)")
    end)
  end)

  describe("unlink", function()
    it("removes a subtree", function()
      local g = small(2, 2)
      local n = g:vertex("/cluster0/rack0/node0")
      local c = g:vertex("/cluster0/rack0/node0/core0")
      assert.is_true(g:unlink(n))
      assert.are.equal(5, g:count())
      failed("ENOENT", nil, g:vertex("/cluster0/rack0/node0"))
      assert.has_error(function() c:name() end,
        "calling 'name' on bad self (vertex was removed from its graph)")
      assert.are.equal("grove.vertex (removed)", tostring(c))
      assert.has_error(function() g:unlink(n) end,
        "bad argument #1 to 'unlink' (vertex was removed from its graph)")
    end)

    it("refuses a subtree holding allocations unless forced", function()
      local g = small(2, 2)
      local n = g:vertex("/cluster0/rack0/node1")
      assert(g:vertex("/cluster0/rack0/node1/core1"):allocate(1, 4))
      failed("EBUSY", "/cluster0/rack0/node1: the subtree holds allocations (force to drop"
        .. " them)", g:unlink(n))
      assert.are.equal(8, g:count())
      assert.is_true(g:unlink(n, true))
      assert.are.equal(5, g:count())
      -- the annotations above are gone too
      assert.are.same({}, g:vertex("/cluster0"):records())
    end)
  end)

  describe("extract", function()
    it("builds a graph of exactly the listed vertices with their records", function()
      local g, n = node1_held(3)
      local list = g:find { name = "node1" }
      local x = g:extract(list)
      assert.are.equal(5, x:count())
      local xn = x:vertex("/cluster0/rack0/node1")
      assert.are.same(n:records(), xn:records())
      assert.are.equal(0, g:extract({}):count())
    end)

    it("raises on entries that are not vertices of the graph", function()
      local g, h = small(1, 1), small(1, 1)
      assert.has_error(function() g:extract { g:root(), h:root() } end,
        "bad argument #1 to 'extract' (entry 2 is not a vertex of this graph)")
      assert.has_error(function() g:extract { 1 } end,
        "bad argument #1 to 'extract' (entry 1 is not a vertex of this graph)")
      assert.has_error(function() g:extract() end,
        "bad argument #1 to 'extract' (table expected, got no value)")
    end)
  end)

  describe("find", function()
    it("returns matches, their descendants and their ancestors", function()
      local g = small(3, 2)
      g:vertex("/cluster0/rack0/node1"):set_property("arch", "arm")
      assert.are.same({
        "/cluster0", "/cluster0/rack0", "/cluster0/rack0/node1",
        "/cluster0/rack0/node1/core0", "/cluster0/rack0/node1/core1",
      }, paths(g:find { property = { arch = "arm" } }))
      assert.are.same({}, g:find { type = "gpu" })
      -- from a start vertex: only its subtree is searched
      assert.are.same({ "/cluster0", "/cluster0/rack0", "/cluster0/rack0/node2",
                        "/cluster0/rack0/node2/core1" },
        paths(g:find({ name = "core1" }, g:vertex("/cluster0/rack0/node2"))))
    end)

    it("takes a predicate function", function()
      local g = small(2, 2)
      local res = g:find(function(v) return v:name() == "node0" end)
      assert.are.same({ "/cluster0", "/cluster0/rack0", "/cluster0/rack0/node0",
                        "/cluster0/rack0/node0/core0", "/cluster0/rack0/node0/core1" },
        paths(res))
    end)

    it("finds by name or glob of path components, only the matches", function()
      local g = require("grove.repl").example_cluster()
      assert.are.same({"/tiny0/rack0/node1"}, paths(g:find "node1"))
      assert.are.same({"/tiny0/rack0/node0", "/tiny0/rack0/node1"}, paths(g:find "rack0/*"))
      assert.are.same({"/tiny0/rack0/node0/socket1", "/tiny0/rack0/node1/socket1"},
        paths(g:find "node*/socket1"))
      assert.are.same({"/tiny0/rack0/node0/socket0/core1", "/tiny0/rack0/node0/socket0/core2"},
        paths(g:find "/tiny0/rack0/node0/socket0/core[12]"))
      assert.equal(8, #g:find "/tiny0/rack0/node0/socket0/core1?")
      assert.are.same({}, g:find "nosuch")
      assert.are.same({"/tiny0/rack0"}, paths(g:find "rack0"))
      assert.are.same({}, g:find "ack0")    -- a glob matches whole components
    end)

    it("raises on misuse", function()
      local g = small(1, 1)
      assert.has_error(function() g:find() end,
        "bad argument #1 to 'find' (string, table or function expected, got no value)")
      assert.has_error(function() g:find { colour = 1 } end,
        "bad argument #1 to 'find' (unknown spec field 'colour')")
      assert.has_error(function() g:find(42) end,
        "bad argument #1 to 'find' (string, table or function expected, got number)")
      assert.has_error(function() g:find { size = "big" } end,
        "bad spec field 'size' (integer expected, got string)")
    end)
  end)

  describe("allocate and free through the graph", function()
    it("allocates, frees and frees whole jobs", function()
      local g = small(2, 2)
      local c = g:vertex("/cluster0/rack0/node0/core0")
      assert.is_true(g:allocate(c, 1, 10))
      assert.is_true(g:allocate(g:vertex("/cluster0/rack0/node1/core0"), 1, 10))
      assert.is_true(g:allocate(g:vertex("/cluster0/rack0/node1/core1"), 1, 11))
      assert.are.equal(1, c:allocated())
      assert.is_true(g:free(c, 10))
      assert.are.equal(0, c:allocated())
      failed("ENOENT", "/cluster0/rack0/node0/core0: job 10 holds nothing here", g:free(c, 10))
      assert.are.equal(1, g:free_job(10))
      assert.are.equal(0, g:free_job(10))
      assert.are.equal(1, g:free_job(11))
      assert.are.same({}, g:root():records())
      assert.has_error(function() g:free_job(-1) end,
        "bad argument #1 to 'free_job' (job id must be a non-negative integer)")
      assert.has_error(function() g:allocate("x", 1, 1) end,
        "bad argument #1 to 'allocate' (grove.vertex expected, got string)")
    end)
  end)

  describe("life", function()
    it("closes idempotently and rejects closed handles", function()
      local g = small(1, 1)
      local v = g:root()
      local e = g:edges()()
      g:close()
      g:close()
      assert.are.equal("grove.graph (closed)", tostring(g))
      assert.has_error(function() g:count() end,
        "calling 'count' on bad self (graph is closed)")
      assert.has_error(function() return #g end, "bad argument #1 to 'len' (graph is closed)")
      assert.has_error(function() v:name() end, "calling 'name' on bad self (graph is closed)")
      assert.has_error(function() e:src() end, "calling 'src' on bad self (graph is closed)")
      assert.are.equal("grove.vertex (closed)", tostring(v))
      assert.are.equal("grove.edge (closed)", tostring(e))
    end)

    it("supports to-be-closed variables", function()
      local v
      do
        local g <close> = small(1, 1)
        v = g:root()
        assert.are.equal("cluster0", v:name())
      end
      assert.has_error(function() v:name() end, "calling 'name' on bad self (graph is closed)")
    end)

    it("is kept alive by its handles", function()
      local v = small(1, 1):root()
      collectgarbage()
      collectgarbage()
      assert.are.equal("cluster0", v:name())
      assert.are.equal(4, v:graph():count())
    end)
  end)
end)
