-- backfill: backfilling with its knobs: how many jobs hold a reservation,
-- how often the backfill pass runs, and how far down the queue it looks.
--
-- Jobs start in queue order while each fits now without moving a
-- reservation, at every pass.  At a backfill pass (every `interval`
-- seconds; every pass when 0) the first `depth` waiting jobs that cannot
-- start get a reservation at their earliest start, given the running
-- jobs' estimates and the reservations before them, and any other job
-- among the first `queue_depth` starts if it fits now without moving
-- any reservation.  Reservations are kept from pass to pass; when a job
-- ends before its estimate or a node changes state they are all dropped
-- at the next backfill pass and planned again (the schedule is
-- compressed).  depth = 1 is EASY backfilling (the head is protected),
-- depth = all (the default is 1; give a large number) is conservative
-- backfilling, anything between protects that many jobs.
--
-- Parameters (--param NAME=VALUE, or sim.new{params = {...}}):
--   depth        reservations held at most (default 1)
--   interval     seconds between backfill passes (default 0: every pass)
--   queue_depth  jobs a backfill pass looks at, from the head (default
--                all)
--
-- A queue policy holds only its pass over the queue: the simulator keeps
-- the clock, the jobs and the matcher.
local due = nil        -- the next backfill pass's time
local dirty = false    -- a change since the last backfill pass

return {
  name = "backfill",
  description = "backfilling with a reservation depth, an interval and a queue depth",

  schedule = function(ctx)
    local depth = ctx:param("depth", 1)
    local interval = ctx:param("interval", 0)
    local queue_depth = ctx:param("queue_depth", math.huge)
    local now = ctx:clock()
    local q = ctx:queue()
    dirty = dirty or ctx:changed()
    local tick = interval <= 0 or not due or now >= due
    if not tick then
      -- in order, while the head fits; the backfill pass waits for its time
      for _, job in ipairs(q) do
        if job.reserved == now then
          ctx:start(job)
        elseif not job.reserved then
          if ctx:earliest(job) ~= now or not ctx:start(job) then break end
        end
      end
      ctx:wake(due)
      return
    end
    if interval > 0 then
      due = (now // interval + 1) * interval
      ctx:wake(due)
    end
    if dirty then
      ctx:cancel()
      dirty = false
    end
    local held = 0
    for i, job in ipairs(q) do
      if i > queue_depth then return end
      if held >= depth then
        -- every reservation is made: from here on only a job that can
        -- start now matters (one whose reservation is due, or whose
        -- earliest start is now), and neither asks more units than are
        -- free, so a job that does then is passed over without a call
        local free = ctx:free()
        for k = i, math.min(#q, queue_depth) do
          if free <= 0 then return end
          job = q[k]
          if job.reserved == now or (not job.reserved and (not job.procs or job.procs <= free)
            and ctx:earliest(job) == now) then
            if ctx:start(job) then free = ctx:free() end
          end
        end
        return
      end
      if job.reserved == now then
        ctx:start(job)
      elseif job.reserved then
        held = held + 1
      elseif held < depth then
        local _, how = ctx:reserve(job)
        if how == "reserved" then held = held + 1 end
      elseif ctx:earliest(job) == now then
        ctx:start(job)
      end
    end
  end,
}
