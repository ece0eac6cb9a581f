/* idset.h: RFC 22 sets of non-negative integer ids.
 *
 * An idset is a set of unsigned ids in [0, GROVE_IDSET_MAX_ID] with the RFC 22
 * string form "1-3,5-6,42" (optionally "[1-3,5-6,42]").  Broker ranks, core
 * and gpu indices in R, node ids in a scenario: all are idsets.
 *
 * Representation: a sorted array of disjoint, non-adjacent inclusive ranges
 * [lo, hi] plus a cached count.  Ids in Grove's inputs are dense runs (0-35,
 * 0-3) with the odd hole, or a few sparse large ids (1048576).  A range array
 * costs 8 bytes per run whatever the magnitude of the ids, where a bitmap
 * costs one bit per possible id up to the largest one; membership is a binary
 * search (O(log r) in the number of runs), set algebra a linear merge
 * (O(r1 + r2)), and encoding walks the runs directly.  Single-id updates in
 * the middle of a long list of runs move the tail of the array (O(r)); that
 * is acceptable for the sizes Grove sees (thousands of runs at most).
 *
 * Errors: functions return -1 or NULL and set errno (EINVAL bad argument,
 * ENOMEM, EOVERFLOW an encoding that would exceed GROVE_IDSET_ENCODE_MAX).
 * Parse errors also fill an optional caller-owned grove_error_t.
 *
 * This header must not hold the run array (idset.c) or any format that
 * carries idsets.
 */
#ifndef GROVE_IDSET_H
#define GROVE_IDSET_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "error.h"

typedef struct grove_idset grove_idset_t;

/* "No such id": returned by first/last/next/prev/nth when there is none.  It
 * is never a member, so the largest id a set may hold is UINT_MAX - 1. */
#define GROVE_IDSET_INVALID UINT_MAX
#define GROVE_IDSET_MAX_ID (UINT_MAX - 1)

/* Encoding flags (bitwise or).  0 lists every id: "1,7,8,9". */
#define GROVE_IDSET_FLAG_RANGE 1    /* compress runs: "1,7-9" (canonical form) */
#define GROVE_IDSET_FLAG_BRACKETS 2 /* wrap in [] unless the set has < 2 ids */

/* Longest string grove_idset_encode will build (bytes, excluding the NUL);
 * longer results fail with EOVERFLOW instead of allocating gigabytes (e.g.
 * flags 0 on "0-4294967294"). */
#define GROVE_IDSET_ENCODE_MAX ((size_t)INT_MAX)

/* A new empty set.  Returns NULL with ENOMEM.  Caller destroys. */
grove_idset_t *grove_idset_create(void);

/* Parse an RFC 22 string ("", "[]", "3", "0-7,9", "[1-3,42]").  Ids must be
 * decimal without leading zeros, strictly ascending with no duplicate or
 * overlapping ranges, each <= GROVE_IDSET_MAX_ID; brackets, if any, enclose
 * the whole string.  Returns a new set (caller destroys) or NULL with EINVAL
 * (and err, if not NULL, saying what is wrong at which 1-based position) or
 * ENOMEM.  s == NULL is EINVAL. */
grove_idset_t *grove_idset_decode(const char *s, grove_error_t *err);

/* As grove_idset_decode for the len bytes at s (which need not be
 * NUL-terminated; an embedded NUL is an invalid character). */
grove_idset_t *grove_idset_decode_len(const char *s, size_t len, grove_error_t *err);

/* The string form of s with GROVE_IDSET_FLAG_* flags; "" for the empty set.
 * Returns a new string (caller frees) or NULL with EINVAL (s NULL or unknown
 * flags), ENOMEM, or EOVERFLOW (longer than GROVE_IDSET_ENCODE_MAX). */
char *grove_idset_encode(const grove_idset_t *s, int flags);

/* A new set equal to s (caller destroys), or NULL with EINVAL/ENOMEM. */
grove_idset_t *grove_idset_copy(const grove_idset_t *s);

/* Free s; errno is kept.  NULL is a no-op. */
void grove_idset_destroy(grove_idset_t *s);

/* Add / remove one id.  Returns 0, or -1 with EINVAL (s NULL or id >
 * GROVE_IDSET_MAX_ID) or ENOMEM (set unchanged).  Clearing an absent id is
 * not an error. */
int grove_idset_set(grove_idset_t *s, unsigned id);
int grove_idset_clear(grove_idset_t *s, unsigned id);

/* Add / remove every id in the inclusive range [lo, hi] (given in either
 * order).  Returns 0, or -1 with EINVAL (s NULL or an end >
 * GROVE_IDSET_MAX_ID) or ENOMEM (set unchanged). */
int grove_idset_range_set(grove_idset_t *s, unsigned lo, unsigned hi);
int grove_idset_range_clear(grove_idset_t *s, unsigned lo, unsigned hi);

/* True if id is in s (false for s NULL). */
bool grove_idset_test(const grove_idset_t *s, unsigned id);

/* Number of ids in s (0 for NULL). */
size_t grove_idset_count(const grove_idset_t *s);

/* True if s has no ids (or is NULL). */
bool grove_idset_empty(const grove_idset_t *s);

/* Lowest / highest id, or GROVE_IDSET_INVALID when s is empty or NULL. */
unsigned grove_idset_first(const grove_idset_t *s);
unsigned grove_idset_last(const grove_idset_t *s);

/* The smallest id > id / the largest id < id, or GROVE_IDSET_INVALID.  With
 * first/next: for (i = first(s); i != GROVE_IDSET_INVALID; i = next(s, i)). */
unsigned grove_idset_next(const grove_idset_t *s, unsigned id);
unsigned grove_idset_prev(const grove_idset_t *s, unsigned id);

/* The n-th smallest id (n from 0), or GROVE_IDSET_INVALID if n >= count.
 * O(number of runs). */
unsigned grove_idset_nth(const grove_idset_t *s, size_t n);

/* The 0-based position of id among the ids of s (its rank), or -1 (errno
 * ENOENT) if id is not in s.  O(number of runs). */
long grove_idset_rank(const grove_idset_t *s, unsigned id);

/* New sets a | b, a - b, a & b (caller destroys), or NULL with EINVAL (an
 * argument NULL) or ENOMEM.  O(runs of a + runs of b). */
grove_idset_t *grove_idset_union(const grove_idset_t *a, const grove_idset_t *b);
grove_idset_t *grove_idset_difference(const grove_idset_t *a, const grove_idset_t *b);
grove_idset_t *grove_idset_intersect(const grove_idset_t *a, const grove_idset_t *b);

/* In place: a |= b, a -= b (a == b is allowed).  Returns 0, or -1 with EINVAL
 * or ENOMEM (a unchanged). */
int grove_idset_add(grove_idset_t *a, const grove_idset_t *b);
int grove_idset_subtract(grove_idset_t *a, const grove_idset_t *b);

/* True if a and b hold the same ids (two NULLs are equal). */
bool grove_idset_equal(const grove_idset_t *a, const grove_idset_t *b);

/* The runs of s, for callers that want them without encoding: the number of
 * maximal runs, and run i as [*lo, *hi] (returns -1 with EINVAL if i is out
 * of range).  Runs are ascending, disjoint and non-adjacent. */
size_t grove_idset_run_count(const grove_idset_t *s);
int grove_idset_run(const grove_idset_t *s, size_t i, unsigned *lo, unsigned *hi);

#endif
