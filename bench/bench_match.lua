-- bench_match.lua: the job streams of bench_match.c through the Lua module,
-- with each built-in policy as its C fast path and as its Lua twin from
-- policies/, so the cost of a Lua policy is measured against its C twin.
--
--   build/grove bench/bench_match.lua [NODES...] [-p POLICY...] [-s STREAM...]
--                                     [-n FILL]
--
-- Streams: (a) one whole node, exclusive; (b) one core; (c) 4 nodes, each
-- with 2 sockets of 4 cores + 1 GPU; (d) the whole machine.  Fill the
-- machine (or make FILL matches at most), then allocate-or-reserve 200
-- more.  Prints median and p99 per match and jobs per second.
--
-- It must not hold a policy of its own (it loads them from policies/) nor
-- assert like a spec: it measures and reports.
local grove = require "grove"
local core = grove.core

local clock = os.clock -- CPU time: the machine may be shared

local sizes, policies, streams = {}, {}, {}
local fill_max = math.huge
do
  local mode = "sizes"
  for _, a in ipairs(arg) do
    if a == "-p" then mode = "policies"
    elseif a == "-s" then mode = "streams"
    elseif a == "-n" then mode = "fill"
    elseif mode == "fill" then fill_max = assert(tonumber(a), "-n takes a number")
    elseif mode == "sizes" then sizes[#sizes + 1] = tonumber(a)
    elseif mode == "policies" then policies[#policies + 1] = a
    else streams[#streams + 1] = a end
  end
  if #sizes == 0 then sizes = { 1024, 4096 } end
  if #policies == 0 then policies = { "first", "low", "high" } end
  if #streams == 0 then streams = { "a", "b", "c", "d" } end
end

local function machine(nodes)
  local g = core.graph()
  local c = g:add_vertex { type = "cluster", id = 0 }
  local rack
  for n = 0, nodes - 1 do
    if n % 32 == 0 then
      rack = g:add_vertex { type = "rack", id = n // 32 }
      g:add_child(c, rack)
    end
    local nd = g:add_vertex { type = "node", id = n, rank = n }
    g:add_child(rack, nd)
    for s = 0, 1 do
      local so = g:add_vertex { type = "socket", id = s }
      g:add_child(nd, so)
      for k = 0, 21 do g:add_child(so, g:add_vertex { type = "core", id = s * 22 + k }) end
      for k = 0, 1 do g:add_child(so, g:add_vertex { type = "gpu", id = s * 2 + k }) end
    end
    g:add_child(nd, g:add_vertex { type = "memory", id = 0, size = 256, unit = "GB" })
  end
  return g
end

local tail = "attributes: {system: {duration: 3600}}\n" ..
  "tasks: [{command: [app], slot: s, count: {per_slot: 1}}]\n"
local function spec(stream, nodes)
  local text
  if stream == "a" then
    text = "version: 9999\nresources:\n- type: node\n  count: 1\n  exclusive: true\n" ..
      "  with:\n  - type: slot\n    count: 1\n    label: s\n    with:\n" ..
      "    - type: core\n      count: 44\n"
  elseif stream == "b" then
    text = "version: 9999\nresources:\n- type: slot\n  count: 1\n  label: s\n  with:\n" ..
      "  - type: core\n    count: 1\n"
  elseif stream == "c" then
    text = "version: 9999\nresources:\n- type: node\n  count: 4\n  with:\n" ..
      "  - type: slot\n    count: 1\n    label: s\n    with:\n" ..
      "    - type: socket\n      count: 2\n      with:\n" ..
      "      - type: core\n        count: 4\n      - type: gpu\n        count: 1\n"
  else
    text = "version: 9999\nresources:\n- type: slot\n  count: 1\n  label: s\n  with:\n" ..
      ("  - type: node\n    count: %d\n    exclusive: true\n"):format(nodes)
  end
  return assert(core.jobspec_parse(text .. tail))
end

local function report(what, t)
  if #t == 0 then
    print(("    %-8s  no further matches"):format(what))
    return
  end
  local sum = 0
  for _, x in ipairs(t) do sum = sum + x end
  table.sort(t)
  local med, p99 = t[#t // 2 + 1], t[math.floor((#t - 1) * 0.99) + 1]
  print(("    %-8s %8d jobs  median %9.1f us  p99 %9.1f us  %10.0f jobs/s"):format(
    what, #t, med * 1e6, p99 * 1e6, #t / sum))
end

local function run(nodes, policy, lua, stream)
  local g = machine(nodes)
  local m = core.matcher(g)
  if lua then
    assert(m:set_policy(assert(grove.policy.load(policy))))
  else
    assert(m:set_policy(policy))
  end
  local js = spec(stream, nodes)
  local fill, resv = {}, {}
  local first
  while #fill < fill_max do
    local t0 = clock()
    local job = m:match(js, "allocate")
    local dt = clock() - t0
    if not job then break end
    if not first then first = dt else fill[#fill + 1] = dt end
  end
  for _ = 1, 200 do
    local t0 = clock()
    local job, msg = m:match(js, "allocate_orelse_reserve")
    local dt = clock() - t0
    if not job then error("reserve failed: " .. tostring(msg)) end
    resv[#resv + 1] = dt
  end
  print(("  %5d nodes  %-6s %-3s (%s)  first match %.1f us (with aggregate build)"):format(
    nodes, policy, lua and "Lua" or "C", stream, (first or 0) * 1e6))
  report("fill", fill)
  report("reserve", resv)
  io.stdout:flush()
  m:close()
  g:close()
end

print("bench_match.lua: C policies and their Lua twins (CPU time per match)")
for _, s in ipairs(streams) do
  for _, n in ipairs(sizes) do
    for _, p in ipairs(policies) do
      run(n, p, false, s)
      run(n, p, true, s)
    end
  end
end
