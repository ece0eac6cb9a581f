/* bench_topo.c: the graph of an instance's R whose nodes have an hwloc
 * topology, at machine scale: build time and bytes a vertex.
 *
 * For each size N (default 1,024 and 16,384), the R of N nodes of the
 * XML's shape (R_lite: every rank the XML's cores and GPUs, hosts
 * node[0-N-1]) is built into a graph with one class giving every rank the
 * XML (grove_rv1_build_topo: each node's sockets, NUMA domains, cores and
 * GPUs), as sched-grove builds it from its first resource.acquire
 * response; and, beside it, flat (grove_rv1_build: R_lite's cores and
 * GPUs).  Prints, per size and form: vertices, build time (CPU and wall),
 * resident bytes a vertex (growth of the resident set across the build,
 * /proc/self/statm) and the graph's own count (grove_graph_bytes); then
 * what a matcher builds beside it before its first match
 * (grove_matcher_prepare: its CPU time, and the resident bytes a vertex
 * of graph and matcher together).  Each
 * build runs in a child process, so memory freed by one does not hide the
 * growth of the next.  The XML is read once, before the clock starts (a
 * class is read once an instance).
 *
 * Targets at 16,384 nodes of tuo.CPX (129 vertices a node): built in at
 * most 2 s, at most 150 bytes a vertex.  Exits 1 when one is missed.
 *
 *     bench_topo [XML [NODES...]]   (XML: tuo.CPX.xml of flux-core's tree at
 *                                    /opt/flux-core, else the fixture
 *                                    spec/fixtures/hwloc/two-packages.xml)
 *
 * It measures and reports; it asserts nothing a test would.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "graph.h"
#include "match.h"
#include "rv1.h"
#include "rv1_topo.h"
#include "topo.h"
#include "grovetest.h"

/* One build of N nodes, topology or flat; 0 when the targets hold. */
static int run(const char *xml, int nodes, bool topo)
{
    grove_error_t err;
    grove_topo_t *t = grove_topo_load_xml(xml, &err);
    if (!t) {
        fprintf(stderr, "%s\n", err.text);
        return 2;
    }
    grove_idset_t *cores = grove_topo_ids(t, "core"), *gpus = grove_topo_ids(t, "gpu");
    char *cs = grove_idset_encode(cores, GROVE_IDSET_FLAG_RANGE);
    char *gs = grove_idset_encode(gpus, GROVE_IDSET_FLAG_RANGE);
    char text[512];
    snprintf(text, sizeof(text),
             "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0-%d\",\"children\":"
             "{\"core\":\"%s\"%s%s%s}}],\"nodelist\":[\"node[0-%d]\"]}}",
             nodes - 1, cs, *gs ? ",\"gpu\":\"" : "", gs, *gs ? "\"" : "", nodes - 1);
    grove_rv1_t *R = grove_rv1_decode(text, strlen(text), "R", &err);
    grove_rtopo_t *rt = grove_rtopo_create();
    char ranks[32];
    snprintf(ranks, sizeof(ranks), "0-%d", nodes - 1);
    grove_idset_t *all = grove_idset_decode(ranks, NULL);
    if (!R || !rt || !all || grove_rtopo_add_take(rt, all, t) < 0) {
        fprintf(stderr, "setup failed\n");
        return 2;
    }
    grove_graph_t *g = grove_graph_create();
    size_t rss0 = test_rss_bytes();
    test_stamp_t t0 = test_stamp();
    int rc = topo ? grove_rv1_build_topo(g, R, rt, &err) : grove_rv1_build(g, R, &err);
    test_stamp_t t1 = test_stamp();
    size_t rss1 = test_rss_bytes();
    if (rc < 0) {
        fprintf(stderr, "build: %s\n", err.text);
        return 2;
    }
    size_t nv = grove_graph_vertex_count(g);
    double rss_pv = (double)(rss1 - rss0) / (double)nv;
    double own_pv = (double)grove_graph_bytes(g) / (double)nv;
    double cpu = t1.cpu - t0.cpu, wall = t1.wall - t0.wall;
    /* and what a scheduler builds beside it before its first match */
    grove_matcher_t *m = grove_matcher_create(g, NULL);
    test_stamp_t t2 = test_stamp();
    if (!m || grove_matcher_prepare(m) < 0) {
        fprintf(stderr, "matcher: %s\n", strerror(errno));
        return 2;
    }
    test_stamp_t t3 = test_stamp();
    double all_pv = (double)(test_rss_bytes() - rss0) / (double)nv;
    printf("%6d %-5s %9zu %7.1f %8.3f %8.3f %8.1f %8.1f %8.3f %8.1f\n", nodes,
           topo ? "topo" : "flat", nv, (double)nv / nodes, cpu, wall, rss_pv, own_pv,
           t3.cpu - t2.cpu, all_pv);
    int miss = topo && nodes >= 16384 && (cpu > 2.0 || rss_pv > 150 || own_pv > 150);
    grove_matcher_destroy(m);
    grove_graph_destroy(g);
    grove_rtopo_destroy(rt);
    grove_rv1_destroy(R);
    grove_idset_destroy(all);
    grove_idset_destroy(cores);
    grove_idset_destroy(gpus);
    free(cs);
    free(gs);
    return miss;
}

int main(int argc, char **argv)
{
    /* without one: flux-core's tuo.CPX.xml where its tree is, else the
     * project's fixture (make bench runs it so) */
    const char *xml = argc > 1 ? argv[1] : "/opt/flux-core/t/hwloc-data/tuo.CPX.xml";
    if (argc < 2 && access(xml, R_OK) != 0)
        xml = "spec/fixtures/hwloc/two-packages.xml";
    printf("%s\n", xml);
    int sizes[16] = {1024, 16384}, nsizes = 2;
    if (argc > 2) {
        nsizes = 0;
        for (int i = 2; i < argc && nsizes < 16; i++)
            sizes[nsizes++] = atoi(argv[i]);
    }
    printf("%6s %-5s %9s %7s %8s %8s %8s %8s %8s %8s\n", "nodes", "form", "vertices", "v/node",
           "cpu_s", "wall_s", "B/v_rss", "B/v_own", "prep_s", "B/v_all");
    int failed = 0;
    for (int i = 0; i < nsizes; i++)
        for (int topo = 1; topo >= 0; topo--) {
            fflush(stdout);
            pid_t pid = fork();
            if (pid == 0) {
                int rc = run(xml, sizes[i], topo);
                fflush(stdout);
                _exit(rc);
            }
            int status = 0;
            waitpid(pid, &status, 0);
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                failed = 1;
        }
    return failed;
}
