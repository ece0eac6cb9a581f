-- Specs for grove.flux where flux-core's own schedulers set what a
-- scheduler must do (their test suite checks it): the module's options,
-- jobspec V1's required attributes, what a job's R carries.  No Flux is
-- needed.
local core = require("grove.core")
local flux = require("grove.flux")
local config = require("grove.flux.config")
local h = require("flux_helper")
local R_text, jobspec, alloc, session = h.R_text, h.jobspec, h.alloc, h.session
local by_id = h.by_id

-- The respond action among acts (an operator's command answers with one).
local function respond_of(acts)
  for _, a in ipairs(acts) do
    if a.op == "respond" then return a end
  end
end

-- A V1 jobspec of one core whose attributes are attrs (JSON text).
local function v1_with(attrs)
  return ('{"version":1,"resources":[{"type":"slot","count":1,"label":"task","with":'
    .. '[{"type":"core","count":1}]}],"tasks":[{"command":["true"],"slot":"task",'
    .. '"count":{"per_slot":1}}],"attributes":%s}'):format(attrs)
end

describe("grove.flux module options", function()
  local function opts(conf, args)
    return config.module_options(conf, args)
  end

  it("takes flux-core's scheduler options: mode, queue-depth, log-level", function()
    assert.same({limited = 8}, opts(nil, {"mode=limited=8"}))
    assert.same({}, opts(nil, {"mode=unlimited"}))
    assert.same({limited = 3}, opts(nil, {"queue-depth=3"}))
    assert.same({}, opts(nil, {"queue-depth=3", "queue-depth=unlimited"}))
    assert.same({log_level = 7}, opts(nil, {"log-level=debug"}))
    assert.same({log_level = 3}, opts(nil, {"log-level=ERR"}))
    assert.same({forecast_period = 90}, opts(nil, {"forecast-period=1.5m"}))
  end)

  it("makes queue-depth the ready request's limit", function()
    local s = assert(flux.module(nil, {"queue-depth=1"}))
    assert.same({mode = "limited", limit = 1}, s:ready())
    s = assert(flux.module(nil, {"mode=limited=2"}))
    assert.same({mode = "limited", limit = 2}, s:ready())
    s = assert(flux.module(nil, {}))
    assert.same({mode = "unlimited"}, s:ready())
  end)

  it("reads [sched-grove], and the arguments win", function()
    local conf = {["sched-grove"] = {["queue-policy"] = "easy", ["queue-depth"] = 4,
      ["policy-time"] = 2}}
    assert.same({queue = "easy", limited = 4, limits = {time = 2}}, opts(conf, {}))
    assert.same({queue = "fcfs", limited = 4, limits = {time = 2}},
      opts(conf, {"queue-policy=fcfs"}))
    local s = assert(flux.module(conf, {}))
    assert.equal("easy", s:stats().queue)
  end)

  it("refuses an unknown key, naming it, where it came from and the closest key", function()
    local o, msg = opts(nil, {"log_level=debug"})
    assert.is_nil(o)
    assert.matches("^argument 'log_level=debug': unknown key 'log_level' %(did you mean "
      .. "'log%-level'%?%); the keys are forecast%-period, hwloc%-xml, log%-level, ", msg)
    o, msg = opts({["sched-grove"] = {["queue-polcy"] = "easy"}}, {})
    assert.is_nil(o)
    assert.matches("^%[sched%-grove%]: unknown key 'queue%-polcy' %(did you mean "
      .. "'queue%-policy'%?%)", msg)
    assert.matches("unknown key 'zzz'; the keys are", select(2, opts(nil, {"zzz=1"})))
    assert.equal("argument 'noequals': key=value expected", select(2, opts(nil, {"noequals"})))
  end)

  it("refuses a bad value with the key and what it takes", function()
    local bad = {
      {"queue-depth=0", "a positive integer or 'unlimited' expected"},
      {"queue-depth=bogus", "a positive integer or 'unlimited' expected"},
      {"mode=foobar", "'unlimited' or 'limited=N'"},
      {"mode=limited=-1", "'unlimited' or 'limited=N'"},
      {"log-level=bogus", "one of emerg, alert"},
      {"forecast-period=bogus", "a positive duration expected"},
      {"forecast-period=0", "a positive duration expected"},
      {"forecast-period=-1", "a positive duration expected"},
      {"match-format=jgf", "rv1_nosched or rv1 expected"},
      {"policy-budget=-5", "a positive number expected"},
      {"reserve-depth=1.5", "a positive integer or 'unlimited' expected"},
    }
    for _, b in ipairs(bad) do
      local o, msg = opts(nil, {b[1]})
      assert.is_nil(o, b[1])
      local prefix = ("argument '%s': %s: "):format(b[1], b[1])
      assert.equal(prefix, msg:sub(1, #prefix))
      assert.truthy(msg:find(b[2], 1, true), msg)
    end
    local o, msg = opts({["sched-grove"] = "easy"}, {})
    assert.is_nil(o)
    assert.equal("[sched-grove]: a table expected", msg)
  end)

  it("names a misspelt policy with the closest one, and builds nothing", function()
    local s, msg = flux.module(nil, {"queue-policy=esay"})
    assert.is_nil(s)
    assert.matches("no queue policy 'esay' %(did you mean 'easy'%?%)", msg)
    s, msg = flux.module(nil, {"placement-policy=hihg"})
    assert.is_nil(s)
    assert.matches("no policy 'hihg' %(did you mean 'high'%?%)", msg)
  end)

  it("leaves out log lines above log-level", function()
    local s = assert(flux.module(nil, {"log-level=err"}))
    local base = require("grove.flux.base")
    base.emit(s, {op = "log", level = "info", message = "quiet"})
    base.emit(s, {op = "log", level = "err", message = "loud"})
    local out = base.flush(s)
    assert.equal(1, #out)
    assert.equal("loud", out[1].message)
  end)
end)

describe("grove.flux and jobspec V1", function()
  it("denies a V1 jobspec without attributes.system, as flux-core words it", function()
    local s = session()
    local acts = s:handle("sched.alloc", alloc(1, v1_with("{}")))
    assert.equal("getting duration: Object item not found: system",
      by_id(acts, "alloc", "deny")[1].note)
    acts = s:handle("sched.alloc", alloc(2, v1_with('{"system":{}}')))
    assert.equal("getting duration: Object item not found: duration",
      by_id(acts, "alloc", "deny")[2].note)
    acts = s:handle("feasibility.check", ('{"jobspec":%s}'):format(v1_with('{"user":{}}')))
    assert.equal("EINVAL", acts[1].errnum)
    assert.equal("getting duration: Object item not found: system", acts[1].message)
    -- nothing was taken
    acts = s:handle("sched.alloc", alloc(3, jobspec(2, 4, 100)))
    assert.is_not_nil(by_id(acts, "alloc", "success")[3])
  end)

  it("takes a V1 jobspec with a duration of 0 (none)", function()
    local s = session()
    local acts = s:handle("sched.alloc", alloc(1, v1_with('{"system":{"duration":0}}')))
    assert.is_not_nil(by_id(acts, "alloc", "success")[1])
  end)
end)

describe("grove.flux writes a job's R", function()
  it("with no expiration for a job with no end of its own", function()
    local s = session()
    local acts = s:handle("sched.alloc", alloc(1, v1_with('{"system":{"duration":0}}')))
    local R = core.json_decode(by_id(acts, "alloc", "success")[1].R)
    assert.equal(0, R.execution.expiration)
    assert.equal(1000, R.execution.starttime)
    -- a job with a duration ends by it
    acts = s:handle("sched.alloc", alloc(2, jobspec(1, 1, 60)))
    R = core.json_decode(by_id(acts, "alloc", "success")[2].R)
    assert.equal(1060, R.execution.expiration)
  end)

  it("ending at the resource set's expiration when the set has one", function()
    local s = session(nil, R_text("0-1", "n[0-1]", 5000))
    local acts = s:handle("sched.alloc", alloc(1, v1_with('{"system":{"duration":0}}')))
    local R = core.json_decode(by_id(acts, "alloc", "success")[1].R)
    assert.equal(5000, R.execution.expiration)
  end)

  it("with the instance R's scheduler data when it is not a graph", function()
    local R0 = ('{"version":1,"execution":{"R_lite":[{"rank":"0-1","children":{"core":"0-3"}}],'
      .. '"starttime":0,"expiration":0,"nodelist":["n[0-1]"]},"scheduling":{"test":"data"}}')
    local s = session(nil, R0)
    local acts = s:handle("sched.alloc", alloc(1, jobspec(1, 1, 60)))
    local R = core.json_decode(by_id(acts, "alloc", "success")[1].R)
    assert.same({test = "data"}, R.scheduling)
    -- and the R stays R: it reads back with its ranks
    assert.equal("0", core.rv1_decode(by_id(acts, "alloc", "success")[1].R):ranks():encode())
  end)

  it("without the instance's graph under rv1_nosched", function()
    local g = require("grove").cluster.resources
    local graph = require("grove").cluster("c") {
      g.node(2, {hostnames = "n[0-1]", ranks = "0-1"}) { g.core(4) } }
    local R0 = core.rv1_from_graph(graph, {graph = true}):encode{graph = true}
    local s = session(nil, R0)
    local acts = s:handle("sched.alloc", alloc(1, jobspec(1, 1, 60)))
    local R = core.json_decode(by_id(acts, "alloc", "success")[1].R)
    assert.is_nil(R.scheduling)
  end)
end)

describe("grove.flux announces itself", function()
  it("with its queue depth, policies and the resources", function()
    local s = session({limited = 8, queue = "easy", log_level = 6})
    local acts = s:announce()
    assert.same({{op = "log", level = "info", message = "ready: queue-depth=8 log-level=info "
      .. "queue-policy=easy placement-policy=first rank[0-1]/core[0-3]"}}, acts)
    -- the resource set itself, up or down, as flux-core's
    s:handle("resource.acquire", '{"down":"1"}')
    assert.matches("queue%-depth=8 .* rank%[0%-1%]/core%[0%-3%]$", s:announce()[1].message)
  end)
end)

describe("grove.flux and backfill", function()
  it("writes job ids in F58 as flux-core does", function()
    local base = require("grove.flux.base")
    local saved = os.getenv
    -- the prefix follows the locale, as flux-core's
    os.getenv = function(k) if k == "LC_ALL" then return "C" end return nil end -- luacheck: ignore
    local ok, err = pcall(function()
      assert.same({"f1", "f2", "fz", "f21", "f7Kze", "fF2DiKHh6v", "fjpXCZedGfVQ"},
        {base.f58(0), base.f58(1), base.f58(57), base.f58(58), base.f58(1234567),
         base.f58(1795575070111415), base.f58(-1)})
    end)
    os.getenv = function(k) if k == "LANG" then return "en_US.UTF-8" end return nil end -- luacheck: ignore
    local ok2, err2 = pcall(function() assert.equal("\u{192}21", base.f58(58)) end)
    os.getenv = saved -- luacheck: ignore
    assert(ok, err)
    assert(ok2, err2)
  end)

  it("names the head a job went past in its backfill annotation", function()
    local base = require("grove.flux.base")
    local s = session({queue = "easy"})
    -- job 1 holds one node for 100 s; job 2 needs both (the head, blocked)
    s:handle("sched.alloc", alloc(1, jobspec(1, 4, 100)))
    s:handle("sched.alloc", alloc(2, jobspec(2, 4, 100)))
    -- job 3 ends before the head's start: it backfills past job 2
    local acts = s:handle("sched.alloc", alloc(3, jobspec(1, 4, 50)))
    local ok3 = by_id(acts, "alloc", "success")[3]
    assert.equal(base.f58(2), ok3.annotations.sched.backfill)
    -- a job that starts in its turn has none
    s = session({queue = "easy"})
    acts = s:handle("sched.alloc", alloc(1, jobspec(1, 4, 100)))
    assert.is_nil(by_id(acts, "alloc", "success")[1].annotations.sched.backfill)
    acts = s:handle("sched.alloc", alloc(2, jobspec(1, 4, 100)))
    assert.is_nil(by_id(acts, "alloc", "success")[2].annotations.sched.backfill)
  end)
end)

describe("grove.flux logs frees", function()
  it("at debug, each partial free and the final one, only when asked", function()
    local base = require("grove.flux.base")
    local function logs(acts)
      local out = {}
      for _, a in ipairs(acts) do
        if a.op == "log" then out[#out + 1] = a.level .. " " .. a.message end
      end
      return out
    end
    local s = session({log_level = 7})
    local acts = s:handle("sched.alloc", alloc(1, jobspec(2, 4, 100)))
    local R = core.json_decode(by_id(acts, "alloc", "success")[1].R)
    R.execution.R_lite[1].rank = "1"
    R.execution.nodelist = {"n1"}
    acts = s:handle("sched.free", {id = 1, R = R, final = false})
    local id = base.f58(1)
    assert.same({"debug free: " .. id .. ": rank1/core[0-3]"}, logs(acts))
    R.execution.R_lite[1].rank = "0"
    R.execution.nodelist = {"n0"}
    acts = s:handle("sched.free", {id = 1, R = R, final = true})
    assert.same({"debug free: " .. id .. ": rank0/core[0-3] (final)"}, logs(acts))
    -- at the default level (info), nothing
    s = session()
    acts = s:handle("sched.alloc", alloc(1, jobspec(2, 4, 100)))
    acts = s:handle("sched.free", {id = 1, R = by_id(acts, "alloc", "success")[1].R,
      final = true})
    assert.same({}, logs(acts))
  end)
end)

describe("grove.flux and a running job's expiration", function()
  it("takes 0 as no end of its own: until the resource set expires, or for good", function()
    local s = session()
    local acts = s:handle("sched.alloc", alloc(1, jobspec(2, 4, 100)))
    assert.is_not_nil(by_id(acts, "alloc", "success")[1])
    acts = s:handle("sched.expiration", '{"id":1,"expiration":0}')
    assert.equal("respond", acts[1].op)
    assert.is_nil(s.loop.m:info(1)["end"])
    -- a job behind it can now start only when it is freed: no estimate
    acts = s:handle("sched.alloc", alloc(2, jobspec(1, 4, 100)))
    local a = by_id(acts, "alloc", "annotate")[2]
    assert.same({reason_pending = "insufficient resources"}, a.annotations.sched)
    -- with a resource set that expires, the job ends by its expiration
    s = session(nil, R_text("0-1", "n[0-1]", 9000))
    s:handle("sched.alloc", alloc(1, jobspec(2, 4, 100)))
    s:handle("sched.expiration", '{"id":1,"expiration":0}')
    assert.equal(9000 * flux.TICKS, s.loop.m:info(1)["end"])
  end)
end)

describe("grove.flux and flux-core's scheduler test hooks", function()
  it("denies every alloc under bit 1", function()
    local s = session()
    s:set_debug(1)
    local acts = s:handle("sched.alloc", alloc(1, jobspec(1, 1, 60)))
    assert.equal("DEBUG_FAIL_ALLOC", by_id(acts, "alloc", "deny")[1].note)
    s:set_debug(0)
    acts = s:handle("sched.alloc", alloc(2, jobspec(1, 1, 60)))
    assert.is_not_nil(by_id(acts, "alloc", "success")[2])
  end)

  it("shows each waiting job's place under bit 2, instead of an estimate", function()
    local s = session()
    s:set_debug(2)
    s:handle("sched.alloc", alloc(1, jobspec(2, 4, 100)))
    local acts = s:handle("sched.alloc", alloc(2, jobspec(1, 4, 100)))
    assert.same({reason_pending = "insufficient resources", jobs_ahead = 0},
      by_id(acts, "alloc", "annotate")[2].annotations.sched)
    acts = s:handle("sched.alloc", alloc(3, jobspec(1, 4, 100)))
    assert.same({reason_pending = "insufficient resources", jobs_ahead = 1},
      by_id(acts, "alloc", "annotate")[3].annotations.sched)
    -- job 2 leaves: job 3 is first now
    acts = s:handle("sched.cancel", '{"id":2}')
    assert.same({jobs_ahead = 0}, by_id(acts, "alloc", "annotate")[3].annotations.sched)
    -- the bit cleared: estimates again, the place removed
    s:set_debug(0)
    acts = s:schedule()
    assert.same({t_estimate = 1100, jobs_ahead = core.null},
      by_id(acts, "alloc", "annotate")[3].annotations.sched)
  end)

  it("refuses expiration updates under bit 4", function()
    local s = session()
    s:handle("sched.alloc", alloc(1, jobspec(1, 1, 60)))
    s:set_debug(4)
    local acts = s:handle("sched.expiration", '{"id":1,"expiration":2000}')
    assert.same({op = "error", topic = "sched.expiration", errnum = "EINVAL",
      message = "Rejecting expiration update for testing"}, acts[1])
  end)
end)

describe("grove.flux reads a jobspec's constraints as RFC 31 writes them", function()
  it("refuses an operator whose operands are an object, even an empty one", function()
    local s = session()
    local js = v1_with('{"system":{"duration":0,"constraints":{"and":{}}}}')
    -- as the module hands it over: the jobspec as its text
    local acts = s:handle("feasibility.check", {jobspec = js})
    assert.equal("EINVAL", acts[1].errnum)
    assert.equal("bad jobspec: attributes.system.constraints.and: operands must be a list "
      .. "(got a mapping)", acts[1].message)
    acts = s:handle("sched.alloc", {id = 1, priority = 16, userid = 1, t_submit = 1, jobspec = js})
    assert.matches("operands must be a list", by_id(acts, "alloc", "deny")[1].note)
    -- an empty list is every resource (RFC 31)
    js = v1_with('{"system":{"duration":0,"constraints":{"and":[]}}}')
    acts = s:handle("feasibility.check", {jobspec = js})
    assert.equal("respond", acts[1].op)
  end)
end)

describe("grove.flux logs what it is told of the resource set", function()
  it("an expiration update, as flux-core's schedulers say it", function()
    local s = session()
    local acts = s:handle("resource.acquire", '{"expiration":5000.5}')
    local logs = {}
    for _, a in ipairs(acts) do if a.op == "log" then logs[#logs + 1] = a.message end end
    assert.same({"resource expiration updated to 5000.50"}, logs)
  end)
end)

describe("grove.flux reads Fluxion's configuration", function()
  it("takes a site's [sched-fluxion-*] tables as what they mean, noting each", function()
    local o = assert(config.module_options({
      ["sched-fluxion-qmanager"] = {["queue-policy"] = "hybrid",
        ["queue-params"] = "queue-depth=8192,max-queue-depth=1000",
        ["policy-params"] = "reservation-depth=16,max-reservation-depth=100000"},
      ["sched-fluxion-resource"] = {["match-policy"] = "lonodex", ["match-format"] = "rv1",
        ["prune-filters"] = "ALL:core"}}, {}))
    assert.equal("conservative", o.queue)
    assert.equal(16, o.reserve_depth)
    assert.equal(1000, o.queue_depth)
    assert.equal("lonodex", o.policy)
    assert.equal("rv1", o.match_format)
    assert.same({
      "[sched-fluxion-qmanager] queue-policy=hybrid read as queue-policy=conservative "
        .. "reserve-depth=16",
      "[sched-fluxion-qmanager] queue-params: a pass considers the first 1000 waiting jobs",
      "[sched-fluxion-resource] match-policy=lonodex read as placement-policy=lonodex",
      "[sched-fluxion-resource] match-format=rv1 read as match-format=rv1"}, o.notes)
    -- Fluxion's first and its policy strings, by their meaning
    o = assert(config.module_options({["sched-fluxion-resource"] = {["match-policy"] = "first"}},
      {}))
    assert.equal("fresh", o.policy)
    o = assert(config.module_options({["sched-fluxion-resource"] = {
      ["match-policy"] = "policy=high node_exclusive=true set_stop_on_1_matches=true"}}, {}))
    assert.equal("freshnodex", o.policy)
  end)

  it("lets [sched-grove] win, and reads queue-policy-per-queue", function()
    local o = assert(config.module_options({queues = {batch = {}, debug = {}},
      ["sched-fluxion-qmanager"] = {["queue-policy"] = "easy",
        ["queue-policy-per-queue"] = "batch:conservative debug:fcfs"},
      ["sched-grove"] = {["queue-policy"] = "fcfs",
        queues = {debug = {["queue-policy"] = "easy"}}}}, {}))
    assert.equal("fcfs", o.queue)
    assert.equal("conservative", o.queues.batch.queue)
    assert.equal("easy", o.queues.debug.queue)
  end)

  it("refuses what it cannot read, naming the table and key", function()
    local function err(conf) return select(2, config.module_options(conf, {})) end
    assert.equal("[sched-fluxion-qmanager] queue-policy=esay: fcfs, easy, conservative or "
      .. "hybrid expected (did you mean 'easy'?)",
      err{["sched-fluxion-qmanager"] = {["queue-policy"] = "esay"}})
    assert.equal("[sched-fluxion-qmanager] queue-params: 'queue-depth=x': key=positive "
      .. "integer expected", err{["sched-fluxion-qmanager"] = {["queue-params"] = "queue-depth=x"}})
    assert.equal("[sched-fluxion-resource] match-policy=policy=mid: policy key within custom "
      .. "policy accepts only low or high",
      err{["sched-fluxion-resource"] = {["match-policy"] = "policy=mid"}})
    assert.equal("[sched-fluxion-qmanager] queue-policy-per-queue: no queue 'bach' in [queues] "
      .. "(did you mean 'batch'?)", err{queues = {batch = {}},
        ["sched-fluxion-qmanager"] = {["queue-policy-per-queue"] = "bach:easy"}})
  end)

  it("logs the notes when it announces itself", function()
    local s = assert(flux.module({["sched-fluxion-qmanager"] = {["queue-policy"] = "easy"}}, {}))
    local acts = s:announce()
    assert.equal("[sched-fluxion-qmanager] queue-policy=easy read as queue-policy=easy",
      acts[1].message)
    assert.matches("^ready: ", acts[2].message)
  end)
end)

describe("grove.flux and a job past its end", function()
  local T = flux.TICKS

  it("holds its resources until its free comes, however late", function()
    local s, clock = session()
    s:handle("sched.alloc", alloc(1, jobspec(2, 4, 100)))
    -- its time is up at 1100 but no free has come (the job is being killed)
    clock.t = 1150
    local acts = s:handle("sched.alloc", alloc(2, jobspec(2, 4, 100)))
    assert.is_nil(by_id(acts, "alloc", "success")[2])
    -- held a tick from now, at every look: still so much later
    clock.t = 1400.25
    assert.is_nil(by_id(s:schedule(), "alloc", "success")[2])
    assert.equal(1400250 + flux.OVERDUE_STEP, s.loop.m:info(1)["end"])
    -- the free: job 2 at once
    acts = s:handle("sched.free", {id = 1, final = true})
    assert.is_not_nil(by_id(acts, "alloc", "success")[2])
    -- and the matcher's events are let go each pass
    assert.same({}, s.loop.m:events())
  end)

  -- The sequence of a job killed at its time limit, on two nodes: A (one
  -- node, 8 s) outlives its limit by 5 s; H (both nodes, 10 s) is the
  -- head; X (one node, 30 s) came after H.  X must not start on the node
  -- A leaves free before H, and H starts at A's free.
  local function overdue_sequence(queue)
    local s, clock = session{queue = queue}
    local acts = s:handle("sched.alloc", alloc(1, jobspec(1, 4, 8)))
    assert.equal("0", h.ranks_of(by_id(acts, "alloc", "success")[1]))
    clock.t = 1000.5
    acts = s:handle("sched.alloc", alloc(2, jobspec(2, 4, 10)))
    assert.equal(1008, by_id(acts, "alloc", "annotate")[2].annotations.sched.t_estimate)
    clock.t = 1001
    acts = s:handle("sched.alloc", alloc(3, jobspec(1, 4, 30)))
    assert.is_nil(by_id(acts, "alloc", "success")[3])
    -- A's limit passes: the pass its planned start woke finds A still
    -- there; nothing starts, H is planned a tick from now, and no pass is
    -- woken for that
    assert.equal(1008, s:next_wake())
    clock.t = 1008.002
    acts = s:schedule()
    assert.same({}, by_id(acts, "alloc", "success"))
    assert.equal(1008002 + flux.OVERDUE_STEP, s.loop.jobs[2].reserved)
    assert.is_true(s:next_wake() == nil or s:next_wake() > 1008.003)
    -- more messages while A is killed: X still waits (it would end after
    -- H could start), and H is always planned first
    for _, t in ipairs{1009, 1010.7, 1012.9} do
      clock.t = t
      acts = s:handle("sched.alloc", alloc(math.floor(t), jobspec(1, 1, 1)))
      assert.is_nil(by_id(acts, "alloc", "success")[3])
      assert.is_nil(by_id(acts, "alloc", "success")[2])
      local h2, x = s.loop.jobs[2].reserved, s.loop.jobs[3].reserved
      assert.equal(math.floor(t * T) + flux.OVERDUE_STEP, h2)
      if x then assert.is_true(x >= h2 + 10 * T) end
    end
    -- A's free at 1013.2: H starts at once, X after it
    clock.t = 1013.2
    acts = s:handle("sched.free", {id = 1, final = true})
    local started = by_id(acts, "alloc", "success")
    assert.is_not_nil(started[2])
    assert.is_nil(started[3])
    local R = core.json_decode(started[2].R).execution
    assert.equal(1013.2, R.starttime)
    assert.equal(1023.2, R.expiration)
    clock.t = 1014
    acts = s:handle("sched.free", {id = 2, final = true})
    assert.is_not_nil(by_id(acts, "alloc", "success")[3])
  end

  it("lets no later job jump the head meanwhile (easy)", function()
    overdue_sequence("easy")
  end)

  it("plans every reservation again in queue order meanwhile (conservative)", function()
    overdue_sequence("conservative")
  end)

  it("keeps it off a node its overrun runs into a reservation's window on", function()
    -- (the reservation's holds give way to the job: its members are not
    -- placed on the node before the free)
    local s, clock = session()
    s:handle("sched.alloc", alloc(1, jobspec(1, 4, 100)))
    local acts = s:grove("reserve", {name = "maint", hosts = "n0", start = "@1100",
      duration = "1h", user = 7})
    assert.is_not_nil(respond_of(acts))
    clock.t = 1100.5
    acts = s:handle("sched.alloc", ('{"id":2,"priority":16,"userid":7,"t_submit":2,'
      .. '"jobspec":%s}'):format(jobspec(1, 4, 100)))
    local started = by_id(acts, "alloc", "success")[2]
    assert.is_true(started == nil or h.ranks_of(started) ~= "0")
    assert.is_true(s.loop.m:info(1)["end"] > s.loop.now)
  end)
end)

describe("grove.flux's clock", function()

  it("writes R's times to the millisecond: the whole limit from the allocation", function()
    local s, clock = session()
    clock.t = 1000.79
    local acts = s:handle("sched.alloc", alloc(1, jobspec(2, 4, 10)))
    local R = core.json_decode(by_id(acts, "alloc", "success")[1].R).execution
    assert.equal(1000.79, R.starttime)
    assert.equal(1010.79, R.expiration)
    -- a fractional limit too
    clock.t = 1000.8
    acts = s:handle("sched.alloc", alloc(2, ('{"version":1,"resources":[{"type":"slot",'
      .. '"count":1,"label":"task","with":[{"type":"core","count":1}]}],"tasks":[{"command":'
      .. '["true"],"slot":"task","count":{"per_slot":1}}],"attributes":{"system":'
      .. '{"duration":2.5}}}')))
    assert.is_nil(by_id(acts, "alloc", "success")[2])
    assert.equal(1010.79, by_id(acts, "alloc", "annotate")[2].annotations.sched.t_estimate)
    -- the planner holds job 1 to the millisecond
    assert.equal(1010790, s.loop.m:info(1)["end"])
    clock.t = 1005.123
    acts = s:handle("sched.free", {id = 1, final = true})
    R = core.json_decode(by_id(acts, "alloc", "success")[2].R).execution
    assert.equal(1005.123, R.starttime)
    assert.equal(1007.623, R.expiration)
  end)

  it("plans a backfill to the millisecond", function()
    -- the head waits for job 1 (ends at 1010.79); a job of 9.7 s started
    -- at 1001.09 ends at 1010.79 and is backfilled; one of 9.701 s is not
    local s, clock = session{queue = "easy"}
    clock.t = 1000.79
    s:handle("sched.alloc", alloc(1, jobspec(1, 4, 10)))
    s:handle("sched.alloc", alloc(2, jobspec(2, 4, 10)))
    clock.t = 1001.09
    local function job(id, d)
      return alloc(id, ('{"version":1,"resources":[{"type":"slot","count":1,"label":"task",'
        .. '"with":[{"type":"core","count":4}]}],"tasks":[{"command":["true"],"slot":"task",'
        .. '"count":{"per_slot":1}}],"attributes":{"system":{"duration":%s}}}'):format(d))
    end
    local acts = s:handle("sched.alloc", job(3, 9.701))
    assert.is_nil(by_id(acts, "alloc", "success")[3])
    acts = s:handle("sched.alloc", job(4, 9.7))
    assert.is_not_nil(by_id(acts, "alloc", "success")[4])
  end)

  it("starts a planned start that came due before its pass ran, for its whole estimate",
    function()
    -- a maintenance window keeps both nodes until 1100: job 1 is planned
    -- at 1100, and so is the module's timer; the pass it wakes runs a
    -- moment after and finds the clock past the planned start
    local s, clock = session{queue = "conservative"}
    local acts = s:grove("reserve", {name = "maint", hosts = "n[0-1]", start = "now",
      ["end"] = "@1100"})
    assert.is_not_nil(respond_of(acts))
    acts = s:handle("sched.alloc", alloc(1, jobspec(1, 4, 50)))
    assert.equal(1100, by_id(acts, "alloc", "annotate")[1].annotations.sched.t_estimate)
    assert.equal(1100, s:next_wake())
    clock.t = 1100.004
    acts = s:schedule()
    local R = core.json_decode(by_id(acts, "alloc", "success")[1].R).execution
    assert.equal(1100.004, R.starttime)
    assert.equal(1150.004, R.expiration)
    assert.equal(1150004, s.loop.m:info(1)["end"])
  end)
end)

describe("grove.flux after a restart", function()
  it("puts back a job past its end (housekeeping holds its node) and holds it until its free",
    function()
    -- its limit ended at 950, housekeeping still runs on its node at 1000
    local s, clock = session()
    local R = '{"version":1,"execution":{"R_lite":[{"rank":"0-1","children":{"core":"0-3"}}],'
      .. '"starttime":900,"expiration":950,"nodelist":["n[0-1]"]}}'
    local acts = s:handle("sched.hello", {id = 1, priority = 16, userid = 1, t_submit = 1, R = R})
    assert.same({}, acts)
    assert.equal("running", s.loop.jobs[1].state)
    acts = s:handle("sched.alloc", alloc(2, jobspec(1, 4, 100)))
    assert.is_nil(by_id(acts, "alloc", "success")[2])
    clock.t = 1003.5
    assert.is_nil(by_id(s:schedule(), "alloc", "success")[2])
    -- housekeeping releases rank 0, then the rest
    acts = s:handle("sched.free", ('{"id":1,"R":%s,"final":false}'):format(h.R_text("0", "n0")))
    assert.equal("0", h.ranks_of(by_id(acts, "alloc", "success")[2]))
  end)

  it("keeps what is left of a job's R that the set no longer has whole, and ends the job",
    function()
    local s = session()
    local R = '{"version":1,"execution":{"R_lite":[{"rank":"1","children":{"core":"2-5"}}],'
      .. '"starttime":900,"expiration":2000,"nodelist":["n1"]}}'
    local acts = s:handle("sched.hello", {id = 1, priority = 16, userid = 1, t_submit = 1, R = R})
    assert.same({{op = "exception", id = 1, type = "resource", severity = 0,
      note = "resources rank1/core[4-5] are no longer in the instance's set"}}, acts)
    assert.equal("running", s.loop.jobs[1].state)
    -- rank 1's cores 2-3 stay the job's until its free: a whole node waits
    acts = s:handle("sched.alloc", alloc(2, jobspec(1, 4, 100)))
    assert.equal("0", core.rv1_decode(by_id(acts, "alloc", "success")[2].R):ranks():encode())
    acts = s:handle("sched.alloc", alloc(3, jobspec(1, 4, 100)))
    assert.is_nil(by_id(acts, "alloc", "success")[3])
    acts = s:handle("sched.free", {id = 1, R = R, final = true})
    assert.equal("1", core.rv1_decode(by_id(acts, "alloc", "success")[3].R):ranks():encode())
    -- a job of which nothing is left, or that collides with another, is refused
    acts = s:handle("sched.hello", {id = 4, priority = 16, userid = 1, t_submit = 4,
      R = R:gsub('"rank":"1"', '"rank":"7"')})
    assert.equal("ENOENT", acts[1].errnum)
    acts = s:handle("sched.hello", {id = 5, priority = 16, userid = 1, t_submit = 5, R = R})
    assert.equal("error", acts[1].op)
    assert.is_nil(s.loop.jobs[5])
  end)

  it("releases what a job put back by the hello no longer holds at the job manager", function()
    local s = session()
    -- three jobs put back: 1 on rank 0's cores 0-1, 2 on its cores 2-3, 3 on rank 1
    local function R(rank, cores)
      return ('{"version":1,"execution":{"R_lite":[{"rank":"%s","children":{"core":"%s"}}],'
        .. '"starttime":900,"expiration":2000,"nodelist":["n%s"]}}'):format(rank, cores, rank)
    end
    s:handle("sched.hello", {id = 1, priority = 16, userid = 1, t_submit = 1, R = R(0, "0-1")})
    s:handle("sched.hello", {id = 2, priority = 16, userid = 1, t_submit = 2, R = R(0, "2-3")})
    s:handle("sched.hello", {id = 3, priority = 16, userid = 1, t_submit = 3, R = R(1, "0-3")})
    -- the job manager holds only job 1's (2 and 3 ended before ready)
    local acts = s:reconcile({allocated = core.json_decode(R(0, "0-1"))})
    local warned = {}
    for _, a in ipairs(acts) do
      if a.op == "log" then warned[#warned + 1] = a.message:match("ranks (%S+) freed") end
    end
    table.sort(warned)
    assert.same({"0", "1"}, warned)
    assert.equal("running", s.loop.jobs[1].state)
    assert.is_nil(s.loop.jobs[2])
    assert.is_nil(s.loop.jobs[3])
    -- what they held is free: a job of rank 1 and of rank 0's cores 2-3 start
    acts = s:handle("sched.alloc", alloc(4, jobspec(1, 4, 100)))
    assert.equal("1", core.rv1_decode(by_id(acts, "alloc", "success")[4].R):ranks():encode())
    acts = s:handle("sched.alloc", alloc(5, jobspec(1, 2, 100)))
    assert.is_not_nil(by_id(acts, "alloc", "success")[5])
    -- a job manager that holds nothing: its R's empty R_lite, decoded
    -- into a table (an empty table) or as text, releases the rest
    acts = s:reconcile({allocated = {version = 1, execution = {R_lite = {}, starttime = 0,
      expiration = 0, nodelist = {""}}}})
    local released = {}
    for _, a in ipairs(acts) do
      -- the id as the C locale writes it (the module writes ƒ under UTF-8)
      if a.op == "log" and a.level == "warning" then
        released[#released + 1] = (a.message:gsub("\u{192}", "f"))
      end
    end
    table.sort(released)
    assert.same({"job f2: ranks 0 freed while no scheduler was listening: released",
      "job f5: ranks 1 freed while no scheduler was listening: released",
      "job f6: ranks 0 freed while no scheduler was listening: released"}, released)
    assert.is_nil(s.loop.jobs[1])
    s:handle("sched.hello", {id = 6, priority = 16, userid = 1, t_submit = 6, R = R(0, "0-1")})
    acts = s:reconcile({allocated = '{"version":1,"execution":{"R_lite":[],"starttime":0,'
      .. '"expiration":0,"nodelist":[""]}}'})
    assert.equal("warning", acts[1].level)
    assert.is_nil(s.loop.jobs[6])
    s:handle("sched.hello", {id = 1, priority = 16, userid = 1, t_submit = 1, R = R(0, "0-1")})
    -- an unreadable answer changes nothing
    acts = s:reconcile({allocated = 5})
    assert.equal("err", acts[1].level)
    assert.equal("running", s.loop.jobs[1].state)
  end)

  it("reads an empty allocation as flux-core writes it: every job put back is released", function()
    local s = session()
    s:handle("sched.hello", {id = 1, priority = 16, userid = 1, t_submit = 1, R =
      '{"version":1,"execution":{"R_lite":[{"rank":"0","children":{"core":"0-1"}}],'
      .. '"starttime":900,"expiration":2000,"nodelist":["n0"]}}'})
    local acts = s:reconcile(core.json_decode('{"allocated":{"version":1,"execution":'
      .. '{"R_lite":[],"starttime":0.0,"expiration":0.0,"nodelist":[""]}}}'))
    for _, a in ipairs(acts) do assert.is_not.equal("err", a.level) end
    assert.is_nil(s.loop.jobs[1])
  end)
end)
