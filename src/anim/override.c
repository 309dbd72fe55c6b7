/* override.c — single-bone overrides on a local pose (see override.h). */
#include "anim/override.h"

#include <math.h>

#include "core/quat.h"

static int finite_n(const float *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) return 0;
    return 1;
}

static mr_status check(const mr_skeleton *sk, const mr_pose *pose, int joint, float weight)
{
    if (!sk || !pose) return MR_ERR_INVALID_ARGUMENT;
    if (pose->joint_count != sk->joint_count) return MR_ERR_JOINT_COUNT;
    if (joint < 0 || joint >= sk->joint_count) return MR_ERR_INVALID_ARGUMENT;
    if (!(weight >= 0.0f && weight <= 1.0f)) return MR_ERR_INVALID_ARGUMENT;
    return MR_OK;
}

void mr_pose_model_matrix(const mr_skeleton *sk, const mr_pose *pose, int j, mat4 out)
{
    glm_mat4_identity(out);
    /* Walk up collecting locals; apply root-first. Depth is bounded by the
     * joint count, and parents[i] < i guarantees termination. */
    int chain[MR_MAX_JOINTS];
    int n = 0;
    for (int k = j; k >= 0 && n < MR_MAX_JOINTS; k = sk->parents[k]) chain[n++] = k;
    for (int i = n - 1; i >= 0; i--) {
        mat4 local;
        int k = chain[i], p = sk->parents[k];
        mr_pose_local_matrix(pose, k, local);
        if (sk->scale_comp && p >= 0) mr_skeleton_compensate(sk, k, pose->s[p], local);   /* as mr_pose_to_model */
        glm_mul(out, local, out);
    }
}

mr_status mr_override_rotation(const mr_skeleton *sk, mr_pose *pose, int joint,
                                    const versor q_in, mr_space space, mr_override_mode mode,
                                    float weight)
{
    mr_status st = check(sk, pose, joint, weight);
    if (st != MR_OK) return st;
    if (!finite_n(q_in, 4)) return MR_ERR_INVALID_ARGUMENT;
    if (weight == 0.0f) return MR_OK;   /* nothing, bit for bit (nlerp would renormalise) */
    versor q, target;
    glm_quat_copy((float *)q_in, q);
    glm_quat_normalize(q);
    float *r = pose->r[joint];
    if (space == MR_SPACE_MODEL && sk->parents[joint] >= 0) {
        /* Express the model-space rotation in the parent's frame: P^-1 q P. */
        mat4 parent;
        versor p, pinv, tmp;
        mr_pose_model_matrix(sk, pose, sk->parents[joint], parent);
        mr_quat_from_matrix(parent, p);
        glm_quat_inv(p, pinv);
        if (mode == MR_OVERRIDE_ADD) {
            glm_quat_mul(pinv, q, tmp);
            glm_quat_mul(tmp, p, q);      /* conjugated delta, applied like LOCAL */
        } else {
            glm_quat_mul(pinv, q, q);     /* local value giving model rotation q */
        }
    }
    if (mode == MR_OVERRIDE_ADD) glm_quat_mul(q, r, target);
    else glm_quat_copy(q, target);
    mr_quat_nlerp(r, target, weight, r);
    return MR_OK;
}

mr_status mr_override_translation(const mr_skeleton *sk, mr_pose *pose, int joint,
                                       const vec3 v_in, mr_space space, mr_override_mode mode,
                                       float weight)
{
    mr_status st = check(sk, pose, joint, weight);
    if (st != MR_OK) return st;
    if (!finite_n(v_in, 3)) return MR_ERR_INVALID_ARGUMENT;
    if (weight == 0.0f) return MR_OK;
    vec3 v, target;
    glm_vec3_copy((float *)v_in, v);
    if (space == MR_SPACE_MODEL && sk->parents[joint] >= 0) {
        mat4 parent, inv;
        mr_pose_model_matrix(sk, pose, sk->parents[joint], parent);
        glm_mat4_inv(parent, inv);
        /* ADD moves by a model-space offset (a direction); REPLACE places the
         * joint at a model-space point. */
        glm_mat4_mulv3(inv, v, mode == MR_OVERRIDE_ADD ? 0.0f : 1.0f, v);
    }
    float *t = pose->t[joint];
    if (mode == MR_OVERRIDE_ADD) glm_vec3_add(t, v, target);
    else glm_vec3_copy(v, target);
    glm_vec3_lerp(t, target, weight, t);
    return MR_OK;
}

mr_status mr_override_scale(const mr_skeleton *sk, mr_pose *pose, int joint, const vec3 s_in,
                                 mr_override_mode mode, float weight)
{
    mr_status st = check(sk, pose, joint, weight);
    if (st != MR_OK) return st;
    if (!finite_n(s_in, 3)) return MR_ERR_INVALID_ARGUMENT;
    if (weight == 0.0f) return MR_OK;
    float *s = pose->s[joint];
    vec3 target;
    if (mode == MR_OVERRIDE_ADD) glm_vec3_mul(s, (float *)s_in, target);
    else glm_vec3_copy((float *)s_in, target);
    glm_vec3_lerp(s, target, weight, s);
    return MR_OK;
}
