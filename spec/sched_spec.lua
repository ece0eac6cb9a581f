-- Specs for grove.sched, the scheduling loop grove sim and grove.flux
-- drive, and its C state (grove.core.sched): queue order, priorities,
-- cancel, start and reserve through ctx, reservation and queue depth.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, and must not be copied here.
local core = require("grove.core")
local grove = require("grove")
local sched = require("grove.sched")

-- Four nodes of four cores.
local function machine()
  local R = grove.cluster.resources
  return grove.cluster "c" { R.node(4) { R.core(4) } }
end

local function loop_of(opts)
  opts = opts or {}
  opts.graph = opts.graph or machine()
  return assert(sched.new(opts))
end

local function job(id, procs, estimate, extra)
  local rec = {id = id, submit = extra and extra.submit or id, procs = procs,
    estimate = estimate or 100, priority = extra and extra.priority}
  return rec
end

local function add(loop, rec)
  loop.jobs[rec.id] = rec
  assert.is_nil(sched.admissible(loop, rec))
  sched.enqueue(loop, rec)
end

local function ids(views)
  local out = {}
  for i, v in ipairs(views) do out[i] = v.id end
  return out
end

describe("grove.core.sched", function()
  it("orders by priority, then submit time, then id, and keeps 64-bit ids", function()
    local s = core.sched()
    local big = 0x7fffffff00000001
    assert.is_true(s:add(3, 0, 5.0))
    assert.is_true(s:add(big, 0, 5.0))
    assert.is_true(s:add(1, 0, 9.0))
    assert.is_true(s:add(2, 7, 9.5))
    assert.same({2, 3, big, 1}, (s:ids()))
    local v = s:version()
    assert.is_true(s:prioritize(1, 8))
    assert.is_true(s:version() > v)
    assert.same({1, 2, 3, big}, (s:ids()))
    assert.same({nil, "job 3 is known already", "EEXIST"}, {s:add(3, 0, 1)})
    assert.same({nil, "no job 42", "ENOENT"}, {s:remove(42)})
  end)

  it("passes the waiting jobs larger than a fit, never one of unknown size", function()
    local s = core.sched()
    for id = 1, 5 do assert.is_true(s:add(id, 0, id)) end
    assert.is_true(s:set_size(1, 64))
    assert.is_true(s:set_size(2, 8))
    assert.is_true(s:set_size(4, 16))
    assert.is_true(s:set_size(5, 4))
    -- 3 has no size: never passed
    local function walk(fit)
      local out, id = {}, s:next(nil, fit)
      while id do
        out[#out + 1] = id
        id = s:next(id, fit)
      end
      return out
    end
    assert.same({1, 2, 3, 4, 5}, walk(nil))
    assert.same({2, 3, 4, 5}, walk(16))
    assert.same({3, 5}, walk(4.5))
    assert.same({3}, walk(0))
    assert.same({3}, walk(-2))
    -- a size set back to unknown, a job started: from the queue's walk
    assert.is_true(s:set_size(1, nil))
    assert.is_true(s:start(3))
    assert.same({1, 5}, walk(4))
    assert.is_nil(s:next(3, 4)) -- running: no next
    assert.same({nil, "no job 42", "ENOENT"}, {s:set_size(42, 1)})
    assert.has_error(function() s:next(nil, "four") end)
    assert.has_error(function() s:set_size(1, 2.5) end)
  end)
end)

describe("grove.sched", function()
  it("shows the queue policy the waiting jobs in order, priorities first", function()
    local loop = loop_of()
    add(loop, job(1, 4))
    add(loop, job(2, 4, 100, {priority = 5}))
    add(loop, job(3, 4))
    assert.same({2, 1, 3}, ids(loop.ctx.queue()))
  end)

  it("starts, reserves and forgets jobs through ctx", function()
    local loop = loop_of{reservations = "planner"}
    add(loop, job(1, 16, 100))
    add(loop, job(2, 8, 50))
    local q = loop.ctx.queue()
    assert.is_true(loop.ctx.start(nil, q[1]))
    assert.equal(16, loop.used)
    q = loop.ctx.queue()
    assert.same({2}, ids(q))
    assert.is_false(loop.ctx.start(nil, q[1]))
    local t, how = loop.ctx.reserve(nil, q[1])
    assert.equal(100, t)
    assert.equal("reserved", how)
    assert.equal("reserved", loop.cs:job(2).state)
    assert.equal(100, loop.cs:job(2).reserved)
    -- a cancelled waiting job leaves the queue and its reservation
    sched.forget(loop, loop.jobs[2])
    assert.same({}, ids(loop.ctx.queue()))
    assert.equal(0, loop.nreserved)
    assert.is_nil(loop.m:job(2))
  end)

  it("keeps to the reservation depth", function()
    local loop = loop_of{queue = "conservative", reservations = "planner", reserve_depth = 1}
    add(loop, job(1, 16, 100))
    add(loop, job(2, 16, 100))
    add(loop, job(3, 16, 100))
    sched.pass(loop)
    assert.equal("running", loop.jobs[1].state)
    assert.equal(100, loop.jobs[2].reserved)
    assert.is_nil(loop.jobs[3].reserved)
    assert.equal(1, loop.nreserved)
  end)

  it("shows the queue policy only the queue depth", function()
    local loop = loop_of{queue_depth = 2}
    for i = 1, 5 do add(loop, job(i, 16)) end
    assert.same({1, 2}, ids(loop.ctx.queue()))
    sched.pass(loop)
    assert.equal(4, loop.qlen)
    assert.same({2, 3}, ids(loop.ctx.queue()))
  end)

  it("refuses a job larger than the machine with the reason", function()
    local loop = loop_of()
    local rec = job(1, 17)
    assert.same({"needs 17 cores, the machine has 16", "ENODEV"},
      {sched.admissible(loop, rec)})
  end)

  it("refuses an option it does not know, and takes every one it does", function()
    assert.has_error(function() sched.new{graph = machine(), queue_dpeth = 2} end,
      "bad argument #1 to 'new' (unknown option 'queue_dpeth' (did you mean 'queue_depth'?))")
    assert.has_error(function() sched.init({}, {graph = machine(), total = 16}) end,
      "bad argument #2 to 'init' (unknown option 'total')")
    local all = {graph = machine(), queue = "easy", policy = "first", unit = "core", now = 5,
      reservations = "planner", queue_depth = 8, reserve_depth = 2, timed = true,
      params = {}, tps = 1, budget = 1e8, memory = 2^28, time = 10, limits = nil}
    local self = assert(sched.init({}, all))
    assert.equal(5, self.now)
    all.graph, all.total = machine(), 8
    assert.equal(8, assert(sched.new(all)).total)
  end)

  it("refuses a ctx:start option it does not know", function()
    local loop = loop_of{}
    add(loop, job(1, 4))
    add(loop, job(2, 4))
    local q = loop.ctx.queue()
    assert.has_error(function() loop.ctx:start(q[2], {protcet = q[1]}) end,
      "bad argument #2 to 'start' (unknown option 'protcet' (did you mean 'protect'?))")
    assert.is_true(loop.ctx:start(q[2], {protect = q[1]}))
  end)
end)

describe("grove.sched: why a job can never run", function()
  local function js(nodes, cores)
    return assert(core.jobspec_from_table(assert(require("grove.jobspec").build{
      nodes = nodes, tasks = nodes, cores_per_task = cores, duration = 10})))
  end

  -- The matcher's reason for a job that can never run here.
  local function never(g, spec)
    local ok, msg, code = core.matcher(g):match(spec, "satisfiability")
    assert.is_nil(ok)
    assert.equal("ENODEV", code)
    return msg
  end

  it("names the level or the whole-request type the machine cannot meet", function()
    local g = machine()
    assert.equal("5 nodes requested: the graph has 4", never(g, js(5, 1)))
    -- two levels of 3 nodes, each of which fits alone: counted together
    local two = assert(core.jobspec_from_table({version = 1, resources = {
      {type = "node", count = 3, with = {{type = "slot", count = 1, label = "a",
        with = {{type = "core", count = 1}}}}},
      {type = "node", count = 3, with = {{type = "slot", count = 1, label = "b",
        with = {{type = "core", count = 1}}}}}},
      tasks = {{command = {"true"}, slot = "a", count = {per_slot = 1}},
        {command = {"true"}, slot = "b", count = {per_slot = 1}}},
      attributes = {system = {duration = 10}}}))
    assert.equal("the job asks for 6 nodes, the machine has 4", never(g, two))
  end)

  it("gives the reason for a never-fitting job", function()
    local loop = loop_of()
    local msg, code = sched.admissible(loop, {id = 1, submit = 0, estimate = 10,
      jobspec = js(5, 1):to_table()})
    assert.equal("ENODEV", code)
    assert.matches("5 nodes", msg)
  end)
end)

describe("grove.sched: a pool's request is counted in its units", function()
  it("compares memory with the machine's memory, not its number of pools", function()
    local R = grove.cluster.resources
    local g = grove.cluster "m" { R.node(2) { R.core(4), R.memory(1, {size = 16}) } }
    local function js(mem)
      return assert(core.jobspec_from_table({version = 1, resources = {{type = "node",
        count = 1, with = {{type = "slot", count = 1, label = "task", with = {
          {type = "core", count = 1}, {type = "memory", count = mem}}}}}},
        tasks = {{command = {"true"}, slot = "task", count = {per_slot = 1}}},
        attributes = {system = {duration = 10}}}))
    end
    local function never(spec)
      local ok, msg = core.matcher(g):match(spec, "satisfiability")
      assert.is_nil(ok)
      return msg
    end
    assert.equal("no node with 20 memory: largest has 16", never(js(20)))
    assert.equal("no node with 40 memory: largest has 16", never(js(40)))
  end)
end)

describe("grove.sched: a request that did not fit in a pass", function()
  local function spec_job(id, nodes, estimate)
    return {id = id, submit = id, estimate = estimate,
      jobspec = grove.jobspec{nodes = nodes, exclusive = true, duration = estimate}}
  end

  it("refuses the jobs that ask the same again without a walk, and starts the others", function()
    local loop = loop_of{queue = "easy", timed = true}
    add(loop, spec_job(1, 3, 100))
    assert.is_true(sched.pass(loop))
    assert.equal("running", loop.jobs[1].state)
    add(loop, spec_job(2, 4, 100))            -- the head: reserved at 100
    for id = 3, 52 do add(loop, spec_job(id, 2, 200)) end  -- 50 that cannot fit
    add(loop, spec_job(53, 1, 50))            -- fits, and ends before the head's start
    local before = loop.cs:stats()
    assert.is_true(sched.pass(loop))
    local st = loop.cs:stats()
    assert.equal("running", loop.jobs[53].state)
    assert.equal(100, loop.jobs[2].reserved)
    for id = 3, 52 do assert.equal("queued", loop.jobs[id].state) end
    -- the head's plan, the first 2-node job's two tries, the last job's
    -- start: a handful of matches, not one or more a waiting job
    local matches = (st.matched + st.failed) - (before.matched + before.failed)
    assert.is_true(matches <= 8, "matches: " .. matches)
  end)

  it("forgets it at the next pass, once room is given back", function()
    local loop = loop_of{queue = "easy", timed = true}
    add(loop, spec_job(1, 3, 100))
    assert.is_true(sched.pass(loop))
    add(loop, spec_job(2, 1, 100))
    add(loop, spec_job(3, 1, 100))
    -- job 2 takes the last node; job 3 does not fit, and is remembered
    assert.is_true(sched.pass(loop))
    assert.same({"running", "queued"}, {loop.jobs[2].state, loop.jobs[3].state})
    -- a pass later, with job 1 gone, the same request fits
    sched.stop(loop, loop.jobs[1])
    assert.is_true(sched.pass(loop))
    assert.equal("running", loop.jobs[3].state)
  end)
end)

describe("grove.sched: a head with no start in sight", function()
  it("is planned once a pass, not once for every job offered behind it", function()
    local loop = loop_of{queue = "easy", timed = true}
    -- two nodes down: the head (all four nodes) has no start in sight
    loop.g:vertex("/c0/node0"):set_status("down")
    loop.g:vertex("/c0/node1"):set_status("down")
    loop.not_up = 2
    add(loop, {id = 1, submit = 1, estimate = 100,
      jobspec = grove.jobspec{nodes = 4, exclusive = true, duration = 100}})
    for id = 2, 41 do
      add(loop, {id = id, submit = id, estimate = 100,
        jobspec = grove.jobspec{nodes = 1, exclusive = true, duration = 100}})
    end
    local before = loop.cs:stats()
    assert.is_true(sched.pass(loop))
    local st = loop.cs:stats()
    assert.same({"queued", "running", "running", "queued"}, {loop.jobs[1].state,
      loop.jobs[2].state, loop.jobs[3].state, loop.jobs[4].state})
    local matches = (st.matched + st.failed) - (before.matched + before.failed)
    assert.is_true(matches <= 8, "matches: " .. matches)
  end)
end)

describe("grove.sched: running jobs by estimated end", function()
  it("stay in order through inserts and removes in any order, blocks split and emptied", function()
    local self = {by_est = {}}
    local recs, live = {}, {}
    local seed = 7
    local function rand(n)
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % n
    end
    -- ends with ties (same end, id breaks them), enough to split blocks
    for id = 1, 1000 do
      local rec = {id = id, est_end = rand(200), procs = 1}
      recs[id] = rec
      sched.start_estimate(self, rec)
      live[id] = true
    end
    -- remove two thirds in a scattered order, move some ends
    for k = 1, 1000 do
      local id = (k * 617) % 1000 + 1
      if k % 3 ~= 0 then
        sched.stop_estimate(self, recs[id])
        live[id] = nil
      elseif k % 9 == 0 then
        sched.stop_estimate(self, recs[id])
        recs[id].est_end = recs[id].est_end + rand(50)
        sched.start_estimate(self, recs[id])
      end
    end
    local want = {}
    for id in pairs(live) do want[#want + 1] = recs[id] end
    table.sort(want, function(a, b)
      if a.est_end ~= b.est_end then return a.est_end < b.est_end end
      return a.id < b.id
    end)
    local got = {}
    for r in sched.by_est(self) do got[#got + 1] = r end
    assert.equal(#want, #got)
    for i = 1, #want do assert.equal(want[i], got[i]) end
    assert.equal(want[1], sched.first_by_est(self))
    -- every block of the list is non-empty
    for _, b in ipairs(self.by_est) do assert.is_true(#b > 0) end
    -- a job not in the list is an error, and leaves it as it was
    assert.has_error(function() sched.stop_estimate(self, {id = 5000, est_end = 3}) end)
    local n = 0
    for _ in sched.by_est(self) do n = n + 1 end
    assert.equal(#want, n)
    for _, r in ipairs(want) do sched.stop_estimate(self, r) end
    assert.is_nil(sched.first_by_est(self))
    assert.is_nil(self.by_est[1])
  end)
end)
