-- lonode: lowest node id first, then lowest id at every other level.
--
-- Nodes are visited in ascending id order and, inside a node, sockets,
-- cores and the rest too (the older vertex first on ties): the job packs
-- into the lowest-numbered node that can hold it, at the low end of that
-- node.  This is the placement the reference engine gives the name.
--
-- This file holds this one policy and nothing else: it is loaded as text
-- into a sandbox, so it must not require modules, read files or set
-- globals.
return {
  name = "lonode",
  description = "lowest node id first; low ids first at the other levels",
  order = { key = "id" },
  node_centric = true,
}
