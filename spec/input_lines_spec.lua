-- Specs for the place in reader errors: a malformed jobspec (YAML), R
-- (JSON) or state file, read from a file, is refused with a message that
-- names the file and the line of the fault, then the path to it and the
-- reason.  One row per kind of fault, each checked exactly.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local expect = require("expect")
local files = require("grove.files")
local tsv = require("tsv_helper")

local DIR = "spec/fixtures/input_lines"

-- base with the first match of pattern replaced by repl (it must match).
local function mutate(base, pattern, repl)
  local t, n = base:gsub(pattern, repl, 1)
  assert(n == 1, pattern)
  return t
end

-- reader name: the reader, and the unmodified document it reads
local readers = {
  jobspec = {core.jobspec_load, assert(files.read(DIR .. "/jobspec.yaml"))},
  R = {core.rv1_load, assert(files.read(DIR .. "/R.json"))},
  state = {core.state_read, assert(files.read(DIR .. "/state.json"))},
}

describe("reader errors name the file and line", function()
  local path
  before_each(function() path = os.tmpname() end)
  after_each(function() os.remove(path) end)

  it("and the unmodified inputs are read", function()
    for _, r in pairs(readers) do
      local f = assert(io.open(path, "w"))
      f:write(r[2])
      f:close()
      assert(r[1](path))
    end
  end)

  -- reader, pattern, replacement, message
  for _, row in ipairs(tsv.rows(DIR .. "/faults.tsv", 4)) do
    it(("%s, faults.tsv:%d: %s"):format(row[1], row.line, row[3]), function()
      local reader = assert(readers[row[1]], "a known reader")
      local f = assert(io.open(path, "w"))
      f:write(mutate(reader[2], row[2], row[3]))
      f:close()
      expect.fails("EINVAL", path .. ":" .. row[4], reader[1](path))
    end)
  end
end)
