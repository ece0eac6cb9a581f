-- planner_spec.lua: grove.planner and grove.mplanner seen from Lua.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local expect = require("expect")

local raises = expect.raises

-- Assert a call returned nil, message, code.
local function failure(msg, code, ...)
  local n = select("#", ...)
  local v, m, c = ...
  assert.equal(3, n)
  assert.is_nil(v)
  assert.equal(msg, m)
  assert.equal(code, c)
end

local function collect(iter)
  local t = {}
  for x in iter do t[#t + 1] = x end
  return t
end

describe("core.planner", function()
  it("is built from a table or from positional arguments", function()
    local p = core.planner { total = 44, horizon = 3600 }
    assert.equal("grove.planner", getmetatable(p).__name)
    assert.equal("planner(total=44, spans=0, [0, 3600))", tostring(p))
    local q = core.planner(8, 100, 1000)
    assert.equal(8, q:total())
    assert.same({ 1000, 1100 }, { q:range() })
    assert.equal(0, q:span_count())
    assert.same({ 0, 3600 }, { core.planner { total = 1, horizon = 3600, start = 0 }:range() })
    assert.equal(0, core.planner(0, 1):total())
  end)

  it("raises on a bad construction", function()
    raises(function() core.planner { horizon = 10 } end, "field 'total' must be an integer")
    raises(function() core.planner { total = 1 } end, "field 'horizon' must be an integer")
    raises(function() core.planner { total = 1.5, horizon = 10 } end,
      "field 'total' must be an integer")
    raises(function() core.planner { total = 1, horizon = 10, stat = 0 } end,
      "unknown field 'stat'")
    raises(function() core.planner(-1, 10) end, "total must be >= 0")
    raises(function() core.planner(1, 0) end, "horizon must be >= 1")
    raises(function() core.planner(1, 10, -1) end, "start must be >= 0")
    raises(function() core.planner(math.maxinteger, 10) end, "total is too large")
    raises(function() core.planner(1, math.maxinteger, 1) end, "start + horizon is too large")
    raises(function() core.planner("x", 10) end, "number expected, got string")
    raises(function() core.planner() end, "number expected, got no value")
  end)

  it("adds, looks up, reduces and removes spans", function()
    local p = core.planner(10, 100)
    assert.equal(1, p:add(0, 10, 4))
    assert.equal(2, p:add(5, 10, 6))
    assert.same({ 5, 10, 6 }, { p:span(2) })
    assert.equal(2, p:span_count())
    assert.equal(0, p:avail_at(7))
    assert.equal(2, p:reduce(2, 4))
    assert.same({ 5, 10, 2 }, { p:span(2) })
    assert.equal(4, p:avail_at(7))
    assert.equal(0, p:reduce(2, 2))
    assert.same({ 5, 10, 0 }, { p:span(2) })
    assert.is_true(p:remove(1))
    assert.equal(10, p:avail_at(7))
    assert.same({ 2 }, p:spans())
    assert.equal(3, p:add(0, 100, 1)) -- ids are never reused
    assert.same({ 2, 3 }, p:spans())
  end)

  it("reports span failures", function()
    local p = core.planner(10, 100)
    p:add(0, 10, 4)
    failure("no span 7", "ENOENT", p:span(7))
    failure("no span 7", "ENOENT", p:remove(7))
    failure("no span 7", "ENOENT", p:reduce(7, 1))
    failure("cannot release 5 units of span 1: it holds 4", "EINVAL", p:reduce(1, 5))
    failure("window [95, 105) is outside the horizon [0, 100)", "ERANGE", p:add(95, 10, 1))
    failure("window [-1, 0) is outside the horizon [0, 100)", "ERANGE", p:add(-1, 1, 1))
    failure("duration 101 exceeds the horizon length 100", "ERANGE", p:add(0, 101, 1))
    failure("window [9223372036854775807, 9223372036854775807) is outside the horizon [0, 100)",
      "ERANGE", p:add(math.maxinteger, 1, 1))
    failure("amount 11 exceeds the total 10", "ENODEV", p:add(0, 1, 11))
    failure("fewer than 7 units free during [5, 15)", "EBUSY", p:add(5, 10, 7))
    raises(function() p:add(0, -1, 1) end, "duration must be >= 0")
    raises(function() p:add(0, 1, -1) end, "amount must be >= 0")
    raises(function() p:reduce(1, -1) end, "amount must be >= 0")
    raises(function() p:add(0.5, 1, 1) end, "number has no integer representation")
    raises(function() p:remove("x") end, "number expected, got string")
    assert.equal(1, p:span_count())
  end)

  it("handles zero durations, the horizon's end and time 0", function()
    local p = core.planner(10, 100)
    assert.equal(1, p:add(0, 0, 10))      -- an empty window takes nothing
    assert.equal(2, p:add(100, 0, 10))    -- at the very end
    assert.equal(3, p:add(99, 1, 10))     -- the last second
    assert.equal(10, p:avail_at(0))
    assert.equal(0, p:avail_at(99))
    failure("time 100 is outside the horizon [0, 100)", "ERANGE", p:avail_at(100))
    failure("time -1 is outside the horizon [0, 100)", "ERANGE", p:avail_at(-1))
    assert.equal(10, p:avail_during(99, 0))
    assert.equal(10, p:avail_during(100, 0))
    assert.is_true(p:fits(99, 0, 10))
    assert.equal(99, p:earliest(10, 0, 99))
    assert.equal(100, p:earliest(10, 0, 100))
    failure("no time", "EBUSY", p:earliest(1, 1, 99))
    failure("no time", "EBUSY", p:earliest(1, 1, 100))
  end)

  it("answers availability over windows", function()
    local p = core.planner(10, 100)
    p:add(10, 10, 3)
    p:add(15, 10, 5)
    assert.equal(10, p:avail_at(9))
    assert.equal(2, p:avail_at(15))
    assert.equal(2, p:avail_during(0, 100))
    assert.equal(7, p:avail_during(10, 5))
    assert.equal(5, p:avail_during(20, 80))
    assert.is_true(p:fits(0, 100, 2))
    assert.is_false(p:fits(0, 100, 3))
    assert.is_false(p:fits(0, 1, 11))
    assert.is_true(p:fits(25, 75, 10))
    assert.is_true(p:fits(0, 1, 0))
    failure("window [90, 110) is outside the horizon [0, 100)", "ERANGE", p:avail_during(90, 20))
    failure("window [90, 110) is outside the horizon [0, 100)", "ERANGE", p:fits(90, 20, 1))
    failure("duration 101 exceeds the horizon length 100", "ERANGE", p:fits(0, 101, 1))
    raises(function() p:avail_during(0, -1) end, "duration must be >= 0")
    raises(function() p:fits(0, 1, -1) end, "amount must be >= 0")
  end)

  it("finds the earliest fit and iterates over candidate times", function()
    local p = core.planner(10, 100)
    p:add(0, 10, 8)   -- 2 free on [0, 10)
    p:add(10, 5, 10)  -- 0 free on [10, 15)
    p:add(20, 10, 6)  -- 4 free on [20, 30)
    assert.equal(0, p:earliest(2, 10))
    assert.equal(15, p:earliest(3, 5))
    assert.equal(15, p:earliest(5, 5))
    assert.equal(30, p:earliest(5, 6)) -- [15, 21) would cross the dip at 20
    assert.equal(15, p:earliest(4, 15))
    assert.equal(32, p:earliest(5, 5, 32))
    assert.equal(20, p:next_fit(4, 5, 15))
    assert.equal(30, p:next_fit(4, 5, 20))
    failure("no time", "EBUSY", p:next_fit(4, 5, 30))
    assert.same({ 0, 15, 20, 30 }, collect(p:fit_times(1, 5)))
    assert.same({ 15, 20, 30 }, collect(p:fit_times(3, 5)))
    assert.same({ 17, 20, 30 }, collect(p:fit_times(1, 3, 17)))
    assert.same({}, collect(p:fit_times(1, 1, 100)))
    failure("amount 11 exceeds the total 10", "ENODEV", p:earliest(11, 1))
    failure("amount 11 exceeds the total 10", "ENODEV", p:next_fit(11, 1, 0))
    failure("amount 11 exceeds the total 10", "ENODEV", p:fit_times(11, 1))
    failure("time 101 is outside the horizon [0, 100]", "ERANGE", p:earliest(1, 1, 101))
    failure("time -5 is outside the horizon [0, 100]", "ERANGE", p:next_fit(1, 1, -5))
    failure("time 101 is outside the horizon [0, 100]", "ERANGE", p:fit_times(1, 1, 101))
    failure("duration 101 exceeds the horizon length 100", "ERANGE", p:earliest(1, 101))
    raises(function() p:earliest(-1, 1) end, "amount must be >= 0")
    raises(function() p:next_fit(1, -1, 0) end, "duration must be >= 0")
    raises(function() p:fit_times(1, 1, "x") end, "number expected, got string")
  end)

  it("tells where usage changes and the busiest use", function()
    local p = core.planner(10, 100)
    assert.equal(0, p:max_used())
    failure("no later change", "ENOENT", p:next_change(0))
    p:add(10, 10, 3)
    p:add(20, 10, 3) -- no change at 20: one ends as the other starts
    assert.equal(10, p:next_change(0))
    assert.equal(30, p:next_change(10))
    failure("no later change", "ENOENT", p:next_change(30))
    assert.equal(3, p:max_used())
  end)

  it("grows and shrinks its total, refusing to shrink below use", function()
    local p = core.planner(10, 100)
    p:add(50, 10, 6)
    assert.is_true(p:resize(20))
    assert.equal(14, p:avail_at(55))
    assert.is_true(p:resize(6))
    assert.equal(0, p:avail_at(55))
    failure("cannot shrink the total to 5: 6 units are in use at the busiest time", "EBUSY",
      p:resize(5))
    assert.equal(6, p:total())
    raises(function() p:resize(-1) end, "total must be >= 0")
    raises(function() p:resize(math.maxinteger) end, "total is too large")
  end)

  it("copies deeply", function()
    local p = core.planner(10, 100)
    p:add(0, 10, 5)
    local c = p:copy()
    assert.equal(2, c:add(0, 10, 5))
    assert.equal(0, c:avail_at(0))
    assert.equal(5, p:avail_at(0))
    assert.equal(2, p:add(0, 10, 1)) -- the copy goes on from the same next id
    assert.equal("planner(total=10, spans=2, [0, 100))", tostring(c))
  end)

  it("closes idempotently, through close, __gc and <close>", function()
    local p = core.planner(10, 100)
    local iter = p:fit_times(1, 1)
    assert.equal(0, iter())
    p:close()
    p:close()
    assert.equal("planner (closed)", tostring(p))
    raises(function() p:add(0, 1, 1) end, "planner is closed")
    raises(function() p:total() end, "planner is closed")
    raises(function() iter() end, "planner closed during iteration")
    local q
    do
      local r <close> = core.planner(1, 1)
      q = r
      assert.equal(1, r:total())
    end
    assert.equal("planner (closed)", tostring(q))
    raises(function() core.planner(1, 1).add(io.stdout, 0, 1, 1) end,
      "grove.planner expected, got FILE*")
  end)

  -- A 16-node pool over one day: allocations now, reservations later, and
  -- cancellations that let later reservations move up.  Every answer is
  -- checked against a per-second model kept alongside.
  it("keeps reservations and cancellations consistent", function()
    local N, H = 16, 86400
    local p = core.planner { total = N, horizon = H }
    local used = {}
    for t = 0, H - 1 do used[t] = 0 end
    local jobs = {}
    local function model_fits(t, d, n)
      for x = t, t + d - 1 do if used[x] + n > N then return false end end
      return true
    end
    local function model_earliest(n, d, t0)
      local t = t0
      while t + d <= H do
        local bad
        for x = t, t + d - 1 do
          if used[x] + n > N then bad = x break end
        end
        if not bad then return t end
        t = bad + 1
      end
    end
    local function place(name, n, d, now)
      local t = assert(p:earliest(n, d, now))
      assert.equal(model_earliest(n, d, now), t)
      local id = assert(p:add(t, d, n))
      for x = t, t + d - 1 do used[x] = used[x] + n end
      jobs[name] = { id = id, t = t, d = d, n = n }
      return t
    end
    local function cancel(name)
      local j = jobs[name]
      assert.is_true(p:remove(j.id))
      for x = j.t, j.t + j.d - 1 do used[x] = used[x] - j.n end
      jobs[name] = nil
    end
    assert.equal(0, place("a", 8, 3600, 0))
    assert.equal(0, place("b", 8, 7200, 0))
    assert.equal(3600, place("c", 4, 1800, 0))     -- after a ends
    assert.equal(3600, place("d", 4, 3600, 0))     -- beside c
    assert.equal(7200, place("e", 8, 600, 0))      -- 8 nodes free only after b and d
    assert.equal(5400, place("f", 4, 1800, 0))     -- backfills the hole c leaves
    assert.equal(7800, place("g", 12, 3600, 100))  -- after e
    failure("fewer than 1 units free during [0, 10)", "EBUSY", p:add(0, 10, 1))
    -- b is cancelled, and e's reservation moves up to now.
    cancel("b")
    cancel("e")
    assert.equal(0, place("e", 8, 600, 0))
    -- Partial release: g gives back 4 nodes, and an 8-node job fits beside it.
    assert.equal(8, p:reduce(jobs.g.id, 4))
    for x = jobs.g.t, jobs.g.t + jobs.g.d - 1 do used[x] = used[x] - 4 end
    jobs.g.n = 8
    assert.equal(7800, place("h", 8, 3600, 7800))
    -- The pool shrinks to 12 nodes only once nothing uses more.
    failure("cannot shrink the total to 12: 16 units are in use at the busiest time", "EBUSY",
      p:resize(12))
    cancel("h")
    cancel("e")
    cancel("a")
    assert.equal(8, p:max_used())
    assert.is_true(p:resize(12))
    N = 12
    assert.is_false(p:fits(0, 1, 13))
    -- Every sampled second agrees with the model, and so does every candidate.
    for x = 0, H - 1, 97 do assert.equal(N - used[x], p:avail_at(x)) end
    for _, req in ipairs { { 4, 1800 }, { 8, 3600 }, { 12, 600 } } do
      local seen = 0
      for cand in p:fit_times(req[1], req[2]) do
        assert.is_true(model_fits(cand, req[2], req[1]))
        seen = seen + 1
      end
      assert.is_true(seen > 0)
    end
    assert.equal(4, p:span_count())
    local ids = { jobs.c.id, jobs.d.id, jobs.f.id, jobs.g.id }
    table.sort(ids)
    assert.same(ids, p:spans())
  end)
end)

describe("core.mplanner", function()
  local function mk()
    return core.mplanner { types = { "node", "core", "gpu" }, totals = { 2, 88, 8 },
      horizon = 3600 }
  end

  it("is built from types and totals", function()
    local mp = mk()
    assert.equal("grove.mplanner", getmetatable(mp).__name)
    assert.equal("mplanner(node=2, core=88, gpu=8; spans=0, [0, 3600))", tostring(mp))
    assert.same({ "node", "core", "gpu" }, mp:types())
    assert.same({ node = 2, core = 88, gpu = 8 }, mp:totals())
    assert.equal(88, mp:total "core")
    assert.same({ 100, 200 },
      { core.mplanner { types = { "x" }, totals = { 1 }, horizon = 100, start = 100 }:range() })
    assert.equal(0, mp:span_count())
  end)

  it("raises on a bad construction", function()
    local function new(t) return function() core.mplanner(t) end end
    raises(new { totals = { 1 }, horizon = 1 }, "field 'types' must be a table of names")
    raises(new { types = { "a" }, horizon = 1 }, "field 'totals' must be a table of integers")
    raises(new { types = { "a" }, totals = { 1 } }, "field 'horizon' must be an integer")
    raises(new { types = {}, totals = {}, horizon = 1 }, "field 'types' must list 1 to 1024 names")
    raises(new { types = { "a", "b" }, totals = { 1 }, horizon = 1 },
      "fields 'types' and 'totals' differ in length")
    raises(new { types = { "a", "a" }, totals = { 1, 1 }, horizon = 1 },
      "field 'types' names a type twice")
    raises(new { types = { "a", "" }, totals = { 1, 1 }, horizon = 1 },
      "types[2] must be a non-empty string")
    raises(new { types = { "a", 3 }, totals = { 1, 1 }, horizon = 1 },
      "types[2] must be a non-empty string")
    raises(new { types = { "a" }, totals = { -1 }, horizon = 1 },
      "totals[1] must be an integer in [0, 2305843009213693951]")
    raises(new { types = { "a" }, totals = { 1 }, horizon = 0 }, "horizon must be >= 1")
    raises(new { types = { "a" }, totals = { 1 }, horizon = 1, start = -1 }, "start must be >= 0")
    raises(new { types = { "a" }, totals = { 1 }, horizon = 1, extra = 1 }, "unknown field 'extra'")
    raises(function() core.mplanner(5) end, "table expected, got number")
  end)

  it("adds spans with count tables and answers with count tables", function()
    local mp = mk()
    assert.equal(1, mp:add(0, 600, { node = 1, core = 44, gpu = 4 }))
    assert.equal(2, mp:add(0, 1200, { node = 1, core = 44 }))
    local s, d, c = mp:span(1)
    assert.same({ 0, 600, { node = 1, core = 44, gpu = 4 } }, { s, d, c })
    assert.same({ node = 0, core = 0, gpu = 4 }, mp:avail_at(0))
    assert.same({ node = 1, core = 44, gpu = 8 }, mp:avail_at(600))
    assert.same({ node = 0, core = 0, gpu = 4 }, mp:avail_during(0, 3600))
    assert.same({ node = 2, core = 88, gpu = 8 }, mp:avail_during(0, 0))
    assert.is_true(mp:fits(0, 3600, { gpu = 4 }))
    assert.is_false(mp:fits(0, 3600, { gpu = 5 }))
    assert.is_false(mp:fits(0, 1, { gpu = 9 }))
    assert.is_true(mp:fits(0, 1, {}))
    assert.same({ node = 2, core = 88, gpu = 4 }, mp:max_used())
    assert.same({ 1, 2 }, mp:spans())
  end)

  it("reduces and removes spans", function()
    local mp = mk()
    mp:add(0, 600, { node = 1, core = 44, gpu = 4 })
    assert.same({ node = 1, core = 40, gpu = 0 }, mp:reduce(1, { core = 4, gpu = 4 }))
    failure("cannot release 1 gpu of span 1: it holds 0", "EINVAL", mp:reduce(1, { gpu = 1 }))
    failure("no span 9", "ENOENT", mp:reduce(9, {}))
    assert.is_true(mp:remove(1))
    failure("no span 1", "ENOENT", mp:remove(1))
    failure("no span 1", "ENOENT", mp:span(1))
    assert.equal(0, mp:span_count())
  end)

  it("reports failures and raises on misuse", function()
    local mp = mk()
    mp:add(0, 600, { node = 2 })
    failure("not enough free during [0, 10) for node=1, core=0, gpu=0", "EBUSY",
      mp:add(0, 10, { node = 1 }))
    failure("89 core exceed the total 88", "ENODEV", mp:add(0, 10, { core = 89 }))
    failure("window [3500, 3700) is outside the horizon [0, 3600)", "ERANGE",
      mp:add(3500, 200, { core = 1 }))
    failure("duration 3601 exceeds the horizon length 3600", "ERANGE",
      mp:add(0, 3601, { core = 1 }))
    failure("time 3600 is outside the horizon [0, 3600)", "ERANGE", mp:avail_at(3600))
    failure("window [3000, 4000) is outside the horizon [0, 3600)", "ERANGE",
      mp:avail_during(3000, 1000))
    failure("window [3000, 4000) is outside the horizon [0, 3600)", "ERANGE",
      mp:fits(3000, 1000, {}))
    raises(function() mp:add(0, 1, { fpga = 1 }) end, "unknown resource type 'fpga'")
    raises(function() mp:add(0, 1, { 1 }) end, "unknown resource type '1'")
    raises(function() mp:add(0, 1, { core = -1 }) end, "count of 'core' must be an integer >= 0")
    raises(function() mp:add(0, 1, { core = "x" }) end, "count of 'core' must be an integer >= 0")
    raises(function() mp:add(0, 1, 5) end, "table expected, got number")
    raises(function() mp:add(0, -1, {}) end, "duration must be >= 0")
    raises(function() mp:total "fpga" end, "unknown resource type 'fpga'")
    raises(function() mp:resize { core = -1 } end, "total of 'core' must be an integer >= 0")
  end)

  it("finds the earliest time every type fits, and the candidates after it", function()
    local mp = mk()
    mp:add(0, 600, { node = 1, core = 44, gpu = 4 })
    mp:add(0, 1200, { node = 1, core = 44 })
    assert.equal(600, mp:earliest({ node = 1, core = 10, gpu = 1 }, 100))
    assert.equal(0, mp:earliest({ gpu = 4 }, 100))
    assert.equal(1200, mp:earliest({ node = 2 }, 100))
    assert.equal(700, mp:earliest({ node = 1 }, 100, 700))
    assert.equal(1200, mp:next_fit({ node = 1 }, 100, 600))
    failure("no time", "EBUSY", mp:next_fit({ node = 1 }, 100, 1200))
    failure("no time", "EBUSY", mp:earliest({ node = 2 }, 2500))
    assert.same({ 600, 1200 }, collect(mp:fit_times({ node = 1, gpu = 8 }, 100)))
    assert.same({}, collect(mp:fit_times({ node = 2 }, 2500)))
    failure("9 gpu exceed the total 8", "ENODEV", mp:earliest({ gpu = 9 }, 1))
    failure("9 gpu exceed the total 8", "ENODEV", mp:fit_times({ gpu = 9 }, 1))
    failure("time 3601 is outside the horizon [0, 3600]", "ERANGE", mp:earliest({}, 1, 3601))
    failure("time -1 is outside the horizon [0, 3600]", "ERANGE", mp:next_fit({}, 1, -1))
    failure("duration 3601 exceeds the horizon length 3600", "ERANGE", mp:earliest({}, 3601))
    raises(function() mp:earliest({ gpu = 1 }, -1) end, "duration must be >= 0")
  end)

  it("resizes the listed types, refusing to shrink below use", function()
    local mp = mk()
    mp:add(0, 600, { node = 1, gpu = 6 })
    assert.is_true(mp:resize { gpu = 6 })
    assert.same({ node = 2, core = 88, gpu = 6 }, mp:totals())
    failure("cannot shrink gpu to 5: 6 are in use at the busiest time", "EBUSY",
      mp:resize { core = 10, gpu = 5 })
    assert.same({ node = 2, core = 88, gpu = 6 }, mp:totals()) -- nothing changed
    assert.is_true(mp:resize { node = 1, core = 0 })
    assert.same({ node = 1, core = 0, gpu = 6 }, mp:totals())
  end)

  it("copies deeply and closes idempotently", function()
    local mp = mk()
    mp:add(0, 10, { node = 1 })
    local c = mp:copy()
    c:add(0, 10, { node = 1 })
    assert.same({ node = 1, core = 88, gpu = 8 }, mp:avail_at(0))
    assert.same({ node = 0, core = 88, gpu = 8 }, c:avail_at(0))
    local iter = mp:fit_times({ node = 1 }, 10)
    assert.equal(0, iter())
    mp:close()
    mp:close()
    assert.equal("mplanner (closed)", tostring(mp))
    raises(function() mp:avail_at(0) end, "mplanner is closed")
    raises(function() iter() end, "mplanner closed during iteration")
    do
      local r <close> = c
      assert.equal(2, r:span_count())
    end
    assert.equal("mplanner (closed)", tostring(c))
  end)
end)
