/* l_policy_views.c: what a Lua policy's hooks are handed, in its sandbox.
 *
 * The ctx table (the request at the level being matched, the window, what
 * the match has found so far), each field made at its first read in a
 * call, which notes what the call read (lpolicy.h, grovel_views_note);
 * the candidates of a choose or
 * scores call as an array of views (l_view.c); and the keys table, whose
 * arrays of the candidates' keys (id, rank, size, a property, the units
 * free below each) are made in C at their first use in the call.
 *
 * Workload: one prune or score call after another, most reading a field
 * or two of ctx or none, so a field costs nothing until it is read (and
 * a call that read none nothing at the next); keys cost nothing until a
 * hook reads them.
 *
 * This file must not call hooks (l_policy_dispatch.c) or load policies
 * (l_policy.c); it only fills the sandbox's stack and tables.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lpolicy_private.h"

/* next(t, k), raw: the iterator of the __pairs here. */
static int raw_next(lua_State *S)
{
    lua_settop(S, 2);
    return lua_next(S, 1) ? 2 : 0;
}

/* ---- ctx ------------------------------------------------------------------------- */

/* ctx's fields.  Each is made at its first read in a call (ctx_index),
 * which is how what a hook reads is known: the reads of a call are
 * watched, the fields it read are noted, and at the next call every field
 * made is taken away again (grovelp_policy_set_ctx). */
enum { F_TYPE, F_COUNT, F_START, F_END, F_DURATION, F_TOTAL, F_FOUND, F_NEED, F_SLOT, F_SLOTS,
       F_JOB, F_ATTRIBUTES, F_N };
static const char *const ctx_fields[F_N] = {"type",  "count", "start", "end",  "duration",
                                            "total", "found", "need",  "slot", "slots",
                                            "job",   "attributes"};
static const char *const ctx_names[F_N] = {"ctx.type",  "ctx.count", "ctx.start", "ctx[\"end\"]",
                                           "ctx.duration", "ctx.total", "ctx.found", "ctx.need",
                                           "ctx.slot",  "ctx.slots", "ctx.job", "ctx.attributes"};
/* what reading each is (GROVE_READ_*): total says it per type (total_index) */
static const unsigned ctx_reads[F_N] = {
    GROVE_READ_TYPE,  GROVE_READ_COUNT, GROVE_READ_WINDOW, GROVE_READ_WINDOW, GROVE_READ_WINDOW,
    0,                GROVE_READ_OTHER, GROVE_READ_OTHER,  GROVE_READ_OTHER,  GROVE_READ_OTHER,
    GROVE_READ_OTHER, GROVE_READ_OTHER};

static int field_of(const char *k)
{
    for (int f = 0; f < F_N; f++)
        if (!strcmp(k, ctx_fields[f]))
            return f;
    return -1;
}

/* t[k] = the value on top (popped), raw: a metatable the policy set on
 * the table is not consulted. */
static void rawsetfield(lua_State *S, int t, const char *k)
{
    lua_pushstring(S, k);
    lua_insert(S, -2);
    lua_rawset(S, t);
}

/* Push the time v, nil for GROVE_TIME_MAX (no end). */
static void push_time(lua_State *S, int64_t v)
{
    if (v == GROVE_TIME_MAX)
        lua_pushnil(S);
    else
        lua_pushinteger(S, (lua_Integer)v);
}

static void push_units(lua_State *S, uint64_t n)
{
    lua_pushinteger(S, n > (uint64_t)LUA_MAXINTEGER ? LUA_MAXINTEGER : (lua_Integer)n);
}

/* The tables of ctx keyed by type, whose reading of a key that is no
 * type raises (type_index). */
enum { T_NEED, T_TOTAL, T_FOUND, T_SLOT, T_COUNT };
static const char *const typed_fields[T_COUNT] = {"need", "total", "found", "slot"};
static const char TYPED_META[T_COUNT] = {'n', 't', 'f', 's'}; /* registry keys */

/* Raise for key (at 2), no type a request on the graph may name, read
 * from ctx's table field: at the hook's line, with the closest type
 * offered and the request's types listed, so that ctx.need.gpus or
 * ctx.total.gpus (the type is gpu) says so rather than yielding a nil that
 * fails later and elsewhere ("score hook returned nil") or, tested with
 * `or 0`, never.  The offer runs in the host's state (the sandbox has no
 * grove.suggest), in a protected call: nothing the host does can unwind
 * the sandbox. */
static int unknown_type(lua_State *S, struct grovel_policy *p, const char *field)
{
    const grove_policy_request_t *r = p->cx.x.req;
    const char *key = lua_tostring(S, 2);
    char hint[128];
    grovel_type_hint(p->host, S, p->views.g, key, hint, sizeof(hint));
    luaL_Buffer b;
    luaL_buffinit(S, &b);
    luaL_where(S, 1);
    luaL_addvalue(&b);
    lua_pushfstring(S, "ctx.%s has no type '%s'%s: the request asks for ", field, key, hint);
    luaL_addvalue(&b);
    for (size_t k = 0; r && k < r->ntypes; k++) {
        if (k)
            luaL_addstring(&b, ", ");
        luaL_addstring(&b, r->names[k]);
    }
    lua_pushfstring(S, ", and the graph has no type '%s'", key);
    luaL_addvalue(&b);
    luaL_pushresult(&b);
    return lua_error(S);
}

/* __index of ctx.need, ctx.found and ctx.slot (upvalue 1: the policy, 2:
 * the field's name): a key that is a resource type a request on the graph
 * may name is one the table does not hold here, nil; any other raises
 * (unknown_type).  A key the table holds never comes here: this costs
 * nothing on the names a request asks for. */
static int type_index(lua_State *S)
{
    struct grovel_policy *p = lua_touserdata(S, lua_upvalueindex(1));
    if (lua_type(S, 2) != LUA_TSTRING || !p->views.g
        || grovel_type_known(p->views.g, lua_tostring(S, 2)))
        return 0;
    return unknown_type(S, p, lua_tostring(S, lua_upvalueindex(2)));
}

/* Does the policy's score_reads name ctx's field name ("type", "start",
 * ...; a type's name: ctx.total.NAME)?  Only for the fields of the
 * window and the types' totals: the others are told apart by their bits. */
static bool reads_declared(const struct grovel_policy *p, const char *name)
{
    for (size_t i = 0; p->reads && p->reads[i]; i++)
        if (!strcmp(p->reads[i], name) || !strcmp(p->reads[i], "total")
            || (!strncmp(p->reads[i], "total.", 6) && !strcmp(p->reads[i] + 6, name)))
            return true;
    return false;
}

/* Put ctx.total's entry for the request's k-th type into the table at t,
 * noting that it was read. */
static void total_entry(lua_State *S, struct grovel_policy *p, int t, size_t k)
{
    const grove_policy_request_t *r = p->cx.x.req;
    struct grovel_views *vs = &p->views;
    if (vs->watch) {
        /* a declaration that names some types' totals and not this one */
        if ((vs->deny & GROVE_READ_TOTAL) && !reads_declared(p, r->names[k])) {
            lua_pushfstring(S, "ctx.total.%s", r->names[k]);
            grovel_views_note(S, vs, GROVE_READ_TOTAL, lua_tostring(S, -1), GROVE_VID_NONE);
        }
        if (k < 64)
            vs->totals |= (uint64_t)1 << k;
        else
            vs->rd |= GROVE_READ_TOTAL;
    }
    push_units(S, r->total[k]);
    rawsetfield(S, t, r->names[k]);
}

/* __index of ctx.total (upvalue 1: the policy): the total of a type the
 * request names, made at its first read and noted; nil for another type
 * a request may name; any other key raises (unknown_type). */
static int total_index(lua_State *S)
{
    struct grovel_policy *p = lua_touserdata(S, lua_upvalueindex(1));
    const grove_policy_request_t *r = p->cx.x.req;
    if (lua_type(S, 2) != LUA_TSTRING || !p->views.g || !p->cx.valid || !r)
        return 0;
    const char *key = lua_tostring(S, 2);
    for (size_t k = 0; k < r->ntypes; k++)
        if (!strcmp(r->names[k], key)) {
            total_entry(S, p, 1, k);
            lua_pushvalue(S, 2);
            lua_rawget(S, 1);
            return 1;
        }
    if (grovel_type_known(p->views.g, key))
        return 0;
    return unknown_type(S, p, "total");
}

/* __pairs of ctx.total: every type's total, read. */
static int total_pairs(lua_State *S)
{
    struct grovel_policy *p = lua_touserdata(S, lua_upvalueindex(1));
    const grove_policy_request_t *r = p->cx.x.req;
    if (p->cx.valid && r) {
        grovel_views_note(S, &p->views, GROVE_READ_TOTAL, "pairs(ctx.total)", GROVE_VID_NONE);
        for (size_t k = 0; k < r->ntypes; k++)
            total_entry(S, p, 1, k);
    }
    lua_pushcfunction(S, raw_next);
    lua_pushvalue(S, 1);
    lua_pushnil(S);
    return 3;
}

/* Give the table on top the metatable of ctx's field which (T_*), made
 * at first use. */
static void typed_meta(lua_State *S, struct grovel_policy *p, int which)
{
    if (lua_rawgetp(S, LUA_REGISTRYINDEX, &TYPED_META[which]) != LUA_TTABLE) {
        lua_pop(S, 1);
        lua_createtable(S, 0, 3);
        lua_pushlightuserdata(S, p);
        if (which == T_TOTAL) {
            lua_pushcclosure(S, total_index, 1);
            lua_setfield(S, -2, "__index");
            lua_pushlightuserdata(S, p);
            lua_pushcclosure(S, total_pairs, 1);
            lua_setfield(S, -2, "__pairs");
        } else {
            lua_pushstring(S, typed_fields[which]);
            lua_pushcclosure(S, type_index, 2);
            lua_setfield(S, -2, "__index");
        }
        lua_pushboolean(S, 0); /* shared by every table of the field: not the policy's */
        lua_setfield(S, -2, "__metatable");
        lua_pushvalue(S, -1);
        lua_rawsetp(S, LUA_REGISTRYINDEX, &TYPED_META[which]);
    }
    lua_setmetatable(S, -2);
}

/* The types of the request at or below request vertex j, as a bit set
 * over req->names (the first 64 types). */
static uint64_t types_below(struct grovel_policy *p, const grove_policy_request_t *r,
                            const grove_jobspec_resource_t *lv)
{
    struct ctxstate *cx = &p->cx;
    size_t j = grove_jobspec_resource_index(lv);
    size_t n = grove_jobspec_resource_total(r->jobspec);
    if (n > cx->nbelow) { /* a cache: without room, recompute each time */
        size_t cap = cx->nbelow, cap2 = cx->nbelow;
        if (grow((void **)&cx->below, &cap, n, sizeof(*cx->below)) == 0
            && grow((void **)&cx->below_done, &cap2, n, sizeof(*cx->below_done)) == 0) {
            memset(cx->below_done + cx->nbelow, 0, (cap2 - cx->nbelow) * sizeof(bool));
            cx->nbelow = cap < cap2 ? cap : cap2;
        }
    }
    if (j < cx->nbelow && cx->below_done[j])
        return cx->below[j];
    uint64_t bits = 0;
    unsigned d = grove_jobspec_resource_depth(lv);
    for (size_t i = j; i < n; i++) {
        const grove_jobspec_resource_t *x = grove_jobspec_resource_at(r->jobspec, i);
        if (i > j && grove_jobspec_resource_depth(x) <= d)
            break;
        if (grove_jobspec_resource_is_slot(x))
            continue;
        for (size_t k = 0; k < r->ntypes && k < 64; k++)
            if (!strcmp(r->names[k], grove_jobspec_resource_type(x)))
                bits |= (uint64_t)1 << k;
    }
    if (j < cx->nbelow) {
        cx->below[j] = bits;
        cx->below_done[j] = true;
    }
    return bits;
}

/* The slot at or above the level, else the request's first; NULL when
 * the request has none. */
static const grove_jobspec_resource_t *slot_of(const grove_policy_request_t *r,
                                               const grove_jobspec_resource_t *lv)
{
    for (const grove_jobspec_resource_t *a = lv; a; a = grove_jobspec_resource_parent(a))
        if (grove_jobspec_resource_is_slot(a))
            return a;
    size_t n = grove_jobspec_resource_total(r->jobspec);
    for (size_t i = 0; i < n; i++)
        if (grove_jobspec_resource_is_slot(grove_jobspec_resource_at(r->jobspec, i)))
            return grove_jobspec_resource_at(r->jobspec, i);
    return NULL;
}

/* Push ctx.slot: {TYPE = units in one slot}, or nil. */
static void push_slot(lua_State *S, struct grovel_policy *p, const grove_policy_request_t *r,
                      const grove_jobspec_resource_t *slot)
{
    if (!slot) {
        lua_pushnil(S);
        return;
    }
    lua_createtable(S, 0, 4);
    int t = lua_gettop(S);
    size_t n = grove_jobspec_resource_total(r->jobspec);
    size_t j = grove_jobspec_resource_index(slot);
    unsigned d = grove_jobspec_resource_depth(slot);
    for (size_t i = j + 1; i < n; i++) {
        const grove_jobspec_resource_t *x = grove_jobspec_resource_at(r->jobspec, i);
        if (grove_jobspec_resource_depth(x) <= d)
            break;
        uint64_t per = 1;
        for (const grove_jobspec_resource_t *a = x; a != slot; a = grove_jobspec_resource_parent(a))
            per *= grove_jobspec_resource_count(a)->min;
        const char *type = grove_jobspec_resource_type(x);
        lua_pushstring(S, type);
        lua_Integer have = lua_rawget(S, t) == LUA_TNUMBER ? lua_tointeger(S, -1) : 0;
        lua_pop(S, 1);
        lua_pushinteger(S, have + (lua_Integer)per);
        rawsetfield(S, t, type);
    }
    typed_meta(S, p, T_SLOT);
}

/* Push ctx.found ({TYPE = units taken so far}) or ctx.need ({TYPE =
 * total - found} for the types at or below the level). */
static void push_progress(lua_State *S, struct grovel_policy *p, const grove_policy_request_t *r,
                          const grove_jobspec_resource_t *lv, bool need)
{
    uint64_t below = need && lv ? types_below(p, r, lv) : ~(uint64_t)0;
    lua_createtable(S, 0, (int)r->ntypes);
    int t = lua_gettop(S);
    for (size_t k = 0; k < r->ntypes; k++) {
        uint64_t f = r->found[k];
        if (!need) {
            push_units(S, f);
            rawsetfield(S, t, r->names[k]);
            continue;
        }
        if (k < 64 && !(below & ((uint64_t)1 << k)))
            continue;
        push_units(S, f >= r->total[k] ? 0 : r->total[k] - f);
        rawsetfield(S, t, r->names[k]);
    }
    typed_meta(S, p, need ? T_NEED : T_FOUND);
}

/* Push the value of ctx's field f in the call running. */
static void push_field(lua_State *S, struct grovel_policy *p, int f)
{
    const grove_policy_ctx_t *x = &p->cx.x;
    const grove_policy_request_t *r = x->req;
    const json_t *root, *attrs;
    const grove_jobspec_resource_t *slot;
    if (!r && f >= F_DURATION) {
        lua_pushnil(S);
        return;
    }
    switch (f) {
    case F_TYPE:
        if (x->type != GROVE_SYM_NONE)
            lua_pushstring(S, grove_graph_str(p->views.g, x->type));
        else
            lua_pushnil(S);
        break;
    case F_COUNT: push_units(S, x->count); break;
    case F_START: lua_pushinteger(S, (lua_Integer)x->start); break;
    case F_END: push_time(S, x->end); break;
    case F_DURATION: push_time(S, r->duration); break;
    case F_TOTAL: /* each type's made at its first read (total_index) */
        lua_createtable(S, 0, (int)r->ntypes);
        typed_meta(S, p, T_TOTAL);
        break;
    case F_FOUND: push_progress(S, p, r, x->level, false); break;
    case F_NEED: push_progress(S, p, r, x->level, true); break;
    case F_SLOT: push_slot(S, p, r, slot_of(r, x->level)); break;
    case F_SLOTS:
        if (!(slot = slot_of(r, x->level))) {
            lua_pushnil(S);
            break;
        }
        uint64_t slots = 1;
        for (const grove_jobspec_resource_t *a = slot; a; a = grove_jobspec_resource_parent(a))
            slots *= grove_jobspec_resource_count(a)->min;
        push_units(S, slots);
        break;
    case F_JOB: lua_pushinteger(S, (lua_Integer)r->job); break;
    default: /* F_ATTRIBUTES */
        root = grove_jobspec_json(r->jobspec);
        attrs = root ? json_object_get(root, "attributes") : NULL;
        if (attrs)
            grovel_push_json(S, attrs, false);
        else
            lua_createtable(S, 0, 0);
        break;
    }
}

/* Make ctx's field f (the table at 1) and note that it was read. */
static void make_field(lua_State *S, struct grovel_policy *p, int f)
{
    struct grovel_views *vs = &p->views;
    /* a declaration that names some of the window's fields, not this one */
    if (vs->watch && vs->deny && p->reads && (ctx_reads[f] & ~GROVE_READ_OTHER)
        && !reads_declared(p, ctx_fields[f]))
        vs->deny |= ctx_reads[f];
    if (ctx_reads[f])
        grovel_views_note(S, vs, ctx_reads[f], ctx_names[f], GROVE_VID_NONE);
    push_field(S, p, f);
    rawsetfield(S, 1, ctx_fields[f]);
    p->cx.made |= 1u << f;
}

/* __index of ctx (upvalue 1: the policy): a field, made. */
static int ctx_index(lua_State *S)
{
    struct grovel_policy *p = lua_touserdata(S, lua_upvalueindex(1));
    int f;
    if (lua_type(S, 2) != LUA_TSTRING || !p->cx.valid || (f = field_of(lua_tostring(S, 2))) < 0)
        return 0;
    make_field(S, p, f);
    lua_pushvalue(S, 2);
    lua_rawget(S, 1);
    return 1;
}

/* __newindex of ctx: what a hook writes there is state of its own,
 * which the next call would read (the fields made are taken away at the
 * next call, and what was written with them). */
static int ctx_newindex(lua_State *S)
{
    struct grovel_policy *p = lua_touserdata(S, lua_upvalueindex(1));
    grovel_views_note(S, &p->views, GROVE_READ_OTHER, "a write into ctx", GROVE_VID_NONE);
    lua_settop(S, 3);
    lua_rawset(S, 1);
    p->cx.wrote = true;
    return 0;
}

/* __pairs of ctx: every field, made (and so read). */
static int ctx_pairs(lua_State *S)
{
    struct grovel_policy *p = lua_touserdata(S, lua_upvalueindex(1));
    for (int f = 0; p->cx.valid && f < F_N; f++)
        if (!(p->cx.made & (1u << f)))
            make_field(S, p, f);
    lua_pushcfunction(S, raw_next);
    lua_pushvalue(S, 1);
    lua_pushnil(S);
    return 3;
}

void grovelp_policy_ctx_open(lua_State *S, struct grovel_policy *p)
{
    static const lua_CFunction mms[] = {ctx_index, ctx_newindex, ctx_pairs};
    static const char *const names[] = {"__index", "__newindex", "__pairs"};
    lua_createtable(S, 0, 4);
    for (size_t i = 0; i < 3; i++) {
        lua_pushlightuserdata(S, p);
        lua_pushcclosure(S, mms[i], 1);
        lua_setfield(S, -2, names[i]);
    }
    lua_pushboolean(S, 0);
    lua_setfield(S, -2, "__metatable");
    lua_setmetatable(S, -2);
}

void grovelp_policy_set_ctx(lua_State *S, struct grovel_policy *p, const grove_policy_ctx_t *x,
                            int ctx)
{
    struct ctxstate *cx = &p->cx;
    if (cx->wrote) { /* the policy's own keys too */
        lua_pushnil(S);
        while (lua_next(S, ctx)) {
            lua_pop(S, 1);
            lua_pushvalue(S, -1);
            lua_pushnil(S);
            lua_rawset(S, ctx);
        }
    } else {
        for (int f = 0; cx->made && f < F_N; f++)
            if (cx->made & (1u << f)) {
                lua_pushnil(S);
                rawsetfield(S, ctx, ctx_fields[f]);
            }
    }
    cx->made = 0;
    cx->wrote = false;
    cx->x = *x;
    cx->valid = true;
    p->views.start = x->start;
    p->views.end = x->end;
}

/* ---- keys (declarative orders, choose) ---------------------------------------------- */

static double prop_number(const grove_graph_t *g, grove_vid_t v, const char *name)
{
    const char *s = grove_vertex_property(g, v, name);
    if (!s)
        return 0;
    char *end;
    double d = strtod(s, &end);
    return end == s ? 0 : d;
}

/* The key named s ("id", "rank", "vid", "size", "perf_class",
 * "property:NAME", "free:TYPE"); *prop points at NAME or TYPE in s.
 * K_NONE when s names none. */
int grovelp_policy_key_named(const char *s, const char **prop)
{
    static const char *const names[] = {"id", "rank", "vid", "size", "perf_class"};
    static const int kinds[] = {K_ID, K_RANK, K_VID, K_SIZE, K_PERF_CLASS};
    *prop = NULL;
    for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
        if (!strcmp(s, names[i]))
            return kinds[i];
    if (!strncmp(s, "property:", 9) && s[9]) {
        *prop = s + 9;
        return K_PROPERTY;
    }
    if (!strncmp(s, "free:", 5) && s[5]) {
        *prop = s + 5;
        return K_FREE;
    }
    return K_NONE;
}

/* The value of a key other than a function for v; K_FREE: the units of
 * type prop (its symbol in g: type, looked up once by the caller, NONE
 * when g has never seen it) free below v during [start, end), read from
 * v's pruning aggregate as the built-in spread and gpu read it (0 when v
 * keeps none). */
double grovelp_policy_key_value(const grove_graph_t *g, grove_vid_t v, int kind, const char *prop,
                                grove_sym_t type, int64_t start, int64_t end)
{
    int64_t n;
    switch (kind) {
    case K_ID: return (double)grove_vertex_id(g, v);
    case K_RANK: return (double)grove_vertex_rank(g, v);
    case K_VID: return (double)v;
    case K_SIZE: return (double)grove_vertex_size(g, v);
    case K_PERF_CLASS: return grove_policy_perf_class(g, v);
    case K_FREE:
        n = type == GROVE_SYM_NONE ? -1
                                   : grove_vertex_aggregate_avail_sym(g, v, type, start, end);
        return n < 0 ? 0 : (double)n;
    default: return prop_number(g, v, prop);
    }
}

/* keys[name] of a choose or scores call (the __index of its keys table;
 * upvalues: the policy, the call's number): the array of the candidates'
 * keys, made once and kept in the table.  free:TYPE is known to scores
 * only, which is told the window being tried.  Raises on a name that is
 * no key and once the call is over (the candidates are gone). */
static int keys_index(lua_State *S)
{
    struct grovel_policy *p = lua_touserdata(S, lua_upvalueindex(1));
    const struct call *c = p->keyed;
    const char *name = luaL_checkstring(S, 2), *prop;
    int kind = grovelp_policy_key_named(name, &prop);
    if (kind == K_NONE) {
        static const char *const keys[] = {"id",           "rank",          "vid",
                                           "size",         "perf_class",    "property:NAME",
                                           "free:TYPE",    NULL};
        char hint[128];
        grovel_hint(p->host, name, keys, NULL, hint, sizeof(hint));
        return luaL_error(S,
                          "keys: unknown key '%s'%s; the keys are id, rank, vid, size, "
                          "perf_class, property:NAME, free:TYPE", name, hint);
    }
    if (!c || (uint64_t)lua_tointeger(S, lua_upvalueindex(2)) != p->nkeyed)
        return luaL_error(S, "keys: used after its %s call returned",
                          lua_tostring(S, lua_upvalueindex(3)));
    if (kind == K_FREE && !c->ctx)
        return luaL_error(S, "keys: %s is known to scores only (choose is not told the "
                             "window being tried)", name);
    /* a type no request on the graph may name is a misspelt one: raised
     * here, once a call, before any candidate is valued */
    if (kind == K_FREE && !grovel_type_known(c->g, prop))
        return luaL_error(S, "keys[\"%s\"]: %s", name,
                          grovel_push_unknown_type(S, p->host, c->g, prop));
    /* a property or type the graph has never seen: no candidate has it */
    grove_sym_t sym = kind == K_PROPERTY || kind == K_FREE ? grove_graph_sym_lookup(c->g, prop)
                                                           : GROVE_SYM_NONE;
    bool none = (kind == K_PROPERTY || kind == K_FREE) && sym == GROVE_SYM_NONE;
    int64_t start = c->ctx ? c->ctx->start : 0, end = c->ctx ? c->ctx->end : 0;
    /* in one step, when the stack can hold the values (else one by one) */
    bool whole = c->n >= GROVEL_SB_ARRAY_MIN && c->n <= GROVEL_SB_ARRAY_MAX
                 && lua_checkstack(S, (int)c->n + 2);
    if (whole) {
        grovel_sandbox_push_array_maker(S);
    } else {
        lua_createtable(S, (int)c->n, 0);
    }
    for (size_t i = 0; i < c->n; i++) {
        lua_pushnumber(S, none ? 0
                               : grovelp_policy_key_value(c->g, c->vs[i], kind, prop, sym, start,
                                                          end));
        if (!whole)
            lua_rawseti(S, -2, (lua_Integer)i + 1);
    }
    if (whole)
        lua_call(S, (int)c->n, 1);
    lua_pushvalue(S, 2);
    lua_pushvalue(S, -2);
    lua_rawset(S, 1);
    return 1;
}

void grovelp_policy_begin_keyed(struct grovel_policy *p, const struct call *c)
{
    p->nkeyed++;
    p->keyed = c;
}

/* Push the keys table of the choose or scores call c (begun), which it
 * reads until the call returns. */
void grovelp_policy_push_keys(lua_State *S, struct grovel_policy *p, const struct call *c)
{
    lua_createtable(S, 0, 2);
    lua_createtable(S, 0, 1);
    lua_pushlightuserdata(S, p);
    lua_pushinteger(S, (lua_Integer)p->nkeyed);
    lua_pushstring(S, hook_names[c->kind]);
    lua_pushcclosure(S, keys_index, 3);
    lua_setfield(S, -2, "__index");
    lua_setmetatable(S, -2);
}

/* The candidates and scores arrays of a choose or scores call are made
 * at their first use: at thousands of candidates, building them costs
 * more than a policy that reads only #candidates and keys spends (the
 * twins of locality and variation).  Until then the table is empty with
 * a metatable (upvalues of its functions: the policy, the call's number,
 * the array: 0 the candidates, 1 the scores; and n); its first index,
 * assignment, pairs or sort fills it, in C, and drops the metatable, so
 * from then on it is a plain array.  Only rawget, rawlen and next before
 * that first use see it empty. */
static void lazy_fill(lua_State *S)
{
    struct grovel_policy *p = lua_touserdata(S, lua_upvalueindex(1));
    const struct call *c = p->keyed;
    bool scores = lua_tointeger(S, lua_upvalueindex(3)) == 1;
    if (!c || (uint64_t)lua_tointeger(S, lua_upvalueindex(2)) != p->nkeyed)
        luaL_error(S, "%s: used after its call returned", scores ? "scores" : "candidates");
    lua_pushnil(S);
    lua_setmetatable(S, 1);
    luaL_checkstack(S, 2, NULL);
    for (size_t i = 0; i < c->n; i++) {
        if (scores)
            lua_pushnumber(S, c->scores[i]);
        else
            grovel_push_view(S, &p->views, c->vs[i]);
        lua_rawseti(S, 1, (lua_Integer)i + 1);
    }
}

static int lazy_index(lua_State *S)
{
    lazy_fill(S);
    lua_settop(S, 2);
    lua_rawget(S, 1);
    return 1;
}

static int lazy_newindex(lua_State *S)
{
    lazy_fill(S);
    lua_settop(S, 3);
    lua_rawset(S, 1);
    return 0;
}

static int lazy_len(lua_State *S)
{
    lua_pushvalue(S, lua_upvalueindex(4));
    return 1;
}

static int lazy_pairs(lua_State *S)
{
    lazy_fill(S);
    lua_pushcfunction(S, raw_next);
    lua_pushvalue(S, 1);
    lua_pushnil(S);
    return 3;
}

void grovelp_policy_push_lazy(lua_State *S, struct grovel_policy *p, const struct call *c,
                              int which)
{
    static const struct {
        const char *name;
        lua_CFunction fn;
    } mms[] = {{"__index", lazy_index}, {"__newindex", lazy_newindex}, {"__len", lazy_len},
               {"__pairs", lazy_pairs}};
    luaL_checkstack(S, 8, NULL);
    lua_createtable(S, 0, 0);
    lua_createtable(S, 0, 5);
    for (size_t i = 0; i < sizeof(mms) / sizeof(mms[0]); i++) {
        lua_pushlightuserdata(S, p);
        lua_pushinteger(S, (lua_Integer)p->nkeyed);
        lua_pushinteger(S, which);
        lua_pushinteger(S, (lua_Integer)c->n);
        lua_pushcclosure(S, mms[i].fn, 4);
        lua_setfield(S, -2, mms[i].name);
    }
    lua_pushboolean(S, 0);
    lua_setfield(S, -2, "__metatable");
    lua_setmetatable(S, -2);
}

/* Nothing of this file is registered in grove.core (bindings/api.tsv). */
int grovel_open_policy_views(lua_State *L)
{
    (void)L;
    return 0;
}
