-- grove help: what the grove executable can do.
local M = {}

local TEXT = [[
grove: a resource engine for HPC scheduling, scriptable in Lua.

Usage:
  grove                        the interactive prompt (a Lua REPL with an example cluster)
  grove SCRIPT.lua [ARGS]      run a Lua script (arg holds ARGS; require "grove" gives the API)
  grove run SCRIPT [ARGS]      the same
  grove -e CODE [ARGS]         run a chunk of Lua
  grove query [OPTIONS]        the resource-query compatible command language (grove query -h)
  grove acquire-replay FILE    replay acquisition messages and commands, printing the state
  grove help                   this text

Commands are Lua modules: `grove NAME` runs grove.cmd.NAME.  Documentation: README.md and
docs/ in the source tree.
]]

function M.main(args)
  local topic = args and args[1]
  if topic then
    local ok, mod = pcall(require, "grove.cmd." .. topic)
    if ok and type(mod) == "table" and mod.usage then
      io.stdout:write(mod.usage())
      return 0
    end
    io.stderr:write(("grove help: no command '%s'\n"):format(topic))
    return 2
  end
  io.stdout:write(TEXT)
  return 0
end

return M
