-- first: the first resources found, in graph order.
--
-- The matcher visits the children of every vertex in the order they were
-- added to the graph and takes the first candidates that fit, stopping as
-- soon as the request is met.  Nothing is sorted or scored, so it is the
-- fastest policy; placements follow the graph's layout.  Use it when any
-- fit is as good as another, and for throughput.
return {
  name = "first",
  description = "the first resources found in graph order; stops early",
  select = "first",
}
