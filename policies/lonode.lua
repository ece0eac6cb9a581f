-- lonode: lowest node id first; every other level in graph order.
--
-- Only lists of children that hold nodes are sorted (ascending id, the
-- older vertex first on ties); sockets, cores and the rest are taken in
-- graph order.  Node choice is what matters for placement, and leaving the
-- inner levels alone keeps the match as cheap as first.
--
-- This file holds this one policy and nothing else: it is loaded as text
-- into a sandbox, so it must not require modules, read files or set
-- globals.
return {
  name = "lonode",
  description = "lowest node id first; other levels in graph order",
  order = { key = "id", when = "node" },
}
