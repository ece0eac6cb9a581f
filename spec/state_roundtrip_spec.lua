-- Specs for state files over the conformance corpus: every graph Grove
-- reads from the corpus (GRUG recipes, JGF, R, hwloc XML), with a job
-- allocated and one reserved where the graph has a core to give, is
-- written with core.state_write and read back with core.state_read; the
-- vertices, pools, edges (direction and pairing included), records and jobs
-- must come back the same.  Also a vertex type with a '/' in it, which the
-- graph refuses at the door rather than write a file it cannot read.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local expect = require("expect")
local jobspec = require("grove.jobspec")

local corpus = (os.getenv("GROVE_CONFORMANCE") or "../shared/conformance") .. "/fluxion"

-- Corpus files Grove refuses to read, with the reason: nothing to round-trip.
local refused = {
  ["hwloc-data/001N/amd_gpu/corona11.xml"] = "storage device nvme0n1 has no Size",
  ["rv1exec/cancel/rank1_cancel_invalid.json"] = 'invalid idset "-1"',
}

local function load(f)
  local path = corpus .. "/" .. f
  if f:match "%.graphml$" then return core.grug_load(path) end
  if f:match "^hwloc%-data/" then return core.hwloc_load{xml = path} end
  if f:match "^rv1exec/" then
    local r, msg, code = core.rv1_load(path)
    if not r then return nil, msg, code end
    return r:to_graph()
  end
  return core.jgf_load(path)
end

-- Everything the Lua API shows of a graph and its jobs, as plain tables.
local function view(g, m)
  local v = {vertices = {}, edges = {}, jobs = {}, now = g:now(), expiration = g:expiration()}
  for x in g:vertices() do
    v.vertices[#v.vertices + 1] = {x:vid(), x:type(), x:name(), x:basename(), x:id(), x:rank(),
      x:size(), x:unit(), x:uuid(), x:path(), x:status(), x:properties(), x:tags(), x:records()}
  end
  for e in g:edges() do
    local o = e:opposite()
    -- one string an edge, sorted: a file lists each pair downward first
    v.edges[#v.edges + 1] = table.concat({e:src():vid(), e:dst():vid(), e:subsystem(),
      e:relation(), tostring(e:is_up()), o and o:src():vid() or "-", o and o:dst():vid() or "-",
      o and o:relation() or "-"}, " ")
  end
  table.sort(v.edges)
  for _, j in ipairs(m and m:jobs() or {}) do
    local picks = {}
    for _, p in ipairs(j.picks) do picks[#picks + 1] = {p.vertex:vid(), p.amount, p.exclusive} end
    v.jobs[#v.jobs + 1] = {j.id, j.state, j.start, j["end"], picks}
  end
  return v
end

-- A temporary file's name, new for each test of the describe block this
-- is called in (tmp.path), removed after it.
local function tmp_file()
  local tmp = {}
  before_each(function() tmp.path = os.tmpname() end)
  after_each(function() os.remove(tmp.path) end)
  return tmp
end

-- g and m written to a state file at path and read back: the same graph,
-- jobs and JGF.
local function round_trip(path, g, m)
  assert.is_true(core.state_write(path, g, m))
  local l = assert(core.state_read(path))
  assert.same(view(g, m), view(l.graph, l.matcher))
  assert.equal(g:to_jgf{state = true, compact = true},
    l.graph:to_jgf{state = true, compact = true})
end

local files = {}
local find = "cd " .. corpus .. " && find grugs jgfs rv1exec hwloc-data -type f | sort"
for f in io.popen(find):lines() do
  files[#files + 1] = f
end

describe("state_write then state_read over the corpus", function()
  local tmp = tmp_file()

  for _, f in ipairs(files) do
    if refused[f] then
      it("refuses " .. f, function()
        expect.fails_with("EINVAL", refused[f], load(f))
      end)
    else
      it("give back " .. f, function()
        local g = assert(load(f))
        local m = core.matcher(g)
        -- records where the graph has nodes with cores (disaggr's cores
        -- hang elsewhere): one allocated core, then a whole node's worth
        -- now or reserved
        if g:count("core") > 0 and m:match(jobspec.build{nodes = 1, cores_per_node = 1,
          duration = 100}) then
          local per = g:count("core") // g:count("node")
          assert(m:match(jobspec.build{nodes = 1, cores_per_node = per, duration = 50},
            "allocate_orelse_reserve"))
          assert.equal(2, #m:jobs())
        end
        round_trip(tmp.path, g, m)
      end)
    end
  end
end)

-- The fuzzers' own seeds that are graphs (core/test/fuzz/seeds: JGF, R,
-- hwloc XML, state files), beside the corpus ones: those the readers accept.
local seed_dir = "core/test/fuzz/seeds"
local seeds = {}
for f in io.popen("cd " .. seed_dir .. " && find jgf rv1 topo store -type f | sort"):lines() do
  seeds[#seeds + 1] = f
end

-- The graph (and matcher, for a state file) of a seed, or nil when its
-- reader refuses it.
local function load_seed(f)
  local path = seed_dir .. "/" .. f
  if f:match "^store/" then
    if not f:match "%.json$" then return nil end
    local l = core.state_read(path)
    return l and l.graph, l and l.matcher
  end
  if f:match "^topo/" then return core.hwloc_load{xml = path} end
  if f:match "^rv1/" then
    local r = core.rv1_load(path)
    return r and r:to_graph()
  end
  return core.jgf_load(path)
end

-- A few steps of jobs on g by m, drawn from a generator seeded by the
-- file's name: jobs of 1 to all the cores of a node, now or reserved, for
-- a while or for ever; cancels; the clock moving on.
local function some_jobs(g, m, name)
  local seed = 0
  for i = 1, #name do seed = (seed * 31 + name:byte(i)) % 2147483647 end
  math.randomseed(seed)
  local nodes, cores = g:count("node"), g:count("core")
  local per = nodes > 0 and math.max(1, cores // nodes) or 1
  for _ = 1, 8 do
    local r = math.random(10)
    local jobs = m:jobs()
    if r <= 2 and #jobs > 0 then
      assert(m:cancel(jobs[math.random(#jobs)].id))
    elseif r == 3 then
      g:set_now(g:now() + math.random(0, 60))
    elseif cores > 0 then
      local spec = nodes > 0
        and {nodes = 1, cores_per_node = math.random(per), duration = math.random(0, 1) * 100}
        or {tasks = 1, cores_per_task = 1, duration = 100}
      if spec.duration == 0 then spec.duration = nil end
      m:match(jobspec.build(spec), r <= 6 and "allocate" or "allocate_orelse_reserve")
    end
  end
end

describe("the inputs of the round trips", function()
  it("finds the corpus graphs and the fuzzers' seeds", function()
    assert.is_true(#files >= 40)
    assert.is_true(#seeds >= 5)
  end)
end)

describe("state_write then state_read as a property", function()
  local tmp = tmp_file()

  -- every graph of the corpus and of the seeds that reads, after jobs drawn
  -- at random, is written and read back the same, its job table included
  local cases = {}
  for _, f in ipairs(files) do
    if not refused[f] then cases[#cases + 1] = {f, function() return (load(f)) end} end
  end
  for _, f in ipairs(seeds) do
    cases[#cases + 1] = {"seed " .. f, function() return load_seed(f) end}
  end
  for _, c in ipairs(cases) do
    it("reads back " .. c[1] .. " after random jobs", function()
      local g, m = c[2]()
      if not g then return end -- a seed its reader refuses: nothing to write
      -- the two machines of 350,000 vertices take seconds to write and
      -- read: the round trip over the corpus above has them with jobs
      if #g > 100000 then return end
      m = m or core.matcher(g)
      some_jobs(g, m, c[1])
      round_trip(tmp.path, g, m)
    end)
  end
end)

describe("a second matcher on a graph", function()
  local tmp = tmp_file()
  local one = jobspec.build{nodes = 1, cores_per_node = 1, duration = 100}

  it("is refused while another holds jobs there, so that every state written reads back",
    function()
    local g = assert(load("grugs/tiny.graphml"))
    local m1 = core.matcher(g)
    local early = core.matcher(g) -- before m1 holds anything: accepted
    assert(m1:match(one))
    expect.fails("EBUSY", "cannot create a matcher: another matcher holds jobs on the graph "
      .. "(a graph keeps the jobs of one matcher at a time)", core.matcher(g))
    expect.fails("EBUSY", "match: another matcher holds 1 job on the graph (a graph keeps "
      .. "the jobs of one matcher at a time)", early:match(one))
    assert(early:match(one, "satisfiability")) -- asking keeps nothing
    assert.is_true(core.state_write(tmp.path, g, m1))
    local l = assert(core.state_read(tmp.path))
    assert.same(view(g, m1), view(l.graph, l.matcher))
    -- once m1 holds nothing, another may keep jobs
    assert(m1:cancel(1))
    local j = assert(early:match(one))
    assert.equal(1, j.id)
    assert.is_true(core.state_write(tmp.path, g, early))
    assert(core.state_read(tmp.path))
  end)

  it("numbers its jobs after those of a matcher gone with its jobs", function()
    local g = assert(load("grugs/tiny.graphml"))
    do
      local m1 = core.matcher(g)
      assert(m1:match(one))
      assert(m1:match(one))
      m1:close()
    end
    local m2 = core.matcher(g) -- the records of jobs 1 and 2 stay in the graph
    assert.equal(3, assert(m2:match(one)).id)
    assert.is_true(core.state_write(tmp.path, g, m2))
    local l = assert(core.state_read(tmp.path))
    assert.same(view(g, m2), view(l.graph, l.matcher))
  end)
end)

describe("a '/' in a type or name", function()
  local tmp = tmp_file()

  it("is refused where it would make up a path", function()
    local g = core.graph()
    expect.fails("EINVAL", "type (the basename) 'a/b' contains '/' (names make up paths)",
      g:add_vertex{type = "a/b"})
    expect.fails("EINVAL", "basename 'x/y' contains '/' (names make up paths)",
      g:add_vertex{type = "ab", basename = "x/y"})
    expect.fails("EINVAL", "name 'p/q' contains '/' (names make up paths)",
      g:add_vertex{type = "ab", name = "p/q"})
    assert.equal(0, #g)
    expect.fails("EINVAL",
      "recipe:4: node \"n\": basename \"a/b\" contains '/' (names make up paths)",
      core.grug_read(table.concat {
        '<graphml><key id="root" for="node" attr.name="root"/>\n',
        '<key id="type" for="node" attr.name="type"/><graph id="g">\n',
        '<node id="c"><data key="root">1</data><data key="type">cluster</data></node>\n',
        '<node id="n"><data key="type">a/b</data></node>\n',
        '<edge source="c" target="n"/></graph></graphml>\n'}))
  end)

  it("is written and read back in a type with a basename", function()
    local g = core.graph()
    local c = assert(g:add_vertex{type = "cluster", basename = "c", id = 0})
    local n = assert(g:add_vertex{type = "a/b", basename = "ab", id = 0, size = 4})
    assert(g:add_child(c, n))
    assert(g:allocate(n, 3, 7, {start = 0, duration = 10}))
    g:set_expiration(99)
    assert.is_true(core.state_write(tmp.path, g))
    local l = assert(core.state_read(tmp.path))
    assert.same(view(g), view(l.graph))
    assert.equal(99, l.graph:expiration())
    assert.equal(1, #l.graph:vertex("/c0/ab0"):records())
    assert.equal("/c0/ab0", l.graph:vertex("/c0/ab0"):path())
    assert.equal("a/b", l.graph:vertex("/c0/ab0"):type())
  end)
end)
