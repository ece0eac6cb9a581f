-- grove.sim from Lua: scripted scenarios (submit, fail nodes, advance the
-- clock, look at jobs and metrics), queue policies and their sandbox,
-- jobspec requests, the readers and the metrics.
--
-- The command line is not tested here (sim_cli_spec.lua), nor start times
-- against the definitions (sim_reference_spec.lua).
local grove = require("grove")
local sim = grove.sim
local expect = require("expect")
local helper = require("sim_helper")

-- 4 nodes of 4 cores
local function machine()
  return helper.machine("s", 1, 4, 1, 4)
end

local function new(opts)
  opts.graph = opts.graph or machine()
  return assert(sim.new(opts))
end

describe("grove.sim", function()
  it("is reachable as grove.sim", function()
    assert.equal(require("grove.sim"), grove.sim)
  end)

  it("runs a scripted scenario: submit, advance, inspect", function()
    local rows = {}
    local s = new{queue = "easy", out = function(r) rows[r.id] = r end}
    s:submit{id = 1, submit = 0, run = 50, estimate = 100, procs = 12}
    s:submit{id = 2, submit = 10, run = 10, estimate = 10, procs = 8}
    s:submit{id = 3, submit = 10, run = 20, estimate = 30, procs = 4}
    s:advance(10)
    assert.equal(10, s:clock())
    assert.same({state = "running", start = 0, ["end"] = 100},
      {state = s:job(1).state, start = s:job(1).start, ["end"] = s:job(1)["end"]})
    assert.equal("queued", s:job(2).state)
    assert.equal("running", s:job(3).state)       -- backfilled: ends at 40 <= 100
    assert.same({"n3"}, s:job(3).nodes)
    assert.same({submitted = 3, started = 2, finished = 0, left_out = 0, running = 2,
      waiting = 1}, s:counts())
    s:advance(49)
    assert.equal(1, s:counts().finished)
    s:run()
    assert.equal(50, rows[2].start)                -- when 1 ends, early
    local r = s:result()
    assert.equal(3, r.jobs)
    assert.equal(40 / 3, r.wait_mean)
    assert.equal(60, r.makespan)
    assert.near((50 * 12 + 10 * 8 + 20 * 4) / (16 * 60), r.utilization, 1e-12)
  end)

  it("kills or requeues the jobs on a node that fails", function()
    for _, mode in ipairs{"kill", "requeue"} do
      local rows = {}
      local s = new{queue = "fcfs", on_down = mode, out = function(r) rows[r.id] = r end}
      s:submit{id = 1, submit = 0, run = 100, procs = 4}   -- n0
      s:submit{id = 2, submit = 0, run = 100, procs = 4}   -- n1
      s:node_event{time = 30, node = "n0", action = "down"}
      s:node_event{time = 60, node = "n0", action = "up"}
      s:advance(29)
      assert.same({"n0"}, s:job(1).nodes)
      s:advance(30)
      if mode == "kill" then
        assert.is_nil(s:job(1))
        assert.same({"killed", 30}, {rows[1].state, rows[1].run})
      else
        local j = s:job(1)
        assert.equal("running", j.state)           -- started again at once on n2
        assert.equal(30, j.start)
        assert.same({"n2"}, j.nodes)
      end
      s:run()
      assert.equal("done", rows[2].state)
      if mode == "requeue" then
        assert.same({"done", 1, 30, 130}, {rows[1].state, rows[1].requeues, rows[1].start,
          rows[1]["end"]})
        assert.equal(0, s:result().killed)
      else
        assert.equal(1, s:result().killed)
      end
    end
  end)

  it("keeps drained nodes out of new matches", function()
    local s = new{queue = "fcfs"}
    s:node_event{time = 0, node = "n[0-2]", action = "drain"}
    s:submit{id = 1, submit = 0, run = 10, procs = 4}
    s:submit{id = 2, submit = 0, run = 10, procs = 4}
    s:advance(0)
    assert.same({"n3"}, s:job(1).nodes)
    assert.equal("queued", s:job(2).state)
    s:run()
    assert.equal(2, s:result().jobs)
  end)

  it("sets and takes away node properties that constraints and policies read", function()
    -- jobs of one whole node that keep off degraded nodes (RFC 31)
    local js = grove.jobspec{nodes = 1, exclusive = true,
      constraints = {properties = {"^degraded"}}}
    local g = machine()
    local s = new{queue = "fcfs", graph = g}
    s:node_event{time = 10, node = "n[0-2]", action = "set", key = "degraded", value = "1"}
    s:node_event{time = 30, node = "n0", action = "unset", key = "degraded"}
    s:node_event{time = 30, node = "n3", action = "unset", key = "degraded"}  -- has none
    s:submit{id = 1, submit = 0, run = 5, jobspec = js}
    s:submit{id = 2, submit = 10, run = 50, jobspec = js}
    s:submit{id = 3, submit = 10, run = 5, jobspec = js}
    s:submit{id = 4, submit = 30, run = 5, jobspec = js}
    s:advance(0)
    assert.same({"n0"}, s:job(1).nodes)
    s:advance(10)
    assert.same({"n3"}, s:job(2).nodes)        -- n0-n2 degraded from 10
    assert.equal("queued", s:job(3).state)
    s:advance(30)
    assert.same({"n0"}, s:job(3).nodes)        -- n0 back at 30 (n3 busy until 60)
    assert.equal(30, s:job(3).start)
    s:run()
    assert.equal(4, s:result().jobs)
    assert.equal("1", g:vertex("n2"):property("degraded"))
    assert.is_nil(g:vertex("n0"):property("degraded"))
  end)

  it("refuses property events it cannot apply, naming what is wrong", function()
    local s = new{queue = "fcfs"}
    local function bad(ev, msg)
      assert.has_error(function() s:node_event(ev) end, "bad argument #1 to 'node_event' ("
        .. msg .. ")")
    end
    bad({time = 1, node = "n0", action = "set", key = "a=b", value = "1"},
      "set needs key, a property name without '=' or spaces")
    bad({time = 1, node = "n0", action = "set", key = "a"}, "set needs value, a string")
    bad({time = 1, node = "n0", action = "unset"},
      "unset needs key, a property name without '=' or spaces")
    bad({time = 1, node = "n0", action = "down", key = "a"}, "down takes no key or value")
    bad({time = 1, node = "n0", action = "degrade"},
      "action must be down, up, drain, set or unset, got degrade")
    local dir = os.tmpname()
    local cases = {
      {"5 set n0 degraded\n", "set needs KEY=VALUE after the nodes, got 'degraded'"},
      {"5 unset n0\n", "unset needs a property name after the nodes, got ''"},
      {"5 unset n0 a=b\n", "unset needs a property name after the nodes, got 'a=b'"},
      {"5 stet n0 a=1\n", "unknown action 'stet' (did you mean 'set'?) (down, up, drain, set "
        .. "or unset)"},
      {"# fine\n5 set n[0-1] degraded=1\n6 set n9 a=1\n",
        "no node 'n9' (a node name, path or hostlist)", 3},
    }
    for _, c in ipairs(cases) do
      local f = assert(io.open(dir, "w"))
      f:write(c[1])
      f:close()
      local ok, err = pcall(s.load_events, s, dir)
      assert.is_false(ok)
      assert.equal(("%s:%d: %s"):format(dir, c[3] or 1, c[2]), err)
    end
    os.remove(dir)
  end)

  it("matches jobspec requests, and plans them in the planner", function()
    local s = new{queue = "conservative"}
    local js = grove.jobspec{nodes = 2, exclusive = true}
    s:submit{id = 1, submit = 0, run = 100, estimate = 100, jobspec = js}
    s:submit{id = 2, submit = 0, run = 10, estimate = 10, jobspec = grove.jobspec{nodes = 3}}
    s:submit{id = 3, submit = 0, run = 10, estimate = 10, procs = 4}
    s:advance(0)
    assert.equal(8, s:job(1).procs)
    assert.equal("queued", s:job(2).state)
    assert.equal(100, s:job(2).reserved)          -- a reservation in the planner
    assert.equal("running", s:job(3).state)       -- fits before it
    s:run()
    assert.equal(3, s:result().jobs)
  end)

  it("leaves out a jobspec the machine can never satisfy", function()
    local why = {}
    local s = new{report = function(job, reason) why[job.id] = reason end}
    s:submit{id = 7, submit = 0, run = 1, jobspec = grove.jobspec{nodes = 5}}
    s:run()
    assert.same({[7] = "5 nodes requested: the graph has 4"}, why)
  end)

  it("places the same with a built-in policy and its Lua twin", function()
    local gen = sim.gen.new{procs = 16, seed = 5, estimate_factor = 2, arrival_factor = 0.05}
    local jobs = {}
    for j in gen:jobs(60) do jobs[#jobs + 1] = j end
    local placed = {}
    for k, pol in ipairs{"low", grove.policy.find("low")} do
      placed[k] = {}
      local s = new{queue = "easy", policy = pol,
        out = function(r) placed[k][r.id] = r.start .. " " .. r.hosts end}
      assert.equal(k == 1, s.fast)
      assert.is_true(s.lean) -- both through the lean core.sim_match
      s:feed(sim.trace.from_list(jobs))
      s:run()
    end
    assert.equal(60, #placed[1])
    assert.same(placed[1], placed[2])
  end)

  it("matches with sim_match as m:match does, a Lua policy in its sandbox", function()
    local g = machine()
    local m = grove.core.matcher(g)
    m:set_policy(assert(grove.policy.load("low")))
    local js = grove.core.jobspec_from_table(grove.jobspec{slots = 1})
    local lstate, lstart, _, lvids = grove.core.sim_match(m, js, "allocate", 1, "core")
    assert.same({"allocated", 0, 1}, {lstate, lstart, #lvids})
    assert(m:cancel(1))
    -- a Lua policy that fails: its own message, as m:match gives it
    m:set_policy(assert(grove.core.policy_parse(
      "return {score = function(v) return v.nosuch + 1 end}", "bad.lua")))
    local _, why, code = grove.core.sim_match(m, js, "allocate", 1)
    assert.equal("ECANCELED", code)
    local _, mwhy = m:match(js, "allocate", 1)
    assert.equal(mwhy, why)
    assert.matches("bad.lua:1", why, 1, true)
    m:set_policy("low")
    local state, start, _, vids = grove.core.sim_match(m, js, "allocate", 1, "core")
    assert.same({"allocated", 0, 1}, {state, start, #vids})
    assert.equal("core", g:vertex(vids[1]):type())
    -- the units of a type the job holds, as m:info counts them
    local js3 = grove.core.jobspec_from_table(grove.jobspec{slots = 3})
    local st, _, _, all, units = grove.core.sim_match(m, js3, "allocate", 2, nil, "core")
    assert.equal("allocated", st)
    assert.equal(3, units)
    assert.equal(m:info(2).counts.core, units)
    assert.is_true(#all >= 3)
    -- type false: no vertex ids at all, the units still counted
    local js2 = grove.core.jobspec_from_table(grove.jobspec{slots = 2})
    local st2, _, _, none, units2 = grove.core.sim_match(m, js2, "allocate", 6, false, "core")
    assert.same({"allocated", 0, 2}, {st2, #none, units2})
    assert.equal(m:info(6).counts.core, units2)
    assert(m:cancel(6))
    local n5 = select("#", grove.core.sim_match(m, js, "allocate", 3, "core"))
    assert.equal(4, n5)
    -- after: a reservation no earlier than a given time, as m:match's
    local js1 = grove.core.jobspec_from_table(grove.jobspec{slots = 1, duration = 60})
    local rst, rstart = grove.core.sim_match(m, js1, "allocate_orelse_reserve", 4, nil, nil,
      500)
    assert.same({"reserved", 500}, {rst, rstart})
    assert.has_error(function()
      grove.core.sim_match(m, js1, "allocate", 5, nil, nil, 500)
    end, "bad argument #7 to 'sim_match' (after: only with allocate_orelse_reserve)")
  end)

  it("reads a started job of whole nodes, kept compact, as the job listed whole", function()
    -- sim_match keeps what lies below the nodes a job holds whole out of
    -- its picks; its vertex ids, units and R are those of the job listed
    local ga, gb = machine(), machine()
    local ma, mb = grove.core.matcher(ga), grove.core.matcher(gb)
    local js = grove.core.jobspec_from_table(grove.jobspec{nodes = 2, exclusive = true})
    local one = grove.core.jobspec_from_table(grove.jobspec{slots = 1})
    assert(grove.core.sim_match(ma, one, "allocate", 1, nil))
    assert(mb:match(one, "allocate", 1))
    local st, _, _, cores, units = grove.core.sim_match(ma, js, "allocate", 2, "core", "core")
    assert.equal("allocated", st)
    local listed = assert(mb:match(js, "allocate", 2))
    local want, all = {}, {}
    for _, p in ipairs(listed.picks) do
      all[#all + 1] = p.vertex:vid()
      if p.vertex:type() == "core" then want[#want + 1] = p.vertex:vid() end
    end
    assert.equal(8, #want)
    assert.same(want, cores)
    assert.equal(mb:info(2).counts.core, units)
    assert.equal(tostring(mb:rv1(2, {graph = true})), tostring(ma:rv1(2, {graph = true})))
    assert.same(mb:job(2, false), ma:job(2, false))
    -- every vertex (no type), and units without ids
    assert(ma:cancel(2))
    local _, _, _, every = grove.core.sim_match(ma, js, "allocate", 2, nil)
    assert.same(all, every)
    assert(ma:cancel(2))
    local _, _, _, none, n = grove.core.sim_match(ma, js, "allocate", 2, false, "core")
    assert.same({0, 8}, {#none, n})
    -- ids of one type, units of another
    assert(ma:cancel(2))
    local _, _, _, cs, sockets = grove.core.sim_match(ma, js, "allocate", 2, "core", "socket")
    assert.same(want, cs)
    assert.equal(mb:info(2).counts.socket, sockets)
    -- listed whole when it is read whole
    assert.equal(#listed.picks, #ma:job(2).picks)
  end)

  it("answers EBUSY without looking for never when asked (busy), and nothing else changes",
    function()
    local g = machine()
    local m = grove.core.matcher(g)
    local huge = grove.core.jobspec_from_table(grove.jobspec{slots = 1000})
    local _, why, code = grove.core.sim_match(m, huge, "allocate", 1)
    assert.same({"ENODEV"}, {code})
    assert.is_not.equal("no matching resources", why)
    _, why, code = grove.core.sim_match(m, huge, "allocate", 1, nil, nil, nil, nil, true)
    assert.same({"no matching resources", "EBUSY"}, {why, code})
    -- the matcher's own setting is back: the next plain match tells never
    assert.equal("ENODEV", select(3, grove.core.sim_match(m, huge, "allocate", 1)))
    -- m:match's option, the same; the modes that ask whether it could
    -- ever fit still say so
    assert.equal("EBUSY", select(3, m:match(huge, "allocate", 1, {busy = true})))
    assert.equal("ENODEV", select(3, m:match(huge, "allocate", 1)))
    assert.equal("ENODEV", select(3, m:match(huge, "satisfiability", nil, {busy = true})))
    assert.equal("ENODEV",
      select(3, m:match(huge, "allocate_with_satisfiability", 1, {busy = true})))
    assert.has_error(function() m:match(huge, "allocate", 1, {busy = 1}) end,
      "bad argument #4 to 'match' (busy: a boolean expected)")
    -- a misspelt option is an error, not a match without it
    assert.has_error(function() m:match(huge, "allocate", 1, {bussy = true}) end,
      "bad argument #4 to 'match' (unknown option 'bussy' (did you mean 'busy'?))")
    assert.has_error(function()
      grove.core.sim_match(m, huge, "allocate", 1, nil, nil, nil, nil, "yes")
    end, "bad argument #9 to 'sim_match' (boolean expected, got string)")
    -- a request that fits is placed the same
    local one = grove.core.jobspec_from_table(grove.jobspec{slots = 1})
    local st = grove.core.sim_match(m, one, "allocate", 2, nil, nil, nil, nil, true)
    assert.equal("allocated", st)
  end)

  it("refuses misuse", function()
    assert.has_error(function() sim.new{graph = machine(), procs_as = "socket"} end,
      "bad argument #1 to 'new' (procs_as must be \"core\", \"node\", \"fewest\" or " ..
      "\"whole\", got socket)")
    assert.has_error(function() sim.new{graph = machine(), colour = 1} end,
      "bad argument #1 to 'new' (unknown option 'colour')")
    local s = new{}
    assert.has_error(function() s:submit{submit = 0, run = 1} end,
      "bad argument #1 to 'submit' (give procs or jobspec)")
    s:submit{id = 1, submit = 5, run = 1, procs = 1}
    assert.has_error(function() s:submit{id = 1, submit = 5, run = 1, procs = 1} end,
      "bad argument #1 to 'submit' (job 1 is already in the system)")
    s:advance(6)
    assert.has_error(function() s:submit{submit = 0, run = 1, procs = 1} end,
      "bad argument #1 to 'submit' (submit time 0 is before the clock, 6)")
    assert.has_error(function() s:node_event{time = 9, node = "n7", action = "down"} end,
      "bad argument #1 to 'node_event' (no node 'n7' (a node name, path or hostlist))")
    -- a field neither takes, with the closest one offered
    assert.has_error(function() s:submit{submit = 6, run = 1, procs = 1, estimte = 5} end,
      "bad argument #1 to 'submit' (unknown field 'estimte' (did you mean 'estimate'?))")
    assert.has_error(function() s:node_event{time = 9, node = "n1", acton = "down"} end,
      "bad argument #1 to 'node_event' (unknown field 'acton' (did you mean 'action'?))")
    expect.fails_like("ENOENT", "^no queue policy 'nosuch' in ",
      sim.new{graph = machine(), queue = "nosuch"})
  end)
end)

describe("a job's and a node event's fields", function()
  it("are all taken", function()
    local s = new{}
    s:submit{id = 1, submit = 0, run = 10, estimate = 20, procs = 2, user = 3, group = 4,
      queue = 1, partition = 1, mem = 0, name = "a", bank = "b"}
    s:submit{id = 2, submit = 0, run = 10, procs = 1, after = 1, think = 5}
    s:submit{id = 3, submit = 0, run = 10, jobspec = grove.jobspec{slots = 1}}
    s:node_event{time = 1, node = "n0", action = "set", key = "k", value = "v"}
    assert(s:run())
    assert.equal(3, s:result().jobs)
  end)
end)

describe("the options of grove.sim's parts", function()
  it("are refused when unknown, with the closest offered, and taken when known", function()
    local gen = sim.gen
    assert.has_error(function() gen.new{procs = 16, sede = 1} end,
      "bad argument #1 to 'new' (unknown option 'sede' (did you mean 'seed'?))")
    local g = gen.new{procs = 16, seed = 2, estimate_factor = 2, users = 4, arrival_factor = 1,
      types = "batch"}
    assert.equal(1, g:next().id)
    assert.has_error(function() gen.write(io.tmpfile(), {jobs = 1, procs = 4, job = 2}) end,
      "bad argument #2 to 'write' (unknown option 'job' (did you mean 'jobs'?))")
    local f = io.tmpfile()
    gen.write(f, {jobs = 2, procs = 4, seed = 1, estimate_factor = 1, users = 2,
      arrival_factor = 1, types = "both"})
    f:close()
    -- traces
    local path = "spec/fixtures/sim/small.swf"
    assert.has_error(function() sim.trace.open(path, {form = "swf"}) end,
      "bad argument #2 to 'open' (unknown option 'form' (did you mean 'from'?))")
    assert.has_error(function() sim.trace.open(path, {source = "x"}) end,
      "bad argument #2 to 'open' (unknown option 'source')")
    assert(sim.trace.open(path, {format = "swf", report = function() end, fh = nil,
      warn = function() end, skip_bad = true, keep_cancelled = true, status = {[1] = true},
      from = 0, to = 1000, load = 1}))
    assert.has_error(function() sim.trace.from_list({}, {fh = io.stdin}) end,
      "bad argument #2 to 'from_list' (unknown option 'fh')")
    assert(sim.trace.from_list({{submit = 0, run = 1, procs = 1}}, {report = function() end,
      warn = function() end, skip_bad = true, keep_cancelled = true, status = {[1] = true},
      from = 0, to = 10, load = 1, source = "jobs"}))
    -- metrics
    assert.has_error(function() sim.metrics.new{unit = 4} end,
      "bad argument #1 to 'new' (unknown option 'unit' (did you mean 'units'?))")
    assert(sim.metrics.new{units = 4, buckets = 10, width = 30})
    -- queue policies' limits
    assert.has_error(function() sim.queue.load("fcfs", {budegt = 1e6}) end,
      "bad argument #2 to 'load' (unknown option 'budegt' (did you mean 'budget'?))")
    assert.has_error(function() sim.queue.parse("return {base = 'fcfs'}", "q.lua", {tiem = 1}) end,
      "bad argument #3 to 'parse' (unknown option 'tiem' (did you mean 'time'?))")
    assert(sim.queue.load("fcfs", {budget = 1e6, memory = 2^26, time = 5}))
    assert(sim.queue.parse("return {base = 'fcfs'}", "q.lua", {budget = 1e6, memory = 2^26,
      time = 5}))
  end)
end)

describe("queue policies", function()
  local function parse(text, opts)
    return sim.queue.parse(text, "test.lua", opts)
  end

  it("load by name, with a base", function()
    local p = assert(sim.queue.load "priority")
    assert.equal("priority", p.name)
    assert.equal("easy", p.base.name)
    assert.equal(p.base.schedule, p.schedule)
    assert.is_function(p.priority)
  end)

  it("order the queue by priority", function()
    local order = {}
    local q = assert(parse([[
      return {
        priority = function(job) return job.procs end,   -- biggest first
        schedule = function(ctx)
          for _, job in ipairs(ctx:queue()) do
            if not ctx:start(job) then return end
          end
        end,
      }]]))
    local s = new{queue = q, out = function(r) order[#order + 1] = {r.id, r.start} end}
    s:submit{id = 1, submit = 0, run = 10, procs = 16}
    s:submit{id = 2, submit = 1, run = 10, procs = 2}
    s:submit{id = 3, submit = 1, run = 10, procs = 15}
    s:run()
    assert.same({{1, 0}, {3, 10}, {2, 20}}, order)
  end)

  it("run sandboxed, within a budget that pcall cannot escape", function()
    local p = assert(parse([[
      return { schedule = function() pcall(function() while true do end end) end }]],
      {budget = 100000}))
    local s = new{queue = p}
    s:submit{submit = 0, run = 1, procs = 1}
    local ok, err, code = s:run()
    assert.same({nil, "ECANCELED"}, {ok, code})
    assert.equal("queue policy test: test.lua:1: instruction budget of 100000 exceeded", err)
    local q = assert(parse("return { schedule = function() os.exit(1) end }"))
    local s2 = new{queue = q}
    s2:submit{submit = 0, run = 1, procs = 1}
    ok, err, code = s2:run()
    assert.same({nil, "ECANCELED"}, {ok, code})
    assert.equal("queue policy test: test.lua:1: undefined global 'os'", err)
    local _, msg = parse("return { schedule = 1 }")
    assert.equal("test.lua: schedule must be a function", msg)
    _, msg = parse("return { sched = function() end }")
    assert.equal("test.lua: unknown field 'sched' (name, description, schedule, priority, " ..
      "base, half_life, in_order, estimate_depth, reprioritize)", msg)
    _, msg = parse("x = 1")
    assert.equal("test.lua:1: assignment to global 'x' (a policy cannot write globals: use local)",
      msg)
  end)

  it("ask the earliest start without reserving, counted or from the planner", function()
    for _, mode in ipairs{"count", "planner"} do
      local q = assert(parse([[
        return { schedule = function(ctx)
          for _, job in ipairs(ctx:queue()) do
            if not ctx:start(job) then
              error(("earliest %d %s %s"):format(job.id, tostring(ctx:earliest(job)),
                tostring(job.reserved)), 0)
            end
          end
        end }]]))
      local s = new{queue = q, reservations = mode == "planner" and "planner" or nil}
      s:submit{id = 1, submit = 0, run = 50, estimate = 80, procs = 12}
      s:submit{id = 2, submit = 0, run = 50, estimate = 50, procs = 8}
      local ok, err, code = s:advance(0)
      assert.same({nil, "ECANCELED"}, {ok, code})
      assert.equal("queue policy test: earliest 2 80 nil", err)
    end
  end)

  it("see only waiting jobs through ctx", function()
    local q = assert(parse([[
      return { schedule = function(ctx)
        local job = ctx:queue()[1]
        ctx:start(job)
        ctx:start(job)
      end }]]))
    local s = new{queue = q}
    s:submit{id = 4, submit = 0, run = 1, procs = 1}
    local ok, err, code = s:run()
    assert.same({nil, "ECANCELED"}, {ok, code})
    assert.equal("queue policy test: test.lua:4: bad argument #1 to 'start' (job 4 is not waiting)",
      err)
  end)

  it("refuse a ctx:start option they do not know, per queue too", function()
    local text = [[
      return { schedule = function(ctx)
        local q = ctx:queue()
        ctx:start(q[2], {protcet = q[1]})
      end }]]
    local path = os.tmpname() .. ".lua"
    local f = assert(io.open(path, "w"))
    f:write(text)
    f:close()
    for _, opts in ipairs{{queue = assert(parse(text))}, {queue = "fcfs",
        params = {policy_1 = path}}} do
      local s = new(opts)
      s:submit{id = 1, submit = 0, run = 1, procs = 1, queue = 1}
      s:submit{id = 2, submit = 0, run = 1, procs = 1, queue = 1}
      local ok, err, code = s:run()
      assert.same({nil, "ECANCELED"}, {ok, code})
      assert.truthy(err:find("bad argument #2 to 'start' (unknown option 'protcet' (did you mean "
        .. "'protect'?))", 1, true), err)
    end
    os.remove(path)
  end)
end)

describe("passes", function()
  it("run at the instants a reservation begins, not those it left (sched.due)", function()
    -- every job ends early: conservative plans its schedule again at
    -- each end, and the starts it planned before (100, 110, 200) are
    -- left with nothing to do while job 4 waits
    local rows = {}
    local s = new{queue = "conservative", out = function(r) rows[r.id] = r end}
    local at = {}
    s.before_pass = function(self) at[#at + 1] = self.now end
    s:submit{id = 1, submit = 0, run = 10, estimate = 100, procs = 16}
    s:submit{id = 2, submit = 0, run = 50, estimate = 100, procs = 16}
    s:submit{id = 3, submit = 0, run = 100, estimate = 100, procs = 16}
    s:submit{id = 4, submit = 0, run = 10, estimate = 1000, procs = 16}
    assert(s:run())
    assert.same({10, 60, 160}, {rows[2].start, rows[3].start, rows[4].start})
    assert.same({0, 10, 60, 160, 170}, at)
  end)
end)
describe("trace readers", function()
  it("stream a Standard Workload Format file and apply its rules", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write("; header\n\n",
      "1 0 -1 10 4 -1 -1 -1 20 -1 1 3 -1 -1 1 -1 -1 -1\n",     -- procs from field 5
      "2 0 -1 10 4 -1 -1 2 5 -1 1 3 -1 -1 1 -1 -1 -1\n",       -- estimate < run: kept
      "3 1 -1 -1 4 -1 -1 2 5 -1 1 3 -1 -1 1 -1 -1 -1\n",       -- no run time
      "4 2 -1 0 -1 -1 -1 -1 5 -1 1 3 -1 -1 1 -1 -1 -1\n",      -- no processors
      "5 3 -1 0 1 -1 -1 1 -1 -1 1 3 -1 -1 1 -1 -1 -1\n")       -- run 0 counts as 1
    f:close()
    local left = {}
    local r = assert(sim.trace.open(path, {report = function(j, why) left[j.id] = why end}))
    local jobs = {}
    for j in r:jobs() do jobs[#jobs + 1] = {j.id, j.submit, j.run, j.procs, j.estimate, j.line} end
    os.remove(path)
    assert.same({{1, 0, 10, 4, 20, 3}, {2, 0, 10, 2, 5, 4}, {5, 3, 1, 1, nil, 7}}, jobs)
    assert.same({[3] = "no run time", [4] = "no processors"}, left)
    assert.equal(2, r.skipped)
  end)

  it("keep metrics exact for percentiles", function()
    local acc = sim.metrics.new{units = 1}
    for i, w in ipairs{5, 1, 9, 1, 3, 100, 2, 7, 1, 4} do
      acc:job{submit = 0, start = w, ["end"] = w + 10 * i, procs = 1}
    end
    local r = acc:result{}
    assert.equal(3, r.wait_median)                 -- sorted: 1 1 1 2 3 4 5 7 9 100
    assert.equal(100, r.wait_p95)
    assert.equal(100, r.wait_p99)
    assert.equal(13.3, r.wait_mean)
    -- the distribution: each distinct wait and the fraction at or below it
    assert.same({wait = {1, 2, 3, 4, 5, 7, 9, 100},
      fraction = {0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0}}, r.wait_cdf)
  end)

  it("keep the 99th percentile apart from the 95th, and a bounded distribution", function()
    local acc = sim.metrics.new{units = 1}
    -- 1000 jobs waiting 0..999 s: p95 is the 950th, p99 the 990th
    for w = 0, 999 do acc:job{submit = 0, start = w, ["end"] = w + 1, procs = 1} end
    local r = acc:result{}
    assert.same({949, 989, 999}, {r.wait_p95, r.wait_p99, r.wait_max})
    local c = r.wait_cdf
    assert.is_true(#c.wait <= sim.metrics.CDF_POINTS + 1, #c.wait .. " points")
    assert.is_true(#c.wait >= sim.metrics.CDF_POINTS, #c.wait .. " points")
    assert.same({999, 1}, {c.wait[#c.wait], c.fraction[#c.fraction]})
    for i, w in ipairs(c.wait) do
      -- every point exact: w + 1 jobs waited w or less
      assert.equal((w + 1) / 1000, c.fraction[i])
      if i > 1 then assert.is_true(w > c.wait[i - 1]) end
    end
  end)

  it("keep waits and slowdowns per user and per size class", function()
    local acc = sim.metrics.new{units = 16}
    -- user 1: two 1-unit jobs, waits 0 and 10, runs 10; user 2: one 6-unit
    -- job, wait 20, run 20
    acc:job{submit = 0, start = 0, ["end"] = 10, procs = 1, user = 1, state = "done"}
    acc:job{submit = 0, start = 10, ["end"] = 20, procs = 1, user = 1, state = "timeout"}
    acc:job{submit = 0, start = 20, ["end"] = 40, procs = 6, user = 2, state = "done"}
    local r = acc:result{}
    assert.same({1, 2}, {r.by_user[1].user, r.by_user[2].user})
    assert.same({2, 5, 0, 10, 1.5, 2}, {r.by_user[1].jobs, r.by_user[1].wait_mean,
      r.by_user[1].wait_median, r.by_user[1].wait_p95, r.by_user[1].bounded_slowdown,
      r.by_user[1].bsld_p95})
    assert.same({"1", 2}, {r.by_size[1].class, r.by_size[1].jobs})
    assert.same({"5-8", 1, 20, 2}, {r.by_size[2].class, r.by_size[2].jobs,
      r.by_size[2].wait_mean, r.by_size[2].bounded_slowdown})
    assert.equal(1, r.killed_walltime)
    assert.equal(3, r.jobs)
  end)

  it("keep a time series whose cost does not grow with idle time", function()
    local acc = sim.metrics.new{units = 4, buckets = 10}
    acc:level(0, 4, 0)
    acc:level(10, 0, 0)
    -- a gap of 10^12 s: widening first, the span costs at most 20 buckets
    acc:level(1000000000000, 2, 1, 1)
    acc:level(1000000000000 + 10, 0, 0)
    local s = acc:series()
    assert.is_true(#s.t <= 20)
    assert.is_true(s.width >= 1000000000000 // 20)
    -- 40 unit-seconds busy at first, in the first bucket
    assert.near(40 / s.width / 4, s.utilization[1], 1e-12)
    assert.near(10 / s.width / 4, s.down[#s.t], 1e-9)
  end)
end)

describe("a job's state", function()
  it("is one of those the API reference lists, each as it says", function()
    local s = new{queue = "fcfs"}
    s:submit{id = 1, submit = 0, run = 100, procs = 16}
    s:submit{id = 2, submit = 5, run = 10, procs = 4}
    s:submit{id = 3, submit = 50, run = 10, procs = 4}
    s:submit{id = 4, submit = 5, run = 10, procs = 4, after = 1}
    assert(s:advance(10))
    local seen = {}
    for id = 1, 4 do seen[#seen + 1] = s:job(id).state end
    -- running; waiting in the queue; submitted for later; held behind job 1
    assert.same({"running", "queued", "submitted", "held"}, seen)
    assert(s:run())
    assert.is_nil(s:job(1))   -- finished: no longer in the system
    -- the reference names these states, and no other
    local f = assert(io.open("docs/api-src/grove.sim.luadoc"))
    local text = f:read("a")
    f:close()
    local entry = assert(text:match("\n(%-%-%- A job's state.-)@function simulator:job"))
    local list = assert(entry:match("`state` is one of%s(.-)%.%s"), entry)
    local named = {}
    for word in list:gmatch('`"([%w ]+)"`') do named[#named + 1] = word end
    table.sort(named)
    table.sort(seen)
    assert.same(seen, named)
  end)
end)

describe("job dependencies and think time", function()
  it("submit a job only after its predecessor ends, plus its think time", function()
    local rows = {}
    local s = new{queue = "fcfs", out = function(r) rows[r.id] = r end}
    s:submit{id = 1, submit = 0, run = 100, procs = 4}
    s:submit{id = 2, submit = 10, run = 10, procs = 4, after = 1, think = 30}
    s:submit{id = 3, submit = 20, run = 10, procs = 4, after = 2}
    s:submit{id = 4, submit = 500, run = 10, procs = 4, after = 1, think = 20}
    s:submit{id = 5, submit = 600, run = 10, procs = 4, after = 4, think = 1000}
    s:submit{id = 6, submit = 700, run = 10, procs = 4, after = 99}
    s:run()
    -- by hand: 2 waits for 1 (ends 100) + 30; 3 for 2 (ends 140) + 0; 4
    -- comes after 1 ended + 20, at its own time; 5 after 4 (ends 510) +
    -- 1000; 6 follows a job never seen
    assert.same({130, 130}, {rows[2].submit, rows[2].start})
    assert.same({140, 140}, {rows[3].submit, rows[3].start})
    assert.same({500, 500}, {rows[4].submit, rows[4].start})
    assert.same({1510, 1510}, {rows[5].submit, rows[5].start})
    assert.same({700, 700}, {rows[6].submit, rows[6].start})
  end)
end)

describe("the fairshare queue policy", function()
  local function scenario(queue)
    local starts = {}
    local s = new{graph = helper.machine("f", 1, 2, 1, 4), queue = queue,
      out = function(r) starts[r.id] = r.start end}
    s:submit{id = 1, submit = 0, run = 100, estimate = 100, procs = 8, user = 1}
    s:submit{id = 2, submit = 10, run = 10, estimate = 10, procs = 8, user = 1}
    s:submit{id = 3, submit = 20, run = 10, estimate = 10, procs = 8, user = 2}
    s:run()
    return starts, s
  end

  it("starts first the job of the user who used less", function()
    -- by hand: at 100 user 1 has used 800 core-seconds and user 2 none, so
    -- 3 starts before 2 (2 waited longer: only its age speaks for it)
    assert.same({[1] = 0, [2] = 100, [3] = 110}, (scenario("easy")))
    assert.same({[1] = 0, [2] = 110, [3] = 100}, (scenario("fairshare")))
  end)

  it("decays usage by the policy's half-life", function()
    local q = assert(sim.queue.parse('return {base = "fairshare", half_life = 20}', "hl.lua"))
    local _, s = scenario(q)
    -- user 1: 800 at 100, halved by 120 (its job 2 ended at 120: + 80)
    assert.near(480, s.ctx.decayed_usage(nil, "user", 1), 1e-9)
    -- user 2: 80 at 110, by 120 80 * 2^(-10/20)
    assert.near(80 * 2 ^ -0.5, s.ctx.decayed_usage(nil, "user", 2), 1e-9)
    expect.fails("EINVAL", "z.lua: half_life must be a number of seconds > 0",
      sim.queue.parse('return {base = "easy", half_life = -1}', "z.lua"))
  end)
end)

describe("memory requests and partitions", function()
  local R = grove.cluster.resources
  -- 2 nodes of 4 cores and a 16 GB memory pool
  local function machine_mem()
    return grove.cluster "mc" {
      R.rack(1) { R.node(2, {hostnames = "n[0-1]"}) { R.socket(1) { R.core(4) },
        R.memory(1, {size = 16, unit = "GB"}) } } }
  end
  local GB = 1024 * 1024     -- KB

  local function run(opts, jobs)
    local rows, left = {}, {}
    opts.graph = machine_mem()
    opts.out = function(r) rows[r.id] = r end
    opts.report = function(j, why) left[j.id] = why end
    local s = assert(sim.new(opts))
    s:feed(sim.trace.from_list(jobs))
    s:run()
    return rows, left
  end

  it("ask the cluster's memory pools for a job's memory (KB per processor)", function()
    local jobs = {
      {id = 1, submit = 0, run = 100, estimate = 100, procs = 2, mem = 10 * GB},
      {id = 2, submit = 1, run = 10, estimate = 10, procs = 1, mem = 8 * GB},
      {id = 3, submit = 2, run = 10, estimate = 10, procs = 1, mem = 20 * GB},
      {id = 4, submit = 3, run = 10, estimate = 10, procs = 1}}
    local rows, left = run({queue = "easy"}, jobs)
    -- by hand: 1 takes 10 GB on each node (a processor's memory stays
    -- with it), so 2 (8 GB) waits for it to end at 100; 3 (20 GB) never
    -- fits a node; 4 (no memory asked) backfills at once
    assert.same({0, "n[0-1]"}, {rows[1].start, rows[1].hosts})
    assert.equal(100, rows[2].start)
    assert.equal("no node holds a slot of 20 memory: largest has 16", left[3])
    assert.equal(3, rows[4].start)
    rows = run({queue = "easy", memory_requests = "ignore"}, jobs)
    assert.same({0, 1, 2, 3}, {rows[1].start, rows[2].start, rows[3].start, rows[4].start})
  end)

  it("run a partition's jobs on its nodes only", function()
    local rows, left = run({queue = "easy", partitions = {[1] = "n0", [2] = "n1"}}, {
      {id = 1, submit = 0, run = 100, estimate = 100, procs = 4, partition = 1},
      {id = 2, submit = 1, run = 10, estimate = 10, procs = 2, partition = 1},
      {id = 3, submit = 2, run = 10, estimate = 10, procs = 4, partition = 2},
      {id = 4, submit = 3, run = 10, estimate = 10, procs = 1, partition = 3},
      {id = 5, submit = 4, run = 10, estimate = 10, procs = 1}})
    -- by hand: 1 fills n0; 2 (partition 1) waits for it; 3 runs on n1 at
    -- once (easy: it delays nothing); 4's partition has no nodes; 5 (no
    -- partition) goes anywhere: n1 is full until 12, n0 until 100, and
    -- it ends by 100, so it starts at 12
    assert.same({0, "n0"}, {rows[1].start, rows[1].hosts})
    assert.same({100, "n0"}, {rows[2].start, rows[2].hosts})
    assert.same({2, "n1"}, {rows[3].start, rows[3].hosts})
    assert.equal("no nodes for partition 3", left[4])
    assert.same({12, "n1"}, {rows[5].start, rows[5].hosts})
    expect.fails("EINVAL", "partition 1: no node 'n7' (a node name, path or hostlist)",
      sim.new{graph = machine_mem(), partitions = {[1] = "n7"}})
  end)
end)

describe("the queue a job at a time", function()
  it("ctx:next walks the queue in order, passing over jobs too large; ctx:reserved", function()
    local s = new{queue = "conservative"}
    s:submit{id = 1, submit = 0, run = 100, estimate = 100, procs = 16}
    for _, j in ipairs{{2, 8}, {3, 2}, {4, 12}, {5, 1}} do
      s:submit{id = j[1], submit = 1, run = 10, estimate = 10, procs = j[2]}
    end
    s:advance(1)
    local ctx = s.ctx
    local function id(v) return v and v.id end
    assert.equal(2, id(ctx.next(nil)))
    assert.equal(3, id(ctx.next(nil, ctx.next(nil))))
    assert.equal(5, id(ctx.next(nil, {id = 3}, 4)))      -- 4 (12 units) passed over
    assert.equal(5, id(ctx.next(nil, nil, 1)))
    assert.is_nil(ctx.next(nil, nil, 0))                  -- nothing that small waits
    assert.is_nil(ctx.next(nil, {id = 5}))
    -- conservative reserved every waiting job
    local r = {}
    for i, v in ipairs(ctx.reserved()) do r[i] = v.id end
    assert.same({2, 3, 4, 5}, r)
  end)
end)

-- The jobs of the queue specs (16 cores) from rows {submit, run, procs,
-- queue}: ids 1, 2, ... in order, each estimated exactly.
local function queued(rows)
  local jobs = {}
  for i, r in ipairs(rows) do
    jobs[i] = {id = i, submit = r[1], run = r[2], estimate = r[2], procs = r[3], queue = r[4]}
  end
  return jobs
end
-- queue 1 holds 8 units from 0 to 100 and has 4 and 2 units waiting;
-- queue 2 has 4 units for 50 s and 8 units
local LIMITED = queued{{0, 100, 8, 1}, {1, 10, 4, 1}, {2, 50, 4, 2}, {3, 10, 8, 2}, {4, 10, 2, 1}}
-- two jobs of 2 units of queue 1, the first for 100 s
local TWO = queued{{0, 100, 2, 1}, {1, 10, 2, 1}}

describe("the queues policy", function()
  local function starts(params, jobs)
    local out = {}
    local s = new{queue = "queues", params = params, out = function(r) out[r.id] = r.start end}
    s:feed(sim.trace.from_list(jobs))
    s:run()
    return out
  end

  it("holds a queue at its limits while the others go on", function()
    local got = starts({units_1 = 8}, LIMITED)
    -- by hand (16 cores): queue 1 holds 8 units from 0 to 100, so 2 and
    -- 5 wait for 1 whatever is free; 3 starts at once; 4 (8 units, 4
    -- free) waits for 3's end at 52; at 100 both 2 and 5 fit queue 1's 8
    assert.same({[1] = 0, [2] = 100, [3] = 2, [4] = 52, [5] = 100}, got)
    assert.same({[1] = 0, [2] = 100}, starts({jobs_1 = 1}, TWO))
  end)

  it("orders the waiting jobs by their queue's priority", function()
    local jobs = queued{{0, 100, 16, 1}, {1, 10, 16, 1}, {2, 10, 16, 2}}
    assert.same({[1] = 0, [2] = 100, [3] = 110}, starts({}, jobs))
    assert.same({[1] = 0, [2] = 110, [3] = 100}, starts({priority_2 = 10}, jobs))
  end)
end)

describe("a queue policy per queue (policy_Q)", function()
  local function starts(queue, params, jobs)
    local out = {}
    local s = new{queue = queue, params = params, out = function(r) out[r.id] = r.start end}
    s:feed(sim.trace.from_list(jobs))
    assert(s:run())
    return out
  end
  local mixed = queued{{0, 100, 12, 1}, {1, 10, 8, 1}, {2, 10, 2, 1}, {3, 50, 8, 2}, {4, 20, 2, 2}}

  it("schedules each queue by its own policy", function()
    -- by hand: queue 1 is fcfs (the default), queue 2 easy.  1 starts at
    -- 0 (4 cores left); 2 (8) waits and fcfs holds 3 behind it; 4 (8)
    -- waits, its shadow time 100; 5 (2 cores, ends at 24) backfills at 4.
    -- At 100 queue 1 goes first: 2 and 3 start (6 left), 4 waits for
    -- their end at 110.
    assert.same({[1] = 0, [2] = 100, [3] = 100, [4] = 110, [5] = 4},
      starts("fcfs", {policy_2 = "easy"}, mixed))
    -- one policy for all gives other starts: fcfs holds 5 behind 4;
    -- easy backfills 3 at 2, so at 100 both 2 and 4 fit
    assert.same({[1] = 0, [2] = 100, [3] = 100, [4] = 110, [5] = 110}, starts("fcfs", {}, mixed))
    assert.same({[1] = 0, [2] = 100, [3] = 2, [4] = 100, [5] = 4}, starts("easy", {}, mixed))
  end)

  it("runs the queues by priority_Q, highest first", function()
    -- queue 2 first at 100: 4 (8) starts, then queue 1's 2 (8); 3 waits
    -- for 2's end at 110
    assert.same({[1] = 0, [2] = 100, [3] = 110, [4] = 100, [5] = 4},
      starts("fcfs", {policy_2 = "easy", priority_2 = 10}, mixed))
  end)

  it("keeps another queue's reservations", function()
    -- queue 1 conservative: 2 (16 cores) is reserved at 100.  Queue 2's
    -- fcfs may not start 3 (4 cores for 200 s) in the 4 free cores: it
    -- would run past 100 and move 2.  3 and 4 start when 2 ends, at 150.
    local jobs = queued{{0, 100, 12, 1}, {1, 50, 16, 1}, {2, 200, 4, 2}, {3, 90, 4, 2}}
    assert.same({[1] = 0, [2] = 100, [3] = 150, [4] = 150},
      starts("fcfs", {policy_1 = "conservative"}, jobs))
    -- a job that ends before the reservation starts at once
    jobs[3].run, jobs[3].estimate = 90, 90
    assert.same({[1] = 0, [2] = 100, [3] = 2, [4] = 150},
      starts("fcfs", {policy_1 = "conservative"}, jobs))
  end)

  it("holds a queue at units_Q and jobs_Q whatever its policy", function()
    local jobs = LIMITED
    -- by hand: queue 1 (easy) holds 8 units from 0 to 100, so 2 and 5
    -- wait for 1; queue 2 (fcfs): 3 starts at once, 4 (8) waits for 3's
    -- end at 52; at 100 both 2 and 5 fit queue 1's 8
    assert.same({[1] = 0, [2] = 100, [3] = 2, [4] = 52, [5] = 100},
      starts("easy", {units_1 = 8, policy_2 = "fcfs"}, jobs))
    -- without the limit 2 starts at once, 3 takes the last 4 cores at 2,
    -- 4 and 5 wait; at 11 (2 ends) queue 1 goes first: 5 starts, 4 (8)
    -- waits for 3's end at 52 (5 ended at 21)
    assert.same({[1] = 0, [2] = 1, [3] = 2, [4] = 52, [5] = 11},
      starts("easy", {policy_2 = "fcfs"}, jobs))
    assert.same({[1] = 0, [2] = 100},
      starts("fcfs", {jobs_1 = 1, policy_1 = "easy"}, TWO))
  end)

  it("refuses a policy_Q it cannot load, naming the parameter", function()
    expect.fails_like("ENOENT", "^policy_3: no queue policy 'nosuch' in ",
      sim.new{graph = machine(), params = {policy_3 = "nosuch"}})
  end)
end)
