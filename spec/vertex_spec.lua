-- Vertex handles: base data, status, properties, tags, structure, and the
-- allocation records of RFC 4 / RFC 16 (exclusive and shared rules, time
-- windows), with error paths.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
-- the did-you-mean of grove.core's messages comes with grove.suggest, as
-- every front end loads it
require("grove.suggest")
local methods = require("methods_helper")

local failed = require("expect").fails

-- c0 > n0..n1 > s0..s1 > core0..core1, plus mem (16 GB) on n0
local function build()
  local g = core.graph()
  local c = g:add_vertex { type = "cluster", basename = "c", id = 0 }
  for i = 0, 1 do
    local n = g:add_vertex { type = "node", basename = "n", id = i, rank = i }
    g:add_child(c, n)
    for j = 0, 1 do
      local s = g:add_vertex { type = "socket", basename = "s", id = j }
      g:add_child(n, s)
      for k = 0, 1 do
        g:add_child(s, g:add_vertex { type = "core", id = k })
      end
    end
  end
  local mem = g:add_vertex { type = "memory", basename = "mem", size = 16, unit = "GB" }
  g:add_child(g:vertex("/c0/n0"), mem)
  return g
end

local function jobs(records)
  local out = {}
  for i, r in ipairs(records) do
    out[i] = string.format("%s:%d:%d%s", r.kind, r.job, r.amount, r.exclusive and "x" or "")
  end
  table.sort(out)
  return out
end

describe("vertex", function()
  local g
  before_each(function()
    g = build()
  end)

  describe("base data", function()
    it("reads and writes it", function()
      local n = g:vertex("/c0/n1")
      methods.answer(n, {type = "node", basename = "n", name = "n1", id = 1, rank = 1, size = 1,
        unit = "", graph = g})
      assert.are.equal(36, #n:uuid())
      assert.is_true(n:set_rank(7))
      assert.are.equal(7, n:rank())
      assert.are.equal(n, g:vertices { rank = 7 }())
      assert.is_nil(g:vertices { rank = 1 }())
      assert.is_true(n:set_rank(nil))
      assert.is_nil(n:rank())
      assert.is_true(n:set_name("big"))
      assert.are.equal("/c0/big", n:path())
      assert.are.equal(n, g:vertex("big"))
      assert.are.equal(n, g:vertex("/c0/big"))
      assert.is_true(n:set_size(4))
      assert.are.equal(4, n:size())
    end)

    it("raises on misuse", function()
      local n = g:vertex("/c0/n1")
      assert.has_error(function() n:set_rank(-2) end,
        "bad argument #1 to 'set_rank' (rank must be >= 0 (or -1/nil for none))")
      assert.has_error(function() n:set_name("") end,
        "bad argument #1 to 'set_name' (name must be non-empty and contain no '/')")
      assert.has_error(function() n:set_name("a/b") end,
        "bad argument #1 to 'set_name' (name must be non-empty and contain no '/')")
      assert.has_error(function() n:set_size(-1) end,
        "bad argument #1 to 'set_size' (size must be >= 0)")
      assert.has_error(function() n:set_size("big") end,
        "bad argument #1 to 'set_size' (number expected, got string)")
      assert.has_error(function() n.name({}) end,
        "bad argument #1 to 'name' (grove.vertex expected, got table)")
      assert.has_error(function() n.type() end,
        "bad argument #1 to 'type' (grove.vertex expected, got no value)")
    end)

    it("compares and prints", function()
      local a, b = g:vertex("/c0/n0"), g:vertex("n0")
      assert.are.equal(a, b)
      assert.is_true(a == b)
      assert.is_false(rawequal(a, b))
      assert.are_not.equal(a, g:vertex("/c0/n1"))
      assert.are_not.equal(a, g:duplicate():vertex("/c0/n0"))
      assert.are.equal("/c0/n0", tostring(a))
      -- outside containment: its name
      local lone = g:add_vertex { type = "panel", id = 3 }
      assert.are.equal("panel3", tostring(lone))
    end)

    it("refuses to shrink below what is allocated", function()
      local mem = g:vertex("/c0/n0/mem")
      assert(mem:allocate(10, 1))
      failed("EBUSY", "/c0/n0/mem: more than 8 units are allocated at some time",
        mem:set_size(8))
      assert.are.equal(16, mem:size())
      assert.is_true(mem:set_size(10))
      -- now the job holds every unit: exclusive
      assert.is_true(mem:records()[1].exclusive)
    end)
  end)

  describe("status", function()
    it("gets and sets the state", function()
      local n = g:vertex("/c0/n0")
      assert.are.equal("up", n:status())
      for _, s in ipairs { "down", "drained", "excluded", "degraded", "failing", "unknown",
                           "null", "up" } do
        assert.is_true(n:set_status(s))
        assert.are.equal(s, n:status())
      end
      assert.has_error(function() n:set_status("asleep") end,
        "bad argument #1 to 'set_status' (unknown status 'asleep' (up, down, drained, "
        .. "excluded, degraded, failing, unknown or null))")
      assert.has_error(function() n:set_status() end,
        "bad argument #1 to 'set_status' (string expected, got no value)")
    end)
  end)

  describe("properties", function()
    it("sets, reads, replaces and removes them in order", function()
      local n = g:vertex("/c0/n0")
      assert.is_nil(n:property("arch"))
      assert.are.same({}, n:properties())
      assert.is_true(n:set_property("arch", "x86"))
      assert.is_true(n:set_property("speed", 3200))
      assert.is_true(n:set_property("empty", ""))
      assert.are.equal("x86", n:property("arch"))
      assert.are.equal("3200", n:property("speed"))
      assert.are.equal("", n:property("empty"))
      assert.is_true(n:set_property("arch", "arm"))
      assert.are.same({ arch = "arm", speed = "3200", empty = "" }, n:properties())
      assert.is_true(n:remove_property("speed"))
      failed("ENOENT", "no property 'speed'", n:remove_property("speed"))
      assert.are.same({ arch = "arm", empty = "" }, n:properties())
    end)

    it("raises on misuse", function()
      local n = g:vertex("/c0/n0")
      assert.has_error(function() n:set_property("", "x") end,
        "bad argument #1 to 'set_property' (key must not be empty)")
      assert.has_error(function() n:set_property("a", true) end,
        "bad argument #2 to 'set_property' (value must be a string or a number)")
      assert.has_error(function() n:set_property("a") end,
        "bad argument #2 to 'set_property' (value must be a string or a number)")
      assert.has_error(function() n:property() end,
        "bad argument #1 to 'property' (string expected, got no value)")
    end)
  end)

  describe("tags", function()
    it("tags with and without values", function()
      local n = g:vertex("/c0/n0")
      assert.is_false(n:has_tag("hot"))
      assert.is_true(n:tag("hot"))
      assert.is_true(n:tag("owner", "ops"))
      assert.is_true(n:tag("level", 3))
      local has, val = n:has_tag("hot")
      assert.is_true(has)
      assert.is_nil(val)
      has, val = n:has_tag("owner")
      assert.is_true(has)
      assert.are.equal("ops", val)
      assert.are.same({ hot = true, owner = "ops", level = "3" }, n:tags())
      assert.is_true(n:tag("owner"))
      assert.are.same({ hot = true, owner = true, level = "3" }, n:tags())
      assert.is_true(n:untag("hot"))
      failed("ENOENT", "no tag 'hot'", n:untag("hot"))
      assert.is_false(n:has_tag("hot"))
      assert.has_error(function() n:tag("") end,
        "bad argument #1 to 'tag' (key must not be empty)")
      assert.has_error(function() n:tag("a", {}) end,
        "bad argument #2 to 'tag' (value must be a string or a number)")
    end)
  end)

  describe("structure", function()
    it("gives paths, parents, depth and children per subsystem", function()
      local s = g:vertex("/c0/n1/s0")
      assert.are.equal("/c0/n1/s0", s:path())
      assert.are.equal("/c0/n1/s0", s:path("containment"))
      failed("ENOENT", "s0 is not in subsystem power", s:path("power"))
      assert.are.equal(g:vertex("/c0/n1"), s:parent())
      assert.is_nil(g:root():parent())
      assert.is_nil(s:parent("power"))
      assert.are.equal(2, s:depth())
      assert.are.equal(0, g:root():depth())
      local names = {}
      for c in s:children() do
        names[#names + 1] = c:name()
      end
      assert.are.same({ "core0", "core1" }, names)
      assert.are.same({}, s:children_list("power"))
      for _ in g:vertex("/c0/n1/s0/core0"):children() do
        error("a core has no children")
      end
      -- another subsystem
      local p = g:add_vertex { type = "pdu", id = 0 }
      g:add_edge(p, s, { subsystem = "power", relation = "supplies_to" })
      assert.are.equal(p, s:parent("power"))
      assert.are.equal("/pdu0/s0", s:path("power"))
      assert.are.equal(1, s:depth("power"))
      assert.are.same({ s }, p:children_list("power"))
      assert.are.equal(0, s:depth("never"))
    end)

    it("lists edges in and out", function()
      local n = g:vertex("/c0/n1")
      local out, into = n:out_edges(), n:in_edges()
      local function rels(list)
        local r = {}
        for i, e in ipairs(list) do
          r[i] = e:relation()
        end
        table.sort(r)
        return r
      end
      assert.are.same({ "contains", "contains", "in" }, rels(out))
      assert.are.same({ "contains", "in", "in" }, rels(into))
      for _, e in ipairs(out) do
        assert.are.equal(n, e:src())
      end
      for _, e in ipairs(into) do
        assert.are.equal(n, e:dst())
      end
      assert.are.same({}, n:out_edges("power"))
      assert.are.equal(3, #n:out_edges("containment"))
    end)
  end)

  describe("allocation", function()
    it("allocates units and annotates ancestors as shared", function()
      local mem = g:vertex("/c0/n0/mem")
      assert.is_true(mem:allocate(4, 1))
      assert.are.equal(4, mem:allocated())
      assert.are.equal(12, mem:available())
      assert.are.same({ "alloc:1:4" }, jobs(mem:records()))
      assert.are.same({ "shared:1:1" }, jobs(g:vertex("/c0/n0"):records()))
      assert.are.same({ "shared:1:1" }, jobs(g:root():records()))
      local r = mem:records()[1]
      assert.are.equal(0, r.start)
      assert.is_nil(r["end"])
      -- a second job shares the pool
      assert.is_true(mem:allocate(12, 2))
      assert.are.equal(0, mem:available())
      failed("EBUSY", "/c0/n0/mem: busy: cannot allocate 1 units to job 3", mem:allocate(1, 3))
      -- the same job grows its allocation
      assert.is_true(mem:free(2, 2))
      assert.is_true(mem:allocate(1, 1))
      assert.are.same({ "alloc:1:5", "alloc:2:10" }, jobs(mem:records()))
      -- two records below the node: its annotations count them
      assert.is_true(g:vertex("/c0/n0/s0/core0"):allocate(1, 1))
      assert.are.same({ "shared:1:2", "shared:2:1" }, jobs(g:vertex("/c0/n0"):records()))
    end)

    it("makes a job that takes every unit exclusive", function()
      local mem = g:vertex("/c0/n0/mem")
      assert.is_true(mem:allocate(16, 1))
      assert.is_true(mem:records()[1].exclusive)
      local held, job = mem:held_exclusively()
      assert.is_true(held)
      assert.are.equal(1, job)
      assert.is_true(mem:free(1, 8))
      assert.is_false(mem:records()[1].exclusive)
      assert.is_false(mem:held_exclusively())
    end)

    it("refuses a time outside [0, math.maxinteger) for held_exclusively", function()
      local mem = g:vertex("/c0/n0/mem")
      assert.is_true(mem:allocate(16, 1))
      assert.is_true((mem:held_exclusively(1000)))
      for _, t in ipairs({ math.maxinteger, math.mininteger, -1 }) do
        assert.has_error(function() mem:held_exclusively(t) end,
          "bad argument #1 to 'held_exclusively' (time must be >= 0 and < math.maxinteger)")
      end
    end)

    it("holds a pool exclusively on request; its children are implied", function()
      local n = g:vertex("/c0/n0")
      local core0 = g:vertex("/c0/n0/s0/core0")
      assert.is_true(n:allocate(1, 5, { exclusive = true }))
      assert.are.same({ "alloc:5:1x" }, jobs(n:records()))
      assert.are.same({}, core0:records())
      local held, job = core0:held_exclusively()
      assert.is_true(held)
      assert.are.equal(5, job)
      assert.are.equal(0, core0:available())
      failed("EBUSY", "/c0/n0/s0/core0: busy: cannot allocate 1 units to job 6",
        core0:allocate(1, 6))
      -- the holder has the children already: a record of their own would
      -- count them twice
      failed("EEXIST", "/c0/n0/s0/core0: job 5 already holds it, whole above or in part "
        .. "below", core0:allocate(1, 5))
      -- the other node is untouched
      assert.is_true(g:vertex("/c0/n1/s0/core0"):allocate(1, 6))
      assert.is_true(n:free(5))
      assert.is_false(core0:held_exclusively())
      -- a job holding part of a pool cannot also hold it whole
      assert.is_true(core0:allocate(1, 7))
      failed("EEXIST", "/c0/n0: job 7 already holds it, whole above or in part below",
        n:allocate(1, 7, { exclusive = true }))
    end)

    it("refuses exclusivity over another job's descendants", function()
      assert.is_true(g:vertex("/c0/n1/s1/core1"):allocate(1, 7))
      local n1 = g:vertex("/c0/n1")
      failed("EBUSY", "/c0/n1: busy: cannot allocate 1 units to job 8",
        n1:allocate(1, 8, { exclusive = true }))
      failed("EBUSY", nil, g:root():allocate(1, 8))
      -- but a shared, non-exclusive use of another pool is fine
      assert.is_true(g:vertex("/c0/n0/mem"):allocate(1, 8))
    end)

    it("refuses pools that are not up or below one that is not", function()
      local n = g:vertex("/c0/n0")
      n:set_status("down")
      failed("EBUSY", nil, g:vertex("/c0/n0/mem"):allocate(1, 1))
      failed("EBUSY", nil, n:allocate(1, 1))
      assert.are.equal(0, g:vertex("/c0/n0/mem"):available())
      n:set_status("up")
      assert.is_true(g:vertex("/c0/n0/mem"):allocate(1, 1))
    end)

    it("refuses more than the pool's size", function()
      failed("EINVAL", "/c0/n0/mem: cannot allocate 17 units of a pool of 16",
        g:vertex("/c0/n0/mem"):allocate(17, 1))
      assert.is_true(g:vertex("/c0/n0/mem"):allocate(10, 1))
      failed("EBUSY", nil, g:vertex("/c0/n0/mem"):allocate(7, 1))
    end)

    it("keeps records in time windows", function()
      local mem = g:vertex("/c0/n0/mem")
      assert.is_true(mem:allocate(16, 1, { start = 100, duration = 50 }))
      assert.is_true(mem:allocate(16, 2, { start = 150, ["end"] = 200 }))
      assert.is_true(mem:allocate(8, 3, { start = 200, end_ = 300 }))
      assert.are.equal(16, mem:available())
      assert.are.equal(0, mem:available(120))
      assert.are.equal(16, mem:available(50, 50))
      assert.are.equal(0, mem:available(50, 51))
      assert.are.equal(8, mem:available(200, 100))
      assert.are.equal(0, mem:allocated())
      assert.are.equal(16, mem:allocated(120))
      assert.are.equal(8, mem:allocated(250))
      assert.is_true(mem:held_exclusively(120))
      assert.is_false(mem:held_exclusively(250))
      local r = mem:records()
      table.sort(r, function(a, b) return a.job < b.job end)
      assert.are.same({ job = 1, kind = "alloc", amount = 16, start = 100, ["end"] = 150,
                        exclusive = true }, r[1])
      assert.are.same({ job = 3, kind = "alloc", amount = 8, start = 200, ["end"] = 300,
                        exclusive = false }, r[3])
      failed("EBUSY", nil, mem:allocate(1, 4, { start = 140, duration = 20 }))
      -- now moves: the default window starts at the graph's time
      g:set_now(120)
      assert.are.equal(0, mem:available())
      assert.are.equal(16, mem:allocated())
      failed("EBUSY", nil, mem:allocate(1, 4))
      g:set_now(300)
      assert.is_true(mem:allocate(16, 4))
      assert.are.equal(300, mem:records()[1].start)
    end)

    it("frees all or part of a job's units", function()
      local mem = g:vertex("/c0/n0/mem")
      assert.is_true(mem:allocate(6, 1))
      failed("EINVAL", "/c0/n0/mem: job 1 holds fewer than 7 units", mem:free(1, 7))
      assert.is_true(mem:free(1, 2))
      assert.are.equal(4, mem:allocated())
      assert.is_true(mem:free(1))
      assert.are.equal(0, mem:allocated())
      failed("ENOENT", "/c0/n0/mem: job 1 holds nothing here", mem:free(1))
      assert.are.same({}, g:vertex("/c0/n0"):records())
      assert.are.same({}, g:root():records())
    end)

    it("raises on misuse", function()
      local mem = g:vertex("/c0/n0/mem")
      assert.has_error(function() mem:allocate(0, 1) end,
        "bad argument #1 to 'allocate' (amount must be > 0)")
      assert.has_error(function() mem:allocate(1, -1) end,
        "bad argument #2 to 'allocate' (job id must be a non-negative integer)")
      assert.has_error(function() mem:allocate(1, "j") end,
        "bad argument #2 to 'allocate' (number expected, got string)")
      assert.has_error(function() mem:allocate(1, 1, { start = 5, duration = 1, ["end"] = 9 }) end,
        "bad argument #3 to 'allocate' (give at most one of duration, end and end_)")
      assert.has_error(function() mem:allocate(1, 1, { start = 5, ["end"] = 5 }) end,
        "bad argument #3 to 'allocate' (the window ends before it starts)")
      assert.has_error(function() mem:allocate(1, 1, { duration = 0 }) end,
        "bad argument #3 to 'allocate' (field 'duration' must be >= 1)")
      assert.has_error(function() mem:allocate(1, 1, { start = -1 }) end,
        "bad argument #3 to 'allocate' (field 'start' must be >= 0)")
      assert.has_error(function() mem:allocate(1, 1, { when = 0 }) end,
        "bad argument #3 to 'allocate' (unknown option 'when')")
      assert.has_error(function() mem:allocate(1, 1, 5) end,
        "bad argument #3 to 'allocate' (table expected, got number)")
      assert.has_error(function() mem:free(1, 0) end,
        "bad argument #2 to 'free' (amount must be > 0)")
      assert.has_error(function() mem:free() end,
        "bad argument #1 to 'free' (number expected, got no value)")
      assert.has_error(function() mem:available(-1) end,
        "bad argument #1 to 'available' (start must be >= 0)")
      assert.has_error(function() mem:available(0, 0) end,
        "bad argument #2 to 'available' (duration must be > 0)")
      assert.are.same({}, mem:records())
    end)
  end)

  describe("aggregate_avail", function()
    it("reads the free units below from the pruning aggregate, over time", function()
      local n0 = g:vertex("/c0/n0")
      assert.are.equal(4, n0:aggregate_avail("core"))
      assert.are.equal(8, g:root():aggregate_avail("core"))
      assert.are.equal(2, g:root():aggregate_avail("node"))
      assert(g:vertex("/c0/n0/s1"):allocate(1, 1, { start = 10, duration = 10 }))
      assert.are.equal(4, n0:aggregate_avail("core"))
      assert.are.equal(2, n0:aggregate_avail("core", 10))
      assert.are.equal(2, n0:aggregate_avail("core", 0, 11))
      assert.are.equal(4, n0:aggregate_avail("core", 20, 100))
      failed("ENOENT", "/c0/n0/s0/core0 keeps no aggregate of core",
        g:vertex("/c0/n0/s0/core0"):aggregate_avail("core"))
      failed("ENOENT", "/c0/n0 keeps no aggregate of memory", n0:aggregate_avail("memory"))
      assert.has_error(function() n0:aggregate_avail() end,
        "bad argument #1 to 'aggregate_avail' (string expected, got no value)")
      assert.has_error(function() n0:aggregate_avail("core", -1) end,
        "bad argument #2 to 'aggregate_avail' (start must be >= 0)")
      assert.has_error(function() n0:aggregate_avail("core", 0, 0) end,
        "bad argument #3 to 'aggregate_avail' (duration must be > 0)")
    end)
  end)

  describe("aggregate", function()
    it("of one type is a number, as a policy's view answers", function()
      local n0 = g:vertex("/c0/n0")
      assert(g:vertex("/c0/n0/s1/core0"):allocate(1, 1))
      assert.same({ core = 3, memory = 16, node = 1, socket = 2 }, n0:aggregate())
      assert.are.equal(3, n0:aggregate("core"))
      assert.are.equal(16, n0:aggregate("memory"))
      assert.are.equal(7, g:root():aggregate("core"))
      -- none below: 0 (a type of the graph, or a standard one it lacks)
      assert.are.equal(0, g:vertex("/c0/n1"):aggregate("memory"))
      assert.are.equal(0, n0:aggregate("gpu"))
      -- a type no request on the graph may name raises, with the closest
      assert.has_error(function() n0:aggregate("cores") end,
        "bad argument #1 to 'aggregate' (unknown resource type 'cores' (did you mean "
        .. "'core'?): the graph has cluster, core, memory, node, socket)")
      assert.has_error(function() n0:aggregate(1) end,
        "bad argument #1 to 'aggregate' (unknown resource type '1': the graph has cluster, "
        .. "core, memory, node, socket)")
      assert.has_error(function() n0:aggregate({}) end,
        "bad argument #1 to 'aggregate' (string expected, got table)")
    end)
  end)

  describe("composites from a vertex", function()
    it("aggregates and copies its subtree", function()
      local n0 = g:vertex("/c0/n0")
      assert.are.same({ node = 1, socket = 2, core = 4, memory = 16 }, n0:aggregate())
      assert(g:vertex("/c0/n0/s1"):allocate(1, 1))
      assert.are.same({ node = 1, socket = 1, core = 2, memory = 16 }, n0:aggregate())
      local c = n0:copy()
      assert.are.equal(1 + 1 + 1 + 2 + 1, c:count())
      assert.are.equal(16, c:vertex("/c0/n0/mem"):size())
    end)
  end)
end)
