/* clip_dense.c — baking shared-time-line clips into SIMD rows, and sampling
 * them 4 joints at a time (see clip_dense.h). */
#include "anim/clip_dense.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

#define DENSE_MAX_BYTES ((size_t)64 << 20)

enum { ROW_RX, ROW_RY, ROW_RZ, ROW_RW, ROW_TX, ROW_TY, ROW_TZ, ROW_SX, ROW_SY, ROW_SZ, ROWS };

static void bake_channel(mr_clip_dense *d, const mr_track *tr, int joint, int first_row)
{
    for (int k = 0; k < d->keys; k++) {
        const float *v = tr->values + (tr->key_count > 1 ? (size_t)k * tr->components : 0);
        float *row = d->data + ((size_t)k * ROWS + first_row) * d->lanes + joint;
        for (int c = 0; c < tr->components; c++) row[(size_t)c * d->lanes] = v[c];
    }
}

mr_clip_dense *mr_clip_dense_build(const mr_clip *clip)
{
    const mr_clip_runtime *rt = clip->runtime;
    if (!rt || rt->shared_keys < 2) return NULL;
    for (int j = 0; j < clip->joint_count; j++) {
        const mr_track *tracks[3] = {mr_clip_track(clip, j, 0), mr_clip_track(clip, j, 1),
                                     mr_clip_track(clip, j, 2)};
        for (int c = 0; c < 3; c++)
            if (tracks[c]->key_count > 0 && tracks[c]->interp != MR_INTERP_LINEAR) return NULL;
    }
    mr_clip_dense *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->keys = rt->shared_keys;
    d->joints = clip->joint_count;
    d->lanes = (clip->joint_count + 3) & ~3;
    size_t floats = (size_t)d->keys * ROWS * d->lanes;
    d->rest = mr_alloc_array((size_t)clip->joint_count * 3, sizeof *d->rest);
    if (floats * sizeof(float) > DENSE_MAX_BYTES || !d->rest ||
        posix_memalign((void **)&d->data, 16, floats * sizeof(float)) != 0) {
        d->data = NULL;
        mr_clip_dense_destroy(d);
        return NULL;
    }
    /* Padding lanes hold the identity so the SIMD pass never divides by zero. */
    for (size_t i = 0; i < floats; i++) d->data[i] = 0.0f;
    for (int k = 0; k < d->keys; k++)
        for (int l = 0; l < d->lanes; l++) {
            float *base = d->data + (size_t)k * ROWS * d->lanes + l;
            base[ROW_RW * d->lanes] = 1.0f;
            base[ROW_SX * d->lanes] = base[ROW_SY * d->lanes] = base[ROW_SZ * d->lanes] = 1.0f;
        }
    for (int j = 0; j < clip->joint_count; j++) {
        const mr_track *tracks[3] = {mr_clip_track(clip, j, 0), mr_clip_track(clip, j, 1),
                                     mr_clip_track(clip, j, 2)};
        const int rows[3] = {ROW_TX, ROW_RX, ROW_SX};
        for (int c = 0; c < 3; c++) {
            if (tracks[c]->key_count == 0) d->rest[d->rest_count++] = j * 4 + c;
            else bake_channel(d, tracks[c], j, rows[c]);
        }
    }
    return d;
}

void mr_clip_dense_destroy(mr_clip_dense *d)
{
    if (!d) return;
    free(d->data);
    free(d->rest);
    free(d);
}

#if defined(__SSE__)
#include <xmmintrin.h>

#include "anim/soa4.h"

void mr_clip_dense_sample(const mr_clip_dense *d, const mr_skeleton *sk, int key, float alpha,
                          mr_pose *pose)
{
    const size_t lanes = (size_t)d->lanes;
    const float *r0 = d->data + (size_t)key * ROWS * lanes;
    const float *r1 = r0 + ROWS * lanes;
    const __m128 a = _mm_set1_ps(alpha);
    for (int j = 0; j < d->joints; j += 4) {
        /* Rotations: nlerp with the second key flipped when the dot is negative. */
        static const int rot_rows[4] = {ROW_RX, ROW_RY, ROW_RZ, ROW_RW};
        __m128 k0[4], k1[4], q[4], lerp[6];
        MR_UNROLL for (int c = 0; c < 4; c++) {
            k0[c] = _mm_load_ps(r0 + rot_rows[c] * lanes + j);
            k1[c] = _mm_load_ps(r1 + rot_rows[c] * lanes + j);
        }
        mr_soa4_nlerp(k0, k1, a, q);
        static const int lin_rows[6] = {ROW_TX, ROW_TY, ROW_TZ, ROW_SX, ROW_SY, ROW_SZ};
        MR_UNROLL for (int c = 0; c < 6; c++) {
            __m128 v0 = _mm_load_ps(r0 + lin_rows[c] * lanes + j);
            __m128 v1 = _mm_load_ps(r1 + lin_rows[c] * lanes + j);
            lerp[c] = _mm_add_ps(v0, _mm_mul_ps(a, _mm_sub_ps(v1, v0)));
        }
        mr_soa4_store_pose(pose, j, d->joints - j < 4 ? d->joints - j : 4, q, lerp);
    }
    for (int i = 0; i < d->rest_count; i++) {
        int j = d->rest[i] >> 2, c = d->rest[i] & 3;
        if (c == 0) glm_vec3_copy(sk->rest_t[j], pose->t[j]);
        else if (c == 1) glm_quat_copy(sk->rest_r[j], pose->r[j]);
        else glm_vec3_copy(sk->rest_s[j], pose->s[j]);
    }
}
#else
void mr_clip_dense_sample(const mr_clip_dense *d, const mr_skeleton *sk, int key, float alpha,
                          mr_pose *pose)
{
    const size_t lanes = (size_t)d->lanes;
    const float *r0 = d->data + (size_t)key * ROWS * lanes;
    const float *r1 = r0 + ROWS * lanes;
    for (int j = 0; j < d->joints; j++) {
        float q[4], q1[4], dot = 0;
        for (int c = 0; c < 4; c++) {
            q[c] = r0[(ROW_RX + c) * lanes + j];
            q1[c] = r1[(ROW_RX + c) * lanes + j];
            dot += q[c] * q1[c];
        }
        float b = dot < 0 ? -alpha : alpha, len2 = 0;
        for (int c = 0; c < 4; c++) { q[c] = (1.0f - alpha) * q[c] + b * q1[c]; len2 += q[c] * q[c]; }
        float inv = 1.0f / sqrtf(len2);
        for (int c = 0; c < 4; c++) pose->r[j][c] = q[c] * inv;
        for (int c = 0; c < 3; c++) {
            float t0 = r0[(ROW_TX + c) * lanes + j], t1 = r1[(ROW_TX + c) * lanes + j];
            float s0 = r0[(ROW_SX + c) * lanes + j], s1 = r1[(ROW_SX + c) * lanes + j];
            pose->t[j][c] = t0 + alpha * (t1 - t0);
            pose->s[j][c] = s0 + alpha * (s1 - s0);
        }
    }
    for (int i = 0; i < d->rest_count; i++) {
        int j = d->rest[i] >> 2, c = d->rest[i] & 3;
        if (c == 0) glm_vec3_copy(sk->rest_t[j], pose->t[j]);
        else if (c == 1) glm_quat_copy(sk->rest_r[j], pose->r[j]);
        else glm_vec3_copy(sk->rest_s[j], pose->s[j]);
    }
}
#endif
