/* l_vertex.c: the methods of a vertex handle (a resource pool of a graph):
 * base data, status, properties, tags, structure per subsystem, and the
 * pool's allocation records.
 *
 * Workload: called from policies and scripts, often in loops over many
 * vertices, so every method is a few core calls with no allocation beyond
 * the values it returns.  The handle class itself (creation, checking,
 * equality) lives in l_graph.c; this file only adds methods to it.
 */
#include <errno.h>
#include <string.h>

#include "lgraph.h"

static struct grovel_vertex *checkv(lua_State *L)
{
    return grovel_check_vertex_ud(L, 1);
}

#define G(h) ((h)->gr->g)

static void push_opt_id(lua_State *L, int64_t x)
{
    if (x == GROVE_ID_NONE)
        lua_pushnil(L);
    else
        lua_pushinteger(L, (lua_Integer)x);
}

/* ---- base data --------------------------------------------------------------- */

static int v_type(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    lua_pushstring(L, grove_vertex_type(G(h), h->v));
    return 1;
}

static int v_basename(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    lua_pushstring(L, grove_vertex_basename(G(h), h->v));
    return 1;
}

static int v_name(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    lua_pushstring(L, grove_vertex_name(G(h), h->v));
    return 1;
}

static int v_unit(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    lua_pushstring(L, grove_vertex_unit(G(h), h->v));
    return 1;
}

static int v_id(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    push_opt_id(L, grove_vertex_id(G(h), h->v));
    return 1;
}

static int v_vid(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)checkv(L)->v);
    return 1;
}

static int v_rank(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    push_opt_id(L, grove_vertex_rank(G(h), h->v));
    return 1;
}

static int v_size(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    lua_pushinteger(L, (lua_Integer)grove_vertex_size(G(h), h->v));
    return 1;
}

static int v_uuid(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    char buf[37];
    grove_vertex_uuid(G(h), h->v, buf);
    lua_pushstring(L, buf);
    return 1;
}

static int v_graph(lua_State *L)
{
    checkv(L);
    grovel_vertex_graph(L, 1);
    return 1;
}

static int v_set_size(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_argcheck(L, n >= 0, 2, "size must be >= 0");
    if (grove_vertex_set_size(G(h), h->v, n) < 0) {
        int e = errno;
        const char *label = grovel_push_label(L, G(h), h->v);
        if (e == EBUSY)
            return grovel_fail_errno(
                L, e, lua_pushfstring(L, "%s: more than %I units are allocated at some time",
                                      label, n));
        return grovel_fail_errno(L, e, NULL);
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int v_set_rank(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    lua_Integer r = lua_isnil(L, 2) ? GROVE_ID_NONE : luaL_checkinteger(L, 2);
    luaL_argcheck(L, r >= -1, 2, "rank must be >= 0 (or -1/nil for none)");
    if (grove_vertex_set_rank(G(h), h->v, r) < 0)
        return grovel_fail_errno(L, errno, NULL);
    lua_pushboolean(L, 1);
    return 1;
}

static int v_set_name(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    const char *name = luaL_checkstring(L, 2);
    luaL_argcheck(L, name[0] && !strchr(name, '/'), 2,
                  "name must be non-empty and contain no '/'");
    if (grove_vertex_set_name(G(h), h->v, name) < 0)
        return grovel_fail_errno(L, errno, NULL);
    lua_pushboolean(L, 1);
    return 1;
}

/* ---- status ------------------------------------------------------------------ */

static int v_status(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    lua_pushstring(L, grove_status_name(grove_vertex_status(G(h), h->v)));
    return 1;
}

static int v_set_status(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    const char *s = luaL_checkstring(L, 2);
    int st = grove_status_parse(s);
    if (st < 0)
        return luaL_argerror(L, 2, lua_pushfstring(L, "unknown status '%s' (up, down, "
                                                      "drained, excluded, degraded, failing "
                                                      "or unknown)", s));
    grove_vertex_set_status(G(h), h->v, (grove_status_t)st);
    lua_pushboolean(L, 1);
    return 1;
}

/* ---- properties and tags ------------------------------------------------------ */

static const char *check_key(lua_State *L, int idx)
{
    const char *k = luaL_checkstring(L, idx);
    luaL_argcheck(L, k[0], idx, "key must not be empty");
    return k;
}

static int v_property(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    const char *val = grove_vertex_property(G(h), h->v, check_key(L, 2));
    if (!val)
        return 0;
    lua_pushstring(L, val);
    return 1;
}

static int v_set_property(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    const char *k = check_key(L, 2);
    luaL_argcheck(L, lua_type(L, 3) == LUA_TSTRING || lua_type(L, 3) == LUA_TNUMBER, 3,
                  "value must be a string or a number");
    const char *val = lua_tostring(L, 3);
    if (grove_vertex_set_property(G(h), h->v, k, val) < 0)
        return grovel_fail_errno(L, errno, NULL);
    lua_pushboolean(L, 1);
    return 1;
}

static int v_remove_property(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    const char *k = check_key(L, 2);
    if (grove_vertex_remove_property(G(h), h->v, k) < 0)
        return grovel_fail_errno(L, errno, lua_pushfstring(L, "no property '%s'", k));
    lua_pushboolean(L, 1);
    return 1;
}

static int v_properties(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    const char *k, *val;
    lua_createtable(L, 0, (int)grove_vertex_property_count(G(h), h->v));
    for (size_t i = 0; grove_vertex_property_at(G(h), h->v, i, &k, &val) == 0; i++) {
        lua_pushstring(L, val);
        lua_setfield(L, -2, k);
    }
    return 1;
}

/* tag(k) sets a tag without a value; tag(k, v) with one. */
static int v_tag(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    const char *k = check_key(L, 2);
    const char *val = NULL;
    if (!lua_isnoneornil(L, 3)) {
        luaL_argcheck(L, lua_type(L, 3) == LUA_TSTRING || lua_type(L, 3) == LUA_TNUMBER, 3,
                      "value must be a string or a number");
        val = lua_tostring(L, 3);
    }
    if (grove_vertex_tag(G(h), h->v, k, val) < 0)
        return grovel_fail_errno(L, errno, NULL);
    lua_pushboolean(L, 1);
    return 1;
}

static int v_untag(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    const char *k = check_key(L, 2);
    if (grove_vertex_untag(G(h), h->v, k) < 0)
        return grovel_fail_errno(L, errno, lua_pushfstring(L, "no tag '%s'", k));
    lua_pushboolean(L, 1);
    return 1;
}

/* has_tag(k) -> true, value (nil when the tag has none) | false */
static int v_has_tag(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    const char *val = NULL;
    bool has = grove_vertex_has_tag(G(h), h->v, check_key(L, 2), &val);
    lua_pushboolean(L, has);
    if (!has || !val)
        return 1;
    lua_pushstring(L, val);
    return 2;
}

/* tags() -> {key = value or true} */
static int v_tags(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    const char *k, *val;
    lua_createtable(L, 0, (int)grove_vertex_tag_count(G(h), h->v));
    for (size_t i = 0; grove_vertex_tag_at(G(h), h->v, i, &k, &val) == 0; i++) {
        if (val)
            lua_pushstring(L, val);
        else
            lua_pushboolean(L, 1);
        lua_setfield(L, -2, k);
    }
    return 1;
}

/* ---- structure ------------------------------------------------------------------ */

static int v_path(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    const char *subname;
    grove_sym_t sub = grovel_opt_subsystem(L, 2, G(h), &subname);
    int n = sub == GROVE_SYM_NONE ? -1 : grove_vertex_path(G(h), h->v, sub, NULL, 0);
    if (n < 0)
        return grovel_fail_errno(L, ENOENT,
                                 lua_pushfstring(L, "%s is not in subsystem %s",
                                                 grove_vertex_name(G(h), h->v), subname));
    luaL_Buffer b;
    char *p = luaL_buffinitsize(L, &b, (size_t)n + 1);
    grove_vertex_path(G(h), h->v, sub, p, (size_t)n + 1);
    luaL_pushresultsize(&b, (size_t)n);
    return 1;
}

static int v_parent(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    grove_sym_t sub = grovel_opt_subsystem(L, 2, G(h), NULL);
    grove_vid_t p = sub == GROVE_SYM_NONE ? GROVE_VID_NONE : grove_vertex_parent(G(h), h->v, sub);
    if (p == GROVE_VID_NONE)
        return 0;
    grovel_push_sibling(L, 1, p);
    return 1;
}

static int v_depth(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    grove_sym_t sub = grovel_opt_subsystem(L, 2, G(h), NULL);
    lua_pushinteger(L, sub == GROVE_SYM_NONE ? 0 : grove_vertex_depth(G(h), h->v, sub));
    return 1;
}

/* Push the children of the handle at 1 in subsystem at 2 as an array. */
static void push_children(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    grove_sym_t sub = grovel_opt_subsystem(L, 2, G(h), NULL);
    lua_newtable(L);
    if (sub == GROVE_SYM_NONE)
        return;
    lua_getiuservalue(L, 1, 1);
    grove_eid_t cur;
    lua_Integer i = 0;
    for (grove_vid_t c = grove_vertex_first_child(G(h), h->v, sub, &cur); c != GROVE_VID_NONE;
         c = grove_vertex_next_child(G(h), sub, &cur)) {
        grovel_push_vertex(L, -1, c);
        lua_rawseti(L, -3, ++i);
    }
    lua_pop(L, 1);
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

/* Out- or in-edges of the vertex, optionally of one subsystem. */
static int push_edges(lua_State *L, bool out)
{
    struct grovel_vertex *h = checkv(L);
    grove_graph_t *g = G(h);
    grove_sym_t sub = GROVE_SYM_NONE;
    bool any = lua_isnoneornil(L, 2);
    if (!any)
        sub = grove_graph_sym_lookup(g, luaL_checkstring(L, 2));
    lua_newtable(L);
    lua_getiuservalue(L, 1, 1);
    lua_Integer i = 0;
    for (grove_eid_t e = out ? grove_vertex_first_out(g, h->v) : grove_vertex_first_in(g, h->v);
         e != GROVE_EID_NONE; e = out ? grove_edge_next_out(g, e) : grove_edge_next_in(g, e)) {
        if (!any && grove_edge_subsystem(g, e) != sub)
            continue;
        grovel_push_edge(L, -1, e);
        lua_rawseti(L, -3, ++i);
    }
    lua_pop(L, 1);
    return 1;
}

static int v_out_edges(lua_State *L)
{
    return push_edges(L, true);
}

static int v_in_edges(lua_State *L)
{
    return push_edges(L, false);
}

/* ---- allocation -------------------------------------------------------------- */

static int v_allocate(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    return grovel_allocate(L, G(h), h->v, 2);
}

static int v_free(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    return grovel_free(L, G(h), h->v, 2);
}

static int v_allocated(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    lua_Integer t = luaL_optinteger(L, 2, grove_graph_now(G(h)));
    lua_pushinteger(L, (lua_Integer)grove_vertex_allocated_at(G(h), h->v, t));
    return 1;
}

/* available([start [, duration]]): free units throughout the window
 * (default: now, one second). */
static int v_available(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    lua_Integer start = luaL_optinteger(L, 2, grove_graph_now(G(h)));
    lua_Integer dur = luaL_optinteger(L, 3, 1);
    luaL_argcheck(L, start >= 0, 2, "start must be >= 0");
    luaL_argcheck(L, dur > 0, 3, "duration must be > 0");
    int64_t end = dur > GROVE_TIME_MAX - start ? GROVE_TIME_MAX : start + dur;
    lua_pushinteger(L, (lua_Integer)grove_vertex_available_during(G(h), h->v, start, end));
    return 1;
}

/* aggregate_avail(type [, start [, duration]]): free units of type in the
 * subtree from v's pruning aggregate, or nil, msg, "ENOENT" when v keeps
 * none for that type. */
static int v_aggregate_avail(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    const char *type = luaL_checkstring(L, 2);
    lua_Integer start = luaL_optinteger(L, 3, grove_graph_now(G(h)));
    lua_Integer dur = luaL_optinteger(L, 4, 1);
    luaL_argcheck(L, start >= 0, 3, "start must be >= 0");
    luaL_argcheck(L, dur > 0, 4, "duration must be > 0");
    int64_t end = dur > GROVE_TIME_MAX - start ? GROVE_TIME_MAX : start + dur;
    int64_t n = grove_vertex_aggregate_avail(G(h), h->v, type, start, end);
    if (n < 0) {
        int e = errno;
        const char *label = grovel_push_label(L, G(h), h->v);
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
    struct grovel_vertex *h = checkv(L);
    grove_record_t r;
    lua_createtable(L, (int)grove_vertex_record_count(G(h), h->v), 0);
    for (size_t i = 0; grove_vertex_record_at(G(h), h->v, i, &r) == 0; i++) {
        lua_createtable(L, 0, 6);
        lua_pushinteger(L, (lua_Integer)r.job);
        lua_setfield(L, -2, "job");
        lua_pushstring(L, r.kind == GROVE_RECORD_ALLOC ? "alloc" : "shared");
        lua_setfield(L, -2, "kind");
        lua_pushinteger(L, (lua_Integer)r.amount);
        lua_setfield(L, -2, "amount");
        lua_pushinteger(L, (lua_Integer)r.start);
        lua_setfield(L, -2, "start");
        if (r.end != GROVE_TIME_MAX) {
            lua_pushinteger(L, (lua_Integer)r.end);
            lua_setfield(L, -2, "end");
        }
        lua_pushboolean(L, r.exclusive);
        lua_setfield(L, -2, "exclusive");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* held_exclusively([t]) -> true, job | false */
static int v_held_exclusively(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    lua_Integer t = luaL_optinteger(L, 2, grove_graph_now(G(h)));
    grove_jobid_t job = 0;
    bool held = grove_vertex_held_exclusively(G(h), h->v, t, &job);
    lua_pushboolean(L, held);
    if (!held)
        return 1;
    lua_pushinteger(L, (lua_Integer)job);
    return 2;
}

static int v_aggregate(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    return grovel_aggregate(L, G(h), h->v);
}

static int v_copy(lua_State *L)
{
    struct grovel_vertex *h = checkv(L);
    return grovel_copy(L, G(h), h->v);
}

/* ---- metamethods ---------------------------------------------------------------- */

static int v_tostring(lua_State *L)
{
    struct grovel_vertex *h = luaL_checkudata(L, 1, GROVEL_VERTEX);
    if (!G(h))
        lua_pushliteral(L, "grove.vertex (closed)");
    else if (!grove_graph_has_vertex(G(h), h->v))
        lua_pushliteral(L, "grove.vertex (removed)");
    else
        grovel_push_label(L, G(h), h->v);
    return 1;
}

static int v_eq(lua_State *L)
{
    struct grovel_vertex *a = luaL_testudata(L, 1, GROVEL_VERTEX);
    struct grovel_vertex *b = luaL_testudata(L, 2, GROVEL_VERTEX);
    lua_pushboolean(L, a && b && a->gr == b->gr && a->v == b->v);
    return 1;
}

static const luaL_Reg vertex_methods[] = {
    {"type", v_type},
    {"basename", v_basename},
    {"name", v_name},
    {"unit", v_unit},
    {"id", v_id},
    {"vid", v_vid},
    {"rank", v_rank},
    {"size", v_size},
    {"uuid", v_uuid},
    {"graph", v_graph},
    {"set_size", v_set_size},
    {"set_rank", v_set_rank},
    {"set_name", v_set_name},
    {"status", v_status},
    {"set_status", v_set_status},
    {"property", v_property},
    {"set_property", v_set_property},
    {"remove_property", v_remove_property},
    {"properties", v_properties},
    {"tag", v_tag},
    {"untag", v_untag},
    {"has_tag", v_has_tag},
    {"tags", v_tags},
    {"path", v_path},
    {"parent", v_parent},
    {"depth", v_depth},
    {"children", v_children},
    {"children_list", v_children_list},
    {"out_edges", v_out_edges},
    {"in_edges", v_in_edges},
    {"allocate", v_allocate},
    {"free", v_free},
    {"allocated", v_allocated},
    {"available", v_available},
    {"aggregate_avail", v_aggregate_avail},
    {"records", v_records},
    {"held_exclusively", v_held_exclusively},
    {"aggregate", v_aggregate},
    {"copy", v_copy},
    {NULL, NULL},
};

static const luaL_Reg vertex_meta[] = {
    {"__tostring", v_tostring},
    {"__eq", v_eq},
    {NULL, NULL},
};

int grovel_open_vertex(lua_State *L)
{
    grovel_class(L, GROVEL_VERTEX, vertex_methods, vertex_meta);
    return 0;
}
