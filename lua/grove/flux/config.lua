-- grove.flux.config: the options of the protocol object (grove.flux.new),
-- and the module's configuration read into them.
--
-- check(opts) checks the options table grove.flux.new takes: a misuse
-- (an unknown option, or an unknown key of its limits) raises, a bad
-- value is returned as nil, message, code.
--
-- module_options(conf, args) reads what sched-grove.so is given: the
-- instance's configuration (conf: the whole of it, decoded; its
-- [sched-grove] table is read here) and the module's arguments (args:
-- "key=value" words, which win over the table).  Every key is known
-- here; an unknown one, or a bad value, is refused with the key, where
-- it came from and why (with a "did you mean" for a misspelt key), and
-- nothing is built.  The keys are flux-core's schedulers' where they
-- mean the same (queue-depth, mode, log-level, forecast-period), so a
-- module line written for sched-simple, sched-fifo or sched-backfill
-- loads sched-grove unchanged.
local check = require("grove.check")
local core = require("grove.core")
local glimits = require("grove.limits")
local jobspec = require("grove.jobspec")
local suggest = require("grove.suggest")

local M = {}

local fmt = string.format

M.OPTIONS = {queue = 1, policy = 1, queue_depth = 1, reserve_depth = 1, match_format = 1,
  limited = 1, limits = 1, clock = 1, default_duration = 1, budget = 1, memory = 1, time = 1,
  log_level = 1, forecast_period = 1, queues = 1, queue_names = 1, notes = 1, run_limits = 1,
  record_estimates = 1,
  topology = 1, hwloc = 1}

-- The keys of opts.limits: the queue policy's sandbox limits.
M.LIMITS = {budget = 1, memory = 1, time = 1}

-- syslog's levels, by the names flux-core's log-level= takes
M.LEVELS = {emerg = 0, alert = 1, crit = 2, err = 3, warning = 4, notice = 5, info = 6,
  debug = 7}

-- Check opts (a table, or nil for the defaults); level: the caller's
-- level for a raised error.  Returns opts (a new empty table for nil), or
-- nil, message, "EINVAL".
function M.check(opts, level)
  opts = opts or {}
  level = (level or 1) + 1
  if type(opts) ~= "table" then
    error(fmt("bad argument #1 to 'new' (table expected, got %s)", type(opts)), level)
  end
  check.keys(opts, M.OPTIONS, 1, "new", nil, level)
  if type(opts.limits) == "table" then
    check.keys(opts.limits, M.LIMITS, 1, "new", "limits option", level)
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
  local ll = opts.log_level
  if ll ~= nil and (math.type(ll) ~= "integer" or ll < 0 or ll > 7) then
    return nil, fmt("log-level must be a syslog level 0-7, got %s", tostring(ll)), "EINVAL"
  end
  local tp = opts.topology
  if tp ~= nil and tp ~= "auto" and tp ~= "flat" then
    return nil, fmt("topology must be auto or flat, got '%s'", tostring(tp)), "EINVAL"
  end
  local fp = opts.forecast_period
  if fp ~= nil and (type(fp) ~= "number" or fp ~= fp or fp <= 0 or fp == math.huge) then
    return nil, fmt("forecast-period must be a positive number of seconds, got %s",
      tostring(fp)), "EINVAL"
  end
  return opts
end

-- ---- the module's keys ------------------------------------------------------------

-- A positive integer from a number or its text, or nil.
local function count_of(v)
  local n = type(v) == "string" and v:match("^%s*%d+%s*$") and math.tointeger(tonumber(v))
    or math.tointeger(v)
  if n and n >= 1 then return n end
  return nil
end

local function text(opt)
  return function(v, o)
    if type(v) ~= "string" or v == "" then return "a name or a path expected" end
    o[opt] = v
  end
end

-- N (a positive integer) or "unlimited" into o[opt] (nil: unlimited)
local function depth(opt)
  return function(v, o)
    if v == "unlimited" then
      o[opt] = nil
      return
    end
    local n = count_of(v)
    if not n then return "a positive integer or 'unlimited' expected" end
    o[opt] = n
  end
end

local function limit(name)
  return function(v, o)
    local n = tonumber(v)
    if not n or n ~= n or n <= 0 or n == math.huge then return "a positive number expected" end
    o.limits = o.limits or {}
    o.limits[name] = math.tointeger(n) or n
  end
end

-- Each key: a reader of its value into the options table, returning an
-- error text (what was expected) when the value is bad.
M.KEYS = {
  ["queue-policy"] = text("queue"),
  ["placement-policy"] = text("policy"),
  -- how many pending jobs the job manager sends (ready's limited=N)
  ["queue-depth"] = depth("limited"),
  -- flux-core's older spelling of the same: unlimited | limited=N
  mode = function(v, o)
    if v == "unlimited" then
      o.limited = nil
      return
    end
    local n = type(v) == "string" and count_of(v:match("^limited=(.*)$") or "")
    if not n then return "'unlimited' or 'limited=N' (N a positive integer) expected" end
    o.limited = n
  end,
  ["reserve-depth"] = depth("reserve_depth"),
  ["match-format"] = function(v, o)
    if v ~= "rv1_nosched" and v ~= "rv1" then return "rv1_nosched or rv1 expected" end
    o.match_format = v
  end,
  ["policy-budget"] = limit("budget"),
  ["policy-time"] = limit("time"),
  ["policy-memory"] = limit("memory"),
  ["log-level"] = function(v, o)
    local lv = type(v) == "string" and M.LEVELS[v:lower()]
    if not lv then
      return "one of emerg, alert, crit, err, warning, notice, info, debug expected"
    end
    o.log_level = lv
  end,
  -- where a node's topology comes from (grove.flux.topology)
  topology = function(v, o)
    if v ~= "auto" and v ~= "flat" then return "auto or flat expected" end
    o.topology = v
  end,
  -- hwloc XML of node classes: a path (every rank), or a list of
  -- {path = PATH, ranks = IDSET | hosts = HOSTLIST}
  ["hwloc-xml"] = function(v, o)
    if type(v) == "string" and v ~= "" then
      o.hwloc = {{path = v}}
      return
    end
    if type(v) ~= "table" or #v == 0 then
      return "a path, or a list of {path = PATH, ranks = IDSET | hosts = HOSTLIST} expected"
    end
    local list = {}
    for i, c in ipairs(v) do
      if type(c) ~= "table" then
        return fmt("class %d: a table {path, ranks | hosts} expected", i)
      end
      for k in pairs(c) do
        if k ~= "path" and k ~= "ranks" and k ~= "hosts" then
          return fmt("class %d: unknown key '%s'%s (path, ranks, hosts)", i, tostring(k),
            suggest.hint(tostring(k), {"path", "ranks", "hosts"}))
        end
      end
      if type(c.path) ~= "string" or c.path == "" then
        return fmt("class %d: path: an hwloc XML file expected", i)
      end
      if c.ranks ~= nil and c.hosts ~= nil then
        return fmt("class %d: ranks or hosts, not both", i)
      end
      if c.ranks ~= nil and (type(c.ranks) ~= "string" or not core.idset(c.ranks)) then
        return fmt("class %d: ranks: an idset expected, got '%s'", i, tostring(c.ranks))
      end
      if c.hosts ~= nil and (type(c.hosts) ~= "string" or not core.hostlist(c.hosts)) then
        return fmt("class %d: hosts: a hostlist expected, got '%s'", i, tostring(c.hosts))
      end
      list[i] = {path = c.path, ranks = c.ranks, hosts = c.hosts}
    end
    o.hwloc = list
  end,
  -- the least time between two forecasts of the pending jobs' starts
  ["forecast-period"] = function(v, o)
    local secs = (type(v) == "number" or type(v) == "string") and jobspec.duration(v)
    if not secs or secs <= 0 then
      return "a positive duration expected (seconds, or a number with s, m, h, d)"
    end
    o.forecast_period = secs
  end,
  -- a started job's alloc annotations carry the estimates it was shown
  -- (sched.estimated): off by default, as flux-core's schedulers add no
  -- such key and its tests compare a job's annotations whole
  ["record-estimates"] = function(v, o)
    if v == true or v == "true" then o.record_estimates = true
    elseif v == false or v == "false" then o.record_estimates = nil
    else return "true or false expected" end
  end,
}

local function key_list()
  local names = {}
  for k in pairs(M.KEYS) do names[#names + 1] = k end
  table.sort(names)
  return names
end

-- Read key = value, from where ("argument" or "[sched-grove]"), into o;
-- nil, or the message of a bad key or value.
local function read_key(key, value, where, o)
  local reader = M.KEYS[key]
  if not reader then
    local names = key_list()
    return fmt("%s: unknown key '%s'%s; the keys are %s", where, key, suggest.hint(key, names),
      table.concat(names, ", "))
  end
  local why = reader(value, o)
  if why then return fmt("%s: %s=%s: %s", where, key, tostring(value), why) end
end

-- The keys a queue's own table [sched-grove.queues.NAME] may set (limits:
-- a table of the queue's limits, read by read_limits).
M.QUEUE_KEYS = {["queue-policy"] = true, ["placement-policy"] = true, ["reserve-depth"] = true,
  limits = true}

local function sorted_keys(tbl)
  local keys = {}
  for k in pairs(tbl) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  return keys
end

-- flux-core's queues ([queues.NAME]: requires, parent) and sched-grove's
-- settings of each ([sched-grove.queues.NAME]) into o.queues: {NAME =
-- {parent =, requires = {...}, queue =, policy =, reserve_depth =}}, the
-- names in o.queue_names (sorted).  nil, or the message of what is wrong.
local function read_queues(conf, own, o)
  local fq = conf and conf.queues
  if fq ~= nil and type(fq) ~= "table" then return "[queues]: a table expected" end
  if own ~= nil and type(own) ~= "table" then
    return "[sched-grove.queues]: a table expected"
  end
  if fq == nil and own == nil then return nil end
  local queues, names = {}, {}
  for _, name in ipairs(sorted_keys(fq or {})) do
    local q = fq[name]
    if type(name) ~= "string" or type(q) ~= "table" then
      return fmt("[queues.%s]: a table expected", tostring(name))
    end
    local entry = {}
    if q.requires ~= nil then
      if type(q.requires) ~= "table" then
        return fmt("[queues.%s]: requires: a list of properties expected", name)
      end
      entry.requires = q.requires
    end
    if q.parent ~= nil then
      -- the words flux-core's job manager uses for the same faults: the
      -- broker reports whichever module refuses the configuration first
      if type(q.parent) ~= "string" then
        return fmt("[queues.%s]: 'parent' must be a string", name)
      elseif q.parent == name then
        return fmt("[queues.%s]: parent queue is itself", name)
      elseif type(fq[q.parent]) ~= "table" then
        return fmt("[queues.%s]: parent queue '%s' is not configured", name, q.parent)
      elseif fq[q.parent].parent ~= nil then
        return fmt("[queues.%s]: parent queue '%s' is itself a virtual queue", name, q.parent)
      end
      entry.parent = q.parent
    end
    queues[name] = entry
    names[#names + 1] = name
  end
  for _, name in ipairs(sorted_keys(own or {})) do
    local where = fmt("[sched-grove.queues.%s]", tostring(name))
    local entry = queues[name]
    if not entry then
      return fmt("%s: no queue '%s' in [queues]%s", where, tostring(name),
        suggest.hint(tostring(name), names))
    end
    local tbl = own[name]
    if type(tbl) ~= "table" then return where .. ": a table expected" end
    for _, k in ipairs(sorted_keys(tbl)) do
      if not M.QUEUE_KEYS[k] then
        local known = sorted_keys(M.QUEUE_KEYS)
        return fmt("%s: unknown key '%s'%s; a queue's keys are %s", where, tostring(k),
          suggest.hint(tostring(k), known), table.concat(known, ", "))
      end
      if k == "limits" then goto continue end
      local q = {}
      local why = M.KEYS[k](tbl[k], q)
      if why then return fmt("%s: %s=%s: %s", where, k, tostring(tbl[k]), why) end
      entry.queue = q.queue or entry.queue
      entry.policy = q.policy or entry.policy
      if k == "reserve-depth" then entry.reserve_depth = q.reserve_depth or "unlimited" end
      ::continue::
    end
  end
  o.queues, o.queue_names = queues, names
  return nil
end

-- What running jobs may hold ([sched-grove.limits], and each queue's
-- [sched-grove.queues.NAME.limits], which wins over the queue's entry in
-- [sched-grove.limits.queues]) into o.run_limits (grove.limits), the
-- queues named checked against [queues].  With flux-accounting = "auto"
-- or a path, flux-accounting's association limits are read too
-- (grove.flux.accounting): what was read, or why it was skipped (auto:
-- not installed, no database), is a note the module logs; a path that
-- cannot be read refuses the configuration.  nil, or the message of
-- what is wrong (the key and why).
local function read_limits(tbl, o, notes)
  local lt = tbl and tbl.limits
  local own = tbl and type(tbl.queues) == "table" and tbl.queues or {}
  local per = {}
  for _, name in ipairs(sorted_keys(own)) do
    local q = own[name]
    if type(q) == "table" and q.limits ~= nil then per[#per + 1] = name end
  end
  if lt == nil and #per == 0 then return nil end
  local exist = {}
  for _, name in ipairs(o.queue_names or {}) do exist[name] = true end
  local L, msg = glimits.parse(lt or {}, "[sched-grove.limits]", {queues = exist})
  if not L then return msg end
  for _, name in ipairs(per) do
    local set
    set, msg = glimits.parse_set(own[name].limits, fmt("[sched-grove.queues.%s.limits]", name))
    if not set then return msg end
    local into = L.queues[name] or {}
    for k, v in pairs(set) do into[k] = v end
    L.queues[name] = into
  end
  if L.accounting then
    local acct, why, bad = require("grove.flux.accounting").read(L.accounting)
    if acct then
      glimits.set_associations(L, acct)
      notes[#notes + 1] = fmt("[sched-grove.limits] flux-accounting: the limits of %d "
        .. "association%s read from %s", acct.count, acct.count == 1 and "" or "s", acct.path)
    elseif bad and L.accounting ~= "auto" then
      return fmt("[sched-grove.limits]: flux-accounting=%s: %s", L.accounting, why)
    else
      notes[#notes + 1] = fmt("[sched-grove.limits] flux-accounting: skipped: %s", why)
    end
  end
  o.run_limits = L
  return nil
end

-- ---- Fluxion's configuration ---------------------------------------------------------
--
-- A site switching from Fluxion keeps its [sched-fluxion-qmanager] and
-- [sched-fluxion-resource] tables: their keys are read as what they mean
-- here (docs/flux.md, "Switching from Fluxion"), each reading said in a
-- note the module logs, and [sched-grove] keys win over them.

-- "k=v,k=v" (Fluxion's queue-params and policy-params) as a table of
-- positive integers, or nil and the reason.
local function params_of(spec, where)
  local out = {}
  if type(spec) ~= "string" then return nil, where .. ": a string \"key=value,...\" expected" end
  for item in spec:gmatch("[^,]+") do
    local k, v = item:match("^%s*([%w-]+)%s*=%s*(%d+)%s*$")
    local n = v and math.tointeger(tonumber(v))
    if not k or not n or n < 1 then
      return nil, fmt("%s: '%s': key=positive integer expected", where, item)
    end
    out[k] = n
  end
  return out
end

local QM, RS = "[sched-fluxion-qmanager]", "[sched-fluxion-resource]"
local FLUXION_QUEUES = {fcfs = "fcfs", easy = "easy", conservative = "conservative",
  hybrid = "conservative"}

-- Fluxion's tables of conf into o, with a note for each reading in
-- notes; nil, or the message of a key or value it cannot read.
local function read_fluxion(conf, o, notes)
  local qm, rs = conf["sched-fluxion-qmanager"], conf["sched-fluxion-resource"]
  local gpolicy = require("grove.policy")
  if type(qm) == "table" then
    local pp = {}
    if qm["policy-params"] ~= nil then
      local e
      pp, e = params_of(qm["policy-params"], QM .. " policy-params")
      if not pp then return e end
    end
    local qp = qm["queue-policy"]
    if qp ~= nil then
      local q = FLUXION_QUEUES[qp]
      if not q then
        return fmt("%s queue-policy=%s: fcfs, easy, conservative or hybrid expected%s", QM,
          tostring(qp), suggest.hint(tostring(qp), {"fcfs", "easy", "conservative", "hybrid"}))
      end
      o.queue = q
      local d = qp == "hybrid" and (pp["reservation-depth"] or 64)
        or qp == "conservative" and pp["max-reservation-depth"] or nil
      if d and pp["max-reservation-depth"] then d = math.min(d, pp["max-reservation-depth"]) end
      o.reserve_depth = d
      notes[#notes + 1] = fmt("%s queue-policy=%s read as queue-policy=%s%s", QM, qp, q,
        d and " reserve-depth=" .. d or "")
    end
    if qm["queue-params"] ~= nil then
      local qp2, e = params_of(qm["queue-params"], QM .. " queue-params")
      if not qp2 then return e end
      local d = qp2["queue-depth"] or 32
      if qp2["max-queue-depth"] then d = math.min(d, qp2["max-queue-depth"]) end
      o.queue_depth = d
      notes[#notes + 1] = fmt("%s queue-params: a pass considers the first %d waiting jobs", QM, d)
    end
    local per = qm["queue-policy-per-queue"]
    if per ~= nil then
      if type(per) ~= "string" then
        return QM .. ' queue-policy-per-queue: a string "queue:policy ..." expected'
      end
      for item in per:gmatch("%S+") do
        local name, pol = item:match("^([^:]+):(.+)$")
        local q = pol and FLUXION_QUEUES[pol]
        if not q then
          return fmt("%s queue-policy-per-queue: '%s': queue:policy (fcfs, easy, conservative, "
            .. "hybrid) expected", QM, item)
        end
        o.fluxion_queues = o.fluxion_queues or {}
        o.fluxion_queues[name] = q
        notes[#notes + 1] = fmt("%s queue-policy-per-queue: queue %s read as queue-policy=%s",
          QM, name, q)
      end
    end
  end
  if type(rs) == "table" then
    local mp = rs["match-policy"]
    if mp ~= nil then
      if type(mp) ~= "string" then return RS .. " match-policy: a name expected" end
      local name, e = gpolicy.fluxion(mp)
      if not name then return fmt("%s match-policy=%s: %s", RS, mp, e) end
      o.policy = name
      notes[#notes + 1] = fmt("%s match-policy=%s read as placement-policy=%s", RS, mp, name)
    end
    local mf = rs["match-format"]
    if mf ~= nil then
      if mf ~= "rv1" and mf ~= "rv1_nosched" then
        return fmt("%s match-format=%s: rv1 or rv1_nosched expected", RS, tostring(mf))
      end
      o.match_format = mf
      notes[#notes + 1] = fmt("%s match-format=%s read as match-format=%s", RS, mf, mf)
    end
  end
  return nil
end

-- The options of grove.flux.new from the instance's configuration (conf,
-- a table or nil) and the module's arguments (an array of "key=value"
-- words).  The options table (its notes: what was read of Fluxion's
-- tables, to be logged), or nil and the message.
function M.module_options(conf, args)
  local o, notes = {}, {}
  if type(conf) == "table" then
    local err = read_fluxion(conf, o, notes)
    if err then return nil, err end
  end
  local tbl = type(conf) == "table" and conf["sched-grove"] or nil
  if tbl ~= nil and type(tbl) ~= "table" then
    return nil, "[sched-grove]: a table expected"
  end
  for _, k in ipairs(sorted_keys(tbl or {})) do
    if k ~= "queues" and k ~= "limits" then
      local err = read_key(k, tbl[k], "[sched-grove]", o)
      if err then return nil, err end
    end
  end
  local err = read_queues(type(conf) == "table" and conf or nil, tbl and tbl.queues, o)
  if err then return nil, err end
  err = read_limits(tbl, o, notes)
  if err then return nil, err end
  -- Fluxion's queue-policy-per-queue, under the queue's own table
  for name, q in pairs(o.fluxion_queues or {}) do
    local e = o.queues and o.queues[name]
    if not e then
      return nil, fmt("%s queue-policy-per-queue: no queue '%s' in [queues]%s", QM, name,
        suggest.hint(name, o.queue_names or {}))
    end
    e.queue = e.queue or q
  end
  o.fluxion_queues = nil
  if #notes > 0 then o.notes = notes end
  for _, a in ipairs(args or {}) do
    local k, v = tostring(a):match("^([^=]+)=(.*)$")
    if not k then return nil, fmt("argument '%s': key=value expected", tostring(a)) end
    err = read_key(k, v, fmt("argument '%s'", a), o)
    if err then return nil, err end
  end
  return o
end

-- ---- what changed ----------------------------------------------------------------

-- The tables of an instance's configuration the module reads.
M.TABLES = {"sched-grove", "queues", "sched-fluxion-qmanager", "sched-fluxion-resource"}

local function shown(v)
  if v == nil then return "(unset)" end
  if type(v) == "table" then
    local ok, json = pcall(require("grove.core").json_encode, v, 0)
    return ok and json or tostring(v)
  end
  return tostring(v)
end

-- Whether a value is a table of keys (not an array: an array is a value).
local function keyed(v)
  return type(v) == "table" and next(v) ~= nil and v[1] == nil
end

-- What differs between two configurations (conf tables as `flux config
-- get` gives them, nil for none) in the tables the module reads, key by
-- key (a table of keys walked into, "sched-grove.queues.debug.queue-
-- policy"): {{key =, old =, new =}, ...} with old and new as text, by key.
function M.changes(old, new)
  local out = {}
  local function walk(prefix, a, b)
    if keyed(a) or keyed(b) then
      local keys, seen = {}, {}
      for _, t in ipairs{type(a) == "table" and a or {}, type(b) == "table" and b or {}} do
        for k in pairs(t) do
          if not seen[k] then
            seen[k] = true
            keys[#keys + 1] = k
          end
        end
      end
      table.sort(keys, function(x, y) return tostring(x) < tostring(y) end)
      for _, k in ipairs(keys) do
        walk(prefix .. "." .. tostring(k), type(a) == "table" and a[k] or nil,
          type(b) == "table" and b[k] or nil)
      end
      return
    end
    local sa, sb = shown(a), shown(b)
    if sa ~= sb then out[#out + 1] = {key = prefix, old = sa, new = sb} end
  end
  for _, t in ipairs(M.TABLES) do
    walk(t, type(old) == "table" and old[t] or nil, type(new) == "table" and new[t] or nil)
  end
  return out
end

-- The parameters grove.sim.perqueue takes for queues ({NAME = {queue =,
-- policy =, reserve_depth =}}): policy_NAME, placement_NAME and
-- reserve_depth_NAME.
function M.queue_params(queues)
  local params = {}
  for name, e in pairs(queues) do
    if e.queue then params["policy_" .. name] = e.queue end
    if e.policy then params["placement_" .. name] = e.policy end
    if e.reserve_depth and e.reserve_depth ~= "unlimited" then
      params["reserve_depth_" .. name] = e.reserve_depth
    end
  end
  return params
end

-- The options of grove.sim.new that a Flux instance's configuration
-- (conf, as `flux config get` prints it) gives: the same queue and
-- placement policies, depths and limits, and per queue (queues named in
-- [queues]) policy_Q, placement_Q and reserve_depth_Q parameters, so a
-- simulation runs what the instance runs.  What only the module's
-- messages mean (match-format, log-level, forecast-period) does not
-- change a schedule and is left out; queue-depth, the jobs the job
-- manager hands over, is the loop's queue depth.  The options, or nil
-- and the message.
function M.sim_options(conf)
  local o, msg = M.module_options(conf, {})
  if not o then return nil, msg end
  local s = {queue = o.queue, policy = o.policy, reserve_depth = o.reserve_depth,
    queue_depth = o.limited, run_limits = o.run_limits}
  for k, v in pairs(o.limits or {}) do s[k] = v end
  if o.queues then s.params = M.queue_params(o.queues) end
  return s
end

return M
