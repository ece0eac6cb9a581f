-- The Lua module for LuaRocks, built from this tree with the Makefile:
--
--   luarocks --lua-version=5.4 make            (as root: into /usr/local)
--   luarocks --lua-version=5.4 --local make    (into ~/.luarocks)
--
-- It is at the top of the tree because `luarocks make` looks for it
-- there.  Its version is the Makefile's VERSION (spec/packaging_spec.lua
-- checks both).  It builds grove.core (make module, no Debian package
-- installed by it: the -dev packages of scripts/deps' first line must be
-- there) and installs the module, the pure-Lua library and, inside the
-- library as grove/share/, the policies and the API reference's sources,
-- where grove.files finds them (a rock's tree holds only modules).
rockspec_format = "3.0"
package = "grove"
version = "0.1.0-1"
source = {
  url = "git+file://.",
}
description = {
  summary = "A resource engine for HPC scheduling, scriptable in Lua",
  detailed = [[
Grove holds a cluster's resources as a graph of resource pools, matches job
requests against it now and in the future, records allocations and
reservations, and writes R and JGF for the Flux ecosystem.  The engine is C;
placement and queue policies are Lua files loaded at run time.]],
}
dependencies = {
  "lua >= 5.4, < 5.5",
}
external_dependencies = {
  JANSSON = {header = "jansson.h"},
  HWLOC = {header = "hwloc.h"},
  YAML = {header = "yaml.h"},
  SQLITE3 = {header = "sqlite3.h"},
  LIBEDIT = {header = "histedit.h"},
}
build = {
  type = "make",
  -- GROVE_STAGE=build: the Makefile's second stage directly, without its
  -- scripts/deps step (which would install or ask for the test tools too).
  build_target = "module",
  build_variables = {
    GROVE_STAGE = "build",
    CFLAGS = "$(CFLAGS)",
    LUA = "$(LUA)",
    BUILD = "build-rock",
  },
  install_target = "install-lua",
  install_variables = {
    GROVE_STAGE = "build",
    BUILD = "build-rock",
    PREFIX = "$(PREFIX)",
    LUA_LDIR = "$(LUADIR)",
    LUA_CDIR = "$(LIBDIR)",
    DATADIR = "$(LUADIR)/grove/share",
  },
}
