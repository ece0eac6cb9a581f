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
--         comments, every other non-blank line holds 18 numeric fields
--         (more are accepted, with one warning, and ignored: some
--         published logs carry a 19th).  Used here: 1 job id, 2 submit
--         time, 4 run time, 5 allocated processors, 8 requested
--         processors, 9 requested time (the estimate: nil when -1 or 0),
--         10 requested memory (KB per processor: mem, nil when -1 or 0),
--         11 status, 12 user, 13 group, 15 queue, 16 partition, 17
--         preceding job, 18 think time.  Processors are field 8, or field
--         5 when field 8 is -1.  The file is read line by line (a trace of
--         any length costs the memory of one line) when its jobs come in
--         submit-time order, as the format requires; a file that is not
--         (a quick first pass over field 2 tells) is read whole and sorted
--         by submit time, then job id, with a warning.
--   JSON  an array of job objects, or {"jobs": [...]}: id, submit, run,
--         estimate, procs, user, and optionally jobspec (a canonical
--         jobspec object) or request (the options of grove.jobspec.build).
--         Read whole.
--   CSV   a header line naming columns (id, submit, run, estimate, procs,
--         user, jobspec), then one job a line; jobspec is a YAML or JSON
--         jobspec file, relative to the CSV file's directory.  Streamed.
--   Batsim  a Batsim workload (JSON: {"nb_res": N, "jobs": [{"id":,
--         "subtime":, "walltime":, "res":, "profile":}, ...], "profiles":
--         {NAME: {"type": "delay", "delay": SECONDS}, ...}}): read as a
--         JSON trace is (format "batsim", or a .json file whose top level
--         holds "profiles" or "nb_res").  A job's run time is its
--         profile's delay (a "composed" profile of delays: their sum times
--         its repeat); a job of another profile type is left out.  Jobs
--         get ids by their place in the file (1, 2, ...); the id as
--         written ("w0!1", or 7) is kept as job.name.  r.nb_res holds the
--         machine's size.
--
-- A job: {id =, submit =, run =, estimate =, procs =, mem =, user =, group =,
-- bank = (JSON and CSV only: the bank limits count it), queue =,
-- partition =, after =, think =, status =, line =, col =,
-- jobspec = (a table in canonical form, or nil)}.  Times are whole
-- seconds; a run time of 0 counts as 1 (the clock's tick).  Jobs that
-- cannot run (no processors, no run time) are not returned: they go to
-- report(job, reason) when given, and are counted in r.skipped.  A
-- malformed file is an error: next() raises "FILE:LINE: reason", or
-- "FILE:LINE:COL: reason" for a field of the wrong type (the field's
-- column; JSON: the job's object).
--
-- With skip_bad, a malformed line of an SWF or CSV trace (a field that is
-- not a number, too few fields, a bad job id) is skipped instead: counted
-- in r.bad, the first BAD_NAMED of them named in r.bad_lines and passed
-- to warn(msg) as they are met.
--
-- As published, a log also holds jobs a study leaves out; options:
--   keep_cancelled  keep jobs cancelled before they ran (status 5 and no
--                   run time); by default they are dropped (r.dropped)
--   status          a set {[code] = true} of statuses (field 11) to keep;
--                   the others are dropped (r.dropped)
--   from, to        keep jobs submitted in [from, to) (r.cut counts the
--                   others)
--   load            compress inter-arrival times by this factor: a job's
--                   submit time becomes first + (submit - first) / load,
--                   rounded (first: the first kept job's submit time);
--                   2 doubles the offered load
--   warn(msg)       called with each warning ("FILE:LINE: ..."); they are
--                   also kept in r.warnings
-- The comment lines of the file (without their ';' or '#') are kept in
-- r.header as they are read (the first 1,000); r:read_header() reads
-- those before the first job at once (a run sized by the header).
--
-- It must not hold scheduling or matching: it only reads and writes
-- job lists.
local check = require("grove.check")
local core = require("grove.core")
local suggest = require("grove.suggest")

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

-- Whether a job was cancelled before it ran (SWF status 5, no run time).
local function never_ran(job)
  return job.status == 5 and job.run <= 0
end

-- The job from its raw values, or nil and the reason it is left out.
local function finish(job)
  if job.why then return nil, job.why end
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

-- FILE:LINE or FILE:LINE:COL of the current job.
local function where(self)
  if self.col then return fmt("%s:%d:%d", self.path, self.lineno, self.col) end
  return fmt("%s:%d", self.path, self.lineno)
end

local function raise(self, msg, ...)
  self:close()
  error(where(self) .. ": " .. fmt(msg, ...), 0)
end

-- The malformed lines named (warn, r.bad_lines) when skip_bad skips them.
M.BAD_NAMED = 5

-- The line being read is malformed: raise as raise does, or with
-- skip_bad count it, name it when it is among the first, and return
-- false for the caller to skip it.
local function malformed(self, msg, ...)
  if not self.opts.skip_bad then return raise(self, msg, ...) end
  self.bad = self.bad + 1
  local text = where(self) .. ": " .. fmt(msg, ...)
  self.col = nil
  if #self.bad_lines < M.BAD_NAMED then
    self.bad_lines[#self.bad_lines + 1] = text
    if self.on_warn then self.on_warn("skipped: " .. text) end
  end
  return false
end

function Reader:warn(msg, ...)
  local text = where(self) .. ": " .. fmt(msg, ...)
  self.warnings[#self.warnings + 1] = text
  if self.on_warn then self.on_warn(text) end
end

-- Keep submit order; filter, scale, report or return the job.
function Reader:accept(job)
  if self.last_submit and job.submit < self.last_submit then
    raise(self, "submit time %d is before the previous job's (%d): %s must be in " ..
      "submit-time order", job.submit, self.last_submit,
      self.opts.fh and "a trace read from a stream" or "a CSV trace")
  end
  local id = job.id
  if self.ids then
    if self.ids[id] then raise(self, "job id %d appears twice", id) end
    self.ids[id] = true
  end
  self.last_submit = job.submit
  local o = self.opts
  if (o.from and job.submit < o.from) or (o.to and job.submit >= o.to) then
    self.cut = self.cut + 1
    return false
  end
  if (not o.keep_cancelled and never_ran(job)) or (o.status and not o.status[job.status]) then
    self.dropped = self.dropped + 1
    return false
  end
  if o.load then
    self.first_submit = self.first_submit or job.submit
    local t0 = self.first_submit
    job.submit = t0 + math.floor((job.submit - t0) / o.load + 0.5)
  end
  local ok, why = finish(job)
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
    local held = self.held
    if held then
      self.held = nil
      return held
    end
    while true do
      local line = self.fh and self.fh:read("l")
      if not line then
        self:close()
        return nil
      end
      self.lineno = self.lineno + 1
      local first = line:match("^%s*(%S)")
      if first and first ~= comment then return line end
      if first and #self.header < 1000 then
        self.header[#self.header + 1] = line:match("^%s*" .. comment .. "%s?(.-)%s*$")
      end
    end
  end
end

-- Read the comment lines before the first job into r.header (an SWF
-- file or stream read line by line; other readers have read theirs, or
-- have none), keeping that job's line for next(): r.header.
function Reader:read_header()
  if self.fh and self.format == "swf" and self.lineno == 0 and not self.held then
    self.held = data_lines(self, ";")()
  end
  return self.header
end

-- The 18 fields of an SWF line in one match (the common case: a line of
-- 18 numbers or more); swf_job falls back to a word at a time to say what
-- is wrong with any other.
local SWF_LINE = "^%s*" .. ("(%S+)%s+"):rep(17) .. "(%S+)()"
local opt_of = {}

local function opt(x) return x >= 0 and whole(x) or nil end

-- The job of the numeric fields f (id checked).
local function job_of(self, f, id)
  local procs = f[8] ~= -1 and f[8] or f[5]
  return {id = id, submit = whole(f[2]), run = whole(f[4]), procs = whole(procs),
    estimate = f[9] > 0 and whole(f[9]) or nil, mem = f[10] > 0 and whole(f[10]) or nil,
    status = whole(f[11]), user = whole(f[12]),
    group = opt(f[13]), queue = opt(f[15]), partition = opt(f[16]),
    after = f[17] > 0 and whole(f[17]) or nil, think = opt(f[18]), line = self.lineno}
end

-- The job of an SWF line; raises, or with skip_bad returns false, when
-- the line is malformed.
local function swf_job(self, line)
  local f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18,
    stop = line:match(SWF_LINE)
  if f1 then
    local f = opt_of
    f[1], f[2], f[4], f[5], f[8], f[9], f[10], f[11], f[12], f[13], f[15], f[16], f[17], f[18] =
      tonumber(f1), tonumber(f2), tonumber(f4), tonumber(f5), tonumber(f8), tonumber(f9),
      tonumber(f10), tonumber(f11), tonumber(f12), tonumber(f13), tonumber(f15), tonumber(f16),
      tonumber(f17), tonumber(f18)
    if f[1] and f[2] and tonumber(f3) and f[4] and f[5] and tonumber(f6) and tonumber(f7) and f[8]
      and f[9] and f[10] and f[11] and f[12] and f[13] and tonumber(f14) and f[15] and f[16]
      and f[17] and f[18] and (self.warned_fields or not line:find("%S", stop)) then
      local id = tointeger(f[1])
      if id and id > 0 then
        return job_of(self, f, id)
      end
    end
  end
  local f, n = {}, 0
  for word in line:gmatch("%S+") do
    n = n + 1
    if n <= 18 then
      local v = tonumber(word)
      if not v then
        local k = 0
        for at in line:gmatch("()%S+") do
          k = k + 1
          if k == n then self.col = at end
        end
        return malformed(self, "field %d (%s) is not a number: '%s'", n, SWF_FIELDS[n], word)
      end
      f[n] = v
    end
  end
  if n < 18 then return malformed(self, "expected 18 fields, found %d", n) end
  if n > 18 and not self.warned_fields then
    self.warned_fields = true
    self:warn("%d fields, expected 18: the fields after the 18th are ignored (this and " ..
      "every other line)", n)
  end
  local id = tointeger(f[1])
  if not id or id <= 0 then
    return malformed(self, "field 1 (job id) must be a positive integer")
  end
  return job_of(self, f, id)
end

local function swf_next(self)
  for line in data_lines(self, ";") do
    local job = swf_job(self, line)
    local ok = job and self:accept(job)
    if ok then return ok end
  end
end

-- The line of the first job out of submit order in the file at path, or
-- nil (a first pass over field 2 only).
local function swf_unsorted(path)
  local fh = io.open(path, "r")
  if not fh then return nil end
  local last, n = nil, 0
  for line in fh:lines() do
    n = n + 1
    local first, t = line:match("^%s*(%S+)%s+(%S+)")
    if first and first:sub(1, 1) ~= ";" then
      t = tonumber(t)
      if t then
        if last and t < last then
          fh:close()
          return n
        end
        last = t
      end
    end
  end
  fh:close()
  return nil
end

-- Read every job of an SWF file into the list, sorted by submit time then
-- job id (a stable order: file order breaks the remaining ties).
local function swf_sorted(self)
  local jobs = {}
  for line in data_lines(self, ";") do
    local j = swf_job(self, line)
    if j then
      j.order = #jobs + 1
      jobs[#jobs + 1] = j
    end
  end
  table.sort(jobs, function(a, b)
    if a.submit ~= b.submit then return a.submit < b.submit end
    if a.id ~= b.id then return a.id < b.id end
    return a.order < b.order
  end)
  self.list, self.pos = jobs, 0
end

-- ---- CSV ------------------------------------------------------------------

local CSV_COLUMNS = {id = true, submit = true, run = true, estimate = true, procs = true,
  user = true, jobspec = true, group = true, queue = true, partition = true, after = true,
  think = true, status = true, mem = true, bank = true}

-- Fields that hold numbers (the others: user, group, queue, partition
-- may be names; jobspec).
local NUMERIC = {id = true, submit = true, run = true, estimate = true, procs = true,
  after = true, think = true, status = true, mem = true}

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
      raise(self, "unknown column '%s'%s (id, submit, run, estimate, procs, mem, user, group, " ..
        "bank, queue, partition, after, think, status, jobspec)", c, suggest.hint(c, CSV_COLUMNS))
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

-- The job of a data row (line: the row as read, for the column of an
-- error); raises, or with skip_bad returns false, when it is malformed.
local function csv_job(self, cells, line)
  if #cells ~= #self.columns then
    return malformed(self, "expected %d fields, found %d", #self.columns, #cells)
  end
  local job = {line = self.lineno}
  for i, c in ipairs(self.columns) do
    local v = cells[i]
    if c == "jobspec" then
      if v ~= "" then job.jobspec = load_jobspec_file(self, v) end
    elseif not NUMERIC[c] then
      job[c] = tointeger(tonumber(v)) or (v ~= "" and v or nil)
    elseif v ~= "" then
      local x = tonumber(v)
      if not x then
        local at, k = 1, 1
        while k < i do
          at = line:find(",", at, true) + 1
          k = k + 1
        end
        self.col = line:find("%S", at) or at
        return malformed(self, "column '%s' is not a number: '%s'", c, v)
      end
      job[c] = whole(x)
    end
  end
  self.auto = self.auto + 1
  job.id = job.id or self.auto
  if job.id <= 0 then return malformed(self, "job id must be positive") end
  if not job.submit or not job.run then return malformed(self, "submit and run are required") end
  return job
end

local function csv_next(self)
  for line in data_lines(self, "#") do
    local cells = csv_split(line)
    if not self.columns then
      csv_header(self, cells)
    else
      local job = csv_job(self, cells, line)
      local ok = job and self:accept(job)
      if ok then return ok end
    end
  end
end

-- ---- JSON -----------------------------------------------------------------

-- The positions of the elements of the job array in JSON text: the top
-- level array, or the array of a top-level "jobs" key.  An array of
-- {line, col} (columns count bytes from 1), one per element in order; the
-- text is scanned for structure only (strings skipped), so this costs a
-- pass over the text.
local function element_positions(text)
  local starts = {}
  local depth, level = 0, nil     -- level: the depth inside the job array
  local p = 1
  local function element_at(q)
    local e = text:find("%S", q + 1)
    if e and text:sub(e, e) ~= "]" then starts[#starts + 1] = e end
  end
  while true do
    local q = text:find('[%[%]{}",]', p)
    if not q then break end
    local c = text:sub(q, q)
    if c == '"' then
      local r = q + 1
      while true do
        local e = text:find('["\\]', r)
        if not e then r = #text break end
        if text:sub(e, e) == "\\" then r = e + 2 else r = e break end
      end
      p = r + 1
    else
      if c == "[" or c == "{" then
        depth = depth + 1
        if c == "[" and not level and (depth == 1 or (depth == 2 and
            text:sub(math.max(1, q - 64), q - 1):match('"jobs"%s*:%s*$'))) then
          level = depth
          element_at(q)
        end
      elseif c == "]" or c == "}" then
        if level == depth then level = -1 end
        depth = depth - 1
      elseif c == "," and level == depth then
        element_at(q)
      end
      p = q + 1
    end
  end
  -- byte offsets to lines and columns
  local out, line, bol, k = {}, 1, 1, 1
  for i, pos in ipairs(starts) do
    while true do
      local nl = text:find("\n", k, true)
      if not nl or nl >= pos then break end
      line, bol, k = line + 1, nl + 1, nl + 1
    end
    out[i] = {line, pos - bol + 1}
  end
  return out
end

local JSON_FIELDS = "id, submit, run, estimate, procs, mem, user, group, bank, queue, " ..
  "partition, after, think, status, jobspec, request"

-- ---- Batsim workloads -------------------------------------------------------

-- The run time of a Batsim profile: a delay's, or a composed profile's
-- (its sequence's, times its repeat); nil and why not for any other.
local function profile_run(profiles, name, depth)
  local p = profiles[name]
  if p == nil and type(name) == "string" and name:find("!", 1, true) then
    name = name:match("!(.*)$")
    p = profiles[name]
  end
  if type(p) ~= "table" then return nil, fmt("no profile '%s'", tostring(name)) end
  if p.type == "delay" then
    if type(p.delay) ~= "number" or p.delay < 0 then
      return nil, fmt("profile '%s': delay must be a number >= 0", name)
    end
    return p.delay
  elseif p.type == "composed" and depth < 16 then
    if type(p.seq) ~= "table" then return nil, fmt("profile '%s': seq must be an array", name) end
    local sum = 0
    for _, q in ipairs(p.seq) do
      local r, why = profile_run(profiles, q, depth + 1)
      if not r then return nil, why end
      sum = sum + r
    end
    local rep = p["repeat"] == nil and 1 or p["repeat"]
    if math.type(rep) ~= "integer" or rep < 1 then
      return nil, fmt("profile '%s': repeat must be an integer >= 1", name)
    end
    return sum * rep
  end
  return nil, fmt("profile '%s' of type '%s' gives no run time (delay and composed " ..
    "profiles of delays only)", name, tostring(p.type))
end

-- jobs, sorted by submit time then id, are the list the reader hands
-- out (self.list, from its start).
local function set_list(self, jobs)
  table.sort(jobs, function(a, b)
    if a.submit ~= b.submit then return a.submit < b.submit end
    return a.id < b.id
  end)
  self.list, self.pos = jobs, 0
end

-- The jobs of a Batsim workload doc (text: its JSON, for the places of
-- errors) into self.list, sorted by submit time then id.
local function batsim_jobs(self, doc, text)
  local function fail(msg, ...)
    error(self.path .. ": " .. fmt(msg, ...), 0)
  end
  if type(doc) ~= "table" or doc[1] ~= nil or type(doc.jobs) ~= "table" then
    fail("a Batsim workload is an object with \"jobs\" and \"profiles\"")
  end
  if doc.nb_res ~= nil and (math.type(doc.nb_res) ~= "integer" or doc.nb_res <= 0) then
    fail("nb_res must be an integer > 0")
  end
  local profiles = doc.profiles or {}
  if type(profiles) ~= "table" or profiles[1] ~= nil then fail("profiles must be an object") end
  self.nb_res = doc.nb_res
  local pos = element_positions(text)
  local jobs = {}
  for i, o in ipairs(doc.jobs) do
    local at = pos[i] or {i, nil}
    local here = at[2] and fmt("%s:%d:%d: job %d", self.path, at[1], at[2], i)
      or fmt("%s: job %d", self.path, i)
    local function bad(msg, ...) error(here .. ": " .. fmt(msg, ...), 0) end
    if type(o) ~= "table" then bad("not an object (got %s)", type(o)) end
    local id = o.id
    if type(id) ~= "string" and math.type(id) ~= "integer" then
      bad("id must be a string or an integer (got %s)", type(id))
    end
    if type(o.subtime) ~= "number" or o.subtime < 0 then
      bad("subtime must be a number >= 0 (got %s)", tostring(o.subtime))
    end
    if o.walltime ~= nil and (type(o.walltime) ~= "number" or o.walltime <= 0) then
      bad("walltime must be a number > 0, or absent (no walltime)")
    end
    if math.type(o.res) ~= "integer" or o.res < 0 then
      bad("res must be an integer >= 0 (got %s)", tostring(o.res))
    end
    if type(o.profile) ~= "string" then
      bad("profile must be a string (got %s)", type(o.profile))
    end
    local job = {id = i, name = tostring(id), submit = whole(o.subtime), procs = o.res,
      estimate = o.walltime and math.ceil(o.walltime - 1e-9) or nil, line = at[1], col = at[2]}
    local run, why = profile_run(profiles, o.profile, 0)
    if run then
      job.run = math.ceil(run - 1e-9)
    else
      job.run, job.why = 0, why
    end
    jobs[#jobs + 1] = job
  end
  set_list(self, jobs)
end

local function json_jobs(self, text)
  local doc, err = core.json_decode(text, self.path)
  if doc == nil then
    self:close()
    error(err, 0)
  end
  if self.format == "batsim" or (type(doc) == "table" and doc[1] == nil and
      (doc.profiles ~= nil or doc.nb_res ~= nil)) then
    self.format = "batsim"
    return batsim_jobs(self, doc, text)
  end
  local list = type(doc) == "table" and (doc.jobs or doc) or nil
  if type(list) ~= "table" or (next(list) ~= nil and #list == 0) then
    self:close()
    error(fmt("%s: expected an array of jobs or {\"jobs\": [...]}", self.path), 0)
  end
  local pos = element_positions(text)
  local jobs = {}
  for i, o in ipairs(list) do
    local at = pos[i] or {i, nil}
    local here = at[2] and fmt("%s:%d:%d: job %d", self.path, at[1], at[2], i)
      or fmt("%s: job %d", self.path, i)
    local function bad(msg, ...) error(here .. ": " .. fmt(msg, ...), 0) end
    if type(o) ~= "table" then bad("not an object (got %s)", type(o)) end
    local job = {line = at[1], col = at[2]}
    for k, v in pairs(o) do
      if k == "jobspec" then
        if type(v) ~= "table" then bad("jobspec must be an object (got %s)", type(v)) end
        job.jobspec = v
      elseif k == "request" then
        if type(v) ~= "table" then bad("request must be an object (got %s)", type(v)) end
        local ok, js = pcall(require("grove.jobspec").build, v)
        if not ok then bad("request: %s", tostring(js)) end
        job.jobspec = js
      elseif k == "user" or k == "group" or k == "queue" or k == "partition" or k == "bank" then
        if type(v) ~= "number" and type(v) ~= "string" then
          bad("%s must be a number or a string (got %s)", k, type(v))
        end
        job[k] = v
      elseif NUMERIC[k] then
        if type(v) ~= "number" then bad("%s must be a number (got %s)", k, type(v)) end
        job[k] = whole(v)
      else
        local names = {}
        for n in JSON_FIELDS:gmatch("[%w_]+") do names[#names + 1] = n end
        bad("unknown field '%s'%s (%s)", tostring(k), suggest.hint(tostring(k), names), JSON_FIELDS)
      end
    end
    job.id = job.id or i
    if not job.submit or not job.run then bad("submit and run are required") end
    if not job.procs and not job.jobspec then bad("give procs, jobspec or request") end
    jobs[#jobs + 1] = job
  end
  set_list(self, jobs)
end

local function list_next(self)
  while true do
    self.pos = self.pos + 1
    local job = self.list[self.pos]
    if not job then return nil end
    self.lineno, self.col = job.line, job.col
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

-- The options of from_list: the filters above, report and source.
local LIST_OPTIONS = {keep_cancelled = 1, status = 1, from = 1, to = 1, load = 1, warn = 1,
  skip_bad = 1, report = 1, source = 1}
-- open's: the filters, report, format and fh.
local OPEN_OPTIONS = {format = 1, fh = 1}
for k in pairs(LIST_OPTIONS) do OPEN_OPTIONS[k] = k ~= "source" and 1 or nil end

-- Open a trace.  opts: format ("swf" | "json" | "csv" | "batsim"), report(job, why),
-- fh (read from this handle instead of opening path), and the filters
-- above (keep_cancelled, status, from, to, load, warn, skip_bad); any
-- other key raises.  A reader, or nil, message, code.
function M.open(path, opts)
  if type(path) ~= "string" then
    error(fmt("bad argument #1 to 'open' (string expected, got %s)", type(path)), 2)
  end
  check.keys(opts, OPEN_OPTIONS, 2, "open")
  opts = opts or {}
  local format = opts.format or guess(path)
  if format ~= "swf" and format ~= "json" and format ~= "csv" and format ~= "batsim" then
    error(fmt("bad argument #2 to 'open' (unknown format '%s': swf, json, csv, batsim)", format),
      2)
  end
  local fh, err = opts.fh
  if not fh then
    fh, err = io.open(path, "r")
    if not fh then return nil, err, "ENOENT" end
  end
  if opts.load ~= nil and (type(opts.load) ~= "number" or opts.load <= 0) then
    error("bad argument #2 to 'open' (load must be a number > 0)", 2)
  end
  local self = setmetatable({path = path, fh = fh, lineno = 0, count = 0, skipped = 0,
    report = opts.report, format = format, auto = 0, dir = path:match("^(.*/)") or "",
    ids = format ~= "swf" and {} or nil, opts = opts, cut = 0, dropped = 0, warnings = {},
    on_warn = opts.warn, header = {}, bad = 0, bad_lines = {}}, Reader)
  if format == "json" or format == "batsim" then
    local text = fh:read("a")
    self:close()
    local ok, e = pcall(json_jobs, self, text)
    if not ok then return nil, e, "EINVAL" end
    self.next = list_next
  elseif format == "csv" then
    self.next = csv_next
  else
    self.next = swf_next
    local bad = not opts.fh and swf_unsorted(path)
    if bad then
      local ok, e = pcall(swf_sorted, self)
      if not ok then return nil, e, "EINVAL" end
      self.lineno = bad
      self:warn("not in submit-time order: the trace is read whole and sorted by submit " ..
        "time, then job id")
      self.lineno = 0
      self.next = list_next
    end
  end
  return self
end

-- A reader over a Lua array of job tables (the same checks and order
-- rules as a file; jobs are sorted by submit time, then id).  opts: the
-- filters, report and source (the name messages give); any other key
-- raises.
function M.from_list(list, opts)
  check.keys(opts, LIST_OPTIONS, 2, "from_list")
  opts = opts or {}
  local self = setmetatable({path = opts.source or "(jobs)", lineno = 0, count = 0,
    skipped = 0, report = opts.report, auto = 0, ids = {}, opts = opts, cut = 0,
    dropped = 0, warnings = {}, on_warn = opts.warn, header = {}, bad = 0, bad_lines = {}},
    Reader)
  local jobs = {}
  for i, o in ipairs(list) do
    local job = {}
    for k, v in pairs(o) do job[k] = v end
    job.id = job.id or i
    job.line = i
    jobs[i] = job
  end
  set_list(self, jobs)
  self.next = list_next
  return self
end

-- A job as an SWF line (without its newline): {id, submit, run, procs,
-- estimate, user, and optionally wait, asked (field 8; default procs),
-- mem, status, group, queue, partition, after, think}; a field the job
-- does not have is written -1 (status: 1).  Fields that are names (a user
-- in a JSON trace) are written -1.
local function n(v) return math.type(v) == "integer" and v or -1 end

function M.swf_line(j)
  return fmt("%d %d %d %d %d -1 -1 %d %d %d %d %d %d -1 %d %d %d %d", j.id, j.submit,
    n(j.wait), j.run, j.procs, j.asked or j.procs, n(j.estimate), n(j.mem), j.status or 1,
    n(j.user), n(j.group), n(j.queue), n(j.partition), n(j.after), n(j.think))
end

-- Write jobs as SWF: header is a list of comment lines (without ';').
-- jobs: an array or an iterator of jobs as swf_line takes them.
function M.write_swf(fh, jobs, header)
  for _, h in ipairs(header or {}) do fh:write("; ", h, "\n") end
  local iter = type(jobs) == "function" and jobs or coroutine.wrap(function()
    for _, j in ipairs(jobs) do coroutine.yield(j) end
  end)
  for j in iter do fh:write(M.swf_line(j), "\n") end
end

return M
