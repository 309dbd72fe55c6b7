/* test_blendspace.c — 1D and 2D (gradient band) blend-space weights, phase-
 * synchronised sampling, and a negative test per invalid configuration. */
#include "anim/blendspace.h"
#include "choreo_fixture.h"
#include "test.h"

typedef struct world {
    mr_skeleton sk;
    mr_clip *idle, *walk, *run, *left, *right, *back;
} world;

static void world_make(world *w)
{
    fixture_humanoid(&w->sk);
    w->idle = fixture_cycle("idle", 2.0f, 3.0f, 0.0f, 0.0f);
    w->walk = fixture_cycle("walk", 1.0f, 25.0f, 0.0f, 40.0f);
    w->run = fixture_cycle("run", 0.6f, 45.0f, 0.0f, 120.0f);
    w->left = fixture_cycle("left", 1.0f, 20.0f, 1.0f, 0.0f);
    w->right = fixture_cycle("right", 1.0f, 20.0f, 2.0f, 0.0f);
    w->back = fixture_cycle("back", 1.2f, 20.0f, 3.0f, -30.0f);
}

static void world_free(world *w)
{
    mr_clip_destroy(w->idle);
    mr_clip_destroy(w->walk);
    mr_clip_destroy(w->run);
    mr_clip_destroy(w->left);
    mr_clip_destroy(w->right);
    mr_clip_destroy(w->back);
    mr_skeleton_deinit(&w->sk);
}

static void space_2d(world *w, mr_blendspace *bs)
{
    mr_blendspace_init(bs, 2);
    mr_blendspace_add(bs, w->idle, 0, 0);
    mr_blendspace_add(bs, w->walk, 0, 1);
    mr_blendspace_add(bs, w->run, 0, 3);
    mr_blendspace_add(bs, w->left, -1, 0);
    mr_blendspace_add(bs, w->right, 1, 0);
    mr_blendspace_add(bs, w->back, 0, -1);
}

TEST(blendspace_1d_weights_are_linear_between_neighbours)
{
    world w;
    world_make(&w);
    mr_blendspace bs;
    mr_blendspace_init(&bs, 1);
    /* Added out of order: the space keeps them sorted. */
    CHECK(mr_blendspace_add(&bs, w.run, 3.0f, 0) == MR_OK);
    CHECK(mr_blendspace_add(&bs, w.idle, 0.0f, 0) == MR_OK);
    CHECK(mr_blendspace_add(&bs, w.walk, 1.0f, 0) == MR_OK);
    CHECK(mr_blendspace_validate(&bs, &w.sk, NULL) == MR_OK);
    CHECK(bs.clips[0] == w.idle && bs.clips[1] == w.walk && bs.clips[2] == w.run);
    float wt[3];
    mr_blendspace_weights(&bs, -1.0f, 0, wt);
    CHECK(wt[0] == 1.0f && wt[1] == 0.0f && wt[2] == 0.0f);
    mr_blendspace_weights(&bs, 0.25f, 0, wt);
    CHECK_NEAR(wt[0], 0.75, 1e-6);
    CHECK_NEAR(wt[1], 0.25, 1e-6);
    mr_blendspace_weights(&bs, 2.0f, 0, wt);
    CHECK_NEAR(wt[1], 0.5, 1e-6);
    CHECK_NEAR(wt[2], 0.5, 1e-6);
    CHECK(wt[0] == 0.0f);
    mr_blendspace_weights(&bs, 9.0f, 0, wt);
    CHECK(wt[2] == 1.0f);
    /* Blended cycle length: halfway walk (1 s) - run (0.6 s) is 0.8 s. */
    mr_blendspace_weights(&bs, 2.0f, 0, wt);
    CHECK_NEAR(mr_blendspace_duration(&bs, wt), 0.8, 1e-6);
    world_free(&w);
}

TEST(blendspace_2d_gradient_band_is_exact_at_points_and_sums_to_one)
{
    world w;
    world_make(&w);
    mr_blendspace bs;
    space_2d(&w, &bs);
    CHECK(mr_blendspace_validate(&bs, &w.sk, NULL) == MR_OK);
    float wt[MR_BLENDSPACE_MAX];
    for (int i = 0; i < bs.count; i++) {
        mr_blendspace_weights(&bs, bs.x[i], bs.y[i], wt);
        for (int k = 0; k < bs.count; k++) CHECK_NEAR(wt[k], k == i ? 1.0 : 0.0, 1e-6);
    }
    /* Everywhere on a grid (inside and outside the points): weights are
     * >= 0, sum to 1, and change continuously. */
    float prev[MR_BLENDSPACE_MAX];
    float max_jump = 0.0f;
    for (float y = -2.0f; y <= 4.0f; y += 0.01f) {
        for (float x = -2.0f; x <= 2.0f; x += 0.25f) {
            mr_blendspace_weights(&bs, x, y, wt);
            float sum = 0;
            for (int k = 0; k < bs.count; k++) {
                CHECK(wt[k] >= 0.0f);
                sum += wt[k];
            }
            CHECK_NEAR(sum, 1.0, 1e-5);
        }
        mr_blendspace_weights(&bs, 0.3f, y, wt);
        if (y > -2.0f)
            for (int k = 0; k < bs.count; k++) max_jump = fmaxf(max_jump, fabsf(wt[k] - prev[k]));
        memcpy(prev, wt, sizeof wt);
    }
    CHECK_MSG(max_jump < 0.05f, "weights jump by %g for a 0.01 step", max_jump);
    /* Between walk (0,1) and run (0,3) on the axis only those two count. */
    mr_blendspace_weights(&bs, 0.0f, 2.0f, wt);
    CHECK_NEAR(wt[1], 0.5, 1e-5);
    CHECK_NEAR(wt[2], 0.5, 1e-5);
    world_free(&w);
}

TEST(blendspace_sample_shares_the_normalised_phase)
{
    world w;
    world_make(&w);
    mr_blendspace bs;
    mr_blendspace_init(&bs, 1);
    mr_blendspace_add(&bs, w.walk, 1.0f, 0);
    mr_blendspace_add(&bs, w.run, 3.0f, 0);
    mr_pose out, scratch, a, b, want;
    mr_pose_init(&out, J_COUNT);
    mr_pose_init(&scratch, J_COUNT);
    mr_pose_init(&a, J_COUNT);
    mr_pose_init(&b, J_COUNT);
    mr_pose_init(&want, J_COUNT);
    float wt[2];
    /* Only run: run at phase 0.25 = 0.15 s, exactly. */
    mr_blendspace_weights(&bs, 3.0f, 0, wt);
    CHECK(mr_blendspace_sample(&bs, &w.sk, wt, 1.25f, &scratch, &out) == MR_OK);
    mr_clip_sample(w.run, &w.sk, 0.15f, MR_WRAP_CLAMP, &want);
    for (int j = 0; j < J_COUNT; j++) CHECK(fixture_pose_equal(&out, &want, j));
    /* Halfway: the blend of walk at 0.25 s and run at 0.15 s. */
    mr_blendspace_weights(&bs, 2.0f, 0, wt);
    CHECK(mr_blendspace_sample(&bs, &w.sk, wt, 0.25f, &scratch, &out) == MR_OK);
    mr_clip_sample(w.walk, &w.sk, 0.25f, MR_WRAP_CLAMP, &a);
    mr_clip_sample(w.run, &w.sk, 0.15f, MR_WRAP_CLAMP, &b);
    mr_blend_layer layers[2] = {{&a, 0.5f, NULL}, {&b, 0.5f, NULL}};
    mr_blend_job job = {&w.sk, layers, 2, 0.0f, &want};
    mr_blend_run(&job, NULL);
    CHECK(fixture_max_move(&w.sk, &out, &want) < 1e-4f);
    mr_pose_deinit(&out);
    mr_pose_deinit(&scratch);
    mr_pose_deinit(&a);
    mr_pose_deinit(&b);
    mr_pose_deinit(&want);
    world_free(&w);
}

TEST(blendspace_dominant_is_the_heaviest_clip)
{
    world w;
    world_make(&w);
    mr_blendspace bs;
    space_2d(&w, &bs);
    float wt[MR_BLENDSPACE_MAX];
    mr_blendspace_weights(&bs, 0.1f, 2.7f, wt);
    CHECK(mr_blendspace_dominant(&bs, wt) == 2);   /* run */
    world_free(&w);
}

/* ---- negative tests ------------------------------------------------------ */

TEST(blendspace_init_refuses_three_dimensions)
{
    mr_blendspace bs;
    CHECK(mr_blendspace_init(&bs, 3) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_blendspace_init(&bs, 0) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_blendspace_init(NULL, 1) == MR_ERR_INVALID_ARGUMENT);
}

TEST(blendspace_add_refuses_nan_parameter_and_null_clip)
{
    world w;
    world_make(&w);
    mr_blendspace bs;
    mr_blendspace_init(&bs, 2);
    CHECK(mr_blendspace_add(&bs, w.walk, NAN, 0) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_blendspace_add(&bs, w.walk, 0, INFINITY) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_blendspace_add(&bs, NULL, 0, 0) == MR_ERR_INVALID_ARGUMENT);
    CHECK(bs.count == 0);
    world_free(&w);
}

TEST(blendspace_add_refuses_a_taken_point)
{
    world w;
    world_make(&w);
    mr_blendspace bs;
    mr_blendspace_init(&bs, 1);
    mr_blendspace_add(&bs, w.walk, 1.0f, 0);
    CHECK(mr_blendspace_add(&bs, w.run, 1.0f, 5.0f) == MR_ERR_INVALID_ARGUMENT);  /* y ignored in 1D */
    mr_blendspace_init(&bs, 2);
    mr_blendspace_add(&bs, w.walk, 1.0f, 2.0f);
    CHECK(mr_blendspace_add(&bs, w.run, 1.0f, 2.0f) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_blendspace_add(&bs, w.run, 1.0f, 3.0f) == MR_OK);
    world_free(&w);
}

TEST(blendspace_add_refuses_too_many_clips)
{
    world w;
    world_make(&w);
    mr_blendspace bs;
    mr_blendspace_init(&bs, 1);
    for (int i = 0; i < MR_BLENDSPACE_MAX; i++) CHECK(mr_blendspace_add(&bs, w.walk, (float)i, 0) == MR_OK);
    CHECK(mr_blendspace_add(&bs, w.walk, 100.0f, 0) == MR_ERR_LIMIT);
    world_free(&w);
}

TEST(blendspace_validate_refuses_mismatched_joint_counts)
{
    world w;
    world_make(&w);
    mr_clip *small = NULL;
    mr_clip_create("small", 4, &small);
    small->duration = 1.0f;
    mr_blendspace bs;
    mr_blendspace_init(&bs, 1);
    mr_blendspace_add(&bs, w.walk, 0, 0);
    mr_blendspace_add(&bs, small, 1, 0);
    mr_error err = {0};
    CHECK(mr_blendspace_validate(&bs, &w.sk, &err) == MR_ERR_JOINT_COUNT);
    CHECK_STR_CONTAINS(err.msg, "clip 'small' has 4 joints");
    float wt[2] = {0.5f, 0.5f};
    mr_pose out, scratch;
    mr_pose_init(&out, J_COUNT);
    mr_pose_init(&scratch, J_COUNT);
    CHECK(mr_blendspace_sample(&bs, &w.sk, wt, 0.0f, &scratch, &out) == MR_ERR_JOINT_COUNT);
    mr_pose_deinit(&out);
    mr_pose_deinit(&scratch);
    mr_clip_destroy(small);
    world_free(&w);
}

TEST(blendspace_validate_refuses_zero_duration_clip)
{
    world w;
    world_make(&w);
    mr_clip *still = NULL;
    mr_clip_create("still", J_COUNT, &still);
    mr_blendspace bs;
    mr_blendspace_init(&bs, 1);
    mr_blendspace_add(&bs, still, 0, 0);
    mr_error err = {0};
    CHECK(mr_blendspace_validate(&bs, &w.sk, &err) == MR_ERR_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err.msg, "duration 0");
    mr_clip_destroy(still);
    world_free(&w);
}

TEST(blendspace_validate_refuses_an_empty_space)
{
    world w;
    world_make(&w);
    mr_blendspace bs;
    mr_blendspace_init(&bs, 2);
    CHECK(mr_blendspace_validate(&bs, &w.sk, NULL) == MR_ERR_EMPTY_CLIP);
    float wt[1];
    CHECK(mr_blendspace_weights(&bs, 0, 0, wt) == MR_ERR_INVALID_ARGUMENT);
    world_free(&w);
}

TEST(blendspace_weights_refuse_nan_parameter)
{
    world w;
    world_make(&w);
    mr_blendspace bs;
    space_2d(&w, &bs);
    float wt[MR_BLENDSPACE_MAX];
    CHECK(mr_blendspace_weights(&bs, NAN, 0, wt) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_blendspace_weights(&bs, 0, NAN, wt) == MR_ERR_INVALID_ARGUMENT);
    world_free(&w);
}

TEST(blendspace_sample_refuses_nan_phase_and_aliased_scratch)
{
    world w;
    world_make(&w);
    mr_blendspace bs;
    space_2d(&w, &bs);
    float wt[MR_BLENDSPACE_MAX];
    mr_blendspace_weights(&bs, 0.5f, 0.5f, wt);
    mr_pose out, scratch;
    mr_pose_init(&out, J_COUNT);
    mr_pose_init(&scratch, J_COUNT);
    CHECK(mr_blendspace_sample(&bs, &w.sk, wt, NAN, &scratch, &out) == MR_ERR_BAD_TIME);
    CHECK(mr_blendspace_sample(&bs, &w.sk, wt, 0.0f, &out, &out) == MR_ERR_INVALID_ARGUMENT);
    wt[0] = NAN;
    CHECK(mr_blendspace_sample(&bs, &w.sk, wt, 0.0f, &scratch, &out) == MR_ERR_INVALID_ARGUMENT);
    mr_pose_deinit(&out);
    mr_pose_deinit(&scratch);
    world_free(&w);
}

int main(void)
{
    RUN(blendspace_1d_weights_are_linear_between_neighbours);
    RUN(blendspace_2d_gradient_band_is_exact_at_points_and_sums_to_one);
    RUN(blendspace_sample_shares_the_normalised_phase);
    RUN(blendspace_dominant_is_the_heaviest_clip);
    RUN(blendspace_init_refuses_three_dimensions);
    RUN(blendspace_add_refuses_nan_parameter_and_null_clip);
    RUN(blendspace_add_refuses_a_taken_point);
    RUN(blendspace_add_refuses_too_many_clips);
    RUN(blendspace_validate_refuses_mismatched_joint_counts);
    RUN(blendspace_validate_refuses_zero_duration_clip);
    RUN(blendspace_validate_refuses_an_empty_space);
    RUN(blendspace_weights_refuse_nan_parameter);
    RUN(blendspace_sample_refuses_nan_phase_and_aliased_scratch);
    return test_summary("blendspace");
}
