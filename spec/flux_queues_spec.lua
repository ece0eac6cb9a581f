-- Specs for grove.flux's named queues: flux-core's [queues.NAME] each
-- scheduled as its own queue, with the per-queue settings of
-- [sched-grove.queues.NAME].  No Flux is needed: message sequences in,
-- actions out.
local core = require("grove.core")
local flux = require("grove.flux")
local config = require("grove.flux.config")
local h = require("flux_helper")
local exe = require("exe_helper")
local expect = require("expect")
local alloc, by_id = h.alloc, h.by_id

-- Four ranks of four cores: debug on ranks 0-1, batch on 2-3.
local R4 = '{"version":1,"execution":{"R_lite":[{"rank":"0-3","children":{"core":"0-3"}}],'
  .. '"properties":{"debug":"0-1","batch":"2-3"},"starttime":0,"expiration":0,'
  .. '"nodelist":["n[0-3]"]}}'

-- A jobspec of n nodes (4 cores each) for d seconds in queue q, needing
-- property prop (nil: none), as JSON text.
local function qjob(q, n, d, prop)
  local cons = prop and (',"constraints":{"properties":["%s"]}'):format(prop) or ""
  return ('{"version":1,"resources":[{"type":"node","count":%d,"with":[{"type":"slot",'
    .. '"count":1,"label":"task","with":[{"type":"core","count":4}]}]}],"tasks":[{"command":'
    .. '["true"],"slot":"task","count":{"per_slot":1}}],"attributes":{"system":{"duration":%d,'
    .. '"queue":"%s"%s}}}'):format(n, d, q, cons)
end

-- A session at clock 1000 with queues conf (the instance's configuration).
local function qsession(conf, args)
  local clock = {t = 1000}
  local opts = assert(config.module_options(conf, args))
  opts.clock = function() return clock.t end
  local s = assert(flux.new(opts))
  s:handle("resource.acquire", ('{"resources":%s,"up":"0-3"}'):format(R4))
  return s, clock
end

local DEBUG_BATCH = {queues = {debug = {requires = {"debug"}}, batch = {requires = {"batch"}}}}

local function started(acts)
  local out = {}
  for id, a in pairs(by_id(acts, "alloc", "success")) do
    out[id] = core.rv1_decode(a.R):ranks():encode()
  end
  return out
end

describe("grove.flux named queues: configuration", function()
  it("reads [queues] and [sched-grove.queues], each queue's keys over the defaults", function()
    local o = assert(config.module_options({queues = {debug = {requires = {"debug"}},
      batch = {requires = {"batch"}}, expedite = {parent = "batch"}},
      ["sched-grove"] = {["queue-policy"] = "easy", queues = {debug = {
        ["queue-policy"] = "fcfs", ["reserve-depth"] = 2, ["placement-policy"] = "high"}}}}, {}))
    assert.equal("easy", o.queue)
    assert.same({"batch", "debug", "expedite"}, o.queue_names)
    assert.same({requires = {"debug"}, queue = "fcfs", reserve_depth = 2, policy = "high"},
      o.queues.debug)
    assert.same({parent = "batch"}, o.queues.expedite)
  end)

  it("refuses what it cannot honour, saying where and why", function()
    local function err(conf)
      local o, msg = config.module_options(conf, {})
      assert.is_nil(o)
      return msg
    end
    assert.equal("[sched-grove.queues.debgu]: no queue 'debgu' in [queues] (did you mean "
      .. "'debug'?)", err{queues = {debug = {}}, ["sched-grove"] = {queues = {debgu = {}}}})
    assert.equal("[sched-grove.queues.debug]: unknown key 'queue-depth'; a queue's keys are "
      .. "limits, placement-policy, queue-policy, reserve-depth",
      err{queues = {debug = {}}, ["sched-grove"] = {queues = {debug = {["queue-depth"] = 2}}}})
    assert.equal("[sched-grove.queues.debug]: reserve-depth=0: a positive integer or "
      .. "'unlimited' expected",
      err{queues = {debug = {}}, ["sched-grove"] = {queues = {debug = {["reserve-depth"] = 0}}}})
    assert.equal("[queues.x]: parent queue 'nosuch' is not configured",
      err{queues = {x = {parent = "nosuch"}}})
    -- flux-core's job manager refuses the same in the same words
    assert.equal("[queues.x]: 'parent' must be a string",
      err{queues = {b = {}, x = {parent = 42}}})
    assert.equal("[queues.x]: parent queue is itself", err{queues = {x = {parent = "x"}}})
    assert.equal("[queues.x]: parent queue 'v' is itself a virtual queue",
      err{queues = {b = {}, v = {parent = "b"}, x = {parent = "v"}}})
    assert.equal("[queues.x]: requires: a list of properties expected",
      err{queues = {x = {requires = "debug"}}})
    -- a policy that does not load: nothing is built
    local opts = assert(config.module_options({queues = {debug = {}},
      ["sched-grove"] = {queues = {debug = {["queue-policy"] = "esay"}}}}, {}))
    expect.fails_like("ENOENT",
      "^policy_debug: no queue policy 'esay' %(did you mean 'easy'%?%) in ", flux.new(opts))
  end)
end)

describe("grove.flux named queues: scheduling", function()
  it("never holds one queue's jobs behind another queue's blocked head", function()
    local s = qsession(DEBUG_BATCH)
    -- debug is full (job 1, both debug nodes); job 2 waits for it
    local acts = s:handle("sched.alloc", alloc(1, qjob("debug", 2, 100, "debug")))
    assert.same({[1] = "0-1"}, started(acts))
    acts = s:handle("sched.alloc", alloc(2, qjob("debug", 1, 100, "debug")))
    assert.same({}, started(acts))
    -- a batch job submitted after it starts at once on the idle batch nodes
    acts = s:handle("sched.alloc", alloc(3, qjob("batch", 2, 100, "batch")))
    assert.same({[3] = "2-3"}, started(acts))
    -- and under one queue for all (the same jobs), it would have waited
    local one = h.session(nil, R4, "0-3")
    one:handle("sched.alloc", alloc(1, qjob("debug", 2, 100, "debug")))
    one:handle("sched.alloc", alloc(2, qjob("debug", 1, 100, "debug")))
    acts = one:handle("sched.alloc", alloc(3, qjob("batch", 2, 100, "batch")))
    assert.same({}, started(acts))
  end)

  it("starts a large job of an overlapping queue by its estimate while the other flows",
    function()
    -- queue all (every node, easy) over queue batch (ranks 2-3, fcfs)
    local s, clock = qsession({queues = {all = {}, batch = {requires = {"batch"}}},
      ["sched-grove"] = {["queue-policy"] = "easy",
        queues = {batch = {["queue-policy"] = "fcfs"}}}})
    -- batch runs two 100 s jobs; all's large job needs the whole machine
    s:handle("sched.alloc", alloc(1, qjob("batch", 1, 100, "batch")))
    s:handle("sched.alloc", alloc(2, qjob("batch", 1, 100, "batch")))
    local acts = s:handle("sched.alloc", alloc(3, qjob("all", 4, 100)))
    assert.equal(1100, by_id(acts, "alloc", "annotate")[3].annotations.sched.t_estimate)
    -- batch keeps flowing on what the reservation leaves: a job ending
    -- by 1100 starts when a batch node frees early ...
    clock.t = 1050
    s:handle("sched.free", ('{"id":1,"R":%s,"final":true}'):format(
      '{"version":1,"execution":{"R_lite":[{"rank":"2","children":{"core":"0-3"}}]}}'))
    acts = s:handle("sched.alloc", alloc(4, qjob("batch", 1, 40, "batch")))
    assert.same({[4] = "2"}, started(acts))
    -- ... but one that would run past 1100 waits: it would delay the large job
    acts = s:handle("sched.alloc", alloc(5, qjob("batch", 1, 500, "batch")))
    assert.same({}, started(acts))
    -- the large job starts by its estimate, before batch's waiting job,
    -- once the batch jobs before it have ended (their frees come)
    clock.t = 1090
    s:handle("sched.free", {id = 4, final = true})
    clock.t = 1100
    acts = s:handle("sched.free", {id = 2, final = true})
    assert.same({[3] = "0-3"}, started(acts))
  end)

  it("places each queue's jobs with its own placement policy", function()
    local s = qsession({queues = {hi = {}, lo = {}}, ["sched-grove"] = {queues = {
      hi = {["placement-policy"] = "high"}, lo = {["placement-policy"] = "low"}}}})
    local acts = s:handle("sched.alloc", alloc(1, qjob("hi", 1, 100)))
    assert.same({[1] = "3"}, started(acts))
    acts = s:handle("sched.alloc", alloc(2, qjob("lo", 1, 100)))
    assert.same({[2] = "0"}, started(acts))
    acts = s:handle("sched.alloc", alloc(3, qjob("hi", 1, 100)))
    assert.same({[3] = "2"}, started(acts))
  end)

  it("holds each queue to its own reserve depth", function()
    local s = qsession({queues = {a = {}, b = {}}, ["sched-grove"] = {
      ["queue-policy"] = "conservative", queues = {a = {["reserve-depth"] = 1}}}})
    s:handle("sched.alloc", alloc(1, qjob("a", 4, 100)))
    local acts = s:handle("sched.alloc", alloc(2, qjob("a", 4, 100)))
    assert.equal(1100, by_id(acts, "alloc", "annotate")[2].annotations.sched.t_estimate)
    -- a's depth is 1: its second waiting job holds no reservation
    s:handle("sched.alloc", alloc(3, qjob("a", 4, 100)))
    local a3 = 0
    for _, rec in pairs(s.loop.reserved_set) do if rec.id == 3 then a3 = a3 + 1 end end
    assert.equal(0, a3)
    -- b has no depth of its own: every job of it holds one
    s:handle("sched.alloc", alloc(4, qjob("b", 4, 100)))
    s:handle("sched.alloc", alloc(5, qjob("b", 4, 100)))
    assert.is_not_nil(s.loop.reserved_set[4])
    assert.is_not_nil(s.loop.reserved_set[5])
  end)

  it("denies a job of a queue that does not exist, with the closest", function()
    local s = qsession(DEBUG_BATCH)
    local acts = s:handle("sched.alloc", alloc(1, qjob("dbug", 1, 100)))
    assert.equal("queue 'dbug' does not exist (did you mean 'debug'?)",
      by_id(acts, "alloc", "deny")[1].note)
    assert.equal(0, s:stats().queue_length)
  end)

  it("counts each queue in the module's stats", function()
    local s = qsession(DEBUG_BATCH)
    s:handle("sched.alloc", alloc(1, qjob("debug", 2, 100, "debug")))
    s:handle("sched.alloc", alloc(2, qjob("debug", 1, 100, "debug")))
    s:handle("sched.alloc", alloc(3, qjob("batch", 1, 100, "batch")))
    local st = s:stats().queues
    -- debug's waiting head holds a reservation (every queue's head does)
    assert.same({pending = 1, running = 1, reserved = 1, policy = "fcfs", placement = "first"},
      st.debug)
    assert.same({pending = 0, running = 1, reserved = 0, policy = "fcfs", placement = "first"},
      st.batch)
  end)
end)

describe("grove.flux live configuration", function()
  local function reload(s, conf)
    return s:handle("config-reload", {conf = conf})
  end

  it("applies a changed configuration: running jobs kept, waiting ones in order", function()
    local s = qsession({["sched-grove"] = {["queue-policy"] = "fcfs"}})
    -- job 1 runs on two nodes for 100 s; job 2 (all four) waits; job 3
    -- (one node, 50 s) waits behind it under fcfs
    s:handle("sched.alloc", alloc(1, qjob("x", 2, 100)))
    s:handle("sched.alloc", alloc(2, qjob("x", 4, 100)))
    local acts = s:handle("sched.alloc", alloc(3, qjob("x", 1, 50)))
    assert.same({}, started(acts))
    -- to easy: job 3 backfills at once (it ends before job 2's start)
    acts = reload(s, {["sched-grove"] = {["queue-policy"] = "easy"}})
    assert.equal("respond", acts[#acts].op)
    acts = s:schedule()
    assert.same({[3] = "2"}, started(acts))
    assert.equal("easy", s:stats().queue)
    -- job 1 kept its nodes, job 2 its place (the head, reserved at 1100)
    assert.equal("running", s.loop.jobs[1].state)
    assert.equal(1100 * flux.TICKS, s.loop.jobs[2].reserved)
  end)

  it("adds and removes queues", function()
    local s = qsession({})
    s:handle("sched.alloc", alloc(1, qjob("debug", 2, 100, "debug")))
    s:handle("sched.alloc", alloc(2, qjob("debug", 1, 100, "debug")))
    -- queues added: batch's job no longer waits behind debug's head
    local acts = reload(s, DEBUG_BATCH)
    assert.equal("respond", acts[#acts].op)
    acts = s:handle("sched.alloc", alloc(3, qjob("batch", 1, 100, "batch")))
    assert.same({[3] = "2"}, started(acts))
    assert.is_not_nil(s:stats().queues.batch)
    -- and removed again: one queue for all
    acts = reload(s, {})
    assert.equal("respond", acts[#acts].op)
    assert.is_nil(s:stats().queues)
    acts = s:handle("sched.alloc", alloc(4, qjob("batch", 1, 100, "batch")))
    assert.same({}, started(acts))
  end)

  it("refuses a bad configuration with the reason, and the old one goes on", function()
    local s = qsession({["sched-grove"] = {["queue-policy"] = "easy"}})
    local bad = {
      {{["sched-grove"] = {["queue-polcy"] = "fcfs"}}, "unknown key 'queue%-polcy'"},
      {{["sched-grove"] = {["queue-policy"] = "esay"}}, "no queue policy 'esay'"},
      {{["sched-grove"] = {["placement-policy"] = "hihg"}}, "no policy 'hihg'"},
      {{["sched-grove"] = {["reserve-depth"] = 0}}, "reserve%-depth=0"},
      {{queues = {a = {}}, ["sched-grove"] = {queues = {b = {}}}}, "no queue 'b'"},
    }
    for _, b in ipairs(bad) do
      local acts = reload(s, b[1])
      assert.equal("error", acts[#acts].op)
      assert.equal("EINVAL", acts[#acts].errnum)
      assert.matches(b[2], acts[#acts].message)
      assert.equal("easy", s:stats().queue)
      assert.equal("first", s:stats().policy)
    end
  end)

  it("reads a policy file changed on disk again", function()
    local dir = exe.scratch_dir()
    local path = dir .. "/mine.lua"
    local function write(name)
      exe.write(path, ('return {name = "%s", schedule = function(ctx)\n'
        .. '  local j = ctx:next()\n  while j do local n = ctx:next(j); ctx:start(j); j = n end\n'
        .. 'end}\n'):format(name))
    end
    write("one")
    local conf = {["sched-grove"] = {["queue-policy"] = path}}
    local s = qsession(conf)
    assert.equal("one", s:stats().queue)
    write("two")
    local acts = reload(s, conf)
    assert.equal("respond", acts[#acts].op)
    assert.equal("two", s:stats().queue)
    os.remove(path)
    os.remove(dir)
  end)
end)
