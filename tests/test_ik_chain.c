/* test_ik_chain.c — chain IK (ik_chain.h): FABRIK and CCD reach held-out
 * reachable targets on the fixture humanoid, the mannequin, Bob and a CMU
 * skeleton within 1e-4 of the chain's length; cone, twist and hinge limits
 * violated by 0 degrees in every result (measured here in double
 * precision, independently of the solver's own measure); the pole decides
 * the bend side; degenerate input gives finite poses; the same bits on
 * every run; a negative test per invalid configuration. */
#include "anim/ik_chain.h"
#include "anim/joint_map.h"
#include "anim/model.h"
#include "anim/override.h"
#include "choreo_fixture.h"
#include "core/quat.h"
#include "formats/load.h"
#include "test.h"

static float rnd(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)(*s >> 8) / (float)(1u << 24);
}

static void joint_pos(const mr_skeleton *sk, const mr_pose *pose, int j, vec3 out)
{
    mat4 m;
    mr_pose_model_matrix(sk, pose, j, m);
    glm_vec3_copy(m[3], out);
}

static int pose_finite(const mr_pose *p)
{
    for (int j = 0; j < p->joint_count; j++)
        for (int k = 0; k < 4; k++)
            if (!isfinite(p->r[j][k])) return 0;
    return 1;
}

/* A straight chain of n joints along +x, bone lengths len[i] (NULL: 1). */
static void line_skeleton(mr_skeleton *sk, int n, const float *len)
{
    mr_skeleton_init(sk, n);
    for (int i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "j%d", i);
        sk->names[i] = mr_str_dup(name);
        sk->parents[i] = i - 1;
        if (i > 0) sk->rest_t[i][0] = len ? len[i - 1] : 1.0f;
    }
    mr_skeleton_compute_inverse_bind(sk);
}

/* Random rotation of up to max_deg about a random axis. */
static void random_rot(unsigned *s, float max_deg, versor q)
{
    vec3 axis = {rnd(s) - 0.5f, rnd(s) - 0.5f, rnd(s) - 0.5f};
    if (glm_vec3_norm(axis) < 1e-3f) axis[0] = 1.0f;
    glm_quatv(q, glm_rad(max_deg * (2.0f * rnd(s) - 1.0f)), axis);
}

/* Independent limit measure in double: degrees outside the limit. */
static double violation_deg(const mr_ik_limit *l, const versor rest, const vec3 bone, const versor r)
{
    double rc[4] = {-rest[0], -rest[1], -rest[2], rest[3]}, rr[4] = {r[0], r[1], r[2], r[3]}, d[4];
    mr_quat_mul_d(rc, rr, d);
    mr_quat_normalize_d(d);
    if (d[3] < 0) for (int k = 0; k < 4; k++) d[k] = -d[k];
    double a[3];
    const float *ax = l->kind == MR_IK_LIMIT_HINGE ? l->axis : bone;
    double n = sqrt((double)ax[0] * ax[0] + (double)ax[1] * ax[1] + (double)ax[2] * ax[2]);
    for (int k = 0; k < 3; k++) a[k] = ax[k] / n;
    double p = d[0] * a[0] + d[1] * a[1] + d[2] * a[2];
    double tw = 2.0 * atan2(p, d[3]);
    /* swing = d * twist^-1: its angle from the part of d off the axis */
    double tn = sqrt(p * p + d[3] * d[3]);
    double t[4] = {-a[0] * p / tn, -a[1] * p / tn, -a[2] * p / tn, d[3] / tn}, sw[4];
    mr_quat_mul_d(d, t, sw);
    double swing = 2.0 * atan2(sqrt(sw[0] * sw[0] + sw[1] * sw[1] + sw[2] * sw[2]), fabs(sw[3]));
    double v = 0.0;
    if (l->kind == MR_IK_LIMIT_HINGE) {
        v = fmax(v, tw - l->max);
        v = fmax(v, l->min - tw);
        /* off the hinge axis: float rounding of the stored quaternion only */
        v = fmax(v, swing - 1e-5);
    } else if (l->kind == MR_IK_LIMIT_CONE) {
        v = fmax(v, swing - l->cone);
        if (l->has_twist) {
            v = fmax(v, tw - l->twist_max);
            v = fmax(v, l->twist_min - tw);
        }
    }
    return v * 180.0 / M_PI;
}

/* Reachable targets from random poses of the chain, then solve from another. */
static void reach_random(const mr_skeleton *sk, int first, int last, mr_ik_solver solver, int trials,
                         const char *what)
{
    mr_pose pose, aim;
    mr_pose_init(&pose, sk->joint_count);
    mr_pose_init(&aim, sk->joint_count);
    unsigned seed = 7;
    int n = mr_ik_chain_length(sk, first, last), worst_trial = -1;
    CHECK(n >= 2);
    float worst = 0.0f, size = 0.0f;
    for (int t = 0; t < trials; t++) {
        mr_pose_set_rest(&pose, sk);
        mr_pose_set_rest(&aim, sk);
        for (int j = last; j != first; ) {
            j = sk->parents[j];
            versor q;
            random_rot(&seed, 50.0f, q);
            glm_quat_mul(aim.r[j], q, aim.r[j]);
            random_rot(&seed, 20.0f, q);
            glm_quat_mul(pose.r[j], q, pose.r[j]);
        }
        mr_ik_chain_job job = {0};
        job.skeleton = sk;
        job.pose = &pose;
        job.first = first;
        job.last = last;
        job.solver = solver;
        job.weight = 1.0f;
        job.iterations = 0;
        joint_pos(sk, &aim, last, job.target);
        CHECK(mr_ik_chain_run(&job, NULL) == MR_OK);
        vec3 tip, root;
        joint_pos(sk, &pose, last, tip);
        if (t == 0) {
            /* the chain's length */
            for (int j = last; j != first; j = sk->parents[j]) {
                vec3 a, b;
                joint_pos(sk, &pose, j, a);
                joint_pos(sk, &pose, sk->parents[j], b);
                size += glm_vec3_distance(a, b);
            }
        }
        joint_pos(sk, &pose, first, root);
        float e = glm_vec3_distance(tip, job.target);
        CHECK_NEAR(e, job.error, 1e-5f * size + 1e-6f);
        if (e > worst) worst = e, worst_trial = t;
        CHECK(pose_finite(&pose));
    }
    CHECK_MSG(worst <= 1e-4f * size, "%s: worst error %g of chain length %g (trial %d)", what, worst, size,
              worst_trial);
    mr_pose_deinit(&pose);
    mr_pose_deinit(&aim);
}

TEST(fabrik_and_ccd_reach_reachable_targets_on_the_fixture)
{
    mr_skeleton sk;
    fixture_humanoid(&sk);
    reach_random(&sk, J_SPINE1, J_HAND_R, MR_IK_FABRIK, 200, "fixture fabrik");
    reach_random(&sk, J_SPINE1, J_HAND_R, MR_IK_CCD, 200, "fixture ccd");
    mr_skeleton_deinit(&sk);
}

/* A 10-joint chain (unit bones, 8 degrees of rest curve per joint) from
 * its rest pose toward held-out targets near full reach (the tip of random
 * poses of up to 20 degrees per joint: 0.8 .. 0.99 of the length away),
 * where plain FABRIK crawls: every one reached within the default
 * iterations, in few passes, the tip measured with matrices. */
TEST(fabrik_reaches_near_full_reach_in_few_passes)
{
    enum { N = 10, T = 64 };
    mr_skeleton sk;
    line_skeleton(&sk, N, NULL);
    for (int i = 0; i < N; i++) glm_quatv(sk.rest_r[i], glm_rad(8.0f), (vec3){0, 0, 1});
    mr_skeleton_compute_inverse_bind(&sk);
    mr_pose rest, pose;
    mr_pose_init(&rest, N);
    mr_pose_init(&pose, N);
    mr_pose_set_rest(&rest, &sk);
    unsigned seed = 44;
    int reached = 0, passes = 0;
    float worst = 0.0f, nearest = 1.0f;
    for (int t = 0; t < T; t++) {
        mr_pose_copy(&pose, &rest);
        for (int j = 0; j < N - 1; j++) {
            versor q;
            random_rot(&seed, 20.0f, q);
            glm_quat_mul(pose.r[j], q, pose.r[j]);
        }
        vec3 target, tipv;
        joint_pos(&sk, &pose, N - 1, target);
        nearest = fminf(nearest, glm_vec3_norm(target) / (float)(N - 1));
        mr_pose_copy(&pose, &rest);
        mr_ik_chain_job job = {0};
        job.skeleton = &sk;
        job.pose = &pose;
        job.first = 0;
        job.last = N - 1;
        job.weight = 1.0f;
        glm_vec3_copy(target, job.target);
        CHECK(mr_ik_chain_run(&job, NULL) == MR_OK);
        reached += job.reached;
        passes += job.iterations_done;
        joint_pos(&sk, &pose, N - 1, tipv);
        worst = fmaxf(worst, glm_vec3_distance(tipv, target));
        CHECK(pose_finite(&pose));
    }
    CHECK_MSG(reached == T, "%d of %d near-reach targets reached", reached, T);
    CHECK_MSG(worst <= 1e-4f * (N - 1), "worst tip error %g", worst);
    CHECK_MSG(passes <= 12 * T, "%.1f passes a solve, expected at most 12", (double)passes / T);
    CHECK_MSG(nearest >= 0.8f, "targets as near as %.2f of the length: not near full reach", nearest);
    mr_pose_deinit(&rest);
    mr_pose_deinit(&pose);
    mr_skeleton_deinit(&sk);
}

static void reach_model(const char *path, const char *what)
{
    mr_model *m = NULL;
    mr_error err = {0};
    if (mr_load_model(path, NULL, 0, &m, &err) != MR_OK) {
        CHECK_MSG(0, "%s: %s", path, err.msg);
        return;
    }
    const mr_skeleton *sk = &m->skeleton;
    int first = mr_joint_map_find_role(sk, MR_ROLE_SPINE, MR_SIDE_CENTRE);
    int last = mr_joint_map_find_role(sk, MR_ROLE_HAND, MR_SIDE_LEFT);
    CHECK_MSG(first >= 0 && last >= 0, "%s: no spine or hand", what);
    if (first >= 0 && last >= 0) {
        reach_random(sk, first, last, MR_IK_FABRIK, 60, what);
        reach_random(sk, first, last, MR_IK_CCD, 60, what);
    }
    mr_model_destroy(m);
}

TEST(chain_reaches_on_mannequin_bob_and_cmu)
{
    reach_model("models/mannequin.md5mesh", "mannequin");
    reach_model(SHARED_MODELS "assimp/test/models-nonbsd/MD5/Bob.md5mesh", "Bob");
    reach_model("/usr/share/assimp/models/BVH/01_01.bvh", "CMU 01_01");
}

/* Random limits on every joint of a 6-joint line, random targets (many
 * out of the limits' reach), both solvers: no violation in any result. */
TEST(limits_hold_in_every_result)
{
    mr_skeleton sk;
    line_skeleton(&sk, 6, NULL);
    /* rest rotations that are not the identity */
    unsigned seed = 11;
    for (int j = 1; j < 6; j++) random_rot(&seed, 30.0f, sk.rest_r[j]);
    mr_skeleton_compute_inverse_bind(&sk);
    mr_pose pose;
    mr_pose_init(&pose, 6);
    double worst = 0.0;
    int reached = 0;
    for (int t = 0; t < 400; t++) {
        mr_ik_limit lim[6];
        memset(lim, 0, sizeof lim);
        for (int j = 0; j < 6; j++) {
            float kind = rnd(&seed);
            if (kind < 0.45f) {
                lim[j].kind = MR_IK_LIMIT_CONE;
                lim[j].cone = glm_rad(5.0f + 60.0f * rnd(&seed));
                if (rnd(&seed) < 0.5f) {
                    lim[j].has_twist = 1;
                    lim[j].twist_min = -glm_rad(40.0f * rnd(&seed));
                    lim[j].twist_max = glm_rad(40.0f * rnd(&seed));
                }
            } else if (kind < 0.9f) {
                lim[j].kind = MR_IK_LIMIT_HINGE;
                glm_vec3_copy((vec3){rnd(&seed) - 0.5f, rnd(&seed) - 0.5f, rnd(&seed) - 0.5f}, lim[j].axis);
                if (glm_vec3_norm(lim[j].axis) < 0.05f) lim[j].axis[2] = 1.0f;
                lim[j].min = -glm_rad(90.0f * rnd(&seed));
                lim[j].max = glm_rad(90.0f * rnd(&seed));
            }
        }
        /* an input pose well outside the limits */
        mr_pose_set_rest(&pose, &sk);
        for (int j = 0; j < 6; j++) {
            versor q;
            random_rot(&seed, 120.0f, q);
            glm_quat_mul(pose.r[j], q, pose.r[j]);
        }
        mr_ik_chain_job job = {0};
        job.skeleton = &sk;
        job.pose = &pose;
        job.first = 0;
        job.last = 5;
        job.solver = (t & 1) ? MR_IK_CCD : MR_IK_FABRIK;
        job.weight = (t % 7 == 0) ? 0.5f : 1.0f;
        job.limits = lim;
        job.target[0] = 6.0f * (rnd(&seed) - 0.5f);
        job.target[1] = 6.0f * (rnd(&seed) - 0.5f);
        job.target[2] = 6.0f * (rnd(&seed) - 0.5f);
        if (t % 5 == 0) {
            job.has_pole = 1;
            glm_vec3_copy((vec3){0, 3, 1}, job.pole);
        }
        CHECK(mr_ik_chain_run(&job, NULL) == MR_OK);
        CHECK(pose_finite(&pose));
        reached += job.reached;
        for (int j = 0; j < 6; j++) {
            vec3 bone;
            mr_ik_limit_bone(&sk, j, j + 1 < 6 ? j + 1 : -1, bone);
            double v = violation_deg(&lim[j], sk.rest_r[j], bone, pose.r[j]);
            if (v > worst) worst = v;
            CHECK(mr_ik_limit_violation(&lim[j], sk.rest_r[j], bone, pose.r[j]) == 0.0f);
        }
    }
    CHECK_MSG(worst == 0.0, "worst violation %.9g degrees", worst);
    CHECK_MSG(reached > 10, "only %d of 400 reached", reached);   /* the solvers still work with limits */
    mr_pose_deinit(&pose);
    mr_skeleton_deinit(&sk);
}

/* A hinge elbow: a target the hinge allows is reached, and the joint stays a
 * rotation about its axis within min..max (a hand reaching down without the
 * elbow bending backwards). */
TEST(hinge_reaches_what_it_allows)
{
    mr_skeleton sk;
    fixture_humanoid(&sk);
    mr_pose pose, aim;
    mr_pose_init(&pose, J_COUNT);
    mr_pose_init(&aim, J_COUNT);
    mr_pose_set_rest(&aim, &sk);
    mr_pose_set_rest(&pose, &sk);
    mr_ik_limit lim[3];
    memset(lim, 0, sizeof lim);
    lim[0].kind = MR_IK_LIMIT_CONE;
    lim[0].cone = glm_rad(80.0f);
    lim[1].kind = MR_IK_LIMIT_HINGE;
    glm_vec3_copy((vec3){0, 0, 1}, lim[1].axis);
    lim[1].min = glm_rad(-120.0f);
    lim[1].max = glm_rad(0.0f);
    /* the target: the elbow bent 60 degrees the allowed way, arm down 30 */
    versor q;
    glm_quatv(q, glm_rad(-60.0f), (vec3){0, 0, 1});
    glm_quat_mul(aim.r[J_LOWERARM_R], q, aim.r[J_LOWERARM_R]);
    glm_quatv(q, glm_rad(30.0f), (vec3){0, 1, 0});
    glm_quat_mul(aim.r[J_UPPERARM_R], q, aim.r[J_UPPERARM_R]);
    mr_ik_chain_job job = {0};
    job.skeleton = &sk;
    job.pose = &pose;
    job.first = J_UPPERARM_R;
    job.last = J_HAND_R;
    job.weight = 1.0f;
    job.limits = lim;
    job.iterations = 200;
    joint_pos(&sk, &aim, J_HAND_R, job.target);
    for (int s = 0; s < 2; s++) {
        mr_pose_set_rest(&pose, &sk);
        job.solver = s ? MR_IK_CCD : MR_IK_FABRIK;
        CHECK(mr_ik_chain_run(&job, NULL) == MR_OK);
        CHECK_MSG(job.error <= 21e-4f, "solver %d: error %g", s, job.error);
        vec3 bone;
        mr_ik_limit_bone(&sk, J_LOWERARM_R, J_HAND_R, bone);
        CHECK(violation_deg(&lim[1], sk.rest_r[J_LOWERARM_R], bone, pose.r[J_LOWERARM_R]) == 0.0);
    }
    mr_pose_deinit(&pose);
    mr_pose_deinit(&aim);
    mr_skeleton_deinit(&sk);
}

/* The pole decides which side a 3-joint chain bends to. */
TEST(pole_decides_the_bend_side)
{
    mr_skeleton sk;
    line_skeleton(&sk, 3, NULL);
    mr_pose pose;
    mr_pose_init(&pose, 3);
    for (int s = 0; s < 2; s++)
        for (int side = -1; side <= 1; side += 2) {
            mr_pose_set_rest(&pose, &sk);
            glm_quatv(pose.r[1], glm_rad(20.0f), (vec3){0, 0, 1});   /* bent toward +y */
            mr_ik_chain_job job = {0};
            job.skeleton = &sk;
            job.pose = &pose;
            job.first = 0;
            job.last = 2;
            job.weight = 1.0f;
            job.solver = s ? MR_IK_CCD : MR_IK_FABRIK;
            job.iterations = 100;
            glm_vec3_copy((vec3){1.2f, 0.0f, 0.0f}, job.target);
            job.has_pole = 1;
            glm_vec3_copy((vec3){0.6f, 0.0f, 2.0f * side}, job.pole);
            CHECK(mr_ik_chain_run(&job, NULL) == MR_OK);
            CHECK(job.reached);
            vec3 mid;
            joint_pos(&sk, &pose, 1, mid);
            CHECK_MSG(mid[2] * side > 0.5f, "solver %d side %d: middle joint at z %g", s, side, mid[2]);
            CHECK_MSG(fabsf(mid[1]) < 1e-3f, "solver %d side %d: middle joint off the pole plane (y %g)", s, side,
                      mid[1]);
        }
    mr_pose_deinit(&pose);
    mr_skeleton_deinit(&sk);
}

/* Degenerate input: finite results, sensible answers. */
TEST(degenerate_input_never_gives_nan)
{
    mr_skeleton sk;
    float lens[4] = {1.0f, 0.0f, 1.0f, 0.0f};     /* zero-length bones, coincident joints */
    line_skeleton(&sk, 5, lens);
    mr_pose pose;
    mr_pose_init(&pose, 5);
    const float targets[][3] = {
        {0, 0, 0},           /* on the root */
        {1.5f, 0, 0},        /* on the straight chain's line, within reach: must bend */
        {5, 0, 0},           /* out of reach, the chain already points at it */
        {-5, 0, 0},          /* out of reach behind */
        {0.3f, 1.2f, 0.4f},
    };
    for (int s = 0; s < 2; s++)
        for (int t = 0; t < 5; t++)
            for (int pole = 0; pole < 3; pole++) {
                mr_pose_set_rest(&pose, &sk);
                mr_ik_chain_job job = {0};
                job.skeleton = &sk;
                job.pose = &pose;
                job.first = 0;
                job.last = 4;
                job.weight = 1.0f;
                job.solver = s ? MR_IK_CCD : MR_IK_FABRIK;
                glm_vec3_copy((float *)targets[t], job.target);
                if (pole == 1) {                         /* a pole on the chain's line */
                    job.has_pole = 1;
                    glm_vec3_copy((vec3){0.5f, 0, 0}, job.pole);
                } else if (pole == 2) {                  /* a pole on the target */
                    job.has_pole = 1;
                    glm_vec3_copy(job.target, job.pole);
                }
                CHECK(mr_ik_chain_run(&job, NULL) == MR_OK);
                CHECK_MSG(pose_finite(&pose) && isfinite(job.error), "solver %d target %d pole %d", s, t, pole);
                if (t == 2 || t == 3) CHECK_NEAR(job.error, 3.0f, 1e-4f);   /* straight at it */
                if (t == 1 && s == 0) CHECK_MSG(job.reached, "target on the line: error %g", job.error);
            }
    /* every bone of zero length */
    float zero[2] = {0, 0};
    mr_skeleton sk0;
    line_skeleton(&sk0, 3, zero);
    mr_pose p0;
    mr_pose_init(&p0, 3);
    mr_pose_set_rest(&p0, &sk0);
    mr_ik_chain_job job = {&sk0, &p0, 0, 2, {1, 1, 1}, 1, {0, 1, 0}, MR_IK_FABRIK, 0, 0, 1.0f, NULL, 0, 0, 0, 0};
    CHECK(mr_ik_chain_run(&job, NULL) == MR_OK);
    CHECK(pose_finite(&p0) && !job.reached && isfinite(job.error));
    job.solver = MR_IK_CCD;
    CHECK(mr_ik_chain_run(&job, NULL) == MR_OK);
    CHECK(pose_finite(&p0));
    mr_pose_deinit(&p0);
    mr_skeleton_deinit(&sk0);
    mr_pose_deinit(&pose);
    mr_skeleton_deinit(&sk);
}

/* Out of reach: the chain points straight at the target. */
TEST(unreachable_target_straightens_toward_it)
{
    mr_skeleton sk;
    line_skeleton(&sk, 4, NULL);
    mr_pose pose;
    mr_pose_init(&pose, 4);
    for (int s = 0; s < 2; s++) {
        mr_pose_set_rest(&pose, &sk);
        glm_quatv(pose.r[1], glm_rad(40.0f), (vec3){0, 0, 1});
        mr_ik_chain_job job = {0};
        job.skeleton = &sk;
        job.pose = &pose;
        job.first = 0;
        job.last = 3;
        job.weight = 1.0f;
        job.solver = s ? MR_IK_CCD : MR_IK_FABRIK;
        job.iterations = 200;
        glm_vec3_copy((vec3){0, 10, 0}, job.target);
        CHECK(mr_ik_chain_run(&job, NULL) == MR_OK);
        CHECK(!job.reached);
        CHECK_NEAR(job.error, 7.0f, 1e-3f);
        vec3 tip;
        joint_pos(&sk, &pose, 3, tip);
        CHECK_NEAR(tip[1], 3.0f, 1e-3f);
    }
    mr_pose_deinit(&pose);
    mr_skeleton_deinit(&sk);
}

TEST(same_bits_every_run_and_weight_zero_is_identity)
{
    mr_skeleton sk;
    fixture_humanoid(&sk);
    mr_pose a, b;
    mr_pose_init(&a, J_COUNT);
    mr_pose_init(&b, J_COUNT);
    mr_ik_limit lim[8];
    memset(lim, 0, sizeof lim);
    lim[2].kind = MR_IK_LIMIT_CONE;
    lim[2].cone = glm_rad(30.0f);
    for (int s = 0; s < 2; s++) {
        mr_pose_set_rest(&a, &sk);
        mr_pose_set_rest(&b, &sk);
        mr_ik_chain_job job = {0};
        job.skeleton = &sk;
        job.first = J_SPINE1;
        job.last = J_HAND_L;
        job.weight = 0.8f;
        job.solver = s ? MR_IK_CCD : MR_IK_FABRIK;
        job.limits = lim;
        job.has_pole = 1;
        glm_vec3_copy((vec3){10, -20, 40}, job.pole);
        glm_vec3_copy((vec3){20, -15, 55}, job.target);
        job.pose = &a;
        CHECK(mr_ik_chain_run(&job, NULL) == MR_OK);
        job.pose = &b;
        CHECK(mr_ik_chain_run(&job, NULL) == MR_OK);
        CHECK(memcmp(a.r, b.r, sizeof(versor) * J_COUNT) == 0);
        /* weight 0 without limits: the pose's bits unchanged */
        mr_pose_copy(&b, &a);
        job.limits = NULL;
        job.weight = 0.0f;
        CHECK(mr_ik_chain_run(&job, NULL) == MR_OK);
        CHECK(memcmp(a.r, b.r, sizeof(versor) * J_COUNT) == 0);
    }
    mr_pose_deinit(&a);
    mr_pose_deinit(&b);
    mr_skeleton_deinit(&sk);
}

TEST(validate_refuses_each_invalid_configuration)
{
    mr_skeleton sk;
    fixture_humanoid(&sk);
    mr_pose pose, small;
    mr_pose_init(&pose, J_COUNT);
    mr_pose_init(&small, 3);
    mr_pose_set_rest(&pose, &sk);
    mr_ik_chain_job ok = {0};
    ok.skeleton = &sk;
    ok.pose = &pose;
    ok.first = J_UPPERARM_L;
    ok.last = J_HAND_L;
    ok.weight = 1.0f;
    mr_error err;
    CHECK(mr_ik_chain_validate(&ok, NULL) == MR_OK);
    CHECK(mr_ik_chain_validate(NULL, NULL) != MR_OK);
    mr_ik_chain_job j = ok;
    j.pose = &small;
    CHECK(mr_ik_chain_validate(&j, NULL) == MR_ERR_JOINT_COUNT);
    j = ok; j.skeleton = NULL;
    CHECK(mr_ik_chain_validate(&j, NULL) != MR_OK);
    j = ok; j.last = J_COUNT;
    CHECK(mr_ik_chain_validate(&j, NULL) != MR_OK);
    j = ok; j.first = J_HAND_L; j.last = J_UPPERARM_L;
    memset(&err, 0, sizeof err);
    CHECK(mr_ik_chain_validate(&j, &err) != MR_OK);
    CHECK_STR_CONTAINS(err.msg, "'hand_l' is not an ancestor of 'upperarm_l'");
    j = ok; j.first = J_UPPERARM_R;          /* another branch */
    CHECK(mr_ik_chain_validate(&j, NULL) != MR_OK);
    j = ok; j.first = j.last = J_HAND_L;     /* one joint is no chain */
    CHECK(mr_ik_chain_validate(&j, NULL) != MR_OK);
    j = ok; j.target[1] = NAN;
    CHECK(mr_ik_chain_validate(&j, NULL) != MR_OK);
    j = ok; j.has_pole = 1; j.pole[0] = INFINITY;
    CHECK(mr_ik_chain_validate(&j, NULL) != MR_OK);
    j = ok; j.solver = (mr_ik_solver)7;
    CHECK(mr_ik_chain_validate(&j, NULL) != MR_OK);
    j = ok; j.iterations = -1;
    CHECK(mr_ik_chain_validate(&j, NULL) != MR_OK);
    j = ok; j.iterations = MR_IK_CHAIN_MAX_ITERATIONS + 1;
    CHECK(mr_ik_chain_validate(&j, NULL) != MR_OK);
    j = ok; j.tolerance = -1.0f;
    CHECK(mr_ik_chain_validate(&j, NULL) != MR_OK);
    j = ok; j.weight = 1.5f;
    CHECK(mr_ik_chain_validate(&j, NULL) != MR_OK);
    j = ok; j.weight = NAN;
    CHECK(mr_ik_chain_validate(&j, NULL) != MR_OK);
    mr_ik_limit lim[3];
    memset(lim, 0, sizeof lim);
    j = ok; j.limits = lim;
    CHECK(mr_ik_chain_validate(&j, NULL) == MR_OK);
    lim[1].kind = MR_IK_LIMIT_CONE; lim[1].cone = -0.1f;
    memset(&err, 0, sizeof err);
    CHECK(mr_ik_chain_validate(&j, &err) != MR_OK);
    CHECK_STR_CONTAINS(err.msg, "lowerarm_l");
    lim[1].cone = 0.5f; lim[1].has_twist = 1; lim[1].twist_min = 0.5f; lim[1].twist_max = 0.1f;
    CHECK(mr_ik_chain_validate(&j, NULL) != MR_OK);
    lim[1].kind = MR_IK_LIMIT_HINGE; lim[1].min = -1; lim[1].max = 1;   /* zero axis */
    CHECK(mr_ik_chain_validate(&j, NULL) != MR_OK);
    lim[1].axis[2] = 1; lim[1].min = 2; lim[1].max = 1;
    CHECK(mr_ik_chain_validate(&j, NULL) != MR_OK);
    lim[1].min = -4; lim[1].max = 1;
    CHECK(mr_ik_chain_validate(&j, NULL) != MR_OK);
    lim[1].kind = (mr_ik_limit_kind)9;
    CHECK(mr_ik_chain_validate(&j, NULL) != MR_OK);
    /* a chain longer than the maximum */
    mr_skeleton longsk;
    line_skeleton(&longsk, MR_IK_CHAIN_MAX_JOINTS + 1, NULL);
    mr_pose lp;
    mr_pose_init(&lp, MR_IK_CHAIN_MAX_JOINTS + 1);
    j = ok; j.skeleton = &longsk; j.pose = &lp; j.first = 0; j.last = MR_IK_CHAIN_MAX_JOINTS;
    CHECK(mr_ik_chain_validate(&j, NULL) == MR_ERR_LIMIT);
    j.first = 1;
    CHECK(mr_ik_chain_validate(&j, NULL) == MR_OK);
    mr_pose_deinit(&lp);
    mr_skeleton_deinit(&longsk);
    mr_pose_deinit(&pose);
    mr_pose_deinit(&small);
    mr_skeleton_deinit(&sk);
}

int main(void)
{
    RUN(fabrik_and_ccd_reach_reachable_targets_on_the_fixture);
    RUN(fabrik_reaches_near_full_reach_in_few_passes);
    RUN(chain_reaches_on_mannequin_bob_and_cmu);
    RUN(limits_hold_in_every_result);
    RUN(hinge_reaches_what_it_allows);
    RUN(pole_decides_the_bend_side);
    RUN(degenerate_input_never_gives_nan);
    RUN(unreachable_target_straightens_toward_it);
    RUN(same_bits_every_run_and_weight_zero_is_identity);
    RUN(validate_refuses_each_invalid_configuration);
    return test_summary("ik_chain");
}
