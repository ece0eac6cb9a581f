-- Specs for grove.pretty (how the REPL prints values) and the logic of
-- grove.repl: completion, sessions fed line by line, commands and the
-- query commands.  The REPL itself on a terminal is driven by
-- scripts/test-repl.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local grove = require("grove")
local core = require("grove.core")
local pretty = require("grove.pretty")
local repl = require("grove.repl")

local function tiny()
  return repl.example_cluster()
end

local sink = require("repl_helper").sink

local function session(opts)
  opts = opts or {}
  local out, err = sink(), sink()
  local env = setmetatable({grove = grove}, {__index = _G})
  local s = repl.new{env = env, out = out, err = err, catch_interrupt = opts.catch}
  return s, out, err, env
end

-- Feed the lines of steps to the session s in turn; each step is {line,
-- status, out, err}: the status feed must return, and (where not nil) the
-- text written to out and to err since the step before.  A failure names
-- the step.
local function converse(s, out, err, steps)
  for i, st in ipairs(steps) do
    local what = ("step %d (%q)"):format(i, st[1])
    assert.equal(st[2], s:feed(st[1]), what .. ": status")
    if st[3] then assert.equal(st[3], out:text(), what .. ": output") end
    if st[4] then assert.equal(st[4], err:text(), what .. ": errors") end
  end
end

local function tmpfile(text)
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

describe("pretty.quote", function()
  it("escapes quotes, backslashes and control characters", function()
    assert.equal([["a\"b\\c\n\t"]], pretty.quote('a"b\\c\n\t'))
    assert.equal([["\0x\1"]], pretty.quote("\0x\1"))
    assert.equal([["\0012"]], pretty.quote("\0012"))
    assert.equal([["héllo"]], pretty.quote("héllo"))
  end)
  it("raises on a non-string", function()
    assert.has_error(function() pretty.quote(1) end,
      "bad argument #1 to 'quote' (string expected, got number)")
  end)
end)

describe("pretty.format", function()
  it("prints scalars as Lua would read them", function()
    assert.equal("nil", pretty.format(nil))
    assert.equal("true", pretty.format(true))
    assert.equal("42", pretty.format(42))
    assert.equal("1.5", pretty.format(1.5))
    assert.equal("1.0", pretty.format(1.0))
    assert.equal("0/0", pretty.format(0 / 0))
    assert.equal("math.huge", pretty.format(math.huge))
    assert.equal("-math.huge", pretty.format(-math.huge))
    assert.equal('"x y"', pretty.format("x y"))
  end)

  it("names functions by where they are defined", function()
    local f = function() end
    local line = debug.getinfo(1, "l").currentline - 1
    assert.equal(("<function spec/repl_spec.lua:%d>"):format(line), pretty.format(f))
    assert.equal("<function builtin>", pretty.format(print))
  end)

  it("sorts keys: the array part, then numbers, strings, booleans", function()
    local t = {"a", "b", [10] = 1, [-1] = 2, z = 1, y = 2, ["not ident"] = 3,
      ["end"] = 4, [true] = 5, _x = 6}
    assert.equal('{ "a", "b", [-1] = 2, [10] = 1, _x = 6, ["end"] = 4, ["not ident"] = 3, '
      .. "y = 2, z = 1, [true] = 5 }", pretty.format(t, {width = 200}))
  end)

  it("folds a table that does not fit, one entry a line", function()
    local t = {name = ("n"):rep(40), list = {1, 2, 3}, sub = {deep = {x = ("v"):rep(50)}}}
    assert.equal(table.concat({
      "{",
      "  list = { 1, 2, 3 },",
      '  name = "' .. ("n"):rep(40) .. '",',
      '  sub = { deep = { x = "' .. ("v"):rep(50) .. '" } },',
      "}",
    }, "\n"), pretty.format(t))
    assert.equal(table.concat({
      "{",
      "  list = { 1, 2, 3 },",
      '  name = "' .. ("n"):rep(40) .. '",',
      "  sub = {",
      "    deep = {",
      '      x = "' .. ("v"):rep(50) .. '",',
      "    },",
      "  },",
      "}",
    }, "\n"), pretty.format(t, {width = 60}))
  end)

  it("packs short array items on shared lines", function()
    local t = {}
    for i = 1, 30 do t[i] = i * 1000 end
    local s = pretty.format(t, {width = 40})
    assert.equal(table.concat({
      "{",
      "  1000, 2000, 3000, 4000, 5000, 6000,",
      "  7000, 8000, 9000, 10000, 11000, 12000,",
      "  13000, 14000, 15000, 16000, 17000,",
      "  18000, 19000, 20000, 21000, 22000,",
      "  23000, 24000, 25000, 26000, 27000,",
      "  28000, 29000, 30000,",
      "}",
    }, "\n"), s)
  end)

  it("shows a cycle as <cycle> and a shared table in full", function()
    local t = {name = "t"}
    t.self = t
    local shared = {1}
    assert.equal('{ name = "t", self = <cycle> }', pretty.format(t))
    assert.equal("{ a = { 1 }, b = { 1 } }", pretty.format({a = shared, b = shared}))
    local a, b = {}, {}
    a.b, b.a = b, a
    assert.equal("{ b = { a = <cycle> } }", pretty.format(a))
  end)

  it("stops at the depth and item limits", function()
    assert.equal("{ a = { b = {...} } }", pretty.format({a = {b = {c = 1}}}, {depth = 2}))
    assert.equal("{ 1, 2, ... (3 more) }", pretty.format({1, 2, 3, 4, 5}, {items = 2}))
    assert.equal("{ 1, x = 1, ... (1 more) }", pretty.format({1, x = 1, y = 2}, {items = 2}))
    assert.equal("{}", pretty.format({}))
  end)

  it("ignores __pairs and __tostring of plain tables", function()
    local t = setmetatable({a = 1}, {__pairs = function() error("no") end,
      __tostring = function() return "T" end})
    assert.equal("{ a = 1 }", pretty.format(t))
  end)

  it("prints Grove objects by what they are", function()
    local g = tiny()
    local v = g:vertex("/tiny0/rack0/node1")
    assert.equal("<vertex /tiny0/rack0/node1>", pretty.format(v))
    assert.equal("<grove.graph (100 vertices, 198 edges)>", pretty.format(g))
    assert.equal("{ <vertex /tiny0>, n = 1 }", pretty.format({g:root(), n = 1}))
    assert.equal("<idset 1-3>", pretty.format(core.idset("1-3")))
    local R = core.rv1_from_graph(g)
    assert.equal('<rv1 {"version":1,"execution":{"R_lite":[{"rank":"0-1","childr...>',
      pretty.format(R))
  end)

  it("never raises on a closed graph or a dead vertex", function()
    local g = tiny()
    local v, c = g:root(), g:vertex("/tiny0/rack0/node1/socket1/core35")
    assert.truthy(g:unlink(c))
    assert.equal("<vertex (dead)>", pretty.format(c))
    g:close()
    assert.equal("<vertex (dead)>", pretty.format(v))
    assert.equal("<grove.graph (closed)>", pretty.format(g))
    assert.equal("grove.graph (closed)", pretty.show(g))
    assert.equal("<vertex (dead)>", pretty.show(v))
  end)

  it("raises on bad options", function()
    assert.has_error(function() pretty.format({}, 3) end,
      "bad argument #2 to 'format' (table expected, got number)")
    assert.has_error(function() pretty.format({}, {widht = 40}) end,
      "bad argument #2 to 'format' (unknown option 'widht' (did you mean 'width'?))")
    assert.has_error(function() pretty.show({}, {dpeth = 2}) end,
      "bad argument #2 to 'show' (unknown option 'dpeth' (did you mean 'depth'?))")
    local all = {width = 40, depth = 2, items = 5, indent = "  "}
    assert.equal("{ a = { b = {...} } }", pretty.format({a = {b = {c = 1}}}, all))
    assert.equal("{ a = { b = {...} } }", pretty.show({a = {b = {c = 1}}}, all))
  end)
end)

describe("pretty.show", function()
  local g, m
  before_each(function()
    g = tiny()
    m = core.matcher(g)
  end)

  it("summarises a graph", function()
    assert.equal(table.concat({
      "grove.graph (100 vertices, 198 edges)",
      "  subsystems: containment",
      "  roots: /tiny0",
      "  types: cluster 1, core 72, gpu 4, memory 16, node 2, rack 1, socket 4",
      "  now: 0",
    }, "\n"), pretty.show(g))
  end)

  it("draws a job as the tree of its picks", function()
    local j = assert(m:match(grove.jobspec{nodes = 1, cores_per_node = 2, duration = 60}))
    assert.is_true(pretty.is_job(j))
    assert.equal(table.concat({
      "job 1 allocated, start 0, end 60, holds core 2",
      "/tiny0[1:s]",
      "  rack0[1:s]",
      "    node0[1:s]",
      "      socket0[1:s]",
      "        core0[1:x]",
      "        core1[1:x]",
    }, "\n"), pretty.show(j))
    assert.equal("<job 1 allocated, start 0, end 60, 6 picks>", pretty.format(j))
    assert.equal("{ <job 1 allocated, start 0, end 60, 6 picks> }", pretty.format({j}))
  end)

  it("draws whole nodes and pools with their amounts", function()
    local j = assert(m:match(grove.jobspec{nodes = 1, exclusive = true}))
    local s = pretty.show(j)
    assert.matches("^job 1 allocated, start 0, end forever, holds node 1", s)
    assert.matches("\n    node0%[1:x%]", s)
    local mem = g:vertex("/tiny0/rack0/node1/socket0/memory0")
    local fake = {id = 7, state = "reserved", start = 100, ["end"] = 200,
      picks = {{vertex = mem, amount = 2, exclusive = true}}}
    assert.equal("job 7 reserved, start 100, end 200, holds memory 2\n"
      .. "/tiny0/rack0/node1/socket0/memory0[2:x]", pretty.show(fake))
  end)

  it("draws a list of jobs as trees, one after the other", function()
    local j1 = assert(m:match(grove.jobspec{nodes = 1, cores_per_node = 1}))
    local j2 = assert(m:match(grove.jobspec{nodes = 1, cores_per_node = 1}))
    local s = pretty.show(m:jobs())
    assert.equal(pretty.job(j1) .. "\n" .. pretty.job(j2), s)
    assert.matches("core1%[1:x%]", s)
  end)

  it("lists a matcher's jobs with what they hold", function()
    assert(m:match(grove.jobspec{nodes = 1, cores_per_node = 4}))
    assert.equal("grove.matcher (policy first, 1 jobs)\n"
      .. "  job 1 allocated, start 0, end forever: cluster 1, core 4, node 1, rack 1, socket 1",
      pretty.show(m))
  end)

  it("describes a vertex", function()
    local v = g:vertex("/tiny0/rack0/node0")
    v:set_property("color", "blue")
    assert(m:match(grove.jobspec{nodes = 1, cores_per_node = 4}))
    assert.equal(table.concat({
      "vertex /tiny0/rack0/node0",
      "  type node, name node0, id 0, rank 0, size 1, status up",
      '  properties: { color = "blue" }',
      "  children: socket0, socket1",
      "  job 1 shared 4, start 0, end forever",
    }, "\n"), pretty.show(v))
    assert.equal("vertex /tiny0/rack0/node0/socket1/memory7\n"
      .. "  type memory, name memory7, id 7, size 2, unit GB, status up",
      pretty.show(g:vertex("/tiny0/rack0/node0/socket1/memory7")))
  end)

  it("prints a string with a newline as it is, other strings quoted", function()
    assert.equal("a\nb", pretty.show("a\nb"))
    assert.equal('"ab"', pretty.show("ab"))
    assert.equal("{ 1 }", pretty.show({1}))
  end)

  it("prints other Grove objects whole", function()
    local R = core.rv1_from_graph(g)
    assert.equal("<rv1 " .. tostring(R) .. ">", pretty.show(R))
  end)

  it("tells job tables from other tables", function()
    assert.is_false(pretty.is_job({id = 1, state = "x"}))
    assert.is_false(pretty.is_job({id = 1.5, state = "x", picks = {}}))
    assert.is_false(pretty.is_job({id = 1, state = "x", picks = {{vertex = 1}}}))
    assert.is_true(pretty.is_job({id = 1, state = "x", picks = {}}))
    assert.has_error(function() pretty.job({}) end,
      "bad argument #1 to 'job' (job table expected, got table)")
  end)
end)

describe("repl.complete_lua", function()
  local env
  before_each(function()
    local g = tiny()
    env = setmetatable({g = g, grove = grove, s = "text",
      t = {alpha = 1, alps = function() end, beta = {gamma = 2}, [1] = 0, ["x y"] = 1},
      obj = setmetatable({}, {__index = function() error("must not be called") end}),
      inst = setmetatable({own = 1}, {__index = {method = function() end, field = 2}})},
      {__index = _G})
  end)

  it("completes the methods of Grove objects", function()
    assert.same({"g:vertex", "g:vertices"}, repl.complete_lua(env, "g:ver"))
    assert.same({"g:add_child", "g:add_edge", "g:add_vertex"}, repl.complete_lua(env, "g:add"))
    local v = env.g:root()
    env.v = v
    assert.same({"v:parent", "v:path"}, repl.complete_lua(env, "v:pa"))
    assert.same({"v:path"}, repl.complete_lua(env, "v:pat"))
    env.m = core.matcher(env.g)
    assert.same({"m:match"}, repl.complete_lua(env, "m:mat"))
  end)

  it("completes globals, with keywords", function()
    assert.same({"print"}, repl.complete_lua(env, "prin"))
    assert.same({"function"}, repl.complete_lua(env, "func"))
    assert.same({"g", "getmetatable", "goto", "grove"}, repl.complete_lua(env, "g"))
  end)

  it("completes fields of tables and modules", function()
    assert.same({"grove.matcher"}, repl.complete_lua(env, "grove.matc"))
    assert.same({"t.alpha", "t.alps"}, repl.complete_lua(env, "t.al"))
    assert.same({"t.beta.gamma"}, repl.complete_lua(env, "t.beta.g"))
    assert.same({"t.alpha", "t.alps", "t.beta"}, repl.complete_lua(env, "t."))
    assert.same({"string.upper"}, repl.complete_lua(env, "string.up"))
  end)

  it("offers only functions after ':'", function()
    assert.same({"t:alps"}, repl.complete_lua(env, "t:al"))
    assert.same({"inst:method"}, repl.complete_lua(env, "inst:"))
    assert.same({"inst.field", "inst.method", "inst.own"}, repl.complete_lua(env, "inst."))
    assert.same({"s:upper"}, repl.complete_lua(env, "s:up"))
  end)

  it("never calls an __index function", function()
    assert.same({}, repl.complete_lua(env, "obj.x"))
    assert.same({}, repl.complete_lua(env, "obj.x.y"))
  end)

  it("gives nothing for what is not a name path", function()
    assert.same({}, repl.complete_lua(env, "nosuch.x"))
    assert.same({}, repl.complete_lua(env, "t.alpha.x"))
    assert.same({}, repl.complete_lua(env, "g:root.x"))
    assert.same({}, repl.complete_lua(env, ".x"))
    assert.same({}, repl.complete_lua(env, "1abc"))
    assert.same({}, repl.complete_lua(env, "t..x"))
  end)
end)

describe("repl.complete", function()
  local env = setmetatable({g = 1}, {__index = _G})

  it("completes REPL commands at the start of a line", function()
    assert.same({":help"}, repl.complete(env, ":he", ":he", 0))
    assert.same({":quit", ":query"}, (function()
      local r = repl.complete(env, ":qu", ":qu", 0)
      table.sort(r, function(a, b) return a > b end)
      return r
    end)())
    assert.equal(#repl.COMMANDS, #repl.complete(env, ":", ":", 0))
  end)

  it("completes query commands and match modes", function()
    assert.same({"!match"}, repl.complete(env, "!matc", "!matc", 0))
    assert.same({"!cancel", "!cat"}, repl.complete(env, "!ca", "!ca", 0))
    assert.same({"allocate", "allocate_orelse_reserve", "allocate_with_satisfiability"},
      repl.complete(env, "al", "!match al", 7))
    assert.same({"find"}, repl.complete(env, "fi", ":query fi", 7))
    assert.same({"set-property", "set-status"}, repl.complete(env, "set", "! set", 2))
  end)

  it("leaves file names to the editor", function()
    assert.is_nil(repl.complete(env, "exa", ":load exa", 6))
    assert.is_nil(repl.complete(env, "job", "!match allocate job", 16))
    assert.is_nil(repl.complete(env, "exa", 'dofile("exa', 8))
    assert.is_nil(repl.complete(env, "exa", "dofile('exa", 8))
  end)

  it("completes Lua everywhere else", function()
    assert.same({"print"}, repl.complete(env, "prin", "x = prin", 4))
    assert.same({"print"}, repl.complete(env, "prin"))
    assert.same({"1-print", "x/print", "~print"}, {repl.complete(env, "1-prin")[1],
      repl.complete(env, "x/prin")[1], repl.complete(env, "~prin")[1]})
  end)
end)

describe("a repl session", function()
  it("keeps the last value printed in _", function()
    local s, out, err, env = session()
    converse(s, out, err, {
      {"6 * 7", "ok", "42\n"},
      {"_ + 1", "ok", "43\n"},
      {"x = 5", "ok", ""},
      {"_", "ok", "43\n"},
      {"'a', 'b'", "ok", '"a"\t"b"\n'},
      {"_", "ok", '"a"\n'},
    })
    assert.equal("a", rawget(env, "_"))
  end)

  it("shows why an assignment's call failed, and still assigns", function()
    local s, out, err, env = session()
    env.fails = function() return nil, "no such thing", "ENOENT" end
    env.twice = function() return 1, 2 end
    converse(s, out, err, {
      {"x = fails()", "error", "", "x = nil: no such thing (ENOENT)\n"},
      {"x", "ok", "nil\n"},
      {"t = {}", "ok", "", ""},
      {"t.a, t.b = fails()", "ok", "", ""},
      {"t.a = fails()", "error", "", "t.a = nil: no such thing (ENOENT)\n"},
      {"y = twice()", "ok", "", ""},
      {"y", "ok", "1\n"},
      {"local z = fails()", "ok", "", ""},
      {"if true then w = fails() end", "ok", "", ""},
      {"a = 1 b = 2", "ok", "", ""},
      {"a + b", "ok", "3\n"},
      {"q = nosuch()", "error", "",
        "stdin:1: attempt to call a nil value (global 'nosuch')\n"},
    })
  end)

  it("cuts a long result to a screen and says how much there is", function()
    local s, out = session()
    s:feed("big = {} for i = 1, 500 do big[i] = ('x'):rep(30) .. i end")
    assert.equal("ok", s:feed("big"))
    local text = out:text()
    local lines = {}
    for l in text:gmatch("(.-)\n") do lines[#lines + 1] = l end
    assert.equal(repl.MAX_LINES, #lines)
    assert.matches("^%.%.%. %d+ more lines; 500 items %(all of it: print%(pretty%.show%(_%)%)%)$",
      lines[#lines])
    converse(s, out, nil, {
      {"#_", "ok", "500\n"},
      {"{a = 1}", "ok", "{ a = 1 }\n"},
    })
  end)

  it("times an expression or a statement with :time", function()
    local s, out, err = session()
    assert.equal("ok", s:feed(":time 6 * 7"))
    assert.matches("^42\ntime: %d+%.%d%d%d ms\n$", out:text())
    assert.equal("ok", s:feed(":time x = 1"))
    assert.matches("^time: %d+%.%d%d%d ms\n$", out:text())
    assert.equal("error", s:feed(":time nosuch()"))
    assert.matches("^stdin:1: attempt to call a nil value", err:text())
    assert.equal("error", s:feed(":time"))
    assert.equal("usage: :time EXPR (or a statement)\n", err:text())
  end)

  it("prints expressions and runs statements", function()
    local s, out, err = session()
    converse(s, out, err, {
      {"1 + 1", "ok", "2\n"},
      {"x = {b = 2, a = 1}", "ok", ""},
      {"x", "ok", "{ a = 1, b = 2 }\n"},
      {"nil, 'no', 3", "ok", 'nil\t"no"\t3\n'},
      {"return", "ok"},
      {"   ", "ok", "", ""},
    })
    assert.equal(0, s.errors)
  end)

  it("keeps globals in its environment", function()
    local s, _, _, env = session()
    s:feed("answer = 42")
    assert.equal(42, env.answer)
    assert.is_nil(rawget(_G, "answer"))
  end)

  it("continues an unfinished chunk on the next line", function()
    local s, out = session()
    assert.equal(repl.PROMPT, s:prompt())
    assert.equal("more", s:feed("function double(x)"))
    assert.equal(repl.PROMPT2, s:prompt())
    assert.equal("more", s:feed("  return x * 2"))
    assert.equal("ok", s:feed("end"))
    assert.equal(repl.PROMPT, s:prompt())
    assert.equal("more", s:feed("double("))
    assert.equal("ok", s:feed("21)"))
    assert.equal("42\n", out:text())
    assert.equal("more", s:feed("text = [["))
    assert.equal("more", s:feed(":help"))   -- inside a chunk, not a command
    assert.equal("ok", s:feed("]]"))
    assert.equal("ok", s:feed("text"))
    assert.equal(":help\n\n", out:text()) -- shown as it is: it has a newline
    assert.equal("more", s:feed("t = {"))
    s:cancel()
    assert.equal(repl.PROMPT, s:prompt())
  end)

  it("reports syntax and runtime errors and goes on", function()
    local s, out, err = session()
    converse(s, out, err, {
      {"x = = 1", "error", nil, "stdin:1: unexpected symbol near '='\n"},
      {"nosuch()", "error", nil, "stdin:1: attempt to call a nil value (global 'nosuch')\n"},
      {"error({code = 1})", "error", nil, "error object: { code = 1 }\n"},
      {"error('plain', 0)", "error", nil, "plain\n"},
    })
    assert.equal(4, s.errors)
    converse(s, out, err, {{"1", "ok", "1\n"}})
  end)

  it("shows the traceback of the last error", function()
    local s, out, err = session()
    s:feed(":trace")
    assert.equal("no error traceback\n", out:text())
    s:feed("function boom() error('bang') end")
    s:feed("boom()")
    assert.equal("stdin:1: bang\n", err:text())
    s:feed(":trace")
    local t = out:text()
    assert.matches("^stdin:1: bang\nstack traceback:\n", t)
    assert.matches("\n\tstdin:1: in function <stdin:1>\n", t, 1, true)
    assert.not_matches("xpcall", t, 1, true)
    assert.not_matches("repl.lua", t, 1, true)
  end)

  it("reports an unfinished chunk at the end of the input", function()
    local s, _, err = session()
    assert.equal("ok", s:finish())
    s:feed("if true then")
    assert.equal("error", s:finish())
    assert.equal("stdin:1: 'end' expected near <eof>\n", err:text())
    assert.equal(repl.PROMPT, s:prompt())
  end)

  it("turns Ctrl-C interruption on around the code it runs", function()
    local calls = {}
    local s = session{catch = function(on) calls[#calls + 1] = on end}
    s:feed("x = 1")
    s:feed("error('e')")
    assert.same({true, false, true, false}, calls)
  end)

  it("runs :help, :quit and rejects unknown commands", function()
    local s, out, err = session()
    assert.equal("ok", s:feed(":help"))
    local h = out:text()
    assert.matches(":load FILE", h, 1, true)
    assert.matches("!CMD", h, 1, true)
    assert.equal("quit", s:feed(":quit"))
    assert.equal("quit", s:feed("  :q"))
    assert.equal("error", s:feed(":bogus"))
    assert.equal("unknown command ':bogus' (:help lists the commands)\n", err:text())
  end)

  it("runs ::labels:: as Lua", function()
    local s, out = session()
    assert.equal("ok", s:feed("do local i = 0 ::top:: i = i + 1 if i < 3 then goto top end "
      .. "print_i = i end"))
    assert.equal("ok", s:feed("print_i"))
    assert.equal("3\n", out:text())
  end)

  it(":load runs a file in the session's environment", function()
    local s, out, err, env = session()
    local path = tmpfile("loaded = (loaded or 0) + 1\nreturn 'done', loaded\n")
    assert.equal("ok", s:feed(":load " .. path))
    assert.equal('"done"\t1\n', out:text())
    assert.equal("ok", s:feed(':load "' .. path .. '"'))
    assert.equal(2, env.loaded)
    os.remove(path)
    assert.equal("error", s:feed(":load " .. path))
    assert.equal("cannot open " .. path .. ": No such file or directory\n", err:text())
    assert.equal("error", s:feed(":load"))
    assert.equal("usage: :load FILE\n", err:text())
    local bad = tmpfile("x = = 1\n")
    assert.equal("error", s:feed(":load " .. bad))
    assert.matches("^" .. bad:gsub("%p", "%%%0") .. ":1: unexpected symbol near '='\n$",
      err:text())
    os.remove(bad)
  end)

  it(":load binds a graph the file returns to g, with a new matcher in m", function()
    local s, out, _, env = session()
    local old_g, old_m = env.g, env.m
    local path = tmpfile("local grove = require('grove')\nlocal R = grove.cluster.resources\n" ..
      "return grove.cluster 'c' {R.node(3) {R.core(2)}}\n")
    assert.equal("ok", s:feed(":load " .. path))
    assert.equal("grove.graph", pretty.class(env.g))
    assert.are_not.equal(old_g, env.g)
    assert.equal(10, env.g:count())                   -- c0, 3 nodes, 6 cores
    assert.equal(env.g, env.m:graph())
    assert.are_not.equal(old_m, env.m)
    assert.matches("\ng = the graph " .. path:gsub("%p", "%%%0") .. " returned, m = a " ..
      "matcher over it\n$", out:text())
    -- !commands run on the new g
    assert.equal("ok", s:feed("!stat"))
    -- a graph another matcher holds jobs on: g is bound, m stays
    assert.equal("ok", s:feed("held = grove.cluster 'h' {grove.cluster.resources.node(1) {" ..
      "grove.cluster.resources.core(1)}}"))
    assert.equal("ok", s:feed("hm = grove.matcher(held) hm:match(grove.jobspec{tasks = 1})"))
    out:text()
    local m_before = env.m
    local p2 = tmpfile("return held\n")
    assert.equal("ok", s:feed(":load " .. p2))
    assert.equal(env.held, env.g)
    assert.equal(m_before, env.m)
    assert.matches("\ng = the graph " .. p2 .. " returned (m is unchanged: cannot create a " ..
      "matcher: another matcher holds jobs on the graph (a graph keeps the jobs of one matcher " ..
      "at a time))\n", out:text(), 1, true)
    os.remove(path)
    os.remove(p2)
  end)

  it(":reset builds the example cluster and a matcher", function()
    local s, out, _, env = session()
    assert.equal("ok", s:feed(":reset"))
    assert.equal("g = grove.graph (100 vertices, 198 edges), m = grove.matcher (policy first, "
      .. "0 jobs)\n", out:text())
    assert.equal("grove.graph", pretty.class(env.g))
    assert.equal(env.g, env.m:graph())
  end)
end)

describe("query commands in a session", function()
  local job
  setup(function()
    job = tmpfile(grove.jobspec.to_yaml(grove.jobspec{nodes = 1, cores_per_node = 2,
      duration = 3600}))
  end)
  teardown(function() os.remove(job) end)

  it("run against the graph in g, with !CMD or :query CMD", function()
    local s, out, err = session()
    s:reset()
    assert.equal("ok", s:feed("!match allocate " .. job))
    local t = out:text()
    assert.matches("---------------core1%[1:x%]\n", t)
    assert.matches("INFO: JOBID=1\nINFO: RESOURCES=ALLOCATED\nINFO: SCHEDULED AT=Now\n", t)
    assert.equal("ok", s:feed(":query info 1"))
    assert.matches("^INFO: JOBID=1 STATE=ALLOCATED", out:text())
    assert.equal("ok", s:feed("m"))
    assert.matches("^grove.matcher %(policy first, 1 jobs%)", out:text())
    assert.equal("", err:text())
  end)

  it("share job ids with m", function()
    local s, out = session()
    s:reset()
    assert.equal("ok", s:feed("j = m:match(grove.jobspec{nodes = 1})"))
    assert.equal("ok", s:feed("!match allocate " .. job))
    assert.matches("INFO: JOBID=2\n", out:text())
  end)

  it("count a failing command as an error and go on", function()
    local s, _, err = session()
    s:reset()
    assert.equal("error", s:feed("!bogus"))
    assert.equal("ERROR: line 1: unknown command 'bogus' (help lists the commands)\n", err:text())
    assert.equal("error", s:feed("!match"))
    assert.matches("^ERROR: malformed command", err:text())
    assert.equal(2, s.errors)
    assert.equal("ok", s:feed("!list"))
    assert.equal("quit", s:feed("!quit"))
  end)

  it("follow g when it is replaced, and need a graph there", function()
    local s, out, err, env = session()
    s:reset()
    local first = s.qs
    assert.equal("ok", s:feed("!find status=up"))
    assert.matches("INFO: EXPRESSION=\"status=up\"", out:text())
    env.g = repl.example_cluster()
    assert.equal("ok", s:feed("!stat"))
    assert.matches("INFO: Num. of Vertices: 100", out:text())
    assert.are_not.equal(first, s.qs)
    assert.equal(env.g, s.qs.graph)
    env.g = 5
    assert.equal("error", s:feed("!stat"))
    assert.equal("g is not a graph: the query commands run on the graph in g\n", err:text())
  end)
end)

describe("repl.new", function()
  it("raises on a bad argument", function()
    assert.has_error(function() repl.new(5) end,
      "bad argument #1 to 'new' (table expected, got number)")
    assert.has_error(function() repl.new{chunkanme = "=x"} end,
      "bad argument #1 to 'new' (unknown option 'chunkanme' (did you mean 'chunkname'?))")
    local f = io.tmpfile()
    assert.truthy(repl.new{env = {}, out = f, err = f, catch_interrupt = function() end,
      chunkname = "=x"})
  end)
end)
