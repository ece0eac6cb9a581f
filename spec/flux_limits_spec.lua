-- Specs for limits in sched-grove ([sched-grove.limits] and a queue's
-- [sched-grove.queues.NAME.limits], grove.flux.config): read from the
-- instance's configuration, changed by `flux config reload` (a bad value
-- refused naming the key, and said in the log), a job's bank read from its
-- jobspec, a held job explained by `flux grove why` and given the start
-- estimate its limit allows.  No Flux is needed.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, and must not be copied here.
local core = require("grove.core")
local flux = require("grove.flux")
local h = require("flux_helper")

local logs = h.logs

-- A jobspec of n whole nodes (4 cores each) for d seconds, in bank
-- (nil: none) and queue (nil: none).
local function nodes(n, d, bank, queue)
  return core.json_encode({version = 1, resources = {{type = "node", count = n, with = {{
    type = "slot", count = 1, label = "task", with = {{type = "core", count = 4}}}}}},
    tasks = {{command = {"true"}, slot = "task", count = {per_slot = 1}}},
    attributes = {system = {duration = d, bank = bank, queue = queue}}}, 0)
end

local function alloc(id, js, user)
  return ('{"id":%d,"priority":16,"userid":%d,"t_submit":%d,"jobspec":%s}'):format(id,
    user, id, js)
end

-- sched-grove on four nodes of four cores, n[0-3], from conf.
local function session(conf)
  local s, msg = flux.module(conf, {})
  assert(s, msg)
  s.defer = false
  s:handle("resource.acquire", ('{"resources":%s,"up":"0-3"}'):format(h.R_text("0-3",
    "n[0-3]")))
  s:announce()
  return s
end

local function started(acts)
  local out = {}
  for id in pairs(h.by_id(acts, "alloc", "success")) do out[#out + 1] = id end
  table.sort(out)
  return out
end

local function why(s, id)
  local acts = s:handle("sched-grove.why", {id = id, json = true})
  for _, a in ipairs(acts) do
    if a.op == "respond" then return core.json_decode(a.json or a.payload.text) end
  end
  error("no answer")
end

local function all_started(s, list)
  local out = {}
  for _, a in ipairs(list) do
    for _, id in ipairs(started(s:handle("sched.alloc", alloc(a[1], a[2], a[3])))) do
      out[#out + 1] = id
    end
  end
  return out
end

describe("sched-grove limits", function()
  it("holds a user's and a bank's jobs past their limits; others start", function()
    local s = session{["sched-grove"] = {["queue-policy"] = "easy", limits = {
      user = {["max-nodes"] = 2}, banks = {chem = {["max-running-jobs"] = 1}}}}}
    local ids = all_started(s, {{1, nodes(1, 100), 101}, {2, nodes(1, 100), 101},
      {3, nodes(1, 100), 101}, {4, nodes(1, 100, "chem"), 102},
      {5, nodes(1, 100, "chem"), 103}})
    assert.same({1, 2, 4}, ids)
    local d = why(s, 3)
    assert.equal("limit", d.reasons[1].kind)
    assert.same({holder = "user", name = 101, key = "max-nodes", limit = 2, held = 2, asks = 1},
      d.limit)
    -- (and when: where user 101's jobs end, by their time limits)
    assert.equal("held by user 101's limit max-nodes=2: its running jobs hold 2 nodes, this "
      .. "job would add 1 node; it starts when that is under the limit, at "
      .. os.date("!%Y-%m-%dT%H:%M:%SZ", math.floor(d.start))
      .. " at the earliest by the running jobs' estimates", d.reasons[1].text)
    d = why(s, 5)
    assert.same({holder = "bank", name = "chem", key = "max-running-jobs", limit = 1, held = 1,
      asks = 1}, d.limit)
    -- flux module stats: the limits in force and the jobs they hold
    assert.same({in_force = {user = {["max-nodes"] = 2}, banks = {chem =
      {["max-running-jobs"] = 1}}}, held = 2}, s:stats().limits)
    local acts = s:handle("sched.free", {id = 1, final = true})
    assert.same({3}, started(acts))
  end)

  it("gives a held job the start estimate its limit allows, and names the limit as its "
    .. "reason", function()
    -- user 101 may run one job: job 1 runs, jobs 2 and 3 wait for it and
    -- for each other (estimates 100 s apart), user 102's job 4 starts.
    -- Easy estimates one job (its depth), conservative every one.
    for _, q in ipairs{"easy", "conservative"} do
      local s = session{["sched-grove"] = {["queue-policy"] = q, limits = {
        user = {["max-running-jobs"] = 1}}}}
      local acts = s:handle("sched.alloc", alloc(1, nodes(1, 100), 101))
      local R = core.json_decode(h.by_id(acts, "alloc", "success")[1].R)
      local t1 = R.execution.expiration
      local est = {}
      for _, a in ipairs{{2, nodes(1, 100), 101}, {3, nodes(1, 100), 101},
        {4, nodes(1, 100), 102}} do
        acts = s:handle("sched.alloc", alloc(a[1], a[2], a[3]))
        for id, x in pairs(h.by_id(acts, "alloc", "annotate")) do
          est[id] = est[id] or {}
          for k, v in pairs(x.annotations.sched) do est[id][k] = v end
        end
        if a[1] == 4 then assert.same({4}, started(acts), q) end
      end
      assert.near(t1, est[2].t_estimate, 0.001, q)
      if q == "conservative" then
        assert.near(t1 + 100, est[3].t_estimate, 0.001, q)
      else
        assert.is_nil(est[3].t_estimate, q)
      end
      assert.equal("user 101 limit max-running-jobs", est[2].reason_pending, q)
      assert.equal("user 101 limit max-running-jobs", est[3].reason_pending, q)
      assert.near(t1, why(s, 2).start, 0.001, q)
      -- (at the earliest: under easy job 2 holds no planned start that
      -- job 3 would wait behind)
      assert.near(q == "conservative" and t1 + 100 or t1, why(s, 3).start, 0.001, q)
      -- job 1 ends: job 2 starts
      acts = s:handle("sched.free", {id = 1, final = true})
      assert.same({2}, started(acts), q)
    end
  end)

  it("takes lowered limits from flux config reload: running jobs run, none starts until "
    .. "under", function()
    local conf = {["sched-grove"] = {limits = {user = {["max-nodes"] = 4}}}}
    local s = session(conf)
    assert.same({1, 2, 3}, all_started(s, {{1, nodes(1, 100), 101}, {2, nodes(1, 100), 101},
      {3, nodes(1, 100), 101}}))
    local acts = s:handle("config-reload", {conf = {["sched-grove"] = {limits = {
      user = {["max-nodes"] = 1}}}}})
    assert.same({"config-reload: sched-grove.limits.user.max-nodes: 4 -> 1"},
      {logs(acts, "info")[1]})
    assert.same({}, started(s:handle("sched.alloc", alloc(4, nodes(1, 100), 101))))
    assert.same({}, started(s:handle("sched.free", {id = 1, final = true})))
    assert.same({}, started(s:handle("sched.free", {id = 2, final = true})))
    -- user 101 holds nothing: job 4 starts
    assert.same({4}, started(s:handle("sched.free", {id = 3, final = true})))
  end)

  it("refuses bad limits naming the key, says so in the log, and keeps those in force",
    function()
    local s = session{["sched-grove"] = {limits = {user = {["max-nodes"] = 2}}}}
    for _, case in ipairs{
      {{user = {["max-nodes"] = -1}}, "[sched-grove.limits].user: max-nodes=-1: a limit "
        .. "must be 0 or more (or \"unlimited\")"},
      {{user = {["max-nodes"] = "two"}}, "[sched-grove.limits].user: max-nodes=two: a whole "
        .. "number of nodes, 0 or more, or \"unlimited\" expected (got string)"},
      {{user = {["max-node"] = 2}}, "[sched-grove.limits].user: unknown key 'max-node' (did "
        .. "you mean 'max-nodes'?); the keys are max-cores, max-gpus, max-nodes, "
        .. "max-running-jobs"},
      {{queues = {batch = {["max-nodes"] = 1}}}, "[sched-grove.limits].queues.batch: no "
        .. "queue 'batch' (the queues are none)"},
    } do
      local acts = s:handle("config-reload", {conf = {["sched-grove"] = {limits = case[1]}}})
      local last = acts[#acts]
      assert.equal("error", last.op)
      assert.equal(case[2], last.message)
      assert.matches("refused %(" .. case[2]:gsub("%p", "%%%0") .. "%)", logs(acts, "err")[1])
    end
    assert.equal(2, s.loop.limits.user.node)
  end)

  it("reads a queue's own limits", function()
    local s = session{queues = {batch = {}, debug = {}}, ["sched-grove"] = {
      queues = {debug = {limits = {["max-running-jobs"] = 1}}}}}
    assert.same({1, 3}, all_started(s, {{1, nodes(1, 100, nil, "debug"), 101},
      {2, nodes(1, 100, nil, "debug"), 102}, {3, nodes(1, 100, nil, "batch"), 103}}))
    assert.same({holder = "queue", name = "debug", key = "max-running-jobs", limit = 1,
      held = 1, asks = 1}, why(s, 2).limit)
    local ok, msg = flux.module({queues = {debug = {}}, ["sched-grove"] = {
      queues = {debug = {limits = {["max-nodes"] = 1.5}}}}}, {})
    assert.is_nil(ok)
    assert.equal("[sched-grove.queues.debug.limits]: max-nodes=1.5: a whole number of nodes, "
      .. "0 or more, or \"unlimited\" expected (got number)", msg)
  end)
end)

describe("sched-grove limits from flux-accounting", function()
  -- a flux-accounting database made by flux-accounting itself (its
  -- create_db), with one association: user 101 in bank chem, at most one
  -- running job; nil when flux-accounting is not installed
  local function database()
    local path = os.tmpname()
    os.remove(path)
    local prog = ("from fluxacct.accounting import create_db as c\n"
      .. "c.create_db('%s')\nimport sqlite3\ndb = sqlite3.connect('%s')\n"
      .. "db.execute(\"INSERT INTO association_table (creation_time, username, userid, bank, "
      .. "default_bank, max_running_jobs, max_nodes, max_cores) VALUES (0, 'u', 101, 'chem', "
      .. "'chem', 1, 2147483647, 2147483647)\")\ndb.commit()\n"):format(path, path)
    local f = assert(io.open(path .. ".py", "w"))
    f:write(prog)
    f:close()
    local ok = os.execute("flux python " .. path .. ".py >/dev/null 2>&1")
    os.remove(path .. ".py")
    if not ok then return nil end
    return path
  end

  it("holds a user's jobs in a bank by its association's max_running_jobs", function()
    local path = database()
    if not path then
      pending("flux-accounting is not installed (flux python cannot import fluxacct): skipped")
      return
    end
    local s = session{["sched-grove"] = {limits = {["flux-accounting"] = path}}}
    os.remove(path)
    -- the first two in bank chem (the second by its default bank), the
    -- third in another bank: no association there
    assert.same({1, 3}, all_started(s, {{1, nodes(1, 100, "chem"), 101}, {2, nodes(1, 100), 101},
      {3, nodes(1, 100, "phys"), 101}}))
    local d = why(s, 2)
    assert.same({holder = "association", name = "101/chem", key = "max-running-jobs",
      limit = 1, held = 1, asks = 1}, d.limit)
    assert.matches("^held by flux%-accounting association 101/chem's limit "
      .. "max%-running%-jobs=1", d.reasons[1].text)
  end)

  it("refuses a path that is no flux-accounting database; auto says why it read none",
    function()
    local ok, msg = flux.module({["sched-grove"] = {limits = {["flux-accounting"] =
      "/etc/passwd"}}}, {})
    assert.is_nil(ok)
    assert.matches("^%[sched%-grove%.limits%]: flux%-accounting=/etc/passwd: /etc/passwd: not a "
      .. "flux%-accounting database", msg)
    local s = assert(flux.module({["sched-grove"] = {limits = {["flux-accounting"] = "auto"}}},
      {}))
    local notes = table.concat(s.notes or {}, "\n")
    assert.is_truthy(notes:match("flux%-accounting: the limits of %d+ association")
      or notes:match("flux%-accounting: skipped: flux%-accounting is not installed")
      or notes:match("flux%-accounting: skipped: no flux%-accounting database at "), notes)
  end)
end)
