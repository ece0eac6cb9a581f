-- scripts/linkcheck.lua, which scripts/docs runs on the generated API
-- reference: every internal link must reach its page and its anchor, and
-- a broken one makes it fail (and so CI's docs check).
--
-- This file holds only specs: fixtures are written to a scratch directory.
local exe = require("exe_helper")

-- Run the checker on a tree of pages {NAME = html}: its exit status and
-- output.
local function check(pages)
  local dir = exe.scratch_dir()
  assert(os.execute("mkdir -p '" .. dir .. "/modules'"))
  for name, html in pairs(pages) do exe.write(dir .. "/" .. name, html) end
  local p = assert(io.popen("lua5.4 scripts/linkcheck.lua '" .. dir .. "' 2>&1"))
  local out = p:read("a")
  local ok = p:close()
  os.execute("rm -rf '" .. dir .. "'")
  return ok, out
end

describe("the API reference's link check", function()
  it("passes links that reach their pages and anchors", function()
    local ok, out = check {
      ["index.html"] = '<a href="modules/a.html">a</a> <a href="modules/a.html#Class_x">x</a>'
        .. ' <a href="https://www.lua.org/manual/5.4/">Lua</a>',
      ["modules/a.html"] = '<a name="Class_x"></a><a href="#Class_x">x</a>'
        .. '<a href="../index.html">up</a><a href="a.html#m:f">f</a><a name = "m:f"></a>',
    }
    assert.is_true(ok, out)
    assert.matches("5 internal links in 2 pages, 0 broken", out, 1, true)
  end)

  it("fails on a missing anchor and on a missing page, naming each", function()
    local ok, out = check {
      ["index.html"] = '<a href="modules/a.html#vertex">v</a><a href="modules/b.html">b</a>',
      ["modules/a.html"] = '<a name="Class_vertex"></a>',
    }
    assert.is_falsy(ok)
    assert.matches("index.html: modules/a.html#vertex (no anchor 'vertex' in modules/a.html)",
      out, 1, true)
    assert.matches("index.html: modules/b.html (no such file)", out, 1, true)
    assert.matches("2 broken", out, 1, true)
  end)
end)
