-- A request's slots placed one after the other resume the walk at the
-- home of the slot before (core/match_slot.c, slot_resume): in
-- containment's own order the walk from the request's root would reach it
-- first.  It only saves walking: every placement, start and failure must
-- be the one the same walk from the root gives, on random streams of
-- allocations, reservations, cancellations, clock moves and status
-- changes.  The walk from the root is the one a policy with a prune hook
-- takes (a hook that prunes nothing: no slot is resumed under it, nor is
-- a vertex found full passed by its mark).
--
-- This file holds only specs: what several specs share lives in
-- spec/*_helper.lua, fixtures in spec/fixtures/, and must not be copied
-- here.
local core = require("grove.core")
local match = require("match_helper")
local streams = require("stream_helper")

local lcg = match.lcg

-- racks of nodes of two sockets of four cores; a GPU in the first socket
-- of every other node, two in the second of every third
local function machine(racks, nodes)
  return match.racks_of("sr", racks, nodes, function(g, n, i)
    for s = 0, 1 do
      local sock = g:add_vertex{type = "socket", id = s}
      assert(g:add_child(n, sock))
      for c = 0, 3 do assert(g:add_child(sock, g:add_vertex{type = "core", id = s * 4 + c})) end
      local gpus = s == 0 and (i % 2 == 0 and 1 or 0) or (i % 3 == 0 and 2 or 0)
      for k = 1, gpus do
        assert(g:add_child(sock, g:add_vertex{type = "gpu", id = s * 2 + k - 1}))
      end
    end
  end)
end

local SHAPES = {
  {tasks = 6, cores_per_task = 1, duration = 10},
  {tasks = 3, cores_per_task = 2, duration = 20},
  {tasks = 8, cores_per_task = 4, duration = 30},
  {tasks = 2, cores_per_task = 1, gpus_per_task = 1, duration = 10},
  {tasks = 5, cores_per_task = 3, duration = 40},
  {tasks = 1, cores_per_task = 1, duration = 10},
  {nodes = 2, tasks = 4, cores_per_task = 2, duration = 20},
  {nodes = 1, cores_per_node = 8, exclusive = true, duration = 30},
  {tasks = 20, cores_per_task = 1, duration = 50},
}

-- What a job got: its state, start and units by node ("n1/core0,..."),
-- or the failure.
local function placed(j, msg)
  if not j then return msg end
  local out = {}
  for _, p in ipairs(j.picks) do
    local v = p.vertex
    local t = v:type()
    if t == "core" or t == "gpu" then
      out[#out + 1] = v:parent():parent():name() .. "/" .. t .. v:id()
    end
  end
  return ("%s@%d:%s"):format(j.state, j.start, table.concat(out, ","))
end

-- the policy's text with a prune hook that prunes nothing
local function walked(name)
  local text = assert(io.open("policies/" .. name .. ".lua")):read("a")
  text = text:gsub("\nreturn {\n", "\nreturn {\n  prune = function() return false end,\n", 1)
  assert(text:find("prune = function", 1, true), name)
  return assert(core.policy_parse(text, name .. " (walked)"))
end

-- One stream on two graphs alike, the first matched with policy (slots
-- resumed), the second walked from the root at each slot: what each step
-- gave on each, and the slots the first resumed.
local function stream(seed, steps, racks, nodes, policy)
  local rnd = lcg(seed)
  local run = {}
  local n
  for k, pol in ipairs{policy, walked(policy)} do
    local g
    g, n = machine(racks, nodes)
    local m = core.matcher(g)
    assert(m:set_policy(pol))
    run[k] = streams.run(g, m)
  end
  local shapes = streams.compiled(SHAPES)
  local now = 0
  streams.steps(run, steps, streams.drawer(rnd, #shapes, n), {
    {60, function(r, d) return streams.allocate(r, shapes[d.shape], placed) end},
    {80, function(r, d) return streams.cancel(r, d.victim) end},
    {93, function(r) return streams.clock(r, now + 7) end, function() now = now + 7 end},
    {100, streams.drawn_status},
  })
  local resumed = run[1].m:stats().slots_resumed
  assert.equal(0, run[2].m:stats().slots_resumed)
  for _, r in ipairs(run) do r.m:close() end
  return run[1].log, run[2].log, resumed
end

describe("slots resumed at the home of the slot before them", function()
  it("place every job as the walk from the root, on random streams", function()
    local resumed = 0
    for _, policy in ipairs{"first", "firstnodex"} do
      for _, shape in ipairs{{1, 12}, {3, 5}} do
        for seed = 1, 4 do
          local got, want, r = stream(seed, 200, shape[1], shape[2], policy)
          assert.same(want, got, ("%s, %d racks of %d nodes, seed %d"):format(policy, shape[1],
            shape[2], seed))
          resumed = resumed + r
        end
      end
    end
    -- slots were resumed (else this would test nothing)
    assert.is_true(resumed > 1000, resumed .. " resumed")
  end)

  it("resume where the last slot went, and walk on from the root when it is full", function()
    local g = machine(2, 2)
    local m = core.matcher(g)
    -- six one-core slots: socket0 of n0 (four), then socket1 of n0
    local j = assert(m:match(match.compiled{tasks = 6, cores_per_task = 1}))
    local got = {}
    for _, p in ipairs(j.picks) do
      if p.vertex:type() == "core" then got[#got + 1] = p.vertex:parent():parent():name() ..
        "/" .. p.vertex:id() end
    end
    assert.same({"n0/0", "n0/1", "n0/2", "n0/3", "n0/4", "n0/5"}, got)
    -- the second to fourth and the sixth resumed; the fifth walked again
    assert.equal(4, m:stats().slots_resumed)
    m:close()
  end)
end)
