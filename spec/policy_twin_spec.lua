-- The Lua twins of the built-in policies (policies/NAME.lua) against their
-- C fast paths: the same job streams on the same graphs must give the same
-- outcome (allocated, reserved, matched or failed with the same code), the
-- same times and exactly the same picks, job after job; and the graphs'
-- records must agree at the end.  Function-form variants (order by a Lua
-- comparator, a key function, no-op prune and score hooks) run through
-- the trampolines and must agree too.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local match = require("match_helper")

local CORPUS = os.getenv("GROVE_CONFORMANCE") or "../shared/conformance"
local BASICS = CORPUS .. "/fluxion/jobspecs/basics/"

local BUILTINS = match.BUILTINS

-- ---- graphs ------------------------------------------------------------------

local tiny = match.tiny

-- medium, with perf_class on most nodes (some have none, one is not a
-- number) so variation has something to choose by.
local function medium()
  local g = dofile "examples/medium.lua"
  for v in g:vertices{type = "node"} do
    local id = v:id()
    if id % 11 ~= 5 then
      v:set_property("perf_class", tostring((id * 7) % 5 + 1))
    end
    if id == 40 then v:set_property("perf_class", "fast") end
  end
  return g
end

-- A graph whose ids are not in graph order, with a duplicate node id and
-- sockets numbered backwards, so id order, vertex order and tie-breaks all
-- differ.  backwards: the second rack's vertices are made first, so the
-- walk meets candidates out of vertex order.
local function mixed(backwards)
  local g = core.graph()
  local root = g:add_vertex{type = "cluster", basename = "mix", id = 0}
  local racks, made = {{5, 2, 9, 2}, {7, 0, 11, 3}}, {}
  for k = 1, #racks do
    local r = backwards and #racks + 1 - k or k
    local rack = g:add_vertex{type = "rack", id = r - 1}
    made[r] = rack
    for i, id in ipairs(racks[r]) do
      local rank = (r - 1) * #racks[r] + i - 1
      local n = g:add_vertex{type = "node", id = id, rank = rank, name = "n" .. rank,
        properties = {perf_class = tostring((id * 3) % 4)}}
      assert(g:add_child(rack, n))
      for s = 0, 1 do
        local sock = g:add_vertex{type = "socket", id = 1 - s}
        assert(g:add_child(n, sock))
        for c = 0, 3 do
          assert(g:add_child(sock, g:add_vertex{type = "core", id = (c * 3) % 4}))
        end
        assert(g:add_child(sock, g:add_vertex{type = "gpu", id = s}))
        assert(g:add_child(sock, g:add_vertex{type = "memory", id = s, size = 8, unit = "GB"}))
      end
    end
  end
  for r = 1, #racks do assert(g:add_child(root, made[r])) end
  return g
end

-- ---- jobspecs ------------------------------------------------------------------

local function R(type, count, with, exclusive)
  return {type = type, count = count, with = with, exclusive = exclusive}
end

local function slot(count, with)
  return {type = "slot", count = count, label = "default", with = with}
end

local function js(resources, duration)
  return assert(core.jobspec_from_table(match.jobspec(resources, duration or 3600)))
end

local function corpus(name)
  return assert(core.jobspec_load(BASICS .. name))
end

local J = {}
local function jobspecs()
  if J.node_x then return J end
  J.node_x = js{R("node", 1, {slot(1, {R("core", 2)})}, true)}
  J.cores = js{slot(1, {R("core", 3)})}
  J.gpu = js{R("node", 1, {slot(1, {R("gpu", 1), R("core", 1)})})}
  J.slots = js({slot(4, {R("core", 2)})}, 1800)
  J.mold_nodes = js{R("node", {min = 1, max = 3, operator = "+", operand = 1},
    {slot(1, {R("core", 1)})})}
  J.mold_cores = js({slot(1, {R("core", {min = 2, max = 10, operator = "+", operand = 2})})},
    600)
  J.sockets = js{R("node", 1, {slot(2, {R("socket", 1)})})}
  J.memory = js({slot(1, {R("core", 1), R("memory", 4)})}, 900)
  J.two_nodes = js({R("node", 2, {slot(1, {R("core", 1)})}, true)}, 7200)
  J.many = js({slot(6, {R("node", 1, {R("core", 1)})})}, 1200)
  J.huge = js{R("node", 1000, {slot(1, {R("core", 1)})})}
  J.bare_nodes = js({slot(1, {R("node", 2)})}, 600) -- nodes as units (a leaf)
  for i = 1, 15 do
    J[("test%03d"):format(i)] = corpus(("test%03d.yaml"):format(i))
  end
  return J
end

-- A stream: matches in various modes, with cancels (by position among the
-- jobs that went into the table) and a partial release.
local function stream()
  local j = jobspecs()
  local s = {}
  local function m(name, mode) s[#s + 1] = {js = j[name], name = name, mode = mode} end
  local A, R_, NOW = "allocate", "allocate_orelse_reserve", "without_allocating"
  m("cores", A); m("node_x", A); m("gpu", A); m("slots", A); m("mold_nodes", A)
  m("mold_cores", A); m("sockets", A); m("memory", A); m("cores", NOW)
  m("two_nodes", R_); m("many", R_); m("huge", R_); m("huge", "allocate_with_satisfiability")
  m("huge", "satisfiability"); m("two_nodes", "satisfiability")
  s[#s + 1] = {cancel = 2}
  m("node_x", R_); m("mold_nodes", R_); m("gpu", "without_allocating_future")
  s[#s + 1] = {release = 1, ranks = "0-3"}
  for i = 1, 15 do m(("test%03d"):format(i), R_) end
  s[#s + 1] = {cancel = 4}
  s[#s + 1] = {cancel = 6}
  for _, name in ipairs{"cores", "memory", "mold_cores", "sockets", "slots", "node_x"} do
    m(name, R_)
  end
  for i = 1, 15, 2 do m(("test%03d"):format(i), A) end
  s[#s + 1] = {cancel = 1}
  m("many", R_); m("mold_nodes", A); m("gpu", R_); m("bare_nodes", A); m("bare_nodes", R_)
  return s
end

-- ---- running ------------------------------------------------------------------------

local function describe_job(j)
  local parts = {j.state, tostring(j.start), tostring(j["end"])}
  for _, p in ipairs(j.picks) do
    parts[#parts + 1] = ("%d:%d:%s"):format(p.vertex:vid(), p.amount, p.exclusive and "x" or "s")
  end
  return table.concat(parts, " ")
end

local function run(g, policy, steps)
  local m = core.matcher(g)
  assert(m:set_policy(policy))
  local out, held = {}, {}
  for _, st in ipairs(steps) do
    if st.cancel then
      local id = held[st.cancel]
      out[#out + 1] = "cancel " .. tostring(id and m:cancel(id) and id)
    elseif st.release then
      local id = held[st.release]
      local n, gone = m:release_ranks(id, st.ranks)
      out[#out + 1] = ("release %s %s %s"):format(id, n, gone)
    else
      local j, msg, code = m:match(st.js, st.mode)
      if j then
        out[#out + 1] = st.name .. " " .. describe_job(j)
        if j.state ~= "matched" then held[#held + 1] = j.id end
      else
        out[#out + 1] = st.name .. " " .. code
        assert(code == "EBUSY" or code == "ENODEV", msg)
      end
    end
  end
  local jobs = {}
  for _, j in ipairs(m:jobs()) do jobs[#jobs + 1] = j.id .. " " .. describe_job(j) end
  local recs = {}
  for v in g:vertices() do
    for _, r in ipairs(v:records()) do
      recs[#recs + 1] = ("%d %d %s %d %d %s %s"):format(v:vid(), r.job, r.kind, r.amount,
        r.start, tostring(r["end"]), tostring(r.exclusive))
    end
  end
  m:close()
  return out, jobs, recs
end

local function load_twin(name)
  return assert(core.policy_load("policies/" .. name .. ".lua"))
end

local function count(out, pat)
  local n = 0
  for _, line in ipairs(out) do
    if line:find(pat) then n = n + 1 end
  end
  return n
end

local GRAPHS = {tiny = tiny, medium = medium, mixed = mixed,
  backwards = function() return mixed(true) end}

describe("Lua twins of the built-in policies", function()
  for _, gname in ipairs{"tiny", "medium", "mixed", "backwards"} do
    for _, name in ipairs(BUILTINS) do
      it(("%s gives the C placements on %s"):format(name, gname), function()
        local steps = stream()
        local c_out, c_jobs, c_recs = run(GRAPHS[gname](), name, steps)
        local twin = load_twin(name)
        assert.equal(name, twin:name())
        local l_out, l_jobs, l_recs = run(GRAPHS[gname](), twin, steps)
        assert.same(c_out, l_out)
        assert.same(c_jobs, l_jobs)
        assert.same(c_recs, l_recs)
        -- the stream exercised something
        assert.is_true(count(c_out, " allocated ") > 3)
        assert.is_true(count(c_out, " E[BN][UO]") > 0)
        assert.is_true(#c_recs > 0)
      end)
    end
  end

  it("are declarative where the C policy only sorts (no Lua runs while matching)", function()
    local scoring = {spread = true, gpu = true}
    for _, name in ipairs(BUILTINS) do
      local h = load_twin(name):hooks()
      local c = core.matcher(core.graph())
      assert(c:set_policy(name))
      if h.order then assert.equal("c", h.order) end
      assert.is_nil(h.prune)
      assert.is_nil(h.score)
      assert.equal(scoring[name] and "lua" or nil, h.scores)
      assert.same(scoring[name] and {"node"} or nil, h.score_types)
      assert.equal(name == "locality" or name == "variation", h.choose == "lua")
      assert.equal(name:find("x$") ~= nil, h.node_exclusive)
      assert.equal((h.choose or h.scores) and "best" or "first", h.select)
    end
  end)

  it("are told apart by the streams (the comparison can fail)", function()
    local steps = stream()
    local outs = {}
    for _, name in ipairs(BUILTINS) do outs[name] = run(mixed(), name, steps) end
    assert.are_not.same(outs.low, outs.high)
    assert.are_not.same(outs.first, outs.low)
    assert.are_not.same(outs.lonode, outs.lonodex)
    assert.are_not.same(outs.first, outs.locality)
    assert.are_not.same(outs.first, outs.spread)
    local m_outs = {}
    for _, name in ipairs{"first", "variation", "locality"} do
      m_outs[name] = run(medium(), name, steps)
    end
    assert.are_not.same(m_outs.first, m_outs.variation)
    -- a twin that sorts the wrong way is caught
    local wrong = assert(core.policy_parse("return {order = {key = 'id', descending = true}}",
      "wrong.lua"))
    local l_out = run(mixed(), wrong, steps)
    assert.are_not.same(outs.low, l_out)
  end)
end)

-- Ascending ids in place: the order of low and of lonode.  An order
-- function says nothing of ids to the matcher (it is never asked to find
-- out): the twins of low, high, lonode and hinodex declare id_order, as
-- the built-ins do, to get the reference engine's slots ranked by id;
-- without it they place in the walk's order (policy_shapes_spec).
local ASCENDING = [[
    return {id_order = "ascending", order = function(parent, kids)
      table.sort(kids, function(a, b)
        local x, y = a:id() or -1, b:id() or -1
        if x ~= y then return x < y end
        return a:vid() < b:vid()
      end)
    end}]]

-- The same placements through the trampolines: order functions, key
-- functions, and prune/score hooks that change nothing.
local VARIANTS = {
  low = ASCENDING,
  high = [[
    return {id_order = "descending", order = function(parent, kids)
      local t = {}
      for i, v in ipairs(kids) do t[i] = v end
      table.sort(t, function(a, b)
        local x, y = a:id() or -1, b:id() or -1
        if x ~= y then return x > y end
        return a:vid() > b:vid()
      end)
      return t
    end}]],
  lonode = [[
    return {node_centric = true, id_order = "ascending", order = function(parent, kids)
      table.sort(kids, function(a, b)
        local x, y = a:id() or -1, b:id() or -1
        if x ~= y then return x < y end
        return a:vid() < b:vid()
      end)
    end}]],
  hinodex = [[
    return {node_exclusive = true, node_centric = true, id_order = "descending",
            order = {key = function(v) return v:id() or -1 end, descending = true}}]],
  first = [[
    return {select = "first",
            prune = function(v, ctx)
              assert(ctx.start >= 0 and type(ctx.count) == "number")
              return false
            end,
            score = function(v, ctx) return 0 end}]],
  locality = [[
    return {base = "locality", score = function(v) return 0 end}]],
  firstnodex = [[
    return {base = "first", node_exclusive = true, prune = function(v) return nil end}]],
  -- one score call per node, as the documentation's first examples
  spread = [[
    return {score_types = "node", score = function(v)
      return (v:aggregate("core") or 0) * 1048576 + (v:aggregate("gpu") or 0)
    end}]],
  gpu = [[
    return {score_types = "node", score = function(v, ctx)
      local n = v:aggregate("gpu") or 0
      if (ctx.total.gpu or 0) > 0 then return n end
      return -n
    end}]],
}

describe("function-form policies", function()
  for _, gname in ipairs{"tiny", "mixed"} do
    for name, text in pairs(VARIANTS) do
      it(("%s as Lua hooks gives the C placements on %s"):format(name, gname), function()
        local steps = stream()
        local c_out, c_jobs, c_recs = run(GRAPHS[gname](), name, steps)
        local p = assert(core.policy_parse(text, name .. "_fn.lua"))
        local l_out, l_jobs, l_recs = run(GRAPHS[gname](), p, steps)
        assert.same(c_out, l_out)
        assert.same(c_jobs, l_jobs)
        assert.same(c_recs, l_recs)
      end)
    end
  end
end)
