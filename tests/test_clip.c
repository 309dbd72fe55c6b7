/* test_clip.c — mr_clip: allocation, validation, wrapping and sampling. */
#include "anim/clip_interp.h"
#include "anim/clip_runtime.h"
#include "anim_fixture.h"
#include "core/file.h"
#include "core/str.h"
#include "test.h"

static float angle_about_z(const float *q) { return 2.0f * atan2f(q[2], q[3]); }

TEST(clip_sample_interpolates_rotation_and_translation)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_clip *c = fixture_clip();
    mr_pose p;
    mr_pose_init(&p, 3);
    CHECK(mr_clip_sample(c, &sk, 0.25f, MR_WRAP_CLAMP, &p) == MR_OK);
    /* nlerp between 0 and 45 degrees at the midpoint is exactly 22.5. */
    CHECK_NEAR(glm_deg(angle_about_z(p.r[1])), 22.5, 1e-3);
    CHECK_NEAR(p.t[0][1], 0.5, 1e-6);
    /* Untracked channels keep the rest pose. */
    CHECK_NEAR(p.t[1][0], 1.0, 1e-6);
    CHECK_NEAR(p.r[2][3], 1.0, 1e-6);
    CHECK_NEAR(p.s[1][0], 1.0, 1e-6);
    mr_pose_deinit(&p);
    mr_clip_destroy(c);
    mr_skeleton_deinit(&sk);
}

TEST(clip_sample_clamps_outside_keys)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_clip *c = fixture_clip();
    mr_pose p;
    mr_pose_init(&p, 3);
    mr_clip_sample(c, &sk, -5.0f, MR_WRAP_CLAMP, &p);
    CHECK_NEAR(angle_about_z(p.r[1]), 0.0, 1e-6);
    mr_clip_sample(c, &sk, 7.0f, MR_WRAP_CLAMP, &p);
    CHECK_NEAR(glm_deg(angle_about_z(p.r[1])), 90.0, 1e-3);
    CHECK_NEAR(p.t[0][1], 2.0, 1e-6);
    mr_pose_deinit(&p);
    mr_clip_destroy(c);
    mr_skeleton_deinit(&sk);
}

TEST(clip_sample_loops)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_clip *c = fixture_clip();
    mr_pose p;
    mr_pose_init(&p, 3);
    mr_clip_sample(c, &sk, 2.25f, MR_WRAP_LOOP, &p);
    CHECK_NEAR(p.t[0][1], 0.5, 1e-5);
    mr_clip_sample(c, &sk, -0.75f, MR_WRAP_LOOP, &p);   /* negative time wraps too */
    CHECK_NEAR(p.t[0][1], 0.5, 1e-5);
    CHECK_NEAR(mr_clip_wrap_time(c, 3.0f, MR_WRAP_LOOP), 0.0, 1e-6);
    CHECK_NEAR(mr_clip_wrap_time(c, 3.0f, MR_WRAP_CLAMP), 1.0, 1e-6);
    mr_pose_deinit(&p);
    mr_clip_destroy(c);
    mr_skeleton_deinit(&sk);
}

TEST(clip_sample_nan_time_leaves_pose)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_clip *c = fixture_clip();
    mr_pose p;
    mr_pose_init(&p, 3);
    p.t[0][0] = 42.0f;
    CHECK(mr_clip_sample(c, &sk, NAN, MR_WRAP_LOOP, &p) == MR_ERR_BAD_TIME);
    CHECK(mr_clip_sample(c, &sk, INFINITY, MR_WRAP_CLAMP, &p) == MR_ERR_BAD_TIME);
    CHECK(p.t[0][0] == 42.0f);
    mr_pose_deinit(&p);
    mr_clip_destroy(c);
    mr_skeleton_deinit(&sk);
}

TEST(clip_sample_mismatched_joint_counts)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_clip *c = NULL;
    mr_clip_create("short", 2, &c);
    mr_pose p, small;
    mr_pose_init(&p, 3);
    mr_pose_init(&small, 2);
    CHECK(mr_clip_sample(c, &sk, 0, MR_WRAP_CLAMP, &p) == MR_ERR_JOINT_COUNT);
    mr_clip *ok = fixture_clip();
    CHECK(mr_clip_sample(ok, &sk, 0, MR_WRAP_CLAMP, &small) == MR_ERR_JOINT_COUNT);
    CHECK(mr_clip_sample(NULL, &sk, 0, MR_WRAP_CLAMP, &p) == MR_ERR_INVALID_ARGUMENT);
    mr_pose_deinit(&p);
    mr_pose_deinit(&small);
    mr_clip_destroy(c);
    mr_clip_destroy(ok);
    mr_skeleton_deinit(&sk);
}

TEST(clip_empty_clip_is_refused)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_clip *c = NULL;
    mr_clip_create("empty", 0, &c);
    mr_pose p;
    mr_pose_init(&p, 3);
    mr_error err = {0};
    CHECK(mr_clip_sample(c, &sk, 0, MR_WRAP_CLAMP, &p) == MR_ERR_EMPTY_CLIP);
    CHECK(mr_clip_validate(c, &err) == MR_ERR_EMPTY_CLIP);
    CHECK_STR_CONTAINS(err.msg, "empty");
    mr_pose_deinit(&p);
    mr_clip_destroy(c);
    mr_skeleton_deinit(&sk);
}

TEST(clip_create_refuses_joint_counts_out_of_range)
{
    mr_clip *c = (mr_clip *)&c;        /* *out is cleared on failure */
    CHECK(mr_clip_create("neg", -1, &c) == MR_ERR_INVALID_ARGUMENT);
    CHECK(c == NULL);
    CHECK(mr_clip_create("big", MR_MAX_JOINTS + 1, &c) == MR_ERR_INVALID_ARGUMENT && c == NULL);
    CHECK(mr_clip_create(NULL, MR_MAX_JOINTS, &c) == MR_OK);
    CHECK(c && c->joint_count == MR_MAX_JOINTS && !strcmp(c->name, "clip"));
    mr_clip_destroy(c);
}

TEST(clip_zero_length_clip_holds_its_only_pose)
{
    /* A 1-frame clip: duration 0, looping must not divide by zero. */
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_clip *c = NULL;
    mr_clip_create("still", 3, &c);
    mr_track *t = &c->tracks[2].t;
    mr_track_init(t, 1, MR_INTERP_LINEAR);
    t->values[0] = 5.0f;
    mr_pose p;
    mr_pose_init(&p, 3);
    mr_error err = {0};
    CHECK(mr_clip_validate(c, &err) == MR_OK);
    CHECK(mr_clip_sample(c, &sk, 3.7f, MR_WRAP_LOOP, &p) == MR_OK);
    CHECK(p.t[2][0] == 5.0f);
    CHECK(mr_clip_wrap_time(c, 3.7f, MR_WRAP_LOOP) == 0.0f);
    mr_pose_deinit(&p);
    mr_clip_destroy(c);
    mr_skeleton_deinit(&sk);
}

TEST(clip_validate_rejects_bad_keys)
{
    mr_clip *c = fixture_clip();
    mr_error err = {0};
    CHECK(mr_clip_validate(c, &err) == MR_OK);
    c->tracks[1].r.times[2] = 0.5f;  /* not strictly ascending */
    CHECK(mr_clip_validate(c, &err) != MR_OK);
    CHECK_STR_CONTAINS(err.msg, "does not follow");
    c->tracks[1].r.times[2] = NAN;
    CHECK(mr_clip_validate(c, &err) == MR_ERR_BAD_TIME);
    c->tracks[1].r.times[2] = 1.0f;
    c->tracks[0].t.values[1] = INFINITY;
    CHECK(mr_clip_validate(c, &err) != MR_OK);
    CHECK_STR_CONTAINS(err.msg, "not finite");
    c->tracks[0].t.values[1] = 0;
    for (int k = 0; k < 4; k++) c->tracks[1].r.values[4 + k] = 0;
    CHECK(mr_clip_validate(c, &err) != MR_OK);
    CHECK_STR_CONTAINS(err.msg, "zero quaternion");
    c->tracks[1].r.values[7] = 1;
    c->duration = NAN;
    CHECK(mr_clip_validate(c, &err) != MR_OK);
    mr_clip_destroy(c);
    CHECK(mr_clip_validate(NULL, &err) == MR_ERR_INVALID_ARGUMENT);
}

/* validate_track first asks a whole-track test (track_passes) that may
 * only accept what the key-by-key checks accept: each case here is one
 * its shortcuts (the first and last times finite, a rotation's values
 * finite through its norm, the zero sum of v * 0) must still refuse with
 * the key-by-key message, and a finite quaternion whose squared norm
 * overflows a float must still pass. */
TEST(clip_validate_whole_track_test_agrees)
{
    mr_clip *c = fixture_clip();
    mr_error err = {0};
    mr_track *r = &c->tracks[1].r;
    const float inf_times[] = {INFINITY, -INFINITY, NAN};  /* times, then values */
    for (int k = 0; k < 3; k++) {
        r->times[1] = inf_times[k];
        CHECK(mr_clip_validate(c, &err) == MR_ERR_BAD_TIME);
        CHECK_STR_CONTAINS(err.msg, "key 1");
    }
    r->times[1] = 1e-7f;  /* closer to key 0 than the interval */
    CHECK(mr_clip_validate(c, &err) == MR_ERR_BAD_TIME);
    CHECK_STR_CONTAINS(err.msg, "less than");
    r->times[1] = 0.5f;
    CHECK(mr_clip_validate(c, &err) == MR_OK);
    float keep = r->values[5];
    for (int k = 0; k < 3; k++) {
        r->values[5] = inf_times[k];
        CHECK(mr_clip_validate(c, &err) == MR_ERR_INVALID_ARGUMENT);
        CHECK_STR_CONTAINS(err.msg, "key 1: value is not finite");
    }
    r->values[5] = keep;
    float q[4];
    memcpy(q, r->values + 8, sizeof q);
    r->values[8] = 1e20f;  /* finite, its squared norm beyond a float */
    CHECK(mr_clip_validate(c, &err) == MR_OK);
    memcpy(r->values + 8, q, sizeof q);
    /* cubic: a tangent (not the value) infinite */
    mr_track *cu = &c->tracks[2].r;
    CHECK(mr_track_init(cu, 2, MR_INTERP_CUBIC) == MR_OK);
    cu->times[0] = 0;
    cu->times[1] = 1;
    for (int k = 0; k < 2; k++) cu->values[12 * k + 7] = 1;  /* identity values, zero tangents */
    CHECK(mr_clip_validate(c, &err) == MR_OK);
    cu->values[12 + 9] = INFINITY;  /* key 1's out-tangent */
    CHECK(mr_clip_validate(c, &err) == MR_ERR_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err.msg, "joint 2 rotation key 1: value is not finite");
    mr_clip_destroy(c);
}

/* mr_track_init_unset: the same track as mr_track_init but for zeroing
 * (a caller writing every key), the same refusals. */
TEST(track_init_unset_allocates_as_init_does)
{
    mr_track a = {.components = 4}, b = {.components = 4};
    CHECK(mr_track_init(&a, 5, MR_INTERP_CUBIC) == MR_OK);
    CHECK(mr_track_init_unset(&b, 5, MR_INTERP_CUBIC) == MR_OK);
    CHECK(b.key_count == a.key_count && b.interp == a.interp && b.times && b.values);
    for (int i = 0; i < 5; i++) b.times[i] = (float)i;
    for (int i = 0; i < 5 * 12; i++) b.values[i] = 1.0f;  /* 12 floats a cubic rotation key: all there */
    CHECK(b.values[59] == 1.0f);
    CHECK(mr_track_init_unset(&b, -1, MR_INTERP_LINEAR) == MR_ERR_INVALID_ARGUMENT && !b.times && !b.values && !b.key_count);
    CHECK(mr_track_init_unset(&b, 0, MR_INTERP_LINEAR) == MR_OK && b.key_count == 0);
    mr_track_init(&a, 0, MR_INTERP_LINEAR);
    free(a.times);
    free(a.values);
    free(b.times);
    free(b.values);
}

TEST(clip_rotation_takes_shortest_path)
{
    /* Keys q and -q' an angle apart: interpolation must not swing the long way. */
    mr_track tr = {.components = 4};
    mr_track_init(&tr, 2, MR_INTERP_LINEAR);
    tr.times[0] = 0;
    tr.times[1] = 1;
    versor a, b;
    glm_quatv(a, glm_rad(170.0f), (vec3){0, 0, 1});
    glm_quatv(b, glm_rad(-170.0f), (vec3){0, 0, 1});  /* 20 degrees further on */
    glm_vec4_copy(a, tr.values);
    glm_vec4_copy(b, tr.values + 4);
    mr_track_finish(&tr);
    float q[4];
    mr_track_sample(&tr, 0.5f, q);
    float deg = glm_deg(angle_about_z(q));
    if (deg < 0) deg += 360.0f;
    CHECK_NEAR(fmod(deg, 360.0), 180.0, 1e-2);
    CHECK_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0, 1e-5);
    free(tr.times);
    free(tr.values);
}

TEST(clip_step_and_cubic_interpolation)
{
    mr_track st = {.components = 3};
    mr_track_init(&st, 2, MR_INTERP_STEP);
    st.times[1] = 1;
    st.values[3] = 10;
    float v[4];
    mr_track_sample(&st, 0.99f, v);
    CHECK(v[0] == 0.0f);
    mr_track_sample(&st, 1.0f, v);
    CHECK(v[0] == 10.0f);
    free(st.times);
    free(st.values);

    /* Hermite with zero tangents is smoothstep: 0.5 at the middle, 0.15625*k at 0.25. */
    mr_track cu = {.components = 3};
    mr_track_init(&cu, 2, MR_INTERP_CUBIC);
    cu.times[1] = 2;
    cu.values[9 + 3] = 8;  /* key 1 value.x */
    mr_track_sample(&cu, 1.0f, v);
    CHECK_NEAR(v[0], 4.0, 1e-5);
    mr_track_sample(&cu, 0.5f, v);
    CHECK_NEAR(v[0], 8.0 * (3 * 0.0625 - 2 * 0.015625), 1e-5);
    /* A linear-consistent tangent (slope 4/s) gives a straight line. */
    cu.values[6] = 4;       /* key 0 out-tangent.x */
    cu.values[9 + 0] = 4;   /* key 1 in-tangent.x */
    mr_track_sample(&cu, 0.5f, v);
    CHECK_NEAR(v[0], 2.0, 1e-5);
    free(cu.times);
    free(cu.values);
}

TEST(clip_uniform_lookup_matches_binary_search)
{
    /* Evenly spaced keys take the O(1) path; the result must equal the search. */
    mr_track a = {.components = 3}, b = {.components = 3};
    int n = 97;
    mr_track_init(&a, n, MR_INTERP_LINEAR);
    mr_track_init(&b, n, MR_INTERP_LINEAR);
    for (int i = 0; i < n; i++) {
        a.times[i] = b.times[i] = 0.25f + i / 24.0f;
        a.values[3 * i] = b.values[3 * i] = sinf(i * 0.7f);
    }
    mr_track_finish(&a);
    CHECK_NEAR(a.uniform_rate, 24.0, 1e-3);
    CHECK(b.uniform_rate == 0.0f);  /* never finished: binary search */
    for (int k = 0; k <= 1000; k++) {
        float t = -0.1f + k * 0.0045f, va[3], vb[3];
        mr_track_sample(&a, t, va);
        mr_track_sample(&b, t, vb);
        CHECK_MSG(va[0] == vb[0], "t=%g: %g vs %g", t, va[0], vb[0]);
    }
    a.times[5] += 0.01f;  /* uneven: no fast path */
    mr_track_finish(&a);
    CHECK(a.uniform_rate == 0.0f);
    free(a.times); free(a.values); free(b.times); free(b.values);
}

/* A clip with a shared time line: 5 joints (a padded SIMD lane), animated
 * rotations and translations, one constant track, untracked channels. */
static mr_clip *shared_line_clip(void)
{
    mr_clip *c = NULL;
    mr_clip_create("line", 5, &c);
    c->duration = 2.0f;
    for (int j = 0; j < 5; j++) {
        mr_track *r = &c->tracks[j].r, *t = &c->tracks[j].t;
        mr_track_init(r, 9, MR_INTERP_LINEAR);
        for (int k = 0; k < 9; k++) {
            r->times[k] = k * 0.25f;
            versor q;
            glm_quatv(q, 0.9f * k + j, (vec3){0.3f, 0.4f * j, 1});
            if (k % 3 == 1) glm_vec4_negate(q);  /* sign flips exercise the shortest path */
            memcpy(r->values + 4 * k, q, sizeof q);
        }
        if (j == 3) continue;                  /* joint 3: translation keeps the rest pose */
        mr_track_init(t, j == 4 ? 1 : 9, MR_INTERP_LINEAR);
        for (int k = 0; k < t->key_count; k++) {
            t->times[k] = k * 0.25f;
            for (int e = 0; e < 3; e++) t->values[3 * k + e] = sinf(k + e + j);
        }
    }
    return c;
}

/* Rotation angle (radians) between two quaternions. */
static double quat_angle(const float *a, const float *b)
{
    double d = 0, m = 0, p = 0;
    for (int c = 0; c < 4; c++) d += (double)a[c] * b[c];
    for (int c = 0; c < 4; c++) {
        double bc = d < 0 ? -b[c] : b[c];
        m += (a[c] - bc) * (a[c] - bc);
        p += (a[c] + bc) * (a[c] + bc);
    }
    return 4 * atan2(sqrt(m), sqrt(p));   /* robust for small angles, unlike acos */
}

TEST(clip_finish_shared_line_samples_identically)
{
    mr_skeleton sk;
    mr_skeleton_init(&sk, 5);
    for (int j = 0; j < 5; j++) {
        sk.names[j] = mr_str_fmt("j%d", j);
        sk.rest_t[j][1] = 7.0f + j;
    }
    mr_clip *fast = shared_line_clip();
    mr_clip_finish(fast);
    /* 0.9 rad keys: the refinement cuts the shared line, keeping it shared. */
    mr_clip_runtime *rt = fast->runtime;
    CHECK(rt && rt->played != NULL && rt->keys_added > 0);
    CHECK(rt && rt->shared_keys > 9 && mr_clip_key_count(fast) == 9);
    CHECK(rt && rt->dense != NULL);
    if (!rt) return;
    mr_pose a, b;
    mr_pose_init(&a, 5);
    mr_pose_init(&b, 5);
    mr_pose *dense = calloc(233, sizeof *dense);
    for (int s = 0; s < 233; s++) {
        mr_pose_init(&dense[s], 5);
        mr_clip_sample(fast, &sk, (s - 3) * 0.01f, MR_WRAP_CLAMP, &dense[s]);
    }
    /* The same refined keys through the per-track shared path. */
    struct mr_clip_dense *bake = rt->dense;
    rt->dense = NULL;
    int same = 1;
    double worst = 0;
    for (int s = 0; s < 233; s++) {
        float t = (s - 3) * 0.01f;
        mr_clip_sample(fast, &sk, t, MR_WRAP_CLAMP, &b);
        mr_pose *d = &dense[s];
        if (memcmp(d->r, b.r, 5 * sizeof *b.r) || memcmp(d->t, b.t, 5 * sizeof *b.t) ||
            memcmp(d->s, b.s, 5 * sizeof *b.s))
            same = 0;
        for (int j = 0; j < 5; j++) {   /* and both within budget of exact slerp */
            float q[4];
            mr_track_sample(&fast->tracks[j].r, mr_clip_wrap_time(fast, t, MR_WRAP_CLAMP), q);
            double e = quat_angle(q, b.r[j]);
            if (e > worst) worst = e;
        }
        mr_pose_deinit(d);
    }
    free(dense);
    rt->dense = bake;
    CHECK_MSG(same, "the baked shared-line path differs from per-track sampling");
    CHECK_MSG(worst <= MR_CLIP_DEFAULT_MAX_ANGLE + 2e-6, "refined nlerp is %g rad from slerp", worst);
    CHECK(b.t[3][1] == 10.0f);  /* untracked channel: the rest value */
    /* A non-shared clip (one track with different times) is not baked. */
    fast->tracks[2].t.times[4] += 0.01f;
    mr_clip_finish(fast);
    CHECK(fast->runtime->shared_keys == 0 && fast->runtime->dense == NULL);
    mr_pose_deinit(&a);
    mr_pose_deinit(&b);
    mr_clip_destroy(fast);
    mr_skeleton_deinit(&sk);
}

/* The split of issue 29: the builder writes the runtime only. The source
 * tracks keep their arrays and values, the key count stays the file's, and
 * the refinement's keys are the runtime's played keys. */
TEST(clip_finish_builds_the_runtime_and_leaves_the_source_keys)
{
    mr_clip *c = shared_line_clip();
    CHECK(c->runtime == NULL);   /* nothing built before mr_clip_finish */
    const float *times = c->tracks[2].r.times, *values = c->tracks[2].r.values;
    float before[9 * 4];
    memcpy(before, values, sizeof before);
    mr_clip_finish(c);
    mr_clip_finish(c);   /* a rebuild replaces what the first built */
    const mr_clip_runtime *rt = c->runtime;
    CHECK(rt && rt->joint_count == 5 && rt->played && rt->keys_added > 0);
    CHECK(c->tracks[2].r.times == times && c->tracks[2].r.values == values);
    CHECK(c->tracks[2].r.key_count == 9 && memcmp(values, before, sizeof before) == 0);
    CHECK(mr_clip_key_count(c) == 9);
    CHECK(rt && mr_clip_track(c, 2, 1) == &rt->played[2].r && mr_clip_track(c, 2, 1)->key_count > 9);
    CHECK(mr_clip_track(c, 4, 0) == &c->tracks[4].t);   /* one key: the source track plays */
    mr_clip_destroy(c);
}

/* Budgets are settings of the runtime: given before the first build, kept
 * across rebuilds; a clip given settings but never finished frees them. */
TEST(clip_runtime_settings_survive_rebuilds)
{
    mr_clip *c = shared_line_clip();
    float angle[5] = {1e-3f, 1e-3f, 1e-3f, 1e-3f, 1e-3f};
    CHECK(mr_clip_set_max_angle(c, angle) == MR_OK);
    CHECK(c->runtime && c->runtime->played == NULL && c->runtime->shared_keys == 0);
    CHECK(mr_clip_optimize(c, 2e-4f) == MR_OK);
    mr_clip_finish(c);
    CHECK(c->runtime->thin_tolerance == 2e-4f && c->runtime->max_angle &&
          memcmp(c->runtime->max_angle, angle, sizeof angle) == 0);
    CHECK(mr_clip_set_max_angle(c, NULL) == MR_OK && c->runtime->max_angle == NULL);
    mr_clip_destroy(c);
    mr_clip *unfinished = shared_line_clip();
    CHECK(mr_clip_set_max_move(unfinished, angle) == MR_OK);
    mr_clip_destroy(unfinished);   /* ASan: the runtime and its budget are freed */
}

/* One direction of calls: the source clip's file knows nothing of the
 * runtime's parts, and the builder's parts never call the builder back. */
TEST(clip_source_and_runtime_call_one_way)
{
    static const char *const forbidden[][2] = {
        {"src/anim/clip.c", "#include \"anim/clip_runtime.h\""},
        {"src/anim/clip.c", "#include \"anim/clip_optimize.h\""},
        {"src/anim/clip.c", "#include \"anim/clip_dense.h\""},
        {"src/anim/clip.h", "#include \"anim/clip_runtime.h\""},
        {"src/anim/clip.c", "mr_clip_runtime_"},
        {"src/anim/clip_optimize.c", "mr_clip_finish("}, {"src/anim/clip_optimize.c", "mr_clip_optimize("},
        {"src/anim/clip_dense.c", "mr_clip_finish("},    {"src/anim/clip_dense.c", "mr_clip_thin("},
    };
    for (size_t i = 0; i < sizeof forbidden / sizeof forbidden[0]; i++) {
        size_t len = 0;
        char *text = mr_file_read(forbidden[i][0], &len, NULL);
        CHECK_MSG(text != NULL, "cannot read %s (run from the repository root)", forbidden[i][0]);
        if (!text) continue;
        CHECK_MSG(strstr(text, forbidden[i][1]) == NULL, "%s mentions %s", forbidden[i][0], forbidden[i][1]);
        free(text);
    }
}

/* Runtime bytes (issue 30) agree with a count by hand: unfinished, every
 * source track's times and values; baked, the SIMD rows (5 joints in 8
 * lanes, 10 floats each), the 6 rest channels and the shared times. */
TEST(clip_runtime_bytes_counts_what_the_sampler_reads)
{
    mr_clip *c = shared_line_clip();
    /* rotations 5 x 9 keys x (1 + 4) floats, translations 3 x 9 x (1 + 3)
     * and one key of joint 4 (1 + 3) */
    CHECK(mr_clip_runtime_bytes(c) == (5 * 9 * 5 + 3 * 9 * 4 + 4) * sizeof(float));
    mr_clip_finish(c);
    const mr_clip_runtime *rt = c->runtime;
    CHECK(rt && rt->dense && rt->shared_keys > 9);
    if (rt) {
        size_t keys = (size_t)rt->shared_keys;
        CHECK(mr_clip_runtime_bytes(c) == keys * 10 * 8 * sizeof(float) + 6 * sizeof(int) + keys * sizeof(float));
    }
    CHECK(mr_clip_runtime_bytes(NULL) == 0);
    mr_clip_destroy(c);
}

/* The error measure (issue 30): nlerp over a 170-degree interval leaves
 * slerp by about 0.12 rad, which points 1 and 2 units from the joint show;
 * the refinement brings it within the joint budget (times the 2-unit lever
 * of joint b's farthest point). */
TEST(clip_runtime_error_measures_points_along_joint_axes)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_clip *c = NULL;
    mr_clip_create("swing", 3, &c);
    c->duration = 1.0f;
    mr_track *r = &c->tracks[1].r;
    mr_track_init(r, 2, MR_INTERP_LINEAR);
    r->times[1] = 1.0f;
    glm_quatv(r->values, 0.0f, (vec3){0, 0, 1});
    glm_quatv(r->values + 4, glm_rad(170.0f), (vec3){0, 0, 1});
    mr_track_finish(r);
    double raw = -1, at_joints = -1, fine = -1;
    CHECK(mr_clip_runtime_error(c, &sk, 1.0f, 201, &raw) == MR_OK);
    CHECK(mr_clip_runtime_error(c, &sk, 0.0f, 201, &at_joints) == MR_OK);
    CHECK_MSG(raw > 0.15 && raw < 0.4, "unrefined nlerp: %g", raw);
    CHECK_MSG(at_joints > 0.05 && at_joints < raw, "joint origins only: %g", at_joints);
    mr_clip_finish(c);
    CHECK(mr_clip_runtime_error(c, &sk, 1.0f, 201, &fine) == MR_OK);
    CHECK_MSG(fine <= 2 * MR_CLIP_DEFAULT_MAX_ANGLE + 2e-6, "refined: %g", fine);
    double e;
    CHECK(mr_clip_runtime_error(c, &sk, NAN, 201, &e) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_clip_runtime_error(c, &sk, 1.0f, 1, &e) == MR_ERR_INVALID_ARGUMENT);
    mr_skeleton other;
    mr_skeleton_init(&other, 2);
    CHECK(mr_clip_runtime_error(c, &other, 1.0f, 201, &e) == MR_ERR_JOINT_COUNT);
    mr_skeleton_deinit(&other);
    mr_clip_destroy(c);
    mr_skeleton_deinit(&sk);
}

TEST(clip_key_count_is_longest_track)
{
    mr_clip *c = fixture_clip();
    CHECK(mr_clip_key_count(c) == 3);
    mr_clip_destroy(c);
}

/* Keys 1e-44 s apart (what a glTF sampler or a BVH "Frame Time: 1e-44" gave)
 * made the key rate infinite and the O(1) lookup index times[INT_MIN]. */
TEST(clip_sample_keys_closer_than_a_float_rate_stay_in_bounds)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_clip *c = NULL;
    CHECK(mr_clip_create("tiny", 3, &c) == MR_OK);
    c->duration = 1e-44f;
    mr_track *t = &c->tracks[0].t;
    CHECK(mr_track_init(t, 2, MR_INTERP_LINEAR) == MR_OK);
    t->times[0] = 0.0f;
    t->times[1] = 1e-44f;
    t->values[4] = 2.0f;
    mr_track_finish(t);
    CHECK(isfinite(t->uniform_rate));
    mr_pose p;
    mr_pose_init(&p, 3);
    /* Whatever rate a track claims, sampling stays inside its keys. */
    const float rates[] = {t->uniform_rate, INFINITY, NAN, 3e38f};
    for (int k = 0; k < 4; k++) {
        t->uniform_rate = rates[k];
        CHECK(mr_clip_sample(c, &sk, 0.7e-44f, MR_WRAP_CLAMP, &p) == MR_OK);
        CHECK(p.t[0][1] >= 0.0f && p.t[0][1] <= 2.0f);
        CHECK(mr_clip_sample(c, &sk, 1.0f, MR_WRAP_CLAMP, &p) == MR_OK);
        CHECK_NEAR(p.t[0][1], 2.0, 1e-6);
    }
    /* A validated clip has no keys that close. */
    mr_error err = {0};
    t->uniform_rate = 0;
    CHECK(mr_clip_validate(c, &err) == MR_ERR_BAD_TIME);
    CHECK_STR_CONTAINS(err.msg, "key 1");
    t->times[1] = (float)MR_CLIP_MIN_KEY_INTERVAL * 2;
    c->duration = t->times[1];
    CHECK(mr_clip_validate(c, &err) == MR_OK);
    mr_pose_deinit(&p);
    mr_clip_destroy(c);
    mr_skeleton_deinit(&sk);
}

/* The packer's samplers of the exact curve (clip_interp.h) give what
 * mr_track_sample gives, bit for bit: times in order (quarter points of
 * every interval, where the memo finds each slerp's angle once), times out
 * of order and outside the keys, keys with repeated times and keys whose
 * times descend (the memo then searches as mr_track_sample does). */
TEST(clip_sample_memo_matches_track_sample_bit_for_bit)
{
    for (int shape = 0; shape < 3; shape++) {
        mr_track r = {.components = 4};
        int n = 41;
        mr_track_init(&r, n, MR_INTERP_LINEAR);
        for (int k = 0; k < n; k++) {
            r.times[k] = 0.1f + k * 0.037f + (k % 5 == 2 ? 0.011f : 0.0f);
            if (shape == 1 && k == 9) r.times[k] = r.times[k - 1];   /* a repeated time */
            if (shape == 2 && k == 20) r.times[k] = r.times[k - 3];  /* a time that descends */
            versor q;
            glm_quatv(q, 0.45f * k * k / n, (vec3){0.3f, 1.0f - 0.02f * k, 0.5f});
            if (k % 4 == 1) glm_vec4_negate(q);
            if (k == 30) memcpy(q, r.values + 4 * 29, sizeof q);     /* equal keys: no arc */
            memcpy(r.values + 4 * k, q, sizeof q);
        }
        mr_track_finish(&r);
        mr_clip_sample_memo memo = {0};
        int samples = 0;
        for (int pass = 0; pass < 2; pass++)
            for (int i = -2; i < 4 * n + 2; i++) {
                int k = pass ? (i * 37 + 11) % (4 * n + 4) - 2 : i;   /* in order, then scattered */
                float t0 = r.times[k / 4 < 0 ? 0 : k / 4 >= n - 1 ? n - 2 : k / 4];
                float t1 = r.times[k / 4 < 0 ? 1 : k / 4 >= n - 1 ? n - 1 : k / 4 + 1];
                float t = k < 0 ? -0.5f : k >= 4 * (n - 1) ? t1 + 0.5f * (float)(k - 4 * (n - 1)) :
                                 t0 + (t1 - t0) * (float)(k % 4) / 4.0f;
                float a[4], b[4];
                mr_track_sample(&r, t, a);
                mr_clip_sample_memo_at(&r, t, b, &memo);
                CHECK_MSG(memcmp(a, b, sizeof a) == 0, "shape %d t=%.9g: %.9g %.9g vs %.9g %.9g", shape, t, a[0],
                          a[3], b[0], b[3]);
                samples++;
            }
        CHECK(samples > 300);
        free(r.times);
        free(r.values);
    }
}

static int compare_floats(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* mr_clip_merge_times gives the sorted distinct times that qsort and
 * keeping the first of equal times give, bit for bit (of -0 and 0 the
 * first), or 0 (sort it) with a NaN. */
TEST(clip_merge_times_matches_the_sort)
{
    unsigned seed = 12345;
    int merged = 0;
    for (int it = 0; it < 3000; it++) {
        float t[96], u[96];
        size_t n = 0;
        int runs = 1 + it % 7;
        for (int r = 0; r < runs; r++) {
            seed = seed * 1103515245u + 12345u;
            int len = 1 + (int)(seed >> 16) % 12;
            float v = (float)((int)(seed >> 8) % 7 - 3) * 0.25f;
            for (int k = 0; k < len; k++) {
                seed = seed * 1103515245u + 12345u;
                t[n++] = v == 0.0f && (seed >> 20) % 2 ? -0.0f : v;
                if ((seed >> 12) % 3) v += 0.25f * (float)((seed >> 24) % 3);
            }
        }
        memcpy(u, t, n * sizeof *t);
        qsort(u, n, sizeof *u, compare_floats);
        size_t m = 1;
        for (size_t i = 1; i < n; i++)
            if (u[i] != u[m - 1]) u[m++] = u[i];
        size_t got = mr_clip_merge_times(t, n);
        CHECK_MSG(got == m && memcmp(t, u, m * sizeof *t) == 0, "case %d: %zu times vs %zu", it, got, m);
        merged += got > 0;
    }
    CHECK(merged == 3000);
    float nan_times[3] = {0.0f, NAN, 1.0f};
    CHECK(mr_clip_merge_times(nan_times, 3) == 0);
}

int main(void)
{
    RUN(clip_create_refuses_joint_counts_out_of_range);
    RUN(clip_sample_interpolates_rotation_and_translation);
    RUN(clip_sample_clamps_outside_keys);
    RUN(clip_sample_loops);
    RUN(clip_sample_nan_time_leaves_pose);
    RUN(clip_sample_mismatched_joint_counts);
    RUN(clip_empty_clip_is_refused);
    RUN(clip_zero_length_clip_holds_its_only_pose);
    RUN(clip_validate_rejects_bad_keys);
    RUN(clip_validate_whole_track_test_agrees);
    RUN(track_init_unset_allocates_as_init_does);
    RUN(clip_rotation_takes_shortest_path);
    RUN(clip_step_and_cubic_interpolation);
    RUN(clip_uniform_lookup_matches_binary_search);
    RUN(clip_finish_shared_line_samples_identically);
    RUN(clip_finish_builds_the_runtime_and_leaves_the_source_keys);
    RUN(clip_runtime_settings_survive_rebuilds);
    RUN(clip_source_and_runtime_call_one_way);
    RUN(clip_runtime_bytes_counts_what_the_sampler_reads);
    RUN(clip_runtime_error_measures_points_along_joint_axes);
    RUN(clip_key_count_is_longest_track);
    RUN(clip_sample_memo_matches_track_sample_bit_for_bit);
    RUN(clip_merge_times_matches_the_sort);
    RUN(clip_sample_keys_closer_than_a_float_rate_stay_in_bounds);
    return test_summary("clip");
}
