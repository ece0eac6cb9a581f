-- log(level, fmt, ...) in the sandbox of placement and queue policies
-- (bindings/l_log.c): lines "FILE:LINE: LEVEL: message" to the host's
-- function (grove.core.set_log) once the call into the policy returns, or
-- to stderr; at most 100 a run, the rest counted once; a bad level is the
-- policy's error, placed.
--
-- This file holds only specs: fixtures are inline policies.
local grove = require("grove")
local core = grove.core
local R = grove.cluster.resources

local function matcher(text, name)
  local g = grove.cluster "tiny" { R.node(4, { hostnames = "node[0-3]" }) { R.core(4) } }
  local m = core.matcher(g)
  m:set_policy(assert(core.policy_parse(text, name or "mine.lua")))
  return m
end

local job = grove.jobspec{nodes = 1, cores_per_task = 1}

-- The lines a function of the session receives while f runs.
local function logged(f, level)
  local got = {}
  core.set_log(function(line, lvl) got[#got + 1] = {line, lvl} end, level)
  local ok, err = pcall(f)
  core.set_log(nil)
  assert(ok, err)
  return got
end

describe("log in a placement policy", function()
  it("gives the host's function each line, placed, after the match", function()
    local m = matcher([[return { score_types = "node",
      score = function(v, ctx)
        log("info", "%s needs %d", v:name(), ctx.count)
        return 0
      end }]])
    local during
    local got = logged(function()
      assert(m:match(job, "allocate"))
      during = true
    end)
    assert.is_true(during)
    assert.equal(4, #got)
    assert.same({"mine.lua:3: info: node0 needs 1", "info"}, got[1])
    assert.same({"mine.lua:3: info: node3 needs 1", "info"}, got[4])
  end)

  it("keeps only the levels asked for", function()
    local m = matcher([[return { score_types = "node", score = function(v)
      log("debug", "d %s", v:name()); log("warn", "w %s", v:name()); return 0 end }]])
    local got = logged(function() assert(m:match(job, "allocate")) end, "warn")
    assert.equal(4, #got)
    assert.equal("warn", got[1][2])
    core.set_log(function() end, "info")
    assert.equal("info", core.log_level())
    core.set_log(nil)
    assert.equal("debug", core.log_level())
  end)

  it("keeps 100 lines a match and says how many it dropped, every match anew", function()
    -- (a score that reads ctx.job is not local: every node is scored at
    -- every match, not only those the last job changed)
    local m = matcher([[return { score_types = "node", score = function(v, ctx)
      for i = 1, 50 do log("debug", "%s %d", v:name(), i) end return ctx.job * 0 end }]],
      "loud.lua")
    for _ = 1, 2 do
      local got = logged(function() assert(m:match(job, "allocate")) end)
      assert.equal(101, #got)
      assert.same({"loud.lua: warn: 100 log messages dropped (at most 100 a run)", "warn"},
        got[101])
    end
  end)

  it("fails the match, placed, on a level it does not know", function()
    local m = matcher([[return { score = function()
      log("loud", "x") return 0 end }]], "bad.lua")
    assert.same({nil, "policy bad: score hook: bad.lua:2: bad argument #1 to 'log' "
      .. "(unknown level 'loud'; the levels are error, warn, info, debug)", "ECANCELED"},
      {m:match(job, "allocate")})
  end)

  it("has no print", function()
    assert.same({nil, "bad.lua:1: undefined global 'print'", "EINVAL"},
      {core.policy_parse("print(1) return {}", "bad.lua")})
  end)

  it("refuses a log function that is not a function", function()
    assert.has_error(function() core.set_log(42) end)
    assert.has_error(function() core.set_log(print, "loud") end)
  end)
end)

describe("log in a queue policy (a script)", function()
  it("gives the host's function each line once the call returns", function()
    local s = assert(core.script_load([[return { f = function(n)
      log("info", "pass %d", n) return n end }]], "q.lua"))
    local got = logged(function()
      local ok, n = s:call("f", 7)
      assert(ok and n == 7)
    end)
    assert.same({{"q.lua:2: info: pass 7", "info"}}, got)
  end)
end)
