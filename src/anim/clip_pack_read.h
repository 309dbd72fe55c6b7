/* clip_pack_read.h — reading the packed clip's records (internal to
 * src/anim: clip_pack.c's sampler, builder and checks, and the playback
 * cursor, clip_cursor.c). The layout is in clip_pack.h. Everything here is
 * static inline arithmetic, so the builder judges keys with exactly the
 * operations the samplers use. */
#ifndef MR_ANIM_CLIP_PACK_READ_H
#define MR_ANIM_CLIP_PACK_READ_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "anim/clip_interp.h"
#include "anim/clip_pack.h"

static inline size_t pad4(size_t n)
{
    return (n + 3) & ~(size_t)3;
}

/* Bytes of a track record: header, point indices (count > 1), values. */
static inline size_t track_size(int count, int comps, int bits, int point_bytes)
{
    size_t n = 4;
    if (count > 1) n += point_bytes ? pad4((size_t)count * (size_t)point_bytes) : 4;   /* 0: dense */
    if (bits == 32) return n + (size_t)count * (size_t)comps * 4;
    return pad4(n + (size_t)comps * 6 + ((size_t)count * (size_t)comps * (size_t)bits + 7) / 8);
}

/* A quantisation step is stored as the high half of its float (bfloat16),
 * rounded up so that the levels still cover the track's range. */
static inline uint16_t step_to_half(float step)
{
    uint32_t u;
    memcpy(&u, &step, sizeof u);
    if (u & 0xffffu) u += 0x10000u;   /* positive: away from zero */
    return (uint16_t)(u >> 16);
}

static inline float step_of_half(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

typedef struct track_view {
    int count, comps, code, bits;
    int point_bytes;          /* of the point indices; 0: dense (key k at point first + k) */
    int first;                /* dense: the first key's point */
    const uint8_t *points;    /* count > 1, not dense: point_bytes each */
    const float *lo;          /* quantised: each component's lowest value */
    float step[4];            /* quantised: each component's step */
    const uint8_t *q;         /* quantised: the bit stream */
    const float *v;           /* float keys */
} track_view;

/* The record header: uint16 count, a byte of code (PACK_*) with 0x80 set
 * when four components are stored, a byte of bits. */
#define PACK_FOUR 0x80

static inline track_view view_of(const uint8_t *rec, int point_bytes)
{
    track_view t;
    t.count = *(const uint16_t *)rec;
    t.comps = rec[2] & PACK_FOUR ? 4 : 3;
    t.code = rec[2] & ~PACK_FOUR;
    t.bits = rec[3];
    t.point_bytes = t.code & PACK_DENSE ? 0 : point_bytes;
    t.first = 0;
    const uint8_t *p = rec + 4;
    t.points = p;
    if (t.count > 1 && !t.point_bytes) {
        uint16_t first;
        memcpy(&first, p, sizeof first);
        t.first = first;
        p += 4;
    } else if (t.count > 1) {
        p += pad4((size_t)t.count * (size_t)point_bytes);
    }
    if (t.bits == 32) {
        t.v = (const float *)p;
        t.lo = NULL;
        t.q = NULL;
    } else {
        t.lo = (const float *)p;
        const uint8_t *h = (const uint8_t *)(t.lo + t.comps);
        for (int e = 0; e < t.comps; e++) {
            uint16_t half;
            memcpy(&half, h + 2 * e, sizeof half);
            t.step[e] = step_of_half(half);
        }
        t.q = h + 2 * t.comps;
        t.v = NULL;
    }
    return t;
}

static inline int point_of(const track_view *t, int k)
{
    return t->point_bytes == 1 ? t->points[k] : t->point_bytes ? ((const uint16_t *)t->points)[k] : t->first + k;
}

/* Component e of quantised key k: bits <= 24, so one unaligned 32-bit
 * read holds it (the block ends with 4 bytes of slack). */
static inline uint32_t quantum(const track_view *t, int k, int e)
{
    size_t bit = ((size_t)k * (size_t)t->comps + (size_t)e) * (size_t)t->bits;
    uint32_t w;
    memcpy(&w, t->q + (bit >> 3), sizeof w);
    return (w >> (bit & 7)) & ((1u << t->bits) - 1u);
}

static inline float dequantise(float lo, float step, uint32_t q)
{
    return lo + (float)q * step;
}

/* The stored components s of a key (c of them) as the sampler plays them:
 * a rotation that stores three rebuilds component r (its sign positive). */
static inline void finish_key(const float *s, int c, int r, float *out)
{
    if (c == 4 || r >= PACK_NONE) {
        for (int e = 0; e < c; e++) out[e] = s[e];
        return;
    }
    float w2 = 1.0f - (s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    for (int e = 0, i = 0; e < 4; e++) out[e] = e == r ? (w2 > 0 ? sqrtf(w2) : 0.0f) : s[i++];
}

/* Key k of a track as the sampler plays it: 3 floats, or a unit-ish
 * quaternion (4) with the rebuilt component filled in. */
static inline void decode_key(const track_view *t, int k, float *out)
{
    float s[4];
    int c = t->comps;
    if (t->v) {
        for (int e = 0; e < c; e++) s[e] = t->v[(size_t)k * c + e];
    } else {
        for (int e = 0; e < c; e++) s[e] = dequantise(t->lo[e], t->step[e], quantum(t, k, e));
    }
    finish_key(s, c, t->code & PACK_REBUILT, out);
}

/* Interpolates decoded keys v0, v1 at a (rotation: shortest-path nlerp). */
static inline void interp_keys(const float *v0, const float *v1, int rotation, float a, float *out)
{
    if (rotation) {
        float d = v0[0] * v1[0] + v0[1] * v1[1] + v0[2] * v1[2] + v0[3] * v1[3];
        float b = d < 0 ? -a : a, a0 = 1.0f - a;
        for (int e = 0; e < 4; e++) out[e] = a0 * v0[e] + b * v1[e];
        mr_clip_normalize4(out);
    } else {
        for (int e = 0; e < 3; e++) out[e] = v0[e] + a * (v1[e] - v0[e]);
    }
}

/* ---- sampling ------------------------------------------------------------------------- */

/* The key interval of t in a track (0 <= k <= count - 2), from the hint. */
static inline int find_key(const track_view *tv, const float *times, float t, int hint)
{
    int n = tv->count;
    int k = hint;
    if (k < 0 || k > n - 2) k = 0;
    if (times[point_of(tv, k)] <= t) {
        if (k == n - 2 || t < times[point_of(tv, k + 1)]) return k;
        if (k + 2 > n - 2) return n - 2;
        if (t < times[point_of(tv, k + 2)]) return k + 1;
    } else if (k == 0) {
        return 0;
    }
    int lo = 0, hi = n - 1;   /* times[lo] <= t < times[hi], or t before the first key */
    while (hi - lo > 1) {
        int mid = (lo + hi) >> 1;
        if (times[point_of(tv, mid)] <= t) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* The fraction of interval [t0, t1] at t, clamped to 0..1: a product with
 * the reciprocal, as the cursor computes it from a stored reciprocal. */
static inline float pack_alpha(float t, float t0, float t1)
{
    float inv = 1.0f / (t1 - t0);
    float a = (t - t0) * inv;
    return a > 0 ? (a < 1 ? a : 1.0f) : 0.0f;
}

/* Is there a track for channel i (joint * 3 + channel)? */
static inline int has_track(const uint8_t *present, int i)
{
    return present[i >> 3] >> (i & 7) & 1;
}

#endif
