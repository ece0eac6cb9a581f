-- Specs for the place in reader errors: a malformed jobspec (YAML), R
-- (JSON) or state file, read from a file, is refused with a message that
-- names the file and the line of the fault, then the path to it and the
-- reason.  One row per kind of fault, each checked exactly.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require "grove.core"
local expect = require "expect"

-- base with the first match of pattern replaced by repl (it must match).
local function mutate(base, pattern, repl)
  local t, n = base:gsub(pattern, repl, 1)
  assert(n == 1, pattern)
  return t
end

local jobspec = [[
version: 1
resources:
  - type: node
    count: 1
    with:
      - type: slot
        count: 1
        label: default
        with:
          - type: core
            count: 2
tasks:
  - command: [app]
    slot: default
    count:
      per_slot: 1
attributes:
  system:
    duration: 3600
]]

local rv1 = [[
{
  "version": 1,
  "execution": {
    "R_lite": [
      {
        "rank": "0-1",
        "children": {
          "core": "0-3"
        }
      }
    ],
    "nodelist": ["node[0-1]"],
    "starttime": 0,
    "expiration": 100
  }
}
]]

local state = [[
{
  "graph": {
    "nodes": [
      {
        "id": "0",
        "metadata": {
          "type": "node", "basename": "node", "name": "node0", "id": 0, "rank": 0,
          "size": 4, "unit": "",
          "status": 0,
          "paths": {"containment": "/node0"},
          "grove": {
            "records": [
              {"job": 1, "amount": 2, "start": 0, "end": 100, "exclusive": false}
            ]
          }
        }
      }
    ],
    "edges": []
  },
  "grove": {
    "format": 1,
    "jobs": [],
    "next_id": 2,
    "policy": "first",
    "acquire": null
  }
}
]]

-- {reader, base, pattern, replacement, message after "FILE:"}
local rows = {
  {"jobspec", jobspec, "count: 2", "count: -2",
   "11: resources[0].with[0].with[0].count: must not be negative (got -2)"},
  {"jobspec", jobspec, "type: core", "typo: core",
   "10: resources[0].with[0].with[0].typo: unknown key (a resource vertex has type, count, "
     .. "unit, exclusive, with, label, id)"},
  {"jobspec", jobspec, "per_slot: 1", "per_slot: 0",
   "16: tasks[0].count.per_slot: must be at least 1 (got 0)"},
  {"jobspec", jobspec, "duration: 3600", "duration: -5",
   "19: attributes.system.duration: must not be negative (got -5)"},
  {"jobspec", jobspec, "label: default", "label: 5",
   "8: resources[0].with[0].label: must be a string (got an integer)"},
  {"jobspec", jobspec, "version: 1\n", "version: 1\nversion: 1\n", "2: duplicate key 'version'"},
  {"jobspec", jobspec, "count: 2", "count: 99999999999999999999",
   "11: integer 99999999999999999999 is out of range"},
  {"R", rv1, '"version": 1', '"version": 2', "2: version: only version 1 is supported (got 2)"},
  {"R", rv1, '"rank": "0%-1"', '"rank": "1-0"',
   '6: execution.R_lite[0].rank: invalid idset "1-0": descending range at position 1'},
  {"R", rv1, '"core": "0%-3"', '"core": 5',
   "8: execution.R_lite[0].children.core: expected an idset string, got an integer"},
  {"R", rv1, '"node%[0%-1%]"', '"node[0-5]"', "12: execution.nodelist: 6 hosts for 2 ranks"},
  {"R", rv1, '"starttime": 0', '"starttime": 200',
   "14: execution.expiration: 100 is not after starttime 200"},
  {"R", rv1, '"rank": "0%-1",', '', '5: execution.R_lite[0]: missing "rank"'},
  {"R", rv1, '"R_lite": %[', '"R_lite": [5, ',
   "4: execution.R_lite[0]: expected an object, got an integer"},
  {"R", rv1, '"execution": {', '"execution": 5, "x": {',
   "3: execution: expected an object, got an integer"},
  {"R", rv1, '"version": 1,', '"version": 1, "version": 1,',
   "2: duplicate object key near '\"version\"'"},
  {"state", state, '"format": 1', '"format": 7', "22: grove.format: expected a format from 1 to 1"},
  {"state", state, '"next_id": 2', '"next_id": 0',
   "24: grove.next_id: expected a positive integer"},
  {"state", state, '"policy": "first"', '"policy": 5',
   "25: grove.policy: expected a string, got an integer"},
  {"state", state, '"acquire": null', '"acquire": 5',
   "26: grove.acquire: expected an object or null, got an integer"},
  {"state", state, '"jobs": %[%]', '"jobs": [5]',
   "23: grove.jobs[0]: expected {id, state, start, end, picks}"},
  {"state", state, '"amount": 2', '"amount": "two"',
   "13: nodes[0].metadata.grove.records[0]: expected {job, amount, start, end, exclusive}"},
  {"state", state, '"id": 0,', '"id": "zero",',
   "7: nodes[0].metadata.id: expected an integer, got a string"},
  {"state", state, '"status": 0', '"status": 9', "9: nodes[0].metadata.status: unknown status 9"},
  -- refused while restoring, after the text was read: the line is still named
  {"state", state, '"amount": 2', '"amount": 9',
   "13: nodes[0].metadata.grove.records[0]: vertex 0: the record of job 1 does not fit "
     .. "(Invalid argument)"},
  {"state", state, '"jobs": %[%]',
   '"jobs": [{"id": 1, "state": "allocated", "start": 0, "end": 100, '
     .. '"picks": [["0", 9, false, true, true]]}]',
   "23: grove.jobs[0]: job 1 does not fit the graph (Invalid argument)"},
}

local readers = {
  jobspec = core.jobspec_load,
  R = core.rv1_load,
  state = core.state_read,
}

describe("reader errors name the file and line", function()
  local path
  before_each(function() path = os.tmpname() end)
  after_each(function() os.remove(path) end)

  it("and the unmodified inputs are read", function()
    for name, text in pairs{jobspec = jobspec, R = rv1, state = state} do
      local f = assert(io.open(path, "w"))
      f:write(text)
      f:close()
      assert(readers[name](path))
    end
  end)

  for i, row in ipairs(rows) do
    it(("%s, row %d: %s"):format(row[1], i, row[4]), function()
      local f = assert(io.open(path, "w"))
      f:write(mutate(row[2], row[3], row[4]))
      f:close()
      expect.fails("EINVAL", path .. ":" .. row[5], readers[row[1]](path))
    end)
  end
end)
