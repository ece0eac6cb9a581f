/* module.c: the entry point of the Lua module grove.core.
 *
 * The module table is built by calling each binding file's open function in
 * turn (see grovel.h); it is the only exported symbol of core.so.
 */
#include <errno.h>
#include <string.h>

#include "grovel.h"

int grovel_fail(lua_State *L, const char *msg, const char *code)
{
    lua_pushnil(L);
    lua_pushstring(L, msg);
    lua_pushstring(L, code);
    return 3;
}

const char *grovel_errno_name(int errnum)
{
    switch (errnum) {
    case EINVAL: return "EINVAL";
    case ENOMEM: return "ENOMEM";
    case ENOENT: return "ENOENT";
    case EEXIST: return "EEXIST";
    case ERANGE: return "ERANGE";
    case EBUSY: return "EBUSY";
    case ENODEV: return "ENODEV";
    case EOVERFLOW: return "EOVERFLOW";
    case EPERM: return "EPERM";
    case ENOTSUP: return "ENOTSUP";
    case ETIMEDOUT: return "ETIMEDOUT";
    case ECANCELED: return "ECANCELED";
    default: return "EIO";
    }
}

int grovel_fail_errno(lua_State *L, int errnum, const char *msg)
{
    return grovel_fail(L, msg ? msg : strerror(errnum), grovel_errno_name(errnum));
}

void grovel_newclass(lua_State *L, const char *tname, const luaL_Reg *methods,
                     const luaL_Reg *meta)
{
    luaL_newmetatable(L, tname);
    if (meta)
        luaL_setfuncs(L, meta, 0);
    if (methods) {
        lua_newtable(L);
        luaL_setfuncs(L, methods, 0);
        lua_setfield(L, -2, "__index");
    }
    lua_pushstring(L, tname);
    lua_setfield(L, -2, "__name");
    lua_pop(L, 1);
}

void grovel_setfunc(lua_State *L, const char *name, lua_CFunction f)
{
    lua_pushcfunction(L, f);
    lua_setfield(L, -2, name);
}

__attribute__((visibility("default"))) int luaopen_grove_core(lua_State *L);

int luaopen_grove_core(lua_State *L)
{
    lua_newtable(L);
#define GROVEL_MODULE(name) grovel_open_##name(L);
#include "modules.h"
#undef GROVEL_MODULE
    lua_pushliteral(L, "0.1.0");
    lua_setfield(L, -2, "version");
    return 1;
}
