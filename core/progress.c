/* progress.c: the process-wide progress hook (see progress.h).
 *
 * Workload: a report every thousand items of a long loop; a test of a
 * pointer when no host listens.
 */
#include <stddef.h>

#include "progress.h"

static grove_progress_fn hook; /* the host's function, or NULL */
static void *hook_arg;

void grove_progress_set(grove_progress_fn fn, void *arg)
{
    hook = fn;
    hook_arg = arg;
}

void grove_progress_report(const char *step, uint64_t done, uint64_t total)
{
    if (hook)
        hook(hook_arg, step, done, total, false);
}

void grove_progress_end(const char *step)
{
    if (hook)
        hook(hook_arg, step, 0, 0, true);
}
