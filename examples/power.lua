-- power: the shape of the corpus graph "power": four racks, each with a
-- power distribution unit (pdu0..pdu3) and 18 nodes (node0..node71 across the
-- cluster).  A power subsystem joins them: a power panel (which exists
-- only in that subsystem) supplies each rack's pdu, which supplies the
-- nodes of its rack; panel, pdus and nodes carry pools of 10 KW units.
-- Edges are supplies_to downward with draws_from as their opposite.
--
--   local g = dofile "examples/power.lua"
--   g:vertex("/powerpanel0/pdu1/node18", "power")   -- rack1's first node
local grove = require("grove")
local C = grove.cluster
local R = C.resources
local rack, pdu, node, socket, core, gpu, memory, powerpanel, power =
  R.rack, R.pdu, R.node, R.socket, R.core, R.gpu, R.memory, R.powerpanel, R.power
local subsystem, feeds = C.subsystem, C.feeds

return C "power" {
  rack(4) {
    pdu(1, { id_scope = "root" }),          -- pdu0..pdu3
    node(18, { id_scope = "root" }) {
      socket(2) {
        core(18, { id_scope = "node" }),
        gpu(1, { id_scope = "node" }),
        memory(4, { size = 2, unit = "GB", id_scope = "node" }),
      },
    },
  },

  subsystem("power", { relation = "supplies_to", rrelation = "draws_from" }) {
    powerpanel(1) {
      power(200, { size = 10, unit = "KW" }),
      feeds "/power0/rack*/pdu*" {            -- every rack's pdu
        power(40, { size = 10, unit = "KW" }),
        feeds "../node*" {
          power(2, { size = 10, unit = "KW" }),
        },
      },
    },
  },
}
