-- grove.limits: what running jobs may hold, per user, per bank, per
-- queue and overall, read and counted for the scheduling loop
-- (grove.sched), so that grove sim and the Flux module hold jobs back by
-- the same limits.
--
-- A limit is a maximum of one amount held by running jobs: jobs (the
-- running jobs), nodes, cores or GPUs, each the sum over the holder's
-- running jobs of what each job holds (two jobs of one user on one node
-- count the node twice).  A holder is the whole machine, a user, a bank
-- (a Flux jobspec's attributes.system.bank; a trace's bank) or a queue.
-- The limits, as a table (a Flux instance's [sched-grove.limits], a
-- limits file of grove sim, or what a queue policy gives ctx:set_limits):
--
--   {["max-running-jobs"] = N, ["max-nodes"] = N, ["max-cores"] = N,
--    ["max-gpus"] = N,            -- the whole machine
--    user = {max-... = N},        -- each user
--    bank = {max-... = N},        -- each bank
--    users = {NAME = {...}},      -- a user of its own (its uid, or a name)
--    banks = {NAME = {...}},      -- a bank of its own
--    queues = {NAME = {...}},     -- a queue's running jobs together
--    ["flux-accounting"] = "auto" | PATH | false}
--                                 -- flux-accounting's association limits
--                                 -- too (sched-grove reads them:
--                                 -- grove.flux.accounting)
--
-- N is a whole number, 0 or more (0: none may run), or "unlimited"
-- (what a user or bank of its own sets over the default of every one).
-- parse reads it into the form the loop counts with ({all =, user =,
-- bank =, users =, banks =, queues =}, each set {jobs =, node =, core =,
-- gpu =}, nil for no limit); a bad one is refused naming the key.
--
-- A job is held when starting it would take a holder past a limit
-- (check); a job of the limits is held before its match by what it is
-- known to ask (a plain request's units, a jobspec's least counts), and
-- after it by what the match gave.
local M = {}

local fmt = string.format
local check = require("grove.check")
local step_fit = require("grove.sched.profile").step_fit

-- The keys of a set of limits and the amount each counts.
M.KEYS = {["max-running-jobs"] = "jobs", ["max-nodes"] = "node", ["max-cores"] = "core",
  ["max-gpus"] = "gpu"}
M.AMOUNTS = {"jobs", "node", "core", "gpu"}
M.NAMES = {jobs = "max-running-jobs", node = "max-nodes", core = "max-cores",
  gpu = "max-gpus"}
local KEY_LIST = {"max-running-jobs", "max-nodes", "max-cores", "max-gpus"}
local TABLES = {user = true, bank = true, users = true, banks = true, queues = true,
  ["flux-accounting"] = true}

local UNLIMITED = false   -- "unlimited" in a set (over a default)

local function sorted(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  return keys
end

local function hint(key, names)
  local ok, suggest = pcall(require, "grove.suggest")
  return ok and suggest.hint(key, names) or ""
end

-- One set of limits (tbl) into {jobs =, node =, ...}; nil and the
-- message (where: the table's name, as the message shows it).  others:
-- the sub-tables the table may also hold (the top one's), left to the
-- caller.
local function read_set(tbl, where, others)
  if type(tbl) ~= "table" then return nil, fmt("%s: a table expected, got %s", where, type(tbl)) end
  local set = {}
  for _, k in ipairs(sorted(tbl)) do
    local v = tbl[k]
    local amount = M.KEYS[k]
    if amount then
      if v == "unlimited" then
        set[amount] = UNLIMITED
      elseif math.type(v) == "integer" or (math.type(v) == "float" and math.tointeger(v)) then
        v = math.tointeger(v)
        if v < 0 then
          return nil, fmt("%s: %s=%d: a limit must be 0 or more (or \"unlimited\")", where, k, v)
        end
        set[amount] = v
      else
        return nil, fmt("%s: %s=%s: a whole number of %s, 0 or more, or \"unlimited\" expected "
          .. "(got %s)", where, k, tostring(v), amount == "jobs" and "jobs" or amount .. "s",
          type(v))
      end
    elseif not (others and others[k]) then
      local known = {table.unpack(KEY_LIST)}
      for o in pairs(others or {}) do known[#known + 1] = o end
      table.sort(known)
      return nil, fmt("%s: unknown key '%s'%s; the keys are %s", where, tostring(k),
        hint(tostring(k), known), table.concat(known, ", "))
    end
  end
  return set
end

-- A table of named sets (users, banks, queues) into {NAME = set}; name_of
-- reads a name (a user's into its uid), or returns nil and why.
local function read_named(tbl, where, name_of)
  if type(tbl) ~= "table" then return nil, fmt("%s: a table expected, got %s", where, type(tbl)) end
  local out = {}
  for _, k in ipairs(sorted(tbl)) do
    local key, why = k, nil
    if name_of then key, why = name_of(k) end
    if key == nil then return nil, fmt("%s.%s: %s", where, tostring(k), why) end
    local set, msg = read_set(tbl[k], fmt("%s.%s", where, tostring(k)))
    if not set then return nil, msg end
    out[key] = set
  end
  return out
end

-- A user's name in /etc/passwd, read once: name -> uid.
local passwd
local function uid_by_name(name)
  if not passwd then
    passwd = {}
    local f = io.open("/etc/passwd")
    if f then
      for line in f:lines() do
        local n, uid = line:match("^([^:]+):[^:]*:(%d+):")
        if n then passwd[n] = math.tointeger(tonumber(uid)) end
      end
      f:close()
    end
  end
  return passwd[name]
end

-- A user's key in the limits: a uid (its digits, or a name /etc/passwd
-- knows), or, with names kept (grove sim: a trace's users may be names),
-- the name.
local function user_key(keep_names)
  return function(k)
    if math.type(k) == "integer" then return k end
    if type(k) ~= "string" then return nil, "a user's uid or name expected" end
    local n = k:match("^%d+$") and math.tointeger(tonumber(k))
    if n then return n end
    local uid = uid_by_name(k)
    if uid then return uid end
    if keep_names then return k end
    return nil, fmt("unknown user '%s' (no such name in /etc/passwd; a uid is taken as it is)", k)
  end
end

-- The limits table tbl (as described above; nil: no limits) read, where
-- naming it in messages ("[sched-grove.limits]", a file's name).  opts:
-- {queues = {NAME = true} (the queues that exist: another is refused),
-- names = true (a user named but unknown to /etc/passwd kept as a name)};
-- any other key of opts raises.  The limits the loop counts with, or nil
-- and the message.
local PARSE_OPTIONS = {queues = 1, names = 1}

function M.parse(tbl, where, opts)
  check.keys(opts, PARSE_OPTIONS, 3, "parse")
  opts = opts or {}
  where = where or "limits"
  if tbl == nil then return nil end
  local all, msg = read_set(tbl, where, TABLES)
  if not all then return nil, msg end
  local L = {all = all, users = {}, banks = {}, queues = {}}
  local fa = tbl["flux-accounting"]
  if fa ~= nil then
    if fa == true then fa = "auto" end
    if fa ~= false and (type(fa) ~= "string" or fa == "") then
      return nil, fmt("%s: flux-accounting=%s: \"auto\", a database's path, true or false "
        .. "expected", where, tostring(fa))
    end
    L.accounting = fa or nil
  end
  for _, k in ipairs{"user", "bank"} do
    if tbl[k] ~= nil then
      L[k], msg = read_set(tbl[k], where .. "." .. k)
      if not L[k] then return nil, msg end
    end
  end
  if tbl.users ~= nil then
    L.users, msg = read_named(tbl.users, where .. ".users", user_key(opts.names))
    if not L.users then return nil, msg end
  end
  if tbl.banks ~= nil then
    L.banks, msg = read_named(tbl.banks, where .. ".banks", function(k)
      if type(k) ~= "string" or k == "" then return nil, "a bank's name expected" end
      return k
    end)
    if not L.banks then return nil, msg end
  end
  if tbl.queues ~= nil then
    L.queues, msg = read_named(tbl.queues, where .. ".queues", function(k)
      if opts.queues and not opts.queues[k] then
        local names = sorted(opts.queues)
        return nil, fmt("no queue '%s'%s (the queues are %s)", tostring(k),
          hint(tostring(k), names), #names > 0 and table.concat(names, ", ") or "none")
      end
      return k
    end)
    if not L.queues then return nil, msg end
  end
  return L
end

-- flux-accounting's association limits (grove.flux.accounting.read's
-- answer) into L: each association (a user in a bank) a holder of its
-- own; a job without a bank counts in its user's default bank.
function M.set_associations(L, acct)
  L.assoc, L.assoc_default = {}, {}
  for uid, banks in pairs(acct.assocs or {}) do
    for bank, set in pairs(banks) do L.assoc[tostring(uid) .. "/" .. bank] = set end
  end
  for uid, bank in pairs(acct.defaults or {}) do L.assoc_default[uid] = bank end
  L.assoc_count = acct.count
end

-- Read one set, for a queue's own table ([sched-grove.queues.NAME.limits]).
function M.parse_set(tbl, where)
  return read_set(tbl, where)
end

-- Whether the limits L hold anything back.
function M.empty(L)
  if not L then return true end
  local function none(set) return set == nil or next(set) == nil end
  if not none(L.all) or not none(L.user) or not none(L.bank) then return false end
  for _, k in ipairs{"users", "banks", "queues", "assoc"} do
    for _, set in pairs(L[k] or {}) do
      if not none(set) then return false end
    end
  end
  return true
end

-- The limits L written back as the table parse reads (a queue policy's
-- ctx:limits(), a message): sets by their keys, "unlimited" kept.
function M.to_table(L)
  if not L then return {} end
  local function out(set)
    local t = {}
    for amount, v in pairs(set or {}) do
      t[M.NAMES[amount]] = v == UNLIMITED and "unlimited" or v
    end
    return t
  end
  local t = out(L.all)
  if L.accounting then t["flux-accounting"] = L.accounting end
  if L.user then t.user = out(L.user) end
  if L.bank then t.bank = out(L.bank) end
  for _, k in ipairs{"users", "banks", "queues"} do
    if L[k] and next(L[k]) then
      t[k] = {}
      for name, set in pairs(L[k]) do t[k][tostring(name)] = out(set) end
    end
  end
  return t
end

-- ---- what a job holds and asks -----------------------------------------------------

-- The least counts a jobspec's request tree asks, by type ({node =,
-- core =, gpu =}), kept by request.
local least_cache = setmetatable({}, {__mode = "k"})

local function count_min(c)
  if math.type(c) == "integer" then return c end
  if type(c) == "table" then return math.tointeger(c.min) or 1 end
  if type(c) == "string" then
    local n = 0
    for a, b in c:gmatch("(%d+)%-?(%d*)") do
      n = n + (b ~= "" and tonumber(b) - tonumber(a) + 1 or 1)
    end
    return n
  end
  return 1
end

-- (t.exact: the types whose count no range leaves open)
local function least_of(js)
  local t = least_cache[js]
  if t then return t end
  t = {exact = {jobs = true}}
  local open = {}
  local function walk(list, mult, ranged)
    for _, r in ipairs(list or {}) do
      local n = mult * count_min(r.count)
      local rr = ranged or math.type(r.count) ~= "integer"
      if r.type == "node" or r.type == "core" or r.type == "gpu" then
        t[r.type] = (t[r.type] or 0) + n
        if rr then open[r.type] = true end
      end
      walk(r.with, n, rr)
    end
  end
  local ok, res = pcall(js.resources, js)
  if ok then walk(res, 1, false) end
  for _, k in ipairs{"node", "core", "gpu"} do
    if t[k] and not open[k] then t.exact[k] = true end
  end
  if not t.gpu then t.exact.gpu = true end
  if (t.core or t.gpu) and not t.node then t.node = 1 end
  least_cache[js] = t
  return t
end

-- What rec is known to ask before its match: {jobs = 1, node =, core =,
-- gpu =} at least (unit: the loop's processor type).
-- (exact: the amounts known exactly, not only at least)
function M.asks(rec, unit)
  if rec.jobspec then
    local l = rec.js and least_of(rec.js) or {}
    return {jobs = 1, node = l.node or 0, core = l.core or 0, gpu = l.gpu or 0,
      exact = l.exact or {jobs = true}}
  end
  local p = rec.procs or 0
  if unit == "node" then
    return {jobs = 1, node = p, core = 0, gpu = 0, exact = {jobs = true, node = true}}
  end
  return {jobs = 1, node = p > 0 and 1 or 0, core = p, gpu = 0,
    exact = {jobs = true, core = true, gpu = true}}
end

-- What a job holds, from the matcher's counts of it (m:info(id).counts).
function M.holds(counts)
  counts = counts or {}
  return {jobs = 1, node = counts.node or 0, core = counts.core or 0, gpu = counts.gpu or 0}
end

-- ---- counting -------------------------------------------------------------------------

-- The holders of rec under L: {kind, name} for the whole machine, its
-- user, its bank, its queue (those it has), and its flux-accounting
-- association ("uid/bank": its bank, else its user's default) when L has
-- that association.
local function holders(L, rec)
  local out = {{"all", ""}}
  if rec.user ~= nil then out[#out + 1] = {"user", rec.user} end
  if rec.bank ~= nil then out[#out + 1] = {"bank", rec.bank} end
  if rec.queue ~= nil then out[#out + 1] = {"queue", rec.queue} end
  local assoc = L and L.assoc
  if assoc and rec.user ~= nil then
    local bank = rec.bank or L.assoc_default[rec.user]
    local key = bank and tostring(rec.user) .. "/" .. bank
    if key and assoc[key] then out[#out + 1] = {"association", key} end
  end
  return out
end

-- The limit of amount for holder (kind, name), or nil.
local function limit_of(L, kind, name, amount)
  local v
  if kind == "all" then
    v = L.all[amount]
  elseif kind == "user" then
    local own = L.users[name]
    if own and own[amount] ~= nil then v = own[amount] else v = L.user and L.user[amount] end
  elseif kind == "bank" then
    local own = L.banks[name]
    if own and own[amount] ~= nil then v = own[amount] else v = L.bank and L.bank[amount] end
  elseif kind == "queue" then
    local own = L.queues[name]
    v = own and own[amount]
  else
    local own = L.assoc and L.assoc[name]
    v = own and own[amount]
  end
  if v == UNLIMITED then return nil end
  return v
end
M.limit_of = limit_of

-- A new count of what running jobs hold: {all = {...}, user = {name =
-- {...}}, bank =, queue =}, each {jobs =, node =, core =, gpu =}.
function M.count()
  return {all = {[""] = {jobs = 0, node = 0, core = 0, gpu = 0}}, user = {}, bank = {}, queue = {},
    association = {}}
end

-- Add (sign 1) or take away (sign -1) what rec holds (h) to the count
-- (of the holders under L).
function M.add(L, count, rec, h, sign)
  for _, k in ipairs(holders(L, rec)) do
    local t = count[k[1]]
    local c = t[k[2]]
    if not c then
      c = {jobs = 0, node = 0, core = 0, gpu = 0}
      t[k[2]] = c
    end
    for _, a in ipairs(M.AMOUNTS) do c[a] = c[a] + sign * (h[a] or 0) end
  end
end

-- What holder (kind, name) holds now: {jobs =, node =, ...}.
function M.held(count, kind, name)
  local c = count[kind] and count[kind][name]
  return c or {jobs = 0, node = 0, core = 0, gpu = 0}
end

-- The first limit that starting rec, asking h, would pass: {kind =,
-- name =, amount =, key =, limit =, held =, asks =}, or nil when it
-- passes none.
function M.check(L, count, rec, h)
  for _, k in ipairs(holders(L, rec)) do
    local kind, name = k[1], k[2]
    local held = M.held(count, kind, name)
    for _, a in ipairs(M.AMOUNTS) do
      local lim = limit_of(L, kind, name, a)
      if lim and held[a] + (h[a] or 0) > lim then
        return {kind = kind, name = name, amount = a, key = M.NAMES[a], limit = lim,
          held = held[a], asks = h[a] or 0, measured = h.exact == nil or h.exact[a] == true}
      end
    end
  end
  return nil
end

-- ---- limits over time ----------------------------------------------------------------
--
-- When may a waiting job start under its limits, given when its holders'
-- running jobs end and when their other waiting jobs are planned to
-- start?  Each limit that bears on it is a constraint (M.constraints):
-- the job, asking the rest, fits where its holder's other jobs hold at
-- most cap (the limit less what it asks) of the amount at every instant
-- of its run.  The loop answers one from a planner of what the holder's
-- jobs hold over time (c.at), or by a walk of intervals c.iv = {s1, e1,
-- a1, s2, e2, a2, ...} (the holder's jobs hold a_i over [s_i, e_i)).

-- The earliest start >= from of a run of d under one constraint c, by a
-- walk of its usage steps (as grove.sched.profile's counted walk), or nil
-- when there is none (the usage never falls to cap).
local function earliest_under(c, from, d)
  local delta, times = {}, {}
  local iv = c.iv
  for i = 1, #iv, 3 do
    local s, e, a = iv[i], iv[i + 1], iv[i + 2]
    if e > from and a ~= 0 then
      if s < from then s = from end
      if delta[s] == nil then times[#times + 1] = s; delta[s] = 0 end
      if delta[e] == nil then times[#times + 1] = e; delta[e] = 0 end
      delta[s], delta[e] = delta[s] + a, delta[e] - a
    end
  end
  table.sort(times)
  local used, u = {}, 0
  for i = 1, #times do
    u = u + delta[times[i]]
    used[i] = u
  end
  return step_fit(times, used, c.cap, from, d)
end

-- The earliest start >= from of a run of d under every constraint of
-- cons (each one's earliest taken in turn until all agree: each only
-- moves the start later), or nil when one has none.  A constraint with
-- at(from, d) answers by itself (a planner's query); else its intervals
-- iv are walked.
function M.earliest(cons, from, d)
  local s = from
  while true do
    local moved = false
    for _, c in ipairs(cons) do
      if c.cap < 0 then return nil end
      local t
      if c.at then t = c.at(s, d) else t = earliest_under(c, s, d) end
      if not t then return nil end
      if t > s then s, moved = t, true end
    end
    if not moved then return s end
  end
end
M.earliest_under = earliest_under

-- The holders of rec under L and the key each is indexed by, for the
-- loop's record of who holds what over time.
function M.holder_keys(L, rec)
  local out = {}
  for i, k in ipairs(holders(L, rec)) do out[i] = k[1] .. "\0" .. tostring(k[2]) end
  return out
end

-- The limits that bear on a job rec asking h (M.asks) under L: a list of
-- {key =, amount =, cap =}, one per holder of rec and amount its holder
-- has a limit on (key: the holder's, as holder_keys gives it; cap: the
-- limit less what rec asks, below 0 when rec alone asks more).
function M.constraints(L, rec, h)
  local cons = {}
  for _, k in ipairs(holders(L, rec)) do
    local kind, name = k[1], k[2]
    for _, a in ipairs(M.AMOUNTS) do
      local lim = limit_of(L, kind, name, a)
      if lim then
        cons[#cons + 1] = {key = kind .. "\0" .. tostring(name), amount = a,
          cap = lim - (h[a] or 0)}
      end
    end
  end
  return cons
end

local UNIT = {jobs = "running job", node = "node", core = "core", gpu = "GPU"}

local function amount_text(a, n)
  return fmt("%d %s%s", n, UNIT[a], n == 1 and "" or "s")
end

-- A hold (check's answer) as text: "held by user 1001's limit
-- max-nodes=4: its running jobs hold 4 nodes, this job would add 1
-- node".
function M.text(hold)
  local who = hold.kind == "all" and "the instance's"
    or hold.kind == "association" and fmt("flux-accounting association %s's",
      tostring(hold.name))
    or fmt("%s %s's", hold.kind, tostring(hold.name))
  local jobs = hold.kind == "all" and "running jobs" or "its running jobs"
  if hold.amount == "jobs" then
    return fmt("held by %s limit %s=%d: %d of %s run", who, hold.key, hold.limit, hold.held,
      hold.kind == "all" and "the instance's jobs" or "its jobs")
  end
  if hold.asks > hold.limit then
    return fmt("held by %s limit %s=%d: this job alone asks %s%s: it cannot start while the "
      .. "limit stands", who, hold.key, hold.limit, hold.measured and "" or "at least ",
      amount_text(hold.amount, hold.asks))
  end
  return fmt("held by %s limit %s=%d: %s hold %s, this job would add %s%s", who, hold.key,
    hold.limit, jobs, amount_text(hold.amount, hold.held), hold.measured and "" or "at least ",
    amount_text(hold.amount, hold.asks))
end

return M
