-- grove: the whole Lua API of Grove.
--
-- require "grove" gives the C core (grove.core) with the pure-Lua parts
-- (the cluster DSL, jobspec helpers, ...) layered on top.  Everything the
-- core module exports is reachable here under the same name.
--
--   grove.graph()            an empty graph (grove.core.graph)
--   grove.cluster "name" {}  a graph from the cluster DSL (grove.cluster)
--   grove.jobspec{...}       jobspec shorthands and writers (grove.jobspec)
--   grove.policy.load(name)  a placement policy, built-in or a Lua file
--   grove.sim.new{...}       a batch-queue simulator on the matcher (grove.sim)
--   grove.pretty.show(x)     a value as the REPL prints it (grove.pretty)
--
-- This module only gathers the others; it must not hold functions of its
-- own.
local core = require("grove.core")

local M = {}
for k, v in pairs(core) do
  M[k] = v
end
M.core = core
M.cluster = require "grove.cluster"
M.jobspec = require "grove.jobspec"
M.policy = require "grove.policy"
M.sim = require "grove.sim"
M.pretty = require "grove.pretty"

-- Messages of grove.core about an unknown name (a method, a policy) offer
-- the closest known one through Grove's one edit distance (grove.suggest
-- sets it when loaded; said here too, as this module's promise).
local suggest = require("grove.suggest")
core.set_suggest(suggest.hint)

-- A field the API does not have (grove.jobspc, grove.cluster.resorces,
-- grove.core.grph) raises at the line that read it, with the closest one offered.
for name, mod in pairs {core = core, cluster = M.cluster, jobspec = M.jobspec, policy = M.policy,
                        sim = M.sim, pretty = M.pretty} do
  suggest.strict(mod, "grove." .. name)
end
return suggest.strict(M, "grove")
