/* limit.h: the limits every reader enforces on what a user hands it.
 *
 * Input that would cost far more than its size (a 151-byte R naming four
 * billion cores, a recipe multiplying to billions of vertices, a
 * containment chain a million deep, a file that never ends) is refused
 * with EOVERFLOW and a message naming the limit and how to raise it.
 * Each limit has a default and is set by an environment variable read at
 * each use (a number, optionally followed by K, M, G or T for powers of
 * 1024):
 *
 *   GROVE_MAX_INPUT     bytes of one input file or text      (1 GiB)
 *   GROVE_MAX_DEPTH     depth of a containment chain          (1,000,000)
 *   GROVE_MAX_MEMBERS   members an idset, hostlist or R may
 *                       expand to when a graph is built, and
 *                       hosts a hostlist names one by one (a
 *                       suffix after its brackets)            (16,777,216)
 *   GROVE_MAX_VERTICES  vertices a GRUG recipe may generate   (a quarter of
 *                       physical memory at 256 bytes a vertex, at most
 *                       50,000,000)
 *   GROVE_MAX_SIZE      the size of one pool                  (2^53)
 *
 * The pool size limit keeps every aggregate (a sum of sizes over a
 * subtree) far from INT64_MAX: 2^53 a pool times fewer than 2^32 vertices
 * could still overflow in theory, so aggregate sums also saturate.
 *
 * This header must not hold any reader's use of a limit (each reader
 * checks its own) nor mutable state: nothing is cached.
 */
#ifndef GROVE_LIMIT_H
#define GROVE_LIMIT_H

#include <stdint.h>

/* Deepest nesting of arrays and objects any reader of nested text accepts
 * (JSON, YAML, JGF, jobspecs, state images; grove.h). */
#define GROVE_NEST_MAX 128

typedef struct grove_limits {
    uint64_t input;    /* bytes of one input */
    uint64_t depth;    /* containment chain */
    uint64_t members;  /* expansion of a set into vertices */
    uint64_t vertices; /* vertices of a GRUG expansion */
    uint64_t size;     /* one pool's size */
} grove_limits_t;

/* The limits in force: defaults, each replaced by its environment
 * variable when that holds a valid number. */
void grove_limits_get(grove_limits_t *out);

#endif
