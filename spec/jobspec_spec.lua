-- Specs for grove.core's jobspec and constraint bindings and for the
-- pure-Lua builder and writers (grove.jobspec).
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local J = require("grove.jobspec")
local grove = require("grove")

local FIX = "spec/fixtures/jobspec/"
local CORPUS = os.getenv("GROVE_CONFORMANCE") or "../shared/conformance"

local function yaml_files(dir)
  local files = {}
  local p = io.popen('ls "' .. dir .. '"/*.yaml 2>/dev/null')
  for line in p:lines() do files[#files + 1] = line end
  p:close()
  return files
end

local function doc(resources)
  return "version: 9999\nresources:\n" .. resources
    .. "tasks:\n  - command: [app]\n    slot: s\n    count: {per_slot: 1}\n"
    .. "attributes: {system: {duration: 60}}\n"
end

local SLOT = "  - type: slot\n    label: s\n    count: 2\n    with:\n"
  .. "      - type: core\n        count: 1\n"

describe("core.jobspec_parse", function()
  it("reads a YAML request tree into plain tables", function()
    local js = assert(core.jobspec_load(FIX .. "constraints.yaml"))
    assert.equal(9999, js:version())
    assert.equal(90.5, js:duration())
    assert.same({
      {type = "cluster", count = 1, with = {
        {type = "slot", label = "default",
         count = {min = 2, max = 8, operator = "*", operand = 2},
         with = {
           {type = "core", count = 4},
           {type = "memory", count = "4,8,16", unit = "GB"},
         }},
      }},
    }, js:resources())
    assert.same({{command = {"app", "--fast"}, slot = "default", count = {total = 16}}},
      js:tasks())
    assert.same({"attributes.system.color: unknown system attribute (kept)"}, js:warnings())
    js:close()
  end)

  it("gives counts as integers, range tables or idset strings", function()
    local js = assert(core.jobspec_parse(doc("  - type: node\n    count: \"2+\"\n"
      .. "  - type: gpu\n    count: 0\n  - type: rack\n    count: \"[1-7:3]\"\n"
      .. "  - type: ssd\n    count: \"1-3,9\"\n")))
    local r = js:resources()
    assert.same({min = 2, operator = "+", operand = 1}, r[1].count)
    assert.equal(0, r[2].count)
    assert.same({min = 1, max = 7, operator = "+", operand = 3}, r[3].count)
    assert.equal("1-3,9", r[4].count)
    assert.same({"tasks[0].slot: no slot is labelled 's'"}, js:warnings())
  end)

  it("reports the source, line, key path and reason", function()
    local js, msg, code = core.jobspec_load(FIX .. "bad_count.yaml")
    assert.is_nil(js)
    assert.equal(FIX .. "bad_count.yaml:10: resources[0].with[0].count.max: "
      .. "must be greater than or equal to min (2 < 4)", msg)
    assert.equal("EINVAL", code)
    local _, m2, c2 = core.jobspec_parse(doc("  - type: node\n    count: -1\n"),
      {source = "t.yaml"})
    assert.equal("t.yaml:4: resources[0].count: must not be negative (got -1)", m2)
    assert.equal("EINVAL", c2)
    local _, m3 = core.jobspec_parse("version: 1\n")
    assert.equal("resources: required key is missing", m3)
    local _, m4, c4 = core.jobspec_load("spec/fixtures/jobspec/missing.yaml")
    assert.equal("spec/fixtures/jobspec/missing.yaml: No such file or directory", m4)
    assert.equal("ENOENT", c4)
  end)

  it("applies the V1 rules when asked", function()
    local text = doc(SLOT)
    assert.truthy(core.jobspec_parse(text))
    local _, msg = core.jobspec_parse(text, {v1 = true, source = "t"})
    assert.equal("t:1: version: must be 1 for a V1 jobspec (got 9999)", msg)
    local js = assert(core.jobspec_load(FIX .. "v1.json", {v1 = true}))
    assert.equal(1, js:version())
    assert.equal(600.0, js:duration())
    assert.same({{command = {"hostname"}, slot = "task", count = {total = 3}}}, js:tasks())
    for _, f in ipairs(yaml_files(CORPUS .. "/fluxcore/jobspec/invalid_v1")) do
      assert.truthy(select(2, core.jobspec_load(f, {v1 = true})), f)
    end
  end)

  it("takes format, types and unique_labels options", function()
    local flow = "{version: 9999, resources: [{type: slot, label: s, count: 1, "
      .. "with: [{type: core, count: 1}]}], tasks: [{command: [a], slot: s, "
      .. "count: {per_slot: 1}}], attributes: {}}"
    assert.truthy(core.jobspec_parse(flow))
    local _, msg = core.jobspec_parse(flow, {format = "json"})
    assert.matches("^JSON syntax error: ", msg)
    local _, m2 = core.jobspec_parse(doc(SLOT), {types = {"node"}, source = "t"})
    assert.equal("t:7: resources[0].with[0].type: unknown resource type 'core'", m2)
    assert.truthy(core.jobspec_parse(doc(SLOT), {types = {"core"}}))
    local dup = doc(SLOT .. "  - type: node\n    label: s\n    count: 1\n")
    local js = assert(core.jobspec_parse(dup))
    assert.same({"resources[1].label: duplicate label 's'"}, js:warnings())
    local _, m3 = core.jobspec_parse(dup, {unique_labels = true, source = "t"})
    assert.equal("t:10: resources[1].label: duplicate label 's' (labels must be unique)", m3)
  end)

  it("keeps user attributes and constraints as tables", function()
    local js = assert(core.jobspec_load(FIX .. "constraints.yaml"))
    local t = js:to_table()
    assert.equal("alice", t.attributes.user.owner)
    assert.same({"a", "b"}, t.attributes.user.tags)
    assert.equal(core.null, t.attributes.user.none)
    assert.same({["and"] = {{properties = {"ssd", "^slowgpu"}},
      {["not"] = {{hostlist = {"node[0-3]"}}}}}}, js:constraints())
    assert.is_nil(assert(core.jobspec_load(FIX .. "v1.json")):constraints())
  end)

  it("evaluates its constraint against a target", function()
    local js = assert(core.jobspec_load(FIX .. "constraints.yaml"))
    assert.is_true(js:constraint_match{properties = {"ssd"}, hostname = "node7"})
    assert.is_true(js:constraint_match{properties = {ssd = true}, hostname = "node7"})
    assert.is_false(js:constraint_match{properties = {"ssd"}, hostname = "node2"})
    assert.is_false(js:constraint_match{properties = {"ssd", "slowgpu"}, hostname = "node9"})
    assert.is_false(js:constraint_match{hostname = "node9"})
    local free = assert(core.jobspec_load(FIX .. "v1.json"))
    assert.is_true(free:constraint_match{})
  end)

  it("writes JSON that reads back the same", function()
    local js = assert(core.jobspec_load(FIX .. "constraints.yaml"))
    local again = assert(core.jobspec_parse(js:to_json()))
    assert.same(js:to_table(), again:to_table())
    assert.same(js:resources(), again:resources())
  end)

  it("closes once and refuses closed handles", function()
    local js = assert(core.jobspec_load(FIX .. "v1.json"))
    assert.equal("grove.jobspec (version 1, 4 resources, 1 tasks)", tostring(js))
    js:close()
    js:close()
    assert.equal("grove.jobspec (closed)", tostring(js))
    assert.has_error(function() js:version() end,
      "calling 'version' on bad self (jobspec is closed)")
    do
      local h <close> = assert(core.jobspec_load(FIX .. "v1.json"))
      assert.equal(1, h:version())
    end
  end)

  it("raises on misuse", function()
    assert.has_error(function() core.jobspec_parse({}) end,
      "bad argument #1 to 'jobspec_parse' (string expected, got table)")
    assert.has_error(function() core.jobspec_parse("x", 5) end,
      "bad argument #2 to 'jobspec_parse' (table expected, got number)")
    assert.has_error(function() core.jobspec_parse("x", {format = "xml"}) end,
      "bad argument #2 to 'jobspec_parse' (format must be \"yaml\" or \"json\")")
    local js = assert(core.jobspec_load(FIX .. "v1.json"))
    assert.has_error(function() js:constraint_match("ssd") end,
      "bad argument #1 to 'constraint_match' (table expected, got string)")
  end)

  it("refuses an option it does not know, and takes every one it does", function()
    local text = assert(io.open(FIX .. "v1.json")):read("a")
    assert.has_error(function() core.jobspec_parse(text, {fromat = "json"}) end,
      "bad argument #2 to 'jobspec_parse' (unknown option 'fromat' (did you mean 'format'?))")
    assert.has_error(function() core.jobspec_load(FIX .. "v1.json", {v2 = true}) end,
      "bad argument #2 to 'jobspec_load' (unknown option 'v2' (did you mean 'v1'?))")
    local t = assert(core.jobspec_parse(text)):to_table()
    assert.has_error(function() core.jobspec_from_table(t, {type = {"node"}}) end,
      "bad argument #2 to 'jobspec_from_table' (unknown option 'type' (did you mean 'types'?))")
    local all = {v1 = true, unique_labels = true, format = "json", duration = 60,
      source = "v1.json", types = {"node", "slot", "core", "socket", "gpu", "memory"}}
    assert.truthy(core.jobspec_parse(text, all))
    all.format = nil
    assert.truthy(core.jobspec_load(FIX .. "v1.json", all))
    assert.truthy(core.jobspec_from_table(t, all))
  end)

  it("refuses a subject field it does not know, and takes every one it does", function()
    local js = assert(core.jobspec_load(FIX .. "constraints.yaml"))
    assert.has_error(function() js:constraint_match{properties = {"ssd"}, hostnmae = "node7"} end,
      "bad argument #1 to 'constraint_match' (unknown field 'hostnmae' (did you mean "
      .. "'hostname'?))")
    assert.is_true(js:constraint_match{properties = {"ssd"}, hostname = "node7", rank = 7})
    local c = assert(core.constraint{properties = {"ssd"}})
    assert.has_error(function() c:match{property = {"ssd"}} end,
      "bad argument #1 to 'match' (unknown field 'property' (did you mean 'properties'?))")
    assert.is_true(c:match{properties = {"ssd"}, hostname = "n1", rank = 1})
  end)

  it("validates tables with jobspec_from_table", function()
    local t = assert(J.build{tasks = 2})
    assert.truthy(core.jobspec_from_table(t, {v1 = true}))
    t.resources[1].count = 0
    local js, msg, code = core.jobspec_from_table(t)
    assert.is_nil(js)
    assert.equal("resources[0].count: must be at least 1 for a slot (got 0)", msg)
    assert.equal("EINVAL", code)
    local _, m2 = core.jobspec_from_table({version = 1, resources = {}, tasks = {},
      attributes = {}})
    assert.equal("resources: must contain at least one resource vertex", m2)
    local _, m3 = core.jobspec_from_table({version = 1, [true] = 1})
    assert.equal("object keys must be strings", m3)
  end)

  it("round-trips every corpus jobspec through to_json and to_yaml", function()
    local n = 0
    for _, dir in ipairs{"/fluxcore/jobspec/valid", "/rfc/spec_14",
                         "/fluxion/jobspecs/validation/valid", "/fluxion/jobspecs/basics"} do
      for _, f in ipairs(yaml_files(CORPUS .. dir)) do
        local js = core.jobspec_load(f)
        if js then
          local t = js:to_table()
          local j = assert(core.jobspec_parse(js:to_json()), f)
          assert.same(t, j:to_table(), f)
          local y, err = core.jobspec_parse(J.to_yaml(t))
          assert.truthy(y, err)
          assert.same(t, y:to_table(), f)
          local z = assert(core.jobspec_parse(J.to_json(t)), f)
          assert.same(t, z:to_table(), f)
          n = n + 1
        end
      end
    end
    assert.is_true(n >= 60)
  end)
end)

describe("core.constraint", function()
  it("compiles tables and text", function()
    local c = assert(core.constraint{["or"] = {{properties = {"ssd"}}, {ranks = {0, "4-5"}}}})
    assert.equal('{"or":[{"properties":["ssd"]},{"ranks":[0,"4-5"]}]}', tostring(c))
    assert.is_true(c:match{properties = {"ssd"}})
    assert.is_true(c:match{rank = 5})
    assert.is_false(c:match{rank = 3})
    assert.same({["or"] = {{properties = {"ssd"}}, {ranks = {0, "4-5"}}}}, c:to_table())
    local y = assert(core.constraint("hostlist: [\"n[1-2]\"]"))
    assert.is_true(y:match{hostname = "n2"})
    assert.is_false(y:match{hostname = "n3"})
  end)

  it("follows the empty operand rules", function()
    local rows = {
      {{}, true}, {{["and"] = {}}, true}, {{["or"] = {}}, true},
      {{properties = {}}, true}, {{["not"] = {}}, false}, {{hostlist = {}}, false},
      {{ranks = {}}, false}, {{["and"] = {{}}}, true}, {{["not"] = {{}}}, false},
    }
    for i, row in ipairs(rows) do
      local c = assert(core.constraint(row[1]))
      assert.equal(row[2], c:match{properties = {"x"}, hostname = "h", rank = 0}, i)
    end
  end)

  it("returns nil, message, code for bad constraints", function()
    local c, msg, code = core.constraint{properties = {"a|b"}}
    assert.is_nil(c)
    assert.equal("properties[0]: invalid character '|' in property 'a|b'", msg)
    assert.equal("EINVAL", code)
    assert.equal("a constraint has exactly one operator (got 2 keys)",
      select(2, core.constraint{properties = {"a"}, ranks = {"0"}}))
    assert.equal("foo: unknown constraint operator (expected properties, hostlist, ranks, "
      .. "and, or, not)", select(2, core.constraint('{"foo": []}')))
    assert.has_error(function() core.constraint(5) end,
      "bad argument #1 to 'constraint' (table or string expected, got number)")
    local ok = assert(core.constraint{})
    ok:close()
    assert.has_error(function() ok:match{} end,
      "calling 'match' on bad self (constraint is closed)")
  end)
end)

describe("grove.jobspec.build", function()
  it("builds the run -N2 -n8 -c4 -g1 -x -t 1h request", function()
    local t = assert(J.build{nodes = 2, tasks = 8, cores_per_task = 4, gpus_per_task = 1,
      exclusive = true, duration = "1h", command = {"app"}})
    assert.same({
      version = 1,
      resources = {{type = "node", count = 2, exclusive = true, with = {
        {type = "slot", count = 4, label = "task", with = {
          {type = "core", count = 4}, {type = "gpu", count = 1}}}}}},
      tasks = {{command = {"app"}, slot = "task", count = {per_slot = 1}}},
      attributes = {system = {duration = 3600}},
    }, t)
    assert.truthy(core.jobspec_parse(J.to_yaml(t), {v1 = true}))
  end)

  it("is callable as jobspec{...}", function()
    assert.same(J.build{tasks = 4, cores_per_task = 2}, J{tasks = 4, cores_per_task = 2})
  end)

  it("spreads uneven task counts with total", function()
    local t = assert(J.build{nodes = 2, tasks = 5})
    assert.equal(3, t.resources[1].with[1].count)
    assert.same({total = 5}, t.tasks[1].count)
    local s = assert(J.build{tasks = 3, cores_per_task = 2})
    assert.same({{type = "slot", count = 3, label = "task",
      with = {{type = "core", count = 2}}}}, s.resources)
  end)

  it("builds per-slot and per-node shapes", function()
    local s = assert(J.build{slots = 4, cores_per_slot = 2, gpus_per_slot = 1,
      tasks_per_slot = 2, label = "work"})
    assert.equal(9999, s.version)
    assert.same({per_slot = 2}, s.tasks[1].count)
    assert.equal("work", s.tasks[1].slot)
    assert.same({type = "slot", count = 4, label = "work", with = {
      {type = "core", count = 2}, {type = "gpu", count = 1}}}, s.resources[1])
    local sn = assert(J.build{slots = 5, nodes = 2})
    assert.equal(3, sn.resources[1].with[1].count)
    local n = assert(J.build{nodes = 3, cores_per_node = 16, gpus_per_node = 4,
      exclusive = true})
    assert.same({{type = "node", count = 3, exclusive = true, with = {
      {type = "slot", count = 1, label = "task", with = {
        {type = "core", count = 16}, {type = "gpu", count = 4}}}}}}, n.resources)
    assert.equal(1, n.version)
    local tpn = assert(J.build{nodes = 2, tasks_per_node = 4, cores_per_task = 2})
    assert.equal(4, tpn.resources[1].with[1].count)
    assert.same({per_slot = 1}, tpn.tasks[1].count)
  end)

  it("accepts moldable node counts", function()
    local t = assert(J.build{nodes = "2-8:2:*"})
    assert.equal(9999, t.version)
    local js = assert(core.jobspec_parse(J.to_yaml(t)))
    assert.same({min = 2, max = 8, operator = "*", operand = 2}, js:resources()[1].count)
    local t2 = assert(J.build{nodes = {min = 2}})
    local js2 = assert(core.jobspec_parse(J.to_json(t2)))
    assert.same({min = 2, operator = "+", operand = 1}, js2:resources()[1].count)
  end)

  it("turns property lists into constraints and keeps RFC 31 tables", function()
    local t = assert(J.build{constraints = {"ssd", "^slow"}})
    assert.same({properties = {"ssd", "^slow"}}, t.attributes.system.constraints)
    local r = assert(J.build{constraints = {["not"] = {{hostlist = {"n[0-1]"}}}}})
    local js = assert(core.jobspec_parse(J.to_yaml(r)))
    assert.is_false(js:constraint_match{hostname = "n1"})
    assert.is_true(js:constraint_match{hostname = "n2"})
    local e = assert(J.build{constraints = {["or"] = {}}})
    assert.equal('{"or":[]}', J.to_json(e.attributes.system.constraints))
  end)

  it("parses durations", function()
    local rows = {{"90s", 90}, {"30m", 1800}, {"1.5h", 5400}, {"2d", 172800},
                  {"250ms", 0.25}, {"42", 42}, {42, 42}, {0.5, 0.5}, {"0", 0}}
    for _, row in ipairs(rows) do
      assert.equal(row[2], J.duration(row[1]), tostring(row[1]))
    end
    assert.same({nil, "invalid duration '1x' (use seconds or a number with s, m, h, d)",
      "EINVAL"}, {J.duration("1x")})
    assert.same({nil, "invalid duration '-1' (must be finite and not negative)", "EINVAL"},
      {J.duration(-1)})
    assert.has_error(function() J.duration({}) end,
      "bad argument #1 to 'duration' (number or string expected, got table)")
  end)

  it("refuses requests it cannot build, naming grove.jobspec and the option", function()
    local rows = {
      {{nodes = 3, tasks = 2}, "nodes: must not exceed tasks (2), got 3"},
      {{tasks = 2, exclusive = true}, "exclusive: needs a node count (nodes)"},
      {{tasks = 2, slots = 2}, "tasks, slots: per-task, per-slot and per-node options do not mix"},
      {{cores_per_task = 2, cores_per_node = 4, nodes = 1},
        "cores_per_task, cores_per_node: per-task, per-slot and per-node options do not mix"},
      {{nodes = 0}, "nodes: must be an integer >= 1 (got 0)"},
      {{nodes = -1}, "nodes: must be an integer >= 1 (got -1)"},
      {{tasks = 1.5}, "tasks: must be an integer >= 1 (got 1.5)"},
      {{gpus_per_task = "two"}, "gpus_per_task: must be an integer >= 0 (got two)"},
      {{nodes = "2+", tasks = 4}, "nodes: a moldable node count cannot divide a task count"},
      {{nodes = "2+", slots = 4}, "nodes: a moldable node count cannot divide a slot count"},
      {{slots = 1, nodes = 2}, "slots: must be >= nodes (2), got 1"},
      {{duration = "soon"},
        "duration: invalid duration 'soon' (use seconds or a number with s, m, h, d)"},
      {{command = {}}, "command: must be a non-empty list of strings"},
      {{command = {"a", 5}}, "command[2]: must be a string"},
      {{tasks = 2, tasks_per_node = 2}, "tasks_per_node: give tasks or tasks_per_node, not both"},
      {{cores_per_node = 2}, "cores_per_node: needs nodes"},
      {{label = ""}, "label: must be a non-empty string"},
      {{constraints = 5}, "constraints: must be a table"},
      {{constraints = {"ssd", 5}}, "constraints[2]: must be a property name"},
      {{cwd = 5}, "cwd: must be a string"},
      {{environment = "x"}, "environment: must be a table"},
      {{user = "me"}, "user: must be a table"},
      -- an unknown option the same way, with the closest one offered
      {{gpus = 1}, "gpus: unknown option"},
      {{cores_per_tsk = 2}, "cores_per_tsk: unknown option (did you mean 'cores_per_task'?)"},
      {{nodez = 1}, "nodez: unknown option (did you mean 'nodes'?)"},
      {{colour = "red"}, "colour: unknown option"},
    }
    for _, row in ipairs(rows) do
      -- raised at the caller's line, whether called as build or as jobspec{}
      local ok, err = pcall(function() local t = J.build(row[1]); return t end)
      assert.is_false(ok)
      assert.equal("spec/jobspec_spec.lua:" .. debug.getinfo(1, "l").currentline - 2 ..
        ": grove.jobspec: " .. row[2], err)
      local ok2, err2 = pcall(function() local t = J(row[1]); return t end)
      assert.is_false(ok2)
      assert.equal("spec/jobspec_spec.lua:" .. debug.getinfo(1, "l").currentline - 2 ..
        ": grove.jobspec: " .. row[2], err2)
    end
    assert.has_error(function() J.build("N2") end,
      "bad argument #1 to 'grove.jobspec' (table expected, got string)")
  end)

  it("raises where a matcher would read a failure as its next argument", function()
    local m = core.matcher(grove.cluster "c" {grove.cluster.resources.node(2) {
      grove.cluster.resources.core(2)}})
    local ok, err = pcall(function() return m:match(grove.jobspec{nodes = -1}) end)
    assert.is_false(ok)
    assert.matches("^spec/jobspec_spec%.lua:%d+: grove%.jobspec: nodes: must be an integer " ..
      ">= 1 %(got %-1%)$", err)
  end)
end)

describe("grove.jobspec writers", function()
  local t = {
    version = 1,
    resources = {{type = "slot", count = 2, label = "task",
                  with = {{type = "core", count = 1}}}},
    tasks = {{command = {"echo", "yes", "a: b", "#x", "", "1e3"}, slot = "task",
              count = {per_slot = 1}}},
    attributes = {system = {duration = 60.0, cwd = "/tmp"},
                  user = {["on"] = "off", quote = 'say "hi"\n', n = 12, list = {}}},
  }

  it("writes block YAML with quoted strings where needed", function()
    assert.equal(table.concat({
      "version: 1",
      "resources:",
      "  - type: slot",
      "    count: 2",
      "    label: task",
      "    with:",
      "      - type: core",
      "        count: 1",
      "tasks:",
      '  - command: [echo, "yes", "a: b", "#x", "", "1e3"]',
      "    slot: task",
      "    count:",
      "      per_slot: 1",
      "attributes:",
      "  system:",
      "    duration: 60.0",
      "    cwd: /tmp",
      "  user:",
      "    list: {}",
      '    "n": 12',
      '    "on": "off"',
      '    quote: "say \\"hi\\"\\n"',
      "",
    }, "\n"), J.to_yaml(t))
  end)

  it("writes compact JSON in a stable order", function()
    assert.equal('{"version":1,"resources":[{"type":"slot","count":2,"label":"task",'
      .. '"with":[{"type":"core","count":1}]}],"tasks":[{"command":["echo","yes",'
      .. '"a: b","#x","","1e3"],"slot":"task","count":{"per_slot":1}}],"attributes":'
      .. '{"system":{"duration":60.0,"cwd":"/tmp"},"user":{"list":{},"n":12,'
      .. '"on":"off","quote":"say \\"hi\\"\\n"}}}', J.to_json(t))
  end)

  it("writes text the C parser reads back unchanged", function()
    for _, text in ipairs{J.to_yaml(t), J.to_json(t)} do
      local js = assert(core.jobspec_parse(text, {v1 = true}))
      local back = js:to_table()
      assert.same(t.tasks, back.tasks)
      assert.same(t.resources, back.resources)
      assert.equal("say \"hi\"\n", back.attributes.user.quote)
      assert.equal("off", back.attributes.user["on"])
    end
  end)

  it("writes null, floats and escapes", function()
    assert.equal('{"a":null,"b":0.1,"c":"\\u0001\\t"}',
      J.to_json{a = core.null, b = 0.1, c = "\1\t"})
    assert.equal("a: null\nb: 1.0e+300\n", J.to_yaml{a = core.null, b = 1e300})
    assert.equal("{}\n", J.to_yaml{})
    assert.equal("- 1\n- [2, 3]\n", J.to_yaml{1, {2, 3}})
    assert.has_error(function() J.to_json{a = 0 / 0} end)
    assert.has_error(function() J.to_yaml(3) end,
      "bad argument #1 to 'to_yaml' (table expected, got number)")
  end)
end)

-- One nesting limit everywhere (GROVE_NEST_MAX in core/grove.h): tables
-- nested that deep are accepted by the readers and writers, one level more
-- is refused.
describe("nesting limit", function()
  local function deep(n)
    local top = {}
    local t = top
    for _ = 2, n do
      t.x = {}
      t = t.x
    end
    return top
  end
  local TOO_DEEP = "table nested too deep (a cycle?)"

  it("is 128 levels", function()
    assert.equal(128, core.nest_max)
  end)

  it("holds for jobspec_from_table and to_json", function()
    local _, msg, code = core.jobspec_from_table(deep(core.nest_max))
    assert.equal("EINVAL", code)
    assert.not_equal(TOO_DEEP, msg)
    assert.same({nil, TOO_DEEP, "EINVAL"}, {core.jobspec_from_table(deep(core.nest_max + 1))})
    assert.is_string(J.to_json(deep(core.nest_max)))
    assert.has_error(function() J.to_json(deep(core.nest_max + 1)) end, TOO_DEEP)
  end)

  it("holds for YAML text", function()
    -- a mapping holding n - 1 nested lists: n levels
    local function flow(n) return "x: " .. ("["):rep(n - 1) .. ("]"):rep(n - 1) end
    local _, msg = core.jobspec_parse(flow(core.nest_max))
    assert.not_matches("nesting deeper", msg)
    _, msg = core.jobspec_parse(flow(core.nest_max + 1))
    assert.matches("nesting deeper than 128 levels", msg)
  end)
end)
