/* l_json.c: JSON text to Lua values and back, for Lua code of Grove that
 * reads or writes JSON files of its own (the simulator's job lists and
 * summaries), through the same reader and writer as the rest of Grove.
 *
 *   core.json_decode(text [, source [, omit]])  a value, or nil,
 *       "SOURCE:LINE:COL: reason", "EINVAL" (null becomes nil; nesting past
 *       GROVE_NEST_MAX is refused the same way).  omit: a list of dotted
 *       paths of object keys ("attributes.system.environment") left out
 *       of the value, for a caller that reads little of a large document
 *       (a Flux jobspec carries the submitter's whole environment)
 *   core.json_encode(value [, indent])  text with sorted keys (indent:
 *       spaces a level, 0 for one line), or nil, reason, "EINVAL" for a
 *       value JSON cannot hold
 *
 * It must not hold any format of its own: tables become JSON as
 * grovel_to_json says (lacquire.h), JSON becomes tables as
 * grovel_push_json says.
 */
#include <errno.h>
#include <jansson.h>
#include <lauxlib.h>
#include <lua.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "grovel.h"
#include "lacquire.h"

static int push_value(lua_State *L)
{
    grovel_push_json(L, lua_touserdata(L, 1), false);
    return 1;
}

/* Delete the member at the dotted path from v, if it is there (each step
 * an object; a step of 128 bytes or more names nothing). */
static void omit_path(json_t *v, const char *path)
{
    const char *dot;
    while (v && (dot = strchr(path, '.'))) {
        char key[128];
        size_t n = (size_t)(dot - path);
        if (n >= sizeof(key))
            return;
        memcpy(key, path, n);
        key[n] = '\0';
        v = json_is_object(v) ? json_object_get(v, key) : NULL;
        path = dot + 1;
    }
    if (v && json_is_object(v))
        json_object_del(v, path);
}

static int l_json_decode(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    const char *source = luaL_optstring(L, 2, "(string)");
    bool omit = !lua_isnoneornil(L, 3);
    if (omit) {
        luaL_checktype(L, 3, LUA_TTABLE);
        for (lua_Integer i = 1; lua_rawgeti(L, 3, i) != LUA_TNIL; i++) {
            luaL_argcheck(L, lua_type(L, -1) == LUA_TSTRING, 3, "paths (strings) expected");
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    json_error_t jerr;
    json_t *v = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (!v) {
        lua_pushfstring(L, "%s:%d:%d: %s", source, jerr.line, jerr.column, jerr.text);
        return grovel_fail(L, lua_tostring(L, -1), "EINVAL");
    }
    for (lua_Integer i = 1; omit && lua_rawgeti(L, 3, i) != LUA_TNIL; i++) {
        omit_path(v, lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    if (omit)
        lua_pop(L, 1);
    /* pushing raises on nesting past the limit: caught, v freed */
    lua_pushcfunction(L, push_value);
    lua_pushlightuserdata(L, v);
    int rc = lua_pcall(L, 1, 1, 0);
    json_decref(v);
    if (rc != LUA_OK) {
        lua_pushfstring(L, "%s: %s", source, lua_tostring(L, -1));
        return grovel_fail(L, lua_tostring(L, -1), "EINVAL");
    }
    return 1;
}

static int l_json_encode(lua_State *L)
{
    luaL_checkany(L, 1);
    lua_Integer indent = luaL_optinteger(L, 2, 0);
    luaL_argcheck(L, indent >= 0 && indent <= 31, 2, "indent must be 0 to 31");
    char why[256] = "";
    json_t *v = grovel_to_json(L, 1, why, sizeof(why));
    if (!v)
        return grovel_fail(L, why[0] ? why : "not writable as JSON", "EINVAL");
    size_t flags = JSON_ENCODE_ANY | JSON_SORT_KEYS | JSON_INDENT((size_t)indent);
    char *s = json_dumps(v, flags);
    json_decref(v);
    return grovel_return_string(L, s, ENOMEM, "out of memory");
}

#include "api_json.h"
