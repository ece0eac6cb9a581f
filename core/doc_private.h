/* doc_private.h: reading request documents (doc.c), shared by the
 * jobspec reader (jobspec.c) and the constraint parser (constraint.c).
 *
 * Input text (YAML or JSON) is read into a jansson document plus a "line
 * shadow": a parallel tree that records where each node started, so that
 * validation can report lines without the document itself carrying them.
 * Shadow shape: a scalar's shadow is a JSON integer (its 1-based line); an
 * array's shadow is [line, shadow0, shadow1, ...]; an object's shadow is
 * [line, {key: shadow, ...}].  A NULL shadow means "no line information"
 * (JSON input) and every lookup then yields line 0.
 *
 * It must not hold anything the rest of libgrove should call: that goes
 * through jobspec.h.
 */
#ifndef GROVE_DOC_PRIVATE_H
#define GROVE_DOC_PRIVATE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "error.h"
#include "jobspec.h"

/* Read text as YAML or JSON (flags GROVE_JOBSPEC_YAML / _JSON, else sniff).
 * On success *doc and *lines are new references (*lines may be NULL) and 0
 * is returned; on failure -1 with errno EINVAL/ENOMEM and err filled with
 * the source and line.  An empty or all-comment document is an error. */
int grovep_doc_read(const char *text, size_t len, unsigned flags, const char *source,
                    json_t **doc, json_t **lines, grove_error_t *err);

/* The line recorded in shadow sh (0 if unknown). */
int grovep_line(const json_t *sh);

/* Shadow of member key of an object shadow / element i of an array shadow
 * (NULL if unknown). */
const json_t *grovep_shadow_key(const json_t *sh, const char *key);
const json_t *grovep_shadow_index(const json_t *sh, size_t i);

/* A key path under construction: "resources[0].with[1].count". */
typedef struct grovep_path {
    char buf[384]; /* NUL-terminated; truncated with "..." if too long */
    size_t len;    /* strlen(buf) */
} grovep_path_t;

/* Append ".key" (or "key" at the start) / "[i]"; return the previous length
 * for grovep_path_pop. */
size_t grovep_path_key(grovep_path_t *p, const char *key);
size_t grovep_path_index(grovep_path_t *p, size_t i);
void grovep_path_pop(grovep_path_t *p, size_t len);

/* A short name for the JSON type of v ("a string", "a list", ...). */
const char *grovep_typename(const json_t *v);

/* Whether s is one of the strings of the NULL-ended list. */
bool grovep_str_in(const char *s, const char *const *list);

#endif
