-- fcfs: first come, first served.
--
-- Jobs start in queue order (submit time, then job id) for as long as the
-- job at the head fits; the first job that does not fit stops the pass,
-- even when jobs behind it would fit.  Simple and fair, and it leaves
-- resources idle behind a large job at the head.  The queue is walked a
-- job at a time (ctx:next), so a pass costs the jobs it starts, not the
-- queue's length.
return {
  name = "fcfs",
  description = "first come, first served: start jobs in order while the head fits",
  -- no job starts before the one ahead of it: a forecast of start
  -- estimates places each after the one before
  in_order = true,
  -- the waiting jobs that show a start estimate (when no reserve depth is
  -- configured)
  estimate_depth = 64,

  schedule = function(ctx)
    local job = ctx:next()
    while job do
      local after = ctx:next(job)
      -- (a job a limit holds is passed over: it does not block the queue)
      if not ctx:start(job) and not ctx:held(job) then return end
      job = after
    end
  end,
}
