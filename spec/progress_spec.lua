-- Progress of long steps (core/progress.h, bindings/l_progress.c): a
-- script's function sees each step (reading and writing JGF, building a
-- cluster, Lua code's own steps) while it runs and once when it is over;
-- false silences everything; a function that fails is reported once.
--
-- This file holds only specs.
local grove = require("grove")
local core = grove.core
local R = grove.cluster.resources

-- Run f with fn as the progress function, then take it away again, even
-- when f fails (a later spec must not see it).
local function with_progress(fn, f)
  core.set_progress(fn)
  local ok, err = pcall(f)
  core.set_progress(nil)
  assert(ok, err)
end

-- The calls a progress function receives while f runs: {step, done,
-- total, finished} each.
local function reports(f)
  local got = {}
  with_progress(function(step, done, total, secs, fin)
    assert(type(secs) == "number" and secs >= 0)
    got[#got + 1] = {step, done, total, fin}
  end, f)
  return got
end

-- The steps of got that ended, in order.
local function ended(got)
  local out = {}
  for _, r in ipairs(got) do
    if r[4] then out[#out + 1] = r[1] end
  end
  return out
end

describe("progress", function()
  it("reports a step of Lua code, and its end", function()
    local got = reports(function()
      core.progress("counting sheep", 5, 10)
      core.progress_end("counting sheep")
    end)
    assert.same({{"counting sheep", 5, 10, false}, {"counting sheep", 0, 0, true}}, got)
  end)

  it("reports building a cluster, writing and reading its JGF", function()
    local g, g2
    local got = reports(function()
      g = grove.cluster "c" { R.node(64, {}) { R.socket(2) { R.core(16) } } }
      g2 = assert(core.jgf_decode(g:to_jgf()))
    end)
    assert.equal(#g, #g2)
    assert.same({"building the cluster", "writing JGF", "reading JGF"}, ended(got))
    -- the first report of a step comes at once; reading counts bytes
    for _, r in ipairs(got) do
      if r[1] == "reading JGF" and not r[4] then
        assert.is_true(r[3] > 0 and r[2] <= r[3])
      end
    end
  end)

  it("reports expanding a GRUG recipe and building hosts from hwloc", function()
    local recipe = assert(io.open("spec/fixtures/query/lab.graphml")):read("a")
    -- 2,000 racks: 70,001 vertices, reported every 1,024 of the total
    recipe = recipe:gsub('(target="rack"><data key="multi_scale">)2<', "%12000<")
    local g, h
    local got = reports(function()
      g = assert(core.grug_read(recipe))
      h = assert(core.hwloc_load{synthetic = "pack:2 core:4", hostnames = "node[0-99]"})
    end)
    assert.equal(70001, #g)
    assert.same({"expanding GRUG recipe", "building hosts from hwloc"}, ended(got))
    local first = {}
    for _, r in ipairs(got) do
      if not r[4] and not first[r[1]] then first[r[1]] = r end
    end
    assert.same({"expanding GRUG recipe", 1024, 70001, false}, first["expanding GRUG recipe"])
    assert.same({"building hosts from hwloc", 1, 100, false}, first["building hosts from hwloc"])
    assert.equal(1 + 100 * 20, #h) -- the cluster; a node, 2 packages, 8 cores, ... a host
  end)

  it("reports a simulation with a line of detail, and its end", function()
    local sim = require("grove.sim")
    local s = assert(sim.new{graph = grove.cluster "c" { R.node(4, {}) { R.core(4) } }})
    local jobs = {}
    for i = 1, 300 do
      jobs[i] = {id = i, submit = i * 10, run = 5, procs = 1}
    end
    local details = {}
    core.set_progress(function(step, done, total, _, fin, detail)
      if step == "simulating" then details[#details + 1] = {done, total, fin, detail} end
    end)
    local ok, err = pcall(function()
      s:feed(sim.trace.from_list(jobs))
      assert(s:run())
    end)
    core.set_progress(nil)
    assert(ok, err)
    assert.is_true(#details >= 2)
    local first, last = details[1], details[#details]
    assert.is_false(first[3])
    assert.equal(0, first[2])
    assert.matches("^%d+ jobs done, %d+ waiting, %d+ running, simulated time %d+ s$", first[4])
    assert.is_true(last[3])
  end)

  it("ends a step that fails", function()
    local got = reports(function()
      assert.is_nil(core.jgf_decode('{"graph": {"nodes": [{"id": "0"}, 7]}}'))
      assert.has_error(function()
        grove.cluster "c" { R.node(3000, {properties = function(id)
          if id == 2000 then error("bad node", 0) end
          return {}
        end}) {} }
      end, "bad node")
    end)
    assert.same({"reading JGF", "building the cluster"}, ended(got))
  end)

  it("calls no function after false", function()
    assert.same({}, reports(function()
      core.set_progress(false)
      core.progress("quiet", 1, 2)
      core.progress_end("quiet")
    end))
  end)

  it("reports a failing function once and stops calling it in that step", function()
    local calls = 0
    local function broken()
      calls = calls + 1
      error("broken display")
    end
    with_progress(broken, function()
      core.progress("step", 1, 3)
      core.progress("step", 2, 3)
      core.progress_end("step")
    end)
    assert.equal(1, calls)
  end)

  it("refuses a bad argument", function()
    assert.has_error(function() core.set_progress(42) end)
    assert.has_error(function() core.progress("x", -1) end)
  end)
end)
