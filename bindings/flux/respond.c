/* respond.c: the scheduling loop's actions carried out as broker calls.
 *
 * The loop answers every event with a list of actions (docs/flux.md,
 * "Actions"): alloc responses (success, annotate, deny, cancel), a
 * response or an error to the request being handled, a job exception,
 * a log line, an RFC 28 release, the operator's state written to the KVS
 * (persist: committed before what follows, the answer to the command
 * that changed it, goes out).  A success commits the job's R to
 * job.<id>.R and answers only when the commit is done (RFC 27: R is in
 * the KVS before the job manager hears of it); its payload is written
 * here as text, R as the loop gave it, not read again.  Nothing here
 * decides: an action is done as it says, or logged when it cannot be.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <lauxlib.h>

#include "sched_grove.h"


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
    static const struct {
        const char *name;
        int level;
    } levels[] = {{"emerg", LOG_EMERG}, {"alert", LOG_ALERT},     {"crit", LOG_CRIT},
                  {"err", LOG_ERR},     {"error", LOG_ERR},       {"warning", LOG_WARNING},
                  {"warn", LOG_WARNING}, {"notice", LOG_NOTICE}, {"debug", LOG_DEBUG}};
    for (size_t i = 0; name && i < sizeof(levels) / sizeof(levels[0]); i++)
        if (!strcmp(name, levels[i].name))
            return levels[i].level;
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
        json_t *o = sg_to_json(ctx, lua_gettop(L), k);
        text = o ? json_dumps(o, JSON_COMPACT) : NULL;
        json_decref(o);
    }
    lua_pop(L, 1);
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

void sg_commits_fini(struct sched_ctx *ctx)
{
    while (ctx->commits)
        flux_future_destroy(ctx->commits->f); /* unlinks it */
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
    struct pending *pend = sg_msgs_get(ctx, id);
    if (!pend || !pend->msg || !type) {
        flux_log(ctx->h, LOG_ERR, "alloc %s: no pending request of job %jd",
                 type ? type : "?", (intmax_t)id);
        return;
    }
    const flux_msg_t *msg = pend->msg;
    char *ann_text = NULL;
    lua_getfield(L, t, "annotations");
    if (!lua_isnil(L, -1))
        ann_text = sg_annotations_text(ctx, lua_gettop(L));
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
        sg_msgs_drop(ctx, id);
    } else if (!strcmp(type, "annotate")) {
        if (ann_text)
            rc = respond_annotate(ctx, msg, id, ann_text);
    } else if (!strcmp(type, "deny")) {
        rc = schedutil_alloc_respond_deny(ctx->util, msg, field_str(L, t, "note"));
        sg_msgs_drop(ctx, id);
    } else if (!strcmp(type, "cancel")) {
        rc = schedutil_alloc_respond_cancel(ctx->util, msg);
        sg_msgs_drop(ctx, id);
    } else {
        flux_log(ctx->h, LOG_ERR, "alloc: unknown response type '%s'", type);
    }
    free(ann_text);
    if (rc < 0)
        flux_log_error(ctx->h, "alloc %s of job %jd", type, (intmax_t)id);
}

/* How long the commit of the operator's state may take (s). */
#define PERSIST_WAIT_S 10.

/* A persist action: json (text) put at key in the KVS, the commit waited
 * for, so that the answer to the command that changed it goes out once
 * the state is kept (grove.flux.state: a few kilobytes, written when an
 * operator changes something).  A failure is logged: the state in force
 * is the loop's. */
static void persist(struct sched_ctx *ctx, const char *key, const char *json)
{
    flux_kvs_txn_t *txn = flux_kvs_txn_create();
    flux_future_t *f = NULL;
    if (!key || !json || !txn || flux_kvs_txn_put(txn, 0, key, json) < 0
        || !(f = flux_kvs_commit(ctx->h, NULL, 0, txn))
        || flux_future_wait_for(f, PERSIST_WAIT_S) < 0 || flux_future_get(f, NULL) < 0)
        flux_log_error(ctx->h, "keeping the operator's state at %s", key ? key : "(no key)");
    flux_future_destroy(f);
    flux_kvs_txn_destroy(txn);
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
        if (!req && !strcmp(op, "error")) {
            /* an event that is not a request (a job of the hello, an
             * acquire response): the reason goes to the log */
            const char *m = field_str(L, t, "message");
            flux_log(ctx->h, LOG_ERR, "%s: %s", field_str(L, t, "topic"), m ? m : "error");
        } else if (!req) {
            flux_log(ctx->h, LOG_ERR, "%s %s: no request to answer", op,
                     field_str(L, t, "topic"));
        } else if (!strcmp(op, "error")) {
            const char *m = field_str(L, t, "message");
            if (flux_respond_error(ctx->rh, req, errno_of(field_str(L, t, "errnum")), m) < 0)
                flux_log_error(ctx->h, "respond");
        } else {
            char *text = field_json(ctx, t, "json");
            if (!text)
                text = field_json(ctx, t, "payload");
            if (flux_respond(ctx->rh, req, text ? text : "{}") < 0)
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
    } else if (!strcmp(op, "persist")) {
        persist(ctx, field_str(L, t, "key"), field_str(L, t, "json"));
    } else if (!strcmp(op, "release")) {
        flux_log(ctx->h, LOG_DEBUG, "release of targets %s", field_str(L, t, "targets"));
    } else {
        flux_log(ctx->h, LOG_ERR, "unknown action '%s'", op);
    }
}

/* Carry out the array of actions on top of the stack, and pop it.
 * Returns how many were errors (answers of op "error"). */
int sg_act_all(struct sched_ctx *ctx, const flux_msg_t *req)
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

