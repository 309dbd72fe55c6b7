/* test_clip_cursor.c — playback cursors (anim/clip_runtime.h,
 * clip_cursor.c): sampling an optimised (packed) clip through a cursor
 * gives the values mr_clip_sample gives without one, whatever the order of
 * the times, across clip changes, rebuilt clips and other skeletons; the
 * mixer's playheads sample through theirs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "test_files.h"

#include "anim/clip_pack.h"
#include "anim/blendspace.h"
#include "anim/clip_runtime.h"
#include "anim/mixer.h"
#include "anim/model.h"
#include "anim/points.h"
#include "core/str.h"
#include "formats/load.h"

static mr_model *load(const char *mesh, const char *anim)
{
    const char *anims[1] = {anim};
    mr_model *m = NULL;
    mr_error err = {0};
    if (mr_load_model(mesh, anims, anim ? 1 : 0, &m, &err) != MR_OK) {
        CHECK_MSG(0, "%s: %s", mesh, err.msg);
        return NULL;
    }
    return m;
}

/* snoutx10k's file `name` (its mesh or an anim) in ../shared/models. */
static const char *snout(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%stomatenquark-essential/packages/models/snoutx10k/%s", SHARED_MODELS, name);
    return buf;
}

/* Do poses a and b hold the same values (a zero's sign aside)? */
static int same_pose(const mr_pose *a, const mr_pose *b, int n)
{
    for (int j = 0; j < n; j++)
        for (int e = 0; e < 4; e++) {
            if (a->r[j][e] != b->r[j][e]) return 0;
            if (e < 3 && (a->t[j][e] != b->t[j][e] || a->s[j][e] != b->s[j][e])) return 0;
        }
    return 1;
}

/* Within 1e-5 (the mixer's own arithmetic and clock round on their own). */
static int near_pose(const mr_pose *a, const mr_pose *b, int n)
{
    for (int j = 0; j < n; j++)
        for (int e = 0; e < 4; e++) {
            if (!(fabsf(a->r[j][e] - b->r[j][e]) <= 1e-5f)) return 0;
            if (e < 3 && !(fabsf(a->t[j][e] - b->t[j][e]) <= 1e-5f && fabsf(a->s[j][e] - b->s[j][e]) <= 1e-5f))
                return 0;
        }
    return 1;
}

/* Samples clip at times[0..count) with and without cursor; returns the
 * number of times where the poses differ. */
static int differences(const mr_clip *c, const mr_skeleton *sk, mr_clip_cursor *cur, const float *times, int count,
                       mr_wrap wrap)
{
    int n = sk->joint_count, bad = 0;
    mr_pose a, b;
    mr_pose_init(&a, n);
    mr_pose_init(&b, n);
    for (int i = 0; i < count; i++) {
        CHECK(mr_clip_sample_with(c, sk, times[i], wrap, &a, cur) == MR_OK);
        CHECK(mr_clip_sample(c, sk, times[i], wrap, &b) == MR_OK);
        if (!same_pose(&a, &b, n)) bad++;
    }
    mr_pose_deinit(&a);
    mr_pose_deinit(&b);
    return bad;
}

/* Forward at 60 Hz over two loops, backward, jumps, before and after the
 * clip, exactly on keys. */
static int time_sequence(float duration, float rate, float *out, int max)
{
    int k = 0;
    for (int i = 0; i < 240 && k < max; i++) out[k++] = i / 60.0f;
    for (int i = 120; i >= 0 && k < max; i--) out[k++] = duration * i / 120.0f;
    unsigned x = 12345;
    for (int i = 0; i < 200 && k < max; i++) {
        x = x * 1103515245u + 12345u;
        out[k++] = duration * (float)((x >> 8) % 10000) / 9999.0f;
    }
    float edges[] = {-1.0f, 0.0f, duration, duration + 1.0f, -0.0f, duration * 0.5f};
    for (size_t i = 0; i < sizeof edges / sizeof *edges && k < max; i++) out[k++] = edges[i];
    for (int i = 0; rate > 0 && i < 40 && k < max; i++) out[k++] = i / rate;   /* on the keys */
    return k;
}

/* Real clips of four exporters (mesh, animation or NULL): 75, 33, 17, 65 and
 * 38 joints, each ending with a part of a group of 4 (3, 1, 1, 1, 2). */
static const char *const files[][2] = {
    {SHARED_MODELS "tomatenquark-essential/packages/models/snoutx10k/snoutx10k.md5mesh",
     SHARED_MODELS "tomatenquark-essential/packages/models/snoutx10k/forward.md5anim"},
    {SHARED_MODELS "assimp/test/models-nonbsd/MD5/Bob.md5mesh", SHARED_MODELS "assimp/test/models-nonbsd/MD5/Bob.md5anim"},
    {SHARED_MODELS "blender-3.4-gltf/thinmatrix_model.glb", NULL},
    {SHARED_MODELS "blender-3.4-gltf/astroBoy_walk.glb", NULL},
    {"/usr/share/assimp/models/BVH/01_01.bvh", NULL},
};
enum { FILE_COUNT = sizeof files / sizeof *files };

/* files[f] loaded; NULL when it does not load (load reports it) or has no
 * clip (the callers' count of files checked then falls short). */
static mr_model *load_file(size_t f)
{
    mr_model *m = load(files[f][0], files[f][1]);
    if (m && m->clip_count >= 1) return m;
    mr_model_destroy(m);
    return NULL;
}

TEST(cursor_samples_what_the_clip_samples_on_real_clips)
{
    float times[700];
    int checked = 0;
    for (size_t f = 0; f < FILE_COUNT; f++) {
        mr_model *m = load_file(f);
        if (!m) continue;
        mr_clip *c = m->clips[0];
        CHECK(mr_clip_optimize(c, 0.0f) == MR_OK);
        CHECK_MSG(c->runtime && c->runtime->pack, "%s: not packed", files[f][0]);
        mr_clip_cursor *cur = mr_clip_cursor_create(m->skeleton.joint_count);
        int count = time_sequence(c->duration, c->rate, times, 700);
        int bad = differences(c, &m->skeleton, cur, times, count, MR_WRAP_CLAMP);
        bad += differences(c, &m->skeleton, cur, times, count, MR_WRAP_LOOP);
        int total = 2 * count;
        /* forward at twice the clip's key rate, then three times it (every
         * key and interval: the cursor's runs of keys decoded ahead, refilled
         * across their end and the pack's 16-key segments), then skipping
         * 5.5 keys at a time */
        float rate = c->rate > 0 ? c->rate : 60.0f;
        for (int pass = 0; pass < 3; pass++) {
            float step = pass == 0 ? 0.5f / rate : pass == 1 ? 1.0f / (3.0f * rate) : 5.5f / rate;
            int dense = (int)(c->duration / step) + 2;
            float *at = malloc((size_t)dense * sizeof *at);
            for (int i = 0; at && i < dense; i++) at[i] = (float)i * step;
            if (at) bad += differences(c, &m->skeleton, cur, at, dense, MR_WRAP_CLAMP);
            total += at ? dense : 0;
            free(at);
        }
        CHECK_MSG(bad == 0, "%s: %d of %d poses differ through the cursor", files[f][0], bad, total);
        mr_clip_cursor_destroy(cur);
        mr_model_destroy(m);
        checked++;
    }
    CHECK(checked == FILE_COUNT);
}

/* Do model matrices a and b hold the same values (a zero's sign aside)? */
static int same_models(const mat4 *a, const mat4 *b, int n)
{
    for (int j = 0; j < n; j++)
        for (int k = 0; k < 4; k++)
            for (int e = 0; e < 4; e++)
                if (a[j][k][e] != b[j][k][e]) return 0;
    return 1;
}

/* Samples clip at times[0..count) to model matrices through cur without
 * a pose (the cursor's own rows of local transforms), against the pose
 * sampled without a cursor taken to model space; returns the number of
 * times where they differ. */
static int model_differences(const mr_clip *c, const mr_skeleton *sk, mr_clip_cursor *cur, const float *times,
                             int count)
{
    int n = sk->joint_count, bad = 0;
    mr_pose p;
    mr_pose_init(&p, n);
    mat4 *expect = calloc((size_t)n, sizeof *expect), *got = calloc((size_t)n, sizeof *got);
    for (int i = 0; expect && got && i < count; i++) {
        CHECK(mr_clip_sample_model(c, sk, times[i], MR_WRAP_LOOP, NULL, got, cur) == MR_OK);
        CHECK(mr_clip_sample(c, sk, times[i], MR_WRAP_LOOP, &p) == MR_OK);
        CHECK(mr_pose_to_model(sk, &p, expect) == MR_OK);
        bad += !same_models(expect, got, n);
    }
    free(expect);
    free(got);
    mr_pose_deinit(&p);
    return bad;
}

/* mr_clip_sample_model puts in model what mr_pose_to_model makes of the
 * pose mr_clip_sample_with samples: the same bits as through another
 * cursor (the same values as without one), with and without a pose, on
 * the real clips, packed or not (the cursor then lends a pose). */
TEST(sample_model_gives_the_model_matrices_of_the_sampled_pose)
{
    float times[700];
    int checked = 0;
    for (size_t f = 0; f < FILE_COUNT; f++) {
        mr_model *m = load_file(f);
        if (!m) continue;
        const mr_skeleton *sk = &m->skeleton;
        int n = sk->joint_count;
        mr_clip *c = m->clips[0];
        mr_clip_cursor *cur = mr_clip_cursor_create(n), *other = mr_clip_cursor_create(0);
        mr_pose a, b;
        mr_pose_init(&a, n);
        mr_pose_init(&b, n);
        mat4 *expect = calloc((size_t)n, sizeof *expect), *got = calloc((size_t)n, sizeof *got);
        int count = time_sequence(c->duration, c->rate, times, 700), bad_bits = 0, bad_values = 0, bad_pose = 0;
        for (int packed = 0; packed < 2; packed++) {
            if (packed) CHECK(mr_clip_optimize(c, 0.0f) == MR_OK && c->runtime->pack);
            for (int i = 0; i < count; i++) {
                mr_wrap wrap = i % 2 ? MR_WRAP_LOOP : MR_WRAP_CLAMP;
                CHECK(mr_clip_sample_with(c, sk, times[i], wrap, &a, other) == MR_OK);
                CHECK(mr_pose_to_model(sk, &a, expect) == MR_OK);
                CHECK(mr_clip_sample_model(c, sk, times[i], wrap, i % 3 ? NULL : &b, got, cur) == MR_OK);
                bad_bits += memcmp(expect, got, (size_t)n * sizeof *got) != 0;
                if (i % 3 == 0) bad_pose += !same_pose(&a, &b, n);
                CHECK(mr_clip_sample(c, sk, times[i], wrap, &a) == MR_OK);
                CHECK(mr_pose_to_model(sk, &a, expect) == MR_OK);
                bad_values += !same_models(expect, got, n);
            }
        }
        CHECK_MSG(bad_bits == 0 && bad_values == 0 && bad_pose == 0,
                  "%s: of %d samples, %d models differ in their bits from another cursor's, %d in value from "
                  "no cursor's, %d poses differ",
                  files[f][0], 2 * count, bad_bits, bad_values, bad_pose);
        free(expect);
        free(got);
        mr_pose_deinit(&a);
        mr_pose_deinit(&b);
        mr_clip_cursor_destroy(cur);
        mr_clip_cursor_destroy(other);
        mr_model_destroy(m);
        checked++;
    }
    CHECK(checked == FILE_COUNT);
}

/* What it refuses, leaving pose and model as they were. */
TEST(sample_model_refuses_bad_arguments_untouched)
{
    char mesh[512], anim[512];
    mr_model *m = load(snout(mesh, sizeof mesh, "snoutx10k.md5mesh"), snout(anim, sizeof anim, "forward.md5anim"));
    if (!m) return;
    const mr_skeleton *sk = &m->skeleton;
    int n = sk->joint_count;
    mr_clip *c = m->clips[0];
    CHECK(mr_clip_optimize(c, 0.0f) == MR_OK);
    mr_clip_cursor *cur = mr_clip_cursor_create(n);
    mr_pose p, small;
    mr_pose_init(&p, n);
    mr_pose_init(&small, n - 1);
    mat4 *model = calloc((size_t)n, sizeof *model);
    for (int j = 0; j < n; j++) model[j][0][0] = 7.0f;
    p.t[0][0] = 7.0f;
    CHECK(mr_clip_sample_model(c, sk, 0.5f, MR_WRAP_LOOP, &p, NULL, cur) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_clip_sample_model(c, sk, 0.5f, MR_WRAP_LOOP, NULL, model, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_clip_sample_model(NULL, sk, 0.5f, MR_WRAP_LOOP, &p, model, cur) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_clip_sample_model(c, sk, NAN, MR_WRAP_LOOP, &p, model, cur) == MR_ERR_BAD_TIME);
    CHECK(mr_clip_sample_model(c, sk, INFINITY, MR_WRAP_LOOP, NULL, model, cur) == MR_ERR_BAD_TIME);
    CHECK(mr_clip_sample_model(c, sk, 0.5f, MR_WRAP_LOOP, &small, model, cur) == MR_ERR_JOINT_COUNT);
    int touched = p.t[0][0] != 7.0f;
    for (int j = 0; j < n; j++) touched += model[j][0][0] != 7.0f;
    CHECK_MSG(touched == 0, "%d values written by refused calls", touched);
    /* and then it samples */
    CHECK(mr_clip_sample_model(c, sk, 0.5f, MR_WRAP_LOOP, NULL, model, cur) == MR_OK);
    CHECK(model[0][3][3] == 1.0f);
    free(model);
    mr_pose_deinit(&p);
    mr_pose_deinit(&small);
    mr_clip_cursor_destroy(cur);
    mr_model_destroy(m);
}

/* One cursor follows a playhead from clip to clip, through a rebuild of
 * the same clip (a new pack, perhaps at the old one's address) and onto
 * another skeleton whose rest pose differs. */
TEST(cursor_rebinds_to_other_clips_rebuilt_clips_and_skeletons)
{
    char mesh[512], a1[512], a2[512];
    snout(mesh, sizeof mesh, "snoutx10k.md5mesh");
    mr_model *m = load(mesh, snout(a1, sizeof a1, "forward.md5anim")), *m2 = load(mesh, snout(a2, sizeof a2, "idle.md5anim"));
    if (!m || !m2) {
        mr_model_destroy(m);
        mr_model_destroy(m2);
        return;
    }
    mr_clip *fwd = m->clips[0], *idle = m2->clips[0];
    CHECK(mr_clip_optimize(fwd, 0.0f) == MR_OK);
    CHECK(mr_clip_optimize(idle, 0.0f) == MR_OK);
    mr_clip_cursor *cur = mr_clip_cursor_create(0);   /* no room yet: the first bind allocates */
    float times[700];
    int count = time_sequence(fwd->duration, fwd->rate, times, 700);
    for (int round = 0; round < 3; round++) {
        CHECK(differences(fwd, &m->skeleton, cur, times, 50 + round * 40, MR_WRAP_LOOP) == 0);
        CHECK(differences(idle, &m->skeleton, cur, times + 100, 60, MR_WRAP_LOOP) == 0);
        CHECK(mr_clip_optimize(fwd, round == 1 ? 1e-3f : 1e-4f) == MR_OK);   /* a new pack */
    }
    CHECK(differences(fwd, &m->skeleton, cur, times, count, MR_WRAP_CLAMP) == 0);
    CHECK(model_differences(fwd, &m->skeleton, cur, times, 100) == 0);
    /* a skeleton of other rest values: channels without tracks follow it,
     * in the cursor's rows of local transforms too (joints that do not
     * move are not interpolated again while the cursor keeps a binding) */
    mr_skeleton *sk2 = &m2->skeleton;
    for (int j = 0; j < sk2->joint_count; j++) sk2->rest_s[j][0] = 2.0f;
    CHECK(model_differences(fwd, sk2, cur, times, 100) == 0);
    CHECK(differences(fwd, sk2, cur, times, 100, MR_WRAP_LOOP) == 0);
    mr_pose p;
    mr_pose_init(&p, sk2->joint_count);
    CHECK(mr_clip_sample_with(fwd, sk2, 0.5f, MR_WRAP_LOOP, &p, cur) == MR_OK);
    CHECK(p.s[0][0] == 2.0f);   /* snoutx10k's clips animate no scale */
    /* The same skeleton changed in place, as mr_skeleton_touch announces:
     * the cursor holds the new rest values. Rest values play as they are:
     * rotations not normalised (these are a little off unit length),
     * translations and scales with their -0.0. */
    for (int j = 0; j < sk2->joint_count; j++) {
        sk2->rest_s[j][0] = 3.0f;
        sk2->rest_s[j][1] = sk2->rest_t[j][1] = -0.0f;
        for (int e = 0; e < 4; e++) sk2->rest_r[j][e] *= 1.001f;
    }
    mr_skeleton_touch(sk2);
    CHECK(differences(fwd, sk2, cur, times, 100, MR_WRAP_LOOP) == 0);
    CHECK(mr_clip_sample_with(fwd, sk2, 0.5f, MR_WRAP_LOOP, &p, cur) == MR_OK);
    CHECK(p.s[0][0] == 3.0f);
    int rest_rotations = 0, rest_translations = 0, sign_lost = 0;
    for (int j = 0; j < sk2->joint_count; j++) {
        rest_rotations += memcmp(p.r[j], sk2->rest_r[j], sizeof(versor)) == 0;
        rest_translations += memcmp(p.t[j], sk2->rest_t[j], sizeof(vec3)) == 0;
        sign_lost += glm_vec3_eqv(p.t[j], sk2->rest_t[j]) && memcmp(p.t[j], sk2->rest_t[j], sizeof(vec3));
        sign_lost += glm_vec3_eqv(p.s[j], sk2->rest_s[j]) && memcmp(p.s[j], sk2->rest_s[j], sizeof(vec3));
    }
    CHECK_MSG(rest_rotations > 0 && rest_translations > 0, "rest values played as they are: %d rotations, %d translations",
              rest_rotations, rest_translations);
    CHECK_MSG(sign_lost == 0, "%d rest translations or scales lost a -0.0", sign_lost);
    mr_pose_deinit(&p);
    mr_clip_cursor_destroy(cur);
    mr_clip_cursor_destroy(NULL);
    mr_model_destroy(m);
    mr_model_destroy(m2);
}

/* A mixer playing an optimised clip evaluates the pose mr_clip_sample
 * gives at the playhead's time. */
/* A STEP track holds its next key where pack_alpha reaches 1, which its
 * rounding may put an ulp or two either side of the key's time: a cursor
 * coming back from past the end to a key's time, or to the floats around
 * it, holds the key the search holds (it held the last one from the key's
 * time on before: review of round 35, 0.057217218 .. 0.0962270424). */
TEST(cursor_holds_step_keys_where_the_search_does)
{
    mr_model *m = NULL;
    mr_model_create("step", "test", &m);
    mr_skeleton_init(&m->skeleton, 1);
    m->skeleton.names[0] = mr_str_dup("root");
    mr_skeleton_compute_inverse_bind(&m->skeleton);
    unsigned seed = 12345;
    int differ = 0, checked = 0;
    for (int pass = 0; pass < 200; pass++) {
        mr_clip *c = NULL;
        mr_clip_create("step", 1, &c);
        mr_track *t = &c->tracks[0].t;
        mr_track_init(t, 6, MR_INTERP_STEP);
        float at = 0.0f;
        for (int i = 0; i < 6; i++) {
            seed = seed * 1103515245u + 12345u;
            at += 0.01f + (float)(seed >> 8 & 0xffff) / 65535.0f * 0.09f;   /* awkward intervals */
            t->times[i] = at;
            for (int e = 0; e < 3; e++) t->values[3 * i + e] = (float)(i * 3 + e);
        }
        c->duration = at + 0.5f;   /* time runs on past the last key */
        mr_clip_finish(c);
        CHECK(mr_clip_optimize(c, 0.0f) == MR_OK && c->runtime && c->runtime->pack);
        mr_clip_cursor *cur = mr_clip_cursor_create(1);
        mr_pose a, b;
        mr_pose_init(&a, 1);
        mr_pose_init(&b, 1);
        for (int i = 0; i < 6; i++)
            for (int d = -2; d <= 2; d++) {
                float k = t->times[i];
                for (int s = 0; s < (d < 0 ? -d : d); s++) k = nextafterf(k, d < 0 ? -INFINITY : INFINITY);
                mr_clip_sample_with(c, &m->skeleton, 2.0f * c->duration + 1.0f, MR_WRAP_CLAMP, &a, cur);
                mr_clip_sample_with(c, &m->skeleton, k, MR_WRAP_CLAMP, &a, cur);
                mr_clip_sample(c, &m->skeleton, k, MR_WRAP_CLAMP, &b);
                differ += !same_pose(&a, &b, 1);
                checked++;
            }
        mr_pose_deinit(&a);
        mr_pose_deinit(&b);
        mr_clip_cursor_destroy(cur);
        mr_clip_destroy(c);
    }
    CHECK_MSG(differ == 0, "%d of %d samples differ", differ, checked);
    mr_model_destroy(m);
}

/* A blend space samples its clips through one cursor each (what a mixer
 * slot keeps): the same blended poses as without. */
TEST(blendspace_samples_packed_clips_through_cursors)
{
    char mesh[512], fwd[512], back[512];
    snout(mesh, sizeof mesh, "snoutx10k.md5mesh");
    const char *anims[2] = {snout(fwd, sizeof fwd, "forward.md5anim"), snout(back, sizeof back, "backward.md5anim")};
    mr_model *m = NULL;
    mr_error err = {0};
    if (mr_load_model(mesh, anims, 2, &m, &err) != MR_OK) {
        CHECK_MSG(!mr_file_exists(mesh), "%s", err.msg);
        return;
    }
    mr_blendspace bs;
    mr_blendspace_init(&bs, 1);
    CHECK(mr_clip_optimize(m->clips[0], 0.0f) == MR_OK && mr_clip_optimize(m->clips[1], 0.0f) == MR_OK);
    CHECK(mr_blendspace_add(&bs, m->clips[0], 1.0f, 0.0f) == MR_OK);
    CHECK(mr_blendspace_add(&bs, m->clips[1], -1.0f, 0.0f) == MR_OK);
    mr_clip_cursor *cur[MR_BLENDSPACE_MAX] = {0};
    for (int i = 0; i < 2; i++) cur[i] = mr_clip_cursor_create(0);
    int n = m->skeleton.joint_count, differ = 0;
    mr_pose a, b, scratch;
    mr_pose_init(&a, n);
    mr_pose_init(&b, n);
    mr_pose_init(&scratch, n);
    for (int i = 0; i < 400; i++) {
        float x = i < 200 ? -1.0f + (float)i / 100.0f : 0.3f, w[MR_BLENDSPACE_MAX];
        float phase = i < 300 ? (float)i / 97.0f : (float)((i * 7919) % 1000) / 1000.0f;   /* on, then jumping */
        CHECK(mr_blendspace_weights(&bs, x, 0.0f, w) == MR_OK);
        CHECK(mr_blendspace_sample_with(&bs, &m->skeleton, w, phase, &scratch, &a, cur) == MR_OK);
        CHECK(mr_blendspace_sample(&bs, &m->skeleton, w, phase, &scratch, &b) == MR_OK);
        differ += !same_pose(&a, &b, n);
    }
    CHECK_MSG(differ == 0, "%d of 400 blended poses differ", differ);
    for (int i = 0; i < 2; i++) mr_clip_cursor_destroy(cur[i]);
    mr_pose_deinit(&a);
    mr_pose_deinit(&b);
    mr_pose_deinit(&scratch);
    mr_model_destroy(m);
}

TEST(mixer_plays_packed_clips_through_cursors)
{
    char mesh[512], anim[512];
    mr_model *m = load(snout(mesh, sizeof mesh, "snoutx10k.md5mesh"), snout(anim, sizeof anim, "forward.md5anim"));
    if (!m) return;
    mr_clip *c = m->clips[0];
    CHECK(mr_clip_optimize(c, 0.0f) == MR_OK);
    mr_mixer *mx = NULL;
    mr_error err = {0};
    CHECK(mr_mixer_create(&m->skeleton, m->axes.up, NULL, &mx, &err) == MR_OK);
    mr_play_opts o = {.loop = MR_LOOP_REPEAT};
    CHECK(mx && mr_mixer_play(mx, 0, c, &o, &err) == MR_OK);
    int n = m->skeleton.joint_count, bad = 0;
    mr_pose p, q;
    mr_pose_init(&p, n);
    mr_pose_init(&q, n);
    mat4 *model = calloc((size_t)n, sizeof *model);
    double t = 0;
    for (int i = 0; mx && i < 300; i++) {
        CHECK(mr_mixer_evaluate(mx, &p, model, &err) == MR_OK);
        CHECK(mr_clip_sample(c, &m->skeleton, (float)fmod(t, c->duration), MR_WRAP_CLAMP, &q) == MR_OK);
        if (!near_pose(&p, &q, n)) bad++;
        CHECK(mr_mixer_update(mx, 1.0f / 60.0f, &err) == MR_OK);
        t += 1.0 / 60.0;
    }
    CHECK_MSG(bad == 0, "%d of 300 evaluations differ from the clip's pose", bad);
    free(model);
    mr_pose_deinit(&p);
    mr_pose_deinit(&q);
    mr_mixer_destroy(mx);
    mr_model_destroy(m);
}

/* mr_clip_runtime_error (what `marrow info` and clip:error print) plays
 * the packed clip through a cursor and keeps each source track's
 * interval: the same figure, to the bit, as sampling each time with a
 * search (mr_clip_sample, mr_track_sample), on snoutx10k's packed clips,
 * at a point distance and at the joints. */
TEST(runtime_error_through_a_cursor_is_the_searched_measure)
{
    char mesh[512], anim[512];
    mr_model *m = load(snout(mesh, sizeof mesh, "snoutx10k.md5mesh"), snout(anim, sizeof anim, "forward.md5anim"));
    if (!m) return;
    mr_clip *c = m->clips[0];
    mr_clip_settle(c);
    CHECK(c->runtime && c->runtime->pack);
    CHECK(mr_clip_source(c, NULL) == MR_OK);
    int n = m->skeleton.joint_count, samples = 4 * (mr_clip_key_count(c) - 1) + 1;
    mr_pose played, exact;
    mr_pose_init(&played, n);
    mr_pose_init(&exact, n);
    mat4 *ma = calloc((size_t)n, sizeof *ma), *mb = calloc((size_t)n, sizeof *mb);
    for (int d = 0; d < 2; d++) {
        float distance = d ? 0.0f : 0.05f;
        double searched = 0, measured = -1;
        for (int i = 0; i < samples; i++) {
            float t = mr_clip_wrap_time(c, (float)((double)c->duration * i / (samples - 1)), MR_WRAP_CLAMP);
            mr_clip_sample(c, &m->skeleton, t, MR_WRAP_CLAMP, &played);
            for (int j = 0; j < n; j++) {
                const mr_joint_tracks *jt = &c->tracks[j];
                if (jt->t.key_count) mr_track_sample(&jt->t, t, exact.t[j]);
                else memcpy(exact.t[j], m->skeleton.rest_t[j], sizeof exact.t[j]);
                if (jt->r.key_count) mr_track_sample(&jt->r, t, exact.r[j]);
                else memcpy(exact.r[j], m->skeleton.rest_r[j], sizeof exact.r[j]);
                if (jt->s.key_count) mr_track_sample(&jt->s, t, exact.s[j]);
                else memcpy(exact.s[j], m->skeleton.rest_s[j], sizeof exact.s[j]);
            }
            mr_pose_to_model(&m->skeleton, &played, ma);
            mr_pose_to_model(&m->skeleton, &exact, mb);
            double e = mr_points_apart((const mat4 *)ma, (const mat4 *)mb, n, distance);
            if (e > searched) searched = e;
        }
        CHECK(mr_clip_runtime_error(c, &m->skeleton, distance, samples, &measured) == MR_OK);
        CHECK_MSG(measured == searched && searched > 0, "distance %g: %.17g measured, %.17g searched", distance, measured,
                  searched);
    }
    free(ma);
    free(mb);
    mr_pose_deinit(&played);
    mr_pose_deinit(&exact);
    mr_model_destroy(m);
}

/* The largest skeleton a cursor takes (MR_MAX_JOINTS): every joint's
 * rows, the last block's last lane included, at offsets a track's state
 * holds, and each track's keys decoded ahead. Every joint turns (12 keys,
 * a different pace each), every third also moves; parents in chains and
 * back to earlier joints. Through the cursor, the searched values, into a
 * pose and into model matrices without one. */
TEST(cursor_plays_the_largest_skeleton)
{
    enum { N = MR_MAX_JOINTS, KEYS = 12 };
    mr_model *m = NULL;
    CHECK(mr_model_create("many", "test", &m) == MR_OK);
    CHECK(mr_skeleton_init(&m->skeleton, N) == MR_OK);
    mr_skeleton *sk = &m->skeleton;
    for (int j = 0; j < N; j++) {
        char name[16];
        snprintf(name, sizeof name, "j%d", j);
        sk->names[j] = mr_str_dup(name);
        sk->parents[j] = j == 0 ? -1 : j % 8 ? j - 1 : j / 2;
        sk->rest_t[j][1] = 0.01f;
    }
    mr_skeleton_compute_inverse_bind(sk);
    mr_clip *c = NULL;
    CHECK(mr_clip_create("many", N, &c) == MR_OK);
    c->duration = 1.0f;
    for (int j = 0; j < N; j++) {
        mr_track *r = &c->tracks[j].r;
        mr_track_init(r, KEYS, MR_INTERP_LINEAR);
        for (int i = 0; i < KEYS; i++) {
            r->times[i] = (float)i / (KEYS - 1);
            glm_quatv(r->values + 4 * i, glm_rad((float)((i * (j % 7 + 1)) % 40) - 20.0f), (vec3){0, 0, 1});
        }
        if (j % 3) continue;
        mr_track *t = &c->tracks[j].t;
        mr_track_init(t, KEYS, MR_INTERP_LINEAR);
        for (int i = 0; i < KEYS; i++) {
            t->times[i] = r->times[i];
            t->values[3 * i] = 0.001f * (float)((i * (j % 5 + 2)) % 9);
            t->values[3 * i + 1] = 0.01f;
        }
    }
    CHECK(mr_model_add_clip(m, c) == MR_OK);
    CHECK(mr_clip_optimize(c, 0.0f) == MR_OK && c->runtime && c->runtime->pack);
    float times[600];
    int count = time_sequence(c->duration, KEYS - 1, times, 600);
    mr_clip_cursor *cur = mr_clip_cursor_create(N);
    CHECK(cur != NULL);
    if (cur) {
        size_t bytes = mr_clip_cursor_bytes(cur);
        CHECK_MSG(bytes > 0 && bytes < 4u << 20, "a cursor of %d joints holds %zu bytes", N, bytes);
        int bad = differences(c, sk, cur, times, count, MR_WRAP_LOOP);
        CHECK_MSG(bad == 0, "%d of %d poses differ from the searched ones", bad, count);
        bad = model_differences(c, sk, cur, times, count);
        CHECK_MSG(bad == 0, "%d of %d model matrix sets differ from the searched pose's", bad, count);
    }
    mr_clip_cursor_destroy(cur);
    mr_model_destroy(m);
}

int main(void)
{
    RUN(cursor_samples_what_the_clip_samples_on_real_clips);
    RUN(sample_model_gives_the_model_matrices_of_the_sampled_pose);
    RUN(sample_model_refuses_bad_arguments_untouched);
    RUN(cursor_rebinds_to_other_clips_rebuilt_clips_and_skeletons);
    RUN(cursor_holds_step_keys_where_the_search_does);
    RUN(blendspace_samples_packed_clips_through_cursors);
    RUN(mixer_plays_packed_clips_through_cursors);
    RUN(runtime_error_through_a_cursor_is_the_searched_measure);
    RUN(cursor_plays_the_largest_skeleton);
    return test_summary("clip_cursor");
}
