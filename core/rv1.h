/* rv1.h: R version 1 (RFC 20), the resource set of an allocation, and its
 * bridge to the graph.
 *
 * An R holds, per broker rank: the host name (from `nodelist`) and the ids
 * of its children by type (`core`, `gpu`, and any other type a document
 * lists); named properties as rank sets; `starttime`, `expiration` and
 * `nslots`; the `scheduling` key (a JGF graph, RFC 40) kept as JSON, as is;
 * and every other key of the document and of `execution`, kept as is.
 *
 * Reading (grove_rv1_decode) validates per RFC 20: the document is an
 * object with `version` 1 and `execution` and/or `scheduling`; `execution`
 * has `R_lite`, a list of {rank: idset, children: {type: idset}} (a rank may
 * appear in several entries if their child ids do not overlap; a single
 * entry written as an object, as RFC 28 prints one, is read as a list of
 * it); `nodelist`
 * (optional, as its main consumers allow) is a list of RFC 29 host lists
 * naming, in ascending rank order, exactly one host per rank; `properties`
 * maps names (not empty, none of ! & ' " ^ ` | ( )) to idsets of ranks of
 * R_lite; `starttime` and `expiration` are numbers >= 0 (0: unset), and
 * when both are set expiration > starttime; `nslots` an integer >= 0;
 * `scheduling` and `attributes` objects.  Errors name the source, the key
 * path (`execution.R_lite[1].children.core`) and the reason.
 *
 * Writing (grove_rv1_encode) is canonical: R_lite entries group every rank
 * whose children are equal ("19-22"), in order of their first rank; idsets
 * in range form; children keys core, gpu, then the others by name; one
 * hostlist-compressed nodelist string in rank order; properties; starttime,
 * expiration (integers unless read as reals); nslots when known; then the
 * kept keys.  An R read from text and not changed since writes its nodelist
 * back as it was given (["node", "node"] stays so), so documents round-trip.
 *
 * Set algebra works per rank and per child type.  A rank is in a union if
 * it is in either; in a difference if it keeps at least one child id; in an
 * intersection if it is in both and they share a child id, or one of them
 * lists it bare (no children: the node alone, which a difference removes
 * when the other R has the rank at all), so (a - b) | (a & b) == a.  Host
 * names follow their ranks (two R that name one rank differently are
 * EINVAL); properties follow the ranks (a union has both sides'
 * properties, a difference or intersection the first operand's, each
 * restricted to the result's ranks); times come from the first operand; nslots, scheduling and kept keys are
 * dropped (they do not describe a part).
 *
 * Graphs.  A vertex is on rank r when it, or its nearest ancestor with a
 * rank, has rank r; the rank's root is the top-most vertex of that rank on
 * the path (the node); a vertex on no rank (a rack, a cluster-wide pool)
 * appears only in a scheduling graph.  R from vertices: a rank per rank
 * root (its name is the host name, its property keys that are valid names
 * the properties, whatever their values); children: every core and gpu
 * with an id, and every other leaf vertex
 * (memory, ssd, ...) with an id that has no core or gpu above it in the
 * rank.  R to a graph: the scheduling graph when present (ranks missing
 * there are filled in from R_lite by host name), else cluster0 (type
 * cluster, basename cluster, id 0) > one node per rank (name = host name,
 * basename and id split from it, or node<rank> without a nodelist; rank
 * set; properties as keys with value "") > children (rank set, name =
 * type + id), no level in between.
 *
 * Mapping an R (a shard) onto vertices: on each rank of R, a child vertex is
 * listed when R names its type and id; a vertex of another type is taken
 * when the core/gpu/listed-type vertices below it are all listed (a node
 * whose every core and gpu is released goes too, with the memory below
 * it); what lies below a taken vertex is taken; a rank that R lists bare
 * (no children) is taken whole.  Vertices above the rank roots (racks,
 * cluster) are never taken.  See grove_rv1_to_vertices and
 * grove_rv1_job_vertices.
 *
 * Errors: NULL or -1 with errno EINVAL (with err filled), ENOENT or ENOMEM.
 *
 * This header must not hold the representation of an R (rv1_private.h).
 */
#ifndef GROVE_RV1_H
#define GROVE_RV1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "graph.h"
#include "hostlist.h"
#include "idset.h"
#include "job.h"

struct json_t; /* jansson's */

typedef struct grove_rv1 grove_rv1_t;

/* Flags (bitwise or). */
#define GROVE_RV1_WITH_GRAPH 0x01    /* from_*: add scheduling {graph, writer};
                                      * encode: build one from R_lite if absent */
#define GROVE_RV1_NO_SCHEDULING 0x02 /* encode: leave the scheduling key out */
#define GROVE_RV1_PRETTY 0x04        /* encode: indented text (default compact) */
#define GROVE_RV1_GRAPH_WHOLE 0x08   /* from_vertices, from_job: the graph written
                                      * whole (uuids, every key), not short */

/* The scheduling.writer Grove puts in the R it writes with a graph. */
#define GROVE_RV1_WRITER "grove"

/* ---- life ------------------------------------------------------------- */

/* A new empty R (version 1, no ranks, no times).  NULL with ENOMEM. */
grove_rv1_t *grove_rv1_create(void);

/* Free R; errno is kept.  NULL is a no-op. */
void grove_rv1_destroy(grove_rv1_t *R);

/* A new R equal to R in everything (caller destroys).  NULL with
 * EINVAL/ENOMEM. */
grove_rv1_t *grove_rv1_copy(const grove_rv1_t *R);

/* ---- reading and writing ---------------------------------------------- */

/* Parse and validate the len bytes of JSON at text (need not be
 * NUL-terminated).  source names the input in messages (NULL: none).
 * Returns a new R (caller destroys) or NULL with EINVAL (err says where
 * and why) or ENOMEM. */
grove_rv1_t *grove_rv1_decode(const char *text, size_t len, const char *source,
                              grove_error_t *err);

/* grove_rv1_decode on the file at path (also the source name); also the
 * errno of open/read. */
grove_rv1_t *grove_rv1_load(const char *path, grove_error_t *err);

/* As grove_rv1_decode from a parsed document (borrowed; the parts R keeps
 * are copied). */
grove_rv1_t *grove_rv1_from_json(const struct json_t *doc, const char *source,
                                 grove_error_t *err);

/* The canonical text of R with GROVE_RV1_* flags (caller frees), or NULL
 * with ENOMEM, or EINVAL (WITH_GRAPH could not build a graph). */
char *grove_rv1_encode(const grove_rv1_t *R, int flags);

/* As grove_rv1_encode, as a new jansson value (caller decrefs). */
struct json_t *grove_rv1_to_json(const grove_rv1_t *R, int flags);

/* What `flux resource list` prints of R, roughly, as Flux's
 * sched.resource_summary annotation, in librlist's form: R_lite's
 * entries in order, each "rankIDS/TYPEids,..." with its child types by
 * name, joined by one space, a set in brackets when it has two ids or
 * more ("rank[0-1]/core[0-3],gpu0", "rank0/core1"; "" when R has no
 * ranks).  A new
 * string (caller frees), or NULL with ENOMEM (EINVAL: R is NULL). */
char *grove_rv1_summary(const grove_rv1_t *R);

/* ---- contents ----------------------------------------------------------- */

/* Number of ranks. */
size_t grove_rv1_rank_count(const grove_rv1_t *R);
/* The ranks as a new idset (caller destroys); NULL with ENOMEM. */
grove_idset_t *grove_rv1_ranks(const grove_rv1_t *R);
/* True if rank is in R. */
bool grove_rv1_has_rank(const grove_rv1_t *R, unsigned rank);
/* The host names in rank order as a new hostlist (caller destroys); NULL
 * with ENOENT when some rank has no host name, ENOMEM. */
grove_hostlist_t *grove_rv1_nodelist(const grove_rv1_t *R);
/* The host name of rank (borrowed), or NULL (no such rank: ENOENT; no
 * name: errno 0). */
const char *grove_rv1_hostname(const grove_rv1_t *R, unsigned rank);

/* Child types that R knows, in canonical order: the i-th name (borrowed),
 * or NULL past the end. */
const char *grove_rv1_type_at(const grove_rv1_t *R, size_t i);
/* The ids of type on rank (borrowed, valid until R changes), or NULL when
 * there are none. */
const grove_idset_t *grove_rv1_children(const grove_rv1_t *R, unsigned rank, const char *type);
/* Total number of child ids of type over all ranks. */
size_t grove_rv1_count(const grove_rv1_t *R, const char *type);

/* Properties: the i-th (0-based) name and rank set (both borrowed); 0, or
 * -1 with ENOENT past the end. */
int grove_rv1_property_at(const grove_rv1_t *R, size_t i, const char **name,
                          const grove_idset_t **ranks);

/* Times (seconds since the epoch; 0 when unset) and slots (-1 unknown). */
double grove_rv1_starttime(const grove_rv1_t *R);
double grove_rv1_expiration(const grove_rv1_t *R);
int64_t grove_rv1_nslots(const grove_rv1_t *R);

/* The scheduling value (borrowed), or NULL. */
const struct json_t *grove_rv1_scheduling(const grove_rv1_t *R);

/* ---- building ---------------------------------------------------------- */

/* Add rank (if new) and, when type is given, the ids of that type to it
 * (ids may be NULL or empty: just the rank).  0, or -1 with EINVAL (rank >
 * GROVE_IDSET_MAX_ID, empty type name) or ENOMEM. */
int grove_rv1_add(grove_rv1_t *R, unsigned rank, const char *type, const grove_idset_t *ids);

/* Set the host name of rank (NULL: unknown).  0, or -1 with ENOENT (no
 * such rank), EINVAL (not a valid host name) or ENOMEM. */
int grove_rv1_set_hostname(grove_rv1_t *R, unsigned rank, const char *host);

/* Add the ranks to property name (created if new).  0, or -1 with EINVAL
 * (invalid name, a rank not in R) or ENOMEM. */
int grove_rv1_add_property(grove_rv1_t *R, const char *name, const grove_idset_t *ranks);

/* Set starttime and expiration (0: unset; written as present).  0, or -1
 * with EINVAL (negative, not finite, over 2^53, or expiration <= starttime with both
 * set). */
int grove_rv1_set_times(grove_rv1_t *R, double starttime, double expiration);

/* Set nslots (-1: unknown).  0, or -1 with EINVAL (< -1). */
int grove_rv1_set_nslots(grove_rv1_t *R, int64_t nslots);

/* Replace the scheduling value with sched (taken, even on failure; NULL
 * removes it).  0, or -1 with EINVAL (not an object). */
int grove_rv1_set_scheduling_take(grove_rv1_t *R, struct json_t *sched);

/* ---- set algebra --------------------------------------------------------- */

/* New R a | b, a - b, a & b (caller destroys), or NULL with EINVAL (the two
 * give one rank different host names; err says which) or ENOMEM. */
grove_rv1_t *grove_rv1_union(const grove_rv1_t *a, const grove_rv1_t *b, grove_error_t *err);
grove_rv1_t *grove_rv1_difference(const grove_rv1_t *a, const grove_rv1_t *b,
                                  grove_error_t *err);
grove_rv1_t *grove_rv1_intersect(const grove_rv1_t *a, const grove_rv1_t *b,
                                 grove_error_t *err);

/* True if a and b hold the same resources: ranks, host names, children and
 * (non-empty) properties.  Times, nslots and kept keys are not compared. */
bool grove_rv1_equal(const grove_rv1_t *a, const grove_rv1_t *b);

/* Shards: a new R with only the ranks of R that are (restrict) or are not
 * (exclude) in ranks, with their children, hosts and properties, and R's
 * times.  NULL with EINVAL/ENOMEM. */
grove_rv1_t *grove_rv1_restrict(const grove_rv1_t *R, const grove_idset_t *ranks);
grove_rv1_t *grove_rv1_exclude(const grove_rv1_t *R, const grove_idset_t *ranks);

/* The ranks of R whose host name is in hosts (a hostlist, "foo[0-3]"), as
 * a new idset (caller destroys); every rank of a host named twice.  NULL
 * with EINVAL when hosts does not decode or names a host R lacks (err:
 * "invalid hosts: foo[7-8]", as flux-core's rlist_hosts_to_ranks), ENOMEM. */
grove_idset_t *grove_rv1_hosts_to_ranks(const grove_rv1_t *R, const char *hosts,
                                        grove_error_t *err);

/* A new R with only the ranks of R that satisfy the RFC 31 constraint c,
 * with their children, hosts and properties and R's times (as
 * grove_rv1_restrict; NULL c: every rank).  A rank is asked with its
 * properties, its host name (which counts as a property too, as flux-core
 * applies RFC 31: {"properties": ["foo0"]} keeps foo0, "^foo0" drops it)
 * and its number.  NULL with ENOMEM. */
struct grove_constraint;
grove_rv1_t *grove_rv1_filter(const grove_rv1_t *R, const struct grove_constraint *c);

/* ---- graphs ----------------------------------------------------------------- */

/* R of the listed vertices of g, taken as they are (duplicates ignored),
 * valid over [start, end) (end GROVE_TIME_MAX: expiration 0).  With
 * GROVE_RV1_WITH_GRAPH, scheduling = {graph: JGF of exactly these
 * vertices, writer: "grove"}, written short (jgf.h, GROVE_JGF_SHORT: what
 * Grove's and Fluxion's readers need, an R per job being what the
 * instance's content store keeps) unless GROVE_RV1_GRAPH_WHOLE.  R of a
 * whole graph (grove_rv1_from_graph) writes it whole.  NULL with EINVAL (a dead vertex, a rank
 * beyond the idset range, one rank on two differently named vertices, a
 * rank root whose name is not a host name; err says which) or ENOMEM. */
grove_rv1_t *grove_rv1_from_vertices(const grove_graph_t *g, const grove_vid_t *vids, size_t n,
                                     int64_t start, int64_t end, int flags, grove_error_t *err);

/* R of a job (a match result or a job of the table): its picks plus what
 * its exclusive picks imply (every vertex below them), over the job's
 * window; the same R of a compact job (grove_job_t.compact) as of it
 * listed whole.  Errors as grove_rv1_from_vertices. */
grove_rv1_t *grove_rv1_from_job(const grove_graph_t *g, const grove_job_t *job, int flags,
                                grove_error_t *err);

/* R of every live vertex of g (no times).  Errors as above. */
grove_rv1_t *grove_rv1_from_graph(const grove_graph_t *g, int flags, grove_error_t *err);

/* A new graph for R (see the header comment), or NULL with EINVAL (a bad
 * scheduling graph; err says where) or ENOMEM.  Its clock starts at R's
 * starttime (rounded up) and its expiration, the matcher's horizon, is
 * R's expiration (rounded down), each when R sets it (> 0). */
grove_graph_t *grove_rv1_to_graph(const grove_rv1_t *R, grove_error_t *err);

/* Whether grove_rv1_build can build R's graph: R names its vertices
 * through R_lite alone (no scheduling graph Grove reads). */
bool grove_rv1_builds_in_place(const grove_rv1_t *R);

/* Build the graph grove_rv1_to_graph would make of R into g, which has no
 * vertex: the same vertices made once, in place, where a new graph merged
 * into g would make each twice (the scheduler's first resource set).  g's
 * clock and expiration are left as they are.  0, or -1 with EINVAL (g has
 * vertices, or R has a scheduling graph: see grove_rv1_builds_in_place),
 * EOVERFLOW (R_lite past the members limit; err says where) or ENOMEM;
 * what was built before a failure is unlinked again. */
int grove_rv1_build(grove_graph_t *g, const grove_rv1_t *R, grove_error_t *err);

/* A new graph for the R in the file at path: grove_rv1_load, then
 * grove_rv1_to_graph, with the text at hand to the end, so that every
 * refusal (an R_lite past the members limit, a bad scheduling graph) names
 * the file and line as well as the place.  NULL with the errno of either
 * (EOVERFLOW past the limit). */
grove_graph_t *grove_rv1_graph_load(const char *path, grove_error_t *err);

/* The vertices of g that the shard R names (see the header comment), as a
 * new sorted array *vids (caller frees; NULL when *n is 0) of *n entries.
 * 0, or -1 with ENOENT (a rank or child id of R not in g; err says which)
 * or ENOMEM. */
int grove_rv1_to_vertices(const grove_graph_t *g, const grove_rv1_t *R, grove_vid_t **vids,
                          size_t *n, grove_error_t *err);

/* As grove_rv1_to_vertices, relative to what job holds (its picks and what
 * its exclusive picks imply), for grove_matcher_release_vertices: the
 * result holds only picks of the job; a vertex of the job that is not a
 * listed child goes when everything the job holds below it that R could
 * list is listed, or, when the job holds nothing listable below it, when
 * its parent goes (a rank root: when R names its rank).  So releasing the
 * job's own R, rank by rank, releases everything below its ranks; only a
 * shard that covers part of what one exclusive pick implies releases
 * nothing of it.  -1 with EINVAL when R names a rank on which the job holds
 * nothing or a child the job does not hold (err says which), ENOENT as
 * above, ENOMEM. */
int grove_rv1_job_vertices(const grove_graph_t *g, const grove_job_t *job, const grove_rv1_t *R,
                           grove_vid_t **vids, size_t *n, grove_error_t *err);

#endif
