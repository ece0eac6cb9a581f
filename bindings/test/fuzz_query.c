/* fuzz_query.c: libFuzzer target for `grove query` command files.
 *
 * Each input is a command file: its lines are run, one execute() each, by
 * a grove.query session over a fresh copy of the specs' lab graph
 * (spec/fixtures/query/lab.graphml, read from the project's top directory,
 * where scripts/fuzz runs).  No Lua error may escape execute(), and no
 * error line may carry a Lua error's location (a command that raised
 * inside instead of saying what was wrong with its input); either aborts.
 * Lines naming /dev, /proc or /sys are skipped: a command reading a
 * terminal or a pipe waits by design, which is no finding.  Built by
 * scripts/fuzz, not by the Makefile's test rules.
 *
 * It holds only the fuzz entry point and the Lua driver it runs: no TAP
 * output, no checks that belong in spec/query_spec.lua, no main().
 *
 * FUZZ_LUA: yes
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int luaopen_grove_core(lua_State *L);

/* The driver: a function of the input text that returns nothing, or
 * raises to report a finding. */
static const char driver[] =
    "local query = require 'grove.query'\n"
    "local null = assert(io.open('/dev/null', 'w'))\n"
    "return function(text)\n"
    "  local g = assert(query.load_graph('spec/fixtures/query/lab.graphml'))\n"
    "  local err = assert(io.tmpfile())\n"
    "  local s = assert(query.new{graph = g, out = null, info = null, err = err,\n"
    "                             policy = 'low'})\n"
    "  for line in (text .. '\\n'):gmatch('(.-)\\n') do\n"
    "    if not (line:find('/dev', 1, true) or line:find('/proc', 1, true)\n"
    "            or line:find('/sys', 1, true)) then\n"
    "      local ok, more = pcall(s.execute, s, line)\n"
    "      if not ok then error(('execute(%q) raised: %s'):format(line, tostring(more)), 0) end\n"
    "      if not more then break end\n"
    "    end\n"
    "  end\n"
    "  s:close()\n"
    "  g:close()\n"
    "  err:seek('set')\n"
    "  for e in err:lines() do\n"
    "    if e:find('%.lua:%d+:') then error('a command raised inside: ' .. e, 0) end\n"
    "  end\n"
    "  err:close()\n"
    "end\n";

static lua_State *L;

/* The Lua state with grove.core preloaded and the driver at index 1. */
static void setup(void)
{
    L = luaL_newstate();
    if (!L)
        abort();
    luaL_openlibs(L);
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, luaopen_grove_core);
    lua_setfield(L, -2, "grove.core");
    lua_pop(L, 2);
    if (luaL_loadbuffer(L, driver, sizeof(driver) - 1, "=fuzz_query") != LUA_OK
        || lua_pcall(L, 0, 1, 0) != LUA_OK) {
        fprintf(stderr, "fuzz_query: %s\n", lua_tostring(L, -1));
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!L)
        setup();
    lua_pushvalue(L, 1);
    lua_pushlstring(L, (const char *)data, size);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        fprintf(stderr, "fuzz_query: %s\n", lua_tostring(L, -1));
        abort();
    }
    lua_gc(L, LUA_GCCOLLECT); /* graphs and sessions go now, not at exit */
    return 0;
}
