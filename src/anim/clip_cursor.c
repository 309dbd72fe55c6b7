/* clip_cursor.c — playback cursors: sampling a packed clip (clip_pack.h)
 * without searching its keys (see mr_clip_cursor in clip_runtime.h): 8x
 * faster than the packed clip's own sampler on snoutx10k, 1.5x the dense
 * bake's time (docs/PERFORMANCE.md).
 *
 * A cursor holds, for every channel of every joint, the two keys around the
 * last time it sampled, decoded, in structure-of-arrays rows (4 joints per
 * SSE register), and the window of times they serve. Sampling refreshes
 * only the tracks whose window the time left (a key found from the last
 * one, decoded), then interpolates every joint 4 at a time with exactly the
 * arithmetic of the packed clip's own sampler (the same values; a zero may
 * come out with the other sign).
 * Constants and rest channels are decoded once, when the cursor binds to a
 * clip. */
#include "anim/clip_pack.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/clip_pack_read.h"
#include "core/alloc.h"

/* Rows of `lanes` floats: rotation keys 0 and 1, their interval's start and
 * the reciprocal of its length; the same for translation and scale. */
enum {
    RX0, RY0, RZ0, RW0, RX1, RY1, RZ1, RW1, RT0, RINV,
    TX0, TY0, TZ0, TX1, TY1, TZ1, TT0, TINV,
    SX0, SY0, SZ0, SX1, SY1, SZ1, ST0, SINV,
    ROWS
};
static const int row_of[3] = {TX0, RX0, SX0};   /* channel -> its first row */

struct mr_clip_cursor {
    const mr_clip_pack *pack;   /* bound to these (NULL: not bound) */
    unsigned long long serial;
    const mr_skeleton *sk;
    int sk_joints;
    int capacity;               /* joints the arrays have room for */
    int joints, lanes, animated;
    float *rows;                /* ROWS * lanes, 16-byte aligned */
    float *win;                 /* per animated track: [lo, hi) its keys serve */
    int *track;                 /* per animated track: joint * 3 + channel */
    track_view *view;           /* per animated track: its record, read */
    uint16_t *key;              /* per animated track: the key found last, */
    uint16_t *bit;              /* and its bit (bitmap tracks) */
    seg_pos *pos;               /* per animated track: the segment decoded last (segmented tracks) */
    int *rest;                  /* joints whose channel keeps sk's rest value: the translations', */
    int rest_count[3];          /* then the rotations', then the scales' (rest_count[c] each) */
};

/* Frees the arrays; the cursor is then unbound, with no capacity. */
static void release(mr_clip_cursor *cur)
{
    free(cur->rows);
    free(cur->win);
    free(cur->track);
    free(cur->view);
    free(cur->key);
    free(cur->bit);
    free(cur->pos);
    free(cur->rest);
    memset(cur, 0, sizeof *cur);
}

/* Room for a clip of `joints` joints: every array at its largest (each
 * channel an animated track), so binding to such a clip allocates nothing. */
static int reserve(mr_clip_cursor *cur, int joints)
{
    if (joints <= cur->capacity) return 1;
    release(cur);
    size_t lanes = (size_t)(joints + 3) / 4 * 4, tracks = (size_t)joints * 3;
    cur->rows = aligned_alloc(16, (size_t)ROWS * lanes * sizeof(float));   /* a multiple of 16 */
    cur->win = mr_alloc_array(tracks * 2, sizeof *cur->win);
    cur->track = mr_alloc_array(tracks, sizeof *cur->track);
    cur->view = mr_alloc_array(tracks, sizeof *cur->view);
    cur->key = mr_alloc_array(tracks, sizeof *cur->key);
    cur->bit = mr_alloc_array(tracks, sizeof *cur->bit);
    cur->pos = mr_alloc_array(tracks, sizeof *cur->pos);
    cur->rest = mr_alloc_array(tracks, sizeof *cur->rest);
    if (!cur->rows || !cur->win || !cur->track || !cur->view || !cur->key || !cur->bit || !cur->pos || !cur->rest) {
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

void mr_clip_cursor_destroy(mr_clip_cursor *cur)
{
    if (!cur) return;
    release(cur);
    free(cur);
}

/* Puts decoded keys v0, v1 (components of channel ch) at joint j, with
 * their interval's start t0 and the reciprocal of its length. */
static void put_keys(mr_clip_cursor *cur, int j, int ch, const float *v0, const float *v1, float t0, float inv)
{
    size_t L = (size_t)cur->lanes;
    float *r = cur->rows + (size_t)row_of[ch] * L + (size_t)j;
    int c = ch == 1 ? 4 : 3;
    for (int e = 0; e < c; e++) {
        r[(size_t)e * L] = v0[e];
        r[(size_t)(c + e) * L] = v1[e];
    }
    r[(size_t)(2 * c) * L] = t0;
    r[(size_t)(2 * c + 1) * L] = inv;
}

/* A held value: alpha stays 0 (t0 = +inf), so the value is v. */
static void put_held(mr_clip_cursor *cur, int j, int ch, const float *v)
{
    put_keys(cur, j, ch, v, v, INFINITY, 1.0f);
}

static int bind(mr_clip_cursor *cur, const mr_clip_pack *pack, unsigned long long serial, const mr_skeleton *sk)
{
    cur->pack = NULL;   /* unbound until done */
    int n = pack->joint_count, lanes = (n + 3) / 4 * 4;
    if (!reserve(cur, n)) return 0;
    const uint8_t *base = (const uint8_t *)pack, *present = base + pack->present, *rec;
    cur->rest_count[0] = cur->rest_count[1] = cur->rest_count[2] = 0;
    int *rest_list[3] = {cur->rest, cur->rest + n, cur->rest + 2 * n};
    cur->joints = n;
    cur->lanes = lanes;
    static const float identity[4] = {0, 0, 0, 1}, one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
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
            if (!has_track(present, i)) {   /* copied as it is after interpolating (not normalised) */
                put_held(cur, j, ch, ch == 0 ? sk->rest_t[j] : ch == 1 ? sk->rest_r[j] : sk->rest_s[j]);
                rest_list[ch][cur->rest_count[ch]++] = j;
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
                cur->key[a] = 0;
                cur->bit[a] = 0;
                cur->pos[a] = (seg_pos){0, 0};
                cur->win[2 * a] = INFINITY;   /* empty: the first sample refreshes it */
                cur->win[2 * a + 1] = -INFINITY;
                a++;
            }
            rec += tv.size;
        }
    cur->animated = a;
    cur->pack = pack;
    cur->serial = serial;
    cur->sk = sk;
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

/* Decodes animated track a's keys around t, as the packed sampler would
 * interpolate them, and the window of times they serve. */
static void refresh(mr_clip_cursor *cur, int a, const float *times, float t)
{
    const track_view tv = cur->view[a];
    int j = cur->track[a] / 3, ch = cur->track[a] % 3, n = tv.count;
    int old = cur->key[a], old_linear = cur->win[2 * a] <= cur->win[2 * a + 1];   /* not the empty window */
    key_at hint = {old, cur->bit[a], 0.0f, 0.0f};
    if (old_linear && old < n - 2 && t >= cur->win[2 * a + 1]) {   /* played past the window: from the next key */
        hint.k = old + 1;
        hint.bit = tv.bitmap ? bit_next(&tv, hint.bit) : 0;
    }
    key_at at = find_key(&tv, times, t, hint);
    int k = at.k;
    cur->key[a] = (uint16_t)k;
    cur->bit[a] = (uint16_t)at.bit;
    float t0 = at.t0, t1 = at.t1;
    float lo = k == 0 ? -INFINITY : t0, hi = k == n - 2 ? INFINITY : t1;
    float v0[4], v1[4];
    if (tv.code & PACK_STEP) {   /* the key held: the sampler's choice at t (pack_alpha >= 1: the next) */
        float at_next = step_switch(t0, t1);   /* pack_alpha only grows with t: the window ends there */
        int next = t >= at_next;
        decode_key_from(&tv, next ? k + 1 : k, &cur->pos[a], v0);
        put_held(cur, j, ch, v0);
        if (next) lo = at_next;
        else hi = fminf(hi, at_next);
    } else {
        size_t L = (size_t)cur->lanes;
        float *r = cur->rows + (size_t)row_of[ch] * L + (size_t)j;
        int c = ch == 1 ? 4 : 3;
        if (k == old + 1 && old_linear) {   /* playing on: the old second key is the new first */
            for (int e = 0; e < c; e++) v0[e] = r[(size_t)(c + e) * L];
        } else {
            decode_key_from(&tv, k, &cur->pos[a], v0);
        }
        decode_key_from(&tv, k + 1, &cur->pos[a], v1);
        put_keys(cur, j, ch, v0, v1, t0, 1.0f / (t1 - t0));
    }
    cur->win[2 * a] = lo;
    cur->win[2 * a + 1] = hi;
}

#if defined(__SSE__)
#include <xmmintrin.h>

#include "anim/soa4.h"

static inline __m128 alpha4(const float *t0, const float *inv, __m128 t)
{
    __m128 a = _mm_mul_ps(_mm_sub_ps(t, _mm_load_ps(t0)), _mm_load_ps(inv));
    return _mm_max_ps(_mm_min_ps(a, _mm_set1_ps(1.0f)), _mm_setzero_ps());
}

static void interpolate(const mr_clip_cursor *cur, float time, mr_pose *pose)
{
    const size_t L = (size_t)cur->lanes;
    const float *R = cur->rows;
    const __m128 t = _mm_set1_ps(time);
    for (int j = 0; j < cur->joints; j += 4) {
        const float *r = R + j;
        __m128 k0[4], k1[4], q[4], lerp[6];
        for (int c = 0; c < 4; c++) {
            k0[c] = _mm_load_ps(r + (RX0 + c) * L);
            k1[c] = _mm_load_ps(r + (RX1 + c) * L);
        }
        mr_soa4_nlerp(k0, k1, alpha4(r + RT0 * L, r + RINV * L, t), q);
        __m128 at = alpha4(r + TT0 * L, r + TINV * L, t), as = alpha4(r + ST0 * L, r + SINV * L, t);
        for (int c = 0; c < 3; c++) {
            __m128 v0 = _mm_load_ps(r + (TX0 + c) * L), v1 = _mm_load_ps(r + (TX1 + c) * L);
            lerp[c] = _mm_add_ps(v0, _mm_mul_ps(at, _mm_sub_ps(v1, v0)));
            __m128 s0 = _mm_load_ps(r + (SX0 + c) * L), s1 = _mm_load_ps(r + (SX1 + c) * L);
            lerp[3 + c] = _mm_add_ps(s0, _mm_mul_ps(as, _mm_sub_ps(s1, s0)));
        }
        mr_soa4_store_pose(pose, j, cur->joints - j < 4 ? cur->joints - j : 4, q, lerp);
    }
}
#else
static float alpha1(const float *r, size_t L, int row, float t)
{
    float a = (t - r[(size_t)row * L]) * r[(size_t)(row + 1) * L];
    return a > 0 ? (a < 1 ? a : 1.0f) : 0.0f;
}

static void interpolate(const mr_clip_cursor *cur, float time, mr_pose *pose)
{
    const size_t L = (size_t)cur->lanes;
    for (int j = 0; j < cur->joints; j++) {
        const float *r = cur->rows + j;
        float v0[4], v1[4];
        for (int e = 0; e < 4; e++) {
            v0[e] = r[(size_t)(RX0 + e) * L];
            v1[e] = r[(size_t)(RX1 + e) * L];
        }
        interp_keys(v0, v1, 1, alpha1(r, L, RT0, time), pose->r[j]);
        for (int e = 0; e < 3; e++) {
            v0[e] = r[(size_t)(TX0 + e) * L];
            v1[e] = r[(size_t)(TX1 + e) * L];
        }
        interp_keys(v0, v1, 0, alpha1(r, L, TT0, time), pose->t[j]);
        for (int e = 0; e < 3; e++) {
            v0[e] = r[(size_t)(SX0 + e) * L];
            v1[e] = r[(size_t)(SX1 + e) * L];
        }
        interp_keys(v0, v1, 0, alpha1(r, L, ST0, time), pose->s[j]);
    }
}
#endif

int mr_clip_cursor_sample(mr_clip_cursor *cur, const mr_clip_pack *pack, unsigned long long serial,
                          const mr_skeleton *sk, float t, mr_pose *pose)
{
    /* The held rest values of the skeleton are copied again after every
     * sample (below), so a skeleton at the same address is safe. */
    if (cur->pack != pack || cur->serial != serial || cur->sk != sk || cur->sk_joints != sk->joint_count) {
        if (!bind(cur, pack, serial, sk)) return 0;
    }
    const float *times = (const float *)((const uint8_t *)pack + pack->times);
    for (int a = 0; a < cur->animated; a++)
        if (!(t >= cur->win[2 * a] && t < cur->win[2 * a + 1])) refresh(cur, a, times, t);
    interpolate(cur, t, pose);
    const int *rest = cur->rest, n = cur->joints;
    for (int i = 0; i < cur->rest_count[0]; i++) memcpy(pose->t[rest[i]], sk->rest_t[rest[i]], sizeof(vec3));
    for (int i = 0; i < cur->rest_count[1]; i++) memcpy(pose->r[rest[n + i]], sk->rest_r[rest[n + i]], sizeof(versor));
    for (int i = 0; i < cur->rest_count[2]; i++)
        memcpy(pose->s[rest[2 * n + i]], sk->rest_s[rest[2 * n + i]], sizeof(vec3));
    return 1;
}
