-- queue_sandbox_spec: queue policies run in the C sandbox placement
-- policies run in (grove.core.script_load, docs/security.md): the limits
-- stop what an instruction budget in Lua could not (a C library call), the
-- environment hands out nothing of the host, memory kept across passes is
-- capped, the host's work in ctx counts against the policy's time (a loop
-- of ctx calls that never ends is stopped), starts the host would refuse
-- by count are refused in the sandbox, and a failing pass leaves the
-- simulation as it was.
local grove = require("grove")
local core = require("grove.core")
local sim = grove.sim
local R = grove.cluster.resources

local function machine()
  return grove.cluster "c" { R.node(4, {hostnames = "n[0-3]"}) { R.core(8) } }
end

local function parse(text, opts)
  return assert(sim.queue.parse(text, "q.lua", opts))
end

-- A simulation whose first pass runs the policy text; jobs 1 and 2 wait.
local function waiting(text, opts)
  local s = assert(sim.new{graph = machine(), queue = parse(text, opts)})
  s:submit{id = 1, submit = 0, run = 10, procs = 4}
  s:submit{id = 2, submit = 0, run = 10, procs = 32}
  return s
end

-- What a failed pass must leave as it was.
local function state(s)
  local j1, j2 = s:job(1), s:job(2)
  return {s:clock(), s:counts(), j1 and j1.state, j2 and j2.state}
end

local function fails(s, pattern)
  local before = state(s)
  local ok, err, code = s:step()
  assert.same({nil, "ECANCELED"}, {ok, code})
  assert.matches(pattern, err)
  -- the pass never ran: the clock moved to the arrivals, nothing started
  local after = state(s)
  assert.same(before[2].started, after[2].started)
  assert.equal(0, after[2].running)
  return err
end

describe("a queue policy in the C sandbox", function()
  it("ends a pass past its limits with ECANCELED, from grove.sched as from the simulation",
    function()
      local sched = require("grove.sched")
      local s = waiting([[
        return { schedule = function(ctx)
          while true do end
        end }]], {budget = 10000})
      local msg = "queue policy q: q.lua:2: instruction budget of 10000 exceeded"
      assert.same({nil, msg, "ECANCELED"}, {s:step()})
      -- the jobs wait: the loop's own pass answers the same
      assert.same({nil, msg, "ECANCELED"}, {sched.pass(s)})
      -- and the script's own call says why, with the code
      local script = assert(core.script_load("return { f = function() return ('x'):rep(2^20) end }",
        "m.lua", {memory = 65536}))
      local ok, err, code = script:call("f")
      assert.same({false, "ECANCELED"}, {ok, code})
      assert.equal("m.lua: memory limit of 65536 bytes exceeded", err)
    end)

  for _, case in ipairs {
    {"the instruction budget", {budget = 10000}, "instruction budget of 10000 exceeded"},
    {"the wall clock", {budget = 1e15, time = 2}, "wall%-clock limit of 2 s exceeded"},
  } do
    it("is stopped in a backtracking pattern by " .. case[1], function()
      local s = waiting([[
        return { schedule = function(ctx)
          local s = ("a"):rep(30)
          return s:find(("a?"):rep(30) .. ("a"):rep(30) .. "b")
        end }]], case[2])
      fails(s, "^queue policy q: q%.lua:3: " .. case[3] .. "$")
    end)
  end

  it("cannot catch a limit with pcall and keep going", function()
    local s = waiting([[
      return { schedule = function(ctx)
        pcall(string.find, ("a"):rep(30), ("a?"):rep(30) .. ("a"):rep(30) .. "b")
        ctx:start(ctx:queue()[1])
      end }]], {budget = 10000})
    fails(s, "instruction budget of 10000 exceeded$")
  end)

  for _, c in ipairs{
    {"io", "io.open('/etc/passwd')"}, {"os", "os.execute('true')"},
    {"require", "require('grove')"}, {"debug", "debug.getregistry()"},
    {"load", "load('return 1')"}, {"dofile", "dofile('/dev/null')"},
    {"string.dump", "string.dump(print)"},
    {"the string metatable", "getmetatable('').__index.rep = nil"},
  } do
    it("gets nothing from " .. c[1], function()
      local s = waiting("return { schedule = function(ctx) " .. c[2] .. " end }")
      fails(s, "^queue policy q: q%.lua:1: ")
      assert.is_function(string.rep)
      assert.equal(string, getmetatable("").__index)
    end)
  end

  it("changes only its own copies of the libraries", function()
    local s = waiting([[
      return { schedule = function(ctx)
        string.rep = nil; table.insert = nil; math.floor = nil
        for _, job in ipairs(ctx:queue()) do ctx:start(job) end
      end }]])
    s:run()
    assert.is_function(string.rep)
    assert.is_function(table.insert)
    assert.is_function(math.floor)
    assert.equal(2, s:counts().finished)
  end)

  it("hits the memory cap with what it keeps across passes", function()
    local q = parse([[
      local kept = {}
      return { schedule = function(ctx)
        kept[#kept + 1] = ("x"):rep(100000) .. #kept
        for _, job in ipairs(ctx:queue()) do if not ctx:start(job) then return end end
      end }]], {memory = 2 * 1024 * 1024})
    local s = assert(sim.new{graph = machine(), queue = q})
    for i = 1, 100 do s:submit{id = i, submit = i, run = 1000, procs = 32} end
    local ok, err, code = s:run()
    assert.same({nil, "ECANCELED"}, {ok, code})
    assert.matches("^queue policy q: q%.lua[:%d]*: memory limit of 2097152 bytes exceeded$", err)
    assert.is_true(s:clock() > 5)   -- a later pass: the cap held across passes
  end)

  it("is charged for the time ctx's methods take: a loop of calls that never ends stops",
    function()
      -- The policy's own work is a few instructions a call; the host's is
      -- 0.05 s asleep (a loaded machine cannot shorten it).  Counted, it
      -- reaches the 0.2 s limit within a few calls; not counted, only the
      -- budget (1,000 instructions, some 150 calls) would stop the loop,
      -- with another message.
      local q = parse([[
        return { schedule = function(ctx)
          while true do ctx:usage("slow") end
        end }]], {time = 0.2, budget = 1000})
      local s = assert(sim.new{graph = machine(), queue = q})
      local usage, calls = s.ctx.usage, 0
      s.ctx.usage = function(...)
        calls = calls + 1
        assert(os.execute("sleep 0.05"))
        return usage(...)
      end
      s:submit{id = 1, submit = 0, run = 10, procs = 4}
      local ok, err, code = s:run()
      assert.same({nil, "ECANCELED"}, {ok, code})
      assert.equal("queue policy q: q.lua:2: wall-clock limit of 0.2 s exceeded", err)
      -- read at every 16th call at least (a call may take longer than
      -- its 0.05 s on a loaded machine, so fewer than four can reach 0.2 s)
      assert.is_true(calls >= 1 and calls <= 16, "calls: " .. calls)
    end)

  it("refuses in the sandbox a start the loop would refuse by count, without calling it",
    function()
      -- 4 nodes of 8 cores; job 1 takes 24, then each pass offers every
      -- waiting job (2 to 9, 16 cores each; 10, 8 cores) to ctx:start
      local q = parse([[
        return { schedule = function(ctx)
          for _, job in ipairs(ctx:queue()) do ctx:start(job) end
        end }]])
      local function run(bounded)
        local rows = {}
        local s = assert(sim.new{graph = machine(), queue = q:reload(),
          out = function(r) rows[#rows + 1] = {r.id, r.start} end})
        if not bounded then s.queue_policy.bound_calls = false end
        local start, calls = s.ctx.start, 0
        s.ctx.start = function(...)
          calls = calls + 1
          return start(...)
        end
        s:submit{id = 1, submit = 0, run = 100, procs = 24}
        for id = 2, 9 do s:submit{id = id, submit = 1, run = 10, procs = 16} end
        s:submit{id = 10, submit = 2, run = 10, procs = 8}
        assert(s:run())
        table.sort(rows, function(a, b) return a[1] < b[1] end)
        return rows, calls
      end
      local rows, calls = run(true)
      local rows2, calls2 = run(false)
      assert.same(rows2, rows)           -- the same starts either way
      -- by hand: at 1 the 8 free cores fit none of 2-9; at 2, job 10 (8)
      -- reaches the loop and starts; at 12 and 100, what fits reaches it
      assert.same({1, 0}, rows[1])
      assert.same({10, 2}, rows[10])
      assert.is_true(calls < calls2, ("%d calls bounded, %d not"):format(calls, calls2))
      -- every call that reached the loop started its job: 1 at 0, 10 at
      -- 2, then two of 2-9 at each of 100, 110, 120 and 130
      assert.equal(10, calls)
    end)

  it("sees the jobs as data, the same tables across a pass, changed only by the host",
    function()
      local q = parse([[
        return { schedule = function(ctx)
          local q = ctx:queue()
          assert(q == ctx:queue(), "the queue is one table while it does not change")
          local job = q[1]
          assert(type(job.id) == "integer" or math.type(job.id) == "integer")
          job.procs = 1                 -- its own copy: the host keeps 40
          if not ctx:start(job) then
            assert(ctx:reserve(job) == 10 and job.reserved == 10, "reserved")
            error("job " .. job.id .. " waits until " .. job.reserved, 0)
          end
        end }]])
      local s = assert(sim.new{graph = machine(), queue = q})
      s:submit{id = 1, submit = 0, run = 10, procs = 32}
      s:advance(0)
      s:submit{id = 2, submit = 1, run = 10, procs = 32}
      local ok, err, code = s:advance(1)
      assert.same({nil, "ECANCELED"}, {ok, code})
      assert.equal("queue policy q: job 2 waits until 10", err)
    end)
end)

describe("grove.core.script_load", function()
  local function load(text, opts)
    return assert(core.script_load(text, "s.lua", opts))
  end

  it("calls named functions with copies and returns copies", function()
    local s = load([[return { f = function(t, n) t.x = n; return t, #t, n + 1 end }]])
    local t = {1, 2, 3, nested = {a = "b"}}
    local ok, r, len, n = s:call("f", t, 4)
    assert.is_true(ok)
    assert.same({1, 2, 3, nested = {a = "b"}, x = 4}, r)
    assert.are_not.equal(t, r)
    assert.is_nil(t.x)
    assert.equal(3, len)
    assert.equal(5, n)
    assert.same({false, "s.lua: no function 'g'", "ECANCELED"}, {s:call("g")})
  end)

  it("refuses functions and tables that hold themselves at the border", function()
    local s = load([[return { f = function() return function() end end,
      g = function() local t = {}; t.t = t; return t end, h = function(x) return x end }]])
    assert.same({false, "a function cannot leave the sandbox", "ECANCELED"}, {s:call("f")})
    local ok, err = s:call("g")
    assert.is_false(ok)
    assert.matches("nested more than 128 levels", err)
    ok, err = s:call("h", print)
    assert.is_false(ok)
    assert.matches("a function cannot go into the sandbox", err)
  end)

  it("gives the script an API whose table stands for the host's, with errors placed", function()
    local s = load([[return { f = function(api, job)
        local ok, err = pcall(function() api.fail() end)
        return api:add(job, 2), ok, err, api:add(job, 3) end }]])
    local api = {}
    function api.add(self, job, n)
      assert(self == api)
      return job.v + n
    end
    function api.fail() error("no", 0) end
    s:api(api)
    assert.same({true, 3, false, "s.lua:2: no", 4}, {s:call("f", api, {v = 1})})
  end)

  it("keeps shared tables' identity both ways, refreshed by share", function()
    local s = load([[local seen
      return { f = function(job)
        local same = job == seen
        seen = job
        return job, same, job.n
      end }]])
    local job = {n = 1}
    s:share(7, job)
    local _, back, same = s:call("f", job)
    assert.equal(job, back)
    assert.is_false(same)
    local n
    job.n = 2
    _, _, same, n = s:call("f", job)
    assert.is_true(same)
    assert.equal(1, n)                  -- not refreshed yet
    s:share(7, job)
    _, _, _, n = s:call("f", job)
    assert.equal(2, n)
    s:unshare(7)
    _, back, same = s:call("f", job)
    assert.are_not.equal(job, back)     -- a copy again
    assert.is_false(same)
  end)

  it("sets one field of a shared table's mirror with share_field, the rest kept", function()
    local s = load([[return { f = function(job) return job.n, job.m, job.state end }]])
    local job = {n = 1, m = 5}
    s:share(7, job)
    job.n = 2
    s:share_field(7, "n", 2)
    local _, n, m = s:call("f", job)
    assert.equal(2, n)
    assert.equal(5, m)                  -- the fields not named stay
    job.state, job.n = "held", nil
    s:share_field(7, "state", "held")
    s:share_field(7, "n", nil)
    local _, n2, _, st = s:call("f", job)
    assert.is_nil(n2)
    assert.equal("held", st)
    s:share_field(8, "n", 3)            -- nothing shared under 8: nothing
    assert.has_error(function() s:share_field(7, "n", {}) end)
    assert.has_error(function() s:share_field(7, nil, 2) end)
    assert.has_error(function() s:share_field({}, "n", 2) end)
    _, n = s:call("f", job)
    assert.is_nil(n)                    -- as it was
  end)

  it("answers in the sandbox the calls a bound refuses, and only those", function()
    local s = load([[return { f = function(api, list, other)
        local out = {}
        for i, t in ipairs(list) do out[i] = api:take(t) end
        out[#out + 1] = api:take(other)      -- not shared: the host answers
        out[#out + 1] = api:take(list[1], 1) -- two arguments: the host answers
        out[#out + 1] = api:give(list[1])    -- another function
        return out
      end }]])
    local api, seen = {}, {}
    function api.take(_, t) seen[#seen + 1] = t.id; return "host" end
    function api.give(_, t) seen[#seen + 1] = -t.id; return "host" end
    s:api(api)
    local jobs = {{id = 1, n = 5}, {id = 2, n = 50}, {id = 3, n = 50, held = true},
      {id = 4, n = "50"}, {id = 5}}
    for i, j in ipairs(jobs) do s:share(i, j) end
    s:share("list", jobs)
    local other = {id = 6, n = 50}
    -- n above 10 without held: refused at once (2); 3 is held, 4's n no
    -- number, 5 has none
    s:bound("take", "n", 10, "held")
    local ok, out = s:call("f", api, jobs, other)
    assert.is_true(ok)
    assert.same({"host", false, "host", "host", "host", "host", "host", "host"}, out)
    assert.same({1, 3, 4, 5, 6, 1, -1}, seen)
    -- a higher limit lets 2 through; no limit, the bound is gone
    seen = {}
    s:bound("take", "n", 50)
    s:call("f", api, jobs, other)
    assert.same({1, 2, 3, 4, 5, 6, 1, -1}, seen)
    s:bound("take", "n", 1)
    seen = {}
    s:call("f", api, jobs, other)
    assert.same({4, 5, 6, 1, -1}, seen)
    s:bound("take", "n", nil)
    seen = {}
    s:call("f", api, jobs, other)
    assert.same({1, 2, 3, 4, 5, 6, 1, -1}, seen)
    assert.has_error(function() s:bound("take", "n", "x") end)
    assert.has_error(function() s:bound(("x"):rep(40), "n", 1) end,
      "bad argument #1 to 'bound' (name too long)")
  end)

  it("reports its fields and loads text only", function()
    local s = load([[return { name = "n", f = function() end }]])
    assert.same({name = "string", f = "function"}, s:types())
    assert.equal("n", s:get("name"))
    assert.has_error(function() s:get("f") end, "s.lua: field 'f' is a function")
    local t, got = load("return 1"):types()
    assert.is_nil(t)
    assert.equal("number", got)
    local none, msg, code = core.script_load(string.dump(function() end), "b.lua")
    assert.is_nil(none)
    assert.matches("binary", msg)
    assert.equal("EINVAL", code)
  end)

  it("takes the limits as its options, and no graph", function()
    assert(load("return {}", {budget = 5000, memory = 1 << 24, time = 2}))
    assert.has_error(function() core.script_load("return {}", "s.lua", {graph = 1}) end,
      "bad argument #3 to 'script_load' (unknown option 'graph'; the options are budget, "
      .. "memory, time)")
  end)
end)
