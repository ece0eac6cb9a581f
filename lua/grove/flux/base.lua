-- grove.flux.base: what the rooms of grove.flux share.  A handler of the
-- protocol object fills self.out with actions (emit) and hands them back
-- (flush); the clock moves on every message (tick); a request is read
-- and checked the same way by each handler (request_of); a job's
-- duration and the estimate the planner holds it for.
--
-- grove.flux's rooms: grove/flux.lua, the RFC 27/28 protocol (the object
-- and its handlers); flux/annotate.lua, estimates and annotations;
-- flux/config.lua, the options; flux/ops.lua, the operator's requests.
local core = require("grove.core")
local sched = require("grove.sched")

local M = {}

function M.decode(msg)
  if type(msg) == "string" then
    local t, err = core.json_decode(msg, "message")
    if t == nil then return nil, err end
    return t
  end
  return msg
end

-- syslog's numbers for the levels a log action names
local LEVEL = {emerg = 0, alert = 1, crit = 2, err = 3, error = 3, warning = 4, warn = 4,
  notice = 5, info = 6, debug = 7}

-- Add an action to those the handler returns; a log line above the
-- object's log level (log-level=) is left out.
function M.emit(self, action)
  if action.op == "log" and (LEVEL[action.level] or 6) > self.log_level then
    return
  end
  self.out[#self.out + 1] = action
end

-- Take the actions so far.
function M.flush(self)
  local out = self.out
  self.out = {}
  return out
end

function M.fail(self, topic, errnum, message)
  M.emit(self, {op = "error", topic = topic, errnum = errnum, message = message})
  return M.flush(self)
end

-- Move the clock to the caller's time (never back: the loop's ticks);
-- not inside a pass (a request answered aside reads the pass's clock).
-- Then what the object does first whenever the clock moves (on_tick:
-- grove.flux holds the jobs past their end), so that nothing looks at
-- the planner as it stood before.
function M.tick(self)
  if self.in_aside then return end
  local loop = self.loop
  local t = math.floor(self.clock() * loop.tps)
  if t > loop.now then
    sched.set_now(loop, t)
    if self.on_tick then self:on_tick() end
  end
end

function M.check_id(v)
  return math.type(v) == "integer" and v >= 0
end

-- The request text decoded, a table with an integer id (and ok(r) true
-- when given), and the clock moved on; else nil and the actions of an
-- EPROTO error on topic (the decoder's message, or what).
function M.request_of(self, text, topic, what, ok)
  local r, err = M.decode(text)
  if type(r) ~= "table" or not M.check_id(r.id) or (ok and not ok(r)) then
    return nil, M.fail(self, topic, "EPROTO", err or what)
  end
  M.tick(self)
  return r
end

-- The job's bank (flux-accounting's attributes.system.bank), from its
-- jobspec (a table), or nil.
function M.bank_of(js)
  local a = type(js) == "table" and js.attributes
  local b = type(a) == "table" and type(a.system) == "table" and a.system.bank
  if type(b) == "string" and b ~= "" then return b end
  return nil
end

-- The job's duration in seconds, from its jobspec (0: none given).
function M.duration_of(js)
  local a = type(js) == "table" and js.attributes
  local d = a and a.system and a.system.duration
  if type(d) ~= "number" or d ~= d or d <= 0 then return 0 end
  return d
end

-- The estimate the planner holds a job for, in the loop's ticks: its
-- duration d (seconds, rounded up to a tick), or until the resource set
-- expires (the graph's expiration, the matcher's horizon), or the
-- default.
function M.estimate_of(self, d)
  if d > 0 then return sched.ticks(self.loop, d) end
  local now, horizon = self.loop.now, self.loop.g:expiration()
  if horizon > now then return horizon - now end
  return self.default_duration
end

-- ---- job ids in Flux's F58 form ------------------------------------------------

local B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

-- The prefix flux-core writes: "ƒ" when the locale (LC_ALL, else
-- LC_CTYPE, else LANG, as setlocale reads them) is UTF-8 and
-- FLUX_F58_FORCE_ASCII is not set, else "f".
local function f58_prefix()
  local loc = os.getenv("LC_ALL")
  if not loc or loc == "" then loc = os.getenv("LC_CTYPE") end
  if not loc or loc == "" then loc = os.getenv("LANG") end
  local utf8 = loc and (loc:upper():find("UTF%-?8") ~= nil)
  if utf8 and not os.getenv("FLUX_F58_FORCE_ASCII") then return "\u{192}" end
  return "f"
end

-- A job id (a 64-bit integer, read as unsigned) as F58 text: its
-- base-58 digits, most significant first, after the prefix ("f1" for 0).
function M.f58(id)
  local digits = {}
  local n = id
  repeat
    -- n // 58 as unsigned: a logical shift, then 29 (58 = 2 x 29)
    local q = (n >> 1) // 29
    local d = n - q * 58
    digits[#digits + 1] = B58:sub(d + 1, d + 1)
    n = q
  until n == 0
  return f58_prefix() .. string.reverse(table.concat(digits))
end

-- R as written from the matcher (its window in the loop's ticks) with its
-- window in seconds, as R is read outside: R itself.  The start is the
-- allocation's to the millisecond, the expiration that and the job's
-- whole limit.
function M.seconds(self, R)
  local tps = self.loop.tps
  local st, ex = R:starttime() or 0, R:expiration() or 0
  return R:set_times(st / tps, ex / tps)
end

-- The R of the job of rec as JSON text, per the match format, and as an
-- R object.  A job with no end of its own (no duration, and a resource
-- set that does not expire) gets no expiration, as flux-core writes it:
-- the planner holds it for the default duration only to plan others.
-- The instance R's own scheduler data (its `scheduling` key when it is
-- not a JGF) is carried into every job's R as it is.
function M.R_of(self, rec)
  local graph = self.match_format == "rv1"
  local opts = {graph = graph}
  if rec.open and self.loop.g:expiration() == 0 then opts.expiration = 0 end
  local R = M.seconds(self, assert(self.loop.m:rv1(rec.id, opts)))
  local text = R:encode{graph = graph}
  if self.sched_data and not graph then
    text = text:sub(1, -2) .. ',"scheduling":' .. self.sched_data .. "}"
  end
  return text, R
end

return M
