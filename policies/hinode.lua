-- hinode: highest node id first; every other level in graph order.
--
-- The mirror of lonode: lists of children that hold nodes are visited in
-- descending id order (the newer vertex first on ties); other levels in
-- graph order.
--
-- This file holds this one policy and nothing else: it is loaded as text
-- into a sandbox, so it must not require modules, read files or set
-- globals.
return {
  name = "hinode",
  description = "highest node id first; other levels in graph order",
  order = { key = "id", descending = true, when = "node" },
}
