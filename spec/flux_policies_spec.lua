-- Specs for the policy files in force in sched-grove's loop
-- (grove.flux.policies): `flux grove reload` taking a changed file once
-- it loads and passes its self-check, refusing a broken one with the
-- reason while the last working policy keeps scheduling, the module
-- coming up on the built-in defaults when a file is broken at its load,
-- and every change and refusal said in the log.  No Flux is needed.
local core = require("grove.core")
local flux = require("grove.flux")
local h = require("flux_helper")

local by_id, logs = h.by_id, h.logs

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p " .. dir))

local function write(name, text)
  local path = dir .. "/" .. name
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

local LOW = 'return { name = "mine-low", order = { key = "rank", when = "node" } }\n'
local HIGH = 'return { name = "mine-high", order = { key = "rank", descending = true, '
  .. 'when = "node" } }\n'
-- a placement policy whose hook never returns (its check finds it)
local SPIN = 'return { name = "spin", score = function(v) while true do end end }\n'
-- a queue policy whose pass raises on a job's field
local RAISES = 'return { name = "raises", schedule = function(ctx) local j = ctx:next(); '
  .. 'return j.nosuch.field end }\n'

-- A module's loop (grove.flux.module: the configuration read as the module
-- reads it) on two nodes of four cores, acquired; the log lines of its
-- announcement.
local function module_session(conf, args)
  local s, msg = flux.module(conf, args or {})
  assert(s, msg)
  s.defer = false
  local acts = s:handle("resource.acquire", ('{"resources":%s,"up":"0-1"}'):format(
    h.R_text("0-1", "n[0-1]")))
  for _, a in ipairs(s:announce()) do acts[#acts + 1] = a end
  return s, acts
end

local function answer(acts)
  for _, a in ipairs(acts) do
    if a.op == "respond" then return a.payload.text end
    if a.op == "error" then return nil, a.message end
  end
end

-- A one-node job's rank, started now.
local n = 0
local function one_node(s)
  n = n + 1
  local acts = s:handle("sched.alloc", h.alloc(n, ('{"version":1,"resources":[{"type":"node",'
    .. '"count":1,"exclusive":true,"with":[{"type":"slot","count":1,"label":"task","with":'
    .. '[{"type":"core","count":1}]}]}],"tasks":[{"command":["true"],"slot":"task","count":'
    .. '{"per_slot":1}}],"attributes":{"system":{"duration":10}}}')))
  local a = by_id(acts, "alloc", "success")[n]
  local rank = a and h.ranks_of(a)
  s:handle("sched.free", {id = n, final = true})
  return rank
end

describe("flux grove reload", function()
  it("takes a policy file whose content changed, and says so", function()
    local path = write("place.lua", LOW)
    local s = module_session({["sched-grove"] = {["placement-policy"] = path}})
    local files = s:stats().policy_files
    assert.equal(2, #files)
    assert.equal(path, files[2].file)
    local h0 = files[2].hash
    assert.equal("0", one_node(s))
    -- unchanged: nothing to take
    local text = answer(s:grove("reload", {}))
    assert.matches("^no policy file changed %(2 in force: .*place%.lua %(" .. h0 .. "%)", text)
    write("place.lua", HIGH)
    local acts = s:grove("reload", {})
    text = answer(acts)
    local h1 = s:stats().policy_files[2].hash
    assert.are_not.equal(h0, h1)
    assert.equal(("reloaded: placement-policy %s: %s -> %s\n"):format(path, h0, h1), text)
    assert.same({("grove reload: placement-policy %s: content %s -> %s"):format(path, h0, h1)},
      logs(acts, "info"))
    assert.equal("1", one_node(s))
    assert.equal("mine-high", s:stats().policy)
  end)

  it("refuses a broken, empty, deleted or looping file with the reason; the policy in force "
    .. "stays and schedules", function()
    local path = write("place2.lua", LOW)
    local s = module_session({["sched-grove"] = {["placement-policy"] = path}})
    local h0 = s:stats().policy_files[2].hash
    local function refused(text, want)
      if text then write("place2.lua", text) else os.remove(path) end
      local acts = s:grove("reload", {})
      local ok, msg = answer(acts)
      assert.is_nil(ok)
      assert.matches(want, msg)
      -- said in the log, with the file, the old and new content and why
      local line = logs(acts, "err")[1]
      assert.matches("^grove reload: placement%-policy " .. path:gsub("%p", "%%%0")
        .. ": content " .. h0 .. " %-> [%x(]", line)
      assert.matches("refused %(.*%); the configuration in force stays$", line)
      -- the last working policy is in force and keeps scheduling
      assert.equal(h0, s:stats().policy_files[2].hash)
      assert.equal("mine-low", s:stats().policy)
      assert.equal("0", one_node(s))
    end
    refused("this is not lua (", "^reload: .*place2%.lua:1: syntax error")
    refused("", "^reload: .*place2%.lua: a policy must return a table %(got nil%)")
    refused(nil, "^reload: placement%-policy: .*No such file or directory")
    refused(SPIN, "^reload: self%-check on a copy of the live graph: .*budget")
  end)

  it("refuses a queue policy whose pass fails its self-check", function()
    local path = write("queue.lua", 'return { name = "mine", base = "fcfs" }\n')
    local s = module_session({["sched-grove"] = {["queue-policy"] = path}})
    write("queue.lua", RAISES)
    local ok, msg = answer(s:grove("reload", {}))
    assert.is_nil(ok)
    assert.matches("^reload: self%-check on a copy of the live graph: .*nosuch", msg)
    assert.equal("mine", s:stats().queue)
  end)
end)

describe("a module whose policy file is broken at its load", function()
  it("comes up on the built-in defaults and says so loudly, until the file loads", function()
    local path = write("broken.lua", "this is not lua (")
    local s, acts = module_session({["sched-grove"] = {["placement-policy"] = path,
      ["queue-policy"] = "easy"}})
    assert.matches("^the configured policies cannot be used %(.*broken%.lua:1: syntax error",
      logs(acts, "crit")[1])
    local st = s:stats()
    assert.matches("syntax error", st.policy_fallback)
    assert.equal("first", st.policy)
    -- a name it was given stays: only the file falls back
    assert.equal("easy", st.queue)
    assert.matches("^WARNING: the configured policies cannot be used",
      answer(s:grove("stats", {})))
    assert.equal("0", one_node(s))
    -- fixed: flux grove reload takes it
    write("broken.lua", HIGH)
    acts = s:grove("reload", {})
    assert.matches("^reloaded: ", answer(acts))
    assert.matches("^the configured policies are in force again", logs(acts, "notice")[1])
    assert.is_nil(s:stats().policy_fallback)
    assert.equal("mine-high", s:stats().policy)
  end)

  it("comes up on the built-in defaults when its policy fails the self-check at the first "
    .. "acquire", function()
    local path = write("spin.lua", SPIN)
    local s, acts = module_session({["sched-grove"] = {["placement-policy"] = path}})
    assert.matches("^the configured policies cannot be used %(self%-check",
      logs(acts, "crit")[1])
    assert.equal("first", s:stats().policy)
    assert.equal("0", one_node(s))
  end)

  it("still refuses a misspelt policy name (a bad value)", function()
    local s, msg = flux.module({["sched-grove"] = {["queue-policy"] = "esay"}}, {})
    assert.is_nil(s)
    assert.matches("no queue policy 'esay' %(did you mean 'easy'%?%)", msg)
  end)
end)

describe("flux config reload", function()
  it("says each changed key in the log, with the old and new value", function()
    local s = module_session({["sched-grove"] = {["queue-policy"] = "fcfs"}})
    local acts = s:handle("config-reload", {conf = {["sched-grove"] = {["queue-policy"] = "easy",
      ["reserve-depth"] = 2}}})
    assert.same({"config-reload: sched-grove.queue-policy: fcfs -> easy",
      "config-reload: sched-grove.reserve-depth: (unset) -> 2"}, {logs(acts, "info")[1],
      logs(acts, "info")[2]})
  end)

  it("says a refused change in the log: the key, the old and new value and why", function()
    local s = module_session({["sched-grove"] = {["queue-policy"] = "fcfs"}})
    local acts = s:handle("config-reload", {conf = {["sched-grove"] = {["queue-policy"] = "esay"}}})
    assert.equal("error", acts[#acts].op)
    assert.same({"config-reload: sched-grove.queue-policy: fcfs -> esay: refused (no queue "
      .. "policy 'esay' (did you mean 'easy'?) in "
      .. acts[#acts].message:match("in (.*)$") .. "); the configuration in force stays"},
      logs(acts, "err"))
    assert.equal("fcfs", s:stats().queue)
  end)
end)

describe("flux grove commands that change the loop", function()
  it("say each change and each refusal in the log", function()
    local s = h.session()
    local acts = s:grove("set-property", {target = "n[0-1]", key = "rack", value = "a"})
    assert.same({"flux grove set-property: rack: (unset) on n[0-1] -> rack=a"},
      logs(acts, "info"))
    acts = s:grove("set-property", {target = "n1", key = "rack", value = "b"})
    assert.same({"flux grove set-property: rack: rack=a on n1 -> rack=b"}, logs(acts, "info"))
    acts = s:grove("remove-property", {target = "n[0-1]", key = "rack"})
    assert.same({"flux grove remove-property: rack: rack=a on n0; rack=b on n1 -> (unset)"},
      logs(acts, "info"))
    acts = s:grove("set-property", {target = "n7", key = "x"})
    assert.same({"flux grove set-property refused: n7 x: unknown host 'n7' (did you mean "
      .. "'n0'?)"}, logs(acts, "warning"))
    acts = s:grove("reserve", {name = "m", hosts = "n1", start = "now", duration = "1h"})
    assert.matches("^flux grove reserve: m: %(none%) %-> m: n1 %(1 node%) from ",
      logs(acts, "info")[1])
    acts = s:grove("reserve", {name = "m", hosts = "n1", start = "now", duration = "1h"})
    assert.same({"flux grove reserve refused: m: reservation 'm' exists"}, logs(acts, "warning"))
    acts = s:grove("unreserve", {name = "m"})
    assert.matches("^flux grove unreserve: m: m: n1 .* %-> %(none%)$", logs(acts, "info")[1])
  end)
end)

-- (no file of the directory is left behind)
describe("the spec's files", function()
  it("are removed", function()
    assert(os.execute("rm -rf " .. dir))
    assert.is_nil(core.json_decode("null"))
  end)
end)
