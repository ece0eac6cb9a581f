-- grove.sim with whole nodes (procs_as = "node"): under a built-in
-- placement policy that only orders candidates the simulator asks for bare
-- exclusive nodes (one pick and one record a node); under the policy's Lua
-- twin it asks for the request as written (a slot of one core in each
-- node) through m:match.  Both must place every job on the same nodes at
-- the same time, failures included.  (locality chooses among whole
-- candidates and does tell the two requests apart: it gets the request as
-- written on both paths.)
--
-- Only whole-node requests are tested here; the rest of grove.sim is in
-- sim_spec.lua.
local grove = require("grove")
local sim = grove.sim
local gen = require("grove.sim.gen")
local helper = require("sim_helper")

-- 16 nodes of 2 sockets of 4 cores
local function machine()
  return helper.machine("w", 2, 8, 2, 4)
end

local function jobs_of(n, seed)
  local g = gen.new{procs = 16, seed = seed, estimate_factor = 3, arrival_factor = 0.02}
  local list = {}
  for j in g:jobs(n) do list[#list + 1] = j end
  return list
end

local function run(policy, queue, jobs)
  local rows = {}
  local s = assert(sim.new{graph = machine(), queue = queue, procs_as = "node", policy = policy,
    on_down = "requeue",
    out = function(r) rows[#rows + 1] = ("%d %s %d %d %s"):format(r.id, r.state, r.start,
      r["end"], r.hosts) end})
  s:node_event{time = 400, node = "n3", action = "down"}
  s:node_event{time = 900, node = "n[10-11]", action = "drain"}
  s:node_event{time = 2000, node = "n3", action = "up"}
  s:node_event{time = 2500, node = "n[10-11]", action = "up"}
  s:feed(sim.trace.from_list(jobs))
  s:run()
  table.sort(rows)
  return rows, s
end

describe("grove.sim Gantt placements", function()
  it("lists a job's nodes once each and in order, whatever order the policy picks them in",
    function()
      local jobs = jobs_of(60, 5)
      for _, p in ipairs{"low", "high", "policies/high.lua", "lonode", "hinode"} do
        local s = assert(sim.new{graph = machine(), queue = "easy", procs_as = "node",
          policy = p, gantt = 16})
        s:feed(sim.trace.from_list(jobs))
        s:run()
        local last = {}
        local recs = s:gantt_records()
        assert.is_true(#recs > 60)
        for _, r in ipairs(recs) do
          local key = r.id .. "@" .. r.start
          assert.is_true((last[key] or 0) < r.node, ("%s: job %d lists node %d after %d")
            :format(p, r.id, r.node, last[key] or 0))
          last[key] = r.node
        end
      end
    end)

  it("reads the node list off the picks in C (core.sim_nodes)", function()
    local core = require("grove.core")
    local of = {[10] = 1, [11] = 1, [12] = 2, [20] = 3, [21] = 3, [30] = 4}
    -- in order, a node's vertices together: each node once
    assert.same({1, 2, 3}, core.sim_nodes({10, 11, 12, 20, 21}, of))
    -- out of order, repeats apart, vertices no node holds (99)
    assert.same({1, 3, 4}, core.sim_nodes({30, 21, 99, 10, 20, 11, 30}, of))
    assert.same({}, core.sim_nodes({}, of))
    assert.has_error(function() core.sim_nodes({"x"}, of) end,
      "bad argument #1 to 'sim_nodes' (vertex ids expected)")
  end)

  it("keeps at most GANTT_MAX of them, the first, and says from when", function()
    local jobs = jobs_of(60, 5)
    local function placements(max)
      local saved = sim.GANTT_MAX
      sim.GANTT_MAX = max
      local s = assert(sim.new{graph = machine(), queue = "easy", procs_as = "node", gantt = 16})
      s:feed(sim.trace.from_list(jobs))
      local ok, ran, msg = pcall(s.run, s)
      sim.GANTT_MAX = saved
      assert(ok and ran, ok and msg or ran)
      return s:gantt_records()
    end
    local all, names, cut = placements(1e9)
    assert.is_nil(cut)
    assert.are.equal(16, #names)
    assert.is_true(#all > 40)
    local some, _, cut2 = placements(40)
    assert.are.equal(40, #some)
    assert.is_number(cut2)
    for i = 1, 40 do
      assert.are.same(all[i], some[i])
      assert.is_true(some[i].start <= cut2)
    end
    local path = os.tmpname()
    assert(require("grove.sim.plot").gantt(path, some, names, {nodes = 16, cut = cut2}))
    local f = assert(io.open(path))
    local svg = f:read("a")
    f:close()
    os.remove(path)
    assert.truthy(svg:find("jobs started before", 1, true))
  end)
end)

describe("grove.sim whole nodes", function()
  local jobs = jobs_of(60, 5)
  for _, q in ipairs{"easy", "conservative"} do
    for _, p in ipairs{"first", "low", "high", "lonode", "hinode", "lonodex", "hinodex",
      "firstnodex", "locality"} do
      it(("%s, %s: the bare node request places as the full one"):format(q, p), function()
        local fast, s = run(p, q, jobs)
        assert.is_true(s.fast)
        local full, t = run("policies/" .. p .. ".lua", q, jobs)
        assert.is_false(t.fast)
        assert.are.equal(60, #fast)
        assert.are.same(full, fast)
      end)
    end
  end
end)
