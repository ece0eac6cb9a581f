-- grove.policy: find and load placement policies by name.
--
--   local policy = require "grove.policy"
--   local p = assert(policy.load "locality")        -- policies/locality.lua
--   local q = assert(policy.load("my/pol.lua", {budget = 1e6}))
--   m:set_policy(p)
--
-- A name without a slash or ".lua" is looked up as NAME.lua in the policy
-- directories: those in GROVE_POLICY_PATH (colon-separated), then the
-- policies/ directory beside every lua/ directory on package.path (the
-- source tree), then share/grove/policies beside every share/lua/5.4 on it
-- (an installed copy), then ./policies.  Anything else is a path.
-- Loading goes through grove.core.policy_load, so the result is sandboxed
-- and the options (budget, memory) are the same.
--
-- This module holds only the finding and loading of policy files; it must
-- not hold policies (policies/) nor the sandbox (grove.core).
local check = require("grove.check")
local core = require("grove.core")
local files = require("grove.files")
local suggest = require("grove.suggest")

local M = {}

-- The built-in policies: each has a C fast path (matcher:set_policy(name))
-- and a Lua twin in policies/NAME.lua.
M.builtins = {"first", "low", "high", "lonode", "hinode", "lonodex", "hinodex",
  "firstnodex", "fresh", "freshnodex", "locality", "variation", "spread", "gpu"}

-- The directories searched for policy names, in order.
function M.dirs()
  local dirs, seen = {}, {}
  local function add(d)
    if d ~= "" and not seen[d] then
      seen[d] = true
      dirs[#dirs + 1] = d
    end
  end
  for d in (os.getenv("GROVE_POLICY_PATH") or ""):gmatch("[^:]+") do add(d) end
  for _, d in ipairs(files.dirs("policies", "policies")) do add(d) end
  add("policies")
  return dirs
end

-- The path of NAME.lua in the subdirectory sub ("" or "queues") of the
-- policy directories, or nil, message, "ENOENT"; what names the kind of
-- policy in the message, known (optional) the names shipped, for a
-- "did you mean" when name is close to one.
function M.find_in(sub, name, what, known)
  local tried = {}
  for _, d in ipairs(M.dirs()) do
    local dir = sub == "" and d or d .. "/" .. sub
    local path = dir .. "/" .. name .. ".lua"
    if files.readable(path) then return path end
    tried[#tried + 1] = dir
  end
  return nil, ("no %s '%s'%s in %s"):format(what, name, suggest.hint(name, known or {}),
    table.concat(tried, ", ")), "ENOENT"
end

-- The path of the policy called name, or nil, message, "ENOENT".
function M.find(name)
  check.arg(name, "string", 1, "find")
  return M.find_in("", name, "policy", M.builtins)
end

-- spec as a path when it looks like one (a '/' in it, or ending ".lua"),
-- else find(spec): a path, or nil, message, code.
function M.resolve(spec, find)
  if spec:find("/", 1, true) or spec:find("%.lua$") then return spec end
  return find(spec)
end

-- m:set_policy(NAME) finds a name that is no built-in here.
core.set_policy_finder(M.find)

-- Load a policy by name or path; opts as for grove.core.policy_load.
-- A grove.policy, or nil, message, code.
function M.load(spec, opts)
  check.arg(spec, "string", 1, "load")
  local path, msg, code = M.resolve(spec, M.find)
  if not path then return nil, msg, code end
  return core.policy_load(path, opts)
end

-- ---- the reference engine's (Fluxion's) policy names ---------------------------

-- The names whose meaning in Fluxion is another built-in's in Grove:
-- `first` there (its default) explores what earlier jobs did not touch
-- first, which is Grove's fresh; Grove's first keeps graph order.
M.FLUXION_NAMES = {first = "fresh", firstnodex = "freshnodex"}

-- The keys of a policy string ("policy=high node_centric=true ..."), as
-- Fluxion documents them: policy=low|high, and the rest true|false.
local POLICY_KEYS = {policy = true, node_centric = true, node_exclusive = true,
  stop_on_1_matches = true, set_stop_on_1_matches = true}

-- The built-in a Fluxion policy string names, or nil, message.
-- node_centric weighs a node's id first when slots are compared (lonode,
-- hinode); node_exclusive takes nodes whole, and is only built in together
-- with node_centric (lonodex, hinodex), so node_exclusive alone means
-- those too; stop_on_1_matches with high is Fluxion's first: Grove's
-- fresh (or freshnodex).
function M.fluxion_string(spec)
  local o = {}
  for word in spec:gmatch("%S+") do
    local k, v = word:match("^([^=]*)=(.*)$")
    if not k then return nil, ("policy option '%s' is not KEY=VALUE"):format(word) end
    if not POLICY_KEYS[k] then return nil, ("invalid policy option: %s"):format(k) end
    if k == "set_stop_on_1_matches" then k = "stop_on_1_matches" end
    if o[k] ~= nil then return nil, ("policy option %s given twice"):format(k) end
    if k == "policy" then
      if v ~= "low" and v ~= "high" then
        return nil, "policy key within custom policy accepts only low or high"
      end
      o[k] = v
    elseif v == "true" or v == "false" then
      o[k] = v == "true"
    else
      return nil, ("Policy option %s requires true or false, got %s"):format(k, v)
    end
  end
  if not o.policy then return nil, "a policy string needs policy=low or policy=high" end
  if o.policy == "high" and o.stop_on_1_matches then
    return o.node_exclusive and "freshnodex" or "fresh"
  end
  local base = o.policy == "high" and "hi" or "lo"
  if o.node_exclusive then return base .. "nodex" end
  if o.node_centric then return base .. "node" end
  return o.policy
end

-- The Grove placement policy a Fluxion match-policy means: its name
-- (first and firstnodex translated), or what its policy string names;
-- another name is taken as Grove's own.  nil, message for a bad string.
function M.fluxion(spec)
  check.arg(spec, "string", 1, "fluxion")
  if spec:find("=", 1, true) then return M.fluxion_string(spec) end
  return M.FLUXION_NAMES[spec] or spec
end

return M
