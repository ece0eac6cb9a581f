/* test_topo.c: node topologies from hwloc and clusters built from them.
 *
 * 1. every hwloc XML of the shared corpus (node-local storage: corona,
 *    lassen, catalyst; corona11 with AMD GPUs) with the type filters the
 *    corpus tests use and with "all": vertex counts per type, the node's
 *    name and id, storage ids, sizes and LinuxDeviceID, GPU ids, paths and
 *    the order of children (a drive after the cores of its NUMA group);
 * 2. synthetic descriptions: counts, ids, the added PU level, errors;
 * 3. clusters: hostlists, ranks, cluster names, filters (dropped levels,
 *    aliases, basenames, "all"), attach into an existing graph;
 * 4. the live topology of this machine;
 * 5. error rows with exact messages.
 *
 * It must not hold tests of the graph's own methods (test_graph.c) nor
 * need a particular machine to pass, beyond the live-topology step.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graph.h"
#include "aggregate.h"
#include "pool.h"
#include "walker.h"
#include "compose.h"
#include "tap.h"
#include "topo.h"
#include "rv1_topo.h"

static const char *xml_path(const char *rel)
{
    static char buf[512];
    snprintf(buf, sizeof(buf), "fluxion/hwloc-data/001N/%s", rel);
    return tap_conformance(buf);
}

static size_t count_type(const grove_graph_t *g, const char *type)
{
    grove_sym_t s = grove_graph_sym_lookup(g, type);
    return s == GROVE_SYM_NONE ? 0 : grove_graph_count_type(g, s);
}

static grove_vid_t at(const grove_graph_t *g, const char *path)
{
    grove_sym_t s = grove_graph_sym_lookup(g, GROVE_CONTAINMENT);
    return s == GROVE_SYM_NONE ? GROVE_VID_NONE : grove_graph_find_path(g, s, path);
}

/* "type=n ..." for the listed types. */
static const char *counts(const grove_graph_t *g, const char *const *types)
{
    static char buf[512];
    buf[0] = '\0';
    for (const char *const *t = types; *t; t++)
        snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s=%zu", t == types ? "" : " ",
                 *t, count_type(g, *t));
    return buf;
}

static const char *const ALLTYPES[] = {"cluster", "node", "socket", "group", "cache", "memory",
                                       "core",    "pu",   "gpu",    "storage", NULL};

/* ---- 1. corpus XML ------------------------------------------------------- */

static const char *const W_STORAGE[] = {"node", "socket", "core", "storage", NULL};
static const char *const W_GPU_STORAGE[] = {"node", "socket", "core", "gpu", "storage", NULL};
static const char *const W_SIBLING[] = {"node", "socket", "core", NULL};
static const char *const W_ALL[] = {"all", NULL};

static const struct xml_row {
    const char *file;
    const char *const *types;
    const char *counts; /* over ALLTYPES */
    const char *node;   /* node path */
    const char *paths[4];
} xml_rows[] = {
    {"node_local_storage/corona/0.xml", W_STORAGE,
     "cluster=1 node=1 socket=2 group=0 cache=0 memory=0 core=48 pu=0 gpu=0 storage=1",
     "/cluster0/corona116",
     {"/cluster0/corona116/socket0/storage0", "/cluster0/corona116/socket1/core47",
      "/cluster0/corona116/socket0/core23"}},
    {"node_local_storage/corona/0.xml", W_GPU_STORAGE,
     "cluster=1 node=1 socket=2 group=0 cache=0 memory=0 core=48 pu=0 gpu=0 storage=1",
     "/cluster0/corona116", {NULL}},
    {"node_local_storage/corona/0.xml", W_ALL,
     "cluster=1 node=1 socket=2 group=8 cache=16 memory=8 core=48 pu=96 gpu=0 storage=1",
     "/cluster0/corona116",
     {"/cluster0/corona116/socket0/group0/L3cache0/core0/pu0",
      "/cluster0/corona116/socket0/group0/memory0",
      "/cluster0/corona116/socket0/group0/storage0",
      "/cluster0/corona116/socket1/group7/L3cache15/core47/pu95"}},
    {"node_local_storage/corona/0.xml", NULL,
     "cluster=1 node=1 socket=2 group=0 cache=0 memory=8 core=48 pu=96 gpu=0 storage=1",
     "/cluster0/corona116", {"/cluster0/corona116/socket0/memory3"}},
    {"node_local_storage/lassen/0.xml", W_GPU_STORAGE,
     "cluster=1 node=1 socket=2 group=0 cache=0 memory=0 core=40 pu=0 gpu=4 storage=1",
     "/cluster0/lassen6",
     {"/cluster0/lassen6/socket0/storage0", "/cluster0/lassen6/socket0/gpu1",
      "/cluster0/lassen6/socket1/gpu3", "/cluster0/lassen6/socket1/core39"}},
    {"node_local_storage/lassen/0.xml", W_ALL,
     "cluster=1 node=1 socket=2 group=0 cache=20 memory=2 core=40 pu=160 gpu=4 storage=1",
     "/cluster0/lassen6", {"/cluster0/lassen6/socket1/memory1"}},
    {"node_local_storage/catalyst/0.xml", W_GPU_STORAGE,
     "cluster=1 node=1 socket=2 group=0 cache=0 memory=0 core=24 pu=0 gpu=0 storage=4",
     "/cluster0/catalyst321",
     {"/cluster0/catalyst321/socket1/storage6", "/cluster0/catalyst321/socket1/storage9",
      "/cluster0/catalyst321/socket0/core11"}},
    {"amd_gpu/corona11.xml", W_SIBLING,
     "cluster=1 node=1 socket=2 group=0 cache=0 memory=0 core=48 pu=0 gpu=0 storage=0",
     "/cluster0/corona11", {"/cluster0/corona11/socket1/core47"}},
    {"amd_gpu/corona11.xml", (const char *const[]){"node", "socket", "gpu", NULL},
     "cluster=1 node=1 socket=2 group=0 cache=0 memory=0 core=0 pu=0 gpu=4 storage=0",
     "/cluster0/corona11",
     {"/cluster0/corona11/socket0/gpu0", "/cluster0/corona11/socket0/gpu1",
      "/cluster0/corona11/socket1/gpu2", "/cluster0/corona11/socket1/gpu3"}},
};

static void test_xml(void)
{
    for (size_t i = 0; i < sizeof(xml_rows) / sizeof(xml_rows[0]); i++) {
        const struct xml_row *r = &xml_rows[i];
        grove_error_t err;
        grove_topo_t *t = grove_topo_load_xml(xml_path(r->file), &err);
        grove_graph_t *g = t ? grove_topo_cluster(NULL, t, NULL, 0, r->types, &err) : NULL;
        if (!ok(g != NULL, "xml %zu: %s loads", i, r->file)) {
            diag("%s", err.text);
            grove_topo_destroy(t);
            continue;
        }
        is_str(counts(g, ALLTYPES), r->counts, "xml %zu: %s: vertices per type", i, r->file);
        grove_vid_t n = at(g, r->node);
        ok(n != GROVE_VID_NONE && grove_vertex_rank(g, n) == 0, "xml %zu: node %s, rank 0", i,
           r->node);
        for (int p = 0; p < 4 && r->paths[p]; p++)
            ok(at(g, r->paths[p]) != GROVE_VID_NONE, "xml %zu: %s", i, r->paths[p]);
        grove_graph_destroy(g);
        grove_topo_destroy(t);
    }

    /* corona: node split, storage details, order of children, ranks */
    grove_error_t err;
    grove_topo_t *t = grove_topo_load_xml(xml_path("node_local_storage/corona/0.xml"), &err);
    grove_graph_t *g = grove_topo_cluster(NULL, t, NULL, 0, W_STORAGE, &err);
    if (ok(g != NULL, "corona: loads")) {
        is_str(grove_topo_hostname(t), "corona116", "corona: HostName");
        grove_vid_t node = at(g, "/cluster0/corona116");
        is_str(grove_vertex_basename(g, node), "corona", "corona: node basename");
        is_int(grove_vertex_id(g, node), 116, "corona: node id");
        grove_vid_t s = at(g, "/cluster0/corona116/socket0/storage0");
        is_int(grove_vertex_size(g, s), 1562, "corona: storage0 is 1562 GB");
        is_str(grove_vertex_unit(g, s), "GB", "corona: storage unit");
        is_str(grove_vertex_property(g, s, "LinuxDeviceID"), "259:0", "corona: LinuxDeviceID");
        is_int(grove_vertex_rank(g, s), 0, "corona: storage has the node's rank");
        is_int(grove_vertex_rank(g, 0), -1, "corona: cluster has no rank");
        /* socket0's children: core0..5, storage0, core6.. */
        grove_sym_t cs = grove_graph_sym_lookup(g, GROVE_CONTAINMENT);
        grove_eid_t cur;
        char order[256] = "";
        int k = 0;
        for (grove_vid_t c = grove_vertex_first_child(g, at(g, "/cluster0/corona116/socket0"),
                                                      cs, &cur);
             c != GROVE_VID_NONE && k < 8; c = grove_vertex_next_child(g, cs, &cur), k++)
            snprintf(order + strlen(order), sizeof(order) - strlen(order), "%s ",
                     grove_vertex_name(g, c));
        is_str(order, "core0 core1 core2 core3 core4 core5 storage0 core6 ",
               "corona: the drive follows the cores of its NUMA group");
        is_int(grove_topo_count(t, "core"), 48, "count: 48 cores");
        is_int(grove_topo_count(t, "L3cache"), 16, "count: 16 L3 caches");
        is_int(grove_topo_count(t, "cache"), 16, "count: 16 caches");
        is_int(grove_topo_count(t, "memory"), 8, "count: 8 NUMA nodes");
        is_int(grove_topo_count(t, "rack"), 0, "count: no racks");
    }
    grove_graph_destroy(g);
    grove_topo_destroy(t);

    /* catalyst: four drives with their device ids */
    t = grove_topo_load_xml(xml_path("node_local_storage/catalyst/0.xml"), &err);
    g = t ? grove_topo_cluster(NULL, t, NULL, 0, W_GPU_STORAGE, &err) : NULL;
    if (ok(g != NULL, "catalyst: loads")) {
        char ids[128] = "";
        grove_vid_t v = grove_graph_first_by_type(g, grove_graph_sym_lookup(g, "storage"));
        for (; v != GROVE_VID_NONE; v = grove_vertex_next_same_type(g, v))
            snprintf(ids + strlen(ids), sizeof(ids) - strlen(ids), "%s=%s/%lld ",
                     grove_vertex_name(g, v), grove_vertex_property(g, v, "LinuxDeviceID"),
                     (long long)grove_vertex_size(g, v));
        is_str(ids, "storage6=8:0/195 storage7=8:16/195 storage8=8:32/195 storage9=8:48/195 ",
               "catalyst: drives, device ids and sizes");
    }
    grove_graph_destroy(g);
    grove_topo_destroy(t);

    /* corona11: GPU ids come from the device names (opencl0dN) */
    t = grove_topo_load_xml(xml_path("amd_gpu/corona11.xml"), &err);
    const char *const wg[] = {"gpu", NULL};
    g = t ? grove_topo_cluster(NULL, t, NULL, 0, wg, &err) : NULL;
    if (ok(g != NULL, "corona11: gpus only")) {
        is_int(grove_graph_vertex_count(g), 5, "corona11: cluster and 4 gpus");
        ok(at(g, "/cluster0/gpu3") != GROVE_VID_NONE, "corona11: gpus attach to the cluster");
        is_int(grove_vertex_rank(g, 4), 0, "corona11: gpus keep the node's rank");
    }
    grove_graph_destroy(g);
    /* its drive has no Size: fine unless storage is kept */
    errno = 0;
    g = t ? grove_topo_cluster(NULL, t, NULL, 0, W_GPU_STORAGE, &err) : NULL;
    ok(!g && errno == EINVAL, "corona11: storage without Size refused");
    ok(strstr(err.text, "corona11.xml: storage device nvme0n1 has no Size") != NULL,
       "corona11: message (%s)", err.text);
    grove_topo_destroy(t);
}

/* ---- 2. synthetic --------------------------------------------------------- */

static const struct syn_row {
    const char *desc;
    const char *hosts;
    const char *const *types;
    const char *counts;
    const char *path;
} syn_rows[] = {
    {"pack:2 core:4 pu:2", NULL, NULL,
     "cluster=1 node=1 socket=2 group=0 cache=0 memory=1 core=8 pu=16 gpu=0 storage=0",
     "/cluster0/node0/socket1/core7/pu15"},
    {"pack:2 core:4", NULL, NULL,
     "cluster=1 node=1 socket=2 group=0 cache=0 memory=1 core=8 pu=8 gpu=0 storage=0",
     "/cluster0/node0/socket1/core7/pu7"},
    {"  pack:2   core:4  ", NULL, NULL,
     "cluster=1 node=1 socket=2 group=0 cache=0 memory=1 core=8 pu=8 gpu=0 storage=0", NULL},
    {"PACK:2 CORE:2 PU:1", NULL, NULL,
     "cluster=1 node=1 socket=2 group=0 cache=0 memory=1 core=4 pu=4 gpu=0 storage=0", NULL},
    {"pack:2 core:22 pu:2", "node[0-3]", W_SIBLING,
     "cluster=1 node=4 socket=8 group=0 cache=0 memory=0 core=176 pu=0 gpu=0 storage=0",
     "/cluster0/node3/socket1/core43"},
    {"numa:2 core:2 pu:1", NULL, W_ALL,
     "cluster=1 node=1 socket=0 group=2 cache=0 memory=2 core=4 pu=4 gpu=0 storage=0",
     "/cluster0/node0/group1/memory1"},
    {"pack:2 l3:2 core:2 pu:1", NULL, W_ALL,
     "cluster=1 node=1 socket=2 group=0 cache=4 memory=1 core=8 pu=8 gpu=0 storage=0",
     "/cluster0/node0/socket1/L3cache3/core7"},
    {"pack:2 l3:2 core:2 pu:1", NULL, (const char *const[]){"L3cache", "core", NULL},
     "cluster=1 node=0 socket=0 group=0 cache=4 memory=0 core=8 pu=0 gpu=0 storage=0",
     "/cluster0/L3cache3/core7"},
    {"pack:1 core:1 pu:1", NULL, (const char *const[]){"node", "numanode", NULL},
     "cluster=1 node=1 socket=0 group=0 cache=0 memory=0 core=0 pu=0 gpu=0 storage=0",
     "/cluster0/node0/numanode0"},
};

static void test_synthetic(void)
{
    for (size_t i = 0; i < sizeof(syn_rows) / sizeof(syn_rows[0]); i++) {
        const struct syn_row *r = &syn_rows[i];
        grove_error_t err;
        grove_topo_t *t = grove_topo_load_synthetic(r->desc, &err);
        grove_graph_t *g = t ? grove_topo_cluster(NULL, t, r->hosts, 0, r->types, &err) : NULL;
        if (!ok(g != NULL, "synthetic \"%s\" loads", r->desc)) {
            diag("%s", err.text);
            grove_topo_destroy(t);
            continue;
        }
        is_str(counts(g, ALLTYPES), r->counts, "synthetic \"%s\": vertices per type", r->desc);
        if (r->path)
            ok(at(g, r->path) != GROVE_VID_NONE, "synthetic \"%s\": %s", r->desc, r->path);
        ok(grove_topo_hostname(t) == NULL, "synthetic \"%s\": no host name", r->desc);
        grove_graph_destroy(g);
        grove_topo_destroy(t);
    }
    /* the machine-level NUMA node of a synthetic topology holds 1 GiB */
    grove_error_t err;
    grove_topo_t *t = grove_topo_load_synthetic("pack:1 core:1 pu:1", &err);
    grove_graph_t *g = t ? grove_topo_cluster(NULL, t, NULL, 0, NULL, &err) : NULL;
    grove_vid_t m = g ? at(g, "/cluster0/node0/socket0/memory0") : GROVE_VID_NONE;
    ok(m != GROVE_VID_NONE && grove_vertex_size(g, m) == 1
           && !strcmp(grove_vertex_unit(g, m), "GB"),
       "synthetic: memory0 is 1 GB");
    grove_graph_destroy(g);
    grove_topo_destroy(t);
}

/* ---- 3. clusters ----------------------------------------------------------- */

static void test_cluster(void)
{
    grove_error_t err;
    grove_topo_t *t = grove_topo_load_synthetic("pack:2 core:2 pu:1", &err);
    if (!ok(t != NULL, "cluster: topology"))
        return;
    grove_graph_t *g = grove_topo_cluster("mycluster7", t, "n[1-3],login", 10, W_SIBLING, &err);
    if (ok(g != NULL, "cluster: n[1-3],login from rank 10")) {
        is_str(grove_vertex_name(g, 0), "mycluster7", "cluster: name");
        is_str(grove_vertex_basename(g, 0), "mycluster", "cluster: basename");
        is_int(grove_vertex_id(g, 0), 7, "cluster: id");
        is_int(grove_vertex_rank(g, 0), -1, "cluster: no rank");
        static const struct {
            const char *path, *basename;
            int64_t id, rank;
        } nodes[] = {{"/mycluster7/n1", "n", 1, 10},
                     {"/mycluster7/n2", "n", 2, 11},
                     {"/mycluster7/n3", "n", 3, 12},
                     {"/mycluster7/login", "login", -1, 13}};
        for (size_t i = 0; i < 4; i++) {
            grove_vid_t v = at(g, nodes[i].path);
            ok(v != GROVE_VID_NONE && !strcmp(grove_vertex_basename(g, v), nodes[i].basename)
                   && grove_vertex_id(g, v) == nodes[i].id
                   && grove_vertex_rank(g, v) == nodes[i].rank,
               "cluster: %s basename %s id %lld rank %lld", nodes[i].path, nodes[i].basename,
               (long long)nodes[i].id, (long long)nodes[i].rank);
        }
        grove_vid_t c = at(g, "/mycluster7/login/socket1/core3");
        is_int(c != GROVE_VID_NONE ? grove_vertex_rank(g, c) : -99, 13,
               "cluster: a core has its node's rank");
        is_int(grove_graph_vertex_count(g), 1 + 4 * (1 + 2 + 4), "cluster: 29 vertices");
        grove_vid_t r = grove_graph_first_by_rank(g, 11);
        size_t n11 = 0;
        for (; r != GROVE_VID_NONE; r = grove_vertex_next_same_rank(g, r))
            n11++;
        is_int(n11, 7, "cluster: rank 11 holds its node's 7 vertices");
    }
    grove_graph_destroy(g);

    /* no ranks */
    g = grove_topo_cluster(NULL, t, "a[0-1]", -1, W_SIBLING, &err);
    ok(g && grove_vertex_rank(g, 1) == -1 && grove_graph_first_by_rank(g, 0) == GROVE_VID_NONE,
       "cluster: first_rank -1 gives no ranks");
    grove_graph_destroy(g);

    /* no hostlist: node<rank> */
    g = grove_topo_cluster(NULL, t, NULL, 5, W_SIBLING, &err);
    ok(g && at(g, "/cluster0/node5") != GROVE_VID_NONE, "cluster: unnamed node is node<rank>");
    grove_graph_destroy(g);

    /* the node level dropped: sockets under the cluster */
    const char *const nonode[] = {"socket", "core", NULL};
    g = grove_topo_cluster(NULL, t, "x[0-1]", 0, nonode, &err);
    if (ok(g != NULL, "cluster: without nodes")) {
        is_int(grove_graph_vertex_count(g), 1 + 2 * (2 + 4), "cluster: 13 vertices");
        grove_sym_t cs = grove_graph_sym_lookup(g, GROVE_CONTAINMENT);
        grove_eid_t cur;
        size_t kids = 0;
        for (grove_vid_t k = grove_vertex_first_child(g, 0, cs, &cur); k != GROVE_VID_NONE;
             k = grove_vertex_next_child(g, cs, &cur))
            kids++;
        is_int(kids, 4, "cluster: 4 sockets under the cluster");
    }
    grove_graph_destroy(g);

    /* a large cluster is quick */
    grove_topo_t *big = grove_topo_load_synthetic("pack:2 core:22 pu:2", &err);
    g = big ? grove_topo_cluster("big", big, "n[0-1023]", 0, NULL, &err) : NULL;
    is_int(g ? grove_graph_vertex_count(g) : 0, 1 + 1024 * (1 + 2 + 44 + 88 + 1),
           "cluster: 1024 nodes of 2x22x2");
    is_str(g ? grove_vertex_name(g, 0) : NULL, "big", "cluster: a name without digits");
    is_int(g ? grove_vertex_id(g, 0) : 0, -1, "cluster: ... has no id");
    grove_graph_destroy(g);
    grove_topo_destroy(big);

    /* attach into an existing graph */
    g = grove_graph_create();
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    info.type = "rack";
    info.id = 0;
    grove_vid_t rack = grove_graph_add_vertex(g, &info);
    grove_vid_t n = grove_topo_attach(g, rack, t, "tiger12", 3, W_SIBLING, &err);
    ok(n != GROVE_VID_NONE && at(g, "/rack0/tiger12/socket0/core1") != GROVE_VID_NONE,
       "attach: below rack0");
    is_int(n != GROVE_VID_NONE ? grove_vertex_id(g, n) : 0, 12, "attach: id 12");
    grove_vid_t n2 = grove_topo_attach(g, GROVE_VID_NONE, t, "solo", GROVE_ID_NONE, NULL, &err);
    ok(n2 != GROVE_VID_NONE && at(g, "/solo/socket1/core3/pu3") != GROVE_VID_NONE,
       "attach: as a new root");
    size_t before = grove_graph_vertex_count(g);
    errno = 0;
    ok(grove_topo_attach(g, rack, t, "bad name", 0, NULL, &err) == GROVE_VID_NONE
           && errno == EINVAL,
       "attach: a host name with a space is refused");
    is_str(err.text, "invalid host name \"bad name\"", "attach: message");
    is_int(grove_graph_vertex_count(g), before, "attach: graph unchanged");
    grove_graph_destroy(g);
    grove_topo_destroy(t);
}

/* ---- 4. live ------------------------------------------------------------------ */

static void test_live(void)
{
    grove_error_t err;
    grove_topo_t *t = grove_topo_load_live(&err);
    if (!ok(t != NULL, "live: loads")) {
        diag("%s", err.text);
        return;
    }
    char host[256] = "";
    gethostname(host, sizeof(host) - 1);
    is_str(grove_topo_hostname(t), host, "live: host name is this machine's");
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    ok(grove_topo_count(t, "pu") >= 1 && (long)grove_topo_count(t, "pu") <= ncpu * 4,
       "live: %zu PUs (%ld online)", grove_topo_count(t, "pu"), ncpu);
    ok(grove_topo_count(t, "core") >= 1, "live: %zu cores", grove_topo_count(t, "core"));
    grove_graph_t *g = grove_topo_cluster(NULL, t, "live[0-1]", 0, NULL, &err);
    ok(g && at(g, "/cluster0/live1") != GROVE_VID_NONE, "live: a cluster of two copies");
    is_int(g ? count_type(g, "pu") : 0, 2 * grove_topo_count(t, "pu"), "live: PUs doubled");
    grove_graph_destroy(g);
    grove_topo_destroy(t);
}

/* ---- 5. errors ----------------------------------------------------------------- */

static void test_errors(void)
{
    static const struct {
        const char *desc, *msg;
    } syn[] = {
        {"bogus:2", "synthetic \"bogus:2\": invalid description"},
        {"", "synthetic \"\": invalid description"},
        {"pack:x core:2", "synthetic \"pack:x core:2\": invalid description"},
        {"pack:2 core:2 pu:2 pu:2", "synthetic \"pack:2 core:2 pu:2 pu:2\": invalid description"},
    };
    for (size_t i = 0; i < sizeof(syn) / sizeof(syn[0]); i++) {
        grove_error_t err;
        errno = 0;
        grove_topo_t *t = grove_topo_load_synthetic(syn[i].desc, &err);
        ok(!t && errno == EINVAL, "synthetic \"%s\" refused", syn[i].desc);
        is_str(err.text, syn[i].msg, "synthetic \"%s\": message", syn[i].desc);
        grove_topo_destroy(t);
    }
    static const struct {
        const char *text, *msg;
    } xml[] = {
        {"<topology><object type=\"Machine\"",
         "mem.xml:1: not well-formed XML: Premature end of data in tag topology line 1"},
        {"<?xml version=\"1.0\"?><foo/>", "mem.xml:1: the root element is <foo>, not <topology>"},
        {"", "mem.xml: an empty text is not an hwloc XML topology"},
        {"{\"graph\": {}}", "mem.xml:1: not well-formed XML: Start tag expected, '<' not found"},
        /* what made the topology library abort or crash: refused before it */
        {"<topology>\n<object type=\"Machine\" cpuset=\"0x1,0xzz\"/></topology>",
         "mem.xml:2: cpuset=\"0x1,0xzz\": not a bitmap (0x followed by up to 8 hex digits per "
         "comma-separated group, at most 1024 groups)"},
        {"<topology><object type=\"Machine\" cpuset=\"0x123456789\"/></topology>",
         "mem.xml:1: cpuset=\"0x123456789\": not a bitmap (0x followed by up to 8 hex digits per "
         "comma-separated group, at most 1024 groups)"},
        {"<topology><object type=\"Machine\" cpuset=\"0x1\">\n\n<object type=\"PU\" "
         "os_index=\"4294967294\" cpuset=\"0x1\"/></object></topology>",
         "mem.xml:3: os_index=\"4294967294\": expected a number from 0 to 1048576"},
        {"<topology><object type=\"Machine\"><object type=\"Gizmo\"/></object></topology>",
         "mem.xml:1: unknown object type \"Gizmo\""},
        {"<topology><object/></topology>", "mem.xml:1: an object without a type"},
        {"<topology><object type=\"Machine\" gp_index=\"-5\"/></topology>",
         "mem.xml:1: gp_index=\"-5\": expected a number from 0 to 281474976710656"},
        /* past the checks, refused by the library: its reason, no line */
        {"<topology version=\"9.0\"><object type=\"Machine\" cpuset=\"0x1\"/></topology>",
         "mem.xml: not a valid hwloc XML topology (the topology library says: cannot import "
         "XML version 9.0 > 2)"},
    };
    for (size_t i = 0; i < sizeof(xml) / sizeof(xml[0]); i++) {
        grove_error_t err;
        errno = 0;
        grove_topo_t *t = grove_topo_read_xml(xml[i].text, strlen(xml[i].text), "mem.xml", &err);
        ok(!t && errno == EINVAL, "xml %zu refused", i);
        is_str(err.text, xml[i].msg, "xml %zu: message", i);
        grove_topo_destroy(t);
    }
    grove_error_t err;
    errno = 0;
    grove_topo_t *t = grove_topo_load_xml("/nonexistent/0.xml", &err);
    ok(!t && errno == ENOENT, "missing file: ENOENT");
    is_str(err.text, "/nonexistent/0.xml: No such file or directory", "missing file: message");
    t = grove_topo_load_xml(tap_conformance("fluxion/grugs/tiny.graphml"), &err);
    ok(!t && strstr(err.text, "tiny.graphml:9: the root element is <graphml>, not <topology>"),
       "a recipe is not a topology (%s)", err.text);

    t = grove_topo_load_synthetic("pack:1 core:1 pu:1", &err);
    static const struct {
        const char *cluster, *hosts;
        int64_t first;
        int errnum;
        const char *msg;
    } cl[] = {
        {NULL, "n[1-", 0, EINVAL, NULL},
        {NULL, "", 0, EINVAL, "hostlist \"\" has no hosts"},
        {NULL, "n1", -2, EINVAL, "invalid first rank -2"},
        {"bad cluster", NULL, 0, EINVAL, "invalid cluster name \"bad cluster\""},
        {"", NULL, 0, EINVAL, "invalid cluster name \"\""},
        {NULL, "n[0-1]", INT64_MAX, EOVERFLOW, "ranks from 9223372036854775807 overflow"},
    };
    for (size_t i = 0; i < sizeof(cl) / sizeof(cl[0]); i++) {
        errno = 0;
        grove_graph_t *g = grove_topo_cluster(cl[i].cluster, t, cl[i].hosts, cl[i].first, NULL,
                                              &err);
        ok(!g && errno == cl[i].errnum, "cluster error %zu (errno %d)", i, errno);
        if (cl[i].msg)
            is_str(err.text, cl[i].msg, "cluster error %zu: message", i);
        else
            ok(!strncmp(err.text, "hostlist \"n[1-\": ", 17), "cluster error %zu: %s", i,
               err.text);
        grove_graph_destroy(g);
    }
    grove_topo_destroy(t);
    ok_destroy_null(grove_topo_destroy);
    ok(grove_topo_hostname(NULL) == NULL && grove_topo_count(NULL, "core") == 0,
       "NULL topology is harmless");
}

/* ---- 4. the locality form -------------------------------------------------- */

/* v and what it contains, as "name(child child(...))". */
static void dump(const grove_graph_t *g, grove_vid_t v, char *buf, size_t len)
{
    grove_sym_t cs = grove_graph_sym_lookup(g, GROVE_CONTAINMENT);
    size_t at = strlen(buf);
    snprintf(buf + at, len - at, "%s", grove_vertex_name(g, v));
    grove_eid_t cur;
    grove_vid_t c = grove_vertex_first_child(g, v, cs, &cur);
    if (c == GROVE_VID_NONE)
        return;
    at = strlen(buf);
    snprintf(buf + at, len - at, "(");
    for (bool first = true; c != GROVE_VID_NONE; c = grove_vertex_next_child(g, cs, &cur)) {
        if (!first) {
            at = strlen(buf);
            snprintf(buf + at, len - at, " ");
        }
        first = false;
        dump(g, c, buf, len);
    }
    at = strlen(buf);
    snprintf(buf + at, len - at, ")");
}

static const char *const W_LOCAL[] = {"node", "socket", "numanode", "core", "gpu", NULL};

static const struct local_row {
    const char *file; /* spec/fixtures/hwloc/..., or the corpus's with a leading ':' */
    const char *const *types;
    const char *tree; /* below the cluster */
} local_rows[] = {
    /* GPUs in flux-core's numbering: one per PCI device seen under CUDA,
     * OpenCL and NVML; each partition of one device; a GPU of no package */
    {"two-packages.xml", W_LOCAL,
     "n0(socket0(numanode0(core0 core1 gpu0)) socket1(numanode1(core2 core3 gpu1 gpu2)) gpu3)"},
    /* hwloc 1.x: the NUMA node above its package; a NUMA node of no
     * processor's (a GPU's memory) is no domain */
    {"numa-above-package.xml", W_LOCAL,
     "n0(socket0(numanode0(core0 core1 gpu0)) socket1(numanode1(core2 core3 gpu1)))"},
    /* NUMA domains in groups of one package (group kind 1001) */
    {"sub-numa.xml", W_LOCAL, "n0(socket0(numanode0(core0 core1) numanode1(core2 core3 gpu0)))"},
    /* a kind left out hands its children to its parent */
    {"two-packages.xml", (const char *const[]){"node", "numanode", "gpu", NULL},
     "n0(numanode0(gpu0) numanode1(gpu1 gpu2) gpu3)"},
    {":fluxion/hwloc-data/001N/node_local_storage/lassen/0.xml",
     (const char *const[]){"node", "socket", "numanode", "gpu", NULL},
     "lassen6(socket0(numanode0(gpu0 gpu1)) socket1(numanode1(gpu2 gpu3)))"},
    /* OpenCL devices numbered by order, not by name */
    {":fluxion/hwloc-data/001N/amd_gpu/corona11.xml",
     (const char *const[]){"node", "numanode", "gpu", NULL},
     "corona11(numanode0 numanode1(gpu0) numanode2(gpu1) numanode3 numanode4 numanode5(gpu2) "
     "numanode6 numanode7(gpu3))"},
};

static const char *fixture(const char *file)
{
    static char buf[512];
    if (file[0] == ':')
        return tap_conformance(file + 1);
    snprintf(buf, sizeof(buf), "spec/fixtures/hwloc/%s", file);
    return buf;
}

static void test_locality(void)
{
    for (size_t i = 0; i < sizeof(local_rows) / sizeof(local_rows[0]); i++) {
        const struct local_row *r = &local_rows[i];
        grove_error_t err;
        grove_topo_t *t = grove_topo_load_xml(fixture(r->file), &err);
        grove_graph_t *g = t ? grove_topo_cluster(NULL, t, r->file[0] == ':' ? NULL : "n0", 0,
                                                  r->types, &err)
                             : NULL;
        if (!ok(g != NULL, "locality %zu: %s loads", i, r->file)) {
            diag("%s", err.text);
            grove_topo_destroy(t);
            continue;
        }
        char tree[1024] = "";
        grove_sym_t cs = grove_graph_sym_lookup(g, GROVE_CONTAINMENT);
        grove_eid_t cur;
        dump(g, grove_vertex_first_child(g, 0, cs, &cur), tree, sizeof(tree));
        is_str(tree, r->tree, "locality %zu: %s", i, r->file);
        grove_graph_destroy(g);
        grove_topo_destroy(t);
    }

    grove_error_t err;
    grove_topo_t *t = grove_topo_load_xml(fixture("two-packages.xml"), &err);
    if (!ok(t != NULL, "locality: two packages"))
        return;
    is_int(grove_topo_count(t, "numanode"), 2, "locality: 2 NUMA domains");
    static const struct {
        const char *type, *ids;
    } ids[] = {{"core", "0-3"}, {"gpu", "0-3"}, {"socket", "0-1"}, {"numanode", "0-1"}};
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        grove_idset_t *s = grove_topo_ids(t, ids[i].type);
        char *text = s ? grove_idset_encode(s, GROVE_IDSET_FLAG_RANGE) : NULL;
        is_str(text ? text : "(null)", ids[i].ids, "locality: %s ids", ids[i].type);
        free(text);
        grove_idset_destroy(s);
    }
    errno = 0;
    ok(!grove_topo_ids(t, "pu") && errno == EINVAL, "locality: no pu in the locality form");

    /* the inside of a node given, R's cores and GPUs only: a socket left
     * with none is not made */
    grove_graph_t *g = grove_graph_create();
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    info.type = info.basename = "node";
    info.id = 7;
    info.rank = 7;
    grove_vid_t node = g ? grove_graph_add_vertex(g, &info) : GROVE_VID_NONE;
    grove_idset_t *cores = grove_idset_decode("2-3", NULL), *gpus = grove_idset_decode("2", NULL);
    if (ok(grove_topo_attach_inside(g, node, t, 7, cores, gpus, NULL, &err) == 0,
           "inside: R's cores and GPUs")) {
        char tree[256] = "";
        dump(g, node, tree, sizeof(tree));
        is_str(tree, "node7(socket1(numanode1(core2 core3 gpu2)))", "inside: only what R gives");
        grove_vid_t c = grove_graph_first_by_type(g, grove_graph_sym_lookup(g, "core"));
        is_int(grove_vertex_rank(g, c), 7, "inside: the rank given");
    }
    errno = 0;
    ok(grove_topo_attach_inside(g, 12345, t, 7, NULL, NULL, NULL, &err) < 0 && errno == EINVAL,
       "inside: a node not in the graph refused");
    size_t before = grove_graph_vertex_count(g);
    ok(grove_topo_attach_inside(g, node, t, 7, NULL, NULL, NULL, &err) == 0
           && grove_graph_vertex_count(g) == before + 12,
       "inside: all of it (2 sockets, 2 domains, 4 cores, 4 GPUs, a second time)");
    grove_idset_destroy(cores);
    grove_idset_destroy(gpus);
    grove_graph_destroy(g);
    grove_topo_destroy(t);
}

/* ---- 5. the graph of an R with the nodes' topologies ------------------------ */

static const struct rtopo_row {
    const char *R_lite; /* of ranks 0-1, on n[0-1] */
    const char *tree;   /* n1 and below */
    const char *placed, *note;
} rtopo_rows[] = {
    {"{\"rank\":\"0-1\",\"children\":{\"core\":\"0-3\",\"gpu\":\"0-3\"}}",
     "n1(socket0(numanode0(core0 core1 gpu0)) socket1(numanode1(core2 core3 gpu1 gpu2)) gpu3)",
     "0-1", NULL},
    /* a subset of the topology's: only it is made */
    {"{\"rank\":\"0-1\",\"children\":{\"core\":\"1\",\"gpu\":\"3\"}}",
     "n1(socket0(numanode0(core1)) gpu3)", "0-1", NULL},
    /* no GPU given: none made */
    {"{\"rank\":\"0-1\",\"children\":{\"core\":\"0-3\"}}",
     "n1(socket0(numanode0(core0 core1)) socket1(numanode1(core2 core3)))", "0-1", NULL},
    {"{\"rank\":\"0\",\"children\":{\"core\":\"0-3\"}},"
     "{\"rank\":\"1\",\"children\":{\"core\":\"0-5\",\"gpu\":\"0\"}}",
     "n1(core0 core1 core2 core3 core4 core5 gpu0)", "0",
     "R gives it core 4, not in the topology (spec/fixtures/hwloc/two-packages.xml has cores "
     "0-3 and gpus 0-3)"},
};

static void test_rv1_topo(void)
{
    for (size_t i = 0; i < sizeof(rtopo_rows) / sizeof(rtopo_rows[0]); i++) {
        const struct rtopo_row *r = &rtopo_rows[i];
        char text[1024];
        snprintf(text, sizeof(text),
                 "{\"version\":1,\"execution\":{\"R_lite\":[%s],\"nodelist\":[\"n[0-1]\"]}}",
                 r->R_lite);
        grove_error_t err;
        grove_rv1_t *R = grove_rv1_decode(text, strlen(text), "R", &err);
        grove_rtopo_t *rt = grove_rtopo_create();
        grove_idset_t *ranks = grove_idset_decode("0-1", NULL);
        grove_topo_t *t = grove_topo_load_xml(fixture("two-packages.xml"), &err);
        ok(R && rt && ranks && t && grove_rtopo_add_take(rt, ranks, t) == 0,
           "rv1 topo %zu: R and a class", i);
        grove_graph_t *g = grove_graph_create();
        if (!ok(grove_rv1_build_topo(g, R, rt, &err) == 0, "rv1 topo %zu: builds", i)) {
            diag("%s", err.text);
        } else {
            char tree[512] = "";
            dump(g, at(g, "/cluster0/n1"), tree, sizeof(tree));
            is_str(tree, r->tree, "rv1 topo %zu: n1", i);
            char *placed = grove_idset_encode(grove_rtopo_placed(rt), GROVE_IDSET_FLAG_RANGE);
            is_str(placed, r->placed, "rv1 topo %zu: placed", i);
            free(placed);
            const char *why = NULL;
            size_t more;
            is_int(grove_rtopo_notes(rt, &more), r->note ? 1 : 0, "rv1 topo %zu: notes", i);
            if (r->note && grove_rtopo_note(rt, 0, NULL, &why) == 0)
                is_str(why, r->note, "rv1 topo %zu: the difference", i);
        }
        /* the same R as a new graph, and built twice: refused the second time */
        grove_graph_t *g2 = grove_rv1_to_graph_topo(R, rt, &err);
        ok(g2 && grove_graph_vertex_count(g2) == grove_graph_vertex_count(g),
           "rv1 topo %zu: to_graph builds the same", i);
        errno = 0;
        ok(grove_rv1_build_topo(g, R, rt, &err) < 0 && errno == EINVAL,
           "rv1 topo %zu: a graph not empty refused", i);
        grove_graph_destroy(g2);
        grove_graph_destroy(g);
        grove_idset_destroy(ranks);
        grove_rtopo_destroy(rt);
        grove_rv1_destroy(R);
    }
    errno = 0;
    ok(grove_rtopo_add_take(NULL, NULL, NULL) < 0 && errno == EINVAL, "rtopo: NULL refused");
    grove_rtopo_destroy(NULL);
}

/* Loads from several threads at once (a Flux broker: the scheduler
 * module and its feasibility thread read the nodes' topologies at the
 * same time): each gives the topology one thread alone gives. */
#define LOAD_THREADS 4
#define LOADS_EACH 4

struct loader {
    const char *path;
    size_t cores[LOADS_EACH];
};

static void *loader_main(void *arg)
{
    struct loader *l = arg;
    for (int i = 0; i < LOADS_EACH; i++) {
        grove_error_t err;
        grove_topo_t *t = grove_topo_load_xml(l->path, &err);
        l->cores[i] = t ? grove_topo_count(t, "core") : 0;
        grove_topo_destroy(t);
    }
    return NULL;
}

static void test_threads(void)
{
    const char *path = xml_path("node_local_storage/corona/0.xml");
    grove_error_t err;
    grove_topo_t *t = grove_topo_load_xml(path, &err);
    size_t want = t ? grove_topo_count(t, "core") : 0;
    grove_topo_destroy(t);
    ok(want > 0, "threads: one load alone counts %zu cores", want);
    struct loader ls[LOAD_THREADS];
    pthread_t tid[LOAD_THREADS];
    int started = 0;
    for (int i = 0; i < LOAD_THREADS; i++) {
        ls[i].path = path;
        memset(ls[i].cores, 0, sizeof(ls[i].cores));
        if (pthread_create(&tid[i], NULL, loader_main, &ls[i]) == 0)
            started++;
        else
            break;
    }
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    ok(started == LOAD_THREADS, "threads: %d loaders started", started);
    size_t same = 0;
    for (int i = 0; i < started; i++)
        for (int k = 0; k < LOADS_EACH; k++)
            same += ls[i].cores[k] == want;
    is_int((long long)same, LOAD_THREADS * LOADS_EACH,
           "threads: every load made at once gives the topology of one alone");
    /* now a process of several threads: a text past the checks that the
     * library refuses is refused in place, naming the text (the library's
     * reason goes only to a standard error of the process's own, not
     * redirected here) */
    const char *v9 = "<topology version=\"9.0\"><object type=\"Machine\" cpuset=\"0x1\"/>"
                     "</topology>";
    errno = 0;
    t = grove_topo_read_xml(v9, strlen(v9), "mem.xml", &err);
    ok(!t && errno == EINVAL, "threads: a topology the library refuses is refused in place");
    is_str(err.text, "mem.xml: not a valid hwloc XML topology",
           "threads: refused in place: message");
    grove_topo_destroy(t);
}

int main(void)
{
    test_xml();
    test_locality();
    test_rv1_topo();
    test_synthetic();
    test_cluster();
    test_live();
    test_errors();
    /* last: glibc keeps a process that ever had a second thread as
     * multi-threaded, and loads are then made in place */
    test_threads();
    return done_testing();
}
