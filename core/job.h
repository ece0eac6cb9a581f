/* job.h: jobs and picks, the vertices a job holds or shares.
 *
 * A job is what the matcher records and what R (rv1.h), the store and
 * acquisition read: its id, state, window and the sorted list of picks.
 * These are plain data types shared by those modules, so that a format
 * module need not depend on the matcher.
 *
 * This header holds only the job and pick types: no functions, nothing of
 * the matcher (match.h) or of any format.
 */
#ifndef GROVE_JOB_H
#define GROVE_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"

typedef enum grove_job_state {
    GROVE_JOB_ALLOCATED = 0, /* running now */
    GROVE_JOB_RESERVED = 1,  /* starts later */
    GROVE_JOB_MATCHED = 2    /* a result only: not in the table */
} grove_job_state_t;

/* One vertex of a selection. */
typedef struct grove_pick {
    grove_vid_t v;
    bool exclusive;  /* held exclusively */
    bool leaf;       /* nothing of the request lies below it (units counted here) */
    bool recorded;   /* carries an allocation record (others are implied or shared) */
    bool whole;      /* of a compact job (grove_job_t.compact): asked for
                      * exclusively, everything below it is the job's and
                      * is listed when the job is read (false after) */
    int64_t amount;  /* units taken from the pool (1 for whole vertices); after
                      * the flags, so that a pick is 16 bytes, not 24 (a whole
                      * machine's selection has a million) */
} grove_pick_t;

/* A job: in the table, or the result of a match. */
typedef struct grove_job {
    grove_jobid_t id;
    grove_job_state_t state;
    int64_t start, end; /* [start, end) seconds */
    grove_pick_t *picks; /* sorted by vertex id: the vertices the job holds or
                          * shares, every ancestor up to the root included */
    size_t npicks;
    uint32_t spread; /* its slots placed across locality domains (no
                      * vertex within one domain had room for them when it
                      * was matched); 0 on a graph without domains */
    bool use_held; /* what it asked for counts in its matcher's ranks of
                    * vertices (policies that explore by use) */
    bool compact;  /* a job whose picks leave out what lies below the
                    * vertices it holds whole (grove_matcher_set_compact):
                    * the matcher's accessors list them before they hand it
                    * out, so that no reader sees it so, but for those of
                    * its head and its R (grove_matcher_job_kept) */
} grove_job_t;

#endif
