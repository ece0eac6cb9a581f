/* l_readers.c: graphs from recipes and hwloc topologies, for Lua.
 *
 *   core.grug_load(path [, opts])          a grove.graph and the number of
 *   core.grug_read(text [, opts])          associations left out (see
 *                                          grug.h), or nil, message, code
 *       opts: types = {"node", "core", ...} (types to keep),
 *             ranks = "nodes" | "subtree" | "none",
 *             strict = true (fail on associations the graph cannot hold),
 *             max_vertices = n,
 *             source = "name" (grug_read: for messages; default "recipe")
 *   core.hwloc_load{ xml = path | xml_text = "<topology>..." |
 *                    synthetic = "pack:2 core:4" | live = true,
 *                    hostnames = "node[0-3]", first_rank = 0,
 *                    types = {"node", "socket", "core", "gpu"},
 *                    cluster = "cluster0" }
 *       a grove.graph (a cluster of one node per host), or nil, message,
 *       code.  Without hostnames: one node, named by the topology's host
 *       name or "node<first_rank>".  first_rank = -1: no ranks.
 *
 * Misuse (a wrong argument type, an unknown option, two topology sources)
 * raises; a file that cannot be read, a malformed recipe or topology, a
 * bad hostlist return nil, message, code.
 */
#include <errno.h>
#include <string.h>

#include "grovel.h"
#include "grug.h"
#include "lgraph.h"
#include "topo.h"

/* Raise unless every key of the table at idx is one of names, with the
 * closest name offered. */
static void check_keys(lua_State *L, int idx, const char *const *names)
{
    grovel_check_keys(L, idx, names, idx, "unknown option '%s'");
}

/* opts.types as a NULL-terminated array in a userdata pushed on the stack
 * (its strings stay anchored in the options table), or NULL (nothing
 * pushed) when absent. */
static const char *const *check_types(lua_State *L, int idx)
{
    if (lua_getfield(L, idx, "types") == LUA_TNIL) {
        lua_pop(L, 1);
        return NULL;
    }
    if (!lua_istable(L, -1))
        luaL_argerror(L, idx, "types must be a list of strings");
    size_t n = lua_rawlen(L, -1);
    const char **v = lua_newuserdatauv(L, (n + 1) * sizeof(*v), 0);
    for (size_t i = 1; i <= n; i++) {
        if (lua_rawgeti(L, -2, (lua_Integer)i) != LUA_TSTRING)
            luaL_argerror(L, idx, "types must be strings");
        v[i - 1] = lua_tostring(L, -1);
        lua_pop(L, 1);
    }
    v[n] = NULL;
    lua_remove(L, -2); /* the types table stays reachable from opts */
    return v;
}

static lua_Integer opt_integer(lua_State *L, int idx, const char *name, lua_Integer def)
{
    lua_Integer v = def;
    if (lua_getfield(L, idx, name) != LUA_TNIL) {
        int isnum;
        v = lua_tointegerx(L, -1, &isnum);
        if (!isnum)
            luaL_argerror(L, idx, lua_pushfstring(L, "%s must be an integer", name));
    }
    lua_pop(L, 1);
    return v;
}

static const char *opt_string(lua_State *L, int idx, const char *name)
{
    const char *s = NULL;
    if (lua_getfield(L, idx, name) != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_argerror(L, idx, lua_pushfstring(L, "%s must be a string", name));
        s = lua_tostring(L, -1); /* anchored in the options table */
    }
    lua_pop(L, 1);
    return s;
}

/* ---- recipes ------------------------------------------------------------ */

static const char *const grug_keys[] = {"types", "ranks", "strict", "max_vertices", "source",
                                        NULL};

/* Fill o from the options at idx (may be none); may push a types array. */
static void grug_opts(lua_State *L, int idx, grove_grug_opts_t *o, const char **source)
{
    memset(o, 0, sizeof(*o));
    if (lua_isnoneornil(L, idx))
        return;
    luaL_checktype(L, idx, LUA_TTABLE);
    check_keys(L, idx, grug_keys);
    const char *r = opt_string(L, idx, "ranks");
    if (r) {
        /* Indexed by GROVE_GRUG_RANK_*. */
        static const char *const modes[] = {"nodes", "subtree", "none", NULL};
        o->ranks = grovel_name_index(r, modes);
        if (o->ranks < 0)
            luaL_argerror(L, idx, "ranks must be \"nodes\", \"subtree\" or \"none\"");
    }
    if (lua_getfield(L, idx, "strict") != LUA_TNIL && lua_toboolean(L, -1))
        o->flags |= GROVE_GRUG_STRICT;
    lua_pop(L, 1);
    lua_Integer mv = opt_integer(L, idx, "max_vertices", 0);
    if (mv < 0)
        luaL_argerror(L, idx, "max_vertices must not be negative");
    o->max_vertices = (size_t)mv;
    if (source)
        *source = opt_string(L, idx, "source");
    o->types = check_types(L, idx);
}

/* Push the graph built by build (or nil, message, code). */
static int push_result(lua_State *L, struct grovel_graph *gr, grove_graph_t *g,
                       const grove_error_t *err)
{
    if (!g)
        return grovel_fail_err(L, errno, err);
    gr->g = g;
    return 1;
}

static int l_grug_load(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    grove_grug_opts_t o;
    grug_opts(L, 2, &o, NULL);
    size_t dropped = 0;
    o.dropped = &dropped;
    struct grovel_graph *gr = grovel_new_graph_ud(L);
    grove_error_t err = {{0}, 0};
    lua_State *prev = grovel_progress_enter(L);
    grove_graph_t *g = grove_grug_load(path, &o, &err);
    grovel_progress_leave(prev);
    if (push_result(L, gr, g, &err) != 1)
        return 3;
    lua_pushinteger(L, (lua_Integer)dropped);
    return 2;
}

static int l_grug_read(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    grove_grug_opts_t o;
    const char *source = NULL;
    grug_opts(L, 2, &o, &source);
    if (!source)
        source = "recipe";
    size_t dropped = 0;
    o.dropped = &dropped;
    struct grovel_graph *gr = grovel_new_graph_ud(L);
    grove_error_t err = {{0}, 0};
    lua_State *prev = grovel_progress_enter(L);
    grove_graph_t *g = grove_grug_read(text, len, source, &o, &err);
    grovel_progress_leave(prev);
    if (push_result(L, gr, g, &err) != 1)
        return 3;
    lua_pushinteger(L, (lua_Integer)dropped);
    return 2;
}

/* ---- hwloc ---------------------------------------------------------------- */

static const char *const hwloc_keys[] = {"xml",       "xml_text",   "synthetic", "live",
                                         "hostnames", "first_rank", "types",     "cluster",
                                         NULL};

struct topo_box {
    grove_topo_t *t;
};

static int topo_box_gc(lua_State *L)
{
    struct topo_box *b = lua_touserdata(L, 1);
    grove_topo_destroy(b->t);
    b->t = NULL;
    return 0;
}

static int l_hwloc_load(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    check_keys(L, 1, hwloc_keys);
    const char *xml = opt_string(L, 1, "xml");
    const char *synthetic = opt_string(L, 1, "synthetic");
    size_t xlen = 0;
    const char *xml_text = NULL;
    if (lua_getfield(L, 1, "xml_text") != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_argerror(L, 1, "xml_text must be a string");
        xml_text = lua_tolstring(L, -1, &xlen);
    }
    lua_pop(L, 1);
    bool live = lua_getfield(L, 1, "live") != LUA_TNIL && lua_toboolean(L, -1);
    lua_pop(L, 1);
    int sources = (xml != NULL) + (xml_text != NULL) + (synthetic != NULL) + live;
    if (sources != 1)
        luaL_argerror(L, 1, "give exactly one of xml, xml_text, synthetic or live = true");
    const char *hosts = opt_string(L, 1, "hostnames");
    const char *cluster = opt_string(L, 1, "cluster");
    lua_Integer first_rank = opt_integer(L, 1, "first_rank", 0);
    if (first_rank < -1)
        luaL_argerror(L, 1, "first_rank must be -1 (no ranks) or more");
    const char *const *types = check_types(L, 1);

    /* the topology lives in a box until the graph is built */
    struct topo_box *box = lua_newuserdatauv(L, sizeof(*box), 0);
    box->t = NULL;
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, topo_box_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    struct grovel_graph *gr = grovel_new_graph_ud(L);

    grove_error_t err = {{0}, 0};
    if (xml)
        box->t = grove_topo_load_xml(xml, &err);
    else if (xml_text)
        box->t = grove_topo_read_xml(xml_text, xlen, "xml_text", &err);
    else if (synthetic)
        box->t = grove_topo_load_synthetic(synthetic, &err);
    else
        box->t = grove_topo_load_live(&err);
    if (!box->t)
        return grovel_fail_errno(L, errno, err.text);
    lua_State *prev = grovel_progress_enter(L);
    grove_graph_t *g = grove_topo_cluster(cluster, box->t, hosts, first_rank, types, &err);
    int saved = errno;
    grovel_progress_leave(prev);
    grove_topo_destroy(box->t);
    box->t = NULL;
    errno = saved;
    return push_result(L, gr, g, &err);
}

#include "api_readers.h"
