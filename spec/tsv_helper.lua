-- tsv_helper.lua: the rows of the specs' own data tables (tab-separated
-- files in spec/fixtures/), so that a spec of many cases keeps them as
-- data beside its fixtures and each case still runs, and fails, by name.
-- It holds no test of its own and knows no table's meaning.
local files = require("grove.files")

local M = {}

local unescape = {n = "\n", t = "\t", ["\\"] = "\\"}

-- The rows of the table at path (not blank, not '#' comments), each a list
-- of its ncols fields with the escapes \n, \t and \\ undone, and line = its
-- line number.  A missing file or a row of another width raises, naming
-- the file and line.
function M.rows(path, ncols)
  local text = assert(files.read(path))
  local rows, n = {}, 0
  for line in text:gmatch("([^\n]*)\n") do
    n = n + 1
    if line ~= "" and not line:match("^#") then
      local row = {line = n}
      for field in (line .. "\t"):gmatch("([^\t]*)\t") do
        row[#row + 1] = (field:gsub("\\(.)", unescape))
      end
      if #row ~= ncols then
        error(("%s:%d: %d fields, expected %d"):format(path, n, #row, ncols), 2)
      end
      rows[#rows + 1] = row
    end
  end
  return rows
end

return M
