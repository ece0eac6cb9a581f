-- sim_lib.lua: what bench_sim.lua and bench_queues.lua share to run grove
-- sim as a user does.
--
--   local sim = dofile((arg[0]:match("^(.*/)") or "./") .. "sim_lib.lua")
--
-- sim.GROVE is the grove executable running the benchmark (else
-- build/grove); sim.dir a fresh temporary folder; sim.write(path, text)
-- writes a file; sim.sh(cmd) runs a shell command: its output (standard
-- error too) and whether it succeeded; sim.trace(path, n, procs, args)
-- generates a trace of n jobs for procs processors, seed 1, with more of
-- grove sim's arguments, into path, and returns path; sim.median(t) is
-- the median of list t (sorted in place); sim.loadavg() the machine's load
-- averages over 1, 5 and 15 minutes, as text.
local M = {}

M.GROVE = arg[-1] and arg[-1]:match("grove$") and arg[-1] or "build/grove"
M.dir = os.tmpname()
os.remove(M.dir)
assert(os.execute("mkdir -p " .. M.dir))

function M.write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

function M.sh(cmd)
  local p = assert(io.popen(cmd .. " 2>&1"))
  local text = p:read("a")
  local ok = p:close()
  return text, ok
end

function M.trace(path, n, procs, args)
  local _, ok = M.sh(("%s sim --generate %d --procs %d --seed 1 %s > %s")
    :format(M.GROVE, n, procs, args, path))
  assert(ok, "cannot generate " .. path)
  return path
end

function M.median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end

function M.loadavg()
  local f = io.open("/proc/loadavg")
  local l = f and f:read("l") or "?"
  if f then f:close() end
  return l:match("^(%S+ %S+ %S+)") or l
end

return M
