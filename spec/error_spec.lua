-- Specs for the error codes the bindings report: Grove's own vocabulary
-- (core/error.h) by name, and the system errors of file access that the
-- loaders let through, named as they are (a directory is EISDIR, not a
-- catch-all code).
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")

describe("error codes", function()
  local dir = os.getenv("TMPDIR") or "/tmp"
  local rows = {
    { "jgf_load", dir, "EISDIR", "Is a directory" },
    { "jgf_load", dir .. "/no-such-grove-file.json", "ENOENT", "No such file or directory" },
    { "jobspec_load", dir, "EISDIR", "Is a directory" },
    { "jobspec_load", dir .. "/no-such-grove-file.yaml", "ENOENT", "No such file or directory" },
  }
  for _, row in ipairs(rows) do
    local fn, path, code, text = row[1], row[2], row[3], row[4]
    it(fn .. " of " .. path .. " fails with " .. code, function()
      local v, msg, got = core[fn](path)
      assert.is_nil(v)
      assert.equal(code, got)
      assert.equal(path .. ": " .. text, msg)
    end)
  end

  it("names Grove's own codes as they are", function()
    local _, msg, code = core.jobspec_parse("resources: [")
    assert.equal("EINVAL", code)
    assert.is_string(msg)
  end)
end)
