-- grove.pretty: values as a person wants to read them at a prompt.
--
--   pretty.format(value [, opts])  a string: tables with sorted keys, one
--                                  line when they fit, else one entry a
--                                  line; cycles shown as <cycle>; strings
--                                  quoted; Grove objects by what they are
--   pretty.show(value [, opts])    the top-level view: format, except that
--                                  a graph gets a summary, a matcher its
--                                  jobs, a vertex its data, a job table (or
--                                  a list of them) a tree of its picks, and
--                                  a string with a newline is shown as is,
--                                  and an iterator over a Grove object
--                                  (g:vertices{...}, v:children()) is run
--                                  and its first 20 items listed (running
--                                  it uses it up)
--   pretty.job(job)                the tree of a job table (m:match, m:job)
--   pretty.graph(g)  pretty.matcher(m)  pretty.vertex(v)   the summaries
--   pretty.quote(s)                a string as a Lua literal
--   pretty.is_job(x)               whether x looks like a job table
--
-- opts: width (80: longest line a table is folded into), depth (6: deeper
-- tables show as {...}), items (100: entries shown per table), indent ("");
-- any other key raises.
--
-- Grove objects are recognised by their metatable's __name (grove.graph,
-- grove.vertex, grove.matcher, ...), so this module needs nothing from the
-- C module and never raises on a closed or dead handle: whatever a handle
-- cannot say is left out.
--
-- This module holds only formatting; it must not change or close what it
-- prints.
local check = require("grove.check")

local M = {}

local fmt = string.format
local concat = table.concat

local DEFAULTS = {width = 80, depth = 6, items = 100, indent = ""}

local KEYWORDS = {}
for w in ([[and break do else elseif end false for function goto if in
  local nil not or repeat return then true until while]]):gmatch("%a+") do
  KEYWORDS[w] = true
end
M.keywords = KEYWORDS

-- opts (nil, or a table of the keys of DEFAULTS) over the defaults;
-- anything else raises at the caller of fname (format or show), which
-- calls this itself.
local function options(opts, fname)
  local o = {}
  for k, v in pairs(DEFAULTS) do o[k] = v end
  if opts ~= nil then
    if type(opts) ~= "table" then
      error(fmt("bad argument #2 to '%s' (table expected, got %s)", fname, type(opts)), 3)
    end
    check.keys(opts, DEFAULTS, 2, fname, nil, 3)
    for k, v in pairs(opts) do o[k] = v end
  end
  return o
end

-- The __name of x's metatable, or nil.
local function class(x)
  local mt = getmetatable(x)
  if type(mt) == "table" then
    local name = rawget(mt, "__name")
    if type(name) == "string" then return name end
  end
  return nil
end
M.class = class

-- Call a method of a handle; nil when it fails (closed graph, dead vertex).
local function try(obj, method, ...)
  local ok, r, r2 = pcall(function(...) return obj[method](obj, ...) end, ...)
  if ok then return r, r2 end
  return nil
end

local function safe_tostring(x)
  local ok, s = pcall(tostring, x)
  if ok and type(s) == "string" then return s end
  return fmt("<%s>", type(x))
end

-- ---- scalars ----

local ESC = {["\\"] = "\\\\", ['"'] = '\\"', ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t",
  ["\a"] = "\\a", ["\b"] = "\\b", ["\f"] = "\\f", ["\v"] = "\\v"}

function M.quote(s)
  check.arg(s, "string", 1, "quote")
  local q = s:gsub('([%c\\"])(%d?)', function(c, digit)
    if ESC[c] then return ESC[c] .. digit end
    return fmt(digit == "" and "\\%d" or "\\%03d", c:byte()) .. digit
  end)
  return '"' .. q .. '"'
end

local function number(n)
  if n ~= n then return "0/0" end
  if n == math.huge then return "math.huge" end
  if n == -math.huge then return "-math.huge" end
  return tostring(n)
end

local function func(f)
  local info = debug.getinfo(f, "S")
  if info and info.what ~= "C" then
    return fmt("<function %s:%d>", info.short_src, info.linedefined)
  end
  return "<function builtin>"
end

-- ---- Grove objects, inline ----

local function vertex_path(v)
  return try(v, "path")
end

-- The one-line form of a userdata (and of tables with a __name).
local function object(x, name, full)
  if name == "grove.vertex" then
    local p = vertex_path(x)
    return p and fmt("<vertex %s>", p) or "<vertex (dead)>"
  end
  local s = safe_tostring(x)
  if #s > 60 and not full then s = s:sub(1, 57) .. "..." end
  if name and s:sub(1, #name) == name then return "<" .. s .. ">" end
  if name then return fmt("<%s %s>", (name:gsub("^grove%.", "")), s) end
  return "<" .. s .. ">"
end

function M.is_job(x)
  if type(x) ~= "table" or math.type(rawget(x, "id")) ~= "integer"
    or type(rawget(x, "state")) ~= "string" then
    return false
  end
  local picks = rawget(x, "picks")
  if type(picks) ~= "table" then return false end
  local first = rawget(picks, 1)
  return first == nil or (type(first) == "table" and class(rawget(first, "vertex"))
    == "grove.vertex")
end

local function job_line(j)
  local s = fmt("job %d %s, start %s, end %s", j.id, j.state, number(j.start or 0),
    j["end"] and number(j["end"]) or "forever")
  return s
end

-- ---- tables ----

local function is_ident(k)
  return type(k) == "string" and k:match("^[%a_][%w_]*$") and not KEYWORDS[k]
end

local TYPE_ORDER = {number = 1, string = 2, boolean = 3}

local function key_less(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then
    return (TYPE_ORDER[ta] or 4) < (TYPE_ORDER[tb] or 4)
      or ((TYPE_ORDER[ta] or 4) == (TYPE_ORDER[tb] or 4) and ta < tb)
  end
  if ta == "number" or ta == "string" then return a < b end
  if ta == "boolean" then return not a and b end
  return safe_tostring(a) < safe_tostring(b)
end

local format_value

local function format_table(t, o, level, seen)
  if seen[t] then return "<cycle>" end
  if M.is_job(t) then
    local n = #rawget(t, "picks")
    return fmt("<%s, %d pick%s>", job_line(t), n, n == 1 and "" or "s")
  end
  if next(t) == nil then return "{}" end
  if level >= o.depth then return "{...}" end
  seen[t] = true
  local items, n = {}, 0
  local packable = 0 -- the leading items short enough to share a line
  while rawget(t, n + 1) ~= nil do n = n + 1 end
  local inner = o.indent .. "  "
  local sub = {width = o.width, depth = o.depth, items = o.items, indent = inner}
  for i = 1, math.min(n, o.items) do
    items[#items + 1] = format_value(rawget(t, i), sub, level + 1, seen)
    if packable == i - 1 and #items[i] <= 20 and not items[i]:find("\n", 1, true) then
      packable = i
    end
  end
  local count = math.min(n, o.items)
  local keys = {}
  for k in next, t do
    if not (math.type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  table.sort(keys, key_less)
  for _, k in ipairs(keys) do
    if count >= o.items then break end
    count = count + 1
    local ks = is_ident(k) and k or "[" .. format_value(k, sub, level + 1, seen) .. "]"
    items[#items + 1] = ks .. " = " .. format_value(rawget(t, k), sub, level + 1, seen)
  end
  local more = n + #keys - count
  if more > 0 then items[#items + 1] = fmt("... (%d more)", more) end
  seen[t] = nil
  local one = "{ " .. concat(items, ", ") .. " }"
  if #one + #o.indent <= o.width and not one:find("\n", 1, true) then return one end
  local lines, line = {}, nil
  for i, item in ipairs(items) do
    if i <= packable and line and #inner + #line + #item + 2 <= o.width then
      line = line .. ", " .. item
    else
      if line then lines[#lines + 1] = line end
      line = item
    end
  end
  lines[#lines + 1] = line
  return "{\n" .. inner .. concat(lines, ",\n" .. inner) .. ",\n" .. o.indent .. "}"
end

format_value = function(v, o, level, seen)
  local t = type(v)
  if t == "string" then return M.quote(v) end
  if t == "number" then return number(v) end
  if t == "nil" or t == "boolean" then return tostring(v) end
  if t == "function" then return func(v) end
  local name = class(v)
  if t == "table" then
    if name and name:match("^grove%.") then return object(v, name) end
    return format_table(v, o, level, seen)
  end
  return object(v, name)
end

function M.format(v, opts)
  local o = options(opts, "format")
  return format_value(v, o, 0, {})
end

-- ---- jobs as trees ----

local function pick_label(p, root)
  local v = p.vertex
  local label = root and vertex_path(v) or try(v, "name") or "?"
  return fmt("%s[%s:%s]", label, number(p.amount or 0), p.exclusive and "x" or "s")
end

-- Picks of one kind: the same basename, amount and exclusivity.
local function same_kind(a, b)
  return try(a.vertex, "basename") == try(b.vertex, "basename") and a.amount == b.amount
    and a.exclusive == b.exclusive
end

-- "core[0-3,8] (5)[1:x]": the picks list[i..k], of one kind, by id ranges.
local function run_label(list, i, k)
  local ids = {}
  for x = i, k do ids[#ids + 1] = try(list[x].vertex, "id") or -1 end
  table.sort(ids)
  local parts, lo = {}, 1
  for x = 1, #ids do
    if x == #ids or ids[x + 1] ~= ids[x] + 1 then
      parts[#parts + 1] = lo == x and tostring(ids[lo]) or fmt("%d-%d", ids[lo], ids[x])
      lo = x + 1
    end
  end
  local p = list[i]
  return fmt("%s[%s] (%d)[%s:%s]", try(p.vertex, "basename") or "?", concat(parts, ","),
    k - i + 1, number(p.amount or 0), p.exclusive and "x" or "s")
end

function M.job(j)
  if not M.is_job(j) then
    error(fmt("bad argument #1 to 'job' (job table expected, got %s)", type(j)), 2)
  end
  local lines = {}
  local held, order = {}, {}
  local byvid, kids, roots = {}, {}, {}
  for _, p in ipairs(j.picks) do
    local vid = try(p.vertex, "vid")
    if vid then byvid[vid] = p end
    if p.exclusive then
      local ty = try(p.vertex, "type") or "?"
      if not held[ty] then order[#order + 1] = ty end
      held[ty] = (held[ty] or 0) + (p.amount or 0)
    end
  end
  for _, p in ipairs(j.picks) do
    local parent = try(p.vertex, "parent")
    local pvid = parent and try(parent, "vid")
    if pvid and byvid[pvid] then
      kids[pvid] = kids[pvid] or {}
      table.insert(kids[pvid], p)
    else
      roots[#roots + 1] = p
    end
  end
  local parts = {}
  for _, ty in ipairs(order) do parts[#parts + 1] = fmt("%s %s", ty, number(held[ty])) end
  local head = job_line(j)
  if #parts > 0 then head = head .. ", holds " .. concat(parts, ", ") end
  lines[1] = head
  local function leaf(p)
    local vid = try(p.vertex, "vid")
    return not (vid and kids[vid])
  end
  local function walk(p, depth)
    lines[#lines + 1] = ("  "):rep(depth) .. pick_label(p, depth == 0)
    local vid = try(p.vertex, "vid")
    local list = vid and kids[vid] or {}
    local i = 1
    while i <= #list do
      -- a run of leaf picks of one kind (cores, GPUs) is one line
      local c, k = list[i], i
      while k < #list and leaf(list[k + 1]) and leaf(c) and same_kind(list[k + 1], c) do
        k = k + 1
      end
      if k - i >= 2 then
        lines[#lines + 1] = ("  "):rep(depth + 1) .. run_label(list, i, k)
      else
        for x = i, k do walk(list[x], depth + 1) end
      end
      i = k + 1
    end
  end
  for _, p in ipairs(roots) do walk(p, 0) end
  return concat(lines, "\n")
end

-- ---- summaries ----

local COMMON_TYPES = {"cluster", "rack", "node", "socket", "core", "gpu", "memory", "storage"}
local SCAN_LIMIT = 100000

-- "type count, ..." for the types of graph g, or nil.
local function type_counts(g)
  local total = try(g, "count")
  if not total then return nil end
  local counts, names = {}, {}
  if total <= SCAN_LIMIT then
    local it = try(g, "vertices")
    if not it then return nil end
    for v in it do
      local ty = v:type()
      if not counts[ty] then names[#names + 1] = ty end
      counts[ty] = (counts[ty] or 0) + 1
    end
  else
    for _, ty in ipairs(COMMON_TYPES) do
      local n = try(g, "count", ty)
      if n and n > 0 then
        names[#names + 1] = ty
        counts[ty] = n
      end
    end
  end
  table.sort(names)
  for i, ty in ipairs(names) do names[i] = fmt("%s %d", ty, counts[ty]) end
  return concat(names, ", ")
end

-- The names of the first n elements of list (name(x), "?" when it gives
-- none), then how many more there are, joined with ", ".
local function first_few(list, n, name)
  local out = {}
  for i, x in ipairs(list) do
    if i > n then
      out[#out + 1] = fmt("... (%d more)", #list - n)
      break
    end
    out[#out + 1] = name(x) or "?"
  end
  return concat(out, ", ")
end

function M.graph(g)
  local head = safe_tostring(g)
  local n = try(g, "count")
  if not n then return head end
  local lines = {head}
  local subs = try(g, "subsystems")
  if type(subs) == "table" then
    local list = {}
    for _, s in pairs(subs) do list[#list + 1] = tostring(s) end
    table.sort(list)
    lines[#lines + 1] = "  subsystems: " .. concat(list, ", ")
  end
  local roots = try(g, "roots")
  if type(roots) == "table" and #roots > 0 then
    lines[#lines + 1] = "  roots: " .. first_few(roots, 5, vertex_path)
  end
  local types = type_counts(g)
  if types and types ~= "" then lines[#lines + 1] = "  types: " .. types end
  local now = try(g, "now")
  if now then lines[#lines + 1] = "  now: " .. number(now) end
  return concat(lines, "\n")
end

function M.matcher(m)
  local lines = {safe_tostring(m)}
  local jobs = try(m, "jobs")
  if type(jobs) == "table" then
    for i, j in ipairs(jobs) do
      if i > 20 then
        lines[#lines + 1] = fmt("  ... (%d more jobs)", #jobs - 20)
        break
      end
      local info = try(m, "info", j.id)
      local parts = {}
      if type(info) == "table" and type(info.counts) == "table" then
        local ts = {}
        for ty in pairs(info.counts) do ts[#ts + 1] = ty end
        table.sort(ts)
        for k, ty in ipairs(ts) do parts[k] = fmt("%s %s", ty, number(info.counts[ty])) end
      end
      lines[#lines + 1] = "  " .. job_line(j) .. (#parts > 0 and ": " .. concat(parts, ", ")
        or "")
    end
  end
  return concat(lines, "\n")
end

function M.vertex(v)
  local path = vertex_path(v)
  if not path then return "<vertex (dead)>" end
  local lines = {"vertex " .. path}
  local base = {}
  for _, f in ipairs({"type", "name", "id", "rank", "size", "unit", "status"}) do
    local x = try(v, f)
    if x ~= nil and x ~= "" then
      base[#base + 1] = f .. " " .. (type(x) == "number" and number(x) or tostring(x))
    end
  end
  lines[#lines + 1] = "  " .. concat(base, ", ")
  for _, f in ipairs({"properties", "tags"}) do
    local t = try(v, f)
    if type(t) == "table" and next(t) ~= nil then
      lines[#lines + 1] = "  " .. f .. ": " .. M.format(t)
    end
  end
  local kids = try(v, "children_list")
  if type(kids) == "table" and #kids > 0 then
    lines[#lines + 1] = "  children: " .. first_few(kids, 8, function(c) return try(c, "name") end)
  end
  local recs = try(v, "records")
  if type(recs) == "table" and #recs > 0 then
    for _, r in ipairs(recs) do
      lines[#lines + 1] = fmt("  job %s %s %s, start %s, end %s", tostring(r.job),
        tostring(r.kind), number(r.amount or 0), number(r.start or 0),
        r["end"] and number(r["end"]) or "forever")
    end
  end
  return concat(lines, "\n")
end

local function all_jobs(t)
  if type(t) ~= "table" or class(t) or rawget(t, 1) == nil then return false end
  for _, j in ipairs(t) do
    if not M.is_job(j) then return false end
  end
  for k in pairs(t) do
    if math.type(k) ~= "integer" then return false end
  end
  return true
end

-- The Grove object a C iterator walks (an upvalue of the function), or nil.
local function iterated(f)
  local info = debug.getinfo(f, "Su")
  if not info or info.what ~= "C" then return nil end
  for i = 1, info.nups do
    local _, x = debug.getupvalue(f, i)
    if type(x) == "table" then x = rawget(x, 1) end -- a snapshot of handles
    local name = class(x)
    if type(x) == "userdata" and name and name:match("^grove%.") then return name end
  end
  return nil
end

local ITEMS_SHOWN = 20

-- The first items an iterator gives, one a line.
local function list_iterator(f, over)
  local lines = {fmt("<iterator over a %s>", over)}
  for i = 1, ITEMS_SHOWN + 1 do
    local ok, x = pcall(f)
    if not ok or x == nil then
      if i == 1 then lines[#lines + 1] = "  (nothing)" end
      return concat(lines, "\n")
    end
    if i > ITEMS_SHOWN then
      lines[#lines + 1] = "  ... (more: run it in a for loop)"
      break
    end
    lines[#lines + 1] = "  " .. M.format(x)
  end
  return concat(lines, "\n")
end

function M.show(v, opts)
  options(opts, "show")
  local name = class(v)
  if type(v) == "function" then
    local over = iterated(v)
    if over then return list_iterator(v, over) end
  end
  if type(v) == "string" and v:find("\n", 1, true) then return v end
  if name == "grove.graph" then return M.graph(v) end
  if name == "grove.matcher" then return M.matcher(v) end
  if name == "grove.vertex" then return M.vertex(v) end
  if M.is_job(v) then return M.job(v) end
  if type(v) == "userdata" and name then return object(v, name, true) end
  if all_jobs(v) then
    local parts = {}
    for i, j in ipairs(v) do parts[i] = M.job(j) end
    return concat(parts, "\n")
  end
  return M.format(v, opts)
end

return M
