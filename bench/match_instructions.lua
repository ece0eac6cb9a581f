-- match_instructions.lua: one policy's steady matches at 4,096 nodes, for
-- counting their machine instructions under callgrind (the CPU times of
-- bench_match.lua move with the load of a shared machine; instruction
-- counts do not).  bench/match_instructions.sh runs it.
--
--   build/grove bench/match_instructions.lua POLICY STREAM FILL N
--
-- POLICY is a built-in's name (its Lua twin in policies/), NAME:c (the C
-- built-in) or FILE.lua=BUILTIN (the Lua policy in FILE); STREAM a, b or c
-- of bench/match_shapes.lua, or m (a, b and c in turn).  FILL allocations,
-- then N times: allocate one job and cancel it.  It measures nothing
-- itself.  With DEGRADED=k in the environment every k-th node has the
-- property degraded=1, and with CONSTRAINT=JSON every job carries that RFC
-- 31 constraint (bench/bench_undeclared.lua's prune and last pairs).
local grove = require("grove")
local core = grove.core
local pol, stream = assert(arg[1], "POLICY"), assert(arg[2], "STREAM")
local fill, N = tonumber(arg[3]) or 20, tonumber(arg[4]) or 10
local lua = true
if pol:sub(-2) == ":c" then lua = false; pol = pol:sub(1, -3) end
local shapes = dofile((arg[0]:match("^(.*/)") or "./") .. "match_shapes.lua")
local g = shapes.machine(4096, tonumber(os.getenv("DEGRADED")))
local constraint = os.getenv("CONSTRAINT")
local specs = {}
for s in (stream == "m" and "abc" or stream):gmatch(".") do
  specs[#specs + 1] = shapes.spec(s, 4096, constraint ~= "" and constraint or nil)
end
local n = 0
local function js()
  n = n + 1
  return specs[(n - 1) % #specs + 1]
end
local m = core.matcher(g)
local file, builtin = pol:match("^(.-%.lua)=(.+)$")
if lua then assert(m:set_policy(assert(grove.policy.load(file or pol))))
else assert(m:set_policy(builtin or pol)) end
for _ = 1, fill do assert(m:match(js(), "allocate")) end
for _ = 1, N do
  local job = assert(m:match(js(), "allocate"))
  m:cancel(job.id)
end
