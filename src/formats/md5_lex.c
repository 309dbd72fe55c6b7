/* md5_lex.c — tokenizer and number parser for the MD5 readers (md5_lex.h).
 *
 * Numbers: the digits are gathered into a 64-bit integer m and a power of
 * ten e. When m < 2^53 and |e| <= 22 both are exact doubles, so m * 10^e (or
 * m / 10^-e) is the correctly rounded double of the decimal value (Clinger's
 * fast path). Rounding that double to float again is exact unless the double
 * lands precisely on a midpoint between two floats; that case, long digit
 * strings, big exponents and subnormals go to strtof. So every result equals
 * strtof's, and the usual file numbers ("-0.707107") never reach it.
 */
#include "formats/md5_lex.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { C_SPACE = 1, C_DELIM = 2, C_DIGIT = 4 };

/* Character classes; DELIM marks bytes that end a word or a number. */
static const unsigned char cls[256] = {
    [' '] = C_SPACE | C_DELIM, ['\t'] = C_SPACE | C_DELIM, ['\v'] = C_SPACE | C_DELIM,
    ['\f'] = C_SPACE | C_DELIM, ['\r'] = C_SPACE | C_DELIM, ['\n'] = C_SPACE | C_DELIM,
    ['('] = C_DELIM, [')'] = C_DELIM, ['{'] = C_DELIM, ['}'] = C_DELIM,
    ['"'] = C_DELIM, ['/'] = C_DELIM,
    ['0'] = C_DIGIT, ['1'] = C_DIGIT, ['2'] = C_DIGIT, ['3'] = C_DIGIT, ['4'] = C_DIGIT,
    ['5'] = C_DIGIT, ['6'] = C_DIGIT, ['7'] = C_DIGIT, ['8'] = C_DIGIT, ['9'] = C_DIGIT,
};

#define CLS(c) cls[(unsigned char)(c)]

void md5_lex_init(md5_lex *lx, const char *name, const char *text, size_t len, mr_error *err)
{
    memset(lx, 0, sizeof *lx);
    lx->name = name ? name : "(memory)";
    lx->begin = text;
    lx->p = text;
    lx->end = text + len;
    lx->line = 1;
    lx->tok = text;
    lx->tok_line = 1;
    lx->err = err;
}

size_t md5_left(const md5_lex *lx)
{
    return (size_t)(lx->end - lx->p);
}

/* Describes the token at `at` for messages: 'word', '"string"', 'end of file'. */
static void describe(const md5_lex *lx, const char *at, char *buf, size_t size)
{
    if (at >= lx->end) {
        snprintf(buf, size, "end of file");
        return;
    }
    const char *q = at;
    const size_t max = 40;
    if (*q == '"') {
        q++;
        while (q < lx->end && *q != '"' && *q != '\n' && *q != '\r' && (size_t)(q - at) < max) q++;
        if (q < lx->end && *q == '"') q++;
    } else if (*q == '(' || *q == ')' || *q == '{' || *q == '}') {
        q++;
    } else {
        while (q < lx->end && !(CLS(*q) & C_DELIM) && (size_t)(q - at) < max) q++;
        if (q == at) q++;
    }
    int cut = q < lx->end && (size_t)(q - at) >= max && !(CLS(*q) & C_DELIM);
    size_t o = 0;
    buf[o++] = '\'';
    for (const char *c = at; c < q && o + 8 < size; c++) {
        unsigned char b = (unsigned char)*c;
        if (b >= 0x20 && b < 0x7f) buf[o++] = (char)b;
        else o += (size_t)snprintf(buf + o, size - o, "\\x%02x", b);
    }
    if (cut && o + 5 < size) { memcpy(buf + o, "...", 3); o += 3; }
    buf[o++] = '\'';
    buf[o] = '\0';
}

/* The line to name for a token at `at`: at the end of a file that ends with
 * a line break, the last line rather than the empty one after it. */
static int line_of(const md5_lex *lx, const char *at, int line)
{
    if (at >= lx->end && line > 1 && lx->end > lx->begin &&
        (lx->end[-1] == '\n' || lx->end[-1] == '\r'))
        return line - 1;
    return line;
}

static int fail_v(md5_lex *lx, int line, const char *found, const char *fmt, va_list ap)
{
    if (lx->failed) return -1;
    lx->failed = 1;
    char what[480];
    vsnprintf(what, sizeof what, fmt, ap);
    mr_error_set(lx->err, MR_ERR_BAD_FILE, "md5: %s:%d: expected %s, found %s", lx->name, line,
                 what, found);
    return -1;
}

int md5_fail(md5_lex *lx, const char *fmt, ...)
{
    char found[200];
    describe(lx, lx->tok, found, sizeof found);
    va_list ap;
    va_start(ap, fmt);
    fail_v(lx, line_of(lx, lx->tok, lx->tok_line), found, fmt, ap);
    va_end(ap);
    return -1;
}

int md5_fail_at(md5_lex *lx, int line, const char *found, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(lx, line, found, fmt, ap);
    va_end(ap);
    return -1;
}

int md5_skip(md5_lex *lx)
{
    if (lx->failed) return -1;
    const char *p = lx->p, *end = lx->end;
    int line = lx->line;
    while (p < end) {
        char c = *p;
        if (c == ' ' || c == '\t') { p++; continue; }
        if (c == '\n') { line++; p++; continue; }
        if (c == '\r') {
            p++;
            if (p < end && *p == '\n') p++;
            line++;
            continue;
        }
        if (c == '/' && p + 1 < end && p[1] == '/') {
            p += 2;
            while (p < end && *p != '\n' && *p != '\r') p++;
            continue;
        }
        if (c == '/' && p + 1 < end && p[1] == '*') {
            const char *open = p;
            int open_line = line;
            p += 2;
            while (p < end && !(p[0] == '*' && p + 1 < end && p[1] == '/')) {
                if (*p == '\n' || (*p == '\r' && (p + 1 >= end || p[1] != '\n'))) line++;
                p++;
            }
            if (p >= end) {
                lx->p = p;
                lx->line = line;
                lx->tok = open;
                lx->tok_line = open_line;
                char found[32];
                snprintf(found, sizeof found, "end of file");
                return md5_fail_at(lx, line_of(lx, p, line), found,
                                   "'*/' to close the comment opened on line %d", open_line);
            }
            p += 2;
            continue;
        }
        if (c == '\v' || c == '\f') { p++; continue; }
        break;
    }
    lx->p = p;
    lx->line = line;
    return 0;
}

/* Spaces and tabs inline; anything else that may start whitespace or a
 * comment goes through md5_skip. */
static inline int skip_fast(md5_lex *lx)
{
    const char *p = lx->p, *end = lx->end;
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    lx->p = p;
    if (p < end && ((CLS(*p) & C_SPACE) || *p == '/')) return md5_skip(lx);
    return lx->failed ? -1 : 0;
}

int md5_fail_next(md5_lex *lx, const char *fmt, ...)
{
    if (md5_skip(lx)) return -1;
    char found[200];
    describe(lx, lx->p, found, sizeof found);
    va_list ap;
    va_start(ap, fmt);
    fail_v(lx, line_of(lx, lx->p, lx->line), found, fmt, ap);
    va_end(ap);
    return -1;
}

int md5_at_end(md5_lex *lx)
{
    if (md5_skip(lx)) return 0;
    return lx->p >= lx->end;
}

static int word_here(const md5_lex *lx, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(lx->end - lx->p) >= n && memcmp(lx->p, word, n) == 0 &&
           (lx->p + n == lx->end || (CLS(lx->p[n]) & C_DELIM));
}

int md5_peek_word(md5_lex *lx, const char *word)
{
    if (md5_skip(lx)) return 0;
    return word_here(lx, word);
}

int md5_accept(md5_lex *lx, const char *word)
{
    if (skip_fast(lx) || !word_here(lx, word)) return 0;
    lx->tok = lx->p;
    lx->tok_line = lx->line;
    lx->p += strlen(word);
    return 1;
}

int md5_peek_char(md5_lex *lx)
{
    if (skip_fast(lx) || lx->p >= lx->end) return -1;
    return (unsigned char)*lx->p;
}

int md5_word(md5_lex *lx, const char *word, const char *context)
{
    if (skip_fast(lx)) return -1;
    lx->tok = lx->p;
    lx->tok_line = lx->line;
    if (!word_here(lx, word))
        return md5_fail(lx, "'%s'%s%s", word, context ? " " : "", context ? context : "");
    lx->p += strlen(word);
    return 0;
}

int md5_punct(md5_lex *lx, char c, const char *context)
{
    if (skip_fast(lx)) return -1;
    lx->tok = lx->p;
    lx->tok_line = lx->line;
    if (lx->p >= lx->end || *lx->p != c)
        return md5_fail(lx, "'%c'%s%s", c, context ? " " : "", context ? context : "");
    lx->p++;
    return 0;
}

int md5_int(md5_lex *lx, int *out, const char *what)
{
    if (skip_fast(lx)) return -1;
    const char *p = lx->p, *end = lx->end;
    lx->tok = p;
    lx->tok_line = lx->line;
    int neg = 0;
    if (p < end && (*p == '-' || *p == '+')) neg = *p++ == '-';
    if (p >= end || !(CLS(*p) & C_DIGIT)) return md5_fail(lx, "%s", what);
    int64_t v = 0;
    while (p < end && (CLS(*p) & C_DIGIT)) {
        if (v <= INT32_MAX) v = v * 10 + (*p - '0');
        p++;
    }
    if (p < end && !(CLS(*p) & C_DELIM)) return md5_fail(lx, "%s", what);
    if (neg) v = -v;
    if (v > INT32_MAX || v < INT32_MIN) return md5_fail(lx, "%s that fits an int", what);
    *out = (int)v;
    lx->p = p;
    return 0;
}

static const double pow10_exact[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* The number parser (md5_parse_float); inlined into md5_float. */
static inline int parse_decimal(const char *s, const char *end, float *out, const char **stop)
{
    const char *p = s;
    int neg = 0;
    if (p < end && (*p == '-' || *p == '+')) neg = *p++ == '-';
    uint64_t m = 0;
    int digits = 0;       /* digits taken into m (leading zeros too) */
    unsigned lost = 0;    /* non-zero when a non-zero digit did not fit */
    long exp10 = 0;
    unsigned d;
    const char *first = p;
    while (p < end && (d = (unsigned)(*p - '0')) < 10) {
        if (digits < 19) {
            m = m * 10 + d;
            digits++;
        } else {
            exp10++;
            lost |= d;
        }
        p++;
    }
    int any = p > first;
    if (p < end && *p == '.') {
        first = ++p;
        while (p < end && (d = (unsigned)(*p - '0')) < 10) {
            if (digits < 19) {
                m = m * 10 + d;
                digits++;
                exp10--;
            } else {
                lost |= d;
            }
            p++;
        }
        any |= p > first;
    }
    if (!any) return -1;
    if (p < end && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        int eneg = 0;
        if (q < end && (*q == '+' || *q == '-')) eneg = *q++ == '-';
        if (q < end && (CLS(*q) & C_DIGIT)) {
            long e = 0;
            while (q < end && (CLS(*q) & C_DIGIT)) {
                if (e < 100000) e = e * 10 + (*q - '0');
                q++;
            }
            exp10 += eneg ? -e : e;
            p = q;
        }
    }
    *stop = p;
    if (m == 0 && !lost) {
        *out = neg ? -0.0f : 0.0f;
        return 0;
    }
    if (!lost && m <= ((uint64_t)1 << 53) && exp10 >= -22 && exp10 <= 22) {
        double v = exp10 < 0 ? (double)m / pow10_exact[-exp10] : (double)m * pow10_exact[exp10];
        uint64_t bits;
        memcpy(&bits, &v, sizeof bits);
        /* Normal float range, and not on a float midpoint (the 29 low bits a
         * float drops are exactly one half): one rounding, as strtof. */
        if (v >= FLT_MIN && v < 3.0e38 && (bits & 0x1FFFFFFFu) != 0x10000000u) {
            *out = neg ? -(float)v : (float)v;
            return 0;
        }
    }
    char buf[512];
    size_t n = (size_t)(p - s);
    if (n >= sizeof buf) return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    *out = strtof(buf, NULL);
    return 0;
}

int md5_parse_float(const char *s, const char *end, float *out, const char **stop)
{
    return parse_decimal(s, end, out, stop);
}

int md5_float(md5_lex *lx, float *out, const char *what)
{
    if (skip_fast(lx)) return -1;
    const char *p = lx->p, *stop;
    lx->tok = p;
    lx->tok_line = lx->line;
    float v;
    if (parse_decimal(p, lx->end, &v, &stop) != 0) return md5_fail(lx, "%s", what);
    if (stop < lx->end && !(CLS(*stop) & C_DELIM)) return md5_fail(lx, "%s", what);
    if (!isfinite(v)) return md5_fail(lx, "%s that fits a float", what);
    *out = v;
    lx->p = stop;
    return 0;
}

int md5_string(md5_lex *lx, const char **s, size_t *n, const char *what)
{
    if (skip_fast(lx)) return -1;
    const char *p = lx->p, *end = lx->end;
    lx->tok = p;
    lx->tok_line = lx->line;
    if (p >= end || *p != '"') return md5_fail(lx, "%s", what);
    const char *q = p + 1;
    while (q < end && *q != '"' && ((unsigned char)*q >= 0x20 || *q == '\t') && *q != 0x7f) q++;
    if (q >= end || *q == '\n' || *q == '\r') return md5_fail(lx, "a closing '\"' on the same line");
    if (*q != '"') return md5_fail(lx, "a string without control characters");
    *s = p + 1;
    *n = (size_t)(q - p - 1);
    lx->p = q + 1;
    return 0;
}

double md5_quat_from_xyz(const float xyz[3], float out[4])
{
    double x = xyz[0], y = xyz[1], z = xyz[2];
    double s = x * x + y * y + z * z;
    if (s > 1.0) {
        double inv = 1.0 / sqrt(s);
        out[0] = (float)(x * inv);
        out[1] = (float)(y * inv);
        out[2] = (float)(z * inv);
        out[3] = 0.0f;
    } else {
        out[0] = xyz[0];
        out[1] = xyz[1];
        out[2] = xyz[2];
        out[3] = (float)-sqrt(1.0 - s);
    }
    return s;
}

int md5_out_of_memory(md5_lex *lx)
{
    if (!lx->failed) {
        lx->failed = 1;
        lx->no_memory = 1;
        mr_error_set(lx->err, MR_ERR_NO_MEMORY, "md5: %s:%d: out of memory", lx->name, lx->line);
    }
    return -1;
}

int md5_header(md5_lex *lx)
{
    int version;
    if (md5_word(lx, "MD5Version", "at the start of the file")) return -1;
    if (md5_int(lx, &version, "a version number")) return -1;
    if (version != 10) return md5_fail(lx, "MD5Version 10");
    if (md5_accept(lx, "commandline")) {
        const char *s;
        size_t n;
        if (md5_string(lx, &s, &n, "the command line in quotes")) return -1;
    }
    return 0;
}
