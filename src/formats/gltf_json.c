/* gltf_json.c — the glTF reader's JSON: a strict parser into one arena
 * (gltf_internal.h, "JSON").
 *
 * The text is copied once and parsed in place: strings are unescaped where
 * they stand and NUL-terminated over their closing quote, nodes are bumped
 * out of arena chunks (no allocation per value), and the document drops
 * everything at once. Numbers with a fraction or exponent keep their text
 * and are converted when read (most never are: accessor min/max); the
 * conversion is exact (strtod's result, by a fast path when the digits and
 * the power of ten are exact doubles).
 *
 * It accepts exactly what jansson's json_loadb(JSON_REJECT_DUPLICATES)
 * accepts: RFC 8259 JSON with an object or array at the top, valid UTF-8,
 * no \u0000, no lone surrogate escapes, no duplicate keys, integers within
 * long long, reals that do not overflow a double, at most 2048 levels. What
 * it refuses is parsed again by jansson for jansson's message (line, column,
 * "near ..."), so messages are those the reader has always given. */
#include <float.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/gltf_internal.h"

#define GL_JSON_MAX_DEPTH 2048  /* jansson's JSON_PARSER_MAX_DEPTH */

/* ---- arena ---------------------------------------------------------------- */

struct gl_chunk {
    struct gl_chunk *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
};

static void *arena_alloc(gl_chunk **arena, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    gl_chunk *c = *arena;
    if (!c || c->size - c->used < n) {
        size_t size = 64 * 1024 - sizeof *c - 32;  /* under malloc's mmap threshold: reused, not faulted in */
        if (size < n) size = n;
        gl_chunk *nc = malloc(sizeof *nc + size);
        if (!nc) return NULL;
        nc->next = c;
        nc->used = 0;
        nc->size = size;
        *arena = c = nc;
    }
    void *p = c->data + c->used;
    c->used += n;
    return p;
}

void gl_json_arena_free(gl_chunk *c)
{
    while (c) {
        gl_chunk *next = c->next;
        free(c);
        c = next;
    }
}

/* ---- lookups -------------------------------------------------------------- */

static uint32_t key_hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static size_t slot_count(uint32_t n)
{
    size_t cap = 16;
    while (cap < 2 * (size_t)n) cap *= 2;
    return cap;
}

gl_json *gl_json_find_big(const gl_json *o, const char *key, size_t len)
{
    const uint32_t *slots = (const uint32_t *)(o->u.kids + o->n);
    size_t mask = slot_count(o->n) - 1;
    for (size_t s = key_hash(key, len) & mask;; s = (s + 1) & mask) {
        uint32_t k = slots[s];
        if (!k) return NULL;
        gl_json *m = &o->u.kids[k - 1];
        if (m->key_len == len && !memcmp(m->key, key, len)) return m;
    }
}

/* A real's text to its value: exactly strtod's double. Digits and power
 * of ten that are both exact doubles give it in one correctly rounded
 * operation; the rest goes to strtod (with the locale's decimal point, as
 * jansson does). */
double gl_json_real_value(const gl_json *v)
{
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *s = v->u.str, *e = s + v->n, *p = s;
    int neg = *p == '-';
    p += neg;
    uint64_t m = 0;
    int digits = 0, exp10 = 0, fast = 1;
    for (; p < e && *p >= '0' && *p <= '9'; p++) {
        if (m || *p != '0') digits++;
        if (digits > 19) fast = 0;
        else m = m * 10 + (uint64_t)(*p - '0');
    }
    if (p < e && *p == '.')
        for (p++; p < e && *p >= '0' && *p <= '9'; p++) {
            if (m || *p != '0') digits++;
            if (digits > 19) fast = 0;
            else m = m * 10 + (uint64_t)(*p - '0');
            exp10--;
        }
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        int eneg = *p == '-', x = 0;
        if (*p == '-' || *p == '+') p++;
        for (; p < e; p++)
            if (x < 100000) x = x * 10 + (*p - '0');
        exp10 += eneg ? -x : x;
    }
    if (fast && m == 0) return neg ? -0.0 : 0.0;
    if (fast && m <= ((uint64_t)1 << 53) && exp10 >= -22 && exp10 <= 22) {
        double x = (double)m;
        x = exp10 < 0 ? x / p10[-exp10] : x * p10[exp10];
        return neg ? -x : x;
    }
#if LDBL_MANT_DIG == 64 && (defined(__x86_64__) || defined(__i386__))
    /* x87 extended: digits (< 2^64) and 10^|e| (|e| <= 27) are exact, so
     * one operation rounds once to 64 bits; rounding that to 53 bits is
     * strtod's answer unless the 11 bits below sit at the half-way point
     * (0x400, give or take the first rounding): then strtod decides. */
    if (fast && exp10 >= -27 && exp10 <= 27) {
        static const long double lp10[] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
                                           1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
                                           1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
        long double x = exp10 < 0 ? (long double)m / lp10[-exp10] : (long double)m * lp10[exp10];
        uint64_t bits;
        memcpy(&bits, &x, sizeof bits);  /* the 64-bit significand, explicit leading 1 */
        unsigned low = (unsigned)(bits & 0x7FF);
        if (low < 0x3FF || low > 0x401) {
            double r = (double)x;
            return neg ? -r : r;
        }
    }
#endif
    char small[64], *buf = v->n < sizeof small ? small : malloc(v->n + 1);
    if (!buf) return 0.0;
    memcpy(buf, s, v->n);
    buf[v->n] = 0;
    char point = localeconv()->decimal_point[0];
    if (point && point != '.') {
        char *dot = memchr(buf, '.', v->n);
        if (dot) *dot = point;
    }
    double x = strtod(buf, NULL);
    if (buf != small) free(buf);
    return x;
}

/* ---- parser --------------------------------------------------------------- */

typedef struct frame {
    uint32_t base;               /* first child on the value stack */
    int is_obj;
    const char *key;             /* the container's own key in its parent */
    uint32_t key_len;
} frame;

typedef struct parser {
    char *p, *end;
    gl_json *stack;              /* values of the open containers */
    size_t top, cap;
    frame *frames;
    int depth, frame_cap;
    size_t values, max_values;   /* ',', '[' and '{' so far, and the most allowed */
    gl_chunk **arena;
} parser;

static int skip_ws(parser *ps)
{
    char *p = ps->p, *e = ps->end;
    while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    ps->p = p;
    return p < e ? (unsigned char)*p : -1;
}

static int hex4(const char *p, const char *e, unsigned *out)
{
    if (e - p < 4) return 0;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int c = (unsigned char)p[i], d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else return 0;
        v = v << 4 | (unsigned)d;
    }
    *out = v;
    return 1;
}

/* Length of the valid UTF-8 sequence at p (lead byte >= 0x80), 0 if none:
 * no overlong forms, no surrogates, nothing past U+10FFFF. */
static int utf8_len(const unsigned char *p, const unsigned char *e)
{
    unsigned c = p[0], n, v;
    if (c >= 0xC2 && c <= 0xDF) n = 2, v = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF) n = 3, v = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4) n = 4, v = c & 0x07;
    else return 0;
    if ((size_t)(e - p) < n) return 0;
    for (unsigned i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        v = v << 6 | (p[i] & 0x3Fu);
    }
    if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF) || (n == 3 && v < 0x800) || (n == 4 && v < 0x10000)) return 0;
    return (int)n;
}

/* The string whose opening quote ps->p is just past: unescaped in place and
 * NUL-terminated; 0 when it is not valid. */
static int parse_string(parser *ps, const char **out, uint32_t *out_len)
{
    char *s = ps->p, *p = s, *e = ps->end, *w = NULL;
    for (;;) {
        char *run = p;
        /* up to a byte that needs a look: the quote, backslash, controls, non-ASCII */
        while (p < e && (unsigned char)*p >= 32 && (unsigned char)*p < 128 && *p != '"' && *p != '\\') p++;
        if (w && p > run) {
            memmove(w, run, (size_t)(p - run));
            w += p - run;
        }
        if (p >= e) return 0;
        unsigned c = (unsigned char)*p;
        if (c == '"') break;
        if (c < 32) return 0;
        if (c >= 128) {
            int n = utf8_len((const unsigned char *)p, (const unsigned char *)e);
            if (!n) return 0;
            if (w) {
                memmove(w, p, (size_t)n);
                w += n;
            }
            p += n;
            continue;
        }
        /* a backslash */
        if (!w) w = p;
        if (e - p < 2) return 0;
        char x = p[1];
        p += 2;
        switch (x) {
        case '"': *w++ = '"'; break;
        case '\\': *w++ = '\\'; break;
        case '/': *w++ = '/'; break;
        case 'b': *w++ = '\b'; break;
        case 'f': *w++ = '\f'; break;
        case 'n': *w++ = '\n'; break;
        case 'r': *w++ = '\r'; break;
        case 't': *w++ = '\t'; break;
        case 'u': {
            unsigned v, v2;
            if (!hex4(p, e, &v)) return 0;
            p += 4;
            if (v >= 0xDC00 && v <= 0xDFFF) return 0;
            if (v >= 0xD800 && v <= 0xDBFF) {
                if (e - p < 2 || p[0] != '\\' || p[1] != 'u' || !hex4(p + 2, e, &v2)) return 0;
                if (v2 < 0xDC00 || v2 > 0xDFFF) return 0;
                p += 6;
                v = ((v - 0xD800) << 10) + (v2 - 0xDC00) + 0x10000;
            }
            if (v == 0) return 0;  /* \u0000: jansson refuses it without JSON_ALLOW_NUL */
            if (v < 0x80) *w++ = (char)v;
            else if (v < 0x800) {
                *w++ = (char)(0xC0 | v >> 6);
                *w++ = (char)(0x80 | (v & 0x3F));
            } else if (v < 0x10000) {
                *w++ = (char)(0xE0 | v >> 12);
                *w++ = (char)(0x80 | (v >> 6 & 0x3F));
                *w++ = (char)(0x80 | (v & 0x3F));
            } else {
                *w++ = (char)(0xF0 | v >> 18);
                *w++ = (char)(0x80 | (v >> 12 & 0x3F));
                *w++ = (char)(0x80 | (v >> 6 & 0x3F));
                *w++ = (char)(0x80 | (v & 0x3F));
            }
            break;
        }
        default: return 0;
        }
    }
    char *end = w ? w : p;
    *end = 0;  /* over the closing quote (or inside the string when it shrank) */
    ps->p = p + 1;
    *out = s;
    *out_len = (uint32_t)(end - s);
    return (size_t)(end - s) < UINT32_MAX;
}

static int is_digit(const char *p, const char *e) { return p < e && *p >= '0' && *p <= '9'; }

/* A number at ps->p into v: integers by value (within long long), reals
 * as text (refused when they overflow a double). */
static int parse_number(parser *ps, gl_json *v)
{
    char *s = ps->p, *p = s, *e = ps->end;
    int neg = *p == '-';
    p += neg;
    if (!is_digit(p, e)) return 0;
    char *int_start = p;
    if (*p == '0') {
        p++;
        if (is_digit(p, e)) return 0;
    } else {
        while (is_digit(p, e)) p++;
    }
    char *int_end = p, *frac = NULL, *frac_end = NULL;
    int real = 0;
    long long exp10 = 0;
    if (p < e && *p == '.') {
        p++;
        if (!is_digit(p, e)) return 0;
        frac = p;
        while (is_digit(p, e)) p++;
        frac_end = p;
        real = 1;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        int eneg = 0;
        if (p < e && (*p == '+' || *p == '-')) eneg = *p++ == '-';
        if (!is_digit(p, e)) return 0;
        for (; is_digit(p, e); p++)
            if (exp10 < 1000000) exp10 = exp10 * 10 + (*p - '0');
        if (eneg) exp10 = -exp10;
        real = 1;
    }
    ps->p = p;
    if (!real) {
        unsigned long long limit = neg ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)LLONG_MAX, acc = 0;
        for (char *q = int_start; q < int_end; q++) {
            unsigned d = (unsigned)(*q - '0');
            if (acc > (limit - d) / 10) return 0;  /* strtoll's ERANGE: "too big integer" */
            acc = acc * 10 + d;
        }
        v->type = GL_JSON_INTEGER;
        v->u.i = neg ? (acc == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(long long)acc) : (long long)acc;
        return 1;
    }
    v->type = GL_JSON_REAL;
    v->u.str = s;
    if ((size_t)(p - s) >= UINT32_MAX) return 0;
    v->n = (uint32_t)(p - s);
    /* Overflow: the value lies in [10^(mag-1), 10^mag). Below 10^308 it
     * cannot overflow, from 10^309 it always does; between, ask. */
    long long mag;
    char *q = int_start;
    while (q < int_end && *q == '0') q++;
    if (q < int_end) mag = int_end - q;
    else {
        char *f = frac;
        while (f && f < frac_end && *f == '0') f++;
        if (!f || f == frac_end) return 1;  /* zero */
        mag = -(long long)(f - frac);
    }
    mag += exp10;
    if (mag <= 308) return 1;
    if (mag >= 310) return 0;
    return isfinite(gl_json_real_value(v));
}

static int literal(parser *ps, const char *word, size_t n)
{
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n)) return 0;
    ps->p += n;
    return 1;
}

static int push(parser *ps, const gl_json *v)
{
    if (ps->top == ps->cap) {
        size_t cap = ps->cap ? ps->cap * 2 : 256;
        gl_json *s = realloc(ps->stack, cap * sizeof *s);
        if (!s) return 0;
        ps->stack = s;
        ps->cap = cap;
    }
    ps->stack[ps->top++] = *v;
    return 1;
}

/* An object's members are told apart: a duplicate key fails. Objects with
 * more than GL_JSON_SMALL members get their hash index (after the members
 * in the arena), which also finds the duplicates. */
static int index_members(gl_json *kids, uint32_t n)
{
    if (n <= GL_JSON_SMALL) {
        for (uint32_t i = 1; i < n; i++)
            for (uint32_t j = 0; j < i; j++)
                if (kids[i].key_len == kids[j].key_len && !memcmp(kids[i].key, kids[j].key, kids[i].key_len))
                    return 0;
        return 1;
    }
    uint32_t *slots = (uint32_t *)(kids + n);
    size_t mask = slot_count(n) - 1;
    memset(slots, 0, (mask + 1) * sizeof *slots);
    for (uint32_t i = 0; i < n; i++) {
        size_t s = key_hash(kids[i].key, kids[i].key_len) & mask;
        for (; slots[s]; s = (s + 1) & mask) {
            const gl_json *m = &kids[slots[s] - 1];
            if (m->key_len == kids[i].key_len && !memcmp(m->key, kids[i].key, m->key_len)) return 0;
        }
        slots[s] = i + 1;
    }
    return 1;
}

/* Closes the innermost container into *out (its children moved from the
 * value stack into the arena). */
static int close_container(parser *ps, gl_json *out)
{
    frame *f = &ps->frames[--ps->depth];
    size_t n = ps->top - f->base;
    if (n >= UINT32_MAX / 2) return 0;
    size_t bytes = n * sizeof(gl_json);
    if (f->is_obj && n > GL_JSON_SMALL) bytes += slot_count((uint32_t)n) * sizeof(uint32_t);
    gl_json *kids = NULL;
    if (n) {
        kids = arena_alloc(ps->arena, bytes);
        if (!kids) return 0;
        memcpy(kids, ps->stack + f->base, n * sizeof *kids);
    }
    ps->top = f->base;
    memset(out, 0, sizeof *out);
    out->type = f->is_obj ? GL_JSON_OBJECT : GL_JSON_ARRAY;
    out->n = (uint32_t)n;
    out->u.kids = kids;
    out->key = f->key;
    out->key_len = f->key_len;
    return !f->is_obj || index_members(kids, (uint32_t)n);
}

/* A member's key and its ':' (ps->p at the key's opening quote or before
 * whitespace). */
static int member_key(parser *ps, const char **key, uint32_t *len)
{
    if (skip_ws(ps) != '"') return 0;
    ps->p++;
    if (!parse_string(ps, key, len)) return 0;
    if (skip_ws(ps) != ':') return 0;
    ps->p++;
    return 1;
}

static int parse(parser *ps, gl_json **root)
{
    int c = skip_ws(ps);
    if (c != '{' && c != '[') return 0;
    const char *key = NULL;  /* the key of the value about to be read */
    uint32_t key_len = 0;
    gl_json v;
    for (;;) {
        /* a value at ps->p (whitespace skipped; c its first character) */
        if (ps->depth >= GL_JSON_MAX_DEPTH) return 0;  /* it would be level depth + 1 */
        memset(&v, 0, sizeof v);
        if (c == '{' || c == '[') {
            if (ps->depth == ps->frame_cap) {
                int cap = ps->frame_cap ? ps->frame_cap * 2 : 32;
                frame *fr = realloc(ps->frames, (size_t)cap * sizeof *fr);
                if (!fr) return 0;
                ps->frames = fr;
                ps->frame_cap = cap;
            }
            if (++ps->values > ps->max_values) return 0;
            frame *f = &ps->frames[ps->depth++];
            *f = (frame){(uint32_t)ps->top, c == '{', key, key_len};
            if (ps->top >= UINT32_MAX) return 0;
            ps->p++;
            c = skip_ws(ps);
            if (c == (f->is_obj ? '}' : ']')) {
                ps->p++;
                if (!close_container(ps, &v)) return 0;
            } else {
                key = NULL;
                key_len = 0;
                if (f->is_obj && !member_key(ps, &key, &key_len)) return 0;
                c = skip_ws(ps);
                continue;
            }
        } else {
            if (c == '"') {
                ps->p++;
                v.type = GL_JSON_STRING;
                if (!parse_string(ps, &v.u.str, &v.n)) return 0;
            } else if (c == '-' || (c >= '0' && c <= '9')) {
                if (!parse_number(ps, &v)) return 0;
            } else if (c == 't' && literal(ps, "true", 4)) v.type = GL_JSON_TRUE;
            else if (c == 'f' && literal(ps, "false", 5)) v.type = GL_JSON_FALSE;
            else if (c == 'n' && literal(ps, "null", 4)) v.type = GL_JSON_NULL;
            else return 0;
            /* jansson reads one byte past a number or a word and puts it
             * back; a NUL byte put back is lost (its stream takes NUL for
             * "nothing buffered"), so it reads "[6\0]" as [6]. */
            if (c != '"' && ps->p < ps->end && !*ps->p) ps->p++;
            v.key = key;
            v.key_len = key_len;
        }
        /* v is complete: it joins its container; closing brackets complete
         * the containers in turn. */
        for (;;) {
            if (ps->depth == 0) {  /* the root */
                if (skip_ws(ps) >= 0) return 0;  /* jansson: "end of file expected" */
                gl_json *r = arena_alloc(ps->arena, sizeof *r);
                if (!r) return 0;
                *r = v;
                *root = r;
                return 1;
            }
            if (!push(ps, &v)) return 0;
            frame *f = &ps->frames[ps->depth - 1];
            c = skip_ws(ps);
            if (c == ',') {
                ps->p++;
                if (++ps->values > ps->max_values) return 0;
                key = NULL;
                key_len = 0;
                if (f->is_obj && !member_key(ps, &key, &key_len)) return 0;
                c = skip_ws(ps);
                break;
            }
            if (c != (f->is_obj ? '}' : ']')) return 0;
            ps->p++;
            if (!close_container(ps, &v)) return 0;
        }
    }
}

gl_json *gl_json_parse(char *text, size_t len, size_t max_values, gl_chunk **arena)
{
    parser ps = {.p = text, .end = text + len, .max_values = max_values, .arena = arena};
    gl_json *root = NULL;
    if (!parse(&ps, &root)) root = NULL;
    free(ps.stack);
    free(ps.frames);
    return root;
}
