-- freshnodex: fresh, and every selected node is taken whole.
--
-- Candidates in the order of fresh (what no earlier job went through
-- first, highest id first), stopping early; each selected node is held
-- exclusively with everything it contains, and nodes touched by another
-- job are passed over.  This is what the reference engine calls
-- `firstnodex`; `grove query -P firstnodex` runs this policy.
--
-- This file holds this one policy and nothing else: it is loaded as text
-- into a sandbox, so it must not require modules, read files or set
-- globals.
return {
  name = "freshnodex",
  description = "fresh; every selected node taken whole",
  select = "first",
  node_exclusive = true,
  explore_by_use = true,
}
