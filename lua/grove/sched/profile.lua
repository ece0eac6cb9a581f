-- grove.sched.profile: what the running jobs hold over time by their
-- estimates, and the counted reservations, for the scheduling loop
-- (grove.sched).
--
--   profile.start_estimate(loop, rec)  a running job joins, by estimated end
--   profile.stop_estimate(loop, rec)   it leaves
--   for rec in profile.by_est(loop)    the running jobs, earliest end first
--   profile.counting(loop)             whether reservations are counted
--   profile.counted_earliest(loop, rec, p, d[, after])  the earliest counted start
--   profile.set_vres(loop, rec, t)     rec's counted reservation at t (or none)
--   profile.shadow(loop, p)            the shadow time of p units
--   profile.set_out(loop, units, held) the units out of use
--
-- Its state is the loop's fields that grove.sched.init makes (by_est,
-- cplan and cbase, free_cache, held and held_units, out_units and
-- out_known) and a running or waiting job's (cspan, vspan, vres,
-- held_out); it reads the rest of the loop (now, total, used,
-- reserved_set) and changes nothing else.  grove.sched calls it as jobs
-- start and stop and reservations come and go, and gives its drivers
-- by_est, first_by_est, start_estimate, stop_estimate, free_units and
-- set_out under its own name.
local core = require("grove.core")

local M = {}

-- Running jobs by estimated end, sorted, in blocks of at most
-- 2 * EST_BLOCK: insert and remove search the blocks, then the block, and
-- move at most a block's elements.  (One sorted array moved every later
-- element at each end: jobs end in any order, and with a thousand
-- running a free moved hundreds.)  "What is free at t by the estimates"
-- walks a prefix (M.by_est).
local EST_BLOCK = 64

local function est_before(a, b)
  local x, y = a.est_end, b.est_end
  if x ~= y then return x < y end
  return a.id < b.id
end

local function est_position(list, rec)
  local lo, hi = 1, #list + 1
  while lo < hi do
    local mid = (lo + hi) // 2
    if est_before(list[mid], rec) then lo = mid + 1 else hi = mid end
  end
  return lo
end

-- The index of the block where rec is or goes: the first whose last
-- record is not before rec (the last block when every one is).
local function est_block(blocks, rec)
  local lo, hi = 1, #blocks
  while lo < hi do
    local mid = (lo + hi) // 2
    local b = blocks[mid]
    if est_before(b[#b], rec) then lo = mid + 1 else hi = mid end
  end
  return lo
end

local profile_run, profile_unrun

local function est_insert(self, rec)
  if self.cplan then profile_run(self, rec) end
  local blocks = self.by_est
  if not blocks[1] then
    blocks[1] = {rec}
    return
  end
  local bi = est_block(blocks, rec)
  local b = blocks[bi]
  table.insert(b, est_position(b, rec), rec)
  local n = #b
  if n > 2 * EST_BLOCK then
    table.insert(blocks, bi + 1, table.move(b, EST_BLOCK + 1, n, 1, {}))
    for i = n, EST_BLOCK + 1, -1 do b[i] = nil end
  end
end

local function est_remove(self, rec)
  if rec.cspan then profile_unrun(self, rec) end
  local blocks = self.by_est
  local bi = blocks[1] and est_block(blocks, rec)
  local b = bi and blocks[bi]
  local i = b and est_position(b, rec)
  assert(i and b[i] == rec, "running job missing from the estimate list")
  table.remove(b, i)
  if not b[1] then table.remove(blocks, bi) end
end

-- The running jobs in order of estimated end (earliest first), for a
-- generic for.
function M.by_est(self)
  local blocks, bi, i = self.by_est, 1, 0
  local b = blocks[1]
  return function()
    while b do
      i = i + 1
      local r = b[i]
      if r then return r end
      bi, i = bi + 1, 0
      b = blocks[bi]
    end
  end
end

-- The running job of the earliest estimated end, or nil.
function M.first_by_est(self)
  local b = self.by_est[1]
  return b and b[1]
end

-- (for a driver that moves a running job's end: out, then in again)
M.stop_estimate, M.start_estimate = est_remove, est_insert

-- Whether reservations are counted rather than recorded in the planner:
-- every job in the system is a plain request (any cores, or any whole
-- nodes), every node is up or the driver tells which units are out
-- (M.set_out), and the driver did not ask otherwise.  Units are then
-- interchangeable, and a counted plan is both exact and realizable (a
-- job needs only that enough units are free when it starts); a
-- reservation pinned to vertices in the planner would also have to find
-- the same vertices free over its whole window, which counting does not
-- ask.  Anything else plans in the planner.
local function counting(self)
  return self.count_mode and self.jobspecs == 0 and (self.not_up == 0 or self.out_known)
end

M.counting = counting

-- ---- the counted profile ------------------------------------------------------------
--
-- "The earliest start >= now at which p units are free for d seconds,
-- given the running jobs' estimates and the counted reservations" is one
-- query of a planner of the units counted in use over time (the profile,
-- self.cplan), not a walk of every running job and reservation: each
-- running job holds a span from when it joined the profile to its
-- estimated end (rec.cspan), each counted reservation a span over its
-- window (rec.vspan), kept as jobs start and stop and reservations come
-- and go.  A conservative queue planned again at each early end then
-- costs a query a job, O((1 + g) log n) (planner.h), not a walk of every
-- reservation a job.
--
-- The planner's total is CBIG, far above any machine: what the loop
-- counts in use may pass the machine's units (a queue policy may start a
-- job a counted reservation did not leave room for; the walk this
-- replaces summed such usage too), and "used <= cap - p throughout" is
-- asked as "CBIG - (cap - p) free".  Its times are the loop's less
-- self.cbase (the clock when it was made), so that they start at 0.
-- Made at the first counted query, dropped (M.set_out) when what running
-- jobs count changes; times that are not whole seconds (a driver's own
-- clock) are counted by the walk (counted_walk) instead.
local CBIG = 1 << 60
local CHORIZON = 1 << 61

-- The units rec counts in the profile: what it holds, less what it holds
-- on nodes out of use (M.set_out).
local function usable(rec)
  return rec.procs - (rec.held_out or 0)
end

local math_type = math.type

local function whole(t)
  return math_type(t) == "integer"
end

-- rec's running span, [now, est_end), in the profile.
function profile_run(self, rec)
  local p, now, e = self.cplan, self.now, rec.est_end
  if not whole(e) or not whole(now) then
    self.cplan = false
    return
  end
  if e <= now or usable(rec) <= 0 then return end
  local s, d = now - self.cbase, math.min(e - now, CHORIZON - (now - self.cbase))
  rec.cspan, rec.cspan_of = assert(p:add(s, d, usable(rec))), p
end

function profile_unrun(self, rec)
  if rec.cspan_of == self.cplan then self.cplan:remove(rec.cspan) end
  rec.cspan, rec.cspan_of = nil, nil
end

-- rec's counted reservation: at t, or none (t nil).
local function set_vres(self, rec, t)
  local p = self.cplan
  if rec.vspan then
    if rec.vspan_of == p then p:remove(rec.vspan) end
    rec.vspan, rec.vspan_of = nil, nil
  end
  rec.vres = t
  if p and t then
    local d = rec.estimate
    if math_type(t) ~= "integer" or math_type(d) ~= "integer" then
      self.cplan = false
      return
    end
    local s = t - self.cbase
    if d > CHORIZON - s then d = CHORIZON - s end
    rec.vspan, rec.vspan_of = assert(p:add(s, d, rec.procs)), p
  end
end

-- The profile, made from the running jobs and the counted reservations
-- when there is none; false when the times are not whole seconds.
local function profile(self)
  local p = self.cplan
  if p ~= nil then return p end
  if not whole(self.now) then
    self.cplan = false
    return false
  end
  p = core.planner(CBIG, CHORIZON, 0)
  self.cplan, self.cbase = p, self.now
  for r in M.by_est(self) do
    profile_run(self, r)
    if not self.cplan then return false end
  end
  for _, q in pairs(self.reserved_set) do
    if q.vres then set_vres(self, q, q.vres) end
    if not self.cplan then return false end
  end
  return p
end

-- The units the counted plan may use: the machine's, less those on nodes
-- out of use.
local function capacity(self)
  return self.total - (self.out_known and self.out_units or 0)
end

-- The units a start may use (ctx:free): those running jobs leave, and
-- with nodes out of use while counting (M.set_out) those they leave on
-- the nodes in use, where a plain request must fit.  Otherwise an upper
-- bound: down and drained nodes count.
function M.free_units(self)
  if self.not_up > 0 and self.out_known and counting(self) then
    return capacity(self) - (self.used - self.held_units)
  end
  return self.total - self.used
end

-- The units out of use (on nodes down or drained), for a driver that
-- knows them: units, how many; held, {rec = units}, what running jobs
-- hold on such nodes (a drained node's jobs run on), the others holding
-- none.  Plain requests then stay counted while nodes are out (counting):
-- units are interchangeable among the nodes in use, and a job counts
-- only what it holds of those.  The profile is made again at the next
-- counted query.
function M.set_out(self, units, held)
  for rec in pairs(self.held) do rec.held_out = nil end
  self.held, self.held_units = {}, 0
  for rec, u in pairs(held) do
    if u > 0 and rec.state == "running" then
      rec.held_out = u
      self.held[rec] = u
      self.held_units = self.held_units + u
    end
  end
  self.out_units, self.out_known = units, true
  self.cplan = nil
  self.free_cache = {}
end

-- The earliest start >= now of p units for d seconds, as counted_earliest,
-- by a walk of the running jobs and the counted reservations (times that
-- are not whole seconds).
local function counted_walk(self, rec, p, d, after)
  local now = self.now
  -- The changes of usage (each running job from now to its estimated end,
  -- each counted reservation of another waiting job over its window),
  -- summed per time; events at one time count together, so only the
  -- distinct times need sorting.
  local delta, times = {}, {}
  local function add(t, x)
    local v = delta[t]
    if v == nil then
      times[#times + 1] = t
      delta[t] = x
    else
      delta[t] = v + x
    end
  end
  for r in M.by_est(self) do
    add(now, usable(r))
    add(r.est_end, -usable(r))
  end
  for _, q in pairs(self.reserved_set) do
    if q ~= rec and q.vres then
      add(q.vres, q.procs)
      add(q.vres + q.estimate, -q.procs)
    end
  end
  table.sort(times)
  -- the usage step function: times[i] .. times[i+1] at used[i]
  local used = {}
  local u = 0
  for i = 1, #times do
    u = u + delta[times[i]]
    used[i] = u
  end
  local s = after and after > now and after or now
  return M.step_fit(times, used, capacity(self) - p, s, d)
end

-- The earliest start >= from of a run of d during which a step function
-- stays at most cap, or nil: used[i] holds from times[i] (ascending) to
-- times[i + 1], nothing before times[1].  Candidates are from and every
-- change after it.  (grove.limits walks a holder's usage with it too.)
function M.step_fit(times, used, cap, from, d)
  local s = from
  -- k: the step holding s (0: before the first change, nothing held)
  local k = 0
  while times[k + 1] and times[k + 1] <= s do k = k + 1 end
  while true do
    -- check [s, s + d): the steps from the one holding s
    local ok, j = true, k
    while true do
      if j > 0 and used[j] > cap then
        ok = false
        break
      end
      local nxt = times[j + 1]
      if not nxt or nxt >= s + d then break end
      j = j + 1
    end
    if ok then return s end
    -- move to the next change after the blocking step
    k = j + 1
    s = times[k]
    if not s then return nil end
  end
end

-- The earliest start >= now (and >= after, when given) of p units for d
-- seconds given the running jobs' estimates and the counted reservations
-- of other waiting jobs;
-- nil when there is none (more units asked than are in use, or none
-- before the profile's horizon).
local function counted_earliest(self, rec, p, d, after)
  local lim = capacity(self) - p
  if lim < 0 then return nil end
  local plan = self.cplan
  if plan == nil then plan = profile(self) end
  if plan and math_type(d) ~= "integer" then
    self.cplan, plan = false, false
  end
  if not plan or (after and math_type(after) ~= "integer") then
    return counted_walk(self, rec, p, d, after)
  end
  -- rec's own reservation is no part of what it must fit beside
  local own = rec.vres
  if own then set_vres(self, rec, nil) end
  local from = after and after > self.now and after or self.now
  local t = plan:earliest(CBIG - lim, d, from - self.cbase)
  if own then set_vres(self, rec, own) end
  return t and t + self.cbase or nil
end

M.set_vres, M.capacity, M.counted_earliest = set_vres, capacity, counted_earliest

-- The shadow time of a plain request of p units: the earliest time at
-- which p units are free by the running jobs' estimates, and the units
-- free then.  Kept per pass and per p: jobs started in the pass add to
-- the free count at the shadow time as they go (M.shadow_add).
-- (With nodes out of use, M.set_out: the units usable, and what each
-- running job holds of them.)
function M.shadow(self, p)
  local c = self.free_cache
  local free0 = capacity(self) - (self.used - self.held_units)
  if c.pass ~= self.passes or c.p ~= p then
    local free = free0
    local t, open = self.now, false
    -- jobs of one estimated end free their units together
    for r in M.by_est(self) do
      if not (open and r.est_end == t) then
        if free >= p then break end
        t, open = r.est_end, true
      end
      free = free + usable(r)
    end
    c.pass, c.p, c.t, c.freed = self.passes, p, t, free - free0
  end
  return c.t, free0 + c.freed
end

-- rec started in this pass (grove.sched's begin_run): when it ends by
-- the shadow time kept, its units are free then too.
function M.shadow_add(self, rec)
  local c = self.free_cache
  if c.pass == self.passes and rec.est_end <= c.t then c.freed = c.freed + rec.procs end
end

return M
