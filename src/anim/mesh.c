/* mesh.c — mesh allocation, smooth normals, influence packing, CPU skinning. */
#include "anim/mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/morph.h"
#include "core/alloc.h"
#include "core/quat.h"

static void set_rgba(float *dst, float r, float g, float b, float a)
{
    /* Plain stores: material colours are not 16-byte aligned, so no SIMD copies. */
    dst[0] = r; dst[1] = g; dst[2] = b; dst[3] = a;
}

void mr_material_defaults(mr_material *mat)
{
    memset(mat, 0, sizeof *mat);
    set_rgba(mat->diffuse, 0.8f, 0.8f, 0.8f, 1.0f);
    set_rgba(mat->ambient, 0.2f, 0.2f, 0.2f, 1.0f);
    set_rgba(mat->specular, 0.2f, 0.2f, 0.2f, 1.0f);
    set_rgba(mat->emission, 0.0f, 0.0f, 0.0f, 1.0f);
    mat->shininess = 32.0f;
}

mr_status mr_mesh_init(mr_mesh *mesh, int vertex_count, int index_count, int skinned)
{
    return mr_mesh_init_set(mesh, vertex_count, index_count, skinned, 0);
}

/* count elements of size bytes, zeroed unless the caller writes them */
static void *mesh_array(size_t count, size_t size, int written)
{
    return written ? mr_alloc_array_unset(count, size) : mr_alloc_array(count, size);
}

mr_status mr_mesh_init_set(mr_mesh *mesh, int vertex_count, int index_count, int skinned, unsigned set)
{
    memset(mesh, 0, sizeof *mesh);
    mr_material_defaults(&mesh->material);
    if (vertex_count < 0 || index_count < 0 || index_count % 3) return MR_ERR_INVALID_ARGUMENT;
    size_t nv = (size_t)vertex_count;
    mesh->positions = mesh_array(nv, sizeof *mesh->positions, set & MR_MESH_SET_POSITIONS);
    mesh->normals = mesh_array(nv, sizeof *mesh->normals, set & MR_MESH_SET_NORMALS);
    mesh->uvs = mesh_array(nv, sizeof *mesh->uvs, set & MR_MESH_SET_UVS);
    mesh->indices = mesh_array((size_t)index_count, sizeof *mesh->indices, set & MR_MESH_SET_INDICES);
    int ok = mesh->positions && mesh->normals && mesh->uvs && mesh->indices;
    if (ok && skinned) {
        mesh->joints = mesh_array(nv, sizeof *mesh->joints, set & MR_MESH_SET_INFLUENCES);
        mesh->weights = mesh_array(nv, sizeof *mesh->weights, set & MR_MESH_SET_INFLUENCES);
        ok = mesh->joints && mesh->weights;
    }
    if (!ok) {
        mr_mesh_deinit(mesh);
        return MR_ERR_NO_MEMORY;
    }
    mesh->vertex_count = vertex_count;
    mesh->index_count = index_count;
    return MR_OK;
}

void mr_mesh_deinit(mr_mesh *mesh)
{
    if (!mesh) return;
    free(mesh->name);
    free(mesh->positions);
    free(mesh->normals);
    free(mesh->uvs);
    free(mesh->joints);
    free(mesh->weights);
    free(mesh->indices);
    mr_morph_set_destroy(mesh->morph);
    free(mesh->dq_blend);
    free(mesh->material.name);
    free(mesh->material.diffuse_map);
    free(mesh->material.normal_map);
    free(mesh->material.diffuse_bytes);
    free(mesh->material.normal_bytes);
    memset(mesh, 0, sizeof *mesh);
}

void mr_mesh_compute_normals(mr_mesh *mesh)
{
    for (int i = 0; i < mesh->vertex_count; i++) glm_vec3_zero(mesh->normals[i]);
    for (int i = 0; i + 2 < mesh->index_count; i += 3) {
        uint32_t a = mesh->indices[i], b = mesh->indices[i + 1], c = mesh->indices[i + 2];
        if (a >= (uint32_t)mesh->vertex_count || b >= (uint32_t)mesh->vertex_count ||
            c >= (uint32_t)mesh->vertex_count)
            continue;
        vec3 e1, e2, n;
        glm_vec3_sub(mesh->positions[b], mesh->positions[a], e1);
        glm_vec3_sub(mesh->positions[c], mesh->positions[a], e2);
        glm_vec3_cross(e1, e2, n);  /* length = 2 * area: area weighting for free */
        glm_vec3_add(mesh->normals[a], n, mesh->normals[a]);
        glm_vec3_add(mesh->normals[b], n, mesh->normals[b]);
        glm_vec3_add(mesh->normals[c], n, mesh->normals[c]);
    }
    for (int i = 0; i < mesh->vertex_count; i++) {
        float len = glm_vec3_norm(mesh->normals[i]);
        if (len > 1e-20f) glm_vec3_scale(mesh->normals[i], 1.0f / len, mesh->normals[i]);
        else glm_vec3_copy((vec3){0, 0, 1}, mesh->normals[i]);
    }
}

/* 1 when influence a goes before influence b under the rule of mesh.h. */
static int influence_before(const int *joints, const float *weights, const mr_influence_rule *rule, int a, int b)
{
    if (weights[a] != weights[b]) return weights[a] > weights[b];
    int ja = joints[a], jb = joints[b];
    if (ja == jb) return a < b;
    if (rule && rule->vertex && rule->origins) {
        float da = glm_vec3_distance2((float *)rule->vertex, (float *)rule->origins[ja]);
        float db = glm_vec3_distance2((float *)rule->vertex, (float *)rule->origins[jb]);
        if (da != db) return da < db;
    }
    if (rule && rule->names && rule->names[ja] && rule->names[jb]) {
        int c = strcmp(rule->names[ja], rule->names[jb]);
        if (c) return c < 0;
    }
    return ja < jb;
}

int mr_mesh_pack_influences(const int *joints, const float *weights, int n, const mr_influence_rule *rule,
                       uint16_t out_j[MR_MAX_INFLUENCES], float out_w[MR_MAX_INFLUENCES])
{
    int max = rule && rule->max > 0 && rule->max < MR_MAX_INFLUENCES ? rule->max : MR_MAX_INFLUENCES;
    int best[MR_MAX_INFLUENCES];
    int kept = 0, positive = 0;
    for (int k = 0; k < MR_MAX_INFLUENCES; k++) { out_j[k] = 0; out_w[k] = 0.0f; best[k] = -1; }
    /* No more influences than slots (nearly every vertex): all positive
     * ones are kept whatever the rule, so only the slot order below is
     * needed, which is a total order; the rule's ranking is skipped. */
    int ranked = n;   /* influences ranked by the rule */
    if (n <= max) {
        for (int i = 0; i < n; i++)
            if (weights[i] > 0.0f) best[kept++] = i;
        positive = kept;
        ranked = 0;
    }
    for (int i = 0; i < ranked; i++) {
        if (!(weights[i] > 0.0f)) continue;
        positive++;
        /* Insertion into a sorted top-max list, first in the rule's order first. */
        int pos = kept;
        while (pos > 0 && influence_before(joints, weights, rule, i, best[pos - 1])) pos--;
        if (pos >= max) continue;
        int last = kept < max ? kept : max - 1;
        for (int k = last; k > pos; k--) best[k] = best[k - 1];
        best[pos] = i;
        if (kept < max) kept++;
    }
    if (positive == 0) {
        out_j[0] = (uint16_t)(n > 0 && joints[0] >= 0 ? joints[0] : 0);
        out_w[0] = 1.0f;
        return 0;
    }
    /* Slot order: heaviest first, equal weights by joint index. Which
     * influences are kept never depends on that index; their slot order
     * changes only rounding, and keeps written files as they were. */
    for (int k = 1; k < kept; k++)
        for (int t = k; t > 0; t--) {
            int a = best[t - 1], b = best[t];
            if (weights[a] > weights[b] || (weights[a] == weights[b] && (joints[a] < joints[b] ||
                                                                        (joints[a] == joints[b] && a < b))))
                break;
            best[t - 1] = b;
            best[t] = a;
        }
    float sum = 0.0f;
    for (int k = 0; k < kept; k++) sum += weights[best[k]];
    for (int k = 0; k < kept; k++) {
        out_j[k] = (uint16_t)joints[best[k]];
        out_w[k] = weights[best[k]] / sum;
    }
    return positive;
}

void mr_mesh_influence_origins(const mr_skeleton *sk, vec3 *out)
{
    for (int j = 0; j < sk->joint_count; j++) {
        mat4 bind;
        glm_mat4_inv(sk->inverse_bind[j], bind);
        glm_vec3_copy(bind[3], out[j]);
    }
}

int mr_mesh_influence_count(const mr_mesh *mesh)
{
    if (!mesh->joints || !mesh->weights) return 0;
    int most = 0;
    for (int v = 0; v < mesh->vertex_count; v++)
        for (int k = MR_MAX_INFLUENCES; k > most; k--)
            if (mesh->weights[v][k - 1] != 0.0f) {
                most = k;
                break;
            }
    return most;
}

/* Linear blend skinning of one vertex (pos, nrm read before writing). */
static void skin_linear(const mr_mesh *mesh, const mat4 *skin, int i, const float *pos, const float *nrm,
                        vec3 out_pos, vec3 out_nrm)
{
    mat4 m = {{0}};
    for (int k = 0; k < MR_MAX_INFLUENCES; k++) {
        float w = mesh->weights[i][k];
        if (w == 0.0f) continue;
        const vec4 *s = skin[mesh->joints[i][k]];
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) m[c][r] += w * s[c][r];
    }
    vec3 p, n;
    glm_vec3_copy((float *)pos, p);
    glm_vec3_copy((float *)nrm, n);
    glm_mat4_mulv3(m, p, 1.0f, out_pos);
    glm_mat4_mulv3(m, n, 0.0f, n);
    /* Normals use the blended matrix; renormalise (uniform scale assumed,
     * as the renderer does). */
    float len = glm_vec3_norm(n);
    if (len > 0) glm_vec3_scale(n, 1.0f / len, n);
    glm_vec3_copy(n, out_nrm);
}

/* A skin matrix split for dual-quaternion skinning (mesh.h). */
typedef struct dq_joint {
    versor real, dual;   /* unit dual quaternion of the rigid part */
    mat3 scale;          /* S = R^T A */
    int scaled;          /* S differs from identity */
    int mirrored;        /* negative determinant: no rotation, skin linearly */
} dq_joint;

static void dq_split(const mat4 skin, dq_joint *out)
{
    mat4 m;
    glm_mat4_copy((vec4 *)skin, m);
    memset(out, 0, sizeof *out);
    mat3 a;
    glm_mat4_pick3(m, a);
    if (glm_mat3_det(a) <= 0) {
        out->mirrored = 1;
        return;
    }
    mr_quat_from_matrix(m, out->real);
    glm_quat_normalize(out->real);
    mat3 r, rt;
    glm_quat_mat3(out->real, r);
    glm_mat3_transpose_to(r, rt);
    glm_mat3_mul(rt, a, out->scale);
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++)
            if (fabsf(out->scale[c][k] - (c == k ? 1.0f : 0.0f)) > 1e-5f) out->scaled = 1;
    /* dual = 0.5 * (t, 0) * real */
    versor t = {m[3][0], m[3][1], m[3][2], 0.0f};
    glm_quat_mul(t, out->real, out->dual);
    glm_vec4_scale(out->dual, 0.5f, out->dual);
}

void mr_mesh_dq_joint(const mat4 skin, float out[32])
{
    dq_joint j;
    dq_split(skin, &j);
    memset(out, 0, 32 * sizeof *out);
    if (j.mirrored) {
        out[20] = 1.0f;
        return;
    }
    memcpy(out, j.real, 4 * sizeof *out);
    memcpy(out + 4, j.dual, 4 * sizeof *out);
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) out[8 + 4 * c + r] = j.scaled ? j.scale[c][r] : (c == r ? 1.0f : 0.0f);
    out[21] = (float)j.scaled;
    out[22] = 1.0f;
}

/* Dual-quaternion skinning of one vertex; returns 0 (nothing written) when
 * an influence mirrors, for the caller to skin it linearly. */
static int skin_dq(const mr_mesh *mesh, const dq_joint *dq, int i, const float *pos, const float *nrm,
                   vec3 out_pos, vec3 out_nrm)
{
    versor b0 = {0, 0, 0, 0}, be = {0, 0, 0, 0};
    mat3 s = {{0}};
    int scaled = 0;
    const float *pivot = NULL;
    for (int k = 0; k < MR_MAX_INFLUENCES; k++) {
        float w = mesh->weights[i][k];
        if (w == 0.0f) continue;
        const dq_joint *j = &dq[mesh->joints[i][k]];
        if (j->mirrored) return 0;
        if (!pivot) pivot = j->real;
        float sw = glm_vec4_dot((float *)pivot, (float *)j->real) < 0 ? -w : w;
        for (int e = 0; e < 4; e++) {
            b0[e] += sw * j->real[e];
            be[e] += sw * j->dual[e];
        }
        scaled |= j->scaled;
        for (int c = 0; c < 3; c++)
            for (int r = 0; r < 3; r++) s[c][r] += w * j->scale[c][r];
    }
    vec3 p, n;
    glm_vec3_copy((float *)pos, p);
    glm_vec3_copy((float *)nrm, n);
    float len = glm_vec4_norm(b0);
    if (!(len > 1e-12f)) {
        glm_vec3_copy(p, out_pos);
        glm_vec3_copy(n, out_nrm);
        return 1;
    }
    glm_vec4_scale(b0, 1.0f / len, b0);
    glm_vec4_scale(be, 1.0f / len, be);
    if (scaled) {
        glm_mat3_mulv(s, p, p);
        glm_mat3_mulv(s, n, n);
    }
    /* p' = rotate(b0, p) + 2 (w0 e - we u0 + u0 x e), u0 = b0.xyz, e = be.xyz */
    vec3 rp, u0 = {b0[0], b0[1], b0[2]}, e = {be[0], be[1], be[2]}, cr;
    glm_quat_rotatev(b0, p, rp);
    glm_vec3_cross(u0, e, cr);
    for (int c = 0; c < 3; c++) out_pos[c] = rp[c] + 2.0f * (b0[3] * e[c] - be[3] * u0[c] + cr[c]);
    glm_quat_rotatev(b0, n, n);
    float nl = glm_vec3_norm(n);
    if (nl > 0) glm_vec3_scale(n, 1.0f / nl, n);
    glm_vec3_copy(n, out_nrm);
    return 1;
}

void mr_mesh_skin(const mr_mesh *mesh, const mat4 *skin, vec3 *out_pos, vec3 *out_nrm)
{
    mr_mesh_skin_with(mesh, skin, NULL, out_pos, out_nrm);
}

void mr_mesh_skin_with(const mr_mesh *mesh, const mat4 *skin, const mr_skin_opts *opts, vec3 *out_pos,
                       vec3 *out_nrm)
{
    static const mr_skin_opts defaults = {0};
    if (!opts) opts = &defaults;
    const vec3 *in_pos = opts->positions ? opts->positions : mesh->positions;
    const vec3 *in_nrm = opts->normals ? opts->normals : mesh->normals;
    size_t nv = (size_t)mesh->vertex_count;
    if (!mesh->joints || !mesh->weights) {
        if (out_pos != in_pos) memmove(out_pos, in_pos, nv * sizeof *out_pos);
        if (out_nrm != in_nrm) memmove(out_nrm, in_nrm, nv * sizeof *out_nrm);
        return;
    }
    int use_dq = opts->mode == MR_SKINNING_DUAL_QUATERNION || opts->blend || opts->joint_blend;
    dq_joint *dq = NULL;
    if (use_dq) {
        int joints = 0;
        for (size_t i = 0; i < nv; i++)
            for (int k = 0; k < MR_MAX_INFLUENCES; k++)
                if (mesh->joints[i][k] >= joints) joints = mesh->joints[i][k] + 1;
        dq = mr_alloc_array((size_t)joints ? (size_t)joints : 1, sizeof *dq);
        for (int j = 0; dq && j < joints; j++) dq_split(skin[j], &dq[j]);
        /* Out of memory: linear skinning, which needs nothing. */
    }
    for (int i = 0; i < mesh->vertex_count; i++) {
        float b = opts->mode == MR_SKINNING_DUAL_QUATERNION ? 1.0f : 0.0f;
        if (opts->blend) {
            b = opts->blend[i];
        } else if (opts->joint_blend) {
            b = 0;
            for (int k = 0; k < MR_MAX_INFLUENCES; k++)
                if (mesh->weights[i][k] != 0.0f) b += mesh->weights[i][k] * opts->joint_blend[mesh->joints[i][k]];
        }
        if (!(b > 0) || !dq) {
            skin_linear(mesh, skin, i, in_pos[i], in_nrm[i], out_pos[i], out_nrm[i]);
            continue;
        }
        vec3 lp, ln, qp, qn;
        if (!skin_dq(mesh, dq, i, in_pos[i], in_nrm[i], qp, qn)) {
            skin_linear(mesh, skin, i, in_pos[i], in_nrm[i], out_pos[i], out_nrm[i]);
            continue;
        }
        if (b >= 1) {
            glm_vec3_copy(qp, out_pos[i]);
            glm_vec3_copy(qn, out_nrm[i]);
            continue;
        }
        skin_linear(mesh, skin, i, in_pos[i], in_nrm[i], lp, ln);
        glm_vec3_lerp(lp, qp, b, out_pos[i]);
        glm_vec3_lerp(ln, qn, b, ln);
        float len = glm_vec3_norm(ln);
        if (len > 0) glm_vec3_scale(ln, 1.0f / len, ln);
        glm_vec3_copy(ln, out_nrm[i]);
    }
    free(dq);
}
