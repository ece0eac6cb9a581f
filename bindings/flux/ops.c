/* ops.c: the operator's requests to sched-grove.
 *
 * `flux module stats sched-grove`: the loop's counters (jobs matched,
 * match times, queue, policies), the alloc latencies measured here, the
 * Lua heap and the collector's steps taken between events.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <lauxlib.h>

#include "sched_grove.h"

/* `flux module stats sched-grove`: the loop's counters, the alloc
 * latencies this module measured, its Lua heap and the collection steps
 * taken between events. */
void sg_stats_cb(flux_t *h, flux_msg_handler_t *mh, const flux_msg_t *msg, void *arg)
{
    (void)mh;
    struct sched_ctx *ctx = arg;
    json_t *o = NULL;
    if (sg_loop_call(ctx, "stats", 0, 1) == 0) {
        o = sg_to_json(ctx, lua_gettop(ctx->L), "stats");
        lua_pop(ctx->L, 1);
    }
    if (!o || !json_is_object(o)) {
        json_decref(o);
        flux_respond_error(h, msg, EINVAL, "scheduler error (see the broker's log)");
        return;
    }
    alloc_stamps_report(&ctx->stamps, o);
    json_object_set_new(o, "feasibility", time_ring_report(&ctx->feasibility));
    json_object_set_new(o, "lua_gc", json_pack("{s:i s:I s:f s:f}", "heap_kb",
                                               lua_gc(ctx->L, LUA_GCCOUNT), "steps",
                                               (json_int_t)ctx->gc_steps, "cpu_us",
                                               ctx->gc_s * 1e6, "max_us", ctx->gc_max_s * 1e6));
    if (flux_respond_pack(h, msg, "O", o) < 0)
        flux_log_error(h, "stats-get");
    json_decref(o);
}
