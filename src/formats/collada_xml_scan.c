/* collada_xml_scan.c — the COLLADA reader's own parse of plain XML: the
 * cl_el tree of a well-formed UTF-8 document built straight from its bytes,
 * the tree libxml2's events build in collada_xml.c, in 40-45% of libxml2's
 * time (astroBoy 0.88 -> 0.38 ms; libxml2's parse was 23-28% of a .dae
 * load).
 *
 * "Plain" is what exporters write: UTF-8 with or without a BOM and an
 * <?xml version="1.0" encoding="utf-8"?> declaration, elements and
 * attributes with ASCII names, namespaces declared with xmlns, the five
 * predefined entities and character references, comments, LF or CRLF line
 * ends. Anything else — another encoding, a DOCTYPE (so any other entity),
 * CDATA, processing instructions, a lone CR, non-ASCII names, an unbound
 * prefix, two attributes of one local name, nesting past 200, and every
 * well-formedness error — is declined: cl_doc_open then runs libxml2 over
 * the whole document, so the tree, the refusals and their messages are
 * libxml2's exactly as before. The rule the tests and fuzz_collada check:
 * a document this parser builds, libxml2 builds the same tree from (names,
 * namespaces, lines, attributes, text).
 *
 * Text is found sixteen bytes at a time (SSE2; byte by byte elsewhere):
 * the scan stops only at bytes that need a look ('<', '&', ']', CR,
 * control bytes and non-ASCII) and counts line feeds as it goes, so the
 * number arrays that make up most of a file pass at memory speed. A leaf's
 * text (one piece, nothing to decode) is copied once, into the arena. */
#include "formats/collada_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum {
    MAX_DEPTH = 200,        /* libxml2 refuses past 256 (no XML_PARSE_HUGE): deeper is libxml2's to judge */
    MAX_NAME = 1000,        /* libxml2's limit is 50,000 */
    MAX_ATTRS = 64,
    MAX_NS = 64,            /* namespace declarations in scope */
    MAX_VALUE = 1 << 20,    /* an attribute value; libxml2's limit is 10,000,000 */
    MAX_COMMENT = 1 << 20,
};

typedef enum { OK = 0, DECLINE = 1, NO_MEMORY = 2 } outcome;

typedef struct ns_decl {
    const char *prefix;     /* NULL: the default namespace */
    size_t prefix_len;
    const char *uri;        /* in the arena */
} ns_decl;

/* An open element. */
typedef struct frame {
    cl_el *el;
    cl_el *last;            /* its last child so far */
    const char *qname;      /* the start tag's name, which the end tag repeats */
    size_t qname_len;
    int ns_mark;            /* ns_count before its declarations */
    /* Its text: nothing, one piece still in the input (raw), or pieces
     * joined in the scanner's scratch buffer from text_start on. */
    const char *raw;
    size_t raw_len;
    int in_scratch;
    size_t text_start;
} frame;

typedef struct scanner {
    cl_doc *d;
    const char *p, *end;
    int line;               /* counted as libxml2 counts: LF and CRLF */
    int depth;
    int ns_count;
    char *text;             /* scratch: the open elements' joined pieces */
    size_t text_len, text_cap;
    frame stack[MAX_DEPTH];
    ns_decl ns[MAX_NS];
} scanner;

/* ---- bytes ------------------------------------------------------------- */

static inline int name_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline int name_char(unsigned char c)
{
    return name_start(c) || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == ':';
}

/* Length of the UTF-8 sequence at p when it encodes an XML Char (2 to 4
 * bytes; no overlong forms, surrogates, U+FFFE or U+FFFF), else 0. */
static int utf8_char(const char *s, const char *end)
{
    const unsigned char *p = (const unsigned char *)s;
    ptrdiff_t left = end - s;
    unsigned c = p[0];
    if (c >= 0xC2 && c <= 0xDF) return left >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (left < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
        unsigned cp = (c & 0x0Fu) << 12 | (p[1] & 0x3Fu) << 6 | (p[2] & 0x3Fu);
        if (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF) return 0;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (left < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) return 0;
        unsigned cp = (c & 0x07u) << 18 | (p[1] & 0x3Fu) << 12 | (p[2] & 0x3Fu) << 6 | (p[3] & 0x3Fu);
        return cp >= 0x10000 && cp <= 0x10FFFF ? 4 : 0;
    }
    return 0;
}

static int xml_char(unsigned long c)
{
    return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
           (c >= 0x10000 && c <= 0x10FFFF);
}

static int utf8_put(unsigned long c, char *out)
{
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xC0 | (c >> 6));
        out[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | (c >> 12));
        out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (c >> 18));
    out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* The reference at p ('&'): a predefined entity or a character reference
 * to an XML Char, its UTF-8 written to out (at most 4 bytes, never more
 * than the reference's own length) and *next set after its ';'. Returns
 * the bytes written, or 0 for anything else (left to libxml2). */
static int decode_ref(const char *p, const char *end, char *out, const char **next)
{
    const char *q = p + 1;
    if (q < end && *q == '#') {
        q++;
        int hex = q < end && *q == 'x';
        if (hex) q++;
        unsigned long v = 0;
        int digits = 0;
        for (; q < end && *q != ';'; q++, digits++) {
            unsigned char c = (unsigned char)*q;
            unsigned d;
            if (c >= '0' && c <= '9') d = c - '0';
            else if (hex && (c | 0x20) >= 'a' && (c | 0x20) <= 'f') d = (c | 0x20) - 'a' + 10;
            else return 0;
            if (digits >= 8) return 0;
            v = v * (hex ? 16 : 10) + d;
        }
        if (q >= end || !digits || !xml_char(v)) return 0;
        *next = q + 1;
        return utf8_put(v, out);
    }
    static const struct {
        const char *name;
        size_t len;
        char c;
    } predefined[] = {{"lt;", 3, '<'}, {"gt;", 3, '>'}, {"amp;", 4, '&'}, {"apos;", 5, '\''}, {"quot;", 5, '"'}};
    for (size_t i = 0; i < sizeof predefined / sizeof predefined[0]; i++)
        if ((size_t)(end - q) >= predefined[i].len && memcmp(q, predefined[i].name, predefined[i].len) == 0) {
            out[0] = predefined[i].c;
            *next = q + predefined[i].len;
            return 1;
        }
    return 0;
}

/* Bytes that stop the text scan: '<', '&', ']', and every byte below 0x20
 * or above 0x7F except tab and line feed. */
static int text_special(unsigned char c)
{
    return c == '<' || c == '&' || c == ']' || c >= 0x80 || (c < 0x20 && c != '\t' && c != '\n');
}

const char *cl_scan_text_portable(const char *p, const char *end, int *lines)
{
    int n = 0;
    for (; p < end; p++) {
        unsigned char c = (unsigned char)*p;
        if (text_special(c)) break;
        n += c == '\n';
    }
    *lines += n;
    return p;
}

static int bit_count(unsigned m)
{
    int n = 0;
    for (; m; m &= m - 1) n++;
    return n;
}

/* The first byte at or after p that stops the text scan (or end); *lines
 * gets the line feeds before it. Each lane counts the line feeds it sees
 * (a byte each, summed every 255 blocks): no popcount in the loop, which
 * x86-64's baseline lacks. */
const char *cl_scan_text(const char *p, const char *end, int *lines)
{
#if defined(__SSE2__) && defined(__x86_64__)
    const __m128i lt = _mm_set1_epi8('<'), amp = _mm_set1_epi8('&'), rb = _mm_set1_epi8(']');
    const __m128i lf = _mm_set1_epi8('\n'), tab = _mm_set1_epi8('\t'), space = _mm_set1_epi8(0x20);
    const __m128i zero = _mm_setzero_si128();
    __m128i counts = zero;
    int blocks = 0;
    long n = 0;
    const char *stop_at = NULL;
    while (end - p >= 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i is_lf = _mm_cmpeq_epi8(x, lf);
        /* signed: bytes 0x00-0x1F and 0x80-0xFF are below 0x20 */
        __m128i low = _mm_cmplt_epi8(x, space);
        __m128i ctrl = _mm_andnot_si128(_mm_or_si128(is_lf, _mm_cmpeq_epi8(x, tab)), low);
        __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, lt), _mm_cmpeq_epi8(x, amp)),
                                    _mm_or_si128(_mm_cmpeq_epi8(x, rb), ctrl));
        unsigned s = (unsigned)_mm_movemask_epi8(stop);
        if (s) {
            unsigned at = (unsigned)__builtin_ctz(s);
            n += bit_count((unsigned)_mm_movemask_epi8(is_lf) & ((1u << at) - 1));
            stop_at = p + at;
            break;
        }
        counts = _mm_sub_epi8(counts, is_lf);
        p += 16;
        if (++blocks == 255) {
            __m128i sum = _mm_sad_epu8(counts, zero);
            n += _mm_cvtsi128_si64(sum) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(sum, sum));
            counts = zero;
            blocks = 0;
        }
    }
    __m128i sum = _mm_sad_epu8(counts, zero);
    n += _mm_cvtsi128_si64(sum) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(sum, sum));
    *lines += (int)n;
    if (stop_at) return stop_at;
#endif
    return cl_scan_text_portable(p, end, lines);
}

/* ---- scratch text and the tree ------------------------------------------ */

static outcome scratch_append(scanner *s, const char *t, size_t n)
{
    if (s->text_cap - s->text_len < n) {
        size_t cap = s->text_cap ? s->text_cap : 4096;
        while (cap - s->text_len < n) {
            if (cap > SIZE_MAX / 2) return NO_MEMORY;
            cap *= 2;
        }
        char *grown = realloc(s->text, cap);
        if (!grown) return NO_MEMORY;
        s->text = grown;
        s->text_cap = cap;
    }
    memcpy(s->text + s->text_len, t, n);
    s->text_len += n;
    return OK;
}

/* Adds a piece of f's text. stable: t points into the input, where it
 * stays (an element's only piece is then copied once, at its end). */
static outcome add_text(scanner *s, frame *f, const char *t, size_t n, int stable)
{
    if (!n) return OK;
    if (!f->in_scratch) {
        if (!f->raw && stable) {
            f->raw = t;
            f->raw_len = n;
            return OK;
        }
        /* f is the innermost open element: its scratch starts at the end */
        f->in_scratch = 1;
        f->text_start = s->text_len;
        if (f->raw && scratch_append(s, f->raw, f->raw_len)) return NO_MEMORY;
        f->raw = NULL;
    }
    return scratch_append(s, t, n);
}


/* The element's text as the libxml2 path leaves it: its pieces joined;
 * none when it has children and they are all white space. */
static outcome finish_text(scanner *s, frame *f)
{
    cl_el *el = f->el;
    const char *t = NULL;
    size_t n = 0;
    if (f->in_scratch) {
        t = s->text + f->text_start;
        n = s->text_len - f->text_start;
        s->text_len = f->text_start;
    } else if (f->raw) {
        t = f->raw;
        n = f->raw_len;
    }
    el->text = "";
    el->text_len = 0;
    if (n == 0 || (el->first && cl_all_space(t, n))) return OK;
    char *copy = cl_arena_strndup(s->d, t, n);
    if (!copy) return NO_MEMORY;
    el->text = copy;
    el->text_len = n;
    return OK;
}

/* ---- markup ------------------------------------------------------------- */

/* Skips white space in markup: 1 when some was there, 0 when none,
 * -1 at a lone CR (declined: libxml2 counts its lines its own way). */
static inline int skip_space(scanner *s)
{
    const char *p = s->p, *start = p;
    if (p < s->end && (unsigned char)*p > ' ') return 0;
    for (; p < s->end; p++) {
        char c = *p;
        if (c == ' ' || c == '\t') continue;
        if (c == '\n') {
            s->line++;
            continue;
        }
        if (c == '\r' && p + 1 < s->end && p[1] == '\n') continue;
        if (c == '\r') return -1;
        break;
    }
    s->p = p;
    return p > start;
}

static int starts(const scanner *s, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(s->end - s->p) >= n && memcmp(s->p, word, n) == 0;
}

/* A name at s->p (ASCII, at most one colon, not first or last); *colon
 * gets the prefix's length (0: none). */
static outcome qname(scanner *s, size_t *len, size_t *colon)
{
    const char *p = s->p;
    if (p >= s->end || !name_start((unsigned char)*p)) return DECLINE;
    *colon = 0;
    for (p++; p < s->end && name_char((unsigned char)*p); p++)
        if (*p == ':') {
            if (*colon) return DECLINE;
            *colon = (size_t)(p - s->p);
        }
    *len = (size_t)(p - s->p);
    if (*len > MAX_NAME || (*colon && *colon + 1 == *len)) return DECLINE;
    if (*colon && !name_start((unsigned char)s->p[*colon + 1])) return DECLINE;
    s->p = p;
    return OK;
}

/* "<!--" at s->p: skipped up to its "-->". */
static outcome comment(scanner *s)
{
    const char *p = s->p + 4, *end = s->end;
    if (end - p > MAX_COMMENT) end = p + MAX_COMMENT;
    while (p < end) {
        unsigned char c = (unsigned char)*p;
        if (c == '-') {
            if (p + 1 < end && p[1] == '-') {
                if (p + 2 < end && p[2] == '>') {
                    s->p = p + 3;
                    return OK;
                }
                return DECLINE;
            }
            p++;
        } else if (c >= 0x20 && c < 0x80) {
            p++;
        } else if (c == '\n') {
            s->line++;
            p++;
        } else if (c == '\t') {
            p++;
        } else if (c == '\r' && p + 1 < end && p[1] == '\n') {
            p++;
        } else if (c >= 0x80) {
            int n = utf8_char(p, end);
            if (!n) return DECLINE;
            p += n;
        } else {
            return DECLINE;
        }
    }
    return DECLINE;
}

/* Comments and white space (before and after the root). */
static outcome misc(scanner *s)
{
    for (;;) {
        if (skip_space(s) < 0) return DECLINE;
        if (!starts(s, "<!--")) return OK;
        if (comment(s)) return DECLINE;
    }
}

/* The end of the run of bytes from p that an attribute value keeps as they
 * are (ASCII from 0x20, but '&' and '<'): close or the first other byte.
 * Sixteen bytes at a time while the input (up to buf_end, past close)
 * has them. */
static const char *plain_run(const char *p, const char *close, const char *buf_end)
{
#if defined(__SSE2__)
    const __m128i amp = _mm_set1_epi8('&'), lt = _mm_set1_epi8('<'), space = _mm_set1_epi8(0x20);
    while (p < close && buf_end - p >= 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i stop = _mm_or_si128(_mm_cmplt_epi8(x, space),
                                    _mm_or_si128(_mm_cmpeq_epi8(x, amp), _mm_cmpeq_epi8(x, lt)));
        unsigned m = (unsigned)_mm_movemask_epi8(stop);
        if (m) {
            const char *q = p + __builtin_ctz(m);
            return q < close ? q : close;
        }
        p += 16;
    }
    if (p >= close) return close;
#else
    (void)buf_end;
#endif
    while (p < close && (unsigned char)*p >= 0x20 && (unsigned char)*p < 0x80 && *p != '&' && *p != '<') p++;
    return p;
}

/* A quoted attribute value at s->p, decoded into the arena: references
 * replaced, tab and line feed made spaces (the XML rule for attributes
 * without a DTD). */
static outcome att_value(scanner *s, const char **out)
{
    if (s->p >= s->end || (*s->p != '"' && *s->p != '\'')) return DECLINE;
    char quote = *s->p;
    const char *v = s->p + 1;
    const char *close = memchr(v, quote, (size_t)(s->end - v));
    if (!close || close - v > MAX_VALUE) return DECLINE;
    char *o = cl_arena_alloc(s->d, (size_t)(close - v) + 1);
    if (!o) return NO_MEMORY;
    *out = o;
    for (const char *p = v; p < close;) {
        const char *q = plain_run(p, close, s->end);
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        p = q;
        if (p == close) break;
        unsigned char c = (unsigned char)*p;
        if (c == '\t' || c == '\n') {
            *o++ = ' ';
            s->line += c == '\n';
            p++;
        } else if (c == '&') {
            int n = decode_ref(p, close, o, &p);
            if (!n) return DECLINE;
            o += n;
        } else if (c >= 0x80) {
            int n = utf8_char(p, close);
            if (!n) return DECLINE;
            memcpy(o, p, (size_t)n);
            o += n;
            p += n;
        } else {
            return DECLINE; /* '<', CR, control bytes */
        }
    }
    *o = '\0';
    s->p = close + 1;
    return OK;
}

static const char *ns_lookup(const scanner *s, const char *prefix, size_t len)
{
    for (int i = s->ns_count - 1; i >= 0; i--) {
        const ns_decl *n = &s->ns[i];
        if (!prefix ? !n->prefix : n->prefix && n->prefix_len == len && memcmp(n->prefix, prefix, len) == 0)
            return n->uri;
    }
    return NULL;
}

typedef struct pending_attr {
    const char *qname;
    size_t len, colon;
    const char *value;
} pending_attr;

/* A start tag, s->p at its name: the element joins the tree and, unless
 * it is empty, opens. */
static outcome start_tag(scanner *s)
{
    cl_doc *d = s->d;
    if (s->depth >= MAX_DEPTH) return DECLINE;
    const char *qn = s->p;
    size_t qlen, qcolon;
    outcome r = qname(s, &qlen, &qcolon);
    if (r) return r;
    pending_attr at[MAX_ATTRS];
    int na = 0, ns_mark = s->ns_count, empty;
    for (;;) {
        int space = skip_space(s);
        if (space < 0 || s->p >= s->end) return DECLINE;
        if (*s->p == '>') {
            empty = 0;
            break;
        }
        if (*s->p == '/') {
            if (s->p + 1 >= s->end || s->p[1] != '>') return DECLINE;
            empty = 1;
            break;
        }
        if (!space) return DECLINE;
        const char *an = s->p;
        size_t alen, acolon;
        if ((r = qname(s, &alen, &acolon))) return r;
        if (skip_space(s) < 0 || s->p >= s->end || *s->p != '=') return DECLINE;
        s->p++;
        if (skip_space(s) < 0) return DECLINE;
        const char *value;
        if ((r = att_value(s, &value))) return r;
        int is_default = alen == 5 && memcmp(an, "xmlns", 5) == 0;
        int is_prefixed = acolon == 5 && memcmp(an, "xmlns", 5) == 0;
        if (is_default || is_prefixed) {
            const char *prefix = is_prefixed ? an + 6 : NULL;
            size_t plen = is_prefixed ? alen - 6 : 0;
            /* Empty or reserved bindings, and a prefix bound twice in one
             * tag, are libxml2's to report. */
            if (!*value || s->ns_count >= MAX_NS) return DECLINE;
            if (prefix && ((plen == 3 && !memcmp(prefix, "xml", 3)) || (plen == 5 && !memcmp(prefix, "xmlns", 5))))
                return DECLINE;
            for (int i = ns_mark; i < s->ns_count; i++)
                if (!prefix ? !s->ns[i].prefix
                            : s->ns[i].prefix && s->ns[i].prefix_len == plen && !memcmp(s->ns[i].prefix, prefix, plen))
                    return DECLINE;
            s->ns[s->ns_count++] = (ns_decl){prefix, plen, value};
            continue;
        }
        if (na >= MAX_ATTRS) return DECLINE;
        at[na++] = (pending_attr){an, alen, acolon, value};
    }
    int line = s->line; /* libxml2 reports the line where the start tag ends */
    s->p += empty ? 2 : 1;

    const char *uri = qcolon ? ns_lookup(s, qn, qcolon) : ns_lookup(s, NULL, 0);
    if (qcolon && !uri) return DECLINE;
    if (qcolon == 5 && !memcmp(qn, "xmlns", 5)) return DECLINE;
    cl_el *el = cl_arena_alloc(d, sizeof *el);
    cl_attr_kv *attrs = na ? cl_arena_alloc(d, (size_t)na * sizeof *attrs) : NULL;
    const char *local = qcolon ? qn + qcolon + 1 : qn;
    const char *name = cl_arena_strndup(d, local, qlen - (size_t)(local - qn));
    if (!el || (na && !attrs) || !name) return NO_MEMORY;
    memset(el, 0, sizeof *el);
    el->name = name;
    el->ns = uri;
    el->line = line;
    el->attrs = attrs;
    el->attr_count = na;
    const char *id = NULL;
    for (int i = 0; i < na; i++) {
        const char *alocal = at[i].colon ? at[i].qname + at[i].colon + 1 : at[i].qname;
        size_t llen = at[i].len - (size_t)(alocal - at[i].qname);
        if (at[i].colon && !ns_lookup(s, at[i].qname, at[i].colon)) return DECLINE;
        /* Two attributes of one local name: libxml2 may see one name (two
         * prefixes, one namespace) or two; either way it decides. */
        for (int j = 0; j < i; j++) {
            const char *blocal = at[j].colon ? at[j].qname + at[j].colon + 1 : at[j].qname;
            if (at[j].len - (size_t)(blocal - at[j].qname) == llen && !memcmp(blocal, alocal, llen)) return DECLINE;
        }
        attrs[i].name = cl_arena_strndup(d, alocal, llen);
        if (!attrs[i].name) return NO_MEMORY;
        attrs[i].value = at[i].value;
        if (!id && llen == 2 && !memcmp(alocal, "id", 2)) id = at[i].value;
    }
    if (id && *id && cl_ids_insert(d, id, el) != MR_OK) return NO_MEMORY;

    if (s->depth > 0) {
        frame *parent = &s->stack[s->depth - 1];
        el->parent = parent->el;
        if (parent->last) parent->last->next = el;
        else parent->el->first = el;
        parent->last = el;
    } else {
        d->root = el;
    }
    frame *f = &s->stack[s->depth];
    *f = (frame){.el = el, .qname = qn, .qname_len = qlen, .ns_mark = ns_mark};
    if (empty) {
        s->ns_count = ns_mark;
        return finish_text(s, f);
    }
    s->depth++;
    return OK;
}

/* An end tag, s->p after "</": it must close the innermost element. */
static outcome end_tag(scanner *s)
{
    frame *f = &s->stack[s->depth - 1];
    if ((size_t)(s->end - s->p) < f->qname_len || memcmp(s->p, f->qname, f->qname_len) != 0) return DECLINE;
    s->p += f->qname_len;
    if (s->p < s->end && name_char((unsigned char)*s->p)) return DECLINE;
    if (skip_space(s) < 0 || s->p >= s->end || *s->p != '>') return DECLINE;
    s->p++;
    outcome r = finish_text(s, f);
    s->ns_count = f->ns_mark;
    s->depth--;
    return r;
}

/* Character data up to the next '<', added to the innermost element. */
static outcome content(scanner *s)
{
    frame *f = &s->stack[s->depth - 1];
    const char *run = s->p, *end = s->end;
    outcome r;
    for (;;) {
        const char *q = cl_scan_text(s->p, end, &s->line);
        s->p = q;
        if (q >= end) return DECLINE;
        unsigned char c = (unsigned char)*q;
        if (c == '<') break;
        if (c == ']') {
            if (end - q >= 3 && q[1] == ']' && q[2] == '>') return DECLINE;
            s->p++;
        } else if (c >= 0x80) {
            int n = utf8_char(q, end);
            if (!n) return DECLINE;
            s->p += n;
        } else if (c == '&') {
            char ch[4];
            const char *next;
            int n = decode_ref(q, end, ch, &next);
            if (!n) return DECLINE;
            if ((r = add_text(s, f, run, (size_t)(q - run), 1)) || (r = add_text(s, f, ch, (size_t)n, 0))) return r;
            s->p = run = next;
        } else if (c == '\r' && q + 1 < end && q[1] == '\n') {
            /* CRLF is a line feed: the text runs on from the LF */
            if ((r = add_text(s, f, run, (size_t)(q - run), 1))) return r;
            s->p = run = q + 1;
        } else {
            return DECLINE; /* a lone CR, control bytes */
        }
    }
    return add_text(s, f, run, (size_t)(s->p - run), 1);
}

/* <?xml version="1.0" [encoding="UTF-8"] [standalone="yes|no"] ?> */
static outcome xml_decl(scanner *s)
{
    s->p += 5;
    if (skip_space(s) != 1 || !starts(s, "version")) return DECLINE;
    s->p += 7;
    const char *v;
    if (skip_space(s) < 0 || !starts(s, "=")) return DECLINE;
    s->p++;
    if (skip_space(s) < 0 || att_value(s, &v) || strcmp(v, "1.0") != 0) return DECLINE;
    int space = skip_space(s);
    if (space > 0 && starts(s, "encoding")) {
        s->p += 8;
        if (skip_space(s) < 0 || !starts(s, "=")) return DECLINE;
        s->p++;
        if (skip_space(s) < 0 || att_value(s, &v)) return DECLINE;
        const char *want = "utf-8";
        for (size_t i = 0;; i++) {
            char c = v[i];
            if (c >= 'A' && c <= 'Z') c = (char)(c + 32);
            if (c != want[i]) return DECLINE;
            if (!c) break;
        }
        space = skip_space(s);
    }
    if (space > 0 && starts(s, "standalone")) {
        s->p += 10;
        if (skip_space(s) < 0 || !starts(s, "=")) return DECLINE;
        s->p++;
        if (skip_space(s) < 0 || att_value(s, &v) || (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)) return DECLINE;
        space = skip_space(s);
    }
    if (space < 0 || !starts(s, "?>")) return DECLINE;
    s->p += 2;
    return OK;
}

static outcome document(scanner *s)
{
    outcome r;
    if (s->end - s->p >= 3 && !memcmp(s->p, "\xEF\xBB\xBF", 3)) s->p += 3;
    if (starts(s, "<?xml") && s->end - s->p > 5 &&
        (s->p[5] == ' ' || s->p[5] == '\t' || s->p[5] == '\n' || s->p[5] == '\r')) {
        if ((r = xml_decl(s))) return r;
    }
    if ((r = misc(s))) return r;
    if (s->end - s->p < 2 || *s->p != '<' || !name_start((unsigned char)s->p[1])) return DECLINE;
    s->p++;
    if ((r = start_tag(s))) return r;
    while (s->depth > 0) {
        if ((r = content(s))) return r;
        const char *q = s->p + 1; /* s->p is at '<' */
        if (q >= s->end) return DECLINE;
        if (*q == '/') {
            s->p = q + 1;
            r = end_tag(s);
        } else if (name_start((unsigned char)*q)) {
            s->p = q;
            r = start_tag(s);
        } else if (starts(s, "<!--")) {
            r = comment(s);
        } else {
            r = DECLINE; /* CDATA, a DOCTYPE, a processing instruction, junk */
        }
        if (r) return r;
    }
    if ((r = misc(s))) return r;
    return s->p == s->end ? OK : DECLINE;
}

cl_scan_result cl_scan_tree(cl_doc *d, const char *buf, size_t len)
{
    scanner *s = malloc(sizeof *s);
    if (!s) return CL_SCAN_NO_MEMORY;
    s->d = d;
    s->p = buf;
    s->end = buf + len;
    s->line = 1;
    s->depth = 0;
    s->ns_count = 0;
    s->text = NULL;
    s->text_len = s->text_cap = 0;
    outcome r = document(s);
    free(s->text);
    free(s);
    return r == OK ? CL_SCAN_BUILT : r == NO_MEMORY ? CL_SCAN_NO_MEMORY : CL_SCAN_DECLINED;
}
