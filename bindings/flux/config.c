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

/* Push the two arguments of grove.flux.module: the instance's whole
 * configuration (a table, or nil when it has none) and the module's
 * arguments (an array of "key=value" words), lua-path= taken out of them
 * into *lua_dir (caller frees): it says where the Lua library is, so it
 * is read before any Lua runs.  0, or -1 (logged). */
int sg_config_push(struct sched_ctx *ctx, int argc, char **argv, char **lua_dir)
{
    lua_State *L = ctx->L;
    json_t *conf = NULL;
    const flux_conf_t *c = flux_get_conf(ctx->h);
    flux_error_t ferr;
    if (c && flux_conf_unpack(c, &ferr, "o", &conf) < 0) {
        flux_log(ctx->h, LOG_ERR, "configuration: %s", ferr.text);
        errno = EINVAL;
        return -1;
    }
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
