/* test_ik.c — two-bone IK (reach within 1e-3 of the chain length, straight
 * toward out-of-reach targets, pole decides the bend plane, soft limit,
 * weight 0 is identity) and aim IK (shares, limits, offset), plus a
 * negative test per invalid configuration. */
#include "anim/ik.h"
#include "anim/override.h"
#include "choreo_fixture.h"
#include "test.h"

typedef struct world {
    mr_skeleton sk;
    mr_pose pose, before;
} world;

static void world_make(world *w)
{
    fixture_humanoid(&w->sk);
    mr_pose_init(&w->pose, J_COUNT);
    mr_pose_init(&w->before, J_COUNT);
    mr_pose_set_rest(&w->pose, &w->sk);
    /* Turn the torso a little so model space differs from the rest frame. */
    glm_quatv(w->pose.r[J_SPINE2], glm_rad(20.0f), (vec3){0.3f, 0.2f, 1.0f});
    glm_quat_normalize(w->pose.r[J_SPINE2]);
    mr_pose_copy(&w->before, &w->pose);
}

static void world_free(world *w)
{
    mr_pose_deinit(&w->pose);
    mr_pose_deinit(&w->before);
    mr_skeleton_deinit(&w->sk);
}

static void joint_pos(const world *w, int j, vec3 out)
{
    mat4 m;
    mr_pose_model_matrix(&w->sk, &w->pose, j, m);
    glm_vec3_copy(m[3], out);
}

static mr_two_bone_job arm_job(world *w, const vec3 target, const vec3 pole)
{
    mr_two_bone_job job = {&w->sk, &w->pose, J_UPPERARM_R, J_LOWERARM_R, J_HAND_R, {0}, {0}, 1.0f, 0.0f, 0};
    glm_vec3_copy((float *)target, job.target);
    glm_vec3_copy((float *)pole, job.pole);
    return job;
}

/* Deterministic points: a small LCG. */
static float rnd(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)(*s >> 8) / (float)(1u << 24);
}

TEST(two_bone_reaches_reachable_targets)
{
    world w;
    world_make(&w);
    vec3 shoulder;
    joint_pos(&w, J_UPPERARM_R, shoulder);
    const float l1 = 11.0f, l2 = 10.0f, chain = l1 + l2;
    unsigned seed = 7;
    float worst = 0.0f;
    for (int i = 0; i < 500; i++) {
        mr_pose_copy(&w.pose, &w.before);
        vec3 dir = {rnd(&seed) * 2 - 1, rnd(&seed) * 2 - 1, rnd(&seed) * 2 - 1};
        if (glm_vec3_norm(dir) < 0.1f) continue;
        glm_vec3_normalize(dir);
        float d = 1.5f + rnd(&seed) * (chain - 1.6f);   /* between |l1-l2| and l1+l2 */
        vec3 target, pole = {rnd(&seed) - 0.5f, 1.0f, rnd(&seed) - 0.5f};
        glm_vec3_copy(shoulder, target);
        glm_vec3_muladds(dir, d, target);
        mr_two_bone_job job = arm_job(&w, target, pole);
        CHECK(mr_ik_two_bone(&job, NULL) == MR_OK);
        vec3 hand, elbow, s2;
        joint_pos(&w, J_HAND_R, hand);
        joint_pos(&w, J_LOWERARM_R, elbow);
        joint_pos(&w, J_UPPERARM_R, s2);
        float miss = glm_vec3_distance(hand, target);
        worst = fmaxf(worst, miss);
        CHECK_MSG(miss < 1e-3f * chain, "target %d at %g: missed by %g", i, d, miss);
        CHECK(job.reached);
        /* Bones keep their lengths, the shoulder stays. */
        CHECK_NEAR(glm_vec3_distance(elbow, s2), l1, 1e-3);
        CHECK_NEAR(glm_vec3_distance(hand, elbow), l2, 1e-3);
        CHECK(glm_vec3_distance(s2, shoulder) < 1e-4f);
    }
    CHECK(worst < 1e-3f * chain);
    world_free(&w);
}

TEST(two_bone_out_of_reach_straightens_toward_the_target)
{
    world w;
    world_make(&w);
    vec3 shoulder, hand, elbow;
    joint_pos(&w, J_UPPERARM_R, shoulder);
    vec3 targets[3] = {{-80, 10, 60}, {0, 0, 0}, {40, -60, 200}};
    for (int i = 0; i < 3; i++) {
        mr_pose_copy(&w.pose, &w.before);
        mr_two_bone_job job = arm_job(&w, targets[i], (vec3){0, 1, 0});
        CHECK(mr_ik_two_bone(&job, NULL) == MR_OK);
        CHECK(!job.reached);
        joint_pos(&w, J_HAND_R, hand);
        joint_pos(&w, J_LOWERARM_R, elbow);
        vec3 to_hand, to_target, to_elbow;
        glm_vec3_sub(hand, shoulder, to_hand);
        glm_vec3_sub(targets[i], shoulder, to_target);
        glm_vec3_sub(elbow, shoulder, to_elbow);
        CHECK_NEAR(glm_vec3_norm(to_hand), 21.0, 1e-3 * 21);           /* straight */
        glm_vec3_normalize(to_hand);
        glm_vec3_normalize(to_target);
        glm_vec3_normalize(to_elbow);
        CHECK_NEAR(glm_vec3_dot(to_hand, to_target), 1.0, 1e-5);        /* pointing at it */
        CHECK_NEAR(glm_vec3_dot(to_elbow, to_target), 1.0, 1e-5);
    }
    world_free(&w);
}

TEST(two_bone_pole_decides_the_bend_plane)
{
    world w;
    world_make(&w);
    vec3 shoulder;
    joint_pos(&w, J_UPPERARM_R, shoulder);
    vec3 target = {shoulder[0] - 12.0f, shoulder[1], shoulder[2] - 5.0f};
    vec3 poles[4] = {{0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0.3f, 0.5f, -1}};
    for (int i = 0; i < 4; i++) {
        mr_pose_copy(&w.pose, &w.before);
        mr_two_bone_job job = arm_job(&w, target, poles[i]);
        CHECK(mr_ik_two_bone(&job, NULL) == MR_OK);
        vec3 elbow, line, off, pole_perp;
        joint_pos(&w, J_LOWERARM_R, elbow);
        glm_vec3_sub(target, shoulder, line);
        glm_vec3_normalize(line);
        glm_vec3_sub(elbow, shoulder, off);
        glm_vec3_muladds(line, -glm_vec3_dot(off, line), off);        /* elbow off the line */
        glm_vec3_copy(poles[i], pole_perp);
        glm_vec3_muladds(line, -glm_vec3_dot(pole_perp, line), pole_perp);
        glm_vec3_normalize(off);
        glm_vec3_normalize(pole_perp);
        CHECK_MSG(glm_vec3_dot(off, pole_perp) > 0.9999f, "pole %d: elbow offset . pole = %g", i,
                  glm_vec3_dot(off, pole_perp));
    }
    world_free(&w);
}

TEST(two_bone_weight_zero_is_identity_and_half_is_between)
{
    world w;
    world_make(&w);
    vec3 target = {-20, 10, 50};
    mr_two_bone_job job = arm_job(&w, target, (vec3){0, 1, 0});
    job.weight = 0.0f;
    CHECK(mr_ik_two_bone(&job, NULL) == MR_OK);
    for (int j = 0; j < J_COUNT; j++) CHECK(fixture_pose_equal(&w.pose, &w.before, j));
    job.weight = 1.0f;
    mr_ik_two_bone(&job, NULL);
    versor full;
    glm_vec4_copy(w.pose.r[J_UPPERARM_R], full);
    mr_pose_copy(&w.pose, &w.before);
    job.weight = 0.5f;
    mr_ik_two_bone(&job, NULL);
    float to_full = glm_vec4_dot(w.pose.r[J_UPPERARM_R], full), to_orig = glm_vec4_dot(w.pose.r[J_UPPERARM_R], w.before.r[J_UPPERARM_R]);
    CHECK(fabsf(to_full) < 1.0f && fabsf(to_orig) < 1.0f);
    CHECK_NEAR(fabsf(to_full), fabsf(to_orig), 1e-4);   /* halfway in angle */
    world_free(&w);
}

TEST(two_bone_edits_only_the_chain_rotations)
{
    world w;
    world_make(&w);
    mr_two_bone_job job = arm_job(&w, (vec3){-15, 8, 55}, (vec3){0, 1, 0});
    mr_ik_two_bone(&job, NULL);
    for (int j = 0; j < J_COUNT; j++) {
        if (j == J_UPPERARM_R || j == J_LOWERARM_R) continue;
        CHECK_MSG(fixture_pose_equal(&w.pose, &w.before, j), "joint %d changed", j);
    }
    for (int k = 0; k < 3; k++) CHECK(w.pose.t[J_UPPERARM_R][k] == w.before.t[J_UPPERARM_R][k]);
    world_free(&w);
}

TEST(two_bone_soft_limit_eases_near_full_extension)
{
    world w;
    world_make(&w);
    vec3 shoulder, hand, dir = {-1, 0.2f, -0.4f};
    joint_pos(&w, J_UPPERARM_R, shoulder);
    glm_vec3_normalize(dir);
    float prev = -1.0f;
    for (float d = 15.0f; d <= 30.0f; d += 0.25f) {
        mr_pose_copy(&w.pose, &w.before);
        vec3 target;
        glm_vec3_copy(shoulder, target);
        glm_vec3_muladds(dir, d, target);
        mr_two_bone_job job = arm_job(&w, target, (vec3){0, 1, 0});
        job.soft = 0.1f;
        mr_ik_two_bone(&job, NULL);
        joint_pos(&w, J_HAND_R, hand);
        float reach = glm_vec3_distance(hand, shoulder);
        if (d <= 21.0f * 0.9f - 1e-3f) CHECK_MSG(glm_vec3_distance(hand, target) < 1e-3f * 21, "d %g", d);
        CHECK_MSG(reach < 21.0f - 1e-4f, "d %g: reach %g, the soft band never fully extends", d, reach);
        if (prev >= 0.0f) {
            CHECK(reach >= prev - 1e-4f);              /* keeps moving out, without a jump */
            CHECK(reach - prev < 0.26f);
        }
        prev = reach;
    }
    world_free(&w);
}

TEST(two_bone_solves_a_leg_with_the_knee_forward)
{
    world w;
    world_make(&w);
    vec3 hip, knee, foot;
    joint_pos(&w, J_THIGH_L, hip);
    vec3 target = {hip[0], hip[1] + 5.0f, hip[2] - 28.0f};   /* foot raised onto a step */
    mr_two_bone_job job = {&w.sk, &w.pose, J_THIGH_L, J_CALF_L, J_FOOT_L, {0}, {0, 1, 0}, 1.0f, 0.0f, 0};
    glm_vec3_copy(target, job.target);
    CHECK(mr_ik_two_bone(&job, NULL) == MR_OK);
    joint_pos(&w, J_CALF_L, knee);
    joint_pos(&w, J_FOOT_L, foot);
    CHECK(glm_vec3_distance(foot, target) < 1e-3f * 36);
    CHECK(knee[1] > hip[1] + 1.0f);                   /* knee bends forward (+Y) */
    world_free(&w);
}

TEST(point_to_model_converts_from_a_joint_frame)
{
    world w;
    world_make(&w);
    vec3 p, hand;
    CHECK(mr_ik_point_to_model(&w.sk, &w.pose, J_HAND_R, (vec3){0, 0, 0}, p) == MR_OK);
    joint_pos(&w, J_HAND_R, hand);
    CHECK(glm_vec3_distance(p, hand) < 1e-5f);
    /* 3 units along the hand's local -X lies 3 units from the hand. */
    mr_ik_point_to_model(&w.sk, &w.pose, J_HAND_R, (vec3){-3, 0, 0}, p);
    CHECK_NEAR(glm_vec3_distance(p, hand), 3.0, 1e-4);
    /* Reaching for a point given in the chest's frame (in front of it). */
    vec3 grip;
    mr_ik_point_to_model(&w.sk, &w.pose, J_SPINE3, (vec3){-8, 9, 2}, grip);
    mr_two_bone_job job = arm_job(&w, grip, (vec3){0, -1, 0});
    mr_ik_two_bone(&job, NULL);
    joint_pos(&w, J_HAND_R, hand);
    CHECK(glm_vec3_distance(hand, grip) < 1e-3f * 21);
    mr_ik_point_to_model(&w.sk, &w.pose, -1, (vec3){1, 2, 3}, p);
    CHECK(p[0] == 1.0f && p[1] == 2.0f && p[2] == 3.0f);
    world_free(&w);
}

/* ---- aim ---------------------------------------------------------------- */

static const int head_chain[3] = {J_SPINE3, J_NECK, J_HEAD};
static const float head_shares[3] = {0.2f, 0.3f, 0.5f};

static mr_aim_job head_job(world *w, const vec3 target)
{
    mr_aim_job job = {&w->sk, &w->pose, head_chain, head_shares, NULL, 3, {0}, {0, 1, 0}, {0, 0, 0}, 1.0f, 0.0f};
    glm_vec3_copy((float *)target, job.target);
    return job;
}

static float turned(const world *w, int j)
{
    float d = fabsf(glm_vec4_dot(w->pose.r[j], w->before.r[j]));
    return 2.0f * acosf(fminf(1.0f, d));
}

TEST(aim_turns_the_head_onto_the_target_sharing_along_the_chain)
{
    world w;
    world_make(&w);
    vec3 head, fwd_target = {0};
    joint_pos(&w, J_HEAD, head);
    /* A far target, 60 degrees to the side: parallax is negligible. */
    mat4 m;
    mr_pose_model_matrix(&w.sk, &w.pose, J_HEAD, m);
    vec3 fwd;
    glm_mat4_mulv3(m, (vec3){0, 1, 0}, 0.0f, fwd);
    glm_vec3_rotate(fwd, glm_rad(60.0f), (vec3){0, 0, 1});
    glm_vec3_copy(head, fwd_target);
    glm_vec3_muladds(fwd, 10000.0f, fwd_target);
    mr_aim_job job = head_job(&w, fwd_target);
    CHECK(mr_ik_aim(&job, NULL) == MR_OK);
    CHECK_MSG(job.error < 1e-3f, "error %g rad", job.error);
    float total = glm_rad(60.0f);
    CHECK_NEAR(turned(&w, J_SPINE3), 0.2 * total, 0.01 * total);
    CHECK_NEAR(turned(&w, J_NECK), 0.3 * total, 0.01 * total);
    CHECK_NEAR(turned(&w, J_HEAD), 0.5 * total, 0.01 * total);
    for (int j = 0; j < J_COUNT; j++)
        if (j != J_SPINE3 && j != J_NECK && j != J_HEAD) CHECK(fixture_pose_equal(&w.pose, &w.before, j));
    world_free(&w);
}

TEST(aim_respects_angle_limits)
{
    world w;
    world_make(&w);
    vec3 head;
    joint_pos(&w, J_HEAD, head);
    vec3 target = {head[0] + 100.0f, head[1] - 30.0f, head[2]};   /* well to the side */
    static const float limits[3] = {0.05f, 0.1f, 0.2f};
    mr_aim_job job = head_job(&w, target);
    job.limits = limits;
    float start_error;
    {
        mr_aim_job probe = job;
        probe.weight = 0.0f;
        mr_ik_aim(&probe, NULL);
        start_error = probe.error;
    }
    CHECK(start_error > 0.5f);
    CHECK(mr_ik_aim(&job, NULL) == MR_OK);
    CHECK(turned(&w, J_SPINE3) <= 0.05f + 1e-4f);
    CHECK(turned(&w, J_NECK) <= 0.1f + 1e-4f);
    CHECK(turned(&w, J_HEAD) <= 0.2f + 1e-4f);
    CHECK(job.error < start_error - 0.3f);             /* got closer, as far as allowed */
    CHECK(job.error > 0.1f);
    world_free(&w);
}

TEST(aim_with_an_eye_offset_and_a_near_target_converges)
{
    world w;
    world_make(&w);
    vec3 head;
    joint_pos(&w, J_HEAD, head);
    vec3 target = {head[0] + 10.0f, head[1] + 8.0f, head[2] + 4.0f};
    mr_aim_job job = head_job(&w, target);
    glm_vec3_copy((vec3){0, 3, 2}, job.offset);
    CHECK(mr_ik_aim(&job, NULL) == MR_OK);
    CHECK_MSG(job.error < 1e-3f, "error %g rad", job.error);
    world_free(&w);
}

TEST(aim_weight_zero_is_identity_and_partial_shares_aim_part_way)
{
    world w;
    world_make(&w);
    vec3 target = {60, 40, 70};
    mr_aim_job job = head_job(&w, target);
    job.weight = 0.0f;
    CHECK(mr_ik_aim(&job, NULL) == MR_OK);
    for (int j = 0; j < J_COUNT; j++) CHECK(fixture_pose_equal(&w.pose, &w.before, j));
    float start_error = job.error;
    static const float half[3] = {0.1f, 0.15f, 0.25f};
    job.weight = 1.0f;
    job.shares = half;
    mr_ik_aim(&job, NULL);
    CHECK(job.error > 0.3f * start_error && job.error < 0.7f * start_error);
    world_free(&w);
}

/* ---- negative tests ----------------------------------------------------- */

TEST(two_bone_refuses_chain_joints_that_are_not_parent_and_child)
{
    world w;
    world_make(&w);
    mr_error err = {0};
    mr_two_bone_job job = arm_job(&w, (vec3){0, 0, 50}, (vec3){0, 1, 0});
    job.mid = J_LOWERARM_L;                           /* the other arm */
    CHECK(mr_ik_two_bone(&job, &err) == MR_ERR_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err.msg, "'lowerarm_l' is not a child of 'upperarm_r'");
    job = arm_job(&w, (vec3){0, 0, 50}, (vec3){0, 1, 0});
    job.end = J_HEAD;
    CHECK(mr_ik_two_bone(&job, &err) == MR_ERR_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err.msg, "'head' is not a child of 'lowerarm_r'");
    job = arm_job(&w, (vec3){0, 0, 50}, (vec3){0, 1, 0});
    job.mid = J_UPPERARM_R;                           /* a joint is not its own child */
    CHECK(mr_ik_two_bone(&job, NULL) == MR_ERR_INVALID_ARGUMENT);
    job = arm_job(&w, (vec3){0, 0, 50}, (vec3){0, 1, 0});
    job.start = J_HAND_R;                             /* reversed chain */
    job.end = J_UPPERARM_R;
    CHECK(mr_ik_two_bone(&job, NULL) == MR_ERR_INVALID_ARGUMENT);
    for (int j = 0; j < J_COUNT; j++) CHECK(fixture_pose_equal(&w.pose, &w.before, j));
    world_free(&w);
}

TEST(two_bone_refuses_joint_out_of_range)
{
    world w;
    world_make(&w);
    mr_two_bone_job job = arm_job(&w, (vec3){0, 0, 50}, (vec3){0, 1, 0});
    job.end = J_COUNT;
    CHECK(mr_ik_two_bone(&job, NULL) == MR_ERR_INVALID_ARGUMENT);
    job.end = J_HAND_R;
    job.start = -1;
    CHECK(mr_ik_two_bone(&job, NULL) == MR_ERR_INVALID_ARGUMENT);
    world_free(&w);
}

TEST(two_bone_refuses_nan_target_or_pole)
{
    world w;
    world_make(&w);
    mr_two_bone_job job = arm_job(&w, (vec3){NAN, 0, 50}, (vec3){0, 1, 0});
    CHECK(mr_ik_two_bone(&job, NULL) == MR_ERR_INVALID_ARGUMENT);
    job = arm_job(&w, (vec3){0, 0, 50}, (vec3){0, INFINITY, 0});
    CHECK(mr_ik_two_bone(&job, NULL) == MR_ERR_INVALID_ARGUMENT);
    world_free(&w);
}

TEST(two_bone_refuses_bad_weight_or_soft)
{
    world w;
    world_make(&w);
    mr_two_bone_job job = arm_job(&w, (vec3){0, 0, 50}, (vec3){0, 1, 0});
    job.weight = NAN;
    CHECK(mr_ik_two_bone(&job, NULL) == MR_ERR_INVALID_ARGUMENT);
    job.weight = 1.5f;
    CHECK(mr_ik_two_bone(&job, NULL) == MR_ERR_INVALID_ARGUMENT);
    job.weight = 1.0f;
    job.soft = 1.0f;
    CHECK(mr_ik_two_bone(&job, NULL) == MR_ERR_INVALID_ARGUMENT);
    job.soft = -0.1f;
    CHECK(mr_ik_two_bone(&job, NULL) == MR_ERR_INVALID_ARGUMENT);
    world_free(&w);
}

TEST(two_bone_refuses_mismatched_joint_counts)
{
    world w;
    world_make(&w);
    mr_pose small;
    mr_pose_init(&small, 4);
    mr_two_bone_job job = arm_job(&w, (vec3){0, 0, 50}, (vec3){0, 1, 0});
    job.pose = &small;
    mr_error err = {0};
    CHECK(mr_ik_two_bone(&job, &err) == MR_ERR_JOINT_COUNT);
    CHECK_STR_CONTAINS(err.msg, "pose has 4 joints, skeleton has 18");
    job.pose = NULL;
    CHECK(mr_ik_two_bone(&job, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_ik_two_bone(NULL, NULL) == MR_ERR_INVALID_ARGUMENT);
    mr_pose_deinit(&small);
    world_free(&w);
}

TEST(aim_refuses_joints_that_are_not_a_chain)
{
    world w;
    world_make(&w);
    static const int broken[3] = {J_SPINE3, J_UPPERARM_L, J_HEAD};
    mr_aim_job job = head_job(&w, (vec3){0, 50, 70});
    job.joints = broken;
    mr_error err = {0};
    CHECK(mr_ik_aim(&job, &err) == MR_ERR_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err.msg, "'head' is not a child of 'upperarm_l'");
    static const int backwards[3] = {J_HEAD, J_NECK, J_SPINE3};
    job.joints = backwards;
    CHECK(mr_ik_aim(&job, NULL) == MR_ERR_INVALID_ARGUMENT);
    static const int out[3] = {J_SPINE3, J_NECK, 99};
    job.joints = out;
    CHECK(mr_ik_aim(&job, NULL) == MR_ERR_INVALID_ARGUMENT);
    for (int j = 0; j < J_COUNT; j++) CHECK(fixture_pose_equal(&w.pose, &w.before, j));
    world_free(&w);
}

TEST(aim_refuses_bad_joint_count)
{
    world w;
    world_make(&w);
    mr_aim_job job = head_job(&w, (vec3){0, 50, 70});
    job.count = 0;
    CHECK(mr_ik_aim(&job, NULL) == MR_ERR_LIMIT);
    job.count = MR_AIM_MAX_JOINTS + 1;
    CHECK(mr_ik_aim(&job, NULL) == MR_ERR_LIMIT);
    world_free(&w);
}

TEST(aim_refuses_bad_shares)
{
    world w;
    world_make(&w);
    mr_aim_job job = head_job(&w, (vec3){0, 50, 70});
    static const float nan_share[3] = {0.2f, NAN, 0.5f};
    static const float negative[3] = {0.2f, -0.3f, 0.5f};
    static const float too_much[3] = {0.5f, 0.5f, 0.5f};
    mr_error err = {0};
    job.shares = nan_share;
    CHECK(mr_ik_aim(&job, NULL) == MR_ERR_INVALID_ARGUMENT);
    job.shares = negative;
    CHECK(mr_ik_aim(&job, NULL) == MR_ERR_INVALID_ARGUMENT);
    job.shares = too_much;
    CHECK(mr_ik_aim(&job, &err) == MR_ERR_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err.msg, "shares sum to 1.5");
    job.shares = NULL;
    CHECK(mr_ik_aim(&job, NULL) == MR_ERR_INVALID_ARGUMENT);
    world_free(&w);
}

TEST(aim_refuses_negative_limit_zero_forward_and_nan_target)
{
    world w;
    world_make(&w);
    static const float bad_limits[3] = {0.1f, -0.1f, 0.1f};
    mr_aim_job job = head_job(&w, (vec3){0, 50, 70});
    job.limits = bad_limits;
    CHECK(mr_ik_aim(&job, NULL) == MR_ERR_INVALID_ARGUMENT);
    job = head_job(&w, (vec3){0, 50, 70});
    glm_vec3_zero(job.forward);
    CHECK(mr_ik_aim(&job, NULL) == MR_ERR_INVALID_ARGUMENT);
    job = head_job(&w, (vec3){0, NAN, 70});
    CHECK(mr_ik_aim(&job, NULL) == MR_ERR_INVALID_ARGUMENT);
    job = head_job(&w, (vec3){0, 50, 70});
    job.weight = -1.0f;
    CHECK(mr_ik_aim(&job, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_ik_point_to_model(&w.sk, &w.pose, J_COUNT, (vec3){0, 0, 0}, job.target) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_ik_point_to_model(&w.sk, &w.pose, 0, (vec3){NAN, 0, 0}, job.target) == MR_ERR_INVALID_ARGUMENT);
    world_free(&w);
}

int main(void)
{
    RUN(two_bone_reaches_reachable_targets);
    RUN(two_bone_out_of_reach_straightens_toward_the_target);
    RUN(two_bone_pole_decides_the_bend_plane);
    RUN(two_bone_weight_zero_is_identity_and_half_is_between);
    RUN(two_bone_edits_only_the_chain_rotations);
    RUN(two_bone_soft_limit_eases_near_full_extension);
    RUN(two_bone_solves_a_leg_with_the_knee_forward);
    RUN(point_to_model_converts_from_a_joint_frame);
    RUN(aim_turns_the_head_onto_the_target_sharing_along_the_chain);
    RUN(aim_respects_angle_limits);
    RUN(aim_with_an_eye_offset_and_a_near_target_converges);
    RUN(aim_weight_zero_is_identity_and_partial_shares_aim_part_way);
    RUN(two_bone_refuses_chain_joints_that_are_not_parent_and_child);
    RUN(two_bone_refuses_joint_out_of_range);
    RUN(two_bone_refuses_nan_target_or_pole);
    RUN(two_bone_refuses_bad_weight_or_soft);
    RUN(two_bone_refuses_mismatched_joint_counts);
    RUN(aim_refuses_joints_that_are_not_a_chain);
    RUN(aim_refuses_bad_joint_count);
    RUN(aim_refuses_bad_shares);
    RUN(aim_refuses_negative_limit_zero_forward_and_nan_target);
    return test_summary("ik");
}
