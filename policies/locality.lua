-- locality: candidates forming the tightest run of ids.
--
-- Every candidate that fits is found first (select = "best"); then, of all
-- the ways to take k of them, the policy keeps the k neighbours (in graph
-- order) whose ids span the smallest range, the earliest such run on ties.
-- A 4-node job lands on node8..node11 rather than on node2, node9, node30
-- and node31: neighbours share switches and racks, so jobs communicate
-- faster and leave larger contiguous blocks free.
--
-- This file holds this one policy and nothing else: it is loaded as text
-- into a sandbox, so it must not require modules, read files or set
-- globals.
return {
  name = "locality",
  description = "the candidates forming the tightest run of ids (fewest gaps)",
  select = "best",
  -- keys.vid and keys.id: the candidates' vertex ids and ids, read in C
  -- (a method call per candidate would cost more than the whole match)
  choose = function(candidates, k, _, keys)
    if k == 0 then
      return {}
    end
    local n, vid, id = #candidates, keys.vid, keys.id
    -- the candidates in graph order: usually the order they come in, then
    -- their positions are their places in it (pos stays nil) and `id`
    -- their ids in it already
    local pos, last = nil, vid[1]
    for i = 2, n do
      local x = vid[i]
      if x < last then
        pos = {}
        for j = 1, n do
          pos[j] = j
        end
        table.sort(pos, function(a, b)
          return vid[a] < vid[b]
        end)
        local by = id
        id = {}
        for j = 1, n do
          id[j] = by[pos[j]]
        end
        break
      end
      last = x
    end
    -- the window of k neighbours with the smallest spread of ids (one
    -- candidate spreads nothing: the first in graph order)
    local best, spread, span = 1, math.huge, k - 1
    for s = 1, k > 1 and n - span or 0 do
      local d = id[s + span] - id[s]
      if d < spread then
        best, spread = s, d
      end
    end
    local pick = {}
    for i = 1, k do
      pick[i] = pos and pos[best + i - 1] or best + i - 1
    end
    return pick
  end,
}
