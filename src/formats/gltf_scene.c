/* gltf_scene.c — node hierarchy -> skeleton, skins -> inverse binds and
 * weights, meshes and primitives -> mr_mesh (rules in gltf.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/morph.h"
#include "core/alloc.h"
#include "core/str.h"
#include "formats/gltf_internal.h"

typedef struct node_info {
    int mesh, skin;
    mat4 local;
    const char *name;
    int reached;         /* in the DFS order */
    int needed;
} node_info;

typedef struct scene_reader {
    gl_doc *d;
    gl_scene *s;
    node_info *nodes;
    int *order, order_count;
    gl_json *jnodes;
    mat4 *ibm;           /* per joint */
    int *ibm_skin;       /* per joint: skin that set it, -1 rest pose */
    vec3 *origins;
    int skin_count;
    mat4 **skin_ibm;     /* per skin: its inverse binds (read once) */
    int **skin_joints;   /* per skin: skeleton joint of each entry */
    int *skin_njoints;
    long cut_vertices, unweighted, approx_rebind, morphs, skipped_modes, rigid_skin;
    char first_unmorphed[128];  /* the first primitive counted in morphs */
} scene_reader;

/* ---- nodes ------------------------------------------------------------------ */

static mr_status read_node(scene_reader *r, int i)
{
    gl_doc *d = r->d;
    char path[128];
    gl_path(path, sizeof path, "/nodes/", i, NULL);
    gl_json *o = gl_json_at(r->jnodes, (size_t)i);
    if (!gl_json_is_object(o)) return gl_fail(d, path, "expected an object");
    node_info *n = &r->nodes[i];
    n->mesh = n->skin = -1;
    mr_status st;
    if ((st = gl_ref(d, o, path, "mesh", GL_OPTIONAL, "meshes", &n->mesh)) != MR_OK) return st;
    if ((st = gl_ref(d, o, path, "skin", GL_OPTIONAL, "skins", &n->skin)) != MR_OK) return st;
    if ((st = gl_str(d, o, path, "name", GL_OPTIONAL, &n->name)) != MR_OK) return st;
    float mat[16];
    gl_json *jm = gl_json_get(o, "matrix");
    if (jm) {
        if ((st = gl_nums(d, o, path, "matrix", GL_REQUIRED, 16, mat)) != MR_OK) return st;
        memcpy(n->local, mat, sizeof mat);  /* column-major, as cglm */
    } else {
        vec3 t = {0, 0, 0}, sc = {1, 1, 1};
        versor q = {0, 0, 0, 1};
        if ((st = gl_nums(d, o, path, "translation", GL_OPTIONAL, 3, t)) != MR_OK) return st;
        if ((st = gl_nums(d, o, path, "rotation", GL_OPTIONAL, 4, q)) != MR_OK) return st;
        if ((st = gl_nums(d, o, path, "scale", GL_OPTIONAL, 3, sc)) != MR_OK) return st;
        float len = glm_vec4_norm(q);
        if (!(len > 1e-6f)) return gl_fail(d, path, "'rotation' is a zero quaternion (expected a unit quaternion)");
        glm_vec4_scale(q, 1.0f / len, q);
        glm_mat4_identity(n->local);
        glm_translate(n->local, t);
        glm_quat_rotate(n->local, q, n->local);
        glm_scale(n->local, sc);
    }
    gl_json *ch = NULL;
    if ((st = gl_arr(d, o, path, "children", GL_OPTIONAL, &ch)) != MR_OK) return st;
    for (size_t k = 0; ch && k < gl_json_size(ch); k++) {
        gl_json *v = gl_json_at(ch, k);
        long long c = gl_json_is_integer(v) ? gl_json_integer(v) : -1;
        if (c < 0 || c >= r->s->node_count)
            return gl_fail(d, path, "'children'[%zu]: expected a node index 0..%d", k, r->s->node_count - 1);
        if (c == i) return gl_fail(d, path, "'children'[%zu]: the node is its own child (a cycle)", k);
        if (r->s->parent[c] >= 0 && r->s->parent[c] != i)
            return gl_fail(d, path, "'children'[%zu]: node %lld is already a child of node %d (expected a tree)", k, c,
                           r->s->parent[c]);
        if (r->s->parent[c] == i) return gl_fail(d, path, "'children'[%zu]: node %lld is listed twice", k, c);
        r->s->parent[c] = i;
    }
    return MR_OK;
}

static mr_status check_cycles(scene_reader *r)
{
    int n = r->s->node_count;
    int *stamp = mr_alloc_array((size_t)n, sizeof *stamp);
    if (!stamp) return gl_fail_status(r->d, MR_ERR_NO_MEMORY, NULL, "out of memory");
    /* stamp: 0 unvisited, i+1 on the walk that started at i, -1 known to reach a root. */
    for (int i = 0; i < n; i++) {
        int j = i;
        while (j >= 0 && stamp[j] == 0) {
            stamp[j] = i + 1;
            j = r->s->parent[j];
        }
        if (j >= 0 && stamp[j] == i + 1) {
            free(stamp);
            return gl_fail(r->d, "/nodes", "node %d is its own ancestor (the 'children' lists form a cycle)", j);
        }
        for (int k = i; k >= 0 && stamp[k] == i + 1; k = r->s->parent[k]) stamp[k] = -1;
    }
    free(stamp);
    return MR_OK;
}

/* Appends root's subtree in depth-first order (iteratively: no recursion
 * depth limit; children in their file order). */
static mr_status dfs(scene_reader *r, int root, int *stack)
{
    int top = 0;
    stack[top++] = root;
    while (top > 0) {
        int i = stack[--top];
        if (r->nodes[i].reached) continue;
        r->nodes[i].reached = 1;
        r->order[r->order_count++] = i;
        gl_json *ch = gl_json_get(gl_json_at(r->jnodes, (size_t)i), "children");
        for (size_t k = gl_json_size(ch); k-- > 0;) {
            int c = (int)gl_json_integer(gl_json_at(ch, k));
            if (!r->nodes[c].reached) stack[top++] = c;
        }
    }
    return MR_OK;
}

static mr_status read_roots(scene_reader *r)
{
    gl_doc *d = r->d;
    gl_scene *s = r->s;
    gl_json *scenes;
    int scene_count;
    mr_status st = gl_top(d, "scenes", &scenes, &scene_count);
    if (st != MR_OK) return st;
    int scene = -1;
    if ((st = gl_ref(d, d->root, "", "scene", GL_OPTIONAL, "scenes", &scene)) != MR_OK) return st;
    s->roots = mr_alloc_array((size_t)s->node_count, sizeof *s->roots);
    if (!s->roots) return gl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory");
    if (scene < 0 && scene_count > 0) scene = 0;
    if (scene < 0) {
        for (int i = 0; i < s->node_count; i++)
            if (s->parent[i] < 0) s->roots[s->root_count++] = i;
        if (s->node_count) mr_model_warn(d->model, "%s: no scene: every root node is shown", d->name);
        return MR_OK;
    }
    char path[128];
    snprintf(path, sizeof path, "/scenes/%d", scene);
    gl_json *so, *list = NULL;
    if ((st = gl_elem(d, "scenes", scene, "/scene", &so)) != MR_OK) return st;
    if ((st = gl_arr(d, so, path, "nodes", GL_OPTIONAL, &list)) != MR_OK) return st;
    for (size_t k = 0; list && k < gl_json_size(list); k++) {
        gl_json *v = gl_json_at(list, k);
        long long c = gl_json_is_integer(v) ? gl_json_integer(v) : -1;
        if (c < 0 || c >= s->node_count)
            return gl_fail(d, path, "'nodes'[%zu]: expected a node index 0..%d", k, s->node_count - 1);
        if (s->parent[c] >= 0)
            return gl_fail(d, path, "'nodes'[%zu]: node %lld is a child of node %d (expected root nodes)", k, c,
                           s->parent[c]);
        int dup = 0;
        for (int q = 0; q < s->root_count && !dup; q++) dup = s->roots[q] == c;
        if (!dup) s->roots[s->root_count++] = (int)c;
    }
    return MR_OK;
}

/* ---- skins ------------------------------------------------------------------ */

static mr_status read_skin_lists(scene_reader *r)
{
    gl_doc *d = r->d;
    gl_json *skins;
    mr_status st = gl_top(d, "skins", &skins, &r->skin_count);
    if (st != MR_OK) return st;
    r->skin_ibm = mr_alloc_array((size_t)r->skin_count, sizeof *r->skin_ibm);
    r->skin_joints = mr_alloc_array((size_t)r->skin_count, sizeof *r->skin_joints);
    r->skin_njoints = mr_alloc_array((size_t)r->skin_count, sizeof *r->skin_njoints);
    if (!r->skin_ibm || !r->skin_joints || !r->skin_njoints)
        return gl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory");
    return MR_OK;
}

/* Reads skin k's joints (as node indices first) and inverse binds. */
static mr_status read_skin(scene_reader *r, int k)
{
    gl_doc *d = r->d;
    if (r->skin_joints[k]) return MR_OK;
    char path[128];
    snprintf(path, sizeof path, "/skins/%d", k);
    gl_json *o, *joints;
    mr_status st = gl_elem(d, "skins", k, path, &o);
    if (st == MR_OK) st = gl_arr(d, o, path, "joints", GL_REQUIRED, &joints);
    if (st != MR_OK) return st;
    int n = (int)gl_json_size(joints);
    if (n == 0) return gl_fail(d, path, "'joints' is empty (expected at least one node)");
    if (n > MR_MAX_JOINTS) return gl_fail_status(d, MR_ERR_LIMIT, path, "'joints' lists %d nodes (limit %d)", n, MR_MAX_JOINTS);
    if ((st = gl_alloc(d, path, (size_t)n, sizeof(int), &r->skin_joints[k])) != MR_OK) return st;
    if ((st = gl_alloc(d, path, (size_t)n, sizeof(mat4), &r->skin_ibm[k])) != MR_OK) return st;
    r->skin_njoints[k] = n;
    for (int q = 0; q < n; q++) {
        gl_json *v = gl_json_at(joints, (size_t)q);
        long long c = gl_json_is_integer(v) ? gl_json_integer(v) : -1;
        if (c < 0 || c >= r->s->node_count)
            return gl_fail(d, path, "'joints'[%d]: expected a node index 0..%d", q, r->s->node_count - 1);
        r->skin_joints[k][q] = (int)c;
        glm_mat4_identity(r->skin_ibm[k][q]);
    }
    int acc = -1;
    if ((st = gl_ref(d, o, path, "inverseBindMatrices", GL_OPTIONAL, "accessors", &acc)) != MR_OK) return st;
    if (acc >= 0) {
        gl_accessor a;
        char use[256];
        snprintf(use, sizeof use, "%s/inverseBindMatrices", path);
        if ((st = gl_accessor_floats(d, acc, GL_T_MAT4, 1, use, &a)) != MR_OK) return st;
        if (a.count < n) {
            gl_accessor_free(d, &a);
            return gl_fail(d, use, "accessor %d holds %d matrices for %d joints", acc, a.count, n);
        }
        for (int q = 0; q < n; q++) {
            memcpy(r->skin_ibm[k][q], a.f + (size_t)q * 16, sizeof(mat4));
            r->skin_ibm[k][q][0][3] = r->skin_ibm[k][q][1][3] = r->skin_ibm[k][q][2][3] = 0;
            r->skin_ibm[k][q][3][3] = 1;
        }
        gl_accessor_free(d, &a);
    }
    return MR_OK;
}

/* ---- skeleton ---------------------------------------------------------------- */

static char *unique_name(const mr_skeleton *sk, int count, const char *base, int node)
{
    char *name = base && *base ? mr_str_dup(base) : mr_str_fmt("node%d", node);
    for (int k = 2; name; k++) {
        int clash = 0;
        for (int j = 0; j < count && !clash; j++) clash = !strcmp(sk->names[j], name);
        if (!clash) return name;
        free(name);
        name = base && *base ? mr_str_fmt("%s#%d", base, k) : mr_str_fmt("node%d#%d", node, k);
    }
    return NULL;
}

/* 1 when every primitive of mesh mi has JOINTS_0 and WEIGHTS_0: a node
 * drawing only such primitives needs no joint of its own (glTF ignores the
 * transform of a skinned mesh's node), so writing and reading a file adds
 * no joint. A shape error here is reported when the mesh itself is read. */
static int mesh_fully_skinned(const gl_doc *d, int mi)
{
    gl_json *prims = gl_json_get(gl_json_at(gl_json_get(d->root, "meshes"), (size_t)mi), "primitives");
    if (!gl_json_is_array(prims) || gl_json_size(prims) == 0) return 0;
    for (size_t p = 0; p < gl_json_size(prims); p++) {
        gl_json *attrs = gl_json_get(gl_json_at(prims, p), "attributes");
        if (!gl_json_get(attrs, "JOINTS_0") || !gl_json_get(attrs, "WEIGHTS_0")) return 0;
    }
    return 1;
}

static mr_status build_skeleton(scene_reader *r)
{
    gl_doc *d = r->d;
    gl_scene *s = r->s;
    int n = s->node_count;
    int *stack;
    mr_status st = gl_alloc(d, "/nodes", (size_t)n + 1, sizeof *stack, &stack);
    if (st != MR_OK) return st;
    for (int i = 0; i < s->root_count; i++) dfs(r, s->roots[i], stack);
    /* Needed: nodes with a mesh in the scene (but not those whose mesh is
     * skinned throughout), the joints of their skins. */
    for (int q = 0; q < r->order_count; q++) {
        node_info *ni = &r->nodes[r->order[q]];
        if (ni->mesh < 0) continue;
        ni->needed = ni->skin < 0 || !mesh_fully_skinned(d, ni->mesh);
        if (ni->skin < 0) continue;
        if ((st = read_skin(r, ni->skin)) != MR_OK) break;
        for (int j = 0; j < r->skin_njoints[ni->skin]; j++) r->nodes[r->skin_joints[ni->skin][j]].needed = 1;
    }
    /* Nodes a VRM extension names are joints too (gltf_vrm.c). */
    if (st == MR_OK) {
        unsigned char *vrm = calloc((size_t)n + 1, 1);
        if (!vrm) st = gl_fail_status(d, MR_ERR_NO_MEMORY, "/nodes", "out of memory");
        else gl_vrm_mark_nodes(d, vrm, n);
        for (int i = 0; vrm && i < n; i++)
            if (vrm[i] && r->nodes[i].reached) r->nodes[i].needed = 1;
        free(vrm);
    }
    /* Joints outside the scene: their whole tree comes along. */
    for (int i = 0; st == MR_OK && i < n; i++) {
        if (!r->nodes[i].needed || r->nodes[i].reached) continue;
        int top = i;
        while (s->parent[top] >= 0) top = s->parent[top];
        dfs(r, top, stack);
        mr_model_warn(d->model, "%s: /nodes/%d: a skin joint outside the scene; its node tree is added", d->name, i);
    }
    free(stack);
    d->spent -= ((size_t)n + 1) * sizeof *stack;
    if (st != MR_OK) return st;
    for (int q = r->order_count - 1; q >= 0; q--) {
        int i = r->order[q];
        if (r->nodes[i].needed && s->parent[i] >= 0) r->nodes[s->parent[i]].needed = 1;
    }
    /* World matrices in DFS order (parents first). */
    for (int q = 0; q < r->order_count; q++) {
        int i = r->order[q];
        if (s->parent[i] >= 0) glm_mat4_mul(s->world[s->parent[i]], r->nodes[i].local, s->world[i]);
        else glm_mat4_copy(r->nodes[i].local, s->world[i]);
    }
    int count = 0;
    for (int q = 0; q < r->order_count; q++) {
        int i = r->order[q];
        s->joint[i] = r->nodes[i].needed ? count++ : -1;
    }
    if (count > MR_MAX_JOINTS)
        return gl_fail_status(d, MR_ERR_LIMIT, "/nodes", "the skeleton would have %d joints (limit %d)", count,
                              MR_MAX_JOINTS);
    mr_skeleton *sk = &d->model->skeleton;
    if ((st = mr_skeleton_init(sk, count)) != MR_OK)
        return gl_fail_status(d, st, NULL, "out of memory for %d joints", count);
    r->ibm = mr_alloc_array((size_t)count, sizeof *r->ibm);
    r->ibm_skin = mr_alloc_array((size_t)count, sizeof *r->ibm_skin);
    r->origins = mr_alloc_array((size_t)count, sizeof *r->origins);
    if (!r->ibm || !r->ibm_skin || !r->origins) return gl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory");
    long sheared = 0;
    const char *sheared_name = NULL;
    for (int q = 0; q < r->order_count; q++) {
        int i = r->order[q], j = s->joint[i];
        if (j < 0) continue;
        sk->names[j] = unique_name(sk, j, r->nodes[i].name, i);
        if (!sk->names[j]) return gl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory");
        sk->parents[j] = s->parent[i] >= 0 ? s->joint[s->parent[i]] : -1;
        if (mr_pose_trs_from_matrix(r->nodes[i].local, sk->rest_t[j], sk->rest_r[j], sk->rest_s[j]) > 1e-4f) {
            sheared++;
            sheared_name = sk->names[j];
        }
        glm_mat4_inv(s->world[i], r->ibm[j]);
        r->ibm_skin[j] = -1;
    }
    if (sheared)
        mr_model_warn(d->model, "%ld node matrices have shear (e.g. '%s'); approximated by translation, rotation, scale",
                      sheared, sheared_name);
    /* Skin joints: the first skin (in scene order) to bind a joint sets its inverse bind. */
    for (int q = 0; q < r->order_count; q++) {
        int k = r->nodes[r->order[q]].skin;
        if (k < 0 || r->nodes[r->order[q]].mesh < 0) continue;
        for (int t = 0; t < r->skin_njoints[k]; t++) {
            int jj = s->joint[r->skin_joints[k][t]];
            if (r->ibm_skin[jj] >= 0) continue;
            glm_mat4_copy(r->skin_ibm[k][t], r->ibm[jj]);
            r->ibm_skin[jj] = k;
        }
    }
    for (int j = 0; j < count; j++) {
        glm_mat4_copy(r->ibm[j], sk->inverse_bind[j]);
        mat4 bind;
        glm_mat4_inv(r->ibm[j], bind);
        glm_vec3_copy(bind[3], r->origins[j]);
    }
    return MR_OK;
}

/* ---- primitives --------------------------------------------------------------- */

static int attr_index(gl_json *attrs, const char *name)
{
    gl_json *v = gl_json_get(attrs, name);
    return v ? (gl_json_is_integer(v) ? (int)gl_json_integer(v) : -2) : -1;
}

static mr_status read_attr(gl_doc *d, gl_json *attrs, const char *path, const char *name, int types, int count,
                           int want_uint, gl_accessor *out)
{
    memset(out, 0, sizeof *out);
    int a = -1;
    mr_status st = gl_ref(d, attrs, path, name, GL_OPTIONAL, "accessors", &a);
    if (st != MR_OK || a < 0) return st;
    char use[256];
    snprintf(use, sizeof use, "%s/%s", path, name);
    st = want_uint ? gl_accessor_uints(d, a, types, use, out) : gl_accessor_floats(d, a, types, 0, use, out);
    if (st != MR_OK) return st;
    if (count >= 0 && out->count != count) {
        int had = out->count;        /* read before the free zeroes it (it said "0 elements") */
        gl_accessor_free(d, out);
        return gl_fail(d, use, "accessor %d has %d elements but POSITION has %d", a, had, count);
    }
    return MR_OK;
}

/* Triangle list from indices (or 0..n-1) for the primitive's mode. */
static mr_status triangulate(gl_doc *d, const char *path, int mode, const uint32_t *idx, int n, uint32_t **out,
                             int *out_count)
{
    int tris = mode == 4 ? n / 3 : n >= 3 ? n - 2 : 0;
    uint32_t *t;
    mr_status st = gl_alloc(d, path, (size_t)tris * 3, sizeof *t, &t);
    if (st != MR_OK) return st;
    for (int k = 0; k < tris; k++) {
        int a, b, c;
        if (mode == 4) a = 3 * k, b = a + 1, c = a + 2;
        else if (mode == 5) a = k + (k & 1), b = k + 1 - (k & 1), c = k + 2;
        else a = 0, b = k + 1, c = k + 2;
        t[3 * k] = idx ? idx[a] : (uint32_t)a;
        t[3 * k + 1] = idx ? idx[b] : (uint32_t)b;
        t[3 * k + 2] = idx ? idx[c] : (uint32_t)c;
    }
    *out = t;
    *out_count = tris * 3;
    return MR_OK;
}

static mr_status append_mesh(gl_doc *d, gl_scene *s, int node, mr_mesh *m)
{
    mr_model *model = d->model;
    int *nodes = realloc(s->mesh_node, (size_t)(model->mesh_count + 1) * sizeof *nodes);
    if (!nodes) return gl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory");
    s->mesh_node = nodes;
    nodes[model->mesh_count] = node;
    mr_mesh *grown = realloc(model->meshes, (size_t)(model->mesh_count + 1) * sizeof *grown);
    if (!grown) return gl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory");
    model->meshes = grown;
    grown[model->mesh_count++] = *m;
    memset(m, 0, sizeof *m);
    return MR_OK;
}

enum { MAX_SETS = 4 };

/* The primitive's morph targets (gltf.h): POSITION and NORMAL deltas, moved
 * like the base vertices when the mesh is placed rigidly (place: the
 * placement, nm: its normal matrix, raw_nrm: the file's base normals, or
 * NULL), default weights from the mesh (weights: tc floats), names from the
 * mesh's extras.targetNames. */
static mr_status read_targets(gl_doc *d, gl_json *targets, const char *path, const float *weights,
                              gl_json *names, mat4 place, mat4 nm, const float *raw_nrm, mr_mesh *m)
{
    int tc = (int)gl_json_size(targets), vc = m->vertex_count;
    mr_status st = gl_charge(d, path, (size_t)vc * (size_t)tc, sizeof(vec3) * 2);
    if (st != MR_OK) return st;
    if (mr_morph_set_create(tc, vc, &m->morph) != MR_OK) return gl_fail_status(d, MR_ERR_NO_MEMORY, path, "out of memory");
    mr_morph_set *set = m->morph;
    memcpy(set->weights, weights, (size_t)tc * sizeof *weights);
    for (int k = 0; k < tc && st == MR_OK; k++) {
        char tpath[192];
        snprintf(tpath, sizeof tpath, "%s/%d", path, k);
        gl_json *t = gl_json_at(targets, (size_t)k);
        if (!gl_json_is_object(t)) return gl_fail(d, tpath, "expected an object");
        const char *name = gl_json_string(gl_json_at(names, (size_t)k));
        if (name && *name) {
            char *dup = mr_str_dup(name);
            if (!dup) return gl_fail_status(d, MR_ERR_NO_MEMORY, tpath, "out of memory");
            free(set->targets[k].name);
            set->targets[k].name = dup;
        }
        gl_accessor dp, dn;
        memset(&dn, 0, sizeof dn);
        if ((st = read_attr(d, t, tpath, "POSITION", GL_T_VEC3, vc, 0, &dp)) != MR_OK) return st;
        if ((st = read_attr(d, t, tpath, "NORMAL", GL_T_VEC3, vc, 0, &dn)) != MR_OK) {
            gl_accessor_free(d, &dp);
            return st;
        }
        mr_morph_target *mt = &set->targets[k];
        for (int v = 0; dp.f && v < vc; v++) {
            vec3 delta = {dp.f[3 * v], dp.f[3 * v + 1], dp.f[3 * v + 2]};
            if (!isfinite(delta[0]) || !isfinite(delta[1]) || !isfinite(delta[2])) {
                st = gl_fail(d, tpath, "POSITION delta of vertex %d is not a finite number", v);
                break;
            }
            if (place) glm_mat4_mulv3(place, delta, 0.0f, delta);
            glm_vec3_copy(delta, mt->positions[v]);
        }
        /* Normal deltas need the file's base normals (computed normals
         * have none to add to): without them they are dropped. */
        if (st == MR_OK && dn.f && raw_nrm) {
            if (mr_morph_set_add_normals(set, k) != MR_OK) st = gl_fail_status(d, MR_ERR_NO_MEMORY, tpath, "out of memory");
            for (int v = 0; st == MR_OK && v < vc; v++) {
                vec3 delta = {dn.f[3 * v], dn.f[3 * v + 1], dn.f[3 * v + 2]};
                if (!isfinite(delta[0]) || !isfinite(delta[1]) || !isfinite(delta[2])) {
                    st = gl_fail(d, tpath, "NORMAL delta of vertex %d is not a finite number", v);
                    break;
                }
                if (place) {
                    /* The stored base normal is normalize(nm n): scaling the
                     * moved delta by 1/|nm n| keeps the renormalised sum
                     * the moved morphed normal. */
                    vec3 base = {raw_nrm[3 * v], raw_nrm[3 * v + 1], raw_nrm[3 * v + 2]};
                    glm_mat4_mulv3(nm, base, 0.0f, base);
                    float len = glm_vec3_norm(base);
                    glm_mat4_mulv3(nm, delta, 0.0f, delta);
                    if (len > 1e-20f) glm_vec3_scale(delta, 1.0f / len, delta);
                } else {
                    float len = sqrtf(raw_nrm[3 * v] * raw_nrm[3 * v] + raw_nrm[3 * v + 1] * raw_nrm[3 * v + 1] +
                                      raw_nrm[3 * v + 2] * raw_nrm[3 * v + 2]);
                    if (len > 1e-20f) glm_vec3_scale(delta, 1.0f / len, delta);
                }
                glm_vec3_copy(delta, mt->normals[v]);
            }
        }
        gl_accessor_free(d, &dp);
        gl_accessor_free(d, &dn);
    }
    return st;
}

static mr_status skin_vertices(scene_reader *r, int node, int skin, const char *path, gl_accessor *js,
                               gl_accessor *ws, int sets, mr_mesh *m)
{
    gl_doc *d = r->d;
    const mr_skeleton *sk = &d->model->skeleton;
    int nj = r->skin_njoints[skin];
    const int *map = r->skin_joints[skin];
    int differs = 0;
    for (int q = 0; q < nj && !differs; q++) {
        int jj = r->s->joint[map[q]];
        for (int c = 0; c < 16 && !differs; c++)
            differs = fabsf(((float *)r->ibm[jj])[c] - ((float *)r->skin_ibm[skin][q])[c]) >
                      1e-5f * (1.0f + fabsf(((float *)r->ibm[jj])[c]));
    }
    (void)node;
    for (int v = 0; v < m->vertex_count; v++) {
        int jbuf[4 * MAX_SETS];
        float wbuf[4 * MAX_SETS];
        int n = 0;
        vec3 acc = {0, 0, 0}, first = {0, 0, 0};
        float wsum = 0;
        int same = 1;
        for (int set = 0; set < sets; set++)
            for (int c = 0; c < 4; c++) {
                uint32_t q = js[set].u[(size_t)v * 4 + (size_t)c];
                float w = ws[set].f[(size_t)v * 4 + (size_t)c];
                if (!(w > 0)) {  /* kept for mr_mesh_pack_influences's all-zero fallback */
                    jbuf[n] = r->s->joint[map[q < (uint32_t)nj ? q : 0]];
                    wbuf[n++] = 0;
                    continue;
                }
                if (q >= (uint32_t)nj)
                    return gl_fail(d, path, "JOINTS_%d of vertex %d is %u, past the skin's %d joints", set, v, q, nj);
                int jj = r->s->joint[map[q]];
                jbuf[n] = jj;
                wbuf[n++] = w;
                if (differs) {
                    mat4 inv, x;
                    vec3 p;
                    glm_mat4_inv(r->ibm[jj], inv);
                    glm_mat4_mul(inv, r->skin_ibm[skin][q], x);
                    glm_mat4_mulv3(x, m->positions[v], 1.0f, p);
                    if (wsum == 0) glm_vec3_copy(p, first);
                    else if (glm_vec3_distance(p, first) > 1e-5f * (1.0f + glm_vec3_norm(first))) same = 0;
                    glm_vec3_muladds(p, w, acc);
                    wsum += w;
                }
            }
        if (differs && wsum > 0) {
            glm_vec3_scale(acc, 1.0f / wsum, m->positions[v]);
            r->approx_rebind += !same;
        }
        mr_influence_rule rule = {.vertex = m->positions[v], .origins = r->origins,
                                  .names = (const char *const *)sk->names};
        int res = mr_mesh_pack_influences(jbuf, wbuf, n, &rule, m->joints[v], m->weights[v]);
        m->source_over4 += res > 4;
        m->source_over8 += res > 8;
        r->cut_vertices += res > MR_MAX_INFLUENCES;
        r->unweighted += res == 0;
    }
    return MR_OK;
}

static mr_status read_primitive(scene_reader *r, int node, int mesh, int p, gl_json *prim, const char *mesh_name,
                                int prim_count, const float *weights, gl_json *names)
{
    gl_doc *d = r->d;
    char path[128];
    snprintf(path, sizeof path, "/meshes/%d/primitives/%d", mesh, p);
    if (!gl_json_is_object(prim)) return gl_fail(d, path, "expected an object");
    long long mode = 4;
    gl_json *attrs;
    int material = -1, ind = -1;
    mr_status st = gl_int(d, prim, path, "mode", GL_OPTIONAL, 0, 6, &mode);
    if (st == MR_OK) st = gl_obj(d, prim, path, "attributes", GL_REQUIRED, &attrs);
    if (st == MR_OK) st = gl_ref(d, prim, path, "material", GL_OPTIONAL, "materials", &material);
    if (st == MR_OK) st = gl_ref(d, prim, path, "indices", GL_OPTIONAL, "accessors", &ind);
    if (st != MR_OK) return st;
    if (mode < 4) {
        r->skipped_modes++;
        return MR_OK;
    }
    gl_json *targets = gl_json_get(prim, "targets");
    if (targets && (!gl_json_is_array(targets) || !weights))
        return gl_fail(d, path, "'targets' must be an array with as many entries as the mesh's weights");
    if (!targets && weights && !r->morphs++)  /* a primitive without the mesh's targets */
        snprintf(r->first_unmorphed, sizeof r->first_unmorphed, "%s", path);
    gl_json *draco = gl_json_get(gl_json_get(prim, "extensions"), "KHR_draco_mesh_compression");
    if (draco) return gl_fail(d, path, "uses KHR_draco_mesh_compression, which marrow does not decode");
    char apath[256];
    snprintf(apath, sizeof apath, "%s/attributes", path);
    gl_accessor pos, nrm, uv, js[MAX_SETS], ws[MAX_SETS], idx;
    memset(js, 0, sizeof js);
    memset(ws, 0, sizeof ws);
    memset(&nrm, 0, sizeof nrm);
    memset(&uv, 0, sizeof uv);
    memset(&idx, 0, sizeof idx);
    mr_mesh m;
    memset(&m, 0, sizeof m);
    int sets = 0;
    if (attr_index(attrs, "POSITION") == -1) return gl_fail(d, apath, "missing required member 'POSITION'");
    if ((st = read_attr(d, attrs, apath, "POSITION", GL_T_VEC3, -1, 0, &pos)) != MR_OK) return st;
    int vc = pos.count;
    mr_material mat;
    mr_material_defaults(&mat);
    int texcoord = -1;
    if ((st = gl_material_read(d, material, &mat, &texcoord)) != MR_OK) goto done;
    if ((st = read_attr(d, attrs, apath, "NORMAL", GL_T_VEC3, vc, 0, &nrm)) != MR_OK) goto done;
    char tcname[32];
    snprintf(tcname, sizeof tcname, "TEXCOORD_%d", texcoord < 0 ? 0 : texcoord);
    if ((st = read_attr(d, attrs, apath, tcname, GL_T_VEC2, vc, 0, &uv)) != MR_OK) goto done;
    int skinned = r->nodes[node].skin >= 0;
    if (skinned) {
        for (sets = 0; sets < MAX_SETS; sets++) {
            char jn[16], wn[16];
            snprintf(jn, sizeof jn, "JOINTS_%d", sets);
            snprintf(wn, sizeof wn, "WEIGHTS_%d", sets);
            if (attr_index(attrs, jn) == -1 || attr_index(attrs, wn) == -1) break;
            if ((st = read_attr(d, attrs, apath, jn, GL_T_VEC4, vc, 1, &js[sets])) != MR_OK) goto done;
            if ((st = read_attr(d, attrs, apath, wn, GL_T_VEC4, vc, 0, &ws[sets])) != MR_OK) goto done;
        }
        if (sets == 0) {
            skinned = 0;
            r->rigid_skin++;
        }
    }
    uint32_t *tri = NULL;
    int tri_count = 0;
    if (ind >= 0) {
        char use[256];
        snprintf(use, sizeof use, "%s/indices", path);
        if ((st = gl_accessor_uints(d, ind, GL_T_SCALAR, use, &idx)) != MR_OK) goto done;
        for (int k = 0; k < idx.count; k++)
            if (idx.u[k] >= (uint32_t)vc) {
                st = gl_fail(d, use, "index %d is %u, past the %d vertices (accessor %d)", k, idx.u[k], vc, ind);
                goto done;
            }
    }
    if ((st = triangulate(d, path, (int)mode, idx.u, ind >= 0 ? idx.count : vc, &tri, &tri_count)) != MR_OK) goto done;
    size_t per_vertex = sizeof(vec3) * 2 + sizeof(vec2) + sizeof(uint16_t) * 8 + sizeof(float) * 8;
    if ((st = gl_charge(d, path, (size_t)vc, per_vertex)) != MR_OK) {
        free(tri);
        goto done;
    }
    int joint = r->s->joint[node];
    /* positions copied, normals copied or computed (which zeroes them
     * first), uvs copied when there are any, every vertex's influences
     * packed (skin_vertices) */
    unsigned set = MR_MESH_SET_POSITIONS | MR_MESH_SET_NORMALS | (uv.f ? MR_MESH_SET_UVS : 0) |
                   (skinned ? MR_MESH_SET_INFLUENCES : 0);
    if (mr_mesh_init_set(&m, vc, 0, 1, set) != MR_OK) {
        free(tri);
        st = gl_fail_status(d, MR_ERR_NO_MEMORY, path, "out of memory");
        goto done;
    }
    free(m.indices);
    m.indices = tri;
    m.index_count = tri_count;
    mr_material_defaults(&m.material);
    m.material = mat;
    mr_material_defaults(&mat);
    memcpy(m.positions, pos.f, (size_t)vc * sizeof(vec3));
    if (nrm.f) memcpy(m.normals, nrm.f, (size_t)vc * sizeof(vec3));
    for (int v = 0; uv.f && v < vc; v++) {
        m.uvs[v][0] = uv.f[2 * v];
        m.uvs[v][1] = 1.0f - uv.f[2 * v + 1];
    }
    mat4 place = GLM_MAT4_IDENTITY_INIT, nm = GLM_MAT4_IDENTITY_INIT;
    if (skinned) {
        if ((st = skin_vertices(r, node, r->nodes[node].skin, apath, js, ws, sets, &m)) != MR_OK) goto done;
    } else {
        glm_mat4_inv(r->ibm[joint], place);
        glm_mat4_inv(place, nm);
        glm_mat4_transpose(nm);
        for (int v = 0; v < vc; v++) {
            glm_mat4_mulv3(place, m.positions[v], 1.0f, m.positions[v]);
            if (nrm.f) glm_mat4_mulv3(nm, m.normals[v], 0.0f, m.normals[v]);
            m.joints[v][0] = (uint16_t)joint;
            m.weights[v][0] = 1.0f;
        }
    }
    if (targets) {
        char tpath[160];
        snprintf(tpath, sizeof tpath, "%s/targets", path);
        st = read_targets(d, targets, tpath, weights, names, skinned ? NULL : place, nm, nrm.f, &m);
        if (st != MR_OK) goto done;
    }
    if (nrm.f) {
        for (int v = 0; v < vc; v++) {
            float len = glm_vec3_norm(m.normals[v]);
            if (len > 1e-20f) glm_vec3_scale(m.normals[v], 1.0f / len, m.normals[v]);
            else glm_vec3_copy((vec3){0, 1, 0}, m.normals[v]);
        }
    } else {
        mr_mesh_compute_normals(&m);
    }
    m.name = prim_count > 1 ? mr_str_fmt("%s/%d", mesh_name, p) : mr_str_dup(mesh_name);
    st = append_mesh(d, r->s, node, &m);
done:
    mr_mesh_deinit(&m);
    free(mat.name);
    free(mat.diffuse_map);
    free(mat.normal_map);
    free(mat.diffuse_bytes);
    free(mat.normal_bytes);
    gl_accessor_free(d, &pos);
    gl_accessor_free(d, &nrm);
    gl_accessor_free(d, &uv);
    gl_accessor_free(d, &idx);
    for (int k = 0; k < MAX_SETS; k++) {
        gl_accessor_free(d, &js[k]);
        gl_accessor_free(d, &ws[k]);
    }
    return st;
}

/* A mesh's morph target count (every primitive with targets must have the
 * same number, glTF 2.0 3.7.2.2) and its default weights (`weights`, as
 * many, finite; zeros without it) in *out (NULL: no targets; caller frees). */
static mr_status read_mesh_weights(gl_doc *d, gl_json *mo, gl_json *prims, const char *path, float **out)
{
    *out = NULL;
    int tc = 0, first = -1;
    for (size_t p = 0; p < gl_json_size(prims); p++) {
        gl_json *t = gl_json_get(gl_json_at(prims, p), "targets");
        if (!gl_json_is_array(t)) continue;
        int n = (int)gl_json_size(t);
        if (first >= 0 && n != tc) {
            char pp[160];
            snprintf(pp, sizeof pp, "%s/primitives/%zu/targets", path, p);
            return gl_fail(d, pp, "%d morph targets, but primitive %d has %d (expected the same number on every primitive)",
                           n, first, tc);
        }
        if (first < 0) first = (int)p, tc = n;
    }
    gl_json *w = gl_json_get(mo, "weights");
    if (w && (!gl_json_is_array(w) || (int)gl_json_size(w) != tc))
        return gl_fail(d, path, "'weights' has %d entries but the primitives have %d morph targets (expected as many)",
                       gl_json_is_array(w) ? (int)gl_json_size(w) : -1, tc);
    if (tc == 0) return MR_OK;
    float *ws = mr_alloc_array((size_t)tc, sizeof *ws);
    if (!ws) return gl_fail_status(d, MR_ERR_NO_MEMORY, path, "out of memory");
    for (int k = 0; w && k < tc; k++) {
        gl_json *e = gl_json_at(w, (size_t)k);
        if (!gl_json_is_number(e) || !isfinite(gl_json_number(e))) {
            free(ws);
            return gl_fail(d, path, "'weights' entry %d is not a finite number", k);
        }
        ws[k] = (float)gl_json_number(e);
    }
    *out = ws;
    return MR_OK;
}

static mr_status read_meshes(scene_reader *r)
{
    gl_doc *d = r->d;
    for (int q = 0; q < r->order_count; q++) {
        int i = r->order[q], mi = r->nodes[i].mesh;
        if (mi < 0) continue;
        char path[128];
        snprintf(path, sizeof path, "/meshes/%d", mi);
        gl_json *mo, *prims;
        const char *name = NULL;
        mr_status st = gl_elem(d, "meshes", mi, path, &mo);
        if (st == MR_OK) st = gl_arr(d, mo, path, "primitives", GL_REQUIRED, &prims);
        if (st == MR_OK) st = gl_str(d, mo, path, "name", GL_OPTIONAL, &name);
        if (st != MR_OK) return st;
        float *weights = NULL;
        if ((st = read_mesh_weights(d, mo, prims, path, &weights)) != MR_OK) return st;
        gl_json *names = gl_json_get(gl_json_get(mo, "extras"), "targetNames");
        char *mesh_name = name && *name ? mr_str_dup(name) : mr_str_fmt("mesh%d", mi);
        if (!mesh_name) {
            free(weights);
            return gl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory");
        }
        int pc = (int)gl_json_size(prims);
        for (int p = 0; p < pc && st == MR_OK; p++)
            st = read_primitive(r, i, mi, p, gl_json_at(prims, (size_t)p), mesh_name, pc, weights, names);
        free(mesh_name);
        free(weights);
        if (st != MR_OK) return st;
    }
    mr_model *model = d->model;
    if (r->skipped_modes)
        mr_model_warn(model, "%s: %ld primitives of points or lines skipped (only triangles, strips and fans are drawn)",
                      d->name, r->skipped_modes);
    if (r->morphs)
        mr_model_warn(model, "%s: %s: %ld primitives of meshes with morph targets have none (expected the same "
                      "targets on every primitive): they are drawn unmorphed", d->name, r->first_unmorphed, r->morphs);
    if (r->rigid_skin)
        mr_model_warn(model, "%s: %ld primitives of skinned nodes have no JOINTS_0/WEIGHTS_0: drawn rigidly with their node",
                      d->name, r->rigid_skin);
    if (r->cut_vertices)
        mr_model_warn(model, "%ld skinned vertices had more than %d joint influences: kept the %d heaviest, renormalised",
                      r->cut_vertices, MR_MAX_INFLUENCES, MR_MAX_INFLUENCES);
    if (r->unweighted)
        mr_model_warn(model, "%ld skinned vertices have no positive weight: bound to their first joint", r->unweighted);
    if (r->approx_rebind)
        mr_model_warn(model, "%ld vertices of a second skin were bound in another pose than the skeleton's; rebound "
                      "approximately", r->approx_rebind);
    if (!model->mesh_count) mr_model_warn(model, "%s: the scene has no triangle geometry", d->name);
    return MR_OK;
}

mr_status gl_scene_read(gl_doc *d, gl_scene *s)
{
    memset(s, 0, sizeof *s);
    scene_reader r;
    memset(&r, 0, sizeof r);
    r.d = d;
    r.s = s;
    mr_status st = gl_top(d, "nodes", &r.jnodes, &s->node_count);
    if (st != MR_OK) return st;
    int n = s->node_count;
    if ((st = gl_alloc(d, "/nodes", (size_t)n, sizeof *r.nodes, &r.nodes)) != MR_OK) return st;
    s->parent = mr_alloc_array((size_t)n, sizeof *s->parent);
    s->joint = mr_alloc_array((size_t)n, sizeof *s->joint);
    s->world = mr_alloc_array((size_t)n, sizeof *s->world);
    r.order = mr_alloc_array((size_t)n, sizeof *r.order);
    if (!s->parent || !s->joint || !s->world || !r.order) {
        st = gl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++) s->parent[i] = s->joint[i] = -1;
    for (int i = 0; i < n && st == MR_OK; i++) st = read_node(&r, i);
    if (st == MR_OK) st = check_cycles(&r);
    if (st == MR_OK) st = read_roots(&r);
    if (st == MR_OK) st = read_skin_lists(&r);
    if (st == MR_OK) st = build_skeleton(&r);
    if (st == MR_OK) st = read_meshes(&r);
out:
    for (int k = 0; k < r.skin_count; k++) {
        free(r.skin_ibm ? r.skin_ibm[k] : NULL);
        free(r.skin_joints ? r.skin_joints[k] : NULL);
    }
    free(r.skin_ibm);
    free(r.skin_joints);
    free(r.skin_njoints);
    free(r.ibm);
    free(r.ibm_skin);
    free(r.origins);
    free(r.order);
    free(r.nodes);
    return st;
}

void gl_scene_free(gl_scene *s)
{
    free(s->parent);
    free(s->joint);
    free(s->world);
    free(s->roots);
    free(s->mesh_node);
    memset(s, 0, sizeof *s);
}
