/* tap.h: a minimal Test Anything Protocol harness for Grove's C unit tests.
 *
 * Each test binary prints "ok N - what" / "not ok N - what" lines and a
 * closing plan; scripts/run-tests counts them.  Header-only so every test is
 * a single file.  Tests are table driven: loop over rows, call ok() per row.
 *
 * It holds the harness only: no test helpers (grovetest.h), no
 * generator (rng.h), no corpus reading (corpus.h).
 *
 * It must not hold test fixtures or helpers that build Grove objects
 * (grovetest.h, corpus.h, rng.h have those): only the TAP harness.
 */
#ifndef GROVE_TAP_H
#define GROVE_TAP_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count;   /* tests run so far */
static int tap_failed;  /* of which failed */

static void tap_vok(int pass, const char *file, int line, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
static void tap_vok(int pass, const char *file, int line, const char *fmt, va_list ap)
{
    tap_count++;
    if (!pass)
        tap_failed++;
    printf("%sok %d - ", pass ? "" : "not ", tap_count);
    vprintf(fmt, ap);
    printf("\n");
    if (!pass)
        printf("#   failed at %s:%d\n", file, line);
    fflush(stdout);
}

static inline int tap_ok(int pass, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline int tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tap_vok(pass, file, line, fmt, ap);
    va_end(ap);
    return pass;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

/* is_str: compare two strings (NULL-safe), print both on mismatch. */
#define is_str(got, want, ...) \
    tap_is_str((got), (want), __FILE__, __LINE__, __VA_ARGS__)
static inline int tap_is_str(const char *got, const char *want, const char *file,
                             int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static inline int tap_is_str(const char *got, const char *want, const char *file,
                             int line, const char *fmt, ...)
{
    int pass = (got == NULL && want == NULL)
               || (got != NULL && want != NULL && strcmp(got, want) == 0);
    va_list ap;
    va_start(ap, fmt);
    tap_vok(pass, file, line, fmt, ap);
    va_end(ap);
    if (!pass)
        printf("#   got:  '%s'\n#   want: '%s'\n", got ? got : "(null)",
               want ? want : "(null)");
    return pass;
}

/* is_int: compare two integers, print both on mismatch. */
#define is_int(got, want, ...) \
    tap_is_int((long long)(got), (long long)(want), __FILE__, __LINE__, __VA_ARGS__)
static inline int tap_is_int(long long got, long long want, const char *file, int line,
                             const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static inline int tap_is_int(long long got, long long want, const char *file, int line,
                             const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tap_vok(got == want, file, line, fmt, ap);
    va_end(ap);
    if (got != want)
        printf("#   got:  %lld\n#   want: %lld\n", got, want);
    return got == want;
}

/* is_made: one row of a table of constructor calls, named what: obj was
 * made when err is 0, else refused (NULL) with errno err.  Call it before
 * anything that may change errno. */
#define is_made(obj, err, what) tap_is_made((obj) != NULL, (err), (what), __FILE__, __LINE__)
static inline int tap_is_made(int made, int err, const char *what, const char *file, int line)
{
    if (err)
        return tap_ok(!made && errno == err, file, line, "create, %s: %s", what, strerror(err));
    return tap_ok(made, file, line, "create, %s: succeeds", what);
}

/* ok_destroy_null: destroy(NULL) is a no-op that leaves errno alone. */
#define ok_destroy_null(destroy)                                                   \
    do {                                                                           \
        errno = 12345;                                                             \
        destroy(NULL);                                                             \
        ok(errno == 12345, "%s(NULL) is a no-op (errno untouched)", #destroy);     \
    } while (0)

/* diag: a comment line in the output. */
#define diag(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))

/* tap_conformance: path of a file in the shared conformance corpus.  The
 * corpus lives beside the project (../shared/conformance) unless the
 * environment says otherwise.  Returns a static buffer. */
static inline const char *tap_conformance(const char *rel)
{
    static char buf[4096];
    const char *dir = getenv("GROVE_CONFORMANCE");
    snprintf(buf, sizeof(buf), "%s/%s", dir ? dir : "../shared/conformance", rel);
    return buf;
}

/* done_testing: print the plan, return the exit status for main(). */
static inline int done_testing(void)
{
    printf("1..%d\n", tap_count);
    return tap_failed ? 1 : 0;
}

#endif
