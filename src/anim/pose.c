/* pose.c — pose allocation, local-to-model and skinning matrices.
 *
 * The per-frame functions are straight loops over flat arrays: local TRS is
 * composed into an affine matrix directly (no intermediate rotation matrix),
 * each model matrix a weighted sum of its parent's columns (SSE, or AVX
 * where the CPU has it: core/cpu.h).
 */
#include "anim/pose.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/cpu.h"
#include "core/quat.h"

mr_status mr_pose_init(mr_pose *pose, int joint_count)
{
    memset(pose, 0, sizeof *pose);
    if (joint_count < 0 || joint_count > MR_MAX_JOINTS) return MR_ERR_LIMIT;
    size_t n = (size_t)joint_count;
    pose->t = mr_alloc_array(n, sizeof *pose->t);
    pose->r = mr_alloc_array(n, sizeof *pose->r);
    pose->s = mr_alloc_array(n, sizeof *pose->s);
    if (!pose->t || !pose->r || !pose->s) {
        mr_pose_deinit(pose);
        return MR_ERR_NO_MEMORY;
    }
    pose->joint_count = joint_count;
    for (int i = 0; i < joint_count; i++) {
        glm_quat_identity(pose->r[i]);
        glm_vec3_one(pose->s[i]);
    }
    return MR_OK;
}

void mr_pose_deinit(mr_pose *pose)
{
    if (!pose) return;
    free(pose->t);
    free(pose->r);
    free(pose->s);
    memset(pose, 0, sizeof *pose);
}

mr_status mr_pose_set_rest(mr_pose *pose, const mr_skeleton *sk)
{
    if (pose->joint_count != sk->joint_count) return MR_ERR_JOINT_COUNT;
    size_t n = (size_t)sk->joint_count;
    memcpy(pose->t, sk->rest_t, n * sizeof *pose->t);
    memcpy(pose->r, sk->rest_r, n * sizeof *pose->r);
    memcpy(pose->s, sk->rest_s, n * sizeof *pose->s);
    return MR_OK;
}

mr_status mr_pose_copy(mr_pose *dst, const mr_pose *src)
{
    if (dst->joint_count != src->joint_count) return MR_ERR_JOINT_COUNT;
    size_t n = (size_t)src->joint_count;
    memcpy(dst->t, src->t, n * sizeof *dst->t);
    memcpy(dst->r, src->r, n * sizeof *dst->r);
    memcpy(dst->s, src->s, n * sizeof *dst->s);
    return MR_OK;
}

/* T * R * S written out for a unit quaternion. */
static inline void compose_trs(const float *t, const float *q, const float *s, mat4 m)
{
    float x = q[0], y = q[1], z = q[2], w = q[3];
    float xx = x * x, yy = y * y, zz = z * z;
    float xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z;
    m[0][0] = (1.0f - 2.0f * (yy + zz)) * s[0];
    m[0][1] = 2.0f * (xy + wz) * s[0];
    m[0][2] = 2.0f * (xz - wy) * s[0];
    m[0][3] = 0.0f;
    m[1][0] = 2.0f * (xy - wz) * s[1];
    m[1][1] = (1.0f - 2.0f * (xx + zz)) * s[1];
    m[1][2] = 2.0f * (yz + wx) * s[1];
    m[1][3] = 0.0f;
    m[2][0] = 2.0f * (xz + wy) * s[2];
    m[2][1] = 2.0f * (yz - wx) * s[2];
    m[2][2] = (1.0f - 2.0f * (xx + yy)) * s[2];
    m[2][3] = 0.0f;
    m[3][0] = t[0];
    m[3][1] = t[1];
    m[3][2] = t[2];
    m[3][3] = 1.0f;
}

void mr_pose_trs_matrix(const vec3 t, const versor q, const vec3 s, mat4 out)
{
    compose_trs(t, q, s, out);
}

void mr_pose_local_matrix(const mr_pose *pose, int j, mat4 out)
{
    compose_trs(pose->t[j], pose->r[j], pose->s[j], out);
}

#if defined(__SSE__)
#include <xmmintrin.h>

#include "anim/soa4.h"

/* out = parent * TRS(t, q, s), composed in registers: the local matrix is
 * never stored, each output column is a weighted sum of parent columns. */
static inline void compose_child(const mat4 parent, const float *t, const float *q, const float *s,
                                 mat4 out)
{
    float x = q[0], y = q[1], z = q[2], w = q[3];
    float xx = x * x, yy = y * y, zz = z * z;
    float xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z;
    __m128 p0 = _mm_load_ps(parent[0]), p1 = _mm_load_ps(parent[1]);
    __m128 p2 = _mm_load_ps(parent[2]), p3 = _mm_load_ps(parent[3]);
#define MR_COLUMN(a, b, c) \
    _mm_add_ps(_mm_add_ps(_mm_mul_ps(p0, _mm_set1_ps(a)), _mm_mul_ps(p1, _mm_set1_ps(b))), \
               _mm_mul_ps(p2, _mm_set1_ps(c)))
    _mm_store_ps(out[0], MR_COLUMN((1.0f - 2.0f * (yy + zz)) * s[0], 2.0f * (xy + wz) * s[0],
                                   2.0f * (xz - wy) * s[0]));
    _mm_store_ps(out[1], MR_COLUMN(2.0f * (xy - wz) * s[1], (1.0f - 2.0f * (xx + zz)) * s[1],
                                   2.0f * (yz + wx) * s[1]));
    _mm_store_ps(out[2], MR_COLUMN(2.0f * (xz + wy) * s[2], 2.0f * (yz - wx) * s[2],
                                   (1.0f - 2.0f * (xx + yy)) * s[2]));
    _mm_store_ps(out[3], _mm_add_ps(MR_COLUMN(t[0], t[1], t[2]), p3));
#undef MR_COLUMN
}
#else
static inline void compose_child(const mat4 parent, const float *t, const float *q, const float *s,
                                 mat4 out)
{
    mat4 local;
    compose_trs(t, q, s, local);
    glm_mul((vec4 *)parent, local, out);
}
#endif

#if defined(__SSE__)
/* Joints j..j+3, 4 at a time: the rotation-and-scale coefficients of their
 * local matrices (compose_trs's formulas, one register per coefficient,
 * joint l in lane l: the same values as per joint), then each joint's
 * columns as compose_child builds them from a parent's.
 * last: the columns of joint j - 1 (valid when *have_last), which a child
 * that follows its parent (most joints of a chain) takes from registers
 * instead of reloading what was just stored; updated to joint j + 3's.
 * Unrolled, so that nothing goes through the stack (on snoutx10k, 345 ns a
 * pose before, 275 after, docs/PERFORMANCE.md). */
static inline __attribute__((always_inline)) void to_model4(const mr_skeleton *sk, const mr_pose *pose,
                                                           mat4 *model, int j, __m128 last[4], int *have_last)
{
    __m128 x = _mm_loadu_ps(pose->r[j]), y = _mm_loadu_ps(pose->r[j + 1]);
    __m128 z = _mm_loadu_ps(pose->r[j + 2]), w = _mm_loadu_ps(pose->r[j + 3]);
    _MM_TRANSPOSE4_PS(x, y, z, w);
    __m128 sx, sy, sz, tx, ty, tz;
    mr_soa4_load_xyz(pose->s[j], &sx, &sy, &sz);
    mr_soa4_load_xyz(pose->t[j], &tx, &ty, &tz);
    const __m128 one = _mm_set1_ps(1.0f), two = _mm_set1_ps(2.0f);
    __m128 xx = _mm_mul_ps(x, x), yy = _mm_mul_ps(y, y), zz = _mm_mul_ps(z, z);
    __m128 xy = _mm_mul_ps(x, y), xz = _mm_mul_ps(x, z), yz = _mm_mul_ps(y, z);
    __m128 wx = _mm_mul_ps(w, x), wy = _mm_mul_ps(w, y), wz = _mm_mul_ps(w, z);
    float c[12][4] __attribute__((aligned(16)));
    _mm_store_ps(c[0], _mm_mul_ps(_mm_sub_ps(one, _mm_mul_ps(two, _mm_add_ps(yy, zz))), sx));
    _mm_store_ps(c[1], _mm_mul_ps(_mm_mul_ps(two, _mm_add_ps(xy, wz)), sx));
    _mm_store_ps(c[2], _mm_mul_ps(_mm_mul_ps(two, _mm_sub_ps(xz, wy)), sx));
    _mm_store_ps(c[3], _mm_mul_ps(_mm_mul_ps(two, _mm_sub_ps(xy, wz)), sy));
    _mm_store_ps(c[4], _mm_mul_ps(_mm_sub_ps(one, _mm_mul_ps(two, _mm_add_ps(xx, zz))), sy));
    _mm_store_ps(c[5], _mm_mul_ps(_mm_mul_ps(two, _mm_add_ps(yz, wx)), sy));
    _mm_store_ps(c[6], _mm_mul_ps(_mm_mul_ps(two, _mm_add_ps(xz, wy)), sz));
    _mm_store_ps(c[7], _mm_mul_ps(_mm_mul_ps(two, _mm_sub_ps(yz, wx)), sz));
    _mm_store_ps(c[8], _mm_mul_ps(_mm_sub_ps(one, _mm_mul_ps(two, _mm_add_ps(xx, yy))), sz));
    _mm_store_ps(c[9], tx);
    _mm_store_ps(c[10], ty);
    _mm_store_ps(c[11], tz);
    MR_UNROLL for (int l = 0; l < 4; l++) {
        int i = j + l, p = sk->parents[i];
        if (p < 0) {   /* a root: its local matrix */
            compose_trs(pose->t[i], pose->r[i], pose->s[i], model[i]);
            *have_last = 0;
            continue;
        }
        __m128 p0, p1, p2, p3;
        if (p == i - 1 && *have_last) {
            p0 = last[0], p1 = last[1], p2 = last[2], p3 = last[3];
        } else {
            p0 = _mm_load_ps(model[p][0]), p1 = _mm_load_ps(model[p][1]);
            p2 = _mm_load_ps(model[p][2]), p3 = _mm_load_ps(model[p][3]);
        }
#define MR_COLUMN(k)                                                                                 \
    _mm_add_ps(_mm_add_ps(_mm_mul_ps(p0, _mm_set1_ps(c[3 * (k)][l])), _mm_mul_ps(p1, _mm_set1_ps(c[3 * (k) + 1][l]))), \
               _mm_mul_ps(p2, _mm_set1_ps(c[3 * (k) + 2][l])))
        __m128 m0 = MR_COLUMN(0), m1 = MR_COLUMN(1), m2 = MR_COLUMN(2), m3 = _mm_add_ps(MR_COLUMN(3), p3);
#undef MR_COLUMN
        _mm_store_ps(model[i][0], m0);
        _mm_store_ps(model[i][1], m1);
        _mm_store_ps(model[i][2], m2);
        _mm_store_ps(model[i][3], m3);
        last[0] = m0, last[1] = m1, last[2] = m2, last[3] = m3;
        *have_last = 1;
    }
}

/* Whole groups of 4 joints; returns the joints done. Parents come before
 * children (skeleton.h), so a group's parents are done before it, or
 * earlier in the group and done first. */
static inline __attribute__((always_inline)) int to_model_groups(const mr_skeleton *sk, const mr_pose *pose,
                                                                 mat4 *model)
{
    __m128 last[4] = {_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps()};
    int have_last = 0, i = 0;
    for (; i + 4 <= sk->joint_count; i += 4) to_model4(sk, pose, model, i, last, &have_last);
    return i;
}

static int to_model_groups_sse(const mr_skeleton *sk, const mr_pose *pose, mat4 *model)
{
    return to_model_groups(sk, pose, model);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define TO_MODEL_AVX 1
/* The same operations in VEX encoding (no fused multiply-add: the same
 * results), whose three operands spare the register copies. */
__attribute__((target("avx"))) static int to_model_groups_avx(const mr_skeleton *sk, const mr_pose *pose,
                                                              mat4 *model)
{
    return to_model_groups(sk, pose, model);
}
#endif
#endif

mr_status mr_pose_to_model(const mr_skeleton *sk, const mr_pose *pose, mat4 *model)
{
    if (!sk || !pose || !model) return MR_ERR_INVALID_ARGUMENT;
    if (pose->joint_count != sk->joint_count) return MR_ERR_JOINT_COUNT;
    const int *parents = sk->parents;
    int i = 0;
#if defined(TO_MODEL_AVX)
    i = mr_simd() >= MR_SIMD_AVX ? to_model_groups_avx(sk, pose, model) : to_model_groups_sse(sk, pose, model);
#elif defined(__SSE__)
    i = to_model_groups_sse(sk, pose, model);
#endif
    for (; i < sk->joint_count; i++) {
        int p = parents[i];
        if (p < 0) compose_trs(pose->t[i], pose->r[i], pose->s[i], model[i]);
        else compose_child(model[p], pose->t[i], pose->r[i], pose->s[i], model[i]);
    }
    return MR_OK;
}

mr_status mr_pose_skinning(const mr_skeleton *sk, const mat4 *model, mat4 *skin)
{
    if (!sk || !model || !skin) return MR_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < sk->joint_count; i++)
        glm_mul((vec4 *)model[i], sk->inverse_bind[i], skin[i]);
    return MR_OK;
}

/* Quaternion of an orthonormal rotation matrix (columns c0, c1, c2), with
 * the canonical sign w >= 0. */
static void quat_from_basis(const vec3 c0, const vec3 c1, const vec3 c2, versor q)
{
    const float *col[3] = {c0, c1, c2};
    double rows[3][3], d[4];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) rows[r][c] = col[c][r];
    mr_quat_from_rows_d(rows, d);
    double sign = d[3] < 0 ? -1.0 : 1.0;
    for (int k = 0; k < 4; k++) q[k] = (float)(sign * d[k]);
}

float mr_pose_trs_from_matrix(const mat4 m, vec3 t, versor q, vec3 s)
{
    t[0] = m[3][0];
    t[1] = m[3][1];
    t[2] = m[3][2];
    vec3 c[3];
    for (int i = 0; i < 3; i++) {
        glm_vec3_copy((float *)m[i], c[i]);
        s[i] = glm_vec3_norm(c[i]);
    }
    vec3 cr;
    glm_vec3_cross(c[1], c[2], cr);
    if (glm_vec3_dot(c[0], cr) < 0) s[0] = -s[0];
    /* Normalise; a vanishing axis is rebuilt from the other two. */
    int zero = -1;
    for (int i = 0; i < 3; i++) {
        if (fabsf(s[i]) > 1e-30f) glm_vec3_scale(c[i], 1.0f / s[i], c[i]);
        else zero = i;
    }
    float shear = 0.0f;
    if (zero >= 0) {
        int a = (zero + 1) % 3, b = (zero + 2) % 3;
        if (fabsf(s[a]) <= 1e-30f) glm_vec3_copy((vec3){a == 0, a == 1, a == 2}, c[a]);
        if (fabsf(s[b]) <= 1e-30f || fabsf(glm_vec3_dot(c[a], c[b])) > 0.999f) glm_vec3_ortho(c[a], c[b]);
        glm_vec3_normalize(c[b]);
        glm_vec3_cross(c[a], c[b], c[zero]);
        glm_vec3_normalize(c[zero]);
    } else {
        float d01 = fabsf(glm_vec3_dot(c[0], c[1])), d02 = fabsf(glm_vec3_dot(c[0], c[2]));
        float d12 = fabsf(glm_vec3_dot(c[1], c[2]));
        shear = fmaxf(d01, fmaxf(d02, d12));
    }
    /* Gram-Schmidt keeps the result a rotation when there is shear or
     * rounding noise. */
    glm_vec3_normalize(c[0]);
    glm_vec3_muladds(c[0], -glm_vec3_dot(c[0], c[1]), c[1]);
    glm_vec3_normalize(c[1]);
    vec3 c2;
    glm_vec3_cross(c[0], c[1], c2);
    quat_from_basis(c[0], c[1], c2, q);
    return shear;
}
