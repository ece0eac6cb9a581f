/* corpus.h: what the C tests of the string-coded formats (test_hostlist.c,
 * test_idset.c) share: running every row of a table of the shared corpus
 * (the .tsv files of ../shared/conformance) and feeding garbage strings to
 * the decoders, drawn from rng.h's generator.  It holds no test of its own,
 * knows no format and has no generator of its own.  Header-only, like tap.h
 * (include tap.h first).
 */
#ifndef GROVE_TEST_CORPUS_H
#define GROVE_TEST_CORPUS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rng.h"

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

/* Call row(lineno, fields) for every row of the corpus table name (not
 * blank, not a '#' comment) that has at least ncols of its at most 8
 * tab-separated fields; a shorter row, or a table that cannot be opened,
 * is a failed test.  Returns the number of rows run. */
static inline int corpus_run(const char *name, int ncols, void (*row)(int lineno, char **f))
{
    const char *path = tap_conformance(name);
    FILE *fp = fopen(path, "r");
    if (!ok(fp != NULL, "open %s", path))
        return 0;
    char line[4096];
    int lineno = 0, rows = 0;
    while (fgets(line, sizeof(line), fp)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *f[8];
        if (corpus_split(line, f, 8) < ncols) {
            ok(0, "%s:%d has fewer than %d columns", name, lineno, ncols);
            continue;
        }
        row(lineno, f);
        rows++;
    }
    fclose(fp);
    return rows;
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
