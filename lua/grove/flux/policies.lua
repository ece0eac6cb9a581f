-- grove.flux.policies: the policy files in force, and how a change to one
-- is taken.
--
-- A configuration names queue policies and placement policies (the
-- instance's, and each named queue's) by name or by path; each that is a
-- Lua file (a queue policy always is, the shipped ones included; a
-- placement policy unless it is one of the C built-ins) is listed here
-- with its content hash (files): `flux module stats` shows them, and
-- `flux grove reload` reads them again and takes those whose content
-- changed (flux-core's config module asks the module nothing when the
-- TOML did not change).
--
-- A policy is taken only once it has loaded and passed a self-check
-- (check): one pass of its queue policy, placing with its placement
-- policies, over sample jobs (copies of the first waiting jobs, and a
-- job of one core and one of a whole node in each queue) in a loop of
-- its own on a copy of the live graph with every allocation cleared (of
-- a large graph, its first CHECK_NODES nodes), in its sandbox's limits
-- (a wall-clock limit of at most CHECK_TIME), when one of them is named
-- by path (a site's file; the shipped ones are Grove's to test): a hook
-- that raises, answers nonsense or never returns is found there, not by
-- the live loop.  What fails is refused with the reason, and the policies
-- in force stay.
--
-- At the module's load a policy that does not load, or fails its check
-- once the graph is there, does not leave the instance without a
-- scheduler: the module runs the built-in default (fallback) and says so
-- loudly (a crit line in the log, the stats' policy_fallback).
local gpolicy = require("grove.policy")
local queue = require("grove.sim.queue")
local files = require("grove.files")
local sched = require("grove.sched")
local queues = require("grove.flux.queues")

local M = {}

local fmt = string.format

-- The longest a self-check's pass may run (s).
M.CHECK_TIME = 2

-- The content hash of a policy file: FNV-1a, 64 bits, as 16 hex digits.
function M.hash(text)
  local h = -3750763034362895579 -- 14695981039346656037
  for i = 1, #text do
    h = (h ~ text:byte(i)) * 1099511628211
  end
  return fmt("%016x", h)
end

local function is_builtin_placement(spec)
  for _, b in ipairs(gpolicy.builtins) do
    if b == spec then return true end
  end
  return false
end

-- The policy specs of options opts, in a fixed order: {key, queue (nil:
-- the instance's), spec, kind ("queue" or "placement")}.
local function specs(opts)
  local out = {{key = "queue-policy", spec = opts.queue or "fcfs", kind = "queue"},
    {key = "placement-policy", spec = opts.policy or "first", kind = "placement"}}
  for _, name in ipairs(opts.queue_names or {}) do
    local q = opts.queues[name]
    if q.queue then
      out[#out + 1] = {key = "queue-policy", queue = name, spec = q.queue, kind = "queue"}
    end
    if q.policy then
      out[#out + 1] = {key = "placement-policy", queue = name, spec = q.policy,
        kind = "placement"}
    end
  end
  return out
end

-- The Lua files options opts name, each once in its order: {key, queue,
-- spec, path, hash}; or nil and why one cannot be read (the loaders say
-- the same when they try).
function M.files(opts)
  local out, seen = {}, {}
  for _, s in ipairs(specs(opts)) do
    local path
    if s.kind == "queue" then
      path = gpolicy.resolve(s.spec, queue.find)
    elseif not is_builtin_placement(s.spec) then
      path = gpolicy.resolve(s.spec, gpolicy.find)
    end
    if path and not seen[path] then
      seen[path] = true
      local text, err = files.read(path)
      if not text then return nil, fmt("%s%s: %s", s.key, s.queue and " of queue " .. s.queue
        or "", tostring(err)) end
      out[#out + 1] = {key = s.key, queue = s.queue, spec = s.spec, path = path,
        hash = M.hash(text)}
    end
  end
  return out
end

-- The files of list read again: those whose content changed since, or
-- that can no longer be read ({path, key, queue, old, new = hash or nil}).
function M.reread(list)
  local out = {}
  for _, f in ipairs(list or {}) do
    local text = files.read(f.path)
    local h = text and M.hash(text)
    if h ~= f.hash then
      out[#out + 1] = {path = f.path, key = f.key, queue = f.queue, old = f.hash, new = h}
    end
  end
  return out
end

-- The files of list (as files gives them) by path.
local function by_path(list)
  local t = {}
  for _, f in ipairs(list or {}) do t[f.path] = f end
  return t
end

-- The files whose content differs between two lists (old, new): {path,
-- key, queue, old = hash or nil, new = hash or nil}, by path; with same,
-- only the files of both lists.
function M.changed(old, new, same)
  local o, n = by_path(old), by_path(new)
  local out = {}
  for path, f in pairs(n) do
    if (not o[path] and not same) or (o[path] and o[path].hash ~= f.hash) then
      out[#out + 1] = {path = path, key = f.key, queue = f.queue, old = o[path] and o[path].hash,
        new = f.hash}
    end
  end
  for path, f in pairs(o) do
    if not n[path] and not same then
      out[#out + 1] = {path = path, key = f.key, queue = f.queue, old = f.hash}
    end
  end
  table.sort(out, function(a, b) return a.path < b.path end)
  return out
end

-- ---- the self-check -----------------------------------------------------------------

-- A jobspec of n slots of c cores (nodes: whole nodes) for 60 s, in queue q.
local function sample(q, what)
  local res
  if what == "node" then
    res = '[{"type":"node","count":1,"exclusive":true,"with":[{"type":"slot","count":1,'
      .. '"label":"task","with":[{"type":"core","count":1}]}]}]'
  else
    res = '[{"type":"slot","count":1,"label":"task","with":[{"type":"core","count":1}]}]'
  end
  return fmt('{"version":1,"resources":%s,"tasks":[{"command":["true"],"slot":"task",'
    .. '"count":{"per_slot":1}}],"attributes":{"system":{"duration":60%s}}}', res,
    q and fmt(',"queue":"%s"', q) or "")
end

-- How many of the live queue's waiting jobs the check copies.
local SAMPLES = 8

-- How many nodes of the live graph the check's copy holds at most: a
-- larger graph is copied in part (these nodes, whole, and what is above
-- them), so that a check costs what a small graph's does (a whole copy
-- of 16,384 nodes took seconds).
M.CHECK_NODES = 64

-- The copy of the live graph g the check runs on: the whole graph, or
-- its first CHECK_NODES nodes with what is above them; with no record.
local function check_graph(live)
  local g = live.g
  if g:count("node") <= M.CHECK_NODES then
    local c = g:duplicate()
    if c then
      for _, j in ipairs(live.m:jobs(false)) do c:free_job(j.id) end
    end
    return c
  end
  local keep, seen = {}, {}
  local function add(v)
    local id = v:vid()
    if not seen[id] then
      seen[id] = true
      keep[#keep + 1] = v
    end
  end
  local n = 0
  for node in g:vertices{type = "node"} do
    n = n + 1
    if n > M.CHECK_NODES then break end
    local stack = {node}
    while #stack > 0 do
      local v = table.remove(stack)
      add(v)
      for c in v:children() do stack[#stack + 1] = c end
    end
    local up = node:parent()
    while up do
      add(up)
      up = up:parent()
    end
  end
  local c = g:extract(keep)
  if c then
    for _, j in ipairs(live.m:jobs(false)) do c:free_job(j.id) end
  end
  return c
end

-- Whether options opts name a policy by path (a file of the site's: what
-- the check is for; the shipped policies by name are checked by Grove's
-- own tests).
local function names_a_file(opts)
  for _, s in ipairs(specs(opts)) do
    if s.spec:find("/", 1, true) or s.spec:find("%.lua$") then return true end
  end
  return false
end

-- Check the policies options opts name (limits: the queue policy's
-- sandbox limits) against self's live graph: true, or nil and why.  A
-- configuration that names no policy by path passes unchecked.
function M.check(self, opts, limits)
  local live = self.loop
  if live.g:count() == 0 or not names_a_file(opts) then return true end
  local g = check_graph(live)
  if not g then return nil, "self-check: no memory for a copy of the graph" end
  local lim = {budget = limits.budget, memory = limits.memory,
    time = math.min(limits.time or M.CHECK_TIME, M.CHECK_TIME)}
  local loop = {}
  local qpol, msg, code = queues.policy(loop, opts, lim)
  if not qpol then return nil, msg, code end
  loop, msg, code = sched.init(loop, {graph = g, queue = qpol, policy = opts.policy,
    unit = live.unit, reservations = "planner", now = live.now, tps = live.tps,
    queue_depth = opts.queue_depth, reserve_depth = opts.reserve_depth, budget = lim.budget,
    memory = lim.memory, time = lim.time})
  if not loop then return nil, msg, code end
  loop.total = sched.count_units(loop)
  loop.no_vids = true
  sched.bind(loop)
  local id = 0
  local function add(rec)
    id = id + 1
    rec.id, rec.submit, rec.priority = id, id, rec.priority or 0
    if sched.admissible(loop, rec, true) then return end
    loop.jobs[id] = rec
    sched.enqueue(loop, rec)
  end
  local n = 0
  for _, rec in ipairs(sched.waiting(live)) do
    if n >= SAMPLES then break end
    n = n + 1
    add({jobspec = rec.jobspec, estimate = rec.estimate, user = rec.user, queue = rec.queue,
      open = rec.open, procs = not rec.jobspec and rec.procs or nil})
  end
  local qs = {false}
  for _, name in ipairs(opts.queue_names or {}) do qs[#qs + 1] = name end
  for _, q in ipairs(qs) do
    for _, what in ipairs{"core", "node"} do
      add({jobspec = sample(q or nil, what), estimate = 60 * live.tps, user = 0,
        queue = q or nil})
    end
  end
  local ok, err = sched.pass(loop)
  if ok == nil then return nil, "self-check on a copy of the live graph: " .. tostring(err) end
  return true
end

-- A spec that names a file (a path), not a policy by name.
local function is_path(spec)
  return type(spec) == "string" and (spec:find("/", 1, true) or spec:find("%.lua$")) ~= nil
end

-- Options opts with every policy given as a file the built-in default
-- (the instance's and each queue's; one given by name stays: a misspelt
-- name is a bad value, refused): what the module runs when its
-- configured ones fail at its load.
function M.defaults(opts)
  local o = {}
  for k, v in pairs(opts) do o[k] = v end
  if is_path(o.queue) then o.queue = nil end
  if is_path(o.policy) then o.policy = nil end
  if opts.queues then
    o.queues = {}
    for name, q in pairs(opts.queues) do
      local c = {}
      for k, v in pairs(q) do c[k] = v end
      if is_path(c.queue) then c.queue = nil end
      if is_path(c.policy) then c.policy = nil end
      o.queues[name] = c
    end
  end
  return o
end

-- The policy files in force as the stats give them: [{key, queue,
-- file, hash}].
function M.stats(self)
  local out = {}
  for _, f in ipairs(self.policy_files or {}) do
    out[#out + 1] = {key = f.key, queue = f.queue, file = f.path, hash = f.hash}
  end
  return out
end

-- The files of a list for a log line: "PATH (HASH), ...".
function M.show(list)
  local parts = {}
  for _, f in ipairs(list or {}) do parts[#parts + 1] = fmt("%s (%s)", f.path, f.hash) end
  return table.concat(parts, ", ")
end

return M
