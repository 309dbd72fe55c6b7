/* test_mask.c — per-joint masks: subtree, ramp, union/intersection, scale,
 * invert, validation, and a negative test per invalid configuration. */
#include "anim/mask.h"
#include "choreo_fixture.h"
#include "test.h"

TEST(mask_make_fills_every_joint)
{
    mr_mask m;
    CHECK(mr_mask_init(&m, J_COUNT, 0.25f) == MR_OK);
    CHECK(m.joint_count == J_COUNT);
    for (int i = 0; i < J_COUNT; i++) CHECK(m.w[i] == 0.25f);
    mr_mask_deinit(&m);
    CHECK(m.w == NULL && m.joint_count == 0);
    mr_mask_deinit(&m);   /* twice is harmless */
}

TEST(mask_subtree_covers_joint_and_descendants_only)
{
    mr_skeleton sk;
    fixture_humanoid(&sk);
    mr_mask m;
    mr_mask_init(&m, J_COUNT, 0.0f);
    CHECK(mr_mask_set_subtree(&m, &sk, J_UPPERARM_R, 1.0f) == MR_OK);
    for (int i = 0; i < J_COUNT; i++) {
        int in = i == J_UPPERARM_R || i == J_LOWERARM_R || i == J_HAND_R;
        CHECK_MSG(m.w[i] == (in ? 1.0f : 0.0f), "joint %d weight %g", i, m.w[i]);
    }
    /* The spine subtree is the whole upper body: spine, neck, head, both arms. */
    mr_mask_fill(&m, 0.0f);
    mr_mask_set_subtree(&m, &sk, J_SPINE1, 0.5f);
    for (int i = 0; i < J_COUNT; i++)
        CHECK(m.w[i] == ((i >= J_SPINE1 && i <= J_HAND_R) ? 0.5f : 0.0f));
    mr_mask_deinit(&m);
    mr_skeleton_deinit(&sk);
}

TEST(mask_ramp_falls_off_along_the_chain)
{
    mr_skeleton sk;
    fixture_humanoid(&sk);
    mr_mask m;
    mr_mask_init(&m, J_COUNT, 0.0f);
    CHECK(mr_mask_ramp(&m, &sk, J_SPINE1, 3, 0.2f, 1.0f) == MR_OK);
    CHECK_NEAR(m.w[J_SPINE1], 0.2, 1e-6);
    CHECK_NEAR(m.w[J_SPINE2], 0.6, 1e-6);
    CHECK_NEAR(m.w[J_SPINE3], 1.0, 1e-6);
    CHECK_NEAR(m.w[J_NECK], 1.0, 1e-6);       /* deeper joints hold `to` */
    CHECK_NEAR(m.w[J_HAND_L], 1.0, 1e-6);
    CHECK(m.w[J_PELVIS] == 0.0f && m.w[J_THIGH_L] == 0.0f);
    /* Ramping down from an arm: 1 at the shoulder to 0 at the hand. */
    CHECK(mr_mask_ramp(&m, &sk, J_UPPERARM_L, 3, 1.0f, 0.0f) == MR_OK);
    CHECK_NEAR(m.w[J_UPPERARM_L], 1.0, 1e-6);
    CHECK_NEAR(m.w[J_LOWERARM_L], 0.5, 1e-6);
    CHECK_NEAR(m.w[J_HAND_L], 0.0, 1e-6);
    /* count 1: the whole subtree gets `to`. */
    CHECK(mr_mask_ramp(&m, &sk, J_THIGH_R, 1, 0.0f, 0.7f) == MR_OK);
    CHECK_NEAR(m.w[J_THIGH_R], 0.7, 1e-6);
    CHECK_NEAR(m.w[J_FOOT_R], 0.7, 1e-6);
    mr_mask_deinit(&m);
    mr_skeleton_deinit(&sk);
}

TEST(mask_union_intersect_scale_invert)
{
    mr_skeleton sk;
    fixture_humanoid(&sk);
    mr_mask a, b, d;
    mr_mask_init(&a, J_COUNT, 0.0f);
    mr_mask_init(&b, J_COUNT, 0.0f);
    mr_mask_init(&d, J_COUNT, 0.0f);
    mr_mask_set_subtree(&a, &sk, J_SPINE3, 0.8f);     /* upper body */
    mr_mask_set_subtree(&b, &sk, J_UPPERARM_R, 0.3f); /* right arm */
    CHECK(mr_mask_union(&d, &a, &b) == MR_OK);
    CHECK(d.w[J_HAND_R] == 0.8f && d.w[J_HEAD] == 0.8f && d.w[J_PELVIS] == 0.0f);
    CHECK(mr_mask_intersect(&d, &a, &b) == MR_OK);
    CHECK(d.w[J_HAND_R] == 0.3f && d.w[J_HEAD] == 0.0f);
    CHECK(mr_mask_union(&a, &a, &b) == MR_OK);         /* in place */
    CHECK(a.w[J_HAND_R] == 0.8f);
    CHECK(mr_mask_scale(&a, 2.0f) == MR_OK);            /* clamped to 1 */
    CHECK(a.w[J_HEAD] == 1.0f && a.w[J_PELVIS] == 0.0f);
    CHECK(mr_mask_scale(&b, 0.5f) == MR_OK);
    CHECK_NEAR(b.w[J_HAND_R], 0.15, 1e-7);
    CHECK(mr_mask_invert(&b) == MR_OK);
    CHECK_NEAR(b.w[J_HAND_R], 0.85, 1e-7);
    CHECK(b.w[J_PELVIS] == 1.0f);
    CHECK(mr_mask_copy(&d, &b) == MR_OK);
    CHECK(d.w[J_HAND_R] == b.w[J_HAND_R]);
    CHECK(mr_mask_validate(&d, &sk, NULL) == MR_OK);
    mr_mask_deinit(&a);
    mr_mask_deinit(&b);
    mr_mask_deinit(&d);
    mr_skeleton_deinit(&sk);
}

/* ---- negative tests: one per invalid configuration ---------------------- */

TEST(mask_make_refuses_weight_outside_unit_range)
{
    mr_mask m;
    CHECK(mr_mask_init(&m, 4, 1.5f) == MR_ERR_INVALID_ARGUMENT);
    CHECK(m.w == NULL);
    CHECK(mr_mask_init(&m, 4, NAN) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mask_init(&m, 4, -0.1f) == MR_ERR_INVALID_ARGUMENT);
}

TEST(mask_make_refuses_bad_joint_count)
{
    mr_mask m;
    CHECK(mr_mask_init(&m, -1, 0.0f) == MR_ERR_LIMIT);
    CHECK(mr_mask_init(&m, MR_MAX_JOINTS + 1, 0.0f) == MR_ERR_LIMIT);
}

TEST(mask_subtree_refuses_joint_out_of_range)
{
    mr_skeleton sk;
    fixture_humanoid(&sk);
    mr_mask m;
    mr_mask_init(&m, J_COUNT, 0.0f);
    CHECK(mr_mask_set_subtree(&m, &sk, -1, 1.0f) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mask_set_subtree(&m, &sk, J_COUNT, 1.0f) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mask_ramp(&m, &sk, 99, 2, 0.0f, 1.0f) == MR_ERR_INVALID_ARGUMENT);
    for (int i = 0; i < J_COUNT; i++) CHECK(m.w[i] == 0.0f);   /* untouched */
    mr_mask_deinit(&m);
    mr_skeleton_deinit(&sk);
}

TEST(mask_subtree_refuses_nan_weight)
{
    mr_skeleton sk;
    fixture_humanoid(&sk);
    mr_mask m;
    mr_mask_init(&m, J_COUNT, 0.0f);
    CHECK(mr_mask_set_subtree(&m, &sk, J_HEAD, NAN) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mask_set_subtree(&m, &sk, J_HEAD, 2.0f) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mask_fill(&m, NAN) == MR_ERR_INVALID_ARGUMENT);
    CHECK(m.w[J_HEAD] == 0.0f);
    mr_mask_deinit(&m);
    mr_skeleton_deinit(&sk);
}

TEST(mask_ramp_refuses_zero_count_and_bad_ends)
{
    mr_skeleton sk;
    fixture_humanoid(&sk);
    mr_mask m;
    mr_mask_init(&m, J_COUNT, 0.0f);
    CHECK(mr_mask_ramp(&m, &sk, J_SPINE1, 0, 0.0f, 1.0f) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mask_ramp(&m, &sk, J_SPINE1, 3, NAN, 1.0f) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mask_ramp(&m, &sk, J_SPINE1, 3, 0.0f, 1.1f) == MR_ERR_INVALID_ARGUMENT);
    mr_mask_deinit(&m);
    mr_skeleton_deinit(&sk);
}

TEST(mask_of_wrong_size_is_refused_against_a_skeleton)
{
    mr_skeleton sk;
    fixture_humanoid(&sk);
    mr_mask m;
    mr_mask_init(&m, J_COUNT - 1, 1.0f);
    mr_error err = {0};
    CHECK(mr_mask_validate(&m, &sk, &err) == MR_ERR_JOINT_COUNT);
    CHECK_STR_CONTAINS(err.msg, "mask has 17 joints, skeleton has 18");
    CHECK(mr_mask_set_subtree(&m, &sk, J_HEAD, 1.0f) == MR_ERR_JOINT_COUNT);
    CHECK(mr_mask_ramp(&m, &sk, J_HEAD, 2, 0.0f, 1.0f) == MR_ERR_JOINT_COUNT);
    mr_mask_deinit(&m);
    mr_skeleton_deinit(&sk);
}

TEST(mask_union_refuses_masks_of_different_sizes)
{
    mr_mask a, b, d;
    mr_mask_init(&a, 5, 0.5f);
    mr_mask_init(&b, 6, 0.5f);
    mr_mask_init(&d, 5, 0.0f);
    CHECK(mr_mask_union(&d, &a, &b) == MR_ERR_JOINT_COUNT);
    CHECK(mr_mask_intersect(&d, &a, &b) == MR_ERR_JOINT_COUNT);
    CHECK(mr_mask_copy(&d, &b) == MR_ERR_JOINT_COUNT);
    CHECK(d.w[0] == 0.0f);
    mr_mask_deinit(&a);
    mr_mask_deinit(&b);
    mr_mask_deinit(&d);
}

TEST(mask_scale_refuses_negative_or_nan_factor)
{
    mr_mask m;
    mr_mask_init(&m, 3, 0.5f);
    CHECK(mr_mask_scale(&m, -1.0f) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mask_scale(&m, NAN) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mask_scale(&m, INFINITY) == MR_ERR_INVALID_ARGUMENT);
    CHECK(m.w[0] == 0.5f);
    mr_mask_deinit(&m);
}

TEST(mask_validate_names_a_nan_weight)
{
    mr_skeleton sk;
    fixture_humanoid(&sk);
    mr_mask m;
    mr_mask_init(&m, J_COUNT, 1.0f);
    m.w[J_HEAD] = NAN;
    mr_error err = {0};
    CHECK(mr_mask_validate(&m, &sk, &err) == MR_ERR_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err.msg, "joint 5 'head'");
    m.w[J_HEAD] = 1.5f;
    CHECK(mr_mask_validate(&m, &sk, NULL) == MR_ERR_INVALID_ARGUMENT);
    mr_mask_deinit(&m);
    mr_skeleton_deinit(&sk);
}

TEST(mask_helpers_refuse_null)
{
    mr_mask empty = {0};
    CHECK(mr_mask_fill(NULL, 0.0f) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mask_fill(&empty, 0.0f) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mask_invert(&empty) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mask_validate(NULL, NULL, NULL) == MR_ERR_INVALID_ARGUMENT);
}

int main(void)
{
    RUN(mask_make_fills_every_joint);
    RUN(mask_subtree_covers_joint_and_descendants_only);
    RUN(mask_ramp_falls_off_along_the_chain);
    RUN(mask_union_intersect_scale_invert);
    RUN(mask_make_refuses_weight_outside_unit_range);
    RUN(mask_make_refuses_bad_joint_count);
    RUN(mask_subtree_refuses_joint_out_of_range);
    RUN(mask_subtree_refuses_nan_weight);
    RUN(mask_ramp_refuses_zero_count_and_bad_ends);
    RUN(mask_of_wrong_size_is_refused_against_a_skeleton);
    RUN(mask_union_refuses_masks_of_different_sizes);
    RUN(mask_scale_refuses_negative_or_nan_factor);
    RUN(mask_validate_names_a_nan_weight);
    RUN(mask_helpers_refuse_null);
    return test_summary("mask");
}
