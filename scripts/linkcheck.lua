-- Check the internal links of a generated HTML tree (docs/api/): every
-- href that is not an outside URL must name a file of the tree and, when
-- it has a #fragment, an anchor (`name=` or `id=`) of that file.  Prints
-- one line per broken link, "FILE: HREF (why)", and exits 1 if there is
-- any; scripts/docs runs it after LDoc, so a broken link fails the docs
-- check of CI.
--
--   lua5.4 scripts/linkcheck.lua DIR
local dir = assert(arg[1], "usage: linkcheck.lua DIR")

local function read(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

-- The .html files below dir (relative names), from find.
local pages = {}
local p = assert(io.popen("cd '" .. dir .. "' && find . -name '*.html' | sort"))
for line in p:lines() do pages[#pages + 1] = line:gsub("^%./", "") end
p:close()

-- Anchors of each page, and the text of each page.
local anchors, text = {}, {}
for _, page in ipairs(pages) do
  local s = assert(read(dir .. "/" .. page))
  text[page] = s
  local a = {}
  for _, name in s:gmatch("%s[nN][aA][mM][eE]%s*=%s*([\"'])(.-)%1") do a[name] = true end
  for _, name in s:gmatch("%sid%s*=%s*([\"'])(.-)%1") do a[name] = true end
  anchors[page] = a
end

-- "a/b/../c.html" -> "a/c.html"
local function normalize(path)
  local out = {}
  for part in path:gmatch("[^/]+") do
    if part == ".." then out[#out] = nil
    elseif part ~= "." then out[#out + 1] = part end
  end
  return table.concat(out, "/")
end

local function unescape(s)
  return (s:gsub("&amp;", "&"):gsub("%%(%x%x)", function(h)
    return string.char(tonumber(h, 16))
  end))
end

local broken, total = 0, 0
for _, page in ipairs(pages) do
  local base = page:match("^(.*/)") or ""
  for _, href in text[page]:gmatch("%shref%s*=%s*([\"'])(.-)%1") do
    if not href:match("^%a[%w+.-]*:") then -- not http:, mailto:, ...
      total = total + 1
      local file, frag = href:match("^([^#]*)#?(.*)$")
      local target = file == "" and page or normalize(base .. unescape(file))
      local why
      if not text[target] then
        if not read(dir .. "/" .. target) then why = "no such file" end
      elseif href:find("#", 1, true) and not anchors[target][unescape(frag)] then
        why = "no anchor '" .. unescape(frag) .. "' in " .. target
      end
      if why then
        broken = broken + 1
        io.write(("%s: %s (%s)\n"):format(page, href, why))
      end
    end
  end
end
io.write(("linkcheck: %d internal links in %d pages, %d broken\n"):format(total, #pages, broken))
os.exit(broken == 0 and 0 or 1)
