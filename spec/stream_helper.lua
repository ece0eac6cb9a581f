-- stream_helper.lua: what the specs that run one random stream of steps
-- on several matchers and compare what each step gave on each share
-- (aggregate_blocks_spec.lua, cancel_many_spec.lua, policy_keep_spec.lua,
-- slot_resume_spec.lua):
-- the runs, the loop of steps, and the steps they all take.  It holds no
-- test of its own and no stream: each spec draws its own steps.
local match = require("match_helper")

local M = {}

-- A run of a stream: graph g, matcher m, the ids of its live jobs (oldest
-- first) and what each step gave (log).
function M.run(g, m)
  return {g = g, m = m, live = {}, log = {}}
end

-- The shapes of list compiled (match.compiled), those that are not tables
-- (compiled already) as they are.
function M.compiled(list)
  local shapes = {}
  for i, t in ipairs(list) do
    shapes[i] = type(t) == "table" and match.compiled(t) or t
  end
  return shapes
end

-- steps steps of one stream on each run of runs: draw() gives a step's
-- draws, a table whose op (0 to 99) picks the step: the first of steps_of
-- (a list of {below, fn [, after]}) whose below exceeds op.  fn(r, d, k)
-- takes that step on run r (the k-th) and gives what goes in r.log ("-"
-- for nothing); after(d), when given, follows once every run took it.
function M.steps(runs, steps, draw, steps_of)
  for step = 1, steps do
    local d = draw()
    local i = 1
    while d.op >= steps_of[i][1] do i = i + 1 end
    local s = steps_of[i]
    for k, r in ipairs(runs) do
      r.log[step] = s[2](r, d, k) or "-"
    end
    if s[3] then s[3](d) end
  end
end

-- A step's draws from rnd (a match.lcg): op (0-99), a shape of nshapes,
-- a victim (0-999), a node of nodes, a status (0-2), drawn in that order.
function M.drawer(rnd, nshapes, nodes)
  return function()
    local d = {op = rnd(100)}
    d.shape, d.victim, d.node, d.st = rnd(nshapes) + 1, rnd(1000), rnd(nodes), rnd(3)
    return d
  end
end

-- The steps every such stream takes; each gives what goes in the log.

-- Match shape on r (allocate_orelse_reserve), its job's id kept live: what
-- placed (match.placed unless given) says of it.
function M.allocate(r, shape, placed)
  local j, msg = r.m:match(shape, "allocate_orelse_reserve")
  if j then r.live[#r.live + 1] = j.id end
  return (placed or match.placed)(j, msg)
end

-- Cancel the live job pick chooses (pick modulo their count), nil when
-- none is live.
function M.cancel(r, pick)
  if #r.live > 0 then
    local id = table.remove(r.live, pick % #r.live + 1)
    return "cancel " .. tostring(r.m:cancel(id))
  end
end

-- Move r's clock to t.
function M.clock(r, t)
  r.g:set_now(t)
  return "now " .. t
end

-- Set node n<node>'s status.
function M.status(r, node, status)
  r.g:vertex("n" .. node):set_status(status)
  return "status " .. node
end

-- Set the status a drawer's draw d names (its st) on its node.
function M.drawn_status(r, d)
  return M.status(r, d.node, ({"up", "drained", "down"})[d.st + 1])
end

return M
