-- Specs for Lua policies (grove.core.policy_load / policy_parse): the
-- policy table and its checks, defaults and fallbacks, declarative orders,
-- what hooks receive (vertex views, ctx, candidates and scores), and the
-- policy object's methods.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local expect = require("expect")
local match = require("match_helper")

local BUILTINS = match.BUILTINS
local tiny = match.tiny

local function parse(text, opts)
  return core.policy_parse(text, "inline.lua", opts)
end

-- count nodes, each with a slot of `cores` cores.
local function nodes(count, cores, slots)
  return match.jobspec({{type = "node", count = count, with = {
    {type = "slot", count = slots or 1, label = "default", with = {{type = "core",
      count = cores}}}}}}, 60)
end

local node_names = match.node_names

-- Four nodes under one rack, ids 3 1 2 0, ranks 0..3, a `speed` property.
local function four()
  local g = core.graph()
  local root = g:add_vertex{type = "cluster", basename = "four", id = 0}
  local ids, speeds = {3, 1, 2, 0}, {"2", "9", "1.5", "4"}
  for i = 1, 4 do
    local n = g:add_vertex{type = "node", id = ids[i], rank = i - 1,
      properties = {speed = speeds[i]}, tags = {fresh = i == 2 and "yes" or nil}}
    assert(g:add_child(root, n))
    for c = 0, 1 do assert(g:add_child(n, g:add_vertex{type = "core", id = c})) end
    assert(g:add_child(n, g:add_vertex{type = "memory", id = 0, size = i * 4, unit = "GB"}))
  end
  return g
end

-- A matcher on four() under the policy written in text.
local function on_four(text)
  local m = core.matcher(four())
  assert(m:set_policy(assert(parse(text))))
  return m
end

describe("loading policies", function()
  it("loads every built-in twin with its name and description", function()
    for _, name in ipairs(BUILTINS) do
      local p = assert(core.policy_load("policies/" .. name .. ".lua"))
      assert.equal(name, p:name())
      assert.is_string(p:description())
      assert.equal("policies/" .. name .. ".lua", p:source())
      assert.equal(("grove.policy (%s, policies/%s.lua)"):format(name, name), tostring(p))
      assert.is_nil(p:traceback())
    end
  end)

  it("names a policy after its file when the table does not", function()
    assert.equal("inline", assert(parse("return {}")):name())
    assert.equal("mine", assert(core.policy_parse("return {}", "some/dir/mine.lua")):name())
    assert.is_nil(assert(parse("return {}")):description())
  end)

  it("takes budget and memory options", function()
    local p = assert(parse("return {}", {budget = 123, memory = 4096 * 1024}))
    assert.equal(123, p:budget())
    assert.equal(4096 * 1024, p:memory())
    assert.equal(10000000, assert(parse("return {}")):budget())
    assert.equal(64 * 1024 * 1024, assert(parse("return {}")):memory())
    assert.has_error(function() parse("return {}", {budget = 0}) end,
      "bad argument #3 to 'policy_parse' (budget must be a positive integer)")
    assert.has_error(function() parse("return {}", {memory = 1.5}) end,
      "bad argument #3 to 'policy_parse' (memory must be a positive integer (bytes))")
    assert.has_error(function() parse("return {}", {speed = 1}) end,
      "bad argument #3 to 'policy_parse' (unknown option 'speed'; the options are budget, "
      .. "memory, time, graph)")
    assert.has_error(function() core.policy_parse("return {}", "x.lua", {bugdet = 5}) end,
      "bad argument #3 to 'policy_parse' (unknown option 'bugdet' (did you mean 'budget'?); "
      .. "the options are budget, memory, time, graph)")
    assert.has_error(function() core.policy_parse("return {}", "x.lua", {grpah = 5}) end,
      "bad argument #3 to 'policy_parse' (unknown option 'grpah' (did you mean 'graph'?); "
      .. "the options are budget, memory, time, graph)")
    assert.has_error(function() core.policy_load("policies/low.lua", {speed = 1}) end,
      "bad argument #2 to 'policy_load' (unknown option 'speed'; the options are budget, "
      .. "memory, time, graph)")
    assert.has_error(function() core.policy_load("policies/low.lua", 5) end,
      "bad argument #2 to 'policy_load' (table expected, got number)")
    assert.has_error(function() core.policy_parse("return {}", "") end,
      "bad argument #2 to 'policy_parse' (name must not be empty)")
    assert.has_error(function() core.policy_parse({}) end,
      "bad argument #1 to 'policy_parse' (string expected, got table)")
  end)

  local bad = {
    {"{prnue = function() end}", "unknown field 'prnue' (did you mean 'prune'?); the fields are "
      .. "name, description, base, prune, order, score, scores, choose, select, node_exclusive, "
      .. "node_centric, id_order, explore_by_use, score_local, score_reads, prune_types, "
      .. "score_types",
      line = 1},
    {"{scores = 1}", "a hook must be a function, not number"},
    {"{score = function() return 0 end, scores = function() return {} end}",
      "score and scores both given (scores replaces score)"},
    {"{order = {key = 'free:core'}}", "order: key 'free:core' needs the window being tried, "
      .. "which order is not told (score or scores are)"},
    {"{name = 3}", "field 'name' must be a string"},
    {"{description = true}", "field 'description' must be a string"},
    {"{prune = 'yes'}", "a hook must be a function, not string"},
    {"{score = 1}", "a hook must be a function, not number"},
    {"{order = 'id'}", "order must be a function or a table, not string"},
    {"{select = 'worst'}", "select must be \"first\" or \"best\", not worst"},
    {"{select = 1}", "select must be \"first\" or \"best\", not number"},
    {"{node_exclusive = 'yes'}", "node_exclusive must be a boolean, not string"},
    {"{node_centric = 1}", "node_centric must be a boolean, not number"},
    {"{base = 'fastest'}", "base: unknown built-in 'fastest'; the built-ins are first, low, "
      .. "high, lonode, hinode, lonodex, hinodex, firstnodex, fresh, freshnodex, locality, "
      .. "variation, spread, gpu", line = 1},
    {"{base = 'lwo'}", "base: unknown built-in 'lwo' (did you mean 'low'?); the built-ins are "
      .. "first, low, high, lonode, hinode, lonodex, hinodex, firstnodex, fresh, freshnodex, "
      .. "locality, variation, spread, gpu", line = 1},
    {"{base = 1}", "base must name a built-in policy ('number' is not one)"},
    {"{order = {}}", "order: a declarative order needs a key"},
    {"{order = {key = 'speed'}}", "order: unknown key 'speed'; the keys are id, rank, vid, size, "
      .. "perf_class, property:NAME, function(v)", line = 1},
    {"{order = {key = 'property:'}}", "order: unknown key 'property:'; the keys are id, rank, "
      .. "vid, size, perf_class, property:NAME, function(v)", line = 1},
    {"{order = {key = 'rnak'}}", "order: unknown key 'rnak' (did you mean 'rank'?); the keys "
      .. "are id, rank, vid, size, perf_class, property:NAME, function(v)", line = 1},
    {"{order = {key = 3}}", "order: key must be a string or a function, not number"},
    {"{order = {key = 'id', descending = 1}}", "order: descending must be a boolean, not number"},
    {"{order = {key = 'id', when = 5}}", "order: when must be a type name, not number"},
    {"{order = {key = 'id', reverse = true}}",
      "order: unknown field 'reverse'; the fields are key, descending, when", line = 1},
    {"{order = {key = 'id', desending = true}}", "order: unknown field 'desending' (did you "
      .. "mean 'descending'?); the fields are key, descending, when", line = 1},
    {"{scor = function() return 1 end}", "unknown field 'scor' (did you mean 'score'?); the "
      .. "fields are name, description, base, prune, order, score, scores, choose, select, "
      .. "node_exclusive, node_centric, id_order, explore_by_use, score_local, score_reads, "
      .. "prune_types, score_types", line = 1},
    {"{1, 2}", "the policy table has a number key (fields are named)"},
    {"{order = function() end, id_order = 'up'}",
      "id_order must be \"ascending\", \"descending\" or \"none\", not up"},
    {"{order = function() end, id_order = true}",
      "id_order must be \"ascending\", \"descending\" or \"none\", not boolean"},
    {"{order = {key = 'id'}, id_order = 'descending'}",
      "id_order = \"descending\" contradicts order = {key = \"id\"} (ascending)"},
    {"{order = {key = 'id', descending = true}, id_order = 'ascending'}",
      "id_order = \"ascending\" contradicts order = {key = \"id\", descending = true}"},
    {"{id_order = 'ascending'}",
      "id_order describes an order: it needs order (or a base that orders)"},
    {"{base = 'spread', id_order = 'descending'}",
      "id_order describes an order: it needs order (or a base that orders)"},
    {"{base = 'high', id_order = 'ascending'}",
      "id_order = \"ascending\" contradicts the base's order (descending)"},
    {"{base = 'lonode', id_order = 'descending'}",
      "id_order = \"descending\" contradicts the base's order (ascending)"},
    {"{base = 'fresh', order = function() end, id_order = 'ascending'}",
      "id_order describes an order, which explore_by_use does not use"},
  }
  for _, case in ipairs(bad) do
    it("refuses " .. case[1], function()
      expect.fails("EINVAL", (case.line and "inline.lua:1: " or "inline.lua: ") .. case[2],
        parse("return " .. case[1]))
    end)
  end

  it("ignores fields starting with an underscore", function()
    assert.is_not_nil(parse("return {_notes = 'mine', _helper = function() end}"))
  end)
end)

describe("what a policy leaves out", function()
  it("falls back to the C default (first), with select best when it scores", function()
    assert.same({select = "first", node_exclusive = false, node_centric = false},
      assert(parse("return {}")):hooks())
    assert.same({score = "lua", select = "best", node_exclusive = false, node_centric = false},
      assert(parse("return {score = function() return 1 end}")):hooks())
    assert.same({score = "lua", select = "first", node_exclusive = false, node_centric = false},
      assert(parse("return {score = function() return 1 end, select = 'first'}")):hooks())
    assert.same({choose = "lua", select = "best", node_exclusive = false, node_centric = false},
      assert(parse("return {choose = function(c, k) return {} end}")):hooks())
    assert.same({scores = "lua", select = "best", node_exclusive = false, node_centric = false},
      assert(parse("return {scores = function(c) return {} end}")):hooks())
    -- scores replaces the score of a base
    assert.same({scores = "lua", select = "best", node_exclusive = false, node_centric = false,
      score_types = {"node"}},
      assert(parse("return {base = 'spread', score_types = 'node', "
        .. "scores = function(c) return {} end}")):hooks())
    assert.same({prune = "lua", order = "c", select = "first", node_exclusive = true,
      node_centric = true, id_order = "ascending"},
      assert(parse("return {prune = function() end, order = {key = 'id'}, "
        .. "node_exclusive = true, node_centric = true}")):hooks())
    assert.same({order = "lua", select = "first", node_exclusive = false, node_centric = false},
      assert(parse("return {order = {key = function(v) return 0 end}}")):hooks())
  end)

  it("falls back to a built-in's C hooks with base", function()
    local p = assert(parse("return {name = 'mine', base = 'hinodex'}"))
    assert.same({order = "c", select = "first", node_exclusive = true, node_centric = true,
      id_order = "descending"}, p:hooks())
    local a, b = core.matcher(tiny()), core.matcher(tiny())
    a:set_policy("hinodex")
    b:set_policy(p)
    assert.equal("mine", b:policy())
    for _ = 1, 3 do
      local ja, jb = a:match(nodes(1, 1), "allocate_orelse_reserve"),
        b:match(nodes(1, 1), "allocate_orelse_reserve")
      assert.equal(#ja.picks, #jb.picks)
      assert.equal(node_names(ja), node_names(jb))
      assert.equal(ja.start, jb.start)
    end
    local q = assert(parse("return {base = 'locality', select = 'first', node_exclusive = true}"))
    assert.same({choose = "c", select = "first", node_exclusive = true, node_centric = false},
      q:hooks())
  end)
end)

describe("declarative orders", function()
  local function first_node(order, count)
    local m = on_four("return {order = " .. order .. "}")
    return node_names(assert(m:match(nodes(count or 1, 1))))
  end

  it("sort children by id, rank, vertex, size or a property, either way", function()
    assert.equal("node3", first_node("{key = 'vid'}"))
    assert.equal("node0", first_node("{key = 'vid', descending = true}"))
    assert.equal("node0", first_node("{key = 'id'}"))
    assert.equal("node3", first_node("{key = 'id', descending = true}"))
    assert.equal("node3", first_node("{key = 'rank'}"))
    assert.equal("node0", first_node("{key = 'rank', descending = true}"))
    assert.equal("node2", first_node("{key = 'property:speed'}"))
    assert.equal("node1", first_node("{key = 'property:speed', descending = true}"))
    -- (picks are listed in graph order)
    assert.equal("node3 node2 node0", first_node("{key = 'property:speed'}", 3))
    assert.equal("node3", first_node("{key = 'property:missing'}")) -- all 0: by vertex
  end)

  it("sort only lists holding the `when` type", function()
    local m = on_four("return {order = {key = 'id', descending = true, "
      .. "when = 'core'}}")
    local j = assert(m:match(nodes(1, 1)))
    assert.equal("node3", node_names(j)) -- nodes in graph order
    assert.equal("core1", j.picks[#j.picks].vertex:name()) -- cores sorted
  end)

  it("call a key function at most once per vertex and match", function()
    local p = assert(parse([[
      local seen = {}
      return {order = {key = function(v)
        assert(not seen[v:vid()], "key called twice for " .. v:name())
        seen[v:vid()] = true
        return -(v:rank() or 0)
      end}}]]))
    local m = core.matcher(four())
    assert(m:set_policy(p))
    local j = assert(m:match(nodes(2, 1, 2)))
    assert.equal("node2 node0", node_names(j)) -- ranks 3 and 2
    assert.equal(4, m:info(j.id).counts.core) -- two slots per node: lists sorted again
  end)
end)

describe("hooks", function()
  it("prune is asked about the candidates the aggregate admits, exclusive ones too", function()
    -- (without a hook, an exclusive candidate is judged by its aggregate's
    -- totals and whether anything touches it: the answer is the same, but
    -- a hook must still not be asked about a node the window has no room on)
    local R = '{"version":1,"execution":{"R_lite":[{"rank":"0-1","children":' ..
      '{"core":"0-3"}}],"starttime":0,"expiration":0,"nodelist":["n[0-1]"]}}'
    local p = assert(parse([[
      return {prune_types = "node", prune = function(v)
        log("info", "%s", v:name())
        return false
      end}]]))
    local function asked_with(cores_used)
      local m = core.matcher(assert(assert(core.rv1_decode(R)):to_graph()))
      assert(m:match(match.compiled{nodes = 1, tasks = cores_used, cores_per_task = 1}))
      assert(m:set_policy(p))
      local asked = {}
      core.set_log(function(line) asked[#asked + 1] = line:match("info: (.*)$") end)
      local ok, j = pcall(m.match, m, match.compiled{nodes = 1, cores_per_node = 1,
        exclusive = true})
      core.set_log(nil)
      assert(ok, j)
      assert.equal("n1", node_names(assert(j)))
      m:close()
      return asked
    end
    assert.same({"n1"}, asked_with(4)) -- n0 has no core free: not asked
    assert.same({"n0", "n1"}, asked_with(1)) -- n0 has room, is touched: asked, then refused
  end)

  it("see read-only vertex views with the read methods of a vertex", function()
    local p = assert(parse([[
      local views = {}
      return {prune = function(v, ctx)
        assert(ctx.type == "node" or ctx.type == "core" or ctx.type == nil, "ctx.type")
        assert(ctx.start == 0 and ctx["end"] == 60, "ctx window")
        if v:type() ~= "node" then return false end
        assert(views[v:vid()] == nil or rawequal(views[v:vid()], v), "views are reused")
        views[v:vid()] = v
        assert(v:basename() == "node" and v:name() == "node" .. v:id(), "names")
        assert(v:size() == 1 and v:unit() == "" and #v:uuid() == 36, "pool")
        assert(v:status() == "up" and v:rank() == v:vid() // 4, "status and rank")
        assert(tonumber(v:property("speed")) and v:property("nope") == nil, "property")
        assert(v:properties().speed == v:property("speed"), "properties")
        assert(v:has_tag("fresh") == (v:rank() == 1), "tags")
        assert(v:rank() ~= 1 or v:tags().fresh == "yes", "tag values")
        assert(v:path() == "/four0/" .. v:name(), "path")
        assert(v:parent():type() == "cluster" and v:depth() == 1, "parent")
        local kids = v:children_list()
        assert(#kids == 3 and kids[1]:type() == "core" and kids[1]:parent() == v, "children")
        local n = 0
        for c in v:children() do n = n + 1; assert(c == kids[n]) end
        assert(n == 3, "children iterator")
        assert(kids[3]:available() == kids[3]:size() and kids[3]:allocated() == 0, "units")
        assert(v:held_exclusively() == false and #v:records() == 0, "records")
        assert(v:aggregate().core == 2, "aggregate")
        assert(tostring(v) == v:path(), "tostring")
        return false
      end}]]))
    local m = core.matcher(four())
    assert(m:set_policy(p))
    local j, msg = m:match(nodes(1, 1))
    assert(j, msg)
  end)

  it("see views that differ from vertices only where a view must", function()
    local p = assert(parse([[
      return {prune = function(v)
        for _, k in ipairs{"set_size", "graph", "allocate"} do
          local ok, err = pcall(function() return v[k] end)
          assert(not ok and err:find("grove.policy.vertex has no method '" .. k .. "'", 1, true),
            "read-only")
        end
        assert(v:property("") == nil and v:has_tag("") == false, "any key")
        assert(select("#", v:path("power")) == 0, "no path, no message")
        local ok, err = pcall(v.type, 5)
        assert(not ok and err:find("grove.policy.vertex expected", 1, true), err)
        return false
      end}]]))
    local m = core.matcher(four())
    assert(m:set_policy(p))
    assert(m:match(nodes(1, 1)))
  end)

  it("see a view's id, vid, rank and size as its vertex's, nil where it has none", function()
    local g = four()
    local bare = g:add_vertex{type = "core"} -- no id, no rank
    assert(g:add_child(g:vertex("/four0/node1"), bare))
    -- what each vertex answers in the host, written into the policy
    local want = {}
    for _, v in ipairs(g:find{}) do
      want[#want + 1] = ("[%d] = {%s, %s, %d}"):format(v:vid(), v:id() or "nil",
        v:rank() or "nil", v:size())
    end
    local p = assert(parse(([[
      local want = {%s}
      return {prune = function(v)
        local w = assert(want[v:vid()], "a vertex of the graph")
        assert(v:id() == w[1] and v:rank() == w[2] and v:size() == w[3],
          "the vertex's answers")
        if v:vid() == %d then assert(v:id() == nil and v:rank() == nil, "none") end
        local ok, err = pcall(v.id, 5)
        assert(not ok and err:find("grove.policy.vertex expected", 1, true), err)
        ok, err = pcall(v.size)
        assert(not ok and err:find("grove.policy.vertex expected", 1, true), err)
        -- only node1 (with the bare core) is walked into
        return v:type() == "node" and v:name() ~= "node1"
      end}]]):format(table.concat(want, ", "), bare:vid())))
    local m = core.matcher(g)
    assert(m:set_policy(p))
    local j = assert(m:match(nodes(1, 3))) -- three cores: node1's two and the bare one
    assert.equal("node1", node_names(j))
  end)

  it("see views that answer only while their own matcher runs", function()
    -- type() as every shared method; id() and size() as the view's own
    for _, method in ipairs{"type", "id", "size"} do
      local p = assert(parse(([[
        local kept
        return {prune = function(v)
          if kept then return kept:%s() == "x" end
          kept = v
          return false
        end}]]):format(method)))
      local m1, m2 = core.matcher(four()), core.matcher(four())
      assert(m1:set_policy(p))
      assert(m2:set_policy(p))
      assert(m1:match(nodes(1, 1)))
      expect.fails("ECANCELED", "policy inline: prune hook: inline.lua:3: a policy's vertex "
        .. "can be used only while its match runs", m2:match(nodes(1, 1)))
    end
  end)

  it("prune: true skips a subtree (vertices walked through, and candidates)", function()
    local m = on_four(
      "return {prune = function(v) return v:type() == 'node' and v:id() ~= 2 end}")
    local cores = nodes(1, 2)
    cores.resources = cores.resources[1].with -- a slot of two cores, nodes walked through
    local j = assert(m:match(cores))
    assert.equal("/four0/node2/core0", tostring(j.picks[#j.picks - 1].vertex))
    local _, _, code = m:match(cores)
    assert.equal("EBUSY", code)
  end)

  it("score: the best k are taken", function()
    local m = on_four([[
      return {score = function(v, ctx)
        assert(ctx.count >= 1, "count")
        return tonumber(v:property("speed") or "0")
      end}]])
    assert.equal("node1 node0", node_names(assert(m:match(nodes(2, 1)))))
  end)

  it("choose: gets candidates best first, k and the scores", function()
    local m = on_four([[
      return {
        score = function(v) return v:rank() or 0 end,
        choose = function(cands, k, scores)
          if cands[1]:type() ~= "node" then return {1} end
          assert(#cands == 4 and #scores == 4 and k == 2, "sizes")
          for i = 2, #scores do assert(scores[i - 1] >= scores[i], "best first") end
          assert(cands[1]:rank() == 3, "order")
          return {4, 2}
        end}]])
    -- positions 4 and 2: ranks 0 and 2
    assert.equal("node3 node2", node_names(assert(m:match(nodes(2, 1)))))
  end)

  it("choose: keys[KEY] are the candidates' keys, made in C at the first use", function()
    local m = on_four([[
      return {
        choose = function(cands, k, scores, keys)
          for i, v in ipairs(cands) do
            assert(keys.id[i] == v:id() and keys.rank[i] == v:rank() and keys.vid[i] == v:vid()
              and keys.size[i] == v:size(), "keys")
            local speed = tonumber(v:property("speed") or "0")
            assert(keys["property:speed"][i] == speed, "property")
          end
          assert(#keys.id == #cands and rawget(keys, "id") == keys.id, "kept in the table")
          assert(rawget(keys, "name") == nil, "only what was asked")
          return {1}
        end}]])
    assert.equal("node3", node_names(assert(m:match(nodes(1, 1)))))
  end)

  it("choose: candidates and scores are made at their first use, then plain arrays", function()
    local m = on_four([[
      return {
        score = function(v) return v:id() end,
        choose = function(cands, k, scores, keys)
          if keys.id[1] == nil or #cands ~= 4 then return {1} end
          assert(rawget(cands, 1) == nil and rawlen(scores) == 0, "not made before use")
          assert(#scores == 4 and scores[1] == 3 and rawlen(scores) == 4, "scores")
          local n = 0
          for i, v in pairs(cands) do
            n = n + 1
            assert(v:id() == keys.id[i], "pairs")
          end
          assert(n == 4 and rawlen(cands) == 4 and getmetatable(cands) == nil, "plain")
          table.sort(cands, function(a, b) return a:id() < b:id() end)
          assert(cands[1]:id() == 0, "sorted")
          return {4, 3}             -- positions in the matcher's order: ids 0 and 1
        end}]])
    assert.equal("node1 node0", node_names(assert(m:match(nodes(2, 1)))))
    -- table.insert on a fresh array fills it first; kept past its call, it raises
    assert(m:set_policy(assert(parse([[
      return {choose = function(cands, k)
        table.insert(cands, "x")
        assert(#cands == 5 and cands[5] == "x" and cands[1]:type() == "node", "insert")
        return {1}
      end}]]))))
    assert(m:match(nodes(1, 1)))
    assert(m:set_policy(assert(parse([[
      local kept
      return {choose = function(cands, k)
        if kept then local _ = kept[1] end
        kept = cands
        return {1}
      end}]]))))
    assert(m:match(nodes(1, 1)))
    local job, msg = m:match(nodes(1, 1))
    assert.is_nil(job)
    assert.matches("candidates: used after its call returned", msg)
  end)

  it("choose: keys refuses a name that is no key, and use after its call", function()
    local m = on_four([[
      return {choose = function(cands, k, scores, keys) return {keys.name and 1} end}]])
    local job, msg = m:match(nodes(1, 1))
    assert.is_nil(job)
    assert.equal("policy inline: choose hook: inline.lua:1: keys: unknown key 'name'; the keys "
      .. "are id, rank, vid, size, perf_class, property:NAME, free:TYPE", msg)
    assert(m:set_policy(assert(parse([[
      local kept
      return {choose = function(cands, k, scores, keys)
        if kept then local _ = kept.rank end
        kept = keys
        return {1}
      end}]]))))
    assert(m:match(nodes(1, 1)))
    job, msg = m:match(nodes(1, 1))
    assert.is_nil(job)
    assert.matches("keys: used after its choose call returned", msg)
  end)

  it("scores: one call per level, candidates in visiting order; best first, ties in order",
    function()
    local m = on_four([[
      local seen = {}
      return {
        score_types = "node",
        scores = function(cands, ctx, keys)
          assert(ctx.type == "node" and ctx.count == 2, "ctx")
          assert(not seen[ctx.job], "one call per level")
          seen[ctx.job] = true
          for i = 2, #cands do assert(cands[i - 1]:rank() < cands[i]:rank(), "visiting order") end
          local s = {}
          for i, v in ipairs(cands) do
            assert(keys.vid[i] == v:vid(), "keys")
            s[i] = keys["property:speed"][i] >= 4 and 1 or 0
          end
          return s
        end}]])
    -- speeds 2 9 1.5 4 (ranks 0..3): ranks 1 and 3 score 1
    assert.equal("node1 node0", node_names(assert(m:match(nodes(2, 1)))))
    -- two cores a node: ranks 0 and 2 are left, both score 0, visiting order
    assert.equal("node3 node2", node_names(assert(m:match(nodes(2, 2)))))
  end)

  it("scores: keys['free:TYPE'] are the units free below each candidate in the window",
    function()
    local m = core.matcher(four())
    assert(m:set_policy("first"))
    assert(m:match(nodes(1, 2))) -- node3 (rank 0) whole, for 60 s
    assert(m:match(nodes(1, 1))) -- one core of node1 (rank 1)
    assert(m:set_policy(assert(parse([[
      return {
        score_types = "node",
        scores = function(cands, ctx, keys)
          local free, gpu = keys["free:core"], keys["free:gpu"]
          local s = {}
          for i, v in ipairs(cands) do
            assert(free[i] == v:aggregate("core"), "as the view's aggregate")
            assert(free[i] == v:aggregate("core", ctx.start, ctx.duration), "in the window")
            assert(gpu[i] == 0, "a standard type the graph does not have")
            if ctx.start > 0 then
              -- after the first jobs: what is free then, not now
              assert(free[i] == 2, "the future window")
              assert(i > 2 or v:aggregate("core", 0, 1) < 2, "now differs")
            end
            s[i] = free[i] + (ctx.start > 0 and i / 100 or 0)
          end
          return s
        end}]]))))
    -- ranks 1, 2, 3 fit with 1, 2, 2 cores free: the two emptiest, in order
    assert.equal("node2 node0", node_names(assert(m:match(nodes(2, 1)))))
    -- three nodes of two cores: none now, every node at 60 s, where the
    -- last three in visiting order score best
    local later = assert(m:match(nodes(3, 2), "allocate_orelse_reserve"))
    assert.equal("reserved", later.state)
    assert.equal(60, later.start)
    local names = {}
    for name in node_names(later):gmatch("%S+") do names[#names + 1] = name end
    table.sort(names)
    assert.same({"node0", "node1", "node2"}, names)
  end)

  it("scores: keys['free:TYPE'] are known to scores only", function()
    local m = on_four([[
      return {choose = function(cands, k, scores, keys) return {keys["free:core"] and 1} end}]])
    expect.fails("ECANCELED", "policy inline: choose hook: inline.lua:1: keys: free:core is "
      .. "known to scores only (choose is not told the window being tried)", m:match(nodes(1, 1)))
  end)

  it("choose: a chosen candidate the aggregates admit but that does not fit is replaced",
    function()
    -- nodeA: one socket of 8 cores; nodeB: two of 4.  Two sockets of 4
    -- cores: both nodes have the 8 cores their aggregates count, only B
    -- the sockets.
    local function two()
      local g = core.graph()
      local root = g:add_vertex{type = "cluster", basename = "two", id = 0}
      for i, shape in ipairs{{8}, {4, 4}} do
        local n = g:add_vertex{type = "node", name = i == 1 and "nodeA" or "nodeB", id = i}
        assert(g:add_child(root, n))
        for s, cores in ipairs(shape) do
          local sock = g:add_vertex{type = "socket", id = s - 1}
          assert(g:add_child(n, sock))
          for c = 1, cores do assert(g:add_child(sock, g:add_vertex{type = "core", id = c})) end
        end
      end
      return g
    end
    local js = match.jobspec({{type = "node", count = 1, with = {{type = "slot", count = 1,
      label = "default", with = {{type = "socket", count = 2, with = {{type = "core",
      count = 4}}}}}}}}, 60)
    local m = core.matcher(two())
    assert(m:set_policy(assert(parse([[
      local calls = {}
      return {
        choose = function(cands, k)
          if cands[1]:type() == "node" then
            local names = {}
            for i, v in ipairs(cands) do names[i] = v:name() end
            calls[#calls + 1] = table.concat(names, " ")
            -- the second call sees only the candidate that fits
            assert(#calls == 1 and #cands == 2 or #calls == 2 and names[1] == "nodeB",
              table.concat(calls, " / "))
          end
          local pick = {}
          for i = 1, k do pick[i] = i end
          return pick
        end}]]))))
    assert.equal("nodeB", node_names(assert(m:match(js))))
    -- the built-in does the same
    m = core.matcher(two())
    assert(m:set_policy("locality"))
    assert.equal("nodeB", node_names(assert(m:match(js))))
  end)

  it("order: may return a new array", function()
    local m = on_four([[
      return {order = function(parent, kids)
        local t = {}
        for i = #kids, 1, -1 do t[#t + 1] = kids[i] end
        return t
      end}]])
    local j = assert(m:match(nodes(1, 1)))
    assert.equal("node0", node_names(j))
    assert.equal("core1", j.picks[#j.picks].vertex:name())
  end)

  it("order: asked once per vertex and window, the order kept for the walk's later visits",
    function()
    -- two nodes of two sockets of two cores: a slot of two sockets makes
    -- the walk enter each node and socket more than once in a window
    local function sockets()
      local g = core.graph()
      local root = g:add_vertex{type = "cluster", basename = "s", id = 0}
      for n = 0, 1 do
        local nd = g:add_vertex{type = "node", id = n, rank = n}
        assert(g:add_child(root, nd))
        for s = 0, 1 do
          local so = g:add_vertex{type = "socket", id = s}
          assert(g:add_child(nd, so))
          for c = 0, 1 do assert(g:add_child(so, g:add_vertex{type = "core", id = s * 2 + c})) end
        end
      end
      return g
    end
    local js = match.jobspec({{type = "node", count = 2, with = {{type = "slot", count = 1,
      label = "default", with = {{type = "socket", count = 2, with = {{type = "core",
      count = 1}}}}}}}}, 60)
    local policy = assert(parse([[
      return {order = function(parent, kids)
        log("info", "%s", parent:path())
        table.sort(kids, function(a, b) return a:id() > b:id() end)
      end}]]))
    local function run(m)
      local asked = {}
      core.set_log(function(line) asked[#asked + 1] = line:match("info: (.*)$") end)
      local ok, j = pcall(m.match, m, js, "allocate_orelse_reserve")
      core.set_log(nil)
      assert(ok, j)
      return assert(j), asked
    end
    local m = core.matcher(sockets())
    assert(m:set_policy(policy))
    local j, asked = run(m)
    assert.equal(0, j.start)
    table.sort(asked)
    assert.same({"/s0", "/s0/node0", "/s0/node0/socket0", "/s0/node0/socket1", "/s0/node1",
      "/s0/node1/socket0", "/s0/node1/socket1"}, asked)
    local c = core.matcher(sockets())
    assert(c:set_policy("high"))
    local jc = assert(c:match(js, "allocate_orelse_reserve"))
    local function picks(job)
      local t = {}
      for _, p in ipairs(job.picks) do t[#t + 1] = p.vertex:path() end
      return table.concat(t, " ")
    end
    assert.equal(picks(jc), picks(j))
    -- the machine full: a reservation tries a later window, and asks again
    local j2, asked2 = run(m)
    assert.equal(60, j2.start)
    local n = 0
    for _, path in ipairs(asked2) do
      if path == "/s0/node0" then n = n + 1 end
    end
    assert.equal(1, n)
    assert.equal(picks(assert(c:match(js, "allocate_orelse_reserve"))), picks(j2))
  end)

  it("work on several matchers and graphs in turn", function()
    local p = assert(core.policy_load("policies/locality.lua"))
    local m1, m2 = core.matcher(tiny()), core.matcher(four())
    assert(m1:set_policy(p))
    assert(m2:set_policy(p))
    for _ = 1, 3 do
      assert(m1:match(nodes(1, 1)))
      assert(m2:match(nodes(2, 1)))
    end
  end)
end)

-- n nodes of `cores` cores and `gpus` GPUs each under one rack; the types
-- interned GPU first when gpu_first (so "core" and "gpu" have other
-- symbols than in a graph that meets cores first).
local function machine(n, cores, gpus, gpu_first)
  local g = core.graph()
  local rack = g:add_vertex{type = "rack", basename = "m", id = 0}
  for i = 0, n - 1 do
    local nd = g:add_vertex{type = "node", id = i, rank = i}
    assert(g:add_child(rack, nd))
    local function add(type, count)
      for c = 0, count - 1 do assert(g:add_child(nd, g:add_vertex{type = type, id = c})) end
    end
    if gpu_first then add("gpu", gpus); add("core", cores)
    else add("core", cores); add("gpu", gpus) end
  end
  return g
end

describe("the arrays and aggregates hooks read, at many candidates", function()
  it("keys arrays and an order's children of 32 or more are what a loop would make", function()
    local m = core.matcher(machine(40, 1, 0))
    assert(m:set_policy(assert(parse([[
      local seen = 0
      return {
        order = function(parent, children)
          if parent:type() ~= "rack" then return end
          assert(#children == 40 and getmetatable(children) == nil, "plain array")
          for i = 1, #children do
            assert(children[i]:id() == i - 1, "graph order")
          end
          children[41] = nil
          seen = seen + 1
        end,
        choose = function(cands, k, scores, keys)
          if cands[1]:type() ~= "node" then return {1} end
          assert(#cands == 40 and #keys.id == 40 and #keys.vid == 40, "sizes")
          for i, v in ipairs(cands) do
            assert(keys.id[i] == v:id() and keys.vid[i] == v:vid() and keys.rank[i] == v:rank()
              and keys.size[i] == v:size(), "keys")
          end
          assert(keys.id[41] == nil and getmetatable(keys.id) == nil, "plain array")
          keys.id[1] = "mine"
          assert(keys.id[1] == "mine", "the policy's to change")
          assert(seen > 0, "order ran")
          return {40, 1}
        end}]]))))
    assert.equal("node0 node39", node_names(assert(m:match(nodes(2, 1))), true))
  end)

  it("scores: keys['free:TYPE'] at many candidates, across graphs", function()
    for _, gpu_first in ipairs({false, true}) do
      local m = core.matcher(machine(40, 2, 1, gpu_first))
      assert(m:set_policy(assert(parse([[
        return {
          score_types = "node",
          scores = function(cands, ctx, keys)
            local s = {}
            for i, v in ipairs(cands) do
              assert(keys["free:core"][i] == 2 and keys["free:gpu"][i] == 1, "free")
              assert(keys["free:core"][i] == v:aggregate("core"), "as the view's")
              s[i] = v:id()
            end
            return s
          end}]]))))
      assert.equal("node39", node_names(assert(m:match(nodes(1, 1)))))
    end
  end)

  it("aggregate(type) answers each type, on every graph the policy meets", function()
    -- one policy object on graphs that meet fpga and dsp (aggregated, as
    -- core) in other orders, so that their names are other symbols in each
    -- (a symbol kept from one graph would read the other type in the next)
    local function graph(first, second)
      local g = core.graph()
      local rack = g:add_vertex{type = "rack", basename = "m", id = 0}
      for i = 0, 39 do
        local nd = g:add_vertex{type = "node", id = i, rank = i}
        assert(g:add_child(rack, nd))
        assert(g:add_child(nd, g:add_vertex{type = "core", id = 0}))
        for c = 0, 1 do assert(g:add_child(nd, g:add_vertex{type = first, id = c})) end
        assert(g:add_child(nd, g:add_vertex{type = second, id = 0}))
      end
      assert(g:set_aggregates("ALL:core,ALL:fpga,ALL:dsp"))
      return g
    end
    local p = assert(parse([[
      return {
        score = function(v)
          local f, d, c = v:aggregate("fpga"), v:aggregate("dsp"), v:aggregate("core")
          assert(v:aggregate("gpu") == 0, "others")
          assert(not pcall(v.aggregate, v, "fpga\0x"), "a name with a NUL byte")
          if v:type() == "node" then
            assert(f + d == 3 and (f == 2 or d == 2), ("node: %d fpga, %d dsp"):format(f, d))
          end
          assert(v:aggregate("dsp") == d and v:aggregate("fp" .. "ga") == f, "again")
          return c + f * 10
        end}]]))
    for _, order in ipairs({{"fpga", "dsp"}, {"dsp", "fpga"}, {"fpga", "dsp"}}) do
      local m = core.matcher(graph(order[1], order[2]))
      assert(m:set_policy(p))
      assert.equal("node0", node_names(assert(m:match(nodes(1, 1)))))
      m:close()
    end
  end)

  it("a budget met while an array is made is placed at the policy's line", function()
    -- the keys array of 40 candidates is made by a few instructions of
    -- Grove's own: a budget running out among them names line 2
    local g, at = machine(40, 1, 0), {}
    for budget = 1, 20 do
      local p = parse([[
        return {choose = function(cands, k, scores, keys)
          local ids = keys.id
          return {#ids > 0 and 1 or nil}
        end}]], {budget = budget})
      if p then -- the chunk itself needs a few
        local m = core.matcher(g)
        assert(m:set_policy(p))
        local job, msg = m:match(nodes(1, 1))
        if not job then
          local line = msg:match("^policy inline: choose hook: inline%.lua:(%d+): instruction "
            .. "budget of %d+ exceeded$")
          assert(line, msg)
          at[tonumber(line)] = true
        end
        m:close()
      end
    end
    assert.same({[2] = true, [3] = true}, at)
  end)
end)

describe("the policy object", function()
  it("closes idempotently", function()
    local p = assert(parse("return {}"))
    p:close()
    p:close()
    assert.equal("grove.policy (closed)", tostring(p))
    assert.has_error(function() p:name() end, "calling 'name' on bad self (policy is closed)")
  end)

  it("keeps the traceback of its last failure", function()
    local p = assert(parse("return {\nprune = function() error('x') end}"))
    local m = core.matcher(tiny())
    m:set_policy(p)
    assert.is_nil(m:match(nodes(1, 1)))
    local tb = p:traceback()
    assert.matches("^inline.lua:2: x\nstack traceback:\n", tb)
    assert.matches("in function <inline.lua:2>", tb)
    m:set_policy("first")
    assert(m:match(nodes(1, 1)))
  end)
end)

describe("grove.policy", function()
  local policy = require("grove.policy")

  it("loads the built-ins by name, from policies/", function()
    for _, name in ipairs(policy.builtins) do
      local p = assert(policy.load(name))
      assert.equal(name, p:name())
      assert.matches("policies/" .. name .. "%.lua$", p:source())
      assert(core.matcher(tiny()):set_policy(name)) -- a C twin exists
    end
    assert.same(BUILTINS, policy.builtins)
  end)

  it("loads a path as given, with options", function()
    local p = assert(policy.load("spec/fixtures/policies/raise.lua", {budget = 77}))
    assert.equal("raise", p:name())
    assert.equal(77, p:budget())
  end)

  it("reports an unknown name", function()
    expect.fails_like("ENOENT", "^no policy 'fastest' in .*policies", policy.load("fastest"))
    assert.has_error(function() policy.load(3) end,
      "bad argument #1 to 'load' (string expected, got number)")
  end)
end)
