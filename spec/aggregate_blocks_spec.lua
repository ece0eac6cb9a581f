-- The aggregates of blocks of a wide vertex's children (core/aggregate.c,
-- blk_of; the aggregates' "blocks=N"): a walk over the children of a
-- vertex with many passes by a block that cannot hold what it looks for;
-- and the nodes in use over time (core/aggregate.c, "idle=1"): a window with
-- too few nodes wholly idle for the nodes a request asks exclusive is
-- ruled out whole.  They only ever prune: every placement, start and
-- failure must be the one the same graph gives without them, on random
-- streams of
-- allocations, reservations, cancellations, partial releases, clock
-- moves and status changes, under every built-in policy and a Lua one.
--
-- This file holds only specs: what several specs share lives in
-- spec/*_helper.lua, fixtures in spec/fixtures/, and must not be copied
-- here.
local core = require("grove.core")
local exe = require("exe_helper")
local match = require("match_helper")
local streams = require("stream_helper")

local machine = match.racked

local lcg = match.lcg

local SHAPES = {
  {tasks = 1, cores_per_task = 1, duration = 10},
  {tasks = 1, cores_per_task = 3, duration = 20},
  {tasks = 2, cores_per_task = 4, duration = 30},
  {tasks = 1, cores_per_task = 1, gpus_per_task = 1, duration = 10},
  {tasks = 1, cores_per_task = 1, gpus_per_task = 2, duration = 40},
  {nodes = 1, cores_per_node = 2, exclusive = true, duration = 10},
  {nodes = 6, cores_per_node = 1, exclusive = true, duration = 20},
  {nodes = 3, tasks = 3, cores_per_task = 2, duration = 30},
  {nodes = 12, cores_per_node = 4, exclusive = true, duration = 50},
  -- constraints: whole blocks of nodes none of which meets them are passed
  {nodes = 1, tasks = 1, duration = 20, constraints = {hostlist = {"n[13-18]"}}},
  {tasks = 1, cores_per_task = 2, duration = 10, constraints = {properties = {"hi"}}},
  {nodes = 2, cores_per_node = 1, exclusive = true, duration = 30,
    constraints = {properties = {"^hi"}}},
}

-- One stream on two graphs alike but for the aggregates' blocks (4
-- children a block, and none): what each step gave on each, and the
-- children the first passed by their blocks.
local function stream(seed, steps, racks, nodes, policy)
  local rnd = lcg(seed)
  local run = {}
  local n
  for k, spec in ipairs{"blocks=4", "blocks=0,idle=0"} do
    local g
    g, n = machine(racks, nodes)
    assert(g:set_aggregates("ALL:core,ALL:node,ALL:gpu," .. spec))
    local m = core.matcher(g)
    if policy then assert(m:set_policy(policy)) end
    run[k] = streams.run(g, m)
  end
  local shapes = streams.compiled(SHAPES)
  local now = 0
  streams.steps(run, steps, streams.drawer(rnd, #shapes, n), {
    {65, function(r, d) return streams.allocate(r, shapes[d.shape]) end},
    {78, function(r, d) return streams.cancel(r, d.victim) end},
    -- a partial release of one of a job's nodes (its records shrink)
    {84, function(r, d)
      if #r.live > 0 then
        local id = r.live[d.victim % #r.live + 1]
        return "release " .. tostring(r.m:release_ranks(id, tostring(d.node)))
      end
    end},
    {93, function(r) return streams.clock(r, now + 7) end, function() now = now + 7 end},
    {100, streams.drawn_status},
  })
  local st = run[1].m:stats()
  assert.equal(0, run[2].m:stats().blocks_passed)
  assert.equal(0, run[2].m:stats().idle_pruned)
  for _, r in ipairs(run) do r.m:close() end
  return run[1].log, run[2].log, st.blocks_passed, st.idle_pruned
end

describe("the aggregates of blocks of a wide vertex's children", function()
  it("place every job as the graph without them, on random streams", function()
    local policies = {{"default"}}
    for _, name in ipairs(match.BUILTINS) do policies[#policies + 1] = {name, name} end
    -- a Lua policy: its hooks see the same candidates
    policies[#policies + 1] = {"spread (Lua)",
      assert(core.policy_parse(exe.read("policies/spread.lua"), "policies/spread.lua"))}
    local passed, pruned = 0, 0
    for _, pol in ipairs(policies) do
      for _, shape in ipairs{{0, 40}, {2, 24}} do
        for seed = 1, 3 do
          local got, want, p, i = stream(seed, 150, shape[1], shape[2], pol[2])
          assert.same(want, got, ("%s, %d racks of %d nodes, seed %d"):format(pol[1], shape[1],
            shape[2], seed))
          passed, pruned = passed + p, pruned + i
        end
      end
    end
    -- the blocks did pass children by, and the idle bound did rule
    -- windows out (else this would test nothing)
    assert.is_true(passed > 1000, passed .. " passed")
    assert.is_true(pruned > 100, pruned .. " pruned")
  end)

  it("are set with the aggregates, and a bad count is refused with the reason", function()
    local g = machine(0, 40)
    assert.equal("ALL:core,ALL:node,ALL:gpu", g:aggregates())
    assert.is_true(g:set_aggregates("ALL:core,blocks=8"))
    assert.equal("ALL:core,blocks=8", g:aggregates())
    for _, bad in ipairs{"blocks=1", "blocks=x", "blocks=", "blocks=-2", "blocks=65537",
      "blocks=99999999999999999999"} do
      local ok, msg, code = g:set_aggregates("ALL:core," .. bad)
      assert.is_nil(ok, bad)
      assert.equal(("aggregates: '%s' is not blocks=N (children a block: 0 for none, or 2 to "
        .. "65536)"):format(bad), msg)
      assert.equal("EINVAL", code)
      assert.equal("ALL:core,blocks=8", g:aggregates()) -- as it was
    end
    assert.is_true(g:set_aggregates("ALL:core,ALL:node,idle=0"))
    for _, bad in ipairs{"idle=2", "idle=", "idle=yes"} do
      local ok, msg, code = g:set_aggregates("ALL:core," .. bad)
      assert.is_nil(ok, bad)
      assert.equal(("aggregates: '%s' is not idle=0 or idle=1"):format(bad), msg)
      assert.equal("EINVAL", code)
      assert.equal("ALL:core,ALL:node,idle=0", g:aggregates())
    end
  end)

  it("rule out a window with too few nodes wholly idle, whatever the cores free", function()
    -- 256 nodes of 4 cores: a core held on each of 200 of them now; 64
    -- exclusive nodes do not fit now (56 idle), but after the cores' end
    local R = '{"version":1,"execution":{"R_lite":[{"rank":"0-255","children":' ..
      '{"core":"0-3"}}],"starttime":0,"expiration":0,"nodelist":["n[0-255]"]}}'
    local g = assert(assert(core.rv1_decode(R)):to_graph())
    local m = core.matcher(g)
    assert(m:match(match.compiled{nodes = 200, tasks = 200, cores_per_task = 1, duration = 100}))
    m:reset_stats()
    local j = assert(m:match(match.compiled{nodes = 64, cores_per_node = 4, exclusive = true,
      duration = 50}, "allocate_orelse_reserve"))
    assert.equal("reserved", j.state)
    assert.equal(100, j.start)
    assert.equal(1, m:stats().idle_pruned) -- now, not looked for node by node
    m:close()
  end)

  it("pass a block none of whose nodes meets the job's constraint, asked again when "
    .. "the graph changes", function()
    -- 256 nodes below the cluster: four blocks of 64; only n200 has "x"
    local R = '{"version":1,"execution":{"R_lite":[{"rank":"0-255","children":' ..
      '{"core":"0-3"}}],"starttime":0,"expiration":0,"nodelist":["n[0-255]"],' ..
      '"properties":{"x":"200"}}}'
    local g = assert(assert(core.rv1_decode(R)):to_graph())
    local m = core.matcher(g)
    local X = match.compiled{nodes = 1, tasks = 1, constraints = {properties = {"x"}}}
    local function node_of(j)
      for _, p in ipairs(j.picks) do
        if p.vertex:type() == "node" then return p.vertex:name() end
      end
    end
    local j = assert(m:match(X))
    assert.equal("n200", node_of(j))
    -- the three blocks before n200's passed whole, and 8 of its own one by one
    assert.equal(192, m:stats().blocks_passed)
    m:reset_stats()
    -- a slot of cores, not of a node: walked for the slot's home alike
    j = assert(m:match(match.compiled{tasks = 1, cores_per_task = 2,
      constraints = {properties = {"x"}}}))
    assert.equal("n200", node_of(j))
    assert.equal(192, m:stats().blocks_passed)
    m:reset_stats()
    -- a hostlist: the blocks of n0-n127 passed, n130 found in the third
    j = assert(m:match(match.compiled{nodes = 1, tasks = 1,
      constraints = {hostlist = {"n[130-131]"}}}))
    assert.equal("n130", node_of(j))
    assert.equal(128, m:stats().blocks_passed)
    -- a node of the first block given "x": found there at the next match
    assert(g:vertex("n5"):set_property("x", ""))
    j = assert(m:match(X))
    assert.equal("n5", node_of(j))
    m:close()
  end)

  it("pass a full block of a machine read from R with one look", function()
    -- 256 nodes below the cluster: four blocks of 64; the first three
    -- held whole, a one-core job passes their 192 nodes by three blocks
    local R = '{"version":1,"execution":{"R_lite":[{"rank":"0-255","children":' ..
      '{"core":"0-3"}}],"starttime":0,"expiration":0,"nodelist":["n[0-255]"]}}'
    local g = assert(assert(core.rv1_decode(R)):to_graph())
    local m = core.matcher(g)
    assert(m:match(match.compiled{nodes = 192, cores_per_node = 4, exclusive = true}))
    m:reset_stats()
    local j = assert(m:match(match.compiled{tasks = 1, cores_per_task = 1}))
    assert.equal("n192", j.picks[#j.picks].vertex:parent():name())
    assert.equal(192, m:stats().blocks_passed)
    m:close()
  end)

  it("pass full blocks after a candidate is found, not only before the first", function()
    -- 256 nodes below the cluster: n0 free, n1-n191 held whole, n192- free:
    -- two exclusive nodes are n0 and n192, and the walk from n0 passes the
    -- rest of n0's block one by one, the next two blocks whole
    local R = '{"version":1,"execution":{"R_lite":[{"rank":"0-255","children":' ..
      '{"core":"0-3"}}],"starttime":0,"expiration":0,"nodelist":["n[0-255]"]}}'
    local g = assert(assert(core.rv1_decode(R)):to_graph())
    local m = core.matcher(g)
    local one = match.compiled{nodes = 1, cores_per_node = 4, exclusive = true}
    local first = assert(m:match(one))
    assert(m:match(match.compiled{nodes = 191, cores_per_node = 4, exclusive = true}))
    assert(m:cancel(first.id))
    m:reset_stats()
    local j = assert(m:match(match.compiled{nodes = 2, cores_per_node = 4, exclusive = true}))
    local nodes = {}
    for _, p in ipairs(j.picks) do
      if p.vertex:type() == "node" then nodes[#nodes + 1] = p.vertex:name() end
    end
    assert.same({"n0", "n192"}, nodes)
    assert.equal(128, m:stats().blocks_passed)
    m:close()
  end)
end)
