-- easy: first come, first served with EASY backfilling.
--
-- Jobs start in queue order while the head fits.  The first job that does
-- not fit gets a reservation at its shadow time: the earliest time enough
-- resources are free, by the running jobs' estimates.  Any later job that
-- fits now then starts if it does not delay that reservation: it ends (by
-- its estimate) by the shadow time, or it uses only what the head leaves
-- over at the shadow time.  Only the head is protected, so later jobs may
-- be delayed by backfilled ones; in exchange the machine stays busy.
return {
  name = "easy",
  description = "EASY backfilling: a reservation for the head only",

  schedule = function(ctx)
    local q = ctx:queue()
    -- The last pass's reservation is stale: plan the head afresh.
    for _, job in ipairs(q) do
      if job.reserved then ctx:cancel(job) end
    end
    local i = 1
    while q[i] and ctx:start(q[i]) do i = i + 1 end
    local head = q[i]
    if not head then return end
    -- Backfill: a later job starts when it fits now and does not delay
    -- the head's earliest start (its shadow time).
    -- (What is free changes only when a job starts.)
    local protect = {protect = head}
    local free = ctx:free()
    for k = i + 1, #q do
      if free <= 0 then break end
      local job = q[k]
      if (not job.procs or job.procs <= free) and ctx:start(job, protect) then
        free = ctx:free()
      end
    end
  end,
}
