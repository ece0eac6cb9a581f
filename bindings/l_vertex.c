/* l_vertex.c: the methods of a vertex handle (a resource pool of a graph):
 * base data, status, properties, tags, structure per subsystem, and the
 * pool's allocation records.
 *
 * One implementation per method serves both vertex classes of lgraph.h:
 * the graph's vertex handles (grove.vertex, all methods) and the read-only
 * views policy hooks see (grove.policy.vertex, the read methods; the view
 * class itself lives in l_view.c).  Each method finds its class as its
 * upvalue and asks it for the graph and vertex, so a class adds its own
 * checks in one place.  This file holds no class-specific checks and no
 * method of another userdata.
 *
 * Workload: called from policies and scripts, often in loops over many
 * vertices, so every method is a few core calls with no allocation beyond
 * the values it returns.  The handle class itself (creation, checking,
 * equality) lives in l_graph.c; this file only adds methods to it, and
 * registers the class through grovel_class_open like every other.
 */
#include <errno.h>
#include <string.h>

#include "lgraph.h"

/* The handle at 1 as a method sees it: its class, graph and vertex. */
struct ref {
    const struct grovel_vclass *c;
    grove_graph_t *g;
    grove_vid_t v;
};

static struct ref check(lua_State *L)
{
    struct ref h;
    h.c = (const struct grovel_vclass *)grovel_upclass(L);
    h.g = h.c->check(L, 1, &h.v);
    return h;
}

/* ---- base data --------------------------------------------------------------- */

/* The base data: each method is a getter of graph.h applied to the handle's
 * vertex, the method's arg its row here.  Ids and ranks are nil when the
 * vertex has none. */
static const char *(*const text_getters[])(const grove_graph_t *, grove_vid_t) = {
    grove_vertex_type, grove_vertex_basename, grove_vertex_name, grove_vertex_unit,
};

static const struct {
    int64_t (*get)(const grove_graph_t *, grove_vid_t);
    bool optional; /* GROVE_ID_NONE is nil */
} number_getters[] = {
    {grove_vertex_id, true},
    {grove_vertex_rank, true},
    {grove_vertex_size, false},
};

static int v_text(lua_State *L)
{
    struct ref h = check(L);
    lua_pushstring(L, text_getters[grovel_uparg(L)](h.g, h.v));
    return 1;
}

static int v_number(lua_State *L)
{
    struct ref h = check(L);
    int i = grovel_uparg(L);
    int64_t x = number_getters[i].get(h.g, h.v);
    if (number_getters[i].optional && x == GROVE_ID_NONE)
        lua_pushnil(L);
    else
        lua_pushinteger(L, (lua_Integer)x);
    return 1;
}

static int v_vid(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check(L).v);
    return 1;
}

static int v_uuid(lua_State *L)
{
    struct ref h = check(L);
    char buf[37];
    grove_vertex_uuid(h.g, h.v, buf);
    lua_pushstring(L, buf);
    return 1;
}

static int v_graph(lua_State *L)
{
    check(L);
    grovel_vertex_graph(L, 1);
    return 1;
}

static int v_set_size(lua_State *L)
{
    struct ref h = check(L);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_argcheck(L, n >= 0, 2, "size must be >= 0");
    if (grove_vertex_set_size(h.g, h.v, n) < 0) {
        int e = errno;
        const char *label = grovel_push_label(L, h.g, h.v);
        if (e == EBUSY)
            return grovel_fail_errno(
                L, e, lua_pushfstring(L, "%s: more than %I units are allocated at some time",
                                      label, n));
        return grovel_fail_errno(L, e, NULL);
    }
    return grovel_ok(L);
}

static int v_set_rank(lua_State *L)
{
    struct ref h = check(L);
    lua_Integer r = lua_isnil(L, 2) ? GROVE_ID_NONE : luaL_checkinteger(L, 2);
    luaL_argcheck(L, r >= -1, 2, "rank must be >= 0 (or -1/nil for none)");
    if (grove_vertex_set_rank(h.g, h.v, r) < 0)
        return grovel_fail_errno(L, errno, NULL);
    return grovel_ok(L);
}

static int v_set_name(lua_State *L)
{
    struct ref h = check(L);
    const char *name = luaL_checkstring(L, 2);
    luaL_argcheck(L, name[0] && !strchr(name, '/'), 2,
                  "name must be non-empty and contain no '/'");
    if (grove_vertex_set_name(h.g, h.v, name) < 0)
        return grovel_fail_errno(L, errno, NULL);
    return grovel_ok(L);
}

/* ---- status ------------------------------------------------------------------ */

static int v_status(lua_State *L)
{
    struct ref h = check(L);
    lua_pushstring(L, grove_status_name(grove_vertex_status(h.g, h.v)));
    return 1;
}

static int v_set_status(lua_State *L)
{
    struct ref h = check(L);
    const char *s = luaL_checkstring(L, 2);
    int st = grove_status_parse(s);
    if (st < 0)
        return luaL_argerror(L, 2, lua_pushfstring(L, "unknown status '%s' (up, down, "
                                                      "drained, excluded, degraded, failing, "
                                                      "unknown or null)", s));
    grove_vertex_set_status(h.g, h.v, (grove_status_t)st);
    return grovel_ok(L);
}

/* ---- properties and tags ------------------------------------------------------ */

/* A property or tag key: non-empty, except that a view takes any string. */
static const char *check_key(lua_State *L, const struct ref *h, int idx)
{
    const char *k = luaL_checkstring(L, idx);
    luaL_argcheck(L, k[0] || h->c->view, idx, "key must not be empty");
    return k;
}

/* A read of v's own properties or tags (a view notes it). */
static void kv_read(lua_State *L, const struct ref *h, const char *what)
{
    if (h->c->read)
        h->c->read(L, h->v, GROVEL_VREAD_KV, what);
}

static int v_property(lua_State *L)
{
    struct ref h = check(L);
    kv_read(L, &h, "property()");
    const char *val = grove_vertex_property(h.g, h.v, check_key(L, &h, 2));
    if (!val)
        return 0;
    lua_pushstring(L, val);
    return 1;
}

/* set_property(k, v) (arg 0) and tag(k [, v]) (arg 1): a tag may have no
 * value. */
static int v_set(lua_State *L)
{
    bool tag = grovel_uparg(L);
    struct ref h = check(L);
    const char *k = check_key(L, &h, 2);
    const char *val = NULL;
    if (!tag || !lua_isnoneornil(L, 3)) {
        luaL_argcheck(L, lua_type(L, 3) == LUA_TSTRING || lua_type(L, 3) == LUA_TNUMBER, 3,
                      "value must be a string or a number");
        val = lua_tostring(L, 3);
    }
    int rc = tag ? grove_vertex_tag(h.g, h.v, k, val)
                 : grove_vertex_set_property(h.g, h.v, k, val);
    if (rc < 0)
        return grovel_fail_errno(L, errno, NULL);
    return grovel_ok(L);
}

/* remove_property(k) (arg 0) and untag(k) (arg 1). */
static int v_remove(lua_State *L)
{
    bool tag = grovel_uparg(L);
    struct ref h = check(L);
    const char *k = check_key(L, &h, 2);
    int rc = tag ? grove_vertex_untag(h.g, h.v, k) : grove_vertex_remove_property(h.g, h.v, k);
    if (rc < 0)
        return grovel_fail_errno(L, errno, lua_pushfstring(L, "no %s '%s'",
                                                           tag ? "tag" : "property", k));
    return grovel_ok(L);
}

/* properties() -> {key = value}; tags() -> {key = value or true} */
static int push_pairs(lua_State *L, size_t (*count)(const grove_graph_t *, grove_vid_t),
                      int (*at)(const grove_graph_t *, grove_vid_t, size_t, const char **,
                                const char **))
{
    struct ref h = check(L);
    const char *k, *val;
    kv_read(L, &h, "properties()");
    lua_createtable(L, 0, (int)count(h.g, h.v));
    for (size_t i = 0; at(h.g, h.v, i, &k, &val) == 0; i++) {
        if (val)
            lua_pushstring(L, val);
        else
            lua_pushboolean(L, 1);
        lua_setfield(L, -2, k);
    }
    return 1;
}

static int v_properties(lua_State *L)
{
    return push_pairs(L, grove_vertex_property_count, grove_vertex_property_at);
}

/* has_tag(k) -> true, value (nil when the tag has none) | false */
static int v_has_tag(lua_State *L)
{
    struct ref h = check(L);
    const char *val = NULL;
    kv_read(L, &h, "has_tag()");
    bool has = grove_vertex_has_tag(h.g, h.v, check_key(L, &h, 2), &val);
    lua_pushboolean(L, has);
    if (!has || !val)
        return 1;
    lua_pushstring(L, val);
    return 2;
}

static int v_tags(lua_State *L)
{
    return push_pairs(L, grove_vertex_tag_count, grove_vertex_tag_at);
}

/* ---- structure ------------------------------------------------------------------ */

/* v:path([subsystem]), and v:uri([subsystem]) (arg 1: RFC 4's
 * "subsystem:/path" form). */
static int v_path(lua_State *L)
{
    struct ref h = check(L);
    const char *subname;
    grove_sym_t sub = grovel_opt_subsystem(L, 2, h.g, &subname);
    int (*text)(const grove_graph_t *, grove_vid_t, grove_sym_t, char *, size_t) =
        grovel_uparg(L) ? grove_vertex_uri : grove_vertex_path;
    int n = sub == GROVE_SYM_NONE ? -1 : text(h.g, h.v, sub, NULL, 0);
    if (n < 0 && h.c->view)
        return 0;
    if (n < 0)
        return grovel_fail_errno(L, ENOENT,
                                 lua_pushfstring(L, "%s is not in subsystem %s",
                                                 grove_vertex_name(h.g, h.v), subname));
    luaL_Buffer b;
    char *p = luaL_buffinitsize(L, &b, (size_t)n + 1);
    text(h.g, h.v, sub, p, (size_t)n + 1);
    luaL_pushresultsize(&b, (size_t)n);
    return 1;
}

/* Push the first user value of the handle at 1 (what push_kin needs) and
 * return its index, or 0 for a handle that has none (a policy's view). */
static int push_kin_uv(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TUSERDATA)
        return 0;
    lua_getiuservalue(L, 1, 1);
    return lua_gettop(L);
}

static int v_parent(lua_State *L)
{
    struct ref h = check(L);
    if (h.c->read)
        h.c->read(L, h.v, GROVEL_VREAD_KIN, "parent()");
    grove_sym_t sub = grovel_opt_subsystem(L, 2, h.g, NULL);
    grove_vid_t p = sub == GROVE_SYM_NONE ? GROVE_VID_NONE : grove_vertex_parent(h.g, h.v, sub);
    if (p == GROVE_VID_NONE)
        return 0;
    int uv = push_kin_uv(L);
    h.c->push_kin(L, 1, uv, p);
    if (uv)
        lua_remove(L, uv);
    return 1;
}

/* v:locality(): the locality domain holding v (grove_vertex_domain), or
 * nil. */
static int v_locality(lua_State *L)
{
    struct ref h = check(L);
    grove_vid_t d = grove_vertex_domain(h.g, h.v);
    if (d == GROVE_VID_NONE)
        return 0;
    int uv = push_kin_uv(L);
    h.c->push_kin(L, 1, uv, d);
    if (uv)
        lua_remove(L, uv);
    return 1;
}

static int v_depth(lua_State *L)
{
    struct ref h = check(L);
    grove_sym_t sub = grovel_opt_subsystem(L, 2, h.g, NULL);
    lua_pushinteger(L, sub == GROVE_SYM_NONE ? 0 : grove_vertex_depth(h.g, h.v, sub));
    return 1;
}

/* Push the children of the handle at 1 in subsystem at 2 as an array. */
static void push_children(lua_State *L)
{
    struct ref h = check(L);
    if (h.c->read)
        h.c->read(L, h.v, GROVEL_VREAD_KIN, "children()");
    grove_sym_t sub = grovel_opt_subsystem(L, 2, h.g, NULL);
    lua_newtable(L);
    if (sub == GROVE_SYM_NONE)
        return;
    int arr = lua_gettop(L), uv = push_kin_uv(L);
    grove_eid_t cur;
    lua_Integer i = 0;
    for (grove_vid_t c = grove_vertex_first_child(h.g, h.v, sub, &cur); c != GROVE_VID_NONE;
         c = grove_vertex_next_child(h.g, sub, &cur)) {
        h.c->push_kin(L, 1, uv, c);
        lua_rawseti(L, arr, ++i);
    }
    lua_settop(L, arr);
}

static int v_children_list(lua_State *L)
{
    push_children(L);
    return 1;
}

/* Iterator over a snapshot of the children: upvalues array, next index. */
static int children_next(lua_State *L)
{
    lua_Integer i = lua_tointeger(L, lua_upvalueindex(2));
    if (lua_rawgeti(L, lua_upvalueindex(1), i) == LUA_TNIL)
        return 1;
    lua_pushinteger(L, i + 1);
    lua_replace(L, lua_upvalueindex(2));
    return 1;
}

static int v_children(lua_State *L)
{
    push_children(L);
    lua_pushinteger(L, 1);
    lua_pushcclosure(L, children_next, 2);
    return 1;
}

/* Out- (arg 1) or in-edges (arg 0) of the vertex, optionally of one
 * subsystem. */
static int v_edges(lua_State *L)
{
    bool out = grovel_uparg(L);
    struct ref h = check(L);
    grove_graph_t *g = h.g;
    grove_sym_t sub = GROVE_SYM_NONE;
    bool any = lua_isnoneornil(L, 2);
    if (!any)
        sub = grove_graph_sym_lookup(g, luaL_checkstring(L, 2));
    lua_newtable(L);
    lua_getiuservalue(L, 1, 1);
    lua_Integer i = 0;
    for (grove_eid_t e = out ? grove_vertex_first_out(g, h.v) : grove_vertex_first_in(g, h.v);
         e != GROVE_EID_NONE; e = out ? grove_edge_next_out(g, e) : grove_edge_next_in(g, e)) {
        if (!any && grove_edge_subsystem(g, e) != sub)
            continue;
        grovel_push_edge(L, -1, e);
        lua_rawseti(L, -3, ++i);
    }
    lua_pop(L, 1);
    return 1;
}

/* ---- allocation -------------------------------------------------------------- */

static int v_allocate(lua_State *L)
{
    struct ref h = check(L);
    return grovel_allocate(L, h.g, h.v, 2);
}

static int v_free(lua_State *L)
{
    struct ref h = check(L);
    return grovel_free(L, h.g, h.v, 2);
}

static int v_allocated(lua_State *L)
{
    struct ref h = check(L);
    lua_Integer t = luaL_optinteger(L, 2, grove_graph_now(h.g));
    lua_pushinteger(L, (lua_Integer)grove_vertex_allocated_at(h.g, h.v, t));
    return 1;
}

/* available([start [, duration]]): free units throughout the window
 * (default: now, one second). */
static int v_available(lua_State *L)
{
    struct ref h = check(L);
    lua_Integer start = luaL_optinteger(L, 2, grove_graph_now(h.g));
    lua_Integer dur = luaL_optinteger(L, 3, 1);
    luaL_argcheck(L, start >= 0, 2, "start must be >= 0");
    luaL_argcheck(L, dur > 0, 3, "duration must be > 0");
    int64_t end = dur > GROVE_TIME_MAX - start ? GROVE_TIME_MAX : start + dur;
    lua_pushinteger(L, (lua_Integer)grove_vertex_available_during(h.g, h.v, start, end));
    return 1;
}

/* aggregate_avail(type [, start [, duration]]): free units of type in the
 * subtree from v's pruning aggregate, or nil, msg, "ENOENT" when v keeps
 * none for that type. */
static int v_aggregate_avail(lua_State *L)
{
    struct ref h = check(L);
    const char *type = luaL_checkstring(L, 2);
    lua_Integer start = luaL_optinteger(L, 3, grove_graph_now(h.g));
    lua_Integer dur = luaL_optinteger(L, 4, 1);
    luaL_argcheck(L, start >= 0, 3, "start must be >= 0");
    luaL_argcheck(L, dur > 0, 4, "duration must be > 0");
    int64_t end = dur > GROVE_TIME_MAX - start ? GROVE_TIME_MAX : start + dur;
    int64_t n = grove_vertex_aggregate_avail(h.g, h.v, type, start, end);
    if (n < 0) {
        int e = errno;
        const char *label = grovel_push_label(L, h.g, h.v);
        return grovel_fail_errno(L, e, e == ENOENT
                                           ? lua_pushfstring(L, "%s keeps no aggregate of %s",
                                                             label, type)
                                           : NULL);
    }
    lua_pushinteger(L, (lua_Integer)n);
    return 1;
}

static int v_records(lua_State *L)
{
    struct ref h = check(L);
    if (h.c->read)
        h.c->read(L, h.v, GROVEL_VREAD_TIMES, "records()");
    grove_record_t r;
    lua_createtable(L, (int)grove_vertex_record_count(h.g, h.v), 0);
    for (size_t i = 0; grove_vertex_record_at(h.g, h.v, i, &r) == 0; i++) {
        lua_createtable(L, 0, 6);
        grovel_set_integer(L, "job", (lua_Integer)r.job);
        grovel_set_string(L, "kind", r.kind == GROVE_RECORD_ALLOC ? "alloc" : "shared");
        grovel_set_integer(L, "amount", (lua_Integer)r.amount);
        grovel_set_integer(L, "start", (lua_Integer)r.start);
        if (r.end != GROVE_TIME_MAX) {
            grovel_set_integer(L, "end", (lua_Integer)r.end);
        }
        grovel_set_boolean(L, "exclusive", r.exclusive);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* staged() -> bool; set_staged(bool) -> true (RFC 4's staged lock) */
static int v_staged(lua_State *L)
{
    struct ref h = check(L);
    lua_pushboolean(L, grove_vertex_staged(h.g, h.v));
    return 1;
}

static int v_set_staged(lua_State *L)
{
    struct ref h = check(L);
    luaL_checktype(L, 2, LUA_TBOOLEAN);
    grove_vertex_set_staged(h.g, h.v, lua_toboolean(L, 2));
    return grovel_ok(L);
}

/* held_exclusively([t]) -> true, job | false */
static int v_held_exclusively(lua_State *L)
{
    struct ref h = check(L);
    if (h.c->read)
        h.c->read(L, h.v, lua_isnoneornil(L, 2) ? GROVEL_VREAD_CLOCK : GROVEL_VREAD_TIMES,
                  "held_exclusively()");
    lua_Integer t = luaL_optinteger(L, 2, grove_graph_now(h.g));
    luaL_argcheck(L, grove_time_ok(t), 2, "time must be >= 0 and < math.maxinteger");
    grove_jobid_t job = 0;
    bool held = grove_vertex_held_exclusively(h.g, h.v, t, &job);
    lua_pushboolean(L, held);
    if (!held)
        return 1;
    lua_pushinteger(L, (lua_Integer)job);
    return 2;
}

/* aggregate([type]): {type = free units} below v now; with a type, that
 * type's units (0 when none), as a policy's view answers.  A type no
 * request on the graph may name (grovel_type_known) raises. */
static int v_aggregate(lua_State *L)
{
    struct ref h = check(L);
    if (lua_isnoneornil(L, 2))
        return grovel_aggregate(L, h.g, h.v);
    size_t len;
    const char *type = luaL_checklstring(L, 2, &len);
    if (strlen(type) != len)
        return luaL_argerror(L, 2, "a type name holds no NUL byte");
    if (!grovel_type_known(h.g, type))
        return luaL_argerror(L, 2, grovel_push_unknown_type(L, L, h.g, type));
    lua_settop(L, 2);
    if (grovel_aggregate(L, h.g, h.v) != 1 || !lua_istable(L, -1))
        return 3; /* nil, message, code */
    if (lua_getfield(L, -1, type) != LUA_TNUMBER) {
        lua_pop(L, 1);
        lua_pushinteger(L, 0);
    }
    return 1;
}

static int v_copy(lua_State *L)
{
    struct ref h = check(L);
    return grovel_copy(L, h.g, h.v);
}

/* ---- the classes ------------------------------------------------------------- */

static grove_graph_t *vertex_check(lua_State *L, int idx, grove_vid_t *v)
{
    struct grovel_vertex *h = grovel_check_vertex_ud(L, idx);
    *v = h->v;
    return h->gr->g;
}

static void vertex_push_kin(lua_State *L, int idx, int uv, grove_vid_t v)
{
    (void)idx;
    grovel_push_vertex(L, uv, v);
}

static void v_describe(lua_State *L, void *ud)
{
    const struct grovel_vertex *h = ud;
    grove_graph_t *g = h->gr->g;
    if (!g)
        lua_pushliteral(L, "grove.vertex (closed)");
    else if (!grove_graph_has_vertex(g, h->v))
        lua_pushliteral(L, "grove.vertex (removed)");
    else
        grovel_push_label(L, g, h->v);
}

static bool v_equal(const void *a, const void *b)
{
    const struct grovel_vertex *x = a, *y = b;
    return x->gr == y->gr && x->v == y->v;
}

static const struct grovel_vclass vertex_class = {
    {.tname = GROVEL_VERTEX, .describe = v_describe, .equal = v_equal},
    vertex_check,
    vertex_push_kin,
    false,
    NULL,
};

#include "api_vertex.h"

/* The read methods every vertex class has are the rows of
 * grove.vertex,grove.policy.vertex in api.tsv. */
void grovel_vclass_open(lua_State *L, const struct grovel_vclass *c, const grovel_reg_t *more)
{
    grovel_class_open(L, &c->c, api_grove_vertex__grove_policy_vertex);
    grovel_class_open(L, &c->c, more);
}
