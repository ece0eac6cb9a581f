/* test_hostlist.c: RFC 29 hostlists.
 *
 * 1. every row of the shared corpus hostlist.tsv (one TAP line per row);
 * 2. the RFC's own test vectors and rows of our own: zero padding, the
 *    canonical form, limits, error messages and positions, API edges;
 * 3. random hostlists (fixed seed) whose hosts the generator renders itself,
 *    checked against a naive array of strings: expansion, nth, find, encode
 *    round trip, sort, uniq, delete;
 * 4. random garbage strings (fixed seed): no crash or leak, errors name a
 *    position, whatever decodes round-trips.
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

#include "hostlist.h"
#include "tap.h"
#include "corpus.h"

/* ---- helpers ------------------------------------------------------------ */

/* Every host of h joined by commas (new string). */
static char *expand(const grove_hostlist_t *h)
{
    size_t cap = 64, len = 0;
    char *out = malloc(cap);
    grove_hostlist_iter_t it = GROVE_HOSTLIST_ITER_INIT;
    const char *host;
    out[0] = '\0';
    while ((host = grove_hostlist_iter_next(h, &it))) {
        size_t n = strlen(host);
        if (len + n + 2 > cap) {
            while (len + n + 2 > cap)
                cap *= 2;
            out = realloc(out, cap);
        }
        if (len)
            out[len++] = ',';
        memcpy(out + len, host, n + 1);
        len += n;
    }
    grove_hostlist_iter_fini(&it);
    return out;
}

static char *encode_str(const char *s)
{
    grove_hostlist_t *h = grove_hostlist_decode(s, NULL);
    char *e = h ? grove_hostlist_encode(h) : NULL;
    grove_hostlist_destroy(h);
    return e;
}

static char *expand_str(const char *s)
{
    grove_hostlist_t *h = grove_hostlist_decode(s, NULL);
    char *e = h ? expand(h) : NULL;
    grove_hostlist_destroy(h);
    return e;
}

/* ---- corpus ------------------------------------------------------------- */

static void conformance_row(int lineno, char **f)
{
    const char *op = f[0], *input = f[1], *arg = f[2], *want = f[3];
    const char *wcount = f[4], *wfirst = f[5], *wlast = f[6];
    char got[1024], exp[1024];
    grove_error_t err = {{0}, 0};

    if (!strcmp(op, "hostname")) {
        grove_hostname_t hn;
        if (grove_hostname_parse(input, &hn) < 0)
            snprintf(got, sizeof(got), "ERROR");
        else if (hn.width == 0)
            snprintf(got, sizeof(got), "prefix=%.*s num=%llu suffix=- width=0",
                     (int)hn.prefix_len, hn.name, (unsigned long long)hn.num);
        else
            snprintf(got, sizeof(got), "prefix=%.*s num=%llu suffix=%.*s width=%d",
                     (int)hn.prefix_len, hn.name, (unsigned long long)hn.num, hn.width,
                     hn.name + hn.prefix_len, hn.width);
        is_str(got, want, "hostlist.tsv:%d hostname '%s'", lineno, input);
        return;
    }
    grove_hostlist_t *h = grove_hostlist_decode(input, &err);
    if (!strcmp(op, "decode") && !strcmp(want, "ERROR")) {
        ok(h == NULL && (errno == EINVAL || errno == ERANGE) && err.text[0],
           "hostlist.tsv:%d decode '%s' fails: %s", lineno, input, err.text);
        grove_hostlist_destroy(h);
        return;
    }
    if (!h) {
        ok(0, "hostlist.tsv:%d %s '%s': decode failed: %s", lineno, op, input, err.text);
        return;
    }
    if (!strcmp(op, "decode")) {
        char *e = grove_hostlist_encode(h);
        char *fst = grove_hostlist_first(h), *lst = grove_hostlist_last(h);
        snprintf(got, sizeof(got), "%s | count=%zu first=%s last=%s", e,
                 grove_hostlist_count(h), fst ? fst : "-", lst ? lst : "-");
        snprintf(exp, sizeof(exp), "%s | count=%s first=%s last=%s", want, wcount, wfirst,
                 wlast);
        is_str(got, exp, "hostlist.tsv:%d decode '%.60s'", lineno, input);
        free(e);
        free(fst);
        free(lst);
    } else if (!strcmp(op, "append") || !strcmp(op, "delete")) {
        bool append = op[0] == 'a';
        int n = append ? grove_hostlist_append(h, arg) : grove_hostlist_delete(h, arg);
        const char *done = append ? "appended" : "deleted";
        char *e = grove_hostlist_encode(h);
        snprintf(got, sizeof(got), "%s | %s=%d", e, done, n);
        snprintf(exp, sizeof(exp), "%s | %s=%s", want, done, wcount);
        is_str(got, exp, "hostlist.tsv:%d '%s' %s '%s'", lineno, input, op, arg);
        free(e);
    } else if (!strcmp(op, "nth")) {
        char *host = grove_hostlist_nth(h, strtoul(arg, NULL, 10));
        int saved = errno;
        snprintf(got, sizeof(got), "%s | size=%zu", host ? host : saved == ENOENT ? "ERROR" : "?",
                 grove_hostlist_count(h));
        snprintf(exp, sizeof(exp), "%s | size=%s", want, wcount);
        is_str(got, exp, "hostlist.tsv:%d '%s' nth %s", lineno, input, arg);
        free(host);
    } else if (!strcmp(op, "find")) {
        snprintf(got, sizeof(got), "%d", grove_hostlist_find(h, arg));
        is_str(got, want, "hostlist.tsv:%d '%s' find '%s'", lineno, input, arg);
    } else if (!strcmp(op, "contains")) {
        snprintf(got, sizeof(got), "%s", grove_hostlist_contains(h, arg) ? "true" : "false");
        is_str(got, want, "hostlist.tsv:%d '%s' contains '%s'", lineno, input, arg);
    } else if (!strcmp(op, "sort") || !strcmp(op, "uniq")) {
        int rc = !strcmp(op, "sort") ? grove_hostlist_sort(h) : grove_hostlist_uniq(h);
        char *e = rc == 0 ? grove_hostlist_encode(h) : NULL;
        is_str(e, want, "hostlist.tsv:%d %s '%s'", lineno, op, input);
        free(e);
    } else {
        ok(0, "hostlist.tsv:%d unknown op '%s'", lineno, op);
    }
    grove_hostlist_destroy(h);
}

static void test_conformance(void)
{
    int rows = corpus_run("hostlist.tsv", 8, conformance_row);
    is_int(rows, 118, "hostlist.tsv: every row was run");
}

/* ---- our own rows ------------------------------------------------------- */

/* A row of core/test/vectors/hostlist_expand.tsv: a hostlist, its hosts,
 * and its encoding expands to the same hosts. */
static void expand_row(int lineno, char **f)
{
    const char *hosts = corpus_field(f[1]);
    char *x = expand_str(f[0]);
    is_str(x, hosts, "line %d: '%s' is %s", lineno, f[0], hosts ? hosts : "an error");
    free(x);
    char *e = encode_str(f[0]);
    char *y = e ? expand_str(e) : NULL;
    is_str(y, hosts, "line %d: '%s' encodes as '%s', the same hosts", lineno, f[0],
           e ? e : "(null)");
    free(e);
    free(y);
}

/* A row of core/test/vectors/hostlist_codec.tsv: a hostlist and its
 * encoding, or the error and message decoding must give. */
static void codec_row(int lineno, char **f)
{
    const char *out = corpus_field(f[1]);
    grove_error_t err = {{0}, 0};
    errno = 0;
    grove_hostlist_t *h = grove_hostlist_decode(f[0], &err);
    if (out) {
        char *e = h ? grove_hostlist_encode(h) : NULL;
        is_str(e, out, "line %d: '%s' encodes as '%s'", lineno, f[0], out);
        if (!h)
            diag("%s", err.text);
        free(e);
    } else {
        ok(!h && errno == corpus_errno(f[3]), "line %d: '%s' fails with %s", lineno, f[0], f[3]);
        is_str(err.text, f[2], "... message");
    }
    grove_hostlist_destroy(h);
}

static void test_rows(void)
{
    ok(vectors_run("hostlist_expand.tsv", 2, expand_row) >= 22, "hostlist expansion vectors");
    ok(vectors_run("hostlist_codec.tsv", 4, codec_row) >= 36, "hostlist codec vectors");
}

static void test_api(void)
{
    grove_hostlist_t *h = grove_hostlist_create();
    char *s;
    ok(h && grove_hostlist_count(h) == 0, "create: empty");
    s = grove_hostlist_encode(h);
    is_str(s, "", "empty list encodes as ''");
    free(s);
    errno = 0;
    ok(grove_hostlist_first(h) == NULL && errno == ENOENT, "first of empty is ENOENT");
    errno = 0;
    ok(grove_hostlist_last(h) == NULL && errno == ENOENT, "last of empty is ENOENT");
    is_int(grove_hostlist_append(h, "n[1-3]"), 3, "append returns the number appended");
    is_int(grove_hostlist_append(h, ""), 0, "append '' appends nothing");
    errno = 0;
    is_int(grove_hostlist_append(h, "n[1-"), -1, "append a bad string fails");
    is_int(errno, EINVAL, "... with EINVAL");
    is_int(grove_hostlist_count(h), 3, "... and leaves the list alone");
    is_int(grove_hostlist_append_list(h, h), 3, "append a list to itself");
    s = grove_hostlist_encode(h);
    is_str(s, "n[1-3,1-3]", "self-append");
    free(s);
    is_int(grove_hostlist_delete(h, "n2"), 1, "delete removes the first occurrence only");
    s = grove_hostlist_encode(h);
    is_str(s, "n[1,3,1-3]", "... n2 gone once");
    free(s);
    is_int(grove_hostlist_delete(h, "n3"), 1, "delete n3");
    s = grove_hostlist_encode(h);
    is_str(s, "n[1,1-3]", "... the first n3");
    free(s);
    is_int(grove_hostlist_delete_list(h, h), 4, "delete a list from itself");
    is_int(grove_hostlist_append(h, "a1,b,a2"), 3, "append a1,b,a2");
    is_int(grove_hostlist_delete(h, "b"), 1, "delete b");
    s = grove_hostlist_encode(h);
    is_str(s, "a[1-2]", "removing a whole range rejoins its neighbours");
    free(s);
    is_int(grove_hostlist_delete(h, "a[1-2]"), 2, "delete a[1-2]");
    is_int(grove_hostlist_count(h), 0, "... empties it");
    errno = 0;
    is_int(grove_hostlist_delete(h, "x[1-"), -1, "delete a bad string fails");
    is_int(grove_hostlist_append(h, "b,a,c"), 3, "append b,a,c");
    errno = 0;
    is_int(grove_hostlist_find(h, "a,b"), -1, "find a non-hostname");
    is_int(errno, EINVAL, "... is EINVAL");
    errno = 0;
    is_int(grove_hostlist_find(h, "z"), -1, "find an absent host");
    is_int(errno, ENOENT, "... is ENOENT");
    errno = 0;
    ok(grove_hostlist_nth(h, 3) == NULL && errno == ENOENT, "nth past the end is ENOENT");
    s = grove_hostlist_last(h);
    is_str(s, "c", "last");
    free(s);

    grove_hostlist_t *c = grove_hostlist_copy(h);
    ok(c && grove_hostlist_equal(c, h), "copy is equal");
    grove_hostlist_uniq(c);
    ok(!grove_hostlist_equal(c, h), "sorted copy differs in order");
    s = grove_hostlist_encode(c);
    is_str(s, "a,b,c", "uniq sorts");
    free(s);

    /* equal treats equivalent widths as equal */
    grove_hostlist_t *w1 = grove_hostlist_decode("n[10-12]", NULL);
    grove_hostlist_t *w2 = grove_hostlist_decode("n10,n11,n12", NULL);
    ok(grove_hostlist_equal(w1, w2), "n[10-12] equals n10,n11,n12");
    grove_hostlist_t *w3 = grove_hostlist_decode("f00[7-8]", NULL);
    grove_hostlist_t *w4 = grove_hostlist_decode("f007,f008", NULL);
    ok(grove_hostlist_equal(w3, w4), "f00[7-8] equals f007,f008");
    is_int(grove_hostlist_find(w3, "f008"), 1, "f00[7-8] contains f008");
    is_int(grove_hostlist_find(w3, "f08"), -1, "... not f08");

    /* iteration survives changes to the list */
    grove_hostlist_t *it_h = grove_hostlist_decode("a[1-5],b", NULL);
    grove_hostlist_iter_t it = GROVE_HOSTLIST_ITER_INIT;
    is_str(grove_hostlist_iter_next(it_h, &it), "a1", "iter a1");
    is_str(grove_hostlist_iter_next(it_h, &it), "a2", "iter a2");
    grove_hostlist_delete(it_h, "a[1-4]");
    const char *host = grove_hostlist_iter_next(it_h, &it);
    ok(host && !strcmp(host, "b"), "after deleting under the iterator it goes on: %s",
       host ? host : "(null)");
    errno = -1;
    ok(grove_hostlist_iter_next(it_h, &it) == NULL && errno == 0, "then ends with errno 0");
    grove_hostlist_iter_fini(&it);
    grove_hostlist_destroy(it_h);
    grove_hostlist_destroy(w1);
    grove_hostlist_destroy(w2);
    grove_hostlist_destroy(w3);
    grove_hostlist_destroy(w4);
    grove_hostlist_destroy(c);
    grove_hostlist_destroy(h);
}

/* NULL arguments, host names at their limits, and a list beyond the
 * per-range limit. */
static void test_api_edges(void)
{
    ok_destroy_null(grove_hostlist_destroy);
    errno = 0;
    ok(grove_hostlist_decode(NULL, NULL) == NULL && errno == EINVAL, "decode(NULL) is EINVAL");
    errno = 0;
    ok(grove_hostlist_encode(NULL) == NULL && errno == EINVAL, "encode(NULL) is EINVAL");
    errno = 0;
    ok(grove_hostlist_append(NULL, "a") < 0 && errno == EINVAL, "append to NULL is EINVAL");
    errno = 0;
    ok(grove_hostlist_sort(NULL) < 0 && errno == EINVAL, "sort(NULL) is EINVAL");
    ok(grove_hostlist_count(NULL) == 0 && !grove_hostlist_contains(NULL, "a"),
       "count/contains on NULL");
    grove_hostname_t hn;
    ok(grove_hostname_parse("", &hn) < 0 && grove_hostname_parse(NULL, &hn) < 0,
       "hostname '' and NULL are EINVAL");
    ok(grove_hostname_parse("x1234567890123456789", &hn) == 0 && hn.width == 0,
       "19 trailing digits are not a number");
    ok(grove_hostname_parse("123", &hn) == 0 && hn.prefix_len == 0 && hn.num == 123,
       "an all-digit name has an empty prefix");
    /* the length-taking form, which decode uses on names inside a list */
    ok(grove_hostname_parse_len("node007,x", 7, &hn) == 0 && hn.len == 7 && hn.prefix_len == 4
           && hn.num == 7 && hn.width == 3,
       "hostname_parse_len reads only len bytes");
    ok(grove_hostname_parse_len("node007,x", 9, &hn) < 0 && errno == EINVAL,
       "hostname_parse_len: a ',' within len is EINVAL");

    /* the limit on one range, and a list bigger than one range */
    grove_hostlist_t *big = grove_hostlist_decode("n[0-1048575],n[1048576-2000000]", NULL);
    ok(big && grove_hostlist_count(big) == 2000001, "ranges join beyond the per-range limit");
    char *s = grove_hostlist_encode(big);
    is_str(s, "n[0-2000000]", "... into one range");
    free(s);
    is_int(grove_hostlist_find(big, "n1999999"), 1999999, "find in a big range");

    grove_hostlist_destroy(big);
}

/* ---- naive reference ---------------------------------------------------- */

#define MAXH 512

struct ref {
    char *h[MAXH]; /* hosts in order */
    int n;
};

static void ref_add(struct ref *r, const char *s)
{
    if (r->n < MAXH)
        r->h[r->n++] = strdup(s);
}

static void ref_free(struct ref *r)
{
    for (int i = 0; i < r->n; i++)
        free(r->h[i]);
    r->n = 0;
}

static void put_padded(char *o, unsigned n, int w)
{
    sprintf(o, "%0*u", w, n);
}

/* Append a random expression to s and its hosts, rendered by RFC 29 rules
 * written out independently here, to r. */
static void random_expr(char *s, struct ref *r)
{
    static const char *prefixes[] = {"", "a", "n", "n0", "x-", "f00", "r1n", "a"};
    static const char *suffixes[] = {"", "", "", "", "-e", "p"};
    const char *pfx = prefixes[rnd(0, 7)];
    char host[128];
    if (rnd(0, 3) == 0) { /* a bare name */
        static const char *bare[] = {"a", "b1", "n05", "n5", "x-2", "f007", "login", "n10"};
        const char *b = bare[rnd(0, 7)];
        strcat(s, b);
        ref_add(r, b);
        return;
    }
    const char *sfx = suffixes[rnd(0, 5)];
    int nel = 1 + (int)rnd(0, 2), first_pad = 0;
    strcat(s, pfx);
    strcat(s, "[");
    for (int e = 0; e < nel; e++) {
        unsigned lo = rnd(0, 3) == 0 ? 95 + rnd(0, 9) : rnd(0, 13);
        unsigned len = rnd(0, 2) == 0 ? 0 : rnd(0, 5);
        unsigned hi = lo + len;
        int nd = lo >= 100 ? 3 : lo >= 10 ? 2 : 1;
        int lw = rnd(0, 2) == 0 ? nd + 1 + (int)rnd(0, 1) : nd; /* written width of lo */
        bool padded = lw > 1 && lw > nd;
        if (e == 0 && padded)
            first_pad = lw;
        int w = padded ? lw : (first_pad ? first_pad : lw);
        char num[32];
        if (e)
            strcat(s, ",");
        put_padded(num, lo, lw);
        strcat(s, num);
        if (hi > lo) {
            sprintf(num, "-%u", hi);
            strcat(s, num);
        }
        for (unsigned v = lo; v <= hi; v++) {
            char d[32];
            put_padded(d, v, w);
            snprintf(host, sizeof(host), "%s%s%s", pfx, d, sfx);
            ref_add(r, host);
        }
    }
    strcat(s, "]");
    strcat(s, sfx);
}

/* Sort key of a host name: prefix without trailing digits, plain before
 * numbered, then the digits by length and value (all independent of the
 * library). */
static int ref_cmp(const void *x, const void *y)
{
    const char *a = *(char *const *)x, *b = *(char *const *)y;
    size_t la = strlen(a), lb = strlen(b), ka = 0, kb = 0;
    while (ka < la && a[la - 1 - ka] >= '0' && a[la - 1 - ka] <= '9')
        ka++;
    while (kb < lb && b[lb - 1 - kb] >= '0' && b[lb - 1 - kb] <= '9')
        kb++;
    if (ka > 18)
        ka = 0;
    if (kb > 18)
        kb = 0;
    size_t pa = la - ka, pb = lb - kb, m = pa < pb ? pa : pb;
    int c = memcmp(a, b, m);
    if (c)
        return c;
    if (pa != pb)
        return pa < pb ? -1 : 1;
    if ((ka > 0) != (kb > 0))
        return ka > 0 ? 1 : -1;
    if (ka != kb)
        return ka < kb ? -1 : 1;
    return strcmp(a + pa, b + pb);
}

static char *ref_join(const struct ref *r)
{
    size_t len = 1;
    for (int i = 0; i < r->n; i++)
        len += strlen(r->h[i]) + 1;
    char *s = malloc(len);
    s[0] = '\0';
    for (int i = 0; i < r->n; i++) {
        if (i)
            strcat(s, ",");
        strcat(s, r->h[i]);
    }
    return s;
}

static bool check(bool cond, int *failures, const char *what, const char *input)
{
    if (!cond && (*failures)++ < 5)
        diag("mismatch in %s for '%s'", what, input);
    return cond;
}

/* Whether h expands to exactly the hosts of r, in order. */
static bool same_hosts(const grove_hostlist_t *h, const struct ref *r)
{
    char *want = ref_join(r), *got = expand(h);
    bool same = got && !strcmp(got, want);
    free(got);
    free(want);
    return same;
}

/* Whether h encodes to text that decodes to an equal list. */
static bool round_trips(const grove_hostlist_t *h)
{
    char *e = grove_hostlist_encode(h);
    grove_hostlist_t *d = e ? grove_hostlist_decode(e, NULL) : NULL;
    bool same = d && grove_hostlist_equal(d, h);
    grove_hostlist_destroy(d);
    free(e);
    return same;
}

static void test_reference(void)
{
    const int trials = 600;
    int failures = 0;
    for (int t = 0; t < trials; t++) {
        char s[512] = "";
        struct ref r = {.n = 0};
        int nexpr = (int)rnd(0, 4);
        for (int e = 0; e < nexpr; e++) {
            if (e)
                strcat(s, ",");
            random_expr(s, &r);
        }
        grove_error_t err = {{0}, 0};
        grove_hostlist_t *h = grove_hostlist_decode(s, &err);
        if (!check(h != NULL, &failures, "decode", s)) {
            diag("%s", err.text);
            ref_free(&r);
            continue;
        }
        char *want = ref_join(&r), *got = expand(h);
        check(!strcmp(got, want) && grove_hostlist_count(h) == (size_t)r.n, &failures,
              "expansion", s);
        free(got);
        /* nth and find agree with the array */
        for (int i = 0; i < r.n; i++) {
            char *x = grove_hostlist_nth(h, (size_t)i);
            int first;
            for (first = 0; strcmp(r.h[first], r.h[i]); first++)
                ;
            check(x && !strcmp(x, r.h[i]), &failures, "nth", s);
            check(grove_hostlist_find(h, r.h[i]) == first, &failures, "find", s);
            free(x);
        }
        /* the encoding decodes to the same hosts */
        char *e = grove_hostlist_encode(h);
        grove_hostlist_t *d = grove_hostlist_decode(e, NULL);
        got = d ? expand(d) : NULL;
        check(got && !strcmp(got, want) && grove_hostlist_equal(h, d), &failures,
              "encode round trip", s);
        free(got);
        free(e);
        grove_hostlist_destroy(d);
        free(want);
        /* delete a random sample: the first occurrence of each */
        if (r.n > 0) {
            struct ref del = {.n = 0};
            int k = 1 + (int)rnd(0, 3);
            for (int i = 0; i < k; i++)
                ref_add(&del, r.h[rnd(0, r.n - 1)]);
            ref_add(&del, "zz9");
            char *dels = ref_join(&del);
            grove_hostlist_t *hd = grove_hostlist_copy(h);
            int removed = grove_hostlist_delete(hd, dels);
            struct ref rest = {.n = 0};
            bool gone[MAXH] = {false};
            int want_removed = 0;
            for (int i = 0; i < del.n; i++)
                for (int j = 0; j < r.n; j++)
                    if (!gone[j] && !strcmp(r.h[j], del.h[i])) {
                        gone[j] = true;
                        want_removed++;
                        break;
                    }
            for (int j = 0; j < r.n; j++)
                if (!gone[j])
                    ref_add(&rest, r.h[j]);
            check(removed == want_removed && same_hosts(hd, &rest), &failures, "delete", s);
            check(round_trips(hd), &failures, "round trip after delete", s);
            free(dels);
            ref_free(&del);
            ref_free(&rest);
            grove_hostlist_destroy(hd);
        }
        /* sort, then uniq */
        qsort(r.h, (size_t)r.n, sizeof(r.h[0]), ref_cmp);
        grove_hostlist_sort(h);
        check(same_hosts(h, &r), &failures, "sort", s);
        check(round_trips(h), &failures, "round trip after sort", s);
        int m = 0;
        for (int i = 0; i < r.n; i++) {
            if (m > 0 && !strcmp(r.h[m - 1], r.h[i])) {
                free(r.h[i]);
                continue;
            }
            r.h[m++] = r.h[i];
        }
        r.n = m;
        grove_hostlist_uniq(h);
        check(same_hosts(h, &r) && grove_hostlist_count(h) == (size_t)r.n, &failures, "uniq", s);
        ref_free(&r);
        grove_hostlist_destroy(h);
    }
    ok(failures == 0, "%d random lists: expansion, nth, find, round trip, delete, sort, uniq "
                      "agree with an array of strings", trials);
}

/* ---- garbage ------------------------------------------------------------ */

/* One garbage string: refused with a position, or decoded to a list that
 * round-trips and whose queries agree. */
static int garbage_one(const char *buf, size_t len)
{
    grove_error_t err = {{0}, 0};
    grove_hostlist_t *h = grove_hostlist_decode_len(buf, len, &err);
    if (!h)
        return (errno == EINVAL || errno == ERANGE) && strstr(err.text, "at position")
                   ? CORPUS_REFUSED
                   : CORPUS_BAD;
    int bad = 0;
    char *e = grove_hostlist_encode(h);
    grove_hostlist_t *d = e ? grove_hostlist_decode(e, NULL) : NULL;
    if (!d || !grove_hostlist_equal(h, d))
        bad++;
    if (grove_hostlist_count(h) > 0) {
        char *x = grove_hostlist_last(h);
        if (!x || grove_hostlist_find(h, x) < 0)
            bad++;
        free(x);
    }
    /* every host of the sorted multiset minus one of each distinct host */
    size_t all = grove_hostlist_count(h);
    if (grove_hostlist_sort(d) < 0 || grove_hostlist_uniq(h) < 0
        || grove_hostlist_delete_list(d, h) != (int)grove_hostlist_count(h)
        || grove_hostlist_count(d) != all - grove_hostlist_count(h))
        bad++;
    free(e);
    grove_hostlist_destroy(d);
    grove_hostlist_destroy(h);
    return bad ? CORPUS_BAD : CORPUS_DECODED;
}

static void test_garbage(void)
{
    corpus_garbage_run(48, "ab0123456789,,[[]]--- x\t", 10, 20000, garbage_one);
}

/* Hosts named one by one (a suffix after the brackets) are held to
 * GROVE_MAX_MEMBERS, summed over the list; numbered runs are not (they
 * cost a range each, whatever their length). */
static void test_members_limit(void)
{
    setenv("GROVE_MAX_MEMBERS", "1000", 1);
    grove_error_t err = {{0}, 0};
    grove_hostlist_t *h = grove_hostlist_decode("n[0-999]-ib", &err);
    ok(h && grove_hostlist_count(h) == 1000, "limit: 1000 hosts with a suffix, at the limit");
    grove_hostlist_destroy(h);
    h = grove_hostlist_decode("n[0-1000]-ib", &err);
    ok(!h && errno == EOVERFLOW && strstr(err.text, "more than 1000 hosts one by one")
           && strstr(err.text, "GROVE_MAX_MEMBERS"),
       "limit: 1001 hosts with a suffix refused: %s", err.text);
    h = grove_hostlist_decode("a[0-600]x,b[0-600]y", &err);
    ok(!h && errno == EOVERFLOW, "limit: summed over the list's expressions (%s)", err.text);
    h = grove_hostlist_decode("n[0-500000]", &err);
    ok(h && grove_hostlist_count(h) == 500001, "limit: a numbered run is not held to it");
    grove_hostlist_destroy(h);
    unsetenv("GROVE_MAX_MEMBERS");
    h = grove_hostlist_decode("n[0-1000]-ib", &err);
    ok(h && grove_hostlist_count(h) == 1001, "limit: the default takes them");
    grove_hostlist_destroy(h);
}

int main(void)
{
    rng_state = 0x2545f4914f6cdd1dULL;
    test_conformance();
    test_rows();
    test_api();
    test_api_edges();
    test_reference();
    test_garbage();
    test_members_limit();
    return done_testing();
}
