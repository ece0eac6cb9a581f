/* hostlist.h: RFC 29 ordered lists of host names.
 *
 * A hostlist is an ordered list (repeats allowed) of host names such as
 * "node7" or "login", written compactly as "node[0-15,17],login".  Each
 * comma-separated expression is prefix[idlist]suffix, all parts optional.
 *
 * Decoding rules Grove follows (RFC 29 plus the choices it leaves open):
 * - Expressions are separated by commas; ASCII whitespace also separates,
 *   and empty expressions (",a,,b,") are skipped.  Prefix and suffix are
 *   printable non-space ASCII other than '[', ']' and ','.  One bracketed
 *   idlist per expression; nested or unbalanced brackets, an empty idlist,
 *   an empty element, a non-digit, a negative number or a descending range
 *   ("5-3") are EINVAL.
 * - An idlist element is N or LO-HI (order and repeats are free).  A
 *   single LO-HI may hold at most GROVE_HOSTLIST_MAX_RANGE hosts (so
 *   "foo[0-1048576]" fails with ERANGE); a number has at most
 *   GROVE_HOSTNAME_MAX_DIGITS digits.
 * - Zero padding: an element whose low bound has leading zeros keeps its
 *   width ("[00-3]" is 00,01,02,03); an element without leading zeros takes
 *   the width of the first element when that one is zero-padded, as RFC 29
 *   says ("[005,4,11-13]" is 005,004,011,012,013); otherwise it is unpadded.
 * - A suffix makes every host a plain name: "foo[1-2]-eth0" is the two
 *   hosts foo1-eth0 and foo2-eth0, and re-encodes that way.
 *
 * Host identity is the exact string: "i[0-5]" does not contain "i00",
 * "f00[7-8]" contains "f007".  Internally every numbered host is kept as
 * (prefix without trailing digits, number, width), so equal strings have
 * one representation; encoding may therefore move digits into the
 * brackets ("f00[7-8]" encodes as "f[007-008]"), which decodes to the same
 * hosts.
 *
 * Encoding: consecutive hosts that differ only by consecutive numbers join
 * into ranges, consecutive ranges with the same prefix share one bracket;
 * list order is kept.  grove_hostlist_decode(grove_hostlist_encode(h))
 * always gives h back.
 *
 * Indices are 0-based here (the Lua binding is 1-based).  A list holds at
 * most INT_MAX hosts (EOVERFLOW).  Errors: -1 or NULL with errno EINVAL,
 * ENOMEM, ERANGE, ENOENT or EOVERFLOW; decoding also fills an optional
 * grove_error_t with the reason and 1-based position.
 *
 * This header must not hold the representation of a hostlist (hostlist.c) or
 * any idset API (idset.h).
 */
#ifndef GROVE_HOSTLIST_H
#define GROVE_HOSTLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef struct grove_hostlist grove_hostlist_t;

/* Most hosts one bracketed LO-HI element may expand to (2^20). */
#define GROVE_HOSTLIST_MAX_RANGE (1u << 20)

/* Most digits in a numeric part; longer digit runs are plain name text. */
#define GROVE_HOSTNAME_MAX_DIGITS 18

/* One host name split into prefix and numeric suffix: "node007" is prefix
 * "node", num 7, width 3.  Pointers borrow the parsed string. */
typedef struct grove_hostname {
    const char *name;  /* the whole name (not necessarily NUL-terminated) */
    size_t len;        /* bytes in name */
    size_t prefix_len; /* bytes before the numeric suffix (len if none) */
    uint64_t num;      /* value of the numeric suffix, 0 if none */
    int width;         /* digits in the numeric suffix, 0 if none */
} grove_hostname_t;

/* Parse one host name: a non-empty string of printable non-space ASCII
 * without '[', ']' or ','.  The numeric suffix is the trailing run of
 * digits, if it has 1..GROVE_HOSTNAME_MAX_DIGITS digits ("foo01bar" has
 * none).  Returns 0, or -1 with EINVAL (NULL, empty or invalid name). */
int grove_hostname_parse(const char *name, grove_hostname_t *hn);

/* As grove_hostname_parse for len bytes at name. */
int grove_hostname_parse_len(const char *name, size_t len, grove_hostname_t *hn);

/* A new empty list (caller destroys), or NULL with ENOMEM. */
grove_hostlist_t *grove_hostlist_create(void);

/* Parse an RFC 29 string; "" is the empty list.  Returns a new list (caller
 * destroys) or NULL with EINVAL / ERANGE / EOVERFLOW (and err, if not
 * NULL, filled with the reason and position) or ENOMEM. */
grove_hostlist_t *grove_hostlist_decode(const char *s, grove_error_t *err);

/* As grove_hostlist_decode for len bytes at s (an embedded NUL is invalid). */
grove_hostlist_t *grove_hostlist_decode_len(const char *s, size_t len, grove_error_t *err);

/* The compressed string form, "" for the empty list.  Returns a new string
 * (caller frees) or NULL with EINVAL or ENOMEM. */
char *grove_hostlist_encode(const grove_hostlist_t *h);

/* A new list equal to h (caller destroys), or NULL with EINVAL/ENOMEM. */
grove_hostlist_t *grove_hostlist_copy(const grove_hostlist_t *h);

/* Free h; errno is kept.  NULL is a no-op. */
void grove_hostlist_destroy(grove_hostlist_t *h);

/* Append the hosts of hostlist string s at the end of h.  Returns the
 * number of hosts appended, or -1 with errno as grove_hostlist_decode (or
 * EINVAL for NULL); h is unchanged on failure. */
int grove_hostlist_append(grove_hostlist_t *h, const char *s);

/* Append every host of other (which may be h itself) at the end of h.
 * Returns the number appended, or -1 with EINVAL, ENOMEM or EOVERFLOW (h
 * unchanged). */
int grove_hostlist_append_list(grove_hostlist_t *h, const grove_hostlist_t *other);

/* Number of hosts in h (0 for NULL). */
size_t grove_hostlist_count(const grove_hostlist_t *h);

/* Host number n (0-based) as a new string (caller frees), or NULL with
 * ENOENT (n out of range), EINVAL or ENOMEM.  O(number of ranges). */
char *grove_hostlist_nth(const grove_hostlist_t *h, size_t n);

/* First / last host as new strings (caller frees); NULL with ENOENT when h
 * is empty. */
char *grove_hostlist_first(const grove_hostlist_t *h);
char *grove_hostlist_last(const grove_hostlist_t *h);

/* 0-based index of the first occurrence of host (exact match), or -1 with
 * errno ENOENT (absent) or EINVAL (h NULL, host not a valid host name). */
int grove_hostlist_find(const grove_hostlist_t *h, const char *host);

/* True if host is in h. */
bool grove_hostlist_contains(const grove_hostlist_t *h, const char *host);

/* For each host of hostlist string s, remove its first occurrence from h.
 * Returns the number of hosts removed (0 if none was present), or -1 with
 * errno as grove_hostlist_decode (h unchanged). */
int grove_hostlist_delete(grove_hostlist_t *h, const char *s);

/* As grove_hostlist_delete with an already decoded list (may be h). */
int grove_hostlist_delete_list(grove_hostlist_t *h, const grove_hostlist_t *other);

/* Sort h: by prefix (bytewise), a name without a number before the same
 * prefix with one, then by numeric part compared as a decimal string
 * (fewer digits first, then by value: node9 < node10 < node010).
 * Duplicates are kept.  Returns 0, or -1 with EINVAL/ENOMEM (h unchanged). */
int grove_hostlist_sort(grove_hostlist_t *h);

/* Sort h and remove duplicate hosts.  Returns 0 or -1 as sort. */
int grove_hostlist_uniq(grove_hostlist_t *h);

/* True if a and b hold the same hosts in the same order (two NULLs are
 * equal). */
bool grove_hostlist_equal(const grove_hostlist_t *a, const grove_hostlist_t *b);

/* Iteration without an allocation per host:
 *
 *     grove_hostlist_iter_t it = GROVE_HOSTLIST_ITER_INIT;
 *     const char *host;
 *     while ((host = grove_hostlist_iter_next(h, &it)))
 *         use(host);
 *     grove_hostlist_iter_fini(&it);
 *
 * The returned string is borrowed from the iterator and valid until the
 * next call.  Changing h during an iteration is safe but the hosts seen are
 * then unspecified.  Fields are private. */
typedef struct grove_hostlist_iter {
    size_t range;    /* index of the current range */
    uint64_t offset; /* next host within that range */
    char *buf;       /* rendering buffer (owned) */
    size_t cap;      /* bytes allocated at buf */
} grove_hostlist_iter_t;

#define GROVE_HOSTLIST_ITER_INIT {0, 0, NULL, 0}

/* The next host, or NULL at the end (errno 0) or on ENOMEM/EINVAL. */
const char *grove_hostlist_iter_next(const grove_hostlist_t *h, grove_hostlist_iter_t *it);

/* Release the iterator's buffer (it may be reused after re-initialising). */
void grove_hostlist_iter_fini(grove_hostlist_iter_t *it);

#endif
