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

return {
  name = "variation",
  description = "the candidates of the best (lowest) perf_class",
  select = "best",
  -- keys.perf_class: each candidate's class as the C twin reads it, made
  -- in C once per call
  choose = function(candidates, k, _, keys)
    if k == 0 then
      return {}
    end
    local n, class = #candidates, keys.perf_class
    -- the best class, and whether it alone holds k candidates: then they
    -- are its first k in order (most often every node is of one class,
    -- and this is two short passes, the second ending at the k-th)
    local best = math.huge
    for i = 1, n do
      if class[i] < best then
        best = class[i]
      end
    end
    local pick = {}
    for i = 1, n do
      if class[i] == best then
        pick[#pick + 1] = i
        if #pick == k then
          return pick
        end
      end
    end
    -- positions by class, then in the order the candidates came: each
    -- class's positions in order, the classes ascending (a few, where a
    -- sort of every candidate would compare thousands)
    local of, classes = {}, {}
    for i = 1, n do
      local c = class[i]
      local group = of[c]
      if not group then
        group = {}
        of[c] = group
        classes[#classes + 1] = c
      end
      group[#group + 1] = i
    end
    table.sort(classes)
    pick = {}
    for _, c in ipairs(classes) do
      for _, i in ipairs(of[c]) do
        if #pick == k then
          return pick
        end
        pick[#pick + 1] = i
      end
    end
    return pick
  end,
}
