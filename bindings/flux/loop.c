/* loop.c: sched-grove's bridge to the scheduling loop, a Lua object
 * (grove.flux over grove.sched and libgrove) in a Lua state of the
 * module's own.
 *
 * Here: the Lua state's paths, building the loop from the options,
 * calling its methods with a traceback handler (an error is logged and
 * the call fails: a bad message never takes the module down), JSON
 * values to Lua and back, and the alloc requests still waiting for an
 * answer, kept by job id in a registry table.  Nothing here reads what a
 * message means: protocol.c decodes, the loop decides, respond.c acts.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <lauxlib.h>
#include <lualib.h>

#include "grovel.h"
#include "lacquire.h"
#include "sched_grove.h"

static int msghandler(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg)
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    luaL_traceback(L, L, msg, 1);
    return 1;
}

static int call(struct sched_ctx *ctx, const char *name, int nargs, int nres);
static void ready_mode(struct sched_ctx *ctx, char *buf, size_t size);

/* The bits `flux module debug` set on this module (flux-core's scheduler
 * test hooks: see grove.flux), handed to the loop when they change. */
static void sync_debug(struct sched_ctx *ctx)
{
    static const int bits[] = {1, 2, 4};
    int mask = 0;
    for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
        if (flux_module_debug_test(ctx->h, bits[i], false))
            mask |= bits[i];
    if (mask == ctx->debug)
        return;
    ctx->debug = mask;
    lua_pushinteger(ctx->L, mask);
    call(ctx, "set_debug", 1, 0);
}

int sg_loop_call(struct sched_ctx *ctx, const char *name, int nargs, int nres)
{
    if (ctx->loop_ref) {
        /* the arguments stay on top: sync_debug leaves the stack as it was */
        sync_debug(ctx);
    }
    return call(ctx, name, nargs, nres);
}

/* The call itself (sg_loop_call).  A request answered inside a pass
 * (ctx->serving: protocol.c's between) goes through the loop's aside,
 * which keeps the pass's own actions and clock out of its answer. */
static int call(struct sched_ctx *ctx, const char *name, int nargs, int nres)
{
    lua_State *L = ctx->L;
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, msghandler);
    lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->loop_ref);
    if (ctx->serving) {
        lua_getfield(L, -1, "aside");
        lua_insert(L, base + 1);  /* aside */
        lua_insert(L, base + 2);  /* self */
        lua_pushstring(L, name);
        lua_insert(L, base + 3);  /* the method's name */
        nargs++;
    } else {
        lua_getfield(L, -1, name);
        lua_insert(L, base + 1);  /* fn */
        lua_insert(L, base + 2);  /* self */
    }
    lua_insert(L, base + 1);     /* handler below fn */
    if (lua_pcall(L, nargs + 1, nres, base + 1) != LUA_OK) {
        flux_log(ctx->h, LOG_ERR, "%s: %s", name, lua_tostring(L, -1));
        lua_settop(L, base);
        errno = EINVAL;
        return -1;
    }
    lua_remove(L, base + 1);
    return 0;
}

/* package.path: lua-path= when given, else the source tree's lua/ when
 * this module sits in a build directory of it (BUILD/flux/sched-grove.so),
 * then the installed library. */
static void set_paths(lua_State *L, const char *lua_dir)
{
    Dl_info info;
    const char *so = NULL;
    if (!lua_dir && dladdr((void *)set_paths, &info) && info.dli_fname)
        so = info.dli_fname;
    grovel_set_paths(L, lua_dir, so, "../../lua");
}

/* Push a JSON value (NULL: nil) as a Lua value. */
void sg_push_json(lua_State *L, const json_t *v)
{
    if (v)
        grovel_push_json(L, v, false);
    else
        lua_pushnil(L);
}

/* The Lua value at idx as a new JSON value, or NULL (logged). */
json_t *sg_to_json(struct sched_ctx *ctx, int idx, const char *what)
{
    char why[256] = "";
    json_t *o = grovel_to_json(ctx->L, idx, why, sizeof(why));
    if (!o)
        flux_log(ctx->h, LOG_ERR, "%s: %s", what, why);
    return o;
}

/* ---- pending alloc requests ------------------------------------------------ */

/* Keep the request msg of job id, stamped in at st. */
void sg_msgs_put(struct sched_ctx *ctx, lua_Integer id, const flux_msg_t *msg,
                     const struct alloc_stamp *st)
{
    lua_State *L = ctx->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->msgs_ref);
    struct pending *p = lua_newuserdatauv(L, sizeof(*p), 0);
    p->msg = flux_msg_incref(msg);
    p->st = *st;
    lua_rawseti(L, -2, id);
    lua_pop(L, 1);
}

/* The pending request of job id (borrowed), or NULL. */
struct pending *sg_msgs_get(struct sched_ctx *ctx, lua_Integer id)
{
    lua_State *L = ctx->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->msgs_ref);
    lua_rawgeti(L, -1, id);
    struct pending *p = lua_touserdata(L, -1);
    lua_pop(L, 2);
    return p;
}

/* Forget the request of job id: its reference dropped. */
void sg_msgs_drop(struct sched_ctx *ctx, lua_Integer id)
{
    lua_State *L = ctx->L;
    struct pending *p = sg_msgs_get(ctx, id);
    if (!p)
        return;
    flux_msg_decref(p->msg);
    p->msg = NULL;
    lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->msgs_ref);
    lua_pushnil(L);
    lua_rawseti(L, -2, id);
    lua_pop(L, 1);
}

/* Drop the reference of every request still pending (the module ends). */
void sg_msgs_fini(struct sched_ctx *ctx)
{
    lua_State *L = ctx->L;
    if (!ctx->msgs_ref)
        return;
    lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->msgs_ref);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        struct pending *p = lua_touserdata(L, -1);
        if (p)
            flux_msg_decref(p->msg);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

/* Hand payload to the loop's method name and carry out what it returns;
 * req is the request the actions may answer (or NULL).  -1 when the call
 * failed or answered an error. */
int sg_event(struct sched_ctx *ctx, const char *name, const json_t *payload,
             const flux_msg_t *req)
{
    int nargs = 0;
    /* the resources, as the feasibility thread's loop reads them too */
    if (!strcmp(name, "acquire") || !strcmp(name, "topology"))
        sg_feas_forward(ctx, name, NULL, payload);
    if (payload) {
        sg_push_json(ctx->L, payload);
        nargs = 1;
    }
    if (sg_loop_call(ctx, name, nargs, 1) < 0)
        return -1;
    return sg_act_all(ctx, req) ? -1 : 0;
}

/* Build the loop (grove.flux.module) from the configuration and the
 * arguments on top of the stack (sg_config_push; popped). */
int sg_loop_make(struct sched_ctx *ctx, const char *lua_dir)
{
    lua_State *L = ctx->L;
    set_paths(L, lua_dir);
    lua_pushcfunction(L, msghandler);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "grove.flux");
    if (lua_pcall(L, 1, 1, -3) != LUA_OK) {
        flux_log(ctx->h, LOG_ERR, "require grove.flux: %s", lua_tostring(L, -1));
        lua_settop(L, 0);
        errno = ENOENT;
        return -1;
    }
    lua_getfield(L, -1, "module");
    lua_pushvalue(L, -5); /* the configuration */
    lua_pushvalue(L, -5); /* the arguments */
    if (lua_pcall(L, 2, 2, -5) != LUA_OK || lua_isnil(L, -2)) {
        /* a bad key or value, or a policy that does not load: the
         * message names it; the load fails with EINVAL */
        flux_log(ctx->h, LOG_ERR, "%s", lua_tostring(L, -1));
        lua_settop(L, 0);
        errno = EINVAL;
        return -1;
    }
    lua_pop(L, 1);
    ctx->loop_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_settop(L, 0);
    lua_newtable(L);
    ctx->msgs_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    ready_mode(ctx, ctx->ready_mode, sizeof(ctx->ready_mode));
    return 0;
}

/* The loop's ready mode ("unlimited" or "limited=N") in buf. */
static void ready_mode(struct sched_ctx *ctx, char *buf, size_t size)
{
    lua_State *L = ctx->L;
    snprintf(buf, size, "unlimited");
    if (sg_loop_call(ctx, "ready", 0, 1) == 0) {
        lua_getfield(L, -1, "limit");
        if (lua_isinteger(L, -1))
            snprintf(buf, size, "limited=%lld", (long long)lua_tointeger(L, -1));
        lua_pop(L, 2);
    }
}

void sg_ready_again(struct sched_ctx *ctx)
{
    char mode[sizeof(ctx->ready_mode)];
    ready_mode(ctx, mode, sizeof(mode));
    if (!strcmp(mode, ctx->ready_mode) || !ctx->util)
        return;
    /* the job manager takes a new limit from another ready request */
    if (schedutil_ready(ctx->util, mode, NULL) < 0) {
        flux_log_error(ctx->h, "ready %s", mode);
        return;
    }
    snprintf(ctx->ready_mode, sizeof(ctx->ready_mode), "%s", mode);
    flux_log(ctx->h, LOG_INFO, "queue depth now %s", mode);
}
