-- grove.sim.groups: the per-user and per-size figures of simulations as
-- text tables (grove sim --by user|size).
--
--   groups.kinds("user,size")         {"user", "size"}, or nil, message
--   groups.run(fh, summary, kinds)    a run's table per kind: jobs, waits
--                                     (mean, median, 95th and 99th
--                                     percentile, max), mean bounded slowdown
--   groups.compare(fh, runs, names, kinds)  per kind, the mean and the max
--                                     wait of every group in every run
--
-- The figures come from a summary's by_user and by_size (grove.sim.metrics
-- gathers them); this module only lays them out.
local M = {}

local fmt, concat = string.format, table.concat

-- The kinds of groups: the summary's list and the name of its key column.
M.KINDS = {user = {"by_user", "user"}, size = {"by_size", "class"}}

-- The kinds a --by value names ("user", "size" or both, comma-separated),
-- or nil, message.
function M.kinds(spec)
  local out, seen = {}, {}
  for w in (tostring(spec) .. ","):gmatch("([^,]*),") do
    if not M.KINDS[w] then
      return nil, fmt("--by must be user, size or user,size, got '%s'", tostring(spec))
    end
    if not seen[w] then out[#out + 1], seen[w] = w, true end
  end
  return out
end

local function number(v)
  if v == nil then return "-" end
  return math.type(v) == "integer" and tostring(v) or fmt("%.1f", v)
end

-- Print rows (arrays of cells, the first the heading) with the first
-- column left-aligned and the others right-aligned to their widths.
local function print_rows(fh, rows)
  local width = {}
  for _, r in ipairs(rows) do
    for i, c in ipairs(r) do width[i] = math.max(width[i] or 0, #c) end
  end
  for _, r in ipairs(rows) do
    local cells = {}
    for i, c in ipairs(r) do
      cells[i] = fmt(i == 1 and "%-" .. width[i] .. "s" or "%" .. width[i] .. "s", c)
    end
    fh:write(concat(cells, "  "), "\n")
  end
end

local COLUMNS = {{"jobs", "jobs"}, {"wait_mean", "mean wait"}, {"wait_median", "median"},
  {"wait_p95", "p95"}, {"wait_p99", "p99"}, {"wait_max", "max wait"},
  {"bounded_slowdown", "mean bsld"}}

function M.run(fh, summary, kinds)
  for _, kind in ipairs(kinds) do
    local list, key = M.KINDS[kind][1], M.KINDS[kind][2]
    fh:write(fmt("\nby %s (waits in seconds):\n", kind))
    local rows = {{kind}}
    for _, c in ipairs(COLUMNS) do rows[1][#rows[1] + 1] = c[2] end
    for _, g in ipairs(summary[list] or {}) do
      local r = {tostring(g[key])}
      for _, c in ipairs(COLUMNS) do
        local v = g[c[1]]
        r[#r + 1] = c[1] == "bounded_slowdown" and v and fmt("%.3f", v) or number(v)
      end
      rows[#rows + 1] = r
    end
    print_rows(fh, rows)
  end
end

function M.compare(fh, runs, names, kinds)
  for _, kind in ipairs(kinds) do
    local list, key = M.KINDS[kind][1], M.KINDS[kind][2]
    -- every group of any run, in the order of the first run that has it
    local order, at = {}, {}
    for k, r in ipairs(runs) do
      for _, g in ipairs(r[list] or {}) do
        local id = tostring(g[key])
        if not at[id] then
          order[#order + 1] = id
          at[id] = {}
        end
        at[id][k] = g
      end
    end
    for _, m in ipairs{{"wait_mean", "mean wait (s)"}, {"wait_max", "max wait (s)"}} do
      fh:write(fmt("\n%s by %s:\n", m[2], kind))
      local rows = {{kind}}
      for _, n in ipairs(names) do rows[1][#rows[1] + 1] = n end
      for _, id in ipairs(order) do
        local r = {id}
        for k = 1, #runs do
          local g = at[id][k]
          r[#r + 1] = g and number(g[m[1]]) or "-"
        end
        rows[#rows + 1] = r
      end
      print_rows(fh, rows)
    end
  end
end

return M
