-- score_call: a per-candidate score hook that reads nothing (every
-- candidate scores 0): what the call into the policy costs a candidate,
-- before any method.  bench_match.lua compares it with the C spread.
return {
  name = "score_call",
  description = "every candidate scored 0: the cost of the call alone",
  score = function(_)
    return 0
  end,
}
