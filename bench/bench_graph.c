/* bench_graph.c: graph build, memory and JGF round trip at machine scale.
 *
 * Builds a cluster of N nodes for N = 1,024, 4,096 and 16,384 (or the sizes
 * given on the command line) through the public C API only
 * (grove_graph_add_vertex + grove_graph_add_child, so every tree edge is a
 * contains/in pair):
 *
 *     cluster0
 *       rack0 .. rack63                 (64 racks; N / 64 nodes each, or
 *                                        one each below 64 nodes)
 *         node<i>                       (rank i, i = 0 .. N-1)
 *           socket0, socket1
 *             22 cores each             (core0 .. core43 per node)
 *             2 gpus each               (gpu0 .. gpu3 per node)
 *           memory0                     (size 256, unit "GB")
 *
 * i.e. 52 vertices per node (the node, 2 sockets, 44 cores, 4 GPUs, one
 * memory pool) plus 65 above; 852,033 vertices and 1,704,064 edges at
 * 16,384 nodes.
 *
 * For each size it prints: build time; vertices and edges; resident bytes
 * per vertex (growth of the resident set, from /proc/self/statm, across the
 * build) and the graph's own count (grove_graph_bytes); the time of a deep
 * copy (grove_graph_duplicate); JGF write time and size (compact); JGF read time; whether a second write gives the same
 * bytes.  Times are CPU time of the process and wall-clock time: on a
 * shared, busy machine only the first is meaningful.  Each size runs in a
 * child process so that memory freed by one size does not hide the growth
 * of the next.
 *
 * Targets at 16,384 nodes: at most 200 bytes per vertex, build under 1 s,
 * JGF read under 3 s (CPU time).  The program exits 1 when one is missed.
 *
 *     bench_graph [NODES...]
 *     bench_graph --chain DEPTH...
 *
 * --chain: a containment chain of DEPTH vertices instead, written with
 * whole paths (the default, DEPTH^2 / 2 names) and without
 * (GROVE_JGF_NO_PATHS), each read back: times and sizes, no targets;
 * whole paths only up to 30,000 deep (beyond, tens of gigabytes).
 *
 * It must not build its graph by a builder of its own (grovetest.h's
 * test_cluster builds it) nor assert like a test: it measures and
 * reports.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "graph.h"
#include "aggregate.h"
#include "pool.h"
#include "walker.h"
#include "compose.h"
#include "jgf.h"
#include "grovetest.h"

#define RACKS 64

/* g as JGF text (flags), its length in *len and the time it took in *t;
 * exits when it cannot be written. */
static char *jgf_write_timed(const grove_graph_t *g, int flags, test_stamp_t *t, size_t *len)
{
    test_stamp_t t0 = test_stamp();
    char *text = grove_jgf_write(g, flags);
    *t = test_since(t0);
    if (!text) {
        perror("grove_jgf_write");
        exit(2);
    }
    *len = strlen(text);
    return text;
}

/* The graph of JGF text (NULL and *err on failure), the time it took in *t. */
static grove_graph_t *jgf_read_timed(const char *text, size_t len, const char *name, test_stamp_t *t,
                                     grove_error_t *err)
{
    test_stamp_t t0 = test_stamp();
    grove_graph_t *g = grove_jgf_read(text, len, name, err);
    *t = test_since(t0);
    return g;
}

/* The machine above: 64 racks of N / 64 nodes (N below 64: one node a
 * rack); every vertex of a node carries its rank. */
static grove_graph_t *build(int nodes)
{
    return test_cluster(&(test_shape_t){ .nodes = nodes, .per_rack = (nodes + RACKS - 1) / RACKS,
                                         .sockets = 2, .cores = 22, .gpus = 2, .node_mem = 256,
                                         .node_mem_unit = "GB", .rank_below = 1 });
}

/* One size; returns the number of targets missed. */
static int run(int nodes)
{
    size_t rss0 = test_rss_bytes();
    test_stamp_t t0 = test_stamp();
    grove_graph_t *g = build(nodes);
    test_stamp_t t_build = test_since(t0);
    size_t rss1 = test_rss_bytes();
    size_t nv = grove_graph_vertex_count(g), ne = grove_graph_edge_count(g);
    double rss_pv = (double)(rss1 - rss0) / (double)nv;
    double own_pv = (double)grove_graph_bytes(g) / (double)nv;

    /* the deep copy every store save and sim snapshot makes */
    t0 = test_stamp();
    grove_graph_t *dup = grove_graph_duplicate(g);
    test_stamp_t t_dup = test_since(t0);
    if (!dup || grove_graph_vertex_count(dup) != nv || grove_graph_edge_count(dup) != ne) {
        fprintf(stderr, "grove_graph_duplicate failed\n");
        exit(2);
    }
    grove_graph_destroy(dup);

    test_stamp_t t_write, t_read;
    size_t len;
    grove_error_t err;
    char *text = jgf_write_timed(g, GROVE_JGF_COMPACT, &t_write, &len);
    grove_graph_t *g2 = jgf_read_timed(text, len, "bench", &t_read, &err);
    if (!g2) {
        fprintf(stderr, "grove_jgf_read: %s\n", err.text);
        exit(2);
    }
    char *text2 = grove_jgf_write(g2, GROVE_JGF_COMPACT);
    bool same = text2 && !strcmp(text, text2) && grove_graph_vertex_count(g2) == nv
                && grove_graph_edge_count(g2) == ne;

    printf("nodes %6d  vertices %7zu  edges %7zu\n", nodes, nv, ne);
    printf("  build      %6.3f s cpu  %6.3f s wall  (%.0f ns cpu/vertex)\n", t_build.cpu,
           t_build.wall, t_build.cpu * 1e9 / (double)nv);
    printf("  memory     %6.1f B/vertex resident (RSS growth)  %.1f B/vertex graph_bytes\n",
           rss_pv, own_pv);
    printf("  duplicate  %6.3f s cpu  %6.3f s wall\n", t_dup.cpu, t_dup.wall);
    printf("  JGF write  %6.3f s cpu  %6.3f s wall  %.1f MB compact\n", t_write.cpu,
           t_write.wall, (double)len / 1e6);
    printf("  JGF read   %6.3f s cpu  %6.3f s wall  second write identical: %s\n", t_read.cpu,
           t_read.wall, same ? "yes" : "NO");
    fflush(stdout);

    int missed = !same;
    if (nodes == 16384) {
        /* CPU time: the wall-clock time of an idle machine, and what a
         * loaded one still measures faithfully */
        if (rss_pv > 200 || own_pv > 200) {
            printf("  MISSED: more than 200 bytes per vertex\n");
            missed++;
        }
        if (t_build.cpu >= 1.0) {
            printf("  MISSED: build took 1 s or more\n");
            missed++;
        }
        if (t_read.cpu >= 3.0) {
            printf("  MISSED: JGF read took 3 s or more\n");
            missed++;
        }
    }
    free(text);
    free(text2);
    grove_graph_destroy(g);
    grove_graph_destroy(g2);
    return missed;
}

/* A chain of depth vertices: JGF with and without paths. */
static void run_chain(int depth)
{
    grove_graph_t *g = grove_graph_create();
    grove_vid_t v = GROVE_VID_NONE;
    for (int i = 0; i < depth; i++)
        v = test_vertex(g, "box", i, 1, v);
    printf("chain %d\n", depth);
    static const struct {
        const char *what;
        int flags;
    } forms[] = {{"whole paths", GROVE_JGF_COMPACT},
                 {"no paths   ", GROVE_JGF_COMPACT | GROVE_JGF_NO_PATHS}};
    for (int f = 0; f < 2; f++) {
        if (f == 0 && depth > 30000) {
            /* whole paths: about 4 * depth^2 bytes (40 GB at 100,000) */
            printf("  %s  not written: about %.0f GB\n", forms[f].what,
                   4.0 * depth * (double)depth / 1e9);
            continue;
        }
        test_stamp_t tw, tr;
        size_t len;
        grove_error_t err;
        char *text = jgf_write_timed(g, forms[f].flags, &tw, &len);
        grove_graph_t *g2 = jgf_read_timed(text, len, "chain", &tr, &err);
        printf("  %s  write %7.3f s cpu  %10.1f MB   read %7.3f s cpu  %s\n", forms[f].what,
               tw.cpu, (double)len / 1e6, tr.cpu,
               g2 && grove_graph_vertex_count(g2) == (size_t)depth ? "read back whole"
                                                                   : err.text);
        fflush(stdout);
        free(text);
        grove_graph_destroy(g2);
    }
    grove_graph_destroy(g);
}

int main(int argc, char **argv)
{
    if (argc > 2 && !strcmp(argv[1], "--chain")) {
        for (int i = 2; i < argc; i++)
            run_chain(atoi(argv[i]));
        return 0;
    }
    static const int dflt[] = {1024, 4096, 16384};
    int nsizes = argc > 1 ? argc - 1 : 3;
    int missed = 0;
    for (int i = 0; i < nsizes; i++) {
        int nodes = argc > 1 ? atoi(argv[i + 1]) : dflt[i];
        if (nodes <= 0) {
            fprintf(stderr, "usage: bench_graph [NODES...]\n");
            return 2;
        }
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 2;
        }
        if (pid == 0)
            _exit(run(nodes) ? 1 : 0);
        int st;
        if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) > 1)
            return 2;
        missed += WEXITSTATUS(st);
    }
    return missed ? 1 : 0;
}
