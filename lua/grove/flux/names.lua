-- grove.flux.names: what an operator's command names, read against the
-- module's graph: hosts (a hostlist), vertices (a containment path), and
-- times (a start or an end, a duration).  Every reader returns what it
-- read, or nil and a message that names the word and why, with the
-- closest known name when one is near (grove.suggest): `flux grove`
-- prints it as it is.
local core = require("grove.core")
local jobspec = require("grove.jobspec")
local suggest = require("grove.suggest")

local M = {}

local fmt = string.format

-- The host names of the graph's nodes, each once, in graph order.
local function host_names(g)
  local seen, names = {}, {}
  for v in g:vertices{type = "node"} do
    local n = v:name()
    if not seen[n] then
      seen[n] = true
      names[#names + 1] = n
    end
  end
  return names
end

-- The node vertices text names: an RFC 29 hostlist ("node[0-3]"), or
-- ranks (an RFC 22 idset, "0-3"), in its order, and their ranks as an
-- idset; or nil, message, code (EINVAL: neither; ENOENT: a host or rank
-- the graph does not have, with the closest host name).  Nodes are found
-- by name or rank, not by a look at the whole graph.  (Several brokers
-- of a test instance may share one host name: a name stands for all its
-- nodes, as flux-core's hosts_to_ranks reads it.)
function M.hosts(g, text)
  if type(text) ~= "string" or text == "" then
    return nil, "a hostlist or ranks expected", "EINVAL"
  end
  local out, ranks = {}, core.idset()
  -- the nodes of spec; false when there are none
  local function take(spec)
    local n = #out
    for v in g:vertices(spec) do
      out[#out + 1] = v
      local r = v:rank()
      if r and r >= 0 then ranks:set(r) end
    end
    return #out > n
  end
  if text:match("^%d[%d,%-]*$") then
    local ids, msg = core.idset(text)
    if not ids then return nil, tostring(msg), "EINVAL" end
    for r in ids:ids() do
      if not take{type = "node", rank = r} then return nil, fmt("no rank %d here", r), "ENOENT" end
    end
    return out, ranks
  end
  local hl, msg = core.hostlist(text)
  if not hl then return nil, tostring(msg), "EINVAL" end
  for h in hl:hosts() do
    if not take{type = "node", name = h} then
      return nil, fmt("unknown host '%s'%s", h, suggest.hint(h, host_names(g))), "ENOENT"
    end
  end
  return out, ranks
end

-- The vertices text names: a containment path ("/cluster0/node3/core1"),
-- or nodes by hostlist or ranks.  A list of vertices, or nil, message,
-- code.
function M.targets(g, text)
  if type(text) ~= "string" or text == "" then
    return nil, "a hostlist, ranks or a vertex path expected", "EINVAL"
  end
  if text:sub(1, 1) ~= "/" then return M.hosts(g, text) end
  local v = g:vertex(text)
  if v then return {v} end
  -- the closest path among the parent's children, or among the nodes'
  local parent = g:vertex(text:match("^(.*)/[^/]*$") or "")
  local near = {}
  if parent then
    for c in parent:children() do near[#near + 1] = c:path() end
  else
    for n in g:vertices{type = "node"} do near[#near + 1] = n:path() end
  end
  return nil, fmt("no vertex at path '%s'%s", text, suggest.hint(text, near)), "ENOENT"
end

-- The node vertices of ranks (an idset or its text), found by rank
-- without a look at the whole graph.
function M.nodes_of_ranks(g, ranks)
  local out = {}
  for r in core.idset(tostring(ranks)):ids() do
    for v in g:vertices{type = "node", rank = r} do out[#out + 1] = v end
  end
  return out
end

-- The vertices of vs and everything below them.
function M.subtree(vs)
  local out = {}
  local function add(v)
    out[#out + 1] = v
    for c in v:children() do add(c) end
  end
  for _, v in ipairs(vs) do add(v) end
  return out
end

-- The node vertices above (or at) the vertices vs, each once, by vertex
-- id.
function M.nodes_above(vs)
  local seen, out = {}, {}
  for _, v in ipairs(vs) do
    local u = v
    while u and u:type() ~= "node" do u = u:parent() end
    if u and not seen[u:vid()] then
      seen[u:vid()] = true
      out[#out + 1] = u
    end
  end
  table.sort(out, function(a, b) return a:vid() < b:vid() end)
  return out
end

-- The hostlist of a list of node vertices (compressed).
function M.hostlist_of(vs)
  local hl = core.hostlist()
  for _, v in ipairs(vs) do hl:append(v:name()) end
  return hl:encode()
end

-- ---- times -------------------------------------------------------------------------

-- Days since 1970-01-01 of a proleptic Gregorian date.
local function days_from_civil(y, m, d)
  y = m <= 2 and y - 1 or y
  local era = (y >= 0 and y or y - 399) // 400
  local yoe = y - era * 400
  local doy = (153 * (m + (m > 2 and -3 or 9)) + 2) // 5 + d - 1
  local doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
  return era * 146097 + doe - 719468
end

-- A time an operator wrote, in seconds since the epoch: "now", "+D" (D
-- from now: seconds, or a number with s, m, h, d), "@N" or N (seconds
-- since the epoch), "YYYY-MM-DD[THH:MM[:SS]]" or "HH:MM[:SS]" (today),
-- read in the operator's time zone: offset seconds east of UTC (the
-- client sends its own).  An integer, or nil and the reason.
function M.time(text, now, offset)
  offset = math.tointeger(offset) or 0
  if math.type(text) == "integer" then return text end
  if type(text) ~= "string" then return nil, "a time expected" end
  if text == "now" then return now end
  local rel = text:match("^%+(.+)$")
  if rel then
    local d, msg = jobspec.duration(rel)
    if not d then return nil, msg end
    return now + math.ceil(d)
  end
  local epoch = text:match("^@?(%d+)$")
  if epoch then return math.tointeger(tonumber(epoch)) end
  local y, mo, d, rest = text:match("^(%d%d%d%d)%-(%d%d)%-(%d%d)(.*)$")
  local day
  if y then
    y, mo, d = tonumber(y), tonumber(mo), tonumber(d)
    if mo < 1 or mo > 12 or d < 1 or d > 31 then
      return nil, fmt("invalid date '%s'", text)
    end
    day = days_from_civil(y, mo, d)
    if rest == "" then return day * 86400 - offset end
    rest = rest:match("^[T ](.*)$")
    if not rest then return nil, fmt("invalid time '%s' (YYYY-MM-DDTHH:MM expected)", text) end
  else
    rest = text
    day = (now + offset) // 86400
  end
  local hh, mm, ss = rest:match("^(%d%d?):(%d%d)$")
  if not hh then hh, mm, ss = rest:match("^(%d%d?):(%d%d):(%d%d)$") end
  if not hh then
    return nil, fmt("invalid time '%s' (now, +DURATION, @EPOCH, YYYY-MM-DD[THH:MM[:SS]] "
      .. "or HH:MM expected)", text)
  end
  hh, mm, ss = tonumber(hh), tonumber(mm), tonumber(ss or 0)
  if hh > 23 or mm > 59 or ss > 59 then return nil, fmt("invalid time '%s'", text) end
  return day * 86400 + hh * 3600 + mm * 60 + ss - offset
end

-- A time as the operator reads it: "YYYY-MM-DDTHH:MM:SS" in the time
-- zone offset seconds east of UTC ("Z" appended when offset is 0).  t is
-- in ticks of tps a second (default 1: seconds; a fraction of a second
-- is left out).
function M.show_time(t, offset, tps)
  offset = math.tointeger(offset) or 0
  if tps and tps ~= 1 then t = t / tps end
  local s = os.date("!%Y-%m-%dT%H:%M:%S", math.floor(t) + offset)
  if offset == 0 then s = s .. "Z" end
  return s
end

-- A span (ticks of tps a second, default 1: seconds) to the nearest
-- second as "1d2h", "3h", "10m", "42s".
function M.show_span(d, tps)
  if d >= math.maxinteger // 2 then return "for ever" end
  if tps and tps ~= 1 then d = d / tps end
  d = math.floor(d + 0.5)
  local parts = {}
  for _, u in ipairs({{86400, "d"}, {3600, "h"}, {60, "m"}, {1, "s"}}) do
    local n = d // u[1]
    if n > 0 then
      parts[#parts + 1] = n .. u[2]
      d = d - n * u[1]
    end
  end
  return #parts > 0 and table.concat(parts, "", 1, math.min(#parts, 2)) or "0s"
end

return M
