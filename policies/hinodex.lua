-- hinodex: hinode, and every selected node is taken whole.
--
-- Nodes are chosen highest id first, as in hinode; each selected node is
-- held exclusively with everything it contains.  Nodes touched by another
-- job are passed over.
--
-- This file holds this one policy and nothing else: it is loaded as text
-- into a sandbox, so it must not require modules, read files or set
-- globals.
return {
  name = "hinodex",
  description = "highest node id first; every selected node taken whole",
  order = { key = "id", descending = true },
  node_exclusive = true,
  node_centric = true,
}
