-- low, high, lonode, hinode and their x forms against the reference
-- engine where they rank slots by id and many tie: nodes of 2 sockets of 4
-- cores (32 equal one-core slots, more than the 16 up to which the
-- reference's sort keeps graph order), nodes of 4 cores, and racks of
-- nodes of sockets with a GPU; slots of 1, 2 and 4 cores, of 2 cores and a
-- GPU, a socket at the top of the request, a node with a socket with a
-- slot, a node with a slot of a socket, two nodes, a whole node.  Eight
-- allocations in a row each, as `grove query` runs them, against what
-- Fluxion's resource-query placed (spec/fixtures/ties/reference.tsv, whose
-- header says how it was made); when resource-query is at hand
-- (GROVE_REF_RQ, or flux-sched's build under /opt), the same rows are run
-- through it too.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local query = require("grove.query")

local DIR = "spec/fixtures/ties"
local REF_RQ = os.getenv("GROVE_REF_RQ")
  or "/opt/flux-sched/build/resource/utilities/resource-query"

-- The rows of reference.tsv: {graph, jobspec, policy, matches}.
local function rows()
  local t = {}
  for line in io.lines(DIR .. "/reference.tsv") do
    if line:sub(1, 1) ~= "#" then
      local g, j, p, m = line:match("^(%S+)\t(%S+)\t(%S+)\t(.*)$")
      t[#t + 1] = {g, j, p, m}
    end
  end
  return t
end

-- The matches of a simple writer's output as reference.tsv writes them:
-- each match's vertices as printed (leaves first) or none, joined by |.
local function matches(text)
  local out, acc, nomatch = {}, {}, false
  for line in text:gmatch("[^\n]+") do
    local name = line:match("^%s*%-+(%a[^%[]*)%[")
    if name then
      acc[#acc + 1] = name
    elseif line:find("No matching resources", 1, true) then
      nomatch = true
    elseif line:find("JOBID=", 1, true) and nomatch then
      out[#out + 1], acc, nomatch = "none", {}, false
    elseif line:find("SCHEDULED AT=", 1, true) then
      out[#out + 1], acc = table.concat(acc, " "), {}
    end
  end
  return table.concat(out, "|")
end

local function commands(jobspec)
  local t = {}
  for i = 1, 8 do t[i] = ("match allocate %s/%s.yaml"):format(DIR, jobspec) end
  return t
end

-- What grove query prints for row r, in-process: a session on a fresh
-- graph writing results and answers to one stream, as the command does.
local function grove(r)
  local g = assert(query.load_graph(("%s/%s.graphml"):format(DIR, r[1]), {format = "grug"}))
  local f = io.tmpfile()
  local s = assert(query.new{graph = g, policy = r[3], out = f, info = f, err = f})
  for _, line in ipairs(commands(r[2])) do s:execute(line) end
  f:seek("set")
  local text = f:read("a")
  f:close()
  return text
end

describe("slots ranked by id, against the reference engine", function()
  local all = rows()

  it("covers every policy named after the reference's on every graph", function()
    local seen = {}
    for _, r in ipairs(all) do seen[r[1] .. " " .. r[3]] = true end
    for _, g in ipairs{"flat", "sock", "sockgpu"} do
      for _, p in ipairs{"low", "high", "lonode", "hinode", "lonodex", "hinodex"} do
        assert.is_true(seen[g .. " " .. p], g .. " " .. p)
      end
    end
    assert.equal(126, #all)
  end)

  for _, r in ipairs(all) do
    it(("%s on %s under %s: as the reference placed it"):format(r[2], r[1], r[3]), function()
      assert.equal(r[4], matches(grove(r)))
    end)
  end

  it("the ties themselves: 32 equal slots in the reference sort's order, 16 in graph order",
    function()
      local function first4(g, p)
        local m = matches(grove{g, "core1", p})
        local nodes = {}
        for node in m:gmatch("(node%d+)") do
          nodes[#nodes + 1] = node
          if #nodes == 4 then break end
        end
        return table.concat(nodes, " ")
      end
      assert.equal("node2 node0 node3 node1", first4("sock", "high"))
      assert.equal("node0 node3 node2 node1", first4("sock", "low"))
      assert.equal("node0 node1 node2 node3", first4("flat", "high"))
      assert.equal("node0 node0 node0 node0", first4("sock", "lonode"))
    end)

  it("the recorded rows are what resource-query places now", function()
    local f = io.open(REF_RQ)
    if not f then
      pending("resource-query not found (GROVE_REF_RQ, or " .. REF_RQ .. ")")
      return
    end
    f:close()
    local cmds = os.tmpname()
    for _, r in ipairs(all) do
      local h = assert(io.open(cmds, "w"))
      h:write(table.concat(commands(r[2]), "\n"), "\nquit\n")
      h:close()
      local p = assert(io.popen(("%s -L %s/%s.graphml -f grug -F simple -e -d -P %s < %s 2>&1")
        :format(REF_RQ, DIR, r[1], r[3], cmds)))
      local text = p:read("a")
      p:close()
      assert.equal(r[4], matches(text), table.concat(r, " ", 1, 3))
    end
    os.remove(cmds)
  end)
end)
