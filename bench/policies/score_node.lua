-- score_node: spread written with a per-node score hook (one call per
-- node) instead of spread's scores (one call per level): what a policy
-- author writes first.  bench_match.lua compares it with the C spread.
return {
  name = "score_node",
  description = "the nodes with the most free cores first, scored one by one",
  score_types = "node",
  score = function(v)
    return v:aggregate("core")
  end,
}
