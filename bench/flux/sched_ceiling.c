/* sched_ceiling.c: sched-ceiling.so, a Flux scheduler module that does no
 * scheduling, the ceiling a scheduler's throughput is measured against
 * (bench/flux_throughput.sh).
 *
 * It grants every job one core of the next rank in turn, whatever the job
 * asked for, without a graph, a match or a queue: the jobs/s an instance
 * reaches with it is what the rest of Flux (job manager, KVS, exec) allows.
 * Only for benchmarks under the test execution (jobs that start no
 * shell): it books resources twice and ignores every request's shape.
 *
 * A success is answered as sched-grove answers it: R committed to
 * job.<id>.R, then the response sent as text when the commit is done; and
 * the same latencies are kept (alloc_stamps.h, `flux module stats
 * sched-ceiling`), so its figures are the floor of sched-grove's.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <flux/core.h>
#include <flux/schedutil.h>
#include <jansson.h>

#include "alloc_stamps.h"

struct ceiling {
    flux_t *h;
    schedutil_t *util;
    json_t *ranks; /* the R_lite entries' rank idsets as one array of ranks */
    int nranks, next;
    char **hosts; /* the nodelist expanded, one host a rank (or NULL) */
    struct alloc_stamps stamps;
};

/* An alloc whose R is being committed: its response waits. */
struct grant {
    struct ceiling *c;
    const flux_msg_t *msg;
    char *payload;
    struct alloc_stamp st;
};

static void grant_destroy(void *arg)
{
    struct grant *g = arg;
    flux_msg_decref(g->msg);
    free(g->payload);
    free(g);
}

static void commit_cb(flux_future_t *f, void *arg)
{
    struct grant *g = arg;
    flux_t *h = g->c->h;
    if (flux_future_get(f, NULL) < 0)
        flux_log_error(h, "commit R");
    else if (flux_respond(h, g->msg, g->payload) < 0)
        flux_log_error(h, "alloc response");
    else
        alloc_stamps_add(&g->c->stamps, &g->st);
    flux_future_destroy(f); /* and g with it */
}

static void alloc_cb(flux_t *h, const flux_msg_t *msg, void *arg)
{
    struct ceiling *c = arg;
    struct grant *g = calloc(1, sizeof(*g));
    if (!g)
        return;
    alloc_stamp_in(&g->st);
    json_int_t id;
    char key[64], R[512];
    flux_kvs_txn_t *txn = NULL;
    flux_future_t *f = NULL;
    if (flux_request_unpack(msg, NULL, "{s:I}", "id", &id) < 0
        || flux_job_kvs_key(key, sizeof(key), (flux_jobid_t)id, "R") < 0)
        goto fail;
    int rank = c->nranks ? c->next++ % c->nranks : 0;
    snprintf(R, sizeof(R),
             "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"%d\","
             "\"children\":{\"core\":\"0\"}}],\"starttime\":0,\"expiration\":0,"
             "\"nodelist\":[\"%s\"]}}",
             rank, c->hosts && c->hosts[rank] ? c->hosts[rank] : "localhost");
    if (asprintf(&g->payload, "{\"id\":%jd,\"type\":%d,\"R\":%s}", (intmax_t)id,
                 FLUX_SCHED_ALLOC_SUCCESS, R) < 0) {
        g->payload = NULL;
        goto fail;
    }
    if (!(txn = flux_kvs_txn_create()) || flux_kvs_txn_put(txn, 0, key, R) < 0
        || !(f = flux_kvs_commit(h, NULL, 0, txn)))
        goto fail;
    flux_kvs_txn_destroy(txn);
    g->c = c;
    g->msg = flux_msg_incref(msg);
    if (flux_future_aux_set(f, "ceiling::grant", g, grant_destroy) < 0) {
        grant_destroy(g);
        flux_future_destroy(f);
        flux_log_error(h, "alloc");
        return;
    }
    alloc_stamp_handed(&g->st);
    if (flux_future_then(f, -1., commit_cb, g) < 0) {
        flux_future_destroy(f);
        flux_log_error(h, "alloc");
    }
    return;
fail:
    flux_log_error(h, "alloc");
    flux_kvs_txn_destroy(txn);
    free(g->payload);
    free(g);
}

static void free_cb(flux_t *h, const flux_msg_t *msg, const char *R, void *arg)
{
    (void)h, (void)msg, (void)R, (void)arg;
}

static void cancel_cb(flux_t *h, const flux_msg_t *msg, void *arg)
{
    (void)h, (void)msg, (void)arg;
}

static int hello_cb(flux_t *h, const flux_msg_t *msg, const char *R, void *arg)
{
    (void)h, (void)msg, (void)R, (void)arg;
    return 0;
}

static const struct schedutil_ops ops = {
    .hello = hello_cb, .alloc = alloc_cb, .free = free_cb, .cancel = cancel_cb,
};

static void feasibility_cb(flux_t *h, flux_msg_handler_t *mh, const flux_msg_t *msg, void *arg)
{
    (void)mh, (void)arg;
    flux_respond(h, msg, NULL);
}

/* `flux module stats sched-ceiling`: the alloc latencies. */
static void stats_cb(flux_t *h, flux_msg_handler_t *mh, const flux_msg_t *msg, void *arg)
{
    (void)mh;
    struct ceiling *c = arg;
    json_t *o = json_object();
    if (o)
        alloc_stamps_report(&c->stamps, o);
    if (!o || flux_respond_pack(h, msg, "O", o) < 0)
        flux_log_error(h, "stats-get");
    json_decref(o);
}

static const struct flux_msg_handler_spec htab[] = {
    {FLUX_MSGTYPE_REQUEST, "feasibility.check", feasibility_cb, FLUX_ROLE_USER},
    {FLUX_MSGTYPE_REQUEST, "sched-ceiling.stats-get", stats_cb, FLUX_ROLE_USER},
    FLUX_MSGHANDLER_TABLE_END,
};

/* Hosts of the nodelist of R: "node[0-3]" style entries expanded. */
static void read_hosts(struct ceiling *c, json_t *R)
{
    json_t *nl = json_object_get(json_object_get(R, "execution"), "nodelist");
    size_t i;
    json_t *e;
    int n = 0, cap = 0;
    json_array_foreach(nl, i, e) {
        const char *s = json_string_value(e);
        if (!s)
            continue;
        const char *lb = strchr(s, '[');
        int lo = 0, hi = -1;
        char base[256];
        if (lb && sscanf(lb, "[%d-%d]", &lo, &hi) == 2) {
            snprintf(base, sizeof(base), "%.*s", (int)(lb - s), s);
        } else {
            snprintf(base, sizeof(base), "%s", s);
            lo = hi = -1;
        }
        for (int k = lo; k <= hi || (lo < 0 && k == -1); k++) {
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                char **h2 = realloc(c->hosts, (size_t)cap * sizeof(*h2));
                if (!h2)
                    return;
                c->hosts = h2;
            }
            char name[300];
            if (k < 0)
                snprintf(name, sizeof(name), "%s", base);
            else
                snprintf(name, sizeof(name), "%s%d", base, k);
            c->hosts[n++] = strdup(name);
            if (k < 0)
                break;
        }
    }
    c->nranks = n;
}

/* The module's entry point: the broker calls it in the module's thread. */
__attribute__((visibility("default"))) int mod_main(flux_t *h, int argc, char **argv);

int mod_main(flux_t *h, int argc, char **argv)
{
    (void)argc, (void)argv;
    struct ceiling c = {.h = h};
    alloc_stamps_init(&c.stamps);
    flux_msg_handler_t **handlers = NULL;
    flux_future_t *f = NULL, *acq = NULL;
    int rc = -1;
    if (!(f = flux_service_register(h, "feasibility")) || flux_future_get(f, NULL) < 0)
        goto done;
    if (flux_msg_handler_addvec(h, htab, &c, &handlers) < 0)
        goto done;
    if (!(c.util = schedutil_create(h, SCHEDUTIL_HELLO_PARTIAL_OK, &ops, &c)))
        goto done;
    if (flux_module_set_running(h) < 0)
        goto done;
    json_t *resp = NULL;
    if (!(acq = flux_rpc(h, "resource.acquire", NULL, FLUX_NODEID_ANY, FLUX_RPC_STREAMING))
        || flux_rpc_get_unpack(acq, "o", &resp) < 0)
        goto done;
    read_hosts(&c, json_object_get(resp, "resources"));
    if (schedutil_hello(c.util) < 0 || schedutil_ready(c.util, "unlimited", NULL) < 0)
        goto done;
    if (flux_reactor_run(flux_get_reactor(h), 0) < 0)
        goto done;
    rc = 0;
done:
    schedutil_destroy(c.util);
    flux_msg_handler_delvec(handlers);
    flux_future_destroy(f);
    flux_future_destroy(acq);
    for (int i = 0; i < c.nranks; i++)
        free(c.hosts[i]);
    free(c.hosts);
    alloc_stamps_fini(&c.stamps);
    return rc;
}
