-- methods_helper.lua: what several specs check of a handle's getters at
-- once (graph_spec.lua, vertex_spec.lua): each method named answers the
-- value given, and a failure names the method.  It holds no test of its
-- own and knows no Grove type.
local assert = require("luassert")

local M = {}

-- obj:NAME() is want[NAME] (compared with assert.same) for every NAME in
-- want, in name order.
function M.answer(obj, want)
  local names = {}
  for name in pairs(want) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    assert.same(want[name], obj[name](obj), name .. "()")
  end
end

return M
