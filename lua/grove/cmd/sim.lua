-- grove sim: simulate a batch queue on a cluster with the real matcher
-- (grove.sim), generate workloads (grove.sim.gen), compare runs.
--
-- Exit status: 0; 1 when the simulation failed (a policy error, an
-- unreadable or malformed file, with FILE:LINE: reason on stderr); 2 for a
-- bad command line; 128 + the signal's number when SIGINT or SIGTERM
-- stopped the run.  A run stopped by its queue policy's limit (budget,
-- time, memory) or by a signal still writes its summary so far, marked
-- partial.
local sim = require("grove.sim")
local core = require("grove.core")
local files = require("grove.files")
local plot = require("grove.sim.plot")
local groups = require("grove.sim.groups")
local machine = require("grove.sim.machine")
local levels = require("grove.levels")
local options = require("grove.options")
local output = require("grove.sim.output")

local M = {}

local fmt = string.format

M.usage = [[
Usage: grove sim [--cluster FILE] --trace FILE [options]
       grove sim trace FILE [trace options] [--procs P] [--out FILE.swf]
       grove sim --generate N --procs P [--seed S] [--estimate-factor F]
                 [--arrival-factor F] [--users U] [--types both|batch|interactive]
       grove sim --compare A.json B.json [C.json ...] [--plot DIR] [--force]
                 [--by user|size]
       grove sim --history FILE [--queue Q] [--policy P] [--within S] [--out FILE.csv]
                 [--summary FILE.json] [--actual FILE.json] [--all-jobs]

Simulate a batch queue on the real matcher: jobs from a trace arrive, a
queue policy starts them through the matcher on the cluster's graph, and
they end after their run time.

  --cluster FILE      the machine: GRUG .graphml, JGF .json, or a Lua file
                      returning a graph; without it, an SWF trace's header
                      (MaxNodes, MaxProcs) sizes one (stderr says how)
  --trace FILE        the jobs: Standard Workload Format (.swf, or any other
                      name), a JSON job list (.json) or CSV (.csv); "-" reads
                      SWF from standard input
  --format F          read the trace as swf, json, csv or batsim (a Batsim
                      workload) whatever its name
  --skip-bad          skip malformed SWF or CSV lines (counted; the first
                      few named on stderr) instead of stopping at the first
  --keep-cancelled    keep jobs cancelled before they ran (SWF status 5 and
                      no run time; dropped by default)
  --status LIST       keep only jobs of these SWF statuses (field 11), e.g. 0,1
  --from T, --to T    keep only jobs submitted in [T, T) (seconds, as in
                      the trace)
  --load F            compress inter-arrival times by F (2: twice the load)
  --queue NAME|FILE   queue policy: fcfs (default), easy, conservative,
                      backfill, priority, fairshare, queues, or a Lua file
                      (policies/queues/)
  --memory auto|ignore  ask a job's memory request (SWF field 10, KB per
                      processor) of the cluster's memory pools when it has
                      any (auto, the default), or not
  --partition P=NODES a job of partition P (SWF field 16) runs on these
                      nodes (a hostlist) only; repeatable.  Once one is
                      given, jobs of other partitions are left out
  --param NAME=VALUE  a parameter of the queue policy (ctx:param), e.g.
                      --queue backfill --param depth=4; repeatable.
                      policy_Q=NAME|FILE gives queue Q (SWF field 15)
                      a queue policy of its own (docs/sim.md)
  --policy NAME|FILE  placement policy the matches use (default first)
  --config FILE.json  a Flux instance's configuration (`flux config get`):
                      its [sched-grove] policies, depths and limits, and per
                      queue of [queues] [sched-grove.queues.NAME]'s, as
                      sched-grove runs them; --queue, --policy and --param
                      win over it
  --limits FILE       what running jobs may hold per user, bank, queue and
                      overall, as sched-grove's [sched-grove.limits]: a JSON
                      object, or a Lua file returning a table (FILE.lua);
                      wins over --config's limits (docs/sim.md)
  --procs-as core|fewest|whole|node  a job of P processors asks for P
                      cores anywhere (core, the default); the fewest nodes of
                      C cores (the cluster's smallest), ceil(P/C), with
                      ceil(P/nodes) cores on each (fewest, as flux run -N -n
                      P); that many whole nodes (whole); or P whole nodes
                      (node)
  --on-down kill|requeue  what happens to jobs on a node that goes down
                      (default kill)
  --walltime kill|extend  a job whose run time exceeds its requested time
                      is killed at that time (kill, the default: its row
                      says timeout) or runs its whole time (extend)
  --predict none|last2|ratio  plan each job on a run time predicted from
                      its user's jobs ended before it arrived, not on its
                      requested time: the mean of the last two (last2) or
                      the request scaled by the last one's run over its
                      request (ratio); at most the request, where it is
                      still killed.  A job that outlives its prediction has
                      its end moved to its request then (default none)
  --events FILE       node events: "TIME down|up|drain NODES", "TIME set
                      NODES KEY=VALUE" or "TIME unset NODES KEY" a line
  --out [FORMAT=]FILE one row per job, repeatable: grove (the default;
                      id,submit,start,end,wait,run,procs,nodes,estimate,user,
                      state,requeues,hosts,racks,domains,stranded,
                      predicted_first,predicted_last,predictions), batsim
                      (Batsim's jobs.csv, as evalys reads it) or swf (the
                      simulated schedule; the default for a .swf name)
  --summary FILE.json the metrics (and time series) as JSON
  --plot DIR          write utilization.svg (busy, down and idle units and
                      queue length over time), gantt.svg (jobs on the
                      first nodes) and wait_cdf.svg (the waits' distribution)
  --by user|size      also print the figures per user or per size class
                      (user,size: both); with --compare too
  --gantt-nodes N     nodes in the Gantt chart (default 64)
  --gantt-window A:B  the Gantt chart shows simulated times [A, B) only
                      (and keeps only the jobs running then)
  --compare ...       the metrics of runs (--summary files) side by side,
                      with --plot DIR compare.svg and wait_cdf.svg (every
                      run's waits); runs of different traces or clusters
                      are refused unless --force
  --history FILE      replay a Flux instance's history (grove flux-export)
                      through sched-grove's scheduler with the instance's R
                      and configuration (--queue, --policy over it); prints
                      the jobs whose start differs (--all-jobs: every job),
                      each with its cause, and last "replay: N of M jobs
                      start as they did (within S s)"; --within S (default
                      1), --out per job CSV, --summary the replay's metrics,
                      --actual the instance's own (for --compare)
  --progress S        a progress line on stderr every S seconds (default:
                      5 when stderr is not a terminal; on a terminal, one
                      line redrawn in place)
  --quiet             print nothing but errors (no progress)

Metrics printed at the end: mean, median, 95th and 99th percentile and
max wait, mean bounded slowdown (10 s), utilization, makespan, jobs per
second simulated.  A run stopped by SIGINT or SIGTERM, or by a limit of
its queue policy, prints and writes (--summary, --plot) its figures so
far, marked partial.  docs/sim.md has the details.
]]

-- A NAME=VALUE option, repeatable: --param NAME=VALUE into o.params,
-- --partition P=NODES into o.partitions.
local function assignment(o, v, k)
  local pat = k == "param" and "^([%a_][%w_]*)=(.*)$" or "^([^=]+)=(.+)$"
  local name, val = v:match(pat)
  if not name then
    return nil, fmt("--%s needs %s, got '%s'", k, k == "param" and "NAME=VALUE" or
      "PARTITION=NODES", v)
  end
  if k == "param" then
    o.params = o.params or {}
    o.params[name] = tonumber(val) or val
  else
    o.partitions = o.partitions or {}
    o.partitions[math.tointeger(tonumber(name)) or name] = val
  end
  return true
end

local OPTIONS = {
  help = {short = "h"}, quiet = {short = "q"}, ["keep-cancelled"] = {key = "keep_cancelled"},
  force = {}, ["all-jobs"] = {}, ["skip-bad"] = {key = "skip_bad"},
  out = {value = true, read = function(o, v)
    local spec, err = output.parse(v)
    if not spec then return nil, err end
    o.outs = o.outs or {}
    o.outs[#o.outs + 1] = spec
    o.out = v
    return true
  end},
  param = {value = true, read = assignment}, partition = {value = true, read = assignment},
  compare = {list = true, read = function(o, paths)
    if #paths < 2 then return nil, "--compare needs two summary files or more" end
    o.compare = paths
    return true
  end},
}
for _, k in ipairs {"config", "limits", "cluster", "trace", "format", "queue", "policy", "procs-as",
    "on-down", "walltime", "predict", "memory", "events", "status", "from", "to", "load",
    "summary", "plot", "gantt-nodes", "gantt-window", "generate", "procs", "seed",
    "estimate-factor", "arrival-factor", "users", "types", "by", "progress", "history",
    "within", "actual"} do
  OPTIONS[k] = {value = true}
end

-- Seconds between two progress lines on a stderr that is not a terminal.
M.PROGRESS_EVERY = 5

-- The options given, or nil and a message naming the argument at fault.
local function parse(args)
  local o, err = options.parse(args, OPTIONS)
  if not o then return nil, err end
  return o
end

local function number(o, k, integer, min)
  local v = o[k]
  if v == nil then return nil end
  local x = tonumber(v)
  if not x or (integer and not math.tointeger(x)) or (min and x < min) then
    return nil, fmt("--%s must be %s%s, got '%s'", k, integer and "an integer" or "a number",
      min and fmt(" >= %s", tostring(min)) or "", v)
  end
  return integer and math.tointeger(x) or x
end

-- The trace reader's options from the command line, or nil, message.
function M.trace_options(o)
  local t = {keep_cancelled = o.keep_cancelled, format = o.format, skip_bad = o.skip_bad}
  local err
  t.from, err = number(o, "from", true)
  if err then return nil, err end
  t.to, err = number(o, "to", true)
  if err then return nil, err end
  t.load, err = number(o, "load", false)
  if err then return nil, err end
  if t.load and t.load <= 0 then
    return nil, "--load must be a number > 0, got '" .. o.load .. "'"
  end
  if o.status then
    t.status = {}
    for w in (o.status .. ","):gmatch("([^,]*),") do
      local c = math.tointeger(tonumber(w))
      if not c then return nil, "--status must be a list of integers, got '" .. o.status .. "'" end
      t.status[c] = true
    end
  end
  if o.format and o.format ~= "swf" and o.format ~= "json" and o.format ~= "csv" and
      o.format ~= "batsim" then
    return nil, "--format must be swf, json, csv or batsim"
  end
  return t
end

-- grove.sim.new's options from a Flux instance's configuration file
-- (JSON, as `flux config get` prints it), read as sched-grove reads it
-- (grove.flux.config); nil and "FILE: reason" when it cannot be.
function M.flux_config(path)
  local text, err = files.read(path)
  if not text then return nil, err end
  local conf, msg = core.json_decode(text, path)
  if type(conf) ~= "table" or conf[1] ~= nil then
    return nil, msg or (path .. ": a JSON object expected (flux config get)")
  end
  local o, why = require("grove.flux.config").sim_options(conf)
  if not o then return nil, path .. ": " .. why end
  return o
end

-- A limits file (--limits): a JSON object, or a Lua file (FILE.lua)
-- returning a table, run as text in an empty environment.  The table
-- (grove.limits checks it), or nil and "FILE: reason".
function M.limits_file(path)
  local text, err = files.read(path)
  if not text then return nil, err end
  local t, msg
  if path:match("%.lua$") then
    local chunk
    chunk, msg = load(text, "@" .. path, "t", {})
    if chunk then
      local ok, v = pcall(chunk)
      if ok then t = v else msg = tostring(v) end
    end
    if t ~= nil and type(t) ~= "table" then msg = path .. ": the file must return a table" end
  else
    t, msg = core.json_decode(text, path)
    if t ~= nil and (type(t) ~= "table" or t[1] ~= nil) then
      t, msg = nil, path .. ": a JSON object of limits expected"
    end
  end
  if type(t) ~= "table" then return nil, msg or (path .. ": a table of limits expected") end
  local ok, why = require("grove.limits").parse(t, path .. ": limits", {names = true})
  if not ok then return nil, why end
  return t
end

local function fail(msg)
  io.stderr:write("grove sim: ", msg, "\n")
  return 1
end

local function usage_error(msg)
  io.stderr:write("grove sim: ", msg, "\n", "Try 'grove sim --help'.\n")
  return 2
end

-- ---- --generate ---------------------------------------------------------------------

-- The options --generate uses; any other is refused (it writes a trace
-- and runs nothing, so --plot, --queue, ... would do nothing).
local GENERATE = {generate = 1, procs = 1, seed = 1, ["estimate-factor"] = 1,
  ["arrival-factor"] = 1, users = 1, types = 1, quiet = 1}

local function generate(o)
  local unused = {}
  for k in pairs(o) do
    if not GENERATE[k] then unused[#unused + 1] = "--" .. k end
  end
  if #unused > 0 then
    table.sort(unused)
    return usage_error(fmt("--generate writes a trace to stdout and runs nothing: %s %s " ..
      "for a run (grove sim --trace FILE ...)", table.concat(unused, ", "),
      #unused == 1 and "is" or "are"))
  end
  local gen = require("grove.sim.gen")
  local n, e1 = number(o, "generate", true, 0)
  local procs, e2 = number(o, "procs", true, 1)
  local seed, e3 = number(o, "seed", true)
  local ef, e4 = number(o, "estimate-factor", false, 1)
  local af, e5 = number(o, "arrival-factor", false, 0)
  local users, e6 = number(o, "users", true, 1)
  local err = e1 or e2 or e3 or e4 or e5 or e6
  if err then return usage_error(err) end
  if not procs then return usage_error("--generate needs --procs P (the machine size)") end
  if af == 0 then return usage_error("--arrival-factor must be > 0") end
  local ok, e = pcall(gen.write, io.stdout, {jobs = n, procs = procs, seed = seed or 1,
    estimate_factor = ef, arrival_factor = af, users = users, types = o.types})
  if not ok then
    local msg = tostring(e):gsub("^bad argument #%d to '%w+' %((.*)%)$", "%1")
    return usage_error(msg)
  end
  return 0
end

-- ---- --compare -------------------------------------------------------------------------

local function read_summary(path)
  local text, err = files.read(path)
  if not text then return nil, err end
  local doc, msg = core.json_decode(text, path)
  if doc == nil then return nil, msg end
  if type(doc) ~= "table" or doc.wait_mean == nil then
    return nil, path .. ": not a grove sim summary (no wait_mean)"
  end
  return doc
end

-- The widths of --compare's table: the metric's column, and each run's.
M.LABEL_WIDTH, M.CELL_WIDTH = 26, 10

-- A run's name: its file's base name without .json.
local function base_name(path)
  return (path:match("([^/]+)$"):gsub("%.json$", ""))
end

-- The runs' column labels: their base names when each fits a cell,
-- else A, B, C, ... (the files are listed under the table either way).
function M.labels(paths)
  local fit = true
  for _, p in ipairs(paths) do fit = fit and #base_name(p) <= M.CELL_WIDTH end
  local out = {}
  for i, p in ipairs(paths) do
    out[i] = fit and base_name(p) or (i <= 26 and string.char(64 + i) or tostring(i))
  end
  return out
end

-- A value in at most w characters: integers whole (or in powers of ten
-- when too long), other numbers to three decimals or fewer.
local function cell(v, w)
  if v == nil then return "-" end
  local t
  if math.type(v) == "integer" then
    t = tostring(v)
    if #t > w then t = fmt("%.3g", v) end
  else
    t = fmt("%.3f", v)
    if #t > w then t = fmt("%.0f", v) end
    if #t > w then t = fmt("%.3g", v) end
  end
  return t
end
M.cell = cell

local function compare(o)
  local runs, long = {}, {}
  for i, path in ipairs(o.compare) do
    local doc, e = read_summary(path)
    if not doc then return fail(e) end
    runs[i] = doc
    -- the plots' legends have room for the whole name
    local base = base_name(path)
    long[i] = (doc.queue and doc.queue ~= base) and fmt("%s (%s)", base, doc.queue) or base
  end
  local names = M.labels(o.compare)
  -- runs of other traces or machines are not comparable
  local first = runs[1]
  for i = 2, #runs do
    for _, k in ipairs{{"trace_digest", "trace"}, {"cluster_digest", "cluster"}} do
      local a, b = first[k[1]], runs[i][k[1]]
      if not o.force and a ~= nil and b ~= nil and a ~= b then
        return fail(fmt("%s and %s were run on different %ss (%s, %s): compare them with " ..
          "--force", o.compare[1], o.compare[i], k[2], tostring(first[k[2]] or a),
          tostring(runs[i][k[2]] or b)))
      end
    end
  end
  local lw, w = M.LABEL_WIDTH, M.CELL_WIDTH
  local head = {fmt("%-" .. lw .. "s", "metric")}
  for _, n in ipairs(names) do head[#head + 1] = fmt("%" .. w .. "s", n) end
  if #runs == 2 then head[#head + 1] = fmt("%" .. w .. "s", "change") end
  io.stdout:write(table.concat(head, " "), "\n")
  for _, m in ipairs(plot.compared) do
    local cells, any = {fmt("%-" .. lw .. "s", m[2])}, false
    for _, r in ipairs(runs) do
      local v = tonumber(r[m[1]])
      any = any or v ~= nil
      cells[#cells + 1] = fmt("%" .. w .. "s", cell(v, w))
    end
    if #runs == 2 then
      local va, vb = tonumber(runs[1][m[1]]), tonumber(runs[2][m[1]])
      local change = "-"
      if va and vb and va ~= 0 then change = fmt("%+.1f%%", 100 * (vb - va) / math.abs(va)) end
      cells[#cells + 1] = fmt("%" .. w .. "s", change)
    end
    if any then io.stdout:write(table.concat(cells, " "), "\n") end
  end
  -- the files, under the table
  io.stdout:write("\n")
  local nw = 0
  for _, n in ipairs(names) do nw = math.max(nw, #n) end
  for i, path in ipairs(o.compare) do
    local r = runs[i]
    local what = {}
    if r.queue then what[#what + 1] = "queue " .. tostring(r.queue) end
    if r.policy then what[#what + 1] = "policy " .. tostring(r.policy) end
    if r.procs_as then what[#what + 1] = "processors as " .. tostring(r.procs_as) end
    io.stdout:write(fmt("%-" .. nw .. "s  %s%s\n", names[i], path,
      #what > 0 and " (" .. table.concat(what, ", ") .. ")" or ""))
  end
  if o.by then groups.compare(io.stdout, runs, names, o.by) end
  if o.plot then
    os.execute("mkdir -p '" .. o.plot:gsub("'", "'\\''") .. "'")
    local ok, err = plot.compare(o.plot .. "/compare.svg", runs, long)
    if ok then ok, err = plot.wait_cdf(o.plot .. "/wait_cdf.svg", runs, long) end
    if not ok then return fail(err) end
  end
  return 0
end

-- ---- the simulation -------------------------------------------------------------------

local open_writers

-- Whether a queue policy's failure is one of its sandbox's limits (the
-- sandbox's own messages: docs/security.md), not an error of its code.
function M.limit_reached(msg)
  msg = tostring(msg)
  return msg:find("instruction budget of %d+ exceeded") ~= nil or
    msg:find("wall%-clock limit of [%d.e+-]+ s exceeded") ~= nil or
    msg:find("memory limit of %d+ bytes exceeded") ~= nil
end

-- The progress function (grove.core.set_progress) of a run whose stderr
-- is not a terminal, or that asked for --progress: a plain line every
-- every seconds of each step, none before.
local function progress_lines(every)
  local step_now, last
  return function(step, done, total, secs, finished, detail)
    if finished then return end
    if step ~= step_now then step_now, last = step, nil end
    if secs < (last or 0) + every then return end
    last = secs
    local what = detail or (total > 0 and fmt("%d of %d", done, total) or tostring(done))
    io.stderr:write(fmt("grove sim: %s: %s, %.1f s\n", step, what, secs))
  end
end

-- The name of a kind of locality domain, plural.
local DOMAINS = {numanode = "NUMA domains", socket = "sockets", node = "nodes"}

local function pct(x) return fmt("%.1f%%", 100 * x) end

-- The placement and start estimate lines of a summary r, into fh.
function M.print_placement(r, fh)
  if r.nodes_mean then
    local parts = {fmt("nodes %.2f a job", r.nodes_mean)}
    if r.racks_mean then
      parts[#parts + 1] = fmt("racks %.2f (%s of jobs on more than one)", r.racks_mean,
        pct(r.racks_multi or 0))
    end
    if r.domains_mean and r.domain_level ~= "node" then
      parts[#parts + 1] = fmt("%s %.2f (%s on more than one)",
        DOMAINS[r.domain_level] or tostring(r.domain_level or "domains"), r.domains_mean,
        pct(r.domains_multi or 0))
    end
    if r.stranded_mean then
      parts[#parts + 1] = fmt("stranded cores %.2f a job", r.stranded_mean)
    end
    fh:write("placement: ", table.concat(parts, ", "), "\n")
  end
  M.print_estimates(r, fh)
end

-- The start estimate line of a summary r, into fh (who: whose estimates,
-- "" by default).
function M.print_estimates(r, fh, who)
  who = who or ""
  if r.est_jobs == nil then return end
  if r.est_jobs == 0 then
    fh:write(fmt("start estimates%s: none shown (%s holds no reservation for a waiting job)\n",
      who, tostring(r.queue)))
    return
  end
  fh:write(fmt("start estimates%s: %d jobs were shown one (%d started without), within 10%% " ..
    "of the wait or 5 min: first %s (error median %s s, p90 %s s), last before start %s " ..
    "(median %s s, p90 %s s);%s started by the first %s\n", who,
    r.est_jobs, r.est_none, pct(r.est_first_within), tostring(r.est_first_median),
    tostring(r.est_first_p90), pct(r.est_last_within), tostring(r.est_last_median),
    tostring(r.est_last_p90),
    r.est_seen_within and " shown within " .. pct(r.est_seen_within) .. " of the time;" or "",
    pct(r.est_first_kept or 0)))
end

local function print_summary(r, fh)
  if r.partial then
    fh:write(fmt("partial: %s at simulated time %d s (%d jobs waiting and %d running " ..
      "are not counted)\n", r.partial, r.stopped_at, r.waiting, r.running))
  end
  fh:write(fmt("jobs %d (left out %d, killed %d) on %d %ss, queue %s, policy %s%s\n", r.jobs,
    r.left_out, r.killed, r.units, r.unit or r.procs_as, r.queue, r.policy,
    (r.procs_as == "fewest" or r.procs_as == "whole") and
      fmt(", processors as %s (nodes of %d cores)", r.procs_as, r.node_size or 0) or ""))
  fh:write(fmt("wait: mean %.1f s, median %d s, 95th percentile %d s, 99th percentile %d s, " ..
    "max %d s\n", r.wait_mean, r.wait_median, r.wait_p95, r.wait_p99, r.wait_max))
  fh:write(fmt("bounded slowdown (10 s): mean %.3f\n", r.bounded_slowdown))
  if r.killed_walltime > 0 then
    fh:write(fmt("killed at their time limit: %d jobs (--walltime %s)\n", r.killed_walltime,
      r.walltime))
  end
  if r.predict then
    fh:write(fmt("run times predicted (%s): %d jobs outlived their prediction (end moved to " ..
      "the request)\n", r.predict, r.extended or 0))
  end
  fh:write(fmt("utilization %.4f, makespan %d s\n", r.utilization, r.makespan))
  M.print_placement(r, fh)
  fh:write(fmt("simulated in %.2f s (%.0f jobs per second), %d events\n", r.wall,
    r.jobs_per_second or 0, r.events))
end

-- The machine of a run given no --cluster: the graph the trace's header
-- sizes (grove.sim.machine), said on stderr, and its description; or
-- nil, message.
local function header_cluster(o, reader)
  if reader.format == "batsim" and reader.nb_res then
    local shape = {nodes = reader.nb_res, cores = 1,
      note = fmt("nb_res %d: one core a node", reader.nb_res)}
    if not o.quiet then
      io.stderr:write(fmt("grove sim: no --cluster: %s from the nb_res of %s\n",
        machine.describe(shape), reader.path))
    end
    return machine.graph(shape), machine.describe(shape)
  end
  if reader.format ~= "swf" then
    return nil, fmt("give --cluster FILE (a %s trace has no header to size a cluster by)",
      reader.format:upper())
  end
  local shape, why = machine.from_header(reader:read_header())
  if not shape then
    return nil, fmt("give --cluster FILE (the header of %s %s to size a cluster by)",
      reader.path, why)
  end
  local what = machine.describe(shape)
  if not o.quiet then
    io.stderr:write(fmt("grove sim: no --cluster: %s from the header of %s\n", what,
      reader.path))
  end
  return machine.graph(shape), what
end

-- Warn of the levels the placement policy's hooks name that no job of the
-- trace reaches (grove.levels), when every job's request is known before
-- the run: an SWF trace (each a request of processors) or a JSON one (read
-- whole); a CSV trace names jobspec files as it goes and is not checked.
local function level_warnings(o, s, reader)
  -- the loop's placement policy (grove.sched: a built-in's name, or a
  -- Lua policy, whose hook types are checked)
  local lv = s.pl0 and levels.new(s.pl0.p, s.g)
  if o.quiet or not lv or reader.format == "csv" then return end
  -- a request of processors: cores anywhere, or whole nodes holding cores
  local plain = s.unit == "node" and {node = true, core = true} or {core = true}
  if s.mem_unit_kb then plain.memory = true end
  local asked, any = {}, reader.format == "swf"
  for _, j in ipairs(reader.list or {}) do
    for t in pairs(j.jobspec and levels.request_types(j.jobspec) or plain) do asked[t] = true end
    any = true
  end
  if reader.format == "swf" then
    for t in pairs(plain) do asked[t] = true end
  end
  if not any then return end
  for _, w in ipairs(lv:warnings(asked, "no job of the trace reaches")) do
    io.stderr:write("grove sim: warning: ", w, "\n")
  end
end

-- Open the --out files of the run s (cluster: its description) into
-- writers; nil, or the message of a file that cannot be written.
function open_writers(o, s, reader, cluster, writers)
  local base = (reader.path:match("([^/]*)$") or "w0"):gsub("%.%w+$", "")
  if base == "" or base == "(stdin)" then base = "w0" end
  for _, spec in ipairs(o.outs or {}) do
    local header = {"Version: 2.2",
      fmt("Note: the schedule grove sim simulated from %s: queue %s, placement policy %s, " ..
        "processors as %s; field 3 the simulated wait, 4 the run, 5 the units held, 8 those " ..
        "asked", reader.path, s.queue_policy.name, s.policy_name, s.procs_as),
      fmt("MaxNodes: %d", #s.nodes), fmt("MaxProcs: %d", s.total)}
    if type(cluster) == "string" then header[#header + 1] = "Note: cluster " .. cluster end
    local w, err = output.open(spec, {columns = sim.columns, workload = base, header = header,
      low = function() return s:oldest_submit() end})
    if not w then
      for _, x in ipairs(writers) do x:close() end
      return err
    end
    writers[#writers + 1] = w
  end
  return nil
end

local function simulate(o)
  if not o.trace then return usage_error("give --trace FILE (or --generate N --procs P)") end
  local gn, err = number(o, "gantt-nodes", true, 1)
  if err then return usage_error(err) end
  local every
  every, err = number(o, "progress", false, 0)
  if err then return usage_error(err) end
  local gw
  if o["gantt-window"] then
    local a, b = o["gantt-window"]:match("^(%d+):(%d+)$")
    a, b = math.tointeger(tonumber(a)), math.tointeger(tonumber(b))
    if not a or not b or b <= a then
      return usage_error("--gantt-window must be FROM:TO, two times with FROM < TO, got '" ..
        o["gantt-window"] .. "'")
    end
    gw = {a, b}
  end
  if o["procs-as"] and not sim.PROCS_AS[o["procs-as"]] then
    return usage_error("--procs-as must be core, fewest, whole or node, got '" ..
      o["procs-as"] .. "'" .. require("grove.suggest").hint(o["procs-as"], sim.PROCS_AS))
  end
  if o["on-down"] and o["on-down"] ~= "kill" and o["on-down"] ~= "requeue" then
    return usage_error("--on-down must be kill or requeue")
  end
  if o.memory and o.memory ~= "auto" and o.memory ~= "ignore" then
    return usage_error("--memory must be auto or ignore")
  end
  if o.walltime and o.walltime ~= "kill" and o.walltime ~= "extend" then
    return usage_error("--walltime must be kill or extend")
  end
  if o.predict and o.predict ~= "none" and not require("grove.sim.predict").METHODS[o.predict] then
    return usage_error("--predict must be none, last2 or ratio, got '" .. o.predict .. "'"
      .. require("grove.suggest").hint(o.predict, require("grove.sim.predict").METHODS))
  end
  local topts, terr = M.trace_options(o)
  if not topts then return usage_error(terr) end
  local writers = {}
  local reader_path
  local function report(job, why)
    if not o.quiet then
      io.stderr:write(fmt("grove sim: %s:%s: job %s left out: %s\n", reader_path,
        tostring(job.line or "?"), tostring(job.id), why))
    end
  end
  local function write_row(row)
    for _, w in ipairs(writers) do w:row(row) end
  end
  local batsim_out = false
  for _, spec in ipairs(o.outs or {}) do batsim_out = batsim_out or spec.format == "batsim" end
  local fc = {}
  if o.config then
    local e
    fc, e = M.flux_config(o.config)
    if not fc then return fail(e) end
  end
  local params = fc.params or {}
  for k, v in pairs(o.params or {}) do params[k] = v end
  local lim = fc.run_limits and require("grove.limits").to_table(fc.run_limits)
  if o.limits then
    local e
    lim, e = M.limits_file(o.limits)
    if not lim then return fail(e) end
  end
  local reader, rerr
  reader_path = o.trace == "-" and "(stdin)" or o.trace
  topts.format = o.format or (o.trace == "-" and "swf") or nil
  topts.report = report
  topts.fh = o.trace == "-" and io.stdin or nil
  topts.warn = function(text)
    if not o.quiet then io.stderr:write("grove sim: warning: ", text, "\n") end
  end
  reader, rerr = sim.trace.open(reader_path, topts)
  if not reader then return fail(rerr) end
  local graph, cluster = nil, o.cluster
  if not o.cluster then
    graph, cluster = header_cluster(o, reader)
    if not graph then return usage_error(cluster) end
  end
  local s, msg = sim.new{cluster = o.cluster, graph = graph, queue = o.queue or fc.queue,
    policy = o.policy or fc.policy, reserve_depth = fc.reserve_depth,
    queue_depth = fc.queue_depth, budget = fc.budget, memory = fc.memory, time = fc.time,
    procs_as = o["procs-as"], on_down = o["on-down"], walltime = o.walltime,
    predict = o.predict, out = o.outs and write_row or nil, allocations = batsim_out or nil,
    report = report, gantt = o.plot and (gn or 64) or nil, gantt_window = gw,
    params = next(params) and params or nil, memory_requests = o.memory,
    partitions = o.partitions, limits = lim}
  if not s then return fail(msg) end
  level_warnings(o, s, reader)
  local werr = open_writers(o, s, reader, cluster, writers)
  if werr then return fail(werr) end
  if o.events then s:load_events(o.events) end
  local t0 = os.clock()
  -- progress: the run reports "simulating" (grove.core.progress): on a
  -- terminal a line redrawn once it runs past a second, elsewhere (or with
  -- --progress) a line every few seconds; --quiet shows none
  local tty = core.edit and core.edit.isatty(2)
  if o.quiet then
    core.set_progress(false)
  elseif every or not tty then
    core.set_progress(progress_lines(every or M.PROGRESS_EVERY))
  end
  -- SIGINT and SIGTERM stop the run between two instants (Sim:run), and
  -- what it did so far is written
  core.catch_stop(true)
  s:feed(reader)
  local ran, rmsg = s:run()
  local sig, signo = core.stop_signal()
  core.catch_stop(false)
  core.set_progress(nil)
  local wall = os.clock() - t0
  for _, w in ipairs(writers) do
    local ok, e = w:close()
    if not ok then return fail(e) end
  end
  if reader.bad > 0 and not o.quiet then
    io.stderr:write(fmt("grove sim: warning: %s: %d malformed line%s skipped (--skip-bad)%s\n",
      reader_path, reader.bad, reader.bad == 1 and "" or "s",
      reader.bad > #reader.bad_lines and fmt(", the first %d named above", #reader.bad_lines)
      or ""))
  end
  -- a policy that failed on its own (it raised) is an error and no more;
  -- one stopped by a limit, or a signal, leaves a run worth its figures
  if not ran and not sig and not M.limit_reached(rmsg) then return fail(rmsg) end
  local r = s:result{wall = wall, events = s.steps, trace = o.trace, cluster = cluster,
    trace_skipped = reader.skipped, trace_dropped = reader.dropped, trace_cut = reader.cut,
    trace_bad = reader.bad, trace_bad_lines = reader.bad > 0 and reader.bad_lines or nil,
    walltime = o.walltime or "kill"}
  if not ran then
    local counts = s:counts()
    r.partial = sig and ("interrupted by " .. sig) or "stopped at the queue policy's limit"
    r.stopped_by = not sig and rmsg or nil
    r.stopped_at, r.waiting, r.running = s:clock(), counts.waiting, counts.running
  end
  r.left_out = r.left_out + reader.skipped
  if o.summary then
    local f, e = io.open(o.summary, "w")
    if not f then return fail(e) end
    f:write(core.json_encode(r, 1), "\n")
    f:close()
  end
  if o.plot then
    os.execute("mkdir -p '" .. o.plot:gsub("'", "'\\''") .. "'")
    local ok, e = plot.series(o.plot .. "/utilization.svg", r)
    if not ok then return fail(e) end
    local recs, names, cut = s:gantt_records()
    ok, e = plot.gantt(o.plot .. "/gantt.svg", recs, names, {nodes = gn or 64, cut = cut,
      from = gw and gw[1], to = gw and gw[2]})
    if ok then ok, e = plot.wait_cdf(o.plot .. "/wait_cdf.svg", {r}, {r.queue}) end
    if not ok then return fail(e) end
  end
  if not o.quiet then print_summary(r, io.stdout) end
  if o.by and not o.quiet then groups.run(io.stdout, r, o.by) end
  if sig then return 128 + signo end
  if not ran then return fail(rmsg) end
  return 0
end

M.parse = parse
M.usage_error = usage_error
M.fail = fail

function M.main(args)
  if args and args[1] == "trace" then
    return require("grove.sim.tracecmd").main(args, M)
  end
  local o, err = parse(args or {})
  if o and o.by then o.by, err = groups.kinds(o.by) end
  if not o or not o.by and err then return usage_error(err) end
  if o.help then
    io.stdout:write(M.usage)
    return 0
  end
  if o.compare then return compare(o) end
  if o.history then
    local ok, status = pcall(require("grove.sim.historycmd").main, o, M)
    if not ok then return fail(tostring(status)) end
    return status
  end
  if o.generate then return generate(o) end
  local ok, status = pcall(simulate, o)
  if not ok then return fail(tostring(status)) end
  return status
end

return M
