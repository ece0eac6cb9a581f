/* lsandbox.h: the sandbox a Lua policy runs in (l_sandbox.c over the
 * limits of its runs, l_sandbox_run.c), as the
 * policy binding (l_policy.c) and its vertex views (l_view.c) use it.
 * Nothing here is used outside bindings/.
 *
 * A sandbox is a Lua state of its own, shared with nothing: its own
 * allocator, string metatable, libraries and registry.  Nothing of the
 * host's Lua state is reachable from it and no host Lua code ever runs in
 * it, so a policy cannot reach the host's tables or functions and host
 * code (finalizers, error handlers, iterators) that runs while a match is
 * under way runs in the host's state, untouched by the policy.  Values
 * cross only as C data (strings copied, numbers, vertex ids).
 *
 * Limits:
 *   memory   everything the sandbox holds beyond the empty sandbox (its
 *            libraries and environment), across runs, is capped: an
 *            allocation past the cap is refused (after an emergency
 *            collection);
 *   budget   instructions per run (a count hook every GROVEL_SB_STEP
 *            instructions); library calls whose work grows with their
 *            arguments are charged for it before they work
 *            (l_sandbox_lib.c), and pattern matching counts its own steps;
 *   time     wall-clock seconds per run spent in the policy's code (from
 *            the start to the end of each call into the sandbox; the
 *            matcher's own work between hook calls is not counted),
 *            checked by the count hook, by the pattern matcher, at every
 *            metered library call and every GROVEL_SB_PIECE elements of
 *            the ones that loop, and at every large allocation.
 * A run is one match (or the loading of the policy's chunk).  pcall and
 * xpcall cannot catch the errors these limits raise, and an xpcall message
 * handler is not run for them.
 *
 * Users: placement policies (l_policy.c) and queue policies through the
 * generic script handle (l_script.c).
 *
 * This header must not hold anything of policies (hooks, the policy
 * table, ctx: l_policy.c), of vertex views (l_view.c) or of scripts
 * (l_script.c).
 */
#ifndef GROVEL_LSANDBOX_H
#define GROVEL_LSANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grovel.h"

#define GROVEL_SB_BUDGET 10000000       /* default instructions per run */
#define GROVEL_SB_MEMORY (64 * 1024 * 1024) /* default bytes a policy may hold */
#define GROVEL_SB_TIME 1.0              /* default seconds per run */
#define GROVEL_SB_STEP 1000             /* instructions between two checks */
#define GROVEL_SB_PIECE 4096            /* elements a library call visits between two clock reads */
#define GROVEL_SB_CALLS 16              /* host calls between two clock reads */

/* Why a run was stopped by a limit. */
enum grovel_sb_fatal { GROVEL_SB_OK, GROVEL_SB_BUDGET_OUT, GROVEL_SB_MEMORY_OUT, GROVEL_SB_TIME_OUT };

typedef struct grovel_sandbox {
    lua_State *S;         /* the sandbox's own state; NULL once closed */
    lua_Integer budget;   /* instructions per run */
    size_t memcap;        /* bytes the policy's code and data may hold */
    double time;          /* seconds per run */
    size_t heap;          /* bytes S holds now */
    size_t base;          /* bytes of the empty sandbox (not counted) */
    bool capped;          /* the memory cap applies (the sandbox is built) */
    bool running;         /* a run is in progress: budget and clock apply */
    lua_Integer used;     /* instructions charged in this run */
    int64_t limit_ns;     /* time, in nanoseconds */
    int64_t spent;        /* nanoseconds spent in the sandbox's code this run */
    int64_t entered;      /* CLOCK_MONOTONIC when the current call began, or 0 */
    unsigned ticks;       /* small allocations since the clock was read */
    unsigned calls;       /* host calls charged since the clock was read */
    int fatal;            /* enum grovel_sb_fatal */
    char src[LUA_IDSIZE]; /* where the policy's code was last seen running */
    int line;
    unsigned logged;      /* log messages kept in this run (l_log.c) */
    unsigned dropped;     /* log messages past GROVEL_LOG_RUN in this run */
    void *views;          /* a policy's vertex views (l_view.c), or NULL */
    /* Told when the code running uses a value no match gives (math.random,
     * the address of a table as tostring or string.format shows it), or
     * NULL; may raise. */
    void (*hidden)(lua_State *S, void *arg, const char *what);
    void *hidden_arg;
} grovel_sandbox_t;

/* Push a function of S (a sandbox's state) that returns a new array of
 * its arguments, in order: made by the table constructor of a small Lua
 * function, which stores them straight into the array part.  Called with
 * n values (lua_call(S, n, 1)), it runs a few instructions charged to
 * the run whatever n is, where one lua_rawseti per element costs several
 * times as much for lists of more than GROVEL_SB_ARRAY_MIN elements.  The
 * caller checks the stack for the n values; up to GROVEL_SB_ARRAY_MAX. */
void grovel_sandbox_push_array_maker(lua_State *S);
#define GROVEL_SB_ARRAY_MIN 32
#define GROVEL_SB_ARRAY_MAX 65536

#define GROVEL_LOG_RUN 100   /* log messages a run keeps */
#define GROVEL_LOG_LEN 1024  /* bytes of one log message kept */

/* log(level, fmt, ...) in a sandbox (l_log.c): a C closure whose upvalue
 * is the sandbox's string.format. */
int grovel_log_lua(lua_State *S);

/* At the end of a run: report the messages the run dropped, and start the
 * count anew (l_log.c).  Never raises. */
void grovel_log_run_end(grovel_sandbox_t *sb);

/* Create the sandbox's state and environment (sb's limits must be set;
 * chunk names the policy in messages until its code has run).  0, or -1
 * with ENOMEM; sb->S is NULL on failure. */
int grovel_sandbox_open(grovel_sandbox_t *sb, const char *chunk);

/* Close the state (NULL: already closed). */
void grovel_sandbox_close(grovel_sandbox_t *sb);

/* Push the policy's environment on S (never raises). */
void grovel_sandbox_push_env(grovel_sandbox_t *sb);

/* Begin and end a run: the budget and the clock start anew at begin.
 * Never raise. */
void grovel_sandbox_start(grovel_sandbox_t *sb);
void grovel_sandbox_stop(grovel_sandbox_t *sb);

/* In a C function called from the policy's code in S: charge work
 * instructions to the run, and raise the limit's error when a limit is past
 * (also when one was already past). */
void grovel_sandbox_charge(lua_State *S, lua_Integer work);

/* In a host function the policy called (a script's API): charge the call
 * one instruction, and raise when a limit is past.  The clock is read at
 * every GROVEL_SB_CALLS-th call: a loop of cheap calls does not pay a read
 * each, and one of costly calls is still stopped within that many calls
 * of its time limit. */
void grovel_sandbox_charge_call(lua_State *S);

/* Replace the functions of the library table on top of S whose work grows
 * with their arguments by metered ones (l_sandbox_lib.c); lib is its name
 * ("_G" for the environment's base functions, "table", "string", "utf8"). */
void grovel_sandbox_meter(lua_State *S, const char *lib);

/* The limits' own pieces (l_sandbox_run.c), which grovel_sandbox_open
 * installs: the allocator of a sandbox's state (ud is the sandbox), its
 * count hook, and whether the run is past its time limit (which it then
 * records in sb->fatal). */
void *grovel_sandbox_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
void grovel_sandbox_count_hook(lua_State *S, lua_Debug *ar);
bool grovel_sandbox_out_of_time(grovel_sandbox_t *sb);

/* Raise the error of the limit that stopped the run (sb->fatal set) on S. */
int grovel_sandbox_raise(lua_State *S);

/* The sandbox that owns S. */
grovel_sandbox_t *grovel_sandbox_of(lua_State *S);

/* Call the function below nargs arguments on S with a traceback handler
 * (lua_pcall's status; the error value, traceback appended, on top). */
int grovel_sandbox_pcall(grovel_sandbox_t *sb, int nargs, int nresults);

/* The message of a failed run into buf: for a limit, "FILE:LINE: instruction
 * budget of N exceeded" (and the same for memory and time); else NULL (the
 * caller reports the error value). */
const char *grovel_sandbox_limit_message(const grovel_sandbox_t *sb, int status,
                                         const char *where, char *buf, size_t len);

/* Parse the limits of an options table at arg of the host state L
 * ({budget =, memory =, time =}, each optional); raises on misuse.  names
 * (NULL-ended) lists every option key the caller accepts, the limits
 * among them, or is NULL for the limits alone: a key not in it is refused
 * with the list as the options there are, and a key in it that is not a
 * limit is left to the caller. */
void grovel_sandbox_check_limits(lua_State *L, int arg, grovel_sandbox_t *sb,
                                 const char *const *names);

/* Make the libraries of the sandbox's environment (math, string, table,
 * utf8) read-only: what they hold stays, any write raises.  A policy's
 * code may change them while its chunk runs, never after (its hooks'
 * code reads them as constants: l_policy_proof.c).  Call protected. */
void grovel_sandbox_freeze(grovel_sandbox_t *sb);

/* Is the table at idx a library made read-only? */
bool grovel_sandbox_frozen(lua_State *S, int idx);

/* The code running used what: a value no match gives (sb->hidden). */
void grovel_sandbox_hidden(lua_State *S, const char *what);

/* The type of the value at idx by its metatable's __name (read raw: no
 * code runs) or its basic type. */
const char *grovel_sandbox_typename(lua_State *S, int idx);

#endif
