/* annotations.c: a job's annotations written as JSON text.
 *
 * An alloc action's annotations are a small table ({sched = {resource_summary
 * = "...", t_estimate = n | null, reason_pending = "..." | null}}), written
 * here straight to JSON text rather than built as jansson values and
 * dumped.  Only that shape is written: objects with string keys, integers,
 * booleans, null, strings of printable ASCII without quote or backslash;
 * anything else (an array, a real, a string that needs escaping) makes
 * ann_write give up, and grovel_to_json and json_dumps write it as before,
 * so the text never depends on which writer took it.
 */
#include <stdbool.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <lauxlib.h>

#include "sched_grove.h"

struct text {
    char *s;
    size_t len, cap;
};

static int text_add(struct text *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 128;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *s2 = realloc(b->s, cap);
        if (!s2)
            return -1;
        b->s = s2;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
    return 0;
}

/* A string JSON writes as it is between quotes. */
static bool plain(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e || s[i] == '"'
            || s[i] == '\\')
            return false;
    return true;
}

/* Write the value at idx (absolute) to b; -1 when it is not of the plain
 * shape (or memory ran out). */
static int ann_write(lua_State *L, int idx, struct text *b, int depth)
{
    size_t n;
    const char *s;
    char num[32];
    switch (lua_type(L, idx)) {
    case LUA_TSTRING:
        s = lua_tolstring(L, idx, &n);
        if (!plain(s, n))
            return -1;
        return text_add(b, "\"", 1) < 0 || text_add(b, s, n) < 0 || text_add(b, "\"", 1) < 0
                   ? -1 : 0;
    case LUA_TNUMBER:
        if (!lua_isinteger(L, idx))
            return -1;
        snprintf(num, sizeof(num), "%lld", (long long)lua_tointeger(L, idx));
        return text_add(b, num, strlen(num));
    case LUA_TBOOLEAN:
        return lua_toboolean(L, idx) ? text_add(b, "true", 4) : text_add(b, "false", 5);
    case LUA_TLIGHTUSERDATA:
        return lua_touserdata(L, idx) == NULL ? text_add(b, "null", 4) : -1;
    case LUA_TTABLE:
        break;
    default:
        return -1;
    }
    if (depth > 8 || !lua_checkstack(L, 3) || text_add(b, "{", 1) < 0)
        return -1;
    bool first = true;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (lua_type(L, -2) != LUA_TSTRING) {
            lua_pop(L, 2);
            return -1;
        }
        s = lua_tolstring(L, -2, &n);
        if (!plain(s, n) || (!first && text_add(b, ",", 1) < 0) || text_add(b, "\"", 1) < 0
            || text_add(b, s, n) < 0 || text_add(b, "\":", 2) < 0
            || ann_write(L, lua_gettop(L), b, depth + 1) < 0) {
            lua_pop(L, 2);
            return -1;
        }
        first = false;
        lua_pop(L, 1);
    }
    return text_add(b, "}", 1);
}

/* The annotations at idx as JSON text (caller frees), or NULL (logged). */
char *sg_annotations_text(struct sched_ctx *ctx, int idx)
{
    struct text b = {NULL, 0, 0};
    idx = lua_absindex(ctx->L, idx);
    if (lua_istable(ctx->L, idx) && ann_write(ctx->L, idx, &b, 0) == 0)
        return b.s;
    free(b.s);
    json_t *o = sg_to_json(ctx, idx, "annotations");
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return text;
}
