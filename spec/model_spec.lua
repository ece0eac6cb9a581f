-- Specs for the rest of the resource model: several acquisition groups on
-- one graph, reservations that start when direct allocations end, jobs
-- that lose resources (shrink, down, drain) and their reservations planned
-- again, chosen windows, grow of a job, and a clock that moves job states.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, and must not be copied here.
local core = require "grove.core"
local mh = require "match_helper"

local function R(ranks)
  return {version = 1, execution = {R_lite = {{rank = ranks, children = {core = "0-3"}}}}}
end

-- One node with a slot of n cores for d seconds.
local function cores(n, d)
  return mh.jobspec({{type = "node", count = 1, with = {{type = "slot", count = 1,
    label = "default", with = {{type = "core", count = n}}}}}}, d)
end

local function nodes(n, d)
  return mh.jobspec({{type = "node", count = n, with = {{type = "slot", count = 1,
    label = "default", with = {{type = "core", count = 4}}}}}}, d)
end

local function count(g, t)
  local n = 0
  for _ in g:vertices{type = t} do n = n + 1 end
  return n
end

describe("several acquisition groups on one graph", function()
  it("each owns its targets; a grow of one leaves the other's alone", function()
    local g = core.graph()
    local m = core.matcher(g)
    local a1 = core.acquire(g, m, {group = "one", protocol = "v1"})
    local a2 = core.acquire(g, m, {group = "two", protocol = "v1"})
    assert(a1:apply{type = "grow", resources = R("0-3"), online = "0-3", offline = ""})
    assert(a2:apply{type = "grow", resources = R("4-5"), online = "4-5", offline = ""})
    assert.equal(6, count(g, "node"))
    assert.equal("0-3", tostring(a1:targets("usable")))
    assert.equal("4-5", tostring(a2:targets("usable")))
    -- six nodes of four cores: six jobs of a whole node each fit now
    for i = 1, 6 do
      local j = assert(m:match(cores(4, 100), "allocate"))
      assert.equal(i, j.id)
    end
    local _, msg, code = a2:apply{type = "grow", resources = R("2"), online = "2", offline = ""}
    assert.equal("EEXIST", code)
    assert.equal("grow: target 2 belongs to resource group 'one'", msg)
  end)
end)

describe("reservations and direct allocations", function()
  it("a reservation may start when a record made on a vertex ends", function()
    local g = mh.tiny()
    local m = core.matcher(g)
    local n = 0
    for c in g:vertices{type = "core"} do
      n = n + 1
      if n <= 10 then assert(c:allocate(1, 1000 + n, {start = 0, duration = 3600})) end
    end
    local js = mh.jobspec({{type = "node", count = 2, with = {{type = "slot", count = 1,
      label = "default", with = {{type = "core", count = 36}}}}}}, 100)
    local j = assert(m:match(js, "allocate_orelse_reserve"))
    assert.same({"reserved", 3600, 3700}, {j.state, j.start, j["end"]})
  end)
end)

-- Four targets of four cores, one group, v1; jobs 1-2 run on targets 0-1
-- until 100, job 3 is reserved on two nodes from 100.
local function busy()
  local g = core.graph()
  local m = core.matcher(g)
  local a = core.acquire(g, m, {protocol = "v1"})
  assert(a:apply{type = "grow", resources = R("0-3"), online = "0-3", offline = ""})
  assert(m:match(cores(4, 100), "allocate"))
  assert(m:match(cores(4, 100), "allocate"))
  assert(m:match(nodes(2, 100), "allocate"))
  local r = assert(m:match(nodes(3, 100), "allocate_orelse_reserve"))
  assert.same({4, "reserved", 100}, {r.id, r.state, r.start})
  return a, g, m
end

local function ranks_of(m, id)
  local R1 = assert(m:rv1(id))
  return tostring(R1:ranks())
end

describe("jobs that lose resources", function()
  it("a shrink moves a reservation away and releases the target at once", function()
    local a, _, m = busy()
    assert.equal("0-2", ranks_of(m, 4))
    assert(m:cancel(1))
    local ev = assert(a:apply{type = "shrink", targets = "0"})
    assert.same({{id = 4, targets = "0", start = 100}}, ev.reservations)
    assert.same({{group = "default", targets = "0"}}, ev.release)
    assert.equal("0", ev.removed)
    assert.equal("1-3", ranks_of(m, 4))
  end)

  it("a drain plans the reservations on it again and lists the running jobs", function()
    local a, _, m = busy()
    local ok, ev = a:drain("2")
    assert.is_true(ok)
    assert.same({{id = 3, targets = "2"}}, ev.running)
    assert.same({{id = 4, targets = "2", start = 100}}, ev.reservations)
    assert.equal("0-1,3", ranks_of(m, 4))
    -- with a second target drained it fits nowhere: dropped
    ok, ev = a:drain("3")
    assert.is_true(ok)
    assert.same({{id = 4, targets = "3", dropped = true}}, ev.reservations)
    assert.is_nil(m:job(4))
  end)

  it("down reports the running jobs as affected and moves reservations", function()
    local a, _, m = busy()
    local ev = assert(a:apply{type = "offline", targets = "0"})
    assert.same({{id = 1, targets = "0", note = "targets down"}}, ev.affected)
    assert.same({}, ev.exceptions)
    assert.same({{id = 4, targets = "0", start = 100}}, ev.reservations)
    assert.equal("1-3", ranks_of(m, 4))
  end)
end)

describe("chosen windows and grow", function()
  it("allocates in the window given or fails", function()
    local m = core.matcher(mh.tiny())
    local j = assert(m:match(cores(36, 100), "allocate", nil, {start = 500}))
    assert.same({"reserved", 500, 600}, {j.state, j.start, j["end"]})
    j = assert(m:match(cores(36, 100), "allocate", nil, {start = 550, ["end"] = 700}))
    assert.same({2, 550, 700}, {j.id, j.start, j["end"]})
    local _, msg, code = m:match(cores(36, 100), "allocate", nil, {start = 500})
    assert.same({"no matching resources", "EBUSY"}, {msg, code})
    _, msg, code = m:match(cores(36, 100), "allocate", nil, {start = 10, ["end"] = 10})
    assert.same({"match: the window ends at 10, not after its start (10)", "EINVAL"}, {msg, code})
    _, msg, code = m:match(cores(1, 100), "allocate_orelse_reserve", nil, {start = 10})
    assert.equal("EINVAL", code)
    assert.matches("a chosen window takes the modes", msg)
  end)

  it("grows an existing job over its own window", function()
    local m = core.matcher(mh.tiny())
    local j = assert(m:match(cores(4, 1000), "allocate"))
    assert.equal(4, m:info(j.id).counts.core)
    local g2 = assert(m:match(cores(6, 1), "grow", j.id))
    assert.same({j.id, 0, 1000}, {g2.id, g2.start, g2["end"]})
    assert.equal(10, m:info(j.id).counts.core)
    local _, msg, code = m:match(cores(1, 1), "grow", 99)
    assert.same({"grow: no job 99", "ENOENT"}, {msg, code})
    _, _, code = m:match(cores(80, 1), "grow", j.id)
    assert.equal("ENODEV", code)
    assert.equal(10, m:info(j.id).counts.core)
    assert(m:cancel(j.id))
    for c in m:graph():vertices{type = "core"} do assert.equal(0, c:allocated()) end
  end)
end)

describe("a clock that moves", function()
  it("starts reservations, ends jobs and frees what they held", function()
    local m = core.matcher(mh.tiny())
    local g = m:graph()
    assert(m:match(cores(36, 100), "allocate"))
    assert(m:match(cores(36, 100), "allocate"))
    local r = assert(m:match(cores(36, 50), "allocate_orelse_reserve"))
    assert.same({3, "reserved", 100}, {r.id, r.state, r.start})
    assert.same({{event = "end", id = 1, at = 100}, {event = "end", id = 2, at = 100},
      {event = "start", id = 3, at = 100}}, m:set_now(120))
    assert.equal("allocated", m:job(3).state)
    assert.is_nil(m:job(1))
    -- the graph's own clock moves the states too, seen at the next look
    g:set_now(150)
    assert.is_nil(m:job(3))
    assert.same({event = "end", id = 3, at = 150}, m:events()[4])
    assert.equal(4, #m:events{clear = true})
    assert.same({}, m:events())
  end)

  it("reports overdue jobs when the caller keeps them", function()
    local m = core.matcher(mh.tiny())
    assert(m:set_overdue("report"))
    assert(m:match(cores(4, 10), "allocate"))
    assert.same({{event = "overdue", id = 1, at = 10}}, m:set_now(20))
    assert.equal("allocated", m:job(1).state)
    assert.same({}, m:set_now(30))
  end)
end)
