-- plain_gpu: a GPU packer as a newcomer writes it, with no declaration:
-- a job that asks for GPUs on the nodes with the most free GPUs, any other
-- on the fewest, degraded nodes last, all the nodes of a level in one
-- call from keys (free:gpu, property:degraded) and ctx.total.gpu.
-- bench/bench_undeclared.lua compares it with the C gpu, whose
-- placements it gives on a machine without degraded nodes.
return {
  name = "plain_gpu",
  description = "GPU jobs on the most free GPUs, others on the fewest; degraded nodes last",
  score_types = "node",
  scores = function(_, ctx, keys)
    local free, degraded = keys["free:gpu"], keys["property:degraded"]
    local sign = ctx.total.gpu and 1 or -1
    local out = {}
    for i = 1, #free do
      out[i] = sign * free[i] - degraded[i] * 1000000
    end
    return out
  end,
}
