/* protocol.c: the messages a Flux scheduler gets, decoded and handed to
 * the scheduling loop.
 *
 * RFC 27 through libschedutil (hello, alloc, free, cancel, prioritize),
 * RFC 28's resource.acquire responses after the first, and the requests
 * a scheduler answers itself (feasibility.check, sched.expiration,
 * sched.resource-status).  Each handler reads its message into the
 * shape the loop's method takes, calls it, and hands the actions to
 * respond.c; a pass follows at the end of the reactor turn (the module's
 * check watcher).  The requests that come most (alloc, free) are read
 * flat from their text, without a JSON tree.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <lauxlib.h>

#include "json_private.h"
#include "sched_grove.h"

/* ---- RFC 27 through libschedutil -------------------------------------------- */

static json_t *payload_of(flux_t *h, const flux_msg_t *msg)
{
    json_t *o = NULL;
    if (flux_msg_unpack(msg, "o", &o) < 0) {
        flux_log_error(h, "bad payload");
        return NULL;
    }
    return o; /* borrowed from msg */
}

/* Push the request p as the loop reads it: its fields keys (scalars)
 * as they are, and its field text_key as its JSON text rather than as
 * Lua tables made again for every message (an alloc's jobspec: the loop
 * reads each distinct text once, and a stream of jobs names a few; a
 * free's R: read only when the free is partial). */
static void push_request(lua_State *L, const json_t *p, const char *const *keys, size_t nkeys,
                         const char *text_key)
{
    lua_createtable(L, 0, (int)nkeys + 1);
    for (size_t i = 0; i < nkeys; i++) {
        sg_push_json(L, json_object_get(p, keys[i]));
        lua_setfield(L, -2, keys[i]);
    }
    const json_t *v = json_object_get(p, text_key);
    char *text = json_is_object(v) ? json_dumps(v, JSON_COMPACT) : NULL;
    if (text)
        lua_pushstring(L, text);
    else
        sg_push_json(L, v);
    free(text);
    lua_setfield(L, -2, text_key);
}

/* ---- a request's text read flat ----------------------------------------------
 *
 * The requests the loop gets most (alloc, free) are an object of scalars
 * and one object (the jobspec, R) that the loop wants as text.  Their
 * payload's text is read here by libgrove's streaming JSON reader
 * (core/json.c), without a tree: the integers, reals and booleans pushed
 * as Lua values, the object's text span pushed as a string.  Anything else
 * (a string, null, an array, another object) makes it give up, and the
 * caller reads the payload through jansson as before, so what a message
 * means never depends on which reader took it. */

struct flat {
    lua_State *L;
    const char *text_key;
};

static int flat_member(grovep_json_t *js, const char *key, size_t klen, const grovep_jval_t *v,
                       void *arg)
{
    struct flat *f = arg;
    int kind = grovep_json_kind(js, v);
    bool text = kind == GROVEP_J_OBJECT && strlen(f->text_key) == klen
                && !memcmp(key, f->text_key, klen);
    if (!text && kind != GROVEP_J_INT && kind != GROVEP_J_REAL && kind != GROVEP_J_TRUE
        && kind != GROVEP_J_FALSE)
        return -1; /* not of the plain shape: jansson reads it */
    size_t start = grovep_json_pos(js);
    if (grovep_json_skip(js, 1) < 0)
        return -1;
    const char *t = js->text + start;
    size_t n = js->cur - start;
    char num[64];
    if (text) {
        lua_pushlstring(f->L, t, n);
    } else if (kind == GROVEP_J_TRUE || kind == GROVEP_J_FALSE) {
        lua_pushboolean(f->L, kind == GROVEP_J_TRUE);
    } else {
        if (n >= sizeof(num))
            return -1;
        memcpy(num, t, n);
        num[n] = '\0';
        if (!lua_stringtonumber(f->L, num))
            return -1;
    }
    lua_pushlstring(f->L, key, klen);
    lua_insert(f->L, -2);
    lua_rawset(f->L, -3);
    return 0;
}

/* Push the request text as the loop reads it (a table: the scalars as
 * Lua values, member text_key as its text); false, nothing pushed, when
 * the text is not of that plain shape. */
static bool push_request_text(lua_State *L, const char *text, const char *text_key)
{
    grove_error_t err;
    grovep_json_t js = {.text = text, .len = strlen(text), .err = &err};
    grovep_jval_t v = {NULL};
    struct flat f = {L, text_key};
    int top = lua_gettop(L);
    lua_createtable(L, 0, 6);
    bool ok = grovep_json_object(&js, &v, flat_member, &f) == 1 && grovep_json_at_end(&js);
    grovep_json_free(&js);
    if (!ok)
        lua_settop(L, top);
    return ok;
}

/* Push the request msg as the loop reads it (push_request_text, or
 * through jansson: push_request), and its id in *id; false (logged) when
 * it has no payload or no integer id. */
static bool push_request_msg(struct sched_ctx *ctx, const flux_msg_t *msg,
                             const char *const *keys, size_t nkeys, const char *text_key,
                             lua_Integer *id)
{
    lua_State *L = ctx->L;
    const char *text = NULL;
    if (flux_msg_get_string(msg, &text) == 0 && text && push_request_text(L, text, text_key)) {
        lua_getfield(L, -1, "id");
        int isint = lua_isinteger(L, -1);
        *id = lua_tointeger(L, -1);
        lua_pop(L, 1);
        if (isint)
            return true;
        lua_pop(L, 1);
        return false;
    }
    json_t *p = payload_of(ctx->h, msg);
    json_int_t jid;
    if (!p || json_unpack(p, "{s:I}", "id", &jid) < 0)
        return false;
    *id = (lua_Integer)jid;
    push_request(L, p, keys, nkeys, text_key);
    return true;
}

static void serve_waiting(struct sched_ctx *ctx);

static void alloc_cb(flux_t *h, const flux_msg_t *msg, void *arg)
{
    struct sched_ctx *ctx = arg;
    /* message in: before anything of it is read */
    struct alloc_stamp st;
    alloc_stamp_in(&st);
    static const char *const keys[] = {"id", "priority", "userid", "t_submit"};
    lua_Integer id;
    if (!push_request_msg(ctx, msg, keys, sizeof(keys) / sizeof(keys[0]), "jobspec", &id)) {
        flux_log(h, LOG_ERR, "alloc: a request without id");
        return;
    }
    sg_msgs_put(ctx, id, msg, &st);
    int rc = sg_loop_call(ctx, "alloc", 1, 1) < 0 ? -1 : sg_act_all(ctx, NULL) ? -1 : 0;
    if (rc < 0 && sg_msgs_get(ctx, (lua_Integer)id)) {
        schedutil_alloc_respond_deny(ctx->util, msg, "scheduler error (see the broker's log)");
        sg_msgs_drop(ctx, (lua_Integer)id);
    }
    ctx->dirty = true;
    serve_waiting(ctx);
}

/* Hand msg's payload (when it has one) to the loop's method name; a pass
 * follows either way. */
static void payload_event(struct sched_ctx *ctx, flux_t *h, const flux_msg_t *msg,
                          const char *name)
{
    json_t *p = payload_of(h, msg);
    if (p)
        sg_event(ctx, name, p, NULL);
    ctx->dirty = true;
}

static void free_cb(flux_t *h, const flux_msg_t *msg, const char *R, void *arg)
{
    (void)R; /* NULL: R is in the payload */
    static const char *const keys[] = {"id", "final"};
    struct sched_ctx *ctx = arg;
    lua_Integer id;
    if (push_request_msg(ctx, msg, keys, sizeof(keys) / sizeof(keys[0]), "R", &id)) {
        if (sg_loop_call(ctx, "free", 1, 1) == 0)
            sg_act_all(ctx, NULL);
    } else {
        flux_log(h, LOG_ERR, "free: a request without id");
    }
    ctx->dirty = true;
}

static void cancel_cb(flux_t *h, const flux_msg_t *msg, void *arg)
{
    payload_event(arg, h, msg, "cancel");
}

static void prioritize_cb(flux_t *h, const flux_msg_t *msg, void *arg)
{
    payload_event(arg, h, msg, "prioritize");
}

/* A running job at start-up: its hello entry and R (the free ranks
 * already taken out by libschedutil).  -1 makes libschedutil raise a
 * fatal exception on the job. */
static int hello_cb(flux_t *h, const flux_msg_t *msg, const char *R, void *arg)
{
    struct sched_ctx *ctx = arg;
    json_t *p = payload_of(h, msg);
    json_t *job = p ? json_deep_copy(p) : NULL;
    if (!job || !R || json_object_set_new(job, "R", json_string(R)) < 0) {
        json_decref(job);
        errno = EPROTO;
        return -1;
    }
    json_object_del(job, "free");
    int rc = sg_event(ctx, "hello", job, NULL);
    json_decref(job);
    if (rc < 0) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

const struct schedutil_ops sg_sched_ops = {
    .hello = hello_cb,
    .alloc = alloc_cb,
    .free = free_cb,
    .cancel = cancel_cb,
    .prioritize = prioritize_cb,
};

/* ---- requests the module answers itself --------------------------------------- */

/* A request the loop answers with respond or error actions. */
void sg_answer(struct sched_ctx *ctx, const flux_msg_t *msg, const char *name,
               const char *text_key)
{
    json_t *p = NULL;
    const char *text = NULL;
    if (flux_request_unpack(msg, NULL, "o", &p) < 0) {
        flux_respond_error(ctx->rh, msg, EPROTO, NULL);
        return;
    }
    /* the member text_key as its JSON text, as alloc's jobspec: read into
     * Lua tables and back, an empty {} would not stay an object */
    if (!text_key)
        sg_push_json(ctx->L, p);
    else if (flux_msg_get_string(msg, &text) < 0 || !text
             || !push_request_text(ctx->L, text, text_key))
        push_request(ctx->L, p, NULL, 0, text_key);
    if (sg_loop_call(ctx, name, 1, 1) < 0) {
        flux_respond_error(ctx->rh, msg, EINVAL, "scheduler error (see the broker's log)");
        return;
    }
    sg_act_all(ctx, msg);
}

static void expiration_cb(flux_t *h, flux_msg_handler_t *mh, const flux_msg_t *msg, void *arg)
{
    (void)h, (void)mh;
    struct sched_ctx *ctx = arg;
    sg_answer(ctx, msg, "expiration", NULL);
    ctx->dirty = true;
}

/* A feasibility check that came in on h (the module's handle or its
 * own connection, ctx->fh), answered there.  It changes nothing, so no
 * pass follows it. */
static void feasibility_cb(flux_t *h, flux_msg_handler_t *mh, const flux_msg_t *msg, void *arg)
{
    (void)mh;
    struct sched_ctx *ctx = arg;
    double t0 = alloc_stamps_clock(CLOCK_MONOTONIC);
    ctx->rh = h;
    sg_answer(ctx, msg, "feasibility", "jobspec");
    ctx->rh = ctx->h;
    time_ring_add(&ctx->feasibility, alloc_stamps_clock(CLOCK_MONOTONIC) - t0);
}

static void status_cb(flux_t *h, flux_msg_handler_t *mh, const flux_msg_t *msg, void *arg)
{
    (void)mh;
    struct sched_ctx *ctx = arg;
    if (sg_loop_call(ctx, "resource_status", 0, 1) < 0) {
        flux_respond_error(h, msg, EINVAL, "scheduler error (see the broker's log)");
        return;
    }
    sg_act_all(ctx, msg);
}

const struct flux_msg_handler_spec sg_handlers[] = {
    {FLUX_MSGTYPE_REQUEST, "sched.expiration", expiration_cb, 0},
    {FLUX_MSGTYPE_REQUEST, "sched.resource-status", status_cb, FLUX_ROLE_USER},
    {FLUX_MSGTYPE_REQUEST, "feasibility.check", feasibility_cb, FLUX_ROLE_USER},
    {FLUX_MSGTYPE_REQUEST, MODULE_NAME ".stats-get", sg_stats_cb, FLUX_ROLE_USER},
    {FLUX_MSGTYPE_REQUEST, MODULE_NAME ".config-reload", sg_config_reload_cb, 0},
    SG_GROVE_HANDLERS,
    FLUX_MSGHANDLER_TABLE_END,
};

/* ---- requests answered inside a pass, and ahead of allocs ----------------------- */

/* A pass over a deep queue can take longer than a client waits for an
 * answer that only reads (a submission's feasibility check, `flux
 * resource list`, `flux module stats`), and so can a burst of thousands
 * of alloc requests queued ahead of it.  The loop calls between
 * (grove.sched's step) at each step of a pass, where its state is whole,
 * and alloc_cb calls serve_waiting after each alloc: at most every
 * BETWEEN_S (or ten times what the last look's reading took) the
 * messages waiting on the handle are read, those of these topics
 * answered there (inside a pass through the loop's aside, so that the
 * pass's own actions and clock stay out of the answer) and every other
 * kept aside, in its order, until the pass ends (sg_held_requeue): then
 * they go back to the head of the handle's queue, in the same order,
 * for the reactor to hand out.  So a look reads each message once a
 * pass: flux_recv with a match takes every queued message out and puts
 * it back at each call, and one call a topic made a look cost three
 * times the queue (tens of ms behind the job manager's burst of alloc
 * requests at a reload), which the look's back-off then turned into
 * answers waiting tens of ms.  Only on the Lua state's main thread,
 * where the pass runs. */
#define BETWEEN_S 0.0005

static const struct {
    const char *topic;
    flux_msg_handler_f cb;
} aside[] = {
    {"feasibility.check", feasibility_cb},
    {"sched.resource-status", status_cb},
    {MODULE_NAME ".stats-get", sg_stats_cb},
};

/* The handler of msg when it is a request answered aside, else NULL. */
static flux_msg_handler_f aside_of(const flux_msg_t *msg)
{
    int type;
    const char *topic;
    if (flux_msg_get_type(msg, &type) < 0 || type != FLUX_MSGTYPE_REQUEST
        || flux_msg_get_topic(msg, &topic) < 0)
        return NULL;
    for (size_t i = 0; i < sizeof(aside) / sizeof(aside[0]); i++)
        if (strcmp(topic, aside[i].topic) == 0)
            return aside[i].cb;
    return NULL;
}

/* Keep msg (ours now) until the pass ends; false when there is no room
 * (the caller puts it back at once). */
static bool hold(struct sched_ctx *ctx, flux_msg_t *msg)
{
    if (ctx->nheld == ctx->held_cap) {
        size_t cap = ctx->held_cap ? 2 * ctx->held_cap : 256;
        flux_msg_t **a = realloc(ctx->held, cap * sizeof(*a));
        if (!a)
            return false;
        ctx->held = a;
        ctx->held_cap = cap;
    }
    ctx->held[ctx->nheld++] = msg;
    return true;
}

void sg_held_requeue(struct sched_ctx *ctx)
{
    /* the last first, each to the head: the first ends up first */
    while (ctx->nheld > 0) {
        flux_msg_t *msg = ctx->held[--ctx->nheld];
        if (flux_requeue(ctx->h, msg, FLUX_RQ_HEAD) < 0)
            flux_log_error(ctx->h, "a message read aside could not be put back");
        flux_msg_destroy(msg);
    }
}

static void serve_waiting(struct sched_ctx *ctx)
{
    if (ctx->in_serve)
        return;
    double now = alloc_stamps_clock(CLOCK_MONOTONIC);
    if (now < ctx->served_next)
        return;
    ctx->served_next = now + BETWEEN_S;
    if (!(flux_pollevents(ctx->h) & FLUX_POLLIN))
        return;
    lua_State *L = ctx->L;
    int top = lua_gettop(L);
    ctx->in_serve = true;
    ctx->serving = ctx->passing;
    double answering = 0;
    flux_msg_t *msg;
    while ((msg = flux_recv(ctx->h, FLUX_MATCH_ANY, FLUX_O_NONBLOCK))) {
        flux_msg_handler_f cb = aside_of(msg);
        if (!cb) {
            if (!hold(ctx, msg)) {
                if (flux_requeue(ctx->h, msg, FLUX_RQ_HEAD) < 0)
                    flux_log_error(ctx->h, "a message read aside could not be put back");
                flux_msg_destroy(msg);
                break;
            }
            continue;
        }
        double t = alloc_stamps_clock(CLOCK_MONOTONIC);
        cb(ctx->h, NULL, msg, ctx);
        answering += alloc_stamps_clock(CLOCK_MONOTONIC) - t;
        flux_msg_destroy(msg);
        if (ctx->passing)
            ctx->served++;
        else
            ctx->served_ahead++;
    }
    ctx->serving = false;
    ctx->in_serve = false;
    lua_settop(L, top);
    /* outside a pass (after an alloc) what was read goes back at once */
    if (!ctx->passing)
        sg_held_requeue(ctx);
    /* a look reads what came since the last one (inside a pass) or the
     * whole queue (after an alloc: behind a burst of tens of thousands of
     * alloc requests, tens of ms): the next look waits ten times what this
     * one's reading took, so that looking stays under a tenth of the
     * time; answering is the look's work, not its cost */
    double cost = alloc_stamps_clock(CLOCK_MONOTONIC) - now - answering;
    if (now + 10 * cost > ctx->served_next)
        ctx->served_next = now + 10 * cost;
}

/* ---- feasibility checks on a connection of their own ---------------------------- */

/* A submission's check waited for what was queued ahead of it on the
 * module's handle: the job manager's alloc requests of the same
 * submissions (each read and put back at every look, whose back-off grows
 * with them) and the pass's steps.  So the module opens a second
 * connection to its broker (the broker's local-uri), in the module's own
 * thread and reactor, and registers the feasibility service there: that
 * queue holds only checks.  Outside a pass the reactor hands them out
 * between two messages of the handle; inside one, each step looks at it
 * (at most every SIDE_S: a poll, two system calls, so not at each of a
 * pass's 10,000 steps, and not a read of the handle's queue).  Its
 * answers use the same loop, through the same aside.  Where the
 * connection cannot be opened or the service not registered on it, the
 * service is the module's handle's, as before. */
#define SIDE_S 0.0005

static void fallback_cb(flux_future_t *f, void *arg)
{
    struct sched_ctx *ctx = arg;
    if (flux_future_get(f, NULL) < 0)
        flux_log_error(ctx->h, "register the feasibility service on the module's handle");
    flux_future_destroy(f);
}

/* The connection failed: its watcher stopped, and the service registered
 * on the module's handle (the broker dropped the connection's). */
static void side_lost(struct sched_ctx *ctx, const char *why)
{
    flux_log(ctx->h, LOG_ERR, "feasibility connection: %s: checks now come in on the module's "
             "handle", why);
    flux_watcher_stop(ctx->fw);
    ctx->side_lost = true;
    flux_future_t *f = flux_service_register(ctx->h, "feasibility");
    if (!f || flux_future_then(f, -1., fallback_cb, ctx) < 0) {
        flux_log_error(ctx->h, "register the feasibility service on the module's handle");
        flux_future_destroy(f);
    }
}

/* Answer what waits on ctx->fh; false when the connection failed. */
static bool serve_side(struct sched_ctx *ctx)
{
    flux_msg_t *msg;
    while ((msg = flux_recv(ctx->fh, FLUX_MATCH_ANY, FLUX_O_NONBLOCK))) {
        int type;
        const char *topic;
        if (flux_msg_get_type(msg, &type) == 0 && type == FLUX_MSGTYPE_REQUEST
            && flux_msg_get_topic(msg, &topic) == 0) {
            if (strcmp(topic, "feasibility.check") == 0) {
                feasibility_cb(ctx->fh, NULL, msg, ctx);
                if (ctx->passing)
                    ctx->served++;
            } else if (flux_respond_error(ctx->fh, msg, ENOSYS, NULL) < 0) {
                flux_log_error(ctx->h, "feasibility connection: respond");
            }
        }
        flux_msg_destroy(msg);
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK)
        return true;
    side_lost(ctx, strerror(errno));
    return false;
}

static void side_cb(flux_reactor_t *r, flux_watcher_t *w, int revents, void *arg)
{
    (void)r, (void)w;
    struct sched_ctx *ctx = arg;
    if (revents & FLUX_POLLERR)
        side_lost(ctx, "lost");
    else
        serve_side(ctx);
}

/* Inside a pass: what waits on ctx->fh, answered through the aside. */
static void serve_side_aside(struct sched_ctx *ctx)
{
    if (!ctx->fh || ctx->side_lost || ctx->in_serve)
        return;
    double now = alloc_stamps_clock(CLOCK_MONOTONIC);
    if (now < ctx->side_next)
        return;
    ctx->side_next = now + SIDE_S;
    if (!(flux_pollevents(ctx->fh) & FLUX_POLLIN))
        return;
    lua_State *L = ctx->L;
    int top = lua_gettop(L);
    ctx->in_serve = true;
    ctx->serving = true;
    serve_side(ctx);
    ctx->serving = false;
    ctx->in_serve = false;
    lua_settop(L, top);
}

/* The connection, or NULL (logged at debug: the caller falls back). */
static flux_t *side_open(struct sched_ctx *ctx)
{
    const char *uri = flux_attr_get(ctx->h, "local-uri");
    flux_t *fh = uri ? flux_open(uri, 0) : NULL;
    if (!fh) {
        flux_log(ctx->h, LOG_DEBUG, "feasibility connection: %s",
                 uri ? strerror(errno) : "no local-uri");
        return NULL;
    }
    flux_future_t *f = NULL;
    if (flux_set_reactor(fh, flux_get_reactor(ctx->h)) < 0
        || !(f = flux_service_register(fh, "feasibility")) || flux_future_get(f, NULL) < 0) {
        flux_log(ctx->h, LOG_DEBUG, "feasibility connection: register: %s", strerror(errno));
        flux_future_destroy(f);
        flux_close(fh);
        return NULL;
    }
    flux_future_destroy(f);
    return fh;
}

int sg_feasibility_register(struct sched_ctx *ctx)
{
    flux_t *h = ctx->h;
    if ((ctx->fh = side_open(ctx))) {
        if ((ctx->fw = flux_handle_watcher_create(flux_get_reactor(h), ctx->fh, FLUX_POLLIN,
                                                  side_cb, ctx))) {
            flux_watcher_start(ctx->fw);
            return 0;
        }
        sg_feasibility_close(ctx);
    }
    flux_future_t *f;
    if (!(f = flux_service_register(h, "feasibility")) || flux_future_get(f, NULL) < 0) {
        flux_log_error(h, "register the feasibility service");
        flux_future_destroy(f);
        return -1;
    }
    flux_future_destroy(f);
    return 0;
}

void sg_drain_checks(flux_t *h, flux_msg_handler_f cb, void *arg)
{
    flux_msg_t *msg;
    while ((msg = flux_recv(h, FLUX_MATCH_REQUEST, FLUX_O_NONBLOCK))) {
        const char *topic;
        if (flux_msg_get_topic(msg, &topic) == 0 && !strcmp(topic, "feasibility.check"))
            cb(h, NULL, msg, arg);
        else if (flux_respond_error(h, msg, ENOSYS, NULL) < 0)
            flux_log_error(h, "feasibility: respond");
        flux_msg_destroy(msg);
    }
}

void sg_feasibility_close(struct sched_ctx *ctx)
{
    flux_watcher_destroy(ctx->fw);
    ctx->fw = NULL;
    if (!ctx->fh || ctx->side_lost)
        goto close;
    /* unregistered before the connection closes, so that a scheduler
     * loaded right after finds the name free (the broker learns of a
     * closed connection later); a broker that no longer answers on it
     * (shutting down) is not waited for */
    flux_future_t *f = flux_service_unregister(ctx->fh, "feasibility");
    if (f && flux_future_wait_for(f, 5.) == 0)
        (void)flux_future_get(f, NULL);
    flux_future_destroy(f);
    sg_drain_checks(ctx->fh, feasibility_cb, ctx);
close:
    flux_close(ctx->fh);
    ctx->fh = NULL;
}

static int between(lua_State *L)
{
    struct sched_ctx *ctx = lua_touserdata(L, lua_upvalueindex(1));
    if (!ctx->passing)
        return 0;
    int main_thread = lua_pushthread(L);
    lua_pop(L, 1);
    if (main_thread && L == ctx->L) {
        serve_side_aside(ctx);
        serve_waiting(ctx);
    }
    return 0;
}

int sg_between_install(struct sched_ctx *ctx)
{
    lua_State *L = ctx->L;
    lua_pushlightuserdata(L, ctx);
    lua_pushcclosure(L, between, 1);
    return sg_loop_call(ctx, "set_between", 1, 0);
}

/* ---- resource.acquire (RFC 28) ---------------------------------------------- */

void sg_acquire_cb(flux_future_t *f, void *arg)
{
    struct sched_ctx *ctx = arg;
    json_t *p = NULL;
    if (flux_rpc_get_unpack(f, "o", &p) < 0) {
        /* resource unloaded first at shutdown: a clean stop */
        if (errno == ECANCELED || errno == ENOSYS) {
            ctx->stopping = true;
            flux_reactor_stop(flux_get_reactor(ctx->h));
        } else {
            flux_log_error(ctx->h, "resource.acquire");
            flux_reactor_stop_error(flux_get_reactor(ctx->h));
        }
        return;
    }
    sg_event(ctx, "acquire", p, NULL);
    ctx->dirty = true;
    flux_future_reset(f);
}

/* How long a rank's resource module may take to send its topology (s). */
#define TOPO_GET_TIMEOUT 10.0

/* One rank's hwloc XML from its resource module, appended to classes
 * with the ranks it stands for; logged and left out when the rank has no
 * broker (an R larger than the instance: made-up ranks) or does not
 * answer. */
static void topology_one(struct sched_ctx *ctx, lua_Integer rank, const char *ranks,
                         uint32_t size, json_t *classes)
{
    if (rank < 0 || (uint64_t)rank >= size) {
        flux_log(ctx->h, LOG_DEBUG, "topology of ranks %s: rank %lld has no broker", ranks,
                 (long long)rank);
        return;
    }
    const char *xml = NULL;
    flux_future_t *f = flux_rpc(ctx->h, "resource.topo-get", NULL, (uint32_t)rank, 0);
    if (!f || flux_future_wait_for(f, TOPO_GET_TIMEOUT) < 0 || flux_rpc_get(f, &xml) < 0
        || !xml) {
        flux_log(ctx->h, LOG_ERR,
                 "topology of ranks %s: resource.topo-get from rank %lld: %s; they are "
                 "scheduled on R_lite's cores and GPUs",
                 ranks, (long long)rank, strerror(errno));
    } else {
        json_t *c = json_pack("{s:s s:I s:s}", "ranks", ranks, "rank", (json_int_t)rank, "xml",
                              xml);
        if (!c || json_array_append_new(classes, c) < 0)
            flux_log(ctx->h, LOG_ERR, "topology of ranks %s: out of memory", ranks);
    }
    flux_future_destroy(f);
}

void sg_topology_fetch(struct sched_ctx *ctx, const json_t *first)
{
    lua_State *L = ctx->L;
    sg_push_json(L, first);
    if (sg_loop_call(ctx, "topology_asks", 1, 1) < 0)
        return;
    uint32_t size = 0;
    if (flux_get_size(ctx->h, &size) < 0)
        size = 1;
    json_t *classes = json_array();
    lua_Integer n = lua_istable(L, -1) ? (lua_Integer)lua_rawlen(L, -1) : 0;
    if (n > 0)
        flux_log(ctx->h, LOG_DEBUG, "topology: asking %lld ranks for their hwloc", (long long)n);
    for (lua_Integer i = 1; classes && i <= n; i++) {
        lua_rawgeti(L, -1, i);
        lua_getfield(L, -1, "rank");
        lua_getfield(L, -2, "ranks");
        const char *ranks = lua_tostring(L, -1);
        if (lua_isinteger(L, -2) && ranks)
            topology_one(ctx, lua_tointeger(L, -2), ranks, size, classes);
        lua_pop(L, 3);
    }
    lua_pop(L, 1);
    if (!classes || json_array_size(classes) == 0) {
        json_decref(classes);
        return;
    }
    json_t *p = json_pack("{s:o}", "classes", classes);
    if (p)
        sg_event(ctx, "topology", p, NULL);
    json_decref(p);
}
