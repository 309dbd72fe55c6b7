/* mesh.c — mesh allocation, smooth normals, influence packing, CPU skinning. */
#include "anim/mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

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
    memset(mesh, 0, sizeof *mesh);
    mr_material_defaults(&mesh->material);
    if (vertex_count < 0 || index_count < 0 || index_count % 3) return MR_ERR_INVALID_ARGUMENT;
    size_t nv = (size_t)vertex_count;
    mesh->positions = mr_alloc_array(nv, sizeof *mesh->positions);
    mesh->normals = mr_alloc_array(nv, sizeof *mesh->normals);
    mesh->uvs = mr_alloc_array(nv, sizeof *mesh->uvs);
    mesh->indices = mr_alloc_array((size_t)index_count, sizeof *mesh->indices);
    int ok = mesh->positions && mesh->normals && mesh->uvs && mesh->indices;
    if (ok && skinned) {
        mesh->joints = mr_alloc_array(nv, sizeof *mesh->joints);
        mesh->weights = mr_alloc_array(nv, sizeof *mesh->weights);
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
    for (int i = 0; i < n; i++) {
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

void mr_mesh_skin(const mr_mesh *mesh, const mat4 *skin, vec3 *out_pos, vec3 *out_nrm)
{
    if (!mesh->joints || !mesh->weights) {
        memcpy(out_pos, mesh->positions, (size_t)mesh->vertex_count * sizeof *out_pos);
        memcpy(out_nrm, mesh->normals, (size_t)mesh->vertex_count * sizeof *out_nrm);
        return;
    }
    for (int i = 0; i < mesh->vertex_count; i++) {
        mat4 m = {{0}};
        for (int k = 0; k < MR_MAX_INFLUENCES; k++) {
            float w = mesh->weights[i][k];
            if (w == 0.0f) continue;
            const vec4 *s = skin[mesh->joints[i][k]];
            for (int c = 0; c < 4; c++)
                for (int r = 0; r < 4; r++) m[c][r] += w * s[c][r];
        }
        glm_mat4_mulv3(m, mesh->positions[i], 1.0f, out_pos[i]);
        vec3 n;
        glm_mat4_mulv3(m, mesh->normals[i], 0.0f, n);
        /* Normals use the blended matrix; renormalise (uniform scale assumed,
         * as the renderer does). */
        float len = glm_vec3_norm(n);
        if (len > 0) glm_vec3_scale(n, 1.0f / len, n);
        glm_vec3_copy(n, out_nrm[i]);
    }
}
