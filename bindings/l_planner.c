/* l_planner.c: the grove.planner and grove.mplanner userdata for Lua.
 *
 *   core.planner{total = N, horizon = H [, start = S]}   or
 *   core.planner(N, H [, S])       N units over [S, S + H), S defaults to 0
 *     p:add(start, duration, amount)   -> span id
 *     p:remove(id)                     -> true
 *     p:reduce(id, amount)             -> units the span still holds
 *     p:span(id)                       -> start, duration, amount
 *     p:spans()                        -> array of span ids, ascending
 *     p:avail_at(t)                    -> free units at t
 *     p:avail_during(t, d)             -> least free units during [t, t + d)
 *     p:fits(t, d, amount)             -> boolean
 *     p:earliest(amount, d [, t0])     -> earliest fitting start >= t0
 *     p:next_fit(amount, d, after)     -> next fitting time point > after
 *     p:fit_times(amount, d [, t0])    -> iterator: earliest, then next_fit
 *     p:next_change(after)             -> next time usage changes
 *     p:max_used()  p:resize(total)  p:copy()  p:total()  p:span_count()
 *     p:range() -> start, end          p:close(), tostring(p), <close>
 *
 *   core.mplanner{types = {"core", "gpu"}, totals = {44, 4}, horizon = H
 *                 [, start = S]}
 *     the same operations with count tables {core = 4, gpu = 1} (missing
 *     types count 0) in place of amounts; results that are counts come back
 *     as such tables.  mp:resize{core = 40} sets the listed totals;
 *     mp:totals(), mp:total(type), mp:types(), mp:max_used() (a table).
 *
 * Misuse raises: wrong types, negative durations, amounts, counts or
 * totals, unknown resource types, a closed handle.  Operational failures
 * return nil, message, code: "ERANGE" (time or window outside the horizon),
 * "ENOENT" (unknown span; no later change), "ENODEV" (more than the total:
 * can never fit), "EBUSY" (not enough free; "no time" left for earliest and
 * next_fit; a shrink below the units in use), "EINVAL" (reducing a span by
 * more than it holds), "ENOMEM".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lgraph.h"
#include "mplanner.h"
#include "planner.h"

/* One binding core serves both classes: a handle holds a planner or a
 * multi-planner, and each method the classes have in common is written
 * once over count vectors (one slot for a planner, whose amounts are
 * integers; one per type for a multi-planner, whose counts are tables).
 * Every method gets its class as its upvalue.  This file holds no other
 * userdata. */
struct kind {
    grovel_class_t c; /* first: a method's class is its kind */
    bool multi;       /* counts are tables: a grove.mplanner */
};

/* The userdata of both classes, a generic handle (grovel.h) whose object
 * is also kept typed: p or mp, the other NULL; all NULL once closed. */
typedef struct {
    grovel_handle_t h;
    grove_planner_t *p;   /* set in a grove.planner */
    grove_mplanner_t *mp; /* set in a grove.mplanner */
} lplan;

static void describe(lua_State *L, void *p);
GROVEL_FREER(planner_destroy, grove_planner_destroy)
GROVEL_FREER(mplanner_destroy, grove_mplanner_destroy)

static const struct kind planner_kind = {
    {.tname = "grove.planner", .describe = describe, .label = "planner",
     .closed = "planner (closed)", .size = sizeof(lplan), .destroy = planner_destroy},
    false,
};
static const struct kind mplanner_kind = {
    {.tname = "grove.mplanner", .describe = describe, .label = "mplanner",
     .closed = "mplanner (closed)", .size = sizeof(lplan), .destroy = mplanner_destroy},
    true,
};

/* ---- shared helpers -------------------------------------------------------- */

static int64_t check_nonneg(lua_State *L, int i, const char *what)
{
    lua_Integer v = luaL_checkinteger(L, i);
    if (v < 0)
        luaL_argerror(L, i, lua_pushfstring(L, "%s must be >= 0", what));
    return (int64_t)v;
}

static int64_t check_duration(lua_State *L, int i)
{
    return check_nonneg(L, i, "duration");
}

/* Integer field k of the table at t (raises when absent and required). */
static int64_t field_int(lua_State *L, int t, const char *k, int required, int64_t dflt)
{
    int ty = lua_getfield(L, t, k);
    int64_t v = dflt;
    if (ty != LUA_TNIL || required) {
        int isnum;
        v = (int64_t)lua_tointegerx(L, -1, &isnum);
        if (!isnum)
            luaL_argerror(L, t, lua_pushfstring(L, "field '%s' must be an integer", k));
    }
    lua_pop(L, 1);
    return v;
}

/* Check start >= 0, horizon >= 1 and the end within the limit. */
static void check_horizon(lua_State *L, int arg, int64_t start, int64_t horizon)
{
    luaL_argcheck(L, start >= 0, arg, "start must be >= 0");
    luaL_argcheck(L, horizon >= 1, arg, "horizon must be >= 1");
    luaL_argcheck(L, horizon <= GROVE_PLANNER_TIME_MAX - start, arg,
                  "start + horizon is too large");
}

/* t + d for messages, saturating (d >= 0). */
static int64_t sat_add(int64_t t, int64_t d)
{
    return t > INT64_MAX - d ? INT64_MAX : t + d;
}

/* "[a, b)" windows in messages */
#define WIN "[%I, %I)"
#define LI(x) ((LUAI_UACINT)(x))

/* A scratch vector of n int64, owned by the Lua stack (a userdata pushed
 * there), so a raise in the middle leaks nothing. */
static int64_t *scratch(lua_State *L, size_t n)
{
    int64_t *v = lua_newuserdatauv(L, sizeof(int64_t) * n, 0);
    memset(v, 0, sizeof(int64_t) * n);
    return v;
}

/* ---- handles --------------------------------------------------------------- */

static const struct kind *kind_of(lua_State *L)
{
    return (const struct kind *)grovel_upclass(L);
}

/* The open handle at 1 of the method's class. */
static lplan *check_open(lua_State *L)
{
    grovel_handle_check(L, 1, &kind_of(L)->c);
    return lua_touserdata(L, 1);
}

/* For a function taking nargs arguments that may push scratch vectors: a
 * multi-planner's stack is cut to the arguments first, so the scratch
 * vectors go above them. */
static void cut_args(lua_State *L, int nargs)
{
    if (kind_of(L)->multi)
        lua_settop(L, nargs);
}

/* cut_args, then check_open. */
static lplan *check_args(lua_State *L, int nargs)
{
    cut_args(L, nargs);
    return check_open(L);
}

/* Push a handle that owns p or mp (the other NULL). */
static void push_handle(lua_State *L, grove_planner_t *p, grove_mplanner_t *mp)
{
    lplan *u = (lplan *)grovel_handle_new(L, mp ? &mplanner_kind.c : &planner_kind.c);
    u->h.p = mp ? (void *)mp : (void *)p;
    u->p = p;
    u->mp = mp;
}

/* ---- the object under a handle, over count vectors ------------------------ */

static size_t nslots(const lplan *u)
{
    return u->mp ? grove_mplanner_ntypes(u->mp) : 1;
}

static int64_t start_of(const lplan *u)
{
    return u->mp ? grove_mplanner_start(u->mp) : grove_planner_start(u->p);
}

static int64_t end_of(const lplan *u)
{
    return u->mp ? grove_mplanner_end(u->mp) : grove_planner_end(u->p);
}

static size_t span_count_of(const lplan *u)
{
    return u->mp ? grove_mplanner_span_count(u->mp) : grove_planner_span_count(u->p);
}

static int64_t total_of(const lplan *u, size_t i)
{
    return u->mp ? grove_mplanner_total(u->mp, i) : grove_planner_total(u->p);
}

static int64_t max_used_of(const lplan *u, size_t i)
{
    return u->mp ? grove_mplanner_max_used(u->mp, i) : grove_planner_max_used(u->p);
}

static int span_of(const lplan *u, int64_t id, int64_t *s, int64_t *d, int64_t *a)
{
    return u->mp ? grove_mplanner_span(u->mp, id, s, d, a) : grove_planner_span(u->p, id, s, d, a);
}

static int64_t earliest_of(const lplan *u, const int64_t *a, int64_t d, int64_t t0)
{
    return u->mp ? grove_mplanner_earliest(u->mp, a, d, t0)
                 : grove_planner_earliest(u->p, a[0], d, t0);
}

static int64_t next_fit_of(const lplan *u, const int64_t *a, int64_t d, int64_t after)
{
    return u->mp ? grove_mplanner_next_fit(u->mp, a, d, after)
                 : grove_planner_next_fit(u->p, a[0], d, after);
}

/* Read the count table at index i into a new scratch vector (pushed). */
static int64_t *check_counts(lua_State *L, const grove_mplanner_t *mp, int i,
                             const char *what)
{
    luaL_checktype(L, i, LUA_TTABLE);
    size_t n = grove_mplanner_ntypes(mp);
    int64_t *c = scratch(L, n);
    lua_pushnil(L);
    while (lua_next(L, i)) {
        int k = lua_type(L, -2) == LUA_TSTRING
                    ? grove_mplanner_type_index(mp, lua_tostring(L, -2))
                    : -1;
        if (k < 0)
            luaL_argerror(L, i, lua_pushfstring(L, "unknown resource type '%s'",
                                                luaL_tolstring(L, -2, NULL)));
        int isnum;
        lua_Integer v = lua_tointegerx(L, -1, &isnum);
        if (!isnum || v < 0)
            luaL_argerror(L, i, lua_pushfstring(L, "%s of '%s' must be an integer >= 0", what,
                                                lua_tostring(L, -2)));
        if (v > GROVE_PLANNER_TOTAL_MAX)
            luaL_argerror(L, i, lua_pushfstring(L, "%s of '%s' is too large", what,
                                                lua_tostring(L, -2)));
        c[k] = (int64_t)v;
        lua_pop(L, 1);
    }
    return c;
}

/* The amount argument at i as a vector: a planner's integer, in *one, or a
 * multi-planner's count table, in a scratch vector (pushed). */
static int64_t *check_amounts(lua_State *L, const lplan *u, int i, int64_t *one)
{
    if (u->mp)
        return check_counts(L, u->mp, i, "count");
    *one = check_nonneg(L, i, "amount");
    return one;
}

/* Room for a result vector: *one for a planner, else a scratch (pushed). */
static int64_t *result_vector(lua_State *L, const lplan *u, int64_t *one)
{
    return u->mp ? scratch(L, nslots(u)) : one;
}

/* Push a result vector: an integer for a planner, else {type = v[i]}. */
static void push_amounts(lua_State *L, const lplan *u, const int64_t *v)
{
    if (!u->mp) {
        lua_pushinteger(L, v[0]);
        return;
    }
    size_t n = nslots(u);
    lua_createtable(L, 0, (int)n);
    for (size_t i = 0; i < n; i++) {
        lua_pushinteger(L, v[i]);
        lua_setfield(L, -2, grove_mplanner_type_name(u->mp, i));
    }
}

/* "core=4, gpu=1" for messages: pushed string. */
static const char *push_counts_text(lua_State *L, const grove_mplanner_t *mp, const int64_t *v)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (size_t i = 0; i < grove_mplanner_ntypes(mp); i++) {
        if (i)
            luaL_addstring(&b, ", ");
        lua_pushfstring(L, "%s=%I", grove_mplanner_type_name(mp, i), LI(v[i]));
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    return lua_tostring(L, -1);
}

/* The first slot where a[i] > b[i], else the last one. */
static size_t first_above(const lplan *u, const int64_t *a, const int64_t *b)
{
    size_t n = nslots(u), i = 0;
    while (i + 1 < n && a[i] <= b[i])
        i++;
    return i;
}

/* "amount 5 exceeds the total 4", or for a multi-planner the first type
 * whose count exceeds its total: "5 gpu exceed the total 4". */
static void push_exceeds(lua_State *L, const lplan *u, const int64_t *a)
{
    if (!u->mp) {
        lua_pushfstring(L, "amount %I exceeds the total %I", LI(a[0]), LI(total_of(u, 0)));
        return;
    }
    size_t i = 0, n = nslots(u);
    while (i + 1 < n && a[i] <= total_of(u, i))
        i++;
    lua_pushfstring(L, "%I %s exceed the total %I", LI(a[i]), grove_mplanner_type_name(u->mp, i),
                    LI(total_of(u, i)));
}

/* nil, message, code for a failed call (errno set by core) on the window
 * [t, t + d) for the amounts a; search: earliest, next_fit, fit_times. */
static int plan_fail(lua_State *L, const lplan *u, int64_t t, int64_t d, const int64_t *a,
                     bool search)
{
    int e = errno;
    int64_t s = start_of(u), end = end_of(u);
    switch (e) {
    case ERANGE:
        if (d > end - s)
            lua_pushfstring(L, "duration %I exceeds the horizon length %I", LI(d), LI(end - s));
        else if (search)
            lua_pushfstring(L, "time %I is outside the horizon [%I, %I]", LI(t), LI(s), LI(end));
        else
            lua_pushfstring(L, "window " WIN " is outside the horizon " WIN, LI(t),
                            LI(sat_add(t, d)), LI(s), LI(end));
        break;
    case ENODEV:
        push_exceeds(L, u, a);
        break;
    case EBUSY:
        if (search)
            return grovel_fail(L, "no time", "EBUSY");
        if (!u->mp) {
            lua_pushfstring(L, "fewer than %I units free during " WIN, LI(a[0]), LI(t),
                            LI(t + d));
            break;
        }
        push_counts_text(L, u->mp, a);
        lua_pushfstring(L, "not enough free during " WIN " for %s", LI(t), LI(t + d),
                        lua_tostring(L, -1));
        break;
    default:
        return grovel_fail_errno(L, e, NULL);
    }
    return grovel_fail(L, lua_tostring(L, -1), grovel_errno_name(e));
}

static int no_span(lua_State *L, int64_t id)
{
    lua_pushfstring(L, "no span %I", LI(id));
    return grovel_fail(L, lua_tostring(L, -1), "ENOENT");
}

/* ---- the methods both classes have ------------------------------------------ */

/* p:add(t, d, amounts) (arg 1): book a span, its id; p:fits(t, d, amounts)
 * (arg 0): whether it could be booked, as a boolean. */
static int l_place(lua_State *L)
{
    bool add = grovel_uparg(L);
    lplan *u = check_args(L, 4);
    int64_t one, t = luaL_checkinteger(L, 2), d = check_duration(L, 3);
    int64_t *a = check_amounts(L, u, 4, &one);
    int64_t r;
    if (add)
        r = u->mp ? grove_mplanner_add(u->mp, t, d, a) : grove_planner_add(u->p, t, d, *a);
    else
        r = u->mp ? grove_mplanner_fits(u->mp, t, d, a) : grove_planner_fits(u->p, t, d, *a);
    if (r < 0)
        return plan_fail(L, u, t, d, a, false);
    if (add)
        lua_pushinteger(L, r);
    else
        lua_pushboolean(L, r != 0);
    return 1;
}

static int l_remove(lua_State *L)
{
    lplan *u = check_open(L);
    int64_t id = luaL_checkinteger(L, 2);
    if ((u->mp ? grove_mplanner_remove(u->mp, id) : grove_planner_remove(u->p, id)) < 0)
        return no_span(L, id);
    return grovel_ok(L);
}

static int l_reduce(lua_State *L)
{
    lplan *u = check_args(L, 3);
    int64_t one, left1, id = luaL_checkinteger(L, 2);
    int64_t *a = check_amounts(L, u, 3, &one);
    int64_t *left = result_vector(L, u, &left1);
    int r = u->mp ? grove_mplanner_reduce(u->mp, id, a, left)
                  : (*left = grove_planner_reduce(u->p, id, *a)) < 0 ? -1 : 0;
    if (r == 0) {
        push_amounts(L, u, left);
        return 1;
    }
    if (errno == ENOENT)
        return no_span(L, id);
    span_of(u, id, NULL, NULL, left);
    size_t i = first_above(u, a, left);
    lua_pushfstring(L, "cannot release %I %s of span %I: it holds %I", LI(a[i]),
                    u->mp ? grove_mplanner_type_name(u->mp, i) : "units", LI(id), LI(left[i]));
    return grovel_fail(L, lua_tostring(L, -1), "EINVAL");
}

static int l_span(lua_State *L)
{
    lplan *u = check_args(L, 2);
    int64_t one, id = luaL_checkinteger(L, 2), s, d;
    int64_t *a = result_vector(L, u, &one);
    if (span_of(u, id, &s, &d, a) < 0)
        return no_span(L, id);
    lua_pushinteger(L, s);
    lua_pushinteger(L, d);
    push_amounts(L, u, a);
    return 3;
}

static int cmp_ids(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The span ids, ascending. */
static int l_spans(lua_State *L)
{
    lplan *u = check_open(L);
    size_t n = span_count_of(u);
    int64_t *ids = malloc(sizeof(int64_t) * (n ? n : 1));
    if (!ids)
        return grovel_fail_errno(L, ENOMEM, NULL);
    for (size_t i = 0; i < n; i++) {
        if (u->mp)
            grove_mplanner_span_at(u->mp, i, &ids[i], NULL, NULL, NULL);
        else
            grove_planner_span_at(u->p, i, &ids[i], NULL, NULL, NULL);
    }
    qsort(ids, n, sizeof(int64_t), cmp_ids);
    lua_createtable(L, n > INT32_MAX ? 0 : (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushinteger(L, ids[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    free(ids);
    return 1;
}

/* p:avail_at(t) (arg 0): the amounts free at t; p:avail_during(t, d)
 * (arg 1): those free over all of [t, t + d). */
static int l_avail(lua_State *L)
{
    bool during = grovel_uparg(L);
    lplan *u = check_args(L, during ? 3 : 2);
    int64_t one, t = luaL_checkinteger(L, 2), d = during ? check_duration(L, 3) : 0;
    int64_t *out = result_vector(L, u, &one);
    int r;
    if (during)
        r = u->mp ? grove_mplanner_avail_during(u->mp, t, d, out)
                  : (*out = grove_planner_avail_during(u->p, t, d)) < 0 ? -1 : 0;
    else
        r = u->mp ? grove_mplanner_avail_at(u->mp, t, out)
                  : (*out = grove_planner_avail_at(u->p, t)) < 0 ? -1 : 0;
    if (r < 0 && during)
        return plan_fail(L, u, t, d, out, false);
    if (r < 0) {
        lua_pushfstring(L, "time %I is outside the horizon " WIN, LI(t), LI(start_of(u)),
                        LI(end_of(u)));
        return grovel_fail(L, lua_tostring(L, -1), "ERANGE");
    }
    push_amounts(L, u, out);
    return 1;
}

/* p:earliest(amounts, d [, t0]) (arg 0): the first time at or after t0 (the
 * horizon's start) where amounts fit for d; p:next_fit(amounts, d, after)
 * (arg 1): the first such time after "after". */
static int l_when(lua_State *L)
{
    bool next = grovel_uparg(L);
    lplan *u = check_args(L, 4);
    int64_t one, *a = check_amounts(L, u, 2, &one);
    int64_t d = check_duration(L, 3);
    int64_t t0 = next ? luaL_checkinteger(L, 4) : luaL_optinteger(L, 4, start_of(u));
    int64_t t = next ? next_fit_of(u, a, d, t0) : earliest_of(u, a, d, t0);
    if (t < 0)
        return plan_fail(L, u, t0, d, a, true);
    lua_pushinteger(L, t);
    return 1;
}

/* Iterator of fit_times: upvalues the handle, the amounts (a scratch
 * vector), d, the next value (or false when spent) and the class; each
 * call computes the one after. */
static int fit_times_iter(lua_State *L)
{
    const lplan *u = lua_touserdata(L, lua_upvalueindex(1));
    grovel_handle_alive(L, &u->h, lua_touserdata(L, lua_upvalueindex(5)));
    if (!lua_toboolean(L, lua_upvalueindex(4)))
        return 0;
    int64_t t = lua_tointeger(L, lua_upvalueindex(4));
    int64_t next = next_fit_of(u, lua_touserdata(L, lua_upvalueindex(2)),
                               lua_tointeger(L, lua_upvalueindex(3)), t);
    if (next < 0)
        lua_pushboolean(L, 0);
    else
        lua_pushinteger(L, next);
    lua_replace(L, lua_upvalueindex(4));
    lua_pushinteger(L, t);
    return 1;
}

static int l_fit_times(lua_State *L)
{
    lplan *u = check_args(L, 4);
    int64_t one, *a = check_amounts(L, u, 2, &one);
    int64_t d = check_duration(L, 3);
    int64_t t0 = luaL_optinteger(L, 4, start_of(u));
    int64_t t = earliest_of(u, a, d, t0);
    if (t < 0 && errno != EBUSY)
        return plan_fail(L, u, t0, d, a, true);
    lua_pushvalue(L, 1);
    if (u->mp)
        lua_pushvalue(L, 5); /* the scratch vector of the counts */
    else
        *scratch(L, 1) = *a;
    lua_pushinteger(L, d);
    if (t < 0)
        lua_pushboolean(L, 0);
    else
        lua_pushinteger(L, t);
    lua_pushvalue(L, lua_upvalueindex(1)); /* the class */
    lua_pushcclosure(L, fit_times_iter, 5);
    return 1;
}

static int l_max_used(lua_State *L)
{
    lplan *u = check_args(L, 1);
    int64_t one, *v = result_vector(L, u, &one);
    for (size_t i = 0; i < nslots(u); i++)
        v[i] = max_used_of(u, i);
    push_amounts(L, u, v);
    return 1;
}

static int l_copy(lua_State *L)
{
    lplan *u = check_open(L);
    grove_planner_t *p = u->p ? grove_planner_copy(u->p) : NULL;
    grove_mplanner_t *mp = u->mp ? grove_mplanner_copy(u->mp) : NULL;
    if (!p && !mp)
        return grovel_fail_errno(L, errno, NULL);
    push_handle(L, p, mp);
    return 1;
}

static int l_span_count(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)span_count_of(check_open(L)));
    return 1;
}

static int l_range(lua_State *L)
{
    lplan *u = check_open(L);
    lua_pushinteger(L, start_of(u));
    lua_pushinteger(L, end_of(u));
    return 2;
}

/* "planner(total=44, spans=0, [0, 3600))" or "mplanner(core=88, gpu=8;
 * spans=0, [0, 3600))". */
static void describe(lua_State *L, void *p)
{
    (void)p; /* the handle at 1 */
    cut_args(L, 1);
    const lplan *u = lua_touserdata(L, 1);
    const char *name = kind_of(L)->c.label;
    if (u->mp) {
        int64_t *v = scratch(L, nslots(u));
        for (size_t i = 0; i < nslots(u); i++)
            v[i] = total_of(u, i);
        lua_pushfstring(L, "%s;", push_counts_text(L, u->mp, v));
    } else {
        lua_pushfstring(L, "total=%I,", LI(total_of(u, 0)));
    }
    lua_pushfstring(L, "%s(%s spans=%I, " WIN ")", name, lua_tostring(L, -1),
                    LI(span_count_of(u)), LI(start_of(u)), LI(end_of(u)));
}

/* ---- grove.planner ----------------------------------------------------- */

/* core.planner{total=, horizon=, start=} or core.planner(total, horizon [, start]) */
static int l_planner_new(lua_State *L)
{
    int64_t total, horizon, start;
    if (lua_type(L, 1) == LUA_TTABLE) {
        static const char *const names[] = {"total", "horizon", "start", NULL};
        grovel_check_keys(L, 1, names, 1, "unknown field '%s'");
        total = field_int(L, 1, "total", 1, 0);
        horizon = field_int(L, 1, "horizon", 1, 0);
        start = field_int(L, 1, "start", 0, 0);
    } else {
        total = luaL_checkinteger(L, 1);
        horizon = luaL_checkinteger(L, 2);
        start = luaL_optinteger(L, 3, 0);
    }
    luaL_argcheck(L, total >= 0, 1, "total must be >= 0");
    luaL_argcheck(L, total <= GROVE_PLANNER_TOTAL_MAX, 1, "total is too large");
    check_horizon(L, 1, start, horizon);
    grove_planner_t *p = grove_planner_create(total, start, horizon);
    if (!p)
        return grovel_fail_errno(L, errno, NULL);
    push_handle(L, p, NULL);
    return 1;
}

static int p_next_change(lua_State *L)
{
    lplan *u = check_open(L);
    int64_t t = grove_planner_next_change(u->p, luaL_checkinteger(L, 2));
    if (t < 0)
        return grovel_fail(L, "no later change", "ENOENT");
    lua_pushinteger(L, t);
    return 1;
}

static int p_resize(lua_State *L)
{
    grove_planner_t *p = check_open(L)->p;
    int64_t total = check_nonneg(L, 2, "total");
    luaL_argcheck(L, total <= GROVE_PLANNER_TOTAL_MAX, 2, "total is too large");
    if (grove_planner_resize(p, total) < 0) {
        lua_pushfstring(L, "cannot shrink the total to %I: %I units are in use at the busiest time",
                        LI(total), LI(grove_planner_max_used(p)));
        return grovel_fail(L, lua_tostring(L, -1), "EBUSY");
    }
    return grovel_ok(L);
}

static int p_total(lua_State *L)
{
    lua_pushinteger(L, grove_planner_total(check_open(L)->p));
    return 1;
}

/* ---- grove.mplanner ---------------------------------------------------- */

/* The types and totals tables (at -2 and -1) of core.mplanner's argument
 * as vectors of n (pushed, kept alive by the stack). */
static void check_types(lua_State *L, lua_Integer n, const char ***types, int64_t **totals)
{
    int tt = lua_absindex(L, -2), tv = lua_absindex(L, -1);
    *types = lua_newuserdatauv(L, sizeof(char *) * (size_t)n, 0);
    *totals = scratch(L, (size_t)n);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, tt, i);
        if (lua_type(L, -1) != LUA_TSTRING || lua_rawlen(L, -1) == 0)
            luaL_argerror(L, 1, lua_pushfstring(L, "types[%I] must be a non-empty string",
                                                LI(i)));
        (*types)[i - 1] = lua_tostring(L, -1); /* kept alive by the types table */
        lua_pop(L, 1);
        lua_geti(L, tv, i);
        int isnum;
        (*totals)[i - 1] = (int64_t)lua_tointegerx(L, -1, &isnum);
        if (!isnum || (*totals)[i - 1] < 0 || (*totals)[i - 1] > GROVE_PLANNER_TOTAL_MAX)
            luaL_argerror(L, 1, lua_pushfstring(L, "totals[%I] must be an integer in [0, %I]",
                                                LI(i), LI(GROVE_PLANNER_TOTAL_MAX)));
        lua_pop(L, 1);
    }
}

/* core.mplanner{types=, totals=, horizon= [, start=]} */
static int l_mplanner_new(lua_State *L)
{
    static const char *const names[] = {"types", "totals", "horizon", "start", NULL};
    luaL_checktype(L, 1, LUA_TTABLE);
    grovel_check_keys(L, 1, names, 1, "unknown field '%s'");
    int64_t horizon = field_int(L, 1, "horizon", 1, 0);
    int64_t start = field_int(L, 1, "start", 0, 0);
    check_horizon(L, 1, start, horizon);
    if (lua_getfield(L, 1, "types") != LUA_TTABLE)
        luaL_argerror(L, 1, "field 'types' must be a table of names");
    if (lua_getfield(L, 1, "totals") != LUA_TTABLE)
        luaL_argerror(L, 1, "field 'totals' must be a table of integers");
    lua_Integer n = luaL_len(L, -2);
    luaL_argcheck(L, n >= 1 && n <= 1024, 1, "field 'types' must list 1 to 1024 names");
    luaL_argcheck(L, luaL_len(L, -1) == n, 1, "fields 'types' and 'totals' differ in length");
    const char **types;
    int64_t *totals;
    check_types(L, n, &types, &totals);
    grove_mplanner_t *mp = grove_mplanner_create(types, totals, (size_t)n, start, horizon);
    if (!mp && errno == EEXIST)
        return luaL_argerror(L, 1, "field 'types' names a type twice");
    if (!mp)
        return grovel_fail_errno(L, errno, NULL);
    push_handle(L, NULL, mp);
    return 1;
}

static int m_resize(lua_State *L)
{
    lplan *u = check_args(L, 2);
    grove_mplanner_t *mp = u->mp;
    size_t n = nslots(u);
    int64_t *given = check_counts(L, mp, 2, "total");
    int64_t *totals = scratch(L, n), *busiest = scratch(L, n);
    /* Types the table leaves out keep their total. */
    for (size_t i = 0; i < n; i++) {
        lua_getfield(L, 2, grove_mplanner_type_name(mp, i));
        totals[i] = lua_isnil(L, -1) ? grove_mplanner_total(mp, i) : given[i];
        lua_pop(L, 1);
        busiest[i] = grove_mplanner_max_used(mp, i);
    }
    if (grove_mplanner_resize(mp, totals) < 0) {
        size_t i = first_above(u, busiest, totals);
        lua_pushfstring(L, "cannot shrink %s to %I: %I are in use at the busiest time",
                        grove_mplanner_type_name(mp, i), LI(totals[i]), LI(busiest[i]));
        return grovel_fail(L, lua_tostring(L, -1), "EBUSY");
    }
    return grovel_ok(L);
}

static int m_totals(lua_State *L)
{
    lplan *u = check_args(L, 1);
    int64_t *v = scratch(L, nslots(u));
    for (size_t i = 0; i < nslots(u); i++)
        v[i] = total_of(u, i);
    push_amounts(L, u, v);
    return 1;
}

static int m_total(lua_State *L)
{
    grove_mplanner_t *mp = check_open(L)->mp;
    const char *name = luaL_checkstring(L, 2);
    int i = grove_mplanner_type_index(mp, name);
    if (i < 0)
        return luaL_argerror(L, 2, lua_pushfstring(L, "unknown resource type '%s'", name));
    lua_pushinteger(L, grove_mplanner_total(mp, (size_t)i));
    return 1;
}

static const char *type_name_at(const void *mp, size_t i)
{
    return grove_mplanner_type_name(mp, i);
}

static int m_types(lua_State *L)
{
    grove_mplanner_t *mp = check_open(L)->mp;
    grovel_push_strings(L, mp, grove_mplanner_ntypes(mp), type_name_at);
    return 1;
}

#include "api_planner.h"
