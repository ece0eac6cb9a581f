-- scripts/examples.lua, which `make docs` runs: every function of the API
-- reference (docs/api-src/*.luadoc) has an example that runs and prints
-- what it says, and a @return; a failure names the file, the line and the
-- reason, and the status is 1.
--
-- This file holds only specs: fixtures are in spec/fixtures/docs/.
local exe = require("exe_helper")

-- Run the checker with the build's grove: output, status.
local function examples(args)
  return exe.run(("%s run scripts/examples.lua %s"):format(exe.GROVE, args or ""))
end

describe("the API reference's examples", function()
  it("all run and print what they say", function()
    local out, rc = examples()
    assert.equal(0, rc, out)
    local n, run, failed = out:match("examples: (%d+) functions, (%d+) examples run, " ..
      "(%d+) failures")
    assert.equal("0", failed)
    assert.equal(n, run)                                -- every function has one
    assert.is_true(tonumber(n) >= 409, n)
  end)

  it("are compared line by line, with a trailing ... as any rest", function()
    local out, rc = examples("spec/fixtures/docs/good.luadoc")
    assert.equal(0, rc, out)
    assert.equal("examples: 1 functions, 1 examples run, 0 failures\n", out)
  end)

  it("fail with the file, line and reason of each entry that is not whole", function()
    local out, rc = examples("spec/fixtures/docs/bad.luadoc")
    assert.equal(1, rc)
    local F = "spec/fixtures/docs/bad.luadoc:"
    assert.equal(table.concat({
      F .. '7: wrong: example: line 1 printed "72", it says "71"',
      F .. "10: bare: no example (@usage)",
      F .. "17: silent: the example says nothing it prints (no --> line)",
      F .. "24: raises: example: example:2: boom",
      F .. "27: chatty: no @return (say `@return nothing`)",
      F .. '29: chatty: example: printed more than it says: "2"',
      F .. '36: short: example: printed 1 lines, it says 2 (the first missing: "2")',
      "examples: 6 functions, 5 examples run, 7 failures", ""}, "\n"), out)
  end)

  it("fail when a Lua function has more parameters than @param lines", function()
    local out, rc = examples("spec/fixtures/docs/params/grove.sim.luadoc")
    assert.equal(1, rc)
    local F = "spec/fixtures/docs/params/grove.sim.luadoc:"
    assert.equal(F .. "5: queue.parse: 1 @param for 3 parameters\n" ..
      F .. "12: new: 0 @param for 1 parameters\n" ..
      "examples: 2 functions, 2 examples run, 2 failures\n", out)
  end)
end)
