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
local nodes = 4096
local g = core.graph()
local c = g:add_vertex { type = "cluster", id = 0 }
local rack
for n = 0, nodes - 1 do
  if n % 32 == 0 then rack = g:add_vertex { type = "rack", id = n // 32 }; g:add_child(c, rack) end
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
local tail = "attributes: {system: {duration: 3600}}\n" ..
  "tasks: [{command: [app], slot: s, count: {per_slot: 1}}]\n"
local text
if stream == "a" then
  text = "version: 9999\nresources:\n- type: node\n  count: 1\n  exclusive: true\n" ..
    "  with:\n  - type: slot\n    count: 1\n    label: s\n    with:\n" ..
    "    - type: core\n      count: 44\n"
else
  text = "version: 9999\nresources:\n- type: node\n  count: 4\n  with:\n" ..
    "  - type: slot\n    count: 1\n    label: s\n    with:\n" ..
    "    - type: socket\n      count: 2\n      with:\n" ..
    "      - type: core\n        count: 4\n      - type: gpu\n        count: 1\n"
end
local js = assert(core.jobspec_parse(text .. tail))
local m = core.matcher(g)
local file, builtin = pol:match("^(.-%.lua)=(.+)$")
if lua then assert(m:set_policy(assert(grove.policy.load(file or pol))))
else assert(m:set_policy(builtin or pol)) end
for _ = 1, fill do assert(m:match(js, "allocate")) end
for _ = 1, N do
  local job = assert(m:match(js, "allocate"))
  m:cancel(job.id)
end
