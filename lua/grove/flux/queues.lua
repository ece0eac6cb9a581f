-- grove.flux.queues: flux-core's named queues ([queues.NAME]), each
-- scheduled as its own queue, and the queue policies the loop runs.
--
-- With no [queues] table the loop runs one queue policy over every job
-- (queue-policy=, reserve-depth=, placement-policy=).  With queues, each
-- queue has a policy of its own (grove.sim.perqueue, the same per-queue
-- scheduling `grove sim` runs): its [sched-grove.queues.NAME]
-- queue-policy, reserve-depth and placement-policy, else the
-- [sched-grove] ones.  A pass runs the queues one after another, each
-- seeing only its own waiting jobs, so a head job blocked in one queue
-- holds back no other queue's jobs.
--
-- Queues that share nodes share one graph and one planner: a node is
-- never booked twice, and a reservation any queue's policy makes binds
-- every queue (a job of another queue starts only when it fits now
-- without moving it).  So a large job at the head of one queue under
-- easy or conservative holds its reservation and starts by its estimate
-- while the other queue keeps flowing on what the reservation leaves.
-- A job's queue is its jobspec's attributes.system.queue; the job
-- manager adds the queue's `requires` to the job's constraints (a
-- virtual queue's, its parent's), so placement follows from them.
local config = require("grove.flux.config")
local sched = require("grove.sched")
local perqueue = require("grove.sim.perqueue")
local suggest = require("grove.suggest")

local M = {}

local fmt = string.format

-- The queue policy for loop under opts (a table the loop fills, or the
-- loop itself): a policy per queue when opts names queues, else opts.queue
-- as it is (a name or path, loaded by grove.sched).  The policy (or the
-- spec), or nil, message, code.
function M.policy(loop, opts, limits)
  if not opts.queues then return opts.queue or "fcfs" end
  local d, msg, code = sched.load_queue(opts.queue or "fcfs", limits)
  if not d then return nil, msg, code end
  local q
  q, msg, code = perqueue.new(loop, d, config.queue_params(opts.queues), limits)
  if not q then return nil, msg, code end
  return q
end

-- The queue of a job from its jobspec table: attributes.system.queue, or
-- nil (the anonymous queue); nil and the reason when the instance has
-- queues and the job names one it does not have.
function M.of(self, js)
  local a = type(js) == "table" and js.attributes
  local q = type(a) == "table" and type(a.system) == "table" and a.system.queue or nil
  if q == nil then return nil end
  if type(q) ~= "string" then return nil, "attributes.system.queue: a name expected" end
  local queues = self.queues
  if queues and not queues[q] then
    return nil, fmt("queue '%s' does not exist%s", q, suggest.hint(q, self.queue_names))
  end
  return q
end

-- Per-queue figures for `flux module stats`: {NAME = {pending =, running
-- =, reserved =, policy =, placement =}}, or nil without queues.
function M.stats(self)
  if not self.queues then return nil end
  local loop = self.loop
  local out = {}
  local pol = loop.queue_policy
  for _, name in ipairs(self.queue_names) do
    local sub = pol.subs and pol.subs[name]
    local pl = pol.placement and pol:placement(name)
    out[name] = {pending = 0, running = 0, reserved = 0,
      policy = sub and sub.name or pol.default.name,
      placement = pl and pl.name or loop.pl0.name}
  end
  for _, rec in pairs(loop.jobs) do
    local f = rec.queue and out[rec.queue]
    if f then
      if rec.state == "queued" then
        f.pending = f.pending + 1
        if rec.reserved then f.reserved = f.reserved + 1 end
      elseif rec.state == "running" then
        f.running = f.running + 1
      end
    end
  end
  return out
end

return M
