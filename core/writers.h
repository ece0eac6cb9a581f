/* writers.h: the text `grove query` prints for a set of vertices: what a
 * job selected, or the result of a find.
 *
 * A writer holds scratch indexed by vertex id for one graph (borrowed: it
 * must outlive the writer) and builds a selection: entries {vertex, units,
 * exclusive, held}, closed under ancestors, printed as trees.  A vertex is
 * printed below a selected containment parent (its home); with several (a
 * second containment link) below the one whose type the request names as
 * its parent's type, else below its tree parent.  Trees start at vertices
 * with no selected parent, in vertex id order; children follow graph order.
 *
 * Formats (GROVE_WFMT_*): simple (deepest first,
 * "      " + "---" per level from 1 at the root + name[units:x|s]),
 * pretty_simple (root first, exclusive/shared spelt out), jgf (nodes in
 * post-order with their metadata, an edge from each home), rlite, rv1,
 * rv1_nosched (R version 1, RFC 20).  An empty selection writes nothing.
 *
 * Cost: a job's selection costs time in proportion to its picks and the
 * subtrees its explicitly exclusive picks imply, never to the jobs held or
 * the size of the graph (whether the graph has second containment links
 * and whether its child lists are in id order is learnt once per change of
 * the graph's edges).
 *
 * This header must not hold matching or recording (match.h) nor the
 * command language; it reads jobs and the graph and writes text.
 */
#ifndef GROVE_WRITERS_H
#define GROVE_WRITERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "graph.h"
#include "job.h"

typedef struct grove_writer grove_writer_t;

typedef enum grove_wfmt {
    GROVE_WFMT_SIMPLE = 0,
    GROVE_WFMT_PRETTY_SIMPLE,
    GROVE_WFMT_JGF,
    GROVE_WFMT_RLITE,
    GROVE_WFMT_RV1,
    GROVE_WFMT_RV1_NOSCHED,
} grove_wfmt_t;

/* The format called name, or -1 (EINVAL). */
int grove_wfmt_parse(const char *name);
/* The name of the i-th format, or NULL past the end. */
const char *grove_wfmt_name(size_t i);

/* How a request wants its selection printed: the types it marks exclusive
 * explicitly (an exclusive pick of such a type is printed with everything
 * below it) and, for vertices reached through two containment parents,
 * the parent type it names above each type (pairs child type -> parent
 * type). */
typedef struct grove_wshape {
    const grove_sym_t *expand; /* types printed whole */
    size_t nexpand;
    const grove_sym_t (*prefer)[2]; /* {child type, parent type} */
    size_t nprefer;
} grove_wshape_t;

/* One entry of a selection. */
typedef struct grove_wentry {
    grove_vid_t v;
    int64_t amount; /* units */
    bool x;         /* held exclusively */
    bool alloc;     /* the job holds units of it (not only shares it) */
} grove_wentry_t;

/* A writer for g (borrowed), its scratch sized for g's vertices and g's
 * two facts learnt now (so the first selection costs what the others do).
 * NULL with ENOMEM. */
grove_writer_t *grove_writer_create(const grove_graph_t *g);
/* Free it.  NULL is a no-op. */
void grove_writer_destroy(grove_writer_t *w);

/* Print along subsystem (NULL or "containment": the containment tree, the
 * default): a job's entries hang below their parents there, depths are
 * counted there, and the subtree of an expanded pick is that subsystem's
 * (the matcher's dominant subsystem, grove_matcher_set_dominant).  0, or
 * -1 with ENOENT (the graph has no such subsystem). */
int grove_writer_set_subsystem(grove_writer_t *w, const char *subsystem);

/* Make the selection the job's: its picks (held when exclusive or
 * recorded), everything below its exclusive picks of the shape's expand
 * types, less shared containers with nothing of the job printed below
 * them.  shape may be NULL.  0, or -1 with ENOMEM. */
int grove_writer_job(grove_writer_t *w, const grove_job_t *job, const grove_wshape_t *shape);

/* Make the selection the n vertices listed (each whole, exclusive, held)
 * and their containment ancestors.  0, or -1 with EINVAL (a dead vertex)
 * or ENOMEM. */
int grove_writer_vertices(grove_writer_t *w, const grove_vid_t *vs, size_t n);

/* The entries of the selection (those printed), in vertex id order
 * (borrowed: valid until the next call on w), their number in *n.  NULL
 * with ENOMEM. */
const grove_wentry_t *grove_writer_entries(grove_writer_t *w, size_t *n);

/* Extra JGF metadata of a vertex (find's pruning filters): JSON object text
 * for v, or NULL for none. */
typedef const char *(*grove_wextra_fn)(grove_vid_t v, void *arg);

/* The selection in format fmt as new NUL-terminated text (caller frees),
 * its length in *len; "" for an empty selection.  start and end
 * (GROVE_TIME_MAX: never) are the R window; extra (may be NULL) adds JGF
 * metadata.  NULL with EINVAL (an unknown format, or R cannot describe the
 * vertices: err says why) or ENOMEM. */
char *grove_writer_write(grove_writer_t *w, grove_wfmt_t fmt, int64_t start, int64_t end,
                         grove_wextra_fn extra, void *arg, size_t *len, grove_error_t *err);

/* The same text written to f as it is made (a whole machine's tens of
 * megabytes are never held at once; the bytes are those of
 * grove_writer_write).  0, or -1 with errno: EINVAL (as
 * grove_writer_write, before anything is written), ENOMEM, or the error
 * of a failed write to f (err says so); after ENOMEM or a failed write,
 * what was written before stays written. */
int grove_writer_print(grove_writer_t *w, grove_wfmt_t fmt, int64_t start, int64_t end,
                       grove_wextra_fn extra, void *arg, FILE *f, grove_error_t *err);

/* The text of job's selection in fmt written to f: the bytes of
 * grove_writer_job then grove_writer_print.  The simple format of a graph
 * whose containment has one parent per vertex is written as the graph's
 * tree is walked from the job's picks, with no selection built (a whole
 * machine's million entries, their links and print order are never
 * made); the writer is left with an empty selection then, else with the
 * job's.  0, or -1 with errno as grove_writer_job and grove_writer_print. */
int grove_writer_print_job(grove_writer_t *w, const grove_job_t *job, const grove_wshape_t *shape,
                           grove_wfmt_t fmt, FILE *f, grove_error_t *err);

#endif
