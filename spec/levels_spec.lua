-- Specs for grove.levels: the levels a request's walk reaches, and the
-- hook types of a placement policy that no request reaches, as grove sim
-- and grove query warn of them.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, and must not be copied here.
local core = require("grove.core")
local grove = require("grove")
local levels = require("grove.levels")
local R = grove.cluster.resources

-- 2 racks of 2 nodes: 2 sockets of 2 cores, and a gpu beside the sockets
local function machine()
  return grove.cluster "m" {R.rack(2) {R.node(2) {R.socket(2) {R.core(2)}, R.gpu(1)}}}
end

local function policy(fields)
  return assert(core.policy_parse("return {" .. fields ..
    ", score = function() return 1 end, prune = function() return false end}", "lv.lua"))
end

describe("grove.levels", function()
  it("reads the types a request names, slots aside", function()
    assert.same({core = true}, levels.request_types(grove.jobspec{tasks = 2}))
    assert.same({node = true, core = true, gpu = true},
      levels.request_types(core.jobspec_from_table(grove.jobspec{nodes = 1, cores_per_node = 2,
        gpus_per_node = 1})))
  end)

  it("has nothing to check for a built-in or hooks that run at every level", function()
    assert.is_nil(levels.new("spread", machine()))
    assert.is_nil(levels.new(policy("name = 'all'"), machine()))
  end)

  it("knows a level reached when asked for or above a type asked for", function()
    local lv = levels.new(policy("score_types = {'socket', 'gpu', 'rack'}, " ..
      "prune_types = 'node'"), machine())
    -- cores: the walk passes racks, nodes and sockets; gpus are beside
    assert.same({{field = "score_types", type = "gpu"}}, lv:unreached({core = true}))
    -- gpus: the walk passes racks and nodes, not sockets
    assert.same({{field = "score_types", type = "socket"}}, lv:unreached({gpu = true}))
    assert.same({}, lv:unreached({gpu = true, core = true}))
    -- a request of racks alone reaches no level below them
    assert.same({{field = "prune_types", type = "node"}, {field = "score_types",
      type = "socket"}, {field = "score_types", type = "gpu"}}, lv:unreached({rack = true}))
    assert.is_true(lv:is_above("rack", "core"))
    assert.is_false(lv:is_above("gpu", "core"))
    assert.is_true(lv:leaf_type("gpu"))
    assert.is_false(lv:leaf_type("node"))
  end)

  it("warns of each unreached level once", function()
    local lv = levels.new(policy("score_types = {'gpu', 'node'}"), machine())
    local want = "policy lv (lv.lua): score_types names 'gpu', a level no job reaches " ..
      "(asked: core, memory; a gpu is none of those and holds none): its score hook is not " ..
      "called there"
    assert.same({want}, lv:warnings({core = true, memory = true}, "no job reaches"))
    assert.same({}, lv:warnings({core = true}, "no job reaches"))
  end)
end)

describe("warnings of unreached levels", function()
  local exe = require("exe_helper")
  local tmp = exe.scratch_dir()
  local pol = tmp .. "/gpuscore.lua"
  exe.write(pol, "return {name = 'gpuscore', score_types = {'gpu', 'node'},\n" ..
    "  score = function(v) return v:id() end}\n")
  local cl = tmp .. "/gpus.lua"
  exe.write(cl, "local grove = require('grove')\nlocal R = grove.cluster.resources\n" ..
    "return grove.cluster 'g' {R.node(4, {hostnames = 'n[0-3]'}) {R.core(4), R.gpu(1)}}\n")

  it("go to stderr before a grove sim run, for an SWF or a JSON trace", function()
    local out, rc = exe.run(("{ %s sim --cluster %s --trace spec/fixtures/sim/small.swf " ..
      "--policy %s 2>&1 >/dev/null; }"):format(exe.GROVE, cl, pol))
    assert.equal(0, rc, out)
    local w = "grove sim: warning: policy gpuscore (" .. pol .. "): score_types names 'gpu', " ..
      "a level no job of the trace reaches (asked: core; a gpu is none of those and holds " ..
      "none): its score hook is not called there\n"
    assert.equal(w, out:sub(1, #w))
    -- a JSON trace's requests: job 2 asks for nodes, and gpu is still not reached
    out, rc = exe.run(("{ %s sim --cluster %s --trace spec/fixtures/sim/jobs.json --policy %s " ..
      "2>&1 >/dev/null; }"):format(exe.GROVE, cl, pol))
    assert.equal(0, rc, out)
    assert.matches("a level no job of the trace reaches (asked: core, node; a gpu", out, 1, true)
    -- --quiet, or a request that asks for gpus: nothing
    out = exe.run(("%s sim --cluster %s --trace spec/fixtures/sim/small.swf --policy %s " ..
      "--quiet 2>&1"):format(exe.GROVE, cl, pol))
    assert.equal("", out)
    local js = tmp .. "/gpujobs.json"
    exe.write(js,
      '[{"id": 1, "submit": 0, "run": 10, "request": {"nodes": 1, "gpus_per_node": 1}}]')
    out, rc = exe.run(("{ %s sim --cluster %s --trace %s --policy %s 2>&1 >/dev/null; }")
      :format(exe.GROVE, cl, js, pol))
    assert.equal(0, rc)
    assert.equal("", out)
  end)

  it("go to grove query's error stream once, at the first request that does not reach", function()
    local cmds = tmp .. "/cmds"
    exe.write(cmds, "match allocate spec/fixtures/query/cores.yaml\n" ..
      "match allocate spec/fixtures/query/cores.yaml\n" ..
      "match allocate spec/fixtures/query/gpus.yaml\n")
    local out, rc = exe.run(("{ %s query -L spec/fixtures/query/lab.graphml -P %s < %s " ..
      "2>&1 >/dev/null; }"):format(exe.GROVE, pol, cmds))
    assert.equal(0, rc, out)
    assert.equal("grove query: warning: policy gpuscore (" .. pol .. "): score_types names " ..
      "'gpu', a level the request of spec/fixtures/query/cores.yaml does not reach (asked: " ..
      "core, memory; a gpu is none of those and holds none): its score hook is not called " ..
      "there\n", out)
  end)
end)
