-- score_all: a score hook on every request level (nodes, sockets, cores,
-- GPUs: no score_types), preferring free cores, then high ids.
-- bench_match.lua compares it with the C spread.
return {
  name = "score_all",
  description = "every candidate scored: free cores below it, then its id",
  score = function(v)
    return v:aggregate("core") * 65536 + v:id()
  end,
}
