/* changes.h: saving the entire resource set or only what changed since
 * the last save, to a state (configuration) file, to JGF and to a child
 * instance's R (the RFC 16 draft's save methods; the SQLite store has its
 * own incremental save, store.h).
 *
 * "Changed" is relative to the last save to the same destination, whole
 * or changed-only, as the store's incremental save is: a save mark
 * (grove_mark_t, one per destination) remembers a 64-bit hash of every
 * entry the last save wrote.  The entries are the document's nodes (by
 * id), edges (by content and place) and, in a state file, jobs (by id).
 * A changed-only save writes a changes document holding:
 *     {"changes": {"format": 1, "of": "jgf" | "state" | "R",
 *                  "generation": n (this save; the mark's count of saves),
 *                  "base": "<16 hex digits>" (fingerprint of save n - 1),
 *                  "result": "<16 hex digits>" (fingerprint of save n),
 *                  "removed": {"nodes": [id, ...], "edges": [index in save
 *                              n - 1, ...], "jobs": [id, ...]}},
 *      "graph": {"metadata" (as the entire save), "nodes": [the nodes new or
 *                changed, in save n's order], "edges": [the edges new since
 *                save n - 1, in save n's order]},
 *      "grove": {every key of the entire save's "grove", "jobs" only the
 *                jobs new or changed}}                     (state files)
 * and, for R: {"changes": {..., "job": id}, "added": R | null (the part of
 * the new R not in the old), "removed": R | null, "starttime",
 * "expiration" (of the new R), "scheduling": the new R's scheduling key
 * with its graph's lists as above, or null when it has none}.
 * Applying a changes document to save n - 1 (grove_changes_apply) gives a
 * document equal, as JSON, to the entire save n: removed entries are
 * dropped, changed ones replaced where they were, new ones appended (an
 * entry whose place among the others moved is removed and appended, so
 * order is kept).  Fingerprints are hashes of the canonical JSON text
 * (keys sorted, no whitespace); applying checks the base's and the
 * result's, so changes applied to another save are refused and change
 * nothing.
 *
 * A mark belongs to one kind of destination: the first save through it
 * fixes its kind (and for R its job); another kind is refused (EINVAL).
 * The mark moves to a save only once the save is done: for files after
 * the rename, for text once it is returned.  A changed-only save through a
 * fresh mark writes every entry (all new).
 *
 * Cost: a changed-only save builds the entire document and hashes each
 * entry (linear in the graph, as the store's hashing is) and writes only
 * the changes; a mark holds 16 bytes and a key per entry.
 *
 * Errors: NULL or -1 with errno EINVAL (bad arguments, a mark of another
 * kind or job, a document that is not a changes document or does not
 * follow the base: err says which and where), ENOMEM, or the errno of the
 * file system.
 *
 * This header must not hold the formats' writers (jgf.h, rv1.h, store.h).
 */
#ifndef GROVE_CHANGES_H
#define GROVE_CHANGES_H

#include <stddef.h>
#include <stdint.h>

#include "acquire.h"
#include "error.h"
#include "graph.h"
#include "job.h"
#include "match.h"

typedef struct grove_mark grove_mark_t;

/* Save flags (bitwise or). */
#define GROVE_SAVE_CHANGED 0x01 /* only what changed since the mark's last save */

/* A new mark: no save yet (caller destroys).  NULL with ENOMEM. */
grove_mark_t *grove_mark_create(void);

/* Free a mark.  NULL is a no-op. */
void grove_mark_destroy(grove_mark_t *mk);

/* Saves made through mk (0: none). */
int64_t grove_mark_generation(const grove_mark_t *mk);

/* The kind of saves mk follows: "jgf", "state", "R", or NULL (none yet). */
const char *grove_mark_kind(const grove_mark_t *mk);

/* g as JGF text (jgf_flags GROVE_JGF_*; caller frees), entire or (flags
 * GROVE_SAVE_CHANGED) a changes document against mk's last save; mk (may
 * be NULL for an entire save) moves to this save.  NULL with EINVAL (a
 * changed-only save without a mark, a mark of another kind or of other
 * JGF flags) or ENOMEM. */
char *grove_jgf_save(const grove_graph_t *g, int jgf_flags, int flags, grove_mark_t *mk,
                     grove_error_t *err);

/* The state file of grove_store_write_file (g, and m and a when not NULL),
 * entire or changed-only, written atomically to path; mk (may be NULL for
 * an entire save) moves to it after the rename.  0, or -1 with errno as
 * grove_jgf_save and the file system's. */
int grove_state_save(const char *path, const grove_graph_t *g, const grove_matcher_t *m,
                     const grove_acquire_t *a, int flags, grove_mark_t *mk, grove_error_t *err);

/* The R a child instance inside job acquires (grove_acquire_child_resources)
 * as text (caller frees), entire or changed-only; mk (may be NULL for an
 * entire save) moves to it.  NULL with EINVAL (as grove_jgf_save, or a mark
 * that follows another job) or ENOMEM. */
char *grove_child_save(const grove_graph_t *g, const grove_job_t *job, int flags,
                       grove_mark_t *mk, grove_error_t *err);

/* Apply the changes document (clen bytes at changes) to base (blen bytes:
 * the save it follows, entire or itself the result of an apply) and return
 * the entire document it makes (compact JSON text, caller frees).  source
 * names the changes in errors (NULL: "changes").  NULL with EINVAL (not
 * JSON, not a changes document, a base of another kind or another save,
 * an entry it names missing: err says which) or ENOMEM. */
char *grove_changes_apply(const char *base, size_t blen, const char *changes, size_t clen,
                          const char *source, grove_error_t *err);

#endif
