/* fuzz_jobspec.c: libFuzzer target for the jobspec reader and validator,
 * the count parser and the constraint compiler.
 *
 * Every input is read as a jobspec (YAML or JSON, sniffed) under the
 * canonical rules; accepted inputs are read again under the V1 and unique-
 * label rules, and their whole request tree is walked through the public
 * accessors (counts iterated and fitted, constraints evaluated) so that a
 * tree that validates but is inconsistent shows up here.  Short inputs are
 * also fed to the count and constraint parsers directly.  Built by
 * scripts/fuzz, not by the Makefile's test rules.
 *
 * It holds only the fuzz entry point: no TAP output, no checks that belong
 * in test_jobspec.c, no main().
 *
 * FUZZ_SEEDS: fluxcore/jobspec fluxion/jobspecs rfc/spec_14 rfc/spec_25
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobspec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk_count(const grove_count_t *c, uint64_t limit)
{
    uint64_t v = c->min, got;
    char *s = grove_count_encode(c);
    free(s);
    for (int i = 0; i < 8 && v != GROVE_COUNT_INF; i++) {
        if (!grove_count_contains(c, v))
            abort(); /* next() must only yield members */
        uint64_t n = grove_count_next(c, v);
        if (n != GROVE_COUNT_INF && n <= v)
            abort(); /* and strictly increase */
        v = n;
    }
    if (grove_count_fit(c, limit, &got) && (got > limit || !grove_count_contains(c, got)))
        abort();
}

static void walk(const grove_jobspec_t *js, uint64_t limit)
{
    static const char *const props[] = {"ssd", "gpu", "foo"};
    grove_constraint_subject_t subj = {props, 3, NULL, NULL, "node1", 3};
    size_t n = grove_jobspec_resource_total(js);

    for (size_t i = 0; i < n; i++) {
        const grove_jobspec_resource_t *r = grove_jobspec_resource_at(js, i);
        const grove_jobspec_resource_t *c = grove_jobspec_resource_child(r);
        if (grove_jobspec_resource_index(r) != i || !grove_jobspec_resource_type(r))
            abort();
        for (; c; c = grove_jobspec_resource_next(c))
            if (grove_jobspec_resource_parent(c) != r)
                abort();
        (void)grove_jobspec_resource_exclusive(r);
        walk_count(grove_jobspec_resource_count(r), limit);
    }
    for (size_t i = 0; i < grove_jobspec_task_count(js); i++) {
        const grove_jobspec_task_t *t = grove_jobspec_task(js, i);
        uint64_t k;
        const char *type;
        if (grove_jobspec_task_argc(t) == 0 || !grove_jobspec_task_slot(t))
            abort();
        (void)grove_jobspec_task_count_kind(t, &k, &type);
    }
    (void)grove_constraint_match(grove_jobspec_constraint(js), &subj);
    for (size_t i = 0; i < grove_jobspec_warning_count(js); i++)
        if (!grove_jobspec_warning(js, i))
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    grove_jobspec_opts_t o = {0, "fuzz", NULL, 0};
    grove_error_t err;
    const char *text = (const char *)data;
    uint64_t limit = size * 7 + 1;

    grove_jobspec_t *js = grove_jobspec_parse(text, size, &o, &err);
    if (js) {
        walk(js, limit);
        grove_jobspec_destroy(js);
        o.flags = GROVE_JOBSPEC_V1 | GROVE_JOBSPEC_UNIQUE_LABELS;
        js = grove_jobspec_parse(text, size, &o, &err);
        if (js)
            walk(js, limit);
        grove_jobspec_destroy(js);
    }
    else if (err.text[0] == '\0')
        abort(); /* every refusal says why */

    if (size <= 512) {
        char *s = malloc(size + 1);
        if (!s)
            return 0;
        memcpy(s, data, size);
        s[size] = '\0';
        grove_count_t c;
        if (grove_count_parse(&c, s, &err) == 0) {
            walk_count(&c, limit);
            grove_count_clear(&c);
        }
        grove_constraint_t *k = grove_constraint_parse(s, &err);
        if (k) {
            grove_constraint_subject_t subj = {NULL, 0, NULL, NULL, s, (int64_t)size};
            (void)grove_constraint_match(k, &subj);
            json_decref(grove_constraint_to_json(k));
            grove_constraint_destroy(k);
        }
        free(s);
    }
    return 0;
}
