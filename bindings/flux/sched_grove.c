/* sched_grove.c: sched-grove.so, a Flux broker module that makes Grove the
 * instance's scheduler; this file is the module's life.
 *
 * Workload: one broker, rank 0; from a few jobs to thousands a second, on
 * instances of up to tens of thousands of nodes.  Every message is handled
 * between two reactor turns; nothing here blocks but the start-up
 * handshake (resource.acquire's first response, the hello), which RFC 27
 * makes synchronous.
 *
 * The module is an adapter and nothing more: it turns broker messages
 * into calls of the scheduling loop's protocol object (grove.flux, Lua,
 * over grove.sched and libgrove) and the actions that object returns into
 * broker calls.  It decides nothing: which job starts, where, and what a
 * message means are all the loop's, and are tested without Flux by
 * message sequences (spec/flux_protocol_spec.lua).  The same queue and
 * placement policy files run here and in `grove sim`.  sched_grove.h
 * lists the module's rooms; this one holds mod_main, the start-up and
 * the reactor's watchers.
 *
 * Start-up (RFC 27, and the order flux-core needs):
 *   register `feasibility`, schedutil_create (which registers `sched`),
 *   flux_module_set_running (resource.acquire answers only after rc1),
 *   resource.acquire (first response: the graph, each node built with the
 *   hwloc topology the loop asks for of one rank of its shape,
 *   resource.topo-get, protocol.c), the hello (running jobs rebuilt from
 *   their R), the operator's state put back from the KVS (reservations,
 *   properties, status marks: grove.flux.state), ready (unlimited or
 *   limited=N), the reactor.
 * Passes: every event marks the loop dirty; a check watcher runs one pass
 * per reactor turn, and while more messages wait to be read it lets them
 * in first (as long as the pass has waited less than the last one took,
 * at least PASS_WAIT_S, and fewer than PASS_WAIT_TURNS turns), so a burst
 * of alloc requests or of frees costs a pass, not a pass a message, and
 * the reactor spends at most about half its time in passes under a flood.
 */
#include <dlfcn.h>
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include <lauxlib.h>
#include <lualib.h>

#include "sched_grove.h"

/* ---- the clock: a pass when a reservation comes due ------------------------------ */

static void wake_cb(flux_reactor_t *r, flux_watcher_t *w, int revents, void *arg)
{
    (void)r, (void)w, (void)revents;
    struct sched_ctx *ctx = arg;
    ctx->dirty = true;
}

static double now_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Arm the timer at the loop's next wake-up (next_wake(): the wall-clock
 * second a reservation starts), if any.  Once a reactor turn, after the
 * pass (check_cb): every event that can move it marks the loop dirty. */
static void arm_wake(struct sched_ctx *ctx)
{
    if (!ctx->wake || sg_loop_call(ctx, "next_wake", 0, 1) < 0)
        return;
    if (lua_isnumber(ctx->L, -1)) {
        double at = lua_tonumber(ctx->L, -1) - now_wall();
        flux_watcher_stop(ctx->wake);
        flux_timer_watcher_reset(ctx->wake, at > 0 ? at : 0., 0.);
        flux_watcher_start(ctx->wake);
    }
    lua_pop(ctx->L, 1);
}

/* ---- the pass ---------------------------------------------------------------- */

/* The Lua collector's work, moved out of the handlers: once started, the
 * collector is stopped and stepped here, before the reactor waits, when
 * the heap grew by a fifth since the last step (as the generational
 * collector's minor collections are paced by itself), so that a minor
 * or major collection never runs inside an alloc's handling; a job's
 * response waits on its R's commit meanwhile. */
#define GC_MIN_KB 64

static void gc_step(struct sched_ctx *ctx)
{
    lua_State *L = ctx->L;
    int kb = lua_gc(L, LUA_GCCOUNT);
    int grown = kb - ctx->gc_kb;
    if (grown < GC_MIN_KB || grown < ctx->gc_kb / 5)
        return;
    /* the debt is what was allocated since: genstep makes a minor
     * collection, or a major one when the heap doubled since the last */
    double t = alloc_stamps_clock(CLOCK_THREAD_CPUTIME_ID);
    lua_gc(L, LUA_GCSTEP, grown);
    ctx->gc_kb = lua_gc(L, LUA_GCCOUNT);
    t = alloc_stamps_clock(CLOCK_THREAD_CPUTIME_ID) - t;
    ctx->gc_steps++;
    ctx->gc_s += t;
    if (t > ctx->gc_max_s)
        ctx->gc_max_s = t;
}

/* The collector steps at every turn, a pass due or not: a module never
 * idle (a storm of cancels of a deep queue under conservative, each
 * followed by a pass that plans thousands of reservations again) took no
 * step for minutes, and its Lua heap grew to 17 GB. */
static void prep_cb(flux_reactor_t *r, flux_watcher_t *w, int revents, void *arg)
{
    (void)r, (void)w, (void)revents;
    struct sched_ctx *ctx = arg;
    /* Between two turns the Lua stack is empty: a handler that left
     * values there would, turn after turn, push past the room the C API
     * guarantees (Debian's liblua does not check) and write over the
     * heap.  Said loudly (scripts/flux-check fails on it) and cleared. */
    if (lua_gettop(ctx->L) != 0) {
        flux_log(ctx->h, LOG_ERR, "internal error: the Lua stack held %d values between two "
                 "reactor turns; cleared", lua_gettop(ctx->L));
        lua_settop(ctx->L, 0);
    }
    if (ctx->gc_kb >= 0)
        gc_step(ctx);
    if (ctx->dirty)
        flux_watcher_start(ctx->idle); /* don't block: a pass is due */
}

#define PASS_WAIT_S 0.02
#define PASS_WAIT_TURNS 4096

/* Whether a due pass waits: messages are waiting to be read, and it has
 * not yet waited as long as the last pass took (PASS_WAIT_S at least) or
 * PASS_WAIT_TURNS turns. */
static bool pass_waits(struct sched_ctx *ctx)
{
    if (!(flux_pollevents(ctx->h) & FLUX_POLLIN))
        return false;
    double wait = ctx->pass_took > PASS_WAIT_S ? ctx->pass_took : PASS_WAIT_S;
    if (ctx->deferred >= PASS_WAIT_TURNS
        || alloc_stamps_clock(CLOCK_MONOTONIC) - ctx->pass_end >= wait)
        return false;
    ctx->deferred++;
    return true;
}

static void check_cb(flux_reactor_t *r, flux_watcher_t *w, int revents, void *arg)
{
    (void)r, (void)w, (void)revents;
    struct sched_ctx *ctx = arg;
    flux_watcher_stop(ctx->idle);
    if (!ctx->dirty || pass_waits(ctx))
        return;
    ctx->dirty = false;
    ctx->deferred = 0;
    double t0 = alloc_stamps_clock(CLOCK_MONOTONIC);
    ctx->passing = true;
    ctx->served_next = t0;
    int rc = sg_loop_call(ctx, "schedule", 0, 1);
    ctx->passing = false;
    sg_held_requeue(ctx);
    if (rc == 0)
        sg_act_all(ctx, NULL);
    ctx->pass_end = alloc_stamps_clock(CLOCK_MONOTONIC);
    ctx->pass_took = ctx->pass_end - t0;
    arm_wake(ctx);
}

/* Give the memory the module freed back to the system.  The module's
 * thread runs in the broker's process, whose allocator keeps what is
 * freed for later use; what a module of 16,384 nodes freed at its
 * removal stayed resident, and a reload placed the new graph beside it
 * only in part: the broker grew 20-30 MB at each reload, and the
 * removal gave none back (bench/RESULTS.md, "The soak, fourth
 * attempt").  Called after the module has freed everything at its end,
 * when no thread of its own runs.  Not when the graph is built: it was
 * taken out of start-up while a heap corruption at start-up was looked
 * for, whose cause was the module's change of the broker's environment
 * (see note_findable_by_name); the build's temporaries are few beside
 * what a removal frees. */
static void release_freed(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

/* job-manager.resource-status's answer to the loop, its allocated R as
 * text (as a hello's R): read into Lua tables, the empty R_lite array of
 * a job manager that holds nothing would come back an object. */
static void reconcile(struct sched_ctx *ctx, json_t *st)
{
    const json_t *alloc = json_object_get(st, "allocated");
    char *text = alloc ? json_dumps(alloc, JSON_COMPACT) : NULL;
    json_t *p = text ? json_pack("{s:s}", "allocated", text) : json_incref(st);
    if (p)
        sg_event(ctx, "reconcile", p, NULL);
    json_decref(p);
    free(text);
}

/* What the operator set with `flux grove` that outlives a module (the
 * loop's state_key in the KVS), handed to the loop to put back, and to
 * the feasibility thread's loop (properties are part of what a check
 * reads).  Nothing kept (ENOENT): nothing to do. */
static void restore(struct sched_ctx *ctx)
{
    if (sg_loop_call(ctx, "state_key", 0, 1) < 0)
        return;
    char *key = lua_isstring(ctx->L, -1) ? strdup(lua_tostring(ctx->L, -1)) : NULL;
    lua_pop(ctx->L, 1);
    flux_future_t *f = key ? flux_kvs_lookup(ctx->h, NULL, 0, key) : NULL;
    const char *text = NULL;
    if (!f || flux_kvs_lookup_get(f, &text) < 0) {
        if (errno != ENOENT)
            flux_log_error(ctx->h, "reading the operator's state at %s", key ? key : "?");
    } else {
        json_t *p = json_pack("{s:s}", "state", text);
        if (p) {
            sg_event(ctx, "restore", p, NULL);
            sg_feas_forward(ctx, "restore", NULL, p);
        }
        json_decref(p);
    }
    flux_future_destroy(f);
    free(key);
}

static int start(struct sched_ctx *ctx, int argc, char **argv)
{
    flux_t *h = ctx->h;
    if (sg_feas_start(ctx, argc, argv) < 0 && sg_feasibility_register(ctx) < 0)
        return -1;
    if (flux_msg_handler_addvec(h, sg_handlers, ctx, &ctx->handlers) < 0) {
        flux_log_error(h, "message handlers");
        return -1;
    }
    if (!(ctx->util = schedutil_create(h, SCHEDUTIL_HELLO_PARTIAL_OK, &sg_sched_ops, ctx))) {
        flux_log_error(h, "schedutil_create");
        return -1;
    }
    flux_reactor_t *r = flux_get_reactor(h);
    if (!(ctx->prep = flux_prepare_watcher_create(r, prep_cb, ctx))
        || !(ctx->check = flux_check_watcher_create(r, check_cb, ctx))
        || !(ctx->idle = flux_idle_watcher_create(r, NULL, NULL))
        || !(ctx->wake = flux_timer_watcher_create(r, 0., 0., wake_cb, ctx)))
        return -1;
    /* resource.acquire answers only once rc1 is over: be running first */
    if (flux_module_set_running(h) < 0) {
        flux_log_error(h, "flux_module_set_running");
        return -1;
    }
    if (!(ctx->acquire = flux_rpc(h, "resource.acquire", NULL, FLUX_NODEID_ANY,
                                  FLUX_RPC_STREAMING))) {
        flux_log_error(h, "resource.acquire");
        return -1;
    }
    json_t *p = NULL;
    if (flux_rpc_get_unpack(ctx->acquire, "o", &p) < 0) {
        flux_log_error(h, "resource.acquire");
        return -1;
    }
    sg_topology_fetch(ctx, p);
    if (sg_event(ctx, "acquire", p, NULL) < 0)
        return -1;
    flux_future_reset(ctx->acquire);
    if (flux_future_then(ctx->acquire, -1., sg_acquire_cb, ctx) < 0)
        return -1;
    if (schedutil_hello(ctx->util) < 0) {
        flux_log_error(h, "hello");
        return -1;
    }
    restore(ctx);
    if (schedutil_ready(ctx->util, ctx->ready_mode, NULL) < 0) {
        flux_log_error(h, "ready");
        return -1;
    }
    sg_event(ctx, "announce", NULL, NULL); /* the "ready: ..." log line */
    /* what the job manager holds allocated now: a job of the hello that
     * ended before ready was never freed to anyone (the loop releases it) */
    json_t *st = NULL;
    flux_future_t *rf = flux_rpc(h, "job-manager.resource-status", NULL, 0, 0);
    if (rf && flux_rpc_get_unpack(rf, "o", &st) == 0)
        reconcile(ctx, st);
    else
        flux_log(h, LOG_DEBUG, "job-manager.resource-status: %s", strerror(errno));
    flux_future_destroy(rf);
    flux_watcher_start(ctx->prep);
    flux_watcher_start(ctx->check);
    ctx->dirty = true;
    lua_gc(ctx->L, LUA_GCSTOP);
    ctx->gc_kb = lua_gc(ctx->L, LUA_GCCOUNT);
    return 0;
}

static void ctx_destroy(struct sched_ctx *ctx)
{
    if (!ctx)
        return;
    int e = errno;
    flux_watcher_destroy(ctx->prep);
    flux_watcher_destroy(ctx->check);
    flux_watcher_destroy(ctx->idle);
    flux_watcher_destroy(ctx->wake);
    flux_msg_handler_delvec(ctx->handlers);
    sg_feas_stop(ctx);
    sg_feasibility_close(ctx);
    schedutil_destroy(ctx->util); /* answers ENOSYS to what is still pending */
    sg_commits_fini(ctx);
    flux_future_destroy(ctx->acquire);
    while (ctx->nheld > 0) /* none: each pass puts them back */
        flux_msg_destroy(ctx->held[--ctx->nheld]);
    free(ctx->held);
    if (ctx->L) {
        sg_msgs_fini(ctx);
        lua_close(ctx->L);
    }
    alloc_stamps_fini(&ctx->stamps);
    time_ring_fini(&ctx->feasibility);
    free(ctx);
    errno = e;
}

/* `flux module reload sched-grove` (by name) removes the module, then has
 * the broker find sched-grove.so in its search path, FLUX_MODULE_PATH in
 * the broker's environment: a module loaded by path from elsewhere (a
 * build tree, a modprobe entry's module =) is not found there, and the
 * instance is left with no scheduler.  The module says so at load, with
 * the two ways out: reload by path, or start the instance with the
 * directory in FLUX_MODULE_PATH_PREPEND.
 *
 * It does not put its directory into the broker's FLUX_MODULE_PATH
 * itself, as it once did.  The environment is the whole process's, and
 * other modules' threads copy it while the module starts (job-ingest,
 * job-exec, housekeeping: flux_cmd_create(..., environ), which measures
 * every string, then copies them): a setenv between the two passes gave
 * the copy a longer string than it had room for, and the broker's heap
 * was found corrupt at start-up ("malloc(): corrupted top size", in
 * job-ingest's thread, beside this module's first setenv).  Reading the
 * variable is safe; changing it in a running broker is not. */
static void note_findable_by_name(flux_t *h)
{
    Dl_info info;
    if (!dladdr((void *)note_findable_by_name, &info) || !info.dli_fname
        || info.dli_fname[0] != '/')
        return;
    const char *slash = strrchr(info.dli_fname, '/');
    size_t dlen = (size_t)(slash - info.dli_fname);
    const char *path = getenv("FLUX_MODULE_PATH");
    for (const char *p = path; p && *p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == dlen && !strncmp(p, info.dli_fname, dlen))
            return;
        p = end ? end + 1 : NULL;
    }
    flux_log(h, LOG_WARNING,
             "loaded from %.*s, which is not in FLUX_MODULE_PATH: `flux module reload "
             "sched-grove` would not find it again; reload it by path (flux module reload %s), "
             "or start the instance with FLUX_MODULE_PATH_PREPEND=%.*s",
             (int)dlen, info.dli_fname, info.dli_fname, (int)dlen, info.dli_fname);
}

/* The module's entry point: the broker calls it in the module's thread. */
__attribute__((visibility("default"))) int mod_main(flux_t *h, int argc, char **argv);

int mod_main(flux_t *h, int argc, char **argv)
{
    struct sched_ctx *ctx = calloc(1, sizeof(*ctx));
    char *lua_dir = NULL;
    int rc = -1;
    if (!ctx)
        return -1;
    ctx->h = ctx->rh = h;
    ctx->gc_kb = -1;
    note_findable_by_name(h);
    alloc_stamps_init(&ctx->stamps); /* none kept without the memory */
    time_ring_init(&ctx->feasibility);
    if (!(ctx->L = luaL_newstate())) {
        alloc_stamps_fini(&ctx->stamps);
        time_ring_fini(&ctx->feasibility);
        free(ctx);
        errno = ENOMEM;
        return -1;
    }
    luaL_openlibs(ctx->L);
    /* generational: most of what a message makes dies with it, and minor
     * collections of the young objects replace the incremental cycles
     * over the whole heap that a long queue made slow (the p99) */
    lua_gc(ctx->L, LUA_GCGEN, 0, 0);
    if (sg_config_push(ctx, argc, argv, &lua_dir) < 0 || sg_loop_make(ctx, lua_dir) < 0
        || sg_between_install(ctx) < 0 || start(ctx, argc, argv) < 0)
        goto done;
    if (flux_reactor_run(flux_get_reactor(h), 0) < 0 && !ctx->stopping) {
        flux_log_error(h, "reactor");
        goto done;
    }
    rc = 0;
done:
    free(lua_dir);
    ctx_destroy(ctx);
    release_freed();
    return rc;
}
