/* test_graph.c: the graph of resource pools, its RFC 4 methods and its
 * allocation-record rules.
 *
 * It must not hold its own vertex builder or generator (grovetest.h and
 * rng.h have them) nor tests of the JGF format (test_jgf.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compose.h"
#include "graph.h"
#include "graph_private.h"
#include "aggregate.h"
#include "pool.h"
#include "walker.h"
#include "rng.h"
#include "tap.h"
#include "grovetest.h"

static grove_vid_t at(grove_graph_t *g, const char *path)
{
    return grove_graph_find_path(g, grove_graph_sym(g, GROVE_CONTAINMENT), path);
}

/* tiny's root and the vertices the tests name. */
typedef struct {
    grove_vid_t root, node0, node1, sock0, core0, mem0;
} tiny_t;

/* cluster tiny0 > rack0 > node0..1 > socket0..1 > core0..3 + memory0 (size 4);
 * *t its root and landmarks (node0's first socket, core and memory). */
static grove_graph_t *tiny(tiny_t *t)
{
    grove_graph_t *g = test_cluster(&(test_shape_t){ .basename = "tiny", .nodes = 2,
                                                     .per_rack = 2, .sockets = 2, .cores = 4,
                                                     .mems = 1, .mem_size = 4 });
    *t = (tiny_t){ .root = at(g, "/tiny0"),
                   .node0 = at(g, "/tiny0/rack0/node0"),
                   .node1 = at(g, "/tiny0/rack0/node1"),
                   .sock0 = at(g, "/tiny0/rack0/node0/socket0"),
                   .core0 = at(g, "/tiny0/rack0/node0/socket0/core0"),
                   .mem0 = at(g, "/tiny0/rack0/node0/socket0/memory0") };
    return g;
}

/* One add_vertex case of a table: the info's fields (unset ones NULL),
 * the errno expected (0: success) and the name expected. */
typedef struct {
    const char *type, *basename, *name, *uuid, *unit;
    int64_t id, size;
    int err;
    const char *want_name;
} vertex_row_t;

/* Add the vertex row i of table describes.  A row expecting an errno must
 * fail with it, add no vertex and intern no basename; one expecting
 * success must give its vertex want_name.  The vertex, or GROVE_VID_NONE. */
static grove_vid_t add_row(grove_graph_t *g, const char *table, size_t i, const vertex_row_t *row)
{
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    info.type = row->type;
    info.basename = row->basename;
    info.name = row->name;
    info.uuid = row->uuid;
    info.unit = row->unit;
    info.id = row->id;
    info.size = row->size;
    size_t before = grove_graph_vertex_count(g);
    errno = 0;
    grove_vid_t v = grove_graph_add_vertex(g, &info);
    if (row->err) {
        ok(v == GROVE_VID_NONE && errno == row->err && grove_graph_vertex_count(g) == before
               && (!row->basename
                   || grove_graph_sym_lookup(g, row->basename) == GROVE_SYM_NONE),
           "%s row %zu fails with %s, adds and interns nothing", table, i, strerror(row->err));
        return v;
    }
    is_str(grove_vertex_name(g, v), row->want_name, "%s row %zu: name", table, i);
    return v;
}

static void test_vertices(void)
{
    grove_graph_t *g = grove_graph_create();
    static const vertex_row_t rows[] = {
        {"node", NULL, NULL, NULL, NULL, 3, 1, 0, "node3"},
        {"node", "host", NULL, NULL, NULL, 12, 1, 0, "host12"},
        {"cluster", NULL, NULL, NULL, NULL, -1, 1, 0, "cluster"},
        {"node", NULL, "fancy-7", NULL, NULL, 7, 1, 0, "fancy-7"},
        {"memory", NULL, NULL, NULL, NULL, 0, 16, 0, "memory0"},
        {"core", NULL, NULL, "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0", NULL, 1, 1, 0, "core1"},
        {"core", NULL, NULL, "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0", NULL, 2, 1, EEXIST, NULL},
        {"core", NULL, NULL, "not-a-uuid", NULL, 2, 1, EINVAL, NULL},
        {NULL, NULL, NULL, NULL, NULL, 0, 1, EINVAL, NULL},
        {"", NULL, NULL, NULL, NULL, 0, 1, EINVAL, NULL},
        {"core", NULL, NULL, NULL, NULL, 0, -1, EINVAL, NULL},
        {"core", NULL, NULL, NULL, NULL, -5, 1, EINVAL, NULL},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        add_row(g, "add_vertex", i, &rows[i]);
    grove_vid_t v = grove_graph_first_by_name(g, grove_graph_sym(g, "host12"));
    is_str(grove_vertex_basename(g, v), "host", "basename kept");
    is_str(grove_vertex_type(g, v), "node", "type kept");
    /* the symbol accessors: interned names compare without strcmp */
    ok(grove_vertex_basename_sym(g, v) == grove_graph_sym_lookup(g, "host")
           && grove_vertex_name_sym(g, v) == grove_graph_sym_lookup(g, "host12")
           && grove_vertex_unit_sym(g, v) == grove_graph_sym_lookup(g, ""),
       "basename, name and unit symbols are the interned strings");
    is_int(grove_vertex_size(g, 4), 16, "size kept");
    char uuid[37];
    grove_vertex_uuid(g, 5, uuid);
    is_str(uuid, "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0", "given uuid kept");
    ok(grove_graph_find_uuid(g, uuid) == 5, "find by uuid");
    grove_vertex_uuid(g, 0, uuid);
    ok(strlen(uuid) == 36 && uuid[14] == '4', "generated uuid is version 4 (%s)", uuid);
    ok(grove_graph_find_uuid(g, uuid) == 0, "generated uuid found");
    ok(grove_graph_find_uuid(g, "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f1") == GROVE_VID_NONE,
       "unknown uuid not found");
    is_int(grove_graph_count_type(g, grove_graph_sym(g, "node")), 3, "three nodes by type");
    /* rank index follows changes */
    grove_vertex_set_rank(g, 0, 5);
    grove_vertex_set_rank(g, 1, 5);
    ok(grove_graph_first_by_rank(g, 5) == 0 && grove_vertex_next_same_rank(g, 0) == 1,
       "rank chain in id order");
    grove_vertex_set_rank(g, 0, 6);
    ok(grove_graph_first_by_rank(g, 5) == 1 && grove_graph_first_by_rank(g, 6) == 0,
       "rank change moves the vertex");
    ok(grove_vertex_set_rank(g, 0, -7) < 0 && errno == EINVAL, "bad rank refused");
    grove_vertex_set_name(g, 1, "renamed");
    ok(grove_graph_first_by_name(g, grove_graph_sym(g, "renamed")) == 1
           && grove_graph_first_by_name(g, grove_graph_sym(g, "host12")) == GROVE_VID_NONE,
       "rename moves the name index");
    /* properties and tags */
    ok(grove_vertex_set_property(g, 0, "arch", "x86_64") == 0, "set property");
    ok(grove_vertex_set_property(g, 0, "perf_class", "3") == 0, "set second property");
    ok(grove_vertex_set_property(g, 0, "arch", "arm") == 0, "replace property");
    is_str(grove_vertex_property(g, 0, "arch"), "arm", "property replaced");
    is_int(grove_vertex_property_count(g, 0), 2, "two properties");
    const char *k, *val;
    ok(grove_vertex_property_at(g, 0, 1, &k, &val) == 0 && !strcmp(k, "perf_class"),
       "properties in insertion order");
    ok(grove_vertex_remove_property(g, 0, "arch") == 0, "remove property");
    ok(grove_vertex_remove_property(g, 0, "arch") < 0 && errno == ENOENT,
       "remove absent property: ENOENT");
    ok(grove_vertex_set_property(g, 0, NULL, "x") < 0 && errno == EINVAL, "NULL key refused");
    ok(grove_vertex_tag(g, 0, "maint", NULL) == 0, "tag without value");
    ok(grove_vertex_tag(g, 0, "owner", "ops") == 0, "tag with value");
    ok(grove_vertex_has_tag(g, 0, "maint", &val) && val == NULL, "tag has no value");
    ok(grove_vertex_has_tag(g, 0, "owner", &val) && !strcmp(val, "ops"), "tag value");
    ok(grove_vertex_untag(g, 0, "maint") == 0 && !grove_vertex_has_tag(g, 0, "maint", NULL),
       "untag");
    ok(grove_vertex_set_status(g, 0, GROVE_STATUS_DRAINED) == 0
           && grove_vertex_status(g, 0) == GROVE_STATUS_DRAINED,
       "status set");
    ok(grove_vertex_set_status(g, 0, (grove_status_t)42) < 0 && errno == EINVAL,
       "bad status refused");
    is_int(grove_status_parse("excluded"), GROVE_STATUS_EXCLUDED, "status names parse");
    ok(grove_status_parse("sideways") < 0, "unknown status name refused");
    grove_graph_destroy(g);
}

static void test_edges_paths(void)
{
    tiny_t t;
    grove_graph_t *g = tiny(&t);
    grove_error_t err;
    grove_sym_t cont = grove_graph_sym(g, GROVE_CONTAINMENT);
    is_int(grove_graph_vertex_count(g), 2 + 2 * (1 + 2 * 6), "tiny vertex count");
    is_int(grove_graph_edge_count(g), 2 * (grove_graph_vertex_count(g) - 1),
           "contains and in edges");
    grove_vid_t core = at(g, "/tiny0/rack0/node1/socket1/core7");
    ok(core != GROVE_VID_NONE, "find by path");
    char buf[128];
    grove_vertex_path(g, core, cont, buf, sizeof(buf));
    is_str(buf, "/tiny0/rack0/node1/socket1/core7", "path of a core");
    char small[10];
    int need = grove_vertex_path(g, core, cont, small, sizeof(small));
    ok(need == (int)strlen(buf) && strlen(small) == 9, "path truncates like snprintf");
    ok(at(g, "/tiny0/rack0/node2") == GROVE_VID_NONE && errno == ENOENT, "missing path");
    ok(at(g, "tiny0") == GROVE_VID_NONE, "relative path refused");
    is_int(grove_vertex_depth(g, core, cont), 4, "depth");
    ok(grove_graph_root(g, cont, 0) == t.root && grove_graph_root(g, cont, 1) == GROVE_VID_NONE,
       "one containment root");
    ok(grove_vertex_parent(g, at(g, "/tiny0/rack0/node1/socket0"), cont) == t.node1, "parent");
    grove_eid_t cur;
    int kids = 0;
    for (grove_vid_t x = grove_vertex_first_child(g, t.node1, cont, &cur); x != GROVE_VID_NONE;
         x = grove_vertex_next_child(g, cont, &cur))
        kids++;
    is_int(kids, 2, "node has two children");
    /* edge errors */
    grove_vid_t rack = at(g, "/tiny0/rack0");
    size_t ne = grove_graph_edge_count(g);
    ok(grove_graph_add_edge(g, rack, core, NULL, NULL, &err) == GROVE_EID_NONE
           && errno == EINVAL && strstr(err.text, "two containment parents"),
       "second containment parent refused: %s", err.text);
    ok(grove_graph_add_edge(g, core, t.root, NULL, "contains", &err) == GROVE_EID_NONE
           && strstr(err.text, "cycle"),
       "an edge from a leaf to the root makes a cycle: %s", err.text);
    grove_vid_t lone = test_vertex(g, "rack", 9, 1, GROVE_VID_NONE);
    ok(grove_graph_add_edge(g, lone, lone, NULL, NULL, &err) == GROVE_EID_NONE,
       "self edge refused");
    ok(grove_graph_add_edge(g, core, 9999, NULL, NULL, &err) == GROVE_EID_NONE
           && strstr(err.text, "no such vertex"),
       "dangling edge refused");
    ok(grove_graph_add_child(g, lone, t.root, NULL, &err) == 0, "adopt the root under a new top");
    ok(grove_graph_add_edge(g, core, lone, NULL, NULL, &err) == GROVE_EID_NONE
           && strstr(err.text, "cycle"),
       "containment cycle refused: %s", err.text);
    is_int(grove_graph_edge_count(g), ne + 2, "failed edges left nothing behind");
    /* an auxiliary subsystem: a DAG allowed, paths follow the first parent */
    grove_vid_t pdu = test_vertex(g, "pdu", 0, 10, GROVE_VID_NONE);
    grove_vid_t panel = test_vertex(g, "panel", 0, 40, GROVE_VID_NONE);
    ok(grove_graph_add_edge(g, panel, pdu, "power", "conduit-of", &err) != GROVE_EID_NONE,
       "power edge");
    ok(grove_graph_add_edge(g, pdu, t.node1, "power", "conduit-of", &err) != GROVE_EID_NONE,
       "power edge to a node");
    grove_sym_t power = grove_graph_sym(g, "power");
    grove_vertex_path(g, t.node1, power, buf, sizeof(buf));
    is_str(buf, "/panel0/pdu0/node1", "power path");
    ok(grove_graph_find_path(g, power, "/panel0/pdu0/node1") == t.node1, "find by power path");
    ok(grove_vertex_path(g, core, power, buf, sizeof(buf)) < 0 && errno == ENOENT,
       "no power path for a core");
    ok(grove_graph_subsystem_at(g, 1) == power, "subsystems in order of use");
    grove_graph_destroy(g);
}

struct walklog {
    char text[512];
    int stop_at_depth;
    const char *skip_type;
};

static int log_pre(grove_graph_t *g, grove_vid_t v, int depth, void *arg)
{
    struct walklog *w = arg;
    size_t n = strlen(w->text);
    snprintf(w->text + n, sizeof(w->text) - n, "<%s", grove_vertex_name(g, v));
    if (w->skip_type && !strcmp(grove_vertex_type(g, v), w->skip_type))
        return GROVE_WALK_SKIP;
    if (depth == w->stop_at_depth)
        return GROVE_WALK_STOP;
    return GROVE_WALK_CONTINUE;
}

static int reverse_order(grove_graph_t *g, grove_vid_t p, grove_vid_t *c, size_t n, void *arg)
{
    (void)g;
    (void)p;
    (void)arg;
    for (size_t i = 0; i < n / 2; i++) {
        grove_vid_t t = c[i];
        c[i] = c[n - 1 - i];
        c[n - 1 - i] = t;
    }
    return 0;
}

static int score_cores(grove_graph_t *g, grove_vid_t v, int depth, double *score, void *arg)
{
    (void)depth;
    (void)arg;
    if (strcmp(grove_vertex_type(g, v), "core"))
        return 0;
    *score = (double)grove_vertex_id(g, v);
    return 1;
}

static int fail_hook(grove_graph_t *g, grove_vid_t v, int depth, void *arg)
{
    (void)g;
    (void)v;
    (void)arg;
    if (depth == 2) {
        errno = ENOTSUP;
        return -1;
    }
    return 0;
}

static void test_walk(void)
{
    tiny_t t;
    grove_graph_t *g = tiny(&t);
    grove_sym_t cont = grove_graph_sym(g, GROVE_CONTAINMENT);
    struct walklog w = {.stop_at_depth = -1, .skip_type = "socket"};
    grove_walk_hooks_t h = {.pre = log_pre, .arg = &w};
    is_int(grove_graph_walk(g, t.root, cont, &h, NULL), 0, "walk completes");
    is_str(w.text, "<tiny0<rack0<node0<socket0<socket1<node1<socket0<socket1",
           "pre-order with skipped sockets");
    memset(&w, 0, sizeof(w));
    w.stop_at_depth = 2;
    h.order = reverse_order;
    is_int(grove_graph_walk(g, t.root, cont, &h, NULL), 1, "stopped walk returns 1");
    is_str(w.text, "<tiny0<rack0<node1", "child order hook reverses, stop ends the walk");
    grove_accum_t *acc = grove_accum_create(3);
    grove_walk_hooks_t h2 = {.post = score_cores};
    grove_graph_walk(g, t.node0, cont, &h2, acc);
    is_int(grove_accum_count(acc), 3, "accumulator bounded to 3");
    double s;
    grove_vid_t best = grove_accum_at(acc, 0, &s);
    ok(s == 7.0 && !strcmp(grove_vertex_name(g, best), "core7"), "best score first");
    ok(grove_accum_at(acc, 2, &s) != GROVE_VID_NONE && s == 5.0, "third best");
    /* reset empties it for the next walk; push keeps the best k, stable */
    grove_accum_reset(acc);
    is_int(grove_accum_count(acc), 0, "reset accumulator is empty");
    static const struct {
        grove_vid_t v;
        double score;
    } pushes[] = {{10, 1.0}, {11, 3.0}, {12, 3.0}, {13, 0.5}, {14, 2.0}};
    for (size_t i = 0; i < sizeof(pushes) / sizeof(pushes[0]); i++)
        grove_accum_push(acc, pushes[i].v, pushes[i].score);
    ok(grove_accum_count(acc) == 3 && grove_accum_at(acc, 0, NULL) == 11
           && grove_accum_at(acc, 1, NULL) == 12 && grove_accum_at(acc, 2, NULL) == 14,
       "pushes kept the best 3, equal scores in push order");
    grove_accum_destroy(acc);
    grove_walk_hooks_t h3 = {.pre = fail_hook};
    errno = 0;
    ok(grove_graph_walk(g, t.root, cont, &h3, NULL) == -1 && errno == ENOTSUP,
       "a failing hook stops the walk with its errno");
    ok(grove_graph_walk(g, 9999, cont, NULL, NULL) == -1 && errno == EINVAL, "bad start");
    grove_graph_destroy(g);
}

/* RFC 4 allows non-tree subsystems: a ring a -> b -> c -> a and the two
 * edges a -> b, b -> a of one relation.  A walk visits each vertex once
 * and ends; the order hook never sees a vertex already reached. */
static void test_walk_cycles(void)
{
    grove_graph_t *g = grove_graph_create();
    grove_vid_t v[3];
    grove_vertex_info_t info;
    for (int i = 0; i < 3; i++) {
        grove_vertex_info_init(&info);
        info.type = "sw";
        info.id = i;
        v[i] = grove_graph_add_vertex(g, &info);
    }
    ok(grove_graph_add_edge(g, v[0], v[1], "net", "link", NULL) != GROVE_EID_NONE
           && grove_graph_add_edge(g, v[1], v[2], "net", "link", NULL) != GROVE_EID_NONE
           && grove_graph_add_edge(g, v[2], v[0], "net", "link", NULL) != GROVE_EID_NONE
           && grove_graph_add_edge(g, v[1], v[0], "net", "link", NULL) != GROVE_EID_NONE,
       "a ring and a pair of opposite edges in one subsystem");
    grove_sym_t net = grove_graph_sym(g, "net");
    struct walklog w = {.stop_at_depth = -1};
    grove_walk_hooks_t h = {.pre = log_pre, .arg = &w};
    is_int(grove_graph_walk(g, v[0], net, &h, NULL), 0, "a walk of a cyclic subsystem ends");
    is_str(w.text, "<sw0<sw1<sw2", "each vertex visited once");
    memset(&w, 0, sizeof(w));
    w.stop_at_depth = -1;
    is_int(grove_graph_walk(g, v[1], net, &h, NULL), 0, "from another start");
    is_str(w.text, "<sw1<sw2<sw0", "each vertex once, whichever edge reaches it first");
    grove_graph_destroy(g);
}

struct aggout {
    char text[256];
};

static void agg_cb(const char *type, int64_t count, void *arg)
{
    struct aggout *a = arg;
    size_t n = strlen(a->text);
    snprintf(a->text + n, sizeof(a->text) - n, "%s%s=%lld", n ? " " : "", type,
             (long long)count);
}

/* A subtree of more types than the walk keeps in its small array:
 * each type once, in the order the walk first meets it, counts summed
 * across the switch to the arrays by symbol */
static void test_aggregate_many_types(void)
{
    grove_graph_t *h = grove_graph_create();
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    info.type = "box";
    grove_vid_t box = grove_graph_add_vertex(h, &info), prev = box;
    char type[16];
    for (int i = 0; i < 24; i++) {
        snprintf(type, sizeof(type), "t%d", i % 12);
        grove_vertex_info_init(&info);
        info.type = type;
        info.id = i;
        info.size = i < 12 ? 1 : 10;
        grove_vid_t v = grove_graph_add_vertex(h, &info);
        grove_graph_add_child(h, i % 2 ? prev : box, v, NULL, NULL);
        prev = v;
    }
    struct aggout b = {""};
    ok(grove_graph_aggregate(h, box, agg_cb, &b) == 0, "aggregate of 13 types");
    is_str(b.text,
           "box=1 t0=11 t1=11 t2=11 t3=11 t4=11 t5=11 t6=11 t7=11 t8=11 t9=11 t10=11 t11=11",
           "13 types: each once, in walk order, summed");
    struct aggout c = {""};
    ok(grove_vertex_aggregate_window(h, prev, 0, 1, agg_cb, &c) == 0
           && !strcmp(c.text, "t11=10"),
       "one vertex: its own type only (%s)", c.text);
    grove_graph_destroy(h);
}

static void test_alloc(void)
{
    tiny_t t;
    grove_graph_t *g = tiny(&t);
    const int64_t F = GROVE_TIME_MAX;
    struct {
        grove_vid_t v;
        grove_jobid_t job;
        int64_t amount, start, end;
        bool excl;
        int err;
        const char *what;
    } rows[] = {
        {t.mem0, 1, 2, 0, F, false, 0, "job 1 takes 2 of 4 memory units"},
        {t.mem0, 2, 2, 0, F, false, 0, "job 2 takes the other 2"},
        {t.mem0, 3, 1, 0, F, false, EBUSY, "no unit left for job 3"},
        {t.mem0, 3, 1, 100, 200, false, EBUSY, "nor later, the others are open-ended"},
        {t.mem0, 1, 0, 0, F, false, EINVAL, "zero amount refused"},
        {t.mem0, 1, 5, 0, F, false, EINVAL, "more than the size refused"},
        {t.mem0, 1, 1, 10, 5, false, EINVAL, "empty window refused"},
        {t.core0, 3, 1, 0, 100, false, 0, "job 3 takes core0 for 100 s (all units: exclusive)"},
        {t.core0, 4, 1, 50, 150, false, EBUSY, "overlapping window refused"},
        {t.core0, 4, 1, 100, 200, false, 0, "job 4 takes core0 right after"},
        {t.sock0, 5, 1, 0, F, true, EBUSY, "socket0 cannot be exclusive: jobs below it"},
        {t.node1, 6, 1, 0, F, true, 0, "job 6 takes node1 exclusively"},
        {at(g, "/tiny0/rack0/node1/socket0/core1"), 7, 1, 0, F, false, EBUSY,
         "a core of node1 is implied to job 6"},
        {at(g, "/tiny0/rack0"), 8, 1, 0, F, false, EBUSY, "rack0 (all units) has jobs below"},
        {at(g, "/tiny0/rack0/node1/socket1/core6"), 6, 1, 0, F, false, EEXIST,
         "job 6 already holds core6 through node1"},

    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        errno = 0;
        int rc = grove_vertex_allocate(g, rows[i].v, rows[i].job, rows[i].amount,
                                       rows[i].start, rows[i].end, rows[i].excl);
        if (rows[i].err)
            ok(rc < 0 && errno == rows[i].err, "%s", rows[i].what);
        else
            ok(rc == 0, "%s", rows[i].what);
    }
    is_int(grove_vertex_allocated(g, t.mem0), 4, "memory fully allocated");
    is_int(grove_vertex_available(g, t.mem0), 0, "memory: nothing available");
    is_int(grove_vertex_available_during(g, t.core0, 200, 300), 1, "core0 free after 200");
    is_int(grove_vertex_available_during(g, t.core0, 0, 300), 0, "core0 busy somewhere in 0-300");
    /* shared annotations on the ancestors */
    grove_record_t rec;
    int shared_jobs = 0;
    for (size_t i = 0; grove_vertex_record_at(g, t.node0, i, &rec) == 0; i++)
        if (rec.kind == GROVE_RECORD_SHARED)
            shared_jobs++;
    is_int(shared_jobs, 4, "node0 annotated with the four jobs below it");
    ok(grove_vertex_held_exclusively(g, at(g, "/tiny0/rack0/node1/socket1/core5"), 0, NULL),
       "node1's core implied exclusive");
    /* grow */
    ok(grove_vertex_free(g, t.mem0, 2, 1) == 0, "job 2 shrinks to 1 unit");
    ok(grove_vertex_allocate(g, t.mem0, 1, 1, 0, F, false) == 0, "job 1 grows by 1");
    is_int(grove_vertex_record_count(g, t.mem0), 2, "growing does not add a record");
    ok(grove_vertex_free(g, t.mem0, 1, 7) < 0 && errno == EINVAL, "free more than held");
    ok(grove_vertex_free(g, t.mem0, 99, -1) < 0 && errno == ENOENT, "free a job not here");
    /* aggregate: node1 held, core0 held now, memory0 full */
    struct aggout a = {""};
    grove_graph_aggregate(g, t.root, agg_cb, &a);
    is_str(a.text, "cluster=1 rack=1 node=1 socket=2 core=7 memory=4",
           "aggregate skips held pools and prunes zeros");
    /* free a job whole: annotations go */
    ok(grove_vertex_free(g, t.node1, 6, -1) == 0, "free job 6");
    ok(grove_vertex_allocate(g, at(g, "/tiny0/rack0/node1/socket0/core1"), 7, 1, 0, F, false)
           == 0,
       "node1's core can be allocated now");
    is_int(grove_graph_free_job(g, 3), 1, "free_job removes job 3's one record");
    size_t n = grove_vertex_record_count(g, t.node0);
    is_int(n, 3, "node0 annotations: jobs 1, 2, 4 remain");
    /* a pool back to one record keeps counting it (with no planner then) */
    is_int(grove_vertex_available_during(g, t.core0, 0, 100), 1, "core0 free before job 4");
    is_int(grove_vertex_available_during(g, t.core0, 150, 160), 0, "core0 still job 4's");
    ok(grove_vertex_allocate(g, t.core0, 10, 1, 120, 130, false) < 0 && errno == EBUSY,
       "core0: job 4's window refused to another");
    ok(grove_vertex_free(g, t.mem0, 2, -1) == 0, "job 2 leaves the memory");
    is_int(grove_vertex_available(g, t.mem0), 1, "memory: job 1's 3 units still held");
    ok(grove_vertex_allocate(g, t.mem0, 11, 2, 0, F, false) < 0 && errno == EBUSY,
       "memory: 2 units refused");
    ok(grove_vertex_allocate(g, t.mem0, 11, 1, 0, F, false) == 0, "memory: 1 unit taken");
    is_int(grove_vertex_available(g, t.mem0), 0, "memory: full again, two records");
    /* a down ancestor blocks */
    grove_vertex_set_status(g, t.node1, GROVE_STATUS_DOWN);
    ok(grove_vertex_allocate(g, at(g, "/tiny0/rack0/node1/socket1/core4"), 9, 1, 0, F, false)
               < 0
           && errno == EBUSY,
       "below a down node: busy");
    is_int(grove_vertex_available(g, at(g, "/tiny0/rack0/node1/socket1/core4")), 0,
           "below a down node: nothing available");
    /* a job cannot hold a pool whole while holding parts of it */
    {
        tiny_t t2;
        grove_graph_t *g2 = tiny(&t2);
        ok(grove_vertex_allocate(g2, at(g2, "/tiny0/rack0/node0/socket0/core1"), 1, 1, 0, F,
                                 false)
               == 0,
           "job 1 takes a core");
        ok(grove_vertex_allocate(g2, t2.node0, 1, 1, 0, F, true) < 0 && errno == EEXIST,
           "job 1 cannot then take its node whole: EEXIST");
        /* nor hold a pool whole over one window and units of it over an
         * overlapping other (found by the random aggregate check) */
        grove_vid_t m1 = at(g2, "/tiny0/rack0/node1/socket0/memory0");
        ok(grove_vertex_allocate(g2, m1, 2, 1, 20, 39, true) == 0,
           "job 2 holds memory0 of node1 whole over [20,39)");
        ok(grove_vertex_allocate(g2, m1, 2, 3, 31, 33, false) < 0 && errno == EEXIST,
           "job 2 cannot also take 3 units of it over [31,33): EEXIST");
        ok(grove_vertex_allocate(g2, m1, 2, 3, 39, 50, false) == 0,
           "units right after the whole window are fine");
        ok(grove_vertex_allocate(g2, m1, 2, 1, 45, 60, true) < 0 && errno == EEXIST,
           "and whole over a window overlapping those units is not: EEXIST");
        grove_graph_destroy(g2);
    }
    /* size changes */
    ok(grove_vertex_set_size(g, t.mem0, 2) < 0 && errno == EBUSY, "shrink below use refused");
    ok(grove_vertex_set_size(g, t.mem0, 8) == 0 && grove_vertex_available(g, t.mem0) == 4,
       "grow the pool");
    grove_graph_destroy(g);
}

/* A pool's planner goes when its last record goes and is kept for the
 * next pool that needs one: reused, it must hold nothing of its past and
 * take the new pool's size. */
static void test_spare_planners(void)
{
    tiny_t t;
    grove_graph_t *g = tiny(&t);
    const int64_t F = GROVE_TIME_MAX;
    for (int round = 0; round < 3; round++) {
        ok(grove_vertex_allocate(g, t.mem0, 1, 3, 0, 100, false) == 0
               && grove_vertex_allocate(g, t.node1, 2, 1, 50, F, true) == 0,
           "round %d: jobs 1 and 2 recorded", round);
        ok(grove_vertex_free(g, t.mem0, 1, -1) == 0 && grove_vertex_free(g, t.node1, 2, -1) == 0,
           "round %d: both freed (their planners become spares)", round);
        is_int(grove_vertex_available_during(g, t.mem0, 0, 100), 4,
               "round %d: memory0 whole again", round);
        /* the spare that held 3 of 4 units now plans a pool of 1 */
        ok(grove_vertex_allocate(g, t.core0, 3, 1, 0, 100, false) == 0, "round %d: job 3 on core0",
           round);
        ok(grove_vertex_allocate(g, t.core0, 4, 1, 50, 150, false) < 0 && errno == EBUSY,
           "round %d: core0 holds one unit, not four", round);
        is_int(grove_vertex_available_during(g, t.core0, 100, 200), 1,
               "round %d: core0 free after job 3", round);
        is_int(grove_vertex_available_during(g, t.node1, 0, F), 1,
               "round %d: node1 holds nothing of job 2", round);
        ok(grove_vertex_allocate(g, t.mem0, 5, 4, 0, F, false) == 0
               && grove_vertex_allocate(g, t.mem0, 6, 1, 10, 20, false) < 0 && errno == EBUSY,
           "round %d: memory0 plans its own four units", round);
        /* a copy made while spares exist rebuilds its own planners */
        grove_graph_t *d = grove_graph_duplicate(g);
        ok(d && grove_vertex_available_during(d, t.mem0, 0, 10) == 0
               && grove_vertex_available_during(d, t.core0, 100, 200) == 1,
           "round %d: a duplicate plans the same", round);
        grove_graph_destroy(d);
        ok(grove_vertex_free(g, t.core0, 3, -1) == 0 && grove_vertex_free(g, t.mem0, 5, -1) == 0,
           "round %d: jobs 3 and 5 freed", round);
    }
    grove_graph_destroy(g);
}

static void test_copy_merge(void)
{
    tiny_t t;
    grove_graph_t *g = tiny(&t);
    grove_sym_t cont = grove_graph_sym(g, GROVE_CONTAINMENT);
    grove_vertex_allocate(g, t.mem0, 1, 3, 0, GROVE_TIME_MAX, false);
    grove_vertex_allocate(g, at(g, "/tiny0/rack0/node0/socket1"), 2, 1, 0, GROVE_TIME_MAX,
                          true);
    grove_vertex_set_property(g, t.node0, "arch", "x86");
    grove_graph_t *cp = grove_graph_copy(g, t.node0);
    ok(cp != NULL, "copy");
    /* node0 + socket0 + 4 cores + memory0, plus tiny0 and rack0 */
    is_int(grove_graph_vertex_count(cp), 2 + 1 + 1 + 4 + 1, "copy keeps what is available");
    grove_sym_t ccont = grove_graph_sym(cp, GROVE_CONTAINMENT);
    grove_vid_t m = grove_graph_find_path(cp, ccont, "/tiny0/rack0/node0/socket0/memory0");
    is_int(grove_vertex_size(cp, m), 1, "copied pool size = available");
    is_int(grove_vertex_record_count(cp, m), 0, "copy has no records");
    ok(grove_graph_find_path(cp, ccont, "/tiny0/rack0/node0/socket1") == GROVE_VID_NONE,
       "held socket dropped with its children");
    is_str(grove_vertex_property(cp, grove_graph_find_path(cp, ccont, "/tiny0/rack0/node0"),
                                 "arch"),
           "x86", "properties copied");
    char u1[37], u2[37];
    grove_vertex_uuid(g, t.mem0, u1);
    grove_vertex_uuid(cp, m, u2);
    is_str(u2, u1, "copy keeps the uuid of the same resource");

    /* the tree's child arrays made first (a matcher's walk makes them):
     * the duplicate makes its own, neither frees the other's */
    const uint32_t *koff = NULL;
    ok(grovep_tree_kids(g, &koff, NULL) != NULL && koff != NULL, "the tree's child arrays made");
    grove_graph_t *dup = grove_graph_duplicate(g);
    const uint32_t *doff = NULL;
    ok(grovep_tree_kids(dup, &doff, NULL) != NULL && doff != koff,
       "duplicate: child arrays of its own");
    is_int(grove_graph_vertex_count(dup), grove_graph_vertex_count(g), "duplicate: all vertices");
    is_int(grove_vertex_allocated(dup, t.mem0), 3, "duplicate keeps records");
    ok(grove_vertex_allocate(dup, t.mem0, 5, 1, 0, GROVE_TIME_MAX, false) == 0
           && grove_vertex_allocated(g, t.mem0) == 3,
       "duplicate is independent");

    /* merge: a new node2 under the common ancestor tiny0/rack0 */
    grove_graph_t *grow = grove_graph_create();
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    info.type = "cluster";
    info.basename = "tiny";
    info.id = 0;
    grove_vid_t gc = grove_graph_add_vertex(grow, &info);
    grove_vid_t gr = test_vertex(grow, "rack", 0, 1, gc);
    grove_vid_t gn = test_vertex(grow, "node", 2, 1, gr);
    test_vertex(grow, "core", 0, 1, gn);
    size_t before = grove_graph_vertex_count(g);
    grove_error_t err;
    is_int(grove_graph_merge(g, grow, NULL, &err), 2, "merge adds node2 and its core");
    ok(at(g, "/tiny0/rack0/node2/core0") != GROVE_VID_NONE, "merged path exists");
    is_int(grove_graph_vertex_count(g), before + 2, "vertex count after merge");
    is_int(grove_graph_merge(g, grow, NULL, &err), 0, "merging the same hierarchy again adds nothing");
    /* a new vertex carrying the uuid of an existing one is refused */
    char u[37];
    grove_vertex_uuid(g, t.node1, u);
    grove_vertex_info_init(&info);
    info.type = "node";
    info.id = 3;
    info.uuid = u;
    grove_vid_t clone = grove_graph_add_vertex(grow, &info);
    grove_graph_add_child(grow, gr, clone, NULL, NULL);
    before = grove_graph_vertex_count(g);
    err.text[0] = '\0';
    ok(grove_graph_merge(g, grow, NULL, &err) == -1 && errno == EEXIST
           && strstr(err.text, "already in the graph at /tiny0/rack0/node1"),
       "a clashing uuid is refused: %s", err.text);
    is_int(grove_graph_vertex_count(g), before, "refused merge changes nothing");
    /* merge at a path: a copy of node1's subtree under rack0 of a fresh graph */
    grove_graph_t *other = grove_graph_create();
    grove_vid_t oc = test_vertex(other, "switch", 0, 1, GROVE_VID_NONE);
    test_vertex(other, "port", 0, 1, oc);
    test_vertex(other, "port", 1, 1, oc);
    is_int(grove_graph_merge(g, other, "/tiny0/rack0", &err), 3, "merge at a path");
    ok(at(g, "/tiny0/rack0/switch0/port1") != GROVE_VID_NONE, "attached at the path");
    before = grove_graph_vertex_count(g);
    ok(grove_graph_merge(g, other, "/tiny0/nowhere", &err) < 0
           && strstr(err.text, "no vertex at path"),
       "merge at a missing path refused: %s", err.text);
    grove_graph_t *alien = grove_graph_create();
    test_vertex(alien, "cluster", 7, 1, GROVE_VID_NONE);
    ok(grove_graph_merge(g, alien, NULL, &err) < 0 && strstr(err.text, "no common ancestor"),
       "merge without a common root refused: %s", err.text);
    is_int(grove_graph_vertex_count(g), before, "failed merges change nothing");

    /* unlink */
    ok(grove_graph_unlink(g, t.node0, false) < 0 && errno == EBUSY, "unlink busy node refused");
    size_t edges = grove_graph_edge_count(g);
    ok(grove_graph_unlink(g, at(g, "/tiny0/rack0/switch0"), false) == 0, "unlink free subtree");
    is_int(grove_graph_edge_count(g), edges - 6, "its edges are gone");
    ok(at(g, "/tiny0/rack0/switch0") == GROVE_VID_NONE, "unlinked path gone");
    ok(grove_graph_unlink(g, t.node0, true) == 0, "forced unlink of a busy node");
    int shared = 0;
    grove_record_t rec;
    for (size_t i = 0; grove_vertex_record_at(g, at(g, "/tiny0/rack0"), i, &rec) == 0; i++)
        shared++;
    is_int(shared, 0, "annotations above the unlinked node are gone");
    is_int(grove_graph_count_type(g, grove_graph_sym(g, "node")), 2, "node count after unlink");
    (void)cont;
    grove_graph_destroy(g);
    grove_graph_destroy(cp);
    grove_graph_destroy(dup);
    grove_graph_destroy(grow);
    grove_graph_destroy(other);
    grove_graph_destroy(alien);
}

static int is_socket1(const grove_graph_t *g, grove_vid_t v, void *arg)
{
    (void)arg;
    return !strcmp(grove_vertex_name(g, v), "socket1")
           && grove_vertex_id(g, grove_vertex_parent(g, v, grove_graph_sym_lookup(
                                                              g, GROVE_CONTAINMENT)))
                  == 1;
}

static void test_find_extract(void)
{
    tiny_t t;
    grove_graph_t *g = tiny(&t);
    grove_vid_t *vs;
    size_t n;
    ok(grove_graph_find(g, t.root, is_socket1, NULL, &vs, &n) == 0, "find");
    /* socket1 of node1 + its 4 cores and memory + node1, rack0, tiny0 */
    is_int(n, 1 + 5 + 3, "matches, descendants and ancestors");
    grove_graph_t *sub = grove_graph_extract(g, vs, n);
    ok(sub && grove_graph_vertex_count(sub) == n, "extract");
    grove_sym_t cont = grove_graph_sym(sub, GROVE_CONTAINMENT);
    ok(grove_graph_find_path(sub, cont, "/tiny0/rack0/node1/socket1/core7") != GROVE_VID_NONE,
       "extracted paths");
    free(vs);
    grove_graph_destroy(sub);
    grove_vid_t bad = 12345;
    ok(grove_graph_extract(g, &bad, 1) == NULL && errno == EINVAL, "extract a bad id");
    grove_graph_destroy(g);
}

/* units of type t in the subtree of v */
static int64_t subtree_units(grove_graph_t *g, grove_vid_t v, const char *t)
{
    grove_sym_t cont = grove_graph_sym(g, GROVE_CONTAINMENT);
    int64_t n = !strcmp(grove_vertex_type(g, v), t) ? grove_vertex_size(g, v) : 0;
    grove_eid_t cur;
    for (grove_vid_t c = grove_vertex_first_child(g, v, cont, &cur); c != GROVE_VID_NONE;
         c = grove_vertex_next_child(g, cont, &cur))
        n += subtree_units(g, c, t);
    return n;
}

/* used units of type t below a (a included) at instant x, from the records */
static int64_t used_at(grove_graph_t *g, grove_vid_t a, const char *t, int64_t x)
{
    grove_sym_t cont = grove_graph_sym(g, GROVE_CONTAINMENT);
    int64_t n = 0;
    grove_record_t rec;
    for (size_t i = 0; grove_vertex_record_at(g, a, i, &rec) == 0; i++) {
        if (rec.kind != GROVE_RECORD_ALLOC || rec.start > x || x >= rec.end)
            continue;
        if (rec.exclusive)
            n += subtree_units(g, a, t);
        else if (!strcmp(grove_vertex_type(g, a), t))
            n += rec.amount;
    }
    grove_eid_t cur;
    for (grove_vid_t c = grove_vertex_first_child(g, a, cont, &cur); c != GROVE_VID_NONE;
         c = grove_vertex_next_child(g, cont, &cur))
        n += used_at(g, c, t, x);
    return n;
}

static void test_aggregates(void)
{
    rng_state = 12345; /* the random records below are the same on every run */
    tiny_t t;
    grove_graph_t *g = tiny(&t);
    grove_error_t err;
    ok(grove_graph_set_aggregates(g, "bogus", &err) < 0 && errno == EINVAL
           && strstr(err.text, "HL:LL"),
       "bad aggregate spec refused: %s", err.text);
    ok(grove_graph_set_aggregates(g, "ALL:core,ALL:memory,rack:node", &err) == 0,
       "aggregate spec set");
    is_str(grove_graph_aggregates(g), "ALL:core,ALL:memory,rack:node", "spec kept");
    ok(grove_vertex_aggregate_avail(g, t.root, "core", 0, 10) == 16, "cluster: 16 free cores");
    ok(grove_vertex_aggregate_avail(g, t.root, "node", 0, 10) < 0 && errno == ENOENT,
       "the cluster keeps no node aggregate (rack:node only)");
    ok(grove_vertex_aggregate_avail(g, at(g, "/tiny0/rack0"), "node", 0, 10) == 2,
       "rack: 2 free nodes");
    grove_sym_t core_sym = grove_graph_sym_lookup(g, "core");
    is_int(grove_vertex_aggregate_avail_sym(g, t.root, core_sym, 0, 10), 16,
           "by symbol: 16 free cores");
    ok(grove_vertex_aggregate_avail_sym(g, t.root, GROVE_SYM_NONE, 0, 10) < 0 && errno == ENOENT,
       "by symbol: no symbol, ENOENT");
    ok(grove_vertex_aggregate_avail_sym(g, t.root, core_sym, 10, 10) < 0 && errno == EINVAL,
       "by symbol: an empty window, EINVAL");
    int64_t two[2];
    ok(grove_vertex_aggregate_avail_syms(g, t.root, &core_sym, 1, 10, 10, two) < 0
           && errno == EINVAL,
       "several symbols: an empty window, EINVAL");
    grove_sym_t pair[2] = {core_sym, grove_graph_sym_lookup(g, "socket")};
    ok(grove_vertex_aggregate_avail_syms(g, t.root, pair, 2, 0, 10, two) == 0 && two[0] == 16
           && two[1] == -1,
       "several symbols: 16 free cores, no aggregate of sockets (-1)");
    /* random allocations and frees, checked against the records */
    grove_vid_t cand[64];
    size_t ncand = 0;
    for (grove_vid_t v = 0; v < grove_graph_vertex_slots(g); v++)
        if (strcmp(grove_vertex_type(g, v), "cluster"))
            cand[ncand++] = v;
    int bad = 0, ops = 0;
    const char *types[] = {"core", "memory"};
    for (int i = 0; i < 3000; i++) {
        grove_vid_t v = cand[rnd(0, ncand - 1)];
        grove_jobid_t job = 1 + rnd(0, 11);
        if (rnd(0, 2) == 0) {
            grove_vertex_free(g, v, job, -1);
        } else {
            int64_t start = rnd(0, 49), end = start + 1 + rnd(0, 39);
            int64_t size = grove_vertex_size(g, v);
            /* one draw per statement: the order in which a call's arguments
             * are evaluated differs between compilers */
            int64_t amount = 1 + rnd(0, size - 1);
            bool exclusive = rnd(0, 3) == 0;
            grove_vertex_allocate(g, v, job, amount, start, end, exclusive);
        }
        ops++;
        /* check every aggregate vertex on a random window */
        int64_t ws = rnd(0, 59), we = ws + 1 + rnd(0, 29);
        for (grove_vid_t a = 0; a < grove_graph_vertex_slots(g); a++) {
            for (int k = 0; k < 2; k++) {
                int64_t got = grove_vertex_aggregate_avail(g, a, types[k], ws, we);
                grove_sym_t sym = grove_graph_sym_lookup(g, types[k]);
                if (grove_vertex_aggregate_avail_sym(g, a, sym, ws, we) != got && bad++ < 5)
                    diag("op %d: %s %s: by symbol differs", i, grove_vertex_name(g, a), types[k]);
                if (got < 0)
                    continue;
                int64_t peak = 0;
                for (int64_t x = ws; x < we; x++) {
                    int64_t u = used_at(g, a, types[k], x);
                    if (u > peak)
                        peak = u;
                }
                int64_t want = subtree_units(g, a, types[k]) - peak;
                if (got != want && bad++ < 5)
                    diag("op %d: %s %s [%lld,%lld): aggregate %lld, records say %lld", i,
                         grove_vertex_name(g, a), types[k], (long long)ws, (long long)we,
                         (long long)got, (long long)want);
            }
            /* both types and no type from one query: each as asked alone */
            grove_sym_t syms[3] = {grove_graph_sym_lookup(g, types[1]),
                                   grove_graph_sym_lookup(g, types[0]), GROVE_SYM_NONE};
            int64_t u[3];
            int rc = grove_vertex_aggregate_avail_syms(g, a, syms, 3, ws, we, u);
            int64_t a1 = grove_vertex_aggregate_avail(g, a, types[1], ws, we),
                    a0 = grove_vertex_aggregate_avail(g, a, types[0], ws, we);
            if ((rc < 0 ? a0 >= 0 || a1 >= 0 : u[0] != a1 || u[1] != a0 || u[2] != -1)
                && bad++ < 5)
                diag("op %d: %s: several types at once differ", i, grove_vertex_name(g, a));
        }
    }
    ok(bad == 0, "aggregates agree with the records over %d random operations", ops);
    /* structure changes rebuild them */
    grove_graph_free_job(g, 1);
    for (grove_jobid_t j = 2; j <= 12; j++)
        grove_graph_free_job(g, j);
    grove_graph_unlink(g, t.node1, true);
    is_int(grove_vertex_aggregate_avail(g, t.root, "core", 0, 10), 8, "unlink: aggregate rebuilt");
    /* a specification of more low types than the arrays were made for:
     * each aggregate's units are kept by the types tracked */
    ok(grove_graph_set_aggregates(g, "ALL:core,ALL:memory,ALL:node,ALL:socket,ALL:rack", &err)
           == 0,
       "five low types after two");
    int64_t cores = grove_vertex_aggregate_avail(g, t.root, "core", 0, 10);
    ok(cores == 8 && grove_vertex_aggregate_avail(g, t.root, "rack", 0, 10) >= 1
           && grove_vertex_aggregate_avail(g, t.root, "socket", 0, 10) >= 1,
       "every type of five answered (cores %lld)", (long long)cores);
    grove_graph_destroy(g);
}

/* The uuid index is built at the first look-up: generated uuids of a
 * graph built without it are found, stay unique, and a given uuid that
 * repeats one of them is refused. */
static void test_uuid_lazy(void)
{
    grove_graph_t *g = grove_graph_create();
    grove_vertex_info_t info = {.type = "core", .id = -1, .rank = -1, .size = 1};
    enum { N = 3000 };
    for (int i = 0; i < N; i++)
        grove_graph_add_vertex(g, &info);
    char u[37], first[37];
    grove_vertex_uuid(g, 0, first);
    int found = 0;
    for (grove_vid_t v = 0; v < N; v++) {
        grove_vertex_uuid(g, v, u);
        found += grove_graph_find_uuid(g, u) == v;
    }
    is_int(found, N, "every generated uuid is found once the index is built");
    info.uuid = first;
    errno = 0;
    ok(grove_graph_add_vertex(g, &info) == GROVE_VID_NONE && errno == EEXIST,
       "a given uuid equal to a generated one is refused");
    info.uuid = NULL;
    grove_vid_t v = grove_graph_add_vertex(g, &info);
    grove_vertex_uuid(g, v, u);
    ok(grove_graph_find_uuid(g, u) == v && strcmp(u, first) != 0,
       "a vertex added after the build is indexed");
    grove_graph_destroy(g);
}

/* Annotations count the records below per window, whoever holds them;
 * listed by job they are read from the records below, and an exclusive
 * allocation over a touched subtree tells another job's records (EBUSY)
 * from its own (EEXIST) by them. */
static void test_window_annotations(void)
{
    tiny_t t;
    grove_graph_t *g = tiny(&t);
    grove_vid_t node0 = t.node0, c = t.root;
    grove_vid_t core[3] = {t.core0, at(g, "/tiny0/rack0/node0/socket0/core1"),
                           at(g, "/tiny0/rack0/node0/socket1/core4")};
    ok(grove_vertex_allocate(g, core[0], 7, 1, 0, 100, false) == 0
           && grove_vertex_allocate(g, core[1], 5, 1, 0, 100, false) == 0
           && grove_vertex_allocate(g, core[2], 5, 1, 50, 150, false) == 0,
       "jobs 7 and 5 take three cores over two windows");
    grove_record_t r[4];
    size_t n = grove_vertex_record_count(g, node0);
    is_int(n, 3, "node0 lists one entry per job and window below it");
    for (size_t i = 0; i < 3; i++)
        grove_vertex_record_at(g, node0, i, &r[i]);
    ok(r[0].kind == GROVE_RECORD_SHARED && r[0].job == 5 && r[0].start == 0 && r[0].end == 100
           && r[0].amount == 1 && r[1].job == 5 && r[1].start == 50 && r[2].job == 7
           && r[2].amount == 1 && !r[2].exclusive,
       "by job, then window, each counting its records");
    errno = 0;
    ok(grove_vertex_record_at(g, node0, 3, &r[3]) < 0 && errno == ENOENT, "then ENOENT");
    errno = 0;
    ok(grove_vertex_allocate(g, node0, 7, 1, 0, 100, true) < 0 && errno == EBUSY,
       "node0 whole for job 7: job 5 holds cores below in the window");
    ok(grove_vertex_allocate(g, node0, 7, 1, 200, 300, true) == 0,
       "after every window below: free");
    is_int(grove_vertex_free(g, node0, 7, -1), 0, "and freed");
    is_int(grove_graph_free_job(g, 5), 2, "job 5's two records go");
    errno = 0;
    ok(grove_vertex_allocate(g, node0, 7, 1, 50, 60, true) < 0 && errno == EEXIST,
       "node0 whole for job 7 while it holds a core below: EEXIST");
    ok(grove_vertex_allocate(g, node0, 8, 1, 100, 200, true) == 0,
       "another job after job 7's window");
    is_int(grove_graph_free_job(g, 7), 1, "job 7's core goes");
    is_int(grove_graph_free_job(g, 8), 1, "job 8's node goes");
    is_int(grove_vertex_record_count(g, node0), 0, "node0: nothing below, nothing listed");
    is_int(grove_vertex_record_count(g, c), 0, "the root neither");
    grove_graph_destroy(g);
}

/* Room made ahead changes nothing a builder sees: the same ids, counts
 * and edges as a graph grown one vertex at a time. */
static void test_reserve(void)
{
    grove_graph_t *g = grove_graph_create();
    ok(grove_graph_reserve(g, 0, 0) == 0, "reserve nothing");
    ok(grove_graph_reserve(g, 1000, 2000) == 0, "reserve 1000 vertices and 2000 edges");
    ok(grove_graph_vertex_count(g) == 0 && grove_graph_vertex_slots(g) == 0,
       "reserved room holds no vertex");
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    info.type = "cluster";
    grove_vid_t root = grove_graph_add_vertex(g, &info);
    int bad = 0;
    for (int i = 0; i < 1500; i++) { /* past the room made: grows as before */
        grove_vertex_info_init(&info);
        info.type = "node";
        info.id = i;
        grove_vid_t v = grove_graph_add_vertex(g, &info);
        if (v != (grove_vid_t)(i + 1) || grove_graph_add_child(g, root, v, NULL, NULL) < 0)
            bad++;
    }
    ok(bad == 0, "ids in order, each a child of the root");
    ok(grove_graph_vertex_count(g) == 1501 && grove_graph_edge_count(g) == 3000,
       "1501 vertices, 3000 edges");
    ok(at(g, "/cluster/node1499") == 1500, "the last one found by its path");
    grove_graph_destroy(g);
}

/* Names made from basename + id (kept in a table per basename after the
 * first), types and basenames compared with the last ones before they are
 * interned: the same names, symbols and refusals as strings made anew. */
static void test_default_names(void)
{
    grove_graph_t *g = grove_graph_create();
    static const vertex_row_t rows[] = {
        {"core", NULL, NULL, NULL, NULL, 5, 1, 0, "core5"},
        {"core", NULL, NULL, NULL, NULL, 5, 1, 0, "core5"},     /* from the table */
        {"core", NULL, "core7", NULL, NULL, 9, 1, 0, "core7"},  /* given */
        {"core", NULL, NULL, NULL, "", 7, 1, 0, "core7"},       /* made: the same symbol */
        {"core", "cpu", NULL, NULL, NULL, 7, 1, 0, "cpu7"},
        {"core", "cpu/x", NULL, NULL, NULL, 1, 1, EINVAL, NULL}, /* after a good basename */
        {"a/b", "ok", NULL, NULL, NULL, 1, 1, 0, "ok1"},        /* a type may hold a '/' */
        {"a/b", NULL, NULL, NULL, NULL, 1, 1, EINVAL, NULL},    /* not as the basename */
        {"core", NULL, NULL, NULL, "GB", 3000000000LL, 1, 0, "core3000000000"}, /* past the table */
        {"core", NULL, NULL, NULL, NULL, 3000000000LL, 1, 0, "core3000000000"},
        {"core", NULL, NULL, NULL, NULL, -1, 1, 0, "core"},
        {"gpu", NULL, NULL, NULL, NULL, 65537, 1, 0, "gpu65537"},
    };
    grove_vertex_info_t info;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        grove_vid_t v = add_row(g, "default names", i, &rows[i]);
        if (rows[i].err)
            continue;
        ok(grove_vertex_name_sym(g, v) == grove_graph_sym_lookup(g, rows[i].want_name)
               && grove_vertex_type_sym(g, v) == grove_graph_sym_lookup(g, rows[i].type),
           "default names row %zu: the symbols of its name and type", i);
        is_str(grove_vertex_unit(g, v), rows[i].unit ? rows[i].unit : "",
               "default names row %zu: unit", i);
    }
    size_t n = 0;
    for (grove_vid_t v = grove_graph_first_by_name(g, grove_graph_sym_lookup(g, "core7"));
         v != GROVE_VID_NONE; v = grove_vertex_next_same_name(g, v))
        n++;
    ok(n == 2, "a given name and the same name made from basename + id index as one (%zu)", n);
    /* strings are interned in the order they are met: type, then basename */
    ok(grove_graph_sym_lookup(g, "a/b") < grove_graph_sym_lookup(g, "ok"),
       "a type is interned before its basename");
    /* a copy makes its own tables and gives the same names */
    grove_graph_t *c = grove_graph_duplicate(g);
    grove_vertex_info_init(&info);
    info.type = "core";
    info.id = 5;
    grove_vid_t v = c ? grove_graph_add_vertex(c, &info) : GROVE_VID_NONE;
    ok(v != GROVE_VID_NONE && grove_vertex_name_sym(c, v) == grove_graph_sym_lookup(g, "core5"),
       "a copy names core5 with the original's symbol");
    grove_graph_destroy(c);
    /* many ids under one basename: every name right, in and past the table */
    bool all = true;
    for (int64_t id = 0; id < 20000 && all; id++) {
        grove_vertex_info_init(&info);
        info.type = "node";
        info.id = id;
        char want[32];
        snprintf(want, sizeof(want), "node%lld", (long long)id);
        grove_vid_t x = grove_graph_add_vertex(g, &info);
        all = x != GROVE_VID_NONE && !strcmp(grove_vertex_name(g, x), want);
    }
    ok(all, "20,000 nodes named node0 .. node19999");
    grove_graph_destroy(g);
}

/* A vertex of type t under parent p (GROVE_VID_NONE: none) with id and
 * rank; the vertex, or GROVE_VID_NONE. */
static grove_vid_t child(grove_graph_t *g, grove_vid_t p, const char *t, int64_t id,
                         int64_t rank, const char *unit)
{
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    info.type = t;
    info.id = id;
    info.rank = rank;
    info.unit = unit;
    grove_vid_t v = grove_graph_add_vertex(g, &info);
    if (v != GROVE_VID_NONE && p != GROVE_VID_NONE
        && grove_graph_add_child(g, p, v, GROVE_CONTAINMENT, NULL) < 0)
        return GROVE_VID_NONE;
    return v;
}

/* The vertices of a chain, from first (by type, name or rank), as ids. */
static size_t chain_ids(const grove_graph_t *g, grove_vid_t v, int which, grove_vid_t *out,
                        size_t max)
{
    size_t n = 0;
    for (; v != GROVE_VID_NONE && n < max; n++) {
        out[n] = v;
        v = which == 0 ? grove_vertex_next_same_type(g, v)
            : which == 1 ? grove_vertex_next_same_name(g, v)
                         : grove_vertex_next_same_rank(g, v);
    }
    return n;
}

/* The index chains are made at the first look-up and kept from then on;
 * ids past 31 bits, units and the tails of long out-lists kept beside the
 * vertex record: the same answers as kept in it. */
/* A type's first vertex is kept from the start, without the type chains'
 * links: asked before any chain is made it is the first live vertex of
 * the type, also once that vertex died (then the chain is made), and the
 * chain made later starts at the same vertex. */
static void test_first_by_type(void)
{
    grove_graph_t *g = grove_graph_create();
    grove_vid_t root = child(g, GROVE_VID_NONE, "cluster", -1, -1, NULL);
    grove_vid_t n[3];
    for (int i = 0; i < 3; i++)
        n[i] = child(g, root, "node", i, i, NULL);
    grove_sym_t node = grove_graph_sym_lookup(g, "node");
    ok(grove_graph_first_by_type(g, node) == n[0], "a type's first vertex before any chain");
    ok(grove_graph_first_by_type(g, grove_graph_sym_lookup(g, "cluster")) == root,
       "the root's type: the root");
    ok(grove_graph_unlink(g, n[0], false) == 0 && grove_graph_first_by_type(g, node) == n[1],
       "the first vertex dead: the next live one");
    grove_vid_t got[8];
    size_t k = chain_ids(g, grove_graph_first_by_type(g, node), 0, got, 8);
    ok(k == 2 && got[0] == n[1] && got[1] == n[2], "the chain made then holds the live two (%zu)",
       k);
    grove_graph_destroy(g);
}

static void test_packed(void)
{
    grove_graph_t *g = grove_graph_create();
    grove_vid_t root = child(g, GROVE_VID_NONE, "cluster", -1, -1, NULL);
    grove_vid_t n[40];
    for (int i = 0; i < 40; i++) /* 40 children: root's tail kept aside */
        n[i] = child(g, root, "node", i, i % 4, i % 3 == 0 ? "GB" : i % 3 == 1 ? "W" : NULL);
    /* changes before any look-up */
    ok(grove_vertex_set_rank(g, n[5], 3) == 0 && grove_vertex_set_name(g, n[6], "node1") == 0,
       "rank and name changed before the indexes are made");
    grove_vid_t got[64];
    size_t k = chain_ids(g, grove_graph_first_by_rank(g, 3), 2, got, 64);
    bool right = k == 11 && got[0] == n[3] && got[1] == n[5] && got[2] == n[7] && got[10] == n[39];
    ok(right, "rank 3: made at the first look-up, in id order (%zu)", k);
    k = chain_ids(g, grove_graph_first_by_name(g, grove_graph_sym_lookup(g, "node1")), 1, got, 64);
    ok(k == 2 && got[0] == n[1] && got[1] == n[6], "name node1: two vertices in id order");
    ok(grove_graph_count_type(g, grove_graph_sym_lookup(g, "node")) == 40,
       "count by type kept without the chains");
    /* changes after */
    grove_vid_t late = child(g, root, "node", 41, 3, NULL);
    ok(grove_vertex_set_rank(g, n[3], 2) == 0 && grove_vertex_set_name(g, n[1], "other") == 0,
       "rank and name changed after the indexes are made");
    k = chain_ids(g, grove_graph_first_by_rank(g, 3), 2, got, 64);
    ok(k == 11 && got[0] == n[5] && got[10] == late, "rank 3 kept up to date (%zu)", k);
    k = chain_ids(g, grove_graph_first_by_name(g, grove_graph_sym_lookup(g, "node1")), 1, got, 64);
    ok(k == 1 && got[0] == n[6], "name node1 kept up to date");
    k = chain_ids(g, grove_graph_first_by_type(g, grove_graph_sym_lookup(g, "node")), 0, got, 64);
    ok(k == 41 && got[0] == n[0] && got[40] == late, "type node: every node in id order (%zu)", k);
    /* ids past 31 bits and units */
    grove_vid_t big = child(g, root, "node", 5000000000LL, -1, "GB");
    grove_vid_t max = child(g, root, "node", INT64_MAX, -1, "GiB");
    ok(grove_vertex_id(g, big) == 5000000000LL && grove_vertex_id(g, max) == INT64_MAX
           && grove_vertex_id(g, n[7]) == 7 && grove_vertex_id(g, root) == -1,
       "ids past 31 bits kept whole");
    is_str(grove_vertex_name(g, big), "node5000000000", "name of an id past 31 bits");
    ok(!strcmp(grove_vertex_unit(g, n[0]), "GB") && !strcmp(grove_vertex_unit(g, n[1]), "W")
           && !strcmp(grove_vertex_unit(g, n[2]), "") && !strcmp(grove_vertex_unit(g, max), "GiB")
           && grove_vertex_unit_sym(g, n[3]) == grove_graph_sym_lookup(g, "GB"),
       "units kept");
    /* out-lists: order kept through removals at the tail and the middle */
    grove_eid_t last = GROVE_EID_NONE, e;
    for (e = grove_vertex_first_out(g, root); e != GROVE_EID_NONE; e = grove_edge_next_out(g, e))
        last = e;
    ok(last != GROVE_EID_NONE && grove_edge_dst(g, last) == max, "root's last out-edge");
    ok(grove_graph_unlink(g, max, false) == 0 && grove_graph_unlink(g, n[20], false) == 0,
       "unlink the last child and one in the middle");
    grove_vid_t again = child(g, root, "rack", 0, -1, NULL);
    size_t nk = 0;
    bool order = true;
    grove_vid_t prev = GROVE_VID_NONE;
    for (e = grove_vertex_first_out(g, root); e != GROVE_EID_NONE; e = grove_edge_next_out(g, e)) {
        grove_vid_t d = grove_edge_dst(g, e);
        order = order && (prev == GROVE_VID_NONE || d > prev) && d != n[20] && d != max;
        prev = d;
        nk++;
    }
    ok(order && nk == 42 && prev == again, "children in the order added, the new one last (%zu)",
       nk);
    /* a copy answers alike */
    grove_graph_t *c = grove_graph_duplicate(g);
    ok(c && grove_vertex_id(c, big) == 5000000000LL
           && !strcmp(grove_vertex_unit(c, n[1]), "W")
           && grove_graph_first_by_rank(c, 3) == n[5],
       "a copy keeps ids past 31 bits, units and indexes");
    grove_vid_t cc = c ? child(c, root, "node", 99, -1, NULL) : GROVE_VID_NONE;
    for (e = c ? grove_vertex_first_out(c, root) : GROVE_EID_NONE, last = GROVE_EID_NONE;
         e != GROVE_EID_NONE; e = grove_edge_next_out(c, e))
        last = e;
    ok(cc != GROVE_VID_NONE && last != GROVE_EID_NONE && grove_edge_dst(c, last) == cc,
       "a copy appends to the tail it was given");
    grove_graph_destroy(c);
    grove_graph_destroy(g);
}

/* Sizes past 31 bits are kept beside the 40-byte vertex record, and
 * properties and tags share one list a vertex: the same answers as kept
 * apart, each kind in the order set, through changes and a copy. */
static void test_packed_pool(void)
{
    grove_graph_t *g = grove_graph_create();
    grove_vertex_info_t info;
    grove_vertex_info_init(&info);
    info.type = "memory";
    info.size = 5000000000LL;
    grove_vid_t big = grove_graph_add_vertex(g, &info);
    info.size = INT32_MAX;
    grove_vid_t edge = grove_graph_add_vertex(g, &info);
    ok(grove_vertex_size(g, big) == 5000000000LL && grove_vertex_size(g, edge) == INT32_MAX,
       "sizes past 31 bits kept whole, 2^31 - 1 in the record");
    ok(grove_vertex_allocate(g, big, 1, 4000000000LL, 0, 10, false) == 0
           && grove_vertex_allocate(g, big, 2, 1000000001LL, 0, 10, false) < 0,
       "a pool past 31 bits allocated by its whole size");
    ok(grove_vertex_set_size(g, edge, 3000000000LL) == 0
           && grove_vertex_size(g, edge) == 3000000000LL && grove_vertex_set_size(g, edge, 7) == 0
           && grove_vertex_size(g, edge) == 7,
       "a size grown past 31 bits and back");
    ok(grove_vertex_set_property(g, edge, "a", "1") == 0 && grove_vertex_tag(g, edge, "a", NULL) == 0
           && grove_vertex_set_property(g, edge, "b", "2") == 0
           && grove_vertex_tag(g, edge, "t", "x") == 0
           && grove_vertex_set_property(g, edge, "c", "3") == 0,
       "properties and tags set in turn, one key of both kinds");
    const char *k = NULL, *val = NULL;
    ok(grove_vertex_property_count(g, edge) == 3 && grove_vertex_tag_count(g, edge) == 2
           && grove_vertex_property_at(g, edge, 1, &k, &val) == 0 && !strcmp(k, "b")
           && !strcmp(val, "2") && grove_vertex_tag_at(g, edge, 1, &k, &val) == 0
           && !strcmp(k, "t") && !strcmp(val, "x"),
       "each kind counted and listed in the order set");
    ok(grove_vertex_untag(g, edge, "a") == 0 && !strcmp(grove_vertex_property(g, edge, "a"), "1")
           && !grove_vertex_has_tag(g, edge, "a", NULL) && grove_vertex_untag(g, edge, "b") < 0
           && errno == ENOENT && grove_vertex_remove_property(g, edge, "t") < 0,
       "removing a tag keeps the property of its key; a key of the other kind is not found");
    grove_graph_t *c = grove_graph_duplicate(g);
    ok(c && grove_vertex_size(c, big) == 5000000000LL && grove_vertex_property_count(c, edge) == 3
           && grove_vertex_tag_count(c, edge) == 1 && grove_vertex_has_tag(c, edge, "t", &val)
           && !strcmp(val, "x"),
       "a copy keeps sizes past 31 bits, properties and tags");
    grove_graph_destroy(c);
    grove_graph_destroy(g);
}

/* An edge keeps its opposite as a distance: pairs made far apart (more
 * than 127 edges between them) are kept beside the edges, and pairing,
 * re-pairing, removal and a copy answer as for near ones. */
static void test_far_opposites(void)
{
    grove_graph_t *g = grove_graph_create();
    grove_vid_t root = child(g, GROVE_VID_NONE, "cluster", -1, -1, NULL);
    grove_vid_t n[300];
    grove_eid_t down[300], up[300];
    for (int i = 0; i < 300; i++) {
        n[i] = child(g, GROVE_VID_NONE, "node", i, -1, NULL);
        down[i] = grove_graph_add_edge(g, root, n[i], "containment", "contains", NULL);
    }
    for (int i = 0; i < 300; i++) /* every "in" at least 300 edges after its "contains" */
        up[i] = grove_graph_add_edge(g, n[i], root, "containment", "in", NULL);
    int bad = 0;
    for (int i = 0; i < 300; i++)
        bad += grove_edge_opposite(g, down[i]) != up[i] || grove_edge_opposite(g, up[i]) != down[i]
               || !grove_edge_is_up(g, up[i]);
    ok(bad == 0, "pairs 300 edges apart found and kept (%d wrong)", bad);
    grove_eid_t near = grove_graph_add_edge(g, n[0], root, "containment", "in", NULL);
    ok(near != GROVE_EID_NONE && grove_edge_opposite(g, near) == GROVE_EID_NONE,
       "a second \"in\" finds no unpaired edge");
    ok(grove_graph_set_opposite(g, down[0], near) == 0 && grove_edge_opposite(g, down[0]) == near
           && grove_edge_opposite(g, near) == down[0]
           && grove_edge_opposite(g, up[0]) == GROVE_EID_NONE,
       "re-paired: the old far opposite left with none");
    ok(grove_graph_set_opposite(g, down[1], up[2]) < 0 && errno == EINVAL,
       "edges that do not join the same vertices refused");
    grove_graph_t *c = grove_graph_duplicate(g);
    ok(c && grove_edge_opposite(c, down[299]) == up[299] && grove_edge_opposite(c, up[5]) == down[5],
       "a copy keeps far opposites");
    grove_graph_destroy(c);
    ok(grove_graph_unlink(g, n[7], false) == 0 && grove_edge_opposite(g, down[8]) == up[8]
           && grove_vertex_parent(g, n[8], grove_graph_sym(g, "containment")) == root,
       "removing a far pair leaves the others");
    grove_graph_destroy(g);
}


/* The edges of a graph as made, to check what the graph says of them. */
typedef struct {
    grove_eid_t e[256];
    grove_vid_t src[256], dst[256];
    size_t n;
} edges_made_t;

static grove_eid_t edge_made(grove_graph_t *g, edges_made_t *m, grove_vid_t s, grove_vid_t d,
                             const char *sub, const char *rel)
{
    grove_error_t err;
    grove_eid_t e = grove_graph_add_edge(g, s, d, sub, rel, &err);
    if (e == GROVE_EID_NONE || m->n == 256) {
        fprintf(stderr, "grove_graph_add_edge: %s\n", err.text);
        exit(2);
    }
    m->e[m->n] = e;
    m->src[m->n] = s;
    m->dst[m->n++] = d;
    return e;
}

/* How many vertices of g (< nv) list their in-edges wrongly: an edge
 * listed that is dead, not into it or listed twice, or a live edge into
 * it not listed; and how many edges made have another source or
 * destination than they were made with (dead ones too). */
static int in_lists_wrong(const grove_graph_t *g, const edges_made_t *m, grove_vid_t nv)
{
    int bad = 0;
    for (size_t i = 0; i < m->n; i++)
        bad += grove_edge_src(g, m->e[i]) != m->src[i] || grove_edge_dst(g, m->e[i]) != m->dst[i];
    for (grove_vid_t v = 0; v < nv; v++) {
        size_t listed = 0, live = 0;
        uint8_t seen[256] = {0};
        for (grove_eid_t e = grove_vertex_first_in(g, v); e != GROVE_EID_NONE;
             e = grove_edge_next_in(g, e), listed++) {
            bool fine = e < 256 && !seen[e] && grove_graph_has_edge(g, e)
                        && grove_edge_dst(g, e) == v;
            bad += !fine;
            if (e < 256)
                seen[e] = 1;
            if (listed > 256)
                return bad + 1; /* a cycle */
        }
        for (size_t i = 0; i < m->n; i++)
            live += m->dst[i] == v && grove_graph_has_edge(g, m->e[i]);
        bad += listed != live;
    }
    return bad;
}

static void test_in_edges(void)
{
    grove_graph_t *g = grove_graph_create();
    edges_made_t m = {.n = 0};
    grove_vid_t v[12];
    for (int i = 0; i < 12; i++)
        v[i] = child(g, GROVE_VID_NONE, "node", i, -1, NULL);
    /* pairs made one after the other: in-edges in the order of the
     * opposites in the vertex's out-list */
    grove_eid_t c1 = edge_made(g, &m, v[0], v[1], "containment", "contains");
    grove_eid_t i1 = edge_made(g, &m, v[1], v[0], "containment", "in");
    grove_eid_t c2 = edge_made(g, &m, v[1], v[2], "containment", "contains");
    grove_eid_t i2 = edge_made(g, &m, v[2], v[1], "containment", "in");
    grove_eid_t c3 = edge_made(g, &m, v[1], v[3], "containment", "contains");
    grove_eid_t i3 = edge_made(g, &m, v[3], v[1], "containment", "in");
    grove_eid_t x = grove_vertex_first_in(g, v[1]);
    grove_eid_t y = grove_edge_next_in(g, x), z = grove_edge_next_in(g, y);
    ok(grove_edge_opposite(g, c1) == i1 && x == c1 && y == i2 && z == i3
           && grove_edge_next_in(g, z) == GROVE_EID_NONE,
       "in-edges of a vertex: its parent's, then its children's, in the out-list's order");
    ok(in_lists_wrong(g, &m, 12) == 0 && grove_edge_src(g, c2) == v[1] && grove_edge_src(g, i3) == v[3],
       "pairs: every in-edge listed once, sources from the opposites");
    /* edges with no opposite, several into one vertex, in another
     * subsystem too, one of them paired later */
    grove_eid_t u[6];
    for (int i = 0; i < 6; i++)
        u[i] = edge_made(g, &m, v[4 + i], v[10], i < 3 ? "network" : "containment",
                         i < 3 ? "feeds" : "in");
    ok(grove_edge_opposite(g, u[5]) == GROVE_EID_NONE && in_lists_wrong(g, &m, 12) == 0,
       "edges with no opposite: listed into their vertex, with their sources");
    grove_eid_t d4 = edge_made(g, &m, v[10], v[7], "containment", "contains");
    ok(grove_edge_opposite(g, d4) == u[3] && grove_edge_opposite(g, u[3]) == d4
           && in_lists_wrong(g, &m, 12) == 0,
       "an edge paired later leaves the list of those with none");
    grove_eid_t d5 = edge_made(g, &m, v[10], v[9], "containment", "contains");
    ok(grove_edge_opposite(g, d5) == u[5] && in_lists_wrong(g, &m, 12) == 0,
       "the last edge with none paired later");
    /* re-pairing leaves the two old opposites with none */
    grove_eid_t c1b = edge_made(g, &m, v[0], v[1], "containment", "includes");
    grove_eid_t i1b = edge_made(g, &m, v[1], v[0], "containment", "in");
    ok(grove_edge_opposite(g, c1b) == i1b, "a second pair between two vertices");
    ok(grove_graph_set_opposite(g, c1, i1b) == 0 && grove_edge_opposite(g, c1) == i1b
           && grove_edge_opposite(g, i1) == GROVE_EID_NONE
           && grove_edge_opposite(g, c1b) == GROVE_EID_NONE && in_lists_wrong(g, &m, 12) == 0,
       "re-paired: both old opposites listed as edges with none, with their sources");
    ok(grove_graph_set_opposite(g, c1b, i1) == 0 && in_lists_wrong(g, &m, 12) == 0,
       "paired again: nothing listed twice");
    grove_graph_t *c = grove_graph_duplicate(g);
    ok(c && in_lists_wrong(c, &m, 12) == 0, "a copy lists the same in-edges, with the same sources");
    grove_graph_destroy(c);
    /* removal: a vertex with edges of both kinds in and out */
    edge_made(g, &m, v[10], v[11], "network", "feeds");
    edge_made(g, &m, v[11], v[2], "network", "feeds");
    ok(grove_graph_unlink(g, v[10], false) == 0 && in_lists_wrong(g, &m, 12) == 0
           && grove_vertex_first_in(g, v[10]) == GROVE_EID_NONE
           && grove_edge_src(g, d4) == v[10] && !grove_graph_has_edge(g, u[0]),
       "unlinked: its edges gone from every list, a dead edge keeps its source");
    ok(grove_graph_unlink(g, v[1], false) == 0 && in_lists_wrong(g, &m, 12) == 0
           && grove_vertex_first_in(g, v[0]) == GROVE_EID_NONE
           && grove_edge_src(g, c2) == v[1] && grove_edge_next_out(g, c2) == GROVE_EID_NONE,
       "a subtree unlinked: pairs gone as one");
    (void)i2;
    (void)c3;
    grove_graph_destroy(g);
}

int main(void)
{
    test_in_edges();
    test_far_opposites();
    test_reserve();
    test_packed();
    test_first_by_type();
    test_packed_pool();
    test_default_names();
    test_uuid_lazy();
    test_vertices();
    test_edges_paths();
    test_walk();
    test_walk_cycles();
    test_alloc();
    test_aggregate_many_types();
    test_window_annotations();
    test_spare_planners();
    test_copy_merge();
    test_find_extract();
    test_aggregates();
    return done_testing();
}
