-- Specs for grove.flux: RFC 27 and RFC 28 message sequences, written as
-- JSON text as the broker sends them, and the actions that come back
-- (JSON out through flux.payload).  No Flux is needed.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, and must not be copied here.
local core = require("grove.core")
local flux = require("grove.flux")

local h = require("flux_helper")
local R_text, jobspec, alloc, session = h.R_text, h.jobspec, h.alloc, h.session
local by_id, ranks_of = h.by_id, h.ranks_of
local fmt = string.format

-- A conservative session at time 1000 running job 1 (n1 nodes of 4
-- cores for 100 s) with job 2 (n2 nodes) reserved at 1100.
-- The duration of the jobspec text as the loop keeps it decoded.
local function sched_duration(s, text)
  return require("grove.sched").jobspec_table(s.loop, text).attributes.system.duration
end

local function running_and_reserved(n1, n2)
  local s = session{queue = "conservative"}
  s:handle("sched.alloc", alloc(1, jobspec(n1, 4, 100)))
  local acts = s:handle("sched.alloc", alloc(2, jobspec(n2, 4, 100)))
  assert.equal(1100, by_id(acts, "alloc", "annotate")[2].annotations.sched.t_estimate)
  return s
end

describe("grove.flux", function()
  it("releases a shrunk rank when the job holding it ends, not before", function()
    local s = session()
    local acts = s:handle("sched.alloc", alloc(1, jobspec(2, 4, 100)))
    local R1 = by_id(acts, "alloc", "success")[1].R
    assert.equal("0-1", ranks_of(by_id(acts, "alloc", "success")[1]))
    acts = s:handle("resource.acquire", '{"shrink":"1"}')
    assert.same({}, by_id(acts, "release"))
    assert.equal("1", s.acq:targets("pending"))
    -- held: rank 1 stays until job 1 ends
    s:handle("sched.free", ('{"id":1,"R":%s,"final":true}'):format(R1))
    assert.equal("", s.acq:targets("pending"))
    -- one rank left: two nodes' worth never fits, one does
    acts = s:handle("sched.alloc", alloc(2, jobspec(1, 4, 100)))
    assert.equal("0", ranks_of(by_id(acts, "alloc", "success")[2]))
    acts = s:handle("sched.alloc", alloc(3, jobspec(1, 4, 100)))
    assert.is_nil(by_id(acts, "alloc", "success")[3])
  end)

  it("denies a waiting job a shrink leaves unable to ever run, and starts those behind it",
    function()
    local s = session()
    local acts = s:handle("sched.alloc", alloc(1, jobspec(2, 4, 100)))
    local R1 = by_id(acts, "alloc", "success")[1].R
    s:handle("sched.alloc", alloc(2, jobspec(2, 4, 100)))
    s:handle("sched.alloc", alloc(3, jobspec(1, 4, 100)))
    -- rank 1 is still held by job 1: the set has not shrunk yet
    acts = s:handle("resource.acquire", '{"down":"1","shrink":"1"}')
    assert.same({}, by_id(acts, "alloc", "deny"))
    assert.equal(2, s:stats().queue_length)
    -- job 1 ends: rank 1 goes, job 2 (two nodes) can never run, job 3 starts
    acts = s:handle("sched.free", ('{"id":1,"R":%s,"final":true}'):format(R1))
    assert.equal("unsatisfiable request: 8 cores requested: the graph has 4",
      by_id(acts, "alloc", "deny")[2].note)
    assert.equal("0", ranks_of(by_id(acts, "alloc", "success")[3]))
    assert.equal(0, s:stats().queue_length)
    -- a shrink that takes effect at once denies in its own response
    s = session(nil, R_text("0-2", "n[0-2]"), "0-2")
    acts = s:handle("sched.alloc", alloc(4, jobspec(1, 4, 100)))
    assert.equal("0", ranks_of(by_id(acts, "alloc", "success")[4]))
    s:handle("sched.alloc", alloc(5, jobspec(3, 4, 100)))
    s:handle("sched.alloc", alloc(6, jobspec(2, 4, 100)))
    acts = s:handle("resource.acquire", '{"down":"2","shrink":"2"}')
    assert.equal("unsatisfiable request: 12 cores requested: the graph has 8",
      by_id(acts, "alloc", "deny")[5].note)
    assert.is_nil(by_id(acts, "alloc", "deny")[6])
    assert.equal(1, s:stats().queue_length)
  end)

  it("plans conservative's reservations again when a job ends before its estimate",
    function()
    local s, clock = session{queue = "conservative"}
    local acts = s:handle("sched.alloc", alloc(1, jobspec(2, 4, 3600)))
    local R1 = by_id(acts, "alloc", "success")[1].R
    acts = s:handle("sched.alloc", alloc(2, jobspec(1, 4, 100)))
    assert.equal(4600, by_id(acts, "alloc", "annotate")[2].annotations.sched.t_estimate)
    acts = s:handle("sched.alloc", alloc(3, jobspec(2, 4, 100)))
    assert.equal(4700, by_id(acts, "alloc", "annotate")[3].annotations.sched.t_estimate)
    -- job 1 ends 3,590 s early: job 2 starts now, not at its old
    -- reservation, and job 3 is reserved at job 2's end
    clock.t = 1010
    acts = s:handle("sched.free", ('{"id":1,"R":%s,"final":true}'):format(R1))
    assert.truthy(by_id(acts, "alloc", "success")[2])
    assert.equal(1110, by_id(acts, "alloc", "annotate")[3].annotations.sched.t_estimate)
  end)

  it("starts jobs from alloc and frees them (JSON in, JSON out)", function()
    local s, clock, acts = session()
    assert.same({}, acts)
    acts = s:handle("sched.alloc", alloc(1, jobspec(1, 4, 100)))
    assert.equal(1, #acts)
    local payload = core.json_decode(flux.payload(acts[1]))
    assert.equal(1, payload.id)
    assert.equal(flux.SUCCESS, payload.type)
    assert.equal("0", payload.R.execution.R_lite[1].rank)
    assert.equal(1000, payload.R.execution.starttime)
    assert.equal(1100, payload.R.execution.expiration)
    assert.equal("rank0/core[0-3]", payload.annotations.sched.resource_summary)
    acts = s:handle("sched.alloc", alloc(2, jobspec(1, 4, 100)))
    assert.equal("1", ranks_of(by_id(acts, "alloc", "success")[2]))
    acts = s:handle("sched.alloc", alloc(3, jobspec(1, 4, 100)))
    assert.is_nil(by_id(acts, "alloc", "success")[3])
    clock.t = 1050
    acts = s:handle("sched.free", '{"id":1,"R":' .. R_text("0", "n0") .. ',"final":true}')
    assert.equal("0", ranks_of(by_id(acts, "alloc", "success")[3]))
    local st = s:stats()
    assert.equal(3, st.jobs_matched)
    assert.equal(0, st.queue_length)
    assert.equal(2, st.running)
    assert.is_true(st.match_time.max >= st.match_time.min)
    -- the last matches' distribution: every timed match so far
    local d = st.match_dist
    assert.is_true(d.n >= 3)
    assert.is_true(d.p50_us <= d.p99_us and d.p99_us <= d.max_us)
    assert.is_true(math.abs(d.max_us - st.match_time.max * 1e6) < 1e-3)
  end)

  it("denies a job that can never run, with the reason", function()
    local s = session()
    local acts = s:handle("sched.alloc", alloc(7, jobspec(1, 5, 100)))
    assert.same({{op = "alloc", id = 7, type = "deny",
      note = "unsatisfiable request: no node holds a slot of 5 cores: largest has 4"}}, acts)
    assert.same({id = 7, type = flux.DENY,
      note = "unsatisfiable request: no node holds a slot of 5 cores: largest has 4"},
      core.json_decode(flux.payload(acts[1])))
    acts = s:handle("sched.alloc", '{"id":8,"priority":1,"userid":1,"t_submit":1}')
    assert.equal("deny", acts[1].type)
    assert.equal(0, s:stats().queue_length)
  end)

  it("annotates a waiting job with t_estimate and clears it when it starts", function()
    local s, clock = session{queue = "conservative"}
    s:handle("sched.alloc", alloc(1, jobspec(2, 4, 100)))
    local acts = s:handle("sched.alloc", alloc(2, jobspec(1, 4, 50)))
    local a = by_id(acts, "alloc", "annotate")[2]
    assert.equal(1100, a.annotations.sched.t_estimate)
    clock.t = 1100
    acts = s:handle("sched.free", '{"id":1,"R":' .. R_text("0-1", "n[0-1]") .. ',"final":true}')
    local ok = by_id(acts, "alloc", "success")[2]
    assert.equal(core.null, ok.annotations.sched.t_estimate)
    assert.truthy(flux.payload(ok):find('"t_estimate":%s*null'))
  end)

  it("writes the start estimates a job was shown with its start (sched.estimated)", function()
    -- only when asked (record-estimates): flux-core's tests compare a
    -- started job's annotations whole
    local s0, clock0 = session{queue = "conservative"}
    s0:handle("sched.alloc", alloc(1, jobspec(2, 4, 100)))
    s0:handle("sched.alloc", alloc(2, jobspec(2, 4, 50)))
    clock0.t = 1040
    local acts0 = s0:handle("sched.free",
      '{"id":1,"R":' .. R_text("0-1", "n[0-1]") .. ',"final":true}')
    local ann0 = by_id(acts0, "alloc", "success")[2].annotations.sched
    assert.equal("rank[0-1]/core[0-3]", ann0.resource_summary)
    assert.is_nil(ann0.estimated)
    local s, clock = session{queue = "conservative", record_estimates = true}
    -- a job that never waited was shown none, and says nothing of it
    local acts = s:handle("sched.alloc", alloc(1, jobspec(2, 4, 100)))
    assert.is_nil(by_id(acts, "alloc", "success")[1].annotations.sched.estimated)
    -- job 2 waits behind job 1 (estimate 1100), job 3 behind both (1150)
    acts = s:handle("sched.alloc", alloc(2, jobspec(2, 4, 50)))
    assert.equal(1100, by_id(acts, "alloc", "annotate")[2].annotations.sched.t_estimate)
    clock.t = 1010
    acts = s:handle("sched.alloc", alloc(3, jobspec(2, 4, 50)))
    assert.equal(1150, by_id(acts, "alloc", "annotate")[3].annotations.sched.t_estimate)
    -- job 1 ends early: 2 starts, 3's estimate moves to 2's end (1090)
    clock.t = 1040
    acts = s:handle("sched.free", '{"id":1,"R":' .. R_text("0-1", "n[0-1]") .. ',"final":true}')
    local ok = by_id(acts, "alloc", "success")[2]
    assert.same({first = 1100, first_at = 1000, last = 1100, last_at = 1000, count = 1},
      ok.annotations.sched.estimated)
    assert.equal(1090, by_id(acts, "alloc", "annotate")[3].annotations.sched.t_estimate)
    clock.t = 1090
    acts = s:handle("sched.free", '{"id":2,"R":' .. R_text("0-1", "n[0-1]") .. ',"final":true}')
    ok = by_id(acts, "alloc", "success")[3]
    assert.same({first = 1150, first_at = 1010, last = 1090, last_at = 1040, count = 2},
      ok.annotations.sched.estimated)
    assert.truthy(flux.payload(ok):find('"estimated":', 1, true))
  end)

  it("annotates a waiting job when what it shows changes, and only then", function()
    local s, clock = session()
    s:handle("sched.alloc", alloc(1, jobspec(2, 4, 100)))
    local acts = s:handle("sched.alloc", alloc(2, jobspec(1, 4, 100)))
    assert.same({{op = "alloc", id = 2, type = "annotate",
      annotations = {sched = {t_estimate = 1100, reason_pending = "insufficient resources"}}}},
      acts)
    -- a job behind the head: its own estimate, after the head's (fcfs
    -- starts jobs in order), the head's unchanged
    acts = s:handle("sched.alloc", alloc(3, jobspec(2, 4, 100)))
    assert.same({{op = "alloc", id = 3, type = "annotate",
      annotations = {sched = {t_estimate = 1200, reason_pending = "insufficient resources"}}}},
      acts)
    -- nothing changed: a pass is not run again, nothing is told
    assert.same({}, s:schedule())
    clock.t = 1001
    assert.same({}, s:schedule())
    -- the head leaves: the next one's estimate moves up
    acts = s:handle("sched.cancel", '{"id":2}')
    assert.same({{op = "alloc", id = 2, type = "cancel"},
      {op = "alloc", id = 3, type = "annotate", annotations = {sched = {t_estimate = 1100}}}},
      acts)
    -- the stats count them: three allocs, three annotations sent
    assert.same({3, 3}, {s:stats().allocs, s:stats().annotations_sent})
    -- and every pass's time: the acquire's, three allocs', the cancel's,
    -- and the one the clock's move made (none for a schedule call with
    -- nothing to do)
    for _, key in ipairs({"pass_time", "pass_cpu"}) do
      local pt = s:stats()[key]
      assert.equal(6, pt.n)
      assert.is_true(pt.p50_us >= 0 and pt.p99_us >= pt.p50_us and pt.max_us >= pt.p99_us)
    end
  end)

  it("times a pass's own CPU apart from its wall time (core.thread_clock)", function()
    -- the thread's CPU advances with its work, not while it waits on a
    -- child (which a pass waiting for a CPU the broker's other threads
    -- hold is like)
    local c0, w0 = core.thread_clock(), core.wall_clock()
    assert.is_true(os.execute("sleep 0.3"))
    local waited, spent = core.wall_clock() - w0, core.thread_clock() - c0
    assert.is_true(waited >= 0.29, waited)
    assert.is_true(spent < waited / 2, spent)
    c0 = core.thread_clock()
    local x = 0
    for i = 1, 2e6 do x = x + i % 7 end
    assert.is_true(x > 0 and core.thread_clock() > c0)
  end)

  it("denies a job that can never run once a pass could not start it", function()
    -- under priority order it goes first; the job behind it still starts
    local s = session()
    s:handle("sched.alloc", alloc(1, jobspec(1, 4, 100)))
    local acts = s:handle("sched.alloc", alloc(7, jobspec(3, 4, 100), 99))
    assert.same({{op = "alloc", id = 7, type = "deny", note = "unsatisfiable request: "
      .. "12 cores requested: the graph has 8"}}, acts)
    acts = s:handle("sched.alloc", alloc(2, jobspec(1, 4, 100)))
    assert.equal("success", acts[1].type)
    assert.equal(0, s:stats().queue_length)
  end)

  it("answers cancel of a waiting job with an alloc response of type cancel", function()
    local s = session()
    s:handle("sched.alloc", alloc(1, jobspec(2, 4, 100)))
    s:handle("sched.alloc", alloc(2, jobspec(1, 4, 100)))
    local acts = s:handle("sched.cancel", '{"id":2}')
    assert.same({{op = "alloc", id = 2, type = "cancel"}}, acts)
    assert.equal(0, s:stats().queue_length)
    -- a running job's cancel is not the scheduler's: nothing
    assert.same({}, s:handle("sched.cancel", '{"id":1}'))
    assert.same({}, s:handle("sched.cancel", '{"id":99}'))
  end)

  it("reorders the queue on prioritize", function()
    local s, clock = session()
    s:handle("sched.alloc", alloc(1, jobspec(2, 4, 100)))
    s:handle("sched.alloc", alloc(2, jobspec(1, 4, 100)))
    s:handle("sched.alloc", alloc(3, jobspec(2, 4, 100)))
    s:handle("sched.prioritize", '{"jobs":[[3,31],[2,0]]}')
    clock.t = 1100
    local acts = s:handle("sched.free", '{"id":1,"R":' .. R_text("0-1", "n[0-1]")
      .. ',"final":true}')
    local started = by_id(acts, "alloc", "success")
    assert.truthy(started[3])
    assert.is_nil(started[2])
  end)

  it("releases a partial free at once and keeps the job until the final one", function()
    local s, clock = session()
    s:handle("sched.alloc", alloc(1, jobspec(2, 4, 100)))
    local acts = s:handle("sched.alloc", alloc(2, jobspec(1, 4, 100)))
    assert.is_nil(by_id(acts, "alloc", "success")[2])
    clock.t = 1010
    acts = s:handle("sched.free", '{"id":1,"R":' .. R_text("1", "n1") .. ',"final":false}')
    assert.equal("1", ranks_of(by_id(acts, "alloc", "success")[2]))
    assert.equal(2, s:stats().running)
    assert.same({}, s:handle("sched.free", '{"id":1,"R":' .. R_text("0", "n0")
      .. ',"final":true}'))
    assert.equal(1, s:stats().running)
  end)

  it("puts running jobs back on hello and never books them twice", function()
    local s = session()
    local running = ('{"id":11,"priority":16,"userid":1,"t_submit":5,"R":%s}'):format(
      R_text("0", "n0", 5000))
    assert.same({}, s:handle("sched.hello", running))
    -- the same resources again: refused, nothing changes
    local acts = s:handle("sched.hello", ('{"id":12,"priority":16,"userid":1,"t_submit":5,'
      .. '"R":%s}'):format(R_text("0", "n0", 5000)))
    assert.equal("error", acts[1].op)
    assert.equal("EBUSY", acts[1].errnum)
    assert.truthy(acts[1].message:find("job 12 cannot be put back", 1, true))
    -- a job with rank 1 already freed: only rank 0 ... which job 11 holds
    acts = s:handle("sched.hello", ('{"id":13,"priority":16,"userid":1,"t_submit":5,'
      .. '"R":%s,"free":"0"}'):format(R_text("0-1", "n[0-1]", 5000)))
    assert.same({}, acts)
    assert.equal(2, s:stats().running)
    acts = s:handle("sched.alloc", alloc(20, jobspec(1, 1, 100)))
    assert.is_nil(by_id(acts, "alloc", "success")[20])
    assert.equal(5000, by_id(acts, "alloc", "annotate")[20].annotations.sched.t_estimate)
  end)

  it("keeps jobs off ranks that go down and plans reservations again", function()
    local s = running_and_reserved(1, 2)
    local acts = s:handle("resource.acquire", '{"down":"1"}')
    -- job 1 runs on rank 0: kept; job 2 needs both ranks, one is down
    assert.equal(1, s:stats().running)
    local a = by_id(acts, "alloc", "annotate")[2]
    assert.truthy(a)
    assert.equal(core.null, a.annotations.sched.t_estimate)
    acts = s:handle("sched.alloc", alloc(3, jobspec(1, 4, 10)))
    assert.is_nil(by_id(acts, "alloc", "success")[3])
    acts = s:handle("resource.acquire", '{"up":"1"}')
    assert.equal("1", ranks_of(by_id(acts, "alloc", "success")[3]))
  end)

  it("refuses jobs that would run past the resource set's expiration", function()
    local s = session(nil, R_text("0-1", "n[0-1]", 1020))
    local acts = s:handle("sched.alloc", alloc(1, jobspec(1, 1, 3600)))
    assert.same({op = "alloc", id = 1, type = "deny", note = "unsatisfiable request: job duration "
      .. "(3600s) exceeds the resource set's expiration (1020, 20s after the earliest start 1000)"},
      acts[1])
    acts = s:handle("sched.alloc", alloc(2, jobspec(1, 1, 10)))
    assert.equal("success", acts[1].type)
    -- an RFC 28 expiration update moves the limit
    s:handle("resource.acquire", '{"expiration":10000}')
    acts = s:handle("sched.alloc", alloc(3, jobspec(1, 1, 3600)))
    assert.equal("success", acts[1].type)
    acts = s:handle("feasibility.check", '{"jobspec":' .. jobspec(1, 1, 20000) .. '}')
    assert.same({op = "error", topic = "feasibility.check", errnum = "ENODEV",
      message = "Unsatisfiable request: job duration (20000s) exceeds the resource set's "
        .. "expiration (10000, 9000s after the earliest start 1000)"}, acts[1])
  end)

  it("denies a waiting job whose reservation an earlier expiration leaves no room for", function()
    local s, clock = session({queue = "conservative"}, R_text("0-1", "n[0-1]", 100000))
    -- (the loop counts milliseconds)
    assert.equal(100000 * flux.TICKS, s.loop.g:expiration())
    s:handle("sched.alloc", alloc(1, jobspec(2, 4, 1000)))
    -- job 2 waits for job 1 (ends at 2000), reserved there until 7000
    local acts = s:handle("sched.alloc", alloc(2, jobspec(2, 4, 5000)))
    assert.equal(2000, by_id(acts, "alloc", "annotate")[2].annotations.sched.t_estimate)
    -- a job that asks no duration waits too, planned until the expiration
    s:handle("sched.alloc", '{"id":3,"priority":16,"userid":100,"t_submit":3,"jobspec":'
      .. jobspec(1, 1, 0) .. '}')
    clock.t = 1500
    -- the expiration comes to 5000: job 2 could start by then (at 2000)
    -- but not end before it: it can never run here, and is denied
    acts = s:handle("resource.acquire", '{"expiration":5000}')
    assert.equal(5000 * flux.TICKS, s.loop.g:expiration())
    assert.same({op = "alloc", id = 2, type = "deny", note = "unsatisfiable request: job duration "
      .. "(5000s) exceeds the resource set's expiration (5000, 3500s after the earliest start "
      .. "1500)"}, by_id(acts, "alloc", "deny")[2])
    assert.is_nil(by_id(acts, "alloc", "deny")[3])
    assert.equal(0, s.loop.m:job(2) and 1 or 0)
    -- job 1 ends: job 3 starts, to end at the expiration
    clock.t = 2000
    acts = s:handle("sched.free", '{"id":1,"final":true}')
    local R = core.rv1_decode(by_id(acts, "alloc", "success")[3].R)
    assert.equal(5000, R:expiration())
    -- a job planned from later on can no longer reserve past it either
    acts = s:handle("sched.alloc", alloc(4, jobspec(2, 4, 2000)))
    assert.is_nil(by_id(acts, "alloc", "success")[4])
    assert.is_nil(by_id(acts, "alloc", "deny")[4])
    assert.equal("insufficient resources",
      by_id(acts, "alloc", "annotate")[4].annotations.sched.reason_pending)
  end)

  it("answers feasibility.check", function()
    local s = session()
    s:handle("sched.alloc", alloc(1, jobspec(2, 4, 100)))
    local acts = s:handle("feasibility.check", '{"jobspec":' .. jobspec(2, 4, 100) .. '}')
    assert.same({{op = "respond", topic = "feasibility.check", payload = {}}}, acts)
    acts = s:handle("feasibility.check", '{"jobspec":' .. jobspec(3, 4, 100) .. '}')
    assert.equal("error", acts[1].op)
    assert.equal("ENODEV", acts[1].errnum)
  end)

  it("answers sched.resource-status with all, down and allocated", function()
    local s = session(nil, nil, "0")
    s:handle("sched.alloc", alloc(1, jobspec(1, 2, 100)))
    local acts = s:handle("sched.resource-status", "{}")
    local p = core.json_decode(flux.payload(acts[1]))
    assert.equal("0-1", p.all.execution.R_lite[1].rank)
    assert.equal("1", p.down.execution.R_lite[1].rank)
    assert.equal("0", p.allocated.execution.R_lite[1].rank)
    assert.equal("0-1", p.allocated.execution.R_lite[1].children.core)
  end)

  it("answers sched.resource-status after many jobs and after an edit of the graph",
    function()
    -- seven ranks of 4 cores, five one-core jobs on each of the first
    -- ranks and an odd count in all: the pairwise join of what jobs hold
    local s = session(nil, R_text("0-6", "n[0-6]"), "0-6")
    local status = function()
      return core.json_decode(flux.payload(s:handle("sched.resource-status", "{}")[1]))
    end
    assert.is_nil(status().all.execution.properties)
    for id = 1, 11 do s:handle("sched.alloc", alloc(id, jobspec(1, 1, 100))) end
    local held = core.rv1_decode(core.json_encode(status().allocated, 0))
    assert.equal(11, held:count("core"))
    local want
    for id = 1, 11 do
      local R = s.loop.m:rv1(id)
      want = want and want:union(R) or R
    end
    assert.is_true(held:equal(want))
    -- each job's R is kept from one answer to the next: what changes a
    -- job's hold shows in the next answer all the same
    s:handle("sched.alloc", alloc(12, jobspec(2, 4, 100)))
    local function allocated() return core.rv1_decode(core.json_encode(status().allocated, 0)) end
    local R12 = s.loop.m:rv1(12)
    assert.is_true(allocated():equal(want:union(R12)))
    local ranks12 = R12:ranks()
    local first = ranks12:first()
    s:handle("sched.free", fmt('{"id":12,"R":%s,"final":false}', R_text(tostring(first),
      "n" .. first)))
    assert.equal(2 * 4 - 4 + 11, allocated():count("core"))
    assert.is_true(allocated():equal(want:union(s.loop.m:rv1(12))))
    s:handle("sched.free", fmt('{"id":12,"R":%s,"final":true}', R_text(tostring(ranks12:last()),
      "n" .. ranks12:last())))
    assert.is_true(allocated():equal(want))
    -- a property set by the operator is in the whole R at once
    s:handle("sched-grove.set-property", '{"target":"n3","key":"fast"}')
    assert.equal("3", status().all.execution.properties.fast)
    s:handle("sched-grove.remove-property", '{"target":"n3","key":"fast"}')
    assert.is_nil(status().all.execution.properties)
  end)

  it("moves a running job's end on sched.expiration", function()
    local s = running_and_reserved(2, 1)
    local acts = s:handle("sched.expiration", '{"id":1,"expiration":1500}')
    assert.equal("respond", acts[1].op)
    assert.equal(1500, by_id(acts, "alloc", "annotate")[2].annotations.sched.t_estimate)
    acts = s:handle("sched.expiration", '{"id":9,"expiration":1500}')
    assert.same({op = "error", topic = "sched.expiration", errnum = "ENOENT",
      message = "job 9 is not running"}, acts[1])
  end)

  it("takes its options and says what is wrong with them", function()
    assert.same({nil, "match-format must be rv1_nosched or rv1, got 'jgf'", "EINVAL"},
      {flux.new{match_format = "jgf"}})
    assert.same({nil, "queue-depth must be a positive integer, got 0", "EINVAL"},
      {flux.new{queue_depth = 0}})
    assert.has_error(function() flux.new{bogus = 1} end,
      "bad argument #1 to 'new' (unknown option 'bogus')")
    assert.has_error(function() flux.new{queue_dpeth = 2} end,
      "bad argument #1 to 'new' (unknown option 'queue_dpeth' (did you mean 'queue_depth'?))")
    assert.has_error(function() flux.new{limits = {bugdet = 10}} end,
      "bad argument #1 to 'new' (unknown limits option 'bugdet' (did you mean 'budget'?))")
    assert.truthy(flux.new{limits = {budget = 1e8, memory = 2^28, time = 10}})
    local s = assert(flux.new{limited = 8, match_format = "rv1"})
    assert.same({mode = "limited", limit = 8}, s:ready())
    assert.equal("ENOSYS", s:handle("sched.bogus", "{}")[1].errnum)
  end)

  it("writes R with its scheduling graph under match-format rv1", function()
    local s = session{match_format = "rv1"}
    local acts = s:handle("sched.alloc", alloc(1, jobspec(1, 1, 100)))
    local R = core.json_decode(acts[1].R)
    assert.is_table(R.scheduling)
  end)

  it("answers EPROTO to a request without an integer id and changes nothing", function()
    local s = session()
    for _, c in ipairs {
      {"sched.hello", '{"id":-1}', "hello: a job needs an integer id"},
      {"sched.alloc", '{"id":"1"}', "alloc: a request needs an integer id"},
      {"sched.free", "{}", "free: a request needs an integer id"},
      {"sched.cancel", '{"id":1.5}', "cancel: a request needs an integer id"},
      {"sched.expiration", '{"id":1}', "expiration: {id, expiration} expected"},
    } do
      assert.same({{op = "error", topic = c[1], errnum = "EPROTO", message = c[3]}},
        s:handle(c[1], c[2]))
    end
    local acts = s:handle("sched.alloc", alloc(1, jobspec(1, 4, 100)))
    assert.is_table(by_id(acts, "alloc", "success")[1])
  end)

  it("takes a jobspec as its JSON text, read once a text and estimate", function()
    local s, clock = session()
    local text = jobspec(1, 4, 100)
    local acts = s:handle("sched.alloc", {id = 1, priority = 16, userid = 100, t_submit = 1,
      jobspec = text})
    assert.equal("0", ranks_of(by_id(acts, "alloc", "success")[1]))
    local loop = s.loop
    local js = loop.jobs[1].js
    assert.equal(100 * flux.TICKS, js:duration())
    clock.t = 1010
    acts = s:handle("sched.alloc", {id = 2, priority = 16, userid = 100, t_submit = 2,
      jobspec = text})
    assert.equal("1", ranks_of(by_id(acts, "alloc", "success")[2]))
    -- the same text and estimate: the same reading, the text decoded once
    assert.equal(js, loop.jobs[2].js)
    assert.equal(100, sched_duration(s, text))
    -- a text that is not a jobspec: denied with the reason, nothing kept
    acts = s:handle("sched.alloc", {id = 3, t_submit = 3, jobspec = '{"version":1,'})
    local deny = by_id(acts, "alloc", "deny")[3]
    assert.matches("^bad jobspec: ", deny.note)
    assert.is_nil(loop.jobs[3])
    -- feasibility takes the text too
    acts = s:handle("feasibility.check", {jobspec = jobspec(3, 4, 100)})
    assert.equal("ENODEV", acts[1].errnum)
    acts = s:handle("feasibility.check", {jobspec = "[1"})
    assert.equal("EINVAL", acts[1].errnum)
  end)
end)

describe("grove.flux with a pass its time limit cuts", function()
  -- A queue policy file in a temporary path (removed once loaded): fcfs
  -- but for each start of a job from id 10 on, after which it works
  -- without end, as a pass of hundreds of jobs of 40 nodes with their
  -- scheduling graphs works at 16,384 nodes, until the limit of 2 s
  -- (long beside what one start takes, on any machine; the instruction
  -- budget set beyond what 2 s can use) cuts it (the
  -- self-check's sample jobs, ids 1 and 2, are started without)
  local function session_of(body)
    local path = os.tmpname() .. ".lua"
    local f = assert(io.open(path, "w"))
    f:write("return {name = 'slow', schedule = function(ctx)\n" .. body .. "\nend}\n")
    f:close()
    local s, clock = session{queue = path, time = 2, budget = 1e12, log_level = 7}
    os.remove(path)
    assert.equal("slow", s:stats().queue)
    return s, clock
  end

  local function started(acts)
    local ids = {}
    for id in pairs(by_id(acts, "alloc", "success")) do ids[#ids + 1] = id end
    table.sort(ids)
    return ids
  end

  it("keeps what it started, and passes again at once until every job that fits started",
    function()
    local s, clock = session_of([[
  local job = ctx:next()
  while job do
    local after = ctx:next(job)
    if not ctx:start(job) then return end
    if job.id >= 10 then while true do end end
    job = after
  end]])
    local acts = s:handle("sched.alloc", alloc(10, jobspec(2, 4, 100)))
    local R10 = by_id(acts, "alloc", "success")[10].R
    for id = 11, 12 do s:handle("sched.alloc", alloc(id, jobspec(1, 1, 100))) end
    -- job 10 ends: two one-core jobs fit; the pass starts one, and its
    -- limit cuts it
    acts = s:handle("sched.free", ('{"id":10,"R":%s,"final":true}'):format(R10))
    assert.same({11}, started(acts))
    local said = h.logs(acts, "info")
    assert.equal(1, #said)
    assert.matches("^queue policy slow: .-:6: wall%-clock limit of 2 s exceeded after "
      .. "starting 1 job; another pass follows$", said[1])
    assert.same({}, h.logs(acts, "err"))
    -- the module's timer is asked for now: the next turn passes again,
    -- and starts the other, with no message in between
    assert.equal(clock.t, s:next_wake())
    acts = s:schedule()
    assert.same({12}, started(acts))
    assert.same({}, h.logs(acts, "err"))
    assert.matches("no job waits$", h.logs(acts, "info")[1])
    assert.equal(3, s:stats().passes_cut)
    -- nothing waits: no pass is asked for
    assert.is_nil(s:next_wake())
  end)

  it("is an error when it started nothing", function()
    local s = session_of([[
  local job = ctx:next()
  if job and job.id >= 10 then while true do end end]])
    local acts = s:handle("sched.alloc", alloc(10, jobspec(1, 1, 100)))
    assert.same({}, started(acts))
    local errs = h.logs(acts, "err")
    assert.equal(1, #errs)
    assert.matches("wall%-clock limit of 2 s exceeded$", errs[1])
    assert.equal(0, s:stats().passes_cut)
    assert.is_nil(s:next_wake())
  end)
end)

describe("grove.flux start estimates in a deep queue", function()
  it("forecast again for a job that joins within the depth, not for one behind it", function()
    local s = session{queue = "easy", reserve_depth = 2}
    s:handle("sched.alloc", alloc(1, jobspec(2, 4, 100)))    -- both nodes, until 1100
    local acts = s:handle("sched.alloc", alloc(2, jobspec(1, 4, 100)))
    assert.equal(1100, by_id(acts, "alloc", "annotate")[2].annotations.sched.t_estimate)
    acts = s:handle("sched.alloc", alloc(3, jobspec(2, 4, 100)))
    -- after job 2's forecast start
    assert.equal(1200, by_id(acts, "alloc", "annotate")[3].annotations.sched.t_estimate)
    local n = s:stats().forecasts
    for id = 4, 20 do
      acts = s:handle("sched.alloc", alloc(id, jobspec(1, 4, 100)))
      assert.is_nil(by_id(acts, "alloc", "annotate")[2])
      assert.is_nil((by_id(acts, "alloc", "annotate")[id] or {annotations =
        {sched = {}}}).annotations.sched.t_estimate)
    end
    assert.equal(n, s:stats().forecasts)
    -- one that goes ahead of job 3 (a higher priority) is forecast, and so
    -- is job 3 after it
    acts = s:handle("sched.alloc", alloc(21, jobspec(1, 4, 100), 20))
    assert.equal(n + 1, s:stats().forecasts)
    assert.is_not_nil(by_id(acts, "alloc", "annotate")[21].annotations.sched.t_estimate)
  end)
end)

describe("grove.flux with deferred passes (the module's)", function()
  it("passes once for a burst of allocs and frees, at schedule()", function()
    local s = session()
    s.defer = true
    local n0 = s:stats().pass_time.n
    for id = 1, 3 do
      local acts = s:handle("sched.alloc", alloc(id, jobspec(1, 4, 100)))
      assert.same({}, by_id(acts, "alloc", "success"))
    end
    local acts = s:schedule()
    assert.equal(n0 + 1, s:stats().pass_time.n)
    local started = by_id(acts, "alloc", "success")
    assert.same({"0", "1"}, {ranks_of(started[1]), ranks_of(started[2])})
    assert.is_nil(started[3])
    -- two frees, one pass: job 3 starts
    for id = 1, 2 do
      acts = s:handle("sched.free", ('{"id":%d,"R":%s,"final":true}'):format(id,
        R_text(tostring(id - 1), "n" .. (id - 1))))
      assert.same({}, by_id(acts, "alloc", "success"))
    end
    acts = s:schedule()
    assert.equal(n0 + 2, s:stats().pass_time.n)
    assert.is_not_nil(by_id(acts, "alloc", "success")[3])
    -- nothing due: no pass
    s:schedule()
    assert.equal(n0 + 2, s:stats().pass_time.n)
  end)

  it("passes once for a burst of cancels and a reprioritize, at schedule()", function()
    local s = session()
    s.defer = true
    for id = 1, 5 do s:handle("sched.alloc", alloc(id, jobspec(1, 4, 100))) end
    s:schedule()
    local n0 = s:stats().pass_time.n
    -- the waiting jobs' cancels are answered at once, without a pass each
    for id = 3, 4 do
      local acts = s:handle("sched.cancel", ('{"id":%d}'):format(id))
      assert.is_not_nil(by_id(acts, "alloc", "cancel")[id])
    end
    s:handle("sched.prioritize", '{"jobs":[[5,20]]}')
    assert.equal(n0, s:stats().pass_time.n)
    s:schedule()
    assert.equal(n0 + 1, s:stats().pass_time.n)
    -- what is left waits, and starts when a rank is free
    s:handle("sched.free", ('{"id":1,"R":%s,"final":true}'):format(R_text("0", "n0")))
    local acts = s:schedule()
    assert.equal("0", ranks_of(by_id(acts, "alloc", "success")[5]))
    assert.equal(n0 + 2, s:stats().pass_time.n)
  end)
end)

describe("grove.flux answering aside, inside a pass (the module's between)", function()
  it("calls between at the pass's steps; an aside answer holds its own actions alone",
    function()
    local s, clock = session()
    s.defer = true
    for id = 1, 3 do s:handle("sched.alloc", alloc(id, jobspec(1, 4, 100))) end
    local calls, feas, status, now_in = 0, nil, nil, nil
    s:set_between(function()
      calls = calls + 1
      if calls == 2 then
        -- the clock moved on, but a request aside reads the pass's
        clock.t = 1050
        feas = s:aside("feasibility", '{"jobspec":' .. jobspec(1, 4, 100) .. '}')
        status = s:aside("resource_status")
        now_in = s.loop.now
      end
    end)
    local acts = s:schedule()
    assert.is_true(calls >= 3)
    assert.equal(1000 * flux.TICKS, now_in)
    assert.equal(1, #feas)
    assert.same({"respond", "feasibility.check"}, {feas[1].op, feas[1].topic})
    assert.equal(1, #status)
    assert.equal("sched.resource-status", status[1].topic)
    -- the pass's own actions come back at its end, none lost to the aside
    local started = by_id(acts, "alloc", "success")
    assert.is_not_nil(started[1])
    assert.is_not_nil(started[2])
    for _, a in ipairs(acts) do assert.is_not.equal("feasibility.check", a.topic) end
    -- an aside whose method fails raises, and leaves the pass's actions
    s.out = {{op = "log", level = "info", message = "kept"}}
    assert.has_error(function() s:aside("no_such_method") end)
    assert.equal("kept", s.out[1].message)
    assert.is_nil(s.in_aside)
  end)
end)

describe("grove.flux's searches for a later start, stopped for a look", function()
  -- two ranks of four cores, each core held by a job of its own: rank 0's
  -- end at 1020, 1040, 1060, 1080, rank 1's at 1010, 1030, 1050, 1070; a
  -- job of four cores then waits for rank 1 wholly free at 1070, its
  -- search failing at 1040, 1050 and 1060 (four cores free between the
  -- ranks, neither rank with four)
  local function deep(looking)
    local s, clock = session{queue = "conservative"}
    s.defer = true
    for id = 1, 8 do
      local d = id <= 4 and 20 * id or 10 + 20 * (id - 5)
      s:handle("sched.alloc", alloc(id, jobspec(1, 1, d)))
    end
    s:schedule()
    local looks = {n = 0, feas = {}}
    if looking then
      s.loop.search_limit = 1e-9 -- every search stops after its first later instant
      s:set_between(function()
        looks.n = looks.n + 1
        looks.feas[#looks.feas + 1] = s:aside("feasibility",
          '{"jobspec":' .. jobspec(1, 4, 50) .. '}')[1]
      end)
    end
    s:handle("sched.alloc", alloc(9, jobspec(1, 4, 50)))
    s:schedule()
    return s, clock, looks
  end

  it("goes on where it stopped, and finds the start the whole search finds", function()
    local a, clock_a, looks = deep(true)
    local b, clock_b = deep(false)
    assert.equal(1070 * flux.TICKS, b.loop.jobs[9].reserved)
    assert.equal(1070 * flux.TICKS, a.loop.jobs[9].reserved)
    assert.is_true(a.loop.search_stops >= 2, "stops: " .. a.loop.search_stops)
    assert.equal(a.loop.search_stops, a:stats().search_stops)
    assert.equal(0, b:stats().search_stops)
    -- a check answered at every look, in the middle of a search too
    assert.is_true(looks.n >= a.loop.search_stops)
    for _, r in ipairs(looks.feas) do
      assert.same({"respond", "feasibility.check"}, {r.op, r.topic})
    end
    -- the same start, on the same rank, when its time comes
    local started = {}
    for k, s in ipairs({a, b}) do
      local clock = k == 1 and clock_a or clock_b
      clock.t = 1070
      for id = 5, 8 do
        s:handle("sched.free", ('{"id":%d,"R":%s,"final":true}'):format(id, R_text("1", "n1")))
      end
      started[k] = by_id(s:schedule(), "alloc", "success")[9]
      assert.is_not_nil(started[k])
    end
    assert.same({"1", "1"}, {ranks_of(started[1]), ranks_of(started[2])})
  end)
end)

describe("grove.flux with jobs that wait for drained nodes", function()
  -- four ranks of four cores, rank 3 the only one with property rare and
  -- down; job 1 holds the three others; then ten jobs of one node with
  -- rare, and a pass
  local function rare_queue(queue)
    local R = '{"version":1,"execution":{"R_lite":[{"rank":"0-3","children":{"core":"0-3"}}],'
      .. '"starttime":0,"expiration":0,"nodelist":["n[0-3]"],"properties":{"rare":"3"}}}'
    local s, clock = session({queue = queue, reserve_depth = 64}, R, "0-2")
    s.defer = true
    s:handle("sched.alloc", alloc(1, jobspec(3, 4, 100)))
    s:schedule()
    local rare = jobspec(1, 1, 100):gsub('"duration":100',
      '"duration":100,"constraints":{"properties":["rare"]}')
    for id = 2, 11 do s:handle("sched.alloc", alloc(id, rare)) end
    -- their admission (each one's satisfiability) and a first pass
    assert.same({}, by_id(s:schedule(), "alloc", "success"))
    return s, clock
  end

  for _, queue in ipairs({"conservative", "easy"}) do
    it(queue .. " looks for them once a pass, not once a job, and plans them when the "
      .. "node is back", function()
      local s, clock = rare_queue(queue)
      clock.t = clock.t + 10
      local before = s.loop.m:stats().matches
      local acts = s:schedule()
      assert.same({}, by_id(acts, "alloc", "success"))
      -- a start, a reservation and a forecast each tried once for the
      -- ten alike jobs (not thirty walks)
      assert.is_true(s.loop.m:stats().matches - before <= 3,
        "matches: " .. (s.loop.m:stats().matches - before))
      -- rank 3 comes back: the first of them starts at once
      acts = s:handle("resource.acquire", '{"up":"3"}')
      for _, a in ipairs(s:schedule()) do acts[#acts + 1] = a end
      assert.equal("3", ranks_of(by_id(acts, "alloc", "success")[2]))
    end)
  end
end)

describe("grove.flux's memories of alike requests", function()
  -- The same stream through two sessions, one of them with the memories
  -- off (its placement policy taken as one that may place alike jobs
  -- differently): every action, starts, ranks and estimates, the same.
  local function nodes_js(n, d)
    return ('{"version":1,"resources":[{"type":"node","count":%d,"with":[{"type":"slot",'
      .. '"count":1,"label":"task","with":[{"type":"core","count":4}]}]}],"tasks":[{'
      .. '"command":["true"],"slot":"task","count":{"per_slot":1}}],"attributes":{"system":'
      .. '{"duration":%d}}}'):format(n, d)
  end
  local shapes = {nodes_js(1, 100), nodes_js(2, 100), jobspec(1, 1, 50), jobspec(3, 1, 70),
    nodes_js(1, 300)}

  local function run(queue, memories, seed, depth)
    local s, clock = session({queue = queue, reserve_depth = depth}, R_text("0-3", "n[0-3]"),
      "0-3")
    s.defer = true
    if not memories then s.loop.pl0 = setmetatable({fast = false}, {__index = s.loop.pl0}) end
    local out, R = {}, {}
    local function record(acts)
      for _, a in ipairs(acts) do
        if a.op == "alloc" then
          out[#out + 1] = core.json_encode({a.id, a.type, a.R and ranks_of(a) or false,
            a.annotations or false}, 0)
          if a.type == "success" then R[a.id] = a.R end
        end
      end
    end
    local function rnd(n)
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % n + 1
    end
    for id = 1, 40 do
      record(s:handle("sched.alloc", alloc(id, shapes[rnd(#shapes)])))
      if id % 5 == 0 then record(s:schedule()) end
    end
    record(s:schedule())
    -- the running jobs end early, one at a time, in id order
    for _ = 1, 60 do
      local id
      for k in pairs(R) do if not id or k < id then id = k end end
      if not id then break end
      clock.t = clock.t + 7
      record(s:handle("sched.free", ('{"id":%d,"R":%s,"final":true}'):format(id, R[id])))
      R[id] = nil
      record(s:schedule())
    end
    return out
  end

  for _, queue in ipairs({"conservative", "easy", "fcfs"}) do
    it("leave every action of " .. queue .. " as it is without them", function()
      for _, seed in ipairs({17, 5, 99, 2024}) do
        for _, depth in ipairs({8, false}) do
          local with = run(queue, true, seed, depth or nil)
          local without = run(queue, false, seed, depth or nil)
          assert.is_true(#with > 40)
          assert.same(without, with)
        end
      end
    end)
  end
end)
