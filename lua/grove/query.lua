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
-- Every match or multi-match entry takes the next job id (1, 2, ...),
-- whether it succeeds or not; `match satisfiability` takes none.  The
-- simulated clock starts at 0 and never moves.
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
local core = require "grove.core"
local policies = require "grove.policy"
local writers = require "grove.writers"

local M = {}

local SEP = "INFO: ============================="

M.modes = {allocate = true, allocate_orelse_reserve = true, allocate_with_satisfiability = true,
  satisfiability = true, without_allocating = true, without_allocating_future = true}

M.load_formats = {"grug", "jgf", "hwloc", "rv1exec"}

-- ---- graphs ---------------------------------------------------------------

local function split_list(s)
  local t = {}
  for x in s:gmatch("[^,%s]+") do t[#t + 1] = x end
  return t
end

-- The graph in the file at path read as opts.format ("grug" default, "jgf",
-- "hwloc", "rv1exec"), keeping opts.types (a list or "a,b,c"; grug and
-- hwloc), or nil, message, code.
function M.load_graph(path, opts)
  opts = opts or {}
  local fmt = opts.format or "grug"
  local types = opts.types
  if type(types) == "string" then types = split_list(types) end
  if fmt == "grug" then
    local g, msg, code = core.grug_load(path, {types = types})
    if not g then return nil, msg, code end
    return g
  elseif fmt == "jgf" then
    return core.jgf_load(path)
  elseif fmt == "rv1exec" then
    local R, msg, code = core.rv1_load(path)
    if not R then return nil, msg, code end
    return R:to_graph()
  elseif fmt == "hwloc" then
    return core.hwloc_load{xml = path, types = types}
  end
  return nil, ("unknown graph format '%s' (grug, jgf, hwloc, rv1exec)"):format(tostring(fmt)),
    "EINVAL"
end

-- ---- the session --------------------------------------------------------------

local S = {}
S.__index = S

-- A new session.  opts: graph (required), policy (a built-in name or a
-- path to a policy file; default "first"), format ("simple"), out, info,
-- err (file handles; default stdout, stdout, stderr), elapsed (print match
-- times), aggregates ("HL:LL,..." pruning aggregates), subsystems (the -S
-- set, recorded).  Returns the session, or nil, message, code.
function M.new(opts)
  if type(opts) ~= "table" or opts.graph == nil then
    error("bad argument #1 to 'new' (table with a graph expected)", 2)
  end
  local self = setmetatable({}, S)
  self.graph = opts.graph
  self.format = opts.format or "simple"
  local known = false
  for _, f in ipairs(writers.formats) do known = known or f == self.format end
  if not known then
    return nil, ("unknown output format '%s' (%s)"):format(self.format,
      table.concat(writers.formats, ", ")), "EINVAL"
  end
  self.out = opts.out or io.stdout
  self.info = opts.info or io.stdout
  self.err = opts.err or io.stderr
  self.elapsed = opts.elapsed
  self.subsystems = opts.subsystems or "CA"
  self.aggregates = opts.aggregates
  if self.aggregates then
    local ok, msg, code = self.graph:set_aggregates(self.aggregates)
    if not ok then return nil, "pruning filters: " .. msg, code end
  end
  self.matcher = core.matcher(self.graph)
  local ok, msg, code = self:set_policy(opts.policy or "first")
  if not ok then return nil, msg, code end
  self.jobs = {}      -- id -> {id, state, start, ["end"], expand, sel}
  self.next_id = 1
  self.types = nil    -- resource types of the graph (cached)
  return self
end

-- Use a built-in policy or a policy file.  true, or nil, message, code.
function S:set_policy(name)
  local m = self.matcher
  for _, b in ipairs(policies.builtins) do
    if b == name then
      local ok, msg, code = m:set_policy(name)
      if not ok then return nil, msg, code end
      self.policy = name
      return true
    end
  end
  local p, msg, code = policies.load(name)
  if not p then return nil, msg, code end
  local ok, msg2, code2 = m:set_policy(p)
  if not ok then return nil, msg2, code2 end
  self.policy = name
  return true
end

function S:puts(s)
  self.out:write(s)
end

function S:error(fmt, ...)
  self.err:write(fmt:format(...), "\n")
end

-- The resource types of the graph, plus "slot", as a list (for the
-- jobspec reader's known-types check).
function S:known_types()
  if not self.types then
    local seen, list = {slot = true}, {"slot"}
    for v in self.graph:vertices() do
      local t = v:type()
      if not seen[t] then
        seen[t] = true
        list[#list + 1] = t
      end
    end
    self.types = list
  end
  return self.types
end

-- ---- selections of a job ------------------------------------------------------

-- Types the request marks exclusive explicitly: such a pick is printed with
-- everything below it.
local function explicit_exclusive(resources, set)
  set = set or {}
  for _, r in ipairs(resources or {}) do
    if r.exclusive == true then set[r.type] = true end
    explicit_exclusive(r.with, set)
  end
  return set
end

-- For each requested type, the types the request puts above it (a slot
-- stands for its parent): where a vertex reached through two containment
-- parents is printed.
local function request_parents(resources, parent, map)
  map = map or {}
  for _, r in ipairs(resources or {}) do
    if r.type == "slot" then
      request_parents(r.with, parent, map)
    else
      if parent then
        map[r.type] = map[r.type] or {}
        map[r.type][parent] = true
      end
      request_parents(r.with, r.type, map)
    end
  end
  return map
end

local function add_subtree(sel, v)
  for c in v:children() do
    local vid = c:vid()
    if not sel[vid] then
      sel[vid] = {v = c, amount = c:size(), x = true, alloc = true}
    end
    add_subtree(sel, c)
  end
end

-- The selection of a job result (picks) for printing and find: picks, and
-- below every exclusive pick of an explicitly exclusive type, its subtree.
-- An entry is `alloc` when the job holds units of it (exclusive, or an
-- allocation record of its own), as opposed to an ancestor it only shares.
-- A shared ancestor with nothing of the job printed below it is left out:
-- what a release left behind, or the other containment parent of a vertex
-- reached through a second link (see writers.order).
local function job_selection(job, expand, prefer)
  local sel = {}
  for _, p in ipairs(job.picks) do
    local alloc = p.exclusive
    if not alloc then
      for _, r in ipairs(p.vertex:records()) do
        if r.job == job.id and r.kind == "alloc" then alloc = true end
      end
    end
    sel[p.vertex:vid()] = {v = p.vertex, amount = p.amount, x = p.exclusive, alloc = alloc}
  end
  for _, p in ipairs(job.picks) do
    if p.exclusive and expand[p.vertex:type()] then add_subtree(sel, p.vertex) end
  end
  local needed = {}
  for _, e in ipairs(writers.order(sel, false, prefer)) do
    local vid = e.v:vid()
    if e.alloc or e.x or needed[vid] then
      if e.home then needed[e.home] = true end
    else
      sel[vid] = nil
    end
  end
  return sel
end

-- ---- output blocks -----------------------------------------------------------

function S:write_sel(sel, ctx)
  ctx = ctx or {}
  ctx.graph = self.graph
  local text, msg = writers.write(self.format, sel, ctx)
  if not text then
    self:error("ERROR: cannot write %s output: %s", self.format, msg)
    return
  end
  self:puts(text)
end

local state_names = {allocated = "ALLOCATED", reserved = "RESERVED", matched = "MATCHED"}

function S:print_match(job, sel, prefer, elapsed)
  self:write_sel(sel, {start = job.start, ["end"] = job["end"], prefer = prefer})
  local at = job.start == self.graph:now() and "Now" or tostring(job.start)
  local lines = {SEP, "INFO: JOBID=" .. job.id,
    "INFO: RESOURCES=" .. state_names[job.state], "INFO: SCHEDULED AT=" .. at}
  if elapsed then lines[#lines + 1] = ("INFO: ELAPSED=%.6f"):format(elapsed) end
  lines[#lines + 1] = SEP
  self:puts(table.concat(lines, "\n") .. "\n")
end

function S:print_nomatch(id, unsat, elapsed)
  local lines = {SEP, "INFO: No matching resources found"}
  if unsat then lines[#lines + 1] = "INFO: Unsatisfiable request" end
  lines[#lines + 1] = "INFO: JOBID=" .. id
  if elapsed then lines[#lines + 1] = ("INFO: ELAPSED=%.6f"):format(elapsed) end
  lines[#lines + 1] = SEP
  self:puts(table.concat(lines, "\n") .. "\n")
end

-- ---- commands ------------------------------------------------------------------

local commands = {}
local usage = {}

local function read_file(path)
  local f, msg = io.open(path, "r")
  if not f then return nil, msg end
  local text = f:read("a")
  f:close()
  return text
end

-- Would js fit now if no job held anything?  The matcher's satisfiability
-- ignores vertex status; the command language calls a request
-- unsatisfiable when it cannot fit the resources that are up, so the
-- satisfiability modes also try it on an idle copy of the graph (a copy
-- costs time linear in the graph, paid only on this path).
function S:fits_when_idle(js)
  local g2 = self.graph:duplicate()
  for id in pairs(self.jobs) do g2:free_job(id) end
  local m2 = core.matcher(g2)
  local builtin = false
  for _, b in ipairs(policies.builtins) do builtin = builtin or b == self.policy end
  m2:set_policy(builtin and self.policy or "first")
  local job = m2:match(js, "without_allocating")
  m2:close()
  g2:close()
  return job ~= nil
end

-- One match of the jobspec file at path in mode; prints the result.
-- Returns true when resources were found (or the request is satisfiable).
function S:match_one(mode, path)
  local sat_only = mode == "satisfiability"
  local id = self.next_id
  if not sat_only then self.next_id = id + 1 end
  local js, msg = core.jobspec_load(path, {types = self:known_types()})
  if not js then
    self:error("match_allocate: ERROR: Jobspec error for %d: %s", id, msg)
    return false
  end
  local t0 = os.clock()
  local job, err, code = self.matcher:match(js, mode, sat_only and nil or id)
  local elapsed = self.elapsed and os.clock() - t0 or nil
  local sat_mode = sat_only or mode == "allocate_with_satisfiability"
  if sat_only then
    local yes = (job ~= nil or code == "EBUSY") and self:fits_when_idle(js)
    if not job and code ~= "EBUSY" and code ~= "ENODEV" then
      self:error("match_allocate: ERROR: %s", err)
      return false
    end
    self:puts(("%s\nINFO: %s request\n%s\n"):format(SEP, yes and "Satisfiable" or "Unsatisfiable",
      SEP))
    return yes
  end
  if not job then
    if code == "EBUSY" or code == "ENODEV" then
      local unsat = code == "ENODEV" or (sat_mode and not self:fits_when_idle(js))
      self:print_nomatch(id, sat_mode and unsat, elapsed)
    elseif code == "EINVAL" then
      self:error("match_allocate: ERROR: Jobspec error for %d: %s", id, err)
    else
      self:error("match_allocate: ERROR: match %d failed: %s", id, err)
    end
    return false
  end
  local expand = explicit_exclusive(js:resources())
  local prefer = request_parents(js:resources())
  local sel = job_selection(job, expand, prefer)
  if job.state ~= "matched" then
    self.jobs[job.id] = {id = job.id, state = job.state, start = job.start, ["end"] = job["end"],
      expand = expand, prefer = prefer, sel = sel}
  end
  self:print_match(job, sel, prefer, elapsed)
  return true
end

usage.match = "match MODE JOBSPEC"
function commands.match(self, args)
  if #args ~= 2 then return self:error("ERROR: malformed command") end
  if not M.modes[args[1]] then
    return self:error("ERROR: invalid match mode '%s'", args[1])
  end
  self:match_one(args[1], args[2])
end

usage["multi-match"] = "multi-match MODE JOBSPEC..."
commands["multi-match"] = function(self, args)
  if #args < 2 then
    return self:error("ERROR: malformed command")
  end
  if not M.modes[args[1]] then
    return self:error("ERROR: invalid match mode '%s'", args[1])
  end
  -- stops at the first jobspec that finds nothing
  for i = 2, #args do
    if not self:match_one(args[1], args[i]) then break end
  end
end

local function parse_jobid(s)
  local n = s and tonumber(s)
  if not n or math.type(n) ~= "integer" or n < 1 then return nil end
  return n
end

-- Rebuild the selection of a job after part of it was released.
function S:refresh_job(id)
  local job = self.jobs[id]
  local j = self.matcher:job(id)
  if not j then
    self.jobs[id] = nil
    return
  end
  job.sel = job_selection(j, job.expand, job.prefer)
end

function S:print_stats(prefix, pre, post)
  self:puts(("%s\nINFO: %sPREORDER COUNT=\"%d\"\nINFO: %sPOSTORDER COUNT=\"%d\"\n%s\n"):format(
    SEP, prefix, pre, prefix, post, SEP))
end

-- Counts for `stats`: the vertices the job selected and those of them it
-- held (not only shared).
local function sel_counts(sel)
  local all, held = 0, 0
  for _, e in pairs(sel) do
    all = all + 1
    if e.alloc then held = held + 1 end
  end
  return all, held
end

usage.cancel = "cancel JOBID [stats]"
function commands.cancel(self, args)
  local id = parse_jobid(args[1])
  if not id or #args > 2 or (args[2] and args[2] ~= "stats") then
    return self:error("ERROR: malformed command")
  end
  local job = self.jobs[id]
  if not job or not self.matcher:cancel(id) then
    return self:error("cancel: ERROR: nonexistent job %d", id)
  end
  self.jobs[id] = nil
  if args[2] then self:print_stats("CANCEL ", sel_counts(job.sel)) end
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
  local id = parse_jobid(args[1])
  if not id or #args < 3 or #args > 4 or (args[4] and args[4] ~= "stats") then
    return self:error("ERROR: malformed command")
  end
  local reader = args[2]
  if reader ~= "jgf" and reader ~= "rv1exec" then
    return self:error("ERROR: unsupported reader %s", reader)
  end
  local job = self.jobs[id]
  if not job then return self:error("partial-cancel: ERROR: nonexistent job %d", id) end
  if job.state == "reserved" then
    return self:error("ERROR: reservations not currently supported by partial cancel")
  end
  local ranks = self:shard_ranks(reader, args[3])
  local before = 0
  for _ in pairs(job.sel) do before = before + 1 end
  local n, removed
  if ranks then n, removed = self.matcher:release_ranks(id, ranks) end
  if not ranks or not n then
    return self:error("ERROR: error encountered while removing job %d", id)
  end
  if removed then self.jobs[id] = nil else self:refresh_job(id) end
  if args[4] then
    local after = 0
    for _ in pairs(self.jobs[id] and self.jobs[id].sel or {}) do after = after + 1 end
    self:print_stats("PARTIAL CANCEL ", before - after, n)
  end
end

usage.info = "info JOBID"
function commands.info(self, args)
  local id = parse_jobid(args[1])
  if not id or #args ~= 1 then return self:error("ERROR: malformed command") end
  local job = self.jobs[id]
  if not job then
    self.info:write(("INFO: nonexistent job %d\n"):format(id))
    return
  end
  local counts = {}
  for _, e in pairs(job.sel) do
    if e.alloc then
      local t = e.v:type()
      counts[t] = (counts[t] or 0) + e.amount
    end
  end
  local keys = {}
  for t in pairs(counts) do keys[#keys + 1] = t end
  table.sort(keys)
  for i, t in ipairs(keys) do keys[i] = t .. "=" .. counts[t] end
  self.info:write(("INFO: JOBID=%d STATE=%s SCHEDULED AT=%s END=%s RESOURCES=%s\n"):format(
    id, state_names[job.state], job.start == self.graph:now() and "Now" or job.start,
    job["end"] or "never", table.concat(keys, ",")))
end

usage.list = "list"
function commands.list(self)
  local ids = {}
  for id in pairs(self.jobs) do ids[#ids + 1] = id end
  table.sort(ids)
  for _, id in ipairs(ids) do commands.info(self, {tostring(id)}) end
end

usage.stat = "stat"
function commands.stat(self)
  local st = self.matcher:stats()
  local g = self.graph
  local njobs = 0
  for _ in pairs(self.jobs) do njobs = njobs + 1 end
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
  if #args ~= 1 then return self:error("ERROR: malformed command") end
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

usage["set-status"] = "set-status PATH up|down"
commands["set-status"] = function(self, args)
  if #args ~= 2 then return self:error("ERROR: malformed command") end
  local v = self:vertex_at(args[1])
  if not v then
    return self:puts(("Could not find path %s in resource graph.\n"):format(args[1]))
  end
  local ok = pcall(v.set_status, v, args[2])
  if not ok then return self:error("ERROR: unrecognized status") end
end

usage["get-status"] = "get-status PATH"
commands["get-status"] = function(self, args)
  if #args ~= 1 then return self:error("ERROR: malformed command") end
  local v = self:vertex_at(args[1])
  if not v then
    return self:puts(("Could not find path %s in resource graph.\n"):format(args[1]))
  end
  self:puts(("%s is %s\n"):format(args[1], v:status()))
end

usage["set-property"] = "set-property PATH PROPERTY=VALUE"
commands["set-property"] = function(self, args)
  if #args ~= 2 then
    return self:puts("Incorrect input format. \nPlease use `set-property <resource> " ..
      "PROPERTY=VALUE`.\n")
  end
  local v = self:vertex_at(args[1])
  if not v then
    return self:puts(("Couldn't find path %s in resource graph.\n"):format(args[1]))
  end
  local k, val = args[2]:match("^([^=]+)=(.+)$")
  if not k then
    return self:puts("Incorrect input format. \nPlease use `set-property <resource> " ..
      "PROPERTY=VALUE`.\n")
  end
  v:set_property(k, val)
end

usage["get-property"] = "get-property PATH"
commands["get-property"] = function(self, args)
  if #args ~= 1 then return self:error("ERROR: malformed command") end
  local v = self:vertex_at(args[1])
  if not v then
    return self:puts(("Couldn't find path %s in resource graph.\n"):format(args[1]))
  end
  local props = v:properties()
  local keys = {}
  for k in pairs(props) do keys[#keys + 1] = k end
  if #keys == 0 then
    return self:puts(("No properties were found for %s.\n"):format(args[1]))
  end
  table.sort(keys)
  for _, k in ipairs(keys) do self:puts(("%s=%s\n"):format(k, props[k])) end
end

-- ---- find ------------------------------------------------------------------------

-- Tokens of a find expression: parentheses, and, or, KEY=VALUE terms.
local function tokenize(s)
  local toks = {}
  for word in s:gsub("[()]", " %0 "):gmatch("%S+") do toks[#toks + 1] = word end
  return toks
end

local find_keys = {status = true, ["sched-now"] = true, ["sched-future"] = true,
  property = true, names = true, ["jobid-alloc"] = true, ["jobid-span"] = true,
  ["jobid-tag"] = true, agfilter = true}

-- Parse tokens into a tree: {op = "and"|"or", a, b} or {key =, value =}.
-- nil, message on a syntax error.
local function parse_expr(toks)
  local pos = 1
  local parse_or
  local function primary()
    local t = toks[pos]
    if t == nil then return nil, "expression ends early" end
    if t == "(" then
      pos = pos + 1
      local e, msg = parse_or()
      if not e then return nil, msg end
      if toks[pos] ~= ")" then return nil, "missing )" end
      pos = pos + 1
      return e
    end
    local k, v = t:match("^([%w_-]+)=(.+)$")
    if not k or not find_keys[k] then return nil, ("bad term '%s'"):format(t) end
    pos = pos + 1
    return {key = k, value = v}
  end
  local function parse_and()
    local a, msg = primary()
    if not a then return nil, msg end
    while toks[pos] and toks[pos] ~= ")" and toks[pos] ~= "or" do
      if toks[pos] == "and" then pos = pos + 1 end
      local b, msg2 = primary()
      if not b then return nil, msg2 end
      a = {op = "and", a, b}
    end
    return a
  end
  function parse_or()
    local a, msg = parse_and()
    if not a then return nil, msg end
    while toks[pos] == "or" do
      pos = pos + 1
      local b, msg2 = parse_and()
      if not b then return nil, msg2 end
      a = {op = "or", a, b}
    end
    return a
  end
  local e, msg = parse_or()
  if not e then return nil, msg end
  if toks[pos] then return nil, ("unexpected '%s'"):format(toks[pos]) end
  return e
end

-- Vertex ids held by jobs in state, or by job id: what they hold units of,
-- and everything below what they hold exclusively (all: every entry,
-- shared ancestors too).
function S:held_set(state, id, all)
  local set = {}
  local function below(v)
    for c in v:children() do
      local cid = c:vid()
      if not set[cid] then
        set[cid] = true
        below(c)
      end
    end
  end
  for jid, job in pairs(self.jobs) do
    if (not state or job.state == state) and (not id or jid == id) then
      for vid, e in pairs(job.sel) do
        if all or e.alloc then set[vid] = true end
      end
      for _, e in pairs(job.sel) do
        if e.x then below(e.v) end
      end
    end
  end
  return set
end

-- A predicate function(v) for a find term, or nil, message.
function S:term_pred(t)
  local k, val = t.key, t.value
  if k == "status" then
    return function(v) return v:status() == val end
  elseif k == "sched-now" then
    if val ~= "allocated" and val ~= "free" then
      return nil, "sched-now takes allocated or free"
    end
    local held = self:held_set("allocated")
    if val == "allocated" then return function(v) return held[v:vid()] ~= nil end end
    return function(v) return held[v:vid()] == nil end
  elseif k == "sched-future" then
    if val ~= "reserved" and val ~= "free" then
      return nil, "sched-future takes reserved or free"
    end
    local held = self:held_set("reserved")
    if val == "reserved" then return function(v) return held[v:vid()] ~= nil end end
    return function(v) return held[v:vid()] == nil end
  elseif k == "property" then
    local key, want = val:match("^([^=]+)=(.*)$")
    key = key or val
    return function(v)
      local p = v:property(key)
      return p ~= nil and (want == nil or p == want)
    end
  elseif k == "agfilter" then
    if val ~= "t" and val ~= "true" then return nil, "agfilter takes t" end
    return function(v) return self:agfilter(v) ~= nil end
  elseif k == "names" then
    local names = {}
    for n in val:gmatch("[^,]+") do names[n] = true end
    return function(v) return names[v:name()] == true end
  else
    local id = parse_jobid(val)
    if not id then return nil, ("%s takes a job id"):format(k) end
    local held = self:held_set(nil, id, k == "jobid-tag")
    return function(v) return held[v:vid()] ~= nil end
  end
end

function S:compile(e)
  if e.op then
    local a, msg = self:compile(e[1])
    if not a then return nil, msg end
    local b, msg2 = self:compile(e[2])
    if not b then return nil, msg2 end
    if e.op == "and" then return function(v) return a(v) and b(v) end end
    return function(v) return a(v) or b(v) end
  end
  return self:term_pred(e)
end

-- Units of each vertex that running jobs selected (vertex id -> units),
-- cached until the next command.
function S:units_used()
  if not self.used_cache then
    local used = {}
    for _, job in pairs(self.jobs) do
      if job.state == "allocated" then
        for vid, e in pairs(job.sel) do
          if e.alloc or e.x then used[vid] = (used[vid] or 0) + e.amount end
        end
      end
    end
    self.used_cache = used
  end
  return self.used_cache
end

-- Pruning filters as find shows them (agfilter=t): a vertex with children
-- keeps, for each low-level type LL of an aggregate spec HL:LL whose HL is
-- its type or ALL (LL other than its own type), the units of LL below it
-- that running jobs selected, and the total; the root also keeps core, gpu and memory.  The filter
-- table of v, or nil.
function S:agfilter(v)
  if not v:children()() then return nil end
  local types, seen = {}, {}
  for hl, ll in (self.graph:aggregates() or ""):gmatch("([^,:]+):([^,]+)") do
    if (hl == "ALL" or hl == v:type()) and ll ~= v:type() and not seen[ll] then
      seen[ll] = true
      types[#types + 1] = ll
    end
  end
  if not v:parent() then
    -- the root also keeps filters of the usual leaf types
    for _, ll in ipairs({"core", "gpu", "memory"}) do
      if not seen[ll] and ll ~= v:type() then
        seen[ll] = true
        types[#types + 1] = ll
      end
    end
  end
  if #types == 0 then return nil end
  local used, total, seen_v = {}, {}, {}
  for _, t in ipairs(types) do used[t], total[t] = 0, 0 end
  local function walk(u)
    for c in u:children() do
      local t = c:type()
      local cid = c:vid()
      if seen_v[cid] then goto next end
      seen_v[cid] = true
      if total[t] then
        total[t] = total[t] + c:size()
        used[t] = used[t] + (self:units_used()[cid] or 0)
      end
      walk(c)
      ::next::
    end
  end
  walk(v)
  local o = {}
  for _, t in ipairs(types) do o[t] = ("used:%d, total:%d"):format(used[t], total[t]) end
  return o
end

usage.find = "find EXPRESSION"
function commands.find(self, _, line)
  local expr = line:match("^%s*%S+%s+(.-)%s*$") or ""
  if expr == "" then return self:error("ERROR: malformed command") end
  local toks = tokenize(expr)
  local agfilter = false
  for _, t in ipairs(toks) do agfilter = agfilter or t:match("^agfilter=") ~= nil end
  local pred, msg
  local tree
  tree, msg = parse_expr(toks)
  if tree then pred, msg = self:compile(tree) end
  if not pred then return self:error("ERROR: invalid find expression: %s", msg) end
  local sel = {}
  for v in self.graph:vertices() do
    if pred(v) then
      local vid = v:vid()
      if not sel[vid] then
        sel[vid] = {v = v, amount = v:size(), x = true}
        local p = v:parent()
        while p and not sel[p:vid()] do
          sel[p:vid()] = {v = p, amount = p:size(), x = true}
          p = p:parent()
        end
      end
    end
  end
  self:write_sel(sel, {agfilter = agfilter and function(v) return self:agfilter(v) end})
  self:puts(("%s\nINFO: EXPRESSION=\"%s\"\n%s\n"):format(SEP, expr, SEP))
end

-- ---- growing and shrinking -------------------------------------------------------

function S:structure_changed()
  self.types = nil
  if self.aggregates then self.graph:set_aggregates(self.aggregates) end
end

usage.attach = "attach JGF"
function commands.attach(self, args)
  if #args ~= 1 then return self:error("ERROR: malformed command") end
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
  for id in pairs(self.jobs) do
    local j = self.matcher:job(id)
    local vs = {}
    for _, p in ipairs(j and j.picks or {}) do
      if gone[p.vertex:vid()] then vs[#vs + 1] = p.vertex end
    end
    if #vs > 0 then
      local _, removed = self.matcher:release_vertices(id, vs)
      if removed then self.jobs[id] = nil end
    end
  end
  for _, v in ipairs(roots) do
    if self.graph:vertex(v:vid()) then self.graph:unlink(v, true) end
  end
  for id in pairs(self.jobs) do self:refresh_job(id) end
  self:structure_changed()
end

usage.remove = "remove PATH true | remove RANKS false"
function commands.remove(self, args)
  if #args ~= 2 or (args[2] ~= "true" and args[2] ~= "false") then
    return self:error("ERROR: malformed command")
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
  local stripped = line:match("^%s*(.-)%s*$")
  if stripped == "" or stripped:sub(1, 1) == "#" then return true end
  local args = {}
  for w in stripped:gmatch("%S+") do args[#args + 1] = w end
  local name = table.remove(args, 1)
  name = aliases[name] or name
  local fn = commands[name]
  if not fn then
    self:error("ERROR: unknown command '%s' (help lists the commands)", name)
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
function S:run(fh, prompt)
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

-- Cancel every job and close the matcher (the graph stays).
function S:close()
  if self.matcher then
    for id in pairs(self.jobs) do self.matcher:cancel(id) end
    self.matcher:close()
    self.matcher = nil
  end
end

return M
