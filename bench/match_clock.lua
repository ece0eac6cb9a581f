-- match_clock: the cost of one match as the clock moves, per placement
-- policy, at 16,384 nodes: the jobs of a generated trace started in
-- submit order (every one fits: fcfs on an almost idle machine) and ended
-- at their run times, as `grove sim --queue fcfs` does, each match timed
-- (CPU time) around the one core.sim_match call the simulator makes.
--
--   build/grove bench/match_clock.lua [--jobs N] [POLICY ...]
--
-- POLICY: a built-in name or a Lua policy file (default: first, spread,
-- gpu, and every policies/*.lua).  The machine: 256 racks of 64 nodes of
-- 2 x 22 cores; the jobs: `grove sim --generate N --procs 4096 --seed 1`
-- (Lublin model, up to 4,096 cores each, requests of cores alone).
-- Prints per policy the matches, mean, p50, p99 and max (ms), and the
-- rankings kept (m:stats().ranks_kept: the matches that mended a kept
-- ranking of the nodes instead of making one).  A benchmark, not a test:
-- figures go in bench/RESULTS.md ("When the clock moves").
local core = require("grove.core")
local grove = require("grove")
local R = grove.cluster.resources

local njobs, policies = 3000, {}
local i = 1
while arg[i] do
  if arg[i] == "--jobs" then
    njobs = assert(math.tointeger(tonumber(arg[i + 1])), "--jobs N")
    i = i + 2
  else
    policies[#policies + 1] = arg[i]
    i = i + 1
  end
end
if #policies == 0 then
  policies = {"first", "spread", "gpu"}
  local ls = io.popen("ls policies/*.lua")
  for f in ls:lines() do policies[#policies + 1] = f end
  ls:close()
end

local function machine()
  return grove.cluster "m16k" {
    R.rack(256) { R.node(64, {hostnames = "n[0-16383]"}) { R.socket(2) { R.core(22) } } } }
end

-- the trace, generated as `grove sim --generate` writes it
local jobs = {}
local gen = require("grove.sim").gen.new{procs = 4096, seed = 1}
for j in gen:jobs(njobs) do jobs[#jobs + 1] = j end

local function run(pol)
  local g = machine()
  local m = core.matcher(g)
  if pol:match("%.lua$") then
    assert(m:set_policy(assert(grove.policy.load(pol))))
  else
    assert(m:set_policy(pol))
  end
  local ends, times = {}, {}
  for _, j in ipairs(jobs) do
    table.sort(ends, function(a, b) return a.t > b.t end)
    while #ends > 0 and ends[#ends].t <= j.submit do
      local e = table.remove(ends)
      g:set_now(e.t)
      assert(m:cancel(e.id))
    end
    g:set_now(j.submit)
    local js = core.jobspec_from_table(grove.jobspec{slots = j.procs, cores_per_slot = 1,
      duration = j.estimate})
    local t0 = os.clock()
    local state, msg = core.sim_match(m, js, "allocate", j.id, "core")
    times[#times + 1] = os.clock() - t0
    assert(state == "allocated", msg)
    ends[#ends + 1] = {t = j.submit + j.run, id = j.id}
  end
  table.sort(times)
  local sum = 0
  for _, t in ipairs(times) do sum = sum + t end
  local function q(p) return times[math.max(1, math.floor(#times * p))] * 1e3 end
  print(string.format("%-26s matches %d  mean %.3f ms  p50 %.3f  p99 %.3f  max %.3f  kept %d",
    pol:gsub(".*/", ""), #times, sum / #times * 1e3, q(0.5), q(0.99), times[#times] * 1e3,
    m:stats().ranks_kept))
  m:close()
end

for _, p in ipairs(policies) do run(p) end
