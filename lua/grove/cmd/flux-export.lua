-- grove flux-export: write the history of the Flux instance it runs in
-- (its jobs with their events, its R and resource events, the
-- configuration in force) as one JSON-lines file, for `grove sim
-- --history` (docs/sim.md, "Test a policy on your own history before you
-- deploy it").
--
--   grove flux-export [-o FILE] [--flux CMD] [-q]
--
-- The reading is flux-core's Python bindings' (grove/flux/export.py, run
-- with `flux python`): one streaming request for every job's events, one
-- for the resource events.  This module holds the command line: it finds
-- the instance and the script, runs it, then reads the file back with the
-- history reader (grove.sim.history), so a file that would not replay is
-- reported here, not later.
local help = require("grove.cmd.help")
local options = require("grove.options")

local M = {}

M.usage = [[
Usage: grove flux-export [-o FILE] [--flux CMD] [--check] [-q]

Run inside a Flux instance (FLUX_URI set: `flux start`, `flux alloc`, or
`flux proxy URI grove flux-export`).  Writes the instance's history as JSON
lines: every job the job manager holds (jobspec, submit, urgency and
priority changes, holds and releases, dependencies, cancel, alloc, free,
result), the instance's R and resource events (drain, undrain, online,
offline), the configuration and sched-grove's settings.  Replay it with
`grove sim --history FILE`.

  -o, --out FILE   write to FILE (default: standard output)
  --flux CMD       the flux command (default: flux on PATH)
  --check          read the file back as grove sim --history will (about as
                   long again as the export)
  -q, --quiet      no progress lines on stderr

Exit status: 0; 1 when the instance could not be read or the file does not
read back (--check); 2 for a bad command line or when not inside an instance.
]]

local function sh_quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

local OPTIONS = {
  out = {short = "o", value = true},
  flux = {value = true},
  check = {},
  quiet = {short = "q"},
  help = {short = "h"},
}

local function fmt_cmd(flux, script, out, quiet)
  return (quiet and "GROVE_EXPORT_QUIET=1 " or "") .. sh_quote(flux) .. " python " ..
    sh_quote(script) .. " " .. sh_quote(out)
end

-- The path of export.py, beside grove.flux's modules.
local function script_path()
  local p = package.searchpath("grove.flux.config", package.path)
  if not p then return nil end
  return (p:gsub("config%.lua$", "export.py"))
end

function M.main(args)
  local o, msg = options.parse(args, OPTIONS)
  local rc = help.begin("flux-export", M.usage, o, msg, o and o.help)
  if rc then return rc end
  if (os.getenv("FLUX_URI") or "") == "" then
    io.stderr:write("grove flux-export: not inside a Flux instance (FLUX_URI is not set): " ..
      "run it under `flux start`, `flux alloc` or `flux proxy URI`\n")
    return 2
  end
  local script = script_path()
  local f = script and io.open(script, "r")
  if not f then
    io.stderr:write("grove flux-export: export.py not found beside grove.flux.config\n")
    return 1
  end
  f:close()
  local out = o.out
  local tmp = out and out ~= "-" and out or os.tmpname()
  local cmd = fmt_cmd(o.flux or "flux", script, tmp, o.quiet)
  local ok, how, code = os.execute(cmd)
  if not ok then
    io.stderr:write(("grove flux-export: %s %s %s\n"):format("reading the instance failed:",
      how, tostring(code)))
    if tmp ~= out then os.remove(tmp) end
    return 1
  end
  -- --check: read it back, so a file the replay would refuse is refused now
  local h, err
  if o.check then
    h, err = require("grove.sim.history").read(tmp)
    if not h then
      io.stderr:write("grove flux-export: the file does not read back: ", err, "\n")
      if tmp ~= out then os.remove(tmp) end
      return 1
    end
  end
  if tmp ~= out then
    local fin = assert(io.open(tmp, "rb"))
    while true do
      local chunk = fin:read(1 << 16)
      if not chunk then break end
      io.stdout:write(chunk)
    end
    fin:close()
    os.remove(tmp)
  elseif h and not o.quiet then
    io.stderr:write(("grove flux-export: %s reads back: %d jobs, %d resource events\n"):format(
      out, #h.jobs, #h.resource_events))
  end
  return 0
end

return M
