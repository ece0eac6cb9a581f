-- Walks with Lua hooks (RFC 4 pruning filter, child ordering, evaluating
-- filter with a score-sorted accumulator) and g:find with a predicate:
-- results, early stops, and hooks that fail.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
-- the did-you-mean of grove.core's messages comes with grove.suggest, as
-- every front end loads it
require("grove.suggest")

-- r0 > a0 (x0, x1), a1 (x0, x1); and a "net" subsystem r0 -> a1 -> a0
local function build()
  local g = core.graph()
  local r = g:add_vertex { type = "root", basename = "r", id = 0 }
  for i = 0, 1 do
    local a = g:add_vertex { type = "mid", basename = "a", id = i }
    g:add_child(r, a)
    for j = 0, 1 do
      g:add_child(a, g:add_vertex { type = "leaf", basename = "x", id = j, size = 10 * i + j })
    end
  end
  g:add_edge(r, g:vertex("/r0/a1"), { subsystem = "net" })
  g:add_edge(g:vertex("/r0/a1"), g:vertex("/r0/a0"), { subsystem = "net" })
  return g
end

local function visit_log(g, opts)
  local log = {}
  opts = opts or {}
  local w = g:walker {
    subsystem = opts.subsystem,
    pre = function(v, depth)
      log[#log + 1] = "pre " .. v:name() .. " " .. depth
      if opts.pre then return opts.pre(v, depth) end
    end,
    order = opts.order,
    post = function(v, depth)
      log[#log + 1] = "post " .. v:name() .. " " .. depth
      if opts.post then return opts.post(v, depth) end
    end,
  }
  local res, stopped = w:run(opts.start)
  return log, res, stopped
end

local function names(res)
  local out = {}
  for i, r in ipairs(res) do
    out[i] = r.vertex:name() .. "=" .. r.score
  end
  return out
end

describe("walker", function()
  local g
  before_each(function()
    g = build()
  end)

  it("visits depth-first, pre- and post-order", function()
    local log, res, stopped = visit_log(g)
    assert.are.same({
      "pre r0 0", "pre a0 1", "pre x0 2", "post x0 2", "pre x1 2", "post x1 2", "post a0 1",
      "pre a1 1", "pre x0 2", "post x0 2", "pre x1 2", "post x1 2", "post a1 1", "post r0 0",
    }, log)
    assert.are.same({}, res)
    assert.is_false(stopped)
  end)

  it("runs without hooks", function()
    local res, stopped = g:walker():run()
    assert.are.same({}, res)
    assert.is_false(stopped)
    assert.are.equal("containment", g:walker():subsystem())
    assert.are.equal(0, g:walker():limit())
  end)

  it("prunes with skip, false and stop", function()
    local log = visit_log(g, { pre = function(v) if v:name() == "a0" then return "skip" end end })
    assert.are.same({ "pre r0 0", "pre a0 1", "post a0 1", "pre a1 1", "pre x0 2", "post x0 2",
                      "pre x1 2", "post x1 2", "post a1 1", "post r0 0" }, log)
    log = visit_log(g, { pre = function(v) return v:type() ~= "mid" end })
    assert.are.same({ "pre r0 0", "pre a0 1", "post a0 1", "pre a1 1", "post a1 1",
                      "post r0 0" }, log)
    local _, stopped
    log, _, stopped = visit_log(g, {
      pre = function(v) if v:name() == "a1" then return "stop" end end,
    })
    assert.are.same({ "pre r0 0", "pre a0 1", "pre x0 2", "post x0 2", "pre x1 2", "post x1 2",
                      "post a0 1", "pre a1 1" }, log)
    assert.is_true(stopped)
    log = visit_log(g, { pre = function() return "continue" end })
    assert.are.equal(14, #log)
  end)

  it("orders children with a returned array or in place", function()
    local log = visit_log(g, {
      order = function(_, children)
        local r = {}
        for i = #children, 1, -1 do
          r[#r + 1] = children[i]
        end
        return r
      end,
    })
    assert.are.same({ "pre r0 0", "pre a1 1", "pre x1 2" }, { log[1], log[2], log[3] })
    local parents = {}
    log = visit_log(g, {
      order = function(parent, children)
        parents[#parents + 1] = parent:name() .. ":" .. #children
        table.sort(children, function(a, b) return a:size() > b:size() end)
      end,
    })
    assert.are.same({ "r0:2", "a0:2", "a1:2" }, parents)
    assert.are.same({ "pre r0 0", "pre a0 1", "pre x1 2" }, { log[1], log[2], log[3] })
  end)

  it("raises when the order hook returns something else than the children", function()
    local other = build()
    local cases = {
      { function() return 3 end,
        "order hook returned number (expected an array of the children or nil)" },
      { function(_, c) return { c[1] } end, "order hook returned 1 children, expected 2" },
      { function(_, c) return { c[1], c[1] } end,
        "order hook must return the same children, reordered" },
      { function(_, c) return { c[1], other:root() } end,
        "order hook: entry 2 is not a vertex of this graph" },
      { function(_, c) return { c[1], "x" } end,
        "order hook: entry 2 is not a vertex of this graph" },
    }
    for _, case in ipairs(cases) do
      local ok, err = pcall(function() g:walker { order = case[1] }:run() end)
      assert.is_false(ok)
      assert.are.equal(case[2], err:match("^[^\n]*"))
    end
  end)

  it("scores in post-order into a sorted accumulator", function()
    local res = g:walker {
      post = function(v)
        if v:type() == "leaf" then return v:size() end
        return false
      end,
    }:run()
    assert.are.same({ "x1=11.0", "x0=10.0", "x1=1.0", "x0=0.0" }, names(res))
    -- equal scores keep visit order; true scores 0
    res = g:walker { post = function() return true end }:run()
    assert.are.same({ "x0=0.0", "x1=0.0", "a0=0.0", "x0=0.0", "x1=0.0", "a1=0.0", "r0=0.0" },
      names(res))
    -- best k
    res = g:walker { limit = 2, post = function(v) return v:size() end }:run()
    assert.are.same({ "x1=11.0", "x0=10.0" }, names(res))
  end)

  it("stops from post-order with or without a last score", function()
    local res, stopped = g:walker {
      post = function(v)
        if v:name() == "x1" then return 5, "stop" end
        return 1
      end,
    }:run()
    assert.are.same({ "x1=5.0", "x0=1.0" }, names(res))
    assert.is_true(stopped)
    res, stopped = g:walker {
      post = function(v)
        if v:name() == "x1" then return "stop" end
        return 1
      end,
    }:run()
    assert.are.same({ "x0=1.0" }, names(res))
    assert.is_true(stopped)
  end)

  it("raises on a bad post result", function()
    local ok, err = pcall(function() g:walker { post = function() return {} end }:run() end)
    assert.is_false(ok)
    assert.matches("^post hook returned table: 0x%x+ %(expected a score, true, false, nil or "
                   .. "\"stop\"%)", err)
    ok, err = pcall(function() g:walker { post = function() return 1, "go" end }:run() end)
    assert.is_false(ok)
    assert.matches("^post hook: second result must be \"stop\" or nil", err)
    ok, err = pcall(function() g:walker { pre = function() return "maybe" end }:run() end)
    assert.is_false(ok)
    assert.matches("^pre hook returned maybe %(expected \"continue\", \"skip\", \"stop\", "
                   .. "a boolean or nil%)", err)
  end)

  it("walks from a start vertex and in other subsystems", function()
    local log = visit_log(g, { start = g:vertex("/r0/a1") })
    assert.are.same({ "pre a1 0", "pre x0 1", "post x0 1", "pre x1 1", "post x1 1",
                      "post a1 0" }, log)
    log = visit_log(g, { subsystem = "net" })
    assert.are.same({ "pre r0 0", "pre a1 1", "pre a0 2", "post a0 2", "post a1 1",
                      "post r0 0" }, log)
    local res, msg, code = g:walker { subsystem = "power" }:run()
    assert.is_nil(res)
    assert.are.equal("no root in subsystem power", msg)
    assert.are.equal("ENOENT", code)
    -- an unknown subsystem from a given start visits just that vertex
    log = visit_log(g, { subsystem = "power", start = g:root() })
    assert.are.same({ "pre r0 0", "post r0 0" }, log)
  end)

  it("visits each vertex once in a subsystem with cycles", function()
    -- RFC 4 allows non-tree subsystems: a -> a1 -> a0 -> r0 closes a ring,
    -- and a0 -> a1 is the opposite of a1 -> a0 in the same relation
    g:add_edge(g:vertex("/r0/a0"), g:root(), { subsystem = "net" })
    g:add_edge(g:vertex("/r0/a0"), g:vertex("/r0/a1"), { subsystem = "net" })
    local log = visit_log(g, { subsystem = "net", start = g:root() })
    assert.are.same({ "pre r0 0", "pre a1 1", "pre a0 2", "post a0 2", "post a1 1",
                      "post r0 0" }, log)
    log = visit_log(g, { subsystem = "net", start = g:vertex("/r0/a0") })
    -- a1 is a child of a0 (reached first there), not of r0 as well
    assert.are.same({ "pre a0 0", "pre r0 1", "post r0 1", "pre a1 1", "post a1 1",
                      "post a0 0" }, log)
  end)

  describe("a hook that raises", function()
    it("stops the walk cleanly and raises the error again", function()
      local calls = 0
      local ok, err = pcall(function()
        g:walker {
          pre = function(v)
            calls = calls + 1
            if v:name() == "a0" then error("boom at " .. v:path()) end
          end,
        }:run()
      end)
      assert.is_false(ok)
      assert.matches("walker_spec.lua:%d+: boom at /r0/a0\nstack traceback:", err)
      assert.are.equal(2, calls)
      -- the graph is usable and no longer busy
      assert(g:add_vertex { type = "later" })
      local res = g:walker { post = function() return 1 end }:run()
      assert.are.equal(7, #res)
    end)

    it("raises error objects unchanged", function()
      local obj = { code = 42 }
      for _, hook in ipairs { "pre", "order", "post" } do
        local ok, err = pcall(function()
          g:walker { [hook] = function() error(obj) end }:run()
        end)
        assert.is_false(ok)
        assert.are.equal(obj, err)
      end
    end)

    it("raises from find predicates too", function()
      local ok, err = pcall(function()
        g:find(function(v)
          if v:type() == "leaf" then error("bad leaf") end
          return false
        end)
      end)
      assert.is_false(ok)
      assert.matches("walker_spec.lua:%d+: bad leaf", err)
      assert(g:add_vertex { type = "later" })
    end)
  end)

  describe("while hooks run", function()
    it("the graph's structure cannot change, its pool data can", function()
      local errs = {}
      local function try(f)
        local ok, err = pcall(f)
        assert.is_false(ok)
        errs[#errs + 1] = err:gsub("^.-:%d+: ", "")
      end
      g:walker {
        pre = function(v)
          if v:name() == "r0" then
            try(function() g:add_vertex { type = "x" } end)
            try(function() g:unlink(g:vertex("/r0/a1")) end)
            try(function() g:close() end)
            try(function() g:add_child(g:root(), g:vertex("/r0/a0")) end)
            try(function() g:merge(core.graph()) end)
            try(function() g:add_edge(g:root(), g:vertex("/r0/a0")) end)
            assert(v:set_property("seen", "yes"))
          end
          if v:type() == "leaf" and v:size() == 0 then
            assert(v:set_status("drained"))
          elseif v:type() == "leaf" then
            assert(v:allocate(1, 99))
          end
        end,
      }:run()
      local busy = " on bad self (graph is busy: a walk or find is running on it)"
      assert.are.same({
        "calling 'add_vertex'" .. busy, "calling 'unlink'" .. busy, "calling 'close'" .. busy,
        "calling 'add_child'" .. busy, "calling 'merge'" .. busy, "calling 'add_edge'" .. busy,
      }, errs)
      assert.are.equal("yes", g:root():property("seen"))
      assert.are.equal("drained", g:vertex("/r0/a0/x0"):status())
      assert.are.equal(1, g:vertex("/r0/a1/x1"):allocated())
      assert(g:add_vertex { type = "after" })
    end)

    it("nested walks and finds work", function()
      local inner = {}
      g:walker {
        pre = function(v)
          if v:type() == "mid" then
            local res = g:walker { post = function() return 1 end }:run(v)
            inner[#inner + 1] = #res
            inner[#inner + 1] = #g:find(function(x) return x == v end)
          end
        end,
      }:run()
      assert.are.same({ 3, 4, 3, 4 }, inner)
      assert(g:add_vertex { type = "after" })
    end)

    it("find's predicate sees the graph busy", function()
      local ok, err
      g:find(function()
        ok, err = pcall(function() g:add_vertex { type = "x" } end)
        return false
      end)
      assert.is_false(ok)
      assert.are.equal("calling 'add_vertex' on bad self (graph is busy: a walk or find is "
                       .. "running on it)", (err:gsub("^.-:%d+: ", "")))
    end)
  end)

  describe("misuse", function()
    it("raises on bad options", function()
      assert.has_error(function() g:walker { pre = 1 } end,
        "bad argument #1 to 'walker' ('pre' must be a function)")
      assert.has_error(function() g:walker { orderby = "id" } end,
        "bad argument #1 to 'walker' (unknown option 'orderby' (did you mean 'order'?))")
      assert.has_error(function() g:walker { limit = -1 } end,
        "bad argument #1 to 'walker' ('limit' must be a non-negative integer)")
      assert.has_error(function() g:walker { limit = 1.5 } end,
        "bad argument #1 to 'walker' ('limit' must be a non-negative integer)")
      assert.has_error(function() g:walker { subsystem = "" } end,
        "bad argument #1 to 'walker' ('subsystem' must be a non-empty string)")
      assert.has_error(function() g:walker "pre" end,
        "bad argument #1 to 'walker' (table expected, got string)")
    end)

    it("raises on a start vertex of another graph", function()
      local w = g:walker()
      assert.has_error(function() w:run(build():root()) end,
        "bad argument #1 to 'run' (vertex of another graph)")
    end)

    it("closes walkers and notices closed graphs", function()
      local w = g:walker()
      assert.are.equal("grove.walker (containment)", tostring(w))
      w:close()
      w:close()
      assert.are.equal("grove.walker (closed)", tostring(w))
      assert.has_error(function() w:run() end, "calling 'run' on bad self (walker is closed)")
      local w2 = g:walker()
      g:close()
      assert.has_error(function() w2:run() end, "calling 'run' on bad self (graph is closed)")
      assert.has_error(function() g:walker() end,
        "calling 'walker' on bad self (graph is closed)")
    end)

    it("keeps its graph alive", function()
      local w = build():walker { post = function() return 1 end }
      collectgarbage()
      collectgarbage()
      assert.are.equal(7, #w:run())
      do
        local w2 <close> = g:walker()
        assert(w2:run())
      end
    end)
  end)
end)
