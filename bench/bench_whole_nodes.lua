-- bench_whole_nodes.lua: what the scheduling loop's match of a job of many
-- whole nodes costs, the call sched-grove and grove sim make
-- (core.sim_match: the match, its selection completed with every vertex
-- below the nodes, recorded, and the cores' ids handed to Lua), then the
-- job's cancel.  The machine is the Flux deep-queue bench's: NODES nodes of
-- 44 cores and 4 GPUs under one cluster vertex (R_lite, as sched-grove
-- builds it), a thousand one-core jobs held on it; each round allocates one
-- job of COUNT exclusive nodes and cancels it.
--
--   build/grove bench/bench_whole_nodes.lua [-s NODES...] [-c COUNT...] [-r ROUNDS]
--
-- Defaults: -s 16384, -c 16 128 1024, -r 50.  Prints the mean CPU time
-- (os.clock: the machine may be shared) of an allocate and of a cancel,
-- and the picks of a job.  It measures and reports; it asserts only that
-- each allocate and cancel succeeded.
local core = require("grove.core")
local flux = require("grove.flux")

local fmt = string.format
local sizes, counts, rounds = {}, {}, 50
do
  local i, list = 1, nil
  while arg[i] do
    if arg[i] == "-s" then
      list = sizes
    elseif arg[i] == "-c" then
      list = counts
    elseif arg[i] == "-r" then
      rounds = assert(math.tointeger(tonumber(arg[i + 1])), "-r: a number of rounds")
      i = i + 1
      list = nil
    else
      list[#list + 1] = assert(math.tointeger(tonumber(arg[i])), "a number expected: " .. arg[i])
    end
    i = i + 1
  end
end
if #sizes == 0 then sizes = {16384} end
if #counts == 0 then counts = {16, 128, 1024} end

local function jobspec(res)
  return assert(core.jobspec_parse(core.json_encode({version = 1, resources = {res},
    tasks = {{command = {"true"}, slot = "task", count = {per_slot = 1}}},
    attributes = {system = {duration = 600}}}, 0)))
end
local slot = {type = "slot", count = 1, label = "task", with = {{type = "core", count = 1}}}

for _, nodes in ipairs(sizes) do
  local R = fmt('{"version":1,"execution":{"R_lite":[{"rank":"0-%d","children":' ..
    '{"core":"0-43","gpu":"0-3"}}],"starttime":0.0,"expiration":0.0,"nodelist":["node[0-%d]"]}}',
    nodes - 1, nodes - 1)
  local s = assert(flux.new{clock = function() return 1000 end, queue = "easy"})
  s:handle("resource.acquire", fmt('{"resources":%s,"up":"0-%d"}', R, nodes - 1))
  local m = s.loop.m
  local id = 0
  local small = jobspec(slot)
  for _ = 1, 1000 do
    id = id + 1
    assert(core.sim_match(m, small, "allocate", id, "core"))
  end
  for _, count in ipairs(counts) do
    local js = jobspec({type = "node", count = count, exclusive = true, with = {slot}})
    local ta, tc, picks = 0, 0, 0
    for _ = 1, rounds do
      id = id + 1
      local t = os.clock()
      local state, _, _, vids = core.sim_match(m, js, "allocate", id, "core")
      ta = ta + os.clock() - t
      assert(state == "allocated", "the job did not start")
      picks = #vids
      t = os.clock()
      assert(m:cancel(id))
      tc = tc + os.clock() - t
    end
    print(fmt("nodes %6d  job of %5d whole nodes (%6d cores)  allocate %7.3f ms  cancel %7.3f ms" ..
      "  (CPU, mean of %d)", nodes, count, picks, ta * 1e3 / rounds, tc * 1e3 / rounds, rounds))
  end
end
