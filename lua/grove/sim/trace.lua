-- grove.sim.trace: the workloads the simulator reads, one job at a time.
--
--   local r = assert(trace.open(path [, {format =, report =}]))
--   for job in r:jobs() do ... end       -- or r:next(); r:close()
--   trace.write_swf(fh, jobs, header)     -- Standard Workload Format out
--
-- Formats (by `format`, else by the file's extension: .swf, .json, .csv;
-- anything else is read as SWF):
--
--   SWF   the Standard Workload Format: lines starting with ';' are header
--         comments, every other non-blank line holds 18 numeric fields.
--         Used here: 1 job id, 2 submit time, 4 run time, 5 allocated
--         processors, 8 requested processors, 9 requested time, 12 user.
--         Processors are field 8, or field 5 when field 8 is -1; the
--         estimate is field 9 when it is at least the run time, else the
--         run time.  The file is read line by line (a trace of any length
--         costs the memory of one line), so jobs must come in submit-time
--         order, as the format requires.
--   JSON  an array of job objects, or {"jobs": [...]}: id, submit, run,
--         estimate, procs, user, and optionally jobspec (a canonical
--         jobspec object) or request (the options of grove.jobspec.build).
--         Read whole.
--   CSV   a header line naming columns (id, submit, run, estimate, procs,
--         user, jobspec), then one job a line; jobspec is a YAML or JSON
--         jobspec file, relative to the CSV file's directory.  Streamed.
--
-- A job: {id =, submit =, run =, estimate =, procs =, user =, line =,
-- jobspec = (a table in canonical form, or nil)}.  Times are whole
-- seconds; a run time of 0 counts as 1 (the clock's tick).  Jobs that
-- cannot run (no processors, no run time) are not returned: they go to
-- report(job, reason) when given, and are counted in r.skipped.  A
-- malformed file is an error: next() raises "FILE:LINE: reason".
--
-- It must not hold scheduling or matching: it only reads and writes
-- job lists.
local core = require("grove.core")

local M = {}

local fmt = string.format
local tointeger = math.tointeger

local SWF_FIELDS = {"job id", "submit time", "wait time", "run time", "allocated processors",
  "average cpu time", "used memory", "requested processors", "requested time",
  "requested memory", "status", "user id", "group id", "executable", "queue", "partition",
  "preceding job", "think time"}

-- A whole number of seconds from a numeric field (fractions rounded).
local function whole(x)
  return tointeger(x) or math.floor(x + 0.5)
end

-- The job from its raw values, or nil and the reason it is left out.
local function finish(job)
  if job.run < 0 then return nil, "no run time" end
  if job.run == 0 then job.run = 1 end
  if job.procs and job.procs <= 0 then return nil, "no processors" end
  if not job.procs and not job.jobspec then return nil, "no processors" end
  if job.submit < 0 then return nil, "negative submit time" end
  if job.estimate and job.estimate <= 0 then job.estimate = nil end
  return job
end

local Reader = {}
Reader.__index = Reader

function Reader:close()
  if self.fh then
    self.fh:close()
    self.fh = nil
  end
end

function Reader:jobs()
  return function() return self:next() end
end

local function raise(self, msg, ...)
  self:close()
  error(fmt("%s:%d: " .. msg, self.path, self.lineno, ...), 0)
end

-- Keep submit order; report or return the job.
function Reader:accept(job)
  if self.last_submit and job.submit < self.last_submit then
    raise(self, "submit time %d is before the previous job's (%d): the trace must be in " ..
      "submit-time order", job.submit, self.last_submit)
  end
  local id = job.id
  if self.ids then
    if self.ids[id] then raise(self, "job id %d appears twice", id) end
    self.ids[id] = true
  end
  local ok, why = finish(job)
  self.last_submit = job.submit
  if ok then
    self.count = self.count + 1
    return job
  end
  self.skipped = self.skipped + 1
  if self.report then self.report(job, why) end
  return false
end

-- ---- SWF ------------------------------------------------------------------

-- The data lines left in the file: each line that is neither blank nor a
-- comment (its first non-blank character is comment), with self.lineno
-- kept; the file is closed after the last.
local function data_lines(self, comment)
  return function()
    while true do
      local line = self.fh and self.fh:read("l")
      if not line then
        self:close()
        return nil
      end
      self.lineno = self.lineno + 1
      local first = line:match("^%s*(%S)")
      if first and first ~= comment then return line end
    end
  end
end

local function swf_next(self)
  for line in data_lines(self, ";") do
    local f, n = {}, 0
    for word in line:gmatch("%S+") do
      n = n + 1
      if n <= 18 then
        local v = tonumber(word)
        if not v then
          raise(self, "field %d (%s) is not a number: '%s'", n, SWF_FIELDS[n], word)
        end
        f[n] = v
      end
    end
    if n ~= 18 then raise(self, "expected 18 fields, found %d", n) end
    local id = tointeger(f[1])
    if not id or id <= 0 then raise(self, "field 1 (job id) must be a positive integer") end
    local procs = f[8] ~= -1 and f[8] or f[5]
    local job = {id = id, submit = whole(f[2]), run = whole(f[4]), procs = whole(procs),
      estimate = f[9] >= 0 and whole(f[9]) or nil, user = whole(f[12]), line = self.lineno}
    local ok = self:accept(job)
    if ok then return ok end
  end
end

-- ---- CSV ------------------------------------------------------------------

local CSV_COLUMNS = {id = true, submit = true, run = true, estimate = true, procs = true,
  user = true, jobspec = true}

local function csv_split(line)
  local out = {}
  for cell in (line .. ","):gmatch("([^,]*),") do
    out[#out + 1] = cell:match("^%s*(.-)%s*$")
  end
  return out
end

local function load_jobspec_file(self, file)
  local path = file:sub(1, 1) == "/" and file or (self.dir .. file)
  local js, msg = core.jobspec_load(path)
  if not js then raise(self, "jobspec %s: %s", file, msg) end
  return js:to_table()
end

-- The header row: the columns, checked.
local function csv_header(self, cells)
  self.columns = cells
  local seen = {}
  for i, c in ipairs(cells) do
    if not CSV_COLUMNS[c] then
      raise(self, "unknown column '%s' (id, submit, run, estimate, procs, user, jobspec)", c)
    end
    seen[c] = i
  end
  for _, need in ipairs{"submit", "run"} do
    if not seen[need] then raise(self, "no '%s' column", need) end
  end
  if not seen.procs and not seen.jobspec then
    raise(self, "no 'procs' or 'jobspec' column")
  end
end

-- The job of a data row.
local function csv_job(self, cells)
  if #cells ~= #self.columns then
    raise(self, "expected %d fields, found %d", #self.columns, #cells)
  end
  local job = {line = self.lineno}
  for i, c in ipairs(self.columns) do
    local v = cells[i]
    if c == "jobspec" then
      if v ~= "" then job.jobspec = load_jobspec_file(self, v) end
    elseif c == "user" then
      job.user = tointeger(tonumber(v)) or (v ~= "" and v or nil)
    elseif v ~= "" then
      local x = tonumber(v)
      if not x then raise(self, "column '%s' is not a number: '%s'", c, v) end
      job[c] = whole(x)
    end
  end
  self.auto = self.auto + 1
  job.id = job.id or self.auto
  if job.id <= 0 then raise(self, "job id must be positive") end
  if not job.submit or not job.run then raise(self, "submit and run are required") end
  return job
end

local function csv_next(self)
  for line in data_lines(self, "#") do
    local cells = csv_split(line)
    if not self.columns then
      csv_header(self, cells)
    else
      local ok = self:accept(csv_job(self, cells))
      if ok then return ok end
    end
  end
end

-- ---- JSON -----------------------------------------------------------------

local function json_jobs(self, text)
  local doc, err = core.json_decode(text, self.path)
  if doc == nil then
    self:close()
    error(err, 0)
  end
  local list = type(doc) == "table" and (doc.jobs or doc) or nil
  if type(list) ~= "table" or (next(list) ~= nil and #list == 0) then
    self:close()
    error(fmt("%s: expected an array of jobs or {\"jobs\": [...]}", self.path), 0)
  end
  local jobs = {}
  for i, o in ipairs(list) do
    local where = fmt("%s: job %d", self.path, i)
    if type(o) ~= "table" then error(where .. ": not an object", 0) end
    local job = {line = i}
    for k, v in pairs(o) do
      if k == "jobspec" then
        if type(v) ~= "table" then error(where .. ": jobspec must be an object", 0) end
        job.jobspec = v
      elseif k == "request" then
        if type(v) ~= "table" then error(where .. ": request must be an object", 0) end
        local ok, js, msg = pcall(require("grove.jobspec").build, v)
        if not ok or not js then error(where .. ": request: " .. tostring(ok and msg or js), 0) end
        job.jobspec = js
      elseif k == "user" then
        job.user = v
      elseif CSV_COLUMNS[k] then
        if type(v) ~= "number" then error(fmt("%s: %s must be a number", where, k), 0) end
        job[k] = whole(v)
      else
        error(fmt("%s: unknown field '%s' (id, submit, run, estimate, procs, user, " ..
          "jobspec, request)", where, k), 0)
      end
    end
    job.id = job.id or i
    if not job.submit or not job.run then error(where .. ": submit and run are required", 0) end
    if not job.procs and not job.jobspec then
      error(where .. ": give procs, jobspec or request", 0)
    end
    jobs[#jobs + 1] = job
  end
  table.sort(jobs, function(a, b)
    if a.submit ~= b.submit then return a.submit < b.submit end
    return a.id < b.id
  end)
  self.list, self.pos = jobs, 0
end

local function list_next(self)
  while true do
    self.pos = self.pos + 1
    local job = self.list[self.pos]
    if not job then return nil end
    self.lineno = job.line
    local ok = self:accept(job)
    if ok then return ok end
  end
end

-- ---- opening ----------------------------------------------------------------

local function guess(path)
  local ext = path:match("%.(%w+)$")
  ext = ext and ext:lower()
  if ext == "json" then return "json" end
  if ext == "csv" then return "csv" end
  return "swf"
end

-- Open a trace.  opts: format ("swf" | "json" | "csv"), report(job, why),
-- fh (read from this handle instead of opening path).  A reader, or nil,
-- message, code.
function M.open(path, opts)
  if type(path) ~= "string" then
    error(fmt("bad argument #1 to 'open' (string expected, got %s)", type(path)), 2)
  end
  opts = opts or {}
  local format = opts.format or guess(path)
  if format ~= "swf" and format ~= "json" and format ~= "csv" then
    error(fmt("bad argument #2 to 'open' (unknown format '%s': swf, json, csv)", format), 2)
  end
  local fh, err = opts.fh
  if not fh then
    fh, err = io.open(path, "r")
    if not fh then return nil, err, "ENOENT" end
  end
  local self = setmetatable({path = path, fh = fh, lineno = 0, count = 0, skipped = 0,
    report = opts.report, format = format, auto = 0, dir = path:match("^(.*/)") or "",
    ids = format ~= "swf" and {} or nil}, Reader)
  if format == "json" then
    local text = fh:read("a")
    self:close()
    local ok, e = pcall(json_jobs, self, text)
    if not ok then return nil, e, "EINVAL" end
    self.next = list_next
  elseif format == "csv" then
    self.next = csv_next
  else
    self.next = swf_next
  end
  return self
end

-- A reader over a Lua array of job tables (the same checks and order
-- rules as a file; jobs are sorted by submit time, then id).
function M.from_list(list, opts)
  opts = opts or {}
  local self = setmetatable({path = opts.source or "(jobs)", lineno = 0, count = 0,
    skipped = 0, report = opts.report, auto = 0, ids = {}}, Reader)
  local jobs = {}
  for i, o in ipairs(list) do
    local job = {}
    for k, v in pairs(o) do job[k] = v end
    job.id = job.id or i
    job.line = i
    jobs[i] = job
  end
  table.sort(jobs, function(a, b)
    if a.submit ~= b.submit then return a.submit < b.submit end
    return a.id < b.id
  end)
  self.list, self.pos, self.next = jobs, 0, list_next
  return self
end

-- Write jobs as SWF: header is a list of comment lines (without ';').
-- jobs: an array or an iterator of {id, submit, run, procs, estimate,
-- user}.
function M.write_swf(fh, jobs, header)
  for _, h in ipairs(header or {}) do fh:write("; ", h, "\n") end
  local iter = type(jobs) == "function" and jobs or coroutine.wrap(function()
    for _, j in ipairs(jobs) do coroutine.yield(j) end
  end)
  for j in iter do
    fh:write(fmt("%d %d -1 %d %d -1 -1 %d %d -1 1 %d -1 -1 %d -1 -1 -1\n", j.id, j.submit,
      j.run, j.procs, j.procs, j.estimate or -1, j.user or -1, j.queue or -1))
  end
end

return M
