/* bench_ik.c — cost of chain IK and full-body IK, next to local-to-model.
 *
 * Microseconds per solve (thread CPU time, median of runs) of
 *   chain-10 cold     a 10-joint chain (unit bones, a slight rest curve)
 *                     solved from its rest pose toward 64 held-out
 *                     reachable targets (where its tip is in random poses),
 *                     FABRIK and CCD at their defaults;
 *   chain-10 tracking the same chain following a target that moves 1/60 s
 *                     along a circle, the pose kept from solve to solve (as
 *                     a character's tail follows something frame by frame);
 *   body-5            the mannequin's full-body solve with five goals (both
 *                     feet planted where they stand, both hands and the head
 *                     on targets taken from random planted poses) from 32
 *                     walk poses;
 * each beside the local-to-model (mr_pose_to_model) of the same skeleton's
 * pose, measured in the same run: the ratio says how many local-to-models a
 * solve costs. Every solve starts with a pose copy (counted). The lines also
 * say how many solves reached their targets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "anim/clip_runtime.h"
#include "anim/ik.h"
#include "anim/ik_body.h"
#include "anim/ik_chain.h"
#include "anim/ik_rig.h"
#include "anim/override.h"
#include "bench/bench.h"
#include "core/str.h"
#include "formats/load.h"

#define TARGETS 64
#define POSES 32

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static float rnd(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)(*s >> 8) / (float)(1u << 24);
}

static void random_turn(unsigned *s, float deg, versor q)
{
    vec3 axis = {rnd(s) - 0.5f, rnd(s) - 0.5f, rnd(s) - 0.5f};
    if (glm_vec3_norm(axis) < 1e-3f) axis[0] = 1.0f;
    glm_quatv(q, glm_rad(deg * (2.0f * rnd(s) - 1.0f)), axis);
}

static void tip(const mr_skeleton *sk, const mr_pose *p, int j, vec3 out)
{
    mat4 m;
    mr_pose_model_matrix(sk, p, j, m);
    glm_vec3_copy(m[3], out);
}

/* Median microseconds of local-to-model of pose. */
static double time_l2m(const mr_skeleton *sk, const mr_pose *pose, int runs, int iters)
{
    mat4 *model = malloc(sizeof(mat4) * (size_t)sk->joint_count);
    double s[64];
    volatile float sink = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = cpu_now();
        for (int i = 0; i < iters; i++) {
            mr_pose_to_model(sk, pose, model);
            sink += model[sk->joint_count - 1][3][0];
        }
        s[r] = (cpu_now() - t0) * 1e6 / iters;
    }
    (void)sink;
    free(model);
    return mr_bench_median(s, runs);
}

static void bench_chain(int runs, int iters)
{
    enum { N = 10 };
    mr_skeleton sk;
    if (mr_skeleton_init(&sk, N) != MR_OK) return;
    for (int i = 0; i < N; i++) {
        sk.names[i] = mr_str_fmt("j%d", i);
        sk.parents[i] = i - 1;
        if (i) sk.rest_t[i][0] = 1.0f;
        glm_quatv(sk.rest_r[i], glm_rad(8.0f), (vec3){0, 0, 1});
    }
    mr_skeleton_compute_inverse_bind(&sk);
    mr_pose rest, pose;
    mr_pose_init(&rest, N);
    mr_pose_init(&pose, N);
    mr_pose_set_rest(&rest, &sk);
    vec3 targets[TARGETS];
    unsigned seed = 17;
    for (int k = 0; k < TARGETS; k++) {
        mr_pose_copy(&pose, &rest);
        for (int j = 0; j < N - 1; j++) {
            versor q;
            random_turn(&seed, 35.0f, q);
            glm_quat_mul(pose.r[j], q, pose.r[j]);
        }
        tip(&sk, &pose, N - 1, targets[k]);
    }
    double l2m = time_l2m(&sk, &rest, runs, iters * 10);
    static const char *const names[2] = {"FABRIK", "CCD"};
    for (int s = 0; s < 2; s++) {
        /* cold: from rest to each held-out target */
        double samples[64];
        int reached = 0, its = 0, solves = 0;
        for (int r = 0; r < runs; r++) {
            double t0 = cpu_now();
            for (int i = 0; i < iters; i++) {
                mr_pose_copy(&pose, &rest);
                mr_ik_chain_job job = {0};
                job.skeleton = &sk;
                job.pose = &pose;
                job.first = 0;
                job.last = N - 1;
                job.solver = s ? MR_IK_CCD : MR_IK_FABRIK;
                job.weight = 1.0f;
                glm_vec3_copy(targets[i % TARGETS], job.target);
                mr_ik_chain_run(&job, NULL);
                if (r == 0) {
                    reached += job.reached;
                    its += job.iterations_done;
                    solves++;
                }
            }
            samples[r] = (cpu_now() - t0) * 1e6 / iters;
        }
        double cold = mr_bench_median(samples, runs);
        printf("  chain-10 %-6s cold      %7.2f us (%6.1fx local-to-model)  %d of %d reached, %.1f passes\n",
               names[s], cold, cold / l2m, reached, solves, (double)its / solves);
        /* tracking: a moving target, the pose kept */
        mr_pose_copy(&pose, &rest);
        float t = 0.0f;
        reached = its = solves = 0;
        for (int r = 0; r < runs; r++) {
            double t0 = cpu_now();
            for (int i = 0; i < iters; i++) {
                t += 1.0f / 60.0f;
                mr_ik_chain_job job = {0};
                job.skeleton = &sk;
                job.pose = &pose;
                job.first = 0;
                job.last = N - 1;
                job.solver = s ? MR_IK_CCD : MR_IK_FABRIK;
                job.weight = 1.0f;
                glm_vec3_copy((vec3){5.0f + 2.0f * cosf(t), 3.0f + 2.0f * sinf(t), 1.5f * sinf(0.7f * t)}, job.target);
                mr_ik_chain_run(&job, NULL);
                if (r == 0) {
                    reached += job.reached;
                    its += job.iterations_done;
                    solves++;
                }
            }
            samples[r] = (cpu_now() - t0) * 1e6 / iters;
        }
        double track = mr_bench_median(samples, runs);
        printf("  chain-10 %-6s tracking  %7.2f us (%6.1fx local-to-model)  %d of %d reached, %.1f passes\n",
               names[s], track, track / l2m, reached, solves, (double)its / solves);
    }
    printf("  (local-to-model of the 10-joint pose: %.3f us)\n", l2m);
    mr_pose_deinit(&rest);
    mr_pose_deinit(&pose);
    mr_skeleton_deinit(&sk);
}

static void bench_body(int runs, int iters)
{
    mr_model *m = NULL;
    mr_error err = {0};
    const char *anims[1] = {"models/walk.md5anim"};
    if (mr_load_model("models/mannequin.md5mesh", anims, 1, &m, &err) != MR_OK) {
        printf("  body-5 skipped: %s\n", err.msg);
        return;
    }
    const mr_skeleton *sk = &m->skeleton;
    mr_ik_rig rig;
    if (mr_ik_rig_find(sk, &rig, &err) != MR_OK || m->clip_count < 1) {
        printf("  body-5 skipped: %s\n", err.msg[0] ? err.msg : "no walk clip");
        mr_model_destroy(m);
        return;
    }
    int n = sk->joint_count;
    mr_pose *poses = calloc(POSES, sizeof(mr_pose)), pose, aim;
    mr_ik_goal (*goals)[5] = calloc(POSES, sizeof *goals);
    mr_pose_init(&pose, n);
    mr_pose_init(&aim, n);
    unsigned seed = 5;
    for (int k = 0; k < POSES; k++) {
        mr_pose_init(&poses[k], n);
        mr_clip_sample(m->clips[0], sk, m->clips[0]->duration * (float)k / POSES, MR_WRAP_LOOP, &poses[k]);
        /* targets from a random planted pose near this one */
        mr_pose_copy(&aim, &poses[k]);
        vec3 feet[2];
        for (int i = 0; i < 2; i++) tip(sk, &aim, rig.limb[MR_IK_LEG_L + i][2], feet[i]);
        vec3 d = {4.0f * (rnd(&seed) - 0.5f), 4.0f * (rnd(&seed) - 0.5f), 4.0f * (rnd(&seed) - 0.5f)};
        mr_override_translation(sk, &aim, rig.pelvis, d, MR_SPACE_MODEL, MR_OVERRIDE_ADD, 1.0f);
        versor q;
        for (int i = 0; i < rig.spine_count; i++) {
            random_turn(&seed, 10.0f, q);
            glm_quat_mul(aim.r[rig.spine[i]], q, aim.r[rig.spine[i]]);
        }
        for (int l = MR_IK_ARM_L; l <= MR_IK_ARM_R; l++)
            for (int c = 0; c < 2; c++) {
                random_turn(&seed, 40.0f, q);
                glm_quat_mul(aim.r[rig.limb[l][c]], q, aim.r[rig.limb[l][c]]);
            }
        for (int i = 0; i < 2; i++) {
            const int *lj = rig.limb[MR_IK_LEG_L + i];
            mr_two_bone_job tb = {sk, &aim, lj[0], lj[1], lj[2], {0}, {0}, 1.0f, 0.0f, 0};
            glm_vec3_copy(feet[i], tb.target);
            mr_ik_two_bone(&tb, NULL);
        }
        int joints[5] = {rig.limb[MR_IK_LEG_L][2], rig.limb[MR_IK_LEG_R][2], rig.limb[MR_IK_ARM_L][2],
                         rig.limb[MR_IK_ARM_R][2], rig.head};
        for (int g = 0; g < 5; g++) {
            goals[k][g].joint = joints[g];
            goals[k][g].weight = 1.0f;
            if (g < 2) glm_vec3_copy(feet[g], goals[k][g].position);
            else tip(sk, &aim, joints[g], goals[k][g].position);
        }
    }
    double l2m = time_l2m(sk, &poses[0], runs, iters * 10);
    mat4 *scratch = malloc(sizeof(mat4) * (size_t)n);
    double samples[64];
    int reached = 0, solves = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = cpu_now();
        for (int i = 0; i < iters; i++) {
            int k = i % POSES;
            mr_pose_copy(&pose, &poses[k]);
            mr_ik_goal g[5];
            memcpy(g, goals[k], sizeof g);
            mr_ik_body_job job = {0};
            job.skeleton = sk;
            job.rig = &rig;
            job.pose = &pose;
            job.goals = g;
            job.goal_count = 5;
            job.scratch = scratch;
            mr_ik_body_run(&job, NULL);
            if (r == 0) {
                reached += job.reached;
                solves++;
            }
        }
        samples[r] = (cpu_now() - t0) * 1e6 / iters;
    }
    double body = mr_bench_median(samples, runs);
    printf("  body-5 mannequin        %7.2f us (%6.1fx local-to-model)  %d of %d reached (feet, hands, head)\n",
           body, body / l2m, reached, solves);
    printf("  (local-to-model of the mannequin's %d-joint pose: %.3f us)\n", n, l2m);
    for (int k = 0; k < POSES; k++) mr_pose_deinit(&poses[k]);
    free(poses);
    free(goals);
    free(scratch);
    mr_pose_deinit(&pose);
    mr_pose_deinit(&aim);
    mr_model_destroy(m);
}

void mr_bench_ik(const mr_bench_opts *o)
{
    int runs = o->quick ? 3 : 21, iters = o->quick ? 64 : 640;
    printf("== IK: us per solve (thread CPU time), median of %d runs; (x) = solve / local-to-model of the same\n"
           "   skeleton's pose, measured in this run\n", runs);
    bench_chain(runs, iters);
    bench_body(runs, iters);
}
