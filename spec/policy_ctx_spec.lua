-- What hooks are told: ctx with the whole request at every level, views
-- that answer for the window being tried, and hooks limited to the types
-- a policy names (prune_types, score_types).
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local expect = require("expect")
local match = require("match_helper")

local function parse(text)
  return assert(core.policy_parse(text, "inline.lua"))
end

-- cluster0 > rack0, rack1 > two nodes each > 4 cores + 1 gpu
local function machine()
  local g = core.graph()
  local c = g:add_vertex { type = "cluster", id = 0 }
  for r = 0, 1 do
    local rack = g:add_vertex { type = "rack", id = r }
    g:add_child(c, rack)
    for n = 0, 1 do
      local node = g:add_vertex { type = "node", id = 2 * r + n }
      g:add_child(rack, node)
      for k = 0, 3 do g:add_child(node, g:add_vertex { type = "core", id = k }) end
      g:add_child(node, g:add_vertex { type = "gpu", id = 0 })
    end
  end
  return g
end

-- 2 nodes, each a slot of 2 cores, for 600 s, with a user attribute
local REQUEST = {
  version = 9999,
  resources = {{type = "node", count = 2, with = {{type = "slot", count = 1,
    label = "default", with = {{type = "core", count = 2}}}}}},
  tasks = {{command = {"app"}, slot = "default", count = {per_slot = 1}}},
  attributes = {system = {duration = 600}, user = {team = "blue"}},
}

-- A policy whose prune raises ctx, written out, when cond(v, ctx) holds.
local DUMP = [[
  local function dump(x)
    if type(x) ~= "table" then return tostring(x) end
    local keys = {}
    for k in pairs(x) do keys[#keys + 1] = k end
    table.sort(keys)
    local out = {}
    for _, k in ipairs(keys) do out[#out + 1] = k .. "=" .. dump(x[k]) end
    return "{" .. table.concat(out, " ") .. "}"
  end
]]

local function ctx_when(cond)
  local m = core.matcher(machine())
  assert(m:set_policy(parse(DUMP .. "return {prune = function(v, ctx)\n if " .. cond
    .. " then error(dump(ctx), 0) end\n return false end}")))
  local _, msg, code = m:match(REQUEST)
  assert.equal("ECANCELED", code)
  return (msg:gsub("^policy inline: prune hook: inline%.lua:%d+: ", ""))
end

describe("ctx", function()
  -- ctx as prune sees it where cond holds: the request is the same at
  -- every level; count, found, need and type say where the walk is.
  local function ctx_text(count, found, need, type)
    return ("{attributes={system={duration=600} user={team=blue}} count=%d duration=600 "
      .. "end=600 found={%s} job=1 need={%s} slot={core=2} slots=2 start=0 "
      .. "total={core=4 node=2}%s}"):format(count, found, need, type and " type=" .. type or "")
  end

  -- name, cond, count, found, need, type
  for _, c in ipairs {
    {"carries the whole request where the walk passes through a rack",
      "v:type() == 'rack'", 2, "core=0 node=0", "core=4 node=2", "node"},
    {"counts what is found: at the second node, one node and two cores are",
      "v:type() == 'node' and ctx.found.node == 1", 1, "core=2 node=1", "core=2 node=1", "node"},
    -- the slot's home is searched below the node just taken: no core yet
    {"inside a slot names no type, and only the types below the slot in need",
      "v:type() == 'core'", 0, "core=0 node=1", "core=4", nil},
  } do
    it(c[1], function()
      assert.equal(ctx_text(c[3], c[4], c[5], c[6]), ctx_when(c[2]))
    end)
  end

  it("gives prune and score the same count for the same candidate", function()
    local m = core.matcher(machine())
    assert(m:set_policy(parse([[
      local seen = {}
      return {
        prune = function(v, ctx)
          if v:type() == "node" and ctx.found.node == 0 then seen[v] = ctx.count end
          return false
        end,
        score = function(v, ctx)
          if v:type() == "node" and seen[v] ~= ctx.count then
            error(("prune said %s, score says %d"):format(tostring(seen[v]), ctx.count))
          end
          return 0
        end,
        score_types = "node",
      }]])))
    assert(m:match(REQUEST))
  end)
end)

describe("ctx.need", function()
  -- 1 node with a slot of 2 cores and a gpu
  local GPU = {
    version = 9999,
    resources = {{type = "node", count = 1, with = {{type = "slot", count = 1,
      label = "default", with = {{type = "core", count = 2}, {type = "gpu", count = 1}}}}}},
    tasks = {{command = {"app"}, slot = "default", count = {per_slot = 1}}},
    attributes = {system = {duration = 600}},
  }

  it("raises on a key that is no resource type, offering the closest, listing what the " ..
    "request asks for", function()
    local m = core.matcher(machine())
    assert(m:set_policy(parse("return {score = function(v, ctx)\n" ..
      "  return ctx.need.gpus\nend}")))
    core.set_suggest(require("grove.suggest").hint)
    assert.same({nil, "policy inline: score hook: inline.lua:2: ctx.need has no type 'gpus' " ..
      "(did you mean 'gpu'?): the request asks for node, core, gpu, and the graph has no type " ..
      "'gpus'", "ECANCELED"}, {m:match(GPU)})
    -- the closest of the graph's types too, when the request does not name it
    assert.same({nil, "policy inline: score hook: inline.lua:2: ctx.need has no type 'gpus' " ..
      "(did you mean 'gpu'?): the request asks for node, core, and the graph has no type " ..
      "'gpus'", "ECANCELED"}, {m:match(REQUEST)})
    -- a key longer than a type name's 64 bytes: no offer asked of the host
    assert(m:set_policy(parse("return {score = function(v, ctx)\n" ..
      "  return ctx.need[string.rep('gpu', 30)]\nend}")))
    local _, msg = m:match(GPU)
    assert.equal("policy inline: score hook: inline.lua:2: ctx.need has no type '" ..
      string.rep("gpu", 30) .. "': the request asks for node, core, gpu, and the graph has no " ..
      "type '" .. string.rep("gpu", 30) .. "'", msg)
    assert(m:set_policy(parse("return {score = function(v, ctx)\n" ..
      "  return ctx.need.gpus\nend}")))
    -- grove.core alone: no offer
    core.set_suggest(nil)
    assert.same({nil, "policy inline: score hook: inline.lua:2: ctx.need has no type 'gpus': " ..
      "the request asks for node, core, gpu, and the graph has no type 'gpus'", "ECANCELED"},
      {m:match(GPU)})
    core.set_suggest(require("grove.suggest").hint)
  end)

  it("reads nil for a type of the graph the request does not need there", function()
    local m = core.matcher(machine())
    -- REQUEST asks no gpu: ctx.need.gpu is nil, ctx.need[1] too
    assert(m:set_policy(parse("return {score = function(v, ctx)\n" ..
      "  assert(ctx.need.gpu == nil and ctx.need[1] == nil)\n" ..
      "  return ctx.need.core or 0\nend}")))
    assert.equal("allocated", assert(m:match(REQUEST)).state)
  end)
end)

describe("prune_types and score_types", function()
  it("keep a node-level score off cores and racks", function()
    local p = parse([[
      return {
        score = function(v) assert(v:type() == "node", "scored a " .. v:type()) return v:id() end,
        prune = function(v) assert(v:type() == "rack", "pruned a " .. v:type()) return false end,
        score_types = {"node"}, prune_types = "rack",
      }]])
    assert.same({"node"}, p:hooks().score_types)
    assert.same({"rack"}, p:hooks().prune_types)
    local m = core.matcher(machine())
    assert(m:set_policy(p))
    local j = assert(m:match(REQUEST))
    local nodes = {}
    for _, pk in ipairs(j.picks) do
      if pk.vertex:type() == "node" then nodes[#nodes + 1] = pk.vertex:name() end
    end
    assert.same({"node2", "node3"}, nodes) -- the highest ids scored best
  end)

  it("are checked when the policy loads", function()
    expect.fails("EINVAL", "inline.lua: score_types must be a type name or a non-empty array "
      .. "of them", core.policy_parse("return {score_types = {}}", "inline.lua"))
    expect.fails("EINVAL", "inline.lua: prune_types must hold type names (strings)",
      core.policy_parse("return {prune_types = {'node', 3}}", "inline.lua"))
  end)
end)

local function node_paths(j)
  local out = {}
  for _, pk in ipairs(j.picks) do
    if pk.vertex:type() == "node" then out[#out + 1] = pk.vertex:path() end
  end
  return out
end

describe("the example policies (examples/policies/)", function()
  it("rackfit.lua skips racks with fewer free cores than the request still needs", function()
    local m = core.matcher(machine())
    -- rack0 keeps 2 free cores: one job of 3 cores on each of its nodes
    for _ = 1, 2 do assert(m:match(match.nodes_yaml(1, 3, nil, 600))) end
    assert.same({"/cluster0/rack0/node0", "/cluster0/rack0/node1"},
      node_paths(assert(m:match(match.nodes_yaml(2, 1, nil, 600), "without_allocating"))))
    assert(m:set_policy(assert(core.policy_load("examples/policies/rackfit.lua"))))
    assert.same({"/cluster0/rack1/node2", "/cluster0/rack1/node3"},
      node_paths(assert(m:match(REQUEST))))
  end)

  it("aftercare.lua takes the nodes that stay free after the job ends", function()
    local m = core.matcher(machine())
    -- node0 and node1 reserved from 600 s on: fill all for 600 s, reserve
    -- two nodes after it, give the fill back
    local fill = assert(m:match(match.nodes_yaml(4, 4, nil, 600)))
    local later = assert(m:match(match.nodes_yaml(2, 4, nil, 3600), "allocate_orelse_reserve"))
    assert.equal(600, later.start)
    assert.same({"/cluster0/rack0/node0", "/cluster0/rack0/node1"}, node_paths(later))
    assert(m:cancel(fill.id))
    local job = match.nodes_yaml(2, 1, nil, 600)
    assert.same({"/cluster0/rack0/node0", "/cluster0/rack0/node1"},
      node_paths(assert(m:match(job, "without_allocating"))))
    assert(m:set_policy(assert(core.policy_load("examples/policies/aftercare.lua"))))
    local j = assert(m:match(job))
    assert.equal("allocated", j.state)
    assert.same({"/cluster0/rack1/node2", "/cluster0/rack1/node3"}, node_paths(j))
  end)
end)

describe("views in hooks", function()
  -- A matcher on machine() with every core busy for the first hour, under
  -- the policy of text.
  local function busy_hour(text)
    local m = core.matcher(machine())
    assert(m:match(match.nodes_yaml(4, 4, nil, 3600)))
    assert(m:set_policy(parse(text)))
    return m
  end

  it("answer for the window being tried: a reservation sees what is free then", function()
    local m = busy_hour([[
      return {
        prune_types = "node",
        prune = function(v, ctx)
          local free = v:aggregate().core or 0
          assert(free == v:aggregate(ctx.start, 1).core, "the window is the default")
          if ctx.start == 0 then assert(free == 0, "all busy now") end
          return free < 2
        end,
      }]])
    local j = assert(m:match(REQUEST, "allocate_orelse_reserve"))
    assert.equal("reserved", j.state)
    assert.equal(3600, j.start)
  end)

  it("give available() for the window, and for another when asked", function()
    local m = busy_hour([[
      return {
        prune = function(v, ctx)
          if v:type() ~= "core" then return false end
          assert(v:available() == (ctx.start >= 3600 and 1 or 0), "window")
          assert(v:available(0, 10) == 0 and v:available(3600, 10) == 1, "given windows")
          assert(v:allocated(0) == 1 and v:allocated(7200) == 0, "allocated")
          return false
        end,
      }]])
    assert.equal(3600, assert(m:match(REQUEST, "allocate_orelse_reserve")).start)
  end)
end)
