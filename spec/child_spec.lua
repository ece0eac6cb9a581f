-- Specs for child instances: a graph built from a job's R (with its
-- scheduling graph, or from R_lite alone) so that a child schedules
-- inside its parent's allocation with its own policy.  A parent and a
-- child (and a grandchild) with different policies run job streams; every
-- child job's R stays inside the parent job's R, the child never holds
-- more than the parent gave it, and a request larger than the allocation
-- is never satisfiable in the child.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local expect = require("expect")
local grove = require("grove")
local replay = require("grove.replay")

local C = grove.cluster
local R = C.resources

-- rack of 4 nodes, 2 sockets x 4 cores, a gpu per socket, a 16 GB pool
-- per node
local function machine()
  return C "big" {
    R.rack(1) {
      R.node(4, {hostnames = "n[0-3]", ranks = "0-3"}) {
        R.socket(2) {
          R.core(4, {id_scope = "node"}),
          R.gpu(1, {id_scope = "node"}),
        },
        R.memory(1, {size = 16, unit = "GB", id_scope = "node"}),
      },
    },
  }
end

local function request(t)
  return grove.jobspec(t)
end

-- The R of a job of matcher m (its picks).
local function job_R(m, job)
  local vs = {}
  for _, p in ipairs(job.picks) do vs[#vs + 1] = p.vertex end
  return assert(core.rv1_from_vertices(m:graph(), vs))
end

-- uuids of the vertices a job holds: its picks and everything under its
-- exclusive picks.
local function held_uuids(job)
  local set = {}
  local function below(v)
    set[v:uuid()] = true
    for c in v:children() do below(c) end
  end
  for _, p in ipairs(job.picks) do
    if p.exclusive then below(p.vertex) else set[p.vertex:uuid()] = true end
  end
  return set
end

describe("child instances", function()
  local g, m, parent_job, pR

  before_each(function()
    g = machine()
    m = core.matcher(g)
    assert(m:set_policy("low"))
    -- the parent is busy: a first job on the low end
    assert(m:match(request{nodes = 1, cores_per_node = 3, duration = 1000}))
    -- the job the child runs in: 2 nodes, 5 cores each, 6 GB per node
    local js = request{nodes = 2, cores_per_node = 5, duration = 1000}
    local node = js.resources[1]
    node.with[#node.with + 1] = {type = "memory", count = 6, exclusive = false}
    parent_job = assert(m:match(js))
    pR = job_R(m, parent_job)
  end)

  it("schedules inside the parent's allocation with its own policy", function()
    local c = assert(replay.child(m, parent_job.id, {policy = "high"}))
    assert.equal("high", c.matcher:policy())
    assert.equal("low", m:policy())
    -- the child's resources are exactly the job's
    assert.equal(tostring(pR:ranks()), c.acquire:targets("up"))
    assert.equal(10, c.graph:count("core"))
    assert.equal(pR:count("core"), c.graph:count("core"))
    for v in c.graph:vertices{type = "memory"} do
      assert.equal(6, v:size()) -- the part of the pool the job holds
    end
    local inside = held_uuids(parent_job)
    for v in c.graph:vertices() do
      assert.is_true(inside[v:uuid()] or false, "child vertex outside the job: " .. v:path())
    end
    -- a stream of child jobs until the allocation is full
    local n, first_R = 0, nil
    while true do
      local j = c.matcher:match(request{nodes = 1, cores_per_node = 1, duration = 100})
      if not j then break end
      n = n + 1
      local cr = job_R(c.matcher, j)
      -- inside the parent's R: nothing left over when the parent's R is taken away
      assert.equal(0, cr:diff(pR):count(), "child job outside the parent's R")
      assert.is_true(cr:intersect(pR):equal(cr))
      for _, p in ipairs(j.picks) do
        assert.is_true(inside[p.vertex:uuid()] or false)
      end
      if n == 1 then first_R = cr end
    end
    assert.equal(10, n) -- every core of the allocation, never one more
    -- the policies differ: the parent (low) took the lowest free cores
    -- (rank 0 cores 3-7 after the first job's 0-2, rank 1 cores 0-4), the
    -- child (high) starts from the top of what it was given
    assert.equal("0-1", tostring(pR:ranks()))
    assert.same({core = "3-7", memory = "0"}, pR:children(0))
    assert.same({core = "0-4", memory = "0"}, pR:children(1))
    assert.equal("1", tostring(first_R:ranks()))
    assert.same({core = "4"}, first_R:children(1))
    -- never more than the allocation, now or ever
    local ok, _, code = c.matcher:match(request{nodes = 3, cores_per_node = 1},
      "satisfiability")
    assert.is_nil(ok)
    assert.equal("ENODEV", code)
    ok, _, code = c.matcher:match(request{nodes = 1, cores_per_node = 6}, "satisfiability")
    assert.is_nil(ok)
    assert.equal("ENODEV", code)
    -- ...while the parent could run it
    assert(m:match(request{nodes = 3, cores_per_node = 1}, "satisfiability"))
  end)

  it("nests: a grandchild stays inside the child's job", function()
    local c = assert(replay.child(m, parent_job.id, {policy = "high"}))
    local cj = assert(c.matcher:match(request{nodes = 1, cores_per_node = 3, duration = 100}))
    local cR = job_R(c.matcher, cj)
    local gc = assert(replay.child(c.matcher, cj.id, {policy = "first"}))
    assert.equal(3, gc.graph:count("core"))
    local n = 0
    while true do
      local j = gc.matcher:match(request{nodes = 1, cores_per_node = 1, duration = 10})
      if not j then break end
      n = n + 1
      local r = job_R(gc.matcher, j)
      assert.equal(0, r:diff(cR):count())
      assert.equal(0, r:diff(pR):count())
    end
    assert.equal(3, n)
  end)

  it("works from R_lite alone (no scheduling graph)", function()
    local Rc = assert(core.child_resources(m, parent_job.id))
    local lite = assert(core.rv1_decode(Rc:encode{graph = false}))
    assert.is_nil(lite:to_table().scheduling)
    local cg = core.graph()
    local cm = core.matcher(cg)
    assert(cm:set_policy("high"))
    local ca = core.acquire(cg, cm)
    assert(ca:apply(core.acquire_first_response(lite)))
    assert.equal(10, cg:count("core"))
    local n = 0
    while cm:match(request{nodes = 1, cores_per_node = 1}) do n = n + 1 end
    assert.equal(10, n)
    for _, j in ipairs(cm:jobs()) do
      assert.equal(0, job_R(cm, j):diff(pR):count())
    end
  end)

  it("follows the parent's R when a node of it goes away", function()
    local c = assert(replay.child(m, parent_job.id, {policy = "high"}))
    local ranks = pR:ranks()
    local gone = ranks:last()
    -- the enclosing instance shrinks the child by one target
    local ev = assert(c.acquire:apply{down = tostring(gone), shrink = tostring(gone)})
    assert.equal(tostring(gone), ev.removed)
    local n = 0
    while c.matcher:match(request{nodes = 1, cores_per_node = 1}) do n = n + 1 end
    assert.equal(5, n)
  end)

  it("refuses a job that does not exist", function()
    expect.fails("ENOENT", "no job 99", replay.child(m, 99))
  end)
end)
