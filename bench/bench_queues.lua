-- bench_queues: every shipped queue policy against easy, and node events
-- against the same run without them, in grove sim end to end (the whole
-- process, timed by /usr/bin/time: user + system CPU seconds).
--
--   build/grove bench/bench_queues.lua [--quick] [--runs N] [--ef F[,F...]]
--       [--only 10k|100k] [--queues NAME[,NAME...]] [--events] [--out DIR]
--       [--check DIR]
--
-- Traces come from the generator (the Lublin-Feitelson 2003 model, seed 1),
-- as a user makes them:
--
--   grove sim --generate 10000 --procs 256 --seed 1 [--estimate-factor F] > t10k.swf
--   grove sim --generate 100000 --procs 1024 --seed 1 [--estimate-factor F] > t100k.swf
--
-- on machines of nodes of two sockets of four cores (m256: 4 racks of 8
-- nodes; m1024: 4 racks of 32 nodes), jobs as core slots (the default):
--
--   grove sim --cluster m256.lua --trace t10k.swf --queue Q [--param ...] --quiet
--
-- --ef: the estimate factors to run (default 1,3: exact estimates, and
-- requested times three times the run, where jobs end early and
-- conservative compresses its schedule at each end).  The queue
-- policies: fcfs, easy, conservative, backfill with depth 1, 2, 4, 16,
-- 64 and 1000000 (every job), priority, fairshare, queues.  Each row
-- prints the median CPU of --runs runs (default 1), its ratio to easy's
-- on the same trace (target <= 2 for conservative and backfill), and for
-- the 100k trace its ratio to the 10k one (target <= 12: linear).
--
-- --events: instead, easy, conservative and backfill depth 4 with node
-- events, against the same run without: on each machine, a quarter of the
-- nodes (8 of m256's 32, 32 of m1024's 128) go down for a day (down-1d)
-- or a month (down-30d), then up; and down for a day, then a tenth of the
-- nodes (3, 12) drained for good a week later (drain); or a tenth of the
-- nodes marked degraded=1 for a day, another tenth each day for 30 days
-- (property: 60 events).  Target: <= 1.5x the run without events, however
-- long the nodes stay out.
--
-- --out DIR keeps each run's per-job CSV there (NAME.csv); --check DIR
-- compares each with DIR/NAME.csv (a run of another build) and says
-- whether they are identical.
local quick, runs, only, out, check, events = false, 1, nil, nil, nil, false
local efs, queues_only = {1, 3}, nil
do
  local i = 1
  while arg[i] do
    local a, v = arg[i], arg[i + 1]
    if a == "--quick" then
      quick = true
      i = i + 1
    elseif a == "--events" then
      events = true
      i = i + 1
    else
      assert(v, a .. ": a value expected")
      if a == "--runs" then
        runs = assert(math.tointeger(tonumber(v)), "--runs N")
      elseif a == "--ef" then
        efs = {}
        for f in v:gmatch("[^,]+") do efs[#efs + 1] = assert(tonumber(f), "--ef F,F") end
      elseif a == "--only" then
        only = v
      elseif a == "--queues" then
        queues_only = {}
        for q in v:gmatch("[^,]+") do queues_only[q] = true end
      elseif a == "--out" then
        out = v
      elseif a == "--check" then
        check = v
      else
        error("unknown argument " .. a)
      end
      i = i + 2
    end
  end
end

local sim = dofile((arg[0]:match("^(.*/)") or "./") .. "sim_lib.lua")
local GROVE, dir, write, sh = sim.GROVE, sim.dir, sim.write, sim.sh
local median, loadavg = sim.median, sim.loadavg
if out then assert(os.execute("mkdir -p " .. out)) end

local function machine(name, racks, nodes)
  local path = ("%s/%s.lua"):format(dir, name)
  write(path, ([[
local grove = require("grove")
local R = grove.cluster.resources
return grove.cluster "%s" {
  R.rack(%d) { R.node(%d, {hostnames = "n[0-%d]"}) { R.socket(2) { R.core(4) } } } }
]]):format(name, racks, nodes, racks * nodes - 1))
  return path
end

local function trace(n, procs, ef)
  return sim.trace(("%s/t%d-%d-e%g.swf"):format(dir, n, procs, ef), n, procs,
    ("--estimate-factor %g"):format(ef))
end

-- Run a case --runs times: the median CPU seconds, and whether its CSV is
-- that of --check's.
local function run(name, cluster, tr, args)
  local cpus = {}
  local csv = ("%s/%s.csv"):format(out or dir, name)
  for r = 1, runs do
    local text = sh(("/usr/bin/time -f 'CPU %%U %%S' %s sim --cluster %s --trace %s %s " ..
      "--quiet --out %s"):format(GROVE, cluster, tr, args, csv))
    local u, s = text:match("CPU ([%d.]+) ([%d.]+)")
    assert(u, name .. " failed: " .. text)
    cpus[r] = tonumber(u) + tonumber(s)
  end
  local same = ""
  if check then
    local ref = ("%s/%s.csv"):format(check, name)
    local f = io.open(ref)
    if f then
      f:close()
      local _, ok = sh(("cmp -s %s %s"):format(csv, ref))
      same = ok and "  same CSV" or "  CSV DIFFERS"
    else
      same = "  (no CSV to check)"
    end
  end
  return median(cpus), same
end

local QUEUES = {
  {"fcfs", "--queue fcfs"},
  {"easy", "--queue easy"},
  {"conservative", "--queue conservative"},
  {"backfill-1", "--queue backfill --param depth=1"},
  {"backfill-2", "--queue backfill --param depth=2"},
  {"backfill-4", "--queue backfill --param depth=4"},
  {"backfill-16", "--queue backfill --param depth=16"},
  {"backfill-64", "--queue backfill --param depth=64"},
  {"backfill-all", "--queue backfill --param depth=1000000"},
  {"priority", "--queue priority"},
  {"fairshare", "--queue fairshare"},
  {"queues", "--queue queues"},
}

local SIZES = {{"10k", 10000, 256, "m256", 4, 8}, {"100k", 100000, 1024, "m1024", 4, 32}}

-- Call fn(ef, size, tr, cluster) for each estimate factor of --ef and each
-- of SIZES --only leaves: tr the size's trace at that factor, cluster its
-- machine.
local function each_size(fn)
  for _, ef in ipairs(efs) do
    for _, size in ipairs(SIZES) do
      if not only or only == size[1] then
        local n = quick and size[2] // 10 or size[2]
        fn(ef, size, trace(n, size[3], ef), machine(size[4], size[5], size[6]))
      end
    end
  end
end

local function targeted(name)
  return name == "conservative" or name:match("^backfill") ~= nil
end

local function policies()
  print(("grove sim, every queue policy against easy (%s, %d run%s each); CPU is user + system")
    :format(quick and "quick" or "full", runs, runs > 1 and "s" or ""))
  local at10k = {}
  each_size(function(ef, size, tr, cluster)
    at10k[ef] = at10k[ef] or {}
    local easy
    for _, q in ipairs(QUEUES) do
      if not queues_only or queues_only[q[1]] or q[1] == "easy" then
        local name = ("%s-e%g-%s"):format(size[1], ef, q[1])
        local cpu, same = run(name, cluster, tr, q[2])
        if q[1] == "easy" then easy = cpu end
        local ratio = easy and cpu / easy
        local note = ""
        if ratio and q[1] ~= "easy" then
          note = ("  %5.2fx easy"):format(ratio)
          if targeted(q[1]) and not quick then
            note = note .. (ratio <= 2 and " (<= 2: met)" or " (<= 2: NOT met)")
          end
        end
        if size[1] == "10k" then at10k[ef][q[1]] = cpu end
        if size[1] == "100k" and at10k[ef][q[1]] then
          local g = cpu / at10k[ef][q[1]]
          note = note .. ("  %5.1fx its 10k"):format(g)
          if not quick then
            note = note .. (g <= 12 and " (<= 12: met)" or " (<= 12: NOT met)")
          end
        end
        print(("%-5s ef %g %-13s cpu %7.2f s%s%s  [load %s]"):format(size[1], ef, q[1], cpu,
          note, same, loadavg()))
      end
    end
  end)
end

-- Node events: a quarter of the nodes down for `days`, then up; with
-- `drain`, a tenth more drained for good, a week after.
local function event_file(path, nodes, days, drain)
  local down = nodes // 4
  local t0 = 1000000
  local text = ("# %d nodes down for %g days%s\n%d down n[0-%d]\n%d up n[0-%d]\n"):format(
    down, days, drain and (", then %d drained for good"):format(nodes // 10) or "", t0,
    down - 1, t0 + days * 86400, down - 1)
  if drain then
    text = text .. ("%d drain n[%d-%d]\n"):format(t0 + 7 * 86400, nodes // 2,
      nodes // 2 + nodes // 10 - 1)
  end
  write(path, text)
  return path
end

-- Property events: every day for `days` days a tenth of the nodes
-- (another tenth each day) marked degraded=1, the mark taken away the
-- next day.  SWF jobs ask nothing of properties: what is measured is what
-- each change costs the loop (every reservation dropped and planned again).
local function property_file(path, nodes, days)
  local t0, tenth = 1000000, math.max(1, nodes // 10)
  local lines = {("# a tenth of the nodes degraded for a day, %d days running"):format(days)}
  for d = 0, days - 1 do
    local lo = (d * tenth) % nodes
    local hi = math.min(nodes - 1, lo + tenth - 1)
    local t = t0 + d * 86400
    lines[#lines + 1] = ("%d set n[%d-%d] degraded=1"):format(t, lo, hi)
    lines[#lines + 1] = ("%d unset n[%d-%d] degraded"):format(t + 86400 - 1, lo, hi)
  end
  write(path, table.concat(lines, "\n") .. "\n")
  return path
end

local EVENT_QUEUES = {
  {"easy", "--queue easy"},
  {"conservative", "--queue conservative"},
  {"backfill-4", "--queue backfill --param depth=4"},
}

local function node_events()
  print(("grove sim with node events against the same run without (%s, %d run%s each)")
    :format(quick and "quick" or "full", runs, runs > 1 and "s" or ""))
  each_size(function(ef, size, tr, cluster)
    local nodes = size[5] * size[6]
    local files = {
      {"down-1d", event_file(dir .. "/down-1d.txt", nodes, 1, false)},
      {"down-30d", event_file(dir .. "/down-30d.txt", nodes, 30, false)},
      {"drain", event_file(dir .. "/drain.txt", nodes, 1, true)},
      {"property", property_file(dir .. "/property.txt", nodes, 30)},
    }
    for _, q in ipairs(EVENT_QUEUES) do
      local base = run(("%s-e%g-%s"):format(size[1], ef, q[1]), cluster, tr, q[2])
      print(("%-5s ef %g %-13s %-9s cpu %7.2f s  [load %s]"):format(size[1], ef, q[1],
        "none", base, loadavg()))
      for _, f in ipairs(files) do
        local name = ("%s-e%g-%s-%s"):format(size[1], ef, q[1], f[1])
        local cpu, same = run(name, cluster, tr, q[2] .. " --events " .. f[2])
        local r = cpu / base
        print(("%-5s ef %g %-13s %-9s cpu %7.2f s  %5.2fx%s%s  [load %s]"):format(size[1],
          ef, q[1], f[1], cpu, r, quick and "" or (r <= 1.5 and " (<= 1.5: met)" or
          " (<= 1.5: NOT met)"), same, loadavg()))
      end
    end
  end)
end

if events then node_events() else policies() end
os.execute("rm -rf " .. dir)
