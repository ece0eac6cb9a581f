-- firstnodex: first, and every selected node is taken whole.
--
-- Candidates in graph order, stopping early, as in first; each selected
-- node is held exclusively with everything it contains, and nodes touched
-- by another job are passed over.  The cheapest node-exclusive policy.
--
-- This file holds this one policy and nothing else: it is loaded as text
-- into a sandbox, so it must not require modules, read files or set
-- globals.
return {
  name = "firstnodex",
  description = "first fit in graph order; every selected node taken whole",
  select = "first",
  node_exclusive = true,
}
