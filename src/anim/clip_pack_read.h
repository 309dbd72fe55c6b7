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

/* Bytes of a record's key times (count > 1): a uniform track's first
 * time and spacing (float, double), a dense track's first point (uint16 and
 * 2 bytes pad), a bitmap track's first point and word count (uint16 each)
 * and its `words` 32-bit words, else a point index per key (point_bytes
 * each), padded. */
static inline size_t index_size(int count, int code, int point_bytes, int words)
{
    if (count <= 1) return 0;
    if (code & PACK_UNIFORM) return 12;
    if (code & PACK_DENSE) return 4;
    if (code & PACK_BITMAP) return 4 + 4 * (size_t)words;
    return pad4((size_t)count * (size_t)point_bytes);
}

/* Keys per segment of a segmented track (bits 0): each segment has its
 * own range and width, as ACL's 16-key segments do. */
#define PACK_SEGMENT_KEYS 16

static inline int segment_count(int count)
{
    return (count + PACK_SEGMENT_KEYS - 1) / PACK_SEGMENT_KEYS;
}

/* Every PACK_SKIP_SEGMENTS segments, a segmented track gives where the
 * next one's keys start in its stream (a uint32 of bits), so that a key
 * is found without walking every segment before it. */
#define PACK_SKIP_SEGMENTS 16

static inline size_t skip_count(int count)
{
    int segs = segment_count(count);
    return segs > 0 ? (size_t)(segs - 1) / PACK_SKIP_SEGMENTS : 0;
}

/* Bytes of a segmented track's values before its stream: lo and range per
 * stored component, the stream's bytes, the skips (skip_count uint32: the
 * bit where segment PACK_SKIP_SEGMENTS * (i + 1) starts), each segment's
 * byte of widths (segment_widths_of), with `each` (PACK_EACH) each
 * segment's rebuilt component (a byte), then each segment's min and extent
 * per stored component, padded. */
static inline size_t segment_head_size(int count, int comps, int each)
{
    size_t segs = (size_t)segment_count(count);
    return pad4((size_t)comps * 8 + 4 + 4 * skip_count(count) + segs + segs * (size_t)comps * 2 + (each ? segs : 0));
}

/* A segment's byte of widths: the widest component's width (the low 5
 * bits, 0..24), and for each of the first three components a bit (5 + s)
 * set when it takes one bit fewer than its extent gives it. */
#define SEG_WIDTH_MASK 31u
#define SEG_FEWER_SHIFT 5

/* The exponent field of each component's range (its float's bits 23-30),
 * -1 where the range is not positive and finite: the scale that a
 * segment's extents (255ths of it) are measured in for its widths. */
static inline void range_exponents(const float *range, int c, int *rexp)
{
    for (int s = 0; s < c; s++) {
        uint32_t u;
        memcpy(&u, &range[s], sizeof u);
        int e = (int)(u >> 23 & 0xffu);
        rexp[s] = range[s] > 0 && e < 0xff ? e : -1;
    }
}

/* The widths w of a segment's c components from its byte of widths, its
 * extents sr (min and extent bytes per component) and the exponents of the
 * track's ranges (range_exponents): each component one bit fewer than the
 * widest for each bit its extent's size (the range's exponent plus the
 * bits of extent + 1) falls short of the largest of the segment, and one
 * fewer again where its bit is set; 0 without range. Integers only (the
 * samplers compute it at every segment they pass). Returns the bits of one
 * key (their sum). The builder chooses widths through it. */
static inline int segment_widths_of(uint8_t code, const uint8_t *sr, int c, const int *rexp, int *w)
{
    int widest = (int)(code & SEG_WIDTH_MASK), sum = 0, size[4], top = 0;
    for (int s = 0; s < c; s++) {
        size[s] = rexp[s] < 0 ? -1 : rexp[s] + 32 - __builtin_clz((unsigned)sr[2 * s + 1] + 1u);
        if (size[s] > top) top = size[s];
    }
    for (int s = 0; s < c; s++) {
        int fewer = size[s] < 0 ? 24 : top - size[s] > 24 ? 24 : top - size[s];
        if (s < 3 && code >> (SEG_FEWER_SHIFT + s) & 1u) fewer++;
        w[s] = widest > fewer ? widest - fewer : 0;
        sum += w[s];
    }
    return sum;
}

/* Bytes of a track record: header, key times (index_size), values: float
 * keys (bits 32), quantised at one width (1-24: lo and step per component,
 * the stream), or segmented (0: segment_head_size, then `stream` bytes). */
static inline size_t track_size(int count, int comps, int bits, size_t index, size_t stream, int each)
{
    size_t n = 4 + index;
    if (bits == 32) return n + (size_t)count * (size_t)comps * 4;
    if (bits == 0) return pad4(n + segment_head_size(count, comps, each) + stream);
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
    int point_bytes;          /* of the point indices; 0: dense (key k at point first + k), */
                              /* uniform or bitmap */
    int first;                /* dense, bitmap: the first key's point */
    int words;                /* bitmap: bit b of word b / 32 set when point first + b holds a key */
    const uint32_t *bitmap;
    float t0;                 /* uniform: key k at (float)(t0 + k * dt), in double */
    double dt;
    size_t size;              /* of the whole record */
    const uint8_t *points;    /* count > 1, not dense: point_bytes each */
    const float *lo;          /* quantised: each component's lowest value */
    float step[4];            /* quantised: each component's step */
    const uint8_t *q;         /* quantised: the bit stream */
    const float *v;           /* float keys */
    const float *range;       /* segmented: each component's range (its lo in lo), */
    int rexp[4];              /* and its exponent (range_exponents) */
    const uint8_t *seg_bits;  /* segmented: each segment's byte of widths (segment_widths_of), */
    const uint8_t *seg_range; /* and per component its min and extent, in 255ths of the range */
    const uint8_t *seg_rebuilt;  /* PACK_EACH: each segment's rebuilt component, else NULL */
    const uint8_t *skips;     /* segmented: skip_count uint32 (unaligned reads) */
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
    t.point_bytes = t.code & (PACK_DENSE | PACK_UNIFORM | PACK_BITMAP) ? 0 : point_bytes;
    t.first = t.words = 0;
    t.bitmap = NULL;
    t.t0 = 0.0f;
    t.dt = 0.0;
    const uint8_t *p = rec + 4;
    t.points = p;
    if (t.count > 1 && t.code & PACK_UNIFORM) {
        memcpy(&t.t0, p, sizeof t.t0);
        memcpy(&t.dt, p + 4, sizeof t.dt);
    } else if (t.count > 1 && t.code & (PACK_DENSE | PACK_BITMAP)) {
        uint16_t first, words;
        memcpy(&first, p, sizeof first);
        memcpy(&words, p + 2, sizeof words);
        t.first = first;
        if (t.code & PACK_BITMAP) {
            t.words = words;
            t.bitmap = (const uint32_t *)(p + 4);
        }
    }
    size_t index = index_size(t.count, t.code, point_bytes, t.words);
    p += index;
    t.range = NULL;
    t.seg_bits = t.seg_range = t.seg_rebuilt = t.skips = NULL;
    int each = (t.code & PACK_REBUILT) == PACK_EACH;
    uint32_t stream = 0;
    if (t.bits == 32) {
        t.v = (const float *)p;
        t.lo = NULL;
        t.q = NULL;
    } else if (t.bits == 0) {
        t.lo = (const float *)p;
        t.range = t.lo + t.comps;
        range_exponents(t.range, t.comps, t.rexp);
        memcpy(&stream, t.range + t.comps, sizeof stream);
        t.skips = p + (size_t)t.comps * 8 + 4;
        t.seg_bits = t.skips + 4 * skip_count(t.count);
        t.seg_range = t.seg_bits + (size_t)segment_count(t.count);
        if (each) {
            t.seg_rebuilt = t.seg_range;
            t.seg_range += segment_count(t.count);
        }
        t.q = p + segment_head_size(t.count, t.comps, each);
        t.v = NULL;
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
    t.size = track_size(t.count, t.comps, t.bits, index, stream, each);
    return t;
}

/* The point of key k (indexed and dense tracks). */
static inline int point_of(const track_view *t, int k)
{
    return t->point_bytes == 1 ? t->points[k] : t->point_bytes ? ((const uint16_t *)t->points)[k] : t->first + k;
}

/* Bitmap tracks: the first set bit after b (there is one: b is before the
 * last key's), the last set bit at or before b (bit 0 is set), and the set
 * bits up to b included. */
static inline int bit_next(const track_view *t, int b)
{
    int w = (b + 1) >> 5;
    uint32_t m = (b + 1) & 31 ? t->bitmap[w] & ~((1u << ((b + 1) & 31)) - 1u) : t->bitmap[w];
    while (!m) m = t->bitmap[++w];
    return w * 32 + __builtin_ctz(m);
}

static inline int bit_prev(const track_view *t, int b)
{
    int w = b >> 5;
    uint32_t m = (b & 31) == 31 ? t->bitmap[w] : t->bitmap[w] & ((2u << (b & 31)) - 1u);
    while (!m) m = t->bitmap[--w];
    return w * 32 + 31 - __builtin_clz(m);
}

/* The bits set in x, as sums of bit fields: without -mpopcnt (the
 * project builds for any x86-64) __builtin_popcount is a call into libgcc,
 * which was 4% of a mixamo.fbx load's packing. */
static inline int popcount64(uint64_t x)
{
    x -= (x >> 1) & 0x5555555555555555ull;
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (int)((x * 0x0101010101010101ull) >> 56);
}

/* The bits set in bitmap words 0 .. n - 1, two words at a time. */
static inline int popcount_words(const uint32_t *bitmap, int n)
{
    int c = 0, i = 0;
    for (; i + 1 < n; i += 2) c += popcount64(bitmap[i] | (uint64_t)bitmap[i + 1] << 32);
    return i < n ? c + popcount64(bitmap[i]) : c;
}

static inline int bit_rank(const track_view *t, int b)
{
    int w = b >> 5;
    return popcount_words(t->bitmap, w) +
           popcount64((b & 31) == 31 ? t->bitmap[w] : t->bitmap[w] & ((2u << (b & 31)) - 1u));
}

/* The time of key k (not for bitmap tracks: see key_at): from the pack's
 * time points, or a uniform track's formula (the builder keeps it only
 * where it gives the source times). */
static inline float key_time(const track_view *t, const float *times, int k)
{
    if (t->code & PACK_UNIFORM) return (float)((double)t->t0 + (double)k * t->dt);
    return times[point_of(t, k)];
}

/* The `bits` bits at bit `at` of stream q: bits <= 24, so one unaligned
 * 32-bit read holds them (the block ends with 4 bytes of slack). */
static inline uint32_t bits_at(const uint8_t *q, size_t at, int bits)
{
    uint32_t w;
    memcpy(&w, q + (at >> 3), sizeof w);
    return (w >> (at & 7)) & ((1u << bits) - 1u);
}

/* Component e of quantised key k (one width). */
static inline uint32_t quantum(const track_view *t, int k, int e)
{
    return bits_at(t->q, ((size_t)k * (size_t)t->comps + (size_t)e) * (size_t)t->bits, t->bits);
}

/* A segmented track's component value: the segment's min (a 255ths of
 * the range above lo) plus q steps of its extent ((ext + 1) 255ths) cut
 * into 2^bits - 1. segment_scale gives the base and the step, and
 * segment_value_at a value from them: the builder and the samplers all
 * compute values here. */
static inline void segment_scale(float lo, float range, int min, int ext, int bits, float *base, float *step)
{
    static const float inv_levels[25] = {   /* 1 / (2^bits - 1), as floats: a product, not a division */
        0.0f, 1.0f / 1, 1.0f / 3, 1.0f / 7, 1.0f / 15, 1.0f / 31, 1.0f / 63, 1.0f / 127, 1.0f / 255,
        1.0f / 511, 1.0f / 1023, 1.0f / 2047, 1.0f / 4095, 1.0f / 8191, 1.0f / 16383, 1.0f / 32767,
        1.0f / 65535, 1.0f / 131071, 1.0f / 262143, 1.0f / 524287, 1.0f / 1048575, 1.0f / 2097151,
        1.0f / 4194303, 1.0f / 8388607, 1.0f / 16777215};
    float unit = range * (1.0f / 255.0f);
    *base = lo + (float)min * unit;
    *step = (float)(ext + 1) * unit * inv_levels[bits];
}

static inline float segment_value_at(float base, float step, int bits, uint32_t q)
{
    return bits ? base + (float)q * step : base;
}

/* Where a segment's keys start in a segmented track's stream, found from
 * the segment before (playing on) or from the first, and the segment's
 * per component width, base and step (segment_scale) and bits a key once
 * it has been entered (scaled: the segment they are for, -1: none yet). */
typedef struct seg_pos {
    int seg;
    uint32_t bit;
    int scaled, key_bits;
    int rebuilt;              /* the component its keys rebuild (PACK_NONE: none) */
    int bits[4];
    float base[4], step[4];
} seg_pos;

#define SEG_POS_START {0, 0, -1, 0, PACK_NONE, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}

/* Bits of one key of segment seg, and its widths in w. */
static inline uint32_t segment_key_bits(const track_view *t, int seg, int *w)
{
    return (uint32_t)segment_widths_of(t->seg_bits[seg], t->seg_range + (size_t)seg * (size_t)t->comps * 2, t->comps,
                                       t->rexp, w);
}

static inline int segment_keys(const track_view *t, int seg)
{
    int left = t->count - seg * PACK_SEGMENT_KEYS;
    return left < PACK_SEGMENT_KEYS ? left : PACK_SEGMENT_KEYS;
}

static inline void segment_seek(const track_view *t, int seg, seg_pos *pos)
{
    if (seg < pos->seg || seg - pos->seg > PACK_SKIP_SEGMENTS) {   /* from the skip before seg */
        int g = seg / PACK_SKIP_SEGMENTS;
        pos->seg = g * PACK_SKIP_SEGMENTS;
        pos->bit = 0;
        if (g > 0) memcpy(&pos->bit, t->skips + 4 * (size_t)(g - 1), sizeof pos->bit);
    }
    for (int w[4]; pos->seg < seg; pos->seg++)
        pos->bit += (uint32_t)segment_keys(t, pos->seg) * segment_key_bits(t, pos->seg, w);
    if (pos->scaled != seg) {
        const uint8_t *r = t->seg_range + (size_t)seg * (size_t)t->comps * 2;
        pos->key_bits = (int)segment_key_bits(t, seg, pos->bits);
        pos->rebuilt = t->seg_rebuilt ? t->seg_rebuilt[seg] : t->code & PACK_REBUILT;
        for (int e = 0; e < t->comps; e++)
            segment_scale(t->lo[e], t->range[e], r[2 * e], r[2 * e + 1], pos->bits[e], &pos->base[e], &pos->step[e]);
        pos->scaled = seg;
    }
}

static inline float dequantise(float lo, float step, uint32_t q)
{
    return lo + (float)q * step;
}

/* The stored components s0..s3 of a key (c of them) as the sampler plays
 * them: a rotation that stores three rebuilds component r (its sign
 * positive). Scalars, not an array: a key's components come from separate
 * stores, and GCC's vectoriser read them back two at a time, a failed
 * store forward on every key. */
static inline __attribute__((always_inline)) void finish_key_of(float s0, float s1, float s2, float s3, int c, int r,
                                                                float *out)
{
    if (c == 4 || r >= PACK_NONE) {
        out[0] = s0;
        out[1] = s1;
        out[2] = s2;
        if (c == 4) out[3] = s3;
        return;
    }
    float w2 = 1.0f - (s0 * s0 + s1 * s1 + s2 * s2);
    float w = sqrtf(w2 > 0 ? w2 : 0.0f);   /* branch-free: r differs from track to track */
    out[0] = r == 0 ? w : s0;              /* components before r are s[e], after it s[e - 1] */
    out[1] = r == 1 ? w : r > 1 ? s1 : s0;
    out[2] = r == 2 ? w : r > 2 ? s2 : s1;
    out[3] = r == 3 ? w : s2;
}

static inline void finish_key(const float *s, int c, int r, float *out)
{
    finish_key_of(s[0], s[1], s[2], c == 4 ? s[3] : 0.0f, c, r, out);
}

/* Key k of a track as the sampler plays it: 3 floats, or a unit-ish
 * quaternion (4) with the rebuilt component filled in. pos: where a
 * segmented track's last segment started (a cursor's), moved to k's. */
static inline void decode_key_from(const track_view *t, int k, seg_pos *pos, float *out)
{
    float s[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    int c = t->comps;
    if (t->v) {
        for (int e = 0; e < c; e++) s[e] = t->v[(size_t)k * c + e];
    } else if (t->seg_bits) {
        int seg = k / PACK_SEGMENT_KEYS;
        segment_seek(t, seg, pos);
        size_t at = pos->bit + (size_t)(k - seg * PACK_SEGMENT_KEYS) * (size_t)pos->key_bits;
        for (int e = 0; e < c; e++) {
            int bits = pos->bits[e];
            s[e] = segment_value_at(pos->base[e], pos->step[e], bits, bits ? bits_at(t->q, at, bits) : 0);
            at += (size_t)bits;
        }
    } else {
        for (int e = 0; e < c; e++) s[e] = dequantise(t->lo[e], t->step[e], quantum(t, k, e));
    }
    finish_key(s, c, t->seg_bits ? pos->rebuilt : t->code & PACK_REBUILT, out);
}

/* Keys k .. k + n - 1 of a segmented track with c stored components, each
 * as decode_key_from gives it, 4 floats apart in out: each segment's
 * widths, bases and steps are found once for its keys. A component of no
 * bits takes its base: base + 0 * -0.0 is base, its sign included. */
static inline __attribute__((always_inline)) void decode_run_c(const track_view *t, int k, int n, seg_pos *pos,
                                                               float *out, const int c)
{
    for (int i = 0; i < n;) {
        int seg = (k + i) / PACK_SEGMENT_KEYS;
        segment_seek(t, seg, pos);
        int end = (seg + 1) * PACK_SEGMENT_KEYS - k, r = pos->rebuilt;
        if (end > n) end = n;
        /* each component's mask, bit offset in a key, base and step (a
         * component of no bits: step -0.0), in scalars: arrays written
         * element by element and read two at a time stall the loads */
        const int *bits = pos->bits;
        uint32_t m0 = (1u << bits[0]) - 1u, m1 = (1u << bits[1]) - 1u, m2 = (1u << bits[2]) - 1u;
        uint32_t m3 = c == 4 ? (1u << bits[3]) - 1u : 0u;
        uint32_t o1 = (uint32_t)bits[0], o2 = o1 + (uint32_t)bits[1], o3 = o2 + (uint32_t)bits[2];
        float b0 = pos->base[0], b1 = pos->base[1], b2 = pos->base[2], b3 = c == 4 ? pos->base[3] : 0.0f;
        float d0 = bits[0] ? pos->step[0] : -0.0f, d1 = bits[1] ? pos->step[1] : -0.0f;
        float d2 = bits[2] ? pos->step[2] : -0.0f, d3 = c == 4 && bits[3] ? pos->step[3] : -0.0f;
        size_t at = pos->bit + (size_t)(k + i - seg * PACK_SEGMENT_KEYS) * (size_t)pos->key_bits;
#define MR_COMPONENT(o, m, b, d) \
    (memcpy(&w, t->q + ((at + (o)) >> 3), sizeof w), (b) + (float)((w >> ((at + (o)) & 7)) & (m)) * (d))
        for (; i < end; i++, at += (size_t)pos->key_bits) {
            uint32_t w;
            float s0 = MR_COMPONENT(0, m0, b0, d0), s1 = MR_COMPONENT(o1, m1, b1, d1);
            float s2 = MR_COMPONENT(o2, m2, b2, d2), s3 = c == 4 ? MR_COMPONENT(o3, m3, b3, d3) : 0.0f;
            finish_key_of(s0, s1, s2, s3, c, r, out + 4 * (size_t)i);
        }
#undef MR_COMPONENT
    }
}

/* Keys k .. k + n - 1 of any track, 4 floats apart in out. */
static inline void decode_run(const track_view *t, int k, int n, seg_pos *pos, float *out)
{
    if (t->seg_bits && t->comps == 3) decode_run_c(t, k, n, pos, out, 3);
    else if (t->seg_bits) decode_run_c(t, k, n, pos, out, 4);
    else
        for (int i = 0; i < n; i++) decode_key_from(t, k + i, pos, out + 4 * (size_t)i);
}

static inline void decode_key(const track_view *t, int k, float *out)
{
    seg_pos pos = SEG_POS_START;
    decode_key_from(t, k, &pos, out);
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

/* A key interval: key k (0 <= k <= count - 2), from time t0 to t1; for
 * bitmap tracks, key k's bit. */
typedef struct key_at {
    int k, bit;
    float t0, t1;
} key_at;

static inline __attribute__((always_inline)) key_at key_interval(const track_view *tv, const float *times, int k, int bit)
{
    key_at r = {k, bit, 0.0f, 0.0f};
    if (tv->bitmap) {
        r.t0 = times[tv->first + bit];
        r.t1 = times[tv->first + bit_next(tv, bit)];
    } else {
        r.t0 = key_time(tv, times, k);
        r.t1 = key_time(tv, times, k + 1);
    }
    return r;
}

/* Bitmap tracks: the interval of t, searching the points the keys span. */
static inline key_at find_in_bitmap(const track_view *tv, const float *times, float t)
{
    int n = tv->count, last = bit_prev(tv, tv->words * 32 - 1), bit;
    if (!(t >= times[tv->first])) return key_interval(tv, times, 0, 0);
    if (t >= times[tv->first + last]) {
        bit = bit_prev(tv, last - 1);
        return key_interval(tv, times, n - 2, bit);
    }
    int lo = 0, hi = last;   /* times[first + lo] <= t < times[first + hi] */
    while (hi - lo > 1) {
        int mid = (lo + hi) >> 1;
        if (times[tv->first + mid] <= t) lo = mid;
        else hi = mid;
    }
    bit = bit_prev(tv, lo);
    return key_interval(tv, times, bit_rank(tv, bit) - 1, bit);
}

/* The key interval of t in a track, trying the interval of `hint` and the
 * one after it first (a cursor's last key; {0, 0}: none). */
static inline key_at find_key(const track_view *tv, const float *times, float t, key_at hint)
{
    int n = tv->count;
    int k = hint.k, bit = hint.bit;
    if (k < 0 || k > n - 2) k = bit = 0;
    key_at at = key_interval(tv, times, k, bit);
    if (at.t0 <= t) {
        if (k == n - 2 || t < at.t1) return at;
        key_at next = key_interval(tv, times, k + 1, tv->bitmap ? bit_next(tv, bit) : 0);
        if (k + 1 == n - 2 || t < next.t1) return next;
    } else if (k == 0) {
        return at;
    }
    if (tv->bitmap) return find_in_bitmap(tv, times, t);
    if (tv->code & PACK_UNIFORM) {   /* the formula's key, then the rounding's step either way */
        double g = floor(((double)t - tv->t0) / tv->dt);
        k = g >= 0 ? (g > n - 2 ? n - 2 : (int)g) : 0;
        while (k > 0 && key_time(tv, times, k) > t) k--;
        while (k < n - 2 && key_time(tv, times, k + 1) <= t) k++;
        return key_interval(tv, times, k, 0);
    }
    int lo = 0, hi = n - 1;   /* times[lo] <= t < times[hi], or t before the first key */
    while (hi - lo > 1) {
        int mid = (lo + hi) >> 1;
        if (times[point_of(tv, mid)] <= t) lo = mid;
        else hi = mid;
    }
    return key_interval(tv, times, lo, 0);
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
