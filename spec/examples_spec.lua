-- The examples a user runs first (`make demo`, the packages' examples):
-- every script under examples/ runs to its end with exit status 0, and the
-- two demos print what they say they print.
local exe = require("exe_helper")

local function examples()
  local p = assert(io.popen("ls examples/*.lua"))
  local list = {}
  for f in p:lines() do list[#list + 1] = f end
  p:close()
  return list
end

-- What grove printed running the example at path and its exit status, run
-- once however many tests read it.
local runs = {}
local function run(path)
  if not runs[path] then runs[path] = table.pack(exe.run(exe.GROVE .. " " .. path)) end
  return runs[path][1], runs[path][2]
end

describe("examples", function()
  for _, f in ipairs(examples()) do
    it(f .. " runs to its end", function()
      local out, rc = run(f)
      assert.are.equal(0, rc, out)
      assert.is_nil(out:find("stack traceback", 1, true), out)
    end)
  end

  it("sim_demo shows each metric a run has, and none neither has", function()
    local out, rc = run("examples/sim_demo.lua")
    assert.are.equal(0, rc, out)
    assert.truthy(out:find("2000 generated jobs on 128 cores", 1, true), out)
    assert.truthy(out:match("\nmean wait %(s%)%s+[%d.]+%s+[%d.]+\n"), out)
    assert.truthy(out:match("\njobs%s+2000%s+2000\n"), out)
    -- no job of the demo is shown a start estimate: the rows of their
    -- accuracy are left out, not printed as a failure
    assert.is_nil(out:find("first est. within band", 1, true), out)
  end)

  it("demo prints the placements it makes", function()
    local out, rc = run("examples/demo.lua")
    assert.are.equal(0, rc, out)
    assert.truthy(out:find("succeeded", 1, true), out)
  end)
end)
