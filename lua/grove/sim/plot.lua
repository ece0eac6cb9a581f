-- grove.sim.plot: the simulator's charts as SVG files, written by hand so
-- they need nothing but a browser (or any SVG renderer) to view.
--
--   plot.series(path, summary)          utilization (busy, down, idle) and
--                                       queue length over time
--   plot.gantt(path, records, names [, {nodes =, from =, to =}])
--                                       jobs on the first nodes, in a window
--   plot.compare(path, runs, names)     any number of summaries: metrics
--                                       side by side and utilization over time
--   plot.wait_cdf(path, runs, names)    the distribution of the waits of any
--                                       number of summaries (wait_cdf)
-- Each returns true, or nil, message, code when the file cannot be written.
local check = require("grove.check")

local M = {}

local fmt, concat = string.format, table.concat

local W, H = 900, 320
local PAD_L, PAD_R, PAD_T, PAD_B = 70, 20, 36, 44
local COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
  "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"}

-- The Gantt chart's job colours: none near red (a hue within 45 degrees
-- of it), which its legend gives to jobs killed at their time limit, and
-- none pale enough to pass for a job killed by a node going down.
M.GANTT_COLORS = {"#1f77b4", "#2ca02c", "#9467bd", "#17becf", "#bcbd22", "#393b79",
  "#637939", "#7f7f7f", "#5254a3", "#8ca252", "#6b6ecf", "#3182bd"}

-- The edge of a job killed at its time limit.
M.TIMEOUT_EDGE = "#d00"

-- About how many windows a time series is averaged over on a chart.
M.WINDOWS = 80

-- The windows a chart may average over, in seconds: round durations.
local NICE = {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600,
  43200, 86400, 2 * 86400, 7 * 86400, 14 * 86400, 30 * 86400}

-- The window of a series of buckets of width seconds over span seconds:
-- the first round duration of at least span / WINDOWS and of the width.
function M.window_for(span, width)
  local want = math.max(width or 1, span / M.WINDOWS)
  for _, w in ipairs(NICE) do
    if w >= want then return w end
  end
  local month = 30 * 86400
  return math.ceil(want / month) * month
end

-- A window's name: "90-second", "30-minute", "6-hour", "1-day", "7-day".
function M.window_name(w)
  if w % 86400 == 0 then return fmt("%d-day", w // 86400) end
  if w % 3600 == 0 then return fmt("%d-hour", w // 3600) end
  if w % 60 == 0 then return fmt("%d-minute", w // 60) end
  return fmt("%d-second", math.floor(w))
end

-- The series key of a summary's series averaged over windows of w
-- seconds from its origin (each bucket's value spread over its span, a
-- window's the time-weighted mean of what falls in it): the windows'
-- middles and means, and the series' end.  values, when given, replaces
-- series[key] (a list over the same buckets).
function M.windowed(series, key, w, values)
  local t, v = series.t or {}, values or series[key] or {}
  local width, origin = series.width or 1, series.origin or 0
  local n = #t
  local stop = n > 0 and t[n] + width or origin
  local sum, span = {}, {}
  for i = 1, n do
    local a, b = t[i], t[i] + width
    while a < b do
      local k = (a - origin) // w
      local e = math.min(b, origin + (k + 1) * w)
      sum[k] = (sum[k] or 0) + (v[i] or 0) * (e - a)
      span[k] = (span[k] or 0) + (e - a)
      a = e
    end
  end
  local xs, ys = {}, {}
  local last = n > 0 and (stop - 1 - origin) // w or -1
  for k = 0, last do
    if span[k] and span[k] > 0 then
      local a = origin + k * w
      local b = math.min(a + w, stop)
      xs[#xs + 1], ys[#ys + 1] = (a + b) / 2, sum[k] / span[k]
    end
  end
  return xs, ys, stop
end

-- The hue of a colour "#rrggbb" in degrees (nil for a grey).
function M.hue(color)
  local r, g, b = color:match("^#(%x%x)(%x%x)(%x%x)$")
  r, g, b = tonumber(r, 16) / 255, tonumber(g, 16) / 255, tonumber(b, 16) / 255
  local mx, mn = math.max(r, g, b), math.min(r, g, b)
  local d = mx - mn
  if d < 0.08 then return nil end
  local h
  if mx == r then
    h = 60 * (((g - b) / d) % 6)
  elseif mx == g then
    h = 60 * ((b - r) / d + 2)
  else
    h = 60 * ((r - g) / d + 4)
  end
  return h
end

local function esc(s)
  return (tostring(s):gsub("[&<>\"]", {["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;",
    ['"'] = "&quot;"}))
end

local function write(path, parts)
  local f, err = io.open(path, "w")
  if not f then return nil, err, "EIO" end
  f:write(concat(parts))
  f:close()
  return true
end

local function header(w, h, title)
  return {fmt('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" ' ..
    'width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">\n',
    w, h, w, h),
    fmt('<rect x="0" y="0" width="%d" height="%d" fill="white"/>\n', w, h),
    fmt('<text x="%d" y="20" font-size="15" font-weight="bold">%s</text>\n', PAD_L, esc(title))}
end

-- A readable time for axis labels.
local function tlabel(t)
  if t >= 2 * 86400 then return fmt("%.1fd", t / 86400) end
  if t >= 2 * 3600 then return fmt("%.1fh", t / 3600) end
  if t >= 120 then return fmt("%.0fm", t / 60) end
  return fmt("%ds", math.floor(t))
end

-- The top of an axis of whole numbers (jobs) with 4 intervals: 4 times a
-- whole step of 1, 2 or 5 times a power of ten, so every label is whole
-- (a queue of at most one job: 0, 1, 2, 3, 4; not 0, 0, 0, 1, 1).
local function whole_max(v)
  local step = math.max(1, math.ceil(v / 4))
  local p = 10 ^ math.floor(math.log(step, 10))
  for _, m in ipairs{1, 2, 5, 10} do
    if m * p >= step then return 4 * math.floor(m * p + 0.5) end
  end
  return 40 * p
end
M.whole_max = whole_max

-- A plot area at (x0, y0) of size (w, h) into out: its frame, four
-- lines of grid with the y axis's labels (0 to ymax), and the axes' names.
local function frame(out, x0, y0, w, h, ymax, ylabel, yfmt, xlabel)
  out[#out + 1] = fmt('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#444"/>\n',
    x0, y0, w, h)
  for i = 0, 4 do
    local y = y0 + h - h * i / 4
    out[#out + 1] = fmt('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>\n', x0, y,
      x0 + w, y)
    out[#out + 1] = fmt('<text x="%d" y="%.1f" text-anchor="end">%s</text>\n', x0 - 6, y + 4,
      esc(fmt(yfmt or "%g", ymax * i / 4)))
  end
  out[#out + 1] = fmt('<text x="14" y="%d" transform="rotate(-90 14 %d)" ' ..
    'text-anchor="middle">%s</text>\n', y0 + h // 2, y0 + h // 2, esc(ylabel))
  out[#out + 1] = fmt('<text x="%d" y="%d" text-anchor="middle" fill="#444">%s</text>\n',
    x0 + w // 2, y0 + h + 32, esc(xlabel))
end

-- Axes and grid into out for a plot area of simulated time (tmin to tmax).
local function axes(out, x0, y0, w, h, tmin, tmax, ymax, ylabel, yfmt, xlabel)
  frame(out, x0, y0, w, h, ymax, ylabel, yfmt, xlabel or "simulated time")
  for i = 0, 5 do
    local x = x0 + w * i / 5
    out[#out + 1] = fmt('<text x="%.1f" y="%d" text-anchor="middle">%s</text>\n', x,
      y0 + h + 16, esc(tlabel(tmin + (tmax - tmin) * i / 5)))
  end
end

-- A legend: entries {color, label [, opacity [, edge color]]} in rows
-- from (x, y), wrapped at the right margin.  The y of the last row.
local function legend(out, x, y, entries)
  local x0 = x
  for _, e in ipairs(entries) do
    local w = 30 + 7 * #e[2]
    if x > x0 and x + w > W - PAD_R then x, y = x0, y + 16 end
    out[#out + 1] = fmt('<rect x="%d" y="%d" width="12" height="12" fill="%s"%s ' ..
      'stroke="%s" stroke-width="%s"/><text x="%d" y="%d">%s</text>\n', x, y - 10, e[1],
      e[3] and fmt(' fill-opacity="%s"', e[3]) or "", e[4] or "#444", e[4] and "1.5" or "0.5",
      x + 16, y, esc(e[2]))
    x = x + w
  end
  return y
end

-- A filled band between two step series (lower and upper, plot
-- coordinates): a polygon.
local function band(out, xs, lower, upper, color, opacity)
  if #xs == 0 then return end
  local pts = {}
  for i = 1, #xs do pts[#pts + 1] = fmt("%.1f,%.1f", xs[i], upper[i]) end
  for i = #xs, 1, -1 do pts[#pts + 1] = fmt("%.1f,%.1f", xs[i], lower[i]) end
  out[#out + 1] = fmt('<polygon fill="%s" fill-opacity="%s" stroke="none" points="%s"/>\n',
    color, opacity or 1, concat(pts, " "))
end

local function polyline(out, xs, ys, color)
  local pts = {}
  for i = 1, #xs do pts[i] = fmt("%.1f,%.1f", xs[i], ys[i]) end
  if #pts == 1 then pts[2] = fmt("%.1f,%.1f", xs[1] + 1, ys[1]) end
  if #pts == 0 then return end
  out[#out + 1] = fmt('<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>\n',
    color, concat(pts, " "))
end

local function max_of(list)
  local m = 0
  for _, x in ipairs(list or {}) do if x > m then m = x end end
  return m
end

-- Points (time, value) into plot coordinates: x over [tmin, tmax), y
-- over [0, ymax].
local function points(ts, vs, x0, w, y0, h, tmin, tmax, ymax)
  local xs, ys = {}, {}
  for i = 1, #ts do
    xs[i] = x0 + w * (ts[i] - tmin) / (tmax - tmin)
    ys[i] = y0 + h - h * math.min(vs[i] / ymax, 1)
  end
  return xs, ys
end

-- Utilization and queue length over time, one panel each: the units
-- busy, down (or drained) and idle, stacked, then the jobs waiting, each
-- the mean over windows of a round duration (about WINDOWS of them over
-- the run: window_for), named on the chart, drawn through the windows'
-- middles.  A run of months reads as its trend, not as thousands of
-- steps.
function M.series(path, summary)
  local s = summary.series or {t = {}, utilization = {}, queue = {}, width = 1, origin = 0}
  local h2 = H
  local tmin = s.origin or 0
  local n = #(s.t or {})
  local tmax = n > 0 and (s.t[n] + s.width) or tmin + 1
  local win = M.window_for(tmax - tmin, s.width)
  local wname = M.window_name(win)
  local out = header(W, 2 * h2 + 16, fmt("Grove sim: %s queue, %s placement, %d jobs",
    summary.queue or "?", summary.policy or "?", summary.jobs or 0))
  local pw, ph = W - PAD_L - PAD_R, h2 - PAD_T - PAD_B
  axes(out, PAD_L, PAD_T, pw, ph, tmin, tmax, 1, "fraction of units", "%.2f",
    fmt("simulated time (means over %s windows)", wname))
  -- busy from the bottom, down stacked on it, idle the rest
  local ts, busy = M.windowed(s, "utilization", win)
  local upper = {}
  for i = 1, n do
    upper[i] = math.min(1, (s.utilization[i] or 0) + (s.down and s.down[i] or 0))
  end
  local _, top = M.windowed(s, nil, win, upper)
  local xs, by = points(ts, busy, PAD_L, pw, PAD_T, ph, tmin, tmax, 1)
  local _, ty = points(ts, top, PAD_L, pw, PAD_T, ph, tmin, tmax, 1)
  local base = {}
  for i = 1, #xs do base[i] = PAD_T + ph end
  band(out, xs, base, by, COLORS[1], 0.55)
  band(out, xs, by, ty, "#7f7f7f", 0.6)
  polyline(out, xs, by, COLORS[1])
  legend(out, PAD_L + pw - 300, PAD_T - 8, {{COLORS[1], "busy", 0.55}, {"#7f7f7f", "down",
    0.6}, {"#ffffff", "idle"}})
  local qts, qv = M.windowed(s, "queue", win)
  local qmax = whole_max(max_of(qv))
  local y1 = h2 + PAD_T
  axes(out, PAD_L, y1, pw, ph, tmin, tmax, qmax, "jobs waiting (mean)", "%.0f",
    fmt("simulated time (means over %s windows)", wname))
  local qx, qy = points(qts, qv, PAD_L, pw, y1, ph, tmin, tmax, qmax)
  polyline(out, qx, qy, COLORS[2])
  out[#out + 1] = fmt('<text x="%d" y="%d">mean utilization %.3f, down %.3f, mean wait %.0f s, ' ..
    'makespan %s, killed at walltime %d</text>\n', PAD_L, 2 * h2 + 10, summary.utilization or 0,
    summary.down or 0, summary.wait_mean or 0, tlabel(summary.makespan or 0),
    summary.killed_walltime or 0)
  out[#out + 1] = "</svg>\n"
  return write(path, out)
end

-- Jobs as bars on the first nodes: records {node =, id =, start =,
-- ["end"] =, killed =, timeout =}; names the node names by index;
-- opts.nodes the rows at most, opts.from and opts.to the time window shown
-- (default: all), opts.cut the time from which placements were not kept
-- (said in the title).  Bars take a colour by job id from GANTT_COLORS
-- (no red: red is the edge of a job killed at its time limit); a legend
-- tells jobs that ended, were killed at their time limit (red edge) and
-- killed by a node going down (pale).  Any other key of opts raises.
local GANTT_OPTIONS = {nodes = 1, from = 1, to = 1, cut = 1}

function M.gantt(path, records, names, opts)
  check.keys(opts, GANTT_OPTIONS, 4, "gantt")
  opts = opts or {}
  local GC = M.GANTT_COLORS
  local nnodes = 0
  local tmin, tmax = math.huge, -math.huge
  for _, r in ipairs(records) do
    local e = r["end"] or r.start
    if (not opts.to or r.start < opts.to) and (not opts.from or e > opts.from) then
      if r.node > nnodes then nnodes = r.node end
      if r.start < tmin then tmin = r.start end
      if e > tmax then tmax = e end
    end
  end
  nnodes = math.min(math.max(nnodes, 1), opts.nodes or nnodes)
  if tmin == math.huge then tmin, tmax = opts.from or 0, opts.to or 1 end
  if opts.from then tmin = opts.from end
  if opts.to then tmax = opts.to end
  if tmax <= tmin then tmax = tmin + 1 end
  local row = math.max(6, math.min(18, 600 // nnodes))
  local ph = row * nnodes
  local h = PAD_T + ph + PAD_B + 24
  local pw = W - PAD_L - PAD_R
  local title = fmt("Grove sim: jobs on nodes (first %d)", nnodes)
  if opts.from or opts.to then
    title = title .. fmt(", %s to %s", tlabel(tmin), tlabel(tmax))
  end
  if opts.cut then title = title .. ", jobs started before " .. tlabel(opts.cut) end
  local out = header(W, h, title)
  out[#out + 1] = fmt('<rect x="%d" y="%d" width="%d" height="%d" fill="#f6f6f6" ' ..
    'stroke="#444"/>\n', PAD_L, PAD_T, pw, ph)
  for i = 1, nnodes do
    if row >= 10 or i % math.ceil(10 / row) == 1 then
      out[#out + 1] = fmt('<text x="%d" y="%.1f" text-anchor="end" font-size="%d">%s</text>\n',
        PAD_L - 4, PAD_T + (i - 0.5) * row + 4, math.min(11, row), esc(names[i] or i))
    end
  end
  for _, r in ipairs(records) do
    local e = r["end"] or tmax
    if r.node <= nnodes and r.start < tmax and e > tmin then
      local a, b = math.max(r.start, tmin), math.min(e, tmax)
      local x = PAD_L + pw * (a - tmin) / (tmax - tmin)
      local w = math.max(0.5, pw * (b - a) / (tmax - tmin))
      local y = PAD_T + (r.node - 1) * row
      out[#out + 1] = fmt('<rect x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="%s" ' ..
        'stroke="%s" stroke-width="%s"%s><title>job %d: %d-%d%s</title></rect>\n', x, y + 0.5,
        w, row - 1, GC[r.id % #GC + 1], r.timeout and M.TIMEOUT_EDGE or "white",
        r.timeout and "1.2" or "0.3", r.killed and ' fill-opacity="0.4"' or "", r.id, r.start, e,
        r.timeout and " (killed at its time limit)" or r.killed and " (killed: node down)" or "")
    end
  end
  for i = 0, 5 do
    out[#out + 1] = fmt('<text x="%.1f" y="%d" text-anchor="middle">%s</text>\n',
      PAD_L + pw * i / 5, PAD_T + ph + 16, esc(tlabel(tmin + (tmax - tmin) * i / 5)))
  end
  out[#out + 1] = fmt('<text x="%d" y="%d" text-anchor="middle" fill="#444">simulated time' ..
    '</text>\n', PAD_L + pw // 2, PAD_T + ph + 32)
  out[#out + 1] = fmt('<text x="14" y="%d" transform="rotate(-90 14 %d)" ' ..
    'text-anchor="middle">node</text>\n', PAD_T + ph // 2, PAD_T + ph // 2)
  legend(out, PAD_L, h - 8, {{GC[1], "a job (colour by id, never red)"},
    {GC[1], "killed: node down", 0.4}, {GC[1], "killed at its time limit", nil, M.TIMEOUT_EDGE}})
  out[#out + 1] = "</svg>\n"
  return write(path, out)
end

-- The metrics compared, in the order they are shown: {key, label (at
-- most 26 characters: grove sim --compare's column)}.  A row no run has
-- is left out of the table.
M.compared = {
  {"wait_mean", "mean wait (s)"}, {"wait_median", "median wait (s)"},
  {"wait_p95", "p95 wait (s)"}, {"wait_p99", "p99 wait (s)"},
  {"wait_max", "max wait (s)"}, {"bounded_slowdown", "mean bounded slowdown"},
  {"bsld_p95", "p95 bounded slowdown"},
  {"utilization", "utilization"}, {"down", "down (share of units)"},
  {"makespan", "makespan (s)"}, {"jobs", "jobs"},
  {"killed_walltime", "killed at time limit"},
  {"nodes_mean", "nodes a job"}, {"racks_mean", "racks a job"},
  {"racks_multi", "share on >1 rack"}, {"domains_mean", "domains a job"},
  {"domains_multi", "share on >1 domain"}, {"stranded_mean", "stranded cores a job"},
  {"est_jobs", "jobs shown an estimate"},
  {"est_first_within", "first est. within band"},
  {"est_first_median", "first est. median err (s)"},
  {"est_first_p90", "first est. p90 err (s)"},
  {"est_last_within", "last est. within band"},
  {"est_last_median", "last est. median err (s)"},
  {"est_last_p90", "last est. p90 err (s)"},
  {"est_seen_within", "time shown within band"},
  {"est_first_kept", "started by first est."},
  {"jobs_per_second", "jobs per second simulated"},
}

-- Runs side by side: for each metric a bar per run (scaled to the
-- largest), then every run's utilization over time.  runs: summaries;
-- names: their labels.
function M.compare(path, runs, names)
  local rows = {}
  for _, m in ipairs(M.compared) do
    local any = false
    for _, r in ipairs(runs) do any = any or tonumber(r[m[1]]) ~= nil end
    if m[1] ~= "jobs_per_second" and any then rows[#rows + 1] = m end
  end
  local n = #runs
  local bar_h = n > 4 and 14 or 22
  local top = PAD_T + 10 + 20
  local h1 = top + #rows * (n * bar_h + 8)
  local total_h = h1 + H
  local out = header(W, total_h, fmt("Grove sim: %d runs compared", n))
  local lx, bw = 230, W - 230 - 120
  local entries = {}
  for k = 1, n do entries[k] = {COLORS[(k - 1) % #COLORS + 1], names[k]} end
  local ly = legend(out, PAD_L, PAD_T + 4, entries)
  top = ly + 16
  h1 = top + #rows * (n * bar_h + 8)
  total_h = h1 + H
  local hd = header(W, total_h, "")
  out[1], out[2] = hd[1], hd[2]
  for i, m in ipairs(rows) do
    local mx = 1e-9
    for _, r in ipairs(runs) do mx = math.max(mx, tonumber(r[m[1]]) or 0) end
    local y = top + (i - 1) * (n * bar_h + 8)
    out[#out + 1] = fmt('<text x="%d" y="%d" text-anchor="end">%s</text>\n', lx - 8,
      y + n * bar_h // 2 + 4, esc(m[2]))
    for k, r in ipairs(runs) do
      -- a run without the figure (no estimate shown, an older summary): "-", no bar
      local v = tonumber(r[m[1]])
      local yy = y + (k - 1) * bar_h
      local len = v and bw * v / mx or 0
      if v then
        out[#out + 1] = fmt('<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>\n', lx,
          yy, len, bar_h - 3, COLORS[(k - 1) % #COLORS + 1])
      end
      out[#out + 1] = fmt('<text x="%.1f" y="%d" font-size="11">%s</text>\n',
        lx + len + 4, yy + bar_h - 5,
        esc(v and fmt(math.type(v) == "integer" and "%d" or "%.3f", v) or "-"))
    end
  end
  local y0 = h1 + 10
  local pw, ph = W - PAD_L - PAD_R, H - PAD_T - PAD_B
  local tmin, tmax, width = math.huge, -math.huge, 1
  for _, r in ipairs(runs) do
    local s = r.series
    if s and #s.t > 0 then
      tmin = math.min(tmin, s.origin)
      tmax = math.max(tmax, s.t[#s.t] + s.width)
      width = math.max(width, s.width)
    end
  end
  if tmin == math.huge then tmin, tmax = 0, 1 end
  -- one window for every run, so the curves compare point by point
  local win = M.window_for(tmax - tmin, width)
  axes(out, PAD_L, y0, pw, ph, tmin, tmax, 1, "utilization", "%.2f",
    fmt("simulated time (utilization: means over %s windows)", M.window_name(win)))
  for k, r in ipairs(runs) do
    local s = r.series
    if s and #s.t > 0 then
      local ts, vs = M.windowed(s, "utilization", win)
      local xs, ys = points(ts, vs, PAD_L, pw, y0, ph, tmin, tmax, 1)
      polyline(out, xs, ys, COLORS[(k - 1) % #COLORS + 1])
    end
  end
  out[#out + 1] = "</svg>\n"
  return write(path, out)
end

-- The position of a wait on the distribution's axis: log10(1 + wait), so
-- waits of 0 (often most jobs) and of days share one axis.
local function wait_axis(w)
  return math.log(1 + w, 10)
end

-- The waits' distribution of each run: the fraction of its jobs that
-- waited w or less, over w on a logarithmic axis (0 at its left end), one
-- step line a run.  runs: summaries with wait_cdf ({wait =, fraction =},
-- grove.sim.metrics); a run without one (a summary of an older Grove) is
-- named in the legend as having none.
function M.wait_cdf(path, runs, names)
  local top = 1
  for _, r in ipairs(runs) do
    local c = r.wait_cdf
    if c and #c.wait > 0 then top = math.max(top, c.wait[#c.wait]) end
  end
  -- the axis ends at the power of ten at or above the largest wait
  local decades = math.max(1, math.ceil(wait_axis(top) - 1e-9))
  local out = header(W, H + 40, fmt("Grove sim: wait-time distribution, %d run%s", #runs,
    #runs == 1 and "" or "s"))
  local pw, ph = W - PAD_L - PAD_R, H - PAD_T - PAD_B
  local y0 = PAD_T + 24
  frame(out, PAD_L, y0, pw, ph, 1, "fraction of jobs", "%.2f", "wait (logarithmic)")
  local function x_of(w) return PAD_L + pw * math.min(wait_axis(w) / decades, 1) end
  for d = 0, decades do
    local w = d == 0 and 0 or 10 ^ d - 1
    local x = x_of(w)
    out[#out + 1] = fmt('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>\n', x, y0,
      x, y0 + ph)
    out[#out + 1] = fmt('<text x="%.1f" y="%d" text-anchor="middle">%s</text>\n', x,
      y0 + ph + 16, d == 0 and "0" or d <= 4 and fmt("%d s", 10 ^ d) or fmt("1e%d s", d))
  end
  local entries = {}
  for k, r in ipairs(runs) do
    local color = COLORS[(k - 1) % #COLORS + 1]
    local c = r.wait_cdf
    if c and #c.wait > 0 then
      entries[#entries + 1] = {color, names[k]}
      -- a step line: flat at each fraction until the next wait
      local xs, ys = {x_of(0)}, {y0 + ph}
      for i = 1, #c.wait do
        local x, y = x_of(c.wait[i]), y0 + ph - ph * c.fraction[i]
        xs[#xs + 1], ys[#ys + 1] = x, ys[#ys]
        xs[#xs + 1], ys[#ys + 1] = x, y
      end
      xs[#xs + 1], ys[#ys + 1] = PAD_L + pw, ys[#ys]
      polyline(out, xs, ys, color)
    else
      entries[#entries + 1] = {color, names[k] .. " (no distribution in its summary)", 0.2}
    end
  end
  legend(out, PAD_L, PAD_T + 12, entries)
  out[#out + 1] = "</svg>\n"
  return write(path, out)
end

return M
