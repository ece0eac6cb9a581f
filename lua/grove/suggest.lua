-- grove.suggest: "did you mean" for a name that is not known.
--
--   local suggest = require "grove.suggest"
--   suggest.closest("esay", {"fcfs", "easy", "conservative"})  --> "easy"
--   suggest.hint("esay", names)   --> " (did you mean 'easy'?)" or ""
--   suggest.strict(M, "grove")     M.jobspc raises, with the offer
--
-- The closest name is the one fewest edits away (insertions, deletions,
-- substitutions and swaps of two neighbours: Damerau-Levenshtein, the
-- optimal string alignment form), compared without case; only names
-- within a third of the longer name's length (at least one edit, at most
-- three) are offered, so a name that looks like nothing known gets no
-- hint.  Ties go to the name first in the list.
local M = {}

local lower, sub, max, min = string.lower, string.sub, math.max, math.min

-- The edit distance between a and b (optimal string alignment).
function M.distance(a, b)
  a, b = lower(a), lower(b)
  local la, lb = #a, #b
  if la == 0 then return lb end
  if lb == 0 then return la end
  local d = {}
  for i = 0, la do d[i] = {[0] = i} end
  for j = 0, lb do d[0][j] = j end
  for i = 1, la do
    local ai = sub(a, i, i)
    for j = 1, lb do
      local bj = sub(b, j, j)
      local cost = ai == bj and 0 or 1
      local v = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
      if i > 1 and j > 1 and ai == sub(b, j - 1, j - 1) and sub(a, i - 1, i - 1) == bj then
        v = min(v, d[i - 2][j - 2] + 1)
      end
      d[i][j] = v
    end
  end
  return d[la][lb]
end

-- The known name closest to name, or nil when none is close enough.
-- names: an array of strings, or a table whose string keys are the names.
function M.closest(name, names)
  if type(name) ~= "string" or name == "" then return nil end
  local list = names
  if #names == 0 then
    list = {}
    for k in pairs(names) do
      if type(k) == "string" then list[#list + 1] = k end
    end
    table.sort(list)
  end
  local best, best_d
  for _, n in ipairs(list) do
    if n ~= name then
      local d = M.distance(name, n)
      local limit = max(1, min(3, max(#name, #n) // 3))
      if d <= limit and (not best_d or d < best_d) then best, best_d = n, d end
    end
  end
  return best
end

-- " (did you mean 'X'?)" when a close name is known, else "".
function M.hint(name, names)
  local c = M.closest(name, names)
  if c then return string.format(" (did you mean '%s'?)", c) end
  return ""
end

-- Make the module table t (called what in messages) raise on reading a
-- string key it does not hold: "grove has no field 'jobspc' (did you mean
-- 'jobspec'?)", at the line that read it, rather than a nil that fails
-- later as "attempt to call a nil value".  A field t holds costs nothing
-- more (the metatable is reached only on a miss); rawget still reads nil,
-- and other keys read nil.  Keeps a metatable t has (a callable module).
-- Returns t.
function M.strict(t, what)
  local mt = getmetatable(t) or {}
  mt.__index = function(self, k)
    if type(k) ~= "string" then return nil end
    local names = {}
    for key in next, self do
      if type(key) == "string" then names[#names + 1] = key end
    end
    table.sort(names)
    error(("%s has no field '%s'%s"):format(what, k, M.hint(k, names)), 2)
  end
  return setmetatable(t, mt)
end

-- The messages grove.core makes about an unknown name (a method, a type a
-- jobspec or a policy names, a mode, a format) offer the closest known one
-- through this one edit distance, wherever Grove's Lua runs (the prompt,
-- grove query, grove sim, the Flux module): set as soon as this is loaded.
do
  local ok, core = pcall(require, "grove.core")
  if ok and type(core) == "table" and core.set_suggest then core.set_suggest(M.hint) end
end

return M
