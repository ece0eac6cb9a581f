-- grove.levels: the levels of a graph a request's walk reaches, and the
-- hook types of a placement policy (prune_types, score_types) that no
-- request reaches: there its hook is never called, most often because a
-- type is misnamed for the machine or the jobs ("gpu" scored for jobs
-- that ask for cores only).
--
--   local lv = levels.new(policy, graph)          -- nil: nothing to check
--   lv:unreached({core = true})  -> {{field = "score_types", type = "gpu"}}
--   lv:warnings({core = true}, "no job of the trace")  -> {message, ...}
--   levels.request_types(jobspec)  -> {core = true, node = true}
--
-- A walk reaches the types its request names and every type above one of
-- them in the containment tree (the matcher passes through those on its
-- way down, and hooks run at every level it passes).  So a hook type is
-- reached when a request names it, or when some vertex of that type has a
-- vertex of a requested type below it.  The check costs a walk up from
-- the vertices of a requested type only when the hook type has vertices
-- with children; a leaf type (gpu, core, memory) not requested is known
-- unreached at once.  Answers are kept per pair of types.
--
-- It holds the check only: the commands decide when to run it and where
-- the warnings go (grove sim before a run, grove query before a match).
local M = {}

local fmt = string.format

local Levels = {}
Levels.__index = Levels

-- The types a jobspec (a grove.jobspec, or a canonical table) names, slot
-- aside: a set.
function M.request_types(js)
  local res = type(js) == "userdata" and js:resources() or js.resources or {}
  local set = {}
  local function walk(list)
    for _, r in ipairs(list or {}) do
      if r.type ~= "slot" then set[r.type] = true end
      walk(r.with)
    end
  end
  walk(res)
  return set
end

-- A checker of policy p (a grove.policy) on graph g, or nil when p names
-- no hook types (a built-in's name, or hooks that run at every level).
function M.new(p, g)
  if type(p) == "string" then return nil end
  local h = p:hooks()
  local hooks = {}
  for _, field in ipairs{"prune_types", "score_types"} do
    for _, t in ipairs(h[field] or {}) do hooks[#hooks + 1] = {field = field, type = t} end
  end
  if #hooks == 0 then return nil end
  return setmetatable({p = p, g = g, hooks = hooks, above = {}, leaf = {}, warned = {}},
    Levels)
end

-- Whether no vertex of type t has children.
function Levels:leaf_type(t)
  local v = self.leaf[t]
  if v ~= nil then return v end
  v = true
  for x in self.g:vertices{type = t} do
    if x:children()() ~= nil then
      v = false
      break
    end
  end
  self.leaf[t] = v
  return v
end

-- Whether some vertex of type h has a vertex of type t below it.
function Levels:is_above(h, t)
  local key = h .. "\0" .. t
  local r = self.above[key]
  if r ~= nil then return r end
  r = false
  if not self:leaf_type(h) then
    -- up from each vertex of type t, each ancestor looked at once
    local seen = {}
    for v in self.g:vertices{type = t} do
      local a = v:parent()
      while a and not r do
        local id = a:vid()
        if seen[id] then break end
        seen[id] = true
        r = a:type() == h
        a = a:parent()
      end
      if r then break end
    end
  end
  self.above[key] = r
  return r
end

-- The hooks {field =, type =} whose type no request of the set of types
-- asked reaches.
function Levels:unreached(asked)
  local out = {}
  for _, hk in ipairs(self.hooks) do
    local reached = asked[hk.type] ~= nil
    for t in pairs(asked) do
      if reached then break end
      reached = self:is_above(hk.type, t)
    end
    if not reached then out[#out + 1] = hk end
  end
  return out
end

local HOOK = {prune_types = "prune", score_types = "score"}

-- The warnings for the hooks the types asked do not reach, each hook
-- told once in the checker's life.  what says which requests: "no job of
-- the trace reaches" or "the request of job.yaml does not reach".
function Levels:warnings(asked, what)
  local names = {}
  for t in pairs(asked) do names[#names + 1] = t end
  table.sort(names)
  local out = {}
  for _, hk in ipairs(self:unreached(asked)) do
    local key = hk.field .. " " .. hk.type
    if not self.warned[key] then
      self.warned[key] = true
      out[#out + 1] = fmt("policy %s (%s): %s names '%s', a level %s (asked: %s; a %s " ..
        "is none of those and holds none): its %s hook is not called there", self.p:name(),
        self.p:source(), hk.field, hk.type, what,
        #names > 0 and table.concat(names, ", ") or "nothing", hk.type, HOOK[hk.field])
    end
  end
  return out
end

return M
