-- grove.flux.accounting: flux-accounting's association limits, read for
-- [sched-grove.limits] (its flux-accounting key).
--
-- flux-accounting keeps, for each association (a user in a bank), a
-- max_running_jobs, max_nodes and max_cores in the association_table of
-- its SQLite database (the path `flux account` uses, DB_PATH of its
-- Python package: /var/lib/flux/FluxAccounting.db by default).  Its own
-- plugin can only hold a job before the scheduler sees it, by a count of
-- jobs: the nodes and cores a job gets are known only at its match, so
-- the scheduler holds them.  The active associations are read here, once
-- a configuration (a load, a `flux config reload`), by a short Python
-- program (Debian's python3 and its sqlite3 module, run as `flux python`
-- where flux-accounting's package is found), read-only.  2147483647,
-- flux-accounting's "no limit", reads as none.
--
-- read(where): where is "auto" (the database `flux account` uses, when
-- flux-accounting and it are installed; otherwise nothing, and why), or a
-- path (which must be a flux-accounting database).  Returns {assocs =
-- {[uid] = {[bank] = {jobs =, node =, core =}}}, defaults = {[uid] =
-- bank}, path =, count =}, or nil and why it was skipped (auto) or
-- refused (a path), and whether that is an error.
local core = require("grove.core")

local M = {}

local fmt = string.format

-- flux-accounting's INTEGER_MAX: no limit
M.NONE = 2147483647

local PROGRAM = [[
import json, os, sys
where = sys.argv[1]
if where == "auto":
    try:
        import fluxacct.accounting
    except ImportError:
        print(json.dumps({"skipped": "flux-accounting is not installed"}))
        sys.exit(0)
    where = fluxacct.accounting.DB_PATH
    if not os.path.exists(where):
        print(json.dumps({"skipped": "no flux-accounting database at " + where}))
        sys.exit(0)
import sqlite3
try:
    if not os.path.exists(where):
        raise OSError("no such file")
    c = sqlite3.connect("file:%s?mode=ro" % where, uri=True)
    rows = c.execute("SELECT userid, bank, default_bank, max_running_jobs, max_nodes, "
                     "max_cores FROM association_table WHERE active = 1").fetchall()
except Exception as e:
    print(json.dumps({"error": "%s: not a flux-accounting database (%s)" % (where, e)}))
    sys.exit(0)
print(json.dumps({"path": where, "rows": rows}))
]]

local function quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

-- The program's answer (a table), run by `flux python` (flux-accounting's
-- package on its path) or else python3.
local function run(where)
  local f = os.tmpname()
  local h = io.open(f, "w")
  if not h then return nil, "cannot write a temporary file" end
  h:write(PROGRAM)
  h:close()
  local out
  for _, py in ipairs{"flux python", "python3"} do
    local p = io.popen(fmt("%s %s %s 2>/dev/null", py, quote(f), quote(where)))
    if p then
      out = p:read("a")
      p:close()
      if out and out:match("^%s*{") then break end
      out = nil
    end
  end
  os.remove(f)
  if not out then return nil, "python3 could not be run to read it" end
  local t = core.json_decode(out)
  if type(t) ~= "table" then return nil, "an answer that is not JSON" end
  return t
end

local AMOUNTS = {"jobs", "node", "core"}

function M.read(where)
  local t, why = run(where)
  if not t then return nil, why, true end
  if t.skipped then return nil, t.skipped, false end
  if t.error then return nil, t.error, true end
  local out = {assocs = {}, defaults = {}, path = t.path, count = 0}
  for _, row in ipairs(t.rows or {}) do
    local uid, bank, default = math.tointeger(row[1]), row[2], row[3]
    if uid and type(bank) == "string" then
      local set = {}
      for i, a in ipairs(AMOUNTS) do
        local v = math.tointeger(row[3 + i])
        if v and v >= 0 and v < M.NONE then set[a] = v end
      end
      out.assocs[uid] = out.assocs[uid] or {}
      out.assocs[uid][bank] = set
      if type(default) == "string" and default ~= "" then out.defaults[uid] = default end
      out.count = out.count + 1
    end
  end
  return out
end

return M
