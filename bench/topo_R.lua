-- The R of an instance of NODES nodes of one hwloc topology, for the
-- topology benchmarks (bench/flux_topo.sh): its R_lite only, and the same
-- with the topology's graph in its scheduling key (JGF, written short:
-- what Fluxion's and Grove's readers read), which gives Fluxion the same
-- topology sched-grove builds from the XML.
--
--   build/grove bench/topo_R.lua XML NODES OUT
--
-- writes OUT.R.json and OUT.jgf.json; prints "cores CORES gpus GPUS" (a
-- node's ids, as idsets) and the JGF's size.
local core = require("grove.core")

local xml, nodes, out = arg[1], math.tointeger(tonumber(arg[2] or "")), arg[3]
if not (xml and nodes and nodes > 0 and out) then
  io.stderr:write("usage: grove bench/topo_R.lua XML NODES OUT\n")
  os.exit(2)
end
local last = nodes - 1
local t = core.topologies()
assert(t:add("0-" .. last, {xml = xml}))
local c = t:classes()[1]
local kids = {('"core":"%s"'):format(c.cores)}
if c.gpus ~= "" then kids[#kids + 1] = ('"gpu":"%s"'):format(c.gpus) end
local R = ('{"version":1,"execution":{"R_lite":[{"rank":"0-%d","children":{%s}}],'
  .. '"starttime":0,"expiration":0,"nodelist":["node[0-%d]"]}}'):format(last,
  table.concat(kids, ","), last)
local f = assert(io.open(out .. ".R.json", "w"))
f:write(R, "\n")
f:close()

local g = core.graph()
local a = core.acquire(g, {protocol = "current"})
a:set_topology(t)
assert(a:apply(('{"resources":%s,"up":"0-%d"}'):format(R, last)))
local jgf = g:to_jgf{compact = true, short = true}
f = assert(io.open(out .. ".jgf.json", "w"))
-- no "writer" key (RFC 40 lets it be absent): Fluxion's resource module
-- (flux-sched 0.54) refuses a scheduling key whose writer is anything but
-- "fluxion:jgf_shorthand" when it grows its graph, "fluxion:jgf" included
f:write(R:sub(1, -2), ',"scheduling":', jgf, '}', "\n")
f:close()
print(("cores %s gpus %s jgf_bytes %d vertices %d"):format(c.cores, c.gpus ~= "" and c.gpus or "-",
  #jgf, #g))
