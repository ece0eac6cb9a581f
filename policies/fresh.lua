-- fresh: what no earlier job went through first.
--
-- The matcher visits first the children no job of this matcher went
-- through yet, highest id first; then those that jobs did go through, by
-- the units free when the last of them came of the last type the
-- aggregates name for the vertex (with "ALL:core,ALL:node": cores for a
-- node, whole nodes for the rest), highest id first among equals.  It
-- takes the first candidates that fit and stops as soon as the request is
-- met.  So jobs
-- start on the highest-numbered free parts of the machine and each new
-- job goes where earlier ones did not.  The ranks stay when jobs are
-- cancelled.  This is what the reference engine calls `first`; `grove
-- query -P first` runs this policy.
--
-- This file holds this one policy and nothing else: it is loaded as text
-- into a sandbox, so it must not require modules, read files or set
-- globals.
return {
  name = "fresh",
  description = "untouched parts first, highest id first; stops early",
  select = "first",
  explore_by_use = true,
}
