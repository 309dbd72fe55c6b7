/* test_choreo_models.c — the choreography modules on real models: the
 * project's mannequin (models/) and snoutx10k from ../shared/models.
 * Cross-fades stay continuous, masked layers leave the rest bitwise, IK
 * reaches, events count right. */
#include <stdlib.h>

#include "anim/ik.h"
#include "anim/override.h"
#include "core/alloc.h"
#include "anim/mixer.h"
#include "formats/load.h"
#include "test.h"

#define SNOUT SHARED_MODELS "tomatenquark-essential/packages/models/snoutx10k/"

static mr_model *load_mannequin(void)
{
    const char *anims[] = {"models/idle.md5anim", "models/walk.md5anim", "models/wave.md5anim"};
    mr_model *m = NULL;
    mr_error err = {0};
    if (mr_load_model("models/mannequin.md5mesh", anims, 3, &m, &err) != MR_OK) printf("       %s\n", err.msg);
    return m;
}

static mr_model *load_snout(void)
{
    const char *anims[] = {SNOUT "forward.md5anim", SNOUT "idle.md5anim", SNOUT "shotgun_shoot.md5anim"};
    mr_model *m = NULL;
    mr_error err = {0};
    if (mr_load_model(SNOUT "snoutx10k.md5mesh", anims, 3, &m, &err) != MR_OK) printf("       %s\n", err.msg);
    return m;
}

static float max_move(const mr_skeleton *sk, const mat4 *a, const mat4 *b)
{
    float m = 0.0f;
    for (int j = 0; j < sk->joint_count; j++) m = fmaxf(m, glm_vec3_distance((float *)a[j][3], (float *)b[j][3]));
    return m;
}

/* Plays a fade A -> B (then -> C mid-way when c is given) at 60 fps and
 * checks every frame: weights on the track sum to 1, and the pose moves no
 * more than the clips do plus what the weight change explains. */
static void check_fade(const mr_model *m, const char *a, const char *b, const char *c)
{
    const mr_skeleton *sk = &m->skeleton;
    int n = sk->joint_count;
    const mr_clip *ca = mr_model_find_clip(m, a), *cb = mr_model_find_clip(m, b), *cc = c ? mr_model_find_clip(m, c) : NULL;
    CHECK(ca && cb && (!c || cc));
    if (!ca || !cb || (c && !cc)) return;
    mr_mixer *mx = NULL;
    mr_mixer_create(sk, m->axes.up, NULL, &mx, NULL);
    mr_play_opts o = {0};
    o.loop = MR_LOOP_REPEAT;
    mr_mixer_play(mx, 0, ca, &o, NULL);
    mr_pose pose, src[3], prev_src[3];
    mr_pose_init(&pose, n);
    for (int i = 0; i < 3; i++) {
        mr_pose_init(&src[i], n);
        mr_pose_init(&prev_src[i], n);
    }
    mat4 *cur = mr_alloc_array((size_t)n, sizeof *cur), *prev = mr_alloc_array((size_t)n, sizeof *prev);
    mat4 *s0 = mr_alloc_array((size_t)n, sizeof *s0), *s1 = mr_alloc_array((size_t)n, sizeof *s1);
    float prev_w[3] = {1, 0, 0}, prev_spread = 0.0f;
    const mr_clip *clips[3] = {ca, cb, cc};
    int bad = 0;
    for (int f = 0; f < 120; f++) {
        if (f == 20) mr_mixer_crossfade(mx, 0, cb, 0.6f, MR_CURVE_SMOOTH, &o, NULL);
        if (f == 40 && cc) mr_mixer_crossfade(mx, 0, cc, 0.6f, MR_CURVE_LINEAR, &o, NULL);
        mr_mixer_update(mx, 1.0f / 60, NULL);
        mr_mixer_evaluate(mx, &pose, cur, NULL);
        float w[3], sum = 0.0f, dw = 0.0f;
        for (int i = 0; i < 3; i++) {
            w[i] = 0.0f;
            if (clips[i]) mr_mixer_clip_weight(mx, 0, clips[i], &w[i]);
            sum += w[i];
            dw += fabsf(w[i] - prev_w[i]);
        }
        if (fabsf(sum - 1.0f) > 1e-5f) bad++;
        mr_mixer_clip_info info[4];
        int k = mr_mixer_playing(mx, 0, info, 3);
        float clip_move = 0.0f, spread = 0.0f;
        for (int i = 0; i < k; i++) {
            mr_clip_sample(info[i].clip, sk, info[i].time, MR_WRAP_CLAMP, &src[i]);
            mr_clip_sample(info[i].clip, sk, info[i].time - info[i].speed / 60.0f, MR_WRAP_LOOP, &prev_src[i]);
            mr_pose_to_model(sk, &src[i], s0);
            mr_pose_to_model(sk, &prev_src[i], s1);
            clip_move = fmaxf(clip_move, max_move(sk, s0, s1));
            for (int q = 0; q < i; q++) {
                mr_pose_to_model(sk, &src[q], s1);
                spread = fmaxf(spread, max_move(sk, s0, s1));
            }
        }
        /* Clips move joints along arcs when their rotations are blended:
         * up to pi/2 times the chord between two poses, hence 1.6. The
         * spread is that of the clips on either frame (a fade that ends
         * within the step has already dropped its outgoing clips). */
        float moved = max_move(sk, cur, prev);
        float bound = 1.25f * clip_move + 1.6f * dw * fmaxf(spread, prev_spread) + 1e-3f;
        prev_spread = spread;
        if (f > 0 && moved > bound) {
            bad++;
            printf("       %s frame %d: moved %g > bound %g\n", m->path, f, moved, bound);
        }
        memcpy(prev, cur, (size_t)n * sizeof *cur);
        memcpy(prev_w, w, sizeof w);
    }
    CHECK(bad == 0);
    for (int i = 0; i < 3; i++) {
        mr_pose_deinit(&src[i]);
        mr_pose_deinit(&prev_src[i]);
    }
    mr_pose_deinit(&pose);
    free(cur);
    free(prev);
    free(s0);
    free(s1);
    mr_mixer_destroy(mx);
}

TEST(mannequin_fades_are_continuous)
{
    mr_model *m = load_mannequin();
    CHECK(m != NULL);
    if (!m) return;
    check_fade(m, "walk", "idle", NULL);
    check_fade(m, "walk", "idle", "wave");
    mr_model_destroy(m);
}

TEST(snoutx10k_fades_are_continuous)
{
    mr_model *m = load_snout();
    CHECK(m != NULL);
    if (!m) return;
    check_fade(m, "forward", "idle", "shotgun_shoot");
    mr_model_destroy(m);
}

TEST(mannequin_wave_over_walk_leaves_the_legs_bitwise)
{
    mr_model *m = load_mannequin();
    CHECK(m != NULL);
    if (!m) return;
    const mr_skeleton *sk = &m->skeleton;
    mr_mask upper;
    mr_mask_init(&upper, sk->joint_count, 0.0f);
    mr_mask_set_subtree(&upper, sk, mr_skeleton_find(sk, "spine_02"), 1.0f);
    mr_mask_ramp(&upper, sk, mr_skeleton_find(sk, "spine_02"), 2, 0.5f, 1.0f);
    mr_mixer *base = NULL, *mx = NULL;
    mr_mixer_create(sk, m->axes.up, NULL, &base, NULL);
    mr_mixer_create(sk, m->axes.up, NULL, &mx, NULL);
    mr_play_opts o = {0};
    o.loop = MR_LOOP_REPEAT;
    mr_mixer_play(base, 0, mr_model_find_clip(m, "walk"), &o, NULL);
    mr_mixer_play(mx, 0, mr_model_find_clip(m, "walk"), &o, NULL);
    mr_mixer_set_mask(mx, 1, &upper, NULL);
    mr_mixer_play(mx, 1, mr_model_find_clip(m, "wave"), &o, NULL);
    mr_pose a, b;
    mr_pose_init(&a, sk->joint_count);
    mr_pose_init(&b, sk->joint_count);
    int legs = 0, differ = 0;
    for (int f = 0; f < 90; f++) {
        mr_mixer_update(base, 1.0f / 30, NULL);
        mr_mixer_update(mx, 1.0f / 30, NULL);
        mr_mixer_evaluate(base, &a, NULL, NULL);
        mr_mixer_evaluate(mx, &b, NULL, NULL);
        for (int j = 0; j < sk->joint_count; j++) {
            int same = !memcmp(a.t[j], b.t[j], sizeof(vec3)) && !memcmp(a.r[j], b.r[j], sizeof(versor)) &&
                       !memcmp(a.s[j], b.s[j], sizeof(vec3));
            if (upper.w[j] == 0.0f) { legs++; CHECK_MSG(same, "frame %d: %s changed", f, sk->names[j]); }
            else differ += !same;
        }
    }
    CHECK(legs > 0 && differ > 0);
    mr_pose_deinit(&a);
    mr_pose_deinit(&b);
    mr_mixer_destroy(base);
    mr_mixer_destroy(mx);
    mr_mask_deinit(&upper);
    mr_model_destroy(m);
}

static float rnd(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)(*s >> 8) / (float)(1u << 24);
}

static void check_reach(const mr_model *m, const char *clip, const char *j0, const char *j1, const char *j2)
{
    const mr_skeleton *sk = &m->skeleton;
    int s = mr_skeleton_find(sk, j0), mid = mr_skeleton_find(sk, j1), e = mr_skeleton_find(sk, j2);
    const mr_clip *c = mr_model_find_clip(m, clip);
    CHECK(s >= 0 && mid >= 0 && e >= 0 && c);
    if (s < 0 || mid < 0 || e < 0 || !c) return;
    mr_pose p;
    mr_pose_init(&p, sk->joint_count);
    unsigned seed = 11;
    int misses = 0, tried = 0;
    for (int i = 0; i < 200; i++) {
        mr_clip_sample(c, sk, rnd(&seed) * c->duration, MR_WRAP_CLAMP, &p);
        mat4 ms, mm, me;
        mr_pose_model_matrix(sk, &p, s, ms);
        mr_pose_model_matrix(sk, &p, mid, mm);
        mr_pose_model_matrix(sk, &p, e, me);
        float l1 = glm_vec3_distance(ms[3], mm[3]), l2 = glm_vec3_distance(mm[3], me[3]);
        vec3 dir = {rnd(&seed) - 0.5f, rnd(&seed) - 0.5f, rnd(&seed) - 0.5f}, target;
        if (glm_vec3_norm(dir) < 0.05f) continue;
        glm_vec3_normalize(dir);
        float d = fabsf(l1 - l2) + 0.05f * (l1 + l2) + rnd(&seed) * 0.9f * (l1 + l2 - fabsf(l1 - l2));
        glm_vec3_copy(ms[3], target);
        glm_vec3_muladds(dir, d, target);
        mr_two_bone_job job = {sk, &p, s, mid, e, {0}, {0, 0, -1}, 1.0f, 0.0f, 0};
        glm_vec3_copy(target, job.target);
        CHECK(mr_ik_two_bone(&job, NULL) == MR_OK);
        mr_pose_model_matrix(sk, &p, e, me);
        tried++;
        if (glm_vec3_distance(me[3], target) > 1e-3f * (l1 + l2)) misses++;
    }
    CHECK_MSG(misses == 0 && tried > 150, "%s: %d of %d targets missed", m->path, misses, tried);
    mr_pose_deinit(&p);
}

TEST(mannequin_and_snoutx10k_arms_reach_their_targets)
{
    mr_model *m = load_mannequin();
    CHECK(m != NULL);
    if (m) {
        check_reach(m, "walk", "upperarm_r", "lowerarm_r", "hand_r");
        check_reach(m, "idle", "thigh_l", "calf_l", "foot_l");
        mr_model_destroy(m);
    }
    m = load_snout();
    CHECK(m != NULL);
    if (m) {
        check_reach(m, "forward", "UpperArm.L", "LowerArm.L", "Hand.L");
        check_reach(m, "idle", "Thigh.R", "Shin.R", "UpperFoot.R");
        mr_model_destroy(m);
    }
}

TEST(mannequin_head_looks_at_a_point)
{
    mr_model *m = load_mannequin();
    CHECK(m != NULL);
    if (!m) return;
    const mr_skeleton *sk = &m->skeleton;
    int chain[3] = {mr_skeleton_find(sk, "spine_03"), mr_skeleton_find(sk, "neck"), mr_skeleton_find(sk, "head")};
    static const float shares[3] = {0.2f, 0.3f, 0.5f};
    mr_pose p;
    mr_pose_init(&p, sk->joint_count);
    mr_clip_sample(mr_model_find_clip(m, "walk"), sk, 0.3f, MR_WRAP_CLAMP, &p);
    /* Aim the head's local +X (whatever it is) at a point beside the head. */
    mr_aim_job job = {sk, &p, chain, shares, NULL, 3, {30, 40, 65}, {1, 0, 0}, {0, 0, 0}, 1.0f, 0.0f};
    CHECK(mr_ik_aim(&job, NULL) == MR_OK);
    CHECK_MSG(job.error < 1e-3f, "error %g", job.error);
    mr_pose_deinit(&p);
    mr_model_destroy(m);
}

TEST(snoutx10k_events_count_per_loop_for_any_dt)
{
    mr_model *m = load_snout();
    CHECK(m != NULL);
    if (!m) return;
    mr_clip *fwd = mr_model_find_clip(m, "forward");
    mr_clip_add_marker(fwd, fwd->duration * 0.25f, "footstep_l");
    mr_clip_add_marker(fwd, fwd->duration * 0.75f, "footstep_r");
    static const float dts[] = {1.0f / 240, 1.0f / 60, 0.1f, 0.5f, 2.0f};
    for (int d = 0; d < 5; d++)
        for (int dir = 0; dir < 2; dir++) {
            mr_mixer *mx = NULL;
            mr_mixer_create(&m->skeleton, m->axes.up, NULL, &mx, NULL);
            mr_play_opts o = {0};
            o.loop = MR_LOOP_REPEAT;
            o.speed = dir ? -1.0f : 1.0f;
            mr_mixer_play(mx, 0, fwd, &o, NULL);
            int steps = 0, loops = 0;
            float total = 3.1f * fwd->duration;          /* three wraps, not on a boundary */
            for (float t = 0.0f; t < total - 1e-6f; t += dts[d]) {
                mr_mixer_update(mx, fminf(dts[d], total - t), NULL);
                int count;
                const mr_mixer_event *ev = mr_mixer_events(mx, &count);
                for (int i = 0; i < count; i++) {
                    steps += ev[i].kind == MR_EVENT_MARKER;
                    loops += ev[i].kind == MR_EVENT_LOOP;
                }
            }
            /* Forward: 3 full cycles + 0.1 (before the 0.25 marker): 6 steps.
             * Backward from the end: 3 cycles + 0.1 back (before 0.75): 6. */
            CHECK_MSG(steps == 6 && loops == 3, "dt %g dir %d: %d steps, %d loops", dts[d], dir, steps, loops);
            mr_mixer_destroy(mx);
        }
    mr_model_destroy(m);
}

int main(void)
{
    RUN(mannequin_fades_are_continuous);
    RUN(snoutx10k_fades_are_continuous);
    RUN(mannequin_wave_over_walk_leaves_the_legs_bitwise);
    RUN(mannequin_and_snoutx10k_arms_reach_their_targets);
    RUN(mannequin_head_looks_at_a_point);
    RUN(snoutx10k_events_count_per_loop_for_any_dt);
    return test_summary("choreo_models");
}
