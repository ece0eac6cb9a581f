-- Specs for slots kept within one locality domain on real machine
-- topologies: under every shipped placement policy that takes part of a
-- node (the C built-in and its Lua twin), a slot of cores and GPUs (or of
-- GPUs alone) lands
-- in one NUMA domain whenever some node has one with room for it, and
-- spreads over domains only when none has (the matcher's job then says
-- so: its `spread`).  Checked on a stream of one-slot jobs with frees
-- between, against what each domain holds counted here from the jobs'
-- picks, on the project's fixture, the conformance corpus's hwloc
-- topologies, and flux-core's t/hwloc-data (El Capitan's three GPU
-- modes, Sierra, Corona, ipa20) when its source is at FLUX_CORE_SRC
-- (default /opt/flux-core).
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, and must not be copied here.
local core = require("grove.core")

local CORPUS = (os.getenv("GROVE_CONFORMANCE") or "../shared/conformance")
  .. "/fluxion/hwloc-data/001N/"
local FLUX_DATA = (os.getenv("FLUX_CORE_SRC") or "/opt/flux-core") .. "/t/hwloc-data/"

local POLICIES = {"first", "low", "high", "lonode", "hinode", "fresh", "spread", "locality",
  "gpu", "variation"}

local function readable(path)
  local f = io.open(path)
  if f then f:close() end
  return f ~= nil
end

-- One slot of c cores and g GPUs.
local function slot(c, g)
  local with = {}
  if c > 0 then with[1] = ('{"type":"core","count":%d}'):format(c) end
  if g > 0 then with[#with + 1] = ('{"type":"gpu","count":%d}'):format(g) end
  return core.jobspec_parse(('{"version":1,"resources":[{"type":"slot","count":1,"label":"t",'
    .. '"with":[%s]}],"tasks":[{"command":["x"],"slot":"t","count":{"per_slot":1}}],'
    .. '"attributes":{"system":{"duration":60}}}'):format(table.concat(with, ",")))
end

-- The stream on nodes of xml's shape under policy: {placed =, spread =}
-- and the first slot that spread while a domain had room for it (a
-- text), or that the job's spread did not tell.
local function stream(xml, nodes, policy, seed)
  local g = assert(core.hwloc_load{xml = xml, hostnames = ("n[0-%d]"):format(nodes - 1),
    types = {"node", "socket", "numanode", "core", "gpu"}})
  -- each domain's cores and GPUs, and what the live jobs hold of them
  local size, used, dom_of = {}, {}, {}
  local most_cores, most_gpus = 1, 0
  for v in g:vertices() do
    local t, d = v:type(), v:locality()
    if d and (t == "core" or t == "gpu") then
      local k = d:path()
      size[k] = size[k] or {core = 0, gpu = 0}
      used[k] = used[k] or {core = 0, gpu = 0}
      size[k][t] = size[k][t] + 1
      dom_of[v:path()] = k
    end
  end
  for _, s in pairs(size) do
    most_cores, most_gpus = math.max(most_cores, s.core), math.max(most_gpus, s.gpu)
  end
  local function count(j, sign)
    local doms, n = {}, 0
    for _, p in ipairs(j.picks) do
      local k = dom_of[p.vertex:path()]
      if k then
        local u = used[k]
        u[p.vertex:type()] = u[p.vertex:type()] + sign
        if not doms[k] then doms[k], n = true, n + 1 end
      end
    end
    return n
  end
  local m = core.matcher(g)
  assert(m:set_policy(policy))
  math.randomseed(seed)
  local live, out = {}, {placed = 0, spread = 0}
  for _ = 1, 300 do
    if #live > 0 and math.random() < 0.4 then
      local j = table.remove(live, math.random(#live))
      m:cancel(j.id)
      count(j, -1)
    else
      -- a slot of cores and a GPU, or of GPUs alone (a third of them)
      local c = math.random(1, math.max(1, most_cores // math.max(most_gpus, 1)))
      local gp = math.random(0, math.min(most_gpus, 1))
      if most_gpus > 0 and math.random(3) == 1 then
        c, gp = 0, math.random(1, math.min(most_gpus, 2))
      end
      local room
      for k, s in pairs(size) do
        if s.core - used[k].core >= c and s.gpu - used[k].gpu >= gp then room = k end
      end
      local j = m:match(slot(c, gp))
      if j then
        out.placed = out.placed + 1
        live[#live + 1] = j
        local n = count(j, 1)
        if n > 1 then
          out.spread = out.spread + 1
          if room and not out.bad then
            out.bad = ("a slot of %d cores and %d GPUs spread over %d domains while %s had room")
              :format(c, gp, n, room)
          end
        end
        if (n > 1 and 1 or nil) ~= j.spread and not out.bad then
          out.bad = ("the job's spread is %s for a slot over %d domains")
            :format(tostring(j.spread), n)
        end
      end
    end
  end
  m:close()
  return out
end

local MACHINES = {
  {"the fixture (a GPU of no package)", "spec/fixtures/hwloc/two-packages.xml", 2},
  {"corona11 (conformance)", CORPUS .. "amd_gpu/corona11.xml", 2},
  {"lassen (conformance)", CORPUS .. "node_local_storage/lassen/0.xml", 2},
}
for _, x in ipairs{"tuo.SPX", "tuo.TPX", "tuo.CPX", "sierra", "corona", "ipa20"} do
  MACHINES[#MACHINES + 1] = {x .. " (flux-core's t/hwloc-data)", FLUX_DATA .. x .. ".xml", 2}
end

describe("a slot of cores and GPUs", function()
  for _, mc in ipairs(MACHINES) do
    local name, xml, nodes = mc[1], mc[2], mc[3]
    it("stays in one domain while one has room, under every part-node policy: " .. name, function()
      if not readable(xml) then
        return pending(xml .. " is not there (FLUX_CORE_SRC, or the conformance corpus)")
      end
      local spread = 0
      for _, p in ipairs(POLICIES) do
        for _, policy in ipairs{p, "policies/" .. p .. ".lua"} do
          for seed = 1, 2 do
            local r = stream(xml, nodes, policy, seed)
            assert.is_nil(r.bad, policy .. ", seed " .. seed)
            assert.is_true(r.placed > 50, policy)
            spread = spread + r.spread
          end
        end
      end
      -- the streams leave some slots no domain has room for, which spread
      if name:match("^sierra") then assert.is_true(spread > 0) end
    end)
  end

  it("goes to another node's domain before it spreads over a node's domains", function()
    local g = assert(core.hwloc_load{xml = "spec/fixtures/hwloc/two-packages.xml",
      hostnames = "n[0-1]", types = {"node", "socket", "numanode", "core", "gpu"}})
    for _, policy in ipairs{"first", "policies/first.lua", "locality", "variation"} do
      local m = core.matcher(g)
      assert(m:set_policy(policy))
      -- n0's first domain keeps a GPU and no core, its second two cores
      -- and no GPU
      local a = assert(m:match(slot(2, 0)))
      local gpus = assert(m:match(core.jobspec_parse('{"version":1,"resources":[{"type":"slot",'
        .. '"count":1,"label":"t","with":[{"type":"gpu","count":2}]}],"tasks":[{"command":["x"],'
        .. '"slot":"t","count":{"per_slot":1}}],"attributes":{"system":{"duration":60}}}')))
      local j = assert(m:match(slot(1, 1)))
      local where = {}
      for _, p in ipairs(j.picks) do
        if p.vertex:type() == "core" or p.vertex:type() == "gpu" then
          where[#where + 1] = p.vertex:locality():path()
        end
      end
      assert.same({"/cluster0/n1/socket0/numanode0", "/cluster0/n1/socket0/numanode0"}, where,
        policy)
      assert.is_nil(j.spread)
      -- once no domain has a core and a GPU, a slot spreads, and says so
      -- (n1's GPU of no package goes with a core of one domain first; on
      -- n0 the first GPU taken with a core is its first domain's, so the
      -- GPU of no package goes with the last core)
      local fill, spread = {}, 0
      while true do
        local x = m:match(slot(1, 1))
        if not x then break end
        fill[#fill + 1] = x
        spread = spread + (x.spread or 0)
      end
      assert.equal(5, #fill, policy)
      assert.equal(1, spread, policy)
      assert.equal(1, fill[4].spread, policy)
      for _, x in ipairs{a, gpus, j, table.unpack(fill)} do m:cancel(x.id) end
      m:close()
    end
  end)
end)
