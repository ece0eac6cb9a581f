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
--   queue-lua    queue policies written in Lua against the built-in easy,
--                on 10,000 and 100,000 jobs for 256 processors (seed 1)
--                on the 256-core machine, the median wall of --runs runs
--                (default 3) each: easy; short, easy with a one-line
--                priority (shortest estimate first); zero, easy with
--                priority = function() return 0 end (easy's decisions:
--                the summaries must agree); every, a schedule offering
--                every waiting job to ctx:start (ctx:queue()); every-next,
--                the same walking ctx:next() (targets: short and zero <=
--                1.5 x easy's wall, every <= 2 x)
-- --quick runs each case on a tenth of the jobs.
local quick, only, runs = false, nil, 3
for i = 1, #arg do
  if arg[i] == "--quick" then quick = true end
  if arg[i] == "--only" then only = arg[i + 1] end
  if arg[i] == "--runs" then runs = assert(math.tointeger(tonumber(arg[i + 1])), "--runs N") end
end

local sim = dofile((arg[0]:match("^(.*/)") or "./") .. "sim_lib.lua")
local GROVE, dir, write, sh = sim.GROVE, sim.dir, sim.write, sim.sh
local median, loadavg = sim.median, sim.loadavg

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

local function trace(n, procs, af)
  return sim.trace(("%s/t%d-%d.swf"):format(dir, n, procs), n, procs, "--arrival-factor " .. af)
end

-- One run, timed: wall and CPU seconds, system seconds, peak RSS in KB,
-- the exit status and the summary's text.
local function timed(name, cluster, tr, args)
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
  return secs, user + sys, sys, rss, status, summary
end

local function measure(name, cluster, tr, args, target)
  local secs, cpu, sys, rss, status, summary = timed(name, cluster, tr, args)
  local user = cpu - sys
  local jobs = summary:match('\n "jobs": (%d+)') or "?"
  print(("%-16s %8s jobs  wall %7.2f s  cpu %7.2f s (sys %5.2f)  peak RSS %7.1f MB  status %s%s")
    :format(name, jobs, secs, user + sys, sys, rss / 1024, status or "?",
    target and ("  (target <= %g s: %s)"):format(target, user + sys <= target and "met" or
    "NOT met") or ""))
  return user + sys
end

local scale = quick and 10 or 1

-- The queue policies of the queue-lua case: {name, --queue, target}.
write(dir .. "/short.lua", [[
return {name = "short", base = "easy", priority = function(job) return -job.estimate end}
]])
write(dir .. "/zero.lua", [[
return {name = "zero", base = "easy", priority = function() return 0 end}
]])
write(dir .. "/every.lua", [[
return {name = "every", schedule = function(ctx)
  for _, job in ipairs(ctx:queue()) do ctx:start(job) end
end}
]])
write(dir .. "/every-next.lua", [[
return {name = "every-next", schedule = function(ctx)
  local job = ctx:next()
  while job do
    local after = ctx:next(job)
    ctx:start(job)
    job = after
  end
end}
]])
local LUA_QUEUES = {{"easy", "easy"}, {"short", dir .. "/short.lua", 1.5},
  {"zero", dir .. "/zero.lua", 1.5}, {"every", dir .. "/every.lua", 2},
  {"every-next", dir .. "/every-next.lua", 2}}

-- The figures of a summary a decision changes (not the wall, the name).
local function decisions(summary)
  local keys = {}
  for _, k in ipairs{"jobs", "wait_mean", "wait_max", "utilization", "makespan",
    "bounded_slowdown"} do
    keys[#keys + 1] = summary:match('\n "' .. k .. '": ([^,\n]+)')
  end
  return table.concat(keys, " ")
end

local function queue_lua()
  for _, n in ipairs{10000, 100000} do
    local tr = trace(n // scale, 256, 1)
    local label = (n // scale) // 1000 .. "k"
    local base_wall, base_cpu, base_dec
    for _, q in ipairs(LUA_QUEUES) do
      local walls, cpus, summary = {}, {}, nil
      for r = 1, runs do
        local status
        walls[r], cpus[r], _, _, status, summary = timed(q[1], dir .. "/m256.lua", tr,
          "--queue " .. q[2])
        assert(status == "0", q[1] .. " failed on " .. tr)
      end
      local wall, cpu = median(walls), median(cpus)
      local note = ""
      if not base_wall then
        base_wall, base_cpu, base_dec = wall, cpu, decisions(summary)
      else
        note = ("  %.2fx easy's wall, %.2fx its CPU"):format(wall / base_wall, cpu / base_cpu)
        if q[3] and not quick then
          note = note .. (" (target <= %gx: %s)"):format(q[3],
            wall / base_wall <= q[3] and "met" or "NOT met")
        end
        if q[1] == "zero" then
          note = note .. (decisions(summary) == base_dec and ", easy's results" or
            ", RESULTS DIFFER from easy's")
        end
      end
      print(("%-5s %-11s wall %7.2f s  cpu %7.2f s%s  [load %s]"):format(label, q[1], wall, cpu,
        note, loadavg()))
    end
  end
end

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
  {"queue-lua", queue_lua},
}
print(("grove sim, end to end (%s); CPU is user + system"):format(quick and "quick" or "full"))
for _, c in ipairs(cases) do
  if not only or only == c[1] then c[2]() end
end
os.execute("rm -rf " .. dir)
