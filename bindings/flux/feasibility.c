/* feasibility.c: feasibility checks answered in a thread of their own.
 *
 * A submission's feasibility.check asks whether its jobspec could ever
 * run on the instance's resources: a satisfiability match, which reads
 * the graph's shape, its properties and the configuration but no
 * allocation, reservation or status.  Answered by the module's own loop,
 * a check waited for whatever that loop was doing (a pass's step, an
 * alloc, the collector), and at the 99th percentile that was most of it.
 * So the module starts a thread with a second loop (grove.flux, built
 * from the same configuration and arguments in a Lua state of its own)
 * and a connection of its own to the broker, where the thread registers
 * the feasibility service.  The main loop hands it what changes the
 * loop, in order, once it took it: each resource.acquire response (the
 * resources, their properties, up and down, the expiration), each
 * configuration it accepted, each `flux grove` command that changes the
 * loop (ops.c: those open to the owner alone).
 * The second loop holds no job, so it plans nothing and nothing it
 * returns but the check's answer is carried out.
 *
 * Where the thread cannot start (no local-uri, no memory, a loop that
 * does not build), the service is registered as before (protocol.c).
 * Fluxion keeps its checks in a module of its own for the same reason.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <syslog.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "sched_grove.h"

/* A change handed over: the loop's method, its first argument when not
 * NULL, the payload as JSON text. */
struct fwd {
    struct fwd *next;
    char *name, *cmd, *json;
};

struct sg_feas {
    struct sched_ctx t; /* the thread's own: handle, Lua state, loop */
    pthread_t tid;
    pthread_mutex_t lock; /* state, stop, the list, ring */
    pthread_cond_t cond;
    int state;            /* 0 starting, 1 answering, -1 failed */
    bool stop;
    struct fwd *head, **tail;
    int efd;              /* eventfd: a change handed over, or stop */
    int lost_fd;          /* eventfd: the thread ended unasked */
    flux_watcher_t *lw;   /* the module's watcher of lost_fd */
    struct time_ring ring; /* the checks, request in to answer out */
    char *uri;
    json_t *conf;
    int argc;
    char **argv;
    /* the thread's alone */
    flux_reactor_t *r;
    flux_watcher_t *ew;
    flux_msg_handler_t **mhs;
    bool registered;
    int err;              /* why it did not start (errno) */
};

static void fwd_free(struct fwd *w)
{
    if (w) {
        free(w->name);
        free(w->cmd);
        free(w->json);
        free(w);
    }
}

/* ---- in the thread ---------------------------------------------------------- */

static void check_cb(flux_t *h, flux_msg_handler_t *mh, const flux_msg_t *msg, void *arg)
{
    (void)h, (void)mh;
    struct sg_feas *f = arg;
    double t0 = alloc_stamps_clock(CLOCK_MONOTONIC);
    sg_answer(&f->t, msg, "feasibility", "jobspec");
    lua_settop(f->t.L, 0);
    double took = alloc_stamps_clock(CLOCK_MONOTONIC) - t0;
    pthread_mutex_lock(&f->lock);
    time_ring_add(&f->ring, took);
    pthread_mutex_unlock(&f->lock);
}

/* Apply one change to the thread's loop; what it returns is dropped. */
static void apply(struct sg_feas *f, const struct fwd *w)
{
    lua_State *L = f->t.L;
    json_error_t jerr;
    json_t *p = json_loads(w->json, 0, &jerr);
    if (!p) {
        flux_log(f->t.h, LOG_ERR, "%s: %s", w->name, jerr.text);
        return;
    }
    int nargs = 1;
    if (w->cmd) {
        lua_pushstring(L, w->cmd);
        nargs++;
    }
    sg_push_json(L, p);
    json_decref(p);
    if (sg_loop_call(&f->t, w->name, nargs, 1) == 0)
        lua_pop(L, 1);
    lua_settop(L, 0);
}

static void wake_cb(flux_reactor_t *r, flux_watcher_t *w, int revents, void *arg)
{
    (void)w, (void)revents;
    struct sg_feas *f = arg;
    uint64_t n;
    if (read(f->efd, &n, sizeof(n)) < 0 && errno != EAGAIN)
        flux_log_error(f->t.h, "feasibility thread: read");
    pthread_mutex_lock(&f->lock);
    struct fwd *list = f->head;
    f->head = NULL;
    f->tail = &f->head;
    bool stop = f->stop;
    pthread_mutex_unlock(&f->lock);
    while (list) {
        struct fwd *next = list->next;
        if (!stop)
            apply(f, list);
        fwd_free(list);
        list = next;
    }
    if (stop)
        flux_reactor_stop(r);
}

static const struct flux_msg_handler_spec handlers[] = {
    {FLUX_MSGTYPE_REQUEST, "feasibility.check", check_cb, FLUX_ROLE_USER},
    FLUX_MSGHANDLER_TABLE_END,
};

/* The thread's connection, loop and service.  0, or -1 (logged). */
static int thread_open(struct sg_feas *f)
{
    struct sched_ctx *t = &f->t;
    char *lua_dir = NULL;
    flux_future_t *fu = NULL;
    int rc = -1;
    if (!(t->h = flux_open(f->uri, 0)))
        return -1;
    t->rh = t->h;
    flux_log_set_appname(t->h, MODULE_NAME);
    if (!(f->r = flux_reactor_create(0)) || flux_set_reactor(t->h, f->r) < 0)
        goto done;
    if (!(t->L = luaL_newstate())) {
        errno = ENOMEM;
        goto done;
    }
    luaL_openlibs(t->L);
    lua_gc(t->L, LUA_GCGEN, 0, 0);
    if (sg_config_push_conf(t->L, f->conf, f->argc, f->argv, &lua_dir) < 0
        || sg_loop_make(t, lua_dir) < 0)
        goto done;
    if (!(f->ew = flux_fd_watcher_create(f->r, f->efd, FLUX_POLLIN, wake_cb, f))
        || flux_msg_handler_addvec(t->h, handlers, f, &f->mhs) < 0)
        goto done;
    flux_watcher_start(f->ew);
    if (!(fu = flux_service_register(t->h, "feasibility")) || flux_future_get(fu, NULL) < 0)
        goto done;
    f->registered = true;
    rc = 0;
done:
    if (rc < 0)
        f->err = errno ? errno : EINVAL;
    flux_future_destroy(fu);
    free(lua_dir);
    return rc;
}

static void thread_close(struct sg_feas *f)
{
    struct sched_ctx *t = &f->t;
    if (f->registered) {
        /* unregistered before the connection closes, so that a scheduler
         * loaded right after finds the name free; a broker that no longer
         * answers (shutting down) is not waited for */
        flux_future_t *fu = flux_service_unregister(t->h, "feasibility");
        if (fu && flux_future_wait_for(fu, 5.) == 0)
            (void)flux_future_get(fu, NULL);
        flux_future_destroy(fu);
        sg_drain_checks(t->h, check_cb, f);
    }
    flux_msg_handler_delvec(f->mhs);
    flux_watcher_destroy(f->ew);
    if (t->L)
        lua_close(t->L);
    flux_close(t->h);
    flux_reactor_destroy(f->r);
    t->L = NULL;
    t->h = t->rh = NULL;
}

static void *thread_main(void *arg)
{
    struct sg_feas *f = arg;
    int ok = thread_open(f);
    pthread_mutex_lock(&f->lock);
    f->state = ok == 0 ? 1 : -1;
    pthread_cond_signal(&f->cond);
    pthread_mutex_unlock(&f->lock);
    if (ok == 0 && flux_reactor_run(f->r, 0) < 0)
        flux_log_error(f->t.h, "feasibility thread: reactor");
    thread_close(f);
    /* ended without being asked (its connection lost): the module is told */
    pthread_mutex_lock(&f->lock);
    uint64_t one = 1;
    if (ok == 0 && !f->stop && write(f->lost_fd, &one, sizeof(one)) < 0)
        flux_log_error(f->t.h, "feasibility thread: write");
    pthread_mutex_unlock(&f->lock);
    return NULL;
}

/* ---- in the module's thread --------------------------------------------------- */

static void feas_free(struct sg_feas *f)
{
    if (!f)
        return;
    struct fwd *w = f->head;
    while (w) {
        struct fwd *next = w->next;
        fwd_free(w);
        w = next;
    }
    flux_watcher_destroy(f->lw);
    if (f->efd >= 0)
        close(f->efd);
    if (f->lost_fd >= 0)
        close(f->lost_fd);
    pthread_mutex_destroy(&f->lock);
    pthread_cond_destroy(&f->cond);
    time_ring_fini(&f->ring);
    json_decref(f->conf);
    for (int i = 0; i < f->argc; i++)
        free(f->argv[i]);
    free(f->argv);
    free(f->uri);
    free(f);
}

/* The thread ended by itself (its connection lost): checks come in on
 * the module's own connection, or its handle, from now on. */
static void lost_cb(flux_reactor_t *r, flux_watcher_t *w, int revents, void *arg)
{
    (void)r, (void)revents;
    struct sched_ctx *ctx = arg;
    flux_watcher_stop(w);
    flux_log(ctx->h, LOG_ERR, "feasibility thread ended (its connection lost): checks are "
             "answered by the module's loop from now on");
    sg_feas_stop(ctx);
    if (sg_feasibility_register(ctx) < 0)
        flux_log_error(ctx->h, "register the feasibility service");
}

int sg_feas_start(struct sched_ctx *ctx, int argc, char **argv)
{
    const char *uri = flux_attr_get(ctx->h, "local-uri");
    struct sg_feas *f = calloc(1, sizeof(*f));
    if (!f)
        return -1;
    pthread_mutex_init(&f->lock, NULL);
    pthread_cond_init(&f->cond, NULL);
    time_ring_init(&f->ring);
    f->tail = &f->head;
    f->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    f->lost_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    f->t.gc_kb = -1;
    bool ok = f->efd >= 0 && f->lost_fd >= 0
              && (f->lw = flux_fd_watcher_create(flux_get_reactor(ctx->h), f->lost_fd,
                                                 FLUX_POLLIN, lost_cb, ctx))
              && uri && (f->uri = strdup(uri)) && sg_config_get(ctx, &f->conf) == 0
              && (f->argv = calloc((size_t)argc + 1, sizeof(char *)));
    for (int i = 0; ok && i < argc; i++, f->argc++)
        ok = (f->argv[i] = strdup(argv[i])) != NULL;
    if (!ok || pthread_create(&f->tid, NULL, thread_main, f) != 0) {
        flux_log(ctx->h, LOG_DEBUG, "feasibility thread: %s",
                 uri ? strerror(errno ? errno : ENOMEM) : "no local-uri");
        feas_free(f);
        return -1;
    }
    pthread_mutex_lock(&f->lock);
    while (f->state == 0)
        pthread_cond_wait(&f->cond, &f->lock);
    int state = f->state;
    pthread_mutex_unlock(&f->lock);
    if (state < 0) {
        pthread_join(f->tid, NULL);
        flux_log(ctx->h, LOG_ERR, "feasibility thread did not start (%s): checks are answered "
                 "by the module's loop", strerror(f->err));
        feas_free(f);
        return -1;
    }
    ctx->feas = f;
    flux_watcher_start(f->lw);
    return 0;
}

/* Wake the thread (f->lock held).  A write fails only when the counter
 * is at its maximum: the thread is woken already. */
static void wake(struct sg_feas *f)
{
    uint64_t one = 1;
    if (write(f->efd, &one, sizeof(one)) < 0)
        return;
}

void sg_feas_forward(struct sched_ctx *ctx, const char *name, const char *cmd,
                     const json_t *payload)
{
    struct sg_feas *f = ctx->feas;
    if (!f || !payload)
        return;
    struct fwd *w = calloc(1, sizeof(*w));
    if (!w || !(w->name = strdup(name)) || (cmd && !(w->cmd = strdup(cmd)))
        || !(w->json = json_dumps(payload, JSON_COMPACT | JSON_ENCODE_ANY))) {
        /* the thread would answer from resources or a configuration that
         * are no longer the module's: stop it, and answer here */
        fwd_free(w);
        flux_log(ctx->h, LOG_ERR, "feasibility thread: %s not handed over (out of memory): "
                 "checks are answered by the module's loop from now on", name);
        sg_feas_stop(ctx);
        if (sg_feasibility_register(ctx) < 0)
            flux_log_error(ctx->h, "register the feasibility service");
        return;
    }
    pthread_mutex_lock(&f->lock);
    *f->tail = w;
    f->tail = &w->next;
    wake(f);
    pthread_mutex_unlock(&f->lock);
}

json_t *sg_feas_report(struct sched_ctx *ctx)
{
    struct sg_feas *f = ctx->feas;
    if (!f)
        return NULL;
    pthread_mutex_lock(&f->lock);
    json_t *o = time_ring_report(&f->ring);
    pthread_mutex_unlock(&f->lock);
    return o;
}

void sg_feas_stop(struct sched_ctx *ctx)
{
    struct sg_feas *f = ctx->feas;
    if (!f)
        return;
    pthread_mutex_lock(&f->lock);
    f->stop = true;
    wake(f);
    pthread_mutex_unlock(&f->lock);
    pthread_join(f->tid, NULL);
    ctx->feas = NULL;
    feas_free(f);
}
