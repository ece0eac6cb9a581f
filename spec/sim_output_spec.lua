-- grove sim --out in the field's formats, --skip-bad, processors placed as the
-- fewest nodes (--procs-as fewest), the start estimates measured and Batsim
-- workloads read as traces, on the command line.
--
-- Batsim's jobs.csv is checked against what evalys reads
-- (evalys/jobset.py, JobSet.from_csv: pandas.read_csv with
-- allocated_resources through procset's ProcSet.from_str): the columns of
-- JobSet.columns, and allocated_resources an interval set of integer ids,
-- "a-b" or "a" separated by one space, ascending and disjoint, whose
-- length is the units the job held (evalys's proc_alloc).
local exe = require("exe_helper")
local GROVE, run = exe.GROVE, exe.run
local F = "spec/fixtures/sim/"

local tmp = exe.scratch_dir()

-- evalys's JobSet.columns, the columns it reads by name
local EVALYS = {"job_id", "workload_name", "submission_time", "requested_number_of_resources",
  "requested_time", "success", "starting_time", "execution_time", "finish_time",
  "waiting_time", "turnaround_time", "stretch", "allocated_resources"}

local csv = exe.csv

-- The ids of an interval set as procset reads it, or nil, reason.
local function procset(s)
  local ids, last = {}, -1
  if s == "" then return ids end
  for tok in (s .. " "):gmatch("(.-) ") do
    local a, b = tok:match("^(%d+)%-(%d+)$")
    if not a then a = tok:match("^(%d+)$"); b = a end
    if not a then return nil, "not an interval: '" .. tok .. "'" end
    a, b = tonumber(a), tonumber(b)
    if a > b or a <= last then return nil, "not ascending and disjoint: " .. s end
    for i = a, b do ids[#ids + 1] = i end
    last = b
  end
  return ids
end

-- Four jobs on the fixture's 4 nodes of 4 cores, a garbage line among them.
local TRACE = tmp .. "/p.swf"
local f = assert(io.open(TRACE, "w"))
f:write([[
; MaxProcs: 16
1 0 -1 100 2 -1 -1 2 200 -1 1 1 -1 -1 1 -1 -1 -1
this is garbage
2 1 -1 100 4 -1 -1 4 200 -1 1 1 -1 -1 1 -1 -1 -1
3 2 -1 50 2 -1 -1 2 100 -1 1 2 -1 -1 1 -1 -1 -1
4 3 -1 60 12 -1 -1 12 100 -1 1 2 -1 -1 1 -1 -1 -1
]])
f:close()

local function sim(args)
  return run(GROVE .. " sim --cluster " .. F .. "cluster.lua --trace " .. TRACE ..
    " --skip-bad " .. args)
end

describe("grove sim --out", function()
  it("writes Batsim's jobs.csv as evalys reads it, the cores held as integer ids", function()
    local out, rc = sim("--queue easy --out batsim=" .. tmp .. "/b.csv")
    assert.equal(0, rc, out)
    local head, rows = csv(tmp .. "/b.csv")
    local have = {}
    for _, c in ipairs(head) do have[c] = true end
    for _, c in ipairs(EVALYS) do assert.is_true(have[c], "no column " .. c) end
    assert.equal(4, #rows)
    local held = {}
    for _, r in ipairs(rows) do
      assert.matches("^p!%d+$", r.job_id)
      local ids = assert(procset(r.allocated_resources))
      assert.equal(tonumber(r.requested_number_of_resources), #ids)
      local s, e = tonumber(r.starting_time), tonumber(r.finish_time)
      assert.equal(e, s + tonumber(r.execution_time))
      assert.equal(tonumber(r.waiting_time), s - tonumber(r.submission_time))
      for _, i in ipairs(ids) do
        assert.is_true(i >= 0 and i < 16)
        -- no core held by two jobs at once
        for _, o in ipairs(held[i] or {}) do assert.is_true(e <= o[1] or s >= o[2]) end
        held[i] = held[i] or {}
        table.insert(held[i], {s, e})
      end
    end
  end)

  it("checks interval sets the way procset does", function()
    assert.same({0, 1, 2, 5, 7, 8}, procset("0-2 5 7-8"))
    assert.is_nil(procset("0-2  5"))
    assert.is_nil(procset("5 0-2"))
    assert.is_nil(procset("2-1"))
  end)

  it("writes the simulated schedule as SWF, waits and starts filled", function()
    local out, rc = sim("--queue easy --out " .. tmp .. "/s.swf")
    assert.equal(0, rc, out)
    -- job 4 (12 cores) waits for job 1 to end (100): 97 s
    local text = exe.read(tmp .. "/s.swf")
    assert.matches("\n4 3 97 60 12 %-1 %-1 12 100 ", text)
    -- and it reads back as a trace
    out, rc = run(GROVE .. " sim trace " .. tmp .. "/s.swf")
    assert.equal(0, rc, out)
  end)
end)

describe("grove sim --skip-bad", function()
  it("skips a malformed line, counts it and names it; without it the run stops", function()
    local out, rc = sim("")
    assert.equal(0, rc)
    assert.matches("skipped: " .. TRACE .. ":3:1: field 1 (job id) is not a number: 'this'",
      out, 1, true)
    assert.matches(TRACE .. ": 1 malformed line skipped (--skip-bad)", out, 1, true)
    out, rc = run(GROVE .. " sim --cluster " .. F .. "cluster.lua --trace " .. TRACE)
    assert.equal(1, rc)
    assert.matches(TRACE .. ":3:1: field 1 (job id) is not a number: 'this'", out, 1, true)
    out, rc = run(GROVE .. " sim trace " .. TRACE .. " --skip-bad --out " .. tmp .. "/c.swf")
    assert.equal(0, rc, out)
    assert.matches("malformed lines skipped: 1 (the first: " .. TRACE .. ":3:1: ", out, 1, true)
  end)
end)

describe("grove sim --procs-as fewest", function()
  it("asks the fewest nodes, so a job of one node's cores spans one node", function()
    -- processors as cores: job 2's 4 cores follow job 1's 2 on n0 and span
    -- two nodes; as the fewest nodes it takes one whole node, n1
    local by = {}
    for _, pa in ipairs{"core", "fewest"} do
      local out, rc = sim("--queue easy --procs-as " .. pa .. " --out " .. tmp .. "/f-" .. pa ..
        ".csv --out batsim=" .. tmp .. "/f-" .. pa .. ".b.csv")
      assert.equal(0, rc, out)
      local _, rows = csv(tmp .. "/f-" .. pa .. ".csv")
      by[pa] = {}
      for _, r in ipairs(rows) do by[pa][tonumber(r.id)] = r end
      local _, b = csv(tmp .. "/f-" .. pa .. ".b.csv")
      for _, r in ipairs(b) do
        by[pa][tonumber(r.job_id:match("%d+$"))].alloc = r.allocated_resources
      end
    end
    assert.same({"n[0-1]", "2", "2-5"}, {by.core[2].hosts, by.core[2].nodes, by.core[2].alloc})
    assert.same({"n1", "1", "4-7", "2"}, {by.fewest[2].hosts, by.fewest[2].nodes,
      by.fewest[2].alloc, by.fewest[2].domains})
    -- job 4: 12 cores, 3 nodes of 4 under fewest
    assert.equal("3", by.fewest[4].nodes)
  end)
end)

describe("grove sim start estimates", function()
  it("records the estimates a job was shown and how far they were from its start", function()
    local out, rc = run(GROVE .. " sim --cluster " .. F .. "cluster.lua --trace " .. F ..
      "small.swf --queue conservative --out " .. tmp .. "/e.csv --summary " .. tmp .. "/e.json")
    assert.equal(0, rc, out)
    local _, rows = csv(tmp .. "/e.csv")
    local by = {}
    for _, r in ipairs(rows) do by[tonumber(r.id)] = r end
    -- job 2 (16 cores) waits behind job 1 (estimate 200): shown 200,
    -- started at 100 when job 1 ended early.  Job 7 (4 cores, 400 s)
    -- cannot run before job 2's reservation: shown 200 + 60; when job 2
    -- starts at 100, 160; it starts at 150, job 2's real end
    assert.same({"100", "200", "200", "1"}, {by[2].start, by[2].predicted_first,
      by[2].predicted_last, by[2].predictions})
    assert.same({"150", "260", "160", "2"}, {by[7].start, by[7].predicted_first,
      by[7].predicted_last, by[7].predictions})
    assert.equal("", by[1].predicted_first)
    -- errors: first 100 and 110 s, last 100 and 10 s, all within 5 minutes
    local s = require("grove.core").json_decode(exe.read(tmp .. "/e.json"))
    assert.same({2, 3, 100, 110, 10, 100, 1},
      {s.est_jobs, s.est_none, s.est_first_median, s.est_first_p90, s.est_last_median,
       s.est_last_p90, s.est_first_within})
    assert.matches("start estimates: 2 jobs were shown one (3 started without)", out, 1, true)
  end)
end)

describe("grove sim --trace a Batsim workload", function()
  it("reads delay and composed profiles, keeps the workload's ids, sizes the machine", function()
    local wl = tmp .. "/wl.json"
    local fh = assert(io.open(wl, "w"))
    fh:write([[
{"nb_res": 4,
 "jobs": [
  {"id": "w0!1", "subtime": 0, "walltime": 100, "res": 4, "profile": "d50"},
  {"id": "w0!2", "subtime": 10, "walltime": 200, "res": 2, "profile": "twice"},
  {"id": "w0!3", "subtime": 20, "walltime": 100, "res": 1, "profile": "ph"}
 ],
 "profiles": {
  "d50": {"type": "delay", "delay": 50},
  "twice": {"type": "composed", "repeat": 2, "seq": ["d50", "d50"]},
  "ph": {"type": "parallel_homogeneous", "cpu": 1e9, "com": 0}
 }}
]])
    fh:close()
    local out, rc = run(GROVE .. " sim --trace " .. wl .. " --out batsim=" .. tmp .. "/wl.csv")
    assert.equal(0, rc, out)
    assert.matches("no --cluster: 4 nodes of 1 core (nb_res 4: one core a node)", out, 1, true)
    assert.matches(wl .. ":5: job 3 left out: profile 'ph' of type 'parallel_homogeneous' " ..
      "gives no run time", out, 1, true)
    local _, rows = csv(tmp .. "/wl.csv")
    -- job 2's composed profile: 2 x (50 + 50); it waits for job 1 (50 s)
    assert.same({"w0!1", "w0", "0.000000", "50.000000", "0-3"}, {rows[1].job_id,
      rows[1].workload_name, rows[1].starting_time, rows[1].execution_time,
      rows[1].allocated_resources})
    assert.same({"w0!2", "50.000000", "200.000000", "40.000000"}, {rows[2].job_id,
      rows[2].starting_time, rows[2].execution_time, rows[2].waiting_time})
    assert.equal(2, #rows)
  end)
end)

describe("grove.sim.output.open", function()
  it("refuses an option it does not know, and takes every one it does", function()
    local output = require("grove.sim.output")
    local spec = {format = "swf", path = tmp .. "/o.swf"}
    assert.has_error(function() output.open(spec, {haeder = {}}) end,
      "bad argument #2 to 'open' (unknown option 'haeder' (did you mean 'header'?))")
    local w = assert(output.open(spec, {columns = {"id"}, workload = "w", header = {"x"},
      low = function() return nil end}))
    w:close()
    assert.equal("; x\n", exe.read(tmp .. "/o.swf"))
  end)
end)
