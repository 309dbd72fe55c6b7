/* clip.c — clip allocation, validation and sampling. */
#include "anim/clip.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "anim/clip_dense.h"
#include "anim/clip_optimize.h"
#include "anim/morph.h"
#include "core/alloc.h"
#include "core/str.h"

mr_status mr_clip_create(const char *name, int joint_count, mr_clip **out)
{
    *out = NULL;
    if (joint_count < 0 || joint_count > MR_MAX_JOINTS) return MR_ERR_INVALID_ARGUMENT;
    mr_clip *clip = calloc(1, sizeof *clip);
    if (!clip) return MR_ERR_NO_MEMORY;
    clip->name = mr_str_dup(name ? name : "clip");
    clip->tracks = mr_alloc_array((size_t)joint_count, sizeof *clip->tracks);
    if (!clip->name || !clip->tracks) {
        mr_clip_destroy(clip);
        return MR_ERR_NO_MEMORY;
    }
    clip->joint_count = joint_count;
    for (int j = 0; j < joint_count; j++) {
        clip->tracks[j].t.components = 3;
        clip->tracks[j].r.components = 4;
        clip->tracks[j].s.components = 3;
    }
    *out = clip;
    return MR_OK;
}

/* True when p lies in the clip's borrowed memory (clip.h): not to be freed. */
static int borrowed(const mr_clip *clip, const void *p)
{
    uintptr_t a = (uintptr_t)p, lo = (uintptr_t)clip->borrowed;
    return p && clip->borrowed && a >= lo && a - lo < clip->borrowed_size;
}

static void release(const mr_clip *clip, void *p)
{
    if (!borrowed(clip, p)) free(p);
}

static void track_release_in(const mr_clip *clip, mr_track *track)
{
    release(clip, track->times);
    release(clip, track->values);
    track->times = NULL;
    track->values = NULL;
    track->key_count = 0;
}

static void track_release(mr_track *track)
{
    free(track->times);
    free(track->values);
    track->times = NULL;
    track->values = NULL;
    track->key_count = 0;
}

static void free_fine(mr_clip *clip)
{
    if (clip->fine)
        for (int j = 0; j < clip->joint_count; j++) {
            track_release_in(clip, &clip->fine[j].t);
            track_release_in(clip, &clip->fine[j].r);
            track_release_in(clip, &clip->fine[j].s);
        }
    release(clip, clip->fine);
    clip->fine = NULL;
    clip->fine_added = 0;
    clip->fine_dropped = 0;
}

void mr_clip_destroy(mr_clip *clip)
{
    if (!clip) return;
    mr_morph_tracks_destroy(clip->morph);
    if (clip->tracks)
        for (int j = 0; j < clip->joint_count; j++) {
            track_release_in(clip, &clip->tracks[j].t);
            track_release_in(clip, &clip->tracks[j].r);
            track_release_in(clip, &clip->tracks[j].s);
        }
    for (int i = 0; i < clip->marker_count; i++) release(clip, clip->markers[i].name);
    release(clip, clip->markers);
    release(clip, clip->tracks);
    free_fine(clip);
    release(clip, clip->max_angle);
    release(clip, clip->max_move);
    if (!borrowed(clip, clip->dense)) mr_clip_dense_destroy(clip->dense);
    release(clip, clip->name);
    release(clip, clip);
}

mr_status mr_clip_add_marker(mr_clip *clip, float time, const char *name)
{
    if (!clip || !name || !name[0]) return MR_ERR_INVALID_ARGUMENT;
    if (!isfinite(time) || time < 0.0f || time > clip->duration) return MR_ERR_INVALID_ARGUMENT;
    if (clip->marker_count >= MR_MAX_MARKERS) return MR_ERR_LIMIT;
    char *copy = mr_str_dup(name);
    if (!copy) return MR_ERR_NO_MEMORY;
    mr_marker *grown = realloc(clip->markers, (size_t)(clip->marker_count + 1) * sizeof *grown);
    if (!grown) {
        free(copy);
        return MR_ERR_NO_MEMORY;
    }
    clip->markers = grown;
    int at = clip->marker_count;
    while (at > 0 && grown[at - 1].time > time) {
        grown[at] = grown[at - 1];
        at--;
    }
    grown[at].time = time;
    grown[at].name = copy;
    clip->marker_count++;
    return MR_OK;
}

mr_status mr_track_init(mr_track *track, int key_count, mr_interp interp)
{
    track_release(track);
    if (key_count < 0) return MR_ERR_INVALID_ARGUMENT;
    size_t per_key = (size_t)track->components * (interp == MR_INTERP_CUBIC ? 3 : 1);
    track->times = mr_alloc_array((size_t)key_count, sizeof *track->times);
    track->values = per_key && (size_t)key_count <= SIZE_MAX / per_key
                        ? mr_alloc_array((size_t)key_count * per_key, sizeof *track->values)
                        : NULL;
    if (!track->times || !track->values) {
        track_release(track);
        return MR_ERR_NO_MEMORY;
    }
    track->key_count = key_count;
    track->interp = interp;
    track->uniform_rate = 0.0f;
    return MR_OK;
}

void mr_track_finish(mr_track *track)
{
    track->uniform_rate = 0.0f;
    int n = track->key_count;
    if (n < 2) return;
    double span = (double)track->times[n - 1] - track->times[0];
    if (!(span > 0)) return;
    double step = span / (n - 1);
    for (int i = 1; i < n - 1; i++) {
        double expect = track->times[0] + step * i;
        if (fabs(track->times[i] - expect) > step * 1e-4) return;
    }
    /* A rate that is no float (keys closer than ~3e-39 s) leaves the track
     * to the binary search. */
    float rate = (float)(1.0 / step);
    if (isfinite(rate)) track->uniform_rate = rate;
}

static mr_status validate_track(const mr_clip *clip, int joint, const mr_track *track,
                                const char *what, mr_error *err)
{
    if (track->key_count == 0) return MR_OK;
    if (!track->times || !track->values)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "clip '%s': joint %d %s track has no data",
                            clip->name, joint, what);
    int stride = track->components * (track->interp == MR_INTERP_CUBIC ? 3 : 1);
    for (int i = 0; i < track->key_count; i++) {
        float t = track->times[i];
        if (!isfinite(t))
            return mr_error_set(err, MR_ERR_BAD_TIME, "clip '%s': joint %d %s key %d: time is not finite",
                                clip->name, joint, what, i);
        if (i > 0 && !(t > track->times[i - 1]))
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                "clip '%s': joint %d %s key %d: time %g does not follow %g",
                                clip->name, joint, what, i, t, track->times[i - 1]);
        if (i > 0 && (double)t - track->times[i - 1] < MR_CLIP_MIN_KEY_INTERVAL)
            return mr_error_set(err, MR_ERR_BAD_TIME,
                                "clip '%s': joint %d %s key %d: time %g is less than %g s after %g",
                                clip->name, joint, what, i, t, MR_CLIP_MIN_KEY_INTERVAL,
                                track->times[i - 1]);
        const float *v = track->values + (size_t)i * stride;
        for (int c = 0; c < stride; c++)
            if (!isfinite(v[c]))
                return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                    "clip '%s': joint %d %s key %d: value is not finite",
                                    clip->name, joint, what, i);
        if (track->components == 4) {
            const float *q = v + (track->interp == MR_INTERP_CUBIC ? 4 : 0);
            if (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] < 1e-12f)
                return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                    "clip '%s': joint %d rotation key %d is a zero quaternion",
                                    clip->name, joint, i);
        }
    }
    return MR_OK;
}

mr_status mr_clip_validate(const mr_clip *clip, mr_error *err)
{
    if (!clip) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "no clip");
    if (clip->joint_count <= 0 || !clip->tracks)
        return mr_error_set(err, MR_ERR_EMPTY_CLIP, "clip '%s' has no joints", clip->name);
    if (!isfinite(clip->duration) || clip->duration < 0)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "clip '%s': duration %g is not a time",
                            clip->name, clip->duration);
    for (int j = 0; j < clip->joint_count; j++) {
        const mr_joint_tracks *jt = &clip->tracks[j];
        mr_status st;
        if ((st = validate_track(clip, j, &jt->t, "translation", err)) != MR_OK) return st;
        if ((st = validate_track(clip, j, &jt->r, "rotation", err)) != MR_OK) return st;
        if ((st = validate_track(clip, j, &jt->s, "scale", err)) != MR_OK) return st;
    }
    if (clip->marker_count < 0 || (clip->marker_count > 0 && !clip->markers))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "clip '%s': marker list is missing",
                            clip->name);
    for (int i = 0; i < clip->marker_count; i++) {
        const mr_marker *m = &clip->markers[i];
        if (!m->name || !m->name[0])
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "clip '%s': marker %d has no name",
                                clip->name, i);
        if (!(m->time >= 0.0f && m->time <= clip->duration))
            return mr_error_set(err, MR_ERR_BAD_TIME,
                                "clip '%s': marker '%s' at %g is outside [0, %g]", clip->name,
                                m->name, m->time, clip->duration);
        if (i > 0 && m->time < clip->markers[i - 1].time)
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                "clip '%s': marker '%s' at %g is before the previous one",
                                clip->name, m->name, m->time);
    }
    return MR_OK;
}

float mr_clip_wrap_time(const mr_clip *clip, float time, mr_wrap wrap)
{
    float d = clip->duration;
    if (!(d > 0)) return 0.0f;
    if (wrap == MR_WRAP_LOOP) {
        float t = fmodf(time, d);
        if (t < 0) t += d;
        return t;
    }
    return time < 0 ? 0.0f : time > d ? d : time;
}

/* Index i of the key interval [times[i], times[i+1]] holding t (0 <= i <= n-2)
 * and the fraction through it (0..1); t outside the keys is clamped. rate > 0
 * says the keys are evenly spaced at that many per second (O(1) lookup).
 * Whatever the times and rate (infinite, NaN, keys closer than a float's
 * step), i stays in 0..n-2 and alpha in 0..1: the estimate from the rate is
 * clamped in float before it becomes an int. */
static inline int find_key_in(const float *times, int n, float rate, float t, float *alpha)
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

static inline int find_key(const mr_track *tr, float t, float *alpha)
{
    return find_key_in(tr->times, tr->key_count, tr->uniform_rate, t, alpha);
}

static inline void normalize4(float *q)
{
    float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    float inv = len2 > 0 ? 1.0f / sqrtf(len2) : 0.0f;
    if (inv == 0.0f) { q[0] = q[1] = q[2] = 0.0f; q[3] = 1.0f; return; }
    q[0] *= inv; q[1] *= inv; q[2] *= inv; q[3] *= inv;
}

/* Linear keys, the common case: translation/scale lerp, rotation
 * shortest-path nlerp. Small enough to inline into the sampling loops. */
static inline void lerp_key(const mr_track *tr, int i, float a, float *out)
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
        normalize4(out);
    } else {
        const float *v0 = tr->values + (size_t)i * 3, *v1 = v0 + 3;
        out[0] = v0[0] + a * (v1[0] - v0[0]);
        out[1] = v0[1] + a * (v1[1] - v0[1]);
        out[2] = v0[2] + a * (v1[2] - v0[2]);
    }
}

/* Interpolates key interval i at fraction a into out, any interpolation. */
static inline void interp_track(const mr_track *tr, int i, float a, float *out)
{
    int c = tr->components;
    if (tr->interp == MR_INTERP_LINEAR) {
        lerp_key(tr, i, a, out);
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
    if (c == 4) normalize4(out);
}

static inline void hold_first(const mr_track *tr, float *out)
{
    const float *v = tr->values + (tr->interp == MR_INTERP_CUBIC ? tr->components : 0);
    for (int k = 0; k < tr->components; k++) out[k] = v[k];
    if (tr->components == 4) normalize4(out);
}

/* The sampler's per-track step: nlerp for LINEAR rotations (the refinement
 * keeps it within the fidelity bound). */
static inline void track_sample_fast(const mr_track *tr, float t, float *out)
{
    if (tr->key_count == 1) {
        hold_first(tr, out);
        return;
    }
    float a;
    int i = find_key(tr, t, &a);
    interp_track(tr, i, a, out);
}

/* Slerp of unit-ish quaternions q0, q1 (shortest path) at u, in double. */
static void slerp_keys(const float *q0, const float *q1, double u, double *out)
{
    double a[4], b[4], la = 0, lb = 0, d = 0;
    for (int c = 0; c < 4; c++) {
        a[c] = q0[c];
        b[c] = q1[c];
        la += a[c] * a[c];
        lb += b[c] * b[c];
    }
    la = la > 0 ? 1.0 / sqrt(la) : 0.0;
    lb = lb > 0 ? 1.0 / sqrt(lb) : 0.0;
    for (int c = 0; c < 4; c++) {
        a[c] *= la;
        b[c] *= lb;
        d += a[c] * b[c];
    }
    if (d < 0) {
        d = -d;
        for (int c = 0; c < 4; c++) b[c] = -b[c];
    }
    double w0 = 1.0 - u, w1 = u;
    if (d < 1.0 - 1e-12) {
        double th = acos(d), s = sin(th);
        w0 = sin((1.0 - u) * th) / s;
        w1 = sin(u * th) / s;
    }
    double len = 0;
    for (int c = 0; c < 4; c++) {
        out[c] = w0 * a[c] + w1 * b[c];
        len += out[c] * out[c];
    }
    len = len > 0 ? 1.0 / sqrt(len) : 0.0;
    for (int c = 0; c < 4; c++) out[c] *= len;
}

void mr_track_sample(const mr_track *tr, float t, float *out)
{
    if (tr->key_count == 1) {
        hold_first(tr, out);
        return;
    }
    float a;
    int i = find_key(tr, t, &a);
    if (tr->interp == MR_INTERP_LINEAR && tr->components == 4 && a > 0.0f && a < 1.0f) {
        double q[4];
        slerp_keys(tr->values + (size_t)i * 4, tr->values + (size_t)(i + 1) * 4, a, q);
        for (int c = 0; c < 4; c++) out[c] = (float)q[c];
        return;
    }
    interp_track(tr, i, a, out);
}

/* ---- slerp fidelity (see clip.h) --------------------------------------------- */

/* nlerp's largest angle error over a key interval spanning angle A (radians,
 * A <= pi) stays below NLERP_ERROR * A^3 (0.00401 for small A, 0.00459 at pi). */
#define NLERP_ERROR 0.0047

/* Rotation angle (radians, 0..pi) between two key quaternions. */
static double key_angle(const float *q0, const float *q1)
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
    return 4.0 * atan2(sqrt(m), sqrt(p));   /* well conditioned for small angles */
}

/* Pieces an interval of rotation angle `angle` needs so that nlerp stays
 * within max_angle of slerp on each. */
static int pieces_for(double angle, double max_angle)
{
    if (!(max_angle > 0) || !(angle > 0)) return 1;
    double m = ceil(angle * cbrt(NLERP_ERROR / max_angle) - 1e-9);
    if (m < 1) return 1;
    return m > MR_CLIP_MAX_PIECES ? MR_CLIP_MAX_PIECES : (int)m;
}

static double joint_max_angle(const mr_clip *clip, int j)
{
    return clip->max_angle ? clip->max_angle[j] : MR_CLIP_DEFAULT_MAX_ANGLE;
}

/* The key times of a refinement: pieces[i] equal parts of each interval i
 * of times (n keys). Times that do not advance in float are dropped. Fills
 * seg/u per new key (u = 0 marks a source key); returns the count, or -1
 * without memory. */
static int split_times(const float *times, int n, const int *pieces, float **out_t, int **out_seg,
                       double **out_u)
{
    size_t total = 1;
    for (int i = 0; i + 1 < n; i++) total += (size_t)pieces[i];
    if (total > (size_t)INT_MAX) return -1;
    float *t = mr_alloc_array(total, sizeof *t);
    int *seg = mr_alloc_array(total, sizeof *seg);
    double *u = mr_alloc_array(total, sizeof *u);
    if (!t || !seg || !u) {
        free(t);
        free(seg);
        free(u);
        return -1;
    }
    int k = 0;
    for (int i = 0; i + 1 < n; i++)
        for (int p = 0; p < pieces[i]; p++) {
            double f = (double)p / pieces[i];
            float ti = p == 0 ? times[i] : (float)(times[i] + f * ((double)times[i + 1] - times[i]));
            if (k > 0 && !(ti > t[k - 1])) continue;
            if (p > 0 && !(ti < times[i + 1])) continue;
            t[k] = ti;
            seg[k] = i;
            u[k] = p == 0 ? 0.0 : ((double)ti - times[i]) / ((double)times[i + 1] - times[i]);
            k++;
        }
    t[k] = times[n - 1];
    seg[k] = n - 1;
    u[k] = 0.0;
    k++;
    *out_t = t;
    *out_seg = seg;
    *out_u = u;
    return k;
}

/* dst = src resampled at the refinement's keys (count keys: times, and the
 * source interval and fraction of each), exactly on src's curve: STEP holds,
 * LINEAR lerps translation and scale and slerps rotations. */
static mr_status resample_track(mr_track *dst, const mr_track *src, int count, const float *times,
                                const int *seg, const double *u)
{
    mr_track tmp = {.components = src->components};
    mr_status st = mr_track_init(&tmp, count, src->interp);
    if (st != MR_OK) return st;
    int c = src->components;
    memcpy(tmp.times, times, (size_t)count * sizeof *times);
    for (int k = 0; k < count; k++) {
        const float *v0 = src->values + (size_t)seg[k] * c;
        float *o = tmp.values + (size_t)k * c;
        if (u[k] == 0.0 || src->interp == MR_INTERP_STEP) {
            memcpy(o, v0, (size_t)c * sizeof *o);
        } else if (c == 4) {
            double q[4];
            slerp_keys(v0, v0 + 4, u[k], q);
            for (int e = 0; e < 4; e++) o[e] = (float)q[e];
        } else {
            for (int e = 0; e < c; e++) o[e] = (float)(v0[e] + u[k] * ((double)v0[c + e] - v0[e]));
        }
    }
    mr_track_finish(&tmp);
    *dst = tmp;
    return MR_OK;
}

/* Refinement of a clip whose animated tracks share times (n keys) and are
 * all LINEAR or STEP: every track is split at the same times, so the shared
 * time line (and the SIMD bake) survive. Returns 1 when refined, 0 when no
 * interval needs it, -1 without memory. */
static int refine_shared(mr_clip *clip, const float *times, int n)
{
    int *pieces = mr_alloc_array((size_t)n, sizeof *pieces);
    if (!pieces) return -1;
    int any = 0;
    for (int i = 0; i + 1 < n; i++) {
        pieces[i] = 1;
        for (int j = 0; j < clip->joint_count; j++) {
            const mr_track *r = &clip->tracks[j].r;
            if (r->key_count < 2 || r->interp != MR_INTERP_LINEAR) continue;
            int p = pieces_for(key_angle(r->values + (size_t)i * 4, r->values + (size_t)(i + 1) * 4),
                               joint_max_angle(clip, j));
            if (p > pieces[i]) pieces[i] = p;
        }
        any |= pieces[i] > 1;
    }
    if (!any) {
        free(pieces);
        return 0;
    }
    float *t;
    int *seg;
    double *u;
    int count = split_times(times, n, pieces, &t, &seg, &u);
    free(pieces);
    if (count < 0) return -1;
    int ok = count > n;
    if (ok) clip->fine = mr_alloc_array((size_t)clip->joint_count, sizeof *clip->fine);
    if (ok && !clip->fine) ok = -1;
    for (int j = 0; ok > 0 && j < clip->joint_count; j++) {
        mr_track *src[3] = {&clip->tracks[j].t, &clip->tracks[j].r, &clip->tracks[j].s};
        mr_track *dst[3] = {&clip->fine[j].t, &clip->fine[j].r, &clip->fine[j].s};
        for (int k = 0; k < 3 && ok > 0; k++) {
            dst[k]->components = src[k]->components;
            if (src[k]->key_count < 2) continue;
            if (resample_track(dst[k], src[k], count, t, seg, u) != MR_OK) ok = -1;
            else clip->fine_added += count - n;
        }
    }
    free(t);
    free(seg);
    free(u);
    return ok;
}

/* Refinement of each LINEAR rotation track on its own key times (clips
 * without a shared all-linear time line). */
static int refine_tracks(mr_clip *clip)
{
    for (int j = 0; j < clip->joint_count; j++) {
        const mr_track *r = &clip->tracks[j].r;
        if (r->key_count < 2 || r->interp != MR_INTERP_LINEAR) continue;
        int n = r->key_count, any = 0;
        int *pieces = mr_alloc_array((size_t)n, sizeof *pieces);
        if (!pieces) return -1;
        for (int i = 0; i + 1 < n; i++) {
            pieces[i] = pieces_for(key_angle(r->values + (size_t)i * 4, r->values + (size_t)(i + 1) * 4),
                                   joint_max_angle(clip, j));
            any |= pieces[i] > 1;
        }
        float *t = NULL;
        int *seg = NULL;
        double *u = NULL;
        int count = any ? split_times(r->times, n, pieces, &t, &seg, &u) : n;
        free(pieces);
        if (count < 0) return -1;
        if (count > n) {
            if (!clip->fine) {
                clip->fine = mr_alloc_array((size_t)clip->joint_count, sizeof *clip->fine);
                if (!clip->fine) count = -1;
                for (int k = 0; clip->fine && k < clip->joint_count; k++) {
                    clip->fine[k].t.components = 3;
                    clip->fine[k].r.components = 4;
                    clip->fine[k].s.components = 3;
                }
            }
            if (count > 0 && resample_track(&clip->fine[j].r, r, count, t, seg, u) != MR_OK) count = -1;
            if (count > 0) clip->fine_added += count - n;
        }
        free(t);
        free(seg);
        free(u);
        if (count < 0) return -1;
    }
    return 0;
}

const mr_track *mr_clip_track(const mr_clip *clip, int joint, int channel)
{
    const mr_joint_tracks *f = clip->fine ? &clip->fine[joint] : NULL;
    const mr_joint_tracks *jt = &clip->tracks[joint];
    if (channel == 0) return f && f->t.key_count ? &f->t : &jt->t;
    if (channel == 1) return f && f->r.key_count ? &f->r : &jt->r;
    return f && f->s.key_count ? &f->s : &jt->s;
}

mr_status mr_clip_set_max_angle(mr_clip *clip, const float *max_angle)
{
    if (!clip) return MR_ERR_INVALID_ARGUMENT;
    if (!max_angle) {
        free(clip->max_angle);
        clip->max_angle = NULL;
        return MR_OK;
    }
    for (int j = 0; j < clip->joint_count; j++)
        if (!(max_angle[j] > 0)) return MR_ERR_INVALID_ARGUMENT;
    float *copy = mr_alloc_array((size_t)clip->joint_count, sizeof *copy);
    if (!copy) return MR_ERR_NO_MEMORY;
    memcpy(copy, max_angle, (size_t)clip->joint_count * sizeof *copy);
    free(clip->max_angle);
    clip->max_angle = copy;
    return MR_OK;
}

/* The time line shared by every sampled track with more than one key, or NULL. */
static const mr_track *shared_line(const mr_clip *clip, int *all_linear)
{
    const mr_track *ref = NULL;
    *all_linear = 1;
    for (int j = 0; j < clip->joint_count; j++)
        for (int k = 0; k < 3; k++) {
            const mr_track *tr = mr_clip_track(clip, j, k);
            if (tr->key_count <= 1) continue;
            if (tr->interp == MR_INTERP_CUBIC) *all_linear = 0;
            if (!ref) {
                ref = tr;
                continue;
            }
            if (tr->key_count != ref->key_count ||
                memcmp(tr->times, ref->times, (size_t)tr->key_count * sizeof *tr->times) != 0)
                return NULL;
        }
    return ref;
}

void mr_clip_finish(mr_clip *clip)
{
    clip->shared_keys = 0;
    if (!borrowed(clip, clip->dense)) mr_clip_dense_destroy(clip->dense);
    clip->dense = NULL;
    clip->shared_times = NULL;
    clip->shared_rate = 0.0f;
    free_fine(clip);
    for (int j = 0; j < clip->joint_count; j++) {
        mr_track_finish(&clip->tracks[j].t);
        mr_track_finish(&clip->tracks[j].r);
        mr_track_finish(&clip->tracks[j].s);
    }
    /* Refine where nlerp would leave slerp (the rule is in clip.h). Without
     * memory the clip samples unrefined. */
    int linear;
    const mr_track *ref = shared_line(clip, &linear);
    int done = ref && linear ? refine_shared(clip, ref->times, ref->key_count) : 0;
    if (done == 0 && !(ref && linear)) done = refine_tracks(clip);
    if (done < 0) free_fine(clip);
    /* Thin what interpolation reproduces (clip_optimize.h); without memory
     * the clip may stay partly thinned, each track still a valid one. */
    mr_clip_thin(clip, NULL);
    ref = shared_line(clip, &linear);
    if (!ref) return;
    clip->shared_keys = ref->key_count;
    clip->shared_times = ref->times;
    clip->shared_rate = ref->uniform_rate;
    clip->dense = mr_clip_dense_build(clip);
}

mr_status mr_clip_sample(const mr_clip *clip, const mr_skeleton *sk, float time, mr_wrap wrap,
                         mr_pose *pose)
{
    if (!clip || !sk || !pose) return MR_ERR_INVALID_ARGUMENT;
    if (!isfinite(time)) return MR_ERR_BAD_TIME;
    if (clip->joint_count <= 0 || !clip->tracks) return MR_ERR_EMPTY_CLIP;
    if (clip->joint_count != sk->joint_count || pose->joint_count != sk->joint_count)
        return MR_ERR_JOINT_COUNT;
    float t = mr_clip_wrap_time(clip, time, wrap);
    int n = sk->joint_count;
    if (clip->shared_keys > 1) {
        /* Every animated track shares one time line (every MD5 clip, most
         * baked exports): find the key once. */
        float a;
        int i = find_key_in(clip->shared_times, clip->shared_keys, clip->shared_rate, t, &a);
        if (clip->dense) {
            mr_clip_dense_sample(clip->dense, sk, i, a, pose);
            return MR_OK;
        }
        for (int j = 0; j < n; j++) {
            const mr_track *tt = mr_clip_track(clip, j, 0), *tr = mr_clip_track(clip, j, 1),
                           *ts = mr_clip_track(clip, j, 2);
            if (tt->key_count > 1) interp_track(tt, i, a, pose->t[j]);
            else if (tt->key_count) hold_first(tt, pose->t[j]);
            else glm_vec3_copy(sk->rest_t[j], pose->t[j]);
            if (tr->key_count > 1) interp_track(tr, i, a, pose->r[j]);
            else if (tr->key_count) hold_first(tr, pose->r[j]);
            else glm_vec4_copy(sk->rest_r[j], pose->r[j]);
            if (ts->key_count > 1) interp_track(ts, i, a, pose->s[j]);
            else if (ts->key_count) hold_first(ts, pose->s[j]);
            else glm_vec3_copy(sk->rest_s[j], pose->s[j]);
        }
        return MR_OK;
    }
    for (int j = 0; j < n; j++) {
        const mr_track *tt = mr_clip_track(clip, j, 0), *tr = mr_clip_track(clip, j, 1),
                       *ts = mr_clip_track(clip, j, 2);
        if (tt->key_count) track_sample_fast(tt, t, pose->t[j]);
        else glm_vec3_copy(sk->rest_t[j], pose->t[j]);
        if (tr->key_count) track_sample_fast(tr, t, pose->r[j]);
        else glm_vec4_copy(sk->rest_r[j], pose->r[j]);
        if (ts->key_count) track_sample_fast(ts, t, pose->s[j]);
        else glm_vec3_copy(sk->rest_s[j], pose->s[j]);
    }
    return MR_OK;
}

int mr_clip_key_count(const mr_clip *clip)
{
    int n = 0;
    for (int j = 0; j < clip->joint_count; j++) {
        const mr_joint_tracks *jt = &clip->tracks[j];
        if (jt->t.key_count > n) n = jt->t.key_count;
        if (jt->r.key_count > n) n = jt->r.key_count;
        if (jt->s.key_count > n) n = jt->s.key_count;
    }
    return n;
}
