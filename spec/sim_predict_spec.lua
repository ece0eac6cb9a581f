-- grove.sim with run times predicted from a user's ended jobs (--predict):
-- the predictor's figures, the loop planning on them, a job that outlives
-- its prediction, and the command line.
local grove = require("grove")
local sim = grove.sim
local predict = require("grove.sim.predict")
local helper = require("sim_helper")
local exe = require("exe_helper")

describe("grove.sim.predict", function()
  it("predicts the mean of a user's last two runs, or the request scaled as the last", function()
    local p = assert(predict.new("last2"))
    assert.equal(300, p:predict(1, 300)) -- no history: the request
    p:ended(1, 100, 300)
    assert.equal(100, p:predict(1, 300))
    p:ended(1, 51, 200)
    assert.equal(76, p:predict(1, 300)) -- (100 + 51) / 2, rounded up
    assert.equal(50, p:predict(1, 50))  -- never past the request
    assert.equal(300, p:predict(2, 300)) -- another user's history is not this one's
    assert.equal(300, p:predict(nil, 300))
    local r = assert(predict.new("ratio"))
    r:ended(1, 100, 300)
    assert.equal(34, r:predict(1, 100)) -- 100 * 100 / 300
    assert.equal(1, r:predict(1, 1))
    local none, why = predict.new("sjf")
    assert.is_nil(none)
    assert.equal("unknown prediction 'sjf' (last2 or ratio)", why)
  end)
end)

describe("a simulation planned on predicted run times", function()
  local function run(opts, jobs)
    local rows = {}
    opts.graph = helper.machine("s", 1, 4, 1, 4)
    opts.out = function(row) rows[row.id] = row end
    local s = assert(sim.new(opts))
    for _, j in ipairs(jobs) do s:submit(j) end
    assert(s:run())
    return s, rows
  end

  -- user 1's jobs each ask for 300 s of the whole machine (16 cores)
  local jobs = {
    {id = 1, submit = 0, run = 100, estimate = 300, procs = 16, user = 1},
    {id = 2, submit = 150, run = 100, estimate = 300, procs = 16, user = 1},
    {id = 3, submit = 160, run = 50, estimate = 300, procs = 16, user = 1},
    -- predicted (100 + 50) / 2 = 75 s, runs 200: outlives its prediction
    {id = 4, submit = 400, run = 200, estimate = 300, procs = 16, user = 1},
    {id = 5, submit = 410, run = 10, estimate = 10, procs = 16, user = 2},
  }

  it("shows starts from the predictions, and moves them when a job outlives its own", function()
    local s, rows = run({queue = "conservative", predict = "last2"}, jobs)
    -- job 3 waits for job 2, predicted to end at 250 (its run of 100 s
    -- from 150): shown 250, and it starts then
    assert.same({250, 250, 250}, {rows[3].start, rows[3].predicted_first,
      rows[3].predicted_last})
    -- job 5 is shown job 4's predicted end, 475; at 475 job 4 runs on,
    -- its end moves to its request (700), and so does job 5's start;
    -- job 4 ends at 600 and job 5 starts then
    assert.same({600, 475, 700, 2}, {rows[5].start, rows[5].predicted_first,
      rows[5].predicted_last, rows[5].predictions})
    assert.equal(1, s:result().extended)
    assert.equal("last2", s:result().predict)
    -- the rows keep the requested time, and a job still ends at its run
    assert.same({300, 600, "done"}, {rows[4].estimate, rows[4]["end"], rows[4].state})
  end)

  it("plans on the requests without it, and the same jobs end the same", function()
    local s, rows = run({queue = "conservative"}, jobs)
    -- job 3 is shown job 2's requested end, 450
    assert.same({250, 450}, {rows[3].start, rows[3].predicted_first})
    assert.is_nil(s:result().extended)
    for id = 1, 5 do assert.equal(jobs[id].run, rows[id]["end"] - rows[id].start) end
  end)

  it("leaves a schedule that reads no estimate as it was (fcfs)", function()
    local _, plain = run({queue = "fcfs"}, jobs)
    local _, predicted = run({queue = "fcfs", predict = "last2"}, jobs)
    for id = 1, 5 do
      assert.same({plain[id].start, plain[id]["end"]}, {predicted[id].start, predicted[id]["end"]})
    end
  end)

  it("refuses an unknown method", function()
    assert.has_error(function() sim.new{graph = helper.machine("s", 1, 1, 1, 1), predict = "x"} end,
      "bad argument #1 to 'new' (unknown prediction 'x' (last2 or ratio))")
  end)
end)

describe("grove sim --predict", function()
  local tmp = exe.scratch_dir()

  it("runs a generated trace under conservative, each overrun moved, and says so", function()
    local trace = tmp .. "/g.swf"
    local _, rc = exe.run(exe.GROVE .. " sim --generate 300 --procs 256 --seed 1 " ..
      "--estimate-factor 3 > " .. trace)
    assert.equal(0, rc)
    -- (every overrun registers the job again over its new window: a
    -- register of R across many racks and sockets)
    local out, rc2 = exe.run(exe.GROVE .. " sim --cluster examples/racks256.lua --trace " ..
      trace .. " --queue conservative --predict last2")
    assert.equal(0, rc2, out)
    assert.matches("run times predicted %(last2%): %d+ jobs outlived their prediction", out)
    assert.matches("jobs 300 (left out 0, killed 0)", out, 1, true)
  end)

  it("refuses a method it does not know, with a suggestion", function()
    local out, rc = exe.run(exe.GROVE .. " sim --cluster examples/racks256.lua --trace x.swf " ..
      "--predict lats2")
    assert.are_not.equal(0, rc)
    assert.matches("--predict must be none, last2 or ratio, got 'lats2'", out, 1, true)
  end)
end)
