-- grove.flux.ops: the requests about the scheduler's state rather than
-- a job's: sched.resource-status (what `flux resource list` reads), the
-- counters of `flux module stats`, and the operator's commands of `flux
-- grove` (find, why, set-property, remove-property, set-status, reserve,
-- unreserve, reservations, graph, stats), with grove.flux.why (why a job waits) and
-- grove.flux.reserve (reservations of dedicated access time).
local core = require("grove.core")
local glimits = require("grove.limits")
local sched = require("grove.sched")
local query = require("grove.query")
local query_find = require("grove.query_find")
local suggest = require("grove.suggest")
local writers = require("grove.writers")
local base = require("grove.flux.base")
local names = require("grove.flux.names")
local policies = require("grove.flux.policies")
local queues = require("grove.flux.queues")
local reserve = require("grove.flux.reserve")
local state = require("grove.flux.state")
local why = require("grove.flux.why")
local topology = require("grove.flux.topology")

local M = {}

local fmt = string.format

-- sched.resource-status: {all, down, allocated}, each an R table.
function M.resource_status(self)
  base.tick(self)
  local all, down, allocated = M.status_R(self)
  -- the text from R's own writer: an empty R_lite stays an array
  local json = fmt('{"all":%s,"down":%s,"allocated":%s}', all:encode(), down:encode(),
    allocated:encode())
  down:close()
  allocated:close()
  base.emit(self, {op = "respond", topic = "sched.resource-status", json = json})
  return base.flush(self)
end

-- {n, p50_us, p99_us, max_us} of a ring of durations in seconds ({n =
-- added, [1..] the last ones}), or {n = 0}.
local function ring_report(ring)
  if not ring or ring.n == 0 then return {n = 0} end
  local v = {}
  for i = 1, math.min(ring.n, #ring) do v[i] = ring[i] end
  table.sort(v)
  local k = #v
  return {n = ring.n, p50_us = v[k // 2 + 1] * 1e6, p99_us = v[(k * 99) // 100 + 1] * 1e6,
    max_us = v[k] * 1e6}
end

-- The limits in force ([sched-grove.limits] as read, flux-accounting's
-- associations counted) and how many pending jobs one holds now; nil
-- without limits.
local function limits_stats(loop)
  local L = loop.limits
  if not L then return nil end
  local held = 0
  for _, rec in pairs(loop.jobs) do
    if rec.state == "queued" and sched.limit_hold(loop, rec) then held = held + 1 end
  end
  return {in_force = glimits.to_table(L), associations = L.assoc_count, held = held}
end

-- Counters in the shape of `flux module stats`.
function M.stats(self)
  local st = self.loop.cs:stats()
  return {jobs_matched = st.matched, matches_failed = st.failed,
    match_time = {min = st.match_min, avg = st.match_avg, max = st.match_max},
    match_dist = st.recent > 0 and {n = st.recent, p50_us = st.recent_p50 * 1e6,
      p99_us = st.recent_p99 * 1e6, max_us = st.recent_max * 1e6} or nil,
    queue_length = st.queue_length, running = st.running,
    -- the placement policy configured (pl0), not the one the last match
    -- used (policy_name): a reload shows before the next job is matched
    queue = self.loop.queue_policy.name, policy = self.loop.pl0.name,
    ["queue-depth"] = self.loop.queue_depth, ["reserve-depth"] = self.loop.reserve_depth,
    ["match-format"] = self.match_format, expiration = self.acq:expiration(),
    queues = queues.stats(self), allocs = self.allocs or 0,
    pass_time = ring_report(self.pass_ring), pass_cpu = ring_report(self.pass_cpu_ring),
    passes_cut = self.cut_passes or 0,
    annotations_sent = self.annotations_sent or 0, forecasts = self.forecasts or 0,
    search_stops = self.loop.search_stops,
    -- the module's arguments, over the configuration (grove flux-export)
    args = self.args and #self.args > 0 and self.args or nil,
    -- the policy files in force, with their content's hash, and why the
    -- built-in defaults run instead of the configured ones, when they do
    policy_files = policies.stats(self), policy_fallback = self.policy_fallback,
    reservations = next(self.resv or {}) and reserve.describe(self) or nil,
    limits = limits_stats(self.loop),
    topology = self.topologies and topology.stats(self) or nil}
end

-- ---- `flux grove` -------------------------------------------------------------------
--
-- Each command of the flux-grove client is a request sched-grove.CMD
-- whose payload is the command's arguments and {json = true} for the
-- output scripts read, {utc_offset = seconds} (the client's time zone,
-- for the times it reads and shows).  The answer is {text = ...}: what
-- the client prints as it is (a JSON document when json is set), or an
-- error whose message says what was wrong.  The client decides nothing.

local decode, emit, flush, fail, tick = base.decode, base.emit, base.flush, base.fail, base.tick

-- The answer: data as JSON when the request asked for it, else text.
local function answer(self, topic, r, data, text)
  local out = r.json and writers.json(data) .. "\n" or text
  emit(self, {op = "respond", topic = topic, payload = {text = out}})
end

-- The log line of a change a command applied (item: what, old -> new) or
-- refused (why): an operator's change made by automation is seen in the
-- broker's log.
local function said(self, cmd, text, refused)
  emit(self, {op = "log", level = refused and "warning" or "info",
    message = fmt("flux grove %s%s: %s", cmd, refused and " refused" or "", text)})
end

-- A command that changed what the loop plans with: the operator's state
-- written (grove.flux.state: the module commits it before the answer
-- goes out), the answer, then a pass (the waiting jobs' planned starts
-- are planned again).
local function answer_and_pass(self, topic, r, data, text)
  state.save(self)
  answer(self, topic, r, data, text)
  sched.drop_reservations(self.loop)
  self.stale = true
  return self:schedule()
end

-- A vertex as find and set-property show it.
local function vertex_data(v)
  local props = v:properties()
  local d = {path = v:path(), type = v:type(), name = v:name(), status = v:status()}
  local r = v:rank()
  if r and r >= 0 then d.rank = r end
  if next(props) then d.properties = props end
  return d
end

local function vertex_line(d)
  local props = {}
  for k, val in pairs(d.properties or {}) do
    props[#props + 1] = val ~= "" and k .. "=" .. val or k
  end
  table.sort(props)
  return fmt("%s %s%s %s%s", d.path, d.type, d.rank and " rank " .. d.rank or "", d.status,
    #props > 0 and " " .. table.concat(props, ",") or "")
end

-- The query session find reads the module's graph and jobs through (made
-- once: it keeps no state of its own between commands).
local function session(self)
  if not self.find_session then
    local s, msg = query.over(self.loop.m)
    if not s then return nil, msg end
    self.find_session = s
  end
  self.find_session.used_cache = nil
  return self.find_session
end

-- find {expr}: the vertices Grove's find expression selects, or the nodes
-- an RFC 31 constraint (JSON) selects.
local function find_cmd(self, r, topic)
  local expr = r.expr
  if type(expr) ~= "string" or not expr:match("%S") then
    return fail(self, topic, "EINVAL", "find: an expression expected: Grove's find terms "
      .. "(status=down, property=KEY[=VALUE], sched-now=allocated, ...) or an RFC 31 "
      .. "constraint as JSON")
  end
  local g = self.loop.g
  local found = {}
  local kind
  if expr:match("^%s*{") then
    kind = "constraint"
    local c, msg = core.constraint(expr)
    if not c then return fail(self, topic, "EINVAL", "find: bad constraint: " .. tostring(msg)) end
    for v in g:vertices{type = "node"} do
      local props = {}
      for k in pairs(v:properties()) do props[#props + 1] = k end
      if c:match({properties = props, hostname = v:name(), rank = v:rank()}) then
        found[#found + 1] = v
      end
    end
  else
    kind = "find"
    local s, m0 = session(self)
    if not s then return fail(self, topic, "ENOMEM", "find: " .. tostring(m0)) end
    local vs, msg = query_find.select(s, expr)
    if not vs then return fail(self, topic, "EINVAL", "find: " .. tostring(msg)) end
    found = vs
  end
  local list, nodes = {}, {}
  for i, v in ipairs(found) do
    list[i] = vertex_data(v)
    if v:type() == "node" then nodes[#nodes + 1] = v end
  end
  local data = {expr = expr, kind = kind, count = #list, vertices = list}
  local lines = {#list == 1 and "1 vertex" or fmt("%d vertices", #list)}
  if #nodes > 0 then
    data.hosts = names.hostlist_of(nodes)
    lines[1] = lines[1] .. fmt(" (nodes %s)", data.hosts)
  end
  for i, d in ipairs(list) do lines[i + 1] = vertex_line(d) end
  answer(self, topic, r, data, table.concat(lines, "\n") .. "\n")
  return flush(self)
end

-- why {id, job, queue_status}: why a job waits (grove.flux.why).
local function why_cmd(self, r, topic)
  if not base.check_id(r.id) then return fail(self, topic, "EPROTO", "why: a job id expected") end
  local d = why.explain(self, r)
  answer(self, topic, r, d, why.text(d))
  return flush(self)
end

-- RFC 20 property names: not empty, none of the characters a constraint
-- reads (as the acquisition code checks them).
local function property_name(k)
  return type(k) == "string" and k ~= "" and not k:find("[!&'\"^`|()=]")
end

-- set-property {target, key, value} or Fluxion's {sp_resource_path,
-- sp_keyval = "KEY=VALUE"}; remove-property {target, key} or Fluxion's
-- {resource_path, key}.  target: a hostlist or a containment path.
local function property_cmd(self, r, topic, add)
  local target = r.target or r.sp_resource_path or r.resource_path
  local key, value = r.key, r.value
  if add and r.sp_keyval ~= nil then
    key, value = tostring(r.sp_keyval):match("^([^=]*)=(.*)$")
    if not key then
      return fail(self, topic, "EINVAL", fmt("set-property: '%s': KEY=VALUE expected",
        tostring(r.sp_keyval)))
    end
  end
  local cmd = add and "set-property" or "remove-property"
  if not property_name(key) then
    return fail(self, topic, "EINVAL", fmt("%s: invalid property name '%s' (not empty, none of "
      .. "! & ' \" ^ ` | ( ) =)", cmd, tostring(key)))
  end
  if value ~= nil and type(value) ~= "string" then
    return fail(self, topic, "EINVAL", cmd .. ": the value must be a string")
  end
  local vs, msg, code = names.targets(self.loop.g, target)
  if not vs then
    said(self, cmd, fmt("%s %s: %s", tostring(target), tostring(key), msg), true)
    return fail(self, topic, code, cmd .. ": " .. msg)
  end
  -- what the vertices had (for the log: old -> new)
  local before = {}
  for _, v in ipairs(vs) do
    local p = v:property(key)
    local k = p == nil and "(unset)" or (p == "" and key or key .. "=" .. p)
    before[k] = before[k] or {}
    table.insert(before[k], v)
  end
  local changed, unchanged = {}, {}
  for _, v in ipairs(vs) do
    if add then
      v:set_property(key, value or "")
      changed[#changed + 1] = v
    elseif v:property(key) ~= nil then
      v:remove_property(key)
      changed[#changed + 1] = v
    else
      unchanged[#unchanged + 1] = v
    end
  end
  state.property(self, changed, key, add and (value or "") or false)
  -- nodes by their host names, other vertices by their paths
  local function show(list)
    for _, v in ipairs(list) do
      if v:type() ~= "node" then
        local p = {}
        for i, u in ipairs(list) do p[i] = u:path() end
        return table.concat(p, ",")
      end
    end
    return names.hostlist_of(list)
  end
  local data = {key = key, value = add and (value or "") or nil, changed = {}, unchanged = {}}
  for i, v in ipairs(changed) do data.changed[i] = v:path() end
  for i, v in ipairs(unchanged) do data.unchanged[i] = v:path() end
  local now = add and (value and value ~= "" and key .. "=" .. value or key) or "(unset)"
  local olds = {}
  for k, list in pairs(before) do olds[#olds + 1] = fmt("%s on %s", k, show(list)) end
  table.sort(olds)
  said(self, cmd, fmt("%s: %s -> %s", key, table.concat(olds, "; "), now))
  local text
  if add then
    text = fmt("%s%s set on %s\n", key, value and value ~= "" and "=" .. value or "", show(changed))
  else
    text = #changed > 0 and fmt("%s removed from %s\n", key, show(changed)) or ""
    if #unchanged > 0 then
      text = text .. fmt("%s had no property %s\n", show(unchanged), key)
    end
  end
  return answer_and_pass(self, topic, r, data, text)
end

-- set-status {target, status} or Fluxion's {resource_path, status}:
-- vertices without a broker rank up or down (a rabbit's ssds, which
-- flux-coral2 marks as the rabbit comes and goes; a site's JGF gives them
-- down until then).  A ranked vertex's status is the resource module's
-- (RFC 28: flux resource drain and undrain), so it is refused.  A job
-- holding a vertex that goes down keeps it.
local function status_cmd(self, r, topic)
  local target = r.target or r.resource_path
  local status = r.status
  if status ~= "up" and status ~= "down" then
    return fail(self, topic, "EINVAL", fmt("set-status: the status must be up or down, got '%s'",
      tostring(status)))
  end
  local vs, msg, code = names.targets(self.loop.g, target)
  if not vs then
    said(self, "set-status", fmt("%s %s: %s", tostring(target), status, msg), true)
    return fail(self, topic, code, "set-status: " .. msg)
  end
  for _, v in ipairs(vs) do
    local rank = v:rank()
    if rank and rank >= 0 then
      local reason = fmt("%s has broker rank %d: its status is the resource module's (flux "
        .. "resource drain, flux resource undrain)", v:path(), rank)
      said(self, "set-status", fmt("%s %s: %s", v:path(), status, reason), true)
      return fail(self, topic, "EINVAL", "set-status: " .. reason)
    end
  end
  local data = {status = status, changed = {}, unchanged = {}}
  for _, v in ipairs(vs) do
    local list = v:status() == status and data.unchanged or data.changed
    list[#list + 1] = v:path()
    if v:status() ~= status then said(self, "set-status", fmt("%s: %s -> %s", v:path(),
      v:status(), status)) end
    v:set_status(status)
  end
  state.status(self, vs, status)
  local text = ""
  if #data.changed > 0 then
    text = fmt("%s: %s\n", table.concat(data.changed, ","), status)
  end
  if #data.unchanged > 0 then
    text = text .. fmt("%s: %s already\n", table.concat(data.unchanged, ","), status)
  end
  return answer_and_pass(self, topic, r, data, text)
end

local function reservation_line(d)
  return fmt("%s: %s (%d node%s) from %s to %s, for %s: %s%s", d.name, d.hosts, d.nodes,
    d.nodes == 1 and "" or "s", d.start_text, d.end_text, reserve.for_whom(d), d.state,
    d.state == "active" and fmt(", %d job%s running in it", d.running,
      d.running == 1 and "" or "s") or "")
end

local function described(self, name, offset)
  for _, d in ipairs(reserve.describe(self, offset)) do
    if d.name == name then return d end
  end
end

-- reserve {name, hosts, start, end | duration, user, user_name, bank,
-- queue}: a reservation (grove.flux.reserve).
local function reserve_cmd(self, r, topic)
  local res, msg, code = reserve.add(self, r)
  if not res then
    said(self, "reserve", fmt("%s: %s", tostring(r.name), msg), true)
    return fail(self, topic, code, "reserve: " .. msg)
  end
  local d = described(self, res.name, r.utc_offset)
  said(self, "reserve", fmt("%s: (none) -> %s", res.name, reservation_line(d)))
  return answer_and_pass(self, topic, r, d, "reservation " .. reservation_line(d) .. "\n")
end

-- unreserve {name}
local function unreserve_cmd(self, r, topic)
  local d = described(self, r.name, r.utc_offset)
  local res, msg, code = reserve.remove(self, r.name)
  if not res then
    said(self, "unreserve", fmt("%s: %s", tostring(r.name), msg), true)
    return fail(self, topic, code, "unreserve: " .. msg)
  end
  said(self, "unreserve", fmt("%s: %s -> (none)", res.name, reservation_line(d)))
  return answer_and_pass(self, topic, r, d, fmt("reservation '%s' removed\n", res.name))
end

-- reservations {}: every reservation, by start.
local function reservations_cmd(self, r, topic)
  local list = reserve.describe(self, r.utc_offset)
  local lines = {}
  for i, d in ipairs(list) do lines[i] = reservation_line(d) end
  answer(self, topic, r, {reservations = list},
    #lines > 0 and table.concat(lines, "\n") .. "\n" or "no reservations\n")
  return flush(self)
end

-- The R of the whole set, of its down ranks and of what running jobs
-- hold (sched.resource-status and graph --format=R).
--
-- The R of the whole graph is kept while the graph's content holds
-- (g:changes(): its records and clock do not count); what running jobs
-- hold is joined pairwise, level by level, so that each rank is copied
-- once a level rather than once a job (a running sum of thousands of jobs
-- copied the growing whole at every job: 0.9 s at 2,000 jobs on 16,384
-- nodes).  Every R made on the way is closed as soon as it is used: an R
-- holds its memory in C, which Lua's collector does not see (tens of MB a
-- call at 16,384 nodes were left to a collection that did not come).
-- The caller closes down and allocated; all is the kept one.
function M.status_R(self)
  local loop = self.loop
  local g = loop.g
  local kept = self.all_R
  if not kept or kept.g ~= g or kept.changes ~= g:changes() then
    if kept then kept.R:close() end
    kept = {g = g, changes = g:changes(), R = core.rv1_from_graph(g)}
    self.all_R = kept
  end
  local all = kept.R
  local down = all:restrict(self.acq:targets("down"))
  -- each running job's R, kept from one request to the next while the
  -- job holds what it held (its window and its number of vertices: a
  -- release in part lowers that): a job of 1,000 nodes costs 3 ms to
  -- write again, a request at 16,000 nodes in such jobs 50 ms
  local m = loop.m
  local cache, kept_R, held = self.held_R or {}, {}, {}
  for id, rec in pairs(loop.jobs) do
    if rec.state == "running" then
      local i = m:info(id, false)
      local c = i and cache[id]
      if i and not (c and c.start == i.start and c["end"] == i["end"] and c.picks == i.picks) then
        c = {R = m:rv1(id), start = i.start, ["end"] = i["end"], picks = i.picks}
      end
      if c and c.R then
        kept_R[id] = c
        held[#held + 1] = c.R
      end
    end
  end
  for id, c in pairs(cache) do
    if kept_R[id] ~= c then c.R:close() end
  end
  self.held_R = kept_R
  -- their union, two by two; the kept ones are not closed
  local n, own = #held, false
  while n > 1 do
    local k = 0
    for i = 1, n, 2 do
      k = k + 1
      local a, b = held[i], held[i + 1]
      if b then
        held[k] = a:union(b)
        if own then
          a:close()
          b:close()
        end
      else
        held[k] = own and a or a:copy()
      end
    end
    for i = k + 1, n do held[i] = nil end
    n, own = k, true
  end
  local allocated = held[1]
  if allocated and not own then allocated = allocated:copy() end
  return all, down, allocated or all:restrict("")
end

-- graph {format = "jgf" | "R", types = "node,..."}: the module's graph as
-- JGF (each vertex's status, and the allocation records: what jobs and
-- reservations hold; with types, only the vertices of those types and the
-- edges between them), or as R: {all, down, allocated}.  The answer is
-- the document itself (no {text} around it: at 16,384 nodes of 48
-- vertices the whole JGF is 380 MB, and is not copied into a string of
-- JSON again).
local function graph_cmd(self, r, topic)
  local f = r.format or "jgf"
  local g = self.loop.g
  local text
  if f == "jgf" then
    local opts = {state = true, compact = true}
    if r.types ~= nil then
      local known = g:types()
      local vs = {}
      for t in tostring(r.types):gmatch("[^,%s]+") do
        local found = false
        for _, k in ipairs(known) do found = found or k == t end
        if not found then
          return fail(self, topic, "EINVAL", fmt("graph: no vertex of type '%s' here%s", t,
            suggest.hint(t, known)))
        end
        for v in g:vertices{type = t} do vs[#vs + 1] = v end
      end
      table.sort(vs, function(a, b) return a:vid() < b:vid() end)
      opts.vertices = vs
    end
    text = core.jgf_encode(g, opts)
  elseif f == "R" or f == "rv1" then
    local all, down, allocated = M.status_R(self)
    text = fmt('{"all":%s,"down":%s,"allocated":%s}', all:encode(), down:encode(),
      allocated:encode())
    down:close()
    allocated:close()
  else
    return fail(self, topic, "EINVAL", fmt("graph: unknown format '%s' (jgf or R)", tostring(f)))
  end
  emit(self, {op = "respond", topic = topic, json = text})
  return flush(self)
end

local function ms(s) return fmt("%.3f ms", (s or 0) * 1e3) end

local function latency_line(name, l)
  if type(l) ~= "table" or not l.n or l.n == 0 then return nil end
  return fmt("%s: n %d, p50 %.0f us, p99 %.0f us, max %.0f us", name, l.n, l.p50_us or 0,
    l.p99_us or 0, l.max_us or 0)
end

-- stats {stats}: the module's counters (the module adds what it measures
-- itself to stats; without it, the loop's own), as text.
local function stats_cmd(self, r, topic)
  local st = type(r.stats) == "table" and r.stats or M.stats(self)
  local lines = {}
  if st.policy_fallback then
    lines[1] = fmt("WARNING: the configured policies cannot be used (%s): the built-in "
      .. "defaults schedule", st.policy_fallback)
  end
  for _, l in ipairs{
    fmt("queue policy %s, placement policy %s, queue-depth %s, reserve-depth %s",
      tostring(st.queue), tostring(st.policy), tostring(st["queue-depth"] or "unlimited"),
      tostring(st["reserve-depth"] or "(the queue policy's)")),
    fmt("jobs: %d matched, %d failed; %d pending, %d running", st.jobs_matched or 0,
      st.matches_failed or 0, st.queue_length or 0, st.running or 0),
  } do lines[#lines + 1] = l end
  for _, f in ipairs(st.policy_files or {}) do
    lines[#lines + 1] = fmt("%s%s: %s (content %s)", f.key, f.queue and " of queue " .. f.queue
      or "", f.file, f.hash)
  end
  local mt = st.match_time or {}
  lines[#lines + 1] = fmt("match time: min %s, mean %s, max %s", ms(mt.min), ms(mt.avg),
    ms(mt.max))
  for _, k in ipairs({"alloc_latency", "alloc_handed", "alloc_cpu", "feasibility",
    "pass_time", "pass_cpu"}) do
    lines[#lines + 1] = latency_line(k, st[k])
  end
  if st.allocs then
    lines[#lines + 1] = fmt("alloc requests %d, annotations sent %d", st.allocs,
      st.annotations_sent or 0)
  end
  local qnames = {}
  for q in pairs(st.queues or {}) do qnames[#qnames + 1] = q end
  table.sort(qnames)
  for _, q in ipairs(qnames) do
    local f = st.queues[q]
    lines[#lines + 1] = fmt("queue %s: %d pending (%d with a planned start), %d running; "
      .. "queue policy %s, placement %s", q, f.pending, f.reserved, f.running, f.policy,
      f.placement)
  end
  for _, d in ipairs(st.reservations or {}) do
    lines[#lines + 1] = "reservation " .. reservation_line(d)
  end
  local gc = st.lua_gc
  if type(gc) == "table" then
    lines[#lines + 1] = fmt("lua heap %s KB; collector %s steps, %.0f us (most %.0f us)",
      tostring(gc.heap_kb), tostring(gc.steps), gc.cpu_us or 0, gc.max_us or 0)
  end
  answer(self, topic, r, st, table.concat(lines, "\n") .. "\n")
  return flush(self)
end

-- reload {}: the policy files of the configuration in force read again,
-- those whose content changed taken (grove.flux's reload_policies: loaded
-- and self-checked first, refused with the reason).
local function reload_cmd(self, r, topic)
  local text, reason = self:reload_policies()
  if not text then return fail(self, topic, "EINVAL", "reload: " .. reason) end
  answer(self, topic, r, {text = text}, text .. "\n")
  self.stale = true
  return self:schedule()
end

local COMMANDS = {
  find = find_cmd,
  reload = reload_cmd,
  why = why_cmd,
  ["set-property"] = function(self, r, topic) return property_cmd(self, r, topic, true) end,
  ["remove-property"] = function(self, r, topic) return property_cmd(self, r, topic, false) end,
  ["set-status"] = status_cmd,
  reserve = reserve_cmd,
  unreserve = unreserve_cmd,
  reservations = reservations_cmd,
  graph = graph_cmd,
  stats = stats_cmd,
}

-- The commands, by name (for the module's handler table and --help).
M.COMMANDS = {}
for name in pairs(COMMANDS) do M.COMMANDS[#M.COMMANDS + 1] = name end
table.sort(M.COMMANDS)

-- An operator's command: its actions (a respond with {text}, or an error).
function M.command(self, cmd, request)
  local topic = "sched-grove." .. tostring(cmd)
  local f = COMMANDS[cmd]
  if not f then
    return fail(self, topic, "ENOSYS", fmt("unknown command '%s'%s", tostring(cmd),
      suggest.hint(tostring(cmd), M.COMMANDS)))
  end
  local r, err = decode(request == nil and {} or request)
  if type(r) ~= "table" then
    return fail(self, topic, "EPROTO", err or "a JSON object expected")
  end
  tick(self)
  return f(self, r, topic)
end

-- The topics of the commands (sched-grove.CMD), each a handler of the
-- protocol object's handle().
M.TOPICS = {}
for _, name in ipairs(M.COMMANDS) do
  M.TOPICS["sched-grove." .. name] = function(self, payload)
    return M.command(self, name, payload)
  end
end

return M
