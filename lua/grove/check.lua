-- grove.check: the one way the pure-Lua modules refuse an argument of the
-- wrong type, "bad argument #N to 'NAME' (TYPE expected, got TYPE)", or an
-- options table with a key they do not take, "bad argument #N to 'NAME'
-- (unknown option 'k' (did you mean 'K'?))": raised at the caller of the
-- misused function (the rule "raise on misuse"; a misspelt option is
-- never ignored).  It holds only such checks: no failure that is returned
-- as nil, message, code, and no knowledge of any Grove type.
local suggest = require("grove.suggest")

local M = {}

-- x, when its type is ty; else raise, blaming whoever called the function
-- named fname (x is its argument number n).  Call it as a statement or
-- an assignment, never in a return (a tail call would blame another
-- level).
function M.arg(x, ty, n, fname)
  if type(x) ~= ty then
    error(("bad argument #%d to '%s' (%s expected, got %s)"):format(n, fname, ty, type(x)), 3)
  end
  return x
end

-- t (a table, or nil), when every key of it is one of known (a set: the
-- names are its string keys); else raise, blaming whoever called the
-- function named fname (t is its argument number n), with the closest
-- name offered.  what names the keys in the message ("option" unless
-- given: "field", "limits option").  Of several unknown keys the first
-- in sorted order is named.  level: the level of the error as the
-- function that calls this would give it to error (default 2: its
-- caller).  As arg: never in a return.
function M.keys(t, known, n, fname, what, level)
  if t == nil then return t end
  local bad
  for k in pairs(t) do
    if known[k] == nil or type(k) ~= "string" then
      local name = tostring(k)
      if not bad or name < bad then bad = name end
    end
  end
  if bad then
    error(("bad argument #%d to '%s' (unknown %s '%s'%s)"):format(n, fname, what or "option", bad,
      suggest.hint(bad, known)), (level or 2) + 1)
  end
  return t
end

return M
