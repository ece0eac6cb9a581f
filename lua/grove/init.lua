-- grove: the whole Lua API of Grove.
--
-- require "grove" gives the C core (grove.core) with the pure-Lua parts
-- (the cluster DSL, jobspec helpers, ...) layered on top.  Everything the
-- core module exports is reachable here under the same name.
local core = require "grove.core"

local M = {}
for k, v in pairs(core) do
  M[k] = v
end
M.core = core

return M
