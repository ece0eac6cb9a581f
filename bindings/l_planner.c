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
#include <stdlib.h>
#include <string.h>

#include "grovel.h"
#include "lplanner.h"

typedef struct {
    grove_planner_t *p; /* NULL once closed */
    int owned;          /* free p on close */
} lplanner;

typedef struct {
    grove_mplanner_t *mp; /* NULL once closed */
    int owned;
} lmplanner;

/* ---- shared helpers -------------------------------------------------------- */

static int64_t check_nonneg(lua_State *L, int i, const char *what)
{
    lua_Integer v = luaL_checkinteger(L, i);
    if (v < 0)
        luaL_argerror(L, i, lua_pushfstring(L, "%s must be >= 0", what));
    return (int64_t)v;
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

/* Raise unless every key of the table at t is one of names (NULL-ended). */
static void only_fields(lua_State *L, int t, const char *const *names)
{
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        int known = 0;
        if (lua_type(L, -1) == LUA_TSTRING)
            for (const char *const *n = names; *n && !known; n++)
                known = strcmp(lua_tostring(L, -1), *n) == 0;
        if (!known)
            luaL_argerror(L, t, lua_pushfstring(L, "unknown field '%s'",
                                                luaL_tolstring(L, -1, NULL)));
    }
}

/* Check start >= 0, horizon >= 1 and the end within the limit. */
static void check_horizon(lua_State *L, int arg, int64_t start, int64_t horizon)
{
    luaL_argcheck(L, start >= 0, arg, "start must be >= 0");
    luaL_argcheck(L, horizon >= 1, arg, "horizon must be >= 1");
    luaL_argcheck(L, horizon <= GROVE_PLANNER_TIME_MAX - start, arg,
                  "start + horizon is too large");
}

static int push_ids_sorted(lua_State *L, int64_t *ids, size_t n);

/* t + d for messages, saturating (d >= 0). */
static int64_t sat_add(int64_t t, int64_t d)
{
    return t > INT64_MAX - d ? INT64_MAX : t + d;
}

/* "[a, b)" windows in messages */
#define WIN "[%I, %I)"
#define LI(x) ((LUAI_UACINT)(x))

/* ---- grove.planner ----------------------------------------------------- */

static lplanner *to_lplanner(lua_State *L, int i)
{
    return luaL_checkudata(L, i, GROVEL_PLANNER_MT);
}

grove_planner_t *grovel_check_planner(lua_State *L, int i)
{
    lplanner *u = to_lplanner(L, i);
    if (!u->p)
        luaL_argerror(L, i, "planner is closed");
    return u->p;
}

void grovel_push_planner(lua_State *L, grove_planner_t *p, int owner_idx)
{
    if (owner_idx)
        owner_idx = lua_absindex(L, owner_idx);
    lplanner *u = lua_newuserdatauv(L, sizeof(*u), 1);
    u->p = p;
    u->owned = owner_idx == 0;
    luaL_setmetatable(L, GROVEL_PLANNER_MT);
    if (owner_idx) {
        lua_pushvalue(L, owner_idx);
        lua_setiuservalue(L, -2, 1);
    }
}

static int64_t check_amount(lua_State *L, int i)
{
    return check_nonneg(L, i, "amount");
}

static int64_t check_duration(lua_State *L, int i)
{
    return check_nonneg(L, i, "duration");
}

/* nil, message, code for a failed planner call (errno set by core). */
static int planner_fail(lua_State *L, const grove_planner_t *p, int64_t t, int64_t d,
                        int64_t amount)
{
    int e = errno;
    int64_t s = grove_planner_start(p), end = grove_planner_end(p);
    switch (e) {
    case ERANGE:
        if (d > end - s)
            lua_pushfstring(L, "duration %I exceeds the horizon length %I", LI(d), LI(end - s));
        else
            lua_pushfstring(L, "window " WIN " is outside the horizon " WIN, LI(t),
                            LI(sat_add(t, d)), LI(s), LI(end));
        break;
    case ENODEV:
        lua_pushfstring(L, "amount %I exceeds the total %I", LI(amount),
                        LI(grove_planner_total(p)));
        break;
    case EBUSY:
        lua_pushfstring(L, "fewer than %I units free during " WIN, LI(amount), LI(t), LI(t + d));
        break;
    default:
        return grovel_fail_errno(L, e, NULL);
    }
    return grovel_fail(L, lua_tostring(L, -1), grovel_errno_name(e));
}

/* core.planner{total=, horizon=, start=} or core.planner(total, horizon [, start]) */
static int l_planner_new(lua_State *L)
{
    int64_t total, horizon, start;
    if (lua_type(L, 1) == LUA_TTABLE) {
        static const char *const names[] = { "total", "horizon", "start", NULL };
        only_fields(L, 1, names);
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
    grovel_push_planner(L, p, 0);
    return 1;
}

static int l_add(lua_State *L)
{
    grove_planner_t *p = grovel_check_planner(L, 1);
    int64_t s = luaL_checkinteger(L, 2), d = check_duration(L, 3), a = check_amount(L, 4);
    int64_t id = grove_planner_add(p, s, d, a);
    if (id < 0)
        return planner_fail(L, p, s, d, a);
    lua_pushinteger(L, id);
    return 1;
}

static int no_span(lua_State *L, int64_t id)
{
    lua_pushfstring(L, "no span %I", LI(id));
    return grovel_fail(L, lua_tostring(L, -1), "ENOENT");
}

static int l_remove(lua_State *L)
{
    grove_planner_t *p = grovel_check_planner(L, 1);
    int64_t id = luaL_checkinteger(L, 2);
    if (grove_planner_remove(p, id) < 0)
        return no_span(L, id);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_reduce(lua_State *L)
{
    grove_planner_t *p = grovel_check_planner(L, 1);
    int64_t id = luaL_checkinteger(L, 2), a = check_amount(L, 3), held;
    int64_t left = grove_planner_reduce(p, id, a);
    if (left >= 0) {
        lua_pushinteger(L, left);
        return 1;
    }
    if (errno == ENOENT)
        return no_span(L, id);
    grove_planner_span(p, id, NULL, NULL, &held);
    lua_pushfstring(L, "cannot release %I units of span %I: it holds %I", LI(a), LI(id),
                    LI(held));
    return grovel_fail(L, lua_tostring(L, -1), "EINVAL");
}

static int l_span(lua_State *L)
{
    grove_planner_t *p = grovel_check_planner(L, 1);
    int64_t id = luaL_checkinteger(L, 2), s, d, a;
    if (grove_planner_span(p, id, &s, &d, &a) < 0)
        return no_span(L, id);
    lua_pushinteger(L, s);
    lua_pushinteger(L, d);
    lua_pushinteger(L, a);
    return 3;
}

static int cmp_ids(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Sort ids (taking ownership of the malloc'd array) into a new Lua array. */
static int push_ids_sorted(lua_State *L, int64_t *ids, size_t n)
{
    qsort(ids, n, sizeof(int64_t), cmp_ids);
    lua_createtable(L, n > INT32_MAX ? 0 : (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushinteger(L, ids[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    free(ids);
    return 1;
}

static int l_spans(lua_State *L)
{
    grove_planner_t *p = grovel_check_planner(L, 1);
    size_t n = grove_planner_span_count(p);
    int64_t *ids = malloc(sizeof(int64_t) * (n ? n : 1));
    if (!ids)
        return grovel_fail_errno(L, ENOMEM, NULL);
    for (size_t i = 0; i < n; i++)
        grove_planner_span_at(p, i, &ids[i], NULL, NULL, NULL);
    return push_ids_sorted(L, ids, n);
}

static int l_avail_at(lua_State *L)
{
    grove_planner_t *p = grovel_check_planner(L, 1);
    int64_t t = luaL_checkinteger(L, 2);
    int64_t v = grove_planner_avail_at(p, t);
    if (v < 0) {
        lua_pushfstring(L, "time %I is outside the horizon " WIN, LI(t),
                        LI(grove_planner_start(p)), LI(grove_planner_end(p)));
        return grovel_fail(L, lua_tostring(L, -1), "ERANGE");
    }
    lua_pushinteger(L, v);
    return 1;
}

static int l_avail_during(lua_State *L)
{
    grove_planner_t *p = grovel_check_planner(L, 1);
    int64_t t = luaL_checkinteger(L, 2), d = check_duration(L, 3);
    int64_t v = grove_planner_avail_during(p, t, d);
    if (v < 0)
        return planner_fail(L, p, t, d, 0);
    lua_pushinteger(L, v);
    return 1;
}

static int l_fits(lua_State *L)
{
    grove_planner_t *p = grovel_check_planner(L, 1);
    int64_t t = luaL_checkinteger(L, 2), d = check_duration(L, 3), a = check_amount(L, 4);
    int r = grove_planner_fits(p, t, d, a);
    if (r < 0)
        return planner_fail(L, p, t, d, a);
    lua_pushboolean(L, r);
    return 1;
}

/* Failure of earliest / next_fit: "no time" for EBUSY. */
static int search_fail(lua_State *L, const grove_planner_t *p, int64_t t, int64_t d,
                       int64_t a)
{
    if (errno == EBUSY)
        return grovel_fail(L, "no time", "EBUSY");
    if (errno == ERANGE && d <= grove_planner_end(p) - grove_planner_start(p)) {
        lua_pushfstring(L, "time %I is outside the horizon [%I, %I]", LI(t),
                        LI(grove_planner_start(p)), LI(grove_planner_end(p)));
        return grovel_fail(L, lua_tostring(L, -1), "ERANGE");
    }
    return planner_fail(L, p, t, d, a);
}

static int l_earliest(lua_State *L)
{
    grove_planner_t *p = grovel_check_planner(L, 1);
    int64_t a = check_amount(L, 2), d = check_duration(L, 3);
    int64_t t0 = luaL_optinteger(L, 4, grove_planner_start(p));
    int64_t t = grove_planner_earliest(p, a, d, t0);
    if (t < 0)
        return search_fail(L, p, t0, d, a);
    lua_pushinteger(L, t);
    return 1;
}

static int l_next_fit(lua_State *L)
{
    grove_planner_t *p = grovel_check_planner(L, 1);
    int64_t a = check_amount(L, 2), d = check_duration(L, 3), after = luaL_checkinteger(L, 4);
    int64_t t = grove_planner_next_fit(p, a, d, after);
    if (t < 0)
        return search_fail(L, p, after, d, a);
    lua_pushinteger(L, t);
    return 1;
}

/* Iterator of fit_times: upvalues planner, amount, d, next value (or false
 * when spent), then each call computes the one after. */
static int fit_times_iter(lua_State *L)
{
    grove_planner_t *p = ((lplanner *)lua_touserdata(L, lua_upvalueindex(1)))->p;
    if (!p)
        return luaL_error(L, "planner closed during iteration");
    if (!lua_toboolean(L, lua_upvalueindex(4)))
        return 0;
    int64_t t = lua_tointeger(L, lua_upvalueindex(4));
    int64_t next = grove_planner_next_fit(p, lua_tointeger(L, lua_upvalueindex(2)),
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
    grove_planner_t *p = grovel_check_planner(L, 1);
    int64_t a = check_amount(L, 2), d = check_duration(L, 3);
    int64_t t0 = luaL_optinteger(L, 4, grove_planner_start(p));
    int64_t t = grove_planner_earliest(p, a, d, t0);
    if (t < 0 && errno != EBUSY)
        return search_fail(L, p, t0, d, a);
    lua_pushvalue(L, 1);
    lua_pushinteger(L, a);
    lua_pushinteger(L, d);
    if (t < 0)
        lua_pushboolean(L, 0);
    else
        lua_pushinteger(L, t);
    lua_pushcclosure(L, fit_times_iter, 4);
    return 1;
}

static int l_next_change(lua_State *L)
{
    grove_planner_t *p = grovel_check_planner(L, 1);
    int64_t t = grove_planner_next_change(p, luaL_checkinteger(L, 2));
    if (t < 0)
        return grovel_fail(L, "no later change", "ENOENT");
    lua_pushinteger(L, t);
    return 1;
}

static int l_max_used(lua_State *L)
{
    lua_pushinteger(L, grove_planner_max_used(grovel_check_planner(L, 1)));
    return 1;
}

static int l_resize(lua_State *L)
{
    grove_planner_t *p = grovel_check_planner(L, 1);
    int64_t total = check_nonneg(L, 2, "total");
    luaL_argcheck(L, total <= GROVE_PLANNER_TOTAL_MAX, 2, "total is too large");
    if (grove_planner_resize(p, total) < 0) {
        lua_pushfstring(L, "cannot shrink the total to %I: %I units are in use at the busiest time",
                        LI(total), LI(grove_planner_max_used(p)));
        return grovel_fail(L, lua_tostring(L, -1), "EBUSY");
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int l_copy(lua_State *L)
{
    grove_planner_t *c = grove_planner_copy(grovel_check_planner(L, 1));
    if (!c)
        return grovel_fail_errno(L, errno, NULL);
    grovel_push_planner(L, c, 0);
    return 1;
}

static int l_total(lua_State *L)
{
    lua_pushinteger(L, grove_planner_total(grovel_check_planner(L, 1)));
    return 1;
}

static int l_span_count(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)grove_planner_span_count(grovel_check_planner(L, 1)));
    return 1;
}

static int l_range(lua_State *L)
{
    grove_planner_t *p = grovel_check_planner(L, 1);
    lua_pushinteger(L, grove_planner_start(p));
    lua_pushinteger(L, grove_planner_end(p));
    return 2;
}

/* __gc, __close and close(): idempotent. */
static int l_close(lua_State *L)
{
    lplanner *u = to_lplanner(L, 1);
    if (u->owned)
        grove_planner_destroy(u->p);
    u->p = NULL;
    return 0;
}

static int l_tostring(lua_State *L)
{
    lplanner *u = to_lplanner(L, 1);
    if (!u->p) {
        lua_pushliteral(L, "planner (closed)");
        return 1;
    }
    lua_pushfstring(L, "planner(total=%I, spans=%I, " WIN ")", LI(grove_planner_total(u->p)),
                    LI(grove_planner_span_count(u->p)), LI(grove_planner_start(u->p)),
                    LI(grove_planner_end(u->p)));
    return 1;
}

static const luaL_Reg planner_methods[] = {
    { "add", l_add },
    { "remove", l_remove },
    { "reduce", l_reduce },
    { "span", l_span },
    { "spans", l_spans },
    { "avail_at", l_avail_at },
    { "avail_during", l_avail_during },
    { "fits", l_fits },
    { "earliest", l_earliest },
    { "next_fit", l_next_fit },
    { "fit_times", l_fit_times },
    { "next_change", l_next_change },
    { "max_used", l_max_used },
    { "resize", l_resize },
    { "copy", l_copy },
    { "total", l_total },
    { "span_count", l_span_count },
    { "range", l_range },
    { "close", l_close },
    { NULL, NULL },
};

static const luaL_Reg planner_meta[] = {
    { "__gc", l_close },
    { "__close", l_close },
    { "__tostring", l_tostring },
    { NULL, NULL },
};

/* ---- grove.mplanner ---------------------------------------------------- */

static lmplanner *to_lmplanner(lua_State *L, int i)
{
    return luaL_checkudata(L, i, GROVEL_MPLANNER_MT);
}

grove_mplanner_t *grovel_check_mplanner(lua_State *L, int i)
{
    lmplanner *u = to_lmplanner(L, i);
    if (!u->mp)
        luaL_argerror(L, i, "mplanner is closed");
    return u->mp;
}

void grovel_push_mplanner(lua_State *L, grove_mplanner_t *mp, int owner_idx)
{
    if (owner_idx)
        owner_idx = lua_absindex(L, owner_idx);
    lmplanner *u = lua_newuserdatauv(L, sizeof(*u), 1);
    u->mp = mp;
    u->owned = owner_idx == 0;
    luaL_setmetatable(L, GROVEL_MPLANNER_MT);
    if (owner_idx) {
        lua_pushvalue(L, owner_idx);
        lua_setiuservalue(L, -2, 1);
    }
}

/* A scratch vector of n int64, owned by the Lua stack (a userdata pushed
 * there), so a raise in the middle leaks nothing. */
static int64_t *scratch(lua_State *L, size_t n)
{
    int64_t *v = lua_newuserdatauv(L, sizeof(int64_t) * n, 0);
    memset(v, 0, sizeof(int64_t) * n);
    return v;
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

/* Push {type = v[i], ...}. */
static void push_counts(lua_State *L, const grove_mplanner_t *mp, const int64_t *v)
{
    size_t n = grove_mplanner_ntypes(mp);
    lua_createtable(L, 0, (int)n);
    for (size_t i = 0; i < n; i++) {
        lua_pushinteger(L, v[i]);
        lua_setfield(L, -2, grove_mplanner_type_name(mp, i));
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

static int mplanner_fail(lua_State *L, const grove_mplanner_t *mp, int64_t t, int64_t d,
                         const int64_t *counts, int search)
{
    int e = errno;
    int64_t s = grove_mplanner_start(mp), end = grove_mplanner_end(mp);
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
    case ENODEV: {
        size_t n = grove_mplanner_ntypes(mp), i = 0;
        while (i + 1 < n && counts[i] <= grove_mplanner_total(mp, i))
            i++;
        lua_pushfstring(L, "%I %s exceed the total %I", LI(counts[i]),
                        grove_mplanner_type_name(mp, i), LI(grove_mplanner_total(mp, i)));
        break;
    }
    case EBUSY:
        if (search)
            return grovel_fail(L, "no time", "EBUSY");
        push_counts_text(L, mp, counts);
        lua_pushfstring(L, "not enough free during " WIN " for %s", LI(t), LI(t + d),
                        lua_tostring(L, -1));
        break;
    default:
        return grovel_fail_errno(L, e, NULL);
    }
    return grovel_fail(L, lua_tostring(L, -1), grovel_errno_name(e));
}

/* core.mplanner{types=, totals=, horizon= [, start=]} */
static int l_mplanner_new(lua_State *L)
{
    static const char *const names[] = { "types", "totals", "horizon", "start", NULL };
    luaL_checktype(L, 1, LUA_TTABLE);
    only_fields(L, 1, names);
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
    const char **types = lua_newuserdatauv(L, sizeof(char *) * (size_t)n, 0);
    int64_t *totals = scratch(L, (size_t)n);
    int tt = lua_absindex(L, -4), tv = lua_absindex(L, -3);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, tt, i);
        if (lua_type(L, -1) != LUA_TSTRING || lua_rawlen(L, -1) == 0)
            luaL_argerror(L, 1, lua_pushfstring(L, "types[%I] must be a non-empty string",
                                                LI(i)));
        types[i - 1] = lua_tostring(L, -1); /* kept alive by the types table */
        lua_pop(L, 1);
        lua_geti(L, tv, i);
        int isnum;
        totals[i - 1] = (int64_t)lua_tointegerx(L, -1, &isnum);
        if (!isnum || totals[i - 1] < 0 || totals[i - 1] > GROVE_PLANNER_TOTAL_MAX)
            luaL_argerror(L, 1, lua_pushfstring(L, "totals[%I] must be an integer in [0, %I]",
                                                LI(i), LI(GROVE_PLANNER_TOTAL_MAX)));
        lua_pop(L, 1);
    }
    grove_mplanner_t *mp = grove_mplanner_create(types, totals, (size_t)n, start, horizon);
    if (!mp && errno == EEXIST)
        return luaL_argerror(L, 1, "field 'types' names a type twice");
    if (!mp)
        return grovel_fail_errno(L, errno, NULL);
    grovel_push_mplanner(L, mp, 0);
    return 1;
}

static int m_add(lua_State *L)
{
    lua_settop(L, 4); /* scratch vectors go above the arguments */
    grove_mplanner_t *mp = grovel_check_mplanner(L, 1);
    int64_t s = luaL_checkinteger(L, 2), d = check_duration(L, 3);
    int64_t *c = check_counts(L, mp, 4, "count");
    int64_t id = grove_mplanner_add(mp, s, d, c);
    if (id < 0)
        return mplanner_fail(L, mp, s, d, c, 0);
    lua_pushinteger(L, id);
    return 1;
}

static int m_remove(lua_State *L)
{
    grove_mplanner_t *mp = grovel_check_mplanner(L, 1);
    int64_t id = luaL_checkinteger(L, 2);
    if (grove_mplanner_remove(mp, id) < 0)
        return no_span(L, id);
    lua_pushboolean(L, 1);
    return 1;
}

static int m_reduce(lua_State *L)
{
    lua_settop(L, 3); /* scratch vectors go above the arguments */
    grove_mplanner_t *mp = grovel_check_mplanner(L, 1);
    int64_t id = luaL_checkinteger(L, 2);
    int64_t *c = check_counts(L, mp, 3, "count");
    size_t n = grove_mplanner_ntypes(mp);
    int64_t *left = scratch(L, n);
    if (grove_mplanner_reduce(mp, id, c, left) == 0) {
        push_counts(L, mp, left);
        return 1;
    }
    if (errno == ENOENT)
        return no_span(L, id);
    grove_mplanner_span(mp, id, NULL, NULL, left);
    size_t i = 0;
    while (i + 1 < n && c[i] <= left[i])
        i++;
    lua_pushfstring(L, "cannot release %I %s of span %I: it holds %I", LI(c[i]),
                    grove_mplanner_type_name(mp, i), LI(id), LI(left[i]));
    return grovel_fail(L, lua_tostring(L, -1), "EINVAL");
}

static int m_span(lua_State *L)
{
    lua_settop(L, 2); /* scratch vectors go above the arguments */
    grove_mplanner_t *mp = grovel_check_mplanner(L, 1);
    int64_t id = luaL_checkinteger(L, 2), s, d;
    int64_t *c = scratch(L, grove_mplanner_ntypes(mp));
    if (grove_mplanner_span(mp, id, &s, &d, c) < 0)
        return no_span(L, id);
    lua_pushinteger(L, s);
    lua_pushinteger(L, d);
    push_counts(L, mp, c);
    return 3;
}

static int m_spans(lua_State *L)
{
    grove_mplanner_t *mp = grovel_check_mplanner(L, 1);
    size_t n = grove_mplanner_span_count(mp);
    int64_t *ids = malloc(sizeof(int64_t) * (n ? n : 1));
    if (!ids)
        return grovel_fail_errno(L, ENOMEM, NULL);
    for (size_t i = 0; i < n; i++)
        grove_mplanner_span_at(mp, i, &ids[i], NULL, NULL, NULL);
    return push_ids_sorted(L, ids, n);
}

static int m_avail_at(lua_State *L)
{
    lua_settop(L, 2); /* scratch vectors go above the arguments */
    grove_mplanner_t *mp = grovel_check_mplanner(L, 1);
    int64_t t = luaL_checkinteger(L, 2);
    int64_t *out = scratch(L, grove_mplanner_ntypes(mp));
    if (grove_mplanner_avail_at(mp, t, out) < 0) {
        lua_pushfstring(L, "time %I is outside the horizon " WIN, LI(t),
                        LI(grove_mplanner_start(mp)), LI(grove_mplanner_end(mp)));
        return grovel_fail(L, lua_tostring(L, -1), "ERANGE");
    }
    push_counts(L, mp, out);
    return 1;
}

static int m_avail_during(lua_State *L)
{
    lua_settop(L, 3); /* scratch vectors go above the arguments */
    grove_mplanner_t *mp = grovel_check_mplanner(L, 1);
    int64_t t = luaL_checkinteger(L, 2), d = check_duration(L, 3);
    int64_t *out = scratch(L, grove_mplanner_ntypes(mp));
    if (grove_mplanner_avail_during(mp, t, d, out) < 0)
        return mplanner_fail(L, mp, t, d, out, 0);
    push_counts(L, mp, out);
    return 1;
}

static int m_fits(lua_State *L)
{
    lua_settop(L, 4); /* scratch vectors go above the arguments */
    grove_mplanner_t *mp = grovel_check_mplanner(L, 1);
    int64_t t = luaL_checkinteger(L, 2), d = check_duration(L, 3);
    int64_t *c = check_counts(L, mp, 4, "count");
    int r = grove_mplanner_fits(mp, t, d, c);
    if (r < 0)
        return mplanner_fail(L, mp, t, d, c, 0);
    lua_pushboolean(L, r);
    return 1;
}

static int m_earliest(lua_State *L)
{
    lua_settop(L, 4); /* scratch vectors go above the arguments */
    grove_mplanner_t *mp = grovel_check_mplanner(L, 1);
    int64_t *c = check_counts(L, mp, 2, "count");
    int64_t d = check_duration(L, 3);
    int64_t t0 = luaL_optinteger(L, 4, grove_mplanner_start(mp));
    int64_t t = grove_mplanner_earliest(mp, c, d, t0);
    if (t < 0)
        return mplanner_fail(L, mp, t0, d, c, 1);
    lua_pushinteger(L, t);
    return 1;
}

static int m_next_fit(lua_State *L)
{
    lua_settop(L, 4); /* scratch vectors go above the arguments */
    grove_mplanner_t *mp = grovel_check_mplanner(L, 1);
    int64_t *c = check_counts(L, mp, 2, "count");
    int64_t d = check_duration(L, 3), after = luaL_checkinteger(L, 4);
    int64_t t = grove_mplanner_next_fit(mp, c, d, after);
    if (t < 0)
        return mplanner_fail(L, mp, after, d, c, 1);
    lua_pushinteger(L, t);
    return 1;
}

/* Upvalues: mplanner, counts (a scratch userdata), d, next value or false. */
static int m_fit_times_iter(lua_State *L)
{
    grove_mplanner_t *mp = ((lmplanner *)lua_touserdata(L, lua_upvalueindex(1)))->mp;
    if (!mp)
        return luaL_error(L, "mplanner closed during iteration");
    if (!lua_toboolean(L, lua_upvalueindex(4)))
        return 0;
    int64_t t = lua_tointeger(L, lua_upvalueindex(4));
    const int64_t *c = lua_touserdata(L, lua_upvalueindex(2));
    int64_t next = grove_mplanner_next_fit(mp, c, lua_tointeger(L, lua_upvalueindex(3)), t);
    if (next < 0)
        lua_pushboolean(L, 0);
    else
        lua_pushinteger(L, next);
    lua_replace(L, lua_upvalueindex(4));
    lua_pushinteger(L, t);
    return 1;
}

static int m_fit_times(lua_State *L)
{
    lua_settop(L, 4); /* scratch vectors go above the arguments */
    grove_mplanner_t *mp = grovel_check_mplanner(L, 1);
    int64_t *c = check_counts(L, mp, 2, "count"); /* the scratch is at index 5 */
    int64_t d = check_duration(L, 3);
    int64_t t0 = luaL_optinteger(L, 4, grove_mplanner_start(mp));
    int64_t t = grove_mplanner_earliest(mp, c, d, t0);
    if (t < 0 && errno != EBUSY)
        return mplanner_fail(L, mp, t0, d, c, 1);
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 5);
    lua_pushinteger(L, d);
    if (t < 0)
        lua_pushboolean(L, 0);
    else
        lua_pushinteger(L, t);
    lua_pushcclosure(L, m_fit_times_iter, 4);
    return 1;
}

static int m_max_used(lua_State *L)
{
    lua_settop(L, 1); /* scratch vectors go above the arguments */
    grove_mplanner_t *mp = grovel_check_mplanner(L, 1);
    size_t n = grove_mplanner_ntypes(mp);
    int64_t *v = scratch(L, n);
    for (size_t i = 0; i < n; i++)
        v[i] = grove_mplanner_max_used(mp, i);
    push_counts(L, mp, v);
    return 1;
}

static int m_resize(lua_State *L)
{
    lua_settop(L, 2); /* scratch vectors go above the arguments */
    grove_mplanner_t *mp = grovel_check_mplanner(L, 1);
    size_t n = grove_mplanner_ntypes(mp);
    int64_t *given = check_counts(L, mp, 2, "total");
    int64_t *totals = scratch(L, n);
    /* Types the table leaves out keep their total. */
    for (size_t i = 0; i < n; i++) {
        lua_getfield(L, 2, grove_mplanner_type_name(mp, i));
        totals[i] = lua_isnil(L, -1) ? grove_mplanner_total(mp, i) : given[i];
        lua_pop(L, 1);
    }
    if (grove_mplanner_resize(mp, totals) < 0) {
        size_t i = 0;
        while (i + 1 < n && totals[i] >= grove_mplanner_max_used(mp, i))
            i++;
        lua_pushfstring(L, "cannot shrink %s to %I: %I are in use at the busiest time",
                        grove_mplanner_type_name(mp, i), LI(totals[i]),
                        LI(grove_mplanner_max_used(mp, i)));
        return grovel_fail(L, lua_tostring(L, -1), "EBUSY");
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int m_copy(lua_State *L)
{
    grove_mplanner_t *c = grove_mplanner_copy(grovel_check_mplanner(L, 1));
    if (!c)
        return grovel_fail_errno(L, errno, NULL);
    grovel_push_mplanner(L, c, 0);
    return 1;
}

static int m_totals(lua_State *L)
{
    lua_settop(L, 1); /* scratch vectors go above the arguments */
    grove_mplanner_t *mp = grovel_check_mplanner(L, 1);
    size_t n = grove_mplanner_ntypes(mp);
    int64_t *v = scratch(L, n);
    for (size_t i = 0; i < n; i++)
        v[i] = grove_mplanner_total(mp, i);
    push_counts(L, mp, v);
    return 1;
}

static int m_total(lua_State *L)
{
    grove_mplanner_t *mp = grovel_check_mplanner(L, 1);
    const char *name = luaL_checkstring(L, 2);
    int i = grove_mplanner_type_index(mp, name);
    if (i < 0)
        return luaL_argerror(L, 2, lua_pushfstring(L, "unknown resource type '%s'", name));
    lua_pushinteger(L, grove_mplanner_total(mp, (size_t)i));
    return 1;
}

static int m_types(lua_State *L)
{
    grove_mplanner_t *mp = grovel_check_mplanner(L, 1);
    size_t n = grove_mplanner_ntypes(mp);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, grove_mplanner_type_name(mp, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int m_span_count(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)grove_mplanner_span_count(grovel_check_mplanner(L, 1)));
    return 1;
}

static int m_range(lua_State *L)
{
    grove_mplanner_t *mp = grovel_check_mplanner(L, 1);
    lua_pushinteger(L, grove_mplanner_start(mp));
    lua_pushinteger(L, grove_mplanner_end(mp));
    return 2;
}

static int m_close(lua_State *L)
{
    lmplanner *u = to_lmplanner(L, 1);
    if (u->owned)
        grove_mplanner_destroy(u->mp);
    u->mp = NULL;
    return 0;
}

static int m_tostring(lua_State *L)
{
    lua_settop(L, 1);
    lmplanner *u = to_lmplanner(L, 1);
    if (!u->mp) {
        lua_pushliteral(L, "mplanner (closed)");
        return 1;
    }
    size_t n = grove_mplanner_ntypes(u->mp);
    int64_t *v = scratch(L, n);
    for (size_t i = 0; i < n; i++)
        v[i] = grove_mplanner_total(u->mp, i);
    push_counts_text(L, u->mp, v);
    lua_pushfstring(L, "mplanner(%s; spans=%I, " WIN ")", lua_tostring(L, -1),
                    LI(grove_mplanner_span_count(u->mp)), LI(grove_mplanner_start(u->mp)),
                    LI(grove_mplanner_end(u->mp)));
    return 1;
}

static const luaL_Reg mplanner_methods[] = {
    { "add", m_add },
    { "remove", m_remove },
    { "reduce", m_reduce },
    { "span", m_span },
    { "spans", m_spans },
    { "avail_at", m_avail_at },
    { "avail_during", m_avail_during },
    { "fits", m_fits },
    { "earliest", m_earliest },
    { "next_fit", m_next_fit },
    { "fit_times", m_fit_times },
    { "max_used", m_max_used },
    { "resize", m_resize },
    { "copy", m_copy },
    { "totals", m_totals },
    { "total", m_total },
    { "types", m_types },
    { "span_count", m_span_count },
    { "range", m_range },
    { "close", m_close },
    { NULL, NULL },
};

static const luaL_Reg mplanner_meta[] = {
    { "__gc", m_close },
    { "__close", m_close },
    { "__tostring", m_tostring },
    { NULL, NULL },
};

int grovel_open_planner(lua_State *L)
{
    grovel_newclass(L, GROVEL_PLANNER_MT, planner_methods, planner_meta);
    grovel_newclass(L, GROVEL_MPLANNER_MT, mplanner_methods, mplanner_meta);
    grovel_setfunc(L, "planner", l_planner_new);
    grovel_setfunc(L, "mplanner", l_mplanner_new);
    return 0;
}
