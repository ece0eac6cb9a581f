-- Bounded random input for grove query command files: the command files of
-- spec/fixtures/query, their lines mutated (tokens replaced by hostile
-- ones, dropped, repeated, bytes flipped, lines cut short), run through
-- grove.query's session with a fixed seed.  No Lua error may escape
-- execute(), and no error line may carry a Lua error's location (a command
-- that raised inside instead of saying what was wrong with its input).
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local query = require("grove.query")

local DIR = "spec/fixtures/query"
local SEED, LINES = 1717, 4000

-- Seed lines: every line of the fixture command files.
local function seed_lines()
  local lines = {}
  for _, name in ipairs {"basic", "small", "status", "find", "cancel"} do
    for line in io.lines(DIR .. "/" .. name .. ".in") do
      lines[#lines + 1] = line:gsub("@FIXTURES@", DIR)
    end
  end
  return lines
end

-- Tokens a mutation puts in: numbers at and past every limit, words the
-- commands know in the wrong places, paths that are not what they should
-- be, syntax of find expressions, bytes that are not text.
local TOKENS = {"0", "-1", "1", "2", "99", "9223372036854775807", "9223372036854775808",
  "-9223372036854775808", "1e400", "0x10", "1.5", "nan", "x", "", "stats", "true", "false",
  "jgf", "rv1exec", "allocate", "satisfiability", "allocate_orelse_reserve",
  "without_allocating_future", "(", ")", "and", "or", "=", "status=", "status=up",
  "sched-now=allocated", "property=", "names=", "jobid-alloc=x", "agfilter=t", "/", "/lab0",
  "/lab0/rack0/node0", "/lab0//x", DIR, DIR .. "/lab.graphml", DIR .. "/rank0.json",
  DIR .. "/cores.yaml", DIR .. "/huge.yaml", DIR .. "/none.yaml", "/dev/null",
  "\0", "\xff\xfe", "%s%d%n", string.rep("a", 5000), string.rep("(", 300), "k=v=w", "#"}

local function words(line)
  local t = {}
  for w in line:gmatch("%S+") do t[#t + 1] = w end
  return t
end

-- One mutation of line.
local function mutate(line, rnd)
  local w = words(line)
  local k = rnd(6)
  if k == 1 and #w > 0 then
    w[rnd(#w)] = TOKENS[rnd(#TOKENS)]
  elseif k == 2 and #w > 0 then
    table.remove(w, rnd(#w))
  elseif k == 3 then
    table.insert(w, rnd(#w + 1), TOKENS[rnd(#TOKENS)])
  elseif k == 4 and #w > 0 then
    local i = rnd(#w)
    table.insert(w, i, w[i])
  elseif k == 5 and #line > 0 then
    local i = rnd(#line)
    return line:sub(1, i - 1) .. string.char(rnd(256) - 1) .. line:sub(i + 1)
  else
    return line:sub(1, rnd(#line + 1) - 1)
  end
  return table.concat(w, " ")
end

describe("grove query command files under random input", function()
  it(("runs %d mutated command lines without a Lua error escaping"):format(LINES), function()
    math.randomseed(SEED)
    local rnd = math.random
    local seeds = seed_lines()
    local graph = assert(query.load_graph(DIR .. "/lab.graphml"))
    local out, info, err = io.tmpfile(), io.tmpfile(), io.tmpfile()
    local function session()
      return assert(query.new {graph = graph, out = out, info = info, err = err, policy = "low"})
    end
    local s = session()
    local ran, errors = 0, 0
    for _ = 1, LINES do
      local line = seeds[rnd(#seeds)]
      for _ = 1, rnd(4) - 1 do line = mutate(line, rnd) end -- a quarter run as written
      local ok, more = pcall(s.execute, s, line)
      assert(ok, ("execute(%q) raised: %s"):format(line, tostring(more)))
      assert.is_boolean(more)
      ran = ran + 1
      if not more then -- quit: a new session on the same graph
        s:close()
        s = session()
      end
    end
    s:close()
    err:seek("set")
    for e in err:lines() do
      errors = errors + 1
      assert(not e:find("%.lua:%d+:"), "a command raised inside: " .. e)
    end
    assert.equal(LINES, ran)
    -- the mutations reach the commands' checks, not only the blank-line path
    assert.is_true(errors > LINES // 10)
    graph:close()
  end)
end)
