/* l_policy_dispatch.c: a Lua policy's hooks, called from the matcher.
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
 * The declarative order (order = {key = ...}) is here too: sorted in C,
 * calling Lua only for a key function.
 *
 * This file must not read the policy table or load anything (l_policy.c)
 * nor build what hooks are handed (l_policy_views.c); nothing here may
 * reach inside a view or change the sandbox's limits.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lpolicy_private.h"

/* ---- errors ----------------------------------------------------------------- */

/* Record the failure of a run of hook kind (status from lua_pcall, the
 * error value -- a string from the traceback handler -- on top of the
 * sandbox's stack).  The message names the policy, the hook, and the file
 * and line.  Reads the sandbox without allocating in it. */
void grovelp_policy_record_error(struct grovel_policy *p, int kind, int status)
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

/* ---- trampolines ----------------------------------------------------------------- */

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

/* Whether got (n vertices) is a permutation of the n children: by marks
 * in the policy's ostamp when it has room (each child marked, each vertex
 * of got must find its mark and clears it), else, or when a mark is
 * missing (a child listed twice), as sorted multisets. */
static bool is_permutation(struct grovel_policy *p, const grove_vid_t *kids, grove_vid_t *got,
                           size_t n)
{
    size_t i = 0;
    if (p->ocap) {
        if (++p->ogen == 0) {
            memset(p->ostamp, 0, p->ocap * sizeof(*p->ostamp));
            p->ogen = 1;
        }
        for (i = 0; i < n && kids[i] < p->ocap; i++)
            p->ostamp[kids[i]] = p->ogen;
        if (i == n)
            for (i = 0; i < n && got[i] < p->ocap && p->ostamp[got[i]] == p->ogen; i++)
                p->ostamp[got[i]] = 0;
    }
    if (i == n)
        return true;
    grove_vid_t *want = got + n, *tmp = got + 2 * n;
    memcpy(want, kids, n * sizeof(*want));
    qsort(want, n, sizeof(*want), cmp_vid);
    memcpy(tmp, got, n * sizeof(*tmp));
    qsort(tmp, n, sizeof(*tmp), cmp_vid);
    return memcmp(tmp, want, n * sizeof(*tmp)) == 0;
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
    grove_vid_t *got = p->vb;
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(S, idx, (lua_Integer)i + 1);
        got[i] = grovel_test_view(S, -1, &p->views);
        if (got[i] == GROVE_VID_NONE)
            hook_fail(S, c, lua_pushfstring(S, "returned a %s at position %I (expected a vertex)",
                                            luaL_typename(S, -1), (lua_Integer)i + 1));
        lua_pop(S, 1);
    }
    if (!is_permutation(p, c->kids, got, n))
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
    grovelp_policy_push_keys(S, c->p, c);
    lua_call(S, nargs, 1);
    if (lua_type(S, -1) != LUA_TTABLE)
        bad_return(S, c, expected, -1);
    take(S, c, lua_gettop(S));
}

/* The protected body of a hook call.  Arguments: the call record, the Lua
 * function, the ctx table. */
/* hook_body's prune of a list (c->vs, c->n): each answer into c->bout,
 * the first's into c->result. */
static void prune_list(lua_State *S, struct call *c, int fn, int ctx)
{
    struct grovel_views *vw = &c->p->views;
    for (size_t i = 0; i < c->n; i++) {
        vw->cand = c->vs[i];
        lua_pushvalue(S, fn);
        grovel_push_view(S, vw, c->vs[i]);
        lua_pushvalue(S, ctx);
        lua_call(S, 2, 1);
        int t = lua_type(S, -1);
        if (t != LUA_TNIL && t != LUA_TBOOLEAN)
            bad_return(S, c, "a boolean", -1);
        c->bout[i] = (uint8_t)lua_toboolean(S, -1);
        lua_pop(S, 1);
    }
    c->result = c->bout[0];
}

static int hook_body(lua_State *S)
{
    struct call *c = lua_touserdata(S, 1);
    struct grovel_policy *p = c->p;
    struct grovel_views *vw = &p->views;
    int fn = 2, ctx = 3, t;
    switch (c->kind) {
    case H_PRUNE:
        grovelp_policy_set_ctx(S, p, c->ctx, ctx);
        if (c->vs) { /* a vertex and its siblings not answered yet, in one protected call */
            prune_list(S, c, fn, ctx);
            break;
        }
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
        if (c->vs) { /* every candidate of a level, in this one protected call */
            grovelp_policy_set_ctx(S, p, c->ctx, ctx);
            for (size_t i = 0; i < c->n; i++) {
                vw->cand = c->vs[i]; /* what is local to this call */
                lua_pushvalue(S, fn);
                grovel_push_view(S, vw, c->vs[i]);
                lua_pushvalue(S, ctx);
                lua_call(S, 2, 1);
                if (lua_type(S, -1) != LUA_TNUMBER)
                    bad_return(S, c, "a number", -1);
                c->out[i] = lua_tonumber(S, -1);
                if (isnan(c->out[i]))
                    hook_fail(S, c, "returned NaN");
                lua_pop(S, 1);
            }
            break;
        }
        __attribute__((fallthrough)); /* one score hook for a single candidate */
    case H_KEY:
        if (c->kind == H_KEY && c->vs) { /* the uncached children of a list */
            for (size_t i = 0; i < c->n; i++) {
                lua_pushvalue(S, fn);
                grovel_push_view(S, vw, c->vs[i]);
                lua_call(S, 1, 1);
                if (lua_type(S, -1) != LUA_TNUMBER)
                    bad_return(S, c, "a number", -1);
                double k = lua_tonumber(S, -1);
                if (isnan(k))
                    hook_fail(S, c, "returned NaN");
                p->kval[c->vs[i]] = k;
                lua_pop(S, 1);
            }
            break;
        }
        lua_pushvalue(S, fn);
        grovel_push_view(S, vw, c->v);
        if (c->kind == H_SCORE) {
            grovelp_policy_set_ctx(S, p, c->ctx, ctx);
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
        if (c->n >= GROVEL_SB_ARRAY_MIN && c->n <= GROVEL_SB_ARRAY_MAX
            && lua_checkstack(S, (int)c->n + 2)) { /* in one step (else one by one) */
            grovel_sandbox_push_array_maker(S);
            for (size_t i = 0; i < c->n; i++)
                grovel_push_view(S, vw, c->kids[i]);
            lua_call(S, (int)c->n, 1);
        } else {
            lua_createtable(S, (int)c->n, 0);
            for (size_t i = 0; i < c->n; i++) {
                grovel_push_view(S, vw, c->kids[i]);
                lua_rawseti(S, -2, (lua_Integer)i + 1);
            }
        }
        int arr = lua_gettop(S);
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
        grovelp_policy_begin_keyed(p, c);
        grovelp_policy_push_lazy(S, p, c, 0);
        lua_pushinteger(S, (lua_Integer)c->k);
        grovelp_policy_push_lazy(S, p, c, 1);
        call_keyed(S, c, 4, "an array of positions", take_choice);
        break;
    }
    case H_SCORES:
        grovelp_policy_set_ctx(S, p, c->ctx, ctx);
        lua_pushvalue(S, fn);
        grovelp_policy_begin_keyed(p, c);
        grovelp_policy_push_lazy(S, p, c, 0);
        lua_pushvalue(S, ctx);
        call_keyed(S, c, 3, "an array of scores", take_scores);
        break;
    default:
        break;
    }
    return 0;
}

/* Watch what the call c reads (grovel_views_note): score, scores and
 * prune calls; a declaration the reads must keep to raises. */
static void watch_begin(struct grovel_policy *p, struct call *c)
{
    struct grovel_views *vs = &p->views;
    vs->watch = c->kind == H_PRUNE || c->kind == H_SCORE || c->kind == H_SCORES;
    vs->rd = 0;
    vs->totals = 0;
    vs->checks = vs->kvreads = 0;
    vs->scores = c->kind == H_SCORES;
    vs->cand = c->kind == H_SCORES ? GROVE_VID_NONE : c->v;
    vs->deny = c->kind == H_PRUNE ? p->prune_deny : vs->watch ? p->score_deny : 0;
    vs->denied = c->kind == H_PRUNE ? p->prune_denied : p->score_denied;
    if (c->kind != H_SCORES)
        return;
    /* a scores call's own: its candidates and what lies below them */
    if (++vs->cgen == 0) {
        memset(p->cmark, 0, p->cmcap * sizeof(*p->cmark));
        vs->cgen = 1;
    }
    /* (sized to the graph at the match's begin; a vertex past it, none,
     * would read as no candidate: not local) */
    vs->cmark = p->cmark;
    vs->ncmark = p->cmcap;
    for (size_t i = 0; i < c->n; i++)
        if (c->vs[i] < p->cmcap)
            p->cmark[c->vs[i]] = vs->cgen;
}

/* What the call read, once it returned. */
static void watch_end(struct grovel_policy *p, struct call *c)
{
    struct grovel_views *vs = &p->views;
    if (!vs->watch)
        return;
    vs->watch = false;
    c->reads = (grove_policy_reads_t){vs->rd, vs->totals};
    c->only_kv = vs->checks == vs->kvreads;
    if (c->kind != H_PRUNE) {
        p->acc.what |= vs->rd & ~(unsigned)GROVEL_READ_RECORDS;
        p->acc.totals |= vs->totals;
    }
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
    watch_begin(p, c);
    int st = grovel_sandbox_pcall(&p->sb, 3, 0);
    watch_end(p, c);
    p->keyed = NULL; /* also when the hook raised */
    if (st != LUA_OK) {
        grovelp_policy_record_error(p, c->kind, st);
        lua_settop(S, top);
        errno = ECANCELED;
        return -1;
    }
    lua_settop(S, top);
    return 0;
}

/* How many siblings a prune answering alike whenever asked
 * (prune_static) is asked about with the vertex the matcher asks for. */
#define PRUNE_BATCH 64

/* For a prune_static policy that writes nothing (proof quiet: no log
 * line may tell of a vertex the walk never reached): v, then the siblings
 * after it in containment
 * that the prune applies to and has not answered yet (at most
 * PRUNE_BATCH in all), into p->vb: how many (1: v alone; 0 when there is
 * no room).  The matcher asks for a node's cores one by one, each a
 * protected call into the sandbox; asked together, the calls after the
 * first cost a Lua call each, and the answers are kept as any prune_static
 * answer is (the contract lets the matcher ask any vertex, any time). */
static size_t prune_siblings(struct grovel_policy *p, const grove_graph_t *g, grove_vid_t v)
{
    if (grow((void **)&p->vb, &p->vbcap, PRUNE_BATCH, sizeof(*p->vb)) < 0
        || grow((void **)&p->pbout, &p->pboutcap, PRUNE_BATCH, sizeof(*p->pbout)) < 0)
        return 0;
    size_t n = 0;
    p->vb[n++] = v;
    grove_sym_t sub = p->views.contain;
    grove_vid_t up = sub == GROVE_SYM_NONE ? GROVE_VID_NONE : grove_vertex_parent(g, v, sub);
    if (up == GROVE_VID_NONE)
        return n;
    grove_eid_t cur;
    bool after = false;
    for (grove_vid_t k = grove_vertex_first_child(g, up, sub, &cur);
         k != GROVE_VID_NONE && n < PRUNE_BATCH; k = grove_vertex_next_child(g, sub, &cur)) {
        if (k == v) {
            after = true;
            continue;
        }
        if (!after || k >= p->pcap || p->pstamp[k] == p->pgen
            || !grove_policy_applies(g, p->hooks.prune_types, grove_vertex_type_sym(g, k)))
            continue;
        p->vb[n++] = k;
    }
    return n;
}

/* Has v no property and no tag? */
static bool bare(const grove_graph_t *g, grove_vid_t v)
{
    return grove_vertex_property_count(g, v) == 0 && grove_vertex_tag_count(g, v) == 0;
}

/* prune: the answer kept for v when there is one (a call that read
 * nothing but the graph's content, on the graph as it is), else the
 * hook's, kept when its call read nothing else. */
int grovelp_policy_tramp_prune(void *arg, const grove_graph_t *g, grove_vid_t v,
                               const grove_policy_ctx_t *ctx)
{
    struct grovel_policy *p = arg;
    bool keep = p->proof[H_PRUNE].pure && v < p->pcap;
    if (keep) {
        uint64_t chg = grove_graph_changes(g);
        if (chg != p->pchg || p->views.epoch != p->pepoch) {
            if (++p->pgen == 0) {
                memset(p->pstamp, 0, p->pcap * sizeof(*p->pstamp));
                p->pgen = 1;
            }
            p->pchg = chg;
            p->pepoch = p->views.epoch;
        }
        if (p->pstamp[v] == p->pgen)
            return p->pval[v];
        if (p->bare_gen == p->pgen && bare(g, v)) {
            p->pstamp[v] = p->pgen;
            p->pval[v] = p->bare_val;
            return p->bare_val;
        }
    }
    struct call c = {.p = p, .kind = H_PRUNE, .v = v, .ctx = ctx};
    size_t n = keep && p->hooks.prune_static && p->proof[H_PRUNE].quiet
                   ? prune_siblings(p, g, v)
                   : 0;
    if (n > 1) {
        c.vs = p->vb;
        c.n = n;
        c.bout = p->pbout;
    }
    if (run_hook(&c) < 0)
        return -1;
    if (keep && c.reads.what == 0 && c.reads.totals == 0) {
        p->pstamp[v] = p->pgen;
        p->pval[v] = (uint8_t)c.result;
        for (size_t i = 1; i < c.n; i++) {
            p->pstamp[c.vs[i]] = p->pgen;
            p->pval[c.vs[i]] = c.bout[i];
        }
        /* what it read of the views was their own properties and tags:
         * a vertex of none answers as any other of none */
        for (size_t i = 0; c.only_kv && p->bare_gen != p->pgen && i < (c.n > 1 ? c.n : 1); i++) {
            grove_vid_t u = i ? c.vs[i] : v;
            if (bare(g, u)) {
                p->bare_gen = p->pgen;
                p->bare_val = i ? c.bout[i] : (uint8_t)c.result;
            }
        }
    }
    return c.result;
}

void grovelp_policy_observe(void *arg, grove_policy_reads_t *out)
{
    struct grovel_policy *p = arg;
    int kind = p->lua[H_SCORES] ? H_SCORES : H_SCORE;
    *out = p->acc;
    p->acc = (grove_policy_reads_t){0, 0};
    /* what its code might read besides: state of its own, or, in a scores
     * call, one candidate's values for another's score */
    if (!p->proof[kind].pure || (kind == H_SCORES && !p->proof[kind].apart))
        out->what |= GROVE_READ_OTHER;
}

int grovelp_policy_tramp_score(void *arg, const grove_graph_t *g, grove_vid_t v,
                               const grove_policy_ctx_t *ctx, double *score)
{
    (void)g;
    struct call c = {.p = arg, .kind = H_SCORE, .v = v, .ctx = ctx};
    if (run_hook(&c) < 0)
        return -1;
    *score = c.value;
    return 0;
}

/* score for each of the n candidates of a level: the core's scores hook,
 * so that a level costs one protected call into the sandbox (and one ctx
 * update), not one per candidate.  The policy sees the same calls,
 * score(v, ctx) for each candidate in visiting order, after the level's
 * candidates were found. */
int grovelp_policy_tramp_score_all(void *arg, const grove_graph_t *g, const grove_vid_t *vs,
                                   size_t n, const grove_policy_ctx_t *ctx, double *out)
{
    struct call c = {
        .p = arg, .kind = H_SCORE, .vs = vs, .n = n, .ctx = ctx, .out = out, .g = g};
    return run_hook(&c);
}

/* The children come to the function in the order the policy has without
 * it: its base's (C, before the call), else the graph's; a function that
 * leaves them as they are leaves that order. */
int grovelp_policy_tramp_order(void *arg, const grove_graph_t *g, grove_vid_t parent,
                               grove_vid_t *kids, size_t n)
{
    struct grovel_policy *p = arg;
    if (p->base_order && p->base_order(p, g, parent, kids, n) < 0)
        return -1;
    struct call c = {.p = p, .kind = H_ORDER, .v = parent, .kids = kids, .n = n};
    return run_hook(&c);
}

int grovelp_policy_tramp_choose(void *arg, const grove_graph_t *g, const grove_vid_t *vs,
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

int grovelp_policy_tramp_scores(void *arg, const grove_graph_t *g, const grove_vid_t *vs, size_t n,
                                const grove_policy_ctx_t *ctx, double *out)
{
    struct call c = {
        .p = arg, .kind = H_SCORES, .vs = vs, .n = n, .ctx = ctx, .out = out, .g = g};
    return run_hook(&c);
}

/* ---- declarative order ------------------------------------------------------------ */

/* The key function's values of the children not valued yet in this
 * match, in one protected call (the calls made in list order, each vertex
 * once a match), into kval. */
static int key_values(struct grovel_policy *p, const grove_vid_t *kids, size_t n)
{
    if (grow((void **)&p->vb, &p->vbcap, n, sizeof(*p->vb)) < 0) {
        errno = ENOMEM;
        return -1;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        grove_vid_t v = kids[i];
        if (v >= p->kcap) { /* no room (the caches are sized to the graph) */
            errno = EINVAL;
            return -1;
        }
        if (p->kstamp[v] != p->kgen) {
            p->kstamp[v] = p->kgen;
            p->vb[m++] = v;
        }
    }
    if (m == 0)
        return 0;
    struct call c = {.p = p, .kind = H_KEY, .vs = p->vb, .n = m};
    return run_hook(&c);
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

int grovelp_policy_decl_order(void *arg, const grove_graph_t *g, grove_vid_t parent,
                              grove_vid_t *kids, size_t n)
{
    struct grovel_policy *p = arg;
    if (p->when) {
        size_t i = 0;
        while (i < n && strcmp(grove_vertex_type(g, kids[i]), p->when))
            i++;
        if (i == n) /* a list the order leaves: the base's order, else the graph's */
            return p->base_order ? p->base_order(p, g, parent, kids, n) : 0;
    }
    if (grow((void **)&p->sk, &p->skcap, n, sizeof(*p->sk)) < 0) {
        errno = ENOMEM;
        return -1;
    }
    if (p->key == K_FUNCTION && key_values(p, kids, n) < 0)
        return -1;
    grove_sym_t type = p->key == K_FREE ? grove_graph_sym_lookup(g, p->key_prop)
                                        : GROVE_SYM_NONE;
    for (size_t i = 0; i < n; i++) {
        p->sk[i].v = kids[i];
        p->sk[i].k = p->key == K_FUNCTION ? p->kval[kids[i]]
                                          : grovelp_policy_key_value(g, kids[i], p->key,
                                                                     p->key_prop, type, 0, 0);
    }
    qsort(p->sk, n, sizeof(*p->sk), p->desc ? cmp_desc : cmp_asc);
    for (size_t i = 0; i < n; i++)
        kids[i] = p->sk[i].v;
    return 0;
}

/* Nothing of this file is registered in grove.core (bindings/api.tsv). */
int grovel_open_policy_dispatch(lua_State *L)
{
    (void)L;
    return 0;
}
