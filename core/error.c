/* error.c: filling grove_error_t, failing with it (error_private.h), and
 * naming errno values.  See error.h.
 *
 * This file holds no module's own errors and no state: the names are in
 * constant tables.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "error_private.h"

void grove_error_set(grove_error_t *err, const char *source, int line,
                     const char *fmt, ...)
{
    if (!err)
        return;
    int saved = errno;
    size_t n = 0;
    if (source && line > 0)
        n = (size_t)snprintf(err->text, sizeof(err->text), "%s:%d: ", source, line);
    else if (source)
        n = (size_t)snprintf(err->text, sizeof(err->text), "%s: ", source);
    if (n >= sizeof(err->text))
        n = sizeof(err->text) - 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->text + n, sizeof(err->text) - n, fmt, ap);
    va_end(ap);
    err->line = line;
    errno = saved;
}

void grove_error_prefix(grove_error_t *err, const char *source)
{
    if (!err || !source)
        return;
    char tmp[sizeof(err->text)];
    size_t sl = strlen(source), tl = strlen(err->text);
    if (sl + 2 >= sizeof(tmp))
        sl = sizeof(tmp) - 3;
    memcpy(tmp, source, sl);
    memcpy(tmp + sl, ": ", 2);
    if (sl + 2 + tl >= sizeof(tmp))
        tl = sizeof(tmp) - sl - 3;
    memcpy(tmp + sl + 2, err->text, tl);
    tmp[sl + 2 + tl] = '\0';
    memcpy(err->text, tmp, sizeof(err->text));
}

int grovep_error_vfail(grove_error_t *err, int e, const char *source, int line, const char *place,
                       size_t cap, const char *fmt, va_list ap)
{
    if (err) {
        char reason[sizeof(err->text)];
        vsnprintf(reason, cap < sizeof(reason) ? cap : sizeof(reason), fmt, ap);
        if (place && *place)
            grove_error_set(err, source, line, "%s: %s", place, reason);
        else
            grove_error_set(err, source, line, "%s", reason);
    }
    errno = e;
    return -1;
}

int grovep_error_fail(grove_error_t *err, int e, const char *source, int line, const char *fmt, ...)
{
    GROVEP_VFAIL_RETURN(fmt, err, e, source, line, NULL, sizeof(err->text));
}

int grovep_errorf(grove_error_t *err, int e, const char *fmt, ...)
{
    GROVEP_VFAIL_RETURN(fmt, err, e, NULL, 0, NULL, sizeof(err->text));
}

void grovep_error_input(grove_error_t *err, const char *kind, const char *s, size_t len,
                        size_t pos, const char *reason)
{
    char shown[41], c[8] = "";
    int n = len > 40 ? 40 : (int)len;
    for (int i = 0; i < n; i++) {
        unsigned char b = (unsigned char)s[i];
        shown[i] = b >= 0x20 && b < 0x7f ? (char)b : '?';
    }
    shown[n] = '\0';
    if (!reason) {
        unsigned char b = (unsigned char)s[pos];
        if (b >= 0x20 && b < 0x7f && b != '\'')
            snprintf(c, sizeof(c), "'%c'", b);
        else
            snprintf(c, sizeof(c), "'\\x%02x'", b);
    }
    grove_error_set(err, NULL, 0, "invalid %s \"%.*s%s\": %s%s at position %zu", kind, n, shown,
                    len > 40 ? "..." : "", reason ? "" : "unexpected ", reason ? reason : c,
                    pos + 1);
}

int grovep_error_nomem(grove_error_t *err, const char *source)
{
    grove_error_set(err, source, 0, "out of memory");
    errno = ENOMEM;
    return -1;
}

void grove_error_clear(grove_error_t *err)
{
    if (err) {
        err->text[0] = '\0';
        err->line = 0;
    }
}

/* The system errors a loader may let through, named as they are, besides
 * the vocabulary's codes. */
static const struct errno_name {
    int code;
    const char *name;
} passed_through[] = {
    {EACCES, "EACCES"}, {EISDIR, "EISDIR"}, {ENOTDIR, "ENOTDIR"},
    {ELOOP, "ELOOP"}, {ENAMETOOLONG, "ENAMETOOLONG"}, {EMFILE, "EMFILE"},
    {ENFILE, "ENFILE"}, {EPERM, "EPERM"}, {ENXIO, "ENXIO"}, {EFBIG, "EFBIG"},
    {ENOTSUP, "ENOTSUP"}, {ETIMEDOUT, "ETIMEDOUT"},
};

const char *grove_errno_name(int errnum)
{
#define NAME_OF(code, meaning) \
    if (errnum == code)        \
        return #code;
    GROVE_ERRNO_VOCABULARY(NAME_OF)
#undef NAME_OF
    for (size_t i = 0; i < sizeof(passed_through) / sizeof(passed_through[0]); i++)
        if (passed_through[i].code == errnum)
            return passed_through[i].name;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
    if (errnum != 0)
        return strerrorname_np(errnum);
#endif
    return NULL;
}
