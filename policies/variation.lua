-- variation: candidates whose perf_class varies least.
--
-- Nodes of one model still differ in speed; an administrator records the
-- class of each in a `perf_class` property (a number; absent counts as 0).
-- A parallel job runs at the pace of its slowest member, so the policy
-- finds every candidate that fits, sorts them by class, and keeps the k
-- consecutive ones with the smallest spread (max - min) of classes, the
-- lower classes first on ties.  Use it for tightly coupled jobs on a
-- machine of uneven nodes.
--
-- This file holds this one policy and nothing else: it is loaded as text
-- into a sandbox, so it must not require modules, read files or set
-- globals.

-- The leading number of the property's text, as C's strtod reads it (0
-- when there is none).
local function perf_class(v)
  local s = v:property("perf_class")
  if not s then
    return 0
  end
  local num = s:match("^%s*([+-]?%d+%.?%d*[eE][+-]?%d+)")
    or s:match("^%s*([+-]?%d+%.?%d*)")
    or s:match("^%s*([+-]?%.%d+[eE][+-]?%d+)")
    or s:match("^%s*([+-]?%.%d+)")
  return tonumber(num) or 0
end

return {
  name = "variation",
  description = "the candidates whose perf_class properties vary least",
  select = "best",
  choose = function(candidates, k)
    if k == 0 then
      return {}
    end
    local n = #candidates
    local class, pos = {}, {}
    for i = 1, n do
      class[i] = perf_class(candidates[i])
      pos[i] = i
    end
    -- by class, then in the order the candidates came
    table.sort(pos, function(a, b)
      if class[a] ~= class[b] then
        return class[a] < class[b]
      end
      return a < b
    end)
    -- the window of k with the smallest spread; the first on ties
    local best, spread = 1, nil
    for s = 1, n - k + 1 do
      local sp = class[pos[s + k - 1]] - class[pos[s]]
      if s == 1 or sp < spread then
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
