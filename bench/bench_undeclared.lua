-- bench_undeclared.lua: Lua policies written as a newcomer writes them,
-- with no declaration (no score_local, no score_reads), against the
-- nearest C policy on the same stream (issue 62, item 3).
--
--   build/grove bench/bench_undeclared.lua [NODES] [-p PAIR...] [-s STREAM...] [-n FILL]
--
-- Pairs (bench/policies/):
--   spread  plain_spread.lua (a score per node)   against the C spread
--   gpu     plain_gpu.lua (scores from keys["free:gpu"], keys["property:
--           degraded"], ctx.total.gpu)            against the C gpu
--   last    plain_last.lua (degraded nodes last, a score per node from a
--           property)                             against order_last.lua,
--           the same order declared (sorted in C, no Lua in a match)
--   prune   prune_degraded.lua (spread and a one-line prune on a node
--           property)                             against the C spread
--           with the same exclusion as an RFC 31 constraint on each job
-- Streams (bench/match_shapes.lua): a (one whole node), b (one core), m
-- (mixed: a, b and c, 4 nodes of 2 sockets x {4 cores, 1 GPU}, in turn).
-- Every 16th node is degraded for last and prune.
--
-- Each pair on each stream: two matchers, each on a machine of its own,
-- run match by match in turn (both see the same load of a shared
-- machine): fill (FILL matches at most, default 1,000), then 200
-- allocate-or-reserve.  Prints the median CPU time per match of each side
-- over both phases, their ratio, and whether every placement was the same
-- (the pairs place alike: a difference is a bug, not a cost).  The
-- instructions of the same matches, which do not move with the load:
-- bench/undeclared_instructions.sh.
--
-- It must not hold a policy of its own (they are files in bench/policies/)
-- nor assert like a spec: it measures and reports.
local grove = require("grove")
local core = grove.core

local clock = os.clock
local dir = arg[0]:match("^(.*/)") or "./"
local shapes = dofile(dir .. "match_shapes.lua")

local NOT_DEGRADED = '{"properties": ["^degraded"]}'
local PAIRS = {
  spread = {lua = "plain_spread.lua", c = "spread"},
  gpu = {lua = "plain_gpu.lua", c = "gpu"},
  last = {lua = "plain_last.lua", c_file = "order_last.lua", degraded = 16},
  prune = {lua = "prune_degraded.lua", c = "spread", constraint = NOT_DEGRADED, degraded = 16},
}
local ORDER = {"spread", "gpu", "last", "prune"}

local nodes, pairs_, streams, fill_max = 4096, {}, {}, 1000
do
  local mode = "nodes"
  for _, a in ipairs(arg) do
    if a == "-p" or a == "-s" or a == "-n" then mode = a
    elseif mode == "-p" then pairs_[#pairs_ + 1] = a
    elseif mode == "-s" then streams[#streams + 1] = a
    elseif mode == "-n" then fill_max = assert(tonumber(a), "-n takes a number")
    else nodes = assert(tonumber(a), "NODES is a number") end
  end
  if #pairs_ == 0 then pairs_ = ORDER end
  if #streams == 0 then streams = {"b", "a", "m"} end
end

-- The jobspecs of a stream, used in turn.
local function specs(stream, constraint)
  if stream == "m" then
    return {shapes.spec("a", nodes, constraint), shapes.spec("b", nodes, constraint),
            shapes.spec("c", nodes, constraint)}
  end
  return {shapes.spec(stream, nodes, constraint)}
end

-- What a job got: its start and its vertices' paths.
local function placed(job)
  local out = {}
  for _, p in ipairs(job.picks) do out[#out + 1] = p.vertex:path() end
  table.sort(out)
  return job.start .. ":" .. table.concat(out, ",")
end

local function side(pair, lua)
  local g = shapes.machine(nodes, pair.degraded)
  local m = core.matcher(g)
  if lua then
    assert(m:set_policy(assert(grove.policy.load(dir .. "policies/" .. pair.lua))))
  elseif pair.c_file then
    assert(m:set_policy(assert(grove.policy.load(dir .. "policies/" .. pair.c_file))))
  else
    assert(m:set_policy(pair.c))
  end
  return {g = g, m = m, t = {}}
end

local function median(t)
  table.sort(t)
  return t[#t // 2 + 1] or 0
end

local function run(name, stream)
  local pair = PAIRS[name]
  local c, l = side(pair, false), side(pair, true)
  -- the C side's jobs carry the constraint; the Lua side's do not
  c.js, l.js = specs(stream, pair.constraint), specs(stream, nil)
  local same, n, first = true, 0, {}
  local function step(mode)
    n = n + 1
    local got = {}
    for k, sd in ipairs{c, l} do
      local js = sd.js[(n - 1) % #sd.js + 1]
      local t0 = clock()
      local job = sd.m:match(js, mode)
      local dt = clock() - t0
      if n == 1 then first[k] = dt else sd.t[#sd.t + 1] = dt end
      got[k] = job and placed(job) or false
    end
    if got[1] ~= got[2] then same = false end
    return got[1] and got[2]
  end
  while n < fill_max and step("allocate") do end
  for _ = 1, 200 do
    if not step("allocate_orelse_reserve") then break end
  end
  local mc, ml = median(c.t), median(l.t)
  print(("%-7s %-2s %6d matches   C %9.1f us   Lua %9.1f us   Lua/C %5.2f   kept %5d   "
    .. "first %.1f / %.1f ms   %s"):format(name, stream, n, mc * 1e6, ml * 1e6,
    mc > 0 and ml / mc or 0, l.m:stats().ranks_kept, first[1] * 1e3, first[2] * 1e3,
    same and "same placements" or "PLACEMENTS DIFFER"))
  io.stdout:flush()
  for _, sd in ipairs{c, l} do sd.m:close(); sd.g:close() end
end

print(("bench_undeclared.lua: %d nodes, CPU time per match (median of fill and reserve)")
  :format(nodes))
for _, s in ipairs(streams) do
  for _, p in ipairs(pairs_) do
    assert(PAIRS[p], "unknown pair " .. p)
    run(p, s)
  end
end
