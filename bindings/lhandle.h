/* lhandle.h: what the bindings of the string-coded sets (l_hostlist.c,
 * l_idset.c) share: the constructor (nothing, the string form or a table of
 * elements), and operands that may be either an open handle of the set's
 * class or its string form, read through the class's decode.  The handle
 * itself (new, check, copy, equal, close) is the generic one of grovel.h.
 * Nothing here is used outside bindings/, and nothing here knows hostlists
 * or idsets.
 *
 * The helpers are static inline: bindings/ builds only l_*.c files, grovel.c and
 * module.c.
 */
#ifndef GROVEL_LHANDLE_H
#define GROVEL_LHANDLE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "grovel.h"

/* Define the static class NAME of a set whose core functions are
 * PREFIX_create, PREFIX_decode_len, PREFIX_copy, PREFIX_equal and
 * PREFIX_destroy; DESCRIBE pushes its tostring; INDEX is its
 * grovel_class_t index (NULL: none). */
#define GROVEL_SET_CLASS(NAME, PREFIX, TNAME, LABEL, DESCRIBE, INDEX)           \
    static void *NAME##_create(void)                                            \
    {                                                                           \
        return PREFIX##_create();                                               \
    }                                                                           \
    static void *NAME##_decode(const char *s, size_t n, grove_error_t *e)       \
    {                                                                           \
        return PREFIX##_decode_len(s, n, e);                                    \
    }                                                                           \
    static void *NAME##_copy(const void *p)                                     \
    {                                                                           \
        return PREFIX##_copy(p);                                                \
    }                                                                           \
    static bool NAME##_equal(const void *a, const void *b)                      \
    {                                                                           \
        return PREFIX##_equal(a, b);                                            \
    }                                                                           \
    GROVEL_FREER(NAME##_destroy, PREFIX##_destroy)                              \
    static const grovel_class_t NAME = {                                        \
        .tname = TNAME,                                                         \
        .describe = DESCRIBE,                                                   \
        .equal = NAME##_equal,                                                  \
        .label = LABEL,                                                         \
        .closed = LABEL " (closed)",                                            \
        .destroy = NAME##_destroy,                                              \
        .copy = NAME##_copy,                                                    \
        .decode = NAME##_decode,                                                \
        .create = NAME##_create,                                                \
        .index = INDEX,                                                         \
    }

/* Decode the string at i into *out (a new object): 0, or -1 with nil,
 * message, code pushed. */
static inline int grovel_handle_decode(lua_State *L, int i, const grovel_class_t *c,
                                       void **out)
{
    size_t len;
    const char *s = lua_tolstring(L, i, &len);
    grove_error_t err = {{0}, 0};
    if ((*out = c->decode(s, len, &err)))
        return 0;
    grovel_fail_err(L, errno, &err);
    return -1;
}

/* core.idset([s]), core.hostlist([s]): a new set of class c, empty (s nil
 * or none), read from its string form (a bad one: nil, message, code), or
 * from a table: add(L, set, i) adds element i, which is on top of the
 * stack, and raises on a bad one or returns -1 with nil, message, code
 * pushed. */
static inline int grovel_set_new(lua_State *L, const grovel_class_t *c,
                                 int (*add)(lua_State *L, void *set, lua_Integer i))
{
    int t = lua_type(L, 1);
    luaL_argexpected(L, t == LUA_TNONE || t == LUA_TNIL || t == LUA_TSTRING || t == LUA_TTABLE,
                     1, "nil, string or table");
    grovel_handle_t *h = grovel_handle_new(L, c);
    if (t == LUA_TSTRING)
        return grovel_handle_decode(L, 1, c, &h->p) < 0 ? 3 : 1;
    if (!(h->p = c->create()))
        return grovel_fail_errno(L, errno, NULL);
    int top = lua_gettop(L);
    lua_Integer n = t == LUA_TTABLE ? luaL_len(L, 1) : 0;
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, 1, i);
        if (add(L, h->p, i) < 0)
            return 3;
        lua_settop(L, top);
    }
    return 1;
}

/* Raise unless the value at i is a string or an open handle of class c. */
static inline void grovel_handle_check_operand(lua_State *L, int i, const grovel_class_t *c)
{
    if (lua_type(L, i) != LUA_TSTRING) {
        if (!luaL_testudata(L, i, c->tname)) {
            /* not pushed: the error names the type of the value at i */
            char msg[64];
            snprintf(msg, sizeof(msg), "%s or string", c->label);
            luaL_typeerror(L, i, msg);
        }
        grovel_handle_check(L, i, c);
    }
}

/* The operand at i: a handle's object (borrowed), or a string decoded
 * into *tmp (the caller destroys it).  NULL with nil, message, code pushed
 * on a bad string; raises on anything else. */
static inline const void *grovel_handle_operand(lua_State *L, int i, const grovel_class_t *c,
                                                void **tmp)
{
    *tmp = NULL;
    grovel_handle_check_operand(L, i, c);
    if (lua_type(L, i) != LUA_TSTRING)
        return grovel_handle_check(L, i, c);
    return grovel_handle_decode(L, i, c, tmp) < 0 ? NULL : *tmp;
}

#endif
