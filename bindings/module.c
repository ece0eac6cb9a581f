/* module.c: the entry point of the Lua module grove.core.
 *
 * The module table is built by calling each binding file's open function in
 * turn (see grovel.h); luaopen_grove_core is the only exported symbol of
 * core.so.  It sits above every binding file and is called by none; the
 * helpers the binding files share are in grovel.c.
 */
#include "grove.h"
#include "grovel.h"
#include "prefix.h"

__attribute__((visibility("default"))) int luaopen_grove_core(lua_State *L);

int luaopen_grove_core(lua_State *L)
{
    lua_newtable(L);
#define GROVEL_MODULE(name) grovel_open_##name(L);
#include "modules.h"
#undef GROVEL_MODULE
    lua_pushinteger(L, GROVE_NEST_MAX);
    lua_setfield(L, -2, "nest_max");
    lua_pushliteral(L, GROVE_VERSION); /* the Makefile's VERSION */
    lua_setfield(L, -2, "version");
    return 1;
}
