/* config.c: sched-grove's options, from the instance's configuration
 * table [sched-grove] and the module's key=value arguments (arguments
 * win), made into the options table of grove.flux.new.
 *
 * Every key is known here with the name grove.flux gives it; an unknown
 * key fails the load with its name in the broker's log.
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

/* ---- set-up -------------------------------------------------------------------- */

/* The module's option keys and grove.flux's names for them; numeric says
 * the value is a number (a module argument is text). */
static const struct {
    const char *key, *opt, *limit;
    bool numeric;
} options[] = {
    {"queue-policy", "queue", NULL, false},
    {"placement-policy", "policy", NULL, false},
    {"queue-depth", "queue_depth", NULL, true},
    {"reserve-depth", "reserve_depth", NULL, true},
    {"limited", "limited", NULL, true},
    {"match-format", "match_format", NULL, false},
    {"policy-budget", NULL, "budget", true},
    {"policy-time", NULL, "time", true},
    {"policy-memory", NULL, "memory", true},
};

/* Set option key (the value on top of the stack, popped) in the options
 * table at opts (its limits subtable at lim). */
static int set_option(struct sched_ctx *ctx, int opts, int lim, const char *key, const char *where)
{
    lua_State *L = ctx->L;
    for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
        if (strcmp(key, options[i].key))
            continue;
        if (options[i].numeric && lua_type(L, -1) == LUA_TSTRING) {
            const char *text = lua_tostring(L, -1);
            if (!strcmp(key, "queue-depth") && !strcmp(text, "unlimited")) {
                lua_pop(L, 1);
                return 0;
            }
            if (!lua_stringtonumber(L, text)) {
                flux_log(ctx->h, LOG_ERR, "%s: %s=%s: a number expected", where, key, text);
                return -1;
            }
            lua_remove(L, -2);
        }
        lua_setfield(L, options[i].opt ? opts : lim, options[i].opt ? options[i].opt
                                                                    : options[i].limit);
        return 0;
    }
    flux_log(ctx->h, LOG_ERR, "%s: unknown option '%s'", where, key);
    return -1;
}

/* Push the options table of grove.flux.new: the instance's [sched-grove]
 * table, then the module arguments (key=value) over it. */
int sg_config_push(struct sched_ctx *ctx, int argc, char **argv, char **lua_dir)
{
    lua_State *L = ctx->L;
    json_t *conf = NULL;
    const flux_conf_t *c = flux_get_conf(ctx->h);
    flux_error_t ferr;
    if (c && flux_conf_unpack(c, &ferr, "{s?o}", MODULE_NAME, &conf) < 0) {
        flux_log(ctx->h, LOG_ERR, "[%s]: %s", MODULE_NAME, ferr.text);
        return -1;
    }
    lua_newtable(L);
    int opts = lua_gettop(L);
    lua_newtable(L);
    int lim = lua_gettop(L);
    const char *key;
    json_t *v;
    json_object_foreach(conf, key, v) {
        grovel_push_json(L, v, false);
        if (set_option(ctx, opts, lim, key, "[" MODULE_NAME "]") < 0)
            return -1;
    }
    for (int i = 0; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        if (!eq) {
            flux_log(ctx->h, LOG_ERR, "argument '%s': key=value expected", argv[i]);
            return -1;
        }
        char k[64];
        snprintf(k, sizeof(k), "%.*s", (int)(eq - argv[i]), argv[i]);
        if (!strcmp(k, "lua-path")) {
            free(*lua_dir);
            *lua_dir = strdup(eq + 1);
            continue;
        }
        lua_pushstring(L, eq + 1);
        if (set_option(ctx, opts, lim, k, "argument") < 0)
            return -1;
    }
    lua_setfield(L, opts, "limits");
    return 0;
}

