-- Graph readers of grove.core: GraphML generation recipes (grug_load,
-- grug_read) and hwloc topologies (hwloc_load), with their options and
-- error paths.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local core = require("grove.core")
local failed = require("expect").fails

local corpus = (os.getenv("GROVE_CONFORMANCE") or "../shared/conformance") .. "/fluxion"
local grugs = corpus .. "/grugs/"
local hwdata = corpus .. "/hwloc-data/001N/"

local function counts(g, types)
  local out = {}
  for _, t in ipairs(types) do
    out[t] = g:count(t)
  end
  return out
end

-- A recipe with the keys it uses declared inline.
local function recipe(body)
  return table.concat {
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n',
    '<key id="root" for="node" attr.name="root"/>',
    '<key id="type" for="node" attr.name="type"/>',
    '<key id="size" for="node" attr.name="size"/>',
    '<key id="multi_scale" for="edge" attr.name="multi_scale"/>',
    '<key id="id_scope" for="edge" attr.name="id_scope"/>\n',
    '<graph id="g">\n', body, '</graph></graphml>\n',
  }
end

describe("grove.core.grug_load", function()
  it("expands tiny like its JGF twin", function()
    local g, dropped = core.grug_load(grugs .. "tiny.graphml")
    assert.are.equal("grove.graph (100 vertices, 198 edges)", tostring(g))
    assert.are.equal(0, dropped)
    assert.are.same({ cluster = 1, rack = 1, node = 2, socket = 4, core = 72, gpu = 4,
      memory = 16 }, counts(g, { "cluster", "rack", "node", "socket", "core", "gpu", "memory" }))
    local c = g:vertex("/tiny0/rack0/node1/socket1/core35")
    assert.are.equal("core35", c:name())
    assert.are.equal(35, c:id())
    assert.is_nil(c:rank())
    assert.are.equal(1, g:vertex("/tiny0/rack0/node1"):rank())
    local m = g:vertex("/tiny0/rack0/node0/socket1/memory7")
    assert.are.equal(2, m:size())
    assert.are.equal("GB", m:unit())
    assert.are.equal("tiny", g:root():basename())
  end)

  it("expands every corpus recipe", function()
    local want = {
      ["tiny.graphml"] = 100, ["small.graphml"] = 378, ["medium.graphml"] = 3533,
      ["resv_test.graphml"] = 5299, ["advanced_test.graphml"] = 6002,
      ["coarse_iobw.graphml"] = 5317, ["power.graphml"] = 4042,
      ["sierra.graphml"] = 350473, ["disaggr.graphml"] = 355197,
      ["mt-storage/mtl0.graphml"] = 223, ["mt-storage/mtl1.graphml"] = 225,
      ["mt-storage/mtl2.graphml"] = 224, ["mt-storage/mtl3.graphml"] = 226,
    }
    for file, n in pairs(want) do
      local g, dropped = core.grug_load(grugs .. file)
      assert(g, file)
      assert.are.equal(n, g:count(), file)
      assert.are.equal(0, dropped, file)
      g:close()
    end
  end)

  it("builds the power subsystem", function()
    local g = core.grug_load(grugs .. "power.graphml")
    assert.are.same({ "containment", "power" }, g:subsystems())
    local n = g:vertex("/powerpanel0/pdu1/node20", "power")
    assert.are.equal(g:vertex("/power0/rack1/node20"), n)
    assert.are.equal("/powerpanel0/pdu1/node20", n:path("power"))
    assert.are.equal(10, g:vertex("/powerpanel0/pdu1/node20/power1", "power"):size())
  end)

  it("filters types and assigns ranks as asked", function()
    local g = core.grug_load(grugs .. "tiny.graphml", { types = { "cluster", "node", "core" } })
    assert.are.equal(75, g:count())
    assert.are.equal("/tiny0/node1/core35", g:vertex("/tiny0/node1/core35"):path())
    g = core.grug_load(grugs .. "tiny.graphml", { ranks = "subtree" })
    assert.are.equal(1, g:vertex("/tiny0/rack0/node1/socket1/core18"):rank())
    assert.is_nil(g:root():rank())
    g = core.grug_load(grugs .. "tiny.graphml", { ranks = "none" })
    assert.is_nil(g:vertex("/tiny0/rack0/node1"):rank())
    g = core.grug_load(grugs .. "tiny.graphml", { ranks = "nodes" })
    assert.is_nil(g:vertex("/tiny0/rack0/node1/socket0"):rank())
  end)

  it("links associated vertices below a second parent, even in strict mode", function()
    local g = assert(core.grug_load(grugs .. "mt-storage/mtl3.graphml", { strict = true }))
    local u2 = g:vertex("/mtl3-test0/mtl2unit0")
    local n, incl = 0, 0
    for c in u2:children() do
      n = n + 1
      assert.are.equal("mtl1unit", c:type())
      assert.are.equal("rack", c:parent():type()) -- its place in the tree stays
    end
    for _, e in ipairs(u2:out_edges()) do
      if e:relation() == "includes" then incl = incl + 1 end
    end
    assert.are.equal(2, n)
    assert.are.equal(2, incl)
  end)

  it("limits the vertices generated", function()
    failed("EOVERFLOW", grugs .. "tiny.graphml:117: the recipe generates more than 50 vertices "
      .. "(the limit: GROVE_MAX_VERTICES or the max_vertices option)",
      core.grug_load(grugs .. "tiny.graphml", { max_vertices = 50 }))
    assert.are.equal(100, core.grug_load(grugs .. "tiny.graphml", { max_vertices = 100 }):count())
  end)

  it("reports operational failures", function()
    failed("ENOENT", "nope.graphml: No such file or directory", core.grug_load("nope.graphml"))
    failed("EINVAL",
      corpus .. "/jgfs/tiny.json:1: malformed XML: Start tag expected, '<' not found",
      core.grug_load(corpus .. "/jgfs/tiny.json"))
  end)

  it("raises on misuse", function()
    assert.has_error(function() core.grug_load() end,
      "bad argument #1 to 'grug_load' (string expected, got no value)")
    assert.has_error(function() core.grug_load("x", 3) end,
      "bad argument #2 to 'grug_load' (table expected, got number)")
    require("grove.suggest") -- the closest name is offered once it is loaded
    assert.has_error(function() core.grug_load("x", { type = { "node" } }) end,
      "bad argument #2 to 'grug_load' (unknown option 'type' (did you mean 'types'?))")
    assert.has_error(function() core.grug_load("x", { types = "node" }) end,
      "bad argument #2 to 'grug_load' (types must be a list of strings)")
    assert.has_error(function() core.grug_load("x", { types = { 1 } }) end,
      "bad argument #2 to 'grug_load' (types must be strings)")
    assert.has_error(function() core.grug_load("x", { ranks = "all" }) end,
      "bad argument #2 to 'grug_load' (ranks must be \"nodes\", \"subtree\" or \"none\")")
    assert.has_error(function() core.grug_load("x", { max_vertices = -1 }) end,
      "bad argument #2 to 'grug_load' (max_vertices must not be negative)")
    assert.has_error(function() core.grug_load("x", { max_vertices = 1.5 }) end,
      "bad argument #2 to 'grug_load' (max_vertices must be an integer)")
    assert.has_error(function() core.grug_load("x", { [1] = true }) end,
      "bad argument #2 to 'grug_load' (unknown option '1')")
  end)
end)

describe("grove.core.grug_read", function()
  it("expands a recipe held in a string", function()
    local g, dropped = core.grug_read(recipe [[
<node id="c"><data key="root">1</data><data key="type">cluster</data></node>
<node id="r"><data key="type">rack</data></node>
<node id="n"><data key="type">node</data></node>
<edge source="c" target="r"><data key="multi_scale">2</data></edge>
<edge source="r" target="n"><data key="multi_scale">3</data><data key="id_scope">1</data></edge>
]])
    assert.are.equal(0, dropped)
    assert.are.equal(9, g:count())
    assert.are.equal("node5", g:vertex("/cluster0/rack1/node5"):name())
    assert.are.equal(5, g:vertex("/cluster0/rack1/node5"):rank())
  end)

  it("names its source in errors", function()
    failed("EINVAL", 'mine.xml:5: node "n" has no type',
      core.grug_read(recipe [[
<node id="c"><data key="root">1</data><data key="type">cluster</data></node>
<node id="n"/>
]], { source = "mine.xml" }))
    failed("EINVAL", 'recipe:4: node "c": size "big" is not an integer',
      core.grug_read(recipe [[
<node id="c"><data key="root">1</data><data key="size">big</data></node>
]]))
    failed("EINVAL", "recipe:1: malformed XML: Document is empty", core.grug_read(""))
    failed("EINVAL", "recipe:3: no <graph> in <graphml>", core.grug_read("\n\n<graphml/>"))
  end)
end)

describe("grove.core.hwloc_load", function()
  it("reads an XML topology with node-local storage", function()
    local g = core.hwloc_load {
      xml = hwdata .. "node_local_storage/corona/0.xml",
      types = { "node", "socket", "core", "storage" },
    }
    assert.are.equal(53, g:count())
    assert.are.same({ cluster = 1, node = 1, socket = 2, core = 48, storage = 1, pu = 0 },
      counts(g, { "cluster", "node", "socket", "core", "storage", "pu" }))
    local s = g:vertex("/cluster0/corona116/socket0/storage0")
    assert.are.equal(1562, s:size())
    assert.are.equal("GB", s:unit())
    assert.are.equal("259:0", s:property("LinuxDeviceID"))
    assert.are.equal(0, s:rank())
    local n = g:vertex("/cluster0/corona116")
    assert.are.equal("corona", n:basename())
    assert.are.equal(116, n:id())
  end)

  it("reads the GPUs of an XML topology", function()
    local g = core.hwloc_load {
      xml = hwdata .. "node_local_storage/lassen/0.xml",
      types = { "node", "socket", "gpu" },
      hostnames = "lassen[1-2]", first_rank = 4, cluster = "lassen",
    }
    assert.are.equal(1 + 2 * (1 + 2 + 4), g:count())
    assert.are.equal(5, g:vertex("/lassen/lassen2/socket1/gpu3"):rank())
    assert.are.equal(3, g:vertex("/lassen/lassen2/socket1/gpu3"):id())
    assert.is_nil(g:root():id())
  end)

  it("builds a cluster from a synthetic description", function()
    local g = core.hwloc_load {
      synthetic = "pack:2 core:4", hostnames = "node[0-3]",
      types = { "node", "socket", "core" }, cluster = "tiny7",
    }
    assert.are.equal(1 + 4 * (1 + 2 + 8), g:count())
    local root = g:root()
    assert.are.equal("tiny7", root:name())
    assert.are.equal("tiny", root:basename())
    assert.are.equal(7, root:id())
    assert.are.equal(3, g:vertex("/tiny7/node3/socket1/core7"):rank())
    g = core.hwloc_load { synthetic = "pack:1 core:2 pu:2" }
    assert.are.same({ node = 1, socket = 1, core = 2, pu = 4, memory = 1 },
      counts(g, { "node", "socket", "core", "pu", "memory" }))
    assert.is_not_nil(g:vertex("/cluster0/node0/socket0/core1/pu3"))
    g = core.hwloc_load { synthetic = "pack:1 core:2", first_rank = -1 }
    assert.is_nil(g:vertex("/cluster0/node"):rank())
  end)

  it("reads XML from a string and this machine's topology", function()
    local f = assert(io.open(hwdata .. "node_local_storage/catalyst/0.xml"))
    local text = f:read("a")
    f:close()
    local g = core.hwloc_load { xml_text = text, types = { "node", "storage" } }
    assert.are.equal(1 + 1 + 4, g:count())
    assert.are.equal("8:48", g:vertex("/cluster0/catalyst321/storage9"):property("LinuxDeviceID"))
    local live = core.hwloc_load { live = true }
    assert.is_true(live:count("core") >= 1)
    assert.are.equal(1, live:count("node"))
    assert.is_true(live:count("pu") >= live:count("core"))
  end)

  it("reports operational failures", function()
    failed("ENOENT", "/nonexistent.xml: No such file or directory",
      core.hwloc_load { xml = "/nonexistent.xml" })
    failed("EINVAL", grugs .. "tiny.graphml:9: the root element is <graphml>, not <topology>",
      core.hwloc_load { xml = grugs .. "tiny.graphml" })
    failed("EINVAL", "xml_text:1: not well-formed XML: Premature end of data in tag topology "
      .. "line 1", core.hwloc_load { xml_text = "<topology>" })
    failed("EINVAL", 'xml_text:2: cpuset="0xzz": not a bitmap (0x followed by up to 8 hex '
      .. "digits per comma-separated group, at most 1024 groups)",
      core.hwloc_load {
        xml_text = '<topology>\n<object type="Machine" cpuset="0xzz"/></topology>' })
    failed("EINVAL", 'synthetic "pack:2 bogus:3": invalid description',
      core.hwloc_load { synthetic = "pack:2 bogus:3" })
    failed("EINVAL", 'hostlist "" has no hosts',
      core.hwloc_load { synthetic = "pack:1 core:1", hostnames = "" })
    failed("EINVAL", 'invalid cluster name "a b"',
      core.hwloc_load { synthetic = "pack:1 core:1", cluster = "a b" })
    local ok, msg, code = core.hwloc_load { synthetic = "pack:1 core:1", hostnames = "n[3-1]" }
    assert.is_nil(ok)
    assert.are.equal("EINVAL", code)
    assert.are.equal('hostlist "n[3-1]": ', msg:sub(1, 19))
    failed("EINVAL", hwdata .. "amd_gpu/corona11.xml: storage device nvme0n1 has no Size",
      core.hwloc_load { xml = hwdata .. "amd_gpu/corona11.xml", types = { "storage" } })
  end)

  it("raises on misuse", function()
    assert.has_error(function() core.hwloc_load() end,
      "bad argument #1 to 'hwloc_load' (table expected, got no value)")
    assert.has_error(function() core.hwloc_load {} end,
      "bad argument #1 to 'hwloc_load' (give exactly one of xml, xml_text, synthetic or "
      .. "live = true)")
    assert.has_error(function() core.hwloc_load { synthetic = "pack:1", live = true } end,
      "bad argument #1 to 'hwloc_load' (give exactly one of xml, xml_text, synthetic or "
      .. "live = true)")
    assert.has_error(function() core.hwloc_load { live = true, host = "x" } end,
      "bad argument #1 to 'hwloc_load' (unknown option 'host')")
    assert.has_error(function() core.hwloc_load { xml = 5 } end,
      "bad argument #1 to 'hwloc_load' (xml must be a string)")
    assert.has_error(function() core.hwloc_load { live = true, first_rank = -2 } end,
      "bad argument #1 to 'hwloc_load' (first_rank must be -1 (no ranks) or more)")
    assert.has_error(function() core.hwloc_load { live = true, first_rank = "a" } end,
      "bad argument #1 to 'hwloc_load' (first_rank must be an integer)")
    assert.has_error(function() core.hwloc_load { live = true, types = { true } } end,
      "bad argument #1 to 'hwloc_load' (types must be strings)")
  end)
end)
