-- racks256: four racks of eight nodes (n0..n31), each node two sockets of
-- four cores: 256 cores.  Node ids run across the racks (id_scope
-- "root"), as their names do.  The machine of docs/sim.md's placement study
-- and of bench/bench_queues.lua's 10,000-job runs.
--
--   grove sim --cluster examples/racks256.lua --trace t.swf --procs-as fewest
local grove = require("grove")
local R = grove.cluster.resources

return grove.cluster "racks256" {
  R.rack(4) {
    R.node(8, {id_scope = "root", hostnames = "n[0-31]"}) { R.socket(2) { R.core(4) } } } }
