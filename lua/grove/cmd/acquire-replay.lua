-- grove acquire-replay: run a scripted RFC 28 acquisition session and
-- print the state after each step (see grove.replay for the script).
--
--   grove acquire-replay [options] FILE...     (FILE "-": standard input)
--     -p, --protocol=auto|v1|current   the protocol (default: the first
--                                      response decides)
--     -g, --group=NAME                 resource group of release requests
--     -P, --policy=NAME                the matcher's policy (default first)
--     -j, --json                       one JSON object per step
--     -q, --quiet                      print only failed expectations
--
-- Exit status: 0, 1 when an `expect` line failed, 2 for a bad command
-- line or a script error (unknown command, unreadable file).
--
-- This module holds only the command line; the replay is grove.replay's and
-- must not be done here.
local help = require("grove.cmd.help")
local options = require("grove.options")
local replay = require("grove.replay")

local M = {}

M.usage = [[
Usage: grove acquire-replay [options] FILE...
  -p, --protocol=auto|v1|current  acquisition protocol (default auto)
  -g, --group=NAME                resource group (default "default")
  -P, --policy=NAME               matcher policy (default first)
  -j, --json                      one JSON object per step
  -q, --quiet                     print only failed expectations
]]

local OPTIONS = {"positional",
  protocol = {short = "p", value = true},
  group = {short = "g", value = true},
  policy = {short = "P", value = true},
  json = {short = "j"},
  quiet = {short = "q"},
  help = {short = "h"},
}

local function parse(args)
  local opts, files = options.parse(args, OPTIONS)
  if not opts then return nil, files end
  if opts.protocol and not ({auto = 1, v1 = 1, current = 1})[opts.protocol] then
    return nil, "unknown protocol " .. opts.protocol .. " (auto, v1, current)"
  end
  return opts, files
end

function M.main(args)
  local opts, files = parse(args)
  local rc = help.begin("acquire-replay", M.usage, opts, files, opts and opts.help)
  if rc then return rc end
  if #files == 0 then
    io.stderr:write(M.usage)
    return 2
  end
  local status = 0
  for _, path in ipairs(files) do
    local ok, res, err = pcall(function()
      if path == "-" then
        local text = io.read("a")
        return replay.run(text, {source = "(stdin)", protocol = opts.protocol,
          group = opts.group, policy = opts.policy, json = opts.json})
      end
      return replay.run_file(path, {protocol = opts.protocol, group = opts.group,
        policy = opts.policy, json = opts.json})
    end)
    if not ok or not res then
      io.stderr:write("grove acquire-replay: ", tostring(ok and err or res), "\n")
      return 2
    end
    if not opts.quiet then io.stdout:write(res.output) end
    for _, f in ipairs(res.failures) do
      io.stderr:write(f, "\n")
      status = 1
    end
  end
  return status
end

return M
