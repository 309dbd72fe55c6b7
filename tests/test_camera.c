/* test_camera.c — the orbit camera: framing bounds of any size and shape,
 * eye placement, orbit limits, zoom and pan. Pure math, no GL. */
#include "gfx/camera.h"
#include "test.h"

/* Largest |ndc| over the box's corners, seen through cam at aspect. */
static float max_ndc(const mr_camera *cam, const vec3 mn, const vec3 mx, float aspect)
{
    mat4 view, proj, vp;
    mr_camera_matrices(cam, aspect, view, proj);
    glm_mat4_mul(proj, view, vp);
    float worst = 0;
    for (int i = 0; i < 8; i++) {
        vec4 p = {(i & 1) ? mx[0] : mn[0], (i & 2) ? mx[1] : mn[1], (i & 4) ? mx[2] : mn[2], 1};
        vec4 c;
        glm_mat4_mulv(vp, p, c);
        if (c[3] <= 0) return 99.0f;  /* behind the eye */
        for (int k = 0; k < 2; k++) {
            float v = fabsf(c[k] / c[3]);
            if (v > worst) worst = v;
        }
    }
    return worst;
}

TEST(frame_bounds_fits_boxes_of_any_size_and_shape)
{
    const float sizes[4][3] = {{0.4f, 1.8f, 0.3f}, {0.002f, 0.001f, 0.003f}, {900, 40, 1200},
                               {2, 0.1f, 2}};
    const float aspects[3] = {16.0f / 9.0f, 1.0f, 0.5f};
    const float yaws[3] = {0, 60, 215}, pitches[3] = {15, -30, 80};
    for (int s = 0; s < 4; s++)
        for (int a = 0; a < 3; a++)
            for (int k = 0; k < 3; k++) {
                vec3 mn = {10, -3, 5}, mx;
                for (int i = 0; i < 3; i++) mx[i] = mn[i] + sizes[s][i];
                mr_camera cam = {.yaw = yaws[k], .pitch = pitches[k]};
                mr_camera_frame_bounds(&cam, mn, mx, aspects[a]);
                float m = max_ndc(&cam, mn, mx, aspects[a]);
                /* inside the frame, and filling it (no tiny model in a corner) */
                CHECK_MSG(m <= 1.0f && m > 0.75f, "size %d aspect %.2f yaw %.0f: max ndc %.3f", s,
                          aspects[a], yaws[k], m);
                CHECK_NEAR(cam.target[1], mn[1] + 0.5f * sizes[s][1], 1e-3 * sizes[s][1] + 1e-6);
            }
}

TEST(eye_follows_yaw_and_pitch_conventions)
{
    mr_camera cam = {.target = {1, 2, 3}, .distance = 5};
    vec3 eye;
    mr_camera_eye(&cam, eye);
    CHECK_NEAR(eye[0], 1, 1e-5);
    CHECK_NEAR(eye[2], 8, 1e-5);   /* yaw 0: on +Z */
    cam.yaw = 90;
    mr_camera_eye(&cam, eye);
    CHECK_NEAR(eye[0], 6, 1e-5);   /* yaw 90: on +X */
    cam.pitch = 90;
    mr_camera_eye(&cam, eye);
    CHECK_NEAR(eye[1], 7, 1e-5);   /* pitch 90: above */
}

TEST(orbit_clamps_pitch_and_zoom_scales_distance)
{
    mr_camera cam = {.distance = 2};
    mr_camera_orbit(&cam, 30, 200);
    CHECK_NEAR(cam.pitch, 89, 1e-6);
    CHECK_NEAR(cam.yaw, 30, 1e-6);
    mr_camera_orbit(&cam, 0, -500);
    CHECK_NEAR(cam.pitch, -89, 1e-6);
    mr_camera_zoom(&cam, 0.5f);
    CHECK_NEAR(cam.distance, 1, 1e-6);
    mr_camera_zoom(&cam, -1);      /* ignored */
    CHECK_NEAR(cam.distance, 1, 1e-6);
}

TEST(pan_moves_target_across_the_view)
{
    mr_camera cam = {.distance = 4, .yaw = 0, .pitch = 0};
    mr_camera_pan(&cam, 0.5f, 0.25f);
    CHECK_NEAR(cam.target[0], 2, 1e-5);   /* right of a camera on +Z is +X */
    CHECK_NEAR(cam.target[1], 1, 1e-5);
    CHECK_NEAR(cam.target[2], 0, 1e-5);
}

TEST(default_distance_and_fov_for_zero_fields)
{
    mr_camera cam = {0};
    mat4 view, proj;
    mr_camera_matrices(&cam, 1.0f, view, proj);
    vec3 eye;
    mr_camera_eye(&cam, eye);
    CHECK_NEAR(eye[2], 3, 1e-5);
    CHECK(isfinite(proj[0][0]) && proj[0][0] > 0);
}

int main(void)
{
    RUN(frame_bounds_fits_boxes_of_any_size_and_shape);
    RUN(eye_follows_yaw_and_pitch_conventions);
    RUN(orbit_clamps_pitch_and_zoom_scales_distance);
    RUN(pan_moves_target_across_the_view);
    RUN(default_distance_and_fov_for_zero_fields);
    return test_summary("camera");
}
