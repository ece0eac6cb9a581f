-- plain_spread: spread as a newcomer writes it first: a score per node,
-- from the view's aggregate, and no declaration.  The engine sees what the
-- score reads (the node's own free units, nothing of ctx) and keeps the
-- ranking of the nodes between matches as it keeps the built-in's.
-- bench/bench_undeclared.lua compares it with the C spread, whose
-- placements it gives (free cores first, then free GPUs).
return {
  name = "plain_spread",
  description = "the nodes with the most free cores first, then the most free GPUs",
  score_types = "node",
  score = function(v)
    return v:aggregate("core") * 1048576 + v:aggregate("gpu")
  end,
}
