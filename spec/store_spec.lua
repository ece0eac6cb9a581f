-- Specs for the SQLite store and state files in Lua (grove.core.store_open,
-- state_write, state_read): round trips compared through the Lua API, as
-- JGF with state and as R; incremental saves; the change log; checks;
-- misuse and refusals; a scheduler restart.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local exe = require("exe_helper")
local expect = require("expect")
local jobspec = require("grove.jobspec")

-- Call in a describe block: every case of it gets a fresh scratch
-- directory, handed to set before the case runs and removed after it.
local function scratch_dir(set)
  local d
  before_each(function()
    d = os.tmpname()
    os.remove(d)
    assert(os.execute("mkdir -p " .. d))
    set(d)
  end)
  after_each(function() os.execute("rm -rf " .. d) end)
end

local function cores(n, duration)
  return jobspec.build{nodes = 1, cores_per_node = n, duration = duration or 100}
end

-- Everything the Lua API shows of a state, as plain tables.
local function view(g, m, a)
  local v = {vertices = {}, jobs = {}}
  for x in g:vertices() do
    v.vertices[#v.vertices + 1] = {x:vid(), x:path(), x:status(), x:properties(), x:tags(),
      x:records()}
  end
  for _, j in ipairs(m and m:jobs() or {}) do
    local picks = {}
    for _, p in ipairs(j.picks) do picks[#picks + 1] = {p.vertex:vid(), p.amount, p.exclusive} end
    v.jobs[#v.jobs + 1] = {j.id, j.state, j.start, j["end"], picks}
  end
  v.next_id = m and m:next_id()
  v.policy = m and m:policy()
  v.acquire = a and a:state()
  v.now = g:now()
  v.expiration = g:expiration()
  return v
end

local function jgf(g)
  return g:to_jgf{state = true, compact = true}
end

-- tiny with an acquisition state, jobs now and later, a drained node,
-- tags and properties.
local function scenario()
  local g = dofile "examples/tiny.lua"
  local m = core.matcher(g)
  m:set_policy("high")
  local a = core.acquire(g, m, {group = "batch"})
  assert(a:apply{type = "grow", resources = core.rv1_from_graph(g):to_table(), online = "0-1",
    offline = ""})
  g:set_now(5)
  assert(m:match(cores(20, 100)))
  assert(m:match(cores(30, 50)))
  assert(m:match(cores(36, 40), "allocate_orelse_reserve"))
  g:set_expiration(1000)
  local node0
  for v in g:vertices{type = "node", name = "node0"} do node0 = v end
  node0:tag("owner", "alice")
  node0:set_property("ssd", "yes")
  a:drain("1")
  return g, m, a
end

describe("core.store_open", function()
  local dir
  scratch_dir(function(d) dir = d end)

  it("saves and loads the whole state exactly", function()
    local g, m, a = scenario()
    local st = assert(core.store_open(dir .. "/s.db"))
    assert.equal("grove.store (generation 0)", tostring(st))
    local r = assert(st:save(g, m, a))
    assert.same({generation = 1, full = false, vertices = #g, edges = g:edge_count(), jobs = 3,
      deleted = 0}, r)
    assert.equal(1, st:generation())
    local l = assert(st:load())
    assert.same(view(g, m, a), view(l.graph, l.matcher, l.acquire))
    assert.equal(jgf(g), jgf(l.graph))
    assert.is_true(core.rv1_from_graph(g):equal(core.rv1_from_graph(l.graph)))
    assert.equal("high", l.policy)
    assert.is_true(l.policy_restored)
    assert.equal("batch", l.acquire:group())
    -- the same next decision
    local j1 = assert(m:match(cores(4, 10), "allocate_orelse_reserve"))
    local j2 = assert(l.matcher:match(cores(4, 10), "allocate_orelse_reserve"))
    assert.equal(j1.id, j2.id)
    assert.equal(j1.start, j2.start)
    assert.equal(jgf(g), jgf(l.graph))
    assert.is_true(st:check())
    st:close()
    assert.equal("grove.store (closed)", tostring(st))
  end)

  -- An upward edge of a relationship Grove does not know by name (the
  -- state reader tells its direction from the pair) is stored with its
  -- direction and comes back the same way (a store of it failed to load).
  it("keeps the direction of an edge of an unknown relationship", function()
    local text = exe.read("core/test/fuzz/seeds/store/unknown-upward-relationship.json")
    local path = dir .. "/state.json"
    local f = assert(io.open(path, "w"))
    f:write(text)
    f:close()
    local state = assert(core.state_read(path))
    local st = assert(core.store_open(dir .. "/u.db"))
    assert(st:save(state.graph, state.matcher, state.acquire))
    local l = assert(st:load())
    assert.equal(jgf(state.graph), jgf(l.graph))
    st:close()
  end)

  it("saves only what changed", function()
    local g, m, a = scenario()
    local st = assert(core.store_open(dir .. "/s.db"))
    assert(st:save(g, m, a))
    local r = assert(st:save(g, m, a))
    assert.same({generation = 2, full = false, vertices = 0, edges = 0, jobs = 0, deleted = 0}, r)
    m:cancel(2)
    r = assert(st:save(g, m, a))
    assert.equal(1, r.deleted)
    assert.equal(0, r.jobs)
    assert.is_true(r.vertices > 0 and r.vertices < 40)
    a:undrain("1")
    r = assert(st:save(g, m, a))
    assert.same({generation = 4, full = false, vertices = 1, edges = 0, jobs = 0, deleted = 0}, r)
    local ch = st:changes(3)
    assert.same({generation = 4, full = false, vertices = {ch.vertices[1]}, edges = {}, jobs = {},
      deleted = {vertices = {}, edges = {}, jobs = {}}, acquire = true, meta = true}, ch)
    assert.equal(2, st:changes(2).deleted.jobs[1])
    r = assert(st:save(g, m, a, {full = true}))
    assert.is_true(r.full)
    assert.equal(#g, r.vertices)
    assert.is_true(st:changes(1).full)
    local l = assert(st:load())
    assert.same(view(g, m, a), view(l.graph, l.matcher, l.acquire))
  end)

  it("saves a bare graph, or a graph with a matcher only", function()
    local g = dofile "examples/tiny.lua"
    local st = assert(core.store_open(dir .. "/s.db"))
    assert(st:save(g))
    local l = assert(st:load())
    assert.is_nil(l.matcher)
    assert.is_nil(l.acquire)
    assert.equal(jgf(g), jgf(l.graph))
    local m = core.matcher(g)
    assert(m:match(cores(3)))
    assert(st:save(g, m))
    l = assert(st:load({default_duration = 60}))
    assert.same(view(g, m), view(l.graph, l.matcher))
    assert.is_nil(l.acquire)
  end)

  it("passes the matcher's options, which are not saved, on to the matcher it restores",
    function()
    -- a socket with one slot of either shape: with or_slots one of them
    -- is taken (8 cores and a GPU), without it both (18 cores)
    local either = require("match_helper").jobspec({{type = "socket", count = 1, with = {
      {type = "slot", count = 1, label = "small",
        with = {{type = "core", count = 8}, {type = "gpu", count = 1}}},
      {type = "slot", count = 1, label = "big", with = {{type = "core", count = 10}}}}}}, 100)
    local function taken(m)
      local n = 0
      for _, p in ipairs(assert(m:match(either)).picks) do
        if p.vertex:type() == "core" then n = n + 1 end
      end
      return n
    end
    local g = dofile "examples/tiny.lua"
    local m = core.matcher(g)
    assert(m:match(cores(1)))
    local st = assert(core.store_open(dir .. "/s.db"))
    assert(st:save(g, m))
    assert(core.state_write(dir .. "/s.json", g, m))
    assert.equal(8, taken(assert(st:load({or_slots = true})).matcher))
    assert.equal(8, taken(assert(core.state_read(dir .. "/s.json", {or_slots = true})).matcher))
    assert.equal(18, taken(assert(st:load()).matcher))
    assert.equal(18, taken(assert(core.state_read(dir .. "/s.json")).matcher))
  end)

  it("takes one writer at a time: a second one, here or in another process, is refused",
    function()
    local path = dir .. "/s.db"
    local st = assert(core.store_open(path))
    local g = core.graph()
    assert(st:save(g))
    local busy = "store " .. path .. ": another writer has it open (one writer at a time; "
      .. "open it readonly to read it)"
    expect.fails("EBUSY", busy, core.store_open(path))
    local script = dir .. "/second.lua"
    local f = assert(io.open(script, "w"))
    f:write(([[
local core = require("grove.core")
print((select(2, core.store_open(%q))))
local ro = assert(core.store_open(%q, {readonly = true}))
print(ro:generation())
]]):format(path, path))
    f:close()
    local out, rc = exe.run(exe.GROVE .. " run " .. script)
    assert.equal(0, rc)
    assert.equal(busy .. "\n1\n", out)
    st:close()
    out, rc = exe.run(exe.GROVE .. " run " .. script)
    assert.equal(0, rc)
    assert.equal("nil\n1\n", out)
  end)

  it("restarts a scheduler: save, load, reconnect", function()
    local g, m, a = scenario()
    local st = assert(core.store_open(dir .. "/s.db"))
    assert(st:save(g, m, a))
    st:close()
    st = assert(core.store_open(dir .. "/s.db", {create = false}))
    local l = assert(st:load())
    assert.is_true(l.acquire:disconnect())
    -- the resource service sends its first response again; rank 1 is gone
    local ev = assert(l.acquire:apply{type = "grow",
      resources = core.rv1_from_graph(g):restrict("0"):to_table(), online = "0", offline = ""})
    assert.same({}, ev.release)
    assert.equal("0", l.acquire:targets("acquired"))
    assert.equal("1", l.acquire:targets("shrunk"))
    assert.equal(3, #l.matcher:jobs())
  end)

  it("refuses what is not a Grove store", function()
    expect.fails("ENOENT",
      "store " .. dir .. "/none.db: no such file",
      core.store_open(dir .. "/none.db", {create = false}))
    local f = io.open(dir .. "/text.db", "w")
    f:write(("not a database "):rep(20))
    f:close()
    expect.fails("EINVAL",
      "store " .. dir .. "/text.db: not a database",
      core.store_open(dir .. "/text.db"))
    local st = assert(core.store_open(dir .. "/empty.db"))
    expect.fails("EINVAL", "store " .. dir .. "/empty.db: nothing was saved", st:load())
    local ro = assert(core.store_open(dir .. "/empty.db", {readonly = true}))
    expect.fails("EINVAL", "store " .. dir .. "/empty.db: opened read-only", ro:save(core.graph()))
  end)

  it("raises on misuse", function()
    assert.has_error(function() core.store_open() end,
      "bad argument #1 to 'store_open' (string expected, got no value)")
    assert.has_error(function() core.store_open(dir .. "/x.db", {colour = 1}) end,
      "bad argument #2 to 'store_open' (unknown option 'colour'; the options are create, "
      .. "readonly, sync)")
    assert.has_error(function() core.store_open(dir .. "/x.db", {sync = "fast"}) end,
      "bad argument #2 to 'store_open' (sync: unknown mode 'fast'; the modes are full, normal)")
    local st = assert(core.store_open(dir .. "/x.db"))
    local g = core.graph()
    assert.has_error(function() st:save(g, 42) end,
      "bad argument #2 to 'save' (grove.matcher, grove.acquire or options table expected, got "
      .. "number)")
    assert.has_error(function() st:save(g, core.matcher(core.graph())) end,
      "bad argument #2 to 'save' (the matcher is over another graph)")
    assert.has_error(function() st:save(g, {fast = true}) end,
      "bad argument #2 to 'save' (unknown option 'fast'; the options are full)")
    assert.has_error(function() st:save(g, {ful = true}) end,
      "bad argument #2 to 'save' (unknown option 'ful' (did you mean 'full'?); the options are "
      .. "full)")
    assert.has_error(function() st:save(g, {full = 1}) end,
      "bad argument #2 to 'save' (full must be a boolean)")
    assert(st:save(g))
    assert.has_error(function() st:save(g, {true}) end,
      "bad argument #2 to 'save' (unknown option '1'; the options are full)")
    assert.has_error(function() st:load({true}) end,
      "bad argument #1 to 'load' (unknown option '1'; the options are policy, "
      .. "default_duration, constraint_type, or_slots)")
    assert.has_error(function() st:load({colour = 1}) end,
      "bad argument #1 to 'load' (unknown option 'colour'; the options are policy, "
      .. "default_duration, constraint_type, or_slots)")
    assert.has_error(function() st:load({polcy = "high"}) end,
      "bad argument #1 to 'load' (unknown option 'polcy' (did you mean 'policy'?); the options "
      .. "are policy, default_duration, constraint_type, or_slots)")
    st:close()
    assert.has_error(function() st:generation() end,
      "calling 'generation' on bad self (store is closed)")
    st:close() -- idempotent
  end)

  it("loads with another policy, and says when the saved one is lost", function()
    local g, m, a = scenario()
    local f = io.open(dir .. "/mine.lua", "w")
    f:write('return {name = "mine", order = {key = "id", descending = true}}\n')
    f:close()
    local pol = assert(require("grove.policy").load(dir .. "/mine.lua"))
    assert(m:set_policy(pol))
    local st = assert(core.store_open(dir .. "/s.db"))
    assert(st:save(g, m, a))
    local l = assert(st:load())
    assert.equal("first", l.matcher:policy())
    assert.is_false(l.policy_restored)
    l = assert(st:load({policy = "hinode"}))
    assert.equal("hinode", l.matcher:policy())
    -- by path, as m:set_policy takes it; a name through the finder
    -- (require "grove.policy" sets it), its message with the closest name
    l = assert(st:load({policy = dir .. "/mine.lua"}))
    assert.equal("mine", l.matcher:policy())
    core.set_policy_finder(require("grove.policy").find)
    expect.fails_like("ENOENT", "^no policy 'hinodx' %(did you mean 'hinode'%?%) in ",
      st:load({policy = "hinodx"}))
  end)
end)

describe("core.state_write and core.state_read", function()
  local dir
  scratch_dir(function(d) dir = d end)

  it("write the state to one file and read it back", function()
    local g, m, a = scenario()
    assert.is_true(core.state_write(dir .. "/state.json", g, m, a))
    local l = assert(core.state_read(dir .. "/state.json"))
    assert.same(view(g, m, a), view(l.graph, l.matcher, l.acquire))
    assert.equal(jgf(g), jgf(l.graph))
    -- the file is a JGF document any reader takes
    local plain = assert(core.jgf_load(dir .. "/state.json"))
    assert.equal(#g, #plain)
  end)

  it("read a plain JGF file as a graph with no jobs", function()
    local g = dofile "examples/tiny.lua"
    local f = io.open(dir .. "/g.json", "w")
    f:write(jgf(g))
    f:close()
    local l = assert(core.state_read(dir .. "/g.json"))
    assert.is_nil(l.matcher)
    assert.equal(jgf(g), jgf(l.graph))
  end)

  it("refuse what they cannot read or write", function()
    expect.fails("ENOENT",
      dir .. "/none.json: No such file or directory",
      core.state_read(dir .. "/none.json"))
    expect.fails_like("ENOENT",
      "No such file or directory$",
      core.state_write(dir .. "/no/dir/x.json", core.graph()))
    local f = io.open(dir .. "/bad.json", "w")
    f:write('{"graph": {"nodes": [], "edges": []}, "grove": {"jobs": [{"id": 0}]}}')
    f:close()
    expect.fails("EINVAL",
      dir .. "/bad.json:1: grove.jobs[0]: expected {id, state, start, end, picks}",
      core.state_read(dir .. "/bad.json"))
  end)
end)
