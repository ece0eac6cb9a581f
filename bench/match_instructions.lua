-- match_instructions.lua: one policy's steady matches at 4,096 nodes, for
-- counting their machine instructions under callgrind (the CPU times of
-- bench_match.lua move with the load of a shared machine; instruction
-- counts do not).  bench/match_instructions.sh runs it.
--
--   build/grove bench/match_instructions.lua POLICY STREAM FILL N
--
-- POLICY is a built-in's name (its Lua twin in policies/), NAME:c (the C
-- built-in) or FILE.lua=BUILTIN (the Lua policy in FILE); STREAM a or c of
-- bench_match.lua.  FILL allocations, then N times: allocate one job and
-- cancel it.  It measures nothing itself.
local grove = require("grove")
local core = grove.core
local pol, stream = assert(arg[1], "POLICY"), assert(arg[2], "STREAM")
local fill, N = tonumber(arg[3]) or 20, tonumber(arg[4]) or 10
local lua = true
if pol:sub(-2) == ":c" then lua = false; pol = pol:sub(1, -3) end
local shapes = dofile((arg[0]:match("^(.*/)") or "./") .. "match_shapes.lua")
local g = shapes.machine(4096)
local js = shapes.spec(stream, 4096)
local m = core.matcher(g)
local file, builtin = pol:match("^(.-%.lua)=(.+)$")
if lua then assert(m:set_policy(assert(grove.policy.load(file or pol))))
else assert(m:set_policy(builtin or pol)) end
for _ = 1, fill do assert(m:match(js, "allocate")) end
for _ = 1, N do
  local job = assert(m:match(js, "allocate"))
  m:cancel(job.id)
end
