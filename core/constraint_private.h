/* constraint_private.h: what the jobspec reader (jobspec.c) calls in the
 * constraint parser (constraint.c) beyond jobspec.h: compiling the
 * constraint found in a jobspec's attributes, with the document's lines.
 */
#ifndef GROVE_CONSTRAINT_PRIVATE_H
#define GROVE_CONSTRAINT_PRIVATE_H

#include "doc_private.h"

/* Compile a constraint object at path p with shadow sh (NULL allowed),
 * reporting errors against source.  See grove_constraint_from_json. */
grove_constraint_t *grovep_constraint_compile(const json_t *o, const json_t *sh,
                                              grovep_path_t *p, const char *source,
                                              grove_error_t *err);

#endif
