/* sched_ceiling.c: sched-ceiling.so, a Flux scheduler module that does no
 * scheduling, the ceiling a scheduler's throughput is measured against
 * (bench/flux_throughput.sh).
 *
 * It grants every job, as it arrives, the shape the job asked for on the
 * next ranks in turn (its node count, and on each node the cores and GPUs
 * its slots name, or every core and GPU when it asks for whole nodes),
 * without a graph, a match, a queue or any record of what it granted: the
 * jobs/s an instance reaches with it is what the rest of Flux (job
 * manager, KVS, exec, job list) allows for those jobs' R.  Loaded with
 * `one-core`, it grants every job one core of the next rank, whatever it
 * asked (the bound the throughput benchmarks used first: the rest of
 * Flux then handles a one-rank R for a job of 512 nodes).  Loaded with
 * `summary`, each success carries the sched.resource_summary annotation
 * flux-core's own schedulers (and sched-grove) send with it.  Loaded with
 * `window`, R's starttime is now and its expiration the job's time limit
 * from now, as flux-core's schedulers (and sched-grove) write them
 * (without it both are 0: no time limit for the execution system to
 * keep).  Only for benchmarks under the test execution (jobs that start
 * no shell): it books resources many times over.
 *
 * A success is answered as sched-grove answers it: R committed to
 * job.<id>.R, then the response sent as text when the commit is done; and
 * the same latencies are kept (alloc_stamps.h, `flux module stats
 * sched-ceiling`), so its figures are the floor of sched-grove's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <flux/core.h>
#include <flux/hostlist.h>
#include <flux/idset.h>
#include <flux/schedutil.h>
#include <jansson.h>

#include "alloc_stamps.h"

struct ceiling {
    flux_t *h;
    schedutil_t *util;
    json_t *ranks; /* the R_lite entries' rank idsets as one array of ranks */
    int nranks, next;
    char **hosts; /* the nodelist expanded, one host a rank (or NULL) */
    int cores, gpus; /* of the first rank of R: what a whole node grants */
    bool one_core;   /* one core a job, whatever its shape */
    bool summary;    /* each success annotated with its resource summary */
    bool window;     /* R's starttime now and expiration at the time limit */
    long allocs;     /* alloc requests granted */
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

/* A jobspec's count: an integer, or the min of a range object. */
static int count_of(json_t *r)
{
    json_t *c = json_object_get(r, "count");
    if (json_is_object(c))
        c = json_object_get(c, "min");
    return json_is_integer(c) && json_integer_value(c) > 0 ? (int)json_integer_value(c) : 1;
}

/* What the jobspec of an alloc request asks for on each node it gets:
 * nodes, and cores and GPUs a node (a node asked for whole: all of
 * them).  A jobspec not read as such gets one core of one node. */
struct shape {
    int nodes, cores, gpus;
};

static struct shape shape_of(const struct ceiling *c, json_t *jobspec)
{
    struct shape sh = {1, 1, 0};
    json_t *top = json_array_get(json_object_get(jobspec, "resources"), 0);
    json_t *slot = top;
    if (c->one_core || !top)
        return sh;
    const char *type = json_string_value(json_object_get(top, "type"));
    if (type && !strcmp(type, "node")) {
        sh.nodes = count_of(top);
        if (json_is_true(json_object_get(top, "exclusive"))) {
            sh.cores = c->cores;
            sh.gpus = c->gpus;
            return sh;
        }
        slot = json_array_get(json_object_get(top, "with"), 0);
    }
    int slots = count_of(slot), cores = 0, gpus = 0;
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(slot, "with"), i, r) {
        const char *t = json_string_value(json_object_get(r, "type"));
        if (t && !strcmp(t, "core"))
            cores = count_of(r);
        else if (t && !strcmp(t, "gpu"))
            gpus = count_of(r);
    }
    sh.cores = slots * (cores ? cores : 1);
    sh.gpus = slots * gpus;
    if (type && strcmp(type, "node") && sh.cores > c->cores && c->cores > 0) {
        /* slots of no node: as many nodes as their cores fill */
        sh.nodes = (sh.cores + c->cores - 1) / c->cores;
        sh.cores = c->cores;
        sh.gpus = (sh.gpus + sh.nodes - 1) / sh.nodes;
    }
    if (sh.cores > c->cores && c->cores > 0)
        sh.cores = c->cores;
    if (sh.gpus > c->gpus)
        sh.gpus = c->gpus;
    return sh;
}

/* The R granting sh on the next ranks in turn (from rank 0 again where
 * they would run past the last), as a new string, or NULL; and in
 * summary (size bytes) its resource summary as flux-core's schedulers
 * write it ("rank[0-3]/core[0-43],gpu[0-3]"). */
static char *grant_R(struct ceiling *c, struct shape sh, double start, double end,
                     char *summary, size_t size)
{
    int n = c->nranks ? c->nranks : 1;
    if (sh.nodes > n)
        sh.nodes = n;
    if (c->next + sh.nodes > n)
        c->next = 0;
    int first = c->next;
    c->next = (c->next + sh.nodes) % n;
    struct hostlist *hl = hostlist_create();
    for (int r = first; hl && r < first + sh.nodes; r++)
        if (hostlist_append(hl, c->hosts && c->hosts[r] ? c->hosts[r] : "localhost") < 0) {
            hostlist_destroy(hl);
            hl = NULL;
        }
    char *nodes = hl ? hostlist_encode(hl) : NULL;
    hostlist_destroy(hl);
    char ranks[64], gpus[64] = "", *R = NULL;
    if (sh.nodes > 1)
        snprintf(ranks, sizeof(ranks), "%d-%d", first, first + sh.nodes - 1);
    else
        snprintf(ranks, sizeof(ranks), "%d", first);
    if (sh.gpus > 1)
        snprintf(gpus, sizeof(gpus), ",\"gpu\":\"0-%d\"", sh.gpus - 1);
    else if (sh.gpus == 1)
        snprintf(gpus, sizeof(gpus), ",\"gpu\":\"0\"");
    char cores[32];
    if (sh.cores > 1)
        snprintf(cores, sizeof(cores), "0-%d", sh.cores - 1);
    else
        snprintf(cores, sizeof(cores), "0");
    snprintf(summary, size, sh.nodes > 1 ? "rank[%s]/" : "rank%s/", ranks);
    size_t len = strlen(summary);
    snprintf(summary + len, size - len, sh.cores > 1 ? "core[%s]" : "core%s", cores);
    len = strlen(summary);
    if (sh.gpus > 1)
        snprintf(summary + len, size - len, ",gpu[0-%d]", sh.gpus - 1);
    else if (sh.gpus == 1)
        snprintf(summary + len, size - len, ",gpu0");
    if (nodes
        && asprintf(&R,
                    "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"%s\","
                    "\"children\":{\"core\":\"%s\"%s}}],\"starttime\":%.0f,"
                    "\"expiration\":%.0f,\"nodelist\":[\"%s\"]}}",
                    ranks, cores, gpus, start, end, nodes)
               < 0)
        R = NULL;
    free(nodes);
    return R;
}

static void alloc_cb(flux_t *h, const flux_msg_t *msg, void *arg)
{
    struct ceiling *c = arg;
    struct grant *g = calloc(1, sizeof(*g));
    if (!g)
        return;
    alloc_stamp_in(&g->st);
    json_int_t id;
    json_t *jobspec = NULL;
    char key[64], *R = NULL, summary[128], annotations[192] = "";
    flux_kvs_txn_t *txn = NULL;
    flux_future_t *f = NULL;
    if (flux_request_unpack(msg, NULL, "{s:I s?o}", "id", &id, "jobspec", &jobspec) < 0
        || flux_job_kvs_key(key, sizeof(key), (flux_jobid_t)id, "R") < 0)
        goto fail;
    double start = 0., end = 0.;
    if (c->window) {
        /* as flux-core's schedulers write it: from now to the time
         * limit (attributes.system.duration; none: no expiration) */
        double duration = 0.;
        json_t *d = json_object_get(
            json_object_get(json_object_get(jobspec, "attributes"), "system"), "duration");
        if (json_is_number(d))
            duration = json_number_value(d);
        start = (double)(long)flux_reactor_now(flux_get_reactor(h));
        end = duration > 0. ? start + duration : 0.;
    }
    if (!(R = grant_R(c, shape_of(c, jobspec), start, end, summary, sizeof(summary))))
        goto fail;
    if (c->summary)
        snprintf(annotations, sizeof(annotations),
                 ",\"annotations\":{\"sched\":{\"resource_summary\":\"%s\"}}", summary);
    if (asprintf(&g->payload, "{\"id\":%jd,\"type\":%d,\"R\":%s%s}", (intmax_t)id,
                 FLUX_SCHED_ALLOC_SUCCESS, R, annotations) < 0) {
        g->payload = NULL;
        goto fail;
    }
    if (!(txn = flux_kvs_txn_create()) || flux_kvs_txn_put(txn, 0, key, R) < 0
        || !(f = flux_kvs_commit(h, NULL, 0, txn)))
        goto fail;
    free(R);
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
    c->allocs++;
    if (flux_future_then(f, -1., commit_cb, g) < 0) {
        flux_future_destroy(f);
        flux_log_error(h, "alloc");
    }
    return;
fail:
    flux_log_error(h, "alloc");
    flux_kvs_txn_destroy(txn);
    free(R);
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
    if (o) {
        alloc_stamps_report(&c->stamps, o);
        json_object_set_new(o, "allocs", json_integer((json_int_t)c->allocs));
    }
    if (!o || flux_respond_pack(h, msg, "O", o) < 0)
        flux_log_error(h, "stats-get");
    json_decref(o);
}

static const struct flux_msg_handler_spec htab[] = {
    {FLUX_MSGTYPE_REQUEST, "feasibility.check", feasibility_cb, FLUX_ROLE_USER},
    {FLUX_MSGTYPE_REQUEST, "sched-ceiling.stats-get", stats_cb, FLUX_ROLE_USER},
    FLUX_MSGHANDLER_TABLE_END,
};

/* Hosts of the nodelist of R, one a rank. */
static void read_hosts(struct ceiling *c, json_t *R)
{
    json_t *nl = json_object_get(json_object_get(R, "execution"), "nodelist");
    struct hostlist *hl = hostlist_create();
    size_t i;
    json_t *e;
    int n = 0;
    json_array_foreach(nl, i, e) {
        if (hl && json_is_string(e) && hostlist_append(hl, json_string_value(e)) < 0) {
            hostlist_destroy(hl);
            hl = NULL;
        }
    }
    int count = hl ? (int)hostlist_count(hl) : 0;
    if (count > 0 && (c->hosts = calloc((size_t)count, sizeof(*c->hosts))))
        for (const char *h = hostlist_first(hl); h && n < count; h = hostlist_next(hl))
            c->hosts[n++] = strdup(h);
    hostlist_destroy(hl);
    c->nranks = n;
    /* what a whole node grants: the first R_lite entry's children */
    json_t *kids = json_object_get(
        json_array_get(json_object_get(json_object_get(R, "execution"), "R_lite"), 0),
        "children");
    const char *names[] = {"core", "gpu"};
    int *counts[] = {&c->cores, &c->gpus};
    for (int k = 0; k < 2; k++) {
        struct idset *ids = idset_decode(json_string_value(json_object_get(kids, names[k])) ?: "");
        *counts[k] = ids ? (int)idset_count(ids) : 0;
        idset_destroy(ids);
    }
    if (c->cores < 1)
        c->cores = 1;
}

/* The module's entry point: the broker calls it in the module's thread. */
__attribute__((visibility("default"))) int mod_main(flux_t *h, int argc, char **argv);

int mod_main(flux_t *h, int argc, char **argv)
{
    struct ceiling c = {.h = h};
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "one-core"))
            c.one_core = true;
        else if (!strcmp(argv[i], "summary"))
            c.summary = true;
        else if (!strcmp(argv[i], "window"))
            c.window = true;
        else {
            flux_log(h, LOG_ERR, "unknown option %s (one-core, summary and window are known)",
                     argv[i]);
            errno = EINVAL;
            return -1;
        }
    }
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
