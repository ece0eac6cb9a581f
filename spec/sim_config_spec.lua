-- grove sim --config: a Flux instance's configuration (`flux config get`)
-- run in the simulator as sched-grove runs it, queues and all.
local exe = require("exe_helper")
local GROVE, run = exe.GROVE, exe.run
local F = "spec/fixtures/sim/"

local tmp = exe.scratch_dir()

-- The start and hosts of each job of a run's CSV.
local function starts(path)
  local out = {}
  local head
  for line in io.lines(path) do
    local cells = {}
    for cell in (line .. ","):gmatch("([^,]*),") do cells[#cells + 1] = cell end
    if not head then
      head = {}
      for i, c in ipairs(cells) do head[c] = i end
    else
      out[tonumber(cells[head.id])] = {tonumber(cells[head.start]), cells[head.hosts]}
    end
  end
  return out
end

local function sim(args)
  return run(GROVE .. " sim --cluster " .. F .. "cluster.lua --trace " .. F .. "queues.json "
    .. "--partition debug=n[0-1] --partition batch=n[2-3] " .. args)
end

describe("grove sim --config", function()
  it("schedules each queue of the configuration on its own", function()
    local out, rc = sim("--config " .. F .. "flux-queues.json --out " .. tmp .. "/q.csv")
    assert.equal(0, rc, out)
    local r = starts(tmp .. "/q.csv")
    -- debug's second job waits for the first; batch's starts at once,
    -- placed by its own policy: high ranks a request of cores alone by
    -- the cores' own ids across the nodes, as the reference engine does
    -- (docs/policies.md), so its 4 cores are the highest-id cores of n2
    -- and n3 alike, not n3 whole (hinode would put n3 first)
    assert.same({0, "n[0-1]"}, r[1])
    assert.equal(100, r[2][1])
    assert.same({2, "n[2-3]"}, r[3])
    -- one queue for all (no configuration): batch's job waits behind debug's head
    out, rc = sim("--out " .. tmp .. "/one.csv")
    assert.equal(0, rc, out)
    assert.equal(100, starts(tmp .. "/one.csv")[3][1])
  end)

  it("refuses a configuration it cannot read, naming the file and why", function()
    local out, rc = sim("--config " .. F .. "flux-badqueue.json")
    assert.equal(1, rc)
    assert.matches("grove sim: spec/fixtures/sim/flux%-badqueue.json: "
      .. "%[sched%-grove.queues.debgu%]: no queue 'debgu' in %[queues%] %(did you mean "
      .. "'debug'%?%)", out)
    out, rc = sim("--config " .. F .. "queues.json")
    assert.equal(1, rc)
    assert.matches("queues.json: a JSON object expected", out)
  end)
end)
