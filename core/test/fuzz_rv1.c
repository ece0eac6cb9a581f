/* fuzz_rv1.c: libFuzzer target for the R v1 reader (RFC 20).
 *
 * Every input is decoded; an accepted R is encoded, decoded again and must
 * be equal, then built into a graph (what `grove query -f rv1exec` does)
 * within the reader's limits: an R that names billions of resources must
 * be refused, not built.  A refusal must say why.  Built by scripts/fuzz,
 * not by the Makefile's test rules.
 *
 * It holds only the reader's call and the checks of what it accepts (the
 * entry point is fuzz_reader.h's): no TAP output, no checks that belong
 * in test_rv1.c, no main().
 *
 * FUZZ_SEEDS: fluxion/rv1exec rfc/spec_20
 */
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "aggregate.h"
#include "pool.h"
#include "walker.h"
#include "compose.h"
#include "rv1.h"
#include "fuzz_reader.h"

static void *fuzz_read(const char *data, size_t size, grove_error_t *err)
{
    return grove_rv1_decode(data, size, "fuzz", err);
}

static void fuzz_accepted(void *obj)
{
    grove_rv1_t *R = obj;
    grove_error_t err;
    char *t = grove_rv1_encode(R, 0);
    if (!t)
        abort();
    grove_rv1_t *R2 = grove_rv1_decode(t, strlen(t), "w1", &err);
    if (!R2 || !grove_rv1_equal(R, R2))
        abort(); /* what the writer makes reads back the same */
    grove_graph_t *g = grove_rv1_to_graph(R, &err);
    if (!g && !err.text[0])
        abort();
    grove_graph_destroy(g);
    grove_rv1_destroy(R2);
    grove_rv1_destroy(R);
    free(t);
}
