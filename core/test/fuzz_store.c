/* fuzz_store.c: libFuzzer target for the store's readers: SQLite store
 * files and JSON state files.
 *
 * An input that starts like an SQLite database is written to a scratch
 * file and loaded as a store (read-only open, grove_store_load, then
 * grove_store_check, which must agree: whatever check refuses, load
 * refuses too); any other input is read as a state file.  A refusal must
 * say why; an accepted state is saved again into a fresh store and must
 * load.  Built by scripts/fuzz, not by the Makefile's test rules.  Seeds:
 * core/test/fuzz/seeds/store (a store and a state file of a small machine
 * with jobs, reservations and an acquisition state).
 *
 * It holds only the fuzz entry point: no TAP output, no checks that belong
 * in test_store.c, no main().
 *
 * FUZZ_MAX_LEN: 65536
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A scratch path of this process (the same one for every input). */
static const char *scratch(const char *suffix, char *buf, size_t n)
{
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(buf, n, "%s/grove-fuzz-store-%ld%s", tmp, (long)getpid(), suffix);
    return buf;
}

static void put_file(const char *path, const uint8_t *data, size_t size)
{
    char wal[600];
    snprintf(wal, sizeof(wal), "%s-wal", path);
    unlink(wal);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
}

/* Save what was loaded into a fresh store and load it again (when save),
 * then free it. */
static void save_again(grove_graph_t *g, grove_matcher_t *m, grove_acquire_t *a);

static void save_again_free(grove_graph_t *g, grove_matcher_t *m, grove_acquire_t *a, bool save)
{
    if (save)
        save_again(g, m, a);
    grove_acquire_destroy(a);
    grove_matcher_destroy(m);
    grove_graph_destroy(g);
}

/* Save what was loaded into a fresh store and load it again. */
static void save_again(grove_graph_t *g, grove_matcher_t *m, grove_acquire_t *a)
{
    char p[512], side[600];
    grove_error_t err;
    scratch(".again", p, sizeof(p));
    unlink(p);
    snprintf(side, sizeof(side), "%s-wal", p);
    unlink(side);
    grove_store_t *s = grove_store_open(p, GROVE_STORE_CREATE | GROVE_STORE_NORMAL_SYNC, &err);
    if (!s || grove_store_save(s, g, m, a, 0, NULL, &err) < 0)
        abort(); /* what was accepted must save */
    grove_graph_t *g2;
    grove_matcher_t *m2;
    grove_acquire_t *a2;
    if (grove_store_load(s, NULL, &g2, &m2, &a2, &err) < 0)
        abort(); /* and read back */
    grove_acquire_destroy(a2);
    grove_matcher_destroy(m2);
    grove_graph_destroy(g2);
    grove_store_close(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char p[512];
    grove_error_t err, err2;
    static const char magic[] = "SQLite format 3";
    if (size >= sizeof(magic) && !memcmp(data, magic, sizeof(magic))) {
        put_file(scratch(".db", p, sizeof(p)), data, size);
        grove_store_t *s = grove_store_open(p, GROVE_STORE_READONLY, &err);
        if (!s) {
            if (!err.text[0])
                abort();
            return 0;
        }
        grove_graph_t *g;
        grove_matcher_t *m;
        grove_acquire_t *a;
        int lrc = grove_store_load(s, NULL, &g, &m, &a, &err);
        int crc = grove_store_check(s, &err2);
        if ((lrc < 0 && !err.text[0]) || (lrc == 0 && crc < 0))
            abort(); /* load accepted what check refuses */
        if (lrc == 0)
            save_again_free(g, m, a, true);
        grove_store_close(s);
        return 0;
    }
    put_file(scratch(".json", p, sizeof(p)), data, size);
    grove_image_t *im = grove_image_read_file(p, &err);
    if (!im) {
        if (!err.text[0])
            abort();
        return 0;
    }
    grove_graph_t *g = grove_image_take_graph(im);
    grove_matcher_t *m = grove_image_has_jobs(im) ? grove_matcher_create(g, NULL) : NULL;
    grove_acquire_t *a = NULL;
    int rc = grove_image_restore_jobs(im, m, &err);
    if (rc == 0 && grove_image_has_acquire(im)) {
        a = grove_acquire_create(g, m, NULL, GROVE_ACQUIRE_AUTO);
        rc = a ? grove_image_restore_acquire(im, a, &err) : -1;
    }
    if (rc < 0 && !err.text[0])
        abort();
    save_again_free(g, m, a, rc == 0);
    grove_image_destroy(im);
    return 0;
}
