/* fbx_geometry.c — FBX meshes (Geometry "Mesh", or the 6.x Model's own
 * arrays) into mr_mesh: polygons, layers, materials and textures, skins
 * (Skin + Cluster deformers) and blend shapes (BlendShape + channels +
 * Shape geometries). Rules in fbx.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/morph.h"
#include "core/alloc.h"
#include "core/path.h"
#include "core/str.h"
#include "formats/fbx_internal.h"

#define MAX_CP_INFLUENCES 64

static mr_status oom(fbx_scene *s)
{
    return mr_error_set(s->err, MR_ERR_NO_MEMORY, "fbx: %s: out of memory", s->path);
}

/* ---- layers ---- */

typedef struct layer {
    const mr_fbx_node *node;
    int mapping;                 /* 0 per corner, 1 per control point, 2 per polygon, 3 all same */
    const double *direct;
    size_t direct_count;
    const int64_t *index;
    const int32_t *index32;      /* the index as stored, when int32 (index NULL then) */
    size_t index_count;
    int width;
    const int64_t *idirect;      /* integer direct values (materials) */
    size_t idirect_count;
} layer;

/* A child's integer array as stored when it is an int32 array (binary
 * files: PolygonVertexIndex, UVIndex), else as fbx_array_i gives it
 * (*out32 NULL): mixamo.fbx's two meshes kept 1.6 MB of int64 copies. */
static mr_status array_i32(fbx_scene *s, const mr_fbx_node *n, const char *child, const int32_t **out32,
                           const int64_t **out64, size_t *count)
{
    const mr_fbx_node *c = mr_fbx_child(n, child);
    *out32 = NULL;
    if (c && c->prop_count >= 1 && c->props[0].type == 'i' && c->props[0].v.array) {
        *out32 = c->props[0].v.array;
        *out64 = NULL;
        *count = c->props[0].count;
        return MR_OK;
    }
    return fbx_array_i(s, n, child, out64, count);
}

static int mapping_of(const mr_fbx_node *n)
{
    const char *m = mr_fbx_prop_string(mr_fbx_child(n, "MappingInformationType"), 0, NULL);
    if (!m) return 0;
    if (!strcmp(m, "ByVertice") || !strcmp(m, "ByVertex")) return 1;
    if (!strcmp(m, "ByPolygon")) return 2;
    if (!strcmp(m, "AllSame")) return 3;
    return 0;
}

static int indexed(const mr_fbx_node *n)
{
    const char *r = mr_fbx_prop_string(mr_fbx_child(n, "ReferenceInformationType"), 0, NULL);
    return r && (!strcmp(r, "IndexToDirect") || !strcmp(r, "Index"));
}

static mr_status read_layer(fbx_scene *s, const mr_fbx_node *g, const char *elem, const char *values, const char *index,
                            int width, layer *out)
{
    memset(out, 0, sizeof *out);
    const mr_fbx_node *n = mr_fbx_child(g, elem);
    if (!n) return MR_OK;
    out->node = n;
    out->width = width;
    out->mapping = mapping_of(n);
    mr_status st;
    if (width > 0) {
        if ((st = fbx_array_d(s, n, values, &out->direct, &out->direct_count)) != MR_OK) return st;
        if (out->direct_count % (size_t)width)
            return fbx_fail(s, mr_fbx_child(n, values), "expected a multiple of %d numbers, got %zu", width, out->direct_count);
        out->direct_count /= (size_t)width;
        if (!out->direct) out->node = NULL;
    } else {
        if ((st = fbx_array_i(s, n, values, &out->idirect, &out->idirect_count)) != MR_OK) return st;
        if (!out->idirect) out->node = NULL;
    }
    if (indexed(n) && index && (st = array_i32(s, n, index, &out->index32, &out->index, &out->index_count)) != MR_OK)
        return st;
    return MR_OK;
}

/* The layer's element index for corner c of polygon p at control point v, or -1. */
static inline long layer_at(const layer *l, size_t c, size_t p, size_t v)
{
    if (!l->node) return -1;
    size_t i = l->mapping == 0 ? c : l->mapping == 1 ? v : l->mapping == 2 ? p : 0;
    if (l->index || l->index32) {
        if (i >= l->index_count) return -1;
        int64_t k = l->index32 ? l->index32[i] : l->index[i];
        if (k < 0) return -1;
        i = (size_t)k;
    }
    size_t n = l->width > 0 ? l->direct_count : l->idirect_count;
    return i < n ? (long)i : -1;
}

/* ---- materials ---- */

static void color_prop(const fbx_scene *s, int obj, const char *name, const char *factor, float out[4])
{
    uint32_t f;
    if (!fbx_prop(s, obj, name, &f)) return;
    double d[3] = {out[0], out[1], out[2]}, c[3];
    fbx_prop_vec3(s, obj, name, d, c);
    double k = factor ? fbx_prop_num(s, obj, factor, 1) : 1;
    for (int i = 0; i < 3; i++) out[i] = (float)(c[i] * k);
}

static char *texture_path(fbx_scene *s, int tex)
{
    const char *rel = fbx_prop_str(s, tex, "RelativeFilename");
    const mr_fbx_node *n = s->objs[tex].node;
    if (!rel || !rel[0]) rel = mr_fbx_prop_string(mr_fbx_child(n, "RelativeFilename"), 0, NULL);
    const char *abs = fbx_prop_str(s, tex, "FileName");
    if (!abs || !abs[0]) abs = mr_fbx_prop_string(mr_fbx_child(n, "FileName"), 0, NULL);
    const char *use = rel && rel[0] ? rel : abs;
    if (!use || !use[0]) return NULL;
    char *fixed = mr_str_dup(use);
    if (!fixed) return NULL;
    for (char *p = fixed; *p; p++)
        if (*p == '\\') *p = '/';
    const char *name = fixed;
    if (!(rel && rel[0]) || fixed[0] == '/' || strstr(fixed, ":/")) name = mr_path_basename(fixed);
    char *dir = mr_path_dirname(s->path);
    char *out = dir ? mr_path_join(dir, name) : NULL;
    free(dir);
    free(fixed);
    return out;
}

/* The texture connected to material property prop, its path and embedded bytes. */
static mr_status texture_of(fbx_scene *s, int mat, const char *prop, char **path, unsigned char **bytes, size_t *len)
{
    int first, n = fbx_children(s, mat, &first);
    for (int k = 0; k < n; k++) {
        const fbx_conn *c = &s->conns[s->conn_by_parent[first + k]];
        if (!c->prop || strcmp(c->prop, prop) || strcmp(s->objs[c->child].cls, "Texture")) continue;
        int tex = c->child;
        *path = texture_path(s, tex);
        int video = fbx_linked(s, tex, 1, "Video", NULL);
        const mr_fbx_node *content = video >= 0 ? mr_fbx_child(s->objs[video].node, "Content") : NULL;
        if (content && content->prop_count >= 1 && content->props[0].type == 'R' && content->props[0].count > 0) {
            *bytes = malloc(content->props[0].count);
            if (!*bytes) return oom(s);
            memcpy(*bytes, content->props[0].v.s, content->props[0].count);
            *len = content->props[0].count;
            char *nm = mr_str_fmt("%s#%s", s->path, s->objs[tex].name);
            free(*path);
            *path = nm;
        }
        return MR_OK;
    }
    return MR_OK;
}

static mr_status read_material(fbx_scene *s, int mat, mr_material *out)
{
    mr_material_defaults(out);
    if (mat < 0) return MR_OK;
    out->name = mr_str_dup(s->objs[mat].name);
    color_prop(s, mat, "DiffuseColor", "DiffuseFactor", out->diffuse);
    if (!fbx_prop(s, mat, "DiffuseColor", NULL)) color_prop(s, mat, "Diffuse", NULL, out->diffuse);
    color_prop(s, mat, "AmbientColor", "AmbientFactor", out->ambient);
    color_prop(s, mat, "SpecularColor", "SpecularFactor", out->specular);
    color_prop(s, mat, "EmissiveColor", "EmissiveFactor", out->emission);
    double shin = fbx_prop_num(s, mat, "ShininessExponent", fbx_prop_num(s, mat, "Shininess", out->shininess));
    if (isfinite(shin) && shin > 0 && shin < 1e4) out->shininess = (float)shin;
    double opacity = fbx_prop_num(s, mat, "Opacity", 1);
    if (isfinite(opacity) && opacity >= 0 && opacity <= 1) out->diffuse[3] = (float)opacity;
    for (int k = 0; k < 4; k++) {
        if (!isfinite(out->diffuse[k])) out->diffuse[k] = 1;
        if (!isfinite(out->ambient[k])) out->ambient[k] = 0;
        if (!isfinite(out->specular[k])) out->specular[k] = 0;
        if (!isfinite(out->emission[k])) out->emission[k] = 0;
    }
    mr_status st = texture_of(s, mat, "DiffuseColor", &out->diffuse_map, &out->diffuse_bytes, &out->diffuse_bytes_len);
    if (st == MR_OK && !out->diffuse_map) st = texture_of(s, mat, "Diffuse", &out->diffuse_map, &out->diffuse_bytes, &out->diffuse_bytes_len);
    if (st == MR_OK) st = texture_of(s, mat, "NormalMap", &out->normal_map, &out->normal_bytes, &out->normal_bytes_len);
    if (out->diffuse_map) for (int k = 0; k < 3; k++) out->diffuse[k] = 1;
    return st;
}

/* ---- skins ---- */

typedef struct skin {
    int *start;                  /* per control point + 1: offsets into joint/weight */
    int *joint;
    float *weight;
    double bind[16];             /* the clusters' Transform: mesh bind world */
    int has_bind;
    int clusters;
    int dq;                      /* SkinningType DualQuaternion (1) or Blend (2, with blend) */
    float *blend;                /* Blend: per control point, 0 linear .. 1 dual quaternion */
} skin;

static void skin_free(skin *k)
{
    free(k->start);
    free(k->joint);
    free(k->weight);
    free(k->blend);
    memset(k, 0, sizeof *k);
}

static mr_status cluster_arrays(fbx_scene *s, int cl, const int64_t **idx, const double **w, size_t *n, size_t cps)
{
    const mr_fbx_node *node = s->objs[cl].node;
    size_t ni, nw;
    mr_status st;
    if ((st = fbx_array_i(s, node, "Indexes", idx, &ni)) != MR_OK) return st;
    if ((st = fbx_array_d(s, node, "Weights", w, &nw)) != MR_OK) return st;
    if (ni != nw) return fbx_fail(s, mr_fbx_child(node, "Weights") ? mr_fbx_child(node, "Weights") : node,
                                  "expected %zu weights (one per index), got %zu", ni, nw);
    for (size_t i = 0; i < ni; i++) {
        if ((*idx)[i] < 0 || (uint64_t)(*idx)[i] >= cps)
            return fbx_fail(s, mr_fbx_child(node, "Indexes"), "index %zu is %lld: expected a control point 0..%zu", i,
                            (long long)(*idx)[i], cps ? cps - 1 : 0);
        if (!isfinite((*w)[i])) return fbx_fail(s, mr_fbx_child(node, "Weights"), "weight %zu: expected a finite number", i);
    }
    *n = ni;
    return MR_OK;
}

static mr_status read_matrix(fbx_scene *s, const mr_fbx_node *node, const char *name, double out[16], int *has)
{
    const double *d;
    size_t n;
    *has = 0;
    mr_status st = fbx_array_d(s, node, name, &d, &n);
    if (st != MR_OK) return st;
    if (!d) return MR_OK;
    if (n != 16) return fbx_fail(s, mr_fbx_child(node, name), "expected 16 numbers (a 4x4 matrix), got %zu", n);
    for (int i = 0; i < 16; i++)
        if (!isfinite(d[i])) return fbx_fail(s, mr_fbx_child(node, name), "expected finite numbers");
    memcpy(out, d, 16 * sizeof *out);
    *has = 1;
    return MR_OK;
}

/* Clusters of the skin deformer under owner (the geometry, or the 6.x model). */
static int is_cluster(const fbx_obj *o)
{
    return (!strcmp(o->cls, "Deformer") || !strcmp(o->cls, "SubDeformer")) && !strcmp(o->sub, "Cluster");
}

static int skin_of(const fbx_scene *s, int owner)
{
    int first, n = fbx_children(s, owner, &first);
    for (int k = 0; k < n; k++) {
        int o = s->conns[s->conn_by_parent[first + k]].child;
        if (!strcmp(s->objs[o].cls, "Deformer") && !strcmp(s->objs[o].sub, "Skin")) return o;
    }
    return -1;
}

/* First pass: every bone's inverse bind from the first cluster naming it. */
static mr_status bind_bones(fbx_scene *s, char *set)
{
    mr_skeleton *sk = &s->model->skeleton;
    for (int o = 0; o < s->obj_count; o++) {
        if (!is_cluster(&s->objs[o])) continue;
        int bone = fbx_linked(s, o, 1, "Model", NULL);
        int j = bone >= 0 ? s->obj_joint[bone] : -1;
        if (j < 0 || set[j]) continue;
        double tl[16], inv[16];
        int has;
        mr_status st = read_matrix(s, s->objs[o].node, "TransformLink", tl, &has);
        if (st != MR_OK) return st;
        if (!has) continue;
        fbx_m_inverse(tl, inv);
        for (int i = 0; i < 16; i++) sk->inverse_bind[j][i / 4][i % 4] = (float)inv[i];
        set[j] = 1;
    }
    return MR_OK;
}

/* The skin's SkinningType: "Linear" and "Rigid" (and none) skin linearly,
 * "DualQuaternion" with dual quaternions, "Blend" blends the two results per
 * control point by BlendWeights (with the skin's Indexes; a point not
 * listed is linear), as Maya and the FBX SDK define it. */
static mr_status skin_type(fbx_scene *s, int skin_obj, size_t cps, skin *out)
{
    const mr_fbx_node *node = s->objs[skin_obj].node;
    const char *type = mr_fbx_prop_string(mr_fbx_child(node, "SkinningType"), 0, NULL);
    if (!type) type = fbx_prop_str(s, skin_obj, "SkinningType");
    if (!type) return MR_OK;
    if (!strcmp(type, "DualQuaternion")) out->dq = 1;
    if (strcmp(type, "Blend")) return MR_OK;
    const int64_t *idx;
    const double *w;
    size_t ni, nw;
    mr_status st;
    if ((st = fbx_array_i(s, node, "Indexes", &idx, &ni)) != MR_OK) return st;
    if ((st = fbx_array_d(s, node, "BlendWeights", &w, &nw)) != MR_OK) return st;
    if (ni != nw) return fbx_fail(s, mr_fbx_child(node, "BlendWeights") ? mr_fbx_child(node, "BlendWeights") : node,
                                  "expected %zu blend weights (one per index), got %zu", ni, nw);
    out->blend = calloc(cps + 1, sizeof *out->blend);
    if (!out->blend) return oom(s);
    out->dq = 2;
    for (size_t i = 0; i < ni; i++) {
        if (idx[i] < 0 || (uint64_t)idx[i] >= cps)
            return fbx_fail(s, mr_fbx_child(node, "Indexes"), "index %zu is %lld: expected a control point 0..%zu", i,
                            (long long)idx[i], cps ? cps - 1 : 0);
        double v = w[i];
        out->blend[idx[i]] = isfinite(v) ? (float)(v < 0 ? 0 : v > 1 ? 1 : v) : 0.0f;
    }
    return MR_OK;
}

static mr_status read_skin(fbx_scene *s, int skin_obj, size_t cps, skin *out)
{
    memset(out, 0, sizeof *out);
    out->start = calloc(cps + 1, sizeof *out->start);
    if (!out->start) return oom(s);
    int first, n = fbx_children(s, skin_obj, &first);
    size_t total = 0;
    mr_status st;
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < n; k++) {
            int cl = s->conns[s->conn_by_parent[first + k]].child;
            if (!is_cluster(&s->objs[cl])) continue;
            int bone = fbx_linked(s, cl, 1, "Model", NULL);
            int j = bone >= 0 ? s->obj_joint[bone] : -1;
            if (j < 0) continue;
            const int64_t *idx;
            const double *w;
            size_t m = 0;
            if ((st = cluster_arrays(s, cl, &idx, &w, &m, cps)) != MR_OK) return st;
            if (pass == 0) {
                out->clusters++;
                for (size_t i = 0; i < m; i++) out->start[idx[i] + 1]++;
                total += m;
                if (!out->has_bind) {
                    /* Transform maps the mesh to the bone's bind space (it is
                     * TransformLink^-1 * mesh world at bind): the mesh's bind
                     * world is TransformLink * Transform */
                    int has, has_link;
                    double tr[16], link[16];
                    if ((st = read_matrix(s, s->objs[cl].node, "Transform", tr, &has)) != MR_OK) return st;
                    if ((st = read_matrix(s, s->objs[cl].node, "TransformLink", link, &has_link)) != MR_OK) return st;
                    if (has && has_link) {
                        fbx_m_mul(link, tr, out->bind);
                        out->has_bind = 1;
                    }
                }
            } else {
                for (size_t i = 0; i < m; i++) {
                    int at = out->start[idx[i]]++;
                    out->joint[at] = j;
                    out->weight[at] = (float)w[i];
                }
            }
        }
        if (pass == 0) {
            for (size_t i = 0; i < cps; i++) out->start[i + 1] += out->start[i];
            out->joint = mr_alloc_array(total + 1, sizeof *out->joint);
            out->weight = mr_alloc_array(total + 1, sizeof *out->weight);
            if (!out->joint || !out->weight) return oom(s);
        }
    }
    /* pass 1 moved each start to the next one's: shift back */
    for (size_t i = cps; i > 0; i--) out->start[i] = out->start[i - 1];
    out->start[0] = 0;
    return skin_type(s, skin_obj, cps, out);
}

/* ---- blend shapes ---- */

typedef fbx_blend shape_ref;

double fbx_deform_percent(const fbx_scene *s, int channel)
{
    uint32_t f;
    if (s->legacy) return fbx_legacy_deform(s, channel);
    if (fbx_prop(s, channel, "DeformPercent", &f)) return fbx_prop_num(s, channel, "DeformPercent", 0);
    const mr_fbx_node *n = mr_fbx_child(s->objs[channel].node, "DeformPercent");
    double d = n && n->prop_count ? mr_fbx_prop_double(n, 0) : 0;
    return isfinite(d) ? d : 0;
}

/* ---- one mesh ---- */

typedef struct mesh_src {
    int model_obj, joint;
    const mr_fbx_node *g;        /* geometry record */
    int geom_obj;                /* Geometry object, -1 for 6.x */
    const double *verts;
    size_t cps;
    const int32_t *poly;         /* validated: every control point index fits */
    int32_t *poly_own;           /* poly when converted from int64 (freed with the source) */
    size_t corners;
    layer normals, uvs, mats;
} mesh_src;

static mr_status read_src(fbx_scene *s, mesh_src *m)
{
    mr_status st;
    const mr_fbx_node *g = m->g;
    size_t nv;
    if ((st = fbx_array_d(s, g, "Vertices", &m->verts, &nv)) != MR_OK) return st;
    if (nv % 3) return fbx_fail(s, mr_fbx_child(g, "Vertices"), "expected a multiple of 3 numbers (x y z per control point), got %zu", nv);
    m->cps = nv / 3;
    for (size_t i = 0; i < nv; i++)
        if (!isfinite(m->verts[i])) return fbx_fail(s, mr_fbx_child(g, "Vertices"), "number %zu: expected a finite number", i);
    const int64_t *poly64 = NULL;
    if ((st = array_i32(s, g, "PolygonVertexIndex", &m->poly, &poly64, &m->corners)) != MR_OK) return st;
    if (m->corners > (size_t)(1 << 28)) return fbx_fail(s, mr_fbx_child(g, "PolygonVertexIndex"), "expected at most %d corners", 1 << 28);
    for (size_t i = 0; i < m->corners; i++) {
        int64_t p = m->poly ? m->poly[i] : poly64[i];
        int64_t v = p < 0 ? ~p : p;
        if ((uint64_t)v >= m->cps)
            return fbx_fail(s, mr_fbx_child(g, "PolygonVertexIndex"), "index %zu is %lld: expected a control point 0..%zu", i,
                            (long long)p, m->cps ? m->cps - 1 : 0);
    }
    if (!m->poly) {  /* int64 indices (ASCII, some writers): each fits in int32 now (cps < 2^31) */
        if (!(m->poly_own = mr_alloc_array(m->corners + 1, sizeof *m->poly_own))) return oom(s);
        for (size_t i = 0; i < m->corners; i++) m->poly_own[i] = (int32_t)poly64[i];
        m->poly = m->poly_own;
    }
    if ((st = read_layer(s, g, "LayerElementNormal", "Normals", "NormalsIndex", 3, &m->normals)) != MR_OK) return st;
    if ((st = read_layer(s, g, "LayerElementUV", "UV", "UVIndex", 2, &m->uvs)) != MR_OK) return st;
    if ((st = read_layer(s, g, "LayerElementMaterial", "Materials", NULL, 0, &m->mats)) != MR_OK) return st;
    return MR_OK;
}

/* Blend shape channels of the mesh: targets (one per shape) into *set. */
static mr_status read_blend(fbx_scene *s, const mesh_src *m, int owner, mr_morph_set **set, shape_ref **refs, int *nref,
                            int **shape_objs)
{
    *set = NULL;
    *refs = NULL;
    *nref = 0;
    *shape_objs = NULL;
    int first, n = fbx_children(s, owner, &first);
    int total = 0, channels = 0;
    for (int pass = 0; pass < 2; pass++) {
        int t = 0, c = 0;
        for (int k = 0; k < n; k++) {
            int bs = s->conns[s->conn_by_parent[first + k]].child;
            if (strcmp(s->objs[bs].cls, "Deformer") || strcmp(s->objs[bs].sub, "BlendShape")) continue;
            int f2, n2 = fbx_children(s, bs, &f2);
            for (int k2 = 0; k2 < n2; k2++) {
                int ch = s->conns[s->conn_by_parent[f2 + k2]].child;
                if (strcmp(s->objs[ch].sub, "BlendShapeChannel")) continue;
                int f3, n3 = fbx_children(s, ch, &f3), shapes = 0;
                for (int k3 = 0; k3 < n3; k3++) {
                    int sh = s->conns[s->conn_by_parent[f3 + k3]].child;
                    if (strcmp(s->objs[sh].cls, "Geometry") || strcmp(s->objs[sh].sub, "Shape")) continue;
                    if (shapes >= 32) break;
                    if (pass == 1) (*shape_objs)[t] = sh;
                    shapes++;
                    t++;
                }
                if (!shapes) continue;
                if (pass == 1) {
                    shape_ref *r = &(*refs)[c];
                    r->channel_obj = ch;
                    r->target = t - shapes;
                    r->count = shapes;
                    const double *fw;
                    size_t nfw;
                    mr_status st = fbx_array_d(s, s->objs[ch].node, "FullWeights", &fw, &nfw);
                    if (st != MR_OK) return st;
                    for (int i = 0; i < shapes; i++)
                        r->full[i] = (size_t)i < nfw && isfinite(fw[i]) ? fw[i] : 100.0 * (i + 1) / shapes;
                    if (s->blender) /* Blender's FullWeights are per-vertex weights of the shape, each shape full at 100 */
                        for (int i = 0; i < shapes; i++) r->full[i] = 100.0 * (i + 1) / shapes;
                }
                c++;
            }
        }
        if (pass == 0) {
            total = t;
            channels = c;
            if (!total) return MR_OK;
            *refs = calloc((size_t)channels, sizeof **refs);
            *shape_objs = calloc((size_t)total, sizeof **shape_objs);
            if (!*refs || !*shape_objs) return oom(s);
        }
    }
    *nref = channels;
    (void)m;
    return MR_OK;
}

/* Weights of the targets for channel percent d: the shapes sorted by
 * full weight, with an implicit zero shape at 0; d picks the two shapes
 * around it on its side of zero (beyond the last, the last two
 * extrapolate) and weighs them linearly. */
void fbx_blend_weights(const fbx_blend *b, double d, float *w)
{
    int order[32], n = b->count;
    for (int i = 0; i < n; i++) {
        w[b->target + i] = 0;
        order[i] = i;
    }
    for (int i = 1; i < n; i++)  /* insertion sort by full weight */
        for (int k = i; k > 0 && b->full[order[k]] < b->full[order[k - 1]]; k--) {
            int tmp = order[k];
            order[k] = order[k - 1];
            order[k - 1] = tmp;
        }
    int neg = -1;  /* the last shape below zero */
    for (int i = 0; i < n; i++)
        if (b->full[order[i]] < 0) neg = i;
    /* -1: the zero shape. Without shapes on d's side, the nearest shape
     * across zero and the zero shape extrapolate. */
    int lo, hi = -1;
    if (d > 0) {
        lo = neg;
        for (int i = neg + 1; i < n; i++) {
            lo = hi;
            hi = i;
            if (b->full[order[i]] > d) break;
        }
    } else {
        lo = neg + 1 < n ? neg + 1 : -1;
        for (int i = neg; i >= 0; i--) {
            lo = hi;
            hi = i;
            if (b->full[order[i]] < d) break;
        }
    }
    double flo = lo >= 0 ? b->full[order[lo]] : 0, fhi = hi >= 0 ? b->full[order[hi]] : 0;
    if (fhi == flo) return;
    double t = (d - flo) / (fhi - flo);
    if (lo >= 0) w[b->target + order[lo]] = (float)(1 - t);
    if (hi >= 0) w[b->target + order[hi]] = (float)t;
}

typedef struct corner {  /* 24 bytes, no padding: compared as bytes */
    uint32_t cp;
    float n[3];
    float uv[2];
} corner;

/* The placed normals of a layer whose normals corners share (by control
 * point, by polygon, or indexed): each computed at its first corner
 * (mixamo.fbx's Beta_Joints: 43,080 corners, 10,514 normals). */
typedef struct normal_cache {
    float (*n)[3];
    uint8_t *done;
} normal_cache;

/* Corner c (of polygon p) of mesh m: its control point, its normal placed
 * by nrm_m (the inverse transpose of the placement) and normalised (the
 * one in nc when it holds it), its uv. */
static void corner_at(const mesh_src *m, const double nrm_m[16], normal_cache *nc, size_t c, size_t p, corner *cn)
{
    size_t v = (size_t)(m->poly[c] < 0 ? ~m->poly[c] : m->poly[c]);
    memset(cn, 0, sizeof *cn);
    cn->cp = (uint32_t)v;
    long ni = layer_at(&m->normals, c, p, v);
    if (ni >= 0 && nc->done && nc->done[ni]) {
        memcpy(cn->n, nc->n[ni], sizeof cn->n);
    } else if (ni >= 0) {
        double nn[3];
        fbx_m_vector(nrm_m, m->normals.direct + 3 * ni, nn);
        double len = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
        int ok = len > 1e-20 && isfinite(len);
        for (int k = 0; k < 3; k++) cn->n[k] = ok ? (float)(nn[k] / len) : (k == 1);
        if (nc->done) {
            memcpy(nc->n[ni], cn->n, sizeof cn->n);
            nc->done[ni] = 1;
        }
    } else {
        cn->n[1] = 1;
    }
    long ui = layer_at(&m->uvs, c, p, v);
    if (ui >= 0 && isfinite(m->uvs.direct[2 * ui]) && isfinite(m->uvs.direct[2 * ui + 1])) {
        cn->uv[0] = (float)m->uvs.direct[2 * ui];
        cn->uv[1] = (float)m->uvs.direct[2 * ui + 1];
    }
}

typedef struct built {
    mr_mesh mesh;
    int material;
} built;

static mr_status one_mesh(fbx_scene *s, mesh_src *m, const char *bone_set)
{
    mr_skeleton *sk = &s->model->skeleton;
    mr_status st = read_src(s, m);
    if (st != MR_OK) return st;
    int owner = m->geom_obj >= 0 ? m->geom_obj : m->model_obj;
    skin sk_data;
    memset(&sk_data, 0, sizeof sk_data);
    int skin_obj = skin_of(s, owner);
    if (skin_obj < 0 && m->geom_obj >= 0) skin_obj = skin_of(s, m->model_obj);
    mr_morph_set *morph = NULL;
    shape_ref *refs = NULL;
    int nref = 0, *shape_objs = NULL;
    vec3 *origins = NULL;
    float *cp_pos = NULL;         /* placed control points */
    float *cp_delta = NULL;       /* placed shape deltas per target */
    int *mat_ids = NULL;
    int *groups = NULL;
    fbx_pcache pc;
    memset(&pc, 0, sizeof pc);
    if (skin_obj >= 0 && (st = read_skin(s, skin_obj, m->cps, &sk_data)) != MR_OK) goto done;
    int skinned = skin_obj >= 0 && sk_data.clusters > 0;
    /* placement: bind world (skinned) or the joint's bind space (rigid) */
    double geo[16], place[16], rigid[16], ibm[16];
    fbx_xf_geometry(&s->xf[m->joint], geo);
    for (int i = 0; i < 16; i++) ibm[i] = sk->inverse_bind[m->joint][i / 4][i % 4];
    double bindw[16];
    fbx_m_inverse(ibm, bindw);
    fbx_m_mul(bindw, geo, rigid);
    if (skinned && sk_data.has_bind) fbx_m_mul(sk_data.bind, geo, place);
    else if (skinned) fbx_m_mul(s->rest_world[m->joint], geo, place);
    else memcpy(place, rigid, sizeof place);
    cp_pos = mr_alloc_array(m->cps * 3 + 1, sizeof *cp_pos);
    if (!cp_pos) {
        st = oom(s);
        goto done;
    }
    for (size_t i = 0; i < m->cps; i++) {
        double p[3];
        int free_cp = skinned && sk_data.start[i + 1] == sk_data.start[i];
        fbx_m_point(free_cp ? rigid : place, m->verts + 3 * i, p);
        for (int k = 0; k < 3; k++) cp_pos[3 * i + (size_t)k] = (float)p[k];
    }
    /* blend shapes */
    if ((st = read_blend(s, m, owner, &morph, &refs, &nref, &shape_objs)) != MR_OK) goto done;
    int targets = nref ? refs[nref - 1].target + refs[nref - 1].count : 0, shapes = targets;
    /* a geometry cache (fbx_cache.c): one more target a frame, its points
     * placed as the mesh's own */
    if ((st = fbx_pcache_read(s, owner, m->cps, &pc)) != MR_OK) goto done;
    targets += pc.frames;
    if (targets) {
        cp_delta = calloc(m->cps * 3 * (size_t)targets + 1, sizeof *cp_delta);
        if (!cp_delta) {
            st = oom(s);
            goto done;
        }
        for (int f = 0; f < pc.frames; f++)
            for (size_t i = 0; i < m->cps; i++) {
                double p[3];
                int free_cp = skinned && sk_data.start[i + 1] == sk_data.start[i];
                const float *c = pc.pos + ((size_t)f * m->cps + i) * 3;
                double cd[3] = {c[0], c[1], c[2]};
                fbx_m_point(free_cp ? rigid : place, cd, p);
                for (int k = 0; k < 3; k++)
                    cp_delta[((size_t)(shapes + f) * m->cps + i) * 3 + (size_t)k] = (float)(p[k] - cp_pos[3 * i + (size_t)k]);
            }
        for (int t = 0; t < shapes; t++) {
            const mr_fbx_node *sh = s->objs[shape_objs[t]].node;
            const int64_t *idx;
            const double *d;
            size_t ni, nd;
            if ((st = fbx_array_i(s, sh, "Indexes", &idx, &ni)) != MR_OK) goto done;
            if ((st = fbx_array_d(s, sh, "Vertices", &d, &nd)) != MR_OK) goto done;
            if (nd != ni * 3) {
                st = fbx_fail(s, mr_fbx_child(sh, "Vertices") ? mr_fbx_child(sh, "Vertices") : sh,
                              "expected %zu numbers (3 per index), got %zu", ni * 3, nd);
                goto done;
            }
            /* Blender writes per-vertex weights of the shape as its channel's FullWeights */
            const double *vw = NULL;
            if (s->blender) {
                for (int r = 0; r < nref; r++)
                    if (t >= refs[r].target && t < refs[r].target + refs[r].count) {
                        size_t nvw;
                        if ((st = fbx_array_d(s, s->objs[refs[r].channel_obj].node, "FullWeights", &vw, &nvw)) != MR_OK) goto done;
                        if (nvw != ni) vw = NULL;
                    }
            }
            for (size_t i = 0; i < ni; i++) {
                if (idx[i] < 0 || (uint64_t)idx[i] >= m->cps) {
                    st = fbx_fail(s, mr_fbx_child(sh, "Indexes"), "index %zu is %lld: expected a control point 0..%zu", i,
                                  (long long)idx[i], m->cps ? m->cps - 1 : 0);
                    goto done;
                }
                double v[3], dv[3] = {d[3 * i], d[3 * i + 1], d[3 * i + 2]};
                if (vw && isfinite(vw[i]))
                    for (int k = 0; k < 3; k++) dv[k] *= vw[i] / 100.0;
                int free_cp = skinned && sk_data.start[idx[i] + 1] == sk_data.start[idx[i]];
                fbx_m_vector(free_cp ? rigid : place, dv, v);
                for (int k = 0; k < 3; k++) {
                    if (!isfinite(v[k])) {
                        st = fbx_fail(s, mr_fbx_child(sh, "Vertices"), "expected finite numbers");
                        goto done;
                    }
                    cp_delta[((size_t)t * m->cps + (size_t)idx[i]) * 3 + (size_t)k] = (float)v[k];
                }
            }
        }
    }
    /* material groups */
    size_t polys = 0;
    for (size_t i = 0; i < m->corners; i++)
        if (m->poly[i] < 0) polys++;
    mat_ids = calloc(polys + 1, sizeof *mat_ids);
    if (!mat_ids) {
        st = oom(s);
        goto done;
    }
    int max_mat = 0;
    for (size_t p = 0; p < polys; p++) {
        long k = layer_at(&m->mats, 0, p, 0);
        int id = k >= 0 ? (int)m->mats.idirect[k] : 0;
        if (id < 0 || id > 1023) id = 0;
        mat_ids[p] = id;
        if (id > max_mat) max_mat = id;
    }
    int mats[1024];
    int nmats = 0;
    {
        int first, n = fbx_children(s, m->model_obj, &first);
        for (int k = 0; k < n && nmats < 1024; k++) {
            int o = s->conns[s->conn_by_parent[first + k]].child;
            if (!strcmp(s->objs[o].cls, "Material")) mats[nmats++] = o;
        }
    }
    if (!origins) {
        origins = mr_alloc_array((size_t)sk->joint_count + 1, sizeof *origins);
        if (!origins) {
            st = oom(s);
            goto done;
        }
        mr_mesh_influence_origins(sk, origins);
    }
    double nrm_m[16];
    {
        double inv[16];
        fbx_m_inverse(place, inv);
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 4; c++) nrm_m[c * 4 + r] = inv[r * 4 + c];
    }
    /* per corner: control point, normal, uv; corners equal in all three are
     * one vertex. Each group's corners are computed as its weld meets them
     * and compared with the vertices so far of the same control point (a
     * chain per control point); only the vertices are kept: mixamo.fbx's
     * corner table and hash table were 3.5 MB of fresh pages a load. */
    corner *uniq = malloc(sizeof *uniq * (m->corners + 1));     /* the vertices, in order */
    uint32_t *remap = malloc(sizeof *remap * (m->corners + 1));  /* a group's corners' vertices */
    uint32_t *vnext = malloc(sizeof *vnext * (m->corners + 1));  /* the vertex before it of its control point */
    uint32_t *head = malloc(sizeof *head * (m->cps + 1));        /* a control point's last vertex */
    if (!uniq || !remap || !vnext || !head) {
        free(uniq);
        free(remap);
        free(vnext);
        free(head);
        st = oom(s);
        goto done;
    }
    int have_normals = m->normals.node != NULL;
    /* a cache of the placed normals where corners share them (without
     * memory: each computed at every corner, as where they do not) */
    normal_cache ncache = {0};
    if (have_normals && m->normals.direct_count < m->corners) {
        ncache.n = malloc(sizeof *ncache.n * (m->normals.direct_count + 1));
        ncache.done = calloc(m->normals.direct_count + 1, 1);
        if (!ncache.n || !ncache.done) {
            free(ncache.n);
            free(ncache.done);
            ncache = (normal_cache){0};
        }
    }
    for (int gid = 0; gid <= max_mat; gid++) {
        /* weld this group's corners, count its triangles */
        size_t vc = 0, ic = 0, start = 0, p = 0;
        for (size_t v = 0; v < m->cps; v++) head[v] = UINT32_MAX;
        for (size_t i = 0; i < m->corners; i++) {
            if (m->poly[i] >= 0) continue;
            size_t k = i + 1 - start;
            if (mat_ids[p] == gid && k >= 3) {
                ic += (k - 2) * 3;
                for (size_t c = start; c <= i; c++) {
                    corner cn;
                    corner_at(m, nrm_m, &ncache, c, p, &cn);
                    uint32_t u = head[cn.cp];
                    while (u != UINT32_MAX && memcmp(&uniq[u], &cn, sizeof cn)) u = vnext[u];
                    if (u == UINT32_MAX) {
                        u = (uint32_t)vc++;
                        uniq[u] = cn;
                        vnext[u] = head[cn.cp];
                        head[cn.cp] = u;
                    }
                    remap[c] = u;
                }
            }
            start = i + 1;
            p++;
        }
        if (!ic) continue;
        mr_mesh mesh;
        memset(&mesh, 0, sizeof mesh);
        /* every vertex is written whole below, at its first corner, and
         * every index */
        unsigned set = MR_MESH_SET_POSITIONS | MR_MESH_SET_NORMALS | MR_MESH_SET_UVS | MR_MESH_SET_INDICES |
                       MR_MESH_SET_INFLUENCES;
        if ((st = mr_mesh_init_set(&mesh, (int)vc, (int)ic, 1, set)) != MR_OK) {
            st = oom(s);
            goto weld_done;
        }
        if (targets && (st = mr_morph_set_create(targets, (int)vc, &mesh.morph)) != MR_OK) {
            mr_mesh_deinit(&mesh);
            st = oom(s);
            goto weld_done;
        }
        if (skinned && sk_data.dq) {
            mesh.skinning = MR_SKINNING_DUAL_QUATERNION;
            if (sk_data.dq == 2 && !(mesh.dq_blend = calloc(vc + 1, sizeof *mesh.dq_blend))) {
                mr_mesh_deinit(&mesh);
                st = oom(s);
                goto weld_done;
            }
        }
        size_t wi = 0;
        uint32_t fresh = 0;  /* vertices are numbered in the order their first corner comes */
        start = 0;
        p = 0;
        for (size_t i = 0; i < m->corners; i++) {
            if (m->poly[i] >= 0) continue;
            size_t k = i + 1 - start;
            if (mat_ids[p] == gid && k >= 3) {
                for (size_t c = start; c <= i; c++) {
                    uint32_t w = remap[c];
                    if (w != fresh) continue;  /* written from an equal corner before */
                    fresh++;
                    size_t v = uniq[w].cp;
                    memcpy(mesh.positions[w], cp_pos + 3 * v, sizeof(vec3));
                    memcpy(mesh.normals[w], uniq[w].n, sizeof(vec3));
                    memcpy(mesh.uvs[w], uniq[w].uv, sizeof(vec2));
                    if (mesh.dq_blend) mesh.dq_blend[w] = skinned ? sk_data.blend[v] : 0.0f;
                    for (int t = 0; t < targets; t++)
                        memcpy(mesh.morph->targets[t].positions[w], cp_delta + ((size_t)t * m->cps + v) * 3, sizeof(vec3));
                    int n = skinned ? sk_data.start[v + 1] - sk_data.start[v] : 0;
                    memset(mesh.joints[w], 0, sizeof mesh.joints[w]);
                    memset(mesh.weights[w], 0, sizeof mesh.weights[w]);
                    if (n > 0) {
                        int js[MAX_CP_INFLUENCES];
                        float ws[MAX_CP_INFLUENCES];
                        if (n > MAX_CP_INFLUENCES) n = MAX_CP_INFLUENCES;
                        memcpy(js, sk_data.joint + sk_data.start[v], (size_t)n * sizeof *js);
                        memcpy(ws, sk_data.weight + sk_data.start[v], (size_t)n * sizeof *ws);
                        mr_influence_rule rule = {MR_MAX_INFLUENCES, mesh.positions[w], (const vec3 *)origins,
                                                  (const char *const *)sk->names};
                        int pos = mr_mesh_pack_influences(js, ws, n, &rule, mesh.joints[w], mesh.weights[w]);
                        if (pos == 0) {
                            mesh.joints[w][0] = (uint16_t)js[0];
                            mesh.weights[w][0] = 1;
                        }
                    } else {
                        mesh.joints[w][0] = (uint16_t)m->joint;
                        mesh.weights[w][0] = 1;
                    }
                }
                for (size_t c = 2; c < k; c++) {
                    mesh.indices[wi++] = remap[start];
                    mesh.indices[wi++] = remap[start + c - 1];
                    mesh.indices[wi++] = remap[start + c];
                }
            }
            start = i + 1;
            p++;
        }
        /* influence counts per control point of this group, once each */
        for (size_t v = 0; skinned && v < m->cps; v++) {
            int n = sk_data.start[v + 1] - sk_data.start[v], pos = 0;
            for (int q = 0; q < n; q++)
                if (sk_data.weight[sk_data.start[v] + q] > 0) pos++;
            if (pos > 4 && gid == 0) mesh.source_over4++;
            if (pos > 8 && gid == 0) mesh.source_over8++;
        }
        if (!have_normals) mr_mesh_compute_normals(&mesh);
        for (int r = 0; r < nref; r++) {
            double d = fbx_deform_percent(s, refs[r].channel_obj);
            if (!isfinite(d)) d = 0;
            fbx_blend_weights(&refs[r], d, mesh.morph->weights);
        }
        for (int t = 0; t < targets; t++) {
            free(mesh.morph->targets[t].name);
            mesh.morph->targets[t].name = t < shapes ? mr_str_dup(s->objs[shape_objs[t]].name)
                                                     : mr_str_fmt("%s@%g", pc.channel, pc.times[t - shapes]);
        }
        int mat = gid < nmats ? mats[gid] : (nmats ? mats[0] : -1);
        if ((st = read_material(s, mat, &mesh.material)) != MR_OK) {
            mr_mesh_deinit(&mesh);
            goto weld_done;
        }
        const char *mname = s->objs[m->model_obj].name;
        mesh.name = max_mat > 0 ? mr_str_fmt("%s/%d", mname, gid) : mr_str_dup(mname);
        mr_mesh *grown = realloc(s->model->meshes, sizeof *grown * (size_t)(s->model->mesh_count + 1));
        if (!grown || !mesh.name) {
            if (grown) s->model->meshes = grown;
            mr_mesh_deinit(&mesh);
            st = oom(s);
            goto weld_done;
        }
        s->model->meshes = grown;
        if (nref) {
            fbx_blend *nb = realloc(s->blends, sizeof *nb * (size_t)(s->blend_count + nref));
            if (!nb) {
                mr_mesh_deinit(&mesh);
                st = oom(s);
                goto weld_done;
            }
            s->blends = nb;
            for (int r = 0; r < nref; r++) {
                s->blends[s->blend_count] = refs[r];
                s->blends[s->blend_count++].mesh = s->model->mesh_count;
            }
        }
        if (pc.frames) {
            fbx_mcache *nc = realloc(s->mcaches, sizeof *nc * (size_t)(s->mcache_count + 1));
            double *times = nc ? mr_alloc_array((size_t)pc.frames, sizeof *times) : NULL;
            if (nc) s->mcaches = nc;
            if (!times) {
                mr_mesh_deinit(&mesh);
                st = oom(s);
                goto weld_done;
            }
            memcpy(times, pc.times, sizeof *times * (size_t)pc.frames);
            s->mcaches[s->mcache_count++] = (fbx_mcache){s->model->mesh_count, shapes, pc.frames, times};
        }
        s->model->meshes[s->model->mesh_count++] = mesh;
    }
weld_done:
    free(ncache.n);
    free(ncache.done);
    free(uniq);
    free(remap);
    free(vnext);
    free(head);
done:
    fbx_pcache_free(&pc);
    skin_free(&sk_data);
    free(refs);
    free(shape_objs);
    free(origins);
    free(cp_pos);
    free(cp_delta);
    free(mat_ids);
    free(groups);
    (void)bone_set;
    return st;
}

mr_status fbx_meshes_build(fbx_scene *s)
{
    char *set = calloc((size_t)s->node_count + 1, 1);
    if (!set) return oom(s);
    mr_status st = bind_bones(s, set);
    for (int j = 0; st == MR_OK && j < s->node_count; j++) {
        int o = s->node_obj[j];
        mesh_src m;
        memset(&m, 0, sizeof m);
        m.model_obj = o;
        m.joint = j;
        m.geom_obj = fbx_linked(s, o, 1, "Geometry", "Mesh");
        if (m.geom_obj >= 0) m.g = s->objs[m.geom_obj].node;
        else if (s->v6 && mr_fbx_child(s->objs[o].node, "Vertices") && mr_fbx_child(s->objs[o].node, "PolygonVertexIndex"))
            m.g = s->objs[o].node;
        if (!m.g) continue;
        st = one_mesh(s, &m, set);
        free(m.poly_own);
    }
    free(set);
    return st;
}
