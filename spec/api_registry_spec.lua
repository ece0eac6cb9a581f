-- Specs for bindings/api.tsv, the data the registration of grove.core is
-- generated from (scripts/gen-api.lua): every row's method is there at run
-- time on the objects of its class (policy views inside a policy's hook),
-- every method of a class is a row, and the API reference (docs/api-src)
-- has an entry for every method.  A failure names the row (api.tsv:LINE).
--
-- This file holds only specs: what several specs share lives in expect.lua
-- and the spec/*_helper.lua modules, and must not be copied here.
local core = require("grove.core")
local apidoc = require("grove.apidoc")
local match = require("match_helper")

local TSV = "bindings/api.tsv"

-- One entry a row and class of it: {where = "api.tsv:N", file =, class =,
-- method =, first = whether the class comes first in its row}; and by
-- class, the names of its rows ("=" of a value dropped) and whether it is
-- opened (has a "*" row).
local rows, names_of, opened = {}, {}, {}
do
  local n = 0
  for line in io.lines(TSV) do
    n = n + 1
    if not line:match("^#") and line:match("%S") then
      local file, cell, method = line:match("^([^\t]+)\t([^\t]+)\t([^\t]+)\t")
      assert(file, TSV .. ":" .. n .. ": not a row")
      local first = true
      for class in cell:gmatch("[^,]+") do
        rows[#rows + 1] = {where = "api.tsv:" .. n, file = file, class = class, method = method,
          first = first}
        first = false
        names_of[class] = names_of[class] or {}
        names_of[class][method:gsub("^=", "")] = true
        if method == "*" then opened[#opened + 1] = class end
      end
    end
  end
end

-- Views exist only in a policy's sandbox: checked from inside a hook.
local SANDBOXED = "grove.policy.vertex"
-- What grovel_class_open gives every class, not rows of api.tsv.
local GENERIC = {close = true, copy = true, equal = true}
-- The fields of grove.core set outside api.tsv: the line editor's table
-- (l_edit.c) and the constants luaopen_grove_core sets (module.c).
local OWN_FIELDS = {edit = true, version = true, nest_max = true}

-- The methods table of a class's metatable (hostlists answer h[i] through
-- a function whose first upvalue is that table).
local function methods_of(mt)
  local idx = rawget(mt, "__index")
  if type(idx) == "function" then
    local _, t = debug.getupvalue(idx, 1)
    return t
  end
  return idx
end

describe("bindings/api.tsv", function()
  it("has rows for the module and its classes", function()
    local files = {}
    for _, r in ipairs(rows) do files[r.file] = true end
    for _, f in ipairs {"graph", "vertex", "idset", "match", "policy", "view"} do
      assert.truthy(files[f], "no row of l_" .. f .. ".c")
    end
  end)

  it("names methods the objects of their class have", function()
    local reg = debug.getregistry()
    for _, r in ipairs(rows) do
      local what = ("%s: %s %s"):format(r.where, r.class, r.method)
      if r.method == "*" then
        assert.is_table(reg[r.class], what .. ": no metatable")
      elseif r.class == "grove.core" then
        local value = r.method:match("^=(.+)$")
        if value then
          assert.is_not_nil(core[value], what)
        else
          assert.is_function(core[r.method], what)
        end
      elseif r.class ~= SANDBOXED then
        local mt = reg[r.class]
        assert.is_table(mt, what .. ": no metatable")
        local t = r.method:match("^__") and mt or methods_of(mt)
        assert.is_function(rawget(t, r.method), what)
      end
    end
  end)

  it("has a row for every field of grove.core and method of its classes", function()
    for name in pairs(core) do
      assert.truthy(OWN_FIELDS[name] or names_of["grove.core"][name],
        ("grove.core.%s is set but not in %s"):format(name, TSV))
    end
    local reg = debug.getregistry()
    for _, class in ipairs(opened) do
      for name in pairs(methods_of(reg[class])) do
        assert.truthy(GENERIC[name] or names_of[class][name],
          ("%s:%s is registered but not in %s"):format(class, name, TSV))
      end
    end
  end)

  it("names the methods of policy views, as a hook sees them", function()
    local names, metas = {}, {}
    for name in pairs(names_of[SANDBOXED]) do
      local t = name:match("^__") and metas or names
      t[#t + 1] = ("%q"):format(name)
    end
    assert.is_true(#names > 20, "too few view rows")
    assert.same({'"__tostring"'}, metas) -- the one metamethod checked below
    local p = assert(core.policy_parse(([[
      local names = {%s}
      return {prune = function(v)
        local missing = {}
        for _, n in ipairs(names) do
          if type(v[n]) ~= "function" then missing[#missing + 1] = n end
        end
        if tostring(v):match("^grove%%.policy%%.vertex: ") then
          missing[#missing + 1] = "__tostring"
        end
        error("views lack: [" .. table.concat(missing, " ") .. "]")
      end}]]):format(table.concat(names, ", ")), "views.lua"))
    local m = core.matcher(match.tiny())
    assert(m:set_policy(p))
    local j, msg = m:match(match.nodes_yaml(1, 1, nil, 60))
    assert.is_nil(j)
    assert.matches("views lack: []", msg, 1, true)
  end)

  -- (The functions of grove.core: repl_help_spec checks them.)
  it("has an entry in the API reference for every method", function()
    local all = assert(apidoc.entries())
    -- The reference's name of a class; a row of several classes is
    -- documented under the first (the others say they share it).
    local doc_name = {[SANDBOXED] = "view"}
    local missing = {}
    for _, r in ipairs(rows) do
      if r.first and r.method ~= "*" and not r.method:match("^__") and r.class ~= "grove.core" then
        local name = (doc_name[r.class] or r.class:match("^grove%.(.+)$")) .. ":" .. r.method
        if not all[name] then missing[#missing + 1] = r.where .. " " .. name end
      end
    end
    assert.same({}, missing)
  end)
end)
