-- expect.lua: the one way the specs assert a failure: a call returned nil,
-- a message and an error code (the rule "return nil, msg, code on
-- failure").  Pass the call itself as the last argument, so all its
-- results arrive:
--   expect.fails("ENOENT", "no job 99", core.child_resources(m, 99))
--
-- This module holds only such assertions: no fixtures, graphs or specs.
local assert = require "luassert"

local M = {}

-- The call failed with this code and exactly this message (any string
-- message when message is nil).
function M.fails(code, message, ok, msg, got)
  assert.is_nil(ok)
  if message == nil then
    assert.is_string(msg)
  else
    assert.equal(message, msg)
  end
  assert.equal(code, got)
end

-- The call failed with code, its message matching the Lua pattern.
function M.fails_like(code, pattern, ok, msg, got)
  assert.is_nil(ok)
  assert.matches(pattern, msg)
  assert.equal(code, got)
end

-- The call failed with code, its message containing text.
function M.fails_with(code, text, ok, msg, got)
  assert.is_nil(ok)
  assert.matches(text, msg, 1, true)
  assert.equal(code, got)
end

return M
