-- Specs for RFC 28 acquisition in Lua: the grove.acquire userdata
-- (responses as text and tables, events, commands, state, misuse) and the
-- replay of scripted sessions (grove.replay and `grove acquire-replay`),
-- including the fixture scripts in spec/fixtures/acquire.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
-- luacheck: no max string line length
local core = require("grove.core")
local exe = require("exe_helper")
local expect = require("expect")
local replay = require("grove.replay")

local FIX = "spec/fixtures/acquire/"

local function R(ranks, cores, hosts)
  return {version = 1, execution = {R_lite = {{rank = ranks, children = {core = cores or "0-3"}}},
    nodelist = hosts and {hosts} or nil}}
end

local function grow(ranks, online, offline)
  return {type = "grow", resources = R(ranks), online = online, offline = offline or ""}
end

local function fresh(opts)
  local g = core.graph()
  local m = core.matcher(g)
  return core.acquire(g, m, opts), g, m
end

-- The vertices a g:vertices{} search finds, as a list.
local function find(g, spec)
  local t = {}
  for v in g:vertices(spec) do t[#t + 1] = v end
  return t
end

-- The error message of a call that must raise (busted's has_error drops a
-- leading "source:line: ", which these messages carry on purpose).
local function raised(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "did not raise")
  return err
end

local function cores(n, duration)
  return require("grove.jobspec").build{nodes = 1, cores_per_node = n, duration = duration or 100}
end

describe("core.acquire", function()
  it("binds a graph and a matcher", function()
    local a, g, m = fresh()
    assert.equal("grove.acquire (auto, targets , usable )", tostring(a))
    assert.equal(g, a:graph())
    assert.equal(m, a:matcher())
    assert.equal("auto", a:protocol())
    assert.equal("default", a:group())
    assert.is_false(a:started())
    assert.equal(0, a:expiration())
    assert.is_nil(a:failure())
    local b = core.acquire(core.graph(), {group = "batch", protocol = "v1"})
    assert.equal("batch", b:group())
    assert.equal("v1", b:protocol())
    assert.is_nil(b:matcher())
  end)

  it("raises on misuse", function()
    assert.has_error(function() core.acquire() end,
      "bad argument #1 to 'acquire' (grove.graph expected, got no value)")
    local g = core.graph()
    assert.has_error(function() core.acquire(g, core.matcher(core.graph())) end,
      "bad argument #2 to 'acquire' (the matcher schedules another graph)")
    assert.has_error(function() core.acquire(g, {colour = 1}) end,
      "bad argument #2 to 'acquire' (unknown option 'colour'; the options are group, protocol)")
    assert.has_error(function() core.acquire(g, {"group"}) end,
      "bad argument #2 to 'acquire' (unknown option '1'; the options are group, protocol)")
    assert.has_error(function() core.acquire(g, {gruop = "x"}) end,
      "bad argument #2 to 'acquire' (unknown option 'gruop' (did you mean 'group'?); the "
      .. "options are group, protocol)")
    assert.has_error(function() core.acquire(g, {protocol = "v2"}) end,
      "bad argument #2 to 'acquire' (protocol: unknown protocol 'v2' (did you mean 'v1'?); the "
      .. "protocols are auto, v1, current)")
    assert.has_error(function() core.acquire(g, core.matcher(g), {protocol = 2}) end,
      "bad argument #3 to 'acquire' (protocol must be a string)")
    assert.has_error(function() core.acquire(g, {group = ""}) end,
      "bad argument #2 to 'acquire' (group must be a non-empty string)")
    local a = core.acquire(g)
    assert.has_error(function() a:apply(42) end,
      "bad argument #1 to 'apply' (JSON text or table expected, got number)")
    assert.has_error(function() a:apply{type = "online", targets = function() end} end,
      "bad argument #1 to 'apply' (cannot be written as JSON: a function value)")
    assert.has_error(function() a:targets("nope") end,
      "bad argument #1 to 'targets' (unknown set 'nope'; the sets are acquired, up, down, "
      .. "drained, excluded, shrunk, pending, usable)")
    require("grove") -- the closest name is grove.suggest's (core.set_suggest)
    assert.has_error(function() a:targets("drainde") end,
      "bad argument #1 to 'targets' (unknown set 'drainde' (did you mean 'drained'?); the sets "
      .. "are acquired, up, down, drained, excluded, shrunk, pending, usable)")
    a:close()
    assert.equal("grove.acquire (closed)", tostring(a))
    assert.has_error(function() a:targets("up") end,
      "calling 'targets' on bad self (acquisition state is closed)")
    a:close() -- idempotent
    local b = core.acquire(g)
    g:close()
    assert.has_error(function() b:state() end, "the acquisition state's graph is closed")
    local g2 = core.graph()
    local m2 = core.matcher(g2)
    local c = core.acquire(g2, m2)
    m2:close()
    assert.has_error(function() c:update() end,
      "the acquisition state's matcher is closed or busy")
  end)

  it("applies version 1 responses as tables or text, with events", function()
    local a, g, m = fresh()
    local ev = assert(a:apply(grow("0-3", "0-2", "3")))
    assert.same({release = {}, exceptions = {}, reservations = {}, affected = {}, removed = "",
      reevaluate = true}, ev)
    assert.equal("v1", a:protocol())
    assert.is_true(a:started())
    assert.equal("0-3", a:targets("acquired"))
    assert.equal("0-2", a:targets("up"))
    assert.equal("3", a:targets("down"))
    assert.equal("0-2", a:targets("usable"))
    assert.equal("down", find(g, {type = "node", rank = 3})[1]:status())
    local j1 = assert(m:match(cores(4)))
    assert(m:match(cores(2)))
    assert.same({j1.id}, a:jobs_on("0"))
    assert.same({}, a:jobs_on("2-3"))
    ev = assert(a:apply('{"type":"shrink","targets":"0-1"}'))
    assert.same({release = {}, reservations = {}, affected = {}, removed = "", reevaluate = true,
      exceptions = {
        {id = 1, targets = "0", note = "resources removed from the instance (shrink 0)"},
        {id = 2, targets = "1", note = "resources removed from the instance (shrink 1)"}}}, ev)
    assert.equal("0-1", a:targets("pending"))
    assert.equal("excluded", find(g, {type = "node", rank = 0})[1]:status())
    m:cancel(1)
    ev = a:update()
    assert.same({{group = "default", targets = "0"}}, ev.release)
    assert.equal("0", ev.removed)
    assert.same({}, find(g, {type = "node", rank = 0}))
    m:cancel(2)
    assert.same({{group = "default", targets = "1"}}, a:update().release)
    assert.same({}, a:update().release)
    ev = assert(a:apply{type = "error", errstr = "gone"})
    assert.equal("gone", ev.error)
    assert.equal("gone", a:failure())
    expect.fails("EINVAL",
      "the acquisition ended with an error response (gone): no response is accepted until it "
      .. "is restarted",
      a:apply{type = "online", targets = "2"})
    assert.is_true(a:disconnect())
    assert.is_nil(a:failure())
  end)

  it("refuses invalid responses exactly and changes nothing", function()
    local a = fresh()
    assert(a:apply(grow("0-1", "0-1")))
    local before = a:state()
    local rows = {
      {"{", "response: invalid JSON at line 1, column 1: string or '}' expected near end of "
        .. "file", "EINVAL"},
      {{type = "online", targets = "3"}, "online: targets: target 3 was never acquired",
        "ENOENT"},
      {{type = "online", targets = "1-0"}, nil, "EINVAL"},
      {{type = "jump", targets = "0"}, "response: unknown type 'jump' (expected grow, shrink, "
        .. "online, offline or error)", "EINVAL"},
      {{type = "online", targets = 0}, "online: targets: expected an idset string, got a "
        .. "number", "EINVAL"},
      {grow("1", "1"), "grow: target 1 is already acquired", "EEXIST"},
      {{up = "1"}, "response: no type: a current-protocol response in a session that uses "
        .. "version 1", "EINVAL"},
      {"[]", "response: expected a JSON object, got an array", "EINVAL"},
    }
    for i, row in ipairs(rows) do
      local ok, msg, code = a:apply(row[1])
      assert.is_nil(ok, "row " .. i)
      if row[2] then assert.equal(row[2], msg, "row " .. i) end
      assert.equal(row[3], code, "row " .. i)
      assert.same(before, a:state(), "row " .. i)
    end
  end)

  it("follows the current protocol", function()
    local a, g = fresh()
    expect.fails("EINVAL",
      "response: no resources acquired yet (the first response must have resources and up)",
      a:apply{up = "0"})
    assert(a:apply{resources = R("0-5", "0-3", "host[0-5]"), up = "0-2"})
    assert.equal("current", a:protocol())
    assert.equal("3-5", a:targets("down"))
    local ev = assert(a:apply{up = "3-5", down = "2,5", shrink = "5",
      ["property-add"] = {foo = "0-1"}, ["property-remove"] = {bar = "3"}})
    assert.same({release = {}, exceptions = {}, reservations = {}, affected = {}, removed = "5",
      reevaluate = true}, ev)
    assert.equal("0-1,3-4", a:targets("up"))
    assert.equal("", find(g, {rank = 0, type = "node"})[1]:property("foo"))
    assert(a:apply{["property-remove"] = {foo = "0"}})
    assert.is_nil(find(g, {rank = 0, type = "node"})[1]:property("foo"))
    assert(a:apply{expiration = 1234.5})
    assert.equal(1234.5, a:expiration())
    expect.fails("EINVAL",
      "response: unknown key 'shink' (expected up, down, shrink, property-add, "
      .. "property-remove, expiration)",
      a:apply{shink = "4"})
  end)

  it("builds a first resource set into an empty graph as the graph of its R", function()
    local text = '{"version":1,"execution":{"R_lite":[{"rank":"0-3","children":'
      .. '{"core":"0-3","gpu":"0"}},{"rank":"4","children":{"core":"0-1"}}],'
      .. '"nodelist":["host[0-4]"],"properties":{"big":"4"}}}'
    local a, g = fresh()
    assert(a:apply{resources = core.json_decode(text), up = "0-4"})
    local want = assert(assert(core.rv1_decode(text)):to_graph())
    assert.equal(#want, #g)
    for _, ty in ipairs{"cluster", "node", "core", "gpu"} do
      assert.equal(want:count(ty), g:count(ty), ty)
    end
    assert.equal(core.rv1_from_graph(want):encode(), core.rv1_from_graph(g):encode())
    assert.equal("", find(g, {rank = 4, type = "node"})[1]:property("big"))
    -- the graph is the matcher's
    assert(a:matcher():match(cores(4), "allocate", 1))
  end)

  it("leaves the empty graph empty when a first resource set is refused", function()
    -- 4,000 nodes of 100,000 cores: past the members limit, refused
    -- before a vertex is made
    local huge = {version = 1, execution = {R_lite = {{rank = "0-3999",
      children = {core = "0-99999"}}}}}
    local a, g = fresh()
    local ok, msg, code = a:apply{resources = huge, up = "0-3999"}
    assert.is_nil(ok)
    assert.equal("EINVAL", code)
    assert.matches("first response: resources: execution.R_lite", msg, 1, true)
    assert.equal(0, #g)
    assert.is_false(a:started())
    assert(a:apply{resources = R("0-1"), up = "0-1"})
    assert.equal(2 + 8 + 1, #g)
  end)

  it("takes an error response in each form today's protocol has", function()
    -- flux-core's resource module answers with flux_respond_error (an errno
    -- and a text): decoded as errnum and errstr, bare or in an error member
    local forms = {
      {{errnum = 71, errstr = "lost"}, "lost (errno 71)"},
      {{errnum = 71}, "error 71"},
      {{error = {errnum = 19, errstr = "gone"}}, "gone (errno 19)"},
      {{error = "the resource module unloaded"}, "the resource module unloaded"},
    }
    for i, f in ipairs(forms) do
      local a = fresh()
      assert(a:apply{resources = R("0-1", "0-3", "host[0-1]"), up = "0-1"})
      local ev = assert(a:apply(f[1]), "form " .. i)
      assert.equal(f[2], ev.error, "form " .. i)
      assert.equal(f[2], a:failure(), "form " .. i)
    end
    local a = fresh()
    assert(a:apply{resources = R("0-1", "0-3", "host[0-1]"), up = "0-1"})
    local before = a:state()
    expect.fails("EINVAL", "error: unknown key 'up' (expected error)",
      a:apply{error = "x", up = "0"})
    expect.fails("EINVAL", "error: unknown key 'errno' (expected errnum, errstr)",
      a:apply{error = {errno = 5}})
    expect.fails("EINVAL", "error: expected a text or an object of errnum and errstr, got a number",
      a:apply{error = 5})
    assert.same(before, a:state())
    assert.is_nil(a:failure())
  end)

  it("drains and excludes by command", function()
    local a, g, m = fresh()
    expect.fails("EINVAL", "drain: no resources acquired yet", a:drain("0"))
    assert(a:apply(grow("0-1", "0-1")))
    assert.is_true(a:drain("0"))
    assert.is_true(a:exclude(core.idset("1")))
    assert.equal("0", a:targets("drained"))
    assert.equal("1", a:targets("excluded"))
    assert.equal("", a:targets("usable"))
    assert.equal("drained", find(g, {type = "node", rank = 0})[1]:status())
    assert.equal("excluded", find(g, {type = "node", rank = 1})[1]:status())
    local j, _, c = m:match(cores(1))
    assert.is_nil(j)
    assert.equal("EBUSY", c)
    -- but satisfiable
    assert(m:match(cores(4), "satisfiability"))
    expect.fails("ENOENT", "exclude: targets: target 7 was never acquired", a:exclude("7"))
    expect.fails_like("EINVAL", "^invalid", a:undrain("x"))
    assert.is_true(a:undrain("0"))
    assert.is_true(a:include("1"))
    assert.equal("0-1", a:targets("usable"))
    assert.equal("up", find(g, {type = "node", rank = 1})[1]:status())
  end)

  it("saves and restores its state as a table", function()
    local a, g = fresh()
    assert(a:apply(grow("0-3", "0-1", "2-3")))
    a:drain("1")
    assert(a:apply{type = "shrink", targets = "3"})
    local st = a:state()
    assert.same({protocol = "v1", group = "default", started = true, reacquire = false,
      expiration = 0, acquired = "0-2", up = "0-1", down = "2", drained = "1", excluded = "",
      shrunk = "3", pending = "", quiet = ""}, st)
    local b = core.acquire(g)
    assert.is_true(b:set_state(st))
    assert.same(st, b:state())
    local bad = {}
    for k, v in pairs(st) do bad[k] = v end
    bad.up = "3-1"
    local ok, _, code = b:set_state(bad)
    assert.is_nil(ok)
    assert.equal("EINVAL", code)
    bad.up, bad.protocol = "0", "v9"
    local msg
    ok, msg = b:set_state(bad)
    assert.is_nil(ok)
    assert.equal("acquisition state: protocol: expected auto, v1 or current", msg)
    assert.same(st, b:state())
  end)

  it("gives a child instance its job's resources", function()
    local g = dofile "examples/tiny.lua"
    local m = core.matcher(g)
    local job = assert(m:match(cores(4)))
    local Rc = assert(core.child_resources(m, job.id))
    assert.equal("0", tostring(Rc:ranks()))
    assert.equal(4, Rc:count("core"))
    assert.is_table(Rc:to_table().scheduling.graph)
    local first = assert(core.acquire_first_response(Rc))
    assert.matches('"up":"0"}$', first)
    assert.equal(first, core.acquire_first_response(Rc:encode()))
    expect.fails("ENOENT", "no job 99", core.child_resources(m, 99))
    expect.fails_like("EINVAL", "^R:", core.acquire_first_response("{"))
  end)
end)

describe("grove.replay", function()
  for _, name in ipairs{"v1-session", "current-session", "invalid", "restart", "restart-store"} do
    it("runs " .. name .. ".replay with every expectation met", function()
      local r = assert(replay.run_file(FIX .. name .. ".replay"))
      assert.same({}, r.failures)
      assert.is_true(#r.steps > 5)
    end)
  end

  it("prints the state after each step", function()
    local r = replay.run([[
{"type":"grow","resources":{"version":1,"execution":{"R_lite":[{"rank":"0-1","children":{"core":"0-1"}}]}},"online":"0-1","offline":""}
match allocate nodes=1 cores_per_node=2 duration=10
{"type":"shrink","targets":"0"}
cancel 1
{"type":"online","targets":"0"}
]])
    assert.equal([[
-- 1 (line 1): {"type":"grow","resources":{"version":1,"execution":{"R_lite":[{"rank":"0-1","children":{"core":"...
targets: acquired=0-1 up=0-1 down= drained= excluded= shrunk= pending=
jobs: -
reevaluate: the resource set changed
-- 2 (line 2): match allocate nodes=1 cores_per_node=2 duration=10
job: 1 allocated ranks=0 start=0 end=10
targets: acquired=0-1 up=0-1 down= drained= excluded= shrunk= pending=
jobs: 1=allocated[0]
-- 3 (line 3): {"type":"shrink","targets":"0"}
targets: acquired=1 up=1 down= drained= excluded= shrunk=0 pending=0
jobs: 1=allocated[0]
exception: job=1 targets=0
reevaluate: the resource set changed
-- 4 (line 4): cancel 1
targets: acquired=1 up=1 down= drained= excluded= shrunk=0 pending=
jobs: -
release: group=default targets=0
removed: 0
-- 5 (line 5): {"type":"online","targets":"0"}
refused: ENOENT: online: targets: target 0 was removed by shrink
targets: acquired=1 up=1 down= drained= excluded= shrunk=0 pending=
jobs: -
]], r.output)
  end)

  it("reads multi-line responses and arrays of responses", function()
    local r = replay.run([[
[{"type": "grow",
  "resources": {"version": 1, "execution": {"R_lite": [{"rank": "0-2", "children": {"core": "0"}}]}},
  "online": "0-2", "offline": ""},
 {"type": "offline", "targets": "1"}]
# a comment, then a response over three lines with a brace in a string
{"type": "offline",
 "targets": "2"
}
expect down 1-2
{"type": "error", "errstr": "}{"}
expect failure }{
]])
    assert.same({}, r.failures)
    assert.equal(6, #r.steps)
    assert.same({1, 1, 6, 9, 10, 11}, {r.steps[1].line, r.steps[2].line, r.steps[3].line,
      r.steps[4].line, r.steps[5].line, r.steps[6].line})
  end)

  it("reports failed expectations with their line", function()
    local r = replay.run([[
{"type":"grow","resources":{"version":1,"execution":{"R_lite":[{"rank":"0","children":{"core":"0"}}]}},"online":"0","offline":""}
expect up 0-1
expect refused
expect jobs 4
expect release -
]], {source = "s.replay"})
    assert.same({"s.replay:2: expect up 0-1: got 0",
      "s.replay:3: expect refused: the previous step was accepted",
      "s.replay:4: expect jobs 4: got -"}, r.failures)
  end)

  it("raises on script errors with the place", function()
    assert.equal("x:1: unknown command 'frobnicate'",
      raised(replay.run, "frobnicate 3", {source = "x"}))
    assert.equal("x:2: match: unknown mode 'now'",
      raised(replay.run, "\nmatch now nodes=1", {source = "x"}))
    assert.equal("x:1: match: expected key=value, got 'cores'",
      raised(replay.run, "match allocate nodes=1 cores", {source = "x"}))
    assert.equal("x:1: match: ./nodes.yaml: No such file or directory",
      raised(replay.run, "match allocate nodes.yaml", {source = "x"}))
    assert.equal("x:1: cancel: expected a job id", raised(replay.run, "cancel", {source = "x"}))
    assert.equal("x:1: unterminated JSON", raised(replay.run, "{\"type\":", {source = "x"}))
    assert.equal("replay:1: expect: unknown check 'colour'",
      raised(replay.run, "expect colour red"))
    assert.has_error(function() replay.new(3) end,
      "bad argument #1 to 'new' (table expected, got number)")
  end)

  it("refuses an option it does not know, and takes every one it does", function()
    assert.has_error(function() replay.new{protocl = "v1"} end,
      "bad argument #1 to 'new' (unknown option 'protocl' (did you mean 'protocol'?))")
    assert.has_error(function() replay.new{json = true} end,
      "bad argument #1 to 'new' (unknown option 'json')")
    assert.has_error(function() replay.run("", {sorce = "x"}) end,
      "bad argument #2 to 'run' (unknown option 'sorce' (did you mean 'source'?))")
    assert.has_error(function() replay.run_file("nothere.replay", {jsno = true}) end,
      "bad argument #2 to 'run_file' (unknown option 'jsno' (did you mean 'json'?))")
    local m = core.matcher(dofile "examples/tiny.lua")
    local job = assert(m:match(cores(6)))
    assert.has_error(function() replay.child(m, job.id, {polcy = "high"}) end,
      "bad argument #3 to 'child' (unknown option 'polcy' (did you mean 'policy'?))")
    local all = {protocol = "auto", group = "default", policy = "first", graph = core.graph(),
      base = ".", default_duration = 60}
    assert.truthy(replay.new(all))
    all.graph, all.source, all.json = core.graph(), "x", true
    assert.same({}, replay.run("", all).failures)
  end)

  it("uses a policy and jobspec files", function()
    local dir = os.tmpname()
    os.remove(dir)
    os.execute("mkdir -p " .. dir)
    local f = assert(io.open(dir .. "/js.yaml", "w"))
    f:write(require("grove.jobspec").to_yaml(cores(1)))
    f:close()
    f = assert(io.open(dir .. "/s.replay", "w"))
    f:write([[
policy high
{"resources":{"version":1,"execution":{"R_lite":[{"rank":"0-3","children":{"core":"0-1"}}]}},"up":"0-3"}
match allocate js.yaml
expect jobs 1
]])
    f:close()
    local r = assert(replay.run_file(dir .. "/s.replay"))
    assert.same({}, r.failures)
    assert.equal("3", r.steps[3].job.ranks) -- high: the last node
    os.execute("rm -rf " .. dir)
  end)

  it("builds child instances inside a parent's job", function()
    local g = dofile "examples/tiny.lua"
    local m = core.matcher(g)
    local job = assert(m:match(cores(6)))
    local c = assert(replay.child(m, job.id, {policy = "high"}))
    assert.equal("high", c.matcher:policy())
    assert.equal("0", c.acquire:targets("up"))
    assert.equal(6, #find(c.graph, {type = "core"}))
  end)
end)

describe("grove acquire-replay", function()
  local function run(args)
    return exe.transcript(exe.GROVE .. " acquire-replay " .. args)
  end

  it("prints the session and exits 0", function()
    local out = run(FIX .. "restart.replay")
    assert.matches("targets: acquired=0%-1,3 up=0,3 down=1 drained=1", out)
    assert.matches("rc=0\n$", out)
  end)

  it("exits 1 on a failed expectation, 2 on a script error or bad usage", function()
    local tmp = os.tmpname()
    local f = io.open(tmp, "w")
    f:write("expect up 1\n")
    f:close()
    local out = run("-q " .. tmp)
    assert.matches(":1: expect up 1: got %-", out)
    assert.matches("rc=1\n$", out)
    f = io.open(tmp, "w")
    f:write("bogus\n")
    f:close()
    out = run(tmp)
    assert.matches(":1: unknown command 'bogus'", out)
    assert.matches("rc=2\n$", out)
    os.remove(tmp)
    assert.matches("rc=2\n$", run("--protocol=v9 x"))
    assert.matches("rc=2\n$", run(""))
    assert.matches("rc=2\n$", run("/nonexistent/file"))
  end)

  it("writes JSON lines", function()
    local out = run("--json -p v1 " .. FIX .. "restart.replay")
    local first = out:match("^[^\n]*")
    assert.matches('^{"events":{"affected":%[%],"exceptions":%[%],"reevaluate":true,', first)
    assert.matches('"protocol":"v1"', first)
  end)
end)
