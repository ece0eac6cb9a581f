-- flux_helper.lua: what the specs of grove.flux (flux_protocol_spec.lua,
-- flux_dropin_spec.lua, flux_ops_spec.lua, flux_limits_spec.lua,
-- flux_policies_spec.lua) share: R and jobspec texts as the broker sends
-- them, a scheduler session at a clock the spec moves, the actions sorted
-- by job, and the log lines.  It holds no test of its own.
local core = require("grove.core")
local flux = require("grove.flux")

local M = {}

-- Two ranks of four cores, or what r says.
function M.R_text(ranks, hosts, extra)
  return ('{"version":1,"execution":{"R_lite":[{"rank":"%s","children":{"core":"0-3"}}],'
    .. '"starttime":0,"expiration":%s,"nodelist":["%s"]}}'):format(ranks, extra or 0, hosts)
end

-- A jobspec of n slots of c cores for d seconds, as JSON text.
function M.jobspec(n, c, d)
  return ('{"version":1,"resources":[{"type":"slot","count":%d,"label":"task","with":'
    .. '[{"type":"core","count":%d}]}],"tasks":[{"command":["true"],"slot":"task",'
    .. '"count":{"per_slot":1}}],"attributes":{"system":{"duration":%d}}}'):format(n, c, d)
end

function M.alloc(id, js, prio, submit)
  return ('{"id":%d,"priority":%d,"userid":100,"t_submit":%s,"jobspec":%s}'):format(id,
    prio or 16, submit or id, js)
end

-- A scheduler at clock *now (a table, so a spec moves it), acquired.
function M.session(opts, R, up)
  local clock = {t = 1000}
  opts = opts or {}
  opts.clock = function() return clock.t end
  local s = assert(flux.new(opts))
  local acts = s:handle("resource.acquire",
    ('{"resources":%s,"up":"%s"}'):format(R or M.R_text("0-1", "n[0-1]"), up or "0-1"))
  return s, clock, acts
end

-- The actions of one op (and type), by job id.
function M.by_id(actions, op, typ)
  local out = {}
  for _, a in ipairs(actions) do
    if a.op == op and (not typ or a.type == typ) then out[a.id] = a end
  end
  return out
end

-- The messages of the log actions (of level, when given), in order.
function M.logs(actions, level)
  local out = {}
  for _, a in ipairs(actions) do
    if a.op == "log" and (not level or a.level == level) then out[#out + 1] = a.message end
  end
  return out
end

function M.ranks_of(action)
  return core.rv1_decode(action.R):ranks():encode()
end

return M
