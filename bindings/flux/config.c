/* config.c: sched-grove's options, from the instance's configuration
 * table [sched-grove] and the module's key=value arguments (arguments
 * win), made into the options table of grove.flux.new.
 *
 * The keys are read and checked by grove.flux.config (Lua): here the
 * configuration is only handed over, and lua-path= (where that library
 * is) taken out.  An unknown key or a bad value fails the load with
 * EINVAL, the key and the reason in the broker's log.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <lauxlib.h>

#include "grovel.h"
#include "sched_grove.h"

/* The instance's whole configuration as a new JSON object, or NULL in
 * *conf when it has none.  0, or -1 (logged). */
int sg_config_get(struct sched_ctx *ctx, json_t **conf)
{
    const flux_conf_t *c = flux_get_conf(ctx->h);
    flux_error_t ferr;
    json_t *o = NULL;
    *conf = NULL;
    if (c && flux_conf_unpack(c, &ferr, "o", &o) < 0) {
        flux_log(ctx->h, LOG_ERR, "configuration: %s", ferr.text);
        errno = EINVAL;
        return -1;
    }
    *conf = json_incref(o);
    return 0;
}

/* Push the two arguments of grove.flux.module: the instance's whole
 * configuration conf (a table, or nil for NULL) and the module's
 * arguments (an array of "key=value" words), lua-path= taken out of them
 * into *lua_dir (caller frees): it says where the Lua library is, so it
 * is read before any Lua runs.  0, or -1 (ENOMEM). */
int sg_config_push_conf(lua_State *L, const json_t *conf, int argc, char **argv,
                        char **lua_dir)
{
    if (conf)
        grovel_push_json(L, conf, false);
    else
        lua_pushnil(L);
    lua_createtable(L, argc, 0);
    int n = 0;
    for (int i = 0; i < argc; i++) {
        if (!strncmp(argv[i], "lua-path=", 9)) {
            free(*lua_dir);
            if (!(*lua_dir = strdup(argv[i] + 9))) {
                errno = ENOMEM;
                return -1;
            }
            continue;
        }
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, ++n);
    }
    return 0;
}

int sg_config_push(struct sched_ctx *ctx, int argc, char **argv, char **lua_dir)
{
    json_t *conf;
    if (sg_config_get(ctx, &conf) < 0)
        return -1;
    int rc = sg_config_push_conf(ctx->L, conf, argc, argv, lua_dir);
    json_decref(conf);
    return rc;
}

/* Is there an action of op "error" in the array on top of the stack? */
static bool refused(lua_State *L)
{
    bool found = false;
    if (!lua_istable(L, -1))
        return true;
    lua_Integer n = luaL_len(L, -1);
    for (lua_Integer i = 1; i <= n && !found; i++) {
        lua_rawgeti(L, -1, i);
        if (lua_istable(L, -1)) {
            lua_getfield(L, -1, "op");
            const char *op = lua_tostring(L, -1);
            found = op && !strcmp(op, "error");
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    return found;
}

void sg_config_reload_cb(flux_t *h, flux_msg_handler_t *mh, const flux_msg_t *msg, void *arg)
{
    (void)mh;
    struct sched_ctx *ctx = arg;
    lua_State *L = ctx->L;
    flux_conf_t *conf = NULL;
    json_t *o = NULL;
    flux_error_t ferr;
    if (flux_module_config_request_decode(msg, &conf) < 0) {
        if (flux_respond_error(h, msg, EPROTO, "config-reload: the request cannot be read") < 0)
            flux_log_error(h, "config-reload");
        return;
    }
    if (flux_conf_unpack(conf, &ferr, "o", &o) < 0) {
        if (flux_respond_error(h, msg, EINVAL, ferr.text) < 0)
            flux_log_error(h, "config-reload");
        flux_conf_decref(conf);
        return;
    }
    lua_createtable(L, 0, 1);
    grovel_push_json(L, o, false);
    lua_setfield(L, -2, "conf");
    if (sg_loop_call(ctx, "reconfigure", 1, 1) < 0) {
        flux_conf_decref(conf);
        if (flux_respond_error(h, msg, EINVAL, "scheduler error (see the broker's log)") < 0)
            flux_log_error(h, "config-reload");
        return;
    }
    /* the new configuration is the module's own once taken, before the
     * answer: a refused one leaves the old in place */
    if (!refused(L)) {
        if (flux_set_conf_new(h, conf) < 0)
            flux_log_error(h, "config-reload: keep the configuration");
        conf = NULL;
        sg_ready_again(ctx);
        json_t *p = json_pack("{s:O}", "conf", o);
        sg_feas_forward(ctx, "reconfigure", NULL, p);
        json_decref(p);
    }
    flux_conf_decref(conf);
    sg_act_all(ctx, msg);
    ctx->dirty = true;
}
