-- The sandbox's hard limits and its separation from the host: every route
-- out of the sandbox or around its limits tried once.  Each abuse fails
-- its match with ECANCELED and leaves the graph, the job table and the
-- host's Lua state as they were (sandbox_helper.fails_cleanly).
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local expect = require("expect")
local match = require("match_helper")
local sandbox = require("sandbox_helper")

local fails_cleanly = sandbox.fails_cleanly

local function parse(text, opts)
  return core.policy_parse(text, "inline.lua", opts)
end

-- The value a policy's chunk computes, read back through the error it
-- raises at load time (nothing else leaves a sandbox).
local function computed(text)
  local p, msg = parse(text)
  assert.is_nil(p)
  return (msg:gsub("^inline%.lua:%d*:? ", ""))
end

describe("the wall-clock limit", function()
  it("stops a loop long before its budget would", function()
    local p = assert(parse("return {prune = function()\n while true do end end}",
      {budget = 1e15, time = 0.05}))
    assert.equal(0.05, p:time())
    fails_cleanly(p, "policy inline: prune hook: inline.lua:2: wall-clock limit of 0.05 s exceeded")
  end)

  it("stops library calls that do work without instructions", function()
    -- a sort of 2^31 - 2 elements whose reads, writes and length are C
    -- functions: one instruction that would take hours; nothing to set up
    local p = assert(parse([[
      local t = setmetatable({}, {__index = rawlen, __newindex = rawlen,
                                  __len = function() return 2^31 - 2 end})
      return {prune = function()
        table.sort(t)
      end}]], {budget = 1e15, time = 0.05}))
    fails_cleanly(p, "inline.lua:4: wall%-clock limit of 0%.05 s exceeded", true)
  end)

  it("is one second by default, and settable", function()
    assert.equal(1, assert(parse("return {}")):time())
    assert.same({budget = 10000000, memory = 64 * 1024 * 1024, time = 1}, core.policy_limits())
    assert.has_error(function() parse("return {}", {time = 0}) end,
      "bad argument #3 to 'policy_parse' (time must be a number of seconds in (0, 1e6])")
  end)
end)

describe("patterns", function()
  local evil = [[("a?"):rep(30) .. ("a"):rep(30) .. "b"]]

  it("stop a backtracking pattern by the budget", function()
    -- the default budget; the wall-clock limit raised from its default
    -- (1 s), which a loaded machine under sanitizers can reach first
    local p = assert(parse("return {prune = function()\n local s = ('a'):rep(30)\n"
      .. " return s:find(" .. evil .. ") ~= nil end}", {time = 120}))
    fails_cleanly(p, "policy inline: prune hook: inline.lua:3: instruction budget of 10000000 "
      .. "exceeded")
  end)

  it("charge their steps to the budget (budget of 1,000, a 20-byte subject)", function()
    local p = assert(parse("return {prune = function()\n return ('a'):rep(20):find("
      .. evil .. ") ~= nil end}", {budget = 1000}))
    fails_cleanly(p, "instruction budget of 1000 exceeded", true)
  end)

  it("stop a backtracking pattern by the clock when the budget is huge", function()
    local p = assert(parse("return {prune = function()\n return ('a'):rep(30):match("
      .. evil .. ") ~= nil end}", {budget = 1e15, time = 0.05}))
    fails_cleanly(p, "wall%-clock limit of 0%.05 s exceeded", true)
  end)

  it("answer as the standard string library does", function()
    local cases = {
      {"hello world", "o w"}, {"hello world", "l+"}, {"hello world", "(h)(e)(l)"},
      {"hello", "()ll()"}, {"key = value", "(%w+)%s*=%s*(%w+)"}, {"f(a(b)c)", "%b()"},
      {"THE (quick) fox", "%f[%a]%a+"}, {"aaa", "a-b"}, {"aaab", "a-b"}, {"x", "[%]]"},
      {"a]b", "[]]"}, {"a.b", "%."}, {"abc", "^b"}, {"abc", "c$"}, {"ab$", "b$"},
      {"abcabc", "(abc)%1"}, {"  trim  ", "^%s*(.-)%s*$"}, {"2024-01-05", "(%d+)-(%d+)-(%d+)"},
      {"x^y", "x^y"}, {"", "a*"}, {"abc", ""}, {"node12", "^(%a+)(%d+)$"},
      {"a,b,,c", "([^,]*)"}, {"\0a\0", "%z?a"}, {"caf\195\169", "[\128-\255]+"},
    }
    -- the same code runs in the host (the standard library) and in a
    -- sandbox (Grove's matcher); every answer is written out
    local probe = [[
      local function cat(...)
        local t = {n = select("#", ...), ...}
        for i = 1, t.n do t[i] = (tostring(t[i]):gsub("%z", "<0>")) end
        return table.concat(t, ",", 1, t.n)
      end
      local out = {}
      for i, c in ipairs(cases) do
        local s, pat = c[1], c[2]
        local got = cat(string.find(s, pat)) .. "|" .. cat(string.find(s, pat, 2)) .. "|"
          .. cat(string.match(s, pat)) .. "|" .. cat(string.gsub(s, pat, "<%0>")) .. "|"
          .. cat(s:gsub(pat, function(a) return tostring(a):upper() end)) .. "|"
        for a, b in string.gmatch(s, pat) do got = got .. cat(a, b) .. ";" end
        out[i] = got
      end
      return table.concat(out, "\n")]]
    -- one case at a time: a load error's message is at most 1 KB
    for _, c in ipairs(cases) do
      local list = ("local cases = {{%q, %q}}\n"):format(c[1], c[2])
      local want = assert(load(list .. probe))()
      assert.equal(want, computed(list .. probe:gsub("return table%.concat%(out",
        "error(table.concat(out") .. ", 0)"))
    end
  end)

  it("refuse malformed patterns as the standard library does", function()
    for _, pat in ipairs {"%", "[a", "(a", "(a))", "%b", "%f", "%1", "(()", "a%0"} do
      local ok, want = pcall(string.find, "abc", pat)
      assert.is_false(ok)
      assert.equal(want, computed(("local _, e = pcall(string.find, 'abc', %q) error(e, 0)")
        :format(pat)))
    end
  end)
end)

describe("the memory cap", function()
  it("counts everything a policy keeps, across matches", function()
    -- 20 MB more at every match (40 MB while string.rep builds it); the
    -- cap (64 MiB) holds two
    local p = assert(parse([[
      local keep, last = {}, nil
      return {prune = function(v, ctx)
        if ctx.job ~= last then
          last = ctx.job
          keep[#keep + 1] = ("x"):rep(20 * 1000 * 1000)
        end
        return false
      end}]], {time = 30}))  -- the cap, not the clock (a loaded machine is slow)
    local g, m = sandbox.busy_matcher()
    assert(m:set_policy(p))
    collectgarbage()
    local host = collectgarbage("count")
    for i = 1, 2 do
      local j, msg = m:match(sandbox.SPEC, "allocate_orelse_reserve")
      assert(j, msg)
      assert(p:heap() > i * 20e6 and p:heap() <= p:memory())
    end
    local before = sandbox.snapshot(g, m)
    for _ = 1, 2 do
      expect.fails_like("ECANCELED", "policy inline: prune hook: inline.lua:%d: memory limit "
        .. "of 67108864 bytes exceeded", m:match(sandbox.SPEC, "allocate_orelse_reserve"))
      assert.same(before, sandbox.snapshot(g, m))
    end
    assert(p:heap() <= p:memory())
    -- none of it is the host's
    collectgarbage()
    assert.is_true(collectgarbage("count") - host < 1024)
    -- closing the policy gives it all back
    m:set_policy("first")
    p:close()
  end)
end)

describe("nothing of the host reaches a policy", function()
  it("through the string metatable: host code keeps the host's string functions", function()
    -- the policy replaces format in what is its own string table; a host
    -- finalizer formatting the host's io table runs as host code
    local p = assert(parse([[
      local calls = 0
      string.format = function(...) calls = calls + 1 return "" end
      return {prune = function()
        if calls > 0 then error("the policy's format was called " .. calls .. " times") end
        assert(("%d"):format(1) == "" and calls == 1, "its own format, for itself")
        calls = 0
        return false
      end}]]))
    local g, m = sandbox.busy_matcher()
    assert(m:set_policy(p))
    assert(m:match(sandbox.SPEC, "allocate_orelse_reserve"))
    local seen
    setmetatable({}, {__gc = function() seen = ("%s"):format(io) end})
    collectgarbage()
    assert.matches("^table: ", seen)
    assert(m:match(sandbox.SPEC, "allocate_orelse_reserve"))
    assert.equal("x1", ("x%d"):format(1))
    g:close()
  end)

  it("through errors: a host message handler never sees policy values", function()
    local p = assert(parse("return {prune = function(v) error(setmetatable({}, "
      .. "{__tostring = function() return 'from the policy' end})) end}"))
    local g, m = sandbox.busy_matcher()
    assert(m:set_policy(p))
    local ok, _, msg = xpcall(m.match, function(e) return e end, m, sandbox.SPEC)
    assert.is_true(ok)
    assert.equal("policy inline: prune hook: inline.lua:1: (error object is a table value)", msg)
    g:close()
  end)

  it("through iterators: children() works inside, and nothing leaks out", function()
    local p = assert(parse([[
      return {prune = function(v)
        local n = 0
        for c in v:children() do n = n + 1 assert(c:parent() == v) end
        assert(n == #v:children_list())
        return false
      end}]]))
    local _, m = sandbox.busy_matcher()
    assert(m:set_policy(p))
    assert(m:match(sandbox.SPEC, "allocate_orelse_reserve"))
  end)
end)

describe("xpcall's message handler", function()
  it("is not run for a budget error (it would run unmetered)", function()
    local p = assert(parse([[
      local handled = false
      return {prune = function()
        if handled then error("the handler ran") end
        xpcall(function() while true do end end,
               function(e) handled = true for _ = 1, 1e8 do end return e end)
      end}]], {budget = 1000}))
    fails_cleanly(p, "instruction budget of 1000 exceeded", true)
    fails_cleanly(p, "instruction budget of 1000 exceeded", true)
  end)

  -- a policy whose own error's handler never returns, under each limit
  for _, c in ipairs {
    {"runs under the budget for errors of the policy's own", {budget = 20000},
      "instruction budget of 20000 exceeded"},
    {"runs under the wall-clock limit too", {budget = 1e15, time = 0.05},
      "wall%-clock limit of 0%.05 s exceeded"},
  } do
    it(c[1], function()
      local p = assert(parse([[
        return {prune = function()
          xpcall(error, function(e) while true do end end)
        end}]], c[2]))
      fails_cleanly(p, c[3], true)
    end)
  end
end)

describe("views", function()
  it("are light: a policy with a cap of 20,000 bytes walks 3,000 vertices", function()
    local g = dofile "examples/medium.lua"
    local m = core.matcher(g)
    assert(m:set_policy(assert(parse("return {prune = function(v) return v:id() == -1 end}",
      {memory = 20000}))))
    local j, msg = m:match(match.nodes_yaml(72, 36, nil, 3600))
    assert(j, msg)
  end)
end)
