-- The policy sandbox: each abuse fails that one match (ECANCELED, a
-- message naming the policy's file and line) or the load (EINVAL), and
-- leaves the graph, the job table and the host's Lua state as they were.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local expect = require("expect")
local match = require("match_helper")

local sandbox = require("sandbox_helper")

local FIX = "spec/fixtures/policies/"
local SPEC = sandbox.SPEC
local fails_cleanly = sandbox.fails_cleanly

local function parse(text, opts)
  return core.policy_parse(text, "inline.lua", opts)
end

describe("a policy that fails during a match", function()
  it("raises: the error names the file and line; the graph is untouched", function()
    local p = assert(core.policy_load(FIX .. "raise.lua"))
    fails_cleanly(p, "policy raise: prune hook: spec/fixtures/policies/raise.lua:8: boom at core")
    assert.matches("stack traceback:", p:traceback())
  end)

  it("loops forever: stopped by the instruction budget", function()
    local p = assert(core.policy_load(FIX .. "loop.lua", {budget = 200000}))
    assert.equal(200000, p:budget())
    fails_cleanly(p, "policy loop: score hook: spec/fixtures/policies/loop.lua:%d+: "
      .. "instruction budget of 200000 exceeded", true)
  end)

  it("loops forever inside pcall: the budget error cannot be caught", function()
    local p = assert(core.policy_load(FIX .. "loop_pcall.lua", {budget = 50000}))
    fails_cleanly(p, "policy loop_pcall: prune hook: spec/fixtures/policies/loop_pcall.lua:%d: "
      .. "instruction budget of 50000 exceeded", true)
  end)

  it("loops forever with the default budget of ten million instructions", function()
    -- the wall-clock limit raised from its default (1 s), which a loaded
    -- machine under sanitizers can reach before ten million instructions
    local p = assert(parse("return {prune = function() while true do end end}", {time = 120}))
    assert.equal(10000000, p:budget())
    fails_cleanly(p, "policy inline: prune hook: inline.lua:1: "
      .. "instruction budget of 10000000 exceeded")
  end)

  it("allocates without bound: stopped by the memory cap, even under pcall", function()
    local p = assert(core.policy_load(FIX .. "alloc.lua", {memory = 4 * 1024 * 1024}))
    assert.equal(4 * 1024 * 1024, p:memory())
    fails_cleanly(p, "policy alloc: order hook: spec/fixtures/policies/alloc.lua:%d+: "
      .. "memory limit of 4194304 bytes exceeded", true)
  end)

  it("asks for one huge block: refused, not attempted", function()
    local p = assert(core.policy_load(FIX .. "alloc_rep.lua"))
    fails_cleanly(p, "policy alloc_rep: choose hook: spec/fixtures/policies/alloc_rep.lua:%d+: "
      .. "memory limit of 67108864 bytes exceeded", true)
  end)

  it("writes a global", function()
    fails_cleanly(assert(core.policy_load(FIX .. "global.lua")),
      "policy global: prune hook: spec/fixtures/policies/global.lua:6: assignment to global "
      .. "'counter' (a policy cannot write globals: use local)")
  end)

  it("tries to change the graph through its vertices (they are read-only)", function()
    fails_cleanly(assert(core.policy_load(FIX .. "mutate.lua")),
      "policy mutate: prune hook: spec/fixtures/policies/mutate.lua:5: grove.policy.vertex has "
      .. "no method 'set_status'")
    for _, method in ipairs{"allocate", "free", "set_property", "tag", "graph", "copy",
      "out_edges", "set_size"} do
      fails_cleanly(assert(parse(("return {prune = function(v) return v:%s() end}")
        :format(method))), ("policy inline: prune hook: inline.lua:1: grove.policy.vertex has "
        .. "no method '%s'"):format(method))
    end
  end)

  it("raises a non-string error value", function()
    fails_cleanly(assert(parse("return {\n prune = function() error({}) end}")),
      "policy inline: prune hook: inline.lua:2: (error object is a table value)")
    fails_cleanly(assert(parse("return {\n prune = function() error('bare', 0) end}")),
      "policy inline: prune hook: inline.lua:2: bare")
  end)
end)

describe("a hook that returns garbage", function()
  -- expected messages after "inline.lua:2: "; <n> stands for a number
  local cases = {
    {"score = function(v) return v:name() end", "score hook returned string (expected a number)"},
    {"score = function() return 0/0 end", "score hook returned NaN"},
    {"score = function() end", "score hook returned nil (expected a number)"},
    {"prune = function() return 1 end", "prune hook returned number (expected a boolean)"},
    {"prune = function() return 'no' end", "prune hook returned string (expected a boolean)"},
    {"order = function() return 7 end",
      "order hook returned number (expected nil or an array of the children)"},
    {"order = function(p, kids) return {kids[1]} end",
      "order hook returned 1 vertices for <n> children"},
    {"order = function(p, kids) local t = {} for i = 1, #kids do t[i] = kids[1] end return t end",
      "order hook returned vertices that are not a permutation of the children"},
    {"order = function(p, kids) kids[1] = 'x' end",
      "order hook returned a string at position 1 (expected a vertex)"},
    {"order = function(p, kids) kids[1] = p end",
      "order hook returned vertices that are not a permutation of the children"},
    {"choose = function(c, k) return 1 end",
      "choose hook returned number (expected an array of positions)"},
    {"choose = function(c, k) return {} end", "choose hook returned 0 positions (expected 1)"},
    {"choose = function(c, k) return {#c + 1} end",
      "choose hook returned <n>, out of range 1..<n>"},
    {"choose = function(c, k) return {0} end", "choose hook returned 0, out of range 1..<n>"},
    {"choose = function(c, k) return {1.5} end",
      "choose hook returned a number at position 1 (expected an integer)"},
    {"order = {key = function(v) return 'x' end}",
      "order key hook returned string (expected a number)"},
    {"scores = function(c) return 1 end",
      "scores hook returned number (expected an array of scores)"},
    {"scores = function(c) return {} end", "scores hook returned 0 scores for <n> candidates"},
    {"scores = function(c) local t = {} for i = 1, #c do t[i] = 'x' end return t end",
      "scores hook returned a string at position 1 (expected a number)"},
    {"scores = function(c) local t = {} for i = 1, #c do t[i] = 0/0 end return t end",
      "scores hook returned NaN at position 1"},
  }
  for _, case in ipairs(cases) do
    it(case[1], function()
      local p = assert(parse("return {\n" .. case[1] .. "\n}"))
      local hook = case[2]:match("^(.-) hook")
      local want = ("policy inline: %s hook: inline.lua:2: %s"):format(hook, case[2])
      want = "^" .. want:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0"):gsub("<n>", "%%d+") .. "$"
      fails_cleanly(p, want, true)
    end)
  end

  it("choose returning a position twice", function()
    local g = match.tiny()
    local m = core.matcher(g)
    assert(m:set_policy(assert(parse("return {\nchoose = function(c, k) return {1, 1} end}"))))
    local two = match.nodes_yaml(2, 2, nil, 3600)
    expect.fails("ECANCELED",
      "policy inline: choose hook: inline.lua:2: choose hook returned 1 twice", m:match(two))
  end)
end)

describe("the sandbox environment", function()
  local denied = {"io", "os", "require", "debug", "load", "loadstring", "dofile", "loadfile",
    "collectgarbage", "print", "package", "coroutine", "_G", "module", "unpack"}
  for _, name in ipairs(denied) do
    it("has no " .. name, function()
      expect.fails("EINVAL", "inline.lua:1: undefined global '" .. name .. "'",
        parse("local x = " .. name .. "\nreturn {}"))
      -- and in a hook, at match time
      fails_cleanly(assert(parse("return {prune = function()\n return " .. name
        .. " ~= nil end}")), "policy inline: prune hook: inline.lua:2: undefined global '"
        .. name .. "'")
    end)
  end

  it("has the allow-list and private copies of the libraries", function()
    local p = assert(parse([[
      local ok = type(pairs) == "function" and type(ipairs) == "function"
        and type(next) == "function" and type(select) == "function"
        and type(tonumber) == "function" and type(tostring) == "function"
        and type(error) == "function" and type(assert) == "function"
        and type(pcall) == "function" and type(xpcall) == "function"
        and type(rawequal) == "function" and type(rawlen) == "function"
        and type(rawget) == "function" and type(rawset) == "function"
        and type(setmetatable) == "function" and type(getmetatable) == "function"
        and math.floor(2.5) == 2 and string.format("%d", 3) == "3"
        and table.concat({1, 2}, ",") == "1,2" and utf8.char(65) == "A"
        and _VERSION == "Lua 5.4"
      assert(ok, "missing something")
      math.floor = nil          -- its own copy
      string.upper = nil
      table.insert = nil
      return {}
    ]]))
    assert.is_not_nil(p)
    assert.is_function(math.floor)
    assert.is_function(string.upper)
    assert.is_function(table.insert)
    assert.equal("X", ("x"):upper())
  end)

  it("has no string.dump, not even through the string metatable", function()
    assert.equal("inline.lua:1: attempt to call a nil value (field 'dump')",
      select(2, parse("return string.dump(function() end)")))
    assert.equal("inline.lua:1: attempt to call a nil value (method 'dump')",
      select(2, parse("return ('x'):dump()")))
    assert.is_function(string.dump)
    assert.is_function(("").dump)
    fails_cleanly(assert(parse("return {prune = function()\n return ('x'):dump() end}")),
      "policy inline: prune hook: inline.lua:2: attempt to call a nil value (method 'dump')")
  end)

  it("keeps arithmetic on numeric strings", function()
    assert.is_not_nil(parse("assert('10' + 1 == 11) return {}"))
  end)

  it("refuses global writes at load time, even rawset on the environment", function()
    local _, msg = parse("x = 1\nreturn {}")
    assert.equal("inline.lua:1: assignment to global 'x' (a policy cannot write globals: "
      .. "use local)", msg)
    _, msg = parse("rawset(_ENV, 'x', 1)\nreturn {}")
    assert.equal("inline.lua:1: cannot rawset the policy's environment", msg)
    _, msg = parse("setmetatable(_ENV, nil)\nreturn {}")
    assert.equal("inline.lua:1: cannot change a protected metatable", msg)
    _, msg = parse("local t = {}\nrawset(t, 'x', 1)\nassert(t.x == 1)\nreturn {}")
    assert.is_nil(msg)
  end)

  it("sees metatables of its own tables only, and no finalizers", function()
    assert.is_not_nil(parse([[
      assert(getmetatable("") == nil)
      assert(getmetatable(_ENV) == false)
      local mt = {}
      local t = setmetatable({}, mt)
      assert(getmetatable(t) == mt)
      return {}
    ]]))
    local _, msg = parse("setmetatable({}, {__gc = function() while true do end end})\nreturn {}")
    assert.equal("inline.lua:1: __gc metamethods are not allowed in a policy", msg)
  end)

  it("cannot load code or binary chunks", function()
    local bin = string.dump(function() return {} end)
    expect.fails_like("EINVAL", "attempt to load a binary chunk", core.policy_parse(bin, "bin.lua"))
  end)

  it("uses the budget and the memory cap at load time too", function()
    local _, msg, code = parse("while true do end", {budget = 5000})
    assert.equal("EINVAL", code)
    assert.equal("inline.lua:1: instruction budget of 5000 exceeded", msg)
    _, msg = parse("local t = {}\nfor i = 1, 1e9 do t[i] = i end", {memory = 1000000})
    assert.equal("inline.lua:2: memory limit of 1000000 bytes exceeded", msg)
    assert.is_nil(debug.gethook())
  end)

  it("gives vertex views that work only during the match", function()
    local p = assert(parse([[
      local kept
      return {
        prune = function(v)
          if kept then assert(kept:type()) end   -- a view from an earlier match
          kept = v
          return false
        end,
      }
    ]]))
    local g = match.tiny()
    local m = core.matcher(g)
    assert(m:set_policy(p))
    assert(m:match(SPEC))
    assert(m:match(SPEC))
    -- a view smuggled out through an error value cannot be used
    local q = assert(parse("return {prune = function(v) error(v) end}"))
    assert(m:set_policy(q))
    local j, msg = m:match(SPEC)
    assert.is_nil(j)
    assert.equal("policy inline: prune hook: inline.lua:1: (error object is a "
      .. "grove.policy.vertex value)", msg)
  end)
end)

describe("the memory cap", function()
  it("does not count the vertex views the matcher makes for the policy", function()
    local g = dofile "examples/medium.lua" -- some 3,400 vertices
    local m = core.matcher(g)
    local p = assert(parse("return {prune = function(v) return false end}",
      {memory = 20000}))
    assert(m:set_policy(p))
    local cores = match.nodes_yaml(72, 36, nil, 3600)
    collectgarbage() -- no garbage of ours to make room: the views (some 50 KB) must not count
    collectgarbage()
    local j, msg = m:match(cores)
    assert(j, msg)
    assert.equal(72 * 36, m:info(j.id).counts.core)
    m:cancel(j.id)
    -- while what the policy itself keeps does count (the cap is on the net
    -- growth of the heap: garbage of the host collected meanwhile offsets
    -- it, so keep well over the cap)
    local q = assert(parse([[
      local keep = {}
      return {prune = function(v)
        keep[#keep + 1] = string.rep("x", 10000)
        return false
      end}]], {memory = 20000}))
    assert(m:set_policy(q))
    local _, msg2, code = m:match(cores)
    assert.equal("ECANCELED", code)
    assert.matches("memory limit of 20000 bytes exceeded", msg2)
  end)
end)

describe("loading a bad policy", function()
  for _, c in ipairs {
    {"reports a syntax error with file and line", "syntax.policy", "EINVAL",
      "spec/fixtures/policies/syntax.policy:4: 'end' expected near '='"},
    {"reports a file that does not return a table", "not_table.lua", "EINVAL",
      "spec/fixtures/policies/not_table.lua: a policy must return a table (got string)"},
    {"reports a missing file", "nope.lua", "ENOENT",
      "spec/fixtures/policies/nope.lua: No such file or directory"},
  } do
    it(c[1], function()
      expect.fails(c[3], c[4], core.policy_load(FIX .. c[2]))
    end)
  end

  it("reports an error raised at load time", function()
    expect.fails("EINVAL", "inline.lua:2: no", parse("local x = 1\nerror('no')"))
  end)
end)
