-- grove.sim.machine: the machine a trace's header describes, for a run
-- given no cluster (grove sim --trace FILE without --cluster).
--
--   local shape = machine.from_header(reader.header)   -- or nil, message
--   local g = machine.graph(shape)                      -- a grove graph
--
-- A Standard Workload Format header names the machine in its comment
-- lines "MaxNodes: N" and "MaxProcs: P".  The cluster made of them:
--   both     N nodes of P / N cores (rounded up when P is not a multiple
--            of N: the note says so);
--   MaxProcs P nodes of one core: a processor is then both a core and a
--            node, so --procs-as core and node give the same machine;
--   MaxNodes N nodes of one core.
-- Values that are not positive integers (-1: unknown) count as absent.
--
-- It must not read traces (grove.sim.trace does) nor run anything: it
-- only reads header lines and builds a graph.
local M = {}

local fmt = string.format

-- The positive integer a header line "KEY: VALUE" gives, or nil.
local function field(header, key)
  for _, h in ipairs(header or {}) do
    local v = h:match("^%s*" .. key .. "%s*:%s*(%S+)")
    local n = v and math.tointeger(tonumber(v))
    if n and n > 0 then return n end
  end
  return nil
end

-- {nodes =, cores = per node, procs =, max_nodes =, max_procs =, note =}
-- from header lines (a reader's header), or nil, message.
function M.from_header(header)
  local procs, nodes = field(header, "MaxProcs"), field(header, "MaxNodes")
  if not procs and not nodes then
    return nil, "names no MaxProcs or MaxNodes"
  end
  local shape = {max_procs = procs, max_nodes = nodes}
  if procs and nodes then
    shape.nodes, shape.cores = nodes, (procs + nodes - 1) // nodes
    shape.note = fmt("MaxNodes %d, MaxProcs %d", nodes, procs)
    if procs % nodes ~= 0 then
      shape.note = shape.note .. fmt(": %d is not a multiple of %d, so %d cores a node, %d " ..
        "in all", procs, nodes, shape.cores, shape.cores * nodes)
    end
  elseif procs then
    shape.nodes, shape.cores = procs, 1
    shape.note = fmt("MaxProcs %d, no MaxNodes: a node a processor", procs)
  else
    shape.nodes, shape.cores = nodes, 1
    shape.note = fmt("MaxNodes %d, no MaxProcs: one core a node", nodes)
  end
  shape.procs = shape.nodes * shape.cores
  return shape
end

-- What a run says of the machine it made: "N nodes of C cores (NOTE)".
function M.describe(shape)
  return fmt("%d node%s of %d core%s (%s)", shape.nodes, shape.nodes == 1 and "" or "s",
    shape.cores, shape.cores == 1 and "" or "s", shape.note)
end

-- The graph of a shape: a cluster "swf0" of nodes n0, n1, ... each
-- holding its cores.
function M.graph(shape)
  local cluster = require("grove.cluster")
  local R = cluster.resources
  return cluster "swf" {
    R.node(shape.nodes, {hostnames = fmt("n[0-%d]", shape.nodes - 1)}) {
      R.core(shape.cores),
    },
  }
end

return M
