-- grove sim --history: a Flux instance's history read (grove.sim.history),
-- its refusals, and a small replay through grove.flux checked against
-- starts computed by hand.
--
-- The fixture spec/fixtures/history/small.jsonl: 4 nodes n[0-3] of 4
-- cores, sched-grove under easy, placement first; jobs (nodes, duration):
--   1 (2, 20)  arrives 1000.01, ran 1000.02 - 1010.03 on 0-1
--   2 (3, 20)  arrives 1001.01, the head: waits for 3 nodes, ran 1015.01 on 1-3
--   3 (1, 5)   arrives 1002.01, backfilled (ends by 1007 < 1020), ran 1002.02
--              - 1006.02 on 2
--   4 (1, 5)   submitted held (urgency 0), released 1030.01, ran 1030.02 on 0
--   5 (4, 20)  arrives 1004.01, cancelled waiting at 1008.0
--   6 (2, 10)  arrives 1005.01, backfilled on job 3's free: ran 1006.03 -
--              1015.0 on 2-3
--   7 (1, 5)   arrives 1007.01, urgency 20 at 1008.51 (before job 2),
--              ran 1010.04 on 0 when job 1 freed
--   rank 3 drained at 1026, undrained at 1040
local history = require("grove.sim.history")
local replay = require("grove.sim.replay")
local exe = require("exe_helper")

local FIX = "spec/fixtures/history/small.jsonl"

local function lines_of(path)
  local t = {}
  for l in io.lines(path) do t[#t + 1] = l end
  return t
end

-- A copy of the fixture with its lines changed by f(lines); its path.
local function variant(f, raw)
  local lines = lines_of(FIX)
  f(lines)
  local path = os.tmpname()
  local out = assert(io.open(path, "w"))
  out:write(raw and raw(table.concat(lines, "\n") .. "\n") or table.concat(lines, "\n") .. "\n")
  out:close()
  return path
end

local function near(a, b) return math.abs(a - b) < 1e-6 end

describe("grove.sim.history", function()
  it("reads a history and derives what the scheduler was told", function()
    local h = assert(history.read(FIX))
    assert.are.equal(7, #h.jobs)
    assert.are.equal(4, #h.resource_events)
    assert.are.equal("easy", h.config["sched-grove"]["queue-policy"])
    local j4, j5, j7 = h.jobs[4], h.jobs[5], h.jobs[7]
    -- held at submit: no alloc until the release
    assert.are.equal(1, #j4.sched)
    assert.are.equal("alloc", j4.sched[1].op)
    assert.is_true(near(j4.sched[1].t, 1030.01))
    -- cancelled while waiting
    assert.are.same({"alloc", "cancel"}, {j5.sched[1].op, j5.sched[2].op})
    assert.is_nil(j5.alloc)
    -- an urgency change while waiting is a sched.prioritize
    assert.are.equal("prioritize", j7.sched[2].op)
    assert.are.equal(20, j7.sched[2].priority)
    assert.is_true(near(j7.alloc, 1010.04) and near(j7.free, 1012.0))
    assert.are.equal("0", j7.ranks)
  end)

  local function refused(path)
    local h, err = history.read(path)
    assert.is_nil(h)
    return err
  end

  it("refuses a file of another tool", function()
    local p = variant(function(l) l[1] = "; SWF header" end)
    assert.are.equal(p .. ":1: not a history of grove flux-export (its first line is " ..
      '{"type": "header", "format": "grove-flux-history", ...}): not JSON: col1: invalid ' ..
      "token near ';'", refused(p))
    os.remove(p)
    p = variant(function(l) l[1] = '{"type":"header","format":"other"}' end)
    assert.matches("^" .. p:gsub("%p", "%%%0") .. ":1: not a history of grove flux%-export .*" ..
      "a file of another tool%?$", refused(p))
    os.remove(p)
  end)

  it("refuses a truncated file", function()
    local p = variant(function(l) l[#l] = nil end)
    assert.are.equal(p .. ":14: truncated: the file ends without its end line (7 jobs read)",
      refused(p))
    os.remove(p)
    p = variant(function(l) for _ = 1, 3 do l[#l] = nil end end,
      function(text) return text:sub(1, -40) end)
    assert.matches("^" .. p:gsub("%p", "%%%0") .. ":12: the file ends inside a line " ..
      "%(truncated%)", refused(p))
    os.remove(p)
    -- an end line that counts more than the file holds
    p = variant(function(l) table.remove(l, 12) end)
    assert.are.equal(p .. ":14: the end line counts 7 jobs and 4 resource events, the file " ..
      "holds 6 and 4 (truncated or cut)", refused(p))
    os.remove(p)
  end)

  it("refuses jobs and events out of order", function()
    local p = variant(function(l) l[9], l[10] = l[10], l[9] end)
    assert.are.equal(p .. ":10: job 2 submitted at 1001.000000, before job 3 (line 9, at " ..
      "1002.000000): jobs out of order (submit time, then id)", refused(p))
    os.remove(p)
    p = variant(function(l) l[8] = l[8]:gsub('"timestamp":1010.03,"name":"free"',
      '"timestamp":1000.015,"name":"free"') end)
    assert.are.equal(p .. ":8: job 1: event 6 (free at 1000.015000) is before the one before " ..
      "it (finish at 1010.000000): events out of order", refused(p))
    os.remove(p)
    p = variant(function(l) l[6], l[7] = l[7], l[6] end)
    assert.are.equal(p .. ":7: resource event drain at 1026.000000 is before the one before " ..
      "it (undrain at 1040.000000, line 6): events out of order", refused(p))
    os.remove(p)
  end)

  it("refuses a job whose resources are not in the R", function()
    local p = variant(function(l)
      l[13] = l[13]:gsub('"rank":"2%-3"', '"rank":"5"'):gsub('"n%[2%-3%]"', '"n5"')
    end)
    assert.are.equal(p .. ":13: job 6 ran on n5 (rank 5), which the instance's R does not " ..
      "have (its resources no longer exist)", refused(p))
    os.remove(p)
    p = variant(function(l) l[6] = l[6]:gsub('"idset":"3"', '"idset":"7"') end)
    assert.are.equal(p .. ":6: resource event drain names ranks 7, which the instance's R " ..
      "does not have", refused(p))
    os.remove(p)
  end)
end)

describe("grove.sim.replay", function()
  it("predicts the instance's starts (hand-computed)", function()
    local h = assert(history.read(FIX))
    local r = assert(replay.run(h, {within = 1}))
    local at, pred = {}, {}
    for _, x in ipairs(r.jobs) do at[x.id], pred[x.id] = x.decided, x.predicted end
    -- each decision is the time of the message whose pass started the job
    -- (an arrival reaches the scheduler ALLOC_AFTER after its priority
    -- event); the job manager hears of it the job's own latency later
    -- (its alloc event minus the message before it), and its free comes
    -- its actual run (free - alloc) after that
    local d = replay.ALLOC_AFTER
    assert.is_true(near(at[1], 1000.01 + d))
    assert.is_true(near(at[3], 1002.01 + d))          -- backfilled at its arrival
    assert.is_true(near(at[6], 1006.02))              -- job 3's free: 1002.02 + 4.00
    assert.is_true(near(at[7], 1010.03))              -- job 1's free: 1000.02 + 10.01
    assert.is_true(near(at[2], 1015.00))              -- job 6's free: 1006.03 + 8.97
    assert.is_true(near(at[4], 1030.01 + d))          -- released
    assert.is_nil(at[5])                              -- cancelled waiting
    for _, id in ipairs{1, 2, 3, 4, 6, 7} do
      assert.is_true(near(pred[id], h.jobs[id].alloc))
    end
    assert.are.equal(7, r.agree)
    assert.are.equal(7, r.compared)
    assert.are.equal("easy", r.queue)
  end)

  it("measures the start estimates the instance and the replay showed", function()
    -- the instance's: job 2's alloc event carries what sched-grove showed
    -- it (first 1021 at 1001.01, last 1016 at 1006.02), job 7's nothing
    local p = variant(function(l)
      l[9] = l[9]:gsub('"name":"alloc","context":{}', '"name":"alloc","context":' ..
        '{"annotations":{"sched":{"resource_summary":"rank[1-3]/core[0-3]","estimated":' ..
        '{"first":1021,"first_at":1001.01,"last":1016,"last_at":1006.02,"count":2}}}}')
    end)
    local h = assert(history.read(p))
    assert.are.same({first = 1021, first_at = 1001.01, last = 1016, last_at = 1006.02, count = 2},
      h.jobs[2].estimated)
    local a = replay.actual_summary(h)
    -- job 2 started at 1015.01: its first estimate 5.99 s off, its last
    -- 0.99 s, both within 5 minutes; 5 jobs that ran were shown none
    assert.are.equal(1, a.est_jobs)
    assert.are.equal(5, a.est_none)
    assert.is_true(near(a.est_first_median, 5.99) and near(a.est_last_median, 0.99))
    assert.are.equal(1, a.est_first_within)
    assert.are.equal(1, a.est_first_kept)      -- it started before its first estimate
    os.remove(p)
    -- the replay's own: sched-grove under easy shows the head its
    -- forecast, planned to the millisecond as the loop plans in Flux;
    -- job 2 (1020.012 at 1001, then 1016.02 at 1010, started 1015.01)
    -- and job 7 (1016.02 at 1008, started 1010.04)
    local r = assert(replay.run(assert(history.read(FIX))))
    local s = r.summary
    assert.are.equal(2, s.est_jobs)
    assert.is_true(near(s.est_first_median, 5.002) and near(s.est_first_p90, 5.98))
    assert.is_true(near(s.est_last_median, 1.01) and near(s.est_last_p90, 5.98))
    assert.are.equal(1, s.est_first_within)
    assert.are.equal(1.5, s.est_changes_mean)
  end)

  it("refuses an option it does not know", function()
    local h = assert(history.read(FIX))
    assert.has_error(function() replay.run(h, {withni = 1}) end,
      "bad argument #2 to 'run' (unknown option 'withni' (did you mean 'within'?))")
    assert(replay.run(h, {queue = "easy", policy = "first", within = 1,
      progress = function() end}))
  end)

  it("sends the drain to the scheduler", function()
    local p = variant(function(l) l[6] = l[6]:gsub('"idset":"3"', '"idset":"0"') end)
    local h = assert(history.read(p))
    local r = assert(replay.run(h))
    local j4 = r.jobs[4]
    assert.are.equal(4, j4.id)
    -- rank 0 is drained when job 4 is released: it starts on time, on 1
    assert.are.equal("1", j4.job.pred_ranks)
    assert.is_true(j4.agree)
    os.remove(p)
  end)

  it("refuses a configuration it cannot honour", function()
    local p = variant(function(l)
      l[2] = l[2]:gsub('"queue%-policy":"easy"', '"queue-policy":"easy","queue-depth":8')
    end)
    local r, err = replay.run(assert(history.read(p)))
    assert.is_nil(r)
    assert.are.equal(p .. ":2: the configuration: queue-depth=8 (the job manager's limited " ..
      "mode) is not honoured by the replay: it hands the scheduler every job as it comes", err)
    os.remove(p)
    p = variant(function(l)
      l[2] = l[2]:gsub('"queue%-policy":"easy"', '"queue-policy":"nosuch"')
    end)
    r, err = replay.run(assert(history.read(p)))
    assert.is_nil(r)
    assert.matches("^" .. p:gsub("%p", "%%%0") .. ":2: the configuration: .*nosuch", err)
    os.remove(p)
  end)
end)

describe("grove sim --history", function()
  it("ends with the agreement line", function()
    local out, rc = exe.run(exe.GROVE .. " sim --history " .. FIX)
    assert.are.equal(0, rc)
    assert.matches("replay: 7 of 7 jobs start as they did %(within 1 s%)\n$", out)
    -- job 3 started at once under easy, behind job 2 under fcfs
    out, rc = exe.run(exe.GROVE .. " sim --history " .. FIX .. " --queue fcfs --within 100")
    assert.are.equal(0, rc)
    assert.matches("replay: 7 of 7 jobs start as they did %(within 100 s%)\n$", out)
  end)

  it("explains each difference of a what-if", function()
    local out, rc = exe.run(exe.GROVE .. " sim --history " .. FIX .. " --queue fcfs")
    assert.are.equal(0, rc)
    -- fcfs cannot backfill job 3: it waits behind job 2
    assert.matches("job 3 %(line 10%): actual %+2.020, predicted %+10.488: the replay's " ..
      "policies %(queue fcfs, placement first%) decide otherwise than the instance's " ..
      "%(easy, first%)", out)
    assert.matches("job 6 %(line 13%): actual %+6.030, predicted %+20.040: follows job 3", out)
    assert.matches("replay: 3 of 7 jobs start as they did %(within 1 s%)\n$", out)
  end)

  it("refuses a bad file whole: no replay line", function()
    local p = variant(function(l) l[#l] = nil end)
    local out, rc = exe.run(exe.GROVE .. " sim --history " .. p)
    assert.are.equal(1, rc)
    assert.are.equal("grove sim: " .. p .. ":14: truncated: the file ends without its end " ..
      "line (7 jobs read)\n", out)
    os.remove(p)
  end)

  it("refuses options it does not take", function()
    local out, rc = exe.run(exe.GROVE .. " sim --history " .. FIX .. " --cluster x.lua")
    assert.are.equal(2, rc)
    assert.matches("%-%-cluster cannot be given with it", out)
  end)
end)

describe("grove flux-export", function()
  it("is refused outside a Flux instance", function()
    local out, rc = exe.run("env -u FLUX_URI " .. exe.GROVE .. " flux-export")
    assert.are.equal(2, rc)
    assert.matches("not inside a Flux instance %(FLUX_URI is not set%)", out)
  end)
end)
