/* test_clip_edit.c — authoring (anim/clip_edit.h), recording and reduction
 * (anim/record.h) and the BVH Euler split (formats/bvh_write.h) on the
 * 3-joint fixture chain: eases meet their ends and mirror, a baked eased
 * channel stays within the tolerance of the authored curve between keys,
 * edits keep keys sorted, a reduction's reported error is the measured one
 * and within its tolerance, bad keys are refused; morph weight channels bake
 * into morph tracks, follow the edits, and recorded weights reduce within
 * their tolerance. */
#include <math.h>

#include "anim/clip_edit.h"
#include "anim/morph.h"
#include "anim/record.h"
#include "anim_fixture.h"
#include "formats/bvh_write.h"
#include "test.h"

TEST(eases_meet_their_ends_and_mirror)
{
    float bz[4] = {0.2f, 0.9f, 0.4f, 1.3f}, mb[4];
    for (int e = 0; e < MR_EASE_COUNT; e++) {
        CHECK_NEAR(mr_ease_apply((mr_ease)e, bz, 0.0), 0.0, 1e-9);
        CHECK_NEAR(mr_ease_apply((mr_ease)e, bz, 1.0), 1.0, 1e-9);
        if (e == MR_EASE_STEP) continue;
        mr_ease m = mr_ease_mirror((mr_ease)e, bz, mb);
        for (double u = 0.05; u < 1.0; u += 0.1)
            CHECK_MSG(fabs(mr_ease_apply(m, mb, u) - (1.0 - mr_ease_apply((mr_ease)e, bz, 1.0 - u))) < 1e-6,
                      "%s mirrored at %g", mr_ease_names[e], u);
    }
    CHECK_NEAR(mr_ease_apply(MR_EASE_IN_CUBIC, NULL, 0.5), 0.125, 1e-12);
    CHECK(mr_ease_apply(MR_EASE_OUT_BACK, NULL, 0.7) > 1.0);     /* overshoots */
    CHECK(mr_ease_mirror(MR_EASE_IN_QUINT, NULL, NULL) == MR_EASE_OUT_QUINT);
}

TEST(baked_eased_channels_stay_within_tolerance_between_keys)
{
    mr_skeleton sk = {0};
    fixture_chain(&sk);
    mr_clip_edit *e = NULL;
    CHECK(mr_clip_edit_create(3, 2.0f, 30.0f, &e) == MR_OK);
    float t0[3] = {0, 0, 0}, t1[3] = {3, 1, 0};
    versor q0 = {0, 0, 0, 1}, q1;
    glm_quatv(q1, glm_rad(120.0f), (vec3){0, 0, 1});
    CHECK(mr_clip_edit_key(e, 0, 0, 0.0f, t0, MR_EASE_IN_OUT_ELASTIC, NULL) == MR_OK);
    CHECK(mr_clip_edit_key(e, 0, 0, 2.0f, t1, MR_EASE_LINEAR, NULL) == MR_OK);
    CHECK(mr_clip_edit_key(e, 1, 1, 0.5f, q0, MR_EASE_OUT_BACK, NULL) == MR_OK);
    CHECK(mr_clip_edit_key(e, 1, 1, 1.5f, q1, MR_EASE_LINEAR, NULL) == MR_OK);
    mr_clip *c = NULL;
    CHECK(mr_clip_create("c", 3, &c) == MR_OK);
    float tol = 1e-4f, size = 3.0f;
    CHECK(mr_clip_edit_bake(e, tol, size, c) == MR_OK);
    CHECK(c->tracks[0].t.key_count > 20);        /* eased: densified */
    CHECK(c->tracks[2].t.key_count == 0);        /* never keyed: rest */
    double worst_t = 0, worst_r = 0;
    for (int i = 0; i <= 2000; i++) {
        float t = 2.0f * i / 2000, want[4], got[4];
        mr_clip_edit_eval(e, 0, 0, t, want);
        mr_track_sample(&c->tracks[0].t, t, got);
        for (int k = 0; k < 3; k++) worst_t = fmax(worst_t, fabs(want[k] - got[k]));
        mr_clip_edit_eval(e, 1, 1, t, want);
        mr_track_sample(&c->tracks[1].r, t, got);
        double dp = 0, dm = 0;   /* angle = 4 asin(|q -+ p| / 2): no acos near 1 */
        for (int k = 0; k < 4; k++) {
            dp += (want[k] - got[k]) * (want[k] - got[k]);
            dm += (want[k] + got[k]) * (want[k] + got[k]);
        }
        worst_r = fmax(worst_r, 4 * asin(sqrt(fmin(dp, dm)) / 2) * size);
    }
    CHECK_MSG(worst_t <= tol * 1.01, "translation off by %g", worst_t);
    CHECK_MSG(worst_r <= tol * 1.01, "rotation off by %g", worst_r);

    /* bad keys */
    float nan3[3] = {NAN, 0, 0};
    CHECK(mr_clip_edit_key(e, 0, 0, NAN, t0, MR_EASE_LINEAR, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_clip_edit_key(e, 0, 0, INFINITY, t0, MR_EASE_LINEAR, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_clip_edit_key(e, 0, 0, 2.5f, t0, MR_EASE_LINEAR, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_clip_edit_key(e, 3, 0, 1.0f, t0, MR_EASE_LINEAR, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_clip_edit_key(e, 0, 0, 1.0f, nan3, MR_EASE_LINEAR, NULL) == MR_ERR_INVALID_ARGUMENT);
    float zero[4] = {0, 0, 0, 0}, badbz[4] = {1.5f, 0, 0.5f, 1};
    CHECK(mr_clip_edit_key(e, 0, 1, 1.0f, zero, MR_EASE_LINEAR, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_clip_edit_key(e, 0, 0, 1.0f, t0, MR_EASE_BEZIER, badbz) == MR_ERR_INVALID_ARGUMENT);
    mr_clip_edit *z = NULL;
    CHECK(mr_clip_edit_create(3, 0.0f, 30.0f, &z) == MR_ERR_INVALID_ARGUMENT && !z);

    /* edits: reverse twice is the original; retime scales times */
    mr_clip_edit *r1 = NULL, *r2 = NULL, *rt = NULL;
    CHECK(mr_clip_edit_reverse(e, &r1) == MR_OK && mr_clip_edit_reverse(r1, &r2) == MR_OK);
    for (int i = 0; i <= 40; i++) {
        float t = 2.0f * i / 40, a[4], b[4];
        mr_clip_edit_eval(e, 0, 0, t, a);
        mr_clip_edit_eval(r2, 0, 0, t, b);
        CHECK_NEAR(a[0], b[0], 1e-5);
        mr_clip_edit_eval(r1, 0, 0, 2.0f - t, b);
        CHECK_NEAR(a[0], b[0], 1e-5);
    }
    CHECK(mr_clip_edit_retime(e, 4.0f, &rt) == MR_OK && rt->ch[0].keys[1].time == 4.0f);
    mr_clip_edit_destroy(r1);
    mr_clip_edit_destroy(r2);
    mr_clip_edit_destroy(rt);
    mr_clip_destroy(c);
    mr_clip_edit_destroy(e);
    mr_skeleton_deinit(&sk);
}

TEST(reduction_reports_the_error_it_measures)
{
    mr_skeleton sk = {0};
    fixture_chain(&sk);
    mr_record rec;
    CHECK(mr_record_init(&rec, 3) == MR_OK);
    mr_pose p = {0};
    mr_pose_init(&p, 3);
    for (int f = 0; f <= 90; f++) {
        mr_pose_set_rest(&p, &sk);
        float t = f / 30.0f;
        glm_quatv(p.r[1], 1.2f * sinf(2.0f * t), (vec3){0, 0, 1});
        p.t[0][0] = 0.5f * t;   /* constant speed: reducible to 2 keys */
        CHECK(mr_record_capture(&rec, &sk, t, &p, NULL) == MR_OK);
    }
    CHECK(mr_record_capture(&rec, &sk, 1.0f, &p, NULL) == MR_ERR_INVALID_ARGUMENT);   /* back in time */
    mr_clip_edit *e = NULL, *full = NULL;
    mr_record_result res, rf;
    float tol = 1e-3f;
    CHECK(mr_record_reduce(&rec, &sk, tol, 2.0f, 30.0f, &e, &res, NULL) == MR_OK);
    CHECK(mr_record_reduce(&rec, &sk, 0.0f, 2.0f, 30.0f, &full, &rf, NULL) == MR_OK);
    CHECK(res.keys_kept < res.keys_total && rf.keys_kept == rf.keys_total && rf.error == 0.0f);
    CHECK(e->ch[0].count == 2);   /* the root's straight line */
    CHECK(res.error > 0 && res.error <= tol);
    mr_clip *a = NULL, *b = NULL;
    mr_clip_create("a", 3, &a);
    mr_clip_create("b", 3, &b);
    mr_clip_edit_bake(e, 1e-6f, 2.0f, a);
    mr_clip_edit_bake(full, 1e-6f, 2.0f, b);
    float err = 0;
    int checks = 0;
    CHECK(mr_record_measure(a, b, &sk, rec.times, rec.count, 3.0f, (float)(MR_CLIP_POINT_DISTANCE * 2.0f), &err,
                            &checks) == MR_OK);
    CHECK_NEAR(err, res.error, 1e-9);
    CHECK(checks == 91 + 90 + MR_RECORD_CHECKS);
    mr_clip_destroy(a);
    mr_clip_destroy(b);
    mr_clip_edit_destroy(e);
    mr_clip_edit_destroy(full);
    mr_pose_deinit(&p);
    mr_record_deinit(&rec);
    mr_skeleton_deinit(&sk);
}

/* A clip that only turns the leaf joint (a hand turning): no joint origin
 * moves, so a measure of origins sees nothing; the recorder's measure (the
 * runtime's virtual points, anim/points.h) reports what the reduction
 * leaves, checked here against the leaf's axes computed from the baked
 * clips at every capture time and midpoint. */
TEST(reduction_of_a_turning_leaf_reports_the_error_it_leaves)
{
    mr_skeleton sk = {0};
    fixture_chain(&sk);
    mr_record rec;
    CHECK(mr_record_init(&rec, 3) == MR_OK);
    mr_pose p = {0};
    mr_pose_init(&p, 3);
    for (int f = 0; f <= 90; f++) {
        mr_pose_set_rest(&p, &sk);
        float t = f / 30.0f;
        glm_quatv(p.r[2], 1.5f * sinf(3.0f * t), (vec3){1, 0, 0});   /* twist about the bone */
        CHECK(mr_record_capture(&rec, &sk, t, &p, NULL) == MR_OK);
    }
    const float size = 2.0f, tol = 1e-3f;
    mr_clip_edit *e = NULL, *full = NULL;
    mr_record_result res, rf;
    CHECK(mr_record_reduce(&rec, &sk, tol, size, 30.0f, &e, &res, NULL) == MR_OK);
    CHECK(mr_record_reduce(&rec, &sk, 0.0f, size, 30.0f, &full, &rf, NULL) == MR_OK);
    CHECK_MSG(res.keys_kept < res.keys_total, "kept %d of %d", res.keys_kept, res.keys_total);
    mr_clip *a = NULL, *b = NULL;
    mr_clip_create("a", 3, &a);
    mr_clip_create("b", 3, &b);
    mr_clip_edit_bake(e, 1e-6f, size, a);
    mr_clip_edit_bake(full, 1e-6f, size, b);
    /* independently: where the leaf's axes put a point d along each */
    double d = MR_CLIP_POINT_DISTANCE * size, worst = 0, origins = 0;
    mr_pose pa = {0}, pb = {0};
    mr_pose_init(&pa, 3);
    mr_pose_init(&pb, 3);
    mat4 ma[3], mb[3];
    for (int k = 0; k < 2 * rec.count - 1; k++) {
        float t = k % 2 ? 0.5f * (rec.times[k / 2] + rec.times[k / 2 + 1]) : rec.times[k / 2];
        mr_clip_sample(a, &sk, t, MR_WRAP_CLAMP, &pa);
        mr_clip_sample(b, &sk, t, MR_WRAP_CLAMP, &pb);
        mr_pose_to_model(&sk, &pa, ma);
        mr_pose_to_model(&sk, &pb, mb);
        for (int j = 0; j < 3; j++)
            origins = fmax(origins, glm_vec3_distance(ma[j][3], mb[j][3]));
        for (int ax = 0; ax < 3; ax++) {
            vec3 u, v;
            glm_vec3_scale(ma[2][ax], (float)d, u);
            glm_vec3_scale(mb[2][ax], (float)d, v);
            worst = fmax(worst, glm_vec3_distance(u, v));
        }
    }
    CHECK_MSG(origins < 1e-6, "joint origins moved by %g", origins);
    CHECK_MSG(worst > 1e-6, "the dropped keys leave no error to report (%g)", worst);
    CHECK_MSG(res.error > 0.0f && res.error >= 0.999 * worst && res.error <= tol,
              "reported %g, measured at the leaf's axes %g, tolerance %g", (double)res.error, worst, (double)tol);
    mr_pose_deinit(&pa);
    mr_pose_deinit(&pb);
    mr_clip_destroy(a);
    mr_clip_destroy(b);
    mr_clip_edit_destroy(e);
    mr_clip_edit_destroy(full);
    mr_pose_deinit(&p);
    mr_record_deinit(&rec);
    mr_skeleton_deinit(&sk);
}

/* Three meshes: the first with 2 targets (rest 0.25, 0.5), the second none,
 * a third with 1 (rest 0): weights 0, 1 on mesh 0 and 2 on mesh 2. */
static const int TARGETS[3] = {2, 0, 1};
static const float REST[3] = {0.25f, 0.5f, 0.0f};

TEST(weight_keys_bake_into_morph_tracks_and_follow_edits)
{
    mr_clip_edit *e = NULL, *t = NULL, *r = NULL, *a = NULL, *c = NULL;
    CHECK(mr_clip_edit_create(3, 2.0f, 30.0f, &e) == MR_OK);
    float one = 1.0f;
    CHECK(mr_clip_edit_key(e, 0, MR_EDIT_WEIGHT, 0.0f, &one, MR_EASE_LINEAR, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_clip_edit_set_weights(e, 3, TARGETS, REST) == MR_OK && e->weight_count == 3);
    float w0 = 0.0f, w1 = 1.0f, w2 = 0.4f, nan = NAN;
    CHECK(mr_clip_edit_key(e, 0, MR_EDIT_WEIGHT, 0.0f, &w0, MR_EASE_IN_OUT_CUBIC, NULL) == MR_OK);
    CHECK(mr_clip_edit_key(e, 0, MR_EDIT_WEIGHT, 2.0f, &w1, MR_EASE_LINEAR, NULL) == MR_OK);
    CHECK(mr_clip_edit_key(e, 2, MR_EDIT_WEIGHT, 0.5f, &w2, MR_EASE_STEP, NULL) == MR_OK);
    CHECK(mr_clip_edit_key(e, 2, MR_EDIT_WEIGHT, 1.5f, &w1, MR_EASE_LINEAR, NULL) == MR_OK);
    CHECK(mr_clip_edit_key(e, 3, MR_EDIT_WEIGHT, 0.0f, &w1, MR_EASE_LINEAR, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_clip_edit_key(e, 1, MR_EDIT_WEIGHT, 0.0f, &nan, MR_EASE_LINEAR, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_clip_edit_has_weight_keys(e));
    mr_clip *clip = NULL;
    CHECK(mr_clip_create("w", 3, &clip) == MR_OK);
    CHECK(mr_clip_edit_bake(e, 1e-4f, 1.0f, clip) == MR_OK);
    CHECK(clip->morph && clip->morph->channel_count == 2);
    const mr_morph_channel *m0 = mr_morph_tracks_find(clip->morph, 0), *m2 = mr_morph_tracks_find(clip->morph, 2);
    CHECK(m0 && m2 && !mr_morph_tracks_find(clip->morph, 1));
    if (m0 && m2) {
        CHECK(m0->target_count == 2 && m0->interp == MR_INTERP_LINEAR && m0->key_count > 2);
        CHECK(m2->target_count == 1 && m2->interp == MR_INTERP_STEP && m2->key_count == 2);
        float w[2], worst = 0.0f;
        for (int i = 0; i <= 200; i++) {
            float time = i / 100.0f, want;
            mr_morph_channel_sample(m0, time, w);
            CHECK(mr_clip_edit_eval(e, 0, MR_EDIT_WEIGHT, time, &want));
            worst = fmaxf(worst, fabsf(w[0] - want));
            CHECK_NEAR(w[1], 0.5f, 1e-7);   /* unkeyed: the rest */
        }
        CHECK(worst <= MR_CLIP_EDIT_WEIGHT_TOLERANCE);
        mr_morph_channel_sample(m2, 1.49f, w);
        CHECK_NEAR(w[0], 0.4f, 1e-7);
    }
    /* Edits carry the weights: trim, reverse, append, copy. */
    CHECK(mr_clip_edit_trim(e, 1.0f, 2.0f, 1e-4f, 1.0f, &t) == MR_OK);
    float v = -1.0f, want = -2.0f;
    if (t) {
        CHECK(mr_clip_edit_eval(t, 0, MR_EDIT_WEIGHT, 0.25f, &v) && mr_clip_edit_eval(e, 0, MR_EDIT_WEIGHT, 1.25f, &want));
        CHECK_NEAR(v, want, MR_CLIP_EDIT_WEIGHT_TOLERANCE);
    }
    CHECK(mr_clip_edit_reverse(e, &r) == MR_OK);
    if (r) {
        CHECK(mr_clip_edit_eval(r, 2, MR_EDIT_WEIGHT, 0.2f, &v));
        CHECK_NEAR(v, 1.0f, 1e-7);
    }
    CHECK(mr_clip_edit_copy(e, &c) == MR_OK && c->weight_count == 3 && c->w[0].count == 2);
    CHECK(mr_clip_edit_append(e, c, &a) == MR_OK && a->w[2].count == 5);  /* 2 + a's hold at 2 s + 2 */
    mr_clip_edit *plain = NULL, *bad = NULL;
    mr_clip_edit_create(3, 1.0f, 30.0f, &plain);
    CHECK(mr_clip_edit_append(e, plain, &bad) == MR_ERR_INVALID_ARGUMENT);
    /* Removing the weight keys removes the morph tracks. */
    CHECK(mr_clip_edit_remove(c, 0, MR_EDIT_WEIGHT, 0.0f) == 1 && mr_clip_edit_remove(c, 0, MR_EDIT_WEIGHT, 2.0f) == 1);
    CHECK(mr_clip_edit_remove(c, 2, -1, 0.5f) == 0);   /* -1: joint channels only */
    mr_clip_edit_remove(c, 2, MR_EDIT_WEIGHT, 0.5f);
    mr_clip_edit_remove(c, 2, MR_EDIT_WEIGHT, 1.5f);
    CHECK(!mr_clip_edit_has_weight_keys(c));
    CHECK(mr_clip_edit_bake(c, 1e-4f, 1.0f, clip) == MR_OK && clip->morph == NULL);
    mr_clip_destroy(clip);
    mr_clip_edit_destroy(plain);
    mr_clip_edit_destroy(a);
    mr_clip_edit_destroy(c);
    mr_clip_edit_destroy(r);
    mr_clip_edit_destroy(t);
    mr_clip_edit_destroy(e);
}

TEST(recorded_weights_reduce_within_their_tolerance)
{
    mr_skeleton sk = {0};
    fixture_chain(&sk);
    mr_record rec;
    CHECK(mr_record_init(&rec, 3) == MR_OK);
    CHECK(mr_record_set_weights(&rec, 3, TARGETS, REST) == MR_OK);
    mr_pose p = {0};
    mr_pose_init(&p, 3);
    mr_pose_set_rest(&p, &sk);
    float live[91];
    for (int f = 0; f <= 90; f++) {
        float time = f / 30.0f, w[3] = {0.5f + 0.5f * sinf(2.0f * time), 0.5f, f < 45 ? 0.0f : 1.0f};
        live[f] = w[0];
        CHECK(mr_record_capture(&rec, &sk, time, &p, NULL) == MR_OK);
        CHECK(mr_record_weights(&rec, w) == MR_OK);
    }
    mr_clip_edit *e = NULL;
    mr_record_result res;
    CHECK(mr_record_reduce(&rec, &sk, 1e-3f, 2.0f, 30.0f, &e, &res, NULL) == MR_OK);
    CHECK(res.weight_error > 0.0f && res.weight_error <= MR_RECORD_WEIGHT_TOLERANCE);
    if (e) {
        CHECK(e->weight_count == 3 && e->w[1].count == 0);   /* never left its rest */
        CHECK(e->w[0].count > 2 && e->w[0].count < 91);
        CHECK(e->w[2].count >= 3 && e->w[2].count <= 4);     /* a hold and a jump */
        float worst = 0.0f, v;
        for (int f = 0; f <= 90; f++) {
            CHECK(mr_clip_edit_eval(e, 0, MR_EDIT_WEIGHT, f / 30.0f, &v));
            worst = fmaxf(worst, fabsf(v - live[f]));
        }
        CHECK(worst <= MR_RECORD_WEIGHT_TOLERANCE);
    }
    mr_clip_edit_destroy(e);
    mr_pose_deinit(&p);
    mr_record_deinit(&rec);
    mr_skeleton_deinit(&sk);
}

TEST(bvh_euler_zxy_rebuilds_the_rotation)
{
    for (int i = 0; i < 50; i++) {
        versor q;
        vec3 axis = {sinf(i * 1.3f), cosf(i * 0.7f), sinf(i * 2.1f + 0.3f)};
        glm_vec3_normalize(axis);
        glm_quatv(q, 0.13f * i - 3.0f, axis);
        double e[3];
        mr_bvh_euler_zxy(q, e);
        versor rz, rx, ry, t, back;
        glm_quatv(rz, (float)(e[2] / 57.29577951308232), (vec3){0, 0, 1});
        glm_quatv(rx, (float)(e[0] / 57.29577951308232), (vec3){1, 0, 0});
        glm_quatv(ry, (float)(e[1] / 57.29577951308232), (vec3){0, 1, 0});
        glm_quat_mul(rz, rx, t);
        glm_quat_mul(t, ry, back);
        CHECK_MSG(fabsf(glm_quat_dot(q, back)) > 1.0f - 1e-6f, "rotation %d", i);
    }
}

int main(void)
{
    RUN(eases_meet_their_ends_and_mirror);
    RUN(baked_eased_channels_stay_within_tolerance_between_keys);
    RUN(reduction_reports_the_error_it_measures);
    RUN(reduction_of_a_turning_leaf_reports_the_error_it_leaves);
    RUN(weight_keys_bake_into_morph_tracks_and_follow_edits);
    RUN(recorded_weights_reduce_within_their_tolerance);
    RUN(bvh_euler_zxy_rebuilds_the_rotation);
    return test_summary("clip_edit");
}
