-- grove.sim.metrics: what a simulation is judged by, gathered as jobs end.
--
--   local acc = metrics.new{units = N, buckets = 400}
--   acc:job{submit =, start =, ["end"] =, procs =, state =}   -- per finished job
--   acc:level(t, busy, queued)       -- busy units and queue length from t on
--   acc:result{wall =, cpu =} -> the summary table (see docs/sim.md)
--
-- Definitions (times in seconds):
--   wait      start - submit, of every job that started and finished
--   bounded slowdown  max(1, (wait + run) / max(run, 10))
--   utilization  busy unit-seconds / (units * makespan), where makespan is
--             the last end minus the first submit, and a job is busy from
--             its start to its end (killed jobs until they were killed)
--   jobs per second: jobs finished / seconds of wall-clock time
-- Median and 95th percentile are exact (nearest rank): waits are kept as a
-- count per distinct value, so memory grows with the number of distinct
-- waits, not of jobs.  The time series (busy units, queue length) are
-- time-weighted averages over at most 2 * buckets equal intervals; the
-- interval doubles when they would not fit, so memory stays bounded.
--
-- It must not hold the clock, the queue or any output file: it only
-- accumulates what it is told and summarizes it.
local M = {}

local Acc = {}
Acc.__index = Acc

function M.new(opts)
  opts = opts or {}
  return setmetatable({units = opts.units or 0, nbuckets = opts.buckets or 400, jobs = 0,
    killed = 0, wait_sum = 0, bsld_sum = 0, waits = {}, busy_us = 0, first = nil, last = nil,
    max_wait = 0, width = opts.width or 60, origin = nil, util = {}, queue = {},
    lt = nil, lbusy = 0, lqueue = 0, max_queue = 0}, Acc)
end

-- A job that finished (state "done") or was killed.
function Acc:job(j)
  local run = j["end"] - j.start
  self.busy_us = self.busy_us + run * (j.procs or 0)
  if j.state == "killed" then
    self.killed = self.killed + 1
  else
    local wait = j.start - j.submit
    self.jobs = self.jobs + 1
    self.wait_sum = self.wait_sum + wait
    self.waits[wait] = (self.waits[wait] or 0) + 1
    if wait > self.max_wait then self.max_wait = wait end
    local bsld = (wait + run) / math.max(run, 10)
    self.bsld_sum = self.bsld_sum + (bsld < 1 and 1 or bsld)
  end
  if not self.first or j.submit < self.first then self.first = j.submit end
  if not self.last or j["end"] > self.last then self.last = j["end"] end
end

-- Note a submit time (a job that never ran still opens the makespan).
function Acc:submitted(t)
  if not self.first or t < self.first then self.first = t end
end

-- Add the segment [a, b) at the current levels to the buckets.
function Acc:segment(a, b)
  local w = self.width
  while a < b do
    local k = (a - self.origin) // w
    local e = math.min(b, self.origin + (k + 1) * w)
    local d = e - a
    local i = k + 1
    self.util[i] = (self.util[i] or 0) + self.lbusy * d
    self.queue[i] = (self.queue[i] or 0) + self.lqueue * d
    a = e
  end
  -- Too many buckets: double the width, merging pairs.
  while #self.util > 2 * self.nbuckets do
    local u, q = {}, {}
    for i = 1, #self.util, 2 do
      local k = (i + 1) // 2
      u[k] = (self.util[i] or 0) + (self.util[i + 1] or 0)
      q[k] = (self.queue[i] or 0) + (self.queue[i + 1] or 0)
    end
    self.util, self.queue, self.width = u, q, 2 * w
    w = self.width
  end
end

-- From time t on, busy units and queued jobs are these.
function Acc:level(t, busy, queued)
  if not self.origin then self.origin, self.lt = t, t end
  if t > self.lt then
    self:segment(self.lt, t)
    self.lt = t
  end
  self.lbusy, self.lqueue = busy, queued
  if queued > self.max_queue then self.max_queue = queued end
end

-- Nearest-rank percentile p (0-100] of the waits.
function Acc:percentile(p)
  if self.jobs == 0 then return 0 end
  local keys = {}
  for k in pairs(self.waits) do keys[#keys + 1] = k end
  table.sort(keys)
  local rank = math.max(1, math.ceil(p / 100 * self.jobs))
  local seen = 0
  for _, k in ipairs(keys) do
    seen = seen + self.waits[k]
    if seen >= rank then return k end
  end
  return keys[#keys]
end

-- The series: {width =, origin =, t = {...}, utilization = {...}, queue = {...}},
-- one point per bucket (its start time), utilization as a fraction of units.
function Acc:series()
  local s = {width = self.width, origin = self.origin or 0, t = {}, utilization = {}, queue = {}}
  local n = #self.util
  for i = 1, n do
    local t0 = s.origin + (i - 1) * self.width
    local span = self.width
    if self.lt and t0 + span > self.lt then span = math.max(1, self.lt - t0) end
    s.t[i] = t0
    s.utilization[i] = self.units > 0 and (self.util[i] or 0) / span / self.units or 0
    s.queue[i] = (self.queue[i] or 0) / span
  end
  return s
end

-- The summary.  run: {wall =, cpu =, left_out =, queue =, policy =, ...}
-- copied in as they are.
function Acc:result(run)
  local r = {}
  for k, v in pairs(run or {}) do r[k] = v end
  local makespan = self.first and self.last and (self.last - self.first) or 0
  r.jobs = self.jobs
  r.killed = self.killed
  r.units = self.units
  r.makespan = makespan
  r.wait_mean = self.jobs > 0 and self.wait_sum / self.jobs or 0
  r.wait_median = self:percentile(50)
  r.wait_p95 = self:percentile(95)
  r.wait_max = self.max_wait
  r.bounded_slowdown = self.jobs > 0 and self.bsld_sum / self.jobs or 0
  r.utilization = (makespan > 0 and self.units > 0) and self.busy_us / (self.units * makespan)
    or 0
  r.queue_max = self.max_queue
  if run and run.wall and run.wall > 0 then
    r.jobs_per_second = (self.jobs + self.killed) / run.wall
  end
  r.series = self:series()
  return r
end

return M
