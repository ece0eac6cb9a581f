-- Specs for the matcher binding (grove.core.matcher): modes, job tables,
-- cancel and release, stats, policies by name or object, misuse, and a
-- replay of the corpus's tiny-graph command files with the C policies and
-- their Lua twins.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local expect = require("expect")
local match = require("match_helper")

local CORPUS = os.getenv("GROVE_CONFORMANCE") or "../shared/conformance"

local tiny = match.tiny

-- A jobspec in YAML: `n` nodes (exclusive when x) each with a slot of
-- `cores` cores, and an optional duration.
local function nodes_yaml(n, cores, x, duration)
  return match.nodes_yaml(n, cores, x and true or false, duration)
end

local function cores_table(n, duration)
  return match.jobspec({{type = "slot", count = 1, label = "default",
    with = {{type = "core", count = n}}}}, duration or 60)
end

local function names(job)
  local t = {}
  for _, p in ipairs(job.picks) do
    t[#t + 1] = p.vertex:name() .. ":" .. p.amount .. (p.exclusive and "x" or "s")
  end
  return table.concat(t, " ")
end

-- The name of the (last) vertex of type t among a job's picks.
local function picked(job, t)
  local name
  for _, p in ipairs(job.picks) do
    if p.vertex:type() == t then name = p.vertex:name() end
  end
  return name
end

-- The nodes n one-core jobs of one node land on, in order.
local function one_core_nodes(m, n)
  local hosts = {}
  for i = 1, n do hosts[i] = picked(assert(m:match(nodes_yaml(1, 1))), "node") end
  return hosts
end

describe("core.matcher", function()
  it("makes a matcher over a graph, with the first policy", function()
    local g = tiny()
    local m = core.matcher(g)
    assert.equal("grove.matcher (policy first, 0 jobs)", tostring(m))
    assert.equal("first", m:policy())
    assert.equal(g, m:graph())
    assert.equal(1, m:next_id())
    assert.same({}, m:jobs())
  end)

  it("raises on misuse", function()
    assert.has_error(function() core.matcher() end,
      "bad argument #1 to 'matcher' (grove.graph expected, got no value)")
    assert.has_error(function() core.matcher(tiny(), {color = 1}) end,
      "bad argument #2 to 'matcher' (unknown option 'color'; the options are default_duration, "
      .. "constraint_type, or_slots)")
    assert.has_error(function() core.matcher(tiny(), {or_slot = true}) end,
      "bad argument #2 to 'matcher' (unknown option 'or_slot' (did you mean 'or_slots'?); the "
      .. "options are default_duration, constraint_type, or_slots)")
    assert.has_error(function() core.matcher(tiny(), {true}) end,
      "bad argument #2 to 'matcher' (unknown option '1'; the options are default_duration, "
      .. "constraint_type, or_slots)")
    assert.has_error(function() core.matcher(tiny(), {default_duration = -1}) end,
      "bad argument #2 to 'matcher' (default_duration must be a non-negative integer "
      .. "(seconds))")
    local m = core.matcher(tiny())
    assert.has_error(function() m:match(42) end,
      "bad argument #1 to 'match' (jobspec, YAML or JSON text, or table expected, got number)")
    assert.has_error(function() m:match(nodes_yaml(1, 1), "now") end,
      "bad argument #2 to 'match' (unknown mode 'now'; the modes are allocate, "
      .. "allocate_orelse_reserve, allocate_with_satisfiability, satisfiability, "
      .. "without_allocating, without_allocating_future, grow)")
    assert.has_error(function() m:match(nodes_yaml(1, 1), "allocate", -3) end,
      "bad argument #3 to 'match' (job id must be a non-negative integer)")
    assert.has_error(function() m:set_policy(3) end,
      "bad argument #1 to 'set_policy' (policy name, path or grove.policy expected, got number)")
  end)
end)

describe("m:match", function()
  it("allocates now and returns the job table", function()
    local m = core.matcher(tiny())
    local j = assert(m:match(nodes_yaml(1, 2, false, 3600), "allocate"))
    assert.equal(1, j.id)
    assert.equal("allocated", j.state)
    assert.equal(0, j.start)
    assert.equal(3600, j["end"])
    assert.equal("tiny0:1s rack0:1s node0:1s socket0:1s core0:1x core1:1x", names(j))
    assert.equal("grove.vertex", getmetatable(j.picks[1].vertex).__name)
    assert.equal("/tiny0/rack0/node0/socket0/core0", tostring(j.picks[5].vertex))
    assert.equal(2, m:next_id())
    assert.equal("grove.matcher (policy first, 1 jobs)", tostring(m))
    -- the graph holds the records
    assert.equal(1, j.picks[5].vertex:allocated())
  end)

  it("takes a jobspec userdata, YAML or JSON text, or a table", function()
    local m = core.matcher(tiny())
    local js = assert(core.jobspec_parse(nodes_yaml(1, 1)))
    assert.equal("allocated", assert(m:match(js)).state)
    assert.equal("allocated", assert(m:match(nodes_yaml(1, 1))).state)
    local json = assert(core.jobspec_parse(nodes_yaml(1, 1))):to_json()
    assert.equal("allocated", assert(m:match(json)).state)
    local j = assert(m:match(cores_table(3, 120)))
    assert.equal(120, j["end"])
    assert.equal(4, #m:jobs())
    assert.is_table(m:jobs()[4].picks)
    -- heads only, by id
    local heads = m:jobs(false)
    assert.same({1, 2, 3, 4}, {heads[1].id, heads[2].id, heads[3].id, heads[4].id})
    assert.is_nil(heads[4].picks)
    assert.same({id = 4, state = "allocated", start = 0, ["end"] = 120}, heads[4])
  end)

  it("fails with EINVAL on a bad jobspec, leaving the matcher as it was", function()
    local m = core.matcher(tiny())
    expect.fails("EINVAL", nil, m:match("version: 9999\nresources: 7\n"))
    expect.fails("EINVAL", nil, m:match({version = 1, resources = {}}))
    assert.equal(1, m:next_id())
  end)

  it("tells busy (EBUSY) from never (ENODEV)", function()
    local m = core.matcher(tiny())
    assert(m:match(nodes_yaml(2, 1, true, 100)))
    for _, c in ipairs {
      {1, 1, nil, "EBUSY", "no matching resources"},
      {1, 1, "allocate_with_satisfiability", "EBUSY", "no matching resources"},
      {1, 1, "without_allocating", "EBUSY", "no matching resources"},
      {3, 1, "allocate_with_satisfiability", "ENODEV", "3 nodes requested: the graph has 2"},
      {3, 1, "allocate_orelse_reserve", "ENODEV", "3 nodes requested: the graph has 2"},
      {3, 1, nil, "ENODEV", "3 nodes requested: the graph has 2"},
      {3, 1, "without_allocating", "ENODEV", "3 nodes requested: the graph has 2"},
      {1, 37, "satisfiability", "ENODEV", "no node with 37 cores: largest has 36"},
      {1, 37, nil, "ENODEV", "no node with 37 cores: largest has 36"},
      {1, 37, "without_allocating_future", "ENODEV", "no node with 37 cores: largest has 36"},
    } do
      expect.fails(c[4], c[5], m:match(nodes_yaml(c[1], c[2]), c[3]))
    end
    -- every match but satisfiability consumed an id
    assert.equal(11, m:next_id())
  end)

  it("reserves at the earliest time", function()
    local m = core.matcher(tiny())
    assert(m:match(nodes_yaml(2, 1, true, 100)))
    assert(m:match(nodes_yaml(1, 1, true, 50), "allocate_orelse_reserve"))
    local j = assert(m:match(nodes_yaml(2, 1, true, 10), "allocate_orelse_reserve"))
    assert.equal("reserved", j.state)
    assert.equal(150, j.start)
    assert.equal(160, j["end"])
    assert.equal("reserved", m:job(3).state)
  end)

  it("matches without recording anything", function()
    local g = tiny()
    local m = core.matcher(g)
    assert(m:match(nodes_yaml(2, 36, false, 100)))
    local j = assert(m:match(nodes_yaml(1, 1), "without_allocating_future"))
    assert.equal("matched", j.state)
    assert.equal(100, j.start)
    j = assert(m:match(nodes_yaml(2, 36), "satisfiability"))
    assert.equal("matched", j.state)
    local j2, _, code = m:match(nodes_yaml(1, 1), "without_allocating")
    assert.is_nil(j2)
    assert.equal("EBUSY", code)
    assert.equal(1, #m:jobs())
    m:cancel(1)
    j = assert(m:match(nodes_yaml(1, 1), "without_allocating"))
    assert.equal("matched", j.state)
    assert.equal(0, #m:jobs())
    for v in g:vertices() do assert.same({}, v:records()) end
  end)

  it("tells whether a request fits on the idle vertices that are up", function()
    local g = tiny()
    local m = core.matcher(g)
    assert(m:match(nodes_yaml(2, 1, true, 100)))
    assert.is_true(m:fits_idle(nodes_yaml(2, 1, true)))
    assert.is_false(m:fits_idle(nodes_yaml(3, 1)))
    g:vertex("/tiny0/rack0/node1"):set_status("down")
    assert.is_false(m:fits_idle(nodes_yaml(2, 1)))
    assert(m:match(nodes_yaml(2, 1), "satisfiability"))
    assert.is_true(m:fits_idle(nodes_yaml(1, 1)))
    expect.fails("EINVAL", nil, m:fits_idle("version: 1"))
    assert.equal(2, m:next_id())
    assert.equal(1, #m:jobs())
  end)

  it("uses the given job id, and refuses one in use (EEXIST)", function()
    local m = core.matcher(tiny())
    assert.equal(10, assert(m:match(nodes_yaml(1, 1), "allocate", 10)).id)
    assert.equal(11, m:next_id())
    expect.fails("EEXIST", "match: job 10 exists", m:match(nodes_yaml(1, 1), "allocate", 10))
  end)

  it("gives jobs without a duration the default, else forever", function()
    local no_dur = nodes_yaml(1, 1)
    local m = core.matcher(tiny(), {default_duration = 300})
    assert.equal(300, assert(m:match(no_dur))["end"])
    m = core.matcher(tiny())
    assert.is_nil(assert(m:match(no_dur))["end"])
  end)

  it("never picks down vertices and honours constraints", function()
    local g = tiny()
    local m = core.matcher(g)
    g:vertex("/tiny0/rack0/node0"):set_status("down")
    local j = assert(m:match(nodes_yaml(1, 1)))
    assert.equal("node1", j.picks[3].vertex:name())
    g:vertex("/tiny0/rack0/node1"):set_status("down")
    local _, _, code = m:match(nodes_yaml(1, 1), "allocate_with_satisfiability")
    assert.equal("EBUSY", code)
    g:vertex("/tiny0/rack0/node0"):set_status("up")
    g:vertex("/tiny0/rack0/node1"):set_status("up")
    g:vertex("/tiny0/rack0/node1"):set_property("ssd", "")
    local t = cores_table(1)
    t.resources = {{type = "node", count = 1, with = t.resources}}
    t.attributes.system.constraints = {properties = {"ssd"}}
    j = assert(m:match(t))
    assert.equal("/tiny0/rack0/node1", tostring(j.picks[3].vertex))
  end)
end)

describe("constraint verdicts kept between matches", function()
  -- a job of one node under constraint c (a table)
  local function constrained(c)
    local t = cores_table(1)
    t.resources = {{type = "node", count = 1, with = t.resources}}
    t.attributes.system.constraints = c
    return t
  end

  it("see a property set or removed after an earlier match of the same constraint",
    function()
    local g = tiny()
    local m = core.matcher(g)
    local c = {properties = {"ssd"}}
    assert.is_nil(m:match(constrained(c)))
    g:vertex("/tiny0/rack0/node1"):set_property("ssd", "")
    local j = assert(m:match(constrained(c)))
    assert.equal("/tiny0/rack0/node1", tostring(j.picks[3].vertex))
    m:cancel(j.id)
    g:vertex("/tiny0/rack0/node1"):remove_property("ssd")
    assert.is_nil(m:match(constrained(c)))
    -- and a name changed under a hostlist
    j = assert(m:match(constrained({hostlist = {"node1"}})))
    assert.equal("node1", j.picks[3].vertex:name())
    m:cancel(j.id)
    g:vertex("/tiny0/rack0/node1"):set_name("other1")
    assert.is_nil(m:match(constrained({hostlist = {"node1"}})))
  end)

  it("answer alike for more constraints than are kept, in turn", function()
    local g = tiny()
    local m = core.matcher(g)
    local nodes = {}
    for v in g:vertices{type = "node"} do nodes[#nodes + 1] = v:name() end
    table.sort(nodes)
    -- a hostlist of each node, negated, and a rank set: more than four
    -- constraints, each matched three times in turn
    for _ = 1, 3 do
      for _, name in ipairs(nodes) do
        local j = assert(m:match(constrained({hostlist = {name}})))
        assert.equal(name, j.picks[3].vertex:name())
        m:cancel(j.id)
        j = assert(m:match(constrained({["not"] = {{hostlist = {name}}}})))
        assert.not_equal(name, j.picks[3].vertex:name())
        m:cancel(j.id)
      end
    end
  end)
end)

describe("xor_slot alternatives", function()
  -- slot alternatives below one socket: 8 cores and some GPUs, or 10
  -- cores, or 4 GPUs (tiny's sockets have 18 cores and 1 GPU each)
  local function alternatives(first_gpus)
    local function alt(with)
      return {type = "xor_slot", count = 1, label = "default", with = with}
    end
    return match.jobspec({{type = "socket", count = 1, with = {
      alt({{type = "core", count = 8}, {type = "gpu", count = first_gpus}}),
      alt({{type = "core", count = 10}}),
      alt({{type = "gpu", count = 4}})}}}, 100)
  end
  local function count(job, t)
    local n = 0
    for _, p in ipairs(job.picks) do
      if p.vertex:type() == t then n = n + p.amount end
    end
    return n
  end

  -- the cores and GPUs a job holds
  local function units(job)
    return {core = count(job, "core"), gpu = count(job, "gpu")}
  end

  -- name, GPUs the first alternative asks, what the job holds
  for _, case in ipairs {
    {"takes the first alternative that fits", 1, {core = 8, gpu = 1}},
    {"passes over an alternative that does not fit for the next", 2, {core = 10, gpu = 0}},
  } do
    it(case[1], function()
      local m = core.matcher(tiny())
      assert.same(case[3], units(assert(m:match(alternatives(case[2])))))
    end)
  end

  it("reserves the earliest instant any alternative fits, not the first alternative", function()
    local m = core.matcher(tiny())
    -- every GPU busy until 200, every core until 50
    assert(m:match(match.jobspec({{type = "gpu", count = 4}}, 200)))
    assert(m:match(match.jobspec({{type = "core", count = 72}}, 50)))
    local j = assert(m:match(alternatives(1), "allocate_orelse_reserve"))
    assert.equal(50, j.start)
    assert.same({core = 10, gpu = 0}, units(j))
  end)

  it("finds nothing when no alternative fits", function()
    local m = core.matcher(tiny())
    local js = match.jobspec({{type = "socket", count = 1, with = {
      {type = "xor_slot", count = 1, label = "default", with = {{type = "core", count = 19}}},
      {type = "xor_slot", count = 1, label = "default", with = {{type = "gpu", count = 2}}}}}},
      10)
    expect.fails("ENODEV", nil, m:match(js, "allocate_with_satisfiability"))
  end)
end)

describe("or-slots (or_slots = true)", function()
  -- a socket with one slot of two shapes: 8 cores and a GPU, or 10 cores
  local function small_or_big()
    return match.jobspec({{type = "socket", count = 1, with = {
      {type = "slot", count = 1, label = "small",
        with = {{type = "core", count = 8}, {type = "gpu", count = 1}}},
      {type = "slot", count = 1, label = "big", with = {{type = "core", count = 10}}}}}}, 100)
  end
  local function shape(job)
    local cores, gpus, sockets = 0, 0, {}
    for _, p in ipairs(job.picks) do
      local t = p.vertex:type()
      if t == "core" then cores = cores + 1 end
      if t == "gpu" then gpus = gpus + 1 end
      if t == "socket" then sockets[#sockets + 1] = tostring(p.vertex) end
    end
    return ("%d cores %d gpus %s"):format(cores, gpus, table.concat(sockets, " "))
  end

  -- the sockets asked for at the top are ranked by their own ids: the
  -- socket1 of both nodes tie, the first in graph order wins (node0), as
  -- in the reference engine
  it("takes one slot of either shape, the shape that leaves room for most slots first", function()
    local m = core.matcher(tiny(), {or_slots = true})
    assert(m:set_policy("high"))
    local a = assert(m:match(small_or_big()))
    local b = assert(m:match(small_or_big()))
    assert.equal("8 cores 1 gpus /tiny0/rack0/node0/socket1", shape(a))
    assert.equal("10 cores 0 gpus /tiny0/rack0/node0/socket1", shape(b))
  end)

  it("takes every sibling slot without the option", function()
    local m = core.matcher(tiny())
    assert(m:set_policy("high"))
    assert.equal("18 cores 1 gpus /tiny0/rack0/node0/socket1",
      shape(assert(m:match(small_or_big()))))
  end)

  -- two identical or-slots of one core: every socket lists each of its 18
  -- cores as a slot; of the 72, core35 of node0 and of node1 tie, and the
  -- reference engine's sort (not stable past 16) puts node1's first
  it("ranks tied slots as the reference engine's sort does", function()
    local one = {type = "slot", count = 1, label = "default", with = {{type = "core", count = 1}}}
    local m = core.matcher(tiny(), {or_slots = true})
    assert(m:set_policy("high"))
    local j = assert(m:match(match.jobspec({one, one}, 100)))
    local cores = {}
    for _, p in ipairs(j.picks) do
      if p.vertex:type() == "core" then cores[#cores + 1] = p.vertex:path() end
    end
    assert.same({"/tiny0/rack0/node1/socket1/core35"}, cores)
  end)

  it("refuses a bad option", function()
    assert.has_error(function() core.matcher(tiny(), {or_slots = 1}) end,
      "bad argument #2 to 'matcher' (or_slots must be a boolean)")
  end)
end)

describe("the job table", function()
  it("lists, describes and cancels jobs", function()
    local m = core.matcher(tiny())
    assert(m:match(nodes_yaml(1, 4, false, 60)))
    assert(m:match(nodes_yaml(1, 1, true, 60)))
    local jobs = m:jobs()
    assert.equal(2, #jobs)
    assert.same({1, 2}, {jobs[1].id, jobs[2].id})
    assert.same({id = 1, state = "allocated", start = 0, ["end"] = 60, picks = 8,
      counts = {cluster = 1, rack = 1, node = 1, socket = 1, core = 4}}, m:info(1))
    assert.same({id = 1, state = "allocated", start = 0, ["end"] = 60, picks = 8}, m:info(1, false))
    -- an exclusive node: the job holds all it contains
    assert.same({cluster = 1, rack = 1, node = 1, socket = 2, core = 36, gpu = 2, memory = 16},
      m:info(2).counts)
    assert.is_true(m:job(2).picks[3].exclusive)
    assert.same({nil, "no job 7", "ENOENT"}, {m:info(7)})
    assert.same({nil, "no job 7", "ENOENT"}, {m:job(7)})
    assert.is_true(m:cancel(1))
    assert.same({nil, "no job 1", "ENOENT"}, {m:cancel(1)})
    assert.equal(1, #m:jobs())
  end)

  it("releases a job rank by rank", function()
    local g = tiny()
    local m = core.matcher(g)
    assert(m:match(nodes_yaml(2, 2, false, 60)))
    local n, gone = m:release_ranks(1, "1")
    assert.equal(4, n) -- node1, its socket and two cores
    assert.is_false(gone)
    assert.equal(1, m:info(1).counts.node)
    n, gone = m:release_ranks(1, "0-7")
    assert.equal(6, n) -- node0, its socket and two cores, and the rack and cluster above
    assert.is_true(gone)
    assert.same({nil, "no job 1", "ENOENT"}, {m:job(1)})
    for v in g:vertices() do assert.same({}, v:records()) end
    local _, _, code = m:release_ranks(1, "0")
    assert.equal("ENOENT", code)
    assert(m:match(nodes_yaml(1, 1)))
    _, _, code = m:release_ranks(2, "3-1")
    assert.equal("EINVAL", code)
    assert.equal(1, select(1, m:release_ranks(2, core.idset("5"))) + 1)
  end)

  it("releases chosen vertices of a job", function()
    local g = tiny()
    local m = core.matcher(g)
    local j = assert(m:match(nodes_yaml(1, 3)))
    local core1 = j.picks[#j.picks].vertex
    local n, gone = m:release_vertices(1, {core1})
    assert.same({1, false}, {n, gone})
    assert.equal(2, m:info(1).counts.core)
    assert.equal(0, core1:allocated())
    local _, msg, code = m:release_vertices(1, {core1})
    assert.equal("EINVAL", code)
    assert.equal("job 1 does not hold all of these vertices", msg)
    assert.has_error(function() m:release_vertices(1, {tiny():root()}) end,
      "bad argument #2 to 'release_vertices' (element 1 is not a vertex of the matcher's graph)")
  end)

  it("counts matches and their times", function()
    local m = core.matcher(tiny())
    assert(m:match(nodes_yaml(1, 1)))
    m:match(nodes_yaml(5, 1))
    local s = m:stats()
    assert.equal(2, s.matches)
    assert.equal(1, s.succeeded)
    assert.equal(1, s.held)
    assert.is_true(s.min > 0 and s.min <= s.mean and s.mean <= s.max)
    m:reset_stats()
    -- the counts start again; the job is still held
    assert.same({matches = 0, succeeded = 0, min = 0, max = 0, mean = 0, held = 1, ranks_kept = 0,
      blocks_passed = 0, idle_pruned = 0, slots_resumed = 0},
      m:stats())
    assert.is_true(m:cancel(1))
    assert.equal(0, m:stats().held)
    assert.equal(0, #m:jobs(false))
    -- giving free memory back leaves the matcher as it was
    assert.is_true(core.trim_memory())
    assert.equal("allocated", assert(m:match(nodes_yaml(1, 1))).state)
  end)
end)

describe("policies on a matcher", function()
  it("are set by name or as policy objects", function()
    local m = core.matcher(tiny())
    assert.is_true(m:set_policy("high"))
    assert.equal("high", m:policy())
    assert.equal("node1", assert(m:match(nodes_yaml(1, 1))).picks[3].vertex:name())
    local p = assert(core.policy_load("policies/low.lua"))
    assert.is_true(m:set_policy(p))
    assert.equal("low", m:policy())
    assert.equal("node0", assert(m:match(nodes_yaml(1, 1))).picks[3].vertex:name())
    -- grove.core alone: no finder of names, no offer of a close one
    core.set_policy_finder(nil)
    core.set_suggest(nil)
    local BUILTINS = "(built-ins: first, low, high, lonode, hinode, lonodex, hinodex, " ..
      "firstnodex, fresh, freshnodex, locality, variation, spread, gpu; or a policy from " ..
      "grove.core.policy_load)"
    assert.same({nil, "unknown policy 'fastest' " .. BUILTINS, "ENOENT"},
      {m:set_policy("fastest")})
    assert.equal("low", m:policy())
    core.set_suggest(require("grove.suggest").hint)
    assert.same({nil, "unknown policy 'lowx' (did you mean 'low'?) " .. BUILTINS, "ENOENT"},
      {m:set_policy("lowx")})
    -- with grove.policy's finder (require "grove" sets it): the policy
    -- directories, and its message with the offer
    local gpolicy = require("grove.policy")
    core.set_policy_finder(gpolicy.find)
    assert.same({gpolicy.find("lowx")}, {m:set_policy("lowx")})
    assert.matches("^no policy 'lowx' %(did you mean 'low'%?%) in ",
      select(2, m:set_policy("lowx")))
    assert.equal("low", m:policy())
  end)

  it("are loaded by set_policy from a path, or a name the finder knows", function()
    local m = core.matcher(tiny())
    -- a path: loaded as core.policy_load would, a Lua policy
    assert.is_true(m:set_policy("spec/fixtures/policies/raise.lua"))
    assert.equal("raise", m:policy())
    local _, msg, code = m:match(nodes_yaml(1, 1))
    assert.equal("ECANCELED", code)
    assert.matches("^policy raise: prune hook: spec/fixtures/policies/raise%.lua:8: boom at ", msg)
    assert.same({nil, "spec/fixtures/policies/nothere.lua: No such file or directory", "ENOENT"},
      {m:set_policy("spec/fixtures/policies/nothere.lua")})
    assert.same({core.policy_load("spec/fixtures/policies/not_table.lua")},
      {m:set_policy("spec/fixtures/policies/not_table.lua")})
    assert.equal("raise", m:policy())
    -- a name: the path the finder gives; its failure as it says it
    local asked = {}
    core.set_policy_finder(function(name)
      asked[#asked + 1] = name
      if name == "boom" then return "spec/fixtures/policies/raise.lua" end
      return nil, "no policy '" .. name .. "' here"
    end)
    assert.is_true(m:set_policy("high"))            -- a built-in is never asked
    assert.is_true(m:set_policy("boom"))
    assert.equal("raise", m:policy())
    assert.same({nil, "no policy 'bang' here", "ENOENT"}, {m:set_policy("bang")})
    assert.same({"boom", "bang"}, asked)
    core.set_policy_finder(require("grove.policy").find)
    assert.has_error(function() core.set_policy_finder(5) end,
      "bad argument #1 to 'set_policy_finder' (function expected, got number)")
  end)

  it("refuse a failure handed on as a policy or a jobspec, keeping its message", function()
    local m = core.matcher(tiny())
    local gpolicy = require("grove.policy")
    local _, loaded = gpolicy.load("lowx")
    local ok, err = pcall(function() return m:set_policy(gpolicy.load("lowx")) end)
    assert.is_false(ok)
    assert.equal("spec/match_spec.lua:" .. debug.getinfo(1, "l").currentline - 2 ..
      ": bad argument #1 to 'set_policy' (got nil from a call that failed: " .. loaded .. ")",
      err)
    assert.equal("first", m:policy())
    ok, err = pcall(function() return m:match(core.jobspec_load("spec/fixtures/none.yaml")) end)
    assert.is_false(ok)
    assert.matches(": bad argument #1 to 'match' %(got nil from a call that failed: " ..
      "spec/fixtures/none%.yaml: No such file or directory%)$", err)
    -- nil and a word that is no error code: the plain type error
    assert.has_error(function() m:set_policy(nil, "first") end,
      "bad argument #1 to 'set_policy' (policy name, path or grove.policy expected, got nil)")
  end)

  -- fresh (the reference engine's first): what no job went through
  -- first, highest id first; then what jobs went through, by rank.  The
  -- placements below are the reference engine's on the same machine (a
  -- rack of two nodes, then a rack of one; one-core jobs).
  it("fresh explores what no job went through first, then by rank", function()
    local R = require("grove").cluster.resources
    local g = require("grove").cluster "het" {
      R.rack(1) { R.node(2, {hostnames = "a[0-1]"}) { R.socket(1) { R.core(4) } } },
      R.rack(1) { R.node(1, {hostnames = "b0"}) { R.socket(1) { R.core(4) } } },
    }
    assert(g:set_aggregates("ALL:core,ALL:node")) -- the reference engine's
    local m = core.matcher(g)
    assert(m:set_policy("fresh"))
    assert.same({"b0", "a1", "a0", "a1"}, one_core_nodes(m, 4))
    -- cancelling changes no rank: a0 keeps the 3 cores free it had when
    -- job 3 came, above a1's 2 (the reference engine's choice too)
    assert(m:cancel(3))
    local job = assert(m:match(nodes_yaml(1, 1)))
    assert.equal("a0", job.picks[3].vertex:name())
  end)

  -- The type a vertex ranks by follows the aggregate specification in
  -- force: a matcher that worked it out under one specification (nodes
  -- by their free cores) reads it again under the next (nodes by their
  -- free sockets; a one-core job asks no socket, so two stay free).
  -- Job 0 ranks a1 and leaves; a0 and a1 then rank 2 sockets each and the
  -- ties go to a1, where by cores a0 would keep 3 cores against a1's 2.
  it("fresh ranks by the aggregate specification in force", function()
    local R = require("grove").cluster.resources
    local function run(spec)
      local g = require("grove").cluster "two" {
        R.rack(1) { R.node(2, {hostnames = "a[0-1]"}) { R.socket(2) { R.core(2) } } },
      }
      assert(g:set_aggregates("ALL:core,ALL:node"))
      local m = core.matcher(g)
      assert(m:set_policy("fresh"))
      assert(m:cancel(assert(m:match(nodes_yaml(1, 1))).id))
      if spec then assert(g:set_aggregates(spec)) end
      return one_core_nodes(m, 4)
    end
    assert.same({"a0", "a1", "a1", "a0"}, run(nil))
    assert.same({"a0", "a1", "a1", "a1"}, run("ALL:core,ALL:node,ALL:socket"))
  end)

  -- A rack of more children than the matcher sorts anew at each walk keeps
  -- its order between matches and moves only the children whose rank
  -- changed: a stream of matches and cancels lands where the rule says
  -- (first fit in the order of rank, untouched first, then highest id;
  -- a node's rank is its free cores when a job last went through it),
  -- and a node put in the place of another one is seen at once.
  it("fresh keeps a large parent's order as ranks change", function()
    local g = core.graph()
    local rack = g:add_vertex { type = "rack", id = 0 }
    assert(g:add_child(g:add_vertex { type = "cluster", id = 0 }, rack))
    local nodes, free, rank = {}, {}, {}
    local function add_node(i)
      local n = g:add_vertex { type = "node", id = i }
      assert(g:add_child(rack, n))
      for j = 0, 3 do assert(g:add_child(n, g:add_vertex { type = "core", id = j })) end
      nodes[#nodes + 1], free[n:name()], rank[n:name()] = n:name(), 4, math.huge
    end
    for i = 0, 39 do add_node(i) end
    assert(g:set_aggregates("ALL:core,ALL:node"))
    local m = core.matcher(g)
    assert(m:set_policy("fresh"))
    local function expected(cores)
      local best
      for i = #nodes, 1, -1 do
        local n = nodes[i]
        if free[n] >= cores and (not best or rank[n] > rank[best]) then best = n end
      end
      return best
    end
    local held, seed = {}, 7
    local function rand(k) seed = (seed * 1103515245 + 12345) % 2147483648; return seed % k end
    local function step(cores)
      local want = expected(cores)
      local job = assert(m:match(nodes_yaml(1, cores)))
      local got = picked(job, "node")
      assert.equal(want, got)
      free[got] = free[got] - cores
      rank[got] = free[got]
      held[#held + 1] = {id = job.id, node = got, cores = cores}
    end
    for _ = 1, 120 do
      if #held > 0 and rand(3) == 0 then
        local h = table.remove(held, rand(#held) + 1)
        assert(m:cancel(h.id))
        free[h.node] = free[h.node] + h.cores -- its rank stays
      elseif expected(3) then
        step(rand(3) + 1)
      end
    end
    -- the tree changes, the rack keeping as many children: a kept order
    -- made for the old tree would still list node5 and miss node40
    for _, h in ipairs(held) do
      assert(m:cancel(h.id))
      free[h.node] = free[h.node] + h.cores
    end
    held = {}
    assert.is_true(g:unlink(g:vertex("/cluster0/rack0/node5")))
    table.remove(nodes, 6)
    add_node(40)
    step(1)
    assert.equal("node40", held[1].node)
    for _ = 1, 30 do step(rand(3) + 1) end
  end)

  -- Nodes rank by the cores the running jobs left free, sockets by the
  -- nodes below them (none: 0): on the tiny cluster, one-socket jobs of
  -- 10, 2, 1 and 1 cores land as the reference engine places them.
  it("fresh ranks each vertex by the last type its aggregates count", function()
    local g = tiny()
    assert(g:set_aggregates("ALL:core,ALL:node")) -- the reference engine's
    local m = core.matcher(g)
    assert(m:set_policy("fresh"))
    local function socket_job(cores)
      return match.jobspec({{type = "node", count = 1, with = {{type = "socket", count = 1,
        with = {{type = "slot", count = 1, label = "default",
          with = {{type = "core", count = cores}}}}}}}}, 3600)
    end
    local got = {}
    for _, cores in ipairs{10, 2, 1, 1} do
      local job = assert(m:match(socket_job(cores)))
      got[#got + 1] = picked(job, "node") .. "." .. picked(job, "socket")
    end
    assert.same({"node1.socket1", "node0.socket1", "node0.socket0", "node0.socket1"}, got)
  end)

  -- A pool asked for by a leaf request below a clean exclusive pick is
  -- taken the short way (take_clean_leaf) unless a prune hook is set; a
  -- hook that prunes nothing sends every candidate through the general
  -- take, and the picks must be the same.  A socket inside a slot is held
  -- exclusively without being asked for whole, so the picks name the
  -- very cores taken; the first job leaves a core and a socket with
  -- records, which are not clean.
  it("take a clean exclusive pick's pools as the general way does", function()
    local function slot_sockets(sockets, cores)
      return match.jobspec({{type = "node", count = 1, with = {
        {type = "slot", count = 1, label = "default", with = {
          {type = "socket", count = sockets, with = {{type = "core", count = cores}}}}}}}}, 60)
    end
    local function run(policy)
      local m = core.matcher(tiny())
      assert(m:set_policy(policy))
      local out = {}
      for i, js in ipairs{slot_sockets(1, 1), slot_sockets(2, 3), slot_sockets(1, 17),
                          slot_sockets(2, 18), slot_sockets(2, 18)} do
        local job, err = m:match(js)
        out[i] = job and names(job) or err
      end
      return out
    end
    local short = run("first")
    assert.same(short, run(assert(core.policy_parse("return {prune = function() return false end}",
      "p.lua"))))
    assert.matches("node1:1s socket0:1x socket1:1x core0:1x core1:1x core2:1x "
      .. "core18:1x core19:1x core20:1x$", short[2])
    assert.equal("no matching resources", short[5])
  end)

  it("refuse a closed policy", function()
    local m = core.matcher(tiny())
    local p = assert(core.policy_parse("return {prune = function() return false end}", "p.lua"))
    m:set_policy(p)
    p:close()
    assert.has_error(function() m:match(nodes_yaml(1, 1)) end,
      "the matcher's policy was closed: set another one")
    assert.has_error(function() m:set_policy(p) end,
      "bad argument #1 to 'set_policy' (policy is closed)")
    assert(m:set_policy("first"))
    assert(m:match(nodes_yaml(1, 1)))
  end)
end)

describe("matcher life", function()
  it("closes idempotently and refuses use after close", function()
    local g = tiny()
    local m = core.matcher(g)
    assert(m:match(nodes_yaml(1, 1)))
    m:close()
    m:close()
    assert.equal("grove.matcher (closed)", tostring(m))
    assert.has_error(function() m:match(nodes_yaml(1, 1)) end,
      "calling 'match' on bad self (matcher is closed)")
    -- the graph keeps its records
    assert.equal(1, g:vertex("/tiny0/rack0/node0/socket0/core0"):allocated())
    do
      local m2 <close> = core.matcher(g)
      assert(m2:match(nodes_yaml(1, 1)))
    end
  end)

  it("refuses work once its graph is closed", function()
    local g = tiny()
    local m = core.matcher(g)
    g:close()
    assert.has_error(function() m:match(nodes_yaml(1, 1)) end, "the matcher's graph is closed")
    assert.has_error(function() m:jobs() end, "the matcher's graph is closed")
    m:close()
  end)
end)

-- ---- the corpus: basics and granule on tiny, C policies and Lua twins ---------------

local function read_tsv(path)
  local rows = {}
  for line in io.lines(path) do
    if line:sub(1, 1) ~= "#" then
      local f = {}
      for field in (line .. "\t"):gmatch("([^\t]*)\t") do f[#f + 1] = field end
      rows[#rows + 1] = f
    end
  end
  return rows
end

-- "cluster=1,core=1" for the picks of j (only the exclusive ones if excl).
local function summary(j, excl)
  local sums, types = {}, {}
  for _, p in ipairs(j.picks) do
    if not excl or p.exclusive then
      local t = p.vertex:type()
      if not sums[t] then types[#types + 1] = t end
      sums[t] = (sums[t] or 0) + p.amount
    end
  end
  table.sort(types)
  local out = {}
  for _, t in ipairs(types) do out[#out + 1] = t .. "=" .. sums[t] end
  return #out > 0 and table.concat(out, ",") or "-"
end

local function replay(policy, cmds)
  local m = core.matcher(tiny())
  assert(m:set_policy(policy))
  local got = {}
  for line in io.lines(CORPUS .. "/fluxion/" .. cmds) do
    local verb, a, b = line:match("^(%S+)%s+(%S+)%s*(%S*)")
    if verb == "cancel" then
      m:cancel(tonumber(a))
    elseif verb == "match" then
      local path = CORPUS .. "/fluxion/" .. b:gsub("^.*data/resource/", "")
      local js = core.jobspec_load(path)
      local row
      if not js then
        row = "ERROR - - -"
      else
        local j, _, code = m:match(js, a)
        if j and a == "satisfiability" then
          row = "SATISFIABLE - - -"
        elseif j then
          row = ("%s %d %s %s"):format(j.state:upper(), j.start, summary(j), summary(j, true))
        elseif a == "satisfiability" then
          row = "UNSATISFIABLE - - -"
        else
          row = (code == "ENODEV" and a ~= "allocate" and "NOMATCH_UNSAT" or "NOMATCH")
            .. " - - -"
        end
      end
      got[#got + 1] = row
    end
  end
  return got
end

describe("the corpus on tiny", function()
  local outcomes = {}
  for _, o in ipairs(read_tsv(CORPUS .. "/fluxion/outcomes.tsv")) do
    if o[1] ~= "test_id" then
      outcomes[o[1]] = outcomes[o[1]] or {}
      table.insert(outcomes[o[1]], table.concat({o[5], o[6], o[7], o[8]}, " "))
    end
  end
  for _, t in ipairs(read_tsv(CORPUS .. "/fluxion/tests.tsv")) do
    local id, group, graph, policy, prune, out, cmds = t[1], t[3], t[4], t[8], t[10], t[11],
      t[12]
    if graph == "grugs/tiny.graphml" and prune == "-" and out == "simple"
      and (group == "basics" or group == "granule") then
      it(("%s %s %s (%s) with the C policy and its Lua twin"):format(id, group, policy, cmds),
        function()
          local want = assert(outcomes[id], "no outcomes for " .. id)
          assert.same(want, replay(policy, cmds))
          assert.same(want, replay(assert(core.policy_load("policies/" .. policy .. ".lua")),
            cmds))
        end)
    end
  end
end)

describe("m:rv1", function()
  it("writes a job's R, with its scheduling graph on request", function()
    local m = core.matcher(tiny())
    local j = assert(m:match(nodes_yaml(1, 2, false, 600)))
    local R = assert(m:rv1(j.id))
    local t = R:to_table()
    assert.equal(1, t.version)
    assert.equal(1, #t.execution.R_lite)
    assert.equal(0, t.execution.starttime)
    assert.equal(600, t.execution.expiration)
    assert.equal(2, R:count("core"))
    assert.is_nil(t.scheduling)
    local Rg = assert(m:rv1(j.id, { graph = true }))
    assert.is_table(Rg:to_table().scheduling)
    -- the scheduling graph reads back into the same resources
    local g2 = assert(Rg:to_graph())
    assert.equal(2, g2:count("core"))
  end)

  it("fails on an unknown job and raises on misuse", function()
    local m = core.matcher(tiny())
    expect.fails_like("ENOENT", "42", m:rv1(42))
    assert.has_error(function() m:rv1("x") end)
    assert.has_error(function() m:rv1(1, 5) end)
  end)

  it("refuses an option it does not know, and takes every one it does", function()
    local m = core.matcher(tiny())
    local j = assert(m:match(nodes_yaml(1, 2, false, 600)))
    assert.has_error(function() m:rv1(j.id, {grpah = true}) end,
      "bad argument #2 to 'rv1' (unknown option 'grpah' (did you mean 'graph'?))")
    local t = assert(m:rv1(j.id, {graph = true, expiration = 900})):to_table()
    assert.equal(900, t.execution.expiration)
    assert.is_table(t.scheduling)
  end)
end)

describe("a jobspec given to a matcher as text or a table", function()
  local fpga = match.nodes_yaml(1, 2, nil, 3600):gsub("type: core", "type: fpga")

  it("is refused as it is read when it names a type no graph has", function()
    local m = core.matcher(tiny())
    for _, mode in ipairs{"allocate", "allocate_orelse_reserve", "satisfiability"} do
      expect.fails("EINVAL", "resources[0].with[0].with[0].type: unknown resource type 'fpga'",
        m:match(fpga, mode))
    end
    expect.fails("EINVAL", "resources[0].with[0].with[0].type: unknown resource type 'fpga'",
      m:fits_idle(fpga))
    local t = assert(core.jobspec_parse(fpga)):to_table()
    expect.fails_with("EINVAL", "unknown resource type 'fpga'", m:match(t))
    assert.same({}, m:jobs())
  end)

  it("may name the graph's types and the standard ones it lacks", function()
    local g = tiny()
    local m = core.matcher(g)
    local known = m:known_types()
    for _, t in ipairs(g:types()) do assert.truthy(table.concat(known, " "):find(t, 1, true)) end
    -- tiny has no ssd: found nowhere, not refused
    local ssd = match.nodes_yaml(1, 2, nil, 3600):gsub("type: core", "type: ssd")
    local j, msg, code = m:match(ssd)
    assert.is_nil(j)
    assert.is_not.equal("EINVAL", code, msg)
    -- once the graph has an fpga, a request for one is read
    local node = g:vertices{type = "node"}()
    assert(g:add_child(node, g:add_vertex{type = "fpga", id = 0}))
    m = core.matcher(g)
    local one = match.nodes_yaml(1, 1, nil, 3600):gsub("type: core", "type: fpga")
    local _, msg2, code2 = m:match(one)
    assert.is_not.equal("EINVAL", code2, msg2)
  end)
end)

describe("slot locality", function()
  -- 2 nodes of 2 sockets x (18 cores, 1 GPU), as docs/policies.md shows
  local function example()
    local grove = require("grove")
    local m = core.matcher(require("grove.repl").example_cluster())
    return m, grove.jobspec
  end

  -- "socketN" of each core and GPU a job holds, in pick order
  local function sockets(job)
    local out = {}
    for _, p in ipairs(job.picks) do
      local t = p.vertex:type()
      if t == "core" or t == "gpu" then out[#out + 1] = t .. ":" .. p.vertex:parent():name() end
    end
    return out
  end

  it("keeps a slot's cores and GPU on one socket when one has them", function()
    local m, js = example()
    assert(m:match(js{nodes = 1, cores_per_node = 16}, "allocate"))
    local j = assert(m:match(js{nodes = 1, tasks = 1, cores_per_task = 4, gpus_per_task = 1},
      "allocate"))
    assert.same({"core:socket1", "core:socket1", "core:socket1", "core:socket1", "gpu:socket1"},
      sockets(j))
  end)

  it("spans the sockets of a node with a slot no socket holds", function()
    local m, js = example()
    local j = assert(m:match(js{nodes = 1, tasks = 1, cores_per_task = 20}, "allocate"))
    local n = {}
    for _, s in ipairs(sockets(j)) do n[s] = (n[s] or 0) + 1 end
    assert.same({["core:socket0"] = 18, ["core:socket1"] = 2}, n)
  end)
end)
