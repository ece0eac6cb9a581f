/* range.c: resource counts of a request (RFC 14 count, RFC 45 range
 * strings, RFC 22 idset strings).
 *
 * A jobspec vertex asks for a fixed number of resources, for a moldable
 * range (min, max, operator, operand: min, min OP operand, ... up to max),
 * or for any value of an explicit set ("4,9,16,25").  The matcher asks three
 * questions of a count while it walks candidates: is v acceptable, what is
 * the next acceptable value after v, and what is the largest acceptable
 * value that fits in what is free.  Each is O(1) for '+', at most 64 steps
 * for '*' and at most 6 for '^' (values are bounded by 2^63), and a binary
 * search over the runs of the idset for sets.  No allocation except the
 * idset itself and encode().
 *
 * This file must not hold jobspec reading or validation (jobspec.c): it
 * parses one count and answers the matcher's questions about it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_private.h"
#include "jobspec.h"

void grove_count_set_fixed(grove_count_t *c, uint64_t n)
{
    c->kind = GROVE_COUNT_FIXED;
    c->min = c->max = n;
    c->op = '+';
    c->operand = 1;
    c->ids = NULL;
}

int grove_count_set_range(grove_count_t *c, uint64_t min, uint64_t max, char op,
                          uint64_t operand, grove_error_t *err)
{
    if (min < 1 || min > GROVE_COUNT_MAX) {
        grove_error_set(err, NULL, 0, "min must be a positive integer");
        goto inval;
    }
    if (max != GROVE_COUNT_INF && (max < min || max > GROVE_COUNT_MAX)) {
        grove_error_set(err, NULL, 0, "max must be greater than or equal to min");
        goto inval;
    }
    if (op != '+' && op != '*' && op != '^') {
        grove_error_set(err, NULL, 0, "operator must be one of '+', '*', '^'");
        goto inval;
    }
    if (operand < 1 || operand > GROVE_COUNT_MAX) {
        grove_error_set(err, NULL, 0, "operand must be a positive integer");
        goto inval;
    }
    if (op != '+' && operand < 2) {
        grove_error_set(err, NULL, 0, "operand must be at least 2 for operator '%c'", op);
        goto inval;
    }
    if (op == '^' && min < 2) {
        grove_error_set(err, NULL, 0, "min must be at least 2 for operator '^'");
        goto inval;
    }
    c->kind = GROVE_COUNT_RANGE;
    c->min = min;
    c->max = max;
    c->op = op;
    c->operand = operand;
    c->ids = NULL;
    return 0;
inval:
    errno = EINVAL;
    return -1;
}

void grove_count_clear(grove_count_t *c)
{
    if (!c)
        return;
    grove_idset_destroy(c->ids);
    grove_count_set_fixed(c, 0);
}

int grove_count_copy(grove_count_t *dst, const grove_count_t *src)
{
    *dst = *src;
    if (src->ids && !(dst->ids = grove_idset_copy(src->ids))) {
        grove_count_set_fixed(dst, 0);
        return -1;
    }
    return 0;
}

/* Parse a decimal without leading zero, 1..GROVE_COUNT_MAX, at *sp;
 * advance *sp.  Returns 0 or -1. */
static int parse_positive(const char **sp, uint64_t *out)
{
    const char *s = *sp;
    uint64_t v = 0;
    if (*s < '1' || *s > '9')
        return -1;
    while (*s >= '0' && *s <= '9') {
        uint64_t d = (uint64_t)(*s - '0');
        if (v > (GROVE_COUNT_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
        s++;
    }
    *sp = s;
    *out = v;
    return 0;
}

/* RFC 45: [min-max:operand:op] or [min+:operand:op], brackets optional,
 * ":op" and ":operand:op" optional.  Returns 0, or -1 with *is_range false
 * for "not a range" (err untouched) or true for a range that breaks a rule
 * (err filled). */
static int parse_range(grove_count_t *c, const char *str, grove_error_t *err, bool *is_range)
{
    size_t len = strlen(str);
    const char *s = str;
    const char *end = str + len;
    uint64_t min, max = GROVE_COUNT_INF, operand = 1;
    char op = '+';

    *is_range = false;
    if (len >= 2 && s[0] == '[' && s[len - 1] == ']') {
        s++;
        end--;
    }
    if (parse_positive(&s, &min) < 0)
        return -1;
    if (s < end && *s == '-') {
        s++;
        if (parse_positive(&s, &max) < 0)
            return -1;
    }
    else if (s < end && *s == '+')
        s++;
    else
        return -1;
    if (s < end && *s == ':') {
        /* "min-max:" or "min+:" can only be a range: be specific. */
        *is_range = true;
        s++;
        if (parse_positive(&s, &operand) < 0) {
            return grovep_errorf(err, EINVAL, "operand must be a positive integer");
        }
        if (s < end && *s == ':') {
            s++;
            if (s + 1 != end || (*s != '+' && *s != '*' && *s != '^')) {
                return grovep_errorf(err, EINVAL, "operator must be one of '+', '*', '^'");
            }
            op = *s++;
        }
    }
    if (s != end) {
        if (*is_range) {
            grove_error_set(err, NULL, 0, "unexpected text after the operand");
            errno = EINVAL;
        }
        return -1;
    }
    *is_range = true;
    return grove_count_set_range(c, min, max, op, operand, err);
}

int grove_count_parse(grove_count_t *c, const char *s, grove_error_t *err)
{
    bool is_range;
    grove_error_t rerr;

    grove_count_set_fixed(c, 0);
    if (!s) {
        errno = EINVAL;
        return -1;
    }
    /* A plain positive number, possibly bracketed: FIXED. */
    {
        const char *p = s;
        size_t len = strlen(s);
        bool br = len >= 2 && s[0] == '[' && s[len - 1] == ']';
        uint64_t v;
        if (br)
            p++;
        if (parse_positive(&p, &v) == 0 && (br ? p == s + len - 1 : *p == '\0')) {
            grove_count_set_fixed(c, v);
            return 0;
        }
    }
    grove_error_clear(&rerr);
    if (parse_range(c, s, &rerr, &is_range) == 0)
        return 0;
    if (is_range) {
        grove_error_set(err, NULL, 0, "range '%s': %s", s, rerr.text);
        errno = EINVAL;
        return -1;
    }
    grove_idset_t *ids = grove_idset_decode(s, NULL);
    if (!ids) {
        if (errno == ENOMEM)
            return -1;
        grove_error_set(err, NULL, 0,
                        "'%s' is neither an RFC 45 range nor an RFC 22 idset", s);
        errno = EINVAL;
        return -1;
    }
    if (grove_idset_empty(ids)) {
        grove_idset_destroy(ids);
        grove_error_set(err, NULL, 0, "count idset '%s' is empty", s);
        errno = EINVAL;
        return -1;
    }
    if (grove_idset_first(ids) == 0) {
        grove_idset_destroy(ids);
        grove_error_set(err, NULL, 0, "count idset '%s' contains 0", s);
        errno = EINVAL;
        return -1;
    }
    c->kind = GROVE_COUNT_IDSET;
    c->min = grove_idset_first(ids);
    c->max = grove_idset_last(ids);
    c->ids = ids;
    return 0;
}

/* v OP operand, or GROVE_COUNT_INF on overflow past GROVE_COUNT_MAX. */
static uint64_t step(const grove_count_t *c, uint64_t v)
{
    uint64_t r;
    switch (c->op) {
    case '+':
        return v > GROVE_COUNT_MAX - c->operand ? GROVE_COUNT_INF : v + c->operand;
    case '*':
        return v > GROVE_COUNT_MAX / c->operand ? GROVE_COUNT_INF : v * c->operand;
    default: /* '^': v to the power operand */
        r = 1;
        for (uint64_t i = 0; i < c->operand; i++) {
            if (r > GROVE_COUNT_MAX / v)
                return GROVE_COUNT_INF;
            r *= v;
        }
        return r;
    }
}

bool grove_count_contains(const grove_count_t *c, uint64_t v)
{
    switch (c->kind) {
    case GROVE_COUNT_FIXED:
        return v == c->min;
    case GROVE_COUNT_IDSET:
        return v < GROVE_IDSET_INVALID && grove_idset_test(c->ids, (unsigned)v);
    case GROVE_COUNT_RANGE:
        if (v < c->min || v > c->max)
            return false;
        if (c->op == '+')
            return (v - c->min) % c->operand == 0;
        for (uint64_t x = c->min; x != GROVE_COUNT_INF && x <= v; x = step(c, x))
            if (x == v)
                return true;
        return false;
    }
    return false;
}

uint64_t grove_count_next(const grove_count_t *c, uint64_t v)
{
    uint64_t x;
    switch (c->kind) {
    case GROVE_COUNT_FIXED:
        return v < c->min ? c->min : GROVE_COUNT_INF;
    case GROVE_COUNT_IDSET:
        if (v < c->min)
            return c->min;
        if (v >= GROVE_IDSET_MAX_ID)
            return GROVE_COUNT_INF;
        x = grove_idset_next(c->ids, (unsigned)v);
        return x == GROVE_IDSET_INVALID ? GROVE_COUNT_INF : x;
    case GROVE_COUNT_RANGE:
        if (v < c->min)
            return c->min;
        if (c->op == '+') {
            uint64_t k = (v - c->min) / c->operand + 1;
            if (k > (GROVE_COUNT_MAX - c->min) / c->operand)
                return GROVE_COUNT_INF;
            x = c->min + k * c->operand;
        }
        else {
            for (x = c->min; x != GROVE_COUNT_INF && x <= v; x = step(c, x))
                ;
        }
        return x != GROVE_COUNT_INF && x <= c->max ? x : GROVE_COUNT_INF;
    }
    return GROVE_COUNT_INF;
}

bool grove_count_fit(const grove_count_t *c, uint64_t limit, uint64_t *out)
{
    uint64_t x, best;
    if (limit < c->min)
        return false;
    switch (c->kind) {
    case GROVE_COUNT_FIXED:
        *out = c->min;
        return true;
    case GROVE_COUNT_IDSET:
        if (limit >= c->max)
            *out = c->max;
        else if (grove_idset_test(c->ids, (unsigned)limit))
            *out = limit;
        else
            *out = grove_idset_prev(c->ids, (unsigned)limit);
        return true;
    case GROVE_COUNT_RANGE:
        if (limit > c->max)
            limit = c->max;
        if (c->op == '+') {
            *out = c->min + (limit - c->min) / c->operand * c->operand;
            return true;
        }
        best = c->min;
        for (x = c->min; x != GROVE_COUNT_INF && x <= limit; x = step(c, x))
            best = x;
        *out = best;
        return true;
    }
    return false;
}

char *grove_count_encode(const grove_count_t *c)
{
    char buf[96];
    char *s;
    switch (c->kind) {
    case GROVE_COUNT_IDSET:
        return grove_idset_encode(c->ids, GROVE_IDSET_FLAG_RANGE);
    case GROVE_COUNT_FIXED:
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)c->min);
        break;
    case GROVE_COUNT_RANGE: {
        int n;
        if (c->max == GROVE_COUNT_INF)
            n = snprintf(buf, sizeof(buf), "%llu+", (unsigned long long)c->min);
        else
            n = snprintf(buf, sizeof(buf), "%llu-%llu", (unsigned long long)c->min,
                         (unsigned long long)c->max);
        if (c->operand != 1 || c->op != '+')
            n += snprintf(buf + n, sizeof(buf) - (size_t)n, ":%llu",
                          (unsigned long long)c->operand);
        if (c->op != '+')
            snprintf(buf + n, sizeof(buf) - (size_t)n, ":%c", c->op);
        break;
    }
    default:
        errno = EINVAL;
        return NULL;
    }
    if (!(s = strdup(buf)))
        errno = ENOMEM;
    return s;
}
