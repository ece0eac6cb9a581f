/* progress.h: how far a long step has come, for a host that shows it.
 *
 * Reading a JGF of 16,384 nodes takes seconds and writing one tens of
 * seconds; a person at a terminal should see that something moves.  core/
 * draws nothing: a long loop reports (step, done, total) through one
 * process-wide hook that the host sets (the Lua binding draws a line on a
 * terminal, or calls a script's function).  With no hook, a report costs a
 * test of one pointer.
 *
 * Loops report through GROVE_PROGRESS every 1,024 items or so (the hook
 * reads a clock), and grove_progress_end when the step is over, also when
 * it fails.  Steps do not nest: a report of another step starts it anew.
 */
#ifndef GROVE_PROGRESS_H
#define GROVE_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

/* The hook: step names the work ("reading JGF"), a static string; done of
 * total units (total 0: unknown); end true once, when the step is over. */
typedef void (*grove_progress_fn)(void *arg, const char *step, uint64_t done, uint64_t total,
                                  bool end);

/* Set the hook (NULL: none), process-wide. */
void grove_progress_set(grove_progress_fn fn, void *arg);

/* Report done of total units of step (call it every so often). */
void grove_progress_report(const char *step, uint64_t done, uint64_t total);

/* The step is over (done or failed). */
void grove_progress_end(const char *step);

/* Report when i is a multiple of 1,024: for a loop over items. */
#define GROVE_PROGRESS(step, i, done, total)                                                \
    do {                                                                                    \
        if (((i) & 1023) == 0)                                                              \
            grove_progress_report((step), (done), (total));                                 \
    } while (0)

#endif
