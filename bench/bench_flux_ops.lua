-- bench_flux_ops.lua: what an operator waits for from `flux grove`, the
-- loop's side of each command (grove.flux.ops), without a broker: the CPU
-- from the request's table to the answer's text, on a loop of NODES nodes
-- (44 cores + 4 GPUs each) with one job holding every node and PENDING
-- one-node jobs waiting under easy.  Then the cost an open reservation
-- adds to the alloc of a job joining that deep queue (a pass: the
-- reservation's members looked for among the jobs that joined).
--
--   build/grove bench/bench_flux_ops.lua [-s NODES...] [-p PENDING]
--
-- Defaults: -s 1024 16384, -p 2000.  Each command runs 5 times; the
-- median is printed.  It measures and reports; it asserts only that each
-- command answered (no error).
local flux = require("grove.flux")

local clock = os.clock -- CPU time: the machine may be shared
local fmt = string.format

local sizes, pending = {}, 2000
do
  local i = 1
  while arg[i] do
    if arg[i] == "-p" then
      pending = assert(math.tointeger(tonumber(arg[i + 1])), "-p: a number of jobs")
      i = i + 2
    elseif arg[i] == "-s" then
      i = i + 1
      while arg[i] and math.tointeger(tonumber(arg[i])) do
        sizes[#sizes + 1] = math.tointeger(tonumber(arg[i]))
        i = i + 1
      end
    else
      error("usage: bench_flux_ops.lua [-s NODES...] [-p PENDING]")
    end
  end
end
if #sizes == 0 then sizes = {1024, 16384} end

local function R_text(n)
  return fmt('{"version":1,"execution":{"R_lite":[{"rank":"0-%d","children":'
    .. '{"core":"0-43","gpu":"0-3"}}],"starttime":0.0,"expiration":0.0,'
    .. '"nodelist":["node[0-%d]"]}}', n - 1, n - 1)
end

local function nodes_js(n, d)
  return fmt('{"version":1,"resources":[{"type":"node","count":%d,"exclusive":true,"with":'
    .. '[{"type":"slot","count":1,"label":"task","with":[{"type":"core","count":1}]}]}],'
    .. '"tasks":[{"command":["true"],"slot":"task","count":{"per_slot":1}}],'
    .. '"attributes":{"system":{"duration":%d}}}', n, d)
end

local function alloc(s, id, js, user)
  return s:handle("sched.alloc", {id = id, priority = 16, userid = user or 100,
    t_submit = id, jobspec = js})
end

local function answered(acts, what)
  for _, a in ipairs(acts) do
    assert(a.op ~= "error", what .. ": " .. tostring(a.message))
  end
end

-- The median CPU seconds of f() over 5 runs.
local function median(f)
  local t = {}
  for i = 1, 5 do
    local t0 = clock()
    f()
    t[i] = clock() - t0
  end
  table.sort(t)
  return t[3]
end

-- A loop of n nodes, all but keep held by one job, then before(s), then
-- the pending jobs.
local function loop_of(n, keep, before)
  local now = {t = 1000}
  local s = assert(flux.new{queue = "easy", clock = function() return now.t end})
  answered(s:handle("resource.acquire", '{"resources":' .. R_text(n) .. ',"up":"0-'
    .. (n - 1) .. '"}'), "acquire")
  answered(alloc(s, 1, nodes_js(n - (keep or 0), 1000)), "alloc")
  if before then before(s) end
  for id = 2, pending + 1 do alloc(s, id, nodes_js(1, 100)) end
  return s, now
end

local function run(n)
  local s = loop_of(n)
  local last = pending + 1
  local cmds = {
    {"find RFC 31 (every node)", "find", {expr = '{"properties":["^x"]}'}},
    {"find status=down (every vertex)", "find", {expr = "status=down"}},
    {"find names=node5", "find", {expr = "names=node5"}},
    {"set-property node[0-1023]", "set-property", {target = "node[0-1023]", key = "k"}},
    {"remove-property node[0-1023]", "remove-property", {target = "node[0-1023]", key = "k"}},
    {"why (the last pending job)", "why", {id = last}},
    {"reservations", "reservations", {}},
    {"graph -f R", "graph", {format = "R"}},
    {"graph (JGF)", "graph", {}},
    {"stats", "stats", {}},
  }
  for _, c in ipairs(cmds) do
    local t = median(function() answered(s:grove(c[2], c[3]), c[1]) end)
    print(fmt("| %6d | %-34s | %9.2f |", n, c[1], t * 1e3))
  end
  local serial = 0
  local t = median(function()
    serial = serial + 1
    local name = "r" .. serial
    answered(s:grove("reserve", {name = name, hosts = "node[0-63]", start = "+1000",
      duration = "1000", user = 7}), "reserve")
    answered(s:grove("unreserve", {name = name}), "unreserve")
  end)
  print(fmt("| %6d | %-34s | %9.2f |", n, "reserve + unreserve 64 nodes", t * 1e3))
end

-- The CPU of an alloc joining the queue of pending jobs when the 64 nodes
-- the first job leaves are held for 5000 s by an open reservation (its
-- members: another user's jobs), or by a job: the same schedule, so that
-- the difference is what the reservation costs a pass.
local function joining(n)
  for _, with in ipairs({false, true}) do
    local s = loop_of(n, 64, function(s0)
      if with then
        answered(s0:grove("reserve", {name = "dat", hosts = "node[" .. (n - 64) .. "-"
          .. (n - 1) .. "]", start = "now", duration = "5000", user = 7}), "reserve")
      else
        answered(alloc(s0, pending + 1000000, nodes_js(64, 5000)), "alloc")
      end
    end)
    local id = pending + 2
    local t0 = clock()
    for _ = 1, 1000 do
      alloc(s, id, nodes_js(1, 100))
      id = id + 1
    end
    print(fmt("| %6d | %-34s | %9.3f |", n, "alloc joining the queue, 64 nodes held by "
      .. (with and "a reservation" or "a job"), (clock() - t0) / 1000 * 1e3))
  end
end

print(fmt("%d pending one-node jobs under easy behind one job on every node; CPU ms "
  .. "(os.clock), median of 5", pending))
print("| nodes | command | ms |")
print("|---:|---|---:|")
for _, n in ipairs(sizes) do
  run(n)
  joining(n)
  collectgarbage()
end
