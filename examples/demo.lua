-- Grove's main job, on a built-in example cluster (run: make demo).
--
-- Act 1, the resource model: build a cluster with the DSL, show what it
-- holds, allocate and free a few pools by name, and copy what is still
-- available, as a child instance would receive it.
--
-- Act 2, scheduling: a stream of jobs matched with a Lua placement policy
-- from policies/, each result written as R and as a tree, jobs that do not
-- fit now reserved in the future, then cancelled, with the machine's state
-- shown as it changes.
local grove = require("grove")
local core = grove.core
local R = grove.cluster.resources
local rack, node, socket, corev, gpu, memory =
  R.rack, R.node, R.socket, R.core, R.gpu, R.memory

local fmt = string.format
local function say(...) io.write(fmt(...), "\n") end
local function title(s) say("\n== %s %s", s, string.rep("=", 66 - #s)) end

local function sorted_keys(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  table.sort(ks)
  return ks
end

local function show_counts(label, t)
  local parts = {}
  for _, k in ipairs(sorted_keys(t)) do parts[#parts + 1] = fmt("%s=%s", k, t[k]) end
  say("  %-26s %s", label, table.concat(parts, " "))
end

-- The example: two racks of four nodes; a node has two sockets of 8 cores
-- and a GPU, and a 64 GB memory pool.
local function build()
  return grove.cluster "demo" {
    rack(2) {
      node(4, { hostnames = "n[0-7]", ranks = "0-7", id_scope = "root",
                properties = function(i)
                  return { arch = "x86_64", speed = tostring(1 + i % 2) }
                end }) {
        socket(2) {
          corev(8, { id_scope = "node" }),
          gpu(1, { id_scope = "node" }),
        },
        memory(1, { size = 64, unit = "GB" }),
      },
    },
  }
end

-------------------------------------------------------------------------------
title("Act 1: the resource model")
local g = build()
say("built %d vertices, %d edges; subsystems: %s", g:count(), g:edge_count(),
    table.concat(g:subsystems(), ", "))
show_counts("available:", g:aggregate())

local core0 = g:vertex("/demo0/rack0/n0/socket0/core0")
local mem1 = g:vertex("/demo0/rack0/n1/memory0")
local n2 = g:vertex("/demo0/rack0/n2")
assert(core0:allocate(1, 101))
assert(mem1:allocate(48, 102))
assert(n2:allocate(1, 103, { exclusive = true }))
say("job 101 takes %s; job 102 takes 48 of %s's 64 GB; job 103 takes %s whole",
    core0:path(), mem1:path(), n2:path())
show_counts("available now:", g:aggregate())
say("  %s is annotated with jobs %s", g:vertex("/demo0/rack0"):path(),
    (function()
      local ids = {}
      for _, r in ipairs(g:vertex("/demo0/rack0"):records()) do ids[#ids + 1] = r.job end
      table.sort(ids)
      return table.concat(ids, ",")
    end)())
local ok, msg, code = g:vertex("/demo0/rack0/n2/socket1/core9"):allocate(1, 104)
say("job 104 asks for a core of %s: %s (%s)", n2:path(), tostring(ok or msg), code or "ok")
assert(core0:free(101))
say("job 101 freed")
show_counts("available now:", g:aggregate())

local child = g:copy(g:vertex("/demo0/rack0"))
say("copy of rack0's available part for a child instance: %d vertices", child:count())
show_counts("child holds:", child:aggregate())
say("  its memory pool on n1 has size %d (64 - 48)", child:vertex("/demo0/rack0/n1/memory0"):size())
local jgf = child:to_jgf({ compact = true })
local nodes, edges = 0, 0
for _ in jgf:gmatch('"metadata":{"type"') do nodes = nodes + 1 end
for _ in jgf:gmatch('"source"') do edges = edges + 1 end
say("  as JGF: %d bytes, %d nodes, %d edges; begins %s...", #jgf, nodes, edges, jgf:sub(1, 60))

-------------------------------------------------------------------------------
title("Act 2: scheduling with a Lua policy")
g = build()
local m = core.matcher(g)
local policy = assert(grove.policy.load("high"))
assert(m:set_policy(policy))
say("policy: %s (%s)", policy:name(), policy:source())

-- one line per node: cores in use now, '#' per busy core
local function machine()
  local lines = {}
  for v in g:vertices { type = "node" } do
    local free = v:aggregate_avail("core", g:now(), 1)
    local busy = 16 - free
    lines[#lines + 1] = fmt("  %-4s [%s%s] %2d/16 cores busy", v:name(),
      string.rep("#", busy), string.rep(".", free), busy)
  end
  say("%s", table.concat(lines, "\n"))
end

-- the picks of a job as a tree in graph order; the cores of a socket are
-- shown as one idset
local function tree(job)
  local picked = {}
  for _, p in ipairs(job.picks) do picked[p.vertex:vid()] = p end
  local out = {}
  local function visit(v, depth)
    local p = picked[v:vid()]
    local ids = {}
    local kids = {}
    for c in v:children() do
      if picked[c:vid()] then
        if c:type() == "core" then ids[#ids + 1] = c:id() else kids[#kids + 1] = c end
      end
    end
    local cores = #ids > 0 and (" cores " .. tostring(core.idset(ids))) or ""
    out[#out + 1] = fmt("    %s%s[%d%s]%s", string.rep("  ", depth), v:name(), p.amount,
      p.exclusive and ":x" or ":s", cores)
    for _, c in ipairs(kids) do visit(c, depth + 1) end
  end
  visit(g:root(), 0)
  return table.concat(out, "\n")
end

local function rv1(job)
  local vs = {}
  for _, p in ipairs(job.picks) do vs[#vs + 1] = p.vertex end
  local r = core.rv1_from_vertices(g, vs, { start = job.start, ["end"] = job["end"] })
  return r:encode()
end

local J = grove.jobspec
local stream = {
  { "2 nodes x 2 tasks x 4 cores, 1h",
    J { nodes = 2, tasks = 4, cores_per_task = 4, duration = "1h" } },
  { "1 node exclusive, 2h",
    J { nodes = 1, tasks = 1, cores_per_task = 16, exclusive = true, duration = "2h" } },
  { "4 nodes x 16 cores, 30m",
    J { nodes = 4, tasks = 4, cores_per_task = 16, duration = "30m" } },
  { "3 nodes x 8 cores + 1 gpu, 1h",
    J { nodes = 3, tasks = 3, cores_per_task = 8, gpus_per_task = 1, duration = "1h" } },
  { "8 nodes whole, 1h",
    J { nodes = 8, tasks = 8, cores_per_task = 16, exclusive = true, duration = "1h" } },
}
local jobs = {}
for _, item in ipairs(stream) do
  local what, js = item[1], item[2]
  local job, err, errcode = m:match(js, "allocate_orelse_reserve")
  if not job then
    say("\njob: %s -> %s (%s)", what, err, errcode)
  else
    jobs[#jobs + 1] = job
    say("\njob %d: %s -> %s at t=%d until t=%d", job.id, what, job.state, job.start, job["end"])
    say("%s", tree(job))
    say("  R: %s", rv1(job))
    if job.state == "allocated" then machine() end
  end
end

say("\nnow (t=0):")
machine()
say("\ncancel the reservations, then the first job:")
for _, job in ipairs(jobs) do
  if job.state == "reserved" then
    assert(m:cancel(job.id))
    say("  cancelled job %d (reserved for t=%d)", job.id, job.start)
  end
end
assert(m:cancel(jobs[1].id))
say("  cancelled job %d", jobs[1].id)
machine()
local st = m:stats()
say("\n%d matches, %d succeeded; match time min %.1f us, mean %.1f us, max %.1f us",
    st.matches, st.succeeded, st.min * 1e6, st.mean * 1e6, st.max * 1e6)
