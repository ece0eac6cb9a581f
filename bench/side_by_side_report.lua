-- side_by_side_report.lua: the tables of bench/side_by_side.sh, from the
-- files its runs left (GNU time's report, the engines' outputs).
--
--   lua5.4 bench/side_by_side_report.lua WORKDIR "SIZES" THRU "ENGINES"
--
-- Every figure is the median over the repetitions; ratios are Grove over
-- the reference engine, from the same run.  Per-match cost of the stream
-- is (long stream - 100-job stream) / (THRU - 100), whole process; the
-- first and last jobs' cost is the median of the ELAPSED Grove printed for
-- jobs 1-100 and for the last 100 of the long stream.
--
-- This script only reads and prints: it must not run an engine.
local workdir, sizes, thru, engines = arg[1], arg[2], tonumber(arg[3]), arg[4]
if not (workdir and sizes and thru and engines) then
  io.stderr:write("usage: side_by_side_report.lua WORKDIR SIZES THRU ENGINES\n")
  os.exit(2)
end

-- grove.files from the source tree this script stands in (it runs under
-- a plain lua5.4, without Grove's paths)
local here = arg[0]:match("^(.*)/[^/]*$") or "."
package.path = here .. "/../lua/?.lua;" .. package.path
local read = require("grove.files").read

local function median(t)
  if #t == 0 then return nil end
  local c = {}
  for i, x in ipairs(t) do c[i] = x end
  table.sort(c)
  local m = (#c + 1) // 2
  return #c % 2 == 1 and c[m] or (c[m] + c[m + 1]) / 2
end

-- GNU time -v: wall and CPU seconds, peak resident kB.
local function gnu_time(path)
  local s = read(path)
  if not s then return nil end
  local user = tonumber(s:match("User time %(seconds%): ([%d.]+)"))
  local sys = tonumber(s:match("System time %(seconds%): ([%d.]+)"))
  local wall = 0
  for part in (s:match("Elapsed %(wall clock%) time %b(): ([%d:.]+)") or "0"):gmatch("[^:]+") do
    wall = wall * 60 + tonumber(part)
  end
  -- the script's own clock, finer than GNU time's hundredths
  local ns = tonumber(read(path:gsub("%.time$", ".wall_ns")) or "")
  if ns then wall = ns / 1e9 end
  return {cpu = user + sys, wall = wall,
    rss = tonumber(s:match("Maximum resident set size %(kbytes%): (%d+)"))}
end

-- Per-match times printed by an engine (ELAPSED or ELAPSE), in order.
local function elapsed(path)
  local t = {}
  for x in (read(path) or ""):gmatch("INFO: ELAPSED?=([%d.e+-]+)") do t[#t + 1] = tonumber(x) end
  return t
end

local function runs(n, eng, scen)
  local list, r = {}, 1
  while true do
    local base = ("%s/out/%s/%s/%s.%d"):format(workdir, n, eng, scen, r)
    local t = gnu_time(base .. ".time")
    if not t then break end
    t.base = base
    list[#list + 1] = t
    r = r + 1
  end
  return list
end

local function med(list, key)
  local v = {}
  for _, t in ipairs(list) do v[#v + 1] = t[key] end
  return median(v)
end

local function fmt_s(x)
  if not x then return "n/a" end
  if x >= 1 then return ("%.2f s"):format(x) end
  if x >= 1e-3 then return ("%.1f ms"):format(x * 1e3) end
  return ("%.0f us"):format(x * 1e6)
end

local function fmt_mb(kb) return kb and ("%.0f MB"):format(kb / 1024) or "n/a" end

local eng_list = {}
for e in engines:gmatch("%S+") do eng_list[#eng_list + 1] = e end
local has_ref = engines:find("ref") ~= nil

local function row(label, values, fmt)
  local cells = {label}
  for _, e in ipairs(eng_list) do cells[#cells + 1] = fmt(values[e]) end
  if has_ref then
    local g, r = values.grove, values.ref
    cells[#cells + 1] = (g and r and r ~= 0) and ("%.3f"):format(g / r) or "n/a"
  end
  print("| " .. table.concat(cells, " | ") .. " |")
end

local loads = {}
for n in sizes:gmatch("%d+") do
  print(("\n### %s nodes\n"):format(n))
  local head = {"metric"}
  for _, e in ipairs(eng_list) do head[#head + 1] = e == "ref" and "reference" or "Grove" end
  if has_ref then head[#head + 1] = "Grove / reference" end
  print("| " .. table.concat(head, " | ") .. " |")
  print("|" .. ("---|"):rep(#head))
  local v = {load_wall = {}, load_cpu = {}, load_rss = {}, whole = {}, whole_wall = {},
    whole_cpu = {}, whole_beyond = {}, per = {}, per_wall = {}, peak = {}, first = {}, last = {},
    mixed = {{}, {}, {}}}
  for _, e in ipairs(eng_list) do
    local load = runs(n, e, "load")
    v.load_wall[e], v.load_cpu[e], v.load_rss[e] = med(load, "wall"), med(load, "cpu"),
      med(load, "rss")
    local whole = runs(n, e, "whole")
    local w = {}
    for _, t in ipairs(whole) do w[#w + 1] = elapsed(t.base .. ".out")[1] end
    v.whole[e], v.whole_wall[e] = median(w), med(whole, "wall")
    v.whole_cpu[e] = med(whole, "cpu")
    -- what the command costs beyond reading the graph: the whole run's
    -- CPU less the load-only run's (GNU time counts in 10 ms steps)
    if v.whole_cpu[e] and v.load_cpu[e] then v.whole_beyond[e] = v.whole_cpu[e] - v.load_cpu[e] end
    -- the mixed file: K x (a), then K x (b), then K x (c)
    local per_kind = {{}, {}, {}}
    for _, t in ipairs(runs(n, e, "mixed")) do
      local el = elapsed(t.base .. ".out")
      local k = #el // 3
      for j = 1, 3 do
        local part = {}
        for i = (j - 1) * k + 1, j * k do part[#part + 1] = el[i] end
        per_kind[j][#per_kind[j] + 1] = median(part)
      end
    end
    for j = 1, 3 do v.mixed[j][e] = median(per_kind[j]) end
    local lo, hi = runs(n, e, "thru100"), runs(n, e, "thruhi")
    if #lo > 0 and #hi > 0 then
      v.per[e] = (med(hi, "cpu") - med(lo, "cpu")) / (thru - 100)
      v.per_wall[e] = (med(hi, "wall") - med(lo, "wall")) / (thru - 100)
      local first, last = {}, {}
      for _, t in ipairs(hi) do
        local el = elapsed(t.base .. ".out")
        local a, b = {}, {}
        for i = 1, math.min(100, #el) do a[#a + 1] = el[i] end
        for i = math.max(1, #el - 99), #el do b[#b + 1] = el[i] end
        first[#first + 1], last[#last + 1] = median(a), median(b)
      end
      v.first[e], v.last[e] = median(first), median(last)
    end
    local peak = 0
    for _, scen in ipairs({"load", "mixed", "whole", "thru100", "thruhi"}) do
      for _, t in ipairs(runs(n, e, scen)) do
        if t.rss and t.rss > peak then peak = t.rss end
        local l = read(t.base .. ".load")
        if l then loads[#loads + 1] = tonumber(l:match("^(%S+)")) end
      end
    end
    v.peak[e] = peak > 0 and peak or nil
  end
  row("load (quit only), whole process wall", v.load_wall, fmt_s)
  row("load (quit only), whole process CPU", v.load_cpu, fmt_s)
  row("load (quit only), peak resident", v.load_rss, fmt_mb)
  row("(d) whole machine, the match command as -e reports it (wall)", v.whole, fmt_s)
  row("(d) whole machine, whole process wall (load included)", v.whole_wall, fmt_s)
  row("(d) whole machine, whole process CPU (load included)", v.whole_cpu, fmt_s)
  row("(d) whole machine, CPU beyond the load-only run", v.whole_beyond, fmt_s)
  row("(a) one exclusive node, median -e time per match (mixed file)", v.mixed[1], fmt_s)
  row("(b) one core, median -e time per match (mixed file)", v.mixed[2], fmt_s)
  row("(c) 4 shared nodes, median -e time per match (mixed file)", v.mixed[3], fmt_s)
  row(("%d x (b), whole-process CPU per match"):format(thru), v.per, fmt_s)
  row(("%d x (b), whole-process wall per match"):format(thru), v.per_wall, fmt_s)
  row("(b) jobs 1-100, median -e time per match", v.first, fmt_s)
  row(("(b) jobs %d-%d, median -e time per match"):format(thru - 99, thru), v.last, fmt_s)
  row("peak resident over the command files", v.peak, fmt_mb)
  local mem = {}
  for r = 1, 100 do
    local s = read(("%s/out/%s/grove/memory.%d.rss"):format(workdir, n, r))
    if not s then break end
    mem[#mem + 1] = {tonumber(s:match("loaded_kb=(%d+)")), tonumber(s:match("held_kb=(%d+)")),
      tonumber(s:match("cancelled_kb=(%d+)")), tonumber(s:match("first_kb=(%d+)"))}
  end
  if #mem > 0 then
    local a, b, c, f = {}, {}, {}, {}
    for i, m in ipairs(mem) do a[i], b[i], c[i], f[i] = m[1], m[2], m[3], m[4] or m[1] end
    local la, lb, lc, lf = median(a), median(b), median(c), median(f)
    print(("\nGrove resident set, live session: after the load %s, with %d one-core jobs held " ..
      "%s (%.0f bytes a job), after cancelling them all %s (%.3f of the post-load figure)")
      :format(fmt_mb(la), thru, fmt_mb(lb), (lb - la) * 1024 / thru, fmt_mb(lc), lc / la))
    print(("after the first match %s: %.0f bytes a job after the first, cancelling all " ..
      "returns to %.3f of it"):format(fmt_mb(lf), (lb - lf) * 1024 / (thru - 1), lc / lf))
  end
end
if #loads > 0 then
  table.sort(loads)
  print(("\n1-minute load average during the runs: %.2f to %.2f"):format(loads[1], loads[#loads]))
end
