-- rackfit: pass over racks that cannot hold what the request still needs.
--
-- A job whose nodes share a rack talks through one switch.  Before the
-- walk enters a rack, the policy compares the cores the rack has free
-- during the window being tried (its pruning aggregate, one query) with
-- the cores the request still needs (ctx.need.core: what it asks in all
-- less what this match has already found), and skips the rack when it
-- falls short.  Only racks are asked (prune_types); a request that names
-- no cores is never filtered.
--
-- Load it with grove.policy.load("examples/policies/rackfit.lua").  It is
-- loaded as text into a sandbox: no modules, files or globals.
return {
  name = "rackfit",
  description = "skip racks with fewer free cores than the request still needs",
  prune_types = "rack",
  prune = function(v, ctx)
    local need = ctx.need.core
    return need ~= nil and v:aggregate("core") < need
  end,
}
