-- grove.query_find: the find command of a query session: its expression
-- language and the predicates it compiles to.
--
--   find EXPR   terms status=, sched-now=allocated|free,
--               sched-future=reserved|free, property=KEY[=VALUE], names=A,B,
--               jobid-alloc=, jobid-span=, jobid-tag=, agfilter=t, joined by
--               and, or and parentheses (juxtaposition is and)
--
-- The functions take the session (grove.query) first and read its graph
-- and jobs; they change nothing but the session's cache of used units.
--
-- This file holds the expression language and its evaluation only: no
-- other command, and no output format (grove.query_select prints).
--
-- This module holds only the find command; it must not format output (the
-- session's writer does) nor keep state outside the session.
local selection = require("grove.query_select")
local suggest = require("grove.suggest")
local writers = require("grove.writers")

local M = {}

-- Tokens of a find expression: parentheses, and, or, KEY=VALUE terms.
local function tokenize(s)
  local toks = {}
  for word in s:gsub("[()]", " %0 "):gmatch("%S+") do toks[#toks + 1] = word end
  return toks
end

local find_keys = {status = true, ["sched-now"] = true, ["sched-future"] = true,
  property = true, names = true, ["jobid-alloc"] = true, ["jobid-span"] = true,
  ["jobid-tag"] = true, agfilter = true}

-- Parse tokens into a tree: {op = "and"|"or", a, b} or {key =, value =}.
-- nil, message on a syntax error.
local function parse_expr(toks)
  local pos = 1
  local parse_or
  local function primary()
    local t = toks[pos]
    if t == nil then return nil, "expression ends early" end
    if t == "(" then
      pos = pos + 1
      local e, msg = parse_or()
      if not e then return nil, msg end
      if toks[pos] ~= ")" then return nil, "missing )" end
      pos = pos + 1
      return e
    end
    local k, v = t:match("^([%w_-]+)=(.+)$")
    if not k or not find_keys[k] then
      local keys = {}
      for key in pairs(find_keys) do keys[#keys + 1] = key end
      table.sort(keys)
      return nil, ("bad term '%s' (a term is KEY=VALUE, KEY one of %s; terms combine with "
        .. "and, or and parentheses)"):format(t, table.concat(keys, ", "))
    end
    pos = pos + 1
    return {key = k, value = v}
  end
  -- operand (op operand)*, folded to the left; more() says whether
  -- another operand follows and consumes the word joining it.
  local function chain(op, operand, more)
    local a, msg = operand()
    if not a then return nil, msg end
    while more() do
      local b, msg2 = operand()
      if not b then return nil, msg2 end
      a = {op = op, a, b}
    end
    return a
  end
  local function parse_and()
    return chain("and", primary, function()
      local t = toks[pos]
      if not t or t == ")" or t == "or" then return false end
      if t == "and" then pos = pos + 1 end -- juxtaposed terms are "and" too
      return true
    end)
  end
  function parse_or()
    return chain("or", parse_and, function()
      if toks[pos] ~= "or" then return false end
      pos = pos + 1
      return true
    end)
  end
  local e, msg = parse_or()
  if not e then return nil, msg end
  if toks[pos] then return nil, ("unexpected '%s'"):format(toks[pos]) end
  return e
end

-- Vertex ids held by jobs in state, or by job id: what they hold units of,
-- and everything below what they hold exclusively (all: every entry,
-- shared ancestors too; only: no more than the entries).
local function held_set(s, state, id, all, only)
  local set = {}
  local function below(v)
    for c in v:children() do
      local cid = c:vid()
      if not set[cid] then
        set[cid] = true
        below(c)
      end
    end
  end
  for _, j in ipairs(s.matcher:jobs(false)) do
    local jid = j.id
    if (not state or j.state == state) and (not id or jid == id) then
      local entries = s:entries(jid)
      for _, e in ipairs(entries) do
        if all or e.alloc then set[e.vid] = true end
      end
      for _, e in ipairs(entries) do
        if e.x and not only then below(s.graph:vertex(e.vid)) end
      end
    end
  end
  return set
end

-- The find keys on what jobs hold, and the kind of holding each asks about.
local SCHED = {["sched-now"] = "allocated", ["sched-future"] = "reserved"}

-- The statuses a vertex may have (a term naming another selects nothing:
-- it is a mistake, said as one).
local STATUSES = {"up", "down", "drained", "excluded", "degraded", "failing", "unknown", "null"}

-- A predicate function(v) for a find term, or nil, message.
local function term_pred(s, t)
  local k, val = t.key, t.value
  if k == "status" then
    local known = false
    for _, st in ipairs(STATUSES) do known = known or st == val end
    if not known then
      return nil, ("status=%s: no such status%s; a vertex's status is one of %s"):format(val,
        suggest.hint(val, STATUSES), table.concat(STATUSES, ", "))
    end
    return function(v) return v:status() == val end
  elseif SCHED[k] then
    local kind = SCHED[k]
    if val ~= kind and val ~= "free" then
      return nil, ("%s takes %s or free"):format(k, kind)
    end
    local held = held_set(s, kind)
    if val == kind then return function(v) return held[v:vid()] ~= nil end end
    return function(v) return held[v:vid()] == nil end
  elseif k == "property" then
    local key, want = val:match("^([^=]*)=(.*)$")
    key = key or val
    if key == "" then
      return nil, ("property=%s: a property name expected before '=' (property=KEY or "
        .. "property=KEY=VALUE)"):format(val)
    end
    return function(v)
      local p = v:property(key)
      return p ~= nil and (want == nil or p == want)
    end
  elseif k == "agfilter" then
    if val ~= "t" and val ~= "true" then return nil, "agfilter takes t" end
    return function(v) return M.agfilter(s, v) ~= nil end
  elseif k == "names" then
    local names = {}
    for n in val:gmatch("[^,]+") do names[n] = true end
    return function(v) return names[v:name()] == true end
  else
    local id = selection.jobid(val)
    if not id then return nil, ("%s takes a job id"):format(k) end
    -- As the reference engine keeps them: jobid-tag, every vertex the job
    -- selected and its shared ancestors (not what lies below an exclusive
    -- selection); jobid-span, those of them that keep a pruning filter
    -- (agfilter), where the job's span is counted.
    local tag, span = k == "jobid-tag", k == "jobid-span"
    local held = held_set(s, nil, id, tag or span, tag or span)
    if span then
      return function(v) return held[v:vid()] ~= nil and M.agfilter(s, v) ~= nil end
    end
    return function(v) return held[v:vid()] ~= nil end
  end
end

local function compile(s, e)
  if e.op then
    local a, msg = compile(s, e[1])
    if not a then return nil, msg end
    local b, msg2 = compile(s, e[2])
    if not b then return nil, msg2 end
    if e.op == "and" then return function(v) return a(v) and b(v) end end
    return function(v) return a(v) or b(v) end
  end
  return term_pred(s, e)
end

-- Units of each vertex that running jobs selected (vertex id -> units),
-- cached until the next command.
local function units_used(s)
  if not s.used_cache then
    local used = {}
    for _, j in ipairs(s.matcher:jobs(false)) do
      if j.state == "allocated" then
        for _, e in ipairs(s:entries(j.id)) do
          if e.alloc or e.x then used[e.vid] = (used[e.vid] or 0) + e.amount end
        end
      end
    end
    s.used_cache = used
  end
  return s.used_cache
end

-- Pruning filters as find shows them (agfilter=t): a vertex with children
-- keeps, for each low-level type LL of an aggregate spec HL:LL whose HL is
-- its type or ALL (LL other than its own type), the units of LL below it
-- that running jobs selected, and the total; the root also keeps core, gpu and memory.  The filter
-- table of v, or nil.
function M.agfilter(s, v)
  if not v:children()() then return nil end
  local types, seen = {}, {}
  for hl, ll in (s.graph:aggregates() or ""):gmatch("([^,:]+):([^,]+)") do
    if (hl == "ALL" or hl == v:type()) and ll ~= v:type() and not seen[ll] then
      seen[ll] = true
      types[#types + 1] = ll
    end
  end
  if not v:parent() then
    -- the root also keeps filters of the usual leaf types
    for _, ll in ipairs({"core", "gpu", "memory"}) do
      if not seen[ll] and ll ~= v:type() then
        seen[ll] = true
        types[#types + 1] = ll
      end
    end
  end
  if #types == 0 then return nil end
  local used, total, seen_v = {}, {}, {}
  for _, t in ipairs(types) do used[t], total[t] = 0, 0 end
  local function walk(u)
    for c in u:children() do
      local t = c:type()
      local cid = c:vid()
      if seen_v[cid] then goto next end
      seen_v[cid] = true
      if total[t] then
        total[t] = total[t] + c:size()
        used[t] = used[t] + (units_used(s)[cid] or 0)
      end
      walk(c)
      ::next::
    end
  end
  walk(v)
  local o = {}
  for _, t in ipairs(types) do o[t] = ("used:%d, total:%d"):format(used[t], total[t]) end
  return o
end

-- The tree of a find expression: {op = "and"|"or", a, b} or {key =,
-- value =}; or nil, message on a syntax error.
function M.parse(expr)
  return parse_expr(tokenize(expr))
end

-- The vertices for which the expression expr holds (toks: its tokens,
-- when already read), in vertex id order; or nil and the reason.
function M.select(s, expr, toks)
  local tree, msg = parse_expr(toks or tokenize(expr))
  local pred
  if tree then pred, msg = compile(s, tree) end
  if not pred then return nil, msg end
  local found = {}
  for v in s.graph:vertices() do
    if pred(v) then found[#found + 1] = v end
  end
  return found
end

-- The find command: the vertices for which the expression in line holds,
-- with their ancestors, in the session's format.
function M.run(s, line)
  local expr = line:match("^%s*%S+%s+(.-)%s*$") or ""
  if expr == "" then return s:malformed("find", "an expression expected") end
  local toks = tokenize(expr)
  local agfilter = false
  for _, t in ipairs(toks) do agfilter = agfilter or t:match("^agfilter=") ~= nil end
  local found, msg = M.select(s, expr, toks)
  if not found then return s:error("ERROR: invalid find expression: %s", msg) end
  local extra = agfilter and {} or nil
  if extra then
    -- the filters of the vertices printed: those found and their ancestors
    for _, v in ipairs(found) do
      local u = v
      while u and not extra[u:vid()] do
        local ag = M.agfilter(s, u)
        extra[u:vid()] = ag and writers.json(ag) or false
        u = u:parent()
      end
    end
  end
  selection.put_text(s, s.writer:vertices(s.format, found, extra, selection.out_file(s)))
  selection.banner(s, {("INFO: EXPRESSION=\"%s\""):format(expr)})
end

return M
