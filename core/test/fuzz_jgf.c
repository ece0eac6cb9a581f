/* fuzz_jgf.c: libFuzzer target for the JGF reader and writer.
 *
 * Every input is read as JGF text, and (when jansson parses it) from the
 * json_t too.  A graph either reader accepts is written (indented, then
 * compact with state), read back and written again: the reader must accept
 * what the writer makes, and the second write must give the same bytes.
 * Jobs matched on it must be written as a state file that reads back
 * (fuzz_state.h).  Built by scripts/fuzz, not by the Makefile's test
 * rules.
 *
 * It holds only the fuzz entry point: no TAP output, no checks that belong
 * in test_jgf.c, no main().
 *
 * FUZZ_SEEDS: fluxion/jgfs fluxion/rv1exec
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_state.h"
#include "jgf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const grove_graph_t *g, int flags)
{
    grove_error_t err;
    char *t1 = grove_jgf_write(g, flags);
    if (!t1)
        abort();
    grove_graph_t *g2 = grove_jgf_read(t1, strlen(t1), "w1", &err);
    if (!g2)
        abort(); /* the reader refused what the writer made */
    char *t2 = grove_jgf_write(g2, flags);
    if (!t2 || strcmp(t1, t2))
        abort(); /* not stable */
    free(t1);
    free(t2);
    grove_graph_destroy(g2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    grove_error_t err;
    grove_graph_t *g = grove_jgf_read((const char *)data, size, "fuzz", &err);
    if (g) {
        round_trip(g, 0);
        round_trip(g, GROVE_JGF_COMPACT | GROVE_JGF_WITH_STATE);
        fuzz_state_round_trip(g);
        grove_graph_destroy(g);
    } else if (!err.text[0]) {
        abort(); /* a refusal must say why */
    }
    json_error_t jerr;
    json_t *j = json_loadb((const char *)data, size, 0, &jerr);
    if (j) {
        g = grove_jgf_read_json(j, "fuzz", &err);
        if (g) {
            round_trip(g, GROVE_JGF_COMPACT);
            grove_graph_destroy(g);
        }
        json_decref(j);
    }
    return 0;
}
