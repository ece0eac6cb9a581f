/* test_jobspec.c: jobspec reading and validation, counts, constraints.
 *
 * Corpus: every fluxcore valid* file accepted and every invalid* file refused
 * under the right validator; every scheduler jobspec parses except those
 * there to be refused; the RFC examples parse.  Then table rows: error
 * messages (path and line), counts, constraint evaluation (with the empty
 * operand rules), the request tree and its exclusivity.
 *
 * It must not hold matcher tests: a jobspec here is only read and
 * checked, never matched.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "jobspec.h"
#include "tap.h"
#include "corpus.h"

/* ---- corpus ---------------------------------------------------------- */

static int cmpstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files under dir ending in .yaml (recursively when deep), sorted; returns
 * the count and a malloc'd array of malloc'd paths. */
static size_t list_yaml(const char *dir, bool deep, char ***out)
{
    size_t n = 0, cap = 0;
    char **v = NULL;
    char *stack[64];
    int sp = 0;
    stack[sp++] = strdup(dir);
    while (sp > 0) {
        char *d = stack[--sp];
        DIR *dh = opendir(d);
        struct dirent *e;
        while (dh && (e = readdir(dh))) {
            char path[4096];
            struct stat st;
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof(path), "%s/%s", d, e->d_name);
            if (stat(path, &st) < 0)
                continue;
            if (S_ISDIR(st.st_mode)) {
                if (deep && sp < 64)
                    stack[sp++] = strdup(path);
                continue;
            }
            size_t l = strlen(e->d_name);
            if (l < 5 || strcmp(e->d_name + l - 5, ".yaml") != 0)
                continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                v = realloc(v, cap * sizeof(*v));
            }
            v[n++] = strdup(path);
        }
        if (dh)
            closedir(dh);
        free(d);
    }
    if (n)
        qsort(v, n, sizeof(*v), cmpstr);
    *out = v;
    return n;
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static const char *base(const char *path, int parts)
{
    const char *p = path + strlen(path);
    while (p > path && parts > 0) {
        p--;
        if (*p == '/')
            parts--;
    }
    return *p == '/' ? p + 1 : p;
}

/* Load path with flags; check acceptance against want.  Refusals must name
 * the file. */
static void check_file(const char *path, unsigned flags, bool want, const char *label)
{
    grove_jobspec_opts_t o = {.flags = flags};
    grove_error_t e;
    grove_jobspec_t *js = grove_jobspec_load(path, &o, &e);
    if (want) {
        if (!ok(js != NULL, "%s: %s accepted", label, base(path, 2)))
            diag("%s", e.text);
    }
    else {
        if (!ok(js == NULL && errno == EINVAL && strncmp(e.text, path, strlen(path)) == 0,
                "%s: %s refused", label, base(path, 2)))
            diag("%s", js ? "(accepted)" : e.text);
    }
    grove_jobspec_destroy(js);
}

static void corpus_dir(const char *rel, bool deep, unsigned flags, bool want,
                       size_t min_files, const char *label)
{
    char **files;
    size_t n = list_yaml(tap_conformance(rel), deep, &files);
    ok(n >= min_files, "%s: %s holds %zu files (>= %zu)", label, rel, n, min_files);
    for (size_t i = 0; i < n; i++)
        check_file(files[i], flags, want, label);
    free_list(files, n);
}

static void test_corpus(void)
{
    const unsigned V1 = GROVE_JOBSPEC_V1;

    corpus_dir("fluxcore/jobspec/valid", false, 0, true, 26, "rfc14");
    corpus_dir("fluxcore/jobspec/valid_v1", false, V1, true, 7, "v1");
    corpus_dir("fluxcore/jobspec/valid_v1", false, 0, true, 7, "rfc14");
    corpus_dir("fluxcore/jobspec/invalid", false, 0, false, 55, "rfc14");
    corpus_dir("fluxcore/jobspec/invalid", false, V1, false, 55, "v1");
    corpus_dir("fluxcore/jobspec/invalid_v1", false, V1, false, 13, "v1");
    corpus_dir("rfc/spec_14", false, 0, true, 18, "rfc14");
    corpus_dir("rfc/spec_25", false, 0, true, 6, "rfc14");
    corpus_dir("rfc/spec_25", false, V1, true, 6, "v1");
    corpus_dir("fluxion/jobspecs/validation/valid", false, 0, true, 20, "sched");
    corpus_dir("fluxion/jobspecs/validation/invalid", false, 0, false, 49, "sched");

    /* Every other scheduler group must parse, except the files the
     * scheduler's own tests use to check its error paths: basics/bad.yaml
     * (malformed YAML: a stray backquote on line 4) and duration/test001,
     * test002, test004 (durations 1e30, -1 and -1e30, "invalid duration is
     * caught").  basics/bad_res_type.yaml and flexible/test006.yaml name
     * types the scheduler does not know: they parse here and are refused
     * only with a known-types list (see test_known_types). */
    static const char *const refused[] = {"basics/bad.yaml", "duration/test001.yaml",
                                          "duration/test002.yaml", "duration/test004.yaml",
                                          NULL};
    char **files;
    size_t n = list_yaml(tap_conformance("fluxion/jobspecs"), true, &files), checked = 0;
    for (size_t i = 0; i < n; i++) {
        if (strstr(files[i], "/validation/"))
            continue;
        bool bad = false;
        for (int k = 0; refused[k]; k++)
            bad = bad || strcmp(base(files[i], 2), refused[k]) == 0;
        check_file(files[i], 0, !bad, "sched");
        checked++;
    }
    ok(checked >= 140, "sched: %zu jobspecs outside validation/", checked);
    free_list(files, n);
}

/* ---- error messages: corpus files ------------------------------------ */

static void test_corpus_messages(void)
{
    static const struct {
        const char *rel;
        unsigned flags;
        const char *want; /* exact message, source = file name */
    } rows[] = {
        {"fluxcore/jobspec/invalid/resource_count_max_lessthan_min.yaml", 0,
         "resource_count_max_lessthan_min.yaml:6: resources[0].count.max: must be greater "
         "than or equal to min (1 < 2)"},
        {"fluxcore/jobspec/invalid/resource_count_negative.yaml", 0,
         "resource_count_negative.yaml:8: resources[0].with[0].count: must not be negative "
         "(got -1)"},
        {"fluxcore/jobspec/invalid/attributes_bad_entry.yaml", 0,
         "attributes_bad_entry.yaml:17: attributes.foo: unknown key (attributes has only user "
         "and system)"},
        {"fluxcore/jobspec/invalid/dependency_invalid.yaml", 0,
         "dependency_invalid.yaml:18: attributes.system.dependencies[0].value: must be a "
         "string (got an integer)"},
        {"fluxcore/jobspec/invalid/invalid_yaml1.yaml", 0,
         "invalid_yaml1.yaml:1: YAML syntax error: mapping values are not allowed in this "
         "context"},
        {"fluxcore/jobspec/invalid/missing_version.yaml", 0,
         "missing_version.yaml:1: version: required key is missing"},
        {"fluxcore/jobspec/invalid/task_command_array_notstring.yaml", 0,
         "task_command_array_notstring.yaml:10: tasks[0].command[0]: must be a string (got an "
         "integer)"},
        {"fluxcore/jobspec/invalid/resource_slot_not_labelled.yaml", 0,
         "resource_slot_not_labelled.yaml:3: resources[0].label: required key is missing "
         "(every slot needs a label)"},
        {"fluxcore/jobspec/invalid/resource_count_bad_exp_min.yaml", 0,
         "resource_count_bad_exp_min.yaml:5: resources[0].count.min: must be at least 2 for "
         "operator '^' (got 1)"},
        {"fluxcore/jobspec/invalid/version_bad_number.yaml", 0,
         "version_bad_number.yaml:1: version: must be an integer (got a real number)"},
        {"fluxcore/jobspec/invalid_v1/gpu_count_invalid.yaml", GROVE_JOBSPEC_V1,
         "gpu_count_invalid.yaml:13: resources[0].with[0].with[1].count: must not be negative "
         "(got -1)"},
        {"fluxcore/jobspec/invalid_v1/with_whatnow.yaml", GROVE_JOBSPEC_V1,
         "with_whatnow.yaml:7: resources[0].with[0].type: V1 allows only core and gpu in a "
         "slot (got 'piglets')"},
        {"fluxcore/jobspec/invalid_v1/duration_missing.yaml", GROVE_JOBSPEC_V1,
         "duration_missing.yaml:16: attributes.system.duration: required key is missing (V1 "
         "requires a duration)"},
        {"fluxcore/jobspec/invalid_v1/task_count_per_resource.yaml", GROVE_JOBSPEC_V1,
         "task_count_per_resource.yaml:17: tasks[0].count.per_resource: per_resource is not "
         "allowed in V1"},
        {"fluxion/jobspecs/validation/invalid/attributes_bad_properties.yaml", 0,
         "attributes_bad_properties.yaml:18: attributes.system.constraints.properties[0]: "
         "invalid character '`' in property 'fo`o'"},
        {"fluxion/jobspecs/validation/invalid/attributes_bad_properties4.yaml", 0,
         "attributes_bad_properties4.yaml:18: attributes.system.constraints.properties[0]: "
         "invalid character '^' in property '^f^oo'"},
        {"fluxion/jobspecs/validation/invalid/resource_count_missing_max.yaml", 0,
         "resource_count_missing_max.yaml:5: resources[0].count.max: required key is missing "
         "(max, operator and operand go together)"},
        {"fluxion/jobspecs/validation/invalid/version_bad_number.yaml", 0,
         "version_bad_number.yaml:1: version: must be between 1 and 9999 (got 48958)"},
        {"fluxion/jobspecs/duration/test002.yaml", 0,
         "test002.yaml:24: attributes.system.duration: must not be negative (got -1)"},
        {"fluxion/jobspecs/duration/test001.yaml", 0,
         "test001.yaml:24: attributes.system.duration: is too large (1e+30 > 2^53 seconds)"},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        grove_jobspec_opts_t o = {.flags = rows[i].flags, .source = base(rows[i].rel, 1)};
        grove_error_t e;
        grove_jobspec_t *js = grove_jobspec_load(tap_conformance(rows[i].rel), &o, &e);
        is_str(js ? "(accepted)" : e.text, rows[i].want, "message for %s",
               base(rows[i].rel, 1));
        grove_jobspec_destroy(js);
    }
}

/* ---- error messages: inline documents ------------------------------- */

/* The resources of a slot of one core (three lines), for inline documents. */
#define SLOT_CORE "  - type: slot\n    label: s\n    count: 1\n    with:\n      - type: core\n" \
                  "        count: 1\n"

/* One row of vectors/jobspec_messages.tsv: a document, read under flags,
 * is accepted or refused with the exact message (or its start). */
static void message_row(int lineno, char **f)
{
    const char *flags = f[0], *text = f[1], *want = corpus_field(f[2]);
    grove_jobspec_opts_t o = {.source = "t.yaml"};
    if (!strcmp(flags, "V1"))
        o.flags = GROVE_JOBSPEC_V1;
    else if (!strcmp(flags, "UNIQUE_LABELS"))
        o.flags = GROVE_JOBSPEC_UNIQUE_LABELS;
    else if (strcmp(flags, "-")) {
        ok(0, "line %d: unknown flags '%s'", lineno, flags);
        return;
    }
    grove_error_t e;
    grove_jobspec_t *js = grove_jobspec_parse(text, strlen(text), &o, &e);
    if (!want) {
        if (!ok(js != NULL, "line %d accepted", lineno))
            diag("%s", e.text);
    }
    else if (!strncmp(want, "prefix:", 7)) {
        want += 7;
        ok(!js && strncmp(e.text, want, strlen(want)) == 0, "line %d refused: %s...", lineno,
           want);
        diag("%s", js ? "accepted" : e.text);
    }
    else {
        is_str(js ? "(accepted)" : e.text, want, "line %d refused", lineno);
        /* "t.yaml:LINE: ..." or "t.yaml: ..." (no line) */
        is_int(js ? -1 : e.line, atoi(want + strlen("t.yaml:")), "line %d error line", lineno);
    }
    grove_jobspec_destroy(js);
}

static void test_inline_messages(void)
{
    ok(vectors_run("jobspec_messages.tsv", 3, message_row) >= 51, "jobspec message vectors");
}

/* YAML limits (nesting depth, alias expansion) and aliases expanded. */
static void test_yaml_limits(void)
{
    {
        char deep[1200];
        size_t n = 0;
        for (int i = 0; i < 200; i++)
            deep[n++] = '[';
        for (int i = 0; i < 200; i++)
            deep[n++] = ']';
        deep[n] = '\0';
        grove_jobspec_opts_t o = {.flags = GROVE_JOBSPEC_YAML, .source = "t.yaml"};
        grove_error_t e;
        grove_jobspec_t *js = grove_jobspec_parse(deep, n, &o, &e);
        is_str(js ? "(accepted)" : e.text, "t.yaml:1: nesting deeper than 128 levels",
               "deep YAML nesting refused");
        grove_jobspec_destroy(js);
    }
    {
        const char *bomb = "a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
                           "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
                           "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
                           "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
                           "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
                           "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\n";
        grove_jobspec_opts_t o = {.source = "t.yaml"};
        grove_error_t e;
        grove_jobspec_t *js = grove_jobspec_parse(bomb, strlen(bomb), &o, &e);
        ok(!js && strstr(e.text, "document too large"), "alias expansion bomb refused");
        diag("%s", js ? "(accepted)" : e.text);
        grove_jobspec_destroy(js);
    }
    /* Anchors and aliases are expanded. */
    {
        const char *t = "version: 9999\nresources:\n  - type: slot\n    label: s\n    count: 1\n"
                        "    with: [&c {type: core, count: 2}]\n  - type: slot\n    label: t\n"
                        "    count: 1\n    with: [*c]\ntasks:\n  - command: [app]\n    slot: s\n"
                        "    count: {per_slot: 1}\nattributes: {}\n";
        grove_error_t e;
        grove_jobspec_t *js = grove_jobspec_parse(t, strlen(t), NULL, &e);
        const grove_jobspec_resource_t *r = js ? grove_jobspec_resource_at(js, 3) : NULL;
        ok(r && strcmp(grove_jobspec_resource_type(r), "core") == 0
               && grove_jobspec_resource_count(r)->min == 2,
           "aliased vertex expanded");
        grove_jobspec_destroy(js);
    }
}

/* ---- JSON input, files, from_json, known types, warnings ------------ */

static void test_json_and_files(void)
{
    const char *j = "{\"version\": 1, \"resources\": [{\"type\": \"slot\", \"label\": \"task\","
                    " \"count\": 2, \"with\": [{\"type\": \"core\", \"count\": 4}]}],"
                    " \"tasks\": [{\"command\": [\"app\"], \"slot\": \"task\","
                    " \"count\": {\"per_slot\": 1}}],"
                    " \"attributes\": {\"system\": {\"duration\": 3600.5}}}";
    grove_jobspec_opts_t o = {.flags = GROVE_JOBSPEC_V1, .source = "t.json"};
    grove_error_t e;
    grove_jobspec_t *js = grove_jobspec_parse(j, strlen(j), &o, &e);
    ok(js != NULL, "JSON jobspec accepted under V1");
    ok(js && grove_jobspec_duration(js) == 3600.5, "JSON duration read");
    ok(js && grove_jobspec_version(js) == 1, "JSON version read");

    /* from_json: the same document, not stolen. */
    json_t *doc = json_loads(j, 0, NULL);
    grove_jobspec_t *js2 = grove_jobspec_from_json(doc, NULL, &e);
    ok(js2 && json_equal((json_t *)(uintptr_t)grove_jobspec_json(js2), doc),
       "from_json keeps the document");
    ok(doc->refcount == 1, "from_json does not steal the document");
    json_object_set_new(json_object_get(doc, "attributes"), "color", json_string("red"));
    grove_jobspec_t *js3 = grove_jobspec_from_json(doc, NULL, &e);
    is_str(js3 ? "(accepted)" : e.text,
           "attributes.color: unknown key (attributes has only user and system)",
           "from_json errors have a path and no line");
    json_decref(doc);
    grove_jobspec_destroy(js2);
    grove_jobspec_destroy(js3);
    grove_jobspec_destroy(js);

    /* JSON errors: syntax (with line) and validation (no line). */
    o.flags = 0;
    js = grove_jobspec_parse("{\"version\": 1,\n \"resources\": [}", 31, &o, &e);
    ok(!js && strncmp(e.text, "t.json:2: JSON syntax error: ", 29) == 0,
       "JSON syntax error has the line");
    diag("%s", js ? "(accepted)" : e.text);
    const char *j2 = "{\"version\": 9999, \"resources\": [{\"type\": \"node\", \"count\": -2}],"
                     " \"tasks\": [], \"attributes\": {}}";
    js = grove_jobspec_parse(j2, strlen(j2), &o, &e);
    is_str(js ? "(accepted)" : e.text,
           "t.json: resources[0].count: must not be negative (got -2)",
           "JSON validation error has the path");
    /* A flow-YAML document starting with '{' falls back to YAML. */
    const char *fy = "{version: 9999, resources: [{type: slot, label: s, count: 1, with: "
                     "[{type: core, count: 1}]}], tasks: [{command: [a], slot: s, "
                     "count: {total: 3}}], attributes: {}}";
    js = grove_jobspec_parse(fy, strlen(fy), NULL, &e);
    ok(js != NULL, "flow YAML starting with '{' is read as YAML");
    grove_jobspec_destroy(js);
    /* Forcing JSON refuses it. */
    o.flags = GROVE_JOBSPEC_JSON;
    js = grove_jobspec_parse(fy, strlen(fy), &o, &e);
    ok(!js && strstr(e.text, "JSON syntax error"), "GROVE_JOBSPEC_JSON forces JSON");
    grove_jobspec_destroy(js);
}

/* The offer a caller makes for an unknown type: says what it was handed. */
static void offer_hint(void *arg, const char *name, const char *const *known, char *buf,
                       size_t len)
{
    size_t n = 0;
    while (known[n])
        n++;
    ++*(int *)arg;
    snprintf(buf, len, " (offer for %s among %zu)", name, n);
}

/* Files: a missing one, and the known types checked on corpus files. */
static void test_files(void)
{
    grove_error_t e;
    grove_jobspec_t *js = grove_jobspec_load("/nonexistent/job.yaml", NULL, &e);
    ok(!js && errno == ENOENT, "missing file: ENOENT");
    is_str(e.text, "/nonexistent/job.yaml: No such file or directory", "missing file message");
    grove_jobspec_destroy(js);

    /* Known types: the scheduler's check, explicit in the API. */
    static const char *const types[] = {"cluster", "rack", "node", "socket", "core",
                                        "gpu", "memory", NULL};
    grove_jobspec_opts_t ko = {.flags = 0, .source = "bad_res_type.yaml", .known_types = types};
    js = grove_jobspec_load(tap_conformance("fluxion/jobspecs/basics/bad_res_type.yaml"), &ko,
                            &e);
    is_str(js ? "(accepted)" : e.text,
           "bad_res_type.yaml:16: resources[0].with[0].with[0].with[0].with[0].type: unknown "
           "resource "
           "type 'invalid_res_type'",
           "known_types refuses an unknown type");
    grove_jobspec_destroy(js);
    ko.source = "test006.yaml";
    js = grove_jobspec_load(tap_conformance("fluxion/jobspecs/flexible/test006.yaml"), &ko, &e);
    is_str(js ? "(accepted)" : e.text,
           "test006.yaml:9: resources[0].with[1].type: unknown resource type 'does-not-exist'",
           "known_types refuses does-not-exist");
    grove_jobspec_destroy(js);
    js = grove_jobspec_load(tap_conformance("fluxion/jobspecs/basics/test001.yaml"), &ko, &e);
    ok(js != NULL, "known_types accepts known types (slot always allowed)");
    is_str(js ? grove_jobspec_source(js) : "(refused)", "test006.yaml",
           "a jobspec keeps the source name it was read with");
    grove_jobspec_destroy(js);
    /* the offer of a close name is the caller's: handed the name and the list */
    int hints = 0;
    ko.hint = offer_hint;
    ko.hint_arg = &hints;
    js = grove_jobspec_load(tap_conformance("fluxion/jobspecs/flexible/test006.yaml"), &ko, &e);
    is_str(js ? "(accepted)" : e.text,
           "test006.yaml:9: resources[0].with[1].type: unknown resource type 'does-not-exist' "
           "(offer for does-not-exist among 7)",
           "an unknown type carries the caller's offer");
    ok(hints == 1, "the offer is asked once");
    grove_jobspec_destroy(js);

    /* Warnings. */
    js = grove_jobspec_load(tap_conformance("fluxcore/jobspec/valid/attributes_system.yaml"),
                            NULL, &e);
    is_int(js ? grove_jobspec_warning_count(js) : 99, 5, "five unknown system attributes");
    is_str(js ? grove_jobspec_warning(js, 0) : NULL,
           "attributes.system.a: unknown system attribute (kept)", "warning text");
    ok(js && grove_jobspec_warning(js, 5) == NULL, "warning out of range is NULL");
    const json_t *sys = js ? grove_jobspec_system(js) : NULL;
    ok(sys && json_integer_value(json_object_get(sys, "b")) == 42, "unknown system keys kept");
    grove_jobspec_destroy(js);
    js = grove_jobspec_load(tap_conformance("fluxcore/jobspec/valid/attributes_user.yaml"),
                            NULL, &e);
    const json_t *user = js ? grove_jobspec_user(js) : NULL;
    ok(user && json_is_null(json_object_get(user, "d"))
           && json_array_size(json_object_get(user, "c")) == 3,
       "user attributes kept as JSON");
    ok(js && grove_jobspec_duration(js) == 0, "no duration: 0");
    grove_jobspec_destroy(js);
    js = grove_jobspec_load(tap_conformance("fluxcore/jobspec/valid/basic_v1.yaml"), NULL, &e);
    is_str(js ? grove_jobspec_warning(js, 0) : NULL,
           "tasks[0].slot: no slot is labelled 'foo'", "task slot naming no slot warns");
    grove_jobspec_destroy(js);
    const char *tk = "version: 9999\nresources:\n" SLOT_CORE "tasks:\n  - command: [app]\n"
                     "    slot: s\n    foo: 1\n    count: {per_slot: 1}\nattributes: {}\n";
    js = grove_jobspec_parse(tk, strlen(tk), NULL, &e);
    is_str(js ? grove_jobspec_warning(js, 0) : e.text, "tasks[0].foo: unknown task key (kept)",
           "unknown task key warns");
    grove_jobspec_destroy(js);

    /* Warnings are capped: 70 unknown system keys give 64 and a summary. */
    char big[4096];
    size_t n = (size_t)snprintf(big, sizeof(big), "version: 9999\nresources:\n" SLOT_CORE
                                "tasks:\n  - command: [app]\n    slot: s\n"
                                "    count: {per_slot: 1}\nattributes:\n  system:\n");
    for (int i = 0; i < 70; i++)
        n += (size_t)snprintf(big + n, sizeof(big) - n, "    k%d: %d\n", i, i);
    js = grove_jobspec_parse(big, n, NULL, &e);
    is_int(js ? grove_jobspec_warning_count(js) : 0, 65, "warnings capped at 64 + 1");
    is_str(js ? grove_jobspec_warning(js, 64) : e.text, "6 more warnings not shown",
           "the last warning counts the rest");
    grove_jobspec_destroy(js);
}

/* ---- the request tree ------------------------------------------------ */

static void test_tree(void)
{
    grove_error_t e;
    grove_jobspec_t *js =
        grove_jobspec_load(tap_conformance("fluxcore/jobspec/valid/use_case_1.10.yaml"), NULL, &e);
    if (!ok(js != NULL, "use_case_1.10 loads")) {
        diag("%s", e.text);
        return;
    }
    static const struct {
        const char *type;
        uint64_t count;
        unsigned depth;
        bool excl, in_slot, is_slot;
        size_t nchildren;
        int line;
    } want[] = {
        {"rack", 5, 0, false, false, false, 1, 3},  {"slot", 2, 1, true, false, true, 2, 6},
        {"ssd", 1, 2, true, true, false, 0, 10},    {"node", 1, 2, true, true, false, 1, 12},
        {"slot", 1, 3, true, true, true, 1, 16},    {"core", 2, 4, true, true, false, 0, 20},
    };
    is_int(grove_jobspec_resource_total(js), 6, "six vertices");
    for (size_t i = 0; i < 6; i++) {
        const grove_jobspec_resource_t *r = grove_jobspec_resource_at(js, i);
        is_str(grove_jobspec_resource_type(r), want[i].type, "vertex %zu type", i);
        is_int(grove_jobspec_resource_count(r)->min, want[i].count, "vertex %zu count", i);
        is_int(grove_jobspec_resource_depth(r), want[i].depth, "vertex %zu depth", i);
        is_int(grove_jobspec_resource_exclusive(r), want[i].excl, "vertex %zu exclusive", i);
        is_int(grove_jobspec_resource_in_slot(r), want[i].in_slot, "vertex %zu in slot", i);
        is_int(grove_jobspec_resource_is_slot(r), want[i].is_slot, "vertex %zu is slot", i);
        is_int(grove_jobspec_resource_nchildren(r), want[i].nchildren, "vertex %zu children", i);
        is_int(grove_jobspec_resource_line(r), want[i].line, "vertex %zu line", i);
        is_int(grove_jobspec_resource_index(r), i, "vertex %zu index", i);
    }
    const grove_jobspec_resource_t *rack = grove_jobspec_resource_first(js);
    const grove_jobspec_resource_t *slot = grove_jobspec_resource_child(rack);
    const grove_jobspec_resource_t *ssd = grove_jobspec_resource_child(slot);
    const grove_jobspec_resource_t *node = grove_jobspec_resource_next(ssd);
    ok(grove_jobspec_resource_next(rack) == NULL && grove_jobspec_resource_parent(rack) == NULL,
       "rack has no sibling or parent");
    ok(grove_jobspec_resource_parent(node) == slot && grove_jobspec_resource_next(node) == NULL,
       "node: parent slot, last sibling");
    is_str(grove_jobspec_resource_label(slot), "rabbit", "slot label");
    ok(grove_jobspec_resource_exclusive_raw(node) == 1
           && grove_jobspec_resource_exclusive_raw(ssd) == -1,
       "exclusive as written");
    ok(grove_jobspec_resource_label(ssd) == NULL && grove_jobspec_resource_unit(ssd) == NULL
           && grove_jobspec_resource_id(ssd) == NULL,
       "absent strings are NULL");
    ok(grove_jobspec_resource_at(js, 6) == NULL, "vertex out of range is NULL");
    grove_jobspec_destroy(js);

    /* Explicit exclusive: false inside a slot affects only that vertex. */
    js = grove_jobspec_load(tap_conformance("fluxcore/jobspec/valid/use_case_1.6.yaml"), NULL, &e);
    const grove_jobspec_resource_t *n = js ? grove_jobspec_resource_at(js, 2) : NULL;
    const grove_jobspec_resource_t *c = js ? grove_jobspec_resource_at(js, 3) : NULL;
    ok(n && !grove_jobspec_resource_exclusive(n) && grove_jobspec_resource_in_slot(n),
       "node exclusive: false in a slot is shared");
    ok(c && grove_jobspec_resource_exclusive(c), "its cores stay exclusive");
    const grove_count_t *nc = n ? grove_jobspec_resource_count(n) : NULL;
    ok(nc && nc->kind == GROVE_COUNT_RANGE && nc->min == 1 && nc->max == GROVE_COUNT_INF
           && nc->op == '+' && nc->operand == 1,
       "count {min: 1} is 1+");
    const grove_jobspec_task_t *t = js ? grove_jobspec_task(js, 0) : NULL;
    uint64_t num = 0;
    const char *type = NULL;
    ok(t && grove_jobspec_task_count_kind(t, &num, &type) == GROVE_TASK_PER_RESOURCE && num == 1
           && type && strcmp(type, "node") == 0,
       "per_resource node 1");
    ok(t && grove_jobspec_task_argc(t) == 2 && strcmp(grove_jobspec_task_arg(t, 1), "start") == 0
           && grove_jobspec_task_arg(t, 2) == NULL,
       "command words");
    ok(js && grove_jobspec_duration(js) == 3600.0, "duration 3600");
    grove_jobspec_destroy(js);

    /* Tasks: two slots, total, task attributes. */
    js = grove_jobspec_load(tap_conformance("fluxcore/jobspec/valid/use_case_2.4.yaml"), NULL, &e);
    ok(js && grove_jobspec_task_count(js) == 2
           && strcmp(grove_jobspec_task_slot(grove_jobspec_task(js, 1)), "db") == 0
           && grove_jobspec_task(js, 2) == NULL,
       "two tasks, second in slot db");
    const grove_jobspec_resource_t *mem = js ? grove_jobspec_resource_at(js, 3) : NULL;
    ok(mem && strcmp(grove_jobspec_resource_unit(mem), "GB") == 0, "memory unit GB");
    grove_jobspec_destroy(js);
    js = grove_jobspec_load(tap_conformance("fluxcore/jobspec/valid/use_case_2.2.yaml"), NULL, &e);
    t = js ? grove_jobspec_task(js, 0) : NULL;
    ok(t && grove_jobspec_task_count_kind(t, &num, NULL) == GROVE_TASK_TOTAL && num == 5,
       "total 5");
    grove_jobspec_destroy(js);
    js = grove_jobspec_load(tap_conformance("fluxcore/jobspec/valid/use_case_2.7.yaml"), NULL, &e);
    t = js ? grove_jobspec_task(js, 1) : NULL;
    const json_t *ta = t ? grove_jobspec_task_attributes(t) : NULL;
    ok(ta && json_is_null(json_object_get(json_object_get(ta, "environment"), "FOO")),
       "task attributes kept");
    ok(js && grove_jobspec_task_attributes(grove_jobspec_task(js, 0)) == NULL
           && grove_jobspec_task_distribution(grove_jobspec_task(js, 0)) == NULL,
       "absent task attributes and distribution are NULL");
    grove_jobspec_destroy(js);
    js = grove_jobspec_load(tap_conformance("fluxcore/jobspec/valid/use_case_1.8.yaml"), NULL, &e);
    nc = js ? grove_jobspec_resource_count(grove_jobspec_resource_first(js)) : NULL;
    ok(nc && nc->kind == GROVE_COUNT_IDSET && nc->min == 4 && nc->max == 25,
       "count \"4,9,16,25\" is an idset 4..25");
    grove_jobspec_destroy(js);
    ok_destroy_null(grove_jobspec_destroy);
}

/* ---- counts ---------------------------------------------------------- */

static void test_counts(void)
{
    static const struct {
        const char *in;
        const char *enc;     /* canonical text, or NULL: must fail */
        const char *seq;     /* first values by min/next, "" separated by ',' */
        uint64_t fit_limit;  /* grove_count_fit(limit) ... */
        long long fit;       /* ... gives this, -1 for none */
    } rows[] = {
        {"4", "4", "4", 10, 4},
        {"[4]", "4", "4", 3, -1},
        {"2+", "2+", "2,3,4,5", 100, 100},
        {"[100+]", "100+", "100,101,102", 99, -1},
        {"2-32:2:*", "2-32:2:*", "2,4,8,16,32", 20, 16},
        {"[1-8:3]", "1-8:3", "1,4,7", 6, 4},
        {"1-5:2:+", "1-5:2", "1,3,5", 100, 5},
        {"2-64:4:^", "2-64:4:^", "2,16", 64, 16},
        {"3+:2:^", "3+:2:^", "3,9,81,6561,43046721", 80, 9},
        {"4,9,16,25", "4,9,16,25", "4,9,16,25", 20, 16},
        {"[1-3,7]", "1-3,7", "1,2,3,7", 6, 3},
        {"1-4", "1-4", "1,2,3,4", 1000, 4},
        {"0", NULL, "", 0, 0},
        {"", NULL, "", 0, 0},
        {"abc", NULL, "", 0, 0},
        {"2-1", NULL, "", 0, 0},
        {"1-4:0", NULL, "", 0, 0},
        {"1-4:01", NULL, "", 0, 0},
        {"1+:2:*x", NULL, "", 0, 0},
        {"1+:1:*", NULL, "", 0, 0},
        {"1-4:2:x", NULL, "", 0, 0},
        {"[1-4", NULL, "", 0, 0},
        {"01", NULL, "", 0, 0},
        {"1-4:2:+:", NULL, "", 0, 0},
        {"-3", NULL, "", 0, 0},
        {"0-3", NULL, "", 0, 0},
        {"99999999999999999999+", NULL, "", 0, 0},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        grove_count_t c;
        grove_error_t e;
        int rc = grove_count_parse(&c, rows[i].in, &e);
        if (!rows[i].enc) {
            ok(rc < 0 && errno == EINVAL, "count '%s' refused", rows[i].in);
            diag("%s", rc < 0 ? e.text : "(accepted)");
            continue;
        }
        if (!ok(rc == 0, "count '%s' parses", rows[i].in)) {
            diag("%s", e.text);
            continue;
        }
        char *s = grove_count_encode(&c);
        is_str(s, rows[i].enc, "count '%s' encodes", rows[i].in);
        free(s);
        /* As many values as the row lists. */
        int want_n = 1;
        for (const char *p = rows[i].seq; *p; p++)
            want_n += *p == ',';
        char seq[256] = "";
        size_t n = 0;
        uint64_t v = c.min;
        for (int k = 0; k < want_n && v != GROVE_COUNT_INF; k++, v = grove_count_next(&c, v)) {
            n += (size_t)snprintf(seq + n, sizeof(seq) - n, "%s%llu", k ? "," : "",
                                  (unsigned long long)v);
            ok(grove_count_contains(&c, v), "count '%s' contains %llu", rows[i].in,
               (unsigned long long)v);
        }
        is_str(seq, rows[i].seq, "count '%s' values", rows[i].in);
        uint64_t got = 0;
        bool fits = grove_count_fit(&c, rows[i].fit_limit, &got);
        is_int(fits ? (long long)got : -1, rows[i].fit, "count '%s' fit(%llu)", rows[i].in,
               (unsigned long long)rows[i].fit_limit);
        grove_count_clear(&c);
    }

    /* Non-members and the ends of sequences. */
    grove_count_t c, d;
    grove_error_t e;
    grove_count_parse(&c, "2-32:2:*", &e);
    ok(!grove_count_contains(&c, 6) && !grove_count_contains(&c, 64)
           && !grove_count_contains(&c, 1),
       "2-32:2:* excludes 6, 64, 1");
    is_int(grove_count_next(&c, 5), 8, "next after 5 is 8");
    ok(grove_count_next(&c, 32) == GROVE_COUNT_INF, "nothing after max");
    is_int(grove_count_next(&c, 0), 2, "next before min is min");
    grove_count_parse(&c, "1-5:2", &e);
    ok(!grove_count_contains(&c, 4) && grove_count_next(&c, 4) == 5, "1-5:2 steps by 2");
    grove_count_parse(&c, "9223372036854775806+:2:*", &e);
    ok(grove_count_next(&c, c.min) == GROVE_COUNT_INF, "'*' overflow ends the sequence");
    grove_count_parse(&c, "4,9,16,25", &e);
    ok(grove_count_copy(&d, &c) == 0 && d.ids != c.ids && grove_count_contains(&d, 9)
           && !grove_count_contains(&d, 10),
       "copy of an idset count is deep");
    ok(grove_count_next(&d, 25) == GROVE_COUNT_INF && grove_count_next(&d, 10) == 16,
       "idset next");
    grove_count_clear(&c);
    grove_count_clear(&d);
    grove_count_clear(NULL);
    ok(grove_count_set_range(&c, 2, 1, '+', 1, &e) < 0, "set_range max < min refused");
    ok(grove_count_set_range(&c, 1, GROVE_COUNT_INF, '/', 2, &e) < 0
           && strcmp(e.text, "operator must be one of '+', '*', '^'") == 0,
       "set_range bad operator refused");
    ok(grove_count_set_range(&c, 2, 8, '^', 2, &e) == 0 && grove_count_contains(&c, 4)
           && !grove_count_contains(&c, 8),
       "2-8:2:^ holds 2 and 4, not 8");
    grove_count_set_fixed(&c, 0);
    uint64_t got = 99;
    ok(grove_count_fit(&c, 0, &got) && got == 0, "fixed 0 fits in 0");
}

/* ---- constraints ----------------------------------------------------- */

/* Constraints and the nodes (properties, host, rank) they admit. */
static const struct crow {
    const char *c;     /* JSON or YAML text */
    const char *props; /* comma separated, or NULL */
    const char *host;  /* or NULL */
    int rank;          /* -1 unknown */
    int want;
} constraint_rows[] = {
    {"{}", NULL, NULL, -1, 1},
    {"{\"properties\": []}", NULL, NULL, -1, 1},
    {"{\"and\": []}", NULL, NULL, -1, 1},
    {"{\"or\": []}", NULL, NULL, -1, 1},
    {"{\"not\": []}", "a,b", "h0", 0, 0},
    {"{\"hostlist\": []}", NULL, "h0", 0, 0},
    {"{\"ranks\": []}", NULL, "h0", 0, 0},
    {"{\"properties\": [\"ssd\"]}", "ssd", NULL, -1, 1},
    {"{\"properties\": [\"ssd\"]}", "hdd", NULL, -1, 0},
    {"{\"properties\": [\"ssd\"]}", NULL, NULL, -1, 0},
    {"{\"properties\": [\"^slowgpu\"]}", "slowgpu", NULL, -1, 0},
    {"{\"properties\": [\"^slowgpu\"]}", NULL, NULL, -1, 1},
    {"{\"properties\": [\"ssd\", \"^slowgpu\"]}", "ssd,slowgpu", NULL, -1, 0},
    {"{\"properties\": [\"ssd\", \"^slowgpu\"]}", "ssd,fast", NULL, -1, 1},
    {"{\"properties\": [\"foo$\", \"+bar\"]}", "foo$,+bar", NULL, -1, 1},
    {"{\"not\": [{\"properties\": [\"slowgpu\"]}]}", "slowgpu", NULL, -1, 0},
    {"{\"or\": [{\"properties\": [\"ssd\"]}, {\"properties\": [\"huge\"]}]}", "huge", NULL, -1,
     1},
    {"{\"or\": [{\"properties\": [\"ssd\"]}, {\"properties\": [\"huge\"]}]}", "tiny", NULL, -1,
     0},
    {"{\"hostlist\": [\"host[0-1]\"]}", NULL, "host0", -1, 1},
    {"{\"hostlist\": [\"host[0-1]\"]}", NULL, "host2", -1, 0},
    {"{\"hostlist\": [\"host[0-1]\"]}", NULL, NULL, -1, 0},
    {"{\"hostlist\": [\"a1\", \"b[3-4]\"]}", NULL, "b4", -1, 1},
    {"{\"not\": [{\"hostlist\": [\"host[0-1]\"]}]}", NULL, "host2", -1, 1},
    {"{\"not\": [{\"hostlist\": [\"host[0-1]\"]}]}", NULL, "host1", -1, 0},
    {"{\"and\": [{\"hostlist\": [\"host[0-1]\"]}, {\"properties\": [\"ssd\"]}]}", "ssd",
     "host1", -1, 1},
    {"{\"and\": [{\"hostlist\": [\"host[0-1]\"]}, {\"properties\": [\"ssd\"]}]}", NULL,
     "host1", -1, 0},
    {"{\"ranks\": [\"0\"]}", NULL, NULL, 0, 1},
    {"{\"ranks\": [\"0\"]}", NULL, NULL, 1, 0},
    {"{\"ranks\": [\"0\"]}", NULL, NULL, -1, 0},
    {"{\"ranks\": [0, \"5-7\"]}", NULL, NULL, 6, 1},
    {"{\"ranks\": [0, \"[5-7]\"]}", NULL, NULL, 4, 0},
    {"{\"not\": [{\"properties\": [\"a\"]}, {\"properties\": [\"b\"]}]}", "a", NULL, -1, 1},
    {"{\"not\": [{\"properties\": [\"a\"]}, {\"properties\": [\"b\"]}]}", "a,b", NULL, -1, 0},
    {"and:\n- or:\n  - hostlist: [foo]\n  - ranks: [0]\n  - properties: [bar, baz]\n"
     "- not:\n  - properties: [foo, bar]\n",
     "foo,bar,baz", "x", 3, 0},
    {"and:\n- or:\n  - hostlist: [foo]\n  - ranks: [0]\n  - properties: [bar, baz]\n"
     "- not:\n  - properties: [foo, bar]\n",
     "bar", "x", 0, 1},
    {"and:\n- or:\n  - hostlist: [foo]\n  - ranks: [0]\n  - properties: [bar, baz]\n"
     "- not:\n  - properties: [foo, bar]\n",
     "foo,bar", "foo", 0, 0},
    {"properties: [ssd]", "ssd", NULL, -1, 1},
    {"{\"or\": [{}, {\"properties\": [\"x\"]}]}", NULL, NULL, -1, 1},
    {"{\"and\": [{}, {\"not\": []}]}", NULL, NULL, -1, 0},
};

static void test_constraints(void)
{
    for (size_t i = 0; i < sizeof(constraint_rows) / sizeof(constraint_rows[0]); i++) {
        const struct crow *w = &constraint_rows[i];
        grove_error_t e;
        grove_constraint_t *c = grove_constraint_parse(w->c, &e);
        if (!ok(c != NULL, "constraint %zu compiles", i)) {
            diag("%s", e.text);
            continue;
        }
        char buf[256];
        const char *props[8];
        size_t np = 0;
        if (w->props) {
            snprintf(buf, sizeof(buf), "%s", w->props);
            for (char *tok = strtok(buf, ","); tok && np < 8; tok = strtok(NULL, ","))
                props[np++] = tok;
        }
        grove_constraint_subject_t s = {props, np, NULL, NULL, w->host, w->rank};
        is_int(grove_constraint_match(c, &s), w->want,
               "constraint %zu vs props=%s host=%s rank=%d", i, w->props ? w->props : "-",
               w->host ? w->host : "-", w->rank);
        json_t *back = grove_constraint_to_json(c);
        json_t *orig = NULL;
        if (w->c[0] == '{')
            orig = json_loads(w->c, 0, NULL);
        ok(back && (!orig || json_equal(back, orig)), "constraint %zu to_json", i);
        json_decref(back);
        json_decref(orig);
        grove_constraint_destroy(c);
    }

    static const struct {
        const char *c;
        const char *want;
    } bad[] = {
        {"[1]", "a constraint must be a mapping (got a list)"},
        {"{\"properties\": [\"a\"], \"hostlist\": [\"b\"]}",
         "a constraint has exactly one operator (got 2 keys)"},
        {"{\"foo\": []}",
         "foo: unknown constraint operator (expected properties, hostlist, ranks, and, or, not)"},
        {"{\"properties\": \"foo\"}", "properties: operands must be a list (got a string)"},
        {"{\"properties\": [\"^\"]}", "properties[0]: empty property name"},
        {"{\"properties\": [\"\"]}", "properties[0]: empty property name"},
        {"{\"properties\": [\"a|b\"]}", "properties[0]: invalid character '|' in property 'a|b'"},
        {"{\"properties\": [\"(x)\"]}", "properties[0]: invalid character '(' in property '(x)'"},
        {"{\"ranks\": [-1]}", "ranks[0]: rank -1 is out of range"},
        {"{\"ranks\": [true]}", "ranks[0]: ranks must be idset strings or integers (got a boolean)"},
        {"{\"hostlist\": [3]}", "hostlist[0]: a hostlist must be a string (got an integer)"},
        {"{\"and\": [{\"or\": [{\"not\": [[]]}]}]}",
         "and[0].or[0].not[0]: a constraint must be a mapping (got a list)"},
        {"{\"and\": {}}", "and: operands must be a list (got a mapping)"},
        {"and: [ {ranks: [x]} ]", NULL},
        {"not:\n  - hostlist: [\"foo[\"]\n", NULL},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        grove_error_t e;
        grove_constraint_t *c = grove_constraint_parse(bad[i].c, &e);
        if (bad[i].want)
            is_str(c ? "(accepted)" : e.text, bad[i].want, "bad constraint %zu", i);
        else {
            ok(!c && errno == EINVAL, "bad constraint %zu refused", i);
            diag("%s", c ? "(accepted)" : e.text);
        }
        grove_constraint_destroy(c);
    }
    {
        grove_error_t e;
        grove_constraint_t *c = grove_constraint_parse("not:\n  - hostlist: [\"foo[\"]\n", &e);
        const char *w = "not[0].hostlist[0]: invalid hostlist \"foo[\": ";
        ok(!c && e.line == 2 && strncmp(e.text, w, strlen(w)) == 0,
           "YAML constraint errors carry the line");
        diag("%s", c ? "(accepted)" : e.text);
        grove_constraint_destroy(c);
    }

    /* from_json with a path prefix; callback subjects; NULL cases. */
    json_t *o = json_pack("{s:[s]}", "properties", "gpu");
    grove_error_t e;
    grove_constraint_t *c = grove_constraint_from_json(o, "constraints", &e);
    grove_constraint_subject_t s = {NULL, 0, NULL, NULL, NULL, -1};
    ok(c && grove_constraint_match(c, &s) == 0, "no properties: no match");
    grove_constraint_destroy(c);
    json_object_set_new(o, "x", json_array());
    c = grove_constraint_from_json(o, "constraints", &e);
    is_str(c ? "(accepted)" : e.text, "constraints: a constraint has exactly one operator (got 2 keys)",
           "from_json path prefix");
    grove_constraint_destroy(c);
    json_decref(o);
    ok(grove_constraint_match(NULL, &s) == 1, "NULL constraint matches");
    c = grove_constraint_parse("{\"properties\": [\"^a\"]}", &e);
    ok(c && grove_constraint_match(c, NULL) == 1, "NULL subject: no properties");
    grove_constraint_destroy(c);
    ok_destroy_null(grove_constraint_destroy);
}

static bool cb_has(const char *name, void *arg)
{
    return strstr((const char *)arg, name) != NULL;
}

static void test_constraint_callback_and_jobspec(void)
{
    grove_error_t e;
    grove_constraint_t *c = grove_constraint_parse("{\"properties\": [\"gpu\", \"^slow\"]}", &e);
    grove_constraint_subject_t s = {NULL, 0, cb_has, (void *)(uintptr_t)"gpu fast", NULL, -1};
    ok(c && grove_constraint_match(c, &s) == 1, "callback subject matches");
    s.arg = (void *)(uintptr_t)"gpu slow";
    ok(c && grove_constraint_match(c, &s) == 0, "callback subject negated property");
    grove_constraint_destroy(c);

    grove_jobspec_t *js = grove_jobspec_load(
        tap_conformance("fluxion/jobspecs/validation/valid/constraints.yaml"), NULL, &e);
    if (!js) {
        ok(0, "constraints.yaml loads");
        diag("%s", e.text);
        return;
    }
    const grove_constraint_t *jc = grove_jobspec_constraint(js);
    ok(jc != NULL, "jobspec constraint compiled");
    const char *props[] = {"bar"};
    grove_constraint_subject_t t = {props, 1, NULL, NULL, "x", 0};
    ok(jc && grove_constraint_match(jc, &t) == 1, "jobspec constraint evaluates");
    grove_jobspec_destroy(js);
    js = grove_jobspec_load(tap_conformance("fluxcore/jobspec/valid/basic.yaml"), NULL, &e);
    ok(js && grove_jobspec_constraint(js) == NULL && grove_jobspec_system(js) == NULL
           && grove_jobspec_user(js) == NULL,
       "no constraints: NULL");
    grove_jobspec_destroy(js);
}

/* ---- main ------------------------------------------------------------ */

/* The error vocabulary: every code has its own name, and the system errors
 * of file access that the loader lets through are named as they are. */
static void test_errno_names(void)
{
#define NAMED(code, meaning) is_str(grove_errno_name(code), #code, "name of " #code);
    GROVE_ERRNO_VOCABULARY(NAMED)
#undef NAMED
    ok(grove_errno_name(0) == NULL, "errno 0 has no name");
    static const struct {
        const char *path;
        int errnum;
        const char *name;
    } rows[] = {
        {"/nonexistent/job.yaml", ENOENT, "ENOENT"},
        {"/", EISDIR, "EISDIR"},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        grove_error_t e;
        grove_jobspec_t *js = grove_jobspec_load(rows[i].path, NULL, &e);
        int saved = errno;
        ok(!js && saved == rows[i].errnum, "load %s: %s", rows[i].path, rows[i].name);
        is_str(grove_errno_name(saved), rows[i].name, "load %s: errno named", rows[i].path);
        grove_jobspec_destroy(js);
    }
}

int main(void)
{
    test_corpus();
    test_corpus_messages();
    test_inline_messages();
    test_yaml_limits();
    test_json_and_files();
    test_files();
    test_tree();
    test_counts();
    test_constraints();
    test_constraint_callback_and_jobspec();
    test_errno_names();
    return done_testing();
}
