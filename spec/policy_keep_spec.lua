-- Rankings kept between matches (core/match_keep.c): a policy that
-- declares its scores local (score_local) has the ranking of a level the
-- request does not name mended from one match to the next, only the
-- candidates a job changed scored again.  The placements must be those of
-- the same policy without the declaration (a ranking made anew at every
-- match), on every stream: random streams of allocations, reservations,
-- cancellations, clock moves, drains and edits, and each thing that must
-- make the kept ranking stale.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local exe = require("exe_helper")
local match = require("match_helper")
local streams = require("stream_helper")

-- racks racks of nodes nodes of 4 cores and gpus(i) GPUs (node i from 0);
-- with sockets, nodes of 2 sockets of 4 cores.
local function machine(racks, nodes, gpus, sockets)
  return (match.racks_of("kp", racks, nodes, function(g, n, i)
    for s = 0, sockets and 1 or 0 do
      local up = n
      if sockets then
        up = g:add_vertex{type = "socket", id = s}
        assert(g:add_child(n, up))
      end
      for c = 0, 3 do assert(g:add_child(up, g:add_vertex{type = "core", id = c})) end
    end
    for k = 0, (gpus and gpus(i) or 0) - 1 do
      assert(g:add_child(n, g:add_vertex{type = "gpu", id = k}))
    end
  end, function(i) return {weight = tostring(i % 3)} end))
end

-- A score that also reads ctx.job (no local score's input): its rankings
-- are never kept, each made anew at every match.
local function anew(text)
  local out, n = text:gsub("scores = function%(_, [%w_]+, keys%)\n",
    "scores = function(_, ctx, keys)\n    local _ = ctx.job\n")
  assert.equal(1, n, "one scores hook")
  return out
end

-- The shipped Lua policy at path: as shipped, without its declarations
-- (the engine sees what it reads), and made anew at every match.
local function twins(path)
  local text = exe.read(path)
  local plain, n = text:gsub("\n  score_local = true,", "")
  assert.equal(1, n, path .. " declares score_local once")
  local m
  plain, m = plain:gsub("\n  score_reads = [^\n]*,", "")
  assert.equal(1, m, path .. " declares score_reads once")
  return assert(core.policy_parse(text, path)), assert(core.policy_parse(plain, path)),
    assert(core.policy_parse(anew(plain), path))
end

-- A policy of many distinct scores (a comparison sort, not a pass per
-- value), from a property, free cores, the id and ctx.count; declared
-- local or not, and declared to read ctx.count (the one field it reads)
-- or every field; or made anew at every match (fresh).
local function weighted(declared, reads, fresh)
  local decl = declared and "score_local = true," or ""
  if reads then decl = decl .. " score_reads = " .. reads .. "," end
  local text = ([[
    return {name = "weighted", score_types = "node", %s
      scores = function(_, ctx, keys)
        local w, f, id = keys["property:weight"], keys["free:core"], keys.id
        local out = {}
        for i = 1, #w do out[i] = w[i] * 100 + f[i] * 7 + (id[i] %% 5) + ctx.count end
        return out
      end}]]):format(decl)
  return assert(core.policy_parse(fresh and anew(text) or text, "weighted.lua"))
end

-- A policy that reads the window's own bounds (its score grows with
-- ctx.duration), declared so or not, or made anew at every match (fresh).
local function by_duration(declared, fresh)
  local text = ([[
    return {name = "by_duration", score_types = "node", %s
      scores = function(_, ctx, keys)
        local f, id, out = keys["free:core"], keys.id, {}
        for i = 1, #f do out[i] = f[i] * ((ctx.duration or 0) %% 7 + 1) + id[i] %% 3 end
        return out
      end}]]):format(declared and 'score_local = true, score_reads = {"duration"},' or "")
  return assert(core.policy_parse(fresh and anew(text) or text, "by_duration.lua"))
end

-- A best fit, one score a node: the nodes left with the fewest free cores
-- once the request's are taken first, from ctx.total.core; declared as
-- decl says, or made anew at every match (fresh).
local function best_fit(decl, fresh)
  return assert(core.policy_parse(([[
    return {name = "best_fit", score_types = "node", %s
      score = function(v, ctx)
        %s
        local left = v:aggregate("core") - (ctx.total.core or 0)
        return left < 0 and -1000 or -left
      end}]]):format(decl or "", fresh and "local _ = ctx.job" or ""), "best_fit.lua"))
end

-- What a job got: its start and its cores ("n1/0,n1/1"), or the failure.
local function placed(j, msg)
  if not j then return msg end
  local out = {}
  for _, p in ipairs(j.picks) do
    if p.vertex:type() == "core" or p.vertex:type() == "gpu" then
      -- its node's name, and its socket's when it has one
      local up, at = p.vertex:parent(), ""
      if up:type() ~= "node" then up, at = up:parent(), up:type() .. up:id() .. "/" end
      out[#out + 1] = up:name() .. "/" .. at .. p.vertex:type() .. p.vertex:id()
    end
  end
  table.sort(out)
  return j.state .. "@" .. j.start .. ":" .. table.concat(out, ",")
end

-- The node of a job's first core.
local function node_of(j)
  for _, p in ipairs(assert(j).picks) do
    if p.vertex:type() == "core" then return p.vertex:parent():name() end
  end
end

local lcg = match.lcg

local SHAPES = {
  {tasks = 1, cores_per_task = 1, duration = 10},
  {tasks = 1, cores_per_task = 1, duration = 20},
  {tasks = 1, cores_per_task = 2, duration = 10},
  {tasks = 1, cores_per_task = 1, gpus_per_task = 1, duration = 10},
  {tasks = 3, cores_per_task = 1, duration = 30},
}

-- Requests that name the nodes (their level's candidates kept ranked):
-- exclusive and shared, one node and four.
local NAMED = {
  {nodes = 1, cores_per_node = 2, exclusive = true, duration = 10},
  {nodes = 4, cores_per_node = 1, exclusive = true, duration = 20},
  {nodes = 1, tasks = 1, cores_per_task = 2, duration = 10},
  {nodes = 4, tasks = 4, cores_per_task = 1, duration = 30},
  {nodes = 1, tasks = 1, cores_per_task = 1, gpus_per_task = 1, duration = 10},
}

-- Run the same random stream on two machines, one under each policy, and
-- return what each step gave on each, and the kept rankings used by a
-- (shapes: SHAPES unless given).
local function stream(seed, steps, a, b, shapes_of, make)
  local rnd = lcg(seed)
  local gpus = function(i) return i % 3 end
  local run = {}
  for k, pol in ipairs{a, b} do
    local g = make and make() or machine(2, 4, gpus)
    local m = core.matcher(g)
    assert(m:set_policy(pol))
    run[k] = streams.run(g, m)
  end
  local shapes = streams.compiled(shapes_of or SHAPES)
  local now = 0
  streams.steps(run, steps, streams.drawer(rnd, #shapes, 8), {
    {70, function(r, d) return streams.allocate(r, shapes[d.shape], placed) end},
    {85, function(r, d) return streams.cancel(r, d.victim) end},
    {93, function(r) return streams.clock(r, now + 3) end, function() now = now + 3 end},
    {97, streams.drawn_status},
    {100, function(r, d)
      r.g:vertex("n" .. d.node):set_property("weight", tostring(d.st))
      return "weight " .. d.node
    end},
  })
  local kept = run[1].m:stats().ranks_kept
  for _, r in ipairs(run) do r.m:close() end
  return run[1].log, run[2].log, kept
end

-- A machine of 2 racks of 2 nodes and a matcher on it under policy.
local function matcher_on(policy)
  local g = machine(2, 2)
  local m = core.matcher(g)
  assert(m:set_policy(policy))
  return g, m
end

describe("a ranking kept between matches", function()
  it("places as a ranking made anew, on random streams", function()
    local s, s0, s1 = twins("policies/spread.lua")
    local gp, gp0, gp1 = twins("policies/gpu.lua")
    -- declared, undeclared (kept for what the engine sees it read), the C
    -- built-ins: each against the same scores made anew at every match
    local cases = {
      {"spread (Lua)", s, s1}, {"spread (Lua, undeclared)", s0, s1}, {"spread (C)", "spread", s1},
      {"gpu (Lua)", gp, gp1}, {"gpu (Lua, undeclared)", gp0, gp1}, {"gpu (C)", "gpu", gp1},
      {"weighted", weighted(true), weighted(false, nil, true)},
      {"weighted, reads count", weighted(true, '{"count"}'), weighted(false, nil, true)},
      {"weighted, undeclared", weighted(false), weighted(false, nil, true)},
      {"by duration", by_duration(true), by_duration(false, true)},
      {"by duration, undeclared", by_duration(false), by_duration(false, true)},
      {"best fit, undeclared", best_fit(), best_fit(nil, true)},
    }
    for _, c in ipairs(cases) do
      for seed = 1, 6 do
        local got, want, kept = stream(seed, 160, c[2], c[3])
        assert.same(want, got, c[1] .. " seed " .. seed)
        -- the stream did use kept rankings (else it would test nothing)
        assert.is_true(kept > 0, c[1] .. " seed " .. seed .. ": " .. kept .. " kept")
      end
      -- requests that name the nodes: nothing between is ranked, so what
      -- is kept is the nodes' own level
      for seed = 1, 6 do
        local got, want, kept = stream(seed, 160, c[2], c[3], NAMED)
        assert.same(want, got, c[1] .. " naming nodes, seed " .. seed)
        assert.is_true(kept > 0, c[1] .. " naming nodes, seed " .. seed .. ": " .. kept
          .. " kept")
      end
      -- both kinds in one stream: the kept rankings of both kinds side by side
      local mixed = {}
      for _, t in ipairs(SHAPES) do mixed[#mixed + 1] = t end
      for _, t in ipairs(NAMED) do mixed[#mixed + 1] = t end
      for seed = 7, 9 do
        local got, want = stream(seed, 200, c[2], c[3], mixed)
        assert.same(want, got, c[1] .. " mixed, seed " .. seed)
      end
    end
  end)

  it("is kept without a declaration, not when the score reads what no local score does",
    function()
    local _, plain, fresh = twins("policies/spread.lua")
    local _, _, kept = stream(1, 60, plain, plain)
    assert.is_true(kept > 0, kept .. " kept")
    local _, _, kept_named = stream(1, 60, plain, plain, NAMED)
    assert.is_true(kept_named > 0, kept_named .. " kept")
    local _, _, kept_fresh = stream(1, 60, fresh, fresh)
    assert.equal(0, kept_fresh)
    local _, _, kept_first = stream(1, 60, "first", "first")
    assert.equal(0, kept_first)
  end)

  it("refuses a declaration that is no boolean", function()
    local p, msg = core.policy_parse([[return {score_local = 1,
      score = function() return 0 end}]], "bad.lua")
    assert.is_nil(p)
    assert.matches("score_local must be a boolean", msg)
  end)

  it("drops the declaration of a base when the file scores itself", function()
    local p = assert(core.policy_parse([[return {base = "spread",
      score = function(v) return v:id() end}]], "own.lua"))
    assert.is_nil(p:hooks().score_local)
    local q = assert(core.policy_parse([[return {base = "spread"}]], "base.lua"))
    assert.is_true(q:hooks().score_local)
  end)

  -- A machine of 2 racks of 2 nodes and a matcher on it under spread; and
  -- a function saying what the next one-core job gets and how many kept
  -- rankings were mended.
  local function spread_on()
    local g, m = matcher_on("policies/spread.lua")
    local one = match.compiled{tasks = 1, cores_per_task = 1, duration = 10}
    return g, m, function()
      local j, msg = m:match(one, "allocate_orelse_reserve")
      return placed(j, msg), m:stats().ranks_kept
    end
  end

  it("is mended after each job and cancel", function()
    local _, m, next_job = spread_on()
    assert.same({"allocated@0:n0/core0", 0}, {next_job()})
    assert.same({"allocated@0:n1/core0", 1}, {next_job()})
    assert.same({"allocated@0:n2/core0", 2}, {next_job()})
    assert.same({"allocated@0:n3/core0", 3}, {next_job()})
    assert.same({"allocated@0:n0/core1", 4}, {next_job()})
    assert(m:cancel(2)) -- n1's core: n1 is the emptiest again, with n2 and n3
    assert.same({"allocated@0:n1/core0", 5}, {next_job()})
    m:close()
  end)

  it("is made anew after a status change", function()
    local g, m, next_job = spread_on()
    assert.same({"allocated@0:n0/core0", 0}, {next_job()})
    g:vertex("n1"):set_status("drained")
    assert.same({"allocated@0:n2/core0", 0}, {next_job()})
    g:vertex("n1"):set_status("up")
    assert.same({"allocated@0:n1/core0", 0}, {next_job()})
    assert.same({"allocated@0:n3/core0", 1}, {next_job()})
    m:close()
  end)

  it("is made anew after a graph edit", function()
    local g, m, next_job = spread_on()
    for i = 0, 3 do assert.same({"allocated@0:n" .. i .. "/core0", i}, {next_job()}) end
    -- a node of 8 cores comes into rack 1: the emptiest
    local n = g:add_vertex{type = "node", id = 4, rank = 4, name = "n4"}
    assert(g:add_child(g:vertex("n3"):parent(), n))
    for c = 0, 7 do assert(g:add_child(n, g:add_vertex{type = "core", id = c})) end
    assert.same({"allocated@0:n4/core0", 3}, {next_job()})
    assert.same({"allocated@0:n4/core1", 4}, {next_job()})
    m:close()
  end)

  it("is made anew after a property change a score reads", function()
    local g, m = matcher_on(weighted(true))
    local one = match.compiled{tasks = 1, cores_per_task = 1}
    -- weights n0..n3: 0 1 2 0: n2 first
    assert.equal("n2", node_of(m:match(one)))
    g:vertex("n0"):set_property("weight", "9")
    assert.equal("n0", node_of(m:match(one)))
    m:close()
  end)

  it("is forgotten when the policy changes", function()
    local g = machine(2, 2, function(i) return i < 2 and 2 or 0 end)
    local m = core.matcher(g)
    local one = match.compiled{tasks = 1, cores_per_task = 1}
    local node = function() return node_of(m:match(one)) end
    assert(m:set_policy("policies/spread.lua"))
    assert.equal("n0", node()) -- 4 cores and 2 GPUs free: n0 and n1 tie, n0 first
    assert.equal("n1", node())
    assert.equal(1, m:stats().ranks_kept) -- the second mended the first's
    assert(m:set_policy("policies/gpu.lua"))
    assert.equal("n2", node()) -- the fewest free GPUs
    assert.equal(1, m:stats().ranks_kept)
    assert(m:set_policy("policies/spread.lua"))
    assert.equal("n3", node()) -- 4 free cores, n2 has 3
    assert.equal(1, m:stats().ranks_kept)
    m:close()
  end)

  it("is carried to a later window that meets the same records", function()
    local g, m = spread_on()
    local function job(d, cores)
      local j, msg = m:match(match.compiled{tasks = 1, cores_per_task = cores or 1, duration = d},
        "allocate_orelse_reserve")
      return placed(j, msg), m:stats().ranks_kept
    end
    assert.same({"allocated@0:n0/core0", 0}, {job(10)})
    -- [3, 13) meets what [0, 10) met: carried, and mended for n0
    g:set_now(3)
    assert.same({"allocated@3:n1/core0", 1}, {job(10)})
    -- another size and duration: spread reads nothing of ctx
    g:set_now(4)
    assert.same({"allocated@4:n2/core0,n2/core1", 2}, {job(30, 2)})
    -- [50, 60): the jobs ending at 10, 13 and 34 lie between: made anew
    local r = assert(m:match(match.compiled{tasks = 1, cores_per_task = 3, duration = 10},
      "allocate", nil, {start = 50, ["end"] = 60}))
    assert.equal("reserved@50:n0/core0,n0/core1,n0/core2", placed(r))
    assert.equal(2, m:stats().ranks_kept)
    -- [6, 16) meets what [4, 34) met (the reservation starts after both)
    g:set_now(6)
    assert.same({"allocated@6:n3/core0", 3}, {job(10)})
    -- [7, 107) meets the reservation, [6, 16) does not: made anew, and
    -- n0 (1 core free while reserved) is passed over
    g:set_now(7)
    assert.same({"allocated@7:n1/core1", 3}, {job(100)})
    m:close()
  end)

  it("keeps a ranking to the window when the score reads it", function()
    local g, m = matcher_on(by_duration(true))
    local one = match.compiled{tasks = 1, cores_per_task = 1, duration = 10}
    assert(m:match(one, "allocate"))
    g:set_now(3)
    assert(m:match(one, "allocate"))
    assert.equal(0, m:stats().ranks_kept)
    m:close()
  end)

  it("refuses a score_reads that is not a list of ctx fields, or not local", function()
    local cases = {
      {"score_local = true, score_reads = {'totl'}",
        "score_reads: 'totl' is not a field of ctx"},
      {"score_local = true, score_reads = 'total'", "score_reads must be an array of ctx fields"},
      {"score_local = true, score_reads = {'total.'}", "score_reads: 'total.' is not a field"},
      {"score_reads = {}",
        "score_reads is a promise of a local score: it needs score_local = true"},
    }
    for _, c in ipairs(cases) do
      local p, msg = core.policy_parse("return {" .. c[1]
        .. ", score = function() return 0 end}", "bad.lua")
      assert.is_nil(p, c[1])
      assert.matches(c[2], msg, 1, true)
    end
    local p = assert(core.policy_parse("return {score_local = true, score_reads = {'total.gpu'},"
      .. " score = function() return 0 end}", "ok.lua"))
    assert.same({"total.gpu"}, p:hooks().score_reads)
    assert.same({}, assert(core.policy_parse(exe.read("policies/spread.lua"), "spread.lua"))
      :hooks().score_reads)
  end)

  it("keeps a ranking for each request shape of a mixed stream", function()
    -- two shapes that name the nodes, of different types (a GPU or not),
    -- in turn: each mends its own ranking, neither replaces the other's
    local g = machine(2, 4, function(i) return i % 3 end)
    local m = core.matcher(g)
    assert(m:set_policy("spread"))
    local a = match.compiled{nodes = 1, tasks = 1, cores_per_task = 1, duration = 10}
    local b = match.compiled{nodes = 1, tasks = 1, cores_per_task = 1, gpus_per_task = 1,
      duration = 10}
    for i = 1, 12 do assert(m:match(i % 2 == 0 and a or b, "allocate")) end
    assert.equal(10, m:stats().ranks_kept)
    m:close()
  end)

  it("serves a level in place while the levels below keep rankings of their own", function()
    -- racks of nodes of 2 sockets of 4 cores; jobs naming nodes, then a
    -- socket on each, scored by a policy that ranks both: the nodes'
    -- ranking is served while each node's sockets are ranked and kept
    -- (more of them than a matcher keeps), and must place as the same
    -- scores made anew at every match
    local text = [[
      return {name = "nest", score_types = {"node", "socket"},
        score = function(v, ctx)
          %s
          return v:aggregate("core") * 10 + (v:id() %% 3)
        end}]]
    local kept_pol = assert(core.policy_parse(text:format(""), "nest.lua"))
    local anew_pol = assert(core.policy_parse(text:format("local _ = ctx.job"), "nest.lua"))
    local function js(n, c)
      return assert(core.jobspec_parse(match.nodes_yaml(n, c, nil, 10, true)))
    end
    local shapes = {js(2, 2), js(1, 3), js(3, 1), js(2, 4)}
    local sockets = function() return machine(2, 6, nil, true) end
    for seed = 1, 3 do
      local got, want, kept = stream(seed, 150, kept_pol, anew_pol, shapes, sockets)
      assert.same(want, got, "seed " .. seed)
      assert.is_true(kept > 0, kept .. " kept")
    end
  end)

  it("sees a reservation in the future in the window it overlaps", function()
    local _, m, next_job = spread_on()
    assert.same({"allocated@0:n0/core0", 0}, {next_job()})
    -- 3 cores of the emptiest node during [5, 15): n1
    local three = match.compiled{tasks = 1, cores_per_task = 3, duration = 10}
    -- (the ranking of [0, 10) carried: the one job meets both windows)
    local r = assert(m:match(three, "allocate", nil, {start = 5, ["end"] = 15}))
    assert.equal("reserved@5:n1/core0,n1/core1,n1/core2", placed(r))
    assert.equal(1, m:stats().ranks_kept)
    -- [0, 10) overlaps it: n1 has 1 core free then, n2 and n3 have 4
    assert.same({"allocated@0:n2/core0", 2}, {next_job()})
    assert.same({"allocated@0:n3/core0", 3}, {next_job()})
    assert.same({"allocated@0:n0/core1", 4}, {next_job()})
    m:close()
  end)
end)

describe("an order across levels (when) kept between matches", function()
  it("keeps one list a request shape, so that shapes in turn each reuse their own", function()
    -- nodes by their weight property, heaviest last: a list of the whole
    -- machine's nodes, made once for each of the three shapes
    local p = assert(core.policy_parse([[return {
      order = {key = "property:weight", when = "node"}}]], "weight.lua"))
    local g = machine(2, 4)
    local m = core.matcher(g)
    assert(m:set_policy(p))
    local shapes = {
      match.compiled{nodes = 1, exclusive = true, duration = 10},
      match.compiled{tasks = 1, cores_per_task = 1, duration = 10},
      match.compiled{nodes = 1, tasks = 1, cores_per_task = 2, duration = 10},
    }
    for i = 1, 9 do assert(m:match(shapes[(i - 1) % 3 + 1], "allocate")) end
    -- the first whole node made the list of a request of nodes and cores,
    -- the first one-core job that of cores alone; the seven after (the
    -- third shape names nodes and cores too) gave them again
    assert.equal(7, m:stats().ranks_kept)
    m:close()
    g:close()
  end)
end)

describe("what a score or prune reads, watched as it runs", function()
  local one = match.compiled{tasks = 1, cores_per_task = 1, duration = 10}

  it("raises with the field a declaration leaves out, and leaves the matcher as it was",
    function()
    local g, m = matcher_on(best_fit("score_local = true, score_reads = {},"))
    local j, msg = m:match(one, "allocate")
    assert.is_nil(j)
    assert.matches("policy best_fit: score hook: best_fit.lua:4: ctx.total.core: the policy's "
      .. "score_reads names only {}", msg, 1, true)
    assert.same({}, m:jobs())
    -- score_local alone: ctx.job is no local score's input
    local p = assert(core.policy_parse([[return {score_types = "node", score_local = true,
      score = function(v, ctx) return ctx.job end}]], "job.lua"))
    assert(m:set_policy(p))
    j, msg = m:match(one, "allocate")
    assert.is_nil(j)
    assert.matches("job.lua:2: ctx.job: not what a local score reads", msg, 1, true)
    -- the same score honest about what it reads places
    assert(m:set_policy(best_fit("score_local = true, score_reads = {'total.core'},")))
    assert.equal("allocated@0:n0/core0", placed(m:match(one, "allocate")))
    m:close()
    g:close()
  end)

  it("refuses score_local that the hook's code cannot back", function()
    local p, msg = core.policy_parse([[local seen = {}
      return {score_types = "node", score_local = true,
        score = function() seen[#seen + 1] = 1; return #seen end}]], "state.lua")
    assert.is_nil(p)
    assert.matches("state.lua:2: score_local: the score hook's code does not show that each "
      .. "score is local: state.lua:3: the function reads upvalue 'seen'", msg, 1, true)
    -- without the declaration it loads, and is never kept
    p = assert(core.policy_parse([[local seen = {}
      return {score_types = "node",
        score = function() seen[#seen + 1] = 1; return #seen end}]], "state.lua"))
    assert.matches("upvalue 'seen'", p:proofs().score, 1, true)
    local _, m = matcher_on(p)
    for _ = 1, 3 do assert(m:match(one, "allocate")) end
    assert.equal(0, m:stats().ranks_kept)
    m:close()
  end)

  -- Nodes n2 and n5 degraded, 2 racks of 4 nodes.
  local function degraded(g)
    for _, n in ipairs{"n2", "n5"} do g:vertex(n):set_property("degraded", "1") end
    return g
  end

  it("keeps the rankings of a prune on a node property, placing as the constraint", function()
    local p = assert(core.policy_parse([[return {base = "spread",
      prune = function(v) return v:property("degraded") ~= nil end}]], "prune.lua"))
    assert.is_true(p:proofs().prune)
    local ctxp = assert(core.policy_parse([[return {base = "spread",
      prune = function(v, ctx) return ctx.count > 99 end}]], "ctxprune.lua"))
    assert.is_string(ctxp:proofs().prune)
    local con = {tasks = 1, cores_per_task = 1, duration = 10,
      constraints = {properties = {"^degraded"}}}
    local runs = {}
    for k, c in ipairs{{p, one}, {"spread", match.compiled(con)}} do
      local g = degraded(machine(2, 4))
      local m = core.matcher(g)
      assert(m:set_policy(c[1]))
      local log = {}
      for i = 1, 30 do log[i] = placed(m:match(c[2], "allocate_orelse_reserve")) end
      runs[k] = {log = log, kept = m:stats().ranks_kept}
      m:close()
    end
    assert.same(runs[2].log, runs[1].log)
    assert.not_matches("n[25]/", table.concat(runs[1].log, " "))
    assert.is_true(runs[1].kept > 20, runs[1].kept .. " kept")
  end)

  it("asks a prune on the graph's content again once the graph changes", function()
    -- whole nodes, so that every node the walk reaches is asked about;
    -- its answers (and the siblings' asked with them) are kept until a
    -- property changes, and then given anew
    local p = assert(core.policy_parse([[return {
      prune = function(v) return v:property("degraded") ~= nil end}]], "prune.lua"))
    assert.is_true(p:proofs().prune)
    local g = machine(2, 4)
    local m = core.matcher(g)
    assert(m:set_policy(p))
    local whole = match.compiled{nodes = 1, exclusive = true, duration = 10}
    local function node(j)
      for _, pk in ipairs(assert(j).picks) do
        if pk.vertex:type() == "node" then return pk.vertex:name() end
      end
    end
    local j = m:match(whole, "allocate")
    assert.equal("n0", node(j))
    assert(m:cancel(j.id))
    g:vertex("n0"):set_property("degraded", "1")
    g:vertex("n1"):set_property("degraded", "1")
    assert.equal("n2", node(m:match(whole, "allocate")))
    g:vertex("n0"):remove_property("degraded")
    assert.equal("n0", node(m:match(whole, "allocate")))
    m:close()
    g:close()
  end)

  it("answers a vertex of no property or tag as another, only when the prune read no more",
    function()
    -- a prune that reads a view's own properties and tags alone answers
    -- every vertex with none alike (asked once for the sockets, cores and
    -- GPUs); one that reads anything else of a vertex is asked of each
    local function cores_of(pol, steps)
      local g = machine(2, 4, function(i) return i % 2 end)
      g:vertex("n1"):set_property("degraded", "1")
      g:vertex("n2"):tag("hot")
      local m = core.matcher(g)
      assert(m:set_policy(assert(core.policy_parse(pol, "prune.lua"))))
      local one_core = match.compiled{tasks = 1, cores_per_task = 1, duration = 10}
      local seen = {}
      for i = 1, steps do
        local j = m:match(one_core, "allocate")
        seen[i] = j and placed(j) or "none"
        if i == 9 then
          -- a property a vertex of none gains: answered anew
          g:vertex("n3"):set_property("degraded", "1")
        end
      end
      m:close()
      g:close()
      return table.concat(seen, " ")
    end
    local props = [[return {base = "spread", prune = function(v)
      return v:property("degraded") ~= nil or v:has_tag("hot") end}]]
    local props_and_type = [[return {base = "spread", prune = function(v)
      local _ = v:type()
      return v:property("degraded") ~= nil or v:has_tag("hot") end}]]
    local a, b = cores_of(props, 24), cores_of(props_and_type, 24)
    assert.equal(b, a)
    assert.not_matches("n[12]/", a)
    -- n3, degraded after the ninth job, gets none of the later ones
    local later = {}
    for w in a:gmatch("%S+") do later[#later + 1] = w end
    assert.matches("n3/", table.concat(later, " ", 1, 9))
    assert.not_matches("n3/", table.concat(later, " ", 10))
    -- what the vertex is, where it is, or what it is named: asked of each
    for _, read in ipairs{"v:type() == 'core' and v:id() == 3",
                          "v:id() == 3 and v:parent() ~= nil",
                          "tostring(v):find('3') ~= nil and v:property('x') == nil"} do
      local pol = ([[return {base = "spread", prune = function(v)
        return %s end}]]):format(read)
      local got = cores_of(pol, 32)
      assert.matches("n%d/core2", got, read)
      assert.not_matches("/core3", got, read)
    end
  end)

  it("keeps a base's score_types when the file gives only a prune", function()
    -- spread scores nodes alone: a prune of its own keeps that
    local p = assert(core.policy_parse([[return {base = "spread",
      prune = function() return false end}]], "prune.lua"))
    local runs = {}
    for k, pol in ipairs{p, "spread"} do
      local g = machine(2, 4, function(i) return i % 3 end)
      local m = core.matcher(g)
      assert(m:set_policy(pol))
      local log = {}
      local two = match.compiled{nodes = 1, tasks = 1, cores_per_task = 2, duration = 10}
      for i = 1, 12 do log[i] = placed(m:match(i % 2 == 0 and one or two, "allocate")) end
      runs[k] = {log = log, kept = m:stats().ranks_kept}
      m:close()
    end
    assert.same(runs[2].log, runs[1].log)
    assert.same(runs[2].kept, runs[1].kept)
  end)
end)

describe("docs/policies.md's first policy", function()
  it("places as spread on nodes without GPUs, its ranking kept with nothing declared", function()
    local doc = exe.read("docs/policies.md")
    local text = assert(doc:match("## Your first policy\n.-```lua\n(.-)```"))
    local p = assert(core.policy_parse(text, "emptiest.lua"))
    assert.is_true(p:proofs().score)
    local runs = {}
    for k, pol in ipairs{p, "spread"} do
      local g = machine(2, 4)
      local m = core.matcher(g)
      assert(m:set_policy(pol))
      local log = {}
      for i = 1, 20 do
        local shape = match.compiled(i % 3 == 0 and NAMED[3] or SHAPES[(i % 2) + 1])
        log[i] = placed(m:match(shape, "allocate_orelse_reserve"))
      end
      runs[k] = {log = log, kept = m:stats().ranks_kept}
      m:close()
    end
    assert.same(runs[2].log, runs[1].log)
    assert.is_true(runs[1].kept > 10, runs[1].kept .. " kept")
  end)
end)
