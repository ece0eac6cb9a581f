-- grove.sim.groups: the per-user and per-size figures of simulations as
-- text tables (grove sim --by user|size).
--
--   groups.kinds("user,size")         {"user", "size"}, or nil, message
--   groups.run(fh, summary, kinds)    a run's table per kind: jobs, waits
--                                     (mean, median, 95th and 99th
--                                     percentile, max), mean bounded
--                                     slowdown, and the placement (nodes,
--                                     racks, domains, stranded cores: means)
--   groups.compare(fh, runs, names, kinds)  per kind, the mean and the max
--                                     wait and the placement means of every
--                                     group in every run
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

-- Print a table: the heading {corner, heads...}, then a row a key of
-- keys, {label(key), cell(key, 1), ..., cell(key, #heads)}; the first
-- column left-aligned and the others right-aligned to their widths.
local function print_table(fh, corner, heads, keys, label, cell)
  local rows = {{corner, table.unpack(heads)}}
  for _, key in ipairs(keys) do
    local r = {label(key)}
    for j = 1, #heads do r[j + 1] = cell(key, j) end
    rows[#rows + 1] = r
  end
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
  {"bounded_slowdown", "mean bsld"}, {"nodes_mean", "nodes"}, {"racks_mean", "racks"},
  {"domains_mean", "domains"}, {"stranded_mean", "stranded"}}
-- the columns shown with two decimals
local DECIMALS = {bounded_slowdown = "%.3f", nodes_mean = "%.2f", racks_mean = "%.2f",
  domains_mean = "%.2f", stranded_mean = "%.2f"}
local HEADS = {}
for j, c in ipairs(COLUMNS) do HEADS[j] = c[2] end

function M.run(fh, summary, kinds)
  for _, kind in ipairs(kinds) do
    local list, key = M.KINDS[kind][1], M.KINDS[kind][2]
    fh:write(fmt("\nby %s (waits in seconds; nodes, racks, domains and stranded cores: " ..
      "means a job):\n", kind))
    print_table(fh, kind, HEADS, summary[list] or {}, function(g) return tostring(g[key]) end,
      function(g, j)
        local c, v = COLUMNS[j][1], g[COLUMNS[j][1]]
        return DECIMALS[c] and v and fmt(DECIMALS[c], v) or number(v)
      end)
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
    for _, m in ipairs{{"wait_mean", "mean wait (s)"}, {"wait_max", "max wait (s)"},
        {"nodes_mean", "nodes a job"}, {"domains_mean", "domains a job"},
        {"stranded_mean", "stranded cores a job"}} do
      fh:write(fmt("\n%s by %s:\n", m[2], kind))
      print_table(fh, kind, names, order, tostring, function(id, k)
        local g = at[id][k]
        local v = g and g[m[1]]
        if v == nil then return "-" end
        return DECIMALS[m[1]] and fmt(DECIMALS[m[1]], v) or number(v)
      end)
    end
  end
end

return M
