/* ik.c — two-bone and aim IK on local poses (see ik.h). */
#include "anim/ik.h"

#include <math.h>
#include <string.h>

#include "anim/override.h"
#include "core/quat.h"

static int finite3(const float *v) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

/* 1 when a is a proper ancestor of d. */
static int is_ancestor(const mr_skeleton *sk, int a, int d)
{
    for (int k = sk->parents[d]; k >= 0; k = sk->parents[k])
        if (k == a) return 1;
    return 0;
}

static const char *joint_name(const mr_skeleton *sk, int j)
{
    return sk->names && j >= 0 && j < sk->joint_count && sk->names[j] ? sk->names[j] : "?";
}

/* Applies model-space rotation q to joint j, whose parent's model rotation
 * is parent_r: local = parent^-1 * q * parent * local. */
static void rotate_joint(mr_pose *pose, int j, const versor parent_r, const versor q)
{
    versor pinv, tmp, out;
    glm_quat_inv((float *)parent_r, pinv);
    glm_quat_mul(pinv, (float *)q, tmp);
    glm_quat_mul(tmp, (float *)parent_r, tmp);
    glm_quat_mul(tmp, pose->r[j], out);
    glm_quat_normalize(out);
    glm_vec4_copy(out, pose->r[j]);
}

static void parent_rotation(const mr_skeleton *sk, const mr_pose *pose, int j, versor q)
{
    mat4 m;
    mr_pose_model_matrix(sk, pose, sk->parents[j], m);
    mr_quat_from_matrix(m, q);
}

mr_status mr_ik_point_to_model(const mr_skeleton *sk, const mr_pose *pose, int joint, const vec3 local,
                                 vec3 out)
{
    if (!sk || !pose || !local || !out) return MR_ERR_INVALID_ARGUMENT;
    if (pose->joint_count != sk->joint_count) return MR_ERR_JOINT_COUNT;
    if (joint < -1 || joint >= sk->joint_count || !finite3(local)) return MR_ERR_INVALID_ARGUMENT;
    mat4 m;
    mr_pose_model_matrix(sk, pose, joint, m);
    glm_mat4_mulv3(m, (float *)local, 1.0f, out);
    return MR_OK;
}

/* Model matrix of joint j from the model matrix `top` of its ancestor
 * top_joint (or -1 with top the identity): the locals on the path below. */
static void model_below(const mr_skeleton *sk, const mr_pose *pose, mat4 top, int top_joint, int j, mat4 out)
{
    int path[MR_MAX_JOINTS], n = 0;
    for (int k = j; k != top_joint && k >= 0 && n < MR_MAX_JOINTS; k = sk->parents[k]) path[n++] = k;
    glm_mat4_copy(top, out);
    for (int i = n - 1; i >= 0; i--) {
        mat4 local;
        mr_pose_local_matrix(pose, path[i], local);
        glm_mul(out, local, out);
    }
}

/* ---- two-bone ------------------------------------------------------------- */

static mr_status check_pose(const mr_skeleton *sk, const mr_pose *pose, const char *who, mr_error *err)
{
    if (!sk || !pose) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "%s: needs a skeleton and a pose", who);
    if (pose->joint_count != sk->joint_count)
        return mr_error_set(err, MR_ERR_JOINT_COUNT, "%s: pose has %d joints, skeleton has %d", who,
                            pose->joint_count, sk->joint_count);
    return MR_OK;
}

mr_status mr_ik_two_bone_validate(const mr_two_bone_job *job, mr_error *err)
{
    if (!job) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "two-bone IK: no job");
    const mr_skeleton *sk = job->skeleton;
    mr_status st = check_pose(sk, job->pose, "two-bone IK", err);
    if (st != MR_OK) return st;
    int n = sk->joint_count;
    if (job->start < 0 || job->start >= n || job->mid < 0 || job->mid >= n || job->end < 0 || job->end >= n)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "two-bone IK: joints %d, %d, %d, expected 0..%d",
                            job->start, job->mid, job->end, n - 1);
    if (!is_ancestor(sk, job->start, job->mid))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "two-bone IK: '%s' is not a child of '%s'",
                            joint_name(sk, job->mid), joint_name(sk, job->start));
    if (!is_ancestor(sk, job->mid, job->end))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "two-bone IK: '%s' is not a child of '%s'",
                            joint_name(sk, job->end), joint_name(sk, job->mid));
    if (!finite3(job->target) || !finite3(job->pole))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "two-bone IK: target or pole is not finite");
    if (!(job->weight >= 0.0f && job->weight <= 1.0f))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "two-bone IK: weight %g, expected 0..1", job->weight);
    if (!(job->soft >= 0.0f && job->soft < 1.0f))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "two-bone IK: soft %g, expected 0 <= soft < 1", job->soft);
    return MR_OK;
}

/* Reach along the target direction: the target distance clamped to what
 * the chain can span, eased over the soft band near full extension. */
static float reach(float d, float l1, float l2, float soft)
{
    float full = l1 + l2, least = fabsf(l1 - l2) + 1e-5f * full;
    if (soft > 0.0f) {
        float band = soft * full, knee = full - band;
        if (d > knee) d = knee + band * (1.0f - expf(-(d - knee) / band));
    }
    if (d > full) d = full;
    if (d < least) d = least;
    return d;
}

mr_status mr_ik_two_bone(mr_two_bone_job *job, mr_error *err)
{
    mr_status st = mr_ik_two_bone_validate(job, err);
    if (st != MR_OK) return st;
    job->reached = 0;
    const mr_skeleton *sk = job->skeleton;
    mr_pose *pose = job->pose;
    /* One walk up from start; the chain's matrices follow from it. */
    mat4 top, ms, mmp, mm, mep, me;
    int sp = sk->parents[job->start];
    mr_pose_model_matrix(sk, pose, sp, top);
    model_below(sk, pose, top, sp, job->start, ms);
    model_below(sk, pose, ms, job->start, sk->parents[job->mid], mmp);
    model_below(sk, pose, mmp, sk->parents[job->mid], job->mid, mm);
    model_below(sk, pose, mm, job->mid, sk->parents[job->end], mep);
    model_below(sk, pose, mep, sk->parents[job->end], job->end, me);
    vec3 a, b, c, ab, bc, at;
    glm_vec3_copy(ms[3], a);
    glm_vec3_copy(mm[3], b);
    glm_vec3_copy(me[3], c);
    glm_vec3_sub(b, a, ab);
    glm_vec3_sub(c, b, bc);
    glm_vec3_sub((float *)job->target, a, at);
    float l1 = glm_vec3_norm(ab), l2 = glm_vec3_norm(bc), d = glm_vec3_norm(at);
    if (l1 < 1e-9f || l2 < 1e-9f || d < 1e-9f) {       /* degenerate chain or target on the start */
        job->reached = glm_vec3_distance(c, (float *)job->target) <= 1e-4f * (l1 + l2 + 1e-9f);
        return MR_OK;
    }
    if (job->weight == 0.0f) {
        job->reached = glm_vec3_distance(c, (float *)job->target) <= 1e-4f * (l1 + l2);
        return MR_OK;
    }
    vec3 dir, bend;
    glm_vec3_scale(at, 1.0f / d, dir);
    /* Bend direction: the pole (or the current bend) minus its part along dir. */
    glm_vec3_copy((float *)job->pole, bend);
    if (glm_vec3_norm(bend) < 1e-9f) glm_vec3_copy(ab, bend);
    glm_vec3_muladds(dir, -glm_vec3_dot(bend, dir), bend);
    if (glm_vec3_norm(bend) < 1e-6f * (glm_vec3_norm((float *)job->pole) + l1)) {
        glm_vec3_copy(ab, bend);                       /* pole along the target: keep the current plane */
        glm_vec3_muladds(dir, -glm_vec3_dot(bend, dir), bend);
        if (glm_vec3_norm(bend) < 1e-6f * l1) {        /* straight chain too: any perpendicular */
            vec3 other = {1, 0, 0};
            if (fabsf(dir[0]) > 0.9f) glm_vec3_copy((vec3){0, 1, 0}, other);
            glm_vec3_cross(dir, other, bend);
        }
    }
    glm_vec3_normalize(bend);
    float dr = reach(d, l1, l2, job->soft);
    float cos_a = (l1 * l1 + dr * dr - l2 * l2) / (2.0f * l1 * dr);
    cos_a = fmaxf(-1.0f, fminf(1.0f, cos_a));
    float sin_a = sqrtf(fmaxf(0.0f, 1.0f - cos_a * cos_a));
    vec3 b2, c2;
    for (int k = 0; k < 3; k++) {
        b2[k] = a[k] + l1 * (cos_a * dir[k] + sin_a * bend[k]);
        c2[k] = a[k] + dr * dir[k];
    }
    versor r_start0, r_mid0;
    glm_vec4_copy(pose->r[job->start], r_start0);
    glm_vec4_copy(pose->r[job->mid], r_mid0);
    /* 1: turn start so the middle joint reaches b2. */
    versor q1, ps, pm;
    vec3 to_b2, ac, c1, from_mid, to_c2;
    glm_vec3_sub(b2, a, to_b2);
    mr_quat_from_to(ab, to_b2, q1);
    mr_quat_from_matrix(top, ps);
    rotate_joint(pose, job->start, ps, q1);
    /* 2: the end moved with it; turn mid so the end reaches c2. */
    glm_vec3_sub(c, a, ac);
    glm_quat_rotatev(q1, ac, ac);
    glm_vec3_add(a, ac, c1);
    glm_vec3_sub(c1, b2, from_mid);
    glm_vec3_sub(c2, b2, to_c2);
    versor q2;
    mr_quat_from_to(from_mid, to_c2, q2);
    /* mid's parent turned with start: q1 * its former model rotation. */
    versor pm0;
    mr_quat_from_matrix(mmp, pm0);
    glm_quat_mul(q1, pm0, pm);
    rotate_joint(pose, job->mid, pm, q2);
    if (job->weight < 1.0f) {
        mr_quat_nlerp(r_start0, pose->r[job->start], job->weight, pose->r[job->start]);
        mr_quat_nlerp(r_mid0, pose->r[job->mid], job->weight, pose->r[job->mid]);
    }
    job->reached = job->weight == 1.0f && fabsf(dr - d) <= 1e-4f * (l1 + l2);
    return MR_OK;
}

/* ---- aim ------------------------------------------------------------------ */

mr_status mr_ik_aim_validate(const mr_aim_job *job, mr_error *err)
{
    if (!job) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "aim IK: no job");
    const mr_skeleton *sk = job->skeleton;
    mr_status st = check_pose(sk, job->pose, "aim IK", err);
    if (st != MR_OK) return st;
    if (job->count < 1 || job->count > MR_AIM_MAX_JOINTS)
        return mr_error_set(err, MR_ERR_LIMIT, "aim IK: %d joints, expected 1 to %d", job->count, MR_AIM_MAX_JOINTS);
    if (!job->joints || !job->shares)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "aim IK: needs joints and shares");
    float sum = 0.0f;
    for (int i = 0; i < job->count; i++) {
        int j = job->joints[i];
        if (j < 0 || j >= sk->joint_count)
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "aim IK: joint %d is out of range 0..%d", j,
                                sk->joint_count - 1);
        if (i > 0 && !is_ancestor(sk, job->joints[i - 1], j))
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "aim IK: '%s' is not a child of '%s'",
                                joint_name(sk, j), joint_name(sk, job->joints[i - 1]));
        float s = job->shares[i];
        if (!(s >= 0.0f && s <= 1.0f))
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "aim IK: share %g of '%s', expected 0..1", s,
                                joint_name(sk, j));
        sum += s;
        if (job->limits && !(job->limits[i] >= 0.0f && isfinite(job->limits[i])))
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "aim IK: limit %g of '%s', expected radians >= 0",
                                job->limits[i], joint_name(sk, j));
    }
    if (sum > 1.0f + 1e-4f)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "aim IK: shares sum to %g, expected at most 1", sum);
    if (!finite3(job->target) || !finite3(job->forward) || !finite3(job->offset))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "aim IK: target, forward or offset is not finite");
    if (glm_vec3_norm((float *)job->forward) < 1e-9f)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "aim IK: forward axis is zero");
    if (!(job->weight >= 0.0f && job->weight <= 1.0f))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "aim IK: weight %g, expected 0..1", job->weight);
    return MR_OK;
}

/* Aim ray of the last joint: origin and direction in model space. */
static void aim_ray(const mr_aim_job *job, vec3 origin, vec3 dir)
{
    mat4 m;
    int last = job->joints[job->count - 1];
    mr_pose_model_matrix(job->skeleton, job->pose, last, m);
    glm_mat4_mulv3(m, (float *)job->offset, 1.0f, origin);
    glm_mat4_mulv3(m, (float *)job->forward, 0.0f, dir);
    glm_vec3_normalize(dir);
}

/* Rotation about pivot p that puts the target on the aim ray (origin o,
 * unit direction f): the ray point o + s f at the target's distance from p
 * is turned onto the target. With the target inside the ray's closest
 * approach (no such point) it turns the ray direction instead. */
static int aim_rotation(const vec3 p, const vec3 o, const vec3 f, const vec3 target, versor q)
{
    vec3 rel, v, on_ray;
    glm_vec3_sub((float *)o, (float *)p, rel);
    glm_vec3_sub((float *)target, (float *)p, v);
    float b = glm_vec3_dot(rel, (float *)f);
    float disc = b * b - glm_vec3_dot(rel, rel) + glm_vec3_dot(v, v);
    if (glm_vec3_norm(v) < 1e-9f) return 0;
    if (disc >= 0.0f && -b + sqrtf(disc) > 0.0f) {
        glm_vec3_copy(rel, on_ray);
        glm_vec3_muladds((float *)f, -b + sqrtf(disc), on_ray);
        mr_quat_from_to(on_ray, v, q);
    } else {
        vec3 to;
        glm_vec3_sub((float *)target, (float *)o, to);
        if (glm_vec3_norm(to) < 1e-9f) return 0;
        mr_quat_from_to(f, to, q);
    }
    return 1;
}

static float angle_to_target(const mr_aim_job *job)
{
    vec3 o, f, to;
    aim_ray(job, o, f);
    glm_vec3_sub((float *)job->target, o, to);
    if (glm_vec3_norm(to) < 1e-9f) return 0.0f;
    glm_vec3_normalize(to);
    return acosf(fmaxf(-1.0f, fminf(1.0f, glm_vec3_dot(f, to))));
}

mr_status mr_ik_aim(mr_aim_job *job, mr_error *err)
{
    mr_status st = mr_ik_aim_validate(job, err);
    if (st != MR_OK) return st;
    const mr_skeleton *sk = job->skeleton;
    mr_pose *pose = job->pose;
    if (job->weight == 0.0f) {
        job->error = angle_to_target(job);
        return MR_OK;
    }
    versor before[MR_AIM_MAX_JOINTS];
    for (int i = 0; i < job->count; i++) glm_vec4_copy(pose->r[job->joints[i]], before[i]);
    float done = 0.0f;
    for (int i = 0; i < job->count; i++) {
        int j = job->joints[i];
        float left = 1.0f - done, frac = left > 1e-6f ? job->shares[i] / left : 1.0f;
        done += job->shares[i];
        if (frac > 1.0f) frac = 1.0f;
        if (frac <= 0.0f) continue;
        /* The rotation is found about the joint itself, so an offset aim
         * origin is exact; the joint completing the aim checks once more
         * for rounding. */
        int passes = (i == job->count - 1 && frac >= 1.0f - 1e-6f) ? 2 : 1;
        float turned = 0.0f;
        for (int pass = 0; pass < passes; pass++) {
            vec3 o, f;
            mat4 mj;
            aim_ray(job, o, f);
            mr_pose_model_matrix(sk, pose, j, mj);
            versor q;
            if (!aim_rotation(mj[3], o, f, job->target, q)) break;
            float angle = 2.0f * acosf(fmaxf(-1.0f, fminf(1.0f, q[3])));
            if (angle < 1e-7f) break;
            vec3 axis = {q[0], q[1], q[2]};
            glm_vec3_normalize(axis);
            float turn = angle * frac;
            if (job->limits && turned + turn > job->limits[i]) turn = job->limits[i] - turned;
            if (turn <= 0.0f) break;
            turned += turn;
            glm_quatv(q, turn, axis);
            versor pr;
            parent_rotation(sk, pose, j, pr);
            rotate_joint(pose, j, pr, q);
        }
    }
    if (job->weight < 1.0f)
        for (int i = 0; i < job->count; i++) {
            int j = job->joints[i];
            mr_quat_nlerp(before[i], pose->r[j], job->weight, pose->r[j]);
        }
    job->error = angle_to_target(job);
    return MR_OK;
}
