/* quat.h — the project's one set of quaternion and rotation helpers.
 *
 * Layout and meaning are cglm's: a quaternion is x, y, z, w; products are
 * Hamilton products; q rotates v as q v q*. Use cglm (glm_quat_*) for
 * everything it has; this header holds only what cglm lacks or what must be
 * bit-for-bit stable:
 *   - double-precision helpers (suffix _d) for readers and writers that must
 *     lose nothing before the final rounding to float (MD5 bind positions,
 *     written quaternions);
 *   - rotation of a matrix with scale (mr_quat_from_matrix), normalised lerp,
 *     Euler angles in degrees.
 * Angles are degrees wherever a name says "deg"; matrices given as rows are
 * m[row][col]; cglm's mat4 is column-major (m[col][row]).
 */
#ifndef MR_CORE_QUAT_H
#define MR_CORE_QUAT_H

#include <math.h>

#include <cglm/cglm.h>

/* out = a * b (out may alias a or b). */
static inline void mr_quat_mul_d(const double a[4], const double b[4], double out[4])
{
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    out[0] = x; out[1] = y; out[2] = z; out[3] = w;
}

/* out = q v q* for a unit q (out may alias v). */
static inline void mr_quat_rotate_d(const double q[4], const double v[3], double out[3])
{
    /* v' = v + 2w (u x v) + 2 u x (u x v), u = q.xyz */
    double cx = q[1] * v[2] - q[2] * v[1];
    double cy = q[2] * v[0] - q[0] * v[2];
    double cz = q[0] * v[1] - q[1] * v[0];
    double ccx = q[1] * cz - q[2] * cy;
    double ccy = q[2] * cx - q[0] * cz;
    double ccz = q[0] * cy - q[1] * cx;
    double x = v[0] + 2.0 * (q[3] * cx + ccx);
    double y = v[1] + 2.0 * (q[3] * cy + ccy);
    double z = v[2] + 2.0 * (q[3] * cz + ccz);
    out[0] = x; out[1] = y; out[2] = z;
}

/* Scales q to unit length; a zero or NaN q becomes the identity. */
static inline void mr_quat_normalize_d(double q[4])
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (n > 0) { q[0] /= n; q[1] /= n; q[2] /= n; q[3] /= n; }
    else { q[0] = q[1] = q[2] = 0.0; q[3] = 1.0; }
}

/* The rotation matrix of a unit quaternion, as rows m[row][col]. */
static inline void mr_quat_to_rows_d(const double q[4], double m[3][3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    m[0][0] = 1 - 2 * (y * y + z * z); m[0][1] = 2 * (x * y - w * z); m[0][2] = 2 * (x * z + w * y);
    m[1][0] = 2 * (x * y + w * z); m[1][1] = 1 - 2 * (x * x + z * z); m[1][2] = 2 * (y * z - w * x);
    m[2][0] = 2 * (x * z - w * y); m[2][1] = 2 * (y * z + w * x); m[2][2] = 1 - 2 * (x * x + y * y);
}

/* The unit quaternion of an orthonormal rotation matrix given as rows
 * m[row][col] (Shepperd's method: the largest of w, x, y, z is found first,
 * so no branch divides by a small number). Its sign is whatever the branch
 * gives; a degenerate matrix gives the identity. */
void mr_quat_from_rows_d(const double m[3][3], double q[4]);

/* The rotation of a column-major matrix that may carry scale: its three
 * axes are normalised first (scale dropped; a zero axis stays zero). */
void mr_quat_from_matrix(mat4 m, versor q);

/* Normalised lerp along the shorter arc from a (t = 0) to b (t = 1); when
 * the blend cancels out (opposite quaternions at t = 0.5) the result is a. */
void mr_quat_nlerp(const versor a, const versor b, float t, versor out);

/* The rotation by deg degrees about axis (any length but zero), computed in
 * double and rounded once. */
void mr_quat_from_axis_deg(versor q, double deg, double x, double y, double z);

/* Euler angles in degrees, applied X first, then Y, then Z (q = z * y * x):
 * roll, pitch, yaw for a Z-up model. */
void mr_quat_from_euler_deg(versor q, const double xyz[3]);

/* The shortest rotation turning direction u onto direction v (any lengths);
 * opposite directions turn half a turn about an axis perpendicular to u. */
void mr_quat_from_to(const vec3 u, const vec3 v, versor q);

#endif
