-- sets_helper.lua: what the specs of the string-coded sets (hostlist_spec.lua,
-- idset_spec.lua) share: the elements of a set as a list, the rows of a
-- table of the shared corpus, and the close checks every such handle
-- passes.  It holds no test of its own, knows no format, and asserts
-- failures only through expect.lua.  (A module required by a spec
-- sees no busted globals: it takes luassert itself and leaves it() to the
-- spec.)
local assert = require("luassert")
local expect = require("expect")

local M = {}

-- The values an iterator gives, as a list.
function M.items(iter, ...)
  local t = {}
  for x in iter, ... do t[#t + 1] = x end
  return t
end

-- The rows of the corpus table name (not blank, not '#' comments), or nil
-- when it cannot be opened; and its path.
function M.corpus_rows(name)
  local path = (os.getenv "GROVE_CONFORMANCE" or "../shared/conformance") .. "/" .. name
  local f = io.open(path)
  if not f then return nil, path end
  local rows = {}
  for line in f:lines() do
    if line ~= "" and line:sub(1, 1) ~= "#" then rows[#rows + 1] = line end
  end
  f:close()
  return rows, path
end

-- A closed handle of kind c.label ("hostlist") says so and refuses use:
-- c.make(s) builds one from s; c.one and c.many are strings of one element
-- and of several (c.first the first of them); c.each(h) is h's iterator;
-- c.also(h) is one more use that must raise once h is closed.
function M.check_close(c)
  local closed = "(" .. c.label .. " is closed)"
  local h = c.make(c.one)
  h:close()
  h:close()
  assert.equal(c.label .. " (closed)", tostring(h))
  expect.raises(function() h:count() end, closed)
  expect.raises(function() return c.also(h) end, closed)
  assert.is_false(h == c.make(c.one))
  local t = c.make(c.many)
  local it = c.each(t)
  assert.equal(c.first, it())
  t:close()
  expect.raises(function() it() end, c.label .. " closed during iteration")
  local kept
  do
    local k <close> = c.make(c.one)
    kept = k
  end
  expect.raises(function() kept:first() end, closed)
  collectgarbage()
end

return M
