-- match_shapes.lua: the machine and the job streams bench_match.lua and
-- match_instructions.lua share: racks of 32 nodes, a node of 2 sockets x
-- (22 cores + 2 GPUs) + 256 GB of memory; streams (a) one whole node,
-- exclusive, (b) one core, (c) 4 nodes of 2 sockets x slot{4 cores, 1 GPU},
-- (d) the whole machine.
--
--   local shapes = dofile(DIR .. "match_shapes.lua")
--   shapes.machine(nodes [, degraded]), shapes.spec(stream, nodes [, constraint])
--
-- With degraded (a number k), every k-th node (node k-1, 2k-1, ...) has
-- the property degraded=1; a spec with a constraint (an RFC 31 object as
-- JSON text) asks that of its nodes.
local core = require("grove").core

local function machine(nodes, degraded)
  local g = core.graph()
  local c = g:add_vertex { type = "cluster", id = 0 }
  local rack
  for n = 0, nodes - 1 do
    if n % 32 == 0 then
      rack = g:add_vertex { type = "rack", id = n // 32 }
      g:add_child(c, rack)
    end
    local props = degraded and (n + 1) % degraded == 0 and { degraded = "1" } or nil
    local nd = g:add_vertex { type = "node", id = n, rank = n, properties = props }
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

local tail = "tasks: [{command: [app], slot: s, count: {per_slot: 1}}]\n"
local function spec(stream, nodes, constraint)
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
  local system = constraint and ("{duration: 3600, constraints: %s}"):format(constraint)
    or "{duration: 3600}"
  return assert(core.jobspec_parse(text .. "attributes: {system: " .. system .. "}\n" .. tail))
end

return { machine = machine, spec = spec }
