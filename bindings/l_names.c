/* l_names.c: names that are not known, told as such and with the closest
 * known one offered.
 *
 *   core.set_suggest(fn | nil)   fn(name, names) -> " (did you mean 'X'?)"
 *                                or "": what messages about an unknown name
 *                                append; `require "grove"` sets it to
 *                                grove.suggest.hint, the one edit distance
 *                                of Grove (nil: no offer)
 *
 * Every class's methods table (grovel_class_open) has a metatable whose
 * __index is grovel_no_method: reading a string key that is no method of
 * the class (m:mach(), m.mach) raises "grove.matcher has no method 'mach'
 * (did you mean 'match'?)", blaming the line that read it, where Lua
 * would have said "attempt to call a nil value (method 'mach')" with no
 * word of what the object has.  A method found costs nothing more: the
 * metatable is reached only on a miss.  Other keys (h[i] of a hostlist,
 * answered by the class's own __index first) read nil.
 *
 * The offer itself is grove.suggest's: this file holds no distance of its
 * own, only the hook that asks for it (grovel_push_hint) and the methods'
 * fallback.  In a sandbox (policy views) no function is set, and the
 * message lists no offer.
 */
#include "grovel.h"

static const char SUGGEST_KEY = 's'; /* registry key of the function */

/* core.set_suggest(fn | nil) */
static int l_set_suggest(lua_State *L)
{
    return grovel_set_function(L, &SUGGEST_KEY);
}

void grovel_push_hint(lua_State *L, const char *name, int names)
{
    names = lua_absindex(L, names);
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &SUGGEST_KEY) != LUA_TFUNCTION) {
        lua_pop(L, 1);
        lua_pushliteral(L, "");
        return;
    }
    lua_pushstring(L, name);
    lua_pushvalue(L, names);
    /* an offer that fails is no offer: the message it would add to stands */
    if (lua_pcall(L, 2, 1, 0) != LUA_OK || lua_type(L, -1) != LUA_TSTRING) {
        lua_pop(L, 1);
        lua_pushliteral(L, "");
    }
}

int grovel_no_method(lua_State *L)
{
    if (lua_type(L, 2) != LUA_TSTRING)
        return 0;
    const char *key = lua_tostring(L, 2);
    /* the methods table holds the methods only (metamethods are on the
     * metatable): its keys are the names to offer */
    grovel_push_hint(L, key, 1);
    luaL_where(L, 1);
    if (!lua_tostring(L, -1)[0]) { /* read by a C function (a class's own __index) */
        lua_pop(L, 1);
        luaL_where(L, 2);
    }
    lua_pushfstring(L, "%s has no method '%s'%s", lua_tostring(L, lua_upvalueindex(1)), key,
                    lua_tostring(L, -2));
    lua_concat(L, 2);
    return lua_error(L);
}

#include "api_names.h"
