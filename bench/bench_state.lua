-- bench_state.lua: state files and GRUG recipes at scale, through the Lua
-- module: state_write and state_read of corpus recipes (CPU seconds and
-- file size), and how fast a recipe whose multipliers reach billions of
-- vertices is refused (CPU seconds and the process's peak resident size).
--
--   build/grove bench/bench_state.lua [RECIPE.graphml...]
--
-- Default recipes: the corpus's sierra and disaggr (350,000 vertices each).
--
-- It must not assert like a spec: it measures and reports.
local core = require("grove.core")

local clock = os.clock -- CPU time: the machine may be shared
local corpus = (os.getenv "GROVE_CONFORMANCE" or "../shared/conformance") .. "/fluxion/grugs/"

local recipes = {}
for _, a in ipairs(arg) do recipes[#recipes + 1] = a end
if #recipes == 0 then
  recipes = {corpus .. "sierra.graphml", corpus .. "disaggr.graphml"}
end

local function peak_kb()
  for line in io.lines "/proc/self/status" do
    local kb = line:match "^VmHWM:%s*(%d+)"
    if kb then return tonumber(kb) end
  end
end

-- first, while the process is small: 4,000 racks of 5,000 nodes of
-- 4,000,000,000 cores
local big = table.concat({
  '<graphml><key id="root" for="node" attr.name="root"/>',
  '<key id="type" for="node" attr.name="type"/>',
  '<key id="multi_scale" for="edge" attr.name="multi_scale"/><graph id="g">',
  '<node id="c"><data key="root">1</data><data key="type">cluster</data></node>',
  '<node id="r"><data key="type">rack</data></node>',
  '<node id="n"><data key="type">node</data></node>',
  '<node id="k"><data key="type">core</data></node>',
  '<edge source="c" target="r"><data key="multi_scale">4000</data></edge>',
  '<edge source="r" target="n"><data key="multi_scale">5000</data></edge>',
  '<edge source="n" target="k"><data key="multi_scale">4000000000</data></edge>',
  '</graph></graphml>'}, "\n")
local before = peak_kb()
local c = clock()
local g, msg = core.grug_read(big, {source = "big.graphml"})
print(("billions-of-vertices recipe: %s in %.3f s, peak RSS %d -> %d KB (%s)"):format(
  g and "BUILT" or "refused", clock() - c, before, peak_kb(), msg))

print("recipe                 vertices   file MB   write s    read s")
for _, r in ipairs(recipes) do
  local graph = assert(core.grug_load(r))
  local path = os.tmpname()
  local t0 = clock()
  assert(core.state_write(path, graph))
  local w = clock() - t0
  t0 = clock()
  assert(core.state_read(path))
  local rd = clock() - t0
  local f = assert(io.open(path))
  local size = f:seek "end"
  f:close()
  os.remove(path)
  print(("%-20s %10d %9.1f %9.2f %9.2f"):format(r:match "[^/]+$", #graph, size / 1e6, w, rd))
end
