/* collada_scene.c — the visual scene as a flat list of node instances, and
 * the transform math of COLLADA nodes.
 *
 * The node tree of the instanced <visual_scene> is walked depth-first in
 * document order; <instance_node> pulls in <library_nodes> content (a node
 * instanced twice appears twice; a node that instances itself, directly or
 * through others, is refused). Each node keeps its transform stack
 * (<matrix>, <translate>, <rotate>, <scale>, <lookat>, <skew> in document
 * order) so animation can rebuild it at any time.
 */
#include "formats/collada_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/quat.h"

/* Hard limits against documents that explode through instancing. */
#define CL_MAX_NODE_INSTANCES 100000
#define CL_MAX_NODE_DEPTH 256

/* ---- transform math ----------------------------------------------------- */

void cl_mat_from_rows(const float *r, mat4 m)
{
    for (int row = 0; row < 4; row++)
        for (int col = 0; col < 4; col++) m[col][row] = r[row * 4 + col];
}

static void rotation_matrix(float ax, float ay, float az, float deg, mat4 out)
{
    glm_mat4_identity(out);
    /* Principal axes (what exporters write) directly. */
    int axis = ax != 0 ? (ay == 0 && az == 0 ? 0 : -1) : ay != 0 ? (az == 0 ? 1 : -1) : az != 0 ? 2 : -2;
    if (axis >= 0) {
        float sign = (axis == 0 ? ax : axis == 1 ? ay : az) < 0 ? -1.0f : 1.0f;
        float c = cosf(glm_rad(deg)), s = sign * sinf(glm_rad(deg));
        int i = (axis + 1) % 3, k = (axis + 2) % 3;
        out[i][i] = c;
        out[k][k] = c;
        out[i][k] = s;
        out[k][i] = -s;
        return;
    }
    float len = sqrtf(ax * ax + ay * ay + az * az);
    if (!(len > 1e-20f)) return;
    vec3 v = {ax / len, ay / len, az / len};
    glm_rotate_make(out, glm_rad(deg), v);
}

void cl_xform_matrix(const cl_xform *x, const float *v, mat4 out)
{
    if (!v) v = x->v;
    glm_mat4_identity(out);
    switch (x->type) {
    case CL_XF_MATRIX:
        cl_mat_from_rows(v, out);
        break;
    case CL_XF_TRANSLATE:
        out[3][0] = v[0];
        out[3][1] = v[1];
        out[3][2] = v[2];
        break;
    case CL_XF_ROTATE:
        rotation_matrix(v[0], v[1], v[2], v[3], out);
        break;
    case CL_XF_SCALE:
        out[0][0] = v[0];
        out[1][1] = v[1];
        out[2][2] = v[2];
        break;
    case CL_XF_LOOKAT: {
        /* Camera-style aim: local -Z points from eye (v[0..2]) at the
         * interest point (v[3..5]), local +Y towards up (v[6..8]). */
        vec3 eye = {v[0], v[1], v[2]}, at = {v[3], v[4], v[5]}, up = {v[6], v[7], v[8]};
        vec3 z, xa, ya;
        glm_vec3_sub(eye, at, z);
        if (glm_vec3_norm(z) < 1e-20f) glm_vec3_copy((vec3){0, 0, 1}, z);
        glm_vec3_normalize(z);
        glm_vec3_cross(up, z, xa);
        if (glm_vec3_norm(xa) < 1e-20f) glm_vec3_ortho(z, xa);
        glm_vec3_normalize(xa);
        glm_vec3_cross(z, xa, ya);
        for (int i = 0; i < 3; i++) {
            out[0][i] = xa[i];
            out[1][i] = ya[i];
            out[2][i] = z[i];
            out[3][i] = eye[i];
        }
        break;
    }
    case CL_XF_SKEW: {
        /* RenderMan skew: points move along the translation axis t by
         * tan(angle) times their component along the rotation axis a:
         * M = I + tan(angle) * t a^T. */
        vec3 a = {v[1], v[2], v[3]}, t = {v[4], v[5], v[6]};
        if (glm_vec3_norm(a) < 1e-20f || glm_vec3_norm(t) < 1e-20f) break;
        glm_vec3_normalize(a);
        glm_vec3_normalize(t);
        float s = tanf(glm_rad(v[0]));
        if (!isfinite(s)) break;
        for (int col = 0; col < 3; col++)
            for (int row = 0; row < 3; row++) out[col][row] += s * t[row] * a[col];
        break;
    }
    default:
        break;
    }
}

void cl_stack_matrix(const cl_xform *xf, int count, const float *const *values, mat4 out)
{
    glm_mat4_identity(out);
    for (int i = 0; i < count; i++) {
        mat4 m;
        cl_xform_matrix(&xf[i], values ? values[i] : NULL, m);
        glm_mat4_mul(out, m, out);
    }
}

void cl_conv_matrix(const cl_frame_conv *c, const mat4 in, mat4 out)
{
    if (c->identity_rot) {  /* Y_UP: only the unit changes */
        glm_mat4_copy((vec4 *)in, out);
        out[3][0] = (float)((double)in[3][0] * c->meter);
        out[3][1] = (float)((double)in[3][1] * c->meter);
        out[3][2] = (float)((double)in[3][2] * c->meter);
        return;
    }
    /* out = C in C^-1 with C = scale * rot: the 3x3 part is conjugated by
     * rot, the translation rotated and scaled. */
    mat3 a, r3, tmp, rt;
    glm_mat4_pick3((vec4 *)in, a);
    memcpy(r3, c->rot, sizeof r3);
    glm_mat3_transpose_to(r3, rt);
    glm_mat3_mul(r3, a, tmp);
    glm_mat3_mul(tmp, rt, a);
    vec3 t = {in[3][0], in[3][1], in[3][2]}, t2;
    glm_mat3_mulv(r3, t, t2);
    glm_mat4_identity(out);
    glm_mat4_ins3(a, out);
    out[3][0] = (float)((double)t2[0] * c->meter);
    out[3][1] = (float)((double)t2[1] * c->meter);
    out[3][2] = (float)((double)t2[2] * c->meter);
}

/* ---- scene walk ----------------------------------------------------------- */

static int xform_type(const cl_el *c, int *n)
{
    const char *name = (const char *)c->name;
    switch (name[0]) {
    case 'm': if (!strcmp(name, "matrix")) return *n = 16, CL_XF_MATRIX; break;
    case 't': if (!strcmp(name, "translate")) return *n = 3, CL_XF_TRANSLATE; break;
    case 'r': if (!strcmp(name, "rotate")) return *n = 4, CL_XF_ROTATE; break;
    case 's':
        if (!strcmp(name, "scale")) return *n = 3, CL_XF_SCALE;
        if (!strcmp(name, "skew")) return *n = 7, CL_XF_SKEW;
        break;
    case 'l': if (!strcmp(name, "lookat")) return *n = 9, CL_XF_LOOKAT; break;
    default: break;
    }
    return 0;
}

static int build_index(cl_scene *s);
static void free_index(cl_scene *s);

typedef struct walk {
    cl_doc *d;
    cl_scene *s;
    cl_el *active[CL_MAX_NODE_DEPTH];  /* <node> elements on the current path */
    int depth;
} walk;

static mr_status add_instance(walk *w, cl_el *el, int node, int is_controller)
{
    cl_scene *s = w->s;
    if (mr_alloc_reserve((void **)&s->insts, &s->inst_cap, (size_t)s->inst_count + 1,
                         sizeof *s->insts) != 0)
        return cl_fail_status(w->d, MR_ERR_NO_MEMORY, el, "out of memory");
    s->insts[s->inst_count++] = (cl_instance){el, node, is_controller};
    return MR_OK;
}

static mr_status visit(walk *w, cl_el *el, int parent);

static mr_status visit_children(walk *w, cl_el *el, int self)
{
    for (cl_el *c = cl_first_elem(el); c; c = cl_next_elem(c)) {
        mr_status st = MR_OK;
        if (cl_is(c, "node")) {
            st = visit(w, c, self);
        } else if (cl_is(c, "instance_node")) {
            cl_el *target;
            st = cl_ref(w->d, c, "url", "node", &target);
            if (st != MR_OK) return st;
            for (int i = 0; i < w->depth; i++)
                if (w->active[i] == target) {
                    const char *id = cl_attr(target, "id");
                    return cl_fail(w->d, c, "<instance_node> cycle: node '%s' instantiates itself", id ? id : "?");
                }
            st = visit(w, target, self);
        } else if (self >= 0 && cl_is(c, "instance_geometry")) {
            st = add_instance(w, c, self, 0);
        } else if (self >= 0 && cl_is(c, "instance_controller")) {
            st = add_instance(w, c, self, 1);
        }
        if (st != MR_OK) return st;
    }
    return MR_OK;
}

static mr_status visit(walk *w, cl_el *el, int parent)
{
    cl_doc *d = w->d;
    cl_scene *s = w->s;
    if (w->depth >= CL_MAX_NODE_DEPTH)
        return cl_fail_status(d, MR_ERR_LIMIT, el, "nodes nested deeper than %d levels", CL_MAX_NODE_DEPTH);
    if (s->node_count >= CL_MAX_NODE_INSTANCES)
        return cl_fail_status(d, MR_ERR_LIMIT, el, "more than %d node instances", CL_MAX_NODE_INSTANCES);
    if (mr_alloc_reserve((void **)&s->nodes, &s->node_cap, (size_t)s->node_count + 1,
                         sizeof *s->nodes) != 0)
        return cl_fail_status(d, MR_ERR_NO_MEMORY, el, "out of memory");
    int self = s->node_count++;
    cl_node *n = &s->nodes[self];
    memset(n, 0, sizeof *n);
    n->el = el;
    n->parent = parent;
    n->id = cl_attr(el, "id");
    n->sid = cl_attr(el, "sid");
    n->name = cl_attr(el, "name");
    const char *type = cl_attr(el, "type");
    n->is_joint = type && !strcmp(type, "JOINT");
    n->joint = -1;

    int count = 0, nv;
    for (cl_el *c = cl_first_elem(el); c; c = cl_next_elem(c))
        if (xform_type(c, &nv)) count++;
    if (count) {
        cl_xform *xf = mr_alloc_array((size_t)count, sizeof *xf);
        if (!xf) return cl_fail_status(d, MR_ERR_NO_MEMORY, el, "out of memory");
        s->nodes[self].xf = xf;
        s->nodes[self].xf_count = count;
        int k = 0;
        for (cl_el *c = cl_first_elem(el); c; c = cl_next_elem(c)) {
            int type_ = xform_type(c, &nv);
            if (!type_) continue;
            xf[k].type = type_;
            xf[k].n = nv;
            xf[k].el = c;
            mr_status st = cl_fixed_floats(d, c, xf[k].v, nv);
            if (st != MR_OK) return st;
            k++;
        }
    }
    n = &s->nodes[self];
    cl_stack_matrix(n->xf, n->xf_count, NULL, n->local);
    if (parent >= 0) glm_mat4_mul(s->nodes[parent].world, n->local, n->world);
    else glm_mat4_copy(n->local, n->world);

    w->active[w->depth++] = el;
    mr_status st = visit_children(w, el, self);
    w->depth--;
    s->nodes[self].end = s->node_count;
    return st;
}

mr_status cl_scene_build(cl_doc *d, cl_scene *s)
{
    memset(s, 0, sizeof *s);
    cl_el *vs = NULL;
    cl_el *scene = cl_child(d->root, "scene");
    cl_el *ivs = scene ? cl_child(scene, "instance_visual_scene") : NULL;
    if (ivs) {
        mr_status st = cl_ref(d, ivs, "url", "visual_scene", &vs);
        if (st != MR_OK) return st;
    } else {
        cl_el *lib = cl_child(d->root, "library_visual_scenes");
        vs = lib ? cl_child(lib, "visual_scene") : NULL;
    }
    s->visual_scene = vs;
    if (!vs) return MR_OK;
    walk *w = calloc(1, sizeof *w);
    if (!w) return cl_fail_status(d, MR_ERR_NO_MEMORY, vs, "out of memory");
    w->d = d;
    w->s = s;
    mr_status st = visit_children(w, vs, -1);
    free(w);
    if (st == MR_OK && build_index(s) != 0) st = cl_fail_status(d, MR_ERR_NO_MEMORY, vs, "out of memory");
    if (st != MR_OK) cl_scene_free(s);
    else s->visual_scene = vs;
    return st;
}

void cl_scene_free(cl_scene *s)
{
    for (int i = 0; i < s->node_count; i++) free(s->nodes[i].xf);
    free(s->nodes);
    free(s->insts);
    free_index(s);
    memset(s, 0, sizeof *s);
}

/* ---- lookup by sid / id / name ------------------------------------------ */

/* Per field, an open-addressing table from key to the first node (in
 * depth-first order) carrying it; next[] chains the others in order. */
typedef struct scene_index {
    size_t cap;
    const char **keys[3];
    int *first[3];
    int *next[3];
} scene_index;

static size_t key_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return (size_t)h;
}

static const char *node_key(const cl_node *n, int field)
{
    return field == 0 ? n->sid : field == 1 ? n->id : n->name;
}

static int build_index(cl_scene *s)
{
    scene_index *ix = calloc(1, sizeof *ix);
    if (!ix) return -1;
    ix->cap = 16;
    while (ix->cap < (size_t)s->node_count * 2) ix->cap <<= 1;
    for (int f = 0; f < 3; f++) {
        ix->keys[f] = mr_alloc_array(ix->cap, sizeof *ix->keys[f]);
        ix->first[f] = mr_alloc_array(ix->cap, sizeof *ix->first[f]);
        ix->next[f] = mr_alloc_array((size_t)s->node_count, sizeof *ix->next[f]);
        if (!ix->keys[f] || !ix->first[f] || !ix->next[f]) {
            s->index = ix;
            return -1;
        }
        for (int i = s->node_count - 1; i >= 0; i--) {
            const char *k = node_key(&s->nodes[i], f);
            ix->next[f][i] = -1;
            if (!k) continue;
            size_t h = key_hash(k) & (ix->cap - 1);
            while (ix->keys[f][h] && strcmp(ix->keys[f][h], k)) h = (h + 1) & (ix->cap - 1);
            if (!ix->keys[f][h]) {
                ix->keys[f][h] = k;
                ix->first[f][h] = -1;
            }
            ix->next[f][i] = ix->first[f][h];
            ix->first[f][h] = i;
        }
    }
    s->index = ix;
    return 0;
}

static void free_index(cl_scene *s)
{
    scene_index *ix = s->index;
    if (!ix) return;
    for (int f = 0; f < 3; f++) {
        free(ix->keys[f]);
        free(ix->first[f]);
        free(ix->next[f]);
    }
    free(ix);
    s->index = NULL;
}

int cl_scene_find(const cl_scene *s, const int *roots, int root_count, const char *key, int field)
{
    const scene_index *ix = s->index;
    if (!key || !ix || field < 0 || field > 2 || !ix->keys[field]) return -1;
    size_t h = key_hash(key) & (ix->cap - 1);
    while (ix->keys[field][h] && strcmp(ix->keys[field][h], key)) h = (h + 1) & (ix->cap - 1);
    if (!ix->keys[field][h]) return -1;
    for (int i = ix->first[field][h]; i >= 0; i = ix->next[field][i]) {
        if (!roots) return i;
        for (int r = 0; r < root_count; r++)
            if (roots[r] < 0 || (i >= roots[r] && i < s->nodes[roots[r]].end)) return i;
    }
    return -1;
}

int cl_scene_next(const cl_scene *s, int i, int field)
{
    const scene_index *ix = s->index;
    if (!ix || i < 0 || i >= s->node_count || field < 0 || field > 2) return -1;
    return ix->next[field][i];
}
