-- grove.sim.perqueue: a queue policy of its own for each batch queue (SWF
-- field 15, a job's `queue`).
--
--   local pq = assert(perqueue.new(loop, default_policy, params, opts))
--   sched.init(loop, {queue = pq, ...})
--
-- The parameters that configure the queues (--param, the same place as
-- the `queues` policy's priority_Q, units_Q and jobs_Q) gain policy_Q:
-- queue Q's jobs are scheduled by that queue policy (a name or a file).
-- Once one is given, every queue gets a policy instance of its own (its
-- policy_Q, else a fresh copy of the default, --queue) that sees only its
-- queue's waiting jobs; a scheduling pass runs them one after another,
-- by priority_Q (highest first, default 0), then by queue.  What the
-- machine holds (free units, running jobs, the clock) is shared.  The
-- simulator applies units_Q and jobs_Q to every queue: a job whose start
-- would pass its queue's limit is not shown to the policy and holds no
-- reservation.  A job without a queue is of queue -1 and takes the
-- default.  Parameters read by a queue's policy (ctx:param(NAME)) are
-- NAME_Q when given, else NAME.
--
-- Reservations a queue's policy makes (conservative, backfill) bind
-- every queue: a job of another queue starts only when it fits now
-- without moving them (its earliest start given every reservation is
-- now).  With reservations in the planner, each queue's first waiting
-- job holds one whatever its policy (PQ:hold_head), so no queue starves
-- another; with counted reservations (plain requests), easy's protection
-- of its head, counted, holds against its own queue's backfill only.  A
-- queue scheduled earlier in the pass has first pick of what is free.
--
-- The object stands where one queue policy stands in the loop
-- (grove.sched): bind, share, unshare, pcall("schedule"), bound_calls,
-- name, half_life; and for the priorities, policy_for (the policy whose
-- priority orders a job: its queue's), has_priority and reprioritize
-- (the soonest tick and any job end of the queues' policies).
local check = require("grove.check")
local queue = require("grove.sim.queue")
local sched = require("grove.sched")

local M = {}

local fmt = string.format

local function qkey(q)
  if q == nil then return -1 end
  return q
end

-- queues are numbers (SWF) or names (JSON traces): numbers first
local function qless(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then return ta == "number" end
  return a < b
end

local PQ = {}
PQ.__index = PQ

-- The policy names given per queue in params: {[queue] = spec}, or nil
-- when there is none.
function M.specs(params)
  local out
  for k, v in pairs(params or {}) do
    local q = type(k) == "string" and k:match("^policy_(.+)$")
    if q then
      out = out or {}
      out[math.tointeger(tonumber(q)) or q] = tostring(v)
    end
  end
  return out
end

-- Whether params set anything per queue (policy_Q, placement_Q,
-- reserve_depth_Q): then every queue is scheduled on its own.
function M.wanted(params)
  for k in pairs(params or {}) do
    if type(k) == "string" and (k:match("^policy_.") or k:match("^placement_.")
        or k:match("^reserve_depth_.")) then
      return true
    end
  end
  return false
end

-- A per-queue policy for loop (a table sched.init fills): default is the
-- loaded --queue policy, params the run's parameters, opts the queue
-- policies' limits (budget, memory, time).  The object, or nil,
-- message, code (a policy_Q that cannot be loaded, or queue policies
-- with different half-lives).
function M.new(loop, default, params, opts)
  local self = setmetatable({loop = loop, default = default, params = params or {},
    opts = opts or {}, subs = {}, placed = {}, order = {}, of = {}, waiting = {}}, PQ)
  local names = {}
  for q, spec in pairs(M.specs(params) or {}) do
    local p, msg, code = queue.load(spec, self.opts)
    if not p then return nil, fmt("policy_%s: %s", tostring(q), msg), code end
    self.subs[q] = p
    names[#names + 1] = q
  end
  table.sort(names, qless)
  local hl = default.half_life
  for _, q in ipairs(names) do
    local h = self.subs[q].half_life
    if h and hl and h ~= hl then
      return nil, fmt("policy_%s: half_life %s differs from %s's (%s): one half-life per run",
        tostring(q), tostring(h), default.name, tostring(hl)), "EINVAL"
    end
    hl = hl or h
  end
  self.half_life = hl
  -- priorities: whether any queue's policy gives one, and when they are
  -- asked again (every queue's jobs, at the soonest of their ticks)
  local every, ends
  for _, p in ipairs(names) do
    local pol = self.subs[p]
    self.has_priority = self.has_priority or pol.priority ~= nil
    local r = pol.reprioritize
    if r and r.every and (not every or r.every < every) then every = r.every end
    ends = ends or (r and r.ends)
  end
  self.has_priority = self.has_priority or default.priority ~= nil
  local r = default.reprioritize
  if r and r.every and (not every or r.every < every) then every = r.every end
  ends = ends or (r and r.ends)
  if every or ends then self.reprioritize = {every = every, ends = ends or nil} end
  local parts = {}
  for _, q in ipairs(names) do parts[#parts + 1] = fmt("%s=%s", tostring(q), self.subs[q].name) end
  self.name = fmt("%s (%s)", default.name, table.concat(parts, ", "))
  self.description = "a queue policy per queue"
  for _, q in ipairs(names) do self:sub(q) end
  -- the placement policies the parameters name, loaded now: a bad one
  -- is refused here, not when a job of its queue comes
  for k, spec in pairs(self.params) do
    if type(k) == "string" and (k == "placement" or k:match("^placement_")) then
      local ok, pmsg, pcode = sched.placement(loop, spec)
      if not ok then return nil, fmt("%s: %s", k, pmsg), pcode end
    end
  end
  return self
end

-- ---- a queue's view of ctx ------------------------------------------------------------

function PQ:param(q, name)
  local v = self.params[name .. "_" .. tostring(q)]
  if v == nil then v = self.params[name] end
  return v
end

-- What each queue's running jobs hold: {units = {[q] =}, jobs = {[q] =}},
-- counted once a pass and kept up to date as the pass starts jobs.
function PQ:held()
  local loop = self.loop
  local h = self.held_now
  if not h or h.pass ~= loop.passes then
    h = {pass = loop.passes, units = {}, jobs = {}}
    for rec in sched.by_est(loop) do
      local k = qkey(rec.queue)
      h.units[k] = (h.units[k] or 0) + (rec.procs or 0)
      h.jobs[k] = (h.jobs[k] or 0) + 1
    end
    self.held_now = h
  end
  return h
end

-- Whether rec may start now under its queue's limits.
function PQ:eligible(q, rec)
  local ul, jl = self:param(q, "units"), self:param(q, "jobs")
  if not ul and not jl then return true end
  local h = self:held()
  if ul and (h.units[q] or 0) + (rec.procs or 0) > ul then return false end
  if jl and (h.jobs[q] or 0) + 1 > jl then return false end
  return true
end

-- The ctx queue q's policy sees: base's, with the queue and the jobs
-- narrowed to q's.
function PQ:context(q, pol)
  local base, loop, pq = self.base, self.loop, self
  local ctx = {}
  for k, f in pairs(base) do ctx[k] = f end
  local list, list_version, pos = {}, -1, {}
  local limited = self:param(q, "units") ~= nil or self:param(q, "jobs") ~= nil
  local function rec_in(view, fname)
    if type(view) ~= "table" or math.type(view.id) ~= "integer" then
      error(fmt("bad argument #1 to '%s' (a job of ctx:queue() expected)", fname), 3)
    end
    local rec = loop.jobs[view.id]
    if rec and rec.state == "queued" and qkey(rec.queue) ~= q then
      error(fmt("bad argument #1 to '%s' (job %d is not of queue %s)", fname, view.id,
        tostring(q)), 3)
    end
    return rec
  end
  local function eligible(view)
    local rec = loop.jobs[view.id]
    return pq:eligible(q, rec) and not (loop.limits and sched.held(loop, rec))
  end
  -- q's eligible waiting jobs that keep(rec) accepts, in queue order, at
  -- most the queue depth
  local function collect(keep)
    local out = {}
    local cs, jobs = loop.cs, loop.jobs
    local id = cs:next()
    while id do
      local rec = jobs[id]
      if qkey(rec.queue) == q and pq:eligible(q, rec) and keep(rec) then
        out[#out + 1] = rec.view
      end
      id = cs:next(id)
    end
    if loop.queue_depth then
      for i = #out, loop.queue_depth + 1, -1 do out[i] = nil end
    end
    return out
  end
  local function unheld(rec) return not (loop.limits and sched.held(loop, rec)) end
  -- (a job that alone asks more than a limit has no start to plan)
  local function plannable(rec) return not (sched.held(loop, rec) and rec.hc_ever) end
  local held_list, held_version = {}, -1
  function ctx.queue(_, which)
    if which ~= nil and which ~= "held" then
      error("bad argument #1 to 'queue' (nil or \"held\" expected)", 2)
    end
    if which == "held" and loop.limits then
      -- the queue's waiting jobs, the ones a limit holds too (but those
      -- that alone ask more than a limit): grove.sched's ctx:queue("held")
      local version = sched.queue_version(loop)
      if version ~= held_version or limited then
        held_list = collect(plannable)
        sched.share_queue(pol, held_list, false, "queue+held")
        held_version = version
      end
      return held_list
    end
    local version = sched.queue_version(loop)
    if version ~= list_version or limited then
      list = collect(unheld)
      pos = sched.share_queue(pol, list, true)
      list_version = version
    end
    return list
  end
  function ctx.next(_, view, fit)
    if view ~= nil then rec_in(view, "next") end
    if limited then
      local l = ctx.queue() -- first: it makes pos again
      return sched.queue_after(l, pos, view and view.id, fit, eligible)
    end
    local v = base.next(base, view, fit)
    while v and qkey(v.queue) ~= q do v = base.next(base, v, fit) end
    return v
  end
  function ctx.reserved()
    local out = {}
    for _, v in ipairs(base.reserved()) do
      if qkey(v.queue) == q then out[#out + 1] = v end
    end
    return out
  end
  -- another queue's reservations: a start must not move them
  local function others_reserved()
    for _, rec in pairs(loop.reserved_set) do
      if qkey(rec.queue) ~= q then return true end
    end
    return false
  end
  local function started(rec)
    if limited then
      local h = pq:held()
      h.units[q] = (h.units[q] or 0) + (rec.procs or 0)
      h.jobs[q] = (h.jobs[q] or 0) + 1
    end
  end
  function ctx.start(_, view, opts)
    local rec = rec_in(view, "start")
    if type(opts) == "table" then check.keys(opts, sched.START_OPTIONS, 2, "start") end
    if opts ~= nil and type(opts) == "table" and opts.protect ~= nil then
      rec_in(opts.protect, "start")
    end
    if rec and rec.state == "queued" then
      if not pq:eligible(q, rec) then return false end
      if not rec.reserved and others_reserved() then
        local t = base.earliest(base, view)
        if t ~= base.clock() then return false end
      end
    end
    local ok = base.start(base, view, opts)
    if ok then started(rec) end
    return ok
  end
  -- the reservations q's jobs hold
  local function nreserved()
    local n = 0
    for _, r in pairs(loop.reserved_set) do
      if qkey(r.queue) == q then n = n + 1 end
    end
    return n
  end
  function ctx.reserve(_, view)
    local rec = rec_in(view, "reserve")
    if rec and rec.state == "queued" and not pq:eligible(q, rec) then return nil end
    local depth = math.tointeger(tonumber(pq:param(q, "reserve_depth")))
    if depth and rec and rec.state == "queued" and not rec.reserved and nreserved() >= depth then
      -- the queue's reserve depth is reached: no reservation, but a job
      -- that fits now still starts (as the loop's own reserve depth)
      if ctx.start(ctx, view) then return base.clock(), "started" end
      return nil
    end
    local t, how = base.reserve(base, view)
    if how == "started" then started(rec) end
    return t, how
  end
  function ctx.cancel(_, view)
    if view == nil then -- every reservation q's jobs hold
      local recs = {}
      for _, rec in pairs(loop.reserved_set) do
        if qkey(rec.queue) == q then recs[#recs + 1] = rec end
      end
      return sched.cancel_many(loop, recs)
    end
    rec_in(view, "cancel")
    return base.cancel(base, view)
  end
  -- the queue's own reservations dropped and its jobs planned again, in
  -- its order, each as ctx:reserve plans it (its eligibility and reserve
  -- depth)
  function ctx.replan()
    ctx.cancel(ctx)
    local now = loop.now
    for _, v in ipairs(ctx.queue()) do
      local rec = loop.jobs[v.id]
      if rec and rec.state == "queued" then
        if rec.reserved == now then
          ctx.start(ctx, v)
        elseif not rec.reserved then
          ctx.reserve(ctx, v)
        end
      end
    end
  end
  function ctx.earliest(_, view)
    local rec = rec_in(view, "earliest")
    if rec and rec.state == "queued" and not pq:eligible(q, rec) then return nil end
    return base.earliest(base, view)
  end
  function ctx.param(_, name, default)
    if type(name) ~= "string" then
      error("bad argument #1 to 'param' (string expected)", 2)
    end
    local v = pq:param(q, name)
    if v == nil then return default end
    return v
  end
  return ctx
end

-- ---- the loop's side ------------------------------------------------------------------

-- Queue q's policy, made from the default (a copy of its own) the
-- first time q is seen, and placed in the order of the pass.
function PQ:sub(q)
  local p = self.subs[q]
  if p and self.placed[q] then return p end
  if not p then
    p = self.default:reload()
    self.subs[q] = p
  end
  self.placed[q] = true
  self.waiting[q] = 0
  self.order[#self.order + 1] = q
  local prio = {}
  for _, k in ipairs(self.order) do prio[k] = tonumber(self:param(k, "priority")) or 0 end
  table.sort(self.order, function(a, b)
    if prio[a] ~= prio[b] then return prio[a] > prio[b] end
    return qless(a, b)
  end)
  if self.base then p:bind(self:context(q, p)) end
  local b = self.bounds
  if b then p:bound_calls(b[1], b[2], b[3], b[4]) end
  return p
end

-- The policy whose priority orders rec: its queue's.
function PQ:policy_for(rec)
  return self.subs[qkey(rec.queue)]
end

-- As a queue policy's (grove.sim.queue): for every queue's policy, and
-- for those of queues seen later.
function PQ:bound_calls(name, field, limit, unless)
  self.bounds = {name, field, limit, unless}
  for _, q in ipairs(self.order) do self.subs[q]:bound_calls(name, field, limit, unless) end
end

function PQ:bind(ctx)
  self.base = ctx
  self.bound = ctx
  for _, q in ipairs(self.order) do self.subs[q]:bind(self:context(q, self.subs[q])) end
end

-- Queue q's placement policy (placement_Q, or placement), loaded once
-- (grove.sched's placements), or nil for the loop's own; raises when it
-- does not load (M.new loads every one named first).
function PQ:placement(q)
  local spec = self:param(q, "placement")
  if spec == nil then return nil end
  return assert(sched.placement(self.loop, spec))
end

-- A waiting job's view, mirrored in its queue's policy; the job is
-- placed with its queue's placement policy.
function PQ:share(id, v)
  local q = qkey(v.queue)
  if self.of[id] == nil then
    self.of[id] = q
    self:sub(q)
    self.waiting[q] = self.waiting[q] + 1
    local rec = self.loop.jobs[id]
    if rec then rec.placement = self:placement(q) end
  end
  self.subs[q]:share(id, v)
end

function PQ:share_field(id, name, value)
  local q = self.of[id]
  if q ~= nil then self.subs[q]:share_field(id, name, value) end
end

function PQ:unshare(id)
  local q = self.of[id]
  if q == nil then return end
  self.of[id] = nil
  self.waiting[q] = self.waiting[q] - 1
  self.subs[q]:unshare(id)
end

-- The queues with waiting jobs in the order of this pass: by their
-- priority parameter, then by where each one's first job stands in the
-- queue of all jobs (the job manager's priority, then submit time), so
-- the queue whose first job comes first goes first, as one list of all
-- queues would start it; then by name.  The walk stops once every such
-- queue's first job is found.
function PQ:pass_order()
  local loop = self.loop
  local want, left = {}, 0
  for _, q in ipairs(self.order) do
    if self.waiting[q] > 0 then
      want[q] = math.huge
      left = left + 1
    end
  end
  local list = {}
  for q in pairs(want) do list[#list + 1] = q end
  if left > 1 then
    local cs, jobs = loop.cs, loop.jobs
    local id, i = cs:next(), 0
    while id and left > 0 do
      i = i + 1
      local q = qkey(jobs[id].queue)
      if want[q] == math.huge then
        want[q] = i
        left = left - 1
      end
      id = cs:next(id)
    end
  end
  local prio = {}
  for _, q in ipairs(list) do prio[q] = tonumber(self:param(q, "priority")) or 0 end
  table.sort(list, function(a, b)
    if prio[a] ~= prio[b] then return prio[a] > prio[b] end
    if want[a] ~= want[b] then return want[a] < want[b] end
    return qless(a, b)
  end)
  return list
end

-- One pass: each queue with waiting jobs, in the pass's order.  A job
-- at its queue's limit gives up its reservation first.
function PQ:pcall(hook)
  assert(hook == "schedule", "a per-queue policy runs only schedule")
  local loop = self.loop
  -- the heads' reservations of the last pass are planned again at the
  -- end of this one: kept, one made before resources came back would
  -- keep another queue's job off them now
  for id, rec in pairs(self.heads_held or {}) do
    if loop.jobs[id] == rec and rec.state == "queued" and rec.reserved and rec.view then
      self.base.cancel(self.base, rec.view)
    end
  end
  self.heads_held = {}
  for _, q in ipairs(self:pass_order()) do
    if self.waiting[q] > 0 then
      if self:param(q, "units") ~= nil or self:param(q, "jobs") ~= nil then
        for _, rec in pairs(loop.reserved_set) do
          if qkey(rec.queue) == q and not self:eligible(q, rec) then
            self.base.cancel(self.base, rec.view)
          end
        end
      end
      local p = self.subs[q]
      local ok, msg, code = p:pcall("schedule", p.bound)
      if not ok then return nil, msg, code end
      self:hold_head(q)
    end
  end
  return true
end

-- With reservations in the planner, the first waiting job of queue q
-- that did not start holds a reservation, whatever q's policy: a
-- reservation binds every queue, so the other queues' jobs start only
-- where they do not delay it, and no queue starves another (a large job
-- at the head of an overlapping queue starts by its estimate while the
-- others flow around it).  With counted reservations (plain requests)
-- the units are interchangeable and the queue's own policy protects its
-- head.
function PQ:hold_head(q)
  local loop = self.loop
  if loop.count_mode then return end
  local cs, jobs = loop.cs, loop.jobs
  local id = cs:next()
  while id do
    local rec = jobs[id]
    if qkey(rec.queue) == q and self:eligible(q, rec) then
      if rec.state == "queued" and not rec.reserved and rec.view then
        self.base.reserve(self.base, rec.view)
        if rec.reserved then self.heads_held[id] = rec end
      end
      return
    end
    id = cs:next(id)
  end
end

return M
