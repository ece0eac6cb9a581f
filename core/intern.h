/* intern.h: string interning.
 *
 * Every type, basename, name, unit, subsystem, relationship and property key
 * of a graph is stored once and referred to by a small integer (a symbol), so
 * the hot paths compare integers and each vertex holds 4 bytes per string.
 * Symbols are dense, start at 0 (the empty string) and are never freed while
 * the table lives.
 *
 * This header must not hold the layout of the table (intern.c) or what the
 * symbols mean (graph.h).
 */
#ifndef GROVE_INTERN_H
#define GROVE_INTERN_H

#include <stddef.h>
#include <stdint.h>

typedef uint32_t grove_sym_t;
#define GROVE_SYM_NONE UINT32_MAX /* "no such string" */
#define GROVE_SYM_EMPTY 0         /* the empty string, always present */

typedef struct grove_intern grove_intern_t;

/* New empty table holding only "".  NULL with ENOMEM. */
grove_intern_t *grove_intern_create(void);

/* Free the table and every string.  NULL is a no-op. */
void grove_intern_destroy(grove_intern_t *t);

/* A deep copy.  NULL with ENOMEM. */
grove_intern_t *grove_intern_copy(const grove_intern_t *t);

/* The symbol of s, adding it if new.  GROVE_SYM_NONE with ENOMEM, or EINVAL
 * when s is NULL. */
grove_sym_t grove_intern(grove_intern_t *t, const char *s);

/* As grove_intern, for a string of len bytes (need not be NUL-terminated). */
grove_sym_t grove_intern_n(grove_intern_t *t, const char *s, size_t len);

/* The symbol of s if present, GROVE_SYM_NONE otherwise (errno unchanged). */
grove_sym_t grove_intern_lookup(const grove_intern_t *t, const char *s);

/* The string of a symbol (borrowed, valid while the table lives), or NULL
 * for an unknown symbol. */
const char *grove_intern_str(const grove_intern_t *t, grove_sym_t sym);

/* Number of symbols, including "". */
size_t grove_intern_count(const grove_intern_t *t);

/* Bytes held by the table (strings, index), for memory accounting. */
size_t grove_intern_bytes(const grove_intern_t *t);

#endif
