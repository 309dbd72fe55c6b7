/* soa4.h — 4 joints' vec3 between packed arrays (x0 y0 z0 x1 y1 z1 ...,
 * as mr_pose stores translations and scales) and structure-of-arrays SSE
 * registers (x0 x1 x2 x3 in one, y and z in the others), and the nlerp and
 * pose stores that the dense bake and the playback cursor share. Internal
 * to src/anim; only for SSE builds. The shuffles move values, never change
 * them. */
#ifndef MR_ANIM_SOA4_H
#define MR_ANIM_SOA4_H

#include <xmmintrin.h>

#include "anim/pose.h"

/* Complete unrolling of the small per-component loops below, so their
 * arrays stay in registers (GCC -O2 keeps them on the stack otherwise). */
#define MR_UNROLL _Pragma("GCC unroll 8")

/* Reads 4 packed vec3 at src (12 floats) into x, y, z. */
static inline void mr_soa4_load_xyz(const float *src, __m128 *x, __m128 *y, __m128 *z)
{
    __m128 v0 = _mm_loadu_ps(src), v1 = _mm_loadu_ps(src + 4), v2 = _mm_loadu_ps(src + 8);
    /* v0 = x0 y0 z0 x1, v1 = y1 z1 x2 y2, v2 = z2 x3 y3 z3 */
    __m128 x2x3 = _mm_shuffle_ps(v1, v2, _MM_SHUFFLE(1, 1, 2, 2));   /* x2 x2 x3 x3 */
    __m128 y0y1 = _mm_shuffle_ps(v0, v1, _MM_SHUFFLE(0, 0, 1, 1));   /* y0 y0 y1 y1 */
    __m128 y2y3 = _mm_shuffle_ps(v1, v2, _MM_SHUFFLE(2, 2, 3, 3));   /* y2 y2 y3 y3 */
    __m128 z0z1 = _mm_shuffle_ps(v0, v1, _MM_SHUFFLE(1, 1, 2, 2));   /* z0 z0 z1 z1 */
    *x = _mm_shuffle_ps(v0, x2x3, _MM_SHUFFLE(2, 0, 3, 0));
    *y = _mm_shuffle_ps(y0y1, y2y3, _MM_SHUFFLE(2, 0, 2, 0));
    *z = _mm_shuffle_ps(z0z1, v2, _MM_SHUFFLE(3, 0, 2, 0));
}

/* Writes x, y, z (joint l in lane l) as 4 packed vec3 at dst (12 floats). */
static inline void mr_soa4_store_xyz(float *dst, __m128 x, __m128 y, __m128 z)
{
    __m128 xy_lo = _mm_unpacklo_ps(x, y), xy_hi = _mm_unpackhi_ps(x, y);   /* x0 y0 x1 y1, x2 y2 x3 y3 */
    __m128 z0x1 = _mm_shuffle_ps(z, x, _MM_SHUFFLE(1, 1, 0, 0));           /* z0 z0 x1 x1 */
    __m128 y1z1 = _mm_shuffle_ps(y, z, _MM_SHUFFLE(1, 1, 1, 1));           /* y1 y1 z1 z1 */
    __m128 z2x3 = _mm_shuffle_ps(z, x, _MM_SHUFFLE(3, 3, 2, 2));           /* z2 z2 x3 x3 */
    __m128 y3z3 = _mm_shuffle_ps(y, z, _MM_SHUFFLE(3, 3, 3, 3));           /* y3 y3 z3 z3 */
    _mm_storeu_ps(dst, _mm_shuffle_ps(xy_lo, z0x1, _MM_SHUFFLE(2, 0, 1, 0)));
    _mm_storeu_ps(dst + 4, _mm_shuffle_ps(y1z1, xy_hi, _MM_SHUFFLE(1, 0, 2, 0)));
    _mm_storeu_ps(dst + 8, _mm_shuffle_ps(z2x3, y3z3, _MM_SHUFFLE(2, 0, 2, 0)));
}

/* Shortest-path nlerp of 4 quaternion pairs, x y z w of key 0 in k0[0..3]
 * and of key 1 in k1 (joint l in lane l), at alpha a (per lane): the
 * arithmetic of mr_clip_lerp_key, a zero result becoming the identity as
 * mr_clip_normalize4 makes it. Out: component c in q[c] (joint l in lane l). */
static inline void mr_soa4_nlerp_soa(const __m128 k0[4], const __m128 k1[4], __m128 a, __m128 q[4])
{
    const __m128 one = _mm_set1_ps(1.0f), zero = _mm_setzero_ps();
    __m128 a0 = _mm_sub_ps(one, a);
    __m128 dot = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(k0[0], k1[0]), _mm_mul_ps(k0[1], k1[1])),
                                       _mm_mul_ps(k0[2], k1[2])), _mm_mul_ps(k0[3], k1[3]));
    __m128 b = _mm_xor_ps(a, _mm_and_ps(_mm_cmplt_ps(dot, zero), _mm_set1_ps(-0.0f)));
    MR_UNROLL for (int c = 0; c < 4; c++) q[c] = _mm_add_ps(_mm_mul_ps(a0, k0[c]), _mm_mul_ps(b, k1[c]));
    __m128 len2 = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(q[0], q[0]), _mm_mul_ps(q[1], q[1])),
                                        _mm_mul_ps(q[2], q[2])), _mm_mul_ps(q[3], q[3]));
    __m128 zero_len = _mm_cmple_ps(len2, zero);
    __m128 inv = _mm_andnot_ps(zero_len, _mm_div_ps(one, _mm_sqrt_ps(len2)));
    MR_UNROLL for (int c = 0; c < 3; c++) q[c] = _mm_mul_ps(q[c], inv);
    q[3] = _mm_or_ps(_mm_andnot_ps(zero_len, _mm_mul_ps(q[3], inv)), _mm_and_ps(zero_len, one));
}

/* mr_soa4_nlerp_soa, out one quaternion per register, q[l]. */
static inline void mr_soa4_nlerp(const __m128 k0[4], const __m128 k1[4], __m128 a, __m128 q[4])
{
    mr_soa4_nlerp_soa(k0, k1, a, q);
    _MM_TRANSPOSE4_PS(q[0], q[1], q[2], q[3]);
}

/* Writes joints j..j+count-1 (count <= 4) of pose: rotations q[l] (one per
 * register), translations lerp[0..2] and scales lerp[3..5] (joint l in
 * lane l). */
static inline void mr_soa4_store_pose(mr_pose *pose, int j, int count, const __m128 q[4], const __m128 lerp[6])
{
    if (count == 4) {
        MR_UNROLL for (int l = 0; l < 4; l++) _mm_storeu_ps(pose->r[j + l], q[l]);
        mr_soa4_store_xyz(pose->t[j], lerp[0], lerp[1], lerp[2]);
        mr_soa4_store_xyz(pose->s[j], lerp[3], lerp[4], lerp[5]);
        return;
    }
    float ts[6][4] __attribute__((aligned(16)));
    MR_UNROLL for (int c = 0; c < 6; c++) _mm_store_ps(ts[c], lerp[c]);
    for (int l = 0; l < count; l++) {
        _mm_storeu_ps(pose->r[j + l], q[l]);
        MR_UNROLL for (int c = 0; c < 3; c++) {
            pose->t[j + l][c] = ts[c][l];
            pose->s[j + l][c] = ts[3 + c][l];
        }
    }
}

#endif
