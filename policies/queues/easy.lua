-- easy: first come, first served with EASY backfilling.
--
-- Jobs start in queue order while the head fits.  The first job that does
-- not fit gets a reservation at its shadow time: the earliest time enough
-- resources are free, by the running jobs' estimates.  Any later job that
-- fits now then starts if it does not delay that reservation: it ends (by
-- its estimate) by the shadow time, or it uses only what the head leaves
-- over at the shadow time.  Only the head is protected, so later jobs may
-- be delayed by backfilled ones; in exchange the machine stays busy.
--
-- The queue is walked a job at a time (ctx:next), passing over in the
-- loop the jobs larger than what is free, and the backfill stops when
-- nothing is free: a pass costs the jobs it tries, not the queue's
-- length.
return {
  name = "easy",
  description = "EASY backfilling: a reservation for the head only",
  -- the waiting jobs that show a start estimate (when no reserve depth is
  -- configured): the head, the one job whose start easy promises
  estimate_depth = 1,

  schedule = function(ctx)
    -- The last pass's reservation is stale: plan the head afresh.
    ctx:cancel()
    local head = ctx:next()
    while head do
      local after = ctx:next(head)
      -- (a job a limit holds is passed over: it is no head to protect)
      if not ctx:start(head) and not ctx:held(head) then break end
      head = after
    end
    if not head then return end
    -- Backfill: a later job starts when it fits now and does not delay
    -- the head's earliest start (its shadow time).
    -- (What is free changes only when a job starts.)
    local protect = {protect = head}
    local free = ctx:free()
    local job = ctx:next(head, free)
    while job and free > 0 do
      local after = ctx:next(job, free)
      if ctx:start(job, protect) then
        free = ctx:free()
        -- what follows must fit what is left
        if after and after.procs and after.procs > free then after = ctx:next(after, free) end
      end
      job = after
    end
  end,
}
