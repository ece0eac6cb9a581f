-- Specs for the readers' input limits as the Lua API shows them
-- (core.limits, GROVE_MAX_* in docs/security.md): every file loader
-- refuses /dev/zero at once with nil, a message and a code, never raising;
-- `grove query` does the same for a jobspec file.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, and must not be copied here.
local core = require "grove.core"
local exe = require "exe_helper"
local expect = require "expect"

local zero = "/dev/zero: byte 0 is NUL: not a text file"
local corpus = os.getenv "GROVE_CONFORMANCE" or "../shared/conformance"

describe("core.limits", function()
  it("reports the limits in force, defaults unless the environment says", function()
    local l = core.limits()
    assert.equal(1 << 30, l.input)
    assert.equal(1000000, l.depth)
    assert.equal(1 << 24, l.members)
    assert.equal(1 << 53, l.size)
    assert.is_true(l.vertices >= 1 and l.vertices <= 50000000)
  end)
end)

describe("every file loader", function()
  it("refuses /dev/zero at its first byte, with nil, message, code", function()
    expect.fails("EINVAL", zero, core.jgf_load("/dev/zero"))
    expect.fails("EINVAL", zero, core.grug_load("/dev/zero"))
    expect.fails("EINVAL", zero, core.jobspec_load("/dev/zero"))
    expect.fails("EINVAL", zero, core.rv1_load("/dev/zero"))
    expect.fails("EINVAL", zero, core.state_read("/dev/zero"))
    expect.fails("EINVAL", zero, core.hwloc_load { xml = "/dev/zero" })
  end)

  it("refuses an R that names four billion cores when it is read as a graph", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write('{"version":1,"execution":{"R_lite":[{"rank":"0","children":'
      .. '{"core":"0-4294967294"}}],"starttime":0,"expiration":0}}')
    f:close()
    local out, rc = exe.run(exe.GROVE .. " query -f rv1exec -L " .. path .. " </dev/null")
    os.remove(path)
    assert.equal(1, rc)
    assert.equal("grove query: cannot load " .. path .. ": R: its R_lite names more than "
      .. "16777216 resources (the limit: GROVE_MAX_MEMBERS)\n", out)
  end)

  it("in grove query, a jobspec file that is /dev/zero fails that command only", function()
    local out, rc = exe.run("printf 'match allocate /dev/zero\\nquit\\n' | " .. exe.GROVE
      .. " query -L " .. corpus .. "/fluxion/grugs/tiny.graphml")
    assert.equal(0, rc)
    assert.matches("Jobspec error for 1: " .. zero, out, 1, true)
  end)
end)
