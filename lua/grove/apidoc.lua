-- grove.apidoc: the Lua API reference as text, for the REPL's :help NAME.
--
--   apidoc.dir()             the directory of the reference's sources, or nil
--   apidoc.entries()         {NAME = entry}: every entry, by every name it
--                            answers to, or nil, message
--   apidoc.lookup(name [, env])  the text of the entry for name, or nil,
--                            message; "m:match" finds matcher:match when
--                            env.m is a matcher
--   apidoc.read(module)      the entries of one module's file, in order,
--                            each with the line its block starts on
--                            (line) and its example's first line
--                            (usage_line), or nil, message
--   apidoc.parse(text, module, path)  the same from a file's text
--
-- The reference is written once, as LDoc comments in docs/api-src/*.luadoc:
-- scripts/docs turns them into the HTML of docs/api/, and this module reads
-- the same files at run time, so the REPL needs no LDoc and shows what the
-- HTML shows.  Entries: "--- " blocks with @function, @table, @type or
-- @module, and their @param, @tparam, @return, @field and @usage lines;
-- each @field of a table is an entry too (TABLE.FIELD: `:help
-- policy_table.score`).
--
-- This module holds the reading and the lookup only; it must not hold
-- reference text (docs/api-src) or REPL commands (grove.repl).
local check = require("grove.check")
local files = require("grove.files")
local suggest = require("grove.suggest")

local M = {}

-- The reference's modules, one docs/api-src/NAME.luadoc each.
-- grove.core.graphs, .sets and .io are parts of grove.core: their
-- functions are also found as grove.core.NAME.
M.MODULES = {"grove.core", "grove.core.graphs", "grove.core.sets", "grove.core.io",
  "grove", "grove.cluster", "grove.jobspec", "grove.policy", "grove.pretty", "grove.sim",
  "grove.repl"}

-- The docs/api-src directory: GROVE_APIDOC if set, else beside every lua/
-- directory on package.path (the source tree), else share/grove/api-src
-- beside share/lua/5.4 (an installed copy).
function M.dir()
  local dirs = files.dirs("docs/api-src", "api-src")
  local env = os.getenv("GROVE_APIDOC")
  if env then table.insert(dirs, 1, env) end
  for _, d in ipairs(dirs) do
    if files.readable(d .. "/" .. M.MODULES[1] .. ".luadoc") then return d end
  end
  return nil
end

-- The "--- " blocks of a file: arrays of their comment lines, "-- "
-- stripped, each with the line it starts on (first).
local function blocks(text)
  local out, cur = {}, nil
  local n = 0
  for line in (text .. "\n"):gmatch("(.-)\n") do
    n = n + 1
    if line:match("^%-%-%-") then
      cur = {(line:gsub("^%-%-%-%s?", "")), first = n}
      out[#out + 1] = cur
    elseif cur and line:match("^%-%-") then
      cur[#cur + 1] = (line:gsub("^%-%-%s?", ""))
    else
      cur = nil
    end
  end
  return out
end

-- LDoc's short forms of a typed parameter (@string text, @int[opt=0] n).
local SHORT_TYPES = {string = "string", int = "int", number = "number", bool = "bool",
  table = "table", func = "function"}

-- One block as an entry: {kind =, name =, text = {...}, params = {...},
-- returns = {...}, fields = {...}, usage = {...}}; tags continue on the
-- lines below them, and @usage takes the lines below it as they are.
local function entry(lines)
  local e = {text = {}, params = {}, returns = {}, fields = {}, usage = {}, line = lines.first}
  local last
  for i, l in ipairs(lines) do
    local tag, rest = l:match("^@(%w+)%s*(.*)$")
    if last == e.usage and not tag then
      e.usage[#e.usage + 1] = l
    elseif tag == "usage" then
      last = e.usage
      e.usage_line = (lines.first or 1) + i - (rest ~= "" and 1 or 0)
      if rest ~= "" then e.usage[#e.usage + 1] = rest end
    elseif tag == "function" or tag == "table" or tag == "type" or tag == "module"
      or tag == "section" then
      e.kind, e.name = tag, rest
      last = nil
    elseif tag == "param" or tag == "tparam" or SHORT_TYPES[tag] then
      last = e.params
      local opt = rest:match("^%[opt[^%]]*%]%s*")
      if opt then rest = rest:sub(#opt + 1) end
      local ty, pname, desc = SHORT_TYPES[tag] or "", rest:match("^(%S+)%s*(.*)$")
      if tag == "tparam" then ty, pname, desc = rest:match("^(%S+)%s+(%S+)%s*(.*)$") end
      pname, desc = pname or rest, desc or ""
      last[#last + 1] = ("%s%s%s%s"):format(pname, ty ~= "" and " (" .. ty .. ")" or "",
        opt and " [optional]" or "", desc ~= "" and ": " .. desc or "")
    elseif tag == "return" or tag == "treturn" then
      last = e.returns
      last[#last + 1] = rest
    elseif tag == "field" then
      last = e.fields
      last[#last + 1] = rest
    elseif last and l ~= "" then
      last[#last] = last[#last] .. " " .. l
    else
      e.text[#e.text + 1] = l
    end
  end
  return e
end

function M.read(mod)
  local dir = M.dir()
  if not dir then
    return nil, "the API reference (docs/api-src) was not found: set GROVE_APIDOC"
  end
  local path = dir .. "/" .. mod .. ".luadoc"
  local text, err = files.read(path)
  if not text then return nil, err end
  return M.parse(text, mod, path)
end

-- The entries of the text of a reference file (module mod, read from
-- path), in order.
function M.parse(text, mod, path)
  local out = {}
  for _, b in ipairs(blocks(text)) do
    local e = entry(b)
    if e.kind and e.kind ~= "section" then
      e.module, e.path = mod, path
      out[#out + 1] = e
    end
  end
  return out
end

local cache

function M.entries()
  if cache then return cache end
  if not M.dir() then
    return nil, "the API reference (docs/api-src) was not found: set GROVE_APIDOC"
  end
  local all = {}
  for _, mod in ipairs(M.MODULES) do
    for _, e in ipairs(M.read(mod) or {}) do
      all[e.name] = all[e.name] or e
      local owner = mod:match("^grove%.core%.") and "grove.core" or mod
      if e.kind == "function" and not e.name:find("[:.]") and not e.name:find("^:") then
        all[owner .. "." .. e.name] = all[owner .. "." .. e.name] or e
      end
      if e.kind == "table" or e.kind == "type" then
        for _, f in ipairs(e.fields) do
          local fname, desc = f:match("^(%S+)%s*(.*)$")
          local full = e.name .. "." .. fname
          local fe = {kind = "field", name = full, module = mod, text = {desc},
            params = {}, returns = {}, fields = {}, usage = {}}
          all[full] = all[full] or fe
          all[owner .. "." .. full] = all[owner .. "." .. full] or fe
        end
      end
    end
  end
  cache = all
  return all
end

local function render(e)
  local head = e.kind == "function" and e.name .. "(...)" or e.name
  local lines = {("%s  [%s, %s]"):format(head, e.kind, e.module)}
  for _, l in ipairs(e.text) do lines[#lines + 1] = "  " .. l end
  local function list(title, t)
    if #t == 0 then return end
    lines[#lines + 1] = "  " .. title .. ":"
    for _, x in ipairs(t) do lines[#lines + 1] = "    " .. x end
  end
  list("Parameters", e.params)
  list("Returns", e.returns)
  list("Fields", e.fields)
  if #e.usage > 0 then
    lines[#lines + 1] = "  Example:"
    for _, l in ipairs(e.usage) do lines[#lines + 1] = "    " .. l end
  end
  return (table.concat(lines, "\n"):gsub("\n%s*\n%s*\n", "\n\n"))
end

-- The class name of a value as the reference names it ("matcher" for a
-- grove.matcher), or nil.
local function class_of(x)
  local mt = (type(x) == "userdata" or type(x) == "table") and getmetatable(x)
  local name = type(mt) == "table" and rawget(mt, "__name")
  if type(name) ~= "string" then return nil end
  return name:match("^grove%.(.+)$")
end

function M.lookup(name, env)
  check.arg(name, "string", 1, "lookup")
  local all, err = M.entries()
  if not all then return nil, err end
  name = name:gsub("^%s+", ""):gsub("%s+$", ""):gsub("%(%)$", "")
  if all[name] then return render(all[name]) end
  -- m:match, with m a matcher of the session
  local var, sep, key = name:match("^([%a_][%w_]*)([:.])([%a_][%w_]*)$")
  local class = var and env and class_of(rawget(env, var))
  if class and all[class .. ":" .. key] then return render(all[class .. ":" .. key]) end
  if var and sep and all["grove.core." .. key] and (var == "core" or var == "grove") then
    return render(all["grove.core." .. key])
  end
  -- the last part alone, when one entry has it
  local tail = name:match("[:.]([%a_][%w_]*)$") or name
  local found = {}
  for n in pairs(all) do
    if n == tail or n:match("[:.]" .. tail:gsub("%p", "%%%0") .. "$") then found[#found + 1] = n end
  end
  table.sort(found)
  local distinct = {}
  for _, n in ipairs(found) do distinct[all[n]] = distinct[all[n]] or n end
  local names = {}
  for _, n in pairs(distinct) do names[#names + 1] = n end
  table.sort(names)
  if #names == 1 then return render(all[names[1]]) end
  if #names > 1 then
    return nil, ("'%s' names several entries: %s"):format(name, table.concat(names, ", "))
  end
  -- the closest name: a method of the class of var (m:matc), else any entry
  local near = all
  if class then
    near = {}
    for n in pairs(all) do
      local k = n:match("^" .. class:gsub("%p", "%%%0") .. ":([%a_][%w_]*)$")
      if k then near[#near + 1] = var .. sep .. k end
    end
    table.sort(near)
  end
  return nil, ("no entry for '%s' in the API reference%s (`make docs` lists them in " ..
    "docs/api/)"):format(name, suggest.hint(name, near))
end

return M
