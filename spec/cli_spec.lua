-- The grove executable: scripts, -e, subcommands, exit statuses.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local exe = require "exe_helper"

local GROVE, run = exe.GROVE, exe.run

describe("the grove executable", function()
  it("runs a chunk with -e, with the module preloaded", function()
    local out, rc = run(GROVE .. [[ -e 'print(require("grove").version, 1 + 1)']])
    assert.equal(0, rc)
    assert.equal("0.1.0\t2\n", out)
  end)

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

  it("reports a script error with status 1", function()
    local out, rc = run(GROVE .. [[ -e 'error("boom")']])
    assert.equal(1, rc)
    assert.matches("^grove: %(command line%):1: boom", out)
  end)

  it("prints help, and refuses unknown commands with status 2", function()
    local out, rc = run(GROVE .. " help")
    assert.equal(0, rc)
    assert.matches("grove query", out, 1, true)
    out, rc = run(GROVE .. " no-such-command")
    assert.equal(2, rc)
    assert.matches("unknown command or file 'no%-such%-command'", out)
    out, rc = run(GROVE .. " help no-such-command")
    assert.equal(2, rc)
    assert.matches("no command 'no-such-command'", out, 1, true)
  end)
end)
