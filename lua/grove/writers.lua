-- grove.writers: the output formats of `grove query`.
--
-- The formats themselves are written in C (grove.core.writer, see
-- core/writers.h): a match's selection or a find's vertices become text
-- there, from a single core to a whole machine.  This module holds what the
-- Lua side needs around them:
--
--   writers.formats           the format names ("simple", "pretty_simple",
--                             "jgf", "rlite", "rv1", "rv1_nosched")
--   writers.known(fmt)        true if fmt is one of them
--   writers.json(value)       compact JSON of a Lua value (keys sorted), for
--                             the metadata Lua adds to JGF (find's filters)
--
-- This module holds only the output formats; it must not read commands or
-- change the graph.
local core = require("grove.core")

local M = {}

M.formats = {}
for i, f in ipairs(core.writer_formats) do M.formats[i] = f end

function M.known(fmt)
  for _, f in ipairs(M.formats) do
    if f == fmt then return true end
  end
  return false
end

-- ---- JSON --------------------------------------------------------------

local escapes = {['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f",
  ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t"}

local function jstring(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return escapes[c] or ("\\u%04x"):format(c:byte())
  end) .. '"'
end

local function is_array(t)
  local n = #t
  if n == 0 then return next(t) == nil end
  for k in pairs(t) do
    if math.type(k) ~= "integer" or k < 1 or k > n then return false end
  end
  return true
end

local function encode(v, out)
  local t = type(v)
  if t == "string" then
    out[#out + 1] = jstring(v)
  elseif t == "number" then
    out[#out + 1] = math.type(v) == "integer" and tostring(v) or ("%.17g"):format(v)
  elseif t == "boolean" then
    out[#out + 1] = tostring(v)
  elseif t == "table" then
    if is_array(v) then
      out[#out + 1] = "["
      for i, x in ipairs(v) do
        if i > 1 then out[#out + 1] = ", " end
        encode(x, out)
      end
      out[#out + 1] = "]"
    else
      local keys = {}
      for k in pairs(v) do keys[#keys + 1] = tostring(k) end
      table.sort(keys)
      out[#out + 1] = "{"
      for i, k in ipairs(keys) do
        if i > 1 then out[#out + 1] = ", " end
        out[#out + 1] = jstring(k) .. ": "
        encode(v[k], out)
      end
      out[#out + 1] = "}"
    end
  else
    out[#out + 1] = "null"
  end
end

function M.json(v)
  local out = {}
  encode(v, out)
  return table.concat(out)
end

return M
