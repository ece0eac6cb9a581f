-- grove.flux.annotate: what a job shows while it waits and when it
-- starts (RFC 27 annotations: sched.t_estimate, sched.reason_pending,
-- sched.resource_summary), sent only when it changed.
--
-- After each pass, annotate(self) looks at the waiting jobs whose
-- annotation may have moved (those the loop touched, the head and the
-- head before it; every waiting job under a queue depth) and emits an
-- "annotate" alloc action for each whose estimate or reason changed.
-- started(self, rec) is the success action of a job a pass started,
-- with its resource summary and the pending keys cleared.
--
-- The estimates a job was shown are remembered (the first and the last,
-- with when each was sent, and how many) and written with its start, in
-- the annotation sched.estimated of the success response: the job
-- manager keeps the annotations of an alloc in its alloc event, so a
-- history (grove flux-export) holds them and `grove sim --history`
-- measures how far the estimates were from the starts.
local core = require("grove.core")
local sched = require("grove.sched")
local base = require("grove.flux.base")

local M = {}

-- flux-core's scheduler test hook (`flux module debug --setbit 0x2`):
-- every waiting job shows reason_pending and its place (jobs_ahead)
-- instead of a start estimate, as sched-simple does under that bit.
M.DEBUG_JOBS_AHEAD = 2

-- The keys of a waiting job's annotations (sched.*).
local KEYS = {"t_estimate", "reason_pending", "jobs_ahead"}

local emit = base.emit
local fmt = string.format

-- Does job a come before job b in the queue (the order grove.core.sched
-- keeps: the queue policy's priority, the job's, submit time, id)?  a and
-- b are grove.core.sched's records of them (cs:job).
local function before(a, b)
  if a.policy_priority ~= b.policy_priority then return a.policy_priority > b.policy_priority end
  if a.priority ~= b.priority then return a.priority > b.priority end
  if a.t_submit ~= b.t_submit then return a.t_submit < b.t_submit end
  return a.id < b.id
end

-- A job started in a pass: its alloc response.  A job that starts while
-- one ahead of it in the queue waits was backfilled: its annotations say
-- which job it went past (sched.backfill, the head's id in F58, as
-- flux-core's backfill scheduler writes it).
function M.started(self, rec)
  self.gen = self.gen + 1
  local text, R = base.R_of(self, rec)
  local ann = {sched = {resource_summary = R:summary()}}
  -- its memory is C's, which Lua's collector does not count: given back
  -- now, not at a collection paced by the Lua heap alone
  R:close()
  -- slots placed across locality domains (no node had one domain with
  -- room for them): said, as sched.spread_slots
  local job = self.loop.m:job(rec.id, false)
  if job and job.spread then ann.sched.spread_slots = job.spread end
  local cs = self.loop.cs
  local head = cs:next()
  if head and before(cs:job(head), cs:job(rec.id)) then ann.sched.backfill = base.f58(head) end
  for _, k in ipairs(KEYS) do
    if rec.sent and rec.sent[k] ~= nil then ann.sched[k] = core.null end
  end
  local e = rec.estimated
  if e and self.record_estimates then
    ann.sched.estimated = {first = e.first, first_at = e.first_at, last = e.last,
      last_at = e.last_at, count = e.count}
  end
  rec.sent, rec.estimated = nil, nil
  emit(self, {op = "alloc", id = rec.id, type = "success", R = text, annotations = ann})
end

-- How many waiting jobs, in queue order, show a start estimate: the
-- loop's reserve depth when one is set, else the queue policy's own
-- (its estimate_depth: easy 1, fcfs 64), else every one.
local function depth_of(self)
  local loop = self.loop
  return loop.reserve_depth or loop.queue_policy.estimate_depth or math.huge
end

-- The start estimates of the first waiting jobs (up to depth_of), by
-- job: a job's reservation when it holds one, else the earliest start
-- the planner finds for it given the reservations and the estimates of
-- the jobs before it, each held in the planner while the later ones are
-- looked for and all given back after.  Under a queue policy that starts
-- jobs in queue order (in_order: fcfs), no job starts before the one
-- ahead of it, and the forecast stops at a job with no estimate or no
-- duration of its own (what follows it cannot be known); flux-core's
-- fifo forecasts the same way.  Within a forecast the room only shrinks
-- (each estimate found is held) and the floor only rises, so a request
-- that found no start finds none again: a job of the same request (the
-- same shape, constraints and duration, under a C placement policy:
-- sched.alike_key) is not looked for again (jobs that wait for drained
-- nodes cost one walk a forecast, not one a job), and one alike a job
-- that found a start is looked for from that start on.
local function forecast(self)
  local loop = self.loop
  local m, cs, jobs = loop.m, loop.cs, loop.jobs
  local in_order = loop.queue_policy.in_order
  local depth = depth_of(self)
  self.forecasts = (self.forecasts or 0) + 1
  local est, held, none, alike = {}, {}, {}, {}
  local floor, known = loop.now, true
  local id, i = cs:next(), 0
  local last
  local between = loop.between
  -- under limits, what the forecast's own estimates hold over time, per
  -- holder (sched.limit_start's more)
  local limits = loop.limits
  local more = limits and {}
  while id and i < depth do
    if between then between() end
    i = i + 1
    last = id
    local rec = jobs[id]
    local t = rec.reserved
    -- a job a limit holds now starts when its holders' jobs leave it
    -- room: it is forecast from the first start its limits allow, and so
    -- is a job they would hold later (another of its holder's jobs
    -- forecast before it); the jobs behind it are forecast beside that
    -- start.  Such a start is the limits', not the room's: it is
    -- remembered for no other job, and under fcfs it is no floor for the
    -- jobs behind (the policy passes a held job over)
    local limited = limits and sched.limit_hold(loop, rec)
    local key = not t and known and rec.js and sched.alike_key(loop, rec)
    local bound = false
    if not t and known and rec.js and not (key and none[key]) then
      local after = in_order and floor or nil
      local kf = key and alike[key]
      if kf and (not after or kf > after) then after = kf end
      local go = true
      if limits then
        local from = after or loop.now
        local lfrom = sched.limit_start(loop, rec, from, more)
        if lfrom and lfrom == loop.now and limited then lfrom = lfrom + 1 end
        if not lfrom then
          go = false
        elseif lfrom > from then
          after, bound = lfrom, true
        end
      end
      while go do
        local j = sched.reserve_looking(loop, m, rec.js, nil, {after = after, picks = false})
        if not j then
          if key and not bound then none[key] = true end
          break
        end
        local t2 = limits and sched.limit_start(loop, rec, j.start, more)
        if limits and t2 ~= j.start then
          -- room at a start the limits refuse: from the first they allow
          m:cancel(j.id)
          if not t2 then break end
          after, bound = t2, true
        else
          t = j.start
          held[#held + 1] = j.id
          if key and not bound then alike[key] = t end
          if limits then sched.limit_more(loop, rec, t, more) end
          break
        end
      end
    end
    est[rec] = t
    if in_order and not limited and not bound then
      if not t or rec.open then known = false else floor = t end
    end
    id = cs:next(id)
  end
  for k = #held, 1, -1 do m:cancel(held[k]) end
  return est, i, last
end

-- Does a job of touched (joined the queue, or its reservation moved) lie
-- within what the last forecast fc covered?  One behind the last job it
-- covered changes none of the estimates before it (the jobs ahead of a
-- job are planned without it), unless the forecast stopped short of its
-- depth: a deep queue's arrivals then cost no forecast.
local function within(self, fc, touched)
  if not next(touched) then return false end
  if not fc.last or fc.n < depth_of(self) then return true end
  local cs, jobs = self.loop.cs, self.loop.jobs
  local last = cs:job(fc.last)
  if not last or jobs[fc.last] == nil or jobs[fc.last].state ~= "queued" then return true end
  for id, rec in pairs(touched) do
    if jobs[id] == rec and rec.state == "queued" and before(cs:job(id), last) then
      return true
    end
  end
  return false
end

-- Is a forecast due?  When something moved since the last (a job
-- started or ended, resources or the order changed: self.gen; a job
-- joined or left the queue; the clock), and, with a forecast period,
-- not before that much time has passed since the last (the estimates
-- then wait, and a pass is asked for when the period is over).
local function forecast_due(self, touched)
  local loop = self.loop
  local fc = self.fc
  if fc and fc.gen == self.gen and fc.now == loop.now and not within(self, fc, touched) then
    return false
  end
  local period = self.forecast_period
  if period then period = sched.ticks(loop, period) end
  if fc and period and loop.now < fc.at + period then
    local due = fc.at + period
    if not self.wake or due < self.wake then self.wake = due end
    return false
  end
  return true
end

-- The waiting jobs whose annotation may have changed since the last
-- pass, in queue order, and their place in the queue: after a forecast,
-- the jobs it covered and those that left it; else those the loop
-- touched (joined the queue, a reservation made or dropped).  Under a
-- queue depth, every waiting job (a job's place decides its reason).
local FEW_TOUCHED = 16
local function to_annotate(self)
  local loop = self.loop
  local touched = loop.touched
  loop.touched = {}
  local jobs, cs = loop.jobs, loop.cs
  if loop.queue_depth then return sched.waiting(loop) end
  if forecast_due(self, touched) then
    local est, n, last = forecast(self)
    for rec in pairs(self.est or {}) do
      if not est[rec] then touched[rec.id] = rec end
    end
    self.est, self.fc = est, {gen = self.gen, now = loop.now, at = loop.now, n = n,
      last = last}
    local id = cs:next()
    for _ = 1, n do
      touched[id] = jobs[id]
      id = cs:next(id)
    end
  end
  local list, pos = {}, {}
  local k = 0
  for id, rec in pairs(touched) do
    if jobs[id] == rec and rec.state == "queued" then
      k = k + 1
      list[k] = rec
    end
  end
  if k <= FEW_TOUCHED then
    for _, rec in ipairs(list) do pos[rec] = cs:position(rec.id) end
    table.sort(list, function(a, b) return pos[a] < pos[b] end)
    return list, pos
  end
  -- a job's place is a walk from the head: many jobs (a forecast's
  -- thousands) are placed by one walk of the queue, already in order,
  -- not one walk each and a sort (10,000 waiting jobs: 150 ms after each
  -- pass, with no step between)
  local want = {}
  for _, rec in ipairs(list) do want[rec.id] = rec end
  local ordered = {}
  local between = loop.between
  local id, i = cs:next(), 0
  while id and k > 0 do
    i = i + 1
    if between and i % 256 == 0 then between() end
    local rec = want[id]
    if rec then
      pos[rec] = i
      ordered[#ordered + 1] = rec
      k = k - 1
    end
    id = cs:next(id)
  end
  return ordered, pos
end

-- After a pass: annotate the waiting jobs whose annotation changed.  A
-- job within the estimate depth shows its forecast start (t_estimate)
-- when it has one; a job that is waiting says why (reason_pending):
-- "insufficient resources", or when it could start now but the jobs
-- ahead of it hold it back (an order or a reservation), "waiting for the
-- jobs ahead".
function M.annotate(self)
  local loop = self.loop
  local depth = loop.queue_depth
  local ahead = (self.debug or 0) & M.DEBUG_JOBS_AHEAD ~= 0
  local list, pos
  if ahead then
    list = sched.waiting(loop)
  else
    list, pos = to_annotate(self)
  end
  local est = self.est or {}
  local between = loop.between
  for i, rec in ipairs(list) do
    if between then between() end
    if pos then i = pos[rec] end
    local want = {}
    local t = est[rec]
    if ahead then
      want.reason_pending, want.jobs_ahead = "insufficient resources", i - 1
    elseif depth and i > depth then
      want.reason_pending = "beyond the queue depth"
    else
      -- (seconds, as flux-core's schedulers give it: to the millisecond)
      want.t_estimate = sched.secs(loop, t)
      want.reason_pending = t == loop.now and "waiting for the jobs ahead"
        or "insufficient resources"
      local hold = loop.limits and sched.limit_hold(loop, rec)
      if hold then
        -- (flux-core's words for a job held by a limit, with the limit;
        -- its estimate is the forecast's, from the first start its limits
        -- allow)
        want.reason_pending = fmt("%s limit %s", hold.kind == "all"
          and "instance" or hold.kind .. " " .. tostring(hold.name), hold.key)
      end
    end
    M.send(self, rec, want)
  end
end

-- Send rec's annotations want ({key = value}) where they differ from
-- what was sent last: only the keys that changed (null: the key is
-- removed).
function M.send(self, rec, want)
  local sent = rec.sent or {}
  local a
  for _, k in ipairs(KEYS) do
    if sent[k] ~= want[k] then
      a = a or {}
      a[k] = want[k] == nil and core.null or want[k]
    end
  end
  if a then
    rec.sent = want
    local t = want.t_estimate
    if t ~= nil and t ~= sent.t_estimate then
      -- an estimate shown: the first and the last, for the start's annotation
      local e = rec.estimated
      local now = sched.secs(self.loop, self.loop.now)
      if not e then
        rec.estimated = {first = t, first_at = now, last = t, last_at = now, count = 1}
      else
        e.last, e.last_at, e.count = t, now, e.count + 1
      end
    end
    self.annotations_sent = (self.annotations_sent or 0) + 1
    emit(self, {op = "alloc", id = rec.id, type = "annotate", annotations = {sched = a}})
  end
end

return M
