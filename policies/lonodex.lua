-- lonodex: lonode, and every selected node is taken whole.
--
-- Nodes are chosen lowest id first, as in lonode; each selected node is
-- then held exclusively with everything it contains, even when the job
-- asked for a few cores.  Nodes touched by another job are passed over.
-- Use it where nodes must not be shared (whole-node accounting, noisy
-- neighbours, node-level security).
--
-- This file holds this one policy and nothing else: it is loaded as text
-- into a sandbox, so it must not require modules, read files or set
-- globals.
return {
  name = "lonodex",
  description = "lowest node id first; every selected node taken whole",
  order = { key = "id" },
  node_exclusive = true,
  node_centric = true,
}
