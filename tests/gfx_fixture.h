/* gfx_fixture.h — a small skinned figure built in code for the renderer
 * tests, so they need no loader: MD5's frame (Z-up, inches), 6 joints
 * (root, hips, chest, head, arm.L, arm.R), a body tube blended between hips
 * and chest, arm tubes blended at the shoulders, a head sphere, and a static
 * box beside the feet (joints == NULL). Materials: the body a plain colour,
 * the head a generated texture, the arms a texture path that does not exist
 * (the renderer's checker fallback).
 *
 *   mr_model *m = fixture_model(texture_dir);   (caller frees with mr_model_destroy)
 *   fixture_pose(m, t, pose);                   a deterministic bend for time t
 */
#ifndef MR_TEST_GFX_FIXTURE_H
#define MR_TEST_GFX_FIXTURE_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/model.h"
#include "anim/pose.h"
#include "core/file.h"
#include "core/path.h"
#include "core/str.h"
#include "gfx/renderer.h"

enum { FX_ROOT, FX_HIPS, FX_CHEST, FX_HEAD, FX_ARM_L, FX_ARM_R, FX_JOINTS };

/* A capped tube from a to b (Z-up model coordinates); each vertex's joints
 * and weights come from blend(t along the tube). */
typedef void (*fx_blend_fn)(float t, uint16_t j[4], float w[4]);

static inline void fx_tube(mr_mesh *m, const float a[3], const float b[3], float radius, int segs,
                    int rings, fx_blend_fn blend)
{
    int nv = (rings + 1) * segs + 2, ni = rings * segs * 6 + segs * 6;
    mr_mesh_init(m, nv, ni, blend != NULL);
    vec3 axis, u, v, helper = {1, 0, 0};
    glm_vec3_sub((float *)b, (float *)a, axis);
    if (fabsf(axis[0]) > fabsf(axis[2])) glm_vec3_copy((vec3){0, 0, 1}, helper);
    glm_vec3_crossn(axis, helper, u);
    glm_vec3_crossn(axis, u, v);
    int k = 0;
    for (int r = 0; r <= rings; r++) {
        float t = (float)r / (float)rings;
        for (int s = 0; s < segs; s++, k++) {
            float ang = 2.0f * GLM_PIf * (float)s / (float)segs;
            for (int c = 0; c < 3; c++)
                m->positions[k][c] = a[c] + axis[c] * t + radius * (cosf(ang) * u[c] + sinf(ang) * v[c]);
            m->uvs[k][0] = (float)s / (float)segs;
            m->uvs[k][1] = t;
            if (blend) blend(t, m->joints[k], m->weights[k]);
        }
    }
    int cap0 = k++, cap1 = k++;
    glm_vec3_copy((float *)a, m->positions[cap0]);
    glm_vec3_copy((float *)b, m->positions[cap1]);
    if (blend) {
        blend(0.0f, m->joints[cap0], m->weights[cap0]);
        blend(1.0f, m->joints[cap1], m->weights[cap1]);
    }
    int i = 0;
    for (int r = 0; r < rings; r++)
        for (int s = 0; s < segs; s++) {
            uint32_t p0 = (uint32_t)(r * segs + s), p1 = (uint32_t)(r * segs + (s + 1) % segs);
            uint32_t q0 = p0 + (uint32_t)segs, q1 = p1 + (uint32_t)segs;
            uint32_t tri[6] = {p0, p1, q1, p0, q1, q0};
            memcpy(&m->indices[i], tri, sizeof tri);
            i += 6;
        }
    for (int s = 0; s < segs; s++) {
        uint32_t p0 = (uint32_t)s, p1 = (uint32_t)((s + 1) % segs);
        uint32_t q0 = p0 + (uint32_t)(rings * segs), q1 = p1 + (uint32_t)(rings * segs);
        uint32_t tri[6] = {(uint32_t)cap0, p1, p0, (uint32_t)cap1, q0, q1};
        memcpy(&m->indices[i], tri, sizeof tri);
        i += 6;
    }
    mr_mesh_compute_normals(m);
}

static inline void fx_set(uint16_t j[4], float w[4], int a, int b, float wb)
{
    j[0] = (uint16_t)a;
    j[1] = (uint16_t)b;
    j[2] = j[3] = 0;
    w[0] = 1.0f - wb;
    w[1] = wb;
    w[2] = w[3] = 0;
}

static inline void fx_body_blend(float t, uint16_t j[4], float w[4])
{
    /* tube z 0..58: hips below 0.4, chest above 0.7, blended between; near
     * the top a little of the head and the left arm as well, so all four
     * influence slots are used */
    float wb = t < 0.4f ? 0.0f : t > 0.7f ? 1.0f : (t - 0.4f) / 0.3f;
    fx_set(j, w, FX_HIPS, FX_CHEST, wb);
    if (t > 0.8f) {
        float extra = (t - 0.8f) * 1.5f;   /* up to 0.3 at the top */
        w[0] *= 1.0f - extra;
        w[1] *= 1.0f - extra;
        j[2] = FX_HEAD;
        w[2] = extra * 0.6f;
        j[3] = FX_ARM_L;
        w[3] = extra * 0.4f;
    }
}
static inline void fx_arm_l_blend(float t, uint16_t j[4], float w[4])
{
    fx_set(j, w, FX_CHEST, FX_ARM_L, t < 0.1f ? t / 0.1f : 1.0f);
}
static inline void fx_arm_r_blend(float t, uint16_t j[4], float w[4])
{
    fx_set(j, w, FX_CHEST, FX_ARM_R, t < 0.1f ? t / 0.1f : 1.0f);
}

static inline void fx_sphere(mr_mesh *m, const float c[3], float radius, int segs, int rings, int joint)
{
    int nv = (rings + 1) * (segs + 1), ni = rings * segs * 6;
    mr_mesh_init(m, nv, ni, 1);
    int k = 0;
    for (int r = 0; r <= rings; r++) {
        float th = GLM_PIf * (float)r / (float)rings;
        for (int s = 0; s <= segs; s++, k++) {
            float ph = 2.0f * GLM_PIf * (float)s / (float)segs;
            vec3 n = {sinf(th) * cosf(ph), sinf(th) * sinf(ph), cosf(th)};
            for (int i = 0; i < 3; i++) m->positions[k][i] = c[i] + radius * n[i];
            glm_vec3_copy(n, m->normals[k]);
            m->uvs[k][0] = (float)s / (float)segs;
            m->uvs[k][1] = 1.0f - (float)r / (float)rings;
            fx_set(m->joints[k], m->weights[k], joint, 0, 0.0f);
        }
    }
    int i = 0;
    for (int r = 0; r < rings; r++)
        for (int s = 0; s < segs; s++) {
            uint32_t p0 = (uint32_t)(r * (segs + 1) + s), p1 = p0 + 1;
            uint32_t q0 = p0 + (uint32_t)(segs + 1), q1 = q0 + 1;
            uint32_t tri[6] = {p0, q0, q1, p0, q1, p1};
            memcpy(&m->indices[i], tri, sizeof tri);
            i += 6;
        }
}

static inline void fx_box(mr_mesh *m, const float lo[3], const float hi[3])
{
    mr_mesh_init(m, 24, 36, 0);
    static const int faces[6][4][3] = {
        {{0, 0, 0}, {0, 1, 0}, {1, 1, 0}, {1, 0, 0}}, {{0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}},
        {{0, 0, 0}, {1, 0, 0}, {1, 0, 1}, {0, 0, 1}}, {{0, 1, 0}, {0, 1, 1}, {1, 1, 1}, {1, 1, 0}},
        {{0, 0, 0}, {0, 0, 1}, {0, 1, 1}, {0, 1, 0}}, {{1, 0, 0}, {1, 1, 0}, {1, 1, 1}, {1, 0, 1}},
    };
    for (int f = 0; f < 6; f++) {
        for (int c = 0; c < 4; c++)
            for (int i = 0; i < 3; i++)
                m->positions[f * 4 + c][i] = faces[f][c][i] ? hi[i] : lo[i];
        uint32_t b = (uint32_t)f * 4;
        uint32_t tri[6] = {b, b + 1, b + 2, b, b + 2, b + 3};
        memcpy(&m->indices[f * 6], tri, sizeof tri);
    }
    mr_mesh_compute_normals(m);
}

/* Writes a 64x64 PNG (orange top half, green bottom half) to dir/head.png. */
static inline void fx_write_texture(const char *dir)
{
    uint8_t px[64 * 64 * 4];
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++) {
            uint8_t *p = &px[(y * 64 + x) * 4];
            int top = y < 32;
            p[0] = top ? 240 : 60;
            p[1] = top ? 150 : 200;
            p[2] = top ? 40 : 80;
            p[3] = 255;
        }
    char *path = mr_path_join(dir, "head.png");
    mr_gfx_write_png(path, px, 64, 64, NULL);
    free(path);
}

static inline mr_model *fixture_model(const char *texture_dir)
{
    mr_model *m = NULL;
    mr_model_create("fixture.md5mesh", "md5", &m);
    m->axes.up = MR_UP_Z;
    m->axes.meters_per_unit = 0.0254f;
    mr_skeleton *sk = &m->skeleton;
    mr_skeleton_init(sk, FX_JOINTS);
    static const char *names[FX_JOINTS] = {"root", "hips", "chest", "head", "arm.L", "arm.R"};
    static const int parents[FX_JOINTS] = {-1, 0, 1, 2, 2, 2};
    static const float model_pos[FX_JOINTS][3] = {
        {0, 0, 0}, {0, 0, 24}, {0, 0, 46}, {0, 0, 60}, {0, 8, 52}, {0, -8, 52},
    };
    for (int j = 0; j < FX_JOINTS; j++) {
        sk->names[j] = mr_str_dup(names[j]);
        sk->parents[j] = parents[j];
        int p = parents[j];
        for (int i = 0; i < 3; i++)
            sk->rest_t[j][i] = model_pos[j][i] - (p >= 0 ? model_pos[p][i] : 0.0f);
    }
    mr_skeleton_compute_inverse_bind(sk);

    m->mesh_count = 5;
    m->meshes = calloc(5, sizeof *m->meshes);
    fx_tube(&m->meshes[0], (float[]){0, 0, 0}, (float[]){0, 0, 58}, 7.0f, 24, 24, fx_body_blend);
    fx_tube(&m->meshes[1], (float[]){0, 6, 52}, (float[]){0, 28, 52}, 2.5f, 12, 10, fx_arm_l_blend);
    fx_tube(&m->meshes[2], (float[]){0, -6, 52}, (float[]){0, -28, 52}, 2.5f, 12, 10, fx_arm_r_blend);
    fx_sphere(&m->meshes[3], (float[]){0, 0, 65}, 6.0f, 20, 12, FX_HEAD);
    fx_box(&m->meshes[4], (float[]){14, 8, 0}, (float[]){22, 16, 8});
    static const char *mesh_names[5] = {"body", "arm.L", "arm.R", "head", "crate"};
    for (int i = 0; i < 5; i++) m->meshes[i].name = mr_str_dup(mesh_names[i]);
    /* material colours are unaligned float[4]: plain stores */
    static const float body[4] = {0.35f, 0.55f, 0.85f, 1}, crate[4] = {0.8f, 0.3f, 0.25f, 1},
                       white[4] = {1, 1, 1, 1};
    memcpy(m->meshes[0].material.diffuse, body, sizeof body);
    memcpy(m->meshes[4].material.diffuse, crate, sizeof crate);
    memcpy(m->meshes[3].material.diffuse, white, sizeof white);
    if (texture_dir) {
        fx_write_texture(texture_dir);
        m->meshes[3].material.diffuse_map = mr_path_join(texture_dir, "head.png");
        m->meshes[1].material.diffuse_map = mr_path_join(texture_dir, "no-such-texture.png");
        m->meshes[2].material.diffuse_map = mr_str_dup(m->meshes[1].material.diffuse_map);
    }
    return m;
}

/* A pose for time t: the chest leans sideways, the left arm rises, the head
 * turns — all smoothly with t. */
static inline void fixture_pose(const mr_model *m, float t, mr_pose *pose)
{
    mr_pose_set_rest(pose, &m->skeleton);
    glm_quatv(pose->r[FX_CHEST], glm_rad(25.0f * sinf(t * 2.0f)), (vec3){1, 0, 0});
    glm_quatv(pose->r[FX_ARM_L], glm_rad(70.0f * (0.5f + 0.5f * sinf(t * 3.0f))), (vec3){1, 0, 0});
    glm_quatv(pose->r[FX_ARM_R], glm_rad(40.0f * sinf(t * 1.5f)), (vec3){0, 1, 0});
    glm_quatv(pose->r[FX_HEAD], glm_rad(50.0f * sinf(t)), (vec3){0, 0, 1});
    glm_quatv(pose->r[FX_HIPS], glm_rad(15.0f * sinf(t * 1.3f)), (vec3){0, 1, 0});
}

#endif
