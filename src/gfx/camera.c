/* camera.c — orbit camera math and bounds framing. */
#include "gfx/camera.h"

#include <math.h>
#include <string.h>

static float cam_distance(const mr_camera *c)
{
    return c->distance > 0 ? c->distance : 3.0f;
}

static float cam_fov(const mr_camera *c)
{
    return c->fov_y > 1.0f && c->fov_y < 170.0f ? c->fov_y : 40.0f;
}

void mr_camera_eye(const mr_camera *c, vec3 eye)
{
    float y = glm_rad(c->yaw), p = glm_rad(c->pitch), d = cam_distance(c);
    eye[0] = c->target[0] + d * cosf(p) * sinf(y);
    eye[1] = c->target[1] + d * sinf(p);
    eye[2] = c->target[2] + d * cosf(p) * cosf(y);
}

void mr_camera_matrices(const mr_camera *c, float aspect, mat4 view, mat4 proj)
{
    vec3 eye, target = {c->target[0], c->target[1], c->target[2]};
    mr_camera_eye(c, eye);
    float d = cam_distance(c);
    vec3 up = {0, 1, 0};
    mat4 v, p;                   /* aligned locals; the outputs need not be */
    glm_lookat(eye, target, up, v);
    float n = c->near_z > 0 ? c->near_z : d * 0.02f;
    float f = c->far_z > n ? c->far_z : d * 40.0f;
    glm_perspective(glm_rad(cam_fov(c)), aspect > 0 ? aspect : 1.0f, n, f, p);
    memcpy(view, v, sizeof v);
    memcpy(proj, p, sizeof p);
}

void mr_camera_frame_bounds(mr_camera *c, const vec3 min, const vec3 max, float aspect)
{
    vec3 centre, half;
    glm_vec3_add((float *)min, (float *)max, centre);
    glm_vec3_scale(centre, 0.5f, centre);
    glm_vec3_sub((float *)max, (float *)min, half);
    glm_vec3_scale(half, 0.5f, half);
    glm_vec3_copy(centre, c->target);

    /* Fit the box's corners, seen from the camera's direction, into the
     * narrower of the two fields of view. */
    float fy = glm_rad(cam_fov(c));
    float fx = 2.0f * atanf(tanf(fy * 0.5f) * (aspect > 0 ? aspect : 1.0f));
    float ty = tanf(fy * 0.5f), tx = tanf(fx * 0.5f);
    mr_camera probe = *c;
    probe.distance = 1.0f;
    glm_vec3_zero(probe.target);
    mat4 view, dummy;
    mr_camera_matrices(&probe, 1.0f, view, dummy);
    /* For each corner in view space (camera at the origin looking down -z
     * from distance 1 before moving back), find the distance D at which
     * |x| / (D - z) <= tx and |y| / (D - z) <= ty. */
    float need = 0.0f;
    for (int i = 0; i < 8; i++) {
        vec3 corner = {(i & 1) ? half[0] : -half[0], (i & 2) ? half[1] : -half[1],
                       (i & 4) ? half[2] : -half[2]};
        vec3 v;
        glm_mat4_mulv3(view, corner, 0.0f, v);   /* direction only: relative to target */
        float dx = fabsf(v[0]) / tx + v[2];
        float dy = fabsf(v[1]) / ty + v[2];
        if (dx > need) need = dx;
        if (dy > need) need = dy;
    }
    float radius = glm_vec3_norm(half);
    if (need < radius * 0.5f) need = radius * 0.5f;
    if (need <= 1e-6f) need = 1.0f;
    c->distance = need * 1.08f;
}

void mr_camera_orbit(mr_camera *c, float dyaw, float dpitch)
{
    c->yaw = fmodf(c->yaw + dyaw, 360.0f);
    c->pitch += dpitch;
    if (c->pitch > 89.0f) c->pitch = 89.0f;
    if (c->pitch < -89.0f) c->pitch = -89.0f;
}

void mr_camera_zoom(mr_camera *c, float factor)
{
    if (factor > 0) c->distance = cam_distance(c) * factor;
}

void mr_camera_pan(mr_camera *c, float right, float up)
{
    float y = glm_rad(c->yaw), p = glm_rad(c->pitch), d = cam_distance(c);
    vec3 r = {cosf(y), 0, -sinf(y)};
    vec3 u = {-sinf(p) * sinf(y), cosf(p), -sinf(p) * cosf(y)};
    glm_vec3_muladds(r, right * d, c->target);
    glm_vec3_muladds(u, up * d, c->target);
}
