-- The grove executable: scripts, -e, subcommands, exit statuses.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local exe = require("exe_helper")

local GROVE, run = exe.GROVE, exe.run

describe("the grove executable", function()
  -- name, arguments, exit status, what the output matches (a Lua pattern,
  -- or plain text where the fifth field is true)
  for _, c in ipairs {
    {"runs a chunk with -e, with the module preloaded",
      [[-e 'print(require("grove").version, 1 + 1)']], 0, "^0%.1%.0\t2\n$"},
    {"reports a script error with status 1", [[-e 'error("boom")']], 1,
      "^grove: %(command line%):1: boom"},
    {"prints help", "help", 0, "grove query", true},
    {"refuses unknown commands with status 2", "no-such-command", 2,
      "unknown command or file 'no%-such%-command'"},
    {"refuses help on an unknown command with status 2", "help no-such-command", 2,
      "no command 'no-such-command'", true},
  } do
    it(c[1], function()
      local out, rc = run(GROVE .. " " .. c[2])
      assert.equal(c[3], rc)
      assert.matches(c[4], out, 1, c[5])
    end)
  end

  it("runs a script with its arguments in arg", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write('print(#arg, arg[1], arg[2], select("#", ...))\n')
    f:close()
    local out, rc = run(GROVE .. " " .. path .. " a b")
    os.remove(path)
    assert.equal(0, rc)
    assert.equal("2\ta\tb\t2\n", out)
  end)
end)
