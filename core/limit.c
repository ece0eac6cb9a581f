/* limit.c: the readers' limits (limit.h), from defaults and the
 * environment.
 *
 * Read at each use, so a process that sets a variable before loading sees
 * it, and no state is kept.  The default vertex limit follows the
 * machine's physical memory, so that a recipe is refused before it uses
 * up the memory rather than after.
 *
 * This file must not hold any reader's checks.
 */
#include <stdlib.h>
#include <unistd.h>

#include "limit.h"

#define BYTES_PER_VERTEX 256u
#define GRUG_CAP 50000000u

/* The environment variable name as a number, or dflt when unset or not
 * a number ("64M", "1G", "1000000"). */
static uint64_t from_env(const char *name, uint64_t dflt)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return dflt;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *s == '-')
        return dflt;
    int shift = 0;
    switch (*end) {
    case 'K': case 'k': shift = 10; end++; break;
    case 'M': case 'm': shift = 20; end++; break;
    case 'G': case 'g': shift = 30; end++; break;
    case 'T': case 't': shift = 40; end++; break;
    default: break;
    }
    if (*end || v == 0 || v > (UINT64_MAX >> shift))
        return dflt;
    return (uint64_t)v << shift;
}

static uint64_t vertices_by_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || psize <= 0)
        return GRUG_CAP;
    uint64_t v = (uint64_t)pages * (uint64_t)psize / 4 / BYTES_PER_VERTEX;
    return v < GRUG_CAP ? (v ? v : 1) : GRUG_CAP;
}

void grove_limits_get(grove_limits_t *out)
{
    out->input = from_env("GROVE_MAX_INPUT", 1ull << 30);
    out->depth = from_env("GROVE_MAX_DEPTH", 1000000);
    out->members = from_env("GROVE_MAX_MEMBERS", 1ull << 24);
    out->vertices = from_env("GROVE_MAX_VERTICES", vertices_by_memory());
    out->size = from_env("GROVE_MAX_SIZE", 1ull << 53);
}
