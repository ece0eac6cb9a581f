-- Specs for grove query: the command language (grove.query), its output
-- writers (grove.writers) and its command line (grove.cmd.query).  The
-- command files in spec/fixtures/query are written in resource-query
-- syntax against a small graph of our own (lab.graphml: 2 racks x 2 nodes x
-- 2 sockets x {4 cores, 1 gpu, 2 x 4 GB memory}); their outputs were
-- checked by hand and are kept next to them (.out results, .info answers,
-- .err errors).
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local query = require("grove.query")
local writers = require("grove.writers")
local cmd = require("grove.cmd.query")
local exe = require("exe_helper")
local expect = require("expect")

local DIR = "spec/fixtures/query"
local CORPUS = os.getenv("GROVE_CONFORMANCE") or "../shared/conformance"


local function lab()
  return assert(query.load_graph(DIR .. "/lab.graphml"))
end

-- A session over a fresh lab graph whose streams are temporary files;
-- returns the session and a function giving {out, info, err} texts.
local function session(opts)
  opts = opts or {}
  local out, info, err = io.tmpfile(), io.tmpfile(), io.tmpfile()
  opts.graph = opts.graph or lab()
  opts.out, opts.info, opts.err = out, info, err
  local s = assert(query.new(opts))
  return s, function()
    local t = {}
    for name, f in pairs({out = out, info = info, err = err}) do
      f:seek("set")
      t[name] = f:read("a")
    end
    return t
  end
end

-- Run text (with @FIXTURES@ standing for the fixture directory).
local function run(s, text)
  for line in (text:gsub("@FIXTURES@", DIR) .. "\n"):gmatch("(.-)\n") do
    if not s:execute(line) then break end
  end
end

-- The texts t of a session that ran command file NAME.in are the recorded
-- ones.
local function as_recorded(name, t)
  assert.equal(exe.read(DIR .. "/" .. name .. ".out"), t.out)
  assert.equal(exe.read(DIR .. "/" .. name .. ".info"), t.info)
  assert.equal(exe.read(DIR .. "/" .. name .. ".err"), (t.err:gsub(DIR:gsub("%p", "%%%0"),
    "@FIXTURES@")))
end

describe("grove query command files", function()
  for _, name in ipairs({"basic", "small", "status", "find", "cancel"}) do
    it("runs " .. name .. ".in as recorded", function()
      local s, texts = session{policy = "low"}
      run(s, exe.read(DIR .. "/" .. name .. ".in"))
      as_recorded(name, texts())
      s:close()
    end)
  end

  it("gives the same placements with the Lua twin of a policy", function()
    local a, ta = session{policy = "low"}
    local b, tb = session{policy = "policies/low.lua"}
    local text = exe.read(DIR .. "/small.in")
    run(a, text)
    run(b, text)
    assert.equal(ta().out, tb().out)
    assert.equal("policies/low.lua", b.policy)
  end)

  it("stops at quit and ignores comments and blank lines", function()
    local s, texts = session()
    assert.is_true(s:execute("# a comment"))
    assert.is_true(s:execute("   "))
    assert.is_false(s:execute("quit"))
    assert.is_false(s:execute("q"))
    assert.equal("", texts().out)
  end)

  it("accepts the short command names", function()
    local s, texts = session{policy = "low"}
    run(s, "m allocate @FIXTURES@/cores.yaml\ni 1\nc 1\ni 1")
    local t = texts()
    assert.truthy(t.out:find("INFO: JOBID=1\nINFO: RESOURCES=ALLOCATED", 1, true))
    assert.equal("INFO: JOBID=1 STATE=ALLOCATED SCHEDULED AT=Now END=600 " ..
      "RESOURCES=core=2,memory=4\nINFO: nonexistent job 1\n", t.info)
  end)

  it("loads a graph in the format its file name says, without -f", function()
    assert.equal("jgf", query.format_of("a/b.json"))
    assert.equal("jgf", query.format_of("b.JGF"))
    assert.equal("hwloc", query.format_of("node.xml"))
    assert.equal("grug", query.format_of("lab.graphml"))
    local path = os.tmpname() .. ".json"
    local f = assert(io.open(path, "w"))
    f:write(lab():to_jgf())
    f:close()
    local out, rc = exe.run(("echo stat | %s query -L %s"):format(exe.GROVE, path))
    os.remove(path)
    assert.equal(0, rc, out)
    assert.truthy(out:find("INFO: Num. of Vertices: %d+"), out)
  end)

  it("prints the load time and each command's wall time with -e", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write("match allocate ", DIR, "/cores.yaml\nquit\n")
    f:close()
    local out, rc = exe.run(("%s query -L %s/lab.graphml -e -d < %s"):format(exe.GROVE, DIR, path))
    os.remove(path)
    assert.equal(0, rc)
    assert.truthy(out:find("^INFO: Graph Load Time: %d+%.%d+\nINFO: Vertex Count: %d+\n" ..
      "INFO: Edge Count: %d+\n"))
    assert.truthy(out:find("INFO: ELAPSED=%d+%.%d+\n"))
  end)

  it("reports the time of each match with elapsed", function()
    local s, texts = session{elapsed = true}
    run(s, "match allocate @FIXTURES@/cores.yaml\nmatch allocate @FIXTURES@/huge.yaml")
    local out = texts().out
    assert.truthy(out:find("INFO: SCHEDULED AT=Now\nINFO: ELAPSED=%d+%.%d+\n"))
    assert.truthy(out:find("INFO: JOBID=2\nINFO: ELAPSED=%d+%.%d+\n"))
  end)

  it("lists jobs, prints statistics, a jobspec and the commands", function()
    local s, texts = session{policy = "high"}
    run(s, "match allocate @FIXTURES@/cores.yaml\nmatch allocate_orelse_reserve " ..
      "@FIXTURES@/rack.yaml\nlist\nstat\ncat @FIXTURES@/huge.yaml\nhelp")
    local info = texts().info
    assert.truthy(info:find("INFO: JOBID=1 STATE=ALLOCATED SCHEDULED AT=Now END=600 " ..
      "RESOURCES=core=2,memory=4\nINFO: JOBID=2 STATE=ALLOCATED", 1, true))
    assert.truthy(info:find("INFO: Num. of Vertices: 71\n", 1, true))
    assert.truthy(info:find("INFO: Num. of Jobs Matched: 2\n", 1, true))
    assert.truthy(info:find("INFO: Policy: high\n", 1, true))
    assert.truthy(info:find("# five nodes: the lab has four\n", 1, true))
    assert.truthy(info:find("  partial-cancel JOBID jgf|rv1exec FILE [stats]\n", 1, true))
  end)

  it("writes results in every format", function()
    for _, fmt in ipairs(writers.formats) do
      local s, texts = session{format = fmt, policy = "low"}
      run(s, "match allocate @FIXTURES@/cores.yaml")
      local out = texts().out
      local body = out:match("^(.-)INFO: =")
      if fmt == "simple" then
        assert.equal("      ---------------core0[1:x]\n      ---------------core1[1:x]\n" ..
          "      ---------------memory0[4:x]\n      ------------socket0[1:s]\n" ..
          "      ---------node0[1:s]\n      ------rack0[1:s]\n      ---lab0[1:s]\n", body)
      elseif fmt == "pretty_simple" then
        assert.equal("      ---lab0[1:shared]\n      ------rack0[1:shared]\n" ..
          "      ---------node0[1:shared]\n      ------------socket0[1:shared]\n" ..
          "      ---------------core0[1:exclusive]\n      ---------------core1[1:exclusive]\n" ..
          "      ---------------memory0[4:exclusive]\n", body)
      elseif fmt == "rlite" then
        assert.equal('[{"rank": "0", "children": {"core": "0-1", "memory": "0"}}]\n', body)
      elseif fmt == "jgf" then
        assert.truthy(body:find('^{"graph": {"nodes": %[{"id": "%d+", "metadata": ' ..
          '{"type": "core", "id": 0, "rank": %-1, "exclusive": true, "paths": ' ..
          '{"containment": "/lab0/rack0/node0/socket0/core0"}}}'))
        assert.truthy(body:find('{"type": "memory", "id": 0, "rank": -1, "exclusive": true, ' ..
          '"size": 4, "paths"', 1, true))
        assert.truthy(body:find('{"type": "cluster", "basename": "lab", "id": 0, "rank": -1, ' ..
          '"paths": {"containment": "/lab0"}}}], "edges": [', 1, true))
      else
        local R = assert(core.rv1_decode(body))
        assert.equal("0", tostring(R:ranks()))
        assert.equal(600, R:expiration())
        assert.equal(fmt == "rv1", body:find('"scheduling"', 1, true) ~= nil)
      end
      assert.equal("INFO: JOBID=1\nINFO: RESOURCES=ALLOCATED\nINFO: SCHEDULED AT=Now\n",
        out:match("INFO: =+\n(.-)INFO: ="))
    end
  end)

  it("attaches a subgraph and removes vertices by path and by rank", function()
    local s, texts = session{policy = "low"}
    local g = s.graph
    local sub = core.graph()
    local c = sub:add_vertex{type = "cluster", basename = "lab", id = 0}
    local r = sub:add_vertex{type = "rack", id = 2}
    local n = sub:add_vertex{type = "node", id = 9, rank = 9}
    sub:add_child(c, r)
    sub:add_child(r, n)
    sub:add_child(n, sub:add_vertex{type = "core", id = 0})
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write(sub:to_jgf())
    f:close()
    run(s, "attach " .. path)
    os.remove(path)
    assert.equal("node", g:vertex("/lab0/rack2/node9"):type())
    run(s, "match allocate @FIXTURES@/two-nodes.yaml\nremove /lab0/rack2 true\n" ..
      "remove 1 false\nfind sched-now=allocated\nremove /lab0/none true\nremove x y")
    assert.is_nil(g:vertex("/lab0/rack2"))
    assert.is_nil(g:vertex("/lab0/rack0/node1"))
    local t = texts()
    -- job 1 had node0 and node1; node1 went with rank 1
    assert.truthy(t.out:find("---------node0[1:x]\n      ------rack0[1:x]\n      ---lab0[1:x]\n" ..
      "INFO: =============================\nINFO: EXPRESSION=\"sched-now=allocated\"", 1, true))
    assert.falsy(t.out:find("node1[1:x]\n      ------rack0[1:x]\n      ---lab0[1:x]", 1, true))
    assert.equal("ERROR: could not find path /lab0/none in resource graph\n" ..
      "ERROR: malformed command: line 7: remove: 'true' or 'false' expected, got 'y' " ..
      "(usage: remove PATH true | remove RANKS false)\n", t.err)
    run(s, "attach /no/such/file.json")
    assert.truthy(texts().err:find("ERROR: can't attach JGF subgraph: ", 1, true))
  end)

  it("finds nothing below a root that is down, whatever the request names", function()
    local s, texts = session()
    run(s, "set-status /lab0 down\nmatch allocate @FIXTURES@/cores.yaml\n" ..
      "match allocate @FIXTURES@/node.yaml\nset-status /lab0 up\n" ..
      "match allocate @FIXTURES@/cores.yaml")
    local out = texts().out
    assert.truthy(out:find("No matching resources found\nINFO: JOBID=1\n", 1, true))
    assert.truthy(out:find("No matching resources found\nINFO: JOBID=2\n", 1, true))
    assert.truthy(out:find("INFO: JOBID=3\nINFO: RESOURCES=ALLOCATED\n", 1, true))
  end)

  it("shows pruning filters with agfilter=t", function()
    local s, texts = session{policy = "low", format = "jgf", aggregates = "ALL:core"}
    run(s, "match allocate @FIXTURES@/cores.yaml\nfind agfilter=t and names=node0")
    local out = texts().out
    local line = out:match('.*\n({"graph".-)\n')
    assert.truthy(line:find('"type": "node", "id": 0, "rank": 0, "exclusive": true, ' ..
      '"paths": {"containment": "/lab0/rack0/node0"}, "agfilter": ' ..
      '{"core": "used:2, total:8"}', 1, true))
    assert.truthy(line:find('"agfilter": {"core": "used:2, total:32", "gpu": "used:0, total:8", ' ..
      '"memory": "used:4, total:64"}', 1, true))
  end)
end)

-- The command loop in C (core.query_run, what grove query runs): the same
-- bytes as the Lua one for every command, and a jobspec file read again
-- when it changed.
describe("grove query's command loop", function()
  -- Run text through s:run from a file, as grove query reads its input.
  local function run_file(s, text)
    local f = io.tmpfile()
    f:write((text:gsub("@FIXTURES@", DIR)))
    f:seek("set")
    s:run(f)
    f:close()
  end

  for _, name in ipairs({"basic", "small", "status", "find", "cancel"}) do
    for _, policy in ipairs({"low", "policies/low.lua"}) do
      it("runs " .. name .. ".in as recorded under " .. policy, function()
        local s, texts = session{policy = policy}
        run_file(s, exe.read(DIR .. "/" .. name .. ".in"))
        as_recorded(name, texts())
        s:close()
      end)
    end
  end

  it("counts lines and job ids across the commands it hands to the session", function()
    local s, texts = session{policy = "low"}
    run_file(s, "match allocate @FIXTURES@/cores.yaml\n\n# note\nbogus\n" ..
      "m allocate_orelse_reserve @FIXTURES@/cores.yaml\ninfo 2\n")
    local t = texts()
    assert.equal("ERROR: line 4: unknown command 'bogus' (help lists the commands)\n", t.err)
    assert.truthy(t.out:find("INFO: JOBID=2\nINFO: RESOURCES=ALLOCATED", 1, true))
    assert.truthy(t.info:find("^INFO: JOBID=2 STATE=ALLOCATED"))
    assert.equal(3, s.next_id)
    assert.equal(6, s.lineno)
  end)

  it("stops at quit", function()
    local s, texts = session()
    run_file(s, "match allocate @FIXTURES@/cores.yaml\nquit\n" ..
      "match allocate @FIXTURES@/cores.yaml\n")
    assert.equal(1, select(2, texts().out:gsub("INFO: JOBID=", "")))
  end)

  it("reads a jobspec file again when it changed, even to the same size and times", function()
    local path = os.tmpname()
    local text = exe.read(DIR .. "/cores.yaml")
    local function write(t)
      local f = assert(io.open(path, "w"))
      f:write(t)
      f:close()
    end
    write(text)
    -- older than a second (two on the seconds of its times): the loop
    -- trusts the file's times from now on
    assert(os.execute("sleep 2.1"))
    local s, texts = session()
    run_file(s, "match allocate " .. path .. "\n")
    -- the same size, the modification time put back: the change time tells
    assert(os.execute(("touch -r %s %s.times"):format(path, path)))
    write((text:gsub("count: 2", "count: 3")))
    assert(os.execute(("touch -r %s.times %s"):format(path, path)))
    run_file(s, "match allocate " .. path .. "\n")
    os.remove(path)
    os.remove(path .. ".times")
    local out = texts().out
    local first, second = out:match("^(.-INFO: JOBID=1.-\n)(.*)$")
    assert.equal(2, select(2, first:gsub("core", "")))
    assert.equal(3, select(2, second:gsub("core", "")))
  end)

  -- The file is looked at once per batch of lines (those of one read of
  -- the input): a line that came after the file changed sees the change.
  it("reads a jobspec file again when it changed between two reads of the input", function()
    local path, outpath = os.tmpname(), os.tmpname()
    local text = exe.read(DIR .. "/cores.yaml")
    local f = assert(io.open(path, "w"))
    f:write(text)
    f:close()
    local changed = text:gsub("count: 2", "count: 3")
    local out = assert(io.open(outpath, "w+"))
    local s = assert(query.new{graph = lab(), out = out, info = io.tmpfile(),
      err = io.tmpfile()})
    -- the writer of the input: a line, then (once its answer is out, so
    -- that the next line comes in a read of its own) the file changed and
    -- two lines more
    local q = function(x) return "'" .. x:gsub("'", "'\\''") .. "'" end
    local line = "match allocate " .. path .. "\n"
    local input = assert(io.popen(table.concat({
      "printf '%s' " .. q(line),
      "i=0; until grep -q '^INFO: JOBID=1$' " .. q(outpath) .. "; do " ..
        "i=$((i + 1)); [ $i -lt 3000 ] || exit 1; sleep 0.01; done",
      "printf '%s' " .. q(changed) .. " > " .. q(path),
      "printf '%s%s' " .. q(line) .. " " .. q(line)}, "\n"), "r"))
    s:run(input)
    input:close()
    out:seek("set")
    local t = out:read("a")
    out:close()
    os.remove(path)
    os.remove(outpath)
    local first, rest = t:match("^(.-INFO: JOBID=1.-\n)(.*)$")
    assert.equal(2, select(2, first:gsub("core", "")))
    local second, third = rest:match("^(.-INFO: JOBID=2.-\n)(.*)$")
    assert.equal(3, select(2, second:gsub("core", "")))
    assert.equal(3, select(2, third:gsub("core", "")))
  end)
end)

describe("grove.query", function()
  it("loads graphs in each format and reports bad ones", function()
    assert.equal(71, #lab())
    local g = assert(query.load_graph(CORPUS .. "/fluxion/jgfs/tiny.json", {format = "jgf"}))
    assert.equal("cluster", g:root():type())
    g = assert(query.load_graph(CORPUS .. "/fluxion/rv1exec/tiny_rv1exec.json",
      {format = "rv1exec"}))
    assert.equal(2, g:count("node"))
    g = assert(query.load_graph(DIR .. "/lab.graphml", {types = "cluster,rack,node"}))
    assert.equal(7, #g)
    expect.fails("EINVAL", "unknown graph format 'xml' (grug, jgf, hwloc, rv1exec)",
      query.load_graph(DIR .. "/lab.graphml", {format = "xml"}))
    expect.fails_with("ENOENT", "missing.graphml", query.load_graph(DIR .. "/missing.graphml"))
  end)

  it("refuses a bad output format, policy or pruning spec", function()
    local s, msg, code = query.new{graph = lab(), format = "yaml"}
    assert.is_nil(s)
    assert.equal("unknown output format 'yaml'; the formats are simple, pretty_simple, jgf, " ..
      "rlite, rv1, rv1_nosched", msg)
    assert.equal("EINVAL", code)
    s, msg = query.new{graph = lab(), format = "smple"}
    assert.is_nil(s)
    assert.equal("unknown output format 'smple' (did you mean 'simple'?); the formats are " ..
      "simple, pretty_simple, jgf, rlite, rv1, rv1_nosched", msg)
    s, msg, code = query.new{graph = lab(), policy = "nosuchpolicy"}
    assert.is_nil(s)
    assert.truthy(msg:find("no policy 'nosuchpolicy'", 1, true))
    assert.equal("ENOENT", code)
    s, msg, code = query.new{graph = lab(), aggregates = "core"}
    assert.is_nil(s)
    assert.truthy(msg:find("^pruning filters: "))
    assert.equal("EINVAL", code)
    assert.has_error(function() query.new{} end,
      "bad argument #1 to 'new' (table with a graph expected)")
  end)

  it("refuses an option it does not know, and takes every one it does", function()
    assert.has_error(function() query.new{graph = lab(), polciy = "high"} end,
      "bad argument #1 to 'new' (unknown option 'polciy' (did you mean 'policy'?))")
    local f = io.tmpfile()
    assert(query.new{graph = lab(), policy = "high", format = "simple", out = f, info = f,
      err = f, elapsed = false, aggregates = "core:node", subsystems = "CA", or_slots = true})
    assert.has_error(function() query.load_graph(DIR .. "/lab.graphml", {type = "node"}) end,
      "bad argument #2 to 'load_graph' (unknown option 'type' (did you mean 'types'?))")
    assert.equal(7, #assert(query.load_graph(DIR .. "/lab.graphml", {format = "grug",
      types = {"cluster", "rack", "node"}})))
  end)

  it("parses a jobspec file named again once, and again when its text changes", function()
    local s, texts = session()
    local path = os.tmpname()
    local function put(text)
      local f = assert(io.open(path, "w"))
      f:write(text)
      f:close()
    end
    put(exe.read(DIR .. "/cores.yaml"))
    local js1 = assert(s:load_jobspec(path))
    assert.equal(js1, s:load_jobspec(path))
    run(s, "match allocate " .. path .. "\nmatch allocate " .. path)
    put(exe.read(DIR .. "/node.yaml"))
    local js2 = assert(s:load_jobspec(path))
    assert.are_not.equal(js1, js2)
    assert.equal(3600, js2:duration())
    run(s, "match allocate " .. path)
    os.remove(path)
    local _, msg = s:load_jobspec(path)
    assert.matches("No such file", msg)
    local out = texts().out
    assert.equal(3, select(2, out:gsub("INFO: JOBID=", "")))
    -- 2 + 2 cores from cores.yaml, then a whole node's 8 from node.yaml
    assert.equal(12, select(2, out:gsub("core%d+%[1:x%]", "")))
  end)

  it("keeps the session alive when a command fails inside", function()
    local s, texts = session()
    local m = s.matcher
    s.matcher = setmetatable({}, {__index = function() error("boom", 0) end})
    run(s, "match allocate @FIXTURES@/cores.yaml")
    s.matcher = m
    run(s, "get-status /lab0\nset-status /lab0/rack0 up up")
    assert.equal("/lab0 is up\n", texts().out)
    assert.equal("ERROR: match: boom\nERROR: malformed command: line 3: set-status: " ..
      "2 arguments expected, got 3 (usage: set-status PATH up|down)\n", texts().err)
  end)
end)

describe("grove.writers", function()
  it("encodes JSON with sorted keys", function()
    assert.equal('{"a": [1, 2.5, "x\\n"], "b": true, "c": []}',
      writers.json({b = true, a = {1, 2.5, "x\n"}, c = {}}))
  end)

  it("orders a selection deepest first, or root first", function()
    local g = lab()
    local w = core.writer(g)
    local vs = {g:vertex("/lab0/rack1/node3"), g:vertex("/lab0/rack0")}
    assert.equal("      ------rack0[1:x]\n      ---------node3[1:x]\n      ------rack1[1:x]\n" ..
      "      ---lab0[1:x]\n", w:vertices("simple", vs))
    assert.equal("      ---lab0[1:exclusive]\n      ------rack0[1:exclusive]\n" ..
      "      ------rack1[1:exclusive]\n      ---------node3[1:exclusive]\n",
      w:vertices("pretty_simple", vs))
    assert.equal('{"graph": {"nodes": [{"id": "1", "metadata": {"type": "rack", "id": 0, ' ..
      '"rank": -1, "exclusive": true, "paths": {"containment": "/lab0/rack0"}}}, {"id": "0", ' ..
      '"metadata": {"type": "cluster", "basename": "lab", "id": 0, "rank": -1, "exclusive": ' ..
      'true, "paths": {"containment": "/lab0"}}}], "edges": [{"source": "0", "target": "1"}]}}\n',
      w:vertices("jgf", {g:vertex("/lab0/rack0")}))
    assert.equal("", w:vertices("jgf", {}))
    expect.raises(function() w:vertices("xml", vs) end, "unknown format 'xml'")
    expect.raises(function() w:vertices("simple", {1}) end, "not a vertex of the writer")
    assert.same({"simple", "pretty_simple", "jgf", "rlite", "rv1", "rv1_nosched"}, writers.formats)
    assert.same({"cluster", "core", "gpu", "memory", "node", "rack", "socket"}, g:types())
  end)

  it("lays out lines of any depth, name length and amount", function()
    -- a chain 40 deep (past the lines laid out in one move, and past the
    -- indent's template); names of 1 to 40 characters (around the longest
    -- kept ready) and amounts of 1 to 5 digits
    local g = core.graph()
    local top, prev, simple, pretty = nil, nil, {}, {}
    for d = 0, 39 do
      local name = ("n"):rep(d + 1)
      local size = d % 5 == 0 and ({1, 12, 123, 1234, 12345})[d // 8 + 1] or d + 1
      local v = g:add_vertex { type = d == 0 and "cluster" or "level" .. d, name = name,
        size = size }
      if prev then assert(g:add_child(prev, v)) else top = v end
      prev = v
      local lead = "      " .. ("---"):rep(d + 1) .. name .. "[" .. size
      table.insert(simple, 1, lead .. ":x]\n")
      pretty[#pretty + 1] = lead .. ":exclusive]\n"
    end
    assert.truthy(top)
    local w = core.writer(g)
    assert.equal(table.concat(simple), w:vertices("simple", {prev}))
    assert.equal(table.concat(pretty), w:vertices("pretty_simple", {prev}))
  end)

  it("writes a job from the matcher's picks, whole below explicitly exclusive types", function()
    local g = lab()
    local w, m = core.writer(g), core.matcher(g)
    local job = assert(m:match("version: 9999\nresources:\n- type: node\n  count: 1\n" ..
      "  exclusive: true\n  with:\n  - type: core\n    count: 1\n" ..
      "attributes: {system: {duration: 60}}\n" ..
      "tasks: [{command: [a], slot: s, count: {per_slot: 1}}]\n", "allocate", nil,
      { picks = false }))
    assert.is_nil(job.picks)
    local whole = w:entries(m, job.id, {expand = {node = true}})
    local held = {}
    for _, e in ipairs(whole) do held[e.type] = (held[e.type] or 0) + (e.alloc and 1 or 0) end
    assert.same({cluster = 0, rack = 0, node = 1, socket = 2, core = 8, gpu = 2, memory = 4}, held)
    local text = w:job(m, job.id, "simple", {expand = {node = true}})
    assert.truthy(text:find("      ---------node0%[1:x%]\n      ------rack0%[1:s%]\n" ..
      "      ---lab0%[1:s%]\n$"))
    local _, n = text:gsub("\n", "")
    assert.equal(#whole, n)
    -- a shape's fields are expand and prefer; any other raises
    assert.has_error(function() w:job(m, job.id, "simple", {exapnd = {node = true}}) end,
      "bad argument #4 to 'job' (unknown field 'exapnd' (did you mean 'expand'?))")
    assert.has_error(function() w:entries(m, job.id, {perfer = {}}) end,
      "bad argument #3 to 'entries' (unknown field 'perfer' (did you mean 'prefer'?))")
    assert.equal(text, w:job(m, job.id, "simple", {expand = {node = true}, prefer = {}}))
    -- given a file, the same bytes go there, in every format, after what
    -- the file held already
    for _, fmt in ipairs(writers.formats) do
      local f = io.tmpfile()
      f:write("before\n")
      assert.is_true(w:job(m, job.id, fmt, {expand = {node = true}}, f))
      assert.is_true(w:vertices(fmt, {g:vertex("/lab0/rack1/node3")}, nil, f))
      f:seek("set")
      assert.equal("before\n" .. w:job(m, job.id, fmt, {expand = {node = true}}) ..
        w:vertices(fmt, {g:vertex("/lab0/rack1/node3")}), f:read("a"))
      f:close()
      expect.raises(function() w:job(m, job.id, fmt, nil, f) end, "closed file")
    end
    -- the simple text to a file is made by a walk of the tree from the
    -- picks, the text returned from a selection built: the same bytes
    -- for jobs shared and exclusive, expanded by the writer or not
    local shared = assert(m:match("version: 9999\nresources:\n- type: slot\n  count: 2\n" ..
      "  label: s\n  with:\n  - type: core\n    count: 3\n" ..
      "attributes: {system: {duration: 60}}\n" ..
      "tasks: [{command: [a], slot: s, count: {per_slot: 1}}]\n", "allocate", nil,
      { picks = false }))
    -- a node asked for whole with nothing below it: the writer adds its inside
    local bare = assert(m:match("version: 9999\nresources:\n- type: node\n  count: 1\n" ..
      "  exclusive: true\nattributes: {system: {duration: 60}}\n" ..
      "tasks: [{command: [a], slot: s, count: {per_slot: 1}}]\n", "allocate", nil,
      { picks = false }))
    assert.truthy(w:job(m, bare.id, "simple", {expand = {node = true}}):find("core", 1, true))
    for _, id in ipairs({job.id, shared.id, bare.id}) do
      for _, shape in ipairs({{expand = {node = true}}, {expand = {socket = true, core = true}},
        {expand = {}}}) do
        local f = io.tmpfile()
        assert.is_true(w:job(m, id, "simple", shape, f))
        f:seek("set")
        local made = w:job(m, id, "simple", shape)
        assert.truthy(made:find("lab0", 1, true))
        assert.equal(made, f:read("a"))
        f:close()
      end
    end
    local ro = assert(io.open(DIR .. "/lab.graphml", "r"))
    local ok, msg, code = w:job(m, job.id, "simple", nil, ro)
    ro:close()
    assert.is_nil(ok)
    assert.truthy(msg:find("cannot write the output", 1, true))
    assert.equal("EBADF", code)
    expect.raises(function() w:job(m, job.id, "simple", nil, "out.txt") end, "FILE* expected")
    expect.fails("ENOENT", "no job 99", w:job(m, 99, "simple"))
    expect.fails("ENOENT", "no match result", w:job(m, nil, "simple"))
    expect.raises(function() w:job(core.matcher(lab()), 1, "simple") end,
      "a matcher of another graph")
  end)

  -- The walk of a job's simple text to a file reads, below a vertex not
  -- printed whole, only the job's picks (not every child); inside a pick
  -- printed whole it reads the child arrays.  Both give the bytes of the
  -- selection built, which are those recorded here.
  it("writes a job's text from its picks for jobs over racks, parents partly held", function()
    local function js(res)
      return "version: 9999\nresources:\n" .. res .. "attributes: {system: {duration: 60}}\n" ..
        "tasks: [{command: [a], slot: s, count: {per_slot: 1}}]\n"
    end
    local slot = "  - type: slot\n    label: s\n    count: 1\n    with:\n"
    local specs = {
      -- three nodes over both racks, shared
      js("- type: node\n  count: 3\n  with:\n" .. slot .. "    - type: core\n      count: 1\n"),
      -- slots over two sockets of a node partly held, then a second node
      js("- type: slot\n  count: 3\n  label: s\n  with:\n  - type: core\n    count: 3\n"),
      -- an exclusive socket in a node partly held
      js("- type: node\n  count: 1\n  with:\n  - type: socket\n    count: 1\n" ..
        "    exclusive: true\n    with:\n  " .. slot:gsub("\n  ", "\n    ") ..
        "      - type: core\n        count: 2\n"),
      -- an exclusive node asked with nothing below it: printed whole (the
      -- writer adds its inside) when node is expanded
      js("- type: node\n  count: 1\n  exclusive: true\n"),
    }
    local shapes = {{expand = {}}, {expand = {node = true}},
      {expand = {socket = true, core = true}}}
    local function check(m, w, spec)
      local job = assert(m:match(spec, "allocate", nil, { picks = false }))
      local texts = {}
      for k, shape in ipairs(shapes) do
        local f = io.tmpfile()
        assert.is_true(w:job(m, job.id, "simple", shape, f))
        f:seek("set")
        texts[k] = f:read("a")
        f:close()
        assert.equal(w:job(m, job.id, "simple", shape), texts[k])
      end
      return texts
    end
    local g = lab()
    local w, m = core.writer(g), core.matcher(g)
    local t = {}
    for i, spec in ipairs(specs) do t[i] = check(m, w, spec) end
    local function lines(list)
      local out = {}
      for _, l in ipairs(list) do
        local d, name = l:match("^(%d+) (.*)$")
        out[#out + 1] = "      " .. ("---"):rep(tonumber(d)) .. name .. "\n"
      end
      return table.concat(out)
    end
    assert.equal(lines {"5 core0[1:x]", "4 socket0[1:s]", "3 node0[1:s]", "5 core0[1:x]",
      "4 socket0[1:s]", "3 node1[1:s]", "2 rack0[1:s]", "5 core0[1:x]", "4 socket0[1:s]",
      "3 node2[1:s]", "2 rack1[1:s]", "1 lab0[1:s]"}, t[1][1])
    assert.equal(lines {"5 core1[1:x]", "5 core2[1:x]", "5 core3[1:x]", "4 socket0[1:s]",
      "5 core4[1:x]", "5 core5[1:x]", "5 core6[1:x]", "4 socket1[1:s]", "3 node0[1:s]",
      "5 core1[1:x]", "5 core2[1:x]", "5 core3[1:x]", "4 socket0[1:s]", "3 node1[1:s]",
      "2 rack0[1:s]", "1 lab0[1:s]"}, t[2][1])
    assert.equal(lines {"5 core4[1:x]", "5 core5[1:x]", "5 core6[1:x]", "5 core7[1:x]",
      "5 gpu1[1:x]", "5 memory2[4:x]", "5 memory3[4:x]", "4 socket1[1:x]", "3 node1[1:s]",
      "2 rack0[1:s]", "1 lab0[1:s]"}, t[3][1])
    -- the exclusive node alone, or with all of it when node is expanded
    assert.equal(lines {"3 node3[1:x]", "2 rack1[1:s]", "1 lab0[1:s]"}, t[4][1])
    local _, whole = t[4][2]:gsub("\n", "")
    assert.equal(3 + 2 * (1 + 4 + 1 + 2), whole)
    assert.truthy(t[4][2]:find("\n      ---------node3%[1:x%]\n      ------rack1%[1:s%]\n" ..
      "      ---lab0%[1:s%]\n$"))
    -- a wide graph (3 racks x 12 nodes x 2 sockets x 12 cores), its child
    -- lists in vertex id order or not: a vertex with more children than a
    -- job has picks is walked by the picks below it when they are in id
    -- order, else by its child array; either way the bytes of the
    -- selection, and those recorded here
    local function wide(shuffled)
      local h = core.graph()
      local function kids(parent, n, make)
        local made = {}
        for i = 0, n - 1 do made[i] = make(i) end
        for i = 0, n - 1 do
          -- shuffled: the child lists go 1, 0, 3, 2, ...
          local j = shuffled and (i % 2 == 0 and math.min(i + 1, n - 1) or i - 1) or i
          assert(h:add_child(parent, made[j]))
        end
      end
      local root = h:add_vertex { type = "cluster", id = 0 }
      local node, core_ = 0, 0
      kids(root, 3, function(r)
        local rack = h:add_vertex { type = "rack", id = r }
        kids(rack, 12, function()
          local n = h:add_vertex { type = "node", id = node }
          node = node + 1
          kids(n, 2, function(sk)
            local so = h:add_vertex { type = "socket", id = sk }
            kids(so, 12, function()
              core_ = core_ + 1
              return h:add_vertex { type = "core", id = core_ - 1 }
            end)
            return so
          end)
          return n
        end)
        return rack
      end)
      return h
    end
    local wspecs = {
      js("- type: slot\n  count: 1\n  label: s\n  with:\n  - type: core\n    count: 1\n"),
      js("- type: node\n  count: 14\n  with:\n" .. slot .. "    - type: core\n      count: 1\n"),
      js("- type: slot\n  count: 2\n  label: s\n  with:\n  - type: core\n    count: 5\n"),
      js("- type: node\n  count: 1\n  exclusive: true\n"),
      -- fewer picks than the children of the socket, then of the rack
      js("- type: slot\n  count: 1\n  label: s\n  with:\n  - type: core\n    count: 3\n"),
      js("- type: node\n  count: 2\n  with:\n" .. slot .. "    - type: core\n      count: 1\n"),
      js("- type: node\n  count: 2\n  with:\n  - type: socket\n    count: 1\n" ..
        "    exclusive: true\n    with:\n  " .. slot:gsub("\n  ", "\n    ") ..
        "      - type: core\n        count: 2\n"),
    }
    local texts = {}
    for _, shuffled in ipairs {false, true} do
      local h = wide(shuffled)
      local hm, hw = core.matcher(h), core.writer(h)
      texts[shuffled] = {}
      for i, spec in ipairs(wspecs) do texts[shuffled][i] = check(hm, hw, spec) end
    end
    assert.equal(lines {"5 core0[1:x]", "4 socket0[1:s]", "3 node0[1:s]", "2 rack0[1:s]",
      "1 cluster0[1:s]"}, texts[false][1][1])
    assert.equal(lines {"5 core12[1:x]", "5 core13[1:x]", "5 core14[1:x]", "4 socket1[1:s]",
      "3 node0[1:s]", "2 rack0[1:s]", "1 cluster0[1:s]"}, texts[false][5][1])
    assert.equal(lines {"5 core15[1:x]", "4 socket1[1:s]", "3 node0[1:s]", "5 core25[1:x]",
      "4 socket0[1:s]", "3 node1[1:s]", "2 rack0[1:s]", "1 cluster0[1:s]"}, texts[false][6][1])
    -- in graph order, not id order
    assert.equal(lines {"5 core313[1:x]", "5 core312[1:x]", "5 core315[1:x]", "4 socket0[1:s]",
      "3 node13[1:s]", "2 rack1[1:s]", "1 cluster0[1:s]"}, texts[true][5][1])
    assert.equal(lines {"5 core314[1:x]", "4 socket0[1:s]", "3 node13[1:s]", "5 core300[1:x]",
      "4 socket1[1:s]", "3 node12[1:s]", "2 rack1[1:s]", "1 cluster0[1:s]"}, texts[true][6][1])
    local _, n14 = texts[false][2][1]:gsub("\n", "")
    assert.equal(14 * 3 + 2 + 1, n14)
  end)
end)

describe("grove query command line", function()
  it("parses short and long options", function()
    local o = assert(cmd.parse({"-L", "g.graphml", "-fjgf", "--match-policy=high",
      "--prune-filters=ALL:core", "-F", "jgf", "-t", "out", "-e", "-d", "-T", "simple",
      "-r", "400000", "-W", "node,core", "-S", "CA"}))
    assert.same({L = "g.graphml", f = "jgf", P = "high", p = "ALL:core", F = "jgf", t = "out",
      e = true, d = true, T = "simple", r = "400000", W = "node,core", S = "CA"}, o)
    for _, c in ipairs {
      {{"-L"}, "option -L needs a value"},
      {{"--colour=red"}, "unknown option '--colour=red'"},
      {{"-Q"}, "unknown option '-Q'"},
      {{"stray"}, "unexpected argument 'stray'"},
      {{"-dx"}, "option '-dx' takes no value"},
    } do
      local bad, msg = cmd.parse(c[1])
      assert.is_nil(bad)
      assert.equal(c[2], msg)
    end
  end)

  it("reads policy strings as the reference engine spells them", function()
    for _, c in ipairs {
      {"policy=high node_centric=true node_exclusive=true stop_on_1_matches=true", "freshnodex"},
      {"policy=high node_centric=true stop_on_1_matches=true", "fresh"},
      {"policy=high", "high"}, {"policy=low", "low"},
      {"policy=low node_centric=true", "lonode"}, {"policy=high node_centric=true", "hinode"},
      {"policy=low node_centric=true node_exclusive=true", "lonodex"},
      {"policy=high node_exclusive=true stop_on_1_matches=false", "hinodex"},
    } do
      assert.equal(c[2], (cmd.policy_string(c[1])))
    end
    for _, c in ipairs {
      {"policy=mid", "policy key within custom policy accepts only low or high"},
      {"policy=high blah=true", "invalid policy option: blah"},
      {"policy=high node_centric=yes",
        "Policy option node_centric requires true or false, got yes"},
      {"node_centric=true", "a policy string needs policy=low or policy=high"},
      {"policy=high policy=low", "policy option policy given twice"},
      {"policy=high node_centric", "policy option 'node_centric' is not KEY=VALUE"},
    } do
      local name, msg = cmd.policy_string(c[1])
      assert.is_nil(name)
      assert.equal(c[2], msg)
    end
    local o = assert(cmd.parse({"-L", "g", "--traverser-policy=flexible", "-g", "graphml",
      "--graph-output=x"}))
    assert.same({L = "g", T = "flexible", g = "graphml", o = "x"}, o)
  end)

  it("gives job ids only to requests it could read, and not to without_allocating", function()
    local s, texts = session{policy = "low"}
    run(s, "match allocate @FIXTURES@/no-such.yaml\n" ..
      "match allocate " .. os.tmpname() .. "\n" ..
      "match without_allocating @FIXTURES@/cores.yaml\n" ..
      "match allocate @FIXTURES@/cores.yaml")
    local t = texts()
    assert.truthy(t.err:find("^ERROR: can't open spec/fixtures/query/no%-such.yaml\n" ..
      "match_allocate: ERROR: Jobspec error for 1: "))
    local ids = {}
    for id in t.out:gmatch("INFO: JOBID=(%d+)") do ids[#ids + 1] = tonumber(id) end
    assert.same({1, 1, 1}, ids)
    assert.truthy(t.out:find("No matching resources found\nINFO: JOBID=1", 1, true))
    s:close()
  end)

  local grove = os.getenv("GROVE_BUILD") and os.getenv("GROVE_BUILD") .. "/grove"
  local sh = exe.transcript

  it("writes the graph with -g and -o, and refuses a bad -P string or -g", function()
    if not grove then return pending("GROVE_BUILD is not set") end
    local base = os.tmpname()
    local text = sh(("%s query -L %s/lab.graphml -P 'policy=low node_centric=true' " ..
      "-g GraphML -o %s -d < /dev/null"):format(grove, DIR, base))
    assert.equal("INFO: Write the target graph of the matcher...\nrc=0\n", text)
    local g = exe.read(base .. ".graphml")
    assert.truthy(g:find('<data key="key5">node0</data>', 1, true))
    local n = 0
    for _ in g:gmatch("<node ") do n = n + 1 end
    assert.equal(lab():count(), n)
    os.remove(base .. ".graphml")
    sh(("%s query -L %s/lab.graphml -o %s -d < /dev/null"):format(grove, DIR, base))
    assert.truthy(exe.read(base .. ".dot"):find('^digraph G {\n0%[label="'))
    os.remove(base .. ".dot")
    os.remove(base)
    assert.truthy(sh(grove .. " query -L x -P 'policy=mid' < /dev/null"):find(
      "^grove query: %-P policy=mid: policy key within custom policy accepts only low or " ..
      "high\nrc=2\n$"))
    assert.truthy(sh(grove .. " query -L x -g png -o y < /dev/null"):find(
      "^grove query: unknown format for %-%-graph%-format: png %(dot, graphml%)\nrc=2\n$"))
  end)

  it("runs as grove query, results to -t, errors to stderr", function()
    if not grove then return pending("GROVE_BUILD is not set") end
    local out = os.tmpname()
    local text = sh(("printf 'match allocate %s/cores.yaml\\nnonsense\\ninfo 1\\n' | %s query " ..
      "-L %s/lab.graphml -P low -t %s -d"):format(DIR, grove, DIR, out))
    assert.equal("ERROR: line 2: unknown command 'nonsense' (help lists the commands)\n" ..
      "INFO: JOBID=1 STATE=ALLOCATED SCHEDULED AT=Now END=600 RESOURCES=core=2,memory=4\n" ..
      "rc=0\n", text)
    assert.truthy(exe.read(out):find("---------------memory0[4:x]\n", 1, true))
    os.remove(out)
  end)

  it("exits 2 on a bad command line and 1 on a graph it cannot load", function()
    if not grove then return pending("GROVE_BUILD is not set") end
    assert.truthy(sh(grove .. " query -P low < /dev/null"):find(
      "^grove query: %-L FILE is required\n.*rc=2\n$"))
    assert.truthy(sh(grove .. " query -L x -F yaml < /dev/null"):find(
      "^grove query: unknown output format 'yaml'.*rc=2\n$"))
    assert.truthy(sh(grove .. " query -L /no/such.graphml < /dev/null"):find(
      "^grove query: cannot load /no/such.graphml: .*rc=1\n$"))
    assert.truthy(sh(grove .. " query --help"):find("^Usage: grove query %-L FILE"))
  end)
end)

describe("grove query on an R that expires", function()
  -- expiring.json: two nodes of four cores from 1700000000 to 20 s later
  local R = DIR .. "/expiring.json"
  local WHY = "INFO: job duration (3600s) exceeds the resource set's expiration (1700000020, "
    .. "20s after the earliest start 1700000000)\n"

  it("refuses a job longer than what is left, in every mode, and says why", function()
    local g = assert(query.load_graph(R, {format = "rv1exec"}))
    assert.equal(1700000000, g:now())
    assert.equal(1700000020, g:expiration())
    local s, texts = session{graph = g}
    run(s, table.concat({
      "match allocate @FIXTURES@/hour-node.yaml",
      "match allocate_orelse_reserve @FIXTURES@/hour-node.yaml",
      "match satisfiability @FIXTURES@/hour-node.yaml",
      "match allocate @FIXTURES@/short-node.yaml",
      "match allocate @FIXTURES@/short-node.yaml",
      "match allocate_orelse_reserve @FIXTURES@/short-node.yaml"}, "\n"))
    local sep = "INFO: =============================\n"
    local t = texts()
    assert.equal("", t.err)
    local blocks = {}
    for b in t.out:gmatch(sep .. "(.-)" .. sep) do blocks[#blocks + 1] = b end
    assert.equal("INFO: No matching resources found\n" .. WHY .. "INFO: JOBID=1\n", blocks[1])
    assert.equal("INFO: No matching resources found\nINFO: Unsatisfiable request\n" .. WHY
      .. "INFO: JOBID=2\n", blocks[2])
    assert.equal("INFO: Unsatisfiable request\n" .. WHY, blocks[3])
    -- 20 s fit, on each node; a third cannot wait past the expiration
    assert.truthy(blocks[4]:find("INFO: JOBID=3\nINFO: RESOURCES=ALLOCATED\n", 1, true))
    assert.truthy(blocks[5]:find("INFO: JOBID=4\nINFO: RESOURCES=ALLOCATED\n", 1, true))
    assert.equal("INFO: No matching resources found\nINFO: JOBID=5\n", blocks[6])
  end)

  it("refuses it from the command line too", function()
    local out, rc = exe.run(("printf 'match allocate %s/hour-node.yaml\\n' | %s query -L %s "
      .. "-f rv1exec"):format(DIR, exe.GROVE, R))
    assert.equal(0, rc)
    assert.equal("INFO: =============================\nINFO: No matching resources found\n"
      .. WHY .. "INFO: JOBID=1\nINFO: =============================\n", out)
  end)
end)
