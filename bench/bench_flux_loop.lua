-- bench_flux_loop.lua: the Flux module's scheduling loop without a broker:
-- grove.flux driven with the messages sched-grove.so hands it, alloc
-- request in (its JSON decoded, the jobspec left as text, as the module
-- does) to the response's payload out (R written), so the loop is
-- measured on the terms of `grove query` (issue 29, item 4).
--
--   build/grove bench/bench_flux_loop.lua [-s NODES...] [-j JOBS] [-q POLICY...] [-m]
--       [-x XML] [-o FILE]
--
-- An R of NODES nodes of 44 cores + 4 GPUs (R_lite and nodelist, as `flux
-- R encode` writes it) is acquired by a new loop ("first acquire": CPU
-- seconds of flux.new and the first resource.acquire response, and the
-- graph's vertices); then, for each shape, JOBS jobs arrive one at a time
-- and each is freed (final) when 64 are running, as jobs of the test
-- execution end in a real instance.  Per alloc: the CPU microseconds from
-- the request's text to the success payload's text, p50 and p99 and the
-- mean, and the CPU a job costs in all (its alloc, its free and the
-- passes they run).  Shapes: N1 (one node, `flux submit -N1`) and n1 (one
-- core, `flux submit -n1`); with -m, mix instead: the stream of
-- bench/flux_soak.sh (one core to 512 whole nodes, GPUs, ranks
-- constrained; each jobspec with its own run time, without the
-- environment, as the job manager sends it).  With -x, every node is
-- built in the topology of an hwloc XML of 44 cores and 4 GPUs (sierra.xml
-- of flux-core's t/hwloc-data), as [sched-grove] hwloc-xml does.
-- With -o, every alloc response's payload is written to FILE, a line
-- each, the loop's clock standing still (the responses of two builds
-- compare line for line).  Defaults: -s 1024 16384,
-- -j 5000, -q fcfs easy.
--
-- It measures and reports; it asserts only that every job started.
local core = require("grove.core")
local flux = require("grove.flux")

local clock = os.clock -- CPU time: the machine may be shared
local fmt = string.format

local sizes, jobs, queues, shapes, xml, outfile = {}, 5000, {}, {"N1", "n1"}, nil, nil
local outf -- -o: the responses' file
do
  local i, into = 1, nil
  while arg[i] do
    local a = arg[i]
    if a == "-s" then into = sizes
    elseif a == "-q" then into = queues
    elseif a == "-m" then shapes, into = {"mix"}, nil
    elseif a == "-x" then
      i = i + 1
      xml, into = assert(arg[i], "-x: an hwloc XML"), nil
    elseif a == "-o" then
      i = i + 1
      outfile, into = assert(arg[i], "-o: a file for the responses"), nil
    elseif a == "-j" then
      i = i + 1
      jobs = assert(math.tointeger(tonumber(arg[i])), "-j: a number of jobs")
      into = nil
    elseif into == sizes then sizes[#sizes + 1] = assert(math.tointeger(tonumber(a)), a)
    elseif into == queues then queues[#queues + 1] = a
    else
      error("usage: bench_flux_loop.lua [-s NODES...] [-j JOBS] [-q POLICY...] [-m] [-x XML] "
        .. "[-o FILE]")
    end
    i = i + 1
  end
end
if #sizes == 0 then sizes = {1024, 16384} end
if #queues == 0 then queues = {"fcfs", "easy"} end

local function R_text(n)
  return fmt('{"version":1,"execution":{"R_lite":[{"rank":"0-%d","children":'
    .. '{"core":"0-43","gpu":"0-3"}}],"starttime":0.0,"expiration":0.0,'
    .. '"nodelist":["node[0-%d]"]}}', n - 1, n - 1)
end

-- The jobspecs flux submit writes for -N1 and -n1 (version 1).
local function jobspec_text(shape)
  local task = '"tasks":[{"command":["true"],"slot":"task","count":{"per_slot":1}}],'
    .. '"attributes":{"system":{"duration":0,"cwd":"/tmp",'
    .. '"exec":{"test":{"run_duration":"0.001s"}}}}'
  local slot = '{"type":"slot","count":1,"label":"task","with":[{"type":"core","count":1}]}'
  if shape == "N1" then
    return '{"version":1,"resources":[{"type":"node","count":1,"exclusive":true,"with":['
      .. slot .. ']}],' .. task .. '}'
  end
  return '{"version":1,"resources":[' .. slot .. '],' .. task .. '}'
end

-- The soak's stream (bench/flux/soak.py): (weight, resources, constraints)
-- as flux.job.JobspecV1.from_command writes them, each job with its own
-- run time.
local function slot(with)
  return '{"type":"slot","count":1,"label":"task","with":[' .. with .. ']}'
end
local CORE = '{"type":"core","count":1}'
local function nodes(n, excl, with)
  return fmt('{"type":"node","count":%d%s,"with":[%s]}', n,
    excl and ',"exclusive":true' or '', with)
end
local MIX = {
  {40, slot(CORE)},
  {15, slot('{"type":"core","count":4}')},
  {15, nodes(1, true, slot(CORE))},
  {10, nodes(4, false, slot(CORE))},
  {5, nodes(64, true, slot(CORE))},
  {1, nodes(512, true, slot(CORE))},
  {8, slot(CORE .. ',{"type":"gpu","count":1}')},
  {6, nodes(1, false, slot(CORE)), '"constraints":{"ranks":["0-1023"]},'},
}
local mix_seed = 1
local function mix_text()
  mix_seed = (mix_seed * 1103515245 + 12345) % 2147483648
  local r, pick = mix_seed % 100, MIX[#MIX]
  for _, m in ipairs(MIX) do
    if r < m[1] then pick = m break end
    r = r - m[1]
  end
  return '{"resources":[' .. pick[2] .. '],"tasks":[{"command":["true"],"slot":"task",'
    .. '"count":{"per_slot":1}}],"attributes":{"system":{"duration":600.0,"cwd":"/tmp",'
    .. (pick[3] or '') .. fmt('"exec":{"test":{"run_duration":"%.3fs"}}}},"version":1}',
      0.01 + (mix_seed % 1990) / 1000)
end

local function pct(sorted, p)
  local n = #sorted
  if n == 0 then return 0 end
  local k = math.max(1, math.min(n, math.ceil(n * p)))
  return sorted[k]
end

-- The first acquire of an R of n nodes: a loop and its CPU seconds.
local function acquired(n, queue)
  local R = R_text(n)
  collectgarbage()
  local t0 = clock()
  -- with -o the clock stands still, so that two runs' responses compare
  -- line for line (the real clock's instants differ from run to run)
  local s = assert(flux.new{queue = queue, hwloc = xml and {{path = xml}} or nil,
    clock = outf and function() return 1700000000 end or nil})
  local acts = s:handle("resource.acquire", '{"resources":' .. R .. ',"up":"0-' .. (n - 1) .. '"}')
  local t = clock() - t0
  for _, a in ipairs(acts) do
    assert(a.op ~= "error" and not (a.op == "log" and a.level == "err"), a.message)
  end
  return s, t
end

local function run(n, queue, shape)
  local s, t_acq = acquired(n, queue)
  local js = shape ~= "mix" and jobspec_text(shape)
  mix_seed = 1
  local lat, running, started = {}, {}, 0
  -- the jobs an answer started (an alloc's, or a free's pass), and the
  -- bytes of its payloads
  local function took(acts)
    local out = 0
    for _, a in ipairs(acts) do
      if a.op == "alloc" then
        local text = flux.payload(a)
        out = out + #text
        if outf then outf:write(text, "\n") end
        if a.type == "success" then
          started = started + 1
          running[#running + 1] = {id = a.id, R = a.R}
        end
      end
    end
    return out
  end
  local function free_first()
    local j = table.remove(running, 1)
    took(s:handle("sched.free", core.json_decode(fmt('{"id":%d,"R":%s,"final":true}', j.id,
      j.R))))
  end
  local t_all = clock()
  for id = 1, jobs do
    if shape == "mix" then js = mix_text() end
    local text = fmt('{"id":%d,"priority":16,"userid":1000,"t_submit":%d.5,"jobspec":%s}',
      id, 1700000000 + id, js)
    local t0 = clock()
    local r = core.json_decode(text)
    r.jobspec = js -- the module hands the jobspec over as its text
    local out = took(s:handle("sched.alloc", r))
    lat[#lat + 1] = clock() - t0
    assert(out > 0)
    if #running >= 64 then free_first() end
  end
  -- (a job of the mix may wait for room: the ends then start it)
  while started < jobs and running[1] do free_first() end
  t_all = clock() - t_all
  assert(started == jobs, fmt("%d of %d jobs started", started, jobs))
  table.sort(lat)
  local sum = 0
  for _, v in ipairs(lat) do sum = sum + v end
  print(fmt("| %6d | %-4s | %-5s | %7.3f | %6.0f | %6.0f | %6.0f | %7.0f | %6.0f |", n, queue,
    shape, t_acq, pct(lat, 0.5) * 1e6, pct(lat, 0.99) * 1e6, sum / #lat * 1e6,
    lat[#lat] * 1e6, t_all / jobs * 1e6))
end

-- with -o, every alloc response's payload, a line each, in the order
-- they were made (two builds' files compare their decisions, R and
-- annotations)
outf = outfile and assert(io.open(outfile, "w"))
print(fmt("%d jobs a run; CPU time (os.clock)", jobs))
print("| nodes | queue | shape | first acquire s | alloc p50 us | p99 us | mean us | max us | "
  .. "CPU a job us |")
print("|---:|---|---|---:|---:|---:|---:|---:|---:|")
for _, n in ipairs(sizes) do
  for _, q in ipairs(queues) do
    for _, shape in ipairs(shapes) do
      run(n, q, shape)
      collectgarbage()
    end
  end
end
if outf then outf:close() end
