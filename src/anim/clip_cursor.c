/* clip_cursor.c — playback cursors: sampling a packed clip (clip_pack.h)
 * without searching its keys (see mr_clip_cursor in clip_runtime.h): 12x
 * faster than the packed clip's own sampler on snoutx10k, 1.4x the dense
 * bake's time (docs/PERFORMANCE.md).
 *
 * A cursor holds, for every channel of every joint, the two keys around the
 * last time it sampled, decoded, in structure-of-arrays rows in blocks of
 * 8 joints (4 per SSE register, 8 per AVX one), and the window of times
 * they serve.
 * Sampling refreshes only the tracks whose window the time left (a key found
 * from the last one, decoded), then interpolates every joint 4 or 8 at a
 * time with exactly the arithmetic of the packed clip's own sampler (the
 * same values; a zero may come out with the other sign).
 * Playing on, a track decodes its next keys in one run (CACHE_KEYS, with
 * their times and intervals' reciprocals) and later refreshes copy them:
 * one pass through a segment with the same branches key after key, where
 * one key per refresh, between other tracks' keys, mispredicted and
 * stalled (snoutx10k: 4.75 -> 3.9 ns a joint for the refreshes, 208 more
 * bytes per channel). A seek decodes just its two keys.
 * Constants and rest channels are decoded once, when the cursor binds to a
 * clip and a skeleton (its serial: skeleton.h).
 * mr_clip_sample_model has it interpolate into rows of local transforms
 * (pose.h's MR_LOCAL_*), which local-to-model reads as they are: a pose
 * written and read back costs about 40 ns of shuffles on snoutx10k. Those
 * rows keep, while the cursor keeps its binding, the joints that no track
 * moves: a group of 4 or 8 of them is not interpolated again (1 group of
 * snoutx10k's 10). */
#include "anim/clip_pack.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/clip_pack_read.h"
#include "core/alloc.h"

/* Rows of `lanes` floats: rotation keys 0 and 1, their interval's start and
 * the reciprocal of its length; the same for translation and scale; then 1
 * where the joint's rotation is the skeleton's rest rotation, played as it
 * is (not normalised, as the packed sampler copies it), else 0. */
enum {
    RX0, RY0, RZ0, RW0, RX1, RY1, RZ1, RW1, RT0, RINV,
    TX0, TY0, TZ0, TX1, TY1, TZ1, TT0, TINV,
    SX0, SY0, SZ0, SX1, SY1, SZ1, ST0, SINV,
    RREST,
    ROWS
};
static const int row_of[3] = {TX0, RX0, SX0};   /* channel -> its first row */

/* The rows in blocks of 8 joints: row r of joints 8b..8b+7 is at
 * rows + (b * ROWS + r) * BLOCK, so a joint's rows are a fixed 8 floats
 * apart: a refresh stores a key, and interpolation loads it, at offsets
 * known when compiled, with no multiply by the joint count (snoutx10k:
 * refreshes 3.5 -> 3.34 ns a joint, interpolation 2.26 -> 2.12). */
#define BLOCK 8

/* Where row r of joint j is. */
static inline size_t row_index(int r, int j)
{
    return ((size_t)(j / BLOCK) * ROWS + (size_t)r) * BLOCK + (size_t)(j % BLOCK);
}

/* What playing on reads and writes of an animated track, together: one
 * pointer held instead of seven, which did not all fit in registers
 * (snoutx10k: refreshes 3.36 -> 3.28 ns a joint; with key_cache, 3.24). */
typedef struct track_state {
    uint32_t row_at;        /* its first row at its joint (row_index) */
    uint16_t key;           /* the key found last, */
    uint16_t bit;           /* and its bit (bitmap tracks) */
    uint16_t last;          /* its last interval's first key (STEP: 0, which keeps it off play_on's path) */
    uint16_t cache_first;   /* the keys decoded ahead (key_cache): from key cache_first, */
    uint8_t cache_count;    /* cache_count of them (0: none) */
    uint8_t four;           /* 1 for a rotation (4 components) */
} track_state;

/* Keys a track decodes at once: one pass through its segment with the same
 * branches taken key after key, instead of one key per refresh between
 * other tracks' (on snoutx10k, a track plays on every 4 frames or so). */
#define CACHE_KEYS 8

/* An animated track's keys decoded ahead, with their times. */
typedef struct key_cache {
    float v[CACHE_KEYS][4];
    float t[CACHE_KEYS];
    float inv[CACHE_KEYS];        /* the reciprocal of each interval's length (the last: none) */
    uint16_t bit[CACHE_KEYS];     /* bitmap tracks: each key's bit */
} key_cache;

struct mr_clip_cursor {
    const mr_clip_pack *pack;   /* bound to these (NULL: not bound) */
    unsigned long long serial;
    const mr_skeleton *sk;      /* and to this skeleton's rest pose (its serial) */
    unsigned long long sk_serial;
    int sk_joints;
    int capacity;               /* joints the arrays have room for */
    int joints, lanes, animated;
    float *rows;                /* ROWS * lanes in blocks (row_index), 32-byte aligned */
    float *local;               /* the last sample's local transforms: MR_LOCAL_ROWS * lanes (pose.h), */
                                /* 32-byte aligned, written by mr_clip_cursor_sample_model */
    mr_pose scratch;            /* mr_clip_sample_model's pose when its caller wants none (joint_count 0: none yet) */
    float *lo, *hi;             /* per animated track: the window [lo, hi) its keys serve */
                                /* (16-byte aligned; up to a multiple of 4: [-inf, inf)) */
    int *track;                 /* per animated track: joint * 3 + channel */
    track_view *view;           /* per animated track: its record, read */
    track_state *state;         /* per animated track: where it plays (below) */
    seg_pos *pos;               /* per animated track: the segment decoded last (segmented tracks) */
    /* per animated track, LINEAR keys decoded ahead (track_state's
     * cache_first and cache_count), so that playing on to the next key
     * copies it instead of finding and decoding it */
    key_cache *cache;
    uint8_t *moving;            /* per joint (lanes of them): 1 when a channel of it has keys to play */
    int local_fresh;            /* local holds every joint of this binding's interpolation */
};

/* Frees the arrays; the cursor is then unbound, with no capacity. */
static void release(mr_clip_cursor *cur)
{
    free(cur->rows);
    free(cur->local);
    mr_pose_deinit(&cur->scratch);
    free(cur->lo);
    free(cur->hi);
    free(cur->track);
    free(cur->view);
    free(cur->state);
    free(cur->pos);
    free(cur->cache);
    free(cur->moving);
    memset(cur, 0, sizeof *cur);
}

/* Room for a clip of `joints` joints: every array at its largest (each
 * channel an animated track), so binding to such a clip allocates nothing. */
static int reserve(mr_clip_cursor *cur, int joints)
{
    if (joints <= cur->capacity) return 1;
    release(cur);
    size_t lanes = (size_t)(joints + 7) / 8 * 8, tracks = (size_t)joints * 3, windows = (tracks + 3) / 4 * 4;
    cur->rows = aligned_alloc(32, (size_t)ROWS * lanes * sizeof(float));   /* a multiple of 32 */
    cur->local = aligned_alloc(32, (size_t)MR_LOCAL_ROWS * lanes * sizeof(float));
    cur->lo = aligned_alloc(16, windows * sizeof *cur->lo);   /* a multiple of 16 */
    cur->hi = aligned_alloc(16, windows * sizeof *cur->hi);
    cur->track = mr_alloc_array(tracks, sizeof *cur->track);
    cur->view = mr_alloc_array(tracks, sizeof *cur->view);
    cur->state = mr_alloc_array(tracks, sizeof *cur->state);
    cur->pos = mr_alloc_array(tracks, sizeof *cur->pos);
    cur->cache = mr_alloc_array(tracks, sizeof *cur->cache);
    cur->moving = calloc(lanes, 1);
    if (!cur->rows || !cur->local || !cur->lo || !cur->hi || !cur->track || !cur->view || !cur->state || !cur->pos ||
        !cur->cache || !cur->moving) {
        release(cur);
        return 0;
    }
    cur->capacity = joints;
    return 1;
}

mr_clip_cursor *mr_clip_cursor_create(int joints)
{
    mr_clip_cursor *cur = calloc(1, sizeof *cur);
    if (cur && joints > 0 && !reserve(cur, joints)) {
        free(cur);
        return NULL;
    }
    return cur;
}

size_t mr_clip_cursor_bytes(const mr_clip_cursor *cur)
{
    if (!cur) return 0;
    size_t n = (size_t)cur->capacity, lanes = (n + 7) / 8 * 8, tracks = n * 3, windows = (tracks + 3) / 4 * 4;
    size_t bytes = sizeof *cur + ((size_t)ROWS + MR_LOCAL_ROWS) * lanes * sizeof(float) + 2 * windows * sizeof(float) +
                   tracks * (sizeof *cur->track + sizeof(track_view) + sizeof(track_state) + sizeof(seg_pos) +
                             sizeof(key_cache)) + lanes;
    if (cur->scratch.joint_count) bytes += (size_t)cur->scratch.joint_count * (sizeof(versor) + 2 * sizeof(vec3));
    return bytes;
}

void mr_clip_cursor_destroy(mr_clip_cursor *cur)
{
    if (!cur) return;
    release(cur);
    free(cur);
}

/* Puts decoded keys v0, v1 (c components) in the rows from offset `at` (a
 * channel's first row at a joint: row_index), with their interval's start
 * t0 and the reciprocal of its length. */
static inline __attribute__((always_inline)) void put_keys_c(mr_clip_cursor *cur, size_t at, const float *v0,
                                                             const float *v1, float t0, float inv, const int c)
{
    float *r = cur->rows + at;
    _Pragma("GCC unroll 4") for (int e = 0; e < c; e++) {   /* unrolled: every store at a constant offset */
        r[e * BLOCK] = v0[e];
        r[(c + e) * BLOCK] = v1[e];
    }
    r[2 * c * BLOCK] = t0;
    r[(2 * c + 1) * BLOCK] = inv;
}

/* The same for channel ch (rotations: 4 components). */
static void put_keys(mr_clip_cursor *cur, int j, int ch, const float *v0, const float *v1, float t0, float inv)
{
    size_t at = row_index(row_of[ch], j);
    if (ch == 1) put_keys_c(cur, at, v0, v1, t0, inv, 4);
    else put_keys_c(cur, at, v0, v1, t0, inv, 3);
}

/* A held value: alpha stays +0 (t0 = +inf), so the value is v: a
 * translation or scale exactly, its -0.0 included, as the packed sampler
 * copies it (key 1 one below key 0: v + 0 * -1 is v + -0.0, which is v),
 * for finite v. */
static void put_held(mr_clip_cursor *cur, int j, int ch, const float *v)
{
    float below[3];
    if (ch != 1)
        for (int e = 0; e < 3; e++) below[e] = v[e] - 1.0f;
    put_keys(cur, j, ch, v, ch == 1 ? v : below, INFINITY, 1.0f);
}

static int bind(mr_clip_cursor *cur, const mr_clip_pack *pack, unsigned long long serial, const mr_skeleton *sk)
{
    cur->pack = NULL;   /* unbound until done */
    int n = pack->joint_count, lanes = (n + 7) / 8 * 8;
    if (!reserve(cur, n)) return 0;
    const uint8_t *base = (const uint8_t *)pack, *present = base + pack->present, *rec;
    cur->joints = n;
    cur->lanes = lanes;
    static const float identity[4] = {0, 0, 0, 1}, one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
    for (int j = 0; j < lanes; j++) cur->rows[row_index(RREST, j)] = 0.0f;
    memset(cur->moving, 0, (size_t)lanes);
    cur->local_fresh = 0;
    for (int j = n; j < lanes; j++) {   /* padding lanes: harmless values */
        put_held(cur, j, 0, zero);
        put_held(cur, j, 1, identity);
        put_held(cur, j, 2, one);
    }
    rec = base + pack->tracks;
    int a = 0;
    for (int j = 0; j < n; j++)
        for (int ch = 0; ch < 3; ch++) {
            int i = 3 * j + ch;
            if (!has_track(present, i)) {   /* the rest value, as it is (a rotation: RREST) */
                put_held(cur, j, ch, ch == 0 ? sk->rest_t[j] : ch == 1 ? sk->rest_r[j] : sk->rest_s[j]);
                if (ch == 1) cur->rows[row_index(RREST, j)] = 1.0f;
                continue;
            }
            track_view tv = view_of(rec, pack->point_bytes);
            if (tv.count == 1) {
                float v[4];
                decode_key(&tv, 0, v);
                put_held(cur, j, ch, v);
            } else {
                cur->track[a] = i;
                cur->view[a] = tv;
                cur->state[a].key = 0;
                cur->state[a].bit = 0;
                cur->pos[a] = (seg_pos)SEG_POS_START;
                cur->state[a].cache_count = 0;
                cur->state[a].row_at = (uint32_t)row_index(row_of[ch], j);
                cur->state[a].last = (uint16_t)(tv.code & PACK_STEP ? 0 : tv.count - 2);
                cur->state[a].four = ch == 1;
                cur->moving[j] = 1;
                cur->lo[a] = INFINITY;   /* empty: the first sample refreshes it */
                cur->hi[a] = -INFINITY;
                a++;
            }
            rec += tv.size;
        }
    cur->animated = a;
    for (; a % 4; a++) {   /* padding: never refreshed */
        cur->lo[a] = -INFINITY;
        cur->hi[a] = INFINITY;
    }
    cur->pack = pack;
    cur->serial = serial;
    cur->sk = sk;
    cur->sk_serial = sk->serial;
    cur->sk_joints = sk->joint_count;
    return 1;
}

/* The first time at which a STEP interval [t0, t1] holds its second key,
 * as pack_alpha decides it (its product may round to 1 an ulp or two either
 * side of t1); +inf when it never does within 64 ulps (a hostile block). */
static float step_switch(float t0, float t1)
{
    float x = t1;
    int i = 0;
    if (pack_alpha(x, t0, t1) >= 1.0f) {
        while (i++ < 64 && x > t0 && pack_alpha(nextafterf(x, -INFINITY), t0, t1) >= 1.0f) x = nextafterf(x, -INFINITY);
        return x;
    }
    while (i++ < 64 && pack_alpha(x, t0, t1) < 1.0f) x = nextafterf(x, INFINITY);
    return pack_alpha(x, t0, t1) >= 1.0f ? x : INFINITY;
}

/* Decodes `want` keys of animated track a (fewer where the track ends)
 * from key k, at bit `bit` for bitmap tracks, into its cache, with their
 * times: the decoder's values, so a key is the same from the cache. */
static void cache_fill(mr_clip_cursor *cur, int a, const float *times, int k, int bit, int want)
{
    const track_view *tv = &cur->view[a];
    int n = tv->count - k < want ? tv->count - k : want;
    key_cache *kc = &cur->cache[a];
    float *ct = kc->t;
    uint16_t *cb = kc->bit;
    decode_run(tv, k, n, &cur->pos[a], kc->v[0]);
    for (int i = 0; i < n; i++) {
        if (tv->bitmap) {
            if (i) bit = bit_next(tv, bit);   /* key k + i is not the first after the last */
            ct[i] = times[tv->first + bit];
            cb[i] = (uint16_t)bit;
        } else {
            ct[i] = key_time(tv, times, k + i);
            cb[i] = 0;
        }
    }
    float *inv = kc->inv;
    for (int i = 0; i + 1 < n; i++) inv[i] = 1.0f / (ct[i + 1] - ct[i]);
    cur->state[a].cache_first = (uint16_t)k;
    cur->state[a].cache_count = (uint8_t)n;
}

/* Decodes animated track a's keys around t, as the packed sampler would
 * interpolate them, and the window of times they serve (where play_on
 * cannot: kept out of line, so that its frame and saved registers are
 * not play_on's). */
__attribute__((noinline)) static void refresh(mr_clip_cursor *cur, int a, const float *times, float t)
{
    const track_view *tv = &cur->view[a];
    int j = cur->track[a] / 3, ch = cur->track[a] % 3, n = tv->count;
    int old = cur->state[a].key, old_linear = cur->lo[a] <= cur->hi[a];   /* not the empty window */
    int on = old_linear && old < n - 2 && t >= cur->hi[a];          /* played past the window */
    key_at hint = {old, cur->state[a].bit, 0.0f, 0.0f};
    if (on) {   /* from the next key */
        hint.k = old + 1;
        hint.bit = tv->bitmap ? bit_next(tv, hint.bit) : 0;
    }
    key_at at = find_key(tv, times, t, hint);
    int k = at.k;
    cur->state[a].key = (uint16_t)k;
    cur->state[a].bit = (uint16_t)at.bit;
    float t0 = at.t0, t1 = at.t1;
    float lo = k == 0 ? -INFINITY : t0, hi = k == n - 2 ? INFINITY : t1;
    if (tv->code & PACK_STEP) {   /* the key held: the sampler's choice at t (pack_alpha >= 1: the next) */
        float at_next = step_switch(t0, t1);   /* pack_alpha only grows with t: the window ends there */
        int next = t >= at_next;
        float v[4];
        decode_key_from(tv, next ? k + 1 : k, &cur->pos[a], v);
        put_held(cur, j, ch, v);
        if (next) lo = at_next;
        else hi = fminf(hi, at_next);
    } else {   /* playing on: keys ahead decoded too; a seek: just the two */
        cache_fill(cur, a, times, k, at.bit, on ? CACHE_KEYS : 2);
        const key_cache *kc = &cur->cache[a];
        put_keys(cur, j, ch, kc->v[0], kc->v[1], t0, kc->inv[0]);
    }
    cur->lo[a] = lo;
    cur->hi[a] = hi;
}

#if defined(__SSE__)
#include <xmmintrin.h>

#include "anim/soa4.h"

static inline __m128 alpha4(const float *t0, const float *inv, __m128 t)
{
    __m128 a = _mm_mul_ps(_mm_sub_ps(t, _mm_load_ps(t0)), _mm_load_ps(inv));
    return _mm_max_ps(_mm_min_ps(a, _mm_set1_ps(1.0f)), _mm_setzero_ps());
}

/* Joints j..j+3 (count of them, <= 4) from rows r (lane 0 = joint j, its
 * rows BLOCK floats apart), into pose (NULL: none) and the local rows
 * (L lanes) at local + j (NULL: none). */
static inline __attribute__((always_inline)) void interpolate4(const float *r, size_t L, __m128 t, mr_pose *pose,
                                                               float *local, int j, int count)
{
    __m128 k0[4], k1[4], q[4], lerp[6];
    MR_UNROLL for (int c = 0; c < 4; c++) {
        k0[c] = _mm_load_ps(r + (RX0 + c) * BLOCK);
        k1[c] = _mm_load_ps(r + (RX1 + c) * BLOCK);
    }
    mr_soa4_nlerp_soa(k0, k1, alpha4(r + RT0 * BLOCK, r + RINV * BLOCK, t), q);
    __m128 rest = _mm_cmpneq_ps(_mm_load_ps(r + RREST * BLOCK), _mm_setzero_ps());
    MR_UNROLL for (int c = 0; c < 4; c++) q[c] = _mm_or_ps(_mm_and_ps(rest, k0[c]), _mm_andnot_ps(rest, q[c]));
    __m128 at = alpha4(r + TT0 * BLOCK, r + TINV * BLOCK, t), as = alpha4(r + ST0 * BLOCK, r + SINV * BLOCK, t);
    MR_UNROLL for (int c = 0; c < 3; c++) {
        __m128 v0 = _mm_load_ps(r + (TX0 + c) * BLOCK), v1 = _mm_load_ps(r + (TX1 + c) * BLOCK);
        lerp[c] = _mm_add_ps(v0, _mm_mul_ps(at, _mm_sub_ps(v1, v0)));
        __m128 s0 = _mm_load_ps(r + (SX0 + c) * BLOCK), s1 = _mm_load_ps(r + (SX1 + c) * BLOCK);
        lerp[3 + c] = _mm_add_ps(s0, _mm_mul_ps(as, _mm_sub_ps(s1, s0)));
    }
    if (local) {
        MR_UNROLL for (int c = 0; c < 4; c++) _mm_store_ps(local + (MR_LOCAL_QX + c) * L, q[c]);
        MR_UNROLL for (int c = 0; c < 6; c++) _mm_store_ps(local + (MR_LOCAL_TX + c) * L, lerp[c]);
    }
    if (pose) {
        _MM_TRANSPOSE4_PS(q[0], q[1], q[2], q[3]);
        mr_soa4_store_pose(pose, j, count, q, lerp);
    }
}

/* Do any of the n joints at m move (a byte each)? */
static inline int any_moves(const uint8_t *m, int n)
{
    uint64_t x = 0;
    memcpy(&x, m, (size_t)n);   /* n = 4 or 8 */
    return x != 0;
}

static void interpolate_sse(const mr_clip_cursor *cur, float time, mr_pose *pose, float *local, const uint8_t *moving)
{
    const size_t L = (size_t)cur->lanes;
    const __m128 t = _mm_set1_ps(time);
    for (int j = 0; j < cur->joints; j += 4)
        if (!moving || any_moves(moving + j, 4))
            interpolate4(cur->rows + row_index(0, j), L, t, pose, local ? local + j : NULL, j, cur->joints - j < 4 ? cur->joints - j : 4);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#include "core/cpu.h"

/* Joints j.. (up to 4, of n) from half h of 8-lane registers. */
__attribute__((target("avx"))) static inline void store_half(mr_pose *pose, int j, int n, const __m256 q[4],
                                                             const __m256 lerp[6], int h)
{
    __m128 qh[4], lh[6];
    MR_UNROLL for (int c = 0; c < 4; c++) qh[c] = h ? _mm256_extractf128_ps(q[c], 1) : _mm256_castps256_ps128(q[c]);
    MR_UNROLL for (int c = 0; c < 6; c++) lh[c] = h ? _mm256_extractf128_ps(lerp[c], 1) : _mm256_castps256_ps128(lerp[c]);
    _MM_TRANSPOSE4_PS(qh[0], qh[1], qh[2], qh[3]);
    mr_soa4_store_pose(pose, j, n - j < 4 ? n - j : 4, qh, lh);
}

/* 8 packed vec3 at dst (24 floats) from x, y, z (joint l in lane l):
 * mr_soa4_store_xyz's shuffles in each 128-bit half, then the halves'
 * three vectors put in order. */
__attribute__((target("avx"))) static inline void store_xyz8(float *dst, __m256 x, __m256 y, __m256 z)
{
    __m256 xy_lo = _mm256_unpacklo_ps(x, y), xy_hi = _mm256_unpackhi_ps(x, y);
    __m256 z0x1 = _mm256_shuffle_ps(z, x, _MM_SHUFFLE(1, 1, 0, 0));
    __m256 y1z1 = _mm256_shuffle_ps(y, z, _MM_SHUFFLE(1, 1, 1, 1));
    __m256 z2x3 = _mm256_shuffle_ps(z, x, _MM_SHUFFLE(3, 3, 2, 2));
    __m256 y3z3 = _mm256_shuffle_ps(y, z, _MM_SHUFFLE(3, 3, 3, 3));
    __m256 a = _mm256_shuffle_ps(xy_lo, z0x1, _MM_SHUFFLE(2, 0, 1, 0));   /* floats 0-3 | 12-15 */
    __m256 b = _mm256_shuffle_ps(y1z1, xy_hi, _MM_SHUFFLE(1, 0, 2, 0));   /* 4-7 | 16-19 */
    __m256 c = _mm256_shuffle_ps(z2x3, y3z3, _MM_SHUFFLE(2, 0, 2, 0));    /* 8-11 | 20-23 */
    _mm256_storeu_ps(dst, _mm256_permute2f128_ps(a, b, 0x20));
    _mm256_storeu_ps(dst + 8, _mm256_permute2f128_ps(c, a, 0x30));
    _mm256_storeu_ps(dst + 16, _mm256_permute2f128_ps(b, c, 0x31));
}

/* Joints j..j+7 of pose: rotations' x, y, z, w in q, translations and
 * scales in lerp (as mr_soa4_store_pose takes them, 8 lanes). */
__attribute__((target("avx"))) static inline void store_pose8(mr_pose *pose, int j, const __m256 q[4],
                                                              const __m256 lerp[6])
{
    __m256 t0 = _mm256_unpacklo_ps(q[0], q[1]), t1 = _mm256_unpackhi_ps(q[0], q[1]);
    __m256 t2 = _mm256_unpacklo_ps(q[2], q[3]), t3 = _mm256_unpackhi_ps(q[2], q[3]);
    __m256 r[4] = {_mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)), _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2)),
                   _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)), _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2))};
    MR_UNROLL for (int l = 0; l < 4; l++) {   /* joint j + l in the low half, j + 4 + l in the high */
        _mm_storeu_ps(pose->r[j + l], _mm256_castps256_ps128(r[l]));
        _mm_storeu_ps(pose->r[j + 4 + l], _mm256_extractf128_ps(r[l], 1));
    }
    store_xyz8(pose->t[j], lerp[0], lerp[1], lerp[2]);
    store_xyz8(pose->s[j], lerp[3], lerp[4], lerp[5]);
}

/* The same arithmetic 8 joints at a time (AVX, no fused multiply-add: the
 * same values); a group that ends the pose short of 8 joints is stored as
 * two groups of 4. */
__attribute__((target("avx"))) static void interpolate_avx(const mr_clip_cursor *cur, float time, mr_pose *pose,
                                                           float *local, const uint8_t *moving)
{
    const size_t L = (size_t)cur->lanes;
    const __m256 t = _mm256_set1_ps(time), one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
#define ALPHA8(row0, row1) \
    _mm256_max_ps(_mm256_min_ps(_mm256_mul_ps(_mm256_sub_ps(t, _mm256_load_ps(r + (row0) * BLOCK)), _mm256_load_ps(r + (row1) * BLOCK)), one), zero)
    for (int j = 0; j < cur->joints; j += 8) {
        if (moving && !any_moves(moving + j, 8)) continue;
        const float *r = cur->rows + row_index(0, j);
        __m256 a = ALPHA8(RT0, RINV), at = ALPHA8(TT0, TINV), as = ALPHA8(ST0, SINV);
        __m256 k0[4], k1[4], q[4], lerp[6];
        MR_UNROLL for (int c = 0; c < 4; c++) {
            k0[c] = _mm256_load_ps(r + (RX0 + c) * BLOCK);
            k1[c] = _mm256_load_ps(r + (RX1 + c) * BLOCK);
        }
        /* mr_soa4_nlerp's arithmetic */
        __m256 a0 = _mm256_sub_ps(one, a);
        __m256 dot = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(k0[0], k1[0]), _mm256_mul_ps(k0[1], k1[1])),
                                                 _mm256_mul_ps(k0[2], k1[2])), _mm256_mul_ps(k0[3], k1[3]));
        __m256 b = _mm256_xor_ps(a, _mm256_and_ps(_mm256_cmp_ps(dot, zero, _CMP_LT_OS), _mm256_set1_ps(-0.0f)));
        MR_UNROLL for (int c = 0; c < 4; c++) q[c] = _mm256_add_ps(_mm256_mul_ps(a0, k0[c]), _mm256_mul_ps(b, k1[c]));
        __m256 len2 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(q[0], q[0]), _mm256_mul_ps(q[1], q[1])),
                                                  _mm256_mul_ps(q[2], q[2])), _mm256_mul_ps(q[3], q[3]));
        __m256 zero_len = _mm256_cmp_ps(len2, zero, _CMP_LE_OS);
        __m256 inv = _mm256_andnot_ps(zero_len, _mm256_div_ps(one, _mm256_sqrt_ps(len2)));
        MR_UNROLL for (int c = 0; c < 3; c++) q[c] = _mm256_mul_ps(q[c], inv);
        q[3] = _mm256_or_ps(_mm256_andnot_ps(zero_len, _mm256_mul_ps(q[3], inv)), _mm256_and_ps(zero_len, one));
        __m256 rest = _mm256_cmp_ps(_mm256_load_ps(r + RREST * BLOCK), zero, _CMP_NEQ_OQ);
        MR_UNROLL for (int c = 0; c < 4; c++) q[c] = _mm256_blendv_ps(q[c], k0[c], rest);
        MR_UNROLL for (int c = 0; c < 3; c++) {
            __m256 v0 = _mm256_load_ps(r + (TX0 + c) * BLOCK), v1 = _mm256_load_ps(r + (TX1 + c) * BLOCK);
            lerp[c] = _mm256_add_ps(v0, _mm256_mul_ps(at, _mm256_sub_ps(v1, v0)));
            __m256 s0 = _mm256_load_ps(r + (SX0 + c) * BLOCK), s1 = _mm256_load_ps(r + (SX1 + c) * BLOCK);
            lerp[3 + c] = _mm256_add_ps(s0, _mm256_mul_ps(as, _mm256_sub_ps(s1, s0)));
        }
        if (local) {
            MR_UNROLL for (int c = 0; c < 4; c++) _mm256_store_ps(local + (MR_LOCAL_QX + c) * L + j, q[c]);
            MR_UNROLL for (int c = 0; c < 6; c++) _mm256_store_ps(local + (MR_LOCAL_TX + c) * L + j, lerp[c]);
        }
        if (!pose) continue;
        if (j + 8 <= cur->joints) {
            store_pose8(pose, j, q, lerp);
        } else {
            store_half(pose, j, cur->joints, q, lerp, 0);
            if (j + 4 < cur->joints) store_half(pose, j + 4, cur->joints, q, lerp, 1);
        }
    }
#undef ALPHA8
}
#endif

/* Every joint at time into pose and the local rows (either NULL: none);
 * with `moving` (only without a pose), the groups of joints none of which
 * moves are left as they are. */
static void interpolate(const mr_clip_cursor *cur, float time, mr_pose *pose, float *local, const uint8_t *moving)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (mr_simd() >= MR_SIMD_AVX) {
        interpolate_avx(cur, time, pose, local, moving);
        return;
    }
#endif
    interpolate_sse(cur, time, pose, local, moving);
}
#else
static float alpha1(const float *r, int row, float t)
{
    float a = (t - r[row * BLOCK]) * r[(row + 1) * BLOCK];
    return a > 0 ? (a < 1 ? a : 1.0f) : 0.0f;
}

static void interpolate(const mr_clip_cursor *cur, float time, mr_pose *pose, float *local, const uint8_t *moving)
{
    const size_t L = (size_t)cur->lanes;
    for (int j = 0; j < cur->joints; j++) {
        if (moving && !moving[j]) continue;
        const float *r = cur->rows + row_index(0, j);
        float v0[4], v1[4], tr[3], rot[4], sc[3];
        for (int e = 0; e < 4; e++) {
            v0[e] = r[(RX0 + e) * BLOCK];
            v1[e] = r[(RX1 + e) * BLOCK];
        }
        if (r[RREST * BLOCK] != 0.0f) memcpy(rot, v0, sizeof rot);
        else interp_keys(v0, v1, 1, alpha1(r, RT0, time), rot);
        for (int e = 0; e < 3; e++) {
            v0[e] = r[(TX0 + e) * BLOCK];
            v1[e] = r[(TX1 + e) * BLOCK];
        }
        interp_keys(v0, v1, 0, alpha1(r, TT0, time), tr);
        for (int e = 0; e < 3; e++) {
            v0[e] = r[(SX0 + e) * BLOCK];
            v1[e] = r[(SX1 + e) * BLOCK];
        }
        interp_keys(v0, v1, 0, alpha1(r, ST0, time), sc);
        if (pose) {
            memcpy(pose->r[j], rot, sizeof rot);
            memcpy(pose->t[j], tr, sizeof tr);
            memcpy(pose->s[j], sc, sizeof sc);
        }
        if (local) {
            for (int e = 0; e < 4; e++) local[(MR_LOCAL_QX + e) * L + (size_t)j] = rot[e];
            for (int e = 0; e < 3; e++) {
                local[(MR_LOCAL_TX + e) * L + (size_t)j] = tr[e];
                local[(MR_LOCAL_SX + e) * L + (size_t)j] = sc[e];
            }
        }
    }
}
#endif

/* Track a's next interval from its cache, when t has just played into it
 * (past the window, not past the interval): the keys copied, nothing
 * searched or decoded. 0 when it cannot: refresh then. */
static inline __attribute__((always_inline)) int play_on(mr_clip_cursor *cur, int a, float t)
{
    int old = cur->state[a].key, last = cur->state[a].last;
    if (old >= last || !(t >= cur->hi[a]) || !(cur->lo[a] <= cur->hi[a])) return 0;
    int i = old + 1 - cur->state[a].cache_first;
    if (i < 0 || i + 1 >= cur->state[a].cache_count) return 0;
    const key_cache *kc = &cur->cache[a];
    float t0 = kc->t[i], t1 = kc->t[i + 1];
    int to_last = old + 1 == last;
    if (!to_last && !(t < t1)) return 0;
    if (cur->state[a].four) put_keys_c(cur, cur->state[a].row_at, kc->v[i], kc->v[i + 1], t0, kc->inv[i], 4);
    else put_keys_c(cur, cur->state[a].row_at, kc->v[i], kc->v[i + 1], t0, kc->inv[i], 3);
    cur->state[a].key = (uint16_t)(old + 1);
    cur->state[a].bit = kc->bit[i];
    cur->lo[a] = t0;
    cur->hi[a] = to_last ? INFINITY : t1;
    return 1;
}

/* Refreshes every animated track whose window t has left: 4 windows
 * compared at once where SSE is. */
static void refresh_left(mr_clip_cursor *cur, const float *times, float t)
{
#if defined(__SSE__)
    const __m128 tv = _mm_set1_ps(t);
    for (int a = 0; a < cur->animated; a += 4) {
        __m128 in = _mm_and_ps(_mm_cmpge_ps(tv, _mm_load_ps(cur->lo + a)), _mm_cmplt_ps(tv, _mm_load_ps(cur->hi + a)));
        for (unsigned out = ~(unsigned)_mm_movemask_ps(in) & 15u; out; out &= out - 1u)
            if (!play_on(cur, a + __builtin_ctz(out), t)) refresh(cur, a + __builtin_ctz(out), times, t);
    }
#else
    for (int a = 0; a < cur->animated; a++)
        if (!(t >= cur->lo[a] && t < cur->hi[a]) && !play_on(cur, a, t)) refresh(cur, a, times, t);
#endif
}

/* Binds cur to pack and sk unless it is bound to them; refreshes the
 * tracks t left. 0 without memory (cur unbound). */
static int advance(mr_clip_cursor *cur, const mr_clip_pack *pack, unsigned long long serial, const mr_skeleton *sk,
                   float t)
{
    /* A skeleton's serial changes with its rest pose (skeleton.h), which
     * the cursor holds. */
    if (cur->pack != pack || cur->serial != serial || cur->sk != sk || cur->sk_serial != sk->serial ||
        cur->sk_joints != sk->joint_count) {
        if (!bind(cur, pack, serial, sk)) return 0;
    }
    refresh_left(cur, (const float *)((const uint8_t *)pack + pack->times), t);
    return 1;
}

int mr_clip_cursor_sample(mr_clip_cursor *cur, const mr_clip_pack *pack, unsigned long long serial,
                          const mr_skeleton *sk, float t, mr_pose *pose)
{
    if (!advance(cur, pack, serial, sk, t)) return 0;
    interpolate(cur, t, pose, NULL, NULL);
    return 1;
}

int mr_clip_cursor_sample_model(mr_clip_cursor *cur, const mr_clip_pack *pack, unsigned long long serial,
                                const mr_skeleton *sk, float t, mr_pose *pose, mat4 *model)
{
    if (!advance(cur, pack, serial, sk, t)) return 0;
    /* a joint none of whose channels has keys to play keeps its local
     * transform from the last sample of this binding */
    interpolate(cur, t, pose, cur->local, !pose && cur->local_fresh ? cur->moving : NULL);
    cur->local_fresh = 1;
    mr_pose_rows_to_model(sk, cur->local, (size_t)cur->lanes, model);
    return 1;
}

mr_pose *mr_clip_cursor_scratch(mr_clip_cursor *cur, int joints)
{
    if (cur->scratch.joint_count != joints) {
        mr_pose_deinit(&cur->scratch);
        if (mr_pose_init(&cur->scratch, joints) != MR_OK) return NULL;
    }
    return &cur->scratch;
}
