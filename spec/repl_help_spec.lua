-- The REPL points of the policy-hooks issue: :help NAME shows the API
-- reference entry (grove.apidoc reads docs/api-src), grove.pretty is part
-- of grove, a big job prints a line per node rather than per core, an
-- iterator over Grove objects prints what it gives, and a bad find term
-- lists the valid ones.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local grove = require("grove")
local apidoc = require("grove.apidoc")
local pretty = require("grove.pretty")
local repl = require("grove.repl")

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
    assert.equal("no entry for 'nothing_here' in the API reference (`make docs` lists them in "
      .. "docs/api/)\n", err:text())
    -- the closest name offered: a method of the class of m, or any entry
    assert.equal("error", s:feed(":help m:matc"))
    assert.equal("no entry for 'm:matc' in the API reference (did you mean 'm:match'?) "
      .. "(`make docs` lists them in docs/api/)\n", err:text())
    assert.equal("error", s:feed(":help policy_lod"))
    assert.equal("no entry for 'policy_lod' in the API reference (did you mean 'policy_load'?) "
      .. "(`make docs` lists them in docs/api/)\n", err:text())
    -- a method's last part alone finds it when one entry has it
    assert.matches("^policy:traceback", assert(apidoc.lookup("traceback")))
    -- and says which entries when several have it
    local none, msg = apidoc.lookup("heap")
    assert.is_nil(none)
    assert.equal("'heap' names several entries: policy:heap, script:heap", msg)
  end)

  it("documents every policy field the loader accepts", function()
    local text = assert(apidoc.lookup("policy_table"))
    for _, f in ipairs {"name", "description", "base", "prune", "order", "score", "choose",
      "select", "node_exclusive", "node_centric", "explore_by_use", "scores",
      "prune_types", "score_types"} do
      assert.matches("\n    " .. f .. " ", text, 1, true)
      -- and each field is an entry of its own
      local one = assert(apidoc.lookup("policy_table." .. f))
      assert.matches("^policy_table%." .. f .. "  %[field, grove%.policy%]\n  %S", one)
    end
  end)

  it("reaches every entry of the reference by its own name, fields included", function()
    local all = assert(apidoc.entries())
    local fields = 0
    for name, e in pairs(all) do
      if e.kind == "field" then fields = fields + 1 end
      local text, msg = apidoc.lookup(name)
      assert(text, name .. ": " .. tostring(msg))
      assert.equal(e.name, text:match("^(%S-)%(?%.?%.?%.?%)?  %["), name)
    end
    assert.is_true(fields > 50)
  end)

  it("shows an entry's example as it is written, line by line", function()
    local text = assert(apidoc.lookup("queue_policy"))
    assert.matches("\n  Example:\n    %-%- shortest: ", text)
    assert.matches("\n    return {\n      name = \"shortest\",\n", text)
  end)
end)

describe("the API reference", function()
  local all = assert(apidoc.entries())

  it("has an entry for a sample of every module, through :help", function()
    local s, out = session()
    for name, first in pairs {
      ["g:add_vertex"] = "graph:add_vertex(...)  [function, grove.core.graphs]",
      ["grove.core.graph"] = "graph(...)  [function, grove.core.graphs]",
      ["vertex:aggregate_avail"] = "vertex:aggregate_avail(...)  [function, grove.core.graphs]",
      ["walker:run"] = "walker:run(...)  [function, grove.core.graphs]",
      ["idset:encode"] = "idset:encode(...)  [function, grove.core.sets]",
      ["hostlist:uniq"] = "hostlist:uniq(...)  [function, grove.core.sets]",
      ["mplanner:totals"] = "mplanner:totals(...)  [function, grove.core.sets]",
      ["grove.core.rv1_decode"] = "rv1_decode(...)  [function, grove.core.io]",
      ["store:load"] = "store:load(...)  [function, grove.core.io]",
      ["acquire:apply"] = "acquire:apply(...)  [function, grove.core.io]",
      sim_match = "sim_match(...)  [function, grove.core.io]",
      error_codes = "error_codes  [table, grove.core.io]",
      ["m:set_now"] = "matcher:set_now(...)  [function, grove.core]",
      ["grove.cluster.link"] = "link(...)  [function, grove.cluster]",
      resource_options = "resource_options  [table, grove.cluster]",
      build_options = "build_options  [table, grove.jobspec]",
      ["grove.jobspec.to_yaml"] = "to_yaml(...)  [function, grove.jobspec]",
      ["grove.pretty.show"] = "show(...)  [function, grove.pretty]",
      ["grove.sim.new"] = "new(...)  [function, grove.sim]",
      ["simulator:advance"] = "simulator:advance(...)  [function, grove.sim]",
      ["session:feed"] = "session:feed(...)  [function, grove.repl]",
    } do
      assert.equal("ok", s:feed(":help " .. name), name)
      assert.equal(first, out:text():match("^[^\n]*"))
    end
  end)

  it("has an entry for every function of grove.core and of the Lua modules", function()
    local core = require("grove.core")
    for k, v in pairs(core) do
      assert.truthy(all["grove.core." .. k] or all[k], "grove.core." .. k)
      if k == "edit" then
        local fields = {}
        for _, line in ipairs(all.edit.fields) do fields[line:match("^%S+")] = true end
        for f in pairs(v) do assert.truthy(fields[f], "grove.core.edit." .. f) end
      end
    end
    for _, mod in ipairs {"grove.cluster", "grove.jobspec", "grove.pretty", "grove.sim",
      "grove.policy", "grove.repl"} do
      for k, v in pairs(require(mod)) do
        if type(v) == "function" and not k:match("^_") then
          assert.truthy(all[mod .. "." .. k], mod .. "." .. k)
        end
      end
    end
  end)

  it("has an entry for every method of every class", function()
    local core = require("grove.core")
    local R = grove.cluster.resources
    local g = grove.cluster "c" { R.node(1) { R.core(2) } }
    local v = g:vertex("/c0/node0")
    local e = v:out_edges()[1]
    local m = core.matcher(g)
    local objects = {graph = g, vertex = v, edge = e, walker = g:walker{}, matcher = m,
      idset = core.idset("0-3"), policy = core.policy_parse("return {}", "empty"),
      planner = core.planner(4, 100), mplanner = core.mplanner{types = {"core"},
        totals = {4}, horizon = 100},
      writer = core.writer(g), rv1 = core.rv1_from_graph(g), acquire = core.acquire(g),
      jobspec = core.jobspec_parse(grove.jobspec.to_yaml(grove.jobspec{nodes = 1})),
      constraint = core.constraint{properties = {"x"}}}
    -- (a hostlist's __index is a function, for h[i]: not listed here)
    for class, obj in pairs(objects) do
      local index = getmetatable(obj).__index
      assert.equal("table", type(index), class)
      for name in pairs(index) do
        if not name:match("^__") then
          assert.truthy(all[class .. ":" .. name], class .. ":" .. name)
        end
      end
    end
    m:close()
  end)

  it("lists every source file and reads them all", function()
    local dir = assert(apidoc.dir())
    local listed = {}
    for _, mod in ipairs(apidoc.MODULES) do
      listed[mod] = true
      assert.truthy(all[mod], mod)
    end
    local p = assert(io.popen("ls '" .. dir .. "'"))
    for f in p:lines() do
      local mod = f:match("^(.*)%.luadoc$")
      if mod then assert.truthy(listed[mod], f .. " is not in apidoc.MODULES") end
    end
    p:close()
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
