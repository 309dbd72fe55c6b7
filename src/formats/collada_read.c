/* collada_read.c — assembles an mr_model from a parsed COLLADA document, and
 * the public entry points mr_collada_load / mr_collada_parse.
 *
 * Order of work: scene nodes -> skins (bind their joints to nodes) -> which
 * nodes the skeleton needs (skin joints, nodes holding geometry, JOINT
 * nodes, and every ancestor of those) -> skeleton in depth-first order ->
 * meshes (skinned, or rigidly bound to their node's joint) -> clips. All of
 * it is read in the document's frame and converted once to Y-up metres:
 * a point p becomes s*R*p and a transform M becomes (sR) M (sR)^-1, with R
 * the axis permutation of <up_axis> and s the <unit meter>.
 */
#include "formats/collada.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/morph.h"
#include "core/alloc.h"
#include "core/file.h"
#include "core/str.h"
#include "formats/collada_internal.h"

typedef struct mat_cache {
    cl_el *el;
    mr_material mat;
} mat_cache;

typedef struct reader {
    cl_doc d;
    cl_scene s;
    mr_model *model;
    cl_frame_conv conv;
    int skin_count;
    cl_skin *skins;      /* one per <instance_controller>, in scene order */
    int *skin_of_inst;   /* instance -> skin index or -1 */
    mat4 *ibm;           /* per joint, file space: the skeleton's inverse bind */
    int *ibm_skin;       /* per joint: skin that set ibm, -1 for the rest pose */
    vec3 *origins;       /* per joint, file space: bind-pose origin (influence ties) */
    int mat_count;
    size_t mat_cap;
    mat_cache *mats;
    long cut_vertices, unweighted_vertices, bind_shape_vertices, approx_rebind;
    size_t spent, budget;  /* mesh bytes the instances made, and the cap (CL_MESH_BUDGET_*) */
} reader;

/* What the meshes of all instances may hold, in bytes (MR_ERR_LIMIT beyond):
 * CL_MESH_BUDGET_FACTOR x the file's size + CL_MESH_BUDGET_CONST. A real
 * file makes at most ~1.6 x its size (measured on ../shared/models); one
 * 30k-vertex geometry instanced 1000 times made 4.5 GB. Vertices are
 * counted at CL_VERTEX_BYTES (position, normal, uv, 8 joints and weights),
 * indices at 4 bytes. */
#define CL_MESH_BUDGET_FACTOR 16
#define CL_MESH_BUDGET_CONST ((size_t)64 << 20)
#define CL_VERTEX_BYTES 80

static void frame_conv_init(cl_frame_conv *c, mr_up_axis up, double meter)
{
    glm_mat3_identity(c->rot);
    if (up == MR_UP_Z) {        /* (x, y, z) -> (x, z, -y) */
        glm_mat3_copy((mat3){{1, 0, 0}, {0, 0, -1}, {0, 1, 0}}, c->rot);
    } else if (up == MR_UP_X) { /* (x, y, z) -> (-y, x, z) */
        glm_mat3_copy((mat3){{0, 1, 0}, {-1, 0, 0}, {0, 0, 1}}, c->rot);
    }
    c->scale = (float)meter;
    c->meter = meter;
    c->identity_rot = up == MR_UP_Y;
}

/* The per-vertex math below works on named scalars, never on a small
 * array in memory: the compiler read such arrays back with wider loads
 * than it stored them with, a failed store-to-load forward per vertex. */

/* rot is a signed axis permutation (exact); the unit is applied in double
 * so each coordinate is rounded once. */
static inline void conv_point(const cl_frame_conv *c, float x, float y, float z, vec3 out)
{
    const float(*r)[3] = (const float(*)[3])c->rot;
    double t0 = (double)r[0][0] * x + (double)r[1][0] * y + (double)r[2][0] * z;
    double t1 = (double)r[0][1] * x + (double)r[1][1] * y + (double)r[2][1] * z;
    double t2 = (double)r[0][2] * x + (double)r[1][2] * y + (double)r[2][2] * z;
    out[0] = (float)(t0 * c->meter);
    out[1] = (float)(t1 * c->meter);
    out[2] = (float)(t2 * c->meter);
}

/* m * (v, w), summed as cglm's SSE2 glm_mat4_mulv3 sums (the same bits on
 * x86-64). */
static inline void mulv3(const mat4 m, const vec3 v, float w, float *ox, float *oy, float *oz)
{
    float x = v[0], y = v[1], z = v[2];
    *ox = ((m[3][0] * w + m[2][0] * z) + m[1][0] * y) + m[0][0] * x;
    *oy = ((m[3][1] * w + m[2][1] * z) + m[1][1] * y) + m[0][1] * x;
    *oz = ((m[3][2] * w + m[2][2] * z) + m[1][2] * y) + m[0][2] * x;
}

/* ---- materials ------------------------------------------------------------ */

static mr_status material_for(reader *r, cl_el *inst_el, const char *symbol, mr_material *out)
{
    cl_el *mat_el = NULL;
    cl_el *bm = cl_child(inst_el, "bind_material");
    cl_el *tc = bm ? cl_child(bm, "technique_common") : NULL;
    if (symbol && tc) {
        for (cl_el *im = cl_child(tc, "instance_material"); im; im = cl_next(im, "instance_material")) {
            const char *sym = cl_attr(im, "symbol");
            if (sym && !strcmp(sym, symbol)) {
                /* A target naming nothing in the file (assimp's
                 * cube_emptyTags.dae has an empty <library_materials>)
                 * leaves only the look unknown: default material, warned. */
                const char *target = cl_attr(im, "target");
                if (target && target[0] == '#' && !cl_lookup(&r->d, target)) {
                    mr_model_warn(r->model, "%s: instance_material '%s' (line %ld): target '%s' is no "
                                  "element of the file; default material used",
                                  r->d.name, sym, cl_line(im), target);
                    break;
                }
                mr_status st = cl_ref(&r->d, im, "target", "material", &mat_el);
                if (st != MR_OK) return st;
                break;
            }
        }
    }
    if (!mat_el && symbol) {
        cl_el *n = cl_find_id(&r->d, symbol, strlen(symbol));
        if (n && cl_is(n, "material")) mat_el = n;
    }
    if (!mat_el) {
        free(out->name);
        out->name = mr_str_dup(symbol ? symbol : "default");
        return MR_OK;
    }
    for (int i = 0; i < r->mat_count; i++)
        if (r->mats[i].el == mat_el) {
            const mr_material *c = &r->mats[i].mat;
            char *name = mr_str_dup(c->name), *dm = mr_str_dup(c->diffuse_map), *nm = mr_str_dup(c->normal_map);
            free(out->name);
            free(out->diffuse_map);
            free(out->normal_map);
            *out = *c;
            out->name = name;
            out->diffuse_map = dm;
            out->normal_map = nm;
            return MR_OK;
        }
    mr_status st = cl_material_read(&r->d, mat_el, out);
    if (st != MR_OK) return st;
    if (mr_alloc_reserve((void **)&r->mats, &r->mat_cap, (size_t)r->mat_count + 1, sizeof *r->mats) == 0) {
        mat_cache *c = &r->mats[r->mat_count++];
        c->el = mat_el;
        c->mat = *out;
        c->mat.name = mr_str_dup(out->name);
        c->mat.diffuse_map = mr_str_dup(out->diffuse_map);
        c->mat.normal_map = mr_str_dup(out->normal_map);
    }
    return MR_OK;
}

/* ---- skeleton ------------------------------------------------------------- */

static mr_status read_skins(reader *r)
{
    cl_scene *s = &r->s;
    r->skin_of_inst = mr_alloc_array((size_t)s->inst_count, sizeof *r->skin_of_inst);
    r->skins = mr_alloc_array((size_t)s->inst_count, sizeof *r->skins);
    if (!r->skin_of_inst || !r->skins) return cl_fail_status(&r->d, MR_ERR_NO_MEMORY, NULL, "out of memory");
    for (int i = 0; i < s->inst_count; i++) {
        r->skin_of_inst[i] = -1;
        if (!s->insts[i].is_controller) continue;
        mr_status st = cl_skin_read(&r->d, s, &s->insts[i], &r->skins[r->skin_count]);
        if (st != MR_OK) return st;
        r->skin_of_inst[i] = r->skin_count++;
    }
    return MR_OK;
}

/* Unique joint name for node i, against the count names so far (hash:
 * their mr_str_hash; it gets the new name's). */
static char *joint_name(const mr_skeleton *sk, int count, uint32_t *hash, const cl_node *n, int index)
{
    const char *base = n->name && *n->name ? n->name : n->id && *n->id ? n->id : n->sid && *n->sid ? n->sid : NULL;
    char *name = base ? mr_str_dup(base) : mr_str_fmt("node%d", index);
    for (int k = 2; name; k++) {
        int clash = 0;
        uint32_t h = hash[count] = mr_str_hash(name);
        for (int j = 0; j < count && !clash; j++) clash = hash[j] == h && !strcmp(sk->names[j], name);
        if (!clash) return name;
        free(name);
        name = mr_str_fmt("%s#%d", base ? base : "node", k);
    }
    return NULL;
}

static mr_status build_skeleton(reader *r)
{
    cl_scene *s = &r->s;
    cl_doc *d = &r->d;
    for (int i = 0; i < s->node_count; i++) s->nodes[i].needed = s->nodes[i].is_joint;
    for (int k = 0; k < r->skin_count; k++)
        for (int j = 0; j < r->skins[k].joint_count; j++) s->nodes[r->skins[k].joint_node[j]].needed = 1;
    /* Nodes holding geometry, a morph shown as its base mesh, or a skin
     * with weight on its bind shape (which follows the skin's node). */
    for (int i = 0; i < s->inst_count; i++) {
        const cl_skin *sk = s->insts[i].is_controller ? &r->skins[r->skin_of_inst[i]] : NULL;
        if (!sk || !sk->skin_el || sk->uses_bind_shape) s->nodes[s->insts[i].node].needed = 1;
    }
    for (int i = s->node_count - 1; i >= 0; i--)
        if (s->nodes[i].needed && s->nodes[i].parent >= 0) s->nodes[s->nodes[i].parent].needed = 1;
    int count = 0;
    for (int i = 0; i < s->node_count; i++) s->nodes[i].joint = s->nodes[i].needed ? count++ : -1;
    if (count > MR_MAX_JOINTS)
        return cl_fail_status(d, MR_ERR_LIMIT, s->visual_scene, "the skeleton would have %d joints (limit %d)", count,
                              MR_MAX_JOINTS);
    mr_skeleton *sk = &r->model->skeleton;
    mr_status st = mr_skeleton_init(sk, count);
    if (st != MR_OK) return cl_fail_status(d, st, NULL, "out of memory for %d joints", count);
    r->ibm = mr_alloc_array((size_t)count, sizeof *r->ibm);
    r->ibm_skin = mr_alloc_array((size_t)count, sizeof *r->ibm_skin);
    uint32_t *name_hash = mr_alloc_array((size_t)count, sizeof *name_hash);   /* the names' so far */
    if (!r->ibm || !r->ibm_skin || !name_hash) {
        free(name_hash);
        return cl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory");
    }
    long sheared = 0;
    const char *sheared_name = NULL;
    int j = 0;
    for (int i = 0; i < s->node_count; i++) {
        cl_node *n = &s->nodes[i];
        if (n->joint < 0) continue;
        sk->names[j] = joint_name(sk, j, name_hash, n, i);
        if (!sk->names[j]) {
            free(name_hash);
            return cl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory");
        }
        sk->parents[j] = n->parent >= 0 ? s->nodes[n->parent].joint : -1;
        mat4 local;
        cl_conv_matrix(&r->conv, n->local, local);
        if (mr_pose_trs_from_matrix(local, sk->rest_t[j], sk->rest_r[j], sk->rest_s[j]) > 1e-4f) {
            sheared++;
            sheared_name = sk->names[j];
        }
        glm_mat4_inv(n->world, r->ibm[j]);
        r->ibm_skin[j] = -1;
        j++;
    }
    free(name_hash);
    if (sheared)
        mr_model_warn(r->model, "%ld node transform(s) have shear (e.g. '%s'); approximated by translation, rotation, scale",
                      sheared, sheared_name);
    /* The skin's INV_BIND_MATRIX wins over the rest pose; the first skin
     * to bind a joint sets it. */
    for (int k = 0; k < r->skin_count; k++)
        for (int q = 0; q < r->skins[k].joint_count; q++) {
            int jj = s->nodes[r->skins[k].joint_node[q]].joint;
            if (r->ibm_skin[jj] >= 0) continue;
            glm_mat4_copy(r->skins[k].inv_bind[q], r->ibm[jj]);
            r->ibm_skin[jj] = k;
        }
    /* A skin's bind shape follows the skin's node: x = node * P with
     * P = BSM^-1 * (BSM * P), so that joint's inverse bind is BSM^-1 unless
     * a skin already bound it as a joint. */
    for (int i = 0; i < s->inst_count; i++) {
        if (r->skin_of_inst[i] < 0) continue;
        const cl_skin *k = &r->skins[r->skin_of_inst[i]];
        int jj = s->nodes[s->insts[i].node].joint;
        if (!k->uses_bind_shape || r->ibm_skin[jj] != -1) continue;
        glm_mat4_inv((vec4 *)k->bind_shape, r->ibm[jj]);
        r->ibm_skin[jj] = -2;
    }
    for (j = 0; j < count; j++) cl_conv_matrix(&r->conv, r->ibm[j], sk->inverse_bind[j]);
    r->origins = mr_alloc_array((size_t)count, sizeof *r->origins);
    if (count && !r->origins) return cl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory");
    for (j = 0; j < count; j++) {
        mat4 bind;
        glm_mat4_inv(r->ibm[j], bind);
        glm_vec3_copy(bind[3], r->origins[j]);
    }
    return MR_OK;
}

/* ---- meshes --------------------------------------------------------------- */

static mr_status append_mesh(reader *r, mr_mesh *m)
{
    mr_mesh *grown = realloc(r->model->meshes, (size_t)(r->model->mesh_count + 1) * sizeof *grown);
    if (!grown) return cl_fail_status(&r->d, MR_ERR_NO_MEMORY, NULL, "out of memory");
    r->model->meshes = grown;
    grown[r->model->mesh_count++] = *m;
    memset(m, 0, sizeof *m);
    return MR_OK;
}

static int mats_close(const mat4 a, const mat4 b, float eps)
{
    for (int c = 0; c < 4; c++)
        for (int k = 0; k < 4; k++)
            if (fabsf(a[c][k] - b[c][k]) > eps * (1.0f + fabsf(a[c][k]))) return 0;
    return 1;
}

/* Collects one influence into jbuf/wbuf (64 at most: the heaviest). */
static void add_influence(int *jbuf, float *wbuf, int *n, int joint, float w)
{
    if (*n < 64) {
        jbuf[*n] = joint;
        wbuf[*n] = w;
        (*n)++;
        return;
    }
    /* Beyond 64 influences only heavier ones can matter. */
    int lightest = 0;
    for (int t = 1; t < 64; t++)
        if (wbuf[t] < wbuf[lightest]) lightest = t;
    if (w > wbuf[lightest]) {
        jbuf[lightest] = joint;
        wbuf[lightest] = w;
    }
}

/* Joints and weights of one skinned vertex whose source position is pi;
 * pos is its bind-space position (file space, bind shape applied), which a
 * rebind may move. rebind[q] maps a skin joint's bind space to the
 * skeleton's when the two inverse binds differ (NULL when all agree); it
 * has joint_count + 1 entries: the last maps the bind shape. seen[] flags
 * source positions already counted in the warnings. Returns
 * mr_mesh_pack_influences's count. */
static int skin_vertex(reader *r, const cl_skin *skin, int node_joint, int pi, float *pos, mat4 *rebind,
                       unsigned char *seen, uint16_t out_j[MR_MAX_INFLUENCES], float out_w[MR_MAX_INFLUENCES])
{
    const cl_scene *s = &r->s;
    int jbuf[64];
    float wbuf[64];
    int lo = skin->offsets[pi], hi = skin->offsets[pi + 1];
    int n = 0;
    vec3 acc = {0, 0, 0}, first = {0, 0, 0};
    int same = 1;
    float wsum = 0, on_joints = 0, on_shape = 0;
    for (int k = lo; k < hi; k++) {
        if (skin->joints[k] < 0) on_shape += skin->weights[k];
        else on_joints += skin->weights[k];
    }
    if (on_joints + on_shape < 1.0f - CL_BIND_SHAPE_EPS) on_shape = 1.0f - on_joints;
    for (int k = lo; k <= hi; k++) {
        int q;
        float w;
        if (k < hi) {
            q = skin->joints[k];
            w = skin->weights[k];
            if (q < 0) continue;
            add_influence(jbuf, wbuf, &n, s->nodes[skin->joint_node[q]].joint, w);
        } else {
            if (!(on_shape > 0)) break;
            q = skin->joint_count;
            w = on_shape;
            add_influence(jbuf, wbuf, &n, node_joint, w);
            if (!(seen[pi] & 1)) r->bind_shape_vertices++;
            seen[pi] |= 1;
        }
        if (rebind && w > 0) {
            vec3 x;
            glm_mat4_mulv3(rebind[q], pos, 1.0f, x);
            if (wsum == 0) glm_vec3_copy(x, first);
            else if (glm_vec3_distance(x, first) > 1e-5f * (1.0f + glm_vec3_norm(first))) same = 0;
            glm_vec3_muladds(x, w, acc);
            wsum += w;
        }
    }
    if (rebind && wsum > 0) {
        if (!same && !(seen[pi] & 8)) r->approx_rebind++;
        if (!same) seen[pi] |= 8;
        glm_vec3_scale(acc, 1.0f / wsum, pos);
    }
    /* Ties by distance in the skeleton's bind space (file units), then name. */
    mr_influence_rule rule = {.vertex = pos, .origins = r->origins,
                              .names = (const char *const *)r->model->skeleton.names};
    int res = mr_mesh_pack_influences(jbuf, wbuf, n, &rule, out_j, out_w);
    if (res > MR_MAX_INFLUENCES && !(seen[pi] & 2)) r->cut_vertices++;
    else if (res == 0 && !(seen[pi] & 4)) r->unweighted_vertices++;
    seen[pi] |= res > MR_MAX_INFLUENCES ? 2 : res == 0 ? 4 : 0;
    return res;
}

/* Gives prim's mesh the morph's targets: each vertex takes the delta of
 * its source position, moved into the model frame by the linear part of
 * place and the axis/unit conversion (as the base positions are). */
static mr_status morph_prim(reader *r, const cl_morph *mo, const mat4 place, cl_prim *prim)
{
    mr_mesh *m = &prim->mesh;
    mr_morph_set *set;
    if (mr_morph_set_create(mo->count, m->vertex_count, &set) != MR_OK)
        return cl_fail_status(&r->d, MR_ERR_NO_MEMORY, prim->el, "out of memory for morph targets");
    for (int k = 0; k < mo->count; k++) {
        char *name = mr_str_dup(mo->names[k]);
        if (!name) {
            mr_morph_set_destroy(set);
            return cl_fail_status(&r->d, MR_ERR_NO_MEMORY, prim->el, "out of memory");
        }
        free(set->targets[k].name);
        set->targets[k].name = name;
        set->weights[k] = mo->weights[k];
        const vec3 *dk = mo->deltas + (size_t)k * (size_t)mo->position_count;
        for (int v = 0; v < m->vertex_count; v++) {
            float x, y, z;
            mulv3(place, dk[prim->pos_index[v]], 0.0f, &x, &y, &z);
            conv_point(&r->conv, x, y, z, set->targets[k].positions[v]);
        }
    }
    m->morph = set;
    return MR_OK;
}

static mr_status build_instance(reader *r, int ii)
{
    cl_doc *d = &r->d;
    const cl_instance *inst = &r->s.insts[ii];
    const cl_skin *skin = r->skin_of_inst[ii] >= 0 ? &r->skins[r->skin_of_inst[ii]] : NULL;
    int skinned = skin && skin->skin_el;
    cl_el *geom_el;
    if (skin) geom_el = skin->geometry;
    else {
        mr_status st = cl_ref(d, inst->el, "url", "geometry", &geom_el);
        if (st != MR_OK) return st;
    }
    cl_geometry g;
    mr_status st = cl_geometry_read(d, geom_el, &g);
    if (st != MR_OK) return st;
    size_t bytes = 0;
    for (int p = 0; p < g.prim_count; p++)
        bytes += (size_t)g.prims[p].mesh.vertex_count * CL_VERTEX_BYTES + (size_t)g.prims[p].mesh.index_count * 4;
    if (bytes > r->budget - (r->spent < r->budget ? r->spent : r->budget)) {
        st = cl_fail_status(d, MR_ERR_LIMIT, inst->el,
                            "instance %d of geometry '%s' makes %zu more bytes of meshes after %zu: more than "
                            "this file can describe (expected at most %d x its size + %zu MiB in all)",
                            ii, g.name ? g.name : "?", bytes, r->spent, CL_MESH_BUDGET_FACTOR,
                            CL_MESH_BUDGET_CONST >> 20);
        cl_geometry_free(&g);
        return st;
    }
    r->spent += bytes;
    if (skinned && g.prim_count && skin->vertex_count != g.position_count) {
        st = cl_fail(d, cl_child(skin->skin_el, "vertex_weights"),
                     "count=\"%d\" vertices but the skinned geometry has %d positions", skin->vertex_count,
                     g.position_count);
        cl_geometry_free(&g);
        return st;
    }
    cl_morph morph = {0};
    size_t room = r->budget - (r->spent < r->budget ? r->spent : r->budget);
    if (skin && skin->morph && g.prim_count &&
        (st = cl_morph_read(d, skin->morph, g.position_count, room, &morph)) != MR_OK) {
        cl_geometry_free(&g);
        return st;
    }
    r->spent += (size_t)morph.count * (size_t)morph.position_count * sizeof(vec3);
    /* Where the skin's inverse binds differ from the skeleton's (another
     * skin bound the same joints in another pose), re-express its bind
     * space in the skeleton's: x = IBM_skeleton^-1 * IBM_skin * p. */
    mat4 *rebind = NULL;
    int joint = r->s.nodes[inst->node].joint;
    if (skinned) {
        mat4 shape_ibm;
        glm_mat4_inv((vec4 *)skin->bind_shape, shape_ibm);
        for (int q = 0; q <= skin->joint_count; q++) {
            if (q == skin->joint_count && (!skin->uses_bind_shape || joint < 0)) break;
            int jj = q < skin->joint_count ? r->s.nodes[skin->joint_node[q]].joint : joint;
            vec4 *want = q < skin->joint_count ? skin->inv_bind[q] : shape_ibm;
            if (mats_close(r->ibm[jj], want, 1e-5f)) continue;
            if (!rebind) {
                rebind = mr_alloc_array((size_t)skin->joint_count + 1, sizeof *rebind);
                if (!rebind) {
                    cl_morph_free(&morph);
                    cl_geometry_free(&g);
                    return cl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory");
                }
                for (int t = 0; t <= skin->joint_count; t++) glm_mat4_identity(rebind[t]);
            }
            mat4 inv;
            glm_mat4_inv(r->ibm[jj], inv);
            glm_mat4_mul(inv, want, rebind[q]);
        }
    }
    /* Per source position: the first vertex of the primitive made from it
     * and its influence count. Vertices sharing a position (every corner
     * of a smooth mesh's fan) share its skinning, which is computed once. */
    unsigned char *seen = skinned ? mr_alloc_array((size_t)skin->vertex_count, 1) : NULL;
    int *made = skinned ? malloc((size_t)skin->vertex_count * 2 * sizeof *made + 1) : NULL;
    if (skinned && (!seen || !made)) {
        free(seen);
        free(made);
        free(rebind);
        cl_morph_free(&morph);
        cl_geometry_free(&g);
        return cl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory");
    }
    if (skinned) memset(made, 0xff, (size_t)skin->vertex_count * 2 * sizeof *made);
    mat4 place, normal_m;  /* file-space transform of positions into bind space */
    if (skinned) glm_mat4_copy((vec4 *)skin->bind_shape, place);
    else glm_mat4_inv(r->ibm[joint], place);
    glm_mat4_inv(place, normal_m);
    glm_mat4_transpose(normal_m);
    for (int p = 0; p < g.prim_count && st == MR_OK; p++) {
        cl_prim *prim = &g.prims[p];
        mr_mesh *m = &prim->mesh;
        /* Skinned vertices get all their slots written (skin_vertex or a
         * copy): no zeroing; static ones only write slot 0. */
        size_t nv = (size_t)m->vertex_count ? (size_t)m->vertex_count : 1;
        int big = nv > MR_ALLOC_LIMIT / sizeof *m->weights;
        m->joints = big ? NULL : skinned ? malloc(nv * sizeof *m->joints) : calloc(nv, sizeof *m->joints);
        m->weights = big ? NULL : skinned ? malloc(nv * sizeof *m->weights) : calloc(nv, sizeof *m->weights);
        if (!m->joints || !m->weights) {
            st = cl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory");
            break;
        }
        /* One pass: bind space (file units), skinning, then the model's axes. */
        for (int v = 0; v < m->vertex_count; v++) {
            if (skinned) {
                int pi = prim->pos_index[v], res;
                int f = made[2 * pi];
                if (f >= 0) {
                    glm_vec3_copy(m->positions[f], m->positions[v]);
                    memcpy(m->joints[v], m->joints[f], sizeof m->joints[v]);
                    memcpy(m->weights[v], m->weights[f], sizeof m->weights[v]);
                    res = made[2 * pi + 1];
                } else {
                    vec3 x;
                    mulv3(place, m->positions[v], 1.0f, &x[0], &x[1], &x[2]);
                    res = skin_vertex(r, skin, joint, pi, x, rebind, seen, m->joints[v], m->weights[v]);
                    conv_point(&r->conv, x[0], x[1], x[2], m->positions[v]);
                    made[2 * pi] = v;
                    made[2 * pi + 1] = res;
                }
                m->source_over4 += res > 4;
                m->source_over8 += res > 8;
            } else {
                float x, y, z;
                mulv3(place, m->positions[v], 1.0f, &x, &y, &z);
                conv_point(&r->conv, x, y, z, m->positions[v]);
                m->joints[v][0] = (uint16_t)joint;
                m->weights[v][0] = 1.0f;  /* the rest zeroed by calloc */
            }
        }
        /* Normals in a loop of their own (the out-of-order core overlaps
         * one's square root and division with the next ones'): the sums of
         * glm_mat4_mulv3 (SSE2 order), glm_mat3_mulv, glm_vec3_norm and
         * glm_vec3_scale, the same bits. */
        if (prim->has_normals) {
            const float(*nm)[4] = (const float(*)[4])normal_m;
            const float(*rt)[3] = (const float(*)[3])r->conv.rot;
            for (int v = 0; v < m->vertex_count; v++) {
                float *n = m->normals[v];
                float a = n[0], b = n[1], c = n[2];
                float t0 = ((nm[3][0] * 0.0f + nm[2][0] * c) + nm[1][0] * b) + nm[0][0] * a;
                float t1 = ((nm[3][1] * 0.0f + nm[2][1] * c) + nm[1][1] * b) + nm[0][1] * a;
                float t2 = ((nm[3][2] * 0.0f + nm[2][2] * c) + nm[1][2] * b) + nm[0][2] * a;
                float u0 = rt[0][0] * t0 + rt[1][0] * t1 + rt[2][0] * t2;
                float u1 = rt[0][1] * t0 + rt[1][1] * t1 + rt[2][1] * t2;
                float u2 = rt[0][2] * t0 + rt[1][2] * t1 + rt[2][2] * t2;
                float len = sqrtf(u0 * u0 + u1 * u1 + u2 * u2);
                if (len > 1e-20f) {
                    float inv = 1.0f / len;
                    n[0] = u0 * inv;
                    n[1] = u1 * inv;
                    n[2] = u2 * inv;
                } else {
                    n[0] = 0.0f;
                    n[1] = 1.0f;
                    n[2] = 0.0f;
                }
            }
        }
        if (morph.count && (st = morph_prim(r, &morph, place, prim)) != MR_OK) break;
        if (skinned)  /* unmade for the next primitive: touched entries only */
            for (int v = 0; v < m->vertex_count; v++) made[2 * prim->pos_index[v]] = -1;
        if (!prim->has_normals) mr_mesh_compute_normals(m);
        if ((st = material_for(r, inst->el, prim->symbol, &m->material)) != MR_OK) break;
        m->name = g.prim_count > 1 ? mr_str_fmt("%s/%s", g.name, prim->symbol ? prim->symbol : "?")
                                   : mr_str_dup(g.name);
        if (m->morph) {
            cl_morph_mesh mm = {skin->morph, r->model->mesh_count, morph.count};
            if (mr_alloc_reserve((void **)&d->morph_meshes, &d->morph_mesh_cap, (size_t)d->morph_mesh_count + 1,
                                 sizeof *d->morph_meshes) != MR_OK) {
                st = cl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory");
                break;
            }
            d->morph_meshes[d->morph_mesh_count++] = mm;
        }
        if ((st = append_mesh(r, m)) != MR_OK) break;
        free(prim->pos_index);
        prim->pos_index = NULL;
    }
    free(rebind);
    free(seen);
    free(made);
    cl_morph_free(&morph);
    cl_geometry_free(&g);
    return st;
}

/* ---- entry points ---------------------------------------------------------- */

static void reader_free(reader *r)
{
    for (int k = 0; k < r->skin_count; k++) cl_skin_free(&r->skins[k]);
    free(r->skins);
    free(r->skin_of_inst);
    free(r->ibm);
    free(r->ibm_skin);
    free(r->origins);
    for (int i = 0; i < r->mat_count; i++) {
        free(r->mats[i].mat.name);
        free(r->mats[i].mat.diffuse_map);
        free(r->mats[i].mat.normal_map);
    }
    free(r->mats);
    cl_scene_free(&r->s);
    cl_doc_close(&r->d);
}

static const char *axis_name(mr_up_axis up)
{
    return up == MR_UP_Z ? "Z_UP" : up == MR_UP_X ? "X_UP" : "Y_UP";
}

static mr_status read_model(reader *r)
{
    mr_status st;
    if ((st = cl_scene_build(&r->d, &r->s)) != MR_OK) return st;
    if ((st = read_skins(r)) != MR_OK) return st;
    if ((st = build_skeleton(r)) != MR_OK) return st;
    for (int i = 0; i < r->s.inst_count; i++)
        if ((st = build_instance(r, i)) != MR_OK) return st;
    if (r->cut_vertices)
        mr_model_warn(r->model, "%ld skinned vertices had more than %d joint influences: kept the %d heaviest, renormalised",
                      r->cut_vertices, MR_MAX_INFLUENCES, MR_MAX_INFLUENCES);
    if (r->unweighted_vertices)
        mr_model_warn(r->model, "%ld skinned vertices have no positive weight: bound to one joint", r->unweighted_vertices);
    if (r->bind_shape_vertices)
        mr_model_warn(r->model,
                      "%ld skinned vertices keep part of their weight on the bind shape (weights short of 1 or joint -1)",
                      r->bind_shape_vertices);
    if (r->approx_rebind)
        mr_model_warn(r->model,
                      "%ld vertices of a second skin were bound in another pose than the skeleton's; rebound approximately",
                      r->approx_rebind);
    if (!r->model->mesh_count) mr_model_warn(r->model, "the scene has no triangle geometry");

    vec3 lo, hi;
    float size = 1.0f;
    if (mr_model_bounds(r->model, lo, hi)) size = glm_vec3_distance(lo, hi);
    if (!(size > 0)) size = 1.0f;
    if ((st = cl_anim_read(&r->d, &r->s, &r->conv, size, r->model)) != MR_OK) return st;

    mr_error verr;
    if (mr_skeleton_validate(&r->model->skeleton, &verr) != MR_OK)
        return cl_fail(&r->d, r->s.visual_scene, "skeleton: %s", verr.msg);
    for (int c = 0; c < r->model->clip_count; c++)
        if (mr_clip_validate(r->model->clips[c], &verr) != MR_OK) return cl_fail(&r->d, NULL, "%s", verr.msg);
    r->model->axes.up = MR_UP_Y;
    r->model->axes.meters_per_unit = 1.0f;
    if (r->d.up == MR_UP_Y && r->d.meter == 1.0)
        r->model->axes_note = mr_str_fmt("COLLADA Y_UP, unit 1 m: already Y-up metres");
    else
        r->model->axes_note = mr_str_fmt("COLLADA %s, unit %g m: converted to Y-up metres", axis_name(r->d.up), r->d.meter);
    return MR_OK;
}

mr_status mr_collada_parse(const char *name, const char *buf, size_t len, mr_model **out, mr_error *err)
{
    if (!out) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "collada: no output model");
    *out = NULL;
    if (!name || !buf) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "collada: no input");
    reader *r = calloc(1, sizeof *r);
    mr_model *model = NULL;
    mr_model_create(name, "collada", &model);
    if (!r || !model) {
        free(r);
        mr_model_destroy(model);
        return mr_error_set(err, MR_ERR_NO_MEMORY, "collada: %s: out of memory", name);
    }
    mr_status st = cl_doc_open(&r->d, name, buf, len, err);
    if (st != MR_OK) {
        free(r);
        mr_model_destroy(model);
        return st;
    }
    r->model = model;
    r->d.model = model;
    r->budget = CL_MESH_BUDGET_FACTOR * len + CL_MESH_BUDGET_CONST;
    frame_conv_init(&r->conv, r->d.up, r->d.meter);
    st = read_model(r);
    reader_free(r);
    free(r);
    if (st != MR_OK) {
        mr_model_destroy(model);
        return st;
    }
    *out = model;
    return MR_OK;
}

mr_status mr_collada_load(const char *path, mr_model **out, mr_error *err)
{
    if (!out) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "collada: no output model");
    *out = NULL;
    if (!path) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "collada: no path");
    size_t len;
    mr_error ioerr;
    char *buf = mr_file_read(path, &len, &ioerr);
    if (!buf) return mr_error_set(err, ioerr.status, "collada: %s", ioerr.msg);
    mr_status st = mr_collada_parse(path, buf, len, out, err);
    free(buf);
    return st;
}
