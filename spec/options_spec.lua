-- grove.options: the command-line reader of grove sim, grove flux-export
-- and grove acquire-replay.
local options = require("grove.options")

local SPEC = {"positional",
  out = {short = "o", value = true},
  quiet = {short = "q"},
  ["keep-cancelled"] = {key = "keep_cancelled"},
  param = {value = true, read = function(o, v)
    local name, val = v:match("^(%w+)=(.*)$")
    if not name then return nil, "--param needs NAME=VALUE, got '" .. v .. "'" end
    o.params = o.params or {}
    o.params[name] = val
    return true
  end},
  compare = {list = true},
}

describe("grove.options", function()
  it("reads --flag=value, --flag value and -f value, the last one winning", function()
    assert.same({out = "b"}, (options.parse({"--out=a", "--out", "b"}, SPEC)))
    assert.same({out = "c"}, (options.parse({"-o", "c"}, SPEC)))
    assert.same({out = ""}, (options.parse({"--out="}, SPEC)))
    assert.same({out = "-"}, (options.parse({"--out", "-"}, SPEC)))
  end)

  it("reads flags, a field of their own, repeatable and list options", function()
    local o, rest = options.parse({"-q", "--keep-cancelled", "--param", "a=1", "--param=b=2",
      "--compare", "x.json", "y.json", "--out", "f"}, SPEC)
    assert.same({quiet = true, keep_cancelled = true, params = {a = "1", b = "2"},
      compare = {"x.json", "y.json"}, out = "f"}, o)
    assert.same({}, rest)
  end)

  it("gives the positional arguments in order, \"-\" among them", function()
    local o, rest = options.parse({"a", "-", "-q", "b"}, SPEC)
    assert.same({quiet = true}, o)
    assert.same({"a", "-", "b"}, rest)
  end)

  it("refuses a bad command line naming the argument", function()
    for _, case in ipairs {
      {{"--out"}, "option --out needs a value"},
      {{"-o"}, "option -o needs a value"},
      {{"--quiet=yes"}, "option --quiet takes no value"},
      {{"--compare=a"}, "option --compare takes its values as separate arguments"},
      {{"--param", "x"}, "--param needs NAME=VALUE, got 'x'"},
      {{"--colour"}, "unknown option --colour"},
      {{"-x"}, "unknown option -x"},
    } do
      local o, err = options.parse(case[1], SPEC)
      assert.is_nil(o)
      assert.are.equal(case[2], err)
    end
    local nopos = {out = {value = true}}
    local o, err = options.parse({"file"}, nopos)
    assert.is_nil(o)
    assert.are.equal("unknown argument file", err)
    o, err = options.parse({"-o", "x"}, nopos)
    assert.is_nil(o)
    assert.are.equal("unknown argument -o", err)
  end)
end)
