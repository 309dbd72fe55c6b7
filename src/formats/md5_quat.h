/* md5_quat.h — double-precision quaternion helpers for the MD5 reader and
 * writer (internal to src/formats). Quaternions are x, y, z, w (cglm's
 * order), Hamilton products, rotating v as q v q*. The MD5 code works in
 * double so that bind positions, rest poses and written weights lose no
 * more than the final rounding to float.
 */
#ifndef MR_FORMATS_MD5_QUAT_H
#define MR_FORMATS_MD5_QUAT_H

#include <math.h>

/* out = a * b (out may alias a or b). */
static inline void md5_qmul(const double a[4], const double b[4], double out[4])
{
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    out[0] = x; out[1] = y; out[2] = z; out[3] = w;
}

/* out = q v q* for a unit q (out may alias v). */
static inline void md5_qrot(const double q[4], const double v[3], double out[3])
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

static inline void md5_qnormalize(double q[4])
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (n > 0) { q[0] /= n; q[1] /= n; q[2] /= n; q[3] /= n; }
    else { q[0] = q[1] = q[2] = 0.0; q[3] = 1.0; }
}

/* Row-major 3x3 rotation matrix m[row][col] of a unit quaternion. */
static inline void md5_qmatrix(const double q[4], double m[3][3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    m[0][0] = 1 - 2 * (y * y + z * z); m[0][1] = 2 * (x * y - w * z); m[0][2] = 2 * (x * z + w * y);
    m[1][0] = 2 * (x * y + w * z); m[1][1] = 1 - 2 * (x * x + z * z); m[1][2] = 2 * (y * z - w * x);
    m[2][0] = 2 * (x * z - w * y); m[2][1] = 2 * (y * z + w * x); m[2][2] = 1 - 2 * (x * x + y * y);
}

#endif
