-- sim_demo: a generated workload on a small machine under two queue
-- policies, with the metrics side by side.
--
--   build/grove examples/sim_demo.lua
--
-- 2,000 jobs from the Lublin-Feitelson model (grove.sim.gen) for a machine
-- of 128 cores (16 nodes of 2 sockets x 4 cores), estimates twice the run
-- time, run through grove.sim with fcfs and with easy backfilling.
local grove = require("grove")
local sim = grove.sim
local plot = require("grove.sim.plot")
local R = grove.cluster.resources

local function machine()
  return grove.cluster "demo" {
    R.rack(2) { R.node(8, { hostnames = "node[0-15]" }) { R.socket(2) { R.core(4) } } } }
end

local gen = sim.gen
local g = gen.new{procs = 128, seed = 42, estimate_factor = 2, arrival_factor = 0.8}
local jobs = {}
for j in g:jobs(2000) do jobs[#jobs + 1] = j end

local results = {}
for _, queue in ipairs{"fcfs", "easy"} do
  local s = assert(sim.new{graph = machine(), queue = queue, policy = "first"})
  s:feed(sim.trace.from_list(jobs))
  local t0 = os.clock()
  assert(s:run())
  results[#results + 1] = s:result{wall = os.clock() - t0}
end

-- the metrics in the order `grove sim --compare` shows them: whole
-- numbers as they are, others to three places; a metric neither run has
-- (the start estimates, when no job was shown one) is left out, one run
-- lacks is "-"
print(("2000 generated jobs on %d cores"):format(results[1].units))
print(("%-28s %12s %12s"):format("", "fcfs", "easy"))
for _, m in ipairs(plot.compared) do
  local v, any = {}, false
  for i = 1, 2 do
    local x = tonumber(results[i][m[1]])
    any = any or x ~= nil
    v[i] = x == nil and "-" or math.type(x) == "integer" and tostring(x) or ("%.3f"):format(x)
  end
  if any then print(("%-28s %12s %12s"):format(m[2], v[1], v[2])) end
end
