-- grove.options: the reader of the grove commands' command lines
-- (grove sim, grove flux-export, grove acquire-replay).
--
--   local o, rest = options.parse(args, spec)
--
-- spec maps each long option's name to how it is read:
--
--   short = "o"   it is -o too
--   key = "k"     the field of o it sets (default: its name)
--   value = true  it takes a value: --name=V, --name V or -o V; o[key] is the
--                 last one given
--   list = true   it takes the arguments after it up to the next one that
--                 starts with "-" (--compare A B C); o[key] is their list
--   read = f      with value or list: f(o, v, name) reads the value (or the
--                 list) itself, for an option given more than once or one
--                 checked as it comes; it returns true, or nil and a message
--
-- Any other option is a flag: o[key] = true.  With spec[1] == "positional"
-- the arguments that are not options ("-" is one) are returned in rest, in
-- their order; without it they are refused.
--
-- A bad command line gives nil and a message naming the argument at fault:
-- "option --out needs a value", "option --force takes no value", "unknown
-- option -x" (a command with positional arguments), "unknown argument x",
-- "unknown argument --polcy (did you mean '--policy'?)".
local suggest = require("grove.suggest")

local M = {}

-- " (did you mean '--NAME'?)" for a long option a that is not one of
-- spec's, when one is close; else "".
local function hint(spec, a)
  local name = a:match("^%-%-([^=]+)")
  if not name then return "" end
  local names = {}
  for long in pairs(spec) do
    if type(long) == "string" then names[#names + 1] = long end
  end
  table.sort(names)
  local near = suggest.closest(name, names)
  return near and (" (did you mean '--%s'?)"):format(near) or ""
end

-- The option spec's entry for an argument, its name as written (--name or
-- -o) and the value given with "=", or nil when it is not one of spec's.
local function lookup(spec, a)
  local name, v = a:match("^%-%-([%w-]+)=(.*)$")
  if not name then name = a:match("^%-%-([%w-]+)$") end
  if name then
    local opt = spec[name]
    if opt then return opt, name, "--" .. name, v end
    return nil
  end
  local s = a:match("^%-(%a)$")
  if not s then return nil end
  for long, opt in pairs(spec) do
    if type(opt) == "table" and opt.short == s then return opt, long, a end
  end
  return nil
end

function M.parse(args, spec)
  local o, rest = {}, {}
  local positional = spec[1] == "positional"
  local i = 1
  while i <= #args do
    local a = args[i]
    local opt, name, written, v = lookup(spec, a)
    local key = opt and (opt.key or name)
    if not opt then
      if positional and (a == "-" or a:sub(1, 1) ~= "-") then
        rest[#rest + 1] = a
      else
        return nil, (positional and "unknown option " or "unknown argument ") .. a .. hint(spec, a)
      end
    elseif opt.list then
      if v then return nil, "option " .. written .. " takes its values as separate arguments" end
      v = {}
      while args[i + 1] and not args[i + 1]:match("^%-") do
        v[#v + 1] = args[i + 1]
        i = i + 1
      end
    elseif opt.value then
      if not v then
        i = i + 1
        v = args[i]
        if not v then return nil, "option " .. written .. " needs a value" end
      end
    elseif v then
      return nil, "option " .. written .. " takes no value"
    else
      v = true
    end
    if opt then
      if opt.read then
        local ok, msg = opt.read(o, v, name)
        if not ok then return nil, msg end
      else
        o[key] = v
      end
    end
    i = i + 1
  end
  return o, rest
end

return M
