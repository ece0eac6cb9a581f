-- queue_priority_spec: a queue policy's priority hook is asked once a
-- change, not once a pass: when a job joins the queue, when the driver
-- changes its own priority, and for every waiting job when the policy
-- says its inputs moved (reprioritize = {every =, ends =}, or
-- ctx:reprioritize); the answer orders the queue in C (grove.core.sched's
-- policy priority).  Errors of the hook and of the field are named.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, and must not be copied here.
local grove = require("grove")
local sched = require("grove.sched")
local sim = grove.sim
local helper = require("sim_helper")

-- 1 node of 16 cores: a job of 16 takes the machine.
local function one_node()
  return helper.machine("p", 1, 1, 1, 16)
end

-- A queue policy from text, its priority calls counted in calls.n.
local function counted(text)
  local q = assert(sim.queue.parse(text, "q.lua"))
  local calls = {n = 0}
  local call = q.call
  q.call = function(self, hook, ...)
    if hook == "priority" then calls.n = calls.n + 1 end
    return call(self, hook, ...)
  end
  return q, calls
end

-- Run jobs ({id, submit, run, procs, user}) under q: the starts by id.
local function starts(q, jobs, opts)
  local out = {}
  opts = opts or {}
  opts.graph, opts.queue = opts.graph or one_node(), q
  opts.out = function(r) out[r.id] = r.start end
  local s = assert(sim.new(opts))
  for _, j in ipairs(jobs) do
    s:submit{id = j[1], submit = j[2], run = j[3], procs = j[4], user = j[5]}
  end
  assert(s:run())
  return out, s
end

-- Job 1 holds the machine to 150; jobs 2, 3 and 4 join at 10, for 60 s.
local HELD_TO_150 = {{1, 0, 150, 16}, {2, 10, 60, 16}, {3, 10, 60, 16}, {4, 10, 60, 16}}

describe("a queue policy's priority", function()
  it("is asked once a job, when it joins the queue, and orders the queue", function()
    local q, calls = counted([[
      return { base = "easy", priority = function(job) return -job.estimate end }]])
    -- job 1 holds the machine until 100; 2 to 31 wait, shortest first
    local jobs = {{1, 0, 100, 16}}
    for id = 2, 31 do jobs[#jobs + 1] = {id, 1, 100 - id, 16} end
    local st = starts(q, jobs)
    assert.equal(31, calls.n)
    local t = 100
    for id = 31, 2, -1 do
      assert.equal(t, st[id], "job " .. id)
      t = t + 100 - id
    end
  end)

  it("orders ctx:queue() and ctx:next() alike, with no asking of its own", function()
    local q, calls = counted([[
      local P = {}
      P.priority = function(job) return job.id % 3 end
      P.schedule = function(ctx)
        local a, b = {}, {}
        for _, job in ipairs(ctx:queue()) do a[#a + 1] = job.id end
        local job = ctx:next()
        while job do b[#b + 1] = job.id; job = ctx:next(job) end
        P.seen = table.concat(a, " ") .. " / " .. table.concat(b, " ")
      end
      return P]])
    local s = assert(sim.new{graph = one_node(), queue = q})
    for id = 1, 7 do s:submit{id = id, submit = 0, run = 1, procs = 1} end
    assert(s:step())
    -- by hand: remainders 2 (2, 5), 1 (1, 4, 7), 0 (3, 6); ties by id
    assert.equal("2 5 1 4 7 3 6 / 2 5 1 4 7 3 6", s.queue_policy.script:get("seen"))
    assert.equal(7, calls.n)
  end)

  it("is asked again for every waiting job at each tick of reprioritize.every", function()
    local q, calls = counted([[
      return { base = "fcfs", reprioritize = {every = 100},
        priority = function(job, ctx)
          if ctx:clock() >= 100 then return job.id end
          return -job.id
        end }]])
    -- 1 holds the machine to 150 (asked at 0); 2-4 join at 10 (asked
    -- then: 2 first); the pass at 150 is the first after the tick at 100
    -- (asked again: 4 first), the one at 210 after the tick at 200 (2 left
    -- to ask), the one at 270 before the next
    assert.same({0, 270, 210, 150}, (starts(q, HELD_TO_150)))
    assert.equal(1 + 3 + 3 + 2, calls.n)
  end)

  it("is asked again for every waiting job after a job ends, with reprioritize.ends", function()
    local text = [[
      return { base = "fcfs", %s
        priority = function(job, ctx) return -ctx:usage(job.user) end }]]
    local jobs = {{1, 0, 100, 16, "a"}, {2, 10, 10, 16, "a"}, {3, 10, 10, 16, "b"}}
    -- by hand: at 10, neither user has used anything (2 first by id); at
    -- 100, a has used 1600 core-seconds: b's job 3 goes first
    local q, calls = counted(text:format("reprioritize = {ends = true},"))
    assert.same({0, 110, 100}, (starts(q, jobs)))
    assert.equal(1 + 2 + 2 + 1, calls.n)     -- joins, then after 1 and 3 end
    local q2, calls2 = counted(text:format(""))
    assert.same({0, 100, 110}, (starts(q2, jobs)))
    assert.equal(3, calls2.n)
  end)

  it("is asked again when the schedule says so: ctx:reprioritize([job])", function()
    local q, calls = counted([[
      local flip = {}
      return {
        priority = function(job) return flip[job.id] and job.id or -job.id end,
        schedule = function(ctx)
          if ctx:clock() >= 100 and not flip.done then
            flip.done = true
            for _, job in ipairs(ctx:queue()) do
              if job.id == 4 then flip[4] = true; ctx:reprioritize(job) end
            end
          end
          if ctx:clock() >= 200 and not flip.all then
            flip.all = true
            flip[2], flip[3] = true, true
            ctx:reprioritize()
          end
          local job = ctx:next()
          while job and ctx:start(job) do job = ctx:next() end
        end }]])
    -- at 150 only 4 was asked again (+4: first); at 210 every waiting job
    -- (3 before 2)
    assert.same({0, 270, 210, 150}, (starts(q, HELD_TO_150)))
    assert.equal(1 + 3 + 1 + 2, calls.n)
  end)

  it("is asked again for a job that joins the queue again (requeued)", function()
    local q, calls = counted([[
      return { base = "fcfs", priority = function(job) return job.id end }]])
    local s = assert(sim.new{graph = helper.machine("r", 1, 2, 1, 8), queue = q,
      on_down = "requeue"})
    s:submit{id = 1, submit = 0, run = 100, procs = 8}
    s:submit{id = 2, submit = 0, run = 100, procs = 8}
    s:node_event{time = 50, node = "n0", action = "down"}
    s:node_event{time = 60, node = "n0", action = "up"}
    assert(s:run())
    assert.equal(3, calls.n)
  end)

  it("follows the driver's priority: asked again when it changes (sched.prioritize)",
    function()
      local q, calls = counted([[
        return { base = "fcfs", priority = function(job) return job.priority end }]])
      local loop = assert(sched.new{graph = one_node(), queue = q})
      for id = 1, 3 do
        local rec = {id = id, submit = id, procs = 16, estimate = 100, priority = id}
        loop.jobs[id] = rec
        assert.is_nil(sched.admissible(loop, rec))
        sched.enqueue(loop, rec)
      end
      assert.is_true(sched.pass(loop))            -- 3 starts
      assert.same({2, 1}, (loop.cs:ids()))
      sched.prioritize(loop, loop.jobs[1], 9)
      assert.same({2, 1}, (loop.cs:ids()))       -- the driver's own order moves at once
      assert.is_true(sched.pass(loop))
      assert.same({1, 2}, (loop.cs:ids()))       -- and the policy's after asking
      assert.equal(3 + 1, calls.n)
      assert.equal(9, loop.cs:job(1).policy_priority)
    end)

  it("is asked again of every waiting job by a queue policy put in its place", function()
    local function policy(prio)
      return assert(sim.queue.parse('return { base = "fcfs"' ..
        (prio and ', priority = function(job) return ' .. prio .. ' end' or '') .. ' }', "q.lua"))
    end
    local loop = assert(sched.new{graph = one_node(), queue = policy("job.id")})
    for id = 1, 4 do
      local rec = {id = id, submit = id, procs = 16, estimate = 100}
      loop.jobs[id] = rec
      assert.is_nil(sched.admissible(loop, rec))
      sched.enqueue(loop, rec)
    end
    assert.is_true(sched.pass(loop))            -- 4 starts: the highest id
    assert.same({3, 2, 1}, (loop.cs:ids()))
    sched.set_queue_policy(loop, policy("job.id % 3"))
    assert.is_true(sched.pass(loop))
    assert.same({2, 1, 3}, (loop.cs:ids()))     -- remainders 2, 1, 0
    sched.set_queue_policy(loop, policy(nil))   -- none: submit time, then id
    assert.same({1, 2, 3}, (loop.cs:ids()))
    assert.is_true(sched.pass(loop))
    assert.same({1, 2, 3}, (loop.cs:ids()))
  end)

  it("orders each queue by its own policy's priority (policy_Q)", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write('return { base = "fcfs", priority = function(job) return job.id end }\n')
    f:close()
    local out = {}
    local s = assert(sim.new{graph = one_node(), queue = "fcfs", params = {policy_2 = path},
      out = function(r) out[r.id] = r.start end})
    s:submit{id = 1, submit = 0, run = 10, procs = 16, queue = 1}
    for id = 2, 4 do s:submit{id = id, submit = 1, run = 10, procs = 16, queue = 2} end
    assert(s:run())
    os.remove(path)
    -- queue 2's jobs by its priority (4, 3, 2), one at a time
    assert.same({0, 30, 20, 10}, out)
  end)
end)

describe("a queue policy's priority that fails", function()
  it("stops the run, named: a raise, a NaN, something else", function()
    for _, c in ipairs{
      {'error("boom")', "queue policy q: q.lua:1: boom"},
      {"0 / 0", "q.lua:1:25: priority must return a number (job 1 got NaN)"},
      {'"high"', "q.lua:1:25: priority must return a number (job 1 got string)"},
    } do
      local q = assert(sim.queue.parse(
        'return { base = "fcfs", priority = function() return ' .. c[1] .. ' end }', "q.lua"))
      local s = assert(sim.new{graph = one_node(), queue = q})
      s:submit{id = 1, submit = 0, run = 10, procs = 1}
      local ok, err, code = s:run()
      assert.same({nil, c[2], "ECANCELED"}, {ok, err, code})
    end
  end)

  it("is refused at load with a reprioritize that means nothing", function()
    for _, c in ipairs{
      {"0", "reprioritize must be seconds > 0 or {every = SECONDS, ends = true}"},
      {"{every = -5}", "reprioritize must be seconds > 0 or {every = SECONDS, ends = true}"},
      {"{ends = 1}", "reprioritize must be seconds > 0 or {every = SECONDS, ends = true}"},
      {"{}", "reprioritize must be seconds > 0 or {every = SECONDS, ends = true}"},
      {'"often"', "reprioritize must be seconds > 0 or {every = SECONDS, ends = true}"},
      {"{every = 5, at = 1}", "unknown field 'at' in reprioritize (every, ends)"},
    } do
      local q, msg, code = sim.queue.parse('return { base = "fcfs", reprioritize = ' .. c[1] ..
        ', priority = function() return 0 end }', "r.lua")
      assert.same({nil, "r.lua: " .. c[2], "EINVAL"}, {q, msg, code})
    end
    local q, msg = sim.queue.parse('return { base = "easy", reprioritize = 60 }', "n.lua")
    assert.is_nil(q)
    assert.equal("n.lua: reprioritize needs a priority (or a base that has one)", msg)
  end)

  it("takes its base's reprioritize with its base's priority, and only then", function()
    local q = assert(sim.queue.parse('return { base = "fairshare" }', "a.lua"))
    assert.same({every = 3600, ends = true}, q.reprioritize)
    q = assert(sim.queue.parse('return { base = "fairshare", reprioritize = 60 }', "b.lua"))
    assert.same({every = 60}, q.reprioritize)
    q = assert(sim.queue.parse(
      'return { base = "fairshare", priority = function() return 0 end }', "c.lua"))
    assert.is_nil(q.reprioritize)
  end)
end)
