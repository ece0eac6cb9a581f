-- bench_rv1_topo.lua: the CPU of writing a job's R (m:rv1 and its text)
-- when the graph holds the nodes' hwloc topology: a job of half the
-- nodes, whole, on N nodes of the XML's shape.
--
--   build/grove bench/bench_rv1_topo.lua XML NODES RUNS GPUS
--
-- GPUS: the GPU ids R gives each rank ("0-3" for sierra.xml, "0-23" for
-- tuo.CPX.xml).  Prints the mean CPU (os.clock) of one R written, and its
-- bytes.  A benchmark, not a test: figures go in bench/RESULTS.md.
local core = require("grove.core")
local xml, n, runs, gpus = arg[1], tonumber(arg[2]), tonumber(arg[3]), arg[4]
if not (xml and n and runs) then
  io.stderr:write("usage: bench_rv1_topo.lua XML NODES RUNS [GPUS]\n")
  os.exit(2)
end
local t = core.topologies()
assert(t:add("0-" .. (n - 1), {xml = xml}))
-- R_lite of n ranks with the XML's cores (counted in it) and gpus
local cores = 0
for line in io.lines(xml) do
  if line:find('type="Core"', 1, true) then cores = cores + 1 end
end
local R = ('{"version":1,"execution":{"R_lite":[{"rank":"0-%d","children":{"core":"0-%d"%s}}],'
  .. '"nodelist":["n[0-%d]"],"starttime":0,"expiration":0}}'):format(n - 1, cores - 1,
  gpus and (',"gpu":"%s"'):format(gpus) or "", n - 1)
local g = core.graph()
local m = core.matcher(g)
local a = core.acquire(g, m, {protocol = "current"})
a:set_topology(t)
assert(a:apply(('{"resources":%s,"up":"0-%d"}'):format(R, n - 1)))
local js = core.jobspec_parse(('{"version":1,"resources":[{"type":"node","count":%d,'
  .. '"exclusive":true,"with":[{"type":"slot","count":1,"label":"task","with":[{"type":'
  .. '"core","count":1}]}]}],"tasks":[{"command":["true"],"slot":"task","count":'
  .. '{"per_slot":1}}],"attributes":{"system":{"duration":60}}}'):format(n // 2))
local j = assert(m:match(js, "allocate"))
local t0, bytes = os.clock(), 0
for _ = 1, runs do bytes = #m:rv1(j.id):encode() end
print(("%d nodes of %s, a job of %d whole nodes: R written in %.3f ms, %d bytes"):format(n,
  xml:match("[^/]+$"), n // 2, (os.clock() - t0) / runs * 1000, bytes))
