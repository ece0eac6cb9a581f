-- Placement policies on requests that name only cores (`flux run -n1`,
-- every job of `grove sim --procs-as core`): the walk passes through nodes
-- the request does not name, and a policy that scores or chooses nodes
-- must still decide which nodes the cores come from.  Each shipped policy,
-- as its C built-in and as its Lua twin, in Lua, `grove query` and `grove
-- sim`; spread as flux-core's worst-fit, in grove.flux too.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local grove = require("grove")
local exe = require("exe_helper")
local match = require("match_helper")
local h = require("flux_helper")
local R = grove.cluster.resources
local F = "spec/fixtures/levels/"

-- 4 nodes of 4 cores; gpus[i] GPUs on node i-1 and classes[i] its
-- perf_class when given.
local function machine(gpus, classes)
  local g = core.graph()
  local root = g:add_vertex{type = "cluster", basename = "lv", id = 0}
  for i = 0, 3 do
    local n = g:add_vertex{type = "node", id = i, rank = i, name = "n" .. i,
      properties = classes and {perf_class = tostring(classes[i + 1])} or nil}
    assert(g:add_child(root, n))
    for c = 0, 3 do assert(g:add_child(n, g:add_vertex{type = "core", id = c})) end
    for k = 0, (gpus and gpus[i + 1] or 0) - 1 do
      assert(g:add_child(n, g:add_vertex{type = "gpu", id = k}))
    end
  end
  return g
end

-- "node/core" of each core a job got, in order, joined by ",".
local function cores_of(j)
  local out = {}
  for _, p in ipairs(j.picks) do
    if p.vertex:type() == "core" then
      out[#out + 1] = p.vertex:parent():name() .. "/" .. p.vertex:id()
    end
  end
  table.sort(out)
  return table.concat(out, ",")
end

-- The cores of each of the jobs (jobspec tables) matched in turn under
-- policy (a name: the C built-in; a path: the Lua twin).
local function place(g, policy, jobs)
  local m = core.matcher(g)
  assert(m:set_policy(policy))
  local out = {}
  for _, t in ipairs(jobs) do
    local j, msg = m:match(match.compiled(t))
    out[#out + 1] = j and cores_of(j) or msg
  end
  m:close()
  return out
end

local ONE = {tasks = 1, cores_per_task = 1}
local function ones(n)
  local t = {}
  for i = 1, n do t[i] = ONE end
  return t
end

-- What each shipped policy gives five one-core jobs on the idle machine.
-- high and low rank the cores by their own ids across the machine, as the
-- reference engine ranks the top level of a request (docs/policies.md):
-- their node order is the graph's; hinode and lonode put the node first.
local EXPECT = {
  first = {"n0/0", "n0/1", "n0/2", "n0/3", "n1/0"},
  low = {"n0/0", "n1/0", "n2/0", "n3/0", "n0/1"},
  high = {"n0/3", "n1/3", "n2/3", "n3/3", "n0/2"},
  lonode = {"n0/0", "n0/1", "n0/2", "n0/3", "n1/0"},
  hinode = {"n3/3", "n3/2", "n3/1", "n3/0", "n2/3"},
  lonodex = {"n0/0,n0/1,n0/2,n0/3", "n1/0,n1/1,n1/2,n1/3", "n2/0,n2/1,n2/2,n2/3",
    "n3/0,n3/1,n3/2,n3/3", "no matching resources"},
  hinodex = {"n3/0,n3/1,n3/2,n3/3", "n2/0,n2/1,n2/2,n2/3", "n1/0,n1/1,n1/2,n1/3",
    "n0/0,n0/1,n0/2,n0/3", "no matching resources"},
  firstnodex = {"n0/0,n0/1,n0/2,n0/3", "n1/0,n1/1,n1/2,n1/3", "n2/0,n2/1,n2/2,n2/3",
    "n3/0,n3/1,n3/2,n3/3", "no matching resources"},
  fresh = {"n3/3", "n2/3", "n1/3", "n0/3", "n3/2"},
  freshnodex = {"n3/0,n3/1,n3/2,n3/3", "n2/0,n2/1,n2/2,n2/3", "n1/0,n1/1,n1/2,n1/3",
    "n0/0,n0/1,n0/2,n0/3", "no matching resources"},
  -- the emptiest node first, ties in rank order
  spread = {"n0/0", "n1/0", "n2/0", "n3/0", "n0/1"},
  -- the nodes in graph order: the tightest run of one node is the first
  locality = {"n0/0", "n0/1", "n0/2", "n0/3", "n1/0"},
}

describe("a request that names only cores", function()
  for name, want in pairs(EXPECT) do
    it("is placed by " .. name .. " (C and Lua twin alike)", function()
      assert.same(want, place(machine(), name, ones(5)))
      assert.same(want, place(machine(), "policies/" .. name .. ".lua", ones(5)))
    end)
  end

  it("is placed by gpu on the nodes with the fewest free GPUs", function()
    -- n0 and n1 have 2 GPUs, n2 and n3 none: CPU jobs keep off the GPU nodes
    for _, p in ipairs{"gpu", "policies/gpu.lua"} do
      assert.same({"n2/0", "n2/1", "n2/2", "n2/3", "n3/0"},
        place(machine({2, 2, 0, 0}), p, ones(5)), p)
      -- a job that asks for a GPU goes to the node with the most free
      assert.same({"n1/0"}, place(machine({1, 2, 0, 0}),
        p, {{tasks = 1, cores_per_task = 1, gpus_per_task = 1}}), p)
    end
  end)

  it("is placed by variation on the nodes of the best perf_class", function()
    for _, p in ipairs{"variation", "policies/variation.lua"} do
      assert.same({"n1/0", "n1/1", "n1/2", "n1/3", "n3/0"},
        place(machine(nil, {3, 1, 4, 2}), p, ones(5)), p)
    end
  end)

  it("calls a score hook of score_types node, and reports its failure", function()
    local pol = assert(core.policy_parse([[
      return {name = "mine", score_types = "node",
        score = function(v) return v:id() end}]], "mine.lua"))
    assert.same({"n3/0", "n3/1"}, place(machine(), pol, ones(2)))
    local bad = assert(core.policy_parse([[
      return {name = "bad", score_types = "node",
        score = function(v) error("no score for " .. v:name()) end}]], "bad.lua"))
    local m = core.matcher(machine())
    assert(m:set_policy(bad))
    local j, msg, code = m:match(match.compiled(ONE))
    assert.is_nil(j)
    assert.equal("ECANCELED", code)
    assert.matches("bad.lua:2: no score for n0", msg)
  end)

  it("tells the score the level below: the type it asks for and its need", function()
    local pol = assert(core.policy_parse([[
      return {name = "tell", score_types = "node", score = function(_, ctx)
        error(tostring(ctx.type) .. " " .. ctx.count, 0)
      end}]], "tell.lua"))
    local m = core.matcher(machine())
    assert(m:set_policy(pol))
    local bare = assert(core.jobspec_from_table(match.jobspec({{type = "core", count = 3}}, 60)))
    local _, msg = m:match(bare)
    assert.matches("core 3$", msg)
    -- a slot's home is searched: no type, nothing counted
    _, msg = m:match(match.compiled(ONE))
    assert.matches("nil 0$", msg)
  end)

  it("spreads over the nodes of every rack at once", function()
    -- 2 racks of 2 nodes: the emptiest node of the machine, not of rack 0
    local g = grove.cluster "r" {R.rack(2) {R.node(2) {R.core(4)}}}
    local m = core.matcher(g)
    assert(m:set_policy("spread"))
    assert(m:match(match.compiled{tasks = 3, cores_per_task = 1}))
    assert(m:match(match.compiled{tasks = 3, cores_per_task = 1}))
    assert(m:match(match.compiled{tasks = 3, cores_per_task = 1}))
    -- the first three nodes hold 3 each: rack1's node1 is the emptiest
    local j = assert(m:match(match.compiled(ONE)))
    local node = j.picks[#j.picks].vertex:parent()
    assert.same({"rack1", "node1"}, {node:parent():name(), node:name()})
  end)
end)

describe("spread as flux-core's worst-fit", function()
  for _, p in ipairs{"spread", "policies/spread.lua"} do
    it("fills the emptiest node first, ties in rank order (" .. p .. ")", function()
      -- one-core jobs go one to a node
      assert.same({"n0/0", "n1/0", "n2/0", "n3/0"}, place(machine(), p, ones(4)))
      -- four slots on the idle machine fill rank 0
      assert.same({"n0/0,n0/1,n0/2,n0/3"}, place(machine(), p, {{tasks = 4}}))
      -- after partial use the emptiest first, each filled as far as it goes
      assert.same({"n0/0,n0/1,n0/2", "n1/0,n1/1", "n2/0,n2/1,n2/2,n2/3,n3/0,n3/1"},
        place(machine(), p, {{tasks = 3}, {tasks = 2}, {tasks = 6}}))
      -- equal free cores: the node with more free GPUs first
      assert.same({"n2/0"}, place(machine({0, 1, 2, 0}), p, {ONE}))
      -- with a node count: slots_per_node on each node in that order
      assert.same({"n0/0,n0/1,n0/2", "n1/0,n2/0"},
        place(machine(), p, {{tasks = 3}, {nodes = 2, tasks = 2}}))
    end)
  end

  it("is what grove query places", function()
    local cmds = os.tmpname()
    local f = assert(io.open(cmds, "w"))
    for _ = 1, 3 do f:write("match allocate " .. F .. "core1.yaml\n") end
    f:write("quit\n")
    f:close()
    local out, rc = exe.run(exe.GROVE .. " query -L " .. F .. "r4x4.json -f rv1exec -P spread"
      .. " -F rlite < " .. cmds)
    os.remove(cmds)
    assert.equal(0, rc, out)
    local ranks = {}
    for r in out:gmatch('"rank": "(%d+)"') do ranks[#ranks + 1] = r end
    assert.same({"0", "1", "2"}, ranks)
  end)

  it("is what grove sim places with --procs-as core", function()
    local csv = os.tmpname()
    for _, p in ipairs{"spread", "policies/spread.lua"} do
      local out, rc = exe.run(exe.GROVE .. " sim --cluster " .. F .. "cluster.lua --trace "
        .. F .. "jobs.json --procs-as core --policy " .. p .. " --out " .. csv)
      assert.equal(0, rc, out)
      -- the hosts column, by its name in the header
      local hosts, col = {}, nil
      for line in io.lines(csv) do
        local cells = {}
        for c in (line .. ","):gmatch("([^,]*),") do cells[#cells + 1] = c end
        if not col then
          for i, c in ipairs(cells) do if c == "hosts" then col = i end end
        end
        hosts[#hosts + 1] = cells[col]
      end
      assert.same({"hosts", "n0", "n1", "n2", "n3"}, hosts)
    end
    os.remove(csv)
  end)

  it("is what the Flux module's scheduler places", function()
    local flux = require("grove.flux")
    local s = assert(flux.module(nil, {"placement-policy=spread"}))
    local acts = s:handle("resource.acquire", ('{"resources":%s,"up":"0-3"}'):format(
      h.R_text("0-3", "n[0-3]")))
    assert.is_table(acts)
    local ranks = {}
    for id = 1, 3 do
      local got = s:handle("sched.alloc", h.alloc(id, h.jobspec(1, 1, 60)))
      -- the module passes from its reactor (schedule), after the message
      for _, act in ipairs(s:schedule()) do got[#got + 1] = act end
      local a = h.by_id(got, "alloc", "success")
      ranks[id] = h.ranks_of(assert(a[id]))
    end
    assert.same({"0", "1", "2"}, ranks)
  end)
end)
