-- lua_loops.lua: what the locality twin's choose (policies/locality.lua,
-- loaded from the file) costs in plain Lua 5.4 over N candidates (4,016
-- by default, as at 4,096 nodes), without a hook and then under a count
-- hook every 1,000 instructions (as the policy sandbox's budget sets one):
-- with k = 1 it makes one pass (is keys.vid ascending?), with k = 4 two
-- (then the tightest window of k ids).  The floor under a Lua choose, set
-- beside C locality's whole match.  It prints microseconds a call.
--
--   lua5.4 bench/lua_loops.lua [N]    (from the top of the tree)
local n = tonumber(arg and arg[1]) or 4016
local dir = (arg and arg[0] or ""):match("^(.*/)bench/") or ""
local choose = assert(dofile(dir .. "policies/locality.lua").choose)
local cands, keys = {}, {vid = {}, id = {}}
for i = 1, n do
  cands[i] = i
  keys.vid[i] = i * 3
  keys.id[i] = i + 100
end

local function time(k)
  local reps, best = 200, math.huge
  for _ = 1, 5 do
    local t = os.clock()
    for _ = 1, reps do
      choose(cands, k, nil, keys)
    end
    best = math.min(best, (os.clock() - t) / reps)
  end
  return best * 1e6
end

local row = "%d candidates, %-13s one pass (k = 1) %6.1f us   two passes (k = 4) %6.1f us"
print(row:format(n, "no hook:", time(1), time(4)))
debug.sethook(function() end, "", 1000)
print(row:format(n, "a count hook:", time(1), time(4)))
debug.sethook()
