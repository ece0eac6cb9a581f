/* store.h: the scheduler's state in SQLite, and in a file.
 *
 * A store is an SQLite database (WAL journal, one transaction per save)
 * holding the whole state of a Grove instance: the graph (every vertex
 * slot with its base data, status, properties and tags; every edge in
 * order), the allocation records of every vertex (allocations and
 * reservations), the matcher's job table (jobs with their picks and the
 * requests they were matched from, so that a restarted scheduler plans a
 * job again the same way; the policy name, the next job id) and the
 * acquisition state (RFC 28).
 *
 * Saves are full (every row rewritten) or incremental (the default): each
 * row carries a 64-bit hash of its content and the generation of the save
 * that wrote it, the store keeps the hashes of what the database holds,
 * and an incremental save writes only the rows whose hash changed and
 * deletes the rows of what is gone.  A save that touched one job rewrites
 * that job's row and the rows of the few vertices whose records changed.
 * Each save appends what it wrote to a change log (table `change`:
 * generation, kind, key, op), so a reader can follow the changes; a full
 * save clears the log.
 *
 * Crash safety: a save is one transaction; it returns only after COMMIT,
 * with synchronous=FULL by default (GROVE_STORE_NORMAL_SYNC: NORMAL, which
 * survives a crash of the process but maybe not of the machine).  A
 * process killed at any point leaves the database at the last committed
 * save.  Loading runs PRAGMA integrity_check first (a truncated file or a
 * damaged page is refused with EINVAL, "the file is damaged") and checks
 * every row against its hash after rebuilding; grove_store_check() runs
 * the same checks.
 *
 * One writer: a store opened for writing holds an exclusive flock() on
 * the database file until it is closed; a second writer (another process,
 * or another open in this one) is refused at open with EBUSY, so two
 * writers can never both be told their saves succeeded.  Read-only opens
 * take no lock and read the last committed save.
 *
 * Loading is in steps, so that callers (the Lua binding) can create the
 * matcher and acquisition state around the graph themselves:
 *     grove_image_t *im = grove_store_read(s, err);       graph and saved data
 *     grove_graph_t *g = grove_image_take_graph(im);       the graph is yours
 *     grove_image_restore_jobs(im, m, err);                job table into m
 *                                                          (m NULL: records only)
 *     grove_image_restore_acquire(im, a, err);             acquisition state
 *     grove_image_destroy(im);
 * grove_image_restore_jobs must be called (it adds the records of the job
 * table's jobs and verifies every vertex).  Vertex ids are preserved
 * exactly (dead slots included); edges keep their order.
 *
 * Files: grove_store_write_file writes the same state as one JSON document
 * that is also a JGF document: {"graph": JGF with tags, records and the
 * current time, "grove": {"format": 1, "jobs": [{id, state, start, end,
 * picks, request (optional: grove_matcher_request's array)}...], "next_id", "policy",
 * "acquire"}}; grove_image_read_file reads it back (any JGF file too).
 *
 * Errors: NULL or -1 with errno EINVAL (bad arguments, a database or file
 * that is not a Grove state or fails its checks; err says which row and
 * why), ENOENT (no such file), EBUSY (the database is locked), EIO (an
 * SQLite error; err has its message) or ENOMEM.
 *
 * Workload: a save after every scheduling decision (a few ms for a change
 * touching tens of vertices), a load at start-up.
 *
 * This header must not hold SQL or the store's internals (store_private.h).
 */
#ifndef GROVE_STORE_H
#define GROVE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acquire.h"
#include "error.h"
#include "graph.h"
#include "match.h"

typedef struct grove_store grove_store_t;
typedef struct grove_image grove_image_t;

/* Open flags (bitwise or). */
#define GROVE_STORE_CREATE 0x01      /* create the database if missing */
#define GROVE_STORE_READONLY 0x02    /* open read-only (save fails) */
#define GROVE_STORE_NORMAL_SYNC 0x04 /* synchronous=NORMAL instead of FULL */

/* Save flags. */
#define GROVE_STORE_FULL 0x01 /* rewrite everything */

/* The store format this code writes (meta key "format"). */
#define GROVE_STORE_FORMAT 1

/* Open (and with GROVE_STORE_CREATE create) the database at path; unless
 * read-only, take the writer's lock for the life of the store.  A new
 * store (caller closes), or NULL with ENOENT (missing, no CREATE), EINVAL
 * (not a Grove store, damaged, or a newer format), EBUSY (another writer
 * has it open, or SQLite's lock), EIO, ENOMEM, or a system error of the
 * file (EACCES, ...). */
grove_store_t *grove_store_open(const char *path, int flags, grove_error_t *err);

/* Close the store and release the writer's lock.  NULL is a no-op;
 * errno is left as it was. */
void grove_store_close(grove_store_t *s);

/* What a save did. */
typedef struct grove_store_stats {
    int64_t generation; /* the generation of this save (1 for the first) */
    bool full;          /* every row was rewritten */
    size_t vertices;    /* vertex rows written */
    size_t edges;       /* edge rows written */
    size_t jobs;        /* job rows written */
    size_t deleted;     /* rows deleted (vertices, edges, jobs) */
} grove_store_stats_t;

/* Save g, and the job table of m and the state of a when given (m and a
 * may be NULL: then the store holds none; m and a must be over g).
 * Incremental unless flags has GROVE_STORE_FULL.  Returns 0 after the
 * transaction committed (st, if not NULL, says what was written), or -1
 * (EINVAL, EBUSY, EIO, ENOMEM; the database is as before the call). */
int grove_store_save(grove_store_t *s, const grove_graph_t *g, const grove_matcher_t *m,
                     const grove_acquire_t *a, int flags, grove_store_stats_t *st,
                     grove_error_t *err);

/* The generation of the last save (0: nothing saved yet). */
int64_t grove_store_generation(const grove_store_t *s);

/* Check the database: PRAGMA integrity_check, the format, and a full read
 * with every row checked against its hash.  0, or -1 with EINVAL (err
 * says what is wrong), EIO or ENOMEM. */
int grove_store_check(grove_store_t *s, grove_error_t *err);

/* The changes since generation `since`, as a new JSON text (caller frees):
 * {"generation": g, "full": bool (a full save came after `since`: read
 * everything), "vertices": [vid, ...], "edges": [...], "jobs": [...],
 * "deleted": {"vertices": [...], "edges": [...], "jobs": [...]},
 * "acquire": bool, "meta": bool}.  NULL with EIO or ENOMEM. */
char *grove_store_changes(grove_store_t *s, int64_t since, grove_error_t *err);

/* ---- reading back ------------------------------------------------------- */

/* Read the state of the store into a new image (caller destroys), after
 * PRAGMA integrity_check.  NULL with EINVAL (nothing saved, a damaged
 * file, or a row fails its checks: err says which),
 * EIO or ENOMEM. */
grove_image_t *grove_store_read(grove_store_t *s, grove_error_t *err);

/* The graph of the image (borrowed), or NULL once taken. */
grove_graph_t *grove_image_graph(const grove_image_t *im);

/* The graph, now owned by the caller (the image keeps a borrowed pointer
 * for restore_jobs); NULL if already taken. */
grove_graph_t *grove_image_take_graph(grove_image_t *im);

/* Was a job table saved?  An acquisition state?  The policy name saved
 * with the matcher (borrowed; NULL without one). */
bool grove_image_has_jobs(const grove_image_t *im);
bool grove_image_has_acquire(const grove_image_t *im);
const char *grove_image_policy(const grove_image_t *im);

/* Put the saved jobs into m, an empty matcher over the image's graph (or,
 * m NULL, only their records into the graph), restore the next job id,
 * and check every vertex's records against what was saved.  0, or -1 with
 * EINVAL (m not empty or over another graph, a job or a vertex that does
 * not match what was saved: err says which), ENOMEM.  Call it once. */
int grove_image_restore_jobs(grove_image_t *im, grove_matcher_t *m, grove_error_t *err);

/* Put the saved acquisition state into a (bound to the image's graph).
 * 0, or -1 with ENOENT (none saved), EINVAL or ENOMEM. */
int grove_image_restore_acquire(grove_image_t *im, grove_acquire_t *a, grove_error_t *err);

/* Free the image (and its graph unless taken).  NULL is a no-op. */
void grove_image_destroy(grove_image_t *im);

/* Everything at once: *g, *m (created with cfg, the saved policy when it
 * is a built-in one; NULL when no job table was saved) and *a (NULL when
 * no acquisition state was saved), all new (caller destroys a, m, then
 * g).  0, or -1 as the steps. */
int grove_store_load(grove_store_t *s, const grove_match_config_t *cfg, grove_graph_t **g,
                     grove_matcher_t **m, grove_acquire_t **a, grove_error_t *err);

/* ---- files --------------------------------------------------------------- */

/* Write the state (g, and m and a when not NULL) to path as one JSON
 * document (see the header comment), atomically (a temporary file renamed
 * over path after fsync).  0, or -1 with the errno of the file system,
 * EINVAL or ENOMEM. */
int grove_store_write_file(const char *path, const grove_graph_t *g, const grove_matcher_t *m,
                           const grove_acquire_t *a, grove_error_t *err);

/* Read a state file (or any JGF document: then with no jobs) into a new
 * image.  NULL with ENOENT, EINVAL (err says where), ENOMEM. */
grove_image_t *grove_image_read_file(const char *path, grove_error_t *err);

#endif
