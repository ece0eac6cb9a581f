/* l_graph.c: the graph of resource pools in Lua: grove.core.graph(), the
 * graph userdata with its methods, the edge handle, iteration
 * (g:vertices{...}, g:edges()), and the handle interface of grovel.h that
 * the other binding files use.
 *
 * Workload: scripts and policies that build graphs of up to millions of
 * vertices and look at them through short-lived handles.  A handle is a
 * small userdata (graph, id); nothing is cached per vertex, so memory stays
 * in the core.  Iterators walk the core's type/name/rank chains instead of
 * scanning when the spec allows.
 *
 * The Lua API (g a graph, v a vertex handle, e an edge handle):
 *
 *   core.graph()                        a new empty graph
 *   g:add_vertex{type=, basename=, name=, id=, rank=, size=, unit=, uuid=,
 *                status=, properties={k=v}, tags={k=v|true}}      -> v
 *   g:add_edge(src, dst [, {subsystem=, relation=}])             -> e
 *   g:add_child(parent, child [, subsystem])   g:set_opposite(e1, e2)
 *   g:vertex(path [, subsystem] | "subsystem:/path" | uuid | name | vertex id) -> v
 *   g:vertices([spec])  g:edges([subsystem])   iterators
 *   g:roots([sub])  g:root([sub])  g:subsystems()
 *   g:count([type])  #g  g:edge_count()  g:bytes()  g:now()  g:set_now(t)
 *   g:expiration()  g:set_expiration(t)   the matcher's horizon (0: none)
 *   g:aggregate([v])  g:copy([v])  g:duplicate()  g:merge(other [, path])
 *   g:unlink(v [, force])  g:extract{v...}  g:find(spec | fn [, start])
 *   g:walker{subsystem=, pre=, order=, post=, limit=}  (l_walker.c)
 *   g:allocate(v, amount, job [, window])  g:free(v, job [, amount])
 *   g:free_job(job)  g:set_aggregates("HL:LL,...")  g:aggregates()
 *   g:allocated([t])  g:available([start [, duration]])   RFC 16's sets:
 *                       arrays of vertices (default: now, one second)
 *   g:close()  tostring(g)
 *   e:src() e:dst() e:subsystem() e:relation() e:opposite() e:is_up() e:id()
 *   vertex methods: l_vertex.c.
 *
 * spec: {type=, basename=, name=, unit=, status=, rank=, id=, size=, job=,
 * property=, tag=}; property and tag are a key, a list of keys, or {key =
 * value|true}; size= the units of the pool; job= a job id: the vertices
 * that hold a record of it or share it (its containers).
 * window: {start=, duration= | end= | end_=, exclusive=}; no end is "for
 * ever" (records show no end field).
 *
 * Error rule: misuse (wrong types, a closed graph, a removed vertex, a value
 * that could never be valid) raises through luaL_argerror; a failure that
 * depends on the state of the graph returns nil, message, code.  C memory
 * that outlives a possible Lua error is owned by a userdata (a box, or the
 * graph userdata created before the graph), never by a C local.
 *
 * This file holds the graph class (a generic handle of grovel.h), the edge,
 * box and spec classes and the graph helpers of lgraph.h.  It must not
 * hold the vertex methods (l_vertex.c), walks and finds (l_walker.c) or
 * other userdata.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lgraph.h"

/* ---- boxes --------------------------------------------------------------- */

static const grovel_class_t box_class = {.tname = GROVEL_BOX};

static int box_gc(lua_State *L)
{
    struct grovel_box *b = luaL_checkudata(L, 1, GROVEL_BOX);
    if (b->p && b->fn)
        b->fn(b->p);
    b->p = NULL;
    return 0;
}

struct grovel_box *grovel_box_new(lua_State *L, void (*fn)(void *))
{
    struct grovel_box *b = lua_newuserdatauv(L, sizeof(*b), 0);
    b->p = NULL;
    b->fn = fn;
    luaL_setmetatable(L, box_class.tname);
    return b;
}

/* ---- graph userdata -------------------------------------------------------- */

static void graph_describe(lua_State *L, void *p)
{
    lua_pushfstring(L, "grove.graph (%I vertices, %I edges)",
                    (lua_Integer)grove_graph_vertex_count(p), (lua_Integer)grove_graph_edge_count(p));
}

static void graph_closable(lua_State *L, void *ud)
{
    const struct grovel_graph *gr = ud;
    if (gr->g && gr->busy)
        luaL_argerror(L, 1, "graph is busy: a walk or find is running on it");
}

GROVEL_FREER(graph_destroy, grove_graph_destroy)

const grovel_class_t grovel_graph_class = {
    .tname = GROVEL_GRAPH,
    .describe = graph_describe,
    .label = "graph",
    .size = sizeof(struct grovel_graph),
    .destroy = graph_destroy,
    .closable = graph_closable,
};

struct grovel_graph *grovel_new_graph_ud(lua_State *L)
{
    return (struct grovel_graph *)grovel_handle_new(L, &grovel_graph_class);
}

/* Protected part of grovel_push_graph: a userdata for the graph at arg 1. */
static int push_graph_body(lua_State *L)
{
    grove_graph_t *g = lua_touserdata(L, 1);
    struct grovel_graph *gr = grovel_new_graph_ud(L);
    gr->g = g;
    return 1;
}

void grovel_push_graph(lua_State *L, grove_graph_t *g)
{
    lua_pushcfunction(L, push_graph_body); /* light C function: no allocation */
    lua_pushlightuserdata(L, g);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        grove_graph_destroy(g);
        lua_error(L);
    }
}

int grovel_return_graph(lua_State *L, grove_graph_t *g, const grove_error_t *err)
{
    if (!g)
        return grovel_fail_err(L, errno, err);
    grovel_push_graph(L, g);
    return 1;
}

struct grovel_graph *grovel_check_graph_ud(lua_State *L, int idx)
{
    grovel_handle_check(L, idx, &grovel_graph_class);
    return lua_touserdata(L, idx);
}

const char *const grovel_standard_types[] = {"slot", "xor_slot", "cluster", "rack", "node",
                                             "socket", "core", "gpu", "ssd", "storage_node",
                                             NULL};

bool grovel_type_known(const grove_graph_t *g, const char *type)
{
    for (int i = 0; grovel_standard_types[i]; i++)
        if (!strcmp(type, grovel_standard_types[i]))
            return true;
    grove_sym_t sym = grove_graph_sym_lookup(g, type);
    return sym != GROVE_SYM_NONE && grove_graph_count_type(g, sym) > 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char **grovel_push_graph_types(lua_State *L, const grove_graph_t *g, size_t *n)
{
    const char *s;
    size_t k = 0;
    for (grove_sym_t sym = 0; (s = grove_graph_str(g, sym)); sym++)
        k += grove_graph_count_type(g, sym) > 0;
    const char **names = lua_newuserdatauv(L, (k + 1) * sizeof(*names), 0);
    k = 0;
    for (grove_sym_t sym = 0; (s = grove_graph_str(g, sym)); sym++)
        if (grove_graph_count_type(g, sym) > 0)
            names[k++] = s;
    names[k] = NULL;
    qsort(names, k, sizeof(*names), cmp_names);
    *n = k;
    return names;
}

void grovel_type_hint(lua_State *host, lua_State *L, const grove_graph_t *g, const char *name,
                      char *out, size_t len)
{
    if (len)
        out[0] = '\0';
    if (!host || !lua_checkstack(L, 2))
        return;
    size_t n;
    const char **types = grovel_push_graph_types(L, g, &n);
    grovel_hint(host, name, types, grovel_standard_types + 2, out, len); /* no slot, xor_slot */
    lua_pop(L, 1);
}

const char *grovel_push_unknown_type(lua_State *L, lua_State *host, const grove_graph_t *g,
                                     const char *name)
{
    char hint[128];
    grovel_type_hint(host, L, g, name, hint, sizeof(hint));
    size_t n;
    const char **types = grovel_push_graph_types(L, g, &n);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    lua_pushfstring(L, "unknown resource type '%s'%s: the graph has ", name, hint);
    luaL_addvalue(&b);
    for (size_t i = 0; i < n; i++) {
        if (i)
            luaL_addstring(&b, ", ");
        luaL_addstring(&b, types[i]);
    }
    if (n == 0)
        luaL_addstring(&b, "no vertices");
    luaL_pushresult(&b);
    lua_remove(L, -2); /* the names */
    return lua_tostring(L, -1);
}

struct grovel_graph *grovel_check_mutable(lua_State *L, int idx)
{
    struct grovel_graph *gr = grovel_check_graph_ud(L, idx);
    if (gr->busy)
        luaL_argerror(L, idx, "graph is busy: a walk or find is running on it");
    return gr;
}

struct grovel_graph *grovel_owner_graph(lua_State *L, int idx, const char *owner)
{
    lua_getiuservalue(L, idx, 1);
    struct grovel_graph *gr = luaL_testudata(L, -1, GROVEL_GRAPH);
    lua_pop(L, 1);
    if (!gr || !gr->g)
        luaL_error(L, "the %s's graph is closed", owner);
    return gr;
}

grove_graph_t *grovel_check_graph(lua_State *L, int idx)
{
    return grovel_check_graph_ud(L, idx)->g;
}

static int l_graph_new(lua_State *L)
{
    struct grovel_graph *gr = grovel_new_graph_ud(L);
    gr->g = grove_graph_create();
    if (!gr->g)
        return grovel_fail_errno(L, ENOMEM, "cannot create a graph: out of memory");
    return 1;
}

/* ---- handles ------------------------------------------------------------ */

/* Vertex and edge handles: a new one of class tname (size bytes) for the
 * graph userdata at graph_idx, which its user value keeps alive; *gr gets
 * that graph.  Left on top. */
static void *new_elem(lua_State *L, int graph_idx, const char *tname, size_t size,
                      struct grovel_graph **gr)
{
    graph_idx = lua_absindex(L, graph_idx);
    *gr = luaL_checkudata(L, graph_idx, GROVEL_GRAPH);
    void *h = lua_newuserdatauv(L, size, 1);
    luaL_setmetatable(L, tname);
    lua_pushvalue(L, graph_idx);
    lua_setiuservalue(L, -2, 1);
    return h;
}

/* Raise (on argument idx) unless the graph gr is open and has says its
 * element id (a "vertex" or an "edge": what) is live. */
static void check_elem(lua_State *L, int idx, const struct grovel_graph *gr,
                       bool (*has)(const grove_graph_t *, uint32_t), uint32_t id,
                       const char *what)
{
    if (!gr->g)
        luaL_argerror(L, idx, "graph is closed");
    if (!has(gr->g, id))
        luaL_argerror(L, idx, lua_pushfstring(L, "%s was removed from its graph", what));
}

void grovel_push_vertex(lua_State *L, int graph_idx, grove_vid_t v)
{
    struct grovel_graph *gr;
    struct grovel_vertex *h = new_elem(L, graph_idx, GROVEL_VERTEX, sizeof(*h), &gr);
    h->gr = gr;
    h->v = v;
}

void grovel_push_vertices(lua_State *L, int graph_idx, const grove_vid_t *vids, size_t n)
{
    graph_idx = lua_absindex(L, graph_idx);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        grovel_push_vertex(L, graph_idx, vids[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

struct grovel_vertex *grovel_check_vertex_ud(lua_State *L, int idx)
{
    struct grovel_vertex *h = luaL_checkudata(L, idx, GROVEL_VERTEX);
    check_elem(L, idx, h->gr, grove_graph_has_vertex, h->v, "vertex");
    return h;
}

grove_vid_t grovel_check_vertex(lua_State *L, int idx, grove_graph_t **g)
{
    struct grovel_vertex *h = grovel_check_vertex_ud(L, idx);
    if (g)
        *g = h->gr->g;
    return h->v;
}

grove_vid_t grovel_check_vertex_in(lua_State *L, int idx, const struct grovel_graph *gr)
{
    struct grovel_vertex *h = grovel_check_vertex_ud(L, idx);
    if (h->gr != gr)
        luaL_argerror(L, idx, "vertex of another graph");
    return h->v;
}

void grovel_vertex_graph(lua_State *L, int idx)
{
    luaL_checkudata(L, idx, GROVEL_VERTEX);
    lua_getiuservalue(L, idx, 1);
}

void grovel_push_edge(lua_State *L, int graph_idx, grove_eid_t e)
{
    struct grovel_graph *gr;
    struct grovel_edge *h = new_elem(L, graph_idx, GROVEL_EDGE, sizeof(*h), &gr);
    h->gr = gr;
    h->e = e;
}

static struct grovel_edge *check_edge(lua_State *L, int idx)
{
    struct grovel_edge *h = luaL_checkudata(L, idx, GROVEL_EDGE);
    check_elem(L, idx, h->gr, grove_graph_has_edge, h->e, "edge");
    return h;
}

grove_jobid_t grovel_check_job(lua_State *L, int idx)
{
    lua_Integer j = luaL_checkinteger(L, idx);
    luaL_argcheck(L, j >= 0, idx, "job id must be a non-negative integer");
    return (grove_jobid_t)j;
}

const char *grovel_push_label(lua_State *L, const grove_graph_t *g, grove_vid_t v)
{
    grove_sym_t sub = grove_graph_sym_lookup(g, GROVE_CONTAINMENT);
    int n = sub == GROVE_SYM_NONE ? -1 : grove_vertex_path(g, v, sub, NULL, 0);
    if (n < 0)
        return lua_pushstring(L, grove_vertex_name(g, v));
    luaL_Buffer b;
    char *p = luaL_buffinitsize(L, &b, (size_t)n + 1);
    grove_vertex_path(g, v, sub, p, (size_t)n + 1);
    luaL_pushresultsize(&b, (size_t)n);
    return lua_tostring(L, -1);
}

grove_sym_t grovel_opt_subsystem(lua_State *L, int idx, const grove_graph_t *g,
                                 const char **name)
{
    const char *s = luaL_optstring(L, idx, GROVE_CONTAINMENT);
    if (name)
        *name = s;
    return grove_graph_sym_lookup(g, s);
}

/* ---- search specs ------------------------------------------------------- */

static const char *const spec_fields[] = {
    "type", "basename", "name", "unit", "status", "rank", "id", "property", "tag", "size", "job",
    NULL,
};

/* Number of key/value entries a property= or tag= field holds. */
static size_t spec_kv_count(lua_State *L, int spec, const char *field)
{
    size_t n = 0;
    int t = lua_getfield(L, spec, field);
    if (t == LUA_TSTRING)
        n = 1;
    else if (t == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            n++;
            lua_pop(L, 1);
        }
    } else if (t != LUA_TNIL) {
        lua_pop(L, 1);
        luaL_error(L, "bad spec field '%s' (string or table expected, got %s)", field,
                   lua_typename(L, t));
    }
    lua_pop(L, 1);
    return n;
}

/* Anchor the string at the top of the stack in the table at anchor; pops
 * it and returns the anchored pointer. */
static const char *anchor(lua_State *L, int anchor_idx)
{
    const char *s = lua_tostring(L, -1);
    lua_rawseti(L, anchor_idx, (lua_Integer)lua_rawlen(L, anchor_idx) + 1);
    return s;
}

/* Fill kv[0..) from the property= / tag= field; returns entries filled. */
static size_t spec_kv_fill(lua_State *L, int spec, int anch, const char *field,
                           struct grovel_kv *kv)
{
    size_t n = 0;
    int t = lua_getfield(L, spec, field);
    if (t == LUA_TSTRING) {
        kv[0].k = anchor(L, anch);
        kv[0].v = NULL;
        return 1;
    }
    if (t == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            if (lua_type(L, -2) == LUA_TNUMBER && lua_type(L, -1) == LUA_TSTRING) {
                /* array form: {"a", "b"}: these keys present */
                lua_pushvalue(L, -1);
                kv[n].k = anchor(L, anch);
                kv[n].v = NULL;
            } else {
                if (lua_type(L, -2) != LUA_TSTRING)
                    luaL_error(L, "bad spec field '%s' (keys must be strings)", field);
                lua_pushvalue(L, -2);
                kv[n].k = anchor(L, anch);
                if (lua_type(L, -1) == LUA_TBOOLEAN && lua_toboolean(L, -1)) {
                    kv[n].v = NULL;
                } else if (lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER) {
                    lua_pushvalue(L, -1);
                    lua_tostring(L, -1); /* numbers match their text form */
                    kv[n].v = anchor(L, anch);
                } else {
                    luaL_error(L, "bad spec field '%s' (value of '%s' must be a string, "
                                  "number or true)", field, kv[n].k);
                }
            }
            n++;
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    return n;
}

static const char *spec_string(lua_State *L, int spec, int anch, const char *field)
{
    int t = lua_getfield(L, spec, field);
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return NULL;
    }
    if (t != LUA_TSTRING)
        luaL_error(L, "bad spec field '%s' (string expected, got %s)", field,
                   lua_typename(L, t));
    return anchor(L, anch);
}

static bool spec_integer(lua_State *L, int spec, const char *field, int64_t *out)
{
    int t = lua_getfield(L, spec, field);
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return false;
    }
    if (!lua_isinteger(L, -1))
        luaL_error(L, "bad spec field '%s' (integer expected, got %s)", field,
                   luaL_typename(L, -1));
    *out = lua_tointeger(L, -1);
    lua_pop(L, 1);
    return true;
}

struct grovel_spec *grovel_push_spec(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    luaL_checktype(L, idx, LUA_TTABLE);
    luaL_checkstack(L, 8, NULL);
    grovel_check_keys(L, idx, spec_fields, idx, "unknown spec field '%s'");
    size_t np = spec_kv_count(L, idx, "property");
    size_t nt = spec_kv_count(L, idx, "tag");
    struct grovel_spec *s =
        lua_newuserdatauv(L, sizeof(*s) + (np + nt) * sizeof(struct grovel_kv), 1);
    memset(s, 0, sizeof(*s));
    s->status = -1;
    luaL_setmetatable(L, GROVEL_SPEC);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, -3, 1);
    int anch = lua_gettop(L);
    s->type = spec_string(L, idx, anch, "type");
    s->basename = spec_string(L, idx, anch, "basename");
    s->name = spec_string(L, idx, anch, "name");
    s->unit = spec_string(L, idx, anch, "unit");
    const char *st = spec_string(L, idx, anch, "status");
    if (st && (s->status = grove_status_parse(st)) < 0)
        luaL_error(L, "bad spec field 'status' (unknown status '%s')", st);
    s->has_rank = spec_integer(L, idx, "rank", &s->rank);
    s->has_id = spec_integer(L, idx, "id", &s->id);
    s->has_size = spec_integer(L, idx, "size", &s->size);
    s->has_job = spec_integer(L, idx, "job", &s->job);
    s->nprop = spec_kv_fill(L, idx, anch, "property", s->kv);
    s->ntag = spec_kv_fill(L, idx, anch, "tag", s->kv + s->nprop);
    lua_pop(L, 1); /* anchor table */
    return s;
}

/* Does v carry a record (held) or an annotation (shared) of job? */
static bool has_job_record(const grove_graph_t *g, grove_vid_t v, grove_jobid_t job)
{
    size_t n = grove_vertex_record_count(g, v);
    grove_record_t r;
    for (size_t i = 0; i < n; i++)
        if (grove_vertex_record_at(g, v, i, &r) == 0 && r.job == job)
            return true;
    return false;
}

static bool str_eq(const char *want, const char *have)
{
    return !want || (have && !strcmp(want, have));
}

bool grovel_spec_match(const grove_graph_t *g, grove_vid_t v, const struct grovel_spec *s)
{
    if (!str_eq(s->type, grove_vertex_type(g, v)) || !str_eq(s->name, grove_vertex_name(g, v))
        || !str_eq(s->basename, grove_vertex_basename(g, v))
        || !str_eq(s->unit, grove_vertex_unit(g, v)))
        return false;
    if (s->status >= 0 && (int)grove_vertex_status(g, v) != s->status)
        return false;
    if (s->has_rank && grove_vertex_rank(g, v) != s->rank)
        return false;
    if (s->has_id && grove_vertex_id(g, v) != s->id)
        return false;
    if (s->has_size && grove_vertex_size(g, v) != s->size)
        return false;
    if (s->has_job && !has_job_record(g, v, (grove_jobid_t)s->job))
        return false;
    for (size_t i = 0; i < s->nprop; i++) {
        const char *val = grove_vertex_property(g, v, s->kv[i].k);
        if (!val || !str_eq(s->kv[i].v, val))
            return false;
    }
    for (size_t i = s->nprop; i < s->nprop + s->ntag; i++) {
        const char *val = NULL;
        if (!grove_vertex_has_tag(g, v, s->kv[i].k, &val) || !str_eq(s->kv[i].v, val))
            return false;
    }
    return true;
}

/* ---- add_vertex, add_edge, add_child ----------------------------------- */

static const char *const vertex_fields[] = {
    "type", "basename", "name", "id", "rank", "size", "unit", "uuid", "properties",
    "status", "tags", NULL,
};

/* Field f of the table at t: a string or nil (left on the stack). */
static const char *field_string(lua_State *L, int t, const char *f)
{
    int ty = lua_getfield(L, t, f);
    if (ty == LUA_TNIL)
        return NULL;
    if (ty != LUA_TSTRING)
        luaL_argerror(L, t, lua_pushfstring(L, "field '%s' must be a string, not %s", f,
                                            lua_typename(L, ty)));
    return lua_tostring(L, -1);
}

static int64_t field_integer(lua_State *L, int t, const char *f, int64_t dflt, int64_t min)
{
    int ty = lua_getfield(L, t, f);
    int64_t x = dflt;
    if (ty != LUA_TNIL) {
        if (!lua_isinteger(L, -1))
            luaL_argerror(L, t, lua_pushfstring(L, "field '%s' must be an integer, not %s", f,
                                                luaL_typename(L, -1)));
        x = lua_tointeger(L, -1);
        if (x < min)
            luaL_argerror(L, t, lua_pushfstring(L, "field '%s' must be >= %I", f,
                                                (lua_Integer)min));
    }
    lua_pop(L, 1);
    return x;
}

/* Check the properties= or tags= table at the top of the stack and replace
 * it with a fresh table of strings (tags without a value: true, dropped
 * tags: absent), so applying it later allocates nothing. */
static void check_kv_table(lua_State *L, int arg, const char *f, bool tags)
{
    int t = lua_gettop(L);
    if (lua_isnil(L, t))
        return;
    if (!lua_istable(L, t))
        luaL_argerror(L, arg, lua_pushfstring(L, "field '%s' must be a table", f));
    lua_newtable(L);
    lua_pushnil(L);
    while (lua_next(L, t)) {
        if (lua_type(L, -2) != LUA_TSTRING || lua_rawlen(L, -2) == 0)
            luaL_argerror(L, arg, lua_pushfstring(L, "field '%s': keys must be non-empty "
                                                     "strings", f));
        int vt = lua_type(L, -1);
        if (vt != LUA_TSTRING && vt != LUA_TNUMBER && !(tags && vt == LUA_TBOOLEAN))
            luaL_argerror(L, arg, lua_pushfstring(L, "field '%s': value of '%s' must be a "
                                                     "string%s", f, lua_tostring(L, -2),
                                                  tags ? " or a boolean" : " or a number"));
        if (vt == LUA_TBOOLEAN) {
            if (!lua_toboolean(L, -1)) {
                lua_pop(L, 1);
                continue;
            }
        } else {
            lua_tostring(L, -1); /* a number becomes its text here, not later */
        }
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, t + 1);
    }
    lua_replace(L, t);
}

/* Apply the table left by check_kv_table at t to v; 0 or -1 (errno).  Only
 * reads strings from the stack: no Lua allocation. */
static int apply_kv_table(lua_State *L, grove_graph_t *g, grove_vid_t v, int t, bool tags)
{
    if (lua_isnil(L, t))
        return 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        const char *k = lua_tostring(L, -2);
        const char *val = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        int rc = tags ? grove_vertex_tag(g, v, k, val) : grove_vertex_set_property(g, v, k, val);
        lua_pop(L, 1);
        if (rc < 0) {
            lua_pop(L, 1);
            return -1;
        }
    }
    return 0;
}

static int graph_add_vertex(lua_State *L)
{
    struct grovel_graph *gr = grovel_check_mutable(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    luaL_checkstack(L, 20, NULL);
    grovel_check_keys(L, 2, vertex_fields, 2, "unknown field '%s'");
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    info.type = field_string(L, 2, "type"); /* the strings stay on the stack */
    if (!info.type || !info.type[0])
        luaL_argerror(L, 2, "field 'type' is required (a non-empty string)");
    info.basename = field_string(L, 2, "basename");
    info.name = field_string(L, 2, "name");
    info.unit = field_string(L, 2, "unit");
    info.uuid = field_string(L, 2, "uuid");
    const char *status = field_string(L, 2, "status");
    info.id = field_integer(L, 2, "id", GROVE_ID_NONE, -1);
    info.rank = field_integer(L, 2, "rank", GROVE_ID_NONE, -1);
    info.size = field_integer(L, 2, "size", 1, 0);
    int st = GROVE_STATUS_UP;
    if (status && (st = grove_status_parse(status)) < 0)
        luaL_argerror(L, 2, lua_pushfstring(L, "unknown status '%s'", status));
    lua_getfield(L, 2, "properties");
    int props = lua_gettop(L);
    check_kv_table(L, 2, "properties", false);
    lua_getfield(L, 2, "tags");
    int tags = lua_gettop(L);
    check_kv_table(L, 2, "tags", true);

    grove_vid_t v = grove_graph_add_vertex(gr->g, &info);
    if (v == GROVE_VID_NONE) {
        int e = errno;
        const char *base = info.basename ? info.basename : info.type;
        if (e == EINVAL && (strchr(base, '/') || (info.name && strchr(info.name, '/'))))
            return grovel_fail_errno(
                L, e,
                lua_pushfstring(L, "%s '%s' contains '/' (names make up paths)",
                                strchr(base, '/') ? (info.basename ? "basename" : "type (the basename)")
                                                  : "name",
                                strchr(base, '/') ? base : info.name));
        if (e == EINVAL && info.uuid)
            return grovel_fail_errno(L, e, lua_pushfstring(L, "malformed uuid '%s'", info.uuid));
        if (e == EEXIST && info.uuid)
            return grovel_fail_errno(L, e, lua_pushfstring(L, "uuid %s is already used",
                                                           info.uuid));
        return grovel_fail_errno(L, e, NULL);
    }
    grove_vertex_set_status(gr->g, v, (grove_status_t)st);
    if (apply_kv_table(L, gr->g, v, props, false) < 0
        || apply_kv_table(L, gr->g, v, tags, true) < 0) {
        int e = errno;
        grove_graph_unlink(gr->g, v, true); /* no half-built vertex */
        return grovel_fail_errno(L, e, NULL);
    }
    grovel_push_vertex(L, 1, v);
    return 1;
}

/* The mutable graph at 1, and in *a and *b two of its vertices at 2 and 3
 * (the ends of an edge, a parent and its child); raises on misuse. */
static struct grovel_graph *check_two_vertices(lua_State *L, grove_vid_t *a, grove_vid_t *b)
{
    struct grovel_graph *gr = grovel_check_mutable(L, 1);
    *a = grovel_check_vertex_in(L, 2, gr);
    *b = grovel_check_vertex_in(L, 3, gr);
    return gr;
}

static int graph_add_edge(lua_State *L)
{
    grove_vid_t src, dst;
    struct grovel_graph *gr = check_two_vertices(L, &src, &dst);
    const char *sub = NULL, *rel = NULL;
    if (!lua_isnoneornil(L, 4)) {
        static const char *const fields[] = {"subsystem", "relation", NULL};
        luaL_checktype(L, 4, LUA_TTABLE);
        grovel_check_keys(L, 4, fields, 4, "unknown field '%s'");
        sub = field_string(L, 4, "subsystem");
        rel = field_string(L, 4, "relation");
        if ((sub && !sub[0]) || (rel && !rel[0]))
            luaL_argerror(L, 4, "subsystem and relation must not be empty");
    }
    grove_error_t err = {0};
    grove_eid_t e = grove_graph_add_edge(gr->g, src, dst, sub, rel, &err);
    if (e == GROVE_EID_NONE)
        return grovel_fail_err(L, errno, &err);
    grovel_push_edge(L, 1, e);
    return 1;
}

static int graph_add_child(lua_State *L)
{
    grove_vid_t p, c;
    struct grovel_graph *gr = check_two_vertices(L, &p, &c);
    const char *sub = luaL_optstring(L, 4, NULL);
    luaL_argcheck(L, !sub || sub[0], 4, "subsystem must not be empty");
    grove_error_t err = {0};
    return grovel_result(L, grove_graph_add_child(gr->g, p, c, sub, &err), &err);
}

static int graph_set_opposite(lua_State *L)
{
    struct grovel_graph *gr = grovel_check_mutable(L, 1);
    struct grovel_edge *a = check_edge(L, 2), *b = check_edge(L, 3);
    luaL_argcheck(L, a->gr == gr, 2, "edge of another graph");
    luaL_argcheck(L, b->gr == gr, 3, "edge of another graph");
    if (grove_graph_set_opposite(gr->g, a->e, b->e) < 0)
        return grovel_fail_errno(L, errno, "edges must join the same two vertices in "
                                           "opposite directions in one subsystem");
    return grovel_ok(L);
}

/* ---- look-ups -------------------------------------------------------------- */

static bool looks_like_uuid(const char *s, size_t len)
{
    if (len != 36)
        return false;
    for (size_t i = 0; i < 36; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !strchr("0123456789abcdefABCDEF", s[i]))
            return false;
    }
    return true;
}

/* g:vertex(path [, subsystem]) / g:vertex("subsystem:/path") / g:vertex(uuid) /
 * g:vertex(name) / g:vertex(vid) */
static int graph_vertex(lua_State *L)
{
    grove_graph_t *g = grovel_check_graph(L, 1);
    grove_vid_t v;
    if (lua_type(L, 2) == LUA_TNUMBER) {
        lua_Integer id = luaL_checkinteger(L, 2);
        if (id < 0 || id >= (lua_Integer)GROVE_VID_NONE
            || !grove_graph_has_vertex(g, (grove_vid_t)id))
            return grovel_fail_errno(L, ENOENT,
                                     lua_pushfstring(L, "no vertex with id %I", id));
        v = (grove_vid_t)id;
    } else {
        size_t len;
        const char *s = luaL_checklstring(L, 2, &len);
        if (s[0] == '/') {
            const char *subname;
            grove_sym_t sub = grovel_opt_subsystem(L, 3, g, &subname);
            v = sub == GROVE_SYM_NONE ? GROVE_VID_NONE : grove_graph_find_path(g, sub, s);
            if (v == GROVE_VID_NONE)
                return grovel_fail_errno(
                    L, ENOENT, lua_pushfstring(L, "no vertex at path %s in %s", s, subname));
        } else if (strstr(s, ":/")) {
            v = grove_graph_find_uri(g, s);
            if (v == GROVE_VID_NONE)
                return grovel_fail_errno(L, ENOENT, lua_pushfstring(L, "no vertex at %s", s));
        } else if (looks_like_uuid(s, len)) {
            v = grove_graph_find_uuid(g, s);
            if (v == GROVE_VID_NONE)
                return grovel_fail_errno(L, ENOENT,
                                         lua_pushfstring(L, "no vertex with uuid %s", s));
        } else {
            grove_sym_t n = grove_graph_sym_lookup(g, s);
            v = n == GROVE_SYM_NONE ? GROVE_VID_NONE : grove_graph_first_by_name(g, n);
            if (v == GROVE_VID_NONE)
                return grovel_fail_errno(L, ENOENT,
                                         lua_pushfstring(L, "no vertex named %s", s));
        }
    }
    grovel_push_vertex(L, 1, v);
    return 1;
}

/* How an iterator of vertices() or edges() walks the slots: every vertex
 * slot, the chain of one type, name or rank, or every edge slot. */
enum { SCAN_ALL, SCAN_TYPE, SCAN_NAME, SCAN_RANK, SCAN_EDGES };

/* The slot after at in a scan of mode, or -1. */
static lua_Integer scan_next(const grove_graph_t *g, int mode, lua_Integer at)
{
    grove_vid_t v = (grove_vid_t)at, next;
    switch (mode) {
    case SCAN_TYPE: next = grove_vertex_next_same_type(g, v); break;
    case SCAN_NAME: next = grove_vertex_next_same_name(g, v); break;
    case SCAN_RANK: next = grove_vertex_next_same_rank(g, v); break;
    default: return at + 1;
    }
    return next == GROVE_VID_NONE ? -1 : (lua_Integer)next;
}

/* Whether the scan yields slot at: a live vertex the spec (upvalue 2, or
 * nil) matches, or a live edge of the subsystem (upvalue 2, -1: any). */
static bool scan_wants(lua_State *L, const grove_graph_t *g, int mode, lua_Integer at)
{
    if (mode == SCAN_EDGES) {
        lua_Integer sub = lua_tointeger(L, lua_upvalueindex(2));
        grove_eid_t e = (grove_eid_t)at;
        return grove_graph_has_edge(g, e)
               && (sub < 0 || grove_edge_subsystem(g, e) == (grove_sym_t)sub);
    }
    const struct grovel_spec *s = lua_touserdata(L, lua_upvalueindex(2));
    grove_vid_t v = (grove_vid_t)at;
    return grove_graph_has_vertex(g, v) && (!s || grovel_spec_match(g, v, s));
}

/* Iterator of vertices() and edges(): upvalues graph, filter (see
 * scan_wants), next slot (-1 when done), mode (SCAN_*). */
static int scan_step(lua_State *L)
{
    struct grovel_graph *gr = lua_touserdata(L, lua_upvalueindex(1));
    if (!gr->g)
        return luaL_error(L, "graph is closed");
    lua_Integer cur = lua_tointeger(L, lua_upvalueindex(3));
    int mode = (int)lua_tointeger(L, lua_upvalueindex(4));
    size_t slots = mode == SCAN_EDGES ? grove_graph_edge_slots(gr->g)
                                      : grove_graph_vertex_slots(gr->g);
    while (cur >= 0 && (size_t)cur < slots) {
        lua_Integer at = cur;
        cur = scan_next(gr->g, mode, at);
        if (scan_wants(L, gr->g, mode, at)) {
            lua_pushinteger(L, cur);
            lua_replace(L, lua_upvalueindex(3));
            if (mode == SCAN_EDGES)
                grovel_push_edge(L, lua_upvalueindex(1), (grove_eid_t)at);
            else
                grovel_push_vertex(L, lua_upvalueindex(1), (grove_vid_t)at);
            return 1;
        }
    }
    lua_pushinteger(L, -1);
    lua_replace(L, lua_upvalueindex(3));
    return 0;
}

static int graph_vertices(lua_State *L)
{
    grove_graph_t *g = grovel_check_graph(L, 1);
    lua_settop(L, 2);
    lua_pushvalue(L, 1);
    struct grovel_spec *s = NULL;
    if (lua_isnil(L, 2))
        lua_pushnil(L);
    else
        s = grovel_push_spec(L, 2);
    grove_vid_t first = grove_graph_vertex_slots(g) ? 0 : GROVE_VID_NONE;
    int mode = SCAN_ALL;
    if (s && s->name) {
        grove_sym_t n = grove_graph_sym_lookup(g, s->name);
        first = n == GROVE_SYM_NONE ? GROVE_VID_NONE : grove_graph_first_by_name(g, n);
        mode = SCAN_NAME;
    } else if (s && s->has_rank) {
        first = grove_graph_first_by_rank(g, s->rank);
        mode = SCAN_RANK;
    } else if (s && s->type) {
        grove_sym_t t = grove_graph_sym_lookup(g, s->type);
        first = t == GROVE_SYM_NONE ? GROVE_VID_NONE : grove_graph_first_by_type(g, t);
        mode = SCAN_TYPE;
    }
    lua_pushinteger(L, first == GROVE_VID_NONE ? -1 : (lua_Integer)first);
    lua_pushinteger(L, mode);
    lua_pushcclosure(L, scan_step, 4);
    return 1;
}

static int graph_edges(lua_State *L)
{
    grove_graph_t *g = grovel_check_graph(L, 1);
    lua_Integer first = 0, sub = -1;
    if (!lua_isnoneornil(L, 2)) {
        grove_sym_t s = grove_graph_sym_lookup(g, luaL_checkstring(L, 2));
        if (s == GROVE_SYM_NONE)
            first = -1;
        sub = (lua_Integer)s;
    }
    lua_pushvalue(L, 1);
    lua_pushinteger(L, sub);
    lua_pushinteger(L, first);
    lua_pushinteger(L, SCAN_EDGES);
    lua_pushcclosure(L, scan_step, 4);
    return 1;
}

static int graph_roots(lua_State *L)
{
    grove_graph_t *g = grovel_check_graph(L, 1);
    grove_sym_t sub = grovel_opt_subsystem(L, 2, g, NULL);
    lua_newtable(L);
    if (sub == GROVE_SYM_NONE)
        return 1;
    grove_vid_t r;
    for (size_t i = 0; (r = grove_graph_root(g, sub, i)) != GROVE_VID_NONE; i++) {
        grovel_push_vertex(L, 1, r);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int graph_root(lua_State *L)
{
    grove_graph_t *g = grovel_check_graph(L, 1);
    const char *name;
    grove_sym_t sub = grovel_opt_subsystem(L, 2, g, &name);
    grove_vid_t r = sub == GROVE_SYM_NONE ? GROVE_VID_NONE : grove_graph_root(g, sub, 0);
    if (r == GROVE_VID_NONE)
        return grovel_fail_errno(L, ENOENT, lua_pushfstring(L, "no root in subsystem %s", name));
    grovel_push_vertex(L, 1, r);
    return 1;
}

static const char *subsystem_at(const void *g, size_t i)
{
    grove_sym_t s = grove_graph_subsystem_at(g, i);
    return s == GROVE_SYM_NONE ? NULL : grove_graph_str(g, s);
}

static int graph_subsystems(lua_State *L)
{
    grovel_push_strings(L, grovel_check_graph(L, 1), SIZE_MAX, subsystem_at);
    return 1;
}

/* count() live vertices; count(type) those of a type. */
static int graph_count(lua_State *L)
{
    grove_graph_t *g = grovel_check_graph(L, 1);
    if (lua_isnoneornil(L, 2)) {
        lua_pushinteger(L, (lua_Integer)grove_graph_vertex_count(g));
    } else {
        grove_sym_t t = grove_graph_sym_lookup(g, luaL_checkstring(L, 2));
        lua_pushinteger(L, t == GROVE_SYM_NONE ? 0 : (lua_Integer)grove_graph_count_type(g, t));
    }
    return 1;
}

enum { G_VERTEX_COUNT, G_EDGE_COUNT, G_BYTES, G_NOW, G_EXPIRATION, G_CHANGES };

/* #g, edge_count(), bytes(), now(), expiration(), changes(): the arg says
 * which (G_*). */
static int graph_number(lua_State *L)
{
    grove_graph_t *g = grovel_check_graph(L, 1);
    int64_t n;
    switch (grovel_uparg(L)) {
    case G_VERTEX_COUNT: n = (int64_t)grove_graph_vertex_count(g); break;
    case G_EDGE_COUNT: n = (int64_t)grove_graph_edge_count(g); break;
    case G_BYTES: n = (int64_t)grove_graph_bytes(g); break;
    case G_EXPIRATION: n = grove_graph_expiration(g); break;
    case G_CHANGES: n = (int64_t)grove_graph_changes(g); break;
    default: n = grove_graph_now(g); break;
    }
    lua_pushinteger(L, (lua_Integer)n);
    return 1;
}

/* g:set_now(t), the graph's clock, and g:set_expiration(t), the matcher's
 * horizon (0: none); seconds, never negative.  The arg says which (G_NOW
 * or G_EXPIRATION). */
static int graph_set_time(lua_State *L)
{
    grove_graph_t *g = grovel_check_graph(L, 1);
    lua_Integer t = luaL_checkinteger(L, 2);
    bool now = grovel_uparg(L) == G_NOW;
    luaL_argcheck(L, t >= 0, 2, now ? "time must be >= 0" : "expiration must be >= 0 (0: none)");
    if (now)
        grove_graph_set_now(g, t);
    else
        grove_graph_set_expiration(g, t);
    return 0;
}

/* ---- shared with vertex methods: allocate, free, aggregate, copy --------- */

/* The window of an allocation from opts at idx: {start=, duration=, end=,
 * end_=, exclusive=}. */
static void check_window(lua_State *L, int idx, const grove_graph_t *g, int64_t *start,
                         int64_t *end, bool *excl)
{
    *start = grove_graph_now(g);
    *end = GROVE_TIME_MAX;
    *excl = false;
    if (lua_isnoneornil(L, idx))
        return;
    static const char *const options[] = {"start", "duration", "end", "end_", "exclusive", NULL};
    luaL_checktype(L, idx, LUA_TTABLE);
    grovel_check_keys(L, idx, options, idx, "unknown option '%s'");
    *start = field_integer(L, idx, "start", *start, 0);
    int64_t dur = field_integer(L, idx, "duration", -1, 1);
    int64_t e1 = field_integer(L, idx, "end", -1, 0);
    int64_t e2 = field_integer(L, idx, "end_", -1, 0);
    if ((dur >= 0) + (e1 >= 0) + (e2 >= 0) > 1)
        luaL_argerror(L, idx, "give at most one of duration, end and end_");
    if (dur >= 0)
        *end = dur > GROVE_TIME_MAX - *start ? GROVE_TIME_MAX : *start + dur;
    else if (e1 >= 0 || e2 >= 0)
        *end = e1 >= 0 ? e1 : e2;
    if (*end <= *start)
        luaL_argerror(L, idx, "the window ends before it starts");
    lua_getfield(L, idx, "exclusive");
    *excl = lua_toboolean(L, -1);
    lua_pop(L, 1);
}

int grovel_allocate(lua_State *L, grove_graph_t *g, grove_vid_t v, int arg)
{
    lua_Integer amount = luaL_checkinteger(L, arg);
    luaL_argcheck(L, amount > 0, arg, "amount must be > 0");
    grove_jobid_t job = grovel_check_job(L, arg + 1);
    int64_t start, end;
    bool excl;
    check_window(L, arg + 2, g, &start, &end, &excl);
    if (grove_vertex_allocate(g, v, job, amount, start, end, excl) == 0) {
        return grovel_ok(L);
    }
    int e = errno;
    const char *label = grovel_push_label(L, g, v);
    if (e == EINVAL)
        return grovel_fail_errno(
            L, e, lua_pushfstring(L, "%s: cannot allocate %I units of a pool of %I", label,
                                  amount, (lua_Integer)grove_vertex_size(g, v)));
    if (e == EBUSY)
        return grovel_fail_errno(
            L, e, lua_pushfstring(L, "%s: busy: cannot allocate %I units to job %I", label,
                                  amount, (lua_Integer)job));
    if (e == EEXIST)
        return grovel_fail_errno(
            L, e, lua_pushfstring(L, "%s: job %I already holds it, whole above or in part below",
                                  label, (lua_Integer)job));
    return grovel_fail_errno(L, e, NULL);
}

int grovel_free(lua_State *L, grove_graph_t *g, grove_vid_t v, int arg)
{
    grove_jobid_t job = grovel_check_job(L, arg);
    lua_Integer amount = luaL_optinteger(L, arg + 1, -1);
    luaL_argcheck(L, lua_isnoneornil(L, arg + 1) || amount > 0, arg + 1,
                  "amount must be > 0");
    if (grove_vertex_free(g, v, job, amount) == 0) {
        return grovel_ok(L);
    }
    int e = errno;
    const char *label = grovel_push_label(L, g, v);
    if (e == ENOENT)
        return grovel_fail_errno(
            L, e, lua_pushfstring(L, "%s: job %I holds nothing here", label, (lua_Integer)job));
    if (e == EINVAL)
        return grovel_fail_errno(L, e, lua_pushfstring(L, "%s: job %I holds fewer than %I units",
                                                       label, (lua_Integer)job, amount));
    return grovel_fail_errno(L, e, NULL);
}

/* Aggregate results gathered in C (no Lua calls inside the callback). */
struct aggbuf {
    const char **type;
    int64_t *count;
    size_t n, cap;
    int failed;
};

static void aggbuf_free(void *p)
{
    struct aggbuf *a = p;
    free(a->type);
    free(a->count);
    free(a);
}

static void agg_cb(const char *type, int64_t count, void *arg)
{
    struct aggbuf *a = arg;
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 16;
        const char **t = realloc(a->type, cap * sizeof(*t));
        if (t)
            a->type = t;
        int64_t *c = t ? realloc(a->count, cap * sizeof(*c)) : NULL;
        if (!t || !c) {
            a->failed = 1;
            return;
        }
        a->count = c;
        a->cap = cap;
    }
    a->type[a->n] = type;
    a->count[a->n++] = count;
}

int grovel_aggregate(lua_State *L, const grove_graph_t *g, grove_vid_t v)
{
    struct grovel_box *box = grovel_box_new(L, aggbuf_free);
    struct aggbuf *a = calloc(1, sizeof(*a));
    if (!a)
        return grovel_fail_errno(L, ENOMEM, NULL);
    box->p = a;
    if (v != GROVE_VID_NONE && (grove_graph_aggregate(g, v, agg_cb, a) < 0 || a->failed))
        return grovel_fail_errno(L, ENOMEM, NULL);
    lua_createtable(L, 0, (int)a->n);
    for (size_t i = 0; i < a->n; i++) {
        lua_pushinteger(L, (lua_Integer)a->count[i]);
        lua_setfield(L, -2, a->type[i]);
    }
    return 1;
}

int grovel_copy(lua_State *L, const grove_graph_t *g, grove_vid_t v)
{
    struct grovel_graph *n = grovel_new_graph_ud(L);
    n->g = v == GROVE_VID_NONE ? grove_graph_create() : grove_graph_copy(g, v);
    if (!n->g)
        return grovel_fail_errno(L, errno ? errno : ENOMEM, NULL);
    return 1;
}

/* The vertex argument at idx, or the containment root when absent
 * (GROVE_VID_NONE for a graph without vertices). */
static grove_vid_t opt_vertex_or_root(lua_State *L, int idx, const struct grovel_graph *gr)
{
    if (!lua_isnoneornil(L, idx))
        return grovel_check_vertex_in(L, idx, gr);
    grove_sym_t sub = grove_graph_sym_lookup(gr->g, GROVE_CONTAINMENT);
    return grove_graph_root(gr->g, sub, 0);
}

static int graph_aggregate(lua_State *L)
{
    struct grovel_graph *gr = grovel_check_graph_ud(L, 1);
    return grovel_aggregate(L, gr->g, opt_vertex_or_root(L, 2, gr));
}

static int graph_copy(lua_State *L)
{
    struct grovel_graph *gr = grovel_check_graph_ud(L, 1);
    return grovel_copy(L, gr->g, opt_vertex_or_root(L, 2, gr));
}

static int graph_duplicate(lua_State *L)
{
    grove_graph_t *g = grovel_check_graph(L, 1);
    struct grovel_graph *n = grovel_new_graph_ud(L);
    if (!(n->g = grove_graph_duplicate(g)))
        return grovel_fail_errno(L, ENOMEM, NULL);
    return 1;
}

static int graph_allocate(lua_State *L)
{
    struct grovel_graph *gr = grovel_check_graph_ud(L, 1);
    return grovel_allocate(L, gr->g, grovel_check_vertex_in(L, 2, gr), 3);
}

static int graph_free(lua_State *L)
{
    struct grovel_graph *gr = grovel_check_graph_ud(L, 1);
    return grovel_free(L, gr->g, grovel_check_vertex_in(L, 2, gr), 3);
}

static int graph_free_job(lua_State *L)
{
    grove_graph_t *g = grovel_check_graph(L, 1);
    lua_pushinteger(L, (lua_Integer)grove_graph_free_job(g, grovel_check_job(L, 2)));
    return 1;
}

/* g:allocated([t]) (arg 0), g:available([start [, duration]]) (arg 1):
 * the vertices, an array. */
static int graph_sets(lua_State *L)
{
    bool avail = grovel_uparg(L);
    struct grovel_graph *gr = grovel_check_graph_ud(L, 1);
    lua_Integer start = luaL_optinteger(L, 2, grove_graph_now(gr->g));
    lua_Integer dur = avail ? luaL_optinteger(L, 3, 1) : 1;
    luaL_argcheck(L, grove_time_ok(start), 2, "time out of range [0, 2^63 - 1)");
    luaL_argcheck(L, dur > 0, 3, "duration must be > 0");
    struct grovel_box *box = grovel_box_new(L, free);
    grove_vid_t *vids = NULL;
    size_t n = 0;
    int rc = avail ? grove_graph_available_during(gr->g, start, grove_time_end(start, dur), &vids,
                                                  &n)
                   : grove_graph_allocated_at(gr->g, start, &vids, &n);
    if (rc < 0)
        return grovel_fail_errno(L, errno, NULL);
    box->p = vids;
    grovel_push_vertices(L, 1, vids, n);
    return 1;
}

/* g:set_aggregates("HL:LL,...") -> true | nil, msg, "EINVAL" */
static int graph_set_aggregates(lua_State *L)
{
    struct grovel_graph *gr = grovel_check_mutable(L, 1);
    const char *spec = luaL_checkstring(L, 2);
    grove_error_t err = {0};
    return grovel_result(L, grove_graph_set_aggregates(gr->g, spec, &err), &err);
}

static int graph_aggregates(lua_State *L)
{
    lua_pushstring(L, grove_graph_aggregates(grovel_check_graph(L, 1)));
    return 1;
}

/* ---- merge, unlink, extract ------------------------------------------------ */

static int graph_merge(lua_State *L)
{
    struct grovel_graph *gr = grovel_check_mutable(L, 1);
    struct grovel_graph *src = grovel_check_graph_ud(L, 2);
    luaL_argcheck(L, src != gr, 2, "cannot merge a graph into itself");
    const char *at = luaL_optstring(L, 3, NULL);
    grove_error_t err = {0};
    long n = grove_graph_merge(gr->g, src->g, at, &err);
    if (n < 0)
        return grovel_fail_err(L, errno, &err);
    lua_pushinteger(L, n);
    return 1;
}

static int graph_unlink(lua_State *L)
{
    struct grovel_graph *gr = grovel_check_mutable(L, 1);
    grove_vid_t v = grovel_check_vertex_in(L, 2, gr);
    bool force = lua_toboolean(L, 3);
    const char *label = grovel_push_label(L, gr->g, v);
    if (grove_graph_unlink(gr->g, v, force) < 0) {
        int e = errno;
        if (e == EBUSY)
            return grovel_fail_errno(
                L, e, lua_pushfstring(L, "%s: the subtree holds allocations (force to drop them)",
                                      label));
        return grovel_fail_errno(L, e, NULL);
    }
    return grovel_ok(L);
}

static int graph_extract(lua_State *L)
{
    struct grovel_graph *gr = grovel_check_graph_ud(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    size_t n = (size_t)lua_rawlen(L, 2);
    grove_vid_t *vids = lua_newuserdatauv(L, (n ? n : 1) * sizeof(*vids), 0);
    for (size_t i = 0; i < n; i++) {
        lua_rawgeti(L, 2, (lua_Integer)i + 1);
        struct grovel_vertex *h = luaL_testudata(L, -1, GROVEL_VERTEX);
        if (!h || h->gr != gr || !grove_graph_has_vertex(gr->g, h->v))
            luaL_argerror(L, 2, lua_pushfstring(L, "entry %I is not a vertex of this graph",
                                                (lua_Integer)i + 1));
        vids[i] = h->v;
        lua_pop(L, 1);
    }
    struct grovel_graph *out = grovel_new_graph_ud(L);
    if (!(out->g = grove_graph_extract(gr->g, vids, n)))
        return grovel_fail_errno(L, errno, NULL);
    return 1;
}

/* ---- edge handle ------------------------------------------------------------ */

static int edge_src(lua_State *L)
{
    struct grovel_edge *h = check_edge(L, 1);
    lua_getiuservalue(L, 1, 1);
    grovel_push_vertex(L, -1, grove_edge_src(h->gr->g, h->e));
    return 1;
}

static int edge_dst(lua_State *L)
{
    struct grovel_edge *h = check_edge(L, 1);
    lua_getiuservalue(L, 1, 1);
    grovel_push_vertex(L, -1, grove_edge_dst(h->gr->g, h->e));
    return 1;
}

static int edge_subsystem(lua_State *L)
{
    struct grovel_edge *h = check_edge(L, 1);
    lua_pushstring(L, grove_graph_str(h->gr->g, grove_edge_subsystem(h->gr->g, h->e)));
    return 1;
}

static int edge_relation(lua_State *L)
{
    struct grovel_edge *h = check_edge(L, 1);
    lua_pushstring(L, grove_graph_str(h->gr->g, grove_edge_relation(h->gr->g, h->e)));
    return 1;
}

static int edge_opposite(lua_State *L)
{
    struct grovel_edge *h = check_edge(L, 1);
    grove_eid_t o = grove_edge_opposite(h->gr->g, h->e);
    if (o == GROVE_EID_NONE)
        return 0;
    lua_getiuservalue(L, 1, 1);
    grovel_push_edge(L, -1, o);
    return 1;
}

static int edge_is_up(lua_State *L)
{
    struct grovel_edge *h = check_edge(L, 1);
    lua_pushboolean(L, grove_edge_is_up(h->gr->g, h->e));
    return 1;
}

static int edge_id(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_edge(L, 1)->e);
    return 1;
}

static void edge_describe(lua_State *L, void *ud)
{
    const struct grovel_edge *h = ud;
    grove_graph_t *g = h->gr->g;
    if (!g || !grove_graph_has_edge(g, h->e)) {
        lua_pushstring(L, g ? "grove.edge (removed)" : "grove.edge (closed)");
        return;
    }
    grovel_push_label(L, g, grove_edge_src(g, h->e));
    grovel_push_label(L, g, grove_edge_dst(g, h->e));
    lua_pushfstring(L, "%s -%s-> %s (%s)", lua_tostring(L, -2),
                    grove_graph_str(g, grove_edge_relation(g, h->e)), lua_tostring(L, -1),
                    grove_graph_str(g, grove_edge_subsystem(g, h->e)));
}

static bool edge_equal(const void *a, const void *b)
{
    const struct grovel_edge *x = a, *y = b;
    return x->gr == y->gr && x->e == y->e;
}

/* ---- registration ------------------------------------------------------------ */

static const grovel_class_t edge_class = {
    .tname = GROVEL_EDGE,
    .describe = edge_describe,
    .equal = edge_equal,
};

static const grovel_class_t spec_class = {.tname = GROVEL_SPEC};

#include "api_graph.h"
