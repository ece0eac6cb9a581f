-- hinode: highest node id first, then highest id at every other level.
--
-- The mirror of lonode: nodes, and inside them sockets, cores and the
-- rest, are visited in descending id order (the newer vertex first on
-- ties).  This is the placement the reference engine gives the name.
--
-- This file holds this one policy and nothing else: it is loaded as text
-- into a sandbox, so it must not require modules, read files or set
-- globals.
return {
  name = "hinode",
  description = "highest node id first; high ids first at the other levels",
  order = { key = "id", descending = true },
  node_centric = true,
}
