/* soa4.h — 4 joints' vec3 between packed arrays (x0 y0 z0 x1 y1 z1 ...,
 * as mr_pose stores translations and scales) and structure-of-arrays SSE
 * registers (x0 x1 x2 x3 in one, y and z in the others). Internal to
 * src/anim; only for SSE builds. Pure shuffles: values are moved, never
 * changed. */
#ifndef MR_ANIM_SOA4_H
#define MR_ANIM_SOA4_H

#include <xmmintrin.h>

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

#endif
