/* blend.c — pose blending, override and additive layers, delta clips
 * (see blend.h). The per-joint loops read every input for joint j before
 * writing joint j of the output, so the output may alias an input. */
#include "anim/blend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/str.h"

/* ---- validation --------------------------------------------------------- */

static int mask_fits(const mr_mask *m, int joint_count)
{
    return !m || (m->w && m->joint_count == joint_count);
}

mr_status mr_blend_validate(const mr_blend_job *job, mr_error *err)
{
    if (!job || !job->skeleton || !job->out)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "blend: job needs a skeleton and an output pose");
    int n = job->skeleton->joint_count;
    if (job->out->joint_count != n)
        return mr_error_set(err, MR_ERR_JOINT_COUNT, "blend: output pose has %d joints, skeleton has %d",
                            job->out->joint_count, n);
    if (job->layer_count < 0 || (job->layer_count > 0 && !job->layers))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "blend: %d layers but no layer array",
                            job->layer_count);
    if (!(isfinite(job->threshold) && job->threshold >= 0.0f))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                            "blend: threshold %g, expected a finite value >= 0", job->threshold);
    for (int i = 0; i < job->layer_count; i++) {
        const mr_blend_layer *l = &job->layers[i];
        if (!l->pose)
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "blend: layer %d has no pose", i);
        if (l->pose->joint_count != n)
            return mr_error_set(err, MR_ERR_JOINT_COUNT, "blend: layer %d pose has %d joints, skeleton has %d",
                                i, l->pose->joint_count, n);
        if (!(isfinite(l->weight) && l->weight >= 0.0f))
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                "blend: layer %d weight %g, expected a finite weight >= 0", i, l->weight);
        if (!mask_fits(l->mask, n))
            return mr_error_set(err, MR_ERR_JOINT_COUNT, "blend: layer %d mask has %d joints, skeleton has %d",
                                i, l->mask->joint_count, n);
    }
    return MR_OK;
}

/* ---- blend -------------------------------------------------------------- */

/* Adds w * (t, r, s) into the accumulators, aligning r's sign with acc_r. */
static inline void accumulate(float *acc_t, float *acc_r, float *acc_s, const float *t, const float *r,
                              const float *s, float w)
{
    float d = acc_r[0] * r[0] + acc_r[1] * r[1] + acc_r[2] * r[2] + acc_r[3] * r[3];
    float wr = d < 0.0f ? -w : w;
    for (int k = 0; k < 3; k++) {
        acc_t[k] += w * t[k];
        acc_s[k] += w * s[k];
    }
    for (int k = 0; k < 4; k++) acc_r[k] += wr * r[k];
}

static inline void normalize_quat(const float *q, float *out, const float *fallback)
{
    float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (!(len2 > 1e-24f)) {
        for (int k = 0; k < 4; k++) out[k] = fallback[k];
        return;
    }
    float inv = 1.0f / sqrtf(len2);
    for (int k = 0; k < 4; k++) out[k] = q[k] * inv;
}

/* ---- rotation kernels: 4 joints at a time --------------------------------- */

/* acc_j += w_j' * q_j for n joints, w_j' = w with the sign of dot(ref_j, q_j)
 * (so q and -q agree); ref may be acc itself (the running sum). The dots are
 * taken over structure-of-arrays (4 joints' x, y, z, w in one register
 * each), in the scalar order, so both paths give identical floats. */
static void add_rotations(float *acc, const float *ref, const float *q, float w, int n);
/* r_j = r_j / |r_j|, or fallback_j when |r_j|^2 <= 1e-24, for n joints. */
static void normalize_rotations(float *r, const versor *fallback, int n);

static void add_rotations_scalar(float *acc, const float *ref, const float *q, float w, int from, int n)
{
    for (int j = from; j < n; j++) {
        const float *p = ref + 4 * j, *r = q + 4 * j;
        float d = p[0] * r[0] + p[1] * r[1] + p[2] * r[2] + p[3] * r[3];
        float wr = d < 0.0f ? -w : w;
        float *a = acc + 4 * j;
        a[0] += wr * r[0];
        a[1] += wr * r[1];
        a[2] += wr * r[2];
        a[3] += wr * r[3];
    }
}

static void normalize_rotations_scalar(float *r, const versor *fallback, int from, int n)
{
    for (int j = from; j < n; j++) {
        float *q = r + 4 * j;
        float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
        if (!(len2 > 1e-24f)) {
            for (int k = 0; k < 4; k++) q[k] = fallback[j][k];
            continue;
        }
        float inv = 1.0f / sqrtf(len2);
        for (int k = 0; k < 4; k++) q[k] *= inv;
    }
}

/* dst = w * src (first) or dst += w * src, count floats; and dst *= f. */
static void flat_weighted(float *dst, const float *src, float w, int count, int first);
static void flat_scale(float *dst, float f, int count);
/* The unmasked job when its total weight is above the threshold: joints
 * [0, returned count) blended and finished (all of them, or none when the
 * skeleton is smaller than a group; see blend_groups.h). */
static int blend_groups(const mr_blend_job *job, float total);

#if defined(__SSE__)
#include <xmmintrin.h>

static void flat_weighted(float *dst, const float *src, float w, int count, int first)
{
    const __m128 wv = _mm_set1_ps(w);
    int k = 0;
    if (first)
        for (; k + 4 <= count; k += 4) _mm_storeu_ps(dst + k, _mm_mul_ps(wv, _mm_loadu_ps(src + k)));
    else
        for (; k + 4 <= count; k += 4)
            _mm_storeu_ps(dst + k, _mm_add_ps(_mm_loadu_ps(dst + k), _mm_mul_ps(wv, _mm_loadu_ps(src + k))));
    for (; k < count; k++) dst[k] = first ? w * src[k] : dst[k] + w * src[k];
}

static void flat_scale(float *dst, float f, int count)
{
    const __m128 fv = _mm_set1_ps(f);
    int k = 0;
    for (; k + 4 <= count; k += 4) _mm_storeu_ps(dst + k, _mm_mul_ps(_mm_loadu_ps(dst + k), fv));
    for (; k < count; k++) dst[k] *= f;
}

static void add_rotations(float *acc, const float *ref, const float *q, float w, int n)
{
    const __m128 wv = _mm_set1_ps(w), sign = _mm_set1_ps(-0.0f), zero = _mm_setzero_ps();
    int j = 0;
    for (; j + 4 <= n; j += 4) {
        __m128 p0 = _mm_loadu_ps(ref + 4 * j), p1 = _mm_loadu_ps(ref + 4 * j + 4);
        __m128 p2 = _mm_loadu_ps(ref + 4 * j + 8), p3 = _mm_loadu_ps(ref + 4 * j + 12);
        __m128 q0 = _mm_loadu_ps(q + 4 * j), q1 = _mm_loadu_ps(q + 4 * j + 4);
        __m128 q2 = _mm_loadu_ps(q + 4 * j + 8), q3 = _mm_loadu_ps(q + 4 * j + 12);
        __m128 x0 = p0, y0 = p1, z0 = p2, w0 = p3, x1 = q0, y1 = q1, z1 = q2, w1 = q3;
        _MM_TRANSPOSE4_PS(x0, y0, z0, w0);   /* structure of arrays: one component of 4 joints */
        _MM_TRANSPOSE4_PS(x1, y1, z1, w1);
        __m128 dot = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(x0, x1), _mm_mul_ps(y0, y1)),
                                           _mm_mul_ps(z0, z1)), _mm_mul_ps(w0, w1));
        __m128 wr = _mm_xor_ps(wv, _mm_and_ps(_mm_cmplt_ps(dot, zero), sign));
        float *a = acc + 4 * j;
        _mm_storeu_ps(a, _mm_add_ps(_mm_loadu_ps(a), _mm_mul_ps(_mm_shuffle_ps(wr, wr, 0x00), q0)));
        _mm_storeu_ps(a + 4, _mm_add_ps(_mm_loadu_ps(a + 4), _mm_mul_ps(_mm_shuffle_ps(wr, wr, 0x55), q1)));
        _mm_storeu_ps(a + 8, _mm_add_ps(_mm_loadu_ps(a + 8), _mm_mul_ps(_mm_shuffle_ps(wr, wr, 0xAA), q2)));
        _mm_storeu_ps(a + 12, _mm_add_ps(_mm_loadu_ps(a + 12), _mm_mul_ps(_mm_shuffle_ps(wr, wr, 0xFF), q3)));
    }
    add_rotations_scalar(acc, ref, q, w, j, n);
}

static void normalize_rotations(float *r, const versor *fallback, int n)
{
    const __m128 one = _mm_set1_ps(1.0f), tiny = _mm_set1_ps(1e-24f);
    int j = 0;
    for (; j + 4 <= n; j += 4) {
        float *q = r + 4 * j;
        __m128 x = _mm_loadu_ps(q), y = _mm_loadu_ps(q + 4), z = _mm_loadu_ps(q + 8), w = _mm_loadu_ps(q + 12);
        _MM_TRANSPOSE4_PS(x, y, z, w);
        __m128 len2 = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(x, x), _mm_mul_ps(y, y)), _mm_mul_ps(z, z)),
                                 _mm_mul_ps(w, w));
        int ok = _mm_movemask_ps(_mm_cmpgt_ps(len2, tiny));
        if (ok != 0xF) {                  /* a zero sum: the scalar path takes the fallback */
            normalize_rotations_scalar(r, fallback, j, j + 4);
            continue;
        }
        __m128 inv = _mm_div_ps(one, _mm_sqrt_ps(len2));
        x = _mm_mul_ps(x, inv);
        y = _mm_mul_ps(y, inv);
        z = _mm_mul_ps(z, inv);
        w = _mm_mul_ps(w, inv);
        _MM_TRANSPOSE4_PS(x, y, z, w);
        _mm_storeu_ps(q, x);
        _mm_storeu_ps(q + 4, y);
        _mm_storeu_ps(q + 8, z);
        _mm_storeu_ps(q + 12, w);
    }
    normalize_rotations_scalar(r, fallback, j, n);
}

/* The group kernel (blend_groups.h) at 4 joints (SSE) and, where the CPU
 * has AVX, at 8 (checked at run time; the build targets plain x86-64). */
#define BG_V __m128
#define BG_W 4
#define BG_NAME blend_groups4
#define BG_ATTR
#define BG_SET1 _mm_set1_ps
#define BG_LOAD _mm_loadu_ps
#define BG_STORE _mm_storeu_ps
#define BG_ADD _mm_add_ps
#define BG_MUL _mm_mul_ps
#define BG_DIV _mm_div_ps
#define BG_SQRT _mm_sqrt_ps
#define BG_AND _mm_and_ps
#define BG_XOR _mm_xor_ps
#define BG_LT _mm_cmplt_ps
#define BG_GT _mm_cmpgt_ps
#define BG_MASK _mm_movemask_ps
#define BG_LO _mm_unpacklo_ps
#define BG_HI _mm_unpackhi_ps
#define BG_SHUF _mm_shuffle_ps
#include "anim/blend_groups.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define BLEND_AVX 1
#define BG_V __m256
#define BG_W 8
#define BG_NAME blend_groups8
#define BG_ATTR __attribute__((target("avx")))
#define BG_SET1 _mm256_set1_ps
#define BG_LOAD _mm256_loadu_ps
#define BG_STORE _mm256_storeu_ps
#define BG_ADD _mm256_add_ps
#define BG_MUL _mm256_mul_ps
#define BG_DIV _mm256_div_ps
#define BG_SQRT _mm256_sqrt_ps
#define BG_AND _mm256_and_ps
#define BG_XOR _mm256_xor_ps
#define BG_LT(a, b) _mm256_cmp_ps(a, b, _CMP_LT_OS)
#define BG_GT(a, b) _mm256_cmp_ps(a, b, _CMP_GT_OS)
#define BG_MASK _mm256_movemask_ps
#define BG_LO _mm256_unpacklo_ps
#define BG_HI _mm256_unpackhi_ps
#define BG_SHUF _mm256_shuffle_ps
#include "anim/blend_groups.h"
#endif

/* Whole groups, then one group ending at the last joint, overlapping the
 * one before: the overlap is computed again from the same inputs (the output
 * does not alias them here) and rewritten with the same values. */
static int blend_groups(const mr_blend_job *job, float total)
{
    int n = job->skeleton->joint_count;
#ifdef BLEND_AVX
    if (n >= 8 && mr_simd() >= MR_SIMD_AVX) {
        if (blend_groups8(job, total, 0) < n) blend_groups8(job, total, n - 8);
        return n;
    }
#endif
    if (n < 4) return 0;
    if (blend_groups4(job, total, 0) < n) blend_groups4(job, total, n - 4);
    return n;
}
#else
static void flat_weighted(float *dst, const float *src, float w, int count, int first)
{
    for (int k = 0; k < count; k++) dst[k] = first ? w * src[k] : dst[k] + w * src[k];
}

static void flat_scale(float *dst, float f, int count)
{
    for (int k = 0; k < count; k++) dst[k] *= f;
}

static void add_rotations(float *acc, const float *ref, const float *q, float w, int n)
{
    add_rotations_scalar(acc, ref, q, w, 0, n);
}

static void normalize_rotations(float *r, const versor *fallback, int n)
{
    normalize_rotations_scalar(r, fallback, 0, n);
}

static int blend_groups(const mr_blend_job *job, float total)
{
    return 0;
}
#endif

/* Divides the sums by the joint's total weight, easing to the rest pose
 * below the threshold (see blend.h). total NULL: every joint has total_all. */
static void blend_finish(const mr_skeleton *sk, mr_pose *out, const float *total, float total_all, float threshold)
{
    if (!total && total_all >= threshold && total_all > 0.0f) {
        /* One total above the threshold (unmasked): flat loops. */
        int n = sk->joint_count;
        float inv = 1.0f / total_all;
        flat_scale(out->t[0], inv, 3 * n);
        flat_scale(out->s[0], inv, 3 * n);
        normalize_rotations(out->r[0], (const versor *)sk->rest_r, n);
        return;
    }
    for (int j = 0; j < sk->joint_count; j++) {
        float tw = total ? total[j] : total_all;
        if (tw < threshold) {
            if (tw <= 0.0f) {                   /* nothing at all: the rest pose, exactly */
                glm_vec3_copy(sk->rest_t[j], out->t[j]);
                glm_vec4_copy(sk->rest_r[j], out->r[j]);
                glm_vec3_copy(sk->rest_s[j], out->s[j]);
                continue;
            }
            accumulate(out->t[j], out->r[j], out->s[j], sk->rest_t[j], sk->rest_r[j], sk->rest_s[j], threshold - tw);
            tw = threshold;
        }
        float inv = 1.0f / tw;
        for (int k = 0; k < 3; k++) {
            out->t[j][k] *= inv;
            out->s[j][k] *= inv;
        }
        normalize_quat(out->r[j], out->r[j], sk->rest_r[j]);
    }
}

/* No masks: the first weighted input is written (not added), later ones
 * are added with their sign aligned to that first input, which weighs in at
 * every joint. Above the threshold the SIMD groups take the joints they can
 * and flat loops the rest; below it, flat loops and blend_finish. */
static void blend_unmasked(const mr_blend_job *job, float threshold)
{
    const mr_skeleton *sk = job->skeleton;
    mr_pose *out = job->out;
    float total = 0.0f;
    for (int i = 0; i < job->layer_count; i++)
        if (job->layers[i].weight > 0.0f) total += job->layers[i].weight;
    int done = total >= threshold && total > 0.0f ? blend_groups(job, total) : 0;
    int n = sk->joint_count - done;
    float *ot = (float *)(out->t + done), *os = (float *)(out->s + done), *orr = (float *)(out->r + done);
    const float *ref = NULL;
    for (int i = 0; i < job->layer_count && n > 0; i++) {
        const mr_blend_layer *l = &job->layers[i];
        float w = l->weight;
        if (!(w > 0.0f)) continue;
        const float *t = (const float *)(l->pose->t + done), *s = (const float *)(l->pose->s + done);
        const float *r = (const float *)(l->pose->r + done);
        flat_weighted(ot, t, w, 3 * n, !ref);
        flat_weighted(os, s, w, 3 * n, !ref);
        if (!ref) {
            flat_weighted(orr, r, w, 4 * n, 1);
            ref = r;
        } else {
            add_rotations(orr, ref, r, w, n);
        }
    }
    if (!done) {
        blend_finish(sk, out, NULL, total, threshold);
    } else if (n > 0) {                     /* the tail after the groups, finished as blend_finish would */
        float inv = 1.0f / total;
        flat_scale(ot, inv, 3 * n);
        flat_scale(os, inv, 3 * n);
        normalize_rotations(orr, (const versor *)(sk->rest_r + done), n);
    }
}

/* With masks: layer-outer, per-joint weights and totals, signs aligned to
 * the running sum (a joint's first contributor may be any layer). */
static void blend_masked(const mr_blend_job *job, float threshold)
{
    const mr_skeleton *sk = job->skeleton;
    mr_pose *out = job->out;
    int n = sk->joint_count;
    float total[MR_MAX_JOINTS];
    mr_blend_begin(out);
    memset(total, 0, (size_t)n * sizeof *total);
    for (int i = 0; i < job->layer_count; i++) {
        const mr_blend_layer *l = &job->layers[i];
        if (!(l->weight > 0.0f)) continue;
        const mr_pose *p = l->pose;
        const float *m = l->mask ? l->mask->w : NULL;
        for (int j = 0; j < n; j++) {
            float w = m ? l->weight * m[j] : l->weight;
            if (!(w > 0.0f)) continue;          /* also skips a NaN mask weight */
            accumulate(out->t[j], out->r[j], out->s[j], p->t[j], p->r[j], p->s[j], w);
            total[j] += w;
        }
    }
    blend_finish(sk, out, total, 0.0f, threshold);
}

static int aliases_input(const mr_blend_job *job)
{
    for (int i = 0; i < job->layer_count; i++)
        if (job->layers[i].pose == job->out || job->layers[i].pose->t == job->out->t) return 1;
    return 0;
}

mr_status mr_blend_run(const mr_blend_job *job, mr_error *err)
{
    mr_status st = mr_blend_validate(job, err);
    if (st != MR_OK) return st;
    if (!aliases_input(job)) {
        float threshold = job->threshold > 0.0f ? job->threshold : MR_BLEND_THRESHOLD;
        int masked = 0;
        for (int i = 0; i < job->layer_count; i++) masked |= job->layers[i].mask != NULL;
        if (masked) blend_masked(job, threshold);
        else blend_unmasked(job, threshold);
        return MR_OK;
    }
    const mr_skeleton *sk = job->skeleton;
    const mr_blend_layer *layers = job->layers;
    int count = job->layer_count;
    float threshold = job->threshold > 0.0f ? job->threshold : MR_BLEND_THRESHOLD;
    mr_pose *out = job->out;
    for (int j = 0; j < sk->joint_count; j++) {
        float t[3] = {0, 0, 0}, s[3] = {0, 0, 0}, r[4] = {0, 0, 0, 0}, total = 0.0f;
        for (int i = 0; i < count; i++) {
            float w = layers[i].weight * (layers[i].mask ? layers[i].mask->w[j] : 1.0f);
            if (!(w > 0.0f)) continue;          /* also skips a NaN mask weight */
            const mr_pose *p = layers[i].pose;
            accumulate(t, r, s, p->t[j], p->r[j], p->s[j], w);
            total += w;
        }
        if (total < threshold) {
            if (total <= 0.0f) {                /* nothing at all: the rest pose, exactly */
                glm_vec3_copy(sk->rest_t[j], out->t[j]);
                glm_vec4_copy(sk->rest_r[j], out->r[j]);
                glm_vec3_copy(sk->rest_s[j], out->s[j]);
                continue;
            }
            accumulate(t, r, s, sk->rest_t[j], sk->rest_r[j], sk->rest_s[j], threshold - total);
            total = threshold;
        }
        float inv = 1.0f / total;
        for (int k = 0; k < 3; k++) {
            out->t[j][k] = t[k] * inv;
            out->s[j][k] = s[k] * inv;
        }
        normalize_quat(r, out->r[j], sk->rest_r[j]);
    }
    return MR_OK;
}

/* ---- streaming blend ------------------------------------------------------ */

mr_status mr_blend_begin(mr_pose *acc)
{
    if (!acc) return MR_ERR_INVALID_ARGUMENT;
    size_t n = (size_t)acc->joint_count;
    memset(acc->t, 0, n * sizeof *acc->t);
    memset(acc->r, 0, n * sizeof *acc->r);
    memset(acc->s, 0, n * sizeof *acc->s);
    return MR_OK;
}

mr_status mr_blend_add(mr_pose *acc, const mr_pose *in, float weight)
{
    if (!acc || !in) return MR_ERR_INVALID_ARGUMENT;
    if (acc->joint_count != in->joint_count) return MR_ERR_JOINT_COUNT;
    if (!(isfinite(weight) && weight >= 0.0f)) return MR_ERR_INVALID_ARGUMENT;
    if (weight == 0.0f) return MR_OK;
    int n = acc->joint_count;
    flat_weighted(acc->t[0], in->t[0], weight, 3 * n, 0);
    flat_weighted(acc->s[0], in->s[0], weight, 3 * n, 0);
    add_rotations(acc->r[0], acc->r[0], in->r[0], weight, n);
    return MR_OK;
}

mr_status mr_blend_end(mr_pose *acc, const mr_skeleton *sk, float total, float threshold)
{
    if (!acc || !sk) return MR_ERR_INVALID_ARGUMENT;
    if (acc->joint_count != sk->joint_count) return MR_ERR_JOINT_COUNT;
    if (!(isfinite(total) && total >= 0.0f && isfinite(threshold) && threshold >= 0.0f))
        return MR_ERR_INVALID_ARGUMENT;
    if (threshold == 0.0f) threshold = MR_BLEND_THRESHOLD;
    if (total <= 0.0f) return mr_pose_set_rest(acc, sk);
    float rest_w = total < threshold ? threshold - total : 0.0f;
    float inv = 1.0f / (total + rest_w);
    int n = acc->joint_count;
    if (rest_w > 0.0f)
        for (int j = 0; j < n; j++)
            accumulate(acc->t[j], acc->r[j], acc->s[j], sk->rest_t[j], sk->rest_r[j], sk->rest_s[j], rest_w);
    flat_scale(acc->t[0], inv, 3 * n);
    flat_scale(acc->s[0], inv, 3 * n);
    normalize_rotations(acc->r[0], (const versor *)sk->rest_r, n);
    return MR_OK;
}

/* ---- override and additive layers -------------------------------------- */

static mr_status check_layer_args(const mr_pose *pose, const mr_pose *other, float weight,
                                  const mr_mask *mask)
{
    if (!pose || !other) return MR_ERR_INVALID_ARGUMENT;
    if (pose->joint_count != other->joint_count) return MR_ERR_JOINT_COUNT;
    if (!mask_fits(mask, pose->joint_count)) return MR_ERR_JOINT_COUNT;
    if (!(weight >= 0.0f && weight <= 1.0f)) return MR_ERR_INVALID_ARGUMENT;
    return MR_OK;
}

/* Joint weight a = weight * mask clamped to [0, 1]; NaN masks count as 0. */
static inline float joint_weight(float weight, const mr_mask *mask, int j)
{
    float a = mask ? weight * mask->w[j] : weight;
    return a > 0.0f ? (a < 1.0f ? a : 1.0f) : 0.0f;
}

mr_status mr_blend_override(mr_pose *pose, const mr_pose *layer, float weight, const mr_mask *mask)
{
    mr_status st = check_layer_args(pose, layer, weight, mask);
    if (st != MR_OK) return st;
    for (int j = 0; j < pose->joint_count; j++) {
        float a = joint_weight(weight, mask, j);
        if (a == 0.0f) continue;
        if (a == 1.0f) {
            glm_vec3_copy(layer->t[j], pose->t[j]);
            glm_vec4_copy(layer->r[j], pose->r[j]);
            glm_vec3_copy(layer->s[j], pose->s[j]);
            continue;
        }
        float *t = pose->t[j], *s = pose->s[j], *r = pose->r[j];
        const float *lt = layer->t[j], *ls = layer->s[j], *lr = layer->r[j];
        for (int k = 0; k < 3; k++) {
            t[k] += a * (lt[k] - t[k]);
            s[k] += a * (ls[k] - s[k]);
        }
        float d = r[0] * lr[0] + r[1] * lr[1] + r[2] * lr[2] + r[3] * lr[3];
        float b = d < 0.0f ? -a : a, q[4];
        for (int k = 0; k < 4; k++) q[k] = (1.0f - a) * r[k] + b * lr[k];
        normalize_quat(q, r, r);
    }
    return MR_OK;
}

mr_status mr_blend_additive(mr_pose *pose, const mr_pose *delta, float weight, const mr_mask *mask)
{
    mr_status st = check_layer_args(pose, delta, weight, mask);
    if (st != MR_OK) return st;
    for (int j = 0; j < pose->joint_count; j++) {
        float a = joint_weight(weight, mask, j);
        if (a == 0.0f) continue;
        const float *dt = delta->t[j], *ds = delta->s[j], *dr = delta->r[j];
        float *t = pose->t[j], *s = pose->s[j];
        for (int k = 0; k < 3; k++) {
            t[k] += a * dt[k];
            s[k] *= 1.0f + a * (ds[k] - 1.0f);
        }
        /* nlerp(identity, dr, a) on the short arc, then pose.r * that. */
        float sign = dr[3] < 0.0f ? -1.0f : 1.0f, q[4];
        for (int k = 0; k < 3; k++) q[k] = a * sign * dr[k];
        q[3] = (1.0f - a) + a * sign * dr[3];
        versor qd, out;
        static const float identity[4] = {0, 0, 0, 1};
        normalize_quat(q, qd, identity);
        glm_quat_mul(pose->r[j], qd, out);
        glm_vec4_copy(out, pose->r[j]);
    }
    return MR_OK;
}

/* ---- additive clips ------------------------------------------------------ */

/* Rewrites one track's values (value and, for CUBIC, tangents) relative to
 * the reference: kind 't' subtracts ref, 's' divides by ref, 'r' left-multiplies
 * by ref^-1. Tangents are derivatives: unchanged by the subtraction, scaled
 * by the division, rotated by the quaternion product. */
static void delta_values(mr_track *tr, char kind, const float *ref, const float *ref_inv)
{
    int c = tr->components, per = tr->interp == MR_INTERP_CUBIC ? 3 : 1;
    for (int i = 0; i < tr->key_count; i++)
        for (int part = 0; part < per; part++) {
            float *v = tr->values + ((size_t)i * per + part) * c;
            int is_value = per == 1 || part == 1;
            if (kind == 't') {
                if (is_value)
                    for (int k = 0; k < 3; k++) v[k] -= ref[k];
            } else if (kind == 's') {
                for (int k = 0; k < 3; k++) v[k] /= ref[k];
            } else {
                versor q, out;
                for (int k = 0; k < 4; k++) q[k] = v[k];
                glm_quat_mul((float *)ref_inv, q, out);
                for (int k = 0; k < 4; k++) v[k] = out[k];
            }
        }
}

static mr_status copy_track(mr_track *dst, const mr_track *src)
{
    mr_status st = mr_track_init(dst, src->key_count, src->interp);
    if (st != MR_OK) return st;
    size_t per = (size_t)src->components * (src->interp == MR_INTERP_CUBIC ? 3 : 1);
    memcpy(dst->times, src->times, (size_t)src->key_count * sizeof *dst->times);
    memcpy(dst->values, src->values, (size_t)src->key_count * per * sizeof *dst->values);
    dst->uniform_rate = src->uniform_rate;
    return MR_OK;
}

/* One-key track holding v (components floats). */
static mr_status constant_track(mr_track *dst, const float *v)
{
    mr_status st = mr_track_init(dst, 1, MR_INTERP_LINEAR);
    if (st != MR_OK) return st;
    for (int k = 0; k < dst->components; k++) dst->values[k] = v[k];
    return MR_OK;
}

static mr_status build_delta(const mr_clip *clip, const mr_skeleton *sk, const mr_pose *ref, mr_clip *d)
{
    mr_status keys = mr_clip_source(clip, NULL);   /* the source keys, resident */
    if (keys != MR_OK) return keys;
    d->duration = clip->duration;
    d->rate = clip->rate;
    for (int j = 0; j < clip->joint_count; j++) {
        const mr_joint_tracks *src = &clip->tracks[j];
        mr_joint_tracks *dst = &d->tracks[j];
        versor ref_r, ref_inv;
        glm_vec4_copy(ref->r[j], ref_r);
        glm_quat_inv(ref_r, ref_inv);
        mr_status st;
        if ((st = src->t.key_count ? copy_track(&dst->t, &src->t) : constant_track(&dst->t, sk->rest_t[j])))
            return st;
        if ((st = src->r.key_count ? copy_track(&dst->r, &src->r) : constant_track(&dst->r, sk->rest_r[j])))
            return st;
        if ((st = src->s.key_count ? copy_track(&dst->s, &src->s) : constant_track(&dst->s, sk->rest_s[j])))
            return st;
        delta_values(&dst->t, 't', ref->t[j], NULL);
        delta_values(&dst->r, 'r', NULL, ref_inv);
        delta_values(&dst->s, 's', ref->s[j], NULL);
    }
    for (int i = 0; i < clip->marker_count; i++) {
        mr_status st = mr_clip_add_marker(d, clip->markers[i].time, clip->markers[i].name);
        if (st != MR_OK) return st;
    }
    mr_clip_finish(d);   /* key spacing and the shared time line, as loaders do */
    return MR_OK;
}

mr_status mr_blend_make_additive_clip(const mr_clip *clip, const mr_skeleton *sk, const mr_pose *ref,
                                float ref_time, mr_clip **out, mr_error *err)
{
    if (!out) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "additive: no output");
    *out = NULL;
    if (!clip || !sk) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "additive: no clip or skeleton");
    if (clip->joint_count <= 0 || !clip->tracks)
        return mr_error_set(err, MR_ERR_EMPTY_CLIP, "additive: clip '%s' has no joints", clip->name);
    if (clip->joint_count != sk->joint_count)
        return mr_error_set(err, MR_ERR_JOINT_COUNT, "additive: clip '%s' has %d joints, skeleton has %d",
                            clip->name, clip->joint_count, sk->joint_count);
    if (ref && ref->joint_count != sk->joint_count)
        return mr_error_set(err, MR_ERR_JOINT_COUNT, "additive: reference pose has %d joints, skeleton has %d",
                            ref->joint_count, sk->joint_count);
    if (!ref && !isfinite(ref_time))
        return mr_error_set(err, MR_ERR_BAD_TIME, "additive: reference time %g is not finite", ref_time);
    mr_pose sampled = {0};
    if (!ref) {
        if (mr_pose_init(&sampled, sk->joint_count) != MR_OK)
            return mr_error_set(err, MR_ERR_NO_MEMORY, "additive: out of memory");
        mr_clip_sample(clip, sk, ref_time, MR_WRAP_CLAMP, &sampled);
        ref = &sampled;
    }
    mr_status st = MR_OK;
    for (int j = 0; j < sk->joint_count && st == MR_OK; j++)
        for (int k = 0; k < 3; k++)
            if (!(isfinite(ref->t[j][k]) && isfinite(ref->s[j][k]) && isfinite(ref->r[j][k]) &&
                  isfinite(ref->r[j][3]) && ref->s[j][k] != 0.0f)) {
                st = mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                  "additive: reference joint %d is not finite or has a zero scale", j);
                break;
            }
    char *name = st == MR_OK ? mr_str_fmt("%s.additive", clip->name ? clip->name : "clip") : NULL;
    mr_clip *d = NULL;
    if (name) mr_clip_create(name, clip->joint_count, &d);
    free(name);
    if (st == MR_OK && !d) st = mr_error_set(err, MR_ERR_NO_MEMORY, "additive: out of memory");
    if (st == MR_OK && (st = build_delta(clip, sk, ref, d)) != MR_OK)
        mr_error_set(err, st, "additive: cannot build the delta of clip '%s': %s", clip->name,
                     mr_status_string(st));
    mr_pose_deinit(&sampled);
    if (st != MR_OK) {
        mr_clip_destroy(d);
        return st;
    }
    *out = d;
    return MR_OK;
}
