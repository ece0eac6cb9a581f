-- status_replan_spec: a reservation on a vertex whose status leaves "up"
-- (v:set_status("down") or "drained", on the vertex or above it) is
-- planned again before the matcher goes on, as acquisition plans those
-- on the targets it takes away: it never starts on the vertex that went
-- away.
local core = require("grove.core")
local match = require("match_helper")
local grove = require("grove")
local R = grove.cluster.resources

-- three nodes of 4 cores
local function three()
  return grove.cluster "c" { R.node(3, {hostnames = "n[0-2]"}) { R.core(4) } }
end

local function node(g, name)
  for v in g:vertices() do
    if v:type() == "node" and v:name() == name then return v end
  end
end

local function nodes_of(j)
  return match.node_names(j, true)
end

local function js(n, d)
  return grove.jobspec{nodes = n, cores_per_task = 4, exclusive = true, duration = d}
end

local function text(list)
  local t = {}
  for _, e in ipairs(list) do t[#t + 1] = ("%s %d %d"):format(e.event, e.id, e.at) end
  return t
end

-- The queued events as text, then none queued.
local function events(m)
  return text(m:events{clear = true})
end

describe("a reservation whose vertices leave up", function()
  for _, status in ipairs{"down", "drained"} do
    it("is planned again when a node it holds goes " .. status, function()
      local g = three()
      local m = core.matcher(g)
      m:set_policy("low")
      assert(m:match(js(2, 100)))                                   -- job 1: n0 n1 to 100
      assert(m:match(js(1, 300)))                                   -- job 2: n2 to 300
      local r = assert(m:match(js(1, 50), "allocate_orelse_reserve")) -- job 3: n0 at 100
      assert.same({"reserved", 100, "n0"}, {r.state, r.start, nodes_of(r)})
      node(g, "n0"):set_status(status)
      local j = m:job(3)
      assert.same({"reserved", 100, "n1"}, {j.state, j.start, nodes_of(j)})
      assert.same({"replanned 3 100"}, events(m))
      -- at 100 it starts on n1, never on n0
      assert.same({"end 1 100", "start 3 100"}, text(m:set_now(100)))
      assert.equal("n1", nodes_of(m:job(3)))
    end)
  end

  it("moves later when it must, and is dropped when it fits nowhere", function()
    local g = three()
    local m = core.matcher(g)
    m:set_policy("low")
    assert(m:match(js(2, 100)))                                     -- job 1: n0 n1 to 100
    assert(m:match(js(1, 300)))                                     -- job 2: n2 to 300
    assert(m:match(js(2, 50), "allocate_orelse_reserve"))           -- job 3: n0 n1 at 100
    node(g, "n1"):set_status("down")
    -- a status change above the picks counts too: the cluster is up, n1 is not
    local j = assert(m:match(js(1, 10), "allocate_orelse_reserve")) -- the match catches up first
    assert.same({"replanned 3 300"}, events(m))
    assert.same({300, "n0 n2"}, {m:job(3).start, nodes_of(m:job(3))})
    assert.same({"reserved", 100, "n0"}, {j.state, j.start, nodes_of(j)})
    node(g, "n2"):set_status("drained")
    assert.is_nil(m:job(3))
    assert.same({"dropped 3 0"}, events(m))
    assert.same({"reserved", 100}, {m:job(4).state, m:job(4).start})
  end)

  it("is left alone by status changes elsewhere and by a vertex coming back up", function()
    local g = three()
    local m = core.matcher(g)
    m:set_policy("low")
    assert(m:match(js(3, 100)))
    assert(m:match(js(1, 50), "allocate_orelse_reserve"))           -- job 2: n0 at 100
    node(g, "n2"):set_status("down")
    node(g, "n2"):set_status("up")
    node(g, "n1"):set_status("drained")
    assert.same({100, "n0"}, {m:job(2).start, nodes_of(m:job(2))})
    assert.same({}, events(m))
  end)
end)
