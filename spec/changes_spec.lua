-- Specs for saving the entire resource set or only what changed since the
-- last save (core/changes.h): JGF (g:to_jgf{mark =, changed =}), state
-- files (core.state_write) and a child instance's R (core.child_save);
-- core.changes_apply; the refusals.  Each changes document is checked to
-- hold exactly the entries that differ between the two entire saves
-- around it, worked out here independently, and to rebuild the second
-- from the first.
--
-- This file holds only specs: shared assertions live in expect.lua.
local core = require("grove.core")
local exe = require("exe_helper")
local expect = require("expect")
local jobspec = require("grove.jobspec")

local function decode(text) return assert(core.json_decode(text)) end

local function canon(v) return assert(core.json_encode(v, 0)) end

-- Ids of the nodes (and canonical texts of the edges) of an entire JGF
-- document, as sets, with each node's canonical text.
local function index(doc)
  local nodes, edges = {}, {}
  for _, n in ipairs(doc.graph.nodes) do nodes[n.id] = canon(n) end
  for _, e in ipairs(doc.graph.edges) do edges[canon(e)] = (edges[canon(e)] or 0) + 1 end
  return nodes, edges
end

-- What changed from entire save a to entire save b: the sorted ids of the
-- nodes new or different in b, of those gone, and the edges new in b.
local function expected(a, b)
  local na, ea = index(a)
  local nb, eb = index(b)
  local changed, gone, added = {}, {}, {}
  for id, t in pairs(nb) do if na[id] ~= t then changed[#changed + 1] = id end end
  for id in pairs(na) do if not nb[id] then gone[#gone + 1] = id end end
  for e, n in pairs(eb) do
    for _ = (ea[e] or 0) + 1, n do added[#added + 1] = e end
  end
  table.sort(changed); table.sort(gone); table.sort(added)
  return changed, gone, added
end

local function ids(list, f)
  local out = {}
  for _, x in ipairs(list) do out[#out + 1] = f and f(x) or x end
  table.sort(out)
  return out
end

-- The changes document ch holds exactly what differs between entire
-- saves a and b, and applied to a gives b.
local function check_changes(a_text, ch_text, b_text)
  local a, ch, b = decode(a_text), decode(ch_text), decode(b_text)
  local changed, gone, added = expected(a, b)
  assert.same(changed, ids(ch.graph.nodes, function(n) return n.id end))
  assert.same(gone, ids(ch.changes.removed.nodes))
  assert.same(added, ids(ch.graph.edges, canon))
  local applied = assert(core.changes_apply(a_text, ch_text))
  assert.same(b, decode(applied))
  return ch
end

-- Three nodes of four cores (ranks 0-2), acquired through the current
-- protocol so that a shrink removes vertices.
local function machine()
  local g = core.graph()
  local m = core.matcher(g)
  local a = core.acquire(g, m, {protocol = "current"})
  assert(a:apply([[{"resources": {"version": 1, "execution": {"R_lite": [{"rank": "0-2",
    "children": {"core": "0-3"}}], "starttime": 0, "expiration": 0,
    "nodelist": ["n[0-2]"]}}, "up": "0-2"}]]))
  return g, m, a
end

local function cores(n) return jobspec.build{nodes = 1, cores_per_node = n, duration = 100} end

describe("a JGF save of only what changed", function()
  it("holds exactly the vertices a job changed, and rebuilds the entire save", function()
    local g, m = machine()
    local mk = core.mark()
    local full0 = assert(g:to_jgf{state = true, mark = mk})
    local job = assert(m:match(cores(2), "allocate"))
    local ch_text = assert(g:to_jgf{state = true, mark = mk, changed = true})
    local full1 = assert(g:to_jgf{state = true})
    local ch = check_changes(full0, ch_text, full1)
    -- the two cores the job holds, by their records
    local picked = {}
    for _, p in ipairs(job.picks) do
      if p.vertex:type() == "core" then picked[#picked + 1] = tostring(p.vertex:vid()) end
    end
    table.sort(picked)
    assert.same(picked, ids(ch.graph.nodes, function(n) return n.id end))
    assert.equal(2, #ch.graph.nodes)
    assert.same({}, ch.changes.removed.nodes)
    assert.same({}, ch.graph.edges)
    assert.equal(2, ch.changes.generation)
    assert.equal(2, mk:generation())
    assert.equal("jgf", mk:kind())

    -- the next changed save is relative to that one: the cancel only
    m:cancel(job.id)
    local ch2 = assert(g:to_jgf{state = true, mark = mk, changed = true})
    local full2 = assert(g:to_jgf{state = true})
    check_changes(full1, ch2, full2)
    assert.equal(2, #decode(ch2).graph.nodes)
    -- nothing changed since: nothing written
    local ch3 = decode(assert(g:to_jgf{state = true, mark = mk, changed = true}))
    assert.same({}, ch3.graph.nodes)
    assert.same({}, ch3.graph.edges)
    assert.same({}, ch3.changes.removed.edges)
  end)

  it("lists removed vertices and edges, and a status change, exactly", function()
    local g, _, a = machine()
    local mk = core.mark()
    local full0 = assert(g:to_jgf{mark = mk})
    assert(a:apply('{"shrink": "2", "down": "1"}'))
    local ch_text = assert(g:to_jgf{mark = mk, changed = true})
    local full1 = assert(g:to_jgf())
    local ch = check_changes(full0, ch_text, full1)
    assert.equal(5, #ch.changes.removed.nodes)       -- n2 and its four cores
    assert.equal(10, #ch.changes.removed.edges)      -- their edges, both ways
    local d = decode(full0)
    for _, i in ipairs(ch.changes.removed.edges) do
      local e = d.graph.edges[i + 1]
      local names = {}
      for _, n in ipairs(d.graph.nodes) do names[n.id] = n.metadata.name end
      assert.is_true(names[e.source]:match("^n2") ~= nil or names[e.target]:match("^n2") ~= nil)
    end
    -- n1 went down: its node is the one changed
    assert.equal(1, #ch.graph.nodes)
    assert.equal("n1", ch.graph.nodes[1].metadata.name)
  end)

  it("writes everything through a fresh mark, which applies to an empty base", function()
    local g, m = machine()
    local ch = assert(g:to_jgf{mark = core.mark(), changed = true})
    assert.same(decode(g:to_jgf()), decode(assert(core.changes_apply("", ch))))
    local job = assert(m:match(cores(2), "allocate"))
    local rch = assert(core.child_save(m, job.id, {mark = core.mark(), changed = true}))
    assert.same(decode(core.child_save(m, job.id)), decode(assert(core.changes_apply("", rch))))
  end)
end)

describe("a state file save of only what changed", function()
  local dir
  before_each(function() dir = exe.scratch_dir() end)
  after_each(function() os.execute("rm -rf " .. dir) end)
  local read = exe.read

  it("holds exactly the jobs and vertices that changed, and reads back when applied", function()
    local g, m, a = machine()
    local mk = core.mark()
    local j1 = assert(m:match(cores(1), "allocate"))
    assert(core.state_write(dir .. "/s0.json", g, m, a, {mark = mk}))
    local j2 = assert(m:match(cores(4), "allocate"))
    m:cancel(j1.id)
    assert(core.state_write(dir .. "/s1.json", g, m, a, {mark = mk, changed = true}))
    assert(core.state_write(dir .. "/full1.json", g, m, a))
    local s0, ch_text, full1 = read(dir .. "/s0.json"), read(dir .. "/s1.json"),
      read(dir .. "/full1.json")
    local ch = check_changes(s0, ch_text, full1)
    assert.same({j2.id}, ids(ch.grove.jobs, function(j) return j.id end))
    assert.same({j1.id}, ch.changes.removed.jobs)
    assert.equal(5, #ch.graph.nodes)                  -- j1's core, j2's four cores
    -- the applied text is a state file that loads as the entire one
    exe.write(dir .. "/applied.json", assert(core.changes_apply(s0, ch_text)))
    local l = assert(core.state_read(dir .. "/applied.json"))
    assert.same({j2.id}, ids(l.matcher:jobs(), function(j) return j.id end))
    assert.equal(g:to_jgf{state = true}, l.graph:to_jgf{state = true})
  end)

  it("refuses a changes document where an entire state is read", function()
    local g, m = machine()
    local mk = core.mark()
    assert(core.state_write(dir .. "/s0.json", g, m, {mark = mk}))
    assert(core.state_write(dir .. "/s1.json", g, m, {mark = mk, changed = true}))
    expect.fails_with("EINVAL", "a changes document, not an entire graph: apply it to the "
      .. "save it follows first", core.state_read(dir .. "/s1.json"))
    expect.fails_with("EINVAL", "a changes document", core.jgf_load(dir .. "/s1.json"))
  end)

  it("leaves the file and the mark as they were when the write fails", function()
    local g, m = machine()
    local mk = core.mark()
    assert(core.state_write(dir .. "/s0.json", g, m, {mark = mk}))
    assert(m:match(cores(1), "allocate"))
    local ok, msg, code = core.state_write(dir .. "/no/such/dir/s.json", g, m,
      {mark = mk, changed = true})
    expect.fails_with("ENOENT", "state file " .. dir .. "/no/such/dir/s.json", ok, msg, code)
    assert.equal(1, mk:generation())
    -- so the next changed save still follows s0
    assert(core.state_write(dir .. "/s1.json", g, m, {mark = mk, changed = true}))
    assert(core.changes_apply(read(dir .. "/s0.json"), read(dir .. "/s1.json")))
  end)
end)

describe("a child instance's R saved as what changed", function()
  it("holds exactly the resources a grow added and a release removed", function()
    local _, m = machine()
    local job = assert(m:match(jobspec.build{nodes = 2, cores_per_node = 2, duration = 100},
      "allocate"))
    local mk = core.mark()
    local r0 = assert(core.child_save(m, job.id, {mark = mk}))
    assert.equal(tostring(assert(core.child_resources(m, job.id))), r0)
    assert(m:match(jobspec.build{nodes = 1, cores_per_node = 1, duration = 100}, "grow", job.id))
    local ch_text = assert(core.child_save(m, job.id, {mark = mk, changed = true}))
    local r1 = assert(core.child_save(m, job.id))
    local ch = decode(ch_text)
    local added = assert(core.rv1_decode(canon(ch.added)))
    local before, after = assert(core.rv1_decode(r0)), assert(core.rv1_decode(r1))
    assert.is_true(after:diff(before):equal(added))
    assert.equal(1, added:count("core"))
    assert.is_nil(ch.removed)
    assert.same(decode(r1), decode(assert(core.changes_apply(r0, ch_text))))

    -- a release of one rank of it: the part removed is that rank's
    local first = math.tointeger(tostring(after:ranks()):match("^%d+"))
    assert(m:release_ranks(job.id, tostring(first)))
    assert(m:job(job.id))
    local ch2_text = assert(core.child_save(m, job.id, {mark = mk, changed = true}))
    local r2 = assert(core.child_save(m, job.id))
    local ch2 = decode(ch2_text)
    assert.is_nil(ch2.added)
    local removed = assert(core.rv1_decode(canon(ch2.removed)))
    assert.equal(tostring(first), tostring(removed:ranks()))
    assert.is_true(after:diff(assert(core.rv1_decode(r2))):equal(removed))
    assert.same(decode(r2), decode(assert(core.changes_apply(r1, ch2_text))))
  end)

  it("refuses a mark of another job or another kind, and changes nothing", function()
    local g, m = machine()
    local j1 = assert(m:match(cores(1), "allocate"))
    local j2 = assert(m:match(cores(1), "allocate"))
    local mk = core.mark()
    assert(core.child_save(m, j1.id, {mark = mk}))
    expect.fails("EINVAL", ("the save mark follows the R of job %d, not of job %d")
      :format(j1.id, j2.id), core.child_save(m, j2.id, {mark = mk, changed = true}))
    expect.fails("EINVAL", "the save mark follows saves of R, not jgf (one mark a destination)",
      g:to_jgf{mark = mk})
    assert.equal(1, mk:generation())
    assert.equal("R", mk:kind())
  end)
end)

describe("changes_apply and the save options", function()
  it("refuses changes applied to another save, or to a changes document", function()
    local g, m = machine()
    local mk = core.mark()
    local full0 = assert(g:to_jgf{mark = mk})
    assert(m:match(cores(1), "allocate"))
    local other = assert(g:to_jgf())
    local ch = assert(g:to_jgf{mark = mk, changed = true})
    local b = decode(ch).changes.base
    expect.fails_like("EINVAL", "^changes: the changes follow save " .. b
      .. "; the base is save %x+ %(another save%)$", core.changes_apply(other, ch))
    expect.fails("EINVAL", "base: a changes document, not an entire save (apply it to its own "
      .. "base first)", core.changes_apply(ch, ch))
    expect.fails("EINVAL", "c.json: not a changes document (no \"changes\" object)",
      core.changes_apply(full0, full0, "c.json"))
    expect.fails_like("EINVAL", "^changes: the changes follow save %x+, not an empty base$",
      core.changes_apply("", ch))
    -- a removal naming a node the base does not have
    local bad = ch:gsub('"nodes": %[%]', '"nodes": ["999"]', 1)
    expect.fails("EINVAL", 'changes: changes.removed.nodes[0]: "999" is not in the base',
      core.changes_apply(full0, bad))
    expect.fails_like("EINVAL", "^changes:1: ", core.changes_apply(full0, "{"))
  end)

  it("raises on misuse", function()
    local g, m = machine()
    expect.raises(function() g:to_jgf{changed = true} end,
      "changed = true needs a mark (grove.core.mark())")
    expect.raises(function() g:to_jgf{mark = {}} end, "mark must be an open grove.mark")
    expect.raises(function() g:to_jgf{mark = core.mark(), changed = 1} end,
      "changed must be a boolean")
    expect.raises(function() g:to_jgf{mark = core.mark(), vertices = {g:root()}} end,
      "a save mark follows whole graphs, not vertices")
    expect.raises(function() core.state_write("x", g, m, {changed = true}) end,
      "changed = true needs a mark")
    expect.raises(function() core.child_save(m, 1, {mark = core.mark(), size = 1}) end,
      "unknown option 'size'")
    local mk = core.mark()
    mk:close()
    expect.raises(function() mk:generation() end, "save mark is closed")
  end)
end)

describe("grove acquire-replay's save commands", function()
  local replay = require("grove.replay")
  local FIRST = [[{"resources": {"version": 1, "execution": {"R_lite": [{"rank": "0-2",
    "children": {"core": "0-3"}}], "starttime": 0, "expiration": 0,
    "nodelist": ["n[0-2]"]}}, "up": "0-2"}]]

  it("write entire or changed saves, each file following its own last save", function()
    local s = replay.new{protocol = "current"}
    assert(s:step(FIRST).ok)
    local function step(line)
      local st = s:step(line)
      assert.is_true(st.ok, st.error)
      return st.written or st.saved
    end
    local w = step("save-state s.json")
    assert.same({"state", 1, false, 16, 30, 0, 0},
      {w.kind, w.generation, w.changed, w.nodes, w.edges, w.jobs, w.removed})
    step("save-jgf g.json")
    step("match allocate nodes=1 cores_per_node=2 duration=60")
    w = step("save-state s.json changed")
    assert.same({"state", 2, true, 2, 0, 1, 0},
      {w.kind, w.generation, w.changed, w.nodes, w.edges, w.jobs, w.removed})
    w = step("save-child 1 c.json")
    assert.same({"R", 1, false}, {w.kind, w.generation, w.changed})
    step("cancel 1")
    local cancelled = s:step("save-state s.json changed")     -- the cancel only
    w = cancelled.written
    assert.same({2, 0, 0, 1}, {w.nodes, w.edges, w.jobs, w.removed})
    w = step("save-jgf g.json changed")                 -- the job came and went
    assert.same({"jgf", 2, 0, 0, 0}, {w.kind, w.generation, w.nodes, w.edges, w.removed})
    w = step("save st.db full")
    assert.is_true(w.full)
    local st = s:step("save-child 1 c.json changed")
    assert.same({false, "ENOENT"}, {st.ok, st.code})
    assert.has_error(function() s:step("save-state s.json everything") end,
      "save-state: unknown option 'everything' (changed)")
    assert.matches("written: state changed generation=3 nodes=2 edges=0 jobs=0 removed=1",
      replay.format_step(cancelled), 1, true)
    s:cleanup()
  end)
end)
