/* bench_springs.c — cost of spring chains (anim/springs.h).
 *
 * The workload of issue 43: 100 characters, each with 5 chains of 8 spring
 * joints (hair, tail, straps: 45 chain joints with the tips) on a 50-joint
 * skeleton, 3 colliders (2 spheres, 1 capsule) every chain collides with,
 * the characters walking in circles and rocking their hips. One frame is
 * every character's springs updated by 1/60 s: in the fixed mode (120 Hz:
 * two steps a frame; a frame's time falls on a step, so no fractional step
 * is drawn) and the frame mode (one step). The baseline, measured in the same run, is every character's
 * local-to-model (mr_pose_to_model) of the same pose. Times are the
 * thread's CPU time (and wall time beside it), median of runs; the cases
 * take turns within each run. The header line names the workload and the
 * machine's load average while it ran: on a shared machine the ratio to
 * the baseline is the figure to compare across runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "anim/springs.h"
#include "bench/bench.h"
#include "core/str.h"

#define CHARACTERS 100
#define CHAINS 5
#define CHAIN_JOINTS 8           /* spring joints per chain (plus a tip each) */
#define BODY 5                   /* root, hips, spine, chest, head */
#define JOINTS (BODY + CHAINS * (CHAIN_JOINTS + 1))

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void make_skeleton(mr_skeleton *sk)
{
    static const struct { int parent; float t[3]; } body[BODY] = {
        {-1, {0, 0, 0}}, {0, {0, 0.95f, 0}}, {1, {0, 0.2f, 0}}, {2, {0, 0.25f, 0}}, {3, {0, 0.3f, 0}}};
    mr_skeleton_init(sk, JOINTS);
    for (int j = 0; j < BODY; j++) {
        sk->parents[j] = body[j].parent;
        memcpy(sk->rest_t[j], body[j].t, sizeof body[j].t);
        sk->names[j] = mr_str_fmt("body%d", j);
    }
    /* chains: from the head (2 of hair), the hips (a tail) and the chest (2 straps) */
    static const int from[CHAINS] = {4, 4, 1, 3, 3};
    static const float first[CHAINS][3] = {{0.05f, 0.1f, -0.1f}, {-0.05f, 0.1f, -0.1f}, {0, 0, -0.12f}, {0.15f, 0, 0.05f}, {-0.15f, 0, 0.05f}};
    int j = BODY;
    for (int c = 0; c < CHAINS; c++)
        for (int k = 0; k <= CHAIN_JOINTS; k++, j++) {
            sk->parents[j] = k ? j - 1 : from[c];
            if (k) sk->rest_t[j][1] = -0.06f;
            else memcpy(sk->rest_t[j], first[c], sizeof first[c]);
            sk->names[j] = mr_str_fmt("chain%d_%d", c, k);
        }
    mr_skeleton_compute_inverse_bind(sk);
}

static mr_springs *make_springs(const mr_skeleton *sk, int step)
{
    mr_spring_joint joints[CHAINS * CHAIN_JOINTS];
    mr_spring_chain chains[CHAINS];
    mr_spring_collider colliders[3] = {
        {3, MR_COLLIDER_SPHERE, {0, 0.1f, -0.05f}, {0}, {0}, 0.12f, 0},
        {4, MR_COLLIDER_SPHERE, {0, 0.1f, 0}, {0}, {0}, 0.1f, 0},
        {1, MR_COLLIDER_CAPSULE, {0, -0.1f, -0.05f}, {0, -0.5f, -0.05f}, {0}, 0.09f, 0},
    };
    int list[CHAINS * 3];
    for (int c = 0; c < CHAINS; c++) {
        for (int k = 0; k < CHAIN_JOINTS; k++) {
            int j = BODY + c * (CHAIN_JOINTS + 1) + k;
            joints[c * CHAIN_JOINTS + k] = (mr_spring_joint){j, j + 1, 1.0f - 0.05f * k, 0.4f, 0.5f, {0, -1, 0}, 0.02f};
        }
        chains[c] = (mr_spring_chain){c * CHAIN_JOINTS, CHAIN_JOINTS, c == 2 ? 0 : -1, c * 3, 3};
        for (int k = 0; k < 3; k++) list[c * 3 + k] = k;
    }
    mr_springs_desc d = {joints, CHAINS * CHAIN_JOINTS, chains, CHAINS, colliders, 3, list, CHAINS * 3, step, 0, 0};
    mr_springs *s = NULL;
    mr_springs_create(sk, &d, &s, NULL);
    return s;
}

static void drive(mr_pose *pose, int ch, double t, float xf[16])
{
    double a = 0.6 * t + ch * 0.37, r = 3 + ch % 7;
    mat4 m = GLM_MAT4_IDENTITY_INIT;
    glm_translate(m, (vec3){(float)(r * cos(a)), 0, (float)(r * sin(a))});
    glm_rotate(m, (float)(-a), (vec3){0, 1, 0});
    memcpy(xf, m, sizeof m);
    glm_quatv(pose->r[1], (float)(0.25 * sin(3.2 * t + ch)), (vec3){1, 0, 0});
    glm_quatv(pose->r[3], (float)(0.4 * sin(2.3 * t + ch)), (vec3){0, 1, 0});
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void mr_bench_springs(const mr_bench_opts *o)
{
    int runs = o->quick ? 3 : 15, frames = o->quick ? 10 : 60;
    double load[3] = {0, 0, 0};
    if (getloadavg(load, 3) < 1) load[0] = -1;
    mr_skeleton sk;
    make_skeleton(&sk);
    mr_springs *fixed[CHARACTERS], *frame[CHARACTERS];
    mr_pose poses[CHARACTERS];
    float xf[CHARACTERS][16];
    mat4 *model = malloc(sizeof(mat4) * JOINTS);
    for (int c = 0; c < CHARACTERS; c++) {
        fixed[c] = make_springs(&sk, MR_SPRINGS_FIXED);
        frame[c] = make_springs(&sk, MR_SPRINGS_FRAME);
        mr_pose_init(&poses[c], JOINTS);
        mr_pose_set_rest(&poses[c], &sk);
    }
    if (!model || !fixed[CHARACTERS - 1] || !frame[CHARACTERS - 1]) {
        printf("== springs: skipped: out of memory\n");
        goto out;
    }
    printf("== springs: %d characters x %d chains of %d joints (%d side by side, their constants held once for %d springs), "
           "3 colliders, 60 fps (1/60 s a frame); ms a frame, median of %d runs of %d frames; load average %.1f on %ld CPUs\n",
           CHARACTERS, CHAINS, CHAIN_JOINTS, mr_springs_lane_chains(fixed[0]), mr_springs_lane_sharers(fixed[0]), runs, frames, load[0],
           sysconf(_SC_NPROCESSORS_ONLN));
    /* per case: thread CPU time, wall time */
    double t_fixed[2][32], t_frame[2][32], t_base[2][32], sink = 0;
    double t = 0;
    for (int r = 0; r < runs; r++) {
        double a[2] = {0, 0}, b[2] = {0, 0}, c[2] = {0, 0};
        for (int f = 0; f < frames; f++, t += 1.0 / 60) {
            for (int ch = 0; ch < CHARACTERS; ch++) drive(&poses[ch], ch, t, xf[ch]);
            double t0 = cpu_now(), w0 = wall_now();
            for (int ch = 0; ch < CHARACTERS; ch++) mr_springs_update(fixed[ch], &sk, &poses[ch], 1.0 / 60, xf[ch]);
            double t1 = cpu_now(), w1 = wall_now();
            for (int ch = 0; ch < CHARACTERS; ch++) mr_springs_update(frame[ch], &sk, &poses[ch], 1.0 / 60, xf[ch]);
            double t2 = cpu_now(), w2 = wall_now();
            for (int ch = 0; ch < CHARACTERS; ch++) {
                mr_pose_to_model(&sk, &poses[ch], model);
                sink += model[JOINTS - 1][3][1];
            }
            double t3 = cpu_now(), w3 = wall_now();
            a[0] += t1 - t0; b[0] += t2 - t1; c[0] += t3 - t2;
            a[1] += w1 - w0; b[1] += w2 - w1; c[1] += w3 - w2;
        }
        for (int k = 0; k < 2; k++) { t_fixed[k][r] = a[k] / frames; t_frame[k][r] = b[k] / frames; t_base[k][r] = c[k] / frames; }
    }
    double mf = mr_bench_median(t_fixed[0], runs), mr = mr_bench_median(t_frame[0], runs), mb = mr_bench_median(t_base[0], runs);
    double wf = mr_bench_median(t_fixed[1], runs), wr = mr_bench_median(t_frame[1], runs), wb = mr_bench_median(t_base[1], runs);
    printf("  fixed step (120 Hz, 2 steps a frame)  %7.3f ms CPU  %7.3f ms wall  %6.1fx local-to-model\n", mf * 1e3, wf * 1e3, mf / mb);
    printf("  frame step (VRM, 1 step a frame)      %7.3f ms CPU  %7.3f ms wall  %6.1fx local-to-model\n", mr * 1e3, wr * 1e3, mr / mb);
    printf("  local-to-model (baseline)             %7.3f ms CPU  %7.3f ms wall  (%d joints x %d characters)%s\n", mb * 1e3,
           wb * 1e3, JOINTS, CHARACTERS, sink == 12345.678 ? " " : "");
out:
    for (int c = 0; c < CHARACTERS; c++) {
        mr_springs_destroy(fixed[c]);
        mr_springs_destroy(frame[c]);
        mr_pose_deinit(&poses[c]);
    }
    free(model);
    mr_skeleton_deinit(&sk);
}
