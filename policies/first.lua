-- first: the first resources found, in graph order.
--
-- The matcher visits the children of every vertex in the order they were
-- added to the graph and takes the first candidates that fit, stopping as
-- soon as the request is met.  Nothing is sorted or scored, so it is the
-- fastest policy; placements follow the graph's layout.  Use it when any
-- fit is as good as another, and for throughput.
--
-- This file holds this one policy and nothing else: it is loaded as text
-- into a sandbox, so it must not require modules, read files or set
-- globals.
return {
  name = "first",
  description = "the first resources found in graph order; stops early",
  select = "first",
}
