-- score_id: a per-candidate score hook that makes one view method call
-- (its id): with score_call.lua, what one method call costs a candidate.
-- bench_match.lua compares it with the C spread.
return {
  name = "score_id",
  description = "every candidate scored by its id: one method call",
  score = function(v)
    return v:id()
  end,
}
