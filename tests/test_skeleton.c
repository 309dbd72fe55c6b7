/* test_skeleton.c — mr_skeleton: allocation, validation, lookup, inverse bind. */
#include "anim_fixture.h"
#include "core/str.h"
#include "test.h"

TEST(skeleton_make_identity_rest_pose)
{
    mr_skeleton sk;
    CHECK(mr_skeleton_init(&sk, 4) == MR_OK);
    CHECK(sk.joint_count == 4);
    for (int i = 0; i < 4; i++) {
        CHECK(sk.parents[i] == -1);
        CHECK(sk.rest_r[i][3] == 1.0f);
        CHECK(sk.rest_s[i][1] == 1.0f);
    }
    mr_skeleton_deinit(&sk);
    CHECK(sk.joint_count == 0 && sk.names == NULL);
}

TEST(skeleton_make_refuses_too_many_joints)
{
    mr_skeleton sk;
    CHECK(mr_skeleton_init(&sk, MR_MAX_JOINTS + 1) == MR_ERR_LIMIT);
    CHECK(mr_skeleton_init(&sk, -1) == MR_ERR_LIMIT);
}

TEST(skeleton_validate_accepts_chain)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_error err = {0};
    CHECK(mr_skeleton_validate(&sk, &err) == MR_OK);
    mr_skeleton_deinit(&sk);
}

TEST(skeleton_validate_parent_after_child)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    sk.parents[1] = 2;
    mr_error err = {0};
    CHECK(mr_skeleton_validate(&sk, &err) == MR_ERR_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err.msg, "'a'");
    sk.parents[1] = 1;  /* its own parent */
    CHECK(mr_skeleton_validate(&sk, &err) != MR_OK);
    mr_skeleton_deinit(&sk);
}

TEST(skeleton_validate_duplicate_and_missing_names)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_error err = {0};
    free(sk.names[2]);
    sk.names[2] = mr_str_dup("a");
    CHECK(mr_skeleton_validate(&sk, &err) != MR_OK);
    CHECK_STR_CONTAINS(err.msg, "share the name");
    free(sk.names[2]);
    sk.names[2] = NULL;
    CHECK(mr_skeleton_validate(&sk, &err) != MR_OK);
    CHECK_STR_CONTAINS(err.msg, "no name");
    mr_skeleton_deinit(&sk);
}

TEST(skeleton_validate_nan_and_non_unit_rotation)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_error err = {0};
    sk.rest_t[1][2] = NAN;
    CHECK(mr_skeleton_validate(&sk, &err) != MR_OK);
    CHECK_STR_CONTAINS(err.msg, "not finite");
    sk.rest_t[1][2] = 0;
    sk.rest_r[2][3] = 2.0f;
    CHECK(mr_skeleton_validate(&sk, &err) != MR_OK);
    CHECK_STR_CONTAINS(err.msg, "unit quaternion");
    mr_skeleton_deinit(&sk);
}

TEST(skeleton_find_by_name)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    CHECK(mr_skeleton_find(&sk, "b") == 2);
    CHECK(mr_skeleton_find(&sk, "nope") == -1);
    CHECK(mr_skeleton_find(&sk, NULL) == -1);
    mr_skeleton_deinit(&sk);
}

TEST(skeleton_inverse_bind_undoes_rest_model_matrix)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    glm_quatv(sk.rest_r[1], glm_rad(30.0f), (vec3){0, 1, 0});
    mr_skeleton_compute_inverse_bind(&sk);
    /* Joint b's bind position is root + a's offset + a's rotation of (1,0,0). */
    mat4 bind;
    glm_mat4_inv(sk.inverse_bind[2], bind);
    CHECK_NEAR(bind[3][0], 1.0 + cos(glm_rad(30.0f)), 1e-5);
    CHECK_NEAR(bind[3][2], -sin(glm_rad(30.0f)), 1e-5);
    mr_skeleton_deinit(&sk);
}

TEST(skeleton_copy_is_deep)
{
    mr_skeleton sk, copy;
    fixture_chain(&sk);
    CHECK(mr_skeleton_copy(&copy, &sk) == MR_OK);
    CHECK(copy.names[1] != sk.names[1]);
    CHECK(strcmp(copy.names[1], "a") == 0);
    CHECK(copy.parents[2] == 1);
    mr_skeleton_deinit(&sk);
    CHECK(strcmp(copy.names[2], "b") == 0);
    mr_skeleton_deinit(&copy);
}

int main(void)
{
    RUN(skeleton_make_identity_rest_pose);
    RUN(skeleton_make_refuses_too_many_joints);
    RUN(skeleton_validate_accepts_chain);
    RUN(skeleton_validate_parent_after_child);
    RUN(skeleton_validate_duplicate_and_missing_names);
    RUN(skeleton_validate_nan_and_non_unit_rotation);
    RUN(skeleton_find_by_name);
    RUN(skeleton_inverse_bind_undoes_rest_model_matrix);
    RUN(skeleton_copy_is_deep);
    return test_summary("skeleton");
}
