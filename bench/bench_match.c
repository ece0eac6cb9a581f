/* bench_match.c: matching speed on machines of 1,024, 4,096 and 16,384
 * nodes (node = 2 sockets x (22 cores + 2 GPUs) + one memory pool).
 *
 * Job streams: (a) one whole node, exclusive; (b) one core; (c) 4 nodes,
 * each with 2 sockets of 4 cores + 1 GPU, shared; (d) the whole machine.
 * For each stream and policy: fill the machine with allocations, then
 * allocate-or-reserve 200 more.  Prints per-match median and p99 and jobs
 * per second for each phase, in CPU time.
 *
 *   build/bench/bench_match [NODES...] [-p POLICY...] [-s STREAM...]
 *
 * It must not build its machine by a builder of its own (grovetest.h's
 * test_cluster builds it) nor assert like a test: it measures and
 * reports.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "graph.h"
#include "aggregate.h"
#include "pool.h"
#include "walker.h"
#include "compose.h"
#include "match.h"
#include "grovetest.h"

/* CPU time of this process: the figures stay meaningful on a shared
 * machine (the wall clock counts other programs' turns too). */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* cluster0 > rack (32 nodes each) > node (ranked) > socket0-1 > 22 cores,
 * 2 gpus; memory0 of 256 GB on each node. */
static grove_graph_t *machine(int nodes)
{
    return test_cluster(&(test_shape_t){ .nodes = nodes, .per_rack = 32, .sockets = 2,
                                         .cores = 22, .gpus = 2, .node_mem = 256,
                                         .node_mem_unit = "GB" });
}

static const char *tail = "attributes: {system: {duration: 3600}}\n"
                          "tasks: [{command: [app], slot: s, count: {per_slot: 1}}]\n";

static grove_jobspec_t *spec(char stream, int nodes)
{
    char text[1024];
    switch (stream) {
    case 'a':
        snprintf(text, sizeof(text),
                 "version: 9999\nresources:\n- type: node\n  count: 1\n  exclusive: true\n"
                 "  with:\n  - type: slot\n    count: 1\n    label: s\n    with:\n"
                 "    - type: core\n      count: 44\n%s",
                 tail);
        break;
    case 'b':
        snprintf(text, sizeof(text),
                 "version: 9999\nresources:\n- type: slot\n  count: 1\n  label: s\n  with:\n"
                 "  - type: core\n    count: 1\n%s",
                 tail);
        break;
    case 'c':
        snprintf(text, sizeof(text),
                 "version: 9999\nresources:\n- type: node\n  count: 4\n  with:\n"
                 "  - type: slot\n    count: 1\n    label: s\n    with:\n"
                 "    - type: socket\n      count: 2\n      with:\n"
                 "      - type: core\n        count: 4\n      - type: gpu\n        count: 1\n%s",
                 tail);
        break;
    default:
        snprintf(text, sizeof(text),
                 "version: 9999\nresources:\n- type: slot\n  count: 1\n  label: s\n  with:\n"
                 "  - type: node\n    count: %d\n    exclusive: true\n%s",
                 nodes, tail);
        break;
    }
    grove_error_t err;
    grove_jobspec_t *js = grove_jobspec_parse(text, strlen(text), NULL, &err);
    if (!js) {
        fprintf(stderr, "jobspec %c: %s\n", stream, err.text);
        exit(1);
    }
    return js;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *what, double *t, size_t n)
{
    if (n == 0) {
        printf("    %-8s  no further matches\n", what);
        return;
    }
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += t[i];
    qsort(t, n, sizeof(*t), cmp_d);
    double med = t[n / 2], p99 = t[(size_t)((double)(n - 1) * 0.99)];
    printf("    %-8s %8zu jobs  median %9.1f us  p99 %9.1f us  %10.0f jobs/s\n", what, n,
           med * 1e6, p99 * 1e6, (double)n / sum);
}

static void run(int nodes, const char *policy, char stream)
{
    grove_graph_t *g = machine(nodes);
    grove_matcher_t *m = grove_matcher_create(g, NULL);
    grove_matcher_set_policy(m, grove_policy_builtin(policy));
    grove_jobspec_t *js = spec(stream, nodes);
    size_t cap = (size_t)nodes * 46 + 16;
    double *fill = malloc(cap * sizeof(double)), *resv = malloc(256 * sizeof(double));
    size_t nf = 0, nr = 0;
    /* the first match also builds the pruning aggregates of the new graph:
     * reported on its own */
    double first = -1;
    for (;;) {
        double t0 = now_s();
        int rc = grove_match(m, js, GROVE_MATCH_ALLOCATE, 0, NULL, NULL);
        double dt = now_s() - t0;
        if (rc < 0)
            break;
        if (first < 0)
            first = dt;
        else if (nf < cap)
            fill[nf++] = dt;
    }
    for (int i = 0; i < 200; i++) {
        double t0 = now_s();
        int rc = grove_match(m, js, GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, 0, NULL, NULL);
        double dt = now_s() - t0;
        if (rc < 0) {
            fprintf(stderr, "reserve failed: %s\n", strerror(errno));
            break;
        }
        resv[nr++] = dt;
    }
    printf("  %5d nodes  %-6s  (%c)  first match %.1f us (with aggregate build)\n", nodes,
           policy, stream, first * 1e6);
    report("fill", fill, nf);
    report("reserve", resv, nr);
    fflush(stdout);
    free(fill);
    free(resv);
    grove_jobspec_destroy(js);
    grove_matcher_destroy(m);
    grove_graph_destroy(g);
}

int main(int argc, char **argv)
{
    int sizes[8], nsizes = 0;
    const char *policies[16];
    int npol = 0;
    char streams[8];
    int nstreams = 0;
    int mode = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-p"))
            mode = 1;
        else if (!strcmp(argv[i], "-s"))
            mode = 2;
        else if (mode == 1 && npol < 16)
            policies[npol++] = argv[i];
        else if (mode == 2 && nstreams < 8)
            streams[nstreams++] = argv[i][0];
        else if (mode == 0 && nsizes < 8)
            sizes[nsizes++] = atoi(argv[i]);
    }
    if (!nsizes) {
        sizes[0] = 1024;
        sizes[1] = 4096;
        sizes[2] = 16384;
        nsizes = 3;
    }
    if (!npol) {
        policies[0] = "first";
        policies[1] = "low";
        policies[2] = "high";
        npol = 3;
    }
    if (!nstreams) {
        memcpy(streams, "abcd", 4);
        nstreams = 4;
    }
    printf("bench_match: fill the machine, then allocate-or-reserve 200 more\n");
    for (int s = 0; s < nstreams; s++)
        for (int z = 0; z < nsizes; z++)
            for (int p = 0; p < npol; p++)
                run(sizes[z], policies[p], streams[s]);
    return 0;
}
