/* collada_xml.c — the XML layer of the COLLADA reader: a safe libxml2 parse,
 * the #id table, error messages with element path and line, and fast
 * parsing of the number arrays that make up most of a .dae file.
 *
 * Safety: documents are parsed with XML_PARSE_NONET and without
 * XML_PARSE_NOENT / XML_PARSE_DTDLOAD, so entities are never substituted
 * (no "billion laughs" expansion) and external entities and DTDs are never
 * read. Entity references left in the tree are not text to this reader.
 * libxml2's own diagnostics are captured (first error and its line) and
 * never printed.
 */
#include "formats/collada_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>

#include "core/alloc.h"
#include "core/path.h"

/* ---- errors ------------------------------------------------------------- */

long cl_line(const xmlNode *n)
{
    return n ? xmlGetLineNo(n) : 0;
}

/* One path segment: name, [@id='..'] when the element has an id, else [k]
 * when it has same-named siblings. Returns chars written (not counting NUL). */
static size_t path_segment(const xmlNode *n, char *buf, size_t cap)
{
    const char *id = cl_attr(n, "id");
    int pos = 0, total = 0;
    if (!id && n->parent) {
        for (const xmlNode *c = n->parent->children; c; c = c->next)
            if (c->type == XML_ELEMENT_NODE && xmlStrEqual(c->name, n->name)) {
                total++;
                if (c == n) pos = total;
            }
    }
    int w;
    if (id) w = snprintf(buf, cap, "/%s[@id='%.60s']", (const char *)n->name, id);
    else if (total > 1) w = snprintf(buf, cap, "/%s[%d]", (const char *)n->name, pos);
    else w = snprintf(buf, cap, "/%s", (const char *)n->name);
    return w < 0 ? 0 : (size_t)w;
}

void cl_path(const xmlNode *n, char *buf, size_t cap)
{
    const xmlNode *chain[64];
    int depth = 0;
    for (const xmlNode *p = n; p && p->type == XML_ELEMENT_NODE; p = p->parent) {
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

static mr_status failv(cl_doc *d, mr_status status, const xmlNode *at, const char *fmt, va_list ap)
{
    char what[600];
    vsnprintf(what, sizeof what, fmt, ap);
    if (at && at->type == XML_ELEMENT_NODE) {
        char path[400];
        cl_path(at, path, sizeof path);
        return mr_error_set(d->err, status, "collada: %s: %s (line %ld): %s", d->name, path,
                            cl_line(at), what);
    }
    return mr_error_set(d->err, status, "collada: %s: %s", d->name, what);
}

mr_status cl_fail(cl_doc *d, const xmlNode *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mr_status st = failv(d, MR_ERR_BAD_FILE, at, fmt, ap);
    va_end(ap);
    return st;
}

mr_status cl_fail_status(cl_doc *d, mr_status status, const xmlNode *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mr_status st = failv(d, status, at, fmt, ap);
    va_end(ap);
    return st;
}

/* ---- element helpers ---------------------------------------------------- */

int cl_is(const xmlNode *n, const char *name)
{
    return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

xmlNode *cl_first_elem(const xmlNode *n)
{
    if (!n) return NULL;
    for (xmlNode *c = n->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE) return c;
    return NULL;
}

xmlNode *cl_next_elem(const xmlNode *n)
{
    for (xmlNode *c = n->next; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE) return c;
    return NULL;
}

xmlNode *cl_child(const xmlNode *n, const char *name)
{
    if (!n) return NULL;
    for (xmlNode *c = n->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0) return c;
    return NULL;
}

xmlNode *cl_next(const xmlNode *n, const char *name)
{
    for (xmlNode *c = n->next; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0) return c;
    return NULL;
}

const char *cl_attr(const xmlNode *n, const char *name)
{
    if (!n || n->type != XML_ELEMENT_NODE) return NULL;
    for (xmlAttr *a = n->properties; a; a = a->next)
        if (strcmp((const char *)a->name, name) == 0) {
            if (a->children && a->children->type == XML_TEXT_NODE && a->children->content)
                return (const char *)a->children->content;
            return "";
        }
    return NULL;
}

const char *cl_text(const xmlNode *n, size_t *len, char **owned)
{
    *owned = NULL;
    const xmlNode *only = NULL;
    int pieces = 0;
    for (const xmlNode *c = n->children; c; c = c->next)
        if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content) {
            only = c;
            pieces++;
        }
    if (pieces == 0) {
        *len = 0;
        return "";
    }
    if (pieces == 1) {
        *len = strlen((const char *)only->content);
        return (const char *)only->content;
    }
    size_t total = 0;
    for (const xmlNode *c = n->children; c; c = c->next)
        if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content)
            total += strlen((const char *)c->content);
    char *buf = mr_alloc_array(total + 1, 1);
    if (!buf) {
        *len = 0;
        return NULL;
    }
    size_t at = 0;
    for (const xmlNode *c = n->children; c; c = c->next)
        if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content) {
            size_t k = strlen((const char *)c->content);
            memcpy(buf + at, c->content, k);
            at += k;
        }
    buf[at] = '\0';
    *owned = buf;
    *len = at;
    return buf;
}

/* ---- id table ----------------------------------------------------------- */

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

static mr_status ids_insert(cl_doc *d, const char *id, xmlNode *node)
{
    if ((d->ids_count + 1) * 2 > d->ids_cap) {
        size_t cap = d->ids_cap ? d->ids_cap * 2 : 256;
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

xmlNode *cl_find_id(cl_doc *d, const char *id, size_t len)
{
    if (!d->ids_cap) return NULL;
    size_t h = (size_t)hash_bytes(id, len) & (d->ids_cap - 1);
    while (d->ids[h].id) {
        if (strncmp(d->ids[h].id, id, len) == 0 && d->ids[h].id[len] == '\0') return d->ids[h].node;
        h = (h + 1) & (d->ids_cap - 1);
    }
    return NULL;
}

static mr_status build_ids(cl_doc *d)
{
    /* Iterative pre-order walk over elements. */
    xmlNode *n = d->root;
    while (n) {
        if (n->type == XML_ELEMENT_NODE) {
            const char *id = cl_attr(n, "id");
            if (id && *id && ids_insert(d, id, n) != MR_OK)
                return cl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory for the id table");
            xmlNode *c = cl_first_elem(n);
            if (c) {
                n = c;
                continue;
            }
        }
        while (n && n != d->root && !cl_next_elem(n)) n = n->parent;
        if (!n || n == d->root) break;
        n = cl_next_elem(n);
    }
    return MR_OK;
}

xmlNode *cl_lookup(cl_doc *d, const char *uri)
{
    if (!uri || uri[0] != '#') return NULL;
    xmlNode *n = cl_find_id(d, uri + 1, strlen(uri + 1));
    if (n || !strchr(uri, '%')) return n;
    char *dec = mr_path_url_decode(uri + 1, NULL);
    if (!dec) return NULL;
    n = cl_find_id(d, dec, strlen(dec));
    free(dec);
    return n;
}

mr_status cl_ref(cl_doc *d, xmlNode *at, const char *attr, const char *want, xmlNode **out)
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
    snprintf(buf, sizeof buf, "%s", uri);
    free(owned);
    size_t bl = strlen(buf);
    while (bl && isspace((unsigned char)buf[bl - 1])) buf[--bl] = '\0';
    if (buf[0] != '#') {
        /* <skeleton>, <init_from> and <surface> use bare ids in some files. */
        if (!attr && buf[0] && !strchr(buf, '#') && !strchr(buf, '/')) {
            xmlNode *n = cl_find_id(d, buf, strlen(buf));
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
    xmlNode *n = cl_lookup(d, buf);
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
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static const double neg_pow10_tab[23] = {1e-0,  1e-1,  1e-2,  1e-3,  1e-4,  1e-5,  1e-6,  1e-7,
                                         1e-8,  1e-9,  1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15,
                                         1e-16, 1e-17, 1e-18, 1e-19, 1e-20, 1e-21, 1e-22};
static const double pow10_tab[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Parses one decimal number at p (no leading space). Returns the end, or
 * NULL when p does not start a well-formed number. The text must end in a
 * NUL (every cl_text result does), which stops every loop. Up to 19
 * significant digits are used; the value is the digits times a power of
 * ten in double, then rounded to float (see below). */
static const char *parse_number(const char *p, double *out, int comma)
{
    int neg = *p == '-';
    if (*p == '-' || *p == '+') p++;
    uint64_t m = 0;
    int digits = 0, exp10 = 0;
    const char *start = p;
    unsigned d;
    while ((d = (unsigned)(*p - '0')) < 10u) {
        if (digits < 19) m = m * 10 + d, digits++;
        else exp10++;
        p++;
    }
    int any = p != start;
    if (*p == '.' || (comma && *p == ',')) {
        p++;
        const char *frac = p;
        while ((d = (unsigned)(*p - '0')) < 10u) {
            if (digits < 19) m = m * 10 + d, digits++, exp10--;
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
    double v = (double)m;
    if (m == 0) {
        v = 0.0;
    } else if (exp10 < 0) {
        int e = -exp10;
        while (e > 22 && v != 0.0) {
            v /= 1e22;
            e -= 22;
        }
        /* Multiplying by 10^-e (within an ulp of exact) instead of dividing
         * by 10^e: the double is off by at most one ulp, which the rounding
         * to float absorbs but for values a hair from a float tie. */
        if (e <= 22) v *= neg_pow10_tab[e];
    } else if (exp10 > 0) {
        int e = exp10;
        while (e > 22 && !isinf(v)) {
            v *= 1e22;
            e -= 22;
        }
        if (e <= 22) v *= pow10_tab[e];
    }
    *out = neg ? -v : v;
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
static long parse_floats(cl_doc *d, xmlNode *el, const char *p, const char *end, float *out, size_t max)
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
        double v;
        const char *q = parse_number(p, &v, d->decimal_comma != 0);
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
        if (!isfinite(v) || fabs(v) > 3.4028234663852886e38) {
            char tok[40];
            token_at(p, end, tok, sizeof tok);
            return cl_fail(d, el, "value %zu ('%s') is out of float range", n + 1, tok), -1;
        }
        if (n < max && out) out[n] = (float)v;
        n++;
        p = q;
    }
    return (long)n;
}

static mr_status array_attach(cl_doc *d, xmlNode *el, cl_array *a)
{
    a->next = d->arrays;
    d->arrays = a;
    el->_private = a;
    return MR_OK;
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

mr_status cl_floats(cl_doc *d, xmlNode *el, const cl_array **out)
{
    *out = NULL;
    if (el->_private) {
        const cl_array *a = el->_private;
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
    cl_array *a = calloc(1, sizeof *a);
    float *f = a ? mr_alloc_array(cap, sizeof *f) : NULL;
    if (!a || !f) {
        free(a);
        free(f);
        free(owned);
        return cl_fail_status(d, MR_ERR_NO_MEMORY, el, "out of memory for %zu floats", cap);
    }
    long n = parse_floats(d, el, text, text + len, f, cap);
    free(owned);
    if (n < 0) {
        free(f);
        free(a);
        return MR_ERR_BAD_FILE;
    }
    /* Fewer values than declared is an error; more (seen in a Blender
     * export) keeps the declared count and warns: accessors are checked
     * against what is kept. */
    if (declared >= 0 && n < declared) {
        free(f);
        free(a);
        return cl_fail(d, el, "count=\"%ld\" but the array holds only %ld values", declared, n);
    }
    if (declared >= 0 && n > declared) {
        if (d->model)
            mr_model_warn(d->model, "%s: float_array '%s' (line %ld): count=\"%ld\" but it holds %ld values; extra values ignored",
                          d->name, cl_attr(el, "id") ? cl_attr(el, "id") : "?", cl_line(el), declared, n);
        n = declared;
    }
    a->kind = CL_ARRAY_FLOAT;
    a->count = (size_t)n;
    a->f = f;
    array_attach(d, el, a);
    *out = a;
    return MR_OK;
}

mr_status cl_names(cl_doc *d, xmlNode *el, const cl_array **out)
{
    *out = NULL;
    if (el->_private) {
        const cl_array *a = el->_private;
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
    cl_array *a = calloc(1, sizeof *a);
    char *buf = mr_alloc_array(len + 1, 1);
    char **names = mr_alloc_array(n, sizeof *names);
    if (!a || !buf || !names) {
        free(a);
        free(buf);
        free(names);
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
    a->kind = CL_ARRAY_NAME;
    a->count = k;
    a->names = names;
    a->buf = buf;
    array_attach(d, el, a);
    *out = a;
    return MR_OK;
}

mr_status cl_fixed_floats(cl_doc *d, xmlNode *el, float *out, int n)
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

mr_status cl_some_floats(cl_doc *d, xmlNode *el, float *out, int max, long *got)
{
    char *owned;
    size_t len;
    const char *text = cl_text(el, &len, &owned);
    if (!text) return cl_fail_status(d, MR_ERR_NO_MEMORY, el, "out of memory");
    *got = parse_floats(d, el, text, text + len, out, (size_t)max);
    free(owned);
    return *got < 0 ? MR_ERR_BAD_FILE : MR_OK;
}

mr_status cl_ints(cl_doc *d, xmlNode *el, int min_value, int **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    char *owned;
    size_t len;
    const char *text = cl_text(el, &len, &owned);
    if (!text) return cl_fail_status(d, MR_ERR_NO_MEMORY, el, "out of memory");
    const char *p = text, *end = text + len;
    size_t cap = len / 2 + 1, n = 0;
    int *v = mr_alloc_array(cap, sizeof *v);
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

mr_status cl_int_attr(cl_doc *d, xmlNode *el, const char *name, long dflt, long min, long *out)
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

mr_status cl_source_read(cl_doc *d, xmlNode *src, int want_names, int min_stride, cl_source *out)
{
    memset(out, 0, sizeof *out);
    out->el = src;
    if (!cl_is(src, "source")) return cl_fail(d, src, "expected a <source>");
    xmlNode *tc = cl_child(src, "technique_common");
    xmlNode *acc = tc ? cl_child(tc, "accessor") : NULL;
    xmlNode *arr = NULL;
    if (acc) {
        mr_status st = cl_ref(d, acc, "source", NULL, &arr);
        if (st != MR_OK) return st;
    } else {
        for (xmlNode *c = cl_first_elem(src); c; c = cl_next_elem(c))
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
    if (want_names) out->names = a->names + offset;
    else out->f = a->f + offset;
    return MR_OK;
}

mr_status cl_input_source(cl_doc *d, xmlNode *input, int want_names, int min_stride, cl_source *out)
{
    xmlNode *src;
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
    xmlNode *asset = cl_child(d->root, "asset");
    if (!asset) return MR_OK;
    xmlNode *unit = cl_child(asset, "unit");
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
    xmlNode *up = cl_child(asset, "up_axis");
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
    const char *ns = d->root->ns && d->root->ns->href ? (const char *)d->root->ns->href : "";
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

mr_status cl_doc_open(cl_doc *d, const char *name, const char *buf, size_t len, mr_error *err)
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

    xml_capture cap = {0};
    xmlStructuredErrorFunc old_serr = xmlStructuredError;
    void *old_sctx = xmlStructuredErrorContext;
    xmlGenericErrorFunc old_gerr = xmlGenericError;
    void *old_gctx = xmlGenericErrorContext;
    xmlSetStructuredErrorFunc(&cap, capture_structured);
    xmlSetGenericErrorFunc(NULL, silent_generic);

    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (ctxt) {
        /* Never XML_PARSE_NOENT (entity substitution) or XML_PARSE_DTDLOAD. */
        d->xml = xmlCtxtReadMemory(ctxt, buf, (int)len, NULL, NULL, cl_xml_options());
        if (d->xml && !ctxt->wellFormed) {
            xmlFreeDoc(d->xml);
            d->xml = NULL;
        }
        xmlFreeParserCtxt(ctxt);
    }

    xmlSetStructuredErrorFunc(old_sctx, old_serr);
    xmlSetGenericErrorFunc(old_gctx, old_gerr);

    if (!ctxt) {
        st = cl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory starting the XML parser");
    } else if (!d->xml) {
        if (cap.have) st = cl_fail(d, NULL, "line %d: not well-formed XML: %s", cap.line, cap.msg);
        else st = cl_fail(d, NULL, "not well-formed XML");
    } else {
        d->root = xmlDocGetRootElement(d->xml);
        if (!d->root) st = cl_fail(d, NULL, "the document has no root element");
        else if (!cl_is(d->root, "COLLADA")) {
            if (!strcasecmp((const char *)d->root->name, "html"))
                st = cl_fail(d, d->root, "this is an HTML page, not a COLLADA document");
            else
                st = cl_fail(d, d->root, "root element is <%s>, expected <COLLADA>", (const char *)d->root->name);
        }
    }
    if (st == MR_OK) st = check_version(d);
    if (st == MR_OK) st = build_ids(d);
    if (st == MR_OK) st = read_asset(d);
    if (st != MR_OK) cl_doc_close(d);
    return st;
}

void cl_doc_close(cl_doc *d)
{
    for (cl_array *a = d->arrays, *next; a; a = next) {
        next = a->next;
        free(a->f);
        free(a->names);
        free(a->buf);
        free(a);
    }
    d->arrays = NULL;
    if (d->xml) xmlFreeDoc(d->xml);
    d->xml = NULL;
    d->root = NULL;
    free(d->ids);
    d->ids = NULL;
    d->ids_cap = d->ids_count = 0;
    free(d->dir);
    d->dir = NULL;
}
