-- grove.sim.heap: binary min-heaps for the simulator's event lists.
--
--   local h = heap.new(less)      less(a, b): a comes first
--   h:push(x)  h:peek()  h:pop()  #h (h.n)
--
-- It holds the heap only: nothing of events, jobs or time.
local M = {}

local Heap = {}
Heap.__index = Heap
Heap.__len = function(h) return h.n end

function M.new(less)
  return setmetatable({n = 0, less = less}, Heap)
end

function Heap:push(x)
  local n = self.n + 1
  self.n = n
  local less = self.less
  local i = n
  while i > 1 do
    local p = i // 2
    local y = self[p]
    if not less(x, y) then break end
    self[i] = y
    i = p
  end
  self[i] = x
end

function Heap:peek()
  return self[1]
end

function Heap:pop()
  local n = self.n
  if n == 0 then return nil end
  local top = self[1]
  local x = self[n]
  self[n] = nil
  n = n - 1
  self.n = n
  if n > 0 then
    local less = self.less
    local i = 1
    while true do
      local c = 2 * i
      if c > n then break end
      if c < n and less(self[c + 1], self[c]) then c = c + 1 end
      if not less(self[c], x) then break end
      self[i] = self[c]
      i = c
    end
    self[i] = x
  end
  return top
end

return M
