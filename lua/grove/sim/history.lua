-- grove.sim.history: read a Flux instance's history, as `grove
-- flux-export` writes it, for `grove sim --history`.
--
--   local history = require "grove.sim.history"
--   local h, err = history.read("instance.jsonl")
--   -- h.header, h.config (`flux config get`), h.scheduler (sched-grove's
--   -- settings, or nil), h.R (the instance's R, text), h.resource_events,
--   -- h.jobs (in submit order), h.created (the export's time)
--
-- The file is JSON lines (format "grove-flux-history", version 1): a
-- header, the configuration, the instance's R, its resource events in
-- time order, its jobs in submit order, and an end line that counts them.
-- Everything is checked before a replay starts, and a file that does not
-- hold is refused whole, naming the file, the line and the reason: a file
-- of another tool, one cut short (no end line, or fewer lines than it
-- counts), jobs or events out of order, a job whose resources are not in
-- the R.  Nothing is left out silently.
--
-- For each job the reader derives, from its events, what the scheduler
-- was told and when, as the job manager tells it (RFC 27, flux-core's
-- job-manager): the job's alloc request goes out when it enters SCHED with
-- a priority above 0 (its first priority event, or the one that releases
-- a hold); a priority event of 0 while the request waits is a hold (the
-- request is cancelled); another priority is a sched.prioritize; a cancel
-- (a fatal exception) while the request waits cancels it.  job.sched is
-- that list: {t =, op = "alloc" | "cancel" | "prioritize", priority =}.
-- The instance's own answer: job.alloc (the alloc event: its start) and
-- job.free (the free event: when its resources went back), job.hosts and
-- job.ranks (from its R), and job.estimated, the start estimates
-- sched-grove showed it ({first, first_at, last, last_at, count}, from
-- the alloc event's annotations; nil under another scheduler, or for a
-- job shown none).
--
-- It must not replay anything: grove.sim.replay does.
local core = require("grove.core")

local M = {}

local fmt = string.format

M.FORMAT = "grove-flux-history"
M.VERSION = 1

local KINDS = {header = 1, config = 2, R = 3, resource = 4, job = 5, ["end"] = 6}

-- The resource events a replay reads; others are kept and not read.
M.RESOURCE_EVENTS = {online = true, offline = true, drain = true, undrain = true}

local function where(path, n) return fmt("%s:%d: ", path, n) end

local function derive(job)
  local sched = {}
  local pending, started, gone = false, false, false
  local prio
  for _, e in ipairs(job.events) do
    local name, t, c = e.name, e.timestamp, e.context or {}
    if name == "priority" and not started and not gone then
      local p = math.tointeger(c.priority)
      if p and p > 0 and not pending then
        sched[#sched + 1] = {t = t, op = "alloc", priority = p}
        pending = true
      elseif p == 0 and pending then
        sched[#sched + 1] = {t = t, op = "cancel", hold = true}
        pending = false
      elseif p and pending and p ~= prio then
        sched[#sched + 1] = {t = t, op = "prioritize", priority = p}
      end
      prio = p
    elseif name == "exception" and (c.severity == 0) and not started then
      if pending then
        sched[#sched + 1] = {t = t, op = "cancel"}
        pending = false
      end
      gone = true
    elseif name == "alloc" then
      started = true
      pending = false
      job.alloc = t
      -- the start estimates sched-grove showed (grove.flux.annotate)
      local a = type(c.annotations) == "table" and c.annotations.sched
      local est = type(a) == "table" and a.estimated
      if type(est) == "table" and type(est.first) == "number" and type(est.last) == "number" then
        job.estimated = est
      end
    elseif name == "free" then
      job.free = t
    elseif name == "submit" then
      job.userid = math.tointeger(c.userid) or 0
    end
  end
  job.sched = sched
  job.reached = #sched > 0
end

-- The instance's R as an rv1 object and its ranks' host names.
local function read_R(path, n, R)
  if type(R) ~= "table" then
    return nil, where(path, n) .. "the instance's R is missing (\"R\": an R version 1 object)"
  end
  local text = core.json_encode(R, 0)
  local r, msg = core.rv1_decode(text, path)
  if not r then return nil, where(path, n) .. "the instance's R: " .. tostring(msg) end
  return r, text
end

-- A job's R against the instance's: its ranks must be the instance's,
-- each with the same host name.  nil, or the reason.
local function check_job_R(job, inst)
  local jt = core.json_encode(job.R, 0)
  local r, msg = core.rv1_decode(jt, "R")
  if not r then return fmt("job %d: its R: %s", job.id, tostring(msg)) end
  local ranks = r:ranks()
  local all = inst:ranks()
  local names = {}
  for rank in ranks:ids() do
    local h = r:hostname(rank)
    if not all:test(rank) then
      return fmt("job %d ran on %s (rank %d), which the instance's R does not have " ..
        "(its resources no longer exist)", job.id, h or "?", rank)
    end
    local ih = inst:hostname(rank)
    if h and ih and h ~= ih then
      return fmt("job %d ran on %s (rank %d), which is %s in the instance's R " ..
        "(its resources no longer exist)", job.id, h, rank, ih)
    end
    names[#names + 1] = h or ih
  end
  job.ranks = tostring(ranks)
  job.hosts = names
  return nil
end

local function check_events(path, n, job)
  local ev = job.events
  if type(ev) ~= "table" or #ev == 0 then
    return where(path, n) .. fmt("job %d has no events", job.id)
  end
  local last
  for i, e in ipairs(ev) do
    if type(e) ~= "table" or type(e.timestamp) ~= "number" or type(e.name) ~= "string" then
      return where(path, n) .. fmt("job %d: event %d is not {timestamp, name, context}",
        job.id, i)
    end
    if last and e.timestamp < last.timestamp then
      return where(path, n) .. fmt("job %d: event %d (%s at %.6f) is before the one before " ..
        "it (%s at %.6f): events out of order", job.id, i, e.name, e.timestamp, last.name,
        last.timestamp)
    end
    last = e
  end
  if ev[1].name ~= "submit" then
    return where(path, n) .. fmt("job %d: its first event is %s, not submit", job.id, ev[1].name)
  end
  return nil
end

-- Read a history file: the history, or nil, "FILE:LINE: reason", code.
function M.read(path)
  local f, ferr, fcode = io.open(path, "rb")
  if not f then return nil, ferr, fcode end
  local h = {path = path, resource_events = {}, jobs = {}}
  local n, kind, last_job = 0, 0, nil
  local seen = {}
  local inst
  local tail_ok = true
  local result, err
  for line in f:lines("L") do
    n = n + 1
    local ended = line:sub(-1) == "\n"
    if ended then line = line:sub(1, -2) end
    if line:match("^%s*$") then goto continue end
    do
      if kind == KINDS["end"] then
        err = where(path, n) .. "a line after the end line"
        break
      end
      local o, msg = core.json_decode(line, path)
      if n == 1 and (type(o) ~= "table" or o.type ~= "header" or o.format ~= M.FORMAT) then
        err = where(path, 1) .. "not a history of grove flux-export (its first line is " ..
          "{\"type\": \"header\", \"format\": \"" .. M.FORMAT .. "\", ...}): " ..
          (o == nil and ("not JSON: " .. tostring(msg):gsub("^[^:]*:%d+:", "col")) or
           "a file of another tool?")
        break
      end
      if o == nil then
        if not ended then
          err = where(path, n) .. "the file ends inside a line (truncated): " .. tostring(msg)
        else
          err = tostring(msg)
        end
        break
      end
      if type(o) ~= "table" or not KINDS[o.type] then
        err = where(path, n) .. "a line of an unknown type (" .. tostring(type(o) == "table"
          and o.type) .. "): header, config, R, resource, job or end expected"
        break
      end
      local k = KINDS[o.type]
      if k < kind or (k == kind and k <= 3) then
        err = where(path, n) .. fmt("a %s line out of place: the order is header, config, R, " ..
          "resource events, jobs, end", o.type)
        break
      end
      if k > 1 and kind == 0 then
        err = where(path, n) .. "no header line"
        break
      end
      if k == 4 and kind < 3 or k >= 5 and kind < 3 then
        err = where(path, n) .. fmt("a %s line before the R line", o.type)
        break
      end
      kind = k
      if o.type == "header" then
        if math.type(o.version) ~= "integer" or o.version > M.VERSION then
          err = where(path, n) .. fmt("format version %s: this Grove reads version %d",
            tostring(o.version), M.VERSION)
          break
        end
        h.header = o
        h.created = o.created
      elseif o.type == "config" then
        if o.config ~= nil and type(o.config) ~= "table" then
          err = where(path, n) .. "config must be an object (flux config get)"
          break
        end
        h.config, h.scheduler, h.config_line = o.config or {}, o.scheduler, n
      elseif o.type == "R" then
        local r, text = read_R(path, n, o.R)
        if not r then
          err = text
          break
        end
        inst, h.R, h.R_line, h.rv1 = r, text, n, r
      elseif o.type == "resource" then
        if type(o.timestamp) ~= "number" or type(o.name) ~= "string" then
          err = where(path, n) .. "a resource event needs a timestamp and a name"
          break
        end
        local prev = h.resource_events[#h.resource_events]
        if prev and o.timestamp < prev.t then
          err = where(path, n) .. fmt("resource event %s at %.6f is before the one before it " ..
            "(%s at %.6f, line %d): events out of order", o.name, o.timestamp, prev.name,
            prev.t, prev.line)
          break
        end
        if M.RESOURCE_EVENTS[o.name] then
          local ids = type(o.context) == "table" and o.context.idset
          if type(ids) ~= "string" or not core.idset(ids) then
            err = where(path, n) .. fmt("resource event %s needs an idset (ranks)", o.name)
            break
          end
          local bad = core.idset(ids):difference(inst:ranks())
          if bad:count() > 0 then
            err = where(path, n) .. fmt("resource event %s names ranks %s, which the " ..
              "instance's R does not have", o.name, tostring(bad))
            break
          end
        end
        h.resource_events[#h.resource_events + 1] = {t = o.timestamp, name = o.name,
          context = o.context or {}, line = n}
      elseif o.type == "job" then
        if math.type(o.id) ~= "integer" or o.id < 0 then
          err = where(path, n) .. "a job needs an integer id"
          break
        end
        if seen[o.id] then
          err = where(path, n) .. fmt("job %d again (first on line %d)", o.id, seen[o.id])
          break
        end
        seen[o.id] = n
        local job = {id = o.id, line = n, events = o.events, jobspec = o.jobspec, R = o.R}
        err = check_events(path, n, job)
        if err then break end
        job.t_submit = job.events[1].timestamp
        if last_job and (job.t_submit < last_job.t_submit or
            job.t_submit == last_job.t_submit and job.id < last_job.id) then
          err = where(path, n) .. fmt("job %d submitted at %.6f, before job %d (line %d, " ..
            "at %.6f): jobs out of order (submit time, then id)", job.id, job.t_submit,
            last_job.id, last_job.line, last_job.t_submit)
          break
        end
        derive(job)
        if job.reached and type(job.jobspec) ~= "table" then
          err = where(path, n) .. fmt("job %d has no jobspec", job.id)
          break
        end
        if job.alloc then
          if type(job.R) ~= "table" then
            err = where(path, n) .. fmt("job %d started with no R", job.id)
            break
          end
          local why = check_job_R(job, inst)
          if why then
            err = where(path, n) .. why
            break
          end
        end
        h.jobs[#h.jobs + 1] = job
        last_job = job
      else -- end
        if o.jobs ~= #h.jobs or o.resource_events ~= #h.resource_events then
          err = where(path, n) .. fmt("the end line counts %s jobs and %s resource events, " ..
            "the file holds %d and %d (truncated or cut)", tostring(o.jobs),
            tostring(o.resource_events), #h.jobs, #h.resource_events)
          break
        end
        h.created = o.timestamp or h.created
      end
    end
    ::continue::
  end
  f:close()
  if not err and n == 0 then err = where(path, 1) .. "empty file" end
  if not err and kind ~= KINDS["end"] then
    tail_ok = false
    err = where(path, n) .. fmt("truncated: the file ends without its end line (%d jobs read)",
      #h.jobs)
  end
  if err then return nil, err, "EINVAL" end
  result = h
  h.complete = tail_ok
  return result
end

return M
