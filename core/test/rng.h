/* rng.h: the one seeded random generator of Grove's C tests and
 * benchmarks (the planner references, the random graphs of test_graph and
 * test_rv1, the garbage strings of corpus.h, bench_planner).
 *
 * A splitmix64 stream: the same seed gives the same sequence on every
 * compiler and machine, so a failing random session can be replayed from
 * the seed a test prints.  Header-only, like tap.h; it holds nothing but
 * the generator (no references, no test helpers, no second generator).
 */
#ifndef GROVE_TEST_RNG_H
#define GROVE_TEST_RNG_H

#include <stdint.h>

static uint64_t rng_state; /* set it to the seed before the first draw */

static inline uint64_t rng_next(void)
{
    uint64_t z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static inline int64_t rnd(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rng_next() % (uint64_t)(hi - lo + 1));
}

#endif
