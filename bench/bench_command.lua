-- bench_command.lua: one `grove query` match command, timed inside the
-- process: what a user waits for between typing the command and the last
-- byte of its result (the graph's load and the process's exit left out).
--
--   build/grove bench/bench_command.lua GRAPH JOBSPEC [FORMAT [OUT [POLICY]]]
--
-- GRAPH is a GRUG recipe (bench/side_by_side.sh writes them: in/gN.graphml,
-- and the whole machine's jobspec in/dN.yaml).  The command `match
-- allocate JOBSPEC` runs once in a fresh session writing FORMAT (default
-- simple) to the file OUT (default /dev/null), as `grove query -F FORMAT
-- -P POLICY -e` would.  Prints the command's wall and CPU time (os.clock:
-- user and system), then the same request again, after a cancel, in its
-- parts: the matcher, and the writer making the text and writing it.
-- Run it several times and take medians: the machine may be shared.
--
-- It must not assert like a spec: it measures and reports.
local query = require("grove.query")
local core = require("grove.core")

local graph, jobspec = arg[1], arg[2]
local format, out_path, policy = arg[3] or "simple", arg[4] or "/dev/null", arg[5] or "first"
if not (graph and jobspec) then
  io.stderr:write("usage: bench_command.lua GRAPH JOBSPEC [FORMAT [OUT [POLICY]]]\n")
  os.exit(2)
end

local g = assert(query.load_graph(graph, {format = "grug"}))
local out = assert(io.open(out_path, "w"))
local s = assert(query.new {graph = g, out = out, info = out, policy = policy, format = format,
  elapsed = true})
local wall, cpu = core.wall_clock, os.clock

local w0, c0 = wall(), cpu()
s:execute("match allocate " .. jobspec)
out:flush()
print(("command      wall %8.1f ms  cpu %8.1f ms"):format((wall() - w0) * 1e3,
  (cpu() - c0) * 1e3))

-- the parts, on the same request held again
s:execute("cancel 1")
local js = assert(s:load_jobspec(jobspec))
w0, c0 = wall(), cpu()
local job = assert(s.matcher:match(js, "allocate", 2, {picks = false}))
local w1, c1 = wall(), cpu()
assert(s.writer:job(s.matcher, job.id, format, s:shape_of_resources(js:resources()), out))
out:flush()
local w2, c2 = wall(), cpu()
print(("  matcher    wall %8.1f ms  cpu %8.1f ms"):format((w1 - w0) * 1e3, (c1 - c0) * 1e3))
print(("  writer     wall %8.1f ms  cpu %8.1f ms"):format((w2 - w1) * 1e3, (c2 - c1) * 1e3))
out:close()
