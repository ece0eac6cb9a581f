-- Every shipped placement policy on each request shape a user writes
-- first (one core; several cores; one node with cores; a whole node;
-- several nodes; cores with a GPU; one node with cores and a GPU), on a
-- machine of racks of nodes of 2 sockets with GPUs on some nodes; hooks
-- that change nothing (an order that leaves its lists as they are, a prune
-- that prunes nothing, a constant score, select = "first"), which must
-- place exactly as the policy without them; and orders limited with
-- `when`, which sort the nodes of the whole machine and leave the other
-- levels in their policy's order.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local match = require("match_helper")

local BUILTINS, SHAPES, places = match.BUILTINS, match.SHAPES, match.places
local socketed = match.socketed

local function parse(text, name)
  return assert(core.policy_parse(text, name or "shape.lua"))
end

local function twin(name)
  return assert(core.policy_load("policies/" .. name .. ".lua"))
end

-- Where three jobs of each shape go under each shipped policy, one after
-- the other on match.socketed() (2 racks of n0-n2 and n3-n5; GPUs on n1
-- and n4), as docs/policies.md states the rules: "n3/c5" a core, "n1/g0"
-- a GPU, "n3!" a node held whole, " | " between jobs.  low and high rank
-- the slots of a fixed count by the sums of their ids across the homes,
-- as the reference engine does; among more than 16 equal slots (the 48
-- one-core slots of the machine) they come in the order the reference
-- engine's sort leaves them (n0, n5, n4 under low), among fewer in graph
-- order (the 12 three-core slots, the 4 slots of two cores and a GPU).
local EXPECT = {
  first = {
    ["one core"] = "n0/c0 | n0/c1 | n0/c2",
    ["several cores"] = "n0/c0,n0/c1,n0/c2 | n0/c4,n0/c5,n0/c6 | n1/c0,n1/c1,n1/c2",
    ["one node with cores"] = "n0/c0,n0/c1 | n0/c2,n0/c3 | n0/c4,n0/c5",
    ["whole node"] = "n0! | n1! | n2!",
    ["several nodes"] = "n0/c0,n1/c0 | n0/c1,n1/c1 | n0/c2,n1/c2",
    ["cores with a GPU"] = "n1/c0,n1/c1,n1/g0 | n1/c4,n1/c5,n1/g1 | n4/c0,n4/c1,n4/g0",
    ["one node with cores and a GPU"] =
      "n1/c0,n1/c1,n1/g0 | n1/c4,n1/c5,n1/g1 | n4/c0,n4/c1,n4/g0",
  },
  low = {
    ["one core"] = "n0/c0 | n5/c0 | n4/c0",
    ["several cores"] = "n0/c0,n0/c1,n0/c2 | n1/c0,n1/c1,n1/c2 | n2/c0,n2/c1,n2/c2",
    ["one node with cores"] = "n0/c0,n0/c1 | n0/c2,n0/c3 | n0/c4,n0/c5",
    ["whole node"] = "n0! | n1! | n2!",
    ["several nodes"] = "n0/c0,n1/c0 | n0/c1,n1/c1 | n0/c2,n1/c2",
    ["cores with a GPU"] = "n1/c0,n1/c1,n1/g0 | n4/c0,n4/c1,n4/g0 | n1/c4,n1/c5,n1/g1",
    ["one node with cores and a GPU"] =
      "n1/c0,n1/c1,n1/g0 | n1/c4,n1/c5,n1/g1 | n4/c0,n4/c1,n4/g0",
  },
  high = {
    ["one core"] = "n3/c7 | n2/c7 | n4/c7",
    ["several cores"] = "n0/c5,n0/c6,n0/c7 | n1/c5,n1/c6,n1/c7 | n2/c5,n2/c6,n2/c7",
    ["one node with cores"] = "n5/c6,n5/c7 | n5/c4,n5/c5 | n5/c2,n5/c3",
    ["whole node"] = "n5! | n4! | n3!",
    ["several nodes"] = "n4/c7,n5/c7 | n4/c6,n5/c6 | n4/c5,n5/c5",
    ["cores with a GPU"] = "n1/c6,n1/c7,n1/g1 | n4/c6,n4/c7,n4/g1 | n1/c2,n1/c3,n1/g0",
    ["one node with cores and a GPU"] =
      "n4/c6,n4/c7,n4/g1 | n4/c2,n4/c3,n4/g0 | n1/c6,n1/c7,n1/g1",
  },
  hinode = {
    ["one core"] = "n5/c7 | n5/c6 | n5/c5",
    ["several cores"] = "n5/c5,n5/c6,n5/c7 | n5/c1,n5/c2,n5/c3 | n4/c5,n4/c6,n4/c7",
    ["one node with cores"] = "n5/c6,n5/c7 | n5/c4,n5/c5 | n5/c2,n5/c3",
    ["whole node"] = "n5! | n4! | n3!",
    ["several nodes"] = "n4/c7,n5/c7 | n4/c6,n5/c6 | n4/c5,n5/c5",
    ["cores with a GPU"] = "n4/c6,n4/c7,n4/g1 | n4/c2,n4/c3,n4/g0 | n1/c6,n1/c7,n1/g1",
    ["one node with cores and a GPU"] =
      "n4/c6,n4/c7,n4/g1 | n4/c2,n4/c3,n4/g0 | n1/c6,n1/c7,n1/g1",
  },
  lonodex = {
    ["one core"] = "n0! | n1! | n2!",
    ["several cores"] = "n0! | n1! | n2!",
    ["one node with cores"] = "n0! | n1! | n2!",
    ["whole node"] = "n0! | n1! | n2!",
    ["several nodes"] = "n0!,n1! | n2!,n3! | n4!,n5!",
    ["cores with a GPU"] = "n1! | n4! | no matching resources",
    ["one node with cores and a GPU"] = "n1! | n4! | no matching resources",
  },
  hinodex = {
    ["one core"] = "n5! | n4! | n3!",
    ["several cores"] = "n5! | n4! | n3!",
    ["one node with cores"] = "n5! | n4! | n3!",
    ["whole node"] = "n5! | n4! | n3!",
    ["several nodes"] = "n4!,n5! | n2!,n3! | n0!,n1!",
    ["cores with a GPU"] = "n4! | n1! | no matching resources",
    ["one node with cores and a GPU"] = "n4! | n1! | no matching resources",
  },
  -- untouched first, highest id first: the other rack's highest node next
  fresh = {
    ["one core"] = "n5/c7 | n2/c7 | n4/c7",
    ["several cores"] = "n5/c5,n5/c6,n5/c7 | n2/c5,n2/c6,n2/c7 | n4/c5,n4/c6,n4/c7",
    ["one node with cores"] = "n5/c6,n5/c7 | n2/c6,n2/c7 | n4/c6,n4/c7",
    ["whole node"] = "n5! | n2! | n4!",
    ["several nodes"] = "n4/c7,n5/c7 | n1/c7,n2/c7 | n3/c7,n4/c3",
    ["cores with a GPU"] = "n4/c6,n4/c7,n4/g1 | n1/c6,n1/c7,n1/g1 | n4/c2,n4/c3,n4/g0",
    ["one node with cores and a GPU"] =
      "n4/c6,n4/c7,n4/g1 | n1/c6,n1/c7,n1/g1 | n4/c2,n4/c3,n4/g0",
  },
  freshnodex = {
    ["one core"] = "n5! | n2! | n4!",
    ["several cores"] = "n5! | n2! | n4!",
    ["one node with cores"] = "n5! | n2! | n4!",
    ["whole node"] = "n5! | n2! | n4!",
    ["several nodes"] = "n4!,n5! | n1!,n2! | n0!,n3!",
    ["cores with a GPU"] = "n4! | n1! | no matching resources",
    ["one node with cores and a GPU"] = "n4! | n1! | no matching resources",
  },
  -- the most free cores, then the most free GPUs: the GPU nodes first
  spread = {
    ["one core"] = "n1/c0 | n4/c0 | n0/c0",
    ["several cores"] = "n1/c0,n1/c1,n1/c2 | n4/c0,n4/c1,n4/c2 | n0/c0,n0/c1,n0/c2",
    ["one node with cores"] = "n1/c0,n1/c1 | n4/c0,n4/c1 | n0/c0,n0/c1",
    ["whole node"] = "n1! | n4! | n0!",
    ["several nodes"] = "n1/c0,n4/c0 | n0/c0,n2/c0 | n3/c0,n5/c0",
    ["cores with a GPU"] = "n1/c0,n1/c1,n1/g0 | n4/c0,n4/c1,n4/g0 | n1/c4,n1/c5,n1/g1",
    ["one node with cores and a GPU"] =
      "n1/c0,n1/c1,n1/g0 | n4/c0,n4/c1,n4/g0 | n1/c4,n1/c5,n1/g1",
  },
  -- jobs without GPUs on the nodes with the fewest free GPUs, jobs with
  -- GPUs on the most
  gpu = {
    ["one core"] = "n0/c0 | n0/c1 | n0/c2",
    ["several cores"] = "n0/c0,n0/c1,n0/c2 | n0/c4,n0/c5,n0/c6 | n2/c0,n2/c1,n2/c2",
    ["one node with cores"] = "n0/c0,n0/c1 | n0/c2,n0/c3 | n0/c4,n0/c5",
    ["whole node"] = "n0! | n2! | n3!",
    ["several nodes"] = "n0/c0,n2/c0 | n0/c1,n2/c1 | n0/c2,n2/c2",
    ["cores with a GPU"] = "n1/c0,n1/c1,n1/g0 | n4/c0,n4/c1,n4/g0 | n1/c4,n1/c5,n1/g1",
    ["one node with cores and a GPU"] =
      "n1/c0,n1/c1,n1/g0 | n4/c0,n4/c1,n4/g0 | n1/c4,n1/c5,n1/g1",
  },
}
-- firstnodex places whole nodes lowest id first, as lonodex does here
EXPECT.firstnodex = EXPECT.lonodex
-- lonode's lowest ids first are graph order here; locality's tightest run
-- of ids is the first candidates in graph order; variation, with no
-- perf_class anywhere, keeps every node in the worst class and takes
-- candidates in order: all three place as first does
EXPECT.lonode = EXPECT.first
EXPECT.locality = EXPECT.first
EXPECT.variation = EXPECT.first

describe("the shipped policies, one request shape at a time", function()
  for _, name in ipairs(BUILTINS) do
    for _, shape in ipairs(SHAPES) do
      it(("%s: %s"):format(name, shape[1]), function()
        local want = assert(EXPECT[name][shape[1]])
        assert.equal(want, places(name, shape[2], socketed))
        assert.equal(want, places(twin(name), shape[2], socketed))
      end)
    end
  end
end)

-- What each built-in declares of its order by id (hooks' id_order): an
-- order function declares the same to place as the built-in.
local ID_ORDER = {low = "ascending", lonode = "ascending", lonodex = "ascending",
  high = "descending", hinode = "descending", hinodex = "descending"}
local SCORES = {spread = true, gpu = true}
local SELECT_BEST = {spread = true, gpu = true, locality = true, variation = true}

-- Hooks that change nothing, each as the text of the fields it adds to a
-- policy, and the bases on which it changes nothing: an order leaves every
-- list in the order the base gives it (graph order, or low's, high's ...;
-- on a base that ranks slots by id the ranking stays, with nothing
-- declared); a prune prunes nothing; a
-- score scores every candidate the same (where the base has no score of
-- its own, which it would replace); select = "first" is the select of a
-- base that neither scores nor chooses.
local NOCHANGE = {
  {"an order function returning nil", "order = function(parent, children) return nil end",
    order = true},
  {"an order function leaving the list in place", "order = function(parent, children) end",
    order = true},
  {"an order function returning a copy of its list", [[
    order = function(parent, children)
      local t = {}
      for i, v in ipairs(children) do t[i] = v end
      return t
    end]], order = true},
  {"an order limited to a type no list holds", "order = {key = 'id', when = 'ssd'}",
    order = true},
  {"a prune that prunes nothing", "prune = function(v, ctx) return false end"},
  {"a constant score", "score = function(v, ctx) return 0 end",
    skip = SCORES},
  {"select = 'first'", "select = 'first'", skip = SELECT_BEST},
}

-- The policy text of hook hk on base (no base field for first: what a
-- policy written from nothing is).
local function with_hook(base, hk)
  local fields = {hk[2]}
  if base ~= "first" then fields[#fields + 1] = ("base = %q"):format(base) end
  return "return {" .. table.concat(fields, ",\n") .. "}"
end

describe("a hook that changes nothing places as the policy without it", function()
  local baseline = {}
  for _, base in ipairs(BUILTINS) do
    for _, hk in ipairs(NOCHANGE) do
      if not (hk.skip and hk.skip[base]) then
        for _, shape in ipairs(SHAPES) do
          it(("%s on %s: %s"):format(hk[1], base, shape[1]), function()
            local key = base .. "\0" .. shape[1]
            baseline[key] = baseline[key] or places(base, shape[2], socketed)
            local p = parse(with_hook(base, hk), "nochange.lua")
            assert.equal(baseline[key], places(p, shape[2], socketed))
          end)
        end
      end
    end
  end

  it("an order function that moves lists on an id-ordered base places in its own order",
    function()
      -- the nodes of each rack with the degraded ones last: high's ranking
      -- by id would put a one-core job on n3 (n5 and n2 degraded), low's
      -- on n0 (n0 and n3 degraded); the order's own puts it on the first
      -- node it lists, and a whole node likewise
      local text = [[return {base = %q, order = function(parent, children)
        local good, worse = {}, {}
        for _, c in ipairs(children) do
          local bad = c:type() == "node" and (c:id() == %d or c:id() == %d)
          table.insert(bad and worse or good, c)
        end
        for _, c in ipairs(worse) do good[#good + 1] = c end
        return good
      end}]]
      local p = parse(text:format("high", 5, 2))
      assert.equal("descending", p:hooks().id_order)
      assert.equal("follow", p:hooks().id_check)
      assert.equal("n4/c7 | n4/c6 | n4/c5", places(p, {tasks = 1}, socketed))
      assert.equal("n4! | n3! | n5!", places(p, {nodes = 1, exclusive = true}, socketed))
      p = parse(text:format("low", 0, 3))
      assert.equal("n1/c0 | n1/c1 | n1/c2", places(p, {tasks = 1}, socketed))
      assert.equal("n1/c0,n1/c1,n1/c2 | n1/c4,n1/c5,n1/c6 | n2/c0,n2/c1,n2/c2",
        places(p, {tasks = 1, cores_per_task = 3}, socketed))
      -- degraded nodes that are last in the base's order already: its lists
      -- stay as they were, and so does its ranking
      assert.equal(EXPECT.high["one core"],
        places(parse(text:format("high", 0, 3)), {tasks = 1}, socketed))
    end)

  it("a declared id_order the order does not keep fails the match, naming the lists",
    function()
      local p = parse([[return {id_order = "ascending", order = function(parent, children)
        table.sort(children, function(a, b) return a:id() > b:id() end)
      end}]])
      assert.equal("raise", p:hooks().id_check)
      local err = places(p, {tasks = 1}, socketed, 1)
      assert.matches('id_order = "ascending", but its order put rack1 before rack0 below ', err,
        1, true)
    end)
end)

describe("id_order", function()
  it("is declared by the id-ordered built-ins and their twins", function()
    for _, name in ipairs(BUILTINS) do
      assert.equal(ID_ORDER[name], twin(name):hooks().id_order, name)
    end
  end)

  it("comes from order = {key = 'id'} without when, or from the base", function()
    assert.equal("ascending", parse("return {order = {key = 'id'}}"):hooks().id_order)
    assert.equal("descending",
      parse("return {order = {key = 'id', descending = true}}"):hooks().id_order)
    assert.equal("descending", parse("return {base = 'hinode'}"):hooks().id_order)
    assert.equal("descending",
      parse("return {base = 'high', prune = function() end}"):hooks().id_order)
  end)

  it("is never read off an order function, a key function or an order with when", function()
    assert.is_nil(parse("return {order = function() end}"):hooks().id_order)
    assert.is_nil(parse("return {order = {key = function(v) return v:id() end}}")
      :hooks().id_order)
    assert.is_nil(parse("return {order = {key = 'id', when = 'node'}}"):hooks().id_order)
    assert.is_nil(parse("return {base = 'high', order = {key = 'rank'}}"):hooks().id_order)
    assert.is_nil(parse("return {base = 'high', id_order = 'none'}"):hooks().id_order)
  end)
end)

describe("an order limited with when", function()
  local ONE, NODE = {tasks = 1}, {nodes = 1, cores_per_node = 1}

  it("ascending puts a one-core job on the lowest node, graph order inside it", function()
    local p = parse("return {order = {key = 'id', when = 'node'}}")
    assert.equal("n0/c0 | n0/c1 | n0/c2", places(p, ONE, socketed))
    assert.equal("n0/c0 | n0/c1 | n0/c2", places(p, NODE, socketed))
  end)

  it("descending puts it on the highest node of the machine, graph order inside it", function()
    local p = parse("return {order = {key = 'id', descending = true, when = 'node'}}")
    assert.equal("n5/c0 | n5/c1 | n5/c2", places(p, ONE, socketed))
    assert.equal("n5/c0 | n5/c1 | n5/c2", places(p, NODE, socketed))
    assert.equal("n5! | n4! | n3!", places(p, {nodes = 1, exclusive = true}, socketed))
    assert.equal("n4/c0,n5/c0 | n4/c1,n5/c1 | n4/c2,n5/c2",
      places(p, {nodes = 2, cores_per_node = 1}, socketed))
  end)

  it("leaves the other levels in the base's order", function()
    -- nodes lowest first, sockets and cores as high orders them
    local p = parse("return {base = 'high', order = {key = 'id', when = 'node'}}")
    assert.equal("n0/c7 | n0/c6 | n0/c5", places(p, ONE, socketed))
    assert.equal("n0/c6,n0/c7 | n0/c4,n0/c5 | n0/c2,n0/c3",
      places(p, {nodes = 1, cores_per_node = 2}, socketed))
  end)

  -- Nodes by a health property, healthy first: three degraded nodes, two
  -- of them in the first rack (n0, n1) and one in the second (n5).  Jobs
  -- of one shape, placed until none fits, go to healthy nodes until none
  -- has room for one, whichever rack they are in, and only then to the
  -- degraded ones: no job on a healthy node follows one on a degraded node.
  -- (Sorting rack by rack, the first rack's degraded nodes came before the
  -- second rack's healthy ones.)
  local degraded = {[0] = true, [1] = true, [5] = true}
  local function health()
    local props = {}
    for i = 0, 5 do props[i] = {health = degraded[i] and "0" or "1"} end
    return socketed{properties = props}
  end
  -- The sorted list of the machine's nodes is kept from one match to the
  -- next (a key read from the graph gives the same order until the graph
  -- changes): a property set between two matches is followed at once.
  it("follows a node's property set between two matches", function()
    local g = health()
    local m = core.matcher(g)
    assert(m:set_policy(parse([[return {order = {key = "property:health", descending = true,
      when = "node"}}]])))
    local function node_of(j)
      for _, pk in ipairs(j.picks) do
        if pk.vertex:type() == "node" then return pk.vertex:name() end
      end
    end
    assert.equal("n4", node_of(assert(m:match(match.compiled(ONE), "allocate"))))
    for v in g:vertices{type = "node"} do
      if v:name() == "n4" or v:name() == "n3" then v:set_property("health", "0") end
      if v:name() == "n0" then v:set_property("health", "2") end
    end
    assert.equal("n0", node_of(assert(m:match(match.compiled(ONE), "allocate"))))
    assert.equal("n0", node_of(assert(m:match(match.compiled(NODE), "allocate"))))
  end)

  for _, shape in ipairs(SHAPES) do
    it("puts jobs on degraded nodes only when no healthy one has room: " .. shape[1], function()
      local p = parse([[return {order = {key = "property:health", descending = true,
        when = "node"}}]])
      local m = core.matcher(health())
      assert(m:set_policy(p))
      local seq = {}
      for _ = 1, 64 do
        local j = m:match(match.compiled(shape[2]), "allocate")
        if not j then break end
        local sick = false
        for _, pk in ipairs(j.picks) do
          if pk.vertex:type() == "node" and degraded[pk.vertex:id()] then sick = true end
        end
        seq[#seq + 1] = sick and "D" or "h"
      end
      local s = table.concat(seq)
      assert.matches("^h+D*$", s)
    end)
  end
end)
