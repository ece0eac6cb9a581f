-- grove query: the resource-query compatible command interpreter.
--
--   grove query -L FILE [-f grug|jgf|hwloc|rv1exec] [-W TYPES] [-S SET]
--               [-P POLICY] [-p HL:LL,...] [-F FORMAT] [-t OUTFILE]
--               [-T TRAVERSER] [-g dot|graphml -o BASENAME] [-r N] [-e] [-d]
--               < COMMANDS
--
-- Reads commands (see grove.query) from standard input.  The options keep
-- their resource-query spellings, long forms included (--load-file=FILE,
-- --prune-filters=..., ...).  Exit status: 0, 1 when the graph cannot be
-- loaded or the session cannot start, 2 for a bad command line.
--
-- This module holds only the command line; the command language is
-- grove.query's and must not be done here.
local core = require("grove.core")
local graph_out = require("grove.graph_out")
local gpolicy = require("grove.policy")
local help = require("grove.cmd.help")
local query = require("grove.query")
local writers = require("grove.writers")
local suggest = require("grove.suggest")

local M = {}

M.usage = [[
Usage: grove query -L FILE [options] < COMMANDS
  -L, --load-file=FILE           the resource graph (required)
  -f, --load-format=FMT          grug, jgf, hwloc, rv1exec; default by FILE's
                                 extension: .json/.jgf jgf, .xml hwloc, else grug
  -W, --load-allowlist=TYPES     resource types to load (grug, hwloc): node,core,...
  -S, --match-subsystems=SET     CA (containment, default), PA (power), C+PA, IBA,
                                 ...: matching walks the first one listed
  -P, --match-policy=POLICY      a built-in policy (first, the default, and
                                 firstnodex as the reference engine means them:
                                 Grove's fresh and freshnodex; low, high,
                                 lonode, hinode, lonodex, hinodex, locality,
                                 variation, ...), a policy string ("policy=high
                                 node_centric=true node_exclusive=true
                                 stop_on_1_matches=true") or a Lua policy file
  -p, --prune-filters=HL:LL,...  pruning aggregates, e.g. ALL:core,ALL:node
  -F, --match-format=FMT         simple (default), pretty_simple, jgf, rlite,
                                 rv1, rv1_nosched
  -t, --test-output=FILE         write results to FILE instead of stdout
  -T, --traverser-policy=NAME    simple (default), or flexible: sibling slots are
                                 alternatives (or-slots)
  -g, --graph-format=FMT         dot (default) or graphml, for -o
  -o, --graph-output=BASENAME    at the end, write the graph to BASENAME.FMT
  -r, --reserve-vtx-vec=N        accepted for compatibility
  -e, --elapse-time              print the load time of the graph and the wall
                                 time of each match command, end to end
  -d, --disable-prompt           no prompt, even on a terminal
  -h, --help                     this text
Commands: type help at the prompt.
]]

local long = {["load-file"] = "L", ["load-format"] = "f", ["load-allowlist"] = "W",
  ["match-subsystems"] = "S", ["match-policy"] = "P", ["prune-filters"] = "p",
  ["match-format"] = "F", ["test-output"] = "t", traverser = "T", ["traverser-policy"] = "T",
  ["graph-format"] = "g", ["graph-output"] = "o", ["reserve-vtx-vec"] = "r",
  ["elapse-time"] = "e", ["disable-prompt"] = "d", help = "h"}
local takes_value = {L = true, f = true, W = true, S = true, P = true, p = true, F = true,
  t = true, T = true, r = true, g = true, o = true}

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
      if not key then
        local near = suggest.closest(name, long)
        return nil, ("unknown option '%s'%s"):format(a,
          near and (" (did you mean '--%s'?)"):format(near) or "")
      end
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

-- The reference engine's pruning filters when -p gives none: they only
-- prune (placements are the same under any), except that fresh ranks
-- vertices by the last type they name (core for nodes, node for the rest).
local REFERENCE_AGGREGATES = "ALL:core,ALL:node"

-- A policy string of the reference engine's ("policy=high
-- node_centric=true ..."): the built-in it names (grove.policy.fluxion).
function M.policy_string(spec)
  return gpolicy.fluxion_string(spec)
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
  if not writers.known(fmt) then
    io.stderr:write(("grove query: unknown output format '%s'%s; the formats are %s\n"):format(fmt,
      suggest.hint(fmt, writers.formats), table.concat(writers.formats, ", ")))
    return 2
  end
  local gfmt = (o.g or "dot"):lower()
  if not graph_out.formats[gfmt] then
    io.stderr:write(("grove query: unknown format for --graph-format: %s (dot, graphml)\n"):format(
      o.g))
    return 2
  end
  local policy, perr = gpolicy.fluxion(o.P or "first")
  if not policy then
    io.stderr:write("grove query: -P ", o.P, ": ", perr, "\n")
    return 2
  end
  local t0 = core.wall_clock()
  local g, err = query.load_graph(o.L, {format = o.f, types = o.W})
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
  local s, serr = query.new{graph = g, policy = policy, format = fmt, out = out,
    elapsed = o.e, aggregates = o.p or REFERENCE_AGGREGATES, subsystems = o.S,
    or_slots = o.T == "flexible"}
  if not s then
    io.stderr:write("grove query: ", tostring(serr), "\n")
    return 1
  end
  if o.e then
    -- the graph read and made ready for the first match
    io.stdout:write(("INFO: Graph Load Time: %.6f\nINFO: Vertex Count: %d\n" ..
      "INFO: Edge Count: %d\n"):format(core.wall_clock() - t0, g:count(), g:edge_count()))
    io.stdout:flush()
  end
  if o.T and o.T ~= "simple" and o.T ~= "flexible" then
    io.stderr:write(("grove query: note: -T %s: sibling slots are all required, not " ..
      "alternatives\n"):format(o.T))
  end
  if not o.d and stdin_is_tty() then
    edited(s, "grove query> ")
  else
    s:run(io.stdin, nil)
  end
  local status = 0
  if o.o then
    io.stdout:write("INFO: Write the target graph of the matcher...\n")
    local ok, werr = graph_out.write(s.graph, gfmt, o.o)
    if not ok then
      io.stderr:write("grove query: ERROR: ", tostring(werr), "\n")
      status = 1
    end
  end
  s:close(true)
  if out ~= io.stdout then out:close() end
  io.stdout:flush()
  return status
end

return M
