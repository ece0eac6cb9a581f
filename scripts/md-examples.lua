-- md-examples.lua: run the checked examples of the Markdown pages and
-- compare what they print with what the page shows.
--
--   build/grove run scripts/md-examples.lua BUILD FILE.md [FILE.md ...]
--
-- (from the source tree; scripts/docs runs it for docs/sim.md and
-- docs/policies.md).  A checked example is a fenced ```sh or ```lua block
-- on the line after an HTML comment `<!-- checked -->`; the fenced block
-- that follows it, after blank lines only, is what it prints.  A page may
-- also show a file the examples use: a fenced block on the line after
-- `<!-- file: NAME -->` is written to NAME, and not run.  The blocks of
-- one page run in page order, in one scratch directory of their own
-- (files one block writes, a later block reads), where examples/ and
-- policies/ are the source tree's and `grove` is BUILD/grove: a ```sh
-- block with `sh -e`, a ```lua block with `grove run`.  Each line a ```sh
-- block shows must appear in what it printed (stdout and stderr), in
-- order, other lines between them allowed: a page shows the lines that
-- matter, not every one.  A ```lua block must print exactly the lines
-- shown, no other (blank lines aside), so that an example that shows
-- where jobs go fails when any of them goes elsewhere.  Lines are
-- compared with runs of blanks as one space; a line shown ending in "..."
-- matches any line that begins with the text before it.  A failure prints
-- "FILE:LINE: reason" (LINE the line shown that was not found, or the
-- block's) and the output, and the status is 1.
local build, pages = arg[1], {}
for k = 2, #arg do pages[#pages + 1] = arg[k] end
if not build or #pages == 0 then
  io.stderr:write("usage: grove run scripts/md-examples.lua BUILD FILE.md ...\n")
  os.exit(2)
end

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function squash(s) return (s:gsub("%s+", " "):gsub("^ ", ""):gsub(" $", "")) end

-- The checked blocks and files of a page, in page order:
-- {line =, lang = "sh" or "lua", code =, expect = {{line =, text =}, ...}},
-- or {line =, file = NAME, code =}.
local function blocks(path)
  local lines = {}
  for l in io.lines(path) do lines[#lines + 1] = l end
  local out, i = {}, 1
  -- the fenced block whose opening line is lines[at]: its lines, and the
  -- index of the line after its closing fence
  local function body(at)
    local code, k = {}, at + 1
    while lines[k] and not lines[k]:match("^```%s*$") do
      code[#code + 1] = lines[k]
      k = k + 1
    end
    return code, k + 1
  end
  while i <= #lines do
    local file = lines[i]:match("^%s*<!%-%- file: (%S+) %-%->%s*$")
    local lang = lines[i]:match("^%s*<!%-%- checked %-%->%s*$") and lines[i + 1] and
      lines[i + 1]:match("^```(%a+)%s*$")
    if file and lines[i + 1] and lines[i + 1]:match("^```") then
      local code, k = body(i + 1)
      out[#out + 1] = {line = i + 1, file = file, code = code}
      i = k
    elseif lang == "sh" or lang == "lua" then
      local code, k = body(i + 1)
      local b = {line = i + 1, lang = lang, code = code, expect = {}}
      i = k
      local j = i
      while lines[j] and lines[j]:match("^%s*$") do j = j + 1 end
      if lines[j] and lines[j]:match("^```") and not lines[j]:match("^```sh") and
          not lines[j]:match("^```lua") then
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
    local script = table.concat(b.code, "\n") .. "\n"
    if b.file then
      local f = assert(io.open(dir .. "/" .. b.file, "w"))
      f:write(script)
      f:close()
    else
      ran = ran + 1
      local command = "sh -e -c " .. quote(script)
      if b.lang == "lua" then
        local f = assert(io.open(dir .. "/.example.lua", "w"))
        f:write(script)
        f:close()
        command = "grove run .example.lua"
      end
      local p = io.popen(("cd %s && PATH=%s:\"$PATH\" %s 2>&1; echo \"status $?\""):format(
        quote(dir), quote(dir .. "/bin"), command))
      local text = p:read("a")
      p:close()
      local status = tonumber(text:match("status (%d+)\n$"))
      text = text:gsub("status %d+\n$", "")
      local got = {}
      for l in text:gmatch("[^\n]*") do
        if b.lang == "sh" or l:match("%S") then got[#got + 1] = squash(l) end
      end
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
            if b.lang == "lua" then break end
          end
          if not found then
            bad = ("%s:%d: not printed%s: %s"):format(page, e.line,
              b.lang == "lua" and " (as the next line)" or " (in this order)", e.text)
            break
          end
        end
        if not bad and b.lang == "lua" and k <= #got then
          bad = ("%s:%d: printed and not shown: %s"):format(page, b.line, got[k])
        end
      end
      if bad then
        failures = failures + 1
        io.stderr:write(bad, "\n", "the example printed:\n", text)
      end
    end
  end
  os.execute("rm -rf " .. quote(dir))
end
io.stderr:write(("md-examples: %d examples, %d failed\n"):format(ran, failures))
os.exit(failures == 0 and 0 or 1)
