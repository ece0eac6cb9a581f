-- grove.query_select: what a job of a query session selected, and the
-- blocks the session prints about it (the resource-query output).
--
-- A job's selection is built and written in C by the session's writer
-- (grove.core.writer): its picks, below every exclusive pick of an
-- explicitly exclusive type its subtree, less shared containers with
-- nothing of the job printed below them.  This module gives the writer the
-- shape of a request (request), reads a selection's entries ({vid, type,
-- amount, x, alloc}: alloc when the job holds units of it, not only shares
-- it) for the commands that count them, and prints the blocks.  The
-- printing functions take the session first and write through its puts
-- and error.
--
-- This module holds only what a job selected and the blocks printed about
-- it; it must not match, allocate or cancel, nor keep session state
-- (grove.query) or find expressions (grove.query_find).
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

-- What a request's resources say about printing its selection (the shape
-- a writer takes): expand (the types printed with everything below them),
-- prefer (the parents of each type, see request_parents).
function M.request(resources)
  return {expand = explicit_exclusive(resources), prefer = request_parents(resources)}
end

-- A key naming a shape: jobs whose requests print alike share one shape.
function M.shape_key(shape)
  local ex, pr = {}, {}
  for t in pairs(shape.expand) do ex[#ex + 1] = t end
  for t, ps in pairs(shape.prefer) do
    local l = {}
    for p in pairs(ps) do l[#l + 1] = p end
    table.sort(l)
    pr[#pr + 1] = t .. "<" .. table.concat(l, ",")
  end
  table.sort(ex)
  table.sort(pr)
  return table.concat(ex, ",") .. ";" .. table.concat(pr, ";")
end

-- Counts for `stats`: the vertices the job selected and those of them it
-- held (not only shared), from its entries.
function M.counts(entries)
  local held = 0
  for _, e in ipairs(entries) do
    if e.alloc then held = held + 1 end
  end
  return #entries, held
end

-- ---- output blocks -----------------------------------------------------------

-- Lines between two separator lines.
function M.banner(s, lines)
  s:puts(SEP .. "\n" .. table.concat(lines, "\n") .. "\n" .. SEP .. "\n")
end

-- The session's output when it is an open file: the writer writes a
-- selection there as it makes the text (a whole machine's tens of
-- megabytes never become one Lua string); nil for any other output.
function M.out_file(s)
  return io.type(s.out) == "file" and s.out or nil
end

-- Write text (true: the writer wrote it to the output already), or say
-- why there is none (msg).
function M.put_text(s, text, msg)
  if not text then
    s:error("ERROR: cannot write %s output: %s", s.format, msg)
    return
  end
  if text ~= true then s:puts(text) end
end

-- The job's selection (id nil: the matcher's last result) in the session's
-- format, then its block.  t0: when the command began (wall clock), for
-- ELAPSED.
function M.print_match(s, job, kept, shape, t0)
  M.put_text(s, s.writer:job(s.matcher, kept and job.id or nil, s.format, shape,
    M.out_file(s)))
  local at = job.start == s.graph:now() and "Now" or tostring(job.start)
  local lines = {"INFO: JOBID=" .. job.id, "INFO: RESOURCES=" .. M.state_names[job.state],
    "INFO: SCHEDULED AT=" .. at}
  if t0 then lines[#lines + 1] = ("INFO: ELAPSED=%.6f"):format(s.clock() - t0) end
  M.banner(s, lines)
end

-- reason: why the request can never run when the matcher said more than
-- that (the resource set's expiration), printed after the verdict.
function M.print_nomatch(s, id, unsat, t0, reason)
  local lines = {"INFO: No matching resources found"}
  if unsat then lines[#lines + 1] = "INFO: Unsatisfiable request" end
  if reason then lines[#lines + 1] = "INFO: " .. reason end
  lines[#lines + 1] = "INFO: JOBID=" .. id
  if t0 then lines[#lines + 1] = ("INFO: ELAPSED=%.6f"):format(s.clock() - t0) end
  M.banner(s, lines)
end

function M.print_stats(s, prefix, pre, post)
  M.banner(s, {("INFO: %sPREORDER COUNT=\"%d\""):format(prefix, pre),
    ("INFO: %sPOSTORDER COUNT=\"%d\""):format(prefix, post)})
end

return M
