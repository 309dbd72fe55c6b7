/* test_springs.c — spring chains (anim/springs.h): the description's checks
 * (one negative test per rule), rest stays rest, gravity pulls, no NaN for
 * zero-length bones / dt 0 / huge dt / NaN dt / teleports, the fixed step
 * gives the same motion at 30, 60 and 144 fps (1 mm at common times), the
 * fixed step never leaves a tip inside a collider (0.1 mm) where the
 * one-step-per-frame mode (VRM's response) does, a centre joint carries
 * the tips with it, and chains stepped side by side (vector lanes) give the
 * same bits as the same chains stepped one joint at a time. */
#include <stdlib.h>

#include "anim/override.h"
#include "anim/springs.h"
#include "core/str.h"
#include "test.h"

/* root(0) -> hips(1) -> chest(2); hips -> tail0(3) -> tail1 -> tail2 -> tail3 -> tail4(7),
 * a 4-bone tail hanging back and down from the hips, 0.1 m a bone; a ball
 * (collider) joint on the hips. */
enum { ROOT, HIPS, CHEST, T0, T1, T2, T3, T4, BALL, NJ };

static void make_skeleton(mr_skeleton *sk)
{
    static const struct { const char *name; int parent; float t[3]; } j[NJ] = {
        {"root", -1, {0, 0, 0}},   {"hips", 0, {0, 1, 0}},      {"chest", 1, {0, 0.3f, 0}},
        {"tail0", 1, {0, 0, -0.1f}}, {"tail1", 3, {0, -0.05f, -0.0866f}}, {"tail2", 4, {0, -0.0866f, -0.05f}},
        {"tail3", 5, {0, -0.1f, 0}}, {"tail4", 6, {0, -0.1f, 0}}, {"ball", 1, {0, -0.25f, -0.1f}},
    };
    mr_skeleton_init(sk, NJ);
    for (int i = 0; i < NJ; i++) {
        sk->names[i] = mr_str_dup(j[i].name);
        sk->parents[i] = j[i].parent;
        for (int k = 0; k < 3; k++) sk->rest_t[i][k] = j[i].t[k];
    }
    mr_skeleton_compute_inverse_bind(sk);
}

typedef struct rig {
    mr_skeleton sk;
    mr_pose pose;
    mr_spring_joint joints[4];
    mr_spring_chain chain;
    mr_spring_collider collider;
    int list[1];
    mr_springs_desc desc;
} rig;

static void rig_make(rig *r, int step, float stiffness, float gravity, float drag)
{
    memset(r, 0, sizeof *r);
    make_skeleton(&r->sk);
    mr_pose_init(&r->pose, NJ);
    mr_pose_set_rest(&r->pose, &r->sk);
    for (int i = 0; i < 4; i++)
        r->joints[i] = (mr_spring_joint){T0 + i, T0 + i + 1, stiffness, drag, gravity, {0, -1, 0}, 0.02f};
    r->chain = (mr_spring_chain){0, 4, -1, 0, 1};
    r->collider = (mr_spring_collider){BALL, MR_COLLIDER_SPHERE, {0, 0, 0}, {0}, {0}, 0.08f, 0};
    r->list[0] = 0;
    r->desc = (mr_springs_desc){r->joints, 4, &r->chain, 1, &r->collider, 1, r->list, 1, step, 0, 0};
}

static void rig_free(rig *r)
{
    mr_pose_deinit(&r->pose);
    mr_skeleton_deinit(&r->sk);
}

static void world_pos(const rig *r, int j, const mat4 xf, vec3 out)
{
    mat4 m, w;
    mr_pose_model_matrix(&r->sk, &r->pose, j, m);
    glm_mat4_mul((vec4 *)xf, m, w);
    glm_vec3_copy(w[3], out);
}

/* The character's placement at time t: walks forward, sways and turns. */
static void motion(double t, mat4 out)
{
    glm_mat4_identity(out);
    float x = (float)(0.3 * sin(2.1 * t)), z = (float)(1.2 * t), y = (float)(0.05 * sin(7.0 * t));
    glm_translate(out, (vec3){x, y, z});
    glm_rotate(out, (float)(0.8 * sin(1.3 * t)), (vec3){0, 1, 0});
    glm_rotate(out, (float)(0.3 * sin(3.0 * t)), (vec3){1, 0, 0});
}

static int all_finite(const mr_pose *p)
{
    for (int j = 0; j < p->joint_count; j++)
        for (int k = 0; k < 4; k++) if (!isfinite(p->r[j][k])) return 0;
    return 1;
}

static void expect_refused(rig *r, const char *what)
{
    mr_error err = {0};
    mr_springs *s = NULL;
    CHECK(mr_springs_create(&r->sk, &r->desc, &s, &err) != MR_OK);
    CHECK(s == NULL);
    CHECK_STR_CONTAINS(err.msg, what);
}

TEST(refuses_bad_descriptions)
{
    rig r;
    rig_make(&r, MR_SPRINGS_FIXED, 1, 0, 0.4f);
    r.joints[2].drag = 1.5f;
    expect_refused(&r, "chain 1 joint 3: drag must be in 0..1, got 1.5");
    r.joints[2].drag = 0.4f;
    r.joints[1].stiffness = -1;
    expect_refused(&r, "stiffness must be >= 0");
    r.joints[1].stiffness = NAN;
    expect_refused(&r, "stiffness must be >= 0");
    r.joints[1].stiffness = 1;
    r.joints[0].gravity_power = -2;
    expect_refused(&r, "gravity power must be >= 0");
    r.joints[0].gravity_power = 0;
    r.joints[3].radius = -0.1f;
    expect_refused(&r, "radius must be >= 0");
    r.joints[3].radius = 0;
    r.joints[1].tail = T4;
    expect_refused(&r, "the tip 'tail4' is not a child of 'tail1'");
    r.joints[1].tail = T2;
    r.joints[2].joint = T0;
    r.joints[2].tail = T1;
    expect_refused(&r, "'tail0' is already in a spring");
    r.joints[2].joint = T2;
    r.joints[2].tail = T3;
    r.joints[0].joint = 99;
    expect_refused(&r, "joint 99 out of range");
    r.joints[0].joint = T0;
    r.collider.joint = -1;
    expect_refused(&r, "collider 1: joint -1 out of range");
    r.collider.joint = BALL;
    r.collider.radius = -1;
    expect_refused(&r, "collider 1: radius must be >= 0");
    r.collider.radius = 0.1f;
    r.list[0] = 3;
    expect_refused(&r, "collider index 4 out of range");
    r.list[0] = 0;
    r.desc.rate = 5;
    expect_refused(&r, "rate must be in 10..2000");
    r.desc.rate = 0;
    r.chain.count = 3;
    expect_refused(&r, "belong to no chain");
    r.chain.count = 4;
    r.desc.step = 7;
    expect_refused(&r, "step must be fixed or frame");
    r.desc.step = 0;
    mr_springs *s = NULL;
    CHECK(mr_springs_create(&r.sk, &r.desc, &s, NULL) == MR_OK);
    mr_springs_destroy(s);
    rig_free(&r);
}

TEST(stiffness_alone_keeps_the_rest_pose)
{
    for (int mode = 0; mode < 2; mode++) {
        rig r;
        rig_make(&r, mode, 2, 0, 0.4f);
        r.desc.collider_count = 0;
        r.desc.chain_collider_count = 0;
        r.chain.collider_count = 0;
        mr_springs *s = NULL;
        CHECK(mr_springs_create(&r.sk, &r.desc, &s, NULL) == MR_OK);
        for (int f = 0; f < 120; f++) mr_springs_update(s, &r.sk, &r.pose, 1.0 / 60, NULL);
        for (int j = T0; j < T4; j++)
            CHECK_NEAR(fabs(r.pose.r[j][3]), 1.0, 1e-5);
        mr_springs_destroy(s);
        rig_free(&r);
    }
}

TEST(gravity_pulls_the_tail_down_and_keeps_bone_lengths)
{
    rig r;
    rig_make(&r, MR_SPRINGS_FIXED, 0.5f, 2.0f, 0.4f);
    mr_springs *s = NULL;
    CHECK(mr_springs_create(&r.sk, &r.desc, &s, NULL) == MR_OK);
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    vec3 before, after;
    mr_springs_update(s, &r.sk, &r.pose, 0, NULL);
    world_pos(&r, T1, id, before);
    for (int f = 0; f < 240; f++) mr_springs_update(s, &r.sk, &r.pose, 1.0 / 60, NULL);
    world_pos(&r, T1, id, after);
    CHECK(after[1] < before[1] - 0.01f);
    for (int j = T0; j < T4; j++) {
        vec3 a, b;
        world_pos(&r, j, id, a);
        world_pos(&r, j + 1, id, b);
        CHECK_NEAR(glm_vec3_distance(a, b), glm_vec3_norm(r.sk.rest_t[j + 1]), 1e-5);
    }
    mr_springs_destroy(s);
    rig_free(&r);
}

TEST(no_nan_for_zero_length_bones_zero_huge_and_nan_dt_and_teleports)
{
    for (int mode = 0; mode < 2; mode++) {
        rig r;
        rig_make(&r, mode, 1, 1, 0.2f);
        glm_vec3_zero(r.sk.rest_t[T2]);      /* tail1 -> tail2 has no length */
        glm_vec3_zero(r.pose.t[T2]);
        mr_springs *s = NULL;
        CHECK(mr_springs_create(&r.sk, &r.desc, &s, NULL) == MR_OK);
        mat4 xf;
        double dts[] = {1.0 / 60, 0, 0, 1e9, 1.0 / 60, NAN, -1, INFINITY, 1.0 / 144, 1e-12};
        for (int f = 0; f < 200; f++) {
            motion(f / 60.0, xf);
            if (f == 100) glm_translate(xf, (vec3){1000, 0, 0});    /* a teleport */
            CHECK(mr_springs_update(s, &r.sk, &r.pose, dts[f % 10], (float *)xf) == MR_OK);
            CHECK(all_finite(&r.pose));
        }
        mr_springs_destroy(s);
        rig_free(&r);
    }
}

TEST(a_teleport_resets_to_the_rest_direction)
{
    rig r;
    rig_make(&r, MR_SPRINGS_FIXED, 1, 1, 0.2f);
    mr_springs *s = NULL;
    CHECK(mr_springs_create(&r.sk, &r.desc, &s, NULL) == MR_OK);
    mat4 xf;
    for (int f = 0; f < 60; f++) {
        motion(f / 60.0, xf);
        mr_springs_update(s, &r.sk, &r.pose, 1.0 / 60, (float *)xf);
    }
    CHECK(fabs(r.pose.r[T0][3]) < 0.9999f);     /* swinging */
    glm_translate(xf, (vec3){50, 0, 0});
    mr_springs_update(s, &r.sk, &r.pose, 1.0 / 60, (float *)xf);
    for (int j = T0; j < T4; j++) CHECK_NEAR(fabs(r.pose.r[j][3]), 1.0, 1e-6);
    mr_springs_destroy(s);
    rig_free(&r);
}

/* Tip positions of the chain at each time in `times` (seconds), run at fps. */
static void run_at(int fps, const double *times, int count, vec3 (*out)[5], double *pen, int mode, float radius)
{
    rig r;
    rig_make(&r, mode, 0.8f, 0.6f, 0.15f);
    r.collider.radius = radius;
    mr_springs *s = NULL;
    CHECK(mr_springs_create(&r.sk, &r.desc, &s, NULL) == MR_OK);
    int k = 0;
    *pen = 0;
    for (long f = 0; k < count; f++) {
        double t = (double)f / fps;
        mat4 xf;
        motion(t, xf);
        mr_springs_update(s, &r.sk, &r.pose, f ? 1.0 / fps : 0, (float *)xf);
        double p = mr_springs_penetration(s, &r.sk, &r.pose, (float *)xf);
        if (f && p > *pen) *pen = p;
        if (fabs(t - times[k]) < 1e-9) {
            for (int j = 0; j < 5; j++) world_pos(&r, T0 + j, xf, out[k][j]);
            k++;
        }
    }
    mr_springs_destroy(s);
    rig_free(&r);
}

TEST(fixed_step_agrees_at_30_60_and_144_fps)
{
    enum { N = 60 };
    double times[N];
    for (int i = 0; i < N; i++) times[i] = (i + 1) / 6.0;      /* common to 30, 60 and 144 fps: 10 s */
    static vec3 a[N][5], b[N][5], c[N][5];
    double pa, pb, pc;
    run_at(30, times, N, a, &pa, MR_SPRINGS_FIXED, 0.08f);
    run_at(60, times, N, b, &pb, MR_SPRINGS_FIXED, 0.08f);
    run_at(144, times, N, c, &pc, MR_SPRINGS_FIXED, 0.08f);
    double worst = 0, moved = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < 5; j++) {
            double d1 = glm_vec3_distance(a[i][j], b[i][j]), d2 = glm_vec3_distance(c[i][j], b[i][j]);
            worst = fmax(worst, fmax(d1, d2));
            if (i) moved = fmax(moved, glm_vec3_distance(b[i][4], b[i - 1][4]));
        }
    printf("       fixed step: 30/60/144 fps differ by at most %.4f mm over 10 s; deepest tip %.5f mm\n",
           worst * 1000, fmax(pa, fmax(pb, pc)) * 1000);
    CHECK(worst < 0.001);
    CHECK(moved > 0.05);     /* the chain did move */
    CHECK(fmax(pa, fmax(pb, pc)) < 1e-4);
}

TEST(frame_mode_is_tied_to_the_frame_rate)
{
    enum { N = 12 };
    double times[N];
    for (int i = 0; i < N; i++) times[i] = (i + 1) / 6.0;
    static vec3 a[N][5], b[N][5];
    double pa, pb;
    run_at(30, times, N, a, &pa, MR_SPRINGS_FRAME, 0.08f);
    run_at(144, times, N, b, &pb, MR_SPRINGS_FRAME, 0.08f);
    double worst = 0;
    for (int i = 0; i < N; i++) worst = fmax(worst, glm_vec3_distance(a[i][4], b[i][4]));
    CHECK(worst > 0.005);     /* what the fixed step is for */
}

TEST(fixed_step_keeps_tips_out_of_a_big_collider_where_frame_mode_does_not)
{
    enum { N = 60 };
    double times[N];
    for (int i = 0; i < N; i++) times[i] = (i + 1) / 6.0;
    static vec3 a[N][5];
    double fixed_pen[3], frame_pen;
    int rates[3] = {30, 60, 144};
    for (int k = 0; k < 3; k++) run_at(rates[k], times, N, a, &fixed_pen[k], MR_SPRINGS_FIXED, 0.14f);
    run_at(60, times, N, a, &frame_pen, MR_SPRINGS_FRAME, 0.14f);
    printf("       collider 0.14 m: deepest tip fixed %.5f / %.5f / %.5f mm, frame mode %.3f mm\n",
           fixed_pen[0] * 1000, fixed_pen[1] * 1000, fixed_pen[2] * 1000, frame_pen * 1000);
    for (int k = 0; k < 3; k++) CHECK(fixed_pen[k] < 1e-4);
    CHECK(frame_pen > 1e-4);
}

TEST(a_centre_joint_carries_the_tips)
{
    /* The whole character moves with the root; with the root as centre the
     * tail sees no motion and stays at rest, in the world it swings. */
    for (int centre = 0; centre < 2; centre++) {
        rig r;
        rig_make(&r, MR_SPRINGS_FIXED, 1, 0, 0.3f);
        r.chain.center = centre ? ROOT : -1;
        mr_springs *s = NULL;
        CHECK(mr_springs_create(&r.sk, &r.desc, &s, NULL) == MR_OK);
        float swing = 0;
        for (int f = 0; f < 120; f++) {
            mat4 m = GLM_MAT4_IDENTITY_INIT;
            motion(f / 60.0, m);
            mr_pose_trs_from_matrix(m, r.pose.t[ROOT], r.pose.r[ROOT], r.pose.s[ROOT]);
            mr_springs_update(s, &r.sk, &r.pose, 1.0 / 60, NULL);
            swing = fmaxf(swing, 1 - fabsf(r.pose.r[T0][3]));
        }
        if (centre) CHECK(swing < 1e-5f);
        else CHECK(swing > 1e-3f);
        mr_springs_destroy(s);
        rig_free(&r);
    }
}

TEST(clone_keeps_the_state)
{
    rig r;
    rig_make(&r, MR_SPRINGS_FIXED, 1, 1, 0.2f);
    mr_springs *s = NULL, *c = NULL;
    CHECK(mr_springs_create(&r.sk, &r.desc, &s, NULL) == MR_OK);
    mat4 xf;
    for (int f = 0; f < 30; f++) {
        motion(f / 60.0, xf);
        mr_springs_update(s, &r.sk, &r.pose, 1.0 / 60, (float *)xf);
    }
    CHECK(mr_springs_clone(s, &c) == MR_OK);
    mr_pose p2;
    mr_pose_init(&p2, NJ);
    mr_pose_copy(&p2, &r.pose);
    motion(31 / 60.0, xf);
    mr_springs_update(s, &r.sk, &r.pose, 1.0 / 60, (float *)xf);
    mr_springs_update(c, &r.sk, &p2, 1.0 / 60, (float *)xf);
    for (int j = 0; j < NJ; j++)
        for (int k = 0; k < 4; k++) CHECK(r.pose.r[j][k] == p2.r[j][k]);
    mr_pose_deinit(&p2);
    mr_springs_destroy(s);
    mr_springs_destroy(c);
    rig_free(&r);
}

/* A body (root, hips, chest, head) and five chains of four joints with
 * their tips: two of hair from the head (the second with a zero-length
 * bone), a tail from the hips in the hips' frame, two straps from the chest
 * (the second also against a plane, which its lane leaves to scalar code);
 * a head sphere, a hip capsule and a ground plane. blocked: one more
 * collider, listed by no chain, on each chain's first joint, which changes
 * no motion but makes every chain one that something could read, so that
 * none steps side by side. */
enum { L_BODY = 4, L_CHAINS = 5, L_LEN = 4, L_JOINTS = L_BODY + L_CHAINS * (L_LEN + 1) };

static void lanes_skeleton(mr_skeleton *sk)
{
    static const struct { int parent; float t[3]; } body[L_BODY] = {
        {-1, {0, 0, 0}}, {0, {0, 1, 0}}, {1, {0, 0.45f, 0}}, {2, {0, 0.3f, 0}}};
    static const int from[L_CHAINS] = {3, 3, 1, 2, 2};
    static const float first[L_CHAINS][3] = {{0.05f, 0.12f, -0.08f}, {-0.05f, 0.12f, -0.08f}, {0, 0, -0.12f},
                                             {0.15f, 0, 0.08f}, {-0.15f, 0, 0.08f}};
    mr_skeleton_init(sk, L_JOINTS);
    for (int j = 0; j < L_BODY; j++) {
        sk->parents[j] = body[j].parent;
        memcpy(sk->rest_t[j], body[j].t, sizeof body[j].t);
        sk->names[j] = mr_str_fmt("body%d", j);
    }
    int j = L_BODY;
    for (int c = 0; c < L_CHAINS; c++)
        for (int k = 0; k <= L_LEN; k++, j++) {
            sk->parents[j] = k ? j - 1 : from[c];
            if (!k) memcpy(sk->rest_t[j], first[c], sizeof first[c]);
            else if (!(c == 1 && k == 2)) { sk->rest_t[j][1] = -0.07f; sk->rest_t[j][2] = -0.02f; }
            sk->names[j] = mr_str_fmt("chain%d_%d", c, k);
        }
    mr_skeleton_compute_inverse_bind(sk);
}

/* uneven 0: five chains of 4 joints (20 joints in four lanes of 5 rows:
 * every lane but the first goes on with a chain another began);
 * uneven 1: chains of 4, 3, 2, 4 and 1 joints (a chain split across two
 * lanes, a lane that runs out before the others); uneven 2: 4, 1, 1, 1, 1
 * (one lane takes a new chain every row, with another centre and other
 * colliders; two lanes empty from the start). With uneven, the second
 * chain's last joint has no tip joint (VRM 0.x's end: a tip out along its
 * own offset). */
static mr_springs *lanes_springs(const mr_skeleton *sk, int step, int blocked, int uneven)
{
    static const int counts[3][L_CHAINS] = {{L_LEN, L_LEN, L_LEN, L_LEN, L_LEN}, {4, 3, 2, 4, 1}, {4, 1, 1, 1, 1}};
    mr_spring_joint joints[L_CHAINS * L_LEN];
    mr_spring_chain chains[L_CHAINS];
    mr_spring_collider colliders[3 + L_CHAINS] = {
        {3, MR_COLLIDER_SPHERE, {0, 0.1f, 0}, {0}, {0}, 0.11f, 0},
        {1, MR_COLLIDER_CAPSULE, {0, -0.05f, -0.06f}, {0, -0.45f, -0.06f}, {0}, 0.1f, 0},
        {0, MR_COLLIDER_PLANE, {0, 0.75f, 0}, {0}, {0, 1, 0}, 0, 0},
    };
    int list[L_CHAINS * 3], n = 0, nj = 0;
    for (int c = 0; c < L_CHAINS; c++) {
        int count = counts[uneven][c];
        for (int k = 0; k < count; k++) {
            int j = L_BODY + c * (L_LEN + 1) + k;
            joints[nj + k] = (mr_spring_joint){j, j + 1, 0.8f - 0.1f * k, 0.3f + 0.05f * c, 0.6f, {0, -1, 0}, 0.025f};
        }
        if (uneven && c == 1) joints[nj + count - 1].tail = -1;
        int first = n;
        list[n++] = 0;
        list[n++] = 1;
        if (c == 4) list[n++] = 2;
        chains[c] = (mr_spring_chain){nj, count, c == 2 ? 1 : -1, first, n - first};
        nj += count;
        colliders[3 + c] = (mr_spring_collider){L_BODY + c * (L_LEN + 1), MR_COLLIDER_SPHERE, {0}, {0}, {0}, 0.01f, 0};
    }
    mr_springs_desc d = {joints, nj, chains, L_CHAINS, colliders, blocked ? 3 + L_CHAINS : 3, list, n, step, 0, 0};
    mr_springs *s = NULL;
    mr_error err = {0};
    if (mr_springs_create(sk, &d, &s, &err) != MR_OK) printf("       %s\n", err.msg);
    return s;
}

TEST(chains_side_by_side_give_the_same_bits_as_one_at_a_time)
{
    mr_skeleton sk;
    lanes_skeleton(&sk);
    for (int run = 0; run < 6; run++) {
        int step = run & 1 ? MR_SPRINGS_FRAME : MR_SPRINGS_FIXED, uneven = run >> 1;
        mr_springs *side = lanes_springs(&sk, step, 0, uneven), *one = lanes_springs(&sk, step, 1, uneven);
        CHECK(side && one);
        if (!side || !one) { mr_springs_destroy(side); mr_springs_destroy(one); break; }
        CHECK(mr_springs_lane_chains(side) == 5);     /* all five, wrapped around four lanes */
        CHECK(mr_springs_lane_chains(one) == 0);
        mr_pose pa, pb;
        mr_pose_init(&pa, L_JOINTS);
        mr_pose_init(&pb, L_JOINTS);
        mr_pose_set_rest(&pa, &sk);
        mr_pose_set_rest(&pb, &sk);
        int same = 1, frames = 0;
        double t = 0, moved = 0;
        float first_tip = 0;
        for (int f = 0; f < 400; f++) {
            /* 60 fps with a 45 fps frame now and then (a fractional step), a frame of dt 0 */
            double dt = f % 50 == 7 ? 0 : f % 9 == 4 ? 1.0 / 45 : 1.0 / 60;
            t += dt;
            mat4 xf;
            motion(t, xf);
            if (uneven && f >= 300) xf[3][0] += 40;     /* a teleport */
            for (int k = 0; k < 2; k++) {
                mr_pose *p = k ? &pb : &pa;
                glm_quatv(p->r[1], (float)(0.5 * sin(3.1 * t)), (vec3){1, 0, 0});
                glm_quatv(p->r[2], (float)(0.6 * sin(2.2 * t)), (vec3){0, 0, 1});
                glm_quatv(p->r[3], (float)(0.7 * sin(1.7 * t)), (vec3){0, 1, 0});
            }
            if (f == 200) {       /* a clone (a reloaded script's) carries on side by side */
                mr_springs *copy = NULL;
                CHECK(mr_springs_clone(side, &copy) == MR_OK);
                if (copy) {
                    mr_springs_destroy(side);
                    side = copy;
                    CHECK(mr_springs_lane_chains(side) == 5);
                }
            }
            CHECK(mr_springs_update(side, &sk, &pa, dt, (float *)xf) == MR_OK);
            CHECK(mr_springs_update(one, &sk, &pb, dt, (float *)xf) == MR_OK);
            if (memcmp(pa.r[0], pb.r[0], sizeof(float) * 4 * L_JOINTS)) same = 0;
            if (!f) first_tip = pa.r[L_BODY + 2][0];
            moved = fmax(moved, fabs(pa.r[L_BODY + 2][0] - first_tip));
            frames++;
        }
        CHECK_MSG(same, "step %d, chains %d: side by side and one at a time differ", step, uneven);
        CHECK(all_finite(&pa));
        CHECK(moved > 0.01);      /* the chains did swing */
        CHECK(frames == 400);
        mr_pose_deinit(&pa);
        mr_pose_deinit(&pb);
        mr_springs_destroy(side);
        mr_springs_destroy(one);
    }
    mr_skeleton_deinit(&sk);
}

/* Springs of one rig with the same settings hold their lane constants
 * once: made apart or cloned, they share them, and stepping any one after
 * the others are gone gives the bits of springs that never shared. */
TEST(springs_of_one_rig_share_their_lane_constants)
{
    mr_skeleton sk;
    lanes_skeleton(&sk);
    mr_springs *a = lanes_springs(&sk, MR_SPRINGS_FIXED, 0, 0), *b = lanes_springs(&sk, MR_SPRINGS_FRAME, 0, 0);
    mr_springs *other = lanes_springs(&sk, MR_SPRINGS_FIXED, 0, 1), *c = NULL;
    mr_springs *blocked = lanes_springs(&sk, MR_SPRINGS_FIXED, 1, 0);
    CHECK(a && b && other && blocked);
    if (!a || !b || !other || !blocked) goto out;
    CHECK(mr_springs_lane_sharers(a) == 2);      /* the step mode changes no constant */
    CHECK(mr_springs_clone(a, &c) == MR_OK);
    CHECK(mr_springs_lane_sharers(b) == 3);
    CHECK(mr_springs_lane_sharers(other) == 1);  /* other chain lengths: other constants */
    CHECK(mr_springs_lane_sharers(blocked) == 0);
    mr_springs *fresh = lanes_springs(&sk, MR_SPRINGS_FIXED, 0, 0);
    CHECK(mr_springs_lane_sharers(fresh) == 4);
    mr_springs_destroy(fresh);
    mr_springs_destroy(a);                       /* the first maker goes first */
    a = NULL;
    CHECK(mr_springs_lane_sharers(c) == 2);
    mr_pose pc, pf;
    mr_pose_init(&pc, L_JOINTS);
    mr_pose_init(&pf, L_JOINTS);
    mr_pose_set_rest(&pc, &sk);
    mr_pose_set_rest(&pf, &sk);
    mr_springs *lone = lanes_springs(&sk, MR_SPRINGS_FIXED, 1, 0);   /* one joint at a time: no lanes */
    int same = 1;
    for (int f = 0; f < 120 && lone; f++) {
        mat4 xf;
        motion(f / 60.0, xf);
        glm_quatv(pc.r[3], (float)(0.7 * sin(f / 20.0)), (vec3){0, 1, 0});
        glm_quatv(pf.r[3], (float)(0.7 * sin(f / 20.0)), (vec3){0, 1, 0});
        CHECK(mr_springs_update(c, &sk, &pc, 1.0 / 60, (float *)xf) == MR_OK);
        CHECK(mr_springs_update(lone, &sk, &pf, 1.0 / 60, (float *)xf) == MR_OK);
        if (memcmp(pc.r[0], pf.r[0], sizeof(float) * 4 * L_JOINTS)) same = 0;
    }
    CHECK(lone && same);
    mr_springs_destroy(lone);
    mr_pose_deinit(&pc);
    mr_pose_deinit(&pf);
out:
    mr_springs_destroy(a);
    mr_springs_destroy(b);
    mr_springs_destroy(c);
    mr_springs_destroy(other);
    mr_springs_destroy(blocked);
    mr_skeleton_deinit(&sk);
}

int main(void)
{
    RUN(refuses_bad_descriptions);
    RUN(stiffness_alone_keeps_the_rest_pose);
    RUN(gravity_pulls_the_tail_down_and_keeps_bone_lengths);
    RUN(no_nan_for_zero_length_bones_zero_huge_and_nan_dt_and_teleports);
    RUN(a_teleport_resets_to_the_rest_direction);
    RUN(fixed_step_agrees_at_30_60_and_144_fps);
    RUN(frame_mode_is_tied_to_the_frame_rate);
    RUN(fixed_step_keeps_tips_out_of_a_big_collider_where_frame_mode_does_not);
    RUN(a_centre_joint_carries_the_tips);
    RUN(clone_keeps_the_state);
    RUN(chains_side_by_side_give_the_same_bits_as_one_at_a_time);
    RUN(springs_of_one_rig_share_their_lane_constants);
    return test_summary("springs");
}
