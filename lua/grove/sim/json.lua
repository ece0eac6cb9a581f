-- grove.sim.json: the JSON the simulator reads and writes (job lists,
-- summaries), in plain Lua.
--
--   json.decode(text [, source]) -> value, or nil, "SOURCE:LINE:COL: reason"
--   json.encode(value [, indent]) -> text
--
-- Objects become tables with string keys, arrays sequences, null nil (in
-- arrays, the array keeps its length through the field n).  Integers stay
-- integers.  Encoding writes tables with a positive length as arrays and
-- others as objects with sorted keys, so the output is stable.
--
-- It must not hold the simulator's own formats (trace.lua, metrics.lua);
-- it only turns JSON text into Lua values and back.
local M = {}

local byte, sub, find = string.byte, string.sub, string.find
local concat, fmt = table.concat, string.format

local function location(text, pos, source)
  local line = 1
  local i = 1
  while true do
    local nl = find(text, "\n", i, true)
    if not nl or nl >= pos then break end
    line = line + 1
    i = nl + 1
  end
  local col = pos - i + 1
  return fmt("%s:%d:%d", source, line, col)
end

local ESC = {['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n",
  r = "\r", t = "\t"}

local function utf8char(cp)
  return utf8.char(cp)
end

function M.decode(text, source)
  if type(text) ~= "string" then
    error(("bad argument #1 to 'decode' (string expected, got %s)"):format(type(text)), 2)
  end
  source = source or "(json)"
  local pos = 1
  local depth = 0
  local function fail(msg, at)
    error({location(text, at or pos, source) .. ": " .. msg}, 0)
  end
  local function skip()
    pos = find(text, "[^ \t\r\n]", pos) or #text + 1
  end
  local value
  local function string_value()
    local start = pos
    pos = pos + 1
    local out = {}
    while true do
      local s, e = find(text, '^[^"\\%c]*', pos)
      if e >= s then out[#out + 1] = sub(text, s, e) end
      pos = e + 1
      local c = sub(text, pos, pos)
      if c == '"' then
        pos = pos + 1
        return concat(out)
      elseif c == "\\" then
        local x = sub(text, pos + 1, pos + 1)
        if x == "u" then
          local hex = sub(text, pos + 2, pos + 5)
          if not hex:match("^%x%x%x%x$") then fail("bad \\u escape") end
          local cp = tonumber(hex, 16)
          pos = pos + 6
          if cp >= 0xD800 and cp <= 0xDBFF and sub(text, pos, pos + 1) == "\\u" then
            local lo = tonumber(sub(text, pos + 2, pos + 5), 16)
            if lo and lo >= 0xDC00 and lo <= 0xDFFF then
              cp = 0x10000 + (cp - 0xD800) * 0x400 + (lo - 0xDC00)
              pos = pos + 6
            end
          end
          out[#out + 1] = utf8char(cp)
        elseif ESC[x] then
          out[#out + 1] = ESC[x]
          pos = pos + 2
        else
          fail("bad escape in a string")
        end
      elseif c == "" then
        fail("unterminated string", start)
      else
        fail("control character in a string")
      end
    end
  end
  function value()
    skip()
    local c = byte(text, pos)
    if c == 123 then -- {
      depth = depth + 1
      if depth > 128 then fail("nested too deeply") end
      pos = pos + 1
      local obj = {}
      skip()
      if byte(text, pos) == 125 then
        pos = pos + 1
        depth = depth - 1
        return obj
      end
      while true do
        skip()
        if byte(text, pos) ~= 34 then fail("expected a string key") end
        local k = string_value()
        skip()
        if byte(text, pos) ~= 58 then fail("expected ':'") end
        pos = pos + 1
        obj[k] = value()
        skip()
        local d = byte(text, pos)
        pos = pos + 1
        if d == 125 then break end
        if d ~= 44 then fail("expected ',' or '}'", pos - 1) end
      end
      depth = depth - 1
      return obj
    elseif c == 91 then -- [
      depth = depth + 1
      if depth > 128 then fail("nested too deeply") end
      pos = pos + 1
      local arr, n = {}, 0
      skip()
      if byte(text, pos) == 93 then
        pos = pos + 1
        depth = depth - 1
        return arr
      end
      while true do
        n = n + 1
        arr[n] = value()
        skip()
        local d = byte(text, pos)
        pos = pos + 1
        if d == 93 then break end
        if d ~= 44 then fail("expected ',' or ']'", pos - 1) end
      end
      depth = depth - 1
      return arr
    elseif c == 34 then
      return string_value()
    elseif c == nil then
      fail("unexpected end of input")
    else
      local s, e = find(text, "^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
      if s then
        local num = sub(text, s, e)
        local v = math.tointeger(tonumber(num)) or tonumber(num)
        if not v then fail("bad number '" .. num .. "'") end
        pos = e + 1
        return v
      end
      for word, v in pairs{["true"] = true, ["false"] = false, null = M.null} do
        if sub(text, pos, pos + #word - 1) == word then
          pos = pos + #word
          if v == M.null then return nil end
          return v
        end
      end
      fail(fmt("unexpected character '%s'", sub(text, pos, pos)))
    end
  end
  local ok, res = pcall(function()
    local v = value()
    skip()
    if pos <= #text then fail("trailing characters after the value") end
    return v
  end)
  if ok then return res end
  if type(res) == "table" then return nil, res[1] end
  error(res, 0)
end

M.null = setmetatable({}, {__tostring = function() return "null" end})

local function number_text(x)
  if math.type(x) == "integer" then return tostring(x) end
  if x ~= x or x == math.huge or x == -math.huge then return "null" end
  if x == math.floor(x) and math.abs(x) < 2^53 then return fmt("%d", x) end
  return fmt("%.10g", x)
end

local function quote(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    local e = ({['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\t"] = "\\t",
      ["\r"] = "\\r"})[c]
    return e or fmt("\\u%04x", byte(c))
  end) .. '"'
end

local function encode(v, indent, level, out)
  local t = type(v)
  if t == "nil" or v == M.null then
    out[#out + 1] = "null"
  elseif t == "boolean" then
    out[#out + 1] = tostring(v)
  elseif t == "number" then
    out[#out + 1] = number_text(v)
  elseif t == "string" then
    out[#out + 1] = quote(v)
  elseif t == "table" then
    local pad = indent and ("\n" .. (" "):rep(indent * (level + 1))) or ""
    local close = indent and ("\n" .. (" "):rep(indent * level)) or ""
    local sep = indent and ": " or ":"
    if #v > 0 or next(v) == nil and getmetatable(v) == M.array then
      out[#out + 1] = "["
      for i = 1, #v do
        if i > 1 then out[#out + 1] = "," end
        out[#out + 1] = pad
        encode(v[i], indent, level + 1, out)
      end
      out[#out + 1] = #v > 0 and close or ""
      out[#out + 1] = "]"
    else
      local keys = {}
      for k in pairs(v) do keys[#keys + 1] = tostring(k) end
      table.sort(keys)
      out[#out + 1] = "{"
      for i, k in ipairs(keys) do
        if i > 1 then out[#out + 1] = "," end
        out[#out + 1] = pad .. quote(k) .. sep
        local x = v[k]
        if x == nil then x = v[tonumber(k)] end
        encode(x, indent, level + 1, out)
      end
      out[#out + 1] = #keys > 0 and close or ""
      out[#out + 1] = "}"
    end
  else
    error("cannot encode a " .. t .. " as JSON", 0)
  end
end

-- A metatable that marks an empty table as an array ([] rather than {}).
M.array = {}

function M.encode(v, indent)
  local out = {}
  encode(v, indent, 0, out)
  return concat(out)
end


return M
