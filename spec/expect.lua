-- expect.lua: the one way the specs assert a failure, of either kind the
-- rules allow: a call returned nil, a message and an error code ("return
-- nil, msg, code on failure"), or a misuse raised an error ("raise on
-- misuse").  Pass the call itself as the last argument, so all its
-- results arrive:
--   expect.fails("ENOENT", "no job 99", core.child_resources(m, 99))
--   expect.raises(function() h:nth "x" end, "bad argument #1 to 'nth'")
--
-- This module holds only such assertions: no fixtures, graphs or specs.
local assert = require("luassert")

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

-- f raises an error whose message contains text (plain, not a pattern).
function M.raises(f, text)
  assert.error_matches(f, text, 1, true)
end

return M
