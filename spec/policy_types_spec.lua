-- policy_types_spec: the type names a placement policy gives (prune_types,
-- score_types, order's when) are checked against the graph's types: with
-- the graph given to the loader, at load; without it, when a matcher takes
-- the policy (m:set_policy).  A misspelt name ("nodes") is refused with the
-- policy's file and line, never accepted to leave a hook silent.
local core = require("grove.core")
local grove = require("grove")
local R = grove.cluster.resources

local function graph()
  return grove.cluster "c" { R.node(2, {hostnames = "n[0-1]"}) { R.socket(2) { R.core(4) } } }
end

local HAS = ": the graph has cluster, core, node, socket"

describe("a policy's type names", function()
  it("are refused at load, with file and line, when the graph is given", function()
    local g = graph()
    for _, c in ipairs {
      {'return {\n  name = "x",\n  score_types = {"node", "cores"},\n' ..
        '  score = function() return 1 end,\n}\n',
        "pol.lua:3: score_types: unknown resource type 'cores' (did you mean 'core'?)" .. HAS},
      {'return {\n  prune_types = "nodes",\n  prune = function() return false end }\n',
        "pol.lua:2: prune_types: unknown resource type 'nodes' (did you mean 'node'?)" .. HAS},
      {'return {\n  order = { key = "id",\n    when = "nodes" } }\n',
        "pol.lua:3: order.when: unknown resource type 'nodes' (did you mean 'node'?)" .. HAS},
      -- a name the chunk computes is found on no line: the file alone
      {'local t = "no" .. "des"\nreturn { score_types = t }\n',
        "pol.lua: score_types: unknown resource type 'nodes' (did you mean 'node'?)" .. HAS},
    } do
      assert.same({nil, c[2], "EINVAL"}, {core.policy_parse(c[1], "pol.lua", {graph = g})})
    end
  end)

  it("are refused by m:set_policy when the policy was loaded without a graph", function()
    local g = graph()
    local p = assert(core.policy_parse('return {\n  score_types = "nodes" }\n', "pol.lua"))
    local m = core.matcher(g)
    assert.same({nil, "pol.lua:2: score_types: unknown resource type 'nodes' (did you mean "
      .. "'node'?)" .. HAS, "EINVAL"},
      {m:set_policy(p)})
    assert.equal("first", m:policy())   -- the policy in use stays
    -- the same policy file loaded through grove.policy with the graph
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write('return {\n  -- nodes first\n  order = {key = "id", when = "nodes"},\n}\n')
    f:close()
    local _, msg, code = require("grove.policy").load(path, {graph = g})
    os.remove(path)
    assert.same({path .. ":3: order.when: unknown resource type 'nodes' (did you mean 'node'?)"
      .. HAS, "EINVAL"},
      {msg, code})
  end)

  it("accept the graph's types and the standard ones, with or without the graph", function()
    local g = graph()
    local text = 'return { score_types = {"node", "gpu"}, prune_types = "socket",\n' ..
      'order = {key = "id", when = "core"} }'
    local p = assert(core.policy_parse(text, "ok.lua", {graph = g}))
    local m = core.matcher(g)
    assert.is_true(m:set_policy(p))
    assert.equal("ok", m:policy())
    assert(m:set_policy(assert(core.policy_parse(text, "ok2.lua"))))
    assert.equal("ok2", m:policy())
  end)

  it("raise on a graph option that is not a graph, and keep the other options' checks",
    function()
      assert.has_error(function() core.policy_parse("return {}", "x.lua", {graph = 5}) end,
        "bad argument #3 to 'policy_parse' (graph must be an open grove.graph)")
      assert.has_error(function()
        core.policy_parse("return {}", "x.lua", {graph = graph(), bogus = 1})
      end, "bad argument #3 to 'policy_parse' (unknown option 'bogus'; the options are " ..
        "budget, memory, time, graph)")
      local p = assert(core.policy_parse("return {}", "x.lua", {graph = graph(), budget = 5000}))
      assert.equal(5000, p:budget())
    end)
end)
