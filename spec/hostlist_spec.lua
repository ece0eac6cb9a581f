-- hostlist_spec.lua: the grove.hostlist userdata (RFC 29) seen from Lua.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local expect = require("expect")
local sets = require("sets_helper")

local fails, raises = expect.fails, expect.raises

local function hosts(h)
  return sets.items(h:hosts())
end

describe("core.hostlist", function()
  it("builds empty lists from nothing, nil and ''", function()
    for _, h in ipairs { core.hostlist(), core.hostlist(nil), core.hostlist "" } do
      assert.equal("grove.hostlist", getmetatable(h).__name)
      assert.equal(0, h:count())
      assert.equal(0, #h)
      assert.equal("", tostring(h))
      assert.is_nil(h:first())
      assert.is_nil(h:last())
    end
  end)

  it("decodes strings and tables of strings", function()
    assert.equal("foo[1-3],fooi", tostring(core.hostlist "foo1,foo2,foo3,fooi"))
    assert.same({ "foo0-eth2", "foo1-eth2" }, hosts(core.hostlist "foo[0-1]-eth2"))
    assert.same({ "005", "004", "011", "012", "013" }, hosts(core.hostlist "[005,4,11-13]"))
    assert.equal("n[1-4],login", tostring(core.hostlist { "n[1-2]", "n3,n4", "login" }))
  end)

  it("returns nil, message, code for bad strings", function()
    local cases = {
      { "foo[", "EINVAL", "invalid hostlist \"foo[\": '[' without matching ']' at position 4" },
      { "foo]", "EINVAL", "invalid hostlist \"foo]\": unexpected ']' at position 4" },
      { "foo[]", "EINVAL", 'invalid hostlist "foo[]": empty brackets at position 4' },
      { "foo[x-y]", "EINVAL", "invalid hostlist \"foo[x-y]\": unexpected 'x' at position 5" },
      { "foo[5-3]", "EINVAL", 'invalid hostlist "foo[5-3]": descending range at position 5' },
      { "foo[0-1048576]", "ERANGE",
        'invalid hostlist "foo[0-1048576]": range larger than 1048576 hosts at position 5' },
      { "a\0b", "EINVAL", "invalid hostlist \"a?b\": unexpected '\\x00' at position 2" },
    }
    for _, c in ipairs(cases) do
      fails(c[2], c[3], core.hostlist(c[1]))
    end
    fails("EINVAL", "invalid hostlist \"b[\": '[' without matching ']' at position 2",
      core.hostlist { "a", "b[" })
  end)

  it("raises on arguments of the wrong type", function()
    raises(function() core.hostlist(5) end, "(nil, string or table expected, got number)")
    raises(function() core.hostlist { "a", 5 } end, "(element 2 is not a string)")
    local h = core.hostlist "a"
    raises(function() h:append(5) end,
      "bad argument #1 to 'append' (hostlist or string expected, got number)")
    raises(function() h:delete() end,
      "bad argument #1 to 'delete' (hostlist or string expected, got no value)")
    raises(function() h:nth "x" end, "bad argument #1 to 'nth' (number expected, got string)")
    raises(function() h:find() end, "bad argument #1 to 'find' (string expected, got no value)")
    raises(function() h:contains {} end,
      "bad argument #1 to 'contains' (string expected, got table)")
    raises(function() h.count(5) end,
      "bad argument #1 to 'count' (grove.hostlist expected, got number)")
  end)

  it("appends strings and hostlists, returning how many", function()
    local h = core.hostlist "foo[0-3]"
    assert.equal(3, h:append "foo[7-9]")
    assert.equal(2, h:append(core.hostlist "foo1,bar"))
    assert.equal(0, h:append "")
    assert.equal("foo[0-3,7-9,1],bar", tostring(h))
    assert.equal(9, h:append(h))
    assert.equal(18, #h)
    fails("EINVAL", "invalid hostlist \"x[1-\": '[' without matching ']' at position 2",
      h:append "x[1-")
    assert.equal(18, #h)
  end)

  it("gives hosts by 1-based index through nth and h[i]", function()
    local h = core.hostlist "foo[1-2,4-5],bar"
    assert.equal("foo1", h:nth(1))
    assert.equal("foo4", h:nth(3))
    assert.equal("bar", h:nth(5))
    assert.equal("foo1", h[1])
    assert.equal("bar", h[5])
    assert.is_nil(h[6])
    assert.is_nil(h[0])
    assert.equal("foo1", h:first())
    assert.equal("bar", h:last())
    for _, i in ipairs { 0, 6, -1 } do
      fails("ENOENT", "index out of range", h:nth(i))
    end
    -- a name that is no method raises, blaming the line that read it
    local ok, err = pcall(function() return h.nosuchmethod end)
    assert.is_false(ok)
    assert.matches("^spec/hostlist_spec%.lua:%d+: grove%.hostlist has no method 'nosuchmethod'$",
      err)
  end)

  it("finds hosts exactly, respecting zero padding", function()
    local h = core.hostlist "i[00-05],tst,f00[7-8]"
    assert.equal(1, h:find "i00")
    assert.equal(5, h:find "i04")
    assert.equal(7, h:find "tst")
    assert.equal(9, h:find "f008")
    assert.is_nil(h:find "i0")
    assert.is_nil(h:find "i06")
    assert.is_true(h:contains "i05")
    assert.is_false(h:contains "i5")
    assert.is_false(h:contains "a,b")
    fails("EINVAL", 'invalid host name "a,b"', h:find "a,b")
    fails("EINVAL", 'invalid host name "tst"', h:find "tst\0x")
  end)

  it("deletes the first occurrence of each host", function()
    local h = core.hostlist "foo[0-10],foo5"
    assert.equal(1, h:delete "foo5")
    assert.equal("foo[0-4,6-10,5]", tostring(h))
    assert.equal(2, h:delete(core.hostlist "foo1,foo3,nothere"))
    assert.equal("foo[0,2,4,6-10,5]", tostring(h))
    assert.equal(0, h:delete "")
    fails("EINVAL", 'invalid hostlist "foo[3-1]": descending range at position 5',
      h:delete "foo[3-1]")
    assert.equal(9, h:delete(h))
    assert.equal(0, #h)
  end)

  it("sorts and uniqs in place, returning the list", function()
    local h = core.hostlist "n10,n9,login,n010,n9"
    assert.equal(h, h:sort())
    assert.equal("login,n[9,9-10,010]", tostring(h))
    assert.equal(h, h:uniq())
    assert.equal("login,n[9-10,010]", tostring(h))
    local s = core.hostlist("foo[0-20],foo45,foo12,foo015"):sort()
    assert.equal("foo[0-12,12-20,45,015]", tostring(s))
  end)

  it("copies independently and compares", function()
    local a = core.hostlist "n[1-3]"
    local c = a:copy()
    assert.is_true(a:equal(c))
    assert.is_true(a == c)
    assert.is_true(a == core.hostlist "n1,n2,n3")
    c:append "n4"
    assert.is_false(a == c)
    assert.is_false(a:equal "n[1-3]")
    assert.equal("n[1-3]", a:encode())
  end)

  it("iterates with hosts(), also while the list changes", function()
    assert.same({ "a1", "a2", "b" }, hosts(core.hostlist "a[1-2],b"))
    assert.same({}, hosts(core.hostlist ""))
    local h = core.hostlist "a[1-5],b"
    local seen = {}
    for x in h:hosts() do
      seen[#seen + 1] = x
      if x == "a2" then h:delete "a[1-4]" end
    end
    assert.same({ "a1", "a2", "b" }, seen)
  end)

  it("closes once, through close(), <close> or the collector", function()
    sets.check_close {
      label = "hostlist", make = core.hostlist, one = "a", many = "a[1-3]", first = "a1",
      each = function(h) return h:hosts() end,
      also = function(h) return h[1] end,
    }
  end)
end)

describe("hostlist.tsv through the binding", function()
  local rows, path = sets.corpus_rows "hostlist.tsv"
  it("finds the corpus", function() assert.truthy(rows, path) end)
  for _, line in ipairs(rows or {}) do
    local op, input, arg, want, count, first, last =
      line:match "^([^\t]*)\t([^\t]*)\t([^\t]*)\t([^\t]*)\t([^\t]*)\t([^\t]*)\t([^\t]*)\t"
    it(("%s '%s' %s"):format(op, input:sub(1, 40), arg), function()
      if op == "hostname" then
        -- the parse helper is C-only; a host name is a one-host list
        local h = core.hostlist(input)
        if want == "ERROR" then
          assert.is_true(h == nil or #h ~= 1 or h[1] ~= input)
        else
          assert.equal(input, h[1])
        end
        return
      end
      if op == "decode" and want == "ERROR" then
        local h, msg, code = core.hostlist(input)
        assert.is_nil(h)
        assert.truthy(msg:match "^invalid hostlist")
        assert.truthy(code == "EINVAL" or code == "ERANGE")
        return
      end
      local h = assert(core.hostlist(input))
      if op == "decode" then
        assert.equal(want, tostring(h))
        assert.equal(tonumber(count), #h)
        assert.equal(first ~= "-" and first or nil, h:first())
        assert.equal(last ~= "-" and last or nil, h:last())
      elseif op == "append" then
        assert.equal(tonumber(count), h:append(arg))
        assert.equal(want, tostring(h))
      elseif op == "nth" then
        assert.equal(want ~= "ERROR" and want or nil, (h:nth(tonumber(arg) + 1)))
        assert.equal(tonumber(count), #h)
      elseif op == "find" then
        local i = h:find(arg)
        assert.equal(tonumber(want), i and i - 1 or -1)
      elseif op == "contains" then
        assert.equal(want == "true", h:contains(arg))
      elseif op == "delete" then
        assert.equal(tonumber(count), h:delete(arg))
        assert.equal(want, tostring(h))
      elseif op == "sort" or op == "uniq" then
        assert.equal(want, tostring(h[op](h)))
      else
        error("unknown op " .. op)
      end
    end)
  end
  if rows then it("ran every row", function() assert.equal(118, #rows) end) end
end)
