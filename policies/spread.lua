-- spread: the nodes with the most free cores first.
--
-- Every node that fits is scored by the cores it has free during the
-- window being tried (its pruning aggregate: no walk), then by its free
-- GPUs, and the emptiest win, so jobs spread over the machine instead of
-- packing: fewer jobs share a node's memory bandwidth, and a failing node
-- takes fewer jobs down.  This is flux-core's worst-fit: nodes by (free
-- cores, free GPUs) descending, ties in graph (rank) order.  Only nodes
-- are scored (score_types), whether the request names them or not: a
-- request of cores alone (`flux run -n1`) takes its cores from the
-- emptiest nodes, filling each in turn, and from a node in graph order,
-- as first does.  The nodes of a level are scored in one call (scores):
-- keys["free:core"] and keys["free:gpu"] hold each one's free units,
-- read in C.  A node's score is its own free units in the window and
-- nothing else (score_local), and it reads nothing of ctx (score_reads):
-- the matcher keeps one ranking for jobs of every size and window, and
-- scores again only the nodes a job changed.
--
-- This file holds this one policy and nothing else: it is loaded as text
-- into a sandbox, so it must not require modules, read files or set
-- globals.

-- a free GPU weighs less than a free core while a node has fewer GPUs
local GPU_WEIGHT = 1048576

return {
  name = "spread",
  description = "the nodes with the most free cores first, then the most free GPUs",
  score_types = "node",
  score_local = true,
  score_reads = {},
  scores = function(_, _, keys)
    local cores, gpus = keys["free:core"], keys["free:gpu"]
    -- the arrays are this call's own: combined in place, no new table
    for i = 1, #cores do
      local g = gpus[i]
      cores[i] = cores[i] * GPU_WEIGHT + (g < GPU_WEIGHT - 1 and g or GPU_WEIGHT - 1)
    end
    return cores
  end,
}
