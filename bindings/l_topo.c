/* l_topo.c: the nodes' hwloc topologies a graph of R is built with, in
 * Lua (core/rv1_topo.h).
 *
 *   core.topologies()      a new map: no rank has a topology
 *   t:add(ranks, {xml = path} | {xml_text = text [, source = name]}
 *                          | {synthetic = desc})
 *                          ranks (an idset or its text) get that topology
 *                          (a rank a class holds keeps it): true, or nil,
 *                          message, code (a bad topology: EINVAL, ENOENT)
 *   t:classes()            {{ranks =, source =, cores =, gpus =, sockets =,
 *                          numanodes =}, ...} (ids as idset text)
 *   t:report()             what the last build did: {placed = ranks,
 *                          notes = {{ranks =, why =}, ...}, more = n}
 *   t:close(), <close>, tostring(t)
 *
 * An acquisition state builds with it (a:set_topology(t), l_acquire.c).
 * Misuse raises; a topology that does not load returns nil, message,
 * code, and the map is as it was.
 *
 * This file holds the map's class; hwloc and R are the core's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lacquire.h"
#include "lgraph.h"
#include "rv1_topo.h"
#include "topo.h"

static void describe(lua_State *L, void *p)
{
    lua_pushfstring(L, "grove.topologies (%I classes)", (lua_Integer)grove_rtopo_count(p));
}

static const grovel_class_t topologies_class; /* defined by api.tsv */

grove_rtopo_t *grovel_check_topologies(lua_State *L, int idx)
{
    return grovel_handle_check(L, idx, &topologies_class);
}

static int l_topologies_new(lua_State *L)
{
    grovel_handle_t *h = grovel_handle_new(L, &topologies_class);
    if (!(h->p = grove_rtopo_create()))
        return grovel_fail_errno(L, errno, NULL);
    return 1;
}

static const char *field(lua_State *L, int t, const char *k, size_t *len)
{
    const char *s = NULL;
    if (lua_getfield(L, t, k) != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_argerror(L, t, lua_pushfstring(L, "%s must be a string", k));
        s = lua_tolstring(L, -1, len);
    }
    lua_pop(L, 1); /* the string stays anchored in the table */
    return s;
}

static int l_add(lua_State *L)
{
    grove_rtopo_t *rt = grovel_check_topologies(L, 1);
    const char *text = lua_type(L, 2) == LUA_TUSERDATA ? luaL_tolstring(L, 2, NULL)
                                                       : luaL_checkstring(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    static const char *const keys[] = {"xml", "xml_text", "source", "synthetic", NULL};
    lua_pushnil(L);
    while (lua_next(L, 3)) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
        if (grovel_name_index(k, keys) < 0)
            return luaL_argerror(L, 3, grovel_push_unknown(L, "key", grovel_key_name(L, -2), keys));
        lua_pop(L, 1);
    }
    size_t xlen = 0;
    const char *xml = field(L, 3, "xml", NULL), *xt = field(L, 3, "xml_text", &xlen);
    const char *src = field(L, 3, "source", NULL), *syn = field(L, 3, "synthetic", NULL);
    luaL_argcheck(L, (xml != NULL) + (xt != NULL) + (syn != NULL) == 1, 3,
                  "give exactly one of xml, xml_text or synthetic");
    grove_error_t err = {{0}, 0};
    grove_idset_t *ranks = grove_idset_decode(text, &err);
    if (!ranks)
        return grovel_fail_err(L, errno, &err);
    grove_topo_t *t = xml  ? grove_topo_load_xml(xml, &err)
                      : xt ? grove_topo_read_xml(xt, xlen, src, &err)
                           : grove_topo_load_synthetic(syn, &err);
    if (!t) {
        int e = errno;
        grove_idset_destroy(ranks);
        return grovel_fail_err(L, e, &err);
    }
    int rc = grove_rtopo_add_take(rt, ranks, t);
    int e = errno;
    grove_idset_destroy(ranks);
    if (rc < 0)
        return grovel_fail_errno(L, e, NULL);
    return grovel_ok(L);
}

/* t[k] = the text of ids (taken); raises nothing. */
static void set_ids(lua_State *L, const char *k, grove_idset_t *ids)
{
    char *s = ids ? grove_idset_encode(ids, GROVE_IDSET_FLAG_RANGE) : NULL;
    grovel_set_string(L, k, s ? s : "");
    free(s);
    grove_idset_destroy(ids);
}

static int l_classes(lua_State *L)
{
    grove_rtopo_t *rt = grovel_check_topologies(L, 1);
    size_t n = grove_rtopo_count(rt);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        const grove_idset_t *ranks;
        const grove_topo_t *t;
        grove_rtopo_class(rt, i, &ranks, &t);
        lua_createtable(L, 0, 6);
        set_ids(L, "ranks", grove_idset_copy(ranks));
        grovel_set_string(L, "source", grove_topo_source(t));
        set_ids(L, "cores", grove_topo_ids(t, "core"));
        set_ids(L, "gpus", grove_topo_ids(t, "gpu"));
        grovel_set_integer(L, "sockets", (lua_Integer)grove_topo_count(t, "socket"));
        grovel_set_integer(L, "numanodes", (lua_Integer)grove_topo_count(t, "numanode"));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int l_report(lua_State *L)
{
    grove_rtopo_t *rt = grovel_check_topologies(L, 1);
    size_t more, n = grove_rtopo_notes(rt, &more);
    lua_createtable(L, 0, 3);
    set_ids(L, "placed", grove_idset_copy(grove_rtopo_placed(rt)));
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        const grove_idset_t *ranks;
        const char *why;
        grove_rtopo_note(rt, i, &ranks, &why);
        lua_createtable(L, 0, 2);
        set_ids(L, "ranks", grove_idset_copy(ranks));
        grovel_set_string(L, "why", why);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "notes");
    grovel_set_integer(L, "more", (lua_Integer)more);
    return 1;
}

#include "api_topo.h"
