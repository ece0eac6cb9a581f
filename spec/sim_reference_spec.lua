-- grove sim against a reference: on a machine of interchangeable
-- processors, every job's start time under fcfs, easy and conservative
-- must be what the definitions in docs/sim.md give.  The reference below
-- is a processor-count model in plain Lua that follows those definitions
-- literally (conservative plans the whole queue afresh at every pass); it
-- shares no code with grove.sim.
--
-- Only start times are compared here; metrics and outputs are tested in
-- sim_spec.lua and sim_cli_spec.lua.
local core = require("grove.core")
local sim = require("grove.sim")
local gen = require("grove.sim.gen")
local helper = require("sim_helper")
local tsv = require("tsv_helper")


-- ---- the reference -------------------------------------------------------------

local function by_submit(a, b)
  if a.submit ~= b.submit then return a.submit < b.submit end
  return a.id < b.id
end

-- Usage of the processors over [s, e) by a list of {s =, e =, p =}.
local function fits(plan, P, s, e, p)
  -- the peak inside [s, e) is at s or at some interval start inside it
  local points = {s}
  for _, x in ipairs(plan) do
    if x.s > s and x.s < e then points[#points + 1] = x.s end
  end
  for _, t in ipairs(points) do
    local used = 0
    for _, x in ipairs(plan) do
      if x.s <= t and t < x.e then used = used + x.p end
    end
    if used + p > P then return false end
  end
  return true
end

local function earliest(plan, P, now, est, p)
  if p > P then return nil end -- more than the nodes in use hold
  local cands = {now}
  for _, x in ipairs(plan) do
    if x.e > now then cands[#cands + 1] = x.e end
  end
  table.sort(cands)
  for _, s in ipairs(cands) do
    if fits(plan, P, s, s + est, p) then return s end
  end
  error("reference: no start found")
end

-- Start times by job id under policy on P processors, and end times.  A
-- job whose run is longer than its estimate (its time limit) is killed at
-- the estimate under walltime "kill" (the default), and runs its whole
-- time under "extend", its estimate then raised to the run time.
--
-- ev (optional): node events on a machine of one processor a node (or
-- whole nodes): {events = {{t =, action = "drain" | "up", nodes = {i,
-- ...}}, ...} in time order, hosts = {[job id] = {i, ...}}}, the nodes
-- each job ran on (grove sim's placement: the model counts, it does not
-- place).  A node drained holds no processor for a new job; a job running
-- there counts only its processors on the nodes in use.
local function reference(jobs, P, policy, walltime, ev)
  local out, nout, nextev = {}, 0, 1
  local function usable(r)
    local u = r.p
    if nout > 0 then
      for _, n in ipairs(ev.hosts[r.id] or {}) do
        if out[n] then u = u - 1 end
      end
    end
    return u
  end
  local pending = {}
  for _, j in ipairs(jobs) do
    local run = j.run == 0 and 1 or j.run
    local est = (j.estimate and j.estimate > 0) and j.estimate or run
    if est < run then
      if walltime == "extend" then est = run else run = est end
    end
    if j.procs > 0 and j.procs <= P then
      pending[#pending + 1] = {id = j.id, submit = j.submit, run = run, est = est, p = j.procs}
    end
  end
  table.sort(pending, by_submit)
  local start, ends = {}, {}
  local queue, running = {}, {}
  local t, nexta = 0, 1
  local planned = {}
  while nexta <= #pending or #queue > 0 or #running > 0 do
    -- the next instant: a completion, an arrival, a planned start
    local nt = math.huge
    for _, r in ipairs(running) do nt = math.min(nt, r.e) end
    if pending[nexta] then nt = math.min(nt, pending[nexta].submit) end
    for _, s in pairs(planned) do if s > t then nt = math.min(nt, s) end end
    if ev and ev.events[nextev] then nt = math.min(nt, ev.events[nextev].t) end
    if nt == math.huge then break end -- what waits can never run
    t = nt
    -- completions
    local still = {}
    for _, r in ipairs(running) do
      if r.e > t then still[#still + 1] = r end
    end
    running = still
    -- node events
    while ev and ev.events[nextev] and ev.events[nextev].t == t do
      local e = ev.events[nextev]
      for _, n in ipairs(e.nodes) do
        local o = e.action ~= "up"
        if o ~= (out[n] == true) then nout = nout + (o and 1 or -1) end
        out[n] = o or nil
      end
      nextev = nextev + 1
    end
    local C = P - nout
    -- arrivals
    while pending[nexta] and pending[nexta].submit == t do
      queue[#queue + 1] = pending[nexta]
      nexta = nexta + 1
    end
    local function free()
      local used = 0
      for _, r in ipairs(running) do used = used + usable(r) end
      return C - used
    end
    local function begin(j)
      start[j.id] = t
      ends[j.id] = t + j.run
      running[#running + 1] = {id = j.id, e = t + j.run, est_e = t + j.est, p = j.p}
    end
    local left = {}
    if policy == "fcfs" or policy == "easy" then
      local i = 1
      while queue[i] and queue[i].p <= free() do
        begin(queue[i])
        i = i + 1
      end
      local head = queue[i]
      if head then left[#left + 1] = head end
      if head and policy == "easy" then
        -- shadow time: running jobs end by their estimates
        local by_end = {}
        for _, r in ipairs(running) do by_end[#by_end + 1] = r end
        table.sort(by_end, function(a, b) return a.est_e < b.est_e end)
        local avail, shadow = free(), t
        local k = 1
        if head.p > C then
          shadow = math.huge -- it never fits while the nodes are out: nothing to protect
        end
        while avail < head.p and shadow < math.huge do
          shadow = by_end[k].est_e
          while by_end[k] and by_end[k].est_e == shadow do
            avail = avail + usable(by_end[k])
            k = k + 1
          end
        end
        local extra = avail - head.p
        for m = i + 1, #queue do
          local j = queue[m]
          if j.p <= free() and (t + j.est <= shadow or j.p <= extra) then
            if t + j.est > shadow then extra = extra - j.p end
            begin(j)
          else
            left[#left + 1] = j
          end
        end
      elseif head then
        for m = i + 1, #queue do left[#left + 1] = queue[m] end
      end
    else -- conservative: every job the earliest start given the earlier ones
      local plan = {}
      for _, r in ipairs(running) do plan[#plan + 1] = {s = t, e = r.est_e, p = usable(r)} end
      planned = {}
      for _, j in ipairs(queue) do
        local s = earliest(plan, C, t, j.est, j.p)
        if s then plan[#plan + 1] = {s = s, e = s + j.est, p = j.p} end
        if not s then
          left[#left + 1] = j
        elseif s == t then
          begin(j)
        else
          planned[j.id] = s
          left[#left + 1] = j
        end
      end
    end
    queue = left
  end
  return start, ends
end

-- ---- grove sim ------------------------------------------------------------------

-- nodes x cores of interchangeable processors
local function machine(nodes, cores)
  return helper.machine("m", 1, nodes, 1, cores)
end

local function simulate(jobs, graph, queue, procs_as, policy, walltime, params)
  local starts, left, ends = {}, {}, {}
  local s = assert(sim.new{graph = graph, queue = queue, procs_as = procs_as,
    policy = policy or "first", walltime = walltime, params = params,
    out = function(row) starts[row.id], ends[row.id] = row.start, row["end"] end,
    report = function(job) left[#left + 1] = job.id end})
  s:feed(sim.trace.from_list(jobs))
  s:run()
  return starts, left, s, ends
end

-- The reference's starts (want: id -> time) against grove sim's (got),
-- and their ends too when want_end and got_end are given: the first five
-- differences fail the test; the number of jobs compared.
local function same_starts(want, got, want_end, got_end)
  local n, bad = 0, {}
  for id, t in pairs(want) do
    n = n + 1
    if got[id] ~= t then
      bad[#bad + 1] = ("job %d: reference %d, grove sim %s"):format(id, t, tostring(got[id]))
    elseif want_end and got_end[id] ~= want_end[id] then
      bad[#bad + 1] = ("job %d: reference ends %d, grove sim %s"):format(id, want_end[id],
        tostring(got_end[id]))
    end
  end
  for id in pairs(got) do
    if want[id] == nil then
      bad[#bad + 1] = ("job %d: started, reference left it out"):format(id)
    end
  end
  table.sort(bad)
  assert.are.same({}, {table.unpack(bad, 1, math.min(#bad, 5))})
  return n
end

-- queue: the reference's policy, or {reference policy, grove queue,
-- params}.
local function compare(jobs, nodes, cores, queue, procs_as, policy, walltime)
  local P = procs_as == "node" and nodes or nodes * cores
  local ref, q, params = queue, queue, nil
  if type(queue) == "table" then ref, q, params = queue[1], queue[2], queue[3] end
  local want, want_end = reference(jobs, P, ref, walltime)
  local got, _, _, got_end = simulate(jobs, machine(nodes, cores), q, procs_as, policy,
    walltime, params)
  return same_starts(want, got, want_end, got_end)
end

local function generated(n, procs, seed, ef, af)
  local g = gen.new{procs = procs, seed = seed, estimate_factor = ef, arrival_factor = af}
  local jobs = {}
  for j in g:jobs(n) do jobs[#jobs + 1] = j end
  return jobs
end

local QUEUES = {"fcfs", "easy", "conservative"}

describe("grove sim against the processor-count reference", function()
  -- Hand-made traces for the edge cases; 8 processors (2 nodes x 4):
  -- {name =, jobs =} in the order of the table, and cases[name] = jobs.
  local cases, order = {}, {}
  for _, r in ipairs(tsv.rows("spec/fixtures/sim/reference_cases.tsv", 6)) do
    local name = r[1]
    if not cases[name] then
      cases[name] = {}
      order[#order + 1] = name
    end
    local jobs = cases[name]
    jobs[#jobs + 1] = {id = tonumber(r[2]), submit = tonumber(r[3]), run = tonumber(r[4]),
      estimate = tonumber(r[5]), procs = tonumber(r[6])}
  end
  for _, name in ipairs(order) do
    for _, q in ipairs(QUEUES) do
      it(("%s: %s"):format(q, name), function()
        assert.is_true(compare(cases[name], 2, 4, q, "core") >= 2)
      end)
    end
  end

  it("leaves out jobs too big or without processors, and says why", function()
    local why = {}
    local s = assert(sim.new{graph = machine(2, 4), queue = "fcfs",
      report = function(job, reason) why[job.id] = reason end})
    s:feed(sim.trace.from_list(cases["jobs too big or without processors"]))
    s:run()
    assert.are.same({[1] = "needs 9 cores, the machine has 8"}, why)
    assert.are.equal(1, s.left_out)
  end)

  -- Generated traces: loaded machines, estimates up to 4x the run time.
  for _, q in ipairs(QUEUES) do
    for _, seed in ipairs{1, 2, 3} do
      it(("%s: a generated trace of 150 jobs on 32 cores, seed %d"):format(q, seed), function()
        local jobs = generated(150, 32, seed, 1 + seed, 0.02)
        assert.are.equal(150, compare(jobs, 4, 8, q, "core"))
      end)
    end
    it(("%s: a generated trace on 16 whole nodes, low policy"):format(q), function()
      local jobs = generated(120, 16, 7, 3, 0.02)
      assert.are.equal(120, compare(jobs, 16, 2, q, "node", "low"))
    end)
  end

  -- Under-estimated jobs: every third job asks for half its run time.
  local function underestimated(seed)
    local jobs = generated(150, 32, seed, 2, 0.02)
    for i, j in ipairs(jobs) do
      if i % 3 == 0 and j.run >= 2 then j.estimate = j.run // 2 end
    end
    return jobs
  end
  for _, q in ipairs(QUEUES) do
    for _, wt in ipairs{"kill", "extend"} do
      it(("%s: walltime %s of under-estimated jobs, 150 jobs on 32 cores"):format(q, wt),
        function()
          assert.are.equal(150, compare(underestimated(4), 4, 8, q, "core", nil, wt))
        end)
    end
  end

  -- Jobs submitted together in any id order: easy's backfill walks the
  -- queue in (submit, id) order, whatever order the trace lists them in.
  for _, seed in ipairs{1, 2, 3} do
    it(("easy: jobs submitted together in shuffled id order, 150 jobs on 32 cores, seed %d")
      :format(seed), function()
      local jobs = generated(150, 32, seed, 1 + seed, 0.02)
      -- groups of five share a submit time; ids run backwards in a group
      for i, j in ipairs(jobs) do
        j.submit = jobs[i - (i - 1) % 5].submit
        j.id = 1000 + (i - 1) - 2 * ((i - 1) % 5)
      end
      assert.are.equal(150, compare(jobs, 4, 8, "easy", "core"))
      -- (on 16 nodes the jobs larger than 16 are left out by both)
      assert.is_true(compare(jobs, 16, 2, "easy", "node", "low") > 100)
    end)
  end

  -- The backfill policy's reservation depth: 1 is easy, all is conservative.
  for _, c in ipairs{{"easy", 1}, {"conservative", 1000000}} do
    for _, seed in ipairs{1, 2, 3} do
      it(("backfill with depth %d gives %s's starts, 150 jobs on 32 cores, seed %d")
        :format(c[2], c[1], seed), function()
        local jobs = generated(150, 32, seed, 1 + seed, 0.02)
        assert.are.equal(150, compare(jobs, 4, 8, {c[1], "backfill", {depth = c[2]}}, "core"))
      end)
    end
    it(("backfill with depth %d gives %s's starts on 32 whole nodes, jobs killed at their " ..
      "limit"):format(c[2], c[1]), function()
      assert.are.equal(150, compare(underestimated(5), 32, 1, {c[1], "backfill",
        {depth = c[2]}}, "node", "low"))
    end)
  end

  it("backfill with depth 2 differs from both, and its interval delays backfilling", function()
    local jobs = generated(150, 32, 2, 3, 0.02)
    local g = machine(4, 8)
    local d1 = simulate(jobs, g, "backfill", "core", nil, nil, {depth = 1})
    local d2 = simulate(jobs, machine(4, 8), "backfill", "core", nil, nil, {depth = 2})
    local dall = simulate(jobs, machine(4, 8), "backfill", "core", nil, nil, {depth = 1000})
    local n1, nall = 0, 0
    for id, t in pairs(d2) do
      if d1[id] ~= t then n1 = n1 + 1 end
      if dall[id] ~= t then nall = nall + 1 end
    end
    assert.is_true(n1 > 0 and nall > 0)
    -- an interval of 600 s: backfilled jobs start only on the 600 s grid,
    -- jobs in order start at any time
    local rows = {}
    local s = assert(sim.new{graph = machine(2, 4), queue = "backfill",
      params = {interval = 600}, out = function(r) rows[r.id] = r end})
    s:feed(sim.trace.from_list{
      {id = 1, submit = 0, run = 1000, estimate = 1000, procs = 4},
      {id = 2, submit = 10, run = 100, estimate = 100, procs = 8},
      {id = 3, submit = 20, run = 100, estimate = 100, procs = 2},
      {id = 4, submit = 1000, run = 10, estimate = 10, procs = 8}})
    s:run()
    -- by hand: 1 starts at 0 (the first pass is a backfill pass, due
    -- next at 600); 2 waits for 1 (1000); 3 would backfill (it ends by
    -- 1000) but only at the pass of 600; 4 follows 2 in order, at 1100
    assert.same({0, 1000, 600, 1100}, {rows[1].start, rows[2].start, rows[3].start,
      rows[4].start})
  end)

  it("kills a job at its time limit by default, and extends it when told", function()
    local jobs = {{id = 1, submit = 0, run = 100, estimate = 40, procs = 8},
      {id = 2, submit = 5, run = 10, estimate = 10, procs = 8}}
    local rows = {}
    local s = assert(sim.new{graph = machine(2, 4), queue = "fcfs",
      out = function(row) rows[row.id] = row end})
    s:feed(sim.trace.from_list(jobs))
    s:run()
    -- by hand: job 1 is killed at 40, job 2 starts then and ends at 50
    assert.are.same({0, 40, 40, "timeout"}, {rows[1].start, rows[1]["end"], rows[1].run,
      rows[1].state})
    assert.are.same({40, 50, "done"}, {rows[2].start, rows[2]["end"], rows[2].state})
    assert.are.equal(1, s:result().killed_walltime)
    local starts = simulate(jobs, machine(2, 4), "fcfs", "core", nil, "extend")
    assert.are.same({[1] = 0, [2] = 100}, starts)
  end)

  -- Node events: nodes drained and returned, and drained for good, on a
  -- machine of one processor a node (core slots) and of whole nodes; the
  -- reference counts the processors on the nodes in use, each job's
  -- nodes taken from grove sim's placement.
  local function with_events(jobs, nodes, cores, queue, procs_as, policy, events)
    local hosts, starts = {}, {}
    local s = assert(sim.new{graph = machine(nodes, cores), queue = queue,
      procs_as = procs_as, policy = policy or "first",
      out = function(row)
        starts[row.id] = row.start
        local list = {}
        if row.hosts ~= "" then
          local hl = core.hostlist(row.hosts)
          for k = 1, #hl do list[#list + 1] = tonumber(hl[k]:match("%d+$")) + 1 end
        end
        hosts[row.id] = list
      end})
    s:feed(sim.trace.from_list(jobs))
    local evs = {}
    for _, e in ipairs(events) do
      s:node_event{time = e[1], action = e[2], node = e[3]}
      local idx = {}
      local hl = core.hostlist(e[3])
      for k = 1, #hl do idx[#idx + 1] = tonumber(hl[k]:match("%d+$")) + 1 end
      evs[#evs + 1] = {t = e[1], action = e[2], nodes = idx}
    end
    assert(s:run())
    local want = reference(jobs, nodes, queue, nil, {events = evs, hosts = hosts})
    return same_starts(want, starts)
  end
  for _, q in ipairs(QUEUES) do
    it(("%s: nodes drained and returned, and drained for good, 150 jobs on 16 one-core nodes")
      :format(q), function()
      local jobs = generated(150, 16, 3, 3, 0.02)
      local last = jobs[#jobs].submit
      local n = with_events(jobs, 16, 1, q, "core", nil, {
        {last // 5, "drain", "n[0-3]"}, {last // 3, "up", "n[0-3]"},
        {last // 2, "drain", "n[10-11]"}})
      assert.is_true(n > 100)
    end)
    it(("%s: nodes drained and returned in two steps, 120 jobs on 16 whole nodes, low policy")
      :format(q), function()
      local jobs = generated(120, 16, 8, 2, 0.02)
      local last = jobs[#jobs].submit
      local n = with_events(jobs, 16, 2, q, "node", "low", {
        {last // 4, "drain", "n[2-7]"}, {last // 2, "up", "n[2-5]"},
        {last // 2 + 600, "up", "n[6-7]"}})
      assert.is_true(n > 100)
    end)
  end

  -- ctx:replan() is ctx:cancel() and a ctx:reserve of each waiting job in
  -- turn: conservative written that way gives the same starts and nodes.
  it("ctx:replan gives what a cancel and a reserve of each job give", function()
    local by_hand = assert(sim.queue.parse([[
return {name = "by_hand", schedule = function(ctx)
  if ctx:changed() then ctx:cancel() end
  local now = ctx:clock()
  for _, job in ipairs(ctx:queue()) do
    if job.reserved == now then ctx:start(job)
    elseif not job.reserved then ctx:reserve(job) end
  end
end}]], "by_hand"))
    for _, c in ipairs{{"core", 4, 8, nil, 32}, {"node", 16, 2, "low", 16}} do
      local jobs = generated(150, c[5], 6, 3, 0.02)
      local rows = {}
      for k, q in ipairs{"conservative", by_hand} do
        rows[k] = {}
        local s = assert(sim.new{graph = machine(c[2], c[3]), queue = q, procs_as = c[1],
          policy = c[4], out = function(r) rows[k][r.id] = r.start .. " " .. r.hosts end})
        s:feed(sim.trace.from_list(jobs))
        assert(s:run())
      end
      assert.are.same(rows[2], rows[1])
      assert.is_true(#jobs == 150)
    end
  end)

  it("the reference tells the policies apart on a loaded machine", function()
    local jobs = generated(150, 32, 2, 3, 0.02)
    local f, e, c = reference(jobs, 32, "fcfs"), reference(jobs, 32, "easy"),
      reference(jobs, 32, "conservative")
    local df, dc = 0, 0
    for id, t in pairs(f) do
      if e[id] ~= t then df = df + 1 end
      if c[id] ~= e[id] then dc = dc + 1 end
    end
    assert.is_true(df > 10)
    assert.is_true(dc > 0)
  end)
end)
