/* attach.c — prop transforms at joints and world/model conversions (see attach.h). */
#include "anim/attach.h"

#include <math.h>

#include "anim/override.h"

static int finite_n(const float *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) return 0;
    return 1;
}

mr_status mr_attach_offset(const vec3 t, const versor r, const vec3 s, mat4 out)
{
    if (!t || !out || !finite_n(t, 3) || (r && !finite_n(r, 4)) || (s && !finite_n(s, 3)))
        return MR_ERR_INVALID_ARGUMENT;
    versor q = {0, 0, 0, 1};
    if (r) {
        float len = sqrtf(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
        if (len < 1e-12f) return MR_ERR_INVALID_ARGUMENT;
        for (int k = 0; k < 4; k++) q[k] = r[k] / len;
    }
    glm_quat_mat4(q, out);
    if (s)
        for (int c = 0; c < 3; c++) glm_vec4_scale(out[c], s[c], out[c]);
    for (int k = 0; k < 3; k++) out[3][k] = t[k];
    return MR_OK;
}

mr_status mr_attach_model(const mr_skeleton *sk, const mr_pose *pose, const mat4 *model, int joint,
                          const mat4 offset, mat4 out)
{
    if (!sk || !out || (!model && !pose)) return MR_ERR_INVALID_ARGUMENT;
    if (pose && pose->joint_count != sk->joint_count) return MR_ERR_JOINT_COUNT;
    if (joint < 0 || joint >= sk->joint_count) return MR_ERR_INVALID_ARGUMENT;
    mat4 m;
    if (model) glm_mat4_copy((vec4 *)model[joint], m);
    else mr_pose_model_matrix(sk, pose, joint, m);
    if (offset) glm_mat4_mul(m, (vec4 *)offset, out);
    else glm_mat4_copy(m, out);
    return MR_OK;
}

void mr_attach_world(const mat4 display, const mat4 attach_model, mat4 out)
{
    glm_mat4_mul((vec4 *)display, (vec4 *)attach_model, out);
}

mr_status mr_attach_world_to_model(const mat4 display, const vec3 world, vec3 out)
{
    if (!display || !world || !out || !finite_n(world, 3)) return MR_ERR_INVALID_ARGUMENT;
    mat4 d, inv;
    glm_mat4_copy((vec4 *)display, d);
    float det = glm_mat4_det(d);
    if (!(fabsf(det) > 1e-20f) || !isfinite(det)) return MR_ERR_INVALID_ARGUMENT;
    glm_mat4_inv(d, inv);
    glm_mat4_mulv3(inv, (float *)world, 1.0f, out);
    return MR_OK;
}
