/* json_private.h: the streaming JSON reader of libgrove (json.c), for the
 * readers of formats built on JSON (today the JGF reader, jgf.c).  Not
 * public API (not installed).
 *
 * A reader walks the document with a cursor: it asks for the value at the
 * cursor as a given type (string, integer, boolean, null, object, array)
 * and the accessor consumes it, or reports that it is of another type and
 * consumes nothing.  Objects and arrays are walked with a callback per
 * member or element; what a callback leaves unread is skipped.  An already
 * parsed jansson value goes through the same accessors, so one reader
 * serves both inputs.  Nothing is built but the strings asked for, so a
 * document of hundreds of megabytes costs no tree.
 *
 * It also holds the JSON form of Grove's own values that several formats
 * share (an idset as its range string).
 *
 * This header must not hold anything that knows a format built on JSON
 * (JGF keys, R or RFC 28 keys, graphs): that belongs to the reader or
 * writer that uses it.
 */
#ifndef GROVE_JSON_PRIVATE_H
#define GROVE_JSON_PRIVATE_H

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "error.h"
#include "idset.h"
#include "util.h"

#define GROVEP_JSON_NOPOS SIZE_MAX /* no text position (jansson input) */

/* Kinds of JSON values, for type checks and messages. */
enum {
    GROVEP_J_BAD,    /* not a valid value */
    GROVEP_J_STRING,
    GROVEP_J_INT,    /* an integer that fits int64_t */
    GROVEP_J_REAL,
    GROVEP_J_BIGINT, /* an integer that does not */
    GROVEP_J_OBJECT,
    GROVEP_J_ARRAY,
    GROVEP_J_TRUE,
    GROVEP_J_FALSE,
    GROVEP_J_NULL
};

/* The cursor.  Set source, err and either text/len or json = true, the
 * rest {0}; grovep_json_free releases it. */
typedef struct grovep_json {
    const char *source;  /* names the input in messages (may be NULL) */
    grove_error_t *err;  /* where failures are reported */
    bool json;           /* the input is a jansson value, not text */
    const char *text;    /* the text (not NUL-terminated) */
    size_t len, cur;     /* its length and the cursor, in bytes */
    grovep_buf_t sc;     /* strings read, NUL-terminated, at the offsets the
                            accessors return; the caller may cut it back */
    grovep_buf_t kbuf;   /* the last key read that had escapes */
} grovep_json_t;

/* A value: the one at the text cursor (j NULL) or a jansson value. */
typedef struct grovep_jval {
    const json_t *j;
} grovep_jval_t;

/* Callbacks of grovep_json_object and grovep_json_array: 0 to go on, -1
 * (failure reported) to stop.  The key is not NUL-terminated and is valid
 * until the next key is read. */
typedef int (*grovep_json_member_f)(grovep_json_t *js, const char *key, size_t klen,
                                    const grovep_jval_t *v, void *arg);
typedef int (*grovep_json_elem_f)(grovep_json_t *js, size_t i, const grovep_jval_t *v,
                                  void *arg);

/* The errno of a failed jansson load (json_loadb, json_loads) whose
 * error is je: ENOMEM when jansson ran out of memory, which it tells by
 * an error left empty (where it fails before it reads anything, or
 * cannot make a value) or by its code; EINVAL, bad text, otherwise.  The
 * text is read first: jansson sets the code only with a message.  (An
 * allocation that fails inside its lexer is reported as a bad token:
 * that one cannot be told apart.) */
static inline int grovep_json_load_errno(const json_error_t *je)
{
    return je->text[0] == '\0' || json_error_code(je) == json_error_out_of_memory ? ENOMEM
                                                                                   : EINVAL;
}

/* Are the n bytes at s valid UTF-8 (what jansson takes for a string:
 * no overlong form, no surrogate, nothing past U+10FFFF)?  For a reader
 * that must tell a string jansson refused from one it had no memory for. */
bool grovep_utf8_valid(const char *s, size_t n);

/* Release what the cursor allocated (not the text). */
void grovep_json_free(grovep_json_t *js);

/* Failures: fill js->err (source, the line of text position pos when
 * known, the message), set errno and return -1.  grovep_json_fail: EINVAL
 * with the formatted message; grovep_json_syntax: EINVAL, "syntax error at
 * column C: what"; grovep_json_sysfail: "what: strerror(errno)" keeping
 * errno (ENOMEM when 0). */
int grovep_json_fail(grovep_json_t *js, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int grovep_json_syntax(grovep_json_t *js, size_t pos, const char *what);
int grovep_json_sysfail(grovep_json_t *js, const char *what);

/* Report "PLACE: expected WHAT, got KIND" for the value v (or the syntax
 * error inside it, which comes first); -1 with EINVAL. */
int grovep_json_type_fail(grovep_json_t *js, const grovep_jval_t *v, const char *what,
                          const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* What a message calls the type of the jansson value v: "an object",
 * "an array", "a string", "an integer", "a real number", "a boolean",
 * "null".  Static. */
const char *grovep_json_type_name(const json_t *v);

/* The idset s in range form ("0-3,7") as a new JSON string; NULL with
 * ENOMEM. */
json_t *grovep_json_idset(const grove_idset_t *s);

/* Give a message the line of the place it names.  err holds "SOURCE:
 * PLACE: reason" (just "PLACE: reason" when source is NULL) and no line,
 * PLACE a path into the JSON text ("execution.R_lite[0].rank",
 * "grove.jobs[2]") as the jansson-tree readers (R, state files) write it:
 * it becomes "SOURCE:LINE: PLACE: reason", LINE that of the value the path
 * names, or of the deepest part of it the text holds.  Nothing changes
 * when err has a line already or names no place. */
void grovep_json_place_line(grove_error_t *err, const char *source, const char *text,
                            size_t len);

/* The GROVEP_J_* kind of v, consuming nothing. */
int grovep_json_kind(grovep_json_t *js, const grovep_jval_t *v);

/* Move the cursor past blanks (text input). */
static inline void grovep_json_ws(grovep_json_t *js)
{
    /* every JSON blank is <= ' ': one comparison for compact text */
    while (js->cur < js->len && (unsigned char)js->text[js->cur] <= ' ') {
        char c = js->text[js->cur];
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
            break;
        js->cur++;
    }
}

/* The text position of the value at the cursor (GROVEP_JSON_NOPOS for a
 * jansson input).  Inline: readers ask for it at every value. */
static inline size_t grovep_json_pos(grovep_json_t *js)
{
    if (js->json)
        return GROVEP_JSON_NOPOS;
    grovep_json_ws(js);
    return js->cur;
}

/* True when only blanks are left after the cursor (text input). */
bool grovep_json_at_end(grovep_json_t *js);

/* Skip the value at the cursor, nested depth levels deep; 0 or -1
 * (syntax error reported). */
int grovep_json_skip(grovep_json_t *js, int depth);

/* Accessors: 1 (read and consumed), 0 (of another type, nothing
 * consumed) or -1 (failure reported).  A string goes, NUL-terminated, to
 * js->sc at *off (*len bytes without the NUL). */
int grovep_json_string(grovep_json_t *js, const grovep_jval_t *v, size_t *off, size_t *len);
int grovep_json_int(grovep_json_t *js, const grovep_jval_t *v, int64_t *out);
int grovep_json_bool(grovep_json_t *js, const grovep_jval_t *v, bool *out);
int grovep_json_null(grovep_json_t *js, const grovep_jval_t *v);
int grovep_json_object(grovep_json_t *js, const grovep_jval_t *v, grovep_json_member_f f,
                       void *arg);
int grovep_json_array(grovep_json_t *js, const grovep_jval_t *v, grovep_json_elem_f f,
                      void *arg);

/* Index of the first byte at or after i that ends a plain run of string
 * text: '"', '\\', a control character, and with ascii_only a byte >= 0x80
 * (n if none).  Eight bytes at a time: the reader's fast path, and the
 * writers' test for what needs escaping. */
static inline size_t grovep_json_plain_run(const char *t, size_t i, size_t n, bool ascii_only)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    while (i + 8 <= n) {
        uint64_t x, q, b;
        memcpy(&x, t + i, 8);
        q = x ^ (ones * '"');
        b = x ^ (ones * '\\');
        uint64_t m = ((q - ones) & ~q) | ((b - ones) & ~b) | ((x - ones * 0x20) & ~x);
        if (ascii_only)
            m |= x;
        m &= highs;
        if (m) {
            /* the borrows of the zero-byte tests only reach bytes above a
             * true hit, so the lowest flag is the first special byte
             * (on a little-endian machine) */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            return i + ((size_t)__builtin_ctzll(m) >> 3);
#else
            break;
#endif
        }
        i += 8;
    }
    while (i < n) {
        unsigned char c = (unsigned char)t[i];
        if (c == '"' || c == '\\' || c < 0x20 || (ascii_only && c >= 0x80))
            break;
        i++;
    }
    return i;
}

#endif
