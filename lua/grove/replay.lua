-- grove.replay: scripted RFC 28 acquisition sessions.
--
-- A replay drives an acquisition state (grove.core.acquire) bound to a
-- graph and a matcher with a script of protocol responses interleaved with
-- scheduler and administrator commands, and records the state after every
-- step.  `grove acquire-replay FILE` prints it; specs use the Lua API.
--
--   local replay = require "grove.replay"
--   local r = replay.run_file("session.txt", {protocol = "v1"})
--   -- r.steps[i] = {n =, line =, text =, kind =, ok =, error =, code =,
--   --               events =, job =, state =}
--   -- r.failures = {"session.txt:12: expect up 0-3: got 0-2", ...}
--   print(r.output)
--
--   local s = replay.new{protocol = "auto", group = "default", policy = "first",
--                        graph = g, base = "dir"}
--   s:step("match allocate nodes=1 cores_per_node=2")  -- one item
--   s:state()                                           -- a snapshot
--
-- The script: one item per line; blank lines and lines starting with #
-- are ignored.
--
--   {...}                  a response (JSON; it may span several lines
--                          until its braces balance)
--   [{...}, ...]           several responses, applied one by one
--   match MODE SPEC        match a jobspec: MODE is allocate,
--                          allocate_orelse_reserve, allocate_with_satisfiability,
--                          satisfiability, without_allocating; SPEC is a
--                          jobspec file (relative to the script) or
--                          key=value words for grove.jobspec.build
--                          (nodes=1 cores_per_node=2 duration=60); id=N
--                          gives the job id
--   cancel ID              free a job whole (then pending targets are checked)
--   release ID RANKS       free the part of a job on RANKS (likewise)
--   drain RANKS  undrain RANKS  exclude RANKS  include RANKS
--   update                 check the pending targets again
--   disconnect             the stream restarts: the next response is a first one
--   save FILE [full]       save the state to the store FILE (SQLite; only
--                          the rows that changed since its last save, or
--                          with `full` every row; a relative name is in a
--                          scratch directory of the run, removed at its end)
--   save-state FILE [changed]   write the state file FILE (JSON: JGF and
--                          the jobs), whole or with `changed` only what
--                          changed since the last save to FILE
--   save-jgf FILE [changed]     the same for the graph as JGF (with state)
--   save-child ID FILE [changed]  the same for the R a child instance
--                          inside job ID acquires
--                          (each FILE keeps the mark of its last save for
--                          the session; relative names as for save)
--   load FILE              replace the state with the one saved in FILE
--                          (a restarted scheduler; follow with disconnect
--                          when the stream restarts too)
--   time T                 the graph's current time
--   policy NAME            the matcher's policy (built-in or a policy file)
--   graph FILE             load the starting graph (JGF), before any response
--   expect WHAT [VALUE]    check the state after the previous step; WHAT is
--                          acquired, up, down, drained, excluded, shrunk,
--                          pending, usable (an idset, "-" for none), jobs
--                          (job ids, "-"), release, removed (idsets of the
--                          last step's release requests and removals),
--                          exceptions, reservations, affected (job ids of
--                          the last step), protocol, expiration, failure (text),
--                          refused [CODE], accepted
--
-- Steps that are refused are reported, not fatal: refusing bad responses
-- is part of what a script checks.  A script error (an unknown command, a
-- file that cannot be read) raises.
--
-- This module holds the replay session, its script format and its report;
-- it must not hold the command line (grove.cmd.acquire-replay) nor
-- acquisition rules of its own (grove.core.acquire decides).
local check = require("grove.check")
local core = require("grove.core")
local files = require("grove.files")
local jobspec = require("grove.jobspec")
local policy = require("grove.policy")

local M = {}

local fmt = string.format
local concat = table.concat

M.sets = {"acquired", "up", "down", "drained", "excluded", "shrunk", "pending"}

local MODES = {
  allocate = true, allocate_orelse_reserve = true, allocate_with_satisfiability = true,
  satisfiability = true, without_allocating = true, without_allocating_future = true,
}

local Session = {}
Session.__index = Session

-- The rank a vertex is on (its own, or its nearest ranked ancestor's).
local function rank_of(v)
  while v do
    local r = v:rank()
    if r and r >= 0 then return r end
    v = v:parent()
  end
  return nil
end

-- An idset string of the ranks of a job's picks.
local function job_ranks(job)
  local ids = core.idset()
  for _, p in ipairs(job.picks) do
    local r = rank_of(p.vertex)
    if r then ids:set(r) end
  end
  return tostring(ids)
end

-- What the state and the steps record of a job.
local function job_summary(j)
  return {id = j.id, state = j.state, ranks = job_ranks(j), start = j.start, ["end"] = j["end"]}
end

-- Record a failed call (r nil or false) in the step: not ok, its message
-- and code.  Returns r.
local function checked(step, r, msg, code)
  if not r then step.ok, step.error, step.code = false, msg, code end
  return r
end

-- A new session.  opts: protocol, group, policy (name or grove.policy),
-- graph (a graph to start from; default empty), base (directory of
-- relative paths), matcher options (default_duration); any other key
-- raises.
local NEW_OPTIONS = {protocol = 1, group = 1, policy = 1, graph = 1, base = 1,
  default_duration = 1}
-- run's and run_file's: new's, source and json
local RUN_OPTIONS = {source = 1, json = 1}
for k in pairs(NEW_OPTIONS) do RUN_OPTIONS[k] = 1 end

function M.new(opts)
  opts = check.arg(opts or {}, "table", 1, "new")
  check.keys(opts, NEW_OPTIONS, 1, "new")
  local self = setmetatable({}, Session)
  self.base = opts.base or "."
  self.graph = opts.graph or core.graph()
  self.matcher = core.matcher(self.graph, opts.default_duration
    and {default_duration = opts.default_duration} or nil)
  self.acquire = core.acquire(self.graph, self.matcher,
    {protocol = opts.protocol or "auto", group = opts.group or "default"})
  self.steps = {}
  self.failures = {}
  self.responses = 0
  if opts.policy then
    local ok, msg = self:set_policy(opts.policy)
    if not ok then error(msg, 2) end
  end
  return self
end

function Session:set_policy(p)
  if type(p) == "string" then
    local ok, msg = self.matcher:set_policy(p)
    if ok then return true end
    local pol, perr = policy.load(p)
    if not pol then return nil, msg .. "; " .. perr end
    p = pol
  end
  return self.matcher:set_policy(p)
end

-- A snapshot of the state: target sets (idset strings), jobs, protocol...
function Session:state()
  local a = self.acquire
  local st = {targets = {}, jobs = {}}
  for _, s in ipairs(M.sets) do st.targets[s] = a:targets(s) end
  st.targets.usable = a:targets("usable")
  for _, j in ipairs(self.matcher:jobs()) do
    st.jobs[#st.jobs + 1] = job_summary(j)
  end
  st.protocol = a:protocol()
  st.expiration = a:expiration()
  st.failure = a:failure()
  return st
end

local function resolve(self, path)
  if path:sub(1, 1) == "/" then return path end
  return self.base .. "/" .. path
end

-- Store files: relative names go in a scratch directory of the session
-- (removed by M.run at the end), so scripts do not write beside themselves.
local function scratch(self, path)
  if path:sub(1, 1) == "/" then return path end
  if not self.scratch then
    local d = os.tmpname()
    os.remove(d)
    if not os.execute("mkdir -p '" .. d .. "'") then error("cannot make " .. d, 0) end
    self.scratch = d
  end
  return self.scratch .. "/" .. path
end

-- Remove the scratch directory, if any.
function Session:cleanup()
  if self.scratch then
    os.execute("rm -rf '" .. self.scratch .. "'")
    self.scratch = nil
  end
end

local function scalar(v)
  if v == "true" then return true end
  if v == "false" then return false end
  return math.tointeger(tonumber(v)) or tonumber(v) or v
end

-- The jobspec of a match command's words (after the mode), and the id.
function Session:jobspec(words)
  local id
  if #words == 1 and not words[1]:find("=", 1, true) then
    local path = resolve(self, words[1])
    local text, err = files.read(path)
    return text, err -- no id: the file's jobspec has none
  end
  local t = {}
  for _, w in ipairs(words) do
    local k, v = w:match("^([%w_]+)=(.*)$")
    if not k then return nil, fmt("expected key=value, got '%s'", w) end
    if k == "id" then
      id = math.tointeger(tonumber(v))
      if not id or id < 1 then return nil, fmt("id must be a positive integer, got '%s'", v) end
    elseif k == "constraints" then
      local list = {}
      for p in v:gmatch("[^,]+") do list[#list + 1] = p end
      t[k] = list
    else
      t[k] = scalar(v)
    end
  end
  local ok, js = pcall(jobspec.build, t)
  if not ok then return nil, tostring(js) end
  return js, nil, id
end

local function words_of(s)
  local w = {}
  for x in s:gmatch("%S+") do w[#w + 1] = x end
  return w
end

-- The lists of an event that the summary shows: field, line format, and
-- the key printed before the targets.
local EVENT_LISTS = {
  {"release", "release: group=%s targets=%s", "group"},
  {"exceptions", "exception: job=%d targets=%s", "id"},
  {"reservations", "reservation: job=%d targets=%s", "id"},
  {"running", "running: job=%d targets=%s", "id"},
  {"affected", "affected: job=%d targets=%s", "id"},
}

local function events_summary(ev)
  local out = {}
  if not ev then return out end
  for _, l in ipairs(EVENT_LISTS) do
    for _, x in ipairs(ev[l[1]] or {}) do
      local line = fmt(l[2], x[l[3]], x.targets)
      -- a reservation planned again: where it went, or that it was dropped
      if x.start then line = line .. " start=" .. x.start end
      if x.dropped then line = line .. " dropped" end
      out[#out + 1] = line
    end
  end
  if ev.removed and ev.removed ~= "" then out[#out + 1] = "removed: " .. ev.removed end
  if ev.reevaluate then out[#out + 1] = "reevaluate: the resource set changed" end
  if ev.error then out[#out + 1] = "error: " .. ev.error end
  return out
end

-- The step of a command that frees resources: refused when the call
-- failed (r nil), else the events of the update that follows.
local function after_free(self, step, r, msg, code)
  if checked(step, r, msg, code) then step.events = self.acquire:update() end
end

local commands = {}

function commands.match(self, step, args)
  local w = words_of(args)
  local mode = table.remove(w, 1)
  if not mode or not MODES[mode] then
    error(fmt("match: unknown mode '%s'", tostring(mode)), 0)
  end
  if #w == 0 then error("match: no jobspec", 0) end
  local js, err, id = self:jobspec(w)
  if not js then error("match: " .. err, 0) end
  local job = checked(step, self.matcher:match(js, mode, id))
  if job then step.job = job_summary(job) end
end

function commands.cancel(self, step, args)
  local id = math.tointeger(tonumber(args))
  if not id then error("cancel: expected a job id", 0) end
  after_free(self, step, self.matcher:cancel(id))
end

function commands.release(self, step, args)
  local id, ranks = args:match("^(%d+)%s+(%S+)$")
  if not id then error("release: expected a job id and ranks", 0) end
  after_free(self, step, self.matcher:release_ranks(tonumber(id), ranks))
end

for _, name in ipairs{"drain", "undrain", "exclude", "include"} do
  commands[name] = function(self, step, args)
    if args == "" then error(name .. ": expected target ranks", 0) end
    local ok, ev, code = self.acquire[name](self.acquire, args)
    if checked(step, ok, ev, code) then step.events = ev end
  end
end

function commands.update(self, step)
  after_free(self, step, true)
end

function commands.disconnect(self)
  self.acquire:disconnect()
end

-- The words of args: a file, and the one option word allowed (or none).
local function file_and_option(cmd, args, word)
  local file, opt = args:match("^(%S+)%s*(%S*)$")
  if not file then error(fmt("%s: expected a file", cmd), 0) end
  if opt ~= "" and opt ~= word then
    error(fmt("%s: unknown option '%s' (%s)", cmd, opt, word), 0)
  end
  return file, opt == word
end

function commands.save(self, step, args)
  local file, full = file_and_option("save", args, "full")
  local st = checked(step, core.store_open(scratch(self, file)))
  if not st then return end
  step.saved = checked(step, st:save(self.graph, self.matcher, self.acquire, {full = full}))
  st:close()
end

-- The mark of destination path (kept for the session).
local function mark_of(self, path)
  self.marks = self.marks or {}
  self.marks[path] = self.marks[path] or core.mark()
  return self.marks[path]
end

-- Write text to path; true, or nil, message, code.
local function write_file(path, text)
  local f, msg = io.open(path, "w")
  if not f then return nil, msg, "EIO" end
  local ok, werr = f:write(text)
  f:close()
  if not ok then return nil, werr, "EIO" end
  return true
end

-- What a save wrote, for the report: its kind, generation, and how many
-- nodes, edges and jobs (and removals) its document holds.
local function written(kind, mk, text, changed)
  local doc = core.json_decode(text) or {}
  local gr = kind == "R" and (doc.scheduling or {}).graph or doc.graph or {}
  local rm = (doc.changes or {}).removed or {}
  return {kind = kind, generation = mk:generation(), changed = changed,
    nodes = #(gr.nodes or {}), edges = #(gr.edges or {}), jobs = #((doc.grove or {}).jobs or {}),
    removed = #(rm.nodes or {}) + #(rm.edges or {}) + #(rm.jobs or {}), bytes = #text}
end

commands["save-state"] = function(self, step, args)
  local file, changed = file_and_option("save-state", args, "changed")
  local path = scratch(self, file)
  local mk = mark_of(self, path)
  if not checked(step, core.state_write(path, self.graph, self.matcher, self.acquire,
    {mark = mk, changed = changed})) then return end
  local f = assert(io.open(path))
  step.written = written("state", mk, f:read("a"), changed)
  f:close()
end

commands["save-jgf"] = function(self, step, args)
  local file, changed = file_and_option("save-jgf", args, "changed")
  local path = scratch(self, file)
  local mk = mark_of(self, path)
  local text = checked(step, self.graph:to_jgf{state = true, mark = mk, changed = changed})
  if text and checked(step, write_file(path, text)) then
    step.written = written("jgf", mk, text, changed)
  end
end

commands["save-child"] = function(self, step, args)
  local id, rest = args:match("^(%d+)%s+(.*)$")
  if not id then error("save-child: expected a job id and a file", 0) end
  local file, changed = file_and_option("save-child", rest, "changed")
  local path = scratch(self, file)
  local mk = mark_of(self, path)
  local text = checked(step, core.child_save(self.matcher, math.tointeger(id),
    {mark = mk, changed = changed}))
  if text and checked(step, write_file(path, text)) then
    step.written = written("R", mk, text, changed)
  end
end

function commands.load(self, step, args)
  if args == "" then error("load: expected a store file", 0) end
  local st, msg, code = core.store_open(scratch(self, args), {create = false})
  local l
  if st then
    l, msg, code = st:load()
    st:close()
  end
  if not checked(step, l, msg, code) then return end
  self.graph = l.graph
  self.matcher = l.matcher or core.matcher(l.graph)
  self.acquire = l.acquire or core.acquire(l.graph, self.matcher)
end

function commands.time(self, step, args)
  local t = math.tointeger(tonumber(args))
  if not t then error("time: expected an integer", 0) end
  self.graph:set_now(t)
  step.kind = "command"
end

function commands.policy(self, step, args)
  checked(step, self:set_policy(args))
end

function commands.graph(self, step, args)
  if self.responses > 0 or #self.matcher:jobs() > 0 then
    error("graph: only before the first response and job", 0)
  end
  local g = checked(step, core.jgf_load(resolve(self, args)))
  if not g then return end
  self.graph = g
  local pol = self.matcher:policy()
  self.matcher = core.matcher(g)
  self:set_policy(pol)
  self.acquire = core.acquire(g, self.matcher,
    {protocol = self.acquire:protocol(), group = self.acquire:group()})
end

-- ---- expectations -------------------------------------------------------------

local function norm_ids(s)
  if s == nil or s == "-" or s == "" then return "" end
  local ids = core.idset(s)
  return ids and tostring(ids) or s
end

local function ids_of_list(list, field)
  local ids = core.idset()
  for _, x in ipairs(list or {}) do
    if field == "targets" then
      ids:add(x.targets)
    else
      ids:set(x[field])
    end
  end
  return tostring(ids)
end

function Session:expect(step, what, value)
  local last = self.last
  local st = self:state()
  local got, want
  if what == "refused" then
    if not last or last.ok then return "the previous step was accepted" end
    if value ~= "" and last.code ~= value then
      return fmt("refused with %s, not %s (%s)", tostring(last.code), value, last.error)
    end
    return nil
  elseif what == "accepted" then
    if last and not last.ok then return "refused: " .. tostring(last.error) end
    return nil
  elseif st.targets[what] then
    got, want = st.targets[what], norm_ids(value)
  elseif what == "jobs" then
    local ids = core.idset()
    for _, j in ipairs(st.jobs) do ids:set(j.id) end
    got, want = tostring(ids), norm_ids(value)
  elseif what == "release" then
    got, want = ids_of_list(last and last.events and last.events.release, "targets"),
      norm_ids(value)
  elseif what == "removed" then
    got, want = norm_ids(last and last.events and last.events.removed), norm_ids(value)
  elseif what == "exceptions" or what == "reservations" or what == "affected" then
    got, want = ids_of_list(last and last.events and last.events[what], "id"), norm_ids(value)
  elseif what == "protocol" then
    got, want = st.protocol, value
  elseif what == "expiration" then
    got, want = tostring(st.expiration), tostring(tonumber(value) or value)
  elseif what == "failure" then
    got, want = st.failure or "-", value ~= "" and value or "-"
  else
    error(fmt("expect: unknown check '%s'", what), 0)
  end
  if got ~= want then
    return fmt("got %s", got == "" and "-" or got)
  end
  step.ok = true
  return nil
end

-- ---- steps ----------------------------------------------------------------------

-- Apply a response (JSON text or table) as the step.
local function respond(self, step, response)
  step.kind = "response"
  local ev, msg, code = self.acquire:apply(response)
  self.responses = self.responses + 1
  if checked(step, ev, msg, code) then step.events = ev end
end

-- Apply one item: a response (JSON text or table) or a command line.
-- Returns the step record.
function Session:step(item, line)
  local step = {line = line, ok = true}
  if type(item) == "table" then
    step.text = "(table)"
    respond(self, step, item)
  else
    local text = item:match("^%s*(.-)%s*$")
    step.text = text
    local c = text:sub(1, 1)
    if c == "{" then
      respond(self, step, text)
    else
      local cmd, args = text:match("^(%S+)%s*(.-)$")
      if cmd == "expect" then
        local what, value = args:match("^(%S+)%s*(.-)$")
        if not what then error("expect: what?", 0) end
        step.kind = "expect"
        local why = self:expect(step, what, value)
        if why then
          step.ok = false
          step.error = fmt("expect %s: %s", args, why)
          self.failures[#self.failures + 1] = fmt("%s:%s: %s", self.source or "replay",
            tostring(line or "?"), step.error)
        end
        self.steps[#self.steps + 1] = step
        return step
      end
      local f = commands[cmd]
      if not f then error(fmt("unknown command '%s'", tostring(cmd)), 0) end
      step.kind = "command"
      f(self, step, args)
    end
  end
  step.state = self:state()
  self.count = (self.count or 0) + 1
  step.n = self.count
  self.steps[#self.steps + 1] = step
  self.last = step
  return step
end

-- ---- output -------------------------------------------------------------------

local function short(s, n)
  s = s:gsub("%s+", " ")
  if #s > n then return s:sub(1, n - 3) .. "..." end
  return s
end

-- The text report of one step.
function M.format_step(step)
  if step.kind == "expect" then
    if step.ok then return nil end
    return fmt("FAILED line %s: %s\n", tostring(step.line), step.error)
  end
  local out = {fmt("-- %d (line %s): %s", step.n, tostring(step.line or "-"),
    short(step.text or "", 100))}
  if not step.ok then
    out[#out + 1] = fmt("refused: %s: %s", tostring(step.code), tostring(step.error))
  end
  if step.saved then
    out[#out + 1] = fmt("saved: generation=%d vertices=%d edges=%d jobs=%d deleted=%d",
      step.saved.generation, step.saved.vertices, step.saved.edges, step.saved.jobs,
      step.saved.deleted)
  end
  if step.written then
    local w = step.written
    out[#out + 1] = fmt("written: %s %s generation=%d nodes=%d edges=%d jobs=%d removed=%d",
      w.kind, w.changed and "changed" or "entire", w.generation, w.nodes, w.edges, w.jobs,
      w.removed)
  end
  if step.job then
    local j = step.job
    out[#out + 1] = fmt("job: %d %s ranks=%s start=%d%s", j.id, j.state, j.ranks, j.start,
      j["end"] and (" end=" .. j["end"]) or "")
  end
  local t = step.state.targets
  local parts = {}
  for _, s in ipairs(M.sets) do parts[#parts + 1] = s .. "=" .. t[s] end
  out[#out + 1] = "targets: " .. concat(parts, " ")
  local jobs = {}
  for _, j in ipairs(step.state.jobs) do
    jobs[#jobs + 1] = fmt("%d=%s[%s]", j.id, j.state, j.ranks)
  end
  out[#out + 1] = "jobs: " .. (#jobs > 0 and concat(jobs, " ") or "-")
  if step.state.expiration ~= 0 then
    out[#out + 1] = fmt("expiration: %.17g", step.state.expiration)
  end
  for _, l in ipairs(events_summary(step.events)) do out[#out + 1] = l end
  return concat(out, "\n") .. "\n"
end

-- ---- running a script -------------------------------------------------------------

-- Follow JSON text one character at a time: j.depth counts the brackets
-- and braces open outside strings, j.instr and j.esc say whether ch was
-- read inside a string and after a backslash there.
local function follow(j, ch)
  if j.instr then
    if j.esc then j.esc = false
    elseif ch == "\\" then j.esc = true
    elseif ch == '"' then j.instr = false end
  elseif ch == '"' then j.instr = true
  elseif ch == "{" or ch == "[" then j.depth = j.depth + 1
  elseif ch == "}" or ch == "]" then j.depth = j.depth - 1 end
end

-- Split a script into items: {line =, text =}.
local function items(text, source)
  local list = {}
  local buf, start, j
  local n = 0
  for raw in (text .. "\n"):gmatch("(.-)\r?\n") do
    n = n + 1
    if buf then
      buf[#buf + 1] = raw
    else
      local s = raw:match("^%s*(.-)%s*$")
      if s == "" or s:sub(1, 1) == "#" then
        goto continue
      end
      local c = s:sub(1, 1)
      if c ~= "{" and c ~= "[" then
        list[#list + 1] = {line = n, text = s}
        goto continue
      end
      buf, start, j = {raw}, n, {depth = 0, instr = false, esc = false}
    end
    -- count braces of the line just added, outside strings
    for ch in buf[#buf]:gmatch(".") do follow(j, ch) end
    if j.depth <= 0 then
      list[#list + 1] = {line = start, text = concat(buf, "\n")}
      buf = nil
    end
    ::continue::
  end
  if buf then
    error(fmt("%s:%d: unterminated JSON", source, start), 0)
  end
  return list
end

-- The texts of the elements of a top-level JSON array.
local function elements(text)
  local inner = text:match("^%s*%[(.*)%]%s*$")
  local elems, cur, j = {}, {}, {depth = 0, instr = false, esc = false}
  for ch in inner:gmatch(".") do
    if ch == "," and not j.instr and j.depth == 0 then
      elems[#elems + 1] = concat(cur)
      cur = {}
    else
      cur[#cur + 1] = ch
    end
    follow(j, ch)
  end
  if #concat(cur):gsub("%s", "") > 0 then elems[#elems + 1] = concat(cur) end
  return elems
end

-- Run a script's text; opts as for new, plus source (a name for messages)
-- and json (collect one JSON line per step in output instead of text).
-- Returns {steps =, failures =, output =, session =}.  Raises on a script
-- error with "source:line: reason".
function M.run(text, opts)
  opts = check.arg(opts or {}, "table", 2, "run")
  check.keys(opts, RUN_OPTIONS, 2, "run")
  local source = opts.source or "replay"
  local session = {}
  for k in pairs(NEW_OPTIONS) do session[k] = opts[k] end
  local s = M.new(session)
  s.source = source
  local out = {}
  for _, it in ipairs(items(text, source)) do
    local ok, err = pcall(function()
      local texts = it.text:sub(1, 1) == "[" and elements(it.text) or {it.text}
      for _, e in ipairs(texts) do
        local st = s:step(e, it.line)
        out[#out + 1] = opts.json and st or M.format_step(st)
      end
    end)
    if not ok then
      s:cleanup()
      error(fmt("%s:%d: %s", source, it.line, tostring(err)), 0)
    end
  end
  s:cleanup()
  local output
  if opts.json then
    local lines = {}
    for _, st in ipairs(out) do lines[#lines + 1] = M.json_line(st) end
    output = concat(lines, "\n") .. (#lines > 0 and "\n" or "")
  else
    local parts = {}
    for _, o in ipairs(out) do if o then parts[#parts + 1] = o end end
    output = concat(parts)
  end
  return {steps = s.steps, failures = s.failures, output = output, session = s}
end

-- Run the script in a file (relative paths in it are relative to its
-- directory); opts as for run.
function M.run_file(path, opts)
  opts = check.arg(opts or {}, "table", 2, "run_file")
  check.keys(opts, RUN_OPTIONS, 2, "run_file")
  local text, err, ecode = files.read(path)
  if not text then return nil, err, ecode end
  local o = {}
  for k, v in pairs(opts) do o[k] = v end
  o.source = o.source or path
  o.base = o.base or (path:match("^(.*)/[^/]*$") or ".")
  return M.run(text, o)
end

-- ---- JSON lines -------------------------------------------------------------------

local function jstr(s)
  return '"' .. tostring(s):gsub('[%c"\\]', function(c)
    local map = {['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\t"] = "\\t", ["\r"] = "\\r"}
    return map[c] or fmt("\\u%04x", c:byte())
  end) .. '"'
end

-- Keys whose values are lists even when empty.
local LISTS = {release = true, exceptions = true, reservations = true, affected = true,
  jobs = true}

local function jval(v, key)
  local t = type(v)
  if t == "table" then
    if #v > 0 or (next(v) == nil and LISTS[key]) then
      local p = {}
      for _, x in ipairs(v) do p[#p + 1] = jval(x) end
      return "[" .. concat(p, ",") .. "]"
    end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys)
    local p = {}
    for _, k in ipairs(keys) do p[#p + 1] = jstr(k) .. ":" .. jval(v[k], k) end
    return "{" .. concat(p, ",") .. "}"
  elseif t == "string" then
    return jstr(v)
  elseif math.type(v) == "float" then
    return fmt("%.17g", v)
  elseif t == "number" or t == "boolean" then
    return tostring(v)
  end
  return "null"
end

-- One step as a JSON object on one line (keys sorted).
function M.json_line(step)
  return jval{n = step.n, line = step.line, kind = step.kind, text = step.text, ok = step.ok,
    error = step.error, code = step.code, events = step.events, job = step.job,
    state = step.state}
end

-- ---- child instances ---------------------------------------------------------------

-- A child instance inside job id of the parent matcher: a new graph built
-- from the job's R (with its scheduling graph), a matcher with its own
-- policy (opts.policy) and an acquisition state that acquired the R.
-- Any other key of opts raises.  Returns {graph =, matcher =, acquire =,
-- R =} or nil, message, code.
local CHILD_OPTIONS = {policy = 1}

function M.child(parent, id, opts)
  check.keys(opts, CHILD_OPTIONS, 3, "child")
  opts = opts or {}
  local R, msg, code = core.child_resources(parent, id)
  if not R then return nil, msg, code end
  local first
  first, msg, code = core.acquire_first_response(R)
  if not first then return nil, msg, code end
  local g = core.graph()
  local m = core.matcher(g)
  if opts.policy then
    local ok
    ok, msg, code = m:set_policy(opts.policy)
    if not ok then return nil, msg, code end
  end
  local a = core.acquire(g, m, {protocol = "current"})
  local ev
  ev, msg, code = a:apply(first)
  if not ev then return nil, msg, code end
  return {graph = g, matcher = m, acquire = a, R = R}
end

return M
