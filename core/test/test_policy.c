/* test_policy.c: the built-in policies' helpers that need no graph.
 *
 * 1. grove_policy_ref_sort against orders taken from the reference
 *    engine's C++ library sort (std::sort, an introsort) on the same keys:
 *    under 17 elements it is an insertion sort (stable); past 16 equal
 *    keys come out in the order its partitions leave them, which is what
 *    the matcher must reproduce for ties among slots;
 * 2. sorted keys ascend for random inputs of every size up to 300, and
 *    the result is a permutation.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "rng.h"
#include "tap.h"

static bool same(const size_t *a, const size_t *b, size_t n)
{
    return !memcmp(a, b, n * sizeof(*a));
}

static void test_reference_orders(void)
{
    /* 40 keys (i * 7) % 4: std::sort's order, printed by a C++ program */
    static const size_t want40[40] = {0,  36, 4,  32, 28, 8,  24, 12, 20, 16, 39, 35, 31, 27,
                                      23, 19, 15, 7,  3,  11, 10, 6,  30, 34, 26, 2,  22, 38,
                                      14, 18, 1,  37, 33, 5,  29, 9,  25, 21, 13, 17};
    size_t idx[40];
    double key[40];
    for (size_t i = 0; i < 40; i++) {
        idx[i] = i;
        key[i] = (double)((i * 7) % 4);
    }
    grove_policy_ref_sort(idx, 40, key);
    ok(same(idx, want40, 40), "40 keys of 4 values: std::sort's order of the ties");

    /* 24 equal keys: the partition moves them (node1's slot before node0's) */
    static const size_t want24[24] = {12, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13,
                                      0,  11, 10, 9,  8,  7,  6,  5,  4,  3,  2,  1};
    for (size_t i = 0; i < 24; i++) {
        idx[i] = i;
        key[i] = 1;
    }
    grove_policy_ref_sort(idx, 24, key);
    ok(same(idx, want24, 24), "24 equal keys: std::sort's order");

    /* 16 equal keys: insertion sort only, the order stays */
    for (size_t i = 0; i < 16; i++)
        idx[i] = i;
    grove_policy_ref_sort(idx, 16, key);
    bool kept = true;
    for (size_t i = 0; i < 16; i++)
        kept = kept && idx[i] == i;
    ok(kept, "16 equal keys: stable");
}

static void test_random(void)
{
    rng_state = 15;
    bool sorted = true, perm = true;
    for (size_t n = 0; n <= 300; n++) {
        size_t *idx = malloc((n ? n : 1) * sizeof(*idx));
        double *key = malloc((n ? n : 1) * sizeof(*key));
        bool *seen = calloc(n ? n : 1, sizeof(*seen));
        for (size_t i = 0; i < n; i++) {
            idx[i] = i;
            key[i] = (double)(rng_next() % (n % 7 + 1));
        }
        grove_policy_ref_sort(idx, n, key);
        for (size_t i = 0; i < n; i++) {
            if (idx[i] >= n || seen[idx[i]])
                perm = false;
            else
                seen[idx[i]] = true;
            if (i && key[idx[i - 1]] > key[idx[i]])
                sorted = false;
        }
        free(idx);
        free(key);
        free(seen);
    }
    ok(sorted, "random keys, n = 0..300: ascending");
    ok(perm, "random keys: a permutation of the indices");
}

int main(void)
{
    test_reference_orders();
    test_random();
    return done_testing();
}
