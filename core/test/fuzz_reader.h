/* fuzz_reader.h: the libFuzzer entry point the readers' fuzz targets
 * share (fuzz_grug.c, fuzz_hostlist.c, fuzz_idset.c, fuzz_rv1.c,
 * fuzz_topo.c): read the input, abort when a refusal does not say why,
 * and hand what was accepted to the target's own checks.
 *
 * The including target defines the two functions declared here; it holds
 * the reader's call and the checks of what the reader accepted, this
 * header nothing of any format.  Include it once, in a target of
 * scripts/fuzz (never in a test of the Makefile's: it defines the entry
 * point).
 */
#ifndef GROVE_FUZZ_READER_H
#define GROVE_FUZZ_READER_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the target's reader made of the input (new), or NULL with err
 * filled. */
static void *fuzz_read(const char *data, size_t size, grove_error_t *err);

/* The target's checks of what fuzz_read accepted (abort on a failure);
 * it frees obj. */
static void fuzz_accepted(void *obj);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    grove_error_t err;
    void *obj = fuzz_read((const char *)data, size, &err);
    if (!obj) {
        if (!err.text[0])
            abort(); /* a refusal must say why */
        return 0;
    }
    fuzz_accepted(obj);
    return 0;
}

#endif
