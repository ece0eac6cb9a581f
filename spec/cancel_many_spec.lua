-- Cancelling many jobs at once (m:cancel of a list, core/match_job.c's
-- grove_matcher_cancel_many): when the records going outnumber those
-- staying, the aggregates' upkeep of each is skipped and their spans and
-- busy tallies are rebuilt from the records that stay
-- (core/aggregate.c's grovep_agg_respan).  Whatever the path, every later
-- placement, start and failure, and what the aggregates say is free, must
-- be what the same graph gives with the jobs cancelled one by one, on
-- random streams.
--
-- This file holds only specs: what several specs share lives in
-- spec/*_helper.lua, fixtures in spec/fixtures/, and must not be copied
-- here.
local core = require("grove.core")
local match = require("match_helper")
local streams = require("stream_helper")

local machine = match.racked

local SHAPES = {
  {tasks = 1, cores_per_task = 1, duration = 10},
  {tasks = 2, cores_per_task = 3, duration = 20},
  {tasks = 1, cores_per_task = 1, gpus_per_task = 1, duration = 30},
  {nodes = 1, cores_per_node = 2, exclusive = true, duration = 10},
  {nodes = 4, cores_per_node = 1, exclusive = true, duration = 40},
  {nodes = 2, tasks = 2, cores_per_task = 2, duration = 30},
  {nodes = 8, cores_per_node = 4, exclusive = true, duration = 50},
}

-- One stream on two alike graphs: the first cancels each batch with one
-- call, the second job by job.  What each step gave on each.
local function stream(seed, steps, spec)
  local rnd = match.lcg(seed)
  local run = {}
  local n
  for k = 1, 2 do
    local g
    g, n = machine(3, 12)
    assert(g:set_aggregates(spec))
    run[k] = streams.run(g, core.matcher(g))
  end
  local shapes = streams.compiled(SHAPES)
  local now, batches = 0, 0
  local function draw()
    local d = {}
    d.op, d.shape, d.pick, d.node = rnd(100), rnd(#shapes) + 1, rnd(1000), rnd(n)
    if d.op >= 75 and d.op < 85 then
      -- a batch: most of the live jobs (every one of them at times, as a
      -- conservative pass's drop of every reservation)
      local live = run[1].live
      local keep = d.op < 80 and 0 or (d.pick % 3)
      local batch = {}
      -- (a job the clock took past its end may have left the table)
      for i = #live, keep + 1, -1 do
        if run[1].m:job(live[i]) then batch[#batch + 1] = live[i] end
      end
      for _, r in ipairs(run) do
        for i = #r.live, keep + 1, -1 do r.live[i] = nil end
      end
      batches = batches + 1
      d.batch = batch
    end
    return d
  end
  streams.steps(run, steps, draw, {
    {75, function(r, d) return streams.allocate(r, shapes[d.shape]) end},
    {85, function(r, d, k)
      local batch = d.batch
      local out
      if k == 1 then
        out = "cancel " .. tostring(r.m:cancel(batch) == #batch)
      else
        for _, id in ipairs(batch) do assert(r.m:cancel(id)) end
        out = "cancel true"
      end
      -- what the aggregates say is free after it, over the next windows
      for _, path in ipairs{"/bk0", "/bk0/rack0", "/bk0/rack2"} do
        local v = assert(r.g:vertex(path))
        for _, t in ipairs{"core", "gpu", "node"} do
          for w = 0, 100, 10 do
            out = out .. " " .. tostring(v:aggregate_avail(t, now + w, 10 + w % 30))
          end
        end
      end
      return out
    end},
    {93, function(r) return streams.clock(r, now + 7) end, function() now = now + 7 end},
    {100, function(r, d)
      return streams.status(r, d.node, d.node % 2 == 0 and "drained" or "up")
    end},
  })
  -- what the aggregates pruned (the busy tallies' idle bound, the blocks)
  for _, r in ipairs(run) do
    local st = r.m:stats()
    r.log[#r.log + 1] = ("pruned %d passed %d"):format(st.idle_pruned, st.blocks_passed)
    r.m:close()
  end
  return run[1].log, run[2].log, batches
end

describe("cancelling many jobs at once", function()
  it("leaves every later placement as cancelling them one by one does", function()
    local batches = 0
    for _, spec in ipairs{"ALL:core,ALL:node,ALL:gpu", "ALL:core,ALL:node,ALL:gpu,blocks=4",
      "ALL:core,ALL:node,ALL:gpu,idle=0", "ALL:core"} do
      for seed = 1, 4 do
        local got, want, b = stream(seed, 300, spec)
        assert.same(want, got, ("%s, seed %d"):format(spec, seed))
        batches = batches + b
      end
    end
    assert.is_true(batches > 100, batches .. " batches")
  end)

  it("rebuilds the aggregates when most records go, and they answer as before", function()
    local g = machine(2, 16)
    local m = core.matcher(g)
    local ids = {}
    for _ = 1, 20 do
      local j = assert(m:match(match.compiled{nodes = 4, cores_per_node = 4, exclusive = true,
        duration = 100}, "allocate_orelse_reserve"))
      ids[#ids + 1] = j.id
    end
    local first = table.remove(ids, 1)
    assert.equal(#ids, m:cancel(ids))
    -- one job left, its four nodes held over [0, 100): 28 nodes idle
    local j = assert(m:match(match.compiled{nodes = 28, cores_per_node = 4, exclusive = true,
      duration = 100}, "allocate_orelse_reserve"))
    assert.equal("allocated", j.state)
    assert.is_nil(m:match(match.compiled{nodes = 1, cores_per_node = 1, duration = 50}))
    assert.equal(2, m:cancel({first, j.id}))
    assert.equal(0, #m:jobs())
    local all = assert(m:match(match.compiled{nodes = 32, cores_per_node = 4, exclusive = true,
      duration = 10}))
    assert.equal("allocated", all.state)
    m:close()
  end)

  it("passes over an unknown or repeated job, and refuses an entry that is no id", function()
    local g = machine(1, 4)
    local m = core.matcher(g)
    local a = assert(m:match(match.compiled{tasks = 1, cores_per_task = 1, duration = 10}))
    local b = assert(m:match(match.compiled{tasks = 1, cores_per_task = 1, duration = 10}))
    local c = assert(m:match(match.compiled{tasks = 1, cores_per_task = 1, duration = 10}))
    assert.has_error(function() m:cancel({a.id, "x"}) end,
      "bad argument #1 to 'cancel' (entry 2: a job id expected)")
    assert.equal(3, #m:jobs()) -- nothing cancelled
    assert.equal(0, m:cancel({}))
    assert.equal(1, m:cancel({a.id, 999, a.id}))
    assert.equal(2, m:cancel({c.id, a.id, b.id}))
    assert.equal(0, #m:jobs())
    m:close()
  end)
end)
