-- md-examples.lua: run the checked shell examples of the Markdown pages
-- and compare what they print with what the page shows.
--
--   build/grove run scripts/md-examples.lua BUILD FILE.md [FILE.md ...]
--
-- (from the source tree; scripts/docs runs it for docs/sim.md).  A
-- checked example is a fenced ```sh block on the line after an HTML
-- comment `<!-- checked -->`; the fenced block that follows it, after
-- blank lines only, is what it prints.  The blocks of one page run in
-- turn, with `sh -e`, in one scratch directory of their own (files one
-- block writes, a later block reads), where examples/ and policies/ are
-- the source tree's and `grove` is BUILD/grove.  Each line shown must
-- appear in what the block printed (stdout and stderr), in order, other
-- lines between them allowed: a page shows the lines that matter, not
-- every one.  Lines are compared with runs of blanks as one space; a
-- line shown ending in "..." matches any line that begins with the text
-- before it.  A failure prints "FILE:LINE: reason" (LINE the line shown
-- that was not found, or the block's) and the output, and the status is 1.
local build, pages = arg[1], {}
for k = 2, #arg do pages[#pages + 1] = arg[k] end
if not build or #pages == 0 then
  io.stderr:write("usage: grove run scripts/md-examples.lua BUILD FILE.md ...\n")
  os.exit(2)
end

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function squash(s) return (s:gsub("%s+", " "):gsub("^ ", ""):gsub(" $", "")) end

-- The checked blocks of a page: {line =, code =, expect = {{line =, text =}, ...}}.
local function blocks(path)
  local lines = {}
  for l in io.lines(path) do lines[#lines + 1] = l end
  local out, i = {}, 1
  while i <= #lines do
    if lines[i]:match("^%s*<!%-%- checked %-%->%s*$") and lines[i + 1] and
        lines[i + 1]:match("^```sh%s*$") then
      local b = {line = i + 1, code = {}, expect = {}}
      i = i + 2
      while lines[i] and not lines[i]:match("^```%s*$") do
        b.code[#b.code + 1] = lines[i]
        i = i + 1
      end
      i = i + 1
      local j = i
      while lines[j] and lines[j]:match("^%s*$") do j = j + 1 end
      if lines[j] and lines[j]:match("^```") and not lines[j]:match("^```sh") then
        j = j + 1
        while lines[j] and not lines[j]:match("^```%s*$") do
          if lines[j]:match("%S") then b.expect[#b.expect + 1] = {line = j, text = lines[j]} end
          j = j + 1
        end
        i = j + 1
      end
      out[#out + 1] = b
    else
      i = i + 1
    end
  end
  return out
end

local top = os.getenv("PWD") or "."
local failures, ran = 0, 0
for _, page in ipairs(pages) do
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. quote(dir .. "/bin")))
  assert(os.execute(("ln -s %s %s && ln -s %s %s && ln -s %s %s"):format(
    quote(top .. "/examples"), quote(dir .. "/examples"),
    quote(top .. "/policies"), quote(dir .. "/policies"),
    quote(build .. "/grove"), quote(dir .. "/bin/grove"))))
  for _, b in ipairs(blocks(page)) do
    ran = ran + 1
    local script = table.concat(b.code, "\n")
    local p = io.popen(("cd %s && PATH=%s:\"$PATH\" sh -e -c %s 2>&1; echo \"status $?\""):format(
      quote(dir), quote(dir .. "/bin"), quote(script)))
    local text = p:read("a")
    p:close()
    local status = tonumber(text:match("status (%d+)\n$"))
    local got = {}
    for l in text:gmatch("[^\n]*") do got[#got + 1] = squash(l) end
    local bad
    if status ~= 0 then
      bad = ("%s:%d: the example failed (status %s)"):format(page, b.line, tostring(status))
    else
      local k = 1
      for _, e in ipairs(b.expect) do
        local want = squash(e.text)
        local prefix = want:match("^(.-)%.%.%.$")
        local found = false
        while k <= #got do
          local g = got[k]
          k = k + 1
          if g == want or (prefix and g:sub(1, #prefix) == prefix) then
            found = true
            break
          end
        end
        if not found then
          bad = ("%s:%d: not printed (in this order): %s"):format(page, e.line, e.text)
          break
        end
      end
    end
    if bad then
      failures = failures + 1
      io.stderr:write(bad, "\n", "the example printed:\n", text)
    end
  end
  os.execute("rm -rf " .. quote(dir))
end
io.stderr:write(("md-examples: %d examples, %d failed\n"):format(ran, failures))
os.exit(failures == 0 and 0 or 1)
