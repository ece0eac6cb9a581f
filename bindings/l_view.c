/* l_view.c: the vertex views policy hooks see (grove.policy.vertex).
 *
 * A view is a read-only handle on one vertex of the graph a policy's match
 * runs on.  Views live in the policy's own sandbox state (lsandbox.h): each
 * is a light userdata that encodes the vertex id and the policy's view
 * epoch, so making one allocates nothing, the same vertex is the same
 * (equal, same table key) view in every hook, and the views cost the
 * policy's memory cap nothing.  A view answers only while its policy runs
 * a match; one kept from a match on another graph or matcher (an older
 * epoch) raises.
 *
 * Time: a view's available(), aggregate() and allocated() answer for the
 * window the matcher is trying (ctx.start, ctx["end"]) unless given other
 * times, so a policy reserving a job into the future sees what is free
 * then, not now.
 *
 * What a hook reads: while a score or prune call runs (vs->watch), each
 * method that reads records says so before it answers (view_read):
 * records of the candidate scored and below it during the window are a
 * local score's input; records at times of the hook's own, of another
 * vertex or now (the clock), and in a scores call a way from one
 * candidate to the others, are not, and a policy that declared so raises
 * there (grovel_views_note).  The graph's content (names, properties,
 * status, structure) is read freely: any change of it makes every kept
 * ranking anew.
 *
 * This file holds the view class: how a view is made, checked and shown,
 * and its time-aware methods.  It must not hold the read methods every
 * vertex class shares (l_vertex.c) nor anything of the sandbox or the
 * hooks (l_sandbox.c, l_policy.c).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "lgraph.h"
#include "lpolicy.h"
#include "lsandbox.h"
_Static_assert(sizeof(uintptr_t) >= 8, "a view packs an epoch and a vertex id in a pointer");


/* The view state of the sandbox S: set by grovel_views_open. */
static struct grovel_views *views_of(lua_State *S)
{
    return grovel_sandbox_of(S)->views; /* no registry lookup: a method call reads it twice */
}

void grovel_push_view(lua_State *S, const struct grovel_views *vs, grove_vid_t v)
{
    lua_pushlightuserdata(S, (void *)(((uintptr_t)vs->epoch << 32) | (uintptr_t)v));
}

grove_vid_t grovel_test_view(lua_State *S, int idx, const struct grovel_views *vs)
{
    if (lua_type(S, idx) != LUA_TLIGHTUSERDATA)
        return GROVE_VID_NONE;
    uintptr_t x = (uintptr_t)lua_touserdata(S, idx);
    if ((uint32_t)(x >> 32) != vs->epoch || !vs->g)
        return GROVE_VID_NONE;
    return (grove_vid_t)(x & 0xffffffffu);
}

/* ---- what a hook reads ------------------------------------------------- */

void grovel_views_note(lua_State *S, struct grovel_views *vs, unsigned bits, const char *what,
                       grove_vid_t v)
{
    if (!vs->watch)
        return;
    vs->rd |= bits;
    if (!(bits & vs->deny))
        return;
    if (v != GROVE_VID_NONE && vs->g && grove_graph_has_vertex(vs->g, v)) {
        const char *label = grovel_push_label(S, vs->g, v);
        luaL_error(S, "%s of %s: %s", what, label, vs->denied);
    }
    luaL_error(S, "%s: %s", what, vs->denied);
}

/* Is v the candidate being scored or below it (one of a scores call's
 * candidates, or below one)? */
static bool in_candidate(const struct grovel_views *vs, grove_vid_t v)
{
    for (grove_vid_t a = v; a != GROVE_VID_NONE; a = grove_vertex_parent(vs->g, a, vs->contain)) {
        if (vs->cand != GROVE_VID_NONE ? a == vs->cand
                                       : a < vs->ncmark && vs->cmark[a] == vs->cgen)
            return true;
    }
    return false;
}

/* The class's read: what method what of the view of v reads (how). */
static void view_read(lua_State *S, grove_vid_t v, int how, const char *what)
{
    struct grovel_views *vs = views_of(S);
    if (!vs || !vs->watch)
        return;
    unsigned bits;
    switch (how) {
    case GROVEL_VREAD_KV: vs->kvreads++; return;
    case GROVEL_VREAD_KIN: bits = vs->scores ? GROVE_READ_OTHER : 0; break;
    case GROVEL_VREAD_CLOCK: bits = GROVE_READ_OTHER | GROVEL_READ_RECORDS; break;
    default:
        bits = GROVEL_READ_RECORDS | (how == GROVEL_VREAD_TIMES ? GROVE_READ_WINDOW : 0)
               | (in_candidate(vs, v) ? 0 : GROVE_READ_OTHER);
        break;
    }
    if (bits)
        grovel_views_note(S, vs, bits, what, v);
}

/* ---- the class --------------------------------------------------------- */

static grove_graph_t *view_check(lua_State *S, int idx, grove_vid_t *v)
{
    if (lua_type(S, idx) != LUA_TLIGHTUSERDATA)
        luaL_typeerror(S, idx, GROVEL_PVERTEX);
    struct grovel_views *vs = views_of(S);
    uintptr_t x = (uintptr_t)lua_touserdata(S, idx);
    if (!vs || !vs->g || (uint32_t)(x >> 32) != vs->epoch)
        luaL_error(S, "a policy's vertex can be used only while its match runs");
    if (vs->watch)
        vs->checks++;
    *v = (grove_vid_t)(x & 0xffffffffu);
    if (!grove_graph_has_vertex(vs->g, *v))
        luaL_argerror(S, idx, "vertex was removed from its graph");
    return vs->g;
}

static void view_push_kin(lua_State *S, int idx, int uv, grove_vid_t v)
{
    (void)idx;
    (void)uv;
    grovel_push_view(S, views_of(S), v);
}

static int pv_tostring(lua_State *S)
{
    struct grovel_views *vs = views_of(S);
    uintptr_t x = (uintptr_t)lua_touserdata(S, 1);
    if (vs && vs->watch)
        vs->checks++; /* it names the vertex */
    grove_vid_t v = (grove_vid_t)(x & 0xffffffffu);
    if (!vs || !vs->g || (uint32_t)(x >> 32) != vs->epoch)
        lua_pushfstring(S, "grove.policy.vertex (%I, outside its match)", (lua_Integer)v);
    else if (!grove_graph_has_vertex(vs->g, v))
        lua_pushliteral(S, "grove.policy.vertex (removed)");
    else
        grovel_push_label(S, vs->g, v);
    return 1;
}

/* id(), rank(), size() and vid() of a view: what l_vertex.c's methods
 * answer for every vertex class, here without asking the class for its
 * check and the method for its row, since a policy calls them per
 * candidate and per comparison of a sort. */
static int pv_optional(lua_State *S, int64_t x)
{
    if (x == GROVE_ID_NONE)
        lua_pushnil(S);
    else
        lua_pushinteger(S, (lua_Integer)x);
    return 1;
}

static int pv_id(lua_State *S)
{
    grove_vid_t v;
    grove_graph_t *g = view_check(S, 1, &v);
    return pv_optional(S, grove_vertex_id(g, v));
}

static int pv_rank(lua_State *S)
{
    grove_vid_t v;
    grove_graph_t *g = view_check(S, 1, &v);
    return pv_optional(S, grove_vertex_rank(g, v));
}

static int pv_size(lua_State *S)
{
    grove_vid_t v;
    grove_graph_t *g = view_check(S, 1, &v);
    lua_pushinteger(S, (lua_Integer)grove_vertex_size(g, v));
    return 1;
}

static int pv_vid(lua_State *S)
{
    grove_vid_t v;
    view_check(S, 1, &v);
    lua_pushinteger(S, (lua_Integer)v);
    return 1;
}

/* The window of the match being tried, or [start, start + dur) when the
 * arguments at arg, arg + 1 give one; what method what of v reads is
 * told (view_read). */
static void window(lua_State *S, int arg, const struct grovel_views *vs, const grove_graph_t *g,
                   int64_t *start, int64_t *end, grove_vid_t v, const char *what)
{
    bool given = !lua_isnoneornil(S, arg) || !lua_isnoneornil(S, arg + 1);
    if (vs->watch)
        view_read(S, v, given ? GROVEL_VREAD_TIMES
                              : vs->end > vs->start ? GROVEL_VREAD_WINDOW : GROVEL_VREAD_CLOCK,
                  what);
    if (!given && vs->end > vs->start) {
        *start = vs->start;
        *end = vs->end;
        return;
    }
    lua_Integer s = luaL_optinteger(S, arg, vs->end > vs->start ? vs->start : grove_graph_now(g));
    lua_Integer d = luaL_optinteger(S, arg + 1, 1);
    luaL_argcheck(S, s >= 0, arg, "start must be >= 0");
    luaL_argcheck(S, d > 0, arg + 1, "duration must be > 0");
    *start = s;
    *end = d > GROVE_TIME_MAX - s ? GROVE_TIME_MAX : s + d;
}

/* available([start [, dur]]): free units of the pool throughout the window
 * being tried (or the one given). */
static int pv_available(lua_State *S)
{
    grove_vid_t v;
    grove_graph_t *g = view_check(S, 1, &v);
    int64_t s, e;
    window(S, 2, views_of(S), g, &s, &e, v, "available()");
    lua_pushinteger(S, (lua_Integer)grove_vertex_available_during(g, v, s, e));
    return 1;
}

/* allocated([t]): units allocated at t (default: the window's start). */
static int pv_allocated(lua_State *S)
{
    grove_vid_t v;
    grove_graph_t *g = view_check(S, 1, &v);
    const struct grovel_views *vs = views_of(S);
    if (vs->watch)
        view_read(S, v, !lua_isnoneornil(S, 2) ? GROVEL_VREAD_TIMES
                        : vs->end > vs->start  ? GROVEL_VREAD_WINDOW
                                               : GROVEL_VREAD_CLOCK,
                  "allocated()");
    lua_Integer t = luaL_optinteger(S, 2, vs->end > vs->start ? vs->start : grove_graph_now(g));
    lua_pushinteger(S, (lua_Integer)grove_vertex_allocated_at(g, v, t));
    return 1;
}

/* What grove_vertex_aggregate_window reports, gathered without touching Lua
 * (a Lua error must not unwind through the core's walk): counted first,
 * then written into a buffer the Lua collector owns. */
struct aggrows {
    size_t n, cap;
    struct aggrow {
        const char *type; /* interned in the graph: valid while it lives */
        int64_t units;
    } *row;
};

static void agg_row(const char *type, int64_t units, void *arg)
{
    struct aggrows *a = arg;
    if (a->row && a->n < a->cap)
        a->row[a->n] = (struct aggrow){type, units};
    a->n++;
}

static int push_aggregate(lua_State *S, const grove_graph_t *g, grove_vid_t v, int64_t s,
                          int64_t e)
{
    struct aggrows a = {0, 0, NULL};
    if (grove_vertex_aggregate_window(g, v, s, e, agg_row, &a) < 0)
        return -1;
    a.cap = a.n;
    a.row = lua_newuserdatauv(S, (a.cap ? a.cap : 1) * sizeof(*a.row), 0);
    a.n = 0;
    if (grove_vertex_aggregate_window(g, v, s, e, agg_row, &a) < 0)
        return -1;
    lua_createtable(S, 0, (int)a.n);
    for (size_t i = 0; i < a.n && i < a.cap; i++) {
        lua_pushinteger(S, (lua_Integer)a.row[i].units);
        lua_setfield(S, -2, a.row[i].type);
    }
    lua_remove(S, -2);
    return 0;
}

/* One type's units, for aggregate(type): what grove_vertex_aggregate_window
 * reports for it. */
struct onetype {
    const char *type;
    int64_t units;
};

static void one_row(const char *type, int64_t units, void *arg)
{
    struct onetype *o = arg;
    if (!strcmp(type, o->type))
        o->units += units;
}

/* aggregate([start [, dur]]): {type = free units} below the vertex during
 * the window, from its pruning aggregates (the ones the matcher prunes
 * with: no walk) when it keeps them, else by walking its subtree.
 * aggregate(type [, start [, dur]]): the free units of that one type (0
 * when none), from the aggregate when the vertex keeps one for the type;
 * a type no request on the graph may name (grovel_type_known) raises. */
static int pv_aggregate(lua_State *S)
{
    grove_vid_t v;
    grove_graph_t *g = view_check(S, 1, &v);
    int64_t s, e;
    if (lua_type(S, 2) == LUA_TSTRING) {
        size_t len;
        struct onetype o = {lua_tolstring(S, 2, &len), 0};
        struct grovel_views *vs = views_of(S);
        if (lua_gettop(S) == 2 && vs->end > vs->start) { /* the window being tried */
            if (vs->watch)
                view_read(S, v, GROVEL_VREAD_WINDOW, "aggregate()");
            s = vs->start;
            e = vs->end;
        } else {
            window(S, 3, vs, g, &s, &e, v, "aggregate()");
        }
        if (len != vs->tlen || memcmp(o.type, vs->tname, len) != 0) {
            /* a name no request on g may name (a misspelt type) raises
             * here, once: a known name is kept below and not looked at
             * again while the policy asks every candidate about it */
            if (strlen(o.type) != len)
                return luaL_argerror(S, 2, "a type name holds no NUL byte");
            if (!grovel_type_known(g, o.type))
                return luaL_error(S, "aggregate: %s",
                                  grovel_push_unknown_type(S, vs->host, g, o.type));
            grove_sym_t t = grove_graph_sym_lookup(g, o.type);
            /* only a name the graph holds (a symbol is never dropped), with
             * no NUL inside (the lookup reads up to one) */
            vs->tlen = t != GROVE_SYM_NONE && len < sizeof(vs->tname) && strlen(o.type) == len
                           ? len
                           : 0;
            memcpy(vs->tname, o.type, vs->tlen);
            vs->tsym = t;
        }
        int64_t n = vs->tlen ? grove_vertex_aggregate_avail_sym(g, v, vs->tsym, s, e)
                             : grove_vertex_aggregate_avail(g, v, o.type, s, e);
        if (n < 0 && errno != ENOENT)
            return luaL_error(S, "aggregate: %s", strerror(errno));
        if (n < 0 && grove_vertex_aggregate_window(g, v, s, e, one_row, &o) < 0)
            return luaL_error(S, "aggregate: %s", strerror(errno));
        lua_pushinteger(S, (lua_Integer)(n < 0 ? o.units : n));
        return 1;
    }
    window(S, 2, views_of(S), g, &s, &e, v, "aggregate()");
    if (push_aggregate(S, g, v, s, e) < 0)
        return luaL_error(S, "aggregate: %s", strerror(errno));
    return 1;
}

static const struct grovel_vclass view_class = {
    {.tname = GROVEL_PVERTEX},
    view_check,
    view_push_kin,
    true,
    view_read,
};

#include "api_view.h" /* grovel_open_view registers nothing: views exist only in sandboxes */

void grovel_views_open(lua_State *S, struct grovel_views *vs)
{
    grovel_sandbox_of(S)->views = vs;
    lua_newtable(S); /* what grovel_class_open takes as the module table */
    grovel_vclass_open(S, &view_class, api_grove_policy_vertex);
    luaL_getmetatable(S, GROVEL_PVERTEX);
    lua_pushliteral(S, GROVEL_PVERTEX);
    lua_setfield(S, -2, "__metatable");
    lua_pushlightuserdata(S, NULL);
    lua_pushvalue(S, -2);
    lua_setmetatable(S, -2); /* every light userdata of S is a view */
    lua_pop(S, 3);
}
