/* sched_grove.c: sched-grove.so, a Flux broker module that makes Grove the
 * instance's scheduler.
 *
 * Workload: one broker, rank 0; from a few jobs to thousands a second, on
 * instances of up to tens of thousands of nodes.  Every message is handled
 * between two reactor turns; nothing here blocks but the start-up
 * handshake (resource.acquire's first response, the hello), which RFC 27
 * makes synchronous.
 *
 * This file is an adapter and nothing more: it turns broker messages into
 * calls of the scheduling loop's protocol object (grove.flux, Lua, over
 * the C loop in core/sched.c) and the actions that object returns into
 * broker calls (alloc responses: a success commits R to job.<id>.R before
 * answering, its payload written here as text, deny and cancel through
 * libschedutil; flux_log; a fatal exception on a running job that cannot
 * be rebuilt).  It decides nothing: which job starts, where, and
 * what a message means are all the loop's, and are tested without Flux
 * by message sequences (spec/flux_protocol_spec.lua).  The same queue and
 * placement policy files run here and in `grove sim`.
 *
 * Start-up (RFC 27, and the order flux-core needs):
 *   register `feasibility`, schedutil_create (which registers `sched`),
 *   flux_module_set_running (resource.acquire answers only after rc1),
 *   resource.acquire (first response: the graph), the hello (running jobs
 *   rebuilt from their R), ready (unlimited or limited=N), the reactor.
 * Passes: every event marks the loop dirty; a check watcher runs one pass
 * per reactor turn, so a burst of alloc requests costs one pass.
 *
 * Module arguments are key=value words, the same keys as the instance's
 * configuration table [sched-grove] (arguments win):
 *   queue-policy=NAME|PATH  placement-policy=NAME|PATH  queue-depth=N|unlimited
 *   reserve-depth=N  match-format=rv1_nosched|rv1  policy-budget=N
 *   policy-time=SECONDS  policy-memory=BYTES  lua-path=DIR (Grove's Lua library)
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include <flux/core.h>
#include <flux/schedutil.h>
#include <jansson.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "alloc_stamps.h"
#include "grovel.h"
#include "json_private.h"
#include "lacquire.h"


#ifndef GROVE_LUA_DIR
#define GROVE_LUA_DIR "/usr/local/share/lua/5.4"
#endif

#define MODULE_NAME "sched-grove"

struct sched_ctx {
    flux_t *h;
    schedutil_t *util;
    lua_State *L;
    int loop_ref;      /* registry: the grove.flux object */
    int msgs_ref;      /* registry: job id -> pending alloc request (light
                        * userdata holding a flux_msg_t reference) */
    flux_future_t *acquire;
    flux_msg_handler_t **handlers;
    flux_watcher_t *prep, *check, *idle;
    flux_watcher_t *wake; /* a timer: the next reservation's start */
    bool dirty;        /* an event since the last pass */
    int gc_kb;         /* the Lua heap (KB) after the last collection step, or -1: the
                        * collector runs by itself (not yet started) */
    unsigned long gc_steps; /* collection steps taken in prep_cb */
    double gc_s, gc_max_s;  /* their thread CPU time (s): in all, the most */
    bool stopping;
    char ready_mode[32]; /* "unlimited" or "limited=N" */
    struct alloc_stamps stamps; /* the alloc latencies (alloc_stamps.h) */
    struct commit *commits; /* R commits under way (their responses wait) */
};

/* An alloc's R being committed to job.<id>.R: the success response
 * goes out when the commit is done (RFC 27: R is in the KVS before the
 * job manager hears of it). */
struct commit {
    struct sched_ctx *ctx;
    const flux_msg_t *msg; /* a reference of our own */
    char *payload;         /* the response's text */
    struct alloc_stamp st; /* the alloc's stamps */
    flux_future_t *f;
    struct commit *prev, *next;
};

/* A pending alloc request, as the msgs table holds it. */
struct pending {
    const flux_msg_t *msg; /* a reference of our own */
    struct alloc_stamp st; /* its stamps (in: the handler's entry) */
};

/* ---- Lua ---------------------------------------------------------------- */

static int msghandler(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg)
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    luaL_traceback(L, L, msg, 1);
    return 1;
}

/* Call the loop's method name with nargs arguments on the stack; leaves
 * nres results, or logs the error and returns -1 (stack as before). */
static int loop_call(struct sched_ctx *ctx, const char *name, int nargs, int nres)
{
    lua_State *L = ctx->L;
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, msghandler);
    lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->loop_ref);
    lua_getfield(L, -1, name);
    lua_insert(L, base + 1);     /* fn */
    lua_insert(L, base + 2);     /* self */
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
static void push_json(lua_State *L, const json_t *v)
{
    if (v)
        grovel_push_json(L, v, false);
    else
        lua_pushnil(L);
}

/* The Lua value at idx as a new JSON value, or NULL (logged). */
static json_t *to_json(struct sched_ctx *ctx, int idx, const char *what)
{
    char why[256] = "";
    json_t *o = grovel_to_json(ctx->L, idx, why, sizeof(why));
    if (!o)
        flux_log(ctx->h, LOG_ERR, "%s: %s", what, why);
    return o;
}

/* ---- pending alloc requests ------------------------------------------------ */

/* Keep the request msg of job id, stamped in at st. */
static void msgs_put(struct sched_ctx *ctx, lua_Integer id, const flux_msg_t *msg,
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
static struct pending *msgs_get(struct sched_ctx *ctx, lua_Integer id)
{
    lua_State *L = ctx->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->msgs_ref);
    lua_rawgeti(L, -1, id);
    struct pending *p = lua_touserdata(L, -1);
    lua_pop(L, 2);
    return p;
}

/* Forget the request of job id: its reference dropped. */
static void msgs_drop(struct sched_ctx *ctx, lua_Integer id)
{
    lua_State *L = ctx->L;
    struct pending *p = msgs_get(ctx, id);
    if (!p)
        return;
    flux_msg_decref(p->msg);
    p->msg = NULL;
    lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->msgs_ref);
    lua_pushnil(L);
    lua_rawseti(L, -2, id);
    lua_pop(L, 1);
}

/* ---- actions --------------------------------------------------------------- */

static lua_Integer field_int(lua_State *L, int t, const char *k)
{
    lua_getfield(L, t, k);
    lua_Integer v = lua_tointeger(L, -1);
    lua_pop(L, 1);
    return v;
}

/* Field k of the table at t as text, borrowed until the table is popped
 * (the table keeps the string), or NULL. */
static const char *field_str(lua_State *L, int t, const char *k)
{
    lua_getfield(L, t, k);
    const char *s = lua_tostring(L, -1);
    lua_pop(L, 1);
    return s;
}

/* An errno named as grove.flux names it ("EPROTO"); EINVAL when unknown. */
static int errno_of(const char *name)
{
    static const struct {
        const char *name;
        int e;
    } tab[] = {{"EPROTO", EPROTO}, {"ENOENT", ENOENT}, {"EINVAL", EINVAL},
               {"ENODEV", ENODEV}, {"EBUSY", EBUSY},   {"EEXIST", EEXIST},
               {"ENOSYS", ENOSYS}, {"EOVERFLOW", EOVERFLOW}, {"ENOMEM", ENOMEM}};
    for (size_t i = 0; name && i < sizeof(tab) / sizeof(tab[0]); i++)
        if (!strcmp(name, tab[i].name))
            return tab[i].e;
    return EINVAL;
}

static int level_of(const char *name)
{
    if (!name)
        return LOG_INFO;
    if (!strcmp(name, "err") || !strcmp(name, "error"))
        return LOG_ERR;
    if (!strncmp(name, "warn", 4))
        return LOG_WARNING;
    if (!strcmp(name, "debug"))
        return LOG_DEBUG;
    return LOG_INFO;
}

/* The JSON text of field k of the table at t: the text itself when it is
 * a string, else the value encoded (caller frees), or NULL. */
static char *field_json(struct sched_ctx *ctx, int t, const char *k)
{
    lua_State *L = ctx->L;
    char *text = NULL;
    lua_getfield(L, t, k);
    if (lua_type(L, -1) == LUA_TSTRING) {
        text = strdup(lua_tostring(L, -1));
    } else if (!lua_isnil(L, -1)) {
        json_t *o = to_json(ctx, lua_gettop(L), k);
        text = o ? json_dumps(o, JSON_COMPACT) : NULL;
        json_decref(o);
    }
    lua_pop(L, 1);
    return text;
}

/* ---- annotations written as text ---------------------------------------------
 *
 * An alloc action's annotations are a small table ({sched = {resource_summary
 * = "...", t_estimate = n | null, reason_pending = "..." | null}}), written
 * here straight to JSON text rather than built as jansson values and
 * dumped.  Only that shape is written: objects with string keys, integers,
 * booleans, null, strings of printable ASCII without quote or backslash;
 * anything else (an array, a real, a string that needs escaping) makes
 * ann_write give up, and grovel_to_json and json_dumps write it as before,
 * so the text never depends on which writer took it. */

struct text {
    char *s;
    size_t len, cap;
};

static int text_add(struct text *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 128;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *s2 = realloc(b->s, cap);
        if (!s2)
            return -1;
        b->s = s2;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
    return 0;
}

/* A string JSON writes as it is between quotes. */
static bool plain(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e || s[i] == '"'
            || s[i] == '\\')
            return false;
    return true;
}

/* Write the value at idx (absolute) to b; -1 when it is not of the plain
 * shape (or memory ran out). */
static int ann_write(lua_State *L, int idx, struct text *b, int depth)
{
    size_t n;
    const char *s;
    char num[32];
    switch (lua_type(L, idx)) {
    case LUA_TSTRING:
        s = lua_tolstring(L, idx, &n);
        if (!plain(s, n))
            return -1;
        return text_add(b, "\"", 1) < 0 || text_add(b, s, n) < 0 || text_add(b, "\"", 1) < 0
                   ? -1 : 0;
    case LUA_TNUMBER:
        if (!lua_isinteger(L, idx))
            return -1;
        snprintf(num, sizeof(num), "%lld", (long long)lua_tointeger(L, idx));
        return text_add(b, num, strlen(num));
    case LUA_TBOOLEAN:
        return lua_toboolean(L, idx) ? text_add(b, "true", 4) : text_add(b, "false", 5);
    case LUA_TLIGHTUSERDATA:
        return lua_touserdata(L, idx) == NULL ? text_add(b, "null", 4) : -1;
    case LUA_TTABLE:
        break;
    default:
        return -1;
    }
    if (depth > 8 || !lua_checkstack(L, 3) || text_add(b, "{", 1) < 0)
        return -1;
    bool first = true;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (lua_type(L, -2) != LUA_TSTRING) {
            lua_pop(L, 2);
            return -1;
        }
        s = lua_tolstring(L, -2, &n);
        if (!plain(s, n) || (!first && text_add(b, ",", 1) < 0) || text_add(b, "\"", 1) < 0
            || text_add(b, s, n) < 0 || text_add(b, "\":", 2) < 0
            || ann_write(L, lua_gettop(L), b, depth + 1) < 0) {
            lua_pop(L, 2);
            return -1;
        }
        first = false;
        lua_pop(L, 1);
    }
    return text_add(b, "}", 1);
}

/* The annotations at idx as JSON text (caller frees), or NULL (logged). */
static char *ann_text_of(struct sched_ctx *ctx, int idx)
{
    struct text b = {NULL, 0, 0};
    idx = lua_absindex(ctx->L, idx);
    if (lua_istable(ctx->L, idx) && ann_write(ctx->L, idx, &b, 0) == 0)
        return b.s;
    free(b.s);
    json_t *o = to_json(ctx, idx, "annotations");
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return text;
}

static void commit_destroy(void *arg)
{
    struct commit *c = arg;
    if (c->prev)
        c->prev->next = c->next;
    else
        c->ctx->commits = c->next;
    if (c->next)
        c->next->prev = c->prev;
    flux_msg_decref(c->msg);
    free(c->payload);
    free(c);
}

static void commit_cb(flux_future_t *f, void *arg)
{
    struct commit *c = arg;
    flux_t *h = c->ctx->h;
    if (flux_future_get(f, NULL) < 0) {
        /* as libschedutil: the job can be told nothing true */
        flux_log_error(h, "commit R");
        flux_reactor_stop_error(flux_get_reactor(h));
    } else if (flux_respond(h, c->msg, c->payload) < 0) {
        flux_log_error(h, "alloc response");
    } else {
        alloc_stamps_add(&c->ctx->stamps, &c->st);
    }
    flux_future_destroy(f); /* and c with it */
}

/* The success response to msg, the alloc request of job id (stamped
 * st): R (text) committed to job.<id>.R, then {id, type 0, annotations
 * (ann: JSON text, or NULL), R} as text, neither read again.
 * (libschedutil's success response parses the request and R and writes
 * both again.)  0, or -1 with errno. */
static int respond_success(struct sched_ctx *ctx, const flux_msg_t *msg, lua_Integer id,
                           const char *R, const char *ann, const struct alloc_stamp *st)
{
    char key[64];
    if (flux_job_kvs_key(key, sizeof(key), (flux_jobid_t)id, "R") < 0)
        return -1;
    struct commit *c = calloc(1, sizeof(*c));
    flux_kvs_txn_t *txn = flux_kvs_txn_create();
    if (!c || !txn
        || asprintf(&c->payload, "{\"id\":%jd,\"type\":%d%s%s,\"R\":%s}", (intmax_t)id,
                    FLUX_SCHED_ALLOC_SUCCESS, ann ? ",\"annotations\":" : "", ann ? ann : "",
                    R) < 0) {
        if (c)
            c->payload = NULL;
        goto fail;
    }
    if (flux_kvs_txn_put(txn, 0, key, R) < 0 || !(c->f = flux_kvs_commit(ctx->h, NULL, 0, txn)))
        goto fail;
    flux_kvs_txn_destroy(txn);
    txn = NULL;
    c->ctx = ctx;
    c->msg = flux_msg_incref(msg);
    c->st = *st;
    alloc_stamp_handed(&c->st);
    c->next = ctx->commits;
    if (c->next)
        c->next->prev = c;
    ctx->commits = c;
    flux_future_t *f = c->f;
    if (flux_future_aux_set(f, "grove::commit", c, commit_destroy) < 0) {
        commit_destroy(c);
        flux_future_destroy(f);
        return -1;
    }
    if (flux_future_then(f, -1., commit_cb, c) < 0) {
        flux_future_destroy(f);
        return -1;
    }
    return 0;
fail:
    flux_kvs_txn_destroy(txn);
    if (c)
        free(c->payload);
    free(c);
    errno = ENOMEM;
    return -1;
}

/* The success response through libschedutil (R committed, then the
 * response), annotations given as text or NULL. */
static int respond_success_util(struct sched_ctx *ctx, const flux_msg_t *msg, const char *R,
                                const char *ann_text)
{
    if (!ann_text)
        return schedutil_alloc_respond_success_pack(ctx->util, msg, R, NULL);
    json_t *ann = json_loads(ann_text, 0, NULL);
    if (!ann) {
        errno = ENOMEM;
        return -1;
    }
    int rc = schedutil_alloc_respond_success_pack(ctx->util, msg, R, "O", ann);
    json_decref(ann);
    return rc;
}

/* An annotate response to msg, the alloc request of job id (ann: the
 * annotations' JSON text). */
static int respond_annotate(struct sched_ctx *ctx, const flux_msg_t *msg, lua_Integer id,
                            const char *ann)
{
    char *text = NULL;
    if (asprintf(&text, "{\"id\":%jd,\"type\":%d,\"annotations\":%s}", (intmax_t)id,
                 FLUX_SCHED_ALLOC_ANNOTATE, ann) < 0) {
        errno = ENOMEM;
        return -1;
    }
    int rc = flux_respond(ctx->h, msg, text);
    free(text);
    return rc;
}

/* An "alloc" action: a response to the pending request of job id. */
static void act_alloc(struct sched_ctx *ctx, int t)
{
    lua_State *L = ctx->L;
    lua_Integer id = field_int(L, t, "id");
    const char *type = field_str(L, t, "type");
    struct pending *pend = msgs_get(ctx, id);
    if (!pend || !pend->msg || !type) {
        flux_log(ctx->h, LOG_ERR, "alloc %s: no pending request of job %jd",
                 type ? type : "?", (intmax_t)id);
        return;
    }
    const flux_msg_t *msg = pend->msg;
    char *ann_text = NULL;
    lua_getfield(L, t, "annotations");
    if (!lua_isnil(L, -1))
        ann_text = ann_text_of(ctx, lua_gettop(L));
    lua_pop(L, 1);
    int rc = 0;
    if (!strcmp(type, "success")) {
        char *R = field_json(ctx, t, "R");
        if (!R)
            rc = schedutil_alloc_respond_deny(ctx->util, msg, "scheduler error: no R");
        else if (strstr(R, "\"properties\""))
            /* libschedutil leaves RFC 20's instance-local properties
             * ('+' names) out of the R it commits (not stamped: its
             * response goes out where this module does not see it) */
            rc = respond_success_util(ctx, msg, R, ann_text);
        else
            rc = respond_success(ctx, msg, id, R, ann_text, &pend->st);
        free(R);
        msgs_drop(ctx, id);
    } else if (!strcmp(type, "annotate")) {
        if (ann_text)
            rc = respond_annotate(ctx, msg, id, ann_text);
    } else if (!strcmp(type, "deny")) {
        rc = schedutil_alloc_respond_deny(ctx->util, msg, field_str(L, t, "note"));
        msgs_drop(ctx, id);
    } else if (!strcmp(type, "cancel")) {
        rc = schedutil_alloc_respond_cancel(ctx->util, msg);
        msgs_drop(ctx, id);
    } else {
        flux_log(ctx->h, LOG_ERR, "alloc: unknown response type '%s'", type);
    }
    free(ann_text);
    if (rc < 0)
        flux_log_error(ctx->h, "alloc %s of job %jd", type, (intmax_t)id);
}

/* One action: the table on top of the stack (left there).  req is the
 * request being handled (respond and error actions answer it), or NULL. */
static void act(struct sched_ctx *ctx, const flux_msg_t *req)
{
    lua_State *L = ctx->L;
    int t = lua_gettop(L);
    const char *op = field_str(L, t, "op");
    if (!op) {
        flux_log(ctx->h, LOG_ERR, "an action without op");
    } else if (!strcmp(op, "alloc")) {
        act_alloc(ctx, t);
    } else if (!strcmp(op, "respond") || !strcmp(op, "error")) {
        if (!req) {
            flux_log(ctx->h, LOG_ERR, "%s %s: no request to answer", op,
                     field_str(L, t, "topic"));
        } else if (!strcmp(op, "error")) {
            const char *m = field_str(L, t, "message");
            if (flux_respond_error(ctx->h, req, errno_of(field_str(L, t, "errnum")), m) < 0)
                flux_log_error(ctx->h, "respond");
        } else {
            char *text = field_json(ctx, t, "json");
            if (!text)
                text = field_json(ctx, t, "payload");
            if (flux_respond(ctx->h, req, text ? text : "{}") < 0)
                flux_log_error(ctx->h, "respond");
            free(text);
        }
    } else if (!strcmp(op, "exception")) {
        const char *type = field_str(L, t, "type");
        const char *note = field_str(L, t, "note");
        flux_future_t *f = flux_job_raise(ctx->h, (flux_jobid_t)field_int(L, t, "id"),
                                          type ? type : "scheduler",
                                          (int)field_int(L, t, "severity"), note);
        flux_future_destroy(f);
    } else if (!strcmp(op, "log")) {
        const char *m = field_str(L, t, "message");
        flux_log(ctx->h, level_of(field_str(L, t, "level")), "%s", m ? m : "");
    } else if (!strcmp(op, "release")) {
        flux_log(ctx->h, LOG_DEBUG, "release of targets %s", field_str(L, t, "targets"));
    } else {
        flux_log(ctx->h, LOG_ERR, "unknown action '%s'", op);
    }
}

/* Carry out the array of actions on top of the stack, and pop it.
 * Returns how many were errors (answers of op "error"). */
static int act_all(struct sched_ctx *ctx, const flux_msg_t *req)
{
    lua_State *L = ctx->L;
    int errors = 0;
    if (lua_istable(L, -1)) {
        lua_Integer n = luaL_len(L, -1);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, i);
            if (lua_istable(L, -1)) {
                const char *op = field_str(L, lua_gettop(L), "op");
                if (op && !strcmp(op, "error"))
                    errors++;
                act(ctx, req);
            }
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    return errors;
}

/* Hand payload to the loop's method name and carry out what it returns;
 * req is the request the actions may answer (or NULL).  -1 when the call
 * failed or answered an error. */
static int event(struct sched_ctx *ctx, const char *name, const json_t *payload,
                 const flux_msg_t *req)
{
    int nargs = 0;
    if (payload) {
        push_json(ctx->L, payload);
        nargs = 1;
    }
    if (loop_call(ctx, name, nargs, 1) < 0)
        return -1;
    return act_all(ctx, req) ? -1 : 0;
}

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
    if (!ctx->wake || loop_call(ctx, "next_wake", 0, 1) < 0)
        return;
    if (lua_isnumber(ctx->L, -1)) {
        double at = lua_tonumber(ctx->L, -1) - now_wall();
        flux_watcher_stop(ctx->wake);
        flux_timer_watcher_reset(ctx->wake, at > 0 ? at : 0., 0.);
        flux_watcher_start(ctx->wake);
    }
    lua_pop(ctx->L, 1);
}

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
        push_json(L, json_object_get(p, keys[i]));
        lua_setfield(L, -2, keys[i]);
    }
    const json_t *v = json_object_get(p, text_key);
    char *text = json_is_object(v) ? json_dumps(v, JSON_COMPACT) : NULL;
    if (text)
        lua_pushstring(L, text);
    else
        push_json(L, v);
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
    msgs_put(ctx, id, msg, &st);
    int rc = loop_call(ctx, "alloc", 1, 1) < 0 ? -1 : act_all(ctx, NULL) ? -1 : 0;
    if (rc < 0 && msgs_get(ctx, (lua_Integer)id)) {
        schedutil_alloc_respond_deny(ctx->util, msg, "scheduler error (see the broker's log)");
        msgs_drop(ctx, (lua_Integer)id);
    }
    ctx->dirty = true;
}

/* Hand msg's payload (when it has one) to the loop's method name; a pass
 * follows either way. */
static void payload_event(struct sched_ctx *ctx, flux_t *h, const flux_msg_t *msg,
                          const char *name)
{
    json_t *p = payload_of(h, msg);
    if (p)
        event(ctx, name, p, NULL);
    ctx->dirty = true;
}

static void free_cb(flux_t *h, const flux_msg_t *msg, const char *R, void *arg)
{
    (void)R; /* NULL: R is in the payload */
    static const char *const keys[] = {"id", "final"};
    struct sched_ctx *ctx = arg;
    lua_Integer id;
    if (push_request_msg(ctx, msg, keys, sizeof(keys) / sizeof(keys[0]), "R", &id)) {
        if (loop_call(ctx, "free", 1, 1) == 0)
            act_all(ctx, NULL);
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
    int rc = event(ctx, "hello", job, NULL);
    json_decref(job);
    if (rc < 0) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

static const struct schedutil_ops ops = {
    .hello = hello_cb,
    .alloc = alloc_cb,
    .free = free_cb,
    .cancel = cancel_cb,
    .prioritize = prioritize_cb,
};

/* ---- requests the module answers itself --------------------------------------- */

/* A request the loop answers with respond or error actions. */
static void answer(struct sched_ctx *ctx, const flux_msg_t *msg, const char *name)
{
    json_t *p = NULL;
    if (flux_request_unpack(msg, NULL, "o", &p) < 0) {
        flux_respond_error(ctx->h, msg, EPROTO, NULL);
        return;
    }
    push_json(ctx->L, p);
    if (loop_call(ctx, name, 1, 1) < 0) {
        flux_respond_error(ctx->h, msg, EINVAL, "scheduler error (see the broker's log)");
        return;
    }
    act_all(ctx, msg);
    ctx->dirty = true;
}

static void expiration_cb(flux_t *h, flux_msg_handler_t *mh, const flux_msg_t *msg, void *arg)
{
    (void)h, (void)mh;
    answer(arg, msg, "expiration");
}

static void feasibility_cb(flux_t *h, flux_msg_handler_t *mh, const flux_msg_t *msg, void *arg)
{
    (void)h, (void)mh;
    answer(arg, msg, "feasibility");
}

static void status_cb(flux_t *h, flux_msg_handler_t *mh, const flux_msg_t *msg, void *arg)
{
    (void)mh;
    struct sched_ctx *ctx = arg;
    if (loop_call(ctx, "resource_status", 0, 1) < 0) {
        flux_respond_error(h, msg, EINVAL, "scheduler error (see the broker's log)");
        return;
    }
    act_all(ctx, msg);
}

/* `flux module stats sched-grove`: the loop's counters, the alloc
 * latencies this module measured, its Lua heap and the collection steps
 * taken between events. */
static void stats_cb(flux_t *h, flux_msg_handler_t *mh, const flux_msg_t *msg, void *arg)
{
    (void)mh;
    struct sched_ctx *ctx = arg;
    json_t *o = NULL;
    if (loop_call(ctx, "stats", 0, 1) == 0) {
        o = to_json(ctx, lua_gettop(ctx->L), "stats");
        lua_pop(ctx->L, 1);
    }
    if (!o || !json_is_object(o)) {
        json_decref(o);
        flux_respond_error(h, msg, EINVAL, "scheduler error (see the broker's log)");
        return;
    }
    alloc_stamps_report(&ctx->stamps, o);
    json_object_set_new(o, "lua_gc", json_pack("{s:i s:I s:f s:f}", "heap_kb",
                                               lua_gc(ctx->L, LUA_GCCOUNT), "steps",
                                               (json_int_t)ctx->gc_steps, "cpu_us",
                                               ctx->gc_s * 1e6, "max_us", ctx->gc_max_s * 1e6));
    if (flux_respond_pack(h, msg, "O", o) < 0)
        flux_log_error(h, "stats-get");
    json_decref(o);
}

static const struct flux_msg_handler_spec htab[] = {
    {FLUX_MSGTYPE_REQUEST, "sched.expiration", expiration_cb, 0},
    {FLUX_MSGTYPE_REQUEST, "sched.resource-status", status_cb, FLUX_ROLE_USER},
    {FLUX_MSGTYPE_REQUEST, "feasibility.check", feasibility_cb, FLUX_ROLE_USER},
    {FLUX_MSGTYPE_REQUEST, MODULE_NAME ".stats-get", stats_cb, FLUX_ROLE_USER},
    FLUX_MSGHANDLER_TABLE_END,
};

/* ---- resource.acquire (RFC 28) ---------------------------------------------- */

static void acquire_cb(flux_future_t *f, void *arg)
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
    event(ctx, "acquire", p, NULL);
    ctx->dirty = true;
    flux_future_reset(f);
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

static void prep_cb(flux_reactor_t *r, flux_watcher_t *w, int revents, void *arg)
{
    (void)r, (void)w, (void)revents;
    struct sched_ctx *ctx = arg;
    if (ctx->dirty)
        flux_watcher_start(ctx->idle); /* don't block: a pass is due */
    else if (ctx->gc_kb >= 0)
        gc_step(ctx);
}

static void check_cb(flux_reactor_t *r, flux_watcher_t *w, int revents, void *arg)
{
    (void)r, (void)w, (void)revents;
    struct sched_ctx *ctx = arg;
    flux_watcher_stop(ctx->idle);
    if (!ctx->dirty)
        return;
    ctx->dirty = false;
    if (loop_call(ctx, "schedule", 0, 1) == 0)
        act_all(ctx, NULL);
    arm_wake(ctx);
}

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
static int push_options(struct sched_ctx *ctx, int argc, char **argv, char **lua_dir)
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

/* Build the loop from the options table on top of the stack (popped). */
static int make_loop(struct sched_ctx *ctx, const char *lua_dir)
{
    lua_State *L = ctx->L;
    set_paths(L, lua_dir);
    lua_pushcfunction(L, msghandler);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "grove.flux");
    if (lua_pcall(L, 1, 1, -3) != LUA_OK) {
        flux_log(ctx->h, LOG_ERR, "require grove.flux: %s", lua_tostring(L, -1));
        lua_settop(L, 0);
        return -1;
    }
    lua_getfield(L, -1, "new");
    lua_pushvalue(L, -4); /* the options */
    if (lua_pcall(L, 1, 2, -4) != LUA_OK || lua_isnil(L, -2)) {
        flux_log(ctx->h, LOG_ERR, "%s", lua_tostring(L, -1));
        lua_settop(L, 0);
        return -1;
    }
    lua_pop(L, 1);
    ctx->loop_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_settop(L, 0);
    lua_newtable(L);
    ctx->msgs_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    /* ready's mode: "unlimited" or "limited=N" */
    snprintf(ctx->ready_mode, sizeof(ctx->ready_mode), "unlimited");
    if (loop_call(ctx, "ready", 0, 1) == 0) {
        lua_getfield(L, -1, "limit");
        if (lua_isinteger(L, -1))
            snprintf(ctx->ready_mode, sizeof(ctx->ready_mode), "limited=%lld",
                     (long long)lua_tointeger(L, -1));
        lua_pop(L, 2);
    }
    return 0;
}

static int start(struct sched_ctx *ctx)
{
    flux_t *h = ctx->h;
    flux_future_t *f;
    if (!(f = flux_service_register(h, "feasibility")) || flux_future_get(f, NULL) < 0) {
        flux_log_error(h, "register the feasibility service");
        flux_future_destroy(f);
        return -1;
    }
    flux_future_destroy(f);
    if (flux_msg_handler_addvec(h, htab, ctx, &ctx->handlers) < 0) {
        flux_log_error(h, "message handlers");
        return -1;
    }
    if (!(ctx->util = schedutil_create(h, SCHEDUTIL_HELLO_PARTIAL_OK, &ops, ctx))) {
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
    if (event(ctx, "acquire", p, NULL) < 0)
        return -1;
#ifdef __GLIBC__
    /* the response's text and what building the graph from it needed
     * are freed: hand the pages back, the broker lives on */
    malloc_trim(0);
#endif
    flux_future_reset(ctx->acquire);
    if (flux_future_then(ctx->acquire, -1., acquire_cb, ctx) < 0)
        return -1;
    if (schedutil_hello(ctx->util) < 0) {
        flux_log_error(h, "hello");
        return -1;
    }
    if (schedutil_ready(ctx->util, ctx->ready_mode, NULL) < 0) {
        flux_log_error(h, "ready");
        return -1;
    }
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
    schedutil_destroy(ctx->util); /* answers ENOSYS to what is still pending */
    while (ctx->commits)
        flux_future_destroy(ctx->commits->f); /* unlinks it */
    flux_future_destroy(ctx->acquire);
    if (ctx->L) {
        if (ctx->msgs_ref) {
            lua_rawgeti(ctx->L, LUA_REGISTRYINDEX, ctx->msgs_ref);
            lua_pushnil(ctx->L);
            while (lua_next(ctx->L, -2)) {
                struct pending *p = lua_touserdata(ctx->L, -1);
                if (p)
                    flux_msg_decref(p->msg);
                lua_pop(ctx->L, 1);
            }
        }
        lua_close(ctx->L);
    }
    alloc_stamps_fini(&ctx->stamps);
    free(ctx);
    errno = e;
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
    ctx->h = h;
    ctx->gc_kb = -1;
    alloc_stamps_init(&ctx->stamps); /* none kept without the memory */
    if (!(ctx->L = luaL_newstate())) {
        alloc_stamps_fini(&ctx->stamps);
        free(ctx);
        errno = ENOMEM;
        return -1;
    }
    luaL_openlibs(ctx->L);
    /* generational: most of what a message makes dies with it, and minor
     * collections of the young objects replace the incremental cycles
     * over the whole heap that a long queue made slow (the p99) */
    lua_gc(ctx->L, LUA_GCGEN, 0, 0);
    if (push_options(ctx, argc, argv, &lua_dir) < 0 || make_loop(ctx, lua_dir) < 0
        || start(ctx) < 0)
        goto done;
    if (flux_reactor_run(flux_get_reactor(h), 0) < 0 && !ctx->stopping) {
        flux_log_error(h, "reactor");
        goto done;
    }
    rc = 0;
done:
    free(lua_dir);
    ctx_destroy(ctx);
    return rc;
}
