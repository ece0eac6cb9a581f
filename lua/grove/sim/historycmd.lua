-- grove sim --history FILE: replay a Flux instance's history (as `grove
-- flux-export` writes it) through sched-grove's scheduler and report, per
-- job, the predicted and the actual start (docs/sim.md, "Test a policy on
-- your own history before you deploy it").
--
-- This module holds the command line and the report; the reading is
-- grove.sim.history's, the replay grove.sim.replay's.
local core = require("grove.core")
local history = require("grove.sim.history")
local replay = require("grove.sim.replay")

local M = {}

local fmt = string.format

-- The options --history takes; any other is refused, not ignored.
M.OPTIONS = {history = 1, queue = 1, policy = 1, within = 1, out = 1, summary = 1,
  actual = 1, quiet = 1, progress = 1, ["all-jobs"] = 1}

local function csv(v)
  if v == nil then return "" end
  local s = tostring(v)
  if s:find('[,"\n]') then s = '"' .. s:gsub('"', '""') .. '"' end
  return s
end

local function write_json(path, r)
  local f, e = io.open(path, "w")
  if not f then return nil, e end
  f:write(core.json_encode(r, 1), "\n")
  f:close()
  return true
end

local function rel(t, t0)
  if not t then return "-" end
  return fmt("%+.3f", t - t0)
end

-- o: the parsed command line (grove.cmd.sim's parse), cmd: grove.cmd.sim.
function M.main(o, cmd)
  local unused = {}
  for k in pairs(o) do
    -- (outs: --out as grove sim reads it; its one file is o.out)
    if not M.OPTIONS[k] and k ~= "all_jobs" and k ~= "outs" then
      unused[#unused + 1] = "--" .. k
    end
  end
  if #unused > 0 then
    table.sort(unused)
    return cmd.usage_error(fmt("--history replays a Flux instance's history with its own " ..
      "R and configuration: %s cannot be given with it", table.concat(unused, ", ")))
  end
  local within = 1
  if o.within then
    within = tonumber(o.within)
    if not within or within < 0 then
      return cmd.usage_error("--within must be a number of seconds >= 0, got '" ..
        tostring(o.within) .. "'")
    end
  end
  local t_start = os.clock()
  local h, err = history.read(o.history)
  if not h then return cmd.fail(err) end
  local every = tonumber(o.progress) or 5
  local last = os.clock()
  local progress = not o.quiet and function(done, total, simulated)
    local now = os.clock()
    if now - last >= every then
      last = now
      io.stderr:write(fmt("grove sim: replaying: %d of %d jobs done, %.0f s of history, %.1f s\n",
        done, total, simulated, now - t_start))
    end
  end or nil
  local res, rerr = replay.run(h, {queue = o.queue, policy = o.policy, within = within,
    progress = progress})
  if not res then return cmd.fail(rerr) end
  local wall = os.clock() - t_start
  res.summary.wall, res.summary.procs_as = wall, "core"
  if o.out then
    local f, e = io.open(o.out, "w")
    if not f then return cmd.fail(e) end
    f:write("id,line,submit,actual,predicted,diff,agree,nodes,predicted_nodes,why\n")
    for _, r in ipairs(res.jobs) do
      local j = r.job
      f:write(table.concat({csv(r.id), csv(r.line), fmt("%.3f", j.t_submit - res.t0),
        r.actual and fmt("%.3f", r.actual - res.t0) or "",
        r.predicted and fmt("%.3f", r.predicted - res.t0) or "",
        r.diff and fmt("%.3f", r.diff) or "", r.agree and "yes" or "no", csv(j.ranks),
        csv(j.pred_ranks), csv(r.why)}, ","), "\n")
    end
    f:close()
  end
  if o.summary then
    local ok, e = write_json(o.summary, res.summary)
    if not ok then return cmd.fail(e) end
  end
  local actual = replay.actual_summary(h)
  if o.actual then
    local ok, e = write_json(o.actual, actual)
    if not ok then return cmd.fail(e) end
  end
  local out = io.stdout
  if not o.quiet then
    out:write(fmt("replay of %s: %d jobs, queue %s, policy %s (times from the first " ..
      "submit, +s)\n", h.path, res.compared, tostring(res.queue), tostring(res.policy)))
    if res.left_out > 0 then
      out:write(fmt("left out: %d jobs that never asked the scheduler (held or cancelled " ..
        "before they were scheduled): nothing to compare\n", res.left_out))
    end
    local nd = res.compared - res.agree
    if o["all-jobs"] or o.all_jobs then
      out:write("job                  line   actual  predicted     diff\n")
      for _, r in ipairs(res.jobs) do
        out:write(fmt("%-20d %5d %9s %10s %8s%s\n", r.id, r.line, rel(r.actual, res.t0),
          rel(r.predicted, res.t0), r.diff and fmt("%+.3f", r.diff) or "-",
          r.agree and "" or "  " .. tostring(r.why)))
      end
    elseif nd > 0 then
      out:write(fmt("differences (%d):\n", nd))
      for _, r in ipairs(res.jobs) do
        if not r.agree then
          out:write(fmt("  job %d (line %d): actual %s, predicted %s: %s\n", r.id, r.line,
            rel(r.actual, res.t0), rel(r.predicted, res.t0), tostring(r.why)))
        end
      end
    end
    local s = res.summary
    out:write(fmt("wait: mean %.3f s, median %.3f s, 95th percentile %.3f s, max %.3f s; " ..
      "utilization %.4f; replayed in %.2f s\n", s.wait_mean, s.wait_median, s.wait_p95,
      s.wait_max, s.utilization, wall))
    -- how far the estimates sched-grove showed were from the starts, in
    -- the instance (its alloc events) and in the replay
    if actual.est_jobs and actual.est_jobs > 0 then
      cmd.print_estimates(actual, out, " (instance)")
    end
    if s.est_jobs and s.est_jobs > 0 then cmd.print_estimates(s, out, " (replay)") end
  end
  out:write(fmt("replay: %d of %d jobs start as they did (within %s s)\n", res.agree,
    res.compared, tostring(within)))
  return 0
end

return M
