-- plain_last: degraded nodes last, as a newcomer writes it: a score per
-- node from its property, and no declaration.  bench/bench_undeclared.lua
-- compares it with the same order declared in C (order_last.lua), whose
-- placements it gives: the nodes not degraded in graph order, then the
-- degraded ones.
return {
  name = "plain_last",
  description = "nodes not degraded first, in graph order",
  score_types = "node",
  score = function(v)
    return v:property("degraded") and 0 or 1
  end,
}
