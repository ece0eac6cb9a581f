/* register.h: a job placed again from its R, as a scheduler does when it
 * restarts and the jobs it had started say what they hold (RFC 27's hello).
 *
 * The job holds exactly what R names on the matcher's graph (mapped as
 * rv1.h's "Mapping an R" says: each listed child, every vertex whose
 * children are all listed, a bare rank whole) and the leaves of R's
 * scheduling graph that lie on no rank (a rabbit's ssds, which R_lite
 * cannot name), found by their paths, whole or the units R's graph gives
 * them), held exclusively, with the
 * containers above them up to the root shared, over R's starttime and
 * expiration.  Nothing is searched: the resources are free over that
 * window or the job is refused.
 *
 * This header must not hold the matcher's search (match.h) nor R's format
 * (rv1.h).
 */
#ifndef GROVE_REGISTER_H
#define GROVE_REGISTER_H

#include <stdint.h>

#include "error.h"
#include "match.h"
#include "rv1.h"

typedef struct grove_register_opts {
    /* The window when R does not say: start when R has no starttime (-1:
     * the graph's now), end when R has no expiration (0: the end of time). */
    int64_t start, end;
    /* The job's request (grove_matcher_request's text), so that it can be
     * planned again; NULL: none is known. */
    const char *request;
    /* Ranks R names that the job has released already (RFC 27's partial
     * hello, `free`): what lies on them is left out; what lies on no rank
     * (a rabbit's ssds, which R's scheduling graph names) is still held
     * until the job's final free.  NULL: none. */
    const grove_idset_t *free;
} grove_register_opts_t;

/* Fill opts with the defaults: start -1, end 0, no request, nothing freed. */
void grove_register_opts_init(grove_register_opts_t *opts);

/* Put job id (not 0) into m's table holding what R names, over R's window:
 * running when the window has begun, reserved when it starts later.  opts
 * may be NULL.  0 with *out (may be NULL) the job (borrowed, as
 * grove_matcher_job); -1 with EEXIST (the id is in use), ENOENT (R names a
 * rank or child the graph lacks), EBUSY (a vertex R names, or one above
 * it, is held by another job during the window: err names it and the
 * window), EINVAL (id 0, a window that ended before now or is empty, R
 * naming nothing, a bad request) or ENOMEM; the graph and the table are
 * unchanged on failure.  Vertex status is not looked at: a drained node
 * still runs what it ran. */
int grove_matcher_register(grove_matcher_t *m, const grove_rv1_t *R, grove_jobid_t id,
                           const grove_register_opts_t *opts, const grove_job_t **out,
                           grove_error_t *err);

#endif
