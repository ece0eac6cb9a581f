-- conformance.lua: run the resource-query corpus (fluxion/tests.tsv and
-- the jobspec-only groups) through `grove query` and judge each case.  Run
-- by scripts/conformance under BUILD/grove:
--
--   grove conformance.lua --build DIR [--only GROUP|ID,...] [--jobs N]
--                         [--update-open] [--verbose] [--keep]
--
-- For every row of tests.tsv that has an expected output: copy its command
-- file with @TEST_SRCDIR@/data/resource/ replaced by the corpus path, run
-- `grove query` with the row's options (results to a -t file, stdout and
-- stderr kept apart), take the stream the row captures, then, under every
-- policy alike,
--   1. compare every match result with the rows of outcomes.tsv for the
--      case (kind, start time, units per type, exclusive units per type),
--      reading our own simple output the same way the corpus was derived
--      (vertex names mapped to types through the graph);
--   2. compare the whole output with the expected file; only cancel
--      statistics (COUNT="n") and JGF vertex ids (named by their paths)
--      are masked on both sides.
-- A case passes when both agree.  Rows without an expected output are
-- skipped, with the reason.  scripts/conformance-open.txt names the cases
-- that do not pass yet, each with its reason: one of them failing is
-- reported but not counted as a failure, and one of them passing is a
-- failure until it is taken off the list (the list only shrinks).  The
-- run ends with one figure: cases that pass of cases compared.
local gfiles = require("grove.files")
local query = require("grove.query")

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
    elseif a == "--update-open" then opts.update = true
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
local open_list_path = top .. "/scripts/conformance-open.txt"

local function shq(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

local read_file = gfiles.read

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

-- The cases that do not pass yet: id -> reason.
local open_cases = {}
do
  local text = read_file(open_list_path) or ""
  for line in text:gmatch("[^\n]+") do
    local id, reason = line:match("^%s*([^#%s]+)%s*(.*)$")
    if id then open_cases[id] = reason ~= "" and reason or "no reason given" end
  end
end

-- The reason a row cannot be compared, or nil.
local function unsupported(row)
  if row.expected == "-" then
    return "no expected output (upstream checks internal traversal counts)"
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
-- statistics (traversal counts), JGF vertex ids, and the line and reason
-- Grove adds after the reference engine's "ERROR: malformed command".
local function mask(text)
  text = (text or ""):gsub('COUNT="%d+"', 'COUNT="*"')
  text = text:gsub("(ERROR: malformed command): line %d+: [^\n]*", "%1")
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
  local fields = {"kind", "at", "resources", "exclusive"}
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
-- and duration refused, by the same reader `match` uses; but the reference
-- engine's own test of the duration files (t4001) accepts the fractional
-- one, rounding 0.1 s up to 1 s, as RFC 14 allows a floating-point duration.
local ACCEPTED = {["duration/test003.yaml"] = true}
do
  local core = require("grove.core")
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
        if d == "validation/valid" or ACCEPTED[d .. "/" .. f] then
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

local ntap, npass, nfail, nskip, nopen = 0, 0, 0, 0, 0
local groups, gorder = {}, {}
local function tap(line)
  ntap = ntap + 1
  print((line:gsub("^(n?o?t? ?ok)", "%1 " .. ntap)))
end
for _, c in ipairs(cases) do
  local row = c.row
  local g = groups[row.group]
  if not g then
    g = {run = 0, passed = 0, failed = 0, open = 0, skipped = 0, reasons = {}}
    groups[row.group] = g
    gorder[#gorder + 1] = row.group
  end
  local label = row.group == "jobspecs" and row.id
    or ("%s %s (%s, -P %s)"):format(row.id, row.group, row.cmds:match("[^/]+$"), row.policy)
  local open = open_cases[row.id]
  if c.reason then
    g.skipped = g.skipped + 1
    g.reasons[c.reason] = true
    nskip = nskip + 1
    -- A TAP skip, so the runner counts it as skipped (never as passed).
    tap(("ok # skip %s: %s"):format(label, c.reason))
  else
    g.run = g.run + 1
    if c.ok then
      g.passed = g.passed + 1
      if open then
        nfail = nfail + 1
        tap(("not ok - %s: passes but is listed in scripts/conformance-open.txt; " ..
          "take it off"):format(label))
      else
        npass = npass + 1
        tap(("ok - %s"):format(label))
      end
    elseif open then
      g.open = g.open + 1
      nopen = nopen + 1
      print(("# open %s: %s (%s)"):format(label, c.why, open))
    else
      g.failed = g.failed + 1
      nfail = nfail + 1
      tap(("not ok - %s: %s"):format(label, c.why))
    end
    if opts.verbose and not c.ok and c.dir then print("#   in " .. c.dir) end
  end
end
-- Listed cases that are not in the corpus (any more).
if not opts.only then
  local seen = {}
  for _, c in ipairs(cases) do seen[c.row.id] = true end
  for id in pairs(open_cases) do
    if not seen[id] then
      nfail = nfail + 1
      tap(("not ok - %s: listed in scripts/conformance-open.txt but not in the corpus"):format(
        id))
    end
  end
end
print("1.." .. ntap)

print("#")
print(("# %-20s %5s %7s %7s %5s %8s"):format("group", "run", "passed", "failed", "open",
  "skipped"))
local tot = {run = 0, passed = 0, failed = 0, open = 0, skipped = 0}
for _, name in ipairs(gorder) do
  local g = groups[name]
  print(("# %-20s %5d %7d %7d %5d %8d"):format(name, g.run, g.passed, g.failed, g.open,
    g.skipped))
  for k in pairs(tot) do tot[k] = tot[k] + g[k] end
end
print(("# %-20s %5d %7d %7d %5d %8d"):format("total", tot.run, tot.passed, tot.failed,
  tot.open, tot.skipped))
print("#")
for _, name in ipairs(gorder) do
  for reason in pairs(groups[name].reasons) do
    print(("# skipped in %s: %s"):format(name, reason))
  end
end
print(("# conformance: %d of %d cases compared strictly pass (%d open, %d failing); " ..
  "%d skipped without expected output"):format(tot.passed, tot.run, tot.open, tot.failed,
  tot.skipped))

if opts.update then
  local lines = {}
  for _, c in ipairs(cases) do
    if not c.reason and not c.ok then
      lines[#lines + 1] = ("%s\t%s"):format(c.row.id, open_cases[c.row.id] or c.why)
    end
  end
  if opts.only then
    for id, reason in pairs(open_cases) do
      local rerun = false
      for _, c in ipairs(cases) do rerun = rerun or c.row.id == id end
      if not rerun then lines[#lines + 1] = ("%s\t%s"):format(id, reason) end
    end
  end
  table.sort(lines)
  write_file(open_list_path, "# Conformance cases that do not pass yet, each with its " ..
    "reason (scripts/conformance\n# --update-open keeps the reasons written here).  The " ..
    "list only shrinks:\n# a listed case that passes fails the run until it is taken " ..
    "off.\n" .. table.concat(lines, "\n") .. (#lines > 0 and "\n" or ""))
  print(("# wrote %d ids to %s"):format(#lines, open_list_path))
end

if not opts.keep then os.execute("rm -rf " .. shq(tmp)) else print("# kept " .. tmp) end
print(("%d passed, %d failed, %d skipped"):format(npass, nfail, nskip))
os.exit(nfail == 0 and 0 or 1)
