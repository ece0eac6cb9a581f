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
 *
 * This header holds the graph itself (graph.c): its types, life, vertices'
 * base data and status, edges, paths and look-ups.  The rest of the graph
 * API has a header per module, on the floors above the graph's (each
 * includes this one; grove.h includes them all): pool.h (properties, tags,
 * size, allocation records), aggregate.h (pruning aggregates), walker.h
 * (walks, the accumulator, aggregate and find), compose.h (copy,
 * duplicate, merge, unlink, extract).  The layout of grove_graph_t is in
 * graph_private.h.
 *
 * This header must not hold the graph's internals (graph_private.h) or the
 * API of the modules above it (pool.h, aggregate.h, walker.h, compose.h),
 * nor include their headers: the graph's floor never reaches up.
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

/* Times are whole seconds in [0, GROVE_TIME_MAX): a start, "now", a point
 * asked about.  GROVE_TIME_MAX itself only ends a window ("forever").
 * Every time that enters from a file, a request or a policy is checked
 * with grove_time_ok before any arithmetic is done on it. */
static inline bool grove_time_ok(int64_t t)
{
    return t >= 0 && t < GROVE_TIME_MAX;
}

/* Times a file gives as JSON numbers (R's starttime and expiration, an
 * acquisition's expiration, a jobspec's duration) must be finite, >= 0 and
 * at most 2^53 seconds: every such number is then exact as an integer and
 * converts to int64_t without overflow. */
#define GROVE_TIME_REAL_MAX 9007199254740992.0

/* The end of the window of d seconds from t: t + d, or GROVE_TIME_MAX when
 * that would pass it.  Defined for every t and d: a t or d below 0 (which
 * grove_time_ok keeps out where times enter) counts as 0, so the sum never
 * overflows. */
static inline int64_t grove_time_end(int64_t t, int64_t d)
{
    if (t < 0)
        t = 0;
    if (d < 0)
        d = 0;
    return d >= GROVE_TIME_MAX - t ? GROVE_TIME_MAX : t + d;
}

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
    GROVE_STATUS_NULL = 7, /* RFC 4's "null": no state given yet; not up */
    GROVE_STATUS_COUNT
} grove_status_t;

/* "up", "down", ... for a status; NULL for an invalid value. */
const char *grove_status_name(grove_status_t s);
/* The status named s, or -1 (EINVAL). */
int grove_status_parse(const char *s);

/* ---- life ----------------------------------------------------------- */

/* A new, empty graph.  NULL with ENOMEM. */
grove_graph_t *grove_graph_create(void);

/* Free the graph and everything in it; errno is kept.  NULL is a no-op. */
void grove_graph_destroy(grove_graph_t *g);

/* Make room for vertices more vertices and edges more edges at once, for
 * a builder that knows how many it will add (the arrays then grow once,
 * not by doubling and copying as they fill).  0, or -1 with ENOMEM (the
 * graph unchanged but for room). */
int grove_graph_reserve(grove_graph_t *g, size_t vertices, size_t edges);

/* The string of a symbol of the graph's table (borrowed). */
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

/* A count that moves with every change to what the graph holds apart
 * from its allocation records and clock: vertices and edges, sizes,
 * names, ranks, properties, status, the aggregates' specification.  What
 * a reader derives from those alone (the R of the whole graph) may be
 * kept while the count holds. */
uint64_t grove_graph_changes(const grove_graph_t *g);

/* Bytes held by the graph (vertex arrays, edges, strings, indexes,
 * records): what bench/ reports per vertex. */
size_t grove_graph_bytes(const grove_graph_t *g);

/* The simulated current time ("now"), seconds.  Starts at 0.  Setting it
 * outside [0, GROVE_TIME_MAX) fails with EINVAL and changes nothing. */
int64_t grove_graph_now(const grove_graph_t *g);
int grove_graph_set_now(grove_graph_t *g, int64_t now);

/* The expiration of the resource set the graph holds (RFC 20 R's
 * `expiration`, RFC 28 updates), seconds, 0 none: the matcher's horizon.
 * No match in any mode places a job whose window ends past it (see
 * match.h).  Set returns 0, or -1 with EINVAL (negative). */
int64_t grove_graph_expiration(const grove_graph_t *g);
int grove_graph_set_expiration(grove_graph_t *g, int64_t t);

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
 * type, negative size, malformed uuid, a basename -- the type when none is
 * given -- or name with a '/', which paths could not tell apart), EEXIST
 * (uuid already used) or
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

/* Status. */
grove_status_t grove_vertex_status(const grove_graph_t *g, grove_vid_t v);
int grove_vertex_set_status(grove_graph_t *g, grove_vid_t v, grove_status_t s);

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

/* Out- and in-edges of v, all subsystems: first/next, GROVE_EID_NONE ends
 * (and next of an edge removed).  Out-edges come in the order made; the
 * in-edges with an opposite come first, in the order of their opposites
 * among v's out-edges, then those with none. */
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

/* The type of a locality domain: a NUMA domain, which holds the cores and
 * GPUs local to one another (topo.h's locality form makes them). */
#define GROVE_DOMAIN_TYPE "numanode"

/* The locality domain of v: v or its nearest containment ancestor of type
 * GROVE_DOMAIN_TYPE, not looked for above v's node (a vertex of type
 * "node"); GROVE_VID_NONE when there is none (a node, a socket holding
 * several domains, a vertex of a graph without domains). */
grove_vid_t grove_vertex_domain(const grove_graph_t *g, grove_vid_t v);

/* The path of v in subsystem ("/tiny0/rack0/node1") into buf; returns the
 * length it needs (excluding NUL), like snprintf, or -1 with ENOENT when v
 * is not in the subsystem. */
int grove_vertex_path(const grove_graph_t *g, grove_vid_t v, grove_sym_t subsystem, char *buf,
                      size_t len);

/* ---- look-ups -------------------------------------------------------- */

/* The vertex at path in subsystem, or GROVE_VID_NONE (ENOENT). */
grove_vid_t grove_graph_find_path(const grove_graph_t *g, grove_sym_t subsystem,
                                  const char *path);
/* RFC 4's URI of v in subsystem, "name:/path" with the subsystem as the
 * name ("containment:/tiny0/rack0/node1"), into buf; as grove_vertex_path:
 * the length it needs, or -1 with ENOENT. */
int grove_vertex_uri(const grove_graph_t *g, grove_vid_t v, grove_sym_t subsystem, char *buf,
                     size_t len);
/* The vertex at a URI of that form, or GROVE_VID_NONE with EINVAL (not of
 * that form) or ENOENT (no such subsystem or path). */
grove_vid_t grove_graph_find_uri(const grove_graph_t *g, const char *uri);
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

/* ---- allocation records ---------------------------------------------- */

/* A record of a pool: the graph holds them, the pools' floor makes and
 * reads them through pool.h, the availability floor reads them too. */
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

#endif
