/* test_override.c — single-bone overrides: spaces, modes, weights, children. */
#include "anim/override.h"
#include "anim_fixture.h"
#include "test.h"

static void posed_chain(mr_skeleton *sk, mr_pose *p)
{
    fixture_chain(sk);
    mr_pose_init(p, 3);
    mr_pose_set_rest(p, sk);
    glm_quatv(p->r[0], glm_rad(90.0f), (vec3){0, 1, 0});  /* root turned: model != local */
}

static void model_rot(const mr_skeleton *sk, const mr_pose *p, int j, versor q)
{
    mat4 m;
    mr_pose_model_matrix(sk, p, j, m);
    glm_mat4_quat(m, q);
}

static float quat_angle_between(const versor a, const versor b)
{
    float d = fabsf(glm_vec4_dot((float *)a, (float *)b));
    return 2.0f * acosf(fminf(1.0f, d));
}

TEST(override_weight_zero_is_identity)
{
    mr_skeleton sk;
    mr_pose p, before;
    posed_chain(&sk, &p);
    mr_pose_init(&before, 3);
    mr_pose_copy(&before, &p);
    /* a sampled rotation is unit only within a few ulps (a pack's rebuilt
     * component): weight 0 must not renormalise it */
    glm_quat_copy((versor){0.6f, 0.0f, 0.0f, 0.8000002f}, p.r[1]);
    mr_pose_copy(&before, &p);
    versor q;
    glm_quatv(q, 1.0f, (vec3){1, 0, 0});
    CHECK(mr_override_rotation(&sk, &p, 1, q, MR_SPACE_MODEL, MR_OVERRIDE_ADD, 0.0f) == MR_OK);
    CHECK(mr_override_translation(&sk, &p, 1, (vec3){1, 2, 3}, MR_SPACE_LOCAL, MR_OVERRIDE_REPLACE, 0.0f) == MR_OK);
    CHECK(mr_override_scale(&sk, &p, 1, (vec3){2, 2, 2}, MR_OVERRIDE_ADD, 0.0f) == MR_OK);
    for (int k = 0; k < 4; k++) CHECK(p.r[1][k] == before.r[1][k]);
    for (int k = 0; k < 3; k++) CHECK(p.t[1][k] == before.t[1][k] && p.s[1][k] == before.s[1][k]);
    mr_pose_deinit(&p);
    mr_pose_deinit(&before);
    mr_skeleton_deinit(&sk);
}

TEST(override_changes_only_the_joint_and_its_children)
{
    mr_skeleton sk;
    mr_pose p;
    posed_chain(&sk, &p);
    mat4 before[3], after[3];
    mr_pose_to_model(&sk, &p, before);
    versor q;
    glm_quatv(q, glm_rad(-40.0f), (vec3){0, 0, 1});
    CHECK(mr_override_rotation(&sk, &p, 1, q, MR_SPACE_LOCAL, MR_OVERRIDE_ADD, 1.0f) == MR_OK);
    mr_pose_to_model(&sk, &p, after);
    /* root and a's own position are untouched; b (child of a) moved. */
    for (int k = 0; k < 3; k++) {
        CHECK_NEAR(after[0][3][k], before[0][3][k], 1e-6);
        CHECK_NEAR(after[1][3][k], before[1][3][k], 1e-6);
    }
    CHECK(glm_vec3_distance(after[2][3], before[2][3]) > 0.5f);
    /* b stays one unit from a: a rotation, not a stretch. */
    CHECK_NEAR(glm_vec3_distance(after[2][3], after[1][3]), 1.0, 1e-5);
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

TEST(override_model_space_replace_sets_model_rotation)
{
    mr_skeleton sk;
    mr_pose p;
    posed_chain(&sk, &p);
    versor q, got;
    glm_quatv(q, glm_rad(30.0f), (vec3){1, 0, 0});
    CHECK(mr_override_rotation(&sk, &p, 2, q, MR_SPACE_MODEL, MR_OVERRIDE_REPLACE, 1.0f) == MR_OK);
    model_rot(&sk, &p, 2, got);
    CHECK(quat_angle_between(q, got) < 1e-3f);
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

TEST(override_model_space_add_rotates_about_model_axis)
{
    mr_skeleton sk;
    mr_pose p;
    posed_chain(&sk, &p);
    versor before, q, expect, got;
    model_rot(&sk, &p, 1, before);
    glm_quatv(q, glm_rad(25.0f), (vec3){0, 0, 1});
    mr_override_rotation(&sk, &p, 1, q, MR_SPACE_MODEL, MR_OVERRIDE_ADD, 1.0f);
    glm_quat_mul(q, before, expect);
    model_rot(&sk, &p, 1, got);
    CHECK(quat_angle_between(expect, got) < 1e-3f);
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

TEST(override_half_weight_is_half_the_angle)
{
    mr_skeleton sk;
    mr_pose p;
    posed_chain(&sk, &p);
    versor q;
    glm_quatv(q, glm_rad(60.0f), (vec3){0, 0, 1});
    mr_override_rotation(&sk, &p, 1, q, MR_SPACE_LOCAL, MR_OVERRIDE_REPLACE, 0.5f);
    CHECK_NEAR(glm_deg(2.0f * atan2f(p.r[1][2], p.r[1][3])), 30.0, 0.5);
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

TEST(override_translation_model_space_places_joint)
{
    mr_skeleton sk;
    mr_pose p;
    posed_chain(&sk, &p);
    vec3 target = {0.5f, 2.0f, -1.0f};
    CHECK(mr_override_translation(&sk, &p, 2, target, MR_SPACE_MODEL, MR_OVERRIDE_REPLACE, 1.0f) == MR_OK);
    mat4 m;
    mr_pose_model_matrix(&sk, &p, 2, m);
    CHECK(glm_vec3_distance(m[3], target) < 1e-5f);
    /* ADD in model space moves by a model-space offset. */
    mr_override_translation(&sk, &p, 2, (vec3){0, 0, 1}, MR_SPACE_MODEL, MR_OVERRIDE_ADD, 1.0f);
    mr_pose_model_matrix(&sk, &p, 2, m);
    CHECK_NEAR(m[3][2], 0.0, 1e-5);
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

TEST(override_scale_add_multiplies)
{
    mr_skeleton sk;
    mr_pose p;
    posed_chain(&sk, &p);
    p.s[1][0] = 2.0f;
    mr_override_scale(&sk, &p, 1, (vec3){3, 1, 1}, MR_OVERRIDE_ADD, 1.0f);
    CHECK_NEAR(p.s[1][0], 6.0, 1e-6);
    mr_override_scale(&sk, &p, 1, (vec3){1, 1, 1}, MR_OVERRIDE_REPLACE, 0.5f);
    CHECK_NEAR(p.s[1][0], 3.5, 1e-6);
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

TEST(override_rejects_bad_arguments)
{
    mr_skeleton sk;
    mr_pose p;
    posed_chain(&sk, &p);
    versor q = {0, 0, 0, 1};
    CHECK(mr_override_rotation(&sk, &p, 3, q, MR_SPACE_LOCAL, MR_OVERRIDE_ADD, 1) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_override_rotation(&sk, &p, -1, q, MR_SPACE_LOCAL, MR_OVERRIDE_ADD, 1) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_override_rotation(&sk, &p, 0, q, MR_SPACE_LOCAL, MR_OVERRIDE_ADD, 1.5f) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_override_rotation(&sk, &p, 0, q, MR_SPACE_LOCAL, MR_OVERRIDE_ADD, NAN) == MR_ERR_INVALID_ARGUMENT);
    versor bad = {NAN, 0, 0, 1};
    CHECK(mr_override_rotation(&sk, &p, 0, bad, MR_SPACE_LOCAL, MR_OVERRIDE_ADD, 1) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_override_translation(&sk, &p, 0, (vec3){INFINITY, 0, 0}, MR_SPACE_LOCAL, MR_OVERRIDE_ADD, 1) == MR_ERR_INVALID_ARGUMENT);
    mr_pose small;
    mr_pose_init(&small, 2);
    CHECK(mr_override_scale(&sk, &small, 0, (vec3){1, 1, 1}, MR_OVERRIDE_ADD, 1) == MR_ERR_JOINT_COUNT);
    mr_pose_deinit(&small);
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

int main(void)
{
    RUN(override_weight_zero_is_identity);
    RUN(override_changes_only_the_joint_and_its_children);
    RUN(override_model_space_replace_sets_model_rotation);
    RUN(override_model_space_add_rotates_about_model_axis);
    RUN(override_half_weight_is_half_the_angle);
    RUN(override_translation_model_space_places_joint);
    RUN(override_scale_add_multiplies);
    RUN(override_rejects_bad_arguments);
    return test_summary("override");
}
