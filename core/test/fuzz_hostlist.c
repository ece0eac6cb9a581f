/* fuzz_hostlist.c: libFuzzer target for the RFC 29 hostlist reader.
 *
 * Every input is decoded; an accepted list is encoded, decoded again and
 * must be the same list (count, and every one of its first hosts by nth).
 * A refusal must say why.  Built by scripts/fuzz, not by the Makefile's
 * test rules.  Seeds: core/test/fuzz/seeds/hostlist (from the conformance
 * hostlist.tsv).
 *
 * It holds only the reader's call and the checks of what it accepts (the
 * entry point is fuzz_reader.h's): no TAP output, no checks that belong
 * in test_hostlist.c, no main().
 */
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "fuzz_reader.h"

static void *fuzz_read(const char *data, size_t size, grove_error_t *err)
{
    return grove_hostlist_decode_len(data, size, err);
}

/* Most hosts a list may hold for the round trip.  The encoding of a list
 * whose names do not fold into ranges holds every name: 114 bytes such as
 * "[0-830636]$p}}}..." make 830,637 names of 110 bytes, 91 MB to write
 * and read back, which took libFuzzer past its 10 s limit under ASAN on a
 * loaded machine.  Reading such a list is still fuzzed (the reader holds
 * hosts named one by one to GROVE_MAX_MEMBERS, which scripts/fuzz lowers:
 * 830,637 of them alone took 5 s to read there); its round trip is work
 * in proportion to the output, not a fault. */
#define ROUND_TRIP_MAX 100000

static void fuzz_accepted(void *obj)
{
    grove_hostlist_t *h = obj;
    grove_error_t err;
    if (grove_hostlist_count(h) > ROUND_TRIP_MAX) {
        grove_hostlist_destroy(h);
        return;
    }
    char *t = grove_hostlist_encode(h);
    if (!t)
        abort();
    grove_hostlist_t *h2 = grove_hostlist_decode(t, &err);
    if (!h2 || grove_hostlist_count(h2) != grove_hostlist_count(h))
        abort(); /* what the writer makes reads back the same */
    size_t n = grove_hostlist_count(h);
    for (size_t i = 0; i < n && i < 64; i++) {
        char *a = grove_hostlist_nth(h, i), *b = grove_hostlist_nth(h2, i);
        if (!a || !b || strcmp(a, b))
            abort();
        free(a);
        free(b);
    }
    grove_hostlist_destroy(h2);
    grove_hostlist_destroy(h);
    free(t);
}
