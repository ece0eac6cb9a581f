-- bench_status.lua: what sched.resource-status costs sched-grove's loop
-- (grove.flux, no broker): NODES nodes of 44 cores and 4 GPUs, the last
-- four down, filled by sixteen exclusive jobs of NODES/16 nodes (the deep
-- queue's fill, bench/flux_deep.sh), then the request answered five
-- times.  Beside it, the parts: one job's R (m:rv1), the whole machine's
-- R written (R:encode).
--
--   build/grove bench/bench_status.lua [-s NODES]
--
-- Prints CPU times (os.clock: the machine may be shared): the first
-- request (the whole machine's R built and every job's R written), then
-- the median and most of the next four (the jobs' R kept), each a whole
-- call of the loop's handler, its JSON text written.
local core = require("grove.core")
local flux = require("grove.flux")

local fmt = string.format
local N = 16384
if arg[1] == "-s" then N = assert(math.tointeger(tonumber(arg[2])), "-s: a number of nodes") end

local R = fmt('{"version":1,"execution":{"R_lite":[{"rank":"0-%d","children":' ..
  '{"core":"0-43","gpu":"0-3"}}],"starttime":0.0,"expiration":0.0,"nodelist":["node[0-%d]"],' ..
  '"properties":{"batch":"0-%d","rare":"%d-%d"}}}', N - 1, N - 1, N * 3 // 4 - 1, N - 4, N - 1)
local s = assert(flux.new{clock = function() return 1000 end, queue = "easy", reserve_depth = 64})
s.defer = true
assert(s:handle("resource.acquire", fmt('{"resources":%s,"up":"0-%d"}', R, N - 5)))
local per = N // 16
local js = core.json_encode({version = 1, resources = {{type = "node", count = per,
  exclusive = true, with = {{type = "slot", count = 1, label = "task",
    with = {{type = "core", count = 1}}}}}},
  tasks = {{command = {"true"}, slot = "task", count = {per_slot = 1}}},
  attributes = {system = {duration = 3600}}}, 0)
for id = 1, 15 do
  assert(s:handle("sched.alloc",
    fmt('{"id":%d,"priority":16,"userid":1,"t_submit":1,"jobspec":%s}', id, js)))
end
s:schedule()

local function timed(f)
  local t = os.clock()
  f()
  return (os.clock() - t) * 1e3
end
local function status()
  local acts = s:handle("sched.resource-status", "{}")
  assert(acts[1] and acts[1].op == "respond", "sched.resource-status was not answered")
end
local first = timed(status)
local next4 = {}
for i = 1, 4 do next4[i] = timed(status) end
table.sort(next4)
local m = s.loop.m
local one = timed(function() m:rv1(1):close() end)
local all = core.rv1_from_graph(s.loop.g)
local enc = timed(function() all:encode() end)
print(fmt("%d nodes, 15 jobs of %d nodes: sched.resource-status first %.1f ms, then " ..
  "median %.1f ms, most %.1f ms; a job's R %.2f ms; the machine's R written %.2f ms",
  N, per, first, (next4[2] + next4[3]) / 2, next4[4], one, enc))
