-- The REPL points of the policy-hooks issue: :help NAME shows the API
-- reference entry (grove.apidoc reads docs/api-src), grove.pretty is part
-- of grove, a big job prints a line per node rather than per core, an
-- iterator over Grove objects prints what it gives, and a bad find term
-- lists the valid ones.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local grove = require "grove"
local apidoc = require "grove.apidoc"
local pretty = require "grove.pretty"
local repl = require "grove.repl"

local sink = require("repl_helper").sink

local function session()
  local out, err = sink(), sink()
  local env = setmetatable({grove = grove}, {__index = _G})
  local s = repl.new{env = env, out = out, err = err}
  s:reset()
  out:text()
  return s, out, err
end

describe(":help NAME", function()
  it("shows a method's entry through a variable of the session (m:match)", function()
    local s, out = session()
    assert.equal("ok", s:feed(":help m:match"))
    local text = out:text()
    assert.matches("^matcher:match%(%.%.%.%)  %[function, grove%.core%]\n  Match a request%.", text)
    assert.matches("allocate_orelse_reserve", text, 1, true)
    assert.matches("ECANCELED", text, 1, true)
  end)

  it("shows functions, tables and methods by name", function()
    local s, out = session()
    for name, first in pairs {
      policy_load = "policy_load(...)  [function, grove.core]",
      ["grove.core.policy_limits"] = "policy_limits(...)  [function, grove.core]",
      ctx = "ctx  [table, grove.core]",
      ["view:aggregate"] = "view:aggregate(...)  [function, grove.core]",
      policy_table = "policy_table  [table, grove.policy]",
    } do
      assert.equal("ok", s:feed(":help " .. name))
      assert.equal(first, out:text():match("^[^\n]*"))
    end
  end)

  it("says when there is no entry", function()
    local s, _, err = session()
    assert.equal("error", s:feed(":help nothing_here"))
    assert.equal("no entry for 'nothing_here' in the API reference (docs/api/index.html lists "
      .. "them)\n", err:text())
    -- a method's last part alone finds it when one entry has it
    assert.matches("^policy:heap", assert(apidoc.lookup("heap")))
  end)

  it("documents every policy field the loader accepts", function()
    local text = assert(apidoc.lookup("policy_table"))
    for _, f in ipairs {"name", "description", "base", "prune", "order", "score", "choose",
      "select", "node_exclusive", "prune_types", "score_types"} do
      assert.matches("\n    " .. f .. " ", text, 1, true)
    end
  end)
end)

describe("the REPL's printing", function()
  it("has grove.pretty", function()
    assert.equal(pretty, grove.pretty)
  end)

  it("prints a job's cores as runs, not a line each", function()
    local s, out = session()
    assert.equal("ok", s:feed("m:match(grove.jobspec{nodes = 2, cores_per_node = 4})"))
    assert.equal(table.concat({
      "job 1 allocated, start 0, end forever, holds core 8",
      "/tiny0[1:s]", "  rack0[1:s]", "    node0[1:s]", "      socket0[1:s]",
      "        core[0-3] (4)[1:x]", "    node1[1:s]", "      socket0[1:s]",
      "        core[0-3] (4)[1:x]"}, "\n") .. "\n", out:text())
  end)

  it("lists what an iterator over Grove objects gives", function()
    local s, out = session()
    assert.equal("ok", s:feed("g:vertices{type = 'node'}"))
    assert.equal("<iterator over a grove.graph>\n  <vertex /tiny0/rack0/node0>\n"
      .. "  <vertex /tiny0/rack0/node1>\n", out:text())
  end)

  it("lists the valid terms of a find expression after a bad one", function()
    local s, _, err = session()
    assert.equal("error", s:feed("!find type=node"))
    assert.matches("bad term 'type=node' (a term is KEY=VALUE, KEY one of agfilter, "
      .. "jobid-alloc, jobid-span, jobid-tag, names, property, sched-future, sched-now, "
      .. "status;", err:text(), 1, true)
  end)
end)
