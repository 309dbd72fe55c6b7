/* test_fbx_parse.c — the FBX document parser (src/formats/fbx_parse.c,
 * fbx_binary.c, fbx_ascii.c): binary documents built here record by record
 * (7400's 32-bit and 7500's 64-bit record headers, little- and big-endian,
 * raw and deflated arrays of every type), ASCII 7.x and 6.1 snippets, the
 * accessors and node paths, and a corpus of malformed files made here from
 * the good ones (each refusal with its own message: truncated record, end
 * offset past the parent, array length mismatch, inflate bomb, depth bomb,
 * a bad ASCII token and its line), every truncation and many byte flips of
 * a good document, and real files: ../shared/models' mixamo.fbx and every
 * FBX of the ufbx project's conformance data (ufbx's own deliberately
 * malformed cases refused with the expected message), and Debian's
 * assimp-testmodels.
 */
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/file.h"
#include "anim/morph.h"
#include "formats/fbx.h"
#include "formats/fbx_internal.h"
#include "formats/fbx_parse.h"
#include "test.h"

#define UFBX SHARED_MODELS "ufbx-data/"
#define MIXAMO SHARED_MODELS "threejs-mixamo/mixamo.fbx"

/* ---- a binary FBX writer ---------------------------------------------- */

typedef struct writer {
    uint8_t *p;
    size_t n, cap;
    int wide, big;
    int depth;
    size_t rec[80];               /* offset of each open record */
    size_t props_at[80];          /* where its properties start */
    int props_done[80];           /* its property count and length are written */
    int children[80];             /* it has nested records */
    uint32_t nprops[80];
} writer;

static void put(writer *w, const void *d, size_t n)
{
    if (w->n + n > w->cap) {
        w->cap = (w->n + n) * 2 + 256;
        w->p = realloc(w->p, w->cap);
    }
    memcpy(w->p + w->n, d, n);
    w->n += n;
}

static void put_le_or_be(writer *w, uint64_t v, int bytes)
{
    uint8_t b[8];
    for (int i = 0; i < bytes; i++) b[w->big ? bytes - 1 - i : i] = (uint8_t)(v >> (8 * i));
    put(w, b, (size_t)bytes);
}

static void patch(writer *w, size_t at, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) w->p[at + (size_t)(w->big ? bytes - 1 - i : i)] = (uint8_t)(v >> (8 * i));
}

static void begin(writer *w, uint32_t version, int big)
{
    memset(w, 0, sizeof *w);
    w->wide = version >= 7500;
    w->big = big;
    put(w, "Kaydara FBX Binary  \0\x1a", 22);
    uint8_t order = (uint8_t)big;
    put(w, &order, 1);
    put_le_or_be(w, version, 4);
}

static int head_size(const writer *w) { return w->wide ? 8 : 4; }

static void end_props(writer *w)
{
    int d = w->depth - 1;
    if (d < 0 || w->props_done[d]) return;
    size_t at = w->rec[d] + (size_t)head_size(w);
    patch(w, at, w->nprops[d], head_size(w));
    patch(w, at + (size_t)head_size(w), w->n - w->props_at[d], head_size(w));
    w->props_done[d] = 1;
}

/* Opens a record; returns its offset. */
static size_t open_rec(writer *w, const char *name)
{
    end_props(w);
    if (w->depth) w->children[w->depth - 1] = 1;
    int d = w->depth++;
    w->rec[d] = w->n;
    w->props_done[d] = 0;
    w->children[d] = 0;
    w->nprops[d] = 0;
    for (int i = 0; i < 3; i++) put_le_or_be(w, 0, head_size(w));
    uint8_t len = (uint8_t)strlen(name);
    put(w, &len, 1);
    put(w, name, len);
    w->props_at[d] = w->n;
    return w->rec[d];
}

static void null_record(writer *w)
{
    static const uint8_t zeros[25];
    put(w, zeros, (size_t)(3 * head_size(w) + 1));
}

static void close_rec(writer *w)
{
    end_props(w);
    int d = --w->depth;
    if (w->children[d]) null_record(w);
    patch(w, w->rec[d], w->n, head_size(w));
}

static void finish(writer *w)
{
    null_record(w);
    static const uint8_t footer[16] = {0xfa, 0xbc, 0xab, 0x09};
    put(w, footer, sizeof footer);
}

static void prop_int(writer *w, char type, int64_t v)
{
    put(w, &type, 1);
    put_le_or_be(w, (uint64_t)v, type == 'C' ? 1 : type == 'Y' ? 2 : type == 'I' ? 4 : 8);
    w->nprops[w->depth - 1]++;
}

static void prop_real(writer *w, char type, double v)
{
    put(w, &type, 1);
    if (type == 'F') {
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        put_le_or_be(w, u, 4);
    } else {
        uint64_t u;
        memcpy(&u, &v, 8);
        put_le_or_be(w, u, 8);
    }
    w->nprops[w->depth - 1]++;
}

static void prop_str(writer *w, char type, const char *s, size_t len)
{
    put(w, &type, 1);
    put_le_or_be(w, len, 4);
    put(w, s, len);
    w->nprops[w->depth - 1]++;
}

/* An array property of count elements of es bytes (host order); returns
 * the offset of its 12-byte header. */
static size_t prop_array(writer *w, char type, const void *data, uint32_t count, size_t es, int deflate)
{
    put(w, &type, 1);
    size_t at = w->n;
    size_t bytes = count * es;
    uint8_t *src = malloc(bytes + 1);
    memcpy(src, data, bytes);
    if (w->big)
        for (size_t k = 0; k < bytes; k += es)
            for (size_t i = 0; i < es / 2; i++) {
                uint8_t t = src[k + i];
                src[k + i] = src[k + es - 1 - i];
                src[k + es - 1 - i] = t;
            }
    put_le_or_be(w, count, 4);
    put_le_or_be(w, (uint64_t)deflate, 4);
    if (deflate) {
        uLongf zlen = compressBound((uLong)bytes);
        uint8_t *z = malloc(zlen);
        compress2(z, &zlen, src, (uLong)bytes, 9);
        put_le_or_be(w, zlen, 4);
        put(w, z, zlen);
        free(z);
    } else {
        put_le_or_be(w, bytes, 4);
        put(w, src, bytes);
    }
    free(src);
    w->nprops[w->depth - 1]++;
    return at;
}

static const double verts[] = {0, 1, 2, -1.5, 1e300, 3.25, 7, 8, 9};
static const int32_t indices[] = {0, 1, -3, 2, 3, -1};

typedef struct offsets {
    size_t geometry, vertices, vertices_array, indices_array, model;
} offsets;

/* FBXHeaderExtension/FBXVersion, Objects/Geometry "Body" (Vertices raw or
 * deflated, PolygonVertexIndex deflated, scalars of every type), two Model
 * records and an empty Connections. */
static void build_doc(writer *w, uint32_t version, int big, int deflate_vertices, offsets *o)
{
    offsets dummy;
    if (!o) o = &dummy;
    begin(w, version, big);
    open_rec(w, "FBXHeaderExtension");
    open_rec(w, "FBXVersion");
    prop_int(w, 'I', version);
    close_rec(w);
    close_rec(w);
    open_rec(w, "Objects");
    o->geometry = open_rec(w, "Geometry");
    prop_int(w, 'L', 1234567890123LL);
    prop_str(w, 'S', "Body\0\1Geometry", 14);
    prop_str(w, 'S', "Mesh", 4);
    o->vertices = open_rec(w, "Vertices");
    o->vertices_array = prop_array(w, 'd', verts, 9, 8, deflate_vertices);
    close_rec(w);
    open_rec(w, "PolygonVertexIndex");
    o->indices_array = prop_array(w, 'i', indices, 6, 4, 1);
    close_rec(w);
    open_rec(w, "Scalars");
    prop_int(w, 'C', 1);
    prop_int(w, 'Y', -2);
    prop_int(w, 'I', -70000);
    prop_int(w, 'L', -5000000000LL);
    prop_real(w, 'F', 0.5);
    prop_real(w, 'D', -2.25);
    prop_str(w, 'S', "text", 4);
    prop_str(w, 'R', "\0\1\2", 3);
    close_rec(w);
    close_rec(w);
    o->model = open_rec(w, "Model");
    prop_int(w, 'L', 1);
    prop_str(w, 'S', "Hips\0\1Model", 11);
    prop_str(w, 'S', "LimbNode", 8);
    close_rec(w);
    open_rec(w, "Model");
    prop_int(w, 'L', 2);
    prop_str(w, 'S', "Spine\0\1Model", 12);
    prop_str(w, 'S', "LimbNode", 8);
    close_rec(w);
    open_rec(w, "Type");   /* a 'C' holding a letter, as Pre/Post-Extrapolation's Type does */
    prop_int(w, 'C', 'K');
    close_rec(w);
    close_rec(w);
    open_rec(w, "Connections");
    close_rec(w);
    finish(w);
}

static mr_fbx_doc *parse_ok(const char *path, const void *data, size_t size)
{
    mr_fbx_doc *doc = NULL;
    mr_error err = {0};
    mr_status st = mr_fbx_parse(path, data, size, &doc, &err);
    CHECK_MSG(st == MR_OK && doc, "%s: %s", path, err.msg);
    return doc;
}

/* Parses data expecting a refusal with status st and a message holding
 * every one of the NULL-terminated needles. */
static void parse_bad(const char *what, const void *data, size_t size, mr_status want, ...)
{
    mr_fbx_doc *doc = (mr_fbx_doc *)1;
    mr_error err = {0};
    mr_status st = mr_fbx_parse("bad.fbx", data, size, &doc, &err);
    CHECK_MSG(st == want, "%s: status %d, expected %d (%s)", what, (int)st, (int)want, err.msg);
    CHECK_MSG(doc == NULL, "%s: *out not NULL after a refusal", what);
    CHECK_MSG(strncmp(err.msg, "fbx: bad.fbx: at ", 17) == 0 && strstr(err.msg, ": expected "), "%s: message \"%s\"",
              what, err.msg);
    va_list ap;
    va_start(ap, want);
    for (const char *needle; (needle = va_arg(ap, const char *));)
        CHECK_MSG(strstr(err.msg, needle), "%s: \"%s\" does not contain \"%s\"", what, err.msg, needle);
    va_end(ap);
}

static void check_doc(const mr_fbx_doc *doc, uint32_t version)
{
    CHECK(doc->version == version);
    CHECK(!doc->ascii);
    CHECK(doc->root.child_count == 3);
    const mr_fbx_node *ver = mr_fbx_child(mr_fbx_child(&doc->root, "FBXHeaderExtension"), "FBXVersion");
    CHECK(ver && mr_fbx_prop_int(ver, 0) == version);
    const mr_fbx_node *objects = mr_fbx_child(&doc->root, "Objects");
    const mr_fbx_node *geom = mr_fbx_child(objects, "Geometry");
    CHECK(geom && geom->prop_count == 3 && geom->child_count == 3);
    if (!geom) return;
    CHECK(geom->parent == objects && objects->parent == &doc->root && !doc->root.parent);
    CHECK(mr_fbx_prop_int(geom, 0) == 1234567890123LL);
    uint32_t len;
    const char *name = mr_fbx_prop_string(geom, 1, &len);
    CHECK(name && len == 14 && memcmp(name, "Body\0\1Geometry", 15) == 0);

    const mr_fbx_node *v = mr_fbx_child(geom, "Vertices");
    CHECK(v && v->prop_count == 1 && v->props[0].type == 'd' && v->props[0].count == 9);
    const double *d;
    size_t n;
    mr_error err;
    CHECK(mr_fbx_doubles(doc, v, &d, &n, &err) == MR_OK && n == 9);
    for (size_t i = 0; i < 9 && n == 9; i++) CHECK(d[i] == verts[i]);
    char path[256], where[64];
    CHECK(strcmp(mr_fbx_node_path(v, path, sizeof path), "Objects/Geometry \"Body\"/Vertices") == 0);
    snprintf(path, sizeof path, "byte %llu", (unsigned long long)v->where);
    CHECK(strcmp(mr_fbx_where(doc, v, where, sizeof where), path) == 0);
    /* doubles given as integers: refused, naming the path */
    const int64_t *iv;
    CHECK(mr_fbx_ints(doc, v, &iv, &n, &err) == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(err.msg, "Objects/Geometry \"Body\"/Vertices: expected integers, element 3 is -1.5");

    const mr_fbx_node *pvi = mr_fbx_child(geom, "PolygonVertexIndex");
    CHECK(pvi && pvi->props[0].type == 'i' && pvi->props[0].count == 6);
    CHECK(mr_fbx_ints(doc, pvi, &iv, &n, &err) == MR_OK && n == 6);
    for (size_t i = 0; i < 6 && n == 6; i++) CHECK(iv[i] == indices[i]);
    CHECK(mr_fbx_doubles(doc, pvi, &d, &n, &err) == MR_OK && n == 6 && d[2] == -3.0);

    const mr_fbx_node *s = mr_fbx_child(geom, "Scalars");
    CHECK(s && s->prop_count == 8);
    if (!s || s->prop_count != 8) return;
    static const char types[] = "CYILFDSR";
    for (int i = 0; i < 8; i++) CHECK(s->props[i].type == types[i]);
    CHECK(mr_fbx_prop_int(s, 0) == 1 && mr_fbx_prop_int(s, 1) == -2 && mr_fbx_prop_int(s, 2) == -70000);
    CHECK(mr_fbx_prop_int(s, 3) == -5000000000LL);
    CHECK(mr_fbx_prop_double(s, 4) == 0.5 && mr_fbx_prop_double(s, 5) == -2.25);
    CHECK(mr_fbx_prop_int(s, 5) == -2 && mr_fbx_prop_double(s, 2) == -70000.0);   /* numbers convert */
    CHECK(mr_fbx_prop_int(s, 6) == 0 && mr_fbx_prop_double(s, 6) == 0.0);        /* a string is no number */
    CHECK(mr_fbx_prop_string(s, 5, &len) == NULL && len == 0);                   /* nor a number a string */
    CHECK(mr_fbx_prop_int(s, 8) == 0 && mr_fbx_prop_string(s, 8, NULL) == NULL); /* past the end */
    const char *t = mr_fbx_prop_string(s, 6, &len);
    CHECK(t && len == 4 && strcmp(t, "text") == 0);
    const char *raw = mr_fbx_prop_string(s, 7, &len);
    CHECK(raw && len == 3 && raw[0] == 0 && raw[1] == 1 && raw[2] == 2 && raw[3] == 0);
    /* scalars as an array: a string among them is refused */
    CHECK(mr_fbx_doubles(doc, s, &d, &n, &err) == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(err.msg, "Scalars: expected numbers, property 6 is not one");

    const mr_fbx_node *m1 = mr_fbx_child(objects, "Model");
    const mr_fbx_node *m2 = mr_fbx_next(m1);
    CHECK(m1 && m2 && mr_fbx_prop_int(m2, 0) == 2 && mr_fbx_next(m2) == NULL);
    CHECK(strcmp(mr_fbx_node_path(m2, path, sizeof path), "Objects/Model \"Spine\"") == 0);
    CHECK(mr_fbx_child(objects, "Nothing") == NULL && mr_fbx_child(NULL, "Model") == NULL);
    CHECK(mr_fbx_next(&doc->root) == NULL);
    const mr_fbx_node *type = mr_fbx_child(objects, "Type");
    CHECK(type && type->props[0].type == 'C' && mr_fbx_prop_int(type, 0) == 'K');
    const mr_fbx_node *con = mr_fbx_child(&doc->root, "Connections");
    CHECK(con && con->child_count == 0 && con->prop_count == 0);
    CHECK(mr_fbx_doubles(doc, con, &d, &n, &err) == MR_OK && n == 0);
}

TEST(fbx_binary_7400_32bit_records_raw_and_deflated_arrays)
{
    writer w;
    build_doc(&w, 7400, 0, 0, NULL);
    mr_fbx_doc *doc = parse_ok("doc7400.fbx", w.p, w.n);
    if (doc) check_doc(doc, 7400);
    CHECK(doc && strcmp(doc->path, "doc7400.fbx") == 0);
    mr_fbx_doc_free(doc);
    free(w.p);
    build_doc(&w, 7400, 0, 1, NULL);
    doc = parse_ok("doc7400z.fbx", w.p, w.n);
    if (doc) check_doc(doc, 7400);
    mr_fbx_doc_free(doc);
    free(w.p);
}

TEST(fbx_binary_7500_64bit_records_raw_and_deflated_arrays)
{
    writer w;
    build_doc(&w, 7500, 0, 0, NULL);
    mr_fbx_doc *doc = parse_ok("doc7500.fbx", w.p, w.n);
    if (doc) check_doc(doc, 7500);
    mr_fbx_doc_free(doc);
    free(w.p);
    build_doc(&w, 7700, 0, 1, NULL);
    doc = parse_ok("doc7700z.fbx", w.p, w.n);
    if (doc) check_doc(doc, 7700);
    mr_fbx_doc_free(doc);
    free(w.p);
}

TEST(fbx_binary_big_endian_as_maya_writes_it)
{
    for (int v = 0; v < 2; v++) {
        writer w;
        build_doc(&w, v ? 7500 : 7400, 1, v, NULL);
        mr_fbx_doc *doc = parse_ok("big.fbx", w.p, w.n);
        if (doc) check_doc(doc, v ? 7500 : 7400);
        mr_fbx_doc_free(doc);
        free(w.p);
    }
}

TEST(fbx_binary_every_array_type_raw_and_deflated)
{
    static const uint8_t b[] = {1, 0, 1, 1};
    static const int32_t i[] = {-7, 0, 2147483647};
    static const int64_t l[] = {-5000000000LL, 1, 2};
    static const float f[] = {0.25f, -1.0f};
    static const double d[] = {1e-300, 2.5};
    for (int z = 0; z < 2; z++) {
        writer w;
        begin(&w, 7400, 0);
        open_rec(&w, "B"); prop_array(&w, 'b', b, 4, 1, z); close_rec(&w);
        open_rec(&w, "C"); prop_array(&w, 'c', b, 4, 1, z); close_rec(&w);   /* 'c': a byte array as some writers name it */
        open_rec(&w, "I"); prop_array(&w, 'i', i, 3, 4, z); close_rec(&w);
        open_rec(&w, "L"); prop_array(&w, 'l', l, 3, 8, z); close_rec(&w);
        open_rec(&w, "F"); prop_array(&w, 'f', f, 2, 4, z); close_rec(&w);
        open_rec(&w, "D"); prop_array(&w, 'd', d, 2, 8, z); close_rec(&w);
        open_rec(&w, "E"); prop_array(&w, 'd', d, 0, 8, z); close_rec(&w);
        finish(&w);
        mr_fbx_doc *doc = parse_ok("arrays.fbx", w.p, w.n);
        free(w.p);
        if (!doc) continue;
        const mr_fbx_node *r = &doc->root;
        CHECK(r->child_count == 7);
        CHECK(r->children[0].props[0].type == 'b' && memcmp(r->children[0].props[0].v.array, b, 4) == 0);
        CHECK(r->children[1].props[0].type == 'b' && memcmp(r->children[1].props[0].v.array, b, 4) == 0);
        CHECK(r->children[2].props[0].type == 'i' && memcmp(r->children[2].props[0].v.array, i, sizeof i) == 0);
        CHECK(r->children[3].props[0].type == 'l' && memcmp(r->children[3].props[0].v.array, l, sizeof l) == 0);
        CHECK(r->children[4].props[0].type == 'f' && memcmp(r->children[4].props[0].v.array, f, sizeof f) == 0);
        CHECK(r->children[5].props[0].type == 'd' && memcmp(r->children[5].props[0].v.array, d, sizeof d) == 0);
        CHECK(r->children[6].props[0].type == 'd' && r->children[6].props[0].count == 0);
        const int64_t *iv;
        const double *dv;
        size_t n;
        mr_error err;
        CHECK(mr_fbx_ints(doc, &r->children[0], &iv, &n, &err) == MR_OK && n == 4 && iv[0] == 1 && iv[1] == 0);
        CHECK(mr_fbx_ints(doc, &r->children[3], &iv, &n, &err) == MR_OK && n == 3 && iv[0] == -5000000000LL);
        CHECK(mr_fbx_doubles(doc, &r->children[4], &dv, &n, &err) == MR_OK && n == 2 && dv[0] == 0.25 && dv[1] == -1.0);
        CHECK(mr_fbx_doubles(doc, &r->children[3], &dv, &n, &err) == MR_OK && n == 3 && dv[0] == -5e9);
        CHECK(mr_fbx_ints(doc, &r->children[6], &iv, &n, &err) == MR_OK && n == 0);
        mr_fbx_doc_free(doc);
    }
}

/* Deflated arrays whose stored bytes repeat (mixamo.fbx: 315 KeyTime
 * arrays, 3 distinct) are inflated once and shared: the same values, in
 * either byte order (a big-endian file's shared array is swapped once),
 * and bytes equal but read as another type or count are inflated apart. */
TEST(fbx_binary_repeated_deflated_arrays_are_inflated_once)
{
    static const int64_t keys[] = {0, 1924423250, 3848846500, -7, 123456789012345LL};
    static const int64_t other[] = {0, 1924423250, 3848846500, -7, 5};
    for (int big = 0; big < 2; big++) {
        writer w;
        begin(&w, 7400, big);
        for (int k = 0; k < 3; k++) {
            open_rec(&w, "KeyTime");
            prop_array(&w, 'l', keys, 5, 8, 1);
            close_rec(&w);
        }
        open_rec(&w, "Other"); prop_array(&w, 'l', other, 5, 8, 1); close_rec(&w);
        open_rec(&w, "Again"); prop_array(&w, 'l', keys, 5, 8, 1); close_rec(&w);
        finish(&w);
        mr_fbx_doc *doc = parse_ok("repeats.fbx", w.p, w.n);
        free(w.p);
        if (!doc) continue;
        const mr_fbx_node *r = &doc->root;
        CHECK(r->child_count == 5);
        for (int k = 0; k < 3; k++)
            CHECK(r->children[k].props[0].count == 5 && memcmp(r->children[k].props[0].v.array, keys, sizeof keys) == 0);
        CHECK(r->children[1].props[0].v.array == r->children[0].props[0].v.array);
        CHECK(r->children[2].props[0].v.array == r->children[0].props[0].v.array);
        CHECK(memcmp(r->children[3].props[0].v.array, other, sizeof other) == 0);
        CHECK(r->children[3].props[0].v.array != r->children[0].props[0].v.array);
        CHECK(r->children[4].props[0].v.array == r->children[0].props[0].v.array);
        mr_fbx_doc_free(doc);
    }
    /* the same stored bytes as another type: inflated for that type */
    static const int32_t ints[] = {1, 2, 3, 4};
    writer w;
    begin(&w, 7400, 0);
    open_rec(&w, "I"); prop_array(&w, 'i', ints, 4, 4, 1); close_rec(&w);
    size_t second = open_rec(&w, "F") + 3 * 4 + 1 + 1;   /* the header, the name's length and name: its type code */
    prop_array(&w, 'i', ints, 4, 4, 1);
    close_rec(&w);
    finish(&w);
    /* the second array's 'i' made 'f': its bytes, the same size, now floats */
    CHECK(w.p[second] == 'i');
    w.p[second] = 'f';
    mr_fbx_doc *doc = parse_ok("retyped.fbx", w.p, w.n);
    free(w.p);
    if (doc) {
        const mr_fbx_node *r = &doc->root;
        CHECK(r->children[0].props[0].type == 'i' && memcmp(r->children[0].props[0].v.array, ints, sizeof ints) == 0);
        CHECK(r->children[1].props[0].type == 'f' && memcmp(r->children[1].props[0].v.array, ints, sizeof ints) == 0);
        CHECK(r->children[1].props[0].v.array != r->children[0].props[0].v.array);
        mr_fbx_doc_free(doc);
    }
}

/* Long stored arrays are told apart by a sample of their bytes
 * (stored_hash), then compared whole: arrays that differ only between the
 * sampled places, with the same length, count and zlib trailer, each
 * inflate to their own values, many such (past seen_find's few tries) as
 * well, and the first is still shared with its repeat. Stored (level 0)
 * deflate blocks keep each byte's place; +1 -1 -1 +1 on four bytes in a
 * row leaves the Adler-32 trailer as it was. */
TEST(fbx_binary_long_arrays_alike_but_for_a_few_bytes_stay_apart)
{
    enum { N = 200, VARIANTS = 40 };
    static double arrays[VARIANTS + 1][N];
    memset(arrays, 0x40, sizeof arrays);
    for (int k = 1; k <= VARIANTS; k++) {
        uint8_t *b = (uint8_t *)arrays[k];
        size_t i = 60 + 34 * (size_t)k;
        b[i] += 1;
        b[i + 1] -= 1;
        b[i + 2] -= 1;
        b[i + 3] += 1;
    }
    writer w;
    begin(&w, 7400, 0);
    for (int k = 0; k <= VARIANTS + 1; k++) {
        open_rec(&w, "A");
        put(&w, "d", 1);
        const uint8_t *src = (const uint8_t *)arrays[k <= VARIANTS ? k : 0];
        uLongf zlen = compressBound(sizeof arrays[0]);
        uint8_t *z = malloc(zlen);
        CHECK(compress2(z, &zlen, src, sizeof arrays[0], 0) == Z_OK);
        put_le_or_be(&w, N, 4);
        put_le_or_be(&w, 1, 4);
        put_le_or_be(&w, zlen, 4);
        put(&w, z, zlen);
        free(z);
        w.nprops[w.depth - 1]++;
        close_rec(&w);
    }
    finish(&w);
    mr_fbx_doc *doc = parse_ok("alike.fbx", w.p, w.n);
    free(w.p);
    if (!doc) return;
    const mr_fbx_node *r = &doc->root;
    CHECK(r->child_count == VARIANTS + 2);
    for (int k = 0; k <= VARIANTS + 1 && k < (int)r->child_count; k++)
        CHECK(r->children[k].props[0].count == N &&
              memcmp(r->children[k].props[0].v.array, arrays[k <= VARIANTS ? k : 0], sizeof arrays[0]) == 0);
    CHECK(r->child_count == VARIANTS + 2 && r->children[VARIANTS + 1].props[0].v.array == r->children[0].props[0].v.array);
    mr_fbx_doc_free(doc);
}

/* ---- ASCII ------------------------------------------------------------- */

static const char ascii7[] =
    "; FBX 7.4.0 project file\n"
    "; a comment line\n"
    "FBXHeaderExtension:  {\n"
    "\tFBXVersion: 7400\n"
    "\tCreator: \"Say &quot;hi&quot; \\ C:\\path\"\n"
    "}\n"
    "Objects:  {\n"
    "\tGeometry: 1234567890123, \"Geometry::Body\", \"Mesh\" {\n"
    "\t\tVertices: *6 {\n"
    "\t\t\ta: 0,1.5,-2e3,\n"
    "\t\t\t3,4 ; a comment inside\n"
    "\t\t\t,5\n"
    "\t\t} \n"
    "\t\tPolygonVertexIndex: *3 {\n"
    "\t\t\ta: 0,1,-3\n"
    "\t\t}\n"
    "\t\tEmpty: *0 {\n"
    "\t\t}\n"
    "\t\tOdd: -1.#IND,1.#INF,-1.#INF, inf, NaN, 1.#QNAN, 12345678901234567890\n"
    "\t\tFlags: T, Y, W,\"\"\n"
    "\t\tKey: \n"
    "\t\t\t1924423250,0.5,L\n"
    "\t}\n"
    "\tModel: 7, \"Model::mixamorig:Hips\", \"LimbNode\" {\n"
    "\t\tContent: ,\n"
    "\"aGVsbG8=\"\n"
    "\t}\n"
    "}\n";

TEST(fbx_ascii_7x_arrays_strings_numbers_and_words)
{
    mr_fbx_doc *doc = parse_ok("a7.fbx", ascii7, sizeof ascii7 - 1);
    if (!doc) return;
    CHECK(doc->ascii && doc->version == 7400);
    const mr_fbx_node *hdr = mr_fbx_child(&doc->root, "FBXHeaderExtension");
    CHECK(mr_fbx_prop_int(mr_fbx_child(hdr, "FBXVersion"), 0) == 7400);
    uint32_t len;
    const char *creator = mr_fbx_prop_string(mr_fbx_child(hdr, "Creator"), 0, &len);
    CHECK(creator && strcmp(creator, "Say \"hi\" \\ C:\\path") == 0 && len == strlen(creator));
    const mr_fbx_node *geom = mr_fbx_child(mr_fbx_child(&doc->root, "Objects"), "Geometry");
    CHECK(geom && geom->prop_count == 3 && geom->props[0].type == 'L' && geom->props[1].type == 'S');
    const mr_fbx_node *v = mr_fbx_child(geom, "Vertices");
    CHECK(v && v->prop_count == 1 && v->props[0].type == 'd' && v->props[0].count == 6);
    const double *d;
    size_t n;
    mr_error err;
    CHECK(mr_fbx_doubles(doc, v, &d, &n, &err) == MR_OK && n == 6);
    if (n == 6) CHECK(d[0] == 0 && d[1] == 1.5 && d[2] == -2000 && d[3] == 3 && d[4] == 4 && d[5] == 5);
    char buf[256];
    CHECK(strcmp(mr_fbx_node_path(v, buf, sizeof buf), "Objects/Geometry \"Body\"/Vertices") == 0);
    CHECK(strcmp(mr_fbx_where(doc, v, buf, sizeof buf), "line 9") == 0);
    const mr_fbx_node *pvi = mr_fbx_child(geom, "PolygonVertexIndex");
    CHECK(pvi && pvi->props[0].type == 'l' && pvi->props[0].count == 3);
    const int64_t *iv;
    CHECK(mr_fbx_ints(doc, pvi, &iv, &n, &err) == MR_OK && n == 3 && iv[2] == -3);
    const mr_fbx_node *e = mr_fbx_child(geom, "Empty");
    CHECK(e && e->prop_count == 1 && e->props[0].count == 0);
    const mr_fbx_node *odd = mr_fbx_child(geom, "Odd");
    CHECK(odd && odd->prop_count == 7);
    if (odd && odd->prop_count == 7) {
        CHECK(odd->props[0].type == 'D' && isnan(odd->props[0].v.f));
        CHECK(isinf(odd->props[1].v.f) && odd->props[1].v.f > 0);
        CHECK(isinf(odd->props[2].v.f) && odd->props[2].v.f < 0);
        CHECK(isinf(odd->props[3].v.f) && isnan(odd->props[4].v.f) && isnan(odd->props[5].v.f));
        CHECK(odd->props[6].type == 'D' && odd->props[6].v.f == 12345678901234567890.0);   /* past int64 */
    }
    const mr_fbx_node *flags = mr_fbx_child(geom, "Flags");
    CHECK(flags && flags->prop_count == 4);
    CHECK(strcmp(mr_fbx_prop_string(flags, 0, NULL), "T") == 0 && strcmp(mr_fbx_prop_string(flags, 2, NULL), "W") == 0);
    CHECK(mr_fbx_prop_string(flags, 3, &len) && len == 0);
    const mr_fbx_node *key = mr_fbx_child(geom, "Key");   /* values on the line after the name */
    CHECK(key && key->prop_count == 3 && mr_fbx_prop_int(key, 0) == 1924423250 && mr_fbx_prop_double(key, 1) == 0.5);
    const mr_fbx_node *model = mr_fbx_child(mr_fbx_child(&doc->root, "Objects"), "Model");
    CHECK(strcmp(mr_fbx_node_path(model, buf, sizeof buf), "Objects/Model \"mixamorig:Hips\"") == 0);
    const mr_fbx_node *content = mr_fbx_child(model, "Content");
    CHECK(content && content->prop_count == 1 && strcmp(mr_fbx_prop_string(content, 0, NULL), "aGVsbG8=") == 0);
    mr_fbx_doc_free(doc);
}

static const char ascii61[] =
    "; FBX 6.1.0 project file\n"
    "Objects:  {\n"
    "\tModel: \"Model::Body\", \"Mesh\" {\n"
    "\t\tVertices: 0.5,-1,2,\n"
    "3,4,5\n"
    "             ,6,7,8\n"
    "\t\tPolygonVertexIndex: 0,1,-3\n"
    "\t\tShading: T\n"
    "\t\tCulling: \"CullingOff\"\n"
    "\t}\n"
    "\tConnect: \"OO\", \"Model::Body\", \"Model::Scene\"\n"
    "}\n";

TEST(fbx_ascii_61_value_lists_over_lines)
{
    mr_fbx_doc *doc = parse_ok("a61.fbx", ascii61, sizeof ascii61 - 1);
    if (!doc) return;
    CHECK(doc->ascii && doc->version == 6100);
    const mr_fbx_node *model = mr_fbx_child(mr_fbx_child(&doc->root, "Objects"), "Model");
    char buf[256];
    CHECK(strcmp(mr_fbx_node_path(model, buf, sizeof buf), "Objects/Model \"Body\"") == 0);
    const mr_fbx_node *v = mr_fbx_child(model, "Vertices");
    CHECK(v && v->prop_count == 9 && v->props[0].type == 'D' && v->props[1].type == 'L');
    const double *d;
    size_t n;
    mr_error err;
    CHECK(mr_fbx_doubles(doc, v, &d, &n, &err) == MR_OK && n == 9);
    for (size_t i = 0; i < n; i++) CHECK(d[i] == (i ? (i == 1 ? -1.0 : (double)i) : 0.5));
    const int64_t *iv;
    CHECK(mr_fbx_ints(doc, v, &iv, &n, &err) == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(err.msg, "fbx: a61.fbx: at line 4: Objects/Model \"Body\"/Vertices: expected integers, property 0 is 0.5");
    CHECK(mr_fbx_ints(doc, mr_fbx_child(model, "PolygonVertexIndex"), &iv, &n, &err) == MR_OK && n == 3 && iv[2] == -3);
    CHECK(strcmp(mr_fbx_prop_string(mr_fbx_child(model, "Shading"), 0, NULL), "T") == 0);
    CHECK(mr_fbx_doubles(doc, mr_fbx_child(model, "Culling"), &d, &n, &err) == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(err.msg, "line 9: Objects/Model \"Body\"/Culling \"CullingOff\": expected numbers, property 0 is not one");
    const mr_fbx_node *con = mr_fbx_child(mr_fbx_child(&doc->root, "Objects"), "Connect");
    CHECK(con && con->prop_count == 3 && strcmp(mr_fbx_node_path(con, buf, sizeof buf), "Objects/Connect \"OO\"") == 0);
    mr_fbx_doc_free(doc);
}

TEST(fbx_ascii_version_from_the_header_node_without_the_comment)
{
    static const char text[] = "FBXHeaderExtension: {\n FBXVersion: 5800\n}\n";
    mr_fbx_doc *doc = parse_ok("v.fbx", text, sizeof text - 1);
    CHECK(doc && doc->version == 5800 && doc->ascii);
    mr_fbx_doc_free(doc);
    doc = parse_ok("empty.fbx", "", 0);   /* nothing at all: an empty document */
    CHECK(doc && doc->root.child_count == 0);
    mr_fbx_doc_free(doc);
}

/* ---- malformed files ---------------------------------------------------- */

TEST(fbx_bad_binary_truncated_record)
{
    writer w;
    offsets o;
    build_doc(&w, 7400, 0, 0, &o);
    /* cut in the middle of Vertices' array: Objects, the first record to hold it, ends past the file */
    char want[128];
    snprintf(want, sizeof want, ") inside the file (%zu bytes)", o.vertices_array + 20);
    parse_bad("cut", w.p, o.vertices_array + 20, MR_ERR_BAD_FILE, "truncated record: expected its end (byte", want, NULL);
    free(w.p);
    /* a nested list that ends 10 bytes into a record header */
    build_doc(&w, 7400, 0, 0, &o);
    patch(&w, o.geometry, o.vertices + 10, 4);
    parse_bad("short list", w.p, w.n, MR_ERR_BAD_FILE,
              "Objects/Geometry \"Body\": truncated record: expected a 13-byte record header, 10 bytes left", NULL);
    free(w.p);
}

TEST(fbx_bad_binary_end_offset_past_parent)
{
    for (int wide = 0; wide < 2; wide++) {
        writer w;
        offsets o;
        build_doc(&w, wide ? 7500 : 7400, 0, 0, &o);
        /* Vertices ends 8 bytes past the end of its parent, Geometry */
        uint64_t gend = 0;
        for (int i = 0; i < head_size(&w); i++) gend |= (uint64_t)w.p[o.geometry + (size_t)i] << (8 * i);
        patch(&w, o.vertices, gend + 8, head_size(&w));
        char at[192];
        snprintf(at, sizeof at, "at byte %zu: Objects/Geometry \"Body\": record end offset %llu is past its parent's end: expected at most %llu",
                 o.vertices, (unsigned long long)gend + 8, (unsigned long long)gend);
        parse_bad("past parent", w.p, w.n, MR_ERR_BAD_FILE, at, NULL);
        /* an end before the record's own properties */
        patch(&w, o.vertices, o.vertices + 5, head_size(&w));
        parse_bad("before props", w.p, w.n, MR_ERR_BAD_FILE, "is before the end of its name and", NULL);
        free(w.p);
    }
}

TEST(fbx_bad_binary_array_length_mismatch)
{
    writer w;
    offsets o;
    build_doc(&w, 7400, 0, 0, &o);
    /* a raw array claiming 10 doubles where 9 are stored */
    patch(&w, o.vertices_array, 10, 4);
    parse_bad("raw count", w.p, w.n, MR_ERR_BAD_FILE,
              "Objects/Geometry \"Body\"/Vertices: property 0 (double array): array length mismatch: "
              "expected 80 bytes for 10 elements, 72 are stored",
              NULL);
    free(w.p);
    /* a deflated array whose data inflates to fewer or more bytes than declared */
    build_doc(&w, 7400, 0, 0, &o);
    patch(&w, o.indices_array, 7, 4);
    parse_bad("deflated short", w.p, w.n, MR_ERR_BAD_FILE,
              "PolygonVertexIndex: property 0 (int32 array): array length mismatch: expected 28 bytes for 7 "
              "elements, the deflated data holds 24",
              NULL);
    patch(&w, o.indices_array, 5, 4);
    parse_bad("deflated long", w.p, w.n, MR_ERR_BAD_FILE, "PolygonVertexIndex: property 0 (int32 array): array length mismatch",
              NULL);
    /* a stored length past the record */
    patch(&w, o.indices_array, 6, 4);
    patch(&w, o.indices_array + 8, 100000, 4);
    parse_bad("clen", w.p, w.n, MR_ERR_BAD_FILE, "expected 100000 stored bytes, the record holds", NULL);
    /* an encoding that is neither 0 nor 1 */
    free(w.p);
    build_doc(&w, 7400, 0, 0, &o);
    patch(&w, o.indices_array + 4, 2, 4);
    parse_bad("encoding", w.p, w.n, MR_ERR_BAD_FILE, "expected encoding 0 or 1, found 2", NULL);
    /* damaged deflate data */
    free(w.p);
    build_doc(&w, 7400, 0, 0, &o);
    w.p[o.indices_array + 12] = 0x00;   /* the zlib header */
    parse_bad("zlib header", w.p, w.n, MR_ERR_BAD_FILE, "expected a zlib stream header", NULL);
    free(w.p);
    build_doc(&w, 7400, 0, 0, &o);
    w.p[o.indices_array + 14] = 0xff;   /* the first deflate block: a reserved block type */
    parse_bad("zlib data", w.p, w.n, MR_ERR_BAD_FILE, "PolygonVertexIndex: property 0 (int32 array): ", NULL);
    free(w.p);
}

/* mr_fbx_parse_skipping: the deflated arrays of the named records stay
 * undecoded (type and count kept, no data), even when their data is
 * damaged; the others decode as always; the accessors refuse a skipped
 * array; an inflate bomb in a skipped record is still a limit. */
TEST(fbx_binary_skipping_leaves_named_records_undecoded)
{
    static const char *const skip[] = {"PolygonVertexIndex", NULL};
    writer w;
    offsets o;
    build_doc(&w, 7400, 0, 1, &o);
    w.p[o.indices_array + 14] = 0xff;   /* a reserved deflate block type: mr_fbx_parse refuses it */
    mr_fbx_doc *doc = NULL;
    mr_error err = {0};
    mr_status st = mr_fbx_parse_skipping("skip.fbx", w.p, w.n, skip, &doc, &err);
    CHECK_MSG(st == MR_OK && doc, "%s", err.msg);
    if (doc) {
        const mr_fbx_node *geom = mr_fbx_child(mr_fbx_child(&doc->root, "Objects"), "Geometry");
        const mr_fbx_node *idx = mr_fbx_child(geom, "PolygonVertexIndex");
        CHECK(idx && idx->prop_count == 1 && idx->props[0].type == 'i' && idx->props[0].count == 6 &&
              idx->props[0].v.array == NULL);
        const int64_t *ints;
        size_t n;
        CHECK(mr_fbx_ints(doc, idx, &ints, &n, &err) == MR_ERR_BAD_FILE && n == 0);
        CHECK_MSG(strstr(err.msg, "PolygonVertexIndex") && strstr(err.msg, "left undecoded"), "%s", err.msg);
        const double *d;
        CHECK(mr_fbx_doubles(doc, idx, &d, &n, &err) == MR_ERR_BAD_FILE);
        CHECK(mr_fbx_doubles(doc, mr_fbx_child(geom, "Vertices"), &d, &n, &err) == MR_OK && n == 9 && d[4] == verts[4]);
    }
    mr_fbx_doc_free(doc);
    parse_bad("the same bytes, nothing skipped", w.p, w.n, MR_ERR_BAD_FILE, "PolygonVertexIndex: property 0 (int32 array): ",
              NULL);
    free(w.p);
    /* a skipped record's declared size still counts against the budget */
    uint32_t count = 4u << 20;
    double *zeros = calloc(count, sizeof *zeros);
    begin(&w, 7500, 0);
    open_rec(&w, "Objects");
    open_rec(&w, "PolygonVertexIndex");
    prop_array(&w, 'd', zeros, count, 8, 1);
    close_rec(&w);
    close_rec(&w);
    finish(&w);
    doc = (mr_fbx_doc *)1;
    CHECK(mr_fbx_parse_skipping("bomb.fbx", w.p, w.n, skip, &doc, &err) == MR_ERR_LIMIT && doc == NULL);
    free(zeros);
    free(w.p);
}

TEST(fbx_bad_binary_inflate_bomb_is_a_limit)
{
    /* 4 M doubles of zeros deflate to ~32 KB: 1000x, past the 256x bound */
    uint32_t count = 4u << 20;
    double *zeros = calloc(count, sizeof *zeros);
    writer w;
    begin(&w, 7500, 0);
    open_rec(&w, "Objects");
    open_rec(&w, "Geometry");
    prop_int(&w, 'L', 5);
    prop_str(&w, 'S', "Bomb\0\1Geometry", 14);
    open_rec(&w, "Vertices");
    prop_array(&w, 'd', zeros, count, 8, 1);
    close_rec(&w);
    close_rec(&w);
    close_rec(&w);
    finish(&w);
    free(zeros);
    CHECK(w.n < 100000);
    parse_bad("bomb", w.p, w.n, MR_ERR_LIMIT, "Objects/Geometry \"Bomb\"/Vertices: property 0 (double array): 4194304 elements would inflate the file's arrays to 33554432 bytes: expected at most",
              "(256 times its size, plus 1 MiB)", NULL);
    free(w.p);
}

TEST(fbx_bad_depth_bomb_binary_and_ascii)
{
    writer w;
    begin(&w, 7400, 0);
    for (int i = 0; i < 70; i++) open_rec(&w, "A");
    for (int i = 0; i < 70; i++) close_rec(&w);
    finish(&w);
    parse_bad("binary depth", w.p, w.n, MR_ERR_LIMIT, "A/A: nesting deeper than 64 records: expected at most 64 levels", NULL);
    free(w.p);
    /* 64 levels are fine */
    begin(&w, 7400, 0);
    for (int i = 0; i < 64; i++) open_rec(&w, "A");
    for (int i = 0; i < 64; i++) close_rec(&w);
    finish(&w);
    mr_fbx_doc *doc = parse_ok("deep.fbx", w.p, w.n);
    const mr_fbx_node *n = doc ? &doc->root : NULL;
    int depth = 0;
    while (n && n->child_count) n = &n->children[0], depth++;
    CHECK(depth == 64);
    char path[512];
    if (n) CHECK(strlen(mr_fbx_node_path(n, path, sizeof path)) == 64 * 2 - 1);
    mr_fbx_doc_free(doc);
    free(w.p);

    char text[1024] = "";
    for (int i = 0; i < 70; i++) strcat(text, "A: {\n");
    parse_bad("ascii depth", text, strlen(text), MR_ERR_LIMIT, "at line 65: ", "A/A: nesting deeper than 64 nodes: expected at most 64 levels", NULL);
}

TEST(fbx_bad_ascii_tokens_name_their_line)
{
    static const char bad_token[] = "; FBX 7.4.0 project file\nObjects: {\n\tModel: 1, \"Model::X\" {\n\t\tSize: 1, @2\n\t}\n}\n";
    parse_bad("token", bad_token, sizeof bad_token - 1, MR_ERR_BAD_FILE,
              "at line 4: Objects/Model \"X\"/Size: expected a number, a \"string\" or a word, found '@2'", NULL);
    static const char bad_array[] = "Objects: {\n Vertices: *3 {\n  a: 1,2,\n  x\n }\n}\n";
    parse_bad("array", bad_array, sizeof bad_array - 1, MR_ERR_BAD_FILE,
              "at line 4: Objects/Vertices: array element 2: expected a number, found 'x'", NULL);
    static const char bad_inf[] = "Objects: {\n Vertices: *3 {\n  a: 1,2,1.#INDIE\n }\n}\n";
    parse_bad("1.#INDIE", bad_inf, sizeof bad_inf - 1, MR_ERR_BAD_FILE, "at line 3: ", "found '1.#INDIE'", NULL);
    static const char no_a[] = "Vertices: *3 {\n  b: 1,2,3\n}\n";
    parse_bad("no a:", no_a, sizeof no_a - 1, MR_ERR_BAD_FILE, "at line 2: Vertices: expected 'a:' before the array's values, found 'b'", NULL);
    static const char no_brace[] = "Vertices: *3 \n 1,2,3\n";
    parse_bad("no {", no_brace, sizeof no_brace - 1, MR_ERR_BAD_FILE, "expected '{' after the array's '*3', found '1'", NULL);
    static const char unterminated[] = "A: {\n B: \"abc\n\n";
    parse_bad("string", unterminated, sizeof unterminated - 1, MR_ERR_BAD_FILE,
              "at line 2: A/B: expected '\"' to end the string, the file ended", NULL);
    static const char unclosed[] = "A: {\n B: 1\n C: {\n";
    parse_bad("unclosed", unclosed, sizeof unclosed - 1, MR_ERR_BAD_FILE,
              "at line 4: A/C: expected '}' to close the list opened at line 3, the file ended", NULL);
    static const char stray[] = "A: 1\n}\n";
    parse_bad("stray", stray, sizeof stray - 1, MR_ERR_BAD_FILE, "at line 2: expected a node name, found '}' with no list open", NULL);
    static const char no_colon[] = "A: {\n B 1\n}\n";
    parse_bad("colon", no_colon, sizeof no_colon - 1, MR_ERR_BAD_FILE, "at line 2: A: expected ':' after the node name 'B', found '1'", NULL);
    static const char nul[] = "A: 1\n\0\n";
    parse_bad("nul", nul, sizeof nul - 1, MR_ERR_BAD_FILE, "at line 2: A: expected a number, a \"string\" or a word, found byte 0x00", NULL);
    static const char text_mode[] = "Kaydara FBX Binary   \x1a \xe8\x1c  ";
    parse_bad("text mode", text_mode, sizeof text_mode - 1, MR_ERR_BAD_FILE, "a copy made in text mode", NULL);
}

TEST(fbx_bad_binary_header_and_property_codes)
{
    writer w;
    offsets o;
    build_doc(&w, 7400, 0, 0, &o);
    parse_bad("short header", w.p, 24, MR_ERR_BAD_FILE, "at byte 24: truncated header: expected 27 bytes, found 24", NULL);
    size_t t = o.vertices_array - 1;   /* the type code of Vertices' array */
    w.p[t] = 'Q';
    parse_bad("type", w.p, w.n, MR_ERR_BAD_FILE, "Vertices: property 0: expected a type code (C Y I L F D S R b i l f d), found 0x51", NULL);
    free(w.p);
    /* a property count larger than the property bytes can hold */
    build_doc(&w, 7400, 0, 0, &o);
    patch(&w, o.model + 4, 1000, 4);
    parse_bad("nprops", w.p, w.n, MR_ERR_BAD_FILE, "Objects/Model: expected at most 19 properties in 38 bytes, found a count of 1000", NULL);
    /* fewer properties than the bytes: the rest is left over */
    patch(&w, o.model + 4, 2, 4);
    parse_bad("leftover", w.p, w.n, MR_ERR_BAD_FILE, "expected the 2 properties to fill", NULL);
    /* a string longer than its record */
    patch(&w, o.model + 4, 3, 4);
    size_t name = o.model + 13 + 5 + 9;   /* header, "Model", the 'L' id: the 'S' type code */
    CHECK(w.p[name] == 'S');
    patch(&w, name + 1, 5000, 4);
    parse_bad("string", w.p, w.n, MR_ERR_BAD_FILE, "property 1 ('S'): expected 5000 bytes of data", NULL);
    free(w.p);
}

/* Every prefix of a good document and a sweep of byte changes: a refusal
 * with a message, or a document that walks cleanly (the sanitizers watch). */
static size_t walk(const mr_fbx_doc *doc, const mr_fbx_node *n)
{
    size_t count = 1;
    char buf[256];
    mr_fbx_node_path(n, buf, sizeof buf);
    mr_fbx_where(doc, n, buf, sizeof buf);
    const double *d;
    const int64_t *iv;
    size_t k;
    mr_error err;
    mr_fbx_doubles(doc, n, &d, &k, &err);
    mr_fbx_ints(doc, n, &iv, &k, &err);
    for (uint32_t i = 0; i < n->prop_count; i++) {
        mr_fbx_prop_int(n, i);
        mr_fbx_prop_string(n, i, NULL);
    }
    for (uint32_t i = 0; i < n->child_count; i++) {
        CHECK(n->children[i].parent == n);
        count += walk(doc, &n->children[i]);
    }
    return count;
}

static void try_parse(const void *data, size_t size, int *ok, int *bad)
{
    mr_fbx_doc *doc = NULL;
    mr_error err = {0};
    if (mr_fbx_parse("x.fbx", data, size, &doc, &err) == MR_OK) {
        walk(doc, &doc->root);
        mr_fbx_doc_free(doc);
        (*ok)++;
    } else {
        CHECK_MSG(!doc && strncmp(err.msg, "fbx: x.fbx: at ", 15) == 0 && strstr(err.msg, ": expected "), "%s", err.msg);
        (*bad)++;
    }
}

TEST(fbx_bad_every_truncation_and_byte_change_is_refused_or_whole)
{
    for (int v = 0; v < 2; v++) {
        writer w;
        build_doc(&w, v ? 7500 : 7400, 0, 1, NULL);
        int ok = 0, bad = 0;
        for (size_t n = 0; n < w.n; n++) try_parse(w.p, n, &ok, &bad);
        uint8_t *copy = malloc(w.n);
        static const uint8_t values[] = {0x00, 0x01, 0x7f, 0xff, 'd', 'S'};
        for (size_t i = 23; i < w.n; i++)
            for (size_t k = 0; k < sizeof values; k++) {
                memcpy(copy, w.p, w.n);
                copy[i] = values[k];
                try_parse(copy, w.n, &ok, &bad);
            }
        CHECK(ok > 0 && bad > 0);
        free(copy);
        free(w.p);
    }
    int ok = 0, bad = 0;
    for (size_t n = 0; n < sizeof ascii7 - 1; n++) try_parse(ascii7, n, &ok, &bad);
    char copy[sizeof ascii7];
    for (size_t i = 0; i < sizeof ascii7 - 1; i++) {
        memcpy(copy, ascii7, sizeof ascii7);
        copy[i] = (char)(i % 3 == 0 ? '{' : i % 3 == 1 ? '"' : ':');
        try_parse(copy, sizeof ascii7 - 1, &ok, &bad);
    }
    CHECK(ok > 0 && bad > 0);
}

/* ---- real files ----------------------------------------------------------- */

static mr_fbx_doc *load(const char *path)
{
    size_t size;
    mr_error err = {0};
    char *data = mr_file_read(path, &size, &err);
    CHECK_MSG(data, "%s", err.msg);
    if (!data) return NULL;
    mr_fbx_doc *doc = parse_ok(path, data, size);
    free(data);
    return doc;
}

/* fbx_curve_span_poly (the bake's pieces between two samples): where one
 * key segment holds the span and its time is linear, the polynomial is the
 * curve as fbx_curve_eval gives it; a span crossing or ending on a key,
 * outside the keys, or in a weighted cubic segment is refused. */
TEST(fbx_curve_span_poly_is_the_segment)
{
    double t[6] = {0, 1, 2, 3, 4, 5};
    float v[6] = {0, 2, 1, 5, -3, 4};
    /* cubic, linear, constant, constant (holding the next), weighted cubic */
    uint32_t flags[6] = {0x8, 0x4, 0x2, 0x102, 0x8 | 0x01000000u, 0x4};
    float tan[6][4] = {{0, 1.0f / 3, 1.5f, 1.0f / 3}, {-0.75f, 1.0f / 3, 0, 1.0f / 3}, {0, 1.0f / 3, 0, 1.0f / 3},
                       {0, 1.0f / 3, 0, 1.0f / 3},     {0, 1.0f / 3, 2, 0.5f},           {0, 0.2f, 0, 1.0f / 3}};
    fbx_curve c = {0};
    c.count = 6;
    c.t = t;
    c.v = v;
    c.flags = flags;
    c.tan = tan;
    c.pre_mode = c.post_mode = 'C';
    double t0, inv, p[4];
    for (int seg = 0; seg < 4; seg++) {
        double ta = seg + 0.125, tb = seg + 0.875;
        CHECK(fbx_curve_span_poly(&c, ta, tb, &t0, &inv, p));
        for (int k = 0; k <= 8; k++) {
            double x = ta + (tb - ta) * k / 8, u = (x - t0) * inv;
            CHECK_NEAR(p[0] + u * (p[1] + u * (p[2] + u * p[3])), fbx_curve_eval(&c, x), 1e-12);
        }
    }
    /* the cubic bends: its polynomial is not the chord */
    CHECK(fbx_curve_span_poly(&c, 0.25, 0.75, &t0, &inv, p) && fabs(p[2]) + fabs(p[3]) > 0.1);
    CHECK(fbx_curve_span_poly(&c, 0, 0.5, &t0, &inv, p));     /* from a key on */
    CHECK(!fbx_curve_span_poly(&c, 0.5, 1, &t0, &inv, p));    /* to a key: the next segment's */
    CHECK(!fbx_curve_span_poly(&c, 0.5, 1.5, &t0, &inv, p));  /* across a key */
    CHECK(!fbx_curve_span_poly(&c, 4.25, 4.75, &t0, &inv, p)); /* weighted: the time needs solving */
    CHECK(!fbx_curve_span_poly(&c, -0.5, -0.25, &t0, &inv, p)); /* before the keys */
    CHECK(!fbx_curve_span_poly(&c, 5.25, 5.5, &t0, &inv, p));  /* after them */
}

TEST(fbx_real_mixamo_character)
{
    mr_fbx_doc *doc = load(MIXAMO);
    if (!doc) return;
    CHECK(doc->version == 7700 && !doc->ascii);
    const mr_fbx_node *objects = mr_fbx_child(&doc->root, "Objects");
    int meshes = 0, limbs = 0;
    for (const mr_fbx_node *g = mr_fbx_child(objects, "Geometry"); g; g = mr_fbx_next(g)) {
        const mr_fbx_node *v = mr_fbx_child(g, "Vertices");
        const double *d;
        size_t n;
        mr_error err;
        if (v && mr_fbx_doubles(doc, v, &d, &n, &err) == MR_OK && n > 0 && n % 3 == 0) meshes++;
    }
    for (const mr_fbx_node *m = mr_fbx_child(objects, "Model"); m; m = mr_fbx_next(m)) {
        const char *type = mr_fbx_prop_string(m, 2, NULL);
        if (type && strcmp(type, "LimbNode") == 0) limbs++;
    }
    CHECK_MSG(meshes >= 1 && limbs >= 20, "%d meshes, %d limb nodes", meshes, limbs);
    CHECK(walk(doc, &doc->root) > 1000);
    mr_fbx_doc_free(doc);
}

TEST(fbx_real_same_cube_in_ascii_binary_and_big_endian)
{
    static const char *names[] = {"maya_cube_7400_ascii.fbx", "maya_cube_7400_binary.fbx",
                                  "maya_cube_big_endian_7400_binary.fbx", "maya_cube_6100_ascii.fbx",
                                  "maya_cube_6100_binary.fbx"};
    double first[24];
    for (int f = 0; f < 5; f++) {
        char path[256];
        snprintf(path, sizeof path, UFBX "%s", names[f]);
        mr_fbx_doc *doc = load(path);
        if (!doc) continue;
        CHECK(doc->version == (f < 3 ? 7400u : 6100u) && doc->ascii == (f == 0 || f == 3));
        const mr_fbx_node *objects = mr_fbx_child(&doc->root, "Objects");
        const mr_fbx_node *v = NULL;
        for (const mr_fbx_node *g = mr_fbx_child(objects, f < 3 ? "Geometry" : "Model"); g && !v; g = mr_fbx_next(g))
            v = mr_fbx_child(g, "Vertices");
        const double *d;
        size_t n = 0;
        mr_error err;
        CHECK(v && mr_fbx_doubles(doc, v, &d, &n, &err) == MR_OK && n == 24);
        for (size_t i = 0; i < 24 && n == 24; i++) {
            if (f == 0) first[i] = d[i];
            else CHECK_NEAR(d[i], first[i], 1e-12);
        }
        mr_fbx_doc_free(doc);
    }
}

/* ufbx's deliberately malformed files, and what each is refused for. */
static const struct {
    const char *name, *message;
} ufbx_bad[] = {
    {"synthetic_node_depth_fail_7400_binary.fbx", "truncated record"},
    {"synthetic_node_depth_fail_7500_ascii.fbx", "nesting deeper than 64 nodes"},
    {"synthetic_truncated_quot_fail_7500_ascii.fbx", "expected '\"' to end the string"},
    {"synthetic_bad_inf_nan_fail_7500_ascii.fbx", "found '1.#NOPE'"},
    {"synthetic_bad_inf_nan_fail_7700_ascii.fbx", "found '1.#INDIE'"},
    {"synthetic_bad_inf_nan_7700_ascii.fbx", "found 'snan'"},   /* ufbx reads such tokens as character codes */
    {"synthetic_unsupported_cube_fail_2000_binary.fbx", "is before the end of its name"},
    {"synthetic_unsupported_cube_fail_8000_ascii.fbx", "found '@CreationTimeStamp'"},
};

TEST(fbx_real_every_ufbx_file_parses_but_its_malformed_ones)
{
    static const char *dirs[] = {UFBX, UFBX "blender_axes/", UFBX "fuzz/"};
    int parsed = 0, refused = 0;
    for (int k = 0; k < 3; k++) {
        DIR *dir = opendir(dirs[k]);
        CHECK_MSG(dir, "%s", dirs[k]);
        if (!dir) continue;
        for (struct dirent *e; (e = readdir(dir));) {
            size_t len = strlen(e->d_name);
            if (len < 4 || strcmp(e->d_name + len - 4, ".fbx") != 0) continue;
            char path[512];
            snprintf(path, sizeof path, "%s%s", dirs[k], e->d_name);
            size_t size;
            mr_error err = {0};
            char *data = mr_file_read(path, &size, &err);
            CHECK_MSG(data, "%s", err.msg);
            if (!data) continue;
            const char *expect = NULL;
            for (size_t i = 0; i < sizeof ufbx_bad / sizeof *ufbx_bad; i++)
                if (k == 0 && strcmp(e->d_name, ufbx_bad[i].name) == 0) expect = ufbx_bad[i].message;
            mr_fbx_doc *doc = NULL;
            mr_status st = mr_fbx_parse(path, (const uint8_t *)data, size, &doc, &err);
            if (k == 2) {   /* ufbx's fuzz findings: any outcome, no crash */
                if (st == MR_OK) walk(doc, &doc->root);
                else CHECK_MSG(!doc && strstr(err.msg, "fbx: "), "%s", err.msg);
            } else if (expect) {
                CHECK_MSG(st != MR_OK && strstr(err.msg, expect), "%s: expected a refusal with \"%s\", got \"%s\"", path,
                          expect, st == MR_OK ? "success" : err.msg);
                refused++;
            } else {
                CHECK_MSG(st == MR_OK, "%s", err.msg);
                if (st == MR_OK) parsed++;
            }
            mr_fbx_doc_free(doc);
            free(data);
        }
        closedir(dir);
    }
    CHECK_MSG(parsed >= 690 && refused == (int)(sizeof ufbx_bad / sizeof *ufbx_bad), "%d parsed, %d refused", parsed,
              refused);
}

/* Debian's assimp-testmodels: every FBX parses (binary and ASCII, one
 * with a 'c' byte array) but transparentTest.fbx, whose header's NUL
 * bytes were turned into spaces, refused as such. */
TEST(fbx_real_assimp_testmodels)
{
    static const char *names[] = {
        "animation_with_skeleton.fbx", "box.fbx", "boxWithCompressedCTypeArray.FBX",
        "boxWithUncompressedCTypeArray.FBX", "box_orphant_embedded_texture.fbx", "close_to_identity_transforms.fbx",
        "cubes_nonames.fbx", "cubes_with_mirroring_and_pivot.fbx", "cubes_with_names.fbx",
        "cubes_with_outofrange_float.fbx", "global_settings.fbx", "huesitos.fbx", "maxPbrMaterial_metalRough.fbx",
        "maxPbrMaterial_specGloss.fbx", "phong_cube.fbx", "spider.fbx", "embedded_ascii/box.FBX",
        "embedded_ascii/box_embedded_texture_fragmented.fbx"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char path[256];
        snprintf(path, sizeof path, "/usr/share/assimp/models/FBX/%s", names[i]);
        mr_fbx_doc *doc = load(path);
        if (doc) CHECK(walk(doc, &doc->root) > 10);
        mr_fbx_doc_free(doc);
    }
    size_t size;
    mr_error err = {0};
    char *data = mr_file_read("/usr/share/assimp/models/FBX/transparentTest.fbx", &size, &err);
    CHECK_MSG(data, "%s", err.msg);
    if (data) parse_bad("transparentTest.fbx", data, size, MR_ERR_BAD_FILE, "at byte 18: ", "a copy made in text mode", NULL);
    free(data);
}

/* The FBX 5 layout: top-level models, Children lists, a Link cluster, the
 * transform as channel defaults (the model's own, else the current take's). */
TEST(fbx_legacy_5800_models_children_links_and_channel_defaults)
{
    static const char text[] =
        "FBXHeaderExtension: {\n FBXVersion: 5800\n}\n"
        "Model: \"Model::Root\" {\n Type: \"Null\"\n Children: \"Model::Bone\", \"Model::Box\"\n"
        " Channel: \"Transform\" {\n  Channel: \"T\" {\n   Channel: \"X\" {\n    Default: 5\n   }\n  }\n }\n}\n"
        "Model: \"Model::Bone\" {\n Type: \"LimbNode\"\n}\n"
        "Model: \"Model::Box\" {\n Vertices: 0,0,0, 1,0,0, 0,1,0\n PolygonVertexIndex: 0,1,-3\n"
        " Link: \"Model::Bone\" {\n  Indexes: 0,1,2\n  Weights: 1,1,1\n"
        "  Transform: 1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1\n  TransformLink: 1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,2,1\n }\n}\n"
        "Takes: {\n Current: \"T1\"\n Take: \"T1\" {\n  Model: \"Model::Bone\" {\n   Channel: \"Transform\" {\n"
        "    Channel: \"T\" {\n     Channel: \"Z\" {\n      Default: 2\n     }\n    }\n   }\n  }\n }\n}\n";
    mr_model *m = NULL;
    mr_error err = {0};
    CHECK(mr_fbx_parse_model("legacy.fbx", text, sizeof text - 1, &m, &err) == MR_OK);
    if (!m) {
        fprintf(stderr, "%s\n", err.msg);
        return;
    }
    const mr_skeleton *sk = &m->skeleton;
    int root = mr_skeleton_find(sk, "Root"), bone = mr_skeleton_find(sk, "Bone"), box = mr_skeleton_find(sk, "Box");
    CHECK(root >= 0 && bone >= 0 && box >= 0);
    if (root >= 0 && bone >= 0 && box >= 0) {
        CHECK(sk->parents[root] == -1 && sk->parents[bone] == root && sk->parents[box] == root);
        CHECK(fabsf(sk->rest_t[root][0] - 5) < 1e-5f);   /* the model's own channel default */
        CHECK(fabsf(sk->rest_t[bone][2] - 2) < 1e-5f);   /* the current take's */
        CHECK(fabsf(sk->inverse_bind[bone][3][2] + 2) < 1e-5f);  /* TransformLink^-1 */
    }
    CHECK(m->mesh_count == 1);
    if (m->mesh_count == 1) {
        CHECK(m->meshes[0].vertex_count == 3 && m->meshes[0].index_count == 3);
        CHECK(m->meshes[0].joints && m->meshes[0].joints[0][0] == bone && m->meshes[0].weights[0][0] > 0.99f);
    }
    mr_model_destroy(m);
}

/* FBX 5 blend shapes (Shape children, weights from the model's "Name
 * (Shape)" channels), a model listing itself as a child, a Link to a model
 * that is not there. */
TEST(fbx_legacy_5800_shapes_and_dangling_names)
{
    static const char text[] =
        "FBXHeaderExtension: {\n FBXVersion: 5800\n}\n"
        "Model: \"Model::Bone\" {\n Type: \"LimbNode\"\n Children: \"Model::Bone\", \"Model::Box\", \"Model::Nobody\"\n}\n"
        "Model: \"Model::Box\" {\n Vertices: 0,0,0, 1,0,0, 0,1,0\n PolygonVertexIndex: 0,1,-3\n"
        " Shape: \"S1\" {\n  Indexes: 0\n  Vertices: 0,0,1\n }\n Shape: \"S2\" {\n  Indexes: 1\n  Vertices: 0,0,1\n }\n"
        " Link: \"Model::Missing\" {\n  Indexes: 0\n  Weights: 1\n }\n Children: \"Model::Bone\"\n"
        " Channel: \"S1 (Shape)\" {\n  Default: 50\n }\n}\n";
    mr_model *m = NULL;
    mr_error err = {0};
    CHECK(mr_fbx_parse_model("shapes.fbx", text, sizeof text - 1, &m, &err) == MR_OK);
    if (!m) {
        fprintf(stderr, "%s\n", err.msg);
        return;
    }
    CHECK(m->skeleton.joint_count == 2 && m->mesh_count == 1);
    const mr_morph_set *ms = m->mesh_count == 1 ? m->meshes[0].morph : NULL;
    CHECK(ms && ms->count == 2);
    if (ms && ms->count == 2) {
        CHECK(fabsf(ms->weights[0] - 0.5f) < 1e-6f);   /* S1 at 50 percent */
        CHECK(ms->weights[1] == 0);                    /* S2 has no channel */
    }
    mr_model_destroy(m);
}

int main(void)
{
    RUN(fbx_binary_7400_32bit_records_raw_and_deflated_arrays);
    RUN(fbx_binary_7500_64bit_records_raw_and_deflated_arrays);
    RUN(fbx_binary_big_endian_as_maya_writes_it);
    RUN(fbx_binary_every_array_type_raw_and_deflated);
    RUN(fbx_binary_repeated_deflated_arrays_are_inflated_once);
    RUN(fbx_binary_long_arrays_alike_but_for_a_few_bytes_stay_apart);
    RUN(fbx_ascii_7x_arrays_strings_numbers_and_words);
    RUN(fbx_ascii_61_value_lists_over_lines);
    RUN(fbx_ascii_version_from_the_header_node_without_the_comment);
    RUN(fbx_bad_binary_truncated_record);
    RUN(fbx_bad_binary_end_offset_past_parent);
    RUN(fbx_bad_binary_array_length_mismatch);
    RUN(fbx_bad_binary_inflate_bomb_is_a_limit);
    RUN(fbx_binary_skipping_leaves_named_records_undecoded);
    RUN(fbx_bad_depth_bomb_binary_and_ascii);
    RUN(fbx_bad_ascii_tokens_name_their_line);
    RUN(fbx_bad_binary_header_and_property_codes);
    RUN(fbx_bad_every_truncation_and_byte_change_is_refused_or_whole);
    RUN(fbx_legacy_5800_models_children_links_and_channel_defaults);
    RUN(fbx_legacy_5800_shapes_and_dangling_names);
    RUN(fbx_curve_span_poly_is_the_segment);
    RUN(fbx_real_mixamo_character);
    RUN(fbx_real_same_cube_in_ascii_binary_and_big_endian);
    RUN(fbx_real_every_ufbx_file_parses_but_its_malformed_ones);
    RUN(fbx_real_assimp_testmodels);
    return test_summary("fbx_parse");
}
