/* store_private.h: what the files of the store module share: store.c (the
 * state in SQLite), image.c (the state read back, and the state as one
 * JSON file) and store_hash.c (the content hash of every row).
 *
 * It holds the image's layout, the row hashes that a save writes and a
 * load checks, and the one error helper.  It must not hold anything of
 * SQLite (that stays in store.c) nor anything the rest of libgrove should
 * call: that goes through store.h.
 */
#ifndef GROVE_STORE_PRIVATE_H
#define GROVE_STORE_PRIVATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"
#include "aggregate.h"
#include "pool.h"
#include "walker.h"
#include "compose.h"

/* ---- the image (image.c) ------------------------------------------------ */

/* A saved record (of any job) on vertex v. */
struct srec {
    grove_vid_t v;
    grove_jobid_t job;
    int64_t amount, start, end;
    bool asked;
    uint32_t at; /* state file: its index in the node's record list */
};

/* A saved job and the hash it must have once restored. */
struct sjob {
    grove_job_t job; /* picks owned */
    uint64_t hash;
    char *request;   /* owned: the job's request (grove_matcher_request), or NULL */
    uint32_t at;     /* state file: its index in grove.jobs */
};

struct grove_image {
    grove_graph_t *g;   /* owned until taken */
    bool taken;
    bool restored;      /* restore_jobs ran */
    size_t slots;
    uint8_t *status;    /* by vertex: the status to set once records are in */
    uint64_t *hbase;    /* by vertex: expected base hash (NULL: not checked) */
    uint64_t *hrec;     /* by vertex: expected record hash */
    struct srec *recs;  /* grouped by vertex, oldest first */
    size_t nrecs, reccap;
    struct sjob *jobs;  /* by id */
    size_t njobs, jobcap;
    bool has_jobs;
    char *policy;
    grove_jobid_t next_id;
    json_t *acquire;    /* NULL: none saved */
    /* Where the image came from, for restore's messages: the state file's
     * path (its text is read again to give a refusal its line), or "store
     * PATH"; NULL: unknown. */
    char *source;
    bool source_is_file;
};

/* True for a saved window (of a record or a job) that Grove could have
 * written: a start in [0, GROVE_TIME_MAX) and an end after it (at most
 * GROVE_TIME_MAX, "forever").  Both readers refuse any other, so no
 * arithmetic is ever done on a time outside that range. */
static inline bool grovep_window_ok(int64_t start, int64_t end)
{
    return grove_time_ok(start) && end > start;
}

/* A new image of slots vertices with an empty graph; NULL with ENOMEM. */
grove_image_t *grovep_image_new(size_t slots);

/* Append a saved record.  0 or -1 with ENOMEM. */
int grovep_image_add_rec(grove_image_t *im, const struct srec *r);

/* Append a saved job, zeroed (the caller fills it in id order); NULL with
 * ENOMEM. */
struct sjob *grovep_image_add_job(grove_image_t *im);

/* The saved job with this id, or NULL. */
struct sjob *grovep_image_job(const grove_image_t *im, grove_jobid_t id);

/* The state file's text (image.c): g, and m and a when not NULL, as one
 * compact JSON document (store.h, "Files"); new (caller frees), or NULL
 * with ENOMEM (err says so). */
char *grovep_state_text(const grove_graph_t *g, const grove_matcher_t *m,
                        const grove_acquire_t *a, grove_error_t *err);

/* Write n bytes of text and a newline to path atomically (a temporary
 * file beside it, fsync, rename); what names the file in errors ("state
 * file").  0, or -1 with the errno of the file system (err says so) or
 * ENOMEM. */
int grovep_write_atomic(const char *path, const char *what, const char *text, size_t n,
                        grove_error_t *err);

/* ---- row hashes (store_hash.c) ------------------------------------------ */

/* Row hashes are never 0 (0 means "no row"). */

/* Base data and status of vertex v (status given: the saved one while
 * loading); of a dead slot when v is not live. */
uint64_t grovep_store_base_hash(const grove_graph_t *g, grove_vid_t v, int status);
/* The base hash of a dead slot. */
uint64_t grovep_store_dead_hash(void);
/* Properties and tags of a live vertex, in order. */
uint64_t grovep_store_props_hash(const grove_graph_t *g, grove_vid_t v);
uint64_t grovep_store_tags_hash(const grove_graph_t *g, grove_vid_t v);
/* The properties and tags of a dead slot (none). */
uint64_t grovep_store_empty_hash(void);

/* One record's hash; a vertex's record hash is recs_fin of their sum and
 * count (order does not matter: the order is restored, but checked only
 * as a set). */
uint64_t grovep_store_rec_hash(grove_jobid_t job, int64_t amount, int64_t start, int64_t end,
                               bool asked);
uint64_t grovep_store_recs_fin(uint64_t sum, size_t n);
/* The record hash of vertex v of g. */
uint64_t grovep_store_recs_hash(const grove_graph_t *g, grove_vid_t v);

uint64_t grovep_store_edge_hash(int64_t src, int64_t dst, const char *sub, const char *rel,
                                bool up, int64_t opp);
uint64_t grovep_store_job_hash(const grove_job_t *j);
/* The hash of a text (the acquisition state row). */
uint64_t grovep_store_text_hash(const char *text);

#endif
