-- choose_scan: choose_keys.lua plus the locality twin's first loop (is
-- keys.vid ascending?): what one pass of five Lua instructions over the
-- candidates costs.  bench_match.lua compares it with the C locality.
return {
  name = "choose_scan",
  description = "the first k candidates, after one pass over keys.vid",
  select = "best",
  choose = function(candidates, k, _, keys)
    local n, vid = #candidates, keys.vid
    local last, down = vid[1], 0
    for i = 2, n do
      local x = vid[i]
      if x < last then
        down = down + 1
      end
      last = x
    end
    assert(down >= 0)
    local pick = {}
    for i = 1, k do
      pick[i] = i
    end
    return pick
  end,
}
