-- conformance.lua: run the resource-query corpus (fluxion/tests.tsv)
-- through `grove query` and judge each case.  Run by scripts/conformance
-- under BUILD/grove:
--
--   grove conformance.lua --build DIR [--only GROUP|ID,...] [--jobs N]
--                         [--update-expected] [--verbose] [--keep]
--
-- For every supported row of tests.tsv: copy its command file with
-- @TEST_SRCDIR@/data/resource/ replaced by the corpus path, run
-- `grove query` with the row's options (results to a -t file, stdout and
-- stderr kept apart), take the stream the row captures, then
--   1. compare every match result with the rows of outcomes.tsv for the
--      case (kind, start time, units per type, exclusive units per type),
--      reading our own simple output the same way the corpus was derived
--      (vertex names mapped to types through the graph);
--   2. compare the whole output with the expected file when the policy is
--      low or high, or when the case has no outcome rows (text-only cases:
--      properties, status, find); cancel statistics (COUNT="n", internal
--      traversal counts) are masked on both sides.
-- Cases whose feature Grove does not provide are reported as not
-- supported, with the reason.  The expected-pass list
-- (scripts/conformance-expected.txt) is the ratchet: each listed case is
-- one TAP line, and a listed case that fails is a regression.
local query = require "grove.query"

local script_dir = arg and arg[0] and arg[0]:match("^(.*)/[^/]*$") or "scripts"
local top = script_dir .. "/.."

local opts = {jobs = 2}
do
  local i = 1
  while arg[i] do
    local a = arg[i]
    if a == "--build" then opts.build = arg[i + 1]; i = i + 1
    elseif a == "--only" then opts.only = arg[i + 1]; i = i + 1
    elseif a == "--jobs" then opts.jobs = tonumber(arg[i + 1]) or 2; i = i + 1
    elseif a == "--update-expected" then opts.update = true
    elseif a == "--verbose" then opts.verbose = true
    elseif a == "--keep" then opts.keep = true
    else
      io.stderr:write("conformance: unknown argument ", a, "\n")
      os.exit(2)
    end
    i = i + 1
  end
end

local build = opts.build or (top .. "/build")
local grove = build .. "/grove"
local corpus = os.getenv("GROVE_CONFORMANCE") or (top .. "/../shared/conformance")
local F = corpus .. "/fluxion"
local expected_list_path = top .. "/scripts/conformance-expected.txt"

local function shq(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

local function read_file(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

local function write_file(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

local function split(s, sep)
  local t = {}
  for field in (s .. sep):gmatch("(.-)" .. sep) do t[#t + 1] = field end
  return t
end

-- ---- the corpus ---------------------------------------------------------------

local cols = {"id", "output", "group", "graph", "load", "W", "subsys", "policy", "traverser",
  "prune", "out", "cmds", "expected", "expected_not_copied", "capture", "script", "desc"}

local function read_tsv(path, names)
  local text = read_file(path)
  if not text then return nil end
  local rows = {}
  for line in text:gmatch("[^\n]+") do
    if line:sub(1, 1) ~= "#" then
      local f = split(line, "\t")
      local row = {}
      for i, n in ipairs(names) do row[n] = f[i] end
      rows[#rows + 1] = row
    end
  end
  return rows
end

local tests = read_tsv(F .. "/tests.tsv", cols)
if not tests then
  -- No corpus is a failure, never a quiet zero: a run that compared
  -- nothing must not look like a run that passed.
  print("not ok - conformance corpus not found at " .. F .. " (set GROVE_CONFORMANCE)")
  print("0 passed, 1 failed")
  os.exit(1)
end
local outcome_rows = read_tsv(F .. "/outcomes.tsv",
  {"test_id", "expected_file", "seq", "jobid", "kind", "at", "resources", "exclusive"})
local outcomes = {}
for _, r in ipairs(outcome_rows) do
  outcomes[r.test_id] = outcomes[r.test_id] or {}
  table.insert(outcomes[r.test_id], r)
end

local expected_pass, expected_order = {}, {}
do
  local text = read_file(expected_list_path) or ""
  for line in text:gmatch("[^\n]+") do
    local id = line:match("^%s*([^#%s]+)")
    if id then
      expected_pass[id] = true
      expected_order[#expected_order + 1] = id
    end
  end
end

-- ---- what Grove does not do --------------------------------------------------

-- The reason a row cannot be run, or nil.
local function unsupported(row)
  if row.expected == "-" then
    return "no expected output (upstream checks internal traversal counts)"
  end
  if row.group == "sibling" then
    return "the expected outputs record a limitation of the reference engine (sibling " ..
      "same-type requests under a slot are refused there; Grove matches them)"
  end
  if row.traverser == "flexible" then
    return "-T flexible: sibling slots are alternatives (or-slots, xor-slots), an " ..
      "extension of that traverser"
  end
  return nil
end

-- ---- reading outputs --------------------------------------------------------------

-- basename -> type for the graph of a row (cached per graph and loader).
local typemaps = {}
local function typemap(row)
  local key = row.graph .. "|" .. row.load .. "|" .. row.W
  if typemaps[key] then return typemaps[key] end
  local map = {}
  -- The corpus maps names to types through the graph file; an hwloc XML
  -- file gives no such map, so its names stay as they are.
  if row.load == "hwloc" then
    typemaps[key] = map
    return map
  end
  local g = query.load_graph(F .. "/" .. row.graph,
    {format = row.load, types = row.W ~= "-" and row.W or nil})
  if g then
    for v in g:vertices() do map[v:basename()] = v:type() end
    g:close()
  end
  typemaps[key] = map
  return map
end

local function counts_text(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  if #keys == 0 then return "-" end
  table.sort(keys)
  for i, k in ipairs(keys) do keys[i] = k .. "=" .. t[k] end
  return table.concat(keys, ",")
end

-- The outcome rows (kind, at, resources, exclusive) of an output text.
local function parse_outcomes(text, map)
  local rows = {}
  local res, excl = {}, {}
  local block
  for line in (text or ""):gmatch("[^\n]*") do
    local name, units, mark = line:match("^%s*%-+([^%[%s]+)%[(%d+):(%a+)%]%s*$")
    if name then
      local base = name:gsub("%d+$", "")
      local t = map[base] or base
      res[t] = (res[t] or 0) + tonumber(units)
      if mark == "x" or mark == "exclusive" then excl[t] = (excl[t] or 0) + tonumber(units) end
    elseif line == "INFO: =============================" then
      if block then
        if block.kind then
          rows[#rows + 1] = {kind = block.kind, at = block.at or "-",
            resources = block.counted and counts_text(res) or "-",
            exclusive = block.counted and counts_text(excl) or "-"}
        end
        block = nil
        res, excl = {}, {}
      else
        block = {}
      end
    elseif block then
      local state = line:match("^INFO: RESOURCES=(%u+)")
      local at = line:match("^INFO: SCHEDULED AT=(%S+)")
      if state then
        block.kind, block.counted = state, true
      elseif at then
        block.at = at == "Now" and "0" or at
      elseif line == "INFO: No matching resources found" then
        block.kind = "NOMATCH"
      elseif line == "INFO: Unsatisfiable request" then
        block.kind = block.kind == "NOMATCH" and "NOMATCH_UNSAT" or "UNSATISFIABLE"
      elseif line == "INFO: Satisfiable request" then
        block.kind = "SATISFIABLE"
      end
    elseif line:find("ERROR:", 1, true) then
      rows[#rows + 1] = {kind = "ERROR", at = "-", resources = "-", exclusive = "-"}
    end
  end
  return rows
end

-- ---- running ------------------------------------------------------------------------

local selected -- function(row): the row is asked for (--only)

local tmp = os.tmpname()
os.remove(tmp)
tmp = tmp .. "-grove-conformance"
assert(os.execute("mkdir -p " .. shq(tmp)))

function selected(row)
  if not opts.only then return true end
  for w in opts.only:gmatch("[^,]+") do
    if w == row.id or w == row.group then return true end
  end
  return false
end

local cases = {}
for _, row in ipairs(tests) do
  if row.id and row.id ~= "" and selected(row) then
    local c = {row = row, reason = unsupported(row)}
    cases[#cases + 1] = c
  end
end

-- Write each case's command file and script, run them (opts.jobs at a time).
local scripts = {}
for i, c in ipairs(cases) do
  if not c.reason then
    local row = c.row
    local dir = ("%s/%03d"):format(tmp, i)
    c.dir = dir
    assert(os.execute("mkdir -p " .. shq(dir)))
    local cmds = read_file(F .. "/" .. row.cmds) or ""
    cmds = cmds:gsub("@TEST_SRCDIR@/data/resource/", (F:gsub("%%", "%%%%")) .. "/")
    write_file(dir .. "/cmds", cmds)
    local argv = {shq(grove), "query", "-L", shq(F .. "/" .. row.graph), "-f", row.load,
      "-S", row.subsys, "-P", row.policy, "-F", row.out, "-t", "out.t", "-d"}
    if row.W ~= "-" then argv[#argv + 1] = "-W " .. shq(row.W) end
    if row.traverser ~= "-" then argv[#argv + 1] = "-T " .. shq(row.traverser) end
    if row.prune ~= "-" then argv[#argv + 1] = "--prune-filters=" .. shq(row.prune) end
    local sh = ("cd %s && timeout 600 %s < cmds > out.o 2> out.e; echo $? > rc\n"):format(
      shq(dir), table.concat(argv, " "))
    write_file(dir .. "/run.sh", sh)
    scripts[#scripts + 1] = dir .. "/run.sh"
  end
end
if #scripts > 0 then
  write_file(tmp .. "/all", table.concat(scripts, "\n") .. "\n")
  os.execute(("xargs -P %d -n 1 sh < %s"):format(opts.jobs, shq(tmp .. "/all")))
end

-- ---- judging -------------------------------------------------------------------------

-- JGF lines name nodes by the engine's vertex ids: name them by their
-- containment paths instead.
local function jgf_by_path(line)
  local path = {}
  for id, p in line:gmatch('{"id": "(%d+)", "metadata": {.-"containment": "([^"]*)"') do
    path[id] = p
  end
  return (line:gsub('"(%a+)": "(%d+)"', function(k, id)
    if (k == "id" or k == "source" or k == "target") and path[id] then
      return ('"%s": "%s"'):format(k, path[id])
    end
  end))
end

-- Engine-internal details masked before texts are compared: cancel
-- statistics (traversal counts) and JGF vertex ids.
local function mask(text)
  text = (text or ""):gsub('COUNT="%d+"', 'COUNT="*"')
  return (text:gsub('({"graph": [^\n]*)', jgf_by_path))
end

-- The first differing line of two texts, for messages.
local function first_diff(a, b)
  local la, lb = split(a, "\n"), split(b, "\n")
  for i = 1, math.max(#la, #lb) do
    if la[i] ~= lb[i] then
      return ("line %d: got %q, expected %q"):format(i, la[i] or "<end>", lb[i] or "<end>")
    end
  end
  return "texts differ"
end

-- The captured stream(s) of a case: list of {got, expected_path}.
local function captures(c)
  local row, dir = c.row, c.dir
  local t = read_file(dir .. "/out.t") or ""
  local e = read_file(dir .. "/out.e") or ""
  local exp = split(row.expected, " ")
  local cap = row.capture
  if cap == "stderr" then return {{e, exp[1]}}, e end
  if cap:find("same file", 1, true) then return {{t .. e, exp[1]}}, t .. e end
  if cap:find("stderr compared separately", 1, true) then
    return {{t, exp[1]}, {e, exp[2]}}, t
  end
  return {{t, exp[1]}}, t
end

local function linux_device_ids(text)
  local ids = {}
  for line in text:gmatch("[^\n]+") do
    if line:sub(1, 1) == "{" then
      for node in line:gmatch('"type": "storage".-"paths"') do
        local id = node:match('"LinuxDeviceID": "([^"]*)"')
        if id then ids[#ids + 1] = id end
      end
    end
  end
  return table.concat(ids, "\n") .. (#ids > 0 and "\n" or "")
end

-- 1. Outcomes: nil when the case has none, else true, or false and why.
local function check_outcomes(c, main)
  local row = c.row
  local want = outcomes[row.id]
  if not want then return nil end
  local got = parse_outcomes(main, typemap(row))
  if #got ~= #want then
    return false, ("%d results, expected %d"):format(#got, #want)
  end
  -- Placement (hence counts) is only policy-independent for low and high.
  local fields = {"kind", "at", "resources", "exclusive"}
  if row.policy ~= "low" and row.policy ~= "high" then fields = {"kind", "at"} end
  for i, w in ipairs(want) do
    local g = got[i]
    for _, f in ipairs(fields) do
      if g[f] ~= w[f] then
        return false, ("result %d (job %s): %s %s, expected %s"):format(i, w.jobid, f,
          g[f], w[f])
      end
    end
  end
  return true
end

-- 2. The whole text: nil when not compared, else true, or false and why.
local function check_text(c, caps)
  local row = c.row
  if row.capture:match("^derived") then
    local got = linux_device_ids(read_file(c.dir .. "/out.t") or "")
    local exp = read_file(F .. "/" .. split(row.expected, " ")[1]) or ""
    if got ~= exp then return false, "LinuxDeviceID list: " .. first_diff(got, exp) end
    return true
  end
  if row.policy ~= "low" and row.policy ~= "high" and outcomes[row.id] then return nil end
  for _, cap in ipairs(caps) do
    local exp = read_file(F .. "/" .. cap[2])
    if not exp then return false, "missing expected file " .. cap[2] end
    if mask(cap[1]) ~= mask(exp) then
      return false, ("%s: %s"):format(cap[2], first_diff(mask(cap[1]), mask(exp)))
    end
  end
  return true
end

local function judge(c)
  local rc = tonumber((read_file(c.dir .. "/rc") or ""):match("%d+"))
  if rc ~= 0 then
    local e = (read_file(c.dir .. "/out.e") or ""):match("[^\n]*")
    return false, ("grove query exited with status %s: %s"):format(tostring(rc), e)
  end
  local caps, main = captures(c)
  local o, owhy = check_outcomes(c, main)
  local t, twhy = check_text(c, caps)
  c.outcome, c.text = o, t
  if o == false then return false, owhy end
  if t == false then return false, twhy end
  if o == nil and t == nil then return false, "nothing to compare" end
  return true
end

for _, c in ipairs(cases) do
  if not c.reason then c.ok, c.why = judge(c) end
end

-- The jobspec-only groups: validation/valid must be read, validation/invalid
-- and duration refused, by the same reader `match` uses.
do
  local core = require "grove.core"
  for _, d in ipairs({"validation/valid", "validation/invalid", "duration"}) do
    local p = io.popen("ls " .. shq(F .. "/jobspecs/" .. d) .. " 2>/dev/null")
    local files = {}
    for f in p:lines() do files[#files + 1] = f end
    p:close()
    for _, f in ipairs(files) do
      local row = {id = "jobspec:" .. d .. "/" .. f, group = "jobspecs", policy = "-",
        cmds = d .. "/" .. f}
      if selected(row) then
        local c = {row = row}
        local js, msg = core.jobspec_load(F .. "/jobspecs/" .. d .. "/" .. f)
        if d == "validation/valid" then
          c.ok, c.why = js ~= nil, msg
        else
          c.ok, c.why = js == nil, "accepted, expected to be refused"
        end
        cases[#cases + 1] = c
      end
    end
  end
end

-- ---- report ---------------------------------------------------------------------------

local ntap, npass, nfail, nskip = 0, 0, 0, 0
local groups, gorder = {}, {}
local new_passes = 0
for _, c in ipairs(cases) do
  local row = c.row
  local g = groups[row.group]
  if not g then
    g = {run = 0, passed = 0, failed = 0, unsupported = 0, reasons = {}}
    groups[row.group] = g
    gorder[#gorder + 1] = row.group
  end
  local label = row.group == "jobspecs" and row.id
    or ("%s %s (%s, -P %s)"):format(row.id, row.group, row.cmds:match("[^/]+$"), row.policy)
  if c.reason then
    g.unsupported = g.unsupported + 1
    g.reasons[c.reason] = true
    -- A TAP skip, so the runner counts it as skipped (never as passed).
    ntap = ntap + 1
    nskip = nskip + 1
    print(("ok %d # skip %s: not supported: %s"):format(ntap, label, c.reason))
  else
    g.run = g.run + 1
    if c.ok then g.passed = g.passed + 1 else g.failed = g.failed + 1 end
    if expected_pass[row.id] then
      ntap = ntap + 1
      if c.ok then
        npass = npass + 1
        print(("ok %d - %s"):format(ntap, label))
      else
        nfail = nfail + 1
        print(("not ok %d - %s: %s"):format(ntap, label, c.why))
      end
    elseif c.ok then
      new_passes = new_passes + 1
      print(("# pass %s (not yet in scripts/conformance-expected.txt)"):format(label))
    else
      print(("# fail %s: %s"):format(label, c.why))
    end
    if opts.verbose and not c.ok and c.dir then print("#   in " .. c.dir) end
  end
end
-- Listed cases that did not run at all (unsupported now, or gone).
local ran = {}
for _, c in ipairs(cases) do if not c.reason then ran[c.row.id] = true end end
if not opts.only then
  for _, id in ipairs(expected_order) do
    if not ran[id] then
      ntap = ntap + 1
      nfail = nfail + 1
      print(("not ok %d - %s: listed as passing but not run"):format(ntap, id))
    end
  end
end
print("1.." .. ntap)

print("#")
print(("# %-20s %5s %7s %7s %12s"):format("group", "run", "passed", "failed", "unsupported"))
local tot = {run = 0, passed = 0, failed = 0, unsupported = 0}
for _, name in ipairs(gorder) do
  local g = groups[name]
  print(("# %-20s %5d %7d %7d %12d"):format(name, g.run, g.passed, g.failed, g.unsupported))
  for k in pairs(tot) do tot[k] = tot[k] + g[k] end
end
print(("# %-20s %5d %7d %7d %12d"):format("total", tot.run, tot.passed, tot.failed,
  tot.unsupported))
print("#")
print("# not supported:")
for _, name in ipairs(gorder) do
  for reason in pairs(groups[name].reasons) do
    print(("#   %s: %s"):format(name, reason))
  end
end
local with_outcomes, outcomes_ok, with_text, text_ok = 0, 0, 0, 0
for _, c in ipairs(cases) do
  if c.outcome ~= nil then
    with_outcomes = with_outcomes + 1
    if c.outcome then outcomes_ok = outcomes_ok + 1 end
  end
  if c.text ~= nil then
    with_text = with_text + 1
    if c.text then text_ok = text_ok + 1 end
  end
end
print(("# outcomes (kind, start, units per type) agree in %d of %d cases that have them"):format(
  outcomes_ok, with_outcomes))
print(("# whole text agrees in %d of %d cases compared as text"):format(text_ok, with_text))
print(("# %d of %d cases run pass; %d listed cases pass, %d listed cases fail; %d passes " ..
  "not yet listed"):format(tot.passed, tot.run, npass, nfail, new_passes))

if opts.update then
  local ids = {}
  for _, c in ipairs(cases) do if c.ok then ids[#ids + 1] = c.row.id end end
  if opts.only then
    for id in pairs(expected_pass) do
      local rerun = false
      for _, c in ipairs(cases) do rerun = rerun or c.row.id == id end
      if not rerun then ids[#ids + 1] = id end
    end
  end
  table.sort(ids)
  write_file(expected_list_path, "# Conformance cases that pass (scripts/conformance " ..
    "--update-expected).\n# A listed case that fails is a regression.\n" ..
    table.concat(ids, "\n") .. "\n")
  print(("# wrote %d ids to %s"):format(#ids, expected_list_path))
end

if not opts.keep then os.execute("rm -rf " .. shq(tmp)) else print("# kept " .. tmp) end
print(("%d passed, %d failed, %d skipped"):format(npass, nfail, nskip))
os.exit(nfail == 0 and 0 or 1)
