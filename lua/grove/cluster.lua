-- grove.cluster: describe a cluster in Lua and get its graph.
--
--   local grove = require "grove"
--   local C = grove.cluster
--   local R = C.resources     -- R.<type>(...) makes a resource of that type
--   local rack, node, socket, core, gpu, memory =
--     R.rack, R.node, R.socket, R.core, R.gpu, R.memory
--
--   local g = C "tiny" {                          -- the cluster tiny0
--     rack(1) {
--       node(2, { hostnames = "node[0-1]", ranks = "0-1" }) {
--         socket(2) {
--           core(18, { id_scope = "node" }),     -- core0..core35 per node
--           gpu(1, { id_scope = "node" }),
--           memory(4, { size = 2, unit = "GB", id_scope = "node" }),
--         },
--       },
--     },
--   }
--
-- A resource is TYPE(count [, opts]), TYPE(opts) or TYPE "basename" (one
-- of it), optionally called with a body: the list of resources each
-- instance contains.  Options:
--   count      instances per parent (default 1)
--   basename   default: the type; names are basename .. id
--   name       the full name (one instance), or function(id, n) -> name
--   size, unit the pool (default size 1, unit "")
--   status     "up" (default), "down", "drained", ...
--   properties {key = value}, or function(id, n) -> table
--   tags       {key = value or true}
--   id_scope   where ids restart: "parent" (default; ids count from
--              id_start under each parent, per basename), a type name
--              ("node": unique within the nearest node above), an integer
--              k (unique within the k-th ancestor of the parent; 0 is the
--              parent), or "root" (unique across the cluster).  In a scope
--              given so, ids count per type: every maker of the type with
--              that scope shares one count, whatever its basename
--   id_start, id_stride   first id and step (default 0 and 1)
--   ids        an idset ("0-17,32") handing out ids in order across all the
--              instances of this resource (instead of id_scope)
--   hostnames  a hostlist ("node[0-71]"): the names of the instances, in
--              order across the cluster
--   ranks      an idset ("0-71") or an array: their ranks, in order
-- hostnames, ranks and ids must hold exactly one entry per instance.
--
-- Vertices are created level by level, and in each level resource by
-- resource, parent by parent (the order of the GRUG recipes), so ids and
-- vertex order match graphs generated from an equivalent recipe.
--
-- Other subsystems (channeled resource pools: power, I/O bandwidth) are
-- declared in the same body, after the containment tree exists:
--
--   subsystem("iobw", { relation = "conduit-of" }) {
--     link "/io0/pfs0" {                    -- an existing vertex: a root here
--       link "/io0/rack[0-1]/leaf0" {       -- edges pfs0 -> each leaf switch
--         link "../node*",                  -- each switch -> its rack's nodes
--       },
--     },
--   }
--
-- In a subsystem block a resource creates vertices that exist only in that
-- subsystem, and link(pattern) names existing vertices by containment path.
-- A pattern is absolute ("/io0/rack0") or relative to the linked parent's
-- containment path ("../node*"); each component may be a hostlist
-- ("node[0-3]", every name must exist) or a glob with * and ? (every
-- matching child).  Edges go from the parent to each child with the
-- subsystem's relation ("conduit-of" by default), plus an opposite edge
-- when rrelation is given.  feeds is another name for link.
--
-- Misuse (an unknown option, a wrong type, too few hostnames, a pattern
-- that names nothing) raises an error; the graph is returned otherwise.
-- A maker's own misuse (R.cores, an unknown option, a bad count) is raised
-- at the line that called the maker, with the closest name offered for a
-- misspelt one (grove.suggest).
--
-- This module holds the DSL and the building of its graph; it must not hold
-- example clusters (grove.repl has the prompt's) nor readers of other
-- formats (grove.core has them).

local core = require("grove.core")
local suggest = require("grove.suggest")

-- The step a long build reports (grove.core.progress).
local STEP = "building the cluster"

local M = {}

local TEMPLATE = {}
TEMPLATE.__index = TEMPLATE

local function is_template(x)
  return getmetatable(x) == TEMPLATE
end

local function fail(fmt, ...)
  error("grove.cluster: " .. string.format(fmt, ...), 0)
end

-- A pool size: not negative, and within the readers' limit (GROVE_MAX_SIZE),
-- so that sums over the graph stay exact.
local function check_size(rtype, size)
  if size and size < 0 then
    fail("%s: size must be >= 0", rtype)
  end
  local max = core.limits().size
  if size and size > max then
    fail("%s: size %d is larger than the pool size limit %d (GROVE_MAX_SIZE)", rtype, size, max)
  end
end

-- A template's body: a list of templates (plain nested lists are flattened).
local function add_children(t, body, out)
  for i, x in ipairs(body) do
    if is_template(x) then
      out[#out + 1] = x
    elseif type(x) == "table" and getmetatable(x) == nil then
      add_children(t, x, out)
    else
      fail("%s: entry %d of the body is a %s, not a resource, link or subsystem",
           t:label(), i, type(x))
    end
  end
  for k in pairs(body) do
    if math.type(k) ~= "integer" then
      fail("%s: the body is a list; found the key %q", t:label(), tostring(k))
    end
  end
end

function TEMPLATE:__call(body)
  if self.has_body then
    fail("%s: body given twice", self:label())
  end
  if type(body) ~= "table" or is_template(body) then
    fail("%s: the body must be a list of resources", self:label())
  end
  self.has_body = true
  add_children(self, body, self.children)
  return self
end

function TEMPLATE:label()
  if self.kind == "link" then
    return "link " .. self.pattern
  elseif self.kind == "subsystem" then
    return "subsystem " .. self.name
  end
  return self.type
end

local resource_options = {
  count = "integer", basename = "string", name = "string|function", size = "integer",
  unit = "string", status = "string", properties = "table|function", tags = "table",
  id_scope = "string|integer", id_start = "integer", id_stride = "integer",
  ids = "string|table", hostnames = "string|table", ranks = "string|table",
}

local function check_options(what, opts, known)
  if opts == nil then
    return {}
  end
  if type(opts) ~= "table" then
    fail("%s: options must be a table, not a %s", what, type(opts))
  end
  for k, v in pairs(opts) do
    local want = known[k]
    if not want then
      fail("%s: unknown option '%s'%s", what, tostring(k), suggest.hint(tostring(k), known))
    end
    local ty = math.type(v) == "integer" and "integer" or type(v)
    local okay = false
    for w in want:gmatch("[^|]+") do
      okay = okay or w == ty
    end
    if not okay then
      fail("%s: option %s: expected %s, got %s", what, k, (want:gsub("|", " or ")), ty)
    end
  end
  return opts
end

local STATUS = { up = true, down = true, drained = true, excluded = true, degraded = true,
                 failing = true, unknown = true, null = true }

-- The most instances one resource may ask for, and the most vertices a
-- cluster may hold: the vertex limit of GRUG recipes (GROVE_MAX_VERTICES),
-- checked before anything is built.
local function vertex_limit()
  return core.limits().vertices
end

-- A count given as a number: an integer, or a float that is one (2^10).
local function check_count(rtype, n)
  local count = math.tointeger(n)
  if not count then
    if n ~= n or n == math.huge or n == -math.huge or n ~= math.floor(n) then
      fail("%s: count must be a whole number (got %s)", rtype, tostring(n))
    end
    -- a whole float beyond the integers
    fail("%s: count %.0f is more than the vertex limit %d (GROVE_MAX_VERTICES)", rtype, n,
         vertex_limit())
  end
  if count > vertex_limit() then
    fail("%s: count %d is more than the vertex limit %d (GROVE_MAX_VERTICES)", rtype, count,
         vertex_limit())
  end
  return count
end

-- TYPE(count [, opts]) | TYPE(opts) | TYPE "basename" [opts] | TYPE()
local function resource(rtype, a, b)
  local count, opts = 1, nil
  if type(a) == "number" then
    count, opts = check_count(rtype, a), b
  elseif type(a) == "table" then
    if b ~= nil then
      fail("%s: give the options once", rtype)
    end
    opts = a
  elseif type(a) == "string" then
    opts = {}
    for k, v in pairs(check_options(rtype, b, resource_options)) do
      opts[k] = v
    end
    if opts.basename then
      fail("%s: the basename is given twice", rtype)
    end
    opts.basename = a
  elseif a ~= nil then
    fail("%s: expected a count, options or a basename, not a %s", rtype, type(a))
  end
  opts = check_options(rtype, opts, resource_options)
  count = opts.count and check_count(rtype, opts.count) or count
  if count < 0 then
    fail("%s: count must be >= 0", rtype)
  end
  if type(opts.name) == "string" and count ~= 1 then
    fail("%s: a fixed name needs count 1 (give a function for several)", rtype)
  end
  check_size(rtype, opts.size)
  if opts.status and not STATUS[opts.status] then
    fail("%s: unknown status '%s'", rtype, opts.status)
  end
  if opts.ids and (opts.id_scope or opts.id_start or opts.id_stride) then
    fail("%s: ids excludes id_scope, id_start and id_stride", rtype)
  end
  if opts.id_stride and opts.id_stride < 1 then
    fail("%s: id_stride must be >= 1", rtype)
  end
  if math.type(opts.id_scope) == "integer" and opts.id_scope < 0 then
    fail("%s: id_scope must be >= 0", rtype)
  end
  return setmetatable({ kind = "resource", type = rtype, count = count, opts = opts,
                        children = {} }, TEMPLATE)
end

local constructors = {}

-- The resource types of Flux's model and Grove's readers that a maker
-- R.NAME is checked against: a NAME that is none of them but is close to
-- one (R.cores, R.gpus, R.ndoe) is a typo, raised with the closest one
-- offered; any other NAME makes a type of its own (R.pdu, R.switch), and
-- R("NAME", ...) makes any type without a check.  The list holds the
-- names close to one another that are all real types (cpu beside gpu,
-- pu, pdu), so that none is taken for a typo of another.
M.TYPES = {"cluster", "rack", "node", "socket", "core", "gpu", "memory", "ssd",
  "storage_node", "cpu", "pu", "pdu", "numanode", "hwthread"}
local TYPE_SET = {}
for _, t in ipairs(M.TYPES) do TYPE_SET[t] = true end

-- Make a resource as resource() does, raising at the line of the caller
-- of the maker that calls this (which must not tail-call it).
local function make(rtype, a, b)
  local ok, t = pcall(resource, rtype, a, b)
  if not ok then error(t, 3) end
  return t
end

--- R.<type>(...) makes a resource of that type; R("any-type", ...) too.
M.resources = setmetatable({}, {
  __index = function(_, rtype)
    if type(rtype) ~= "string" or rtype == "" then
      error("grove.cluster: a resource type must be a non-empty string", 2)
    end
    local f = constructors[rtype]
    if not f then
      if not TYPE_SET[rtype] then
        local near = suggest.closest(rtype, M.TYPES)
        if near then
          error(("grove.cluster: R.%s: unknown resource type '%s' (did you mean '%s'?); "
            .. "R(\"%s\", ...) makes a type of that name"):format(rtype, rtype, near, rtype), 2)
        end
      end
      f = function(a, b)
        local t = make(rtype, a, b)
        return t
      end
      constructors[rtype] = f
    end
    return f
  end,
  __call = function(_, rtype, a, b)
    if type(rtype) ~= "string" or rtype == "" then
      error("grove.cluster: a resource type must be a non-empty string", 2)
    end
    local t = make(rtype, a, b)
    return t
  end,
})

local subsystem_options = { relation = "string", rrelation = "string" }

--- subsystem(name [, {relation=, rrelation=}]) { entries }
function M.subsystem(name, opts)
  if type(name) ~= "string" or name == "" then
    fail("subsystem: the name must be a non-empty string")
  end
  if name == "containment" then
    fail("subsystem: containment is the cluster's own tree; describe it in the body")
  end
  opts = check_options("subsystem " .. name, opts, subsystem_options)
  return setmetatable({ kind = "subsystem", name = name,
                        relation = opts.relation or "conduit-of",
                        rrelation = opts.rrelation, children = {} }, TEMPLATE)
end

--- link(pattern) [{ entries }]: existing vertices by containment path.
function M.link(pattern)
  if type(pattern) ~= "string" or pattern == "" then
    fail("link: the pattern must be a non-empty string")
  end
  return setmetatable({ kind = "link", pattern = pattern, children = {} }, TEMPLATE)
end
M.feeds = M.link

-- ---- lists: hostnames, ranks, ids ----------------------------------------

-- The elements of the string s as a list, through the grove.core set
-- constructor kind ("hostlist" or "idset", plural as names) and its
-- iterator method each.
local function set_elements(what, s, kind, names, each)
  if not core[kind] then
    fail("%s: %s need grove.core.%s, which this build lacks", what, names, kind)
  end
  local set, err = core[kind](s)
  if not set then
    fail("%s: %s", what, err)
  end
  local out = {}
  for x in set[each](set) do
    out[#out + 1] = x
  end
  set:close()
  return out
end

local function hostlist_names(what, s)
  if type(s) == "table" then
    return s
  end
  return set_elements(what, s, "hostlist", "hostlists", "hosts")
end

local function idset_ids(what, s)
  if type(s) == "table" then
    for i, x in ipairs(s) do
      if math.type(x) ~= "integer" or x < 0 then
        fail("%s: entry %d must be a non-negative integer", what, i)
      end
    end
    return s
  end
  return set_elements(what, s, "idset", "idsets", "ids")
end

-- ---- building ---------------------------------------------------------------

-- An instance: a vertex and what the build knows of it.
--   { v = vertex, type = string, parent = instance or nil,
--     counters = {basename or type = next id} when it is an id scope }

local function scope_of(parent, scope, root, what)
  if scope == nil or scope == "parent" or scope == 0 then
    return parent
  elseif scope == "root" then
    return root
  elseif math.type(scope) == "integer" then
    local s = parent
    for _ = 1, scope do
      s = s and s.parent
    end
    if not s then
      fail("%s: id_scope %d goes above the root", what, scope)
    end
    return s
  end
  local s = parent
  while s and s.type ~= scope do
    s = s.parent
  end
  if not s then
    fail("%s: id_scope %q: no %s above it", what, scope, scope)
  end
  return s
end

-- Per-build state of a resource template (templates may be reused).
local function tstate(build, t)
  local st = build.state[t]
  if st then
    return st
  end
  local o = t.opts
  st = { n = 0 }
  if o.hostnames then
    st.hostnames = hostlist_names(t.type .. ": hostnames", o.hostnames)
  end
  if o.ranks then
    st.ranks = idset_ids(t.type .. ": ranks", o.ranks)
  end
  if o.ids then
    st.ids = idset_ids(t.type .. ": ids", o.ids)
  end
  build.state[t] = st
  build.order[#build.order + 1] = t
  return st
end

local function take(st, list, t, what)
  local x = st[list][st.n]
  if x == nil then
    fail("%s: %s has %d entries, fewer than its instances", t.type, what, #st[list])
  end
  return x
end

-- Create one instance of resource template t below parent (or a root).
local function instantiate(build, t, parent)
  local o, st = t.opts, tstate(build, t)
  st.n = st.n + 1
  local basename = o.basename or t.type
  local id
  if st.ids then
    id = take(st, "ids", t, "ids")
  else
    local given = o.id_scope or build.id_scope
    local scope = scope_of(parent, given, build.root, t.type)
    -- ids count per basename under each parent (the default, as GRUG
    -- recipes count), and per type in a scope given by id_scope: unique
    -- there whatever the basenames (node and gpunode makers under "root")
    local per_type = given ~= nil and given ~= "parent" and given ~= 0
    local counters = scope.counters
    if not counters then
      counters = {}
      scope.counters = counters
    end
    local key = per_type and t.type or basename
    local c = counters[key]
    if c == nil then
      c = o.id_start or 0
    end
    id = c
    counters[key] = c + (o.id_stride or 1)
  end
  local name = o.name
  if type(name) == "function" then
    name = name(id, st.n)
    if type(name) ~= "string" or name == "" then
      fail("%s: the name function must return a non-empty string", t.type)
    end
  end
  if st.hostnames then
    name = take(st, "hostnames", t, "hostnames")
  end
  local props = o.properties
  if type(props) == "function" then
    props = props(id, st.n)
    if props ~= nil and type(props) ~= "table" then
      fail("%s: the properties function must return a table", t.type)
    end
  end
  local v, err = build.g:add_vertex {
    type = t.type, basename = basename, name = name, id = id,
    rank = st.ranks and take(st, "ranks", t, "ranks") or nil,
    size = o.size, unit = o.unit, status = o.status, properties = props, tags = o.tags,
  }
  if not v then
    fail("%s: %s", t.type, err)
  end
  build.made = build.made + 1
  if build.made % 1024 == 0 then core.progress(STEP, build.made) end
  return { v = v, type = t.type, parent = parent } -- counters: made when needed
end

-- The instance record of an existing vertex (one per vertex and build).
local function known(build, v)
  local id = v:vid()
  local inst = build.known[id]
  if not inst then
    inst = { v = v, type = v:type() }
    build.known[id] = inst
  end
  return inst
end

-- ---- link patterns ---------------------------------------------------------------

local function glob_pattern(s)
  return "^" .. s:gsub("[%^%$%(%)%%%.%[%]%+%-]", "%%%0"):gsub("%*", ".*"):gsub("%?", ".") .. "$"
end

-- The names a pattern component stands for: a list, or a Lua pattern.
local function component(what, c)
  if c:find("[%*%?]") then
    if c:find("[%[%]]") then
      fail("%s: %q mixes a glob and a hostlist", what, c)
    end
    return nil, glob_pattern(c)
  elseif c:find("[%[%]]") then
    return hostlist_names(what, c)
  end
  return { c }
end

-- The vertices a pattern names, in order; base is the containment path of
-- the parent for relative patterns.
local function resolve(g, pattern, base, what)
  local path = pattern
  if path:sub(1, 1) ~= "/" then
    if not base then
      fail("%s: a relative pattern needs a parent that is in containment", what)
    end
    path = base .. "/" .. path
  end
  local comps = {}
  for c in path:gmatch("[^/]+") do
    if c == ".." then
      if #comps == 0 then
        fail("%s: %q goes above the root", what, pattern)
      end
      comps[#comps] = nil
    elseif c ~= "." then
      comps[#comps + 1] = c
    end
  end
  if #comps == 0 then
    fail("%s: %q names no vertex", what, pattern)
  end
  local cur = nil -- nil: the containment roots are the candidates
  for _, c in ipairs(comps) do
    local names, glob = component(what, c)
    local nxt = {}
    local function candidates(f)
      if cur == nil then
        for _, r in ipairs(g:roots()) do f(r) end
      else
        for _, p in ipairs(cur) do
          for _, ch in ipairs(p:children_list()) do f(ch) end
        end
      end
    end
    if glob then
      candidates(function(v)
        if v:name():find(glob) then nxt[#nxt + 1] = v end
      end)
    else
      local parents = cur or { false }
      for _, p in ipairs(parents) do
        local by_name = {}
        for _, v in ipairs(p and p:children_list() or g:roots()) do
          by_name[v:name()] = by_name[v:name()] or v
        end
        for _, name in ipairs(names) do
          local v = by_name[name]
          if not v then
            fail("%s: no vertex %s/%s", what, p and tostring(p) or "", name)
          end
          nxt[#nxt + 1] = v
        end
      end
    end
    cur = nxt
  end
  if #cur == 0 then
    fail("%s: %q names no vertex", what, pattern)
  end
  return cur
end

-- ---- expansion --------------------------------------------------------------------

-- Expand templates level by level.  attach(parent_inst, child_inst) joins
-- them in the subsystem being built; groups are {tmpl=, insts=}.
local function expand(build, groups, attach)
  local qi = 1
  while groups[qi] do
    local grp = groups[qi]
    groups[qi] = false -- done: let its instances go
    qi = qi + 1
    for _, t in ipairs(grp.tmpl.children) do
      local insts = {}
      if t.kind == "resource" then
        for _, p in ipairs(grp.insts) do
          for _ = 1, t.count do
            local inst = instantiate(build, t, p)
            if p.v then attach(p, inst) end
            insts[#insts + 1] = inst
          end
        end
      elseif t.kind == "link" then
        if not build.subsystem then
          fail("link %s: links are only valid inside a subsystem block", t.pattern)
        end
        for _, p in ipairs(grp.insts) do
          local base = p.v and p.v:path() or nil
          for _, v in ipairs(resolve(build.g, t.pattern, base, "link " .. t.pattern)) do
            local inst = known(build, v)
            if p.v then attach(p, inst) end
            insts[#insts + 1] = inst
          end
        end
      elseif t.kind == "subsystem" then
        fail("subsystem %s: subsystem blocks belong in the cluster's own body", t.name)
      end
      groups[#groups + 1] = { tmpl = t, insts = insts }
    end
  end
end

local function check_counts(build)
  for _, t in ipairs(build.order) do
    local st = build.state[t]
    for _, list in ipairs { "hostnames", "ranks", "ids" } do
      if st[list] and #st[list] ~= st.n then
        fail("%s: %s has %d entries for %d instances", t.type, list, #st[list], st.n)
      end
    end
  end
end

local function build_subsystem(build, s)
  local g = build.g
  build.subsystem = s.name
  local function attach(p, c)
    local down, err = g:add_edge(p.v, c.v, { subsystem = s.name, relation = s.relation })
    if not down then
      fail("subsystem %s: %s -> %s: %s", s.name, tostring(p.v), tostring(c.v), err)
    end
    if s.rrelation then
      local up, err2 = g:add_edge(c.v, p.v, { subsystem = s.name, relation = s.rrelation })
      if not up then
        fail("subsystem %s: %s -> %s: %s", s.name, tostring(c.v), tostring(p.v), err2)
      end
      g:set_opposite(down, up)
    end
  end
  -- the block's entries are roots of the subsystem: their parent is a
  -- stand-in without a vertex, which only counts ids
  expand(build, { { tmpl = s, insts = { {} } } }, attach)
end

-- The vertices the resources of template t make below n instances of it
-- (a float: a body of billions does not wrap), counted as GRUG recipes are,
-- before anything is built.
local function count_vertices(t, n)
  local total = 0.0
  for _, c in ipairs(t.children) do
    if c.kind == "resource" then
      local made = n * c.count
      total = total + made + count_vertices(c, made)
    end
  end
  return total
end

local cluster_options = {
  type = "string", basename = "string", name = "string", id = "integer",
  id_scope = "string", size = "integer", unit = "string", status = "string",
  properties = "table", tags = "table", rank = "integer",
}

--- cluster(name [, opts]) { body } -> graph
--- cluster(opts) { body } -> graph (opts.basename or opts.name required)
local function cluster(name, opts)
  if type(name) == "table" and opts == nil then
    name, opts = nil, name
  end
  if name ~= nil and (type(name) ~= "string" or name == "") then
    fail("the cluster name must be a non-empty string")
  end
  opts = check_options("cluster", opts, cluster_options)
  local basename = opts.basename or name
  if not basename and not opts.name then
    fail("cluster: give a name")
  end
  if opts.id_scope and opts.id_scope ~= "parent" and opts.id_scope ~= "root" then
    fail("cluster: the default id_scope is \"parent\" or \"root\"")
  end
  check_size("cluster", opts.size)
  return function(body)
    if type(body) ~= "table" or is_template(body) then
      fail("cluster %s: the body must be a list of resources", basename or opts.name)
    end
    local top = setmetatable({ kind = "resource", type = opts.type or "cluster",
                               children = {} }, TEMPLATE)
    add_children(top, body, top.children)
    local tree, subsystems = {}, {}
    for _, t in ipairs(top.children) do
      if t.kind == "subsystem" then
        subsystems[#subsystems + 1] = t
      else
        tree[#tree + 1] = t
      end
    end
    top.children = tree
    local total = 1 + count_vertices(top, 1.0)
    if total > vertex_limit() then
      fail("cluster %s: the body makes %.0f vertices, more than the vertex limit %d "
        .. "(GROVE_MAX_VERTICES)", basename or opts.name, total, vertex_limit())
    end
    local g = core.graph()
    local root, err = g:add_vertex {
      type = top.type, basename = basename, name = opts.name,
      id = opts.id or (opts.name == nil and 0 or nil),
      size = opts.size, unit = opts.unit, status = opts.status, rank = opts.rank,
      properties = opts.properties, tags = opts.tags,
    }
    if not root then
      fail("cluster: %s", err)
    end
    local build = {
      g = g, state = {}, order = {}, known = {},
      id_scope = opts.id_scope, made = 1, -- vertices made (progress)
    }
    build.root = { v = root, type = top.type }
    build.known[root:vid()] = build.root
    local ok, err2 = pcall(function()
      expand(build, { { tmpl = top, insts = { build.root } } }, function(p, c)
        local added, err3 = g:add_child(p.v, c.v)
        if not added then
          fail("%s: %s", tostring(c.v), err3)
        end
      end)
      for _, s in ipairs(subsystems) do
        build_subsystem(build, s)
      end
      check_counts(build)
    end)
    core.progress_end(STEP)
    if not ok then error(err2, 0) end
    return g
  end
end

return setmetatable(M, {
  __call = function(_, name, opts) return cluster(name, opts) end,
})
