/* fuzz_grug.c: libFuzzer target for the GRUG (GraphML recipe) reader.
 *
 * Every input is expanded under a vertex limit of 100,000 (a recipe past
 * it must be refused at once, not built); a graph it accepts is written
 * as JGF with state and must read back, and jobs matched on it must be
 * written as a state file that reads back (fuzz_state.h).  A refusal must
 * say why.  Built by scripts/fuzz, not by the Makefile's test rules.
 *
 * It holds only the reader's call and the checks of what it accepts (the
 * entry point is fuzz_reader.h's): no TAP output, no checks that belong
 * in test_grug.c, no main().
 *
 * FUZZ_SEEDS: fluxion/grugs
 * FUZZ_EXT: graphml
 */
#include <stdlib.h>
#include <string.h>

#include "grug.h"
#include "jgf.h"
#include "fuzz_reader.h"
#include "fuzz_state.h"

static void *fuzz_read(const char *data, size_t size, grove_error_t *err)
{
    grove_grug_opts_t o = {NULL, GROVE_GRUG_RANK_NODES, 0, 100000, NULL};
    return grove_grug_read(data, size, "fuzz", &o, err);
}

static void fuzz_accepted(void *obj)
{
    grove_graph_t *g = obj;
    grove_error_t err;
    char *t = grove_jgf_write(g, GROVE_JGF_COMPACT | GROVE_JGF_WITH_STATE);
    if (!t)
        abort();
    grove_graph_t *g2 = grove_jgf_read(t, strlen(t), "w1", &err);
    if (!g2)
        abort(); /* the JGF reader refused what the writer made of a recipe */
    grove_graph_destroy(g2);
    fuzz_state_round_trip(g);
    grove_graph_destroy(g);
    free(t);
}
