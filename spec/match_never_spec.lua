-- match_never_spec: a request that can never fit is answered ENODEV by
-- every mode, with the first level of the request the graph cannot meet,
-- read from its sizes whatever is in use or down; a request that only
-- waits is answered EBUSY.
local core = require("grove.core")
local grove = require("grove")

-- n0 and n1 with 36 cores, n2 with 20 cores and the property "big".
local function uneven()
  local g = core.graph()
  local c = g:add_vertex{type = "cluster", basename = "c", id = 0}
  for i, ncores in ipairs{36, 36, 20} do
    local n = g:add_vertex{type = "node", basename = "n", id = i - 1}
    g:add_edge(c, n)
    for k = 1, ncores do
      g:add_edge(n, g:add_vertex{type = "core", basename = "core", id = k - 1})
    end
    if i == 3 then n:set_property("big", "1") end
  end
  return g
end

local MODES = {"allocate", "allocate_orelse_reserve", "allocate_with_satisfiability",
  "satisfiability", "without_allocating", "without_allocating_future"}

local function js(t)
  t.duration = t.duration or 10
  return grove.jobspec(t)
end

describe("a request that can never fit", function()
  it("is ENODEV in every mode, naming the first level the graph cannot meet", function()
    local g = uneven()
    local m = core.matcher(g)
    for _, c in ipairs {
      {{nodes = 1, cores_per_task = 40}, "no node with 40 cores: largest has 36"},
      {{tasks = 1, cores_per_task = 40}, "no node holds a slot of 40 cores: largest has 36"},
      {{nodes = 4, cores_per_task = 1}, "4 nodes requested: the graph has 3"},
      {{nodes = 3, cores_per_task = 30}, "only 2 nodes with 30 cores: 3 requested"},
      {{nodes = 1, cores_per_task = 1, gpus_per_task = 1}, "no gpu in the graph"},
      {{nodes = 1, cores_per_task = 30, constraints = {"big"}},
        "no node that meets the constraint with 30 cores: largest has 20"},
      {{nodes = 2, cores_per_task = 10, constraints = {"big"}},
        "only 1 node that meets the constraint with 10 cores: 2 requested"},
    } do
      for _, mode in ipairs(MODES) do
        assert.same({nil, c[2], "ENODEV"}, {m:match(js(c[1]), mode)})
      end
    end
  end)

  it("is told from sizes whatever is in use or down; what only waits is EBUSY", function()
    local g = uneven()
    local m = core.matcher(g)
    assert(m:match(js{nodes = 3, cores_per_task = 20, exclusive = true, duration = 100}))
    for v in g:vertices() do
      if v:type() == "node" and v:name() == "n0" then v:set_status("down") end
    end
    -- busy and one node down: 36 cores still exist, 40 never did
    assert.same({nil, "no matching resources", "EBUSY"},
      {m:match(js{nodes = 1, cores_per_task = 36}, "allocate")})
    assert.same({nil, "no matching resources", "EBUSY"},
      {m:match(js{nodes = 1, cores_per_task = 36}, "without_allocating")})
    assert.same({nil, "no node with 40 cores: largest has 36", "ENODEV"},
      {m:match(js{nodes = 1, cores_per_task = 40}, "allocate")})
    -- the satisfiability check says satisfiable for what waits
    assert.is_table(m:match(js{nodes = 1, cores_per_task = 36}, "satisfiability"))
  end)
end)
