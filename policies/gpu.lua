-- gpu: GPU nodes for GPU jobs.
--
-- A job that asks for GPUs gets the nodes with the most GPUs free during
-- the window being tried, so its GPUs sit together; a job that asks for
-- none gets the nodes with the fewest GPUs free, so it does not take the
-- cores a later GPU job would need beside its GPUs.  Only nodes are scored
-- (score_types), all the nodes of a level in one call (scores), from
-- keys["free:gpu"], each node's free GPUs read in C; the request is read
-- from ctx.total.  A node's score is its own free GPUs in the window and
-- whether the request asks for GPUs, nothing else (score_local, and
-- score_reads names the one field of ctx read): the matcher keeps one
-- ranking for the jobs of each kind, whatever their sizes and windows,
-- and scores again only the nodes a job changed.
--
-- This file holds this one policy and nothing else: it is loaded as text
-- into a sandbox, so it must not require modules, read files or set
-- globals.
return {
  name = "gpu",
  description = "GPU jobs on the nodes with the most free GPUs, others on the fewest",
  score_types = "node",
  score_local = true,
  score_reads = {"total.gpu"},
  scores = function(_, ctx, keys)
    local free = keys["free:gpu"]
    if (ctx.total.gpu or 0) > 0 then
      return free
    end
    -- the array is this call's own: negated in place, no new table
    for i = 1, #free do
      free[i] = -free[i]
    end
    return free
  end,
}
