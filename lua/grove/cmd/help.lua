-- grove help: what the grove executable can do.
--
-- `grove help` lists the commands; `grove help CMD` prints one command's
-- usage.  A command module (grove.cmd.NAME) states its usage in M.usage,
-- a string (or a function returning one); the forms the executable handles
-- itself (run, -e, the prompt) have their texts here.
--
-- This module holds the usage texts and the one start of every command's
-- main (begin); it must not hold any command's own work.
local M = {}

local TEXT = [[
grove: a resource engine for HPC scheduling, scriptable in Lua.

Usage:
  grove                        the interactive prompt (a Lua REPL with an example cluster)
  grove SCRIPT.lua [ARGS]      run a Lua script (arg holds ARGS; require "grove" gives the API)
  grove run SCRIPT [ARGS]      the same
  grove -e CODE [ARGS]         run a chunk of Lua
  grove query [OPTIONS]        the resource-query compatible command language
  grove acquire-replay FILE    replay acquisition messages and commands, printing the state
  grove sim [OPTIONS]          replay a workload trace under a queue policy (docs/sim.md)
  grove flux-export [-o FILE]  write the Flux instance's history, for grove sim --history
  grove help [COMMAND]         this text, or one command's usage
  grove --version              the version

`grove help COMMAND` or `grove COMMAND --help` prints a command's usage.  Commands are
Lua modules: `grove NAME` runs grove.cmd.NAME.  Documentation: README.md and docs/.
]]

M.usage = [[
Usage: grove help [COMMAND]

Without COMMAND, what the grove executable can do.  With one, that command's
usage: run, -e, repl, query, acquire-replay, sim, flux-export, help (or any grove.cmd.NAME
module).
]]

-- The forms main.c handles itself, not modules of grove.cmd.
local BUILTIN = {
  run = [[
Usage: grove run SCRIPT [ARGS]
       grove SCRIPT.lua [ARGS]

Run a Lua script with the grove module on the path.  The global `arg` holds
ARGS (arg[0] is SCRIPT); `require "grove"` gives the whole API.  Exit status 1
when the script raises an error, with the error and a traceback on stderr.
]],
  ["-e"] = [[
Usage: grove -e CODE [ARGS]

Run CODE, a chunk of Lua, with the grove module on the path; `arg` holds ARGS.
]],
  repl = [[
Usage: grove

The interactive prompt: a Lua REPL with `grove` loaded and an example cluster.
Type :help at the prompt for its commands (docs/repl.md).
]],
}

-- The usage text of one command, or nil when there is no such command.
function M.text(topic)
  if topic == "help" then return M.usage end
  if BUILTIN[topic] then return BUILTIN[topic] end
  if not topic:match("^[%w_-]+$") then return nil end
  local ok, mod = pcall(require, "grove.cmd." .. topic)
  if not ok or type(mod) ~= "table" then return nil end
  local u = mod.usage
  if type(u) == "function" then u = u() end
  if type(u) == "string" then return u end
  return ("grove %s: no usage text\n"):format(topic)
end

-- How every command's main goes on once its arguments are parsed (opts
-- nil when they were bad, msg then why; help true when they ask for the
-- usage): the exit status to return at once, or nil to go on.  Bad
-- arguments print "grove NAME: MSG" and the usage on standard error
-- (status 2); help prints the usage on standard output (status 0).
function M.begin(name, usage, opts, msg, help)
  if not opts then
    io.stderr:write("grove ", name, ": ", msg, "\n", usage)
    return 2
  end
  if help then
    io.stdout:write(usage)
    return 0
  end
  return nil
end

function M.main(args)
  local topic = args and args[1]
  if topic == "-h" or topic == "--help" then
    io.stdout:write(M.usage)
    return 0
  end
  if topic then
    local text = M.text(topic)
    if text then
      io.stdout:write(text)
      return 0
    end
    io.stderr:write(("grove help: no command '%s'\n"):format(topic))
    return 2
  end
  io.stdout:write(TEXT)
  return 0
end

return M
