/* test_pose.c — mr_pose: rest pose, copy, local-to-model, skinning. */
#include "anim_fixture.h"
#include "test.h"

static float mat_diff(mat4 a, mat4 b)
{
    float d = 0;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) d = fmaxf(d, fabsf(a[c][r] - b[c][r]));
    return d;
}

TEST(pose_make_is_identity)
{
    mr_pose p;
    CHECK(mr_pose_init(&p, 2) == MR_OK);
    CHECK(p.r[1][3] == 1.0f && p.s[0][2] == 1.0f && p.t[1][0] == 0.0f);
    mr_pose_deinit(&p);
    CHECK(mr_pose_init(&p, MR_MAX_JOINTS + 1) == MR_ERR_LIMIT);
}

TEST(pose_set_rest_mismatched_joint_count)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_pose p;
    mr_pose_init(&p, 2);
    CHECK(mr_pose_set_rest(&p, &sk) == MR_ERR_JOINT_COUNT);
    mat4 model[3];
    CHECK(mr_pose_to_model(&sk, &p, model) == MR_ERR_JOINT_COUNT);
    mr_pose q;
    mr_pose_init(&q, 3);
    CHECK(mr_pose_copy(&q, &p) == MR_ERR_JOINT_COUNT);
    mr_pose_deinit(&p);
    mr_pose_deinit(&q);
    mr_skeleton_deinit(&sk);
}

TEST(pose_to_model_null_arguments)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_pose p;
    mr_pose_init(&p, 3);
    mat4 model[3];
    CHECK(mr_pose_to_model(NULL, &p, model) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_pose_to_model(&sk, NULL, model) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_pose_to_model(&sk, &p, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_pose_skinning(&sk, NULL, model) == MR_ERR_INVALID_ARGUMENT);
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

TEST(pose_to_model_matches_matrix_products)
{
    /* Compare the hand-composed TRS path with cglm's generic matrices. */
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_pose p;
    mr_pose_init(&p, 3);
    mr_pose_set_rest(&p, &sk);
    glm_quatv(p.r[0], 0.3f, (vec3){0.0f, 0.6f, 0.8f});
    glm_quatv(p.r[1], -1.1f, (vec3){1, 0, 0});
    glm_vec3_copy((vec3){2, 0.5f, 0.5f}, p.s[1]);
    glm_vec3_copy((vec3){0.1f, -3, 4}, p.t[2]);
    mat4 model[3], expect, local;
    CHECK(mr_pose_to_model(&sk, &p, model) == MR_OK);
    glm_mat4_identity(expect);
    for (int j = 0; j < 3; j++) {
        glm_translate_make(local, p.t[j]);
        glm_quat_rotate(local, p.r[j], local);
        glm_scale(local, p.s[j]);
        glm_mat4_mul(expect, local, expect);
        CHECK(mat_diff(model[j], expect) < 1e-5f);
    }
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

TEST(pose_to_model_groups_of_four_match_matrix_products)
{
    /* 23 joints (groups of 4 and a tail of 3): a second root inside a
     * group, parents in the same group and in earlier ones, scales and
     * translations of all sizes; each model matrix against cglm's generic
     * products of its chain. */
    enum { N = 23 };
    mr_skeleton sk;
    CHECK(mr_skeleton_init(&sk, N) == MR_OK);
    for (int j = 0; j < N; j++) sk.parents[j] = j == 0 || j == 10 ? -1 : (j % 3 == 0 ? j - 3 : j - 1);
    mr_pose p;
    mr_pose_init(&p, N);
    unsigned seed = 5;
    for (int j = 0; j < N; j++) {
        seed = seed * 1664525u + 1013904223u;
        float a = (float)(seed >> 8) / 16777216.0f;
        glm_quatv(p.r[j], 6.0f * a - 3.0f, (vec3){a, 1.0f - a, 0.5f});
        glm_quat_normalize(p.r[j]);
        glm_vec3_copy((vec3){10.0f * a - 5.0f, 2.0f * a, -3.0f * a}, p.t[j]);
        glm_vec3_copy((vec3){0.5f + a, 1.5f - a, j % 5 == 4 ? -1.0f : 1.0f}, p.s[j]);
    }
    mat4 model[N], expect[N], local;
    CHECK(mr_pose_to_model(&sk, &p, model) == MR_OK);
    float worst = 0;
    for (int j = 0; j < N; j++) {
        glm_translate_make(local, p.t[j]);
        glm_quat_rotate(local, p.r[j], local);
        glm_scale(local, p.s[j]);
        if (sk.parents[j] < 0) glm_mat4_copy(local, expect[j]);
        else glm_mat4_mul(expect[sk.parents[j]], local, expect[j]);
        float scale = 0;
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) scale = fmaxf(scale, fabsf(expect[j][c][r]));
        worst = fmaxf(worst, mat_diff(model[j], expect[j]) / fmaxf(1.0f, scale));
    }
    CHECK_MSG(worst < 2e-6f, "model matrices differ from the products by %g (relative)", worst);
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

TEST(pose_skinning_is_identity_at_rest)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_pose p;
    mr_pose_init(&p, 3);
    mr_pose_set_rest(&p, &sk);
    mat4 model[3], skin[3], id;
    glm_mat4_identity(id);
    mr_pose_to_model(&sk, &p, model);
    CHECK(mr_pose_skinning(&sk, model, skin) == MR_OK);
    for (int j = 0; j < 3; j++) CHECK(mat_diff(skin[j], id) < 1e-6f);
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

TEST(pose_child_follows_parent_rotation)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_pose p;
    mr_pose_init(&p, 3);
    mr_pose_set_rest(&p, &sk);
    glm_quatv(p.r[1], glm_rad(90.0f), (vec3){0, 0, 1});
    mat4 model[3];
    mr_pose_to_model(&sk, &p, model);
    /* a at (1,0,0); b one unit along a's rotated X, i.e. +Y. */
    CHECK_NEAR(model[2][3][0], 1.0, 1e-6);
    CHECK_NEAR(model[2][3][1], 1.0, 1e-6);
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

int main(void)
{
    RUN(pose_make_is_identity);
    RUN(pose_set_rest_mismatched_joint_count);
    RUN(pose_to_model_null_arguments);
    RUN(pose_to_model_matches_matrix_products);
    RUN(pose_to_model_groups_of_four_match_matrix_products);
    RUN(pose_skinning_is_identity_at_rest);
    RUN(pose_child_follows_parent_rotation);
    return test_summary("pose");
}
