/* error.c: filling grove_error_t.  See error.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

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

void grove_error_clear(grove_error_t *err)
{
    if (err) {
        err->text[0] = '\0';
        err->line = 0;
    }
}
