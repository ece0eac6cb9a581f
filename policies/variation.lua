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

return {
  name = "variation",
  description = "the candidates whose perf_class properties vary least",
  select = "best",
  -- keys["property:perf_class"]: each candidate's class as C's strtod
  -- reads the property's leading number (0 when absent or none), made in
  -- C once per call
  choose = function(candidates, k, _, keys)
    if k == 0 then
      return {}
    end
    local n, class = #candidates, keys["property:perf_class"]
    local sorted = true -- by class already (all of one class, say)
    for i = 2, n do
      if class[i] < class[i - 1] then
        sorted = false
        break
      end
    end
    -- positions by class, then in the order the candidates came: each
    -- class's positions in order, the classes ascending (a few, where a
    -- sort of every candidate would compare thousands); `class` becomes
    -- the classes in that order (pos stays nil when it is the order given)
    local pos
    if not sorted then
      local of, classes, len = {}, {}, {}
      for i = 1, n do
        local c = class[i]
        if c ~= c then
          c = 0 -- NaN ("nan") is no table key: counted as no class
        end
        local group = of[c]
        if not group then
          group = {}
          of[c], len[c] = group, 0
          classes[#classes + 1] = c
        end
        len[c] = len[c] + 1
        group[len[c]] = i
      end
      table.sort(classes)
      pos, class = {}, {}
      local m = 0
      for _, c in ipairs(classes) do
        for _, i in ipairs(of[c]) do
          m = m + 1
          pos[m], class[m] = i, c
        end
      end
    end
    -- the window of k with the smallest spread; the first on ties (classes
    -- ascend, so none is below 0: the first 0 ends the search)
    local best, spread = 1, class[k] - class[1]
    local s = 2
    while spread ~= 0 and s <= n - k + 1 do
      local sp = class[s + k - 1] - class[s]
      if sp < spread then
        best, spread = s, sp
      end
      s = s + 1
    end
    local pick = {}
    for i = 1, k do
      pick[i] = pos and pos[best + i - 1] or best + i - 1
    end
    return pick
  end,
}
