-- grove.flux.why: why a job waits (`flux grove why JOBID`), from the
-- scheduling loop's state: whether it can ever run here, whether it fits
-- now (then the queue policy holds it back), whether a limit holds it
-- ([sched-grove.limits]: the holder, the limit and what is held), which
-- resources it cannot
-- get (down ones), what holds the resources of its earliest start (running
-- jobs by their expected end, other jobs' planned starts, reservations),
-- its own planned start, the reservations it may use.  A job the loop
-- does not know is explained from what the job manager said of it, which
-- the client asks first and sends along (its state, urgency, priority,
-- queue, and its queue's status, as `flux queue status` reads it): held,
-- waiting for dependencies, its queue stopped or disabled, not yet sent.
--
-- The answer is a table: {id, job (F58), state, queue, reasons = {{kind
-- =, text =}, ...}, start = planned or earliest start, hosts, blockers =
-- {{kind =, id | reservation =, text =}, ...}, spread_slots = a running
-- job's slots placed across locality domains}; grove.flux.ops prints it.
local core = require("grove.core")
local glimits = require("grove.limits")
local sched = require("grove.sched")
local base = require("grove.flux.base")
local names = require("grove.flux.names")
local reserve = require("grove.flux.reserve")

local M = {}

local fmt = string.format

-- The most jobs ahead or holders a reason lists by id.
local LIST_MAX = 5

local function add(d, kind, text)
  d.reasons[#d.reasons + 1] = {kind = kind, text = text}
end

-- The queue policy rec's queue runs.
local function policy_name(loop, rec)
  local pol = loop.queue_policy
  local sub = rec.queue and pol.subs and pol.subs[rec.queue]
  return (sub and sub.name) or (pol.default and pol.default.name) or pol.name
end

-- The waiting jobs ahead of rec in its own queue, and those of them that
-- hold a planned start.
local function ahead_of(loop, rec)
  local ahead, planned = {}, {}
  for _, w in ipairs(sched.waiting(loop)) do
    if w == rec then break end
    if w.queue == rec.queue then
      ahead[#ahead + 1] = w
      if w.reserved then planned[#planned + 1] = w end
    end
  end
  return ahead, planned
end

local function ids_text(loop, recs, offset, with_start)
  local parts = {}
  for i = 1, math.min(#recs, LIST_MAX) do
    local w = recs[i]
    local at = with_start and " at " .. names.show_time(w.reserved, offset, loop.tps) or ""
    parts[i] = base.f58(w.id) .. at
  end
  if #recs > LIST_MAX then parts[#parts + 1] = fmt("and %d more", #recs - LIST_MAX) end
  return table.concat(parts, ", ")
end

-- The ranks and hosts of a matcher job's picks.
local function where(loop, id)
  local R = loop.m:rv1(id)
  if not R then return nil end
  return tostring(R:ranks()), tostring(R:nodelist())
end

-- What holds the resources on ranks before start (running jobs, other
-- jobs' planned starts, reservations), rec's own records aside.
local function holders(self, rec, ranks, start, offset)
  local loop = self.loop
  local m = loop.m
  local out, seen = {}, {}
  for _, id in ipairs(self.acq:jobs_on(ranks) or {}) do
    local info = id ~= rec.id and m:job(id, false)
    if info and info.start < start and info["end"] > loop.now then
      local owner = reserve.owner(self, id)
      local other = loop.jobs[id]
      local on = tostring(m:rv1(id):restrict(ranks):nodelist())
      if owner then
        if not seen[owner] then
          seen[owner] = true
          local d
          for _, x in ipairs(reserve.describe(self, offset)) do
            if x.name == owner then d = x end
          end
          out[#out + 1] = {kind = "reservation", reservation = owner, text = fmt(
            "reservation '%s' (for %s) holds %s from %s to %s", owner, reserve.for_whom(d),
            d.hosts, d.start_text, d.end_text)}
        end
      elseif other and other.state == "running" then
        local ends = other.open and "with no time limit"
          or "until " .. names.show_time(info["end"], offset, loop.tps)
        out[#out + 1] = {kind = "running", id = id, text = fmt("job %s runs on %s %s",
          base.f58(id), on, ends)}
      elseif other and other.state == "queued" then
        out[#out + 1] = {kind = "planned", id = id, text = fmt(
          "job %s is planned to start on %s at %s", base.f58(id), on,
          names.show_time(info.start, offset, loop.tps))}
      end
    end
  end
  return out
end

-- The reservations rec may use, and what keeps it out of them now.
local function memberships(self, rec, d, offset)
  local loop = self.loop
  for _, r in ipairs(reserve.describe(self, offset)) do
    local full = self.resv[r.name]
    if reserve.member(self, full, rec) then
      d.reservations = d.reservations or {}
      d.reservations[#d.reservations + 1] = r.name
      if r.state == "waiting" then
        add(d, "member", fmt("it may use reservation '%s' (%s) once it opens at %s", r.name,
          r.hosts, r.start_text))
      elseif rec.open or loop.now + rec.estimate > r["end"] then
        add(d, "member", fmt("it is a member of reservation '%s', but a job there must end "
          .. "by its end (%s) and this one asks %s", r.name, r.end_text,
          rec.open and "no end" or names.show_span(rec.estimate, loop.tps)))
      else
        add(d, "member", fmt("it is a member of reservation '%s' (%s, open until %s), where "
          .. "it does not fit now", r.name, r.hosts, r.end_text))
      end
    end
  end
end

-- Why rec, waiting in the loop, waits.
local function pending(self, rec, d, offset)
  local loop = self.loop
  local now = loop.now
  d.state, d.queue = "pending", rec.queue
  local ahead, planned = ahead_of(loop, rec)
  d.ahead = #ahead
  d.policy = policy_name(loop, rec)
  local never = sched.unsatisfiable(loop, rec)
  if never then
    add(d, "never", "it can never run here: " .. never)
    return
  end
  local hold = sched.limit_hold(loop, rec)
  if hold then
    -- (the holder, the limit and what is held: d.limit for a client)
    d.limit = {holder = hold.kind, name = hold.kind ~= "all" and hold.name or nil,
      key = hold.key, limit = hold.limit, held = hold.held, asks = hold.asks}
    -- when it may start: where its holders' running jobs and planned
    -- starts leave it room under the limit, and the resources room too
    local t = sched.earliest(loop, rec)
    if t then d.start = sched.secs(loop, t) end
    add(d, "limit", glimits.text(hold) .. "; it starts when that is under the limit"
      .. (t and fmt(", at %s at the earliest by the running jobs' estimates",
        names.show_time(t, offset, loop.tps)) or ""))
    return
  end
  memberships(self, rec, d, offset)
  if loop.m:match(rec.js, "without_allocating") then
    local t = fmt("it fits now, but the queue policy %s has not started it", d.policy)
    if #ahead > 0 then
      t = t .. fmt(": %d job%s ahead of it%s wait%s (%s)", #ahead, #ahead == 1 and "" or "s",
        rec.queue and " in queue " .. rec.queue or "", #ahead == 1 and "s" or "",
        ids_text(loop, ahead, offset))
    end
    add(d, "order", t)
    if #planned > 0 then
      add(d, "protected", "starting it now would move the planned start of a job ahead: "
        .. ids_text(loop, planned, offset, true))
    end
    return
  end
  if not loop.m:fits_idle(rec.js) then
    local down = self.acq:targets("down")
    -- and what has no broker rank (a rabbit's ssds, marked by set-status)
    local rankless = {}
    for v in loop.g:vertices{status = "down"} do
      local r = v:rank()
      if not r or r < 0 then rankless[#rankless + 1] = v:path() end
    end
    local t = fmt("it does not fit on the resources that are up, even idle: ranks %s "
      .. "are down or drained", down ~= "" and down or "(none)")
    if #rankless > 0 then
      local shown = {table.unpack(rankless, 1, math.min(#rankless, 8))}
      t = t .. fmt(", and %d vert%s without a broker rank %s down (%s%s)", #rankless,
        #rankless == 1 and "ex" or "ices", #rankless == 1 and "is" or "are",
        table.concat(shown, ", "), #rankless > #shown and ", ..." or "")
    end
    add(d, "down", t)
    return
  end
  local start, ranks, hosts
  if rec.reserved then
    start = rec.reserved
    ranks, hosts = where(loop, rec.id)
    d.planned = true
  else
    local j = loop.m:match(rec.js, "without_allocating_future")
    if j then
      start = j.start
      local vs = {}
      for i, p in ipairs(j.picks) do vs[i] = p.vertex end
      local nodes = names.nodes_above(vs)
      local ids = core.idset()
      for _, v in ipairs(nodes) do ids:set(v:rank()) end
      ranks, hosts = ids:encode(), names.hostlist_of(nodes)
    end
  end
  if not start then
    local h = loop.g:expiration()
    add(d, "horizon", h > 0 and fmt("it finds no start before the resources expire at %s",
      names.show_time(h, offset, loop.tps)) or "it finds no start")
    return
  end
  d.start, d.hosts = sched.secs(loop, start), hosts
  d.blockers = holders(self, rec, ranks, start, offset)
  local parts = {}
  for i, b in ipairs(d.blockers) do parts[i] = b.text end
  add(d, "busy", fmt("the resources of its %s start (%s at %s, in %s) are held: %s",
    d.planned and "planned" or "earliest", hosts, names.show_time(start, offset, loop.tps),
    names.show_span(start - now, loop.tps), #parts > 0 and table.concat(parts, "; ")
    or "(by nothing now: the pass that places it has not run yet)"))
  if not rec.reserved and loop.reserve_depth and loop.nreserved >= loop.reserve_depth then
    add(d, "depth", fmt("it holds no planned start: reserve-depth %d is taken by jobs ahead",
      loop.reserve_depth))
  end
end

-- Why a job the loop does not know waits, from what the job manager
-- says (job: {state, urgency, priority, queue}; qs: its queue's status
-- {enable, start, stop_reason, disable_reason}); either may be nil.
local function unknown(self, d, job, qs)
  if type(job) ~= "table" then
    d.state = "unknown"
    add(d, "unknown", "sched-grove has no pending request of this job")
    return
  end
  d.state, d.queue = job.state, job.queue
  local st = job.state
  qs = type(qs) == "table" and qs or {}
  if st == "NEW" or st == "DEPEND" then
    add(d, "dependency", "it waits for its dependencies (state DEPEND)")
  elseif st == "PRIORITY" then
    add(d, "priority", "it waits for a priority (state PRIORITY)")
  elseif st == "SCHED" then
    if job.urgency == 0 then
      add(d, "held", "it is held (urgency 0): `flux job urgency ID default` releases it")
    elseif job.priority == 0 then
      add(d, "held", "its priority is 0: held by the priority plugin")
    end
    local q = job.queue and ("its queue " .. job.queue) or "the queue"
    if qs.start == false then
      add(d, "stopped", fmt("%s is stopped%s: `flux queue start%s` starts it", q,
        qs.stop_reason and " (" .. qs.stop_reason .. ")" or "",
        job.queue and " " .. job.queue or ""))
    end
    if qs.enable == false then
      add(d, "disabled", fmt("%s is disabled%s", q,
        qs.disable_reason and " (" .. qs.disable_reason .. ")" or ""))
    end
    if #d.reasons == 0 then
      add(d, "not-sent", self.limited and fmt("the job manager has not sent it yet: it sends "
        .. "at most %d pending jobs (queue-depth=%d)", self.limited, self.limited)
        or "the job manager has not sent it to the scheduler yet")
    end
  elseif st == "RUN" or st == "CLEANUP" then
    add(d, "started", fmt("it is not pending: it has started (state %s)", st))
  elseif st == "INACTIVE" then
    add(d, "inactive", "it is not pending: it is inactive")
  else
    add(d, "unknown", fmt("it is in state %s", tostring(st)))
  end
end

-- Why job r.id waits: the table described above.  r: {id, job, queue_status,
-- utc_offset}.
function M.explain(self, r)
  local loop = self.loop
  local rec = loop.jobs[r.id]
  local d = {id = r.id, job = base.f58(r.id), reasons = {}}
  local offset = r.utc_offset
  if rec and rec.state == "queued" then
    pending(self, rec, d, offset)
  elseif rec and rec.state == "running" then
    d.state = "running"
    local _, hosts = where(loop, rec.id)
    add(d, "started", fmt("it is not pending: it runs on %s since %s%s", tostring(hosts),
      names.show_time(rec.start, offset, loop.tps),
      rec.resv and " in reservation '" .. rec.resv .. "'"
      or ""))
    local job = loop.m:job(rec.id, false)
    if job and job.spread then
      d.spread_slots = job.spread
      add(d, "spread", fmt("%d of its slots %s over locality domains: when it started, no "
        .. "node had room for %s within one NUMA domain", job.spread,
        job.spread == 1 and "is spread" or "are spread", job.spread == 1 and "it" or "them"))
    end
  else
    unknown(self, d, r.job, r.queue_status)
  end
  return d
end

-- The answer as text: a line for the job, one for each reason.
function M.text(d)
  local head = fmt("job %s: %s", d.job, d.state)
  if d.queue then head = head .. fmt(" in queue %s", d.queue) end
  if d.ahead then head = head .. fmt(" (%d ahead of it, queue policy %s)", d.ahead, d.policy) end
  local out = {head}
  for _, r in ipairs(d.reasons) do out[#out + 1] = "  - " .. r.text end
  return table.concat(out, "\n") .. "\n"
end

return M
