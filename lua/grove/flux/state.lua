-- grove.flux.state: what the operator set with `flux grove` that
-- outlives the module: reservations (`reserve`, `unreserve`), the
-- properties set and removed (`set-property`, `remove-property`) and the
-- status marks of vertices without a broker rank (`set-status`).  Kept in
-- the KVS, where flux-core keeps what outlives a module or the instance
-- (the key KEY), and put back when the module loads again, checked
-- against the graph it then has.
--
-- The loop writes the whole state after each change (a "persist" action
-- the module carries out as a KVS commit before the command's answer
-- goes out): a few reservations and the properties an operator set,
-- kilobytes.  At load, after the hello (running jobs are back) and
-- before ready, the module hands what the KVS holds to restore(): each
-- property and mark goes back on its vertices, each reservation is made
-- again and its holds laid around what runs on its nodes.  What no longer
-- fits the graph is dropped and said in the log, never silently: a
-- vertex no longer there, a node now of another name, a reservation on
-- one, a reservation whose window ended meanwhile, or whose queue the
-- configuration no longer has.
--
-- Nodes are kept by rank and host name (the ranks as an idset, the
-- names as a hostlist in rank order): a node is the same when the rank
-- is there with the same name.  Other vertices (a rabbit's ssds) are
-- kept by their containment path.
--
-- The document: {version = 1, reservations = {{name, ranks, hosts,
-- start, end (seconds), user, user_name, bank, queue}, ...}, properties =
-- {{key, value (nil: removed), ranks, hosts, paths}, ...}, status =
-- {{path, status}, ...}}.
local core = require("grove.core")
local sched = require("grove.sched")
local base = require("grove.flux.base")
local names = require("grove.flux.names")

local M = {}

local fmt = string.format

-- The KVS key of the state.
M.KEY = "sched-grove.state"

M.VERSION = 1

-- ---- recording what the operator sets -----------------------------------------------

local function book(self)
  local b = self.kept
  if not b then
    b = {props = {}, marks = {}}
    self.kept = b
  end
  return b
end

-- The operator set (value a string) or removed (value false) property key
-- on the vertices vs.
function M.property(self, vs, key, value)
  local props = book(self).props
  local per = props[key]
  if not per then
    per = {}
    props[key] = per
  end
  for _, v in ipairs(vs) do per[v:vid()] = value end
end

-- The operator marked the vertices vs (without a rank) status.
function M.status(self, vs, status)
  local marks = book(self).marks
  for _, v in ipairs(vs) do marks[v:vid()] = status end
end

-- The node vertices of vs as {ranks = idset text, hosts = hostlist in rank
-- order}, and the other vertices' paths.
local function where_of(g, vids)
  local nodes, paths = {}, {}
  for _, vid in ipairs(vids) do
    local v = g:vertex(vid)
    if v then
      local r = v:rank()
      if v:type() == "node" and r and r >= 0 then
        nodes[#nodes + 1] = v
      else
        paths[#paths + 1] = v:path()
      end
    end
  end
  table.sort(nodes, function(a, b) return a:rank() < b:rank() end)
  table.sort(paths)
  local ids = core.idset()
  for _, v in ipairs(nodes) do ids:set(v:rank()) end
  return #nodes > 0 and {ranks = ids:encode(), hosts = names.hostlist_of(nodes)} or nil,
    #paths > 0 and paths or nil
end

-- The state as a table (the document above).
function M.snapshot(self)
  local loop = self.loop
  local g = loop.g
  local doc = {version = M.VERSION, reservations = {}, properties = {}, status = {}}
  for _, r in pairs(self.resv or {}) do
    doc.reservations[#doc.reservations + 1] = {name = r.name, ranks = r.ranks, hosts = r.hosts,
      start = sched.secs(loop, r.start), ["end"] = sched.secs(loop, r["end"]), user = r.user,
      user_name = r.user_name, bank = r.bank, queue = r.queue}
  end
  table.sort(doc.reservations, function(a, b) return a.name < b.name end)
  local b = self.kept or {props = {}, marks = {}}
  local keys = {}
  for k in pairs(b.props) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, key in ipairs(keys) do
    -- the vertices of each value (false: removed), together
    local by = {}
    for vid, value in pairs(b.props[key]) do
      local k = value == false and "\0" or value
      by[k] = by[k] or {}
      table.insert(by[k], vid)
    end
    local values = {}
    for k in pairs(by) do values[#values + 1] = k end
    table.sort(values)
    for _, k in ipairs(values) do
      table.sort(by[k])
      local nodes, paths = where_of(g, by[k])
      if nodes or paths then
        doc.properties[#doc.properties + 1] = {key = key, value = k ~= "\0" and k or nil,
          ranks = nodes and nodes.ranks, hosts = nodes and nodes.hosts, paths = paths}
      end
    end
  end
  local marks = {}
  for vid, st in pairs(b.marks) do
    local v = g:vertex(vid)
    if v then marks[#marks + 1] = {path = v:path(), status = st} end
  end
  table.sort(marks, function(x, y) return x.path < y.path end)
  doc.status = marks
  return doc
end

-- Write the state: a persist action (the module commits it to the KVS
-- before the answer to the command that changed it goes out).
function M.save(self)
  base.emit(self, {op = "persist", key = M.KEY, json = core.json_encode(M.snapshot(self), 0)})
end

-- ---- putting it back ---------------------------------------------------------------

local function warn(self, text)
  self.restore_dropped = true
  base.emit(self, {op = "log", level = "warning", message = "restore: " .. text})
end

-- The nodes a saved {ranks, hosts} names that the graph has as they
-- were (the same rank, the same name), and the text of those it does not
-- (nil when every one is there).
local function nodes_of(self, ranks, hosts)
  local g = self.loop.g
  local ids = ranks and core.idset(ranks)
  local hl = hosts and core.hostlist(hosts)
  if not ids or not hl or ids:count() ~= hl:count() then
    return {}, fmt("ranks %s and hosts %s do not match", tostring(ranks), tostring(hosts))
  end
  local out, gone = {}, {}
  local i = 0
  for r in ids:ids() do
    i = i + 1
    local want = hl:nth(i)
    local found
    for v in g:vertices{type = "node", rank = r} do found = v end
    if not found then
      gone[#gone + 1] = fmt("rank %d (%s) is no longer there", r, want)
    elseif found:name() ~= want then
      gone[#gone + 1] = fmt("rank %d is %s now, not %s", r, found:name(), want)
    else
      out[#out + 1] = found
    end
  end
  return out, #gone > 0 and table.concat(gone, ", ") or nil
end

local function paths_of(self, paths, what)
  local g = self.loop.g
  local out = {}
  for _, p in ipairs(type(paths) == "table" and paths or {}) do
    local v = type(p) == "string" and g:vertex(p)
    if v then
      out[#out + 1] = v
    else
      warn(self, fmt("%s: no vertex at path '%s' any more: dropped", what, tostring(p)))
    end
  end
  return out
end

-- Put back each entry of a saved list (none when it is not a table) that
-- readable(e) accepts, by put(e), which returns how many vertices it set;
-- any other entry is dropped with a log line (what: "a property entry").
-- The sum of what put returned.
local function restore_each(self, list, what, readable, put)
  local n = 0
  for _, e in ipairs(type(list) == "table" and list or {}) do
    if type(e) == "table" and readable(e) then
      n = n + put(e)
    else
      warn(self, what .. " that cannot be read: dropped")
    end
  end
  return n
end

local function restore_properties(self, list)
  return restore_each(self, list, "a property entry", function(e)
    return type(e.key) == "string" and e.key ~= ""
      and (e.value == nil or type(e.value) == "string")
  end, function(e)
    local key = e.key
    local what = e.value ~= nil and fmt("property %s=%s", key, e.value)
      or fmt("property %s removed", key)
    local vs = {}
    if e.ranks or e.hosts then
      local gone
      vs, gone = nodes_of(self, e.ranks, e.hosts)
      if gone then warn(self, fmt("%s: %s: left out", what, gone)) end
    end
    for _, v in ipairs(paths_of(self, e.paths, what)) do vs[#vs + 1] = v end
    for _, v in ipairs(vs) do
      if e.value ~= nil then v:set_property(key, e.value) else v:remove_property(key) end
    end
    M.property(self, vs, key, e.value == nil and false or e.value)
    return #vs
  end)
end

local function restore_marks(self, list)
  return restore_each(self, list, "a status mark", function(e)
    return e.status == "up" or e.status == "down"
  end, function(e)
    local st, n = e.status, 0
    for _, v in ipairs(paths_of(self, {e.path}, "status " .. st)) do
      local r = v:rank()
      if r and r >= 0 then
        warn(self, fmt("status %s: %s has broker rank %d now: dropped", st, v:path(), r))
      else
        v:set_status(st)
        M.status(self, {v}, st)
        n = n + 1
      end
    end
    return n
  end)
end

-- Put back the state a saved document (JSON text, or its table) holds:
-- what it puts back, and a log line for each thing it drops.  The state
-- is written again when something was dropped.
function M.restore(self, doc)
  if type(doc) == "string" then
    local t, err = core.json_decode(doc, M.KEY)
    if type(t) ~= "table" then
      warn(self, fmt("%s cannot be read (%s): nothing put back", M.KEY, tostring(err)))
      return
    end
    doc = t
  end
  if type(doc) ~= "table" or doc.version ~= M.VERSION then
    warn(self, fmt("%s: version %s, not %d: nothing put back", M.KEY,
      tostring(type(doc) == "table" and doc.version), M.VERSION))
    return
  end
  local reserve = require("grove.flux.reserve")
  self.restore_dropped = false
  local np = restore_properties(self, doc.properties)
  local nm = restore_marks(self, doc.status)
  local kept = 0
  for _, saved in ipairs(type(doc.reservations) == "table" and doc.reservations or {}) do
    local r, why = reserve.restore(self, saved, nodes_of)
    if r then
      kept = kept + 1
    else
      warn(self, why)
    end
  end
  local function n(k, one, many) return fmt("%d %s", k, k == 1 and one or many) end
  base.emit(self, {op = "log", level = "info", message = fmt("restore: %s, %s, %s put back",
    n(kept, "reservation", "reservations"), n(np, "property setting", "property settings"),
    n(nm, "status mark", "status marks"))})
  if self.restore_dropped then M.save(self) end
  sched.drop_reservations(self.loop)
  self.stale = true
end

return M
