-- grove.repl: the interactive prompt of `grove` (run with no arguments).
--
-- A Lua 5.4 prompt with Grove loaded: the global `grove` (require "grove"),
-- `g` an example cluster (the tiny cluster of examples/tiny.lua), `m` a
-- matcher over it, and `pretty` (grove.pretty).  Expressions are printed
-- the way grove.pretty.show reads best (tables with sorted keys, vertices
-- by path, jobs as trees, graphs as summaries); statements just run.  An
-- unfinished chunk (an open `function`, table, string, ...) continues on
-- the next line, as in the stand-alone lua.  `_` holds the last value
-- printed; a result longer than a screen (MAX_LINES) is cut, with how many
-- lines and entries it has; an assignment whose right side failed the
-- Grove way (nil, message, code) shows the message.  Lines starting with
-- ':' are REPL commands (:help, :load FILE, :query CMD, :time EXPR,
-- :reset, :trace, :quit); lines starting with '!' are commands of the
-- query language (grove.query, the language of `grove query`) run against
-- the graph in `g`.  Lines policies write with `log` are printed as the
-- call that ran them returns.
--
-- On a terminal, lines are read through libedit (grove.core.edit): line
-- editing, history kept in $GROVE_HISTORY or ~/.grove_history (an empty
-- GROVE_HISTORY keeps none; a file that cannot be read or written is
-- ignored; a chunk of several lines is one entry, so Up recalls all of
-- it), Ctrl-L clears the screen, Tab completion of globals, fields and methods (g:ver<Tab>),
-- commands and query words; Ctrl-C abandons the line or interrupts the
-- running code, Ctrl-D leaves.  When standard input is not a terminal the
-- lines are read as they come, with no banner and no prompt, results go to
-- standard output and errors to standard error, and the exit status is 1
-- if any line failed, so scripts can pipe into `grove`.
--
--   local repl = require "grove.repl"
--   local s = repl.new{env = env, out = fh, err = fh}   -- a session
--   s:feed(line)   -> "ok" | "more" | "error" | "quit"
--   s:prompt()     -> the prompt for the next line
--   s:complete(word, line, start) -> a list of replacements for word, or
--                     nil to complete file names
--   s:reset()      -- a new example cluster in env.g, a matcher in env.m
--   repl.main(args) -> exit status
--
-- This module holds the prompt, its completion and commands, and the one
-- description of the example cluster; it must not hold the query language
-- (grove.query) or the printing of values (grove.pretty).
local check = require("grove.check")
local pretty = require("grove.pretty")

local M = {}

local fmt = string.format
local concat = table.concat

M.PROMPT = "grove> "
M.PROMPT2 = "   >> "

-- The lines of a printed result past which it is cut.
M.MAX_LINES = 40

M.HELP = [[
Lua 5.4 with Grove loaded.  Type an expression to see its value, a statement
to run it; unfinished input continues on the next line.  Tab completes names,
fields and methods (g:ver<Tab>), commands and query words.
Globals:
  grove           the Grove API (require "grove")
  g               the example cluster (a graph); m  a matcher over g
  pretty          pretty.show(x), pretty.format(x): how results are printed
Commands:
  :help           this text
  :help NAME      the API reference entry for NAME (m:match, policy_table.score)
  :load FILE      run a Lua file here (the globals it sets stay); a graph
                  it returns becomes g, with m a new matcher over it
  :time EXPR      run EXPR (or a statement) and say how long it took
  !CMD            run a query command on g: !help lists them, e.g.
  :query CMD        !match allocate job.yaml   !find status=up   !list
  :reset          a fresh example cluster in g, a new matcher in m
  :trace          the traceback of the last error
  :quit           leave (Ctrl-D too)
  _               the last value printed (a long one is cut: pretty.show(_))
Examples:
  g:find "node1"  g:find "rack0/*"  g:find "node*/socket1"   (globs on paths)
  g:vertex "/tiny0/rack0/node0"
  j = m:match(grove.jobspec{nodes = 1, cores_per_node = 4})
  j               -- a job prints as the tree of what it holds
  m:cancel(j.id)
  for v in g:vertices{type = "gpu"} do print(v) end
]]

-- ---- the example cluster ----

-- The tiny cluster (examples/tiny.lua returns it; it lives here so an
-- installed grove has it too): one rack of two nodes, each with two
-- sockets of 18 cores, one GPU and four 2 GB memory pools.
function M.example_cluster()
  local grove = require("grove")
  local R = grove.cluster.resources
  return grove.cluster "tiny" {
    R.rack(1) {
      R.node(2, {hostnames = "node[0-1]", ranks = "0-1"}) {
        R.socket(2) {
          R.core(18, {id_scope = "node"}),
          R.gpu(1, {id_scope = "node"}),
          R.memory(4, {size = 2, unit = "GB", id_scope = "node"}),
        },
      },
    },
  }
end

-- ---- completion ----

local function is_ident(s)
  return type(s) == "string" and s:match("^[%a_][%w_]*$") ~= nil and not pretty.keywords[s]
end

-- x[k] without calling any __index function (tables, then __index tables
-- of metatables: methods of userdata, the string library for strings).
local function peek(x, k)
  for _ = 1, 16 do
    if type(x) == "table" then
      local v = rawget(x, k)
      if v ~= nil then return v end
    end
    local mt = getmetatable(x)
    if type(mt) ~= "table" then return nil end
    x = rawget(mt, "__index")
    if type(x) ~= "table" then return nil end
  end
  return nil
end

-- name -> value for every identifier key reachable from x (its own fields
-- first, then its __index tables).
local function fields(x)
  local out = {}
  for _ = 1, 16 do
    if type(x) == "table" then
      for k, v in next, x do
        if is_ident(k) and out[k] == nil then out[k] = v end
      end
    end
    local mt = getmetatable(x)
    if type(mt) ~= "table" then break end
    x = rawget(mt, "__index")
    if type(x) ~= "table" then break end
  end
  return out
end

local function sorted_unique(list)
  table.sort(list)
  local out = {}
  for _, s in ipairs(list) do
    if s ~= out[#out] then out[#out + 1] = s end
  end
  return out
end

-- Completions of a Lua word (a name, or a.b.c followed by '.' or ':' and
-- a partial name) in env: the whole words, sorted.
function M.complete_lua(env, word)
  local prefix, sep, partial = word:match("^(.-)([.:])([%w_]*)$")
  local base, names
  if prefix then
    if prefix == "" then return {} end
    base = env
    for part in (prefix .. "."):gmatch("(.-)%.") do
      if not is_ident(part) then return {} end
      base = peek(base, part)
      if base == nil then return {} end
    end
    names = fields(base)
    prefix = prefix .. sep
  else
    if not word:match("^[%a_]?[%w_]*$") then return {} end
    partial, prefix = word, ""
    names = fields(env)
    for k in pairs(pretty.keywords) do names[k] = names[k] or true end
  end
  local out = {}
  for name, v in pairs(names) do
    if name:sub(1, #partial) == partial and (sep ~= ":" or type(v) == "function") then
      out[#out + 1] = prefix .. name
    end
  end
  return sorted_unique(out)
end

M.COMMANDS = {"help", "load", "query", "quit", "reset", "time", "trace"}

local function query_module()
  local ok, q = pcall(require, "grove.query")
  if ok and type(q) == "table" then return q end
  return nil
end

-- Completions of word in a query command line; before holds the words
-- typed before it.
local function complete_query(before, word, bang)
  local q = query_module()
  if not q then return {} end
  local words = {}
  for w in before:gmatch("%S+") do words[#words + 1] = w end
  local list = {}
  if #words == 0 then
    for _, c in ipairs(q.commands or {}) do list[#list + 1] = bang .. c end
    word = bang .. word
  elseif #words == 1 and (words[1] == "match" or words[1] == "multi-match") then
    for mode in pairs(q.modes or {}) do list[#list + 1] = mode end
  else
    return nil -- file names (jobspecs, graphs)
  end
  local out = {}
  for _, c in ipairs(list) do
    if c:sub(1, #word) == word then out[#out + 1] = c end
  end
  return sorted_unique(out)
end

-- Completions of word, found at line:sub(start + 1) (start: the 0-based
-- offset of word in line), or nil when the editor should complete a file
-- name.
function M.complete(env, word, line, start)
  line = line or word
  start = start or (#line - #word)
  local before = line:sub(1, start)
  if before:match("^%s*$") then
    if word:sub(1, 1) == ":" and word:sub(2, 2) ~= ":" then
      local out = {}
      for _, c in ipairs(M.COMMANDS) do
        if (":" .. c):sub(1, #word) == word then out[#out + 1] = ":" .. c end
      end
      return out
    end
    if word:sub(1, 1) == "!" then return complete_query("", word:sub(2), "!") end
  end
  local cmd, args = before:match("^%s*:(%a+)%s+(.*)$")
  if cmd then
    if cmd == "query" then return complete_query(args, word, "") end
    return nil -- :load FILE
  end
  local rest = before:match("^%s*!(.*)$")
  if rest then return complete_query(rest, word, "") end
  local last = before:sub(-1)
  if last == '"' or last == "'" then return nil end
  -- The editor keeps "x-y.z" one word (for file names): complete "y.z".
  local head, tail = word:match("^(.*[%-/~])(.*)$")
  if head then
    local out = M.complete_lua(env, tail)
    for i, c in ipairs(out) do out[i] = head .. c end
    return out
  end
  return M.complete_lua(env, word)
end

-- ---- sessions ----

local Session = {}
Session.__index = Session

-- A session.  opts: env (the globals; default a new table over _G), out
-- and err (handles with :write and :flush; default io.stdout, io.stderr),
-- catch_interrupt (a function(on) that makes Ctrl-C interrupt running
-- code), chunkname ("=stdin"); any other key raises.
local NEW_OPTIONS = {env = 1, out = 1, err = 1, catch_interrupt = 1, chunkname = 1}

function M.new(opts)
  opts = check.arg(opts or {}, "table", 1, "new")
  check.keys(opts, NEW_OPTIONS, 1, "new")
  local self = setmetatable({}, Session)
  self.env = opts.env or setmetatable({}, {__index = _G})
  self.out = opts.out or io.stdout
  self.err = opts.err or io.stderr
  self.catch_interrupt = opts.catch_interrupt
  self.chunkname = opts.chunkname or "=stdin"
  self.buffer = nil  -- the unfinished chunk, or nil
  self.errors = 0    -- lines that failed
  self.trace = nil   -- traceback of the last error
  return self
end

function Session:prompt()
  return self.buffer and M.PROMPT2 or M.PROMPT
end

function Session:print(s)
  self.out:write(s, "\n")
  self.out:flush()
end

function Session:fail(msg)
  self.errors = self.errors + 1
  self.err:write(msg, "\n")
  self.err:flush()
  return "error"
end

function Session:complete(word, line, start)
  return M.complete(self.env, word, line, start)
end

-- "; 72 items" or "; 3 items, 5 fields": how many entries a plain table
-- has ("" for anything else).
local function entries(v)
  if type(v) ~= "table" or pretty.class(v) then return "" end
  local n, k = #v, 0
  for _ in next, v do k = k + 1 end
  if k == n then return fmt("; %d items", n) end
  if n == 0 then return fmt("; %d fields", k) end
  return fmt("; %d items, %d fields", n, k - n)
end

-- s cut to M.MAX_LINES lines, the last saying what was left out.
local function clip(s, v)
  local lines = {}
  for line in (s .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = line end
  if #lines <= M.MAX_LINES then return s end
  local keep = M.MAX_LINES - 1
  local more = #lines - keep
  for i = #lines, keep + 1, -1 do lines[i] = nil end
  lines[#lines + 1] = fmt("... %d more lines%s (all of it: print(pretty.show(_)))", more,
    entries(v))
  return concat(lines, "\n")
end

-- Print the values of a call (nothing for none); the first is `_` then.
function Session:show(res, first)
  if res.n < first then return end
  local parts, multiline = {}, false
  for i = first, res.n do
    local ok, s = pcall(pretty.show, res[i])
    if not ok then s = fmt("<%s>", type(res[i])) end
    parts[#parts + 1] = clip(s, res[i])
    multiline = multiline or s:find("\n", 1, true) ~= nil
  end
  rawset(self.env, "_", res[first])
  self:print(concat(parts, multiline and "\n" or "\t"))
end

-- Run a compiled chunk, or report why it did not compile (fn nil, err).
function Session:call_chunk(fn, err)
  if not fn then
    self.trace = nil
    return self:fail(err)
  end
  return self:call(fn)
end

-- Run fn(...) catching errors (and Ctrl-C); print its results.
function Session:call(fn, ...)
  local trace
  local function handler(e)
    local msg = type(e) == "string" and e or "error object: " .. pretty.format(e)
    -- The traceback down to the code typed (not the REPL's own frames).
    trace = debug.traceback(msg, 2):gsub("\n\t%(%.%.%.tail calls%.%.%.%)\n\t%[C%]: in function "
      .. "'xpcall'.*$", ""):gsub("\n\t%[C%]: in function 'xpcall'.*$", "")
    return msg
  end
  if self.catch_interrupt then self.catch_interrupt(true) end
  local res = table.pack(xpcall(fn, handler, ...))
  if self.catch_interrupt then self.catch_interrupt(false) end
  if not res[1] then
    self.trace = trace
    return self:fail(tostring(res[2]))
  end
  self:show(res, 2)
  return "ok", res
end

-- An assignment `a, b.c = EXPR, ...` (globals or fields, not `local`) as
-- a function that assigns and, when the right side gave more values than
-- there are targets and the first is nil (a Grove failure: nil, message,
-- code), raises with the message; else nil.
function Session:assignment(chunk)
  local targets, exprs = chunk:match("^%s*([%a_][%w_%.%s,%[%]\"']-)%s*=%s*([^=].*)$")
  if not targets or targets:match("^local%s") or chunk:match("^%s*[%a_][%w_]*%s*==") then
    return nil
  end
  local ntargets = select(2, targets:gsub(",", ",")) + 1
  -- one line, so that errors name the lines typed (no comment could end it)
  if chunk:find("--", 1, true) then return nil end
  local code = fmt("local __pack, __unpack = ... local __r = __pack(%s) "
    .. "%s = __unpack(__r, 1, __r.n) return __r", exprs, targets)
  local fn = load(code, self.chunkname, "t", self.env)
  if not fn then return nil end
  return function()
    local r = fn(table.pack, table.unpack)
    if r.n > ntargets and r[ntargets] == nil and type(r[ntargets + 1]) == "string" then
      local ecode = r[ntargets + 2]
      error(fmt("%s = nil: %s%s", targets, r[ntargets + 1],
        type(ecode) == "string" and " (" .. ecode .. ")" or ""), 0)
    end
  end
end

-- The function of a chunk: as an expression if it is one, else as
-- statements.  nil, "more" when it is unfinished; nil, message on a
-- syntax error.
function Session:compile(chunk)
  local fn = load("return " .. chunk, self.chunkname, "t", self.env)
  if fn then return fn end
  local err
  fn, err = load(chunk, self.chunkname, "t", self.env)
  if fn then return self:assignment(chunk) or fn end
  if err:sub(-5) == "<eof>" then return nil, "more" end
  return nil, err
end

-- Feed one line of input.  Returns "ok", "error", "more" (the chunk is
-- unfinished: feed the next line) or "quit".
function Session:feed(line)
  if not self.buffer then
    local cmd, rest = line:match("^%s*:(%a+)%s*(.-)%s*$")
    if cmd then return self:command(cmd, rest) end
    local q = line:match("^%s*!%s*(.-)%s*$")
    if q then return self:query(q) end
    if line:match("^%s*$") then return "ok" end
  end
  local chunk = self.buffer and self.buffer .. "\n" .. line or line
  local fn, err = self:compile(chunk)
  if err == "more" then
    self.buffer = chunk
    return "more"
  end
  self.buffer = nil
  return self:call_chunk(fn, err)
end

-- Abandon an unfinished chunk (Ctrl-C).
function Session:cancel()
  self.buffer = nil
end

-- The end of the input: an unfinished chunk is an error.
function Session:finish()
  if not self.buffer then return "ok" end
  local _, err = load(self.buffer, self.chunkname, "t", self.env)
  self.buffer = nil
  return self:fail(err or "unfinished input")
end

-- ---- commands ----

local commands = {}

function commands.help(self, arg)
  if arg and arg ~= "" then
    local text, err = require("grove.apidoc").lookup(arg, self.env)
    if not text then return self:fail(err) end
    self:print(text)
    return "ok"
  end
  self.out:write(M.HELP)
  self.out:flush()
  return "ok"
end

local function expand_home(path)
  local home = os.getenv("HOME")
  if home and path:sub(1, 2) == "~/" then return home .. path:sub(2) end
  return path
end

-- :load FILE: run it here; a graph it returns (a cluster file, as
-- examples/tiny.lua) becomes g, with a new matcher over it in m, as the
-- commands and the query language work on g.
function commands.load(self, arg)
  local path = arg:match('^"(.*)"$') or arg:match("^'(.*)'$") or arg
  if path == "" then return self:fail("usage: :load FILE") end
  path = expand_home(path)
  local fn, err = loadfile(path, "t", self.env)
  if not fn then return self:call_chunk(nil, err) end
  local st, res = self:call(fn)
  if st ~= "ok" or pretty.class(res[2]) ~= "grove.graph" then return st end
  local g = res[2]
  local ok, m, merr = pcall(require("grove").matcher, g)
  rawset(self.env, "g", g)
  if ok and m then
    rawset(self.env, "m", m)
    self:print(fmt("g = the graph %s returned, m = a matcher over it", path))
  else
    -- another matcher holds jobs on it: m stays as it was
    self:print(fmt("g = the graph %s returned (m is unchanged: %s)", path,
      tostring(ok and merr or m)))
  end
  return "ok"
end

function commands.query(self, arg)
  return self:query(arg)
end

-- :time EXPR: run it as a line, then how long it took (wall clock).
function commands.time(self, arg)
  if arg == "" then return self:fail("usage: :time EXPR (or a statement)") end
  local fn, err = self:compile(arg)
  if err == "more" then return self:fail(":time: unfinished input") end
  if not fn then return self:fail(err) end
  local clock = require("grove.core").wall_clock
  local t0 = clock()
  local st = self:call(fn)
  local dt = clock() - t0
  self:print(dt < 1 and fmt("time: %.3f ms", dt * 1e3) or fmt("time: %.3f s", dt))
  return st
end

function commands.reset(self)
  local ok, err = pcall(self.reset, self)
  if not ok then return self:fail("reset: " .. tostring(err)) end
  self:print("g = " .. tostring(self.env.g) .. ", m = " .. tostring(self.env.m))
  return "ok"
end

function commands.trace(self)
  self:print(self.trace or "no error traceback")
  return "ok"
end

function commands.quit()
  return "quit"
end

local ALIASES = {h = "help", l = "load", q = "quit", exit = "quit"}

function Session:command(name, arg)
  local fn = commands[ALIASES[name] or name]
  if not fn then
    return self:fail(fmt("unknown command ':%s' (:help lists the commands)", name))
  end
  return fn(self, arg)
end

-- ---- the query language ----

-- The query session over the graph in env.g (a new one when g changed).
function Session:query_session()
  local g = rawget(self.env, "g")
  if pretty.class(g) ~= "grove.graph" then
    return nil, "g is not a graph: the query commands run on the graph in g"
  end
  local qs = self.qs
  if qs and qs.graph == g then return qs end
  local q = query_module()
  if not q then return nil, "the query language (grove.query) is not available" end
  local new, err = q.new{graph = g, out = self.out, info = self.out, err = self.err}
  if not new then return nil, err end
  self.qs = new
  return new
end

function Session:query(line)
  local qs, err = self:query_session()
  if not qs then return self:fail(err) end
  -- Job ids: the query session numbers its own; skip those m:match used.
  local ok, nid = pcall(qs.matcher.next_id, qs.matcher)
  if ok and math.type(nid) == "integer" and nid > (qs.next_id or 0) then qs.next_id = nid end
  local errors = 0
  local err_fh = self.err
  local counter = {
    write = function(_, ...)
      errors = errors + 1
      return err_fh:write(...)
    end,
    flush = function() return err_fh:flush() end,
  }
  qs.err = counter
  local ran, more = pcall(qs.execute, qs, line)
  qs.err = err_fh
  self.out:flush()
  if not ran then return self:fail("query: " .. tostring(more)) end
  if not more then return "quit" end
  if errors > 0 then
    self.errors = self.errors + 1
    return "error"
  end
  return "ok"
end

-- A new example cluster in env.g and a matcher over it in env.m (the one
-- the query commands use).
function Session:reset()
  local g = M.example_cluster()
  self.env.g = g
  self.qs = nil
  local qs = self:query_session()
  self.env.m = qs and qs.matcher or require("grove.core").matcher(g)
end

-- ---- main ----

local function history_path()
  local p = os.getenv("GROVE_HISTORY")
  if p then return p ~= "" and p or nil end
  local home = os.getenv("HOME")
  if home and home ~= "" then return home .. "/.grove_history" end
  return nil
end

local function banner(self)
  local core = require("grove.core")
  self.out:write(fmt("Grove %s (%s), :help for help, Ctrl-D to leave\n",
    tostring(core.version), _VERSION))
  self.out:write(fmt("g = the tiny example cluster, %s\n", tostring(self.env.g)))
  self.out:write("m = a matcher over g; !CMD runs a query command on g (!help)\n")
  self.out:flush()
end

local function interactive(self, edit)
  local hist = history_path()
  if hist then pcall(edit.read_history, hist) end
  edit.set_completer(function(word, line, start)
    return self:complete(word, line, start)
  end)
  banner(self)
  local last
  local entry = {} -- the lines of the chunk being typed: one history entry
  while true do
    local line = edit.readline(self:prompt())
    if line == nil then
      self.out:write("\n")
      break
    elseif line == false then
      self.out:write("\n")
      self:cancel()
      entry = {}
    else
      entry[#entry + 1] = line
      local st = self:feed(line)
      if st ~= "more" then
        local text = concat(entry, "\n")
        entry = {}
        if text:match("%S") and text ~= last then
          edit.add_history(text)
          last = text
          if hist then pcall(edit.write_history, hist) end
        end
      end
      if st == "quit" then break end
    end
  end
  edit.set_completer(nil)
  return 0
end

local function piped(self)
  for line in io.stdin:lines() do
    if self:feed(line) == "quit" then return self.errors > 0 and 1 or 0 end
  end
  self:finish()
  return self.errors > 0 and 1 or 0
end

-- `grove` with no arguments.  Returns the exit status.
function M.main(args)
  if args and #args > 0 then
    io.stderr:write("grove: the prompt takes no arguments\n")
    return 2
  end
  local core = require("grove.core")
  local edit = core.edit
  local tty = edit ~= nil and edit.isatty(0)
  local env = _G
  local self = M.new{env = env, catch_interrupt = tty and edit.catch_interrupt or nil}
  env.grove = require "grove"
  env.pretty = pretty
  local ok, err = pcall(self.reset, self)
  if not ok then self:fail("grove: cannot build the example cluster: " .. tostring(err)) end
  if tty then
    -- policies' log lines, printed as the call that ran them returns
    core.set_log(function(line) self:print(line) end)
    return interactive(self, edit)
  end
  return piped(self)
end

return M
