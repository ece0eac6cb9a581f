/* l_store.c: the SQLite store and state files in Lua (core/store.h).
 *
 *   core.store_open(path [, {create = true, readonly = false,
 *                   sync = "full" | "normal"}])
 *                          a store, or nil, message, code (ENOENT, EINVAL:
 *                          not a Grove store or a newer format, EBUSY, EIO)
 *   st:save(graph [, matcher [, acquire]] [, {full = bool}])
 *                          after the transaction committed: {generation =,
 *                          full =, vertices =, edges =, jobs =, deleted =}
 *                          (rows written); or nil, message, code
 *   st:load([opts])        {graph =, matcher =, acquire =, policy =,
 *                          policy_restored = bool}, or nil, message, code;
 *                          matcher and acquire are nil when none was saved;
 *                          opts: policy (a name or grove.policy to use
 *                          instead of the saved name), default_duration,
 *                          constraint_type, or_slots (the matcher's
 *                          options, which are not saved)
 *   st:generation()        the last save's generation (0: none)
 *   st:check()             true, or nil, message, code: integrity_check,
 *                          then a full read with every row checked
 *   st:changes([since])    {generation =, full =, vertices = {...},
 *                          edges =, jobs =, deleted = {vertices =, ...},
 *                          acquire =, meta =} since generation `since`
 *   st:close(), <close>, tostring(st)
 *   core.state_write(path, graph [, matcher [, acquire]] [, {mark =, changed =}])
 *                          true, or nil, message, code: one JSON file (JGF +
 *                          "grove"); with a mark (core.mark()) the mark
 *                          moves to this save, and changed = true writes
 *                          only what changed since its last save
 *   core.state_read(path [, opts])   as st:load, from such a file (or a
 *                          plain JGF file)
 *
 * A policy saved under a name that is not built in (a Lua policy) cannot
 * be restored by name: the matcher keeps "first" unless opts.policy says,
 * and policy_restored is false.  Workload: one save per scheduling
 * decision, one load per start.
 *
 * This file holds the store class (a generic handle of grovel.h) and the
 * state readers and writers; the graph, matcher and acquisition userdata it
 * saves and restores belong to their own files.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "changes.h"
#include "lacquire.h"
#include "lgraph.h"
#include "store.h"

static void describe(lua_State *L, void *p)
{
    lua_pushfstring(L, "grove.store (generation %I)", (lua_Integer)grove_store_generation(p));
}

static const grovel_class_t store_class; /* defined by api.tsv */

static grove_store_t *check_store(lua_State *L, int idx)
{
    return grovel_handle_check(L, idx, &store_class);
}

static int l_store_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    int flags = GROVE_STORE_CREATE;
    static const char *const options[] = {"create", "readonly", "sync", NULL};
    if (grovel_options(L, 2))
        for (int o; (o = grovel_next_option(L, 2, options)) >= 0; lua_pop(L, 1)) {
            if (o == 0) {
                luaL_argcheck(L, lua_isboolean(L, -1), 2, "create must be a boolean");
                flags = lua_toboolean(L, -1) ? flags | GROVE_STORE_CREATE
                                             : flags & ~GROVE_STORE_CREATE;
            } else if (o == 1) {
                luaL_argcheck(L, lua_isboolean(L, -1), 2, "readonly must be a boolean");
                if (lua_toboolean(L, -1))
                    flags = (flags & ~GROVE_STORE_CREATE) | GROVE_STORE_READONLY;
            } else {
                static const char *const syncs[] = {"full", "normal", NULL};
                if (grovel_check_option_value(L, 2, "sync", syncs, "mode") == 1)
                    flags |= GROVE_STORE_NORMAL_SYNC;
            }
        }
    grovel_handle_t *h = grovel_handle_new(L, &store_class);
    grove_error_t err = {{0}, 0};
    if (!(h->p = grove_store_open(path, flags, &err)))
        return grovel_fail_err(L, errno, &err);
    return 1;
}

/* Arguments after the graph: [matcher] [acquire] [opts table]. */
static void state_args(lua_State *L, int first, grove_graph_t *g, grove_matcher_t **m,
                       grove_acquire_t **a, int *opts)
{
    *m = NULL;
    *a = NULL;
    *opts = 0;
    int top = lua_gettop(L);
    for (int i = first; i <= top; i++) {
        if (lua_isnil(L, i))
            continue;
        if (luaL_testudata(L, i, GROVEL_MATCHER) && !*m && !*a) {
            *m = grovel_check_matcher(L, i);
            luaL_argcheck(L, grove_matcher_graph(*m) == g, i, "the matcher is over another graph");
        } else if (luaL_testudata(L, i, GROVEL_ACQUIRE) && !*a) {
            *a = grovel_check_acquire(L, i);
            luaL_argcheck(L, grove_acquire_graph(*a) == g, i,
                          "the acquisition state is over another graph");
        } else if (lua_istable(L, i) && i == top) {
            *opts = i;
        } else {
            luaL_typeerror(L, i, "grove.matcher, grove.acquire or options table");
        }
    }
}

static int l_save(lua_State *L)
{
    grove_store_t *s = check_store(L, 1);
    grove_graph_t *g = grovel_check_graph(L, 2);
    grove_matcher_t *m;
    grove_acquire_t *a;
    int opts;
    state_args(L, 3, g, &m, &a, &opts);
    int flags = 0;
    if (opts) {
        lua_pushnil(L);
        while (lua_next(L, opts)) {
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
            static const char *const options[] = {"full", NULL};
            if (strcmp(k, "full") != 0)
                return luaL_argerror(
                    L, opts, grovel_push_unknown(L, "option", grovel_key_name(L, -2), options));
            if (!lua_isboolean(L, -1))
                return luaL_argerror(L, opts, "full must be a boolean");
            if (lua_toboolean(L, -1))
                flags |= GROVE_STORE_FULL;
            lua_pop(L, 1);
        }
    }
    grove_store_stats_t st;
    grove_error_t err = {{0}, 0};
    if (grove_store_save(s, g, m, a, flags, &st, &err) < 0)
        return grovel_fail_err(L, errno, &err);
    lua_createtable(L, 0, 6);
    grovel_set_integer(L, "generation", st.generation);
    grovel_set_boolean(L, "full", st.full);
    grovel_set_integer(L, "vertices", (lua_Integer)st.vertices);
    grovel_set_integer(L, "edges", (lua_Integer)st.edges);
    grovel_set_integer(L, "jobs", (lua_Integer)st.jobs);
    grovel_set_integer(L, "deleted", (lua_Integer)st.deleted);
    return 1;
}

static void image_free(void *p)
{
    grove_image_destroy(p);
}

/* Build {graph, matcher, acquire, policy, policy_restored} from the image
 * in the box at box_idx; opts at opts_idx (0: none).  The module table is
 * GROVEL_UPMODULE. */
static int restore(lua_State *L, int box_idx, int opts_idx)
{
    struct grovel_box *box = lua_touserdata(L, box_idx);
    grove_image_t *im = box->p;
    /* the matcher's options, and the policy to use */
    int pol = 0;
    lua_newtable(L);
    int cfg = lua_gettop(L);
    if (opts_idx) {
        lua_pushnil(L);
        while (lua_next(L, opts_idx)) {
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
            if (!strcmp(k, "policy")) {
                pol = lua_gettop(L);
                lua_pushvalue(L, -2); /* keep the value at pol, continue with the key */
                continue;
            }
            static const char *const options[] = {"policy", GROVEL_MATCHER_OPTIONS, NULL};
            if (grovel_name_index(k, options) < 0)
                return luaL_argerror(
                    L, opts_idx, grovel_push_unknown(L, "option", grovel_key_name(L, -2), options));
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_settable(L, cfg);
        }
    }
    struct grovel_graph *gr = grovel_new_graph_ud(L);
    int gidx = lua_gettop(L);
    gr->g = grove_image_take_graph(im);
    int midx = 0;
    grove_error_t err = {{0}, 0};
    bool restored = false;
    if (grove_image_has_jobs(im)) {
        lua_getfield(L, GROVEL_UPMODULE, "matcher");
        lua_pushvalue(L, gidx);
        lua_pushvalue(L, cfg);
        lua_call(L, 2, 1);
        midx = lua_gettop(L);
        grove_matcher_t *m = grovel_check_matcher(L, midx);
        if (pol || grove_image_policy(im)) {
            lua_getfield(L, midx, "set_policy");
            lua_pushvalue(L, midx);
            if (pol)
                lua_pushvalue(L, pol);
            else
                lua_pushstring(L, grove_image_policy(im));
            lua_call(L, 2, 3);
            if (lua_isnil(L, -3) && pol)
                return 3; /* nil, message, code of set_policy */
            restored = !lua_isnil(L, -3) && !pol;
            lua_pop(L, 3);
        }
        if (grove_image_restore_jobs(im, m, &err) < 0)
            return grovel_fail_err(L, errno, &err);
    } else if (grove_image_restore_jobs(im, NULL, &err) < 0) {
        return grovel_fail_err(L, errno, &err);
    }
    int aidx = 0;
    if (grove_image_has_acquire(im)) {
        grovel_handle_t *h = grovel_new_acquire(L, gidx, midx);
        aidx = lua_gettop(L);
        if (!(h->p = grove_acquire_create(gr->g, midx ? grovel_check_matcher(L, midx) : NULL, NULL,
                                          GROVE_ACQUIRE_AUTO)))
            return grovel_fail_errno(L, ENOMEM, NULL);
        if (grove_image_restore_acquire(im, h->p, &err) < 0)
            return grovel_fail_err(L, errno, &err);
    }
    lua_createtable(L, 0, 5);
    lua_pushvalue(L, gidx);
    lua_setfield(L, -2, "graph");
    if (midx) {
        lua_pushvalue(L, midx);
        lua_setfield(L, -2, "matcher");
    }
    if (aidx) {
        lua_pushvalue(L, aidx);
        lua_setfield(L, -2, "acquire");
    }
    grovel_set_string(L, "policy", grove_image_policy(im));
    grovel_set_boolean(L, "policy_restored", restored);
    return 1;
}

/* Check the options at 2 (a table or nothing); push the box (at 3) that
 * will own the image. */
static struct grovel_box *image_box(lua_State *L)
{
    if (!lua_isnoneornil(L, 2))
        luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    return grovel_box_new(L, image_free);
}

/* Read the image of the store s, or else of the state file at path, and
 * restore it (the options at 2). */
static int read_restore(lua_State *L, grove_store_t *s, const char *path)
{
    struct grovel_box *box = image_box(L);
    grove_error_t err = {{0}, 0};
    if (!(box->p = s ? grove_store_read(s, &err) : grove_image_read_file(path, &err)))
        return grovel_fail_err(L, errno, &err);
    return restore(L, 3, lua_isnil(L, 2) ? 0 : 2);
}

static int l_load(lua_State *L)
{
    return read_restore(L, check_store(L, 1), NULL);
}

static int l_state_read(lua_State *L)
{
    return read_restore(L, NULL, luaL_checkstring(L, 1));
}

static int l_state_write(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    grove_graph_t *g = grovel_check_graph(L, 2);
    grove_matcher_t *m;
    grove_acquire_t *a;
    int opts;
    state_args(L, 3, g, &m, &a, &opts);
    grove_mark_t *mk = NULL;
    int flags = 0;
    if (opts && grovel_options(L, opts))
        for (int o; (o = grovel_next_option(L, opts, GROVEL_SAVE_OPTIONS)) >= 0; lua_pop(L, 1))
            grovel_save_option(L, o, opts, &mk, &flags);
    grovel_save_check(L, opts, mk, flags);
    grove_error_t err = {{0}, 0};
    return grovel_result(L, grove_state_save(path, g, m, a, flags, mk, &err), &err);
}

static int l_generation(lua_State *L)
{
    lua_pushinteger(L, grove_store_generation(check_store(L, 1)));
    return 1;
}

static int l_check(lua_State *L)
{
    grove_error_t err = {{0}, 0};
    return grovel_result(L, grove_store_check(check_store(L, 1), &err), &err);
}

static int l_changes(lua_State *L)
{
    grove_store_t *s = check_store(L, 1);
    lua_Integer since = luaL_optinteger(L, 2, 0);
    grove_error_t err = {{0}, 0};
    char *text = grove_store_changes(s, since, &err);
    if (!text)
        return grovel_fail_err(L, errno, &err);
    json_t *j = json_loads(text, 0, NULL);
    free(text);
    if (!j)
        return grovel_fail_errno(L, ENOMEM, NULL);
    grovel_push_json(L, j, false);
    json_decref(j);
    return 1;
}

#include "api_store.h"
