/* jgf.h: JSON Graph Format read and write (the `scheduling.graph` of RFC 20
 * R documents, RFC 40).
 *
 * A JGF document is {"graph": {"nodes": [...], "edges": [...]}}; an R
 * document carries the same object under "scheduling": {"graph": ...}.
 * Each node is {"id": "<string>", "metadata": {...}} with the pool's base
 * data (type, uuid, basename, name, id, properties, size, unit) and the
 * optional keys rank, status, exclusive, uniq_id and paths
 * ({subsystem: "/path/of/the/vertex"}).  Each edge is {"source", "target",
 * "metadata": {"subsystem", "relationship"}}.
 *
 * Reading.  Missing keys take the RFC 4 defaults: basename = type; name =
 * the last component of the containment path (or of the first path given)
 * when there is one, else basename + id (basename alone without an id);
 * size 1; unit ""; a fresh uuid; status up.  An edge without metadata is a
 * containment edge; a missing relationship is inferred from the paths ("in"
 * when the target is the path-parent of the source, else "contains").
 * Older files' metadata.name = {subsystem: relationship} is accepted.  The
 * file's node ids are only labels: the i-th node of the file becomes vertex
 * i of the new graph (readers of R rely on this to apply per-node data such
 * as "exclusive").  The paths given must agree with the edges; the roots of
 * a fragment of a larger graph (an allocation's scheduling graph) may carry
 * the prefix of their place in it ("/tiny0/rack0/node0" for a graph whose
 * root is node0), which the vertices below must share.  A graph's paths
 * start at its own roots, so such a prefix is not written back.  "uniq_id"
 * and "exclusive" are checked for type only: exclusivity describes an
 * allocation, which a bare graph does not have.  Unknown keys are ignored.
 *
 * Writing.  Node ids are the vertex ids as strings, uniq_id the vertex id;
 * every key above is written (id and rank -1 when unassigned), status as 0
 * (up) / 1 (down) or as a name ("drained", ...) otherwise, exclusive as
 * "held exclusively now", paths for every subsystem the vertex is in; every
 * edge with subsystem and relationship.  With GROVE_JGF_WITH_STATE, tags and
 * allocation records go under a Grove-specific key that other readers
 * ignore (see below).
 *
 * Paths.  Every vertex's whole path is what Fluxion writes and what its
 * reader requires, so Grove writes them by default; their size is the sum
 * of the vertices' depths, which for a chain of depth d is d^2 / 2 names
 * (a 100,000-deep chain: tens of gigabytes), however they are produced.
 * RFC 20 and RFC 40 list "paths" among the optional keys, and Grove's
 * reader derives every path from the edges when a node has none, so
 * GROVE_JGF_NO_PATHS writes a document linear in the graph that Grove
 * reads back whole (and that a reader requiring paths refuses).  The state
 * keys:
 *     node metadata "grove": {"tags": {"k": "v" | null, ...},
 *                             "records": [{"job", "amount", "start", "end",
 *                                          "exclusive"}, ...]}
 *     graph "metadata": {"grove": {"now": <seconds>[, "expiration": <seconds>]}}
 * ("exclusive" in a record means exclusivity was asked for; records that
 * take every unit are exclusive anyway; the ancestors' `shared`
 * annotations are not written, they follow from the records).  Reading
 * such a document restores them.  Write -> read -> write gives the same
 * bytes.
 *
 * Short (GROVE_JGF_SHORT, what an R's scheduling graph is written as: one
 * per job, on every match): a vertex's keys at the value every reader
 * defaults them to are left out (basename equal to the type, name equal to
 * basename + id, id and rank -1, exclusive false, unit "", size 1, status
 * up, no properties), and so are uuid and uniq_id, and exclusive below a
 * vertex held exclusively (implied by it); a containment link is
 * one edge, "contains", without metadata (its "in" implied, as Fluxion
 * writes it); with vertices given, node ids are their places in the list
 * written ("0", "1", ...).  Fluxion's reader and Grove's read it back to
 * the same graph (but the uuids).
 *
 * A changes document (changes.h: a top-level "changes" key) is refused:
 * it holds part of a graph, to be applied to the save it follows.
 *
 * Errors name the source, the line when known, the place in the document
 * (`nodes[12].metadata.size`, `edges[3]`) and the reason; nothing is left
 * half-built.
 *
 * This header must not hold the JSON reader (json_private.h) or anything of
 * R (rv1.h).
 */
#ifndef GROVE_JGF_H
#define GROVE_JGF_H

#include <stddef.h>

#include "error.h"
#include "graph.h"

struct json_t; /* jansson's; this header does not need jansson */

/* Writer flags. */
#define GROVE_JGF_WITH_STATE 0x01 /* tags, allocation records, "now", "expiration" */
#define GROVE_JGF_COMPACT 0x02    /* no whitespace (default: indented) */
#define GROVE_JGF_NO_PATHS 0x04   /* no "paths": linear in the graph (see Paths) */
#define GROVE_JGF_SHORT 0x08      /* what readers need and nothing they default (Short) */

/* Parse a JGF or R document of len bytes (need not be NUL-terminated) into
 * a new graph.  source names the input in error messages (NULL: none).
 * Returns the graph (caller destroys) or NULL with errno EINVAL (err says
 * where and why), ENOMEM or EOVERFLOW. */
grove_graph_t *grove_jgf_read(const char *text, size_t len, const char *source,
                              grove_error_t *err);

/* grove_jgf_read on the contents of the file at path (also the source
 * name).  Also fails with the errno of open/read (e.g. ENOENT). */
grove_graph_t *grove_jgf_load(const char *path, grove_error_t *err);

/* As grove_jgf_read, from an already parsed jansson value (borrowed): a JGF
 * document, an R document with "scheduling", or the graph object itself
 * (an object with "nodes").  Line numbers are not known here. */
grove_graph_t *grove_jgf_read_json(const struct json_t *json, const char *source,
                                   grove_error_t *err);

/* The whole graph as JGF text (NUL-terminated; caller frees), with flags
 * GROVE_JGF_*.  NULL with ENOMEM. */
char *grove_jgf_write(const grove_graph_t *g, int flags);

/* As grove_jgf_write for the listed vertices only (the scheduling graph of
 * an allocation): nodes in the order given (duplicates and dead ids
 * skipped) and the edges between two listed vertices.  Paths are still the
 * full paths in g.  NULL with ENOMEM. */
char *grove_jgf_write_vertices(const grove_graph_t *g, const grove_vid_t *vids, size_t n,
                               int flags);

/* As grove_jgf_write / grove_jgf_write_vertices (vids NULL: every vertex),
 * as a new jansson value (caller json_decref's).  NULL with ENOMEM. */
struct json_t *grove_jgf_write_json(const grove_graph_t *g, const grove_vid_t *vids, size_t n,
                                    int flags);

#endif
