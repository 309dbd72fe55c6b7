/* collada_xml.c — the XML layer of the COLLADA reader: a safe libxml2 parse
 * into a tree of its own, the #id table, error messages with element path
 * and line, and fast parsing of the number arrays that make up most of a
 * .dae file.
 *
 * The tree. libxml2's SAX2 parser reports elements and text; the callbacks
 * below build cl_el elements in an arena (a few large blocks) instead of
 * libxml2's DOM, where every element, attribute, text piece and value is a
 * malloc'd object freed one by one. Text is joined per element as it
 * arrives (no text nodes; a leaf's text is written once, at the arena's
 * free end, where it stays), ids go into the table as elements start, and
 * numbers are parsed later from the joined text, only for the arrays a
 * reader asks for. Attribute values are decoded exactly as libxml2's tree
 * builder decodes them (one with an entity reference keeps the text before
 * it). Everything libxml2 does besides the tree — encodings, the DTD and
 * its entities, well-formedness and the entity loop checks — is unchanged:
 * while libxml2 checks an entity's content (a parse of its own), the
 * callbacks hand its events to libxml2's own tree builder, as before.
 *
 * Plain documents — what exporters write — never reach libxml2:
 * collada_xml_scan.c builds the same tree from them itself, and declines
 * everything else, which libxml2 then parses here as before.
 *
 * Safety: documents are parsed with XML_PARSE_NONET and without
 * XML_PARSE_NOENT / XML_PARSE_DTDLOAD, so entities are never substituted
 * (no "billion laughs" expansion) and external entities and DTDs are never
 * read. Entity references are not text to this reader. libxml2's own
 * diagnostics are captured (first error and its line) and never printed.
 */
#include "formats/collada_internal.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <libxml/SAX2.h>
#include <libxml/dict.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "core/alloc.h"
#include "core/path.h"

/* ---- arena ------------------------------------------------------------- */

/* Everything the tree holds lives in a few blocks freed together by
 * cl_doc_close. The first block is about the input's size (at least 4 KB),
 * the next ones double up to 1 MB; a larger request gets a block of its
 * own size. */
struct cl_block {
    cl_block *next;
    size_t cap, used;
    max_align_t data[];
};

void *cl_arena_alloc(cl_doc *d, size_t n)
{
    if (n > SIZE_MAX / 2) return NULL;
    n = (n + 15) & ~(size_t)15;
    cl_block *b = d->arena;
    if (!b || b->cap - b->used < n) {
        size_t cap = b ? b->cap * 2 : d->arena_first;
        if (cap > ((size_t)1 << 20)) cap = (size_t)1 << 20;
        if (cap < n) cap = n;
        cl_block *nb = malloc(sizeof *nb + cap);
        if (!nb) return NULL;
        nb->cap = cap;
        nb->used = 0;
        /* A request that gets a block of its own while the current block
         * still has room goes behind it: small allocations keep filling
         * the current one. */
        if (b && cap == n && b->cap - b->used > 4096) {
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            d->arena = nb;
        }
        b = nb;
    }
    void *p = (char *)b->data + b->used;
    b->used += n;
    return p;
}

/* Room for need more bytes after the have bytes already written at the
 * current block's free end (not allocated: arena_commit takes them), in a
 * new block holding a copy of those have bytes when the current block is
 * full. Returns where the have bytes now start, or NULL. */
static char *arena_tail(cl_doc *d, size_t have, size_t need)
{
    cl_block *b = d->arena;
    if (need > SIZE_MAX / 4 - have) return NULL;
    if (b && b->cap - b->used >= have + need) return (char *)b->data + b->used;
    size_t cap = b ? b->cap * 2 : d->arena_first;
    if (cap > ((size_t)1 << 20)) cap = (size_t)1 << 20;
    if (cap < 2 * (have + need)) cap = 2 * (have + need);
    cl_block *nb = malloc(sizeof *nb + cap);
    if (!nb) return NULL;
    nb->cap = cap;
    nb->used = 0;
    if (have) memcpy(nb->data, (char *)b->data + b->used, have);
    nb->next = b;
    d->arena = nb;
    return (char *)nb->data;
}

/* Allocates the n bytes written at the free end (arena_tail made room). */
static void arena_commit(cl_doc *d, size_t n)
{
    d->arena->used += (n + 15) & ~(size_t)15;
    if (d->arena->used > d->arena->cap) d->arena->used = d->arena->cap;
}

static void arena_free(cl_doc *d)
{
    for (cl_block *b = d->arena, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    d->arena = NULL;
}

/* ---- errors ------------------------------------------------------------- */

long cl_line(const cl_el *n)
{
    return n ? n->line : 0;
}

/* One path segment: name, [@id='..'] when the element has an id, else [k]
 * when it has same-named siblings. Returns chars written (not counting NUL). */
static size_t path_segment(const cl_el *n, char *buf, size_t cap)
{
    const char *id = cl_attr(n, "id");
    int pos = 0, total = 0;
    if (!id && n->parent) {
        for (const cl_el *c = n->parent->first; c; c = c->next)
            if (strcmp(c->name, n->name) == 0) {
                total++;
                if (c == n) pos = total;
            }
    }
    int w;
    if (id) w = snprintf(buf, cap, "/%s[@id='%.60s']", n->name, id);
    else if (total > 1) w = snprintf(buf, cap, "/%s[%d]", n->name, pos);
    else w = snprintf(buf, cap, "/%s", n->name);
    return w < 0 ? 0 : (size_t)w;
}

void cl_path(const cl_el *n, char *buf, size_t cap)
{
    const cl_el *chain[64];
    int depth = 0;
    for (const cl_el *p = n; p; p = p->parent) {
        if (depth == 64) {  /* keep the innermost 63 levels */
            memmove(chain + 1, chain, 63 * sizeof *chain);
            depth = 63;
        }
        chain[depth++] = p;
    }
    size_t used = 0;
    buf[0] = '\0';
    for (int i = depth - 1; i >= 0 && used + 1 < cap; i--) {
        char seg[200];
        size_t w = path_segment(chain[i], seg, sizeof seg);
        if (w >= sizeof seg) w = sizeof seg - 1;
        if (used + w >= cap) w = cap - used - 1;
        memcpy(buf + used, seg, w);
        used += w;
        buf[used] = '\0';
    }
}

/* Copies s into out (cap bytes) with control bytes written as \xNN, so a
 * name or value quoted from the file (a newline inside an id, say) keeps an
 * error message on one line. */
static void one_line(const char *s, char *out, size_t cap)
{
    size_t used = 0;
    for (; *s && used + 1 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c != 0x7f) {
            out[used++] = (char)c;
        } else {
            if (used + 5 >= cap) break;
            snprintf(out + used, cap - used, "\\x%02x", c);
            used += 4;
        }
    }
    out[used] = '\0';
}

static mr_status failv(cl_doc *d, mr_status status, const cl_el *at, const char *fmt, va_list ap)
{
    char raw[600], what[600];
    vsnprintf(raw, sizeof raw, fmt, ap);
    one_line(raw, what, sizeof what);
    if (at) {
        char raw_path[400], path[400];
        cl_path(at, raw_path, sizeof raw_path);
        one_line(raw_path, path, sizeof path);
        return mr_error_set(d->err, status, "collada: %s: %s (line %ld): %s", d->name, path,
                            cl_line(at), what);
    }
    return mr_error_set(d->err, status, "collada: %s: %s", d->name, what);
}

mr_status cl_fail(cl_doc *d, const cl_el *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mr_status st = failv(d, MR_ERR_BAD_FILE, at, fmt, ap);
    va_end(ap);
    return st;
}

mr_status cl_fail_status(cl_doc *d, mr_status status, const cl_el *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mr_status st = failv(d, status, at, fmt, ap);
    va_end(ap);
    return st;
}

/* ---- element helpers ---------------------------------------------------- */

/* The first bytes compared before strcmp: most names asked about are
 * another element's or attribute's, and differ there. */
int cl_is(const cl_el *n, const char *name)
{
    return n && n->name[0] == name[0] && strcmp(n->name, name) == 0;
}

cl_el *cl_first_elem(const cl_el *n)
{
    return n ? n->first : NULL;
}

cl_el *cl_next_elem(const cl_el *n)
{
    return n->next;
}

cl_el *cl_child(const cl_el *n, const char *name)
{
    if (!n) return NULL;
    for (cl_el *c = n->first; c; c = c->next)
        if (strcmp(c->name, name) == 0) return c;
    return NULL;
}

cl_el *cl_next(const cl_el *n, const char *name)
{
    for (cl_el *c = n->next; c; c = c->next)
        if (strcmp(c->name, name) == 0) return c;
    return NULL;
}

const char *cl_attr(const cl_el *n, const char *name)
{
    if (!n) return NULL;
    for (int i = 0; i < n->attr_count; i++)
        if (n->attrs[i].name[0] == name[0] && strcmp(n->attrs[i].name, name) == 0) return n->attrs[i].value;
    return NULL;
}

const char *cl_text(const cl_el *n, size_t *len, char **owned)
{
    *owned = NULL;
    *len = n->text_len;
    return n->text;
}

/* ---- id table ----------------------------------------------------------- */

/* Eight bytes at a time (ids are tens of bytes; a byte-wise hash was a
 * few percent of a load). */
static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
        s += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, s, n);
    h = (h ^ w) * 0xC4CEB9FE1A85EC53ull;
    return h ^ (h >> 29);
}

mr_status cl_ids_insert(cl_doc *d, const char *id, cl_el *node)
{
    if ((d->ids_count + 1) * 2 > d->ids_cap) {
        size_t cap = d->ids_cap ? d->ids_cap * 2 : d->ids_first;
        cl_id *grown = mr_alloc_array(cap, sizeof *grown);
        if (!grown) return MR_ERR_NO_MEMORY;
        for (size_t i = 0; i < d->ids_cap; i++)
            if (d->ids[i].id) {
                size_t h = (size_t)hash_bytes(d->ids[i].id, strlen(d->ids[i].id)) & (cap - 1);
                while (grown[h].id) h = (h + 1) & (cap - 1);
                grown[h] = d->ids[i];
            }
        free(d->ids);
        d->ids = grown;
        d->ids_cap = cap;
    }
    size_t len = strlen(id);
    size_t h = (size_t)hash_bytes(id, len) & (d->ids_cap - 1);
    while (d->ids[h].id) {
        if (strcmp(d->ids[h].id, id) == 0) return MR_OK;  /* first one wins */
        h = (h + 1) & (d->ids_cap - 1);
    }
    d->ids[h].id = id;
    d->ids[h].node = node;
    d->ids_count++;
    return MR_OK;
}

cl_el *cl_find_id(cl_doc *d, const char *id, size_t len)
{
    if (!d->ids_cap) return NULL;
    size_t h = (size_t)hash_bytes(id, len) & (d->ids_cap - 1);
    while (d->ids[h].id) {
        if (strncmp(d->ids[h].id, id, len) == 0 && d->ids[h].id[len] == '\0') return d->ids[h].node;
        h = (h + 1) & (d->ids_cap - 1);
    }
    return NULL;
}

cl_el *cl_lookup(cl_doc *d, const char *uri)
{
    if (!uri || uri[0] != '#') return NULL;
    cl_el *n = cl_find_id(d, uri + 1, strlen(uri + 1));
    if (n || !strchr(uri, '%')) return n;
    char *dec = mr_path_url_decode(uri + 1, NULL);
    if (!dec) return NULL;
    n = cl_find_id(d, dec, strlen(dec));
    free(dec);
    return n;
}

mr_status cl_ref(cl_doc *d, cl_el *at, const char *attr, const char *want, cl_el **out)
{
    *out = NULL;
    char *owned = NULL;
    const char *uri;
    size_t len = 0;
    if (attr) {
        uri = cl_attr(at, attr);
        if (!uri) return cl_fail(d, at, "missing attribute '%s'", attr);
    } else {
        uri = cl_text(at, &len, &owned);
        if (!uri) return cl_fail_status(d, MR_ERR_NO_MEMORY, at, "out of memory");
        while (*uri && isspace((unsigned char)*uri)) uri++;
    }
    char buf[300];
    size_t ul = strnlen(uri, sizeof buf - 1);   /* as snprintf's "%s" would cut it, without its cost */
    memcpy(buf, uri, ul);
    buf[ul] = '\0';
    free(owned);
    size_t bl = strlen(buf);
    while (bl && isspace((unsigned char)buf[bl - 1])) buf[--bl] = '\0';
    if (buf[0] != '#') {
        /* <skeleton>, <init_from> and <surface> use bare ids in some files. */
        if (!attr && buf[0] && !strchr(buf, '#') && !strchr(buf, '/')) {
            cl_el *n = cl_find_id(d, buf, strlen(buf));
            if (n && (!want || cl_is(n, want))) {
                *out = n;
                return MR_OK;
            }
        }
        if (strchr(buf, '#'))
            return cl_fail(d, at, "reference '%s' points into another file; external references are not supported",
                           buf);
        return cl_fail(d, at, "reference '%s' is not a '#id' URI", buf);
    }
    cl_el *n = cl_lookup(d, buf);
    if (!n) return cl_fail(d, at, "dangling reference '%s': no element has that id", buf);
    if (want && !cl_is(n, want))
        return cl_fail(d, at, "reference '%s' names a <%s>, expected a <%s>", buf, (const char *)n->name,
                       want);
    *out = n;
    return MR_OK;
}

/* ---- numbers ------------------------------------------------------------ */

static inline int is_space(unsigned char c)
{
    /* one bit test: tab (9), LF (10), CR (13) and space (32) */
    return c <= ' ' && ((0x100002600ull >> c) & 1);
}

static const double pow10_tab[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* The slow path: strtof on a copy of the token [p, end) with ',' as '.'
 * (the token's grammar is checked already; the C library rounds exactly;
 * marrow never changes LC_NUMERIC from "C"). */
static float slow_float(const char *p, const char *end)
{
    char small[128], *buf = small;
    size_t n = (size_t)(end - p);
    if (n >= sizeof small && !(buf = malloc(n + 1))) return strtof("nan", NULL);  /* refused as not finite */
    for (size_t i = 0; i < n; i++) buf[i] = p[i] == ',' ? '.' : p[i];
    buf[n] = '\0';
    /* Beyond the largest float is out of range even where rounding to
     * float would still give FLT_MAX. */
    float f = fabs(strtod(buf, NULL)) > FLT_MAX ? HUGE_VALF : strtof(buf, NULL);
    if (buf != small) free(buf);
    return f;
}

/* Parses one decimal number at p (no leading space) into the nearest float.
 * Returns the end, or NULL when p does not start a well-formed number. The
 * text must end in a NUL (every cl_text result does), which stops every
 * loop. The digits accumulate into an integer m (up to 18 of them; later
 * ones are counted in the exponent when they are zeros, else the number
 * takes the slow path), the value being m * 10^e. Two exact fast paths,
 * each a single correctly rounded operation on exact operands:
 *   m <= 2^24 and |e| <= 10 (most numbers exporters write): m and 10^|e|
 *   are exact floats, one float multiply or divide;
 *   m <= 2^53 and |e| <= 22: exact doubles, one double operation, then
 *   rounded to float, which gives the nearest float unless the double sits
 *   exactly halfway between two floats (or outside the normal float
 *   range): then, like any other number, the token goes to strtof.
 * *out is +-HUGE_VALF when the number is beyond FLT_MAX. */
static const float pow10_f[11] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};

/* Up to 8 digits at once (little-endian machines; elsewhere none): the
 * count of digits that start the 8 bytes at p (0 to 8) and, in *val, their
 * value. A byte below '0' borrows from, and one far above '9' carries
 * into, only the bytes after it, so the first non-digit and the digits
 * before it are found exactly; the value is the 8-digit combine of the
 * digits moved to the top bytes (leading zeros below them). */
static inline int digits8(const char *p, uint64_t *val)
{
    *val = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t x;
    memcpy(&x, p, 8);
    uint64_t a = x - 0x3030303030303030ull;
    uint64_t nd = (a | (a + 0x7676767676767676ull)) & 0x8080808080808080ull;
    int n = nd ? __builtin_ctzll(nd) >> 3 : 8;
    if (n == 0) return 0;
    uint64_t v = a << (8 * (8 - n));
    v = v * 10 + (v >> 8);
    v = ((v & 0x000000FF000000FFull) * (100 + (1000000ull << 32)) +
         ((v >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32))) >> 32;
    *val = (uint32_t)v;
    return n;
#else
    (void)p;
    return 0;
#endif
}

static const uint64_t pow10_u[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

/* lim: the NUL ending the text (bytes up to it may be read). */
static const char *parse_number(const char *p, const char *lim, float *out, int comma)
{
    const char *tok = p;
    int neg = *p == '-';
    p += *p == '-' || *p == '+';
    uint64_t m = 0;
    int exp10 = 0;
    unsigned lost = 0, d;
    const char *start = p;
    /* 8 digits at a time while m stays below 10^17 after them (so the loop
     * below, one digit at a time, would have kept every one of them too) */
    for (uint64_t v; m < 1000000000ull && lim - p >= 7;) {
        int n = digits8(p, &v);
        m = m * pow10_u[n] + v;
        p += n;
        if (n < 8) break;
    }
    while ((d = (unsigned)(*p - '0')) < 10u) {
        if (m < 100000000000000000ull) m = m * 10 + d;
        else {
            exp10++;
            lost |= d;
        }
        p++;
    }
    int any = p != start;
    if (*p == '.' || (comma && *p == ',')) {
        p++;
        const char *frac = p;
        for (uint64_t v; m < 1000000000ull && lim - p >= 7;) {
            int n = digits8(p, &v);
            m = m * pow10_u[n] + v;
            exp10 -= n;
            p += n;
            if (n < 8) break;
        }
        while ((d = (unsigned)(*p - '0')) < 10u) {
            if (m < 100000000000000000ull) {
                m = m * 10 + d;
                exp10--;
            } else {
                lost |= d;
            }
            p++;
        }
        any |= p != frac;
    }
    if (!any) return NULL;
    if ((*p | 0x20) == 'e') {
        p++;
        int eneg = *p == '-';
        if (*p == '-' || *p == '+') p++;
        if ((unsigned)(*p - '0') >= 10u) return NULL;
        int e = 0;
        while ((d = (unsigned)(*p - '0')) < 10u) {
            if (e < 100000) e = e * 10 + (int)d;
            p++;
        }
        exp10 += eneg ? -e : e;
    }
    if (m == 0) {
        *out = neg ? -0.0f : 0.0f;
        return p;
    }
    if (!lost) {
        if (m <= (1u << 24) && exp10 >= -10 && exp10 <= 10) {
            float f = exp10 < 0 ? (float)(int32_t)m / pow10_f[-exp10] : (float)(int32_t)m * pow10_f[exp10];
            *out = neg ? -f : f;
            return p;
        }
        if (m <= (1ull << 53) && exp10 >= -22 && exp10 <= 22) {
            double v = exp10 < 0 ? (double)(int64_t)m / pow10_tab[-exp10] : (double)(int64_t)m * pow10_tab[exp10];
            uint64_t bits;
            memcpy(&bits, &v, sizeof bits);
            /* the low 29 of the double's 52 fraction bits are what float drops */
            if (v >= 0x1p-126 && v <= FLT_MAX && (bits & 0x1FFFFFFFu) != 0x10000000u) {
                *out = neg ? -(float)v : (float)v;
                return p;
            }
        }
    }
    *out = slow_float(tok, p);
    return p;
}

/* Word at p (up to the next space), for messages. */
static void token_at(const char *p, const char *end, char *buf, size_t cap)
{
    size_t i = 0;
    while (p < end && !is_space((unsigned char)*p) && i + 1 < cap) buf[i++] = *p++;
    buf[i] = '\0';
}

/* Parses up to max floats of [p, end) into out (may be NULL to count only).
 * Returns the count, or -1 with an error set at el. */
/* Parses the floats of [p, end) (end points at a NUL) into out (up to max;
 * out may be NULL to count). Returns the count, or -1 with an error set. */
static long parse_floats(cl_doc *d, cl_el *el, const char *p, const char *end, float *out, size_t max)
{
    size_t n = 0;
    if (d->decimal_comma && !d->decimal_comma_warned && d->model) {
        d->decimal_comma_warned = 1;
        mr_model_warn(d->model, "%s: <unit> (line %ld) is written with a decimal comma (an exporter "
                      "under a comma locale): commas in numbers are read as decimal points",
                      d->name, d->decimal_comma);
    }
    for (;;) {
        while (is_space((unsigned char)*p)) p++;
        if (p >= end) break;
        float v;
        const char *q;
        /* What exporters write most, "[-]ddd" or "[-]ddd.dddddddd" (1 to 7
         * digits before the point, 1 to 8 after it, at most 2^24 in all,
         * then white space): the same float as parse_number (the integer,
         * or one exact division), without its general branches. Anything
         * else takes parse_number. */
        const char *s = p + (*p == '-');
        uint64_t iv, fv;
        int ni, nf;
        /* most have one digit before the point: no digits8 for it */
        if ((unsigned)(*s - '0') < 10u && s[1] == '.') {
            iv = (unsigned)(*s - '0');
            ni = 1;
        } else {
            ni = end - s >= 17 ? digits8(s, &iv) : 0;
        }
        if (end - s >= 17 && ni > 0 && ni < 8) {
            const char *t = s + ni;
            float f = 0;
            int took = 0;
            if (is_space((unsigned char)*t)) {
                f = (float)(int32_t)iv;
                took = 1;
            } else if (*t == '.' && (nf = digits8(t + 1, &fv)) > 0 && is_space((unsigned char)t[1 + nf]) &&
                       (iv = iv * pow10_u[nf] + fv) <= (1u << 24)) {
                f = (float)(int32_t)iv / pow10_f[nf];
                t += 1 + nf;
                took = 1;
            }
            if (took) {
                v = *p == '-' ? -f : f;
                p = t + 1;   /* t is at white space (tested): past it */
                if (n < max && out) out[n] = v;
                n++;
                continue;
            }
        }
        q = parse_number(p, end, &v, d->decimal_comma != 0);
        if (!q || (*q && !is_space((unsigned char)*q))) {
            char tok[40];
            token_at(p, end, tok, sizeof tok);
            const char *low = tok[0] == '-' || tok[0] == '+' ? tok + 1 : tok;
            if (!strncasecmp(low, "nan", 3) || !strncasecmp(low, "inf", 3) || strstr(tok, "#"))
                return cl_fail(d, el, "value %zu ('%s') is not a finite number", n + 1, tok), -1;
            if (strchr(tok, ',') && !d->decimal_comma)
                return cl_fail(d, el, "value %zu: expected a number, found '%s' (a decimal comma is "
                                      "only read as such when <unit meter> is written with one too)",
                               n + 1, tok), -1;
            return cl_fail(d, el, "value %zu: expected a number, found '%s'", n + 1, tok), -1;
        }
        if (!isfinite(v)) {
            char tok[40];
            token_at(p, end, tok, sizeof tok);
            return cl_fail(d, el, "value %zu ('%s') is out of float range", n + 1, tok), -1;
        }
        if (n < max && out) out[n] = v;
        n++;
        p = q;
    }
    return (long)n;
}


static size_t count_tokens(const char *p, const char *end)
{
    size_t n = 0;
    while (p < end) {
        while (p < end && is_space((unsigned char)*p)) p++;
        if (p >= end) break;
        n++;
        while (p < end && !is_space((unsigned char)*p)) p++;
    }
    return n;
}

mr_status cl_floats(cl_doc *d, cl_el *el, const cl_array **out)
{
    *out = NULL;
    if (el->cache) {
        const cl_array *a = el->cache;
        if (a->kind != CL_ARRAY_FLOAT) return cl_fail(d, el, "expected a <float_array>");
        *out = a;
        return MR_OK;
    }
    if (!cl_is(el, "float_array"))
        return cl_fail(d, el, "expected a <float_array>, found <%s>", (const char *)el->name);
    long declared;
    mr_status st = cl_int_attr(d, el, "count", -1, -1, &declared);
    if (st != MR_OK) return st;
    char *owned;
    size_t len;
    const char *text = cl_text(el, &len, &owned);
    if (!text) return cl_fail_status(d, MR_ERR_NO_MEMORY, el, "out of memory");
    /* Size from the declared count when it is plausible for the text (each
     * value needs at least 2 bytes with its separator), else count first. */
    size_t cap;
    if (declared >= 0 && (size_t)declared <= len / 2 + 1) cap = (size_t)declared;
    else cap = count_tokens(text, text + len);
    cl_array *a = cl_arena_alloc(d, sizeof *a);
    float *f = a && cap <= SIZE_MAX / sizeof *f ? cl_arena_alloc(d, cap * sizeof *f) : NULL;
    if (!a || !f) {
        free(owned);
        return cl_fail_status(d, MR_ERR_NO_MEMORY, el, "out of memory for %zu floats", cap);
    }
    long n = parse_floats(d, el, text, text + len, f, cap);
    free(owned);
    if (n < 0) return MR_ERR_BAD_FILE;  /* the arena keeps f until the document closes */
    /* Fewer values than declared is an error; more (seen in a Blender
     * export) keeps the declared count and warns: accessors are checked
     * against what is kept. */
    if (declared >= 0 && n < declared) {
        return cl_fail(d, el, "count=\"%ld\" but the array holds only %ld values", declared, n);
    }
    if (declared >= 0 && n > declared) {
        if (d->model)
            mr_model_warn(d->model, "%s: float_array '%s' (line %ld): count=\"%ld\" but it holds %ld values; extra values ignored",
                          d->name, cl_attr(el, "id") ? cl_attr(el, "id") : "?", cl_line(el), declared, n);
        n = declared;
    }
    memset(a, 0, sizeof *a);
    a->kind = CL_ARRAY_FLOAT;
    a->count = (size_t)n;
    a->f = f;
    el->cache = a;
    *out = a;
    return MR_OK;
}

mr_status cl_names(cl_doc *d, cl_el *el, const cl_array **out)
{
    *out = NULL;
    if (el->cache) {
        const cl_array *a = el->cache;
        if (a->kind != CL_ARRAY_NAME) return cl_fail(d, el, "expected a <Name_array> or <IDREF_array>");
        *out = a;
        return MR_OK;
    }
    if (!cl_is(el, "Name_array") && !cl_is(el, "IDREF_array") && !cl_is(el, "SIDREF_array"))
        return cl_fail(d, el, "expected a <Name_array> or <IDREF_array>, found <%s>", (const char *)el->name);
    long declared;
    mr_status st = cl_int_attr(d, el, "count", -1, -1, &declared);
    if (st != MR_OK) return st;
    char *owned;
    size_t len;
    const char *text = cl_text(el, &len, &owned);
    if (!text) return cl_fail_status(d, MR_ERR_NO_MEMORY, el, "out of memory");
    size_t n = count_tokens(text, text + len);
    /* As for float arrays: fewer names than declared is an error (which
     * joint is missing cannot be known); more (a Blender export repeats the
     * last joint name) keeps the first count names with a warning, and the
     * accessors and indices are checked against what is kept. */
    if (declared >= 0 && (size_t)declared > n) {
        free(owned);
        return cl_fail(d, el, "count=\"%ld\" but the array holds only %zu names", declared, n);
    }
    if (declared >= 0 && (size_t)declared < n) {
        if (d->model)
            mr_model_warn(d->model, "%s: %s '%s' (line %ld): count=\"%ld\" but it holds %zu names; "
                          "the first %ld kept, the rest ignored",
                          d->name, (const char *)el->name, cl_attr(el, "id") ? cl_attr(el, "id") : "?",
                          cl_line(el), declared, n, declared);
        n = (size_t)declared;
    }
    cl_array *a = cl_arena_alloc(d, sizeof *a);
    char *buf = cl_arena_alloc(d, len + 1);
    char **names = n <= SIZE_MAX / sizeof *names ? cl_arena_alloc(d, (n ? n : 1) * sizeof *names) : NULL;
    if (!a || !buf || !names) {
        free(owned);
        return cl_fail_status(d, MR_ERR_NO_MEMORY, el, "out of memory");
    }
    memcpy(buf, text, len);
    buf[len] = '\0';
    free(owned);
    size_t k = 0;
    char *p = buf, *end = buf + len;
    while (p < end && k < n) {
        while (p < end && is_space((unsigned char)*p)) *p++ = '\0';
        if (p >= end) break;
        names[k++] = p;
        while (p < end && !is_space((unsigned char)*p)) p++;
        if (p < end) *p++ = '\0';   /* ends the name even when it is the last kept */
    }
    memset(a, 0, sizeof *a);
    a->kind = CL_ARRAY_NAME;
    a->count = k;
    a->names = names;
    a->buf = buf;
    el->cache = a;
    *out = a;
    return MR_OK;
}

mr_status cl_fixed_floats(cl_doc *d, cl_el *el, float *out, int n)
{
    char *owned;
    size_t len;
    const char *text = cl_text(el, &len, &owned);
    if (!text) return cl_fail_status(d, MR_ERR_NO_MEMORY, el, "out of memory");
    long got = parse_floats(d, el, text, text + len, out, (size_t)n);
    free(owned);
    if (got < 0) return MR_ERR_BAD_FILE;
    if (got != n) return cl_fail(d, el, "expected %d numbers, found %ld", n, got);
    return MR_OK;
}

mr_status cl_some_floats(cl_doc *d, cl_el *el, float *out, int max, long *got)
{
    char *owned;
    size_t len;
    const char *text = cl_text(el, &len, &owned);
    if (!text) return cl_fail_status(d, MR_ERR_NO_MEMORY, el, "out of memory");
    *got = parse_floats(d, el, text, text + len, out, (size_t)max);
    free(owned);
    return *got < 0 ? MR_ERR_BAD_FILE : MR_OK;
}

mr_status cl_ints(cl_doc *d, cl_el *el, int min_value, int **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    char *owned;
    size_t len;
    const char *text = cl_text(el, &len, &owned);
    if (!text) return cl_fail_status(d, MR_ERR_NO_MEMORY, el, "out of memory");
    const char *p = text, *end = text + len;
    size_t cap = len / 2 + 1, n = 0;
    /* Every slot used is written: no zeroing. */
    int *v = cap <= MR_ALLOC_LIMIT / sizeof *v ? malloc(cap * sizeof *v) : NULL;
    if (!v) {
        free(owned);
        return cl_fail_status(d, MR_ERR_NO_MEMORY, el, "out of memory");
    }
    for (;;) {  /* the text ends in a NUL, which stops every loop */
        while (is_space((unsigned char)*p)) p++;
        if (p >= end) break;
        const char *start = p;
        int neg = 0;
        if (*p == '-' || *p == '+') {
            neg = *p == '-';
            p++;
        }
        int64_t x = 0;
        unsigned dg;
        uint64_t v8;
        int nd;
        /* 1 to 7 digits then white space (most indices): one step */
        if (p == start && end - p >= 8 && (nd = digits8(p, &v8)) > 0 && nd < 8 && is_space((unsigned char)p[nd]) &&
            (int64_t)v8 >= min_value) {
            v[n++] = (int)v8;  /* below 10^7 */
            p += nd + 1;       /* and the white space after it, tested above */
            continue;
        }
        while ((dg = (unsigned)(*p - '0')) < 10u) {
            if (x < (int64_t)1 << 40) x = x * 10 + dg;
            p++;
        }
        int any = p != start && !(p == start + 1 && (*start == '-' || *start == '+'));
        if (!any || (*p && !is_space((unsigned char)*p))) {
            char tok[40];
            token_at(start, end, tok, sizeof tok);
            free(v);
            free(owned);
            return cl_fail(d, el, "value %zu: expected an integer, found '%s'", n + 1, tok);
        }
        if (neg) x = -x;
        if (x < min_value || x > INT32_MAX) {
            char tok[40];
            token_at(start, end, tok, sizeof tok);
            free(v);
            free(owned);
            return cl_fail(d, el, "value %zu ('%s') is out of range", n + 1, tok);
        }
        v[n++] = (int)x;  /* n < cap: every value takes >= 2 bytes but the last */
    }
    free(owned);
    *out = v;
    *count = n;
    return MR_OK;
}

mr_status cl_int_attr(cl_doc *d, cl_el *el, const char *name, long dflt, long min, long *out)
{
    const char *s = cl_attr(el, name);
    *out = dflt;
    if (!s) return MR_OK;
    while (is_space((unsigned char)*s)) s++;
    char *end;
    long v = strtol(s, &end, 10);
    while (is_space((unsigned char)*end)) end++;
    if (end == s || *end || v < min || v > INT32_MAX)
        return cl_fail(d, el, "attribute %s=\"%s\" is not a valid count", name, cl_attr(el, name));
    *out = v;
    return MR_OK;
}

/* ---- sources ------------------------------------------------------------ */

mr_status cl_source_read(cl_doc *d, cl_el *src, int want_names, int min_stride, cl_source *out)
{
    memset(out, 0, sizeof *out);
    out->el = src;
    if (!cl_is(src, "source")) return cl_fail(d, src, "expected a <source>");
    cl_el *tc = cl_child(src, "technique_common");
    cl_el *acc = tc ? cl_child(tc, "accessor") : NULL;
    cl_el *arr = NULL;
    if (acc) {
        mr_status st = cl_ref(d, acc, "source", NULL, &arr);
        if (st != MR_OK) return st;
    } else {
        for (cl_el *c = cl_first_elem(src); c; c = cl_next_elem(c))
            if (strstr((const char *)c->name, "_array")) {
                arr = c;
                break;
            }
        if (!arr) return cl_fail(d, src, "source has neither an array nor an <accessor>");
    }
    const cl_array *a;
    mr_status st = want_names ? cl_names(d, arr, &a) : cl_floats(d, arr, &a);
    if (st != MR_OK) return st;
    long count, stride, offset;
    if (acc) {
        if ((st = cl_int_attr(d, acc, "count", -1, 0, &count)) != MR_OK) return st;
        if (count < 0) return cl_fail(d, acc, "missing attribute 'count'");
        if ((st = cl_int_attr(d, acc, "stride", 1, 1, &stride)) != MR_OK) return st;
        if ((st = cl_int_attr(d, acc, "offset", 0, 0, &offset)) != MR_OK) return st;
    } else {
        stride = min_stride > 0 ? min_stride : 1;
        count = (long)(a->count / (size_t)stride);
        offset = 0;
    }
    if (stride < min_stride)
        return cl_fail(d, acc ? acc : src, "stride %ld is too small: need %d values per element", stride,
                       min_stride);
    size_t need = (size_t)offset + (size_t)count * (size_t)stride;
    if (count > 0 && need > a->count)
        return cl_fail(d, acc ? acc : src,
                       "accessor reads %ld elements of stride %ld from offset %ld but the array holds %zu values",
                       count, stride, offset, a->count);
    out->count = (int)count;
    out->stride = (int)stride;
    /* An empty accessor reads nothing: its offset may lie anywhere (or the
     * array be empty and NULL), so it does not move the pointer. */
    if (want_names) out->names = count > 0 ? a->names + offset : a->names;
    else out->f = count > 0 ? a->f + offset : a->f;
    return MR_OK;
}

mr_status cl_input_source(cl_doc *d, cl_el *input, int want_names, int min_stride, cl_source *out)
{
    cl_el *src;
    mr_status st = cl_ref(d, input, "source", "source", &src);
    if (st != MR_OK) return st;
    return cl_source_read(d, src, want_names, min_stride, out);
}

/* ---- document ----------------------------------------------------------- */

typedef struct xml_capture {
    int have;
    int line;
    char msg[300];
} xml_capture;

static void capture_structured(void *ctx, xmlErrorPtr e)
{
    xml_capture *c = ctx;
    if (!e || e->level < XML_ERR_ERROR || c->have) return;
    c->have = 1;
    c->line = e->line;
    snprintf(c->msg, sizeof c->msg, "%s", e->message ? e->message : "malformed XML");
    size_t n = strlen(c->msg);
    while (n && (c->msg[n - 1] == '\n' || c->msg[n - 1] == ' ')) c->msg[--n] = '\0';
    /* libxml2 splits some messages over lines ("...encoding !\nBytes: ..."):
     * errors are one line. */
    for (char *p = c->msg; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
}

static void silent_generic(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

static int starts_with_ci(const char *p, const char *end, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(end - p) >= n && strncasecmp(p, word, n) == 0;
}

/* Recognises inputs that are plainly not COLLADA before libxml2 sees them,
 * for a message that says what the file is. */
static mr_status sniff(cl_doc *d, const char *buf, size_t len)
{
    const char *p = buf, *end = buf + len;
    if (len == 0) return cl_fail(d, NULL, "line 1: the file is empty");
    if (starts_with_ci(p, end, "version https://git-lfs"))
        return cl_fail(d, NULL, "line 1: this is a git-lfs pointer, not the model (run 'git lfs pull')");
    if (len >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
        p += 3;
    while (p < end && is_space((unsigned char)*p)) p++;
    if (starts_with_ci(p, end, "<!doctype html") || starts_with_ci(p, end, "<html"))
        return cl_fail(d, NULL, "line 1: this is an HTML page, not a COLLADA document (saved a web page as .dae?)");
    return MR_OK;
}

static mr_status read_asset(cl_doc *d)
{
    d->up = MR_UP_Y;
    d->meter = 1.0;
    cl_el *asset = cl_child(d->root, "asset");
    if (!asset) return MR_OK;
    cl_el *unit = cl_child(asset, "unit");
    if (unit) {
        const char *m = cl_attr(unit, "meter");
        if (m) {
            char *end;
            double v = strtod(m, &end);
            while (is_space((unsigned char)*end)) end++;
            /* "0,010000": an exporter printing under a comma locale (the FBX
             * COLLADA exporter). One comma, no point, and a positive number
             * once it is a point: the document's numbers are read that way. */
            const char *comma = strchr(m, ',');
            if (*end == ',' && comma && !strchr(comma + 1, ',') && !strchr(m, '.') && strlen(m) < 64) {
                char fixed[64];
                snprintf(fixed, sizeof fixed, "%s", m);
                fixed[comma - m] = '.';
                char *fend;
                double fv = strtod(fixed, &fend);
                while (is_space((unsigned char)*fend)) fend++;
                if (fend != fixed && !*fend && isfinite(fv) && fv > 0) {
                    v = fv;
                    end = (char *)m + strlen(m);
                    d->decimal_comma = cl_line(unit);
                }
            }
            if (end == m || *end || !isfinite(v) || v <= 0)
                return cl_fail(d, unit, "meter=\"%s\" is not a positive number", m);
            d->meter = v;
        }
    }
    cl_el *up = cl_child(asset, "up_axis");
    if (up) {
        char *owned;
        size_t len;
        const char *t = cl_text(up, &len, &owned);
        if (!t) return cl_fail_status(d, MR_ERR_NO_MEMORY, up, "out of memory");
        while (len && is_space((unsigned char)*t)) t++, len--;
        while (len && is_space((unsigned char)t[len - 1])) len--;
        mr_status st = MR_OK;
        if (len == 4 && !strncmp(t, "Y_UP", 4)) d->up = MR_UP_Y;
        else if (len == 4 && !strncmp(t, "Z_UP", 4)) d->up = MR_UP_Z;
        else if (len == 4 && !strncmp(t, "X_UP", 4)) d->up = MR_UP_X;
        else st = cl_fail(d, up, "up_axis '%.*s' is not X_UP, Y_UP or Z_UP", (int)(len > 40 ? 40 : len), t);
        free(owned);
        return st;
    }
    return MR_OK;
}

static mr_status check_version(cl_doc *d)
{
    const char *v = cl_attr(d->root, "version");
    const char *ns = d->root->ns ? d->root->ns : "";
    if (!v) {
        if (strstr(ns, "collada.org/2005/11")) {
            d->version_major = 1, d->version_minor = 4;
            return MR_OK;
        }
        if (strstr(ns, "collada.org/2008/03")) {
            d->version_major = 1, d->version_minor = 5;
            return MR_OK;
        }
        return cl_fail(d, d->root, "missing version attribute (marrow reads COLLADA 1.4 and 1.5)");
    }
    int maj = 0, min = 0;
    if (sscanf(v, "%d.%d", &maj, &min) != 2)
        return cl_fail(d, d->root, "version=\"%s\" is not a COLLADA version", v);
    if (maj != 1 || (min != 4 && min != 5))
        return cl_fail(d, d->root, "unsupported COLLADA version %s (marrow reads 1.4 and 1.5)", v);
    d->version_major = maj;
    d->version_minor = min;
    return MR_OK;
}

int cl_xml_options(void)
{
    /* Never XML_PARSE_NOENT (entity substitution), XML_PARSE_DTDLOAD,
     * XML_PARSE_DTDATTR, XML_PARSE_XINCLUDE or XML_PARSE_HUGE. */
    return XML_PARSE_NONET | XML_PARSE_NOBLANKS | XML_PARSE_COMPACT | XML_PARSE_BIG_LINES | XML_PARSE_NOCDATA |
           XML_PARSE_NOWARNING | XML_PARSE_NOERROR;
}

/* ---- building the tree from SAX2 events ---------------------------------- */

/* Parse state, reached through the parser context's _private. */
typedef struct tree_builder {
    cl_doc *d;
    xmlParserCtxtPtr ctxt;   /* the document's parser (not an entity check's) */
    cl_el *cur;              /* innermost open element */
    char *text;              /* character data of the open elements, outermost first */
    size_t text_len, text_cap;
    /* The innermost open element's text goes straight to the arena's free
     * end while it has no child element (every leaf: the number arrays),
     * so it is never copied again; tail_len bytes so far. Its first child
     * moves what it had to `text` (where a parent's pieces are joined). */
    int in_tail;
    size_t tail_len;
    int failed;              /* out of memory: parsing stopped */
} tree_builder;

/* The builder when ctx is the document's own parser; NULL while libxml2
 * parses an entity's content to check it (a context of its own), whose
 * events go to libxml2's tree builder as they did before. */
static tree_builder *builder(void *ctx)
{
    xmlParserCtxtPtr ctxt = ctx;
    tree_builder *b = ctxt ? ctxt->_private : NULL;
    return b && b->ctxt == ctxt ? b : NULL;
}

static int stack_append(tree_builder *b, const char *ch, size_t len);

static void build_fail(tree_builder *b)
{
    b->failed = 1;
    xmlStopParser(b->ctxt);
}

char *cl_arena_strndup(cl_doc *d, const char *s, size_t n)
{
    char *c = cl_arena_alloc(d, n + 1);
    if (c) {
        memcpy(c, s, n);
        c[n] = '\0';
    }
    return c;
}

/* An attribute value as libxml2's tree builder stores it: a value with a
 * reference in it comes already copied and NUL-terminated, '&' escaped as
 * "&#38;" and general entities kept as "&name;"; the tree builder turns it
 * into text and entity-reference nodes, and the value read from the tree
 * is the first text node (empty when the value starts with a reference).
 * The same function does it here, for these rare values only. */
static const char *attr_value(tree_builder *b, const xmlChar *v, const xmlChar *end)
{
    size_t n = (size_t)(end - v);
    if (*end != 0 || !memchr(v, '&', n)) return cl_arena_strndup(b->d, (const char *)v, n);
    xmlNodePtr list = xmlStringLenGetNodeList(b->ctxt->myDoc, v, (int)n);
    const char *out = "";
    if (list && list->type == XML_TEXT_NODE && list->content)
        out = cl_arena_strndup(b->d, (const char *)list->content, strlen((const char *)list->content));
    xmlFreeNodeList(list);
    return out;
}

static void sax_start(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri,
                      int nb_namespaces, const xmlChar **namespaces, int nb_attributes, int nb_defaulted,
                      const xmlChar **attributes)
{
    tree_builder *b = builder(ctx);
    if (!b) {
        xmlSAX2StartElementNs(ctx, localname, prefix, uri, nb_namespaces, namespaces, nb_attributes, nb_defaulted,
                              attributes);
        return;
    }
    if (b->failed) return;
    cl_doc *d = b->d;
    /* The parent gets a child: what text it had in the arena's free end
     * (before el overwrites it) joins its pieces in b->text. */
    if (b->in_tail) {
        if (b->tail_len && stack_append(b, (const char *)d->arena->data + d->arena->used, b->tail_len)) {
            build_fail(b);
            return;
        }
        b->in_tail = 0;
        b->tail_len = 0;
    }
    /* Attributes defaulted from the DTD count only when asked for (never). */
    if (nb_defaulted && !(b->ctxt->loadsubset & XML_COMPLETE_ATTRS)) nb_attributes -= nb_defaulted;
    cl_el *el = cl_arena_alloc(d, sizeof *el);
    cl_attr_kv *attrs = nb_attributes > 0 ? cl_arena_alloc(d, (size_t)nb_attributes * sizeof *attrs) : NULL;
    if (!el || (nb_attributes > 0 && !attrs)) {
        build_fail(b);
        return;
    }
    memset(el, 0, sizeof *el);
    el->name = (const char *)localname;  /* the parser's dictionary, kept alive by d->dict */
    el->ns = (const char *)uri;
    el->line = b->ctxt->input ? b->ctxt->input->line : 0;
    el->attrs = attrs;
    const char *id = NULL;
    for (int i = 0; i < nb_attributes; i++) {
        const xmlChar **at = attributes + 5 * i;
        attrs[el->attr_count].name = (const char *)at[0];
        const char *v = attr_value(b, at[3], at[4]);
        if (!v) {
            build_fail(b);
            return;
        }
        attrs[el->attr_count++].value = v;
        if (!id && strcmp((const char *)at[0], "id") == 0) id = v;
    }
    /* Ids as elements start: document order, the first of an id wins. */
    if (id && *id && cl_ids_insert(d, id, el) != MR_OK) {
        build_fail(b);
        return;
    }
    el->parent = b->cur;
    if (b->cur) {
        if (!b->cur->first) {
            b->cur->first = el;
        } else {
            /* cache holds the last child while the parent is open */
            cl_el *last = b->cur->cache;
            last->next = el;
        }
        b->cur->cache = el;  /* last child while the parent is open */
    } else {
        d->root = el;
    }
    /* While open, text_len holds where the element's text starts in b->text. */
    el->text_len = b->text_len;
    b->cur = el;
    b->in_tail = 1;
    b->tail_len = 0;
}

/* 16 bytes at a time where SSE2 is: the indentation between an element's
 * children is most of what it reads (2% of an astroBoy load one byte at a
 * time). */
int cl_all_space(const char *p, size_t n)
{
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i sp = _mm_set1_epi8(' '), lf = _mm_set1_epi8('\n'), tab = _mm_set1_epi8('\t'), cr = _mm_set1_epi8('\r');
    for (; i + 16 <= n; i += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(p + i));
        __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, sp), _mm_cmpeq_epi8(x, lf)),
                                  _mm_or_si128(_mm_cmpeq_epi8(x, tab), _mm_cmpeq_epi8(x, cr)));
        if (_mm_movemask_epi8(ws) != 0xffff) return 0;
    }
#endif
    for (; i < n; i++)
        if (!is_space((unsigned char)p[i])) return 0;
    return 1;
}

static void sax_end(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri)
{
    tree_builder *b = builder(ctx);
    if (!b) {
        xmlSAX2EndElementNs(ctx, localname, prefix, uri);
        return;
    }
    if (b->failed || !b->cur) return;
    cl_el *el = b->cur;
    el->cache = NULL;
    if (b->in_tail) {  /* no child: the text is in place, only its NUL is missing */
        size_t n = b->tail_len;
        char *t = n ? arena_tail(b->d, n, 1) : NULL;
        if (n && !t) {
            build_fail(b);
            return;
        }
        if (t) {
            t[n] = '\0';
            arena_commit(b->d, n + 1);
        }
        el->text = t ? t : "";
        el->text_len = n;
        b->in_tail = 0;
        b->tail_len = 0;
        b->cur = el->parent;
        return;
    }
    size_t start = el->text_len, n = b->text_len - start;
    /* b->text stays NULL until the first character data arrives. */
    const char *t = n ? b->text + start : "";
    /* Indentation between child elements is not text (libxml2 dropped it
     * as ignorable blanks); a leaf keeps what it holds. */
    if (n == 0 || (el->first && cl_all_space(t, n))) {
        el->text = "";
        el->text_len = 0;
    } else {
        char *copy = cl_arena_strndup(b->d, t, n);
        if (!copy) {
            build_fail(b);
            return;
        }
        el->text = copy;
        el->text_len = n;
    }
    b->text_len = start;
    b->cur = el->parent;
}

/* Appends to b->text (the open parents' pieces). */
static int stack_append(tree_builder *b, const char *ch, size_t len)
{
    if (b->text_cap - b->text_len < len + 1) {
        size_t cap = b->text_cap ? b->text_cap : 4096;
        while (cap - b->text_len < len + 1) cap *= 2;
        char *grown = realloc(b->text, cap);
        if (!grown) return -1;
        b->text = grown;
        b->text_cap = cap;
    }
    memcpy(b->text + b->text_len, ch, len);
    b->text_len += len;
    return 0;
}

static void sax_chars(void *ctx, const xmlChar *ch, int len)
{
    tree_builder *b = builder(ctx);
    if (!b) {
        xmlSAX2Characters(ctx, ch, len);
        return;
    }
    if (b->failed || !b->cur || len <= 0) return;
    if (b->in_tail) {
        char *t = arena_tail(b->d, b->tail_len, (size_t)len + 1);
        if (!t) {
            build_fail(b);
            return;
        }
        memcpy(t + b->tail_len, ch, (size_t)len);
        b->tail_len += (size_t)len;
        return;
    }
    if (stack_append(b, (const char *)ch, (size_t)len)) build_fail(b);
}

static void sax_blanks(void *ctx, const xmlChar *ch, int len)
{
    if (builder(ctx)) sax_chars(ctx, ch, len);
    else xmlSAX2IgnorableWhitespace(ctx, ch, len);
}

/* Entity references, comments and processing instructions are not part of
 * the tree. */
static void sax_reference(void *ctx, const xmlChar *name)
{
    if (!builder(ctx)) xmlSAX2Reference(ctx, name);
}

static void sax_comment(void *ctx, const xmlChar *value)
{
    if (!builder(ctx)) xmlSAX2Comment(ctx, value);
}

static void sax_pi(void *ctx, const xmlChar *target, const xmlChar *data)
{
    if (!builder(ctx)) xmlSAX2ProcessingInstruction(ctx, target, data);
}

/* The input, handed to libxml2 a piece at a time: it then keeps a small
 * window of the document instead of a copy of all of it (the copy of a
 * large file was a fresh allocation, page faults included, on every load). */
typedef struct mem_reader {
    const char *p;
    size_t left;
} mem_reader;

static int mem_read(void *ctx, char *out, int len)
{
    mem_reader *r = ctx;
    size_t n = len < 0 ? 0 : (size_t)len;
    if (n > r->left) n = r->left;
    memcpy(out, r->p, n);
    r->p += n;
    r->left -= n;
    return (int)n;
}

/* Runs libxml2's parser over buf, building d's tree. */
static mr_status parse_tree(cl_doc *d, const char *buf, size_t len, xml_capture *cap)
{
    mem_reader in = {buf, len};
    xmlParserCtxtPtr ctxt = xmlCreateIOParserCtxt(NULL, NULL, mem_read, NULL, &in, XML_CHAR_ENCODING_NONE);
    if (!ctxt) return cl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory starting the XML parser");
    xmlCtxtUseOptions(ctxt, cl_xml_options());
    xmlSAXHandler *sax = ctxt->sax;
    sax->startElementNs = sax_start;
    sax->endElementNs = sax_end;
    sax->characters = sax_chars;
    sax->ignorableWhitespace = sax_blanks;
    sax->cdataBlock = NULL;  /* CDATA arrives as characters (XML_PARSE_NOCDATA) */
    sax->reference = sax_reference;
    sax->comment = sax_comment;
    sax->processingInstruction = sax_pi;
    tree_builder b = {.d = d, .ctxt = ctxt};
    ctxt->_private = &b;
    d->dict = ctxt->dict;
    xmlDictReference(ctxt->dict);
    xmlParseDocument(ctxt);
    int well_formed = ctxt->wellFormed;
    free(b.text);
    if (ctxt->myDoc) xmlFreeDoc(ctxt->myDoc);  /* the DTD and its entities only */
    ctxt->myDoc = NULL;
    xmlFreeParserCtxt(ctxt);
    if (b.failed) return cl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory for the document tree");
    if (!well_formed || b.cur) {
        if (cap->have) return cl_fail(d, NULL, "line %d: not well-formed XML: %s", cap->line, cap->msg);
        return cl_fail(d, NULL, "not well-formed XML");
    }
    return MR_OK;
}

/* Drops a tree the scanner began (it declined the document). */
static void drop_tree(cl_doc *d)
{
    arena_free(d);
    d->root = NULL;
    free(d->ids);
    d->ids = NULL;
    d->ids_cap = d->ids_count = 0;
}

mr_status cl_doc_open(cl_doc *d, const char *name, const char *buf, size_t len, mr_error *err)
{
    return cl_doc_open_with(d, name, buf, len, err, CL_XML_AUTO);
}

mr_status cl_doc_open_with(cl_doc *d, const char *name, const char *buf, size_t len, mr_error *err,
                           cl_xml_parser parser)
{
    memset(d, 0, sizeof *d);
    d->name = name;
    d->err = err;
    d->dir = mr_path_dirname(name);
    if (!d->dir) return mr_error_set(err, MR_ERR_NO_MEMORY, "collada: %s: out of memory", name);
    mr_status st = sniff(d, buf, len);
    if (st != MR_OK) {
        cl_doc_close(d);
        return st;
    }
    if (len > (size_t)INT32_MAX) {
        st = cl_fail_status(d, MR_ERR_LIMIT, NULL, "file too large (%zu bytes)", len);
        cl_doc_close(d);
        return st;
    }
    d->arena_first = len < 4096 ? 4096 : len > ((size_t)1 << 20) ? (size_t)1 << 20 : len;
    /* About one id per 800 bytes in real files (astroBoy, ThinMatrix): a
     * table at most half full, so it rarely grows. */
    for (d->ids_first = 256; d->ids_first < len / 400 && d->ids_first < ((size_t)1 << 14);) d->ids_first *= 2;

    cl_scan_result scan = parser == CL_XML_LIBXML2 ? CL_SCAN_DECLINED : cl_scan_tree(d, buf, len);
    if (scan == CL_SCAN_NO_MEMORY) {
        st = cl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory for the document tree");
    } else if (scan == CL_SCAN_DECLINED && parser == CL_XML_SCANNER) {
        st = cl_fail(d, NULL, "declined by the plain-XML parser");
    } else if (scan == CL_SCAN_DECLINED) {
        drop_tree(d);
        xml_capture cap = {0};
        xmlStructuredErrorFunc old_serr = xmlStructuredError;
        void *old_sctx = xmlStructuredErrorContext;
        xmlGenericErrorFunc old_gerr = xmlGenericError;
        void *old_gctx = xmlGenericErrorContext;
        xmlSetStructuredErrorFunc(&cap, capture_structured);
        xmlSetGenericErrorFunc(NULL, silent_generic);
        st = parse_tree(d, buf, len, &cap);
        xmlSetStructuredErrorFunc(old_sctx, old_serr);
        xmlSetGenericErrorFunc(old_gctx, old_gerr);
    }

    if (st == MR_OK) {
        if (!d->root) st = cl_fail(d, NULL, "the document has no root element");
        else if (!cl_is(d->root, "COLLADA")) {
            if (!strcasecmp(d->root->name, "html"))
                st = cl_fail(d, d->root, "this is an HTML page, not a COLLADA document");
            else
                st = cl_fail(d, d->root, "root element is <%s>, expected <COLLADA>", d->root->name);
        }
    }
    if (st == MR_OK) st = check_version(d);
    if (st == MR_OK) st = read_asset(d);
    if (st != MR_OK) cl_doc_close(d);
    return st;
}

void cl_doc_close(cl_doc *d)
{
    arena_free(d);
    d->root = NULL;
    if (d->dict) xmlDictFree(d->dict);
    d->dict = NULL;
    free(d->ids);
    d->ids = NULL;
    d->ids_cap = d->ids_count = 0;
    free(d->dir);
    d->dir = NULL;
    free(d->morph_meshes);
    d->morph_meshes = NULL;
    d->morph_mesh_count = 0;
    d->morph_mesh_cap = 0;
}
