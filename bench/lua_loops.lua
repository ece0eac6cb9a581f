-- lua_loops.lua: what the locality twin's two passes over its candidates
-- (policies/locality.lua: is keys.vid ascending? then the tightest window
-- of k ids) cost in plain Lua 5.4, over 4,016 integers, without a hook
-- and then under a count hook every 1,000 instructions (as the policy
-- sandbox's budget sets one): the floor under a Lua choose at 4,096 nodes,
-- set beside C locality's whole match.  It prints microseconds a pass.
--
--   lua5.4 bench/lua_loops.lua [N]
local n = tonumber(arg and arg[1]) or 4016
local vid, id = {}, {}
for i = 1, n do
  vid[i] = i * 3
  id[i] = i + 100
end

local function scan()
  local last = vid[1]
  for i = 2, n do
    local x = vid[i]
    if x < last then
      error("not ascending")
    end
    last = x
  end
end

local function window(k)
  local best, spread, span = 1, math.huge, k - 1
  for s = 1, k > 1 and n - span or 0 do
    local d = id[s + span] - id[s]
    if d < spread then
      best, spread = s, d
    end
  end
  return best
end

local function time(f, ...)
  local reps, best = 200, math.huge
  for _ = 1, 5 do
    local t = os.clock()
    for _ = 1, reps do
      f(...)
    end
    best = math.min(best, (os.clock() - t) / reps)
  end
  return best * 1e6
end

print(("%d candidates, no hook:       scan %6.1f us  window %6.1f us"):format(n, time(scan),
  time(window, 4)))
debug.sethook(function() end, "", 1000)
print(("%d candidates, a count hook:  scan %6.1f us  window %6.1f us"):format(n, time(scan),
  time(window, 4)))
debug.sethook()
