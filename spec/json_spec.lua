-- grove.core.json_decode / json_encode: JSON files of Grove's own Lua code
-- through the same reader and writer as the rest of Grove.  Only these
-- two functions are tested here.
local core = require("grove.core")
local expect = require("expect")

describe("grove.core JSON", function()
  it("decodes objects, arrays, numbers and strings; null is nil", function()
    local v = assert(core.json_decode('{"a": [1, 2.5, "x"], "b": null, "c": true}'))
    assert.same({a = {1, 2.5, "x"}, c = true}, v)
    assert.is_true(math.type(v.a[1]) == "integer")
  end)

  it("names the source, line and column of bad text", function()
    expect.fails("EINVAL", "jobs.json:2:3: invalid token near 'x'"
      , core.json_decode("\n  x", "jobs.json"))
    expect.fails_like("EINVAL", "^%(string%):1:%d+: ", core.json_decode("{"))
  end)

  it("leaves out the members at the paths it is told to omit", function()
    local text = '{"a": {"b": {"c": 1, "d": 2}, "e": [1]}, "f": 3, "g": "x"}'
    assert.same({a = {b = {d = 2}, e = {1}}, g = "x"},
      core.json_decode(text, "t", {"a.b.c", "f", "a.x.y", "g.h", "nosuch"}))
    -- a path through an array or a scalar leaves it as it is
    assert.same({a = {1, 2}}, core.json_decode('{"a": [1, 2]}', "t", {"a.1"}))
    assert.same({}, core.json_decode('{"a": [1, 2]}', "t", {"a"}))
    assert.same(7, core.json_decode("7", "t", {"a"}))
    -- a step of 128 bytes or more names no member
    local long = ("k"):rep(130)
    assert.same({[long] = {b = 1}}, core.json_decode('{"' .. long .. '": {"b": 1}}', "t",
      {long .. ".b"}))
    assert.has_error(function() core.json_decode("{}", "t", {1}) end)
    assert.has_error(function() core.json_decode("{}", "t", "a") end)
    -- bad text is refused as without omit
    expect.fails_like("EINVAL", "^t:1:", core.json_decode("{", "t", {"a"}))
  end)

  it("refuses nesting past the limit without raising", function()
    local deep = ("["):rep(core.nest_max + 2) .. ("]"):rep(core.nest_max + 2)
    expect.fails_like("EINVAL", "^deep: JSON nested deeper than", core.json_decode(deep, "deep"))
  end)

  it("encodes with sorted keys, indented or on one line, and reads it back", function()
    local doc = {b = 1, a = {1, 2}, c = "s"}
    assert.equal('{"a": [1, 2], "b": 1, "c": "s"}', core.json_encode(doc))
    local text = assert(core.json_encode(doc, 1))
    assert.truthy(text:find("\n", 1, true))
    assert.same(doc, core.json_decode(text))
  end)

  it("refuses what JSON cannot hold", function()
    expect.fails_like("EINVAL", ".", core.json_encode({f = print}))
    assert.has_error(function() core.json_encode({}, -1) end)
  end)
end)
