-- grove.sim.metrics: what a simulation is judged by, gathered as jobs end.
--
--   local acc = metrics.new{units = N, buckets = 400}
--   acc:job{submit =, start =, ["end"] =, procs =, state =, user =, nodes =, racks =,
--           domains =, stranded =, predicted_first =, predicted_last =, seen =,
--           seen_within =}                                 -- per finished job
--   acc:level(t, busy, queued [, down])  -- busy and down units, queue length from t on
--   acc:result{wall =, cpu =} -> the summary table (see docs/sim.md)
--
-- Definitions (times in seconds):
--   wait      start - submit, of every job that started and ran to its end
--             or to its time limit (state "done" or "timeout")
--   bounded slowdown  max(1, (wait + run) / max(run, 10))
--   utilization  busy unit-seconds / (units * makespan), where makespan is
--             the last end minus the first submit, and a job is busy from
--             its start to its end (killed jobs until they were killed)
--   jobs per second: jobs finished / seconds of wall-clock time
-- Median, 95th and 99th percentiles are exact (nearest rank) for waits:
-- they are kept as a count per distinct value, so memory grows with the
-- number of distinct waits, not of jobs; slowdowns are counted the same
-- way at a thousandth.  The same figures are kept per user and per size
-- class (1, 2, 3-4, 5-8, ... units).  The distribution of the waits
-- (wait_cdf) is at most CDF_POINTS exact points of it.  The time series (busy, down and idle
-- units, queue length) are time-weighted averages over at most 2 *
-- buckets equal intervals; the interval doubles when they would not fit,
-- before a long span is added, so the cost of a span is bounded by the
-- number of intervals, whatever its length: time and memory grow with
-- the events, not with the simulated time.
--
-- Placement, per job that ran (the same jobs as the waits): the nodes,
-- racks and locality domains it spanned and the cores it left stranded
-- (row fields nodes, racks, domains, stranded; a field the row lacks is
-- not counted), as means, and the share of jobs that spanned more than
-- one rack or domain.
--
-- Start estimates, per job that ran and was shown one (row fields
-- predicted_first, predicted_last: the first and the last start
-- estimate before it started; seen and seen_within: the seconds of its
-- wait an estimate was shown, and within the band): an estimate is
-- within the band when it is off the actual start by at most 10% of the
-- actual wait or 5 minutes, whichever is more (M.BAND, M.within).  For
-- the first and the last estimate: the share within the band, and the
-- median and 90th percentile of the error |estimate - start| (exact,
-- counted at a millisecond); seen_within: the share of the seconds an
-- estimate was shown during which it was within the band; first_kept:
-- the share of jobs that started no later than their first estimate (a
-- second after it at most), an estimate kept as a promise.
--
-- It must not hold the clock, the queue or any output file: it only
-- accumulates what it is told and summarizes it.
local check = require("grove.check")

local M = {}

-- The band a start estimate is judged by: within rel of the actual wait,
-- or abs seconds, whichever is more.
M.BAND = {rel = 0.1, abs = 300}

-- Whether an estimate off the actual start by err seconds is within the
-- band of a job that waited wait seconds.
function M.within(err, wait)
  if err < 0 then err = -err end
  local tol = M.BAND.rel * wait
  if tol < M.BAND.abs then tol = M.BAND.abs end
  return err <= tol
end
local within = M.within

local Acc = {}
Acc.__index = Acc

-- A group of jobs' waits and slowdowns.
local function group()
  return {jobs = 0, wait_sum = 0, bsld_sum = 0, waits = {}, bslds = {}, max_wait = 0,
    nodes_n = 0, nodes_sum = 0, racks_n = 0, racks_sum = 0, racks_multi = 0, domains_n = 0,
    domains_sum = 0, domains_multi = 0, stranded_n = 0, stranded_sum = 0}
end

-- The placement of a job that ran (row: see above).
local function place(gr, row)
  local n, r, d, st = row.nodes, row.racks, row.domains, row.stranded
  if n then gr.nodes_n, gr.nodes_sum = gr.nodes_n + 1, gr.nodes_sum + n end
  if r then
    gr.racks_n, gr.racks_sum = gr.racks_n + 1, gr.racks_sum + r
    if r > 1 then gr.racks_multi = gr.racks_multi + 1 end
  end
  if d then
    gr.domains_n, gr.domains_sum = gr.domains_n + 1, gr.domains_sum + d
    if d > 1 then gr.domains_multi = gr.domains_multi + 1 end
  end
  if st then gr.stranded_n, gr.stranded_sum = gr.stranded_n + 1, gr.stranded_sum + st end
end

-- The start estimates of every job: shown to how many, for each of the
-- first and the last how many were within the band and the count of each
-- error (at a millisecond), and the seconds shown and within.
local function estimates()
  return {jobs = 0, none = 0, first_within = 0, first_errs = {}, last_within = 0,
    last_errs = {}, seen = 0, seen_within = 0, changes = 0, first_kept = 0}
end

local function ms(x)
  if x < 0 then x = -x end
  return math.floor(x * 1000 + 0.5) / 1000
end

local function estimate(es, row)
  local f, l = row.predicted_first, row.predicted_last
  if not f then
    es.none = es.none + 1
    return
  end
  local start, wait = row.start, row.start - row.submit
  es.jobs = es.jobs + 1
  local ef, el = ms(f - start), ms(l - start)
  es.first_errs[ef] = (es.first_errs[ef] or 0) + 1
  es.last_errs[el] = (es.last_errs[el] or 0) + 1
  if within(ef, wait) then es.first_within = es.first_within + 1 end
  -- a promise kept: it started no later than its first estimate (a
  -- second's slack: the clock's tick, a live instance's latency)
  if start <= f + 1 then es.first_kept = es.first_kept + 1 end
  if within(el, wait) then es.last_within = es.last_within + 1 end
  es.seen = es.seen + (row.seen or 0)
  es.seen_within = es.seen_within + (row.seen_within or 0)
  es.changes = es.changes + (row.predictions or 1)
end

local function add(gr, wait, bsld)
  gr.jobs = gr.jobs + 1
  gr.wait_sum = gr.wait_sum + wait
  gr.waits[wait] = (gr.waits[wait] or 0) + 1
  if wait > gr.max_wait then gr.max_wait = wait end
  gr.bsld_sum = gr.bsld_sum + bsld
  local k = math.floor(bsld * 1000 + 0.5)
  gr.bslds[k] = (gr.bslds[k] or 0) + 1
end

-- Nearest-rank percentile p (0-100] of a count table of n values.
local function percentile(counts, n, p)
  if n == 0 then return 0 end
  local keys = {}
  for k in pairs(counts) do keys[#keys + 1] = k end
  table.sort(keys)
  local rank = math.max(1, math.ceil(p / 100 * n))
  local seen = 0
  for _, k in ipairs(keys) do
    seen = seen + counts[k]
    if seen >= rank then return k end
  end
  return keys[#keys]
end

-- The summary of a group.
local function mean(sum, n)
  if n == 0 then return nil end
  return sum / n
end

local function summarize(gr)
  local n = gr.jobs
  return {jobs = n, wait_mean = n > 0 and gr.wait_sum / n or 0,
    wait_median = percentile(gr.waits, n, 50), wait_p95 = percentile(gr.waits, n, 95),
    wait_p99 = percentile(gr.waits, n, 99), wait_max = gr.max_wait,
    bounded_slowdown = n > 0 and gr.bsld_sum / n or 0,
    bsld_median = percentile(gr.bslds, n, 50) / 1000,
    bsld_p95 = percentile(gr.bslds, n, 95) / 1000,
    nodes_mean = mean(gr.nodes_sum, gr.nodes_n), racks_mean = mean(gr.racks_sum, gr.racks_n),
    racks_multi = mean(gr.racks_multi, gr.racks_n),
    domains_mean = mean(gr.domains_sum, gr.domains_n),
    domains_multi = mean(gr.domains_multi, gr.domains_n),
    stranded_mean = mean(gr.stranded_sum, gr.stranded_n)}
end

-- The summary of the start estimates (see above), into r.
local function summarize_estimates(es, r)
  local n = es.jobs
  r.est_jobs, r.est_none = n, es.none
  r.est_band = {rel = M.BAND.rel, abs = M.BAND.abs}
  if n == 0 then return end
  r.est_first_within = es.first_within / n
  r.est_first_median = percentile(es.first_errs, n, 50)
  r.est_first_p90 = percentile(es.first_errs, n, 90)
  r.est_last_within = es.last_within / n
  r.est_last_median = percentile(es.last_errs, n, 50)
  r.est_last_p90 = percentile(es.last_errs, n, 90)
  r.est_seen_within = es.seen > 0 and es.seen_within / es.seen or nil
  r.est_changes_mean = es.changes / n
  r.est_first_kept = es.first_kept / n
end

-- The most points of the wait distribution a summary keeps.
M.CDF_POINTS = 400

-- The distribution of the waits of a count table of n values: {wait =
-- {...}, fraction = {...}}, each point (w, the fraction of the jobs that
-- waited w or less) exact.  With more distinct waits than CDF_POINTS,
-- only the first wait that reaches each of CDF_POINTS equal steps of the
-- fraction is kept, and the largest wait: a summary stays small however
-- many distinct waits a run has.
local function cdf(counts, n)
  local keys = {}
  for k in pairs(counts) do keys[#keys + 1] = k end
  table.sort(keys)
  local out = {wait = {}, fraction = {}}
  -- in whole numbers: step k is reached when seen * CDF_POINTS >= k * n
  local thin, steps = #keys > M.CDF_POINTS, M.CDF_POINTS
  local seen, next_k = 0, 0
  for i, k in ipairs(keys) do
    seen = seen + counts[k]
    if not thin or seen * steps >= next_k * n or i == #keys then
      out.wait[#out.wait + 1], out.fraction[#out.fraction + 1] = k, seen / n
      next_k = seen * steps // n + 1
    end
  end
  return out
end
M.cdf = cdf

-- The size class of p units: 1, 2, 3-4, 5-8, ...; its upper bound.
local function size_class(p)
  local c = 1
  while c < p do c = c * 2 end
  return c
end
M.size_class = size_class

-- new's options: units (the machine's), buckets (400), width (the first
-- interval, 60 seconds); any other key raises.
local OPTIONS = {units = 1, buckets = 1, width = 1}

function M.new(opts)
  check.keys(opts, OPTIONS, 1, "new")
  opts = opts or {}
  return setmetatable({units = opts.units or 0, nbuckets = opts.buckets or 400, jobs = 0,
    killed = 0, killed_walltime = 0, all = group(), users = {}, sizes = {}, busy_us = 0,
    est = estimates(),
    down_us = 0, first = nil, last = nil, width = opts.width or 60, origin = nil, util = {},
    queue = {}, down = {}, nbk = 0, lt = nil, lbusy = 0, lqueue = 0, ldown = 0,
    max_queue = 0}, Acc)
end

-- A job that finished (state "done"), reached its time limit ("timeout")
-- or was killed by a node going down ("killed").
function Acc:job(j)
  local run = j["end"] - j.start
  self.busy_us = self.busy_us + run * (j.procs or 0)
  if j.state == "killed" then
    self.killed = self.killed + 1
  else
    if j.state == "timeout" then self.killed_walltime = self.killed_walltime + 1 end
    local wait = j.start - j.submit
    self.jobs = self.jobs + 1
    local bsld = (wait + run) / math.max(run, 10)
    if bsld < 1 then bsld = 1 end
    add(self.all, wait, bsld)
    place(self.all, j)
    estimate(self.est, j)
    if j.user ~= nil then
      local u = self.users[j.user]
      if not u then
        u = group()
        self.users[j.user] = u
      end
      add(u, wait, bsld)
      place(u, j)
    end
    local c = size_class(j.procs or 1)
    local sg = self.sizes[c]
    if not sg then
      sg = group()
      self.sizes[c] = sg
    end
    add(sg, wait, bsld)
    place(sg, j)
  end
  if not self.first or j.submit < self.first then self.first = j.submit end
  if not self.last or j["end"] > self.last then self.last = j["end"] end
end

-- Note a submit time (a job that never ran still opens the makespan).
function Acc:submitted(t)
  if not self.first or t < self.first then self.first = t end
end

-- Double the interval, merging pairs.
local function widen(self)
  local u, q, d = {}, {}, {}
  local n = 0
  for i = 1, self.nbk, 2 do
    n = n + 1
    u[n] = self.util[i] + (self.util[i + 1] or 0)
    q[n] = self.queue[i] + (self.queue[i + 1] or 0)
    d[n] = self.down[i] + (self.down[i + 1] or 0)
  end
  self.util, self.queue, self.down, self.nbk = u, q, d, n
  self.width = 2 * self.width
end

-- Add the segment [a, b) at the current levels to the buckets.
function Acc:segment(a, b)
  -- First widen until b fits: a span costs at most 2 * buckets steps.
  while (b - 1 - self.origin) // self.width >= 2 * self.nbuckets do widen(self) end
  local w = self.width
  local util, queue, down = self.util, self.queue, self.down
  while a < b do
    local k = (a - self.origin) // w
    local e = math.min(b, self.origin + (k + 1) * w)
    local d = e - a
    local i = k + 1
    while self.nbk < i do
      self.nbk = self.nbk + 1
      util[self.nbk], queue[self.nbk], down[self.nbk] = 0, 0, 0
    end
    util[i] = util[i] + self.lbusy * d
    queue[i] = queue[i] + self.lqueue * d
    down[i] = down[i] + self.ldown * d
    a = e
  end
end

-- From time t on, busy units, queued jobs and units down (or drained) are
-- these.
function Acc:level(t, busy, queued, down)
  if not self.origin then self.origin, self.lt = t, t end
  if t > self.lt then
    self.down_us = self.down_us + self.ldown * (t - self.lt)
    self:segment(self.lt, t)
    self.lt = t
  end
  self.lbusy, self.lqueue, self.ldown = busy, queued, down or 0
  if queued > self.max_queue then self.max_queue = queued end
end

-- Nearest-rank percentile p (0-100] of the waits.
function Acc:percentile(p)
  return percentile(self.all.waits, self.all.jobs, p)
end

-- The series: {width =, origin =, t = {...}, utilization = {...}, down =
-- {...}, idle = {...}, queue = {...}}, one point per bucket (its start
-- time), utilization, down and idle as fractions of units.
function Acc:series()
  local s = {width = self.width, origin = self.origin or 0, t = {}, utilization = {}, queue = {},
    down = {}, idle = {}}
  for i = 1, self.nbk do
    local t0 = s.origin + (i - 1) * self.width
    local span = self.width
    if self.lt and t0 + span > self.lt then span = math.max(1, self.lt - t0) end
    s.t[i] = t0
    local units = self.units > 0 and self.units or 1
    local u = self.util[i] / span / units
    local d = self.down[i] / span / units
    s.utilization[i], s.down[i] = u, d
    s.idle[i] = math.max(0, 1 - u - d)
    s.queue[i] = self.queue[i] / span
  end
  return s
end

-- A list of {key =, jobs =, wait_... =, ...} sorted by key.
local function listed(groups, keyname)
  local keys = {}
  for k in pairs(groups) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b)
    if type(a) == type(b) then return a < b end
    return type(a) == "number"
  end)
  local out = {}
  for i, k in ipairs(keys) do
    local r = summarize(groups[k])
    r[keyname] = k
    out[i] = r
  end
  return out
end

-- The summary.  run: {wall =, cpu =, left_out =, queue =, policy =, ...}
-- copied in as they are.
function Acc:result(run)
  local r = {}
  for k, v in pairs(run or {}) do r[k] = v end
  local makespan = self.first and self.last and (self.last - self.first) or 0
  for k, v in pairs(summarize(self.all)) do r[k] = v end
  r.wait_cdf = cdf(self.all.waits, self.all.jobs)
  summarize_estimates(self.est, r)
  r.killed = self.killed
  r.killed_walltime = self.killed_walltime
  r.units = self.units
  r.makespan = makespan
  r.utilization = (makespan > 0 and self.units > 0) and self.busy_us / (self.units * makespan)
    or 0
  r.down = (makespan > 0 and self.units > 0) and self.down_us / (self.units * makespan) or 0
  r.queue_max = self.max_queue
  if run and run.wall and run.wall > 0 then
    r.jobs_per_second = (self.jobs + self.killed) / run.wall
  end
  r.by_user = listed(self.users, "user")
  local sizes = listed(self.sizes, "size")
  for _, s in ipairs(sizes) do
    local lo = s.size // 2 + 1
    s.class = lo == s.size and tostring(s.size) or string.format("%d-%d", lo, s.size)
  end
  r.by_size = sizes
  r.series = self:series()
  return r
end

return M
