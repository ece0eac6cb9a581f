-- sandbox_helper.lua: what the sandbox specs (sandbox_spec,
-- sandbox_limits_spec) share: a matcher holding jobs now and later, a
-- snapshot of everything a match may change, and the one check every abuse
-- case ends with: the match failed with ECANCELED and left the engine's
-- state and the host's Lua state as they were.
--
-- This module holds no spec of its own.
local assert = require("luassert")
local core = require("grove.core")
local expect = require("expect")
local match = require("match_helper")

local M = {}

-- One node with a slot of two cores, for an hour.
M.SPEC = match.nodes_yaml(1, 2, nil, 3600)

-- Everything a match may change: every vertex's status and records, and
-- the job table.
function M.snapshot(g, m)
  local s = {}
  for v in g:vertices() do
    local line = {v:vid(), v:status()}
    for _, r in ipairs(v:records()) do
      line[#line + 1] = ("%d/%s/%d/%d/%s/%s"):format(r.job, r.kind, r.amount, r.start,
        tostring(r["end"]), tostring(r.exclusive))
    end
    s[#s + 1] = table.concat(line, " ")
  end
  for _, j in ipairs(m:jobs()) do
    local line = {"job", j.id, j.state, j.start, tostring(j["end"])}
    for _, p in ipairs(j.picks) do line[#line + 1] = p.vertex:vid() .. ":" .. p.amount end
    s[#s + 1] = table.concat(line, " ")
  end
  return s
end

-- A matcher on tiny holding two jobs (one now, one reserved), so a failed
-- match has something to disturb.
function M.busy_matcher()
  local g = match.tiny()
  local m = core.matcher(g)
  assert(m:match(M.SPEC, "allocate"))
  local whole = match.nodes_yaml(1, 36, nil, 3600)
  assert(m:match(whole, "allocate"))
  local j = assert(m:match(whole, "allocate_orelse_reserve"))
  assert.equal("reserved", j.state)
  return g, m
end

-- Run one match under policy p; it must fail with ECANCELED and message
-- msg (a string, or a Lua pattern when pattern is true) and change
-- nothing.  Then the matcher must still work and the host's Lua state be
-- untouched.
function M.fails_cleanly(p, msg, pattern)
  local g, m = M.busy_matcher()
  local before = M.snapshot(g, m)
  assert(m:set_policy(p))
  local failed = pattern and expect.fails_like or expect.fails
  failed("ECANCELED", msg, m:match(M.SPEC, "allocate_orelse_reserve"))
  assert.same(before, M.snapshot(g, m))
  assert(m:set_policy("first"))
  local ok = assert(m:match(M.SPEC, "allocate"))
  assert.equal("allocated", ok.state)
  assert.is_nil(debug.gethook())
  assert.is_function(string.dump)
  assert.equal("xx", ("x"):rep(2))
  assert.equal(string, getmetatable("").__index)
end

return M
