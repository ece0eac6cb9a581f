/* bench_idset.c: throughput of the idset and hostlist codecs and queries.
 *
 * Workloads modelled on R and nodelists of a large machine: a fragmented
 * idset of 100k runs, set algebra between two such sets, a 16k-node
 * hostlist decoded, encoded, searched and sorted.  Prints one line per
 * measurement (operations per second); exits non-zero if a result is wrong.
 *
 * It must not check more than the results it times (the tests do that)
 * nor hold a generator of its own.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hostlist.h"
#include "idset.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void report(const char *what, double t0, long ops)
{
    double dt = now() - t0;
    printf("%-40s %10ld ops %8.3f s %12.0f ops/s\n", what, ops, dt, (double)ops / dt);
}

int main(void)
{
    /* A fragmented set: runs of 3 every 5 ids, 100k runs. */
    grove_idset_t *a = grove_idset_create(), *b = grove_idset_create();
    for (unsigned i = 0; i < 100000; i++) {
        grove_idset_range_set(a, i * 5, i * 5 + 2);
        grove_idset_range_set(b, i * 5 + 1, i * 5 + 3);
    }
    double t0 = now();
    char *e = NULL;
    for (int k = 0; k < 20; k++) {
        free(e);
        e = grove_idset_encode(a, GROVE_IDSET_FLAG_RANGE);
    }
    report("idset encode (100k runs)", t0, 20);
    t0 = now();
    for (int k = 0; k < 20; k++)
        grove_idset_destroy(grove_idset_decode(e, NULL));
    report("idset decode (100k runs)", t0, 20);
    free(e);
    t0 = now();
    size_t hits = 0, want_hits = 0;
    for (unsigned i = 0; i < 2000000; i++)
        hits += grove_idset_test(a, (i * 2654435761u) % 500000);
    report("idset test (100k runs)", t0, 2000000);
    for (unsigned i = 0; i < 2000000; i++)
        want_hits += (i * 2654435761u) % 500000 % 5 < 3;
    t0 = now();
    grove_idset_t *u = NULL;
    for (int k = 0; k < 50; k++) {
        grove_idset_destroy(u);
        u = grove_idset_intersect(a, b);
    }
    report("idset intersect (100k x 100k runs)", t0, 50);
    int bad = grove_idset_count(u) != 200000;

    /* A machine's nodelist. */
    grove_hostlist_t *h = grove_hostlist_decode("node[0-16383]", NULL);
    grove_hostlist_delete(h, "node[100-200],node[5000-5003],node7777");
    char *hs = grove_hostlist_encode(h);
    t0 = now();
    for (int k = 0; k < 20000; k++)
        grove_hostlist_destroy(grove_hostlist_decode(hs, NULL));
    report("hostlist decode (16k hosts, 4 ranges)", t0, 20000);
    t0 = now();
    long found = 0, want_found = 0;
    for (int k = 0; k < 1000000; k++) {
        char name[32];
        int m = k % 16384;
        snprintf(name, sizeof(name), "node%d", m);
        found += grove_hostlist_find(h, name) >= 0;
        want_found += !((m >= 100 && m <= 200) || (m >= 5000 && m <= 5003) || m == 7777);
    }
    report("hostlist find", t0, 1000000);
    t0 = now();
    grove_hostlist_iter_t it = GROVE_HOSTLIST_ITER_INIT;
    long n = 0;
    while (grove_hostlist_iter_next(h, &it))
        n++;
    grove_hostlist_iter_fini(&it);
    report("hostlist iterate", t0, n);
    grove_hostlist_t *rev = grove_hostlist_create();
    for (int k = 16383; k >= 0; k -= 2) {
        char name[32];
        snprintf(name, sizeof(name), "node%d", k);
        grove_hostlist_append(rev, name);
    }
    t0 = now();
    grove_hostlist_uniq(rev);
    report("hostlist uniq (8k single-host ranges)", t0, 1);
    bad |= n != 16384 - 106 || found != want_found || grove_hostlist_count(rev) != 8192
           || hits != want_hits;
    if (bad)
        printf("wrong results: idset test hits %zu, iterated %ld, found %ld of %ld\n", hits, n,
               found, want_found);
    free(hs);
    grove_hostlist_destroy(rev);
    grove_hostlist_destroy(h);
    grove_idset_destroy(u);
    grove_idset_destroy(a);
    grove_idset_destroy(b);
    return bad;
}
