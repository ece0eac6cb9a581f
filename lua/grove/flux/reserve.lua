-- grove.flux.reserve: dedicated access time.  A reservation is a named
-- window [start, end) of named nodes kept for its members: a user, a
-- bank, a queue (any of those given; none: the nodes stay idle, a
-- maintenance window).  `flux grove reserve`, `unreserve` and
-- `reservations` (grove.flux.ops) make, end and list them.
--
-- The rule (docs/flux.md, "Reservations").  A reservation holds its
-- nodes in the planner over its window, as records of its own (holds:
-- matcher jobs numbered from HOLD_BASE up, which no Flux job id reaches
-- before an instance has run for 8 years), so no other job is placed
-- there in that time: a match now, a reservation a queue policy makes
-- and a start estimate all see those nodes taken.  Its members' jobs may
-- use them: before each pass of the queue policy, while the window is
-- open, each waiting member job, in queue order, is placed on the
-- reservation's nodes when it fits there now and ends by the window's
-- end (the holds lifted for those matches, the job's request narrowed to
-- the reservation's ranks).  The holds are then laid again over what the
-- members leave, one piece for each span between two of their starts or
-- ends, so that when a member ends early its cores go back to the
-- reservation, not to the others.  A member that does not fit there
-- waits in the queue as any job does, and may start elsewhere.
--
-- Refused, nothing changed: a name in use; an unknown host (with the
-- closest name); a queue the instance does not have; a window that ends
-- before it starts or starts before now; a window in which a running job
-- holds one of the nodes (by its expected end: a job without one holds
-- them for ever) or another reservation does.  Pending jobs' planned
-- starts are planned again around it.  Reservations are the loop's
-- state: they survive `flux config reload` (which keeps the loop), not a
-- reload of the module.
local core = require("grove.core")
local sched = require("grove.sched")
local base = require("grove.flux.base")
local names = require("grove.flux.names")
local suggest = require("grove.suggest")

local M = {}

local fmt = string.format

-- The most conflicts a refusal names one by one.
local LIST_MAX = 5

-- The first id of the holds.  Flux job ids (FLUIDs) carry a timestamp in
-- milliseconds from the instance's start in their top 40 bits: they reach
-- 2^62 after 2^38 ms, 8.7 years.
M.HOLD_BASE = 1 << 62

local function list(self)
  local rs = self.resv
  if not rs then
    rs = {}
    self.resv, self.hold_owner = rs, {}
  end
  return rs
end

-- ---- holds -------------------------------------------------------------------------

-- Take r's holds out of the planner (one may have ended, or been dropped
-- when a vertex under it went down before its start: nothing to do).
local function lift(self, r)
  local m = self.loop.m
  for _, p in ipairs(r.pieces) do
    m:cancel(p.id)
    self.hold_owner[p.id] = nil
  end
  r.pieces = {}
end

-- A new generation of r: the room in it grew, its waiting members are
-- tried again (one count for all reservations: a name used again starts
-- from a generation no job has seen).
local function bump(self, r)
  self.resv_serial = (self.resv_serial or 0) + 1
  r.gen = self.resv_serial
end

-- R text of R without its window (register takes the one it is given
-- only when R has none).
local function timeless(R)
  local t = R:to_table()
  t.execution.starttime, t.execution.expiration = nil, nil
  return core.json_encode(t, 0)
end

-- What runs on r's nodes: its members, and any other running job there
-- (one that outlived its end into the window: grove.flux holds it until
-- its free, and the holds give way to it), kept in r.others so that the
-- holds are laid again when it ends.  A set of job ids.
local function occupants(self, r)
  local loop = self.loop
  local out, others = {}, {}
  for id in pairs(r.members) do out[id] = true end
  for _, id in ipairs(self.acq:jobs_on(r.ranks) or {}) do
    local rec = loop.jobs[id]
    if not out[id] and rec and rec.state == "running" then
      out[id], others[id] = true, rec
    end
  end
  r.others = others
  return out
end

-- The spans of [a, e) between the starts and ends of what runs on r's
-- nodes (occupants), each with the jobs that hold something in it.
local function spans(self, r, a, e)
  local m = self.loop.m
  local cuts, seen = {a, e}, {[a] = true, [e] = true}
  local wins = {}
  for id in pairs(occupants(self, r)) do
    local info = m:job(id, false)
    if info then
      wins[id] = info
      for _, t in ipairs({info.start, info["end"]}) do
        if t > a and t < e and not seen[t] then
          seen[t] = true
          cuts[#cuts + 1] = t
        end
      end
    end
  end
  table.sort(cuts)
  local out = {}
  for i = 1, #cuts - 1 do
    local t0, t1 = cuts[i], cuts[i + 1]
    local inside = {}
    for id, info in pairs(wins) do
      if info.start < t1 and info["end"] > t0 then inside[#inside + 1] = id end
    end
    table.sort(inside)
    out[#out + 1] = {t0, t1, inside}
  end
  return out
end

-- Lay r's holds over what its members leave, from now (or its start) to
-- its end.  true, or nil, message, code (the holds laid so far lifted).
local function hold(self, r)
  local loop = self.loop
  local m = loop.m
  lift(self, r)
  local a, e = math.max(r.start, loop.now), r["end"]
  if a >= e then return true end
  local g = loop.g
  local all = core.rv1_from_vertices(g, names.subtree(names.nodes_of_ranks(g, r.ranks)))
  for _, sp in ipairs(spans(self, r, a, e)) do
    local R = all
    for _, id in ipairs(sp[3]) do
      local jr = m:rv1(id)
      if jr then R = R:diff(jr) end
    end
    if R:count("core") > 0 or not R:ranks():empty() then
      local id = self.next_hold or M.HOLD_BASE
      self.next_hold = id + 1
      local ok, msg, code = m:register(timeless(R), id, {start = sp[1], ["end"] = sp[2]})
      if not ok then
        lift(self, r)
        return nil, msg, code
      end
      local units = loop.unit == "node" and R:ranks():count() or R:count(loop.unit)
      r.pieces[#r.pieces + 1] = {id = id, start = sp[1], ["end"] = sp[2], units = units}
      self.hold_owner[id] = r.name
    end
  end
  return true
end

-- ---- members -----------------------------------------------------------------------

local function bank_of(self, rec)
  if rec.bank_read == nil then
    local t = rec.jobspec
    if type(t) == "string" then t = sched.jobspec_table(self.loop, t) end
    local a = type(t) == "table" and t.attributes
    local b = type(a) == "table" and type(a.system) == "table" and a.system.bank
    rec.bank_read = type(b) == "string" and b or false
  end
  return rec.bank_read or nil
end

-- Whether rec's job is one of r's members.
function M.member(self, r, rec)
  return (r.user ~= nil and rec.user == r.user) or (r.queue ~= nil and rec.queue == r.queue)
    or (r.bank ~= nil and bank_of(self, rec) == r.bank)
end

-- rec's request narrowed to r's ranks, for its estimate: a grove.jobspec,
-- or nil (a job without a jobspec of its own, or one that cannot be read).
local function narrowed(self, r, rec)
  local text = rec.jobspec
  if type(text) == "table" then text = core.json_encode(text, 0) end
  if type(text) ~= "string" then return nil end
  local t = core.json_decode(text)
  if type(t) ~= "table" then return nil end
  t.attributes = type(t.attributes) == "table" and t.attributes or {}
  local sys = type(t.attributes.system) == "table" and t.attributes.system or {}
  t.attributes.system = sys
  local mine = {ranks = {r.ranks}}
  sys.constraints = sys.constraints and {["and"] = {sys.constraints, mine}} or mine
  sys.duration = rec.estimate
  return core.jobspec_from_table(t, {types = self.loop.m:known_types()})
end

-- Try rec (waiting, a member of r) on r's nodes now (its holds lifted):
-- true when it started there.
local function place(self, r, rec)
  local loop = self.loop
  if rec.open or loop.now + rec.estimate > r["end"] then return false end
  local js = narrowed(self, r, rec)
  if not js then return false end
  if rec.reserved then sched.cancel_reservation(loop, rec) end
  local saved = rec.js
  rec.js = js
  local j = sched.match(loop, rec, "allocate")
  rec.js = saved
  if not j then return false end
  r.members[rec.id] = rec
  rec.resv = r.name
  sched.begin_run(loop, rec, j)
  return true
end

-- The waiting jobs to look at for the open reservations, in queue order:
-- all of them when the room in one grew since it was last looked at, else
-- only those that joined the queue since the last pass (the loop's
-- touched jobs), so that a deep queue costs a pass what joined it.
local function candidates(self, open)
  local loop = self.loop
  local full = false
  for _, r in ipairs(open) do
    if r.scanned ~= r.gen then full = true end
    r.scanned = r.gen
  end
  if full then return sched.waiting(loop) end
  local out = {}
  for _, rec in pairs(loop.touched or {}) do
    if rec.state == "queued" then out[#out + 1] = rec end
  end
  table.sort(out, function(a, b)
    local pa, pb = a.priority or 0, b.priority or 0
    if pa ~= pb then return pa > pb end
    if a.submit ~= b.submit then return a.submit < b.submit end
    return a.id < b.id
  end)
  return out
end

-- The waiting members of the open reservations not tried since the room
-- in them last grew, placed there when they fit.
local function place_members(self, open)
  local lifted = {}
  for _, rec in ipairs(candidates(self, open)) do
    for _, r in ipairs(open) do
      if rec.state ~= "queued" then break end
      local tried = rec.resv_tried or {}
      rec.resv_tried = tried
      if tried[r.name] ~= r.gen and M.member(self, r, rec) then
        tried[r.name] = r.gen
        if not lifted[r] then
          lift(self, r)
          lifted[r] = true
        end
        place(self, r, rec)
      end
    end
  end
  for r in pairs(lifted) do
    local ok, msg = hold(self, r)
    if not ok then
      base.emit(self, {op = "log", level = "err",
        message = fmt("reservation '%s': its holds: %s", r.name, tostring(msg))})
    end
  end
end

-- The units the holds take now counted as used, as a running job's are:
-- a queue policy that walks the queue only while something is free (easy's
-- backfill) does not try every waiting job on nodes a reservation keeps.
local function settle(self)
  local loop = self.loop
  local now, m = loop.now, loop.m
  local held = 0
  for _, r in pairs(self.resv or {}) do
    for _, p in ipairs(r.pieces) do
      if p.start <= now and now < p["end"] and m:job(p.id, false) then
        held = held + p.units
      end
    end
  end
  loop.used = loop.used + held - (self.held_units or 0)
  self.held_units = held
end

-- Before each pass: reservations whose window is over end; the holds of
-- the others follow their members (one that ended gives its room back)
-- and come back where the planner dropped them (a vertex went down
-- before their start); the waiting members of the open ones are placed;
-- a pass is asked for when a window opens or closes; what the holds take
-- now is counted as used.
function M.tend(self)
  local rs = self.resv
  if not rs or next(rs) == nil then
    if self.held_units then settle(self) end
    return
  end
  local loop = self.loop
  local now, m = loop.now, loop.m
  local open = {}
  for name, r in pairs(rs) do
    if r["end"] <= now then
      lift(self, r)
      rs[name] = nil
      base.emit(self, {op = "log", level = "info", message = fmt("reservation '%s' ended", name)})
      require("grove.flux.state").save(self)
    else
      local again = false
      for id, rec in pairs(r.members) do
        if loop.jobs[id] ~= rec or rec.state ~= "running" then
          r.members[id] = nil
          again = true
        end
      end
      for id, rec in pairs(r.others or {}) do
        if loop.jobs[id] ~= rec or rec.state ~= "running" then again = true end
      end
      for _, p in ipairs(r.pieces) do
        if p["end"] > now and not m:job(p.id, false) then again = true end
      end
      if again then
        bump(self, r)
        local ok, msg = hold(self, r)
        if not ok then
          base.emit(self, {op = "log", level = "err",
            message = fmt("reservation '%s': its holds: %s", name, tostring(msg))})
        end
      end
      if r.start <= now then
        if not r.opened then
          r.opened = true
          bump(self, r)
        end
        open[#open + 1] = r
      elseif loop.on_wake then
        loop.on_wake(loop, r.start)
      end
      if loop.on_wake then loop.on_wake(loop, r["end"]) end
    end
  end
  if #open > 0 then
    table.sort(open, function(a, b) return a.name < b.name end)
    place_members(self, open)
  end
  settle(self)
end

-- A running job's window cannot be moved because a reservation's holds
-- sit on its ranks (an idset): the holds of the reservations on those
-- ranks are lifted, fn (which moves it) is called, and they are laid
-- again around what runs there (the job among it).  What fn returned;
-- nil and why when no reservation was there.
function M.give_way(self, ranks, fn)
  local rs = self.resv
  if not rs or next(rs) == nil then return nil, "no reservation holds its nodes" end
  local lifted = {}
  for _, r in pairs(rs) do
    if not core.idset(r.ranks):intersect(ranks):empty() then
      lift(self, r)
      lifted[#lifted + 1] = r
    end
  end
  if #lifted == 0 then return nil, "no reservation holds its nodes" end
  local ok, msg = fn()
  for _, r in ipairs(lifted) do
    bump(self, r)
    local held, why = hold(self, r)
    if not held then
      base.emit(self, {op = "log", level = "err",
        message = fmt("reservation '%s': its holds: %s", r.name, tostring(why))})
    end
  end
  return ok, msg
end

-- ---- making and ending ------------------------------------------------------------

-- What holds something on r's nodes during its window (a running job by
-- its expected end, another reservation's hold): a list of texts, empty
-- when nothing does.
local function conflicts(self, r, offset)
  local loop = self.loop
  local m = loop.m
  local out, seen, more = {}, {}, 0
  local ids = self.acq:jobs_on(r.ranks) or {}
  for _, id in ipairs(ids) do
    if #out >= LIST_MAX then
      more = more + 1
      goto next
    end
    local info = m:job(id, false)
    local rec = loop.jobs[id]
    local owner = self.hold_owner and self.hold_owner[id]
    if info and info.start < r["end"] and info["end"] > r.start then
      if owner and not seen[owner] then
        seen[owner] = true
        local o = self.resv[owner]
        out[#out + 1] = fmt("reservation '%s' holds %s from %s to %s", owner,
          o.hosts, names.show_time(o.start, offset, loop.tps),
          names.show_time(o["end"], offset, loop.tps))
      elseif not owner and rec and rec.state == "running" then
        local on = m:rv1(id):restrict(r.ranks):nodelist()
        local until_ = rec.open and "with no time limit"
          or "until " .. names.show_time(info["end"], offset, loop.tps)
        out[#out + 1] = fmt("job %s runs on %s %s", base.f58(id), tostring(on), until_)
      end
    end
    ::next::
  end
  if more > 0 then
    out[#out + 1] = fmt("and %d more job%s or reservation%s", more, more == 1 and "" or "s",
      more == 1 and "" or "s")
  end
  return out
end

-- The reservation a request describes, read and checked: {name, hosts,
-- ranks, start, end, user, user_name, bank, queue}, or nil, message,
-- code.  r: {name, hosts, start, end | duration, user, user_name, bank,
-- queue, utc_offset}.
local function read(self, r)
  local loop = self.loop
  local name = r.name
  if type(name) ~= "string" or not name:match("^[%w][%w._-]*$") then
    return nil, "a reservation name expected (letters, digits, '.', '_', '-')", "EINVAL"
  end
  if list(self)[name] then return nil, fmt("reservation '%s' exists", name), "EEXIST" end
  local vs, ranks, hcode = names.hosts(loop.g, r.hosts)
  if not vs then return nil, "hosts: " .. ranks, hcode end
  -- times are read in seconds, and kept in the loop's ticks ("now" as
  -- the loop's clock is)
  local now, off, tps = loop.now, r.utc_offset, loop.tps
  local function at(text)
    if text == "now" then return now end
    local t, why = names.time(text, sched.secs(loop, now), off)
    if not t then return nil, why end
    return sched.ticks(loop, t)
  end
  local start, msg = at(r.start or "now")
  if not start then return nil, "start: " .. msg, "EINVAL" end
  local stop
  if r["end"] ~= nil then
    stop, msg = at(r["end"])
    if not stop then return nil, "end: " .. msg, "EINVAL" end
  elseif r.duration ~= nil then
    local d, m2 = require("grove.jobspec").duration(r.duration)
    if not d or d <= 0 then return nil, "duration: " .. (m2 or "a positive duration expected"),
      "EINVAL" end
    stop = start + sched.ticks(loop, d)
  else
    return nil, "an end or a duration expected", "EINVAL"
  end
  if start < now then
    return nil, fmt("the window starts at %s, before now (%s)", names.show_time(start, off, tps),
      names.show_time(now, off, tps)), "EINVAL"
  end
  if stop <= start then
    return nil, fmt("the window ends at %s, not after its start %s",
      names.show_time(stop, off, tps), names.show_time(start, off, tps)), "EINVAL"
  end
  local user = r.user
  if user ~= nil and (math.type(user) ~= "integer" or user < 0) then
    return nil, "user: a user id expected", "EINVAL"
  end
  for _, k in ipairs({"bank", "queue"}) do
    if r[k] ~= nil and (type(r[k]) ~= "string" or r[k] == "") then
      return nil, fmt("%s: a name expected", k), "EINVAL"
    end
  end
  if r.queue ~= nil and self.queues and not self.queues[r.queue] then
    return nil, fmt("queue '%s' does not exist%s", r.queue, suggest.hint(r.queue,
      self.queue_names)), "ENOENT"
  elseif r.queue ~= nil and not self.queues then
    return nil, fmt("queue '%s' does not exist: the instance has no [queues]", r.queue), "ENOENT"
  end
  return {name = name, hosts = names.hostlist_of(vs), ranks = ranks:encode(), nnodes = #vs,
    start = start, ["end"] = stop, user = user,
    user_name = type(r.user_name) == "string" and r.user_name or nil, bank = r.bank,
    queue = r.queue, pieces = {}, members = {}, gen = 0, opened = false}
end

-- Make the reservation request r asks for: the reservation, or nil,
-- message, code (nothing changed).
function M.add(self, r)
  local res, msg, code = read(self, r)
  if not res then return nil, msg, code end
  local clash = conflicts(self, res, r.utc_offset)
  if #clash > 0 then
    local tps = self.loop.tps
    return nil, fmt("reservation '%s' overlaps what holds its nodes in [%s, %s): %s",
      res.name, names.show_time(res.start, r.utc_offset, tps), names.show_time(res["end"],
      r.utc_offset, tps), table.concat(clash, "; ")), "EBUSY"
  end
  -- planned starts of waiting jobs may sit there: planned again by the
  -- pass that follows
  sched.drop_reservations(self.loop)
  local ok, m2, c2 = hold(self, res)
  if not ok then return nil, fmt("reservation '%s': %s", res.name, tostring(m2)), c2 end
  list(self)[res.name] = res
  self.stale = true
  return res
end

-- A reservation as grove.flux.state saved it ({name, ranks, hosts, start,
-- end (seconds), user, user_name, bank, queue}) made again: checked
-- against the graph (nodes_of(self, ranks, hosts): its nodes, and the
-- text of those no longer there as they were), the configuration (its
-- queue) and the clock (its window not over); its running members
-- (running jobs on its nodes that are members and started in its window)
-- its members again, and its holds laid around what runs on its nodes.
-- The reservation, or nil and why it is dropped.
function M.restore(self, saved, nodes_of)
  local loop = self.loop
  local name = type(saved) == "table" and saved.name
  if type(name) ~= "string" or not name:match("^[%w][%w._-]*$") then
    return nil, "a reservation that cannot be read: dropped"
  end
  local tag = fmt("reservation '%s'", name)
  if list(self)[name] then return nil, tag .. ": a second of that name: dropped" end
  local st, en = tonumber(saved.start), tonumber(saved["end"])
  if not st or not en or st < 0 or en <= st then
    return nil, tag .. ": its window cannot be read: dropped"
  end
  local start, stop = sched.ticks(loop, st), sched.ticks(loop, en)
  if stop <= loop.now then
    return nil, fmt("%s ended at %s while the module was away: dropped", tag,
      names.show_time(stop, 0, loop.tps))
  end
  local vs, gone = nodes_of(self, saved.ranks, saved.hosts)
  if gone or #vs == 0 then
    return nil, fmt("%s on %s: %s: dropped", tag, tostring(saved.hosts), gone or "no nodes")
  end
  local q = saved.queue
  if q ~= nil and (type(q) ~= "string" or not (self.queues and self.queues[q])) then
    return nil, fmt("%s for queue %s: the instance has no such queue now: dropped", tag,
      tostring(q))
  end
  local user = saved.user
  if user ~= nil and (math.type(user) ~= "integer" or user < 0) then
    return nil, tag .. ": its user cannot be read: dropped"
  end
  local r = {name = name, hosts = saved.hosts, ranks = saved.ranks, nnodes = #vs,
    start = start, ["end"] = stop, user = user,
    user_name = type(saved.user_name) == "string" and saved.user_name or nil,
    bank = type(saved.bank) == "string" and saved.bank or nil, queue = q, pieces = {},
    members = {}, gen = 0, opened = false}
  for _, id in ipairs(self.acq:jobs_on(r.ranks) or {}) do
    local rec = loop.jobs[id]
    if rec and rec.state == "running" and rec.start >= start and M.member(self, r, rec) then
      r.members[id] = rec
      rec.resv = name
    end
  end
  local ok, msg = hold(self, r)
  if not ok then return nil, fmt("%s: its holds: %s: dropped", tag, tostring(msg)) end
  list(self)[name] = r
  return r
end

-- End reservation name: its holds lifted (its members' running jobs keep
-- what they hold).  The reservation, or nil, message, code.
function M.remove(self, name)
  local rs = list(self)
  local r = rs[name]
  if not r then
    local known = {}
    for n in pairs(rs) do known[#known + 1] = n end
    table.sort(known)
    return nil, fmt("no reservation '%s'%s", tostring(name), suggest.hint(tostring(name), known)),
      "ENOENT"
  end
  lift(self, r)
  rs[name] = nil
  for _, rec in pairs(r.members) do rec.resv = nil end
  sched.drop_reservations(self.loop)
  self.stale = true
  return r
end

-- The reservations as plain tables, by name: for the listing, the stats
-- and the JSON output (start and end in seconds).
function M.describe(self, offset)
  local out = {}
  local loop = self.loop
  local now, tps = loop.now, loop.tps
  for name, r in pairs(self.resv or {}) do
    local running = 0
    for _ in pairs(r.members) do running = running + 1 end
    out[#out + 1] = {name = name, hosts = r.hosts, ranks = r.ranks, nodes = r.nnodes,
      start = sched.secs(loop, r.start), ["end"] = sched.secs(loop, r["end"]), user = r.user,
      user_name = r.user_name, bank = r.bank, queue = r.queue,
      state = r.start <= now and "active" or "waiting", running = running,
      start_text = names.show_time(r.start, offset, tps),
      end_text = names.show_time(r["end"], offset, tps)}
  end
  table.sort(out, function(a, b)
    if a.start ~= b.start then return a.start < b.start end
    return a.name < b.name
  end)
  return out
end

-- Who a reservation is for, as a person reads it.
function M.for_whom(d)
  local who = {}
  if d.user ~= nil then who[#who + 1] = "user " .. (d.user_name or tostring(d.user)) end
  if d.bank ~= nil then who[#who + 1] = "bank " .. d.bank end
  if d.queue ~= nil then who[#who + 1] = "queue " .. d.queue end
  return #who > 0 and table.concat(who, ", ") or "no one (the nodes stay idle)"
end

-- The reservations rec's job is a member of (their names, sorted).
function M.memberships(self, rec)
  local out = {}
  for name, r in pairs(self.resv or {}) do
    if M.member(self, r, rec) then out[#out + 1] = name end
  end
  table.sort(out)
  return out
end

-- The reservation whose hold id is, or nil.
function M.owner(self, id)
  return self.hold_owner and self.hold_owner[id]
end

return M
