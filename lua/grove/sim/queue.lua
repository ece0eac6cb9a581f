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
--   half_life           optional: seconds; the simulator then keeps each
--                       user's and group's usage decayed by it
--                       (ctx:decayed_usage)
--   reprioritize        optional, with priority: when every waiting
--                       job's priority is asked again (its inputs moved):
--                       {every = SECONDS, ends = true}, or SECONDS alone.
--                       Otherwise a job's priority is asked once, when it
--                       joins the queue (see docs/sim.md)
--
-- Each file runs in the sandbox placement policies run in (docs/security.md):
-- a Lua state of its own, loaded as text only, with an allow-listed
-- environment (no io, os, load, require, debug, string.dump; unknown
-- globals raise, globals cannot be written), Grove's bounded pattern
-- matcher, an instruction budget and a wall-clock limit per call of
-- schedule or priority (a priority asked inside a pass, ctx:reprioritize,
-- is part of the pass's), and a memory
-- cap on everything the policy holds across calls.  pcall inside the
-- policy cannot catch the limits.  The policy and the simulator exchange
-- copies (grove.core.script_load: structured data, made in C); ctx's
-- methods run in the simulator with the policy's clock running (its time
-- limit counts them).  The jobs
-- and the queue the policy sees are mirrors the simulator refreshes
-- (Policy:share), so a pass does not copy the queue.
local check = require("grove.check")
local core = require("grove.core")
local files = require("grove.files")
local gpolicy = require("grove.policy")
local suggest = require("grove.suggest")

local M = {}

local fmt = string.format

M.builtins = {"fcfs", "easy", "conservative", "priority", "fairshare", "backfill", "queues"}

local DEFAULT_BUDGET = 100000000
local DEFAULT_MEMORY = 256 * 1024 * 1024
local DEFAULT_TIME = 10

-- The path of the queue policy called name, or nil, message, "ENOENT".
function M.find(name)
  return gpolicy.find_in("queues", name, "queue policy", M.builtins)
end

local Policy = {}
Policy.__index = Policy

-- Call a hook of the policy (or of its base) under its limits; raises
-- "queue policy NAME: FILE:LINE: reason" (inside another hook's call:
-- that call fails with it).
function Policy:call(hook, ...)
  return self[hook](...)
end

-- As call, protected: true and the hook's results, or nil, "queue policy
-- NAME: FILE:LINE: reason", "ECANCELED" when the hook raised or went past
-- a limit (budget, time, memory), as a placement policy's match fails.
function Policy:pcall(hook, ...)
  local r = table.pack(pcall(self[hook], ...))
  if not r[1] then return nil, tostring(r[2]), "ECANCELED" end
  return table.unpack(r, 1, r.n)
end

-- Every sandbox the policy's hooks run in: its own, then its bases'
-- (made once: a pass shares a field with them for each reservation).
local function scripts(self)
  local list = self.scripts
  if list then return list end
  list = {}
  local p = self
  while p do
    list[#list + 1] = p.script
    p = p.base
  end
  self.scripts = list
  return list
end

-- Give the policy ctx (a table of functions, see docs/sim.md): the
-- policy's ctx calls them, and ctx passed to a hook is the policy's ctx.
function Policy:bind(ctx)
  for _, s in ipairs(scripts(self)) do s:api(ctx) end
  self.bound = ctx
end

-- Calls of the API function name whose one argument is a table the
-- policy was shared, with no field unless and a number above limit at
-- field, answer false in the sandbox without calling the host (a refusal
-- the host would give; see script:bound).
function Policy:bound_calls(name, field, limit, unless)
  for _, s in ipairs(scripts(self)) do s:bound(name, field, limit, unless) end
end

-- Mirror t in the policy's sandboxes under key (see grove.core.script_load):
-- t keeps its identity across calls and is copied only here.
function Policy:share(key, t)
  for _, s in ipairs(scripts(self)) do s:share(key, t) end
end

-- One scalar field of t changed (t[name] = value, set by the caller):
-- the same in its mirrors, without copying t again.
function Policy:share_field(key, name, value)
  local list = scripts(self)
  for i = 1, #list do list[i]:share_field(key, name, value) end
end

function Policy:unshare(key)
  for _, s in ipairs(scripts(self)) do s:unshare(key) end
end

-- Where hook is defined: "FILE:LINE:COL" of its first mention as a
-- field of the policy's table in the file's text (the file alone when the
-- text does not show it plainly).
function Policy:where(hook)
  local from = self[hook .. "_from"] or self.path
  local p = self
  while p and p.path ~= from do p = p.base end
  local text = p and p.text
  local at = text and (text:find("[%s{,;]" .. hook .. "%s*=%s*function") or
    text:find("function%s+[%w_.:]*" .. hook .. "%s*%("))
  if not at then return from end
  at = text:find(hook, at, true)
  local line, bol = 1, 1
  for nl in text:sub(1, at - 1):gmatch("()\n") do line, bol = line + 1, nl + 1 end
  return string.format("%s:%d:%d", from, line, at - bol + 1)
end

-- A fresh copy of the policy (its own sandboxes), for another simulation.
function Policy:reload()
  return M.parse(self.text, self.path, self.opts)
end

-- The host function that calls hook of script (the name is the
-- policy's, for messages).
local function hook_caller(self, script, hook)
  return function(...)
    local r = table.pack(script:call(hook, ...))
    if not r[1] then error(fmt("queue policy %s: %s", self.name, r[2]), 0) end
    return table.unpack(r, 2, r.n)
  end
end

local FIELDS = {name = true, description = true, schedule = true, priority = true, base = true,
  half_life = true, in_order = true, estimate_depth = true, reprioritize = true}

local REPRIORITIZE = "reprioritize must be seconds > 0 or {every = SECONDS, ends = true}"

-- The policy's reprioritize as {every =, ends =}, or nil, message.
local function reprioritize(script, kind, path)
  local r = script:get("reprioritize")
  if kind == "number" then r = {every = r} end
  if kind ~= "number" and kind ~= "table" then return nil, path .. ": " .. REPRIORITIZE end
  for k in pairs(r) do
    if k ~= "every" and k ~= "ends" then
      return nil, fmt("%s: unknown field '%s'%s in reprioritize (every, ends)", path, tostring(k),
        suggest.hint(tostring(k), {"every", "ends"}))
    end
  end
  local e = r.every
  if (e ~= nil and (type(e) ~= "number" or not (e > 0 and e < math.huge))) or
      (r.ends ~= nil and type(r.ends) ~= "boolean") or (e == nil and not r.ends) then
    return nil, path .. ": " .. REPRIORITIZE
  end
  return {every = e, ends = r.ends or nil}
end

local function load_text(text, path, opts, depth)
  local name = path:match("([^/]+)%.lua$") or path
  local script, err, code = core.script_load(text, path, {budget = opts.budget or DEFAULT_BUDGET,
    memory = opts.memory or DEFAULT_MEMORY, time = opts.time or DEFAULT_TIME})
  if not script then return nil, err, code end
  local types, got = script:types()
  if not types then
    return nil, fmt("%s: a queue policy must return a table (got %s)", path, got), "EINVAL"
  end
  for k in pairs(types) do
    if not FIELDS[k] then
      return nil, fmt("%s: unknown field '%s'%s (name, description, schedule, priority, base, " ..
        "half_life, in_order, estimate_depth, reprioritize)",
        path, tostring(k), suggest.hint(tostring(k), FIELDS)), "EINVAL"
    end
  end
  local self = setmetatable({path = path, text = text, opts = opts, script = script}, Policy)
  if types.name ~= nil and types.name ~= "string" then
    return nil, path .. ": name must be a string", "EINVAL"
  end
  self.name = types.name and script:get("name") or name
  self.description = types.description == "string" and script:get("description") or ""
  if types.half_life ~= nil then
    local hl = types.half_life == "number" and script:get("half_life")
    if not hl or hl <= 0 then
      return nil, path .. ": half_life must be a number of seconds > 0", "EINVAL"
    end
    self.half_life = hl
  end
  if types.in_order ~= nil then
    if types.in_order ~= "boolean" then
      return nil, path .. ": in_order must be true or false", "EINVAL"
    end
    self.in_order = script:get("in_order")
  end
  if types.estimate_depth ~= nil then
    local d = types.estimate_depth == "number" and math.tointeger(script:get("estimate_depth"))
    if not d or d < 1 then
      return nil, path .. ": estimate_depth must be a positive integer", "EINVAL"
    end
    self.estimate_depth = d
  end
  if types.reprioritize ~= nil then
    local r, rmsg = reprioritize(script, types.reprioritize, path)
    if not r then return nil, rmsg, "EINVAL" end
    self.reprioritize = r
  end
  for _, h in ipairs{"schedule", "priority"} do
    if types[h] ~= nil and types[h] ~= "function" then
      return nil, fmt("%s: %s must be a function", path, h), "EINVAL"
    end
    if types[h] then
      self[h] = hook_caller(self, script, h)
      self[h .. "_from"] = path
    end
  end
  if types.base ~= nil then
    if types.base ~= "string" then return nil, path .. ": base must be a name", "EINVAL" end
    local bname = script:get("base")
    if depth > 8 then return nil, path .. ": base policies nest too deeply", "EINVAL" end
    local b, msg, bcode = M.load(bname, opts, depth + 1)
    if not b then return nil, fmt("%s: base '%s': %s", path, bname, msg), bcode end
    if not self.schedule then self.schedule, self.schedule_from = b.schedule, b.schedule_from end
    if not self.priority then
      -- the base's priority, and when it is asked again unless said here
      self.priority, self.priority_from = b.priority, b.priority_from
      if self.reprioritize == nil then self.reprioritize = b.reprioritize end
    end
    self.half_life = self.half_life or b.half_life
    if self.in_order == nil then self.in_order = b.in_order end
    self.estimate_depth = self.estimate_depth or b.estimate_depth
    self.base = b
  end
  if not self.schedule then
    return nil, path .. ": a queue policy needs schedule (or a base that has one)", "EINVAL"
  end
  if self.reprioritize and not self.priority then
    return nil, path .. ": reprioritize needs a priority (or a base that has one)", "EINVAL"
  end
  return self
end

-- Load a queue policy by name or path.  opts: budget (instructions per
-- pass, default 100,000,000), memory (bytes the policy may hold, default
-- 256 MiB), time (wall-clock seconds per pass, default 10); any other key
-- raises.  A policy, or nil, message, code.
local OPTIONS = {budget = 1, memory = 1, time = 1}

function M.load(spec, opts, depth)
  if type(spec) ~= "string" then
    error(fmt("bad argument #1 to 'load' (string expected, got %s)", type(spec)), 2)
  end
  check.keys(opts, OPTIONS, 2, "load")
  opts = opts or {}
  local path, msg, code = gpolicy.resolve(spec, M.find)
  if not path then return nil, msg, code end
  local text, err, ecode = files.read(path)
  if not text then return nil, err, ecode end
  return load_text(text, path, opts, depth or 0)
end

-- The same from text; name is used as the file name in messages.
function M.parse(text, name, opts)
  check.keys(opts, OPTIONS, 3, "parse")
  return load_text(text, name, opts or {}, 0)
end

return M
