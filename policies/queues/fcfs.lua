-- fcfs: first come, first served.
--
-- Jobs start in queue order (submit time, then job id) for as long as the
-- job at the head fits; the first job that does not fit stops the pass,
-- even when jobs behind it would fit.  Simple and fair, and it leaves
-- resources idle behind a large job at the head.
return {
  name = "fcfs",
  description = "first come, first served: start jobs in order while the head fits",

  schedule = function(ctx)
    for _, job in ipairs(ctx:queue()) do
      if not ctx:start(job) then return end
    end
  end,
}
