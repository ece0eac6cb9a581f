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
local M = {}

local fmt, concat = string.format, table.concat

local W, H = 900, 320
local PAD_L, PAD_R, PAD_T, PAD_B = 70, 20, 36, 44
local COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
  "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"}

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

-- Steps of one series into plot coordinates.
local function steps(series, key, x0, w, y0, h, ymax)
  local t, v = series.t, series[key]
  local n = #t
  local tmin = series.origin or 0
  local tmax = n > 0 and (t[n] + series.width) or tmin + 1
  local xs, ys = {}, {}
  for i = 1, n do
    local xa = x0 + w * (t[i] - tmin) / (tmax - tmin)
    local xb = x0 + w * (t[i] + series.width - tmin) / (tmax - tmin)
    local y = y0 + h - h * math.min(v[i] / ymax, 1)
    xs[#xs + 1], ys[#ys + 1] = xa, y
    xs[#xs + 1], ys[#ys + 1] = xb, y
  end
  return xs, ys, tmin, tmax
end

local function max_of(list)
  local m = 0
  for _, x in ipairs(list or {}) do if x > m then m = x end end
  return m
end

-- Utilization and queue length over time, one panel each: the units
-- busy, down (or drained) and idle, stacked, then the jobs waiting.
function M.series(path, summary)
  local s = summary.series or {t = {}, utilization = {}, queue = {}, width = 1, origin = 0}
  local h2 = H
  local out = header(W, 2 * h2 + 16, fmt("Grove sim: %s queue, %s placement, %d jobs",
    summary.queue or "?", summary.policy or "?", summary.jobs or 0))
  local pw, ph = W - PAD_L - PAD_R, h2 - PAD_T - PAD_B
  local xs, busy, tmin, tmax = steps(s, "utilization", PAD_L, pw, PAD_T, ph, 1)
  axes(out, PAD_L, PAD_T, pw, ph, tmin, tmax, 1, "fraction of units", "%.2f")
  -- stacked: busy from the bottom, down above it, idle the rest
  local base, top = {}, {}
  for i = 1, #xs do base[i], top[i] = PAD_T + ph, PAD_T end
  -- the top of the down band: busy + down (a run without the down series: none)
  local upper = {t = s.t, width = s.width, origin = s.origin, v = {}}
  for i = 1, #s.t do
    upper.v[i] = math.min(1, s.utilization[i] + (s.down and s.down[i] or 0))
  end
  local _, down = steps(upper, "v", PAD_L, pw, PAD_T, ph, 1)
  band(out, xs, down, top, "#ffffff", 1)
  band(out, xs, base, busy, COLORS[1], 0.55)
  band(out, xs, busy, down, "#7f7f7f", 0.6)
  polyline(out, xs, busy, COLORS[1])
  legend(out, PAD_L + pw - 300, PAD_T - 8, {{COLORS[1], "busy", 0.55}, {"#7f7f7f", "down",
    0.6}, {"#ffffff", "idle"}})
  local qmax = whole_max(max_of(s.queue))
  local y1 = h2 + PAD_T
  local qx, qy = steps(s, "queue", PAD_L, pw, y1, ph, qmax)
  axes(out, PAD_L, y1, pw, ph, tmin, tmax, qmax, "jobs waiting", "%.0f")
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
-- (said in the title).  Bars take a colour by job id; a legend tells
-- jobs that ended, were killed at their time limit (red edge) and killed
-- by a node going down (pale).
function M.gantt(path, records, names, opts)
  opts = opts or {}
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
        w, row - 1, COLORS[r.id % #COLORS + 1], r.timeout and "#d00" or "white",
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
  legend(out, PAD_L, h - 8, {{COLORS[1], "a job (colour by id)"},
    {COLORS[1], "killed: node down", 0.4}, {COLORS[1], "killed at its time limit", nil, "#d00"}})
  out[#out + 1] = "</svg>\n"
  return write(path, out)
end

-- The metrics compared, in the order they are shown.
M.compared = {
  {"wait_mean", "mean wait (s)"}, {"wait_median", "median wait (s)"},
  {"wait_p95", "95th percentile wait (s)"}, {"wait_p99", "99th percentile wait (s)"},
  {"wait_max", "max wait (s)"}, {"bounded_slowdown", "mean bounded slowdown"},
  {"bsld_p95", "95th percentile bounded slowdown"},
  {"utilization", "utilization"}, {"down", "down (fraction of units)"},
  {"makespan", "makespan (s)"}, {"jobs", "jobs"},
  {"killed_walltime", "killed at their time limit"},
  {"jobs_per_second", "jobs per second simulated"},
}

-- Runs side by side: for each metric a bar per run (scaled to the
-- largest), then every run's utilization over time.  runs: summaries;
-- names: their labels.
function M.compare(path, runs, names)
  local rows = {}
  for _, m in ipairs(M.compared) do
    if m[1] ~= "jobs_per_second" then rows[#rows + 1] = m end
  end
  local n = #runs
  local bar_h = n > 4 and 14 or 22
  local top = PAD_T + 10 + 20
  local h1 = top + #rows * (n * bar_h + 8)
  local total_h = h1 + H
  local out = header(W, total_h, "Grove sim: " .. concat(names, " vs "))
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
      local v = tonumber(r[m[1]]) or 0
      local yy = y + (k - 1) * bar_h
      out[#out + 1] = fmt('<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>\n', lx, yy,
        bw * v / mx, bar_h - 3, COLORS[(k - 1) % #COLORS + 1])
      out[#out + 1] = fmt('<text x="%.1f" y="%d" font-size="11">%s</text>\n',
        lx + bw * v / mx + 4, yy + bar_h - 5,
        esc(fmt(math.type(v) == "integer" and "%d" or "%.3f", v)))
    end
  end
  local y0 = h1 + 10
  local pw, ph = W - PAD_L - PAD_R, H - PAD_T - PAD_B
  local tmin, tmax = math.huge, -math.huge
  for _, r in ipairs(runs) do
    local s = r.series
    if s and #s.t > 0 then
      tmin = math.min(tmin, s.origin)
      tmax = math.max(tmax, s.t[#s.t] + s.width)
    end
  end
  if tmin == math.huge then tmin, tmax = 0, 1 end
  axes(out, PAD_L, y0, pw, ph, tmin, tmax, 1, "utilization", "%.2f")
  for k, r in ipairs(runs) do
    local s = r.series
    if s and #s.t > 0 then
      local xs, ys = {}, {}
      for i = 1, #s.t do
        for _, t in ipairs{s.t[i], s.t[i] + s.width} do
          xs[#xs + 1] = PAD_L + pw * (t - tmin) / (tmax - tmin)
          ys[#ys + 1] = y0 + ph - ph * math.min(s.utilization[i], 1)
        end
      end
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
