-- grove.sched: the scheduling loop, independent of what drives it.
--
--   local sched = require "grove.sched"
--   local loop = sched.new{graph = g, queue = "easy", policy = "low"}
--   sched.enqueue(loop, rec)      -- a job waits (rec: see below)
--   sched.pass(loop)              -- one pass of the queue policy (true,
--                                 -- false: none waits, nil, msg, "ECANCELED")
--   sched.stop(loop, rec)         -- a running job's resources are freed
--   sched.forget(loop, rec)       -- it leaves the loop
--
-- grove sim (its virtual clock, arrivals from a trace, completions, node
-- events) and the Flux adapter grove.flux (the broker's messages, real
-- time) both drive this one loop, so a queue policy and a placement policy
-- run unchanged under both.  The loop holds the waiting jobs (their order
-- in C, grove.core.sched: the queue policy's priority, the driver's, then
-- submit time, then id), the matcher that places them (allocations and
-- reservations in the graph's planner), and the ctx a queue policy sees
-- (docs/sim.md).
--
-- The loop's state lives in the driver's own table: sched.init(self,
-- opts) adds its fields to self (grove sim's object is a loop with a
-- driver around it), and the functions here take it as their first
-- argument.  The running jobs by estimated end, and the units they and
-- the counted reservations hold over time, are grove.sched.profile's
-- part of that state; the limits on what running jobs hold, and the
-- starts they allow, grove.sched.limits's.
--
-- A queue policy's priority hook is asked once a change, not once a
-- pass: when a job joins the queue (at the start of the next pass), when
-- the driver changes the job's own priority (M.prioritize), and for every
-- waiting job when the policy says its inputs moved (its `reprioritize`:
-- a tick of the clock, or each job's end; or ctx:reprioritize).  The
-- answer is kept in C (core.sched's policy priority), which orders the
-- queue: a pass reads it as it stands, however often.
--
-- The driver hears back through two fields it may set:
--   self.on_start(self, rec, vids)  a job started (vids: the vertex ids of
--                                   its picks of the processor type; none
--                                   when self.no_vids is set)
--   self.on_wake(self, t)           a reservation begins at t: a pass is
--                                   due then
--   self.before_pass(self)          called first in each pass
--   self.between()                  called between two steps of a pass
--                                   (each ctx:next and ctx:start), where
--                                   the loop's state is whole: the
--                                   driver may answer requests that only
--                                   read it, never change it
--   self.touched                    a table: the loop puts there (id ->
--                                   rec) every job that joins the queue
--                                   or whose reservation changes, for a
--                                   driver that tells only those
--
-- Time.  The loop counts time in ticks: self.tps ticks a second (1 in
-- grove sim, whose clock is whole seconds; 1000 in the Flux module, whose
-- clock is the broker's to the millisecond).  The clock, estimates,
-- planned starts and every window in the planner are ticks.  A queue
-- policy sees seconds whatever the loop counts (ctx:clock(), a job's
-- estimate and reserved, ctx:reserve, ctx:earliest, ctx:running,
-- ctx:wake, reprioritize.every, half_life): a policy runs unchanged under
-- both.  Under tps 1 nothing is converted (the numbers stay integers).
--
-- A job record: {id =, submit =, estimate =, procs = (units of the
-- processor type, or nil when a jobspec says), user =, jobspec = (a
-- table, a grove.jobspec, or its JSON text, or nil), priority = (default
-- 0)}; the loop adds
-- state ("queued", "running"), js (the jobspec it matches), reserved
-- (the planned start), start, est_end, view (what the queue policy sees),
-- unranked (its priority is to be asked), measured (procs is the units a
-- jobspec job was given, not what it asks).
local check = require("grove.check")
local core = require("grove.core")
local glimits = require("grove.limits")
local gpolicy = require("grove.policy")
local queue = require("grove.sim.queue")
local profile = require("grove.sched.profile")
local slimits = require("grove.sched.limits")

local M = {}

-- What running jobs hold over time and the counted reservations
-- (grove.sched.profile); the running jobs by estimated end and the units
-- out of use are the drivers' too, under this module's name.
local counting, capacity, set_vres = profile.counting, profile.capacity, profile.set_vres
local counted_earliest, shadow = profile.counted_earliest, profile.shadow
local est_insert, est_remove = profile.start_estimate, profile.stop_estimate
M.by_est, M.first_by_est = profile.by_est, profile.first_by_est
-- The limits' part of the state (grove.sched.limits)
local limit_start, admit, lim_count = slimits.start, slimits.admit, slimits.count
local lim_index = slimits.index
-- (a driver that moves a running job's end: the planners of what its
-- holders hold over time are made again, from its new end)
function M.start_estimate(self, rec)
  est_insert(self, rec)
  local plans, keys = self.lim_plans, rec.lim_run
  if plans and keys then
    for _, k in ipairs(keys) do plans[k] = nil end
  end
end
M.stop_estimate = est_remove
M.free_units, M.set_out = profile.free_units, profile.set_out

local fmt = string.format
local wall_clock = core.wall_clock

-- How long a search for a later start runs before it stops for a look
-- (the driver's between), when the driver looks: a reservation behind
-- thousands of others, or one that finds no start before the horizon,
-- tries tens of instants (3-18 ms at 16,384 nodes, more in a busy
-- broker), and a feasibility check waited for all of it.
local SEARCH_LIMIT = 0.001

-- ---- construction ------------------------------------------------------------------

local function load_placement(spec)
  if type(spec) ~= "string" then return spec end
  for _, b in ipairs(gpolicy.builtins) do
    if b == spec then return spec end
  end
  local p, msg, code = gpolicy.load(spec)
  if not p then return nil, msg, code end
  return p
end

-- The queue policy from a name, path or loaded policy; nil, msg, code.
function M.load_queue(q, opts)
  q = q or "fcfs"
  if type(q) == "string" then
    return queue.load(q, {budget = opts.budget, memory = opts.memory, time = opts.time})
  elseif q.bound then
    -- a policy serves one loop: its mirrors of jobs are that loop's
    return q:reload()
  end
  return q
end

-- Add the loop's state to self.  opts:
--   graph     the grove graph (required)
--   queue     queue policy: name, path or grove.sim.queue policy (fcfs)
--   policy    placement policy: a built-in name, a path or name of a Lua
--             policy, or a grove.policy (default "first")
--   unit      the processor type jobs count in: "core" or "node"
--   now       the clock to start from (default: the graph's)
--   reservations  "planner" to record every reservation in the planner
--             (default: counted when units are interchangeable)
--   queue_depth    the queue policy sees at most this many waiting jobs
--                  (the first ones; default all)
--   reserve_depth  at most this many jobs hold a reservation (default:
--                  no limit); ctx:reserve of one more returns nil
--   timed     count and time every match (core.sched's stats)
--   params    {name = value}: the queue policy's parameters (ctx:param)
--   tps       ticks a second, the loop's time unit (default 1: seconds)
--   budget, memory, time   the queue policy's limits
--   limits    what running jobs may hold (grove.limits.parse's answer;
--             M.set_limits changes it)
-- Any other key raises.  Returns self, or nil, message, code.
local INIT_OPTIONS = {graph = 1, queue = 1, policy = 1, unit = 1, now = 1, reservations = 1,
  queue_depth = 1, reserve_depth = 1, timed = 1, params = 1, tps = 1, budget = 1, memory = 1,
  time = 1, limits = 1}
-- new's: init's and total
local NEW_OPTIONS = {total = 1}
for k in pairs(INIT_OPTIONS) do NEW_OPTIONS[k] = 1 end

local function init(self, opts)
  local g = opts.graph
  local q, msg, code = M.load_queue(opts.queue, opts)
  if not q then return nil, msg, code end
  self.g = g
  self.queue_policy = q
  self.tps = opts.tps or 1
  self.unit = opts.unit or "core"
  if opts.now then g:set_now(opts.now) end
  self.now = g:now()
  self.jobs, self.qlen, self.running, self.used = self.jobs or {}, 0, 0, 0
  self.changed = true
  self.usage = {}
  -- usage decayed by the queue policy's half-life (ctx:decayed_usage):
  -- per key {v =, t =}, v unit-seconds as of time t
  if q.half_life then self.decay = {total = {}, user = {}, group = {}} end
  self.passes, self.jobspecs = 0, 0
  -- the searches' limit while the driver looks, the looks inside searches
  -- that stopped at it, and their time (look)
  self.search_limit, self.search_stops, self.looked_s = SEARCH_LIMIT, 0, 0
  self.count_mode = opts.reservations ~= "planner"
  self.queue_depth, self.reserve_depth = opts.queue_depth, opts.reserve_depth
  self.params = opts.params or {}
  self.nreserved, self.timed = 0, opts.timed
  -- the queue policy's priority: whether any hook gives one, the jobs
  -- whose priority is to be asked, whether every waiting job's is (its
  -- inputs moved), and the next tick of its reprioritize.every
  self.ranks = q.priority ~= nil or q.has_priority == true
  self.unranked, self.rank_all, self.rank_tick = {}, false, nil
  self.reserved_set = {}     -- id -> rec of the waiting jobs with a reservation
  -- time -> the reservations that begin then; time -> true for a pass a
  -- queue policy asked for (ctx:wake): the passes due (M.due)
  self.starts_at, self.wakes_asked = {}, {}
  self.sizes, self.min_size = {}, nil  -- units -> waiting jobs asking that many; the least
  self.free_cache, self.by_est = {}, {}
  -- running jobs -> the units they hold on nodes out of use (M.set_out),
  -- and their sum
  self.held, self.held_units = {}, 0
  -- the requests that did not fit in this pass (see nofit_of)
  self.nofit, self.plan_gen, self.room_gen = {}, 0, 0
  self.js_cached = 0
  self.text_cache, self.text_cached = {}, 0
  self.not_up = self.not_up or 0
  self.cs = core.sched()
  self.cs:set_now(self.now)
  self.m = core.matcher(g)
  local pl
  pl, msg, code = M.placement(self, opts.policy or "first")
  if not pl then return nil, msg, code end
  self.pl0 = pl
  local ok, e = M.use_placement(self, nil)
  if not ok then return nil, e, "EINVAL" end
  M.set_limits(self, opts.limits)
  return self
end

function M.init(self, opts)
  check.arg(opts, "table", 2, "init")
  check.keys(opts, INIT_OPTIONS, 2, "init")
  return init(self, opts)
end

-- A placement policy by spec (a built-in name, a Lua policy's name or
-- path, or a loaded grove.policy), loaded once a loop: {p = what
-- m:set_policy takes, name =, fast = (a built-in: alike jobs are placed
-- alike), lean = (the lean core.sim_match places with it: every policy,
-- a Lua one in its sandbox as m:match runs it), js_cache = (the requests
-- made for it)}, or nil, message, code.
function M.placement(self, spec)
  self.placements = self.placements or {}
  local pl = self.placements[spec]
  if pl then return pl end
  local p, msg, code = load_placement(spec)
  if not p then return nil, msg, code end
  pl = {p = p, name = type(p) == "string" and p or p:name(),
    fast = type(p) == "string" and core.sim_match ~= nil, lean = core.sim_match ~= nil,
    js_cache = {}}
  self.placements[spec] = pl
  return pl
end

-- Make rec's placement policy (rec.placement; nil or no rec: the loop's
-- own) the matcher's.  true, or nil and the message.
function M.use_placement(self, rec)
  local pl = rec and rec.placement or self.pl0
  if pl == self.pl_cur then return true end
  local ok, e = self.m:set_policy(pl.p)
  if not ok then return nil, e end
  self.pl_cur, self.policy_name, self.fast, self.lean = pl, pl.name, pl.fast, pl.lean
  return true
end

-- The units of the processor type the graph has (cores, or nodes).
function M.count_units(self)
  self.known_types = nil
  self.text_cache, self.text_cached = {}, 0   -- read with the types of before
  if self.unit == "node" then return self.g:count("node") end
  return core.sched_units(self.g, "core")
end

-- Make the ctx and bind the queue policy to it (after self.total is set).
function M.bind(self)
  self.ctx = M.context(self)
  self.queue_policy:bind(self.ctx)
end


-- A new loop on its own (no driver fields): see M.init for opts, and
-- total (the units a queue policy sees; default: counted in the graph).
function M.new(opts)
  check.arg(opts, "table", 1, "new")
  check.keys(opts, NEW_OPTIONS, 1, "new")
  local self, msg, code = init({}, opts)
  if not self then return nil, msg, code end
  self.total = opts.total or M.count_units(self)
  M.bind(self)
  return self
end

-- A time or span of the loop (ticks) in seconds, as a queue policy sees
-- it (nil stays nil; under tps 1, the number as it is).
local function secs(self, t)
  local tps = self.tps
  if tps == 1 or t == nil then return t end
  local s = t / tps
  return math.tointeger(s) or s
end
M.secs = secs

-- Seconds (a number) in ticks, rounded up (a start or an end the loop
-- must not place early); a number within a millionth of a tick of a whole
-- tick is that tick, so that seconds written from ticks come back exact.
function M.ticks(self, s)
  local tps = self.tps
  local t = s * tps
  local r = math.floor(t + 0.5)
  if math.abs(t - r) <= 1e-6 then return math.tointeger(r) or r end
  return math.tointeger(math.ceil(t)) or math.ceil(t)
end

-- Move the clock to t (the graph's and the loop's).
function M.set_now(self, t)
  self.now = t
  self.g:set_now(t)
  self.cs:set_now(t)
end

-- ---- jobs in ------------------------------------------------------------------

-- Built-in placement policies that only order candidates (no choose or
-- score hook looks at the request): under them a whole-node job may be
-- asked for as bare nodes (spec/sim_nodes_spec.lua checks the placements
-- are those of the request as written).
local BARE_NODES = {first = true, low = true, high = true, lonode = true, hinode = true,
  lonodex = true, hinodex = true, firstnodex = true}

-- Jobspecs given as JSON text (what a Flux alloc request carries) are
-- kept by text, as read for each estimate they were matched with: a
-- stream of jobs names a few distinct jobspecs, and each is decoded and
-- read once instead of once a job.  The texts kept are bounded (the
-- cache starts again past TEXT_MAX readings) and forgotten when the
-- graph's types are (M.count_units), since a reading depends on them.
local TEXT_MAX = 1024

-- What the decoded table leaves out: what the loop reads from the text
-- itself through the C reader (resources, tasks), and the submitter's
-- environment, which nothing here reads (a jobspec as submitted holds
-- the whole of it, as in a feasibility check at submit: kilobytes made
-- into tables and dropped).
local TEXT_OMIT = {"resources", "tasks", "attributes.system.environment"}

-- The entry of text: {t = the decoded table without TEXT_OMIT (not to be
-- changed), js = {estimate -> grove.jobspec}}, or nil, message.
local function text_entry(self, text)
  local e = self.text_cache[text]
  if e then return e end
  local t, err = core.json_decode(text, "jobspec", TEXT_OMIT)
  if type(t) ~= "table" then return nil, err or "a JSON object expected" end
  if self.text_cached >= TEXT_MAX then self.text_cache, self.text_cached = {}, 0 end
  e = {t = t, js = {}}
  self.text_cache[text] = e
  self.text_cached = self.text_cached + 1
  return e
end

-- The jobspec text decoded (a table the caller must not change, without
-- its resources, tasks and environment: see TEXT_OMIT), kept for the
-- requests of the jobs that name the same text; or nil, message.
function M.jobspec_table(self, text)
  local e, msg = text_entry(self, text)
  if not e then return nil, msg end
  return e.t
end

-- The jobspec rec is matched with: its own (duration set to the
-- estimate), or procs slots of one core, or procs whole nodes.  A
-- grove.jobspec, or nil, message.
function M.request(self, job)
  if job.jobspec then
    local t = job.jobspec
    local e
    -- the graph's types, read once: a graph of many names makes the
    -- reading cost per job what it costs per name (M.count_units, which
    -- a driver calls when the resources change, forgets them)
    local known = self.known_types
    if not known then
      known = {types = self.m:known_types()}
      self.known_types = known
    end
    local js, msg
    if type(t) == "string" then
      e, msg = text_entry(self, t)
      if not e then return nil, msg end
      js = e.js[job.estimate]
      if js then return js end
      -- the text itself, with the estimate as its duration: JSON read
      -- into Lua tables and back would lose what an empty {} was
      js, msg = core.jobspec_parse(t, {format = "json", types = known.types,
        duration = job.estimate})
    else
      if type(t) == "userdata" then t = t:to_table() end
      t.attributes = t.attributes or {}
      t.attributes.system = t.attributes.system or {}
      t.attributes.system.duration = job.estimate
      js, msg = core.jobspec_from_table(t, known)
    end
    if not js then return nil, msg end
    if e then
      if self.text_cached >= TEXT_MAX then self.text_cache, self.text_cached = {}, 0 end
      e.js[job.estimate] = js
      self.text_cached = self.text_cached + 1
    end
    return js
  end
  local key = job.procs * 1099511627776 + job.estimate
  -- the request depends on the placement policy (bare nodes below):
  -- one cache a policy
  local pl = job.placement or self.pl0
  local cache = pl.js_cache
  local js = cache[key]
  if js then return js end
  local spec
  if self.unit == "node" then
    spec = {nodes = job.procs, exclusive = true, duration = job.estimate}
  else
    spec = {slots = job.procs, cores_per_slot = 1, duration = job.estimate}
  end
  local t = assert(require("grove.jobspec").build(spec))
  if self.unit == "node" and pl.fast and BARE_NODES[pl.name] then
    -- Whole nodes with nothing below them named: the matcher takes each
    -- node as one exclusive pick and records it there, instead of placing
    -- a slot inside and listing every vertex the node holds (the same
    -- nodes: an exclusive node must be untouched whatever it is asked
    -- for).
    t.resources[1].with = nil
  end
  js = assert(core.jobspec_from_table(t))
  if self.js_cached >= 4096 then
    for _, other in pairs(self.placements) do other.js_cache = {} end
    self.js_cached = 0
  end
  pl.js_cache[key] = js
  self.js_cached = self.js_cached + 1
  return js
end

-- A time or span of the loop as text in seconds: whole, or to the
-- millisecond.
local function seconds_text(self, ticks)
  local s = secs(self, tonumber(ticks))
  if math.type(s) == "integer" then return tostring(s) end
  return (fmt("%.3f", s):gsub("0+$", ""))
end

-- The matcher's reasons name the horizon's times and spans as it counts
-- them, in the loop's ticks: said in seconds.
local function in_seconds(self, msg)
  if self.tps == 1 then return msg end
  local function S(x) return seconds_text(self, x) end
  msg = msg:gsub("job duration %((%d+)s%) exceeds the resource set's expiration %((%d+), "
    .. "(%d+)s after the earliest start (%d+)%)", function(d, h, span, t)
      return fmt("job duration (%ss) exceeds the resource set's expiration (%s, %ss after "
        .. "the earliest start %s)", S(d), S(h), S(span), S(t))
    end)
  msg = msg:gsub("the resource set's expiration %((%d+)%) is not after the job's earliest "
    .. "start %((%d+)%)", function(h, t)
      return fmt("the resource set's expiration (%s) is not after the job's earliest start (%s)",
        S(h), S(t))
    end)
  return msg
end

-- Whether the jobspec job rec (rec.js set) could ever be placed here: nil,
-- or the reason it cannot and the code (ENODEV: never on this machine).
function M.unsatisfiable(self, rec)
  local ok, m2, code = self.m:match(rec.js, "satisfiability")
  if not ok and code == "ENODEV" then
    -- the matcher's own reason when it has one (a level or a type the
    -- machine cannot meet, the resource set's expiration)
    if m2 ~= "unsatisfiable request" then return in_seconds(self, tostring(m2)), "ENODEV" end
    return "cannot fit the machine", "ENODEV"
  elseif not ok and code ~= "EBUSY" then
    return tostring(m2), code
  end
  return nil
end

-- Whether rec can ever run here: nil when it can (rec.js is then set), or
-- the reason it cannot, and the code (ENODEV: never on this machine).
-- With later, a jobspec job's request is read but whether it could ever
-- be placed is left to the caller (M.unsatisfiable, when a match did not
-- place it: a job that starts needs no second look).
function M.admissible(self, rec, later)
  if rec.jobspec then
    local js, msg = M.request(self, rec)
    if not js then return "bad jobspec: " .. tostring(msg), "EINVAL" end
    rec.js = js
    if not later then return M.unsatisfiable(self, rec) end
  elseif rec.procs <= 0 then
    return "no processors", "EINVAL"
  elseif rec.procs > self.total then
    return fmt("needs %d %ss, the machine has %d", rec.procs, self.unit, self.total), "ENODEV"
  else
    rec.js = M.request(self, rec)
  end
  return nil
end

-- ---- the queue ------------------------------------------------------------------------

local function view_of(self, rec)
  local v = rec.view
  if not v then
    v = {id = rec.id, submit = rec.submit, procs = rec.procs, estimate = secs(self, rec.estimate),
      user = rec.user, group = rec.group, queue = rec.queue, partition = rec.partition,
      priority = rec.priority}
    rec.view = v
  end
  return v
end

-- What the C queue (its reservation, for a driver's estimates), the
-- driver (touched) and the queue policy's view (a mirror in its sandbox)
-- are told of rec's reservation: its own, when they were told another.
local function publish(self, rec)
  local t = rec.reserved
  if rec.shown ~= t then
    rec.shown = t
    self.cs:reserve(rec.id, t)
    local touched = self.touched
    if touched then touched[rec.id] = rec end
  end
  local v = rec.view
  local ts = secs(self, t)
  if v and v.reserved ~= ts then
    v.reserved = ts
    if rec.state == "queued" then self.queue_policy:share_field(rec.id, "reserved", ts) end
  end
end

-- The job's reservation, in its record, and told (publish) at once, or
-- at the end of a replanning (self.quiet: a job planned where it was
-- before is not told again).
local function set_reserved(self, rec, t)
  local was = rec.reserved
  -- (the index of who holds what over time follows: out at the old
  -- window, in at the new)
  local moved = was ~= t and self.lim_res
  if moved and was ~= nil then lim_index(self, "lim_res", rec, false) end
  if (was ~= nil) ~= (t ~= nil) then
    self.nreserved = self.nreserved + (t ~= nil and 1 or -1)
    self.reserved_set[rec.id] = t ~= nil and rec or nil
  end
  if was ~= t then
    local at = self.starts_at
    if was then
      local n = at[was] - 1
      at[was] = n > 0 and n or nil
    end
    if t then at[t] = (at[t] or 0) + 1 end
  end
  rec.reserved = t
  if moved and t ~= nil then lim_index(self, "lim_res", rec, true) end
  local quiet = self.quiet
  if quiet then
    quiet[#quiet + 1] = rec
  else
    publish(self, rec)
  end
end

local drop_reservations, cancel_reservation, reserve

-- The sizes of the waiting jobs (units asked; 0 for a jobspec job whose
-- count is not known yet), counted, so that "does any waiting job fit in
-- n units" needs no walk of the queue (ctx:next's fit); and each in the
-- C queue, which passes those larger than a fit (nil: never passed).
local function size_in(self, rec)
  local p = rec.procs or 0
  self.sizes[p] = (self.sizes[p] or 0) + 1
  if self.min_size and p < self.min_size then self.min_size = p end
  self.cs:set_size(rec.id, math.tointeger(rec.procs))
end

local function size_out(self, rec, p)
  p = p or rec.procs or 0
  local n = self.sizes[p] - 1
  self.sizes[p] = n > 0 and n or nil
  if n == 0 and p == self.min_size then self.min_size = nil end
end

-- The least size among the waiting jobs (nil: none waits).
local function min_size(self)
  local m = self.min_size
  if not m then
    for p in pairs(self.sizes) do
      if not m or p < m then m = p end
    end
    self.min_size = m
  end
  return m
end

-- A waiting job's queue policy priority is to be asked (at the start of
-- the next pass).
local function unrank(self, rec)
  if self.ranks and not rec.unranked then
    rec.unranked = true
    self.unranked[#self.unranked + 1] = rec
  end
end

-- rec waits: it joins the queue in its place (a job that ran before goes
-- back where its priorities, submit time and id put it).
function M.enqueue(self, rec)
  local cs = self.cs
  if rec.in_cs then
    assert(cs:requeue(rec.id))
    if rec.measured then
      -- what a jobspec job was given last time, not what it asks: it is
      -- known again when it starts (so no count refuses it before)
      rec.procs, rec.measured = nil, nil
      if rec.view then rec.view.procs = nil end
    end
  else
    local user = math.type(rec.user) == "integer" and rec.user >= 0
      and rec.user <= 0xffffffff and rec.user or 0
    assert(cs:add(rec.id, rec.priority or 0, rec.submit, user))
    rec.in_cs = true
    if rec.jobspec then
      if self.jobspecs == 0 and self.count_mode then drop_reservations(self) end
      self.jobspecs = self.jobspecs + 1
    end
  end
  rec.state = "queued"
  rec.hc_L = nil   -- what a limit held of it before (M.held) is asked again
  self.qlen = self.qlen + 1
  size_in(self, rec)
  if self.touched then self.touched[rec.id] = rec end
  self.queue_policy:share(rec.id, view_of(self, rec))
  unrank(self, rec)
end

-- The driver's priority of a waiting or running job changes (Flux's
-- sched.prioritize): a waiting job moves in the queue, and its queue
-- policy priority, which may read it, is asked again.
function M.prioritize(self, rec, p)
  rec.priority = p
  self.cs:prioritize(rec.id, p)
  local v = rec.view
  if v then
    v.priority = p
    if rec.state == "queued" then self.queue_policy:share(rec.id, v) end
  end
  if rec.state == "queued" then unrank(self, rec) end
end

-- The waiting records in queue order.
function M.waiting(self)
  local ids, n = self.cs:ids(self.ids_buf)
  self.ids_buf = ids
  local jobs, out = self.jobs, {}
  for i = 1, n do out[i] = jobs[ids[i]] end
  return out
end

-- ---- limits ------------------------------------------------------------------------
--
-- What running jobs may hold, per user, bank, queue and overall, and the
-- earliest start they allow a waiting job: grove.sched.limits.

M.set_limits, M.limit_start, M.earliest = slimits.set, slimits.start, slimits.earliest
M.limit_more, M.held, M.limit_hold = slimits.more, slimits.held, slimits.hold

-- Drop the reservations of the held jobs their limits no longer allow
-- (grove.sched.limits.due_held); the number dropped.
function M.drop_held(self)
  local list = slimits.due_held(self)
  if #list > 0 then
    M.cancel_many(self, list)
    self.changed = true
  end
  return #list
end
-- ---- starting and ending ---------------------------------------------------------------

local match

-- The driver's look in the middle of a search that stopped at its limit;
-- its time is counted apart (self.looked_s), not as the match's.
local function look(self)
  local t0 = wall_clock()
  self.between()
  self.search_stops = self.search_stops + 1
  self.looked_s = self.looked_s + (wall_clock() - t0)
end

-- The search limit of a match in mode, or nil: only a search for a later
-- start stops, and only when the driver looks.
local function limit_of(self, mode)
  return mode == "allocate_orelse_reserve" and self.between and self.search_limit or nil
end

-- try(after) (a match whose search stops at its limit: nil, message,
-- "ETIMEDOUT" and where it goes on) called until it ends, with the
-- driver's look at each stop: the search goes on from where it stopped,
-- which finds what the whole search would (a look answers requests that
-- read: nothing the search reads changes).  What try returned last.
local function searching(self, try, after)
  while true do
    local a, b, code, resume, e = try(after)
    if a or code ~= "ETIMEDOUT" then return a, b, code, resume, e end
    after = resume
    look(self)
  end
end

-- m:match(js, "allocate_orelse_reserve", id, opts) with the driver's looks
-- while it searches (searching).  opts: m:match's (after, picks), not
-- changed.
function M.reserve_looking(self, m, js, id, opts)
  local limit = limit_of(self, "allocate_orelse_reserve")
  if not limit then return m:match(js, "allocate_orelse_reserve", id, opts) end
  local o = {picks = opts and opts.picks, limit = limit}
  local j, msg, code = searching(self, function(after)
    o.after = after
    return m:match(js, "allocate_orelse_reserve", id, o)
  end, opts and opts.after)
  return j, msg, code
end

-- Match rec in mode ("allocate" or "allocate_orelse_reserve"): a job
-- {state =, start =, vids = {vertex id, ...}, units =}, or nil, message,
-- code.  With a built-in placement policy the lean core.sim_match does it
-- (only the picks of the processor type come back; for a jobspec job,
-- every pick and the units of that type, units); a Lua policy goes through
-- m:match, which runs it in its sandbox.  A failed "allocate" answers
-- EBUSY without the matcher looking whether the request could ever fit
-- (busy): no caller tells one from the other (each is "not now"), and a
-- pass tries every waiting job again; whether a job could ever run is
-- asked once, when it arrives (M.admissible, M.unsatisfiable).
function match(self, rec, mode, after)
  if self.timed then
    -- wall-clock, as Fluxion's match time: os.clock's CPU time of the
    -- process is a system call that sums every thread of it (a broker
    -- runs dozens), twice a match; the looks of a search that stopped at
    -- its limit left out
    local t0, l0 = wall_clock(), self.looked_s
    self.timed = false
    local j, msg, code = match(self, rec, mode, after)
    self.timed = true
    self.cs:count_match(j ~= nil, wall_clock() - t0 - (self.looked_s - l0))
    return j, msg, code
  end
  if (rec.placement or self.pl0) ~= self.pl_cur then
    local ok, e = M.use_placement(self, rec)
    if not ok then return nil, e, "EINVAL" end
  end
  local limit = limit_of(self, mode)
  if self.lean then
    local plain = not rec.jobspec
    local m, js, id = self.m, rec.js, rec.id
    local ptype, jtype = plain and self.unit or nil, not plain and self.unit or nil
    if self.no_vids then ptype = false end
    local state, start, end_or_code, vids, units
    local busy = mode == "allocate"
    if limit then
      -- a look only reads: the matcher's placement policy stays rec's
      state, start, end_or_code, vids, units = searching(self, function(a)
        return core.sim_match(m, js, mode, id, ptype, jtype, a, limit, busy)
      end, after)
    else
      state, start, end_or_code, vids, units = core.sim_match(m, js, mode, id, ptype, jtype, after,
        nil, busy)
    end
    if not state then return nil, start, end_or_code end
    return {state = state, start = start, vids = vids, units = units}
  end
  local j, msg, code
  if mode == "allocate_orelse_reserve" then
    j, msg, code = M.reserve_looking(self, self.m, rec.js, rec.id, after and {after = after} or nil)
  else
    j, msg, code = self.m:match(rec.js, mode, rec.id, {after = after, busy = mode == "allocate"})
  end
  if not j then return nil, msg, code end
  local vids = {}
  for i, p in ipairs(j.picks) do vids[i] = p.vertex:vid() end
  return {state = j.state, start = j.start, vids = vids}
end
M.match = match

local function begin_run(self, rec, job)
  rec.state = "running"
  rec.start = self.now
  rec.est_end = self.now + rec.estimate
  if rec.reserved then
    self.nreserved = self.nreserved - 1
    self.reserved_set[rec.id] = nil
    local at, was = self.starts_at, rec.reserved
    local n = at[was] - 1
    at[was] = n > 0 and n or nil
  end
  if rec.vres then set_vres(self, rec, nil) end
  lim_index(self, "lim_res", rec, false)
  rec.reserved, rec.shown = nil, nil
  if rec.view then rec.view.reserved = nil end
  self.queue_policy:unshare(rec.id)
  assert(self.cs:start(rec.id))
  size_out(self, rec)
  if not rec.procs then
    rec.procs = job.units or self.m:info(rec.id).counts[self.unit] or 0
    rec.measured = true
    if rec.view then rec.view.procs = rec.procs end
  end
  self.used = self.used + rec.procs
  self.running = self.running + 1
  self.qlen = self.qlen - 1
  est_insert(self, rec)
  lim_count(self, rec, 1)
  profile.shadow_add(self, rec)
  M.bound_starts(self)
  if self.on_start then self.on_start(self, rec, job.vids) end
end
M.begin_run = begin_run

-- A job that runs already (a restarted scheduler's, placed by
-- m:register under rec.id) joins the loop as running since start.
function M.adopt(self, rec, start)
  local info = self.m:info(rec.id)
  rec.state = "running"
  rec.start = start
  rec.est_end = start + rec.estimate
  rec.procs = info.counts[self.unit] or 0
  local user = math.type(rec.user) == "integer" and rec.user >= 0
    and rec.user <= 0xffffffff and rec.user or 0
  assert(self.cs:add_running(rec.id, rec.priority or 0, rec.submit, user, rec.estimate, start))
  rec.in_cs = true
  if rec.jobspec then self.jobspecs = self.jobspecs + 1 end
  self.jobs[rec.id] = rec
  self.used = self.used + rec.procs
  self.running = self.running + 1
  est_insert(self, rec)
  lim_count(self, rec, 1)
end

-- A running job gives back part of what it holds (the vertices already
-- released in the matcher): its count of units follows.
function M.shrunk(self, rec)
  local info = self.m:info(rec.id)
  local procs = info and info.counts[self.unit] or 0
  self.used = self.used - (rec.procs - procs)
  rec.procs = procs
  if self.lim_count then
    lim_count(self, rec, -1)
    lim_count(self, rec, 1)
  end
end

-- A running job stops: its resources go back (the job stays known until
-- M.forget or M.enqueue).  One that stops before its estimated end
-- leaves room the reservations were planned without: the next pass sees
-- ctx:changed() (conservative plans every reservation again), in a
-- simulation and in a live instance alike.
function M.stop(self, rec)
  self.m:cancel(rec.id)
  if rec.est_end and self.now < rec.est_end then self.changed = true end
  est_remove(self, rec)
  lim_count(self, rec, -1)
  self.used = self.used - rec.procs
  self.running = self.running - 1
  if rec.held_out then
    self.held_units = self.held_units - rec.held_out
    self.held[rec], rec.held_out = nil, nil
  end
  -- a policy whose priorities read what ended jobs used
  local rp = self.queue_policy.reprioritize
  if rp and rp.ends then self.rank_all = true end
end

-- A job leaves the loop (finished, killed, cancelled): when it was the
-- last jobspec job, reservations may go back to counting.
function M.forget(self, rec)
  self.jobs[rec.id] = nil
  if rec.in_cs then
    if rec.state == "queued" then
      cancel_reservation(self, rec)
      self.qlen = self.qlen - 1
      size_out(self, rec)
      self.queue_policy:unshare(rec.id)
      self.changed = true
    end
    assert(self.cs:remove(rec.id))
    rec.in_cs = nil
    if rec.jobspec and rec.js then
      self.jobspecs = self.jobspecs - 1
      if self.jobspecs == 0 and self.count_mode then drop_reservations(self) end
    end
  end
end

-- Cancel the reservations of the waiting jobs recs at once: the matcher
-- drops them in one call (m:cancel of a list), which rebuilds its
-- aggregates once when they hold many records rather than keeping them up
-- record by record.  The number cancelled.
function M.cancel_many(self, recs)
  local ids, n = {}, 0
  for _, rec in ipairs(recs) do
    if rec.reserved then
      n = n + 1
      if rec.vres then set_vres(self, rec, nil) else ids[#ids + 1] = rec.id end
    end
  end
  if #ids > 0 then
    -- (a job the matcher no longer holds, released with ranks that went
    -- down, is passed over)
    local ok, msg = self.m:cancel(ids)
    if not ok then error("cancel: " .. tostring(msg), 0) end
  end
  for _, rec in ipairs(recs) do
    if rec.reserved then set_reserved(self, rec, nil) end
  end
  if n > 0 then
    self.plan_gen = self.plan_gen + 1
    self.room_gen = self.room_gen + 1
  end
  return n
end

-- The waiting jobs that hold a reservation (a pass that drops them need
-- not walk the queue).
local function reserved_recs(self)
  local out = {}
  for _, rec in pairs(self.reserved_set) do out[#out + 1] = rec end
  return out
end

-- Drop every reservation and plan the waiting jobs recs again, in order,
-- each at its earliest start given the running jobs and the jobs before
-- it (one that fits now starts): what ctx:cancel() and then ctx:reserve of
-- each job in turn give, in one call (ctx:replan).  The C queue, the
-- driver and the queue policy's views are told at the end, and only of
-- the jobs planned elsewhere than before: when a job ends early most of
-- a conservative schedule stays where it was.  Raises as reserve does,
-- having told what was planned.
function M.replan(self, recs)
  local quiet = {}
  self.quiet = quiet
  local ok, err = pcall(function()
    M.cancel_many(self, reserved_recs(self))
    for _, rec in ipairs(recs) do
      if rec.state == "queued" and not rec.reserved then
        local between = self.between
        if between then between() end
        reserve(self, rec)
      end
    end
  end)
  self.quiet = nil
  for _, rec in ipairs(quiet) do
    if rec.state == "queued" then publish(self, rec) end
  end
  if not ok then error(err, 0) end
end

-- Cancel every reservation (node events invalidate them, and so does a
-- change between counted and recorded reservations).
function drop_reservations(self)
  M.cancel_many(self, reserved_recs(self))
  self.changed = true
end
M.drop_reservations = drop_reservations

-- Run the loop under another queue policy (q: loaded, as M.load_queue
-- gives it, and not bound to another loop), keeping every job where it
-- is: the running ones run, the waiting ones keep their order and are
-- shown to q, and every reservation is dropped for q's next pass to plan
-- again.  Placement policies of the old one's queues are forgotten (q's
-- own are given as the jobs are shown to it).  The old one's priorities
-- go: q asks every waiting job's at its first pass (a job that runs, if
-- it waits again), or the queue is back in the driver's order when q
-- gives none.
function M.set_queue_policy(self, q)
  drop_reservations(self)
  self.queue_policy = q
  if q.half_life and not self.decay then self.decay = {total = {}, user = {}, group = {}} end
  M.bind(self)
  self.ranks = q.priority ~= nil or q.has_priority == true
  self.unranked, self.rank_all, self.rank_tick = {}, self.ranks, nil
  for _, rec in pairs(self.jobs) do
    if rec.in_cs then
      rec.unranked = nil
      self.cs:set_policy_priority(rec.id, 0)
    end
  end
  for _, rec in ipairs(M.waiting(self)) do
    rec.placement = nil
    q:share(rec.id, view_of(self, rec))
  end
  self.changed = true
end

-- ---- usage -------------------------------------------------------------------------

-- An entry of decayed usage as of now: halved every half-life.
local function decayed(self, entry)
  if not entry then return 0 end
  local dt = self.now - entry.t
  if dt == 0 then return entry.v end
  return entry.v * 2 ^ (-dt / (self.queue_policy.half_life * self.tps))
end

local function decay_add(self, tbl, key, charge)
  local e = tbl[key]
  if not e then
    e = {v = 0, t = self.now}
    tbl[key] = e
  end
  e.v = decayed(self, e) + charge
  e.t = self.now
end

-- A job that ran is charged its unit-seconds (the driver calls it as the
-- job ends): to its user's usage (ctx:usage) and, when the queue policy
-- has a half-life, to the decayed usage of its user, its group and the
-- machine (ctx:decayed_usage; no user or group counts as "").
function M.charge(self, rec, charge)
  local u = rec.user
  if u ~= nil then self.usage[u] = (self.usage[u] or 0) + charge end
  local d = self.decay
  if d then
    decay_add(self, d.total, "", charge)
    if u ~= nil then decay_add(self, d.user, u, charge) end
    decay_add(self, d.group, rec.group == nil and "" or rec.group, charge)
  end
end

-- ---- the context queue policies see ---------------------------------------------------

local function wake(self, t)
  if self.on_wake and t > self.now then self.on_wake(self, t) end
end

-- Whether a pass is still due at t, for a driver that was told of it
-- (on_wake): a reservation begins then, or the queue policy asked
-- (ctx:wake).  A reservation planned again elsewhere (conservative
-- compresses its schedule at each early end) leaves its old start with
-- nothing to do; a driver may pass such an instant over (grove sim
-- does), where the pass would start nothing (the shipped policies start
-- a job between events only at its reservation).
function M.due(self, t)
  return self.starts_at[t] ~= nil or self.wakes_asked[t] == true
end

-- The passes asked for up to t were made (a driver that passes over
-- instants, M.due, and says so by setting self.passes_over, forgets
-- them).
function M.woke(self, t)
  self.wakes_asked[t] = nil
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

-- A match of rec that failed: false when it does not fit; raises when the
-- placement policy failed (ECANCELED: a hook raised or went past a limit)
-- or the request is bad.  The placement policy's failure is the pass's
-- to report first (self.host_error, see M.pass), not the queue policy's
-- that asked for the start.
-- A match failure that is an error (a policy that failed, bad input,
-- no memory), not a request that does not fit.
local function hard_failure(code)
  return code == "ECANCELED" or code == "EINVAL" or code == "ENOMEM"
end

local function match_fail(self, rec, msg, code)
  if hard_failure(code) then
    msg = tostring(msg)
    if code == "ECANCELED" then
      self.host_error = fmt("%s%s (job %d)", msg:match("^policy ") and "placement " or
        "placement policy " .. self.policy_name .. ": ", msg, rec.id)
      self.placement_failed = rec.id
    end
    error(fmt("job %d: %s", rec.id, msg), 0)
  end
  return false
end

-- ---- requests that did not fit ----------------------------------------------------
--
-- Within a pass the room only shrinks while jobs start and reservations
-- are made, so a request that did not fit does not fit again until
-- something is given back: a job with the same request (the same shape,
-- constraints and duration: jobspec:request_key, or a plain request's
-- object) is refused without a walk.  A deep queue of jobs of a few
-- shapes then costs a walk a shape a pass, not a walk a job.  Two
-- memories, each kept for one pass and one placement policy:
--   now   requests that did not fit with every reservation in place,
--         forgotten when any reservation is cancelled or moved
--         (plan_gen);
--   bare  requests that did not fit even without the reservation of the
--         job a start protects, or fit only by delaying it
--         (start_protected's second try), by the protected job:
--         forgotten only when room is given back (room_gen: a
--         reservation cancelled other than by that try, which puts it
--         back where the matcher found it before);
--   noplan requests that found no start at all, now or later (the
--         resources they need down or drained, or nothing before the
--         horizon): forgotten when room is given back (room_gen).  A
--         deep queue of jobs waiting for drained nodes costs one walk a
--         pass, not one a job;
--   floor  the start of the last reservation made for a request: one
--         alike behind it finds no start before that (at every earlier
--         instant the first did not fit, and there is less room now), so
--         its search starts there (forgotten with now, plan_gen).  A
--         conservative queue of thousands of jobs of a few shapes then
--         walks each instant once a shape, not once a job.
-- What is remembered only ever refuses a start or a reservation, never
-- places a job: at worst a job starts, or is planned, a pass later.
-- Only C placement policies (pl.fast) are trusted to place alike jobs
-- alike: a Lua policy's hook may look at the job.

-- memory[pl], made when missing.
local function of_policy(memory, pl)
  local t = memory[pl]
  if not t then
    t = {}
    memory[pl] = t
  end
  return t
end

-- The memory of this pass for rec's placement policy, or nil.
local function nofit_of(self, rec)
  local pl = rec.placement or self.pl0
  if not pl.fast then return nil end
  local nf = self.nofit
  if nf.pass ~= self.passes then
    nf = {pass = self.passes, now = {}, bare = {}, noplan = {}, floor = {},
      plan = self.plan_gen, room = self.room_gen}
    self.nofit = nf
  end
  if nf.room ~= self.room_gen then nf.bare, nf.noplan, nf.room = {}, {}, self.room_gen end
  if nf.plan ~= self.plan_gen then nf.now, nf.floor, nf.plan = {}, {}, self.plan_gen end
  return of_policy(nf.now, pl), of_policy(nf.bare, pl), of_policy(nf.noplan, pl),
    of_policy(nf.floor, pl)
end

-- rec's request as a key: a plain request's object (M.request keeps one
-- a shape), else the jobspec's request_key, read once a request.
local function fit_key(rec)
  local js = rec.js
  if not rec.jobspec then return js end
  if rec.fk_js ~= js then rec.fk_js, rec.fk = js, js:request_key() end
  return rec.fk
end

-- The key of rec's request for a memory of what did not fit (fit_key),
-- or nil when its placement policy may place alike jobs differently (a
-- Lua policy's hook may look at the job).
function M.alike_key(self, rec)
  local pl = rec.placement or self.pl0
  if not pl.fast then return nil end
  return fit_key(rec)
end

-- Try to allocate rec now; true on success.  A job that asks more units
-- than running jobs leave is refused by that count, without a match (a
-- jobspec job's procs, when known before it starts, is what it asks:
-- M.enqueue forgets a count it was only given).  The queue policy's
-- sandbox refuses the same starts by the same count, without calling
-- here (M.bound_starts).
local function try_now(self, rec, prot)
  if rec.procs and rec.procs > self.total - self.used then
    return false
  end
  if self.limits and M.held(self, rec) then return false end
  -- with nodes out of use, what the nodes in use leave (counting: units
  -- are interchangeable there, so the match would fail)
  if rec.procs and rec.procs > M.free_units(self) then return false end
  local now, bare = nofit_of(self, rec)
  local key = now and fit_key(rec)
  if key and (now[key] or (prot and bare[prot] and bare[prot][key])) then return false end
  local j, msg, code = match(self, rec, "allocate")
  if j then
    if not admit(self, rec) then return false end
    begin_run(self, rec, j)
    return true
  end
  if key and not hard_failure(code) then
    now[key] = true
  end
  return match_fail(self, rec, msg, code)
end

-- Remember that rec did not fit even without prot's reservation.
local function nofit_bare(self, rec, prot)
  local _, bare = nofit_of(self, rec)
  if not bare then return end
  local b = bare[prot]
  if not b then
    b = {}
    bare[prot] = b
  end
  b[fit_key(rec)] = true
end

-- Reserve rec at its earliest start; the start time and "started" or
-- "reserved", or nil.
function reserve(self, rec)
  -- Under limits, the start is one they allow (limit_start): a job a
  -- limit holds now is planned for when its holders' running jobs and
  -- earlier reservations leave it room, so that its estimate, and those
  -- of the jobs planned around it, count the limit.  lfrom: that start,
  -- floor of the search; nil when no start will ever pass the limits.
  local lfrom
  if self.limits then
    -- (held first: it keeps the hold a why reads, rec.limit_hold)
    local held = M.held(self, rec)
    -- (one that alone asks more than a limit never starts under it: no
    -- look at the plans of its holders, pass after pass)
    if held and rec.hc_ever then return nil end
    lfrom = limit_start(self, rec, self.now)
    if not lfrom then return nil end
    if lfrom == self.now and held then lfrom = self.now + 1 end
  end
  local free_now = lfrom == nil or lfrom == self.now
  if self.reserve_depth and self.nreserved >= self.reserve_depth then
    -- no reservation, but a job that fits now still starts
    if free_now and try_now(self, rec) then return self.now, "started" end
    return nil
  end
  if counting(self) then
    local t = counted_earliest(self, rec, rec.procs, rec.estimate, lfrom)
    -- a start the limits refuse: the first they allow, for as long as
    -- room and limits disagree (each moves it only later)
    while t and lfrom do
      local t2 = limit_start(self, rec, t)
      if t2 == t then break end
      t = t2 and counted_earliest(self, rec, rec.procs, rec.estimate, t2)
    end
    -- none: more units asked than are in use (nodes out), or no start
    -- before the horizon
    if not t then return nil end
    if t == self.now and try_now(self, rec) then return self.now, "started" end
    if t == self.now then t = self.now + 1 end -- cannot happen with plain requests
    set_vres(self, rec, t)
    set_reserved(self, rec, t)
    wake(self, t)
    return t, "reserved"
  end
  local now, _, noplan, floor = nofit_of(self, rec)
  local key = noplan and fit_key(rec)
  -- (what is remembered of a request is what room alone gives it: only
  -- a search the limits did not start later is remembered)
  if key and noplan[key] and free_now then return nil end
  local after = key and floor[key]
  local bound = not free_now and (not after or lfrom > after)
  if bound then after = lfrom end
  local j, msg, code
  while true do
    j, msg, code = match(self, rec, "allocate_orelse_reserve", after)
    if not j then
      if key and not bound and not hard_failure(code) then
        noplan[key], now[key] = true, true
      end
      match_fail(self, rec, msg, code)
      return nil
    end
    if key and not bound then floor[key] = j.start end
    if not lfrom then break end
    local t2 = limit_start(self, rec, j.start)
    if t2 == j.start then break end
    -- room at a start the limits refuse: look again from the first they
    -- allow
    self.m:cancel(rec.id)
    if not t2 then return nil end
    after, bound = t2, true
  end
  if j.state == "allocated" then
    if not admit(self, rec) then return nil end
    begin_run(self, rec, j)
    return self.now, "started"
  end
  set_reserved(self, rec, j.start)
  wake(self, j.start)
  return j.start, "reserved"
end

function cancel_reservation(self, rec, replan)
  if not rec.reserved then return false end
  if rec.vres then
    set_vres(self, rec, nil)
  else
    self.m:cancel(rec.id)
  end
  set_reserved(self, rec, nil)
  -- room given back, unless the caller plans rec again at once (replan:
  -- start_protected's try without prot's reservation, which puts it back
  -- where it was, or moves it and says so)
  if not replan then
    self.plan_gen = self.plan_gen + 1
    self.room_gen = self.room_gen + 1
  end
  return true
end
M.cancel_reservation = cancel_reservation

-- Move matcher job id's window to [start, stop) (stop nil: no end), on
-- the vertices it holds: its R registered again over the new window (a
-- driver holds a running job past its end so; a reservation that came
-- due late starts so).  true, or nil, the reason and the job's R as text
-- (without a window: register it again with one): the new window
-- collides with what holds those vertices, and the job keeps its old one,
-- or, when that one is over, is left out of the matcher.
function M.move_window(self, id, start, stop)
  local m = self.m
  local info = m:info(id)
  local R = assert(m:rv1(id, {graph = true}))
  -- register takes the window it is given only when R has none
  local text = R:set_times(0, 0):encode{graph = true}
  R:close()
  m:cancel(id)
  local ok, msg = m:register(text, id, {start = start, ["end"] = stop})
  if not ok then
    -- back as it was: a window not yet over takes its old place again
    if info["end"] == nil or info["end"] > self.now then
      assert(m:register(text, id, {start = info.start, ["end"] = info["end"]}))
    end
    return nil, msg, text
  end
  return true
end

-- A running job's planned end set to stop (nil: no end known, planned
-- as lasting default): its place in the list by estimated end too.
function M.set_end(self, rec, start, stop, default)
  M.stop_estimate(self, rec)
  rec.estimate = stop and stop - start or default
  rec.est_end = start + rec.estimate
  M.start_estimate(self, rec)
end

-- Move the end of rec, a running job that started at start, to stop (nil:
-- no end; planned as lasting default) in the planner and in the loop's
-- estimates: a driver holds a job so past its planned end.  Every
-- reservation is dropped first (one may sit where the job now extends),
-- for the next pass to plan again in queue order.  What move_window
-- gives; on failure the job keeps its old end.
function M.move_end(self, rec, start, stop, default)
  drop_reservations(self)
  local ok, msg, text = M.move_window(self, rec.id, start, stop)
  if ok then M.set_end(self, rec, start, stop, default) end
  return ok, msg, text
end

-- Reservations whose start has passed without a pass at it (a driver on
-- a real clock passes when its timer has fired, a moment after; grove
-- sim's clock stops at each start) start now: each is moved to [now,
-- now + estimate), so that a policy that starts a job when its planned
-- start is the clock (conservative) starts it, and the planner holds it
-- for its whole estimate from when it starts.  When one cannot be moved
-- (something holds its vertices at its new end) every reservation is
-- dropped, to be planned again in queue order.  The number moved.
-- (Not M.due, which says whether a pass is due at an instant.)
function M.late_starts(self)
  local now = self.now
  local late = {}
  for _, rec in pairs(self.reserved_set) do
    if rec.reserved < now then late[#late + 1] = rec end
  end
  table.sort(late, function(a, b) return a.id < b.id end)
  for _, rec in ipairs(late) do
    if rec.vres then
      set_vres(self, rec, now)
    elseif not M.move_window(self, rec.id, now, now + rec.estimate) then
      drop_reservations(self)
      return 0
    end
    set_reserved(self, rec, now)
  end
  if #late > 0 then
    self.plan_gen = self.plan_gen + 1
    self.room_gen = self.room_gen + 1
  end
  return #late
end

local function plain(rec)
  return rec.procs and not rec.jobspec
end

-- Whether prot was found to have no reservation to make in this pass
-- (set: remember it).  Room only shrinks within a pass until a
-- reservation is cancelled (room_gen), so it has none until then.
local function unplannable(self, prot, set)
  local u = self.unplannable
  if not u or u.pass ~= self.passes or u.room ~= self.room_gen then
    u = {pass = self.passes, room = self.room_gen}
    self.unplannable = u
  end
  if set then u[prot] = true end
  return u[prot] == true
end

-- The first waiting job from rec on, in queue order, that no limit
-- holds (nil: none).
local function first_unheld(self, rec)
  local id = rec.id
  while id do
    local r = self.jobs[id]
    if not M.held(self, r) then return r end
    id = self.cs:next(id)
  end
  return nil
end

-- Start rec now without moving the earliest start of prot later.  A prot
-- a limit holds has no start to protect: the first job after it that no
-- limit holds is protected in its place (a policy that took a held job
-- for its head).
local function start_protected(self, rec, prot)
  if self.limits and M.held(self, prot) then
    prot = first_unheld(self, prot)
    if not prot or prot == rec then return try_now(self, rec) end
  end
  if plain(rec) and rec.procs > self.total - self.used then return false end
  if plain(rec) and plain(prot) and (self.not_up == 0 or self.out_known) then
    -- Plain requests (any cores, or any whole nodes) make units
    -- interchangeable: counting the running jobs' estimates is exact,
    -- and the head needs no record in the planner.  A head that asks
    -- more than the nodes in use hold has no start to protect (as in the
    -- planner, below).
    if prot.procs > capacity(self) then return try_now(self, rec) end
    local t, free = shadow(self, prot.procs)
    if self.now + rec.estimate <= t or rec.procs <= free - prot.procs then
      return try_now(self, rec)
    end
    return false
  end
  -- Otherwise protect prot with a reservation in the planner.
  if not prot.reserved and (unplannable(self, prot) or not reserve(self, prot)) then
    -- prot has no start in sight (resources down or drained): nothing
    -- to protect; remembered, or every job behind it would ask again
    if not prot.reserved then unplannable(self, prot, true) end
    return try_now(self, rec)
  end
  if prot.state ~= "queued" then return try_now(self, rec) end
  local s0 = prot.reserved
  if self.now + rec.estimate <= s0 then
    -- it ends before the reservation begins: prot's reservation is no
    -- part of what it needs, so not fitting is not fitting without it
    if try_now(self, rec, prot) then return true end
    nofit_bare(self, rec, prot)
    return false
  end
  if try_now(self, rec, prot) then return true end
  local _, bare = nofit_of(self, rec)
  if bare and bare[prot] and bare[prot][fit_key(rec)] then return false end
  -- The reservation may sit on resources rec could use while still
  -- leaving room for prot at s0: plan again without it.
  cancel_reservation(self, prot, true)
  local j, msg, code = match(self, rec, "allocate")
  if not j then
    reserve(self, prot)
    if not hard_failure(code) then
      nofit_bare(self, rec, prot)
    end
    return match_fail(self, rec, msg, code)
  end
  if not admit(self, rec) then
    reserve(self, prot)
    return false
  end
  local s1 = reserve(self, prot)
  if s1 and s1 <= s0 then
    begin_run(self, rec, j)
    -- prot's reservation may sit elsewhere now
    self.plan_gen = self.plan_gen + 1
    return true
  end
  cancel_reservation(self, prot, true)
  self.m:cancel(rec.id)
  rec.lim_new = nil
  -- rec's room is given back: the start just found for prot (with rec
  -- in place) is no floor for it or its like any more
  local nf = self.nofit
  if nf and nf.pass == self.passes then nf.floor = {} end
  reserve(self, prot)
  -- it fits only by delaying prot: as good as not fitting, for this
  -- request, until room is given back
  nofit_bare(self, rec, prot)
  return false
end

-- ---- the queue policy's priority -----------------------------------------------------

-- Ask rec's queue policy for its priority and put it in C, which moves
-- the job to its place.  A hook that fails or answers something other
-- than a number raises, blamed on the hook (self.host_error), not on the
-- schedule that was running.
local function ask(self, rec)
  rec.unranked = nil
  local pol = self.queue_policy
  if pol.policy_for then pol = pol:policy_for(rec) end  -- a queue's own policy
  if not pol.priority then return end
  local v = view_of(self, rec)
  local ok, p = pcall(pol.call, pol, "priority", v, pol.bound)
  if not ok then
    self.host_error = tostring(p)
    error(p, 0)
  end
  if type(p) ~= "number" or p ~= p then
    self.host_error = fmt("%s: priority must return a number (job %d got %s)",
      pol:where("priority"), v.id, p ~= p and "NaN" or type(p))
    error(self.host_error, 0)
  end
  self.cs:set_policy_priority(rec.id, p)
end

-- Ask every waiting job's priority again, in queue order (its inputs
-- moved).
local function ask_all(self)
  self.rank_all = true -- until every answer is in: a failure asks again
  local ids, n = self.cs:ids()
  local jobs = self.jobs
  for i = 1, n do ask(self, jobs[ids[i]]) end
  self.rank_all = false
  self.unranked = {}
end

-- Before a pass: the priorities to ask, every waiting job's when the
-- policy's inputs moved (a job ended under reprioritize.ends, a tick of
-- reprioritize.every passed), else those of the jobs that joined the
-- queue or changed since.
local function rank_due(self)
  local rp = self.queue_policy.reprioritize
  if rp and rp.every and (not self.rank_tick or self.now >= self.rank_tick) then
    local every = self.tps == 1 and rp.every or rp.every * self.tps
    self.rank_tick = (self.now // every + 1) * every
    self.rank_all = true
  end
  if self.rank_all then return ask_all(self) end
  local list = self.unranked
  self.unranked = {}
  for i, rec in ipairs(list) do
    if rec.unranked and rec.state == "queued" then
      local ok, err = pcall(ask, self, rec)
      if not ok then
        -- the others are still to be asked
        for k = i + 1, #list do self.unranked[#self.unranked + 1] = list[k] end
        error(err, 0)
      end
    end
  end
end

-- Starts the queue policy's sandbox refuses without calling the loop: a
-- waiting job with no reservation that asks more units than running jobs
-- leave (try_now's count).  Set at each pass and as jobs start, the only
-- times what is free changes while the policy may call.
function M.bound_starts(self)
  local pol = self.queue_policy
  if pol.bound_calls then
    pol:bound_calls("start", "procs", M.free_units(self), "reserved")
  end
end

-- Show list to pol as its queue, under key (default "queue"; "queue+held"
-- for ctx:queue("held")) (a new mirror each time,
-- unshare then share: the policy may still hold the last one).  With
-- want_pos, also returns the place of each view in list (view id ->
-- index), for queue_after.
function M.share_queue(pol, list, want_pos, key)
  local pos
  if want_pos then
    pos = {}
    for i, v in ipairs(list) do pos[v.id] = i end
  end
  key = key or "queue"
  pol:unshare(key)
  pol:share(key, list)
  return pos
end

-- The view of list after job id (the first when id is nil; pos: view id
-- -> index) that fits in fit units when fit is given and that keep, when
-- given, accepts; nil past the end or when id is not in list.
function M.queue_after(list, pos, id, fit, keep)
  local i = 0
  if id ~= nil then
    i = pos[id]
    if not i then return nil end
  end
  i = i + 1
  while list[i] and ((fit and list[i].procs and list[i].procs > fit)
    or (keep and not keep(list[i]))) do
    i = i + 1
  end
  return list[i]
end

-- The ctx handed to a queue policy (see docs/sim.md).
-- Between two steps of a pass (each call of the policy that may match:
-- next, start, reserve, earliest, cancel), the driver's own work: a Flux
-- module answers there the requests that only read the loop's state
-- (bindings/flux/protocol.c's between).  A pass of conservative or of a
-- reserve depth over a full machine calls only reserve or earliest, job
-- after job: without a step there, a submission's feasibility check
-- waited for the whole pass.
local function step(s)
  local between = s.between
  if between then between() end
end

-- The version of loop s's queue as a policy sees it: its job store's,
-- and under limits the generation of what they hold back (which changes
-- as jobs start and end).
function M.queue_version(s)
  local version = s.cs:version()
  if s.limits then version = version .. ":" .. s.lim_gen end
  return version
end

-- The options of ctx:start (a queue policy's call).
M.START_OPTIONS = {protect = true}
local START_OPTIONS = M.START_OPTIONS

function M.context(loop)
  local ctx = {}
  local exported = {}
  local exported_version = -1
  -- The waiting jobs in queue order (C's, the policy's priorities in it),
  -- copied into the policy's sandbox once a change of the queue.
  local with_held, with_held_version
  function ctx.queue(_, which)
    local s = loop
    if which ~= nil and which ~= "held" then
      error("bad argument #1 to 'queue' (nil or \"held\" expected)", 2)
    end
    if which == "held" and s.limits then
      -- every waiting job, the ones a limit holds too (a policy that
      -- plans every job: conservative), but those that alone ask more
      -- than a limit; shared apart from the other
      local version = M.queue_version(s)
      if with_held_version ~= version then
        local ids, n = s.cs:ids(s.ids_buf)
        s.ids_buf = ids
        if s.queue_depth and n > s.queue_depth then n = s.queue_depth end
        local jobs = s.jobs
        with_held = {}
        local k = 0
        for i = 1, n do
          -- (not one that alone asks more than a limit: it has no start)
          local rec = jobs[ids[i]]
          if not (M.held(s, rec) and rec.hc_ever) then
            k = k + 1
            with_held[k] = rec.view
          end
        end
        M.share_queue(s.queue_policy, with_held, false, "queue+held")
        with_held_version = version
      end
      return with_held
    end
    local version = M.queue_version(s)
    if exported_version ~= version then
      local ids, n = s.cs:ids(s.ids_buf)
      s.ids_buf = ids
      local jobs = s.jobs
      exported = {}
      if s.queue_depth and n > s.queue_depth then n = s.queue_depth end
      if s.limits then
        -- the jobs a limit holds are not the policy's to start
        local k = 0
        for i = 1, n do
          local rec = jobs[ids[i]]
          if not M.held(s, rec) then
            k = k + 1
            exported[k] = rec.view
          end
        end
      else
        for i = 1, n do exported[i] = jobs[ids[i]].view end
      end
      M.share_queue(s.queue_policy, exported)
      exported_version = version
    end
    return exported
  end
  -- The first waiting job, or the one after view, in queue order: the
  -- queue one job at a time, with no copy of it (a pass that stops at
  -- the first job that does not fit costs what it looks at).  With fit,
  -- jobs known to ask for more than fit units are passed over here, in
  -- the loop, rather than one by one in the policy.
  function ctx.next(_, view, fit)
    local s = loop
    step(s)
    local id
    if view ~= nil then
      if type(view) ~= "table" or math.type(view.id) ~= "integer" then
        error("bad argument #1 to 'next' (a job of the queue or nil expected)", 2)
      end
      id = view.id
    end
    if fit ~= nil and type(fit) ~= "number" then
      error("bad argument #2 to 'next' (a number of units or nil expected)", 2)
    end
    -- no waiting job is that small: nothing to walk
    if fit and (min_size(s) or math.huge) > fit then return nil end
    local cs, jobs = s.cs, s.jobs
    -- (those whose size the C queue knows to be more than fit are passed
    -- there)
    local nid = cs:next(id, fit)
    local limited = s.limits ~= nil
    while nid do
      local rec = jobs[nid]
      if (not fit or not rec.procs or rec.procs <= fit)
        and not (limited and M.held(s, rec)) then
        return rec.view
      end
      nid = cs:next(nid, fit)
    end
    return nil
  end
  -- The waiting jobs that hold a reservation, by id (a pass that drops
  -- them need not walk the queue).
  function ctx.reserved()
    local out = {}
    for _, rec in pairs(loop.reserved_set) do out[#out + 1] = rec.view end
    table.sort(out, function(a, b) return a.id < b.id end)
    return out
  end
  function ctx.start(_, view, opts)
    local rec = rec_of(loop, view, "start")
    local prot
    if opts ~= nil then
      if type(opts) ~= "table" then error("bad argument #2 to 'start' (table expected)", 2) end
      check.keys(opts, START_OPTIONS, 2, "start")
      if opts.protect ~= nil then
        prot = rec_of(loop, opts.protect, "start")
        if prot == rec then error("bad argument #2 to 'start' (a job cannot protect itself)", 2) end
      end
    end
    local s = loop
    step(s)
    local ok
    if rec.reserved == s.now and rec.vres then
      set_vres(s, rec, nil)
      set_reserved(s, rec, nil)
      ok = try_now(s, rec)
      if not ok then reserve(s, rec) end
    elseif rec.reserved == s.now and s.limits and not admit(s, rec) then
      -- (its reservation given back with its match)
      set_reserved(s, rec, nil)
      s.plan_gen, s.room_gen = s.plan_gen + 1, s.room_gen + 1
      ok = false
    elseif rec.reserved == s.now then
      local vids = {}
      if not s.no_vids then
        for i, p in ipairs(s.m:job(rec.id).picks) do vids[i] = p.vertex:vid() end
      end
      begin_run(s, rec, {vids = vids})
      ok = true
    elseif rec.reserved then
      local t = rec.reserved
      cancel_reservation(s, rec)
      ok = try_now(s, rec)
      if not ok then
        local t2 = reserve(s, rec)
        -- (under limits a job may be planned later, or not at all: its
        -- holder's other jobs started or were planned since)
        assert(t2 and t2 <= t or s.limits, "a reservation moved later")
      end
    elseif prot then
      ok = start_protected(s, rec, prot)
    else
      ok = try_now(s, rec)
    end
    return ok
  end
  function ctx.reserve(_, view)
    local rec = rec_of(loop, view, "reserve")
    if rec.reserved then return secs(loop, rec.reserved), "reserved" end
    step(loop)
    local t, how = reserve(loop, rec)
    return secs(loop, t), how
  end
  -- Every reservation dropped and the queue planned again in order, in
  -- one call (M.replan).
  function ctx.replan()
    local s = loop
    step(s)
    local ids, n = s.cs:ids(s.ids_buf)
    s.ids_buf = ids
    if s.queue_depth and n > s.queue_depth then n = s.queue_depth end
    local jobs, recs = s.jobs, {}
    for i = 1, n do recs[i] = jobs[ids[i]] end
    M.replan(s, recs)
  end
  function ctx.cancel(_, view)
    if view == nil then
      step(loop)
      return M.cancel_many(loop, reserved_recs(loop))
    end
    local rec = rec_of(loop, view, "cancel")
    step(loop)
    local ok = cancel_reservation(loop, rec)
    return ok
  end
  function ctx.earliest(_, view)
    local rec = rec_of(loop, view, "earliest")
    if rec.reserved then return secs(loop, rec.reserved) end
    step(loop)
    return secs(loop, M.earliest(loop, rec))
  end
  -- The policy's inputs moved: ask job's priority again, or every
  -- waiting job's; the queue's order follows at once.
  function ctx.reprioritize(_, view)
    local s = loop
    if view == nil then
      if s.ranks then ask_all(s) end
      return
    end
    ask(s, rec_of(s, view, "reprioritize"))
  end
  -- The limit that holds a waiting job now (its text), or nil.
  function ctx.held(_, view)
    local rec = rec_of(loop, view, "held")
    local hold = M.held(loop, rec)
    return hold and glimits.text(hold) or nil
  end
  -- The limits in force, as a limits table (grove.limits), and new ones
  -- (the same form): true, or nil and why (the old ones stay).
  function ctx.limits()
    return glimits.to_table(loop.limits)
  end
  function ctx.set_limits(_, tbl)
    if type(tbl) ~= "table" then
      error("bad argument #1 to 'set_limits' (a table of limits expected)", 2)
    end
    local L, msg = glimits.parse(tbl, "ctx:set_limits", {names = true})
    if not L then return nil, msg end
    -- flux-accounting's associations, as read, stay with it
    local old = loop.limits
    if old and old.assoc and L.accounting == old.accounting then
      L.assoc, L.assoc_default, L.assoc_count = old.assoc, old.assoc_default, old.assoc_count
    end
    M.set_limits(loop, L)
    return true
  end
  function ctx.free() return M.free_units(loop) end
  function ctx.total() return loop.total end
  function ctx.clock() return secs(loop, loop.now) end
  function ctx.changed() return loop.changed end
  function ctx.usage(_, user) return loop.usage[user] or 0 end
  function ctx.param(_, name, default)
    local v = loop.params[name]
    if v == nil then return default end
    return v
  end
  function ctx.wake(_, t)
    if loop.tps == 1 then
      if math.type(t) ~= "integer" then error("bad argument #1 to 'wake' (an integer time)", 2) end
    else
      if type(t) ~= "number" or t ~= t then error("bad argument #1 to 'wake' (a time)", 2) end
      t = M.ticks(loop, t)
    end
    -- (remembered for a driver that passes over instants: M.due)
    if t > loop.now and loop.passes_over then loop.wakes_asked[t] = true end
    wake(loop, t)
  end
  function ctx.decayed_usage(_, kind, key)
    local d = loop.decay
    if not d then error("decayed_usage: the queue policy has no half_life", 2) end
    if kind == nil then return decayed(loop, d.total[""]) end
    if kind ~= "user" and kind ~= "group" then
      error("bad argument #1 to 'decayed_usage' (\"user\", \"group\" or nil)", 2)
    end
    return decayed(loop, d[kind][key == nil and "" or key])
  end
  function ctx.running()
    local out = {}
    for _, rec in pairs(loop.jobs) do
      if rec.state == "running" then
        out[#out + 1] = {id = rec.id, start = secs(loop, rec.start),
          estimate = secs(loop, rec.estimate), ["end"] = secs(loop, rec.est_end),
          procs = rec.procs, user = rec.user, group = rec.group,
          queue = rec.queue}
      end
    end
    table.sort(out, function(a, b) return a.id < b.id end)
    return out
  end
  return ctx
end

-- One pass of the queue policy (when any job waits): true when it ran,
-- false when no job waits, or nil, message, "ECANCELED" when the policy
-- failed (it raised, or went past its budget, time or memory): what the
-- pass had started stays started.
function M.pass(self)
  -- the driver's own step first (a Flux module's reservations place
  -- their members: grove.flux.reserve)
  if self.before_pass then self.before_pass(self) end
  if self.qlen == 0 then return false end
  self.passes = self.passes + 1
  -- an error the loop raised inside ctx (a priority that failed) is
  -- reported as it is, not as the schedule's that called ctx:queue()
  self.host_error, self.placement_failed = nil, nil
  M.bound_starts(self)
  if self.limits then M.drop_held(self) end
  if self.ranks then
    local ok, err = pcall(rank_due, self)
    if not ok then return nil, self.host_error or tostring(err), "ECANCELED" end
  end
  local pol = self.queue_policy
  local ok, msg, code = pol:pcall("schedule", self.ctx)
  if not ok then
    local h = self.host_error
    -- a placement policy's failure first, then where the queue policy asked
    local qname, where = tostring(msg):match("^queue policy (.-): (.-:%d+): job %d+: ")
    if h and self.placement_failed and qname then
      h = fmt("%s; queue policy %s at %s)", h:sub(1, -2), qname, where)
    end
    return nil, h or msg, code
  end
  self.changed = false
  return true
end

return M
