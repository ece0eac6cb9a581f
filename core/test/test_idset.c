/* test_idset.c: RFC 22 idsets.
 *
 * 1. every row of the shared corpus idset.tsv (one TAP line per row);
 * 2. table rows of our own: error messages and positions, limits, API edges;
 * 3. the set algebra and queries against a naive bool-array reference on
 *    random sets (fixed seed);
 * 4. random garbage strings (fixed seed): decode never crashes or leaks, and
 *    whatever decodes round-trips through the canonical encoding.
 *
 * It must not hold its own corpus reader or generator: corpus.h and rng.h
 * have them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idset.h"
#include "tap.h"
#include "corpus.h"

/* ---- corpus ------------------------------------------------------------- */

static int parse_flags(const char *s)
{
    int flags = 0;
    if (strstr(s, "RANGE"))
        flags |= GROVE_IDSET_FLAG_RANGE;
    if (strstr(s, "BRACKETS"))
        flags |= GROVE_IDSET_FLAG_BRACKETS;
    return flags;
}

static void id_str(char *buf, size_t size, unsigned id)
{
    if (id == GROVE_IDSET_INVALID)
        snprintf(buf, size, "NONE");
    else
        snprintf(buf, size, "%u", id);
}

/* Apply op to a and each space-separated idset of arg in turn; returns the
 * result (new) or NULL on a decode failure. */
static grove_idset_t *apply_all(const char *op, const char *input, const char *arg)
{
    grove_idset_t *a = grove_idset_decode(input, NULL);
    if (!a)
        return NULL;
    char *copy = strdup(arg);
    char *save = NULL;
    char *tok = strtok_r(copy, " ", &save);
    if (!tok)
        tok = copy; /* an empty arg is the empty set */
    for (; tok; tok = strtok_r(NULL, " ", &save)) {
        grove_idset_t *b = grove_idset_decode(tok, NULL);
        if (!b) {
            grove_idset_destroy(a);
            a = NULL;
            break;
        }
        if (!strcmp(op, "union") || !strcmp(op, "difference") || !strcmp(op, "intersect")) {
            grove_idset_t *r = !strcmp(op, "union")        ? grove_idset_union(a, b)
                               : !strcmp(op, "difference") ? grove_idset_difference(a, b)
                                                           : grove_idset_intersect(a, b);
            grove_idset_destroy(a);
            a = r;
        } else if (!strncmp(op, "add", 3)) {
            if (grove_idset_add(a, b) < 0) {
                grove_idset_destroy(a);
                a = NULL;
            }
        } else {
            if (grove_idset_subtract(a, b) < 0) {
                grove_idset_destroy(a);
                a = NULL;
            }
        }
        grove_idset_destroy(b);
        if (!a)
            break;
        if (*copy == '\0')
            break;
    }
    free(copy);
    return a;
}

static void conformance_row(int lineno, char **f)
{
    const char *op = f[0], *input = f[1], *arg = f[2], *want = f[3];
    char got[64];
    grove_error_t err = {{0}, 0};

    if (!strcmp(op, "encode")) {
        grove_idset_t *s = grove_idset_decode(input, &err);
        char *e = s ? grove_idset_encode(s, parse_flags(arg)) : NULL;
        is_str(e, want, "idset.tsv:%d encode '%s' %s", lineno, input, arg);
        if (!s)
            diag("decode error: %s", err.text);
        free(e);
        grove_idset_destroy(s);
    } else if (!strcmp(op, "decode")) {
        errno = 0;
        grove_idset_t *s = grove_idset_decode(input, &err);
        ok(!s && errno == EINVAL && err.text[0], "idset.tsv:%d decode '%s' fails: %s", lineno,
           input, err.text);
        grove_idset_destroy(s);
    } else if (!strcmp(op, "count") || !strcmp(op, "empty") || !strcmp(op, "first")
               || !strcmp(op, "last") || !strcmp(op, "next") || !strcmp(op, "prev")) {
        grove_idset_t *s = grove_idset_decode(input, &err);
        if (!s) {
            ok(0, "idset.tsv:%d %s '%s': decode failed: %s", lineno, op, input, err.text);
            return;
        }
        if (!strcmp(op, "count"))
            snprintf(got, sizeof(got), "%zu", grove_idset_count(s));
        else if (!strcmp(op, "empty"))
            snprintf(got, sizeof(got), "%s", grove_idset_empty(s) ? "true" : "false");
        else if (!strcmp(op, "first"))
            id_str(got, sizeof(got), grove_idset_first(s));
        else if (!strcmp(op, "last"))
            id_str(got, sizeof(got), grove_idset_last(s));
        else if (!strcmp(op, "next"))
            id_str(got, sizeof(got), grove_idset_next(s, (unsigned)strtoul(arg, NULL, 10)));
        else
            id_str(got, sizeof(got), grove_idset_prev(s, (unsigned)strtoul(arg, NULL, 10)));
        is_str(got, want, "idset.tsv:%d %s '%s' %s", lineno, op, input, arg);
        grove_idset_destroy(s);
    } else if (!strcmp(op, "union") || !strcmp(op, "difference") || !strcmp(op, "intersect")
               || !strcmp(op, "add") || !strcmp(op, "subtract")) {
        grove_idset_t *r = apply_all(op, input, arg);
        grove_idset_t *w = grove_idset_decode(want, NULL);
        ok(r && w && grove_idset_equal(r, w), "idset.tsv:%d '%s' %s '%s' = '%s'", lineno, input,
           op, arg, want);
        grove_idset_destroy(r);
        grove_idset_destroy(w);
    } else if (!strcmp(op, "add_count") || !strcmp(op, "subtract_count")) {
        grove_idset_t *r = apply_all(op, input, arg);
        snprintf(got, sizeof(got), "%zu", r ? grove_idset_count(r) : (size_t)-1);
        is_str(got, want, "idset.tsv:%d '%s' %s '%s' count", lineno, input, op, arg);
        grove_idset_destroy(r);
    } else if (!strcmp(op, "clear_range")) {
        grove_idset_t *s = grove_idset_decode(input, NULL);
        unsigned lo = 0, hi = 0;
        int rc = -1;
        if (s && sscanf(arg, "%u-%u", &lo, &hi) == 2)
            rc = grove_idset_range_clear(s, lo, hi);
        char *e = rc == 0 ? grove_idset_encode(s, GROVE_IDSET_FLAG_RANGE) : NULL;
        is_str(e, want, "idset.tsv:%d clear_range '%s' %s", lineno, input, arg);
        free(e);
        grove_idset_destroy(s);
    } else {
        ok(0, "idset.tsv:%d unknown op '%s'", lineno, op);
    }
}

static void test_conformance(void)
{
    int rows = corpus_run("idset.tsv", 5, conformance_row);
    is_int(rows, 142, "idset.tsv: every row was run");
}

/* ---- our own rows ------------------------------------------------------- */

static const struct {
    const char *in;
    const char *msg; /* expected error text, NULL if it must decode */
    const char *out; /* RANGE encoding when it decodes */
} decode_rows[] = {
    {"1-2x", "invalid idset \"1-2x\": unexpected 'x' at position 4", NULL},
    {"01,2", "invalid idset \"01,2\": leading zero at position 1", NULL},
    {"3,2", "invalid idset \"3,2\": ids not in ascending order at position 3", NULL},
    {"1-5,5", "invalid idset \"1-5,5\": duplicate or overlapping id at position 5", NULL},
    {"1-5,3-7", "invalid idset \"1-5,3-7\": duplicate or overlapping id at position 5", NULL},
    {"3-0", "invalid idset \"3-0\": descending range at position 1", NULL},
    {"0-", "invalid idset \"0-\": missing id at position 3", NULL},
    {"-5", "invalid idset \"-5\": negative or missing id at position 1", NULL},
    {"1--5", "invalid idset \"1--5\": negative or missing id at position 3", NULL},
    {"[0", "invalid idset \"[0\": '[' without matching ']' at position 1", NULL},
    {"0]", "invalid idset \"0]\": unexpected ']' at position 2", NULL},
    {"1,", "invalid idset \"1,\": trailing ',' at position 2", NULL},
    {",1", "invalid idset \",1\": unexpected ',' at position 1", NULL},
    {"1,,2", "invalid idset \"1,,2\": unexpected ',' at position 3", NULL},
    {" 1", "invalid idset \" 1\": unexpected ' ' at position 1", NULL},
    {"1\t", "invalid idset \"1?\": unexpected '\\x09' at position 2", NULL},
    {"4294967295", "invalid idset \"4294967295\": id larger than 4294967294 at position 1",
     NULL},
    {"99999999999999999999999",
     "invalid idset \"99999999999999999999999\": id larger than 4294967294 at position 1",
     NULL},
    {"0123456789012345678901234567890123456789012345",
     "invalid idset \"0123456789012345678901234567890123456789...\": leading zero at position 1",
     NULL},
    {"4294967294", NULL, "4294967294"},
    {"0-4294967294", NULL, "0-4294967294"},
    {"1,3-5,6", NULL, "1,3-6"}, /* touching runs are fine and join */
    {"[5]", NULL, "5"},
    {"0", NULL, "0"},
    {"10-10", NULL, "10"},
};

static void test_decode_rows(void)
{
    for (size_t i = 0; i < sizeof(decode_rows) / sizeof(decode_rows[0]); i++) {
        grove_error_t err = {{0}, 0};
        errno = 0;
        grove_idset_t *s = grove_idset_decode(decode_rows[i].in, &err);
        if (decode_rows[i].msg) {
            ok(!s && errno == EINVAL, "decode '%s' fails with EINVAL", decode_rows[i].in);
            is_str(err.text, decode_rows[i].msg, "decode '%s' message", decode_rows[i].in);
        } else {
            char *e = s ? grove_idset_encode(s, GROVE_IDSET_FLAG_RANGE) : NULL;
            is_str(e, decode_rows[i].out, "decode '%s' = '%s'", decode_rows[i].in,
                   decode_rows[i].out);
            free(e);
        }
        grove_idset_destroy(s);
    }
    /* An embedded NUL is a stray character, not the end of the string. */
    grove_error_t err = {{0}, 0};
    grove_idset_t *s = grove_idset_decode_len("1\0002", 3, &err);
    ok(!s && errno == EINVAL, "decode_len with an embedded NUL fails");
    ok(strstr(err.text, "unexpected '\\x00' at position 2") != NULL, "... at position 2: %s",
       err.text);
    s = grove_idset_decode_len("1-3,9xyz", 5, NULL);
    char *e = grove_idset_encode(s, GROVE_IDSET_FLAG_RANGE);
    is_str(e, "1-3,9", "decode_len reads only len bytes");
    free(e);
    grove_idset_destroy(s);
    errno = 0;
    ok(grove_idset_decode(NULL, &err) == NULL && errno == EINVAL, "decode(NULL) is EINVAL");
    s = grove_idset_decode("[]", NULL);
    ok(s != NULL && grove_idset_empty(s), "decode without an error buffer");
    grove_idset_destroy(s);
}

static char *enc(const grove_idset_t *s)
{
    return grove_idset_encode(s, GROVE_IDSET_FLAG_RANGE);
}

#define is_set(s, want, ...)          \
    do {                              \
        char *e_ = enc(s);            \
        is_str(e_, want, __VA_ARGS__); \
        free(e_);                     \
    } while (0)

static void test_api(void)
{
    grove_idset_t *s = grove_idset_create();
    ok(s && grove_idset_empty(s) && grove_idset_count(s) == 0, "create: empty");
    is_set(s, "", "empty set encodes as ''");
    ok(grove_idset_set(s, 5) == 0 && grove_idset_set(s, 7) == 0 && grove_idset_set(s, 6) == 0,
       "set 5, 7, 6");
    is_set(s, "5-7", "runs join");
    ok(grove_idset_set(s, 6) == 0 && grove_idset_count(s) == 3, "setting a member is a no-op");
    ok(grove_idset_set(s, 1048576) == 0, "set a sparse huge id");
    is_set(s, "5-7,1048576", "sparse huge id");
    is_int(grove_idset_run_count(s), 2, "two runs");
    ok(grove_idset_clear(s, 6) == 0, "clear 6 splits a run");
    is_set(s, "5,7,1048576", "after clear 6");
    ok(grove_idset_clear(s, 6) == 0 && grove_idset_clear(s, 100) == 0, "clearing absent ids");
    is_int(grove_idset_count(s), 3, "count 3");
    ok(grove_idset_range_set(s, 10, 2) == 0, "range_set 10..2 (reversed)");
    is_set(s, "2-10,1048576", "range_set swallows runs");
    ok(grove_idset_range_set(s, 11, 20) == 0, "range_set touching on the right");
    ok(grove_idset_range_set(s, 0, 1) == 0, "range_set touching on the left");
    is_set(s, "0-20,1048576", "touching runs join");
    ok(grove_idset_range_clear(s, 1048576, 1048576) == 0, "range_clear a whole run");
    ok(grove_idset_range_clear(s, 15, 3) == 0, "range_clear reversed inside a run");
    is_set(s, "0-2,16-20", "range_clear splits");
    ok(grove_idset_range_clear(s, 0, 100) == 0 && grove_idset_empty(s), "clear everything");
    ok(grove_idset_range_set(s, 0, GROVE_IDSET_MAX_ID) == 0, "range_set up to MAX_ID");
    ok(grove_idset_count(s) == (size_t)GROVE_IDSET_MAX_ID + 1, "count is UINT_MAX");
    errno = 0;
    ok(grove_idset_encode(s, 0) == NULL && errno == EOVERFLOW,
       "encode every id of 0-4294967294 is EOVERFLOW, not a 40 GB malloc");
    is_set(s, "0-4294967294", "RANGE encoding is short");
    ok(grove_idset_next(s, GROVE_IDSET_MAX_ID) == GROVE_IDSET_INVALID, "next(MAX_ID) is NONE");
    ok(grove_idset_prev(s, GROVE_IDSET_INVALID) == GROVE_IDSET_MAX_ID,
       "prev(INVALID) is the last id");
    ok(grove_idset_range_clear(s, 1, GROVE_IDSET_MAX_ID - 1) == 0, "clear the middle");
    is_set(s, "0,4294967294", "ends remain");
    ok(grove_idset_prev(s, GROVE_IDSET_MAX_ID) == 0, "prev across a huge gap");
    ok(grove_idset_nth(s, 1) == GROVE_IDSET_MAX_ID && grove_idset_nth(s, 2) == GROVE_IDSET_INVALID,
       "nth");
    is_int(grove_idset_rank(s, GROVE_IDSET_MAX_ID), 1, "rank of the last id");
    errno = 0;
    is_int(grove_idset_rank(s, 5), -1, "rank of a non-member is -1");
    is_int(errno, ENOENT, "... ENOENT");

    errno = 0;
    ok(grove_idset_set(s, GROVE_IDSET_INVALID) < 0 && errno == EINVAL, "set(INVALID) is EINVAL");
    errno = 0;
    ok(grove_idset_clear(s, GROVE_IDSET_INVALID) < 0 && errno == EINVAL,
       "clear(INVALID) is EINVAL");
    errno = 0;
    ok(grove_idset_range_set(s, 0, GROVE_IDSET_INVALID) < 0 && errno == EINVAL,
       "range_set to INVALID is EINVAL");
    errno = 0;
    ok(grove_idset_range_clear(s, GROVE_IDSET_INVALID, 3) < 0 && errno == EINVAL,
       "range_clear from INVALID is EINVAL");
    errno = 0;
    ok(grove_idset_encode(s, 4) == NULL && errno == EINVAL, "encode with unknown flags");
    ok(!grove_idset_test(s, GROVE_IDSET_INVALID), "INVALID is never a member");

    /* Brackets: never around fewer than two ids. */
    grove_idset_t *one = grove_idset_decode("7", NULL);
    char *e = grove_idset_encode(one, GROVE_IDSET_FLAG_BRACKETS | GROVE_IDSET_FLAG_RANGE);
    is_str(e, "7", "a singleton is never bracketed");
    free(e);
    e = grove_idset_encode(one, GROVE_IDSET_FLAG_BRACKETS);
    is_str(e, "7", "... with BRACKETS alone either");
    free(e);

    /* In-place algebra with itself, and copies. */
    grove_idset_t *c = grove_idset_copy(s);
    ok(c && grove_idset_equal(c, s), "copy is equal");
    ok(grove_idset_add(c, c) == 0 && grove_idset_equal(c, s), "a |= a is a");
    ok(grove_idset_subtract(c, c) == 0 && grove_idset_empty(c), "a -= a is empty");
    ok(!grove_idset_equal(c, s), "empty != non-empty");
    ok(grove_idset_equal(NULL, NULL) && !grove_idset_equal(s, NULL), "equal with NULL");

    /* NULL arguments. */
    errno = 0;
    ok(grove_idset_union(s, NULL) == NULL && errno == EINVAL, "union with NULL is EINVAL");
    errno = 0;
    ok(grove_idset_add(NULL, s) < 0 && errno == EINVAL, "add to NULL is EINVAL");
    errno = 0;
    ok(grove_idset_copy(NULL) == NULL && errno == EINVAL, "copy(NULL) is EINVAL");
    errno = 0;
    ok(grove_idset_encode(NULL, 0) == NULL && errno == EINVAL, "encode(NULL) is EINVAL");
    ok(grove_idset_count(NULL) == 0 && grove_idset_empty(NULL)
           && grove_idset_first(NULL) == GROVE_IDSET_INVALID
           && grove_idset_next(NULL, 0) == GROVE_IDSET_INVALID && !grove_idset_test(NULL, 0),
       "queries on NULL are empty answers");
    unsigned lo = 0, hi = 0;
    ok(grove_idset_run(s, 1, &lo, &hi) == 0 && lo == GROVE_IDSET_MAX_ID && hi == lo, "run(1)");
    ok(grove_idset_run(s, 2, &lo, &hi) < 0, "run out of range");
    ok_destroy_null(grove_idset_destroy);
    grove_idset_destroy(one);
    grove_idset_destroy(c);
    grove_idset_destroy(s);
}

/* ---- naive reference ---------------------------------------------------- */

#define U 160 /* universe 0..U-1 of the random sets */

/* A random set shaped like real ones: some runs, some singletons. */
static void random_set(bool *ref, grove_idset_t *s)
{
    memset(ref, 0, U);
    int ops = (int)rnd(0, 11);
    for (int k = 0; k < ops; k++) {
        unsigned a = rnd(0, U - 1), b = rnd(0, U - 1);
        unsigned lo = a < b ? a : b, hi = a < b ? b : a;
        if (rnd(0, 2) == 0)
            hi = lo + (hi - lo) % 4;
        int what = (int)rnd(0, 3);
        for (unsigned i = lo; i <= hi; i++)
            ref[i] = what != 3;
        if (what == 0)
            grove_idset_range_set(s, lo, hi);
        else if (what == 1 || what == 2) /* the same, one id at a time */
            for (unsigned i = lo; i <= hi; i++)
                grove_idset_set(s, i);
        else if (lo == hi)
            grove_idset_clear(s, lo);
        else
            grove_idset_range_clear(s, hi, lo);
    }
}

/* Does s hold exactly the ids of ref, with every query agreeing? */
static bool matches(const grove_idset_t *s, const bool *ref, char *why, size_t size)
{
    size_t count = 0;
    unsigned first = GROVE_IDSET_INVALID, last = GROVE_IDSET_INVALID;
    for (unsigned i = 0; i < U; i++) {
        if (ref[i]) {
            if (first == GROVE_IDSET_INVALID)
                first = i;
            last = i;
            if (grove_idset_nth(s, count) != i) {
                snprintf(why, size, "nth(%zu) != %u", count, i);
                return false;
            }
            if (grove_idset_rank(s, i) != (long)count) {
                snprintf(why, size, "rank(%u) != %zu", i, count);
                return false;
            }
            count++;
        }
        if (grove_idset_test(s, i) != ref[i]) {
            snprintf(why, size, "test(%u)", i);
            return false;
        }
        unsigned nx = GROVE_IDSET_INVALID, pv = GROVE_IDSET_INVALID;
        for (unsigned j = i + 1; j < U; j++)
            if (ref[j]) {
                nx = j;
                break;
            }
        for (unsigned j = i; j-- > 0;)
            if (ref[j]) {
                pv = j;
                break;
            }
        if (grove_idset_next(s, i) != nx || grove_idset_prev(s, i) != pv) {
            snprintf(why, size, "next/prev(%u)", i);
            return false;
        }
    }
    if (grove_idset_count(s) != count || grove_idset_first(s) != first
        || grove_idset_last(s) != last || grove_idset_empty(s) != (count == 0)
        || grove_idset_test(s, U) || grove_idset_next(s, U) != GROVE_IDSET_INVALID) {
        snprintf(why, size, "count/first/last/empty");
        return false;
    }
    /* Runs are maximal: no two touch. */
    for (size_t i = 0; i + 1 < grove_idset_run_count(s); i++) {
        unsigned lo1, hi1, lo2, hi2;
        grove_idset_run(s, i, &lo1, &hi1);
        grove_idset_run(s, i + 1, &lo2, &hi2);
        if (!(lo1 <= hi1 && hi1 + 1 < lo2)) {
            snprintf(why, size, "runs %zu and %zu touch", i, i + 1);
            return false;
        }
    }
    /* Every encoding decodes back to the same set. */
    for (int flags = 0; flags < 4; flags++) {
        char *e = grove_idset_encode(s, flags);
        grove_idset_t *d = e ? grove_idset_decode(e, NULL) : NULL;
        bool same = d && grove_idset_equal(d, s);
        grove_idset_destroy(d);
        if (!same) {
            snprintf(why, size, "round trip flags %d of '%s'", flags, e ? e : "(null)");
            free(e);
            return false;
        }
        free(e);
    }
    return true;
}

static void test_reference(void)
{
    const int trials = 400;
    int failures = 0;
    char why[128] = "";
    for (int t = 0; t < trials && failures == 0; t++) {
        bool ra[U], rb[U], rr[U];
        grove_idset_t *a = grove_idset_create(), *b = grove_idset_create();
        random_set(ra, a);
        random_set(rb, b);
        if (!matches(a, ra, why, sizeof(why)) || !matches(b, rb, why, sizeof(why))) {
            failures++;
            diag("trial %d: building: %s", t, why);
        }
        for (int op = 0; op < 5 && failures == 0; op++) {
            grove_idset_t *r;
            for (int i = 0; i < U; i++)
                rr[i] = op == 0 || op == 3 ? ra[i] || rb[i]
                        : op == 1 || op == 4 ? ra[i] && !rb[i]
                                             : ra[i] && rb[i];
            if (op == 0)
                r = grove_idset_union(a, b);
            else if (op == 1)
                r = grove_idset_difference(a, b);
            else if (op == 2)
                r = grove_idset_intersect(a, b);
            else {
                r = grove_idset_copy(a);
                if (op == 3)
                    grove_idset_add(r, b);
                else
                    grove_idset_subtract(r, b);
            }
            bool eq_ref = true;
            for (int i = 0; i < U; i++)
                eq_ref = eq_ref && rr[i] == ra[i];
            if (!r || !matches(r, rr, why, sizeof(why))
                || grove_idset_equal(r, a) != eq_ref) {
                failures++;
                char *ea = enc(a), *eb = enc(b);
                diag("trial %d op %d: a='%s' b='%s': %s", t, op, ea, eb, why);
                free(ea);
                free(eb);
            }
            grove_idset_destroy(r);
        }
        grove_idset_destroy(a);
        grove_idset_destroy(b);
    }
    ok(failures == 0, "%d random pairs: set algebra, queries and codecs agree with a bool array",
       trials);
}

/* ---- garbage ------------------------------------------------------------ */

/* One garbage string: refused with a position, or decoded to a set whose
 * encoding decodes to the same set. */
static int garbage_one(const char *buf, size_t len)
{
    grove_error_t err = {{0}, 0};
    grove_idset_t *s = grove_idset_decode_len(buf, len, &err);
    if (!s)
        return errno == EINVAL && strstr(err.text, "at position") ? CORPUS_REFUSED : CORPUS_BAD;
    char *e = grove_idset_encode(s, GROVE_IDSET_FLAG_RANGE | GROVE_IDSET_FLAG_BRACKETS);
    grove_idset_t *d = e ? grove_idset_decode(e, NULL) : NULL;
    int what = d && grove_idset_equal(s, d) ? CORPUS_DECODED : CORPUS_BAD;
    free(e);
    grove_idset_destroy(d);
    grove_idset_destroy(s);
    return what;
}

static void test_garbage(void)
{
    corpus_garbage_run(40, "0123456789,,,---[]  x0", 8, 20000, garbage_one);
}

int main(void)
{
    rng_state = 0x9e3779b97f4a7c15ULL;
    test_conformance();
    test_decode_rows();
    test_api();
    test_reference();
    test_garbage();
    return done_testing();
}
