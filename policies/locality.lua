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
local function id_of(v)
  return v:id() or -1
end

return {
  name = "locality",
  description = "the candidates forming the tightest run of ids (fewest gaps)",
  select = "best",
  choose = function(candidates, k)
    if k == 0 then
      return {}
    end
    -- positions of the candidates in graph order
    local pos = {}
    for i = 1, #candidates do
      pos[i] = i
    end
    table.sort(pos, function(a, b)
      return candidates[a]:vid() < candidates[b]:vid()
    end)
    -- the window of k neighbours with the smallest spread of ids
    local best, spread = 1, math.huge
    for s = 1, #pos - k + 1 do
      local sp = id_of(candidates[pos[s + k - 1]]) - id_of(candidates[pos[s]])
      if sp < spread then
        best, spread = s, sp
      end
    end
    local pick = {}
    for i = 1, k do
      pick[i] = pos[best + i - 1]
    end
    return pick
  end,
}
