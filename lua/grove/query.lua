-- grove.query: the resource-query command language.
--
-- A session holds a graph, a matcher with its policy and the jobs it has
-- placed, and reads commands one line at a time, so command files written
-- for resource-query run unchanged:
--
--   match MODE JOBSPEC        MODE: allocate, allocate_orelse_reserve,
--                             allocate_with_satisfiability, satisfiability,
--                             without_allocating, without_allocating_future
--   multi-match MODE JOBSPEC...   the same for each jobspec in turn
--   cancel JOBID [stats]      partial-cancel JOBID jgf|rv1exec FILE [stats]
--   find EXPR                 status=, sched-now=allocated|free,
--                             sched-future=reserved, property=KEY[=VALUE],
--                             names=A,B, jobid-alloc=, jobid-span=,
--                             jobid-tag=, agfilter=t (vertices with pruning
--                             filters; JGF output shows them), with and, or,
--                             parentheses (juxtaposition is and)
--   set-status PATH up|down   get-status PATH
--   set-property PATH K=V     get-property PATH
--   attach JGF                remove PATH true | remove IDSET false
--   info JOBID  list  stat  cat JOBSPEC  help  quit
--
-- Every allocate, allocate_orelse_reserve or allocate_with_satisfiability
-- of a jobspec that could be read takes the next job id (1, 2, ...),
-- whether it finds resources or not; satisfiability, without_allocating
-- and without_allocating_future take none.  The simulated clock starts at
-- 0 and never moves.
--
-- Streams: results (matches, find, get-status, get-property, cancel
-- statistics) go to `out` (the -t file or stdout), answers meant for a
-- person at the prompt (info, list, stat, cat, help) to `info` (stdout),
-- errors to `err` (stderr), one line each; a bad command never ends the
-- session.
--
--   local query = require "grove.query"
--   local g = assert(query.load_graph("tiny.graphml", {format = "grug"}))
--   local s = assert(query.new{graph = g, policy = "high"})
--   s:execute("match allocate job.yaml")    -- false after quit
--   s:run(io.stdin)
--
-- This file holds the session and its commands; what a job selected and
-- the printed blocks are in grove.query_select, the find expressions in
-- grove.query_find.
--
-- This module holds the session and its commands; it must not hold the find
-- language (grove.query_find), the selection blocks (grove.query_select),
-- the writers (grove.writers) or the command line (grove.cmd.query).
local check = require("grove.check")
local core = require("grove.core")
local policies = require("grove.policy")
local levels = require("grove.levels")
local writers = require("grove.writers")
local suggest = require("grove.suggest")
local selection = require("grove.query_select")
local find = require("grove.query_find")

local M = {}

M.modes = {allocate = true, allocate_orelse_reserve = true, allocate_with_satisfiability = true,
  satisfiability = true, without_allocating = true, without_allocating_future = true}

M.load_formats = {"grug", "jgf", "hwloc", "rv1exec"}

-- ---- graphs ---------------------------------------------------------------

local function split_list(s)
  local t = {}
  for x in s:gmatch("[^,%s]+") do t[#t + 1] = x end
  return t
end

-- The load format a file's name says: .json and .jgf JGF, .xml hwloc,
-- anything else (.graphml) GRUG.  R files (rv1exec) are JSON too: they need
-- the format given.
function M.format_of(path)
  local ext = tostring(path):lower():match("%.(%w+)$")
  if ext == "json" or ext == "jgf" then return "jgf" end
  if ext == "xml" then return "hwloc" end
  return "grug"
end

-- The graph in the file at path read as opts.format ("grug" default, "jgf",
-- "hwloc", "rv1exec"), keeping opts.types (a list or "a,b,c"; grug and
-- hwloc), or nil, message, code; any other key of opts raises.
local LOAD_OPTIONS = {format = 1, types = 1}

function M.load_graph(path, opts)
  check.keys(opts, LOAD_OPTIONS, 2, "load_graph")
  opts = opts or {}
  local fmt = opts.format or M.format_of(path)
  local types = opts.types
  if type(types) == "string" then types = split_list(types) end
  if fmt == "grug" then
    local g, msg, code = core.grug_load(path, {types = types})
    if not g then return nil, msg, code end
    return g
  elseif fmt == "jgf" then
    return core.jgf_load(path)
  elseif fmt == "rv1exec" then
    return core.rv1_graph_load(path)
  elseif fmt == "hwloc" then
    return core.hwloc_load{xml = path, types = types}
  end
  return nil, ("unknown graph format '%s' (grug, jgf, hwloc, rv1exec)"):format(tostring(fmt)),
    "EINVAL"
end

-- ---- the session --------------------------------------------------------------

-- The subsystems a -S set names: C containment, P power, IB ibnet, IBB
-- ibnetbw, PFS1B pfs1bw, V virtual1; each letter group may end in A (all
-- relationships), and "+" joins several, the first being the one a match
-- walks.
local subsystem_codes = {C = "containment", P = "power", IB = "ibnet", IBB = "ibnetbw",
  PFS1B = "pfs1bw", V = "virtual1"}

-- The subsystem a match walks for the -S set s, or nil, message.
function M.dominant_of(s)
  local first = s:match("^([^+]*)")
  local name = subsystem_codes[first] or subsystem_codes[first:gsub("A$", "")]
  if not name then
    return nil, ("unknown subsystem set '%s' (C, P, IB, IBB, PFS1B, V, each with an A " ..
      "and joined by +)"):format(s)
  end
  return name
end

local S = {}
S.__index = S

-- A new session.  opts: graph (required), policy (a built-in name or a
-- path to a policy file; default "first"), format ("simple"), out, info,
-- err (file handles; default stdout, stdout, stderr), elapsed (print
-- the wall time of each match command, end to end), aggregates
-- ("HL:LL,..." pruning aggregates), subsystems (the -S set: the first
-- one listed is the subsystem matches walk and the printer draws),
-- or_slots (sibling slots are alternatives: the -T flexible traverser);
-- any other key raises.  Returns the session, or nil, message, code.
local NEW_OPTIONS = {graph = 1, policy = 1, format = 1, out = 1, info = 1, err = 1, elapsed = 1,
  aggregates = 1, subsystems = 1, or_slots = 1}

function M.new(opts)
  if type(opts) ~= "table" or opts.graph == nil then
    error("bad argument #1 to 'new' (table with a graph expected)", 2)
  end
  check.keys(opts, NEW_OPTIONS, 1, "new")
  local self = setmetatable({}, S)
  self.graph = opts.graph
  self.format = opts.format or "simple"
  if not writers.known(self.format) then
    return nil, ("unknown output format '%s'%s; the formats are %s"):format(self.format,
      suggest.hint(tostring(self.format), writers.formats), table.concat(writers.formats, ", ")),
      "EINVAL"
  end
  self.out = opts.out or io.stdout
  self.info = opts.info or io.stdout
  self.err = opts.err or io.stderr
  self.elapsed = opts.elapsed
  self.subsystems = opts.subsystems or "CA"
  local dominant, why = M.dominant_of(self.subsystems)
  if not dominant then return nil, why, "EINVAL" end
  self.aggregates = opts.aggregates
  if self.aggregates then
    local ok, msg, code = self.graph:set_aggregates(self.aggregates)
    if not ok then return nil, "pruning filters: " .. msg, code end
  end
  self.matcher = core.matcher(self.graph, {or_slots = opts.or_slots == true})
  if dominant ~= "containment" then
    self.dominant = dominant
    assert(self.matcher:set_dominant(dominant))
  end
  local ok, msg, code = self:set_policy(opts.policy or "first")
  if not ok then return nil, msg, code end
  -- what the first match would build (pruning aggregates, the writer's
  -- scratch) is built now, with the graph
  ok, msg, code = self.matcher:prepare()
  if not ok then return nil, msg, code end
  self.writer, msg, code = core.writer(self.graph)
  if not self.writer then return nil, msg, code end
  if self.dominant then
    ok, msg, code = self.writer:set_subsystem(self.dominant)
    if not ok then return nil, msg, code end
  end
  self.clock = core.wall_clock
  -- The matcher holds the jobs and their requests: the session keeps
  -- nothing per job (a held job costs it no memory); the shape a job's
  -- selection is printed by is made again from its kept request when a
  -- command asks for its entries.  Jobs whose requests print alike share
  -- a shape.
  self.shapes = {}    -- shape key -> shape
  self.request_shape = nil -- {text =, shape =}: the request last shaped
  self.next_id = 1
  self.trimmed_id = 1 -- next_id when memory was last given back (see released)
  self.types = nil    -- resource types of the graph (cached)
  -- self.jobspec_cache: the jobspecs core.query_run keeps parsed (its own)
  return self
end

-- A session over a matcher another program holds (a scheduler's), for
-- the commands that only read it (find, through grove.query_find.select):
-- no matcher of its own, nothing of the matcher's changed.  A session or
-- nil, message, code.
function M.over(matcher)
  local self = setmetatable({}, S)
  self.graph = matcher:graph()
  self.matcher = matcher
  self.format = "simple"
  local msg, code
  self.writer, msg, code = core.writer(self.graph)
  if not self.writer then return nil, msg, code end
  self.shapes = {}
  return self
end

-- Use a built-in policy, or a policy file by path or name (found in the
-- policy directories by grove.policy).  true, or nil, message, code.  A
-- Lua policy's hook types are checked against each request matched
-- (grove.levels: a level a request does not reach is warned of once).
function S:set_policy(name)
  local p = name
  for _, b in ipairs(policies.builtins) do
    if b == name then p = nil end
  end
  local msg, code
  if p then
    p, msg, code = policies.load(name)
    if not p then return nil, msg, code end
  end
  local ok, msg2, code2 = self.matcher:set_policy(p or name)
  if not ok then return nil, msg2, code2 end
  self.policy = name
  self.levels = p and levels.new(p, self.graph)
  self.levels_seen = setmetatable({}, {__mode = "k"})
  return true
end

-- Warn of the levels the policy's hooks name that the request js (from
-- the file at path) does not reach, once a jobspec and a level.
function S:check_levels(js, path)
  if not self.levels or self.levels_seen[js] then return end
  self.levels_seen[js] = true
  local what = "the request of " .. path .. " does not reach"
  for _, w in ipairs(self.levels:warnings(levels.request_types(js), what)) do
    self:error("grove query: warning: %s", w)
  end
end

function S:puts(s)
  self.out:write(s)
end

function S:error(fmt, ...)
  self.err:write(fmt:format(...), "\n")
end

-- A command line that does not have the shape its command takes: the
-- reference engine's text "ERROR: malformed command", then the line of the
-- session's input and the reason (what is wrong and the command's usage).
function S:malformed(name, reason)
  local usage = M.usage[name]
  self:error("ERROR: malformed command: line %d: %s: %s%s", self.lineno or 0, name, reason,
    usage and (" (usage: %s)"):format(usage) or "")
end

-- "N arguments expected, got K" for malformed().
local function nargs(want, got)
  return ("%s expected, got %d"):format(want, got)
end

-- Why args (JOBID first, then words[i] where one is given) do not fit a
-- command taking min to max arguments, for malformed().
local function bad_args(args, min, max, words)
  if #args < min or #args > max then
    local want = min == max and ("%d argument%s"):format(min, min == 1 and "" or "s")
      or ("%d to %d arguments"):format(min, max)
    return nargs(want, #args)
  end
  if not selection.jobid(args[1]) then
    return ("JOBID must be a positive integer, got '%s'"):format(args[1])
  end
  for i, w in pairs(words) do
    if args[i] and args[i] ~= w then return ("'%s' expected, got '%s'"):format(w, args[i]) end
  end
  return "bad arguments"
end

-- The resource types a jobspec may name (the graph's and the standard
-- ones: a request for a gpu on a machine without one finds nothing, an
-- xor_slot alternative skipped, rather than being a jobspec error), as a
-- list for the jobspec reader's known-types check.
function S:known_types()
  if not self.types then self.types = self.matcher:known_types() end
  return self.types
end

-- ---- commands ------------------------------------------------------------------

local commands = {}
local usage = {}
M.usage = usage

-- The text of a file, read in blocks under the input limit (GROVE_MAX_INPUT)
-- and refused at its first NUL byte, so that /dev/zero costs nothing.
local function read_file(path)
  local f, msg = io.open(path, "rb")
  if not f then return nil, msg end
  local limit, parts, n = core.limits().input, {}, 0
  while true do
    -- f:read, not f:lines: a read error (a directory) is returned, not raised
    local block, rerr = f:read(65536)
    if not block then
      f:close()
      if rerr then return nil, ("%s: %s"):format(path, rerr) end
      break
    end
    local nul = block:find("\0", 1, true)
    if nul then
      f:close()
      return nil, ("%s: byte %d is NUL: not a text file"):format(path, n + nul - 1)
    end
    n = n + #block
    if n > limit then
      f:close()
      return nil, ("%s: larger than the input limit of %d bytes (GROVE_MAX_INPUT)"):format(path,
        limit)
    end
    parts[#parts + 1] = block
  end
  return table.concat(parts)
end

-- Would js fit now if no job held anything?  The matcher's satisfiability
-- ignores vertex status; the command language calls a request
-- unsatisfiable when it cannot fit the resources that are up, so the
-- satisfiability modes ask the matcher for that (one match that ignores
-- the records; under a policy file the built-in "first" decides).
function S:fits_when_idle(js)
  return self.matcher:fits_idle(js) == true
end

-- The jobspec in the file at path.  A stream that names the same file
-- again and again parses it once: while the file's text and the graph's
-- types stay the same the parsed jobspec is reused (the matcher only reads
-- it), so a match costs a read of the file rather than a parse, and the
-- heap is not churned by thousands of short-lived documents.  nil, message
-- as core.jobspec_load on failure.
function S:load_jobspec(path)
  local types = self:known_types()
  local text = read_file(path)
  local c = self.js_cache
  if text and c and c.path == path and c.types == types and c.text == text then
    return c.js
  end
  local js, msg
  if text then
    js, msg = self:parse_jobspec(path, text)
  else
    js, msg = core.jobspec_load(path, {types = types})
  end
  if js and text then self.js_cache = {path = path, types = types, text = text, js = js} end
  return js, msg
end

-- The jobspec of text, read from the file at path, or nil, message.
function S:parse_jobspec(path, text)
  return core.jobspec_parse(text, {types = self:known_types(), source = path})
end

-- The shape of a request's resources (shared with earlier jobs of the
-- same shape).
function S:shape_of_resources(resources)
  local shape = selection.request(resources)
  local key = selection.shape_key(shape)
  local known = self.shapes[key]
  if known then return known end
  self.shapes[key] = shape
  return shape
end

-- The nodes a request asks for at least: the least count of every level,
-- multiplied down to the nodes.
local function nodes_requested(resources, mult)
  local n = 0
  for _, r in ipairs(resources or {}) do
    local c = r.count
    if type(c) == "table" then c = c.min end
    c = mult * (c or 1)
    if r.type == "node" then
      n = n + c
    else
      n = n + nodes_requested(r.with, c)
    end
  end
  return n
end

-- How many nodes are up.
function S:nodes_up()
  local n = 0
  for v in self.graph:vertices{type = "node"} do
    if v:status() == "up" then n = n + 1 end
  end
  return n
end

-- The modes that give a job id to every request that was read (matched
-- or not); satisfiability and the without_allocating modes take none.
local TAKES_ID = {allocate = true, allocate_orelse_reserve = true,
  allocate_with_satisfiability = true}

-- One match of the jobspec file at path in mode; prints the result.
-- Returns true when resources were found (or the request is satisfiable).
-- A file that cannot be opened is an error line and nothing more; a
-- jobspec that cannot be read is an error line and a failed match under
-- the id it would have had, which the next request gets again.
function S:match_one(mode, path)
  local t0 = self.elapsed and self.clock() or nil
  local sat_only = mode == "satisfiability"
  local id = self.next_id
  local f = io.open(path, "r")
  if not f then
    self:error("ERROR: can't open %s", path)
    return false
  end
  f:close()
  local js, msg = self:load_jobspec(path)
  if not js then
    self:error("match_allocate: ERROR: Jobspec error for %d: %s", id, msg)
    if sat_only then
      selection.banner(self, {"INFO: Satisfiable request"})
    else
      selection.print_nomatch(self, id, false)
    end
    return false
  end
  if TAKES_ID[mode] then self.next_id = id + 1 end
  self:check_levels(js, path)
  local job, err, code = self.matcher:match(js, mode, sat_only and nil or id, { picks = false })
  return self:match_outcome(mode, id, js, job, err, code, t0)
end

-- What match_one prints once the matcher answered (job, or nil, err,
-- code) the request js under id in mode; t0 as in match_one.  Returns
-- true when resources were found (or the request is satisfiable).
function S:match_outcome(mode, id, js, job, err, code, t0)
  local sat_only = mode == "satisfiability"
  local sat_mode = sat_only or mode == "allocate_with_satisfiability"
  -- a refusal by the resource set's expiration says why; for a request the
  -- graph can never hold the reference engine prints its verdict alone,
  -- and so does this output (the matcher's level, "no node with 40
  -- cores: largest has 36", is for the other interfaces)
  local reason = code == "ENODEV" and err:find("the resource set's expiration", 1, true)
    and err or nil
  if sat_only then
    local yes = (job ~= nil or code == "EBUSY") and self:fits_when_idle(js)
    if not job and code ~= "EBUSY" and code ~= "ENODEV" then
      self:error("match_allocate: ERROR: %s", err)
      return false
    end
    local lines = {("INFO: %s request"):format(yes and "Satisfiable" or "Unsatisfiable")}
    if reason then lines[2] = "INFO: " .. reason end
    selection.banner(self, lines)
    return yes
  end
  if not job then
    if code == "EBUSY" or code == "ENODEV" then
      local unsat = false
      if sat_mode then
        unsat = code == "ENODEV" or not self:fits_when_idle(js)
      elseif mode == "allocate_orelse_reserve" or mode == "without_allocating_future" then
        -- No later time fits either: unsatisfiable when even the idle
        -- graph cannot hold it, unless it asks for more nodes than are
        -- up (they may come up: busy).  Nodes are counted (a walk of
        -- them) only when the idle graph says no.
        unsat = (code == "ENODEV" or not self:fits_when_idle(js))
          and nodes_requested(js:resources(), 1) <= self:nodes_up()
      end
      selection.print_nomatch(self, id, unsat, t0, reason)
    elseif code == "EINVAL" then
      self:error("match_allocate: ERROR: Jobspec error for %d: %s", id, err)
    else
      self:error("match_allocate: ERROR: match %d failed: %s", id, err)
    end
    return false
  end
  local shape = self:shape_of_resources(js:resources())
  local kept = job.state ~= "matched"
  selection.print_match(self, job, kept, shape, t0)
  return true
end

-- Whether job id is held.
function S:held(id)
  return self.matcher:job(id, false) ~= nil
end

-- The shape of held job id's request, from the request the matcher kept
-- (JSON text: a list of jobspecs; their resources together), or nil when
-- none was kept.  The last one made is kept: commands about one job ask
-- again at once.
function S:shape(id)
  local text = self.matcher:request(id)
  if not text then return nil end
  local last = self.request_shape
  if last and last.text == text then return last.shape end
  local resources = {}
  for _, js in ipairs(assert(core.json_decode(text))) do
    for _, r in ipairs(js.resources or {}) do resources[#resources + 1] = r end
  end
  local shape = self:shape_of_resources(resources)
  self.request_shape = {text = text, shape = shape}
  return shape
end

-- The entries of held job id's selection (see grove.query_select).
function S:entries(id)
  return assert(self.writer:entries(self.matcher, id, self:shape(id)))
end

-- The state, start and end of held job id (a table), or nil.
function S:job_head(id)
  return self.matcher:job(id, false)
end

usage.match = "match MODE JOBSPEC"
function commands.match(self, args)
  if #args ~= 2 then return self:malformed("match", nargs("2 arguments", #args)) end
  if not M.modes[args[1]] then
    return self:error("ERROR: line %d: invalid match mode '%s'", self.lineno or 0, args[1])
  end
  self:match_one(args[1], args[2])
end

usage["multi-match"] = "multi-match MODE JOBSPEC..."
commands["multi-match"] = function(self, args)
  if #args < 2 then
    return self:malformed("multi-match", nargs("at least 2 arguments", #args))
  end
  if not M.modes[args[1]] then
    return self:error("ERROR: line %d: invalid match mode '%s'", self.lineno or 0, args[1])
  end
  -- stops at the first jobspec that finds nothing
  for i = 2, #args do
    if not self:match_one(args[1], args[i]) then break end
  end
end

usage.cancel = "cancel JOBID [stats]"
function commands.cancel(self, args)
  local id = selection.jobid(args[1])
  if not id or #args > 2 or (args[2] and args[2] ~= "stats") then
    return self:malformed("cancel", bad_args(args, 1, 2, {[2] = "stats"}))
  end
  if not self:held(id) then return self:error("cancel: ERROR: nonexistent job %d", id) end
  local entries = args[2] and self:entries(id)
  if not self.matcher:cancel(id) then
    return self:error("cancel: ERROR: nonexistent job %d", id)
  end
  if entries then selection.print_stats(self, "CANCEL ", selection.counts(entries)) end
  self:released()
end

-- Jobs given ids since memory was last given back, from which a session
-- that holds no job any more gives it back.
local TRIM_JOBS = 1000

-- After a job went: when none is held any more and many were matched
-- since the last time, a quiet point to give memory back.  The session's
-- garbage (its command lines and output, interleaved on the allocator's
-- pages with the records of the jobs) is collected first, then the
-- allocator's free pages go back to the system.  Not after every last
-- job: a stream of one job at a time would pay a walk of the heap at
-- each cancel.
function S:released()
  if self.next_id - self.trimmed_id < TRIM_JOBS or self.matcher:stats().held > 0 then return end
  self.trimmed_id = self.next_id
  collectgarbage()
  core.trim_memory()
end

-- The ranks named by a partial-cancel file, as an idset string, or nil,
-- message: the ranks of an R, or of the vertices of a JGF shard.  A shard
-- must describe vertices of the graph as they are (at a path of the graph,
-- with the same type and rank).
function S:shard_ranks(reader, path)
  if reader == "rv1exec" then
    local R, msg = core.rv1_load(path)
    if not R then return nil, msg end
    return tostring(R:ranks())
  end
  local g, msg = core.jgf_load(path)
  if not g then return nil, msg end
  local ranks = core.idset()
  for v in g:vertices() do
    -- The shard's paths start at its own roots: find the vertex of the
    -- graph whose path ends with the same components.
    local p = v:path()
    local mine
    for w in self.graph:vertices{name = v:name()} do
      local wp = w:path()
      if p and wp:sub(-#p) == p then
        mine = w
        break
      end
    end
    if not mine or mine:type() ~= v:type() or mine:rank() ~= v:rank() then
      g:close()
      return nil, ("%s: %s does not match the graph"):format(path, tostring(p))
    end
    local r = v:rank()
    if r and r >= 0 then ranks:set(r) end
  end
  g:close()
  if ranks:count() == 0 then return nil, path .. ": no ranks" end
  return tostring(ranks)
end

usage["partial-cancel"] = "partial-cancel JOBID jgf|rv1exec FILE [stats]"
commands["partial-cancel"] = function(self, args)
  local id = selection.jobid(args[1])
  if not id or #args < 3 or #args > 4 or (args[4] and args[4] ~= "stats") then
    return self:malformed("partial-cancel", bad_args(args, 3, 4, {[4] = "stats"}))
  end
  local reader = args[2]
  if reader ~= "jgf" and reader ~= "rv1exec" then
    return self:error("ERROR: unsupported reader %s", reader)
  end
  if not self:held(id) then
    return self:error("partial-cancel: ERROR: nonexistent job %d", id)
  end
  if self:job_head(id).state == "reserved" then
    return self:error("ERROR: reservations not currently supported by partial cancel")
  end
  local ranks = self:shard_ranks(reader, args[3])
  local before = #self:entries(id)
  local n, removed
  if ranks then n, removed = self.matcher:release_ranks(id, ranks) end
  if not ranks or not n then
    return self:error("ERROR: error encountered while removing job %d", id)
  end
  if args[4] then
    local after = removed and 0 or #self:entries(id)
    selection.print_stats(self, "PARTIAL CANCEL ", before - after, n)
  end
  if removed then self:released() end
end

usage.info = "info JOBID"
function commands.info(self, args)
  local id = selection.jobid(args[1])
  if not id or #args ~= 1 then return self:malformed("info", bad_args(args, 1, 1, {})) end
  if not self:held(id) then
    self.info:write(("INFO: nonexistent job %d\n"):format(id))
    return
  end
  local job = self:job_head(id)
  local counts = {}
  for _, e in ipairs(self:entries(id)) do
    if e.alloc then counts[e.type] = (counts[e.type] or 0) + e.amount end
  end
  local keys = {}
  for t in pairs(counts) do keys[#keys + 1] = t end
  table.sort(keys)
  for i, t in ipairs(keys) do keys[i] = t .. "=" .. counts[t] end
  self.info:write(("INFO: JOBID=%d STATE=%s SCHEDULED AT=%s END=%s RESOURCES=%s\n"):format(
    id, selection.state_names[job.state], job.start == self.graph:now() and "Now" or job.start,
    job["end"] or "never", table.concat(keys, ",")))
end

usage.list = "list"
function commands.list(self)
  -- the matcher lists its jobs by id
  for _, j in ipairs(self.matcher:jobs(false)) do commands.info(self, {tostring(j.id)}) end
end

usage.stat = "stat"
function commands.stat(self)
  local st = self.matcher:stats()
  local g = self.graph
  local njobs = st.held
  local w = self.info
  w:write(("INFO: Num. of Vertices: %d\n"):format(g:count()))
  w:write(("INFO: Num. of Edges: %d\n"):format(g:edge_count()))
  w:write(("INFO: Policy: %s\n"):format(self.policy))
  w:write(("INFO: Num. of Jobs Matched: %d\n"):format(st.succeeded))
  w:write(("INFO: Num. of Match Attempts: %d\n"):format(st.matches))
  w:write(("INFO: Num. of Jobs Held: %d\n"):format(njobs))
  w:write(("INFO: Min. Match Time: %.6f\n"):format(st.min))
  w:write(("INFO: Max. Match Time: %.6f\n"):format(st.max))
  w:write(("INFO: Avg. Match Time: %.6f\n"):format(st.mean))
end

usage.cat = "cat JOBSPEC"
function commands.cat(self, args)
  if #args ~= 1 then return self:malformed("cat", nargs("1 argument", #args)) end
  local text, msg = read_file(args[1])
  if not text then return self:error("ERROR: %s", msg) end
  self.info:write(text)
  if text:sub(-1) ~= "\n" then self.info:write("\n") end
end

-- ---- status and properties ------------------------------------------------------

function S:vertex_at(path)
  local v = path and path:sub(1, 1) == "/" and self.graph:vertex(path)
  return v or nil
end

-- What the status and property commands print for a path not in the graph
-- (resource-query words it two ways).
local NO_PATH = "Could not find path %s in resource graph.\n"
local NO_PATH_PROP = "Couldn't find path %s in resource graph.\n"
local SET_PROPERTY_FORMAT = "Incorrect input format. \nPlease use `set-property <resource> " ..
  "PROPERTY=VALUE`.\n"

-- The vertex at path, or nil after printing no_path.
function S:vertex_or_say(path, no_path)
  local v = self:vertex_at(path)
  if not v then self:puts(no_path:format(path)) end
  return v
end

usage["set-status"] = "set-status PATH up|down"
commands["set-status"] = function(self, args)
  if #args ~= 2 then return self:malformed("set-status", nargs("2 arguments", #args)) end
  local v = self:vertex_or_say(args[1], NO_PATH)
  if v and not pcall(v.set_status, v, args[2]) then
    return self:error("ERROR: unrecognized status")
  end
end

usage["get-status"] = "get-status PATH"
commands["get-status"] = function(self, args)
  if #args ~= 1 then return self:malformed("get-status", nargs("1 argument", #args)) end
  local v = self:vertex_or_say(args[1], NO_PATH)
  if v then self:puts(("%s is %s\n"):format(args[1], v:status())) end
end

usage["set-property"] = "set-property PATH PROPERTY=VALUE"
commands["set-property"] = function(self, args)
  if #args ~= 2 then return self:puts(SET_PROPERTY_FORMAT) end
  local v = self:vertex_or_say(args[1], NO_PATH_PROP)
  if not v then return end
  -- a NUL would end the key or value early in the graph: malformed too
  local k, val = args[2]:match("^([^=\0]+)=([^\0]+)$")
  if not k then return self:puts(SET_PROPERTY_FORMAT) end
  v:set_property(k, val)
end

usage["get-property"] = "get-property PATH"
commands["get-property"] = function(self, args)
  if #args ~= 1 then return self:malformed("get-property", nargs("1 argument", #args)) end
  local v = self:vertex_or_say(args[1], NO_PATH_PROP)
  if not v then return end
  local props = v:properties()
  local keys = {}
  for k in pairs(props) do keys[#keys + 1] = k end
  if #keys == 0 then
    return self:puts(("No properties were found for %s.\n"):format(args[1]))
  end
  table.sort(keys)
  for _, k in ipairs(keys) do self:puts(("%s=%s\n"):format(k, props[k])) end
end

usage.find = "find EXPRESSION"
function commands.find(self, _, line)
  return find.run(self, line)
end

-- ---- growing and shrinking -------------------------------------------------------

function S:structure_changed()
  self.types = nil
  if self.aggregates then self.graph:set_aggregates(self.aggregates) end
end

usage.attach = "attach JGF"
function commands.attach(self, args)
  if #args ~= 1 then return self:malformed("attach", nargs("1 argument", #args)) end
  local sub, msg = core.jgf_load(args[1])
  if not sub then return self:error("ERROR: can't attach JGF subgraph: %s", msg) end
  local n, msg2 = self.graph:merge(sub)
  sub:close()
  if not n then return self:error("ERROR: can't attach JGF subgraph: %s", msg2) end
  self:structure_changed()
end

-- Vertex ids of the containment subtree of v.
local function subtree_ids(v, set)
  set[v:vid()] = true
  for c in v:children() do subtree_ids(c, set) end
  return set
end

-- Remove the subtrees rooted at the listed vertices; the jobs' parts there
-- are released first.
function S:remove_vertices(roots)
  local gone = {}
  for _, v in ipairs(roots) do subtree_ids(v, gone) end
  for _, j in ipairs(self.matcher:jobs()) do
    local vs = {}
    for _, p in ipairs(j.picks) do
      if gone[p.vertex:vid()] then vs[#vs + 1] = p.vertex end
    end
    if #vs > 0 then self.matcher:release_vertices(j.id, vs) end
  end
  for _, v in ipairs(roots) do
    if self.graph:vertex(v:vid()) then self.graph:unlink(v, true) end
  end
  self:structure_changed()
end

usage.remove = "remove PATH true | remove RANKS false"
function commands.remove(self, args)
  if #args ~= 2 then return self:malformed("remove", nargs("2 arguments", #args)) end
  if args[2] ~= "true" and args[2] ~= "false" then
    return self:malformed("remove", ("'true' or 'false' expected, got '%s'"):format(args[2]))
  end
  local roots = {}
  if args[2] == "true" then
    local v = self:vertex_at(args[1])
    if not v then
      return self:error("ERROR: could not find path %s in resource graph", args[1])
    end
    roots[1] = v
  else
    local ids = core.idset(args[1])
    if not ids then return self:error("ERROR: invalid rank set '%s'", args[1]) end
    for r in ids:ids() do
      for v in self.graph:vertices{rank = r} do
        local p = v:parent()
        if not p or p:rank() ~= r then roots[#roots + 1] = v end
      end
    end
    if #roots == 0 then return self:error("ERROR: no vertices on ranks %s", args[1]) end
  end
  self:remove_vertices(roots)
end

-- ---- help and quit ------------------------------------------------------------------

usage.help = "help"
function commands.help(self)
  local names = {}
  for name in pairs(usage) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do self.info:write("  ", usage[name], "\n") end
  self.info:write("  quit\n")
end

function commands.quit()
  return "quit"
end

-- Short names.
local aliases = {m = "match", M = "multi-match", c = "cancel", pc = "partial-cancel",
  f = "find", i = "info", l = "list", s = "stat", h = "help", q = "quit"}

M.commands = {}
for name in pairs(commands) do M.commands[#M.commands + 1] = name end
table.sort(M.commands)

-- Run one command line.  Returns false after quit, true otherwise.
function S:execute(line)
  self.lineno = (self.lineno or 0) + 1
  local stripped = line:match("^%s*(.-)%s*$")
  if stripped == "" or stripped:sub(1, 1) == "#" then return true end
  local args = {}
  for w in stripped:gmatch("%S+") do args[#args + 1] = w end
  local name = table.remove(args, 1)
  name = aliases[name] or name
  local fn = commands[name]
  if not fn then
    self:error("ERROR: line %d: unknown command '%s' (help lists the commands)", self.lineno, name)
    return true
  end
  self.used_cache = nil
  local ok, r = pcall(fn, self, args, stripped)
  if not ok then self:error("ERROR: %s: %s", name, tostring(r)) end
  self.out:flush()
  self.info:flush()
  return r ~= "quit"
end

-- Run every line of file handle fh (prompt: a string to print before each
-- line, or nil).  Returns when the input ends or after quit.
-- Without a prompt, into files, the loop runs in C (core.query_run): the
-- matches it can do alone cost no Lua, and every other line comes back to
-- execute.
function S:run(fh, prompt)
  if not prompt and io.type(fh) == "file" and io.type(self.out) == "file"
      and io.type(self.info) == "file" and io.type(self.err) == "file" then
    return core.query_run(self, fh)
  end
  while true do
    if prompt then
      io.stdout:write(prompt)
      io.stdout:flush()
    end
    local line = fh:read("l")
    if not line then break end
    if not self:execute(line) then break end
  end
end

-- Cancel every job and close the matcher (the graph stays).  With
-- with_graph (the end of a command), close the graph too: its jobs'
-- records go with it rather than one cancel at a time, which cost a
-- stream of one-core jobs a fifth of its time.
function S:close(with_graph)
  if self.matcher then
    if not with_graph then
      for _, j in ipairs(self.matcher:jobs(false)) do self.matcher:cancel(j.id) end
    end
    self.matcher:close()
    self.matcher = nil
  end
  if with_graph then self.graph:close() end
end

return M
