-- rabbit: the R of an instance on a site with rabbits (near-node flash
-- storage), in the shape flux-coral2's `flux dws2jgf` gives it to a
-- scheduler: R_lite and nodelist for the compute nodes, and in the
-- `scheduling` key (RFC 20, RFC 40) a JGF in which the cluster holds one
-- chassis per rabbit (properties rabbit=NAME, ssdcount=N), each chassis
-- its N `ssd` vertices (unit GiB, the rabbit's capacity split evenly,
-- neither name nor id: their paths name them ssd0, ssd1, ...; status 1,
-- down, until the rabbit is up, unless --up) and the compute nodes the
-- rabbit serves, and nodes no rabbit serves hang under the cluster.
-- Vertex ids are "0", "1", ... in file order; edges carry no metadata.
--
--   build/grove examples/rabbit.lua [OPTIONS] > R.json
--   local R = dofile("examples/rabbit.lua").R{chassis = 2}  -- a table
--
-- Options (and the table's keys): --cluster NAME (rb), --chassis N (2),
-- --nodes N (nodes a chassis, 2), --cores N (cores a node, 4), --ssds N
-- (ssd vertices a chassis, 4), --capacity GiB (a rabbit's, 4096), --plain N
-- (nodes no rabbit serves, 0), --property NAME=RANKS (an RFC 20 property
-- on some ranks, repeatable: --property pdebug=0-1), --up (ssds up).
local M = {}

local function idset_has(set, rank)
  for part in set:gmatch("[^,]+") do
    local lo, hi = part:match("^(%d+)%-(%d+)$")
    lo = tonumber(lo or part)
    hi = tonumber(hi or part)
    if lo and rank >= lo and rank <= hi then return true end
  end
  return false
end

-- The R document (a table) for the layout o (the options above).
function M.R(o)
  o = o or {}
  local cluster = o.cluster or "rb"
  local nchassis, per, ncores = o.chassis or 2, o.nodes or 2, o.cores or 4
  local nssd, capacity, plain = o.ssds or 4, o.capacity or 4096, o.plain or 0
  local props = o.properties or {}
  local nodes, edges = {}, {}
  local function vertex(md, parent)
    local id = tostring(#nodes)
    nodes[#nodes + 1] = {id = id, metadata = md}
    if parent then edges[#edges + 1] = {source = parent, target = id} end
    return id
  end
  local rank, hosts = 0, {}
  local function compute(parent, ppath)
    local host = cluster .. rank
    local path = ppath .. "/" .. host
    local md = {type = "node", name = host, rank = rank, paths = {containment = path}}
    for name, set in pairs(props) do
      if idset_has(set, rank) then
        md.properties = md.properties or {}
        md.properties[name] = ""
      end
    end
    local n = vertex(md, parent)
    for c = 0, ncores - 1 do
      vertex({type = "core", id = c, rank = rank,
        paths = {containment = path .. "/core" .. c}}, n)
    end
    hosts[#hosts + 1] = host
    rank = rank + 1
  end
  local top = "/" .. cluster
  local root = vertex({type = "cluster", name = cluster, paths = {containment = top}})
  for c = 0, nchassis - 1 do
    local cpath = top .. "/chassis" .. c
    local ch = vertex({type = "chassis", id = c, paths = {containment = cpath},
      properties = {rabbit = cluster .. "-rabbit" .. c, ssdcount = tostring(nssd)}}, root)
    for s = 0, nssd - 1 do
      vertex({type = "ssd", unit = "GiB", size = capacity // nssd,
        status = o.up and 0 or 1, paths = {containment = cpath .. "/ssd" .. s}}, ch)
    end
    for _ = 1, per do compute(ch, cpath) end
  end
  for _ = 1, plain do compute(root, top) end
  local R = {version = 1, execution = {
    R_lite = {{rank = ("0-%d"):format(rank - 1), children = {core = ("0-%d"):format(ncores - 1)}}},
    starttime = 0, expiration = 0,
    nodelist = {("%s[0-%d]"):format(cluster, rank - 1)},
  }, scheduling = {graph = {directed = false, nodes = nodes, edges = edges}}}
  if next(props) then R.execution.properties = props end
  return R
end

-- The options of the command line (arg), as M.R takes them; nil and a
-- message for a bad one.
function M.options(args)
  local o, k = {properties = {}}, 1
  local numeric = {["--chassis"] = "chassis", ["--nodes"] = "nodes", ["--cores"] = "cores",
    ["--ssds"] = "ssds", ["--capacity"] = "capacity", ["--plain"] = "plain"}
  while args[k] do
    local a = args[k]
    if numeric[a] then
      local n = math.tointeger(tonumber(args[k + 1]))
      if not n or n < 0 then return nil, a .. " needs a count, got " .. tostring(args[k + 1]) end
      o[numeric[a]] = n
      k = k + 1
    elseif a == "--cluster" and args[k + 1] then
      o.cluster = args[k + 1]
      k = k + 1
    elseif a == "--property" and args[k + 1] then
      local name, set = args[k + 1]:match("^([^=]+)=([%d,%-]+)$")
      if not name then return nil, "--property needs NAME=RANKS, got " .. args[k + 1] end
      o.properties[name] = set
      k = k + 1
    elseif a == "--up" then
      o.up = true
    else
      return nil, "unknown or incomplete option " .. a
    end
    k = k + 1
  end
  return o
end

if arg and arg[0] and arg[0]:match("rabbit%.lua$") then
  local o, err = M.options(arg)
  if not o then
    io.stderr:write("rabbit.lua: ", err, "\n")
    os.exit(2)
  end
  print(require("grove").core.json_encode(M.R(o), 0))
end

return M
