-- A misspelt name fails at once, saying what, where and the closest name
-- (grove.suggest's "did you mean"): resource types a policy reads (keys,
-- ctx, a view's aggregate), a jobspec names or a cluster maker makes, and
-- the keyword-like names a user types (policy fields, DSL options, module
-- fields, writer formats, match modes, sim options).  A type the graph has
-- with nothing free still reads 0, and every object stays as it was.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local grove = require("grove")
local core = grove.core
local expect = require("expect")
local R = grove.cluster.resources

-- 2 racks of 2 nodes of 2 sockets of 2 cores; every node has a gpu
local function machine()
  return grove.cluster "c" {
    R.rack(2) { R.node(2) { R.socket(2) { R.core(2) }, R.gpu(1) } } }
end

-- The same without gpus: a type of the standard list the graph lacks.
local function cpu_machine()
  return grove.cluster "c" { R.rack(2) { R.node(2) { R.socket(2) { R.core(2) } } } }
end

local ONE_CORE = grove.jobspec { tasks = 1, cores_per_task = 1 }
local ONE_NODE = grove.jobspec { nodes = 1 }

local function policy(text)
  return assert(core.policy_parse(text, "mine.lua"))
end

-- What the graph and the matcher hold: every vertex's free units and the
-- jobs, to show a failed match left them as they were.
local function state(g, m)
  local out = {}
  for _, v in ipairs(g:find("*")) do
    out[#out + 1] = v:path() .. "=" .. v:available()
  end
  local jobs = {}
  for _, j in ipairs(m:jobs()) do jobs[#jobs + 1] = j.id .. ":" .. j.state end
  return table.concat(out, " ") .. " | " .. table.concat(jobs, " ")
end

-- m:match(request) under the policy text fails with ECANCELED and this
-- message, and leaves the graph and the matcher as they were.
local function hook_fails(g, text, request, message)
  local m = core.matcher(g)
  assert(m:match(ONE_CORE)) -- a job to keep
  assert(m:set_policy(policy(text)))
  local before = state(g, m)
  expect.fails("ECANCELED", message, m:match(request))
  assert.equal(before, state(g, m))
  m:close()
end

-- The error of f, raised at the line f runs on: "LINE: message".
local function raised(f)
  local ok, err = pcall(f)
  assert.is_false(ok)
  return (err:gsub("^spec/typo_spec%.lua:", ""))
end

-- The line this is called on.
local function here() return debug.getinfo(2, "l").currentline end

local TYPES = "the graph has cluster, core, gpu, node, rack, socket"

describe("a resource type a policy reads", function()
  it("keys['free:TYPE'] raises on a type the graph does not have, at the hook's line", function()
    hook_fails(machine(), [[
      return { score_types = "node", scores = function(cands, ctx, keys)
        local free = keys["free:gpus"]
        local s = {}
        for i = 1, #cands do s[i] = free[i] end
        return s end }]], ONE_NODE,
      "policy mine: scores hook: mine.lua:2: keys[\"free:gpus\"]: unknown resource type "
      .. "'gpus' (did you mean 'gpu'?): " .. TYPES)
  end)

  it("keys['free:TYPE'] of a type the graph has with nothing free reads 0", function()
    local g = machine()
    local m = core.matcher(g)
    -- every gpu taken: free:gpu reads 0 everywhere, and a standard type
    -- this graph lacks (ssd) reads 0 too
    for _ = 1, 4 do assert(m:match(grove.jobspec { tasks = 1, cores_per_task = 1,
      gpus_per_task = 1 })) end
    assert(m:set_policy(policy([[
      return { score_types = "node", scores = function(cands, ctx, keys)
        local gpu, ssd = keys["free:gpu"], keys["free:ssd"]
        local s = {}
        for i = 1, #cands do
          assert(gpu[i] == 0 and ssd[i] == 0, "nothing free reads 0")
          s[i] = 0
        end
        return s end }]])))
    assert(m:match(ONE_NODE))
  end)

  it("ctx.total, ctx.found, ctx.need and ctx.slot raise on a type the graph does not have",
    function()
    for _, field in ipairs { "total", "found", "need", "slot" } do
      hook_fails(machine(), ([[
        return { score = function(v, ctx)
          return ctx.%s.gpus or 0 end }]]):format(field),
        grove.jobspec { nodes = 1, tasks_per_node = 1, cores_per_task = 2 },
        ("policy mine: score hook: mine.lua:2: ctx.%s has no type 'gpus' (did you mean "
          .. "'gpu'?): the request asks for node, core, and the graph has no type 'gpus'")
          :format(field))
    end
  end)

  it("ctx.total of a type of the graph the request does not name reads nil", function()
    local m = core.matcher(machine())
    assert(m:set_policy(policy([[
      return { score = function(v, ctx)
        assert(ctx.total.gpu == nil and ctx.total.ssd == nil and ctx.total[1] == nil)
        assert(getmetatable(ctx.total) == false, "the check is not the policy's to change")
        return ctx.total.core end }]])))
    assert(m:match(ONE_CORE))
  end)

  it("a view's aggregate(TYPE) raises on a type the graph does not have", function()
    hook_fails(machine(), [[
      return { score = function(v, ctx)
        return v:aggregate("gpus") end }]], ONE_NODE,
      "policy mine: score hook: mine.lua:2: aggregate: unknown resource type 'gpus' "
      .. "(did you mean 'gpu'?): " .. TYPES)
    -- a standard type the graph lacks reads 0
    local m = core.matcher(cpu_machine())
    assert(m:set_policy(policy([[
      return { score = function(v, ctx) return v:aggregate("gpu") end }]])))
    assert(m:match(ONE_NODE))
  end)

  it("a score_reads entry total.TYPE is checked as score_types are", function()
    local m = core.matcher(machine())
    expect.fails("EINVAL", "mine.lua:2: score_reads: unknown resource type 'gpus' (did you mean "
      .. "'gpu'?): " .. TYPES, m:set_policy(policy([[
      return { score_local = true,
        score_reads = {"total.gpus"}, score = function(v, ctx) return 1 end }]])))
  end)
end)

describe("a jobspec's type", function()
  local YAML = "version: 1\nresources:\n  - type: slot\n    count: 1\n    label: default\n" ..
    "    with:\n      - type: %s\n        count: 1\ntasks:\n  - command: [\"app\"]\n" ..
    "    slot: default\n    count: {per_slot: 1}\nattributes: {system: {duration: 60}}\n"

  it("that no graph type names is refused with the place and the closest type", function()
    local g = machine()
    local m = core.matcher(g)
    local text = YAML:format("cores")
    local before = state(g, m)
    -- read with the graph's types (text, a table, m:known_types())
    expect.fails("EINVAL", "resources[0].with[0].type: unknown resource type 'cores' "
      .. "(did you mean 'core'?)", m:match(text))
    expect.fails("EINVAL", "job.yaml:7: resources[0].with[0].type: unknown resource type "
      .. "'cores' (did you mean 'core'?)",
      core.jobspec_parse(text, { source = "job.yaml", types = m:known_types() }))
    -- read without them, then matched: the same refusal, not "no cores in
    -- the graph" (ENODEV), in every mode
    local js = assert(core.jobspec_parse(text, { source = "job.yaml" }))
    for _, mode in ipairs { "allocate", "allocate_orelse_reserve", "satisfiability" } do
      expect.fails("EINVAL", "job.yaml:7: resources[0].with[0].type: unknown resource type "
        .. "'cores' (did you mean 'core'?)", m:match(js, mode))
    end
    assert.equal(before, state(g, m))
  end)

  it("gets the closest type in grove query, which loads no more of Grove than it needs",
    function()
    local exe = require("exe_helper")
    local dir = exe.scratch_dir()
    exe.write(dir .. "/cores.yaml", YAML:format("cores"))
    local out = exe.run(("printf 'match allocate %s/cores.yaml\\nquit\\n' | %s query -L "
      .. "spec/fixtures/query/lab.graphml -d"):format(dir, exe.GROVE))
    local want = ("match_allocate: ERROR: Jobspec error for 1: %s/cores.yaml:7: "
      .. "resources[0].with[0].type: unknown resource type 'cores' (did you mean 'core'?)\n")
      :format(dir)
    assert(out:find(want, 1, true), out)
    os.execute("rm -rf '" .. dir .. "'")
  end)

  it("that the graph lacks but is a real type stays never satisfiable (ENODEV)", function()
    local m = core.matcher(cpu_machine())
    local js = assert(core.jobspec_parse(YAML:format("gpu")))
    expect.fails("ENODEV", "no gpu in the graph", m:match(js))
    expect.fails("ENODEV", "no gpu in the graph", m:match(YAML:format("gpu")))
    -- far from every type: refused as unknown, with no offer
    expect.fails("EINVAL", "resources[0].with[0].type: unknown resource type 'widget'",
      m:match(assert(core.jobspec_parse(YAML:format("widget")))))
  end)
end)

describe("a cluster maker", function()
  it("whose type is close to a known one raises at the caller's line", function()
    local at, got = here(), raised(function() local t = R.cores(2); return t end)
    assert.equal(at .. ": grove.cluster: R.cores: unknown resource type 'cores' (did you mean "
      .. "'core'?); R(\"cores\", ...) makes a type of that name", got)
    at, got = here(), raised(function() local t = R.gpus(1); return t end)
    assert.equal(at .. ": grove.cluster: R.gpus: unknown resource type 'gpus' (did you mean "
      .. "'gpu'?); R(\"gpus\", ...) makes a type of that name", got)
    -- a type of its own, far from the known ones, or made by name
    local g = grove.cluster "c" { R.pdu(1), R.switch(1), R.cpu(1), R("cores", 1) }
    assert.equal(1, g:aggregate().cores)
    assert.equal(1, g:aggregate().pdu)
  end)

  it("offers the closest option, at the caller's line", function()
    local at, got = here(), raised(function()
      local t = R.core(2, { idscope = "node" }); return t end)
    assert.equal(at + 1 .. ": grove.cluster: core: unknown option 'idscope' (did you mean "
      .. "'id_scope'?)", got)
  end)
end)

describe("a keyword-like name", function()
  it("a policy field offers the closest, at its line", function()
    expect.fails("EINVAL", "mine.lua:2: unknown field 'scor' (did you mean 'score'?); the fields "
      .. "are name, description, base, prune, order, score, scores, choose, select, "
      .. "node_exclusive, node_centric, id_order, explore_by_use, score_local, score_reads, "
      .. "prune_types, score_types",
      core.policy_parse("return {\n  scor = function() return 1 end }", "mine.lua"))
  end)

  it("a field of grove's modules raises at the line that read it", function()
    local at, got = here(), raised(function() local f = grove.jobspc; return f end)
    assert.equal(at .. ": grove has no field 'jobspc' (did you mean 'jobspec'?)", got)
    at, got = here(), raised(function() local f = grove.cluster.resorces; return f end)
    assert.equal(at .. ": grove.cluster has no field 'resorces' (did you mean 'resources'?)", got)
    at, got = here(), raised(function() local f = grove.sim.neww; return f end)
    assert.equal(at .. ": grove.sim has no field 'neww' (did you mean 'new'?)", got)
    -- the C module too, whether reached as grove.core or by its own require
    at, got = here(), raised(function() local f = grove.core.grph; return f end)
    assert.equal(at .. ": grove.core has no field 'grph' (did you mean 'graph'?)", got)
    at, got = here(), raised(function() local f = require("grove.core").matchr; return f end)
    assert.equal(at .. ": grove.core has no field 'matchr' (did you mean 'matcher'?)", got)
    -- a field it has is as before, rawget reads nil
    assert.equal(require("grove.jobspec"), grove.jobspec)
    assert.is_nil(rawget(grove, "jobspc"))
  end)

  it("a writer format lists the formats", function()
    local g = machine()
    local m = core.matcher(g)
    local j = assert(m:match(ONE_CORE))
    local w = core.writer(g)
    assert.has_error(function() w:job(m, j.id, "jsn") end,
      "bad argument #3 to 'job' (unknown format 'jsn'; the formats are simple, pretty_simple, "
      .. "jgf, rlite, rv1, rv1_nosched)")
    assert.has_error(function() w:job(m, j.id, "rv") end,
      "bad argument #3 to 'job' (unknown format 'rv' (did you mean 'rv1'?); the formats are "
      .. "simple, pretty_simple, jgf, rlite, rv1, rv1_nosched)")
  end)

  it("a match mode offers the closest", function()
    local g = machine()
    local m = core.matcher(g)
    local before = state(g, m)
    assert.has_error(function() m:match(ONE_CORE, "alocate") end,
      "bad argument #2 to 'match' (unknown mode 'alocate' (did you mean 'allocate'?); the modes "
      .. "are allocate, allocate_orelse_reserve, allocate_with_satisfiability, satisfiability, "
      .. "without_allocating, without_allocating_future, grow)")
    assert.equal(before, state(g, m))
  end)

  it("a sim option offers the closest, in the API and on the command line", function()
    assert.has_error(function() grove.sim.new { graph = machine(), polcy = "low" } end,
      "bad argument #1 to 'new' (unknown option 'polcy' (did you mean 'policy'?))")
    local options = require("grove.options")
    local o, msg = options.parse({ "--polcy", "low" },
      { "positional", policy = { value = true }, queue = { value = true } })
    assert.is_nil(o)
    assert.equal("unknown option --polcy (did you mean '--policy'?)", msg)
  end)

  it("a trace's field or column offers the closest", function()
    local dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. dir))
    local function write(name, text)
      local f = assert(io.open(dir .. "/" .. name, "w"))
      f:write(text)
      f:close()
      return dir .. "/" .. name
    end
    local json = write("t.json", '[{"id": 1, "submit": 0, "run": 5, "procss": 2}]')
    expect.fails("EINVAL", json .. ":1:2: job 1: unknown field 'procss' (did you mean 'procs'?) "
      .. "(id, submit, run, estimate, procs, mem, user, group, bank, queue, partition, after, "
      .. "think, status, jobspec, request)", grove.sim.trace.open(json))
    local csv = write("t.csv", "id,submit,run,procss\n1,0,5,2\n")
    local r = assert(grove.sim.trace.open(csv))
    local ok, err = pcall(r.next, r)
    assert.is_false(ok)
    assert.equal(csv .. ":1: unknown column 'procss' (did you mean 'procs'?) (id, submit, run, "
      .. "estimate, procs, mem, user, group, bank, queue, partition, after, think, status, "
      .. "jobspec)",
      tostring(err))
    os.execute("rm -rf " .. dir)
  end)
end)
