/* l_json.c: JSON text to Lua values and back, for Lua code of Grove that
 * reads or writes JSON files of its own (the simulator's job lists and
 * summaries), through the same reader and writer as the rest of Grove.
 *
 *   core.json_decode(text [, source])  a value, or nil, "SOURCE:LINE:COL:
 *       reason", "EINVAL" (null becomes nil; nesting past GROVE_NEST_MAX
 *       is refused the same way)
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
#include <stdlib.h>
#include <string.h>

#include "grovel.h"
#include "lacquire.h"

static int push_value(lua_State *L)
{
    grovel_push_json(L, lua_touserdata(L, 1), false);
    return 1;
}

static int l_json_decode(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    const char *source = luaL_optstring(L, 2, "(string)");
    json_error_t jerr;
    json_t *v = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (!v) {
        lua_pushfstring(L, "%s:%d:%d: %s", source, jerr.line, jerr.column, jerr.text);
        return grovel_fail(L, lua_tostring(L, -1), "EINVAL");
    }
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
