/* json.c: the streaming JSON reader (see json_private.h): a cursor over
 * text, or over a jansson value, read through typed accessors.
 *
 * Workload: JGF files of up to hundreds of megabytes (a whole machine),
 * read in one pass.  Strings without escapes are copied with one scan of
 * eight bytes at a time; numbers are scanned, not converted, unless an
 * integer is asked for; values nobody asks for are skipped.
 *
 * This file holds JSON only: what a key means belongs to the reader of the
 * format (jgf.c), not here.
 *
 * This file must not hold the keys or rules of any format built on JSON
 * (JGF, R, RFC 28): those belong to their readers and writers.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "limit.h" /* GROVE_NEST_MAX */
#include "error_private.h"
#include "json_private.h"

static const char *kind_name(int k)
{
    switch (k) {
    case GROVEP_J_STRING: return "a string";
    case GROVEP_J_INT: return "an integer";
    case GROVEP_J_REAL: return "a real number";
    case GROVEP_J_BIGINT: return "an integer out of range";
    case GROVEP_J_OBJECT: return "an object";
    case GROVEP_J_ARRAY: return "an array";
    case GROVEP_J_TRUE:
    case GROVEP_J_FALSE: return "a boolean";
    case GROVEP_J_NULL: return "null";
    default: return "an invalid value";
    }
}

/* ---- errors ------------------------------------------------------------ */

static int line_of(const grovep_json_t *js, size_t pos, int *col)
{
    if (js->json || pos == GROVEP_JSON_NOPOS || !js->text) {
        *col = 0;
        return 0;
    }
    if (pos > js->len)
        pos = js->len;
    int line = 1;
    size_t bol = 0;
    for (const char *p = js->text, *e = js->text + pos; p < e;) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        if (!nl)
            break;
        line++;
        bol = (size_t)(nl - js->text) + 1;
        p = nl + 1;
    }
    *col = (int)(pos - bol) + 1;
    return line;
}

int grovep_json_fail(grovep_json_t *js, size_t pos, const char *fmt, ...)
{
    int col;
    int line = line_of(js, pos, &col);
    GROVEP_VFAIL_RETURN(fmt, js->err, EINVAL, js->source, line, NULL, sizeof(js->err->text));
}

int grovep_json_syntax(grovep_json_t *js, size_t pos, const char *what)
{
    int col;
    int line = line_of(js, pos, &col);
    grove_error_set(js->err, js->source, line, "syntax error at column %d: %s", col, what);
    errno = EINVAL;
    return -1;
}

/* A system failure (ENOMEM, EOVERFLOW) while building. */
int grovep_json_sysfail(grovep_json_t *js, const char *what)
{
    int e = errno ? errno : ENOMEM;
    grove_error_set(js->err, js->source, 0, "%s: %s", what, strerror(e));
    errno = e;
    return -1;
}

/* ---- text primitives ------------------------------------------------- */

static int read_hex4(grovep_json_t *js, size_t at, unsigned *out)
{
    if (at + 4 > js->len)
        return -1;
    unsigned v = 0;
    for (size_t i = 0; i < 4; i++) {
        int d = grovep_hexval((unsigned char)js->text[at + i]);
        if (d < 0)
            return -1;
        v = v << 4 | (unsigned)d;
    }
    *out = v;
    return 0;
}

/* Length of a valid UTF-8 sequence starting at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t need;
    unsigned lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf)
        need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
        need = 2;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 3;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
    } else
        return 0;
    if (n < need + 1 || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i <= need; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return need + 1;
}

bool grovep_utf8_valid(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t k = (unsigned char)s[i] < 0x80 ? 1 : utf8_len((const unsigned char *)s + i, n - i);
        if (k == 0)
            return false;
        i += k;
    }
    return true;
}

static void put_utf8(char *o, size_t *k, unsigned cp)
{
    if (cp < 0x80) {
        o[(*k)++] = (char)cp;
    } else if (cp < 0x800) {
        o[(*k)++] = (char)(0xc0 | cp >> 6);
        o[(*k)++] = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        o[(*k)++] = (char)(0xe0 | cp >> 12);
        o[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[(*k)++] = (char)(0x80 | (cp & 0x3f));
    } else {
        o[(*k)++] = (char)(0xf0 | cp >> 18);
        o[(*k)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
        o[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[(*k)++] = (char)(0x80 | (cp & 0x3f));
    }
}

static int parse_into(grovep_json_t *js, grovep_buf_t *sb, size_t *off, size_t *len);

/* Parse the string at the cursor (which is on '"') and append it,
 * NUL-terminated, to js->sc; *off and *len locate it there. */
static int parse_str(grovep_json_t *js, size_t *off, size_t *len)
{
    return parse_into(js, &js->sc, off, len);
}

/* A key at the cursor: *k points into the text when it has no escapes,
 * else into js->kbuf (valid until the next key). */
static int parse_key(grovep_json_t *js, const char **k, size_t *kl)
{
    size_t i = grovep_json_plain_run(js->text, js->cur + 1, js->len, true);
    if (i < js->len && js->text[i] == '"') {
        *k = js->text + js->cur + 1;
        *kl = i - js->cur - 1;
        js->cur = i + 1;
        return 0;
    }
    size_t off;
    js->kbuf.len = 0;
    if (parse_into(js, &js->kbuf, &off, kl) < 0)
        return -1;
    *k = js->kbuf.p + off;
    return 0;
}

static int parse_into(grovep_json_t *js, grovep_buf_t *sb, size_t *off, size_t *len)
{
    size_t start = js->cur++;
    const char *t = js->text;
    /* fast path: a run of plain ASCII up to the closing quote */
    size_t i = grovep_json_plain_run(t, js->cur, js->len, true);
    if (i < js->len && t[i] == '"') {
        size_t n = i - js->cur;
        if ((*off = grovep_buf_putz(sb, t + js->cur, n)) == (size_t)-1)
            return grovep_json_sysfail(js, "reading a string");
        *len = n;
        js->cur = i + 1;
        return 0;
    }
    /* general path: escapes and multi-byte characters.  k is the absolute
     * write index in js->sc (whose len stays k0 until the end); before each
     * character the buffer is grown to hold k + 8 bytes. */
    size_t k0 = sb->len, k = k0;
    for (i = js->cur;;) {
        if (i >= js->len)
            return grovep_json_syntax(js, start, "unterminated string");
        unsigned char c = (unsigned char)t[i];
        if (c == '"')
            break;
        if (!grovep_buf_room(sb, k - k0 + 7))
            return grovep_json_sysfail(js, "reading a string");
        if (c < 0x20)
            return grovep_json_syntax(js, i, "control character in a string");
        if (c == '\\') {
            if (i + 1 >= js->len)
                return grovep_json_syntax(js, start, "unterminated string");
            char e = t[i + 1];
            char out = 0;
            switch (e) {
            case '"': out = '"'; break;
            case '\\': out = '\\'; break;
            case '/': out = '/'; break;
            case 'b': out = '\b'; break;
            case 'f': out = '\f'; break;
            case 'n': out = '\n'; break;
            case 'r': out = '\r'; break;
            case 't': out = '\t'; break;
            case 'u': {
                unsigned cp;
                if (read_hex4(js, i + 2, &cp) < 0)
                    return grovep_json_syntax(js, i, "invalid \\u escape");
                size_t used = 6;
                if (cp >= 0xd800 && cp <= 0xdbff) {
                    unsigned lo;
                    if (i + 8 > js->len || t[i + 6] != '\\' || t[i + 7] != 'u'
                        || read_hex4(js, i + 8, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff)
                        return grovep_json_syntax(js, i, "invalid \\u escape (lone surrogate)");
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    used = 12;
                } else if (cp >= 0xdc00 && cp <= 0xdfff) {
                    return grovep_json_syntax(js, i, "invalid \\u escape (lone surrogate)");
                } else if (cp == 0) {
                    return grovep_json_syntax(js, i, "\\u0000 is not allowed in a string");
                }
                put_utf8(sb->p, &k, cp);
                i += used;
                continue;
            }
            default:
                return grovep_json_syntax(js, i, "invalid escape in a string");
            }
            sb->p[k++] = out;
            i += 2;
            continue;
        }
        if (c >= 0x80) {
            size_t n = utf8_len((const unsigned char *)t + i, js->len - i);
            if (!n)
                return grovep_json_syntax(js, i, "invalid UTF-8 in a string");
            memcpy(sb->p + k, t + i, n);
            k += n;
            i += n;
            continue;
        }
        sb->p[k++] = (char)c;
        i++;
    }
    if (!grovep_buf_room(sb, k - k0))
        return grovep_json_sysfail(js, "reading a string");
    sb->p[k] = '\0';
    *off = k0;
    *len = k - k0;
    sb->len = k + 1;
    js->cur = i + 1;
    return 0;
}

/* Move *i past the digits there: false when there is none. */
static bool skip_digits(const grovep_json_t *js, size_t *i)
{
    size_t start = *i;
    while (*i < js->len && js->text[*i] >= '0' && js->text[*i] <= '9')
        (*i)++;
    return *i > start;
}

/* Scan the number at the cursor without consuming it: its kind
 * (GROVEP_J_INT, GROVEP_J_REAL, GROVEP_J_BIGINT or GROVEP_J_BAD), its end,
 * and its value when GROVEP_J_INT. */
static int scan_number(const grovep_json_t *js, size_t *end, int64_t *val)
{
    const char *t = js->text;
    size_t i = js->cur;
    bool neg = false;
    if (i < js->len && t[i] == '-') {
        neg = true;
        i++;
    }
    if (i >= js->len || t[i] < '0' || t[i] > '9')
        return GROVEP_J_BAD;
    uint64_t mag = 0;
    bool big = false;
    if (t[i] == '0') {
        i++;
    } else {
        while (i < js->len && t[i] >= '0' && t[i] <= '9') {
            unsigned d = (unsigned)(t[i] - '0');
            if (mag > (UINT64_MAX - d) / 10)
                big = true;
            else
                mag = mag * 10 + d;
            i++;
        }
    }
    int kind = GROVEP_J_INT;
    if (i < js->len && t[i] == '.') {
        i++;
        if (!skip_digits(js, &i))
            return GROVEP_J_BAD;
        kind = GROVEP_J_REAL;
    }
    if (i < js->len && (t[i] == 'e' || t[i] == 'E')) {
        i++;
        if (i < js->len && (t[i] == '+' || t[i] == '-'))
            i++;
        if (!skip_digits(js, &i))
            return GROVEP_J_BAD;
        kind = GROVEP_J_REAL;
    }
    *end = i;
    if (kind == GROVEP_J_INT) {
        if (big || (!neg && mag > (uint64_t)INT64_MAX)
            || (neg && mag > (uint64_t)INT64_MAX + 1))
            return GROVEP_J_BIGINT;
        *val = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    }
    return kind;
}

static bool lit(const grovep_json_t *js, const char *w, size_t n)
{
    return js->len - js->cur >= n && !memcmp(js->text + js->cur, w, n);
}

static int text_kind(grovep_json_t *js)
{
    grovep_json_ws(js);
    if (js->cur >= js->len)
        return GROVEP_J_BAD;
    switch (js->text[js->cur]) {
    case '"': return GROVEP_J_STRING;
    case '{': return GROVEP_J_OBJECT;
    case '[': return GROVEP_J_ARRAY;
    case 't': return lit(js, "true", 4) ? GROVEP_J_TRUE : GROVEP_J_BAD;
    case 'f': return lit(js, "false", 5) ? GROVEP_J_FALSE : GROVEP_J_BAD;
    case 'n': return lit(js, "null", 4) ? GROVEP_J_NULL : GROVEP_J_BAD;
    default: {
        size_t end;
        int64_t v;
        return scan_number(js, &end, &v);
    }
    }
}

/* Read the key of an object member and its ':' (the cursor is past the
 * blanks before it).  keep: the caller wants the key (in the text or
 * js->kbuf); else it is only checked, in scratch space. */
static int member_key(grovep_json_t *js, bool keep, const char **k, size_t *kl)
{
    if (js->cur >= js->len)
        return grovep_json_syntax(js, js->cur, "unexpected end of input");
    if (js->text[js->cur] != '"')
        return grovep_json_syntax(js, js->cur, "expected a string key");
    if (keep) {
        if (parse_key(js, k, kl) < 0)
            return -1;
    } else {
        /* not kbuf: a caller's key may live there while its value is skipped */
        size_t mark = js->sc.len, o;
        if (parse_str(js, &o, kl) < 0)
            return -1;
        js->sc.len = mark;
    }
    grovep_json_ws(js);
    if (js->cur >= js->len || js->text[js->cur] != ':')
        return grovep_json_syntax(js, js->cur, "expected ':'");
    js->cur++;
    grovep_json_ws(js);
    return 0;
}

/* Walk the object (obj) or array at the cursor, depth levels deep: each
 * member goes to f, each element to g; a value they leave unread, or every
 * value when both are NULL, is skipped.  1 or -1. */
static int walk(grovep_json_t *js, bool obj, int depth, grovep_json_member_f f,
                grovep_json_elem_f g, void *arg)
{
    char close = obj ? '}' : ']';
    bool keep = f || g;
    if (depth >= GROVE_NEST_MAX)
        return grovep_json_syntax(js, js->cur, "nesting too deep");
    js->cur++;
    grovep_json_ws(js);
    if (js->cur < js->len && js->text[js->cur] == close) {
        js->cur++;
        return 1;
    }
    for (size_t i = 0;; i++) {
        grovep_json_ws(js);
        const char *k = NULL;
        size_t kl = 0;
        if (obj && member_key(js, keep, &k, &kl) < 0)
            return -1;
        size_t vstart = js->cur;
        grovep_jval_t m = {NULL};
        if ((f && f(js, k, kl, &m, arg) < 0) || (g && g(js, i, &m, arg) < 0))
            return -1;
        if (js->cur == vstart && grovep_json_skip(js, depth + 1) < 0)
            return -1;
        grovep_json_ws(js);
        if (js->cur < js->len && js->text[js->cur] == ',') {
            js->cur++;
            continue;
        }
        if (js->cur < js->len && js->text[js->cur] == close) {
            js->cur++;
            return 1;
        }
        return grovep_json_syntax(js, js->cur, js->cur >= js->len ? "unexpected end of input"
                                               : obj ? "expected ',' or '}'"
                                                     : "expected ',' or ']'");
    }
}

int grovep_json_skip(grovep_json_t *js, int depth)
{
    grovep_json_ws(js);
    if (js->cur >= js->len)
        return grovep_json_syntax(js, js->cur, "unexpected end of input");
    char c = js->text[js->cur];
    switch (c) {
    case '"': {
        size_t mark = js->sc.len, o, l;
        int rc = parse_str(js, &o, &l);
        js->sc.len = mark;
        return rc;
    }
    case '{':
    case '[':
        return walk(js, c == '{', depth, NULL, NULL, NULL) < 0 ? -1 : 0;
    case 't':
    case 'f':
    case 'n': {
        int k = text_kind(js);
        if (k == GROVEP_J_BAD)
            return grovep_json_syntax(js, js->cur, "invalid literal");
        js->cur += k == GROVEP_J_FALSE ? 5 : 4;
        return 0;
    }
    default: {
        size_t end;
        int64_t v;
        int k = scan_number(js, &end, &v);
        if (k == GROVEP_J_BAD)
            return grovep_json_syntax(js, js->cur,
                          (c == '-' || (c >= '0' && c <= '9')) ? "invalid number"
                                                               : "unexpected character");
        js->cur = end;
        return 0;
    }
    }
}

/* ---- value accessors (text or jansson) ----------------------------------- */

/* The kind of a jansson value. */
static int value_kind(const json_t *j)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT: return GROVEP_J_OBJECT;
    case JSON_ARRAY: return GROVEP_J_ARRAY;
    case JSON_STRING: return GROVEP_J_STRING;
    case JSON_INTEGER: return GROVEP_J_INT;
    case JSON_REAL: return GROVEP_J_REAL;
    case JSON_TRUE: return GROVEP_J_TRUE;
    case JSON_FALSE: return GROVEP_J_FALSE;
    default: return GROVEP_J_NULL;
    }
}

const char *grovep_json_type_name(const json_t *v)
{
    return kind_name(value_kind(v));
}

json_t *grovep_json_idset(const grove_idset_t *s)
{
    char *t = grove_idset_encode(s, GROVE_IDSET_FLAG_RANGE);
    json_t *j = t ? json_string(t) : NULL;
    free(t);
    return j;
}

int grovep_json_kind(grovep_json_t *js, const grovep_jval_t *v)
{
    return js->json ? value_kind(v->j) : text_kind(js);
}

int grovep_json_type_fail(grovep_json_t *js, const grovep_jval_t *v, const char *what,
                          const char *fmt, ...)
{
    int k = grovep_json_kind(js, v);
    size_t pos = grovep_json_pos(js);
    /* format first: the arguments may point into the scratch buffer,
     * which skipping the value can move */
    char place[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(place, sizeof(place), fmt, ap);
    va_end(ap);
    if (!js->json) {
        /* a syntax error inside the value comes first */
        if (grovep_json_skip(js, 0) < 0)
            return -1;
        js->cur = pos;
    }
    return grovep_json_fail(js, pos, "%s: expected %s, got %s", place, what, kind_name(k));
}

/* Accessors return 1 (done), 0 (wrong type, nothing consumed), -1 (error
 * reported). */
int grovep_json_string(grovep_json_t *js, const grovep_jval_t *v, size_t *off, size_t *len)
{
    if (!js->json) {
        grovep_json_ws(js);
        if (js->cur >= js->len || js->text[js->cur] != '"')
            return 0;
        return parse_str(js, off, len) < 0 ? -1 : 1;
    }
    if (!json_is_string(v->j))
        return 0;
    size_t n = json_string_length(v->j);
    const char *s = json_string_value(v->j);
    if (memchr(s, '\0', n))
        return grovep_json_fail(js, GROVEP_JSON_NOPOS, "a string contains a NUL character");
    if ((*off = grovep_buf_putz(&js->sc, s, n)) == (size_t)-1)
        return grovep_json_sysfail(js, "reading a string");
    *len = n;
    return 1;
}

int grovep_json_int(grovep_json_t *js, const grovep_jval_t *v, int64_t *out)
{
    if (!js->json) {
        grovep_json_ws(js);
        size_t end;
        if (js->cur >= js->len)
            return 0;
        char c = js->text[js->cur];
        if (c != '-' && (c < '0' || c > '9'))
            return 0;
        if (scan_number(js, &end, out) != GROVEP_J_INT)
            return 0;
        js->cur = end;
        return 1;
    }
    if (!json_is_integer(v->j))
        return 0;
    *out = (int64_t)json_integer_value(v->j);
    return 1;
}

int grovep_json_bool(grovep_json_t *js, const grovep_jval_t *v, bool *out)
{
    int k = grovep_json_kind(js, v);
    if (k != GROVEP_J_TRUE && k != GROVEP_J_FALSE)
        return 0;
    *out = k == GROVEP_J_TRUE;
    if (!js->json)
        js->cur += k == GROVEP_J_TRUE ? 4 : 5;
    return 1;
}

int grovep_json_null(grovep_json_t *js, const grovep_jval_t *v)
{
    if (grovep_json_kind(js, v) != GROVEP_J_NULL)
        return 0;
    if (!js->json)
        js->cur += 4;
    return 1;
}

/* Call f for every member of the object v (the key, not NUL-terminated, is
 * valid until the next key is read).
 * A member f leaves unread is skipped.  1, 0 (not an object) or -1. */
int grovep_json_object(grovep_json_t *js, const grovep_jval_t *v, grovep_json_member_f f, void *arg)
{
    if (js->json) {
        if (!json_is_object(v->j))
            return 0;
        json_t *obj = (json_t *)(uintptr_t)v->j; /* jansson's iterator API is not const */
        for (void *it = json_object_iter(obj); it; it = json_object_iter_next(obj, it)) {
            const char *key = json_object_iter_key(it);
            size_t kl = json_object_iter_key_len(it);
            if (memchr(key, '\0', kl))
                return grovep_json_fail(js, GROVEP_JSON_NOPOS, "a key contains a NUL character");
            grovep_jval_t m = {json_object_iter_value(it)};
            if (f(js, key, kl, &m, arg) < 0)
                return -1;
        }
        return 1;
    }
    if (text_kind(js) != GROVEP_J_OBJECT)
        return 0;
    return walk(js, true, 0, f, NULL, arg);
}

int grovep_json_array(grovep_json_t *js, const grovep_jval_t *v, grovep_json_elem_f f, void *arg)
{
    if (js->json) {
        if (!json_is_array(v->j))
            return 0;
        size_t n = json_array_size(v->j);
        for (size_t i = 0; i < n; i++) {
            grovep_jval_t m = {json_array_get(v->j, i)};
            if (f(js, i, &m, arg) < 0)
                return -1;
        }
        return 1;
    }
    if (text_kind(js) != GROVEP_J_ARRAY)
        return 0;
    return walk(js, false, 0, NULL, f, arg);
}

bool grovep_json_at_end(grovep_json_t *js)
{
    grovep_json_ws(js);
    return js->cur >= js->len;
}

void grovep_json_free(grovep_json_t *js)
{
    free(js->sc.p);
    free(js->kbuf.p);
}

/* ---- the line of a place a message names ---------------------------------- */

/* Readers that check a jansson tree (R, state files) know the place of a
 * fault as a path ("execution.R_lite[0].rank"), not as a position: the
 * tree keeps none.  When such a message is made, the text is walked once
 * more along the path to find the line. */
struct locate {
    const char *path, *end; /* what is left of the path to follow */
    size_t pos;             /* position of the deepest value found */
};

static void locate_value(grovep_json_t *js, struct locate *l);

/* The length of the path's next key (up to '.', '[' or its end). */
static size_t key_len(const struct locate *l)
{
    size_t n = 0;
    while (l->path + n < l->end && l->path[n] != '.' && l->path[n] != '[')
        n++;
    return n;
}

static int locate_member(grovep_json_t *js, const char *key, size_t kl, const grovep_jval_t *v,
                         void *arg)
{
    struct locate *l = arg;
    (void)v;
    if (kl != key_len(l) || memcmp(key, l->path, kl))
        return 0;
    l->path += kl;
    locate_value(js, l);
    return -1; /* found, or as deep as the text goes: stop */
}

static int locate_elem(grovep_json_t *js, size_t i, const grovep_jval_t *v, void *arg)
{
    struct locate *l = arg;
    (void)v;
    char *close;
    unsigned long long want = strtoull(l->path, &close, 10);
    if (close == l->path || close >= l->end || *close != ']' || want != i)
        return 0;
    l->path = close + 1;
    locate_value(js, l);
    return -1;
}

static void locate_value(grovep_json_t *js, struct locate *l)
{
    l->pos = grovep_json_pos(js);
    if (l->path >= l->end)
        return;
    grovep_jval_t v = {NULL};
    char c = *l->path++;
    if (c == '.')
        grovep_json_object(js, &v, locate_member, l);
    else if (c == '[')
        grovep_json_array(js, &v, locate_elem, l);
}

void grovep_json_place_line(grove_error_t *err, const char *source, const char *text,
                            size_t len)
{
    if (!err || err->line > 0 || !text)
        return;
    size_t sl = source ? strlen(source) : 0;
    const char *place = err->text;
    if (source && (strncmp(place, source, sl) || strncmp(place + sl, ": ", 2)))
        return;
    place += source ? sl + 2 : 0;
    const char *colon = strstr(place, ": ");
    bool top = !strncmp(place, "top level: ", 11); /* the document itself */
    if (!top && (!colon || colon == place || memchr(place, ' ', (size_t)(colon - place))))
        return; /* no place: the message is a reason only */
    grove_error_t scratch;
    grovep_json_t js = {.text = text, .len = len, .err = &scratch};
    /* the place is a path from the top, or from a JGF document's "graph"
     * (its reader names places from there: "nodes[3].metadata.id") */
    struct locate l = {.path = place, .end = colon};
    for (int from_graph = 0; from_graph < 2 && l.path == place; from_graph++) {
        js.cur = 0;
        l.pos = grovep_json_pos(&js);
        grovep_jval_t v = {NULL};
        if (from_graph) {
            static const char graph_key[] = "graph";
            struct locate g = {.path = graph_key, .end = graph_key + sizeof(graph_key) - 1};
            grovep_json_object(&js, &v, locate_member, &g);
            if (g.path != g.end)
                break;
            js.cur = g.pos;
        }
        grovep_json_object(&js, &v, locate_member, &l);
    }
    grovep_json_free(&js);
    /* the deepest part of the place the text holds; when it holds none
     * (a member missing at the top, or the document itself), the line where
     * the document starts */
    int col, line = line_of(&js, l.pos, &col);
    if (line <= 0)
        return;
    char rest[sizeof(err->text)];
    snprintf(rest, sizeof(rest), "%s", place);
    grove_error_set(err, source, line, "%s", rest);
}
