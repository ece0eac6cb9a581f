-- aftercare: leave room for what comes after the job.
--
-- A job reserved into the future ends at a known time; the nodes that are
-- also free for an hour after it ends make the best home, since the job
-- does not cut a free stretch in two.  Each node that fits is scored by
-- the cores it still has free during [end, end + 1 h) (views answer for
-- any window asked), plus what it has free during the job's own window
-- (the default window of every view in a hook) to break ties toward
-- emptier nodes.  Jobs without an end are scored by the window alone.
-- Only nodes are scored (score_types).
--
-- Load it with grove.policy.load("examples/policies/aftercare.lua").  It
-- is loaded as text into a sandbox: no modules, files or globals.
local HOUR = 3600

return {
  name = "aftercare",
  description = "nodes also free for an hour after the job ends first",
  score_types = "node",
  score = function(v, ctx)
    local now = v:aggregate("core")
    local stop = ctx["end"]
    if not stop then
      return now
    end
    return v:aggregate("core", stop, HOUR) * 1000 + now
  end,
}
