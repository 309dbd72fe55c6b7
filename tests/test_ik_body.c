/* test_ik_body.c — full-body IK (ik_body.h) with rigs found from names
 * (ik_rig.h): rigs of the mannequin, Bob, astroBoy, CMU and Mixamo names;
 * held-out scenes where both feet stay within 1e-4 of the size (under a
 * millimetre) of their plants while the hands reach targets within the
 * arms' span that need the pelvis and spine to move; conflicting goals give
 * a finite compromise, flagged, feet still planted; a pelvis goal cannot
 * pull the feet off; the same bits every run; each refusal. */
#include "anim/ik.h"
#include "anim/ik_body.h"
#include "anim/ik_rig.h"
#include "anim/joint_map.h"
#include "anim/model.h"
#include "anim/override.h"
#include "choreo_fixture.h"
#include "core/quat.h"
#include "formats/load.h"
#include "test.h"

#define CMU_0101 "/usr/share/assimp/models/BVH/01_01.bvh"
#define BOB SHARED_MODELS "assimp/test/models-nonbsd/MD5/Bob.md5mesh"
#define ASTRO SHARED_MODELS "lab101-bonesAssimpTest/bin/data/astroBoy_walk.dae"

static float rnd(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)(*s >> 8) / (float)(1u << 24);
}

static mr_model *load(const char *path)
{
    mr_model *m = NULL;
    mr_error err = {0};
    mr_status st = mr_load_model(path, NULL, 0, &m, &err);
    CHECK_MSG(st == MR_OK, "%s: %s", path, err.msg);
    return m;
}

static void pos(const mr_skeleton *sk, const mr_pose *p, int j, vec3 out)
{
    mat4 m;
    mr_pose_model_matrix(sk, p, j, m);
    glm_vec3_copy(m[3], out);
}

static int finite_pose(const mr_pose *p)
{
    for (int j = 0; j < p->joint_count; j++)
        for (int k = 0; k < 4; k++)
            if (!isfinite(p->r[j][k]) || (k < 3 && !isfinite(p->t[j][k]))) return 0;
    return 1;
}

static float up_size(const mr_skeleton *sk, const mr_ik_rig *rig, const mr_pose *p)
{
    vec3 a, b;
    pos(sk, p, rig->head >= 0 ? rig->head : rig->limb[MR_IK_ARM_L][0], a);
    pos(sk, p, rig->limb[MR_IK_LEG_L][2], b);
    return glm_vec3_distance(a, b);
}

static void check_rig(const char *path, const char *what, int want_spine)
{
    mr_model *m = load(path);
    if (!m) return;
    mr_ik_rig rig;
    mr_error err = {0};
    CHECK_MSG(mr_ik_rig_find(&m->skeleton, &rig, &err) == MR_OK, "%s: %s", what, err.msg);
    for (int l = 0; l < MR_IK_LIMB_COUNT; l++)
        CHECK_MSG(rig.limb[l][0] >= 0 && rig.limb[l][2] >= 0, "%s: limb %d missing", what, l);
    CHECK_MSG(rig.pelvis >= 0 && rig.head >= 0, "%s: pelvis %d head %d", what, rig.pelvis, rig.head);
    CHECK_MSG(rig.spine_count >= want_spine, "%s: %d spine joints", what, rig.spine_count);
    mr_model_destroy(m);
}

TEST(rigs_found_on_every_humanoid)
{
    check_rig("models/mannequin.md5mesh", "mannequin", 3);
    check_rig(BOB, "Bob", 2);
    check_rig(ASTRO, "astroBoy", 1);
    check_rig(CMU_0101, "CMU", 2);
    /* Mixamo's names */
    static const struct { const char *n; int parent; float t[3]; } mx[] = {
        {"mixamorig:Hips", -1, {0, 100, 0}},       {"mixamorig:Spine", 0, {0, 10, 0}},
        {"mixamorig:Spine1", 1, {0, 10, 0}},       {"mixamorig:Spine2", 2, {0, 10, 0}},
        {"mixamorig:Neck", 3, {0, 15, 0}},         {"mixamorig:Head", 4, {0, 10, 0}},
        {"mixamorig:LeftShoulder", 3, {5, 12, 0}}, {"mixamorig:LeftArm", 6, {10, 0, 0}},
        {"mixamorig:LeftForeArm", 7, {25, 0, 0}},  {"mixamorig:LeftHand", 8, {25, 0, 0}},
        {"mixamorig:RightShoulder", 3, {-5, 12, 0}}, {"mixamorig:RightArm", 10, {-10, 0, 0}},
        {"mixamorig:RightForeArm", 11, {-25, 0, 0}}, {"mixamorig:RightHand", 12, {-25, 0, 0}},
        {"mixamorig:LeftUpLeg", 0, {9, -5, 0}},    {"mixamorig:LeftLeg", 14, {0, -45, 0}},
        {"mixamorig:LeftFoot", 15, {0, -42, 0}},   {"mixamorig:RightUpLeg", 0, {-9, -5, 0}},
        {"mixamorig:RightLeg", 17, {0, -45, 0}},   {"mixamorig:RightFoot", 18, {0, -42, 0}},
    };
    int n = (int)(sizeof mx / sizeof mx[0]);
    mr_skeleton sk;
    mr_skeleton_init(&sk, n);
    for (int i = 0; i < n; i++) {
        sk.names[i] = mr_str_dup(mx[i].n);
        sk.parents[i] = mx[i].parent;
        glm_vec3_copy((float *)mx[i].t, sk.rest_t[i]);
    }
    mr_ik_rig rig;
    CHECK(mr_ik_rig_find(&sk, &rig, NULL) == MR_OK);
    CHECK(rig.pelvis == 0 && rig.head == 5 && rig.spine_count == 3 && rig.spine[0] == 1 && rig.spine[2] == 3);
    CHECK(rig.limb[MR_IK_ARM_L][0] == 7 && rig.limb[MR_IK_ARM_L][1] == 8 && rig.limb[MR_IK_ARM_L][2] == 9);
    CHECK(rig.limb[MR_IK_LEG_R][0] == 17 && rig.limb[MR_IK_LEG_R][2] == 19);
    mr_skeleton_deinit(&sk);
    /* no limbs at all */
    mr_skeleton_init(&sk, 2);
    sk.names[0] = mr_str_dup("a");
    sk.names[1] = mr_str_dup("b");
    sk.parents[1] = 0;
    mr_error err = {0};
    CHECK(mr_ik_rig_find(&sk, &rig, &err) != MR_OK);
    CHECK_STR_CONTAINS(err.msg, "found no arm");
    mr_skeleton_deinit(&sk);
}

/* Held-out scenes: a random planted pose (the pelvis moved and turned a
 * little, the spine bent, the arms swung, the legs brought back onto the
 * feet's marks with two-bone IK) gives hand targets a body can reach with
 * the feet where they stand; the solve starts from the rest pose. */
static void random_turn(unsigned *s, float deg, versor q)
{
    vec3 axis = {rnd(s) - 0.5f, rnd(s) - 0.5f, rnd(s) - 0.5f};
    if (glm_vec3_norm(axis) < 1e-3f) axis[0] = 1.0f;
    glm_quatv(q, glm_rad(deg * (2.0f * rnd(s) - 1.0f)), axis);
}

static void reach_scenes(const char *path, const char *what, int scenes)
{
    mr_model *m = load(path);
    if (!m) return;
    const mr_skeleton *sk = &m->skeleton;
    mr_ik_rig rig;
    if (mr_ik_rig_find(sk, &rig, NULL) != MR_OK) {
        CHECK_MSG(0, "%s: no rig", what);
        mr_model_destroy(m);
        return;
    }
    mr_pose pose, again, aim;
    mr_pose_init(&pose, sk->joint_count);
    mr_pose_init(&again, sk->joint_count);
    mr_pose_init(&aim, sk->joint_count);
    mat4 *scratch = malloc(sizeof(mat4) * (size_t)sk->joint_count);
    mr_pose_set_rest(&pose, sk);
    float size = up_size(sk, &rig, &pose);
    unsigned seed = 3;
    float worst_foot = 0, worst_hand = 0;
    int reached = 0;
    for (int s = 0; s < scenes; s++) {
        mr_pose_set_rest(&pose, sk);
        mr_pose_set_rest(&aim, sk);
        vec3 feet[2];
        for (int i = 0; i < 2; i++) pos(sk, &aim, rig.limb[MR_IK_LEG_L + i][2], feet[i]);
        /* the target pose */
        vec3 d = {0.1f * size * (rnd(&seed) - 0.5f), 0.1f * size * (rnd(&seed) - 0.5f), 0.1f * size * (rnd(&seed) - 0.5f)};
        mr_override_translation(sk, &aim, rig.pelvis, d, MR_SPACE_MODEL, MR_OVERRIDE_ADD, 1.0f);
        versor q;
        random_turn(&seed, 10.0f, q);
        glm_quat_mul(aim.r[rig.pelvis], q, aim.r[rig.pelvis]);
        for (int i = 0; i < rig.spine_count; i++) {
            random_turn(&seed, 12.0f, q);
            glm_quat_mul(aim.r[rig.spine[i]], q, aim.r[rig.spine[i]]);
        }
        for (int l = MR_IK_ARM_L; l <= MR_IK_ARM_R; l++)
            for (int k = 0; k < 2; k++) {
                random_turn(&seed, 45.0f, q);
                glm_quat_mul(aim.r[rig.limb[l][k]], q, aim.r[rig.limb[l][k]]);
            }
        for (int i = 0; i < 2; i++) {
            const int *lj = rig.limb[MR_IK_LEG_L + i];
            mr_two_bone_job tb = {sk, &aim, lj[0], lj[1], lj[2], {0}, {0}, 1.0f, 0.0f, 0};
            glm_vec3_copy(feet[i], tb.target);
            mr_ik_two_bone(&tb, NULL);
        }
        mr_ik_goal goals[4];
        memset(goals, 0, sizeof goals);
        for (int i = 0; i < 4; i++) {
            int l = i < 2 ? MR_IK_LEG_L + i : MR_IK_ARM_L + i - 2;
            goals[i].joint = rig.limb[l][2];
            if (i < 2) glm_vec3_copy(feet[i], goals[i].position);
            else pos(sk, &aim, goals[i].joint, goals[i].position);
            goals[i].weight = 1.0f;
        }
        mr_ik_body_job job = {0};
        job.skeleton = sk;
        job.rig = &rig;
        job.pose = &pose;
        job.goals = goals;
        job.goal_count = 4;
        job.scratch = (s & 1) ? scratch : NULL;      /* both ways of finding positions */
        mr_pose_copy(&again, &pose);
        CHECK(mr_ik_body_run(&job, NULL) == MR_OK);
        CHECK(finite_pose(&pose));
        for (int i = 0; i < 4; i++) {
            vec3 p;
            pos(sk, &pose, goals[i].joint, p);
            float e = glm_vec3_distance(p, goals[i].position);
            CHECK_NEAR(e, goals[i].error, 1e-5f * size);
            if (i < 2) worst_foot = fmaxf(worst_foot, e);
            else worst_hand = fmaxf(worst_hand, e);
        }
        reached += job.reached;
        /* the same bits again */
        mr_ik_body_job j2 = job;
        j2.pose = &again;
        CHECK(mr_ik_body_run(&j2, NULL) == MR_OK);
        CHECK(memcmp(pose.r, again.r, sizeof(versor) * (size_t)sk->joint_count) == 0 &&
              memcmp(pose.t, again.t, sizeof(vec3) * (size_t)sk->joint_count) == 0);
    }
    CHECK_MSG(worst_foot <= 1e-4f * size, "%s: a foot %g off its plant (size %g)", what, worst_foot, size);
    /* the rest are close calls the solver flags as a compromise (within a few
     * percent of the arm's reach: the pelvis only slides, it does not turn) */
    CHECK_MSG(reached >= scenes - scenes / 25, "%s: %d of %d scenes reached (worst hand %g of size %g)", what, reached, scenes,
              worst_hand, size);
    mr_pose_deinit(&pose);
    mr_pose_deinit(&again);
    mr_pose_deinit(&aim);
    free(scratch);
    mr_model_destroy(m);
}

TEST(feet_stay_planted_while_hands_reach)
{
    reach_scenes("models/mannequin.md5mesh", "mannequin", 100);
    reach_scenes(BOB, "Bob", 50);
    reach_scenes(CMU_0101, "CMU", 50);
    reach_scenes(ASTRO, "astroBoy", 50);
}

/* Hands far out of reach with feet planted: a compromise, flagged; the
 * feet stay; the hands point at their goals. A pelvis goal cannot pull the
 * feet off their plants either. */
TEST(conflicting_goals_give_a_flagged_compromise)
{
    mr_model *m = load("models/mannequin.md5mesh");
    if (!m) return;
    const mr_skeleton *sk = &m->skeleton;
    mr_ik_rig rig;
    CHECK(mr_ik_rig_find(sk, &rig, NULL) == MR_OK);
    mr_pose pose;
    mr_pose_init(&pose, sk->joint_count);
    mr_pose_set_rest(&pose, sk);
    float size = up_size(sk, &rig, &pose);
    mr_ik_goal goals[5];
    memset(goals, 0, sizeof goals);
    for (int i = 0; i < 2; i++) {
        goals[i].joint = rig.limb[MR_IK_LEG_L + i][2];
        pos(sk, &pose, goals[i].joint, goals[i].position);
        goals[i].weight = 1.0f;
    }
    for (int i = 0; i < 2; i++) {
        goals[2 + i].joint = rig.limb[MR_IK_ARM_L + i][2];
        vec3 sh;
        pos(sk, &pose, rig.limb[MR_IK_ARM_L + i][0], sh);
        glm_vec3_copy(sh, goals[2 + i].position);
        goals[2 + i].position[i ? 1 : 0] += (i ? -3.0f : 3.0f) * size;   /* far apart */
        goals[2 + i].weight = 1.0f;
    }
    mr_ik_body_job job = {0};
    job.skeleton = sk;
    job.rig = &rig;
    job.pose = &pose;
    job.goals = goals;
    job.goal_count = 4;
    CHECK(mr_ik_body_run(&job, NULL) == MR_OK);
    CHECK(finite_pose(&pose));
    CHECK(job.conflict && !job.reached);
    CHECK(goals[0].error <= 1e-4f * size && goals[1].error <= 1e-4f * size);
    CHECK(goals[2].error > 0.5f * size && isfinite(goals[2].error));
    /* a pelvis goal far above: the feet hold, the pelvis goal is the compromise */
    mr_pose_set_rest(&pose, sk);
    goals[2].joint = rig.pelvis;
    pos(sk, &pose, rig.pelvis, goals[2].position);
    goals[2].position[2] += size;   /* Z up */
    job.goal_count = 3;
    CHECK(mr_ik_body_run(&job, NULL) == MR_OK);
    CHECK(job.conflict);
    CHECK_MSG(goals[0].error <= 1e-4f * size && goals[1].error <= 1e-4f * size, "feet %g %g", goals[0].error,
              goals[1].error);
    CHECK(goals[2].error > 0.1f * size);
    /* a head goal and a hand rotation goal */
    mr_pose_set_rest(&pose, sk);
    memset(&goals[2], 0, sizeof goals[2]);
    goals[2].joint = rig.head;
    pos(sk, &pose, rig.head, goals[2].position);
    goals[2].position[0] += 0.05f * size;
    goals[2].weight = 1.0f;
    goals[2].has_rotation = 1;
    glm_quatv(goals[2].rotation, glm_rad(20.0f), (vec3){0, 0, 1});
    CHECK(mr_ik_body_run(&job, NULL) == MR_OK);
    CHECK(goals[0].error <= 1e-4f * size && goals[1].error <= 1e-4f * size);
    CHECK_MSG(goals[2].error < 0.01f * size, "head %g", goals[2].error);
    mat4 hm;
    versor hq;
    mr_pose_model_matrix(sk, &pose, rig.head, hm);
    mr_quat_from_matrix(hm, hq);
    CHECK(fabsf(glm_vec4_dot(hq, goals[2].rotation)) > 1.0f - 1e-5f);
    mr_pose_deinit(&pose);
    mr_model_destroy(m);
}

/* Limits on the spine, arms and legs: every result holds them (measured
 * after the solve), the feet stay planted. */
TEST(limits_hold_in_body_solves)
{
    mr_model *m = load("models/mannequin.md5mesh");
    if (!m) return;
    const mr_skeleton *sk = &m->skeleton;
    mr_ik_rig rig;
    CHECK(mr_ik_rig_find(sk, &rig, NULL) == MR_OK);
    int n = sk->joint_count;
    mr_ik_limit *lim = calloc((size_t)n, sizeof *lim);
    for (int i = 0; i < rig.spine_count; i++) {
        lim[rig.spine[i]].kind = MR_IK_LIMIT_CONE;
        lim[rig.spine[i]].cone = glm_rad(12.0f);
        lim[rig.spine[i]].has_twist = 1;
        lim[rig.spine[i]].twist_min = glm_rad(-10.0f);
        lim[rig.spine[i]].twist_max = glm_rad(10.0f);
    }
    for (int l = MR_IK_ARM_L; l <= MR_IK_ARM_R; l++) {
        lim[rig.limb[l][0]].kind = MR_IK_LIMIT_CONE;
        lim[rig.limb[l][0]].cone = glm_rad(70.0f);
        lim[rig.limb[l][1]].kind = MR_IK_LIMIT_CONE;
        lim[rig.limb[l][1]].cone = glm_rad(100.0f);
    }
    for (int l = MR_IK_LEG_L; l <= MR_IK_LEG_R; l++) {
        lim[rig.limb[l][0]].kind = MR_IK_LIMIT_CONE;
        lim[rig.limb[l][0]].cone = glm_rad(100.0f);
    }
    mr_pose pose;
    mr_pose_init(&pose, n);
    float size = 0;
    unsigned seed = 9;
    float worst_v = 0, worst_foot = 0;
    for (int s = 0; s < 60; s++) {
        mr_pose_set_rest(&pose, sk);
        if (s == 0) size = up_size(sk, &rig, &pose);
        mr_ik_goal goals[4];
        memset(goals, 0, sizeof goals);
        for (int i = 0; i < 2; i++) {
            goals[i].joint = rig.limb[MR_IK_LEG_L + i][2];
            pos(sk, &pose, goals[i].joint, goals[i].position);
            goals[i].position[0] += 0.04f * size * (rnd(&seed) - 0.5f);
            goals[i].weight = 1.0f;
        }
        for (int i = 0; i < 2; i++) {
            goals[2 + i].joint = rig.limb[MR_IK_ARM_L + i][2];
            vec3 sh;
            pos(sk, &pose, rig.limb[MR_IK_ARM_L + i][0], sh);
            for (int k = 0; k < 3; k++) goals[2 + i].position[k] = sh[k] + 0.5f * size * (rnd(&seed) - 0.5f);
            goals[2 + i].weight = 1.0f;
        }
        mr_ik_body_job job = {.skeleton = sk, .rig = &rig, .pose = &pose, .goals = goals, .goal_count = 4,
                              .limits = lim};
        CHECK(mr_ik_body_run(&job, NULL) == MR_OK);
        CHECK(finite_pose(&pose));
        for (int j = 0; j < n; j++) {
            if (lim[j].kind == MR_IK_LIMIT_NONE) continue;
            vec3 bone;
            mr_ik_limit_bone(sk, j, -1, bone);
            worst_v = fmaxf(worst_v, mr_ik_limit_violation(&lim[j], sk->rest_r[j], bone, pose.r[j]));
        }
        worst_foot = fmaxf(worst_foot, fmaxf(goals[0].error, goals[1].error));
    }
    CHECK_MSG(worst_v == 0.0f, "a joint %g degrees outside its limit", glm_deg(worst_v));
    CHECK_MSG(worst_foot <= 1e-4f * size, "a foot %g off its plant (size %g)", worst_foot, size);
    /* an invalid limit is refused */
    lim[rig.pelvis].kind = MR_IK_LIMIT_CONE;
    lim[rig.pelvis].cone = -1.0f;
    mr_ik_body_job bad = {.skeleton = sk, .rig = &rig, .pose = &pose, .limits = lim};
    CHECK(mr_ik_body_validate(&bad, NULL) != MR_OK);
    free(lim);
    mr_pose_deinit(&pose);
    mr_model_destroy(m);
}

TEST(validate_refuses_each_invalid_configuration)
{
    mr_skeleton sk;
    fixture_humanoid(&sk);
    mr_ik_rig rig;
    CHECK(mr_ik_rig_find(&sk, &rig, NULL) == MR_OK);
    mr_pose pose, small;
    mr_pose_init(&pose, J_COUNT);
    mr_pose_init(&small, 2);
    mr_pose_set_rest(&pose, &sk);
    mr_ik_goal goals[2] = {{J_HAND_L, {10, 0, 60}, 0, {0, 0, 0, 1}, 1.0f, 0}, {J_FOOT_R, {-4, 0, 0}, 0, {0, 0, 0, 1}, 1.0f, 0}};
    mr_ik_body_job ok = {.skeleton = &sk, .rig = &rig, .pose = &pose, .goals = goals, .goal_count = 2};
    CHECK(mr_ik_body_validate(&ok, NULL) == MR_OK);
    CHECK(mr_ik_body_run(&ok, NULL) == MR_OK);
    mr_ik_body_job j = ok;
    j.pose = &small;
    CHECK(mr_ik_body_validate(&j, NULL) == MR_ERR_JOINT_COUNT);
    j = ok; j.rig = NULL;
    CHECK(mr_ik_body_validate(&j, NULL) != MR_OK);
    j = ok; j.goal_count = MR_IK_BODY_MAX_GOALS + 1;
    CHECK(mr_ik_body_validate(&j, NULL) != MR_OK);
    j = ok; j.iterations = -1;
    CHECK(mr_ik_body_validate(&j, NULL) != MR_OK);
    j = ok; j.spine_limit = -1;
    CHECK(mr_ik_body_validate(&j, NULL) != MR_OK);
    j = ok; j.tolerance = NAN;
    CHECK(mr_ik_body_validate(&j, NULL) != MR_OK);
    mr_error err = {0};
    goals[0].joint = J_LOWERARM_L;
    CHECK(mr_ik_body_validate(&ok, &err) != MR_OK);
    CHECK_STR_CONTAINS(err.msg, "'lowerarm_l' is not a hand, foot, head or pelvis");
    goals[0].joint = J_FOOT_R;
    CHECK(mr_ik_body_validate(&ok, NULL) != MR_OK);    /* two goals for one joint */
    goals[0].joint = J_HAND_L;
    goals[0].position[1] = INFINITY;
    CHECK(mr_ik_body_validate(&ok, NULL) != MR_OK);
    goals[0].position[1] = 0;
    goals[0].weight = 1.5f;
    CHECK(mr_ik_body_validate(&ok, NULL) != MR_OK);
    goals[0].weight = 1.0f;
    goals[0].has_rotation = 1;
    glm_vec4_zero(goals[0].rotation);
    CHECK(mr_ik_body_validate(&ok, NULL) != MR_OK);
    goals[0].has_rotation = 0;
    mr_ik_rig bad = rig;
    bad.limb[MR_IK_ARM_L][1] = J_CALF_L;
    j = ok; j.rig = &bad;
    CHECK(mr_ik_body_validate(&j, NULL) != MR_OK);
    bad = rig;
    bad.spine[0] = J_HAND_R;
    CHECK(mr_ik_body_validate(&j, NULL) != MR_OK);
    bad = rig;
    bad.pelvis = J_COUNT;
    CHECK(mr_ik_body_validate(&j, NULL) != MR_OK);
    mr_pose_deinit(&pose);
    mr_pose_deinit(&small);
    mr_skeleton_deinit(&sk);
}

int main(void)
{
    RUN(rigs_found_on_every_humanoid);
    RUN(feet_stay_planted_while_hands_reach);
    RUN(conflicting_goals_give_a_flagged_compromise);
    RUN(limits_hold_in_body_solves);
    RUN(validate_refuses_each_invalid_configuration);
    return test_summary("ik_body");
}
