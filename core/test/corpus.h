/* corpus.h: what the C tests reading tables share (test_hostlist.c,
 * test_idset.c, test_match.c, ...): running every row of a table of the shared corpus
 * (the .tsv files of ../shared/conformance) and feeding garbage strings to
 * the decoders, drawn from rng.h's generator.  It holds no test of its own,
 * knows no format and has no generator of its own.  Header-only, like tap.h
 * (include tap.h first).
 */
#ifndef GROVE_TEST_CORPUS_H
#define GROVE_TEST_CORPUS_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "rng.h"

/* The most columns a table row has (the corpus's tests.tsv: 17). */
#define CORPUS_MAX_COLS 20

/* Split line (modified in place) at tabs; returns the number of fields. */
static inline int corpus_split(char *line, char **f, int max)
{
    int n = 0;
    f[n++] = line;
    for (char *p = line; *p && n < max; p++) {
        if (*p == '\t') {
            *p = '\0';
            f[n++] = p + 1;
        }
    }
    return n;
}

/* Undo the escapes a field of the project's own vectors may hold, in
 * place: \\n, \\t, \\\\ and \\xNN (two hex digits), so a field can carry
 * newlines, tabs and control bytes.  A single "-" stands for no value and
 * is left for the row to read. */
static inline void corpus_unescape(char *s)
{
    char *o = s;
    for (; *s; s++) {
        unsigned hi, lo;
        if (*s != '\\') {
            *o++ = *s;
        } else if (s[1] == 'n' || s[1] == 't' || s[1] == '\\') {
            s++;
            *o++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : '\\';
        } else if (s[1] == 'x' && sscanf(s + 2, "%1x%1x", &hi, &lo) == 2) {
            *o++ = (char)(hi << 4 | lo);
            s += 3;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
}

/* The field f of a vector row, or NULL where it is "-". */
static inline const char *corpus_field(const char *f)
{
    return strcmp(f, "-") == 0 ? NULL : f;
}

/* The errno a vector row names: a code of Grove's error vocabulary
 * (error.h, the one list of them) by its name, else the number f holds. */
static inline int corpus_errno(const char *f)
{
#define CORPUS_CODE(code, meaning)   \
    if (strcmp(f, #code) == 0)       \
        return code;
    GROVE_ERRNO_VOCABULARY(CORPUS_CODE)
#undef CORPUS_CODE
    return atoi(f);
}

/* Call row(lineno, fields) for every row of the table at path (not blank,
 * not a '#' comment) that has at least ncols of its at most CORPUS_MAX_COLS
 * tab-separated fields, each unescaped when unescape is set; a shorter
 * row, or a table that cannot be opened, is a failed test.  Returns the
 * number of rows run. */
static inline int corpus_run_path(const char *path, int ncols, bool unescape,
                                  void (*row)(int lineno, char **f))
{
    FILE *fp = fopen(path, "r");
    if (!ok(fp != NULL, "open %s", path))
        return 0;
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, rows = 0;
    while (getline(&line, &cap, fp) >= 0) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *f[CORPUS_MAX_COLS];
        int n = corpus_split(line, f, CORPUS_MAX_COLS);
        if (n < ncols) {
            ok(0, "%s:%d has fewer than %d columns", path, lineno, ncols);
            continue;
        }
        for (int i = 0; unescape && i < n; i++)
            corpus_unescape(f[i]);
        row(lineno, f);
        rows++;
    }
    free(line);
    fclose(fp);
    return rows;
}

/* corpus_run_path over the shared corpus table name, taken as written. */
static inline int corpus_run(const char *name, int ncols, void (*row)(int lineno, char **f))
{
    return corpus_run_path(tap_conformance(name), ncols, false, row);
}

/* corpus_run_path over the project's own vector table core/test/vectors/name
 * (tests run from the project's top directory), with escapes undone. */
static inline int vectors_run(const char *name, int ncols, void (*row)(int lineno, char **f))
{
    char path[512];
    snprintf(path, sizeof(path), "core/test/vectors/%s", name);
    return corpus_run_path(path, ncols, true, row);
}

/* Fill buf with a random length (< size) of characters drawn from alphabet,
 * one in one_in of them an arbitrary byte; returns the length. */
static inline size_t corpus_garbage(char *buf, size_t size, const char *alphabet,
                                    uint32_t one_in)
{
    size_t len = rng_next() % size, n = strlen(alphabet);
    for (size_t i = 0; i < len; i++)
        buf[i] = rng_next() % one_in == 0 ? (char)(rng_next() & 0xff) : alphabet[rng_next() % n];
    return len;
}

/* What a decoder under corpus_garbage_run did with one string. */
enum { CORPUS_BAD, CORPUS_REFUSED, CORPUS_DECODED };

/* Feed trials garbage strings (shorter than size, at most 64) to try,
 * which says whether its decoder refused the string as it should, decoded
 * it with every check on the result holding, or did neither.  One ok line:
 * nothing bad and at least one string decoded. */
static inline void corpus_garbage_run(size_t size, const char *alphabet, uint32_t one_in,
                                      int trials, int (*try)(const char *buf, size_t len))
{
    int decoded = 0, bad = 0;
    char buf[64];
    for (int t = 0; t < trials; t++) {
        size_t len = corpus_garbage(buf, size < sizeof(buf) ? size : sizeof(buf), alphabet,
                                    one_in);
        int what = try(buf, len);
        decoded += what == CORPUS_DECODED;
        bad += what == CORPUS_BAD;
    }
    diag("%d of %d garbage strings decoded", decoded, trials);
    ok(bad == 0 && decoded > 0, "garbage: errors name a position, successes round-trip");
}

#endif
