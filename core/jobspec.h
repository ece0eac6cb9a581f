/* jobspec.h: job requests (RFC 14 canonical, RFC 25 V1), their resource
 * counts (RFC 14 ranges, RFC 45 range strings, RFC 22 idset strings) and
 * their constraints (RFC 31).
 *
 * A jobspec is read once from YAML or JSON text, validated once, and kept as
 * a read-only request tree that the matcher walks: resource vertices with
 * first-child / next-sibling links, tasks, the compiled constraint, the
 * duration, the user attributes (JSON, as given) and a list of warnings.
 *
 * Validation rules (see docs in jobspec.c for the reasoning):
 *   - default: RFC 14 canonical rules for every version 1..9999, any
 *     resource type;
 *   - GROVE_JOBSPEC_V1: in addition the stricter RFC 25 rules
 *     (node>slot>core[,gpu] shapes, integer counts, one task, duration);
 *   - GROVE_JOBSPEC_UNIQUE_LABELS: duplicate labels are errors, not
 *     warnings;
 *   - opts->known_types: resource types outside the list are refused (a
 *     scheduler-specific check, off when the list is NULL).
 *
 * Errors name the source, the line (YAML input; JSON input gives lines for
 * syntax errors only), the key path ("resources[0].with[1].count.max") and
 * the reason, in a grove_error_t; errno is EINVAL (bad input), ENOENT
 * (file missing), ENOMEM.
 *
 * This header must not hold the reader's internals (doc_private.h) or
 * anything of the matcher (match.h).
 */
#ifndef GROVE_JOBSPEC_H
#define GROVE_JOBSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "error.h"
#include "idset.h"

/* ---- counts (RFC 14 count, RFC 45 range string, RFC 22 idset) ---------- */

typedef enum {
    GROVE_COUNT_FIXED = 0, /* exactly min (== max) */
    GROVE_COUNT_RANGE,     /* min, next = prev OP operand, ... up to max */
    GROVE_COUNT_IDSET,     /* any id of the set */
} grove_count_kind_t;

/* "Unbounded" for max, and "no such value" for the iteration functions. */
#define GROVE_COUNT_INF UINT64_MAX
/* Largest finite count (the largest JSON integer). */
#define GROVE_COUNT_MAX ((uint64_t)INT64_MAX)

typedef struct grove_count {
    grove_count_kind_t kind;
    uint64_t min;      /* smallest acceptable value */
    uint64_t max;      /* largest, or GROVE_COUNT_INF (RANGE only) */
    char op;           /* '+', '*' or '^' (RANGE); '+' otherwise */
    uint64_t operand;  /* >= 1 for '+', >= 2 for '*' and '^'; 1 otherwise */
    grove_idset_t *ids; /* IDSET only: owned by the count */
} grove_count_t;

/* Set c to the fixed count n.  Never fails. */
void grove_count_set_fixed(grove_count_t *c, uint64_t n);

/* Set c to a range after checking RFC 14's rules (1 <= min <= max, op one of
 * + * ^, operand >= 1, >= 2 for * and ^, min >= 2 for ^).  max may be
 * GROVE_COUNT_INF.  Returns 0, or -1 with EINVAL and err filled (no source). */
int grove_count_set_range(grove_count_t *c, uint64_t min, uint64_t max, char op,
                          uint64_t operand, grove_error_t *err);

/* Parse a count string: an RFC 45 range ("2+", "1-8:2", "[2-32:2:*]") or an
 * RFC 22 idset of positive values ("4,9,16,25"); a plain "4" is FIXED.
 * Returns 0, or -1 with EINVAL (err says why) or ENOMEM.  c is overwritten
 * (call grove_count_clear first if it held an idset). */
int grove_count_parse(grove_count_t *c, const char *s, grove_error_t *err);

/* Release what c owns (the idset) and make it FIXED 0.  NULL is a no-op. */
void grove_count_clear(grove_count_t *c);

/* Deep copy src into dst.  Returns 0 or -1 with ENOMEM. */
int grove_count_copy(grove_count_t *dst, const grove_count_t *src);

/* True if v is an acceptable value of c. */
bool grove_count_contains(const grove_count_t *c, uint64_t v);

/* The smallest acceptable value > v, or GROVE_COUNT_INF if there is none.
 * With min: for (v = c->min; v != GROVE_COUNT_INF; v = next(c, v)). */
uint64_t grove_count_next(const grove_count_t *c, uint64_t v);

/* The largest acceptable value <= limit ("the most that fits"), stored in
 * *out.  Returns true, or false when even min exceeds limit. */
bool grove_count_fit(const grove_count_t *c, uint64_t limit, uint64_t *out);

/* The canonical text of c: "4", "2-32:2:*", "2+", "4,9,16,25".  Returns a
 * new string (caller frees) or NULL with ENOMEM. */
char *grove_count_encode(const grove_count_t *c);

/* ---- constraints (RFC 31) ---------------------------------------------- */

typedef struct grove_constraint grove_constraint_t;

/* What a constraint is evaluated against: one execution target. */
typedef struct grove_constraint_subject {
    const char *const *properties; /* property names, or NULL */
    size_t nproperties;            /* entries in properties */
    /* Used instead of the array when not NULL: return true if the target
     * has property name. */
    bool (*has_property)(const char *name, void *arg);
    void *arg;                     /* passed to has_property */
    const char *hostname;          /* NULL: unknown (hostlist never matches) */
    int64_t rank;                  /* < 0: unknown (ranks never matches) */
} grove_constraint_subject_t;

/* Compile an RFC 31 constraint object.  Rules: an object with at most one
 * operator; operands in an array; "properties" takes strings, each a name
 * optionally prefixed by "^" (negation) with none of !&'"^`|() after it;
 * "hostlist" takes RFC 29 hostlists; "ranks" takes RFC 22 idsets (strings
 * or non-negative integers); "and", "or", "not" take constraint objects.
 * Empty operands: {} , {"and": []}, {"or": []} and {"properties": []} match
 * everything; {"not": []}, {"hostlist": []} and {"ranks": []} match nothing.
 * "not" negates the "and" of its operands.  path prefixes messages (may be
 * NULL).  Returns a new constraint (caller destroys) or NULL with EINVAL
 * (err filled) or ENOMEM. */
grove_constraint_t *grove_constraint_from_json(const json_t *o, const char *path,
                                               grove_error_t *err);

/* As grove_constraint_from_json for JSON or YAML text ("{"properties":
 * ["ssd"]}" or "properties: [ssd]"). */
grove_constraint_t *grove_constraint_parse(const char *text, grove_error_t *err);

/* Free c.  NULL is a no-op. */
void grove_constraint_destroy(grove_constraint_t *c);

/* 1 if subj satisfies c, 0 if not.  A NULL constraint matches everything. */
int grove_constraint_match(const grove_constraint_t *c,
                           const grove_constraint_subject_t *subj);

/* The constraint as JSON (new reference, caller decrefs), or NULL with
 * ENOMEM.  Operands are kept as given. */
json_t *grove_constraint_to_json(const grove_constraint_t *c);

/* The constraint as compact JSON text with its keys sorted (borrowed, made
 * when it was compiled; NULL for a NULL constraint): two constraints of
 * one key match the same targets. */
const char *grove_constraint_key(const grove_constraint_t *c);

/* ---- jobspecs ---------------------------------------------------------- */

typedef struct grove_jobspec grove_jobspec_t;
typedef struct grove_jobspec_resource grove_jobspec_resource_t;
typedef struct grove_jobspec_task grove_jobspec_task_t;

/* Option flags (bitwise or). */
#define GROVE_JOBSPEC_V1 0x1            /* apply RFC 25 (V1) rules too */
#define GROVE_JOBSPEC_UNIQUE_LABELS 0x2 /* duplicate labels are errors */
#define GROVE_JOBSPEC_YAML 0x4          /* input is YAML (no sniffing) */
#define GROVE_JOBSPEC_JSON 0x8          /* input is JSON (no sniffing) */

/* Largest accepted attributes.system.duration, seconds (2^53). */
#define GROVE_JOBSPEC_DURATION_MAX 9007199254740992.0

/* What a message about a type not in known_types appends to offer the
 * closest known one: written into buf (len bytes), " (did you mean 'X'?)"
 * or "" (the caller's edit distance: the core has none).  Must not fail. */
typedef void (*grove_jobspec_hint_f)(void *arg, const char *name, const char *const *known,
                                     char *buf, size_t len);

typedef struct grove_jobspec_opts {
    unsigned flags;                 /* GROVE_JOBSPEC_* */
    const char *source;             /* name for messages ("job.yaml"), or NULL;
                                     * kept by the jobspec (grove_jobspec_source) */
    const char *const *known_types; /* NULL-terminated list, or NULL = any */
    double duration;                /* > 0: the jobspec's duration, seconds, in
                                     * place of the document's (a scheduler's
                                     * estimate of the job); 0: the document's */
    grove_jobspec_hint_f hint;      /* the offer for a type not in known_types,
                                     * or NULL: none */
    void *hint_arg;                 /* hint's first argument */
} grove_jobspec_opts_t;

/* Parse and validate len bytes of YAML or JSON (JSON when the text starts
 * with '{' and reads as JSON, unless a format flag says).  opts may be NULL.
 * Returns a new jobspec (caller destroys) or NULL with EINVAL (err filled)
 * or ENOMEM. */
grove_jobspec_t *grove_jobspec_parse(const char *text, size_t len,
                                     const grove_jobspec_opts_t *opts,
                                     grove_error_t *err);

/* As grove_jobspec_parse for the file at path; the source name defaults to
 * path.  NULL with ENOENT/EACCES/... if it cannot be read. */
grove_jobspec_t *grove_jobspec_load(const char *path, const grove_jobspec_opts_t *opts,
                                    grove_error_t *err);

/* Validate an already decoded JSON document (not stolen). */
grove_jobspec_t *grove_jobspec_from_json(const json_t *doc, const grove_jobspec_opts_t *opts,
                                         grove_error_t *err);

/* Free js.  NULL is a no-op. */
void grove_jobspec_destroy(grove_jobspec_t *js);

/* The source name js was read with (grove_jobspec_opts_t.source), or
 * NULL (borrowed: valid while js lives). */
const char *grove_jobspec_source(const grove_jobspec_t *js);

/* The declared version (1..9999). */
int grove_jobspec_version(const grove_jobspec_t *js);

/* attributes.system.duration in seconds; 0 when unset (RFC 14: unlimited). */
double grove_jobspec_duration(const grove_jobspec_t *js);

/* The document as validated (borrowed, valid while js lives). */
const json_t *grove_jobspec_json(const grove_jobspec_t *js);

/* attributes.user and attributes.system, or NULL when absent (borrowed). */
const json_t *grove_jobspec_user(const grove_jobspec_t *js);
const json_t *grove_jobspec_system(const grove_jobspec_t *js);

/* The compiled attributes.system.constraints, or NULL when there are none
 * (borrowed). */
const grove_constraint_t *grove_jobspec_constraint(const grove_jobspec_t *js);

/* Warnings (unknown system attributes, unknown task keys, a task slot that
 * names no slot, duplicate labels): how many, and the i-th ("PATH: text"),
 * or NULL when i is out of range (borrowed). */
size_t grove_jobspec_warning_count(const grove_jobspec_t *js);
const char *grove_jobspec_warning(const grove_jobspec_t *js, size_t i);

/* -- the request tree.  Vertices are numbered 0..n-1 in pre-order; pointers
 * stay valid while js lives. */

/* Number of resource vertices in the whole tree. */
size_t grove_jobspec_resource_total(const grove_jobspec_t *js);

/* Vertex i in pre-order, or NULL if out of range. */
const grove_jobspec_resource_t *grove_jobspec_resource_at(const grove_jobspec_t *js,
                                                          size_t i);

/* The first top-level vertex (never NULL for a valid jobspec). */
const grove_jobspec_resource_t *grove_jobspec_resource_first(const grove_jobspec_t *js);

/* Next sibling, first child, parent; NULL when there is none. */
const grove_jobspec_resource_t *grove_jobspec_resource_next(const grove_jobspec_resource_t *r);
const grove_jobspec_resource_t *grove_jobspec_resource_child(const grove_jobspec_resource_t *r);
const grove_jobspec_resource_t *grove_jobspec_resource_parent(const grove_jobspec_resource_t *r);

/* Pre-order index, depth (0 for top level), number of children. */
size_t grove_jobspec_resource_index(const grove_jobspec_resource_t *r);
unsigned grove_jobspec_resource_depth(const grove_jobspec_resource_t *r);
size_t grove_jobspec_resource_nchildren(const grove_jobspec_resource_t *r);

/* type (never NULL); label, unit, id (NULL when absent). */
const char *grove_jobspec_resource_type(const grove_jobspec_resource_t *r);
const char *grove_jobspec_resource_label(const grove_jobspec_resource_t *r);
const char *grove_jobspec_resource_unit(const grove_jobspec_resource_t *r);
const char *grove_jobspec_resource_id(const grove_jobspec_resource_t *r);

/* The count (borrowed). */
const grove_count_t *grove_jobspec_resource_count(const grove_jobspec_resource_t *r);

/* "exclusive" as written: 1 true, 0 false, -1 unset. */
int grove_jobspec_resource_exclusive_raw(const grove_jobspec_resource_t *r);

/* Effective exclusivity (RFC 14): the value written if any; otherwise true
 * for a slot and for everything inside a slot, false elsewhere. */
bool grove_jobspec_resource_exclusive(const grove_jobspec_resource_t *r);

/* True for type "slot". */
bool grove_jobspec_resource_is_slot(const grove_jobspec_resource_t *r);

/* True if an ancestor is a slot. */
bool grove_jobspec_resource_in_slot(const grove_jobspec_resource_t *r);

/* Line of the vertex in the YAML source, 0 if unknown. */
int grove_jobspec_resource_line(const grove_jobspec_resource_t *r);

/* -- tasks */

typedef enum {
    GROVE_TASK_PER_SLOT = 0,
    GROVE_TASK_PER_RESOURCE,
    GROVE_TASK_TOTAL,
} grove_task_count_kind_t;

size_t grove_jobspec_task_count(const grove_jobspec_t *js);
const grove_jobspec_task_t *grove_jobspec_task(const grove_jobspec_t *js, size_t i);

/* command: number of words and word i (NULL if out of range). */
size_t grove_jobspec_task_argc(const grove_jobspec_task_t *t);
const char *grove_jobspec_task_arg(const grove_jobspec_task_t *t, size_t i);

/* The slot label the task runs in. */
const char *grove_jobspec_task_slot(const grove_jobspec_task_t *t);

/* How tasks are counted; *n receives the number and *type (PER_RESOURCE
 * only, else NULL) the resource type; either pointer may be NULL. */
grove_task_count_kind_t grove_jobspec_task_count_kind(const grove_jobspec_task_t *t,
                                                      uint64_t *n, const char **type);

/* distribution (NULL if absent) and the task's attributes (borrowed JSON,
 * NULL if absent). */
const char *grove_jobspec_task_distribution(const grove_jobspec_task_t *t);
const json_t *grove_jobspec_task_attributes(const grove_jobspec_task_t *t);

#endif
