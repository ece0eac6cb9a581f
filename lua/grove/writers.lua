-- grove.writers: how `grove query` prints a set of vertices (a match, the
-- result of a find).
--
-- A selection is a table keyed by vertex id: {v = vertex, amount = units,
-- x = exclusive}.  Selections are closed under ancestors (a match's picks
-- include every ancestor up to the root), so they form trees; a vertex whose
-- parent is not selected starts a tree of its own.
--
--   writers.order(sel [, pre [, prefer [, subsystem]]])
--                             the entries in post-order (pre: pre-order;
--                             children in graph order, trees in vertex id
--                             order), each with .depth (its depth as
--                             printed) and .home (the vertex id it is
--                             printed below, nil for a root); prefer: see
--                             the function; subsystem: the tree the
--                             selection is printed along (default
--                             containment; the matcher's dominant one)
--   writers.write(fmt, sel, ctx)
--                             the text for format fmt ("simple",
--                             "pretty_simple", "jgf", "rlite", "rv1",
--                             "rv1_nosched"); ctx = {graph =, start =,
--                             ["end"] =, agfilter = function(v) -> table
--                             or nil (JGF: extra "agfilter" metadata),
--                             prefer, subsystem = as for order};
--                             "" for an empty selection
--   writers.json(value)       compact JSON of a Lua value (keys sorted)
--   writers.formats           the format names
--
-- The tree formats print one line per vertex: `simple` deepest first, as
--   <6 spaces><3 dashes per level, from 1 at the root>name[units:x|s]
-- and `pretty_simple` root first, spelling out exclusive/shared.  `jgf`
-- writes the selection as a JSON graph: nodes in post-order (id, type,
-- basename when it differs from the type, id, rank, exclusive when held
-- exclusively, size when more than one unit, properties, paths), and an
-- edge from each node's parent, in the same order.  The R formats go
-- through grove.core's R writer.
--
-- This module holds only the output formats; it must not read commands or
-- change the graph.
local core = require "grove.core"

local M = {}

M.formats = {"simple", "pretty_simple", "jgf", "rlite", "rv1", "rv1_nosched"}

-- ---- JSON --------------------------------------------------------------

local escapes = {['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f",
  ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t"}

local function jstring(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return escapes[c] or ("\\u%04x"):format(c:byte())
  end) .. '"'
end

local function is_array(t)
  local n = #t
  if n == 0 then return next(t) == nil end
  for k in pairs(t) do
    if math.type(k) ~= "integer" or k < 1 or k > n then return false end
  end
  return true
end

local function encode(v, out)
  local t = type(v)
  if t == "string" then
    out[#out + 1] = jstring(v)
  elseif t == "number" then
    out[#out + 1] = math.type(v) == "integer" and tostring(v) or ("%.17g"):format(v)
  elseif t == "boolean" then
    out[#out + 1] = tostring(v)
  elseif t == "table" then
    if is_array(v) then
      out[#out + 1] = "["
      for i, x in ipairs(v) do
        if i > 1 then out[#out + 1] = ", " end
        encode(x, out)
      end
      out[#out + 1] = "]"
    else
      local keys = {}
      for k in pairs(v) do keys[#keys + 1] = tostring(k) end
      table.sort(keys)
      out[#out + 1] = "{"
      for i, k in ipairs(keys) do
        if i > 1 then out[#out + 1] = ", " end
        out[#out + 1] = jstring(k) .. ": "
        encode(v[k], out)
      end
      out[#out + 1] = "}"
    end
  else
    out[#out + 1] = "null"
  end
end

function M.json(v)
  local out = {}
  encode(v, out)
  return table.concat(out)
end

-- ---- order ---------------------------------------------------------------

function M.order(sel, pre, prefer, subsystem)
  -- Where each entry is printed: below a selected parent.  A vertex may
  -- have several (a second containment link); it goes below the one whose
  -- type the request names as its parent's (prefer: type -> {type = true}),
  -- else below its tree parent.
  local parents = {}
  for vid, e in pairs(sel) do
    for c in e.v:children(subsystem) do
      local cid = c:vid()
      if sel[cid] then
        local l = parents[cid]
        if not l then
          l = {}
          parents[cid] = l
        end
        l[#l + 1] = vid
      end
    end
  end
  for cid, l in pairs(parents) do
    local e, home = sel[cid], l[1]
    if #l > 1 then
      local want = prefer and prefer[e.v:type()]
      local tree = e.v:parent(subsystem)
      tree = tree and tree:vid()
      home = nil
      for _, pv in ipairs(l) do
        if want and want[sel[pv].v:type()] then home = home or pv end
      end
      for _, pv in ipairs(l) do
        if pv == tree then home = home or pv end
      end
      home = home or l[1]
    end
    e.home = home
  end
  local roots = {}
  for vid, e in pairs(sel) do
    if not parents[vid] then
      e.home = nil
      roots[#roots + 1] = vid
    end
  end
  table.sort(roots)
  local out = {}
  local function visit(e, vid, depth)
    e.depth = depth
    if pre then out[#out + 1] = e end
    for c in e.v:children(subsystem) do
      local cid = c:vid()
      local ce = sel[cid]
      if ce and ce.home == vid then visit(ce, cid, depth + 1) end
    end
    if not pre then out[#out + 1] = e end
  end
  for _, vid in ipairs(roots) do
    local e = sel[vid]
    visit(e, vid, e.v:depth(subsystem))
  end
  return out
end

-- ---- formats ---------------------------------------------------------------

local function simple(list)
  local lines = {}
  for i, e in ipairs(list) do
    lines[i] = ("      %s%s[%d:%s]\n"):format(("---"):rep(e.depth + 1), e.v:name(), e.amount,
      e.x and "x" or "s")
  end
  return table.concat(lines)
end

local function pretty_simple(list)
  local lines = {}
  for _, e in ipairs(list) do
    lines[#lines + 1] = ("      %s%s[%d:%s]\n"):format(("---"):rep(e.depth + 1), e.v:name(),
      e.amount, e.x and "exclusive" or "shared")
  end
  return table.concat(lines)
end

local function jgf(list, ctx)
  local nodes, edges = {}, {}
  for _, e in ipairs(list) do
    local v = e.v
    local md = {'"type": ' .. jstring(v:type())}
    if v:basename() ~= v:type() then md[#md + 1] = '"basename": ' .. jstring(v:basename()) end
    md[#md + 1] = '"id": ' .. (v:id() or -1)
    md[#md + 1] = '"rank": ' .. (v:rank() or -1)
    if e.x then md[#md + 1] = '"exclusive": true' end
    if e.amount ~= 1 then md[#md + 1] = '"size": ' .. e.amount end
    local props = v:properties()
    if next(props) then md[#md + 1] = '"properties": ' .. M.json(props) end
    md[#md + 1] = '"paths": {"containment": ' .. jstring(v:path()) .. '}'
    if ctx.agfilter then
      local ag = ctx.agfilter(v)
      if ag then md[#md + 1] = '"agfilter": ' .. M.json(ag) end
    end
    nodes[#nodes + 1] = ('{"id": "%d", "metadata": {%s}}'):format(v:vid(), table.concat(md, ", "))
    if e.home then
      edges[#edges + 1] = ('{"source": "%d", "target": "%d"}'):format(e.home, v:vid())
    end
  end
  return ('{"graph": {"nodes": [%s], "edges": [%s]}}\n'):format(table.concat(nodes, ", "),
    table.concat(edges, ", "))
end

local function rv1(list, ctx, fmt)
  local vs = {}
  for i, e in ipairs(list) do vs[i] = e.v end
  local R, msg = core.rv1_from_vertices(ctx.graph, vs, {start = ctx.start, ["end"] = ctx["end"],
    graph = fmt == "rv1"})
  if not R then return nil, msg end
  if fmt == "rlite" then
    local doc = R:to_table()
    local entries = {}
    for i, ent in ipairs(doc.execution and doc.execution.R_lite or {}) do
      local keys = {}
      for k in pairs(ent.children or {}) do keys[#keys + 1] = k end
      table.sort(keys, function(a, b)
        local ra = a == "core" and 1 or a == "gpu" and 2 or 3
        local rb = b == "core" and 1 or b == "gpu" and 2 or 3
        if ra ~= rb then return ra < rb end
        return a < b
      end)
      for j, k in ipairs(keys) do keys[j] = jstring(k) .. ": " .. jstring(ent.children[k]) end
      entries[i] = ('{"rank": %s, "children": {%s}}'):format(jstring(ent.rank),
        table.concat(keys, ", "))
    end
    return "[" .. table.concat(entries, ", ") .. "]\n"
  end
  return R:encode{graph = fmt == "rv1"} .. "\n"
end

-- The text of selection sel in format fmt, or nil, message.
function M.write(fmt, sel, ctx)
  ctx = ctx or {}
  local list = M.order(sel, fmt == "pretty_simple", ctx.prefer, ctx.subsystem)
  ctx.sel = sel
  if fmt == "simple" then return simple(list) end
  if fmt == "pretty_simple" then return pretty_simple(list) end
  if fmt == "jgf" then return #list > 0 and jgf(list, ctx) or "" end
  if fmt == "rlite" or fmt == "rv1" or fmt == "rv1_nosched" then
    if #list == 0 then return "" end
    return rv1(list, ctx, fmt)
  end
  return nil, ("unknown format '%s'"):format(tostring(fmt))
end

return M
