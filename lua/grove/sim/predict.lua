-- grove.sim.predict: run times predicted from a user's recent jobs, for
-- the loop to plan with in place of the requested time.
--
--   local p = predict.new("last2")   -- or "ratio"; nil and why for others
--   p:predict(user, request)        -- seconds to plan with, in [1, request]
--   p:ended(user, run, request)     -- a job of user ended after run seconds
--
-- "last2" is the mean of the user's last two run times (Tsafrir, Etsion
-- and Feitelson, "Backfilling using system-generated predictions rather
-- than user runtime estimates", 2007), "ratio" the request times the
-- user's last run time over its request (users who ask alike for every
-- job).  A user with no ended job yet, or no user, is planned on the
-- request.  A prediction never exceeds the request: the job is killed at
-- its request either way.
--
-- What happens when a job outlives its prediction is the loop's driver's
-- (grove.sim: the job's end is moved to its request, Tsafrir's
-- correction).  Nothing here knows of the loop.
local M = {}

M.METHODS = {last2 = true, ratio = true}

local Predict = {}
Predict.__index = Predict

function M.new(method)
  if not M.METHODS[method] then
    return nil, ("unknown prediction '%s' (last2 or ratio)"):format(tostring(method))
  end
  return setmetatable({method = method, last = {}, prev = {}}, Predict)
end

local function clamp(x, request)
  x = math.ceil(x)
  if x < 1 then x = 1 end
  if x > request then x = request end
  return x
end

function Predict:predict(user, request)
  local last = user ~= nil and self.last[user]
  if not last then return request end
  if self.method == "ratio" then
    return clamp(request * last.run / last.request, request)
  end
  local prev = self.prev[user]
  return clamp(prev and (last.run + prev.run) / 2 or last.run, request)
end

function Predict:ended(user, run, request)
  if user == nil or not request or request <= 0 then return end
  self.prev[user] = self.last[user]
  self.last[user] = {run = run, request = request}
end

return M
