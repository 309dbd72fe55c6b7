/* clip_interp.h — finding and interpolating the keys of one track (internal
 * to src/anim): shared by the source clip (clip.c: mr_track_sample, the exact
 * curve) and the runtime clip (clip_runtime.c: the sampler, and its builder's
 * refinement). Everything here is static inline: a header of arithmetic, not
 * a module, so sharing it adds no call between the two. */
#ifndef MR_ANIM_CLIP_INTERP_H
#define MR_ANIM_CLIP_INTERP_H

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "anim/clip.h"

/* Index i of the key interval [times[i], times[i+1]] holding t (0 <= i <= n-2)
 * and the fraction through it (0..1); t outside the keys is clamped. rate > 0
 * says the keys are evenly spaced at that many per second (O(1) lookup).
 * Whatever the times and rate (infinite, NaN, keys closer than a float's
 * step), i stays in 0..n-2 and alpha in 0..1: the estimate from the rate is
 * clamped in float before it becomes an int. */
static inline int mr_clip_find_key_in(const float *times, int n, float rate, float t, float *alpha)
{
    if (t <= times[0]) { *alpha = 0.0f; return 0; }
    if (t >= times[n - 1]) { *alpha = 1.0f; return n - 2; }
    int i;
    if (rate > 0) {
        float f = (t - times[0]) * rate;
        i = f >= 0 && f < (float)(n - 2) ? (int)f : f >= (float)(n - 2) ? n - 2 : 0;
        /* Rounding can put i one key off; step to the right interval. */
        while (i > 0 && times[i] > t) i--;
        while (i < n - 2 && times[i + 1] <= t) i++;
    } else {
        int lo = 0, hi = n - 1;          /* times[lo] <= t < times[hi] */
        while (hi - lo > 1) {
            int mid = (lo + hi) >> 1;
            if (times[mid] <= t) lo = mid; else hi = mid;
        }
        i = lo;
    }
    float a = (t - times[i]) / (times[i + 1] - times[i]);
    *alpha = a > 0 ? (a < 1 ? a : 1.0f) : 0.0f;   /* NaN goes to 0 */
    return i;
}

static inline int mr_clip_find_key(const mr_track *tr, float t, float *alpha)
{
    return mr_clip_find_key_in(tr->times, tr->key_count, tr->uniform_rate, t, alpha);
}

static inline void mr_clip_normalize4(float *q)
{
    float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    float inv = len2 > 0 ? 1.0f / sqrtf(len2) : 0.0f;
    if (inv == 0.0f) { q[0] = q[1] = q[2] = 0.0f; q[3] = 1.0f; return; }
    q[0] *= inv; q[1] *= inv; q[2] *= inv; q[3] *= inv;
}

/* Linear keys, the common case: translation/scale lerp, rotation
 * shortest-path nlerp. Small enough to inline into the sampling loops. */
static inline void mr_clip_lerp_key(const mr_track *tr, int i, float a, float *out)
{
    if (tr->components == 4) {
        const float *v0 = tr->values + (size_t)i * 4, *v1 = v0 + 4;
        /* Shortest path: flip the second key when the two disagree in sign. */
        float d = v0[0] * v1[0] + v0[1] * v1[1] + v0[2] * v1[2] + v0[3] * v1[3];
        float b = d < 0 ? -a : a, a0 = 1.0f - a;
        out[0] = a0 * v0[0] + b * v1[0];
        out[1] = a0 * v0[1] + b * v1[1];
        out[2] = a0 * v0[2] + b * v1[2];
        out[3] = a0 * v0[3] + b * v1[3];
        mr_clip_normalize4(out);
    } else {
        const float *v0 = tr->values + (size_t)i * 3, *v1 = v0 + 3;
        out[0] = v0[0] + a * (v1[0] - v0[0]);
        out[1] = v0[1] + a * (v1[1] - v0[1]);
        out[2] = v0[2] + a * (v1[2] - v0[2]);
    }
}

/* Interpolates key interval i at fraction a into out, any interpolation
 * (LINEAR rotations nlerped). */
static inline void mr_clip_interp_track(const mr_track *tr, int i, float a, float *out)
{
    int c = tr->components;
    if (tr->interp == MR_INTERP_LINEAR) {
        mr_clip_lerp_key(tr, i, a, out);
        return;
    }
    if (tr->interp == MR_INTERP_STEP) {
        const float *v = tr->values + (size_t)(a >= 1.0f ? i + 1 : i) * c;
        for (int k = 0; k < c; k++) out[k] = v[k];
    } else {
        const float *k0 = tr->values + (size_t)i * 3 * c;   /* in, value, out */
        const float *k1 = k0 + 3 * c;
        float dt = tr->times[i + 1] - tr->times[i];
        float a2 = a * a, a3 = a2 * a;
        float h00 = 2 * a3 - 3 * a2 + 1, h10 = a3 - 2 * a2 + a;
        float h01 = -2 * a3 + 3 * a2, h11 = a3 - a2;
        for (int k = 0; k < c; k++)
            out[k] = h00 * k0[c + k] + h10 * dt * k0[2 * c + k] + h01 * k1[c + k] + h11 * dt * k1[k];
    }
    if (c == 4) mr_clip_normalize4(out);
}

/* The first key's value (a track of one key holds it). */
static inline void mr_clip_hold_first(const mr_track *tr, float *out)
{
    const float *v = tr->values + (tr->interp == MR_INTERP_CUBIC ? tr->components : 0);
    for (int k = 0; k < tr->components; k++) out[k] = v[k];
    if (tr->components == 4) mr_clip_normalize4(out);
}

/* A slerp's interval: its keys normalised and on one side (b flipped
 * where they disagree in sign) and, away from equal keys, the angle
 * between them and its sine: mr_clip_slerp_keys in two steps, for one
 * interval sampled at several fractions. */
typedef struct mr_clip_slerp_span {
    double a[4], b[4], th, s;
    int arc;   /* th and s are set: the keys differ */
} mr_clip_slerp_span;

static inline void mr_clip_slerp_span_of(const float *q0, const float *q1, mr_clip_slerp_span *sp)
{
    double la = 0, lb = 0, d = 0;
    for (int c = 0; c < 4; c++) {
        sp->a[c] = q0[c];
        sp->b[c] = q1[c];
        la += sp->a[c] * sp->a[c];
        lb += sp->b[c] * sp->b[c];
    }
    la = la > 0 ? 1.0 / sqrt(la) : 0.0;
    lb = lb > 0 ? 1.0 / sqrt(lb) : 0.0;
    for (int c = 0; c < 4; c++) {
        sp->a[c] *= la;
        sp->b[c] *= lb;
        d += sp->a[c] * sp->b[c];
    }
    if (d < 0) {
        d = -d;
        for (int c = 0; c < 4; c++) sp->b[c] = -sp->b[c];
    }
    sp->arc = d < 1.0 - 1e-12;
    sp->th = sp->arc ? acos(d) : 0.0;
    sp->s = sp->arc ? sin(sp->th) : 0.0;
}

static inline void mr_clip_slerp_span_at(const mr_clip_slerp_span *sp, double u, double *out)
{
    double w0 = 1.0 - u, w1 = u;
    if (sp->arc) {
        w0 = sin((1.0 - u) * sp->th) / sp->s;
        w1 = sin(u * sp->th) / sp->s;
    }
    double len = 0;
    for (int c = 0; c < 4; c++) {
        out[c] = w0 * sp->a[c] + w1 * sp->b[c];
        len += out[c] * out[c];
    }
    len = len > 0 ? 1.0 / sqrt(len) : 0.0;
    for (int c = 0; c < 4; c++) out[c] *= len;
}

/* Slerp of unit-ish quaternions q0, q1 (shortest path) at u, in double. */
static inline void mr_clip_slerp_keys(const float *q0, const float *q1, double u, double *out)
{
    mr_clip_slerp_span sp;
    mr_clip_slerp_span_of(q0, q1, &sp);
    mr_clip_slerp_span_at(&sp, u, out);
}

/* mr_track_sample (clip.c) keeping the last interval found and the last
 * slerped in *memo (zeroed before the first call): the same values, each
 * interval's angle found once however many times inside it are sampled,
 * and a time in the interval found last or the next found without a
 * search. On keys whose times never decrease, the interval holding a
 * time between the first and last key is the one i with
 * times[i] <= t < times[i + 1], whichever way mr_clip_find_key finds it. */
typedef struct mr_clip_sample_memo {
    const mr_track *tr;
    int sorted;   /* tr's times never decrease */
    int at;       /* the interval found last */
    int i;        /* span's interval (-1: none) */
    mr_clip_slerp_span span;
} mr_clip_sample_memo;

static inline int mr_clip_memo_find_key(const mr_track *tr, float t, float *alpha, mr_clip_sample_memo *memo)
{
    const float *times = tr->times;
    int n = tr->key_count;
    if (memo->tr != tr) {
        memo->tr = tr;
        memo->sorted = 1;
        for (int k = 0; memo->sorted && k + 1 < n; k++) memo->sorted = times[k] <= times[k + 1];
        memo->at = 0;
        memo->i = -1;
    }
    int i = memo->at;
    if (!memo->sorted || !(t > times[0] && t < times[n - 1])) {
        i = mr_clip_find_key(tr, t, alpha);
    } else {
        if (!(times[i] <= t && t < times[i + 1])) {
            if (i + 2 < n && times[i + 1] <= t && t < times[i + 2]) i++;
            else i = mr_clip_find_key(tr, t, alpha);
        }
        float a = (t - times[i]) / (times[i + 1] - times[i]);
        *alpha = a > 0 ? (a < 1 ? a : 1.0f) : 0.0f;
    }
    memo->at = i;
    return i;
}

static inline void mr_clip_sample_memo_at(const mr_track *tr, float t, float *out, mr_clip_sample_memo *memo)
{
    if (tr->key_count == 1) {
        mr_clip_hold_first(tr, out);
        return;
    }
    float a;
    int i = mr_clip_memo_find_key(tr, t, &a, memo);
    if (tr->interp == MR_INTERP_LINEAR && tr->components == 4 && a > 0.0f && a < 1.0f) {
        if (memo->i != i) {
            mr_clip_slerp_span_of(tr->values + (size_t)i * 4, tr->values + (size_t)(i + 1) * 4, &memo->span);
            memo->i = i;
        }
        double q[4];
        mr_clip_slerp_span_at(&memo->span, a, q);
        for (int c = 0; c < 4; c++) out[c] = (float)q[c];
        return;
    }
    mr_clip_interp_track(tr, i, a, out);
}

/* Rotation angle (radians, 0..pi) between two quaternions of any nonzero
 * length, shortest path, well conditioned near 0: 4 atan(|a - b| / |a + b|)
 * of the normalised pair. 0 when either is zero. */
static inline double mr_clip_quat_angle(const float *q0, const float *q1)
{
    double d = 0, l0 = 0, l1 = 0, m = 0, p = 0;
    for (int c = 0; c < 4; c++) {
        d += (double)q0[c] * q1[c];
        l0 += (double)q0[c] * q0[c];
        l1 += (double)q1[c] * q1[c];
    }
    if (!(l0 > 0 && l1 > 0)) return 0.0;
    l0 = 1.0 / sqrt(l0);
    l1 = (d < 0 ? -1.0 : 1.0) / sqrt(l1);
    for (int c = 0; c < 4; c++) {
        double a = q0[c] * l0, b = q1[c] * l1;
        m += (a - b) * (a - b);
        p += (a + b) * (a + b);
    }
    return 4.0 * atan2(sqrt(m), sqrt(p));
}

/* The sorted distinct values of t[0..n) into t[0..m), returning m: what
 * sorting t with a stable sort (glibc's qsort: a merge sort) and keeping
 * the first of each run of equal values gives (of -0 and 0, the first in
 * t's order). t is taken as its ascending runs (key times track after
 * track), merged one after another into what the runs before gave, the
 * earlier value first on a tie. 0 (t unchanged: sort it) with a NaN, with
 * so many runs that merging them costs more than sorting, or without
 * memory. */
static inline size_t mr_clip_merge_times(float *t, size_t n)
{
    size_t runs = n > 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(t[i])) return 0;
        if (i > 0 && t[i] < t[i - 1]) runs++;
    }
    if (n == 0 || (double)runs * (double)n > 1e8) return 0;
    float *acc = malloc(n * sizeof *acc), *next = malloc(n * sizeof *next);
    if (!acc || !next) {
        free(acc);
        free(next);
        return 0;
    }
    size_t m = 0;
    for (size_t s = 0; s < n;) {
        size_t e = s + 1;
        while (e < n && !(t[e] < t[e - 1])) e++;
        size_t i = 0, j = s, k = 0;
        while (i < m || j < e) {
            float x = j >= e || (i < m && acc[i] <= t[j]) ? acc[i++] : t[j++];
            if (k == 0 || x != next[k - 1]) next[k++] = x;
        }
        float *swap = acc;
        acc = next;
        next = swap;
        m = k;
        s = e;
    }
    memcpy(t, acc, m * sizeof *t);
    free(acc);
    free(next);
    return m;
}

/* Ascending floats, for qsort. */
static inline int mr_clip_compare_floats(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* The sorted distinct values of t[0..n) (n >= 1) into t[0..m), returning
 * m: mr_clip_merge_times, else a stable sort keeping the first of each run
 * of equal values (the same result). */
static inline size_t mr_clip_distinct_times(float *t, size_t n)
{
    size_t m = mr_clip_merge_times(t, n);
    if (m) return m;
    qsort(t, n, sizeof *t, mr_clip_compare_floats);
    m = 1;
    for (size_t i = 1; i < n; i++)
        if (t[i] != t[m - 1]) t[m++] = t[i];
    return m;
}

#endif
