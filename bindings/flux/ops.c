/* ops.c: the operator's requests to sched-grove.
 *
 * `flux module stats sched-grove`: the loop's counters (jobs matched,
 * match times, queue, policies), the alloc latencies measured here, the
 * Lua heap and the collector's steps taken between events.
 *
 * `flux grove CMD` (bindings/flux/cmd/flux-grove.c): a request
 * sched-grove.CMD for each command (find, why, set-property,
 * remove-property, set-status, reserve, unreserve, reservations, graph,
 * stats, reload),
 * handed to the loop's grove method (grove.flux.ops) as it came, the
 * stats with what this module measures added; the loop answers with the
 * text the client prints, or an error.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <lauxlib.h>

#include "sched_grove.h"

/* The loop's counters with the alloc latencies this module measured, its
 * Lua heap and the collection steps taken between events: a new object,
 * or NULL (logged). */
static json_t *stats_object(struct sched_ctx *ctx)
{
    json_t *o = NULL;
    if (sg_loop_call(ctx, "stats", 0, 1) == 0) {
        o = sg_to_json(ctx, lua_gettop(ctx->L), "stats");
        lua_pop(ctx->L, 1);
    }
    if (o && !json_is_object(o)) {
        json_decref(o);
        o = NULL;
    }
    if (!o)
        return NULL;
    alloc_stamps_report(&ctx->stamps, o);
    json_t *feas = sg_feas_report(ctx);
    json_object_set_new(o, "feasibility", feas ? feas : time_ring_report(&ctx->feasibility));
    /* where checks come in: the feasibility thread's connection, the
     * module's own second connection, or its handle */
    json_object_set_new(o, "feasibility_connection",
                        json_string(ctx->feas                       ? "thread"
                                    : ctx->fh && !ctx->side_lost ? "own"
                                                                 : "module"));
    /* feasibility checks, resource-status and stats answered inside a pass */
    json_object_set_new(o, "served_in_pass", json_integer((json_int_t)ctx->served));
    json_object_set_new(o, "served_ahead", json_integer((json_int_t)ctx->served_ahead));
    json_object_set_new(o, "lua_gc", json_pack("{s:i s:I s:f s:f}", "heap_kb",
                                               lua_gc(ctx->L, LUA_GCCOUNT), "steps",
                                               (json_int_t)ctx->gc_steps, "cpu_us",
                                               ctx->gc_s * 1e6, "max_us", ctx->gc_max_s * 1e6));
    return o;
}

/* `flux module stats sched-grove`. */
void sg_stats_cb(flux_t *h, flux_msg_handler_t *mh, const flux_msg_t *msg, void *arg)
{
    (void)mh;
    json_t *o = stats_object(arg);
    if (!o) {
        flux_respond_error(h, msg, EINVAL, "scheduler error (see the broker's log)");
        return;
    }
    if (flux_respond_pack(h, msg, "O", o) < 0)
        flux_log_error(h, "stats-get");
    json_decref(o);
}

/* sched-grove.CMD: the command's payload (an object) to the loop's
 * grove method, with the module's stats under "stats" for the stats
 * command; its respond or error action answers.  A command that changes
 * the loop (changes) is followed by a pass, and once taken is handed to
 * the feasibility thread's loop as well, whatever it changed: the two
 * loops stay alike without a list of what a check reads. */
static void grove(struct sched_ctx *ctx, flux_t *h, const flux_msg_t *msg, bool changes)
{
    const char *topic = NULL;
    json_t *p = NULL;
    if (flux_msg_get_topic(msg, &topic) < 0 || flux_request_unpack(msg, NULL, "o", &p) < 0
        || !json_is_object(p)) {
        flux_respond_error(h, msg, EPROTO, "a JSON object expected");
        return;
    }
    const char *cmd = topic + strlen(MODULE_NAME ".");
    json_t *req = json_copy(p);
    json_t *st = strcmp(cmd, "stats") ? NULL : stats_object(ctx);
    if (!req || (st && json_object_set_new(req, "stats", st) < 0)) {
        json_decref(req);
        flux_respond_error(h, msg, ENOMEM, NULL);
        return;
    }
    lua_pushstring(ctx->L, cmd);
    sg_push_json(ctx->L, req);
    if (sg_loop_call(ctx, "grove", 2, 1) < 0) {
        json_decref(req);
        flux_respond_error(h, msg, EINVAL, "scheduler error (see the broker's log)");
        return;
    }
    if (sg_act_all(ctx, msg) == 0 && changes)
        sg_feas_forward(ctx, "grove", cmd, req);
    json_decref(req);
    if (changes)
        ctx->dirty = true;
}

void sg_grove_cb(flux_t *h, flux_msg_handler_t *mh, const flux_msg_t *msg, void *arg)
{
    (void)mh;
    grove(arg, h, msg, false);
}

void sg_grove_change_cb(flux_t *h, flux_msg_handler_t *mh, const flux_msg_t *msg, void *arg)
{
    (void)mh;
    grove(arg, h, msg, true);
}
