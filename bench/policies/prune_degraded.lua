-- prune_degraded: spread that never places on a degraded node, as a
-- newcomer writes it: the built-in's scores and a one-line prune on a
-- node property.  bench/bench_undeclared.lua compares it with the C
-- spread and the same exclusion as an RFC 31 constraint on the job
-- ({"properties": ["^degraded"]}).
return {
  name = "prune_degraded",
  description = "spread, degraded nodes never",
  base = "spread",
  prune = function(v)
    return v:property("degraded") ~= nil
  end,
}
