-- conservative: conservative backfilling.
--
-- Every waiting job, in queue order, holds the earliest start at which it
-- fits for its whole estimate, given the running jobs and every earlier
-- job's start or reservation (the planner's allocate-or-reserve).  A job
-- starts when its reservation comes due, or at once when it fits now
-- without moving any earlier job.  When a job ends before its estimate,
-- or a node changes state, the schedule is compressed: every reservation
-- is dropped and the queue planned again in order from the current time.
-- No job is ever delayed by a later one.  Under limits, a job a limit
-- holds is planned too (ctx:queue("held")), from the first start its
-- limits allow (when its holder's jobs end), so that its estimate and the
-- plans around it count the limit.
--
-- A queue policy holds only its pass over the queue: the simulator keeps
-- the clock, the jobs and the matcher.
return {
  name = "conservative",
  description = "conservative backfilling: a reservation for every job",

  schedule = function(ctx)
    if ctx:changed() then
      -- the schedule compressed: every reservation dropped and each job
      -- planned again, in queue order, in one call (what ctx:cancel()
      -- and then ctx:reserve of each job in turn do)
      ctx:replan()
      return
    end
    local now = ctx:clock()
    for _, job in ipairs(ctx:queue("held")) do
      if job.reserved == now then
        ctx:start(job)
      elseif not job.reserved then
        ctx:reserve(job)
      end
    end
  end,
}
