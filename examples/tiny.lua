-- tiny: the smallest cluster of the conformance corpus, described with the
-- cluster DSL.  One rack of two nodes; each node has two sockets of 18
-- cores, one GPU and four 2 GB memory pools.  Cores, GPUs and memory pools
-- are numbered per node (core0..core35), so paths read
-- /tiny0/rack0/node1/socket1/core35, as in the corpus.
--
--   local g = dofile "examples/tiny.lua"
local grove = require "grove"
local R = grove.cluster.resources
local rack, node, socket, core, gpu, memory =
  R.rack, R.node, R.socket, R.core, R.gpu, R.memory

return grove.cluster "tiny" {
  rack(1) {
    node(2, { hostnames = "node[0-1]", ranks = "0-1" }) {
      socket(2) {
        core(18, { id_scope = "node" }),
        gpu(1, { id_scope = "node" }),
        memory(4, { size = 2, unit = "GB", id_scope = "node" }),
      },
    },
  },
}
