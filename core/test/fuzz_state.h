/* fuzz_state.h: what the graph readers' fuzz targets (fuzz_grug.c,
 * fuzz_jgf.c) do with a graph they accept besides writing it: match jobs
 * on it (a core, then a whole node now or reserved, in the modes that keep
 * a job and in those that do not), write the state with the matcher's job
 * table to a file and read it back, which must succeed (the reader checks
 * every vertex's records and every job against what was written), then
 * cancel every job.
 *
 * It holds only that sequence; the reader's own checks stay in the
 * targets.  Include it once, in a target of scripts/fuzz (never in a test
 * of the Makefile's).
 */
#ifndef GROVE_FUZZ_STATE_H
#define GROVE_FUZZ_STATE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "match.h"
#include "store.h"

static const char *const fuzz_state_specs[] = {
    "{\"version\":1,\"resources\":[{\"type\":\"slot\",\"count\":1,\"label\":\"t\",\"with\":"
    "[{\"type\":\"core\",\"count\":1}]}],\"tasks\":[{\"command\":[\"x\"],\"slot\":\"t\","
    "\"count\":{\"per_slot\":1}}],\"attributes\":{\"system\":{\"duration\":100}}}",
    "{\"version\":1,\"resources\":[{\"type\":\"node\",\"count\":1,\"with\":[{\"type\":\"slot\","
    "\"count\":1,\"label\":\"t\",\"with\":[{\"type\":\"core\",\"count\":1}]}]}],\"tasks\":"
    "[{\"command\":[\"x\"],\"slot\":\"t\",\"count\":{\"per_slot\":1}}],\"attributes\":"
    "{\"system\":{\"duration\":50}}}",
};

/* The scratch file of this process's states. */
static const char *fuzz_state_path(void)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof(path), "%s/grove-fuzz-state-%ld.json",
                 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (long)getpid());
    return path;
}

/* Match on g, write the state, read it back; abort on a failure. */
static void fuzz_state_round_trip(grove_graph_t *g)
{
    static const grove_match_mode_t modes[] = {
        GROVE_MATCH_SATISFIABILITY, GROVE_MATCH_WITHOUT_ALLOCATING, GROVE_MATCH_ALLOCATE,
        GROVE_MATCH_ALLOCATE_ORELSE_RESERVE};
    grove_error_t err;
    grove_matcher_t *m = grove_matcher_create(g, NULL);
    if (!m)
        abort();
    for (size_t s = 0; s < sizeof(fuzz_state_specs) / sizeof(fuzz_state_specs[0]); s++) {
        const char *text = fuzz_state_specs[s];
        grove_jobspec_t *js = grove_jobspec_parse(text, strlen(text), NULL, &err);
        if (!js)
            abort();
        for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
            if (grove_match(m, js, modes[i], 0, NULL, &err) < 0 && !err.text[0])
                abort(); /* a refusal says why */
        grove_jobspec_destroy(js);
    }
    const char *path = fuzz_state_path();
    if (grove_store_write_file(path, g, m, NULL, &err) == 0) {
        grove_image_t *im = grove_image_read_file(path, &err);
        if (!im)
            abort(); /* the reader refused what the writer wrote */
        grove_matcher_t *m2 = grove_matcher_create(grove_image_graph(im), NULL);
        if (!m2 || grove_image_restore_jobs(im, m2, &err) < 0
            || grove_matcher_job_count(m2) != grove_matcher_job_count(m))
            abort(); /* the records or the jobs did not read back */
        grove_matcher_destroy(m2);
        grove_image_destroy(im);
    } else if (!err.text[0]) {
        abort();
    }
    unlink(path);
    while (grove_matcher_job_count(m) > 0)
        if (grove_matcher_cancel(m, grove_matcher_job_at(m, 0)->id) < 0)
            abort();
    grove_matcher_destroy(m);
}

#endif
