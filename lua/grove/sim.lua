-- grove.sim: a discrete-event simulator of a batch queue on the real
-- matcher.
--
--   local sim = require "grove.sim"
--   local s = sim.new{graph = g, queue = "easy", policy = "low"}
--   s:submit{id = 1, submit = 0, run = 100, estimate = 200, procs = 4}
--   s:node_event{time = 50, node = "node3", action = "down"}
--   s:run()                      -- or s:advance(t), s:step()
--   local r = s:result()         -- metrics (grove.sim.metrics)
--
-- Every job is matched by a grove.core matcher on the graph, under a
-- placement policy, with the graph's planner holding allocations (from the
-- start to the start plus the estimate) and reservations; a job ends at
-- its start plus its run time, when it is cancelled in the matcher.  What
-- a queue policy (grove.sim.queue) sees is the queue, the clock and the
-- matcher through ctx (see docs/sim.md).
--
-- Events at one instant are handled in this order: completions (by job
-- id), node events (in file order), arrivals (by submit time, then job
-- id), then one scheduling pass when any job waits.  The next instant is
-- the earliest of the next completion, node event, arrival and
-- reservation start.
--
-- Jobs: {id =, submit =, run =, estimate =, procs =, user =, jobspec =}.
-- procs counts units of the processor type: cores with procs_as = "core"
-- (the request is procs slots of one core each, anywhere) or nodes with
-- procs_as = "node" (procs whole nodes).  jobspec (a canonical table)
-- replaces that request; its duration is set to the estimate.  Jobs that
-- cannot fit the machine are reported (opts.report) and left out.
--
-- Memory holds the jobs in the system (waiting or running), not the
-- trace: a trace is read as the clock reaches its jobs, and finished jobs
-- leave nothing behind but their row (opts.out) and their part of the
-- metrics.
local core = require("grove.core")
local gpolicy = require("grove.policy")
local heap = require("grove.sim.heap")
local metrics = require("grove.sim.metrics")
local queue = require("grove.sim.queue")
local trace = require("grove.sim.trace")

local M = {}

local fmt = string.format

M.queue = queue
M.trace = trace
M.metrics = metrics
M.gen = require "grove.sim.gen"

-- The columns of a job row (opts.out), in order.
M.columns = {"id", "submit", "start", "end", "wait", "run", "procs", "nodes", "estimate",
  "user", "state", "requeues", "hosts"}

local Sim = {}
Sim.__index = Sim

-- ---- the cluster -------------------------------------------------------------

-- A graph from a file: .graphml (GRUG recipe), .json (JGF), .lua (a script
-- returning a graph).  A graph, or nil, message, code.
function M.load_cluster(path)
  if type(path) ~= "string" then
    error(fmt("bad argument #1 to 'load_cluster' (string expected, got %s)", type(path)), 2)
  end
  local ext = (path:match("%.(%w+)$") or ""):lower()
  if ext == "graphml" or ext == "xml" then
    local g, msg, code = core.grug_load(path)
    if not g then return nil, msg, code end
    return g
  elseif ext == "json" then
    return core.jgf_load(path)
  elseif ext == "lua" then
    local chunk, err = loadfile(path, "t")
    if not chunk then return nil, err, "EINVAL" end
    local ok, g = pcall(chunk)
    if not ok then return nil, fmt("%s: %s", path, tostring(g)), "EINVAL" end
    if type(g) ~= "userdata" or not pcall(function() return g:count() end) then
      return nil, fmt("%s: the script must return a graph (got %s)", path, type(g)), "EINVAL"
    end
    return g
  end
  return nil, fmt("%s: unknown cluster format (.graphml, .json or .lua)", path), "EINVAL"
end

-- ---- event lists --------------------------------------------------------------

-- The order of records by key, then by job id (so records of one instant
-- keep the order of their ids).
local function by(key)
  return function(a, b)
    local x, y = a[key], b[key]
    if x ~= y then return x < y end
    return a.id < b.id
  end
end

local by_end, by_submit = by("end_"), by("submit")

local function num_less(a, b) return a < b end

-- ---- construction ------------------------------------------------------------------

local function index_nodes(self)
  local g = self.g
  local nodes, names, of = {}, {}, {}
  for v in g:vertices{type = "node"} do
    local i = #nodes + 1
    nodes[i] = v
    names[i] = v:name()
    local stack = {v}
    while #stack > 0 do
      local x = table.remove(stack)
      of[x:vid()] = i
      for c in x:children() do stack[#stack + 1] = c end
    end
  end
  self.nodes, self.node_names, self.node_of = nodes, names, of
  self.not_up = 0
  for _, v in ipairs(nodes) do
    if v:status() ~= "up" then self.not_up = self.not_up + 1 end
  end
  local count = {}
  for _, n in ipairs(names) do count[n] = (count[n] or 0) + 1 end
  self.by_name = {}
  for i, n in ipairs(names) do
    if count[n] == 1 then self.by_name[n] = i end
    self.by_name[nodes[i]:path()] = i
  end
end

local function load_placement(spec)
  if type(spec) ~= "string" then return spec end
  for _, b in ipairs(gpolicy.builtins) do
    if b == spec then return spec end
  end
  local p, msg, code = gpolicy.load(spec)
  if not p then return nil, msg, code end
  return p
end

-- A new simulator.  opts:
--   graph (a grove graph) or cluster (a path for load_cluster)
--   queue     name, path or a loaded grove.sim.queue policy (default fcfs)
--   policy    placement policy: a built-in name, a path or name of a Lua
--             policy, or a grove.policy (default "first")
--   procs_as  "core" (default) or "node"
--   on_down   "kill" (default) or "requeue": jobs on a node that goes down
--   out(row)  called with each finished job's row (see M.columns)
--   report(job, why)  called for each job left out
--   gantt     nil/false, or the number of nodes to record placements on
--             (the first ones, for the Gantt chart); at most
--             M.GANTT_MAX placements are kept (the first ones: memory stays
--             bounded however long the trace), see Sim:gantt_records()
--   buckets   time series resolution (default 400, see grove.sim.metrics)
--   budget, memory, time   the queue policy's limits (grove.sim.queue.load)
-- Raises on misuse; returns nil, message, code when a file cannot be read.
function M.new(opts)
  if type(opts) ~= "table" then
    error(fmt("bad argument #1 to 'new' (table expected, got %s)", type(opts)), 2)
  end
  local known = {graph = 1, cluster = 1, queue = 1, policy = 1, procs_as = 1, on_down = 1,
    reservations = 1,
    out = 1, report = 1, gantt = 1, buckets = 1, budget = 1, memory = 1, time = 1}
  for k in pairs(opts) do
    if not known[k] then error(fmt("bad argument #1 to 'new' (unknown option '%s')", k), 2) end
  end
  local procs_as = opts.procs_as or "core"
  if procs_as ~= "core" and procs_as ~= "node" then
    error(fmt("bad argument #1 to 'new' (procs_as must be \"core\" or \"node\", got %s)",
      tostring(procs_as)), 2)
  end
  local on_down = opts.on_down or "kill"
  if on_down ~= "kill" and on_down ~= "requeue" then
    error(fmt("bad argument #1 to 'new' (on_down must be \"kill\" or \"requeue\", got %s)",
      tostring(on_down)), 2)
  end
  local g = opts.graph
  if not g then
    if not opts.cluster then error("bad argument #1 to 'new' (give graph or cluster)", 2) end
    local msg, code
    g, msg, code = M.load_cluster(opts.cluster)
    if not g then return nil, msg, code end
  end
  local q = opts.queue or "fcfs"
  if type(q) == "string" then
    local msg, code
    q, msg, code = queue.load(q, {budget = opts.budget, memory = opts.memory,
      time = opts.time})
    if not q then return nil, msg, code end
  elseif q.bound then
    -- a policy serves one simulation: its mirrors of jobs are that run's
    local msg, code
    q, msg, code = q:reload()
    if not q then return nil, msg, code end
  end
  local self = setmetatable({g = g, procs_as = procs_as, on_down = on_down, queue_policy = q,
    unit = procs_as, out = opts.out, report = opts.report, now = 0, jobs = {}, queue = {},
    qlen = 0, qdirty = false, running = 0, used = 0, changed = true, node_events = {},
    next_event = 1, completions = heap.new(by_end), arrivals = heap.new(by_submit),
    wakes = heap.new(num_less), wake_set = {}, js_cache = {}, js_cached = 0,
    usage = {}, left_out = 0, submitted = 0, started = 0, finished = 0, steps = 0,
    max_id = 0, passes = 0, jobspecs = 0,
    count_mode = opts.reservations ~= "planner", free_cache = {}, by_est = {},
    gantt = opts.gantt and {} or nil,
    gantt_nodes = tonumber(opts.gantt) or 0},
    Sim)
  self.m = core.matcher(g)
  local p, msg, code = load_placement(opts.policy or "first")
  if not p then return nil, msg, code end
  local ok, e = self.m:set_policy(p)
  if not ok then return nil, e, "EINVAL" end
  self.policy_name = type(p) == "string" and p or p:name()
  self.fast = type(p) == "string" and core.sim_match ~= nil
  index_nodes(self)
  if #self.nodes == 0 then return nil, "the cluster has no node vertices", "EINVAL" end
  local total = 0
  if procs_as == "node" then
    total = #self.nodes
  else
    for v in g:vertices{type = "core"} do total = total + v:size() end
    if total == 0 then return nil, "the cluster has no core vertices", "EINVAL" end
  end
  self.total = total
  self.acc = metrics.new{units = total, buckets = opts.buckets}
  self.ctx = M.context(self)
  q:bind(self.ctx)
  g:set_now(0)
  return self
end

-- ---- jobs in ------------------------------------------------------------------

-- Built-in placement policies that only order candidates (no choose or
-- score hook looks at the request): under them a whole-node job may be
-- asked for as bare nodes (spec/sim_nodes_spec.lua checks the placements
-- are those of the request as written).
local BARE_NODES = {first = true, low = true, high = true, lonode = true, hinode = true,
  lonodex = true, hinodex = true, firstnodex = true}

local function request(self, job)
  if job.jobspec then
    local t = job.jobspec
    if type(t) == "userdata" then t = t:to_table() end
    t.attributes = t.attributes or {}
    t.attributes.system = t.attributes.system or {}
    t.attributes.system.duration = job.estimate
    local js, msg = core.jobspec_from_table(t, {types = self.m:known_types()})
    if not js then return nil, msg end
    return js
  end
  local key = job.procs * 1099511627776 + job.estimate
  local js = self.js_cache[key]
  if js then return js end
  local spec
  if self.procs_as == "node" then
    spec = {nodes = job.procs, exclusive = true, duration = job.estimate}
  else
    spec = {slots = job.procs, cores_per_slot = 1, duration = job.estimate}
  end
  local t = assert(require("grove.jobspec").build(spec))
  if self.procs_as == "node" and self.fast and BARE_NODES[self.policy_name] then
    -- Whole nodes with nothing below them named: the matcher takes each
    -- node as one exclusive pick and records it there, instead of placing
    -- a slot inside and listing every vertex the node holds (the same
    -- nodes: an exclusive node must be untouched whatever it is asked
    -- for).
    t.resources[1].with = nil
  end
  js = assert(core.jobspec_from_table(t))
  if self.js_cached >= 4096 then
    self.js_cache, self.js_cached = {}, 0
  end
  self.js_cache[key] = js
  self.js_cached = self.js_cached + 1
  return js
end

local function check_job(job, level)
  if type(job) ~= "table" then
    error(fmt("bad argument #1 to 'submit' (table expected, got %s)", type(job)), level)
  end
  for _, k in ipairs{"submit", "run"} do
    if math.type(job[k]) ~= "integer" or job[k] < 0 then
      error(fmt("bad argument #1 to 'submit' (%s must be a non-negative integer)", k), level)
    end
  end
  if job.procs == nil and job.jobspec == nil then
    error("bad argument #1 to 'submit' (give procs or jobspec)", level)
  end
  if job.procs ~= nil and math.type(job.procs) ~= "integer" then
    error("bad argument #1 to 'submit' (procs must be an integer)", level)
  end
  if job.estimate ~= nil and math.type(job.estimate) ~= "integer" then
    error("bad argument #1 to 'submit' (estimate must be an integer)", level)
  end
end

-- Submit a job (it arrives when the clock reaches job.submit, which must
-- not be in the past).  Returns the job id.
function Sim:submit(job)
  check_job(job, 3)
  if job.submit < self.now then
    error(fmt("bad argument #1 to 'submit' (submit time %d is before the clock, %d)",
      job.submit, self.now), 2)
  end
  local id = job.id
  if id == nil then
    id = self.max_id + 1
  elseif math.type(id) ~= "integer" or id <= 0 then
    error("bad argument #1 to 'submit' (id must be a positive integer)", 2)
  elseif self.jobs[id] then
    error(fmt("bad argument #1 to 'submit' (job %d is already in the system)", id), 2)
  end
  local rec = {id = id, submit = job.submit, run = job.run == 0 and 1 or job.run,
    procs = job.procs, user = job.user, jobspec = job.jobspec}
  rec.estimate = (job.estimate and job.estimate >= rec.run) and job.estimate or rec.run
  if id > self.max_id then self.max_id = id end
  rec.state = "future"
  self.jobs[id] = rec
  self.arrivals:push(rec)
  return id
end

-- Read jobs from a trace reader (grove.sim.trace) as the clock reaches them.
function Sim:feed(reader)
  if self.reader then error("a trace is already being read", 2) end
  self.reader = reader
  self:pull()
end

-- Keep the reader's next jobs (all of one submit time) in the arrival heap.
function Sim:pull()
  local r = self.reader
  if not r then return end
  local la = self.lookahead
  if not la then
    la = r:next()
    if not la then
      self.reader = nil
      return
    end
  end
  local t = la.submit
  while la and la.submit == t do
    if la.submit < self.now then
      error(fmt("%s:%d: job %d submitted at %d, before the clock (%d)", r.path, la.line or 0,
        la.id, la.submit, self.now), 0)
    end
    if self.jobs[la.id] then
      error(fmt("%s:%d: job id %d is already in the system", r.path, la.line or 0, la.id), 0)
    end
    self:submit_record(la)
    la = r:next()
  end
  self.lookahead = la
  if not la then self.reader = nil end
end

function Sim:submit_record(job)
  local rec = {id = job.id, submit = job.submit, run = job.run, estimate = job.estimate,
    procs = job.procs, user = job.user, jobspec = job.jobspec, line = job.line,
    state = "future"}
  if job.id > self.max_id then self.max_id = job.id end
  self.jobs[job.id] = rec
  self.arrivals:push(rec)
end

-- Node events: {time =, node = name | path | hostlist, action = "down" |
-- "up" | "drain"}, in any order (kept sorted by time, stable).
function Sim:node_event(ev)
  if type(ev) ~= "table" then
    error(fmt("bad argument #1 to 'node_event' (table expected, got %s)", type(ev)), 2)
  end
  if math.type(ev.time) ~= "integer" or ev.time < self.now then
    error("bad argument #1 to 'node_event' (time must be an integer, not in the past)", 2)
  end
  if ev.action ~= "down" and ev.action ~= "up" and ev.action ~= "drain" then
    error(fmt("bad argument #1 to 'node_event' (action must be down, up or drain, got %s)",
      tostring(ev.action)), 2)
  end
  local idx, msg = self:resolve_nodes(ev.node)
  if not idx then error("bad argument #1 to 'node_event' (" .. msg .. ")", 2) end
  local list = self.node_events
  local e = {time = ev.time, action = ev.action, nodes = idx, where = ev.where}
  local i = #list + 1
  while i > self.next_event and list[i - 1].time > e.time do
    list[i] = list[i - 1]
    i = i - 1
  end
  list[i] = e
end

-- Node indexes for a name, path or hostlist, or nil and a message.
function Sim:resolve_nodes(spec)
  if type(spec) ~= "string" or spec == "" then return nil, "node must be a name" end
  local i = self.by_name[spec]
  if i then return {i} end
  if spec:find("[", 1, true) then
    local hl, msg = core.hostlist(spec)
    if not hl then return nil, msg end
    local out = {}
    for k = 1, #hl do
      local j = self.by_name[hl[k]]
      if not j then return nil, fmt("no node '%s'", hl[k]) end
      out[#out + 1] = j
    end
    return out
  end
  return nil, fmt("no node '%s' (a node name, path or hostlist)", spec)
end

-- Read node events from a file: "TIME ACTION NODES" a line (ACTION down,
-- up or drain; NODES a name, path or hostlist), '#' comments.  Raises
-- "FILE:LINE: reason".
function Sim:load_events(path)
  local f, err = io.open(path, "r")
  if not f then error(err, 0) end
  local n = 0
  for line in f:lines() do
    n = n + 1
    local text = line:gsub("#.*", "")
    if text:match("%S") then
      local t, action, nodes, extra = text:match("^%s*(%S+)%s+(%S+)%s+(%S+)%s*(.-)%s*$")
      if not t then
        f:close()
        error(fmt("%s:%d: expected TIME ACTION NODES", path, n), 0)
      end
      if extra ~= "" then
        f:close()
        error(fmt("%s:%d: unexpected '%s' after the nodes", path, n, extra), 0)
      end
      local time = math.tointeger(tonumber(t))
      if not time or time < 0 then
        f:close()
        error(fmt("%s:%d: time must be a non-negative integer, got '%s'", path, n, t), 0)
      end
      if action ~= "down" and action ~= "up" and action ~= "drain" then
        f:close()
        error(fmt("%s:%d: unknown action '%s' (down, up, drain)", path, n, action), 0)
      end
      local idx, msg = self:resolve_nodes(nodes)
      if not idx then
        f:close()
        error(fmt("%s:%d: %s", path, n, msg), 0)
      end
      self:node_event{time = time, action = action, node = nodes, where = path .. ":" .. n}
    end
  end
  f:close()
end

-- ---- the queue ------------------------------------------------------------------------

local function view_of(rec)
  local v = rec.view
  if not v then
    v = {id = rec.id, submit = rec.submit, procs = rec.procs, estimate = rec.estimate,
      user = rec.user}
    rec.view = v
  end
  return v
end

-- The job's reservation, in its record and in the view its queue policy
-- sees (a mirror in the policy's sandbox, refreshed here).
local function set_reserved(self, rec, t)
  rec.reserved = t
  local v = rec.view
  if v and v.reserved ~= t then
    v.reserved = t
    if rec.state == "queued" then self.queue_policy:share(rec.id, v) end
  end
end

local function compact(self)
  local q, j = self.queue, 0
  for i = 1, #q do
    local r = q[i]
    q[i] = nil
    if r.state == "queued" then
      j = j + 1
      q[j] = r
    end
  end
end

local function enqueue(self, rec)
  -- a requeued job may still sit in the queue, started: drop such entries
  if rec.requeues then compact(self) end
  rec.state = "queued"
  local q = self.queue
  local n = #q
  -- Arrivals come in order; requeued jobs go back to their place.
  local i = n + 1
  while i > 1 and by_submit(rec, q[i - 1]) do i = i - 1 end
  table.insert(q, i, rec)
  self.qlen = self.qlen + 1
  self.qdirty = true
  self.queue_policy:share(rec.id, view_of(rec))
end

-- ---- starting and ending ---------------------------------------------------------------

local function level(self)
  self.acc:level(self.now, self.used, self.qlen)
end

-- Match rec in mode ("allocate" or "allocate_orelse_reserve"): a job
-- {state =, start =, vids = {vertex id, ...}}, or nil, message, code.
-- With a built-in placement policy the lean core.sim_match does it (only
-- the picks of the processor type come back); a Lua policy goes through
-- m:match, which runs it in its sandbox.
local function match(self, rec, mode)
  if self.fast then
    local state, start, _, vids = core.sim_match(self.m, rec.js, mode, rec.id,
      not rec.jobspec and self.unit or nil)
    if not state then return nil, start, vids end
    return {state = state, start = start, vids = vids}
  end
  local j, msg, code = self.m:match(rec.js, mode, rec.id)
  if not j then return nil, msg, code end
  local vids = {}
  for i, p in ipairs(j.picks) do vids[i] = p.vertex:vid() end
  return {state = j.state, start = j.start, vids = vids}
end

-- Placements the Gantt chart keeps at most (a chart of more is unreadable
-- and would hold memory in proportion to the trace).
M.GANTT_MAX = 50000

local function record_nodes(self, rec, vids)
  local of, seen, list = self.node_of, {}, {}
  for i = 1, #vids do
    local n = of[vids[i]]
    if n and not seen[n] then
      seen[n] = true
      list[#list + 1] = n
    end
  end
  table.sort(list)
  rec.nodes = list
  if self.gantt then
    for _, n in ipairs(list) do
      if n <= self.gantt_nodes and #self.gantt >= M.GANTT_MAX then
        self.gantt_full = self.gantt_full or self.now
      elseif n <= self.gantt_nodes then
        local g = self.gantt
        g[#g + 1] = {node = n, id = rec.id, start = self.now}
        rec.gantt = rec.gantt or {}
        rec.gantt[#rec.gantt + 1] = g[#g]
      end
    end
  end
end

local function begin_run(self, rec, job)
  rec.state = "running"
  rec.start = self.now
  rec.end_ = self.now + rec.run
  rec.est_end = self.now + rec.estimate
  rec.reserved, rec.vres = nil, nil
  if rec.view then rec.view.reserved = nil end
  self.queue_policy:unshare(rec.id)
  record_nodes(self, rec, job.vids)
  if not rec.procs then
    local info = self.m:info(rec.id)
    rec.procs = info.counts[self.unit] or 0
    if rec.view then rec.view.procs = rec.procs end
  end
  self.used = self.used + rec.procs
  self.running = self.running + 1
  self.qlen = self.qlen - 1
  self.qdirty = true
  self.started = self.started + 1
  rec.gen = (rec.gen or 0) + 1
  rec.heap_gen = rec.gen
  self.completions:push(rec)
  M._est_insert(self, rec)
  local c = self.free_cache
  if c.pass == self.passes and rec.est_end <= c.t then c.freed = c.freed + rec.procs end
  level(self)
end

local function hosts_of(self, rec)
  if not rec.nodes or #rec.nodes == 0 then return "" end
  local names = {}
  for i, n in ipairs(rec.nodes) do names[i] = self.node_names[n] end
  local hl = core.hostlist(names)
  return hl and tostring(hl) or table.concat(names, ",")
end

local function emit(self, rec, state)
  local row = {id = rec.id, submit = rec.submit, start = rec.start, ["end"] = self.now,
    wait = rec.start - rec.submit, run = self.now - rec.start, procs = rec.procs,
    nodes = rec.nodes and #rec.nodes or 0, estimate = rec.estimate, user = rec.user,
    state = state, requeues = rec.requeues or 0}
  self.acc:job(row)
  if self.out then
    row.hosts = hosts_of(self, rec)
    self.out(row)
  end
  if rec.gantt then
    for _, g in ipairs(rec.gantt) do g["end"] = self.now end
  end
  local u = rec.user
  if u ~= nil then
    self.usage[u] = (self.usage[u] or 0) + (self.now - rec.start) * rec.procs
  end
end

local function stop_running(self, rec)
  self.m:cancel(rec.id)
  M._est_remove(self, rec)
  self.used = self.used - rec.procs
  self.running = self.running - 1
  rec.gen = rec.gen + 1
end

local drop_reservations

-- A stopped job leaves the system as state ("done" or "killed"): its row
-- is written, and when it was the last jobspec job, reservations may go
-- back to counting.
local function leave(self, rec, state)
  rec.state = state
  self.finished = self.finished + 1
  emit(self, rec, state)
  self.jobs[rec.id] = nil
  if rec.jobspec and rec.js then
    self.jobspecs = self.jobspecs - 1
    if self.jobspecs == 0 and self.count_mode then drop_reservations(self) end
  end
end

local function finish(self, rec)
  stop_running(self, rec)
  if rec.end_ < rec.est_end then self.changed = true end
  leave(self, rec, "done")
end

-- Cancel every reservation (node events invalidate them, and so does a
-- change between counted and recorded reservations).
function drop_reservations(self)
  for _, rec in ipairs(self.queue) do
    if rec.state == "queued" and rec.reserved then
      if rec.vres then rec.vres = nil else self.m:cancel(rec.id) end
      set_reserved(self, rec, nil)
    end
  end
  self.changed = true
end

local function apply_event(self, ev)
  local status = ev.action == "drain" and "drained" or ev.action
  local hit = {}
  for _, n in ipairs(ev.nodes) do
    local v = self.nodes[n]
    local was = v:status()
    if was == "up" and status ~= "up" then
      self.not_up = self.not_up + 1
    elseif was ~= "up" and status == "up" then
      self.not_up = self.not_up - 1
    end
    v:set_status(status)
    -- the node's own status decides; the vertices inside follow it
    hit[n] = true
  end
  self.changed = true
  drop_reservations(self)
  if ev.action ~= "down" then return end
  local victims = {}
  for _, rec in pairs(self.jobs) do
    if rec.state == "running" then
      for _, n in ipairs(rec.nodes) do
        if hit[n] then
          victims[#victims + 1] = rec
          break
        end
      end
    end
  end
  table.sort(victims, function(a, b) return a.id < b.id end)
  for _, rec in ipairs(victims) do
    stop_running(self, rec)
    if self.on_down == "requeue" then
      if rec.gantt then
        for _, g in ipairs(rec.gantt) do g["end"] = self.now; g.killed = true end
        rec.gantt = nil
      end
      rec.requeues = (rec.requeues or 0) + 1
      rec.start, rec.nodes = nil, nil
      enqueue(self, rec)
    else
      leave(self, rec, "killed")
    end
  end
  level(self)
end

local function admit(self, rec)
  self.submitted = self.submitted + 1
  self.acc:submitted(rec.submit)
  local why
  if rec.jobspec then
    local js, msg = request(self, rec)
    if not js then
      why = "bad jobspec: " .. tostring(msg)
    else
      rec.js = js
      local ok, m2, code = self.m:match(js, "satisfiability")
      if not ok and code == "ENODEV" then
        why = "cannot fit the machine"
      elseif not ok and code ~= "EBUSY" then
        why = tostring(m2)
      end
    end
  elseif rec.procs <= 0 then
    why = "no processors"
  elseif rec.procs > self.total then
    why = fmt("needs %d %ss, the machine has %d", rec.procs, self.unit, self.total)
  else
    rec.js = request(self, rec)
  end
  if why then
    self.left_out = self.left_out + 1
    self.jobs[rec.id] = nil
    rec.state = "left out"
    if self.report then self.report(rec, why) end
    return
  end
  if rec.jobspec then
    if self.jobspecs == 0 and self.count_mode then drop_reservations(self) end
    self.jobspecs = self.jobspecs + 1
  end
  enqueue(self, rec)
end

-- ---- the context queue policies see ---------------------------------------------------

local function wake(self, t)
  if t > self.now and not self.wake_set[t] then
    self.wake_set[t] = true
    self.wakes:push(t)
  end
end

local function rec_of(self, view, fname)
  if type(view) ~= "table" or math.type(view.id) ~= "integer" then
    error(fmt("bad argument #1 to '%s' (a job of ctx:queue() expected)", fname), 3)
  end
  local rec = self.jobs[view.id]
  if not rec or rec.state ~= "queued" then
    error(fmt("bad argument #1 to '%s' (job %d is not waiting)", fname, view.id), 3)
  end
  return rec
end

local function match_fail(rec, msg, code)
  if code == "ECANCELED" or code == "EINVAL" or code == "ENOMEM" then
    error(fmt("job %d: %s", rec.id, tostring(msg)), 0)
  end
  return false
end

-- Try to allocate rec now; true on success.
local function try_now(self, rec)
  if rec.procs and not rec.jobspec and rec.procs > self.total - self.used then
    return false
  end
  local j, msg, code = match(self, rec, "allocate")
  if j then
    begin_run(self, rec, j)
    return true
  end
  return match_fail(rec, msg, code)
end

-- Reserve rec at its earliest start; the start time, or nil.
-- Whether reservations are counted rather than recorded in the planner:
-- every job in the system is a plain request (any cores, or any whole
-- nodes), every node is up, and the simulator was not told otherwise.
-- Units are then interchangeable, and a counted plan is both exact and
-- realizable (a job needs only that enough units are free when it
-- starts); a reservation pinned to vertices in the planner would also
-- have to find the same vertices free over its whole window, which
-- counting does not ask.  Anything else plans in the planner.
local function counting(self)
  return self.count_mode and self.not_up == 0 and self.jobspecs == 0
end

-- The earliest start >= now of p units for d seconds given the running
-- jobs' estimates and the counted reservations of other waiting jobs.
local function counted_earliest(self, rec, p, d)
  local ev = {}
  local now = self.now
  for _, r in ipairs(self.by_est) do
    ev[#ev + 1] = {now, r.procs}
    ev[#ev + 1] = {r.est_end, -r.procs}
  end
  for _, q in ipairs(self.queue) do
    if q ~= rec and q.state == "queued" and q.vres then
      ev[#ev + 1] = {q.vres, q.procs}
      ev[#ev + 1] = {q.vres + q.estimate, -q.procs}
    end
  end
  table.sort(ev, function(a, b)
    if a[1] ~= b[1] then return a[1] < b[1] end
    return a[2] < b[2]
  end)
  -- the usage step function: times[i] .. times[i+1] at used[i]
  local times, used = {}, {}
  local u = 0
  local i = 1
  while i <= #ev do
    local t = ev[i][1]
    while ev[i] and ev[i][1] == t do
      u = u + ev[i][2]
      i = i + 1
    end
    times[#times + 1], used[#used + 1] = t, u
  end
  local limit = self.total - p
  local function used_at(k) return k == 0 and 0 or used[k] end
  -- candidates: now, and every time usage drops
  local k = 0
  while times[k + 1] and times[k + 1] <= now do k = k + 1 end
  local s = now
  while true do
    -- check [s, s + d): segments from index k (the one holding s)
    local ok, j = true, k
    while true do
      if used_at(j) > limit then
        ok = false
        break
      end
      local nxt = times[j + 1]
      if not nxt or nxt >= s + d then break end
      j = j + 1
    end
    if ok then return s end
    -- move to the next change after the blocking segment
    k = j + 1
    s = times[k]
    if not s then error("no counted start found (more units asked than exist)") end
  end
end

-- Reserve rec at its earliest start; the start time, or nil.
local function reserve(self, rec)
  if counting(self) then
    local t = counted_earliest(self, rec, rec.procs, rec.estimate)
    if t == self.now and try_now(self, rec) then return self.now, "started" end
    if t == self.now then t = self.now + 1 end -- cannot happen with plain requests
    rec.vres = t
    set_reserved(self, rec, t)
    wake(self, t)
    return t, "reserved"
  end
  local j, msg, code = match(self, rec, "allocate_orelse_reserve")
  if not j then
    match_fail(rec, msg, code)
    return nil
  end
  if j.state == "allocated" then
    begin_run(self, rec, j)
    return self.now, "started"
  end
  set_reserved(self, rec, j.start)
  wake(self, j.start)
  return j.start, "reserved"
end

local function cancel_reservation(self, rec)
  if not rec.reserved then return false end
  if rec.vres then
    rec.vres = nil
  else
    self.m:cancel(rec.id)
  end
  set_reserved(self, rec, nil)
  return true
end

-- Running jobs by estimated end: a sorted array (binary search, then a
-- move), so "what is free at t by the estimates" walks a prefix.
local by_est = by("est_end")

local function est_position(list, rec)
  local lo, hi = 1, #list + 1
  while lo < hi do
    local mid = (lo + hi) // 2
    if by_est(list[mid], rec) then lo = mid + 1 else hi = mid end
  end
  return lo
end

function M._est_insert(self, rec)
  table.insert(self.by_est, est_position(self.by_est, rec), rec)
end

function M._est_remove(self, rec)
  local i = est_position(self.by_est, rec)
  assert(self.by_est[i] == rec, "running job missing from the estimate list")
  table.remove(self.by_est, i)
end

-- The shadow time of a plain request of p units: the earliest time at
-- which p units are free by the running jobs' estimates, and the units
-- free then.  Kept per pass and per p: jobs started in the pass add to
-- the free count at the shadow time as they go (begin_run).
local function shadow(self, p)
  local c = self.free_cache
  if c.pass ~= self.passes or c.p ~= p then
    local free = self.total - self.used
    local t = self.now
    local list = self.by_est
    local i = 1
    while free < p and list[i] do
      t = list[i].est_end
      while list[i] and list[i].est_end == t do
        free = free + list[i].procs
        i = i + 1
      end
    end
    c.pass, c.p, c.t, c.freed = self.passes, p, t, free - (self.total - self.used)
  end
  return c.t, self.total - self.used + c.freed
end

local function plain(rec)
  return rec.procs and not rec.jobspec
end

-- Start rec now without moving the earliest start of prot later.
local function start_protected(self, rec, prot)
  if plain(rec) and rec.procs > self.total - self.used then return false end
  if plain(rec) and plain(prot) and self.not_up == 0 then
    -- Plain requests (any cores, or any whole nodes) make units
    -- interchangeable: counting the running jobs' estimates is exact,
    -- and the head needs no record in the planner.
    local t, free = shadow(self, prot.procs)
    if self.now + rec.estimate <= t or rec.procs <= free - prot.procs then
      return try_now(self, rec)
    end
    return false
  end
  -- Otherwise protect prot with a reservation in the planner.
  if not prot.reserved and not reserve(self, prot) then
    return try_now(self, rec)       -- prot can never start: nothing to protect
  end
  if prot.state ~= "queued" then return try_now(self, rec) end
  local s0 = prot.reserved
  if self.now + rec.estimate <= s0 then
    -- it ends before the reservation begins
    return try_now(self, rec)
  end
  if try_now(self, rec) then return true end
  -- The reservation may sit on resources rec could use while still
  -- leaving room for prot at s0: plan again without it.
  cancel_reservation(self, prot)
  local j, msg, code = match(self, rec, "allocate")
  if not j then
    reserve(self, prot)
    return match_fail(rec, msg, code)
  end
  local s1 = reserve(self, prot)
  if s1 and s1 <= s0 then
    begin_run(self, rec, j)
    return true
  end
  cancel_reservation(self, prot)
  self.m:cancel(rec.id)
  reserve(self, prot)
  return false
end

-- The ctx handed to a queue policy (see docs/sim.md).
function M.context(sim)
  local ctx = {}
  local exported, exported_version = {}, -1
  local version = 0
  function ctx.queue()
    local s = sim
    if s.qdirty then
      version = version + 1
      s.qdirty = false
    end
    if exported_version ~= version or s.queue_policy.priority then
      compact(s)
      local q = s.queue
      exported = {}
      for i = 1, #q do exported[i] = q[i].view end
      local pol = s.queue_policy
      if pol.priority then
        local prio = {}
        for _, v in ipairs(exported) do prio[v] = pol:call("priority", v, ctx) end
        for _, v in ipairs(exported) do
          if type(prio[v]) ~= "number" then
            error(fmt("queue policy %s: priority must return a number (job %d got %s)",
              pol.name, v.id, type(prio[v])), 0)
          end
        end
        table.sort(exported, function(a, b)
          if prio[a] ~= prio[b] then return prio[a] > prio[b] end
          if a.submit ~= b.submit then return a.submit < b.submit end
          return a.id < b.id
        end)
      end
      exported_version = version
      -- a new mirror each time (unshare, then share): the policy may
      -- still hold the last one
      pol:unshare("queue")
      pol:share("queue", exported)
    end
    return exported
  end
  function ctx.start(_, view, opts)
    local rec = rec_of(sim, view, "start")
    local prot
    if opts ~= nil then
      if type(opts) ~= "table" then error("bad argument #2 to 'start' (table expected)", 2) end
      if opts.protect ~= nil then
        prot = rec_of(sim, opts.protect, "start")
        if prot == rec then error("bad argument #2 to 'start' (a job cannot protect itself)", 2) end
      end
    end
    local s = sim
    local ok
    if rec.reserved == s.now and rec.vres then
      rec.vres = nil
      set_reserved(s, rec, nil)
      ok = try_now(s, rec)
      if not ok then reserve(s, rec) end
    elseif rec.reserved == s.now then
      local vids = {}
      for i, p in ipairs(s.m:job(rec.id).picks) do vids[i] = p.vertex:vid() end
      begin_run(s, rec, {vids = vids})
      ok = true
    elseif rec.reserved then
      local t = rec.reserved
      cancel_reservation(s, rec)
      ok = try_now(s, rec)
      if not ok then
        local t2 = reserve(s, rec)
        assert(t2 and t2 <= t, "a reservation moved later")
      end
    elseif prot then
      ok = start_protected(s, rec, prot)
    else
      ok = try_now(s, rec)
    end
    return ok
  end
  function ctx.reserve(_, view)
    local rec = rec_of(sim, view, "reserve")
    if rec.reserved then return rec.reserved, "reserved" end
    local t, how = reserve(sim, rec)
    return t, how
  end
  function ctx.cancel(_, view)
    local rec = rec_of(sim, view, "cancel")
    local ok = cancel_reservation(sim, rec)
    return ok
  end
  function ctx.earliest(_, view)
    local rec = rec_of(sim, view, "earliest")
    if rec.reserved then return rec.reserved end
    local t
    if counting(sim) then
      t = counted_earliest(sim, rec, rec.procs, rec.estimate)
    else
      local j = sim.m:match(rec.js, "without_allocating_future")
      t = j and j.start or nil
    end
    return t
  end
  function ctx.free() return sim.total - sim.used end
  function ctx.total() return sim.total end
  function ctx.clock() return sim.now end
  function ctx.changed() return sim.changed end
  function ctx.usage(_, user) return sim.usage[user] or 0 end
  function ctx.running()
    local out = {}
    for _, rec in pairs(sim.jobs) do
      if rec.state == "running" then
        out[#out + 1] = {id = rec.id, start = rec.start, estimate = rec.estimate,
          ["end"] = rec.est_end, procs = rec.procs, user = rec.user}
      end
    end
    table.sort(out, function(a, b) return a.id < b.id end)
    return out
  end
  return ctx
end

-- ---- the clock ----------------------------------------------------------------------------

-- The time of the next event, or nil when nothing is left.
function Sim:next_time()
  local t
  local c = self.completions:peek()
  while c and (c.heap_gen ~= c.gen or c.state ~= "running") do
    self.completions:pop()
    c = self.completions:peek()
  end
  if c then t = c.end_ end
  local a = self.arrivals:peek()
  if a and (not t or a.submit < t) then t = a.submit end
  local e = self.node_events[self.next_event]
  if e and (not t or e.time < t) then t = e.time end
  local w = self.wakes:peek()
  while w and w <= self.now do
    self.wakes:pop()
    self.wake_set[w] = nil
    w = self.wakes:peek()
  end
  if w and self.qlen > 0 and (not t or w < t) then t = w end
  return t
end

-- Handle the next instant.  false when nothing is left, or when the next
-- event is after limit.
function Sim:step(limit)
  local t = self:next_time()
  if not t or (limit and t > limit) then return false end
  self.now = t
  self.g:set_now(t)
  self.steps = self.steps + 1
  local comp = self.completions
  while true do
    local c = comp:peek()
    if not c or c.end_ > t then break end
    comp:pop()
    if c.heap_gen == c.gen and c.state == "running" then finish(self, c) end
  end
  local evs = self.node_events
  while evs[self.next_event] and evs[self.next_event].time <= t do
    apply_event(self, evs[self.next_event])
    evs[self.next_event] = nil
    self.next_event = self.next_event + 1
  end
  local arr = self.arrivals
  while true do
    local a = arr:peek()
    if not a or a.submit > t then break end
    arr:pop()
    admit(self, a)
    if not arr:peek() then self:pull() end
  end
  if self.reader and not arr:peek() then self:pull() end
  while self.wakes:peek() and self.wakes:peek() <= t do
    self.wake_set[self.wakes:pop()] = nil
  end
  level(self)
  if self.qlen > 0 then
    self.passes = self.passes + 1
    local pol = self.queue_policy
    pol:call("schedule", self.ctx)
    self.changed = false
    level(self)
  end
  if self.progress then self.progress(self) end
  return true
end

-- Run until nothing is left (or the clock would pass limit).
function Sim:run(limit)
  while self:step(limit) do end
  return self
end

-- Move the clock to t, handling every event up to and including t.
function Sim:advance(t)
  if math.type(t) ~= "integer" or t < self.now then
    error("bad argument #1 to 'advance' (an integer time, not in the past)", 2)
  end
  self:run(t)
  if t > self.now then
    self.now = t
    self.g:set_now(t)
    level(self)
  end
  return self
end

-- The job's state: {id, state, submit, start, ["end"] (running: the
-- estimated end), reserved, procs, nodes (names)}, or nil when it has
-- finished or is unknown.
function Sim:job(id)
  local rec = self.jobs[id]
  if not rec then return nil end
  local names
  if rec.nodes then
    names = {}
    for i, n in ipairs(rec.nodes) do names[i] = self.node_names[n] end
  end
  return {id = rec.id, state = rec.state == "future" and "submitted" or rec.state,
    submit = rec.submit, start = rec.start, ["end"] = rec.est_end, reserved = rec.reserved,
    procs = rec.procs, nodes = names}
end

function Sim:clock() return self.now end

-- Counts: submitted, started, finished, left_out, running, waiting.
function Sim:counts()
  return {submitted = self.submitted, started = self.started, finished = self.finished,
    left_out = self.left_out, running = self.running, waiting = self.qlen}
end

-- The metrics so far (grove.sim.metrics result), with run facts merged in.
function Sim:result(extra)
  local run = {queue = self.queue_policy.name, policy = self.policy_name,
    procs_as = self.procs_as, left_out = self.left_out, submitted = self.submitted}
  for k, v in pairs(extra or {}) do run[k] = v end
  return self.acc:result(run)
end

-- The Gantt records: {node =, id =, start =, ["end"] =}, and node names.
-- The Gantt chart's placements {node =, id =, start =, ["end"] =,
-- killed =}, the node names by index, and the time from which placements
-- were no longer kept (nil: none was left out).
function Sim:gantt_records()
  return self.gantt or {}, self.node_names, self.gantt_full
end

return M
