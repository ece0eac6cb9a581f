-- expect.lua: assertions the Grove specs share.  Only helpers that assert
-- something belong here: no fixtures, no graphs, no specs.
local assert = require "luassert"

local M = {}

-- A call's results were nil, msg, code: the code equal to want_code and,
-- when want_msg is given, the message equal to it.
function M.failed(want_code, want_msg, ok, msg, code)
  assert.is_nil(ok)
  assert.are.equal(want_code, code)
  if want_msg then
    assert.are.equal(want_msg, msg)
  end
end

return M
