/* test_attach.c — prop transforms at joints (model and world space) and
 * world-to-model conversion, with negative tests. */
#include "anim/attach.h"
#include "anim/ik.h"
#include "anim/model.h"
#include "anim/override.h"
#include "choreo_fixture.h"
#include "test.h"

static void posed(mr_skeleton *sk, mr_pose *p)
{
    fixture_humanoid(sk);
    mr_pose_init(p, J_COUNT);
    mr_pose_set_rest(p, sk);
    glm_quatv(p->r[J_UPPERARM_R], glm_rad(-50.0f), (vec3){0, 1, 0});
    glm_quatv(p->r[J_HAND_R], glm_rad(30.0f), (vec3){1, 0, 0});
}

TEST(attach_places_a_prop_in_the_joint_frame)
{
    mr_skeleton sk;
    mr_pose p;
    posed(&sk, &p);
    /* A sword: 10 units along the hand's local -X, turned 90 degrees about Y. */
    versor r;
    glm_quatv(r, glm_rad(90.0f), (vec3){0, 1, 0});
    mat4 offset, m, hand;
    CHECK(mr_attach_offset((vec3){-10, 0, 0}, r, NULL, offset) == MR_OK);
    CHECK(mr_attach_model(&sk, &p, NULL, J_HAND_R, offset, m) == MR_OK);
    vec3 tip;
    mr_ik_point_to_model(&sk, &p, J_HAND_R, (vec3){-10, 0, 0}, tip);
    CHECK(glm_vec3_distance(m[3], tip) < 1e-4f);
    /* Its X axis is the hand's Z axis turned: R_hand * R_offset. */
    mr_pose_model_matrix(&sk, &p, J_HAND_R, hand);
    vec3 want;
    glm_mat4_mulv3(hand, (vec3){0, 0, -1}, 0.0f, want);
    CHECK(glm_vec3_distance(m[0], want) < 1e-5f);
    /* With precomputed model matrices the result is the same. */
    mat4 model[J_COUNT], m2;
    mr_pose_to_model(&sk, &p, model);
    CHECK(mr_attach_model(&sk, NULL, model, J_HAND_R, offset, m2) == MR_OK);
    for (int c = 0; c < 4; c++)
        for (int k = 0; k < 4; k++) CHECK_NEAR(m2[c][k], m[c][k], 1e-4);
    /* No offset: the joint itself. */
    mr_attach_model(&sk, &p, NULL, J_HAND_R, NULL, m2);
    CHECK(glm_vec3_distance(m2[3], hand[3]) < 1e-5f);
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

TEST(attach_world_goes_through_the_display_matrix)
{
    mr_skeleton sk;
    mr_pose p;
    posed(&sk, &p);
    mr_model *model = NULL;
    mr_model_create("hand-built", "test", &model);
    model->axes.up = MR_UP_Z;
    model->axes.meters_per_unit = 0.0254f;
    mat4 display, m, w;
    mr_model_display_matrix(model, display);
    mr_attach_model(&sk, &p, NULL, J_HEAD, NULL, m);
    mr_attach_world(display, m, w);
    /* Z-up inches -> Y-up metres: the head's height (model Z) is world Y. */
    CHECK_NEAR(w[3][1], m[3][2] * 0.0254, 1e-5);
    CHECK_NEAR(w[3][2], -m[3][1] * 0.0254, 1e-5);
    vec3 back;
    CHECK(mr_attach_world_to_model(display, w[3], back) == MR_OK);
    CHECK(glm_vec3_distance(back, m[3]) < 1e-3f);
    mr_model_destroy(model);
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

TEST(attach_offset_applies_scale)
{
    mat4 o;
    versor id = {0, 0, 0, 2};    /* normalised on the way in */
    CHECK(mr_attach_offset((vec3){1, 2, 3}, id, (vec3){2, 3, 4}, o) == MR_OK);
    CHECK(o[0][0] == 2.0f && o[1][1] == 3.0f && o[2][2] == 4.0f);
    CHECK(o[3][0] == 1.0f && o[3][1] == 2.0f && o[3][2] == 3.0f);
}

TEST(attach_refuses_joint_out_of_range_and_bad_sizes)
{
    mr_skeleton sk;
    mr_pose p, small;
    posed(&sk, &p);
    mr_pose_init(&small, 3);
    mat4 m;
    CHECK(mr_attach_model(&sk, &p, NULL, J_COUNT, NULL, m) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_attach_model(&sk, &p, NULL, -1, NULL, m) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_attach_model(&sk, &small, NULL, 0, NULL, m) == MR_ERR_JOINT_COUNT);
    CHECK(mr_attach_model(&sk, NULL, NULL, 0, NULL, m) == MR_ERR_INVALID_ARGUMENT);
    mr_pose_deinit(&small);
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

TEST(attach_refuses_nan_offset_and_zero_rotation)
{
    mat4 o;
    CHECK(mr_attach_offset((vec3){NAN, 0, 0}, NULL, NULL, o) == MR_ERR_INVALID_ARGUMENT);
    versor zero = {0, 0, 0, 0};
    CHECK(mr_attach_offset((vec3){0, 0, 0}, zero, NULL, o) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_attach_offset((vec3){0, 0, 0}, NULL, (vec3){1, INFINITY, 1}, o) == MR_ERR_INVALID_ARGUMENT);
}

TEST(attach_world_to_model_refuses_singular_display_and_nan)
{
    mat4 flat = GLM_MAT4_ZERO_INIT, id = GLM_MAT4_IDENTITY_INIT;
    vec3 out;
    CHECK(mr_attach_world_to_model(flat, (vec3){1, 2, 3}, out) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_attach_world_to_model(id, (vec3){NAN, 2, 3}, out) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_attach_world_to_model(id, (vec3){1, 2, 3}, out) == MR_OK);
    CHECK(out[0] == 1.0f && out[1] == 2.0f && out[2] == 3.0f);
}

int main(void)
{
    RUN(attach_places_a_prop_in_the_joint_frame);
    RUN(attach_world_goes_through_the_display_matrix);
    RUN(attach_offset_applies_scale);
    RUN(attach_refuses_joint_out_of_range_and_bad_sizes);
    RUN(attach_refuses_nan_offset_and_zero_rotation);
    RUN(attach_world_to_model_refuses_singular_display_and_nan);
    return test_summary("attach");
}
