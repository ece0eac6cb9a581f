/* module.c: the entry point of the Lua module grove.core.
 *
 * The module table is built by calling each binding file's open function in
 * turn (see grovel.h); it is the only exported symbol of core.so.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "grove.h"
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
    const char *name = grove_errno_name(errnum);
    return name ? name : "EIO"; /* errno 0: a failure that set none */
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

static void push_json(lua_State *L, const json_t *v, bool keep_null, int depth)
{
    luaL_checkstack(L, 4, "JSON nested too deeply");
    if (depth >= GROVE_NEST_MAX)
        luaL_error(L, "JSON nested deeper than %d levels", GROVE_NEST_MAX);
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        lua_createtable(L, 0, (int)json_object_size(v));
        const char *k;
        json_t *x;
        json_object_foreach((json_t *)(uintptr_t)v, k, x) {
            if (json_is_null(x) && !keep_null)
                continue;
            push_json(L, x, keep_null, depth + 1);
            lua_setfield(L, -2, k);
        }
        break;
    }
    case JSON_ARRAY: {
        lua_createtable(L, (int)json_array_size(v), 0);
        size_t i;
        json_t *x;
        json_array_foreach((json_t *)(uintptr_t)v, i, x) {
            push_json(L, x, keep_null, depth + 1);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        break;
    }
    case JSON_STRING:
        lua_pushlstring(L, json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER:
        lua_pushinteger(L, (lua_Integer)json_integer_value(v));
        break;
    case JSON_REAL:
        lua_pushnumber(L, json_real_value(v));
        break;
    case JSON_TRUE:
    case JSON_FALSE:
        lua_pushboolean(L, json_is_true(v));
        break;
    default: /* null */
        if (keep_null)
            lua_pushlightuserdata(L, NULL);
        else
            lua_pushnil(L);
        break;
    }
}

void grovel_push_json(lua_State *L, const json_t *v, bool keep_null)
{
    push_json(L, v, keep_null, 0);
}

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
