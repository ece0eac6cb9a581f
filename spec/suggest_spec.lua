-- Specs for grove.suggest: the "did you mean" of unknown names.
local suggest = require("grove.suggest")

describe("grove.suggest", function()
  it("counts edits: insertions, deletions, substitutions and swaps", function()
    assert.equal(0, suggest.distance("easy", "easy"))
    assert.equal(1, suggest.distance("esay", "easy"))       -- a swap
    assert.equal(1, suggest.distance("eas", "easy"))        -- an insertion
    assert.equal(1, suggest.distance("eassy", "easy"))      -- a deletion
    assert.equal(1, suggest.distance("log_level", "log-level"))
    assert.equal(0, suggest.distance("EASY", "easy"))       -- without case
    assert.equal(4, suggest.distance("", "fcfs"))
  end)

  it("offers the closest name within a third of its length", function()
    local names = {"fcfs", "easy", "conservative", "priority"}
    assert.equal("easy", suggest.closest("esay", names))
    assert.equal("conservative", suggest.closest("consrevative", names))
    assert.is_nil(suggest.closest("backfill", names))
    assert.is_nil(suggest.closest("", names))
    assert.is_nil(suggest.closest("easy", {"easy"}))        -- itself is no hint
    assert.equal(" (did you mean 'easy'?)", suggest.hint("eazy", names))
    assert.equal("", suggest.hint("zzzz", names))
  end)

  it("takes the names as a set's keys too, in sorted order", function()
    assert.equal("match", suggest.closest("mach", {match = true, cancel = true, [1] = nil}))
    assert.equal("ab", suggest.closest("a", {ab = 1, ac = 1}))
  end)
end)

describe("grove.check.keys", function()
  local check = require("grove.check")
  local KNOWN = {width = true, depth = true}
  local function f(opts) check.keys(opts, KNOWN, 2, "f") end
  local function g(opts) check.keys(opts, KNOWN, 1, "g", "field", 3) end
  local function h(opts) g(opts) end

  it("takes nil and every known key", function()
    f(nil)
    f({})
    f({width = 1, depth = 2})
  end)

  it("names an unknown key, the closest one and the caller's argument", function()
    assert.has_error(function() f({widht = 1}) end,
      "bad argument #2 to 'f' (unknown option 'widht' (did you mean 'width'?))")
    assert.has_error(function() f({colour = 1}) end,
      "bad argument #2 to 'f' (unknown option 'colour')")
    assert.has_error(function() f({[1] = true}) end,
      "bad argument #2 to 'f' (unknown option '1')")
    -- of several, the first in sorted order; a field when so called
    assert.has_error(function() g({zz = 1, aa = 2, width = 3}) end,
      "bad argument #1 to 'g' (unknown field 'aa')")
  end)

  it("blames the line that called the checked function, or the level given", function()
    local line = debug.getinfo(1, "l").currentline + 1
    local ok, err = pcall(function() f({x = 1}) end)
    assert.is_false(ok)
    assert.equal(("spec/suggest_spec.lua:%d: "):format(line), err:match("^[^:]+:%d+: "))
    line = debug.getinfo(1, "l").currentline + 1
    ok, err = pcall(function() h({x = 1}) end)
    assert.is_false(ok)
    assert.equal(("spec/suggest_spec.lua:%d: "):format(line), err:match("^[^:]+:%d+: "))
  end)
end)

describe("a name that is no method of a Grove object", function()
  local core = require("grove.core")
  local grove = require("grove")         -- sets core.set_suggest to suggest.hint
  local R = grove.cluster.resources

  -- The error of f, raised at the line it was called on: "LINE: message".
  local function raised(f)
    local ok, err = pcall(f)
    assert.is_false(ok)
    return (err:gsub("^spec/suggest_spec%.lua:", ""))
  end

  -- The line this is called on.
  local function here() return debug.getinfo(2, "l").currentline end

  it("raises, naming the class and offering the closest method", function()
    core.set_suggest(suggest.hint)
    local g = grove.cluster "c" {R.node(2) {R.core(2)}}
    local m = core.matcher(g)
    local at, got = here(), raised(function() return m:mach() end)
    assert.equal(at .. ": grove.matcher has no method 'mach' (did you mean 'match'?)", got)
    at, got = here(), raised(function() return g.vertexs end)
    assert.equal(at .. ": grove.graph has no method 'vertexs' (did you mean 'vertex'?)", got)
    at, got = here(), raised(function() return m:frobnicate() end)
    assert.equal(at .. ": grove.matcher has no method 'frobnicate'", got)
    -- a method found is as before; a metamethod is no method to offer
    assert.equal(g, m:graph())
    at, got = here(), raised(function() return core.idset("0-3").__len end)
    assert.equal(at .. ": grove.idset has no method '__len'", got)
    -- without an offer set (grove.core alone), the message stands alone
    core.set_suggest(nil)
    at, got = here(), raised(function() return m:mach() end)
    assert.equal(at .. ": grove.matcher has no method 'mach'", got)
    core.set_suggest(suggest.hint)
    assert.has_error(function() core.set_suggest("x") end,
      "bad argument #1 to 'set_suggest' (function expected, got string)")
  end)

  it("offers nothing when the offer fails, and the message stands", function()
    local m = core.matcher(grove.cluster "c" {R.node(1) {R.core(1)}})
    core.set_suggest(function() error("broken") end)
    assert.matches(": grove.matcher has no method 'mach'$", raised(function() return m:mach() end))
    core.set_suggest(suggest.hint)
  end)
end)
