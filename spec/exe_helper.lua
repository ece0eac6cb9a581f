-- exe_helper.lua: how the specs run the grove executable (BUILD/grove,
-- BUILD from GROVE_BUILD, "build" by default) through the shell and read
-- what it printed, its exit status and the files it wrote, and the
-- scratch files and directories the specs give it.  It holds no test and
-- no assertion: the specs judge what comes back.
local M = {}

M.BUILD = os.getenv("GROVE_BUILD") or "build"
M.GROVE = M.BUILD .. "/grove"

-- The shell's transcript of cmdline: standard output and standard error
-- together, then a last line "rc=STATUS".
function M.transcript(cmdline)
  local p = assert(io.popen(cmdline .. " 2>&1; echo \"rc=$?\""))
  local out = p:read("a")
  p:close()
  return out
end

-- What cmdline printed (standard output and error together) and its exit
-- status.
function M.run(cmdline)
  local out = M.transcript(cmdline)
  local rc = tonumber(out:match("rc=(%d+)%s*$"))
  return (out:gsub("rc=%d+%s*$", "")), rc
end

-- The whole of the file at path (a fixture, or a file a run wrote); an
-- error when it cannot be read.
function M.read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

-- Write text to the file at path (made or replaced); an error when it
-- cannot be written.
function M.write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

-- The cells of a line of CSV: a quoted cell (one that holds a comma, such
-- as a hostlist) whole, without its quotes.
local function cells(line)
  local out, i = {}, 1
  repeat
    local cell, after = line:match('^"([^"]*)"()', i)
    if not cell then cell, after = line:match("^([^,]*)()", i) end
    out[#out + 1] = cell
    i = after + 1
  until after > #line
  return out
end

-- The CSV file at path (what grove sim --out wrote): the names of its
-- header, and its rows in file order, each {name = cell text}.
function M.csv(path)
  local head, out = nil, {}
  for line in io.lines(path) do
    if not head then
      head = cells(line)
    else
      local r = {}
      for k, cell in ipairs(cells(line)) do r[head[k]] = cell end
      out[#out + 1] = r
    end
  end
  return head, out
end

-- A new empty scratch directory (os.tmpname's name, made a directory);
-- its path.
function M.scratch_dir()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p '" .. dir .. "'"))
  return dir
end

return M
