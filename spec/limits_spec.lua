-- Specs for the readers' input limits as the Lua API shows them
-- (core.limits, GROVE_MAX_* in docs/security.md): every file loader
-- refuses /dev/zero at once with nil, a message and a code, never raising;
-- `grove query` does the same for a jobspec file.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, and must not be copied here.
local core = require("grove.core")
local exe = require("exe_helper")
local expect = require("expect")

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
    f:write('{"version":1,"execution":{"R_lite":[{"rank":"0","children":{"core":"0-3"}},\n'
      .. '{"rank":"1","children":\n{"core":"0-4294967294"}}],"starttime":0,"expiration":0}}')
    f:close()
    local why = path .. ":2: execution.R_lite[1]: with this entry the R_lite names more than "
      .. "16777216 resources (the limit: GROVE_MAX_MEMBERS)"
    expect.fails("EOVERFLOW", why, core.rv1_graph_load(path))
    local out, rc = exe.run(exe.GROVE .. " query -f rv1exec -L " .. path .. " </dev/null")
    os.remove(path)
    assert.equal(1, rc)
    assert.equal("grove query: cannot load " .. path .. ": " .. why .. "\n", out)
  end)

  it("counts a recipe's vertices before building any, and checks its pool sizes", function()
    local function recipe(scale, size)
      return table.concat {
        '<graphml><key id="root" for="node" attr.name="root"/>\n',
        '<key id="type" for="node" attr.name="type"/>\n',
        '<key id="size" for="node" attr.name="size"/>\n',
        '<key id="multi_scale" for="edge" attr.name="multi_scale"/><graph id="g">\n',
        '<node id="c"><data key="root">1</data><data key="type">cluster</data></node>\n',
        '<node id="n"><data key="type">node</data></node>\n',
        '<node id="k"><data key="type">core</data><data key="size">', size, '</data></node>\n',
        '<edge source="c" target="n"><data key="multi_scale">', scale, '</data></edge>\n',
        '<edge source="n" target="k"><data key="multi_scale">', scale, '</data></edge>\n',
        '</graph></graphml>\n'}
    end
    -- 10^9 nodes of 10^9 cores: refused at the edge that passes the limit
    expect.fails("EOVERFLOW", "recipe:8: the recipe generates more than " .. core.limits().vertices
      .. " vertices (the limit: GROVE_MAX_VERTICES or the max_vertices option)",
      core.grug_read(recipe(1000000000, 1)))
    -- 1 + 30 + 900 vertices: the limit is on their sum
    expect.fails("EOVERFLOW", "recipe:9: the recipe generates more than 930 vertices (the "
      .. "limit: GROVE_MAX_VERTICES or the max_vertices option)",
      core.grug_read(recipe(30, 1), {max_vertices = 930}))
    assert.equal(931, #assert(core.grug_read(recipe(30, 1), {max_vertices = 931})))
    expect.fails("EOVERFLOW", 'recipe:7: node "k": size 9007199254740993 is larger than the '
      .. "pool size limit 9007199254740992 (GROVE_MAX_SIZE)",
      core.grug_read(recipe(2, (1 << 53) + 1)))
    assert(core.grug_read(recipe(2, 1 << 53)))
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write(recipe(2, 200))
    f:close()
    local out, rc = exe.run("GROVE_MAX_SIZE=100 " .. exe.GROVE .. " query -L " .. path
      .. " </dev/null")
    os.remove(path)
    assert.equal(1, rc)
    assert.equal("grove query: cannot load " .. path .. ": " .. path .. ':7: node "k": size 200 '
      .. "is larger than the pool size limit 100 (GROVE_MAX_SIZE)\n", out)
  end)

  it("holds the cluster DSL's pool sizes to GROVE_MAX_SIZE", function()
    local C = require("grove.cluster")
    local node, memory = C.resources.node, C.resources.memory
    assert.has_error(function()
      C "c" { node(1) { memory(1, {size = (1 << 53) + 1}) } }
    end, "grove.cluster: memory: size 9007199254740993 is larger than the pool size limit "
      .. "9007199254740992 (GROVE_MAX_SIZE)")
    assert.has_error(function()
      C("c", {size = (1 << 53) + 1}) { node(1) }
    end, "grove.cluster: cluster: size 9007199254740993 is larger than the pool size limit "
      .. "9007199254740992 (GROVE_MAX_SIZE)")
    local g = C "c" { node(1) { memory(1, {size = 1 << 53}) } }
    assert.equal(1 << 53, g:vertex("/c0/node0/memory0"):size())
  end)

  it("in grove query, a jobspec file that is /dev/zero fails that command only", function()
    local out, rc = exe.run("printf 'match allocate /dev/zero\\nquit\\n' | " .. exe.GROVE
      .. " query -L " .. corpus .. "/fluxion/grugs/tiny.graphml")
    assert.equal(0, rc)
    assert.matches("Jobspec error for 1: " .. zero, out, 1, true)
  end)
end)
