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
