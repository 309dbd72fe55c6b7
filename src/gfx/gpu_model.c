/* gpu_model.c — uploading mr_models to vertex/index buffers (and finding
 * which meshes are closed surfaces the passes may draw without back faces),
 * the model pool behind mr_gpu_model handles (generation-checked), and posed
 * bounds. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/morph.h"
#include "core/alloc.h"
#include "core/file.h"
#include "core/path.h"
#include "gfx/internal.h"

/* Interleaved vertex as the shaders read it: influences 1-4. */
typedef struct gfx_vertex {
    float pos[3];
    float nrm[3];
    float uv[2];
    float tan[4];
    uint16_t joints[MR_INFLUENCE_SET];
    float weights[MR_INFLUENCE_SET];
} gfx_vertex;

/* Influences 5-8, in a buffer of their own that only meshes using them get:
 * 4-influence meshes upload and read nothing more. */
typedef struct gfx_vertex1 {
    uint16_t joints[MR_INFLUENCE_SET];
    float weights[MR_INFLUENCE_SET];
} gfx_vertex1;

#define SLOT_BITS 16u
#define SLOT_MASK ((1u << SLOT_BITS) - 1u)

gfx_model *gfx_model_get(const mr_renderer *r, mr_gpu_model m)
{
    uint32_t slot = (m.id & SLOT_MASK);
    if (slot == 0 || (int)slot > r->model_cap) return NULL;
    gfx_model *g = &r->models[slot - 1];
    if (!g->live || g->generation != (m.id >> SLOT_BITS)) return NULL;
    return g;
}

int mr_renderer_model_valid(const mr_renderer *r, mr_gpu_model m)
{
    return gfx_model_get(r, m) != NULL;
}

/* Per-vertex tangents from uv gradients, orthogonalised against the normal;
 * w is the bitangent's handedness. */
static void compute_tangents(const mr_mesh *mesh, gfx_vertex *v, vec3 *bitan)
{
    for (int i = 0; i + 2 < mesh->index_count; i += 3) {
        uint32_t a = mesh->indices[i], b = mesh->indices[i + 1], c = mesh->indices[i + 2];
        vec3 e1, e2;
        glm_vec3_sub(mesh->positions[b], mesh->positions[a], e1);
        glm_vec3_sub(mesh->positions[c], mesh->positions[a], e2);
        float du1 = mesh->uvs[b][0] - mesh->uvs[a][0], dv1 = mesh->uvs[b][1] - mesh->uvs[a][1];
        float du2 = mesh->uvs[c][0] - mesh->uvs[a][0], dv2 = mesh->uvs[c][1] - mesh->uvs[a][1];
        float det = du1 * dv2 - du2 * dv1;
        if (fabsf(det) < 1e-12f) continue;
        float f = 1.0f / det;
        vec3 t, bt;
        for (int k = 0; k < 3; k++) {
            t[k] = f * (dv2 * e1[k] - dv1 * e2[k]);
            bt[k] = f * (du1 * e2[k] - du2 * e1[k]);
        }
        uint32_t idx[3] = {a, b, c};
        for (int k = 0; k < 3; k++) {
            for (int j = 0; j < 3; j++) v[idx[k]].tan[j] += t[j];
            glm_vec3_add(bitan[idx[k]], bt, bitan[idx[k]]);
        }
    }
    for (int i = 0; i < mesh->vertex_count; i++) {
        vec3 n, t;
        glm_vec3_copy(mesh->normals[i], n);
        glm_vec3_copy(v[i].tan, t);
        glm_vec3_muladds(n, -glm_vec3_dot(n, t), t);
        float len = glm_vec3_norm(t);
        if (len < 1e-8f) {
            /* No uv gradient: any vector perpendicular to the normal. */
            vec3 axis = {fabsf(n[0]) < 0.9f ? 1.0f : 0.0f, fabsf(n[0]) < 0.9f ? 0.0f : 1.0f, 0};
            glm_vec3_cross(axis, n, t);
            len = glm_vec3_norm(t);
            if (len < 1e-8f) { t[0] = 1; t[1] = t[2] = 0; len = 1; }
        }
        glm_vec3_scale(t, 1.0f / len, t);
        vec3 nxt;
        glm_vec3_cross(n, t, nxt);
        v[i].tan[0] = t[0];
        v[i].tan[1] = t[1];
        v[i].tan[2] = t[2];
        v[i].tan[3] = glm_vec3_dot(nxt, bitan[i]) < 0.0f ? -1.0f : 1.0f;
    }
}

/* --- which meshes may skip their back faces ------------------------------
 *
 * llvmpipe pays per triangle in setup and rasterization (with 4x MSAA most
 * of a crowd frame goes there, very little to the vertex shader), so the
 * passes cull back faces where that cannot change the picture: a mesh whose
 * surface is closed and consistently wound shows only its front faces from
 * outside, and its back faces are hidden behind them in the shadow map too.
 * Vertices are welded by everything that decides where they end up after
 * skinning (position, joints, weights), so uv and normal seams do not open
 * a surface, while a seam whose sides skin differently (a crack in some
 * pose) does. */

typedef struct weld_key {
    float pos[3];
    uint16_t joints[MR_MAX_INFLUENCES];
    float weights[MR_MAX_INFLUENCES];
    int vertex;
} weld_key;

static int cmp_weld(const void *a, const void *b)
{
    const weld_key *x = a, *y = b;
    int c = memcmp(x, y, offsetof(weld_key, vertex));
    return c ? c : (x->vertex > y->vertex) - (x->vertex < y->vertex);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int find_root(int *parent, int v)
{
    while (parent[v] != v) {
        parent[v] = parent[parent[v]];
        v = parent[v];
    }
    return v;
}

/* GL_BACK when the mesh is closed, every edge shared by exactly two
 * triangles running it in opposite directions, and each connected piece
 * encloses a positive volume (counter-clockwise seen from outside);
 * GL_FRONT when every piece is wound the other way; 0 otherwise (open
 * surfaces, non-manifold edges, pieces wound differently, no memory). */
static GLenum closed_cull_face(const mr_mesh *mesh)
{
    int nv = mesh->vertex_count, nt = mesh->index_count / 3;
    if (nv <= 0 || nt <= 0) return 0;
    weld_key *keys = mr_alloc_array((size_t)nv, sizeof *keys);
    int *weld = mr_alloc_array((size_t)nv, sizeof *weld);
    uint64_t *edges = mr_alloc_array((size_t)nt * 3, sizeof *edges);
    int *parent = mr_alloc_array((size_t)nv, sizeof *parent);
    double *volume = mr_alloc_array((size_t)nv, sizeof *volume);
    double *magnitude = mr_alloc_array((size_t)nv, sizeof *magnitude);
    GLenum face = 0;
    if (!keys || !weld || !edges || !parent || !volume || !magnitude) goto done;

    memset(keys, 0, (size_t)nv * sizeof *keys);   /* padding compares equal */
    for (int v = 0; v < nv; v++) {
        memcpy(keys[v].pos, mesh->positions[v], sizeof keys[v].pos);
        for (int k = 0; mesh->joints && mesh->weights && k < MR_MAX_INFLUENCES; k++) {
            keys[v].weights[k] = mesh->weights[v][k];
            keys[v].joints[k] = mesh->weights[v][k] != 0.0f ? mesh->joints[v][k] : 0;
        }
        keys[v].vertex = v;
    }
    qsort(keys, (size_t)nv, sizeof *keys, cmp_weld);
    for (int i = 0, id = -1; i < nv; i++) {
        if (i == 0 || memcmp(&keys[i], &keys[i - 1], offsetof(weld_key, vertex)) != 0) id++;
        weld[keys[i].vertex] = id;
        parent[i] = i;
    }

    /* Directed edges of the non-degenerate triangles; the pieces. */
    size_t ne = 0;
    for (int t = 0; t < nt; t++) {
        const uint32_t *tri = &mesh->indices[t * 3];
        uint32_t w[3] = {(uint32_t)weld[tri[0]], (uint32_t)weld[tri[1]], (uint32_t)weld[tri[2]]};
        if (w[0] == w[1] || w[1] == w[2] || w[2] == w[0]) continue;   /* no area */
        for (int k = 0; k < 3; k++) {
            edges[ne++] = ((uint64_t)w[k] << 32) | w[(k + 1) % 3];
            int a = find_root(parent, (int)w[k]), b = find_root(parent, (int)w[(k + 1) % 3]);
            if (a != b) parent[a] = b;
        }
    }
    if (ne == 0) goto done;
    qsort(edges, ne, sizeof *edges, cmp_u64);
    for (size_t i = 0; i < ne; i++) {
        if (i > 0 && edges[i] == edges[i - 1]) goto done;             /* same direction twice */
        uint64_t rev = (edges[i] << 32) | (edges[i] >> 32);
        if (!bsearch(&rev, edges, ne, sizeof *edges, cmp_u64)) goto done;   /* an open edge */
    }

    /* Signed volume of each piece: the sum of its triangles' a . (b x c). */
    memset(volume, 0, (size_t)nv * sizeof *volume);
    memset(magnitude, 0, (size_t)nv * sizeof *magnitude);
    for (int t = 0; t < nt; t++) {
        const uint32_t *tri = &mesh->indices[t * 3];
        if (weld[tri[0]] == weld[tri[1]] || weld[tri[1]] == weld[tri[2]] || weld[tri[2]] == weld[tri[0]])
            continue;
        const float *a = mesh->positions[tri[0]], *b = mesh->positions[tri[1]], *c = mesh->positions[tri[2]];
        double cx = (double)b[1] * c[2] - (double)b[2] * c[1];
        double cy = (double)b[2] * c[0] - (double)b[0] * c[2];
        double cz = (double)b[0] * c[1] - (double)b[1] * c[0];
        double term = a[0] * cx + a[1] * cy + a[2] * cz;
        int root = find_root(parent, weld[tri[0]]);
        volume[root] += term;
        magnitude[root] += fabs(term);
    }
    int sign = 0;
    for (int v = 0; v < nv; v++) {
        if (magnitude[v] == 0.0) continue;
        /* Too flat to tell inside from outside, or two pieces disagree. */
        int s = volume[v] > 1e-6 * magnitude[v] ? 1 : volume[v] < -1e-6 * magnitude[v] ? -1 : 0;
        if (s == 0 || (sign != 0 && s != sign)) goto done;
        sign = s;
    }
    face = sign > 0 ? GL_BACK : sign < 0 ? GL_FRONT : 0;
done:
    free(keys);
    free(weld);
    free(edges);
    free(parent);
    free(volume);
    free(magnitude);
    return face;
}

static void free_model_gl(gfx_model *g)
{
    for (int i = 0; i < g->mesh_count; i++) {
        gfx_mesh *m = &g->meshes[i];
        glDeleteVertexArrays(1, &m->vao);
        glDeleteBuffers(1, &m->vbo);
        if (m->vbo1) glDeleteBuffers(1, &m->vbo1);
        glDeleteBuffers(1, &m->ibo);
        if (m->morph_tex) glDeleteTextures(1, &m->morph_tex);
        if (m->morph_buf) glDeleteBuffers(1, &m->morph_buf);
        if (m->dq_blend_tex) glDeleteTextures(1, &m->dq_blend_tex);
        if (m->dq_blend_buf) glDeleteBuffers(1, &m->dq_blend_buf);
    }
    free(g->meshes);
    free(g->morph_defaults);
    g->morph_defaults = NULL;
    free(g->joint_spheres);
    free(g->cast_spheres);
    g->meshes = NULL;
    g->joint_spheres = g->cast_spheres = NULL;
    g->mesh_count = 0;
}

/* Checks what the GPU would read out of bounds on: indices and joints. */
static mr_status check_mesh(const mr_model *model, const mr_mesh *mesh, int mi, mr_error *err)
{
    const char *mname = mesh->name ? mesh->name : "";
    for (int i = 0; i < mesh->index_count; i++)
        if (mesh->indices[i] >= (uint32_t)mesh->vertex_count)
            return mr_error_set(err, MR_ERR_BAD_FILE,
                                "gfx: %s: mesh %d '%s': index %d is %u, but the mesh has %d vertices",
                                model->path, mi, mname, i, mesh->indices[i], mesh->vertex_count);
    if (!mesh->joints) return MR_OK;
    for (int v = 0; v < mesh->vertex_count; v++)
        for (int k = 0; k < MR_MAX_INFLUENCES; k++)
            if (mesh->joints[v][k] >= model->skeleton.joint_count && mesh->weights[v][k] != 0.0f)
                return mr_error_set(err, MR_ERR_BAD_FILE,
                                    "gfx: %s: mesh %d '%s': vertex %d uses joint %d, but the "
                                    "skeleton has %d joints",
                                    model->path, mi, mname, v, mesh->joints[v][k],
                                    model->skeleton.joint_count);
    return MR_OK;
}

/* A texture buffer holding bytes of data as texels of format (the buffer
 * and its texture in *buf, *tex; both unbound after). */
static void upload_texture_buffer(GLenum format, const void *data, size_t bytes, GLuint *buf, GLuint *tex)
{
    glGenBuffers(1, buf);
    glBindBuffer(GL_TEXTURE_BUFFER, *buf);
    glBufferData(GL_TEXTURE_BUFFER, (GLsizeiptr)bytes, data, GL_STATIC_DRAW);
    glGenTextures(1, tex);
    glBindTexture(GL_TEXTURE_BUFFER, *tex);
    glTexBuffer(GL_TEXTURE_BUFFER, format, *buf);
    glBindTexture(GL_TEXTURE_BUFFER, 0);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
}

/* The mesh's morph deltas as a texture buffer (shaders/skin.glsl, "Morph targets"). */
static mr_status upload_morph(const mr_mesh *mesh, gfx_mesh *out, mr_error *err)
{
    const mr_morph_set *set = mesh->morph;
    out->vertex_count = mesh->vertex_count;
    if (!set || set->vertex_count != mesh->vertex_count || mesh->vertex_count == 0) return MR_OK;
    size_t nv = (size_t)mesh->vertex_count, texels = 2 * (size_t)set->count * nv;
    GLint max_texels = 0;
    glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &max_texels);
    if (texels > (size_t)(max_texels > 0 ? max_texels : 65536) || texels > INT_MAX)
        return mr_error_set(err, MR_ERR_LIMIT,
                            "gfx: mesh '%s': %d morph targets of %zu vertices need %zu texels; the GL allows %d",
                            mesh->name ? mesh->name : "", set->count, nv, texels, max_texels);
    vec4 *t = mr_alloc_array(texels, sizeof *t);
    if (!t) return mr_error_set(err, MR_ERR_NO_MEMORY, "gfx: out of memory uploading mesh '%s'", mesh->name ? mesh->name : "");
    for (int k = 0; k < set->count; k++) {
        const mr_morph_target *mt = &set->targets[k];
        for (size_t v = 0; v < nv; v++) {
            glm_vec3_copy(mt->positions[v], t[2 * (size_t)k * nv + v]);
            if (mt->normals) glm_vec3_copy(mt->normals[v], t[(2 * (size_t)k + 1) * nv + v]);
        }
    }
    upload_texture_buffer(GL_RGBA32F, t, texels * sizeof *t, &out->morph_buf, &out->morph_tex);
    free(t);
    out->morph_count = set->count;
    return MR_OK;
}

/* The mesh's own skinning mode, and its per-vertex blend of linear and
 * dual-quaternion skinning as a texture buffer (shaders/skin.glsl,
 * u_dq_blend: one R32F texel per vertex, clamped to [0, 1]). */
static mr_status upload_skinning(const mr_mesh *mesh, gfx_mesh *out, mr_error *err)
{
    out->dq = mesh->joints && mesh->weights && mesh->skinning == MR_SKINNING_DUAL_QUATERNION;
    if (!out->dq || !mesh->dq_blend || mesh->vertex_count <= 0) return MR_OK;
    GLint max_texels = 0;
    glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &max_texels);
    if (mesh->vertex_count > (max_texels > 0 ? max_texels : 65536))
        return mr_error_set(err, MR_ERR_LIMIT, "gfx: mesh '%s': %d per-vertex skinning blends; the GL allows %d texels",
                            mesh->name ? mesh->name : "", mesh->vertex_count, max_texels);
    float *f = mr_alloc_array((size_t)mesh->vertex_count, sizeof *f);
    if (!f) return mr_error_set(err, MR_ERR_NO_MEMORY, "gfx: out of memory uploading mesh '%s'", mesh->name ? mesh->name : "");
    for (int v = 0; v < mesh->vertex_count; v++) {
        float b = mesh->dq_blend[v];
        f[v] = isfinite(b) ? fminf(fmaxf(b, 0.0f), 1.0f) : 0.0f;
    }
    upload_texture_buffer(GL_R32F, f, (size_t)mesh->vertex_count * sizeof *f, &out->dq_blend_buf, &out->dq_blend_tex);
    free(f);
    return MR_OK;
}

static mr_status upload_mesh(mr_renderer *r, const char *dir, const mr_mesh *mesh, gfx_mesh *out,
                             int joint_count, mr_error *err)
{
    mr_status sst = upload_skinning(mesh, out, err);
    if (sst != MR_OK) return sst;
    mr_status mst = upload_morph(mesh, out, err);
    if (mst != MR_OK) return mst;
    int nv = mesh->vertex_count;
    gfx_vertex *v = mr_alloc_array((size_t)nv, sizeof *v);
    vec3 *bitan = mesh->material.normal_map ? mr_alloc_array((size_t)nv, sizeof *bitan) : NULL;
    if (!v || (mesh->material.normal_map && !bitan)) {
        free(v);
        free(bitan);
        return mr_error_set(err, MR_ERR_NO_MEMORY, "gfx: out of memory uploading mesh '%s'",
                            mesh->name ? mesh->name : "");
    }
    for (int i = 0; i < nv; i++) {
        memcpy(v[i].pos, mesh->positions[i], sizeof v[i].pos);
        memcpy(v[i].nrm, mesh->normals[i], sizeof v[i].nrm);
        memcpy(v[i].uv, mesh->uvs[i], sizeof v[i].uv);
        if (mesh->joints) {
            for (int k = 0; k < MR_INFLUENCE_SET; k++) {
                /* Unused slots (weight 0) may name any joint; keep them in range. */
                uint16_t j = mesh->joints[i][k];
                v[i].joints[k] = j < joint_count ? j : 0;
                v[i].weights[k] = mesh->weights[i][k];
            }
        }
    }
    gfx_vertex1 *v1 = NULL;
    if (mr_mesh_influence_count(mesh) > MR_INFLUENCE_SET) {
        v1 = mr_alloc_array((size_t)nv, sizeof *v1);
        if (!v1) {
            free(v);
            free(bitan);
            return mr_error_set(err, MR_ERR_NO_MEMORY, "gfx: out of memory uploading mesh '%s'",
                                mesh->name ? mesh->name : "");
        }
        for (int i = 0; i < nv; i++)
            for (int k = 0; k < MR_INFLUENCE_SET; k++) {
                uint16_t j = mesh->joints[i][MR_INFLUENCE_SET + k];
                v1[i].joints[k] = j < joint_count ? j : 0;
                v1[i].weights[k] = mesh->weights[i][MR_INFLUENCE_SET + k];
            }
    }
    if (bitan) compute_tangents(mesh, v, bitan);
    free(bitan);

    glGenVertexArrays(1, &out->vao);
    glGenBuffers(1, &out->vbo);
    glGenBuffers(1, &out->ibo);
    glBindVertexArray(out->vao);
    glBindBuffer(GL_ARRAY_BUFFER, out->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)nv * sizeof *v), v, GL_STATIC_DRAW);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, out->ibo);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)((size_t)mesh->index_count * sizeof(uint32_t)),
                 mesh->indices, GL_STATIC_DRAW);
    GLsizei stride = sizeof(gfx_vertex);
    glEnableVertexAttribArray(ATTR_POSITION);
    glVertexAttribPointer(ATTR_POSITION, 3, GL_FLOAT, GL_FALSE, stride,
                          (void *)offsetof(gfx_vertex, pos));
    glEnableVertexAttribArray(ATTR_NORMAL);
    glVertexAttribPointer(ATTR_NORMAL, 3, GL_FLOAT, GL_FALSE, stride,
                          (void *)offsetof(gfx_vertex, nrm));
    glEnableVertexAttribArray(ATTR_UV);
    glVertexAttribPointer(ATTR_UV, 2, GL_FLOAT, GL_FALSE, stride, (void *)offsetof(gfx_vertex, uv));
    glEnableVertexAttribArray(ATTR_TANGENT);
    glVertexAttribPointer(ATTR_TANGENT, 4, GL_FLOAT, GL_FALSE, stride,
                          (void *)offsetof(gfx_vertex, tan));
    glEnableVertexAttribArray(ATTR_JOINTS);
    glVertexAttribIPointer(ATTR_JOINTS, 4, GL_UNSIGNED_SHORT, stride,
                           (void *)offsetof(gfx_vertex, joints));
    glEnableVertexAttribArray(ATTR_WEIGHTS);
    glVertexAttribPointer(ATTR_WEIGHTS, 4, GL_FLOAT, GL_FALSE, stride,
                          (void *)offsetof(gfx_vertex, weights));
    out->vbo1 = 0;
    if (v1) {
        /* The shaders read these only when u_wide is set (out->vbo1 != 0). */
        glGenBuffers(1, &out->vbo1);
        glBindBuffer(GL_ARRAY_BUFFER, out->vbo1);
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)nv * sizeof *v1), v1, GL_STATIC_DRAW);
        GLsizei stride1 = sizeof(gfx_vertex1);
        glEnableVertexAttribArray(ATTR_JOINTS1);
        glVertexAttribIPointer(ATTR_JOINTS1, 4, GL_UNSIGNED_SHORT, stride1,
                               (void *)offsetof(gfx_vertex1, joints));
        glEnableVertexAttribArray(ATTR_WEIGHTS1);
        glVertexAttribPointer(ATTR_WEIGHTS1, 4, GL_FLOAT, GL_FALSE, stride1,
                              (void *)offsetof(gfx_vertex1, weights));
    }
    glBindVertexArray(0);
    free(v);
    free(v1);

    out->index_count = mesh->index_count;
    out->skinned = mesh->joints != NULL && mesh->weights != NULL;
    const mr_material *mat = &mesh->material;
    /* Material colours are unaligned float[4]: no SIMD copies. */
    memcpy(out->diffuse, mat->diffuse, sizeof out->diffuse);
    memcpy(out->ambient, mat->ambient, sizeof out->ambient);
    memcpy(out->specular, mat->specular, sizeof out->specular);
    memcpy(out->emission, mat->emission, sizeof out->emission);
    out->shininess = mat->shininess > 0 ? mat->shininess : 32.0f;
    out->diffuse_tex = mat->diffuse_map ? gfx_texture_get(r, dir, mat->diffuse_map, mat->diffuse_bytes, mat->diffuse_bytes_len, &out->alpha_cutout) : 0;
    out->normal_tex = mat->normal_map ? gfx_texture_get(r, dir, mat->normal_map, mat->normal_bytes, mat->normal_bytes_len, NULL) : 0;
    /* A missing normal map falls back to the checker; a flat normal is the
     * better fallback there, so drop it. */
    if (out->normal_tex == r->checker_tex) out->normal_tex = 0;
    /* Cut-out texels would show the inside of a closed mesh: never culled. */
    out->cull_face = out->alpha_cutout ? 0 : closed_cull_face(mesh);
    return MR_OK;
}

/* The spheres around the boxes mn[j]..mx[j] (radius -1 for an empty box),
 * or NULL when any is NULL. */
static vec4 *spheres_of_boxes(int nj, const vec3 *mn, const vec3 *mx)
{
    vec4 *out = nj && mn && mx ? mr_alloc_array((size_t)nj, sizeof *out) : NULL;
    for (int j = 0; j < nj && out; j++) {
        if (mn[j][0] > mx[j][0]) {
            out[j][3] = -1.0f;
            continue;
        }
        vec3 c, h;
        glm_vec3_add((float *)mn[j], (float *)mx[j], c);
        glm_vec3_scale(c, 0.5f, c);
        glm_vec3_sub((float *)mx[j], (float *)mn[j], h);
        glm_vec3_copy(c, out[j]);
        out[j][3] = 0.5f * glm_vec3_norm(h);
    }
    return out;
}

/* Bounding spheres per joint (joint_spheres: around the vertices it weighs
 * most; cast_spheres: around every vertex it weighs at all) and a box for
 * static meshes, in the model's frame. */
static void compute_bounds(const mr_model *model, gfx_model *g)
{
    int nj = model->skeleton.joint_count;
    vec3 *box = nj ? mr_alloc_array((size_t)nj * 4, sizeof *box) : NULL;
    vec3 *mn = box, *mx = box ? box + nj : NULL;          /* dominated vertices */
    vec3 *cmn = box ? box + 2 * nj : NULL, *cmx = box ? box + 3 * nj : NULL;  /* moved ones */
    for (int j = 0; j < nj * 4 && box; j++) glm_vec3_fill(box[j], j / nj % 2 ? -FLT_MAX : FLT_MAX);
    glm_vec3_fill(g->static_min, FLT_MAX);
    glm_vec3_fill(g->static_max, -FLT_MAX);
    for (int i = 0; i < model->mesh_count; i++) {
        const mr_mesh *mesh = &model->meshes[i];
        for (int v = 0; v < mesh->vertex_count; v++) {
            if (mesh->joints && box) {
                int best = 0;
                for (int k = 0; k < MR_MAX_INFLUENCES; k++) {
                    int j = mesh->joints[v][k];
                    if (mesh->weights[v][k] > mesh->weights[v][best]) best = k;
                    if (j >= nj || mesh->weights[v][k] == 0.0f) continue;
                    glm_vec3_minv(cmn[j], mesh->positions[v], cmn[j]);
                    glm_vec3_maxv(cmx[j], mesh->positions[v], cmx[j]);
                }
                int j = mesh->joints[v][best];
                if (j >= nj) continue;
                glm_vec3_minv(mn[j], mesh->positions[v], mn[j]);
                glm_vec3_maxv(mx[j], mesh->positions[v], mx[j]);
            } else if (!mesh->joints) {
                glm_vec3_minv(g->static_min, mesh->positions[v], g->static_min);
                glm_vec3_maxv(g->static_max, mesh->positions[v], g->static_max);
                g->has_static = 1;
            }
        }
    }
    g->joint_spheres = spheres_of_boxes(nj, mn, mx);
    g->cast_spheres = spheres_of_boxes(nj, cmn, cmx);
    free(box);
    /* Morph targets move vertices by up to the sum of their longest
     * deltas (weights up to 1): every sphere and the box grow by that. */
    float reach = 0;
    for (int i = 0; i < model->mesh_count; i++) {
        const mr_morph_set *set = model->meshes[i].morph;
        float sum = 0;
        for (int k = 0; set && k < set->count; k++) {
            float most = 0;
            for (int v = 0; v < set->vertex_count; v++) most = fmaxf(most, glm_vec3_norm(set->targets[k].positions[v]));
            sum += most;
        }
        reach = fmaxf(reach, sum);
    }
    for (int j = 0; reach > 0 && j < nj; j++) {
        if (g->joint_spheres && g->joint_spheres[j][3] >= 0) g->joint_spheres[j][3] += reach;
        if (g->cast_spheres && g->cast_spheres[j][3] >= 0) g->cast_spheres[j][3] += reach;
    }
    if (reach > 0 && g->has_static) {
        glm_vec3_subs(g->static_min, reach, g->static_min);
        glm_vec3_adds(g->static_max, reach, g->static_max);
    }
}

mr_status mr_renderer_upload_model(mr_renderer *r, const mr_model *model, mr_gpu_model *out,
                                   mr_error *err)
{
    out->id = 0;
    if (!model) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "gfx: upload of a NULL model");
    const char *path = model->path ? model->path : "";
    if (model->skeleton.joint_count > MR_GFX_MAX_JOINTS)
        return mr_error_set(err, MR_ERR_LIMIT,
                            "gfx: %s has %d joints; the renderer's bone palette holds at most %d",
                            path, model->skeleton.joint_count, MR_GFX_MAX_JOINTS);
    for (int i = 0; i < model->mesh_count; i++) {
        mr_status st = check_mesh(model, &model->meshes[i], i, err);
        if (st != MR_OK) return st;
    }

    /* A free slot, growing the pool when full. */
    int slot = -1;
    for (int i = 0; i < r->model_cap; i++)
        if (!r->models[i].live) { slot = i; break; }
    if (slot < 0) {
        if (r->model_cap >= (int)SLOT_MASK)
            return mr_error_set(err, MR_ERR_LIMIT, "gfx: too many models on the GPU (%d)", r->model_cap);
        int ncap = r->model_cap ? r->model_cap * 2 : 16;
        if (ncap > (int)SLOT_MASK) ncap = (int)SLOT_MASK;
        gfx_model *grown = realloc(r->models, (size_t)ncap * sizeof *grown);
        if (!grown) return mr_error_set(err, MR_ERR_NO_MEMORY, "gfx: out of memory");
        memset(grown + r->model_cap, 0, (size_t)(ncap - r->model_cap) * sizeof *grown);
        slot = r->model_cap;
        r->models = grown;
        r->model_cap = ncap;
    }
    gfx_model *g = &r->models[slot];
    uint32_t gen = g->generation;
    memset(g, 0, sizeof *g);
    g->generation = gen ? gen : 1;
    g->joint_count = model->skeleton.joint_count;
    g->meshes = mr_alloc_array((size_t)model->mesh_count, sizeof *g->meshes);
    if (!g->meshes) return mr_error_set(err, MR_ERR_NO_MEMORY, "gfx: out of memory");
    /* Textures are read from inside the model's folder only. */
    char *dir = mr_file_model_dir(model->path);
    for (int i = 0; i < model->mesh_count; i++) {
        mr_status st = upload_mesh(r, dir, &model->meshes[i], &g->meshes[i], g->joint_count, err);
        g->mesh_count = i + 1;  /* a failed mesh too: free_model_gl skips its zero names */
        if (st != MR_OK) {
            free(dir);
            free_model_gl(g);
            return st;
        }
        g->triangles += model->meshes[i].index_count / 3;
    }
    free(dir);
    for (int i = 0; i < model->mesh_count; i++) {
        g->meshes[i].morph_first = g->morph_weight_count;
        g->morph_weight_count += g->meshes[i].morph_count;
    }
    if (g->morph_weight_count) {
        g->morph_defaults = mr_alloc_array((size_t)g->morph_weight_count, sizeof *g->morph_defaults);
        if (!g->morph_defaults) {
            free_model_gl(g);
            return mr_error_set(err, MR_ERR_NO_MEMORY, "gfx: out of memory");
        }
        for (int i = 0; i < model->mesh_count; i++)
            if (g->meshes[i].morph_count)
                memcpy(g->morph_defaults + g->meshes[i].morph_first, model->meshes[i].morph->weights,
                       (size_t)g->meshes[i].morph_count * sizeof(float));
    }
    compute_bounds(model, g);
    g->live = 1;
    out->id = (g->generation << SLOT_BITS) | (uint32_t)(slot + 1);
    return MR_OK;
}

void mr_renderer_release_model(mr_renderer *r, mr_gpu_model m)
{
    gfx_model *g = gfx_model_get(r, m);
    if (!g) return;
    free_model_gl(g);
    g->live = 0;
    g->generation = (g->generation + 1) & SLOT_MASK;
    if (g->generation == 0) g->generation = 1;
}

void gfx_models_release_all(mr_renderer *r)
{
    for (int i = 0; i < r->model_cap; i++)
        if (r->models[i].live) {
            free_model_gl(&r->models[i]);
            r->models[i].live = 0;
        }
    free(r->models);
    r->models = NULL;
    r->model_cap = 0;
}

/* Largest axis scale of the upper 3x3 of m. */
static float max_scale(const mat4 m)
{
    float s = 0;
    for (int c = 0; c < 3; c++) {
        float l = sqrtf(m[c][0] * m[c][0] + m[c][1] * m[c][1] + m[c][2] * m[c][2]);
        if (l > s) s = l;
    }
    return s;
}

int gfx_model_sphere(const gfx_model *g, int cast, const mat4 *skin, const mat4 world, int i, vec4 out)
{
    mat4 w;                      /* aligned copy of the caller's matrix */
    memcpy(w, world, sizeof w);
    if (i == g->joint_count) {   /* the static meshes' box */
        if (!g->has_static) return 0;
        vec3 c, half;
        glm_vec3_center((float *)g->static_min, (float *)g->static_max, c);
        glm_vec3_sub((float *)g->static_max, c, half);
        glm_mat4_mulv3(w, c, 1.0f, out);
        out[3] = glm_vec3_norm(half) * max_scale(w);
        return 1;
    }
    const vec4 *all = cast ? g->cast_spheres : g->joint_spheres;
    const float *s = all ? all[i] : NULL;
    if (!s || s[3] < 0) return 0;
    mat4 full, sj;
    if (skin) {
        memcpy(sj, skin[i], sizeof sj);
        glm_mat4_mul(w, sj, full);
    } else {
        glm_mat4_copy(w, full);
    }
    glm_mat4_mulv3(full, (float *)s, 1.0f, out);
    out[3] = s[3] * max_scale(full);
    return 1;
}

int mr_renderer_model_bounds(const mr_renderer *r, mr_gpu_model m, const mat4 *skin,
                             int joint_count, const mat4 world, vec3 min, vec3 max)
{
    const gfx_model *g = gfx_model_get(r, m);
    glm_vec3_fill(min, FLT_MAX);
    glm_vec3_fill(max, -FLT_MAX);
    if (!g) return 0;
    if (skin && joint_count != g->joint_count) skin = NULL;
    mat4 w;                      /* aligned copies of the caller's matrices */
    memcpy(w, world, sizeof w);
    int any = 0;
    for (int j = 0; j < g->joint_count; j++) {
        vec4 sp;
        if (!gfx_model_sphere(g, 0, skin, w, j, sp)) continue;
        for (int k = 0; k < 3; k++) {
            if (sp[k] - sp[3] < min[k]) min[k] = sp[k] - sp[3];
            if (sp[k] + sp[3] > max[k]) max[k] = sp[k] + sp[3];
        }
        any = 1;
    }
    if (g->has_static) {
        for (int i = 0; i < 8; i++) {
            vec3 p = {(i & 1) ? g->static_max[0] : g->static_min[0],
                      (i & 2) ? g->static_max[1] : g->static_min[1],
                      (i & 4) ? g->static_max[2] : g->static_min[2]};
            vec3 q;
            glm_mat4_mulv3(w, p, 1.0f, q);
            glm_vec3_minv(min, q, min);
            glm_vec3_maxv(max, q, max);
        }
        any = 1;
    }
    if (!any) {
        glm_vec3_zero(min);
        glm_vec3_zero(max);
    }
    return any;
}
