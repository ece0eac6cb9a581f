-- grove.sim.plot: charts people read.  A long run's utilization is drawn
-- as means over windows of a round duration, named on the axis; the
-- Gantt chart's job colours never come near the red its legend gives to
-- jobs killed at their time limit.
local plot = require("grove.sim.plot")
local exe = require("exe_helper")
local GROVE, run = exe.GROVE, exe.run

local tmp = exe.scratch_dir()

-- The hue of "#rrggbb" in degrees (0: red), and its saturation.
local function hue(c)
  local r, g, b = tonumber(c:sub(2, 3), 16) / 255, tonumber(c:sub(4, 5), 16) / 255,
    tonumber(c:sub(6, 7), 16) / 255
  local hi, lo = math.max(r, g, b), math.min(r, g, b)
  local d = hi - lo
  if d == 0 then return nil, 0 end
  local h
  if hi == r then h = ((g - b) / d) % 6
  elseif hi == g then h = (b - r) / d + 2
  else h = (r - g) / d + 4 end
  return h * 60, d / hi
end

describe("grove.sim.plot", function()
  it("averages a long run over round windows, about 80 of them", function()
    assert.equal(86400, plot.window_for(63 * 86400, 3600))
    assert.equal("1-day", plot.window_name(86400))
    assert.equal(300, plot.window_for(6 * 3600, 1))
    assert.equal("5-minute", plot.window_name(300))
    -- never narrower than the series' own buckets
    assert.equal(7200, plot.window_for(3600, 7200))
    assert.equal("90-second", plot.window_name(90))
    assert.equal("6-hour", plot.window_name(6 * 3600))
  end)

  it("names the window on the utilization chart of a 63-day run", function()
    local f = assert(io.open(tmp .. "/long.swf", "w"))
    f:write("1 0 -1 100 2 -1 -1 2 200 -1 1 1 -1 -1 1 -1 -1 -1\n",
      "2 5443200 -1 100 2 -1 -1 2 200 -1 1 1 -1 -1 1 -1 -1 -1\n")
    f:close()
    local out, rc = run(GROVE .. " sim --cluster spec/fixtures/sim/cluster.lua --trace " ..
      tmp .. "/long.swf --quiet --plot " .. tmp .. "/p")
    assert.equal(0, rc, out)
    assert.matches("simulated time (means over 1-day windows)",
      exe.read(tmp .. "/p/utilization.svg"), 1, true)
  end)

  it("colours no job of the Gantt chart near the red of a job killed at its limit", function()
    local th = hue(plot.TIMEOUT_EDGE:gsub("^#(%x)(%x)(%x)$", "#%1%1%2%2%3%3"))
    assert.equal(0, th)
    for _, c in ipairs(plot.GANTT_COLORS) do
      local h, sat = hue(c)
      if h and sat > 0.15 then
        local off = math.min(h, 360 - h)
        assert.is_true(off > 45, c .. " is " .. off .. " degrees from red")
      end
    end
  end)

  it("refuses a Gantt chart option it does not know, and takes every one it does", function()
    local recs = {{node = 1, id = 1, start = 0, ["end"] = 10}}
    assert.has_error(function() plot.gantt(tmp .. "/g.svg", recs, {"n0"}, {nodse = 4}) end,
      "bad argument #4 to 'gantt' (unknown option 'nodse' (did you mean 'nodes'?))")
    assert(plot.gantt(tmp .. "/g.svg", recs, {"n0"}, {nodes = 4, from = 0, to = 20, cut = 15}))
    assert.matches("<svg", exe.read(tmp .. "/g.svg"), 1, true)
  end)
end)
