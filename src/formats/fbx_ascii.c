/* fbx_ascii.c — ASCII FBX into the document tree of fbx_parse.h.
 *
 *   ; FBX 7.5.0 project file              (a comment runs to the line's end)
 *   Name: value, value, ... {             (values run to the next `Name:`,
 *       Child: "string", 12, -0.5e3, T     '{' or '}', over line ends)
 *       Vertices: *6 {                    (7.x array: one 'l' or 'd' property)
 *           a: 1,2,3,
 *           4,5,6
 *       }
 *   }
 *
 * Strings are taken as written, except `&quot;` for a double quote (a raw
 * '"' ends the string). Numbers without '.' or exponent that fit int64 are
 * 'L', other numbers 'D'; FBX SDK's spellings of non-finite reals
 * (1.#INF, -1.#IND, 1.#QNAN, 1.#NAN) and inf, infinity, nan in any case
 * (also nan(payload)) are read as infinities and NaNs. Bare
 * words (T, Y, W, ...) are strings. A leading ',' (`Content: ,` before an
 * embedded file on the next line) adds no value. 5.8/6.x arrays are plain
 * value lists. Lines are counted for messages.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "formats/fbx_parse_internal.h"

typedef union num {
    int64_t i;
    double f;
} num;

typedef struct asc {
    fbxp_ctx *c;
    const char *s, *end;         /* cursor */
    uint64_t line;
    mr_fbx_prop *props;          /* scratch: the properties of the node being read */
    size_t prop_count, prop_cap;
    num *vals;                   /* scratch: the values of the array being read */
    size_t val_cap;
} asc;

static int is_name_char(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
           ch == '|' || ch == '-' || ch == '.';
}

/* Characters that end a number or bare word. */
static int is_delim(unsigned char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == ',' || ch == '{' || ch == '}' ||
           ch == ';' || ch == '"' || ch == ':';
}

/* What the cursor is at, for messages. */
static const char *describe(const asc *a, char *buf, size_t size)
{
    if (a->s >= a->end) return "the end of the file";
    unsigned char ch = (unsigned char)*a->s;
    if (ch == '\n' || ch == '\r') return "the end of the line";
    if (ch < 32 || ch >= 127) snprintf(buf, size, "byte 0x%02x", ch);
    else {
        size_t n = 0;
        while (a->s + n < a->end && n < 24 && !(n && is_delim((unsigned char)a->s[n])) &&
               (unsigned char)a->s[n] >= 32 && (unsigned char)a->s[n] < 127)
            n++;
        snprintf(buf, size, "'%.*s'", (int)n, a->s);
    }
    return buf;
}

static void skip_hspace(asc *a)
{
    while (a->s < a->end && (*a->s == ' ' || *a->s == '\t' || *a->s == '\r')) a->s++;
}

/* Spaces, line ends and comments. */
static void skip_space(asc *a)
{
    while (a->s < a->end) {
        char ch = *a->s;
        if (ch == ' ' || ch == '\t' || ch == '\r') {
            a->s++;
        } else if (ch == '\n') {
            a->line++;
            a->s++;
        } else if (ch == ';') {
            const char *nl = memchr(a->s, '\n', (size_t)(a->end - a->s));
            a->s = nl ? nl : a->end;
        } else {
            break;
        }
    }
}

/* ---- numbers ---------------------------------------------------------- */

static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                     1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Whether *p starts with lower-case word w in any case; moves *p past it. */
static int word_is(const char **p, const char *e, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(e - *p) < n) return 0;
    for (size_t i = 0; i < n; i++)
        if (((*p)[i] | 0x20) != w[i]) return 0;
    *p += n;
    return 1;
}

/* Whether w[0..e) is a NaN's "(payload)": letters and digits in parentheses. */
static int nan_payload(const char *w, const char *e)
{
    if (e - w < 2 || *w != '(' || e[-1] != ')') return 0;
    for (w++; w < e - 1; w++)
        if (!((*w >= '0' && *w <= '9') || ((*w | 0x20) >= 'a' && (*w | 0x20) <= 'z'))) return 0;
    return 1;
}

/* s[0..n) as a number: 1 with *out and *is_int, 0 when it is not one. */
static int parse_number(const char *s, size_t n, num *out, int *is_int)
{
    const char *p = s, *e = s + n;
    int neg = 0;
    if (p < e && (*p == '-' || *p == '+')) neg = *p++ == '-';
    uint64_t mant = 0;
    int digits = 0, sig = 0, exp10 = 0, real = 0;
    for (; p < e && *p >= '0' && *p <= '9'; p++, digits++) {
        if (sig < 19) {
            if (mant || *p != '0') sig++;
            mant = mant * 10 + (uint64_t)(*p - '0');
        } else {
            exp10++;
        }
    }
    if (p < e && *p == '.') {
        real = 1;
        for (p++; p < e && *p >= '0' && *p <= '9'; p++, digits++) {
            if (sig < 19) {
                if (mant || *p != '0') sig++;
                mant = mant * 10 + (uint64_t)(*p - '0');
                exp10--;
            }
        }
    }
    if (!digits) {   /* inf, infinity, nan (any case) */
        const char *w = p;
        double v;
        if ((word_is(&w, e, "infinity") || word_is(&w, e, "inf")) && w == e) v = INFINITY;
        else if ((w = p, word_is(&w, e, "nan")) && (w == e || nan_payload(w, e))) v = NAN;
        else return 0;
        out->f = neg ? -v : v;
        *is_int = 0;
        return 1;
    }
    if (p < e && *p == '#') {   /* 1.#INF, -1.#IND, 1.#QNAN: the FBX SDK's printf on Windows */
        double v;
        const char *w = ++p;
        if (word_is(&w, e, "inf")) v = INFINITY;
        else if (word_is(&w, e, "ind") || word_is(&w, e, "nan") || word_is(&w, e, "qnan") || word_is(&w, e, "snan"))
            v = NAN;
        else return 0;
        while (w < e && *w >= '0' && *w <= '9') w++;   /* 1.#INF00 */
        if (w != e) return 0;
        out->f = neg ? -v : v;
        *is_int = 0;
        return 1;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        real = 1;
        p++;
        int eneg = 0;
        if (p < e && (*p == '-' || *p == '+')) eneg = *p++ == '-';
        if (p >= e || *p < '0' || *p > '9') return 0;
        int x = 0;
        for (; p < e && *p >= '0' && *p <= '9'; p++)
            if (x < 100000) x = x * 10 + (*p - '0');
        exp10 += eneg ? -x : x;
    }
    if (p != e) return 0;
    if (!real && exp10 == 0 && (mant <= (uint64_t)INT64_MAX || (neg && mant == (uint64_t)INT64_MAX + 1))) {
        out->i = neg ? (int64_t)(0 - mant) : (int64_t)mant;
        *is_int = 1;
        return 1;
    }
    *is_int = 0;
    if (mant < ((uint64_t)1 << 53) && exp10 >= -22 && exp10 <= 22) {
        double v = (double)mant;
        v = exp10 < 0 ? v / pow10_exact[-exp10] : v * pow10_exact[exp10];
        out->f = neg ? -v : v;
        return 1;
    }
    char buf[128];
    if (n >= sizeof buf) return 0;   /* no writer spells a number in 128 characters */
    memcpy(buf, s, n);
    buf[n] = 0;
    out->f = strtod(buf, NULL);
    return 1;
}

/* ---- values ------------------------------------------------------------- */

static mr_status push_prop(asc *a, const mr_fbx_prop *p)
{
    if (a->prop_count == a->prop_cap &&
        mr_alloc_reserve((void **)&a->props, &a->prop_cap, a->prop_count + 1, sizeof *a->props) != MR_OK)
        return fbxp_fail(a->c, MR_ERR_NO_MEMORY, a->line, "out of memory for %zu values", a->prop_count + 1);
    a->props[a->prop_count++] = *p;
    return MR_OK;
}

/* A "string" at the cursor. */
static mr_status read_string(asc *a, mr_fbx_prop *p)
{
    uint64_t open_line = a->line;
    const char *s = ++a->s;
    const char *q = memchr(s, '"', (size_t)(a->end - s));
    if (!q) return fbxp_fail(a->c, MR_ERR_BAD_FILE, open_line, "expected '\"' to end the string, the file ended");
    size_t n = (size_t)(q - s);
    for (const char *t = memchr(s, '\n', n); t; t = memchr(t + 1, '\n', (size_t)(q - t - 1))) a->line++;
    if (n > UINT32_MAX) return fbxp_fail(a->c, MR_ERR_LIMIT, open_line, "expected a string shorter than 4 GiB");
    char *d = fbxp_alloc(a->c->arena, n + 1);
    if (!d) return fbxp_fail(a->c, MR_ERR_NO_MEMORY, open_line, "out of memory for a string of %zu bytes", n);
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] == '&' && n - i >= 6 && memcmp(s + i, "&quot;", 6) == 0) {
            d[k++] = '"';
            i += 6;
        } else {
            d[k++] = s[i++];
        }
    }
    d[k] = 0;
    p->type = 'S';
    p->count = (uint32_t)k;
    p->v.s = d;
    a->s = q + 1;
    return MR_OK;
}

/* The token (number or bare word) at the cursor: its length. */
static size_t token_length(const asc *a)
{
    size_t n = 0;
    while (a->s + n < a->end && !is_delim((unsigned char)a->s[n])) n++;
    return n;
}

static int is_word(const char *s, size_t n)
{
    if (!n || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return 0;
    for (size_t i = 1; i < n; i++)
        if (!is_name_char((unsigned char)s[i]) && s[i] != '+') return 0;
    return 1;
}

/* A number or bare word at the cursor. */
static mr_status read_scalar(asc *a, mr_fbx_prop *p)
{
    size_t n = token_length(a);
    num v;
    int is_int;
    char buf[64];
    if (n && parse_number(a->s, n, &v, &is_int)) {
        p->type = is_int ? 'L' : 'D';
        if (is_int) p->v.i = v.i;
        else p->v.f = v.f;
    } else if (is_word(a->s, n)) {
        if (n > UINT32_MAX) return fbxp_fail(a->c, MR_ERR_LIMIT, a->line, "expected a word shorter than 4 GiB");
        p->type = 'S';
        p->count = (uint32_t)n;
        p->v.s = fbxp_strdup(a->c->arena, a->s, n);
        if (!p->v.s) return fbxp_fail(a->c, MR_ERR_NO_MEMORY, a->line, "out of memory");
    } else {
        return fbxp_fail(a->c, MR_ERR_BAD_FILE, a->line, "expected a number, a \"string\" or a word, found %s",
                         describe(a, buf, sizeof buf));
    }
    a->s += n;
    return MR_OK;
}

/* A 7.x array `*N { a: v,v,... }` at the cursor. */
static mr_status read_array(asc *a, mr_fbx_prop *p)
{
    char buf[64];
    uint64_t open_line = a->line;
    a->s++;
    uint64_t declared = 0;
    while (a->s < a->end && *a->s >= '0' && *a->s <= '9') {
        if (declared < UINT32_MAX) declared = declared * 10 + (uint64_t)(*a->s - '0');
        a->s++;
    }
    skip_space(a);
    if (a->s >= a->end || *a->s != '{')
        return fbxp_fail(a->c, MR_ERR_BAD_FILE, a->line, "expected '{' after the array's '*%llu', found %s",
                         (unsigned long long)declared, describe(a, buf, sizeof buf));
    a->s++;
    skip_space(a);
    size_t count = 0;
    int all_int = 1;
    if (a->s < a->end && *a->s != '}') {
        int ok = *a->s == 'a';
        if (ok) {
            a->s++;
            skip_hspace(a);
            ok = a->s < a->end && *a->s == ':';
        }
        if (!ok)
            return fbxp_fail(a->c, MR_ERR_BAD_FILE, a->line, "expected 'a:' before the array's values, found %s",
                             describe(a, buf, sizeof buf));
        a->s++;
        for (;;) {
            skip_space(a);
            if (a->s < a->end && *a->s == '}') break;
            size_t n = token_length(a);
            num v;
            int is_int;
            if (!n || !parse_number(a->s, n, &v, &is_int))
                return fbxp_fail(a->c, MR_ERR_BAD_FILE, a->line, "array element %zu: expected a number, found %s",
                                 count, describe(a, buf, sizeof buf));
            if (count == a->val_cap &&
                mr_alloc_reserve((void **)&a->vals, &a->val_cap, count + 1, sizeof *a->vals) != MR_OK)
                return fbxp_fail(a->c, MR_ERR_NO_MEMORY, a->line, "out of memory for %zu array elements", count + 1);
            if (!is_int && all_int) {
                for (size_t k = 0; k < count; k++) a->vals[k].f = (double)a->vals[k].i;
                all_int = 0;
            }
            if (is_int && !all_int) v.f = (double)v.i;
            a->vals[count++] = v;
            a->s += n;
            skip_space(a);
            if (a->s < a->end && *a->s == ',') {
                a->s++;
                continue;
            }
            if (a->s < a->end && *a->s == '}') break;
            return fbxp_fail(a->c, MR_ERR_BAD_FILE, a->line,
                             "expected ',' or '}' after array element %zu, found %s", count - 1,
                             describe(a, buf, sizeof buf));
        }
    }
    if (a->s >= a->end)
        return fbxp_fail(a->c, MR_ERR_BAD_FILE, open_line, "expected '}' to end the array, the file ended");
    a->s++;
    if (count > UINT32_MAX) return fbxp_fail(a->c, MR_ERR_LIMIT, open_line, "expected fewer than 2^32 array elements");
    void *d = fbxp_alloc(a->c->arena, count * sizeof(num));
    if (!d) return fbxp_fail(a->c, MR_ERR_NO_MEMORY, open_line, "out of memory for %zu array elements", count);
    if (count) memcpy(d, a->vals, count * sizeof(num));
    p->type = all_int ? 'l' : 'd';
    p->count = (uint32_t)count;
    p->v.array = d;
    return MR_OK;
}

/* Whether the cursor is at `Name:`, the next node. */
static int at_node_start(const asc *a)
{
    const char *s = a->s;
    while (s < a->end && is_name_char((unsigned char)*s)) s++;
    if (s == a->s) return 0;
    while (s < a->end && (*s == ' ' || *s == '\t')) s++;
    return s < a->end && *s == ':';
}

/* ---- nodes -------------------------------------------------------------- */

static mr_status read_list(asc *a, int depth, uint64_t open_line, const mr_fbx_node **children,
                           uint32_t *count);

static mr_status finish_props(asc *a, size_t idx)
{
    mr_fbx_node *node = &a->c->nodes[idx];
    if (!a->prop_count) return MR_OK;
    if (a->prop_count > UINT32_MAX) return fbxp_fail(a->c, MR_ERR_LIMIT, a->line, "expected fewer than 2^32 values");
    mr_fbx_prop *p = fbxp_alloc(a->c->arena, a->prop_count * sizeof *p);
    if (!p) return fbxp_fail(a->c, MR_ERR_NO_MEMORY, a->line, "out of memory for %zu values", a->prop_count);
    memcpy(p, a->props, a->prop_count * sizeof *p);
    node->props = p;
    node->prop_count = (uint32_t)a->prop_count;
    a->prop_count = 0;
    return MR_OK;
}

/* What follows `Name:` of the node at scratch index idx: values up to the
 * next `Name:`, '{' (its children) or '}' (its parent's end). Line ends are
 * spaces: writers break long value lists anywhere, before or after a ',',
 * and some start a node's values on the line after its name. */
static mr_status read_body(asc *a, size_t idx, int depth)
{
    mr_status st;
    a->prop_count = 0;
    for (;;) {
        skip_space(a);
        char ch = a->s < a->end ? *a->s : '}';
        if (ch == '}') return finish_props(a, idx);
        if (ch == '{') {
            if ((st = finish_props(a, idx)) != MR_OK) return st;
            uint64_t open_line = a->line;
            a->s++;
            const mr_fbx_node *ch_nodes;
            uint32_t n;
            if ((st = read_list(a, depth + 1, open_line, &ch_nodes, &n)) != MR_OK) return st;
            a->c->nodes[idx].children = ch_nodes;
            a->c->nodes[idx].child_count = n;
            return MR_OK;
        }
        if (ch == ',') {
            a->s++;
            continue;
        }
        if (at_node_start(a)) return finish_props(a, idx);
        mr_fbx_prop p = {0};
        if (ch == '"') st = read_string(a, &p);
        else if (ch == '*') st = read_array(a, &p);
        else st = read_scalar(a, &p);
        if (st != MR_OK) return st;
        if ((st = push_prop(a, &p)) != MR_OK) return st;
    }
}

static mr_status read_list(asc *a, int depth, uint64_t open_line, const mr_fbx_node **children,
                           uint32_t *count)
{
    fbxp_ctx *c = a->c;
    size_t base = c->node_count;
    char buf[64];
    for (;;) {
        skip_space(a);
        if (a->s >= a->end) {
            if (depth > 0)
                return fbxp_fail(c, MR_ERR_BAD_FILE, a->line, "expected '}' to close the list opened at line %llu, "
                                 "the file ended", (unsigned long long)open_line);
            break;
        }
        if (*a->s == '}') {
            if (depth == 0)
                return fbxp_fail(c, MR_ERR_BAD_FILE, a->line, "expected a node name, found '}' with no list open");
            a->s++;
            break;
        }
        const char *name = a->s;
        while (a->s < a->end && is_name_char((unsigned char)*a->s)) a->s++;
        size_t nlen = (size_t)(a->s - name);
        if (!nlen)
            return fbxp_fail(c, MR_ERR_BAD_FILE, a->line, "expected a node name, found %s", describe(a, buf, sizeof buf));
        skip_hspace(a);
        if (a->s >= a->end || *a->s != ':')
            return fbxp_fail(c, MR_ERR_BAD_FILE, a->line, "expected ':' after the node name '%.*s', found %s",
                             nlen > 64 ? 64 : (int)nlen, name, describe(a, buf, sizeof buf));
        a->s++;
        size_t idx = fbxp_push_node(c, a->line);
        if (idx == SIZE_MAX) return MR_ERR_NO_MEMORY;
        const char *nm = fbxp_strdup(c->arena, name, nlen);
        if (!nm) return fbxp_fail(c, MR_ERR_NO_MEMORY, a->line, "out of memory");
        c->nodes[idx].name = nm;
        c->open[c->depth++] = idx;   /* open[] has room for one past the limit, for this message */
        if (c->depth > MR_FBX_MAX_DEPTH)
            return fbxp_fail(c, MR_ERR_LIMIT, a->line, "nesting deeper than %d nodes: expected at most %d levels",
                             MR_FBX_MAX_DEPTH, MR_FBX_MAX_DEPTH);
        mr_status st = read_body(a, idx, depth);
        if (st != MR_OK) return st;
        c->depth--;
    }
    return fbxp_close_list(c, base, children, count, a->line);
}

/* "; FBX 7.5.0 project file" -> 7500; 0 when the file does not start so. */
static uint32_t header_version(const char *s, const char *end)
{
    static const char tag[] = "; FBX ";
    if ((size_t)(end - s) < sizeof tag + 4 || memcmp(s, tag, sizeof tag - 1) != 0) return 0;
    s += sizeof tag - 1;
    uint32_t v = 0, scale = 1000;
    for (int part = 0; part < 3 && s < end; part++) {
        if (*s < '0' || *s > '9') return 0;
        v += (uint32_t)(*s++ - '0') * scale;
        scale /= 10;
        if (s < end && *s == '.') s++;
        else break;
    }
    return v;
}

mr_status fbxp_parse_ascii(fbxp_ctx *c)
{
    asc a = {.c = c, .s = (const char *)c->data, .end = (const char *)c->data + c->size, .line = 1};
    if (c->size >= 3 && memcmp(a.s, "\xEF\xBB\xBF", 3) == 0) a.s += 3;
    c->doc->version = header_version(a.s, a.end);
    mr_status st = read_list(&a, 0, 1, &c->doc->root.children, &c->doc->root.child_count);
    free(a.props);
    free(a.vals);
    if (st != MR_OK) return st;
    if (!c->doc->version) {
        const mr_fbx_node *h = NULL, *v = NULL;
        for (uint32_t i = 0; i < c->doc->root.child_count && !h; i++)
            if (strcmp(c->doc->root.children[i].name, "FBXHeaderExtension") == 0) h = &c->doc->root.children[i];
        for (uint32_t i = 0; h && i < h->child_count && !v; i++)
            if (strcmp(h->children[i].name, "FBXVersion") == 0) v = &h->children[i];
        if (v && v->prop_count && v->props[0].type == 'L' && v->props[0].v.i > 0 && v->props[0].v.i < 100000)
            c->doc->version = (uint32_t)v->props[0].v.i;
    }
    return MR_OK;
}
