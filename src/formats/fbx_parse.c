/* fbx_parse.c — the FBX document (fbx_parse.h): its arena, the entry that
 * tells binary from ASCII, the accessors, node paths and messages. The two
 * encodings are read by fbx_binary.c and fbx_ascii.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "formats/fbx_parse_internal.h"

/* ---- arena ---------------------------------------------------------------- */

struct fbxp_block {
    fbxp_block *next;
    size_t size, used;
    max_align_t data[];
};

#define ARENA_MIN ((size_t)64 << 10)
#define ARENA_MAX ((size_t)64 << 20)

void *fbxp_alloc(struct mr_fbx_arena *a, size_t bytes)
{
    if (bytes > MR_ALLOC_LIMIT) return NULL;
    bytes = (bytes + 7) & ~(size_t)7;
    fbxp_block *b = a->head;
    if (!b || b->size - b->used < bytes) {
        int big = bytes >= ARENA_MIN;   /* a block of its own, behind the one being filled */
        size_t size = big ? bytes : a->next_size < ARENA_MIN ? ARENA_MIN : a->next_size;
        b = malloc(sizeof *b + size);
        if (!b) return NULL;
        b->size = size;
        b->used = 0;
        if (big && a->head) {
            b->next = a->head->next;
            a->head->next = b;
        } else {
            b->next = a->head;
            a->head = b;
            if (a->next_size < ARENA_MAX) a->next_size = a->next_size < ARENA_MIN ? ARENA_MIN * 2 : a->next_size * 2;
        }
    }
    void *p = (char *)b->data + b->used;
    b->used += bytes;
    return p;
}

char *fbxp_strdup(struct mr_fbx_arena *a, const char *s, size_t len)
{
    char *d = fbxp_alloc(a, len + 1);
    if (!d) return NULL;
    if (len) memcpy(d, s, len);
    d[len] = 0;
    return d;
}

static void arena_free(struct mr_fbx_arena *a)
{
    for (fbxp_block *b = a->head, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    a->head = NULL;
}

/* ---- building ------------------------------------------------------------- */

size_t fbxp_push_node(fbxp_ctx *c, uint64_t where)
{
    if (c->node_count == c->node_cap &&
        mr_alloc_reserve((void **)&c->nodes, &c->node_cap, c->node_count + 1, sizeof *c->nodes) != MR_OK) {
        fbxp_fail(c, MR_ERR_NO_MEMORY, where, "out of memory for %zu nodes", c->node_count + 1);
        return SIZE_MAX;
    }
    mr_fbx_node *n = &c->nodes[c->node_count];
    memset(n, 0, sizeof *n);
    n->where = where;
    n->name = "";
    return c->node_count++;
}

mr_status fbxp_close_list(fbxp_ctx *c, size_t base, const mr_fbx_node **children, uint32_t *count,
                          uint64_t where)
{
    size_t n = c->node_count - base;
    *children = NULL;
    *count = 0;
    if (n == 0) return MR_OK;
    if (n > UINT32_MAX) return fbxp_fail(c, MR_ERR_LIMIT, where, "expected at most %u nodes in one list", UINT32_MAX);
    mr_fbx_node *dst = fbxp_alloc(c->arena, n * sizeof *dst);
    if (!dst) return fbxp_fail(c, MR_ERR_NO_MEMORY, where, "out of memory for %zu nodes", n);
    memcpy(dst, c->nodes + base, n * sizeof *dst);
    c->node_count = base;
    *children = dst;
    *count = (uint32_t)n;
    return MR_OK;
}

static void set_parents(mr_fbx_node *node)
{
    mr_fbx_node *ch = (mr_fbx_node *)node->children;
    for (uint32_t i = 0; i < node->child_count; i++) {
        ch[i].parent = node;
        set_parents(&ch[i]);
    }
}

/* ---- paths and messages ------------------------------------------------- */

/* The node's name string (props[0], or props[1] after an integer id), its
 * "Class::" prefix or "\0\1Class" suffix taken off. */
static int node_title(const mr_fbx_node *n, const char **s, size_t *len)
{
    const mr_fbx_prop *p = NULL;
    if (n->prop_count >= 1 && n->props[0].type == 'S') p = &n->props[0];
    else if (n->prop_count >= 2 && (n->props[0].type == 'L' || n->props[0].type == 'I') &&
             n->props[1].type == 'S')
        p = &n->props[1];
    if (!p || !p->count) return 0;
    const char *t = p->v.s;
    size_t l = p->count;
    for (size_t i = 0; i + 1 < l; i++) {
        if (t[i] == 0 && t[i + 1] == 1) { l = i; break; }
    }
    if (l == p->count) {
        for (size_t i = 0; i + 1 < l; i++) {
            if (t[i] == ':' && t[i + 1] == ':') { t += i + 2; l -= i + 2; break; }
        }
    }
    *s = t;
    *len = l;
    return l > 0;
}

static void put(char *buf, size_t size, size_t *len, const char *s, size_t n)
{
    for (size_t i = 0; i < n && *len + 1 < size; i++) {
        unsigned char ch = (unsigned char)s[i];
        buf[(*len)++] = ch < 32 || ch == 127 ? '?' : (char)ch;
    }
    if (size) buf[*len < size ? *len : size - 1] = 0;
}

void fbxp_path_segment(const mr_fbx_node *node, char *buf, size_t size, size_t *len)
{
    const char *name = node->name ? node->name : "";
    size_t nl = strlen(name);
    put(buf, size, len, name, nl > 64 ? 64 : nl);
    const char *t;
    size_t tl;
    if (node_title(node, &t, &tl)) {
        put(buf, size, len, " \"", 2);
        put(buf, size, len, t, tl > 80 ? 80 : tl);
        if (tl > 80) put(buf, size, len, "...", 3);
        put(buf, size, len, "\"", 1);
    }
}

const char *mr_fbx_node_path(const mr_fbx_node *node, char *buf, size_t size)
{
    const mr_fbx_node *chain[MR_FBX_MAX_DEPTH + 2];
    int n = 0;
    size_t len = 0;
    if (!buf || !size) return buf;
    buf[0] = 0;
    for (const mr_fbx_node *p = node; p && p->parent && n < MR_FBX_MAX_DEPTH + 2; p = p->parent)
        chain[n++] = p;
    for (int i = n - 1; i >= 0; i--) {
        if (i != n - 1) put(buf, size, &len, "/", 1);
        fbxp_path_segment(chain[i], buf, size, &len);
    }
    return buf;
}

const char *mr_fbx_where(const mr_fbx_doc *doc, const mr_fbx_node *node, char *buf, size_t size)
{
    if (!buf || !size) return buf;
    snprintf(buf, size, "%s %llu", doc && doc->ascii ? "line" : "byte",
             (unsigned long long)(node ? node->where : 0));
    return buf;
}

mr_status fbxp_fail(fbxp_ctx *c, mr_status status, uint64_t where, const char *fmt, ...)
{
    char path[512], what[512];
    size_t len = 0;
    path[0] = 0;
    for (int d = 0; d < c->depth; d++) {
        if (d) put(path, sizeof path, &len, "/", 1);
        fbxp_path_segment(&c->nodes[c->open[d]], path, sizeof path, &len);
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return mr_error_set(c->err, status, "fbx: %s: at %s %llu: %s%s%s", c->path,
                        c->doc->ascii ? "line" : "byte", (unsigned long long)where, path,
                        path[0] ? ": " : "", what);
}

/* ---- the document --------------------------------------------------------- */

typedef struct doc_box {
    mr_fbx_doc doc;
    struct mr_fbx_arena arena;
} doc_box;

static const char binary_magic[] = "Kaydara FBX Binary  \0\x1a";   /* 22 bytes; then the byte order (0: little-endian) */

mr_status mr_fbx_parse(const char *path, const uint8_t *data, size_t size, mr_fbx_doc **out,
                       mr_error *err)
{
    return mr_fbx_parse_skipping(path, data, size, NULL, out, err);
}

mr_status mr_fbx_parse_skipping(const char *path, const uint8_t *data, size_t size, const char *const *skip,
                                mr_fbx_doc **out, mr_error *err)
{
    if (out) *out = NULL;
    if (!path) path = "(fbx)";
    if (!out || (!data && size)) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "fbx: %s: no data", path);
    doc_box *box = calloc(1, sizeof *box);
    if (!box) return mr_error_set(err, MR_ERR_NO_MEMORY, "fbx: %s: out of memory", path);
    mr_fbx_doc *doc = &box->doc;
    doc->arena = &box->arena;
    box->arena.next_size = size / 2;
    doc->path = fbxp_strdup(doc->arena, path, strlen(path));
    doc->root.name = "";
    fbxp_ctx c = {.path = path, .data = data, .size = size, .doc = doc, .arena = doc->arena, .err = err, .skip = skip};
    c.inflate_budget = FBXP_INFLATE_FLOOR +
                       ((uint64_t)size > UINT64_MAX / 2 / MR_FBX_MAX_INFLATE_RATIO
                            ? UINT64_MAX / 2
                            : (uint64_t)size * MR_FBX_MAX_INFLATE_RATIO);
    mr_status st;
    if (!doc->path) {
        st = mr_error_set(err, MR_ERR_NO_MEMORY, "fbx: %s: out of memory", path);
    } else if (size >= sizeof binary_magic - 1 && memcmp(data, binary_magic, sizeof binary_magic - 1) == 0) {
        st = fbxp_parse_binary(&c);
    } else if (size >= 18 && memcmp(data, binary_magic, 18) == 0) {
        st = fbxp_fail(&c, MR_ERR_BAD_FILE, 18,
                       "expected the binary FBX magic \"Kaydara FBX Binary  \\0\\x1a\", found other bytes after "
                       "\"Kaydara FBX Binary\" (a copy made in text mode?)");
    } else {
        doc->ascii = 1;
        st = fbxp_parse_ascii(&c);
    }
    free(c.nodes);
    if (st != MR_OK) {
        mr_fbx_doc_free(doc);
        return st;
    }
    set_parents(&doc->root);
    doc->root.parent = NULL;
    *out = doc;
    return MR_OK;
}

void mr_fbx_doc_free(mr_fbx_doc *doc)
{
    if (!doc) return;
    arena_free(doc->arena);
    free((doc_box *)doc);
}

/* ---- accessors ------------------------------------------------------------ */

const mr_fbx_node *mr_fbx_child(const mr_fbx_node *node, const char *name)
{
    if (!node || !name) return NULL;
    for (uint32_t i = 0; i < node->child_count; i++)
        if (strcmp(node->children[i].name, name) == 0) return &node->children[i];
    return NULL;
}

const mr_fbx_node *mr_fbx_next(const mr_fbx_node *after)
{
    if (!after || !after->parent) return NULL;
    const mr_fbx_node *end = after->parent->children + after->parent->child_count;
    for (const mr_fbx_node *n = after + 1; n < end; n++)
        if (strcmp(n->name, after->name) == 0) return n;
    return NULL;
}

static int is_int_type(char t) { return t == 'C' || t == 'Y' || t == 'I' || t == 'L'; }
static int is_real_type(char t) { return t == 'F' || t == 'D'; }

/* A real as an integer: 0 for NaN, clamped to int64's range. */
static int64_t real_to_int(double f)
{
    if (!(f == f)) return 0;
    if (f >= 9223372036854775807.0) return INT64_MAX;
    if (f <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)f;
}

int64_t mr_fbx_prop_int(const mr_fbx_node *node, uint32_t i)
{
    if (!node || i >= node->prop_count) return 0;
    const mr_fbx_prop *p = &node->props[i];
    if (is_int_type(p->type)) return p->v.i;
    if (is_real_type(p->type)) return real_to_int(p->v.f);
    return 0;
}

double mr_fbx_prop_double(const mr_fbx_node *node, uint32_t i)
{
    if (!node || i >= node->prop_count) return 0.0;
    const mr_fbx_prop *p = &node->props[i];
    if (is_int_type(p->type)) return (double)p->v.i;
    if (is_real_type(p->type)) return p->v.f;
    return 0.0;
}

const char *mr_fbx_prop_string(const mr_fbx_node *node, uint32_t i, uint32_t *len)
{
    if (len) *len = 0;
    if (!node || i >= node->prop_count) return NULL;
    const mr_fbx_prop *p = &node->props[i];
    if (p->type != 'S' && p->type != 'R') return NULL;
    if (len) *len = p->count;
    return p->v.s;
}

static int is_array_type(char t) { return t == 'b' || t == 'i' || t == 'l' || t == 'f' || t == 'd'; }

static mr_status node_fail(const mr_fbx_doc *doc, const mr_fbx_node *node, mr_error *err,
                           mr_status status, const char *what)
{
    char path[512], where[48];
    mr_fbx_node_path(node, path, sizeof path);
    mr_fbx_where(doc, node, where, sizeof where);
    return mr_error_set(err, status, "fbx: %s: at %s: %s: %s", doc->path, where, path, what);
}

/* Element k of array property p as a double. */
static double array_double(const mr_fbx_prop *p, size_t k)
{
    switch (p->type) {
    case 'b': return ((const uint8_t *)p->v.array)[k];
    case 'i': return ((const int32_t *)p->v.array)[k];
    case 'l': return (double)((const int64_t *)p->v.array)[k];
    case 'f': return ((const float *)p->v.array)[k];
    default: return ((const double *)p->v.array)[k];
    }
}

mr_status mr_fbx_doubles(const mr_fbx_doc *doc, const mr_fbx_node *node, const double **out,
                         size_t *count, mr_error *err)
{
    static const double none[1];
    *out = none;
    *count = 0;
    if (!doc || !node) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "fbx: no node");
    if (node->prop_count >= 1 && is_array_type(node->props[0].type)) {
        const mr_fbx_prop *p = &node->props[0];
        if (!p->v.array && p->count) return node_fail(doc, node, err, MR_ERR_BAD_FILE, "the array was left undecoded");
        if (p->type == 'd') {
            *out = p->v.array;
            *count = p->count;
            return MR_OK;
        }
        double *d = fbxp_alloc(doc->arena, (size_t)p->count * sizeof *d);
        if (!d) return node_fail(doc, node, err, MR_ERR_NO_MEMORY, "out of memory for the array");
        for (size_t k = 0; k < p->count; k++) d[k] = array_double(p, k);
        *out = d;
        *count = p->count;
        return MR_OK;
    }
    for (uint32_t i = 0; i < node->prop_count; i++) {
        if (!is_int_type(node->props[i].type) && !is_real_type(node->props[i].type)) {
            char what[96];
            snprintf(what, sizeof what, "expected numbers, property %u is not one", i);
            return node_fail(doc, node, err, MR_ERR_BAD_FILE, what);
        }
    }
    if (!node->prop_count) return MR_OK;
    double *d = fbxp_alloc(doc->arena, (size_t)node->prop_count * sizeof *d);
    if (!d) return node_fail(doc, node, err, MR_ERR_NO_MEMORY, "out of memory for the array");
    for (uint32_t i = 0; i < node->prop_count; i++) d[i] = mr_fbx_prop_double(node, i);
    *out = d;
    *count = node->prop_count;
    return MR_OK;
}

/* A real that is an integer in int64's range, into *v. */
static int real_is_int(double f, int64_t *v)
{
    if (!(f >= -9223372036854775808.0 && f < 9223372036854775808.0) || f != floor(f)) return 0;
    *v = (int64_t)f;
    return 1;
}

mr_status mr_fbx_ints(const mr_fbx_doc *doc, const mr_fbx_node *node, const int64_t **out,
                      size_t *count, mr_error *err)
{
    static const int64_t none[1];
    *out = none;
    *count = 0;
    if (!doc || !node) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "fbx: no node");
    char what[96];
    if (node->prop_count >= 1 && is_array_type(node->props[0].type)) {
        const mr_fbx_prop *p = &node->props[0];
        if (!p->v.array && p->count) return node_fail(doc, node, err, MR_ERR_BAD_FILE, "the array was left undecoded");
        if (p->type == 'l') {
            *out = p->v.array;
            *count = p->count;
            return MR_OK;
        }
        int64_t *d = fbxp_alloc(doc->arena, (size_t)p->count * sizeof *d);
        if (!d) return node_fail(doc, node, err, MR_ERR_NO_MEMORY, "out of memory for the array");
        for (size_t k = 0; k < p->count; k++) {
            if (p->type == 'b') d[k] = ((const uint8_t *)p->v.array)[k];
            else if (p->type == 'i') d[k] = ((const int32_t *)p->v.array)[k];
            else if (!real_is_int(array_double(p, k), &d[k])) {
                snprintf(what, sizeof what, "expected integers, element %zu is %g", k, array_double(p, k));
                return node_fail(doc, node, err, MR_ERR_BAD_FILE, what);
            }
        }
        *out = d;
        *count = p->count;
        return MR_OK;
    }
    if (!node->prop_count) return MR_OK;
    int64_t *d = fbxp_alloc(doc->arena, (size_t)node->prop_count * sizeof *d);
    if (!d) return node_fail(doc, node, err, MR_ERR_NO_MEMORY, "out of memory for the array");
    for (uint32_t i = 0; i < node->prop_count; i++) {
        const mr_fbx_prop *p = &node->props[i];
        if (is_int_type(p->type)) {
            d[i] = p->v.i;
        } else if (!is_real_type(p->type) || !real_is_int(p->v.f, &d[i])) {
            if (is_real_type(p->type)) snprintf(what, sizeof what, "expected integers, property %u is %g", i, p->v.f);
            else snprintf(what, sizeof what, "expected integers, property %u is not a number", i);
            return node_fail(doc, node, err, MR_ERR_BAD_FILE, what);
        }
    }
    *out = d;
    *count = node->prop_count;
    return MR_OK;
}
