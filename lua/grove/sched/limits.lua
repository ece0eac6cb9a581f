-- grove.sched.limits: limits on what running jobs hold, for the
-- scheduling loop (grove.sched): the count of what runs, the holds, and
-- the earliest start the limits allow a waiting job over time.
--
--   limits.set(loop, L)                 the limits (grove.limits.parse's
--                                       answer, nil: none), counted again
--   limits.held(loop, rec)              the limit a start of rec passes now
--   limits.hold(loop, rec)              the same, or by its last match
--   limits.admit(loop, rec)             whether rec's match may start
--   limits.count(loop, rec, sign)       a running job joins (1) or leaves
--   limits.start(loop, rec, from[, more])  the earliest start >= from the
--                                       limits allow
--   limits.earliest(loop, rec)          rec's earliest start, as a
--                                       reservation would plan it
--   limits.more(loop, rec, t, more)     a start planned apart, for start
--   limits.due_held(loop)               held jobs' reservations to drop
--   limits.index(loop, which, rec, on)  who holds what over time follows
--                                       a start, a stop, a reservation
--
-- Its state is the loop's fields limits, lim_count, lim_gen, lim_run,
-- lim_res and lim_plans, and a job's lim_* fields, lcons*, lsp, hc_* and
-- limit_hold; it reads the rest of the loop (now, jobs, reserved_set,
-- nreserved, plan_gen, unit, m) and changes nothing else but its
-- changed flag.  grove.sched calls it as jobs start and stop and
-- reservations come and go, and gives its drivers set_limits,
-- limit_start, earliest, limit_more, held, limit_hold and drop_held
-- under its own name.
--
-- What running jobs may hold, per user, bank, queue and overall
-- (grove.limits): self.limits (nil: none) and self.lim_count, what the
-- running jobs hold (each one's share in rec.lim_h), counted only while
-- there are limits.  A job that would pass one is held: the queue
-- policy does not see it (ctx:next and ctx:queue pass it over, but
-- ctx:queue("held")), a start of it is refused, and later jobs that fit
-- the limits start.  A reservation of it (and of any job) starts no
-- earlier than its limits allow (limit_start), so it holds none others
-- wait behind now, and its estimate counts the limit.  It is held
-- first by what it is known to ask (M.held: a plain request's units, a
-- jobspec's least counts), then by what its match gave (admit: the match
-- is given back).  A limit lowered below what runs stops no running job:
-- no new one of that holder starts until it is under.  self.lim_gen
-- moves whenever what is held or the limits change.
local core = require("grove.core")
local glimits = require("grove.limits")
local profile = require("grove.sched.profile")

local M = {}

local counting, counted_earliest = profile.counting, profile.counted_earliest

-- Who holds what over time, for starts planned under limits:
-- self.lim_run and self.lim_res (nil without limits), {[holder key] =
-- {[rec] = true}}, the running jobs and the waiting jobs that hold a
-- reservation, each under every holder it counts for (grove.limits
-- holder_keys; the keys it went in under kept in rec[which]).
--
-- And self.lim_plans, {[holder key] = {base =, [amount] = planner,
-- overdue =, next_end =}}: what
-- a holder's jobs hold of an amount over time, made at the first query
-- that needs it (limit_start) from its running jobs (until their
-- estimated ends) and its reservations (over their windows); a
-- reservation made or dropped is added to or taken from the holder's
-- planners at once (its spans kept in rec.lsp), a running job that starts
-- or stops drops them (made again at the next query).  Their total is
-- LBIG, far above any limit (what runs may pass a lowered limit), and
-- "the others hold at most cap throughout" is asked as "LBIG - cap
-- free", as grove.sched.profile counts units; times are the loop's less
-- base, the clock when the holder's planners were made.  A time that is
-- not whole (a driver's own clock) makes the amount's planner false: its
-- queries walk the intervals instead.  overdue: the clock at which a
-- running job past its end was counted until a tick from then; next_end:
-- the first estimated end of the running jobs counted; once the clock
-- moves from the one or reaches the other, the planners are made again.
local LBIG, LHORIZON = 1 << 60, 1 << 61

-- What rec is known to ask before its match (grove.limits asks), kept
-- while its request stays.
local function asks_of(self, rec)
  local a = rec.lim_ask
  if a and rec.lim_ask_js == (rec.js or false) then return a end
  a = glimits.asks(rec, self.unit)
  rec.lim_ask, rec.lim_ask_js = a, rec.js or false
  return a
end

-- rec's reservation in planner p of amount a (base: its origin): false
-- when its times are not whole.
local function res_span(self, p, base, rec, a)
  local t, d = rec.reserved, rec.estimate
  if math.type(t) ~= "integer" or math.type(d) ~= "integer" then return false end
  local x = asks_of(self, rec)[a] or 0
  if x <= 0 then return true end
  local s = t - base
  if s < 0 then
    d, s = d + s, 0
    if d <= 0 then return true end
  end
  if d > LHORIZON - s then d = LHORIZON - s end
  local lsp = rec.lsp
  if not lsp then
    lsp = {}
    rec.lsp = lsp
  end
  lsp[p] = assert(p:add(s, d, x))
  return true
end

-- rec joins (on) or leaves the index self[which] ("lim_run": a running
-- job, "lim_res": a waiting job's reservation) and the holders'
-- planners follow.
local function index(self, which, rec, on)
  local idx = self[which]
  local plans = self.lim_plans
  if on then
    if not idx or rec[which] then return end
    local keys = glimits.holder_keys(self.limits, rec)
    rec[which] = keys
    for _, k in ipairs(keys) do
      local set = idx[k]
      if not set then
        set = {}
        idx[k] = set
      end
      set[rec] = true
      local hp = plans and plans[k]
      if hp and which == "lim_run" then
        plans[k] = nil
      elseif hp then
        for _, a in ipairs(glimits.AMOUNTS) do
          local p = hp[a]
          if p and not res_span(self, p, hp.base, rec, a) then hp[a] = false end
        end
      end
    end
    return
  end
  local lsp = rec.lsp
  if lsp and which == "lim_res" then
    for p, sp in pairs(lsp) do p:remove(sp) end
    rec.lsp = nil
  end
  local keys = rec[which]
  if not keys then return end
  rec[which] = nil
  if not idx then return end
  for _, k in ipairs(keys) do
    local set = idx[k]
    if set then
      set[rec] = nil
      if next(set) == nil then idx[k] = nil end
    end
    if plans and which == "lim_run" then plans[k] = nil end
  end
end
M.asks = asks_of
M.index = index

-- Set the limits (L: grove.limits.parse's answer, or nil for none): what
-- the running jobs hold is counted again from the matcher.
function M.set(self, L)
  if glimits.empty(L) then L = nil end
  self.limits = L
  self.lim_gen = (self.lim_gen or 0) + 1
  self.changed = true
  -- the index of who holds what over time, made again under L
  for _, r in pairs(self.jobs) do
    index(self, "lim_run", r, false)
    index(self, "lim_res", r, false)
  end
  self.lim_plans = nil
  if not L then
    self.lim_count, self.lim_run, self.lim_res = nil, nil, nil
    return
  end
  self.lim_run, self.lim_res, self.lim_plans = {}, {}, {}
  local count = glimits.count()
  for rec in profile.by_est(self) do
    local info = self.m:info(rec.id)
    rec.lim_h = glimits.holds(info and info.counts)
    glimits.add(L, count, rec, rec.lim_h, 1)
    index(self, "lim_run", rec, true)
  end
  for _, rec in pairs(self.reserved_set) do index(self, "lim_res", rec, true) end
  self.lim_count = count
end

-- The earliest start >= from of the waiting job rec, for its estimate,
-- that its limits allow: over its whole run, what its holders' running
-- jobs hold until their estimated ends (one past its end holds until its
-- free: one tick from now at least) and what their other reservations
-- hold over their windows, with what rec asks, passes no limit.  nil
-- when none does (rec alone asks more than a limit).  Without limits,
-- from.  more: starts planned elsewhere (a driver's forecast, held in
-- the matcher apart from the loop's reservations), as M.limit_more
-- records them.
local function start(self, rec, from, more)
  local L = self.limits
  if not L then return from end
  -- the limits that bear on rec, kept while the limits and its request
  -- stay
  local h = asks_of(self, rec)
  local cons = rec.lcons
  if not cons or rec.lcons_L ~= L or rec.lcons_h ~= h then
    cons = glimits.constraints(L, rec, h)
    rec.lcons, rec.lcons_L, rec.lcons_h = cons, L, h
  end
  if #cons == 0 then return from end
  local now = self.now
  local run, res = self.lim_run, self.lim_res
  -- the intervals of a holder's jobs, for a walk
  local function over(key, a)
    local iv, n = {}, 0
    local set = run[key]
    if set then
      for r in pairs(set) do
        if r ~= rec then
          local e = r.est_end
          if not e or e <= now then e = now + 1 end
          iv[n + 1], iv[n + 2], iv[n + 3] = now, e, r.lim_h and r.lim_h[a] or 0
          n = n + 3
        end
      end
    end
    set = res[key]
    if set then
      for q in pairs(set) do
        local t = q.reserved
        if q ~= rec and t then
          iv[n + 1], iv[n + 2], iv[n + 3] = t, t + q.estimate, asks_of(self, q)[a] or 0
          n = n + 3
        end
      end
    end
    local list = more and more[key]
    if list then
      for k = 1, #list, 3 do
        iv[n + 1], iv[n + 2], iv[n + 3] = list[k], list[k + 1], list[k + 2][a] or 0
        n = n + 3
      end
    end
    return iv
  end
  local whole = math.type(now) == "integer" and math.type(from) == "integer"
    and math.type(rec.estimate) == "integer"
  for _, c in ipairs(cons) do
    c.at, c.iv = nil, nil
    if whole and not (more and more[c.key]) then
      c.at = function(s, d)
        -- (no start before now: what ran before is not in the planner)
        if s < now then s = now end
        local plans = self.lim_plans
        local hp = plans[c.key]
        -- a running job past its estimated end holds until a tick from
        -- now, whenever now is: such a holder's planners are made again
        -- when the clock has moved
        if hp and ((hp.overdue and hp.overdue ~= now) or (hp.next_end and now >= hp.next_end)) then
          hp = nil
        end
        if not hp then
          hp = {base = now}
          plans[c.key] = hp
        end
        local p = hp[c.amount]
        if p == nil then
          p = core.planner(LBIG, LHORIZON, 0)
          hp[c.amount] = p
          local base, a = hp.base, c.amount
          local set = run[c.key]
          for r in pairs(set or {}) do
            local e, x = r.est_end, r.lim_h and r.lim_h[a] or 0
            if math.type(e) ~= "integer" then
              p = false
              break
            end
            if e <= now and x > 0 then
              -- past its end, held until its free: a tick from now
              e, hp.overdue = now + 1, now
            elseif e > now and (not hp.next_end or e < hp.next_end) then
              -- (when one reaches its end still running, made again)
              hp.next_end = e
            end
            if x > 0 then assert(p:add(now - base, math.min(e - now,
              LHORIZON - (now - base)), x)) end
          end
          for q in pairs(p and res[c.key] or {}) do
            if not res_span(self, p, base, q, a) then
              p = false
              break
            end
          end
          if not p then hp[c.amount] = false end
        end
        if not p then
          return glimits.earliest_under({cap = c.cap, iv = over(c.key, c.amount)}, s, d)
        end
        -- rec's own reservation is no part of what it must fit beside
        local own = rec.lsp and rec.lsp[p]
        if own then
          p:remove(own)
          rec.lsp[p] = nil
        end
        local x = s - hp.base
        if d > LHORIZON - x then d = LHORIZON - x end
        local t = p:earliest(LBIG - c.cap, d, x)
        if own then res_span(self, p, hp.base, rec, c.amount) end
        return t and t + hp.base or nil
      end
    else
      c.iv = over(c.key, c.amount)
    end
  end
  return glimits.earliest(cons, from, rec.estimate)
end
M.start = start

-- The earliest start of the waiting job rec as reserve would plan it
-- now, without planning it: its reservation's when it holds one; under
-- limits, from the first start they allow (limit_start).  nil: none (it
-- alone asks more than a limit, or finds no start before the horizon).
function M.earliest(self, rec)
  if rec.reserved then return rec.reserved end
  if self.limits and M.held(self, rec) and rec.hc_ever then return nil end
  local from = start(self, rec, self.now)
  if not from then return nil end
  if from == self.now and self.limits and M.held(self, rec) then from = from + 1 end
  local after = from > self.now and from or nil
  while true do
    local t
    if counting(self) then
      t = counted_earliest(self, rec, rec.procs, rec.estimate, after)
    else
      local j = self.m:match(rec.js, "without_allocating_future", nil,
        after and {after = after} or nil)
      t = j and j.start or nil
    end
    if not t or not self.limits then return t end
    local t2 = start(self, rec, t)
    if t2 == t or not t2 then return t2 end
    after = t2
  end
end

-- Record in more (for limit_start) a start of rec at t planned apart
-- from the loop's reservations: what it asks over [t, t + its estimate),
-- under each of its holders.
function M.more(self, rec, t, more)
  local h = asks_of(self, rec)
  for _, k in ipairs(glimits.holder_keys(self.limits, rec)) do
    local list = more[k]
    if not list then
      list = {}
      more[k] = list
    end
    local n = #list
    list[n + 1], list[n + 2], list[n + 3] = t, t + rec.estimate, h
  end
end

-- The limit a start of the waiting job rec would pass now, by what it is
-- known to ask (grove.limits.check's answer, kept in rec.limit_hold for
-- a why), or nil.
-- The answer is kept on rec until what is held or the limits change
-- (self.lim_gen), and for as long as the limits stand when the job alone
-- asks more than a limit (it cannot start under it: a deep queue of such
-- jobs is passed over at the cost of a field a job, not a check).
function M.held(self, rec)
  local L = self.limits
  if not L then return nil end
  if rec.hc_L == L and (rec.hc_ever or rec.hc_gen == self.lim_gen) then
    rec.limit_hold = rec.hc_hold
    return rec.hc_hold
  end
  local hold = glimits.check(L, self.lim_count, rec, glimits.asks(rec, self.unit))
  rec.hc_L, rec.hc_gen, rec.hc_hold = L, self.lim_gen, hold
  rec.hc_ever = hold ~= nil and hold.asks > hold.limit
  rec.limit_hold = hold
  return hold
end

-- The limit that holds the waiting job rec (grove.limits.check's
-- answer), by what it is known to ask, else by what its last match gave
-- it (a match refused by a limit: admit); nil when none holds it.
function M.hold(self, rec)
  local hold = M.held(self, rec)
  if hold or not self.limits or not rec.lim_matched then return hold end
  hold = glimits.check(self.limits, self.lim_count, rec, rec.lim_matched)
  if hold then hold.measured = true end
  return hold
end

-- The reservations of the jobs a limit holds now that their limits no
-- longer allow are dropped: one whose start has come while the limit
-- still holds it (its holder's jobs ran past their estimates), or one
-- the limits' plan over time refuses now (a limit lowered, another job
-- of its holder started first): no job waits behind a start that cannot
-- happen.  A held job's reservation the limits allow stays: it is where
-- its holder's jobs leave it room (grove.sched's reserve).  The list of
-- those to drop, by id (grove.sched.drop_held drops them).
function M.due_held(self)
  local list = {}
  local now = self.now
  local key = self.lim_gen .. ":" .. self.plan_gen .. ":" .. self.nreserved
  for _, rec in pairs(self.reserved_set) do
    if M.held(self, rec) then
      local t = rec.reserved
      if t <= now then
        list[#list + 1] = rec
      elseif rec.lim_ok ~= key then
        if start(self, rec, t) == t then
          rec.lim_ok = key
        else
          list[#list + 1] = rec
        end
      end
    end
  end
  table.sort(list, function(a, b) return a.id < b.id end)
  return list
end

-- Whether rec, just matched (the matcher holds it under rec.id), may
-- start by what the match gave it; when it may not, the match is given
-- back and rec is held (rec.limit_hold).
function M.admit(self, rec)
  local L = self.limits
  if not L then return true end
  local info = self.m:info(rec.id)
  local h = glimits.holds(info and info.counts)
  local hold = glimits.check(L, self.lim_count, rec, h)
  if hold then
    hold.measured = true
    rec.limit_hold, rec.lim_matched = hold, h
    self.m:cancel(rec.id)
    return false
  end
  rec.lim_new = h
  return true
end

-- What running rec holds joins the count (sign 1) or leaves it (-1).
function M.count(self, rec, sign)
  local count = self.lim_count
  if not count then return end
  if sign > 0 then
    local h = rec.lim_new
    if not h then
      local info = self.m:info(rec.id)
      h = glimits.holds(info and info.counts)
    end
    rec.lim_h, rec.lim_new, rec.limit_hold = h, nil, nil
    glimits.add(self.limits, count, rec, h, 1)
    index(self, "lim_run", rec, true)
  elseif rec.lim_h then
    glimits.add(self.limits, count, rec, rec.lim_h, -1)
    rec.lim_h = nil
    index(self, "lim_run", rec, false)
  end
  self.lim_gen = self.lim_gen + 1
end

return M
