-- repl_helper.lua: what the REPL specs (repl_spec, repl_help_spec) share:
-- a handle that collects what a session writes.  It holds no test and no
-- assertion.
local M = {}

-- A handle with :write and :flush that keeps what is written; :text()
-- returns it and starts afresh.
function M.sink()
  local s = {parts = {}}
  function s.write(self, ...)
    for i = 1, select("#", ...) do self.parts[#self.parts + 1] = tostring(select(i, ...)) end
    return self
  end
  function s.flush() end
  function s.text(self)
    local t = table.concat(self.parts)
    self.parts = {}
    return t
  end
  return s
end

return M
