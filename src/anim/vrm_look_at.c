/* vrm_look_at.c — a VRM avatar's look-at on a pose (vrm_look_at.h). */
#include "anim/vrm_look_at.h"

#include <math.h>
#include <string.h>

#include "core/quat.h"

#define DEG (3.14159265358979323846 / 180.0)

static void qload(const versor q, double out[4])
{
    for (int k = 0; k < 4; k++) out[k] = q[k];
}

static void qinv(const double q[4], double out[4])
{
    out[0] = -q[0]; out[1] = -q[1]; out[2] = -q[2]; out[3] = q[3];
}

/* Model-space rotation of joint j (identity for -1) from local rotations r. */
static void model_rotation(const mr_skeleton *sk, const versor *r, int j, double q[4])
{
    q[0] = q[1] = q[2] = 0; q[3] = 1;
    for (int guard = 0; j >= 0 && guard <= sk->joint_count; j = sk->parents[j], guard++) {
        double l[4], t[4];
        qload(r[j], l);
        mr_quat_mul_d(l, q, t);
        memcpy(q, t, sizeof t);
    }
}

/* Model-space position of point p given in joint j's frame (p becomes it). */
static void model_point(const mr_skeleton *sk, const mr_pose *pose, int j, double p[3])
{
    for (int guard = 0; j >= 0 && guard <= sk->joint_count; j = sk->parents[j], guard++) {
        double q[4], s[3] = {p[0] * pose->s[j][0], p[1] * pose->s[j][1], p[2] * pose->s[j][2]}, r[3];
        qload(pose->r[j], q);
        mr_quat_rotate_d(q, s, r);
        for (int k = 0; k < 3; k++) p[k] = r[k] + pose->t[j][k];
    }
}

double mr_vrm_look_at_map(const mr_vrm_range_map *m, double degrees)
{
    double in = m->input_max < 0.01f ? 0.01 : m->input_max;
    double x = fabs(degrees) / in;
    return m->output_scale * (x > 1 ? 1 : x);
}

mr_status mr_vrm_look_at_angles(const mr_skeleton *sk, const mr_vrm *v, const mr_pose *pose, const float target[3],
                                double *yaw, double *pitch)
{
    *yaw = *pitch = 0;
    if (!sk || !v || !pose || pose->joint_count != sk->joint_count || !v->look_at.present) return MR_ERR_INVALID_ARGUMENT;
    int head = v->humanoid[mr_vrm_bone_find("head")];
    if (head < 0 || head >= sk->joint_count) return MR_ERR_INVALID_ARGUMENT;
    double origin[3] = {v->look_at.offset[0], v->look_at.offset[1], v->look_at.offset[2]};
    model_point(sk, pose, head, origin);
    double hq[4], rest[4], inv[4], rot[4], d[3], l[3];
    model_rotation(sk, pose->r, head, hq);
    model_rotation(sk, (const versor *)sk->rest_r, head, rest);
    qinv(hq, inv);
    mr_quat_mul_d(rest, inv, rot);       /* model space to look-at space */
    for (int k = 0; k < 3; k++) d[k] = target[k] - origin[k];
    mr_quat_rotate_d(rot, d, l);
    if (v->look_at.face_minus_z) { l[0] = -l[0]; l[2] = -l[2]; }
    if (!(l[0] != 0 || l[1] != 0 || l[2] != 0)) return MR_OK;
    *yaw = atan2(l[0], l[2]) / DEG;
    *pitch = atan2(-l[1], sqrt(l[0] * l[0] + l[2] * l[2])) / DEG;
    if (!isfinite(*yaw) || !isfinite(*pitch)) *yaw = *pitch = 0;
    return MR_OK;
}

/* Local rotation of eye joint j for Euler angles (degrees) in the rest
 * frame aligned with model space. */
static void set_eye(const mr_skeleton *sk, const mr_vrm *v, mr_pose *pose, int j, double yaw, double pitch)
{
    double qy[4] = {0, sin(0.5 * yaw * DEG), 0, cos(0.5 * yaw * DEG)};
    double qx[4] = {sin(0.5 * pitch * DEG), 0, 0, cos(0.5 * pitch * DEG)};
    double e[4], p[4], pinv[4], t[4], u[4], rest[4], out[4];
    mr_quat_mul_d(qy, qx, e);
    if (v->look_at.face_minus_z) {       /* 180 degrees about Y: x and z of the axis change sign */
        e[0] = -e[0];
        e[2] = -e[2];
    }
    model_rotation(sk, (const versor *)sk->rest_r, sk->parents[j], p);
    qinv(p, pinv);
    qload(sk->rest_r[j], rest);
    mr_quat_mul_d(pinv, e, t);
    mr_quat_mul_d(t, p, u);
    mr_quat_mul_d(u, rest, out);
    mr_quat_normalize_d(out);
    for (int k = 0; k < 4; k++) pose->r[j][k] = (float)out[k];
}

void mr_vrm_look_at_eyes(const mr_skeleton *sk, const mr_vrm *v, mr_pose *pose, double yaw, double pitch)
{
    if (!sk || !v || !pose || pose->joint_count != sk->joint_count || !isfinite(yaw) || !isfinite(pitch)) return;
    const mr_vrm_look_at *la = &v->look_at;
    double p = pitch > 0 ? mr_vrm_look_at_map(&la->down, pitch) : -mr_vrm_look_at_map(&la->up, -pitch);
    int left = v->humanoid[mr_vrm_bone_find("leftEye")], right = v->humanoid[mr_vrm_bone_find("rightEye")];
    if (left >= 0 && left < sk->joint_count)
        set_eye(sk, v, pose, left, yaw > 0 ? mr_vrm_look_at_map(&la->outer, yaw) : -mr_vrm_look_at_map(&la->inner, -yaw), p);
    if (right >= 0 && right < sk->joint_count)
        set_eye(sk, v, pose, right, yaw > 0 ? mr_vrm_look_at_map(&la->inner, yaw) : -mr_vrm_look_at_map(&la->outer, -yaw), p);
}

void mr_vrm_look_at_weights(const mr_vrm *v, double yaw, double pitch, double w[4])
{
    w[0] = w[1] = w[2] = w[3] = 0;
    if (!v || !isfinite(yaw) || !isfinite(pitch)) return;
    const mr_vrm_look_at *la = &v->look_at;
    if (yaw > 0) w[0] = mr_vrm_look_at_map(&la->outer, yaw);
    else w[1] = mr_vrm_look_at_map(&la->outer, -yaw);
    if (pitch < 0) w[2] = mr_vrm_look_at_map(&la->up, -pitch);
    else w[3] = mr_vrm_look_at_map(&la->down, pitch);
}
