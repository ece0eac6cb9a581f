/* idset.c: RFC 22 idsets as sorted arrays of runs.
 *
 * Problem: hold sets of non-negative ids (ranks, core indices, node ids),
 * read and write their RFC 22 strings exactly, and combine them.  Workload:
 * sets are decoded from R and jobspecs by the thousands, mostly a handful of
 * dense runs; set algebra runs on every allocation and release; single ids
 * are tested far more often than they are changed.  See idset.h for why a
 * run array was chosen over a bitmap or a tree.
 *
 * Invariant of every set: r[0..n) ascending, r[i].lo <= r[i].hi, and
 * r[i].hi + 1 < r[i+1].lo (runs never touch, so the representation of a set
 * is unique and equality is a memcmp); count == sum of run lengths.
 *
 * This file must not hold JSON, R or graph knowledge: the formats that carry
 * idsets encode and decode them through this API.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idset.h"
#include "error_private.h"
#include "util.h"

struct run {
    unsigned lo; /* first id of the run */
    unsigned hi; /* last id of the run, >= lo */
};

struct grove_idset {
    struct run *r; /* runs, see the invariant above */
    size_t n;      /* runs in use */
    size_t cap;    /* runs allocated */
    size_t count;  /* ids in the set */
};

static size_t run_len(const struct run *r)
{
    return (size_t)(r->hi - r->lo) + 1;
}

/* Make room for at least want runs.  0 or -1 (ENOMEM), s unchanged on error. */
static int reserve(grove_idset_t *s, size_t want)
{
    return grovep_grow((void **)&s->r, &s->cap, want, sizeof(*s->r));
}

/* Append [lo, hi] to a set being built in ascending order (lo > last hi),
 * joining it with the last run when they touch. */
static int push(grove_idset_t *s, unsigned lo, unsigned hi)
{
    if (s->n > 0 && s->r[s->n - 1].hi + 1 == lo) {
        s->r[s->n - 1].hi = hi;
    } else {
        if (reserve(s, s->n + 1) < 0)
            return -1;
        s->r[s->n].lo = lo;
        s->r[s->n].hi = hi;
        s->n++;
    }
    s->count += (size_t)(hi - lo) + 1;
    return 0;
}

/* Index of the first run with hi >= id (n if none). */
static size_t lower(const grove_idset_t *s, unsigned id)
{
    size_t a;
    GROVEP_LOWER_BOUND(a, s->n, m, s->r[m].hi < id);
    return a;
}

/* Index of the first run with lo > id (n if none). */
static size_t upper(const grove_idset_t *s, unsigned id)
{
    size_t a;
    GROVEP_LOWER_BOUND(a, s->n, m, s->r[m].lo <= id);
    return a;
}

grove_idset_t *grove_idset_create(void)
{
    return grovep_zalloc(sizeof(grove_idset_t));
}

void grove_idset_destroy(grove_idset_t *s)
{
    if (s)
        GROVEP_FREE_ALL(s->r, s);
}

grove_idset_t *grove_idset_copy(const grove_idset_t *s)
{
    if (!s) {
        errno = EINVAL;
        return NULL;
    }
    grove_idset_t *c = grove_idset_create();
    if (!c || reserve(c, s->n) < 0) {
        grove_idset_destroy(c);
        return NULL;
    }
    if (s->n)
        memcpy(c->r, s->r, s->n * sizeof(*s->r));
    c->n = s->n;
    c->count = s->count;
    return c;
}

/* ---- decoding ---------------------------------------------------------- */

/* Describe the byte at s[i] for an error message: 'x' or '\xNN'. */
static const char unexpected[] = "unexpected character";

/* Report a decode error at 0-based offset pos of s (shown 1-based); the
 * byte itself when it is an unexpected one. */
static void decode_error(grove_error_t *err, const char *s, size_t len, size_t pos,
                         const char *what)
{
    grovep_error_input(err, "idset", s, len, pos, pos < len && what == unexpected ? NULL : what);
}

/* Parse an id at s[*p] (end exclusive).  Returns 0 and advances *p, or -1
 * with *why set and *p at the offending byte. */
static int parse_id(const char *s, size_t end, size_t *p, unsigned *out, const char **why)
{
    size_t i = *p;
    if (i >= end || s[i] < '0' || s[i] > '9') {
        *why = i >= end ? "missing id" : (s[i] == '-' ? "negative or missing id" : unexpected);
        return -1;
    }
    if (s[i] == '0' && i + 1 < end && s[i + 1] >= '0' && s[i + 1] <= '9') {
        *why = "leading zero";
        return -1;
    }
    unsigned long long v = 0;
    for (; i < end && s[i] >= '0' && s[i] <= '9'; i++) {
        v = v * 10 + (unsigned)(s[i] - '0');
        if (v > GROVE_IDSET_MAX_ID) {
            *why = "id larger than 4294967294";
            return -1;
        }
    }
    *out = (unsigned)v;
    *p = i;
    return 0;
}

grove_idset_t *grove_idset_decode_len(const char *s, size_t len, grove_error_t *err)
{
    if (!s) {
        grovep_errorf(err, EINVAL, "invalid idset: NULL string");
        return NULL;
    }
    grove_idset_t *set = grove_idset_create();
    if (!set)
        return NULL;
    size_t p = 0, end = len;
    const char *why = NULL;
    size_t at = 0;
    if (len > 0 && s[0] == '[') {
        if (len < 2 || s[len - 1] != ']') {
            why = "'[' without matching ']'";
            at = 0;
            goto error;
        }
        p = 1;
        end = len - 1;
    }
    if (p == end)
        return set;
    for (;;) {
        size_t start = p;
        unsigned lo, hi;
        if (parse_id(s, end, &p, &lo, &why) < 0) {
            at = p;
            goto error;
        }
        hi = lo;
        if (p < end && s[p] == '-') {
            p++;
            if (parse_id(s, end, &p, &hi, &why) < 0) {
                at = p;
                goto error;
            }
            if (hi < lo) {
                why = "descending range";
                at = start;
                goto error;
            }
        }
        if (set->n > 0 && lo <= set->r[set->n - 1].hi) {
            why = lo >= set->r[set->n - 1].lo ? "duplicate or overlapping id"
                                              : "ids not in ascending order";
            at = start;
            goto error;
        }
        if (push(set, lo, hi) < 0) {
            grove_idset_destroy(set);
            return NULL;
        }
        if (p == end)
            return set;
        if (s[p] != ',') {
            why = unexpected;
            at = p;
            goto error;
        }
        p++;
        if (p == end) {
            why = "trailing ','";
            at = p - 1;
            goto error;
        }
    }
error:
    decode_error(err, s, len, at, why);
    return GROVEP_NULL_AFTER(grove_idset_destroy, set, EINVAL);
}

grove_idset_t *grove_idset_decode(const char *s, grove_error_t *err)
{
    return grove_idset_decode_len(s, s ? strlen(s) : 0, err);
}

/* ---- encoding ---------------------------------------------------------- */

/* Total decimal digits of every id in [lo, hi]. */
static unsigned long long digits_in_run(unsigned lo, unsigned hi)
{
    unsigned long long total = 0, p10 = 1;
    for (size_t d = 1; d <= 10; d++, p10 *= 10) {
        unsigned long long a = lo > p10 ? lo : p10, b = p10 * 10 - 1;
        if (d == 1)
            a = lo; /* the decade of one digit starts at 0 */
        if (b > hi)
            b = hi;
        if (a <= b)
            total += (b - a + 1) * d;
    }
    return total;
}

char *grove_idset_encode(const grove_idset_t *s, int flags)
{
    if (!s || (flags & ~(GROVE_IDSET_FLAG_RANGE | GROVE_IDSET_FLAG_BRACKETS))) {
        errno = EINVAL;
        return NULL;
    }
    bool range = flags & GROVE_IDSET_FLAG_RANGE;
    bool brackets = (flags & GROVE_IDSET_FLAG_BRACKETS) && s->count > 1;
    /* Size first, so that an absurd request fails before allocating. */
    unsigned long long len = brackets ? 2 : 0;
    for (size_t i = 0; i < s->n; i++) {
        const struct run *r = &s->r[i];
        if (range) {
            len += grovep_ndigits(r->lo) + (r->lo == r->hi ? 0 : 1 + grovep_ndigits(r->hi));
            len += 1; /* separator */
        } else {
            len += digits_in_run(r->lo, r->hi) + run_len(r); /* ids + separators */
        }
        if (len > GROVE_IDSET_ENCODE_MAX + 1ULL) {
            errno = EOVERFLOW;
            return NULL;
        }
    }
    if (s->n)
        len--; /* no separator after the last id */
    if (len > GROVE_IDSET_ENCODE_MAX) {
        errno = EOVERFLOW;
        return NULL;
    }
    char *out = malloc((size_t)len + 1);
    if (!out) {
        errno = ENOMEM;
        return NULL;
    }
    char *o = out;
    if (brackets)
        *o++ = '[';
    for (size_t i = 0; i < s->n; i++) {
        const struct run *r = &s->r[i];
        if (i)
            *o++ = ',';
        if (range) {
            o += grovep_put_decimal(o, r->lo, 0);
            if (r->hi != r->lo) {
                *o++ = '-';
                o += grovep_put_decimal(o, r->hi, 0);
            }
        } else {
            for (unsigned id = r->lo;; id++) {
                o += grovep_put_decimal(o, id, 0);
                if (id == r->hi)
                    break;
                *o++ = ',';
            }
        }
    }
    if (brackets)
        *o++ = ']';
    *o = '\0';
    return out;
}

/* ---- single ids and ranges --------------------------------------------- */

/* Put lo <= hi; -1 with EINVAL for no set or an id past the largest. */
static int order_range(const grove_idset_t *s, unsigned *lo, unsigned *hi)
{
    if (*lo > *hi) {
        unsigned t = *lo;
        *lo = *hi;
        *hi = t;
    }
    if (!s || *hi > GROVE_IDSET_MAX_ID) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

int grove_idset_range_set(grove_idset_t *s, unsigned lo, unsigned hi)
{
    if (order_range(s, &lo, &hi) < 0)
        return -1;
    /* Runs i..j-1 overlap or touch [lo, hi]; they collapse into one. */
    size_t i = lower(s, lo == 0 ? 0 : lo - 1);
    size_t j = upper(s, hi + 1);
    if (i == j) {
        if (reserve(s, s->n + 1) < 0)
            return -1;
        memmove(&s->r[i + 1], &s->r[i], (s->n - i) * sizeof(*s->r));
        s->r[i].lo = lo;
        s->r[i].hi = hi;
        s->n++;
        s->count += (size_t)(hi - lo) + 1;
        return 0;
    }
    size_t removed = 0;
    for (size_t k = i; k < j; k++)
        removed += run_len(&s->r[k]);
    if (s->r[i].lo < lo)
        lo = s->r[i].lo;
    if (s->r[j - 1].hi > hi)
        hi = s->r[j - 1].hi;
    s->r[i].lo = lo;
    s->r[i].hi = hi;
    memmove(&s->r[i + 1], &s->r[j], (s->n - j) * sizeof(*s->r));
    s->n -= j - i - 1;
    s->count = s->count - removed + (size_t)(hi - lo) + 1;
    return 0;
}

int grove_idset_range_clear(grove_idset_t *s, unsigned lo, unsigned hi)
{
    if (order_range(s, &lo, &hi) < 0)
        return -1;
    size_t i = lower(s, lo);  /* first run ending at or after lo */
    size_t j = upper(s, hi);  /* first run starting after hi */
    if (i >= j)
        return 0;
    struct run left = s->r[i], right = s->r[j - 1];
    bool keep_left = left.lo < lo, keep_right = right.hi > hi;
    size_t keep = (size_t)keep_left + (size_t)keep_right;
    if (keep > j - i && reserve(s, s->n + 1) < 0) /* one run split in two */
        return -1;
    size_t removed = 0;
    for (size_t k = i; k < j; k++)
        removed += run_len(&s->r[k]);
    memmove(&s->r[i + keep], &s->r[j], (s->n - j) * sizeof(*s->r));
    s->n = s->n - (j - i) + keep;
    size_t k = i;
    if (keep_left) {
        s->r[k].lo = left.lo;
        s->r[k].hi = lo - 1;
        removed -= run_len(&s->r[k]);
        k++;
    }
    if (keep_right) {
        s->r[k].lo = hi + 1;
        s->r[k].hi = right.hi;
        removed -= run_len(&s->r[k]);
    }
    s->count -= removed;
    return 0;
}

int grove_idset_set(grove_idset_t *s, unsigned id)
{
    if (id > GROVE_IDSET_MAX_ID) {
        errno = EINVAL;
        return -1;
    }
    return grove_idset_range_set(s, id, id);
}

int grove_idset_clear(grove_idset_t *s, unsigned id)
{
    if (id > GROVE_IDSET_MAX_ID) {
        errno = EINVAL;
        return -1;
    }
    return grove_idset_range_clear(s, id, id);
}

/* ---- queries ------------------------------------------------------------ */

bool grove_idset_test(const grove_idset_t *s, unsigned id)
{
    if (!s || id > GROVE_IDSET_MAX_ID)
        return false;
    size_t i = lower(s, id);
    return i < s->n && s->r[i].lo <= id;
}

size_t grove_idset_count(const grove_idset_t *s)
{
    return s ? s->count : 0;
}

bool grove_idset_empty(const grove_idset_t *s)
{
    return !s || s->n == 0;
}

unsigned grove_idset_first(const grove_idset_t *s)
{
    return s && s->n ? s->r[0].lo : GROVE_IDSET_INVALID;
}

unsigned grove_idset_last(const grove_idset_t *s)
{
    return s && s->n ? s->r[s->n - 1].hi : GROVE_IDSET_INVALID;
}

unsigned grove_idset_next(const grove_idset_t *s, unsigned id)
{
    if (!s || id >= GROVE_IDSET_MAX_ID)
        return GROVE_IDSET_INVALID;
    size_t i = lower(s, id + 1);
    if (i == s->n)
        return GROVE_IDSET_INVALID;
    return s->r[i].lo > id + 1 ? s->r[i].lo : id + 1;
}

unsigned grove_idset_prev(const grove_idset_t *s, unsigned id)
{
    if (!s || id == 0 || s->n == 0)
        return GROVE_IDSET_INVALID;
    if (id > GROVE_IDSET_MAX_ID)
        return s->r[s->n - 1].hi;
    size_t j = upper(s, id - 1); /* runs before j start at or before id - 1 */
    if (j == 0)
        return GROVE_IDSET_INVALID;
    return s->r[j - 1].hi < id - 1 ? s->r[j - 1].hi : id - 1;
}

unsigned grove_idset_nth(const grove_idset_t *s, size_t n)
{
    if (!s || n >= s->count)
        return GROVE_IDSET_INVALID;
    for (size_t i = 0; i < s->n; i++) {
        size_t len = run_len(&s->r[i]);
        if (n < len)
            return s->r[i].lo + (unsigned)n;
        n -= len;
    }
    return GROVE_IDSET_INVALID; /* not reached while count is right */
}

long grove_idset_rank(const grove_idset_t *s, unsigned id)
{
    if (s && id <= GROVE_IDSET_MAX_ID) {
        size_t i = lower(s, id);
        if (i < s->n && s->r[i].lo <= id) {
            size_t before = 0;
            for (size_t k = 0; k < i; k++)
                before += run_len(&s->r[k]);
            return (long)(before + (id - s->r[i].lo));
        }
    }
    errno = s ? ENOENT : EINVAL;
    return -1;
}

size_t grove_idset_run_count(const grove_idset_t *s)
{
    return s ? s->n : 0;
}

int grove_idset_run(const grove_idset_t *s, size_t i, unsigned *lo, unsigned *hi)
{
    if (!s || i >= s->n) {
        errno = EINVAL;
        return -1;
    }
    if (lo)
        *lo = s->r[i].lo;
    if (hi)
        *hi = s->r[i].hi;
    return 0;
}

bool grove_idset_equal(const grove_idset_t *a, const grove_idset_t *b)
{
    if (!a || !b)
        return a == b;
    return a->n == b->n && a->count == b->count
           && (a->n == 0 || memcmp(a->r, b->r, a->n * sizeof(*a->r)) == 0);
}

/* ---- set algebra -------------------------------------------------------- */

enum op { OP_UNION, OP_DIFF, OP_INTER };

/* out = a OP b by one merge over both run arrays. */
static int merge(grove_idset_t *out, const grove_idset_t *a, const grove_idset_t *b, enum op op)
{
    size_t i = 0, j = 0;
    switch (op) {
    case OP_UNION:
        while (i < a->n || j < b->n) {
            const struct run *r;
            if (j == b->n || (i < a->n && a->r[i].lo <= b->r[j].lo))
                r = &a->r[i++];
            else
                r = &b->r[j++];
            struct run *last = out->n ? &out->r[out->n - 1] : NULL;
            if (last && r->lo <= last->hi + 1) { /* overlaps or touches */
                if (r->hi > last->hi) {
                    out->count += r->hi - last->hi;
                    last->hi = r->hi;
                }
            } else if (push(out, r->lo, r->hi) < 0) {
                return -1;
            }
        }
        return 0;
    case OP_INTER:
        while (i < a->n && j < b->n) {
            unsigned lo = a->r[i].lo > b->r[j].lo ? a->r[i].lo : b->r[j].lo;
            unsigned hi = a->r[i].hi < b->r[j].hi ? a->r[i].hi : b->r[j].hi;
            if (lo <= hi && push(out, lo, hi) < 0)
                return -1;
            if (a->r[i].hi < b->r[j].hi)
                i++;
            else
                j++;
        }
        return 0;
    case OP_DIFF:
        for (; i < a->n; i++) {
            unsigned lo = a->r[i].lo, hi = a->r[i].hi;
            bool empty = false;
            while (j < b->n && b->r[j].hi < lo)
                j++;
            /* b runs from j on end at or after lo; cut them out of [lo, hi]. */
            for (size_t k = j; k < b->n && b->r[k].lo <= hi; k++) {
                if (b->r[k].lo > lo && push(out, lo, b->r[k].lo - 1) < 0)
                    return -1;
                if (b->r[k].hi >= hi) {
                    empty = true;
                    break;
                }
                lo = b->r[k].hi + 1;
            }
            if (!empty && push(out, lo, hi) < 0)
                return -1;
        }
        return 0;
    }
    return 0;
}

static grove_idset_t *combine(const grove_idset_t *a, const grove_idset_t *b, enum op op)
{
    if (!a || !b) {
        errno = EINVAL;
        return NULL;
    }
    grove_idset_t *out = grove_idset_create();
    if (!out)
        return NULL;
    if (merge(out, a, b, op) < 0) {
        grove_idset_destroy(out);
        return NULL;
    }
    return out;
}

grove_idset_t *grove_idset_union(const grove_idset_t *a, const grove_idset_t *b)
{
    return combine(a, b, OP_UNION);
}

grove_idset_t *grove_idset_difference(const grove_idset_t *a, const grove_idset_t *b)
{
    return combine(a, b, OP_DIFF);
}

grove_idset_t *grove_idset_intersect(const grove_idset_t *a, const grove_idset_t *b)
{
    return combine(a, b, OP_INTER);
}

/* a = a OP b, swapping in the merged runs so a is untouched on failure. */
static int combine_into(grove_idset_t *a, const grove_idset_t *b, enum op op)
{
    if (!a || !b) {
        errno = EINVAL;
        return -1;
    }
    if (b->n == 0)
        return 0;
    grove_idset_t tmp = {0};
    if (merge(&tmp, a, b, op) < 0) {
        free(tmp.r);
        return -1;
    }
    free(a->r);
    *a = tmp;
    return 0;
}

int grove_idset_add(grove_idset_t *a, const grove_idset_t *b)
{
    return combine_into(a, b, OP_UNION);
}

int grove_idset_subtract(grove_idset_t *a, const grove_idset_t *b)
{
    return combine_into(a, b, OP_DIFF);
}
