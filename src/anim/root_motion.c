/* root_motion.c — root-motion extraction (see root_motion.h). */
#include "anim/root_motion.h"

#include <math.h>
#include <string.h>

mr_status mr_root_motion_init(mr_root_motion *rm, const mr_skeleton *sk, int joint, mr_up_axis up,
                              unsigned flags)
{
    if (!rm || !sk) return MR_ERR_INVALID_ARGUMENT;
    if (flags & ~(unsigned)(MR_ROOT_TRANSLATION | MR_ROOT_YAW | MR_ROOT_UNIFORM)) return MR_ERR_INVALID_ARGUMENT;
    if (flags == MR_ROOT_UNIFORM) flags = 0;   /* nothing to extract */
    if (up != MR_UP_Y && up != MR_UP_Z && up != MR_UP_X) return MR_ERR_INVALID_ARGUMENT;
    if (flags && (joint < 0 || joint >= sk->joint_count)) return MR_ERR_INVALID_ARGUMENT;
    memset(rm, 0, sizeof *rm);
    rm->joint = flags ? joint : -1;
    rm->flags = flags;
    rm->up_axis = up;
    vec3 up_model = {up == MR_UP_X, up == MR_UP_Y, up == MR_UP_Z};
    glm_mat3_identity(rm->to_model);
    glm_vec3_copy(up_model, rm->up);
    if (!flags || sk->parents[joint] < 0) return MR_OK;
    /* Parent's rest model matrix, walked root-first. */
    mat4 m = GLM_MAT4_IDENTITY_INIT;
    int chain[MR_MAX_JOINTS], n = 0;
    for (int k = sk->parents[joint]; k >= 0 && n < MR_MAX_JOINTS; k = sk->parents[k]) chain[n++] = k;
    for (int i = n - 1; i >= 0; i--) {
        mat4 local;
        int k = chain[i];
        glm_quat_mat4(sk->rest_r[k], local);
        glm_scale(local, sk->rest_s[k]);
        for (int c = 0; c < 3; c++) local[3][c] = sk->rest_t[k][c];
        glm_mat4_mul(m, local, m);
    }
    glm_mat4_pick3(m, rm->to_model);
    mat3 inv;
    glm_mat3_inv(rm->to_model, inv);
    glm_mat3_mulv(inv, up_model, rm->up);
    glm_vec3_normalize(rm->up);
    return MR_OK;
}

static float yaw_of(const float *up, const float *q)
{
    float s = q[0] * up[0] + q[1] * up[1] + q[2] * up[2];
    return 2.0f * atan2f(s, q[3]);
}

static float wrap_angle(float a)
{
    if (a > GLM_PIf || a < -GLM_PIf) a -= 2.0f * GLM_PIf * floorf((a + GLM_PIf) / (2.0f * GLM_PIf));
    return a;
}

void mr_root_motion_sample(const mr_root_motion *rm, const mr_clip *clip, const mr_skeleton *sk, float t,
                           vec3 translation, float *yaw)
{
    int j = rm->joint;
    versor q;
    mr_clip_source(clip, NULL);   /* the keys, when not resident (else: none, the rest pose) */
    const mr_joint_tracks *jt = &clip->tracks[j];
    t = t < 0.0f ? 0.0f : t > clip->duration ? clip->duration : t;
    if (jt->t.key_count) mr_track_sample(&jt->t, t, translation);
    else glm_vec3_copy(sk->rest_t[j], translation);
    if (jt->r.key_count) mr_track_sample(&jt->r, t, q);
    else glm_vec4_copy(sk->rest_r[j], q);
    *yaw = yaw_of(rm->up, q);
}

void mr_root_motion_pin(const mr_root_motion *rm, mr_pose *pose, const vec3 translation, float yaw)
{
    int j = rm->joint;
    if (j < 0 || j >= pose->joint_count) return;
    const float *u = rm->up;
    if (rm->flags & MR_ROOT_TRANSLATION) {
        float *t = pose->t[j];
        float v = glm_vec3_dot(t, (float *)u), f = glm_vec3_dot((float *)translation, (float *)u);
        for (int k = 0; k < 3; k++) t[k] = (translation[k] - f * u[k]) + v * u[k];
    }
    if (rm->flags & MR_ROOT_YAW) {
        versor turn, out;
        glm_quatv(turn, yaw - yaw_of(u, pose->r[j]), (float *)u);
        glm_quat_mul(turn, pose->r[j], out);
        glm_vec4_copy(out, pose->r[j]);
    }
}

/* The joint's horizontal displacement (parent frame) and yaw change over
 * the whole clip, per rm->flags. */
static void clip_travel(const mr_root_motion *rm, const mr_clip *clip, const mr_skeleton *sk, vec3 d, float *turn)
{
    vec3 p0, p1;
    float y0, y1;
    mr_root_motion_sample(rm, clip, sk, 0.0f, p0, &y0);
    mr_root_motion_sample(rm, clip, sk, clip->duration, p1, &y1);
    glm_vec3_zero(d);
    if (rm->flags & MR_ROOT_TRANSLATION) {
        glm_vec3_sub(p1, p0, d);
        float v = glm_vec3_dot(d, (float *)rm->up);
        for (int k = 0; k < 3; k++) d[k] -= v * rm->up[k];
    }
    *turn = (rm->flags & MR_ROOT_YAW) ? wrap_angle(y1 - y0) : 0.0f;
}

void mr_root_motion_path(const mr_root_motion *rm, const mr_clip *clip, const mr_skeleton *sk, double t,
                         vec3 position, float *yaw)
{
    glm_vec3_zero(position);
    *yaw = 0.0f;
    if (rm->joint < 0 || !rm->flags || !(clip->duration > 0.0f)) return;
    double s = t / clip->duration;
    s = s < 0.0 ? 0.0 : s > 1.0 ? 1.0 : s;
    vec3 d;
    float turn;
    clip_travel(rm, clip, sk, d, &turn);
    /* Constant speed along a circular arc from 0 to d turning by `turn`:
     * the chord to s is sin(turn s / 2) / sin(turn / 2) of d's length,
     * turned by turn (s - 1) / 2 from d; a straight line when turn is 0. */
    double half = 0.5 * turn, scale = s;
    if (fabs(half) > 1e-6) scale = sin(half * s) / sin(half);
    glm_vec3_scale(d, (float)scale, position);
    float bend = (float)(half * (s - 1.0));
    if (bend != 0.0f && fabs(half) > 1e-6) glm_vec3_rotate(position, bend, (float *)rm->up);
    *yaw = (float)(turn * s);
}

void mr_root_motion_unwind(const mr_root_motion *rm, mr_pose *pose, const vec3 position, float yaw)
{
    int j = rm->joint;
    if (j < 0 || j >= pose->joint_count || !rm->flags) return;
    float *t = pose->t[j];
    glm_vec3_sub(t, (float *)position, t);
    if (yaw != 0.0f) {
        versor turn, out;
        glm_quatv(turn, -yaw, (float *)rm->up);
        glm_quat_rotatev(turn, t, t);
        glm_quat_mul(turn, pose->r[j], out);
        glm_vec4_copy(out, pose->r[j]);
    }
}

void mr_root_motion_remove(const mr_root_motion *rm, const mr_clip *clip, const mr_skeleton *sk, float t,
                           mr_pose *pose)
{
    if (rm->joint < 0 || !rm->flags) return;
    vec3 t0;
    float yaw0;
    if (rm->flags & MR_ROOT_UNIFORM) {
        mr_root_motion_path(rm, clip, sk, t, t0, &yaw0);
        mr_root_motion_unwind(rm, pose, t0, yaw0);
        return;
    }
    mr_root_motion_sample(rm, clip, sk, 0.0f, t0, &yaw0);
    mr_root_motion_pin(rm, pose, t0, yaw0);
}

void mr_root_motion_delta_compose(const mr_root_motion *rm, mr_root_delta *acc, const mr_root_delta *step)
{
    /* Rotate the step's translation by the yaw accumulated so far (about the
     * model up axis), then add; yaws add. */
    vec3 up_model = {rm->up_axis == MR_UP_X, rm->up_axis == MR_UP_Y, rm->up_axis == MR_UP_Z};
    vec3 moved;
    glm_vec3_copy((float *)step->translation, moved);
    if (acc->yaw != 0.0f) glm_vec3_rotate(moved, acc->yaw, up_model);
    glm_vec3_add(acc->translation, moved, acc->translation);
    acc->yaw = wrap_angle(acc->yaw + step->yaw);
}

void mr_root_motion_step(const mr_root_motion *rm, const mr_clip *clip, const mr_skeleton *sk, double t0,
                         double t1, mr_root_delta *acc)
{
    if (rm->joint < 0 || !rm->flags) return;
    vec3 p0, p1, pr;
    float y0, y1, yr;
    mr_root_delta step = {{0, 0, 0}, 0.0f};
    if (rm->flags & MR_ROOT_UNIFORM) {
        /* path(t0)^-1 * path(t1): the move in the frame of the pose at t0. */
        vec3 d;
        mr_root_motion_path(rm, clip, sk, t0, p0, &y0);
        mr_root_motion_path(rm, clip, sk, t1, p1, &y1);
        glm_vec3_sub(p1, p0, d);
        if (y0 != 0.0f) glm_vec3_rotate(d, -y0, (float *)rm->up);
        glm_mat3_mulv((vec3 *)rm->to_model, d, step.translation);
        step.yaw = wrap_angle(y1 - y0);
        mr_root_motion_delta_compose(rm, acc, &step);
        return;
    }
    mr_root_motion_sample(rm, clip, sk, (float)t0, p0, &y0);
    mr_root_motion_sample(rm, clip, sk, (float)t1, p1, &y1);
    mr_root_motion_sample(rm, clip, sk, 0.0f, pr, &yr);
    if (rm->flags & MR_ROOT_TRANSLATION) {
        vec3 d;
        glm_vec3_sub(p1, p0, d);
        float v = glm_vec3_dot(d, (float *)rm->up);
        for (int k = 0; k < 3; k++) d[k] -= v * rm->up[k];
        /* The clip faced y0 here; the pinned pose faces yr. */
        if ((rm->flags & MR_ROOT_YAW) && y0 != yr) glm_vec3_rotate(d, wrap_angle(yr - y0), (float *)rm->up);
        glm_mat3_mulv((vec3 *)rm->to_model, d, step.translation);
    }
    if (rm->flags & MR_ROOT_YAW) step.yaw = wrap_angle(y1 - y0);
    mr_root_motion_delta_compose(rm, acc, &step);
}
