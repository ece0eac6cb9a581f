-- iobw: a cluster with an I/O bandwidth subsystem (an RFC 4 channeled
-- resource pool).  Two racks of four nodes share a parallel file system.
-- In the containment tree the file system pfs0 (640 GB/s) sits beside the
-- racks and each rack holds a leaf switch (200 GB/s).  In the "iobw"
-- subsystem data flows pfs0 -> leaf switch -> node along conduit-of edges,
-- and every node has its own 25 GB/s link pool there, so a job on a node
-- can take bandwidth on every conduit up to the file system.
--
--   local g = dofile "examples/iobw.lua"
--   g:vertex("/io0/rack1/io5"):parent("iobw")  --> /io0/rack1/leaf0
local grove = require("grove")
local C = grove.cluster
local R = C.resources
local rack, node, socket, core, memory, pfs, leaf, bandwidth =
  R.rack, R.node, R.socket, R.core, R.memory, R.pfs, R.switch, R.bandwidth
local subsystem, link = C.subsystem, C.link

return C "io" {
  pfs(1, { size = 640, unit = "GB/s" }),
  rack(2) {
    leaf("leaf", { size = 200, unit = "GB/s" }),
    node(4, { id_scope = "root", hostnames = "io[0-7]", ranks = "0-7" }) {
      socket(2) {
        core(16, { id_scope = "node" }),
        memory(1, { size = 64, unit = "GB" }),
      },
    },
  },

  subsystem "iobw" {                       -- relation: conduit-of
    link "/io0/pfs0" {                     -- the root of the subsystem
      link "/io0/rack[0-1]/leaf0" {        -- pfs0 -> each leaf switch
        link "../io*" {                    -- each switch -> its rack's nodes
          bandwidth(1, { size = 25, unit = "GB/s" }),
        },
      },
    },
  },
}
