/* ik_body.c — full-body IK: pelvis, spine, then limbs (see ik_body.h). */
#include "anim/ik_body.h"

#include <math.h>
#include <string.h>

#include "anim/ik.h"
#include "anim/override.h"
#include "core/quat.h"

static int finite3(const float *v) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

static const char *jname(const mr_skeleton *sk, int j)
{
    return sk->names && j >= 0 && j < sk->joint_count && sk->names[j] ? sk->names[j] : "?";
}

static int is_ancestor(const mr_skeleton *sk, int a, int d)
{
    for (int k = sk->parents[d]; k >= 0; k = sk->parents[k])
        if (k == a) return 1;
    return 0;
}

static int in_range(const mr_skeleton *sk, int j) { return j >= 0 && j < sk->joint_count; }

/* Which part a goal's joint is: limb index, 4 head, 5 pelvis, -1 none. */
static int part_of(const mr_ik_rig *rig, int j)
{
    for (int l = 0; l < MR_IK_LIMB_COUNT; l++)
        if (rig->limb[l][2] >= 0 && rig->limb[l][2] == j) return l;
    if (rig->head >= 0 && j == rig->head) return 4;
    if (rig->pelvis >= 0 && j == rig->pelvis) return 5;
    return -1;
}

mr_status mr_ik_body_validate(const mr_ik_body_job *job, mr_error *err)
{
    if (!job) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "body IK: no job");
    const mr_skeleton *sk = job->skeleton;
    const mr_ik_rig *rig = job->rig;
    if (!sk || !rig || !job->pose)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "body IK: needs a skeleton, a rig and a pose");
    if (job->pose->joint_count != sk->joint_count)
        return mr_error_set(err, MR_ERR_JOINT_COUNT, "body IK: pose has %d joints, skeleton has %d",
                            job->pose->joint_count, sk->joint_count);
    if (rig->pelvis != -1 && !in_range(sk, rig->pelvis))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "body IK: pelvis joint %d out of range", rig->pelvis);
    if (rig->head != -1 && !in_range(sk, rig->head))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "body IK: head joint %d out of range", rig->head);
    if (rig->spine_count < 0 || rig->spine_count > MR_IK_RIG_MAX_SPINE)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "body IK: %d spine joints, expected 0..%d",
                            rig->spine_count, MR_IK_RIG_MAX_SPINE);
    for (int i = 0; i < rig->spine_count; i++) {
        int j = rig->spine[i];
        if (!in_range(sk, j)) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "body IK: spine joint %d out of range", j);
        int above = i ? rig->spine[i - 1] : rig->pelvis;
        if (above >= 0 && !is_ancestor(sk, above, j))
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "body IK: spine joint '%s' is not below '%s'",
                                jname(sk, j), jname(sk, above));
    }
    for (int l = 0; l < MR_IK_LIMB_COUNT; l++) {
        const int *lj = rig->limb[l];
        if (lj[0] < 0 && lj[1] < 0 && lj[2] < 0) continue;
        for (int k = 0; k < 3; k++)
            if (!in_range(sk, lj[k]))
                return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "body IK: limb %d joint %d out of range", l, lj[k]);
        if (!is_ancestor(sk, lj[0], lj[1]) || !is_ancestor(sk, lj[1], lj[2]))
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "body IK: '%s', '%s', '%s' is not a chain",
                                jname(sk, lj[0]), jname(sk, lj[1]), jname(sk, lj[2]));
    }
    if (job->goal_count < 0 || job->goal_count > MR_IK_BODY_MAX_GOALS || (job->goal_count && !job->goals))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "body IK: %d goals, expected 0..%d", job->goal_count,
                            MR_IK_BODY_MAX_GOALS);
    for (int g = 0; g < job->goal_count; g++) {
        const mr_ik_goal *goal = &job->goals[g];
        if (!in_range(sk, goal->joint) || part_of(rig, goal->joint) < 0)
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                "body IK: goal joint '%s' is not a hand, foot, head or pelvis of the rig",
                                jname(sk, goal->joint));
        for (int h = 0; h < g; h++)
            if (job->goals[h].joint == goal->joint)
                return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "body IK: two goals for '%s'", jname(sk, goal->joint));
        if (!finite3(goal->position) || (goal->has_rotation && !(finite3(goal->rotation) && isfinite(goal->rotation[3]))))
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "body IK: goal of '%s' is not finite", jname(sk, goal->joint));
        if (goal->has_rotation && glm_vec4_norm((float *)goal->rotation) < 1e-6f)
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "body IK: goal rotation of '%s' is zero",
                                jname(sk, goal->joint));
        if (!(goal->weight >= 0.0f && goal->weight <= 1.0f))
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "body IK: goal weight %g of '%s', expected 0..1",
                                goal->weight, jname(sk, goal->joint));
    }
    if (job->limits)
        for (int j = 0; j < sk->joint_count; j++) {
            mr_error e = {0};
            if (mr_ik_limit_validate(&job->limits[j], &e) != MR_OK)
                return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "body IK: limit of '%s': %s", jname(sk, j), e.msg);
        }
    if (job->iterations < 0 || job->iterations > 100)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "body IK: %d iterations, expected 0..100", job->iterations);
    if (!(job->spine_limit >= 0.0f && job->spine_limit <= (float)M_PI))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "body IK: spine limit %g, expected 0..pi", job->spine_limit);
    if (!(job->tolerance >= 0.0f && isfinite(job->tolerance)))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "body IK: tolerance %g, expected >= 0", job->tolerance);
    return MR_OK;
}

/* Model-space position of joint j: from the scratch matrices (computed
 * once after each change of the pose), else by walking its parents. */
static void joint_pos(mr_ik_body_job *job, int j, vec3 out)
{
    if (job->scratch) {
        if (!job->fresh) {
            mr_pose_to_model(job->skeleton, job->pose, job->scratch);
            job->fresh = 1;
        }
        glm_vec3_copy(job->scratch[j][3], out);
        return;
    }
    mat4 m;
    mr_pose_model_matrix(job->skeleton, job->pose, j, m);
    glm_vec3_copy(m[3], out);
}

/* Projects joint j's local rotation onto its limit (if any). */
static void keep_limit(mr_ik_body_job *job, int j, int child)
{
    if (!job->limits || j < 0 || job->limits[j].kind == MR_IK_LIMIT_NONE) return;
    vec3 bone;
    mr_ik_limit_bone(job->skeleton, j, child, bone);
    mr_ik_limit_apply(&job->limits[j], job->skeleton->rest_r[j], bone, job->pose->r[j]);
    job->fresh = 0;
}

static float limb_reach(mr_ik_body_job *job, int l)
{
    const int *lj = job->rig->limb[l];
    if (lj[0] < 0) return 0.0f;
    vec3 a, b, c;
    joint_pos(job, lj[0], a);
    joint_pos(job, lj[1], b);
    joint_pos(job, lj[2], c);
    return glm_vec3_distance(a, b) + glm_vec3_distance(b, c);
}

/* Moves the pelvis by model-space d. */
static void move_pelvis(mr_ik_body_job *job, const vec3 d)
{
    if (job->rig->pelvis < 0 || glm_vec3_norm((float *)d) == 0.0f) return;
    mr_override_translation(job->skeleton, job->pose, job->rig->pelvis, d, MR_SPACE_MODEL, MR_OVERRIDE_ADD, 1.0f);
    job->fresh = 0;
}

/* Cuts d back so that every foot goal stays within its leg's reach from
 * the hip moved by d (alternating projections onto the balls). */
static void keep_feet(mr_ik_body_job *job, const float *reach, vec3 d)
{
    for (int pass = 0; pass < 8; pass++) {
        int moved = 0;
        for (int g = 0; g < job->goal_count; g++) {
            const mr_ik_goal *goal = &job->goals[g];
            int l = part_of(job->rig, goal->joint);
            if ((l != MR_IK_LEG_L && l != MR_IK_LEG_R) || goal->weight <= 0.0f) continue;
            vec3 hip, v;
            joint_pos(job, job->rig->limb[l][0], hip);
            glm_vec3_add(hip, d, v);
            glm_vec3_sub(v, (float *)goal->position, v);
            float n = glm_vec3_norm(v), lim = reach[l] * MR_IK_BODY_LEG_REACH;
            if (n > lim && n > 0.0f) {
                glm_vec3_muladds(v, -(n - lim) / n, d);
                moved = 1;
            }
        }
        if (!moved) break;
    }
}

/* How far past a limb's comfortable reach from `from` its goal lies, as a
 * vector toward the goal (zero when within). */
static void excess(const vec3 from, const vec3 goal, float reach, vec3 out)
{
    vec3 v;
    glm_vec3_sub((float *)goal, (float *)from, v);
    float n = glm_vec3_norm(v), lim = reach * MR_IK_BODY_ARM_REACH;
    glm_vec3_zero(out);
    if (n > lim && n > 0.0f) glm_vec3_scale(v, (n - lim) / n, out);
}

/* What the hand and head goals ask of the upper body: the mean excess. */
static int upper_pull(mr_ik_body_job *job, const float *reach, vec3 pull, float *worst)
{
    glm_vec3_zero(pull);
    float wsum = 0.0f;
    *worst = 0.0f;
    for (int g = 0; g < job->goal_count; g++) {
        const mr_ik_goal *goal = &job->goals[g];
        int part = part_of(job->rig, goal->joint);
        if (goal->weight <= 0.0f) continue;
        vec3 e;
        float miss;                /* beyond full reach (the head: off its goal) */
        if (part == MR_IK_ARM_L || part == MR_IK_ARM_R) {
            vec3 sh;
            joint_pos(job, job->rig->limb[part][0], sh);
            excess(sh, goal->position, reach[part], e);
            miss = glm_vec3_distance(sh, (float *)goal->position) - reach[part];
        } else if (part == 4) {
            vec3 h;
            joint_pos(job, job->rig->head, h);
            glm_vec3_sub((float *)goal->position, h, e);
            miss = glm_vec3_norm(e);
        } else {
            continue;
        }
        *worst = fmaxf(*worst, goal->weight * miss);
        if (glm_vec3_norm(e) == 0.0f) continue;   /* in reach: no say in the pull */
        glm_vec3_muladds(e, goal->weight, pull);
        wsum += goal->weight;
    }
    if (wsum > 0.0f) glm_vec3_scale(pull, 1.0f / wsum, pull);
    return 1;
}

/* The upper body's wishes as points and moves: each hand goal's shoulder
 * and how far past the arm's reach the goal lies, the head and the way to
 * its goal (weighted). Returns how many. */
static int upper_wishes(mr_ik_body_job *job, const float *reach, vec3 *at, vec3 *move)
{
    int n = 0;
    for (int g = 0; g < job->goal_count && n < MR_IK_BODY_MAX_GOALS; g++) {
        const mr_ik_goal *goal = &job->goals[g];
        int part = part_of(job->rig, goal->joint);
        if (goal->weight <= 0.0f) continue;
        if (part == MR_IK_ARM_L || part == MR_IK_ARM_R) {
            joint_pos(job, job->rig->limb[part][0], at[n]);
            excess(at[n], goal->position, reach[part], move[n]);
        } else if (part == 4) {
            joint_pos(job, job->rig->head, at[n]);
            glm_vec3_sub((float *)goal->position, at[n], move[n]);
        } else {
            continue;
        }
        glm_vec3_scale(move[n], goal->weight, move[n]);
        n++;
    }
    return n;
}

/* Turns the spine so the shoulders and head move as they wish: joint i
 * turns about itself by the least-squares small rotation that moves those
 * points (sum of r x m / |r|^2, r from the joint to the point, m its
 * move), taking 1/(count - i) of it, at most `limit` radians. A twist of
 * the chest (one hand forward, the other back) comes out of it as well as
 * a bend. */
static void bend_spine(mr_ik_body_job *job, const float *reach, float limit)
{
    const mr_ik_rig *rig = job->rig;
    int n = rig->spine_count;
    for (int i = 0; i < n; i++) {
        vec3 at[MR_IK_BODY_MAX_GOALS], move[MR_IK_BODY_MAX_GOALS], p, w = {0, 0, 0};
        int k = upper_wishes(job, reach, at, move);
        if (!k) return;
        joint_pos(job, rig->spine[i], p);
        int wanting = 0;
        for (int h = 0; h < k; h++) wanting += glm_vec3_norm(move[h]) > 0.0f;
        for (int h = 0; h < k && wanting; h++) {
            vec3 r, c;
            glm_vec3_sub(at[h], p, r);
            float rr = glm_vec3_dot(r, r);
            if (rr < 1e-12f || glm_vec3_norm(move[h]) == 0.0f) continue;   /* in reach: no wish */
            glm_vec3_cross(r, move[h], c);
            glm_vec3_muladds(c, 1.0f / (rr * (float)wanting), w);
        }
        float angle = glm_vec3_norm(w);
        if (!(angle > 1e-7f) || !isfinite(angle)) continue;
        vec3 axis;
        glm_vec3_scale(w, 1.0f / angle, axis);
        angle = 1.5f * atanf(angle) / (float)(n - i);   /* over-relaxed: converges in fewer passes */
        if (angle > limit) angle = limit;
        versor q;
        glm_quatv(q, angle, axis);
        mr_override_rotation(job->skeleton, job->pose, rig->spine[i], q, MR_SPACE_MODEL, MR_OVERRIDE_ADD, 1.0f);
        job->fresh = 0;
        keep_limit(job, rig->spine[i], -1);
    }
}

static void solve_limb(mr_ik_body_job *job, mr_ik_goal *goal, int l)
{
    const int *lj = job->rig->limb[l];
    const mr_skeleton *sk = job->skeleton;
    int limited = 0;
    if (job->limits)
        for (int k = lj[2]; k != lj[0] && k >= 0; k = sk->parents[k])
            limited |= job->limits[sk->parents[k]].kind != MR_IK_LIMIT_NONE;
    if (goal->weight > 0.0f) {
        /* the analytic two-bone solve first; a limb with limits then goes
         * through chain IK with them, which starts from there (and is done
         * at once when the two-bone answer already keeps them) */
        mr_two_bone_job tb = {0};
        tb.skeleton = sk;
        tb.pose = job->pose;
        tb.start = lj[0];
        tb.mid = lj[1];
        tb.end = lj[2];
        glm_vec3_copy(goal->position, tb.target);
        tb.weight = goal->weight;
        mr_ik_two_bone(&tb, NULL);
        job->fresh = 0;
    }
    if (goal->weight > 0.0f && limited) {
        mr_ik_limit lim[MR_IK_CHAIN_MAX_JOINTS];
        int n = mr_ik_chain_length(sk, lj[0], lj[2]);
        if (n >= 2 && n <= MR_IK_CHAIN_MAX_JOINTS) {
            for (int k = n - 1, j = lj[2]; k >= 0; k--, j = sk->parents[j]) lim[k] = job->limits[j];
            mr_ik_chain_job cj = {0};
            cj.skeleton = sk;
            cj.pose = job->pose;
            cj.first = lj[0];
            cj.last = lj[2];
            glm_vec3_copy(goal->position, cj.target);
            cj.weight = 1.0f;
            cj.limits = lim;
            cj.iterations = 200;              /* limits slow the reach down; feet must land */
            mr_ik_chain_run(&cj, NULL);
        }
        job->fresh = 0;
    }
    if (goal->has_rotation && goal->weight > 0.0f) {
        mr_override_rotation(sk, job->pose, lj[2], goal->rotation, MR_SPACE_MODEL, MR_OVERRIDE_REPLACE, goal->weight);
        job->fresh = 0;
        keep_limit(job, lj[2], -1);
    }
}

mr_status mr_ik_body_run(mr_ik_body_job *job, mr_error *err)
{
    mr_status st = mr_ik_body_validate(job, err);
    if (st != MR_OK) return st;
    const mr_ik_rig *rig = job->rig;
    job->fresh = 0;
    float reach[MR_IK_LIMB_COUNT], longest = 0.0f;
    for (int l = 0; l < MR_IK_LIMB_COUNT; l++) {
        reach[l] = limb_reach(job, l);
        if (reach[l] > longest) longest = reach[l];
    }
    float tol = job->tolerance > 0.0f ? job->tolerance : 1e-4f * (longest > 0.0f ? longest : 1.0f);
    float limit = job->spine_limit > 0.0f ? job->spine_limit : glm_rad(30.0f);
    int iters = job->iterations ? job->iterations : 16;
    mr_ik_goal *pelvis_goal = NULL, *head_goal = NULL;
    for (int g = 0; g < job->goal_count; g++) {
        int part = part_of(rig, job->goals[g].joint);
        if (part == 5) pelvis_goal = &job->goals[g];
        if (part == 4) head_goal = &job->goals[g];
    }
    /* 1. the pelvis: its own goal, else pulled by the hands and head; the
     * feet cut the move back. 2. the spine turns toward what is still out
     * of reach. Both again while it helps. */
    if (rig->pelvis >= 0 && pelvis_goal && pelvis_goal->weight > 0.0f) {
        vec3 p, d;
        joint_pos(job, rig->pelvis, p);
        glm_vec3_sub(pelvis_goal->position, p, d);
        glm_vec3_scale(d, pelvis_goal->weight, d);
        if (pelvis_goal->has_rotation)
            mr_override_rotation(job->skeleton, job->pose, rig->pelvis, pelvis_goal->rotation, MR_SPACE_MODEL,
                                 MR_OVERRIDE_REPLACE, pelvis_goal->weight);
        job->fresh = 0;
        keep_limit(job, rig->pelvis, -1);
        keep_feet(job, reach, d);
        move_pelvis(job, d);
    } else if (rig->pelvis >= 0) {
        /* the plants first: the pelvis comes close enough for every leg */
        vec3 d = {0, 0, 0};
        keep_feet(job, reach, d);
        move_pelvis(job, d);
    }
    float last = INFINITY;
    for (int it = 0; it < iters; it++) {
        vec3 pull;
        float worst;
        if (!upper_pull(job, reach, pull, &worst) || worst <= tol) break;
        if (worst > 0.97f * last) break;      /* no longer getting closer: the compromise */
        last = worst;
        if (rig->pelvis >= 0 && !(pelvis_goal && pelvis_goal->weight > 0.0f)) {
            /* half the way: the spine takes its share of the reach, so the
             * body leans rather than only crouching */
            glm_vec3_scale(pull, MR_IK_BODY_PELVIS_SHARE, pull);
            keep_feet(job, reach, pull);
            move_pelvis(job, pull);
        }
        bend_spine(job, reach, limit);
    }
    /* 3. the head's rotation */
    if (head_goal && head_goal->has_rotation && head_goal->weight > 0.0f)
        mr_override_rotation(job->skeleton, job->pose, rig->head, head_goal->rotation, MR_SPACE_MODEL,
                             MR_OVERRIDE_REPLACE, head_goal->weight);
    job->fresh = 0;
    /* every limited joint within its limit before the limbs (which keep theirs) */
    if (job->limits)
        for (int j = 0; j < job->skeleton->joint_count; j++) keep_limit(job, j, -1);
    /* 4. arms, then legs */
    static const int order[MR_IK_LIMB_COUNT] = {MR_IK_ARM_L, MR_IK_ARM_R, MR_IK_LEG_L, MR_IK_LEG_R};
    for (int k = 0; k < MR_IK_LIMB_COUNT; k++)
        for (int g = 0; g < job->goal_count; g++)
            if (part_of(rig, job->goals[g].joint) == order[k]) solve_limb(job, &job->goals[g], order[k]);
    /* errors */
    job->reached = 1;
    for (int g = 0; g < job->goal_count; g++) {
        mr_ik_goal *goal = &job->goals[g];
        vec3 p;
        joint_pos(job, goal->joint, p);
        goal->error = glm_vec3_distance(p, goal->position);
        if (goal->weight >= 1.0f && goal->error > tol) job->reached = 0;
    }
    job->conflict = !job->reached;
    return MR_OK;
}
