/* l_jgf.c: JSON Graph Format in Lua (core/jgf.h).
 *
 *   core.jgf_decode(text [, source])  -> graph | nil, msg, code
 *   core.jgf_load(path)               -> graph | nil, msg, code
 *   core.jgf_encode(g [, opts])       -> text  | nil, msg, code
 *   g:to_jgf([opts])                  the same as a graph method
 *
 * opts: {state = bool, compact = bool, paths = bool, short = bool,
 * vertices = {v, ...}, mark = grove.mark, changed = bool}: short leaves
 * out what every reader defaults (GROVE_JGF_SHORT, an R's form); state adds
 * tags, allocation records and the current time (GROVE_JGF_WITH_STATE);
 * compact drops the indentation; paths = false leaves out every vertex's
 * path (GROVE_JGF_NO_PATHS: linear in the graph); vertices writes only those vertices and
 * the edges between them (the scheduling graph of an allocation); mark (core.mark())
 * moves to this save, and changed = true writes only what changed since the
 * mark's last save (a changes document, core/changes.h).
 *
 * Workload: whole machines (hundreds of megabytes of text) as well as the
 * small graphs of R documents.  The text is made by the core in one buffer,
 * which a box owns until Lua has copied it, so a memory error in Lua cannot
 * leak it; a decoded graph goes into a graph userdata created before it.
 * Misuse (a closed graph, a bad option, a vertex of another graph) raises;
 * bad input returns nil, message, code with the core's message (file,
 * line, place, reason).
 *
 * This file holds only these readers and the writer; the graph class it
 * adds to_jgf to lives in l_graph.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "changes.h"
#include "jgf.h"
#include "lgraph.h"

static int l_jgf_decode(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    const char *source = luaL_optstring(L, 2, NULL);
    grove_error_t err;
    lua_State *prev = grovel_progress_enter(L);
    grove_graph_t *g = grove_jgf_read(text, len, source, &err);
    grovel_progress_leave(prev);
    return grovel_return_graph(L, g, &err);
}

static int l_jgf_load(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    grove_error_t err;
    lua_State *prev = grovel_progress_enter(L);
    grove_graph_t *g = grove_jgf_load(path, &err);
    grovel_progress_leave(prev);
    return grovel_return_graph(L, g, &err);
}

/* The vertex list of opts.vertices (at index t) into a userdata buffer
 * left on the stack; *n gets its length. */
static grove_vid_t *check_vertices(lua_State *L, int t, int oi, const struct grovel_graph *gr,
                                   size_t *n)
{
    luaL_argcheck(L, lua_type(L, t) == LUA_TTABLE, oi, "vertices must be a list of vertices");
    lua_Unsigned len = lua_rawlen(L, t);
    grove_vid_t *vids = lua_newuserdatauv(L, (len ? len : 1) * sizeof(*vids), 0);
    for (lua_Unsigned i = 0; i < len; i++) {
        lua_rawgeti(L, t, (lua_Integer)i + 1);
        struct grovel_vertex *h = luaL_testudata(L, -1, GROVEL_VERTEX);
        if (!h || h->gr != gr || !grove_graph_has_vertex(gr->g, h->v))
            luaL_argerror(L, oi,
                          lua_pushfstring(L, "vertices[%d] is not a vertex of this graph",
                                          (int)i + 1));
        vids[i] = h->v;
        lua_pop(L, 1);
    }
    *n = (size_t)len;
    return vids;
}

/* Encode the graph at gi with the options at oi. */
static int encode(lua_State *L, int gi, int oi)
{
    struct grovel_graph *gr = grovel_check_graph_ud(L, gi);
    int flags = 0;
    grove_vid_t *vids = NULL;
    size_t n = 0;
    grove_mark_t *mk = NULL;
    int save = 0;
    if (!lua_isnoneornil(L, oi)) {
        luaL_checktype(L, oi, LUA_TTABLE);
        lua_pushnil(L);
        while (lua_next(L, oi)) {
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
            if (k && (!strcmp(k, "state") || !strcmp(k, "compact") || !strcmp(k, "paths")
                      || !strcmp(k, "short"))) {
                if (!lua_isboolean(L, -1))
                    luaL_argerror(L, oi, lua_pushfstring(L, "%s must be a boolean", k));
                if (!strcmp(k, "paths"))
                    flags |= lua_toboolean(L, -1) ? 0 : GROVE_JGF_NO_PATHS;
                else if (lua_toboolean(L, -1))
                    flags |= !strcmp(k, "state")   ? GROVE_JGF_WITH_STATE
                             : !strcmp(k, "short") ? GROVE_JGF_SHORT
                                                   : GROVE_JGF_COMPACT;
            } else if (k && (!strcmp(k, "mark") || !strcmp(k, "changed"))) {
                grovel_save_option(L, k[0] == 'm' ? 0 : 1, oi, &mk, &save);
            } else if (k && !strcmp(k, "vertices")) {
                vids = check_vertices(L, lua_absindex(L, -1), oi, gr, &n);
                lua_insert(L, -3); /* keep the buffer below the key */
            } else {
                static const char *const options[] = {"state", "compact", "paths",   "short",
                                                      "mark",  "changed", "vertices", NULL};
                luaL_argerror(L, oi,
                              grovel_push_unknown(L, "option", grovel_key_name(L, -2), options));
            }
            lua_pop(L, 1);
        }
    }
    grovel_save_check(L, oi, mk, save);
    luaL_argcheck(L, !mk || !vids, oi, "a save mark follows whole graphs, not vertices");
    struct grovel_box *b = grovel_box_new(L, free);
    grove_error_t err = {{0}, 0};
    lua_State *prev = grovel_progress_enter(L);
    b->p = vids  ? grove_jgf_write_vertices(gr->g, vids, n, flags)
           : mk  ? grove_jgf_save(gr->g, flags, save, mk, &err)
                 : grove_jgf_write(gr->g, flags);
    grovel_progress_leave(prev);
    if (!b->p)
        return mk ? grovel_fail_err(L, errno, &err) : grovel_fail_errno(L, errno, NULL);
    lua_pushstring(L, b->p);
    free(b->p);
    b->p = NULL;
    return 1;
}

static int l_jgf_encode(lua_State *L)
{
    return encode(L, 1, 2);
}

#include "api_jgf.h"
