/* pool.h: the data of a resource pool beyond its base data (pool.c):
 * properties, tags, its size, and allocation records (RFC 4, RFC 16 draft).
 *
 * Holds the public API of pool.c only; graph.h includes it, so including
 * graph.h gives it too.  Nothing about vertices' base data, edges or walks.
 */
#ifndef GROVE_POOL_H
#define GROVE_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"

/* Change the size.  Refused with EBUSY when records use more than the new
 * size at some instant, EINVAL when negative. */
int grove_vertex_set_size(grove_graph_t *g, grove_vid_t v, int64_t size);

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

/* ---- allocation records -------------------------------------------- */

/* grove_record_t and its kinds are graph.h's: the graph holds the records. */

/* Allocate amount units of v to job during [start, end) (end may be
 * GROVE_TIME_MAX).  If the job already holds v over the same window, the
 * allocation grows.  Exclusive: the job holds v alone (implied when amount
 * equals size), which requires that no other job holds or shares v or any
 * descendant in the window; the record then holds every unit of v, since
 * no other job can use the rest (allocated and available agree).  Ancestors in the containment tree count
 * it in their `shared` annotation of the window.  Fails with EBUSY (not enough free units, held
 * exclusively by another job above or here, or v or an ancestor not up),
 * EINVAL (amount <= 0, amount > size, bad window).  Nothing changes on
 * failure.  EEXIST when the job already holds v through an exclusive
 * ancestor, asks for v whole while holding parts of it in the window, or
 * holds v (whole, or in units) over another window that overlaps this one
 * while one of the two is whole. */
int grove_vertex_allocate(grove_graph_t *g, grove_vid_t v, grove_jobid_t job,
                          int64_t amount, int64_t start, int64_t end, bool exclusive);

/* RFC 4's staged flag: a temporary lock while v is being considered for a
 * job (a scheduler holding a candidate between a match and its decision):
 * the matcher takes neither v nor anything below it while it is set (a
 * satisfiability check ignores it, as it ignores status).  Not saved by
 * the store: a lock lasts as long as the process.  0, or -1 (EINVAL: no
 * such vertex). */
int grove_vertex_set_staged(grove_graph_t *g, grove_vid_t v, bool staged);
bool grove_vertex_staged(const grove_graph_t *g, grove_vid_t v);

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
/* RFC 16's Allocated for all jobs and Available, each in one call: the
 * live vertices, in id order, into a new array *vids (caller frees) of
 * *n.  Allocated at t: a vertex holding units of some job at t, or below
 * a vertex held exclusively at t (an exclusive allocation implies its
 * inside, which has no records of its own); a container with jobs only
 * below it is not in the set.  Available during [start, end): a vertex
 * with units free throughout (grove_vertex_available_during > 0: up,
 * nothing above it or itself held exclusively, not every unit in use); a
 * pool partly in use is in both sets.  0, or -1 with EINVAL (a time
 * outside [0, GROVE_TIME_MAX), end <= start) or ENOMEM. */
int grove_graph_allocated_at(const grove_graph_t *g, int64_t t, grove_vid_t **vids, size_t *n);
int grove_graph_available_during(const grove_graph_t *g, int64_t start, int64_t end,
                                 grove_vid_t **vids, size_t *n);

/* True when v or an ancestor is held exclusively (by any job) at time t; *job
 * set to the holder.  False for a t outside [0, GROVE_TIME_MAX). */
bool grove_vertex_held_exclusively(const grove_graph_t *g, grove_vid_t v, int64_t t,
                                   grove_jobid_t *job);

/* The records of v: the i-th, or -1 (ENOENT) past the end; v's own ALLOC
 * records first, then one SHARED entry per job and window with records
 * below v (amount: how many), by job and window.  The graph keeps one
 * annotation per ancestor and window for all jobs, so the SHARED entries
 * are read from the records below v, walking only where annotations lead,
 * once for the vertex last listed until a record comes or goes (-1 with
 * ENOMEM if that walk runs out of memory). */
int grove_vertex_record_at(const grove_graph_t *g, grove_vid_t v, size_t i,
                           grove_record_t *rec);
size_t grove_vertex_record_count(const grove_graph_t *g, grove_vid_t v);

#endif
