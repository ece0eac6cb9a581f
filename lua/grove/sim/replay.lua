-- grove.sim.replay: replay a Flux instance's history (grove.sim.history)
-- through the scheduler sched-grove runs, in virtual time.
--
--   local replay = require "grove.sim.replay"
--   local r, err = replay.run(h, {queue = "conservative", within = 1})
--   -- r.jobs[i] = {id, actual, predicted, diff, agree, why, ...}
--   -- r.agree, r.compared, r.left_out, r.summary (grove.sim.metrics)
--
-- The scheduler is grove.flux, the very object sched-grove.so drives,
-- fed the messages the instance's scheduler was fed, at the times it was
-- fed them: the resource.acquire responses (the R, then each drain,
-- undrain, online and offline as up and down ranks), each job's
-- sched.alloc, sched.cancel (a hold, a cancel) and sched.prioritize as the
-- history's events say (grove.sim.history), and the timer of a
-- reservation coming due.  Its clock is the history's (the module reads
-- the wall clock; here it reads the event's time), so a pass happens
-- where the module's did: after each message, and at a reservation's
-- start.  What differs is what the replay decides: a job's start is the
-- time of the message whose pass started it, and its sched.free comes
-- its actual run later (the free event minus the alloc event of the
-- history).  The job manager hears of a start some milliseconds after
-- the scheduler's decision (the response, R in the KVS): a started job is
-- given the latency it had in the instance (from the last message before
-- its alloc event to that event, at most DELAY), so its predicted start
-- is the decision plus that latency, and its free comes its run after.
-- A job that never started in the history but does in the replay ends at
-- its cancel, or runs on to the end of the history.
--
-- Then each job's predicted start is set beside its actual start (the
-- alloc event), and every job that differs by more than `within`
-- seconds gets its explanation (explain below).
--
-- It must not read files nor print: grove.sim.historycmd does.
local check = require("grove.check")
local core = require("grove.core")
local flux = require("grove.flux")
local config = require("grove.flux.config")
local heap = require("grove.sim.heap")
local metrics = require("grove.sim.metrics")

local M = {}

local fmt = string.format

-- Seconds: the longest start latency a job is given (below), and the
-- longest gap a difference is put down to message delay by.
M.DELAY = 1

-- Seconds after its priority event that a job's sched.alloc reaches the
-- scheduler: the job manager sends alloc requests from its check watcher,
-- after the events of the reactor turn (flux-core's job-manager/alloc.c),
-- so a free posted in the same turn goes first.
M.ALLOC_AFTER = tonumber(os.getenv("GROVE_ALLOC_AFTER")) or 0.002

local function by_time(a, b)
  if a.t ~= b.t then return a.t < b.t end
  return a.seq < b.seq
end

local function copy(t)
  if type(t) ~= "table" then return t end
  local o = {}
  for k, v in pairs(t) do o[k] = copy(v) end
  return o
end

-- The options of grove.flux.new the history's configuration gives, with
-- the command line's queue and placement policies over it (over every
-- queue's own too: a what-if runs the one named); nil and the reason.
function M.options(h, opts)
  local where = fmt("%s:%d: ", h.path, h.config_line or 2)
  local conf = copy(h.config or {})
  local args = {}
  if h.scheduler and type(h.scheduler.args) == "table" then
    for _, a in ipairs(h.scheduler.args) do args[#args + 1] = tostring(a) end
  end
  local o, msg = config.module_options(conf, args)
  if not o then return nil, where .. "the configuration: " .. msg end
  if o.limited then
    return nil, where .. fmt("the configuration: queue-depth=%d (the job manager's limited " ..
      "mode) is not honoured by the replay: it hands the scheduler every job as it comes",
      o.limited)
  end
  local jm = type(conf["job-manager"]) == "table" and conf["job-manager"]
  if jm and jm.housekeeping ~= nil then
    return nil, where .. "the configuration: [job-manager.housekeeping] returns a job's " ..
      "resources in parts after it ends, which the history does not record: the replay " ..
      "cannot honour it"
  end
  if opts.queue then
    o.queue = opts.queue
    for _, e in pairs(o.queues or {}) do e.queue = nil end
  end
  if opts.policy then
    o.policy = opts.policy
    for _, e in pairs(o.queues or {}) do e.policy = nil end
  end
  o.log_level = 3
  return o
end

-- The usable ranks (online, not drained) after the resource events up to
-- and including index k, as an idset; the online set starts as the
-- restart event's, or empty when an online event comes, else every rank.
local function resource_state(h)
  local all = h.rv1:ranks()
  local online, drained = all:copy(), core.idset()
  local any_online = false
  for _, e in ipairs(h.resource_events) do
    if e.name == "online" then any_online = true end
  end
  if any_online then online = core.idset() end
  return {all = all, online = online, drained = drained}
end

local function apply_resource(st, e)
  local c = e.context
  if e.name == "restart" and type(c.online) == "string" then
    local s = core.idset(c.online)
    if s then st.online = s end
  elseif e.name == "online" then
    st.online:add(c.idset)
  elseif e.name == "offline" then
    st.online:subtract(c.idset)
  elseif e.name == "drain" then
    st.drained:add(c.idset)
  elseif e.name == "undrain" then
    st.drained:subtract(c.idset)
  else
    return false
  end
  return true
end


-- The last element of the sorted list for which holds(e) is true, when
-- holds is true of a prefix of it (binary search); nil when none.
local function last_where(list, holds)
  local lo, hi, found = 1, #list, nil
  while lo <= hi do
    local mid = (lo + hi) // 2
    if holds(list[mid]) then
      found = list[mid]
      lo = mid + 1
    else
      hi = mid - 1
    end
  end
  return found
end
local function usable(st)
  return st.online - st.drained
end

-- A job that ran, into the metrics acc: submitted, started and ended at
-- the times given (rel: the run's clock), on procs cores, with the
-- estimates it was shown (est: {first, last, count} or nil).
local function ran(acc, rel, j, start, stop, procs, est)
  acc:job{submit = rel(j.t_submit), start = rel(start), ["end"] = rel(stop), procs = procs,
    state = "done", user = j.userid,
    predicted_first = est and rel(est.first), predicted_last = est and rel(est.last),
    predictions = est and est.count}
end

-- Replay h.  opts: queue, policy (names or paths over the history's
-- configuration), within (seconds, default 1), progress(done, total); any
-- other key raises.  The result, or nil and "FILE:LINE: reason".
local RUN_OPTIONS = {queue = 1, policy = 1, within = 1, progress = 1}

function M.run(h, opts)
  check.keys(opts, RUN_OPTIONS, 2, "run")
  opts = opts or {}
  local within = opts.within or 1
  local o, msg = M.options(h, opts)
  if not o then return nil, msg end
  local jobs = h.jobs
  local t0 = jobs[1] and jobs[1].t_submit or h.created or 0
  local vt = t0
  o.clock = function() return vt end
  -- the replay measures the estimates it shows, whatever the instance's
  -- record-estimates was
  o.record_estimates = true
  local s, smsg = flux.new(o)
  if not s then
    return nil, fmt("%s:%d: the configuration: %s", h.path, h.config_line or 2, tostring(smsg))
  end
  local ev = heap.new(by_time)
  local seq = 0
  local function push(e)
    seq = seq + 1
    e.seq = seq
    ev:push(e)
  end
  -- resources: the state at the first job, then each change
  local st = resource_state(h)
  for _, e in ipairs(h.resource_events) do
    if e.t <= t0 then
      apply_resource(st, e)
    else
      push({t = e.t, kind = "resource", event = e})
    end
  end
  local total_cores = h.rv1:count("core") or 0
  local reached, left = {}, {}
  for _, j in ipairs(jobs) do
    if j.reached then
      reached[#reached + 1] = j
      for _, m in ipairs(j.sched) do
        push({t = m.t + (m.op == "alloc" and M.ALLOC_AFTER or 0), kind = m.op, job = j, msg = m})
      end
      if j.alloc and j.free then j.run = j.free - j.alloc end
      -- a cancel's time, for a job the replay starts that the instance did not
      for _, e in ipairs(j.events) do
        if e.name == "exception" and e.context and e.context.severity == 0 then
          j.cancel_t = j.cancel_t or e.timestamp
        end
      end
    else
      left[#left + 1] = j
    end
  end
  -- each started job's start latency in the instance: from the last
  -- message before its alloc event (an arrival, a free, a resource event:
  -- what let the scheduler start it) to that event, at most DELAY
  local marks = {}
  for _, j in ipairs(reached) do
    for _, m in ipairs(j.sched) do
      marks[#marks + 1] = m.t + (m.op == "alloc" and M.ALLOC_AFTER or 0)
    end
    if j.free then marks[#marks + 1] = j.free end
  end
  for _, e in ipairs(h.resource_events) do marks[#marks + 1] = e.t end
  table.sort(marks)
  for _, j in ipairs(reached) do
    if j.alloc then
      local found = last_where(marks, function(m) return m <= j.alloc end)
      j.latency = found and math.min(M.DELAY, j.alloc - found) or 0
    end
  end
  local stop = h.created or math.huge
  local acc = metrics.new{units = total_cores}
  local busy, queued = 0, 0
  local byid = {}
  for _, j in ipairs(reached) do
    byid[j.id] = j
    j.pred, j.pred_end, j.pred_R, j.denied, j.decided = nil, nil, nil, nil, nil
  end
  local refused
  local function rel(t) return math.floor((t - t0) * 1000 + 0.5) / 1000 end
  local function actions(list)
    for _, a in ipairs(list) do
      if a.op == "alloc" and a.type == "success" then
        local j = byid[a.id]
        if j and not j.pred then
          -- the job manager hears of the start as long after the decision
          -- as it did in the instance
          j.decided = vt
          j.pred = vt + (j.latency or 0)
          local ann = a.annotations and a.annotations.sched
          j.pred_estimated = type(ann) == "table" and type(ann.estimated) == "table" and
            ann.estimated or nil
          local R = a.R and core.rv1_decode(a.R, "R")
          j.pred_ranks = R and tostring(R:ranks()) or ""
          j.pred_cores = R and R:count("core") or 0
          local run = j.run
          if not run and j.cancel_t then run = math.max(0, j.cancel_t - j.pred) end
          if run then push({t = j.pred + run, kind = "free", job = j}) end
          busy = busy + j.pred_cores
          queued = queued - 1
          acc:level(rel(vt), busy, queued)
        end
      elseif a.op == "alloc" and a.type == "deny" then
        local j = byid[a.id]
        if j then
          j.denied = a.note
          queued = queued - 1
          if j.alloc and not refused then
            refused = fmt("%s:%d: job %d: the instance ran it, but the replay's R cannot: %s " ..
              "(its resources no longer exist)", h.path, j.line, j.id, tostring(a.note))
          end
        end
      elseif a.op == "alloc" and a.type == "cancel" then
        queued = queued - 1
      elseif a.op == "exception" then
        local j = byid[a.id]
        if j and j.pred and not j.pred_end then push({t = vt, kind = "free", job = j}) end
      end
    end
  end
  vt = t0
  actions(s:acquire({resources = core.json_decode(h.R, "R"), up = tostring(usable(st))}))
  local up_now = usable(st)
  local wake_at
  local done, total = 0, #reached
  local nsteps = 0
  while true do
    local e = ev:peek()
    local w = s:next_wake()
    if w and (not e or w < e.t) and w <= stop then
      -- the module's timer: a reservation comes due
      ev:push({t = w, seq = -1, kind = "wake"})
      e = ev:peek()
    end
    if not e or e.t > stop then break end
    ev:pop()
    vt = e.t
    nsteps = nsteps + 1
    local k, j = e.kind, e.job
    if k == "alloc" then
      local js = j.jobspec
      queued = queued + 1
      actions(s:alloc({id = j.id, priority = e.msg.priority, userid = j.userid,
        t_submit = j.t_submit, jobspec = js}))
      acc:level(rel(vt), busy, queued)
    elseif k == "cancel" then
      if not j.pred then
        local list = s:cancel({id = j.id})
        actions(list)
        if e.msg.hold then
          j.holds = (j.holds or 0) + 1
        end
      end
    elseif k == "prioritize" then
      actions(s:prioritize({jobs = {{j.id, e.msg.priority}}}))
    elseif k == "free" then
      if not j.pred_end then
        j.pred_end = vt
        busy = busy - (j.pred_cores or 0)
        actions(s:free({id = j.id}))
        acc:level(rel(vt), busy, queued)
        done = done + 1
      end
    elseif k == "resource" then
      if apply_resource(st, e.event) then
        local now = usable(st)
        local up, down = now - up_now, up_now - now
        up_now = now
        if up:count() > 0 or down:count() > 0 then
          local r = {}
          if up:count() > 0 then r.up = tostring(up) end
          if down:count() > 0 then r.down = tostring(down) end
          actions(s:acquire(r))
        end
      end
    elseif k == "wake" then
      if wake_at ~= vt then
        wake_at = vt
        actions(s:schedule())
      end
    end
    -- the module's check watcher: after each message, schedule() (a pass
    -- when the clock's second moved since the last one, or one is due)
    if k ~= "wake" then actions(s:schedule()) end
    if refused then return nil, refused end
    if opts.progress and nsteps % 4096 == 0 then opts.progress(done, total, vt - t0) end
  end
  -- compare
  local res = {jobs = {}, compared = 0, agree = 0, within = within, left_out = #left,
    left = left, t0 = t0, path = h.path, queue = s.loop.queue_policy.name,
    policy = s.loop.policy_name}
  for _, j in ipairs(reached) do
    local a, p = j.alloc, j.pred
    local agree, diff
    if a and p then
      diff = p - a
      agree = math.abs(diff) <= within
    elseif not a and not p then
      agree = true
    else
      agree = false
    end
    res.compared = res.compared + 1
    if agree then res.agree = res.agree + 1 end
    res.jobs[#res.jobs + 1] = {id = j.id, line = j.line, actual = a, predicted = p, diff = diff,
      agree = agree, job = j, denied = j.denied, decided = j.decided}
    if p then
      local e = j.pred_end or stop
      local est = j.pred_estimated
      ran(acc, rel, j, p, e, j.pred_cores, est)
    else
      acc:submitted(rel(j.t_submit))
    end
  end
  res.summary = acc:result({queue = res.queue, policy = res.policy,
    trace = h.path, trace_digest = M.digest(h), cluster_digest = M.cluster_digest(h),
    left_out = #left, submitted = #reached})
  M.explain(res, h)
  return res
end

-- The instance's own figures, as a summary --compare reads.
function M.actual_summary(h)
  local acc = metrics.new{units = h.rv1:count("core") or 0}
  local t0
  for _, j in ipairs(h.jobs) do
    if j.reached then
      t0 = t0 or j.t_submit
      local function rel(t) return math.floor((t - t0) * 1000 + 0.5) / 1000 end
      if j.alloc then
        local r = core.rv1_decode(core.json_encode(j.R, 0), "R")
        local est = j.estimated
        ran(acc, rel, j, j.alloc, j.free or h.created or j.alloc,
          r and r:count("core") or 0, est)
      else
        acc:submitted(rel(j.t_submit))
      end
    end
  end
  local sched = h.scheduler and h.scheduler.stats or {}
  return acc:result({queue = "instance (" .. tostring(sched.queue or "?") .. ")",
    policy = sched.policy, trace = h.path, trace_digest = M.digest(h),
    cluster_digest = M.cluster_digest(h)})
end

local function hash(d, s)
  for k = 1, #s do d = ((d * 31 + s:byte(k)) ~ (d >> 29)) & 0xFFFFFFFFFFFF end
  return d
end

function M.digest(h)
  local d = 0
  for _, j in ipairs(h.jobs) do
    if j.reached then d = hash(d, tostring(j.id)) end
  end
  return fmt("%012x", d)
end

function M.cluster_digest(h)
  return fmt("%012x", hash(0, h.R))
end

-- ---- explanations ----------------------------------------------------------------

local function overlaps(a, b)
  if not a or not b or a == "" or b == "" then return false end
  return (core.idset(a) & core.idset(b)):count() > 0
end

-- Why job j started in one run only, at start_t in that run: the reason
-- why names (when not nil), else its cancellation (cancelled, formatted
-- with the seconds from start_t to it), else the end of the history.
local function one_run_only(j, why, start_t, cancelled, never)
  if why then return why end
  if j.cancel_t then return fmt(cancelled, j.cancel_t - start_t) end
  return never
end

-- Why each differing job differs, in words (res.jobs[i].why):
--   - a job the replay started and the instance did not, or the other way
--     round (denied, cancelled first, still waiting at the export);
--   - it follows an earlier difference: a job that started before it, on
--     nodes it uses (in the instance or in the replay), started at
--     another time or on other nodes;
--   - the instance started it on a message that reached the scheduler
--     later than the history's event says (message delay): the last event
--     of the history before its actual start, a free or an arrival,
--     lies between the two starts and at most DELAY seconds before the
--     actual one;
--   - otherwise the first difference of a chain with no cause found in
--     the history: the times and nodes are given.
function M.explain(res, h)
  local firsts = {}
  local list = res.jobs
  -- the instance's events by time: frees and arrivals, for delays
  local marks = {}
  for _, j in ipairs(h.jobs) do
    if j.free then marks[#marks + 1] = {t = j.free, what = fmt("job %d's free", j.id)} end
    for _, m in ipairs(j.sched or {}) do
      if m.op == "alloc" then
        marks[#marks + 1] = {t = m.t, what = fmt("job %d's arrival", j.id)}
      end
    end
  end
  table.sort(marks, function(a, b) return a.t < b.t end)
  local function last_before(t)
    return last_where(marks, function(m) return m.t < t end)
  end
  -- the differing jobs (and those that started alike on other nodes), in
  -- the order of their first start in either run: a cause comes first
  local order = {}
  for _, r in ipairs(list) do
    local j = r.job
    if not r.agree then
      order[#order + 1] = r
    elseif r.actual and r.predicted and j.pred_ranks and j.ranks ~= j.pred_ranks then
      r.other_nodes = true
      order[#order + 1] = r
    end
    r.first_t = math.min(r.actual or math.huge, r.predicted or math.huge)
  end
  table.sort(order, function(a, b)
    if a.first_t ~= b.first_t then return a.first_t < b.first_t end
    return a.id < b.id
  end)
  local differing = {}
  for _, r in ipairs(order) do
    local j = r.job
    if not r.agree then
      local why
      if r.actual and not r.predicted then
        why = one_run_only(j, r.denied and "the replay denied it: " .. tostring(r.denied),
          r.actual, "the replay had not started it when it was cancelled (%.3f s after its " ..
          "actual start)", "the replay had not started it by the end of the history")
      elseif r.predicted and not r.actual then
        local asked, delayed
        for _, m in ipairs(j.sched) do
          if m.op == "alloc" and (not j.cancel_t or m.t <= j.cancel_t) then asked = m.t end
        end
        if j.cancel_t and asked and j.cancel_t - asked <= M.DELAY then
          delayed = fmt("cancelled %.3f s after it asked the scheduler, %.3f s after the " ..
            "replay started it: the instance had not handled its alloc yet (message delay)",
            j.cancel_t - asked, j.cancel_t - r.predicted)
        end
        why = one_run_only(j, delayed, r.predicted, "the replay started it %.3f s before the " ..
          "instance saw it cancelled; the instance never started it",
          "the replay started it; the instance had not by the end of the history")
      end
      local t = r.first_t
      if not why then
        for k = #differing, 1, -1 do
          local d = differing[k]
          if d.first_t <= t and (overlaps(d.job.ranks, j.ranks) or overlaps(d.job.pred_ranks,
              j.pred_ranks) or overlaps(d.job.ranks, j.pred_ranks) or
              overlaps(d.job.pred_ranks, j.ranks)) then
            why = fmt("follows job %d (%s), which ran before it on nodes it uses", d.id,
              d.agree and "same start, other nodes" or d.predicted and d.actual and
              fmt("%+.3f s", d.diff) or "started in one run only")
            break
          end
        end
      end
      if not why and r.predicted < r.actual then
        local m = last_before(r.actual)
        if m and m.t > r.predicted and r.actual - m.t <= M.DELAY then
          why = fmt("the instance started it %.3f s after %s (at +%.3f s); the replay at " ..
            "+%.3f s: the message that let the instance start it came later than the " ..
            "replay's (message delay)", r.actual - m.t, m.what, m.t - res.t0,
            r.predicted - res.t0)
        end
      end
      local st = h.scheduler and h.scheduler.stats or {}
      if not why and st.queue and (st.queue ~= res.queue or st.policy ~= res.policy) then
        why = fmt("the replay's policies (queue %s, placement %s) decide otherwise than the " ..
          "instance's (%s, %s): it started it at %s on %s, the replay at %s on %s",
          tostring(res.queue), tostring(res.policy), tostring(st.queue), tostring(st.policy),
          r.actual and fmt("+%.3f s", r.actual - res.t0) or "-", tostring(j.ranks),
          r.predicted and fmt("+%.3f s", r.predicted - res.t0) or "-", tostring(j.pred_ranks))
        firsts[#firsts + 1] = r
      end
      if not why then
        why = fmt("first of its chain: the instance started it at %s on %s, the replay " ..
          "at %s on %s", r.actual and fmt("+%.3f s", r.actual - res.t0) or "-",
          tostring(j.ranks), r.predicted and fmt("+%.3f s", r.predicted - res.t0) or "-",
          tostring(j.pred_ranks))
        firsts[#firsts + 1] = r
      end
      r.why = why
    end
    differing[#differing + 1] = r
  end
  res.firsts = firsts
end

return M
