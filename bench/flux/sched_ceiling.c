/* sched_ceiling.c: sched-ceiling.so, a Flux scheduler module that does no
 * scheduling, the ceiling a scheduler's throughput is measured against
 * (bench/flux_throughput.sh).
 *
 * It grants every job one core of the next rank in turn, whatever the job
 * asked for, without a graph, a match or a queue: the jobs/s an instance
 * reaches with it is what the rest of Flux (job manager, KVS, exec) allows.
 * Only for benchmarks under the test execution (jobs that start no
 * shell): it books resources twice and ignores every request's shape.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <flux/core.h>
#include <flux/schedutil.h>
#include <jansson.h>

struct ceiling {
    flux_t *h;
    schedutil_t *util;
    json_t *ranks; /* the R_lite entries' rank idsets as one array of ranks */
    int nranks, next;
    char **hosts; /* the nodelist expanded, one host a rank (or NULL) */
};

static void alloc_cb(flux_t *h, const flux_msg_t *msg, void *arg)
{
    struct ceiling *c = arg;
    int rank = c->nranks ? c->next++ % c->nranks : 0;
    char R[512];
    snprintf(R, sizeof(R),
             "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"%d\","
             "\"children\":{\"core\":\"0\"}}],\"starttime\":0,\"expiration\":0,"
             "\"nodelist\":[\"%s\"]}}",
             rank, c->hosts && c->hosts[rank] ? c->hosts[rank] : "localhost");
    if (schedutil_alloc_respond_success_pack(c->util, msg, R, NULL) < 0)
        flux_log_error(h, "alloc");
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

static const struct flux_msg_handler_spec htab[] = {
    {FLUX_MSGTYPE_REQUEST, "feasibility.check", feasibility_cb, FLUX_ROLE_USER},
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
    return rc;
}
