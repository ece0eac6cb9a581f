/* l_signal.c: a long run that is asked to stop by a signal ends where it
 * stands, and says so, instead of dying with nothing written.
 *
 *   core.catch_stop(on)  while on, SIGINT and SIGTERM no longer end the
 *                        process: the first one is noted, and that
 *                        signal's default action comes back (a second one
 *                        ends the process at once).  A signal ignored when
 *                        the process began (a background job's SIGINT)
 *                        stays ignored.  off: the defaults again, and
 *                        nothing noted
 *   core.stop_signal()   the name ("SIGINT", "SIGTERM") and number of the
 *                        signal noted since catch_stop(true), or nil
 *
 * grove sim turns it on for a run and looks once a step: a run stopped so
 * writes its summary so far, marked partial.  The handler only stores the
 * signal's number (async-signal-safe): nothing unwinds from it, no Lua
 * runs in it.  SA_RESTART: a read of the trace from a pipe goes on after
 * the signal, and the run stops at its next step.
 */
#include <signal.h>
#include <string.h>

#include "grovel.h"

static volatile sig_atomic_t noted; /* the signal caught, 0: none */

static void on_stop(int sig)
{
    noted = sig;
}

/* Whether sig was ignored when the process began (its action before
 * catch_stop first changed it). */
static bool ignored_at_start(int sig)
{
    static int known;       /* bit per signal: looked at */
    static int was_ignored; /* bit per signal: SIG_IGN then */
    int bit = sig == SIGINT ? 1 : 2;
    if (!(known & bit)) {
        struct sigaction old;
        if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            was_ignored |= bit;
        known |= bit;
    }
    return (was_ignored & bit) != 0;
}

static int l_catch_stop(lua_State *L)
{
    bool on = lua_toboolean(L, 1);
    static const int sigs[] = {SIGINT, SIGTERM};
    noted = 0;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        if (ignored_at_start(sigs[i]))
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sigemptyset(&sa.sa_mask);
        sa.sa_handler = on ? on_stop : SIG_DFL;
        sa.sa_flags = on ? SA_RESTART | SA_RESETHAND : 0;
        sigaction(sigs[i], &sa, NULL);
    }
    return 0;
}

static int l_stop_signal(lua_State *L)
{
    int sig = noted;
    if (!sig)
        return 0;
    lua_pushstring(L, sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "signal");
    lua_pushinteger(L, sig);
    return 2;
}

#include "api_signal.h"
