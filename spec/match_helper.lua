-- match_helper.lua: the requests and the graph the matching specs
-- (match_spec, policy_spec, policy_twin_spec, sandbox_spec,
-- status_replan_spec) share:
-- the names of the built-in policies, jobspecs of one task per slot
-- "default", as tables or as YAML text of nodes with a slot of cores, a
-- request compiled from grove.jobspec's shorthand, and the example
-- cluster, the names of the nodes a job picked; for the random streams of
-- aggregate_blocks_spec and cancel_many_spec, a cluster of racks and what
-- a job got; and for policy_shapes_spec, a cluster of racks of nodes of
-- sockets with GPUs on some nodes, the request shapes a user writes
-- first, and where a few jobs of one shape go.  It holds no test and no
-- assertion.
local grove = require("grove")

local M = {}

-- The built-in policies, each with a C fast path and a Lua twin in
-- policies/NAME.lua.
M.BUILTINS = {"first", "low", "high", "lonode", "hinode", "lonodex", "hinodex",
  "firstnodex", "fresh", "freshnodex", "locality", "variation", "spread", "gpu"}

-- A small random generator of the specs' own: the same stream wherever
-- it runs.  lcg(seed)(n) is in [0, n).
function M.lcg(seed)
  local s = seed
  return function(n)
    s = (s * 1103515245 + 12345) % 2147483648
    return s % n
  end
end

-- The tiny example cluster (examples/tiny.lua), a new graph each call.
function M.tiny()
  return dofile "examples/tiny.lua"
end

-- A jobspec table: these resources, one task per slot "default", and
-- attributes.system.duration (seconds, nil for none).
function M.jobspec(resources, duration)
  return {
    version = 9999,
    resources = resources,
    tasks = {{command = {"app"}, slot = "default", count = {per_slot = 1}}},
    attributes = {system = {duration = duration}},
  }
end

-- The compiled jobspec of grove.jobspec's shorthand table t ({nodes = 1,
-- cores_per_node = 2}, ...); an error when it does not compile.
function M.compiled(t)
  return assert(grove.core.jobspec_from_table(grove.jobspec(t)))
end

-- A jobspec in YAML: count nodes, each with a slot of cores cores (in one
-- socket of each node when socket is true); the nodes say exclusive: true
-- or false when x is a boolean (nothing when nil); a duration when given.
function M.nodes_yaml(count, cores, x, duration, socket)
  local slot = [[
- type: slot
  count: 1
  label: default
  with:
    - type: core
      count: %d
]]
  if socket then
    slot = "- type: socket\n  count: 1\n  with:\n" .. slot:gsub("[^\n]+", "    %0")
  end
  return ([[
version: 9999
resources:
  - type: node
    count: %d
%s    with:
%stasks:
  - command: [app]
    slot: default
    count: {per_slot: 1}
attributes: {system: {%s}}
]]):format(count, x == nil and "" or ("    exclusive: %s\n"):format(x),
    slot:format(cores):gsub("[^\n]+", "      %0"),
    duration and "duration: " .. duration or "")
end

-- The names of the nodes a job picked, space-separated: in pick order, or
-- sorted when sorted is true.
function M.node_names(job, sorted)
  local t = {}
  for _, p in ipairs(job.picks) do
    if p.vertex:type() == "node" then t[#t + 1] = p.vertex:name() end
  end
  if sorted then table.sort(t) end
  return table.concat(t, " ")
end

-- A cluster of `racks` racks of `nodes` nodes (racks 0: the nodes right
-- below the cluster, as a machine read from R has them), each node of 4
-- cores and i % 3 GPUs, named n0.. with ranks 0..; the nodes of the
-- second half have the property "hi": the graph and its number of nodes
function M.racked(racks, nodes)
  local half = math.max(racks, 1) * nodes // 2
  return M.racks_of("bk", racks, nodes, function(g, n, i)
    for c = 0, 3 do assert(g:add_child(n, g:add_vertex{type = "core", id = c})) end
    for k = 0, i % 3 - 1 do assert(g:add_child(n, g:add_vertex{type = "gpu", id = k})) end
  end, function(i) return i >= half and {hi = ""} or nil end)
end

-- A cluster (basename) of `racks` racks of `nodes` nodes (racks 0: the
-- nodes right below the cluster), node i named n<i> with rank i and the
-- properties props(i) (props optional), filled by fill(g, node, i): the
-- graph and its number of nodes.
function M.racks_of(basename, racks, nodes, fill, props)
  local g = grove.core.graph()
  local root = g:add_vertex{type = "cluster", basename = basename, id = 0}
  local i = 0
  for r = 0, math.max(racks, 1) - 1 do
    local parent = root
    if racks > 0 then
      parent = g:add_vertex{type = "rack", id = r}
      assert(g:add_child(root, parent))
    end
    for _ = 1, nodes do
      local n = g:add_vertex{type = "node", id = i, rank = i, name = "n" .. i,
        properties = props and props(i) or nil}
      assert(g:add_child(parent, n))
      fill(g, n, i)
      i = i + 1
    end
  end
  return g, i
end

-- What a job got: its state, start and units ("n1/core0,..."), or the failure.
function M.placed(j, msg)
  if not j then return msg end
  local out = {}
  for _, p in ipairs(j.picks) do
    local t = p.vertex:type()
    if t == "core" or t == "gpu" then
      out[#out + 1] = p.vertex:parent():name() .. "/" .. t .. p.vertex:id()
    end
  end
  table.sort(out)
  return j.state .. "@" .. j.start .. ":" .. table.concat(out, ",")
end

-- A cluster of `racks` racks (default 2) of `per_rack` nodes (default 3),
-- node ids and ranks 0.. across the machine, named n0..; each node of 2
-- sockets (ids 0, 1) of 4 cores (ids 0-3 in socket0, 4-7 in socket1, as
-- hwloc numbers them); the nodes whose ids `gpus` lists (default {1, 4})
-- have a GPU in each socket (gpu0, gpu1); properties[id], when given, are
-- that node's properties.  opts: {racks =, per_rack =, gpus =,
-- properties =}.
function M.socketed(opts)
  opts = opts or {}
  local core = grove.core
  local g = core.graph()
  local root = g:add_vertex{type = "cluster", basename = "sk", id = 0}
  local gpu_on = {}
  for _, id in ipairs(opts.gpus or {1, 4}) do gpu_on[id] = true end
  local i = 0
  for r = 0, (opts.racks or 2) - 1 do
    local rack = g:add_vertex{type = "rack", id = r}
    assert(g:add_child(root, rack))
    for _ = 1, opts.per_rack or 3 do
      local n = g:add_vertex{type = "node", id = i, rank = i, name = "n" .. i,
        properties = opts.properties and opts.properties[i] or nil}
      assert(g:add_child(rack, n))
      for s = 0, 1 do
        local sock = g:add_vertex{type = "socket", id = s}
        assert(g:add_child(n, sock))
        for c = 0, 3 do
          assert(g:add_child(sock, g:add_vertex{type = "core", id = s * 4 + c}))
        end
        if gpu_on[i] then assert(g:add_child(sock, g:add_vertex{type = "gpu", id = s})) end
      end
      i = i + 1
    end
  end
  return g
end

-- The request shapes a user writes first, as grove.jobspec shorthands, in
-- order: {name, shorthand}.
M.SHAPES = {
  {"one core", {tasks = 1}},
  {"several cores", {tasks = 1, cores_per_task = 3}},
  {"one node with cores", {nodes = 1, cores_per_node = 2}},
  {"whole node", {nodes = 1, exclusive = true}},
  {"several nodes", {nodes = 2, cores_per_node = 1}},
  {"cores with a GPU", {tasks = 1, cores_per_task = 2, gpus_per_task = 1}},
  {"one node with cores and a GPU", {nodes = 1, cores_per_node = 2, gpus_per_node = 1}},
}

-- Where job j went: its cores and GPUs as "n3/c5", "n1/g0", sorted, and a
-- node held whole as "n3!" (what lies below it left out), joined by ",".
function M.where(j)
  local whole, out = {}, {}
  for _, p in ipairs(j.picks) do
    if p.vertex:type() == "node" and p.exclusive then
      whole[p.vertex:name()] = true
      out[#out + 1] = p.vertex:name() .. "!"
    end
  end
  for _, p in ipairs(j.picks) do
    local v, t = p.vertex, p.vertex:type()
    if t == "core" or t == "gpu" then
      local a = v:parent()
      while a and a:type() ~= "node" do a = a:parent() end
      local node = a and a:name() or "?"
      if not whole[node] then out[#out + 1] = ("%s/%s%d"):format(node, t:sub(1, 1), v:id()) end
    end
  end
  table.sort(out)
  return table.concat(out, ",")
end

-- Where n (default 3) jobs of shorthand `shape`, allocated one after the
-- other under `policy` (a built-in's name or a grove.policy) on the graph
-- make() returns, went: M.where of each, or the failure's message, joined
-- by " | ".
function M.places(policy, shape, make, n)
  local m = grove.core.matcher(make())
  assert(m:set_policy(policy))
  local out = {}
  for _ = 1, n or 3 do
    local j, msg = m:match(M.compiled(shape), "allocate")
    out[#out + 1] = j and M.where(j) or msg
  end
  m:close()
  return table.concat(out, " | ")
end

return M
