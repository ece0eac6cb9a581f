-- grove sim on the command line: traces, errors, outputs, plots, compare,
-- the generator and the help text.
--
-- Only the command line is tested here; the Lua API is in sim_spec.lua.
local exe = require("exe_helper")
local GROVE, run = exe.GROVE, exe.run
local F = "spec/fixtures/sim/"
local core = require("grove.core")


-- The rows of a run's CSV by job id, numbers read as numbers.
local function rows(path)
  local _, list = exe.csv(path)
  local out = {}
  for _, r in ipairs(list) do
    for k, cell in pairs(r) do r[k] = tonumber(cell) or cell end
    out[r.id] = r
  end
  return out
end

local tmp = exe.scratch_dir()

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
    -- time) and 4 (estimate 10 < run 30: killed at its limit, 10) backfill beside 1, ending
    -- long before 200; 7 (estimate 400) would delay 2, so it waits.  1
    -- ends early, at 100: 2 starts then, and 7 when 2 ends.
    assert.same({0, 0, 100}, {r[1].start, r[1].wait, r[1].run})
    assert.same({100, 95}, {r[2].start, r[2].wait})
    assert.same({10, 4, 20}, {r[3].start, r[3].procs, r[3].estimate})
    assert.same({10, 10, 10, "timeout"}, {r[4].start, r[4].estimate, r[4].run, r[4].state})
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
      {"badnum.swf", "badnum.swf:2:8: field 4 (run time) is not a number: '1x'"},
      {"badtype.csv", "badtype.csv:3:6: column 'run' is not a number: 'ten'"},
      {"badtype.json", "badtype.json:3:3: job 2: run must be a number (got string)"},
      {"bad.json", "bad.json:2:47: string or '}' expected near '}'"},
      {"missing.swf", "missing.swf: No such file or directory"},
    }
    for _, c in ipairs(cases) do
      local out, rc = sim("--trace " .. F .. c[1])
      assert.equal(1, rc)
      assert.equal("grove sim: " .. F .. c[2] .. "\n", out)
    end
  end)

  it("reads a log as published: extra fields, out of order, cancelled jobs", function()
    local out, rc = sim("--trace " .. F .. "published.swf --queue fcfs --out " .. tmp ..
      "/p.csv")
    assert.equal(0, rc)
    assert.matches("grove sim: warning: " .. F .. "published.swf:4: 19 fields, expected 18: " ..
      "the fields after the 18th are ignored", out, 1, true)
    assert.matches("grove sim: warning: " .. F .. "published.swf:6: not in submit-time " ..
      "order: the trace is read whole and sorted", out, 1, true)
    local r = rows(tmp .. "/p.csv")
    -- by hand: 3 was cancelled before it ran (dropped); 2 follows 1 (field
    -- 17) with a think time of 5 (field 18): submitted at 100 + 5, killed
    -- at its limit of 10 s; 4 and 5 start as they come (16 cores)
    assert.is_nil(r[3])
    assert.same({0, 100, "done"}, {r[1].start, r[1]["end"], r[1].state})
    assert.same({105, 105, 115, "timeout"}, {r[2].submit, r[2].start, r[2]["end"], r[2].state})
    assert.same({60, 100}, {r[4].start, r[4]["end"]})
    assert.same({120, 130}, {r[5].start, r[5]["end"]})
    -- the same with cancelled jobs kept, a window and compressed arrivals
    local _, rc1 = sim("--trace " .. F .. "published.swf --quiet --keep-cancelled --from 5 " ..
      "--to 100 --load 2 --walltime extend --out " .. tmp .. "/p2.csv")
    assert.equal(0, rc1)
    r = rows(tmp .. "/p2.csv")
    -- kept: 2 (10), 3 (50 -> 10 + 40 / 2 = 30), 4 (60 -> 35); 1 is outside
    -- the window, so 2 does not wait for it
    assert.same({10, 10, 40, "done"}, {r[2].submit, r[2].start, r[2]["end"], r[2].state})
    assert.same({30, 31}, {r[3].start, r[3]["end"]})
    assert.same({35, 75}, {r[4].start, r[4]["end"]})
    assert.is_nil(r[1])
    local out2, rc2 = run(GROVE .. " sim --cluster " .. F .. "cluster.lua --trace - < " .. F ..
      "unsorted.swf")
    assert.equal(1, rc2)
    assert.equal("grove sim: (stdin):2: submit time 5 is before the previous job's (9): a " ..
      "trace read from a stream must be in submit-time order\n", out2)
  end)

  it("cleans, cuts and summarizes a trace, and writes it back as SWF", function()
    local out, rc = run(GROVE .. " sim trace " .. F .. "published.swf --out " .. tmp ..
      "/clean.swf")
    assert.equal(0, rc)
    assert.matches(F .. "published.swf: 4 jobs kept (0 left out, 1 dropped by status, 0 " ..
      "outside the window)", out, 1, true)
    assert.matches("users 3, groups 2", out, 1, true)
    assert.matches("run time over the requested time: 1 jobs", out, 1, true)
    assert.matches("jobs that follow another (field 17): 1", out, 1, true)
    assert.matches("jobs by size: 2: 2, 3-4: 1, 5-8: 1", out, 1, true)
    -- 8*100 + 2*30 + 2*40 + 4*10 = 980 over 16 x (130 - 0)
    assert.matches("offered utilization on 16 processors: 0.4712", out, 1, true)
    local lines = {}
    for l in io.lines(tmp .. "/clean.swf") do lines[#lines + 1] = l end
    assert.equal("; MaxProcs: 16", lines[3])
    assert.matches("^; Note: cleaned by grove sim trace from published.swf: 4 jobs kept", lines[4])
    assert.equal("2 10 -1 30 2 -1 -1 2 10 -1 1 3 2 -1 1 -1 1 5", lines[6])
    assert.equal(8, #lines)
    -- what it wrote reads back with no warning and the same jobs
    local out2, rc2 = run(GROVE .. " sim trace " .. tmp .. "/clean.swf --procs 16")
    assert.equal(0, rc2)
    assert.matches("4 jobs kept", out2, 1, true)
    assert.is_nil(out2:find("warning", 1, true))
    local out3, rc3 = run(GROVE .. " sim trace " .. F .. "published.swf --load 0")
    assert.equal(2, rc3)
    assert.matches("--load must be a number > 0, got '0'", out3, 1, true)
  end)

  it("gives a queue a policy of its own with --param policy_Q", function()
    -- the jobs of sim_spec.lua's "a queue policy per queue": queue 1 fcfs
    -- (--queue), queue 2 easy; 5 backfills at 4 in queue 2
    local f = io.open(tmp .. "/q.swf", "w")
    for _, j in ipairs{{1, 0, 100, 12, 1}, {2, 1, 10, 8, 1}, {3, 2, 10, 2, 1},
      {4, 3, 50, 8, 2}, {5, 4, 20, 2, 2}} do
      f:write(("%d %d -1 %d %d -1 -1 %d %d -1 1 1 1 -1 %d -1 -1 -1\n"):format(j[1], j[2], j[3],
        j[4], j[4], j[3], j[5]))
    end
    f:close()
    local out, rc = sim("--trace " .. tmp .. "/q.swf --queue fcfs --param policy_2=easy " ..
      "--quiet --out " .. tmp .. "/q.csv")
    assert.equal(0, rc, out)
    local r = rows(tmp .. "/q.csv")
    assert.same({0, 100, 100, 110, 4}, {r[1].start, r[2].start, r[3].start, r[4].start,
      r[5].start})
    out, rc = sim("--trace " .. tmp .. "/q.swf --param policy_2=nosuch")
    assert.equal(1, rc)
    assert.matches("policy_2: ", out, 1, true)
  end)

  it("maps partitions to nodes", function()
    local _, rc = sim("--trace " .. F .. "partitions.swf --queue easy --quiet --partition 1=n0 " ..
      "--partition 2=n1 --out " .. tmp .. "/pt.csv")
    assert.equal(0, rc)
    local r = rows(tmp .. "/pt.csv")
    -- by hand: 1 fills n0 (partition 1), 2 waits for it, 3 runs on n1
    assert.same({0, "n0"}, {r[1].start, r[1].hosts})
    assert.same({100, "n0"}, {r[2].start, r[2].hosts})
    assert.same({2, "n1"}, {r[3].start, r[3].hosts})
    local out, rc2 = sim("--trace " .. F .. "partitions.swf --partition n0")
    assert.equal(2, rc2)
    assert.matches("--partition needs PARTITION=NODES, got 'n0'", out, 1, true)
    out, rc2 = sim("--trace " .. F .. "partitions.swf --memory some")
    assert.equal(2, rc2)
    assert.matches("--memory must be auto or ignore", out, 1, true)
  end)

  for _, c in ipairs {
    {"blames a priority that is not a number on the policy's own file", "badprio.lua",
      F .. "badprio.lua:4:3: priority must return a number (job 1 got string)"},
    {"refuses a queue policy that reaches outside its sandbox", "escape.lua",
      "queue policy escape: " .. F .. "escape.lua:3: undefined global 'io'"},
  } do
    it(c[1], function()
      local out, rc = sim("--trace " .. F .. "small.swf --quiet --queue " .. F .. c[2])
      assert.equal(1, rc)
      assert.equal("grove sim: " .. c[3] .. "\n", out)
    end)
  end

  it("reads node events and requeues or kills the jobs on a node that goes down", function()
    local _, rc = sim("--trace " .. F .. "small.swf --queue conservative --quiet --events " ..
      F .. "events.txt --on-down requeue --walltime extend --out " .. tmp .. "/e.csv")
    assert.equal(0, rc)
    local r = rows(tmp .. "/e.csv")
    assert.same({1, 30, "done"}, {r[4].requeues, r[4].start, r[4].state})
    _, rc = sim("--trace " .. F .. "small.swf --queue conservative --quiet --events " ..
      F .. "events.txt --walltime extend --out " .. tmp .. "/k.csv")
    assert.equal(0, rc)
    r = rows(tmp .. "/k.csv")
    assert.same({"killed", 20, 10}, {r[4].state, r[4].run, r[4].start})
    for _, c in ipairs{{"badevents.txt", "badevents.txt:1: no node 'n9' (a node name, path " ..
      "or hostlist)"}, {"badaction.txt", "badaction.txt:1: unknown action 'reboot' " ..
      "(down, up, drain, set or unset)"}} do
      local out, rc2 = sim("--trace " .. F .. "small.swf --events " .. F .. c[1])
      assert.equal(1, rc2)
      assert.equal("grove sim: " .. F .. c[2] .. "\n", out)
    end
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
    assert.matches("^metric%s+fcfs%s+easy%s+change\n", out)
    local _, rc2 = run(("rsvg-convert -o %s/c.png %s/compare.svg"):format(tmp, tmp))
    assert.equal(0, rc2)
  end)

  it("compares any number of runs, and refuses runs of other traces unless told", function()
    for _, q in ipairs{"fcfs", "easy", "conservative", "fairshare", "backfill"} do
      local _, rc = sim(("--trace %ssmall.swf --queue %s --quiet --summary %s/n-%s.json")
        :format(F, q, tmp, q))
      assert.equal(0, rc)
    end
    local _, rc0 = sim(("--trace %spublished.swf --quiet --summary %s/other.json"):format(F, tmp))
    assert.equal(0, rc0)
    local out, rc = run(("%s sim --compare %s/n-fcfs.json %s/n-easy.json %s/n-conservative.json " ..
      "%s/n-fairshare.json %s/n-backfill.json --plot %s/n"):format(GROVE, tmp, tmp, tmp, tmp,
      tmp, tmp))
    assert.equal(0, rc)
    -- names longer than a column: letters, the files listed under the table;
    -- five runs within 100 columns
    assert.matches("^metric%s+A%s+B%s+C%s+D%s+E\n", out)
    assert.matches("\nA  " .. tmp .. "/n%-fcfs%.json %(queue fcfs, policy first, processors " ..
      "as core%)\nB  " .. tmp .. "/n%-easy%.json %(queue easy, ", out)
    for line in out:gmatch("[^\n]*") do assert.is_true(#line <= 100, line) end
    -- by hand, fcfs: 2 waits for 1 (95), then 3, 4 and 7 behind it (140,
    -- 140, 130): (0 + 95 + 140 + 140 + 130) / 5; easy: 45 (the first case)
    assert.matches("\nmean wait %(s%)%s+101%.000%s+45%.000%s+", out)
    local svg = exe.read(tmp .. "/n/compare.svg")
    assert.matches("n-fairshare (fairshare)", svg, 1, true)
    out, rc = run(("%s sim --compare %s/n-fcfs.json %s/other.json"):format(GROVE, tmp, tmp))
    assert.equal(1, rc)
    assert.matches("grove sim: " .. tmp .. "/n-fcfs.json and " .. tmp .. "/other.json were run " ..
      "on different traces (" .. F .. "small.swf, " .. F .. "published.swf): compare them " ..
      "with --force", out, 1, true)
    _, rc = run(("%s sim --compare %s/n-fcfs.json %s/other.json --force"):format(GROVE, tmp, tmp))
    assert.equal(0, rc)
  end)

  it("blames a failing placement policy first, then the queue policy that asked", function()
    local pol = tmp .. "/badplace.lua"
    local f = assert(io.open(pol, "w"))
    f:write("return {\n  name = 'badplace',\n  score = function(v, ctx)\n" ..
      "    error('no score for ' .. v:name())\n  end,\n}\n")
    f:close()
    -- (the line of the queue policy's file that asked: where it calls ctx:start or
    -- ctx:reserve)
    for _, q in ipairs{"fcfs", "conservative"} do
      local out, rc = sim(("--trace %ssmall.swf --queue %s --policy %s"):format(F, q, pol))
      assert.equal(1, rc)
      assert.matches("^grove sim: placement policy badplace: score hook: " ..
        pol:gsub("%p", "%%%0") .. ":4: no score for [%w]+ %(job 1; queue policy " .. q ..
        " at [^ ]*policies/queues/" .. q .. "%.lua:%d+%)\n$", out)
      local line = tonumber(out:match("%.lua:(%d+)%)\n$"))
      local text = exe.read("policies/queues/" .. q .. ".lua")
      local n = 0
      for l in text:gmatch("[^\n]*\n") do
        n = n + 1
        if n == line then assert.matches("ctx:%a+%(", l) end
      end
    end
  end)

  it("offers the closest queue or placement policy to a name it does not know", function()
    local out, rc = sim("--trace " .. F .. "small.swf --queue esay")
    assert.equal(1, rc)
    assert.matches("^grove sim: no queue policy 'esay' %(did you mean 'easy'%?%) in [^\n]*" ..
      "policies/queues\n$", out)
    out, rc = sim("--trace " .. F .. "small.swf --policy hihg")
    assert.equal(1, rc)
    assert.matches("^grove sim: no policy 'hihg' %(did you mean 'high'%?%) in ", out)
    out, rc = sim("--trace " .. F .. "small.swf --param policy_1=fcsf")
    assert.equal(1, rc)
    assert.matches("^grove sim: policy_1: no queue policy 'fcsf' %(did you mean 'fcfs'%?%) in ",
      out)
    out, rc = run(GROVE .. " query -L spec/fixtures/query/lab.graphml -P lonodx < /dev/null")
    assert.equal(1, rc)
    assert.matches("^grove query: no policy 'lonodx' %(did you mean 'lonode'%?%) in ", out)
  end)

  it("puts the max and 99th percentile wait in the compare table", function()
    for _, q in ipairs{"fcfs", "easy"} do
      local _, rc = sim(("--trace %ssmall.swf --queue %s --quiet --summary %s/m-%s.json")
        :format(F, q, tmp, q))
      assert.equal(0, rc)
    end
    local out, rc = run(("%s sim --compare %s/m-fcfs.json %s/m-easy.json"):format(GROVE, tmp,
      tmp))
    assert.equal(0, rc)
    -- by hand, fcfs waits 0 95 140 140 130, easy 0 95 0 0 130 (the cases above)
    assert.matches("^metric%s+m%-fcfs%s+m%-easy%s+change\n", out)
    assert.matches("\np99 wait %(s%)%s+140%s+130%s+%-7%.1%%\n", out)
    assert.matches("\nmax wait %(s%)%s+140%s+130%s+%-7%.1%%\n", out)
  end)

  it("prints per-user and per-size tables with --by, for a run and a comparison", function()
    local out, rc = sim(("--trace %ssmall.swf --queue easy --by user,size --summary %s/b.json")
      :format(F, tmp))
    assert.equal(0, rc)
    -- users 1 (jobs 1, 3, 7: waits 0, 0, 130), 2 (job 2: 95), 3 (job 4: 0);
    -- bounded slowdowns 1, 1, 430/300 and 145/50
    assert.matches([[

by user (waits in seconds; nodes, racks, domains and stranded cores: means a job):
user  jobs  mean wait  median  p95  p99  max wait  mean bsld  nodes  racks  domains  stranded
1        3       43.3       0  130  130       130      1.144   1.33   1.00     2.67      0.00
2        1       95.0      95   95   95        95      2.900   4.00   1.00     8.00      0.00
3        1        0.0       0    0    0         0      1.000   1.00   1.00     1.00      2.00

by size (waits in seconds; nodes, racks, domains and stranded cores: means a job):
size  jobs  mean wait  median  p95  p99  max wait  mean bsld  nodes  racks  domains  stranded
2        1        0.0       0    0    0         0      1.000   1.00   1.00     1.00      2.00
3-4      2       65.0       0  130  130       130      1.217   1.00   1.00     2.00      0.00
5-8      1        0.0       0    0    0         0      1.000   2.00   1.00     4.00      0.00
9-16     1       95.0      95   95   95        95      2.900   4.00   1.00     8.00      0.00
]], out, 1, true)
    local _, rc1 = sim(("--trace %ssmall.swf --queue fcfs --quiet --summary %s/b-fcfs.json")
      :format(F, tmp))
    assert.equal(0, rc1)
    out, rc = run(("%s sim --compare %s/b-fcfs.json %s/b.json --by user"):format(GROVE, tmp, tmp))
    assert.equal(0, rc)
    -- fcfs: user 1 waits 0, 140, 130; user 3 (job 4) 140
    assert.matches([[

mean wait (s) by user:
user  b-fcfs     b
1       90.0  43.3
2       95.0  95.0
3      140.0   0.0

max wait (s) by user:
user  b-fcfs    b
1        140  130
2         95   95
3        140    0

nodes a job by user:
user  b-fcfs     b
1       1.67  1.33
2       4.00  4.00
3       1.00  1.00
]], out, 1, true)
    assert.is_nil(out:find("by size", 1, true))
    out, rc = sim("--trace " .. F .. "small.swf --by group")
    assert.equal(2, rc)
    assert.equal("grove sim: --by must be user, size or user,size, got 'group'\n" ..
      "Try 'grove sim --help'.\n", out)
  end)

  it("plots the waits' distribution of a run and of several", function()
    for _, q in ipairs{"fcfs", "easy", "conservative"} do
      local _, rc = sim(("--trace %ssmall.swf --queue %s --quiet --summary %s/d-%s.json " ..
        "--plot %s/d-%s"):format(F, q, tmp, q, tmp, q))
      assert.equal(0, rc)
    end
    -- the summary holds the distribution: easy's waits 0 0 0 95 130
    local s = core.json_decode(exe.read(tmp .. "/d-easy.json"))
    assert.same({wait = {0, 95, 130}, fraction = {0.6, 0.8, 1}}, s.wait_cdf)
    local one = exe.read(tmp .. "/d-easy/wait_cdf.svg")
    assert.matches("wait-time distribution, 1 run<", one, 1, true)
    local _, n = one:gsub("<polyline", "")
    assert.equal(1, n)
    local out, rc = run(("%s sim --compare %s/d-fcfs.json %s/d-easy.json %s/d-conservative.json " ..
      "--plot %s/d"):format(GROVE, tmp, tmp, tmp, tmp))
    assert.equal(0, rc, out)
    local svg = exe.read(tmp .. "/d/wait_cdf.svg")
    assert.matches("wait-time distribution, 3 runs<", svg, 1, true)
    _, n = svg:gsub("<polyline", "")
    assert.equal(3, n)
    for _, name in ipairs{"d-fcfs (fcfs)", "d-easy (easy)", "d-conservative (conservative)"} do
      assert.matches(">" .. name .. "<", svg, 1, true)
    end
    for _, f in ipairs{"d/wait_cdf.svg", "d-easy/wait_cdf.svg"} do
      local _, rc2 = run(("rsvg-convert -o %s/w.png %s/%s"):format(tmp, tmp, f))
      assert.equal(0, rc2, f .. " does not render")
      assert.equal("\137PNG", exe.read(tmp .. "/w.png"):sub(1, 4))
    end
    -- a summary without a distribution (an older Grove's) is named, not drawn
    s.wait_cdf = nil
    local f = assert(io.open(tmp .. "/d-old.json", "w"))
    f:write(core.json_encode(s))
    f:close()
    _, rc = run(("%s sim --compare %s/d-fcfs.json %s/d-old.json --plot %s/d2"):format(GROVE, tmp,
      tmp, tmp))
    assert.equal(0, rc)
    svg = exe.read(tmp .. "/d2/wait_cdf.svg")
    _, n = svg:gsub("<polyline", "")
    assert.equal(1, n)
    assert.matches(">d-old (easy) (no distribution in its summary)<", svg, 1, true)
  end)

  it("sizes a cluster from an SWF header when --cluster is omitted, and says so", function()
    local out, rc = run(("%s sim --trace %ssmall.swf --summary %s/hdr.json"):format(GROVE, F,
      tmp))
    assert.equal(0, rc, out)
    -- small.swf says MaxProcs: 16 only: 16 nodes of one core
    assert.matches("^grove sim: no %-%-cluster: 16 nodes of 1 core %(MaxProcs 16, no MaxNodes: " ..
      "a node a processor%) from the header of spec/fixtures/sim/small%.swf\n", out)
    assert.matches("jobs 5 (left out 2, killed 0) on 16 cores", out, 1, true)
    local s = core.json_decode(exe.read(tmp .. "/hdr.json"))
    assert.equal("16 nodes of 1 core (MaxProcs 16, no MaxNodes: a node a processor)",
      s.cluster)
    local function trace(name, header)
      local path = tmp .. "/" .. name
      local fh = assert(io.open(path, "w"))
      fh:write(header, "1 0 -1 10 8 -1 -1 8 20 -1 1 1 -1 -1 1 -1 -1 -1\n",
        "2 1 -1 10 4 -1 -1 4 20 -1 1 1 -1 -1 1 -1 -1 -1\n")
      fh:close()
      return path
    end
    local both = trace("both.swf", "; MaxNodes: 3\n; MaxProcs: 10\n")
    out, rc = run(("%s sim --trace %s --procs-as node --out %s/both.csv"):format(GROVE, both, tmp))
    assert.equal(0, rc, out)
    assert.matches("grove sim: no --cluster: 3 nodes of 4 cores (MaxNodes 3, MaxProcs 10: 10 " ..
      "is not a multiple of 3, so 4 cores a node, 12 in all) from the header of " .. both .. "\n",
      out, 1, true)
    -- --procs-as node: job 1 asks 8 nodes of the 3 and is left out, job 2 too
    assert.matches("jobs 0 (left out 2, killed 0) on 3 nodes", out, 1, true)
    -- read from a pipe: the header comes before the first job, which is kept
    out, rc = run(("cat %s | %s sim --trace - --quiet --summary %s/pipe.json"):format(both, GROVE,
      tmp))
    assert.equal(0, rc, out)
    assert.equal("", out)
    s = core.json_decode(exe.read(tmp .. "/pipe.json"))
    assert.same({2, 12}, {s.jobs, s.units})
    -- no header to size by: the command line is refused
    local none = trace("none.swf", "; Computer: x\n; MaxProcs: -1\n")
    out, rc = run(("%s sim --trace %s"):format(GROVE, none))
    assert.equal(2, rc)
    assert.equal("grove sim: give --cluster FILE (the header of " .. none .. " names no " ..
      "MaxProcs or MaxNodes to size a cluster by)\nTry 'grove sim --help'.\n", out)
    out, rc = run(("%s sim --trace %sjobs.json"):format(GROVE, F))
    assert.equal(2, rc)
    assert.equal("grove sim: give --cluster FILE (a JSON trace has no header to size a " ..
      "cluster by)\nTry 'grove sim --help'.\n", out)
  end)

  it("draws a Gantt chart of a time window, with a legend", function()
    local _, rc = sim(("--trace %ssmall.swf --queue easy --quiet --plot %s/gw " ..
      "--gantt-window 100:160"):format(F, tmp))
    assert.equal(0, rc)
    local svg = exe.read(tmp .. "/gw/gantt.svg")
    -- in [100, 160): jobs 2 (100-150) and 7 (150-450); job 1 ended at 100
    assert.matches("job 2: 100%-150", svg)
    assert.matches("job 7: 150%-450", svg)
    assert.is_nil(svg:find("job 1:", 1, true))
    assert.is_nil(svg:find("job 3:", 1, true))
    assert.matches("killed at its time limit</text>", svg, 1, true)
    local _, rc2 = run(("rsvg-convert -o %s/g.png %s/gw/gantt.svg"):format(tmp, tmp))
    assert.equal(0, rc2)
    local out3, rc3 = sim(("--trace %ssmall.swf --gantt-window 9:3"):format(F))
    assert.equal(2, rc3)
    assert.matches("--gantt-window must be FROM:TO", out3, 1, true)
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
    assert.matches("^Usage: grove sim %[%-%-cluster FILE%] %-%-trace FILE", out)
    local out2 = run(GROVE .. " sim --help")
    assert.equal(out, out2)
    out, rc = run(GROVE .. " sim --trace x")
    assert.equal(1, rc)
    assert.equal("grove sim: x: No such file or directory\n", out)
    out, rc = sim("--trace x --procs-as socket")
    assert.equal(2, rc)
    assert.matches("--procs-as must be core, fewest, whole or node, got 'socket'", out, 1, true)
    out, rc = run(GROVE .. " sim --generate 5")
    assert.equal(2, rc)
    assert.matches("needs --procs P", out, 1, true)
    out, rc = run(GROVE .. " sim --generate 5 --procs 16 --plot " .. tmp .. "/nothing")
    assert.equal(2, rc)
    assert.equal("grove sim: --generate writes a trace to stdout and runs nothing: --plot is "
      .. "for a run (grove sim --trace FILE ...)\nTry 'grove sim --help'.\n", out)
  end)
end)
