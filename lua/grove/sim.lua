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
local check = require("grove.check")
local core = require("grove.core")
local heap = require("grove.sim.heap")
local metrics = require("grove.sim.metrics")
local perqueue = require("grove.sim.perqueue")
local predict = require("grove.sim.predict")
local queue = require("grove.sim.queue")
local sched = require("grove.sched")
local suggest = require("grove.suggest")
local trace = require("grove.sim.trace")

local M = {}

local fmt = string.format

-- The step a run reports (grove.core.progress).
local STEP = "simulating"

local stop_signal = core.stop_signal

M.queue = queue
M.trace = trace
M.metrics = metrics
M.gen = require "grove.sim.gen"

-- The columns of a job row (opts.out), in order.
M.columns = {"id", "submit", "start", "end", "wait", "run", "procs", "nodes", "estimate",
  "user", "state", "requeues", "hosts", "racks", "domains", "stranded", "predicted_first",
  "predicted_last", "predictions"}

-- The types of a locality domain, nearest first: a core's domain is the
-- nearest vertex of the first type that holds it below its node (a NUMA
-- domain), else of the next (its socket), else its node.  The one place
-- the level is chosen (grove_vertex_domain, when the graph layer gives
-- it, would read the same numanode).
M.DOMAIN_TYPES = {"numanode", "socket"}

-- How processors map to requests (procs_as): "core" P cores anywhere,
-- "node" P whole nodes, "fewest" the fewest nodes of the cluster's shape
-- (ceil(P / C) nodes of C cores, ceil(P / nodes) cores on each, as `flux
-- run -N -n P` asks), "whole" that many whole nodes.
M.PROCS_AS = {core = true, node = true, fewest = true, whole = true}

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

local by_end, by_submit, by_ext = by("end_"), by("submit"), by("ext_at")

local function num_less(a, b) return a < b end

-- ---- construction ------------------------------------------------------------------

local set_partitions, nodes_out, extend

local function index_nodes(self)
  local g = self.g
  local nodes, names, of, units = {}, {}, {}, {}
  local node_vid, node_cores, node_domains, rack_of, dom_of = {}, {}, {}, {}, {}
  local core_vids = {}
  local level_rank = {}
  for k, t in ipairs(M.DOMAIN_TYPES) do level_rank[t] = k end
  local deepest = #M.DOMAIN_TYPES + 1   -- the level found: the node's own
  local racks = {}
  for v in g:vertices{type = "node"} do
    local i = #nodes + 1
    nodes[i] = v
    names[i] = v:name()
    node_vid[i] = v:vid()
    -- the node's rack: its nearest ancestor of type rack
    local up = v:parent()
    while up and up:type() ~= "rack" do up = up:parent() end
    if up then
      local r = racks[up:vid()]
      if not r then
        r = #self.rack_list + 1
        racks[up:vid()] = r
        self.rack_list[r] = up
      end
      rack_of[i] = r
    end
    -- each vertex below: its node; each core: its domain (the nearest
    -- vertex of the first DOMAIN_TYPES type above it, else of the next)
    local stack = {{v, nil, nil}}
    local cores, doms = 0, {}
    while #stack > 0 do
      local top = table.remove(stack)
      local x, dom, rank = top[1], top[2], top[3]
      local vid = x:vid()
      of[vid] = i
      local t = x:type()
      local k = level_rank[t]
      if k and (not rank or k < rank) then dom, rank = vid, k end
      if t == "core" then
        cores = cores + x:size()
        core_vids[#core_vids + 1] = vid
        local d = dom or node_vid[i]
        dom_of[vid] = d
        if not doms[d] then
          doms[d] = true
          node_domains[i] = (node_domains[i] or 0) + 1
        end
        if (rank or deepest) < deepest then deepest = rank end
      end
      for c in x:children() do stack[#stack + 1] = {c, dom, rank} end
    end
    node_cores[i] = cores
    node_domains[i] = node_domains[i] or 1
    units[i] = self.procs_as == "node" and 1 or cores
  end
  self.nodes, self.node_names, self.node_of, self.node_units = nodes, names, of, units
  self.node_vid, self.node_cores, self.node_domains = node_vid, node_cores, node_domains
  self.dom_of = dom_of
  self.domain_level = M.DOMAIN_TYPES[deepest] or "node"
  -- racks: only when every node is in one
  self.rack_of = #self.rack_list > 0 and #rack_of == #nodes and rack_of or nil
  -- cores numbered 0, 1, ... in vertex order (Batsim's resource ids)
  table.sort(core_vids)
  local core_id = {}
  for k, vid in ipairs(core_vids) do core_id[vid] = k - 1 end
  self.core_id = core_id
  local node_id = {}
  for k = 1, #nodes do node_id[k] = k - 1 end
  self.node_id = node_id
  -- the node size shaped requests divide processors by: the smallest
  local cmin, cmax
  for _, c in ipairs(node_cores) do
    if c > 0 then
      cmin = math.min(cmin or c, c)
      cmax = math.max(cmax or c, c)
    end
  end
  self.node_size, self.node_size_max = cmin, cmax
  self.not_up, self.down_units = 0, 0
  for i, v in ipairs(nodes) do
    if v:status() ~= "up" then
      self.not_up = self.not_up + 1
      self.down_units = self.down_units + units[i]
    end
  end
  local count = {}
  for _, n in ipairs(names) do count[n] = (count[n] or 0) + 1 end
  self.by_name = {}
  for i, n in ipairs(names) do
    if count[n] == 1 then self.by_name[n] = i end
    self.by_name[nodes[i]:path()] = i
  end
end

-- KB in one unit of the cluster's memory pools, or nil when it has none
-- (or their unit is not one of B, KB, MB, GB, TB and their binary kin).
local function memory_unit(g)
  local KB = {B = 1 / 1024, K = 1, M = 1024, G = 1024 ^ 2, T = 1024 ^ 3}
  local unit
  for v in g:vertices{type = "memory"} do
    unit = unit or KB[(v:unit() or "B"):upper():sub(1, 1)]
  end
  return unit
end

-- Mark the nodes of each partition with the property grove_partition_P
-- (a job of partition P is constrained to it).  true, or nil, message.
function set_partitions(self, map)
  if type(map) ~= "table" then return nil, "partitions must be a table" end
  self.partitions = {}
  for p, spec in pairs(map) do
    local idx, msg = self:resolve_nodes(spec)
    if not idx then return nil, fmt("partition %s: %s", tostring(p), msg) end
    local prop = "grove_partition_" .. tostring(p)
    for _, n in ipairs(idx) do self.nodes[n]:set_property(prop, "1") end
    self.partitions[p] = prop
  end
  return true
end

-- opts[key], one of the two words a (the default) and b; raises for
-- new's caller otherwise.
local function one_of(opts, key, a, b)
  local v = opts[key] or a
  if v ~= a and v ~= b then
    error(fmt("bad argument #1 to 'new' (%s must be \"%s\" or \"%s\", got %s)",
      key, a, b, tostring(v)), 3)
  end
  return v
end

-- A new simulator.  opts:
--   graph (a grove graph) or cluster (a path for load_cluster)
--   queue     name, path or a loaded grove.sim.queue policy (default fcfs)
--   policy    placement policy: a built-in name, a path or name of a Lua
--             policy, or a grove.policy (default "first")
--   procs_as  "core" (default), "node", "fewest" or "whole" (M.PROCS_AS)
--   on_down   "kill" (default) or "requeue": jobs on a node that goes down
--   out(row)  called with each finished job's row (see M.columns)
--   report(job, why)  called for each job left out
--   gantt     nil/false, or the number of nodes to record placements on
--             (the first ones, for the Gantt chart); at most
--             M.GANTT_MAX placements are kept (the first ones: memory stays
--             bounded however long the trace), see Sim:gantt_records()
--   memory_requests  "auto" (default): a job's memory request (job.mem,
--             KB per processor, SWF field 10) is asked of the cluster's
--             memory pools when it has any; "ignore"
--   partitions  {[partition] = node name | hostlist, ...}: a job of a
--             partition (job.partition, SWF field 16) runs on those nodes
--             only; a job of a partition not named is left out.  Without
--             it partitions are not looked at
--   params    {name = number | string}: the queue policy's parameters
--             (ctx:param); policy_Q = NAME gives queue Q a queue policy
--             of its own, placement_Q a placement policy of its own,
--             reserve_depth_Q a reserve depth of its own
--             (grove.sim.perqueue)
--   reserve_depth  at most this many waiting jobs hold a reservation
--   queue_depth    the queue policy sees at most this many waiting jobs
--   gantt_window  {from, to}: record only placements of jobs running
--             at some time in [from, to)
--   walltime  "kill" (default) or "extend": a job whose run exceeds its
--             estimate ends at the estimate (state "timeout") or runs on
--   allocations  true: each row gets alloc, the ids of what the job
--             held as an interval set ("0-63 65"): its cores numbered
--             0, 1, ... in vertex order (its nodes with procs_as "node")
--   buckets   time series resolution (default 400, see grove.sim.metrics)
--   budget, memory, time   the queue policy's limits (grove.sim.queue.load)
--   limits    what running jobs may hold per user, bank, queue and
--             overall: a limits table (grove.limits, as sched-grove's
--             [sched-grove.limits]; users by name or uid as the trace
--             names them)
-- Raises on misuse; returns nil, message, code when a file cannot be read.
function M.new(opts)
  if type(opts) ~= "table" then
    error(fmt("bad argument #1 to 'new' (table expected, got %s)", type(opts)), 2)
  end
  local known = {graph = 1, cluster = 1, queue = 1, policy = 1, procs_as = 1, on_down = 1,
    reservations = 1, walltime = 1, gantt_window = 1, params = 1, memory_requests = 1,
    partitions = 1, reserve_depth = 1, queue_depth = 1, allocations = 1,
    out = 1, report = 1, gantt = 1, buckets = 1, budget = 1, memory = 1, time = 1, limits = 1,
    predict = 1}
  check.keys(opts, known, 1, "new")
  local procs_as = opts.procs_as or "core"
  if not M.PROCS_AS[procs_as] then
    error(fmt("bad argument #1 to 'new' (procs_as must be \"core\", \"node\", \"fewest\" or " ..
      "\"whole\", got %s%s)", tostring(procs_as), suggest.hint(tostring(procs_as), M.PROCS_AS)),
      2)
  end
  local on_down = one_of(opts, "on_down", "kill", "requeue")
  local walltime = one_of(opts, "walltime", "kill", "extend")
  local predictor
  if opts.predict ~= nil and opts.predict ~= "none" then
    local why
    predictor, why = predict.new(opts.predict)
    if not predictor then error(fmt("bad argument #1 to 'new' (%s)", why), 2) end
  end
  local g = opts.graph
  if not g then
    if not opts.cluster then error("bad argument #1 to 'new' (give graph or cluster)", 2) end
    local msg, code
    g, msg, code = M.load_cluster(opts.cluster)
    if not g then return nil, msg, code end
  end
  local self = setmetatable({procs_as = procs_as, on_down = on_down, walltime = walltime,
    out = opts.out, report = opts.report, jobs = {}, rack_list = {},
    shaped = (procs_as == "fewest" or procs_as == "whole") or nil, shape_text = {},
    allocations = opts.allocations, started_pass = {}, touched = {},
    node_events = {},
    next_event = 1, completions = heap.new(by_end), arrivals = heap.new(by_submit),
    predictor = predictor, extends = heap.new(by_ext), extended = 0,
    wakes = heap.new(num_less), wake_set = {},
    dependents = {}, ended = {}, ended_old = {}, nended = 0,
    left_out = 0, submitted = 0, started = 0, finished = 0, steps = 0,
    max_id = 0,
    gantt = opts.gantt and {} or nil, gantt_window = opts.gantt_window,
    digest = 0,
    gantt_nodes = tonumber(opts.gantt) or 0},
    Sim)
  local q = opts.queue
  if perqueue.wanted(opts.params) then
    -- a policy per queue (policy_Q): the --queue policy is their default
    local d, dmsg, dcode = sched.load_queue(q, opts)
    if not d then return nil, dmsg, dcode end
    q, dmsg, dcode = perqueue.new(self, d, opts.params,
      {budget = opts.budget, memory = opts.memory, time = opts.time})
    if not q then return nil, dmsg, dcode end
  end
  local lim
  if opts.limits ~= nil then
    local lmsg
    lim, lmsg = require("grove.limits").parse(opts.limits, "limits", {names = true})
    if not lim then return nil, lmsg, "EINVAL" end
  end
  local ok, msg, code = sched.init(self, {graph = g, queue = q, policy = opts.policy,
    unit = procs_as == "node" and "node" or "core", reservations = opts.reservations, now = 0,
    budget = opts.budget,
    memory = opts.memory, time = opts.time, params = opts.params,
    reserve_depth = opts.reserve_depth, queue_depth = opts.queue_depth, limits = lim})
  if not ok then return nil, msg, code end
  self.on_start, self.on_wake = M._on_start, M._on_wake
  -- a job at its predicted end stays the matcher's until extend moves it
  -- (the matcher would let it go as the clock reaches that end)
  if predictor then self.m:set_overdue("report") end
  self.passes_over = true -- instants with no pass due (sched.due)
  index_nodes(self)
  if #self.nodes == 0 then return nil, "the cluster has no node vertices", "EINVAL" end
  nodes_out(self)
  local total = sched.count_units(self)
  if total == 0 then return nil, "the cluster has no core vertices", "EINVAL" end
  local mr = opts.memory_requests or "auto"
  if mr ~= "auto" and mr ~= "ignore" then
    error(fmt("bad argument #1 to 'new' (memory_requests must be \"auto\" or \"ignore\", " ..
      "got %s)", tostring(mr)), 2)
  end
  if mr == "auto" then self.mem_unit_kb = memory_unit(g) end
  if opts.partitions ~= nil then
    local done, why = set_partitions(self, opts.partitions)
    if not done then return nil, why, "EINVAL" end
  end
  self.total = total
  local cd = #self.nodes * 1000003 + total
  for _, n in ipairs(self.node_names) do
    for k = 1, #n do cd = ((cd * 31 + n:byte(k)) ~ (cd >> 29)) & 0xFFFFFFFFFFFF end
  end
  self.cluster_digest = fmt("%012x", cd)
  self.acc = metrics.new{units = total, buckets = opts.buckets}
  sched.bind(self)
  return self
end

-- ---- jobs in ------------------------------------------------------------------

-- The fields of a job given to submit (a trace's columns beside the
-- header's: docs/sim.md).
local JOB_FIELDS = {id = 1, submit = 1, run = 1, estimate = 1, procs = 1, user = 1, group = 1,
  jobspec = 1, after = 1, think = 1, mem = 1, partition = 1, queue = 1, name = 1, bank = 1}

local function check_job(job, level)
  if type(job) ~= "table" then
    error(fmt("bad argument #1 to 'submit' (table expected, got %s)", type(job)), level)
  end
  check.keys(job, JOB_FIELDS, 1, "submit", "field", level)
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
-- not be in the past); a field not in JOB_FIELDS raises.  Returns the job
-- id.
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
  local rec = {id = id, submit = job.submit, run = job.run, estimate = job.estimate,
    procs = job.procs, user = job.user, group = job.group, jobspec = job.jobspec,
    after = job.after, think = job.think, mem = job.mem, partition = job.partition,
    queue = job.queue, name = job.name, bank = job.bank}
  self:submit_record(rec)
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

-- The run time and the estimate a job runs with: a run of 0 counts as 1
-- (the clock's tick); no estimate (nil or <= 0) is the run time; a run
-- longer than its estimate ends at the estimate under walltime "kill"
-- (the third value is then true), and stretches the estimate to the run
-- under "extend".
local function limits(walltime, run, estimate)
  if run == 0 then run = 1 end
  if not estimate or estimate <= 0 or estimate == run then return run, run, false end
  if estimate > run then return run, estimate, false end
  if walltime == "kill" then return estimate, estimate, true end
  return run, run, false
end

function Sim:submit_record(job)
  local run, estimate, timeout = limits(self.walltime, job.run, job.estimate)
  -- a running digest of the jobs as given, to tell runs of other traces
  local d = self.digest
  for _, x in ipairs{job.id, job.submit, job.run, job.estimate or -1, job.procs or -1} do
    d = ((d * 31 + x) ~ (d >> 29)) & 0xFFFFFFFFFFFF
  end
  self.digest = d
  local rec = {id = job.id, submit = job.submit, run = run, estimate = estimate, limit = estimate,
    procs = job.procs, user = job.user, group = job.group, jobspec = job.jobspec,
    line = job.line, timeout = timeout or nil, after = job.after, think = job.think,
    partition = job.partition, queue = job.queue, mem = job.mem, bank = job.bank, state = "future",
    name = job.name, trace_estimate = job.estimate}
  if not rec.jobspec and rec.procs and rec.procs > 0 and (self.shaped or
      (rec.mem and rec.mem > 0 and self.mem_unit_kb) or (self.partitions and rec.partition)) then
    rec.constrained = true
  end
  if job.id > self.max_id then self.max_id = job.id end
  self.jobs[job.id] = rec
  self.arrivals:push(rec)
end

-- The actions of node events, and whether each names a property.
local ACTIONS = {down = false, up = false, drain = false, set = true, unset = true}
local ACTION_LIST = "down, up, drain, set or unset"

-- Whether key is a property name a node event may set: non-empty, no
-- '=', no space.
local function property_key(key)
  return type(key) == "string" and key ~= "" and not key:find("[=%s]")
end

-- Node events: {time =, node = name | path | hostlist, action = "down" |
-- "up" | "drain" | "set" | "unset", key =, value =}, in any order (kept
-- sorted by time, stable); any other field raises.  set gives the nodes
-- property key = value (a string), unset takes it away (nodes without it
-- are left as they are).
local EVENT_FIELDS = {time = 1, node = 1, action = 1, key = 1, value = 1}

function Sim:node_event(ev)
  if type(ev) ~= "table" then
    error(fmt("bad argument #1 to 'node_event' (table expected, got %s)", type(ev)), 2)
  end
  check.keys(ev, EVENT_FIELDS, 1, "node_event", "field")
  if math.type(ev.time) ~= "integer" or ev.time < self.now then
    error("bad argument #1 to 'node_event' (time must be an integer, not in the past)", 2)
  end
  local named = ACTIONS[ev.action]
  if named == nil then
    error(fmt("bad argument #1 to 'node_event' (action must be %s, got %s)", ACTION_LIST,
      tostring(ev.action)), 2)
  end
  if named and not property_key(ev.key) then
    error(fmt("bad argument #1 to 'node_event' (%s needs key, a property name without '=' "
      .. "or spaces)", ev.action), 2)
  end
  if ev.action == "set" and type(ev.value) ~= "string" then
    error("bad argument #1 to 'node_event' (set needs value, a string)", 2)
  end
  if not named and (ev.key ~= nil or ev.value ~= nil) then
    error(fmt("bad argument #1 to 'node_event' (%s takes no key or value)", ev.action), 2)
  end
  local idx, msg = self:resolve_nodes(ev.node)
  if not idx then error("bad argument #1 to 'node_event' (" .. msg .. ")", 2) end
  local list = self.node_events
  local e = {time = ev.time, action = ev.action, nodes = idx, key = ev.key, value = ev.value}
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

-- One line of an events file (text without its comment): the event, or
-- nil and the reason.
local function event_line(self, text)
  local t, action, nodes, extra = text:match("^%s*(%S+)%s+(%S+)%s+(%S+)%s*(.-)%s*$")
  if not t then return nil, "expected TIME ACTION NODES [KEY[=VALUE]]" end
  local time = math.tointeger(tonumber(t))
  if not time or time < 0 then
    return nil, fmt("time must be a non-negative integer, got '%s'", t)
  end
  local named = ACTIONS[action]
  if named == nil then
    return nil, fmt("unknown action '%s'%s (%s)", action, suggest.hint(action, ACTIONS),
      ACTION_LIST)
  end
  local ev = {time = time, action = action, node = nodes}
  if not named then
    if extra ~= "" then return nil, fmt("unexpected '%s' after the nodes", extra) end
  elseif action == "set" then
    local key, value = extra:match("^([^=%s]+)=(%S*)$")
    if not key then
      return nil, fmt("set needs KEY=VALUE after the nodes, got '%s'", extra)
    end
    ev.key, ev.value = key, value
  else
    if not property_key(extra) then
      return nil, fmt("unset needs a property name after the nodes, got '%s'", extra)
    end
    ev.key = extra
  end
  local idx, msg = self:resolve_nodes(nodes)
  if not idx then return nil, msg end
  return ev
end

-- Read node events from a file: "TIME ACTION NODES" a line (ACTION down,
-- up or drain; NODES a name, path or hostlist), "TIME set NODES KEY=VALUE"
-- and "TIME unset NODES KEY" for properties, '#' comments.  Raises
-- "FILE:LINE: reason".
function Sim:load_events(path)
  local f, err = io.open(path, "r")
  if not f then error(err, 0) end
  local n = 0
  for line in f:lines() do
    n = n + 1
    local text = line:gsub("#.*", "")
    if text:match("%S") then
      local ev, msg = event_line(self, text)
      if not ev then
        f:close()
        error(fmt("%s:%d: %s", path, n, msg), 0)
      end
      self:node_event(ev)
    end
  end
  f:close()
end

-- ---- starting and ending ---------------------------------------------------------------

local function level(self)
  self.acc:level(self.now, self.used, self.qlen, self.down_units)
end

-- Placements the Gantt chart keeps at most (a chart of more is unreadable
-- and would hold memory in proportion to the trace).
M.GANTT_MAX = 50000

-- The chart's rows for a job that starts on nodes list.
local function record_gantt(self, rec, list)
  local w = self.gantt_window
  if self.gantt and (not w or (self.now < w[2] and rec.end_ > w[1])) then
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

local sim_nodes = core.sim_nodes

-- The nodes a job holds (their numbers, in order), from its picks.
local function record_nodes(self, rec, vids)
  local list = sim_nodes(vids, self.node_of)
  rec.nodes = list
  return record_gantt(self, rec, list)
end

local sim_distinct, sim_intervals, sim_free = core.sim_distinct, core.sim_intervals,
  core.sim_free

-- Where a job that starts now was placed: the racks and the locality
-- domains its picks span (the nodes are rec.nodes), and with
-- allocations the ids of what it holds.  The cores it strands are
-- counted at the end of the pass (stranded).
local function record_placement(self, rec, vids)
  local nodes = rec.nodes
  rec.racks = self.rack_of and sim_distinct(nodes, self.rack_of) or nil
  if self.procs_as == "node" then
    -- whole nodes: every domain of each
    local d = 0
    for _, n in ipairs(nodes) do d = d + self.node_domains[n] end
    rec.domains = d
  else
    rec.domains = sim_distinct(vids, self.dom_of)
  end
  if self.allocations then
    rec.alloc = self.procs_as == "node" and sim_intervals(nodes, self.node_id)
      or sim_intervals(vids, self.core_id)
  end
  local sp = self.started_pass
  sp[#sp + 1] = rec
end

-- After a pass: the cores each job it started left free on its nodes
-- while jobs still wait (none when no job waits: nothing wanted them),
-- from the nodes' aggregates; nil when a node keeps none of cores.
local function stranded(self)
  local sp = self.started_pass
  if #sp == 0 then return end
  local waiting = self.qlen > 0
  local whole = self.procs_as == "node" or self.procs_as == "whole"
  local nv, list = self.node_vid, {}
  for i, rec in ipairs(sp) do
    sp[i] = nil
    if rec.state == "running" and rec.start == self.now then
      if whole or not waiting then
        rec.stranded = 0
      else
        local nodes = rec.nodes
        for k = 1, #nodes do list[k] = nv[nodes[k]] end
        for k = #nodes + 1, #list do list[k] = nil end
        rec.stranded = sim_free(self.g, list, "core")
      end
    end
  end
end

-- ---- start estimates ------------------------------------------------------------
--
-- A waiting job's start estimate is the start of its reservation (what
-- the loop promises it: every job under conservative, the first few
-- under backfill; none under fcfs and easy, whose passes reserve
-- nothing).  Each change is noted at the end of the pass that made it
-- (the loop puts the jobs whose reservation moved in self.touched): a
-- job keeps its first estimate and when it was given, its last, how many
-- it was shown, and the list of (time, estimate) changes, from which,
-- when it starts, the share of its wait during which the estimate shown
-- was within the band (metrics.within) is counted.

local function note_estimates(self)
  local touched = self.touched
  if not next(touched) then return end
  local now = self.now
  for id, rec in pairs(touched) do
    touched[id] = nil
    if rec.state == "queued" then
      local t = rec.reserved or false
      local shown = rec.p_shown
      if shown == nil then shown = false end
      if t ~= shown then
        rec.p_shown = t
        local h = rec.p_hist
        if not h then
          h = {}
          rec.p_hist = h
        end
        h[#h + 1] = now
        h[#h + 1] = t
        if t then
          if not rec.p_first then rec.p_first, rec.p_first_at = t, now end
          rec.p_last, rec.p_last_at = t, now
          rec.p_count = (rec.p_count or 0) + 1
        end
      end
    end
  end
end

local within = metrics.within

-- A job starts now: the seconds of its wait during which an estimate was
-- shown, and those during which it was within the band of the actual
-- start (rec.p_seen, rec.p_seen_within); its list of changes is dropped.
local function estimates_at_start(self, rec)
  local h = rec.p_hist
  rec.p_hist, rec.p_shown = nil, nil
  if not h then return end
  local start, wait = self.now, self.now - rec.submit
  local seen, good = 0, 0
  for k = 1, #h, 2 do
    local t, v = h[k], h[k + 1]
    local e = h[k + 2] or start
    if v and e > t then
      seen = seen + (e - t)
      if within(v - start, wait) then good = good + (e - t) end
    end
  end
  rec.p_seen, rec.p_seen_within = seen, good
end

-- A job started (the loop's on_start): its nodes, its end, the chart.
function M._on_start(self, rec, vids)
  rec.end_ = self.now + rec.run
  record_nodes(self, rec, vids)
  record_placement(self, rec, vids)
  estimates_at_start(self, rec)
  -- its cores, to count those on nodes that go out of use (nodes_out)
  if self.procs_as == "core" then rec.vids = vids end
  self.started = self.started + 1
  rec.gen = (rec.gen or 0) + 1
  rec.heap_gen = rec.gen
  self.completions:push(rec)
  if rec.end_ > self.now + rec.estimate then
    -- it outlives its prediction (a prediction is at most the request,
    -- which a run never passes): its end is moved then (extend)
    rec.ext_at, rec.ext_gen = self.now + rec.estimate, rec.gen
    self.extends:push(rec)
  end
  level(self)
end

-- A reservation begins at t (the loop's on_wake): a pass is due then.
function M._on_wake(self, t)
  if not self.wake_set[t] then
    self.wake_set[t] = true
    self.wakes:push(t)
  end
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
    nodes = rec.nodes and #rec.nodes or 0, estimate = rec.limit or rec.estimate, user = rec.user,
    state = state, requeues = rec.requeues or 0, racks = rec.racks, domains = rec.domains,
    stranded = rec.stranded, predicted_first = rec.p_first, predicted_last = rec.p_last,
    predictions = rec.p_count or 0, predicted_first_at = rec.p_first_at,
    seen = rec.p_seen, seen_within = rec.p_seen_within}
  self.acc:job(row)
  if self.out then
    row.hosts = hosts_of(self, rec)
    row.alloc, row.name, row.asked, row.group, row.queue, row.partition = rec.alloc, rec.name,
      rec.asked or rec.procs, rec.group, rec.queue, rec.partition
    row.after, row.think, row.mem, row.timeout = rec.after, rec.think, rec.mem, rec.timeout
    row.trace_estimate = rec.trace_estimate
    self.out(row)
  end
  if rec.gantt then
    for _, g in ipairs(rec.gantt) do
      g["end"] = self.now
      if state ~= "done" then g[state] = true end
    end
  end
  sched.charge(self, rec, (self.now - rec.start) * rec.procs)
end

local function stop_running(self, rec)
  sched.stop(self, rec)
  rec.gen = rec.gen + 1
end

local release

-- Jobs whose end time is remembered for the jobs that follow them (SWF
-- field 17): the last ENDED_KEPT at least, in two generations.
M.ENDED_KEPT = 32768

-- Job id left the system at time t (nil: it never ran): remember when, and
-- submit the jobs held until it ended, each its think time later.
function release(self, id, t)
  if t then
    self.ended[id] = t
    self.nended = self.nended + 1
    if self.nended >= M.ENDED_KEPT then
      self.ended_old, self.ended, self.nended = self.ended, {}, 0
    end
  end
  local deps = self.dependents[id]
  if not deps then return end
  self.dependents[id] = nil
  for _, d in ipairs(deps) do
    d.submit = (t or self.now) + (t and d.think or 0)
    d.state = "future"
    self.arrivals:push(d)
  end
end

-- Whether rec, arriving now, must wait for the job it follows: that job is
-- still in the system (rec is held until it ends), or it ended less than
-- rec's think time ago (rec arrives then).
local function held(self, rec)
  local id = rec.after
  if not id or id == rec.id then return false end
  local p = self.jobs[id]
  if p then
    local list = self.dependents[id]
    if not list then
      list = {}
      self.dependents[id] = list
    end
    list[#list + 1] = rec
    rec.state = "held"
    return true
  end
  local e = self.ended[id] or self.ended_old[id]
  if e and e + (rec.think or 0) > self.now then
    rec.submit = e + (rec.think or 0)
    self.arrivals:push(rec)
    return true
  end
  return false
end

-- A stopped job leaves the system as state ("done" or "killed"): its row
-- is written.
local function leave(self, rec, state)
  sched.forget(self, rec)
  rec.state = state
  self.finished = self.finished + 1
  emit(self, rec, state)
  release(self, rec.id, self.now)
end

-- A running job reached its predicted end and runs on: its end is moved
-- to its request (where it is killed at the latest), every reservation
-- dropped first (one may begin on its nodes at the old end) for the
-- pass to plan again in queue order.  When the planner cannot hold it so
-- (a node of it out of use), the job is left to its end, out of the plan.
function extend(self, rec)
  self.extended = self.extended + 1
  if not sched.move_end(self, rec, rec.start, rec.start + rec.limit) then
    sched.set_end(self, rec, rec.start, math.maxinteger)
  end
end

local function finish(self, rec)
  stop_running(self, rec) -- an end before the estimate: changed (sched.stop)
  if self.predictor then self.predictor:ended(rec.user, self.now - rec.start, rec.limit) end
  leave(self, rec, rec.timeout and "timeout" or "done")
end

-- Tell the loop what is out of use: the units on nodes not up, and what
-- each running job holds of them (a drained node's jobs run on), so that
-- plain requests stay counted (sched.set_out).
function nodes_out(self)
  local out_held = {}
  if self.not_up > 0 then
    local nodes, of = self.nodes, self.node_of
    local out = {}
    for _, rec in pairs(self.jobs) do
      if rec.state == "running" and rec.nodes then
        local any = false
        for _, n in ipairs(rec.nodes) do
          local o = out[n]
          if o == nil then
            o = nodes[n]:status() ~= "up"
            out[n] = o
          end
          if o then any = true end
        end
        if any then
          local u = 0
          if self.procs_as == "node" or not rec.vids then
            for _, n in ipairs(rec.nodes) do
              if out[n] then u = u + 1 end
            end
          else
            for _, v in ipairs(rec.vids) do
              if out[of[v]] then u = u + 1 end
            end
          end
          out_held[rec] = u
        end
      end
    end
  end
  sched.set_out(self, self.down_units, out_held)
end

-- A property set or taken away on the nodes: what the jobs may ask of
-- them (constraints) and what policies read changes, so the reservations
-- recorded on vertices under the old properties go; counted reservations
-- (every job a plain request: units, no vertices, no constraints) stay,
-- as no property enters a count.  Running jobs stay.
local function apply_property(self, ev)
  for _, n in ipairs(ev.nodes) do
    local v = self.nodes[n]
    if ev.action == "set" then
      assert(v:set_property(ev.key, ev.value))
    elseif v:property(ev.key) ~= nil then
      assert(v:remove_property(ev.key))
    end
  end
  self.changed = true
  if self.jobspecs ~= 0 or not self.count_mode then sched.drop_reservations(self) end
end

local function apply_event(self, ev)
  if ACTIONS[ev.action] then return apply_property(self, ev) end
  local status = ev.action == "drain" and "drained" or ev.action
  local hit = {}
  for _, n in ipairs(ev.nodes) do
    local v = self.nodes[n]
    local was = v:status()
    if was == "up" and status ~= "up" then
      self.not_up = self.not_up + 1
      self.down_units = self.down_units + self.node_units[n]
    elseif was ~= "up" and status == "up" then
      self.not_up = self.not_up - 1
      self.down_units = self.down_units - self.node_units[n]
    end
    v:set_status(status)
    -- the node's own status decides; the vertices inside follow it
    hit[n] = true
  end
  self.changed = true
  sched.drop_reservations(self)
  if ev.action ~= "down" then return nodes_out(self) end
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
      -- its estimates start again: those of before were of a start it had
      rec.p_first, rec.p_first_at, rec.p_last, rec.p_last_at, rec.p_count = nil, nil, nil, nil, nil
      rec.p_seen, rec.p_seen_within = nil, nil
      sched.enqueue(self, rec)
    else
      leave(self, rec, "killed")
    end
  end
  nodes_out(self)
  level(self)
end

-- The request of a job of P processors on nodes of C cores (the
-- cluster's smallest, self.node_size) under procs_as "fewest" or
-- "whole": its nodes (ceil(P / C)), the cores it asks of each, and the
-- units it holds; or nil and why it cannot run.
local function shape_of(self, p)
  local c = self.node_size
  local n = (p + c - 1) // c
  if n > #self.nodes then
    return nil, fmt("needs %d nodes of %d cores, the machine has %d nodes", n, c, #self.nodes)
  end
  if self.procs_as == "whole" then return n, c, n * c end
  local per = (p + n - 1) // n
  return n, per, n * per
end

-- The request of a job with a memory request or a partition, or of any
-- job under procs_as "fewest" or "whole": the request of its processors
-- (P slots of one core, P whole nodes, or its shape: shape_of), its
-- slots asking for memory from the cluster's pools (KB per processor,
-- rounded up to the pools' unit) and its nodes constrained to its
-- partition's.  A jobspec table or JSON text (a shape alone: one text a
-- shape, which the loop reads once an estimate), or nil and why the job
-- cannot run.
local function constrained_request(self, rec)
  local spec
  local per_slot = 1    -- processors a slot holds
  if self.shaped then
    local n, per, units = shape_of(self, rec.asked or rec.procs)
    if not n then return nil, per end
    rec.asked = rec.asked or rec.procs
    rec.procs = units
    if self.procs_as == "whole" then
      spec = {nodes = n, cores_per_node = per, exclusive = true}
      per_slot = per
    else
      spec = {nodes = n, tasks = rec.asked}
    end
  elseif self.procs_as == "node" then
    spec = {nodes = rec.procs, exclusive = true}
  else
    spec = {slots = rec.procs, cores_per_slot = 1}
  end
  local mem = rec.mem and rec.mem > 0 and self.mem_unit_kb
  if self.partitions and rec.partition then
    local prop = self.partitions[rec.partition]
    if not prop then return nil, fmt("no nodes for partition %s", tostring(rec.partition)) end
    spec.constraints = {prop}
  end
  if self.shaped and not mem and not spec.constraints then
    local key = spec.nodes .. ":" .. (spec.tasks or spec.cores_per_node)
    local text = self.shape_text[key]
    if not text then
      local jobspec = require("grove.jobspec")
      text = jobspec.to_json(assert(jobspec.build(spec)))
      self.shape_text[key] = text
    end
    return text
  end
  local t = assert(require("grove.jobspec").build(spec))
  if mem then
    local slot = t.resources[1]
    if slot.type ~= "slot" then slot = slot.with[1] end
    local amount = math.max(1, math.ceil(rec.mem * per_slot / self.mem_unit_kb - 1e-9))
    slot.with[#slot.with + 1] = {type = "memory", count = math.tointeger(amount) or amount}
  end
  return t
end

-- Give rec its request (rec.js); nil, or why it cannot run.
local function prepare(self, rec)
  if rec.constrained then
    local t, why = constrained_request(self, rec)
    if not t then return why end
    rec.jobspec = t
  end
  return (sched.admissible(self, rec))
end

local function admit(self, rec)
  self.submitted = self.submitted + 1
  -- planned on a prediction made as it arrives, from the jobs ended by now
  if self.predictor then rec.estimate = self.predictor:predict(rec.user, rec.limit) end
  self.acc:submitted(rec.submit)
  local why = prepare(self, rec)
  if why then
    self.left_out = self.left_out + 1
    self.jobs[rec.id] = nil
    rec.state = "left out"
    if self.report then self.report(rec, why) end
    release(self, rec.id, nil)
    return
  end
  sched.enqueue(self, rec)
end

-- The ctx handed to a queue policy (see docs/sim.md).
M.context = sched.context

-- ---- the clock ----------------------------------------------------------------------------

-- The first of heap h (completions, extends) whose job still runs as when
-- it was pushed (its gen, kept in field gen, is the job's), the others
-- popped; nil when none.
local function live_top(h, gen)
  local x = h:peek()
  while x and (x[gen] ~= x.gen or x.state ~= "running") do
    h:pop()
    x = h:peek()
  end
  return x
end

-- fn(self, rec) for each of h's jobs due by t (field key), in order,
-- that still runs as when it was pushed.
local function due_running(self, h, key, gen, t, fn)
  while true do
    local x = h:peek()
    if not x or x[key] > t then break end
    h:pop()
    if x[gen] == x.gen and x.state == "running" then fn(self, x) end
  end
end

-- The time of the next event, or nil when nothing is left.
function Sim:next_time()
  local t
  local c = live_top(self.completions, "heap_gen")
  if c then t = c.end_ end
  local x = live_top(self.extends, "ext_gen")
  if x and (not t or x.ext_at < t) then t = x.ext_at end
  local a = self.arrivals:peek()
  if a and (not t or a.submit < t) then t = a.submit end
  local e = self.node_events[self.next_event]
  if e and (not t or e.time < t) then t = e.time end
  local w = self.wakes:peek()
  -- (an instant whose reservations all moved has no pass due: sched.due)
  while w and (w <= self.now or not sched.due(self, w)) do
    self.wakes:pop()
    self.wake_set[w] = nil
    sched.woke(self, w)
    w = self.wakes:peek()
  end
  if w and self.qlen > 0 and (not t or w < t) then t = w end
  return t
end

-- Handle the next instant.  false when nothing is left, or when the next
-- event is after limit; nil, message, "ECANCELED" when the queue policy
-- failed (raised, or went past its budget, time or memory limit).
function Sim:step(limit)
  local t = self:next_time()
  if not t or (limit and t > limit) then return false end
  sched.set_now(self, t)
  self.steps = self.steps + 1
  due_running(self, self.completions, "end_", "heap_gen", t, finish)
  due_running(self, self.extends, "ext_at", "ext_gen", t, extend)
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
    if not held(self, a) then admit(self, a) end
    if not arr:peek() then self:pull() end
  end
  if self.reader and not arr:peek() then self:pull() end
  while self.wakes:peek() and self.wakes:peek() <= t do
    local w = self.wakes:pop()
    self.wake_set[w] = nil
    sched.woke(self, w)
  end
  level(self)
  local ran, msg, code = sched.pass(self)
  if ran == nil then return nil, msg, code end
  if ran then level(self) end
  stranded(self)
  note_estimates(self)
  if self.progress then self.progress(self) end
  return true
end

-- Run until nothing is left (or the clock would pass limit): the
-- simulation, or nil, message, "ECANCELED" as step, or when a signal
-- caught by grove.core.catch_stop arrived (the run stops between two
-- instants: "interrupted by SIGINT").  When nothing is left, the
-- allocator's free pages go back to the system (once, at the end: not as
-- each job leaves).
function Sim:run(limit)
  local steps = 0
  while true do
    local sig = stop_signal()
    if sig then
      core.progress_end(STEP)
      return nil, "interrupted by " .. sig, "ECANCELED"
    end
    local more, msg, code = self:step(limit)
    if more == nil then
      core.progress_end(STEP)
      return nil, msg, code
    end
    if not more then break end
    steps = steps + 1
    if steps % 64 == 0 then -- grove.core.progress: a terminal's line past a second, or a script's
      core.progress(STEP, self.finished, 0, fmt("%d jobs done, %d waiting, %d running, " ..
        "simulated time %d s", self.finished, self.qlen, self.running, self.now))
    end
  end
  core.progress_end(STEP)
  if not self:next_time() and not self.trimmed then
    self.trimmed = true
    core.trim_memory()
  end
  return self
end

-- Move the clock to t, handling every event up to and including t.
function Sim:advance(t)
  if math.type(t) ~= "integer" or t < self.now then
    error("bad argument #1 to 'advance' (an integer time, not in the past)", 2)
  end
  local ok, msg, code = self:run(t)
  if not ok then return nil, msg, code end
  if t > self.now then
    sched.set_now(self, t)
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

-- The earliest submit time of a job still to end (in the system, or read
-- from the trace and still to come), or nil when there is none: every row
-- still to be written is of a job submitted at that time or later.
function Sim:oldest_submit()
  local low = self.lookahead and self.lookahead.submit
  for _, rec in pairs(self.jobs) do
    if not low or rec.submit < low then low = rec.submit end
  end
  return low
end

-- Counts: submitted, started, finished, left_out, running, waiting.
function Sim:counts()
  return {submitted = self.submitted, started = self.started, finished = self.finished,
    left_out = self.left_out, running = self.running, waiting = self.qlen}
end

-- The metrics so far (grove.sim.metrics result), with run facts merged in.
function Sim:result(extra)
  local run = {queue = self.queue_policy.name, policy = self.policy_name,
    procs_as = self.procs_as, unit = self.unit, domain_level = self.domain_level,
    node_size = self.shaped and self.node_size or nil, racks_known = self.rack_of ~= nil,
    left_out = self.left_out, submitted = self.submitted,
    walltime = self.walltime, predict = self.predictor and self.predictor.method or nil,
    extended = self.predictor and self.extended or nil, trace_digest = fmt("%012x", self.digest),
    cluster_digest = self.cluster_digest}
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
