-- What the packaging and the man pages must agree with: the Makefile's
-- VERSION in debian/changelog and the rockspec, every `flux grove`
-- subcommand and option in flux-grove(1), every key grove.flux.config
-- reads in sched-grove(5), every grove command in grove(1), and each page
-- free of groff warnings.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local config = require("grove.flux.config")
local files = require("grove.files")

local function read(path) return assert(files.read(path)) end

local VERSION = read("Makefile"):match("\nVERSION := (%S+)")

-- The page's sections: NAME -> its text, for .SH (and .SS within COMMANDS).
local function sections(page, macro)
  local out, name, lines = {}, nil, {}
  for line in (page .. "\n.SH END\n"):gmatch("([^\n]*)\n") do
    local head = line:match("^%." .. macro .. " (.*)$")
    if head or line:match("^%.SH ") then
      if name then out[name] = table.concat(lines, "\n") end
      name, lines = head and head:gsub('"', ""):gsub("\\%-", "-"), {}
    elseif name then
      lines[#lines + 1] = line
    end
  end
  return out
end

local function unescape(text) return (text:gsub("\\%-", "-")) end

describe("the packaging", function()
  it("repeats the Makefile's VERSION in debian/changelog and the rockspec", function()
    assert.truthy(VERSION)
    assert.equal(VERSION, read("debian/changelog"):match("^grove %(([^)]+)%)"))
    local rockspec = "grove-" .. VERSION .. "-1.rockspec"
    assert.truthy(files.readable(rockspec), rockspec .. " is missing")
    assert.equal(VERSION .. "-1", read(rockspec):match('\nversion = "([^"]+)"'))
  end)
end)

describe("the man pages", function()
  it("flux-grove(1): each subcommand a section, each of its long options in it", function()
    local src = read("bindings/flux/cmd/flux-grove.c")
    local opts = {}
    for tbl, body in src:gmatch("struct optparse_option ([%w_]+)%[%] = (%b{})") do
      opts[tbl] = {}
      for long in body:gmatch('{"([%w-]+)", \'') do table.insert(opts[tbl], long) end
    end
    -- JSON_OPTION(...) is the --json entry of every table
    for _, list in pairs(opts) do table.insert(list, "json") end
    local sub = sections(read("docs/man/flux-grove.1"), "SS")
    local n = 0
    for name, body in src:match("subcommands%[%] = (%b{})"):gmatch('{"([%w-]+)",.-, ([%w_]+)}') do
      n = n + 1
      assert.truthy(sub[name], "no section for flux grove " .. name)
      for _, long in ipairs(assert(opts[body], body)) do
        assert.truthy(unescape(sub[name]):find("--" .. long, 1, true),
          ("flux grove %s: no --%s in its section"):format(name, long))
      end
    end
    assert.equal(11, n)
  end)

  it("sched-grove(5): each key of [sched-grove] and of a queue's table in its section", function()
    local page = sections(read("docs/man/sched-grove.5"), "SH")
    local function keys_of(text)
      local set = {}
      for key in unescape(text):gmatch("\n%.TP\n%.B ([%w-]+)") do set[key] = true end
      return set
    end
    local keys, queue_keys = keys_of(page.KEYS), keys_of(page["QUEUE KEYS"])
    for key in pairs(config.KEYS) do
      assert.truthy(keys[key], "sched-grove(5) KEYS has no " .. key)
    end
    assert.truthy(keys["lua-path"], "sched-grove(5) KEYS has no lua-path")
    for key in pairs(config.QUEUE_KEYS) do
      assert.truthy(queue_keys[key], "sched-grove(5) QUEUE KEYS has no " .. key)
    end
  end)

  it("grove(1): each command of lua/grove/cmd a section", function()
    local sub = sections(read("docs/man/grove.1"), "SS")
    local p = io.popen("ls lua/grove/cmd")
    local n = 0
    for file in p:lines() do
      local name = file:match("^(.+)%.lua$")
      if name then
        n = n + 1
        assert.truthy(sub[name], "grove(1) has no section for " .. name)
      end
    end
    p:close()
    assert.is_true(n >= 5)
  end)

  it("are free of groff warnings", function()
    if not os.execute("command -v groff >/dev/null 2>&1") then
      pending("groff is not installed (groff-base)")
      return
    end
    for _, page in ipairs {"grove.1", "flux-grove.1", "sched-grove.5"} do
      local p = io.popen("groff -man -ww -z docs/man/" .. page .. " 2>&1")
      local out = p:read("a")
      p:close()
      assert.equal("", out, page)
    end
  end)
end)
