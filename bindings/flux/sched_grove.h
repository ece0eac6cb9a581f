/* sched_grove.h: what the files of sched-grove.so share (the Flux
 * adapter's group; nothing outside bindings/flux/ includes it).
 *
 * The module is an adapter: broker messages in, calls of the scheduling
 * loop's protocol object (grove.flux, Lua) made, the actions it returns
 * carried out as broker calls.  Its rooms, each a file:
 *
 *   sched_grove.c  the module's life: mod_main, the start-up handshake
 *                  (RFC 27/28 order), the reactor's watchers (one pass a
 *                  turn, the wake-up timer, the Lua collector's steps)
 *   loop.c         the bridge to the Lua loop: its state, calling its
 *                  methods, JSON to Lua and back, the pending alloc
 *                  requests by job id
 *   protocol.c     RFC 27 (sched.*, through libschedutil) and RFC 28
 *                  (resource.acquire) messages, and the requests a
 *                  scheduler answers itself (feasibility.check,
 *                  sched.expiration, sched.resource-status): decoded and
 *                  handed to the loop; those that only read are also
 *                  answered between the steps of a long pass (between)
 *   respond.c      the loop's actions as broker calls: alloc responses
 *                  (R committed to the KVS first), errors, exceptions,
 *                  log lines
 *   annotations.c  a job's annotations (estimates, reasons, summaries)
 *                  written as JSON text
 *   config.c       the module's options: its arguments and the
 *                  instance's configuration tables
 *   feasibility.c  feasibility checks answered in a thread of their own,
 *                  by a second loop kept in step with the resources and
 *                  the configuration
 *   ops.c          the operator's RPCs (`flux module stats`, `flux grove`)
 *
 * What may go where: a file here decodes, encodes and makes broker
 * calls; whatever decides (which job starts, where, what a message
 * means) is the loop's, in Lua and libgrove, tested without Flux.
 */
#ifndef GROVE_FLUX_SCHED_GROVE_H
#define GROVE_FLUX_SCHED_GROVE_H

#include <stdbool.h>

#include <flux/core.h>
#include <flux/schedutil.h>
#include <jansson.h>
#include <lua.h>

#include "alloc_stamps.h"

#define MODULE_NAME "sched-grove"

struct commit;
struct sg_feas;

struct sched_ctx {
    flux_t *h;
    flux_t *rh;        /* the handle the request being answered came in on:
                        * h, or fh (a feasibility check read there) */
    struct sg_feas *feas; /* the feasibility thread, or NULL (feasibility.c) */
    flux_t *fh;        /* without it, the feasibility service's own
                        * connection to the broker, or NULL: it is h's
                        * (protocol.c) */
    flux_watcher_t *fw; /* fh's watcher */
    bool side_lost;    /* fh failed: the service was registered on h */
    double side_next;  /* when a pass may look at fh again */
    schedutil_t *util;
    lua_State *L;
    int loop_ref;      /* registry: the grove.flux object */
    int msgs_ref;      /* registry: job id -> pending alloc request (full
                        * userdata struct pending) */
    flux_future_t *acquire;
    flux_msg_handler_t **handlers;
    flux_watcher_t *prep, *check, *idle;
    flux_watcher_t *wake; /* a timer: the next reservation's start */
    bool dirty;        /* an event since the last pass */
    double pass_end;   /* when the last pass ended, and what it took (s, */
    double pass_took;  /* monotonic): a pass waits for waiting messages */
    unsigned deferred; /* reactor turns a due pass waited for messages */
    int gc_kb;         /* the Lua heap (KB) after the last collection step, or -1: the
                        * collector runs by itself (not yet started) */
    unsigned long gc_steps; /* collection steps taken in prep_cb */
    double gc_s, gc_max_s;  /* their thread CPU time (s): in all, the most */
    bool stopping;
    int debug;         /* the `flux module debug` bits the loop was given */
    char ready_mode[32]; /* "unlimited" or "limited=N" */
    struct alloc_stamps stamps; /* the alloc latencies (alloc_stamps.h) */
    struct time_ring feasibility; /* feasibility.check: request in to answer out, wall */
    struct commit *commits; /* R commits under way (their responses wait) */
    bool passing;      /* the loop's pass (check_cb) is under way */
    bool serving;      /* a request is answered aside, inside the pass */
    bool in_serve;     /* waiting read-only requests are being answered */
    double served_next; /* when the handle may be looked at for them again */
    unsigned long served;       /* those answered inside a pass, in all */
    unsigned long served_ahead; /* those answered ahead of queued allocs */
    flux_msg_t **held; /* the other messages read by those looks, in order, */
    size_t nheld, held_cap; /* kept until the pass ends (sg_held_requeue) */
};

/* A pending alloc request, as the msgs table holds it. */
struct pending {
    const flux_msg_t *msg; /* a reference of our own */
    struct alloc_stamp st; /* its stamps (in: the handler's entry) */
};

/* ---- loop.c ---- */

/* Call the loop's method name with nargs arguments on the stack; leaves
 * nres results, or logs the error and returns -1 (stack as before).  The
 * loop is first given the module's debug bits when they changed. */
int sg_loop_call(struct sched_ctx *ctx, const char *name, int nargs, int nres);

/* Build the loop (require grove.flux, grove.flux.module) from the
 * configuration and arguments sg_config_push left on the stack (popped);
 * lua_dir: lua-path=, or NULL.  Sets ctx->ready_mode from the loop.  0,
 * or -1 (logged; errno EINVAL for a bad key, value or policy). */
int sg_loop_make(struct sched_ctx *ctx, const char *lua_dir);

/* Hand payload (NULL: none) to the loop's method name and carry out what
 * it returns; req is the request the actions may answer (or NULL).  -1
 * when the call failed or answered an error. */
int sg_event(struct sched_ctx *ctx, const char *name, const json_t *payload,
             const flux_msg_t *req);

/* Push a JSON value (NULL: nil) as a Lua value. */
void sg_push_json(lua_State *L, const json_t *v);

/* The Lua value at idx as a new JSON value, or NULL (logged with what). */
json_t *sg_to_json(struct sched_ctx *ctx, int idx, const char *what);

/* The pending alloc requests, by job id: keep msg (a reference taken),
 * stamped in at st; the one of id (borrowed) or NULL; forget it (its
 * reference dropped); drop every reference (at the end). */
void sg_msgs_put(struct sched_ctx *ctx, lua_Integer id, const flux_msg_t *msg,
                 const struct alloc_stamp *st);
struct pending *sg_msgs_get(struct sched_ctx *ctx, lua_Integer id);
void sg_msgs_drop(struct sched_ctx *ctx, lua_Integer id);
void sg_msgs_fini(struct sched_ctx *ctx);

/* ---- protocol.c ---- */

/* libschedutil's operations (RFC 27) and the module's own request
 * handlers (feasibility, expiration, resource-status, and ops.c's). */
extern const struct schedutil_ops sg_sched_ops;
extern const struct flux_msg_handler_spec sg_handlers[];

/* Give the loop its between function (grove.sched's between): while a
 * pass runs, the requests that only read the loop's state are answered
 * between two of its steps.  0, or -1 (logged). */
int sg_between_install(struct sched_ctx *ctx);

/* Register the feasibility service on a connection of the module's own
 * (ctx->fh), or, where one cannot be opened, on the module's handle
 * (logged).  0, or -1 (logged): not registered at all. */
int sg_feasibility_register(struct sched_ctx *ctx);

/* Unregister it and close the connection (at the module's end). */
void sg_feasibility_close(struct sched_ctx *ctx);

/* Once the feasibility service is unregistered from h: answer what was
 * routed to h before (every such request is in h's queue once the
 * unregister's response is), each check by cb, anything else ENOSYS;
 * a connection closed with them unread leaves their senders waiting for
 * ever. */
void sg_drain_checks(flux_t *h, flux_msg_handler_f cb, void *arg);

/* Hand msg's payload (its member text_key as JSON text, or NULL: the
 * payload as it is) to the loop's method name and answer msg with what
 * it returns. */
void sg_answer(struct sched_ctx *ctx, const flux_msg_t *msg, const char *name,
               const char *text_key);

/* Put the messages a look of the pass read and kept back at the head of
 * the handle's queue, in their order (the pass has ended). */
void sg_held_requeue(struct sched_ctx *ctx);

/* resource.acquire's later responses (RFC 28). */
void sg_acquire_cb(flux_future_t *f, void *arg);

/* Before the first resource.acquire response (first) goes to the loop:
 * the hwloc topologies of the ranks the loop asks for, fetched from the
 * instance (resource.topo-get) and handed to it (and to the feasibility
 * thread's loop). */
void sg_topology_fetch(struct sched_ctx *ctx, const json_t *first);

/* ---- respond.c ---- */

/* Carry out the array of actions on top of the stack, and pop it; req is
 * the request being handled (respond and error actions answer it), or
 * NULL.  Returns how many were errors (actions of op "error"). */
int sg_act_all(struct sched_ctx *ctx, const flux_msg_t *req);

/* Forget every R commit under way (their responses are not sent). */
void sg_commits_fini(struct sched_ctx *ctx);

/* ---- annotations.c ---- */

/* The annotations at idx as JSON text (caller frees), or NULL (logged). */
char *sg_annotations_text(struct sched_ctx *ctx, int idx);

/* ---- config.c ---- */

/* Push the configuration and the module's arguments for grove.flux.module
 * (grove.flux.config reads them); *lua_dir gets lua-path= (caller frees).
 * 0, or -1 (logged). */
int sg_config_push(struct sched_ctx *ctx, int argc, char **argv, char **lua_dir);

/* The instance's configuration (a new reference; NULL when it has none)
 * in *conf, 0; or -1 (logged).  And sg_config_push's work for a Lua state
 * of its own, from such a conf: 0, or -1 (ENOMEM). */
int sg_config_get(struct sched_ctx *ctx, json_t **conf);
int sg_config_push_conf(lua_State *L, const json_t *conf, int argc, char **argv,
                        char **lua_dir);

/* The configuration changed (`flux config reload`): handed to the loop,
 * which applies it or refuses it with the reason (then `flux config
 * reload` fails and the old configuration goes on). */
void sg_config_reload_cb(flux_t *h, flux_msg_handler_t *mh, const flux_msg_t *msg, void *arg);

/* Tell the job manager the loop's ready mode again when it changed
 * (queue-depth reconfigured). */
void sg_ready_again(struct sched_ctx *ctx);

/* ---- ops.c ---- */

void sg_stats_cb(flux_t *h, flux_msg_handler_t *mh, const flux_msg_t *msg, void *arg);

/* sched-grove.CMD, the commands of `flux grove` (grove.flux.ops): those
 * that only read, and those that change the loop (a pass follows; the
 * feasibility thread's loop is given them too). */
void sg_grove_cb(flux_t *h, flux_msg_handler_t *mh, const flux_msg_t *msg, void *arg);
void sg_grove_change_cb(flux_t *h, flux_msg_handler_t *mh, const flux_msg_t *msg, void *arg);

/* Their entries of the handler table: those that only read are open to
 * the instance's users, those that change the schedule to its owner. */
#define SG_GROVE_HANDLERS                                                                  \
    {FLUX_MSGTYPE_REQUEST, MODULE_NAME ".find", sg_grove_cb, FLUX_ROLE_USER},              \
    {FLUX_MSGTYPE_REQUEST, MODULE_NAME ".why", sg_grove_cb, FLUX_ROLE_USER},               \
    {FLUX_MSGTYPE_REQUEST, MODULE_NAME ".graph", sg_grove_cb, FLUX_ROLE_USER},             \
    {FLUX_MSGTYPE_REQUEST, MODULE_NAME ".stats", sg_grove_cb, FLUX_ROLE_USER},             \
    {FLUX_MSGTYPE_REQUEST, MODULE_NAME ".reservations", sg_grove_cb, FLUX_ROLE_USER},      \
    {FLUX_MSGTYPE_REQUEST, MODULE_NAME ".set-property", sg_grove_change_cb, 0},            \
    {FLUX_MSGTYPE_REQUEST, MODULE_NAME ".remove-property", sg_grove_change_cb, 0},         \
    {FLUX_MSGTYPE_REQUEST, MODULE_NAME ".set-status", sg_grove_change_cb, 0},              \
    {FLUX_MSGTYPE_REQUEST, MODULE_NAME ".reserve", sg_grove_change_cb, 0},                 \
    {FLUX_MSGTYPE_REQUEST, MODULE_NAME ".unreserve", sg_grove_change_cb, 0},               \
    {FLUX_MSGTYPE_REQUEST, MODULE_NAME ".reload", sg_grove_change_cb, 0}

/* ---- feasibility.c ---- */

/* Start the feasibility thread: a loop of its own built from the same
 * configuration and arguments, its own connection to the broker, where it
 * registers the feasibility service.  0 once it answers (ctx->feas set),
 * or -1 (logged): the caller registers the service as before
 * (sg_feasibility_register). */
int sg_feas_start(struct sched_ctx *ctx, int argc, char **argv);

/* Hand the thread's loop what changed the main loop's resources or
 * configuration: its method name (with cmd first, when not NULL) and
 * payload, applied in the order given.  Nothing without the thread. */
void sg_feas_forward(struct sched_ctx *ctx, const char *name, const char *cmd,
                     const json_t *payload);

/* The thread's check times (time_ring_report), or NULL without it. */
json_t *sg_feas_report(struct sched_ctx *ctx);

/* Stop the thread (its service unregistered) and free it (at the end). */
void sg_feas_stop(struct sched_ctx *ctx);

#endif
