-- grove.graph_out: the whole resource graph as a file for graph tools, the
-- way `grove query -g FORMAT -o BASENAME` writes it at the end of a
-- session: Graphviz dot (BASENAME.dot) or GraphML (BASENAME.graphml).
--
--   local graph_out = require "grove.graph_out"
--   assert(graph_out.write(g, "graphml", "out"))   -- writes out.graphml
--
-- dot: one node per vertex labelled by its name, one edge per edge
-- labelled by its relation.  GraphML: per vertex its type, basename, name,
-- id, uniq_id (the vertex index), size, unit, paths ({subsystem=path,...}),
-- props ({key=value,...}) and member_of ({subsystem=subsystem,...}); per
-- edge member_of.  Vertices are numbered by their index in the graph.
--
-- This module holds these two writers only; reading graphs is the core's
-- and job output is grove.writers'.
--
-- This module must not hold the query session or any other output format
-- (R, JGF and the match formats are the C writers').
local M = {}

M.formats = {dot = "dot", graphml = "graphml"}

local function xml(s)
  return (tostring(s):gsub("[&<>\"]", {["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;",
    ['"'] = "&quot;"}))
end

local function sorted_pairs_text(t, fmt)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  for i, k in ipairs(keys) do keys[i] = fmt(k, t[k]) end
  return "{" .. table.concat(keys, ",") .. "}"
end

-- Every edge of the graph, once: the out-edges of every vertex.
local function each_edge(g, f)
  for v in g:vertices() do
    for _, e in ipairs(v:out_edges()) do f(e) end
  end
end

local function write_dot(g, out)
  out:write("digraph G {\n")
  for v in g:vertices() do
    out:write(("%d[label=\"%s\"];\n"):format(v:vid(), (v:name():gsub('["\\]', "\\%0"))))
  end
  each_edge(g, function(e)
    out:write(("%d->%d [label=\"%s\"];\n"):format(e:src():vid(), e:dst():vid(),
      (e:relation() or e:subsystem()):gsub('["\\]', "\\%0")))
  end)
  out:write("}\n")
end

local VKEYS = {{"paths", "string"}, {"props", "string"}, {"member_of", "string"},
  {"type", "string"}, {"basename", "string"}, {"name", "string"}, {"id", "long"},
  {"uniq_id", "long"}, {"size", "long"}, {"unit", "string"}}

local function vertex_paths(v)
  local paths, member = {}, {}
  for _, e in ipairs(v:in_edges()) do member[e:subsystem()] = true end
  for _, e in ipairs(v:out_edges()) do member[e:subsystem()] = true end
  for s in pairs(member) do
    local p = v:path(s)
    if p then paths[s] = p end
  end
  return paths, member
end

local function write_graphml(g, out)
  out:write('<?xml version="1.0" encoding="UTF-8"?>\n',
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n')
  for i, k in ipairs(VKEYS) do
    out:write(('  <key id="key%d" for="node" attr.name="%s" attr.type="%s" />\n'):format(
      i - 1, k[1], k[2]))
  end
  out:write(('  <key id="key%d" for="edge" attr.name="member_of" attr.type="string" />\n'):format(
    #VKEYS))
  out:write('  <graph id="G" edgedefault="directed">\n')
  for v in g:vertices() do
    local paths, member = vertex_paths(v)
    local vals = {
      sorted_pairs_text(paths, function(k, p) return k .. "=" .. p end),
      sorted_pairs_text(v:properties() or {}, function(k, p) return k .. "=" .. p end),
      sorted_pairs_text(member, function(k) return k .. "=" .. k end),
      v:type(), v:basename(), v:name(), v:id() or -1, v:vid(), v:size() or 1, v:unit() or ""}
    out:write(('    <node id="n%d">\n'):format(v:vid()))
    for i, val in ipairs(vals) do
      out:write(('      <data key="key%d">%s</data>\n'):format(i - 1, xml(val)))
    end
    out:write("    </node>\n")
  end
  local n = 0
  each_edge(g, function(e)
    out:write(('    <edge id="e%d" source="n%d" target="n%d">\n'):format(n, e:src():vid(),
      e:dst():vid()))
    out:write(('      <data key="key%d">{%s=%s}</data>\n'):format(#VKEYS, xml(e:subsystem()),
      xml(e:subsystem())))
    out:write("    </edge>\n")
    n = n + 1
  end)
  out:write("  </graph>\n</graphml>\n")
end

-- Write g in format ("dot" or "graphml") to BASENAME.FORMAT.  true, or
-- nil, message, code.
function M.write(g, format, basename)
  if type(basename) ~= "string" then
    error("bad argument #3 to 'write' (string expected)", 2)
  end
  local ext = M.formats[format]
  if not ext then
    return nil, ("unknown graph format '%s' (dot, graphml)"):format(tostring(format)), "EINVAL"
  end
  local path = basename .. "." .. ext
  local out, msg = io.open(path, "w")
  if not out then return nil, msg, "EIO" end
  if ext == "dot" then write_dot(g, out) else write_graphml(g, out) end
  local ok, werr = out:close()
  if not ok then return nil, ("%s: %s"):format(path, tostring(werr)), "EIO" end
  return true
end

return M
