-- bench_session.lua: what a held job costs a `grove query` session, split
-- into the Lua heap and the rest: one session (as `grove query -P first`
-- makes it), one match, JOBS - 1 more, every job cancelled; the resident
-- set (VmRSS) and Lua's heap (collectgarbage "count", before and after a
-- full collection: live state from garbage) at each point, and per job
-- after the first.
--
--   build/grove bench/bench_session.lua GRAPH.graphml JOBSPEC [JOBS [POLICY]]
--
-- JOBS defaults to 20,000, POLICY to fresh (what -P first names).  The
-- graphs and the one-core jobspec (b.yaml) are those bench/side_by_side.sh
-- writes under its WORKDIR/in.  Output goes to /dev/null.
--
-- It must not assert like a spec: it measures and reports.
local query = require("grove.query")

local graph, jobspec = arg[1], arg[2]
local jobs = tonumber(arg[3] or "20000")
local policy = arg[4] or "fresh"
if not graph or not jobspec or not jobs or jobs < 2 then
  io.stderr:write("usage: build/grove bench/bench_session.lua GRAPH JOBSPEC [JOBS [POLICY]]\n")
  os.exit(2)
end

local function rss_kb()
  for l in io.lines("/proc/self/status") do
    local v = l:match("^VmRSS:%s+(%d+)")
    if v then return tonumber(v) end
  end
  return 0
end

local g = assert(query.load_graph(graph, {format = "grug"}))
local null = assert(io.open("/dev/null", "w"))
local s = assert(query.new{graph = g, policy = policy, format = "simple", out = null,
  info = null, elapsed = true, aggregates = "ALL:core,ALL:node"})

-- the resident set and the Lua heap now, and the live Lua heap
local function point(what)
  local r, heap = rss_kb(), collectgarbage("count")
  collectgarbage()
  local live = collectgarbage("count")
  print(("%-22s resident %9d kB   Lua heap %8.1f kB, live %8.1f kB"):format(what, r, heap, live))
  return r, heap, live
end

local line = "match allocate " .. jobspec
point("after the load")
s:execute(line)
local r0, h0, l0 = point("after the first match")
for _ = 2, jobs do s:execute(line) end
local r1, h1, l1 = point(("%d jobs held"):format(jobs))
for id = 1, jobs do s:execute("cancel " .. id .. " stats") end
local r2 = point("all cancelled")
local n = jobs - 1
print(("a job after the first: resident %.0f B, Lua heap %.0f B, live Lua %.0f B; " ..
  "cancelled: %.3f of the resident set after the first match"):format(
  (r1 - r0) * 1024 / n, (h1 - h0) * 1024 / n, (l1 - l0) * 1024 / n, r2 / r0))
s:close()
null:close()
