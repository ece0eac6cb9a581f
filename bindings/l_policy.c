/* l_policy.c: placement policies written in Lua.
 *
 *   core.policy_load(path [, opts])        a grove.policy, or nil, msg, code
 *   core.policy_parse(text, name [, opts]) the same from text (name is used
 *                                          as the file name in messages)
 *       opts: budget = instructions per match (default 10,000,000),
 *             memory = bytes the policy may hold (64 MiB),
 *             time = wall-clock seconds per match (1)
 *   p:name()  p:description()  p:source()  p:hooks()  p:budget()
 *   p:memory()  p:time()  p:heap()  p:traceback()  p:close()  tostring(p)
 *
 * A policy file returns a table; every field is optional:
 *   name, description         strings (name defaults to the file's base name)
 *   base = "lonode"           start from a built-in policy's C hooks
 *   prune(v, ctx) -> bool     true: do not look inside v
 *   order(parent, children)   sort the array in place, or return a new one
 *   order = {key = "id" | "rank" | "vid" | "size" | "property:NAME" |
 *            function(v) -> number, descending = bool, when = "TYPE"}
 *                             declarative: sorted in C by (key, vertex),
 *                             only lists holding a TYPE vertex when `when`
 *                             is given; a key function is called at most
 *                             once per vertex and match
 *   score(v, ctx) -> number   higher is better
 *   scores(candidates, ctx, keys) -> {s1, ..., sn}   the same for all the
 *                             candidates of a level in one call (instead
 *                             of score); keys as choose's, and also
 *                             keys["free:TYPE"]: units of TYPE free below
 *                             each candidate in the window being tried
 *   choose(candidates, k, scores, keys) -> {i1, ..., ik}   positions (1-based);
 *                             keys[KEY] (KEY as a declarative order's, not a
 *                             function) is the array of the candidates'
 *                             keys, made in C at its first use in the call
 *   select = "first" | "best" ("best" when score or choose is given)
 *   node_exclusive = bool
 *   explore_by_use = bool    children untouched by earlier jobs first (see
 *                             grove_policy_t); the order hook is not used
 *   node_centric = bool       slots compared by id weigh their node's id
 *                             first (see grove_policy_t)
 *   prune_types, score_types = "TYPE" or {"TYPE", ...}: the types whose
 *                             vertices prune (score and choose) are asked
 *                             about; others are walked through (matched
 *                             first-fit)
 * ctx describes the whole request at the level being matched (see
 * push_ctx; one table, reused: copy what you keep).  Hooks see vertices as
 * read-only views (grove.policy.vertex, l_view.c).
 *
 * Every policy runs in a sandbox of its own (lsandbox.h, l_sandbox.c): a
 * separate Lua state with an allow-listed environment, a memory cap on
 * everything it holds, an instruction budget and a wall-clock limit per
 * match.  Nothing mutable is shared with the host's Lua state: values
 * cross as C data only (numbers, copied strings, vertex ids), so no host
 * table, function or metatable can reach policy code, and no policy code
 * can run in the host's state.
 *
 * Calling Lua from the matcher: one trampoline per hook kind fills a small
 * call record and runs hook_body in the sandbox under lua_pcall with a
 * traceback handler; a failure is stored as text and reported to the
 * matcher as -1, which unwinds its own C state and reports ECANCELED.  No
 * Lua error ever crosses the matcher's frames, and every Lua operation on
 * the sandbox runs inside a protected call (an unprotected memory error
 * there would abort the process).
 *
 * Workload: one hook call per visited vertex of the listed types (prune),
 * per child list (order), per fitting candidate (score), per request level
 * (scores, choose); views are light userdata, so a call allocates only
 * what the policy itself allocates, and ctx fields are rewritten only when
 * they change.
 *
 * This file holds the policy userdata and its hooks.  The sandbox lives in
 * l_sandbox.c, the views in l_view.c (their shared methods in l_vertex.c);
 * nothing here may reach inside a view or change the sandbox's limits.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lgraph.h"
#include "limit.h"
#include "lpolicy.h"
#include "lsandbox.h"

enum hook_kind { H_PRUNE, H_ORDER, H_SCORE, H_CHOOSE, H_KEY, H_SCORES, H_CHUNK, H_COUNT };

static const char *const hook_names[H_COUNT] = {"prune",     "order",  "score", "choose",
                                                "order key", "scores", "chunk"};

/* The registry fields of the sandbox holding the hooks, by kind. */
static const char *const hook_fields[] = {"prune", "order", "score", "choose", "key", "scores"};

enum key_kind { K_NONE, K_ID, K_RANK, K_VID, K_SIZE, K_PERF_CLASS, K_PROPERTY, K_FREE,
                K_FUNCTION };

/* Stack slots of the sandbox while a match runs (offsets from base). */
enum slot {
    S_PRUNE = 1, /* the Lua functions, by hook kind (nil when absent) */
    S_ORDER,
    S_SCORE,
    S_CHOOSE,
    S_KEY,
    S_SCORES,
    S_CTX, /* the ctx table handed to prune, score and scores */
    S_COUNT = S_CTX
};

static const char HOOKS_KEY = 'h'; /* sandbox registry: {prune =, order =, ...} */
static const char CTX_KEY = 'c';   /* sandbox registry: the ctx table */

struct sortkey {
    double k;
    grove_vid_t v;
};

/* What the ctx table holds now, so a hook call rewrites only what changed. */
struct ctxstate {
    bool valid;                            /* false: rewrite everything */
    grove_sym_t type;
    uint64_t count;
    int64_t start, end;
    const grove_policy_request_t *req;
    uint64_t serial;                       /* of req->found */
    const grove_jobspec_resource_t *level;
    uint64_t *below;                       /* per request vertex: bit k set when
                                            * type k is at or below it */
    bool *below_done;
    size_t nbelow;
};

struct grovel_policy {
    grovel_handle_t h;    /* a generic handle (grovel.h) whose object is the
                           * policy itself while it is open */
    grove_policy_t hooks; /* handed to the matcher; arg = this */
    char *name, *description, *source; /* malloc'd; source: the file name */
    char short_src[LUA_IDSIZE];        /* the chunk's name as Lua prints it */
    char where[H_COUNT][LUA_IDSIZE + 24]; /* "file:line" of each Lua hook */
    bool lua[H_COUNT];                    /* which hooks are Lua functions */
    char **types[2];                      /* prune_types, score_types (NULL-ended) */

    /* declarative order (hooks.order == decl_order) */
    int key;        /* enum key_kind */
    bool desc;      /* descending */
    char *key_prop; /* K_PROPERTY: the property name */
    char *when;     /* sort only lists holding a vertex of this type */

    grovel_sandbox_t sb;      /* the policy's own Lua state and its limits */
    struct grovel_views views; /* what its views show */
    const void *owner;        /* the matcher of the last match */
    grove_graph_t *last_g;    /* and its graph */

    /* the match in progress (between begin and end) */
    bool active;
    const struct call *keyed; /* the choose or scores call running, or
                               * NULL: what its keys table reads */
    uint64_t nkeyed;          /* such calls so far: a keys table kept past
                               * its call knows it is stale */
    int base; /* sandbox stack slots: see enum slot */
    struct ctxstate cx;
    char *err, *traceback; /* the last failure (malloc'd) */

    /* scratch, reused across calls */
    struct sortkey *sk;
    size_t skcap;
    grove_vid_t *vb;
    size_t vbcap;
    double *kval; /* key function values by vertex, valid where kstamp == kgen */
    uint32_t *kstamp;
    size_t kcap;
    uint32_t kgen;
};

/* ---- small helpers -------------------------------------------------------- */

static char *dupstr(const char *s)
{
    return s ? strdup(s) : NULL;
}

static void set_text(char **dst, const char *s)
{
    free(*dst);
    *dst = dupstr(s);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* "file:line" of the function at idx (or "file" when unknown). */
static void func_where(lua_State *S, int idx, char *buf, size_t len)
{
    lua_Debug ar;
    lua_pushvalue(S, idx);
    lua_getinfo(S, ">S", &ar);
    if (ar.linedefined > 0)
        snprintf(buf, len, "%s:%d", ar.short_src, ar.linedefined);
    else
        snprintf(buf, len, "%s", ar.short_src);
}

/* ---- errors ----------------------------------------------------------------- */

/* Record the failure of a run of hook kind (status from lua_pcall, the
 * error value -- a string from the traceback handler -- on top of the
 * sandbox's stack).  The message names the policy, the hook, and the file
 * and line.  Reads the sandbox without allocating in it. */
static void record_error(struct grovel_policy *p, int kind, int status)
{
    lua_State *S = p->sb.S;
    char text[1024], lim[512];
    const char *msg = lua_type(S, -1) == LUA_TSTRING ? lua_tostring(S, -1) : NULL;
    const char *where = p->where[kind][0] ? p->where[kind] : p->short_src;
    const char *limit = grovel_sandbox_limit_message(&p->sb, status, where, lim, sizeof(lim));
    if (limit) {
        snprintf(text, sizeof(text), "%s", limit);
    } else if (status == LUA_ERRERR) {
        snprintf(text, sizeof(text), "%s: error while handling an error", where);
    } else if (msg) {
        const char *tb = strstr(msg, "\nstack traceback:");
        int n = tb ? (int)(tb - msg) : (int)strlen(msg);
        size_t sl = strlen(p->short_src);
        bool located = !strncmp(msg, p->short_src, sl) && msg[sl] == ':';
        if (located)
            snprintf(text, sizeof(text), "%.*s", n, msg);
        else
            snprintf(text, sizeof(text), "%s: %.*s", where, n, msg);
    } else {
        snprintf(text, sizeof(text), "%s: (error object is a %s value)", where,
                 luaL_typename(S, -1));
    }
    set_text(&p->traceback, msg && !limit ? msg : text);
    free(p->err);
    p->err = NULL;
    if (kind == H_CHUNK) {
        p->err = dupstr(text);
    } else {
        size_t len = strlen(p->name) + strlen(text) + 64;
        p->err = malloc(len);
        if (p->err)
            snprintf(p->err, len, "policy %s: %s hook: %s", p->name, hook_names[kind], text);
    }
}

/* ---- ctx ------------------------------------------------------------------------- */

/* t[k] = the value on top (popped), raw: a metatable the policy set on
 * the table is not consulted. */
static void rawsetfield(lua_State *S, int t, const char *k)
{
    lua_pushstring(S, k);
    lua_insert(S, -2);
    lua_rawset(S, t);
}

/* t[k] = the time v, nil for GROVE_TIME_MAX (no end). */
static void set_time(lua_State *S, int t, const char *k, int64_t v)
{
    if (v == GROVE_TIME_MAX)
        lua_pushnil(S);
    else
        lua_pushinteger(S, (lua_Integer)v);
    rawsetfield(S, t, k);
}

/* A fresh table at ctx[k], left on top. */
static int fresh_field(lua_State *S, int ctx, const char *k, int n)
{
    lua_createtable(S, 0, n);
    lua_pushvalue(S, -1);
    rawsetfield(S, ctx, k);
    return lua_gettop(S);
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

/* ctx.slot = {TYPE = units in one slot}, ctx.slots = how many slots in
 * all: of the slot at or above the level, else the request's first. */
static void push_slot(lua_State *S, int ctx, const grove_policy_request_t *r,
                      const grove_jobspec_resource_t *lv)
{
    const grove_jobspec_resource_t *slot = NULL;
    for (const grove_jobspec_resource_t *a = lv; a && !slot; a = grove_jobspec_resource_parent(a))
        if (grove_jobspec_resource_is_slot(a))
            slot = a;
    size_t n = grove_jobspec_resource_total(r->jobspec);
    for (size_t i = 0; i < n && !slot; i++)
        if (grove_jobspec_resource_is_slot(grove_jobspec_resource_at(r->jobspec, i)))
            slot = grove_jobspec_resource_at(r->jobspec, i);
    if (!slot) {
        lua_pushnil(S);
        rawsetfield(S, ctx, "slot");
        lua_pushnil(S);
        rawsetfield(S, ctx, "slots");
        return;
    }
    uint64_t slots = 1;
    for (const grove_jobspec_resource_t *a = slot; a; a = grove_jobspec_resource_parent(a))
        slots *= grove_jobspec_resource_count(a)->min;
    lua_pushinteger(S, (lua_Integer)slots);
    rawsetfield(S, ctx, "slots");
    int t = fresh_field(S, ctx, "slot", 4);
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
    lua_pop(S, 1);
}

/* What stays the same for a whole match: job, duration, attributes,
 * totals. */
static void push_request(lua_State *S, int ctx, const grove_policy_request_t *r)
{
    lua_pushinteger(S, (lua_Integer)r->job);
    rawsetfield(S, ctx, "job");
    set_time(S, ctx, "duration", r->duration);
    const json_t *root = grove_jobspec_json(r->jobspec);
    const json_t *attrs = root ? json_object_get(root, "attributes") : NULL;
    if (attrs)
        grovel_push_json(S, attrs, false);
    else
        lua_createtable(S, 0, 0);
    rawsetfield(S, ctx, "attributes");
    int t = fresh_field(S, ctx, "total", (int)r->ntypes);
    for (size_t k = 0; k < r->ntypes; k++) {
        lua_pushinteger(S, r->total[k] > (uint64_t)LUA_MAXINTEGER ? LUA_MAXINTEGER
                                                                   : (lua_Integer)r->total[k]);
        rawsetfield(S, t, r->names[k]);
    }
    lua_pop(S, 1);
}

/* found = {TYPE = units taken so far}; need = {TYPE = total - found} for
 * the types at or below the level. */
static void push_progress(struct grovel_policy *p, lua_State *S, int ctx,
                          const grove_policy_request_t *r, const grove_jobspec_resource_t *lv)
{
    uint64_t below = lv ? types_below(p, r, lv) : ~(uint64_t)0;
    int found = fresh_field(S, ctx, "found", (int)r->ntypes);
    int need = fresh_field(S, ctx, "need", (int)r->ntypes);
    for (size_t k = 0; k < r->ntypes; k++) {
        uint64_t f = r->found[k];
        lua_pushinteger(S, f > (uint64_t)LUA_MAXINTEGER ? LUA_MAXINTEGER : (lua_Integer)f);
        rawsetfield(S, found, r->names[k]);
        if (k < 64 && !(below & ((uint64_t)1 << k)))
            continue;
        uint64_t n = f >= r->total[k] ? 0 : r->total[k] - f;
        lua_pushinteger(S, n > (uint64_t)LUA_MAXINTEGER ? LUA_MAXINTEGER : (lua_Integer)n);
        rawsetfield(S, need, r->names[k]);
    }
    lua_pop(S, 2);
}

/* Bring the ctx table up to date with x; the views answer for its window. */
static void update_ctx(lua_State *S, struct grovel_policy *p, const grove_policy_ctx_t *x,
                       int ctx)
{
    struct ctxstate *cx = &p->cx;
    const grove_graph_t *g = p->views.g;
    bool all = !cx->valid;
    if (all || x->type != cx->type) {
        if (x->type != GROVE_SYM_NONE)
            lua_pushstring(S, grove_graph_str(g, x->type));
        else
            lua_pushnil(S);
        rawsetfield(S, ctx, "type");
    }
    if (all || x->count != cx->count) {
        lua_pushinteger(S, x->count > (uint64_t)LUA_MAXINTEGER ? LUA_MAXINTEGER
                                                               : (lua_Integer)x->count);
        rawsetfield(S, ctx, "count");
    }
    if (all || x->start != cx->start || x->end != cx->end) {
        lua_pushinteger(S, (lua_Integer)x->start);
        rawsetfield(S, ctx, "start");
        set_time(S, ctx, "end", x->end);
    }
    const grove_policy_request_t *r = x->req;
    if (r && (all || r != cx->req))
        push_request(S, ctx, r);
    if (r && (all || r != cx->req || r->serial != cx->serial || x->level != cx->level))
        push_progress(p, S, ctx, r, x->level);
    if (r && x->level && (all || x->level != cx->level))
        push_slot(S, ctx, r, x->level);
    cx->valid = true;
    cx->type = x->type;
    cx->count = x->count;
    cx->start = x->start;
    cx->end = x->end;
    cx->req = r;
    cx->serial = r ? r->serial : 0;
    cx->level = x->level;
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
static int key_named(const char *s, const char **prop)
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
 * type prop free below v during [start, end), read from v's pruning
 * aggregate as the built-in spread and gpu read it (0 when v keeps none). */
static double key_value(const grove_graph_t *g, grove_vid_t v, int kind, const char *prop,
                        int64_t start, int64_t end)
{
    int64_t n;
    switch (kind) {
    case K_ID: return (double)grove_vertex_id(g, v);
    case K_RANK: return (double)grove_vertex_rank(g, v);
    case K_VID: return (double)v;
    case K_SIZE: return (double)grove_vertex_size(g, v);
    case K_PERF_CLASS: return grove_policy_perf_class(g, v);
    case K_FREE:
        n = grove_vertex_aggregate_avail(g, v, prop, start, end);
        return n < 0 ? 0 : (double)n;
    default: return prop_number(g, v, prop);
    }
}

/* ---- trampolines ----------------------------------------------------------------- */

/* One hook call: what the trampoline hands to hook_body and gets back. */
struct call {
    struct grovel_policy *p;
    int kind;
    grove_vid_t v; /* prune, score, key: the vertex; order: the parent */
    const grove_policy_ctx_t *ctx;
    grove_vid_t *kids; /* order: n children, rewritten in the new order */
    const grove_vid_t *vs; /* choose, scores: n candidates; choose: their
                            * scores, k to pick */
    const double *scores;
    size_t n, k;
    size_t *pick;
    double *out;            /* scores: the n scores */
    const grove_graph_t *g; /* choose, scores: the candidates' graph, for keys */
    int result;   /* prune */
    double value; /* score, key */
};

static int bad_return(lua_State *S, const struct call *c, const char *expected, int idx)
{
    const struct grovel_policy *p = c->p;
    lua_pushfstring(S, "%s: %s hook returned %s (expected %s)", p->where[c->kind],
                    hook_names[c->kind], luaL_typename(S, idx), expected);
    return lua_error(S);
}

static int hook_fail(lua_State *S, const struct call *c, const char *why)
{
    lua_pushfstring(S, "%s: %s hook %s", c->p->where[c->kind], hook_names[c->kind], why);
    return lua_error(S);
}

static int cmp_vid(const void *a, const void *b)
{
    grove_vid_t x = *(const grove_vid_t *)a, y = *(const grove_vid_t *)b;
    return (x > y) - (x < y);
}

/* order: the result (at idx) must be a permutation of the children. */
static void take_order(lua_State *S, struct call *c, int idx)
{
    struct grovel_policy *p = c->p;
    size_t n = c->n;
    if (lua_rawlen(S, idx) != n)
        hook_fail(S, c, lua_pushfstring(S, "returned %I vertices for %I children",
                                        (lua_Integer)lua_rawlen(S, idx), (lua_Integer)n));
    if (grow((void **)&p->vb, &p->vbcap, 3 * n, sizeof(*p->vb)) < 0)
        luaL_error(S, "out of memory");
    grove_vid_t *got = p->vb, *want = p->vb + n, *tmp = p->vb + 2 * n;
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(S, idx, (lua_Integer)i + 1);
        got[i] = grovel_test_view(S, -1, &p->views);
        if (got[i] == GROVE_VID_NONE)
            hook_fail(S, c, lua_pushfstring(S, "returned a %s at position %I (expected a vertex)",
                                            luaL_typename(S, -1), (lua_Integer)i + 1));
        lua_pop(S, 1);
    }
    memcpy(want, c->kids, n * sizeof(*want));
    qsort(want, n, sizeof(*want), cmp_vid);
    /* compare as sorted multisets, keeping the order of got */
    memcpy(tmp, got, n * sizeof(*tmp));
    qsort(tmp, n, sizeof(*tmp), cmp_vid);
    if (memcmp(tmp, want, n * sizeof(*tmp)) != 0)
        hook_fail(S, c, "returned vertices that are not a permutation of the children");
    memcpy(c->kids, got, n * sizeof(*got));
}

/* choose: the result (at idx) must hold k distinct positions in 1..n. */
static void take_choice(lua_State *S, struct call *c, int idx)
{
    struct grovel_policy *p = c->p;
    if (lua_rawlen(S, idx) != c->k)
        hook_fail(S, c, lua_pushfstring(S, "returned %I positions (expected %I)",
                                        (lua_Integer)lua_rawlen(S, idx), (lua_Integer)c->k));
    if (grow((void **)&p->vb, &p->vbcap, c->n, sizeof(*p->vb)) < 0)
        luaL_error(S, "out of memory");
    memset(p->vb, 0, c->n * sizeof(*p->vb));
    for (size_t i = 0; i < c->k; i++) {
        lua_rawgeti(S, idx, (lua_Integer)i + 1);
        int isint;
        lua_Integer x = lua_tointegerx(S, -1, &isint);
        if (!isint || lua_type(S, -1) != LUA_TNUMBER)
            hook_fail(S, c, lua_pushfstring(S, "returned a %s at position %I (expected an "
                                               "integer)", luaL_typename(S, -1),
                                            (lua_Integer)i + 1));
        if (x < 1 || (size_t)x > c->n)
            hook_fail(S, c, lua_pushfstring(S, "returned %I, out of range 1..%I", x,
                                            (lua_Integer)c->n));
        if (p->vb[x - 1])
            hook_fail(S, c, lua_pushfstring(S, "returned %I twice", x));
        p->vb[x - 1] = 1;
        c->pick[i] = (size_t)x - 1;
        lua_pop(S, 1);
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
    int kind = key_named(name, &prop);
    if (kind == K_NONE)
        return luaL_error(S,
                          "keys: unknown key '%s' (id, rank, vid, size, perf_class, "
                          "property:NAME, free:TYPE)", name);
    if (!c || (uint64_t)lua_tointeger(S, lua_upvalueindex(2)) != p->nkeyed)
        return luaL_error(S, "keys: used after its %s call returned",
                          lua_tostring(S, lua_upvalueindex(3)));
    if (kind == K_FREE && !c->ctx)
        return luaL_error(S, "keys: %s is known to scores only (choose is not told the "
                             "window being tried)", name);
    /* a property or type the graph has never seen: no candidate has it */
    bool none = (kind == K_PROPERTY || kind == K_FREE)
                && grove_graph_sym_lookup(c->g, prop) == GROVE_SYM_NONE;
    int64_t start = c->ctx ? c->ctx->start : 0, end = c->ctx ? c->ctx->end : 0;
    lua_createtable(S, (int)c->n, 0);
    for (size_t i = 0; i < c->n; i++) {
        lua_pushnumber(S, none ? 0 : key_value(c->g, c->vs[i], kind, prop, start, end));
        lua_rawseti(S, -2, (lua_Integer)i + 1);
    }
    lua_pushvalue(S, 2);
    lua_pushvalue(S, -2);
    lua_rawset(S, 1);
    return 1;
}

/* Push the keys table of a new choose or scores call c, which it reads
 * until the call returns. */
static void push_keys(lua_State *S, struct grovel_policy *p, const struct call *c)
{
    p->nkeyed++;
    p->keyed = c;
    lua_createtable(S, 0, 2);
    lua_createtable(S, 0, 1);
    lua_pushlightuserdata(S, p);
    lua_pushinteger(S, (lua_Integer)p->nkeyed);
    lua_pushstring(S, hook_names[c->kind]);
    lua_pushcclosure(S, keys_index, 3);
    lua_setfield(S, -2, "__index");
    lua_setmetatable(S, -2);
}

/* Push an array of views of the n candidates vs. */
static void push_candidates(lua_State *S, const struct grovel_views *vw, const grove_vid_t *vs,
                            size_t n)
{
    lua_createtable(S, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        grovel_push_view(S, vw, vs[i]);
        lua_rawseti(S, -2, (lua_Integer)i + 1);
    }
}

/* scores: the result (at idx) must hold a number for each candidate. */
static void take_scores(lua_State *S, struct call *c, int idx)
{
    if (lua_rawlen(S, idx) != c->n)
        hook_fail(S, c, lua_pushfstring(S, "returned %I scores for %I candidates",
                                        (lua_Integer)lua_rawlen(S, idx), (lua_Integer)c->n));
    for (size_t i = 0; i < c->n; i++) {
        if (lua_rawgeti(S, idx, (lua_Integer)i + 1) != LUA_TNUMBER)
            hook_fail(S, c, lua_pushfstring(S, "returned a %s at position %I (expected a "
                                               "number)", luaL_typename(S, -1),
                                            (lua_Integer)i + 1));
        c->out[i] = lua_tonumber(S, -1);
        if (isnan(c->out[i]))
            hook_fail(S, c, lua_pushfstring(S, "returned NaN at position %I",
                                            (lua_Integer)i + 1));
        lua_pop(S, 1);
    }
}

/* Call the function pushed with its arguments (nargs of them, the keys
 * table of c the last, pushed here); its result must be an array, which
 * take reads. */
static void call_keyed(lua_State *S, struct call *c, int nargs, const char *expected,
                       void (*take)(lua_State *, struct call *, int))
{
    push_keys(S, c->p, c);
    lua_call(S, nargs, 1);
    if (lua_type(S, -1) != LUA_TTABLE)
        bad_return(S, c, expected, -1);
    take(S, c, lua_gettop(S));
}

/* The protected body of a hook call.  Arguments: the call record, the Lua
 * function, the ctx table. */
static int hook_body(lua_State *S)
{
    struct call *c = lua_touserdata(S, 1);
    struct grovel_policy *p = c->p;
    const struct grovel_views *vw = &p->views;
    int fn = 2, ctx = 3, t;
    switch (c->kind) {
    case H_PRUNE:
        update_ctx(S, p, c->ctx, ctx);
        lua_pushvalue(S, fn);
        grovel_push_view(S, vw, c->v);
        lua_pushvalue(S, ctx);
        lua_call(S, 2, 1);
        t = lua_type(S, -1);
        if (t != LUA_TNIL && t != LUA_TBOOLEAN)
            bad_return(S, c, "a boolean", -1);
        c->result = lua_toboolean(S, -1);
        break;
    case H_SCORE:
    case H_KEY:
        lua_pushvalue(S, fn);
        grovel_push_view(S, vw, c->v);
        if (c->kind == H_SCORE) {
            update_ctx(S, p, c->ctx, ctx);
            lua_pushvalue(S, ctx);
        }
        lua_call(S, c->kind == H_SCORE ? 2 : 1, 1);
        if (lua_type(S, -1) != LUA_TNUMBER)
            bad_return(S, c, "a number", -1);
        c->value = lua_tonumber(S, -1);
        if (isnan(c->value))
            hook_fail(S, c, "returned NaN");
        break;
    case H_ORDER: {
        lua_createtable(S, (int)c->n, 0);
        int arr = lua_gettop(S);
        for (size_t i = 0; i < c->n; i++) {
            grovel_push_view(S, vw, c->kids[i]);
            lua_rawseti(S, arr, (lua_Integer)i + 1);
        }
        lua_pushvalue(S, fn);
        grovel_push_view(S, vw, c->v);
        lua_pushvalue(S, arr);
        lua_call(S, 2, 1);
        t = lua_type(S, -1);
        if (t == LUA_TNIL)
            take_order(S, c, arr);
        else if (t == LUA_TTABLE)
            take_order(S, c, lua_gettop(S));
        else
            bad_return(S, c, "nil or an array of the children", -1);
        break;
    }
    case H_CHOOSE: {
        lua_pushvalue(S, fn);
        push_candidates(S, vw, c->vs, c->n);
        lua_pushinteger(S, (lua_Integer)c->k);
        lua_createtable(S, (int)c->n, 0);
        for (size_t i = 0; i < c->n; i++) {
            lua_pushnumber(S, c->scores[i]);
            lua_rawseti(S, -2, (lua_Integer)i + 1);
        }
        call_keyed(S, c, 4, "an array of positions", take_choice);
        break;
    }
    case H_SCORES:
        update_ctx(S, p, c->ctx, ctx);
        lua_pushvalue(S, fn);
        push_candidates(S, vw, c->vs, c->n);
        lua_pushvalue(S, ctx);
        call_keyed(S, c, 3, "an array of scores", take_scores);
        break;
    default:
        break;
    }
    return 0;
}

/* Run one hook call in the sandbox under lua_pcall.  0, or -1 with the
 * error recorded. */
static int run_hook(struct call *c)
{
    struct grovel_policy *p = c->p;
    lua_State *S = p->sb.S;
    if (!p->active || !S) {
        errno = EINVAL;
        return -1;
    }
    if (p->err) {
        errno = ECANCELED;
        return -1; /* already failed in this match */
    }
    if (!lua_checkstack(S, 8)) {
        set_text(&p->err, "policy: Lua stack overflow");
        errno = ECANCELED;
        return -1;
    }
    int top = lua_gettop(S);
    lua_pushcfunction(S, hook_body);
    lua_pushlightuserdata(S, c);
    lua_pushvalue(S, p->base + S_PRUNE + c->kind);
    lua_pushvalue(S, p->base + S_CTX);
    int st = grovel_sandbox_pcall(&p->sb, 3, 0);
    p->keyed = NULL; /* also when the hook raised */
    if (st != LUA_OK) {
        record_error(p, c->kind, st);
        lua_settop(S, top);
        errno = ECANCELED;
        return -1;
    }
    lua_settop(S, top);
    return 0;
}

static int tramp_prune(void *arg, const grove_graph_t *g, grove_vid_t v,
                       const grove_policy_ctx_t *ctx)
{
    (void)g;
    struct call c = {.p = arg, .kind = H_PRUNE, .v = v, .ctx = ctx};
    return run_hook(&c) < 0 ? -1 : c.result;
}

static int tramp_score(void *arg, const grove_graph_t *g, grove_vid_t v,
                       const grove_policy_ctx_t *ctx, double *score)
{
    (void)g;
    struct call c = {.p = arg, .kind = H_SCORE, .v = v, .ctx = ctx};
    if (run_hook(&c) < 0)
        return -1;
    *score = c.value;
    return 0;
}

static int tramp_order(void *arg, const grove_graph_t *g, grove_vid_t parent, grove_vid_t *kids,
                       size_t n)
{
    (void)g;
    struct call c = {.p = arg, .kind = H_ORDER, .v = parent, .kids = kids, .n = n};
    return run_hook(&c);
}

static int tramp_choose(void *arg, const grove_graph_t *g, const grove_vid_t *vs,
                        const double *scores, size_t n, size_t k, size_t *pick)
{
    struct call c = {.p = arg,
                     .kind = H_CHOOSE,
                     .vs = vs,
                     .scores = scores,
                     .n = n,
                     .k = k,
                     .pick = pick,
                     .g = g};
    return run_hook(&c);
}

static int tramp_scores(void *arg, const grove_graph_t *g, const grove_vid_t *vs, size_t n,
                        const grove_policy_ctx_t *ctx, double *out)
{
    struct call c = {
        .p = arg, .kind = H_SCORES, .vs = vs, .n = n, .ctx = ctx, .out = out, .g = g};
    return run_hook(&c);
}

/* ---- declarative order ------------------------------------------------------------ */

static int key_of(struct grovel_policy *p, const grove_graph_t *g, grove_vid_t v, double *k)
{
    if (p->key != K_FUNCTION) {
        *k = key_value(g, v, p->key, p->key_prop, 0, 0); /* never K_FREE */
        return 0;
    }
    if (v < p->kcap && p->kstamp[v] == p->kgen) {
        *k = p->kval[v];
        return 0;
    }
    struct call c = {.p = p, .kind = H_KEY, .v = v};
    if (run_hook(&c) < 0)
        return -1;
    if (v < p->kcap) {
        p->kval[v] = c.value;
        p->kstamp[v] = p->kgen;
    }
    *k = c.value;
    return 0;
}

static int cmp_asc(const void *a, const void *b)
{
    const struct sortkey *x = a, *y = b;
    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}

static int cmp_desc(const void *a, const void *b)
{
    return cmp_asc(b, a);
}

static int decl_order(void *arg, const grove_graph_t *g, grove_vid_t parent, grove_vid_t *kids,
                      size_t n)
{
    struct grovel_policy *p = arg;
    (void)parent;
    if (p->when) {
        size_t i = 0;
        while (i < n && strcmp(grove_vertex_type(g, kids[i]), p->when))
            i++;
        if (i == n)
            return 0;
    }
    if (grow((void **)&p->sk, &p->skcap, n, sizeof(*p->sk)) < 0) {
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        p->sk[i].v = kids[i];
        if (key_of(p, g, kids[i], &p->sk[i].k) < 0)
            return -1;
    }
    qsort(p->sk, n, sizeof(*p->sk), p->desc ? cmp_desc : cmp_asc);
    for (size_t i = 0; i < n; i++)
        kids[i] = p->sk[i].v;
    return 0;
}

/* ---- the policy table ------------------------------------------------------------------ */

/* Raise-free validation: on a bad table, push a message and return -1. */
static int spec_error(lua_State *S, struct grovel_policy *p, const char *fmt, const char *a)
{
    lua_pushfstring(S, "%s: ", p->short_src);
    lua_pushfstring(S, fmt, a);
    lua_concat(S, 2);
    return -1;
}

/* prune_types or score_types (which: 0 or 1) = "TYPE" or {"TYPE", ...}
 * at idx. */
static int parse_types(lua_State *S, struct grovel_policy *p, int which, int idx, const char *k)
{
    int vt = lua_type(S, idx);
    size_t n = vt == LUA_TSTRING ? 1 : vt == LUA_TTABLE ? lua_rawlen(S, idx) : 0;
    if (n == 0)
        return spec_error(S, p, "%s must be a type name or a non-empty array of them", k);
    char **list = calloc(n + 1, sizeof(*list));
    if (!list)
        return spec_error(S, p, "%s", "out of memory");
    for (size_t i = 0; i < n; i++) {
        if (vt == LUA_TTABLE)
            lua_rawgeti(S, idx, (lua_Integer)i + 1);
        else
            lua_pushvalue(S, idx);
        if (lua_type(S, -1) != LUA_TSTRING || !lua_tostring(S, -1)[0]
            || !(list[i] = strdup(lua_tostring(S, -1)))) {
            for (size_t j = 0; j < i; j++)
                free(list[j]);
            free(list);
            return spec_error(S, p, "%s must hold type names (strings)", k);
        }
        lua_pop(S, 1);
    }
    p->types[which] = list;
    return 0;
}

static int parse_order_table(lua_State *S, struct grovel_policy *p, int t, int uv)
{
    lua_pushnil(S);
    while (lua_next(S, t)) {
        if (lua_type(S, -2) != LUA_TSTRING)
            return spec_error(S, p, "order: keys must be strings (%s)", "key, descending, when");
        const char *k = lua_tostring(S, -2);
        int vt = lua_type(S, -1);
        if (!strcmp(k, "key")) {
            if (vt == LUA_TFUNCTION) {
                p->key = K_FUNCTION;
                lua_pushvalue(S, -1);
                lua_setfield(S, uv, "key");
                p->lua[H_KEY] = true;
                func_where(S, -1, p->where[H_KEY], sizeof(p->where[H_KEY]));
            } else if (vt == LUA_TSTRING) {
                const char *s = lua_tostring(S, -1), *prop;
                p->key = key_named(s, &prop);
                if (p->key == K_NONE)
                    return spec_error(S, p,
                                      "order: unknown key '%s' (id, rank, vid, size, perf_class, "
                                      "property:NAME or a function)", s);
                if (p->key == K_FREE)
                    return spec_error(S, p,
                                      "order: key '%s' needs the window being tried, which "
                                      "order is not told (score or scores are)", s);
                if (prop && !(p->key_prop = strdup(prop)))
                    return spec_error(S, p, "%s", "out of memory");
            } else {
                return spec_error(S, p, "order: key must be a string or a function, not %s",
                                  luaL_typename(S, -1));
            }
        } else if (!strcmp(k, "descending")) {
            if (vt != LUA_TBOOLEAN)
                return spec_error(S, p, "order: descending must be a boolean, not %s",
                                  luaL_typename(S, -1));
            p->desc = lua_toboolean(S, -1);
        } else if (!strcmp(k, "when")) {
            if (vt != LUA_TSTRING)
                return spec_error(S, p, "order: when must be a type name, not %s",
                                  luaL_typename(S, -1));
            if (!(p->when = strdup(lua_tostring(S, -1))))
                return spec_error(S, p, "%s", "out of memory");
        } else {
            return spec_error(S, p, "order: unknown field '%s' (key, descending, when)", k);
        }
        lua_pop(S, 1);
    }
    if (p->key == K_NONE)
        return spec_error(S, p, "order: %s", "a declarative order needs a key");
    return 0;
}

/* Read the policy table at t into p (functions go into the user value
 * table uv).  0, or -1 with a message pushed. */
static int parse_spec(lua_State *S, struct grovel_policy *p, int t, int uv, const char *dflt)
{
    /* the hooks a policy table names, by kind (the order key is order's) */
    static const char *const fnames[] = {"prune", "order", "score", "choose", NULL, "scores"};
    const grove_policy_t *base = NULL;
    int select = -1, nodex = -1, by_use = -1, nodec = -1;
    bool given[H_COUNT] = {false};
    lua_pushnil(S);
    while (lua_next(S, t)) {
        if (lua_type(S, -2) != LUA_TSTRING)
            return spec_error(S, p, "the policy table has a %s key (fields are named)",
                              luaL_typename(S, -2));
        const char *k = lua_tostring(S, -2);
        int vt = lua_type(S, -1);
        int hook = -1;
        for (int i = 0; i < (int)(sizeof(fnames) / sizeof(*fnames)); i++)
            if (fnames[i] && !strcmp(k, fnames[i]))
                hook = i;
        if (k[0] == '_') {
            /* private fields of the policy: ignored */
        } else if (!strcmp(k, "name") || !strcmp(k, "description")) {
            if (vt != LUA_TSTRING)
                return spec_error(S, p, "field '%s' must be a string", k);
            char *s = strdup(lua_tostring(S, -1));
            if (!s)
                return spec_error(S, p, "%s", "out of memory");
            char **dst = k[0] == 'n' ? &p->name : &p->description;
            free(*dst);
            *dst = s;
        } else if (!strcmp(k, "base")) {
            if (vt != LUA_TSTRING || !(base = grove_policy_builtin(lua_tostring(S, -1))))
                return spec_error(S, p, "base must name a built-in policy ('%s' is not one)",
                                  vt == LUA_TSTRING ? lua_tostring(S, -1) : luaL_typename(S, -1));
        } else if (!strcmp(k, "select")) {
            const char *s = vt == LUA_TSTRING ? lua_tostring(S, -1) : "";
            if (!strcmp(s, "first"))
                select = GROVE_SELECT_FIRST;
            else if (!strcmp(s, "best"))
                select = GROVE_SELECT_BEST;
            else
                return spec_error(S, p, "select must be \"first\" or \"best\", not %s",
                                  vt == LUA_TSTRING ? s : luaL_typename(S, -1));
        } else if (!strcmp(k, "node_exclusive") || !strcmp(k, "explore_by_use")) {
            if (vt != LUA_TBOOLEAN)
                return spec_error(S, p,
                                  k[0] == 'n' ? "node_exclusive must be a boolean, not %s"
                                              : "explore_by_use must be a boolean, not %s",
                                  luaL_typename(S, -1));
            *(k[0] == 'n' ? &nodex : &by_use) = lua_toboolean(S, -1);
        } else if (!strcmp(k, "node_centric")) {
            if (vt != LUA_TBOOLEAN)
                return spec_error(S, p, "node_centric must be a boolean, not %s",
                                  luaL_typename(S, -1));
            nodec = lua_toboolean(S, -1);
        } else if (!strcmp(k, "prune_types") || !strcmp(k, "score_types")) {
            if (parse_types(S, p, k[0] == 's', lua_gettop(S), k) < 0)
                return -1;
        } else if (hook == H_ORDER && vt == LUA_TTABLE) {
            if (parse_order_table(S, p, lua_gettop(S), uv) < 0)
                return -1;
            given[H_ORDER] = true;
        } else if (hook >= 0) {
            if (vt != LUA_TFUNCTION)
                return spec_error(S, p, hook == H_ORDER
                                            ? "order must be a function or a table, not %s"
                                            : "a hook must be a function, not %s",
                                  luaL_typename(S, -1));
            lua_pushvalue(S, -1);
            lua_setfield(S, uv, k);
            p->lua[hook] = true;
            given[hook] = true;
            func_where(S, -1, p->where[hook], sizeof(p->where[hook]));
        } else {
            return spec_error(S, p,
                              "unknown field '%s' (name, description, base, prune, order, "
                              "score, scores, choose, select, node_exclusive, node_centric, "
                              "explore_by_use, prune_types, score_types)", k);
        }
        lua_pop(S, 1);
    }
    if (given[H_SCORE] && given[H_SCORES])
        return spec_error(S, p, "%s", "score and scores both given (scores replaces score)");
    if (!p->name && !(p->name = strdup(dflt)))
        return spec_error(S, p, "%s", "out of memory");
    grove_policy_t h = {0};
    if (base)
        h = *base;
    h.name = p->name;
    h.arg = p;
    if (p->lua[H_PRUNE])
        h.prune = tramp_prune;
    if (p->lua[H_ORDER])
        h.order = tramp_order;
    else if (given[H_ORDER])
        h.order = decl_order;
    if (p->lua[H_SCORE]) {
        h.score = tramp_score;
        h.scores = NULL;
    }
    if (p->lua[H_SCORES]) {
        h.scores = tramp_scores;
        h.score = NULL;
    }
    if (p->lua[H_CHOOSE])
        h.choose = tramp_choose;
    if (select >= 0)
        h.select = (grove_select_t)select;
    else if (given[H_SCORE] || given[H_SCORES] || given[H_CHOOSE])
        h.select = GROVE_SELECT_BEST;
    if (nodex >= 0)
        h.node_exclusive = nodex;
    if (by_use >= 0)
        h.explore_by_use = by_use;
    if (nodec >= 0)
        h.node_centric = nodec;
    h.prune_types = (const char *const *)p->types[0];
    h.score_types = (const char *const *)p->types[1];
    p->hooks = h;
    return 0;
}

/* ---- loading ------------------------------------------------------------------------------ */

static void free_types(char **list)
{
    for (size_t i = 0; list && list[i]; i++)
        free(list[i]);
    free(list);
}

/* The handle's destroy: free what the policy holds (the handle then
 * clears every byte, which closes it). */
static void policy_free(void *arg)
{
    struct grovel_policy *p = arg;
    grovel_sandbox_close(&p->sb);
    free(p->name);
    free(p->description);
    free(p->source);
    free(p->key_prop);
    free(p->when);
    free(p->err);
    free(p->traceback);
    free(p->sk);
    free(p->vb);
    free(p->kval);
    free(p->kstamp);
    free(p->cx.below);
    free(p->cx.below_done);
    free_types(p->types[0]);
    free_types(p->types[1]);
}

static void policy_closable(lua_State *L, void *ud)
{
    if (((struct grovel_policy *)ud)->active)
        luaL_error(L, "policy is running a match");
}

static void policy_describe(lua_State *L, void *arg)
{
    const struct grovel_policy *p = arg;
    lua_pushfstring(L, "grove.policy (%s, %s)", p->name, p->source);
}

static const grovel_class_t policy_class; /* defined by api.tsv */

/* The base name of path without its directory and ".lua". */
static const char *base_name(const char *path, size_t *len)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 4 && !strcmp(b + n - 4, ".lua"))
        n -= 4;
    *len = n;
    return b;
}

/* What load_body is given and answers. */
struct loading {
    struct grovel_policy *p;
    const char *text, *chunkname, *dflt;
    size_t len;
    const char *code; /* on failure: "EINVAL" or "ENOMEM" */
};

/* In the sandbox, protected: load the chunk, run it, read its table.  0,
 * or 1 with the message on top and l->code set. */
static int load_body(lua_State *S)
{
    struct loading *l = lua_touserdata(S, 1);
    struct grovel_policy *p = l->p;
    grovel_views_open(S, &p->views);
    lua_createtable(S, 0, 5);
    int hooks = lua_gettop(S);
    lua_pushvalue(S, hooks);
    lua_rawsetp(S, LUA_REGISTRYINDEX, &HOOKS_KEY);
    lua_createtable(S, 0, 16);
    lua_rawsetp(S, LUA_REGISTRYINDEX, &CTX_KEY);
    int st = luaL_loadbufferx(S, l->text, l->len, l->chunkname, "t");
    if (st != LUA_OK) {
        l->code = st == LUA_ERRMEM ? "ENOMEM" : "EINVAL";
        return 1;
    }
    int fn = lua_gettop(S);
    lua_Debug ar;
    lua_pushvalue(S, fn);
    lua_getinfo(S, ">S", &ar);
    memcpy(p->short_src, ar.short_src, sizeof(p->short_src));
    snprintf(p->where[H_CHUNK], sizeof(p->where[H_CHUNK]), "%s", p->short_src);
    grovel_sandbox_push_env(&p->sb);
    lua_setupvalue(S, fn, 1); /* _ENV */
    st = grovel_sandbox_pcall(&p->sb, 0, 1);
    l->code = "EINVAL";
    if (st != LUA_OK) {
        record_error(p, H_CHUNK, st);
        lua_pushstring(S, p->err ? p->err : "policy failed to load");
        return 1;
    }
    if (lua_type(S, -1) != LUA_TTABLE) {
        lua_pushfstring(S, "%s: a policy must return a table (got %s)", p->short_src,
                        luaL_typename(S, -1));
        return 1;
    }
    int t = lua_gettop(S);
    size_t n;
    const char *b = base_name(l->dflt, &n);
    lua_pushlstring(S, b, n);
    if (parse_spec(S, p, t, hooks, lua_tostring(S, -1)) < 0)
        return 1;
    return 0;
}

/* Make a policy from text; source names it in messages.  Returns 1 (the
 * policy) or 3 (nil, message, code). */
static int make_policy(lua_State *L, const char *text, size_t len, const char *source,
                       const char *dflt, int optarg)
{
    grovel_sandbox_t limits;
    grovel_sandbox_check_limits(L, optarg, &limits);
    struct grovel_policy *p = (struct grovel_policy *)grovel_handle_new(L, &policy_class);
    p->h.p = p;
    p->sb = limits;
    p->kgen = 1;
    p->views.epoch = 1;
    if (!(p->source = strdup(source)))
        return luaL_error(L, "out of memory");
    const char *chunkname = lua_pushfstring(L, "@%s", source);
    if (grovel_sandbox_open(&p->sb, source) < 0)
        return grovel_fail(L, "cannot create the policy's sandbox: out of memory", "ENOMEM");
    lua_State *S = p->sb.S;
    struct loading l = {p, text, chunkname, dflt, len, "EINVAL"};
    grovel_sandbox_start(&p->sb);
    lua_pushcfunction(S, load_body);
    lua_pushlightuserdata(S, &l);
    int st = lua_pcall(S, 1, 1, 0);
    grovel_sandbox_stop(&p->sb);
    if (st != LUA_OK || lua_toboolean(S, -1)) {
        /* the message is on top of the sandbox's stack: a string */
        const char *msg = lua_tostring(S, -1);
        if (st != LUA_OK) {
            char lim[512];
            const char *why = grovel_sandbox_limit_message(&p->sb, st, p->short_src, lim,
                                                           sizeof(lim));
            msg = why ? why : msg;
            l.code = st == LUA_ERRMEM && !why ? "ENOMEM" : "EINVAL";
        }
        lua_pushstring(L, msg ? msg : "policy failed to load");
        lua_settop(S, 0);
        return grovel_fail(L, lua_tostring(L, -1), l.code);
    }
    lua_settop(S, 0);
    lua_pop(L, 1);
    return 1;
}

static void close_file(void *f)
{
    fclose(f);
}

static int l_policy_load(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    lua_settop(L, 2); /* the options stay at 2 */
    struct grovel_box *box = grovel_box_new(L, close_file); /* owns the FILE */
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        return grovel_fail_errno(L, e == ENOENT ? ENOENT : EINVAL,
                                 lua_pushfstring(L, "%s: %s", path, strerror(e)));
    }
    box->p = f;
    grove_limits_t lim;
    grove_limits_get(&lim);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    size_t n, total = 0;
    const char *nul = NULL;
    do {
        char *dst = luaL_prepbuffer(&b);
        n = fread(dst, 1, LUAL_BUFFERSIZE, f);
        /* policy source is text: stop at the first NUL or past the input
         * limit rather than read a device that never ends (/dev/zero) */
        nul = memchr(dst, '\0', n);
        if (nul)
            n = (size_t)(nul - dst);
        luaL_addsize(&b, n);
        total += n;
    } while (!nul && n == LUAL_BUFFERSIZE && total <= lim.input);
    luaL_pushresult(&b);
    int bad = ferror(f) ? (errno ? errno : EIO) : 0; /* EISDIR for a directory */
    box->p = NULL;
    fclose(f);
    if (bad)
        return grovel_fail_errno(L, bad, lua_pushfstring(L, "%s: %s", path, strerror(bad)));
    if (nul)
        return grovel_fail_errno(L, EINVAL,
                                 lua_pushfstring(L, "%s: byte %I is NUL: not a text file", path,
                                                 (lua_Integer)total));
    if (total > lim.input)
        return grovel_fail_errno(
            L, EOVERFLOW,
            lua_pushfstring(L, "%s: larger than the input limit of %I bytes (GROVE_MAX_INPUT)",
                            path, (lua_Integer)lim.input));
    size_t len;
    const char *text = lua_tolstring(L, -1, &len);
    return make_policy(L, text, len, path, path, 2);
}

static int l_policy_parse(lua_State *L)
{
    size_t len;
    const char *name;
    const char *text = grovel_check_source(L, &len, &name);
    return make_policy(L, text, len, name, name, 3);
}

/* ---- matches ------------------------------------------------------------------------------ */

struct grovel_policy *grovel_test_policy(lua_State *L, int idx)
{
    return luaL_testudata(L, idx, GROVEL_POLICY);
}

struct grovel_policy *grovel_check_policy(lua_State *L, int idx)
{
    return grovel_handle_check(L, idx, &policy_class);
}

bool grovel_policy_is_open(const struct grovel_policy *p)
{
    return p->h.p != NULL;
}

const grove_policy_t *grovel_policy_hooks(const struct grovel_policy *p)
{
    return &p->hooks;
}

bool grovel_policy_needs_lua(const struct grovel_policy *p)
{
    return p->lua[H_PRUNE] || p->lua[H_ORDER] || p->lua[H_SCORE] || p->lua[H_CHOOSE]
           || p->lua[H_SCORES] || (p->hooks.order == decl_order && p->key == K_FUNCTION);
}

const char *grovel_policy_error(const struct grovel_policy *p)
{
    return p->err;
}

/* In the sandbox, protected: push the hook functions and the ctx table. */
static int begin_body(lua_State *S)
{
    lua_settop(S, 0);
    lua_rawgetp(S, LUA_REGISTRYINDEX, &HOOKS_KEY);
    for (size_t i = 0; i < sizeof(hook_fields) / sizeof(*hook_fields); i++)
        lua_getfield(S, 1, hook_fields[i]);
    lua_remove(S, 1);
    lua_rawgetp(S, LUA_REGISTRYINDEX, &CTX_KEY);
    return S_COUNT;
}

/* Room for the per-match caches (key values by vertex, types below each
 * request vertex); raises on the host when memory is short. */
static void reserve_caches(lua_State *L, struct grovel_policy *p, const grove_graph_t *g)
{
    if (p->key == K_FUNCTION) {
        size_t n = grove_graph_vertex_slots(g), cap = p->kcap;
        if (n > cap) {
            if (grow((void **)&p->kval, &cap, n, sizeof(*p->kval)) < 0)
                luaL_error(L, "out of memory");
            cap = p->kcap;
            if (grow((void **)&p->kstamp, &cap, n, sizeof(*p->kstamp)) < 0)
                luaL_error(L, "out of memory");
            memset(p->kstamp + p->kcap, 0, (cap - p->kcap) * sizeof(*p->kstamp));
            p->kcap = cap;
        }
        if (++p->kgen == 0) {
            memset(p->kstamp, 0, p->kcap * sizeof(*p->kstamp));
            p->kgen = 1;
        }
    }
    if (p->cx.nbelow)
        memset(p->cx.below_done, 0, p->cx.nbelow * sizeof(*p->cx.below_done));
}

void grovel_policy_begin(lua_State *L, int pidx, const void *owner, grove_graph_t *g)
{
    struct grovel_policy *p = grovel_check_policy(L, pidx);
    if (p->active)
        luaL_error(L, "policy %s is already running a match", p->name);
    reserve_caches(L, p, g);
    lua_State *S = p->sb.S;
    if (!lua_checkstack(S, S_COUNT + 8))
        luaL_error(L, "policy %s: out of memory", p->name);
    p->base = lua_gettop(S);
    lua_pushcfunction(S, begin_body);
    if (lua_pcall(S, 0, S_COUNT, 0) != LUA_OK) {
        lua_settop(S, p->base);
        luaL_error(L, "policy %s: out of memory", p->name);
    }
    free(p->err);
    free(p->traceback);
    p->err = p->traceback = NULL;
    if (owner != p->owner || g != p->last_g) {
        p->views.epoch++; /* views of another matcher or graph stop working */
        if (p->views.epoch == 0)
            p->views.epoch = 1;
        p->owner = owner;
        p->last_g = g;
    }
    p->views.g = g;
    p->views.start = p->views.end = 0;
    p->cx.valid = false;
    p->active = true;
    grovel_sandbox_start(&p->sb);
}

void grovel_policy_end(lua_State *L, struct grovel_policy *p)
{
    (void)L;
    grovel_sandbox_stop(&p->sb);
    p->active = false;
    p->views.g = NULL;
    lua_settop(p->sb.S, p->base);
}

/* ---- policy methods ------------------------------------------------------------------------ */

static int p_name(lua_State *L)
{
    lua_pushstring(L, grovel_check_policy(L, 1)->name);
    return 1;
}

enum { P_DESCRIPTION, P_TRACEBACK };

/* description() and traceback(): the text the arg names, or nothing. */
static int p_text(lua_State *L)
{
    struct grovel_policy *p = grovel_check_policy(L, 1);
    const char *s = grovel_uparg(L) == P_DESCRIPTION ? p->description : p->traceback;
    if (!s)
        return 0;
    lua_pushstring(L, s);
    return 1;
}

static int p_source(lua_State *L)
{
    lua_pushstring(L, grovel_check_policy(L, 1)->source);
    return 1;
}

static void push_types(lua_State *L, char **list, const char *field)
{
    if (!list)
        return;
    grovel_push_strings(L, list, SIZE_MAX, NULL);
    lua_setfield(L, -2, field);
}

/* hooks() -> {prune = "lua" | "c", order = ..., score = ..., scores = ..., choose = ...,
 *             select = "first" | "best", node_exclusive = bool, node_centric = bool,
 *             explore_by_use = true (only when set), prune_types = {...},
 *             score_types = {...}} */
static int p_hooks(lua_State *L)
{
    struct grovel_policy *p = grovel_check_policy(L, 1);
    const grove_policy_t *h = &p->hooks;
    bool has[H_CHUNK] = {h->prune != NULL, h->order != NULL, h->score != NULL,
                         h->choose != NULL, false, h->scores != NULL};
    lua_createtable(L, 0, 8);
    for (int i = 0; i < H_CHUNK; i++) {
        if (!has[i])
            continue;
        bool lua = p->lua[i] || (i == H_ORDER && h->order == decl_order && p->key == K_FUNCTION);
        lua_pushstring(L, lua ? "lua" : "c");
        lua_setfield(L, -2, hook_names[i]);
    }
    lua_pushstring(L, h->select == GROVE_SELECT_BEST ? "best" : "first");
    lua_setfield(L, -2, "select");
    lua_pushboolean(L, h->node_exclusive);
    lua_setfield(L, -2, "node_exclusive");
    lua_pushboolean(L, h->node_centric);
    lua_setfield(L, -2, "node_centric");
    if (h->explore_by_use) {
        lua_pushboolean(L, true);
        lua_setfield(L, -2, "explore_by_use");
    }
    push_types(L, p->types[0], "prune_types");
    push_types(L, p->types[1], "score_types");
    return 1;
}

enum { P_BUDGET, P_MEMORY, P_TIME, P_HEAP };

/* budget(), memory(), time(): the limits; heap(): bytes the policy holds
 * now (what the memory cap counts). */
static int p_limit(lua_State *L)
{
    struct grovel_policy *p = grovel_check_policy(L, 1);
    switch (grovel_uparg(L)) {
    case P_BUDGET: lua_pushinteger(L, p->sb.budget); break;
    case P_MEMORY: lua_pushinteger(L, (lua_Integer)p->sb.memcap); break;
    case P_TIME: lua_pushnumber(L, p->sb.time); break;
    default: lua_pushinteger(L, (lua_Integer)(p->sb.heap - p->sb.base)); break;
    }
    return 1;
}

#include "api_policy.h"
