-- grove.check: the one way the pure-Lua modules refuse an argument of the
-- wrong type: the error "bad argument #N to 'NAME' (TYPE expected, got
-- TYPE)", raised at the caller of the misused function (the rule "raise on
-- misuse").  It holds only such checks: no failure that is returned as
-- nil, message, code, and no knowledge of any Grove type.
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

return M
