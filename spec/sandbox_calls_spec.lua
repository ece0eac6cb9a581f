-- sandbox_calls_spec: library calls whose work an integer argument (a
-- count, a range, a length from __len) sets are charged before they work
-- and run in pieces under the clock (bindings/l_sandbox_lib.c), in
-- placement and queue policies alike.
--
-- Each route is tried twice.  Under the wall clock: a policy that never
-- ends (a call of the route's size would take hours, or a loop of calls
-- that would each take seconds) with a budget too large to matter must
-- fail with the wall-clock limit at the call's line, long before the
-- call could have finished (the bound on the time it took is generous:
-- no machine's speed matters).  Under the budget: a call of moderate size
-- with a budget below it must fail with the budget at the call's line,
-- whatever the clock; were it charged only after it returned (or by what
-- it was given rather than what it does), it would pass.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules.
local core = require("grove.core")
local grove = require("grove")
local sandbox = require("sandbox_helper")

local R = grove.cluster.resources

-- A table whose elements and length come from C functions (rawlen), which
-- run no instruction the count hook could see.
local VIRTUAL = [[
local function virtual(n)
  return setmetatable({}, {__index = rawlen, __newindex = rawlen,
                           __len = function() return n end})
end
]]

-- label, then the call under the wall clock (line 2 of the hook), then
-- the call under the budget (also line 2), that budget and the memory cap
-- (string.rep of "" has no budget case: it is "" at once, and costs only
-- its call)
local ROUTES = {
  {"table.move of 2^40 elements of an empty table",
    "table.move({}, 1, 2^40, 1)", "table.move({}, 1, 1e7, 1)", 1e6},
  {"table.move of 1e9 elements within one table",
    "local a = {1, 2, 3} table.move(a, 1, 1e9, 2)",
    "local a = {1, 2, 3} table.move(a, 1, 1e7, 2)", 1e6, 2^20},
  {"(''):rep(math.maxinteger), again and again",
    "while true do local _ = (''):rep(math.maxinteger) end"},
  {"string.rep('', 2^53, ''), again and again",
    "while true do local _ = string.rep('', 2^53, '') end"},
  {"table.sort of a table of 2^31 - 2 elements",
    "table.sort(virtual(2^31 - 2))", "table.sort(virtual(1e6))", 1e7},
  {"table.concat over 2^40 elements",
    "table.concat(virtual(0), '', 1, 2^40)", "table.concat(virtual(0), '', 1, 1e7)", 1e6},
  {"table.insert at the front of 1e14 elements",
    "table.insert(virtual(1e14), 1, 0)", "table.insert(virtual(1e7), 1, 0)", 1e6},
  {"table.remove at the front of 1e14 elements",
    "table.remove(virtual(1e14), 1)", "table.remove(virtual(1e7), 1)", 1e6},
  {"table.unpack of 100,000 elements, again and again",
    -- (the table made once, before the loop: the clock must run out on
    -- the loop's line, never inside virtual's own)
    "local t = virtual(0) while true do table.unpack(t, 1, 1e5) end",
    "local t = virtual(0) for _ = 1, 100 do table.unpack(t, 1, 1e5) end", 1e6},
  {"string.byte of 100,000 bytes, again and again",
    "local s = ('x'):rep(1e5) while true do s:byte(1, -1) end",
    "local s = ('x'):rep(1e5) for _ = 1, 100 do s:byte(1, -1) end", 1e6},
  {"string.gsub writing 1,000 bytes a match",
    "local s, r = ('x'):rep(1e4), ('y'):rep(1000) while true do s:gsub('x', r) end",
    "local _ = ('x'):rep(1e4):gsub('x', ('y'):rep(1000))", 5e5},
}

local function hook_text(call)
  return VIRTUAL .. "return {prune = function()\n" .. call .. "\nend}"
end

local function cpu(f)
  local t = os.clock()
  f()
  return os.clock() - t
end

describe("a placement policy's library calls", function()
  for _, r in ipairs(ROUTES) do
    it("stop at the wall clock: " .. r[1], function()
      local p = assert(core.policy_parse(hook_text(r[2]), "inline.lua",
        {budget = 1e15, time = 0.5}))
      local took = cpu(function()
        -- line 6: VIRTUAL is four lines, the hook's first line the fifth.
        -- The clock runs from the match's start: on a machine loaded
        -- enough that the match's walk up to the hook takes the 0.5 s,
        -- it runs out at the hook's entry (line 5), before the call was
        -- tried; then it is tried again (three times at most), never
        -- passed on that failure
        for try = 1, 3 do
          local ok, err = pcall(sandbox.fails_cleanly, p, "^policy inline: prune hook: "
            .. "inline%.lua:6: wall%-clock limit of 0%.5 s exceeded$", true)
          if ok then break end
          if try == 3 or not tostring(err):find("inline.lua:5: wall-clock limit", 1, true) then
            error(err, 0)
          end
        end
      end)
      assert.is_true(took < 20, ("%.1f s"):format(took))
    end)

    if r[3] then
      it("are charged before they work: " .. r[1], function()
        local p = assert(core.policy_parse(hook_text(r[3]), "inline.lua",
          {budget = r[4], time = 1e6, memory = r[5]}))
        sandbox.fails_cleanly(p, ("^policy inline: prune hook: inline%%.lua:6: instruction "
          .. "budget of %d exceeded$"):format(r[4]), true)
      end)
    end
  end
end)

describe("a queue policy's library calls", function()
  local function run(call, opts)
    local q = assert(grove.sim.queue.parse(VIRTUAL .. "return { schedule = function(ctx)\n"
      .. call .. "\nend }", "q.lua", opts))
    local s = assert(grove.sim.new{
      graph = grove.cluster "c" { R.node(2, {hostnames = "n[0-1]"}) { R.core(4) } },
      queue = q})
    s:submit{id = 1, submit = 0, run = 10, procs = 4}
    local ok, err, code = s:step()
    assert.same({nil, "ECANCELED"}, {ok, code})
    assert.equal(0, s:counts().running)
    return err
  end

  for _, r in ipairs(ROUTES) do
    it("stop at the wall clock: " .. r[1], function()
      local err
      local took = cpu(function() err = run(r[2], {budget = 1e15, time = 0.5}) end)
      -- 0.5 s: long enough that a loaded machine does not stop the policy
      -- before it reaches the loop's line
      -- (line 6 when the clock is read between calls; none when it runs
      -- out inside a metered library call)
      assert.matches("^queue policy q: q%.lua:?6?: wall%-clock limit of 0%.5 s exceeded$", err)
      assert.is_true(took < 20, ("%.1f s"):format(took))
    end)

    if r[3] then
      it("are charged before they work: " .. r[1], function()
        local err = run(r[3], {budget = r[4], time = 1e6, memory = r[5]})
        assert.matches(("^queue policy q: q%%.lua:6: instruction budget of %d exceeded$")
          :format(r[4]), err)
      end)
    end
  end
end)

describe("the metered library functions", function()
  -- the same code in the host (the standard library) and in a sandbox
  -- (Grove's versions, through a script handle, whose results leave the
  -- sandbox as copies)
  local probe = [[
    return { f = function()
    local out = {}
    local function put(...)
      local t = table.pack(...)
      for i = 1, t.n do t[i] = tostring(t[i]) end
      out[#out + 1] = table.concat(t, ",", 1, t.n)
    end
    local function try(...) put(pcall(...)) end
    put(("ab"):rep(3, ","), ("ab"):rep(0), ("ab"):rep(-1), (""):rep(5), ("x"):rep(1))
    put(#("abc"):rep(100000, "--"), ("a"):rep(3, ""), (""):rep(3, "-"))
    try(string.rep, "ab", math.maxinteger)
    local t = {1, 2, 3, 4, 5}
    put(table.concat(table.move(t, 2, 4, 1), ","))
    t = {1, 2, 3, 4, 5}
    put(table.concat(table.move(t, 1, 4, 2), ","))
    put(table.concat(table.move({1, 2, 3}, 1, 3, 1, {}), ","))
    put(table.concat(table.move({1, 2, 3}, 1, 0, 1, {9}), ","))
    try(table.move, {}, -1, math.maxinteger, 1)
    try(table.move, {}, 1, 10, math.maxinteger)
    try(table.move, 1, 1, 2, 3)
    t = {1, 2, 3}
    table.insert(t, 4) table.insert(t, 1, 0) table.insert(t, 3, 9)
    put(table.concat(t, " "))
    try(table.insert, t, 9, 1)
    try(table.insert, t, 1, 2, 3)
    try(table.insert, 5, 1)
    put(table.remove(t), table.remove(t, 1), table.remove(t, #t + 1), table.concat(t, " "))
    put(table.remove({}), table.remove({}, 0))
    try(table.remove, {1, 2}, 5)
    put(table.concat({}), table.concat({1, "b", 3.5}, "-"), table.concat({1, 2, 3}, ",", 2, 3))
    put(table.concat({1, 2, 3}, ",", 3, 2))
    try(table.concat, {1, {}, 3})
    put(table.unpack({1, 2, 3})) put(table.unpack({1, 2, 3}, 2)) put(table.unpack({1, 2}, 0, 3))
    put(select("#", table.unpack({}, 3, 1)))
    try(table.unpack, {}, 1, 1e8)
    local big = {}
    for i = 1, 3000 do big[i] = (i * 7919) % 3001 end
    table.sort(big)
    local sorted = true
    for i = 2, #big do sorted = sorted and big[i - 1] <= big[i] end
    t = {5, 2, 8, 1}
    table.sort(t, function(a, b) return a > b end)
    put(sorted, table.concat(t, ","))
    try(table.sort, {3, 2, 1}, 5)
    put(("hello"):byte(-3, -1)) put(("hello"):byte(10)) put(("hello"):byte(0, 2))
    put(utf8.codepoint("h\u{e9}llo", 1, -1))
    put(("x = %5.1f"):format(3.14159), string.pack("i4", 7):byte(1, -1))
    return table.concat(out, "\n")
    end }]]

  it("answer as the standard library does", function()
    -- the name a message gives a function is the first one found for it
    -- among the loaded modules (in the host, another library may have
    -- taken table.insert as its own): compared without it
    local function unnamed(text)
      return (text:gsub("(bad argument #%d+ to )'[^']*'", "%1F"))
    end
    local want = assert(load(probe))().f()
    local s = assert(core.script_load(probe, "s.lua"))
    local ok, got = s:call("f")
    assert.is_true(ok, got)
    assert.equal(unnamed(want), unnamed(got))
    assert.matches("bad argument #2 to 'table.insert' %(position out of bounds%)", got)
  end)
end)

describe("table.sort in a sandbox", function()
  -- a natural merge sort: stable, n - 1 comparisons on an input already
  -- in order either way, the same order as the host's sort otherwise
  local probe = [[
    return { f = function(n, seed, dup)
    local x = seed
    local function rnd(m) x = (x * 1103515245 + 12345) % 2147483648; return x % m end
    local t, calls = {}, 0
    for i = 1, n do t[i] = {k = rnd(dup), i = i} end
    local function by_k(a, b) calls = calls + 1; return a.k < b.k end
    table.sort(t, by_k)
    local out = {}
    for i = 1, n do out[i] = t[i].k .. ":" .. t[i].i end
    local asc, desc = {}, {}
    for i = 1, n do asc[i] = i; desc[i] = n + 1 - i end
    calls = 0
    table.sort(asc, function(a, b) calls = calls + 1; return a < b end)
    local c_asc = calls
    calls = 0
    table.sort(desc, function(a, b) calls = calls + 1; return a < b end)
    local c_desc = calls
    local ok = true
    for i = 1, n do ok = ok and asc[i] == i and desc[i] == i end
    local nums = {}
    for i = 1, n do nums[i] = rnd(1000) end
    table.sort(nums)
    local s = {}
    for i = 1, n do s[i] = tostring(nums[i]) end
    return table.concat(out, " "), c_asc, c_desc, ok, table.concat(s, " ")
    end,
    meta = function()
      local store = {5, 3, 9, 1}
      local t = setmetatable({}, {__index = store, __newindex = store,
                                  __len = function() return #store end})
      table.sort(t)
      return table.concat(store, ",")
    end,
    bad = function() return pcall(table.sort, {3, "a", 1}) end,
    raise = function()
      return pcall(table.sort, {3, 2, 1}, function() error("no order", 0) end)
    end }]]

  -- the reference: a stable insertion sort by k, then i
  local function reference(n, seed, dup)
    local x = seed
    local function rnd(m) x = (x * 1103515245 + 12345) % 2147483648; return x % m end
    local t = {}
    for i = 1, n do t[i] = {k = rnd(dup), i = i} end
    table.sort(t, function(a, b) return a.k < b.k or (a.k == b.k and a.i < b.i) end)
    local out = {}
    for i = 1, n do out[i] = t[i].k .. ":" .. t[i].i end
    local nums = {}
    for i = 1, n do nums[i] = rnd(1000) end
    table.sort(nums)
    local s = {}
    for i = 1, n do s[i] = tostring(nums[i]) end
    return table.concat(out, " "), table.concat(s, " ")
  end

  local s = assert(core.script_load(probe, "sort.lua"))
  for _, case in ipairs{{0, 1, 5}, {1, 2, 5}, {2, 3, 1}, {7, 4, 3}, {8, 5, 2}, {9, 6, 4},
                        {100, 7, 10}, {1000, 8, 1000000}, {5000, 9, 40}} do
    local n, seed, dup = case[1], case[2], case[3]
    it(("sorts %d elements stably (keys in 0..%d)"):format(n, dup - 1), function()
      local ok, got, c_asc, c_desc, right, nums = s:call("f", n, seed, dup)
      assert.is_true(ok, got)
      local want, want_nums = reference(n, seed, dup)
      assert.equal(want, got)
      assert.equal(want_nums, nums)
      assert.is_true(right)
      assert.equal(math.max(n - 1, 0), c_asc)
      assert.equal(math.max(n - 1, 0), c_desc)
    end)
  end

  it("reads and writes through metamethods", function()
    local ok, got = s:call("meta")
    assert.is_true(ok, got)
    assert.equal("1,3,5,9", got)
  end)

  it("raises what a comparison raises", function()
    local ok, pok, err = s:call("bad")
    assert.is_true(ok)
    assert.is_false(pok)
    assert.matches("attempt to compare", err)
    ok, pok, err = s:call("raise")
    assert.is_true(ok)
    assert.is_false(pok)
    assert.equal("no order", err)
  end)
end)
