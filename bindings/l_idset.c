/* l_idset.c: the grove.idset userdata (RFC 22 idsets) for Lua.
 *
 *   core.idset([s])        s: nil (empty), an RFC 22 string, or a table of
 *                          ids; a bad string returns nil, message, "EINVAL"
 *   s:set(id [, hi])       add an id or the range id..hi; returns s
 *   s:clear(id [, hi])     remove an id or a range; returns s
 *   s:test(id)  s:count()  s:empty()
 *   s:first()  s:last()  s:next(id)  s:prev(id)   an id, or nil when none
 *   s:nth(i)               the i-th smallest id, i from 1 (nil past the end)
 *   s:encode([flags])      flags "range" (the default), "brackets",
 *                          "range,brackets", or "" to list every id
 *   s:union(o) s:difference(o) s:intersect(o)   new sets; o an idset or a
 *                          string (bad string: nil, message, "EINVAL")
 *   s:add(o)  s:subtract(o)   in place; return s
 *   s:copy()  s:equal(o)   for id in s:ids() do ... end
 *   tostring(s) (RANGE form), #s, s == o, s & o, s | o, s - o
 *   s:close(), and <close> variables.
 *
 * Ids are Lua integers in [0, 4294967294]; anything else as an id raises.
 *
 * This file holds the idset class: its methods and operators.  The handle
 * itself (copy, equal, close, ==) is the generic one of grovel.h; nothing
 * of another userdata belongs here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grovel.h"
#include "idset.h"
#include "lhandle.h"

static void describe(lua_State *L, void *p);

GROVEL_SET_CLASS(idset_class, grove_idset, "grove.idset", "idset", describe, NULL);

static grove_idset_t *check_idset(lua_State *L, int i)
{
    return grovel_handle_check(L, i, &idset_class);
}

static unsigned check_id(lua_State *L, int i)
{
    lua_Integer v = luaL_checkinteger(L, i);
    luaL_argcheck(L, v >= 0 && v <= (lua_Integer)GROVE_IDSET_MAX_ID, i,
                  "id out of range [0, 4294967294]");
    return (unsigned)v;
}

static void push_id(lua_State *L, unsigned id)
{
    if (id == GROVE_IDSET_INVALID)
        lua_pushnil(L);
    else
        lua_pushinteger(L, (lua_Integer)id);
}

/* Element i of core.idset's table, on top of the stack: an id. */
static int add_element(lua_State *L, void *s, lua_Integer i)
{
    int isnum;
    lua_Integer v = lua_tointegerx(L, -1, &isnum);
    if (!isnum || v < 0 || v > (lua_Integer)GROVE_IDSET_MAX_ID)
        return luaL_argerror(L, 1, lua_pushfstring(L, "element %I is not an id", (LUAI_UACINT)i));
    if (grove_idset_set(s, (unsigned)v) < 0) {
        grovel_fail_errno(L, errno, NULL);
        return -1;
    }
    return 0;
}

static int l_idset_new(lua_State *L)
{
    return grovel_set_new(L, &idset_class, add_element);
}

/* s:set(id [, hi]) (arg 1) and s:clear(id [, hi]) (arg 0). */
static int l_set(lua_State *L)
{
    bool set = grovel_uparg(L);
    grove_idset_t *s = check_idset(L, 1);
    unsigned lo = check_id(L, 2);
    unsigned hi = lua_isnoneornil(L, 3) ? lo : check_id(L, 3);
    int rc = set ? grove_idset_range_set(s, lo, hi) : grove_idset_range_clear(s, lo, hi);
    if (rc < 0)
        return grovel_fail_errno(L, errno, NULL);
    lua_settop(L, 1);
    return 1;
}

static int l_test(lua_State *L)
{
    grove_idset_t *s = check_idset(L, 1);
    lua_Integer v = luaL_checkinteger(L, 2);
    lua_pushboolean(L, v >= 0 && v <= (lua_Integer)GROVE_IDSET_MAX_ID
                           && grove_idset_test(s, (unsigned)v));
    return 1;
}

/* What s:count(), s:empty(), s:first(), s:last() and #s read (the arg). */
enum { Q_COUNT, Q_EMPTY, Q_FIRST, Q_LAST };

static int l_query(lua_State *L)
{
    const grove_idset_t *s = check_idset(L, 1);
    switch (grovel_uparg(L)) {
    case Q_COUNT: lua_pushinteger(L, (lua_Integer)grove_idset_count(s)); break;
    case Q_EMPTY: lua_pushboolean(L, grove_idset_empty(s)); break;
    case Q_FIRST: push_id(L, grove_idset_first(s)); break;
    default: push_id(L, grove_idset_last(s)); break;
    }
    return 1;
}

/* s:next(id) (arg 1) and s:prev(id) (arg 0). */
static int l_step(lua_State *L)
{
    const grove_idset_t *s = check_idset(L, 1);
    unsigned id = check_id(L, 2);
    push_id(L, grovel_uparg(L) ? grove_idset_next(s, id) : grove_idset_prev(s, id));
    return 1;
}

static int l_nth(lua_State *L)
{
    grove_idset_t *s = check_idset(L, 1);
    lua_Integer i = luaL_checkinteger(L, 2);
    luaL_argcheck(L, i >= 1, 2, "position must be >= 1");
    push_id(L, grove_idset_nth(s, (size_t)(i - 1)));
    return 1;
}

/* "range", "brackets", "range,brackets" (any order), "" for none. */
static int check_flags(lua_State *L, int i)
{
    if (lua_isnoneornil(L, i))
        return GROVE_IDSET_FLAG_RANGE;
    size_t len;
    const char *f = luaL_checklstring(L, i, &len);
    int flags = 0;
    size_t p = 0;
    while (p < len) {
        size_t q = p;
        while (q < len && f[q] != ',')
            q++;
        if (q - p == 5 && !memcmp(f + p, "range", 5))
            flags |= GROVE_IDSET_FLAG_RANGE;
        else if (q - p == 8 && !memcmp(f + p, "brackets", 8))
            flags |= GROVE_IDSET_FLAG_BRACKETS;
        else
            return luaL_argerror(L, i, "flags must be \"range\", \"brackets\" or both, "
                                       "comma-separated");
        p = q + 1;
    }
    return flags;
}

static int push_encoding(lua_State *L, const grove_idset_t *s, int flags)
{
    char *e = grove_idset_encode(s, flags);
    return grovel_return_string(L, e, errno,
                                errno == EOVERFLOW ? "idset encoding too long" : NULL);
}

static int l_encode(lua_State *L)
{
    grove_idset_t *s = check_idset(L, 1);
    return push_encoding(L, s, check_flags(L, 2));
}

static void describe(lua_State *L, void *p)
{
    if (push_encoding(L, p, GROVE_IDSET_FLAG_RANGE) != 1)
        luaL_error(L, "%s", lua_tostring(L, -2));
}

enum op { OP_UNION, OP_DIFF, OP_INTER, OP_ADD, OP_SUB };
#define OP_MASK 7
#define OPERATOR 8 /* the arg of an operator: a | b, a & b, a - b */

/* a OP b (OP the arg) for methods (a must be an idset) and operators
 * (either may be a string, and a bad string raises instead of returning
 * nil, msg, code). */
static int l_op(lua_State *L)
{
    enum op op = (enum op)(grovel_uparg(L) & OP_MASK);
    bool raise = grovel_uparg(L) & OPERATOR;
    if (!raise)
        check_idset(L, 1);
    lua_settop(L, 2);
    /* every check that may raise comes before decoding */
    grovel_handle_check_operand(L, 1, &idset_class);
    grovel_handle_check_operand(L, 2, &idset_class);
    void *ta, *tb;
    void **out = NULL;
    if (op != OP_ADD && op != OP_SUB)
        out = &grovel_handle_new(L, &idset_class)->p; /* first: no Lua error can leak C memory */
    const grove_idset_t *a = grovel_handle_operand(L, 1, &idset_class, &ta);
    if (!a)
        return raise ? luaL_error(L, "%s", lua_tostring(L, -2)) : 3;
    const grove_idset_t *b = grovel_handle_operand(L, 2, &idset_class, &tb);
    if (!b) {
        grove_idset_destroy(ta);
        return raise ? luaL_error(L, "%s", lua_tostring(L, -2)) : 3;
    }
    int rc = 0;
    switch (op) {
    case OP_UNION:
        rc = (*out = grove_idset_union(a, b)) ? 0 : -1;
        break;
    case OP_DIFF:
        rc = (*out = grove_idset_difference(a, b)) ? 0 : -1;
        break;
    case OP_INTER:
        rc = (*out = grove_idset_intersect(a, b)) ? 0 : -1;
        break;
    case OP_ADD:
        rc = grove_idset_add(check_idset(L, 1), b);
        break;
    case OP_SUB:
        rc = grove_idset_subtract(check_idset(L, 1), b);
        break;
    }
    int saved = errno;
    grove_idset_destroy(ta);
    grove_idset_destroy(tb);
    if (rc < 0)
        return grovel_fail_errno(L, saved, NULL);
    if (!out)
        lua_settop(L, 1);
    return 1;
}

/* Iterator: upvalue 1 the set, upvalue 2 the last id returned (or nil). */
static int ids_step(lua_State *L)
{
    grove_idset_t *s = grovel_handle_alive(L, lua_touserdata(L, lua_upvalueindex(1)),
                                           &idset_class);
    unsigned id;
    if (lua_isnil(L, lua_upvalueindex(2)))
        id = grove_idset_first(s);
    else
        id = grove_idset_next(s, (unsigned)lua_tointeger(L, lua_upvalueindex(2)));
    if (id == GROVE_IDSET_INVALID) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushinteger(L, (lua_Integer)id);
    lua_copy(L, -1, lua_upvalueindex(2));
    return 1;
}

static int l_ids(lua_State *L)
{
    check_idset(L, 1);
    lua_settop(L, 1);
    lua_pushnil(L);
    lua_pushcclosure(L, ids_step, 2);
    return 1;
}

#include "api_idset.h"
