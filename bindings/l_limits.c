/* l_limits.c: core.limits(), the readers' limits in force (limit.h), so
 * that Lua code reading files itself (command files of `grove query`)
 * applies the same input limit as the C readers.
 *
 *   core.limits()   {input =, depth =, members =, vertices =, size =}
 *
 * It must not hold any reader or set a limit: limits are set only through
 * the environment (GROVE_MAX_*).
 */
#include <lauxlib.h>
#include <lua.h>

#include "grovel.h"
#include "limit.h"

static void put(lua_State *L, const char *k, uint64_t v)
{
    lua_pushinteger(L, v > (uint64_t)LUA_MAXINTEGER ? LUA_MAXINTEGER : (lua_Integer)v);
    lua_setfield(L, -2, k);
}

static int l_limits(lua_State *L)
{
    grove_limits_t lim;
    grove_limits_get(&lim);
    lua_createtable(L, 0, 5);
    put(L, "input", lim.input);
    put(L, "depth", lim.depth);
    put(L, "members", lim.members);
    put(L, "vertices", lim.vertices);
    put(L, "size", lim.size);
    return 1;
}

#include "api_limits.h"
