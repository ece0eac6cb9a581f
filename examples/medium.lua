-- medium: four racks of 18 nodes (node0..node71, numbered across the
-- cluster, ranks 0-71); each node has two sockets of 18 cores, one GPU and
-- four 32 GB memory pools per socket.  The shape of the corpus graph
-- "medium"; half the nodes carry a property so policies can tell them
-- apart.
--
--   local g = dofile "examples/medium.lua"
local grove = require("grove")
local R = grove.cluster.resources
local rack, node, socket, core, gpu, memory =
  R.rack, R.node, R.socket, R.core, R.gpu, R.memory

return grove.cluster "medium" {
  rack(4) {
    node(18, {
      id_scope = "root",                     -- node0..node71 across racks
      hostnames = "node[0-71]",
      ranks = "0-71",
      properties = function(id)
        return { arch = "x86_64", memtier = id < 36 and "fast" or "standard" }
      end,
    }) {
      socket(2) {
        core(18, { id_scope = "node" }),
        gpu(1, { id_scope = "node" }),
        memory(4, { size = 32, unit = "GB", id_scope = "node" }),
      },
    },
  },
}
