-- sim_helper.lua: the machines the specs of grove.sim (sim_spec.lua,
-- sim_nodes_spec.lua, sim_reference_spec.lua) simulate: racks of nodes of
-- sockets of interchangeable cores, built one way.  It holds no test of
-- its own.
local grove = require("grove")

local M = {}

local R = grove.cluster.resources

-- The cluster name0 of racks x nodes (in all, hostnames n0, n1, ...) x
-- sockets x cores.
function M.machine(name, racks, nodes, sockets, cores)
  return grove.cluster(name) {
    R.rack(racks) { R.node(nodes, {hostnames = ("n[0-%d]"):format(racks * nodes - 1)}) {
      R.socket(sockets) { R.core(cores) } } } }
end

return M
