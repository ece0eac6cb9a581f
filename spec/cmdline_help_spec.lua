-- The grove executable's own help: --version, `grove help CMD` and
-- `grove CMD --help` for every command it knows.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local exe = require("exe_helper")

local GROVE, run = exe.GROVE, exe.run

-- Every command `grove help` lists, and the first line of its usage.
local COMMANDS = {
  {"query", "Usage: grove query"},
  {"acquire-replay", "Usage: grove acquire-replay"},
  {"sim", "Usage: grove sim"},
  {"run", "Usage: grove run SCRIPT"},
  {"-e", "Usage: grove -e CODE"},
  {"help", "Usage: grove help"},
  {"repl", "Usage: grove\n"},
}

describe("grove's help", function()
  it("prints the version of the module with --version and -V", function()
    local version = require("grove").version
    for _, flag in ipairs {"--version", "-V"} do
      local out, rc = run(GROVE .. " " .. flag)
      assert.equal(0, rc)
      assert.equal("grove " .. version .. " (" .. _VERSION .. "." , out:sub(1, #version + 16))
    end
  end)

  it("prints the same text with -h, --help and `grove help`", function()
    local help = run(GROVE .. " help")
    for _, flag in ipairs {"-h", "--help"} do
      local out, rc = run(GROVE .. " " .. flag)
      assert.equal(0, rc)
      assert.equal(help, out)
    end
  end)

  it("lists every command in `grove help`", function()
    local out, rc = run(GROVE .. " help")
    assert.equal(0, rc)
    for _, c in ipairs(COMMANDS) do
      if c[1] ~= "repl" then
        assert.truthy(out:find("grove " .. c[1], 1, true), c[1])
      end
    end
  end)

  for _, c in ipairs(COMMANDS) do
    it("prints the usage of " .. c[1] .. " with `grove help " .. c[1] .. "`", function()
      local out, rc = run(GROVE .. " help " .. c[1])
      assert.equal(0, rc)
      assert.equal(c[2], out:sub(1, #c[2]))
    end)
  end

  for _, c in ipairs(COMMANDS) do
    if c[1] ~= "repl" then
      it("prints the same usage with `grove " .. c[1] .. " --help`", function()
        local want = run(GROVE .. " help " .. c[1])
        local out, rc = run(GROVE .. " " .. c[1] .. " --help")
        assert.equal(0, rc)
        assert.equal(want, out)
      end)
    end
  end

  it("refuses an unknown topic with status 2", function()
    local out, rc = run(GROVE .. " help no-such-command")
    assert.equal(2, rc)
    assert.equal("grove help: no command 'no-such-command'\n", out)
  end)
end)
