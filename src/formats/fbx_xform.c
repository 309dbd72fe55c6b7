/* fbx_xform.c — FBX's node transform (Autodesk FBX SDK, FbxNode):
 *
 *   Local = T * Roff * Rp * Rpre * R * Rpost^-1 * Rp^-1 * Soff * Sp * S * Sp^-1
 *
 * R is the Euler rotation in the node's RotationOrder (eEulerXYZ: X first,
 * so R = Rz * Ry * Rx), Rpre and Rpost are XYZ; a node whose RotationActive
 * is 0 (or RotationSpaceForLimitOnly 1) has R in XYZ and no Rpre, Rpost. The geometric transform
 * (GeometricTranslation/Rotation/Scaling) moves the node's mesh only.
 * InheritType (how a node's world follows its parent's) is fbx_anim.c's
 * fbx_eval_worlds.
 * Matrices are double[16], column-major (m[col * 4 + row]) as cglm's.
 */
#include <math.h>
#include <string.h>

#include "formats/fbx_internal.h"

static void rot3(const double deg[3], int order, double r[9]);

void fbx_m_identity(double m[16])
{
    memset(m, 0, 16 * sizeof *m);
    m[0] = m[5] = m[10] = m[15] = 1;
}

void fbx_m_mul(const double a[16], const double b[16], double out[16])
{
    double r[16];
    if (a[3] == 0 && a[7] == 0 && a[11] == 0 && a[15] == 1 && b[3] == 0 && b[7] == 0 && b[11] == 0 && b[15] == 1) {
        for (int c = 0; c < 4; c++)
            for (int row = 0; row < 3; row++)
                r[c * 4 + row] = a[row] * b[c * 4] + a[4 + row] * b[c * 4 + 1] + a[8 + row] * b[c * 4 + 2] + (c == 3 ? a[12 + row] : 0);
        r[3] = r[7] = r[11] = 0;
        r[15] = 1;
        memcpy(out, r, sizeof r);
        return;
    }
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            double v = 0;
            for (int k = 0; k < 4; k++) v += a[k * 4 + row] * b[c * 4 + k];
            r[c * 4 + row] = v;
        }
    memcpy(out, r, sizeof r);
}

int fbx_m_inverse(const double m[16], double out[16])
{
    double inv[16];
    inv[0] = m[5] * m[10] * m[15] - m[5] * m[11] * m[14] - m[9] * m[6] * m[15] + m[9] * m[7] * m[14] +
             m[13] * m[6] * m[11] - m[13] * m[7] * m[10];
    inv[4] = -m[4] * m[10] * m[15] + m[4] * m[11] * m[14] + m[8] * m[6] * m[15] - m[8] * m[7] * m[14] -
             m[12] * m[6] * m[11] + m[12] * m[7] * m[10];
    inv[8] = m[4] * m[9] * m[15] - m[4] * m[11] * m[13] - m[8] * m[5] * m[15] + m[8] * m[7] * m[13] +
             m[12] * m[5] * m[11] - m[12] * m[7] * m[9];
    inv[12] = -m[4] * m[9] * m[14] + m[4] * m[10] * m[13] + m[8] * m[5] * m[14] - m[8] * m[6] * m[13] -
              m[12] * m[5] * m[10] + m[12] * m[6] * m[9];
    inv[1] = -m[1] * m[10] * m[15] + m[1] * m[11] * m[14] + m[9] * m[2] * m[15] - m[9] * m[3] * m[14] -
             m[13] * m[2] * m[11] + m[13] * m[3] * m[10];
    inv[5] = m[0] * m[10] * m[15] - m[0] * m[11] * m[14] - m[8] * m[2] * m[15] + m[8] * m[3] * m[14] +
             m[12] * m[2] * m[11] - m[12] * m[3] * m[10];
    inv[9] = -m[0] * m[9] * m[15] + m[0] * m[11] * m[13] + m[8] * m[1] * m[15] - m[8] * m[3] * m[13] -
             m[12] * m[1] * m[11] + m[12] * m[3] * m[9];
    inv[13] = m[0] * m[9] * m[14] - m[0] * m[10] * m[13] - m[8] * m[1] * m[14] + m[8] * m[2] * m[13] +
              m[12] * m[1] * m[10] - m[12] * m[2] * m[9];
    inv[2] = m[1] * m[6] * m[15] - m[1] * m[7] * m[14] - m[5] * m[2] * m[15] + m[5] * m[3] * m[14] +
             m[13] * m[2] * m[7] - m[13] * m[3] * m[6];
    inv[6] = -m[0] * m[6] * m[15] + m[0] * m[7] * m[14] + m[4] * m[2] * m[15] - m[4] * m[3] * m[14] -
             m[12] * m[2] * m[7] + m[12] * m[3] * m[6];
    inv[10] = m[0] * m[5] * m[15] - m[0] * m[7] * m[13] - m[4] * m[1] * m[15] + m[4] * m[3] * m[13] +
              m[12] * m[1] * m[7] - m[12] * m[3] * m[5];
    inv[14] = -m[0] * m[5] * m[14] + m[0] * m[6] * m[13] + m[4] * m[1] * m[14] - m[4] * m[2] * m[13] -
              m[12] * m[1] * m[6] + m[12] * m[2] * m[5];
    inv[3] = -m[1] * m[6] * m[11] + m[1] * m[7] * m[10] + m[5] * m[2] * m[11] - m[5] * m[3] * m[10] -
             m[9] * m[2] * m[7] + m[9] * m[3] * m[6];
    inv[7] = m[0] * m[6] * m[11] - m[0] * m[7] * m[10] - m[4] * m[2] * m[11] + m[4] * m[3] * m[10] +
             m[8] * m[2] * m[7] - m[8] * m[3] * m[6];
    inv[11] = -m[0] * m[5] * m[11] + m[0] * m[7] * m[9] + m[4] * m[1] * m[11] - m[4] * m[3] * m[9] -
              m[8] * m[1] * m[7] + m[8] * m[3] * m[5];
    inv[15] = m[0] * m[5] * m[10] - m[0] * m[6] * m[9] - m[4] * m[1] * m[10] + m[4] * m[2] * m[9] +
              m[8] * m[1] * m[6] - m[8] * m[2] * m[5];
    double det = m[0] * inv[0] + m[1] * inv[4] + m[2] * inv[8] + m[3] * inv[12];
    if (!(fabs(det) > 1e-300) || !isfinite(det)) {
        fbx_m_identity(out);
        return 0;
    }
    for (int i = 0; i < 16; i++) out[i] = inv[i] / det;
    return 1;
}

static void m_translate(const double v[3], double sign, double out[16])
{
    fbx_m_identity(out);
    out[12] = sign * v[0];
    out[13] = sign * v[1];
    out[14] = sign * v[2];
}

static void m_scale(const double v[3], double out[16])
{
    fbx_m_identity(out);
    out[0] = v[0];
    out[5] = v[1];
    out[10] = v[2];
}

static void m_axis(int axis, double deg, double out[16])
{
    double a = deg * (M_PI / 180.0), c = cos(a), s = sin(a);
    fbx_m_identity(out);
    int i = (axis + 1) % 3, j = (axis + 2) % 3;
    out[i * 4 + i] = c;
    out[j * 4 + j] = c;
    out[i * 4 + j] = s;
    out[j * 4 + i] = -s;
}

void fbx_m_euler(const double deg[3], int order, double out[16])
{
    /* The axes in the order they apply (first applied first). */
    static const int seq[7][3] = {{0, 1, 2}, {0, 2, 1}, {1, 2, 0}, {1, 0, 2}, {2, 0, 1}, {2, 1, 0}, {0, 1, 2}};
    if (order < 0 || order > 6) order = 0;
    double a[16], r[16];
    fbx_m_identity(r);
    for (int k = 0; k < 3; k++) {
        int ax = seq[order][k];
        if (deg[ax] == 0) continue;
        m_axis(ax, deg[ax], a);
        fbx_m_mul(a, r, r);
    }
    memcpy(out, r, sizeof r);
}

void fbx_m_from_floats(const double *src16, double out[16])
{
    memcpy(out, src16, 16 * sizeof *out);
}

void fbx_xf_read(const fbx_scene *s, int obj, fbx_xf *x)
{
    static const double zero[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    fbx_prop_vec3(s, obj, "Lcl Translation", zero, x->t);
    fbx_prop_vec3(s, obj, "Lcl Rotation", zero, x->r);
    fbx_prop_vec3(s, obj, "Lcl Scaling", one, x->s);
    fbx_prop_vec3(s, obj, "RotationOffset", zero, x->roff);
    fbx_prop_vec3(s, obj, "RotationPivot", zero, x->rp);
    fbx_prop_vec3(s, obj, "PreRotation", zero, x->pre);
    fbx_prop_vec3(s, obj, "PostRotation", zero, x->post);
    fbx_prop_vec3(s, obj, "ScalingOffset", zero, x->soff);
    fbx_prop_vec3(s, obj, "ScalingPivot", zero, x->sp);
    fbx_prop_vec3(s, obj, "GeometricTranslation", zero, x->gt);
    fbx_prop_vec3(s, obj, "GeometricRotation", zero, x->gr);
    fbx_prop_vec3(s, obj, "GeometricScaling", one, x->gs);
    x->order = (int)fbx_prop_num(s, obj, "RotationOrder", 0);
    /* FbxNode: with RotationActive false the rotation order and the pre-
     * and post-rotation are ignored (Euler XYZ, no Rpre/Rpost), as they are
     * when RotationSpaceForLimitOnly keeps them for the limits only. A file
     * that does not say (no property, no template) has them active. */
    if (fbx_prop_num(s, obj, "RotationActive", 1) == 0 || fbx_prop_num(s, obj, "RotationSpaceForLimitOnly", 0) != 0) {
        x->order = 0;
        memset(x->pre, 0, sizeof x->pre);
        memset(x->post, 0, sizeof x->post);
    }
    double post[9];
    rot3(x->pre, 0, x->pre_m);
    rot3(x->post, 0, post);
    for (int c = 0; c < 3; c++)  /* Rpost^-1 = Rpost^T */
        for (int row = 0; row < 3; row++) x->post_t[c * 3 + row] = post[row * 3 + c];
    x->inherit = (int)fbx_prop_num(s, obj, "InheritType", 0);
    if (x->inherit < 0 || x->inherit > 2) x->inherit = 1;
}

/* 3x3 rotation (column-major r[c*3+row]) of Euler angles in degrees. */
static void rot3(const double deg[3], int order, double r[9])
{
    static const int seq[7][3] = {{0, 1, 2}, {0, 2, 1}, {1, 2, 0}, {1, 0, 2}, {2, 0, 1}, {2, 1, 0}, {0, 1, 2}};
    if (order < 0 || order > 6) order = 0;
    double m[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int k = 0; k < 3; k++) {
        int ax = seq[order][k];
        if (deg[ax] == 0) continue;
        double a = deg[ax] * (M_PI / 180.0), c = cos(a), sn = sin(a);
        int i = (ax + 1) % 3, j = (ax + 2) % 3;
        /* m = A * m: rows i and j of m mix */
        for (int col = 0; col < 3; col++) {
            double mi = m[col * 3 + i], mj = m[col * 3 + j];
            m[col * 3 + i] = c * mi - sn * mj;
            m[col * 3 + j] = sn * mi + c * mj;
        }
    }
    memcpy(r, m, sizeof m);
}

static void mul3(const double a[9], const double b[9], double out[9])
{
    double r[9];
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++)
            r[c * 3 + row] = a[row] * b[c * 3] + a[3 + row] * b[c * 3 + 1] + a[6 + row] * b[c * 3 + 2];
    memcpy(out, r, sizeof r);
}

/* The same product as the header's formula, as one affine matrix:
 * linear part Rr * S with Rr = Rpre * R * Rpost^-1, translation
 * t + Roff + Rp + Rr * (Soff + Sp - S * Sp - Rp). */
void fbx_xf_local(const fbx_xf *x, const double t[3], const double r[3], const double sc[3], double out[16])
{
    double rr[9], tr[3];
    fbx_xf_parts(x, t, r, sc, rr, tr);
    for (int c = 0; c < 3; c++) {
        for (int row = 0; row < 3; row++) out[c * 4 + row] = rr[c * 3 + row] * sc[c];
        out[c * 4 + 3] = 0;
    }
    memcpy(out + 12, tr, sizeof tr);
    out[15] = 1;
}

void fbx_xf_parts(const fbx_xf *x, const double t[3], const double r[3], const double sc[3], double rr[9], double tr[3])
{
    double rot[9];
    rot3(r, x->order, rot);
    mul3(x->pre_m, rot, rr);
    mul3(rr, x->post_t, rr);
    double v[3];
    for (int k = 0; k < 3; k++) v[k] = x->soff[k] + x->sp[k] - sc[k] * x->sp[k] - x->rp[k];
    for (int row = 0; row < 3; row++)
        tr[row] = t[row] + x->roff[row] + x->rp[row] + rr[row] * v[0] + rr[3 + row] * v[1] + rr[6 + row] * v[2];
}

void fbx_xf_geometry(const fbx_xf *x, double out[16])
{
    double m[16], a[16];
    m_translate(x->gt, 1, m);
    fbx_m_euler(x->gr, 0, a);
    fbx_m_mul(m, a, m);
    m_scale(x->gs, a);
    fbx_m_mul(m, a, out);
}

static double col_len(const double m[16], int c)
{
    return sqrt(m[c * 4] * m[c * 4] + m[c * 4 + 1] * m[c * 4 + 1] + m[c * 4 + 2] * m[c * 4 + 2]);
}

static double det3(const double m[16])
{
    return m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) +
           m[8] * (m[1] * m[6] - m[5] * m[2]);
}

void fbx_m_decompose(const double m[16], vec3 t, versor q, vec3 sc)
{
    double s[3], r[9];
    for (int c = 0; c < 3; c++) s[c] = col_len(m, c);
    if (det3(m) < 0) s[0] = -s[0];
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 3; k++) r[c * 3 + k] = s[c] != 0 ? m[c * 4 + k] / s[c] : (c == k);
    /* rotation matrix (column-major r[c*3+row]) to quaternion */
    double m00 = r[0], m11 = r[4], m22 = r[8], tr = m00 + m11 + m22, x, y, z, w;
    if (tr > 0) {
        double k = sqrt(tr + 1.0) * 2;
        w = 0.25 * k;
        x = (r[5] - r[7]) / k;
        y = (r[6] - r[2]) / k;
        z = (r[1] - r[3]) / k;
    } else if (m00 > m11 && m00 > m22) {
        double k = sqrt(1.0 + m00 - m11 - m22) * 2;
        w = (r[5] - r[7]) / k;
        x = 0.25 * k;
        y = (r[3] + r[1]) / k;
        z = (r[6] + r[2]) / k;
    } else if (m11 > m22) {
        double k = sqrt(1.0 + m11 - m00 - m22) * 2;
        w = (r[6] - r[2]) / k;
        x = (r[3] + r[1]) / k;
        y = 0.25 * k;
        z = (r[7] + r[5]) / k;
    } else {
        double k = sqrt(1.0 + m22 - m00 - m11) * 2;
        w = (r[1] - r[3]) / k;
        x = (r[6] + r[2]) / k;
        y = (r[7] + r[5]) / k;
        z = 0.25 * k;
    }
    double n = sqrt(x * x + y * y + z * z + w * w);
    if (!(n > 0) || !isfinite(n)) {
        x = y = z = 0;
        w = n = 1;
    }
    q[0] = (float)(x / n);
    q[1] = (float)(y / n);
    q[2] = (float)(z / n);
    q[3] = (float)(w / n);
    for (int k = 0; k < 3; k++) {
        t[k] = (float)m[12 + k];
        sc[k] = (float)s[k];
    }
}
