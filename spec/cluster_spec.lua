-- The cluster DSL (grove.cluster) and the example clusters: shapes of the
-- conformance corpus, id scopes, hostnames, ranks, properties, channeled
-- subsystems, and misuse.
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, fixtures in spec/fixtures/, and must
-- not be copied here.
local grove = require("grove")

local C = grove.cluster
local R = C.resources
local rack, node, socket, core, gpu, memory = R.rack, R.node, R.socket, R.core, R.gpu, R.memory
local subsystem, link = C.subsystem, C.link

local exe = require("exe_helper")

local corpus = (os.getenv("GROVE_CONFORMANCE") or "../shared/conformance") .. "/fluxion"


-- The subsystem paths of a JGF file's vertices, in file order.
local function jgf_paths(text, sub)
  local out = {}
  for p in text:gmatch('"' .. sub .. '"%s*:%s*"([^"]+)"') do
    out[#out + 1] = p
  end
  return out
end

-- Paths of the graph's vertices in a subsystem, in vertex id order.
local function graph_paths(g, sub)
  local out = {}
  for v in g:vertices() do
    local p = v:path(sub)
    if p then
      out[#out + 1] = p
    end
  end
  return out
end

local function names(g, spec)
  local out = {}
  for v in g:vertices(spec) do
    out[#out + 1] = v:name()
  end
  return out
end

-- The error message a DSL call raises, without the place a maker's own
-- misuse is raised at (the caller's line: asserted where it matters).
local function dsl_error(f)
  local ok, err = pcall(f)
  assert.is_false(ok)
  return (err:gsub("^[^:]+:%d+: ", ""))
end

describe("grove.cluster", function()
  it("is reachable from require 'grove'", function()
    assert.are.equal(require "grove.cluster", grove.cluster)
    assert.are.equal(grove.core.graph, grove.graph)
  end)

  describe("examples", function()
    it("tiny has the corpus tiny graph's vertices, in the same order", function()
      local g = dofile "examples/tiny.lua"
      local want = jgf_paths(exe.read(corpus .. "/jgfs/tiny.json"), "containment")
      assert.are.equal(100, #want)
      assert.are.same(want, graph_paths(g, "containment"))
      assert.are.equal("/tiny0/rack0/node1/socket1/core35", g:vertex(79):path())
      assert.are.same({ cluster = 1, rack = 1, node = 2, socket = 4, core = 72, gpu = 4,
                        memory = 32 }, g:aggregate())
      local m = g:vertex("/tiny0/rack0/node0/socket1/memory7")
      assert.are.equal(2, m:size())
      assert.are.equal("GB", m:unit())
      assert.are.same({ 0, 1 }, { g:vertex("node0"):rank(), g:vertex("node1"):rank() })
      assert.are.equal("tiny", g:root():basename())
    end)

    it("power matches the corpus power graph in both subsystems", function()
      local g = dofile "examples/power.lua"
      local text = exe.read(corpus .. "/jgfs/power.json")
      assert.are.same(jgf_paths(text, "containment"), graph_paths(g, "containment"))
      local want, have = jgf_paths(text, "power"), graph_paths(g, "power")
      table.sort(want)
      table.sort(have)
      assert.are.equal(581, #want)
      assert.are.same(want, have)
      assert.are.equal(4042, g:count())
      local n = g:vertex("/powerpanel0/pdu1/node18", "power")
      assert.are.equal(g:vertex("/power0/rack1/node18"), n)
      local e = n:in_edges("power")
      local rel = {}
      for _, x in ipairs(e) do
        rel[#rel + 1] = x:relation() .. (x:is_up() and "^" or "v")
        assert.is_not_nil(x:opposite())
      end
      table.sort(rel)
      assert.are.same({ "draws_from^", "draws_from^", "supplies_tov" }, rel)
      assert.are.equal(g:vertex("/power0/rack1/pdu1"), n:parent("power"))
      assert.are.equal(1, #g:roots("power"))
    end)

    it("medium numbers nodes across racks, with ranks and properties", function()
      local g = dofile "examples/medium.lua"
      assert.are.equal(3533, g:count())
      assert.are.same({ cluster = 1, rack = 4, node = 72, socket = 144, core = 2592,
                        gpu = 144, memory = 576 * 32 }, g:aggregate())
      local n = g:vertex("/medium0/rack3/node71")
      assert.are.equal(71, n:id())
      assert.are.equal(71, n:rank())
      assert.are.equal("standard", n:property("memtier"))
      assert.are.equal("fast", g:vertex("/medium0/rack1/node35"):property("memtier"))
      assert.are.equal(36, #names(g, { type = "node", property = { memtier = "fast" } }))
      assert(g:vertex("/medium0/rack1/node18/socket1/core35"))
      assert(g:vertex("/medium0/rack1/node18/socket1/memory7"))
    end)

    it("iobw joins file system, switches and nodes with conduit-of edges", function()
      local g = dofile "examples/iobw.lua"
      assert.are.same({ "containment", "iobw" }, g:subsystems())
      local pfs = g:root("iobw")
      assert.are.equal("/io0/pfs0", pfs:path())
      assert.are.equal(640, pfs:size())
      local n = g:vertex("/io0/rack1/io5")
      assert.are.equal(5, n:rank())
      local leaf = n:parent("iobw")
      assert.are.equal("/io0/rack1/leaf0", leaf:path())
      assert.are.equal(pfs, leaf:parent("iobw"))
      assert.are.equal("/pfs0/leaf0/io5", n:path("iobw"))
      local bw = n:children_list("iobw")
      assert.are.equal(1, #bw)
      assert.are.equal(25, bw[1]:size())
      assert.are.equal("GB/s", bw[1]:unit())
      assert.is_nil(bw[1]:path())
      for e in g:edges("iobw") do
        assert.are.equal("conduit-of", e:relation())
        assert.is_nil(e:opposite())
      end
      -- every node reaches the file system
      for v in g:vertices { type = "node" } do
        assert.are.equal(2, v:depth("iobw"))
      end
      local names_by_leaf = {}
      for _, v in ipairs(g:vertex("/io0/rack0/leaf0"):children_list("iobw")) do
        names_by_leaf[#names_by_leaf + 1] = v:name()
      end
      assert.are.same({ "io0", "io1", "io2", "io3" }, names_by_leaf)
    end)
  end)

  describe("resources", function()
    it("accept a count, options, a basename or nothing", function()
      local g = C "c" {
        R.a(), R.b(2), R.c { count = 2, size = 4 }, R.d "dee", R("e-type", 1, { unit = "W" }),
        R.f("eff", { count = 2 }),
      }
      assert.are.same({ "c0", "a0", "b0", "b1", "c0", "c1", "dee0", "e-type0", "eff0", "eff1" },
        names(g))
      assert.are.equal(4, g:vertex("/c0/c1"):size())
      assert.are.equal("W", g:vertex("/c0/e-type0"):unit())
      assert.are.equal("d", g:vertex("/c0/dee0"):type())
    end)

    it("set names, sizes, units, status, properties and tags", function()
      local g = C "c" {
        node(3, {
          name = function(id, n) return "n-" .. id .. "-" .. n end,
          properties = function(id) return { parity = id % 2 == 0 and "even" or "odd" } end,
          tags = { new = true, owner = "ops" },
          status = "drained",
        }),
        memory(1, { name = "big", size = 64, unit = "GB" }),
      }
      assert.are.same({ "c0", "n-0-1", "n-1-2", "n-2-3", "big" }, names(g))
      local n1 = g:vertex("/c0/n-1-2")
      assert.are.equal("odd", n1:property("parity"))
      assert.are.same({ new = true, owner = "ops" }, n1:tags())
      assert.are.equal("drained", n1:status())
      assert.are.equal(64, g:vertex("/c0/big"):size())
    end)

    it("flatten nested lists in a body", function()
      local cores = { core(1), { core(1) } }
      local g = C "c" { node(1) { cores, gpu(1) } }
      assert.are.same({ "c0", "node0", "core0", "core1", "gpu0" }, names(g))
    end)

    it("can be reused across clusters", function()
      local n = node(2, { hostnames = "h[1-2]" }) { core(2) }
      local a = C "a" { n }
      local b = C "b" { n }
      assert.are.same({ "a0", "h1", "h2", "core0", "core1", "core0", "core1" }, names(a))
      assert.are.same({ "b0", "h1", "h2", "core0", "core1", "core0", "core1" }, names(b))
    end)
  end)

  describe("ids", function()
    it("restart under each parent by default", function()
      local g = C "c" { rack(2) { node(2) { core(2) } } }
      assert.are.same({ "node0", "node1", "node0", "node1" }, names(g, { type = "node" }))
      assert(g:vertex("/c0/rack1/node1/core1"))
    end)

    it("are unique within an ancestor type, the k-th ancestor or the root", function()
      local g = C "c" {
        rack(2) {
          node(2, { id_scope = "root" }) {
            socket(2) { core(2, { id_scope = "node" }), gpu(1, { id_scope = 1 }) },
          },
        },
      }
      assert.are.same({ "node0", "node1", "node2", "node3" }, names(g, { type = "node" }))
      assert(g:vertex("/c0/rack1/node3/socket1/core3"))
      assert(g:vertex("/c0/rack1/node3/socket1/gpu1"))
      local g2 = C("c", { id_scope = "root" }) { rack(2) { node(2) } }
      assert.are.same({ "node0", "node1", "node2", "node3" }, names(g2, { type = "node" }))
      assert.are.same({ "rack0", "rack1" }, names(g2, { type = "rack" }))
      local g3 = C "c" { rack(2) { node(2) { core(2, { id_scope = 2 }) } } }
      assert(g3:vertex("/c0/rack1/node1/core7"))
    end)

    it("are unique across the cluster under \"root\", whatever the makers' basenames",
      function()
      -- nodes and gpu nodes in every rack, both scoped to the root
      local function build(scope)
        return C "c" {
          rack(2) {
            node(2, { id_scope = scope }) { core(2) },
            node(1, { id_scope = scope, basename = "gpunode" }) { core(2), gpu(1) },
          },
        }
      end
      local g = build("root")
      local seen = {}
      for v in g:vertices { type = "node" } do
        assert.is_nil(seen[v:id()], "node id " .. v:id() .. " twice")
        seen[v:id()] = true
      end
      assert.are.same({ "node0", "node1", "node2", "node3", "gpunode4", "gpunode5" },
        names(g, { type = "node" }))
      -- low takes the lowest ids at every level: rack0's nodes in id order
      local m = grove.core.matcher(g)
      assert(m:set_policy("low"))
      local got = {}
      for _ = 1, 6 do
        local j = assert(m:match(grove.jobspec { nodes = 1, exclusive = true }))
        for _, p in ipairs(j.picks) do
          if p.vertex:type() == "node" then got[#got + 1] = p.vertex:name() end
        end
      end
      assert.are.same({ "node0", "node1", "gpunode4", "node2", "node3", "gpunode5" }, got)
      -- under the default scope each parent counts its own, per basename
      assert.are.same({ "node0", "node1", "node0", "node1", "gpunode0", "gpunode0" },
        names(build(nil), { type = "node" }))
    end)

    it("follow id_start, id_stride and explicit idsets", function()
      local g = C "c" {
        rack(2) { node(2, { id_start = 10, id_stride = 5 }) },
        R.switch(3, { ids = "4,7-8" }),
        R.port(2, { ids = { 9, 3 } }),
      }
      assert.are.same({ "node10", "node15", "node10", "node15" }, names(g, { type = "node" }))
      assert.are.same({ "switch4", "switch7", "switch8" }, names(g, { type = "switch" }))
      assert.are.same({ "port9", "port3" }, names(g, { type = "port" }))
    end)

    it("raise on impossible scopes", function()
      assert.are.equal("grove.cluster: core: id_scope \"socket\": no socket above it",
        dsl_error(function() return C "c" { node(1) { core(1, { id_scope = "socket" }) } } end))
      assert.are.equal("grove.cluster: core: id_scope 3 goes above the root",
        dsl_error(function() return C "c" { node(1) { core(1, { id_scope = 3 }) } } end))
      assert.are.equal("grove.cluster: core: ids excludes id_scope, id_start and id_stride",
        dsl_error(function() return core(2, { ids = "0-1", id_start = 3 }) end))
      assert.are.equal("grove.cluster: core: id_scope must be >= 0",
        dsl_error(function() return core(2, { id_scope = -1 }) end))
      assert.are.equal("grove.cluster: core: id_stride must be >= 1",
        dsl_error(function() return core(2, { id_stride = 0 }) end))
      assert.are.equal("grove.cluster: node: ids has 1 entries, fewer than its instances",
        dsl_error(function() return C "c" { node(2, { ids = "5" }) } end))
    end)
  end)

  describe("hostnames and ranks", function()
    it("are handed out in order across parents", function()
      local g = C "c" {
        rack(2) { node(2, { hostnames = "fe[01-02],be[7-8]", ranks = "10-13" }) },
      }
      assert.are.same({ "fe01", "fe02", "be7", "be8" }, names(g, { type = "node" }))
      assert.are.equal(13, g:vertex("/c0/rack1/be8"):rank())
      assert.are.equal(g:vertex("be7"), g:vertices { rank = 12 }())
      local g2 = C "c" { node(2, { hostnames = { "x", "y" }, ranks = { 5, 3 } }) }
      assert.are.same({ 5, 3 }, { g2:vertex("x"):rank(), g2:vertex("y"):rank() })
    end)

    it("must match the number of instances", function()
      assert.are.equal("grove.cluster: node: hostnames has 1 entries, fewer than its instances",
        dsl_error(function() return C "c" { node(2, { hostnames = "a1" }) } end))
      assert.are.equal("grove.cluster: node: hostnames has 3 entries for 2 instances",
        dsl_error(function() return C "c" { node(2, { hostnames = "a[1-3]" }) } end))
      assert.are.equal("grove.cluster: node: ranks has 3 entries for 2 instances",
        dsl_error(function() return C "c" { node(2, { ranks = "0-2" }) } end))
    end)

    it("raise on malformed lists", function()
      assert.are.equal("grove.cluster: node: hostnames: invalid hostlist \"a[3-1]\": "
        .. "descending range at position 3",
        dsl_error(function() return C "c" { node(2, { hostnames = "a[3-1]" }) } end))
      assert.are.equal("grove.cluster: node: ranks: invalid idset \"x\": unexpected 'x' at "
        .. "position 1",
        dsl_error(function() return C "c" { node(2, { ranks = "x" }) } end))
      assert.are.equal("grove.cluster: node: ranks: entry 2 must be a non-negative integer",
        dsl_error(function() return C "c" { node(2, { ranks = { 1, -1 } }) } end))
    end)
  end)

  describe("the cluster vertex", function()
    it("takes a type, a fixed name and pool data", function()
      local g = C("cz", { type = "zone", properties = { site = "west" } }) {
        R.cluster "pfsbw_test" { rack(1) },
        R.pfs(1) { R.bandwidth(2, { size = 640 }) },
      }
      assert.are.equal("zone", g:root():type())
      assert.are.equal("/cz0/pfsbw_test0/rack0", g:vertex("rack0"):path())
      assert.are.equal(640, g:vertex("/cz0/pfs0/bandwidth1"):size())
      assert.are.equal("west", g:root():property("site"))
      local h = C { name = "site", rank = 0 } { node(1) }
      assert.are.equal("/site/node0", h:vertex("node0"):path())
      assert.are.equal(0, h:root():rank())
    end)
  end)

  describe("subsystems", function()
    local function base()
      return {
        rack(2) { R.leaf(1), node(2, { id_scope = "root" }) },
      }
    end

    it("link existing vertices with conduit-of edges by default", function()
      local body = base()
      body[#body + 1] = subsystem "net" {
        link "/c0/rack[0-1]/leaf0" { link "../node*" },
      }
      local g = C "c" (body)
      assert.are.equal(2, #g:roots("net"))
      assert.are.equal(g:vertex("/c0/rack1/leaf0"), g:vertex("/c0/rack1/node3"):parent("net"))
      assert.are.equal("/leaf0/node2", g:vertex("node2"):path("net"))
      for e in g:edges("net") do
        assert.are.equal("conduit-of", e:relation())
        assert.is_nil(e:opposite())
      end
      assert.are.equal(16 + 4, g:edge_count())
    end)

    it("create vertices of their own, with opposite edges on request", function()
      local body = base()
      body[#body + 1] = subsystem("power", { relation = "supplies_to", rrelation = "draws_from" }) {
        R.panel(2) { R.power(2, { size = 10, unit = "KW" }) },
        link "/c0/rack0" { R.pdu(1) { link "/c0/rack0/node*" } },
      }
      local g = C "c" (body)
      local roots = {}
      for i, r in ipairs(g:roots("power")) do
        roots[i] = r:name()
      end
      table.sort(roots)
      assert.are.same({ "panel0", "panel1", "rack0" }, roots)
      assert.are.equal("/panel1/power1", g:vertex("/panel1/power1", "power"):path("power"))
      local pdu = g:vertex("/rack0/pdu0", "power")
      assert.is_nil(pdu:path())
      assert.are.equal(2, #pdu:children_list("power"))
      for e in g:edges("power") do
        assert.is_not_nil(e:opposite())
        assert.are.equal(e:is_up() and "draws_from" or "supplies_to", e:relation())
      end
    end)

    it("resolve hostlist patterns exactly and globs by matching", function()
      local body = base()
      body[#body + 1] = subsystem "x" { link "/c0/rack[1,0]/node[3,0-1]" }
      assert.are.equal("grove.cluster: link /c0/rack[1,0]/node[3,0-1]: no vertex "
        .. "/c0/rack1/node0", dsl_error(function() return C "c" (body) end))
      body[#body] = subsystem "x" { link "/c0/rack1/node[3,2]" { R.port(1) } }
      local g = C "c" (body)
      local order = {}
      for v in g:vertices { type = "port" } do
        order[#order + 1] = v:parent("x"):name()
      end
      assert.are.same({ "node3", "node2" }, order)
      body[#body] = subsystem "x" { link "/c0/rack[1,0]/node*" { R.port(1) } }
      g = C "c" (body)
      order = {}
      for v in g:vertices { type = "port" } do
        order[#order + 1] = v:parent("x"):name()
      end
      assert.are.same({ "node2", "node3", "node0", "node1" }, order)
      -- linked without children: no edge, so no subsystem
      body[#body] = subsystem "x" { link "/c0/rack0" }
      assert.are.same({ "containment" }, C "c" (body):subsystems())
    end)

    it("raise on patterns that name nothing or cannot be resolved", function()
      local function try(entry)
        local body = base()
        body[#body + 1] = subsystem "x" (entry)
        return dsl_error(function() return C "c" (body) end)
      end
      assert.are.equal("grove.cluster: link /c0/rack9: no vertex /c0/rack9",
        try { link "/c0/rack9" })
      assert.are.equal("grove.cluster: link /c0/zz*: \"/c0/zz*\" names no vertex",
        try { link "/c0/zz*" })
      assert.are.equal("grove.cluster: link /c0/..: \"/c0/..\" names no vertex",
        try { link "/c0/.." })
      assert.are.equal("grove.cluster: link /../x: \"/../x\" goes above the root",
        try { link "/../x" })
      assert.are.equal("grove.cluster: link node0: a relative pattern needs a parent that is "
        .. "in containment", try { link "node0" })
      assert.are.equal("grove.cluster: link node0: a relative pattern needs a parent that is "
        .. "in containment", try { R.panel(1) { link "node0" } })
      assert.are.equal("grove.cluster: link /c0/rack[0-1]*: \"rack[0-1]*\" mixes a glob and a "
        .. "hostlist", try { link "/c0/rack[0-1]*" })
      assert.are.equal("grove.cluster: subsystem y: subsystem blocks belong in the cluster's "
        .. "own body", try { subsystem "y" {} })
    end)
  end)

  describe("misuse", function()
    it("says a count is too large, with the limit, before building anything", function()
      local limit = grove.core.limits().vertices
      assert.are.equal(("grove.cluster: core: count 1099511627776 is more than the vertex "
        .. "limit %d (GROVE_MAX_VERTICES)"):format(limit),
        dsl_error(function() return core(2 ^ 40) end))
      assert.are.equal(("grove.cluster: core: count %d is more than the vertex limit %d "
        .. "(GROVE_MAX_VERTICES)"):format(limit + 1, limit),
        dsl_error(function() return core(limit + 1) end))
      assert.are.equal(("grove.cluster: core: count %d is more than the vertex limit %d "
        .. "(GROVE_MAX_VERTICES)"):format(limit + 1, limit),
        dsl_error(function() return core { count = limit + 1 } end))
      assert.are.equal("grove.cluster: core: count must be a whole number (got 2.5)",
        dsl_error(function() return core(2.5) end))
      -- a whole number written as a float is a count
      assert.are.same({ "core0", "core1", "core2", "core3" },
        names(C "c" { core(2 ^ 2) }, { type = "core" }))
      -- the product of the counts, counted before any vertex is made
      local n = math.ceil(math.sqrt(limit)) + 1
      assert.are.equal(("grove.cluster: cluster c: the body makes %d vertices, more than the "
        .. "vertex limit %d (GROVE_MAX_VERTICES)"):format(1 + n + n * n, limit),
        dsl_error(function() return C "c" { node(n) { core(n) } } end))
    end)

    it("raises clear errors", function()
      local cases = {
        { function() return node(2, { colour = "red" }) end,
          "grove.cluster: node: unknown option 'colour'" },
        { function() return node(2, { size = "big" }) end,
          "grove.cluster: node: option size: expected integer, got string" },
        { function() return node(2, { properties = 3 }) end,
          "grove.cluster: node: option properties: expected table or function, got integer" },
        { function() return node(2, 3) end, "grove.cluster: node: options must be a table, not "
          .. "a number" },
        { function() return node({}, {}) end, "grove.cluster: node: give the options once" },
        { function() return node(true) end,
          "grove.cluster: node: expected a count, options or a basename, not a boolean" },
        { function() return node("n", { basename = "m" }) end,
          "grove.cluster: node: the basename is given twice" },
        { function() return node(-1) end, "grove.cluster: node: count must be >= 0" },
        { function() return node(2, { size = -1 }) end, "grove.cluster: node: size must be >= 0" },
        { function() return node(2, { name = "x" }) end,
          "grove.cluster: node: a fixed name needs count 1 (give a function for several)" },
        { function() return node(1) { core(1) } { core(1) } end,
          "grove.cluster: node: body given twice" },
        { function() return node(1) "x" end,
          "grove.cluster: node: the body must be a list of resources" },
        { function() return node(1) { core(1), 5 } end,
          "grove.cluster: node: entry 2 of the body is a number, not a resource, link or "
          .. "subsystem" },
        { function() return node(1) { core = core(1) } end,
          "grove.cluster: node: the body is a list; found the key \"core\"" },
        { function() return R[""] end, "grove.cluster: a resource type must be a non-empty "
          .. "string" },
        { function() return R(3) end, "grove.cluster: a resource type must be a non-empty "
          .. "string" },
        { function() return C(3) end, "grove.cluster: the cluster name must be a non-empty "
          .. "string" },
        { function() return C {} end, "grove.cluster: cluster: give a name" },
        { function() return C("c", { id_scope = "node" }) end,
          "grove.cluster: cluster: the default id_scope is \"parent\" or \"root\"" },
        { function() return C "c" (node(1)) end,
          "grove.cluster: cluster c: the body must be a list of resources" },
        { function() return C "c" { link "/c0" } end,
          "grove.cluster: link /c0: links are only valid inside a subsystem block" },
        { function() return C "c" { node(1) { subsystem "p" {} } } end,
          "grove.cluster: subsystem p: subsystem blocks belong in the cluster's own body" },
        { function() return subsystem "containment" end,
          "grove.cluster: subsystem: containment is the cluster's own tree; describe it in the "
          .. "body" },
        { function() return subsystem "" end,
          "grove.cluster: subsystem: the name must be a non-empty string" },
        { function() return subsystem("p", { relation = 1 }) end,
          "grove.cluster: subsystem p: option relation: expected string, got integer" },
        { function() return link "" end,
          "grove.cluster: link: the pattern must be a non-empty string" },
        { function() return C "c" { node(1, { status = "asleep" }) } end,
          "grove.cluster: node: unknown status 'asleep'" },
        { function() return C "c" { node(1, { name = function() return 1 end }) } end,
          "grove.cluster: node: the name function must return a non-empty string" },
        { function() return C "c" { node(1, { properties = function() return 1 end }) } end,
          "grove.cluster: node: the properties function must return a table" },
      }
      for _, case in ipairs(cases) do
        assert.are.equal(case[2], (dsl_error(case[1]):gsub("^.-:%d+: ", "")))
      end
    end)
  end)
end)
