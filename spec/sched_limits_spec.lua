-- Specs for limits in the scheduling loop (grove.limits, grove.sched):
-- what running jobs may hold per user, bank, queue and overall; a job
-- that would pass a limit waits and later jobs that fit start, a held job
-- is planned (when a policy plans it) only from the first start its
-- limits allow, a limit lowered below what runs stops nothing
-- and starts nothing until under it, a queue policy reads and sets them;
-- bad limits are refused naming the key.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, and must not be copied here.
local grove = require("grove")
local limits = require("grove.limits")
local sched = require("grove.sched")

-- Four nodes of four cores, two GPUs each.
local function machine()
  local R = grove.cluster.resources
  return grove.cluster "c" { R.node(4) { R.core(4), R.gpu(2) } }
end

local function loop_of(lim, opts)
  opts = opts or {}
  opts.graph = opts.graph or machine()
  opts.limits = lim and assert(limits.parse(lim, "limits", {names = true}))
  return assert(sched.new(opts))
end

-- A job: id, cores (or a jobspec table), estimate, user, and extras.
local function add(loop, id, procs, estimate, user, extra)
  local rec = {id = id, submit = id, estimate = estimate or 100, user = user}
  if type(procs) == "table" then rec.jobspec = procs else rec.procs = procs end
  for k, v in pairs(extra or {}) do rec[k] = v end
  loop.jobs[id] = rec
  assert.is_nil(sched.admissible(loop, rec))
  sched.enqueue(loop, rec)
  return rec
end

local function states(loop, n)
  local out = {}
  for i = 1, n do out[i] = loop.jobs[i] and loop.jobs[i].state or "gone" end
  return out
end

local function finish(loop, id)
  local rec = loop.jobs[id]
  sched.stop(loop, rec)
  sched.forget(loop, rec)
end

-- What the running jobs hold, summed per holder from the matcher (not
-- from the loop's own count).
local function held_by(loop, field, name, kind)
  local n = 0
  for _, rec in pairs(loop.jobs) do
    if rec.state == "running" and (field == nil or rec[field] == name) then
      if kind == "jobs" then
        n = n + 1
      else
        n = n + (loop.m:info(rec.id).counts[kind] or 0)
      end
    end
  end
  return n
end

describe("grove.limits.parse", function()
  it("reads every holder's limits", function()
    local L = assert(limits.parse({["max-running-jobs"] = 10, user = {["max-cores"] = 8},
      bank = {["max-nodes"] = 2}, users = {["7"] = {["max-cores"] = "unlimited"}},
      banks = {physics = {["max-gpus"] = 1}}, queues = {debug = {["max-nodes"] = 1}}},
      "[sched-grove.limits]", {queues = {debug = true}}))
    assert.equal(10, L.all.jobs)
    assert.equal(8, limits.limit_of(L, "user", 3, "core"))
    assert.is_nil(limits.limit_of(L, "user", 7, "core"))
    assert.equal(2, limits.limit_of(L, "bank", "chem", "node"))
    assert.equal(1, limits.limit_of(L, "bank", "physics", "gpu"))
    assert.equal(1, limits.limit_of(L, "queue", "debug", "node"))
    assert.same({["max-running-jobs"] = 10, user = {["max-cores"] = 8},
      bank = {["max-nodes"] = 2}, users = {["7"] = {["max-cores"] = "unlimited"}},
      banks = {physics = {["max-gpus"] = 1}}, queues = {debug = {["max-nodes"] = 1}}},
      limits.to_table(L))
  end)

  it("refuses an option it does not know, and takes every one it does", function()
    assert.has_error(function() limits.parse({}, "limits", {name = true}) end,
      "bad argument #3 to 'parse' (unknown option 'name' (did you mean 'names'?))")
    assert(limits.parse({}, "limits", {names = true, queues = {debug = true}}))
  end)

  it("refuses a wrong type, a negative limit, an unknown key, user or queue by name", function()
    local w = "[sched-grove.limits]"
    assert.same({nil, "[sched-grove.limits].user: max-cores=-1: a limit must be 0 or more "
      .. "(or \"unlimited\")"}, {limits.parse({user = {["max-cores"] = -1}}, w)})
    assert.same({nil, "[sched-grove.limits]: max-nodes=many: a whole number of nodes, 0 or "
      .. "more, or \"unlimited\" expected (got string)"},
      {limits.parse({["max-nodes"] = "many"}, w)})
    assert.same({nil, "[sched-grove.limits]: max-cores=1.5: a whole number of cores, 0 or "
      .. "more, or \"unlimited\" expected (got number)"},
      {limits.parse({["max-cores"] = 1.5}, w)})
    local ok, msg = limits.parse({["max-core"] = 1}, w)
    assert.is_nil(ok)
    assert.matches("^%[sched%-grove%.limits%]: unknown key 'max%-core' %(did you mean "
      .. "'max%-cores'%?%); the keys are ", msg)
    ok, msg = limits.parse({bank = {nodes = 1}}, w)
    assert.is_nil(ok)
    assert.matches("^%[sched%-grove%.limits%]%.bank: unknown key 'nodes'", msg)
    assert.same({nil, "[sched-grove.limits].users.no-such-user-here: unknown user "
      .. "'no-such-user-here' (no such name in /etc/passwd; a uid is taken as it is)"},
      {limits.parse({users = {["no-such-user-here"] = {["max-cores"] = 1}}}, w)})
    assert.same({nil, "[sched-grove.limits].queues.bach: no queue 'bach' (did you mean "
      .. "'batch'?) (the queues are batch)"},
      {limits.parse({queues = {bach = {["max-cores"] = 1}}}, w, {queues = {batch = true}})})
    assert.same({nil, "[sched-grove.limits].user: a table expected, got number"},
      {limits.parse({user = 3}, w)})
  end)
end)

describe("grove.sched with limits", function()
  it("holds a user's job past its max-cores and starts later jobs that fit", function()
    for _, q in ipairs{"fcfs", "easy", "conservative", "backfill"} do
      local loop = loop_of({user = {["max-cores"] = 8}}, {queue = q})
      add(loop, 1, 4, 100, 1)
      add(loop, 2, 4, 100, 1)
      add(loop, 3, 4, 100, 1)
      add(loop, 4, 4, 100, 2)
      assert.is_true(sched.pass(loop))
      assert.same({"running", "running", "queued", "running"}, states(loop, 4), q)
      -- conservative (and backfill, from the queue it read before the
      -- jobs ahead started) plan it where one of user 1's jobs ends; the
      -- others plan no held job
      local plans = q == "conservative" or q == "backfill"
      assert.equal(plans and 100 or nil, loop.jobs[3].reserved, q)
      assert.equal("held by user 1's limit max-cores=8: its running jobs hold 8 cores, "
        .. "this job would add 4 cores", limits.text(loop.jobs[3].limit_hold))
      -- one of user 1's jobs ends: the held one starts
      finish(loop, 1)
      sched.pass(loop)
      assert.equal("running", loop.jobs[3].state, q)
    end
  end)

  it("gives a held job no start the jobs behind it would wait for", function()
    -- user 1 holds 12 of 16 cores; its next job (4 cores) is held by
    -- max-cores=12.  Were it the head, or planned now, a 4-core job of
    -- user 2 running past the head's shadow time could not backfill.
    -- Conservative plans it for when user 1's job ends (its estimate),
    -- which leaves user 2's job its start now.
    for _, mode in ipairs{"planner", "counted"} do
      for _, q in ipairs{"easy", "conservative", "fcfs", "backfill", "queues"} do
        local loop = loop_of({user = {["max-cores"] = 12}}, {queue = q, reservations = mode})
        add(loop, 1, 12, 100, 1)
        add(loop, 2, 4, 100, 1)
        add(loop, 3, 4, 500, 2)
        assert.is_true(sched.pass(loop))
        assert.same({"running", "queued", "running"}, states(loop, 3), q)
        -- (backfill plans the jobs of the queue it read before job 1
        -- started: job 2 too, where the limit allows it)
        local plans = q == "conservative" or q == "backfill"
        assert.equal(plans and 1 or 0, loop.nreserved, q)
        assert.equal(plans and 100 or nil, loop.jobs[2].reserved, q)
      end
    end
  end)

  it("plans a holder's waiting jobs one after another by its limit, each estimate counting "
    .. "the ones before it", function()
    -- user 1 may run one job; its job 1 runs until 100; its jobs 2, 3
    -- and 4 would all fit now, but start one after another: 100, 200
    -- (job 2 estimated 100), 250 (job 3 estimated 50).  User 2's job
    -- starts now beside them.
    for _, mode in ipairs{"planner", "counted"} do
      local loop = loop_of({user = {["max-running-jobs"] = 1}},
        {queue = "conservative", reservations = mode})
      add(loop, 1, 4, 100, 1)
      add(loop, 2, 4, 100, 1)
      add(loop, 3, 4, 50, 1)
      add(loop, 4, 4, 100, 1)
      add(loop, 5, 4, 500, 2)
      assert.is_true(sched.pass(loop))
      assert.same({"running", "queued", "queued", "queued", "running"}, states(loop, 5), mode)
      assert.same({100, 200, 250}, {loop.jobs[2].reserved, loop.jobs[3].reserved,
        loop.jobs[4].reserved}, mode)
      -- ctx:earliest of a job no policy planned counts the limit too
      local easy = loop_of({user = {["max-running-jobs"] = 1}}, {queue = "easy",
        reservations = mode})
      add(easy, 1, 4, 100, 1)
      add(easy, 2, 4, 100, 1)
      assert.is_true(sched.pass(easy))
      assert.equal(100, easy.ctx.earliest(nil, easy.jobs[2].view), mode)
      -- the jobs start at their planned starts as the ones before end
      for _, id in ipairs{1, 2, 3} do
        sched.set_now(loop, loop.jobs[id].est_end)
        finish(loop, id)
        sched.pass(loop)
        assert.equal("running", loop.jobs[id + 1].state, mode)
        assert.equal(1, held_by(loop, "user", 1, "jobs"), mode)
      end
    end
  end)

  it("counts a limit over time per amount: cores of a bank held by running and planned "
    .. "jobs", function()
    -- bank a may hold 8 cores: job 1 (8 cores) runs until 100; jobs 2 (4
    -- cores, 100) and 3 (4 cores, 300) share the bank's cores from 100;
    -- job 4 (8 cores) waits for both to end: 400
    local loop = loop_of({bank = {["max-cores"] = 8}}, {queue = "conservative",
      reservations = "planner"})
    add(loop, 1, 8, 100, 1, {bank = "a"})
    add(loop, 2, 4, 100, 2, {bank = "a"})
    add(loop, 3, 4, 300, 3, {bank = "a"})
    add(loop, 4, 8, 100, 4, {bank = "a"})
    add(loop, 5, 8, 100, 5, {bank = "b"})
    assert.is_true(sched.pass(loop))
    assert.same({100, 100, 400}, {loop.jobs[2].reserved, loop.jobs[3].reserved,
      loop.jobs[4].reserved})
    assert.equal("running", loop.jobs[5].state)
  end)

  it("backfills past a held job while protecting the real head", function()
    local loop = loop_of({user = {["max-running-jobs"] = 1}}, {queue = "easy"})
    add(loop, 1, 8, 100, 1)     -- runs
    add(loop, 2, 4, 100, 1)     -- held (user 1 runs one job)
    add(loop, 3, 16, 100, 2)    -- the head: the whole machine at 100
    add(loop, 4, 4, 50, 3)      -- ends before 100: backfills
    add(loop, 5, 4, 500, 4)     -- would delay the head: waits
    assert.is_true(sched.pass(loop))
    assert.same({"running", "queued", "queued", "running", "queued"}, states(loop, 5))
  end)

  it("says a job that alone asks more than a limit cannot start under it, and passes it "
    .. "over at the cost of a field", function()
    local loop = loop_of({user = {["max-cores"] = 8}})
    add(loop, 1, 12, 100, 1)
    add(loop, 2, 4, 100, 1)
    sched.pass(loop)
    assert.same({"queued", "running"}, states(loop, 2))
    assert.equal("held by user 1's limit max-cores=8: this job alone asks 12 cores: it cannot "
      .. "start while the limit stands", limits.text(loop.jobs[1].limit_hold))
    assert.is_true(loop.jobs[1].hc_ever)
    -- kept while what is held changes; asked again when the limits do
    finish(loop, 2)
    sched.pass(loop)
    assert.is_true(loop.jobs[1].hc_ever)
    sched.set_limits(loop, assert(limits.parse({user = {["max-cores"] = 16}})))
    sched.pass(loop)
    assert.equal("running", loop.jobs[1].state)
  end)

  it("counts per bank, per queue and overall", function()
    local loop = loop_of({bank = {["max-cores"] = 4}, queues = {debug = {["max-running-jobs"] = 1}},
      ["max-running-jobs"] = 4})
    add(loop, 1, 4, 100, 1, {bank = "a"})
    add(loop, 2, 4, 100, 2, {bank = "a"})      -- bank a is full
    add(loop, 3, 1, 100, 3, {queue = "debug"})
    add(loop, 4, 1, 100, 4, {queue = "debug"}) -- debug runs one
    add(loop, 5, 1, 100, 5)
    add(loop, 6, 1, 100, 6)
    add(loop, 7, 1, 100, 7)                    -- four run already
    sched.pass(loop)
    assert.same({"running", "queued", "running", "queued", "running", "running", "queued"},
      states(loop, 7))
    assert.matches("^held by bank a's limit max%-cores=4", limits.text(loop.jobs[2].limit_hold))
    assert.matches("^held by queue debug's limit max%-running%-jobs=1: 1 of its jobs run",
      limits.text(loop.jobs[4].limit_hold))
    assert.matches("^held by the instance's limit max%-running%-jobs=4: 4 of the instance's "
      .. "jobs run", limits.text(loop.jobs[7].limit_hold))
  end)

  it("counts nodes and GPUs by what the match gave", function()
    local js1 = grove.jobspec{nodes = 2, cores_per_node = 1, gpus_per_node = 1}
    local js2 = grove.jobspec{slots = 1, cores_per_slot = 1}
    local loop = loop_of({user = {["max-nodes"] = 2, ["max-gpus"] = 2}})
    add(loop, 1, js1, 100, 1)
    add(loop, 2, js2, 100, 1)    -- a third node: held
    add(loop, 3, js2, 100, 2)
    sched.pass(loop)
    assert.same({"running", "queued", "running"}, states(loop, 3))
    assert.equal(2, held_by(loop, "user", 1, "node"))
    assert.matches("max%-nodes=2: its running jobs hold 2 nodes, this job would add at least "
      .. "1 node$", limits.text(loop.jobs[2].limit_hold))
  end)

  it("keeps running jobs under a lowered limit and starts none until under it", function()
    local loop = loop_of({user = {["max-cores"] = 16}})
    for i = 1, 4 do add(loop, i, 4, 100, 1) end
    sched.pass(loop)
    assert.same({"running", "running", "running", "running"}, states(loop, 4))
    add(loop, 5, 4, 100, 1)
    add(loop, 6, 4, 100, 2)
    sched.set_limits(loop, assert(limits.parse({user = {["max-cores"] = 8}})))
    finish(loop, 1)
    sched.pass(loop)
    -- 12 cores still held, over 8: user 1's job waits, user 2's starts
    assert.same({"gone", "running", "running", "running", "queued", "running"},
      states(loop, 6))
    finish(loop, 2)
    sched.pass(loop)
    assert.equal("queued", loop.jobs[5].state)  -- 8 held: 8 + 4 > 8
    finish(loop, 3)
    sched.pass(loop)
    assert.equal("running", loop.jobs[5].state)
    assert.equal(8, held_by(loop, "user", 1, "core"))
    -- no limits: the count goes, and comes back from the matcher
    sched.set_limits(loop, nil)
    assert.is_nil(loop.lim_count)
    sched.set_limits(loop, assert(limits.parse({user = {["max-cores"] = 8}})))
    assert.equal(8, limits.held(loop.lim_count, "user", 1).core)
  end)

  it("drops the reservation of a job that a limit holds since it was planned, when the "
    .. "limit refuses its start", function()
    for _, q in ipairs{"conservative", "backfill"} do
      local loop = loop_of(nil, {queue = q, reservations = "planner"})
      add(loop, 1, 16, 100, 1)
      add(loop, 2, 16, 100, 1)
      add(loop, 3, 4, 100, 2)
      sched.pass(loop)
      assert.equal(100, loop.jobs[2].reserved, q)
      -- the limit allows it at 100 (user 1's job ends then): conservative
      -- keeps it (backfill plans again without the job a limit holds)
      sched.set_limits(loop, assert(limits.parse({user = {["max-running-jobs"] = 1}})))
      sched.pass(loop)
      assert.equal(q == "conservative" and 100 or nil, loop.jobs[2].reserved, q)
      assert.equal(q == "conservative" and 200 or 100, loop.jobs[3].reserved, q)
      -- none may run: dropped, and the job behind it moves up
      sched.set_limits(loop, assert(limits.parse({users = {["1"] = {["max-running-jobs"] = 0}}},
        "limits", {names = true})))
      sched.pass(loop)
      assert.is_nil(loop.jobs[2].reserved, q)
      assert.equal(100, loop.jobs[3].reserved, q)
    end
  end)

  it("drops a held job's reservation whose start came while its holder still holds it",
    function()
    -- user 1's job 1 was estimated to end at 100, but runs on (a driver
    -- holds a job past its end until its free): at 100 job 2 is still held
    local loop = loop_of({user = {["max-running-jobs"] = 1}}, {queue = "conservative",
      reservations = "planner"})
    add(loop, 1, 4, 100, 1)
    add(loop, 2, 4, 100, 1)
    sched.pass(loop)
    assert.equal(100, loop.jobs[2].reserved)
    sched.set_now(loop, 100)
    assert.equal(1, sched.drop_held(loop))
    assert.is_nil(loop.jobs[2].reserved)
    sched.pass(loop)
    assert.equal("queued", loop.jobs[2].state)
    assert.equal(1, held_by(loop, "user", 1, "jobs"))
  end)

  it("refuses an early start of a planned job a limit came to hold, planning it again where "
    .. "the limit allows", function()
    local loop = loop_of(nil, {queue = "conservative", reservations = "planner"})
    add(loop, 1, 16, 100, 1)
    add(loop, 2, 4, 100, 1)
    sched.pass(loop)
    assert.equal(100, loop.jobs[2].reserved)
    sched.set_limits(loop, assert(limits.parse({user = {["max-running-jobs"] = 1}})))
    assert.is_false(loop.ctx.start(nil, loop.jobs[2].view))
    assert.equal(100, loop.jobs[2].reserved)
    assert.equal("queued", loop.jobs[2].state)
    sched.set_limits(loop, assert(limits.parse({user = {["max-running-jobs"] = 0}})))
    assert.is_false(loop.ctx.start(nil, loop.jobs[2].view))
    assert.is_nil(loop.jobs[2].reserved)
  end)

  it("never starts a job that takes a holder past a limit, under a stream", function()
    -- every job a pass starts leaves its user and bank within the limits
    -- in force; a limit lowered mid-stream stops nothing that runs
    -- (and every planned start is one the limits allow when it is made)
    for _, run in ipairs{{"easy", "counted"}, {"conservative", "planner"},
      {"conservative", "counted"}, {"backfill", "planner"}} do
    local cap, bank_jobs = 6, 3
    local loop = loop_of({user = {["max-cores"] = cap}, bank = {["max-running-jobs"] = bank_jobs}},
      {queue = run[1], reservations = run[2]})
    local id, started, planned = 0, 0, 0
    math.randomseed(7)
    local rand = math.random
    for step = 1, 300 do
      if rand(3) > 1 then
        id = id + 1
        add(loop, id, rand(4), 10 * rand(10), rand(3), {bank = rand(2) == 1 and "a" or "b"})
      end
      local running = {}
      for _, rec in pairs(loop.jobs) do
        if rec.state == "running" then running[#running + 1] = rec end
      end
      table.sort(running, function(a, b) return a.id < b.id end)
      -- a job ends at its estimated end at the latest (as in a
      -- simulation), or at random before it
      for i = #running, 1, -1 do
        if running[i].est_end <= loop.now then
          finish(loop, running[i].id)
          table.remove(running, i)
        end
      end
      if #running > 0 and rand(2) == 1 then finish(loop, running[rand(#running)].id) end
      if step == 150 then
        cap, bank_jobs = 3, 1
        sched.set_limits(loop, assert(limits.parse({user = {["max-cores"] = cap},
          bank = {["max-running-jobs"] = bank_jobs}})))
      end
      local before = {}
      for _, rec in pairs(loop.jobs) do before[rec] = rec.state end
      sched.pass(loop)
      for _, rec in pairs(loop.jobs) do
        if rec.state == "running" and before[rec] == "queued" then
          started = started + 1
          assert.is_true(held_by(loop, "user", rec.user, "core") <= cap, step)
          assert.is_true(held_by(loop, "bank", rec.bank, "jobs") <= bank_jobs, step)
        end
      end
      for _, rec in pairs(loop.reserved_set) do
        if rec.reserved >= loop.now then
          planned = planned + 1
          assert.equal(rec.reserved, sched.limit_start(loop, rec, rec.reserved),
            run[1] .. " " .. run[2] .. " " .. step)
        end
      end
      local t = loop.now + rand(0, 20)
      for _, rec in pairs(loop.jobs) do
        if rec.state == "running" and rec.est_end < t then t = rec.est_end end
      end
      sched.set_now(loop, t)
    end
    assert.is_true(started > 100, run[1] .. " " .. run[2] .. " started " .. started)
    assert.is_true(run[1] == "easy" or planned > 10, run[1] .. " " .. planned)
    end
  end)

  it("lists held jobs only when ctx:queue is asked for them, and refuses another word",
    function()
    local loop = loop_of({user = {["max-running-jobs"] = 1}}, {queue = "easy"})
    add(loop, 1, 4, 100, 1)
    add(loop, 2, 4, 100, 1)
    add(loop, 3, 16, 100, 2)   -- waits for room: no limit holds it
    sched.pass(loop)
    local function ids(list)
      local out = {}
      for i, v in ipairs(list) do out[i] = v.id end
      return out
    end
    assert.same({3}, ids(loop.ctx.queue(nil)))
    assert.same({2, 3}, ids(loop.ctx.queue(nil, "held")))
    assert.has_error(function() loop.ctx.queue(nil, "all") end,
      "bad argument #1 to 'queue' (nil or \"held\" expected)")
    -- a job that alone asks more than a limit is not listed even then
    sched.set_limits(loop, assert(limits.parse({users = {["1"] = {["max-cores"] = 2}}},
      "limits", {names = true})))
    assert.same({3}, ids(loop.ctx.queue(nil, "held")))
  end)

  it("lets a queue policy read and set the limits through ctx", function()
    local loop = loop_of({user = {["max-running-jobs"] = 1}})
    assert.same({user = {["max-running-jobs"] = 1}}, loop.ctx.limits())
    assert.same({nil, "ctx:set_limits: max-nodes=-2: a limit must be 0 or more (or "
      .. "\"unlimited\")"}, {loop.ctx.set_limits(nil, {["max-nodes"] = -2})})
    assert.same({user = {["max-running-jobs"] = 1}}, loop.ctx.limits())
    assert.is_true(loop.ctx.set_limits(nil, {user = {["max-running-jobs"] = 2}}))
    add(loop, 1, 1, 100, 1)
    add(loop, 2, 1, 100, 1)
    add(loop, 3, 1, 100, 1)
    sched.pass(loop)
    assert.same({"running", "running", "queued"}, states(loop, 3))
    assert.equal("held by user 1's limit max-running-jobs=2: 2 of its jobs run",
      loop.ctx.held(nil, loop.jobs[3].view))
    -- (its earliest start counts the limit: when one of user 1's ends)
    assert.equal(100, loop.ctx.earliest(nil, loop.jobs[3].view))
  end)

  it("runs a policy file that sets limits in its sandbox", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write([[
return {
  name = "capped",
  schedule = function(ctx)
    local l = ctx:limits()
    if not l.user then
      l.user = {["max-cores"] = ctx:param("cap", 4)}
      assert(ctx:set_limits(l))
    end
    local job = ctx:next()
    while job do
      local after = ctx:next(job)
      ctx:start(job)
      job = after
    end
  end,
}
]])
    f:close()
    local loop = loop_of(nil, {queue = path, params = {cap = 8}})
    os.remove(path)
    for i = 1, 4 do add(loop, i, 4, 100, 1) end
    assert.is_true(sched.pass(loop))
    assert.same({"running", "running", "queued", "queued"}, states(loop, 4))
    assert.same({user = {["max-cores"] = 8}}, loop.ctx.limits())
  end)
end)

describe("grove sim with limits", function()
  local sim = require("grove.sim")
  local exe = require("exe_helper")

  it("holds jobs by the same limits in a simulation", function()
    local rows = {}
    local s = assert(sim.new{graph = machine(), queue = "easy",
      limits = {user = {["max-cores"] = 8}, banks = {chem = {["max-running-jobs"] = 1}}},
      out = function(r) rows[r.id] = r end})
    s:submit{id = 1, submit = 0, run = 100, estimate = 100, procs = 8, user = "alice",
      bank = "chem"}
    s:submit{id = 2, submit = 1, run = 100, estimate = 100, procs = 8, user = "alice",
      bank = "chem"}
    s:submit{id = 3, submit = 2, run = 100, estimate = 100, procs = 8, user = "bob"}
    s:submit{id = 4, submit = 3, run = 100, estimate = 100, procs = 4, user = "carol",
      bank = "chem"}
    s:run()
    assert.same({0, 100, 2, 200}, {rows[1].start, rows[2].start, rows[3].start,
      rows[4].start})
    assert.same({nil, "limits.user: max-cores=-1: a limit must be 0 or more (or "
      .. "\"unlimited\")", "EINVAL"}, {sim.new{graph = machine(),
      limits = {user = {["max-cores"] = -1}}}})
  end)

  it("gives held jobs the start estimates their limits allow in a simulation, with one "
    .. "conservative policy or one per queue", function()
    -- alice may run one job: her jobs 2 and 3 are estimated at 100 and
    -- 200 when they arrive, and start then; bob's job 4 starts at once
    for _, params in ipairs{{}, {policy_1 = "conservative", policy_2 = "conservative"}} do
      local rows = {}
      local s = assert(sim.new{graph = machine(), queue = "conservative", params = params,
        limits = {user = {["max-running-jobs"] = 1}}, out = function(r) rows[r.id] = r end})
      s:submit{id = 1, submit = 0, run = 100, estimate = 100, procs = 4, user = "alice",
        queue = 1}
      s:submit{id = 2, submit = 1, run = 100, estimate = 100, procs = 4, user = "alice",
        queue = 1}
      s:submit{id = 3, submit = 2, run = 100, estimate = 100, procs = 4, user = "alice",
        queue = 2}
      s:submit{id = 4, submit = 3, run = 100, estimate = 100, procs = 4, user = "bob",
        queue = 2}
      s:run()
      local key = next(params) and "per queue" or "one policy"
      assert.same({0, 100, 200, 3}, {rows[1].start, rows[2].start, rows[3].start,
        rows[4].start}, key)
      assert.same({100, 200}, {rows[2].predicted_first, rows[3].predicted_first}, key)
    end
  end)

  it("reads --limits from a JSON or a Lua file, and refuses a bad one naming it", function()
    local dir = exe.scratch_dir()
    exe.write(dir .. "/t.json", '[{"id":1,"submit":0,"run":100,"estimate":100,"procs":8,'
      .. '"user":"alice"},{"id":2,"submit":1,"run":100,"estimate":100,"procs":8,'
      .. '"user":"alice"},{"id":3,"submit":2,"run":100,"estimate":100,"procs":8,'
      .. '"user":"bob"}]')
    exe.write(dir .. "/c.lua", 'local c = require("grove.cluster")\n'
      .. 'return c "c" { c.resources.node(4) { c.resources.core(8) } }\n')
    exe.write(dir .. "/l.json", '{"user": {"max-cores": 8}}')
    exe.write(dir .. "/l.lua", 'return {users = {alice = {["max-cores"] = 8}}}')
    exe.write(dir .. "/bad.json", '{"user": {"max-cores": 8, "max-core": 1}}')
    local base = exe.GROVE .. " sim --quiet --queue easy --trace " .. dir .. "/t.json --cluster "
      .. dir .. "/c.lua --out " .. dir .. "/o.csv"
    for _, f in ipairs{"l.json", "l.lua"} do
      local out, rc = exe.run(base .. " --limits " .. dir .. "/" .. f)
      assert.equal(0, rc, out)
      local starts = {}
      for id, start in exe.read(dir .. "/o.csv"):gmatch("\n(%d+),%d+,(%d+),") do
        starts[tonumber(id)] = tonumber(start)
      end
      assert.same({0, 100, 2}, starts, f)
    end
    local out, rc = exe.run(base .. " --limits " .. dir .. "/bad.json")
    assert.equal(1, rc)
    assert.matches("grove sim: " .. (dir .. "/bad.json"):gsub("%p", "%%%0") .. ": limits.user: "
      .. "unknown key 'max%-core' %(did you mean 'max%-cores'%?%)", out)
    os.execute("rm -rf '" .. dir .. "'")
  end)
end)
