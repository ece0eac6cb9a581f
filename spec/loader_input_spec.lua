-- Bad input to every loader of grove.core: a row per loader and kind of
-- input (empty, NUL bytes, bytes that are not UTF-8, JSON of the wrong
-- types, numbers past any integer, nesting far past any limit, a directory,
-- /dev/zero).  Each returns nil, a message and a code, never raises, and
-- names the file when it read one; /dev/zero is refused at its first byte
-- instead of being read until memory runs out.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local expect = require("expect")

-- Inputs given as text.
local texts = {
  empty = "",
  nul = "a\0b",
  non_utf8 = "\xff\xfe\xc3(",
  wrong_types = '{"version":"x","execution":[],"graph":5,"resources":7,"tasks":"t","attributes":3}',
  huge_numbers = '{"version":1e400,"resources":[{"type":"node","count":18446744073709551616}]}',
  deep = string.rep("[", 100000),
}

-- Readers of text: name, the call, the kinds it accepts (an idset or a
-- hostlist may be empty).
local text_readers = {
  {"jgf_decode", function(t) return core.jgf_decode(t) end},
  {"grug_read", function(t) return core.grug_read(t) end},
  {"rv1_decode", function(t) return core.rv1_decode(t) end},
  {"jobspec_parse", function(t) return core.jobspec_parse(t) end},
  {"jobspec_parse v1", function(t) return core.jobspec_parse(t, {v1 = true}) end},
  {"constraint", function(t) return core.constraint(t) end},
  {"idset", function(t) return core.idset(t) end, {empty = true}},
  {"hostlist", function(t) return core.hostlist(t) end, {empty = true}},
  {"policy_parse", function(t) return core.policy_parse(t, "p.lua") end},
  {"hwloc_load xml_text", function(t) return core.hwloc_load {xml_text = t} end},
}

-- Readers of files.
local file_readers = {
  {"jgf_load", core.jgf_load},
  {"grug_load", core.grug_load},
  {"rv1_load", core.rv1_load},
  {"jobspec_load", core.jobspec_load},
  {"state_read", core.state_read},
  {"policy_load", core.policy_load},
  {"hwloc_load xml", function(p) return core.hwloc_load {xml = p} end},
}

local function write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

-- Run f(...) and return its results packed; a raise fails the test with
-- the error's text.
local function no_raise(f, ...)
  local r = table.pack(pcall(f, ...))
  assert(r[1], "raised: " .. tostring(r[2]))
  return table.unpack(r, 2, r.n)
end

describe("bad text to a reader", function()
  for _, row in ipairs(text_readers) do
    local name, read, accepts = row[1], row[2], row[3] or {}
    for kind, text in pairs(texts) do
      if not accepts[kind] then
        it(name .. ": " .. kind .. " returns nil, message, EINVAL", function()
          local ok, msg, code = no_raise(read, text)
          expect.fails("EINVAL", nil, ok, msg, code)
          assert.is_true(#msg > 0)
        end)
      end
    end
  end

  it("idset and hostlist take the empty text as the empty set", function()
    assert.equal(0, #core.idset(""))
    assert.equal(0, #core.hostlist(""))
  end)
end)

describe("bad files to a loader", function()
  local dir = os.tmpname()
  local files = {}
  setup(function()
    for _, kind in ipairs {"empty", "nul", "non_utf8", "wrong_types", "huge_numbers", "deep"} do
      files[kind] = dir .. "." .. kind
      write(files[kind], texts[kind])
    end
  end)
  teardown(function()
    for _, path in pairs(files) do
      os.remove(path)
    end
    os.remove(dir)
  end)

  for _, row in ipairs(file_readers) do
    local name, load = row[1], row[2]
    for _, kind in ipairs {"empty", "non_utf8", "wrong_types", "huge_numbers", "deep"} do
      it(name .. ": " .. kind .. " returns nil, a message naming the file, EINVAL", function()
        local ok, msg, code = no_raise(load, files[kind])
        expect.fails("EINVAL", nil, ok, msg, code)
        assert.equal(files[kind], msg:sub(1, #files[kind]))
      end)
    end

    it(name .. ": NUL bytes are refused at the first", function()
      expect.fails("EINVAL", files.nul .. ": byte 1 is NUL: not a text file",
                   no_raise(load, files.nul))
    end)

    it(name .. ": /dev/zero is refused at its first byte", function()
      expect.fails("EINVAL", "/dev/zero: byte 0 is NUL: not a text file",
                   no_raise(load, "/dev/zero"))
    end)

    it(name .. ": a directory is EISDIR", function()
      expect.fails("EISDIR", "spec/fixtures: Is a directory", no_raise(load, "spec/fixtures"))
    end)

    it(name .. ": a missing file is ENOENT", function()
      local missing = dir .. ".missing"
      expect.fails("ENOENT", nil, no_raise(load, missing))
    end)
  end
end)
