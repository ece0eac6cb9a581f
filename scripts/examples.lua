-- examples.lua: run the examples of the Lua API reference and check that
-- every function is documented whole.
--
--   build/grove run scripts/examples.lua [-v] [--show NAME] [FILE.luadoc ...]
--
-- (from the source tree, as scripts/docs and the specs run it).  Without
-- files, every module of the reference
-- (docs/api-src/*.luadoc, grove.apidoc.MODULES).  For each `@function`
-- entry it checks:
--   - an example (`@usage`) that says what it prints: each line that ends
--     in `--> TEXT` expects TEXT to be the next line the example prints,
--     and a line of its own `--> TEXT` the line after that;
--   - a `@return` line (a function that returns nothing says `@return
--     nothing`);
--   - for a function written in Lua, a `@param`/`@tparam` for each
--     parameter it declares;
-- then runs the example and compares what it printed with the lines
-- expected.  Lines are compared with runs of blanks as one space (print
-- separates values with a tab), and an expected line ending in "..."
-- matches any line that begins with the text before it (a path, an
-- address, a time).  A failure prints "FILE:LINE: NAME: reason" (LINE
-- the example's line when it ran) and the status is 1.  -v names each
-- example that passed; --show NAME prints what NAME's example printed,
-- for the person writing it.
--
-- Each example runs in an environment of its own, as the REPL's prompt
-- has it: `grove` (require "grove"), `pretty`, `g` a fresh example cluster
-- (grove.repl.example_cluster(): tiny0, a rack of two nodes of two sockets
-- of 18 cores, a gpu and four 2 GB memory pools each) and `m` a matcher
-- over g; the working directory is the source tree, so examples may read
-- examples/, policies/ and spec/fixtures/.  What an example changes in
-- grove.core's settings (set_log, set_progress, set_suggest,
-- set_policy_finder) is put back after it.
local apidoc = require("grove.apidoc")
local grove = require("grove")
local repl = require("grove.repl")

local verbose, show = false, nil
local paths = {}
do
  local k = 1
  while arg[k] do
    if arg[k] == "-v" then
      verbose = true
    elseif arg[k] == "--show" then
      k = k + 1
      show = arg[k]
    else
      paths[#paths + 1] = arg[k]
    end
    k = k + 1
  end
end

-- The entries to check, from the files given or the whole reference.
local entries = {}
if #paths == 0 then
  for _, mod in ipairs(apidoc.MODULES) do
    local list, err = apidoc.read(mod)
    if not list then
      io.stderr:write("examples: ", err, "\n")
      os.exit(1)
    end
    for _, e in ipairs(list) do entries[#entries + 1] = e end
  end
else
  for _, path in ipairs(paths) do
    local f, err = io.open(path, "r")
    if not f then
      io.stderr:write("examples: ", err, "\n")
      os.exit(1)
    end
    local text = f:read("a")
    f:close()
    local mod = path:match("([^/]+)%.luadoc$") or path
    for _, e in ipairs(apidoc.parse(text, mod, path)) do entries[#entries + 1] = e end
  end
end

local failures, run = 0, 0

-- Paths as the source tree names them.
local cwd = os.getenv("PWD")
local function short(path)
  if cwd and path:sub(1, #cwd + 1) == cwd .. "/" then return path:sub(#cwd + 2) end
  return path
end

local function fail(e, line, fmt, ...)
  failures = failures + 1
  io.stdout:write(("%s:%d: %s: %s\n"):format(short(e.path), line or e.line, e.name,
    fmt:format(...)))
end

-- The code of an example and the lines it must print, in order.
local function expected(e)
  local code, want = {}, {}
  for _, l in ipairs(e.usage) do
    local alone = l:match("^%s*%-%->%s?(.*)$")
    if alone then
      want[#want + 1] = alone
      code[#code + 1] = ""
    else
      local c, w = l:match("^(.-)%s*%-%->%s?(.*)$")
      if c then
        want[#want + 1] = w
        code[#code + 1] = c
      else
        code[#code + 1] = l
      end
    end
  end
  return table.concat(code, "\n"), want
end

local function norm(s)
  return (s:gsub("%s+", " "):gsub("^ ", ""):gsub(" $", ""))
end

local function matches(want, got)
  want, got = norm(want), norm(got)
  local prefix = want:match("^(.-)%s*%.%.%.$")
  if prefix then return got:sub(1, #prefix) == prefix end
  return want == got
end

-- Put back what examples may change in grove.core's settings.
local suggest_hint = require("grove.suggest").hint
local finder = require("grove.policy").find
local function restore()
  grove.core.set_log(nil)
  grove.core.set_progress(nil)
  grove.core.set_suggest(suggest_hint)
  grove.core.set_policy_finder(finder)
end

-- Run the example of e: nil, or the line of the example and the reason
-- it failed.
local function run_example(e)
  local code, want = expected(e)
  local out = {}
  local env = setmetatable({}, {__index = _G})
  env.grove, env.pretty = grove, grove.pretty
  env.g = repl.example_cluster()
  env.m = grove.matcher(env.g)
  env.print = function(...)
    local parts = table.pack(...)
    for i = 1, parts.n do parts[i] = tostring(parts[i]) end
    for l in (table.concat(parts, "\t", 1, parts.n) .. "\n"):gmatch("(.-)\n") do
      out[#out + 1] = l
    end
  end
  local fn, err = load(code, "=example", "t", env)
  if not fn then return 1, err end
  local ok, rerr = xpcall(fn, debug.traceback)
  restore()
  if show == e.name then io.stdout:write(table.concat(out, "\n"), "\n") end
  if not ok then
    return tonumber(tostring(rerr):match("^example:(%d+):")) or 1,
      tostring(rerr):gsub("\n.*", "")
  end
  for i = 1, math.max(#want, #out) do
    if not want[i] then
      return nil, ("printed more than it says: %q"):format(out[i])
    elseif not out[i] then
      return nil, ("printed %d lines, it says %d (the first missing: %q)"):format(#out, #want,
        want[i])
    elseif not matches(want[i], out[i]) then
      return nil, ("line %d printed %q, it says %q"):format(i, out[i], want[i])
    end
  end
  return nil
end

-- The function an entry names in its module: NAME, or TABLE.NAME (a
-- field of the module, or of the module TABLE below it: grove.sim's
-- queue.load, plot.wait_cdf); nil for a method or anything else.
local function entry_function(e)
  if e.module:match("^grove%.core") or e.name:find(":") then return nil end
  local ok, mod = pcall(require, e.module)
  if not ok or type(mod) ~= "table" then return nil end
  local tname, fname = e.name:match("^([%a_][%w_]*)%.([%a_][%w_]*)$")
  if not tname then return rawget(mod, e.name) end
  local sub = rawget(mod, tname)
  if type(sub) ~= "table" then
    local ok2, m2 = pcall(require, e.module .. "." .. tname)
    sub = ok2 and m2 or nil
  end
  return type(sub) == "table" and rawget(sub, fname) or nil
end

-- For a function written in Lua: the parameters it declares.
local function lua_params(e)
  local fn = entry_function(e)
  if type(fn) ~= "function" then return nil end
  local info = debug.getinfo(fn, "Su")
  if info.what ~= "Lua" then return nil end
  return info.nparams
end

local functions = 0
for _, e in ipairs(entries) do
  if e.kind == "function" then
    functions = functions + 1
    local _, want = expected(e)
    if #e.usage == 0 then
      fail(e, nil, "no example (@usage)")
    elseif #want == 0 then
      fail(e, e.usage_line, "the example says nothing it prints (no --> line)")
    end
    if #e.returns == 0 then fail(e, nil, "no @return (say `@return nothing`)") end
    local np = lua_params(e)
    if np and #e.params < np then
      fail(e, nil, "%d @param for %d parameters", #e.params, np)
    end
    if #e.usage > 0 then
      run = run + 1
      local line, why = run_example(e)
      if why then
        fail(e, (e.usage_line or e.line) + (line or 1) - 1, "example: %s", why)
      elseif verbose then
        io.stdout:write(("ok %s\n"):format(e.name))
      end
    end
  end
end
io.stdout:write(("examples: %d functions, %d examples run, %d failures\n"):format(functions, run,
  failures))
os.exit(failures == 0 and 0 or 1)
