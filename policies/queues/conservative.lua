-- conservative: conservative backfilling.
--
-- Every waiting job, in queue order, holds the earliest start at which it
-- fits for its whole estimate, given the running jobs and every earlier
-- job's start or reservation (the planner's allocate-or-reserve).  A job
-- starts when its reservation comes due, or at once when it fits now
-- without moving any earlier job.  When a job ends before its estimate,
-- or a node changes state, the schedule is compressed: every reservation
-- is dropped and the queue planned again in order from the current time.
-- No job is ever delayed by a later one.
--
-- A queue policy holds only its pass over the queue: the simulator keeps
-- the clock, the jobs and the matcher.
return {
  name = "conservative",
  description = "conservative backfilling: a reservation for every job",

  schedule = function(ctx)
    -- every reservation dropped at once (ctx:cancel() with no job)
    if ctx:changed() then ctx:cancel() end
    local q = ctx:queue()
    local now = ctx:clock()
    for _, job in ipairs(q) do
      if job.reserved == now then
        ctx:start(job)
      elseif not job.reserved then
        ctx:reserve(job)
      end
    end
  end,
}
