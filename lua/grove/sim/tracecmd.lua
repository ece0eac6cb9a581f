-- grove sim trace: a workload trace as published, cleaned, cut and
-- summarized before a study replays it.
--
--   grove sim trace FILE [--keep-cancelled] [--status LIST] [--from T]
--                   [--to T] [--load F] [--format F] [--procs P]
--                   [--skip-bad] [--out FILE.swf]
--
-- It reads the trace through grove.sim.trace with the same filters as
-- `grove sim` (so what it counts is what a simulation would be fed),
-- prints a summary (jobs kept and why others went, users, groups, the
-- span of submit times, sizes, run and requested times, the jobs a
-- walltime limit would kill, dependencies, and the utilization the trace
-- offers a machine of P processors), and with --out writes the kept jobs
-- back as SWF, sorted, with the original header and a note of what was
-- done.
--
-- It must not simulate: no cluster, no queue.
local trace = require("grove.sim.trace")
local machine = require("grove.sim.machine")

local M = {}

local fmt = string.format

M.usage = [[
Usage: grove sim trace FILE [options]

Read a workload trace as `grove sim --trace` reads it, print what it holds
and optionally write the cleaned jobs back as Standard Workload Format.

  --format F          swf, json, csv or batsim (default: by the file's extension)
  --skip-bad          skip malformed SWF or CSV lines (counted, the first few
                      named) instead of stopping at the first
  --keep-cancelled    keep jobs cancelled before they ran (dropped by default)
  --status LIST       keep only jobs of these SWF statuses (field 11)
  --from T, --to T    keep only jobs submitted in [T, T)
  --load F            compress inter-arrival times by F
  --procs P           the machine's processors, for the offered utilization
                      (default: the header's MaxProcs, when there is one)
  --out FILE.swf      write the kept jobs as SWF (sorted by submit time)
  --quiet             print nothing but errors
]]

-- The summary of the kept jobs, as lines.
function M.summarize(reader, jobs, procs)
  local users, groups, nusers, ngroups = {}, {}, 0, 0
  local first, last, last_end
  local work, maxp, over, deps, sizes = 0, 0, 0, 0, {}
  local runs = 0
  for _, j in ipairs(jobs) do
    if j.user ~= nil and not users[j.user] then
      users[j.user] = true
      nusers = nusers + 1
    end
    if j.group ~= nil and not groups[j.group] then
      groups[j.group] = true
      ngroups = ngroups + 1
    end
    first = first and math.min(first, j.submit) or j.submit
    last = last and math.max(last, j.submit) or j.submit
    local e = j.submit + j.run
    last_end = last_end and math.max(last_end, e) or e
    local p = j.procs or 0
    work = work + p * j.run
    runs = runs + j.run
    if p > maxp then maxp = p end
    if j.estimate and j.estimate < j.run then over = over + 1 end
    if j.after then deps = deps + 1 end
    local c = 1
    while c < p do c = c * 2 end
    sizes[c] = (sizes[c] or 0) + 1
  end
  local out = {}
  local function line(...) out[#out + 1] = fmt(...) end
  line("%s: %d jobs kept (%d left out, %d dropped by status, %d outside the window)",
    reader.path, #jobs, reader.skipped, reader.dropped, reader.cut)
  if reader.bad and reader.bad > 0 then
    line("malformed lines skipped: %d (the first: %s)", reader.bad,
      table.concat(reader.bad_lines, "; "))
  end
  line("users %d, groups %d", nusers, ngroups)
  if #jobs > 0 then
    local span = last - first
    line("submit times %d .. %d (%.1f days), mean run %.0f s, largest job %d processors",
      first, last, span / 86400, runs / #jobs, maxp)
    line("run time over the requested time: %d jobs (killed at their limit by --walltime kill)",
      over)
    line("jobs that follow another (field 17): %d", deps)
    local cls = {}
    for c in pairs(sizes) do cls[#cls + 1] = c end
    table.sort(cls)
    local parts = {}
    for _, c in ipairs(cls) do
      local lo = c // 2 + 1
      parts[#parts + 1] = fmt("%s: %d", lo == c and tostring(c) or fmt("%d-%d", lo, c), sizes[c])
    end
    line("jobs by size: %s", table.concat(parts, ", "))
    if procs and procs > 0 then
      local horizon = math.max(1, last_end - first)
      line("offered utilization on %d processors: %.4f (processor-seconds asked / " ..
        "(processors x (last end - first submit)))", procs, work / (procs * horizon))
    end
  end
  return out
end

function M.main(args, cli)
  local rest = table.move(args, 2, #args, 1, {})
  local file
  local opts = {}
  for i = #rest, 1, -1 do
    if rest[i] == "--procs" or rest[i] == "--out" then
      opts[rest[i]:sub(3)] = rest[i + 1]
      table.remove(rest, i + 1)
      table.remove(rest, i)
    end
  end
  for i = #rest, 1, -1 do
    if not rest[i]:match("^%-") and not (i > 1 and rest[i - 1]:match("^%-%-[%w-]+$") and
        rest[i - 1] ~= "--keep-cancelled" and rest[i - 1] ~= "--quiet" and
        rest[i - 1] ~= "--skip-bad") then
      if file then return cli.usage_error("grove sim trace takes one file") end
      file = table.remove(rest, i)
    end
  end
  local o, err = cli.parse(rest)
  if not o then return cli.usage_error(err) end
  if o.help then
    io.stdout:write(M.usage)
    return 0
  end
  if not file then return cli.usage_error("grove sim trace needs a trace file") end
  local topts, terr = cli.trace_options(o)
  if not topts then return cli.usage_error(terr) end
  local procs
  if opts.procs then
    procs = math.tointeger(tonumber(opts.procs))
    if not procs or procs < 1 then
      return cli.usage_error("--procs must be an integer >= 1, got '" .. opts.procs .. "'")
    end
  end
  topts.warn = function(msg)
    if not o.quiet then io.stderr:write("grove sim trace: warning: ", msg, "\n") end
  end
  topts.report = function(job, why)
    if not o.quiet then
      io.stderr:write(fmt("grove sim trace: %s:%s: job %s left out: %s\n", file,
        tostring(job.line or "?"), tostring(job.id), why))
    end
  end
  local reader, rerr = trace.open(file, topts)
  if not reader then return cli.fail(rerr) end
  local jobs = {}
  local ok, e = pcall(function()
    for j in reader:jobs() do jobs[#jobs + 1] = j end
  end)
  if not ok then return cli.fail(tostring(e)) end
  procs = procs or (machine.from_header(reader.header) or {}).max_procs
  if not o.quiet then
    for _, l in ipairs(M.summarize(reader, jobs, procs)) do io.stdout:write(l, "\n") end
  end
  if opts.out then
    local fh, ferr = io.open(opts.out, "w")
    if not fh then return cli.fail(ferr) end
    local header = {}
    for _, h in ipairs(reader.header) do header[#header + 1] = h end
    header[#header + 1] = fmt("Note: cleaned by grove sim trace from %s: %d jobs kept, %d left " ..
      "out, %d dropped by status, %d outside the window%s%s", file:match("[^/]*$"), #jobs,
      reader.skipped, reader.dropped, reader.cut,
      topts.load and fmt(", inter-arrival times / %g", topts.load) or "",
      reader.bad > 0 and fmt(", %d malformed lines skipped", reader.bad) or "")
    trace.write_swf(fh, jobs, header)
    fh:close()
  end
  return 0
end

return M
