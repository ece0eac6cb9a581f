-- variation: the candidates of the best performance classes.
--
-- Nodes of one model still differ in speed; an administrator records the
-- class of each in a `perf_class` property (an integer from 0, the best,
-- to 9999; a node without one, or with another value, counts as 9999, so
-- nodes nobody classified are used last).  A parallel job runs at the
-- pace of its slowest member, so the policy finds every candidate that
-- fits, sorts them by class, and keeps the k best, in candidate order on
-- ties (the reference engine's choice).  Use it for tightly coupled jobs
-- on a machine of uneven nodes.
--
-- This file holds this one policy and nothing else: it is loaded as text
-- into a sandbox, so it must not require modules, read files or set
-- globals.

-- The integer the property's text starts with (after blanks), from 0 to
-- 9999; 9999 when there is none or it is out of that range.
local function perf_class(v)
  local s = v:property("perf_class")
  local c = s and tonumber(s:match("^%s*([+-]?%d+)"))
  if not c or c < 0 or c > 9999 then
    return 9999
  end
  return c
end

return {
  name = "variation",
  description = "the candidates of the best (lowest) perf_class",
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
    local pick = {}
    for i = 1, k do
      pick[i] = pos[i]
    end
    return pick
  end,
}
