-- choose_keys: the locality twin's choose without its two loops (it reads
-- keys.vid and keys.id, then takes the first k): what handing the
-- candidates and the two key arrays costs.  bench_match.lua compares it
-- with the C locality.
return {
  name = "choose_keys",
  description = "the first k candidates, after reading keys.vid and keys.id",
  select = "best",
  choose = function(_, k, _, keys)
    assert(keys.vid and keys.id)
    local pick = {}
    for i = 1, k do
      pick[i] = i
    end
    return pick
  end,
}
