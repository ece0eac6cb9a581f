/* hostlist.c: RFC 29 hostlists as arrays of numbered ranges.
 *
 * Problem: hold ordered lists of host names as written in R nodelists,
 * configuration and commands ("node[0-1023],login[1-2]"), read and write
 * them exactly, and answer "which index is node17?".  Workload: lists of
 * up to tens of thousands of hosts that are almost always a few long runs
 * of one prefix; decoded and encoded on every R read and write; find and
 * nth are frequent, sort/uniq/delete occasional.
 *
 * Representation: an array of ranges, each either a run of numbered hosts
 * (prefix, lo..hi, zero-padding width) or one plain name, in list order.
 * Prefix bytes live in one pool per list, shared by consecutive ranges, so
 * a decode does not allocate per host or per range.  Canonical form (see
 * hostlist.h): the prefix of a numbered range never ends in a digit and
 * numbers have at most GROVE_HOSTNAME_MAX_DIGITS digits, so every host
 * string has exactly one representation and host equality is tuple
 * equality.  Invariant: no two consecutive ranges could be joined (see
 * joinable()), so the ranges of a host sequence are unique up to widths that
 * render identically.
 *
 * Width: host n of a range with width w renders as n zero-padded to w
 * digits, so its numeric part has max(w, digits(n)) characters; two widths
 * are equivalent from n on iff they give the same length at n.
 *
 * This file must not hold idset code (idset.c) or any knowledge of R or of
 * the graph: it is the hostlist type alone.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "error_private.h"
#include "limit.h"
#include "util.h"

struct hrange {
    size_t pfx;      /* offset of the prefix (or whole plain name) in the pool */
    size_t plen;     /* bytes of prefix */
    uint64_t lo, hi; /* numbered: first and last number, lo <= hi; plain: 0, 0 */
    int width;       /* numbered: zero-padding width, 1..GROVE_HOSTNAME_MAX_DIGITS */
    bool num;        /* numbered run (true) or one plain name (false) */
};

struct grove_hostlist {
    struct hrange *r; /* ranges in list order; no two consecutive are joinable */
    size_t n;         /* ranges in use */
    size_t cap;       /* ranges allocated */
    char *pool;       /* prefix bytes, not NUL-separated; may hold dead bytes */
    size_t plen;      /* bytes used in pool */
    size_t pcap;      /* bytes allocated for pool */
    size_t count;     /* hosts, <= INT_MAX */
};

#define MAX_HOSTS ((size_t)INT_MAX)

static const uint64_t pow10_tab[] = {
    1ULL,
    10ULL,
    100ULL,
    1000ULL,
    10000ULL,
    100000ULL,
    1000000ULL,
    10000000ULL,
    100000000ULL,
    1000000000ULL,
    10000000000ULL,
    100000000000ULL,
    1000000000000ULL,
    10000000000000ULL,
    100000000000000ULL,
    1000000000000000ULL,
    10000000000000000ULL,
    100000000000000000ULL,
    1000000000000000000ULL,
};

/* Characters of the numeric part of n rendered with width w. */
static int num_len(uint64_t n, int w)
{
    int d = grovep_ndigits(n);
    return d > w ? d : w;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* A byte allowed in prefixes and suffixes (RFC 29). */
static bool is_name_char(char c)
{
    return c > 0x20 && c < 0x7f && c != '[' && c != ']' && c != ',';
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static size_t hr_count(const struct hrange *r)
{
    return r->num ? (size_t)(r->hi - r->lo) + 1 : 1;
}

/* ---- host names ---------------------------------------------------------- */

int grove_hostname_parse_len(const char *name, size_t len, grove_hostname_t *hn)
{
    if (!name || !hn || len == 0) {
        errno = EINVAL;
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        if (!is_name_char(name[i])) {
            errno = EINVAL;
            return -1;
        }
    }
    size_t k = 0;
    while (k < len && is_digit(name[len - 1 - k]))
        k++;
    hn->name = name;
    hn->len = len;
    hn->prefix_len = len;
    hn->num = 0;
    hn->width = 0;
    if (k >= 1 && k <= GROVE_HOSTNAME_MAX_DIGITS) {
        uint64_t v = 0;
        for (size_t i = len - k; i < len; i++)
            v = v * 10 + (uint64_t)(name[i] - '0');
        hn->prefix_len = len - k;
        hn->num = v;
        hn->width = (int)k;
    }
    return 0;
}

int grove_hostname_parse(const char *name, grove_hostname_t *hn)
{
    return grove_hostname_parse_len(name, name ? strlen(name) : 0, hn);
}

/* ---- storage ------------------------------------------------------------ */

grove_hostlist_t *grove_hostlist_create(void)
{
    return grovep_zalloc(sizeof(grove_hostlist_t));
}

void grove_hostlist_destroy(grove_hostlist_t *h)
{
    if (h)
        GROVEP_FREE_ALL(h->r, h->pool, h);
}

static int reserve_ranges(grove_hostlist_t *h, size_t want)
{
    return grovep_grow((void **)&h->r, &h->cap, want, sizeof(*h->r));
}

/* The pool offset of prefix bytes p[0..len), adding them if needed.  Bytes
 * already in the pool (self-append) and the last range's prefix are reused. */
static int pool_add(grove_hostlist_t *h, const char *p, size_t len, size_t *off)
{
    if (h->pool && p >= h->pool && p + len <= h->pool + h->plen) {
        *off = (size_t)(p - h->pool);
        return 0;
    }
    if (h->n > 0) {
        const struct hrange *last = &h->r[h->n - 1];
        if (last->plen == len && memcmp(h->pool + last->pfx, p, len) == 0) {
            *off = last->pfx;
            return 0;
        }
    }
    size_t need = h->plen + len; /* at least 1: never NULL once a range exists */
    if (grovep_grow((void **)&h->pool, &h->pcap, need ? need : 1, 1) < 0)
        return -1;
    if (len)
        memcpy(h->pool + h->plen, p, len);
    *off = h->plen;
    h->plen += len;
    return 0;
}

static bool same_prefix(const char *pool_a, const struct hrange *a, const char *pool_b,
                        const struct hrange *b)
{
    return a->plen == b->plen
           && (a->plen == 0 || memcmp(pool_a + a->pfx, pool_b + b->pfx, a->plen) == 0);
}

/* Could range q (same pool) extend range r, i.e. is q's first host the host
 * after r's last one, rendered identically under r's width? */
static bool joinable(const char *pool, const struct hrange *r, const struct hrange *q)
{
    return r->num && q->num && q->lo == r->hi + 1 && same_prefix(pool, r, pool, q)
           && num_len(q->lo, r->width) == num_len(q->lo, q->width);
}

/* Append range q (its prefix already in h's pool) at the end of h, joining
 * it with the last range when possible. */
static int put_range(grove_hostlist_t *h, const struct hrange *q)
{
    size_t c = hr_count(q);
    if (c > MAX_HOSTS - h->count) {
        errno = EOVERFLOW;
        return -1;
    }
    if (h->n > 0 && joinable(h->pool, &h->r[h->n - 1], q)) {
        h->r[h->n - 1].hi = q->hi;
    } else {
        if (reserve_ranges(h, h->n + 1) < 0)
            return -1;
        h->r[h->n++] = *q;
    }
    h->count += c;
    return 0;
}

/* Append a range whose prefix is p[0..plen) (anywhere in memory). */
static int add_range(grove_hostlist_t *h, const char *p, size_t plen, bool num, uint64_t lo,
                     uint64_t hi, int width)
{
    struct hrange q = {.plen = plen, .lo = lo, .hi = hi, .width = width, .num = num};
    if (pool_add(h, p, plen, &q.pfx) < 0)
        return -1;
    return put_range(h, &q);
}

/* Append one host given as a whole name (already validated). */
static int add_host(grove_hostlist_t *h, const char *name, size_t len)
{
    grove_hostname_t hn;
    if (grove_hostname_parse_len(name, len, &hn) < 0)
        return -1;
    if (hn.width > 0)
        return add_range(h, name, hn.prefix_len, true, hn.num, hn.num, hn.width);
    return add_range(h, name, len, false, 0, 0, 0);
}

/* Append prefix followed by each of lo..hi rendered with width w, in
 * canonical form: trailing digits of the prefix move into the number. */
static int add_numbered(grove_hostlist_t *h, const char *pfx, size_t plen, uint64_t lo,
                        uint64_t hi, int w)
{
    size_t k = 0;
    while (k < plen && is_digit(pfx[plen - 1 - k]))
        k++;
    if (k == 0)
        return add_range(h, pfx, plen, true, lo, hi, w);
    /* Split [lo, hi] where the rendered length L changes; each piece becomes
     * numbers D * 10^L + n of width k + L, D being the prefix digits. */
    for (uint64_t n = lo;;) {
        int L = num_len(n, w);
        uint64_t top = pow10_tab[L] - 1; /* L <= MAX_DIGITS, checked by the parser */
        uint64_t end = hi < top ? hi : top;
        if (k + (size_t)L <= GROVE_HOSTNAME_MAX_DIGITS) {
            uint64_t d = 0;
            for (size_t i = plen - k; i < plen; i++)
                d = d * 10 + (uint64_t)(pfx[i] - '0');
            uint64_t base = d * pow10_tab[L];
            if (add_range(h, pfx, plen - k, true, base + n, base + end, (int)k + L) < 0)
                return -1;
        } else {
            /* Too many digits to be a number: each host is a plain name. */
            char stack[256];
            size_t need = plen + 24;
            char *buf = need <= sizeof(stack) ? stack : malloc(need);
            if (!buf) {
                errno = ENOMEM;
                return -1;
            }
            memcpy(buf, pfx, plen);
            int rc = 0;
            for (uint64_t m = n; rc == 0; m++) {
                size_t len = plen + (size_t)grovep_put_decimal(buf + plen, m, w);
                rc = add_range(h, buf, len, false, 0, 0, 0);
                if (m == end)
                    break;
            }
            if (buf != stack)
                free(buf);
            if (rc < 0)
                return -1;
        }
        if (end == hi)
            return 0;
        n = end + 1;
    }
}

/* ---- decoding ---------------------------------------------------------- */

struct parse {
    const char *s;      /* input */
    size_t len;         /* its length */
    grove_error_t *err; /* where to report, may be NULL */
    char *scratch;      /* buffer for prefix+number+suffix names */
    size_t scap;        /* bytes at scratch */
    uint64_t named;     /* hosts named one by one (a suffix after brackets) */
    uint64_t limit;     /* most such hosts (GROVE_MAX_MEMBERS); 0 until read */
    bool said;          /* a failure reported (parse_fail) */
};

static int parse_fail(struct parse *ps, int errnum, size_t pos, const char *what)
{
    grovep_error_input(ps->err, "hostlist", ps->s, ps->len, pos, what); /* NULL: unexpected */
    ps->said = true;
    errno = errnum;
    return -1;
}

/* Parse a number of 1..MAX_DIGITS digits at s[*p]; returns its length. */
static int parse_number(struct parse *ps, size_t *p, size_t end, uint64_t *v)
{
    size_t i = *p;
    if (i >= end || !is_digit(ps->s[i])) {
        if (i < end && ps->s[i] == '-')
            return parse_fail(ps, EINVAL, i, "negative or missing number");
        if (i < end && ps->s[i] != ',')
            return parse_fail(ps, EINVAL, i, NULL);
        return parse_fail(ps, EINVAL, i, "missing number");
    }
    uint64_t x = 0;
    for (; i < end && is_digit(ps->s[i]); i++) {
        if (i - *p >= GROVE_HOSTNAME_MAX_DIGITS)
            return parse_fail(ps, EINVAL, *p, "number longer than 18 digits");
        x = x * 10 + (uint64_t)(ps->s[i] - '0');
    }
    int n = (int)(i - *p);
    *v = x;
    *p = i;
    return n;
}

/* One expression: prefix s[a..lb), idlist (lb..rb), suffix (rb..b). */
static int parse_bracketed(grove_hostlist_t *h, struct parse *ps, size_t a, size_t lb,
                           size_t rb, size_t b)
{
    const char *pfx = ps->s + a;
    size_t plen = lb - a, slen = b - rb - 1;
    size_t p = lb + 1;
    int first_pad = 0; /* width of the first element if it is zero-padded */
    if (p == rb)
        return parse_fail(ps, EINVAL, lb, "empty brackets");
    for (bool first = true;; first = false) {
        size_t start = p;
        uint64_t lo, hi;
        int lw = parse_number(ps, &p, rb, &lo);
        if (lw < 0)
            return -1;
        hi = lo;
        if (p < rb && ps->s[p] == '-') {
            p++;
            if (parse_number(ps, &p, rb, &hi) < 0)
                return -1;
            if (hi < lo)
                return parse_fail(ps, EINVAL, start, "descending range");
        }
        if (hi - lo >= GROVE_HOSTLIST_MAX_RANGE)
            return parse_fail(ps, ERANGE, start, "range larger than 1048576 hosts");
        bool padded = lw > 1 && ps->s[start] == '0';
        if (first && padded)
            first_pad = lw;
        int w = padded ? lw : (first_pad ? first_pad : lw);
        if (slen == 0) {
            if (add_numbered(h, pfx, plen, lo, hi, w) < 0)
                return -1;
        } else {
            /* a suffix after the brackets: each host a name of its own (a
             * range of numbered hosts has no suffix), so 114 bytes could
             * name 830,637 hosts of 110 bytes: held to the members limit,
             * read only here (a list without a suffix costs nothing) */
            if (!ps->limit) {
                grove_limits_t lim;
                grove_limits_get(&lim);
                ps->limit = lim.members ? lim.members : 1;
            }
            if (hi - lo + 1 > ps->limit - ps->named) {
                char what[128];
                snprintf(what, sizeof(what),
                         "with this range the hostlist names more than %llu hosts one by one "
                         "(the limit: GROVE_MAX_MEMBERS)",
                         (unsigned long long)ps->limit);
                return parse_fail(ps, EOVERFLOW, start, what);
            }
            ps->named += hi - lo + 1;
            size_t need = plen + 24 + slen;
            if (grovep_grow((void **)&ps->scratch, &ps->scap, need, 1) < 0)
                return -1;
            memcpy(ps->scratch, pfx, plen);
            for (uint64_t n = lo;; n++) {
                size_t len = plen + (size_t)grovep_put_decimal(ps->scratch + plen, n, w);
                memcpy(ps->scratch + len, ps->s + rb + 1, slen);
                if (add_host(h, ps->scratch, len + slen) < 0)
                    return -1;
                if (n == hi)
                    break;
            }
        }
        if (p == rb)
            return 0;
        if (ps->s[p] != ',')
            return parse_fail(ps, EINVAL, p, NULL);
        p++;
    }
}

static int parse_into(grove_hostlist_t *h, struct parse *ps)
{
    const char *s = ps->s;
    size_t i = 0;
    while (i < ps->len) {
        if (s[i] == ',' || is_space(s[i])) {
            i++;
            continue;
        }
        size_t start = i, lb = SIZE_MAX, rb = SIZE_MAX, j;
        for (j = i; j < ps->len; j++) {
            char c = s[j];
            bool inside = lb != SIZE_MAX && rb == SIZE_MAX;
            if (c == '[') {
                if (inside)
                    return parse_fail(ps, EINVAL, j, "nested '['");
                if (lb != SIZE_MAX)
                    return parse_fail(ps, EINVAL, j, "second '[' in one expression");
                lb = j;
            } else if (c == ']') {
                if (!inside)
                    return parse_fail(ps, EINVAL, j, NULL);
                rb = j;
            } else if (inside) {
                if (!is_digit(c) && c != '-' && c != ',')
                    return parse_fail(ps, EINVAL, j, NULL);
            } else if (c == ',' || is_space(c)) {
                break;
            } else if (!is_name_char(c)) {
                return parse_fail(ps, EINVAL, j, NULL);
            }
        }
        if (lb != SIZE_MAX && rb == SIZE_MAX)
            return parse_fail(ps, EINVAL, lb, "'[' without matching ']'");
        int rc = lb == SIZE_MAX ? add_host(h, s + start, j - start)
                                : parse_bracketed(h, ps, start, lb, rb, j);
        if (rc < 0) {
            if (errno == EOVERFLOW && !ps->said)
                parse_fail(ps, EOVERFLOW, start, "more than INT_MAX hosts");
            return -1;
        }
        i = j;
    }
    return 0;
}

grove_hostlist_t *grove_hostlist_decode_len(const char *s, size_t len, grove_error_t *err)
{
    if (!s) {
        grovep_errorf(err, EINVAL, "invalid hostlist: NULL string");
        return NULL;
    }
    grove_hostlist_t *h = grove_hostlist_create();
    if (!h)
        return NULL;
    struct parse ps = {.s = s, .len = len, .err = err};
    int rc = parse_into(h, &ps);
    int saved = errno;
    free(ps.scratch);
    if (rc < 0) {
        if (saved == ENOMEM)
            grove_error_set(err, NULL, 0, "out of memory");
        grove_hostlist_destroy(h);
        errno = saved;
        return NULL;
    }
    return h;
}

grove_hostlist_t *grove_hostlist_decode(const char *s, grove_error_t *err)
{
    return grove_hostlist_decode_len(s, s ? strlen(s) : 0, err);
}

/* ---- encoding ---------------------------------------------------------- */

static void sb_num(grovep_buf_t *b, uint64_t n, int w)
{
    char *o = grovep_buf_room(b, 24);
    if (o)
        b->len += (size_t)grovep_put_decimal(o, n, w);
}

/* Zero-padded at its low end: the decoder takes the width from it. */
static bool padded(const struct hrange *r)
{
    return r->width > grovep_ndigits(r->lo);
}

char *grove_hostlist_encode(const grove_hostlist_t *h)
{
    if (!h) {
        errno = EINVAL;
        return NULL;
    }
    grovep_buf_t b = {0};
    for (size_t i = 0; i < h->n;) {
        const struct hrange *r = &h->r[i];
        if (i)
            grovep_buf_put(&b, ",", 1);
        grovep_buf_put(&b, h->pool + r->pfx, r->plen);
        if (!r->num) {
            i++;
            continue;
        }
        /* Ranges i..j-1 share one bracket.  An element without leading zeros
         * takes the first element's width when that one is padded, so it may
         * join only if it renders the same under that width. */
        int group_pad = padded(r) ? r->width : 0;
        size_t j = i + 1;
        while (j < h->n && h->r[j].num && same_prefix(h->pool, r, h->pool, &h->r[j])
               && (padded(&h->r[j]) || group_pad <= grovep_ndigits(h->r[j].lo)))
            j++;
        bool bracket = j - i > 1 || r->hi > r->lo;
        if (bracket)
            grovep_buf_put(&b, "[", 1);
        for (size_t k = i; k < j; k++) {
            const struct hrange *q = &h->r[k];
            if (k > i)
                grovep_buf_put(&b, ",", 1);
            sb_num(&b, q->lo, q->width);
            if (q->hi > q->lo) {
                grovep_buf_put(&b, "-", 1);
                sb_num(&b, q->hi, q->width);
            }
        }
        if (bracket)
            grovep_buf_put(&b, "]", 1);
        i = j;
    }
    return grovep_buf_finish(&b);
}

/* ---- copy, append ------------------------------------------------------- */

grove_hostlist_t *grove_hostlist_copy(const grove_hostlist_t *h)
{
    if (!h) {
        errno = EINVAL;
        return NULL;
    }
    grove_hostlist_t *c = grove_hostlist_create();
    if (!c)
        return NULL;
    if (h->n) {
        c->r = malloc(h->n * sizeof(*c->r));
        c->pool = malloc(h->plen ? h->plen : 1);
        if (!c->r || !c->pool)
            return GROVEP_NULL_AFTER(grove_hostlist_destroy, c, ENOMEM);
        memcpy(c->r, h->r, h->n * sizeof(*c->r));
        if (h->plen)
            memcpy(c->pool, h->pool, h->plen);
        c->n = c->cap = h->n;
        c->pcap = h->plen ? h->plen : 1;
        c->plen = h->plen;
        c->count = h->count;
    }
    return c;
}

int grove_hostlist_append_list(grove_hostlist_t *h, const grove_hostlist_t *other)
{
    if (!h || !other) {
        errno = EINVAL;
        return -1;
    }
    size_t n0 = h->n, count0 = h->count, plen0 = h->plen, m = other->n;
    uint64_t hi0 = n0 ? h->r[n0 - 1].hi : 0;
    size_t added = other->count;
    if (added > MAX_HOSTS - h->count) {
        errno = EOVERFLOW;
        return -1;
    }
    for (size_t i = 0; i < m; i++) {
        struct hrange q = other->r[i]; /* copy: other->r may be h->r, which grows */
        if (add_range(h, other->pool + q.pfx, q.plen, q.num, q.lo, q.hi, q.width) < 0) {
            h->n = n0;
            h->count = count0;
            h->plen = plen0;
            if (n0)
                h->r[n0 - 1].hi = hi0;
            return -1;
        }
    }
    return (int)added;
}

/* op(h, the list s decodes to): the string forms of append and delete. */
static int with_decoded(grove_hostlist_t *h, const char *s,
                        int (*op)(grove_hostlist_t *, const grove_hostlist_t *))
{
    if (!h || !s) {
        errno = EINVAL;
        return -1;
    }
    grove_hostlist_t *tmp = grove_hostlist_decode(s, NULL);
    if (!tmp)
        return -1;
    int rc = op(h, tmp);
    grove_hostlist_destroy(tmp);
    return rc;
}

int grove_hostlist_append(grove_hostlist_t *h, const char *s)
{
    return with_decoded(h, s, grove_hostlist_append_list);
}

/* ---- queries ------------------------------------------------------------ */

size_t grove_hostlist_count(const grove_hostlist_t *h)
{
    return h ? h->count : 0;
}

/* Render host offset k of range r as a new string. */
static char *render(const grove_hostlist_t *h, const struct hrange *r, uint64_t k)
{
    char *s = malloc(r->plen + 24);
    if (!s) {
        errno = ENOMEM;
        return NULL;
    }
    memcpy(s, h->pool + r->pfx, r->plen);
    size_t len = r->plen;
    if (r->num)
        len += (size_t)grovep_put_decimal(s + len, r->lo + k, r->width);
    s[len] = '\0';
    return s;
}

char *grove_hostlist_nth(const grove_hostlist_t *h, size_t n)
{
    if (!h) {
        errno = EINVAL;
        return NULL;
    }
    if (n >= h->count) {
        errno = ENOENT;
        return NULL;
    }
    for (size_t i = 0; i < h->n; i++) {
        size_t c = hr_count(&h->r[i]);
        if (n < c)
            return render(h, &h->r[i], n);
        n -= c;
    }
    errno = ENOENT; /* not reached while count is right */
    return NULL;
}

char *grove_hostlist_first(const grove_hostlist_t *h)
{
    return grove_hostlist_nth(h, 0);
}

char *grove_hostlist_last(const grove_hostlist_t *h)
{
    if (h && h->count == 0) {
        errno = ENOENT;
        return NULL;
    }
    return grove_hostlist_nth(h, h ? h->count - 1 : 0);
}

/* Does range r (of pool) hold the host described by q (a one-host range
 * of pool qpool)?  Returns its offset in r or -1. */
static int64_t range_holds(const char *pool, const struct hrange *r, const char *qpool,
                           const struct hrange *q)
{
    if (r->num != q->num || !same_prefix(pool, r, qpool, q))
        return -1;
    if (!r->num)
        return 0;
    if (q->lo < r->lo || q->lo > r->hi || num_len(q->lo, r->width) != num_len(q->lo, q->width))
        return -1;
    return (int64_t)(q->lo - r->lo);
}

/* Index of the first occurrence of host q in the ranges of h, or -1; the
 * range index and offset go to *ri, *off. */
static long find_host(const struct hrange *r, size_t n, const char *pool, const char *qpool,
                      const struct hrange *q, size_t *ri, uint64_t *off)
{
    size_t before = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t k = range_holds(pool, &r[i], qpool, q);
        if (k >= 0) {
            *ri = i;
            *off = (uint64_t)k;
            return (long)(before + (size_t)k);
        }
        before += hr_count(&r[i]);
    }
    return -1;
}

int grove_hostlist_find(const grove_hostlist_t *h, const char *host)
{
    grove_hostname_t hn;
    if (!h || grove_hostname_parse(host, &hn) < 0) {
        errno = EINVAL;
        return -1;
    }
    /* Describe the host as a one-host range whose "pool" is the name. */
    struct hrange q = {.pfx = 0, .plen = hn.width ? hn.prefix_len : hn.len,
                       .lo = hn.num, .hi = hn.num, .width = hn.width, .num = hn.width > 0};
    size_t ri;
    uint64_t off;
    long idx = find_host(h->r, h->n, h->pool, host, &q, &ri, &off);
    if (idx < 0) {
        errno = ENOENT;
        return -1;
    }
    return (int)idx;
}

bool grove_hostlist_contains(const grove_hostlist_t *h, const char *host)
{
    return grove_hostlist_find(h, host) >= 0;
}

bool grove_hostlist_equal(const grove_hostlist_t *a, const grove_hostlist_t *b)
{
    if (!a || !b)
        return a == b;
    if (a->n != b->n || a->count != b->count)
        return false;
    for (size_t i = 0; i < a->n; i++) {
        const struct hrange *x = &a->r[i], *y = &b->r[i];
        if (x->num != y->num || !same_prefix(a->pool, x, b->pool, y) || x->lo != y->lo
            || x->hi != y->hi || (x->num && num_len(x->lo, x->width) != num_len(x->lo, y->width)))
            return false;
    }
    return true;
}

/* ---- iteration ---------------------------------------------------------- */

const char *grove_hostlist_iter_next(const grove_hostlist_t *h, grove_hostlist_iter_t *it)
{
    if (!h || !it) {
        errno = EINVAL;
        return NULL;
    }
    while (it->range < h->n) {
        const struct hrange *r = &h->r[it->range];
        uint64_t span = r->num ? r->hi - r->lo : 0;
        if (it->offset > span) { /* h changed under us */
            it->range++;
            it->offset = 0;
            continue;
        }
        if (grovep_grow((void **)&it->buf, &it->cap, r->plen + 24, 1) < 0)
            return NULL;
        memcpy(it->buf, h->pool + r->pfx, r->plen);
        size_t len = r->plen;
        if (r->num)
            len += (size_t)grovep_put_decimal(it->buf + len, r->lo + it->offset, r->width);
        it->buf[len] = '\0';
        if (it->offset++ == span) {
            it->range++;
            it->offset = 0;
        }
        return it->buf;
    }
    errno = 0;
    return NULL;
}

void grove_hostlist_iter_fini(grove_hostlist_iter_t *it)
{
    if (it) {
        free(it->buf);
        it->buf = NULL;
        it->cap = 0;
        it->range = 0;
        it->offset = 0;
    }
}

/* ---- delete ------------------------------------------------------------- */

/* Join ranges i-1 and i of r[0..*n) if they have become joinable. */
static void rejoin(const char *pool, struct hrange *r, size_t *n, size_t i)
{
    if (i > 0 && i < *n && joinable(pool, &r[i - 1], &r[i])) {
        r[i - 1].hi = r[i].hi;
        memmove(&r[i], &r[i + 1], (*n - i - 1) * sizeof(*r));
        (*n)--;
    }
}

/* Remove host offset k of range i from the array r[0..*n) (capacity *cap),
 * keeping the invariant: a range that loses an end or disappears may become
 * joinable with a neighbour (n9 between n[8-9] and n[09-12] going away). */
static int remove_at(const char *pool, struct hrange **rp, size_t *n, size_t *cap, size_t i,
                     uint64_t k)
{
    struct hrange *r = *rp;
    struct hrange *x = &r[i];
    if (!x->num || x->lo == x->hi) {
        memmove(&r[i], &r[i + 1], (*n - i - 1) * sizeof(*r));
        (*n)--;
        rejoin(pool, r, n, i);
        return 0;
    }
    uint64_t v = x->lo + k;
    if (v == x->lo) {
        x->lo++;
        rejoin(pool, r, n, i);
    } else if (v == x->hi) {
        x->hi--;
        rejoin(pool, r, n, i + 1);
    } else {
        if (grovep_grow((void **)rp, cap, *n + 1, sizeof(*r)) < 0)
            return -1;
        r = *rp;
        x = &r[i];
        memmove(&r[i + 2], &r[i + 1], (*n - i - 1) * sizeof(*r));
        r[i + 1] = *x;
        r[i + 1].lo = v + 1;
        x->hi = v - 1;
        (*n)++;
    }
    return 0;
}

int grove_hostlist_delete_list(grove_hostlist_t *h, const grove_hostlist_t *other)
{
    if (!h || !other) {
        errno = EINVAL;
        return -1;
    }
    grove_hostlist_t *self_copy = NULL;
    if (other == h) {
        if (!(self_copy = grove_hostlist_copy(h)))
            return -1;
        other = self_copy;
    }
    /* Work on a copy of the range array so h is untouched on failure; the
     * pool does not change (removing hosts never adds prefixes). */
    size_t n = h->n, cap = h->n + 1;
    struct hrange *r = malloc(cap * sizeof(*r));
    if (!r) {
        grove_hostlist_destroy(self_copy);
        errno = ENOMEM;
        return -1;
    }
    if (n)
        memcpy(r, h->r, n * sizeof(*r));
    size_t removed = 0;
    for (size_t j = 0; j < other->n; j++) {
        const struct hrange *q = &other->r[j];
        struct hrange one = *q;
        for (uint64_t v = q->lo;; v++) {
            size_t ri;
            uint64_t off;
            one.lo = one.hi = v;
            if (find_host(r, n, h->pool, other->pool, &one, &ri, &off) >= 0) {
                if (remove_at(h->pool, &r, &n, &cap, ri, off) < 0) {
                    free(r);
                    grove_hostlist_destroy(self_copy);
                    return -1;
                }
                removed++;
            }
            if (!q->num || v == q->hi)
                break;
        }
    }
    free(h->r);
    h->r = r;
    h->n = n;
    h->cap = cap;
    h->count -= removed;
    grove_hostlist_destroy(self_copy);
    return (int)removed;
}

int grove_hostlist_delete(grove_hostlist_t *h, const char *s)
{
    return with_decoded(h, s, grove_hostlist_delete_list);
}

/* ---- sort and uniq ------------------------------------------------------ */

/* A piece of a range whose hosts all render with L digits (plain: L = 0). */
struct piece {
    const char *p; /* prefix bytes (in the pool, which does not move here) */
    size_t pfx, plen;
    uint64_t lo, hi;
    int L;
    bool num;
};

static int cmp_prefix(const struct piece *a, const struct piece *b)
{
    size_t m = a->plen < b->plen ? a->plen : b->plen;
    int c = m ? memcmp(a->p, b->p, m) : 0;
    return c ? c : GROVEP_CMP(a->plen, b->plen);
}

static int cmp_piece(const void *x, const void *y)
{
    const struct piece *a = x, *b = y;
    int c = cmp_prefix(a, b);
    if (c)
        return c;
    if (a->num != b->num)
        return a->num ? 1 : -1; /* the plain name "foo" before foo1 */
    if ((c = GROVEP_CMP(a->L, b->L)) || (c = GROVEP_CMP(a->lo, b->lo)))
        return c;
    return GROVEP_CMP(a->hi, b->hi);
}

static int cmp_u64(const void *x, const void *y)
{
    return GROVEP_CMP(*(const uint64_t *)x, *(const uint64_t *)y);
}

static int emit(grove_hostlist_t *out, const struct piece *p, uint64_t lo, uint64_t hi)
{
    struct hrange q = {.pfx = p->pfx, .plen = p->plen, .lo = lo, .hi = hi,
                       .width = p->L, .num = p->num};
    return put_range(out, &q);
}

/* Emit pieces g[0..m) (same prefix, numbered, same L, sorted by lo): their
 * union (uniq) or every host with its multiplicity, ascending (sort).
 * ends is scratch for m values. */
static int emit_group(grove_hostlist_t *out, const struct piece *g, size_t m, bool uniq,
                      uint64_t *ends)
{
    if (uniq) {
        uint64_t lo = g[0].lo, hi = g[0].hi;
        for (size_t i = 1; i < m; i++) {
            if (g[i].lo <= hi + 1) {
                if (g[i].hi > hi)
                    hi = g[i].hi;
            } else {
                if (emit(out, g, lo, hi) < 0)
                    return -1;
                lo = g[i].lo;
                hi = g[i].hi;
            }
        }
        return emit(out, g, lo, hi);
    }
    /* Sweep: multiplicity changes at each lo (+1) and each hi + 1 (-1). */
    for (size_t i = 0; i < m; i++)
        ends[i] = g[i].hi + 1;
    qsort(ends, m, sizeof(*ends), cmp_u64);
    size_t a = 0, e = 0;
    uint64_t mult = 0, x = g[0].lo;
    while (e < m) {
        uint64_t next = a < m && g[a].lo < ends[e] ? g[a].lo : ends[e];
        if (mult > 0 && next > x) {
            uint64_t last = next - 1;
            if (mult == 1) {
                if (emit(out, g, x, last) < 0)
                    return -1;
            } else {
                for (uint64_t v = x;; v++) {
                    for (uint64_t c = 0; c < mult; c++)
                        if (emit(out, g, v, v) < 0)
                            return -1;
                    if (v == last)
                        break;
                }
            }
        }
        x = next;
        while (a < m && g[a].lo == x) {
            mult++;
            a++;
        }
        while (e < m && ends[e] == x) {
            mult--;
            e++;
        }
    }
    return 0;
}

static int sort_uniq(grove_hostlist_t *h, bool uniq)
{
    if (!h) {
        errno = EINVAL;
        return -1;
    }
    if (h->n <= 1) /* one range is sorted and has no duplicate */
        return 0;
    /* Pieces: numbered ranges split where the rendered length changes. */
    size_t np = 0, pcap = h->n + 8;
    struct piece *pc = malloc(pcap * sizeof(*pc));
    uint64_t *ends = NULL;
    grove_hostlist_t out = {0};
    if (!pc)
        goto nomem;
    for (size_t i = 0; i < h->n; i++) {
        const struct hrange *r = &h->r[i];
        for (uint64_t n = r->lo;;) {
            if (grovep_grow((void **)&pc, &pcap, np + 1, sizeof(*pc)) < 0)
                goto nomem;
            struct piece *p = &pc[np++];
            p->p = h->pool + r->pfx;
            p->pfx = r->pfx;
            p->plen = r->plen;
            p->num = r->num;
            p->L = r->num ? num_len(n, r->width) : 0;
            p->lo = n;
            p->hi = r->num && r->hi > pow10_tab[p->L] - 1 ? pow10_tab[p->L] - 1 : r->hi;
            if (!r->num || p->hi == r->hi)
                break;
            n = p->hi + 1;
        }
    }
    qsort(pc, np, sizeof(*pc), cmp_piece);
    if (!(ends = malloc(np * sizeof(*ends))))
        goto nomem;
    out.pool = h->pool; /* borrowed: put_range only reads it */
    out.plen = h->plen;
    for (size_t i = 0; i < np;) {
        size_t j = i + 1;
        while (j < np && pc[j].num == pc[i].num && pc[j].L == pc[i].L
               && cmp_prefix(&pc[i], &pc[j]) == 0)
            j++;
        if (!pc[i].num) {
            for (size_t k = i; k < (uniq ? i + 1 : j); k++)
                if (emit(&out, &pc[k], 0, 0) < 0)
                    goto nomem;
        } else if (emit_group(&out, &pc[i], j - i, uniq, ends) < 0) {
            goto nomem;
        }
        i = j;
    }
    free(pc);
    free(ends);
    free(h->r);
    h->r = out.r;
    h->n = out.n;
    h->cap = out.cap;
    h->count = out.count;
    return 0;
nomem:
    free(pc);
    free(ends);
    free(out.r);
    errno = ENOMEM;
    return -1;
}

int grove_hostlist_sort(grove_hostlist_t *h)
{
    return sort_uniq(h, false);
}

int grove_hostlist_uniq(grove_hostlist_t *h)
{
    return sort_uniq(h, true);
}
