-- idset_spec.lua: the grove.idset userdata (RFC 22) seen from Lua.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local expect = require("expect")
local sets = require("sets_helper")

local fails, raises = expect.fails, expect.raises

local function list(s)
  return sets.items(s:ids())
end

describe("core.idset", function()
  it("builds empty sets from nothing, nil, '' and '[]'", function()
    for _, s in ipairs { core.idset(), core.idset(nil), core.idset "", core.idset "[]" } do
      assert.equal("grove.idset", getmetatable(s).__name)
      assert.equal(0, s:count())
      assert.is_true(s:empty())
      assert.equal("", tostring(s))
    end
  end)

  it("decodes strings and tables of ids", function()
    assert.equal("1-3,5-6,42", tostring(core.idset "[1-3,5-6,42]"))
    assert.equal("0-2,7", tostring(core.idset { 7, 0, 2, 1, 2 }))
    assert.equal("1048576", tostring(core.idset "1048576"))
    assert.equal("0-4294967294", tostring(core.idset "0-4294967294"))
  end)

  it("returns nil, message, EINVAL for bad strings", function()
    local cases = {
      { "01,2", 'invalid idset "01,2": leading zero at position 1' },
      { "3,2", 'invalid idset "3,2": ids not in ascending order at position 3' },
      { "2,2", 'invalid idset "2,2": duplicate or overlapping id at position 3' },
      { "[0", "invalid idset \"[0\": '[' without matching ']' at position 1" },
      { "0-", 'invalid idset "0-": missing id at position 3' },
      { "-5", 'invalid idset "-5": negative or missing id at position 1' },
      { "1-2x", "invalid idset \"1-2x\": unexpected 'x' at position 4" },
      { "4294967295", 'invalid idset "4294967295": id larger than 4294967294 at position 1' },
      { "1\0002", "invalid idset \"1?2\": unexpected '\\x00' at position 2" },
    }
    for _, c in ipairs(cases) do
      fails("EINVAL", c[2], core.idset(c[1]))
    end
  end)

  it("raises on arguments of the wrong type", function()
    raises(function() core.idset(5) end, "(nil, string or table expected, got number)")
    raises(function() core.idset { 1, -2 } end, "(element 2 is not an id)")
    raises(function() core.idset { 1, 2.5 } end, "(element 2 is not an id)")
    raises(function() core.idset { 4294967295 } end, "(element 1 is not an id)")
  end)

  it("sets and clears ids and ranges, returning the set", function()
    local s = core.idset()
    assert.equal(s, s:set(5))
    s:set(7):set(6):set(10, 12):set(20, 13)
    assert.equal("5-7,10-20", tostring(s))
    assert.equal(s, s:clear(11))
    s:clear(14, 16):clear(100)
    assert.equal("5-7,10,12-13,17-20", tostring(s))
    s:set(0, 4294967294):clear(1, 4294967293)
    assert.equal("0,4294967294", tostring(s))
  end)

  it("raises on ids that are not integers in [0, 4294967294]", function()
    local s = core.idset()
    raises(function() s:set(-1) end, "bad argument #1 to 'set' (id out of range [0, 4294967294])")
    raises(function() s:set(4294967295) end, "(id out of range [0, 4294967294])")
    raises(function() s:set(1.5) end,
      "bad argument #1 to 'set' (number has no integer representation)")
    raises(function() s:set "x" end, "bad argument #1 to 'set' (number expected, got string)")
    raises(function() s:clear(1, -1) end, "bad argument #2 to 'clear' (id out of range")
    raises(function() s:next(-1) end, "bad argument #1 to 'next' (id out of range")
    raises(function() s:prev(nil) end, "bad argument #1 to 'prev' (number expected, got nil)")
    raises(function() s:test "x" end, "bad argument #1 to 'test' (number expected, got string)")
    raises(function() s:nth(0) end, "bad argument #1 to 'nth' (position must be >= 1)")
    raises(function() s.count(5) end,
      "bad argument #1 to 'count' (grove.idset expected, got number)")
  end)

  it("answers test, count, empty, first, last, next, prev and nth", function()
    local s = core.idset "7-9,20"
    assert.is_true(s:test(8))
    assert.is_false(s:test(10))
    assert.is_false(s:test(-1))
    assert.is_false(s:test(1 << 40))
    assert.equal(4, s:count())
    assert.equal(4, #s)
    assert.is_false(s:empty())
    assert.equal(7, s:first())
    assert.equal(20, s:last())
    assert.equal(8, s:next(7))
    assert.equal(20, s:next(9))
    assert.is_nil(s:next(20))
    assert.equal(9, s:prev(20))
    assert.is_nil(s:prev(7))
    assert.equal(7, s:nth(1))
    assert.equal(20, s:nth(4))
    assert.is_nil(s:nth(5))
    local e = core.idset()
    assert.is_nil(e:first())
    assert.is_nil(e:last())
    assert.is_nil(e:next(0))
  end)

  it("encodes with every flag combination", function()
    local s = core.idset "0-3,7"
    assert.equal("0-3,7", s:encode())
    assert.equal("0-3,7", s:encode "range")
    assert.equal("0,1,2,3,7", s:encode "")
    assert.equal("[0,1,2,3,7]", s:encode "brackets")
    assert.equal("[0-3,7]", s:encode "range,brackets")
    assert.equal("[0-3,7]", s:encode "brackets,range")
    assert.equal("7", core.idset("7"):encode "range,brackets")
    raises(function() s:encode "ranges" end,
      "bad argument #1 to 'encode' (flags must be \"range\", \"brackets\" or both, "
        .. "comma-separated)")
    raises(function() s:encode {} end, "bad argument #1 to 'encode' (string expected, got table)")
  end)

  it("fails with EOVERFLOW rather than build a gigantic string", function()
    local s = core.idset "0-4294967294"
    fails("EOVERFLOW", "idset encoding too long", s:encode "")
  end)

  it("computes union, difference and intersect as new sets", function()
    local a, b = core.idset "0-10", core.idset "5-15"
    local u, d, i = a:union(b), a:difference(b), a:intersect(b)
    assert.equal("0-15", tostring(u))
    assert.equal("0-4", tostring(d))
    assert.equal("5-10", tostring(i))
    assert.equal("0-10", tostring(a))
    assert.equal("0-10,20", tostring(a:union "20"))
    assert.equal("0-3", tostring(a:intersect "[0-3]"))
    fails("EINVAL", 'invalid idset "20-": missing id at position 4', a:union "20-")
    raises(function() a:difference(5) end,
      "bad argument #1 to 'difference' (idset or string expected, got number)")
    raises(function() a:intersect() end,
      "bad argument #1 to 'intersect' (idset or string expected, got nil)")
  end)

  it("adds and subtracts in place, returning the set", function()
    local a = core.idset "0-9"
    assert.equal(a, a:add "10-11")
    assert.equal(a, a:add(core.idset "20,21"))
    assert.equal("0-11,20-21", tostring(a))
    assert.equal(a, a:subtract "11-20")
    assert.equal("0-10,21", tostring(a))
    a:subtract(a)
    assert.is_true(a:empty())
    fails("EINVAL", "invalid idset \"x\": unexpected 'x' at position 1", a:add "x")
    raises(function() a:subtract {} end,
      "bad argument #1 to 'subtract' (idset or string expected, got table)")
  end)

  it("copies independently and compares", function()
    local a = core.idset "1-3"
    local c = a:copy()
    assert.is_true(a:equal(c))
    assert.is_true(a == c)
    c:set(4)
    assert.is_false(a:equal(c))
    assert.is_false(a == c)
    assert.is_false(a:equal "1-3")
    assert.equal("1-3", tostring(a))
  end)

  it("has operators for union, difference and intersect", function()
    local a, b = core.idset "0-10", core.idset "5-15"
    assert.equal("0-15", tostring(a | b))
    assert.equal("0-4", tostring(a - b))
    assert.equal("5-10", tostring(a & b))
    assert.equal("0-10,20", tostring(a | "20"))
    assert.equal("11-15", tostring("0-20" & b - a))
    raises(function() return a | "20-" end, 'invalid idset "20-": missing id at position 4')
    raises(function() return a & 5 end, "(idset or string expected, got number)")
  end)

  it("iterates with ids(), also while the set changes", function()
    assert.same({ 1, 2, 3, 9 }, list(core.idset "1-3,9"))
    assert.same({}, list(core.idset ""))
    local s = core.idset "0-5"
    local seen = {}
    for id in s:ids() do
      seen[#seen + 1] = id
      s:clear(id + 1)
    end
    assert.same({ 0, 2, 4 }, seen)
  end)

  it("closes once, through close(), <close> or the collector", function()
    sets.check_close {
      label = "idset", make = core.idset, one = "1-3", many = "1-3", first = 1,
      each = function(s) return s:ids() end,
      also = function(s) return #s end,
    }
  end)
end)

describe("idset.tsv through the binding", function()
  local rows, path = sets.corpus_rows "idset.tsv"
  it("finds the corpus", function() assert.truthy(rows, path) end)
  for _, line in ipairs(rows or {}) do
    local op, input, arg, want = line:match "^([^\t]*)\t([^\t]*)\t([^\t]*)\t([^\t]*)\t"
    it(("%s '%s' %s"):format(op, input, arg), function()
      if op == "decode" then
        local s, _, code = core.idset(input)
        assert.is_nil(s)
        assert.equal("EINVAL", code)
        return
      end
      local s = assert(core.idset(input))
      if op == "encode" then
        local flags = arg == "0" and "" or arg:lower():gsub("|", ",")
        assert.equal(want, s:encode(flags))
      elseif op == "count" then
        assert.equal(tonumber(want), s:count())
      elseif op == "empty" then
        assert.equal(want == "true", s:empty())
      elseif op == "first" or op == "last" then
        assert.equal(want == "NONE" and nil or tonumber(want), s[op](s))
      elseif op == "next" or op == "prev" then
        assert.equal(want == "NONE" and nil or tonumber(want), s[op](s, tonumber(arg)))
      elseif op == "clear_range" then
        local lo, hi = arg:match "^(%d+)-(%d+)$"
        s:clear(tonumber(lo), tonumber(hi))
        assert.equal(want, tostring(s))
      else
        local method = op:gsub("_count$", "")
        local args = {}
        for a in arg:gmatch "%S+" do args[#args + 1] = a end
        if #args == 0 then args[1] = "" end
        for _, a in ipairs(args) do s = assert(s[method](s, a)) end
        if op:match "_count$" then
          assert.equal(tonumber(want), s:count())
        else
          assert.equal(tostring(assert(core.idset(want))), tostring(s))
        end
      end
    end)
  end
  if rows then it("ran every row", function() assert.equal(142, #rows) end) end
end)
