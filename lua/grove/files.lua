-- grove.files: the one way the pure-Lua modules (and the scripts beside
-- them) read a whole file, ask whether one can be read, and list the
-- directories of the project's shared files.
--
--   files.read(path)          the file's text, or nil, message, "ENOENT"
--   files.readable(path)      true when path can be opened for reading
--   files.dirs(src, share)    the directories named src beside every lua/
--                             directory on package.path (the source tree),
--                             then share/grove/SHARE beside every
--                             share/lua/5.4 on it (an installed copy),
--                             then grove/share/SHARE beside this library
--                             when that exists (a LuaRocks install, whose
--                             tree holds only modules: the rockspec puts
--                             the shared files there)
--
-- It needs no grove.core, so scripts run by a plain lua5.4 can use it.
-- It must not know any format or what the files hold.
local M = {}

function M.read(path)
  local f, err = io.open(path, "rb")
  if not f then return nil, err, "ENOENT" end
  local text = f:read("a")
  f:close()
  return text
end

function M.readable(path)
  local f = io.open(path, "r")
  if f then f:close() end
  return f ~= nil
end

-- A relative "lua/?.lua" on the path stands for the current directory.
function M.dirs(src, share)
  local dirs = {}
  for template in package.path:gmatch("[^;]+") do
    local top = template:match("^(.*)/lua/%?%.lua$") or template:match("^(lua)/%?%.lua$")
      and "."
    if top then dirs[#dirs + 1] = top .. "/" .. src end
    local prefix = template:match("^(.*)/share/lua/5%.4/%?%.lua$")
    if prefix then dirs[#dirs + 1] = prefix .. "/share/grove/" .. share end
  end
  -- A directory opens for reading on Linux: the test that it exists.
  local here = package.searchpath("grove.files", package.path)
  local rock = here and here:gsub("files%.lua$", "share/" .. share)
  if rock and M.readable(rock) then dirs[#dirs + 1] = rock end
  return dirs
end

return M
