-- bench_sim: grove sim end to end, as a user runs it: the whole process,
-- timed by /usr/bin/time -v (wall clock, user + system CPU, peak resident
-- memory).  Traces come from the generator (the Lublin-Feitelson 2003
-- model), so nothing is downloaded.
--
--   build/grove bench/bench_sim.lua [--quick] [--only NAME]
--
-- Cases (targets in parentheses):
--   easy-10k     10,000 jobs, 256 cores (32 nodes x 8), easy, core slots (< 2 s)
--   easy-100k    100,000 jobs, 4,096 nodes of 2 x 16 cores, easy, whole
--                nodes, the low policy (< 60 s)
--   easy-100k-1c the same on 4,096 nodes of one core each (fewer vertices
--                per node: the cost of the matcher's walk below a node)
--   memory       peak memory of 20,000 and 100,000 jobs on the 256-core
--                machine: it should not grow with the trace
-- --quick runs each case on a tenth of the jobs.
local quick, only = false, nil
for i = 1, #arg do
  if arg[i] == "--quick" then quick = true end
  if arg[i] == "--only" then only = arg[i + 1] end
end

local GROVE = arg[-1] and arg[-1]:match("grove$") and arg[-1] or "build/grove"
local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p " .. dir))

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

write(dir .. "/m256.lua", [[
local grove = require("grove")
local R = grove.cluster.resources
return grove.cluster "m256" {
  R.rack(4) { R.node(8, {hostnames = "n[0-31]"}) { R.socket(2) { R.core(4) } } } }
]])
write(dir .. "/m4096.lua", [[
local grove = require("grove")
local R = grove.cluster.resources
return grove.cluster "m4096" {
  R.rack(64) { R.node(64, {hostnames = "n[0-4095]"}) { R.socket(2) { R.core(16) } } } }
]])
write(dir .. "/m4096-1c.lua", [[
local grove = require("grove")
local R = grove.cluster.resources
return grove.cluster "m4096" {
  R.rack(64) { R.node(64, {hostnames = "n[0-4095]"}) { R.core(1) } } }
]])

local function sh(cmd)
  local p = assert(io.popen(cmd .. " 2>&1"))
  local out = p:read("a")
  local ok = p:close()
  return out, ok
end

local function trace(n, procs, af)
  local path = ("%s/t%d-%d.swf"):format(dir, n, procs)
  local _, ok = sh(("%s sim --generate %d --procs %d --seed 1 --arrival-factor %s > %s"):format(
    GROVE, n, procs, af, path))
  assert(ok, "cannot generate " .. path)
  return path
end

local function measure(name, cluster, tr, args, target)
  local out = sh(("/usr/bin/time -v %s sim --cluster %s --trace %s %s --quiet " ..
    "--summary %s/%s.json"):format(GROVE, cluster, tr, args, dir, name))
  local wall = out:match("Elapsed %(wall clock%) time %(h:mm:ss or m:ss%): ([%d:.]+)")
  local secs = 0
  for part in (wall or "0"):gmatch("[%d.]+") do secs = secs * 60 + tonumber(part) end
  local user = tonumber(out:match("User time %(seconds%): ([%d.]+)")) or 0
  local sys = tonumber(out:match("System time %(seconds%): ([%d.]+)")) or 0
  local rss = tonumber(out:match("Maximum resident set size %(kbytes%): (%d+)")) or 0
  local status = out:match("Exit status: (%d+)")
  local f = io.open(("%s/%s.json"):format(dir, name))
  local summary = f and f:read("a") or ""
  if f then f:close() end
  local jobs = summary:match('"jobs": (%d+)') or "?"
  print(("%-14s %8s jobs  wall %7.2f s  cpu %7.2f s  peak RSS %7.1f MB  status %s%s"):format(
    name, jobs, secs, user + sys, rss / 1024, status or "?",
    target and ("  (target < %g s: %s)"):format(target, user + sys < target and "met" or
    "NOT met") or ""))
end

local scale = quick and 10 or 1
local cases = {
  {"easy-10k", function()
    measure("easy-10k", dir .. "/m256.lua", trace(10000 // scale, 256, 1), "--queue easy",
      not quick and 2 or nil)
  end},
  {"easy-100k", function()
    measure("easy-100k", dir .. "/m4096.lua", trace(100000 // scale, 4096, 0.7),
      "--queue easy --policy low --procs-as node", not quick and 60 or nil)
  end},
  {"easy-100k-1c", function()
    measure("easy-100k-1c", dir .. "/m4096-1c.lua", trace(100000 // scale, 4096, 0.7),
      "--queue easy --policy low --procs-as node", not quick and 60 or nil)
  end},
  {"memory", function()
    measure("mem-20k", dir .. "/m256.lua", trace(20000 // scale, 256, 1.5), "--queue easy")
    measure("mem-100k", dir .. "/m256.lua", trace(100000 // scale, 256, 1.5), "--queue easy")
  end},
}
print(("grove sim, end to end (%s); CPU is user + system"):format(quick and "quick" or "full"))
for _, c in ipairs(cases) do
  if not only or only == c[1] then c[2]() end
end
os.execute("rm -rf " .. dir)
