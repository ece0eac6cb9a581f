-- grove query: the resource-query compatible command interpreter.
--
--   grove query -L FILE [-f grug|jgf|hwloc|rv1exec] [-W TYPES] [-S SET]
--               [-P POLICY] [-p HL:LL,...] [-F FORMAT] [-t OUTFILE]
--               [-T TRAVERSER] [-r N] [-e] [-d] < COMMANDS
--
-- Reads commands (see grove.query) from standard input.  The options keep
-- their resource-query spellings, long forms included (--load-file=FILE,
-- --prune-filters=..., ...).  Exit status: 0, 1 when the graph cannot be
-- loaded or the session cannot start, 2 for a bad command line.
--
-- This module holds only the command line; the command language is
-- grove.query's and must not be done here.
local help = require "grove.cmd.help"
local query = require "grove.query"
local writers = require "grove.writers"

local M = {}

M.usage = [[
Usage: grove query -L FILE [options] < COMMANDS
  -L, --load-file=FILE           the resource graph (required)
  -f, --load-format=FMT          grug (default), jgf, hwloc, rv1exec
  -W, --load-allowlist=TYPES     resource types to load (grug, hwloc): node,core,...
  -S, --match-subsystems=SET     CA (containment, default), IBA, PA, C+PA, ...
                                 (matching walks the containment subsystem)
  -P, --match-policy=POLICY      a built-in policy (first, low, high, lonode,
                                 hinode, lonodex, hinodex, firstnodex, locality,
                                 variation) or a Lua policy file
  -p, --prune-filters=HL:LL,...  pruning aggregates, e.g. ALL:core,ALL:node
  -F, --match-format=FMT         simple (default), pretty_simple, jgf, rlite,
                                 rv1, rv1_nosched
  -t, --test-output=FILE         write results to FILE instead of stdout
  -T, --traverser=NAME           accepted for compatibility (simple, flexible)
  -r, --reserve-vtx-vec=N        accepted for compatibility
  -e, --elapse-time              print the time each match takes
  -d, --disable-prompt           no prompt, even on a terminal
  -h, --help                     this text
Commands: type help at the prompt.
]]

local long = {["load-file"] = "L", ["load-format"] = "f", ["load-allowlist"] = "W",
  ["match-subsystems"] = "S", ["match-policy"] = "P", ["prune-filters"] = "p",
  ["match-format"] = "F", ["test-output"] = "t", traverser = "T", ["reserve-vtx-vec"] = "r",
  ["elapse-time"] = "e", ["disable-prompt"] = "d", help = "h"}
local takes_value = {L = true, f = true, W = true, S = true, P = true, p = true, F = true,
  t = true, T = true, r = true}

-- Parse argv into an options table, or nil, message.
function M.parse(args)
  local o = {}
  local i = 1
  while i <= #args do
    local a = args[i]
    local key, val
    if a:sub(1, 2) == "--" then
      local name, v = a:match("^%-%-([%w-]+)=(.*)$")
      name = name or a:sub(3)
      key = long[name]
      if not key then return nil, ("unknown option '%s'"):format(a) end
      val = v
    elseif a:match("^%-%a") then
      key = a:sub(2, 2)
      if #a > 2 then val = a:sub(3) end
    else
      return nil, ("unexpected argument '%s'"):format(a)
    end
    if takes_value[key] then
      if val == nil then
        i = i + 1
        val = args[i]
        if val == nil then return nil, ("option -%s needs a value"):format(key) end
      end
      o[key] = val
    elseif key == "e" or key == "d" or key == "h" then
      if val ~= nil and val ~= "" then return nil, ("option '%s' takes no value"):format(a) end
      o[key] = true
    else
      return nil, ("unknown option '%s'"):format(a)
    end
    i = i + 1
  end
  return o
end

local function stdin_is_tty()
  local ok = os.execute("[ -t 0 ]")
  return ok == true
end

-- Read commands at a terminal through the line editor (grove.core.edit):
-- arrows, history (Up recalls a command), Ctrl-C abandons the line,
-- Ctrl-D ends.
local function edited(s, prompt)
  local edit = require("grove.core").edit
  while true do
    local line = edit.readline(prompt)
    if line == nil then break end
    if line then
      if line:match("%S") then edit.add_history(line) end
      if not s:execute(line) then break end
    end
  end
end

function M.main(args)
  local o, msg = M.parse(args)
  local rc = help.begin("query", M.usage, o, msg, o and o.h)
  if rc then return rc end
  if not o.L then
    io.stderr:write("grove query: -L FILE is required\n", M.usage)
    return 2
  end
  local fmt = o.F or "simple"
  local known = false
  for _, f in ipairs(writers.formats) do known = known or f == fmt end
  if not known then
    io.stderr:write(("grove query: unknown output format '%s' (%s)\n"):format(fmt,
      table.concat(writers.formats, ", ")))
    return 2
  end
  local g, err = query.load_graph(o.L, {format = o.f or "grug", types = o.W})
  if not g then
    io.stderr:write("grove query: cannot load ", o.L, ": ", tostring(err), "\n")
    return 1
  end
  local out = io.stdout
  if o.t then
    local f, ferr = io.open(o.t, "w")
    if not f then
      io.stderr:write("grove query: ", ferr, "\n")
      return 1
    end
    out = f
  end
  local s, serr = query.new{graph = g, policy = o.P, format = fmt, out = out,
    elapsed = o.e, aggregates = o.p, subsystems = o.S}
  if not s then
    io.stderr:write("grove query: ", tostring(serr), "\n")
    return 1
  end
  if o.S and o.S ~= "CA" then
    io.stderr:write(("grove query: note: -S %s: matching walks the containment subsystem " ..
      "only\n"):format(o.S))
  end
  if o.T and o.T ~= "simple" then
    io.stderr:write(("grove query: note: -T %s: sibling slots are all required, not " ..
      "alternatives\n"):format(o.T))
  end
  if not o.d and stdin_is_tty() then
    edited(s, "grove query> ")
  else
    s:run(io.stdin, nil)
  end
  s:close()
  if out ~= io.stdout then out:close() end
  io.stdout:flush()
  return 0
end

return M
