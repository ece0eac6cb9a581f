-- grove.flux.annotate: what a job shows while it waits and when it
-- starts (RFC 27 annotations: sched.t_estimate, sched.reason_pending,
-- sched.resource_summary), sent only when it changed.
--
-- After each pass, annotate(self) looks at the waiting jobs whose
-- annotation may have moved (those the loop touched, the head and the
-- head before it; every waiting job under a queue depth) and emits an
-- "annotate" alloc action for each whose estimate or reason changed.
-- started(self, rec) is the success action of a job a pass started,
-- with its resource summary and the pending keys cleared.
local core = require("grove.core")
local sched = require("grove.sched")
local base = require("grove.flux.base")

local M = {}

local emit = base.emit

-- A job started in a pass: its alloc response.
function M.started(self, rec)
  self.gen = self.gen + 1
  local text, R = base.R_of(self, rec)
  local ann = {sched = {resource_summary = R:summary()}}
  if rec.sent and rec.sent.t_estimate then ann.sched.t_estimate = core.null end
  if rec.sent and rec.sent.reason_pending then ann.sched.reason_pending = core.null end
  rec.sent = nil
  emit(self, {op = "alloc", id = rec.id, type = "success", R = text, annotations = ann})
end

-- The earliest start the planner finds now for rec, the head of the
-- queue: one match, made again only when the head, the clock or what the
-- planner holds moved since the last.
local function head_estimate(self, rec)
  local loop = self.loop
  local key = self.head_key
  if not key or key[1] ~= rec or key[2] ~= loop.now or key[3] ~= self.gen then
    local j = loop.m:match(rec.js, "without_allocating_future")
    self.head_key, self.head_t = {rec, loop.now, self.gen}, j and j.start or nil
  end
  return self.head_t
end

-- The waiting jobs whose annotation may have changed since the last
-- pass, in queue order: those the loop touched (joined the queue, a
-- reservation made or dropped), the head and the head before it.  Under
-- a queue depth, every waiting job (a job's place decides its reason).
local function to_annotate(self)
  local loop = self.loop
  local touched = loop.touched
  loop.touched = {}
  if loop.queue_depth then return sched.waiting(loop) end
  local jobs, cs = loop.jobs, loop.cs
  local head = cs:next()
  if head then touched[head] = jobs[head] end
  if self.head_id and self.head_id ~= head then touched[self.head_id] = jobs[self.head_id] end
  self.head_id = head
  local list, pos = {}, {}
  for id, rec in pairs(touched) do
    if jobs[id] == rec and rec.state == "queued" then
      list[#list + 1] = rec
      pos[rec] = cs:position(id)
    end
  end
  table.sort(list, function(a, b) return pos[a] < pos[b] end)
  return list, pos
end

-- After a pass: annotate the waiting jobs whose estimate changed.  A
-- job with a reservation has its start as t_estimate; so does the head
-- of the queue without one (the earliest start the planner finds for it
-- now, for the job users watch most).
function M.annotate(self)
  local loop = self.loop
  local depth = loop.queue_depth
  local list, pos = to_annotate(self)
  for i, rec in ipairs(list) do
    if pos then i = pos[rec] end
    local want = {}
    local est = rec.reserved
    if not est and i == 1 then est = head_estimate(self, rec) end
    if est then
      want.t_estimate = est
    elseif depth and i > depth then
      want.reason_pending = "beyond the queue depth"
    else
      want.reason_pending = "insufficient resources"
    end
    local sent = rec.sent or {}
    if sent.t_estimate ~= want.t_estimate or sent.reason_pending ~= want.reason_pending then
      local a = {}
      a.t_estimate = want.t_estimate or (sent.t_estimate and core.null) or nil
      a.reason_pending = want.reason_pending or (sent.reason_pending and core.null) or nil
      rec.sent = want
      emit(self, {op = "alloc", id = rec.id, type = "annotate", annotations = {sched = a}})
    end
  end
end

return M
