/* l_rv1.c: the grove.rv1 userdata (RFC 20 R version 1) for Lua.
 *
 *   core.rv1_decode(text [, source])   an R, or nil, message, "EINVAL"
 *   core.rv1_load(path)                an R, or nil, message, code
 *   core.rv1_graph_load(path)          the graph of the R in the file (as
 *                          rv1_load(path):to_graph(), errors with the line),
 *                          or nil, message, code
 *   core.rv1_from_vertices(graph, {vertex, ...} [, opts])
 *                          R of exactly those vertices (as picks); opts:
 *                          start (default 0), ["end"] (default: open, so
 *                          expiration 0), nslots, graph (add scheduling)
 *   core.rv1_from_graph(graph [, {graph = bool}])   R of the whole graph
 *   R:encode([opts])       text; opts.graph = true adds a scheduling graph
 *                          when R has none, false leaves scheduling out;
 *                          opts.pretty = true indents
 *   R:to_table()           the document as Lua tables (JSON null is lost)
 *   R:summary()            "rank[0-1]/core[0-3],gpu0 ..." (Flux's
 *                          sched.resource_summary annotation)
 *   R:ranks()              an idset (a string without the idset class)
 *   R:nodelist()           a hostlist (a string without the class), or
 *                          nil, message, "ENOENT" if a rank has no host
 *   R:hostname(rank)  R:children(rank) -> {core = "0-3", ...} or nil
 *   R:count([type])        ranks, or child ids of type
 *   R:types()  R:properties() -> {name = "ranks"}
 *   R:starttime()  R:expiration()  R:nslots() (nil if unknown)
 *   R:set_times(starttime, expiration)  its window (seconds, 0: unset); R
 *   R:union(o)  R:diff(o)  R:intersect(o)   new R, or nil, message, code
 *   R:restrict(ranks)  R:exclude(ranks)      ranks: idset or string
 *   R:hosts_to_ranks(hosts)  the ranks of the hosts of a hostlist, as an
 *                          idset, or nil, "invalid hosts: ...", "EINVAL"
 *   R:filter(constraint)   new R of the ranks that satisfy an RFC 31
 *                          constraint (a grove.constraint, or a table or
 *                          text as core.constraint takes); a host name
 *                          counts as a property
 *   R:equal(o)  R == o     same resources (ranks, hosts, children, props)
 *   R:to_graph()           a graph, or nil, message, code
 *   R:vertices(graph)      the vertex handles of the shard R in graph, or
 *                          nil, message, code
 *   tostring(R) (compact text), R:copy(), R:close(), <close> variables.
 *
 * This file holds the R class, a generic handle of grovel.h (copy, close,
 * == and tostring come from there); it must not hold the idset, hostlist
 * or graph userdata it hands out (it builds them through the module).
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "grovel.h"
#include "lgraph.h"
#include "rv1.h"

static void describe(lua_State *L, void *p);

GROVEL_FREER(jdecref, json_decref)
GROVEL_FREER(idset_free, grove_idset_destroy)

static void *rv1_copy(const void *p)
{
    return grove_rv1_copy(p);
}

static bool rv1_equal(const void *a, const void *b)
{
    return grove_rv1_equal(a, b);
}

static const grovel_class_t rv1_class; /* defined by api.tsv */

static grove_rv1_t *check_rv1(lua_State *L, int i)
{
    return grovel_handle_check(L, i, &rv1_class);
}

grovel_handle_t *grovel_new_rv1(lua_State *L)
{
    return grovel_handle_new(L, &rv1_class);
}

/* Return the new R in the handle h at the top (or a failure). */
static int finish(lua_State *L, grovel_handle_t *h, grove_rv1_t *R, const grove_error_t *err)
{
    if (!R)
        return grovel_fail_err(L, errno, err);
    h->p = R;
    return 1;
}

/* ---- constructors -------------------------------------------------------------- */

static int l_decode(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TSTRING);
    size_t len;
    const char *text = lua_tolstring(L, 1, &len);
    const char *source = luaL_optstring(L, 2, NULL);
    grovel_handle_t *u = grovel_new_rv1(L);
    grove_error_t err = {{0}, 0};
    return finish(L, u, grove_rv1_decode(text, len, source, &err), &err);
}

static int l_load(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    grovel_handle_t *u = grovel_new_rv1(L);
    grove_error_t err = {{0}, 0};
    return finish(L, u, grove_rv1_load(path, &err), &err);
}

static bool opt_bool(lua_State *L, int t, const char *key, int *present)
{
    int ty = lua_getfield(L, t, key);
    if (ty != LUA_TNIL && ty != LUA_TBOOLEAN)
        luaL_error(L, "bad option '%s' (boolean expected, got %s)", key, luaL_typename(L, -1));
    bool v = lua_toboolean(L, -1);
    if (present)
        *present = ty != LUA_TNIL;
    lua_pop(L, 1);
    return v;
}

static lua_Integer opt_int(lua_State *L, int t, const char *key, lua_Integer dflt)
{
    int ty = lua_getfield(L, t, key);
    lua_Integer v = dflt;
    if (ty != LUA_TNIL) {
        int isnum;
        v = lua_tointegerx(L, -1, &isnum);
        if (!isnum)
            luaL_error(L, "bad option '%s' (integer expected, got %s)", key,
                       luaL_typename(L, -1));
    }
    lua_pop(L, 1);
    return v;
}

/* core.rv1_from_vertices(graph, {v...} [, opts]) */
static int l_from_vertices(lua_State *L)
{
    struct grovel_graph *gr = grovel_check_graph_ud(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    int has_opts = !lua_isnoneornil(L, 3);
    if (has_opts)
        luaL_checktype(L, 3, LUA_TTABLE);
    lua_Integer start = 0, end = GROVE_TIME_MAX, nslots = -1;
    bool graph = false;
    if (has_opts) {
        static const char *const known[] = {"start", "end", "nslots", "graph", NULL};
        grovel_check_keys(L, 3, known, 0, "unknown option '%s'");
        start = opt_int(L, 3, "start", 0);
        end = opt_int(L, 3, "end", GROVE_TIME_MAX);
        nslots = opt_int(L, 3, "nslots", -1);
        graph = opt_bool(L, 3, "graph", NULL);
        if (nslots < -1)
            return luaL_error(L, "bad option 'nslots' (must be >= 0)");
    }
    lua_Integer n = luaL_len(L, 2);
    grove_vid_t *vids = lua_newuserdatauv(L, (size_t)(n > 0 ? n : 1) * sizeof(*vids), 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, 2, i);
        struct grovel_vertex *h = luaL_testudata(L, -1, GROVEL_VERTEX);
        const char *why = !h                                     ? "is not a vertex"
                          : h->gr != gr                          ? "is a vertex of another graph"
                          : !grove_graph_has_vertex(gr->g, h->v) ? "was removed from its graph"
                                                                 : NULL;
        if (why) {
            lua_pushfstring(L, "element %d %s", (int)i, why);
            return luaL_argerror(L, 2, lua_tostring(L, -1));
        }
        vids[i - 1] = h->v;
        lua_pop(L, 1);
    }
    grovel_handle_t *u = grovel_new_rv1(L);
    grove_error_t err = {{0}, 0};
    grove_rv1_t *R = grove_rv1_from_vertices(gr->g, vids, (size_t)n, start, end,
                                             graph ? GROVE_RV1_WITH_GRAPH : 0, &err);
    if (R && nslots >= 0)
        grove_rv1_set_nslots(R, nslots);
    return finish(L, u, R, &err);
}

/* core.rv1_from_graph(graph [, {graph = bool}]) */
static int l_from_graph(lua_State *L)
{
    struct grovel_graph *gr = grovel_check_graph_ud(L, 1);
    bool graph = false;
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        static const char *const known[] = {"graph", NULL};
        grovel_check_keys(L, 2, known, 0, "unknown option '%s'");
        graph = opt_bool(L, 2, "graph", NULL);
    }
    grovel_handle_t *u = grovel_new_rv1(L);
    grove_error_t err = {{0}, 0};
    return finish(L, u, grove_rv1_from_graph(gr->g, graph ? GROVE_RV1_WITH_GRAPH : 0, &err),
                  &err);
}

/* ---- writing ---------------------------------------------------------------------- */

static int l_encode(lua_State *L)
{
    grove_rv1_t *R = check_rv1(L, 1);
    int flags = 0;
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        static const char *const known[] = {"graph", "pretty", NULL};
        grovel_check_keys(L, 2, known, 0, "unknown option '%s'");
        int has_graph;
        bool graph = opt_bool(L, 2, "graph", &has_graph);
        if (has_graph)
            flags |= graph ? GROVE_RV1_WITH_GRAPH : GROVE_RV1_NO_SCHEDULING;
        if (opt_bool(L, 2, "pretty", NULL))
            flags |= GROVE_RV1_PRETTY;
    }
    struct grovel_box *box = grovel_box_new(L, free);
    char *s = grove_rv1_encode(R, flags);
    if (!s)
        return grovel_fail_errno(L, errno, NULL);
    box->p = s;
    lua_pushstring(L, s);
    return 1;
}

static void describe(lua_State *L, void *p)
{
    (void)p; /* the R at 1 */
    l_encode(L);
    if (lua_isnil(L, -3))
        luaL_error(L, "%s", lua_tostring(L, -2));
}

static int l_to_table(lua_State *L)
{
    grove_rv1_t *R = check_rv1(L, 1);
    struct grovel_box *box = grovel_box_new(L, jdecref);
    json_t *doc = grove_rv1_to_json(R, 0);
    if (!doc)
        return grovel_fail_errno(L, errno, NULL);
    box->p = doc;
    grovel_push_json(L, doc, false);
    return 1;
}

static int l_summary(lua_State *L)
{
    grove_rv1_t *R = check_rv1(L, 1);
    struct grovel_box *box = grovel_box_new(L, free);
    char *s = grove_rv1_summary(R);
    if (!s)
        return grovel_fail_errno(L, errno, NULL);
    box->p = s;
    lua_pushstring(L, s);
    return 1;
}

/* ---- contents ------------------------------------------------------------------------ */

/* Push module[ctor](text) if the module has that class, else text. */
static void push_as(lua_State *L, const char *ctor, const char *text)
{
    lua_getfield(L, GROVEL_UPMODULE, ctor);
    if (lua_isfunction(L, -1)) {
        lua_pushstring(L, text);
        lua_call(L, 1, 1);
    } else {
        lua_pop(L, 1);
        lua_pushstring(L, text);
    }
}

/* R:ranks() (arg 0): its ranks as an idset; R:nodelist() (arg 1): its
 * hosts as a hostlist (each as text when the module lacks the class). */
static int l_set_of(lua_State *L)
{
    bool hosts = grovel_uparg(L);
    grove_rv1_t *R = check_rv1(L, 1);
    struct grovel_box *box = grovel_box_new(L, free);
    char *t;
    if (hosts) {
        grove_hostlist_t *h = grove_rv1_nodelist(R);
        if (!h)
            return grovel_fail_errno(L, errno,
                                     errno == ENOENT ? "some rank of R has no host name" : NULL);
        t = grove_hostlist_encode(h);
        grove_hostlist_destroy(h);
    } else {
        grove_idset_t *s = grove_rv1_ranks(R);
        t = s ? grove_idset_encode(s, GROVE_IDSET_FLAG_RANGE) : NULL;
        grove_idset_destroy(s);
    }
    if (!t)
        return grovel_fail_errno(L, ENOMEM, NULL);
    box->p = t;
    push_as(L, hosts ? "hostlist" : "idset", t);
    return 1;
}

static unsigned check_rank(lua_State *L, int i)
{
    lua_Integer r = luaL_checkinteger(L, i);
    luaL_argcheck(L, r >= 0 && r <= (lua_Integer)GROVE_IDSET_MAX_ID, i,
                  "rank out of range [0, 4294967294]");
    return (unsigned)r;
}

/* t[name] = the idset s in range form, t the table on top of the stack.
 * 0, or the results of the failure (ENOMEM) to return. */
static int set_ids(lua_State *L, const char *name, const grove_idset_t *s)
{
    struct grovel_box *box = grovel_box_new(L, free);
    if (!(box->p = grove_idset_encode(s, GROVE_IDSET_FLAG_RANGE)))
        return grovel_fail_errno(L, ENOMEM, NULL);
    lua_pushstring(L, box->p);
    lua_setfield(L, -3, name);
    lua_pop(L, 1);
    return 0;
}

static int l_hostname(lua_State *L)
{
    grove_rv1_t *R = check_rv1(L, 1);
    grovel_push_string(L, grove_rv1_hostname(R, check_rank(L, 2)));
    return 1;
}

static int l_children(lua_State *L)
{
    grove_rv1_t *R = check_rv1(L, 1);
    unsigned rank = check_rank(L, 2);
    if (!grove_rv1_has_rank(R, rank)) {
        lua_pushnil(L);
        return 1;
    }
    lua_newtable(L);
    const char *t;
    for (size_t i = 0; (t = grove_rv1_type_at(R, i)); i++) {
        const grove_idset_t *s = grove_rv1_children(R, rank, t);
        if (!s)
            continue;
        int r = set_ids(L, t, s);
        if (r)
            return r;
    }
    return 1;
}

static int l_count(lua_State *L)
{
    grove_rv1_t *R = check_rv1(L, 1);
    const char *type = luaL_optstring(L, 2, NULL);
    lua_pushinteger(L, (lua_Integer)(type ? grove_rv1_count(R, type) : grove_rv1_rank_count(R)));
    return 1;
}

static const char *type_at(const void *R, size_t i)
{
    return grove_rv1_type_at(R, i);
}

static int l_types(lua_State *L)
{
    grove_rv1_t *R = check_rv1(L, 1);
    grovel_push_strings(L, R, SIZE_MAX, type_at);
    return 1;
}

static int l_properties(lua_State *L)
{
    grove_rv1_t *R = check_rv1(L, 1);
    lua_newtable(L);
    const char *name;
    const grove_idset_t *s;
    for (size_t i = 0; grove_rv1_property_at(R, i, &name, &s) == 0; i++) {
        int r = set_ids(L, name, s);
        if (r)
            return r;
    }
    return 1;
}

/* R:starttime() (arg 0) and R:expiration() (arg 1): whole seconds as an
 * integer. */
static int l_time(lua_State *L)
{
    const grove_rv1_t *R = check_rv1(L, 1);
    double t = grovel_uparg(L) ? grove_rv1_expiration(R) : grove_rv1_starttime(R);
    if (t == (double)(lua_Integer)t)
        lua_pushinteger(L, (lua_Integer)t);
    else
        lua_pushnumber(L, t);
    return 1;
}

/* R:set_times(starttime, expiration) -> R: its window, in seconds (0:
 * unset); raises on a bad one (negative, not finite, past 2^53, or an
 * expiration not after the start when both are set). */
static int l_set_times(lua_State *L)
{
    grove_rv1_t *R = check_rv1(L, 1);
    double st = luaL_checknumber(L, 2), ex = luaL_checknumber(L, 3);
    if (grove_rv1_set_times(R, st, ex) < 0)
        return luaL_error(L, "bad window [%f, %f) (seconds >= 0, the expiration after the "
                          "start, 0: unset)", st, ex);
    lua_settop(L, 1);
    return 1;
}

static int l_nslots(lua_State *L)
{
    int64_t n = grove_rv1_nslots(check_rv1(L, 1));
    if (n < 0)
        lua_pushnil(L);
    else
        lua_pushinteger(L, (lua_Integer)n);
    return 1;
}

/* ---- algebra ------------------------------------------------------------------------------ */

enum op { OP_UNION, OP_DIFF, OP_INTER };

/* union, diff, intersect: the arg says which. */
static int l_op(lua_State *L)
{
    enum op op = (enum op)grovel_uparg(L);
    grove_rv1_t *a = check_rv1(L, 1);
    grove_rv1_t *b = check_rv1(L, 2);
    grovel_handle_t *u = grovel_new_rv1(L);
    grove_error_t err = {{0}, 0};
    grove_rv1_t *R = op == OP_UNION  ? grove_rv1_union(a, b, &err)
                     : op == OP_DIFF ? grove_rv1_difference(a, b, &err)
                                     : grove_rv1_intersect(a, b, &err);
    return finish(L, u, R, &err);
}

static int l_equal(lua_State *L)
{
    lua_pushboolean(L, grove_rv1_equal(check_rv1(L, 1), check_rv1(L, 2)));
    return 1;
}

/* A rank set argument: a string, or anything whose tostring is an idset
 * (a grove.idset).  Returns NULL after pushing nil, msg, code on a bad
 * string; the set is owned by the box pushed at the top. */
static grove_idset_t *check_ranks(lua_State *L, int i)
{
    int t = lua_type(L, i);
    if (t != LUA_TSTRING && !(t == LUA_TUSERDATA && luaL_testudata(L, i, "grove.idset")))
        luaL_typeerror(L, i, "idset or string");
    size_t len;
    const char *s = luaL_tolstring(L, i, &len);
    struct grovel_box *box = grovel_box_new(L, idset_free);
    grove_error_t err = {{0}, 0};
    grove_idset_t *set = grove_idset_decode_len(s, len, &err);
    if (!set) {
        grovel_fail_err(L, errno, &err);
        return NULL;
    }
    box->p = set;
    return set;
}

/* restrict (arg 1) and exclude (arg 0). */
static int l_restrict(lua_State *L)
{
    bool in = grovel_uparg(L);
    grove_rv1_t *R = check_rv1(L, 1);
    lua_settop(L, 2);
    grove_idset_t *set = check_ranks(L, 2);
    if (!set)
        return 3;
    grovel_handle_t *u = grovel_new_rv1(L);
    return finish(L, u, in ? grove_rv1_restrict(R, set) : grove_rv1_exclude(R, set), NULL);
}

/* R:hosts_to_ranks(hosts): the ranks of those hosts, as an idset. */
static int l_hosts_to_ranks(lua_State *L)
{
    grove_rv1_t *R = check_rv1(L, 1);
    const char *hosts = luaL_checkstring(L, 2);
    grove_error_t err = {{0}, 0};
    struct grovel_box *box = grovel_box_new(L, idset_free);
    if (!(box->p = grove_rv1_hosts_to_ranks(R, hosts, &err)))
        return grovel_fail_err(L, errno, &err);
    struct grovel_box *tb = grovel_box_new(L, free);
    if (!(tb->p = grove_idset_encode(box->p, GROVE_IDSET_FLAG_RANGE)))
        return grovel_fail_errno(L, ENOMEM, NULL);
    push_as(L, "idset", tb->p);
    return 1;
}

/* R:filter(constraint): the ranks that satisfy it; constraint a
 * grove.constraint, or what core.constraint takes (a table or text). */
static int l_filter(lua_State *L)
{
    grove_rv1_t *R = check_rv1(L, 1);
    lua_settop(L, 2);
    int t = lua_type(L, 2);
    if (t == LUA_TTABLE || t == LUA_TSTRING) {
        lua_getfield(L, GROVEL_UPMODULE, "constraint");
        lua_pushvalue(L, 2);
        lua_call(L, 1, 3);
        if (lua_isnil(L, -3))
            return 3; /* nil, message, code */
        lua_pop(L, 2);
        lua_replace(L, 2);
    }
    const struct grove_constraint *c = grovel_check_constraint(L, 2);
    grovel_handle_t *u = grovel_new_rv1(L);
    return finish(L, u, grove_rv1_filter(R, c), NULL);
}

/* ---- graphs ---------------------------------------------------------------------------------- */

static int l_to_graph(lua_State *L)
{
    grove_rv1_t *R = check_rv1(L, 1);
    grove_error_t err = {{0}, 0};
    grove_graph_t *g = grove_rv1_to_graph(R, &err);
    return grovel_return_graph(L, g, &err);
}

static int l_graph_load(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    grove_error_t err = {{0}, 0};
    grove_graph_t *g = grove_rv1_graph_load(path, &err);
    return grovel_return_graph(L, g, &err);
}

static int l_vertices(lua_State *L)
{
    grove_rv1_t *R = check_rv1(L, 1);
    struct grovel_graph *gr = grovel_check_graph_ud(L, 2);
    struct grovel_box *box = grovel_box_new(L, free);
    grove_vid_t *vids = NULL;
    size_t n = 0;
    grove_error_t err = {{0}, 0};
    if (grove_rv1_to_vertices(gr->g, R, &vids, &n, &err) < 0)
        return grovel_fail_err(L, errno, &err);
    box->p = vids;
    grovel_push_vertices(L, 2, vids, n);
    return 1;
}

#include "api_rv1.h"
