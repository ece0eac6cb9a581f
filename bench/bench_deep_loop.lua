-- bench_deep_loop.lua: the deep-queue workload of bench/flux_deep.sh
-- without a broker: sched-grove's loop (grove.flux) fed the same messages
-- the module decodes, so what the loop itself costs is measured apart
-- from flux-core's threads, which share the CPUs in the Flux bench.
--
-- NODES nodes (44 cores + 4 GPUs each; the last four down, the only ones
-- with the property "rare"), filled by sixteen exclusive jobs, then JOBS
-- jobs of the Flux bench's mix submitted 500 at a time with a pass after
-- each, then the fill's jobs freed one at a time, a pass after each.
--
--   build/grove bench/bench_deep_loop.lua [-s NODES] [-j JOBS] [-q QUEUE] [-d DEPTH|none]
--                                         [-a AGGREGATES] [-t SECONDS]
--
-- Defaults: -s 16384 -j 10000 -q easy -d 64, the graph's default
-- aggregates (-a: g:set_aggregates's specification instead, set once
-- the graph is read; -t: the queue policy's time limit per call, 1 s by
-- default, which a run under valgrind can pass: its pass then stops
-- short and does less than the same run at full speed).  Prints the CPU time
-- (os.clock: the machine may be shared) of every pass after a free (p50,
-- p99, max), of every match the loop makes (core.sim_match: count, p50,
-- p99, max; the fill's left out), and the request shapes of the slowest
-- 1% of them.
-- It measures and reports; it asserts only that the messages were taken.
local core = require("grove.core")
local flux = require("grove.flux")

local fmt = string.format
local N, NJ, QP, DEPTH, AGG, TIME = 16384, 10000, "easy", 64, nil, nil
do
  local i = 1
  while arg[i] do
    local v = arg[i + 1]
    if arg[i] == "-s" then
      N = assert(math.tointeger(tonumber(v)), "-s: a number of nodes")
    elseif arg[i] == "-j" then
      NJ = assert(math.tointeger(tonumber(v)), "-j: a number of jobs")
    elseif arg[i] == "-q" then
      QP = v
    elseif arg[i] == "-d" then
      DEPTH = v ~= "none" and assert(math.tointeger(tonumber(v)), "-d: a depth or none") or nil
    elseif arg[i] == "-a" then
      AGG = assert(v, "-a: an aggregates specification")
    elseif arg[i] == "-t" then
      TIME = assert(tonumber(v), "-t: seconds")
    else
      error("unknown argument " .. arg[i])
    end
    i = i + 2
  end
end

-- every match the loop makes, timed, with its request's shape
local matches = {}
local sim_match = core.sim_match
core.sim_match = function(m, js, mode, ...)
  local t = os.clock()
  local state, a, b, c, d = sim_match(m, js, mode, ...)
  matches[#matches + 1] = {os.clock() - t, js, mode, state ~= nil}
  return state, a, b, c, d
end

local R = fmt('{"version":1,"execution":{"R_lite":[{"rank":"0-%d","children":' ..
  '{"core":"0-43","gpu":"0-3"}}],"starttime":0.0,"expiration":0.0,"nodelist":["node[0-%d]"],' ..
  '"properties":{"batch":"0-%d","rare":"%d-%d"}}}', N - 1, N - 1, N * 3 // 4 - 1, N - 4, N - 1)
local clock = {t = 1000}
local s = assert(flux.new{clock = function() return clock.t end, queue = QP, reserve_depth = DEPTH,
  time = TIME})
s.defer = true
-- the collector runs between messages, as the module runs it (stopped in
-- its handlers, stepped before the reactor waits): not inside a match
collectgarbage("stop")
assert(s:handle("resource.acquire", fmt('{"resources":%s,"up":"0-%d"}', R, N - 5)))
if AGG then assert(s.loop.g:set_aggregates(AGG)) end

local function jobspec(o)
  local slot = {type = "slot", count = 1, label = "task",
    with = {{type = "core", count = o.cores or 1}}}
  if o.gpus then slot.with[2] = {type = "gpu", count = o.gpus} end
  local res
  local tasks = o.tasks or 1
  if o.nodes then
    slot.count = tasks // o.nodes
    res = {{type = "node", count = o.nodes, with = {slot}, exclusive = o.exclusive or nil}}
  else
    slot.count = tasks
    res = {slot}
  end
  return core.json_encode({version = 1, resources = res,
    tasks = {{command = {"true"}, slot = "task", count = {per_slot = 1}}},
    attributes = {system = {duration = o.limit or 600, constraints = o.constraints}}}, 0)
end
local SHAPES = {
  {30, jobspec{tasks = 1}},
  {12, jobspec{tasks = 8, cores = 4}},
  {12, jobspec{nodes = 1, exclusive = true}},
  {8, jobspec{nodes = 16, tasks = 16, exclusive = true}},
  {4, jobspec{nodes = 128, tasks = 128, exclusive = true}},
  {1, jobspec{nodes = 1024, tasks = 1024, exclusive = true}},
  {10, jobspec{tasks = 2, gpus = 1}},
  {9, jobspec{nodes = 2, tasks = 2, constraints = {properties = {"batch"}}}},
  {9, jobspec{nodes = 1, tasks = 1,
    constraints = {hostlist = {fmt("node[%d-%d]", N // 2, N // 2 + 255)}}}},
  {5, jobspec{nodes = 1, tasks = 1, constraints = {properties = {"rare"}}}},
}
local total = 0
for _, sh in ipairs(SHAPES) do total = total + sh[1] end
math.randomseed(7)
local function pick()
  local r = math.random() * total
  for _, sh in ipairs(SHAPES) do
    r = r - sh[1]
    if r <= 0 then return sh[2] end
  end
  return SHAPES[#SHAPES][2]
end

local id = 0
local function alloc(text)
  id = id + 1
  assert(s:handle("sched.alloc",
    fmt('{"id":%d,"priority":16,"userid":1,"t_submit":%d,"jobspec":%s}', id, clock.t, text)))
end

-- the fill, then the deep queue
for _ = 1, 15 do
  alloc(jobspec{nodes = N // 16, tasks = N // 16, exclusive = true, limit = 3600})
end
local last = N - 15 * (N // 16) - 4
alloc(jobspec{nodes = last, tasks = last, exclusive = true, limit = 3600})
s:schedule()
matches = {} -- the fill's own are not the deep queue's
for b = 1, NJ, 500 do
  for _ = b, math.min(NJ, b + 499) do alloc(pick()) end
  s:schedule()
  collectgarbage("collect")
  clock.t = clock.t + 1
end

-- the fill ends: a pass after each free
local passes = {}
for j = 1, 16 do
  local r = s.loop.m:rv1(j)
  clock.t = clock.t + 1
  assert(s:handle("sched.free", fmt('{"id":%d,"R":%s,"final":true}', j, r:encode())))
  r:close()
  collectgarbage("collect")
  local t = os.clock()
  s:schedule()
  passes[#passes + 1] = os.clock() - t
end

-- what the loop decided, as one number: every job's state and its start
-- or reservation (two builds that decide alike print the same)
local digest = 0
do
  local ids = {}
  for jid in pairs(s.loop.jobs) do ids[#ids + 1] = jid end
  table.sort(ids)
  for _, jid in ipairs(ids) do
    local r = s.loop.jobs[jid]
    local t = math.floor(r.start or r.reserved or -1)
    digest = (digest * 31 + jid * 7 + t + (r.state == "running" and 1 or 0)) % 0xFFFFFFFFFFFF
  end
end

local function pct(list, p, key)
  local v = list[math.max(1, math.ceil(#list * p))]
  return (key and v[key] or v) * 1e3
end
table.sort(passes)
print(fmt("%s depth %s, %d nodes, %d jobs: %d passes after a free: p50 %.1f ms, p99 %.1f ms, " ..
  "max %.1f ms", QP, tostring(DEPTH or "unlimited"), N, NJ, #passes, pct(passes, 0.5),
  pct(passes, 0.99),
  pct(passes, 1)))
print(fmt("decisions digest %012x", digest))
table.sort(matches, function(x, y) return x[1] < y[1] end)
print(fmt("matches %d: p50 %.3f ms, p99 %.3f ms, max %.3f ms", #matches, pct(matches, 0.5, 1),
  pct(matches, 0.99, 1), pct(matches, 1, 1)))
-- the slowest 1%, by request shape
local by, keys = {}, {}
for i = #matches, math.max(1, #matches - #matches // 100), -1 do
  local x = matches[i]
  local k = fmt("%s %s %s", x[3], x[4] and "ok" or "no", x[2]:request_key())
  if not by[k] then
    by[k] = 0
    keys[#keys + 1] = k
  end
  by[k] = by[k] + 1
end
table.sort(keys, function(x, y) return by[x] > by[y] end)
for i = 1, math.min(8, #keys) do print(fmt("  slowest 1%%: %4d  %s", by[keys[i]], keys[i])) end
