-- Specs for the rest of the resource model: several acquisition groups on
-- one graph, reservations that start when direct allocations end, jobs
-- that lose resources (shrink, down, drain) and their reservations planned
-- again, chosen windows, grow of a job, and a clock that moves job states.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, and must not be copied here.
local core = require("grove.core")
local expect = require("expect")
local mh = require("match_helper")

local fails = expect.fails

local function R(ranks)
  return {version = 1, execution = {R_lite = {{rank = ranks, children = {core = "0-3"}}}}}
end

-- One node with a slot of n cores for d seconds.
local function cores(n, d)
  return mh.jobspec({{type = "node", count = 1, with = {{type = "slot", count = 1,
    label = "default", with = {{type = "core", count = n}}}}}}, d)
end

local function nodes(n, d)
  return mh.jobspec({{type = "node", count = n, with = {{type = "slot", count = 1,
    label = "default", with = {{type = "core", count = 4}}}}}}, d)
end

local function count(g, t)
  local n = 0
  for _ in g:vertices{type = t} do n = n + 1 end
  return n
end

describe("several acquisition groups on one graph", function()
  it("each owns its targets; a grow of one leaves the other's alone", function()
    local g = core.graph()
    local m = core.matcher(g)
    local a1 = core.acquire(g, m, {group = "one", protocol = "v1"})
    local a2 = core.acquire(g, m, {group = "two", protocol = "v1"})
    assert(a1:apply{type = "grow", resources = R("0-3"), online = "0-3", offline = ""})
    assert(a2:apply{type = "grow", resources = R("4-5"), online = "4-5", offline = ""})
    assert.equal(6, count(g, "node"))
    assert.equal("0-3", tostring(a1:targets("usable")))
    assert.equal("4-5", tostring(a2:targets("usable")))
    -- six nodes of four cores: six jobs of a whole node each fit now
    for i = 1, 6 do
      local j = assert(m:match(cores(4, 100), "allocate"))
      assert.equal(i, j.id)
    end
    fails("EEXIST", "grow: target 2 belongs to resource group 'one'",
      a2:apply{type = "grow", resources = R("2"), online = "2", offline = ""})
  end)
end)

describe("reservations and direct allocations", function()
  it("a reservation may start when a record made on a vertex ends", function()
    local g = mh.tiny()
    local m = core.matcher(g)
    local n = 0
    for c in g:vertices{type = "core"} do
      n = n + 1
      if n <= 10 then assert(c:allocate(1, 1000 + n, {start = 0, duration = 3600})) end
    end
    local js = mh.jobspec({{type = "node", count = 2, with = {{type = "slot", count = 1,
      label = "default", with = {{type = "core", count = 36}}}}}}, 100)
    local j = assert(m:match(js, "allocate_orelse_reserve"))
    assert.same({"reserved", 3600, 3700}, {j.state, j.start, j["end"]})
  end)
end)

-- Four targets of four cores, one group, v1, with no jobs yet.
local function empty()
  local g = core.graph()
  local m = core.matcher(g)
  local a = core.acquire(g, m, {protocol = "v1"})
  assert(a:apply{type = "grow", resources = R("0-3"), online = "0-3", offline = ""})
  return a, g, m
end

-- The targets of empty(); jobs 1-2 run on targets 0-1 until 100, job 3 is
-- reserved on two nodes from 100.
local function busy()
  local a, g, m = empty()
  assert(m:match(cores(4, 100), "allocate"))
  assert(m:match(cores(4, 100), "allocate"))
  assert(m:match(nodes(2, 100), "allocate"))
  local r = assert(m:match(nodes(3, 100), "allocate_orelse_reserve"))
  assert.same({4, "reserved", 100}, {r.id, r.state, r.start})
  return a, g, m
end

local function ranks_of(m, id)
  local R1 = assert(m:rv1(id))
  return tostring(R1:ranks())
end

describe("jobs that lose resources", function()
  it("a shrink moves a reservation away and releases the target at once", function()
    local a, _, m = busy()
    assert.equal("0-2", ranks_of(m, 4))
    assert(m:cancel(1))
    local ev = assert(a:apply{type = "shrink", targets = "0"})
    assert.same({{id = 4, targets = "0", start = 100}}, ev.reservations)
    assert.same({{group = "default", targets = "0"}}, ev.release)
    assert.equal("0", ev.removed)
    assert.equal("1-3", ranks_of(m, 4))
  end)

  it("a drain plans the reservations on it again and lists the running jobs", function()
    local a, _, m = busy()
    local ok, ev = a:drain("2")
    assert.is_true(ok)
    assert.same({{id = 3, targets = "2"}}, ev.running)
    assert.same({{id = 4, targets = "2", start = 100}}, ev.reservations)
    assert.equal("0-1,3", ranks_of(m, 4))
    -- with a second target drained it fits nowhere: dropped
    ok, ev = a:drain("3")
    assert.is_true(ok)
    assert.same({{id = 4, targets = "3", dropped = true}}, ev.reservations)
    assert.is_nil(m:job(4))
  end)

  it("a reservation restored from a store is planned again as before the restart", function()
    local a, g, m = busy()
    local path = os.tmpname()
    local st = assert(core.store_open(path))
    assert(st:save(g, m, a))
    local l = assert(st:load())
    st:close()
    os.remove(path)
    os.remove(path .. "-wal")
    os.remove(path .. "-shm")
    local ok, ev = l.acquire:drain("2")
    assert.is_true(ok)
    assert.same({{id = 4, targets = "2", start = 100}}, ev.reservations)
    assert.equal("0-1,3", ranks_of(l.matcher, 4))
  end)

  it("down reports the running jobs as affected and moves reservations", function()
    local a, _, m = busy()
    local ev = assert(a:apply{type = "offline", targets = "0"})
    assert.same({{id = 1, targets = "0", note = "targets down"}}, ev.affected)
    assert.same({}, ev.exceptions)
    assert.same({{id = 4, targets = "0", start = 100}}, ev.reservations)
    assert.equal("1-3", ranks_of(m, 4))
  end)
end)

describe("jobs registered again from their R", function()
  it("hold exactly what their R names, in their window, and plan again from a request", function()
    local _, _, m1 = busy()
    local a, _, m = empty()
    for id = 1, 4 do
      local R1 = assert(m1:rv1(id))
      local j = assert(m:register(R1, id, {request = assert(m1:request(id))}))
      assert.same({m1:job(id).state, m1:job(id).start, m1:job(id)["end"]},
        {j.state, j.start, j["end"]})
      assert.is_true(R1:equal(assert(m:rv1(id))))
    end
    assert.equal(m1:request(4), m:request(4))
    -- the next decision is the same as before the restart
    assert.same({m1:match(cores(4, 10), "without_allocating_future").start},
      {m:match(cores(4, 10), "without_allocating_future").start})
    local ok, ev = a:drain("2")
    assert.is_true(ok)
    assert.same({{id = 4, targets = "2", start = 100}}, ev.reservations)
    assert.equal("0-1,3", ranks_of(m, 4))
  end)

  it("refuses what is not free, not there or not a window, and leaves the table alone", function()
    local _, _, m1 = busy()
    local _, g, m = empty()
    assert(m:register(assert(m1:rv1(1)), 1))
    local R1 = m1:rv1(1):encode()
    local R9 = '{"version": 1, "execution": {"R_lite": [{"rank": "9", "children": ' ..
      '{"core": "0"}}], "starttime": 0, "expiration": 100}}'
    local cases = {
      {R1, 7, nil, "EBUSY", "register: job 7: /cluster0/node0 is in use during [0, 100)"},
      {R1, 1, nil, "EEXIST", "register: job 1 exists"},
      {R9, 7, nil, "ENOENT", "rank 9"},
      {R1, 7, {request = "[]"}, "EBUSY", "in use"},
      {'{"version": 1}', 7, nil, "EINVAL", "R:1: top level"},
    }
    for _, c in ipairs(cases) do
      expect.fails_with(c[4], c[5], m:register(c[1], c[2], c[3]))
    end
    -- a bad request: nothing registered
    fails("EINVAL", "request: not a non-empty array of jobspecs",
      m:register(assert(m1:rv1(2)), 2, {request = "[]"}))
    assert.is_nil(m:job(2))
    assert.equal(1, #m:jobs())
    assert.equal(0, g:vertex("/cluster0/node1"):allocated())
    -- a window that is over
    m:set_now(200)
    fails("EINVAL", "register: job 2: its window ended at 100 (now 200)",
      m:register(assert(m1:rv1(2)), 2))
  end)

  it("refuses an option it does not know, and takes every one it does", function()
    local _, _, m1 = busy()
    local _, _, m = empty()
    local R2 = assert(m1:rv1(2))
    assert.has_error(function() m:register(R2, 2, {ned = 100}) end,
      "bad argument #3 to 'register' (unknown option 'ned' (did you mean 'end'?))")
    assert.is_nil(m:job(2))
    local j = assert(m:register(R2, 2, {start = 0, ["end"] = 100, request = assert(m1:request(2)),
      free = ""}))
    assert.same({0, 100}, {j.start, j["end"]})
  end)
end)

-- n nodes, each a slot of c cores and `amount` units of a channeled type.
local function channeled(n, c, t, amount, d)
  return mh.jobspec({{type = "node", count = n, with = {{type = "slot", count = 1,
    label = "default", with = {{type = "core", count = c}}}, {type = t, count = amount}}}}, d)
end

-- The picks of job j on the channel of subsystem s (nodes aside): {path
-- (in containment if it is there, else in s), amount}.
local function channel_picks(j, s)
  local out = {}
  for _, p in ipairs(j.picks) do
    local v = p.vertex
    if v:path(s) and v:type() ~= "node" then out[#out + 1] = {v:path() or v:path(s), p.amount} end
  end
  table.sort(out, function(x, y) return x[1] < y[1] end)
  return out
end

describe("channeled pools", function()
  it("take bandwidth on every conduit from the node up to the file system", function()
    local g = dofile "examples/iobw.lua"
    local m = core.matcher(g)
    local j = assert(m:match(channeled(2, 4, "bandwidth", 10, 100)))
    assert.same({{"/io0/pfs0", 20}, {"/io0/rack0/leaf0", 20}, {"/pfs0/leaf0/io0/bandwidth0", 10},
      {"/pfs0/leaf0/io1/bandwidth0", 10}}, channel_picks(j, "iobw"))
    assert.equal(20, g:vertex("/io0/rack0/leaf0"):allocated())
    assert.equal(20, g:vertex("/io0/pfs0"):allocated())
    -- more than a node's link can carry: never
    fails("ENODEV", "unsatisfiable request",
      m:match(channeled(1, 1, "bandwidth", 26, 100), "allocate_with_satisfiability"))
    -- released with the job
    assert(m:cancel(j.id))
    assert.equal(0, g:vertex("/io0/rack0/leaf0"):allocated())
    assert.equal(0, g:vertex("/io0/pfs0"):allocated())
  end)

  it("go around a full switch, and wait for it when every way is full", function()
    local g = dofile "examples/iobw.lua"
    local m = core.matcher(g)
    assert(g:vertex("/io0/rack0/leaf0"):allocate(190, 900, {start = 0, duration = 50}))
    local j = assert(m:match(channeled(1, 1, "bandwidth", 20, 100)))
    assert.same({{"/io0/pfs0", 20}, {"/io0/rack1/leaf0", 20}, {"/pfs0/leaf0/io4/bandwidth0", 20}},
      channel_picks(j, "iobw"))
    assert(g:vertex("/io0/rack1/leaf0"):allocate(170, 901, {start = 0, duration = 80}))
    j = assert(m:match(channeled(1, 1, "bandwidth", 20, 100), "allocate_orelse_reserve"))
    assert.same({"reserved", 50}, {j.state, j.start})
    assert.equal("/io0/rack0/leaf0", channel_picks(j, "iobw")[2][1])
  end)

  it("draw power from the node's feeds, its pdu's and the panel's", function()
    local g = dofile "examples/power.lua"
    local m = core.matcher(g)
    local j = assert(m:match(channeled(1, 1, "power", 15, 100)))
    assert.same({{"/powerpanel0/pdu0/node0/power0", 10}, {"/powerpanel0/pdu0/node0/power1", 5},
      {"/powerpanel0/pdu0/power0", 10}, {"/powerpanel0/pdu0/power1", 5},
      {"/powerpanel0/power0", 10}, {"/powerpanel0/power1", 5}}, channel_picks(j, "power"))
    assert(m:cancel(j.id))
    assert.equal(0, g:vertex("/powerpanel0/pdu0/power0", "power"):allocated())
  end)
end)

describe("channeled pools released in part", function()
  -- Units held now at the vertices with these paths in subsystem s.
  local function held(g, s, paths)
    local out = {}
    for i, p in ipairs(paths) do out[i] = g:vertex(p, s):allocated() end
    return out
  end

  it("a release by rank gives back the node's bandwidth on every conduit", function()
    local g = dofile "examples/iobw.lua"
    local m = core.matcher(g)
    local j = assert(m:match(channeled(2, 4, "bandwidth", 10, 100)))
    local path = {"/pfs0/leaf0/io0/bandwidth0", "/pfs0/leaf0/io1/bandwidth0", "/pfs0/leaf0",
      "/pfs0"}
    assert.same({10, 10, 20, 20}, held(g, "iobw", path))
    -- node io0, its socket, four cores, and its link
    assert.same({7, false}, {m:release_ranks(j.id, "0")})
    assert.same({0, 10, 10, 10}, held(g, "iobw", path))
    assert.same({{"/io0/pfs0", 10}, {"/io0/rack0/leaf0", 10}, {"/pfs0/leaf0/io1/bandwidth0", 10}},
      channel_picks(m:job(j.id), "iobw"))
    assert.equal(190, g:vertex("/io0/rack0/leaf0"):available())
    -- the last node takes the rest with it, and the job goes
    local _, gone = m:release_ranks(j.id, "1")
    assert.is_true(gone)
    assert.same({0, 0, 0, 0}, held(g, "iobw", path))
  end)

  it("a pool named in a release gives back its units on the path too", function()
    local g = dofile "examples/iobw.lua"
    local m = core.matcher(g)
    local j = assert(m:match(channeled(2, 4, "bandwidth", 10, 100)))
    local link = g:vertex("/pfs0/leaf0/io1/bandwidth0", "iobw")
    assert.same({1, false}, {m:release_vertices(j.id, {link})})
    assert.same({10, 0, 10, 10}, held(g, "iobw", {"/pfs0/leaf0/io0/bandwidth0",
      "/pfs0/leaf0/io1/bandwidth0", "/pfs0/leaf0", "/pfs0"}))
  end)

  it("a release by rank gives back the node's power on its pdu and the panel", function()
    local g = dofile "examples/power.lua"
    for k = 0, 1 do assert(g:vertex("/power0/rack0/node" .. k):set_rank(k)) end
    local m = core.matcher(g)
    local j = assert(m:match(channeled(2, 1, "power", 15, 100)))
    local function pdu0() -- the units held on pdu0's pools and the panel's
      local a, b = 0, 0
      for k = 0, 39 do a = a + g:vertex("/powerpanel0/pdu0/power" .. k, "power"):allocated() end
      for k = 0, 199 do b = b + g:vertex("/powerpanel0/power" .. k, "power"):allocated() end
      return {a, b}
    end
    assert.same({30, 30}, pdu0())
    assert.same({false}, {select(2, m:release_ranks(j.id, "1"))})
    assert.same({15, 15}, pdu0())
    assert.same({0, 0}, held(g, "power", {"/powerpanel0/pdu0/node1/power0",
      "/powerpanel0/pdu0/node1/power1"}))
    assert.same({10, 5}, held(g, "power", {"/powerpanel0/pdu0/node0/power0",
      "/powerpanel0/pdu0/node0/power1"}))
    assert(m:cancel(j.id))
    assert.same({0, 0}, pdu0())
  end)
end)

describe("channeled requests at the top of a jobspec", function()
  local function top(amount, with)
    local rs = {{type = "bandwidth", count = amount}}
    rs[2] = with
      or {type = "slot", count = 1, label = "default", with = {{type = "core", count = 1}}}
    return mh.jobspec(rs, 100)
  end

  it("take the flow of the job's own node, beside it in the request", function()
    local g = dofile "examples/iobw.lua"
    local m = core.matcher(g)
    -- io0 held whole by another job: its link is that job's
    assert(m:match(mh.jobspec({{type = "node", count = 1, exclusive = true, with = {{type = "slot",
      count = 1, label = "default", with = {{type = "core", count = 1}}}}}}, 100)))
    local j = assert(m:match(top(10, {type = "node", count = 1, with = {{type = "slot", count = 1,
      label = "default", with = {{type = "core", count = 4}}}}})))
    local node
    for _, p in ipairs(j.picks) do if p.vertex:type() == "node" then node = p.vertex:path() end end
    assert.equal("/io0/rack0/io1", node)
    assert.same({{"/io0/pfs0", 10}, {"/io0/rack0/leaf0", 10}, {"/pfs0/leaf0/io1/bandwidth0", 10}},
      channel_picks(j, "iobw"))
    -- a core's node whose link is too full: the first other node's
    j = assert(m:match(top(20)))
    assert.same({{"/io0/pfs0", 20}, {"/io0/rack0/leaf0", 20}, {"/pfs0/leaf0/io2/bandwidth0", 20}},
      channel_picks(j, "iobw"))
  end)

  it("need one path that carries them all", function()
    local g = dofile "examples/iobw.lua"
    local m = core.matcher(g)
    fails("ENODEV", "unsatisfiable request", m:match(top(26), "allocate_with_satisfiability"))
    -- released with the job
    local j = assert(m:match(top(25)))
    assert.equal(25, g:vertex("/io0/pfs0"):allocated())
    assert(m:cancel(j.id))
    assert.equal(0, g:vertex("/io0/pfs0"):allocated())
  end)
end)

describe("another subsystem as the dominant one", function()
  -- n slots, each a power unit beside an exclusive node and two units of
  -- the node's own power (the corpus's power/test002).
  local function slots(n)
    return mh.jobspec({{type = "slot", count = n, label = "default", with = {
      {type = "power", count = 2, exclusive = true},
      {type = "node", count = 1, exclusive = true, with = {
        {type = "power", count = 2, exclusive = true}}}}}}, 3600)
  end

  it("walks the power tree: power beside the node, one slot in each of two pdus", function()
    local g = dofile "examples/power.lua"
    local m = core.matcher(g)
    assert.equal("containment", m:dominant())
    assert(m:set_dominant("power"))
    assert.equal("power", m:dominant())
    assert(m:set_policy("low"))
    -- nine slots fill pdu0's first nine nodes and power units (their id
    -- sums, 2 to 18, beat pdu1's first, 20)
    assert(m:match(slots(9)))
    assert.same({1, 0}, {g:vertex("/powerpanel0/pdu0/node8", "power"):allocated(),
      g:vertex("/powerpanel0/pdu0/node9", "power"):allocated()})
    -- then pdu0's next slot (node9 + power9: 20) ties with pdu1's first
    -- (node18 + power0: 20): one in each
    local j = assert(m:match(slots(2)))
    local got = {}
    for _, p in ipairs(j.picks) do
      if p.exclusive then got[#got + 1] = p.vertex:path("power") end
    end
    table.sort(got)
    assert.same({"/powerpanel0/pdu0/node9", "/powerpanel0/pdu0/node9/power0",
      "/powerpanel0/pdu0/node9/power1", "/powerpanel0/pdu0/power9",
      "/powerpanel0/pdu1/node18", "/powerpanel0/pdu1/node18/power0",
      "/powerpanel0/pdu1/node18/power1", "/powerpanel0/pdu1/power0"}, got)
    -- back to containment: a slot of power beside a node finds none there,
    -- now or ever
    assert(m:set_dominant(nil))
    fails("ENODEV", "unsatisfiable request", m:match(slots(2)))
  end)

  it("its jobs, and jobs with channeled pools, come back from a store as they were", function()
    local g = dofile "examples/power.lua"
    local m = core.matcher(g)
    assert(m:set_dominant("power"))
    assert(m:set_policy("low"))
    local j1 = assert(m:match(slots(2)))
    assert(m:set_dominant(nil))
    assert(m:set_policy("lonodex"))
    local j2 = assert(m:match(channeled(1, 1, "power", 15, 100)))
    local path = os.tmpname()
    local st = assert(core.store_open(path))
    assert(st:save(g, m))
    local l = assert(st:load())
    st:close()
    for _, f in ipairs{"", "-wal", "-shm"} do os.remove(path .. f) end
    for _, id in ipairs{j1.id, j2.id} do
      local a, b = m:job(id), l.matcher:job(id)
      assert.equal(#a.picks, #b.picks)
      for i, p in ipairs(a.picks) do
        assert.same({p.vertex:vid(), p.amount, p.exclusive},
          {b.picks[i].vertex:vid(), b.picks[i].amount, b.picks[i].exclusive})
      end
    end
    -- the pools hold the same units (j2's 15 of pdu0 beside j1's two whole units)
    local held = {}
    for i = 0, 3 do
      local p = "/powerpanel0/pdu0/power" .. i
      held[#held + 1] = {g:vertex(p, "power"):allocated(), l.graph:vertex(p, "power"):allocated()}
    end
    assert.same({{10, 10}, {10, 10}, {10, 10}, {5, 5}}, held)
  end)

  it("fails with ENODEV on a graph without that subsystem", function()
    local m = core.matcher(mh.tiny())
    assert(m:set_dominant("power"))
    fails("ENODEV", "match: the graph has no power root", m:match(cores(1, 10)))
  end)
end)

-- cluster0 > node0-1 (ranks 0-1) > core0-3, memory0 (16 GB)
local function two_nodes()
  local g = core.graph()
  local c = g:add_vertex{type = "cluster", id = 0}
  for r = 0, 1 do
    local n = g:add_vertex{type = "node", id = r, rank = r}
    assert(g:add_child(c, n))
    for k = 0, 3 do assert(g:add_child(n, g:add_vertex{type = "core", id = k})) end
    assert(g:add_child(n, g:add_vertex{type = "memory", id = 0, size = 16, unit = "GB"}))
  end
  return g
end

describe("the rest of RFC 4", function()
  it("staged vertices are locked while considered: matches go around them", function()
    local g = two_nodes()
    local m = core.matcher(g)
    local n0, n1 = g:vertex("/cluster0/node0"), g:vertex("/cluster0/node1")
    assert.is_false(n0:staged())
    assert(n0:set_staged(true))
    assert.is_true(n0:staged())
    local j = assert(m:match(cores(4, 10), "without_allocating"))
    assert.equal("/cluster0/node1", j.picks[2].vertex:path())
    assert(n1:set_staged(true))
    fails("EBUSY", nil, m:match(cores(4, 10)))
    assert(m:match(cores(4, 10), "satisfiability"))
    assert(n0:set_staged(false))
    assert(m:match(cores(4, 10)))
    assert.has_error(function() n0:set_staged("yes") end)
  end)

  it("a pool written exclusive: false inside a slot gives only the units asked", function()
    local g = two_nodes()
    local m = core.matcher(g)
    local function slot(x)
      return mh.jobspec({{type = "slot", count = 1, label = "default", with = {
        {type = "core", count = 1}, {type = "memory", count = 4, exclusive = x}}}}, 10)
    end
    local mem = g:vertex("/cluster0/node0/memory0")
    local j = assert(m:match(slot(false)))
    assert.same({4, 12}, {mem:allocated(), mem:available()})
    -- two more fit beside it on the same pool
    assert(m:match(slot(false)))
    assert(m:match(slot(false)))
    assert.equal(12, mem:allocated())
    -- written exclusive (or left to the slot): the whole pool
    assert(m:cancel(j.id))
    local k = assert(m:match(slot(nil)))
    for _, p in ipairs(k.picks) do
      if p.vertex:type() == "memory" then assert.same({16, true}, {p.amount, p.exclusive}) end
    end
  end)

  it("an exclusive allocation of part of a pool records the whole pool", function()
    local g = two_nodes()
    local mem = g:vertex("/cluster0/node0/memory0")
    assert(mem:allocate(2, 7, {exclusive = true}))
    assert.same({16, 0}, {mem:allocated(), mem:available()})
    assert.same({16, true}, {mem:records()[1].amount, mem:records()[1].exclusive})
  end)

  it("finds vertices by size and by job", function()
    local g = two_nodes()
    local m = core.matcher(g)
    local j = assert(m:match(cores(4, 10)))
    local function paths(spec)
      local t = {}
      for v in g:vertices(spec) do t[#t + 1] = v:path() end
      return t
    end
    assert.same({"/cluster0/node0/memory0", "/cluster0/node1/memory0"}, paths{size = 16})
    assert.same({}, paths{size = 16, type = "core"})
    assert.same({"/cluster0", "/cluster0/node0", "/cluster0/node0/core0", "/cluster0/node0/core1",
      "/cluster0/node0/core2", "/cluster0/node0/core3"}, paths{job = j.id})
    assert.same({}, paths{job = 99})
  end)

  it("has the null state: not up, so not matched", function()
    local g = two_nodes()
    local m = core.matcher(g)
    assert(g:vertex("/cluster0/node0"):set_status("null"))
    assert.equal("null", g:vertex("/cluster0/node0"):status())
    local j = assert(m:match(cores(4, 10)))
    assert.equal("/cluster0/node1", j.picks[2].vertex:path())
    assert.same({"/cluster0/node0"}, (function()
      local t = {}
      for v in g:vertices{status = "null"} do t[#t + 1] = v:path() end
      return t
    end)())
  end)

  it("names vertices by URI, subsystem:/path", function()
    local g = dofile "examples/power.lua"
    local v = g:vertex("/power0/rack1/node18")
    assert.equal("containment:/power0/rack1/node18", v:uri())
    assert.equal("power:/powerpanel0/pdu1/node18", v:uri("power"))
    assert.equal(v, g:vertex("power:/powerpanel0/pdu1/node18"))
    assert.equal(v, g:vertex("containment:/power0/rack1/node18"))
    fails("ENOENT", "no vertex at power:/powerpanel0/pdu9", g:vertex("power:/powerpanel0/pdu9"))
    fails("ENOENT", "no vertex at iobw:/x", g:vertex("iobw:/x"))
    local p = g:vertex("power:/powerpanel0/power3")
    fails("ENOENT", "power3 is not in subsystem containment", p:uri())
  end)

  it("reads RFC 28's grow example as the RFC prints it, and says what it refuses", function()
    local g = core.graph()
    local a = core.acquire(g, core.matcher(g), {protocol = "v1"})
    -- R_lite an object, not a list; a comma before a closing brace
    local example = [[
   {
      "type": "grow",
      "resources": {
         "version": 1,
         "scheduling": {},
         "attributes": {},
         "execution": {
            "R_lite": {
               "rank": "1-6",
               "children": {}
	    }
         },
      },
      "online": "2-3",
      "offline": "1,4-6"
   }
]]
    assert(a:apply(example))
    assert.equal(6, g:count("node"))
    assert.equal("2-3", tostring(a:targets("up")))
    -- a missing comma has no one meaning: refused, where it is
    fails("EINVAL", "response: invalid JSON at line 1, column 24: '}' expected near " ..
      "'\"online\"'", a:apply('{"type": "grow" "online": ""}'))
    -- a comma inside a string is the string's
    expect.fails_with("EINVAL", "7,]", a:apply('{"type": "shrink", "targets": "7,]",}'))
    -- R_lite an object without a rank is not an entry
    expect.fails_with("EINVAL", "R_lite: expected an array, got an object",
      a:apply('{"type": "grow", "resources": {"version": 1, "execution": {"R_lite": ' ..
        '{"children": {}}}}, "online": "", "offline": ""}'))
  end)
end)

describe("chosen windows and grow", function()
  it("allocates in the window given or fails", function()
    local m = core.matcher(mh.tiny())
    local j = assert(m:match(cores(36, 100), "allocate", nil, {start = 500}))
    assert.same({"reserved", 500, 600}, {j.state, j.start, j["end"]})
    j = assert(m:match(cores(36, 100), "allocate", nil, {start = 550, ["end"] = 700}))
    assert.same({2, 550, 700}, {j.id, j.start, j["end"]})
    fails("EBUSY", "no matching resources",
      m:match(cores(36, 100), "allocate", nil, {start = 500}))
    fails("EINVAL", "match: the window ends at 10, not after its start (10)",
      m:match(cores(36, 100), "allocate", nil, {start = 10, ["end"] = 10}))
    expect.fails_with("EINVAL", "a chosen window takes the modes",
      m:match(cores(1, 100), "allocate_orelse_reserve", nil, {start = 10}))
  end)

  it("finds the earliest start at or after a time asked", function()
    local m = core.matcher(mh.tiny())
    -- tiny has 72 cores: one job of 36 till 100, one of 36 till 300
    assert(m:match(cores(36, 100), "allocate"))
    assert(m:match(cores(36, 300), "allocate"))
    -- room for 36 at 100; after 150: at 150 itself (36 free from 100 on)
    local j = assert(m:match(cores(36, 50), "without_allocating_future", nil, {after = 150}))
    assert.same({"matched", 150}, {j.state, j.start})
    -- the free half taken from 100 to 400: 36 more not before 300
    assert(m:match(cores(36, 300), "allocate_orelse_reserve"))
    j = assert(m:match(cores(36, 50), "without_allocating_future", nil, {after = 120}))
    assert.equal(300, j.start)
    -- a time before now is now
    j = assert(m:match(cores(36, 10), "without_allocating_future", nil, {after = -5}))
    assert.equal(300, j.start)
    -- reserved at or after the time, recorded there
    j = assert(m:match(cores(36, 10), "allocate_orelse_reserve", nil, {after = 500}))
    assert.same({"reserved", 500, 510}, {j.state, j.start, j["end"]})
    expect.fails_with("EINVAL", "a start not before a given time takes the modes",
      m:match(cores(1, 1), "allocate", nil, {after = 10}))
    assert.has_error(function() m:match(cores(1, 1), "allocate_orelse_reserve", nil,
      {after = 1.5}) end)
    assert.has_error(function() m:match(cores(1, 1), "allocate", nil,
      {after = 10, start = 10}) end)
  end)

  it("stops a search for a later start at its time limit and goes on where it stopped", function()
    -- tiny: two nodes of 36 cores.  One-core jobs fill them (first fit:
    -- the first 36 on one node), ending every 20 s on one node and every
    -- 20 s between them on the other: from 360 on the two hold 36 free
    -- cores between them but neither holds 36 until 710, so a search for
    -- a node's 36 cores tries some twenty instants that fail
    local function fill(m)
      for i = 1, 36 do assert(m:match(cores(1, 20 * i), "allocate")) end
      for i = 1, 36 do assert(m:match(cores(1, 10 + 20 * (i - 1)), "allocate")) end
    end
    local function vids(j)
      local out = {}
      for i, p in ipairs(j.picks) do out[i] = p.vertex:vid() end
      table.sort(out)
      return out
    end
    local m = core.matcher(mh.tiny())
    fill(m)
    local whole = assert(m:match(cores(36, 50), "without_allocating_future"))
    assert.equal(710, whole.start)
    -- a limit no search meets: each call tries one instant past its
    -- first, then stops and says where it goes on
    local after, stops, j = nil, 0
    repeat
      local msg, code, resume
      j, msg, code, resume = m:match(cores(36, 50), "allocate_orelse_reserve", nil,
        {after = after, limit = 1e-9})
      if not j then
        assert.equal("ETIMEDOUT", code)
        assert.matches("ran out of its time; it goes on from " .. resume, msg, 1, true)
        assert.is_true(resume > (after or 0) and resume <= 710)
        after, stops = resume, stops + 1
        -- nothing recorded by a search that stopped
        assert.equal(72, #m:jobs())
      end
    until j
    assert.is_true(stops >= 10, "stopped " .. stops .. " times")
    assert.same({"reserved", 710}, {j.state, j.start})
    assert.same(vids(whole), vids(j))
    -- core.sim_match takes the limit too (its eighth argument)
    local m2 = core.matcher(mh.tiny())
    fill(m2)
    local js = core.jobspec_from_table(cores(36, 50))
    local state, msg, code, resume = core.sim_match(m2, js, "allocate_orelse_reserve",
      100, "core", nil, nil, 1e-9)
    assert.same({nil, "ETIMEDOUT"}, {state, code})
    assert.matches("ran out of its time", msg, 1, true)
    local start
    assert.is_true(math.type(resume) == "integer" and resume > 0)
    after = resume
    repeat
      state, start, code, resume = core.sim_match(m2, js, "allocate_orelse_reserve",
        100, "core", nil, after, 1e-9)
      if not state then
        assert.equal("ETIMEDOUT", code)
        after = resume
      end
    until state
    assert.same({"reserved", 710}, {state, start})
    -- no limit, or one the search meets: one call as before
    local m3 = core.matcher(mh.tiny())
    fill(m3)
    assert.equal(710, assert(m3:match(cores(36, 50), "allocate_orelse_reserve", nil,
      {limit = 60})).start)
    assert.has_error(function() m3:match(cores(1, 1), "allocate", nil, {limit = "soon"}) end)
  end)

  it("grows an existing job over its own window", function()
    local m = core.matcher(mh.tiny())
    local j = assert(m:match(cores(4, 1000), "allocate"))
    assert.equal(4, m:info(j.id).counts.core)
    local g2 = assert(m:match(cores(6, 1), "grow", j.id))
    assert.same({j.id, 0, 1000}, {g2.id, g2.start, g2["end"]})
    assert.equal(10, m:info(j.id).counts.core)
    fails("ENOENT", "grow: no job 99", m:match(cores(1, 1), "grow", 99))
    fails("ENODEV", nil, m:match(cores(80, 1), "grow", j.id))
    assert.equal(10, m:info(j.id).counts.core)
    assert(m:cancel(j.id))
    for c in m:graph():vertices{type = "core"} do assert.equal(0, c:allocated()) end
  end)
end)

describe("a clock that moves", function()
  it("starts reservations, ends jobs and frees what they held", function()
    local m = core.matcher(mh.tiny())
    local g = m:graph()
    assert(m:match(cores(36, 100), "allocate"))
    assert(m:match(cores(36, 100), "allocate"))
    local r = assert(m:match(cores(36, 50), "allocate_orelse_reserve"))
    assert.same({3, "reserved", 100}, {r.id, r.state, r.start})
    assert.same({{event = "end", id = 1, at = 100}, {event = "end", id = 2, at = 100},
      {event = "start", id = 3, at = 100}}, m:set_now(120))
    assert.equal("allocated", m:job(3).state)
    assert.is_nil(m:job(1))
    -- the graph's own clock moves the states too, seen at the next look
    g:set_now(150)
    assert.is_nil(m:job(3))
    assert.same({event = "end", id = 3, at = 150}, m:events()[4])
    assert.equal(4, #m:events{clear = true})
    assert.same({}, m:events())
  end)

  it("refuses an events option it does not know", function()
    local m = core.matcher(mh.tiny())
    assert(m:match(cores(36, 100), "allocate"))
    m:set_now(120)
    assert.has_error(function() m:events{claer = true} end,
      "bad argument #1 to 'events' (unknown option 'claer' (did you mean 'clear'?))")
    assert.equal(1, #m:events{clear = true})
    assert.same({}, m:events())
  end)

  it("reports overdue jobs when the caller keeps them", function()
    local m = core.matcher(mh.tiny())
    assert(m:set_overdue("report"))
    assert(m:match(cores(4, 10), "allocate"))
    assert.same({{event = "overdue", id = 1, at = 10}}, m:set_now(20))
    assert.equal("allocated", m:job(1).state)
    assert.same({}, m:set_now(30))
  end)
end)

describe("RFC 16's allocated and available sets", function()
  it("are one call each: holders of units or inside an exclusive hold; units free", function()
    local g = two_nodes()
    assert.same({}, g:allocated())
    assert.equal(#g, #g:available())
    assert(g:allocate(g:vertex("/cluster0/node0"), 1, 7,
      {start = 0, duration = 100, exclusive = true}))       -- node0 whole
    assert(g:allocate(g:vertex("/cluster0/node1/core0"), 1, 8,
      {start = 0, duration = 50}))                          -- a core of node1
    local paths = {}
    for _, v in ipairs(g:allocated()) do paths[#paths + 1] = v:path() end
    table.sort(paths)
    assert.same({"/cluster0/node0", "/cluster0/node0/core0", "/cluster0/node0/core1",
      "/cluster0/node0/core2", "/cluster0/node0/core3", "/cluster0/node0/memory0",
      "/cluster0/node1/core0"}, paths)
    -- available: the cluster, node1 (shared), its three other cores, its memory
    paths = {}
    for _, v in ipairs(g:available()) do paths[#paths + 1] = v:path() end
    table.sort(paths)
    assert.same({"/cluster0", "/cluster0/node1", "/cluster0/node1/core1",
      "/cluster0/node1/core2", "/cluster0/node1/core3", "/cluster0/node1/memory0"}, paths)
    -- later: the core's job is over at 50, node0's at 100
    assert.equal(6, #g:allocated(60))
    assert.equal(#g, #g:available(100, 10))
    assert.equal(#g - 6, #g:available(60, 100))
    assert.equal(6, g:free_job(7) + 5) -- one record: node0's
    assert.equal(1, #g:allocated())
    assert.has_error(function() g:allocated(-1) end)
    assert.has_error(function() g:available(0, 0) end)
  end)
end)

describe("constraints as flux-core applies RFC 31", function()
  local function constrained(c)
    local t = cores(1, 10)
    t.attributes.system.constraints = c
    return t
  end

  it("count a node's hostname as one of its properties in the matcher", function()
    local g = two_nodes()
    local m = core.matcher(g)
    local function node_of(j)
      for _, p in ipairs(j.picks) do
        if p.vertex:type() == "node" then return p.vertex:path() end
      end
    end
    local j = assert(m:match(constrained{properties = {"node1"}}, "without_allocating"))
    assert.equal("/cluster0/node1", node_of(j))
    j = assert(m:match(constrained{properties = {"^node0"}}, "without_allocating"))
    assert.equal("/cluster0/node1", node_of(j))
    j = assert(m:match(constrained{properties = {"node0"}}, "without_allocating"))
    assert.equal("/cluster0/node0", node_of(j))
    fails("ENODEV", nil,
      m:match(constrained{properties = {"node0", "^node0"}}, "allocate_with_satisfiability"))
  end)

  it("filter rv by a constraint and map hosts to ranks", function()
    local rv = assert(core.rv1_decode([[{"version": 1, "execution": {"R_lite": [{"rank": "0-3",
      "children": {"core": "0-1"}}], "nodelist": ["foo[0-3]"], "properties": {"ssd": "1-2"},
      "starttime": 0, "expiration": 0}}]]))
    assert.equal("0", tostring(rv:filter{properties = {"foo0"}}:ranks()))
    assert.equal("0,2-3", tostring(rv:filter{properties = {"^foo1"}}:ranks()))
    assert.equal("1", tostring(rv:filter{properties = {"ssd", "^foo2"}}:ranks()))
    assert.equal("0-1", tostring(rv:filter('{"hostlist": ["foo[0-1]"]}'):ranks()))
    assert.equal("2-3", tostring(rv:filter(core.constraint{ranks = {"2-3"}}):ranks()))
    assert.equal("", tostring(rv:filter{properties = {"nope"}}:ranks()))
    local kept = rv:filter{properties = {"^ssd"}}
    assert.equal("foo[0,3]", tostring(kept:nodelist()))
    assert.same({}, kept:properties()) -- ssd was on the ranks left out
    assert.equal("1,3", tostring(rv:hosts_to_ranks("foo[3,1]")))
    fails("EINVAL", "invalid hosts: foo[7-8]", rv:hosts_to_ranks("foo[3,7-8]"))
    fails("EINVAL", nil, rv:filter{bogus = {}})
  end)
end)
