-- grove.sim.output: the per-job files a run writes (grove sim --out), in
-- the formats the field's tools read.
--
--   local spec = assert(output.parse("batsim=out_jobs.csv"))  -- {format =, path =}
--   local w = assert(output.open(spec, {workload =, header =, low =}))
--   w:row(row)        -- each finished job's row (grove.sim's, see M.columns)
--   w:close()
--
-- Formats:
--   grove   Grove's own CSV: grove.sim.columns, a row per job as it ends.
--   batsim  Batsim's jobs.csv, as Batsim writes it (src/export.cpp,
--           JobsTracer) and evalys reads it (JobSet.from_csv): the columns
--           M.BATSIM_COLUMNS, job_id as Batsim names jobs (WORKLOAD!ID: the
--           trace's base name, or the workload an id of a Batsim workload
--           names), times with six decimals, allocated_resources
--           the ids of what the job held as an interval set ("0-63 65
--           70-71": ascending, a run of ids as "a-b", one space between):
--           its cores numbered 0, 1, ... in vertex order (its nodes with
--           --procs-as node), so len(allocated_resources) is
--           requested_number_of_resources.  A row per job as it ends.
--   swf     the simulated schedule as Standard Workload Format: the trace's
--           fields with the wait (field 3) and the run (4) the simulation
--           gave, the units held (5) beside those asked (8), status 1
--           (done) or 0 (killed, at its time limit or by a node going
--           down), in submit-time order.  Rows are kept until every job
--           submitted before them has ended (low(): the earliest submit
--           time of a job still to end), so the file reads back in order
--           without a warning.
--
-- It must not simulate or compute metrics: it only lays rows out.
local check = require("grove.check")
local trace = require("grove.sim.trace")
local suggest = require("grove.suggest")

local M = {}

local fmt = string.format

M.FORMATS = {grove = true, batsim = true, swf = true}

-- Batsim's jobs.csv columns, in its order.
M.BATSIM_COLUMNS = {"job_id", "workload_name", "profile", "submission_time",
  "requested_number_of_resources", "requested_time", "success", "final_state",
  "starting_time", "execution_time", "finish_time", "waiting_time", "turnaround_time",
  "stretch", "allocated_resources", "consumed_energy", "metadata"}

-- Batsim's final states of a row's state.
local FINAL = {done = "COMPLETED_SUCCESSFULLY", timeout = "COMPLETED_WALLTIME_REACHED",
  killed = "COMPLETED_KILLED"}

-- What --out names: "[FORMAT=]PATH" ({format =, path =}), the format by
-- default swf for a name ending in .swf, else grove; or nil, message.
function M.parse(v)
  local f, path = v:match("^(%a+)=(.+)$")
  if f then
    if not M.FORMATS[f] then
      return nil, fmt("--out: unknown format '%s'%s (grove, batsim, swf: --out FORMAT=FILE)", f,
        suggest.hint(f, M.FORMATS))
    end
    return {format = f, path = path}
  end
  if v == "" then return nil, "--out needs a file name" end
  return {format = v:lower():match("%.swf$") and "swf" or "grove", path = v}
end

local function csv_cell(v)
  if v == nil then return "" end
  v = tostring(v)
  if v:find('[,"\n]') then return '"' .. v:gsub('"', '""') .. '"' end
  return v
end

local function seconds(t)
  return fmt("%.6f", t)
end

-- A Batsim row of a Grove row (workload: the workload's name).
function M.batsim_row(row, workload)
  local run = row["end"] - row.start
  local turnaround = row["end"] - row.submit
  -- Batsim's job names: WORKLOAD!ID (an id that names its workload keeps it)
  local name = row.name or tostring(row.id)
  local wl = name:match("^(.-)!")
  if not wl then
    wl = workload
    name = workload .. "!" .. name
  end
  return {csv_cell(name), csv_cell(wl), "",
    seconds(row.submit), tostring(row.procs), seconds(row.estimate),
    row.state == "done" and "1" or "0", FINAL[row.state] or "COMPLETED_FAILED",
    seconds(row.start), seconds(run), seconds(row["end"]), seconds(row.wait),
    seconds(turnaround), run > 0 and fmt("%.6f", turnaround / run) or "",
    row.alloc or "", "-1", ""}
end

local Writer = {}
Writer.__index = Writer

-- Open the file of spec ({format =, path =}).  opts: columns (grove's),
-- workload (Batsim's workload_name), header (SWF comment lines), low()
-- (SWF: the earliest submit time of a job still to end, nil when none);
-- any other key raises.  A writer, or nil, message.
local OPTIONS = {columns = 1, workload = 1, header = 1, low = 1}

function M.open(spec, opts)
  check.keys(opts, OPTIONS, 2, "open")
  local fh, err = io.open(spec.path, "w")
  if not fh then return nil, err end
  local w = setmetatable({fh = fh, format = spec.format, path = spec.path, opts = opts or {},
    held = {}, n = 0}, Writer)
  if w.format == "grove" then
    fh:write(table.concat(w.opts.columns, ","), "\n")
  elseif w.format == "batsim" then
    fh:write(table.concat(M.BATSIM_COLUMNS, ","), "\n")
  else
    for _, h in ipairs(w.opts.header or {}) do fh:write("; ", h, "\n") end
  end
  return w
end

-- Rows an SWF writer keeps before it asks low() what it may write.
M.SWF_BATCH = 4096

local function by_submit(a, b)
  if a.submit ~= b.submit then return a.submit < b.submit end
  return a.id < b.id
end

-- Write the kept SWF rows submitted before low (all with low nil).
local function flush_swf(self, low)
  local held = self.held
  table.sort(held, by_submit)
  local keep = {}
  for _, r in ipairs(held) do
    if low == nil or r.submit < low then
      self.fh:write(trace.swf_line(r), "\n")
    else
      keep[#keep + 1] = r
    end
  end
  self.held = keep
  self.n = 0
end

function Writer:row(row)
  local f = self.format
  if f == "grove" then
    local cells = {}
    for i, c in ipairs(self.opts.columns) do cells[i] = csv_cell(row[c]) end
    self.fh:write(table.concat(cells, ","), "\n")
  elseif f == "batsim" then
    self.fh:write(table.concat(M.batsim_row(row, self.opts.workload or "w0"), ","), "\n")
  else
    local held = self.held
    held[#held + 1] = {id = row.id, submit = row.submit, wait = row.wait, run = row.run,
      procs = row.procs, asked = row.asked, estimate = row.trace_estimate, mem = row.mem,
      status = row.state == "done" and 1 or 0, user = row.user, group = row.group,
      queue = row.queue, partition = row.partition, after = row.after, think = row.think}
    self.n = self.n + 1
    if self.n >= M.SWF_BATCH and self.opts.low then
      local low = self.opts.low()
      if low then flush_swf(self, low) else self.n = 0 end
    end
  end
end

function Writer:close()
  if not self.fh then return true end
  if self.format == "swf" then flush_swf(self, nil) end
  local ok, err = self.fh:close()
  self.fh = nil
  if not ok then return nil, err end
  return true
end

return M
