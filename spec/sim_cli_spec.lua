-- grove sim on the command line: traces, errors, outputs, plots, compare,
-- the generator and the help text.
--
-- Only the command line is tested here; the Lua API is in sim_spec.lua.
local exe = require("exe_helper")
local GROVE, run = exe.GROVE, exe.run
local F = "spec/fixtures/sim/"
local core = require("grove.core")


local function rows(path)
  local lines = {}
  for line in io.lines(path) do lines[#lines + 1] = line end
  local head = {}
  for c in lines[1]:gmatch("[^,]+") do head[#head + 1] = c end
  local out = {}
  for i = 2, #lines do
    local r, k = {}, 0
    for cell in (lines[i] .. ","):gmatch("([^,]*),") do
      k = k + 1
      r[head[k]] = tonumber(cell) or cell
    end
    out[r.id] = r
  end
  return out
end

local tmp = os.tmpname()
os.remove(tmp)
os.execute("mkdir -p " .. tmp)

local function sim(args)
  return run(GROVE .. " sim --cluster " .. F .. "cluster.lua " .. args)
end

describe("grove sim", function()
  it("runs a Standard Workload Format trace and writes one row per job", function()
    local out, rc = sim("--trace " .. F .. "small.swf --queue easy --out " .. tmp .. "/o.csv")
    assert.equal(0, rc)
    assert.matches("spec/fixtures/sim/small.swf:9: job 6 left out: no processors", out, 1, true)
    assert.matches("spec/fixtures/sim/small.swf:8: job 5 left out: needs 64 cores, the " ..
      "machine has 16", out, 1, true)
    assert.matches("jobs 5 (left out 2, killed 0) on 16 cores, queue easy", out, 1, true)
    local r = rows(tmp .. "/o.csv")
    -- 1 runs at once; 2 (all 16 cores) waits: its shadow time is 1's
    -- estimated end (200).  3 (processors from field 5, estimate = run
    -- time) and 4 (estimate 10 < run 30, so 30) backfill beside 1, ending
    -- long before 200; 7 (estimate 400) would delay 2, so it waits.  1
    -- ends early, at 100: 2 starts then, and 7 when 2 ends.
    assert.same({0, 0, 100}, {r[1].start, r[1].wait, r[1].run})
    assert.same({100, 95}, {r[2].start, r[2].wait})
    assert.same({10, 4, 20}, {r[3].start, r[3].procs, r[3].estimate})
    assert.same({10, 30, 30}, {r[4].start, r[4].estimate, r[4].run})
    assert.same({150, 4, 130}, {r[7].start, r[7].procs, r[7].wait})
    assert.equal("n[0-3]", r[2].hosts)
    assert.equal(4, r[2].nodes)
    assert.is_nil(r[5])
  end)

  it("tells fcfs from easy on the same trace", function()
    local _, rc = sim("--trace " .. F .. "small.swf --queue fcfs --quiet --out " .. tmp ..
      "/f.csv")
    assert.equal(0, rc)
    local r = rows(tmp .. "/f.csv")
    -- 3 and 4 wait behind 2 until it ends
    assert.same({100, 150, 150, 150}, {r[2].start, r[3].start, r[4].start, r[7].start})
  end)

  it("reads JSON and CSV job lists with jobspecs", function()
    local out, rc = sim("--trace " .. F .. "jobs.json --quiet --out " .. tmp .. "/j.csv")
    assert.equal(0, rc, out)
    local r = rows(tmp .. "/j.csv")
    assert.same({0, 2, 8}, {r[2].start, r[2].nodes, r[2].procs})
    assert.equal("ann", r[1].user)
    out, rc = sim("--trace " .. F .. "jobs.csv --quiet --out " .. tmp .. "/c.csv")
    assert.equal(0, rc, out)
    r = rows(tmp .. "/c.csv")
    assert.same({3, 1, 4, 60}, {r[2].start, r[2].nodes, r[2].procs, r[2].estimate})
  end)

  it("names the file, line and reason of a malformed trace", function()
    local cases = {
      {"short.swf", "short.swf:2: expected 18 fields, found 16"},
      {"badnum.swf", "badnum.swf:2: field 4 (run time) is not a number: '1x'"},
      {"unsorted.swf", "unsorted.swf:2: submit time 5 is before the previous job's (9): " ..
        "the trace must be in submit-time order"},
      {"bad.json", "bad.json:2:47: string or '}' expected near '}'"},
      {"missing.swf", "missing.swf: No such file or directory"},
    }
    for _, c in ipairs(cases) do
      local out, rc = sim("--trace " .. F .. c[1])
      assert.equal(1, rc)
      assert.equal("grove sim: " .. F .. c[2] .. "\n", out)
    end
  end)

  it("reads node events and requeues or kills the jobs on a node that goes down", function()
    local _, rc = sim("--trace " .. F .. "small.swf --queue conservative --quiet --events " ..
      F .. "events.txt --on-down requeue --out " .. tmp .. "/e.csv")
    assert.equal(0, rc)
    local r = rows(tmp .. "/e.csv")
    assert.same({1, 30, "done"}, {r[4].requeues, r[4].start, r[4].state})
    _, rc = sim("--trace " .. F .. "small.swf --queue conservative --quiet --events " ..
      F .. "events.txt --out " .. tmp .. "/k.csv")
    assert.equal(0, rc)
    r = rows(tmp .. "/k.csv")
    assert.same({"killed", 20, 10}, {r[4].state, r[4].run, r[4].start})
    for _, c in ipairs{{"badevents.txt", "badevents.txt:1: no node 'n9' (a node name, path " ..
      "or hostlist)"}, {"badaction.txt", "badaction.txt:1: unknown action 'reboot' " ..
      "(down, up, drain)"}} do
      local out, rc2 = sim("--trace " .. F .. "small.swf --events " .. F .. c[1])
      assert.equal(1, rc2)
      assert.equal("grove sim: " .. F .. c[2] .. "\n", out)
    end
  end)

  it("refuses a queue policy that reaches outside its sandbox", function()
    local out, rc = sim("--trace " .. F .. "small.swf --quiet --queue " .. F .. "escape.lua")
    assert.equal(1, rc)
    assert.equal("grove sim: queue policy escape: " .. F .. "escape.lua:3: undefined global " ..
      "'io'\n", out)
  end)

  it("writes a summary, plots that render, and compares two runs", function()
    for _, q in ipairs{"fcfs", "easy"} do
      local _, rc = sim(("--trace %ssmall.swf --queue %s --quiet --summary %s/%s.json " ..
        "--plot %s/%s"):format(F, q, tmp, q, tmp, q))
      assert.equal(0, rc)
    end
    local s = core.json_decode(exe.read(tmp .. "/easy.json"))
    assert.equal("easy", s.queue)
    assert.equal(5, s.jobs)
    assert.equal(2, s.left_out)
    assert.equal(45, s.wait_mean)              -- (0 + 95 + 0 + 0 + 130) / 5
    assert.equal(130, s.wait_p95)
    assert.equal(0, s.wait_median)
    assert.is_true(#s.series.t > 0)
    -- the "jobs waiting" axis has whole, distinct labels
    local util = exe.read(tmp .. "/easy/utilization.svg")
    local labels = {}
    for l in util:gmatch('<text x="%d+" y="[%d.]+" text%-anchor="end">([^<]*)</text>') do
      labels[#labels + 1] = l
    end
    assert.equal(10, #labels)                  -- utilization 5, jobs waiting 5
    for i = 7, 10 do
      assert.matches("^%d+$", labels[i])
      assert.is_true(tonumber(labels[i]) > tonumber(labels[i - 1]), util)
    end
    for _, svg in ipairs{"easy/utilization.svg", "easy/gantt.svg"} do
      local text = exe.read(tmp .. "/" .. svg)
      assert.matches("^<%?xml", text)
      local _, rc = run(("rsvg-convert -o %s/x.png %s/%s"):format(tmp, tmp, svg))
      assert.equal(0, rc, svg .. " does not render")
      local png = exe.read(tmp .. "/x.png")
      assert.equal("\137PNG", png:sub(1, 4))
    end
    local out, rc = run(("%s sim --compare %s/fcfs.json %s/easy.json --plot %s"):format(GROVE,
      tmp, tmp, tmp))
    assert.equal(0, rc)
    assert.matches("mean wait %(s%)%s+%d", out)
    assert.matches("fcfs %(fcfs%)", out)
    local _, rc2 = run(("rsvg-convert -o %s/c.png %s/compare.svg"):format(tmp, tmp))
    assert.equal(0, rc2)
  end)

  it("generates a Standard Workload Format trace it can read back", function()
    local out, rc = run(GROVE .. " sim --generate 50 --procs 16 --seed 4 > " .. tmp ..
      "/g.swf")
    assert.equal(0, rc, out)
    local text = exe.read(tmp .. "/g.swf")
    assert.matches("; MaxProcs: 16", text, 1, true)
    local n = 0
    for line in text:gmatch("[^\n]+") do
      if not line:match("^;") then
        n = n + 1
        local f = {}
        for w in line:gmatch("%S+") do f[#f + 1] = tonumber(w) end
        assert.equal(18, #f)
        assert.is_true(f[8] >= 1 and f[8] <= 16)
      end
    end
    assert.equal(50, n)
    local again = run(GROVE .. " sim --generate 50 --procs 16 --seed 4")
    assert.equal(text, again)
    out, rc = sim("--trace " .. tmp .. "/g.swf --quiet --summary " .. tmp .. "/g.json")
    assert.equal(0, rc, out)
    assert.equal(50, core.json_decode(exe.read(tmp .. "/g.json")).jobs)
  end)

  it("has help, and refuses bad command lines with status 2", function()
    local out, rc = run(GROVE .. " help sim")
    assert.equal(0, rc)
    assert.matches("^Usage: grove sim %-%-cluster FILE %-%-trace FILE", out)
    local out2 = run(GROVE .. " sim --help")
    assert.equal(out, out2)
    out, rc = run(GROVE .. " sim --trace x")
    assert.equal(2, rc)
    assert.equal("grove sim: give --cluster FILE\nTry 'grove sim --help'.\n", out)
    out, rc = sim("--trace x --procs-as socket")
    assert.equal(2, rc)
    assert.matches("--procs-as must be core or node", out, 1, true)
    out, rc = run(GROVE .. " sim --generate 5")
    assert.equal(2, rc)
    assert.matches("needs --procs P", out, 1, true)
    out, rc = run(GROVE .. " sim --generate 5 --procs 16 --plot " .. tmp .. "/nothing")
    assert.equal(2, rc)
    assert.equal("grove sim: --generate writes a trace to stdout and runs nothing: --plot is "
      .. "for a run (grove sim --trace FILE ...)\nTry 'grove sim --help'.\n", out)
  end)
end)
