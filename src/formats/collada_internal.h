/* collada_internal.h — private declarations shared by the collada_*.c files.
 *
 * The reader works in passes over one element tree:
 *   collada_xml.c       parse (libxml2's SAX2 parser, safe options) into an
 *                       arena-allocated tree of cl_el, #id table, errors with
 *                       element path + line, fast number parsing,
 *                       <source>/<accessor>
 *   collada_xml_scan.c  the same tree from a plain document without libxml2
 *                       (what it declines goes to libxml2)
 *   collada_scene.c     visual scene -> flat node instances with transform
 *                       stacks; transform composition and TRS decomposition
 *   collada_material.c  materials, effects, images, texture path lookup
 *   collada_geometry.c  <mesh> primitives -> triangle meshes (de-duplicated)
 *   collada_skin.c      <controller><skin> -> joints, inverse binds, weights
 *   collada_anim.c      samplers, channels, curve evaluation, clips -> tracks
 *   collada_read.c      assembly into mr_model and the Y-up metre conversion
 * Everything here is file-space (the document's axes and unit) unless a name
 * says otherwise; collada_read.c converts once at the end.
 */
#ifndef MR_FORMATS_COLLADA_INTERNAL_H
#define MR_FORMATS_COLLADA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "anim/model.h"
#include "core/error.h"

/* ---- document, ids, errors (collada_xml.c) ---------------------------- */

/* One element of the document. The tree is built by collada_xml_scan.c
 * from a plain document's bytes, or by collada_xml.c from libxml2's SAX2
 * events, into an arena owned by the cl_doc (no libxml2 DOM, nothing freed
 * per element): elements only, with their attributes and their character
 * data joined. */
typedef struct cl_attr_kv {
    const char *name;    /* local name (prefix dropped) */
    const char *value;   /* entity and character references decoded */
} cl_attr_kv;

typedef struct cl_el {
    const char *name;    /* local name (namespace prefix dropped) */
    const char *ns;      /* namespace URI or NULL */
    struct cl_el *parent, *first, *next;  /* first child element, next sibling element */
    cl_attr_kv *attrs;
    int attr_count;
    int line;            /* line of the start tag (libxml2's count) */
    const char *text;    /* character data (text and CDATA, NUL-terminated) */
    size_t text_len;
    void *cache;         /* what a reader parsed from it (array, sampler) */
} cl_el;

/* Parsed arrays hang off cl_el.cache so each is parsed once. */
typedef struct cl_array {
    int kind;            /* CL_ARRAY_FLOAT or CL_ARRAY_NAME */
    size_t count;
    float *f;            /* count floats */
    char **names;        /* count tokens (pointers into buf) */
    char *buf;
} cl_array;

enum { CL_ARRAY_FLOAT = 1, CL_ARRAY_NAME };

typedef struct cl_id {
    const char *id;
    cl_el *node;
} cl_id;

typedef struct cl_block cl_block;  /* arena block (collada_xml.c) */

/* A model mesh made from a <morph>: collada_read.c records one per mesh
 * with morph targets so that collada_anim.c can give weight channels aimed
 * at the morph's controller to those meshes. */
typedef struct cl_morph_mesh {
    const cl_el *morph;  /* the <morph> */
    int mesh;            /* index into the model's meshes */
    int targets;         /* its target count */
} cl_morph_mesh;

typedef struct cl_doc {
    const char *name;    /* file name used in messages */
    char *dir;           /* directory of the file (texture lookup) */
    cl_el *root;         /* <COLLADA> */
    cl_block *arena;     /* elements, attributes, text, parsed arrays */
    size_t arena_first;  /* size of the first block */
    void *dict;          /* libxml2's name dictionary (its names), NULL when the scanner built the tree */
    int version_major, version_minor;
    cl_id *ids;          /* open-addressing table, ids_cap a power of two */
    size_t ids_cap, ids_count;
    size_t ids_first;    /* first size of the table */
    mr_error *err;
    mr_model *model;     /* receives warnings */
    mr_up_axis up;       /* <asset><up_axis> of the root asset */
    double meter;        /* <asset><unit meter> */
    long decimal_comma;  /* line of a <unit meter> written with a decimal comma, else 0 */
    int decimal_comma_warned;
    cl_morph_mesh *morph_meshes;  /* owned (freed by cl_doc_close) */
    int morph_mesh_count;
    size_t morph_mesh_cap;
    struct cl_texture_seen *textures_seen;  /* cl_texture_path's answers, in the arena */
} cl_doc;

/* Parses buf as a COLLADA document into the cl_el tree, filling the #id
 * table as elements start: a plain document by cl_scan_tree, anything it
 * declines by libxml2's SAX2 parser (XML_PARSE_NONET, no entity
 * substitution, no DTD loading; libxml2's own output silenced), which also
 * words every refusal. Checks the root element and version and reads the
 * root asset. On failure err is set and the doc is closed. */
mr_status cl_doc_open(cl_doc *d, const char *name, const char *buf, size_t len, mr_error *err);
/* cl_doc_open with the parser chosen (for the tests and fuzz_collada, which
 * compare the two): CL_XML_AUTO is cl_doc_open's; CL_XML_SCANNER fails with
 * "declined" where CL_XML_AUTO would fall back. */
typedef enum { CL_XML_AUTO, CL_XML_LIBXML2, CL_XML_SCANNER } cl_xml_parser;
mr_status cl_doc_open_with(cl_doc *d, const char *name, const char *buf, size_t len, mr_error *err,
                           cl_xml_parser parser);
void cl_doc_close(cl_doc *d);
/* The libxml2 parser options cl_doc_open uses (exposed for the tests). */
int cl_xml_options(void);

/* The arena every tree lives in (freed by cl_doc_close; 16-byte aligned
 * blocks) and the #id table (the first element of an id wins). */
void *cl_arena_alloc(cl_doc *d, size_t n);
char *cl_arena_strndup(cl_doc *d, const char *s, size_t n);  /* n bytes and a NUL */
mr_status cl_ids_insert(cl_doc *d, const char *id, cl_el *node);
/* 1 when the n bytes at p are all XML white space (or n is 0). */
int cl_all_space(const char *p, size_t n);

/* ---- the parse of plain documents (collada_xml_scan.c) ------------------ */

/* Builds d's tree from a plain document (UTF-8, no DOCTYPE, CDATA or
 * processing instructions, ASCII names, bound prefixes, the predefined
 * entities and character references; see the file) exactly as the libxml2
 * path builds it, or declines anything else, leaving what it built in the
 * arena and the id table for the caller to drop. */
typedef enum { CL_SCAN_BUILT, CL_SCAN_DECLINED, CL_SCAN_NO_MEMORY } cl_scan_result;
cl_scan_result cl_scan_tree(cl_doc *d, const char *buf, size_t len);
/* The first byte at or after p that text scanning stops at ('<', '&', ']',
 * bytes below 0x20 but tab and LF, bytes above 0x7F), or end; *lines gets
 * the LFs before it. cl_scan_text is the SSE2 form where the build has it;
 * the tests hold it to the portable one. */
const char *cl_scan_text(const char *p, const char *end, int *lines);
const char *cl_scan_text_portable(const char *p, const char *end, int *lines);

/* "collada: NAME: /COLLADA/.../elem[@id='x'] (line N): message"; returns
 * MR_ERR_BAD_FILE (or `status` for cl_fail_status). at may be NULL. */
mr_status cl_fail(cl_doc *d, const cl_el *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
mr_status cl_fail_status(cl_doc *d, mr_status status, const cl_el *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Element path of n into buf (always NUL-terminated). */
void cl_path(const cl_el *n, char *buf, size_t cap);
long cl_line(const cl_el *n);

/* Element helpers: local names only (namespaces ignored). */
int cl_is(const cl_el *n, const char *name);
cl_el *cl_child(const cl_el *n, const char *name);           /* first element child named */
cl_el *cl_next(const cl_el *n, const char *name);            /* next element sibling named */
cl_el *cl_first_elem(const cl_el *n);                       /* first element child */
cl_el *cl_next_elem(const cl_el *n);                        /* next element sibling */
const char *cl_attr(const cl_el *n, const char *name);         /* value or NULL, no copy */

/* Character data of an element (its text and CDATA pieces joined; entity
 * references are not text). Points into the tree; *owned is always set to
 * NULL (kept so callers free nothing by mistake when that changes). */
const char *cl_text(const cl_el *n, size_t *len, char **owned);

/* Resolves a "#id" URI (percent-decoded when needed) to an element; NULL
 * when dangling. cl_ref reads attribute attr of `at` (or its text when attr
 * is NULL) and fails with a message when the reference is missing, external,
 * dangling or names an element other than `want` (NULL: any). */
cl_el *cl_lookup(cl_doc *d, const char *uri);
cl_el *cl_find_id(cl_doc *d, const char *id, size_t len);
mr_status cl_ref(cl_doc *d, cl_el *at, const char *attr, const char *want, cl_el **out);

/* Arrays. cl_floats parses a <float_array> (count checked, NaN/inf refused;
 * each number rounded once, to the nearest float); cl_names a
 * <Name_array>/<IDREF_array>. Results are cached on el->cache and live in
 * d's arena. */
mr_status cl_floats(cl_doc *d, cl_el *array, const cl_array **out);
mr_status cl_names(cl_doc *d, cl_el *array, const cl_array **out);
/* Parses exactly n floats from the element's text (matrix, translate, ...). */
mr_status cl_fixed_floats(cl_doc *d, cl_el *el, float *out, int n);
/* Parses the element's floats, storing the first max into out; *got gets
 * how many it holds (colours: 3 or 4). */
mr_status cl_some_floats(cl_doc *d, cl_el *el, float *out, int max, long *got);
/* Parses whitespace-separated integers (>= min_value) into a new array
 * (*out freed by caller); *count gets how many. */
mr_status cl_ints(cl_doc *d, cl_el *el, int min_value, int **out, size_t *count);

/* A <source> seen through its <accessor>: element k, component c is
 * f[k * stride + c] (c < stride), or names[k * stride] for name sources. */
typedef struct cl_source {
    cl_el *el;         /* the <source> */
    int count, stride;
    const float *f;      /* NULL for name sources */
    char *const *names;  /* NULL for float sources */
} cl_source;

/* Reads source element src (expects a float array when want_names is 0,
 * a Name/IDREF array otherwise) and checks stride >= min_stride and that
 * the accessor stays inside the array. */
mr_status cl_source_read(cl_doc *d, cl_el *src, int want_names, int min_stride, cl_source *out);
/* Same through an <input source="#..."> element. */
mr_status cl_input_source(cl_doc *d, cl_el *input, int want_names, int min_stride, cl_source *out);

/* Integer attribute with a default; fails on junk or a value < min. */
mr_status cl_int_attr(cl_doc *d, cl_el *el, const char *name, long dflt, long min, long *out);


/* ---- scene and transforms (collada_scene.c) ---------------------------- */

enum { CL_XF_MATRIX = 1, CL_XF_TRANSLATE, CL_XF_ROTATE, CL_XF_SCALE, CL_XF_LOOKAT, CL_XF_SKEW };

typedef struct cl_xform {
    int type;
    int n;               /* value count: 16, 3, 4, 3, 9, 7 */
    float v[16];         /* document values (matrix row-major, rotate axis+degrees) */
    cl_el *el;
} cl_xform;

/* One node instance in the scene (library nodes instanced twice appear
 * twice). Nodes are in depth-first document order: parent < child. */
typedef struct cl_node {
    cl_el *el;         /* the <node> */
    int parent;          /* index or -1 */
    const char *id, *sid, *name;
    int is_joint;        /* type="JOINT" */
    int xf_count;
    cl_xform *xf;        /* transform stack in document order */
    mat4 local;          /* composed rest transform (file space) */
    mat4 world;          /* rest world (file space) */
    int end;             /* one past the last node of this node's subtree */
    int joint;           /* skeleton index, -1 when not in the skeleton */
    int needed;
} cl_node;

/* An <instance_geometry> or <instance_controller> found in the scene. */
typedef struct cl_instance {
    cl_el *el;
    int node;            /* node holding it */
    int is_controller;
} cl_instance;

typedef struct cl_scene {
    int node_count;
    size_t node_cap;
    cl_node *nodes;
    int inst_count;
    size_t inst_cap;
    cl_instance *insts;
    cl_el *visual_scene;
    void *index;         /* sid/id/name lookup tables (collada_scene.c) */
} cl_scene;

mr_status cl_scene_build(cl_doc *d, cl_scene *s);
void cl_scene_free(cl_scene *s);
/* First node (depth-first order) whose sid, id or name (field 0, 1, 2)
 * equals key, inside the subtree of one of the roots (node indices; a root
 * of -1, or roots == NULL, means the whole scene). -1 when none. */
int cl_scene_find(const cl_scene *s, const int *roots, int root_count, const char *key, int field);
/* Next node after i (depth-first order) with the same key in that field. */
int cl_scene_next(const cl_scene *s, int i, int field);

/* Transform math (file space). */
void cl_xform_matrix(const cl_xform *x, const float *values, mat4 out);
void cl_stack_matrix(const cl_xform *xf, int count, const float *const *values, mat4 out);
/* Row-major 16 floats -> cglm column-major. */
void cl_mat_from_rows(const float *rows, mat4 out);

/* ---- materials (collada_material.c) ------------------------------------ */

/* Fills mat from the <material> element (effect colours, diffuse texture
 * resolved beside the model). Never fails on missing pieces: defaults and
 * warnings instead; fails only on malformed data. */
mr_status cl_material_read(cl_doc *d, cl_el *material, mr_material *mat);
/* Resolves an image reference to a path that exists beside the model, or
 * the joined path plus a warning. New string. A reference is resolved (and
 * warned about) once per document; asking again gives the same answer. */
char *cl_texture_path(cl_doc *d, const char *ref, cl_el *at);

/* ---- geometry (collada_geometry.c) -------------------------------------- */

/* One triangle list built from a primitive: vertices de-duplicated per
 * unique index tuple, file-space positions. */
typedef struct cl_prim {
    mr_mesh mesh;        /* positions/normals/uvs/indices, no joints yet */
    int *pos_index;      /* per vertex: index into the <vertices> positions */
    int has_normals;
    const char *symbol;  /* material symbol of the primitive (may be NULL) */
    cl_el *el;
} cl_prim;

typedef struct cl_geometry {
    int prim_count;
    cl_prim *prims;
    int position_count;  /* size of the POSITION source */
    const char *name;
} cl_geometry;

mr_status cl_geometry_read(cl_doc *d, cl_el *geometry, cl_geometry *g);
void cl_geometry_free(cl_geometry *g);

/* ---- skin (collada_skin.c) ---------------------------------------------- */

/* Skin weights: an influence on joint -1, and whatever the weights of a
 * vertex leave short of 1 (by more than CL_BIND_SHAPE_EPS), stay on the
 * bind shape: the mesh as its own node places it, without the bind shape
 * matrix. That is how the Khronos conformance references treat
 * un-normalised weights (skin_4_influence). Weights adding up to more than
 * 1 are normalised. */
#define CL_BIND_SHAPE_EPS 1e-3f

typedef struct cl_skin {
    cl_el *controller, *skin_el, *geometry;
    mat4 bind_shape;     /* file space */
    int joint_count;
    int *joint_node;     /* scene node per skin joint */
    mat4 *inv_bind;      /* per skin joint, file space */
    int vertex_count;    /* = positions in the base mesh */
    int *offsets;        /* vertex_count + 1: influences of vertex v are [offsets[v], offsets[v+1]) */
    int *joints;         /* skin joint index, -1 = bind shape */
    float *weights;
    int uses_bind_shape; /* some weight stays on the bind shape */
    cl_el *morph;        /* the <morph> the instance shows (a morph controller, or the
                          * one a skin's source names), or NULL */
} cl_skin;

/* Reads the controller instanced by inst (an <instance_controller>), binds
 * its joints to scene nodes through the <skeleton> roots. */
mr_status cl_skin_read(cl_doc *d, const cl_scene *s, const cl_instance *inst, cl_skin *skin);
void cl_skin_free(cl_skin *skin);

/* ---- morph (collada_morph.c) ------------------------------------------- */

/* A <morph> controller read against its base geometry: per target a
 * file-space position delta per base POSITION entry (NORMALIZED targets
 * minus the base; RELATIVE targets as given), so that the morphed position
 * of source entry i is base[i] + sum_k w_k * deltas[k][i] under both
 * methods (COLLADA 1.4.1, <morph>). Targets must be <geometry> meshes
 * whose POSITION source has as many entries as the base's (they share the
 * base's index streams, as the spec requires). Normal deltas are not read. */
typedef struct cl_morph {
    int count;           /* targets (>= 1) */
    int position_count;  /* entries per target */
    vec3 *deltas;        /* count * position_count (owned) */
    const char **names;  /* count target names (geometry name, else id; in the doc's arena) */
    float *weights;      /* count default weights (owned) */
} cl_morph;

/* room: the bytes of deltas the file's mesh budget has left (one target
 * geometry named many times must not decode to gigabytes); more is refused
 * with MR_ERR_LIMIT at the <morph>. */
mr_status cl_morph_read(cl_doc *d, cl_el *morph, int position_count, size_t room, cl_morph *out);
void cl_morph_free(cl_morph *m);

/* ---- animation (collada_anim.c) ----------------------------------------- */

/* Builds the model's clips from <library_animations> and
 * <library_animation_clips>. Tracks are file-space until
 * cl_anim_convert-like handling in collada_read.c: this function takes the
 * conversion (conjugation by conv, translation scaled) itself so tracks come
 * out in the model frame. size is the model extent (file units) used for
 * the resampling tolerance. */
typedef struct cl_frame_conv {
    mat3 rot;            /* file axes -> Y-up axes (signed permutation) */
    float scale;         /* metres per file unit */
    double meter;        /* the same in double, for single-rounding conversions */
    int identity_rot;    /* Y_UP: rot is the identity */
} cl_frame_conv;

mr_status cl_anim_read(cl_doc *d, const cl_scene *s, const cl_frame_conv *conv, float size,
                       mr_model *model);

/* Local rest matrix of a node converted to the model frame. */
void cl_conv_matrix(const cl_frame_conv *c, const mat4 in, mat4 out);

#endif
