/* quat.c — quaternion and rotation helpers (see quat.h). */
#include "core/quat.h"

#define DEG_TO_RAD (3.14159265358979323846 / 180.0)

void mr_quat_from_rows_d(const double m[3][3], double q[4])
{
    double tr = m[0][0] + m[1][1] + m[2][2];
    if (tr > 0) {
        double s = sqrt(tr + 1.0) * 2;
        q[3] = s / 4; q[0] = (m[2][1] - m[1][2]) / s;
        q[1] = (m[0][2] - m[2][0]) / s; q[2] = (m[1][0] - m[0][1]) / s;
    } else if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) {
        double s = sqrt(1.0 + m[0][0] - m[1][1] - m[2][2]) * 2;
        q[3] = (m[2][1] - m[1][2]) / s; q[0] = s / 4;
        q[1] = (m[0][1] + m[1][0]) / s; q[2] = (m[0][2] + m[2][0]) / s;
    } else if (m[1][1] > m[2][2]) {
        double s = sqrt(1.0 + m[1][1] - m[0][0] - m[2][2]) * 2;
        q[3] = (m[0][2] - m[2][0]) / s; q[0] = (m[0][1] + m[1][0]) / s;
        q[1] = s / 4; q[2] = (m[1][2] + m[2][1]) / s;
    } else {
        double s = sqrt(1.0 + m[2][2] - m[0][0] - m[1][1]) * 2;
        q[3] = (m[1][0] - m[0][1]) / s; q[0] = (m[0][2] + m[2][0]) / s;
        q[1] = (m[1][2] + m[2][1]) / s; q[2] = s / 4;
    }
    mr_quat_normalize_d(q);
}

void mr_quat_from_matrix(mat4 m, versor q)
{
    mat4 r;
    glm_mat4_copy(m, r);
    for (int c = 0; c < 3; c++) {
        float len = glm_vec3_norm(r[c]);
        if (len > 1e-12f) glm_vec3_scale(r[c], 1.0f / len, r[c]);
    }
    glm_mat4_quat(r, q);
}

void mr_quat_nlerp(const versor a, const versor b, float t, versor out)
{
    float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    float s = d < 0 ? -t : t;
    versor r;
    for (int k = 0; k < 4; k++) r[k] = a[k] * (1.0f - t) + b[k] * s;
    float len = sqrtf(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    if (len < 1e-12f) { glm_quat_copy((float *)a, out); return; }
    for (int k = 0; k < 4; k++) out[k] = r[k] / len;
}

void mr_quat_from_axis_deg(versor q, double deg, double x, double y, double z)
{
    double len = sqrt(x * x + y * y + z * z);
    double h = 0.5 * deg * DEG_TO_RAD, s = sin(h) / len;
    q[0] = (float)(x * s);
    q[1] = (float)(y * s);
    q[2] = (float)(z * s);
    q[3] = (float)cos(h);
}

void mr_quat_from_euler_deg(versor q, const double xyz[3])
{
    versor rx, ry, rz, t;
    mr_quat_from_axis_deg(rx, xyz[0], 1, 0, 0);
    mr_quat_from_axis_deg(ry, xyz[1], 0, 1, 0);
    mr_quat_from_axis_deg(rz, xyz[2], 0, 0, 1);
    glm_quat_mul(rz, ry, t);
    glm_quat_mul(t, rx, q);
}

void mr_quat_from_to(const vec3 u_in, const vec3 v_in, versor q)
{
    vec3 u, v, axis;
    glm_vec3_normalize_to((float *)u_in, u);
    glm_vec3_normalize_to((float *)v_in, v);
    float d = glm_vec3_dot(u, v);
    if (d > 1.0f - 1e-7f) {
        glm_quat_identity(q);
        return;
    }
    if (d < -1.0f + 1e-7f) {          /* opposite: half a turn about any perpendicular */
        vec3 other = {1, 0, 0};
        if (fabsf(u[0]) > 0.9f) glm_vec3_copy((vec3){0, 1, 0}, other);
        glm_vec3_cross(u, other, axis);
        glm_vec3_normalize(axis);
        glm_quatv(q, GLM_PIf, axis);
        return;
    }
    glm_vec3_cross(u, v, axis);
    q[0] = axis[0];
    q[1] = axis[1];
    q[2] = axis[2];
    q[3] = 1.0f + d;
    glm_quat_normalize(q);
}
