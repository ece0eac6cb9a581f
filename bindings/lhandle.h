/* lhandle.h: what the bindings of the string-coded sets (l_hostlist.c,
 * l_idset.c) share: a userdata holding one core object, made from its
 * string form or copied, compared, closed; and operands that may be either
 * such a userdata or a string.  Nothing here is used outside bindings/, and
 * nothing here knows hostlists or idsets: each file describes its type in
 * a grovel_handle_class_t (GROVEL_HANDLE_CLASS) and keeps its own methods.
 *
 * The helpers are static inline: bindings/ builds only l_*.c files.
 */
#ifndef GROVEL_LHANDLE_H
#define GROVEL_LHANDLE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "grovel.h"

/* A type of handle.  The functions take and return the core object. */
typedef struct grovel_handle_class {
    const char *tname; /* metatable name, "grove.hostlist" */
    const char *label; /* in messages, "hostlist" */
    void *(*decode)(const char *s, size_t len, grove_error_t *err);
    void *(*copy)(const void *p);
    bool (*equal)(const void *a, const void *b);
    void (*destroy)(void *p);
} grovel_handle_class_t;

/* The userdata: p is NULL once closed. */
typedef struct grovel_handle {
    void *p;
} grovel_handle_t;

/* Define the static class NAME for the core type whose functions are
 * PREFIX_decode_len, PREFIX_copy, PREFIX_equal and PREFIX_destroy. */
#define GROVEL_HANDLE_CLASS(NAME, PREFIX, TNAME, LABEL)                         \
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
    static void NAME##_destroy(void *p)                                         \
    {                                                                           \
        PREFIX##_destroy(p);                                                    \
    }                                                                           \
    static const grovel_handle_class_t NAME = {TNAME, LABEL, NAME##_decode,     \
                                               NAME##_copy, NAME##_equal,       \
                                               NAME##_destroy}

/* Push a new, closed handle of class c: store the object in the slot
 * returned and the handle owns it. */
static inline void **grovel_handle_new(lua_State *L, const grovel_handle_class_t *c)
{
    grovel_handle_t *u = lua_newuserdatauv(L, sizeof(*u), 0);
    u->p = NULL;
    luaL_setmetatable(L, c->tname);
    return &u->p;
}

/* The object of the handle at i; raises on another type or a closed
 * handle. */
static inline void *grovel_handle_check(lua_State *L, int i, const grovel_handle_class_t *c)
{
    grovel_handle_t *u = luaL_checkudata(L, i, c->tname);
    if (!u->p) {
        char msg[64];
        snprintf(msg, sizeof(msg), "%s is closed", c->label);
        luaL_argerror(L, i, msg);
    }
    return u->p;
}

/* The object of the value at i if it is an open handle of class c, else
 * NULL; never raises. */
static inline void *grovel_handle_test(lua_State *L, int i, const grovel_handle_class_t *c)
{
    grovel_handle_t *u = luaL_testudata(L, i, c->tname);
    return u ? u->p : NULL;
}

/* Decode the string at i into *out (a new object): 0, or -1 with nil,
 * message, code pushed. */
static inline int grovel_handle_decode(lua_State *L, int i, const grovel_handle_class_t *c,
                                       void **out)
{
    size_t len;
    const char *s = lua_tolstring(L, i, &len);
    grove_error_t err = {{0}, 0};
    if ((*out = c->decode(s, len, &err)))
        return 0;
    grovel_fail_errno(L, errno, err.text[0] ? err.text : NULL);
    return -1;
}

/* Raise unless the value at i is a string or an open handle of class c. */
static inline void grovel_handle_check_operand(lua_State *L, int i,
                                               const grovel_handle_class_t *c)
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
static inline const void *grovel_handle_operand(lua_State *L, int i,
                                                const grovel_handle_class_t *c, void **tmp)
{
    *tmp = NULL;
    grovel_handle_check_operand(L, i, c);
    if (lua_type(L, i) != LUA_TSTRING)
        return grovel_handle_check(L, i, c);
    return grovel_handle_decode(L, i, c, tmp) < 0 ? NULL : *tmp;
}

/* Methods every class has: h:copy(), h:equal(o), h == o, h:close().  Each
 * finds its class in upvalue 1 (see grovel_handle_register). */
static inline const grovel_handle_class_t *grovel_handle_class_of(lua_State *L)
{
    return lua_touserdata(L, lua_upvalueindex(1));
}

static inline int grovel_handle_copy(lua_State *L)
{
    const grovel_handle_class_t *c = grovel_handle_class_of(L);
    void *p = grovel_handle_check(L, 1, c);
    void **slot = grovel_handle_new(L, c);
    if (!(*slot = c->copy(p)))
        return grovel_fail_errno(L, errno, NULL);
    return 1;
}

static inline int grovel_handle_equal(lua_State *L)
{
    const grovel_handle_class_t *c = grovel_handle_class_of(L);
    void *a = grovel_handle_check(L, 1, c);
    void *b = grovel_handle_test(L, 2, c);
    lua_pushboolean(L, b && c->equal(a, b));
    return 1;
}

/* __eq: false for anything that is not an open handle, never raises. */
static inline int grovel_handle_eq(lua_State *L)
{
    const grovel_handle_class_t *c = grovel_handle_class_of(L);
    void *a = grovel_handle_test(L, 1, c), *b = grovel_handle_test(L, 2, c);
    lua_pushboolean(L, a && b && c->equal(a, b));
    return 1;
}

/* __gc, __close and close(): idempotent. */
static inline int grovel_handle_close(lua_State *L)
{
    const grovel_handle_class_t *c = grovel_handle_class_of(L);
    grovel_handle_t *u = luaL_checkudata(L, 1, c->tname);
    c->destroy(u->p);
    u->p = NULL;
    return 0;
}

/* Add copy, equal and close to the methods of class c, and __eq, __gc and
 * __close to its metatable (made by grovel_newclass with the rest, its
 * methods still a table at __index). */
static inline void grovel_handle_register(lua_State *L, const grovel_handle_class_t *c)
{
    static const luaL_Reg methods[] = {
        {"copy", grovel_handle_copy},
        {"equal", grovel_handle_equal},
        {"close", grovel_handle_close},
        {NULL, NULL},
    };
    static const luaL_Reg meta[] = {
        {"__eq", grovel_handle_eq},
        {"__gc", grovel_handle_close},
        {"__close", grovel_handle_close},
        {NULL, NULL},
    };
    void *up = (void *)(uintptr_t)c; /* read only, through grovel_handle_class_of */
    luaL_getmetatable(L, c->tname);
    lua_pushlightuserdata(L, up);
    luaL_setfuncs(L, meta, 1);
    lua_getfield(L, -1, "__index");
    lua_pushlightuserdata(L, up);
    luaL_setfuncs(L, methods, 1);
    lua_pop(L, 2);
}

#endif
