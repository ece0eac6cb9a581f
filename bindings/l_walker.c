/* l_walker.c: walks with Lua hooks (g:walker{...}:run()) and g:find().
 *
 * The core walker calls C function pointers; this file gives it one
 * trampoline per hook kind that runs the Lua function through lua_pcall
 * with a traceback handler.  The pcall'd body does every Lua operation
 * (creating handles, calling the function, reading its results), so no
 * Lua error -- not even a memory error -- can unwind through the core's
 * walk, which owns malloc'd stacks.  When a hook fails, the trampoline
 * leaves the error object on the Lua stack and returns -1; the walk stops
 * and frees its state; the binding then frees its own (the accumulator,
 * owned by a box) and raises the error again.
 *
 * While hooks run, the graph is marked busy: methods that change its
 * structure (add_vertex, add_edge, merge, unlink, close, ...) raise, since
 * the walk in progress holds vertex ids and per-vertex marks.  Pool data
 * (status, properties, tags, allocations) may change.
 *
 * Workload: policies written in Lua that score or order a few thousand
 * vertices per match; with no hook given the core runs its own fast path.
 *
 * This file holds the walker class (a generic handle of grovel.h over its
 * graph userdata) and the graph methods walker() and find(); the graph
 * class itself and the vertex methods live in l_graph.c and l_vertex.c.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "lgraph.h"

/* A configured walk, a generic handle (grovel.h) whose object is its graph
 * userdata (not owned: closing drops the references).  User values: 1
 * graph, 2 pre, 3 order, 4 post, 5 subsystem name. */
struct grovel_walker {
    union {
        grovel_handle_t h; /* the generic handle's view of gr */
        struct grovel_graph *gr; /* NULL once closed */
    };
    size_t limit; /* best k kept by the accumulator, 0: all */
};

enum { UV_GRAPH = 1, UV_PRE, UV_ORDER, UV_POST, UV_SUBSYS, UV_COUNT = UV_SUBSYS };

static void walker_describe(lua_State *L, void *p)
{
    (void)p; /* the walker at 1 */
    lua_getiuservalue(L, 1, UV_SUBSYS);
    lua_pushfstring(L, "grove.walker (%s)", lua_tostring(L, -1));
}

static const grovel_class_t walker_class; /* defined by api.tsv */

/* State shared by the trampolines of one walk or find. */
struct hookctx {
    lua_State *L;
    int errh;    /* stack index of the traceback handler */
    int graph;   /* stack index of the graph userdata */
    int fn;      /* stack index of the hook function being called */
    int pre, order, post; /* stack indices of the functions, 0 when absent */
    bool failed; /* a hook raised: its error object is on top of the stack */
    /* arguments and results of the current call */
    grove_vid_t v;
    int depth;
    grove_vid_t *kids;
    size_t n;
    double score;
    int result;
};

/* Message handler: append a traceback to string errors. */
static int traceback(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (msg)
        luaL_traceback(L, L, msg, 1);
    return 1; /* other error objects are raised again unchanged */
}

/* Run body(fn, graph, ctx) protected.  Pushing a light C function, copies
 * of stack values and a light userdata allocates nothing, so nothing here
 * can raise outside the pcall (the stack room was reserved beforehand). */
static int call_hook(struct hookctx *c, lua_CFunction body)
{
    lua_State *L = c->L;
    lua_pushcfunction(L, body);
    lua_pushvalue(L, c->fn);
    lua_pushvalue(L, c->graph);
    lua_pushlightuserdata(L, c);
    if (lua_pcall(L, 3, 0, c->errh) != LUA_OK) {
        c->failed = true;
        errno = ECANCELED;
        return -1;
    }
    return 0;
}

/* ---- hook bodies (run inside lua_pcall: arguments fn, graph, ctx) ------- */

/* Call the hook with the vertex and its depth; returns the call record. */
static struct hookctx *call_with_vertex(lua_State *L, int nresults)
{
    struct hookctx *c = lua_touserdata(L, 3);
    lua_pushvalue(L, 1);
    grovel_push_vertex(L, 2, c->v);
    lua_pushinteger(L, c->depth);
    lua_call(L, 2, nresults);
    return c;
}

static int pre_body(lua_State *L)
{
    struct hookctx *c = call_with_vertex(L, 1);
    int t = lua_type(L, -1);
    const char *s = t == LUA_TSTRING ? lua_tostring(L, -1) : "";
    if (t == LUA_TNIL || !strcmp(s, "continue") || (t == LUA_TBOOLEAN && lua_toboolean(L, -1)))
        c->result = GROVE_WALK_CONTINUE;
    else if (!strcmp(s, "skip") || t == LUA_TBOOLEAN)
        c->result = GROVE_WALK_SKIP;
    else if (!strcmp(s, "stop"))
        c->result = GROVE_WALK_STOP;
    else
        return luaL_error(L, "pre hook returned %s (expected \"continue\", \"skip\", "
                             "\"stop\", a boolean or nil)",
                          luaL_tolstring(L, -1, NULL));
    return 0;
}

static int cmp_vid(const void *a, const void *b)
{
    grove_vid_t x = *(const grove_vid_t *)a, y = *(const grove_vid_t *)b;
    return (x > y) - (x < y);
}

static int order_body(lua_State *L)
{
    struct hookctx *c = lua_touserdata(L, 3);
    size_t n = c->n;
    grovel_push_vertices(L, 2, c->kids, n); /* 4: the children, for the hook to sort */
    lua_pushvalue(L, 1);
    grovel_push_vertex(L, 2, c->v);
    lua_pushvalue(L, 4);
    lua_call(L, 2, 1); /* 5: the result */
    int res = lua_isnil(L, 5) ? 4 : 5;
    if (!lua_istable(L, res))
        return luaL_error(L, "order hook returned %s (expected an array of the children or "
                             "nil)", luaL_typename(L, res));
    if (lua_rawlen(L, res) != n)
        return luaL_error(L, "order hook returned %d children, expected %d",
                          (int)lua_rawlen(L, res), (int)n);
    /* scratch: new order, then both orders sorted to compare as sets */
    grove_vid_t *buf = lua_newuserdatauv(L, 3 * n * sizeof(*buf), 0);
    struct grovel_graph *gr = lua_touserdata(L, 2);
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, res, (lua_Integer)i + 1);
        struct grovel_vertex *h = luaL_testudata(L, -1, GROVEL_VERTEX);
        if (!h || h->gr != gr)
            return luaL_error(L, "order hook: entry %d is not a vertex of this graph",
                              (int)i + 1);
        buf[i] = buf[n + i] = h->v;
        buf[2 * n + i] = c->kids[i];
        lua_pop(L, 1);
    }
    qsort(buf + n, n, sizeof(*buf), cmp_vid);
    qsort(buf + 2 * n, n, sizeof(*buf), cmp_vid);
    if (memcmp(buf + n, buf + 2 * n, n * sizeof(*buf)) != 0)
        return luaL_error(L, "order hook must return the same children, reordered");
    memcpy(c->kids, buf, n * sizeof(*buf));
    return 0;
}

static int post_body(lua_State *L)
{
    struct hookctx *c = call_with_vertex(L, 2);
    int t = lua_type(L, -2);
    bool stop = lua_type(L, -1) == LUA_TSTRING && !strcmp(lua_tostring(L, -1), "stop");
    if (!stop && !lua_isnil(L, -1))
        return luaL_error(L, "post hook: second result must be \"stop\" or nil");
    if (t == LUA_TNUMBER) {
        c->score = lua_tonumber(L, -2);
        c->result = stop ? 2 : 1;
    } else if (t == LUA_TBOOLEAN && lua_toboolean(L, -2)) {
        c->score = 0;
        c->result = stop ? 2 : 1;
    } else if (t == LUA_TNIL || t == LUA_TBOOLEAN) {
        c->result = stop ? 3 : 0;
    } else if (t == LUA_TSTRING && !strcmp(lua_tostring(L, -2), "stop")) {
        c->result = 3;
    } else {
        return luaL_error(L, "post hook returned %s (expected a score, true, false, nil or "
                             "\"stop\")",
                          luaL_tolstring(L, -2, NULL));
    }
    return 0;
}

static int pred_body(lua_State *L)
{
    struct hookctx *c = lua_touserdata(L, 3);
    lua_pushvalue(L, 1);
    grovel_push_vertex(L, 2, c->v);
    lua_call(L, 1, 1);
    c->result = lua_toboolean(L, -1);
    return 0;
}

/* ---- trampolines (called by the core) ---------------------------------------- */

static int tramp_pre(grove_graph_t *g, grove_vid_t v, int depth, void *arg)
{
    (void)g;
    struct hookctx *c = arg;
    c->v = v;
    c->depth = depth;
    c->fn = c->pre;
    return call_hook(c, pre_body) < 0 ? -1 : c->result;
}

static int tramp_order(grove_graph_t *g, grove_vid_t parent, grove_vid_t *children, size_t n,
                       void *arg)
{
    (void)g;
    struct hookctx *c = arg;
    c->v = parent;
    c->kids = children;
    c->n = n;
    c->fn = c->order;
    return call_hook(c, order_body);
}

static int tramp_post(grove_graph_t *g, grove_vid_t v, int depth, double *score, void *arg)
{
    (void)g;
    struct hookctx *c = arg;
    c->v = v;
    c->depth = depth;
    c->fn = c->post;
    if (call_hook(c, post_body) < 0)
        return -1;
    *score = c->score;
    return c->result;
}

static int tramp_pred(const grove_graph_t *g, grove_vid_t v, void *arg)
{
    (void)g;
    struct hookctx *c = arg;
    c->v = v;
    c->fn = c->pre;
    return call_hook(c, pred_body) < 0 ? -1 : c->result;
}

static int spec_pred(const grove_graph_t *g, grove_vid_t v, void *arg)
{
    return grovel_spec_match(g, v, arg);
}

/* ---- walker objects ------------------------------------------------------------- */

static struct grovel_walker *check_walker(lua_State *L, int idx)
{
    grovel_handle_check(L, idx, &walker_class);
    struct grovel_walker *w = lua_touserdata(L, idx);
    if (!w->gr->g)
        luaL_argerror(L, idx, "graph is closed");
    return w;
}

/* g:walker{subsystem=, pre=, order=, post=, limit=} */
static int graph_walker(lua_State *L)
{
    struct grovel_graph *gr = grovel_check_graph_ud(L, 1);
    lua_settop(L, 2);
    if (lua_isnil(L, 2)) {
        lua_newtable(L);
        lua_replace(L, 2);
    }
    static const char *const options[] = {"subsystem", "pre", "order", "post", "limit", NULL};
    luaL_checktype(L, 2, LUA_TTABLE);
    grovel_check_keys(L, 2, options, 2, "unknown option '%s'");
    static const char *const hooks[] = {"pre", "order", "post"};
    for (int i = 0; i < 3; i++) {
        int t = lua_getfield(L, 2, hooks[i]);
        if (t != LUA_TNIL && t != LUA_TFUNCTION)
            luaL_argerror(L, 2, lua_pushfstring(L, "'%s' must be a function", hooks[i]));
        lua_pop(L, 1);
    }
    int t = lua_getfield(L, 2, "subsystem");
    if (t != LUA_TNIL && (t != LUA_TSTRING || !lua_rawlen(L, -1)))
        luaL_argerror(L, 2, "'subsystem' must be a non-empty string");
    lua_pop(L, 1);
    lua_Integer limit = 0;
    if (lua_getfield(L, 2, "limit") != LUA_TNIL) {
        if (!lua_isinteger(L, -1) || (limit = lua_tointeger(L, -1)) < 0)
            luaL_argerror(L, 2, "'limit' must be a non-negative integer");
    }
    lua_pop(L, 1);

    struct grovel_walker *w = (struct grovel_walker *)grovel_handle_new(L, &walker_class);
    w->gr = gr;
    w->limit = (size_t)limit;
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, UV_GRAPH);
    lua_getfield(L, 2, "pre");
    lua_setiuservalue(L, -2, UV_PRE);
    lua_getfield(L, 2, "order");
    lua_setiuservalue(L, -2, UV_ORDER);
    lua_getfield(L, 2, "post");
    lua_setiuservalue(L, -2, UV_POST);
    if (lua_getfield(L, 2, "subsystem") == LUA_TNIL) {
        lua_pop(L, 1);
        lua_pushliteral(L, GROVE_CONTAINMENT);
    }
    lua_setiuservalue(L, -2, UV_SUBSYS);
    return 1;
}

static void accum_free(void *p)
{
    grove_accum_destroy(p);
}

/* w:run([start]) -> {{vertex=, score=}, ...} best first, stopped */
static int walker_run(lua_State *L)
{
    struct grovel_walker *w = check_walker(L, 1);
    struct grovel_graph *gr = w->gr;
    lua_settop(L, 2);
    lua_getiuservalue(L, 1, UV_SUBSYS); /* 3 */
    const char *subname = lua_tostring(L, 3);
    grove_sym_t sub = grove_graph_sym_lookup(gr->g, subname);
    grove_vid_t start;
    if (lua_isnil(L, 2)) {
        start = sub == GROVE_SYM_NONE ? GROVE_VID_NONE : grove_graph_root(gr->g, sub, 0);
        if (start == GROVE_VID_NONE)
            return grovel_fail_errno(L, ENOENT,
                                     lua_pushfstring(L, "no root in subsystem %s", subname));
    } else {
        start = grovel_check_vertex_in(L, 2, gr);
    }
    struct hookctx c = {.L = L, .errh = 4, .graph = 5, .pre = 6, .order = 7, .post = 8};
    lua_pushcfunction(L, traceback);     /* 4 */
    lua_getiuservalue(L, 1, UV_GRAPH);   /* 5 */
    lua_getiuservalue(L, 1, UV_PRE);     /* 6 */
    lua_getiuservalue(L, 1, UV_ORDER);   /* 7 */
    lua_getiuservalue(L, 1, UV_POST);    /* 8 */
    struct grovel_box *box = grovel_box_new(L, accum_free); /* 9 */
    luaL_checkstack(L, 8, NULL);
    grove_walk_hooks_t hooks = {
        .pre = lua_isnil(L, 6) ? NULL : tramp_pre,
        .order = lua_isnil(L, 7) ? NULL : tramp_order,
        .post = lua_isnil(L, 8) ? NULL : tramp_post,
        .arg = &c,
    };
    grove_accum_t *acc = grove_accum_create(w->limit);
    if (!acc)
        return grovel_fail_errno(L, ENOMEM, NULL);
    box->p = acc;
    gr->busy++;
    int rc = grove_graph_walk(gr->g, start, sub, &hooks, acc);
    gr->busy--;
    if (c.failed) {
        box->p = NULL;
        grove_accum_destroy(acc);
        return lua_error(L); /* the hook's error, on top of the stack */
    }
    if (rc < 0)
        return grovel_fail_errno(L, errno, NULL);
    size_t n = grove_accum_count(acc);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        double score;
        grove_vid_t v = grove_accum_at(acc, i, &score);
        lua_createtable(L, 0, 2);
        grovel_push_vertex(L, 5, v);
        lua_setfield(L, -2, "vertex");
        lua_pushnumber(L, score);
        lua_setfield(L, -2, "score");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_pushboolean(L, rc == 1);
    return 2;
}

static int walker_subsystem(lua_State *L)
{
    check_walker(L, 1);
    lua_getiuservalue(L, 1, UV_SUBSYS);
    return 1;
}

static int walker_limit(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_walker(L, 1)->limit);
    return 1;
}

/* ---- find ------------------------------------------------------------------- */

static void free_ptr(void *p)
{
    free(p);
}

/* g:find(spec | function(v) -> bool [, start]) -> array of vertices: the
 * matches in start's containment subtree, their descendants and their
 * ancestors up to the root, in id order. */
/* g:find(PATTERN): the vertices whose containment path ends in PATTERN,
 * a glob (fnmatch: * and ? stay inside one component, [...] a set),
 * compared with as many trailing components of the path as it has
 * ("node5": a name; "rack0/" then "*": the children of every rack0); a pattern
 * starting with / is compared with the whole path.  Only the matches, in
 * id order: no ancestors, no descendants. */
static int find_glob(lua_State *L, struct grovel_graph *gr, const char *pat)
{
    int parts = 1;
    for (const char *p = pat; *p; p++)
        parts += *p == '/';
    bool whole = pat[0] == '/';
    grove_sym_t sub = grove_graph_sym_lookup(gr->g, GROVE_CONTAINMENT);
    size_t slots = grove_graph_vertex_slots(gr->g);
    size_t cap = 256;
    char *buf = lua_newuserdatauv(L, cap, 0); /* the path; garbage when done */
    int bufidx = lua_gettop(L);
    lua_newtable(L);
    lua_Integer n = 0;
    for (grove_vid_t v = 0; v < (grove_vid_t)slots; v++) {
        if (!grove_graph_has_vertex(gr->g, v))
            continue;
        int len = grove_vertex_path(gr->g, v, sub, buf, cap);
        if (len < 0)
            continue; /* not in containment */
        if ((size_t)len >= cap) {
            cap = (size_t)len + 1;
            buf = lua_newuserdatauv(L, cap, 0);
            lua_replace(L, bufidx);
            grove_vertex_path(gr->g, v, sub, buf, cap);
        }
        const char *tail = buf + len;
        for (int k = 0; k < parts && tail > buf; k++)
            while (--tail > buf && *tail != '/')
                ;
        if (!whole && *tail == '/')
            tail++;
        if (fnmatch(pat, whole ? buf : tail, FNM_PATHNAME) == 0) {
            grovel_push_vertex(L, 1, v);
            lua_rawseti(L, -2, ++n);
        }
    }
    return 1;
}

static int graph_find(lua_State *L)
{
    struct grovel_graph *gr = grovel_check_graph_ud(L, 1);
    if (lua_type(L, 2) == LUA_TSTRING && lua_isnoneornil(L, 3))
        return find_glob(L, gr, lua_tostring(L, 2));
    bool lua_pred = lua_isfunction(L, 2);
    luaL_argexpected(L, lua_pred || lua_istable(L, 2), 2, "string, table or function");
    lua_settop(L, 3);
    struct grovel_spec *spec = NULL;
    if (!lua_pred) {
        spec = grovel_push_spec(L, 2);
    } else {
        lua_pushnil(L);
    } /* 4: the spec (anchors its strings) */
    grove_vid_t start;
    if (lua_isnil(L, 3))
        start = grove_graph_root(gr->g, grove_graph_sym_lookup(gr->g, GROVE_CONTAINMENT), 0);
    else
        start = grovel_check_vertex_in(L, 3, gr);
    if (start == GROVE_VID_NONE) {
        lua_newtable(L);
        return 1;
    }
    struct hookctx c = {.L = L, .errh = 5, .graph = 1, .pre = 2};
    lua_pushcfunction(L, traceback);                      /* 5 */
    struct grovel_box *box = grovel_box_new(L, free_ptr); /* 6 */
    luaL_checkstack(L, 8, NULL);
    grove_vid_t *out = NULL;
    size_t n = 0;
    int rc;
    if (lua_pred) {
        gr->busy++;
        rc = grove_graph_find(gr->g, start, tramp_pred, &c, &out, &n);
        gr->busy--;
    } else {
        rc = grove_graph_find(gr->g, start, spec_pred, spec, &out, &n);
    }
    box->p = out;
    if (c.failed)
        return lua_error(L);
    if (rc < 0)
        return grovel_fail_errno(L, errno, NULL);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        grovel_push_vertex(L, 1, out[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

#include "api_walker.h"
