/* ref_quat.h — double-precision quaternion products for the tests'
 * independent MD5 references (test_md5.c, test_slerp_fidelity.c). Written
 * from the textbook formulas, sharing no code with src/: q = (x, y, z, w). */
#ifndef MR_TEST_REF_QUAT_H
#define MR_TEST_REF_QUAT_H

#include <string.h>

/* o = a b (o may alias a or b). */
static inline void ref_qmul(const double *a, const double *b, double *o)
{
    double r[4] = {
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
        a[3] * b[1] + a[1] * b[3] + a[2] * b[0] - a[0] * b[2],
        a[3] * b[2] + a[2] * b[3] + a[0] * b[1] - a[1] * b[0],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    };
    memcpy(o, r, sizeof r);
}

/* o = q v q^-1 for a unit q, through two products (a different route from
 * the library's). */
static inline void ref_qrot(const double *q, const double *v, double *o)
{
    double p[4] = {v[0], v[1], v[2], 0}, c[4] = {-q[0], -q[1], -q[2], q[3]}, t[4];
    ref_qmul(q, p, t);
    ref_qmul(t, c, t);
    o[0] = t[0];
    o[1] = t[1];
    o[2] = t[2];
}

#endif
