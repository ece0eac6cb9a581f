/* bench_memory.c: memory that comes back.  On a machine of 16,384 nodes
 * (node = 2 sockets x (22 cores + 2 GPUs) + one memory pool), allocate
 * 100,000 one-core jobs, cancel them all, and print the graph's own byte
 * count (grove_graph_bytes), the process's resident memory (VmRSS) and,
 * with glibc, the heap in use (mallinfo2: live memory, to tell it from
 * free pages the process still holds) before, at the peak and after each
 * of several rounds, with the change from the start in percent, and what
 * a held job costs (the growth at the peak divided by the jobs).  The
 * target: after cancelling, both within 10% of where they started, in
 * every round.
 *
 *   build/bench/bench_memory [NODES [JOBS [ROUNDS]]]
 *
 * It must not build its machine by a builder of its own (grovetest.h's
 * test_cluster builds it) nor assert like a test: it measures and
 * reports (its exit status is 0 however the figures come out).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "graph.h"
#include "aggregate.h"
#include "pool.h"
#include "walker.h"
#include "compose.h"
#include "jobspec.h"
#include "match.h"
#include "grovetest.h"

/* Resident memory of this process in KiB, from /proc/self/status. */
static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof(line), f))
        if (!strncmp(line, "VmRSS:", 6))
            kib = strtol(line + 6, NULL, 10);
    if (f)
        fclose(f);
    return kib;
}

/* Bytes the allocator has handed out and not had back, in KiB (glibc;
 * -1 elsewhere): beside RSS it tells live memory from free pages the
 * process still holds. */
static long heap_kib(void)
{
#ifdef __GLIBC__
    struct mallinfo2 mi = mallinfo2();
    return (long)((mi.uordblks + mi.hblkhd) / 1024);
#else
    return -1;
#endif
}

static double pct(double now, double start)
{
    return start > 0 ? 100.0 * (now - start) / start : 0;
}

int main(int argc, char **argv)
{
    int nodes = argc > 1 ? atoi(argv[1]) : 16384;
    int jobs = argc > 2 ? atoi(argv[2]) : 100000;
    int rounds = argc > 3 ? atoi(argv[3]) : 3;
    grove_graph_t *g = test_cluster(&(test_shape_t){.nodes = nodes, .per_rack = 32, .sockets = 2,
                                                    .cores = 22, .gpus = 2, .node_mem = 256,
                                                    .node_mem_unit = "GB"});
    grove_matcher_t *m = grove_matcher_create(g, NULL);
    static const char spec[] = "version: 1\nresources:\n  - type: slot\n    label: default\n"
                               "    count: 1\n    with:\n      - type: core\n        count: 1\n"
                               "tasks:\n  - command: [app]\n    slot: default\n    count:\n"
                               "      per_slot: 1\nattributes:\n  system:\n    duration: 3600\n";
    grove_error_t err;
    grove_jobspec_opts_t o = {.source = "bench"};
    grove_jobspec_t *js = grove_jobspec_parse(spec, strlen(spec), &o, &err);
    if (!g || !m || !js) {
        fprintf(stderr, "bench_memory: setup failed: %s\n", err.text);
        return 1;
    }
    /* one match and cancel first, so that what is built once on first use
     * (aggregates, scratch arrays) counts in the start */
    const grove_job_t *j;
    if (grove_match(m, js, GROVE_MATCH_ALLOCATE, 0, &j, &err) == 0)
        grove_matcher_cancel(m, j->id);
    double b0 = (double)grove_graph_bytes(g), r0 = (double)rss_kib(), h0 = (double)heap_kib();
    printf("# %d nodes, %zu vertices; %d one-core jobs per round\n", nodes,
           grove_graph_vertex_count(g), jobs);
    printf("%-6s %10s %10s %10s %9s %9s %9s\n", "round", "graph MiB", "RSS MiB", "heap MiB",
           "graph %", "RSS %", "heap %");
    printf("%-6s %10.1f %10.1f %10.1f\n", "start", b0 / 1048576, r0 / 1024, h0 / 1024);
    grove_jobid_t *ids = malloc((size_t)jobs * sizeof(*ids));
    for (int r = 1; r <= rounds; r++) {
        int n = 0;
        clock_t c0 = clock();
        for (int k = 0; k < jobs; k++)
            if (grove_match(m, js, GROVE_MATCH_ALLOCATE, 0, &j, &err) == 0)
                ids[n++] = j->id;
        double us = 1e6 * (double)(clock() - c0) / CLOCKS_PER_SEC / (jobs ? jobs : 1);
        double bp = (double)grove_graph_bytes(g), rp = (double)rss_kib(), hp = (double)heap_kib();
        clock_t c1 = clock();
        for (int k = 0; k < n; k++)
            grove_matcher_cancel(m, ids[k]);
#ifdef __GLIBC__
        /* the quiet point: free pages go back to the system here, as the
         * caller's choice (the library no longer trims by itself) */
        malloc_trim(0);
#endif
        double cus = 1e6 * (double)(clock() - c1) / CLOCKS_PER_SEC / (n ? n : 1);
        double b1 = (double)grove_graph_bytes(g), r1 = (double)rss_kib(), h1 = (double)heap_kib();
        /* per held job: what holding them added, in bytes */
        double per = n ? 1024.0 / n : 0;
        printf("%-6s %10.1f %10.1f %10.1f %+9.1f %+9.1f %+9.1f   (%d allocated, %.1f us a job;"
               " a held job: %.0f B resident, %.0f B heap)\n",
               "peak", bp / 1048576, rp / 1024, hp / 1024, pct(bp, b0), pct(rp, r0), pct(hp, h0),
               n, us, (rp - r0) * per, (hp - h0) * per);
        printf("%-6d %10.1f %10.1f %10.1f %+9.1f %+9.1f %+9.1f   (all cancelled, oldest first:"
               " %.1f us a job)\n",
               r, b1 / 1048576, r1 / 1024, h1 / 1024, pct(b1, b0), pct(r1, r0), pct(h1, h0), cus);
    }
    free(ids);
    grove_jobspec_destroy(js);
    grove_matcher_destroy(m);
    grove_graph_destroy(g);
    return 0;
}
