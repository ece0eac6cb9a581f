-- queues: the batch queues of a trace (SWF field 15) with their
-- priorities and limits, scheduled by EASY backfilling.
--
-- Each job belongs to a queue (its `queue` field; no queue counts as
-- queue -1).  A queue has a priority: the waiting jobs are ordered by
-- their queue's priority, highest first, then by submit time and id, so
-- the jobs of one queue keep their order.  A queue may have limits on
-- what its jobs hold at once: units (cores, or nodes) and running jobs.
-- A job whose queue is at a limit is not eligible: it waits, and neither
-- starts nor holds the head's reservation, while the jobs of other queues
-- go on.  The eligible jobs are then scheduled as easy does: in order
-- while they fit, then a reservation for the first that does not, and a
-- backfill of the others that fit now without delaying it.
--
-- Parameters (--param NAME=VALUE, or sim.new{params = {...}}), for a
-- queue Q (its number in the trace):
--   priority_Q  the queue's priority (default 0)
--   units_Q     at most this many units held by the queue's running jobs
--               (default: no limit)
--   jobs_Q      at most this many of its jobs running (default: no limit)
--
-- A queue policy holds only its pass over the queue: the simulator keeps
-- the clock, the jobs and the matcher.
local function qname(job)
  local q = job.queue
  if q == nil then return -1 end
  return q
end

return {
  name = "queues",
  description = "queues with priorities and limits (SWF field 15), EASY backfilling",

  priority = function(job, ctx)
    return ctx:param("priority_" .. qname(job), 0)
  end,

  schedule = function(ctx)
    ctx:cancel()
    -- what each queue holds now
    local units, jobs = {}, {}
    for _, r in ipairs(ctx:running()) do
      local q = qname(r)
      units[q] = (units[q] or 0) + (r.procs or 0)
      jobs[q] = (jobs[q] or 0) + 1
    end
    local function eligible(job)
      local q = qname(job)
      local ul, jl = ctx:param("units_" .. q), ctx:param("jobs_" .. q)
      if ul and (units[q] or 0) + (job.procs or 0) > ul then return false end
      if jl and (jobs[q] or 0) + 1 > jl then return false end
      return true
    end
    local function started(job)
      local q = qname(job)
      units[q] = (units[q] or 0) + (job.procs or 0)
      jobs[q] = (jobs[q] or 0) + 1
    end
    local q = ctx:queue()
    local i, head = 1, nil
    while q[i] do
      local job = q[i]
      i = i + 1
      if eligible(job) then
        if ctx:start(job) then
          started(job)
        elseif not ctx:held(job) then
          -- (a job a limit holds is passed over: it is no head)
          head = job
          break
        end
      end
    end
    if not head then return end
    local protect = {protect = head}
    local free = ctx:free()
    while q[i] and free > 0 do
      local job = q[i]
      i = i + 1
      if eligible(job) and (not job.procs or job.procs <= free) and ctx:start(job, protect) then
        started(job)
        free = ctx:free()
      end
    end
  end,
}
