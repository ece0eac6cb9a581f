/* graph.h: the graph of resource pools (RFC 4).
 *
 * A vertex is a resource pool: base data (type, uuid, basename, name, id,
 * rank, properties, size, unit) and extended data (status, tags, allocation
 * records).  Edges are directed, belong to a subsystem and carry a
 * relationship ("contains", "in", "conduit-of", ...).  Any number of
 * subsystems share the same vertices.  In each subsystem the "downward"
 * edges (every relationship except the opposite ones, "in") lead from a
 * vertex to its children.  In the containment subsystem the "contains"
 * edges form a tree (one parent each, no cycle); a downward containment
 * edge with another relationship (such as "includes") also links a vertex
 * below a second one — a storage unit shared by a rack and a cluster-level
 * unit — without making it its parent: the matcher follows such edges, tree
 * walks (grove_graph_walk, aggregates, paths) do not.  Other subsystems may
 * be any directed graph, and a vertex's path there follows its first
 * parent.
 *
 * Vertex ids are dense uint32_t starting at 0, in creation order; per-vertex
 * data lives in arrays indexed by id.  A vertex removed by unlink keeps its id
 * (the slot is dead: iteration and look-ups skip it).  Strings are interned
 * per graph.
 *
 * Allocation records follow RFC 4 and the RFC 16 draft: a pool's units are
 * never over-allocated at any instant; a job that takes every unit, or asks
 * for exclusivity, holds the pool exclusively and its descendants are
 * implied (no records of their own); ancestors of an allocated vertex are
 * annotated with the job (the `shared` list).  Every record has a start and
 * an end time; "now" is the window starting at the graph's current time.
 */
#ifndef GROVE_GRAPH_H
#define GROVE_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "intern.h"

typedef struct grove_graph grove_graph_t;
typedef uint32_t grove_vid_t; /* vertex id */
typedef uint32_t grove_eid_t; /* edge id */
typedef uint64_t grove_jobid_t;

#define GROVE_VID_NONE UINT32_MAX
#define GROVE_EID_NONE UINT32_MAX
#define GROVE_ID_NONE (-1)     /* vertex id / rank not assigned */
#define GROVE_TIME_MAX INT64_MAX /* "forever": end of an open-ended record */

/* Well-known names. */
#define GROVE_CONTAINMENT "containment"
#define GROVE_CONTAINS "contains"
#define GROVE_IN "in"
#define GROVE_INCLUDES "includes"       /* a second, non-tree containment link */
#define GROVE_INCLUDED_IN "included-in" /* its opposite */

/* Vertex status (RFC 4 states, plus the administrative ones of RFC 28). */
typedef enum grove_status {
    GROVE_STATUS_UP = 0,
    GROVE_STATUS_DOWN = 1,
    GROVE_STATUS_DRAINED = 2,
    GROVE_STATUS_EXCLUDED = 3,
    GROVE_STATUS_DEGRADED = 4,
    GROVE_STATUS_FAILING = 5,
    GROVE_STATUS_UNKNOWN = 6,
    GROVE_STATUS_COUNT
} grove_status_t;

/* "up", "down", ... for a status; NULL for an invalid value. */
const char *grove_status_name(grove_status_t s);
/* The status named s, or -1 (EINVAL). */
int grove_status_parse(const char *s);

/* ---- life ----------------------------------------------------------- */

/* A new, empty graph.  NULL with ENOMEM. */
grove_graph_t *grove_graph_create(void);

/* Free the graph and everything in it.  NULL is a no-op. */
void grove_graph_destroy(grove_graph_t *g);

/* The graph's string table (borrowed). */
grove_intern_t *grove_graph_strings(grove_graph_t *g);
const char *grove_graph_str(const grove_graph_t *g, grove_sym_t sym);
/* Intern s in the graph's table; GROVE_SYM_NONE with ENOMEM. */
grove_sym_t grove_graph_sym(grove_graph_t *g, const char *s);
/* The symbol of s if the graph knows it, else GROVE_SYM_NONE. */
grove_sym_t grove_graph_sym_lookup(const grove_graph_t *g, const char *s);

/* Number of vertex slots (live and dead): valid ids are 0 .. n-1. */
size_t grove_graph_vertex_slots(const grove_graph_t *g);
/* Number of live vertices. */
size_t grove_graph_vertex_count(const grove_graph_t *g);
/* Number of live edges. */
size_t grove_graph_edge_count(const grove_graph_t *g);
/* True if v names a live vertex. */
bool grove_graph_has_vertex(const grove_graph_t *g, grove_vid_t v);

/* Bytes held by the graph (vertex arrays, edges, strings, indexes,
 * records): what bench/ reports per vertex. */
size_t grove_graph_bytes(const grove_graph_t *g);

/* The simulated current time ("now"), seconds.  Starts at 0. */
int64_t grove_graph_now(const grove_graph_t *g);
void grove_graph_set_now(grove_graph_t *g, int64_t now);

/* ---- vertices -------------------------------------------------------- */

typedef struct grove_vertex_info {
    const char *type;     /* required, non-empty */
    const char *basename; /* NULL: the type */
    const char *name;     /* NULL: basename + id, or basename if no id */
    int64_t id;           /* GROVE_ID_NONE if not assigned */
    int64_t rank;         /* GROVE_ID_NONE if none */
    int64_t size;         /* >= 0; units in the pool */
    const char *unit;     /* NULL: "" */
    const char *uuid;     /* NULL: generated; else 36-char text form */
} grove_vertex_info_t;

/* Fill info with defaults: id and rank none, size 1, the rest NULL. */
void grove_vertex_info_init(grove_vertex_info_t *info);

/* Add a vertex.  Returns its id, or GROVE_VID_NONE with EINVAL (missing
 * type, negative size, malformed uuid), EEXIST (uuid already used) or
 * ENOMEM.  The graph is unchanged on failure. */
grove_vid_t grove_graph_add_vertex(grove_graph_t *g, const grove_vertex_info_t *info);

grove_sym_t grove_vertex_type_sym(const grove_graph_t *g, grove_vid_t v);
grove_sym_t grove_vertex_basename_sym(const grove_graph_t *g, grove_vid_t v);
grove_sym_t grove_vertex_name_sym(const grove_graph_t *g, grove_vid_t v);
grove_sym_t grove_vertex_unit_sym(const grove_graph_t *g, grove_vid_t v);
/* Borrowed strings, valid while the graph lives. */
const char *grove_vertex_type(const grove_graph_t *g, grove_vid_t v);
const char *grove_vertex_basename(const grove_graph_t *g, grove_vid_t v);
const char *grove_vertex_name(const grove_graph_t *g, grove_vid_t v);
const char *grove_vertex_unit(const grove_graph_t *g, grove_vid_t v);
int64_t grove_vertex_id(const grove_graph_t *g, grove_vid_t v);
int64_t grove_vertex_rank(const grove_graph_t *g, grove_vid_t v);
int64_t grove_vertex_size(const grove_graph_t *g, grove_vid_t v);
/* The uuid in text form into buf (at least 37 bytes). */
void grove_vertex_uuid(const grove_graph_t *g, grove_vid_t v, char buf[37]);

/* Change the rank (indexes follow).  0, or -1 with EINVAL. */
int grove_vertex_set_rank(grove_graph_t *g, grove_vid_t v, int64_t rank);
/* Change the name (indexes follow).  0, or -1 with EINVAL/ENOMEM. */
int grove_vertex_set_name(grove_graph_t *g, grove_vid_t v, const char *name);
/* Change the size.  Refused with EBUSY when records use more than the new
 * size at some instant, EINVAL when negative. */
int grove_vertex_set_size(grove_graph_t *g, grove_vid_t v, int64_t size);

/* Status. */
grove_status_t grove_vertex_status(const grove_graph_t *g, grove_vid_t v);
int grove_vertex_set_status(grove_graph_t *g, grove_vid_t v, grove_status_t s);

/* Properties: static key=value pairs (value may be ""), several per vertex,
 * kept in insertion order.  set replaces an existing key. */
int grove_vertex_set_property(grove_graph_t *g, grove_vid_t v, const char *key,
                              const char *value);
/* The value (borrowed) or NULL if the key is absent. */
const char *grove_vertex_property(const grove_graph_t *g, grove_vid_t v, const char *key);
/* 0 if removed, -1 with ENOENT if absent. */
int grove_vertex_remove_property(grove_graph_t *g, grove_vid_t v, const char *key);
/* The i-th property (0-based): 0 and key/value set, or -1 (ENOENT) past the end. */
int grove_vertex_property_at(const grove_graph_t *g, grove_vid_t v, size_t i,
                             const char **key, const char **value);
size_t grove_vertex_property_count(const grove_graph_t *g, grove_vid_t v);

/* Tags: dynamic key with optional value (NULL = no value).  Same shape. */
int grove_vertex_tag(grove_graph_t *g, grove_vid_t v, const char *key, const char *value);
/* True if tagged; *value (if given) is the value or NULL. */
bool grove_vertex_has_tag(const grove_graph_t *g, grove_vid_t v, const char *key,
                          const char **value);
int grove_vertex_untag(grove_graph_t *g, grove_vid_t v, const char *key);
int grove_vertex_tag_at(const grove_graph_t *g, grove_vid_t v, size_t i, const char **key,
                        const char **value);
size_t grove_vertex_tag_count(const grove_graph_t *g, grove_vid_t v);

/* ---- edges ----------------------------------------------------------- */

/* Add an edge src -> dst in subsystem with relationship rel (NULL:
 * "contains").  An edge whose relationship is "in" (or that is made the
 * upward one of an opposite pair) points upward and is not followed by
 * walks.  In the containment subsystem a vertex may have only one
 * "contains" parent and no cycle may form.  Returns the edge id, or
 * GROVE_EID_NONE with EINVAL (no such vertex, a self-loop, a second parent,
 * a cycle; the reason in err), EOVERFLOW (too many subsystems or
 * relationships) or ENOMEM; the graph is unchanged on failure. */
grove_eid_t grove_graph_add_edge(grove_graph_t *g, grove_vid_t src, grove_vid_t dst,
                                 const char *subsystem, const char *rel, grove_error_t *err);

/* Add parent -contains-> child and child -in-> parent in subsystem (NULL:
 * containment), as opposite edges.  0 or -1 (as add_edge). */
int grove_graph_add_child(grove_graph_t *g, grove_vid_t parent, grove_vid_t child,
                          const char *subsystem, grove_error_t *err);

/* Mark two edges as each other's opposite (both must join the same two
 * vertices in opposite directions and the same subsystem).  The one whose
 * relationship is "in", or else the second, becomes the upward edge. */
int grove_graph_set_opposite(grove_graph_t *g, grove_eid_t a, grove_eid_t b);

grove_vid_t grove_edge_src(const grove_graph_t *g, grove_eid_t e);
grove_vid_t grove_edge_dst(const grove_graph_t *g, grove_eid_t e);
grove_sym_t grove_edge_subsystem(const grove_graph_t *g, grove_eid_t e);
grove_sym_t grove_edge_relation(const grove_graph_t *g, grove_eid_t e);
/* The opposite edge or GROVE_EID_NONE. */
grove_eid_t grove_edge_opposite(const grove_graph_t *g, grove_eid_t e);
/* True for an upward edge (an "in", or the second of an opposite pair). */
bool grove_edge_is_up(const grove_graph_t *g, grove_eid_t e);

/* Out- and in-edges of v, all subsystems: first/next, GROVE_EID_NONE ends. */
grove_eid_t grove_vertex_first_out(const grove_graph_t *g, grove_vid_t v);
grove_eid_t grove_edge_next_out(const grove_graph_t *g, grove_eid_t e);
grove_eid_t grove_vertex_first_in(const grove_graph_t *g, grove_vid_t v);
grove_eid_t grove_edge_next_in(const grove_graph_t *g, grove_eid_t e);

/* Edge slots (live and dead) and liveness, for iterating every edge. */
size_t grove_graph_edge_slots(const grove_graph_t *g);
bool grove_graph_has_edge(const grove_graph_t *g, grove_eid_t e);

/* Subsystems that have at least one edge, in order of first use: the i-th,
 * or GROVE_SYM_NONE past the end. */
grove_sym_t grove_graph_subsystem_at(const grove_graph_t *g, size_t i);

/* The parent of v in subsystem (source of its first downward in-edge), or
 * GROVE_VID_NONE for a root or a vertex outside the subsystem. */
grove_vid_t grove_vertex_parent(const grove_graph_t *g, grove_vid_t v, grove_sym_t subsystem);

/* Children of v in subsystem, in edge order: first/next over the downward
 * out-edges; returns the child and updates *cursor (start with
 * GROVE_EID_NONE in *cursor... use grove_vertex_first_child). */
grove_vid_t grove_vertex_first_child(const grove_graph_t *g, grove_vid_t v,
                                     grove_sym_t subsystem, grove_eid_t *cursor);
grove_vid_t grove_vertex_next_child(const grove_graph_t *g, grove_sym_t subsystem,
                                    grove_eid_t *cursor);

/* The roots of a subsystem: vertices with downward out-edges in it and no
 * parent, in id order.  The i-th root or GROVE_VID_NONE.  For the
 * containment subsystem of a graph with a single vertex and no edges, that
 * vertex is the root. */
grove_vid_t grove_graph_root(const grove_graph_t *g, grove_sym_t subsystem, size_t i);

/* Depth of v in subsystem (root = 0). */
int grove_vertex_depth(const grove_graph_t *g, grove_vid_t v, grove_sym_t subsystem);

/* The path of v in subsystem ("/tiny0/rack0/node1") into buf; returns the
 * length it needs (excluding NUL), like snprintf, or -1 with ENOENT when v
 * is not in the subsystem. */
int grove_vertex_path(const grove_graph_t *g, grove_vid_t v, grove_sym_t subsystem, char *buf,
                      size_t len);

/* ---- look-ups -------------------------------------------------------- */

/* The vertex at path in subsystem, or GROVE_VID_NONE (ENOENT). */
grove_vid_t grove_graph_find_path(const grove_graph_t *g, grove_sym_t subsystem,
                                  const char *path);
/* The vertex with this uuid (text form), or GROVE_VID_NONE (ENOENT). */
grove_vid_t grove_graph_find_uuid(const grove_graph_t *g, const char *uuid);

/* Vertices by type, name and rank, each a chain in ascending id order:
 * first_by_X gives the first, next_same_X the following one. */
grove_vid_t grove_graph_first_by_type(const grove_graph_t *g, grove_sym_t type);
grove_vid_t grove_vertex_next_same_type(const grove_graph_t *g, grove_vid_t v);
grove_vid_t grove_graph_first_by_name(const grove_graph_t *g, grove_sym_t name);
grove_vid_t grove_vertex_next_same_name(const grove_graph_t *g, grove_vid_t v);
grove_vid_t grove_graph_first_by_rank(const grove_graph_t *g, int64_t rank);
grove_vid_t grove_vertex_next_same_rank(const grove_graph_t *g, grove_vid_t v);
/* Number of live vertices of a type. */
size_t grove_graph_count_type(const grove_graph_t *g, grove_sym_t type);

/* ---- allocation records -------------------------------------------- */

typedef enum grove_record_kind {
    GROVE_RECORD_ALLOC = 0, /* units of this pool held by a job */
    GROVE_RECORD_SHARED = 1 /* annotation: a descendant is held by the job */
} grove_record_kind_t;

typedef struct grove_record {
    grove_jobid_t job;
    grove_record_kind_t kind;
    int64_t amount;  /* units (ALLOC); number of descendant records (SHARED) */
    int64_t start;   /* first second of the record */
    int64_t end;     /* first second after it (GROVE_TIME_MAX: open-ended) */
    bool exclusive;  /* ALLOC: held exclusively (all units or asked for) */
    bool asked;      /* ALLOC: exclusivity was asked for (what allocate's
                      * exclusive argument was; not only implied by size) */
} grove_record_t;

/* Allocate amount units of v to job during [start, end) (end may be
 * GROVE_TIME_MAX).  If the job already holds v over the same window, the
 * allocation grows.  Exclusive: the job holds v alone (implied when amount
 * equals size), which requires that no other job holds or shares v or any
 * descendant in the window.  Ancestors in the containment tree gain a
 * `shared` annotation.  Fails with EBUSY (not enough free units, held
 * exclusively by another job above or here, or v or an ancestor not up),
 * EINVAL (amount <= 0, amount > size, bad window).  Nothing changes on
 * failure.  EEXIST when the job already holds v through an exclusive
 * ancestor, asks for v whole while holding parts of it in the window, or
 * holds v (whole, or in units) over another window that overlaps this one
 * while one of the two is whole. */
int grove_vertex_allocate(grove_graph_t *g, grove_vid_t v, grove_jobid_t job,
                          int64_t amount, int64_t start, int64_t end, bool exclusive);

/* Free the job's allocation of v (all of it when amount < 0, else shrink by
 * amount) over every window it holds.  Ancestor annotations follow.  -1 with
 * ENOENT when the job holds nothing here, EINVAL when amount exceeds what it
 * holds. */
int grove_vertex_free(grove_graph_t *g, grove_vid_t v, grove_jobid_t job, int64_t amount);

/* Free every record of the job in the whole graph; returns how many
 * allocation records were removed (0 if none). */
size_t grove_graph_free_job(grove_graph_t *g, grove_jobid_t job);

/* Units of v held by jobs at time t (own records only). */
int64_t grove_vertex_allocated_at(const grove_graph_t *g, grove_vid_t v, int64_t t);
/* Units of v allocated now (at the graph's current time). */
int64_t grove_vertex_allocated(const grove_graph_t *g, grove_vid_t v);
/* Units of v free throughout [start, end): size minus the peak use, 0 when v
 * or an ancestor is not up, or v or an ancestor is held exclusively in that
 * window. */
int64_t grove_vertex_available_during(const grove_graph_t *g, grove_vid_t v, int64_t start,
                                      int64_t end);
/* Available now: the window [now, now + 1). */
int64_t grove_vertex_available(const grove_graph_t *g, grove_vid_t v);
/* True when v or an ancestor is held exclusively (by any job) at time t; *job
 * set to the holder. */
bool grove_vertex_held_exclusively(const grove_graph_t *g, grove_vid_t v, int64_t t,
                                   grove_jobid_t *job);

/* The records of v: the i-th, or -1 (ENOENT) past the end. */
int grove_vertex_record_at(const grove_graph_t *g, grove_vid_t v, size_t i,
                           grove_record_t *rec);
size_t grove_vertex_record_count(const grove_graph_t *g, grove_vid_t v);

/* ---- pruning aggregates ----------------------------------------------- */

/* Choose which vertices keep aggregates of which types below them:
 * "HL:LL,..." with HL a type or ALL and LL a type, e.g. the default
 * "ALL:core,ALL:node,ALL:gpu".  EINVAL (with err) on a bad spec. */
int grove_graph_set_aggregates(grove_graph_t *g, const char *spec, grove_error_t *err);
/* The current specification (borrowed). */
const char *grove_graph_aggregates(const grove_graph_t *g);
/* Free units of type below v (v included) throughout [start, end), from
 * v's aggregate; -1 with ENOENT when v keeps none for that type. */
int64_t grove_vertex_aggregate_avail(const grove_graph_t *g, grove_vid_t v, const char *type,
                                     int64_t start, int64_t end);

/* ---- traversal -------------------------------------------------------- */

typedef enum grove_walk_action {
    GROVE_WALK_CONTINUE = 0, /* descend */
    GROVE_WALK_SKIP = 1,     /* do not descend below this vertex */
    GROVE_WALK_STOP = 2      /* end the walk now */
} grove_walk_action_t;

/* Hooks for grove_graph_walk.  Any may be NULL.  A hook returning -1 stops
 * the walk, which then returns -1 with the hook's errno. */
typedef struct grove_walk_hooks {
    /* pre-order: CONTINUE, SKIP, STOP or -1. */
    int (*pre)(grove_graph_t *g, grove_vid_t v, int depth, void *arg);
    /* order the n children of parent in place; 0 or -1. */
    int (*order)(grove_graph_t *g, grove_vid_t parent, grove_vid_t *children, size_t n,
                 void *arg);
    /* post-order: 1 to push v into the accumulator with *score, 0 not to,
     * 2 to push and stop, 3 to stop without pushing, -1 on error. */
    int (*post)(grove_graph_t *g, grove_vid_t v, int depth, double *score, void *arg);
    void *arg;
} grove_walk_hooks_t;

/* Accumulator: vertices kept in descending score order (stable: equal
 * scores in push order), optionally bounded to the best k. */
typedef struct grove_accum grove_accum_t;
grove_accum_t *grove_accum_create(size_t limit); /* limit 0: unbounded */
void grove_accum_destroy(grove_accum_t *a);
void grove_accum_reset(grove_accum_t *a);
int grove_accum_push(grove_accum_t *a, grove_vid_t v, double score);
size_t grove_accum_count(const grove_accum_t *a);
/* The i-th best: vertex, and *score if given. */
grove_vid_t grove_accum_at(const grove_accum_t *a, size_t i, double *score);

/* Depth-first walk of subsystem from start (pre-order hook, child order,
 * post-order hook feeding acc, which may be NULL).  Returns 0, 1 when a hook
 * stopped the walk, or -1 (a hook failed, or ENOMEM). */
int grove_graph_walk(grove_graph_t *g, grove_vid_t start, grove_sym_t subsystem,
                     const grove_walk_hooks_t *hooks, grove_accum_t *acc);

/* ---- RFC 4 composite methods ----------------------------------------- */

/* Aggregate: available units by type in the containment subtree of v, at
 * the graph's current time.  Subtrees of unavailable vertices (down,
 * drained, excluded, held exclusively, or with nothing available) are
 * skipped; zero counts are omitted.  The callback is called once per type
 * in first-seen (pre-order) order; returns 0 or -1 with ENOMEM. */
typedef void (*grove_aggregate_f)(const char *type, int64_t count, void *arg);
int grove_graph_aggregate(const grove_graph_t *g, grove_vid_t v, grove_aggregate_f cb,
                          void *arg);

/* Copy: a new graph of the containment subtree of v with only what is
 * available now: pools with nothing available are dropped with their
 * children, sizes set to available, records cleared; the ancestors of v up
 * to the root are kept.  Edges of other subsystems between copied vertices
 * are kept.  NULL with ENOMEM. */
grove_graph_t *grove_graph_copy(const grove_graph_t *g, grove_vid_t v);

/* Duplicate: an exact copy of the whole graph (vertex ids preserved). */
grove_graph_t *grove_graph_duplicate(const grove_graph_t *g);

/* Merge: add the containment hierarchy of src into g.  With at == NULL, the
 * two roots must have the same name (the hierarchies meet at their common
 * ancestor): vertices of src whose containment path exists in g are the
 * same pool and keep g's data; the rest are added below their parent.  With
 * at set, src's root is attached as a child of the vertex at that path of
 * g.  Base data, status, properties and tags are copied; records are not.
 * Edges of other subsystems are merged too.  Fails with EINVAL (no common
 * root, path not found, a vertex at the same path with another type) with
 * the reason in err; g is unchanged on failure.  Returns the number of
 * vertices added. */
long grove_graph_merge(grove_graph_t *g, const grove_graph_t *src, const char *at,
                       grove_error_t *err);

/* Unlink: remove v and its containment subtree from the graph (every edge
 * touching them in every subsystem; the vertices die).  Refused with EBUSY
 * when any of them holds records, unless force is set, in which case the
 * jobs' records in the subtree (and their annotations above) are dropped.
 * EINVAL for a dead vertex. */
int grove_graph_unlink(grove_graph_t *g, grove_vid_t v, bool force);

/* Find: vertices of the containment subtree of start for which pred is
 * true, plus their descendants and their ancestors up to the root, as a
 * sorted array of ids (*out, caller frees) of *n entries.  pred returns 1,
 * 0 or -1 (error: stops, returned).  0 or -1. */
typedef int (*grove_pred_f)(const grove_graph_t *g, grove_vid_t v, void *arg);
int grove_graph_find(const grove_graph_t *g, grove_vid_t start, grove_pred_f pred, void *arg,
                     grove_vid_t **out, size_t *n);

/* Extract: a new graph with exactly the listed vertices (ids need not be
 * sorted; duplicates ignored) and every edge between two of them, with all
 * their data and records.  New ids follow the order of the list after
 * sorting.  NULL with ENOMEM or EINVAL (a dead id). */
grove_graph_t *grove_graph_extract(const grove_graph_t *g, const grove_vid_t *vids, size_t n);

#endif
