-- grove.query_select: what a job of a query session selected, and the
-- blocks the session prints about it (the resource-query output).
--
-- A selection maps vertex ids to entries {v = vertex, amount = units,
-- x = held exclusively, alloc = the job holds units of it (not only shares
-- it)}; writers.write prints it in the session's format.  The printing
-- functions take the session first and write through its puts and error.
--
-- This file holds selections and output only: no commands, no session
-- state (grove.query), no find expressions (grove.query_find).
--
-- This module holds only what a job selected and the blocks printed about
-- it; it must not match, allocate or cancel.
local writers = require "grove.writers"

local M = {}

M.SEP = "INFO: ============================="
local SEP = M.SEP

M.state_names = {allocated = "ALLOCATED", reserved = "RESERVED", matched = "MATCHED"}

-- A job id given as text: a positive integer, or nil.
function M.jobid(s)
  local n = s and tonumber(s)
  if not n or math.type(n) ~= "integer" or n < 1 then return nil end
  return n
end

-- Types the request marks exclusive explicitly: such a pick is printed with
-- everything below it.
local function explicit_exclusive(resources, set)
  set = set or {}
  for _, r in ipairs(resources or {}) do
    if r.exclusive == true then set[r.type] = true end
    explicit_exclusive(r.with, set)
  end
  return set
end

-- For each requested type, the types the request puts above it (a slot
-- stands for its parent): where a vertex reached through two containment
-- parents is printed.
local function request_parents(resources, parent, map)
  map = map or {}
  for _, r in ipairs(resources or {}) do
    if r.type == "slot" then
      request_parents(r.with, parent, map)
    else
      if parent then
        map[r.type] = map[r.type] or {}
        map[r.type][parent] = true
      end
      request_parents(r.with, r.type, map)
    end
  end
  return map
end

-- What a request's resources say about printing its selection: expand
-- (the types printed with everything below them), prefer (the parents of
-- each type, see request_parents).
function M.request(resources)
  return explicit_exclusive(resources), request_parents(resources)
end

local function add_subtree(sel, v, subsystem)
  for c in v:children(subsystem) do
    local vid = c:vid()
    if not sel[vid] then
      sel[vid] = {v = c, amount = c:size(), x = true, alloc = true}
    end
    add_subtree(sel, c, subsystem)
  end
end

-- The selection of a job result (picks) for printing and find: picks, and
-- below every exclusive pick of an explicitly exclusive type, its subtree.
-- An entry is `alloc` when the job holds units of it (exclusive, or an
-- allocation record of its own), as opposed to an ancestor it only shares.
-- A shared ancestor with nothing of the job printed below it is left out:
-- what a release left behind, or the other containment parent of a vertex
-- reached through a second link (see writers.order).  subsystem: the tree
-- it is printed along (default containment).
function M.of_job(job, expand, prefer, subsystem)
  local sel = {}
  for _, p in ipairs(job.picks) do
    local alloc = p.exclusive
    if not alloc then
      for _, r in ipairs(p.vertex:records()) do
        if r.job == job.id and r.kind == "alloc" then alloc = true end
      end
    end
    sel[p.vertex:vid()] = {v = p.vertex, amount = p.amount, x = p.exclusive, alloc = alloc}
  end
  for _, p in ipairs(job.picks) do
    if p.exclusive and expand[p.vertex:type()] then add_subtree(sel, p.vertex, subsystem) end
  end
  local needed = {}
  for _, e in ipairs(writers.order(sel, false, prefer, subsystem)) do
    local vid = e.v:vid()
    if e.alloc or e.x or needed[vid] then
      if e.home then needed[e.home] = true end
    else
      sel[vid] = nil
    end
  end
  return sel
end

-- Counts for `stats`: the vertices the job selected and those of them it
-- held (not only shared).
function M.counts(sel)
  local all, held = 0, 0
  for _, e in pairs(sel) do
    all = all + 1
    if e.alloc then held = held + 1 end
  end
  return all, held
end

-- ---- output blocks -----------------------------------------------------------

-- Lines between two separator lines.
function M.banner(s, lines)
  s:puts(SEP .. "\n" .. table.concat(lines, "\n") .. "\n" .. SEP .. "\n")
end

-- The selection in the session's format (ctx as writers.write takes it).
function M.write(s, sel, ctx)
  ctx = ctx or {}
  ctx.graph = s.graph
  local text, msg = writers.write(s.format, sel, ctx)
  if not text then
    s:error("ERROR: cannot write %s output: %s", s.format, msg)
    return
  end
  s:puts(text)
end

function M.print_match(s, job, sel, prefer, elapsed)
  M.write(s, sel, {start = job.start, ["end"] = job["end"], prefer = prefer,
    subsystem = s.dominant})
  local at = job.start == s.graph:now() and "Now" or tostring(job.start)
  local lines = {"INFO: JOBID=" .. job.id, "INFO: RESOURCES=" .. M.state_names[job.state],
    "INFO: SCHEDULED AT=" .. at}
  if elapsed then lines[#lines + 1] = ("INFO: ELAPSED=%.6f"):format(elapsed) end
  M.banner(s, lines)
end

function M.print_nomatch(s, id, unsat, elapsed)
  local lines = {"INFO: No matching resources found"}
  if unsat then lines[#lines + 1] = "INFO: Unsatisfiable request" end
  lines[#lines + 1] = "INFO: JOBID=" .. id
  if elapsed then lines[#lines + 1] = ("INFO: ELAPSED=%.6f"):format(elapsed) end
  M.banner(s, lines)
end

function M.print_stats(s, prefix, pre, post)
  M.banner(s, {("INFO: %sPREORDER COUNT=\"%d\""):format(prefix, pre),
    ("INFO: %sPOSTORDER COUNT=\"%d\""):format(prefix, post)})
end

return M
