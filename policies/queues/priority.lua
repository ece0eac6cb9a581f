-- priority: EASY backfilling over a queue ordered by priority.
--
-- An example of a priority queue built on another policy.  A job's
-- priority grows with the time it has waited (one point per hour), with
-- its size (larger jobs are harder to fit, so they get a head start: one
-- point per eighth of the machine), and falls with its user's share of
-- the machine so far (fair share: the user's processor-seconds against
-- the machine's, up to ten points).  The queue is sorted by priority,
-- highest first (ties by submit time, then job id), and scheduled by easy.
--
-- A job's priority is asked when it joins the queue, and every waiting
-- job's again after a job ends (its user's share moved) and every hour.
-- Age is counted from a fixed origin (minus the submit time): it grows
-- alike for every job, so a priority asked at one time compares with one
-- asked at another.
--
-- A queue policy holds only its pass over the queue: the simulator keeps
-- the clock, the jobs and the matcher.
local AGE = 1 / 3600      -- points per second waited
local SIZE = 8            -- points for a job as large as the machine
local SHARE = 10          -- points lost by a user who had the whole machine

return {
  name = "priority",
  description = "EASY backfilling ordered by age, size and fair share",
  base = "easy",
  reprioritize = {every = 3600, ends = true},

  priority = function(job, ctx)
    local now = ctx:clock()
    local age = -job.submit * AGE
    local size = job.procs and SIZE * job.procs / ctx:total() or 0
    local share = 0
    if job.user ~= nil and now > 0 then
      share = SHARE * ctx:usage(job.user) / (ctx:total() * now)
      if share > SHARE then share = SHARE end
    end
    return age + size - share
  end,
}
