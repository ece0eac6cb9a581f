/* l_view.c: the vertex views policy hooks see (grove.policy.vertex).
 *
 * A view is a read-only handle on one vertex of the graph a matcher is
 * matching.  It answers only while that matcher runs a match under a
 * policy (lpolicy.h: struct grovel_view holds the graph only then), so
 * nothing a policy keeps can outlive or change the graph.  Views are made
 * on first use and kept in a cache table the matcher owns, one per vertex,
 * so the same vertex is the same view in every hook of every match.
 *
 * This file holds the view userdata, its cache and its class: the checks a
 * view adds and its metamethods.  It must not hold the read methods
 * themselves (l_vertex.c implements them once for every vertex class) nor
 * anything of the sandbox or the hooks (l_policy.c).
 *
 * Workload: one view per visited vertex and matcher, made once and reused;
 * making one is not counted against the running policy's memory cap.
 */
#include "lgraph.h"
#include "lpolicy.h"

struct pvertex {
    struct grovel_view *view;
    grove_vid_t v;
};

void grovel_policy_new_cache(lua_State *L, int owner_idx)
{
    owner_idx = lua_absindex(L, owner_idx);
    lua_createtable(L, 0, 1);
    lua_pushvalue(L, owner_idx);
    lua_setfield(L, -2, "owner");
}

void grovel_push_view(lua_State *L, int cache_idx, struct grovel_view *view, grove_vid_t v)
{
    if (lua_rawgeti(L, cache_idx, (lua_Integer)v + 1) != LUA_TNIL)
        return;
    lua_pop(L, 1);
    /* the cache is the matcher's, not the policy's: not counted (a raise
     * in here leaves the exemption on; the policy clears it after each
     * hook) */
    if (view->running)
        grovel_policy_exempt(view->running, 1);
    struct pvertex *h = lua_newuserdatauv(L, sizeof(*h), 1);
    h->view = view;
    h->v = v;
    luaL_setmetatable(L, GROVEL_PVERTEX);
    lua_pushvalue(L, cache_idx);
    lua_setiuservalue(L, -2, 1);
    lua_pushvalue(L, -1);
    lua_rawseti(L, cache_idx, (lua_Integer)v + 1);
    if (view->running)
        grovel_policy_exempt(view->running, -1);
}

grove_vid_t grovel_test_view(lua_State *L, int idx, const struct grovel_view *view)
{
    struct pvertex *h = luaL_testudata(L, idx, GROVEL_PVERTEX);
    return h && h->view == view ? h->v : GROVE_VID_NONE;
}

/* ---- the class --------------------------------------------------------- */

static grove_graph_t *view_check(lua_State *L, int idx, grove_vid_t *v)
{
    struct pvertex *h = luaL_checkudata(L, idx, GROVEL_PVERTEX);
    if (!h->view->g)
        luaL_error(L, "a policy's vertex can be used only while its match runs");
    if (!grove_graph_has_vertex(h->view->g, h->v))
        luaL_argerror(L, idx, "vertex was removed from its graph");
    *v = h->v;
    return h->view->g;
}

/* A sibling view, from the cache at uv (the first user value of a view). */
static void view_push_kin(lua_State *L, int idx, int uv, grove_vid_t v)
{
    struct pvertex *h = lua_touserdata(L, idx);
    grovel_push_view(L, uv, h->view, v);
}

static void pv_describe(lua_State *L, void *ud)
{
    const struct pvertex *h = ud;
    grove_graph_t *g = h->view->g;
    if (!g)
        lua_pushfstring(L, "grove.policy.vertex (%I, outside a match)", (lua_Integer)h->v);
    else if (!grove_graph_has_vertex(g, h->v))
        lua_pushliteral(L, "grove.policy.vertex (removed)");
    else
        grovel_push_label(L, g, h->v);
}

static bool pv_equal(const void *a, const void *b)
{
    const struct pvertex *x = a, *y = b;
    return x->view == y->view && x->v == y->v;
}

static const struct grovel_vclass view_class = {
    {.tname = GROVEL_PVERTEX, .describe = pv_describe, .equal = pv_equal},
    view_check,
    view_push_kin,
    true,
};

int grovel_open_view(lua_State *L)
{
    grovel_vclass_open(L, &view_class, NULL);
    luaL_getmetatable(L, GROVEL_PVERTEX);
    lua_pushliteral(L, GROVEL_PVERTEX);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
    return 0;
}
