-- grove.flux: the Flux scheduler protocols (RFC 27 resource allocation,
-- RFC 28 resource acquisition) on the scheduling loop (grove.sched), with
-- no Flux dependency: decoded messages in, actions out.
--
--   local flux = require "grove.flux"
--   local s = assert(flux.new{queue = "easy", policy = "first"})
--   local actions = s:acquire(response)      -- resource.acquire responses
--   actions = s:hello(job)                    -- one running job at restart
--   actions = s:alloc(request)                -- sched.alloc
--   ...                                       -- see docs/flux.md
--
-- Every method takes a message payload decoded into Lua tables (JSON
-- text is accepted too) and returns a list of actions, each a table with
-- op = "alloc" (a response to a pending sched.alloc request: type
-- "success", "annotate", "deny" or "cancel"), "respond" (the response to
-- the request just handled), "error" (an error response to it),
-- "exception" (raise a job exception) or "release" (RFC 28 release of
-- targets).  flux.payload(action) gives the JSON text of the response
-- payload an "alloc" or "respond" action stands for.  Misuse (a message
-- of the wrong shape) is answered with an "error" action, never raised:
-- the broker module must not die of a bad message.
--
-- The clock is opts.clock() (default core.real_clock: seconds, a fraction
-- kept),
-- read on every message; the graph's time moves with it, never back.
-- The loop counts time in milliseconds (M.TICKS a second: grove.sched's
-- ticks), so that what it plans is right to the millisecond: a job's R
-- says when it was allocated, to the millisecond, and gives it its whole
-- limit; estimates, planned starts and the windows in the planner are
-- exact to a millisecond.  What comes in and goes out is seconds (R, the
-- jobspec's duration, annotations, the operator's times, the queue
-- policy's view: grove.sched converts).  A job's duration is its
-- jobspec's attributes.system.duration; none (or 0) means until the
-- resource set expires, or opts.default_duration when it does not.
--
-- The resource set's expiration is the engine's horizon: the acquisition
-- code sets the graph's expiration from each response that gives one, and
-- no match places a job whose window ends past it (see docs/flux.md,
-- "Expiration").
--
-- Its rooms: this file is the protocol (the object, its handlers and the
-- pass each event ends with); grove.flux.annotate what a job shows
-- (estimates, reasons, summaries); grove.flux.config the options;
-- grove.flux.ops the operator's requests (resource status, stats, the
-- commands of `flux grove`, with grove.flux.why and grove.flux.reserve);
-- grove.flux.state what the operator set that outlives the module;
-- grove.flux.base what they share (actions, clock, request reading).
local core = require("grove.core")

-- One core for a moment: the request the first acquire response's warm-up
-- asks of the matcher (Flux:acquire).
local PROBE = '{"version":1,"resources":[{"type":"slot","count":1,"label":"task",'
  .. '"with":[{"type":"core","count":1}]}],"tasks":[{"command":["true"],"slot":"task",'
  .. '"count":{"per_slot":1}}],"attributes":{"system":{"duration":1}}}'
local sched = require("grove.sched")
local annotate = require("grove.flux.annotate")
local base = require("grove.flux.base")
local config = require("grove.flux.config")
local ops = require("grove.flux.ops")
local policies = require("grove.flux.policies")
local queues = require("grove.flux.queues")
local reserve = require("grove.flux.reserve")
local state = require("grove.flux.state")
local topology = require("grove.flux.topology")

local M = {}

local fmt = string.format

-- RFC 27 alloc response types.
M.SUCCESS, M.ANNOTATE, M.DENY, M.CANCEL = 0, 1, 2, 3
local TYPE_CODE = {success = 0, annotate = 1, deny = 2, cancel = 3}

M.DEFAULT_DURATION = 365 * 24 * 3600

-- The loop's ticks a second: it plans in milliseconds.
M.TICKS = 1000

-- flux-core's scheduler test hooks, the bits `flux module debug --setbit`
-- sets on a scheduler module (sched-simple's): the module copies them
-- into self.debug.  1: every alloc is denied; 2: waiting jobs show
-- reason_pending and jobs_ahead (grove.flux.annotate); 4: expiration
-- updates are refused.
M.DEBUG_FAIL_ALLOC, M.DEBUG_JOBS_AHEAD, M.DEBUG_EXPIRATION_DENY = 1, 2, 4


local Flux = {}
Flux.__index = Flux

-- Set the test hook bits (an integer, 0 for none); a pass follows when
-- the annotations' form changed.
function Flux:set_debug(bits)
  local was = self.debug or 0
  self.debug = bits
  if (was ~ bits) & M.DEBUG_JOBS_AHEAD ~= 0 then self.stale = true end
end

-- A new scheduler.  opts:
--   queue          queue policy: name or path (default "fcfs")
--   policy         placement policy: a built-in name or a Lua policy's
--                  name or path (default "first")
--   queue_depth    jobs a pass considers (default all)
--   reserve_depth  jobs that may hold a reservation (default no limit)
--   match_format   "rv1_nosched" (default) or "rv1" (R with its
--                  scheduling graph, JGF)
--   limited        the N of ready's "limited=N" (default: unlimited)
--   limits         {budget =, memory =, time =} for the queue policy
--   clock          a function returning the time (seconds since the
--                  epoch, a fraction kept; core.real_clock)
--   default_duration  seconds for a job without one when the resource set
--                  does not expire (default one year)
-- Returns the object, or nil, message, code.
function M.new(opts)
  local ok, emsg, ecode = config.check(opts, 2)
  if not ok then return nil, emsg, ecode end
  opts = ok
  local mf = opts.match_format or "rv1_nosched"
  local limits = opts.limits or {}
  local self = setmetatable({match_format = mf, limited = opts.limited,
    log_level = opts.log_level or config.LEVELS.info, forecast_period = opts.forecast_period,
    record_estimates = opts.record_estimates,
    notes = opts.notes,
    clock = opts.clock or core.real_clock,
    default_duration = (opts.default_duration or M.DEFAULT_DURATION) * M.TICKS,
    out = {}, started = false}, Flux)
  local g = core.graph()
  local now = math.floor(self.clock() * M.TICKS)
  limits = {budget = limits.budget or opts.budget, memory = limits.memory or opts.memory,
    time = limits.time or opts.time}
  self.queues, self.queue_names = opts.queues, opts.queue_names
  self.opts = opts
  self.policy_files = policies.files(opts) or {}
  local loop = {}
  local qpol, msg, code = queues.policy(loop, opts, limits)
  if not qpol then return nil, msg, code end
  loop, msg, code = sched.init(loop, {graph = g, queue = qpol, policy = opts.policy,
    unit = "core", reservations = "planner", now = now, tps = M.TICKS,
    queue_depth = opts.queue_depth,
    reserve_depth = opts.reserve_depth, timed = true, budget = limits.budget,
    memory = limits.memory, time = limits.time, limits = opts.run_limits})
  if not loop then return nil, msg, code end
  loop.total = 0
  loop.touched = {}     -- the waiting jobs whose annotations may change
  self.gen = 0          -- moves when a head's estimate may have moved
  loop.on_start = function(_, rec) annotate.started(self, rec) end
  -- (a start's vertex ids are read by no one here: R is written from the
  -- matcher's job)
  loop.no_vids = true
  loop.on_wake = function(_, t)
    -- a start planned when a job past its end is held to (a tick from
    -- now) comes with that job's free, not with the clock: a wake then
    -- would only hold it again, a tick at a time
    if self.overdue_until and t <= self.overdue_until then return end
    if not self.wake or t < self.wake then self.wake = t end
  end
  loop.before_pass = function() reserve.tend(self) end
  sched.bind(loop)
  -- a running job is held past its end until its free comes (hold_overdue)
  loop.m:set_overdue("report")
  self.loop = loop
  self.acq = core.acquire(g, loop.m, {protocol = "current"})
  topology.init(self, opts)
  return self
end

-- The scheduler sched-grove.so runs: its options read from the
-- instance's configuration (conf, decoded; nil when none) and the
-- module's arguments (an array of "key=value" words), by
-- grove.flux.config.  The object, or nil and the message (the key, where
-- it came from and why; or why a policy did not load).
--
-- A policy file that does not load (or fails its self-check once the
-- graph is there) does not leave the instance without a scheduler: the
-- module runs the built-in defaults in place of the files (fcfs, first)
-- and says so loudly (policy_fallback: the reason, in a crit line when
-- it announces itself and in the stats), until a configuration whose
-- policies load is given (`flux config reload`, `flux grove reload`).  A
-- key it does not know, or a bad value (a misspelt policy name), still
-- fails the load.
function M.module(conf, args)
  local opts, msg = config.module_options(conf, args)
  if not opts then return nil, msg end
  local self, m2 = M.new(opts)
  if not self then
    self = M.new(policies.defaults(opts))
    if not self then return nil, m2 end
    self.opts = opts
    self.policy_fallback = tostring(m2)
  end
  -- (the configuration read again by flux grove reload: none is {})
  self.conf = conf or {}
  self.args = args
  -- the module runs the passes an alloc or a free asks for from its
  -- reactor, once the messages waiting are read (Flux:schedule)
  self.defer = true
  return self
end

-- ---- helpers ---------------------------------------------------------------------

local decode, emit, flush, fail, tick = base.decode, base.emit, base.flush, base.fail, base.tick
local move_end, take, jobspec_of
local check_id, request_of = base.check_id, base.request_of
local duration_of, estimate_of = base.duration_of, base.estimate_of

-- A request about one job, on topic sched.<what>: the request as
-- request_of reads it (expected its message when malformed, by default
-- "WHAT: a request needs an integer id"; ok its own check) and the record
-- of the job of its id (nil when none); or nil, nil and the actions of
-- the error.
local function job_request(self, request, what, expected, ok)
  local r, acts = request_of(self, request, "sched." .. what,
    expected or what .. ": a request needs an integer id", ok)
  if not r then return nil, nil, acts end
  return r, self.loop.jobs[r.id]
end

-- Jobs without a duration of their own run until the resource set
-- expires: as the clock moves (or the expiration), their estimate follows,
-- or they would ask for a window past the horizon.
local function refresh_open(self)
  local loop = self.loop
  if loop.g:expiration() == 0 then return end
  for _, rec in ipairs(sched.waiting(loop)) do
    if rec.open then
      local e = estimate_of(self, 0)
      if e ~= rec.estimate then
        sched.cancel_reservation(loop, rec)
        rec.estimate = e
        rec.js = sched.request(loop, rec)
        if rec.view then
          rec.view.estimate = sched.secs(loop, e)
          loop.queue_policy:share(rec.id, rec.view)
        end
      end
    end
  end
end

-- A pass the queue policy's wall-clock limit (policy-time) cut short
-- while it was starting jobs spent its time on them (their matches and
-- R: a pass of hundreds of jobs of 40 nodes at 16,384 nodes takes more
-- than the default 10 s): what it started stays started, and another
-- pass follows at once (self.wake: the module's timer fires at the next
-- turn of its reactor), not at the next message, which may be a job's
-- end hours away while jobs that fit wait.  Said at info; a cut pass
-- that started nothing is the policy's failure, and an error.
local function policy_pass(self)
  local loop = self.loop
  local running = loop.running
  local ok, err = sched.pass(loop)
  if ok == nil then
    local started = loop.running - running
    err = tostring(err)
    if started > 0 and err:find("wall%-clock limit of [^ ]+ s exceeded$") then
      local waits = loop.qlen > 0
      emit(self, {op = "log", level = "info", message = fmt(
        "%s after starting %d job%s; %s", err, started, started == 1 and "" or "s",
        waits and "another pass follows" or "no job waits")})
      if waits then self.wake = loop.now end
      self.cut_passes = (self.cut_passes or 0) + 1
    else
      emit(self, {op = "log", level = "err", message = err})
    end
  end
end

-- A pass of the queue policy, and the annotations after it.  new: the
-- job that just joined the queue (the only change since the last pass):
-- when the pass did not start it, whether it could ever run is looked at
-- (a job that starts needs no second match), and one that never can is
-- denied, its place given to the others in a pass again.  Without new,
-- something else moved (a job ended, resources, the order): a head's
-- estimate is looked for again.
local PASS_RING = 4096

-- The wall time of each pass and the CPU time of the thread it ran in,
-- each in a ring of the last PASS_RING (the stats' pass_time and
-- pass_cpu: p50, p99, max): in a broker the two part when the pass waits
-- for a CPU its other threads hold.
local function ring_put(self, key, t)
  local ring = self[key]
  if not ring then
    ring = {n = 0}
    self[key] = ring
  end
  ring.n = ring.n + 1
  ring[(ring.n - 1) % PASS_RING + 1] = t
end

local function pass_timed(self, t0, c0)
  ring_put(self, "pass_ring", core.wall_clock() - t0)
  ring_put(self, "pass_cpu_ring", core.thread_clock() - c0)
end

local function pass(self, new, moved)
  local t0, c0 = core.wall_clock(), core.thread_clock()
  local loop = self.loop
  -- new: one job, or those that joined while the passes waited (defer);
  -- moved: something else changed too (the default without new)
  local joined = new and (new.id and {new} or new)
  if new == nil then moved = true end
  -- before anything is placed: what jobs past their end still hold, and
  -- the planned starts that came due while no pass ran
  M.hold_overdue(self)
  sched.late_starts(loop)
  -- the matcher's events (starts, ends, overdue) are not read here: they
  -- are let go each pass, or a long-lived instance would keep them all
  loop.m:events{clear = true}
  self.wake = nil
  self.passed_at, self.stale = loop.now, nil
  if moved then self.gen = self.gen + 1 end
  refresh_open(self)
  policy_pass(self)
  local denied = false
  local between = loop.between
  for _, rec in ipairs(joined or {}) do
    if between then between() end
    if rec.state == "queued" then
      local msg, code = sched.unsatisfiable(loop, rec)
      if msg then
        sched.forget(loop, rec)
        rec.state = "denied"
        emit(self, {op = "alloc", id = rec.id, type = "deny",
          note = code == "ENODEV" and "unsatisfiable request: " .. msg or msg})
        denied = true
      end
    end
  end
  if denied then policy_pass(self) end
  annotate.annotate(self)
  pass_timed(self, t0, c0)
end

-- The pass an alloc (new: the job that joined) or a free asks for: now,
-- or, when the module defers its passes (self.defer), at its next
-- schedule(), one pass for every message read before it.  A burst of
-- submissions or of ends then costs one pass, not one a message.
local function pass_soon(self, new)
  if not self.defer then return pass(self, new) end
  if new then
    local j = self.joined or {}
    j[#j + 1] = new
    self.joined = j
  else
    self.moved = true
  end
  self.stale = true
end

-- ---- a running job's end -----------------------------------------------------------

-- Move the end of rec, a running job, to new_end (nil: no end), in the
-- planner and in the loop's estimates (sched.move_end: every reservation
-- dropped first, for the next pass to plan again).  true, or nil, the
-- reason and the job's R as text, as sched.move_window gives them (the
-- job keeps its old end).
local function end_moved(self, rec, start, new_end)
  sched.set_end(self.loop, rec, start, new_end, self.default_duration)
  self.gen = self.gen + 1
end

function move_end(self, rec, new_end)
  local loop = self.loop
  local ok, msg, text = sched.move_end(loop, rec, loop.m:info(rec.id).start, new_end,
    self.default_duration)
  if not ok then return nil, msg, text end
  self.gen = self.gen + 1
  return true
end

-- How far past now a job that outlived its end is held at a time
-- (ticks): one.
M.OVERDUE_STEP = 1

-- A running job whose end has passed without its free (a job at its time
-- limit is being killed; the free follows when the kill, its epilog and
-- housekeeping are done: seconds on real systems) still holds its
-- resources, and when they come free is not known, only that it is
-- soon.  So the planner holds it to a tick from now, and again at every
-- look (each message moves the clock and calls this first, and so does
-- each pass): its resources are never free now, so nothing is placed
-- on them before its free, and what needs them next (the head's planned
-- start) is planned a tick from now, so that no later job can be
-- backfilled in front of it (it would have to end within that tick).
-- Every reservation is dropped as it is held, and the pass plans them
-- again in queue order, the head first.  A start planned at the held end
-- wakes no pass (on_wake): the free brings the next.  (The matcher keeps
-- such a job in its table: set_overdue("report").)
function M.hold_overdue(self)
  local loop = self.loop
  -- (at its very end too: the planner has its resources free from then)
  local rec = sched.first_by_est(loop)
  while rec and rec.est_end <= loop.now do
    local stop = loop.now + M.OVERDUE_STEP
    self.overdue_until = stop
    self.stale = true
    local start = loop.m:info(rec.id).start
    local ok, msg, text = move_end(self, rec, stop)
    if not ok and text then
      -- a reservation's window opened on its nodes while it overran:
      -- the reservation's holds give way to it until its free
      local m = loop.m
      ok, msg = reserve.give_way(self, core.rv1_decode(text):ranks(), function()
        local done, why = m:register(text, rec.id, {start = start, ["end"] = stop})
        if done then end_moved(self, rec, start, stop) end
        return done, why
      end)
    end
    if not ok then
      -- what it holds was promised from its end on, and cannot be given
      -- back: the job is left to its free, out of the planner
      emit(self, {op = "log", level = "err", message = fmt(
        "job %s outlived its end and could not be held: %s", base.f58(rec.id), tostring(msg))})
      sched.stop_estimate(loop, rec)
      rec.est_end = math.maxinteger
      sched.start_estimate(loop, rec)
    end
    rec = sched.first_by_est(loop)
  end
end

-- ---- RFC 28 -----------------------------------------------------------------------

-- Recount the units after the resources changed (the expiration needs
-- nothing here: the acquisition code moved the graph's).  true when the
-- set got smaller: a shrink took effect (at once, or when the last job on
-- a shrunk rank ended).
local function resources_changed(self)
  local loop = self.loop
  local before = loop.total
  loop.total = sched.count_units(loop)
  return loop.total < before
end

-- After the resource set shrank or its expiration came closer: a waiting
-- job that can never run here any more is denied with the reason, its
-- reservation given up (RFC 27: a job that can never run is denied;
-- flux-core's schedulers deny it when they come to it).  Left waiting, it
-- would wait for good, and under fcfs hold back every job behind it.  A
-- job without a duration of its own follows the expiration (refresh_open):
-- only a shrink looks at it.
local function deny_never(self, shrunk)
  local loop = self.loop
  for _, rec in ipairs(sched.waiting(loop)) do
    if shrunk or not rec.open then
      local msg, code = sched.admissible(loop, rec)
      if msg and code == "ENODEV" then
        sched.forget(loop, rec)
        rec.state = "denied"
        emit(self, {op = "alloc", id = rec.id, type = "deny",
          note = "unsatisfiable request: " .. msg})
      end
    end
  end
end

-- A resource.acquire response (the first: {resources = R, up = ids};
-- later: up, down, shrink, property-add, property-remove, expiration).
-- Reservations are planned again, running jobs kept.
function Flux:acquire(response)
  local r, err = decode(response)
  if type(r) ~= "table" then
    return fail(self, "resource.acquire", "EPROTO", err or "bad response")
  end
  tick(self)
  local loop = self.loop
  local horizon = loop.g:expiration()
  local log = function(a) emit(self, a) end
  topology.prepare(self, r, log)
  local ev, msg = self.acq:apply(r)
  if not ev then
    emit(self, {op = "log", level = "err", message = "resource.acquire: " .. tostring(msg)})
    return flush(self)
  end
  if r.resources ~= nil then topology.after(self, log) end
  -- the acquisition code keeps the graph's clock and horizon in seconds
  -- (R's): the loop's are ticks (the expiration's last fraction of a
  -- tick left out, as a window ending within it would end past it)
  local exp = self.acq:expiration()
  loop.g:set_expiration(exp > 0 and math.floor(exp * M.TICKS) or 0)
  if loop.g:now() ~= loop.now then sched.set_now(loop, loop.now) end
  local R0 = type(r.resources) == "table" and r.resources
  if R0 and type(R0.scheduling) == "table" and R0.scheduling.graph == nil then
    -- scheduler data that is not a graph: carried into each job's R
    self.sched_data = core.json_encode(R0.scheduling, 0)
  end
  local first = not self.started
  self.started = true
  local shrunk = resources_changed(self)
  local h2 = self.loop.g:expiration()
  if shrunk or h2 > 0 and (horizon == 0 or h2 < horizon) then deny_never(self, shrunk) end
  if r.expiration ~= nil and not first then
    -- said as flux-core's schedulers say it
    emit(self, {op = "log", level = "info",
      message = fmt("resource expiration updated to %.2f", tonumber(r.expiration) or 0)})
  end
  for _, e in ipairs(ev.exceptions or {}) do
    emit(self, {op = "exception", id = e.id, type = "resource", severity = 0,
      note = e.note or fmt("resources %s went away", tostring(e.targets))})
  end
  for _, rel in ipairs(ev.release or {}) do
    emit(self, {op = "release", group = rel.group, targets = rel.targets})
  end
  self.loop.not_up = (self.acq:targets("usable") == self.acq:targets("acquired")) and 0 or 1
  sched.drop_reservations(self.loop)
  -- what the first match after a change would build (the pruning
  -- aggregates of the whole graph: tens of ms at 16,384 nodes) is built
  -- here, so that no job's alloc waits for it
  self.loop.m:prepare()
  if first then
    -- and the first satisfiability check of a new matcher (every alloc
    -- asks one) costs 5-16 ms at 16,384 nodes once, whatever the
    -- request: paid here, on one core, and not by the first job
    pcall(self.loop.m.fits_idle, self.loop.m, core.jobspec_parse(PROBE))
    -- the policies' self-check, now that there is a graph: one that
    -- fails leaves the module on the built-in defaults (M.module)
    if not self.policy_fallback then
      local ok, why = policies.check(self, self.opts, self.opts.limits or {})
      if not ok then
        local wanted, dflt = self.opts, policies.defaults(self.opts)
        assert(take(self, dflt))
        self.opts, self.policy_fallback = wanted, why
        self.policy_files = policies.files(dflt) or {}
      end
    end
  end
  pass(self)
  return flush(self)
end

-- The ranks whose hwloc topology the module should fetch from the
-- instance before it hands over the first resource.acquire response
-- (response: that response): {{rank =, ranks =}, ...}
-- (grove.flux.topology).
function Flux:topology_asks(response)
  local r = decode(response)
  return topology.asks(self, r)
end

-- The topologies fetched: {classes = {{ranks =, rank =, xml =}, ...}}.
-- No actions.
function Flux:topology(payload)
  local r = decode(payload)
  topology.instance(self, r)
  return flush(self)
end

-- ---- RFC 27 -----------------------------------------------------------------------

-- The payload of the ready request: {mode = "limited", limit = N} or
-- {mode = "unlimited"}.
function Flux:ready()
  if self.limited then return {mode = "limited", limit = self.limited} end
  return {mode = "unlimited"}
end

-- The line the module logs once it is ready: its queue depth and
-- policies, and the resources it schedules, as flux-core's
-- schedulers announce themselves ("ready: queue-depth=unlimited ...
-- rank[0-1]/core[0-3]").  An action list of one log line (info).
function Flux:announce()
  local loop = self.loop
  local all = core.rv1_from_graph(loop.g)
  for _, note in ipairs(self.notes or {}) do
    emit(self, {op = "log", level = "info", message = note})
  end
  if self.policy_fallback then
    -- said loudly: the instance schedules, but not as configured
    emit(self, {op = "log", level = "crit", message = fmt("the configured policies cannot be "
      .. "used (%s): scheduling with the built-in defaults (queue policy fcfs, placement "
      .. "policy first) until a configuration whose policies load is given (flux config "
      .. "reload, flux grove reload)", self.policy_fallback)})
  end
  local names = {}
  for name, n in pairs(config.LEVELS) do names[n] = name end
  emit(self, {op = "log", level = "info", message = fmt(
    "ready: queue-depth=%s log-level=%s queue-policy=%s placement-policy=%s %s",
    self.limited or "unlimited", names[self.log_level],
    loop.queue_policy.name, tostring(loop.policy_name), all:summary())})
  return flush(self)
end

-- The payload of the hello request.
function Flux.hello_request(_)
  return {["partial-ok"] = true}
end

-- One job of the hello responses: {id, priority, userid, t_submit, R
-- (table or text), free = "ranks" (already released), jobspec
-- (optional)}.  Its R is put back in the graph as it is (minus the free
-- ranks); a job whose R is not free (another job holds it) is refused
-- with an "error" action and nothing changes.
function Flux:hello(job)
  local j, known, acts = job_request(self, job, "hello", "hello: a job needs an integer id")
  if not j then return acts end
  local loop = self.loop
  if known then
    return fail(self, "sched.hello", "EEXIST", fmt("hello: job %d is known already", j.id))
  end
  local R, msg = j.R
  if type(R) == "table" then R = core.json_encode(R, 0) end
  if type(R) ~= "string" then return fail(self, "sched.hello", "EPROTO", "hello: job has no R") end
  R, msg = core.rv1_decode(R)
  if not R then return fail(self, "sched.hello", "EPROTO", "hello: job's R: " .. tostring(msg)) end
  -- R's window (seconds) in the loop's ticks, the start rounded down and
  -- the end up: register takes the window given when R has none
  local st, ex = R:starttime() or 0, R:expiration() or 0
  local start = st > 0 and math.floor(st * M.TICKS + 1e-6) or 0
  local exp = ex > 0 and sched.ticks(loop, ex) or 0
  R:set_times(0, 0)
  local now = loop.now
  -- a job past its end still holds what it holds until its free (it is
  -- being killed, or housekeeping holds its nodes): put back as a job
  -- past its end is held (M.hold_overdue), not refused (its nodes were
  -- then given to others while housekeeping still held them)
  if exp > 0 and exp <= now then exp = now + M.OVERDUE_STEP end
  -- the ranks released already are left out; what has no rank (a
  -- rabbit's ssds, named by R's graph) is held until the final free
  local opts = {}
  if j.free and j.free ~= "" then
    if type(j.free) ~= "string" or not pcall(core.idset, j.free) then
      return fail(self, "sched.hello", "EPROTO", "hello: free: not an idset: " .. tostring(j.free))
    end
    opts.free = j.free
  end
  if start > 0 then opts.start = start end
  if exp > 0 then opts["end"] = exp end
  local ok, m2, code = loop.m:register(R, j.id, opts)
  local gone
  if not ok and code == "ENOENT" then
    -- some of R is no longer in the instance's set (`flux resource
    -- reload` of a smaller R while no scheduler was loaded): the job keeps
    -- what is left until its free and is ended with an exception, as a
    -- job on a shrunk rank.  Refused, it would hold on to those resources
    -- while it is torn down, and they would be given to another job.
    local all = core.rv1_from_graph(loop.g)
    local kept = R:intersect(all)
    if kept:ranks():count() > 0 then
      gone = R:diff(all)
      ok, m2, code = loop.m:register(kept, j.id, opts)
    end
  end
  if not ok then
    return fail(self, "sched.hello", code or "EBUSY",
      fmt("hello: job %d cannot be put back: %s", j.id, tostring(m2)))
  end
  if gone then
    -- (type "resource", as for a shrunk rank: the job manager reads a
    -- fatal "scheduler-restart" as "the scheduler holds nothing of it" and
    -- sends no free, and what is kept would be held for good)
    emit(self, {op = "exception", id = j.id, type = "resource", severity = 0,
      note = fmt("resources %s are no longer in the instance's set", gone:summary())})
  end
  local info = loop.m:info(j.id)
  local s0 = info.start or now
  local estimate = (info["end"] and info["end"] < math.maxinteger) and info["end"] - s0
    or self.default_duration
  local rec = {id = j.id, submit = j.t_submit or 0, priority = j.priority, user = j.userid,
    estimate = estimate, jobspec = j.jobspec}
  -- its bank and queue, for the limits that count them
  local jt = j.jobspec and jobspec_of(self, j.jobspec)
  if jt then
    rec.bank = base.bank_of(jt)
    rec.queue = queues.of(self, jt)
  end
  sched.adopt(loop, rec, s0)
  self.stale = true
  return flush(self)
end

-- job-manager.resource-status's answer ({allocated = R}), asked once
-- the module is ready: what the job manager holds allocated.  A job the
-- hello put back that the job manager no longer holds ended while no
-- scheduler was listening (flux-core sends no free while the scheduler is
-- offline, between a module's unload and the next one's ready, and the
-- job then leaves for good): its resources go back now, and so do the
-- ranks of a job of which the job manager holds only some.
function Flux:reconcile(response)
  local r, err = decode(response)
  local alloc = type(r) == "table" and r.allocated
  if type(alloc) == "table" then
    local ex = alloc.execution
    if type(ex) == "table" and type(ex.R_lite) == "table" and next(ex.R_lite) == nil then
      -- nothing allocated: an empty R_lite read into Lua is an empty table,
      -- which would be written back as an object
      alloc = '{"version":1,"execution":{"R_lite":[],"starttime":0,"expiration":0}}'
    else
      alloc = core.json_encode(alloc, 0)
    end
  end
  local A, msg
  if type(alloc) == "string" then A, msg = core.rv1_decode(alloc) end
  if not A then
    emit(self, {op = "log", level = "err", message = "reconcile: " .. tostring(err or
      "the job manager's allocated R cannot be read" .. (msg and ": " .. msg or ""))})
    return flush(self)
  end
  tick(self)
  local loop = self.loop
  local gone = 0
  for _, rec in pairs(loop.jobs) do
    if rec.state == "running" then
      -- by resource, not by rank: jobs share nodes
      local R = loop.m:rv1(rec.id)
      local kept = R and R:intersect(A):ranks()
      local lost = R and (R:diff(A):ranks() - kept)
      if lost and lost:count() > 0 then
        if kept:count() == 0 then
          sched.stop(loop, rec)
          sched.forget(loop, rec)
          rec.state = "done"
        else
          loop.m:release_ranks(rec.id, tostring(lost))
          sched.shrunk(loop, rec)
        end
        gone = gone + 1
        emit(self, {op = "log", level = "warning", message = fmt(
          "job %s: ranks %s freed while no scheduler was listening: released", base.f58(rec.id),
          tostring(lost))})
      end
    end
  end
  if gone > 0 then pass(self) end
  return flush(self)
end

-- A request's jobspec: a table, or its JSON text (read once a text, see
-- grove.sched); the table (not to be changed), or nil and the reason.
function jobspec_of(self, js)
  if type(js) == "string" then
    local t, msg = sched.jobspec_table(self.loop, js)
    if not t then return nil, "bad jobspec: " .. tostring(msg) end
    js = t
  end
  if type(js) ~= "table" then return nil end
  -- RFC 25: a V1 jobspec has attributes.system and its duration (the
  -- words are those flux-core's schedulers answer with)
  if js.version == 1 then
    local a = type(js.attributes) == "table" and js.attributes
    local system = a and a.system
    if type(system) ~= "table" then
      return nil, "getting duration: Object item not found: system"
    end
    if system.duration == nil then
      return nil, "getting duration: Object item not found: duration"
    end
  end
  return js
end

-- sched.alloc {id, priority, userid, t_submit, jobspec}: the job waits
-- (annotated), starts (success), or is denied when it can never run.
-- The jobspec may be given as its JSON text (the module does: the same
-- text is read once, not once a job).
function Flux:alloc(request)
  local r, known, acts = job_request(self, request, "alloc")
  if not r then return acts end
  self.allocs = (self.allocs or 0) + 1
  local loop = self.loop
  local id = r.id
  local function deny(note)
    emit(self, {op = "alloc", id = id, type = "deny", note = note})
    return flush(self)
  end
  if known then return deny(fmt("job %d is known already", id)) end
  if (self.debug or 0) & M.DEBUG_FAIL_ALLOC ~= 0 then return deny("DEBUG_FAIL_ALLOC") end
  local jt, jmsg = jobspec_of(self, r.jobspec)
  if not jt then return deny(jmsg or "alloc: the request has no jobspec") end
  local d = duration_of(jt)
  local qname, qmsg = queues.of(self, jt)
  if qmsg then return deny(qmsg) end
  local rec = {id = id, submit = tonumber(r.t_submit) or 0, priority = math.tointeger(r.priority)
    or 0, user = r.userid, jobspec = r.jobspec, estimate = estimate_of(self, d), open = d == 0,
    queue = qname, bank = base.bank_of(jt)}
  local msg, code = sched.admissible(loop, rec, true)
  if msg then
    if code == "ENODEV" then return deny("unsatisfiable request: " .. msg) end
    return deny(msg)
  end
  loop.jobs[id] = rec
  sched.enqueue(loop, rec)
  pass_soon(self, rec)
  return flush(self)
end

-- sched.free {id, R, final}: a partial free releases R's ranks at once
-- and the job lives on; the final one ends it.
function Flux:free(request)
  local r, rec, acts = job_request(self, request, "free")
  if not r then return acts end
  local loop = self.loop
  if not rec or rec.state ~= "running" then
    emit(self, {op = "log", level = "err", message = fmt("free: job %d is not running", r.id)})
    return flush(self)
  end
  if r.final == false or r.final == nil and r.R then
    -- a partial free: the ranks of R go back now
    local R = r.R
    if type(R) == "table" then R = core.json_encode(R, 0) end
    local parsed = type(R) == "string" and core.rv1_decode(R)
    if not parsed then
      emit(self, {op = "log", level = "err", message = fmt("free: job %d: bad R", r.id)})
      return flush(self)
    end
    local ok, msg = loop.m:release_ranks(r.id, tostring(parsed:ranks()))
    if not ok then
      emit(self, {op = "log", level = "err", message = fmt("free: job %d: %s", r.id,
        tostring(msg))})
      return flush(self)
    end
    if r.final == false then
      if self.log_level >= 7 then
        emit(self, {op = "log", level = "debug", message = fmt("free: %s: %s", base.f58(r.id),
          parsed:summary())})
      end
      sched.shrunk(loop, rec)
      pass(self)
      return flush(self)
    end
  end
  if self.log_level >= 7 then
    local R = type(r.R) == "table" and core.json_encode(r.R, 0) or r.R
    local parsed = type(R) == "string" and core.rv1_decode(R)
    emit(self, {op = "log", level = "debug", message = fmt("free: %s: %s(final)", base.f58(r.id),
      parsed and parsed:summary() .. " " or "")})
  end
  sched.stop(loop, rec)
  sched.forget(loop, rec)
  rec.state = "done"
  -- ranks a shrink left pending go once no job holds them (nothing to
  -- look at, and no events table made, when none is pending)
  if self.acq:targets("pending") ~= "" then
    self.acq:update()
    if resources_changed(self) then deny_never(self, true) end
  end
  pass_soon(self)
  return flush(self)
end

-- sched.cancel {id}: a waiting job's alloc is answered with type cancel;
-- anything else is ignored (RFC 27).
function Flux:cancel(request)
  local r, rec, acts = job_request(self, request, "cancel")
  if not r then return acts end
  local loop = self.loop
  if rec and rec.state == "queued" then
    sched.forget(loop, rec)
    rec.state = "cancelled"
    emit(self, {op = "alloc", id = r.id, type = "cancel"})
    -- a burst of cancels (flux cancel --all) costs one pass, as a
    -- burst of ends does
    pass_soon(self)
  end
  return flush(self)
end

-- sched.prioritize {jobs = {{id, priority}, ...}}: waiting jobs move in
-- the queue; reservations are planned again in the new order.
function Flux:prioritize(request)
  local r, err = decode(request)
  if type(r) ~= "table" or type(r.jobs) ~= "table" then
    return fail(self, "sched.prioritize", "EPROTO", err or "prioritize: jobs expected")
  end
  tick(self)
  local loop = self.loop
  for _, pair in ipairs(r.jobs) do
    local id, p = type(pair) == "table" and pair[1], type(pair) == "table" and pair[2]
    local rec = check_id(id) and loop.jobs[id]
    if rec and math.type(p) == "integer" then sched.prioritize(loop, rec, p) end
  end
  sched.drop_reservations(loop)
  pass_soon(self)
  return flush(self)
end

-- sched.expiration {id, expiration}: a running job's end moves (RFC 27);
-- responds, or an error when the job is unknown or the new end collides.
function Flux:expiration(request)
  local r, rec, acts = job_request(self, request, "expiration",
    "expiration: {id, expiration} expected", function(x) return type(x.expiration) == "number" end)
  if not r then return acts end
  local loop = self.loop
  if not rec or rec.state ~= "running" then
    return fail(self, "sched.expiration", "ENOENT", fmt("job %d is not running", r.id))
  end
  if (self.debug or 0) & M.DEBUG_EXPIRATION_DENY ~= 0 then
    return fail(self, "sched.expiration", "EINVAL", "Rejecting expiration update for testing")
  end
  -- 0: no end of its own (flux update DURATION=0): until the resource
  -- set expires, or for good
  local open = r.expiration == 0
  local horizon = loop.g:expiration()
  local new_end
  if not open then
    new_end = sched.ticks(loop, r.expiration)
  elseif horizon > 0 then
    new_end = horizon
  end
  if new_end and new_end <= loop.m:info(r.id).start then
    return fail(self, "sched.expiration", "EINVAL", "expiration before the job's start")
  end
  local ok, msg = move_end(self, rec, new_end)
  if not ok then
    pass(self)
    return fail(self, "sched.expiration", "EBUSY", fmt("job %d: %s", r.id, tostring(msg)))
  end
  rec.open = open
  emit(self, {op = "respond", topic = "sched.expiration", payload = {}})
  pass(self)
  return flush(self)
end

-- feasibility.check {jobspec}: {} when it could ever run here, else an
-- error (ENODEV, or EINVAL for a bad jobspec).
function Flux:feasibility(request)
  local r, err = decode(request)
  local jt, jmsg
  if type(r) == "table" then jt, jmsg = jobspec_of(self, r.jobspec) end
  if not jt then
    return fail(self, "feasibility.check", jmsg and "EINVAL" or "EPROTO",
      jmsg or err or "feasibility: jobspec expected")
  end
  tick(self)
  local d = duration_of(jt)
  local rec = {id = 0, jobspec = r.jobspec, estimate = estimate_of(self, d)}
  local msg, code = sched.admissible(self.loop, rec)
  if msg then
    return fail(self, "feasibility.check", code == "ENODEV" and "ENODEV" or "EINVAL",
      code == "ENODEV" and "Unsatisfiable request: " .. msg or msg)
  end
  emit(self, {op = "respond", topic = "feasibility.check", payload = {}})
  return flush(self)
end

-- ---- configuration -------------------------------------------------------------

-- Options opts taken: their policies loaded from their files (read
-- again: the loop's placements too), every one before anything changes,
-- then applied.  Running jobs keep their resources, waiting jobs their
-- order; every reservation is planned again by the pass that follows.
-- true, or nil and why (nothing changed).
function take(self, opts)
  local loop = self.loop
  local limits = opts.limits or {}
  local saved = loop.placements
  loop.placements = {}
  local pl0, qpol, msg
  pl0, msg = sched.placement(loop, opts.policy or "first")
  if pl0 then
    qpol, msg = queues.policy(loop, opts, limits)
    if qpol and type(qpol) == "string" then qpol, msg = sched.load_queue(qpol, limits) end
  end
  if not qpol then
    loop.placements = saved
    return nil, tostring(msg)
  end
  -- apply: nothing below fails
  loop.pl0, loop.pl_cur = pl0, nil
  loop.reserve_depth, loop.queue_depth = opts.reserve_depth, opts.queue_depth
  self.limited, self.match_format = opts.limited, opts.match_format or "rv1_nosched"
  self.log_level = opts.log_level or config.LEVELS.info
  self.forecast_period = opts.forecast_period
  self.record_estimates = opts.record_estimates
  self.queues, self.queue_names = opts.queues, opts.queue_names
  self.notes = opts.notes
  local tnote = topology.reconfigured(self, opts)
  if tnote then emit(self, tnote) end
  self.opts = opts
  sched.set_queue_policy(loop, qpol)
  sched.set_limits(loop, opts.run_limits)
  self.est, self.fc = nil, nil
  self.stale = true
  return true
end

-- The module's configuration (conf: the instance's, decoded; nil for the
-- options it runs with, read again) read (the module's arguments win),
-- its policy files read and hashed, its policies self-checked on a copy
-- of the live graph (grove.flux.policies), and only when all of that
-- went well, taken.  true and the policy files whose content changed,
-- or nil and why (nothing changed).
local function configure(self, conf)
  local opts, msg = self.opts
  if conf or self.conf then
    opts, msg = config.module_options(conf or self.conf, self.args)
    if opts then opts, msg = config.check(opts) end
    if not opts then return nil, msg end
  end
  local list, ferr = policies.files(opts)
  if not list then return nil, ferr end
  local ok, cmsg = policies.check(self, opts, opts.limits or {})
  if not ok then return nil, cmsg end
  ok, msg = take(self, opts)
  if not ok then return nil, msg end
  local again = policies.files(opts)
  local changed = policies.changed(self.policy_files, list)
  if not again or #policies.changed(list, again) > 0 then
    emit(self, {op = "log", level = "warning", message = "a policy file changed while it "
      .. "was loaded: what was read is in force; flux grove reload reads it again"})
  end
  if conf then self.conf = conf end
  self.policy_files = list
  if self.policy_fallback then
    emit(self, {op = "log", level = "notice", message = "the configured policies are in "
      .. "force again (they ran on the built-in default: " .. self.policy_fallback .. ")"})
    self.policy_fallback = nil
  end
  for _, note in ipairs(opts.notes or {}) do
    emit(self, {op = "log", level = "info", message = note})
  end
  return true, changed
end

-- Log lines of what changed in the configuration, key by key (the old
-- and new value), and of the policy files whose content changed: what
-- (a "config-reload" or "grove reload") applied them, or refused them
-- and why.
local function log_changes(self, what, old, new, files, refused)
  local level = refused and "err" or "info"
  local tail = refused and fmt(": refused (%s); the configuration in force stays", refused) or ""
  local lines = config.changes(old, new)
  for _, c in ipairs(lines) do
    emit(self, {op = "log", level = level, message = fmt("%s: %s: %s -> %s%s", what, c.key,
      c.old, c.new, tail)})
  end
  for _, f in ipairs(files or {}) do
    emit(self, {op = "log", level = level, message = fmt("%s: %s%s %s: content %s -> %s%s", what,
      f.key, f.queue and " of queue " .. f.queue or "", f.path, f.old or "(none)",
      f.new or "(gone)", tail)})
  end
  if refused and #lines == 0 and #(files or {}) == 0 then
    emit(self, {op = "log", level = level, message = fmt("%s: refused: %s", what, refused)})
  end
end

-- config-reload {conf}: the instance's configuration changed (`flux
-- config reload`): its [sched-grove] and [queues] tables are read again
-- (the module's arguments still win) and applied without a reload of the
-- module (configure): a bad key or value, a misspelt policy, one that
-- does not load or fails its self-check refuses the new configuration
-- with the reason (EINVAL), and the old one goes on.  Each change, or
-- each refused one with the reason, is said in the log.
function Flux:reconfigure(request)
  local r, err = decode(request)
  local conf = type(r) == "table" and r.conf
  if type(conf) ~= "table" then
    return fail(self, "config-reload", "EPROTO", err or "config-reload: {conf} expected")
  end
  tick(self)
  local old = self.conf
  local ok, changed = configure(self, conf)
  if not ok then
    local new_files = policies.files(config.module_options(conf, self.args) or self.opts or {})
    log_changes(self, "config-reload", old, conf,
      new_files and policies.changed(self.policy_files, new_files, true), changed)
    return fail(self, "config-reload", "EINVAL", changed)
  end
  log_changes(self, "config-reload", old, conf, changed)
  local loop = self.loop
  emit(self, {op = "log", level = "info", message = fmt(
    "configuration reloaded: queue-policy=%s placement-policy=%s%s", loop.queue_policy.name,
    loop.pl0.name, self.queue_names and " queues=" .. table.concat(self.queue_names, ",") or "")})
  emit(self, {op = "respond", topic = "config-reload", payload = {}})
  return flush(self)
end

-- `flux grove reload`: the policy files of the configuration in force
-- read again (flux-core's `flux config reload` asks the module nothing
-- when the TOML is unchanged); when one's content changed, or the module
-- runs on the built-in default, the configuration is taken again
-- (configure: loaded, self-checked, then applied; refused with the
-- reason, and the policies in force stay).  An answer for the operator,
-- or nil and why.
function Flux:reload_policies()
  local opts = self.opts
  if self.conf then opts = config.module_options(self.conf, self.args) or opts end
  local list, ferr = policies.files(opts)
  local changed = list and policies.changed(self.policy_files, list)
    or policies.reread(self.policy_files)
  if list and #changed == 0 and not self.policy_fallback then
    return fmt("no policy file changed (%d in force: %s)", #list, policies.show(list))
  end
  local ok, why = configure(self, nil)
  if not ok then
    log_changes(self, "grove reload", nil, nil, changed, ferr or why)
    return nil, ferr or why
  end
  log_changes(self, "grove reload", nil, nil, why)
  local lines = {}
  for _, f in ipairs(why) do
    lines[#lines + 1] = fmt("%s%s %s: %s -> %s", f.key, f.queue and " of queue " .. f.queue or "",
      f.path, f.old or "(none)", f.new or "(gone)")
  end
  if #lines == 0 then lines[1] = "the configured policies are in force again" end
  return "reloaded: " .. table.concat(lines, "; ")
end

-- restore {state = JSON text}: what the operator set with `flux grove`
-- that outlives the module (grove.flux.state), as the KVS holds it at
-- the module's load, put back (after the hello, before ready).
function Flux:restore(request)
  local r = decode(request)
  tick(self)
  if type(r) == "table" and r.state ~= nil then state.restore(self, r.state) end
  return flush(self)
end

-- The KVS key of that state.
function Flux.state_key()
  return state.KEY
end

-- sched.resource-status: {all, down, allocated}, each an R table
-- (grove.flux.ops).
Flux.resource_status = ops.resource_status

-- A pass when one is due: a reservation came due (self:next_wake(), on
-- the module's timer), the clock moved since the last pass, or something
-- changed without one (a hello).  The module calls it once a reactor
-- turn: after a message whose handler passed already, it costs nothing.
function Flux:schedule()
  tick(self)
  local now = self.loop.now
  if self.stale or self.passed_at ~= now or (self.wake and self.wake <= now) then
    local joined = self.joined
    -- only arrivals since the last pass: the estimates of the jobs ahead
    -- of them stand (grove.flux.annotate)
    local only_joined = joined and not self.moved and self.passed_at == now
      and not (self.wake and self.wake <= now)
    self.joined, self.moved = nil, nil
    pass(self, joined, not only_joined)
  end
  return flush(self)
end

-- When a pass is wanted next, in seconds, or nil: the earliest planned
-- start of a waiting job (whichever pass planned it: a pass that plans
-- only a later one keeps it), or what the last pass asked (a
-- reservation's window opening or closing, a forecast period ending).
-- A start planned at the end a job past its end is held to is left out:
-- that job's free brings the pass.
function Flux:next_wake()
  local loop = self.loop
  local w, now, lim = self.wake, loop.now, self.overdue_until
  for _, rec in pairs(loop.reserved_set) do
    local t = rec.reserved
    if t > now and (not lim or t > lim) and (not w or t < w) then w = t end
  end
  return sched.secs(loop, w)
end

-- Counters in the shape of `flux module stats` (grove.flux.ops).
Flux.stats = ops.stats

-- The handler for a message topic: "resource.acquire", "sched.hello",
-- "sched.alloc", "sched.free", "sched.cancel", "sched.prioritize",
-- "sched.expiration", "feasibility.check", "sched.resource-status".
local TOPICS = {["resource.acquire"] = Flux.acquire, ["sched.hello"] = Flux.hello,
  ["sched.alloc"] = Flux.alloc, ["sched.free"] = Flux.free, ["sched.cancel"] = Flux.cancel,
  ["sched.prioritize"] = Flux.prioritize, ["sched.expiration"] = Flux.expiration,
  ["feasibility.check"] = Flux.feasibility, ["config-reload"] = Flux.reconfigure,
  ["sched.resource-status"] = Flux.resource_status}
-- and the operator's commands, sched-grove.CMD (grove.flux.ops)
for topic, f in pairs(ops.TOPICS) do TOPICS[topic] = f end

-- An operator's command (`flux grove CMD`, grove.flux.ops).
Flux.grove = ops.command

-- The driver's work between two steps of a pass (grove.sched's
-- between): fn, called with no argument, or nil for none.
function Flux:set_between(fn)
  self.loop.between = fn
end

-- A request that only reads the loop's state (feasibility.check,
-- sched.resource-status, the statistics), answered between two steps
-- of a pass (sched_grove.c): method name's actions alone, the pass's own
-- kept for its end, and the clock left where the pass reads it.
function Flux:aside(name, ...)
  local saved = self.out
  self.out, self.in_aside = {}, true
  local r = table.pack(pcall(self[name], self, ...))
  self.out, self.in_aside = saved, nil
  if not r[1] then error(r[2], 0) end
  return table.unpack(r, 2, r.n)
end

-- What the clock's moving does first (grove.flux.base's tick): the jobs
-- past their end are held.
function Flux:on_tick()
  M.hold_overdue(self)
end

-- Handle one message by topic: its actions.
function Flux:handle(topic, payload)
  local h = TOPICS[topic]
  if not h then return fail(self, topic, "ENOSYS", fmt("unknown topic '%s'", tostring(topic))) end
  return h(self, payload)
end

-- The JSON text of the payload an action stands for: an alloc response
-- ({id, type, R?, annotations?, note?}) or a respond action's payload.
function M.payload(action)
  if action.op == "alloc" then
    local head = core.json_encode({id = action.id, type = TYPE_CODE[action.type],
      annotations = action.annotations, note = action.note}, 0)
    if not action.R then return head end
    return head:sub(1, -2) .. ',"R":' .. action.R .. "}"
  end
  return action.json or core.json_encode(action.payload or {}, 0)
end

return M
