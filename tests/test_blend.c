/* test_blend.c — mr_blend_run (weights, sign alignment, rest fallback,
 * masks), override layers, additive clips and mr_blend_additive, and a negative
 * test per invalid configuration. */
#include "anim/blend.h"
#include "choreo_fixture.h"
#include "test.h"

typedef struct world {
    mr_skeleton sk;
    mr_pose a, b, out;
} world;

static void world_make(world *w)
{
    fixture_humanoid(&w->sk);
    mr_pose_init(&w->a, J_COUNT);
    mr_pose_init(&w->b, J_COUNT);
    mr_pose_init(&w->out, J_COUNT);
    mr_pose_set_rest(&w->a, &w->sk);
    mr_pose_set_rest(&w->b, &w->sk);
    /* a: head turned 0 deg, spine moved; b: head turned 60 deg about Z. */
    glm_vec3_copy((vec3){0, 0, 40}, w->a.t[J_PELVIS]);
    glm_vec3_copy((vec3){10, 0, 40}, w->b.t[J_PELVIS]);
    glm_quatv(w->a.r[J_HEAD], 0.0f, (vec3){0, 0, 1});
    glm_quatv(w->b.r[J_HEAD], glm_rad(60.0f), (vec3){0, 0, 1});
    glm_vec3_copy((vec3){2, 2, 2}, w->b.s[J_NECK]);
}

static void world_free(world *w)
{
    mr_pose_deinit(&w->a);
    mr_pose_deinit(&w->b);
    mr_pose_deinit(&w->out);
    mr_skeleton_deinit(&w->sk);
}

static float z_angle_deg(const float *q) { return glm_deg(2.0f * atan2f(q[2], q[3])); }

static mr_status blend2(world *w, float wa, float wb, const mr_mask *ma, const mr_mask *mb, float thr)
{
    mr_blend_layer layers[2] = {{&w->a, wa, ma}, {&w->b, wb, mb}};
    mr_blend_job job = {&w->sk, layers, 2, thr, &w->out};
    return mr_blend_run(&job, NULL);
}

TEST(blend_equal_weights_give_the_midpoint)
{
    world w;
    world_make(&w);
    CHECK(blend2(&w, 1.0f, 1.0f, NULL, NULL, 0.0f) == MR_OK);
    CHECK_NEAR(w.out.t[J_PELVIS][0], 5.0, 1e-5);
    CHECK_NEAR(z_angle_deg(w.out.r[J_HEAD]), 30.0, 1e-3);   /* nlerp midpoint is exact */
    CHECK_NEAR(w.out.s[J_NECK][0], 1.5, 1e-6);
    CHECK_NEAR(glm_vec4_norm(w.out.r[J_HEAD]), 1.0, 1e-6);
    world_free(&w);
}

TEST(blend_weights_are_normalised)
{
    world w;
    world_make(&w);
    blend2(&w, 3.0f, 1.0f, NULL, NULL, 0.0f);
    float x = w.out.t[J_PELVIS][0];
    CHECK_NEAR(x, 2.5, 1e-5);
    blend2(&w, 0.75f, 0.25f, NULL, NULL, 0.0f);
    CHECK_NEAR(w.out.t[J_PELVIS][0], x, 1e-6);
    world_free(&w);
}

TEST(blend_aligns_quaternion_signs)
{
    world w;
    world_make(&w);
    /* b holds the same head rotation as a, but negated: q and -q are the
     * same rotation, so the blend must be that rotation, not a degenerate sum. */
    glm_quatv(w.a.r[J_HEAD], glm_rad(40.0f), (vec3){0, 0, 1});
    for (int k = 0; k < 4; k++) w.b.r[J_HEAD][k] = -w.a.r[J_HEAD][k];
    blend2(&w, 1.0f, 1.0f, NULL, NULL, 0.0f);
    float d = fabsf(glm_vec4_dot(w.out.r[J_HEAD], w.a.r[J_HEAD]));
    CHECK_NEAR(d, 1.0, 1e-6);
    world_free(&w);
}

TEST(blend_falls_back_to_rest_below_threshold)
{
    world w;
    world_make(&w);
    /* Total weight 0: exactly the rest pose. */
    CHECK(blend2(&w, 0.0f, 0.0f, NULL, NULL, 0.0f) == MR_OK);
    for (int j = 0; j < J_COUNT; j++) {
        CHECK(memcmp(w.out.t[j], w.sk.rest_t[j], sizeof(vec3)) == 0);
        CHECK(memcmp(w.out.r[j], w.sk.rest_r[j], sizeof(versor)) == 0);
    }
    /* Total 0.05 with threshold 0.1: half b, half rest (pelvis rest x = 0). */
    blend2(&w, 0.0f, 0.05f, NULL, NULL, 0.1f);
    CHECK_NEAR(w.out.t[J_PELVIS][0], 5.0, 1e-4);
    /* Above the threshold the rest pose plays no part. */
    blend2(&w, 0.0f, 0.2f, NULL, NULL, 0.1f);
    CHECK_NEAR(w.out.t[J_PELVIS][0], 10.0, 1e-5);
    /* Continuity across the threshold: 0.0999 and 0.1001 agree closely. */
    blend2(&w, 0.0f, 0.0999f, NULL, NULL, 0.1f);
    float below = w.out.t[J_PELVIS][0];
    blend2(&w, 0.0f, 0.1001f, NULL, NULL, 0.1f);
    CHECK_NEAR(below, w.out.t[J_PELVIS][0], 0.02);
    world_free(&w);
}

TEST(blend_mask_restricts_a_layer_per_joint)
{
    world w;
    world_make(&w);
    mr_mask m;
    mr_mask_init(&m, J_COUNT, 0.0f);
    mr_mask_set_subtree(&m, &w.sk, J_NECK, 1.0f);   /* b only drives neck and head */
    blend2(&w, 1.0f, 1.0f, NULL, &m, 0.0f);
    CHECK_NEAR(w.out.t[J_PELVIS][0], 0.0, 1e-6);      /* a alone at the pelvis */
    CHECK_NEAR(z_angle_deg(w.out.r[J_HEAD]), 30.0, 1e-3);
    mr_mask_deinit(&m);
    world_free(&w);
}

TEST(blend_output_may_alias_an_input)
{
    world w;
    world_make(&w);
    mr_blend_layer layers[2] = {{&w.a, 1.0f, NULL}, {&w.b, 1.0f, NULL}};
    mr_blend_job job = {&w.sk, layers, 2, 0.0f, &w.a};
    CHECK(mr_blend_run(&job, NULL) == MR_OK);
    CHECK_NEAR(w.a.t[J_PELVIS][0], 5.0, 1e-5);
    CHECK_NEAR(z_angle_deg(w.a.r[J_HEAD]), 30.0, 1e-3);
    world_free(&w);
}

TEST(layer_mask_zero_leaves_joints_bitwise)
{
    world w;
    world_make(&w);
    mr_pose lower;
    mr_pose_init(&lower, J_COUNT);
    mr_pose_copy(&lower, &w.a);
    mr_mask m;
    mr_mask_init(&m, J_COUNT, 0.0f);
    mr_mask_set_subtree(&m, &w.sk, J_UPPERARM_R, 1.0f);
    mr_mask_ramp(&m, &w.sk, J_SPINE3, 2, 0.0f, 0.5f);   /* some partial weights too */
    glm_quatv(w.b.r[J_UPPERARM_R], 1.0f, (vec3){1, 0, 0});
    CHECK(mr_blend_override(&w.a, &w.b, 0.8f, &m) == MR_OK);
    for (int j = 0; j < J_COUNT; j++)
        if (m.w[j] == 0.0f) CHECK_MSG(fixture_pose_equal(&w.a, &lower, j), "joint %d changed", j);
    CHECK(!fixture_pose_equal(&w.a, &lower, J_UPPERARM_R));
    /* Weight 1 with mask 1 copies the layer exactly. */
    mr_mask_fill(&m, 1.0f);
    mr_blend_override(&w.a, &w.b, 1.0f, &m);
    for (int j = 0; j < J_COUNT; j++) CHECK(fixture_pose_equal(&w.a, &w.b, j));
    /* Weight 0 without a mask leaves everything. */
    mr_pose_copy(&w.a, &lower);
    mr_blend_override(&w.a, &w.b, 0.0f, NULL);
    for (int j = 0; j < J_COUNT; j++) CHECK(fixture_pose_equal(&w.a, &lower, j));
    mr_mask_deinit(&m);
    mr_pose_deinit(&lower);
    world_free(&w);
}

TEST(additive_weight_zero_is_identity)
{
    world w;
    world_make(&w);
    mr_clip *c = fixture_cycle("wave", 1.0f, 30.0f, 0.0f, 0.0f), *d = NULL;
    CHECK(mr_blend_make_additive_clip(c, &w.sk, NULL, 0.0f, &d, NULL) == MR_OK);
    mr_pose delta, before;
    mr_pose_init(&delta, J_COUNT);
    mr_pose_init(&before, J_COUNT);
    mr_clip_sample(d, &w.sk, 0.37f, MR_WRAP_LOOP, &delta);
    mr_pose_copy(&before, &w.b);
    CHECK(mr_blend_additive(&w.b, &delta, 0.0f, NULL) == MR_OK);
    for (int j = 0; j < J_COUNT; j++) CHECK(fixture_pose_equal(&w.b, &before, j));
    /* Masked: joints with mask 0 are untouched even at weight 1. */
    mr_mask m;
    mr_mask_init(&m, J_COUNT, 0.0f);
    mr_mask_set_subtree(&m, &w.sk, J_SPINE3, 1.0f);
    mr_blend_additive(&w.b, &delta, 1.0f, &m);
    for (int j = 0; j < J_COUNT; j++)
        if (m.w[j] == 0.0f) CHECK(fixture_pose_equal(&w.b, &before, j));
    CHECK(!fixture_pose_equal(&w.b, &before, J_HEAD));
    mr_mask_deinit(&m);
    mr_pose_deinit(&delta);
    mr_pose_deinit(&before);
    mr_clip_destroy(c);
    mr_clip_destroy(d);
    world_free(&w);
}

TEST(additive_clip_added_to_its_reference_restores_the_clip)
{
    world w;
    world_make(&w);
    mr_clip *c = fixture_cycle("wave", 1.2f, 35.0f, 0.4f, 3.0f), *d = NULL;
    /* Reference: the clip itself at t = 0.3. */
    CHECK(mr_blend_make_additive_clip(c, &w.sk, NULL, 0.3f, &d, NULL) == MR_OK);
    CHECK(strcmp(d->name, "wave.additive") == 0);
    CHECK(d->duration == c->duration);
    mr_pose ref, delta, want;
    mr_pose_init(&ref, J_COUNT);
    mr_pose_init(&delta, J_COUNT);
    mr_pose_init(&want, J_COUNT);
    for (float t = 0.0f; t <= 1.2f; t += 0.07f) {
        mr_clip_sample(c, &w.sk, 0.3f, MR_WRAP_CLAMP, &ref);
        mr_clip_sample(d, &w.sk, t, MR_WRAP_CLAMP, &delta);
        mr_clip_sample(c, &w.sk, t, MR_WRAP_CLAMP, &want);
        mr_blend_additive(&ref, &delta, 1.0f, NULL);
        CHECK_MSG(fixture_max_move(&w.sk, &ref, &want) < 1e-3f, "t=%g moved %g", t,
                  fixture_max_move(&w.sk, &ref, &want));
    }
    /* At the reference time the delta is the identity. */
    mr_clip_sample(d, &w.sk, 0.3f, MR_WRAP_CLAMP, &delta);
    for (int j = 0; j < J_COUNT; j++) {
        CHECK_NEAR(glm_vec3_norm(delta.t[j]), 0.0, 1e-4);
        CHECK_NEAR(fabsf(delta.r[j][3]), 1.0, 1e-5);
        CHECK_NEAR(delta.s[j][0], 1.0, 1e-6);
    }
    mr_pose_deinit(&ref);
    mr_pose_deinit(&delta);
    mr_pose_deinit(&want);
    mr_clip_destroy(c);
    mr_clip_destroy(d);
    world_free(&w);
}

TEST(additive_clip_against_a_given_pose_covers_untracked_channels)
{
    world w;
    world_make(&w);
    mr_clip *c = fixture_cycle("nod", 1.0f, 20.0f, 0.0f, 0.0f), *d = NULL;
    mr_clip_add_marker(c, 0.5f, "tick");
    /* Reference: the rest pose. Scale is untracked in c: the delta's scale
     * track must exist and hold exactly 1, not fall back to rest. */
    mr_pose rest;
    mr_pose_init(&rest, J_COUNT);
    mr_pose_set_rest(&rest, &w.sk);
    CHECK(mr_blend_make_additive_clip(c, &w.sk, &rest, 0.0f, &d, NULL) == MR_OK);
    for (int j = 0; j < J_COUNT; j++) {
        CHECK(d->tracks[j].s.key_count == 1);
        CHECK(d->tracks[j].t.key_count >= 1);
    }
    CHECK(d->tracks[J_HEAD].t.values[0] == 0.0f && d->tracks[J_HEAD].s.values[0] == 1.0f);
    CHECK(d->marker_count == 1 && strcmp(d->markers[0].name, "tick") == 0);
    mr_pose_deinit(&rest);
    mr_clip_destroy(c);
    mr_clip_destroy(d);
    world_free(&w);
}

TEST(streaming_blend_matches_the_blend_job)
{
    world w;
    world_make(&w);
    mr_pose acc;
    mr_pose_init(&acc, J_COUNT);
    CHECK(mr_blend_begin(&acc) == MR_OK);
    CHECK(mr_blend_add(&acc, &w.a, 0.3f) == MR_OK);
    CHECK(mr_blend_add(&acc, &w.b, 0.6f) == MR_OK);
    CHECK(mr_blend_end(&acc, &w.sk, 0.9f, 0.0f) == MR_OK);
    blend2(&w, 0.3f, 0.6f, NULL, NULL, 0.0f);
    for (int j = 0; j < J_COUNT; j++) {
        for (int k = 0; k < 3; k++) CHECK_NEAR(acc.t[j][k], w.out.t[j][k], 1e-5);
        for (int k = 0; k < 4; k++) CHECK_NEAR(acc.r[j][k], w.out.r[j][k], 1e-6);
    }
    /* Below the threshold it eases to rest like the job does. */
    mr_blend_begin(&acc);
    mr_blend_add(&acc, &w.b, 0.05f);
    mr_blend_end(&acc, &w.sk, 0.05f, 0.1f);
    CHECK_NEAR(acc.t[J_PELVIS][0], 5.0, 1e-4);
    mr_pose_deinit(&acc);
    world_free(&w);
}

TEST(streaming_blend_refuses_nan_weight_and_sizes)
{
    world w;
    world_make(&w);
    mr_pose acc, small;
    mr_pose_init(&acc, J_COUNT);
    mr_pose_init(&small, 2);
    mr_blend_begin(&acc);
    CHECK(mr_blend_add(&acc, &w.a, NAN) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_blend_add(&acc, &w.a, -1.0f) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_blend_add(&acc, &small, 1.0f) == MR_ERR_JOINT_COUNT);
    CHECK(mr_blend_end(&acc, &w.sk, NAN, 0.0f) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_blend_end(&small, &w.sk, 1.0f, 0.0f) == MR_ERR_JOINT_COUNT);
    CHECK(mr_blend_begin(NULL) == MR_ERR_INVALID_ARGUMENT);
    mr_pose_deinit(&acc);
    mr_pose_deinit(&small);
    world_free(&w);
}

/* ---- negative tests ------------------------------------------------------ */

TEST(blend_refuses_mismatched_joint_counts)
{
    world w;
    world_make(&w);
    mr_pose small;
    mr_pose_init(&small, J_COUNT - 1);
    mr_blend_layer layers[2] = {{&w.a, 1.0f, NULL}, {&small, 1.0f, NULL}};
    mr_blend_job job = {&w.sk, layers, 2, 0.0f, &w.out};
    mr_error err = {0};
    mr_pose_copy(&w.out, &w.b);
    CHECK(mr_blend_run(&job, &err) == MR_ERR_JOINT_COUNT);
    CHECK_STR_CONTAINS(err.msg, "layer 1 pose has 17 joints");
    CHECK(fixture_pose_equal(&w.out, &w.b, J_HEAD));   /* output untouched */
    mr_blend_job job2 = {&w.sk, layers, 1, 0.0f, &small};
    CHECK(mr_blend_run(&job2, &err) == MR_ERR_JOINT_COUNT);
    CHECK_STR_CONTAINS(err.msg, "output pose");
    mr_pose_deinit(&small);
    world_free(&w);
}

TEST(blend_refuses_nan_weight)
{
    world w;
    world_make(&w);
    mr_error err = {0};
    mr_blend_layer layers[2] = {{&w.a, 1.0f, NULL}, {&w.b, NAN, NULL}};
    mr_blend_job job = {&w.sk, layers, 2, 0.0f, &w.out};
    CHECK(mr_blend_run(&job, &err) == MR_ERR_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err.msg, "layer 1 weight nan");
    world_free(&w);
}

TEST(blend_refuses_negative_or_infinite_weight)
{
    world w;
    world_make(&w);
    CHECK(blend2(&w, -0.5f, 1.0f, NULL, NULL, 0.0f) == MR_ERR_INVALID_ARGUMENT);
    CHECK(blend2(&w, INFINITY, 1.0f, NULL, NULL, 0.0f) == MR_ERR_INVALID_ARGUMENT);
    world_free(&w);
}

TEST(blend_refuses_bad_threshold)
{
    world w;
    world_make(&w);
    CHECK(blend2(&w, 1.0f, 1.0f, NULL, NULL, NAN) == MR_ERR_INVALID_ARGUMENT);
    CHECK(blend2(&w, 1.0f, 1.0f, NULL, NULL, -1.0f) == MR_ERR_INVALID_ARGUMENT);
    world_free(&w);
}

TEST(blend_refuses_mask_of_wrong_size)
{
    world w;
    world_make(&w);
    mr_mask m;
    mr_mask_init(&m, 4, 1.0f);
    mr_error err = {0};
    mr_blend_layer layers[1] = {{&w.a, 1.0f, &m}};
    mr_blend_job job = {&w.sk, layers, 1, 0.0f, &w.out};
    CHECK(mr_blend_run(&job, &err) == MR_ERR_JOINT_COUNT);
    CHECK_STR_CONTAINS(err.msg, "layer 0 mask has 4 joints");
    CHECK(mr_blend_override(&w.a, &w.b, 1.0f, &m) == MR_ERR_JOINT_COUNT);
    CHECK(mr_blend_additive(&w.a, &w.b, 1.0f, &m) == MR_ERR_JOINT_COUNT);
    mr_mask_deinit(&m);
    world_free(&w);
}

TEST(blend_refuses_missing_pieces)
{
    world w;
    world_make(&w);
    mr_blend_layer layers[1] = {{NULL, 1.0f, NULL}};
    mr_blend_job no_pose = {&w.sk, layers, 1, 0.0f, &w.out};
    CHECK(mr_blend_run(&no_pose, NULL) == MR_ERR_INVALID_ARGUMENT);
    mr_blend_job no_layers = {&w.sk, NULL, 2, 0.0f, &w.out};
    CHECK(mr_blend_run(&no_layers, NULL) == MR_ERR_INVALID_ARGUMENT);
    mr_blend_job no_out = {&w.sk, NULL, 0, 0.0f, NULL};
    CHECK(mr_blend_run(&no_out, NULL) == MR_ERR_INVALID_ARGUMENT);
    mr_blend_job no_sk = {NULL, NULL, 0, 0.0f, &w.out};
    CHECK(mr_blend_run(&no_sk, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_blend_run(NULL, NULL) == MR_ERR_INVALID_ARGUMENT);
    mr_blend_job negative = {&w.sk, NULL, -1, 0.0f, &w.out};
    CHECK(mr_blend_run(&negative, NULL) == MR_ERR_INVALID_ARGUMENT);
    world_free(&w);
}

TEST(layer_and_add_refuse_bad_weight_and_sizes)
{
    world w;
    world_make(&w);
    mr_pose small;
    mr_pose_init(&small, 3);
    CHECK(mr_blend_override(&w.a, &w.b, NAN, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_blend_override(&w.a, &w.b, 1.5f, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_blend_additive(&w.a, &w.b, -0.1f, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_blend_additive(&w.a, &w.b, NAN, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_blend_override(&w.a, &small, 1.0f, NULL) == MR_ERR_JOINT_COUNT);
    CHECK(mr_blend_additive(&w.a, &small, 1.0f, NULL) == MR_ERR_JOINT_COUNT);
    CHECK(mr_blend_additive(&w.a, NULL, 1.0f, NULL) == MR_ERR_INVALID_ARGUMENT);
    mr_pose_deinit(&small);
    world_free(&w);
}

TEST(make_additive_refuses_bad_inputs)
{
    world w;
    world_make(&w);
    mr_clip *c = fixture_cycle("x", 1.0f, 10.0f, 0.0f, 0.0f), *d = (mr_clip *)&w;
    mr_clip *wrong = NULL;
    mr_clip_create("wrong", 5, &wrong);
    mr_error err = {0};
    CHECK(mr_blend_make_additive_clip(c, &w.sk, NULL, NAN, &d, &err) == MR_ERR_BAD_TIME);
    CHECK(d == NULL);
    CHECK(mr_blend_make_additive_clip(wrong, &w.sk, NULL, 0.0f, &d, &err) == MR_ERR_JOINT_COUNT);
    CHECK_STR_CONTAINS(err.msg, "clip 'wrong' has 5 joints");
    mr_pose small;
    mr_pose_init(&small, 2);
    CHECK(mr_blend_make_additive_clip(c, &w.sk, &small, 0.0f, &d, &err) == MR_ERR_JOINT_COUNT);
    w.a.s[J_HEAD][1] = 0.0f;
    CHECK(mr_blend_make_additive_clip(c, &w.sk, &w.a, 0.0f, &d, &err) == MR_ERR_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err.msg, "zero scale");
    CHECK(d == NULL);
    mr_clip *empty = NULL;
    mr_clip_create("empty", 0, &empty);
    CHECK(mr_blend_make_additive_clip(empty, &w.sk, NULL, 0.0f, &d, &err) == MR_ERR_EMPTY_CLIP);
    CHECK(mr_blend_make_additive_clip(c, &w.sk, NULL, 0.0f, NULL, &err) == MR_ERR_INVALID_ARGUMENT);
    mr_pose_deinit(&small);
    mr_clip_destroy(c);
    mr_clip_destroy(wrong);
    mr_clip_destroy(empty);
    world_free(&w);
}

/* The blend rule of blend.h in double, one joint at a time: weighted
 * means, rotations sign-aligned to the running sum, normalised. */
static void reference_blend(const mr_pose *const *poses, const float *w, int count, int j, double *t, double *r,
                            double *s)
{
    double total = 0;
    for (int k = 0; k < 4; k++) r[k] = 0;
    for (int k = 0; k < 3; k++) t[k] = s[k] = 0;
    for (int i = 0; i < count; i++) {
        const float *q = poses[i]->r[j];
        double d = r[0] * q[0] + r[1] * q[1] + r[2] * q[2] + r[3] * q[3];
        double wr = d < 0 ? -w[i] : w[i];
        for (int k = 0; k < 4; k++) r[k] += wr * q[k];
        for (int k = 0; k < 3; k++) {
            t[k] += w[i] * poses[i]->t[j][k];
            s[k] += w[i] * poses[i]->s[j][k];
        }
        total += w[i];
    }
    double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    for (int k = 0; k < 4; k++) r[k] /= len;
    for (int k = 0; k < 3; k++) {
        t[k] /= total;
        s[k] /= total;
    }
}

static float lcg(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (float)((*state >> 8) & 0xFFFF) / 65535.0f * 2.0f - 1.0f;
}

/* count poses of n joints: rotations within 60 degrees of one another,
 * some stored negated, translations within 10 units, scales 0.5..1.5. */
static void random_poses(mr_pose *poses, int count, int n, unsigned seed)
{
    for (int i = 0; i < count; i++) {
        mr_pose_init(&poses[i], n);
        for (int j = 0; j < n; j++) {
            vec3 axis = {lcg(&seed), lcg(&seed), lcg(&seed) + 2.0f};
            glm_vec3_normalize(axis);
            glm_quatv(poses[i].r[j], 0.3f * (float)j + 0.5f * lcg(&seed), axis);
            if ((i + j) % 3 == 1) glm_vec4_negate(poses[i].r[j]);
            for (int k = 0; k < 3; k++) {
                poses[i].t[j][k] = 10.0f * lcg(&seed);
                poses[i].s[j][k] = 1.0f + 0.5f * lcg(&seed);
            }
        }
    }
}

TEST(blend_simd_matches_scalar_reference)
{
    /* 23 joints: five groups of 4 and a tail of 3; three layers. */
    enum { N = 23, L = 3 };
    mr_skeleton sk;
    mr_skeleton_init(&sk, N);
    mr_pose poses[L], out, acc;
    const mr_pose *inputs[L];
    random_poses(poses, L, N, 18);
    for (int i = 0; i < L; i++) inputs[i] = &poses[i];
    mr_pose_init(&out, N);
    mr_pose_init(&acc, N);
    const float w[L] = {0.5f, 0.3f, 0.7f};
    mr_blend_layer layers[L];
    for (int i = 0; i < L; i++) layers[i] = (mr_blend_layer){&poses[i], w[i], NULL};
    mr_blend_job job = {&sk, layers, L, 0.0f, &out};
    CHECK(mr_blend_run(&job, NULL) == MR_OK);
    mr_blend_begin(&acc);
    for (int i = 0; i < L; i++) CHECK(mr_blend_add(&acc, &poses[i], w[i]) == MR_OK);
    CHECK(mr_blend_end(&acc, &sk, w[0] + w[1] + w[2], 0.0f) == MR_OK);
    double worst = 0;
    for (int j = 0; j < N; j++) {
        double t[3], r[4], s[3];
        reference_blend(inputs, w, L, j, t, r, s);
        /* q and -q are the same rotation: compare with the sign of the result. */
        double sign = r[0] * out.r[j][0] + r[1] * out.r[j][1] + r[2] * out.r[j][2] + r[3] * out.r[j][3] < 0 ? -1 : 1;
        for (int k = 0; k < 4; k++) {
            worst = fmax(worst, fabs(sign * r[k] - out.r[j][k]));
            worst = fmax(worst, fabs(sign * r[k] - acc.r[j][k]));
        }
        for (int k = 0; k < 3; k++) {
            worst = fmax(worst, fabs(t[k] - out.t[j][k]) / fmax(1.0, fabs(t[k])));
            worst = fmax(worst, fabs(s[k] - out.s[j][k]));
            worst = fmax(worst, fabs(t[k] - acc.t[j][k]) / fmax(1.0, fabs(t[k])));
            worst = fmax(worst, fabs(s[k] - acc.s[j][k]));
        }
    }
    printf("       worst difference from the scalar reference %.3g\n", worst);
    CHECK_MSG(worst <= 1e-6, "SIMD blend is %.3g from the scalar reference", worst);
    for (int i = 0; i < L; i++) mr_pose_deinit(&poses[i]);
    mr_pose_deinit(&out);
    mr_pose_deinit(&acc);
    mr_skeleton_deinit(&sk);
}

TEST(blend_job_and_streaming_blend_agree_bit_for_bit)
{
    /* Two layers and a weightless one between them: the job and the
     * streaming calls do the same float operations in the same order. The
     * sizes reach every path of the job: too small for a group (3), 4-wide
     * groups with an overlapping last one (5), 8-wide groups on AVX machines
     * (8) with an overlapping last one (23). */
    static const int sizes[] = {3, 5, 8, 23};
    for (size_t c = 0; c < sizeof sizes / sizeof *sizes; c++) {
        int n = sizes[c];
        mr_skeleton sk;
        mr_skeleton_init(&sk, n);
        mr_pose poses[3], out, acc;
        random_poses(poses, 3, n, 7 + (unsigned)c);
        mr_pose_init(&out, n);
        mr_pose_init(&acc, n);
        mr_blend_layer layers[3] = {{&poses[0], 0.35f, NULL}, {&poses[1], 0.0f, NULL}, {&poses[2], 0.8f, NULL}};
        mr_blend_job job = {&sk, layers, 3, 0.0f, &out};
        CHECK(mr_blend_run(&job, NULL) == MR_OK);
        mr_blend_begin(&acc);
        mr_blend_add(&acc, &poses[0], 0.35f);
        mr_blend_add(&acc, &poses[2], 0.8f);
        CHECK(mr_blend_end(&acc, &sk, 0.35f + 0.8f, 0.0f) == MR_OK);
        CHECK_MSG(memcmp(out.t, acc.t, (size_t)n * sizeof *out.t) == 0, "%d joints: translations differ", n);
        CHECK_MSG(memcmp(out.r, acc.r, (size_t)n * sizeof *out.r) == 0, "%d joints: rotations differ", n);
        CHECK_MSG(memcmp(out.s, acc.s, (size_t)n * sizeof *out.s) == 0, "%d joints: scales differ", n);
        for (int i = 0; i < 3; i++) mr_pose_deinit(&poses[i]);
        mr_pose_deinit(&out);
        mr_pose_deinit(&acc);
        mr_skeleton_deinit(&sk);
    }
}

int main(void)
{
    RUN(blend_simd_matches_scalar_reference);
    RUN(blend_job_and_streaming_blend_agree_bit_for_bit);
    RUN(blend_equal_weights_give_the_midpoint);
    RUN(blend_weights_are_normalised);
    RUN(blend_aligns_quaternion_signs);
    RUN(blend_falls_back_to_rest_below_threshold);
    RUN(blend_mask_restricts_a_layer_per_joint);
    RUN(blend_output_may_alias_an_input);
    RUN(layer_mask_zero_leaves_joints_bitwise);
    RUN(additive_weight_zero_is_identity);
    RUN(additive_clip_added_to_its_reference_restores_the_clip);
    RUN(additive_clip_against_a_given_pose_covers_untracked_channels);
    RUN(streaming_blend_matches_the_blend_job);
    RUN(streaming_blend_refuses_nan_weight_and_sizes);
    RUN(blend_refuses_mismatched_joint_counts);
    RUN(blend_refuses_nan_weight);
    RUN(blend_refuses_negative_or_infinite_weight);
    RUN(blend_refuses_bad_threshold);
    RUN(blend_refuses_mask_of_wrong_size);
    RUN(blend_refuses_missing_pieces);
    RUN(layer_and_add_refuse_bad_weight_and_sizes);
    RUN(make_additive_refuses_bad_inputs);
    return test_summary("blend");
}
