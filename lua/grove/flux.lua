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
-- The clock is opts.clock() (default os.time), read on every message;
-- the graph's time moves with it, never back.  A job's duration is its
-- jobspec's attributes.system.duration; none (or 0) means until the
-- resource set expires, or opts.default_duration when it does not.
--
-- The resource set's expiration is the engine's horizon: the acquisition
-- code sets the graph's expiration from each response that gives one, and
-- no match places a job whose window ends past it (see docs/flux.md,
-- "Expiration").
local core = require("grove.core")
local sched = require("grove.sched")

local M = {}

local fmt = string.format

-- RFC 27 alloc response types.
M.SUCCESS, M.ANNOTATE, M.DENY, M.CANCEL = 0, 1, 2, 3
local TYPE_CODE = {success = 0, annotate = 1, deny = 2, cancel = 3}

M.DEFAULT_DURATION = 365 * 24 * 3600

local Flux = {}
Flux.__index = Flux

local OPTIONS = {queue = 1, policy = 1, queue_depth = 1, reserve_depth = 1, match_format = 1,
  limited = 1, limits = 1, clock = 1, default_duration = 1, budget = 1, memory = 1, time = 1}

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
--   clock          a function returning the time (seconds; os.time)
--   default_duration  seconds for a job without one when the resource set
--                  does not expire (default one year)
-- Returns the object, or nil, message, code.
function M.new(opts)
  opts = opts or {}
  if type(opts) ~= "table" then
    error(fmt("bad argument #1 to 'new' (table expected, got %s)", type(opts)), 2)
  end
  for k in pairs(opts) do
    if not OPTIONS[k] then error(fmt("bad argument #1 to 'new' (unknown option '%s')", k), 2) end
  end
  local mf = opts.match_format or "rv1_nosched"
  if mf ~= "rv1_nosched" and mf ~= "rv1" then
    return nil, fmt("match-format must be rv1_nosched or rv1, got '%s'", tostring(mf)), "EINVAL"
  end
  for _, k in ipairs{"queue_depth", "reserve_depth", "limited"} do
    local v = opts[k]
    if v ~= nil and (math.type(v) ~= "integer" or v < 1) then
      return nil, fmt("%s must be a positive integer, got %s", k:gsub("_", "-"), tostring(v)),
        "EINVAL"
    end
  end
  local limits = opts.limits or {}
  local self = setmetatable({match_format = mf, limited = opts.limited,
    clock = opts.clock or os.time, default_duration = opts.default_duration or M.DEFAULT_DURATION,
    out = {}, started = false}, Flux)
  local g = core.graph()
  local now = math.floor(self.clock())
  local loop, msg, code = sched.init({}, {graph = g, queue = opts.queue, policy = opts.policy,
    unit = "core", reservations = "planner", now = now, queue_depth = opts.queue_depth,
    reserve_depth = opts.reserve_depth, timed = true, budget = limits.budget or opts.budget,
    memory = limits.memory or opts.memory, time = limits.time or opts.time})
  if not loop then return nil, msg, code end
  loop.total = 0
  loop.touched = {}     -- the waiting jobs whose annotations may change
  self.gen = 0          -- moves when a head's estimate may have moved
  loop.on_start = function(_, rec) self:started_job(rec) end
  loop.on_wake = function(_, t)
    if not self.wake or t < self.wake then self.wake = t end
  end
  sched.bind(loop)
  self.loop = loop
  self.acq = core.acquire(g, loop.m, {protocol = "current"})
  return self
end

-- ---- helpers ---------------------------------------------------------------------

local function decode(msg)
  if type(msg) == "string" then
    local t, err = core.json_decode(msg, "message")
    if t == nil then return nil, err end
    return t
  end
  return msg
end

local function emit(self, action)
  self.out[#self.out + 1] = action
end

-- Take the actions so far.
local function flush(self)
  local out = self.out
  self.out = {}
  return out
end

local function fail(self, topic, errnum, message)
  emit(self, {op = "error", topic = topic, errnum = errnum, message = message})
  return flush(self)
end

-- Move the clock to the caller's time (never back).
local function tick(self)
  local t = math.floor(self.clock())
  if t > self.loop.now then sched.set_now(self.loop, t) end
end

local function check_id(v)
  return math.type(v) == "integer" and v >= 0
end

-- The request text decoded, a table with an integer id (and ok(r) true
-- when given), and the clock moved on; else nil and the actions of an
-- EPROTO error on topic (the decoder's message, or what).
local function request_of(self, text, topic, what, ok)
  local r, err = decode(text)
  if type(r) ~= "table" or not check_id(r.id) or (ok and not ok(r)) then
    return nil, fail(self, topic, "EPROTO", err or what)
  end
  tick(self)
  return r
end

-- The job's duration in seconds, from its jobspec (0: none given).
local function duration_of(js)
  local a = type(js) == "table" and js.attributes
  local d = a and a.system and a.system.duration
  if type(d) ~= "number" or d <= 0 then return 0 end
  return math.ceil(d)
end

-- The estimate the planner holds a job for: its duration, or until the
-- resource set expires (the graph's expiration, the matcher's horizon),
-- or the default.
local function estimate_of(self, d)
  if d > 0 then return d end
  local now, horizon = self.loop.now, self.loop.g:expiration()
  if horizon > now then return horizon - now end
  return self.default_duration
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
          rec.view.estimate = e
          loop.queue_policy:share(rec.id, rec.view)
        end
      end
    end
  end
end

-- The R of job id as JSON text, per the match format.
local function R_of(self, id)
  local R = assert(self.loop.m:rv1(id, {graph = self.match_format == "rv1"}))
  return R:encode{graph = self.match_format == "rv1"}, R
end

-- ---- the loop's hooks ------------------------------------------------------------

-- A job started in a pass: its alloc response.
function Flux:started_job(rec)
  self.gen = self.gen + 1
  local text, R = R_of(self, rec.id)
  local ann = {sched = {resource_summary = R:summary()}}
  if rec.sent and rec.sent.t_estimate then ann.sched.t_estimate = core.null end
  if rec.sent and rec.sent.reason_pending then ann.sched.reason_pending = core.null end
  rec.sent = nil
  emit(self, {op = "alloc", id = rec.id, type = "success", R = text, annotations = ann})
end

-- The earliest start the planner finds now for rec, the head of the
-- queue: one match, made again only when the head, the clock or what the
-- planner holds moved since the last.
local function head_estimate(self, rec)
  local loop = self.loop
  local key = self.head_key
  if not key or key[1] ~= rec or key[2] ~= loop.now or key[3] ~= self.gen then
    local j = loop.m:match(rec.js, "without_allocating_future")
    self.head_key, self.head_t = {rec, loop.now, self.gen}, j and j.start or nil
  end
  return self.head_t
end

-- The waiting jobs whose annotation may have changed since the last
-- pass, in queue order: those the loop touched (joined the queue, a
-- reservation made or dropped), the head and the head before it.  Under
-- a queue depth, every waiting job (a job's place decides its reason).
local function to_annotate(self)
  local loop = self.loop
  local touched = loop.touched
  loop.touched = {}
  if loop.queue_depth then return sched.waiting(loop) end
  local jobs, cs = loop.jobs, loop.cs
  local head = cs:next()
  if head then touched[head] = jobs[head] end
  if self.head_id and self.head_id ~= head then touched[self.head_id] = jobs[self.head_id] end
  self.head_id = head
  local list, pos = {}, {}
  for id, rec in pairs(touched) do
    if jobs[id] == rec and rec.state == "queued" then
      list[#list + 1] = rec
      pos[rec] = cs:position(id)
    end
  end
  table.sort(list, function(a, b) return pos[a] < pos[b] end)
  return list, pos
end

-- After a pass: annotate the waiting jobs whose estimate changed.  A
-- job with a reservation has its start as t_estimate; so does the head
-- of the queue without one (the earliest start the planner finds for it
-- now, for the job users watch most).
local function annotate(self)
  local loop = self.loop
  local depth = loop.queue_depth
  local list, pos = to_annotate(self)
  for i, rec in ipairs(list) do
    if pos then i = pos[rec] end
    local want = {}
    local est = rec.reserved
    if not est and i == 1 then est = head_estimate(self, rec) end
    if est then
      want.t_estimate = est
    elseif depth and i > depth then
      want.reason_pending = "beyond the queue depth"
    else
      want.reason_pending = "insufficient resources"
    end
    local sent = rec.sent or {}
    if sent.t_estimate ~= want.t_estimate or sent.reason_pending ~= want.reason_pending then
      local a = {}
      a.t_estimate = want.t_estimate or (sent.t_estimate and core.null) or nil
      a.reason_pending = want.reason_pending or (sent.reason_pending and core.null) or nil
      rec.sent = want
      emit(self, {op = "alloc", id = rec.id, type = "annotate", annotations = {sched = a}})
    end
  end
end

local function policy_pass(self)
  local ok, err = sched.pass(self.loop)
  if ok == nil then
    emit(self, {op = "log", level = "err", message = tostring(err)})
  end
end

-- A pass of the queue policy, and the annotations after it.  new: the
-- job that just joined the queue (the only change since the last pass):
-- when the pass did not start it, whether it could ever run is looked at
-- (a job that starts needs no second match), and one that never can is
-- denied, its place given to the others in a pass again.  Without new,
-- something else moved (a job ended, resources, the order): a head's
-- estimate is looked for again.
local function pass(self, new)
  local loop = self.loop
  self.wake = nil
  self.passed_at, self.stale = loop.now, nil
  if not new then self.gen = self.gen + 1 end
  refresh_open(self)
  policy_pass(self)
  if new and new.state == "queued" then
    local msg, code = sched.unsatisfiable(loop, new)
    if msg then
      sched.forget(loop, new)
      new.state = "denied"
      emit(self, {op = "alloc", id = new.id, type = "deny",
        note = code == "ENODEV" and "unsatisfiable request: " .. msg or msg})
      policy_pass(self)
    end
  end
  annotate(self)
end

-- ---- RFC 28 -----------------------------------------------------------------------

-- Recount the units after the resources changed.  The expiration needs
-- nothing here: the acquisition code moved the graph's.
local function resources_changed(self)
  local loop = self.loop
  loop.total = sched.count_units(loop)
end

-- After the expiration came closer: a waiting job that can no longer end
-- before it (its duration is longer than what is left) can never run
-- here, and is denied with the reason, its reservation given up (RFC 27:
-- a job that can never run is denied).
local function deny_past_horizon(self)
  local loop = self.loop
  for _, rec in ipairs(sched.waiting(loop)) do
    if not rec.open then
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
  local horizon = self.loop.g:expiration()
  local ev, msg = self.acq:apply(r)
  if not ev then
    emit(self, {op = "log", level = "err", message = "resource.acquire: " .. tostring(msg)})
    return flush(self)
  end
  self.started = true
  resources_changed(self)
  local h2 = self.loop.g:expiration()
  if h2 > 0 and (horizon == 0 or h2 < horizon) then deny_past_horizon(self) end
  for _, e in ipairs(ev.exceptions or {}) do
    emit(self, {op = "exception", id = e.id, type = "resource", severity = 0,
      note = e.note or fmt("resources %s went away", tostring(e.targets))})
  end
  for _, rel in ipairs(ev.release or {}) do
    emit(self, {op = "release", group = rel.group, targets = rel.targets})
  end
  self.loop.not_up = (self.acq:targets("usable") == self.acq:targets("acquired")) and 0 or 1
  sched.drop_reservations(self.loop)
  pass(self)
  return flush(self)
end

-- ---- RFC 27 -----------------------------------------------------------------------

-- The payload of the ready request: {mode = "limited", limit = N} or
-- {mode = "unlimited"}.
function Flux:ready()
  if self.limited then return {mode = "limited", limit = self.limited} end
  return {mode = "unlimited"}
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
  local j, acts = request_of(self, job, "sched.hello", "hello: a job needs an integer id")
  if not j then return acts end
  local loop = self.loop
  if loop.jobs[j.id] then
    return fail(self, "sched.hello", "EEXIST", fmt("hello: job %d is known already", j.id))
  end
  local R, msg = j.R
  if type(R) == "table" then R = core.json_encode(R, 0) end
  if type(R) ~= "string" then return fail(self, "sched.hello", "EPROTO", "hello: job has no R") end
  R, msg = core.rv1_decode(R)
  if not R then return fail(self, "sched.hello", "EPROTO", "hello: job's R: " .. tostring(msg)) end
  if j.free and j.free ~= "" then
    R, msg = R:exclude(j.free)
    if not R then return fail(self, "sched.hello", "EPROTO", "hello: free: " .. tostring(msg)) end
  end
  local start = math.floor(R:starttime() or 0)
  local exp = R:expiration() or 0
  local now = loop.now
  local opts = {}
  if start > 0 then opts.start = start end
  if exp > 0 then opts["end"] = math.floor(exp) end
  local ok, m2, code = loop.m:register(R, j.id, opts)
  if not ok then
    return fail(self, "sched.hello", code or "EBUSY",
      fmt("hello: job %d cannot be put back: %s", j.id, tostring(m2)))
  end
  local info = loop.m:info(j.id)
  local s0 = info.start or now
  local estimate = (info["end"] and info["end"] < math.maxinteger) and info["end"] - s0
    or self.default_duration
  local rec = {id = j.id, submit = j.t_submit or 0, priority = j.priority, user = j.userid,
    estimate = estimate, jobspec = j.jobspec}
  sched.adopt(loop, rec, s0)
  self.stale = true
  return flush(self)
end

-- A request's jobspec: a table, or its JSON text (read once a text, see
-- grove.sched); the table (not to be changed), or nil and the reason.
local function jobspec_of(self, js)
  if type(js) == "string" then
    local t, msg = sched.jobspec_table(self.loop, js)
    if not t then return nil, "bad jobspec: " .. tostring(msg) end
    return t
  end
  if type(js) ~= "table" then return nil end
  return js
end

-- sched.alloc {id, priority, userid, t_submit, jobspec}: the job waits
-- (annotated), starts (success), or is denied when it can never run.
-- The jobspec may be given as its JSON text (the module does: the same
-- text is read once, not once a job).
function Flux:alloc(request)
  local r, acts = request_of(self, request, "sched.alloc", "alloc: a request needs an integer id")
  if not r then return acts end
  local loop = self.loop
  local id = r.id
  local function deny(note)
    emit(self, {op = "alloc", id = id, type = "deny", note = note})
    return flush(self)
  end
  if loop.jobs[id] then return deny(fmt("job %d is known already", id)) end
  local jt, jmsg = jobspec_of(self, r.jobspec)
  if not jt then return deny(jmsg or "alloc: the request has no jobspec") end
  local d = duration_of(jt)
  local rec = {id = id, submit = tonumber(r.t_submit) or 0, priority = math.tointeger(r.priority)
    or 0, user = r.userid, jobspec = r.jobspec, estimate = estimate_of(self, d), open = d == 0}
  local msg, code = sched.admissible(loop, rec, true)
  if msg then
    if code == "ENODEV" then return deny("unsatisfiable request: " .. msg) end
    return deny(msg)
  end
  loop.jobs[id] = rec
  sched.enqueue(loop, rec)
  pass(self, rec)
  return flush(self)
end

-- sched.free {id, R, final}: a partial free releases R's ranks at once
-- and the job lives on; the final one ends it.
function Flux:free(request)
  local r, acts = request_of(self, request, "sched.free", "free: a request needs an integer id")
  if not r then return acts end
  local loop = self.loop
  local rec = loop.jobs[r.id]
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
      sched.shrunk(loop, rec)
      pass(self)
      return flush(self)
    end
  end
  sched.stop(loop, rec)
  sched.forget(loop, rec)
  rec.state = "done"
  -- ranks a shrink left pending go once no job holds them (nothing to
  -- look at, and no events table made, when none is pending)
  if self.acq:targets("pending") ~= "" then self.acq:update() end
  pass(self)
  return flush(self)
end

-- sched.cancel {id}: a waiting job's alloc is answered with type cancel;
-- anything else is ignored (RFC 27).
function Flux:cancel(request)
  local r, acts = request_of(self, request, "sched.cancel", "cancel: a request needs an integer id")
  if not r then return acts end
  local loop = self.loop
  local rec = loop.jobs[r.id]
  if rec and rec.state == "queued" then
    sched.forget(loop, rec)
    rec.state = "cancelled"
    emit(self, {op = "alloc", id = r.id, type = "cancel"})
    pass(self)
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
    if rec and math.type(p) == "integer" then
      rec.priority = p
      loop.cs:prioritize(id, p)
      if rec.view then
        rec.view.priority = p
        if rec.state == "queued" then loop.queue_policy:share(id, rec.view) end
      end
    end
  end
  sched.drop_reservations(loop)
  pass(self)
  return flush(self)
end

-- sched.expiration {id, expiration}: a running job's end moves (RFC 27);
-- responds, or an error when the job is unknown or the new end collides.
function Flux:expiration(request)
  local r, acts = request_of(self, request, "sched.expiration",
    "expiration: {id, expiration} expected", function(x) return type(x.expiration) == "number" end)
  if not r then return acts end
  local loop = self.loop
  local rec = loop.jobs[r.id]
  if not rec or rec.state ~= "running" then
    return fail(self, "sched.expiration", "ENOENT", fmt("job %d is not running", r.id))
  end
  local m = loop.m
  local R = assert(m:rv1(r.id, {graph = true}))
  local info = m:info(r.id)
  local new_end = math.ceil(r.expiration)
  if new_end <= info.start then
    return fail(self, "sched.expiration", "EINVAL", "expiration before the job's start")
  end
  -- Reservations may sit where the job now extends: drop them, move the
  -- job, and let the pass plan them again.
  sched.drop_reservations(loop)
  m:cancel(r.id)
  -- register holds a job over its R's window: the same R, its end moved
  local text = R:encode{graph = true}
  local moved = text:gsub('"expiration":%s*[%d.eE+-]+', '"expiration":' .. new_end, 1)
  local ok, msg = m:register(moved, r.id, {start = info.start, ["end"] = new_end})
  if not ok then
    assert(m:register(text, r.id, {start = info.start, ["end"] = info["end"]}))
    pass(self)
    return fail(self, "sched.expiration", "EBUSY", fmt("job %d: %s", r.id, tostring(msg)))
  end
  -- the estimate list is ordered by est_end: out and in again
  sched.stop_estimate(loop, rec)
  rec.estimate = new_end - info.start
  rec.est_end = new_end
  sched.start_estimate(loop, rec)
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

-- sched.resource-status: {all, down, allocated}, each an R table.
function Flux:resource_status()
  tick(self)
  local loop = self.loop
  local all = core.rv1_from_graph(loop.g)
  local down_ids = self.acq:targets("down")
  local down = all:restrict(down_ids)
  local allocated
  for _, rec in pairs(loop.jobs) do
    if rec.state == "running" then
      local R = loop.m:rv1(rec.id)
      if R then allocated = allocated and allocated:union(R) or R end
    end
  end
  allocated = allocated or all:restrict("")
  local payload = {all = all:to_table(), down = down:to_table(),
    allocated = allocated:to_table()}
  -- the text from R's own writer: an empty R_lite stays an array
  local json = fmt('{"all":%s,"down":%s,"allocated":%s}', all:encode(), down:encode(),
    allocated:encode())
  emit(self, {op = "respond", topic = "sched.resource-status", payload = payload, json = json})
  return flush(self)
end

-- A pass when one is due: a reservation came due (self:next_wake(), on
-- the module's timer), the clock moved since the last pass, or something
-- changed without one (a hello).  The module calls it once a reactor
-- turn: after a message whose handler passed already, it costs nothing.
function Flux:schedule()
  tick(self)
  local now = self.loop.now
  if self.stale or self.passed_at ~= now or (self.wake and self.wake <= now) then
    pass(self)
  end
  return flush(self)
end

-- When a reservation comes due (a pass is wanted then), or nil.
function Flux:next_wake()
  return self.wake
end

-- Counters in the shape of `flux module stats`.
function Flux:stats()
  local st = self.loop.cs:stats()
  return {jobs_matched = st.matched, matches_failed = st.failed,
    match_time = {min = st.match_min, avg = st.match_avg, max = st.match_max},
    queue_length = st.queue_length, running = st.running,
    queue = self.loop.queue_policy.name, policy = self.loop.policy_name,
    ["queue-depth"] = self.loop.queue_depth, ["reserve-depth"] = self.loop.reserve_depth,
    ["match-format"] = self.match_format, expiration = self.acq:expiration()}
end

-- The handler for a message topic: "resource.acquire", "sched.hello",
-- "sched.alloc", "sched.free", "sched.cancel", "sched.prioritize",
-- "sched.expiration", "feasibility.check", "sched.resource-status".
local TOPICS = {["resource.acquire"] = Flux.acquire, ["sched.hello"] = Flux.hello,
  ["sched.alloc"] = Flux.alloc, ["sched.free"] = Flux.free, ["sched.cancel"] = Flux.cancel,
  ["sched.prioritize"] = Flux.prioritize, ["sched.expiration"] = Flux.expiration,
  ["feasibility.check"] = Flux.feasibility,
  ["sched.resource-status"] = Flux.resource_status}

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
