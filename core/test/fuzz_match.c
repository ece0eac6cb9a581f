/* fuzz_match.c: libFuzzer target for the matcher fed with fuzzed
 * jobspecs.
 *
 * Every input the jobspec reader accepts is matched against a small
 * cluster (two racks of two nodes, two sockets of four cores, a GPU and
 * memory each) in every mode, the jobs it allocates are cancelled, and the
 * graph must then be as it was: counts multiplied past the int64 range,
 * empty requests and the like must be refused or matched, never overflow
 * or touch memory they should not.  Built by scripts/fuzz, not by the
 * Makefile's test rules.
 *
 * It holds only the fuzz entry point: no TAP output, no checks that belong
 * in test_match.c, no main().
 *
 * FUZZ_SEEDS: fluxcore/jobspec fluxion/jobspecs rfc/spec_14 rfc/spec_25
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grovetest.h"
#include "match.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static grove_graph_t *graph;
static char *before;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!graph) {
        test_shape_t sh = {.basename = "fz", .nodes = 4, .per_rack = 2, .sockets = 2,
                           .cores = 4, .gpus = 1, .mems = 1, .mem_size = 16, .mem_unit = "GB"};
        graph = test_cluster(&sh);
        before = test_state_text(graph);
    }
    grove_jobspec_opts_t o = {0, "fuzz", NULL, 0};
    grove_error_t err;
    grove_jobspec_t *js = grove_jobspec_parse((const char *)data, size, &o, &err);
    if (!js)
        return 0;
    grove_matcher_t *m = grove_matcher_create(graph, NULL);
    if (!m)
        abort();
    static const grove_match_mode_t modes[] = {
        GROVE_MATCH_SATISFIABILITY, GROVE_MATCH_WITHOUT_ALLOCATING, GROVE_MATCH_ALLOCATE,
        GROVE_MATCH_ALLOCATE_ORELSE_RESERVE, GROVE_MATCH_ALLOCATE_WITH_SAT};
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        const grove_job_t *j = NULL;
        if (grove_match(m, js, modes[i], 0, &j, &err) < 0 && !err.text[0])
            abort(); /* a refusal says why */
    }
    while (grove_matcher_job_count(m) > 0)
        if (grove_matcher_cancel(m, grove_matcher_job_at(m, 0)->id) < 0)
            abort();
    grove_matcher_destroy(m);
    grove_jobspec_destroy(js);
    char *after = test_state_text(graph);
    if (strcmp(before, after))
        abort(); /* cancelling every job gives the graph back as it was */
    free(after);
    return 0;
}
