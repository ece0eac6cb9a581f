-- spread: the nodes with the most free cores first.
--
-- Every node that fits is scored by the cores it has free during the
-- window being tried (its pruning aggregate: no walk), and the emptiest
-- win, so jobs spread over the machine instead of packing: fewer jobs
-- share a node's memory bandwidth, and a failing node takes fewer jobs
-- down.  Only nodes are scored (score_types); cores are taken in graph
-- order, as first does.  The nodes of a level are scored in one call
-- (scores): keys["free:core"] holds each one's free cores, read in C, so
-- no Lua runs per node.
--
-- This file holds this one policy and nothing else: it is loaded as text
-- into a sandbox, so it must not require modules, read files or set
-- globals.
return {
  name = "spread",
  description = "the nodes with the most free cores first",
  score_types = "node",
  scores = function(_, _, keys)
    return keys["free:core"]
  end,
}
