-- grove.flux.config: the options of the protocol object (grove.flux.new),
-- checked before anything is built.  The module hands them over from its
-- arguments and the instance's [sched-grove] table (bindings/flux/
-- config.c names each key); a misuse (an unknown option) raises, a bad
-- value is returned as nil, message, code.
local M = {}

local fmt = string.format

M.OPTIONS = {queue = 1, policy = 1, queue_depth = 1, reserve_depth = 1, match_format = 1,
  limited = 1, limits = 1, clock = 1, default_duration = 1, budget = 1, memory = 1, time = 1}

-- Check opts (a table, or nil for the defaults); level: the caller's
-- level for a raised error.  Returns opts (a new empty table for nil), or
-- nil, message, "EINVAL".
function M.check(opts, level)
  opts = opts or {}
  level = (level or 1) + 1
  if type(opts) ~= "table" then
    error(fmt("bad argument #1 to 'new' (table expected, got %s)", type(opts)), level)
  end
  for k in pairs(opts) do
    if not M.OPTIONS[k] then
      error(fmt("bad argument #1 to 'new' (unknown option '%s')", k), level)
    end
  end
  local mf = opts.match_format or "rv1_nosched"
  if mf ~= "rv1_nosched" and mf ~= "rv1" then
    return nil, fmt("match-format must be rv1_nosched or rv1, got '%s'", tostring(mf)), "EINVAL"
  end
  for _, k in ipairs{"queue_depth", "reserve_depth", "limited"} do
    local v = opts[k]
    if v ~= nil and (math.type(v) ~= "integer" or v < 1) then
      return nil, fmt("%s must be a positive integer, got %s", k:gsub("_", "-"), tostring(v)),
        "EINVAL"
    end
  end
  return opts
end

return M
