/* fbx_internal.h — what the FBX scene builder's files share (not public).
 *
 * fbx_parse.c gives the document tree; fbx_objects.c indexes its objects,
 * connections and properties (with the Definitions' templates); fbx_xform.c
 * is FBX's transform model; fbx_curve.c evaluates animation curves;
 * fbx_geometry.c builds meshes, skins and blend shapes; fbx_anim.c bakes
 * every stack (7.x) or take (6.x) into clips; fbx_read.c puts it together
 * (fbx.h says what comes out).
 */
#ifndef MR_FORMATS_FBX_INTERNAL_H
#define MR_FORMATS_FBX_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "anim/model.h"
#include "formats/fbx_parse.h"

/* FBX time: ticks per second. */
#define FBX_TICKS 46186158000.0

/* Samples per frame of the file's frame rate when baking a stack. */
#define FBX_OVERSAMPLE 4

/* The most samples one clip is baked at (a bound against hostile stacks). */
#define FBX_MAX_SAMPLES 200000

typedef struct fbx_obj {
    int64_t id;
    const mr_fbx_node *node;
    const char *cls;             /* the record's name: "Model", "Geometry", "Deformer", ... */
    const char *name;            /* the object's name (Name of "Name\0\1Class", or after "Class::"); owned by the scene */
    const char *sub;             /* its type: "Mesh", "LimbNode", "Skin", "Cluster", "Shape", ... ("" when none) */
} fbx_obj;

typedef struct fbx_conn {
    int child, parent;           /* object indices; parent -1: the scene root */
    const char *prop;            /* "OP" property name, or NULL */
} fbx_conn;

/* A curve: key times (seconds), values and FBX's per-key interpolation. */
typedef struct fbx_curve {
    int count;
    double *t;                   /* seconds, ascending */
    float *v;
    uint32_t *flags;             /* KeyAttrFlags per key */
    float (*data)[4];            /* as read: RightSlope, NextLeftSlope, weights (packed), velocity; NULL once read */
    float (*tan)[4];             /* solved: left slope, left weight, right slope, right weight */
    int pre_mode, post_mode;     /* extrapolation: 'C' constant, 'R' repeat, 'A' repeat relative, 'M' mirror, 'K' keep slope */
    int pre_count, post_count;   /* repetitions, -1 without end */
    int hint;                    /* the segment the last evaluation used (a cache) */
} fbx_curve;

/* An animated property: up to 3 curves and the curve node's defaults. */
typedef struct fbx_anim_prop {
    const fbx_curve *c[3];
    double def[3];
} fbx_anim_prop;

enum { FBX_T, FBX_R, FBX_S, FBX_PROP_COUNT };

/* A node's transform properties (fbx_xform.c). */
typedef struct fbx_xf {
    double t[3], r[3], s[3];
    double roff[3], rp[3], pre[3], post[3], soff[3], sp[3];
    double gt[3], gr[3], gs[3];
    double pre_m[9], post_t[9];  /* Rpre and Rpost^-1 as 3x3 matrices (set by fbx_xf_read) */
    int order;                   /* RotationOrder 0..6 */
    int inherit;                 /* InheritType 0 RrSs, 1 RSrs, 2 Rrs */
} fbx_xf;

/* One blend shape channel on one marrow mesh: its targets and full weights. */
typedef struct fbx_blend {
    int mesh;                    /* model mesh index */
    int channel_obj;             /* BlendShapeChannel object */
    int target, count;           /* its shapes: targets target .. target+count-1 */
    double full[32];             /* FullWeights (percent) per shape */
} fbx_blend;

/* A Maya geometry cache's positions channel (fbx_cache.c). */
/* A cache's frames become morph targets, and a clip's weight channel holds
 * frames x frames weights: at most this many frames, and frames x points. */
#define FBX_CACHE_MAX_FRAMES 1024
#define FBX_CACHE_MAX_POINTS (4 * 1024 * 1024)
typedef struct fbx_pcache {
    int frames;                  /* 0: none */
    size_t points;               /* per frame: the mesh's control points */
    double *times;               /* frames, seconds, ascending */
    float *pos;                  /* frames * points * 3: the geometry's own space */
    char *channel;
} fbx_pcache;

/* A marrow mesh whose morph targets first .. first + frames - 1 are a
 * geometry cache's frames at times (owned by the scene). */
typedef struct fbx_mcache {
    int mesh, first, frames;
    double *times;
} fbx_mcache;

typedef struct fbx_scene {
    const mr_fbx_doc *doc;
    const char *path;
    mr_error *err;
    mr_model *model;
    int v6;                      /* 5.x/6.x layout (names as ids, Takes) */
    int legacy;                  /* 5.x layout: top-level models, no Objects/Connections (fbx_legacy.c) */
    int blender;                 /* a binary file Blender wrote (its own FullWeights convention) */
    fbx_obj *objs;
    int obj_count;
    int *by_id;                  /* object indices sorted by id */
    fbx_conn *conns;
    int conn_count;
    int *conn_by_parent;         /* connection indices sorted by parent (stable) */
    int *conn_by_child;          /* ... by child */
    const mr_fbx_node *settings; /* GlobalSettings' properties node, or NULL */
    double fps;
    /* Models as joints */
    int node_count;              /* Model objects that became joints */
    int *node_obj;               /* per joint: object index */
    int *obj_joint;              /* per object: joint index or -1 */
    int *scale_from;             /* per joint: whose accumulated scale it inherits (RrSs: its parent; Rrs: its
                                  * parent's scale_from), -1 for none */
    int *fbx_parent;             /* per joint: its FBX parent joint, -1 for a root (the skeleton's parent
                                  * is -1 too for a joint kept detached, see fbx_read.c) */
    fbx_xf *xf;                  /* per joint: static transform */
    double (*rest_world)[16];    /* per joint: world matrix at rest */
    double (*unscaled)[16];      /* per joint: scratch of fbx_eval_worlds (world without scale) */
    double (*acc_scale)[3];      /* per joint: scratch of fbx_eval_worlds (accumulated scale) */
    /* per joint: animated T/R/S of the current stack (NULL c: static) */
    fbx_anim_prop (*anim)[FBX_PROP_COUNT];
    fbx_blend *blends;
    int blend_count;
    fbx_mcache *mcaches;
    int mcache_count;
    char **owned;                /* names the scene allocated */
    int owned_count, owned_cap;
} fbx_scene;

/* ---- fbx_objects.c ---- */
mr_status fbx_fail(fbx_scene *s, const mr_fbx_node *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
mr_status fbx_index(fbx_scene *s);
void fbx_scene_free(fbx_scene *s);
int fbx_find(const fbx_scene *s, int64_t id);
/* Connections whose parent is obj (children/sources): fills *first and
 * returns the count; they are s->conn_by_parent[first .. first+count). */
int fbx_children(const fbx_scene *s, int obj, int *first);
int fbx_parents(const fbx_scene *s, int obj, int *first);
/* The first object of class cls (and sub when not NULL) connected to obj as
 * a child (child = 1) or as a parent (child = 0); -1 when none. */
int fbx_linked(const fbx_scene *s, int obj, int child, const char *cls, const char *sub);
/* The property node ("P"/"Property") called name of obj (its own, else its
 * class template's), or NULL; *first gets the index of its first value. */
const mr_fbx_node *fbx_prop(const fbx_scene *s, int obj, const char *name, uint32_t *first);
double fbx_prop_num(const fbx_scene *s, int obj, const char *name, double def);
void fbx_prop_vec3(const fbx_scene *s, int obj, const char *name, const double def[3], double out[3]);
const char *fbx_prop_str(const fbx_scene *s, int obj, const char *name);
/* The same for a settings-like node (GlobalSettings, Document) by its
 * property list. */
const mr_fbx_node *fbx_node_prop(const mr_fbx_node *props, const char *name, uint32_t *first);
double fbx_node_prop_num(const mr_fbx_node *props, const char *name, double def);
/* Doubles / ints of a child array node of obj's record; NULL count 0 when absent. */
mr_status fbx_array_d(fbx_scene *s, const mr_fbx_node *n, const char *child, const double **out, size_t *count);
mr_status fbx_array_i(fbx_scene *s, const mr_fbx_node *n, const char *child, const int64_t **out, size_t *count);
char *fbx_keep(fbx_scene *s, char *str);
/* The id of a 6.x object named "Class::Name" (a hash of the name; bit 62 set). */
int64_t fbx_name_id(const char *p, size_t n);

/* ---- fbx_legacy.c ---- */
/* Objects and connections of a 5.x file (fbx_index's sort helpers passed in). */
mr_status fbx_index_legacy(fbx_scene *s, int (*by_id)(const void *, const void *), void (*sort_conns)(fbx_scene *));
/* A 5.x model's rest T/R/S: its own Transform channel defaults, else the current take's. */
void fbx_legacy_rest(const fbx_scene *s, int obj, fbx_xf *x);
/* A 5.x blend channel's DeformPercent: its model's `Channel: "Name (Shape)"` default. */
double fbx_legacy_deform(const fbx_scene *s, int channel);   /* records an owned string; returns it (NULL when out of memory) */

/* ---- fbx_xform.c (matrices: double[16], column-major as cglm) ---- */
void fbx_xf_read(const fbx_scene *s, int obj, fbx_xf *out);
void fbx_m_identity(double m[16]);
void fbx_m_mul(const double a[16], const double b[16], double out[16]);
int fbx_m_inverse(const double m[16], double out[16]);
void fbx_m_euler(const double deg[3], int order, double out[16]);
/* m times the point p (w 1) and the vector p (w 0): inline, a call a
 * control point and a corner was a third of their cost */
static inline void fbx_m_point(const double m[16], const double p[3], double out[3])
{
    double r[3];
    for (int i = 0; i < 3; i++) r[i] = m[i] * p[0] + m[4 + i] * p[1] + m[8 + i] * p[2] + m[12 + i];
    memcpy(out, r, sizeof r);
}
static inline void fbx_m_vector(const double m[16], const double p[3], double out[3])
{
    double r[3];
    for (int i = 0; i < 3; i++) r[i] = m[i] * p[0] + m[4 + i] * p[1] + m[8 + i] * p[2];
    memcpy(out, r, sizeof r);
}
void fbx_m_from_floats(const double *src16, double out[16]);
/* The node's local matrix from its (possibly animated) T, R, S. */
void fbx_xf_local(const fbx_xf *xf, const double t[3], const double r[3], const double sc[3], double out[16]);
/* The local matrix's rotation Rpre * R * Rpost^-1 (3x3, column-major) and
 * translation (pivots and offsets folded in): local = [rr * diag(sc) | tr]. */
void fbx_xf_parts(const fbx_xf *x, const double t[3], const double r[3], const double sc[3], double rr[9], double tr[3]);
/* The geometric transform (mesh only). */
void fbx_xf_geometry(const fbx_xf *xf, double out[16]);
/* Splits an affine matrix into translation, unit quaternion (x y z w) and scale. */
void fbx_m_decompose(const double m[16], vec3 t, versor q, vec3 sc);

/* ---- fbx_curve.c ---- */
double fbx_curve_eval(const fbx_curve *c, double t);
/* fbx_curve_eval at t strictly between keys i and i + 1 (the caller knows
 * the segment: a walk along ascending times), without the search. */
double fbx_curve_eval_segment(const fbx_curve *c, int i, double t);
/* Whether c evaluates to c->v[0] at every time: every key holds that value
 * and every tangent is flat (so extrapolation keeps it too). */
int fbx_curve_constant(const fbx_curve *c);
/* The polynomial that c follows in [ta, tb], when one key segment holds
 * that span (its end key after tb) and its time is linear (constant,
 * linear, or cubic with the default 1/3 weights): c(t) = p[0] + u (p[1] +
 * u (p[2] + u p[3])) for u = (t - *t0) * *inv_dx, what fbx_curve_eval
 * gives within rounding. Returns 0 (nothing set) otherwise: the span
 * crosses a key, leaves the keys, or needs the time solve. */
int fbx_curve_span_poly(const fbx_curve *c, double ta, double tb, double *t0, double *inv_dx, double p[4]);
mr_status fbx_curve_read(fbx_scene *s, int obj, fbx_curve *out);
mr_status fbx_curve_read_v6(fbx_scene *s, const mr_fbx_node *channel, fbx_curve *out, int *has);
void fbx_curve_free(fbx_curve *c);

/* ---- fbx_geometry.c ---- */
mr_status fbx_meshes_build(fbx_scene *s);

/* The targets' weights of blend channel b for DeformPercent d (0..100):
 * piecewise linear between in-between shapes (and 0 at 0) into w (the
 * mesh's weights, only b's targets written). */
void fbx_blend_weights(const fbx_blend *b, double d, float *w);
/* A channel's static DeformPercent (property, else the 7.x child node). */
double fbx_deform_percent(const fbx_scene *s, int channel);

/* ---- fbx_cache.c ---- */
/* The positions of the geometry cache on owner (a Geometry or Model) for
 * its cps control points, into out (frames 0: none, or one that is not
 * read, with a warning). Fails on a data file that breaks its structure
 * or on running out of memory. */
mr_status fbx_pcache_read(fbx_scene *s, int owner, size_t cps, fbx_pcache *out);
void fbx_pcache_free(fbx_pcache *c);

/* ---- fbx_anim.c ---- */
/* Marks in out (node_count) the joints whose scale is ever non-uniform:
 * static Lcl Scaling, or the key values of any stack's or take's scaling
 * curves. */
mr_status fbx_nonuniform_scales(fbx_scene *s, char *out);
mr_status fbx_clips_build(fbx_scene *s);
/* Evaluates every joint's world matrix at time t (seconds) with the current
 * s->anim bindings (NULL: rest) into worlds (node_count). */
void fbx_eval_worlds(const fbx_scene *s, double t, int animated, double (*worlds)[16], double (*locals)[16]);
/* A joint's local matrix for marrow (parent joint space to joint space):
 * the FBX local matrix when the node composes plainly (InheritType 1 or a
 * root), else parent world^-1 * world. */
void fbx_joint_local(const fbx_scene *s, int j, double (*worlds)[16], double (*locals)[16], double out[16]);
/* 1 when joint j is flagged in the skeleton's scale_comp (fbx_read.c): its
 * marrow local keeps FBX's rotation and scale, only its translation is
 * taken out of the parent's scale. */
static inline int fbx_scale_comp(const fbx_scene *s, int j)
{
    const unsigned char *f = s->model->skeleton.scale_comp;
    return f && f[j];
}

#endif
