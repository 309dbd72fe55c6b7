/* test_rootmotion.c — root-motion extraction: ground plane per up axis,
 * pinning, steps and their composition, a joint under a turned parent, and
 * negative tests. (Mixer-level root motion: test_mixer.c.) */
#include "anim/root_motion.h"
#include "choreo_fixture.h"
#include "core/str.h"
#include "test.h"

TEST(rootmotion_step_is_the_horizontal_displacement)
{
    mr_skeleton sk;
    fixture_humanoid(&sk);
    mr_clip *c = fixture_cycle("walk", 1.0f, 10.0f, 0.0f, 40.0f);
    mr_root_motion rm;
    CHECK(mr_root_motion_init(&rm, &sk, J_PELVIS, MR_UP_Z, MR_ROOT_TRANSLATION) == MR_OK);
    mr_root_delta d = {{0, 0, 0}, 0};
    mr_root_motion_step(&rm, c, &sk, 0.2, 0.7, &d);
    CHECK_NEAR(d.translation[1], 20.0, 1e-3);
    CHECK(d.translation[2] == 0.0f);                  /* the bob is vertical: stays in the pose */
    mr_root_delta back = {{0, 0, 0}, 0};
    mr_root_motion_step(&rm, c, &sk, 0.7, 0.2, &back);
    CHECK_NEAR(back.translation[1], -20.0, 1e-3);
    mr_clip_destroy(c);
    mr_skeleton_deinit(&sk);
}

TEST(rootmotion_pin_keeps_vertical_and_swing)
{
    mr_skeleton sk;
    fixture_humanoid(&sk);
    mr_pose p;
    mr_pose_init(&p, J_COUNT);
    mr_pose_set_rest(&p, &sk);
    glm_vec3_copy((vec3){5, 7, 42}, p.t[J_PELVIS]);
    versor yaw, tilt;
    glm_quatv(yaw, 0.8f, (vec3){0, 0, 1});
    glm_quatv(tilt, 0.2f, (vec3){1, 0, 0});
    glm_quat_mul(yaw, tilt, p.r[J_PELVIS]);
    mr_root_motion rm;
    mr_root_motion_init(&rm, &sk, J_PELVIS, MR_UP_Z, MR_ROOT_TRANSLATION | MR_ROOT_YAW);
    mr_root_motion_pin(&rm, &p, (vec3){1, 2, 99}, 0.0f);
    CHECK(p.t[J_PELVIS][0] == 1.0f && p.t[J_PELVIS][1] == 2.0f && p.t[J_PELVIS][2] == 42.0f);
    CHECK(fabsf(glm_vec4_dot(p.r[J_PELVIS], tilt)) > 1.0f - 1e-6f);   /* only the tilt is left */
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

TEST(rootmotion_compose_turns_later_steps)
{
    mr_skeleton sk;
    fixture_humanoid(&sk);
    mr_root_motion rm;
    mr_root_motion_init(&rm, &sk, J_PELVIS, MR_UP_Z, MR_ROOT_TRANSLATION | MR_ROOT_YAW);
    /* Walk 1 forward (+Y), turn left 90 degrees, walk 1 forward again. */
    mr_root_delta acc = {{0, 0, 0}, 0};
    mr_root_delta a = {{0, 1, 0}, GLM_PI_2f}, b = {{0, 1, 0}, 0.0f};
    mr_root_motion_delta_compose(&rm, &acc, &a);
    mr_root_motion_delta_compose(&rm, &acc, &b);
    CHECK_NEAR(acc.translation[0], -1.0, 1e-6);
    CHECK_NEAR(acc.translation[1], 1.0, 1e-6);
    CHECK_NEAR(acc.yaw, GLM_PI_2f, 1e-6);
    mr_skeleton_deinit(&sk);
}

TEST(rootmotion_joint_under_a_turned_parent_uses_the_model_ground)
{
    /* A "root" joint rotated -90 degrees about X (Y-up content under a
     * Z-up model) with the moving joint below it: motion along the child's
     * local Y is model Z (up), along its local Z is model... ground. */
    mr_skeleton sk;
    mr_skeleton_init(&sk, 2);
    sk.names[0] = mr_str_dup("root");
    sk.names[1] = mr_str_dup("hips");
    sk.parents[1] = 0;
    glm_quatv(sk.rest_r[0], GLM_PI_2f, (vec3){1, 0, 0});   /* local Y -> model Z */
    mr_clip *c = mr_clip_make("move", 2);
    c->duration = 1.0f;
    mr_track *t = &c->tracks[1].t;
    mr_track_init(t, 2, MR_INTERP_LINEAR);
    t->times[1] = 1.0f;
    float v[6] = {0, 0, 0, 3, 4, 5};   /* local (3, 4, 5) over 1 s */
    memcpy(t->values, v, sizeof v);
    mr_root_motion rm;
    CHECK(mr_root_motion_init(&rm, &sk, 1, MR_UP_Z, MR_ROOT_TRANSLATION) == MR_OK);
    mr_root_delta d = {{0, 0, 0}, 0};
    mr_root_motion_step(&rm, c, &sk, 0.0, 1.0, &d);
    /* local (3, 4, 5) is model (3, -5, 4): the ground part is (3, -5, 0). */
    CHECK_NEAR(d.translation[0], 3.0, 1e-5);
    CHECK_NEAR(d.translation[1], -5.0, 1e-5);
    CHECK_NEAR(d.translation[2], 0.0, 1e-5);
    mr_clip_destroy(c);
    mr_skeleton_deinit(&sk);
}

TEST(rootmotion_refuses_bad_joint_flags_and_axis)
{
    mr_skeleton sk;
    fixture_humanoid(&sk);
    mr_root_motion rm;
    CHECK(mr_root_motion_init(&rm, &sk, J_COUNT, MR_UP_Z, MR_ROOT_YAW) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_root_motion_init(&rm, &sk, -2, MR_UP_Z, MR_ROOT_YAW) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_root_motion_init(&rm, &sk, 0, MR_UP_Z, 8) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_root_motion_init(&rm, &sk, 0, (mr_up_axis)5, MR_ROOT_YAW) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_root_motion_init(&rm, NULL, 0, MR_UP_Z, MR_ROOT_YAW) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_root_motion_init(&rm, &sk, -1, MR_UP_Z, 0) == MR_OK);   /* off: joint ignored */
    CHECK(rm.joint == -1);
    mr_skeleton_deinit(&sk);
}

int main(void)
{
    RUN(rootmotion_step_is_the_horizontal_displacement);
    RUN(rootmotion_pin_keeps_vertical_and_swing);
    RUN(rootmotion_compose_turns_later_steps);
    RUN(rootmotion_joint_under_a_turned_parent_uses_the_model_ground);
    RUN(rootmotion_refuses_bad_joint_flags_and_axis);
    return test_summary("rootmotion");
}
