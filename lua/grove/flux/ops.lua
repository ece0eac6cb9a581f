-- grove.flux.ops: the requests about the scheduler's state rather than
-- a job's: sched.resource-status (what `flux resource list` reads) and
-- the counters of `flux module stats`.
local core = require("grove.core")
local base = require("grove.flux.base")
local queues = require("grove.flux.queues")

local M = {}

local fmt = string.format

-- sched.resource-status: {all, down, allocated}, each an R table.
function M.resource_status(self)
  base.tick(self)
  local loop = self.loop
  local all = core.rv1_from_graph(loop.g)
  local down_ids = self.acq:targets("down")
  local down = all:restrict(down_ids)
  local allocated
  for _, rec in pairs(loop.jobs) do
    if rec.state == "running" then
      local R = loop.m:rv1(rec.id)
      if R then allocated = allocated and allocated:union(R) or R end
    end
  end
  allocated = allocated or all:restrict("")
  local payload = {all = all:to_table(), down = down:to_table(),
    allocated = allocated:to_table()}
  -- the text from R's own writer: an empty R_lite stays an array
  local json = fmt('{"all":%s,"down":%s,"allocated":%s}', all:encode(), down:encode(),
    allocated:encode())
  base.emit(self, {op = "respond", topic = "sched.resource-status", payload = payload, json = json})
  return base.flush(self)
end

-- {n, p50_us, p99_us, max_us} of a ring of durations in seconds ({n =
-- added, [1..] the last ones}), or {n = 0}.
local function ring_report(ring)
  if not ring or ring.n == 0 then return {n = 0} end
  local v = {}
  for i = 1, math.min(ring.n, #ring) do v[i] = ring[i] end
  table.sort(v)
  local k = #v
  return {n = ring.n, p50_us = v[k // 2 + 1] * 1e6, p99_us = v[(k * 99) // 100 + 1] * 1e6,
    max_us = v[k] * 1e6}
end

-- Counters in the shape of `flux module stats`.
function M.stats(self)
  local st = self.loop.cs:stats()
  return {jobs_matched = st.matched, matches_failed = st.failed,
    match_time = {min = st.match_min, avg = st.match_avg, max = st.match_max},
    queue_length = st.queue_length, running = st.running,
    queue = self.loop.queue_policy.name, policy = self.loop.policy_name,
    ["queue-depth"] = self.loop.queue_depth, ["reserve-depth"] = self.loop.reserve_depth,
    ["match-format"] = self.match_format, expiration = self.acq:expiration(),
    queues = queues.stats(self), allocs = self.allocs or 0,
    pass_time = ring_report(self.pass_ring),
    annotations_sent = self.annotations_sent or 0}
end

return M
