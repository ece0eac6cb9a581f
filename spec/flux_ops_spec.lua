-- Specs for the operator's commands of sched-grove (`flux grove`:
-- grove.flux.ops, grove.flux.why, grove.flux.reserve): each command's
-- request in, its answer out, with the scheduling loop's messages around
-- it.  No Flux is needed.
local core = require("grove.core")
local config = require("grove.flux.config")
local flux = require("grove.flux")
local names = require("grove.flux.names")
local h = require("flux_helper")
local by_id = h.by_id

-- Four ranks of four cores, n[0-3], at clock 1000.
-- Job ids in text as flux-core writes them in the C locale ("f2"): the
-- module writes "ƒ" under a UTF-8 locale, and the tests run under either.
local function ascii_ids(text)
  return (text:gsub("\u{192}", "f"))
end

local function session(opts)
  return h.session(opts or {queue = "easy"}, h.R_text("0-3", "n[0-3]"), "0-3")
end

-- A jobspec of n whole nodes (4 cores each) for d seconds, with system
-- attributes extra (a table: queue, bank, constraints).
local function nodes(n, d, extra)
  local sys = {duration = d}
  for k, v in pairs(extra or {}) do sys[k] = v end
  return core.json_encode({version = 1, resources = {{type = "node", count = n, with = {{
    type = "slot", count = 1, label = "task", with = {{type = "core", count = 4}}}}}},
    tasks = {{command = {"true"}, slot = "task", count = {per_slot = 1}}},
    attributes = {system = sys}}, 0)
end

-- An alloc request of job id by user.
local function alloc(id, js, user)
  return ('{"id":%d,"priority":16,"userid":%d,"t_submit":%d,"jobspec":%s}'):format(id,
    user or 100, id, js)
end

-- The ranks each job started on, by id.
local function started(acts)
  local out = {}
  for id, a in pairs(by_id(acts, "alloc", "success")) do out[id] = h.ranks_of(a) end
  return out
end

-- The one answer of a command: its text (respond: the document itself for
-- graph), or nil and the error.
local function run(s, cmd, req)
  local acts = s:handle("sched-grove." .. cmd, req)
  for _, a in ipairs(acts) do
    if a.op == "respond" then return a.json or a.payload.text, acts end
    if a.op == "error" then return nil, a.errnum, a.message end
  end
  error("no answer to " .. cmd)
end

-- The refusal of a command: "CODE: message" (an error when it was
-- answered).
local function refused(s, cmd, req)
  local text, code, msg = run(s, cmd, req)
  assert(code, text)
  return code .. ": " .. msg
end

local function json(s, cmd, req)
  req.json = true
  local text, acts = run(s, cmd, req)
  assert.is_string(text)
  return core.json_decode(text), acts
end

describe("flux grove find", function()
  it("selects vertices with Grove's find terms", function()
    local s = session()
    s:handle("sched.alloc", alloc(1, nodes(1, 100)))
    local text = run(s, "find", {expr = "names=n1 or names=n2"})
    assert.equal("2 vertices (nodes n[1-2])\n/cluster0/n1 node rank 1 up\n"
      .. "/cluster0/n2 node rank 2 up\n", text)
    -- what jobs hold: the node job 1 took and its cores
    assert.equal("1 vertex (nodes n3)\n/cluster0/n3 node rank 3 up\n",
      (run(s, "find", {expr = "names=n3"})))
    local d = json(s, "find", {expr = "sched-now=allocated and status=up"})
    local paths = {}
    for _, v in ipairs(d.vertices) do paths[#paths + 1] = v.path end
    assert.same({"/cluster0/n0/core0", "/cluster0/n0/core1", "/cluster0/n0/core2",
      "/cluster0/n0/core3"}, paths)
    assert.equal("find", d.kind)
  end)

  it("selects nodes with an RFC 31 constraint", function()
    local s = session()
    run(s, "set-property", {target = "n[2-3]", key = "batch"})
    local d = json(s, "find", {expr = '{"properties":["batch"]}'})
    assert.equal("constraint", d.kind)
    assert.equal("n[2-3]", d.hosts)
    assert.equal(2, d.count)
    d = json(s, "find", {expr = '{"and":[{"not":[{"properties":["batch"]}]},'
      .. '{"hostlist":["n[1-3]"]}]}'})
    assert.equal("n1", d.hosts)
  end)

  it("refuses a bad expression with the reason", function()
    local s = session()
    assert.matches("^EINVAL: find: bad term 'colour=red' %(a term is KEY=VALUE",
      refused(s, "find", {expr = "colour=red"}))
    assert.matches("^EINVAL: find: bad constraint: ", refused(s, "find", {expr = '{"properties":'}))
    assert.matches("^EINVAL: find: an expression expected", refused(s, "find", {expr = "  "}))
    assert.matches("^EINVAL: ", refused(s, "find", {expr = "sched-now=maybe"}))
    -- a term that can select nothing is a mistake, named as one
    assert.equal("EINVAL: find: status=dwn: no such status (did you mean 'down'?); a vertex's "
      .. "status is one of up, down, drained, excluded, degraded, failing, unknown, null",
      refused(s, "find", {expr = "status=up or status=dwn"}))
    assert.equal("EINVAL: find: property==: a property name expected before '=' "
      .. "(property=KEY or property=KEY=VALUE)", refused(s, "find", {expr = "property=="}))
    assert.matches("^EINVAL: find: property==x:", refused(s, "find", {expr = "property==x"}))
  end)
end)

describe("flux grove set-property and remove-property", function()
  local AVOID = {constraints = {["not"] = {{properties = {"badrabbit"}}}}}

  it("sets a property that RFC 31 constraints then see, on hosts or a path", function()
    local s = session()
    local text = run(s, "set-property", {target = "n[0-2]", key = "badrabbit", value = "bad"})
    assert.equal("badrabbit=bad set on n[0-2]\n", text)
    -- a job that avoids it gets the one node without it
    local acts = s:handle("sched.alloc", alloc(1, nodes(1, 100, AVOID)))
    assert.same({[1] = "3"}, started(acts))
    -- a path, as Fluxion's set_property payload names it
    text = run(s, "set-property", {sp_resource_path = "/cluster0/n3/core0", sp_keyval = "slow=1"})
    assert.equal("slow=1 set on /cluster0/n3/core0\n", text)
    assert.equal("1", s.loop.g:vertex("/cluster0/n3/core0"):property("slow"))
  end)

  it("removes it: the constraint sees the node again; absent is not an error", function()
    local s = session()
    run(s, "set-property", {target = "n[0-2]", key = "badrabbit"})
    local acts = s:handle("sched.alloc", alloc(1, nodes(1, 100, AVOID)))
    assert.same({[1] = "3"}, started(acts))
    acts = s:handle("sched.alloc", alloc(2, nodes(1, 100, AVOID)))
    assert.same({}, started(acts))
    local text
    text, acts = run(s, "remove-property", {resource_path = "n[1-2]", key = "badrabbit"})
    assert.equal("badrabbit removed from n[1-2]\n", text)
    -- the waiting job is placed by the pass the change asks for
    assert.same({[2] = "1"}, started(acts))
    text = run(s, "remove-property", {target = "n[0-3]", key = "badrabbit"})
    assert.equal("badrabbit removed from n0\nn[1-3] had no property badrabbit\n", text)
  end)

  it("moves a waiting job's planned start off a node that no longer suits it", function()
    local s = session{queue = "conservative"}
    s:handle("sched.alloc", alloc(1, nodes(4, 100)))
    local acts = s:handle("sched.alloc", alloc(2, nodes(1, 100, AVOID)))
    assert.equal(1100, by_id(acts, "alloc", "annotate")[2].annotations.sched.t_estimate)
    run(s, "set-property", {target = "n0", key = "badrabbit"})
    local info = s.loop.m:info(2)
    assert.equal(1100 * flux.TICKS, info.start)
    assert.equal("1", tostring(s.loop.m:rv1(2):ranks()))
  end)

  it("refuses an unknown host or path with the closest name, changing nothing", function()
    local s = session()
    assert.equal("ENOENT: set-property: unknown host 'n4' (did you mean 'n0'?)",
      refused(s, "set-property", {target = "n[2-4]", key = "x"}))
    -- n2 and n3 came first in the list: untouched all the same
    assert.is_nil(s.loop.g:vertex("/cluster0/n2"):property("x"))
    assert.equal("ENOENT: remove-property: no vertex at path '/cluster0/n1/cor0' (did you mean "
      .. "'/cluster0/n1/core0'?)", refused(s, "remove-property", {target = "/cluster0/n1/cor0",
      key = "x"}))
    assert.matches("^EINVAL: set%-property: invalid hostlist",
      refused(s, "set-property", {target = "n[1", key = "x"}))
  end)

  it("names nodes by ranks, and a host name by every node of that name", function()
    local s = h.session({queue = "easy"}, h.R_text("0-2", "vm,vm,other"), "0-2")
    local text = run(s, "set-property", {target = "vm", key = "a"})
    assert.equal("a set on vm,vm\n", text)
    local d = json(s, "find", {expr = "property=a"})
    assert.same({0, 1}, {d.vertices[1].rank, d.vertices[2].rank})
    run(s, "remove-property", {target = "1-2", key = "a"})
    d = json(s, "find", {expr = "property=a"})
    assert.equal(1, d.count)
    assert.equal(0, d.vertices[1].rank)
    assert.equal("ENOENT: set-property: no rank 5 here",
      refused(s, "set-property", {target = "5", key = "a"}))
  end)

  it("refuses a bad property name or a KEY=VALUE without '='", function()
    local s = session()
    assert.matches("^EINVAL: set%-property: invalid property name 'a|b'",
      refused(s, "set-property", {target = "n1", key = "a|b"}))
    assert.equal("EINVAL: set-property: 'ab': KEY=VALUE expected",
      refused(s, "set-property", {sp_resource_path = "n1", sp_keyval = "ab"}))
    assert.matches("^EINVAL: ", refused(s, "remove-property", {target = "n1"}))
    assert.same({}, s.loop.g:vertex("/cluster0/n1"):properties())
  end)
end)

describe("flux grove reserve", function()
  -- A session with n[2-3] reserved for user 7 from start to start+100.
  local function reserved(start, opts)
    local s, clock = session(opts)
    local text = run(s, "reserve", {name = "dat", hosts = "n[2-3]", start = start or "now",
      duration = "100", user = 7, user_name = "alice"})
    assert.is_string(text)
    return s, clock, text
  end

  it("keeps the nodes from every job but its members' in the window", function()
    local s, _, text = reserved()
    assert.equal("reservation dat: n[2-3] (2 nodes) from 1970-01-01T00:16:40Z to "
      .. "1970-01-01T00:18:20Z, for user alice: active, 0 jobs running in it\n", text)
    -- others: two nodes now, the third after the window
    local acts = s:handle("sched.alloc", alloc(1, nodes(2, 50)))
    assert.same({[1] = "0-1"}, started(acts))
    acts = s:handle("sched.alloc", alloc(2, nodes(1, 50)))
    assert.same({}, started(acts))
    assert.equal(1050, by_id(acts, "alloc", "annotate")[2].annotations.sched.t_estimate)
    -- a member's job goes into the reservation at once
    acts = s:handle("sched.alloc", alloc(3, nodes(2, 60), 7))
    assert.same({[3] = "2-3"}, started(acts))
    assert.equal("dat", s.loop.jobs[3].resv)
  end)

  it("counts what it keeps now as used: a queue policy sees those units taken", function()
    local s, clock = reserved("+10")
    assert.equal(16, s.loop.ctx.free())
    clock.t = 1010
    s:schedule()
    assert.equal(8, s.loop.ctx.free())
    -- a member's job takes from the reservation, not from what is free
    local acts = s:handle("sched.alloc", alloc(1, nodes(1, 50), 7))
    assert.same({[1] = "2"}, started(acts))
    assert.equal(8, s.loop.ctx.free())
    run(s, "unreserve", {name = "dat"})
    assert.equal(12, s.loop.ctx.free())
  end)

  it("gives a member's room back to the reservation when it ends early", function()
    local s, clock = reserved()
    s:handle("sched.alloc", alloc(1, nodes(2, 200)))
    local acts = s:handle("sched.alloc", alloc(2, nodes(1, 80), 7))
    assert.same({[2] = "2"}, started(acts))
    clock.t = 1010
    s:handle("sched.free", {id = 2, final = true})
    -- a job of another user that would fit on n2 for 50 s does not get it
    acts = s:handle("sched.alloc", alloc(3, nodes(1, 50)))
    assert.same({}, started(acts))
    -- a member's does
    acts = s:handle("sched.alloc", alloc(4, nodes(1, 50), 7))
    assert.same({[4] = "2"}, started(acts))
    clock.t = 1060
    acts = s:handle("sched.free", {id = 4, final = true})
    assert.same({}, started(acts))
    -- the window over, the other job gets a node at last
    clock.t = 1100
    acts = s:schedule()
    assert.same({[3] = "2"}, started(acts))
    assert.equal("no reservations\n", (run(s, "reservations", {})))
  end)

  it("places no member whose job would outlast the window, nor before it opens", function()
    local s, clock = reserved("+50")
    local acts = s:handle("sched.alloc", alloc(1, nodes(2, 500)))
    assert.same({[1] = "0-1"}, started(acts))
    -- before the window: the member is an ordinary job, and the hold
    -- leaves n[2-3] only 50 s
    acts = s:handle("sched.alloc", alloc(2, nodes(1, 60), 7))
    assert.same({}, started(acts))
    assert.equal(s.loop.next_wake and nil, nil)
    assert.equal(1050, s:next_wake())
    clock.t = 1050
    acts = s:schedule()
    assert.same({[2] = "2"}, started(acts))
    -- a member's job longer than what is left of the window waits
    acts = s:handle("sched.alloc", alloc(3, nodes(1, 200), 7))
    assert.same({}, started(acts))
    local text = run(s, "why", {id = 3})
    assert.matches("a job there must end by its end %(1970%-01%-01T00:19:10Z%) and this one "
      .. "asks 3m20s", text)
  end)

  it("takes members by bank or by queue", function()
    local s = session{queue = "easy", queues = {batch = {}, debug = {}},
      queue_names = {"batch", "debug"}}
    assert.is_string((run(s, "reserve", {name = "b", hosts = "n0", duration = "100",
      bank = "physics"})))
    assert.is_string((run(s, "reserve", {name = "q", hosts = "n1", duration = "100",
      queue = "debug"})))
    local acts = s:handle("sched.alloc", alloc(1, nodes(1, 50, {queue = "debug"})))
    assert.same({[1] = "1"}, started(acts))
    acts = s:handle("sched.alloc", alloc(2, nodes(1, 50, {queue = "batch", bank = "physics"})))
    assert.same({[2] = "0"}, started(acts))
    acts = s:handle("sched.alloc", alloc(3, nodes(3, 50, {queue = "batch"})))
    assert.same({}, started(acts))
    local text = run(s, "reservations", {})
    assert.equal("b: n0 (1 node) from 1970-01-01T00:16:40Z to 1970-01-01T00:18:20Z, for bank "
      .. "physics: active, 1 job running in it\nq: n1 (1 node) from 1970-01-01T00:16:40Z to "
      .. "1970-01-01T00:18:20Z, for queue debug: active, 1 job running in it\n", text)
  end)

  it("refuses a window over a running job, naming it, and changes nothing", function()
    local s = session()
    s:handle("sched.alloc", alloc(1, nodes(1, 100)))
    local _, code, msg = run(s, "reserve", {name = "x", hosts = "n[0-1]", start = "+50",
      duration = "10"})
    assert.equal("EBUSY", code)
    assert.equal("reserve: reservation 'x' overlaps what holds its nodes in "
      .. "[1970-01-01T00:17:30Z, 1970-01-01T00:17:40Z): job f2 runs on n0 until "
      .. "1970-01-01T00:18:20Z", ascii_ids(msg))
    assert.equal("no reservations\n", (run(s, "reservations", {})))
    assert.equal(1, #s.loop.m:jobs(false))
    -- after the job's end it is free
    assert.is_string((run(s, "reserve", {name = "x", hosts = "n[0-1]", start = "+100",
      duration = "10"})))
  end)

  it("refuses another reservation's nodes in its window", function()
    local s = session()
    run(s, "reserve", {name = "a", hosts = "n[1-2]", start = "+10", ["end"] = "+60"})
    local _, code, msg = run(s, "reserve", {name = "b", hosts = "n[2-3]", start = "+50",
      duration = "1h"})
    assert.equal("EBUSY", code)
    assert.matches("reservation 'a' holds n%[1%-2%] from 1970%-01%-01T00:16:50Z to "
      .. "1970%-01%-01T00:17:40Z", msg)
    assert.is_string((run(s, "reserve", {name = "b", hosts = "n[2-3]", start = "+60",
      duration = "1h"})))
  end)

  it("refuses bad requests with the reason", function()
    local s = session()
    local function err(req) return refused(s, "reserve", req) end
    assert.equal("ENOENT: reserve: hosts: unknown host 'n7' (did you mean 'n0'?)",
      err{name = "x", hosts = "n[3,7]", duration = "10"})
    assert.equal("EINVAL: reserve: a reservation name expected (letters, digits, '.', '_', '-')",
      err{name = "no spaces", hosts = "n1", duration = "10"})
    assert.equal("EINVAL: reserve: an end or a duration expected", err{name = "x", hosts = "n1"})
    assert.equal("EINVAL: reserve: the window ends at 1970-01-01T00:16:30Z, not after its "
      .. "start 1970-01-01T00:16:40Z", err{name = "x", hosts = "n1", ["end"] = "990"})
    assert.equal("EINVAL: reserve: the window starts at 1970-01-01T00:15:00Z, before now "
      .. "(1970-01-01T00:16:40Z)", err{name = "x", hosts = "n1", start = "900", duration = "1"})
    assert.matches("^EINVAL: reserve: start: invalid time 'tomorrow'",
      err{name = "x", hosts = "n1", start = "tomorrow", duration = "1"})
    assert.matches("^EINVAL: reserve: duration: invalid duration '1y'",
      err{name = "x", hosts = "n1", duration = "1y"})
    assert.equal("ENOENT: reserve: queue 'debug' does not exist: the instance has no [queues]",
      err{name = "x", hosts = "n1", duration = "1", queue = "debug"})
    assert.equal("EINVAL: reserve: user: a user id expected",
      err{name = "x", hosts = "n1", duration = "1", user = "alice"})
    run(s, "reserve", {name = "x", hosts = "n1", duration = "10"})
    assert.equal("EEXIST: reserve: reservation 'x' exists",
      err{name = "x", hosts = "n2", duration = "10"})
    assert.equal("ENOENT: unreserve: no reservation 'y' (did you mean 'x'?)",
      refused(s, "unreserve", {name = "y"}))
  end)

  it("names an unknown queue with the closest one", function()
    local s = session{queue = "easy", queues = {batch = {}, debug = {}},
      queue_names = {"batch", "debug"}}
    assert.equal("ENOENT: reserve: queue 'dbug' does not exist (did you mean 'debug'?)",
      refused(s, "reserve", {name = "x", hosts = "n1", duration = "1", queue = "dbug"}))
  end)

  it("unreserve gives the nodes back at once", function()
    local s = reserved()
    local acts = s:handle("sched.alloc", alloc(1, nodes(4, 50)))
    assert.same({}, started(acts))
    local text
    text, acts = run(s, "unreserve", {name = "dat"})
    assert.equal("reservation 'dat' removed\n", text)
    assert.same({[1] = "0-3"}, started(acts))
  end)

  it("lives through a configuration reload, and shows in the stats", function()
    local s = reserved()
    local acts = s:handle("config-reload", {conf = {["sched-grove"] = {["queue-policy"] =
      "conservative"}}})
    assert.equal("respond", acts[#acts].op)
    s:schedule()
    -- the configured policies, before any job is matched under them
    assert.same({"conservative", "first"}, {s:stats().queue, s:stats().policy})
    acts = s:handle("config-reload", {conf = {["sched-grove"] = {["queue-policy"] =
      "conservative", ["placement-policy"] = "lonode"}}})
    assert.equal("respond", acts[#acts].op)
    assert.equal("lonode", s:stats().policy)
    acts = s:handle("sched.alloc", alloc(1, nodes(3, 50)))
    assert.same({}, started(acts))
    assert.equal(1100, by_id(acts, "alloc", "annotate")[1].annotations.sched.t_estimate)
    local st = s:stats()
    assert.equal("dat", st.reservations[1].name)
    assert.equal("n[2-3]", st.reservations[1].hosts)
    local text = run(s, "stats", {})
    assert.matches("\nreservation dat: n%[2%-3%]", text)
  end)

  it("lays its holds again where a node that went down lost them", function()
    local s, clock = reserved("+10")
    s:handle("resource.acquire", '{"down":"3"}')
    s:handle("resource.acquire", '{"up":"3"}')
    clock.t = 1010
    s:schedule()
    s:handle("sched.alloc", alloc(1, nodes(2, 500)))
    local acts = s:handle("sched.alloc", alloc(2, nodes(1, 50)))
    assert.same({}, started(acts))
  end)
end)

describe("flux grove why", function()
  it("says a job fits now but waits behind the queue's head (fcfs)", function()
    local s = session{queue = "fcfs"}
    s:handle("sched.alloc", alloc(1, nodes(2, 100)))
    s:handle("sched.alloc", alloc(2, nodes(4, 100)))
    s:handle("sched.alloc", alloc(3, nodes(1, 100)))
    local d = json(s, "why", {id = 3})
    assert.equal("pending", d.state)
    assert.equal(1, d.ahead)
    assert.equal("order", d.reasons[1].kind)
    assert.matches("fits now, but the queue policy fcfs has not started it: 1 job ahead of it "
      .. "waits %(", d.reasons[1].text)
  end)

  it("names what holds the resources of its earliest start", function()
    local s = session{queue = "conservative"}
    s:handle("sched.alloc", alloc(1, nodes(4, 100)))
    s:handle("sched.alloc", alloc(2, nodes(2, 100)))
    local d = json(s, "why", {id = 2})
    assert.equal(1100, d.start)
    assert.equal("n[0-1]", d.hosts)
    assert.equal(1, #d.blockers)
    assert.equal("running", d.blockers[1].kind)
    assert.equal(1, d.blockers[1].id)
    assert.matches("runs on n%[0%-1%] until 1970%-01%-01T00:18:20Z", d.blockers[1].text)
    -- a job behind it: the first job and job 2's planned start
    s:handle("sched.alloc", alloc(3, nodes(4, 100)))
    d = json(s, "why", {id = 3})
    local kinds = {}
    for _, b in ipairs(d.blockers) do kinds[b.id] = b.kind end
    assert.same({[1] = "running", [2] = "planned"}, kinds)
  end)

  it("names a reservation that keeps the nodes", function()
    local s = session()
    run(s, "reserve", {name = "dat", hosts = "n[0-3]", duration = "100", user = 7})
    s:handle("sched.alloc", alloc(1, nodes(1, 10)))
    local d = json(s, "why", {id = 1})
    assert.equal("reservation", d.blockers[1].kind)
    assert.equal("dat", d.blockers[1].reservation)
    assert.matches("for user 7", d.blockers[1].text)
  end)

  it("says the resources it needs are down", function()
    local s = session()
    s:handle("resource.acquire", '{"down":"3"}')
    s:handle("sched.alloc", alloc(1, nodes(4, 10)))
    local text = run(s, "why", {id = 1})
    assert.equal("job f2: pending (0 ahead of it, queue policy easy)\n  - it does not fit "
      .. "on the resources that are up, even idle: ranks 3 are down or drained\n",
      ascii_ids(text))
  end)

  it("says no planned start is left within the reserve depth", function()
    local s = session{queue = "conservative", reserve_depth = 1}
    s:handle("sched.alloc", alloc(1, nodes(4, 100)))
    s:handle("sched.alloc", alloc(2, nodes(4, 100)))
    s:handle("sched.alloc", alloc(3, nodes(4, 100)))
    local d = json(s, "why", {id = 3})
    assert.equal("depth", d.reasons[#d.reasons].kind)
    assert.equal("it holds no planned start: reserve-depth 1 is taken by jobs ahead",
      d.reasons[#d.reasons].text)
  end)

  it("explains a job the scheduler does not hold from the job manager's word", function()
    local s = session{queue = "easy", limited = 8}
    local function reason(job, qs)
      return json(s, "why", {id = 77, job = job, queue_status = qs}).reasons
    end
    assert.same({{kind = "held", text = "it is held (urgency 0): `flux job urgency ID default` "
      .. "releases it"}}, reason({state = "SCHED", urgency = 0, priority = 0}))
    local r = reason({state = "SCHED", urgency = 16, priority = 5, queue = "debug"},
      {enable = false, start = false, stop_reason = "maintenance", disable_reason = "closed"})
    assert.same({"stopped", "disabled"}, {r[1].kind, r[2].kind})
    assert.equal("its queue debug is stopped (maintenance): `flux queue start debug` starts it",
      r[1].text)
    assert.equal("its queue debug is disabled (closed)", r[2].text)
    r = reason({state = "SCHED", urgency = 16, priority = 5}, {enable = true, start = true})
    assert.equal("the job manager has not sent it yet: it sends at most 8 pending jobs "
      .. "(queue-depth=8)", r[1].text)
    assert.equal("dependency", reason({state = "DEPEND"})[1].kind)
    assert.equal("priority", reason({state = "PRIORITY"})[1].kind)
    assert.equal("started", reason({state = "RUN"})[1].kind)
    assert.equal("inactive", reason({state = "INACTIVE"})[1].kind)
    assert.equal("unknown", reason(nil)[1].kind)
  end)

  it("says a running job is not pending; refuses a request without an id", function()
    local s = session()
    s:handle("sched.alloc", alloc(1, nodes(1, 10)))
    local text = run(s, "why", {id = 1})
    assert.matches("^job [^:]+: running\n  %- it is not pending: it runs on n0 since ", text)
    assert.equal("EPROTO: why: a job id expected", refused(s, "why", {id = "x"}))
  end)
end)

describe("flux grove graph and stats", function()
  it("gives the graph as JGF with each vertex's status and the allocations", function()
    local s = session()
    s:handle("resource.acquire", '{"down":"3"}')
    s:handle("sched.alloc", alloc(1, nodes(1, 10)))
    local text = run(s, "graph", {})
    local g = assert(core.jgf_decode(text))
    assert.equal("down", g:vertex("/cluster0/n3"):status())
    assert.equal("up", g:vertex("/cluster0/n0"):status())
    assert.matches('"records":%[{"job":1,', text)
  end)

  it("gives it as R: all, down, allocated", function()
    local s = session()
    s:handle("resource.acquire", '{"down":"3"}')
    s:handle("sched.alloc", alloc(1, nodes(1, 10)))
    local d = core.json_decode((run(s, "graph", {format = "R"})))
    assert.equal("0-3", d.all.execution.R_lite[1].rank)
    assert.equal("3", d.down.execution.R_lite[1].rank)
    assert.equal("0", d.allocated.execution.R_lite[1].rank)
    assert.equal("EINVAL: graph: unknown format 'dot' (jgf or R)",
      refused(s, "graph", {format = "dot"}))
  end)

  it("gives only the vertices of some types when asked", function()
    local s = session()
    local g = assert(core.jgf_decode((run(s, "graph", {types = "cluster,node"}))))
    assert.equal(5, #g)
    assert.equal(4, g:count("node"))
    assert.equal("EINVAL: graph: no vertex of type 'cores' here (did you mean 'core'?)",
      refused(s, "graph", {types = "node,cores"}))
  end)

  it("prints the module's counters, and the module's own measures when given", function()
    local s = session()
    s:handle("sched.alloc", alloc(1, nodes(1, 10)))
    local text = run(s, "stats", {stats = (function()
      local st = s:stats()
      st.alloc_latency = {n = 1, p50_us = 120, p99_us = 120, max_us = 120}
      st.lua_gc = {heap_kb = 900, steps = 3, cpu_us = 40, max_us = 20}
      return st
    end)()})
    assert.matches("^queue policy easy, placement policy first, queue%-depth unlimited", text)
    assert.matches("\njobs: 1 matched, 0 failed; 0 pending, 1 running\n", text)
    assert.matches("\nalloc_latency: n 1, p50 120 us, p99 120 us, max 120 us\n", text)
    assert.matches("\npass_time: n %d+, p50 %d+ us", text)
    assert.matches("\npass_cpu: n %d+, p50 %d+ us", text)
    assert.matches("\nalloc requests 1, annotations sent %d+\n", text)
    assert.matches("\nlua heap 900 KB; collector 3 steps, 40 us %(most 20 us%)\n$", text)
    local d = json(s, "stats", {})
    assert.equal(1, d.jobs_matched)
  end)

  it("names each queue's figures", function()
    local opts = assert(config.module_options({queues = {batch = {}, debug = {}}}, {}))
    opts.clock = function() return 1000 end
    local s = assert(flux.new(opts))
    s:handle("resource.acquire", ('{"resources":%s,"up":"0-3"}'):format(h.R_text("0-3",
      "n[0-3]")))
    s:handle("sched.alloc", alloc(1, nodes(1, 10, {queue = "debug"})))
    local text = run(s, "stats", {})
    assert.matches("\nqueue debug: 0 pending %(0 with a planned start%), 1 running; queue "
      .. "policy fcfs, placement first\n", text)
  end)
end)

describe("what the operator set, kept across a reload", function()
  -- The state a session's persist actions wrote last (grove.flux.state's
  -- document, as JSON text).
  local function kept(acts)
    local doc
    for _, a in ipairs(acts) do
      if a.op == "persist" then
        assert.equal("sched-grove.state", a.key)
        doc = a.json
      end
    end
    return doc
  end

  local logs = h.logs

  -- A session whose operator made a reservation of n[2-3] for user 7, set
  -- badrabbit on n1, removed it from n0 (where it never was: nothing
  -- kept) and property rack=a on n[0-1]; the state it kept last.
  local function operated()
    local s = session()
    local _, acts = run(s, "reserve", {name = "dat", hosts = "n[2-3]", start = "now",
      duration = "100", user = 7, user_name = "alice"})
    assert.is_string(kept(acts))
    run(s, "set-property", {target = "n1", key = "badrabbit"})
    run(s, "remove-property", {target = "n0", key = "badrabbit"})
    _, acts = run(s, "set-property", {target = "n[0-1]", key = "rack", value = "a"})
    return s, kept(acts)
  end

  it("writes the state before the answer to each command that changes it", function()
    local s = session()
    local acts = s:handle("sched-grove.set-property", {target = "n1", key = "x"})
    local at = {}
    for i, a in ipairs(acts) do at[a.op] = at[a.op] or i end
    assert.is_true(at.persist < at.respond)
    -- commands that only read write nothing
    acts = s:handle("sched-grove.reservations", {})
    assert.is_nil(kept(acts))
    local doc = core.json_decode(kept(s:handle("sched-grove.remove-property",
      {target = "n1", key = "x"})))
    assert.same({version = 1, reservations = {}, status = {},
      properties = {{key = "x", ranks = "1", hosts = "n1"}}}, doc)
  end)

  it("puts reservations and properties back in a new module, as they were", function()
    local _, doc = operated()
    assert.same({version = 1, status = {},
      reservations = {{name = "dat", ranks = "2-3", hosts = "n[2-3]", start = 1000,
        ["end"] = 1100, user = 7, user_name = "alice"}},
      properties = {{key = "badrabbit", value = "", ranks = "1", hosts = "n1"},
        {key = "rack", value = "a", ranks = "0-1", hosts = "n[0-1]"}}}, core.json_decode(doc))
    -- a new module, 10 s later: the same reservation, properties, holds
    local s, clock = session()
    clock.t = 1010
    local acts = s:restore({state = doc})
    assert.same({"restore: 1 reservation, 3 property settings, 0 status marks put back"},
      logs(acts, "info"))
    assert.is_nil(kept(acts))
    assert.matches("^dat: n%[2%-3%] %(2 nodes%) from 1970%-01%-01T00:16:40Z to "
      .. "1970%-01%-01T00:18:20Z, for user alice: active", run(s, "reservations", {}))
    assert.equal("a", s.loop.g:vertex("/cluster0/n0"):property("rack"))
    assert.equal("", s.loop.g:vertex("/cluster0/n1"):property("badrabbit"))
    acts = s:handle("sched.alloc", alloc(1, nodes(3, 50)))
    assert.same({}, started(acts))
    acts = s:handle("sched.alloc", alloc(2, nodes(2, 50)))
    assert.same({[2] = "0-1"}, started(acts))
    acts = s:handle("sched.alloc", alloc(3, nodes(2, 50), 7))
    assert.same({[3] = "2-3"}, started(acts))
    -- and what the restored session keeps is what it was given
    assert.same(core.json_decode(doc), core.json_decode(kept(s:handle(
      "sched-grove.set-property", {target = "n1", key = "badrabbit"}))))
  end)

  it("lays a restored reservation around the jobs that run on its nodes", function()
    local _, doc = operated()
    local s, clock = session()
    clock.t = 1010
    -- a member's job and another job run there (put back by the hello)
    local function running(id, rank, user)
      s:handle("sched.hello", {id = id, priority = 16, userid = user, t_submit = 1,
        R = ('{"version":1,"execution":{"R_lite":[{"rank":"%d","children":{"core":"0-3"}}],'
          .. '"starttime":1005,"expiration":1030,"nodelist":["n%d"]}}'):format(rank, rank)})
    end
    running(41, 2, 7)
    running(42, 3, 100)
    s:restore({state = doc})
    assert.equal("dat", s.loop.jobs[41].resv)
    assert.is_nil(s.loop.jobs[42].resv)
    assert.matches("1 job running in it", run(s, "reservations", {}))
    -- when job 42 ends its node goes back to the reservation, not to others
    clock.t = 1020
    s:handle("sched.free", {id = 42, final = true})
    local acts = s:handle("sched.alloc", alloc(5, nodes(1, 10)))
    assert.same({[5] = "0"}, started(acts))
    acts = s:handle("sched.alloc", alloc(6, nodes(1, 10)))
    assert.same({[6] = "1"}, started(acts))
    acts = s:handle("sched.alloc", alloc(7, nodes(1, 10)))
    assert.same({}, started(acts))
  end)

  it("drops what the graph no longer has, and says so", function()
    local _, doc = operated()
    -- n3 is gone, n1 is another host now
    local s, clock = h.session({queue = "easy"},
      '{"version":1,"execution":{"R_lite":[{"rank":"0-2","children":{"core":"0-3"}}],'
      .. '"starttime":0,"expiration":0,"nodelist":["n0","m1","n2"]}}', "0-2")
    clock.t = 1010
    local acts = s:restore({state = doc})
    assert.same({"restore: property badrabbit=: rank 1 is m1 now, not n1: left out",
      "restore: property rack=a: rank 1 is m1 now, not n1: left out",
      "restore: reservation 'dat' on n[2-3]: rank 3 (n3) is no longer there: dropped"},
      logs(acts, "warning"))
    assert.same({"restore: 0 reservations, 1 property setting, 0 status marks put back"},
      logs(acts, "info"))
    assert.equal("a", s.loop.g:vertex("/cluster0/n0"):property("rack"))
    assert.is_nil(s.loop.g:vertex("/cluster0/m1"):property("rack"))
    assert.equal("no reservations\n", run(s, "reservations", {}))
    -- what is left is kept again
    assert.same({version = 1, reservations = {}, status = {},
      properties = {{key = "rack", value = "a", ranks = "0", hosts = "n0"}}},
      core.json_decode(kept(acts)))
  end)

  it("drops a reservation whose window ended meanwhile, or whose queue went", function()
    local _, doc = operated()
    local s, clock = session()
    clock.t = 1200
    local acts = s:restore({state = doc})
    assert.same({"restore: reservation 'dat' ended at 1970-01-01T00:18:20Z while the module "
      .. "was away: dropped"}, logs(acts, "warning"))
    local t = core.json_decode(doc)
    t.reservations[1].queue = "debug"
    s = session()
    acts = s:restore({state = t})
    assert.same({"restore: reservation 'dat' for queue debug: the instance has no such queue "
      .. "now: dropped"}, logs(acts, "warning"))
  end)

  it("keeps the status marks of vertices without a rank", function()
    -- an ssd under n0 (as a rabbit's JGF gives it), down; marked up
    local s = session()
    local g = s.loop.g
    local ssd = g:add_vertex{type = "ssd", basename = "ssd", id = 0, size = 1024,
      status = "down"}
    g:add_child(g:vertex("/cluster0/n0"), ssd)
    local _, acts = run(s, "set-status", {target = "/cluster0/n0/ssd0", status = "up"})
    local doc = kept(acts)
    assert.same({{path = "/cluster0/n0/ssd0", status = "up"}}, core.json_decode(doc).status)
    local s2 = session()
    local g2 = s2.loop.g
    g2:add_child(g2:vertex("/cluster0/n0"), g2:add_vertex{type = "ssd", basename = "ssd",
      id = 0, size = 1024, status = "down"})
    acts = s2:restore({state = doc})
    assert.same({}, logs(acts, "warning"))
    assert.equal("up", g2:vertex("/cluster0/n0/ssd0"):status())
    -- a mark on a vertex that is not there, or that has a rank now
    acts = session():restore({state = '{"version":1,"status":[{"path":"/cluster0/n0",'
      .. '"status":"down"},{"path":"/nowhere","status":"up"}]}'})
    assert.same({"restore: status down: /cluster0/n0 has broker rank 0 now: dropped",
      "restore: status up: no vertex at path '/nowhere' any more: dropped"},
      logs(acts, "warning"))
  end)

  it("refuses a document it cannot read, putting nothing back", function()
    local s = session()
    local acts = s:restore({state = "{not json"})
    assert.matches("^restore: sched%-grove%.state cannot be read", logs(acts, "warning")[1])
    acts = s:restore({state = '{"version":9}'})
    assert.same({"restore: sched-grove.state: version 9, not 1: nothing put back"},
      logs(acts, "warning"))
  end)
end)

describe("flux grove requests", function()
  it("refuses an unknown command and a payload that is not an object", function()
    local s = session()
    local acts = s:grove("finf", {})
    assert.equal("error", acts[1].op)
    assert.equal("ENOSYS", acts[1].errnum)
    assert.equal("unknown command 'finf' (did you mean 'find'?)", acts[1].message)
    local _, code = run(s, "stats", "[1,2")
    assert.equal("EPROTO", code)
  end)

  it("reads the times an operator writes, in the operator's time zone", function()
    assert.equal(1000, names.time("now", 1000, 0))
    assert.equal(1600, names.time("+10m", 1000, 0))
    assert.equal(1234, names.time("@1234", 1000, 0))
    assert.equal(1767225600, names.time("2026-01-01", 1000, 0))
    assert.equal(1767225600 + 8 * 3600 - 3600, names.time("2026-01-01T08:00", 1000, 3600))
    assert.equal(86400 + 9 * 3600 + 30 * 60, names.time("09:30", 86400 + 5, 0))
    assert.is_nil(names.time("2026-13-01", 0, 0))
    assert.is_nil(names.time("25:00", 0, 0))
    assert.equal("2026-01-01T08:00:00", names.show_time(1767225600 + 7 * 3600, 3600))
    assert.equal("1970-01-01T00:00:10Z", names.show_time(10, 0))
  end)
end)
