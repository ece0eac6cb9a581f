-- grove.sim.gen: synthetic workloads for any machine size, from the
-- Lublin-Feitelson model of rigid parallel jobs (U. Lublin and D. G.
-- Feitelson, "The workload on parallel supercomputers: modeling the
-- characteristics of rigid jobs", J. Parallel Distrib. Comput. 63(11),
-- 2003), with the model's published parameters.
--
--   local gen = require "grove.sim.gen"
--   local g = gen.new{procs = 256, seed = 1}
--   local job = g:next()      -- {id, submit, run, procs, estimate, user, type}
--   gen.write(io.stdout, {jobs = 10000, procs = 256, seed = 1})   -- SWF
--
-- The model, per job:
--   * two job streams, interactive and batch, each with its own arrival
--     process; a job comes from the stream whose next arrival is first;
--   * size: serial with probability SerialProb; otherwise log2(size) is
--     drawn from a two-stage uniform (uniform on [ULow, UMed] with
--     probability UProb, else on [UMed, UHi]), rounded to an integer (a
--     power of two) with probability Pow2Prob; UHi is log2 of the machine;
--   * run time: log(run) is hyper-gamma: gamma(a1, b1) with probability
--     p = pa * size + pb (kept in [0, 1]), else gamma(a2, b2), redrawn
--     above 12 (about two days);
--   * arrivals: log of the inter-arrival time at rush hours is gamma(aarr *
--     arar, barr) (redrawn above 13), stretched through the day by 48
--     half-hour weights proportional to the gamma(anum, bnum) density, so
--     jobs come mostly during working hours.
-- Gamma(a, b) has shape a and scale b (mean a * b).
--
-- What the model does not give is added here, plainly: the estimate
-- (requested time) is the run time times estimate_factor, rounded up
-- (default 1: exact estimates); the user is drawn from `users` users with
-- Zipf(1) weights; arrival_factor (default 1) stretches every
-- inter-arrival time, so a larger factor is a lighter load.  Sizes are
-- capped at the machine.  The random generator is xorshift64* seeded by
-- seed, so a seed gives the same trace everywhere.
local check = require("grove.check")

local M = {}

local exp, log, sqrt, floor = math.exp, math.log, math.sqrt, math.floor

-- Parameters, as published: [1] interactive, [2] batch.
M.params = {
  {serial = 0.1541, pow2 = 0.625, ulow = 1, umed_below_uhi = 2.5, uhi_below_machine = 1.5,
    uprob = 0.705, a1 = 3.8351, b1 = 0.6605, a2 = 7.073, b2 = 0.6856, pa = -0.0118,
    pb = 0.9156, aarr = 6.5510, barr = 0.6621, anum = 8.9186, bnum = 3.6680, arar = 0.9797},
  {serial = 0.2927, pow2 = 0.6686, ulow = 1.2, umed_below_uhi = 2, uhi_below_machine = 0,
    uprob = 0.875, a1 = 6.57, b1 = 0.823, a2 = 639.1, b2 = 0.0156, pa = -0.003,
    pb = 0.6986, aarr = 6.0415, barr = 0.8531, anum = 6.1271, bnum = 5.2740, arar = 1.0519},
}

local TOO_LONG_RUN = 12       -- log of the longest run time
local TOO_LONG_ARRIVAL = 13   -- log of the longest inter-arrival time
local BUCKETS = 48            -- half hours of a day
local BUCKET = 1800           -- seconds in one
local DAY_START = 11          -- the weights' day starts at this bucket

-- ---- random numbers ------------------------------------------------------------

local function rng(seed)
  local x = math.tointeger(seed) or floor(seed)
  x = x ~ 0x9E3779B97F4A7C15
  if x == 0 then x = 0x2545F4914F6CDD1D end
  return function()
    x = x ~ (x >> 12)
    x = x ~ (x << 25)
    x = x ~ (x >> 27)
    local r = x * 0x2545F4914F6CDD1D
    return ((r >> 11) + 0.5) * 2.0 ^ -53
  end
end

local function normal(u)
  -- Box-Muller; one of the pair is enough here
  return sqrt(-2 * log(u())) * math.cos(2 * math.pi * u())
end

-- Gamma(a, b) by Marsaglia and Tsang, boosted for a < 1.
local function gamma(u, a, b)
  if a < 1 then
    return gamma(u, a + 1, b) * u() ^ (1 / a)
  end
  local d = a - 1 / 3
  local c = 1 / sqrt(9 * d)
  while true do
    local z = normal(u)
    local v = 1 + c * z
    if v > 0 then
      v = v * v * v
      local w = u()
      if log(w) < 0.5 * z * z + d - d * v + d * log(v) then return d * v * b end
    end
  end
end

-- ln Gamma(x) (Lanczos).
local LANCZOS = {676.5203681218851, -1259.1392167224028, 771.32342877765313,
  -176.61503916999185, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
  1.5056327351493116e-7}
local function lngamma(x)
  if x < 0.5 then return log(math.pi / math.abs(math.sin(math.pi * x))) - lngamma(1 - x) end
  x = x - 1
  local s = 0.99999999999980993
  for i, c in ipairs(LANCZOS) do s = s + c / (x + i) end
  local t = x + 7.5
  return 0.5 * log(2 * math.pi) + (x + 0.5) * log(t) - t + log(s)
end

-- The regularized lower incomplete gamma P(a, x): series below a + 1,
-- continued fraction above.
local function gammap(a, x)
  if x <= 0 then return 0 end
  local gln = lngamma(a)
  if x < a + 1 then
    local ap, sum, del = a, 1 / a, 1 / a
    for _ = 1, 1000 do
      ap = ap + 1
      del = del * x / ap
      sum = sum + del
      if math.abs(del) < math.abs(sum) * 1e-12 then break end
    end
    return sum * exp(-x + a * log(x) - gln)
  end
  local b = x + 1 - a
  local c, d = 1e300, 1 / b
  local h = d
  for i = 1, 1000 do
    local an = -i * (i - a)
    b = b + 2
    d = an * d + b
    if math.abs(d) < 1e-300 then d = 1e-300 end
    c = b + an / c
    if math.abs(c) < 1e-300 then c = 1e-300 end
    d = 1 / d
    local del = d * c
    h = h * del
    if math.abs(del - 1) < 1e-12 then break end
  end
  return 1 - exp(-x + a * log(x) - gln) * h
end

local function gamma_cdf(x, a, b)
  return gammap(a, x / b)
end

-- ---- the model -------------------------------------------------------------------

local Gen = {}
Gen.__index = Gen

-- A generator.  opts: procs (machine size, required), seed (default 1),
-- estimate_factor (>= 1, default 1), users (default 32),
-- arrival_factor (> 0, default 1), types ("both" default, "batch",
-- "interactive"); any other key raises.
local OPTIONS = {procs = 1, seed = 1, estimate_factor = 1, users = 1, arrival_factor = 1,
  types = 1}
-- write's: new's and jobs
local WRITE_OPTIONS = {jobs = 1}
for k in pairs(OPTIONS) do WRITE_OPTIONS[k] = 1 end

function M.new(opts)
  if type(opts) ~= "table" then
    error(("bad argument #1 to 'new' (table expected, got %s)"):format(type(opts)), 2)
  end
  check.keys(opts, OPTIONS, 1, "new")
  local procs = opts.procs
  if math.type(procs) ~= "integer" or procs < 1 then
    error("bad argument #1 to 'new' (procs must be a positive integer)", 2)
  end
  local ef = opts.estimate_factor or 1
  if type(ef) ~= "number" or ef < 1 then
    error("bad argument #1 to 'new' (estimate_factor must be a number >= 1)", 2)
  end
  local af = opts.arrival_factor or 1
  if type(af) ~= "number" or af <= 0 then
    error("bad argument #1 to 'new' (arrival_factor must be a positive number)", 2)
  end
  local users = opts.users or 32
  if math.type(users) ~= "integer" or users < 1 then
    error("bad argument #1 to 'new' (users must be a positive integer)", 2)
  end
  local types = opts.types or "both"
  if types ~= "both" and types ~= "batch" and types ~= "interactive" then
    error("bad argument #1 to 'new' (types must be both, batch or interactive)", 2)
  end
  local self = setmetatable({procs = procs, u = rng(opts.seed or 1), ef = ef, af = af,
    id = 0, streams = {}}, Gen)
  local machine = log(procs, 2)
  for t, p in ipairs(M.params) do
    local uhi = math.max(0, machine - p.uhi_below_machine)
    local umed = math.max(math.min(p.ulow, uhi), uhi - p.umed_below_uhi)
    local s = {p = p, uhi = uhi, umed = umed, ulow = math.min(p.ulow, umed), weights = {},
      bucket = 0, points = 0, rem = 0, time = 0, type = t}
    local mean = 0
    for i = DAY_START, BUCKETS + DAY_START - 1 do
      local idx = (i - 1) % BUCKETS
      s.weights[idx] = gamma_cdf(i + 0.5, p.anum, p.bnum) - gamma_cdf(i - 0.5, p.anum, p.bnum)
      mean = mean + s.weights[idx]
    end
    mean = mean / BUCKETS
    for i = 0, BUCKETS - 1 do s.weights[i] = s.weights[i] / mean end
    if types == "both" or (types == "batch") == (t == 2) then
      self.streams[#self.streams + 1] = s
      self:advance(s)
    end
  end
  -- Zipf(1) over users: cumulative weights.
  local cum, total = {}, 0
  for i = 1, users do
    total = total + 1 / i
    cum[i] = total
  end
  for i = 1, users do cum[i] = cum[i] / total end
  self.user_cum = cum
  return self
end

-- The stream's next arrival time.
function Gen:advance(s)
  local u, p = self.u, s.p
  local g
  repeat g = gamma(u, p.aarr * p.arar, p.barr) until g <= TOO_LONG_ARRIVAL
  s.points = s.points + exp(g) * self.af / BUCKET
  local t = 0
  local w = s.weights
  while s.points > w[s.bucket] do
    s.points = s.points - w[s.bucket]
    s.bucket = (s.bucket + 1) % BUCKETS
    t = t + BUCKET
  end
  local rem = s.points / w[s.bucket]
  t = t + BUCKET * (rem - s.rem)
  s.rem = rem
  s.time = s.time + t
end

function Gen:size(s)
  local u, p = self.u, s.p
  local x = u()
  if x <= p.serial or self.procs == 1 then return 1 end
  local par
  if u() <= p.uprob then
    par = s.ulow + (s.umed - s.ulow) * u()
  else
    par = s.umed + (s.uhi - s.umed) * u()
  end
  if x <= p.serial + p.pow2 then par = floor(par + 0.5) end
  local n = floor(2 ^ par + 0.5)
  if n > self.procs then n = self.procs end
  if n < 1 then n = 1 end
  return n
end

function Gen:runtime(s, size)
  local u, p = self.u, s.p
  local pr = p.pa * size + p.pb
  if pr > 1 then pr = 1 elseif pr < 0 then pr = 0 end
  local hg
  repeat
    if u() <= pr then hg = gamma(u, p.a1, p.b1) else hg = gamma(u, p.a2, p.b2) end
  until hg <= TOO_LONG_RUN
  local run = floor(exp(hg))
  return run < 1 and 1 or run
end

function Gen:user()
  local x = self.u()
  local cum = self.user_cum
  local lo, hi = 1, #cum
  while lo < hi do
    local mid = (lo + hi) // 2
    if cum[mid] < x then lo = mid + 1 else hi = mid end
  end
  return lo
end

-- The next job: {id, submit, run, procs, estimate, user, type} with type
-- 1 (interactive) or 2 (batch).
function Gen:next()
  local s = self.streams[1]
  for i = 2, #self.streams do
    if self.streams[i].time < s.time then s = self.streams[i] end
  end
  local submit = floor(s.time)
  self:advance(s)
  local procs = self:size(s)
  local run = self:runtime(s, procs)
  self.id = self.id + 1
  local est = self.ef == 1 and run or math.ceil(run * self.ef)
  return {id = self.id, submit = submit, run = run, procs = procs, estimate = est,
    user = self:user(), type = s.type, queue = s.type}
end

-- An iterator over n jobs.
function Gen:jobs(n)
  local i = 0
  return function()
    i = i + 1
    if i > n then return nil end
    return self:next()
  end
end

-- Write opts.jobs jobs as SWF to fh (opts as for new, plus jobs).
function M.write(fh, opts)
  check.arg(opts, "table", 2, "write")
  check.keys(opts, WRITE_OPTIONS, 2, "write")
  local n = opts.jobs
  if math.type(n) ~= "integer" or n < 0 then
    error("bad argument #2 to 'write' (jobs must be a non-negative integer)", 2)
  end
  local o = {}
  for k, v in pairs(opts) do if k ~= "jobs" then o[k] = v end end
  local g = M.new(o)
  local header = {
    "Version: 2.2",
    "Computer: Grove synthetic workload",
    "Note: the Lublin-Feitelson 2003 model of rigid parallel jobs; queue 1 interactive, 2 batch",
    ("Note: seed %s, estimate factor %s, arrival factor %s"):format(tostring(opts.seed or 1),
      tostring(g.ef), tostring(g.af)),
    "MaxJobs: " .. n,
    "MaxRecords: " .. n,
    "MaxProcs: " .. g.procs,
  }
  require("grove.sim.trace").write_swf(fh, g:jobs(n), header)
end

M._gamma_cdf = gamma_cdf

return M
