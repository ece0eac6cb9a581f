/* grovetest.h: the graphs of Grove's C unit tests and benchmarks, built
 * one way: a vertex at a time (test_vertex), or a whole cluster from a
 * shape (test_cluster: cluster > racks > nodes > sockets > cores, gpus,
 * memory), plus the texts a graph and a JSON document are compared by.
 *
 * Header-only like tap.h, every helper static inline so a program that
 * does not use one gets no warning; the benchmarks include it too, so it
 * must not depend on tap.h.  It must not hold assertions or test tables:
 * those stay in the test that owns them.
 */
#ifndef GROVE_GROVETEST_H
#define GROVE_GROVETEST_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "graph.h"
#include "aggregate.h"
#include "pool.h"
#include "walker.h"
#include "compose.h"
#include "jgf.h"

/* Add the vertex info describes under parent (GROVE_VID_NONE: a root); its
 * id.  Every caller builds a graph it knows to be valid, so a refusal
 * stops the program (exit 2) rather than leaving a graph of another shape. */
static inline grove_vid_t test_vertex_add(grove_graph_t *g, const grove_vertex_info_t *info,
                                          grove_vid_t parent)
{
    grove_error_t err;
    grove_vid_t v = grove_graph_add_vertex(g, info);
    if (v == GROVE_VID_NONE) {
        perror("grove_graph_add_vertex");
        exit(2);
    }
    if (parent != GROVE_VID_NONE && grove_graph_add_child(g, parent, v, NULL, &err) < 0) {
        fprintf(stderr, "grove_graph_add_child: %s\n", err.text);
        exit(2);
    }
    return v;
}

/* Add a vertex of type with id and size (no rank, no unit) under parent;
 * its id. */
static inline grove_vid_t test_vertex(grove_graph_t *g, const char *type, int64_t id,
                                      int64_t size, grove_vid_t parent)
{
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    info.type = type;
    info.id = id;
    info.size = size;
    return test_vertex_add(g, &info, parent);
}

/* The shape of a test cluster.  Vertices are added depth first in this
 * order: the cluster (id 0); per rack, the rack; per node, the node, then
 * per socket the socket, its cores, gpus and memory pools, then the node's
 * own memory pool.  Zero counts leave a level out. */
typedef struct test_shape {
    const char *basename; /* of the cluster; NULL: "cluster" */
    int nodes;            /* node ids and ranks 0 .. nodes-1 */
    int per_rack;         /* nodes in each rack (the last may hold fewer);
                             0: the nodes sit under the cluster */
    int sockets;          /* per node; 0: what a socket holds sits under the node */
    int cores, gpus;      /* per socket, ids counted per node */
    int mems;             /* memory pools per socket, ids counted per node */
    int64_t mem_size;     /* units in each of them */
    const char *mem_unit; /* their unit; NULL: none */
    int64_t node_mem;     /* units in the node's own memory0; 0: none */
    const char *node_mem_unit;
    int rank_below;       /* nonzero: a node's sockets, cores, gpus and
                             memory carry its rank too */
} test_shape_t;

/* Add count vertices of type, ids first .. first+count-1, under parent. */
static inline void test_leaves(grove_graph_t *g, grove_vertex_info_t *info, const char *type,
                               int first, int count, int64_t size, const char *unit,
                               grove_vid_t parent)
{
    info->type = type;
    info->size = size;
    info->unit = unit;
    for (int k = 0; k < count; k++) {
        info->id = first + k;
        test_vertex_add(g, info, parent);
    }
}

/* A new graph of the given shape (caller destroys). */
static inline grove_graph_t *test_cluster(const test_shape_t *sh)
{
    grove_graph_t *g = grove_graph_create();
    if (!g) {
        perror("grove_graph_create");
        exit(2);
    }
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    info.type = "cluster";
    info.basename = sh->basename;
    info.id = 0;
    grove_vid_t cluster = test_vertex_add(g, &info, GROVE_VID_NONE), rack = cluster;
    info.basename = NULL;
    for (int n = 0; n < sh->nodes; n++) {
        if (sh->per_rack && n % sh->per_rack == 0)
            rack = test_vertex(g, "rack", n / sh->per_rack, 1, cluster);
        grove_vertex_info_init(&info);
        info.type = "node";
        info.id = n;
        info.rank = n;
        grove_vid_t node = test_vertex_add(g, &info, rack);
        if (!sh->rank_below)
            info.rank = GROVE_ID_NONE;
        for (int s = 0; s < (sh->sockets ? sh->sockets : 1); s++) {
            grove_vid_t sock = node;
            if (sh->sockets) {
                info.type = "socket";
                info.id = s;
                info.size = 1;
                info.unit = NULL;
                sock = test_vertex_add(g, &info, node);
            }
            test_leaves(g, &info, "core", s * sh->cores, sh->cores, 1, NULL, sock);
            test_leaves(g, &info, "gpu", s * sh->gpus, sh->gpus, 1, NULL, sock);
            test_leaves(g, &info, "memory", s * sh->mems, sh->mems, sh->mem_size, sh->mem_unit,
                        sock);
        }
        if (sh->node_mem)
            test_leaves(g, &info, "memory", 0, 1, sh->node_mem, sh->node_mem_unit, node);
    }
    return g;
}

/* The graph with its state (statuses, tags, records) as compact JGF, new
 * text (caller frees): two graphs are the same when their texts are. */
static inline char *test_state_text(const grove_graph_t *g)
{
    return grove_jgf_write(g, GROVE_JGF_WITH_STATE | GROVE_JGF_COMPACT);
}

/* Do texts a and b hold the same JSON value (object keys in any order)?
 * False when either is not JSON. */
static inline bool test_same_json(const char *a, const char *b)
{
    json_t *x = json_loads(a, 0, NULL), *y = json_loads(b, 0, NULL);
    bool same = x && y && json_equal(x, y);
    json_decref(x);
    json_decref(y);
    return same;
}

/* Wall-clock and CPU time of this process, for the benchmarks' figures:
 * test_stamp() now, test_since(t0) what passed since t0. */
typedef struct test_stamp {
    double wall, cpu;
} test_stamp_t;

static inline test_stamp_t test_stamp(void)
{
    struct timespec w, c;
    clock_gettime(CLOCK_MONOTONIC, &w);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
    return (test_stamp_t){(double)w.tv_sec + (double)w.tv_nsec / 1e9,
                          (double)c.tv_sec + (double)c.tv_nsec / 1e9};
}

static inline test_stamp_t test_since(test_stamp_t t0)
{
    test_stamp_t t = test_stamp();
    return (test_stamp_t){t.wall - t0.wall, t.cpu - t0.cpu};
}

/* The resident set size of this process in bytes (/proc/self/statm; 0
 * when it cannot be read), for the benchmarks' bytes a vertex. */
static inline size_t test_rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, res = 0;
    if (f) {
        if (fscanf(f, "%lu %lu", &size, &res) != 2)
            res = 0;
        fclose(f);
    }
    return (size_t)res * (size_t)sysconf(_SC_PAGESIZE);
}

#endif
