/* gltf_internal.h — private declarations shared by the glTF reader's files.
 *
 *   gltf_json.c      the JSON parser (one arena, jansson's acceptance)
 *   gltf_doc.c       container (.gltf / .glb), errors with JSON paths, typed member access, buffers (data: URIs,
 *                    external files inside the model's folder, the GLB BIN
 *                    chunk), buffer views (EXT_meshopt_compression), the
 *                    allocation budget
 *   gltf_accessor.c  accessors: component types, normalized integers,
 *                    byteStride, sparse
 *   gltf_scene.c     nodes -> skeleton, skins, meshes and primitives
 *   gltf_material.c  materials, textures, images
 *   gltf_anim.c      animations -> clips
 *   gltf_read.c      assembly and the public entry points
 */
#ifndef MR_FORMATS_GLTF_INTERNAL_H
#define MR_FORMATS_GLTF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <string.h>

#include "anim/model.h"
#include "core/error.h"

/* JSON paths for messages are built with snprintf into fixed buffers; a
 * path cut short only shortens a message. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

/* ---- JSON (gltf_json.c) ---------------------------------------------------
 * A read-only tree in the document's arena. Accessors take any node (or
 * NULL) and answer NULL / 0 / 0.0 when it is not of the asked type, as
 * jansson's do. */

typedef struct gl_chunk gl_chunk;

typedef enum {
    GL_JSON_NULL, GL_JSON_FALSE, GL_JSON_TRUE, GL_JSON_INTEGER, GL_JSON_REAL, GL_JSON_STRING, GL_JSON_ARRAY,
    GL_JSON_OBJECT
} gl_json_type;

typedef struct gl_json {
    uint8_t type;                /* gl_json_type */
    uint32_t n;                  /* elements, members, string bytes or a real's text length */
    uint32_t key_len;
    const char *key;             /* the member's key in its object (NUL-terminated), else NULL */
    union {
        struct gl_json *kids;    /* array elements / object members in order */
        const char *str;         /* string (NUL-terminated) or a real's text */
        long long i;             /* integer */
    } u;
} gl_json;

/* Parses text[0..len) in place (the text is modified and must outlive the
 * tree); nodes come from *arena (free with gl_json_arena_free). NULL when
 * jansson's json_loadb(JSON_REJECT_DUPLICATES) would refuse the text, when
 * it holds more than max_values ',', '[' and '{' outside strings (stopped
 * there: what it allocates stays in proportion), or out of memory. */
gl_json *gl_json_parse(char *text, size_t len, size_t max_values, gl_chunk **arena);
void gl_json_arena_free(gl_chunk *arena);
gl_json *gl_json_find_big(const gl_json *o, const char *key, size_t len);
double gl_json_real_value(const gl_json *v);

static inline int gl_json_is(const gl_json *v, int type) { return v && v->type == type; }
#define gl_json_is_object(v) gl_json_is((v), GL_JSON_OBJECT)
#define gl_json_is_array(v) gl_json_is((v), GL_JSON_ARRAY)
#define gl_json_is_string(v) gl_json_is((v), GL_JSON_STRING)
#define gl_json_is_integer(v) gl_json_is((v), GL_JSON_INTEGER)
#define gl_json_is_real(v) gl_json_is((v), GL_JSON_REAL)
#define gl_json_is_true(v) gl_json_is((v), GL_JSON_TRUE)
static inline int gl_json_is_number(const gl_json *v)
{
    return v && (v->type == GL_JSON_INTEGER || v->type == GL_JSON_REAL);
}
static inline int gl_json_is_boolean(const gl_json *v)
{
    return v && (v->type == GL_JSON_TRUE || v->type == GL_JSON_FALSE);
}
/* Member key of object o, or NULL (objects of more than GL_JSON_SMALL
 * members are looked up through their hash index). */
#define GL_JSON_SMALL 8
static inline gl_json *gl_json_get(const gl_json *o, const char *key)
{
    if (!o || o->type != GL_JSON_OBJECT) return NULL;
    size_t len = strlen(key);
    if (o->n > GL_JSON_SMALL) return gl_json_find_big(o, key, len);
    for (uint32_t i = 0; i < o->n; i++) {
        gl_json *m = &o->u.kids[i];
        if (m->key_len == len && !memcmp(m->key, key, len)) return m;
    }
    return NULL;
}
static inline size_t gl_json_size(const gl_json *a) { return gl_json_is_array(a) ? a->n : 0; }
static inline gl_json *gl_json_at(const gl_json *a, size_t i)
{
    return gl_json_is_array(a) && i < a->n ? &a->u.kids[i] : NULL;
}
static inline const char *gl_json_string(const gl_json *v) { return gl_json_is_string(v) ? v->u.str : NULL; }
static inline long long gl_json_integer(const gl_json *v) { return gl_json_is_integer(v) ? v->u.i : 0; }
static inline double gl_json_real(const gl_json *v) { return gl_json_is_real(v) ? gl_json_real_value(v) : 0.0; }
static inline double gl_json_number(const gl_json *v)
{
    return gl_json_is_integer(v) ? (double)v->u.i : gl_json_real(v);
}

/* ---- the document ---------------------------------------------------------- */

typedef struct gl_buffer {
    int loaded;
    const unsigned char *data;   /* borrowed (GLB chunk) or owned */
    unsigned char *owned;
    size_t len;                  /* byteLength */
} gl_buffer;

typedef struct gl_view {
    int decoded;                 /* EXT_meshopt_compression decoded into owned */
    unsigned char *owned;
    int ready;                   /* data/len/stride below are checked and kept */
    int stride;
    const unsigned char *data;
    size_t len;
} gl_view;

/* An accessor's header as read once from the JSON (gltf_accessor.c). */
typedef struct gl_acc_head {
    int ready;
    int count, comps, ctype, normalized, type_mask;
    const unsigned char *data;   /* first element, or NULL (zeros) */
    size_t stride;               /* bytes between elements */
    gl_json *sparse;
    int finite;                  /* FLOAT data checked finite (without sparse) */
} gl_acc_head;

/* A top-level array looked up once. */
typedef struct gl_top_entry {
    const char *key;
    gl_json *arr;
    int count;
} gl_top_entry;

#define GL_TOP_CACHE 24

typedef struct gl_doc {
    const char *name;            /* file name used in messages */
    char *dir;                   /* the model's folder: the only one external URIs may name */
    char *text;                  /* the JSON, parsed in place (owned) */
    gl_json *root;               /* in arena */
    gl_chunk *arena;
    const unsigned char *bin;    /* GLB BIN chunk or NULL */
    size_t bin_len;
    int buffer_count, view_count;
    gl_buffer *buffers;
    gl_view *views;
    int accessor_count;
    gl_acc_head *accessors;      /* per accessor, filled on first use */
    int top_count;
    gl_top_entry tops[GL_TOP_CACHE];
    size_t input_bytes;          /* the file plus every external buffer read */
    size_t spent, budget;        /* bytes allocated from file-driven counts, and the cap */
    mr_error *err;
    mr_model *model;
} gl_doc;

/* The budget: what the reader may allocate from counts in the file is
 * GL_BUDGET_FACTOR x (the file's bytes plus external buffers) + GL_BUDGET_CONST. */
#define GL_BUDGET_FACTOR 6
#define GL_BUDGET_CONST ((size_t)2 << 20)

/* "gltf: NAME: PATH: message" (PATH a JSON pointer such as /accessors/3/count,
 * or NULL); returns MR_ERR_BAD_FILE, or status for gl_fail_status. */
mr_status gl_fail(gl_doc *d, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
mr_status gl_fail_status(gl_doc *d, mr_status status, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Zeroed count*size bytes charged to the budget (MR_ERR_LIMIT beyond it,
 * with a message naming path). */
mr_status gl_alloc(gl_doc *d, const char *path, size_t count, size_t size, void *out_ptr);
/* The same, not zeroed (for buffers about to be filled). */
mr_status gl_alloc_raw(gl_doc *d, const char *path, size_t count, size_t size, void *out_ptr);
/* Charges count*size bytes allocated elsewhere (mr_mesh_init, clips). */
mr_status gl_charge(gl_doc *d, const char *path, size_t count, size_t size);

/* Parses the container: GLB header and chunks, or plain JSON. */
mr_status gl_doc_open(gl_doc *d, const char *name, const unsigned char *buf, size_t len, mr_error *err);
void gl_doc_close(gl_doc *d);

/* Writes prefix, the decimal i and suffix (suffix may be NULL) into buf:
 * the JSON paths of messages, without printf's cost on the hot path. */
const char *gl_path(char *buf, size_t cap, const char *prefix, long long i, const char *suffix);

/* Member access. Each checks the JSON type and fails with path/key and what
 * was expected. "Optional" getters leave *out unchanged when the member is
 * absent. */
#define GL_REQUIRED 1
#define GL_OPTIONAL 0
/* Top-level array by name (absent: *out NULL, count 0). */
mr_status gl_top(gl_doc *d, const char *key, gl_json **out, int *count);
/* Element i of top-level array key, which must be an object. */
mr_status gl_elem(gl_doc *d, const char *key, int i, const char *from, gl_json **out);
mr_status gl_obj(gl_doc *d, gl_json *o, const char *path, const char *key, int required, gl_json **out);
mr_status gl_arr(gl_doc *d, gl_json *o, const char *path, const char *key, int required, gl_json **out);
mr_status gl_int(gl_doc *d, gl_json *o, const char *path, const char *key, int required, long long min,
                 long long max, long long *out);
/* An index into top-level array `into` (checked in range). */
mr_status gl_ref(gl_doc *d, gl_json *o, const char *path, const char *key, int required, const char *into,
                 int *out);
mr_status gl_num(gl_doc *d, gl_json *o, const char *path, const char *key, int required, double *out);
/* Exactly n numbers (finite). */
mr_status gl_nums(gl_doc *d, gl_json *o, const char *path, const char *key, int required, int n, float *out);
mr_status gl_str(gl_doc *d, gl_json *o, const char *path, const char *key, int required, const char **out);

/* Bytes of buffer i (loaded on first use). */
mr_status gl_buffer_get(gl_doc *d, int i, const unsigned char **data, size_t *len);
/* Bytes of buffer view i (decoded when EXT_meshopt_compression), its
 * byteStride (0 when absent) and its path for messages. */
mr_status gl_view_get(gl_doc *d, int i, const unsigned char **data, size_t *len, int *stride);

/* Decodes a data: URI's payload (base64) into *out (budgeted); *mime gets
 * a pointer to the media type inside uri (not terminated; *mime_len). */
mr_status gl_data_uri(gl_doc *d, const char *path, const char *uri, unsigned char **out, size_t *len);
/* Resolves a relative URI inside the model's folder (percent-decoded);
 * refuses absolute paths, schemes and "..". New string or NULL + error. */
mr_status gl_local_path(gl_doc *d, const char *path, const char *uri, char **out);

/* ---- accessors (gltf_accessor.c) ---------------------------------------- */

enum { GL_BYTE = 5120, GL_UBYTE = 5121, GL_SHORT = 5122, GL_USHORT = 5123, GL_UINT = 5125, GL_FLOAT = 5126 };

typedef struct gl_accessor {
    int count;
    int comps;           /* 1 SCALAR, 2, 3, 4, 16 MAT4 (9 MAT3, 4 MAT2) */
    int ctype;           /* component type */
    int normalized;
    const float *f;      /* count*comps floats (gl_accessor_floats) */
    const uint32_t *u;   /* count*comps integers (gl_accessor_uints) */
    void *owned;         /* what f or u points to when converted (else they
                          * point into the buffer view: tightly packed
                          * FLOAT / UNSIGNED_INT data is not copied) */
} gl_accessor;

/* Type masks for what a use of an accessor accepts. */
#define GL_T_SCALAR 1
#define GL_T_VEC2 2
#define GL_T_VEC3 4
#define GL_T_VEC4 8
#define GL_T_MAT4 16

/* Reads accessor i as floats (any component type: normalized integers to
 * [0,1] / [-1,1], others by value), applying sparse substitution; NaN and
 * infinities refused. types: accepted GL_T_* mask; float_only: refuse
 * integer types (times, matrices). `use` names the user in messages. */
mr_status gl_accessor_floats(gl_doc *d, int i, int types, int float_only, const char *use, gl_accessor *out);
/* Reads accessor i as unsigned integers (UNSIGNED_BYTE/SHORT/INT, not
 * normalized): indices and JOINTS_n. */
mr_status gl_accessor_uints(gl_doc *d, int i, int types, const char *use, gl_accessor *out);
/* Frees and gives the bytes back to the budget. */
void gl_accessor_free(gl_doc *d, gl_accessor *a);

/* ---- materials (gltf_material.c) ---------------------------------------- */

/* Material i (-1: the default) into out (which holds defaults). */
mr_status gl_material_read(gl_doc *d, int i, mr_material *out, int *uses_texcoord);

/* ---- scene (gltf_scene.c) and animation (gltf_anim.c) ------------------- */

typedef struct gl_scene {
    int node_count;
    int *parent;         /* per node, -1 for roots */
    int *joint;          /* per node: skeleton joint or -1 */
    mat4 *world;         /* per node: rest world matrix */
    int root_count;
    int *roots;          /* nodes of the scene's "nodes" */
    int *mesh_node;      /* per model mesh: the node that placed it (weights channels) */
} gl_scene;

mr_status gl_scene_read(gl_doc *d, gl_scene *s);
void gl_scene_free(gl_scene *s);
mr_status gl_anim_read(gl_doc *d, const gl_scene *s);

/* ---- VRM (gltf_vrm.c) ---------------------------------------------------- */

/* Sets mark[i] for every node i < n a VRM extension names (humanoid bones,
 * spring joints and their subtrees in VRM 0.x, colliders, centres,
 * constrained nodes and their sources): they become joints. */
void gl_vrm_mark_nodes(gl_doc *d, unsigned char *mark, int n);
/* Reads the VRM extensions into d->model->vrm (left NULL without any). */
mr_status gl_vrm_read(gl_doc *d, const gl_scene *s);

#endif
