/* bench_choreo.c — cost of choreography next to plain sampling.
 *
 * Nanoseconds per joint (median of runs, time stepped by 1/60 s) of
 *   sample     one clip sampled into a local pose (the baseline),
 *   mixer-1    the mixer playing that one clip (update + evaluate),
 *   blend-2    two clips sampled and blended (mr_blend_run),
 *   layers-4   the mixer with four tracks: a base clip, two masked override
 *              layers and one additive layer (update + evaluate),
 *   IK         one two-bone solve (arm), per solve and per skeleton joint,
 * each with its ratio to the baseline measured in the same run. Times are
 * the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so time spent preempted
 * on a busy machine does not count; the cases also take turns within each
 * run so what load remains (shared caches) affects them alike. Models are
 * the project's mannequin (models/) and snoutx10k from the shared models;
 * a missing one is skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "anim/blend.h"
#include "anim/ik.h"
#include "anim/mixer.h"
#include "bench/bench.h"
#include "core/path.h"
#include "core/str.h"
#include "formats/load.h"

typedef struct choreo_model {
    const char *label;
    int shared;                  /* path relative to the shared models root, else to the project */
    const char *mesh;
    const char *anims[4];
    const char *base, *other;    /* two clips blended; base is also the layers' base */
    const char *upper, *upper_joint;   /* override layer clip and its mask subtree */
    const char *head, *head_joint;     /* second override layer */
    const char *add, *add_joint;       /* additive clip (made additive at t = 0) and its mask ramp root */
    const char *ik[3];           /* two-bone chain */
} choreo_model;

static const choreo_model models[] = {
    {"mannequin", 0, "models/mannequin.md5mesh",
     {"models/idle.md5anim", "models/walk.md5anim", "models/wave.md5anim"},
     "walk", "idle", "wave", "clavicle_r", "idle", "neck", "wave", "spine_01",
     {"upperarm_l", "lowerarm_l", "hand_l"}},
    {"snoutx10k", 1, "tomatenquark-essential/packages/models/snoutx10k/snoutx10k.md5mesh",
     {"tomatenquark-essential/packages/models/snoutx10k/forward.md5anim",
      "tomatenquark-essential/packages/models/snoutx10k/idle.md5anim",
      "tomatenquark-essential/packages/models/snoutx10k/shotgun_shoot.md5anim",
      "tomatenquark-essential/packages/models/snoutx10k/pain.md5anim"},
     "forward", "idle", "shotgun_shoot", "Spine2", "idle", "Neck", "pain", "Spine1",
     {"UpperArm.L", "LowerArm.L", "Hand.L"}},
};

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static mr_model *load(const mr_bench_opts *o, const choreo_model *cm)
{
    char *paths[5] = {0};
    int n = 0;
    paths[0] = cm->shared ? mr_path_join(o->root, cm->mesh) : mr_str_dup(cm->mesh);
    for (; n < 4 && cm->anims[n]; n++) paths[n + 1] = cm->shared ? mr_path_join(o->root, cm->anims[n]) : mr_str_dup(cm->anims[n]);
    mr_model *m = NULL;
    mr_error err = {0};
    if (mr_load_model(paths[0], (const char *const *)paths + 1, n, &m, &err) != MR_OK)
        printf("  %-10s skipped: %s\n", cm->label, err.msg);
    for (int i = 0; i <= n; i++) free(paths[i]);
    return m;
}

typedef struct rig {
    const mr_model *m;
    const mr_clip *base, *other, *upper, *head;
    mr_clip *add;                /* owned: the additive version */
    mr_mask upper_mask, head_mask, add_mask;
    int chain[3];
    mr_pose pose, a, b;
    mr_mixer *one, *four;
} rig;

static int rig_make(rig *r, const mr_model *m, const choreo_model *cm)
{
    memset(r, 0, sizeof *r);
    r->m = m;
    const mr_skeleton *sk = &m->skeleton;
    r->base = mr_model_find_clip(m, cm->base);
    r->other = mr_model_find_clip(m, cm->other);
    r->upper = mr_model_find_clip(m, cm->upper);
    r->head = mr_model_find_clip(m, cm->head);
    const mr_clip *add = mr_model_find_clip(m, cm->add);
    int uj = mr_skeleton_find(sk, cm->upper_joint), hj = mr_skeleton_find(sk, cm->head_joint);
    int aj = mr_skeleton_find(sk, cm->add_joint);
    for (int i = 0; i < 3; i++) r->chain[i] = mr_skeleton_find(sk, cm->ik[i]);
    if (!r->base || !r->other || !r->upper || !r->head || !add || uj < 0 || hj < 0 || aj < 0 || r->chain[0] < 0 ||
        r->chain[1] < 0 || r->chain[2] < 0) {
        printf("  %-10s skipped: a clip or joint the bench uses is missing\n", cm->label);
        return 0;
    }
    int n = sk->joint_count;
    mr_error err = {0};
    if (mr_blend_make_additive_clip(add, sk, NULL, 0.0f, &r->add, &err) != MR_OK) {
        printf("  %-10s skipped: %s\n", cm->label, err.msg);
        return 0;
    }
    mr_mask_init(&r->upper_mask, n, 0.0f);
    mr_mask_init(&r->head_mask, n, 0.0f);
    mr_mask_init(&r->add_mask, n, 0.0f);
    mr_mask_set_subtree(&r->upper_mask, sk, uj, 1.0f);
    mr_mask_set_subtree(&r->head_mask, sk, hj, 1.0f);
    mr_mask_ramp(&r->add_mask, sk, aj, 3, 0.3f, 1.0f);
    mr_pose_init(&r->pose, n);
    mr_pose_init(&r->a, n);
    mr_pose_init(&r->b, n);
    mr_mixer_desc d = {.max_tracks = 4};
    mr_mixer_create(sk, m->axes.up, &d, &r->one, NULL);
    mr_mixer_create(sk, m->axes.up, &d, &r->four, NULL);
    mr_play_opts p = {0};
    p.loop = MR_LOOP_REPEAT;
    mr_mixer_play(r->one, 0, r->base, &p, NULL);
    mr_mixer_play(r->four, 0, r->base, &p, NULL);
    mr_mixer_set_mask(r->four, 1, &r->upper_mask, NULL);
    mr_mixer_play(r->four, 1, r->upper, &p, NULL);
    mr_mixer_set_weight(r->four, 1, 0.8f, 0.0f, NULL);
    mr_mixer_set_mask(r->four, 2, &r->head_mask, NULL);
    mr_mixer_play(r->four, 2, r->head, &p, NULL);
    mr_mixer_set_weight(r->four, 2, 0.6f, 0.0f, NULL);
    mr_mixer_set_additive(r->four, 3, 1, NULL);
    mr_mixer_set_mask(r->four, 3, &r->add_mask, NULL);
    mr_mixer_play(r->four, 3, r->add, &p, NULL);
    mr_mixer_set_weight(r->four, 3, 0.7f, 0.0f, NULL);
    return 1;
}

static void rig_free(rig *r)
{
    mr_mixer_destroy(r->one);
    mr_mixer_destroy(r->four);
    mr_pose_deinit(&r->pose);
    mr_pose_deinit(&r->a);
    mr_pose_deinit(&r->b);
    mr_mask_deinit(&r->upper_mask);
    mr_mask_deinit(&r->head_mask);
    mr_mask_deinit(&r->add_mask);
    mr_clip_destroy(r->add);
}

enum { C_SAMPLE, C_MIXER1, C_BLEND2, C_LAYERS4, C_IK, C_COUNT };

static void run_case(rig *r, int which, float t, int i)
{
    const mr_skeleton *sk = &r->m->skeleton;
    switch (which) {
    case C_SAMPLE:
        mr_clip_sample(r->base, sk, t, MR_WRAP_LOOP, &r->pose);
        break;
    case C_MIXER1:
        mr_mixer_update(r->one, 1.0f / 60, NULL);
        mr_mixer_evaluate(r->one, &r->pose, NULL, NULL);
        break;
    case C_BLEND2: {
        mr_clip_sample(r->base, sk, t, MR_WRAP_LOOP, &r->a);
        mr_clip_sample(r->other, sk, t, MR_WRAP_LOOP, &r->b);
        mr_blend_layer layers[2] = {{&r->a, 0.6f, NULL}, {&r->b, 0.4f, NULL}};
        mr_blend_job job = {sk, layers, 2, 0.0f, &r->pose};
        mr_blend_run(&job, NULL);
        break;
    }
    case C_LAYERS4:
        mr_mixer_update(r->four, 1.0f / 60, NULL);
        mr_mixer_evaluate(r->four, &r->pose, NULL, NULL);
        break;
    case C_IK: {
        /* A target circling in front of the shoulder; the two edited
         * rotations are restored so every solve starts from the clip. */
        glm_vec4_copy(r->a.r[r->chain[0]], r->pose.r[r->chain[0]]);
        glm_vec4_copy(r->a.r[r->chain[1]], r->pose.r[r->chain[1]]);
        mr_two_bone_job job = {sk, &r->pose, r->chain[0], r->chain[1], r->chain[2], {0}, {0, 1, 0}, 1.0f, 0.05f, 0};
        float ang = 0.01f * (float)(i % 628);
        glm_vec3_add(r->b.t[0], (vec3){8.0f * cosf(ang), 10.0f, 50.0f + 8.0f * sinf(ang)}, job.target);
        mr_ik_two_bone(&job, NULL);
        break;
    }
    }
}

/* ns per joint of one evaluation of every case, median over runs. */
static void time_cases(rig *r, int runs, int iters, double *ns)
{
    const mr_skeleton *sk = &r->m->skeleton;
    double samples[C_COUNT][64];
    mr_clip_sample(r->base, sk, 0.3f, MR_WRAP_LOOP, &r->a);   /* IK solves on this pose */
    mr_pose_set_rest(&r->b, sk);
    volatile float sink = 0;
    float t[C_COUNT] = {0};
    for (int run = 0; run < runs; run++)
        for (int c = 0; c < C_COUNT; c++) {
            if (c == C_IK) mr_pose_copy(&r->pose, &r->a);
            double t0 = cpu_now();
            for (int i = 0; i < iters; i++) {
                t[c] += 1.0f / 60.0f;
                run_case(r, c, t[c], i);
                sink += r->pose.r[sk->joint_count - 1][0];
            }
            samples[c][run] = (cpu_now() - t0) * 1e9 / ((double)iters * sk->joint_count);
        }
    (void)sink;
    for (int c = 0; c < C_COUNT; c++) ns[c] = mr_bench_median(samples[c], runs);
}

void mr_bench_choreo(const mr_bench_opts *o)
{
    int runs = o->quick ? 3 : 31, iters = o->quick ? 200 : 1000;
    printf("== choreography: ns per joint (thread CPU time), median of %d runs, time stepped by 1/60 s;\n"
           "   (x) = cost / sample\n", runs);
    printf("  %-10s %6s %8s %15s %15s %15s %17s\n", "model", "joints", "sample", "mixer-1", "blend-2",
           "layers-4", "IK solve (/joint)");
    for (size_t k = 0; k < sizeof models / sizeof *models; k++) {
        mr_model *m = load(o, &models[k]);
        if (!m) continue;
        rig r;
        if (!rig_make(&r, m, &models[k])) {
            rig_free(&r);
            mr_model_destroy(m);
            continue;
        }
        double ns[C_COUNT];
        time_cases(&r, runs, iters, ns);
        int n = m->skeleton.joint_count;
        printf("  %-10s %6d %8.1f %7.1f (%4.1fx) %7.1f (%4.1fx) %7.1f (%4.1fx) %7.0f ns (%5.1f)\n", models[k].label, n,
               ns[C_SAMPLE], ns[C_MIXER1], ns[C_MIXER1] / ns[C_SAMPLE], ns[C_BLEND2], ns[C_BLEND2] / ns[C_SAMPLE],
               ns[C_LAYERS4], ns[C_LAYERS4] / ns[C_SAMPLE], ns[C_IK] * n, ns[C_IK]);
        rig_free(&r);
        mr_model_destroy(m);
    }
}
