-- grove.sim.queue: queue policies, the Lua files that decide which waiting
-- job starts when.
--
--   local q = assert(queue.load "easy")       -- policies/queues/easy.lua
--   local q = assert(queue.load("my/queue.lua", {budget = 1e8}))
--   q.name, q.description, q.schedule(ctx), q.priority(job, ctx) (or nil)
--
-- A name without a slash or ".lua" is looked up as queues/NAME.lua in the
-- placement policy directories (grove.policy.dirs()), so the built-ins
-- (fcfs, easy, conservative, and the example priority) sit in
-- policies/queues/.  A queue policy file returns a table:
--
--   name, description   strings (name defaults to the file's base name)
--   schedule(ctx)       one scheduling pass (see docs/sim.md for ctx)
--   priority(job, ctx)  optional: the queue is ordered by it, highest
--                       first, ties by submit time then job id
--   base = "easy"       optional: take schedule (and priority, when this
--                       file has none) from another queue policy
--
-- The sandbox is the one placement policies run in, rebuilt in Lua: the
-- file is loaded as text only, into an environment built from an
-- allow-list (assert error ipairs next pairs pcall xpcall select tonumber
-- tostring type rawequal rawlen rawget rawset, getmetatable for tables
-- only, setmetatable without __gc, private copies of math, string without
-- dump, table, utf8); unknown globals raise when read, globals cannot be
-- written.  While the policy runs (its chunk, each pass, each priority
-- call) an instruction budget and a cap on heap growth hold; once either
-- is exceeded every further instruction raises again, so pcall inside the
-- policy cannot swallow it, and the pass fails with the policy's name.
local gpolicy = require "grove.policy"

local M = {}

local fmt = string.format

M.builtins = {"fcfs", "easy", "conservative", "priority"}

local DEFAULT_BUDGET = 100000000
local DEFAULT_MEMORY = 256 * 1024 * 1024
local STEP = 1000

local function copy(t, skip)
  local c = {}
  for k, v in pairs(t) do
    if not (skip and skip[k]) then c[k] = v end
  end
  return c
end

local function new_env(name)
  local env = {
    assert = assert, error = error, ipairs = ipairs, next = next, pairs = pairs,
    pcall = pcall, xpcall = xpcall, select = select, tonumber = tonumber,
    tostring = tostring, type = type, rawequal = rawequal, rawlen = rawlen,
    rawget = rawget, rawset = rawset,
    math = copy(math), string = copy(string, {dump = true}), table = copy(table),
    utf8 = copy(utf8),
  }
  env.getmetatable = function(t)
    if type(t) ~= "table" then return nil end
    return getmetatable(t)
  end
  env.setmetatable = function(t, mt)
    if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
      error("setmetatable: __gc is not allowed in a queue policy", 2)
    end
    return setmetatable(t, mt)
  end
  env._G = env
  -- "FILE:LINE: " of the policy code that touched a global
  local function where()
    local info = debug.getinfo(3, "Sl")
    if info and info.currentline and info.currentline > 0 then
      return fmt("%s:%d: ", info.short_src, info.currentline)
    end
    return ""
  end
  return setmetatable(env, {
    __index = function(_, k)
      error(fmt("%squeue policy %s: unknown global '%s'", where(), name, tostring(k)), 0)
    end,
    __newindex = function(_, k)
      error(fmt("%squeue policy %s: cannot set global '%s'", where(), name, tostring(k)), 0)
    end,
  })
end

-- Work the simulator does for a policy (its ctx methods) must not be cut
-- in half by the budget: between enter() and leave() the limits wait, and
-- raise at the first hook after leave().
local critical = 0
function M.enter() critical = critical + 1 end
function M.leave() critical = critical - 1 end

-- Run f(...) under the policy's limits; true and results, or false and
-- the message.
local function guarded(self, f, ...)
  local budget, memory = self.budget, self.memory
  local used = 0
  local base = collectgarbage("count")
  local over
  local function hook()
    used = used + STEP
    if critical > 0 then return end
    if over then error(over, 0) end
    if used > budget then
      over = fmt("queue policy %s: instruction budget exceeded (%d)", self.name, budget)
      error(over, 0)
    end
    if (collectgarbage("count") - base) * 1024 > memory then
      over = fmt("queue policy %s: memory limit exceeded (%d bytes)", self.name, memory)
      error(over, 0)
    end
  end
  local prev = {debug.gethook()}
  critical = 0
  debug.sethook(hook, "", STEP)
  local res = table.pack(xpcall(f, function(e)
    return over or (type(e) == "string" and e or tostring(e))
  end, ...))
  debug.sethook(table.unpack(prev, 1, 3))
  if over then return false, over end
  return table.unpack(res, 1, res.n)
end

-- The path of the queue policy called name, or nil, message, "ENOENT".
function M.find(name)
  local tried = {}
  for _, d in ipairs(gpolicy.dirs()) do
    local path = d .. "/queues/" .. name .. ".lua"
    local f = io.open(path, "r")
    if f then
      f:close()
      return path
    end
    tried[#tried + 1] = d .. "/queues"
  end
  return nil, fmt("no queue policy '%s' in %s", name, table.concat(tried, ", ")), "ENOENT"
end

local Policy = {}
Policy.__index = Policy

-- Call a hook of the policy under its limits; raises the policy's error.
function Policy:call(hook, ...)
  local f = self[hook]
  local ok, a = guarded(self, f, ...)
  if not ok then error(a, 0) end
  return a
end

local function load_text(text, path, opts, depth)
  local name = opts.name or path:match("([^/]+)%.lua$") or path
  local self = setmetatable({path = path, name = name,
    budget = opts.budget or DEFAULT_BUDGET, memory = opts.memory or DEFAULT_MEMORY}, Policy)
  local env = new_env(name)
  local chunk, err = load(text, "@" .. path, "t", env)
  if not chunk then return nil, err, "EINVAL" end
  local ok, t = guarded(self, chunk)
  if not ok then return nil, t, "EINVAL" end
  if type(t) ~= "table" then
    return nil, fmt("%s: a queue policy must return a table (got %s)", path, type(t)), "EINVAL"
  end
  for k in pairs(t) do
    if k ~= "name" and k ~= "description" and k ~= "schedule" and k ~= "priority"
      and k ~= "base" then
      return nil, fmt("%s: unknown field '%s' (name, description, schedule, priority, base)",
        path, tostring(k)), "EINVAL"
    end
  end
  if t.name ~= nil and type(t.name) ~= "string" then
    return nil, path .. ": name must be a string", "EINVAL"
  end
  self.name = t.name or name
  self.description = type(t.description) == "string" and t.description or ""
  for _, h in ipairs{"schedule", "priority"} do
    if t[h] ~= nil and type(t[h]) ~= "function" then
      return nil, fmt("%s: %s must be a function", path, h), "EINVAL"
    end
  end
  self.schedule, self.priority = t.schedule, t.priority
  if t.base ~= nil then
    if type(t.base) ~= "string" then return nil, path .. ": base must be a name", "EINVAL" end
    if depth > 8 then return nil, path .. ": base policies nest too deeply", "EINVAL" end
    local b, msg, code = M.load(t.base, opts, depth + 1)
    if not b then return nil, fmt("%s: base '%s': %s", path, t.base, msg), code end
    self.schedule = self.schedule or b.schedule
    self.priority = self.priority or b.priority
    self.base = b
  end
  if not self.schedule then
    return nil, path .. ": a queue policy needs schedule (or a base that has one)", "EINVAL"
  end
  return self
end

-- Load a queue policy by name or path.  opts: budget (instructions per
-- call, default 100,000,000), memory (bytes of heap growth per call,
-- default 256 MiB).  A policy, or nil, message, code.
function M.load(spec, opts, depth)
  if type(spec) ~= "string" then
    error(fmt("bad argument #1 to 'load' (string expected, got %s)", type(spec)), 2)
  end
  opts = opts or {}
  local path = spec
  if not spec:find("/", 1, true) and not spec:find("%.lua$") then
    local found, msg, code = M.find(spec)
    if not found then return nil, msg, code end
    path = found
  end
  local f, err = io.open(path, "r")
  if not f then return nil, err, "ENOENT" end
  local text = f:read("a")
  f:close()
  return load_text(text, path, opts, depth or 0)
end

-- The same from text; name is used as the file name in messages.
function M.parse(text, name, opts)
  return load_text(text, name, opts or {}, 0)
end

return M
