-- bench_match.lua: the job streams of bench_match.c through the Lua module,
-- with each built-in policy as its C fast path and as its Lua twin from
-- policies/, so the cost of a Lua policy is measured against its C twin.
--
--   build/grove bench/bench_match.lua [NODES...] [-p POLICY...] [-s STREAM...]
--                                     [-n FILL] [-i]
--
-- A POLICY is a built-in's name (its C fast path against its twin in
-- policies/) or FILE.lua=BUILTIN: the Lua policy in FILE (bench/policies/
-- holds a few written the ways authors write them) against that C built-in.
--
-- Streams: (a) one whole node, exclusive; (b) one core; (c) 4 nodes, each
-- with 2 sockets of 4 cores + 1 GPU; (d) the whole machine.  Fill the
-- machine (or make FILL matches at most), then allocate-or-reserve 200
-- more.  Prints median and p99 per match and jobs per second.  With -i the
-- C policy and its Lua twin run interleaved, match by match, each on a
-- graph of its own, so both see the same load of a shared machine (the
-- twins place alike, so both streams stay the same); without it the C run
-- ends before the Lua run starts.
--
-- It must not hold a policy of its own (it loads them from policies/) nor
-- assert like a spec: it measures and reports.
local grove = require("grove")
local core = grove.core

local clock = os.clock -- CPU time: the machine may be shared

local sizes, policies, streams = {}, {}, {}
local fill_max = math.huge
local interleave = false
do
  local mode = "sizes"
  for _, a in ipairs(arg) do
    if a == "-i" then interleave = true
    elseif a == "-p" then mode = "policies"
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

-- the machine and the streams, shared with match_instructions.lua
local shapes = dofile((arg[0]:match("^(.*/)") or "./") .. "match_shapes.lua")
local machine, spec = shapes.machine, shapes.spec

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

-- A matcher on a machine of its own under policy (its Lua twin when lua).
local function side(nodes, policy, lua)
  local g = machine(nodes)
  local m = core.matcher(g)
  local file, builtin = policy:match("^(.-%.lua)=(.+)$")
  if lua then
    assert(m:set_policy(assert(grove.policy.load(file or policy))))
  else
    assert(m:set_policy(builtin or policy))
  end
  return {g = g, m = m, lua = lua, fill = {}, resv = {}}
end

local function timed(sd, js, mode)
  local t0 = clock()
  local job, msg = sd.m:match(js, mode)
  return job, msg, clock() - t0
end

-- The streams of the C policy and/or its twin (luas: {false}, {true} or
-- both), match by match in turn.
local function run(nodes, policy, luas, stream)
  local sides = {}
  for i, lua in ipairs(luas) do sides[i] = side(nodes, policy, lua) end
  local js = spec(stream, nodes)
  local filling = true
  while filling and #sides[1].fill < fill_max do
    for _, sd in ipairs(sides) do
      local job, _, dt = timed(sd, js, "allocate")
      if not job then
        filling = false
      elseif not sd.first then
        sd.first = dt
      else
        sd.fill[#sd.fill + 1] = dt
      end
    end
  end
  for _ = 1, 200 do
    for _, sd in ipairs(sides) do
      local job, msg, dt = timed(sd, js, "allocate_orelse_reserve")
      if not job then error("reserve failed: " .. tostring(msg)) end
      sd.resv[#sd.resv + 1] = dt
    end
  end
  for _, sd in ipairs(sides) do
    print(("  %5d nodes  %-6s %-3s (%s)  first match %.1f us (with aggregate build)"):format(
      nodes, policy, sd.lua and "Lua" or "C", stream, (sd.first or 0) * 1e6))
    report("fill", sd.fill)
    report("reserve", sd.resv)
    io.stdout:flush()
    sd.m:close()
    sd.g:close()
  end
end

print("bench_match.lua: C policies and their Lua twins (CPU time per match)")
for _, s in ipairs(streams) do
  for _, n in ipairs(sizes) do
    for _, p in ipairs(policies) do
      if interleave then
        run(n, p, {false, true}, s)
      else
        run(n, p, {false}, s)
        run(n, p, {true}, s)
      end
    end
  end
end
