-- grove.jobspec: jobspec shorthands and writers.
--
-- build{...} turns the usual command-line request (nodes, tasks, cores and
-- gpus per task, per slot or per node, exclusive, duration, constraints)
-- into a canonical jobspec table, the way `run -N2 -n8 -c4 -g1 -t 1h`
-- would.  to_yaml and to_json write any jobspec table as text the C parser
-- reads back (grove.core.jobspec_parse).  Pure Lua: nothing here needs the
-- C module, except that grove.core.null (JSON null), when the module is
-- loaded, is written as null.
--
--   jobspec.build{nodes = 2, tasks = 8, cores_per_task = 4, gpus_per_task = 1,
--                 exclusive = true, duration = "1h", constraints = {"ssd"},
--                 command = {"app", "-v"}}
--
-- Options (all optional; one of the three shapes):
--   per task:  tasks, cores_per_task (1), gpus_per_task, nodes,
--              tasks_per_node (tasks = nodes * tasks_per_node)
--   per slot:  slots, cores_per_slot, gpus_per_slot, tasks_per_slot (1),
--              nodes (slots are spread over the nodes)
--   per node:  nodes, cores_per_node, gpus_per_node, tasks_per_node (1)
--   nodes may also be a moldable count, "2-8:2:*" or {min=2, max=8, ...},
--   when no task count has to be divided by it.
--   exclusive (needs nodes), duration (seconds or "90s" "30m" "1.5h" "2d"),
--   constraints (an RFC 31 table, or a list of property names), command
--   (list or string, default {"true"}), cwd, environment, queue, name,
--   user (attributes.user), label (the slot label, default "task").
--
-- A request that cannot be built raises, naming grove.jobspec and the
-- option at fault, the same way for an unknown option and a bad value
-- ("grove.jobspec: nodez: unknown option (did you mean 'nodes'?)",
-- "grove.jobspec: nodes: must be an integer >= 1 (got -1)"), at the line
-- that called it: a request is written by hand, and a failure handed on
-- as nil and a message would be read as the next argument of whatever
-- takes the jobspec.  The module is callable: jobspec{...} is
-- jobspec.build{...}.
--
-- This module holds the shorthand builder and the writers; it must not
-- parse or validate jobspecs itself (grove.core does).
local check = require("grove.check")
local suggest = require("grove.suggest")

local M = {}

local floor = math.floor
local tointeger = math.tointeger
local fmt = string.format
local concat = table.concat

-- The deepest nesting written: GROVE_NEST_MAX (core/grove.h), which every
-- reader of Grove accepts; grove.core.nest_max says it when loaded.
local null, NEST_MAX = nil, 128
do
  local ok, core = pcall(require, "grove.core")
  if ok and type(core) == "table" then null, NEST_MAX = core.null, core.nest_max end
end

local function check_depth(depth)
  if depth >= NEST_MAX then error("table nested too deep (a cycle?)", 0) end
end

-- ---- durations (Flux standard duration: a number and s, m, h, d, ms) ----

local UNITS = {[""] = 1, s = 1, ms = 0.001, m = 60, h = 3600, d = 86400}

-- Seconds from a number or a duration string, or nil, message, "EINVAL".
function M.duration(v)
  local secs
  if type(v) == "number" then
    secs = v
  elseif type(v) == "string" then
    local num, unit = v:match("^%s*([%d%.]+)(%a*)%s*$")
    local n = num and num:match("^%d*%.?%d*$") and num ~= "." and tonumber(num)
    if not n or not UNITS[unit] then
      return nil, fmt("invalid duration '%s' (use seconds or a number with s, m, h, d)", v),
        "EINVAL"
    end
    secs = n * UNITS[unit]
  else
    error(fmt("bad argument #1 to 'duration' (number or string expected, got %s)", type(v)), 2)
  end
  if secs ~= secs or secs < 0 or secs == math.huge then
    return nil, fmt("invalid duration '%s' (must be finite and not negative)", tostring(v)),
      "EINVAL"
  end
  return tointeger(secs) or secs
end

-- ---- build ----

local KNOWN = {
  nodes = true, tasks = true, cores_per_task = true, gpus_per_task = true,
  tasks_per_node = true, slots = true, cores_per_slot = true, gpus_per_slot = true,
  tasks_per_slot = true, cores_per_node = true, gpus_per_node = true, exclusive = true,
  duration = true, constraints = true, command = true, cwd = true, environment = true,
  queue = true, name = true, user = true, label = true,
}

-- Raise "grove.jobspec: FIELD: reason" (build adds where it was called).
local function fail(field, msg, ...)
  error(fmt("grove.jobspec: %s: " .. msg, field, ...), 0)
end

-- A whole number >= min from option k, or nil when absent.
local function whole(o, k, min)
  local v = o[k]
  if v == nil then return nil end
  local n = type(v) == "number" and tointeger(v)
  if not n or n < min then fail(k, "must be an integer >= %d (got %s)", min, tostring(v)) end
  return n
end

local function resource(rtype, count, with, exclusive)
  local r = {type = rtype, count = count}
  if exclusive then r.exclusive = true end
  if with then r.with = with end
  return r
end

local function slot_children(cores, gpus)
  local with = {resource("core", cores)}
  if gpus and gpus > 0 then with[2] = resource("gpu", gpus) end
  return with
end

-- The options of the three shapes, in the order a message names them.
local SHAPES = {
  {"per-task", {"tasks", "cores_per_task", "gpus_per_task"}},
  {"per-slot", {"slots", "cores_per_slot", "gpus_per_slot", "tasks_per_slot"}},
  {"per-node", {"cores_per_node", "gpus_per_node"}},
}

-- The first option of each shape given in o: {"tasks", "slots"} for a mix.
local function shapes_given(o)
  local given = {}
  for _, shape in ipairs(SHAPES) do
    for _, k in ipairs(shape[2]) do
      if o[k] ~= nil then
        given[#given + 1] = k
        break
      end
    end
  end
  return given
end

local build

-- Build a canonical jobspec table from shorthand options o.
function M.build(o)
  if type(o) ~= "table" then
    error(fmt("bad argument #1 to 'grove.jobspec' (table expected, got %s)", type(o)), 2)
  end
  local ok, t = pcall(build, o)
  if not ok then error(t, 2) end
  return t
end

function build(o)
  local names = {}
  for k in pairs(KNOWN) do names[#names + 1] = k end
  table.sort(names)
  for k in pairs(o) do
    if not KNOWN[k] then
      fail(tostring(k), "unknown option%s", suggest.hint(tostring(k), names))
    end
  end
  local v = {}
  for _, spec in ipairs{
    {"tasks", 1}, {"cores_per_task", 1}, {"gpus_per_task", 0}, {"tasks_per_node", 1},
    {"slots", 1}, {"cores_per_slot", 1}, {"gpus_per_slot", 0}, {"tasks_per_slot", 1},
    {"cores_per_node", 1}, {"gpus_per_node", 0},
  } do
    v[spec[1]] = whole(o, spec[1], spec[2])
  end

  -- nodes: a whole number, or a moldable count (string or table).
  local nodes, moldable = nil, false
  if o.nodes ~= nil then
    if type(o.nodes) == "string" or type(o.nodes) == "table" then
      nodes, moldable = o.nodes, true
    else
      nodes = whole(o, "nodes", 1)
    end
  end

  local per_task = v.tasks or v.cores_per_task or v.gpus_per_task
  local per_slot = v.slots or v.cores_per_slot or v.gpus_per_slot or v.tasks_per_slot
  local per_node = v.cores_per_node or v.gpus_per_node
  if (per_task and 1 or 0) + (per_slot and 1 or 0) + (per_node and 1 or 0) > 1 then
    fail(table.concat(shapes_given(o), ", "), "per-task, per-slot and per-node options do " ..
      "not mix")
  end
  if o.exclusive and not nodes then fail("exclusive", "needs a node count (nodes)") end
  if moldable and (v.tasks or v.slots) then
    fail("nodes", "a moldable node count cannot divide a %s count", v.tasks and "task" or "slot")
  end

  local label = o.label or "task"
  if type(label) ~= "string" or label == "" then fail("label", "must be a non-empty string") end
  local excl = o.exclusive and true or nil
  local resources, count

  if per_node or (nodes and not per_task and not per_slot) then
    -- One slot per node holding the node's cores and gpus.
    if not nodes then
      fail(v.cores_per_node and "cores_per_node" or "gpus_per_node", "needs nodes")
    end
    local slot = resource("slot", 1, slot_children(v.cores_per_node or 1, v.gpus_per_node))
    slot.label = label
    resources = {resource("node", nodes, {slot}, excl)}
    count = {per_slot = v.tasks_per_node or 1}
  elseif per_slot then
    local nslots = v.slots or 1
    local slot
    if nodes then
      if nslots < nodes then fail("slots", "must be >= nodes (%d), got %d", nodes, nslots) end
      slot = resource("slot", (nslots + nodes - 1) // nodes,
        slot_children(v.cores_per_slot or 1, v.gpus_per_slot))
      slot.label = label
      resources = {resource("node", nodes, {slot}, excl)}
    else
      slot = resource("slot", nslots, slot_children(v.cores_per_slot or 1, v.gpus_per_slot))
      slot.label = label
      resources = {slot}
    end
    count = {per_slot = v.tasks_per_slot or 1}
  else
    -- Per task: the shape `run -N -n -c -g` builds.
    local ntasks = v.tasks
    if not ntasks then
      ntasks = nodes and (nodes * (v.tasks_per_node or 1)) or 1
    elseif v.tasks_per_node then
      fail("tasks_per_node", "give tasks or tasks_per_node, not both")
    end
    local children = slot_children(v.cores_per_task or 1, v.gpus_per_task)
    if nodes then
      if nodes > ntasks then fail("nodes", "must not exceed tasks (%d), got %d", ntasks, nodes) end
      local slot = resource("slot", (ntasks + nodes - 1) // nodes, children)
      slot.label = label
      resources = {resource("node", nodes, {slot}, excl)}
      count = ntasks % nodes == 0 and {per_slot = 1} or {total = ntasks}
    else
      local slot = resource("slot", ntasks, children)
      slot.label = label
      resources = {slot}
      count = {per_slot = 1}
    end
  end

  -- command
  local command = o.command or {"true"}
  if type(command) == "string" then
    local words = {}
    for w in command:gmatch("%S+") do words[#words + 1] = w end
    command = words
  end
  if type(command) ~= "table" or #command == 0 then
    fail("command", "must be a non-empty list of strings")
  end
  for i, w in ipairs(command) do
    if type(w) ~= "string" then fail("command[" .. i .. "]", "must be a string") end
  end

  -- attributes
  local system = {duration = 0}
  if o.duration ~= nil then
    local d, err = M.duration(o.duration)
    if not d then fail("duration", "%s", err) end
    system.duration = d
  end
  if o.constraints ~= nil then
    local c = o.constraints
    if type(c) == "string" then c = {c} end
    if type(c) ~= "table" then fail("constraints", "must be a table") end
    if #c > 0 then
      for i, p in ipairs(c) do
        if type(p) ~= "string" then fail("constraints[" .. i .. "]", "must be a property name") end
      end
      c = {properties = c}
    end
    system.constraints = c
  end
  for _, k in ipairs{"cwd", "queue"} do
    if o[k] ~= nil then
      if type(o[k]) ~= "string" then fail(k, "must be a string") end
      system[k] = o[k]
    end
  end
  if o.environment ~= nil then
    if type(o.environment) ~= "table" then fail("environment", "must be a table") end
    system.environment = o.environment
  end
  if o.name ~= nil then system.job = {name = tostring(o.name)} end
  local attributes = {system = system}
  if o.user ~= nil then
    if type(o.user) ~= "table" then fail("user", "must be a table") end
    if next(o.user) ~= nil then attributes.user = o.user end
  end

  -- Version 1 when the request fits RFC 25: integer counts, one task with
  -- per_slot 1 or total.
  local version = 1
  if moldable or (count.per_slot and count.per_slot ~= 1) then version = 9999 end
  return {
    version = version,
    resources = resources,
    tasks = {{command = command, slot = label, count = count}},
    attributes = attributes,
  }
end

-- ---- writers ----

-- Keys in the order a reader expects them; others follow, sorted.
local ORDER = {}
for i, k in ipairs{
  "version", "resources", "tasks", "attributes",
  "command", "slot",
  "type", "count", "label", "unit", "id", "exclusive", "with",
  "distribution",
  "min", "max", "operator", "operand", "per_slot", "per_resource", "total",
  "system", "user", "duration", "cwd", "queue", "environment", "constraints",
} do ORDER[k] = i end

local LIST_KEYS = {
  with = true, command = true, resources = true, tasks = true, properties = true,
  hostlist = true, ranks = true, ["and"] = true, ["or"] = true, ["not"] = true,
  dependencies = true,
}

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do
    if type(k) ~= "string" then
      error(fmt("cannot write a table with a %s key", type(k)), 3)
    end
    keys[#keys + 1] = k
  end
  table.sort(keys, function(a, b)
    local ia, ib = ORDER[a], ORDER[b]
    if ia and ib then return ia < ib end
    if ia or ib then return ia ~= nil end
    return a < b
  end)
  return keys
end

-- n if t has exactly the keys 1..n (n >= 1), else nil.
local function array_len(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  if n > 0 and #t == n then return n end
  return nil
end

local function number_text(x)
  if math.type(x) == "integer" then return tostring(x) end
  if x ~= x or x == math.huge or x == -math.huge then
    error("cannot write a non-finite number", 3)
  end
  if x == floor(x) and x > -2^53 and x < 2^53 then return fmt("%.1f", x) end
  local s
  for prec = 15, 17 do
    s = fmt("%." .. prec .. "g", x)
    if tonumber(s) == x then break end
  end
  if not s:find("[%.e]") then s = s .. ".0" end
  if s:find("e") and not s:find("%.") then s = s:gsub("e", ".0e", 1) end
  return s
end

local function json_string(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    local esc = {['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\r"] = "\\r",
                 ["\t"] = "\\t", ["\b"] = "\\b", ["\f"] = "\\f"}
    return esc[c] or fmt("\\u%04x", c:byte())
  end) .. '"'
end

local function is_null(v)
  return v == nil or (null ~= nil and v == null)
end

local function json_value(v, key, in_list, depth, out)
  check_depth(depth)
  local t = type(v)
  if is_null(v) then
    out[#out + 1] = "null"
  elseif t == "boolean" then
    out[#out + 1] = tostring(v)
  elseif t == "number" then
    out[#out + 1] = number_text(v)
  elseif t == "string" then
    out[#out + 1] = json_string(v)
  elseif t == "table" then
    local n = array_len(v)
    if n or (next(v) == nil and not in_list and LIST_KEYS[key]) then
      out[#out + 1] = "["
      for i = 1, n or 0 do
        if i > 1 then out[#out + 1] = "," end
        json_value(v[i], nil, true, depth + 1, out)
      end
      out[#out + 1] = "]"
    else
      out[#out + 1] = "{"
      for i, k in ipairs(sorted_keys(v)) do
        if i > 1 then out[#out + 1] = "," end
        out[#out + 1] = json_string(k) .. ":"
        json_value(v[k], k, false, depth + 1, out)
      end
      out[#out + 1] = "}"
    end
  else
    error(fmt("cannot write a %s", t), 0)
  end
end

-- Compact JSON text of a jobspec (or any) table.
function M.to_json(tbl)
  local out = {}
  json_value(tbl, nil, false, 0, out)
  return concat(out)
end

-- YAML 1.1 words that a plain scalar would turn into something else.
local SPECIAL = {}
for _, w in ipairs{"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"} do
  SPECIAL[w] = true
end

local function yaml_scalar(v)
  if is_null(v) then return "null" end
  local t = type(v)
  if t == "boolean" then return tostring(v) end
  if t == "number" then return number_text(v) end
  if t ~= "string" then error(fmt("cannot write a %s", t), 0) end
  if v:match("^[%a_/][%w_%./%-]*$") and not SPECIAL[v:lower()] then return v end
  return json_string(v)
end

local function scalar_list(t)
  for _, x in ipairs(t) do
    if type(x) == "table" then return false end
  end
  return true
end

local emit_map, emit_list

local function inline(v, key, in_list)
  if type(v) ~= "table" then return yaml_scalar(v) end
  if next(v) == nil then
    return (not in_list and LIST_KEYS[key]) and "[]" or "{}"
  end
  local parts = {}
  for i, x in ipairs(v) do parts[i] = yaml_scalar(x) end
  return "[" .. concat(parts, ", ") .. "]"
end

local function simple(v)
  return type(v) ~= "table" or next(v) == nil or (array_len(v) and scalar_list(v))
end

function emit_list(a, indent, out, depth)
  check_depth(depth)
  local pad = string.rep(" ", indent)
  for _, x in ipairs(a) do
    if simple(x) then
      out[#out + 1] = pad .. "- " .. inline(x, nil, true)
    elseif array_len(x) then
      out[#out + 1] = pad .. "-"
      emit_list(x, indent + 2, out, depth + 1)
    else
      emit_map(x, indent + 2, out, pad .. "- ", depth + 1)
    end
  end
end

function emit_map(t, indent, out, first_prefix, depth)
  check_depth(depth)
  local pad = string.rep(" ", indent)
  for i, k in ipairs(sorted_keys(t)) do
    local prefix = (i == 1 and first_prefix) or pad
    local v = t[k]
    local key = yaml_scalar(k)
    if simple(v) then
      out[#out + 1] = prefix .. key .. ": " .. inline(v, k, false)
    elseif array_len(v) then
      out[#out + 1] = prefix .. key .. ":"
      emit_list(v, indent + 2, out, depth + 1)
    else
      out[#out + 1] = prefix .. key .. ":"
      emit_map(v, indent + 2, out, nil, depth + 1)
    end
  end
end

-- Block-style YAML text of a jobspec (or any mapping) table.
function M.to_yaml(tbl)
  check.arg(tbl, "table", 1, "to_yaml")
  if next(tbl) == nil then return "{}\n" end
  local out = {}
  if array_len(tbl) then
    emit_list(tbl, 0, out, 0)
  else
    emit_map(tbl, 0, out, nil, 0)
  end
  return concat(out, "\n") .. "\n"
end

setmetatable(M, {__call = function(_, o) return M.build(o) end})

return M
