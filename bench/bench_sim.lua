-- bench_sim: grove sim end to end, as a user runs it: the whole process,
-- timed by /usr/bin/time -v (wall clock, user + system CPU, peak resident
-- memory).  Traces come from the generator (the Lublin-Feitelson 2003
-- model), so nothing is downloaded.
--
--   build/grove bench/bench_sim.lua [--quick] [--only NAME]
--
-- Cases (targets in parentheses):
--   easy-10k     10,000 jobs, 256 cores (32 nodes x 8), easy, core slots (<= 1 s)
--   overload     fcfs and easy on 256 cores with 5,000, 10,000 and 20,000
--                jobs at arrival factor 0.5 (a queue that keeps growing):
--                the cost must be linear in jobs (20k <= 2.5 x 10k)
--   easy-100k    100,000 jobs, 4,096 nodes of 2 x 16 cores, easy, whole
--                nodes, the low policy (<= 20 s)
--   cons-100k    the same under conservative (<= 40 s)
--   easy-100k-1c the same on 4,096 nodes of one core each (fewer vertices
--                per node: the cost of the matcher's walk below a node)
--   memory       peak memory of 20,000 and 100,000 jobs on the 256-core
--                machine: it should not grow with the trace
--   gaps         two jobs 10^9 s apart, and a generated trace with one
--                job at time 0 and the rest at Unix-epoch times: the time
--                series must cost what the events do, not the span
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
  local jobs = summary:match('\n "jobs": (%d+)') or "?"
  print(("%-16s %8s jobs  wall %7.2f s  cpu %7.2f s (sys %5.2f)  peak RSS %7.1f MB  status %s%s")
    :format(name, jobs, secs, user + sys, sys, rss / 1024, status or "?",
    target and ("  (target <= %g s: %s)"):format(target, user + sys <= target and "met" or
    "NOT met") or ""))
  return user + sys
end

local scale = quick and 10 or 1

-- A case of 100,000 jobs on the 4096-node machine of that name, by node.
local function big(name, machine, queue, target)
  return {name, function()
    measure(name, dir .. "/" .. machine .. ".lua", trace(100000 // scale, 4096, 0.7),
      "--queue " .. queue .. " --policy low --procs-as node", not quick and target or nil)
  end}
end

local cases = {
  {"easy-10k", function()
    measure("easy-10k", dir .. "/m256.lua", trace(10000 // scale, 256, 1), "--queue easy",
      not quick and 1 or nil)
  end},
  {"overload", function()
    for _, q in ipairs{"fcfs", "easy"} do
      local t = {}
      for _, n in ipairs{5000, 10000, 20000} do
        t[n] = measure(("%s-%dk-over"):format(q, n // 1000), dir .. "/m256.lua",
          trace(n // scale, 256, 0.5), "--queue " .. q)
      end
      print(("%-16s 20k / 10k = %.2f (target <= 2.5: %s)"):format(q, t[20000] / t[10000],
        t[20000] / t[10000] <= 2.5 and "met" or "NOT met"))
    end
  end},
  big("easy-100k", "m4096", "easy", 20),
  big("cons-100k", "m4096", "conservative", 40),
  big("easy-100k-1c", "m4096-1c", "easy", 60),
  {"gaps", function()
    local gap = dir .. "/gap.swf"
    write(gap, "1 0 -1 10 1 -1 -1 1 10 -1 1 1 -1 -1 1 -1 -1 -1\n" ..
      "2 1000000000 -1 10 1 -1 -1 1 10 -1 1 1 -1 -1 1 -1 -1 -1\n")
    measure("gap-1e9", dir .. "/m256.lua", gap, "--queue easy")
    -- one job at 0, then 10,000 jobs at Unix-epoch times
    local src = trace(10000 // scale, 256, 1)
    local epoch = dir .. "/epoch.swf"
    local out = assert(io.open(epoch, "w"))
    out:write("999999 0 -1 10 1 -1 -1 1 10 -1 1 1 -1 -1 1 -1 -1 -1\n")
    for line in io.lines(src) do
      if not line:match("^;") then
        local id, submit, rest = line:match("^(%d+)%s+(%d+)(.*)$")
        out:write(id, " ", tonumber(submit) + 1700000000, rest, "\n")
      end
    end
    out:close()
    measure("epoch-10k", dir .. "/m256.lua", epoch, "--queue easy")
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
