/* fuzz_idset.c: libFuzzer target for the RFC 22 idset reader.
 *
 * Every input is decoded; an accepted set is encoded, decoded again and
 * must be equal, and its count, first and last must agree with an
 * iteration of (at most) its first members.  A refusal must say why.
 * Built by scripts/fuzz, not by the Makefile's test rules.
 *
 * It holds only the reader's call and the checks of what it accepts (the
 * entry point is fuzz_reader.h's): no TAP output, no checks that belong
 * in test_idset.c, no main().
 *
 * Seeds: core/test/fuzz/seeds/idset (from the conformance idset.tsv).
 */
#include <stdlib.h>
#include <string.h>

#include "idset.h"
#include "fuzz_reader.h"

static void *fuzz_read(const char *data, size_t size, grove_error_t *err)
{
    return grove_idset_decode_len(data, size, err);
}

static void fuzz_accepted(void *obj)
{
    grove_idset_t *s = obj;
    grove_error_t err;
    for (int flags = 0; flags < 4; flags++) {
        if (!(flags & GROVE_IDSET_FLAG_RANGE) && grove_idset_count(s) > 100000)
            continue; /* a list of every member: bounded by the writer, not here */
        char *t = grove_idset_encode(s, flags);
        if (!t)
            abort();
        grove_idset_t *s2 = grove_idset_decode(t, &err);
        if (!s2 || !grove_idset_equal(s, s2))
            abort(); /* what the writer makes reads back the same */
        grove_idset_destroy(s2);
        free(t);
    }
    size_t n = 0;
    unsigned last = 0;
    for (unsigned id = grove_idset_first(s); id != GROVE_IDSET_INVALID && n < 1000;
         id = grove_idset_next(s, id), n++)
        last = id;
    if (grove_idset_count(s) < n || (n && n == grove_idset_count(s) && last != grove_idset_last(s)))
        abort();
    grove_idset_destroy(s);
}
