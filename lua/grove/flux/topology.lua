-- grove.flux.topology: where each node's topology comes from, for the
-- graph the first resource.acquire response builds (docs/flux.md, "The
-- node's topology").
--
-- A rank's node is built, in this order, from: R's scheduling graph (JGF)
-- when R has one (the acquisition code reads it, and rebuilds flat every
-- rank whose vertices disagree with R_lite); the hwloc XML of a node
-- class named in [sched-grove] hwloc-xml (the operator's word: made-up R
-- in test instances, simulated sizes); the hwloc topology the instance's
-- resource module holds for it (resource.topo-get, asked of one rank of
-- each shape of R_lite: ranks of one shape share one description); else
-- R_lite, flat.  With topology = "flat" only R and its graph are read.
-- A topology that does not load, or that disagrees with what R gives a
-- rank (rv1_topo.h), leaves those ranks flat, and why is logged (err,
-- naming the ranks) and kept for `flux module stats`: scheduling goes on.
-- The graph is built once: a `flux config reload` that changes topology
-- or hwloc-xml is said to apply at the module's next load (reconfigured).
--
-- The module (sched_grove.c) asks asks(response) which ranks' topologies
-- to fetch, fetches them, and hands them to instance(payload) before the
-- first response; prepare() gives the acquisition state its classes, and
-- after() reads what the build did.
local core = require("grove.core")

local M = {}

local fmt = string.format

-- A new object's state: its map (handed to its acquisition state, which
-- checks a scheduling graph against R_lite with it in every mode).
function M.init(self, opts)
  self.topo_mode = opts.topology or "auto"
  self.hwloc = opts.hwloc
  self.topologies = core.topologies()
  self.acq:set_topology(self.topologies)
end

-- The resources of a first response that builds with topologies: R (a
-- table) with an R_lite and no scheduling graph; or nil.
local function rlite_of(self, response)
  if self.topo_mode == "flat" or self.topo_built then return nil end
  local R = type(response) == "table" and response.resources
  if type(R) ~= "table" or type(R.execution) ~= "table" then return nil end
  if type(R.scheduling) == "table" and R.scheduling.graph ~= nil then return nil end
  if type(R.execution.R_lite) ~= "table" then return nil end
  return R
end

-- The ranks the classes of the configuration name, given R (a table):
-- an idset of them; and each class's ranks in c.ranks_of.
local function configured(self, R)
  local all = core.idset("")
  local decoded
  for _, c in ipairs(self.hwloc or {}) do
    local ranks
    if c.ranks then
      ranks = core.idset(c.ranks)
    elseif c.hosts then
      decoded = decoded or core.rv1_decode(core.json_encode(R, 0))
      ranks = decoded and decoded:hosts_to_ranks(c.hosts)
      if not ranks then ranks = core.idset("") end
    end
    -- (a class that names neither: every rank, resolved by prepare)
    c.ranks_of = ranks
    if ranks then all = all:union(ranks) end
  end
  return all
end

-- The ranks whose topology the module should fetch from the instance:
-- {{rank = N, ranks = IDSET}, ...}, one a shape of R_lite (the ranks of
-- its entries with the same children), N its lowest rank that is up (or
-- its lowest), leaving out the ranks a class of the configuration names.
function M.asks(self, response)
  local R = rlite_of(self, response)
  if not R then return {} end
  local every_rank = false
  for _, c in ipairs(self.hwloc or {}) do
    if not c.ranks and not c.hosts then every_rank = true end
  end
  if every_rank then return {} end
  local taken = configured(self, R)
  local up = core.idset(type(response.up) == "string" and response.up or "")
  local shapes, order = {}, {}
  for _, e in ipairs(R.execution.R_lite) do
    if type(e) == "table" and type(e.rank) == "string" and type(e.children) == "table" then
      local keys = {}
      for k, v in pairs(e.children) do keys[#keys + 1] = tostring(k) .. "=" .. tostring(v) end
      table.sort(keys)
      local key = table.concat(keys, " ")
      local ids = core.idset(e.rank)
      if ids then
        if not shapes[key] then
          shapes[key] = ids
          order[#order + 1] = key
        else
          shapes[key] = shapes[key]:union(ids)
        end
      end
    end
  end
  local asks = {}
  for _, key in ipairs(order) do
    local ranks = shapes[key]:difference(taken)
    local live = ranks:intersect(up)
    -- (at the module's load the brokers may not all be up yet: the
    -- lowest rank then, whose broker answers once it is)
    if ranks:count() > 0 then
      asks[#asks + 1] = {rank = live:count() > 0 and live:first() or ranks:first(),
        ranks = ranks:encode()}
    end
  end
  return asks
end

-- The topologies the module fetched: {classes = {{ranks =, rank =, xml
-- =}, ...}} (xml: the rank's hwloc XML text).  Kept for prepare; a text
-- that is not a topology is logged and left out (those ranks stay flat).
function M.instance(self, payload)
  self.fetched = {}
  for _, c in ipairs(type(payload) == "table" and payload.classes or {}) do
    if type(c) == "table" and type(c.xml) == "string" and type(c.ranks) == "string" then
      self.fetched[#self.fetched + 1] = c
    end
  end
end

-- Before the first response that adds targets is applied: the classes
-- (configured first, then those fetched) given to the map; logs what
-- cannot be loaded (emit: a log action).
function M.prepare(self, response, emit)
  local R = rlite_of(self, response)
  if not R then return end
  self.topo_built = true
  local t = self.topologies
  local n = 0
  for _, c in ipairs(R.execution.R_lite) do
    if type(c) == "table" and type(c.rank) == "string" then
      local ids = core.idset(c.rank)
      if ids and ids:count() > 0 then n = math.max(n, ids:last() + 1) end
    end
  end
  configured(self, R)
  self.topo_failed = {}
  -- a topology that does not load: those ranks are built flat, said in
  -- the log and in the statistics; scheduling goes on
  local function failed(ranks, msg)
    ranks = tostring(ranks)
    self.topo_failed[#self.topo_failed + 1] = {ranks = ranks, why = tostring(msg)}
    emit({op = "log", level = "err", message = fmt(
      "topology: rank%s %s: %s; scheduled on R_lite's cores and GPUs (a flat node)",
      ranks:find("[,-]") and "s" or "", ranks, tostring(msg))})
  end
  for _, c in ipairs(self.hwloc or {}) do
    local ranks = c.ranks_of or (n > 0 and "0-" .. (n - 1))
    if ranks and tostring(ranks) ~= "" then
      local ok, msg = t:add(tostring(ranks), {xml = c.path})
      if not ok then failed(ranks, "hwloc-xml: " .. tostring(msg)) end
    end
  end
  for _, c in ipairs(self.fetched or {}) do
    local src = fmt("rank %d's hwloc (resource.topo-get)", math.tointeger(c.rank) or -1)
    local ok, msg = t:add(c.ranks, {xml_text = c.xml, source = src})
    if not ok then failed(c.ranks, msg) end
  end
  self.fetched = nil
end

-- After a response that added targets: each difference the build found
-- logged (err), naming its ranks; the report kept for the statistics.
function M.after(self, emit)
  local rep = self.topologies:report()
  self.topo_report = rep
  for _, n in ipairs(rep.notes) do
    emit({op = "log", level = "err", message = fmt(
      "topology: rank%s %s: %s; scheduled on R_lite's cores and GPUs (a flat node)",
      n.ranks:find("[,-]") and "s" or "", n.ranks, n.why)})
  end
  if rep.more > 0 then
    emit({op = "log", level = "err", message = fmt(
      "topology: %d more ranks differed in other ways; scheduled flat", rep.more)})
  end
end

-- A configuration reloaded (opts): the log line saying that a changed
-- topology or hwloc-xml applies at the module's next load, or nil.
function M.reconfigured(self, opts)
  local was = core.json_encode({self.topo_mode, self.hwloc or false}, 0)
  local now = core.json_encode({opts.topology or "auto", opts.hwloc or false}, 0)
  if was == now then return nil end
  return {op = "log", level = "info", message = "topology and hwloc-xml changed: the graph "
    .. "is kept as it was built; they apply when the module is loaded again"}
end

-- What `flux module stats` shows: {mode, classes = {{ranks, source,
-- cores, gpus, sockets, numanodes}}, placed = ranks with a topology,
-- flat = {{ranks, why}} the ranks left flat for a difference}.
function M.stats(self)
  local rep = self.topo_report or {placed = "", notes = {}, more = 0}
  local flat = {}
  for _, n in ipairs(self.topo_failed or {}) do flat[#flat + 1] = n end
  for _, n in ipairs(rep.notes) do flat[#flat + 1] = {ranks = n.ranks, why = n.why} end
  local classes = self.topologies:classes()
  return {mode = self.topo_mode, classes = #classes > 0 and classes or nil,
    placed = rep.placed, flat = #flat > 0 and flat or nil, flat_more = rep.more}
end

return M
