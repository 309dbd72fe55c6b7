/* clip_pack.c — the packed clip: per-track key reduction, quantised keys
 * and their sampler (see clip_pack.h). */
#include "anim/clip_pack.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "anim/clip_interp.h"
#include "anim/clip_pack_read.h"
#include "anim/key_reduce.h"
#include "core/alloc.h"

/* Samples the track at rec into out; returns the next record. */
static inline const uint8_t *sample_track(const uint8_t *rec, int point_bytes, const float *times, float t,
                                          int rotation, float *out)
{
    track_view tv = view_of(rec, point_bytes);
    const uint8_t *next = rec + tv.size;
    if (tv.count == 1) {
        decode_key(&tv, 0, out);
        if (rotation) mr_clip_normalize4(out);
        return next;
    }
    key_at at = find_key(&tv, times, t, (key_at){0, 0, 0.0f, 0.0f});
    int k = at.k;
    float a = pack_alpha(t, at.t0, at.t1);
    float v0[4], v1[4];
    if (tv.code & PACK_STEP) {
        decode_key(&tv, a >= 1.0f ? k + 1 : k, out);
        if (rotation) mr_clip_normalize4(out);
        return next;
    }
    decode_key(&tv, k, v0);
    decode_key(&tv, k + 1, v1);
    interp_keys(v0, v1, rotation, a, out);
    return next;
}


void mr_clip_pack_sample(const mr_clip_pack *pack, const mr_skeleton *sk, float t, mr_pose *pose)
{
    const uint8_t *base = (const uint8_t *)pack;
    const uint8_t *present = base + pack->present, *rec = base + pack->tracks;
    const float *times = (const float *)(base + pack->times);
    int n = pack->joint_count, pb = pack->point_bytes;
    for (int j = 0; j < n; j++) {
        if (has_track(present, 3 * j)) rec = sample_track(rec, pb, times, t, 0, pose->t[j]);
        else glm_vec3_copy(sk->rest_t[j], pose->t[j]);
        if (has_track(present, 3 * j + 1)) rec = sample_track(rec, pb, times, t, 1, pose->r[j]);
        else glm_vec4_copy(sk->rest_r[j], pose->r[j]);
        if (has_track(present, 3 * j + 2)) rec = sample_track(rec, pb, times, t, 0, pose->s[j]);
        else glm_vec3_copy(sk->rest_s[j], pose->s[j]);
    }
}

/* ---- building ------------------------------------------------------------------------- */

/* The largest magnitude a key may have (and decode to, in a block read
 * from outside): its square stays a finite float. */
#define PACK_VALUE_MAX 1e18

/* Checkpoints per candidate interval: the key and the quarter points. */
#define CHECKS 4
#define PACK_MAX_BYTES ((size_t)1 << 31)
/* A rotation rebuilds a component only if it never comes closer to zero
 * than this (closer, the rebuild magnifies the other components' error,
 * up to 1 / this: the keys' checks then ask those segments for more bits;
 * Boxing_Toes's pack is 2.6% smaller at 0.1 than at 0.3). */
#define REBUILD_MIN 0.1f

/* A track of this many candidate keys whose first packing kept segments
 * is packed again (mr_clip_pack_builder_run) with segments only. */
#define LONG_TRACK 256

/* Bit widths of a track's quantised keys (32 is float keys). */
#define MIN_BITS 4
#define MAX_BITS 24
/* Shares of the budget the quantisation may take at the keys, each tried
 * with the fewest bits that keep the keys within it. */
#define SHARES 3
static const double shares[SHARES] = {0.25, 0.5, 0.75};

/* One track being packed. */
typedef struct packing {
    const mr_track *keys;     /* candidate keys (what the runtime plays: refined or source) */
    const mr_track *src;      /* the exact curve */
    int rotation, scale;
    double budget, cheap_budget;   /* cheap_budget: cheap_limit(budget) */
    const float *times;       /* the pack's time points */
    int point_count, point_bytes;
    int n, rebuilt;           /* candidate keys; rotations: the component rebuilt, or PACK_NONE */
    const float *kt;          /* candidate key times */
    int uniform;              /* evenly spaced candidates (uniform_fit): t0, dt */
    float t0;
    double dt;
    float *v;                 /* candidates, 4 floats each: rotations normalised, sign-aligned */
    float lo_of[4], hi_of[4]; /* each component's range over v */
    uint16_t *points;         /* point index per candidate key */
    float *ct, *cv;           /* checkpoint times and exact values (4 floats each) */
    int checks_given;         /* ct and cv came filled (a builder's earlier run): prepare keeps them */
    int varies;               /* an earlier run found the track is no constant (constant_ok) */
    const mr_clip_pack_scale *factor;  /* the budget's factor over time, or NULL: 1 */
    int joint;                /* the track's */
    int segments_won;         /* set by the builder: segments won this track's last packing */
    int keys_only;            /* quantise_segment judges the keys alone (see trial_segmented) */
    int write_only;           /* quantise_segment, trial_keys only write (widths that passed already) */
    size_t hint;              /* segment_ok: the checkpoint that failed last */
    int key_hint;             /* quantise_segment: the kept key whose interval failed last */
    int reduced;              /* trial_segmented: the keys its reduction kept (in kept), 0: none yet */
    double held;              /* hold_error(p, v) when held_known (constant_ok, or a builder's earlier run) */
    int held_known;
    int each;                 /* a segmented trial of a rotation rebuilds a component chosen per segment */
    float *sv;                /* a segmented trial's stored values: 4 slots per candidate */
    uint8_t *seg_rebuilt;     /* each: per segment the component rebuilt */
    uint8_t *best_seg_rebuilt;
    int best_each;
    float *gk;                /* with a scale: its factor at each checkpoint */
    double *cheap_at;         /* with a scale: cheap_budget at each checkpoint */
    float *deq;               /* a trial's decoded candidates (4 floats each) */
    uint32_t *q;              /* a trial's quantised candidates (comps each) */
    int *kept;                /* a trial's kept candidates */
    uint8_t *seg_bits, *seg_range;   /* a segmented trial's: per segment its byte of widths */
                                     /* (segment_widths_of), and per component its min and extent */
    /* the best trial */
    int count, comps, code, bits;    /* bits 0: segmented */
    int code0;                /* code as pack_track left it (place_keys starts from it) */
    int all;                  /* every candidate kept, without points: all_code */
    int all_code;             /* PACK_UNIFORM, PACK_DENSE (on consecutive points) or 0: not possible */
    size_t size;
    float lo[4], step[4];     /* segmented: step holds each component's range */
    size_t stream;            /* segmented: the stream's bytes */
    uint32_t *best_q;
    int *best_kept;
    uint8_t *best_seg_bits, *best_seg_range;
    uint16_t *point;          /* per kept key, its index in the pack's time points */
    int words;                /* PACK_BITMAP: its words */
} packing;

static void packing_free(packing *p)
{
    free(p->v);
    free(p->points);
    free(p->ct);
    free(p->cv);
    free(p->gk);
    free(p->cheap_at);
    free(p->deq);
    free(p->q);
    free(p->kept);
    free(p->best_q);
    free(p->best_kept);
    free(p->seg_bits);
    free(p->seg_range);
    free(p->sv);
    free(p->seg_rebuilt);
    free(p->best_seg_rebuilt);
    free(p->best_seg_bits);
    free(p->best_seg_range);
    free(p->point);
    memset(p, 0, sizeof *p);
}

/* How far value v strays from the exact e, in the channel's measure:
 * rotation angle, translation distance, largest scale component. */
static double channel_error(const packing *p, const float *v, const float *e)
{
    if (p->rotation) {
        double lv = 0, le = 0;
        for (int c = 0; c < 4; c++) {
            lv += (double)v[c] * v[c];
            le += (double)e[c] * e[c];
        }
        return lv > 0 && le > 0 ? mr_clip_quat_angle(v, e) : INFINITY;   /* a zero rotation is no match */
    }
    double d2 = 0, dmax = 0;
    for (int i = 0; i < 3; i++) {
        double d = (double)v[i] - e[i];
        d2 += d * d;
        if (fabs(d) > dmax) dmax = fabs(d);
    }
    return p->scale ? dmax : sqrt(d2);
}

/* A limit in the cheap measure `within` compares: for rotations, tan^2 of
 * a quarter of the angle; for translations, the squared distance; for
 * scales, the limit itself. */
static double cheap_limit(const packing *p, double limit)
{
    if (p->rotation) {
        double q = 0.25 * limit;
        return q < 1.5 ? tan(q) * tan(q) : INFINITY;
    }
    return p->scale ? limit : limit * limit;
}

/* Is v within the limit (cheap_limit) of e? Rotations: v and e of unit
 * length (e's sign free): the angle between them is 4 atan(|v - e| / |v + e|),
 * so comparing the squared norms against tan^2 of a quarter of the limit
 * is comparing angles, without atan2 or sqrt. */
#if defined(__SSE2__)
/* ((x0 + x1) + x2) + x3 of lo = (x0, x1), hi = (x2, x3): the order of a
 * plain loop's sum from 0 (which changes at most the sign of a zero). */
static inline double sum4_pd(__m128d lo, __m128d hi)
{
    double s = _mm_cvtsd_f64(lo) + _mm_cvtsd_f64(_mm_unpackhi_pd(lo, lo));
    s += _mm_cvtsd_f64(hi);
    return s + _mm_cvtsd_f64(_mm_unpackhi_pd(hi, hi));
}
#endif

#if defined(__SSE2__)
/* within for a rotation v (in a register): the test below two lanes at a
 * time, the same operations on every component, the sums in the same
 * order (the dot product's sign is all it gives; the squares' sums start
 * at a positive zero). */
static inline int within_rotation(__m128 vf, const float *e, double cheap)
{
    __m128 ef = _mm_loadu_ps(e);
    __m128d a01 = _mm_cvtps_pd(vf), a23 = _mm_cvtps_pd(_mm_movehl_ps(vf, vf));
    __m128d e01 = _mm_cvtps_pd(ef), e23 = _mm_cvtps_pd(_mm_movehl_ps(ef, ef));
    double d = sum4_pd(_mm_mul_pd(a01, e01), _mm_mul_pd(a23, e23));
    __m128d sg = _mm_set1_pd(d < 0 ? -1.0 : 1.0);
    __m128d b01 = _mm_mul_pd(sg, e01), b23 = _mm_mul_pd(sg, e23);
    __m128d m01 = _mm_sub_pd(a01, b01), m23 = _mm_sub_pd(a23, b23);
    __m128d q01 = _mm_add_pd(a01, b01), q23 = _mm_add_pd(a23, b23);
    double m = sum4_pd(_mm_mul_pd(m01, m01), _mm_mul_pd(m23, m23));
    double q = sum4_pd(_mm_mul_pd(q01, q01), _mm_mul_pd(q23, q23));
    return m <= cheap * q;
}
#endif

static inline int within(const packing *p, const float *v, const float *e, double cheap)
{
#if defined(__SSE2__)
    if (p->rotation) return within_rotation(_mm_loadu_ps(v), e, cheap);
#endif
    if (p->rotation) {
        double d = 0, m = 0, q = 0;
        for (int c = 0; c < 4; c++) d += (double)v[c] * e[c];
        double sg = d < 0 ? -1.0 : 1.0;
        for (int c = 0; c < 4; c++) {
            double a = v[c], b = sg * e[c];
            m += (a - b) * (a - b);
            q += (a + b) * (a + b);
        }
        return m <= cheap * q;
    }
    double d2 = 0, dmax = 0;
    for (int i = 0; i < 3; i++) {
        double d = (double)v[i] - e[i];
        d2 += d * d;
        if (fabs(d) > dmax) dmax = fabs(d);
    }
    return (p->scale ? dmax : d2) <= cheap;
}

/* nextafterf(x, up ? INFINITY : -INFINITY): a finite nonzero x is one
 * step of its bits away (up from a positive one, down from a negative
 * one), the rest are nextafterf's. */
static inline float float_step(float x, int up)
{
    if (!isfinite(x) || x == 0.0f) return nextafterf(x, up ? INFINITY : -INFINITY);
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    bits += (x > 0) == (up != 0) ? 1u : (uint32_t)-1;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* Does (float)(t0 + k * dt), computed in double, give each of the n
 * times (ascending) exactly, for t0 the first? Then *t0 and *dt get it:
 * dt from the spacings that round to every time (an interval per key). */
static int uniform_fit(const float *times, int n, float *t0, double *dt)
{
    if (n < 2) return 0;
    double base = times[0], lo = 0.0, hi = INFINITY;
    for (int k = 1; k < n; k++) {
        double below = 0.5 * ((double)times[k] + float_step(times[k], 0));
        double above = 0.5 * ((double)times[k] + float_step(times[k], 1));
        lo = fmax(lo, (below - base) / k);
        hi = fmin(hi, (above - base) / k);
    }
    double d = 0.5 * (lo + hi);
    if (!(lo < hi) || !(d > 0) || !isfinite(d)) return 0;
    for (int k = 1; k < n; k++)
        if ((float)(base + (double)k * d) != times[k] || !(times[k] > times[k - 1])) return 0;
    *t0 = times[0];
    *dt = d;
    return 1;
}

/* The window of scale at t (mr_clip_pack_scale_at's): monotonic in t. */
static inline int scale_window(const mr_clip_pack_scale *scale, float t)
{
    double w = scale->dt > 0 ? floor(((double)t - scale->t0) / scale->dt) : 0.0;
    return w < 0 ? 0 : w >= scale->windows - 1 ? scale->windows - 1 : (int)w;
}

/* The candidates (normalised and sign-aligned), their point indices and
 * the checkpoints: each candidate key and the quarter points between
 * keys, with the exact curve's values there. */
static int prepare(packing *p)
{
    const mr_track *tr = p->keys;
    int n = p->n = tr->key_count, c = tr->components;
    size_t checks = (size_t)(n - 1) * CHECKS + 1;
    p->v = mr_alloc_array((size_t)n * 4, sizeof *p->v);
    p->points = mr_alloc_array((size_t)n, sizeof *p->points);
    if (!p->checks_given) {
        p->ct = mr_alloc_array(checks, sizeof *p->ct);
        p->cv = mr_alloc_array(checks * 4, sizeof *p->cv);
    }
    p->deq = mr_alloc_array((size_t)n * 4, sizeof *p->deq);
    p->q = mr_alloc_array((size_t)n * 4, sizeof *p->q);
    p->kept = mr_alloc_array((size_t)n, sizeof *p->kept);
    p->best_q = mr_alloc_array((size_t)n * 4, sizeof *p->best_q);
    p->best_kept = mr_alloc_array((size_t)n, sizeof *p->best_kept);
    size_t segs = (size_t)segment_count(n);
    p->seg_bits = mr_alloc_array(segs, 1);
    p->seg_range = mr_alloc_array(segs * 8, 1);
    p->best_seg_bits = mr_alloc_array(segs, 1);
    p->best_seg_range = mr_alloc_array(segs * 8, 1);
    p->sv = mr_alloc_array((size_t)n * 4, sizeof *p->sv);
    p->seg_rebuilt = mr_alloc_array(segs, 1);
    p->best_seg_rebuilt = mr_alloc_array(segs, 1);
    if (p->factor) {
        p->gk = mr_alloc_array(checks, sizeof *p->gk);
        p->cheap_at = mr_alloc_array(checks, sizeof *p->cheap_at);
        if (!p->gk || !p->cheap_at) return -1;
    }
    if (!p->v || !p->points || !p->ct || !p->cv || !p->deq || !p->q || !p->kept || !p->best_q || !p->best_kept ||
        !p->seg_bits || !p->seg_range || !p->best_seg_bits || !p->best_seg_range || !p->sv || !p->seg_rebuilt ||
        !p->best_seg_rebuilt)
        return -1;
    for (int i = 0; i < n; i++) {
        memcpy(p->v + (size_t)i * 4, tr->values + (size_t)i * c, (size_t)c * sizeof(float));
        if (p->rotation) mr_clip_normalize4(p->v + (size_t)i * 4);
    }
    p->kt = tr->times;
    p->uniform = uniform_fit(tr->times, n, &p->t0, &p->dt);
    p->rebuilt = PACK_NONE;
    if (p->rotation) {
        float best = REBUILD_MIN;
        for (int e = 0; e < 4; e++) {
            float m = INFINITY;
            for (int i = 0; i < n; i++) m = fminf(m, fabsf(p->v[(size_t)i * 4 + e]));
            if (m > best) {
                best = m;
                p->rebuilt = e;
            }
        }
        for (int i = 0; i < n; i++) {
            float *q = p->v + (size_t)i * 4;
            int flip = p->rebuilt < PACK_NONE ? q[p->rebuilt] < 0
                                              : i > 0 && q[0] * q[-4] + q[1] * q[-3] + q[2] * q[-2] + q[3] * q[-1] < 0;
            if (flip)
                for (int e = 0; e < 4; e++) q[e] = -q[e];
        }
    }
    for (int e = 0; e < 4; e++) {
        p->lo_of[e] = INFINITY;
        p->hi_of[e] = -INFINITY;
        for (int i = 0; i < n; i++) {
            float x = p->v[(size_t)i * 4 + e];
            if (x < p->lo_of[e]) p->lo_of[e] = x;
            if (x > p->hi_of[e]) p->hi_of[e] = x;
        }
    }
    int at = 0, w_here = 0, w_next = 0;
    mr_clip_sample_memo memo = {0};
    const mr_clip_pack_scale *sc = p->factor;
    const float *g = sc && sc->windows >= 1 && sc->g ? sc->g + (size_t)p->joint * (size_t)sc->windows : NULL;
    for (int i = 0; n > 1 && i < n; i++) {
        while (at < p->point_count - 1 && p->times[at] < tr->times[i]) at++;
        if (p->times[at] != tr->times[i]) return -1;
        p->points[i] = (uint16_t)at;
    }
    for (int i = 0; n > 1 && i < n; i++)
        for (int k = 0; k < (i + 1 < n ? CHECKS : 1); k++) {
            size_t at2 = (size_t)i * CHECKS + (size_t)k;
            if (g && k == 0) {   /* the windows of this key and the next */
                w_here = i == 0 ? scale_window(sc, tr->times[0]) : w_next;
                if (i + 1 < n) w_next = scale_window(sc, tr->times[i + 1]);
            }
            float t = tr->times[i];
            if (k > 0) t += (tr->times[i + 1] - t) * (float)k / CHECKS;
            if (!p->checks_given) {
                p->ct[at2] = t;
                if (k == 0) memcpy(p->cv + at2 * 4, tr->values + (size_t)i * c, (size_t)c * sizeof(float));
                else mr_clip_sample_memo_at(p->src, t, p->cv + at2 * 4, &memo);
                if (p->rotation) mr_clip_normalize4(p->cv + at2 * 4);   /* `within` takes unit quaternions */
            }
            /* mr_clip_pack_scale_at: a window never decreases with the time, and
             * a quarter point lies between its keys (ascending, finite): both
             * keys in one window put it there */
            if (!p->gk) continue;
            if (!g) p->gk[at2] = 1.0f;
            else if (k == 0 || (w_here == w_next && isfinite(tr->times[i]) && isfinite(tr->times[i + 1]) &&
                                tr->times[i] <= tr->times[i + 1]))
                p->gk[at2] = g[w_here];
            else
                p->gk[at2] = g[scale_window(sc, t)];
        }
    if (p->gk && n == 1) p->gk[0] = 1.0f;
    return 0;
}

/* The budget's limits at `fraction` of it: cheap_budget, and with a scale
 * the limit at each checkpoint (its factor times the budget). */
static void set_limits(packing *p, double fraction)
{
    p->cheap_budget = cheap_limit(p, fraction * p->budget);
    if (!p->gk || p->n < 2) return;
    size_t checks = (size_t)(p->n - 1) * CHECKS + 1;
    float last = -1.0f;
    double lim = 0.0;
    for (size_t k = 0; k < checks; k++) {
        if (p->gk[k] != last) {   /* a run of equal factors costs one limit */
            last = p->gk[k];
            lim = cheap_limit(p, fraction * p->budget * last);
        }
        p->cheap_at[k] = lim;
    }
}

/* The limit at checkpoint k (cheap measure). */
static inline double limit_at(const packing *p, size_t k)
{
    return p->cheap_at ? p->cheap_at[k] : p->cheap_budget;
}

/* A trial at `bits` (32: float keys): fills p->deq with the keys as the
 * sampler decodes them, p->q, and comps/lo/step into the given slots.
 * 0 when quantisation alone keeps every key within half the budget. */
static int trial_keys(packing *p, int bits, double share, int *comps, float *lo, float *step)
{
    int n = p->n, r = p->rotation ? p->rebuilt : PACK_NONE;
    int c = p->rotation && r == PACK_NONE ? 4 : 3;
    if (bits == 32) {   /* float keys: a rotation keeps all four components */
        *comps = p->rotation ? 4 : 3;
        memcpy(p->deq, p->v, (size_t)n * 4 * sizeof(float));
        return 0;
    }
    *comps = c;
    double cheap = cheap_limit(p, share * p->budget);
    float g_last = 1.0f;
    int map[4];
    for (int e = 0, s = 0; e < (p->rotation ? 4 : 3); e++)
        if (e != r) map[s++] = e;
    float levels = (float)((1u << bits) - 1u), inv[4];
    for (int s = 0; s < c; s++) {
        lo[s] = p->lo_of[map[s]];
        step[s] = step_of_half(step_to_half((p->hi_of[map[s]] - lo[s]) / levels));   /* as stored */
        inv[s] = step[s] > 0 ? 1.0f / step[s] : 0.0f;
    }
    for (int i = 0; i < n; i++) {
        float st[4];
        for (int s = 0; s < c; s++) {
            float x = (p->v[(size_t)i * 4 + map[s]] - lo[s]) * inv[s];
            x = x < 0 ? 0 : x > levels ? levels : x;
            uint32_t qv = (uint32_t)lrintf(x);
            p->q[(size_t)i * c + s] = qv;
            st[s] = dequantise(lo[s], step[s], qv);
        }
        float *d = p->deq + (size_t)i * 4;
        finish_key(st, c, r, d);
        float u[4];
        if (p->write_only) continue;
        memcpy(u, d, sizeof u);
        if (p->rotation) mr_clip_normalize4(u);
        if (p->gk && p->gk[(size_t)i * CHECKS] != g_last) {
            g_last = p->gk[(size_t)i * CHECKS];
            cheap = cheap_limit(p, share * p->budget * g_last);
        }
        if (!within(p, u, p->v + (size_t)i * 4, cheap)) return -1;
    }
    return 0;
}

/* Does the sampler, interpolating decoded keys v0..v1 (times ta..tb, d
 * their dot product), stay within budget at checkpoint k? */
static inline int point_ok(const packing *p, size_t k, float ta, float tb, const float *v0, const float *v1, float d)
{
    float u = pack_alpha(p->ct[k], ta, tb);
#if defined(__SSE2__)
    if (p->rotation) {   /* interp_keys and mr_clip_normalize4, four lanes at a time (the sums in order) */
        float w1 = d < 0 ? -u : u, w0 = 1.0f - u, o[4];
        __m128 out = _mm_add_ps(_mm_mul_ps(_mm_set1_ps(w0), _mm_loadu_ps(v0)), _mm_mul_ps(_mm_set1_ps(w1), _mm_loadu_ps(v1)));
        _mm_storeu_ps(o, out);
        float len2 = o[0] * o[0] + o[1] * o[1] + o[2] * o[2] + o[3] * o[3];
        float inv = len2 > 0 ? 1.0f / sqrtf(len2) : 0.0f;
        out = inv == 0.0f ? _mm_set_ps(1.0f, 0.0f, 0.0f, 0.0f) : _mm_mul_ps(out, _mm_set1_ps(inv));
        return within_rotation(out, p->cv + k * 4, limit_at(p, k));
    }
#endif
    (void)d;
    float out[4];
    interp_keys(v0, v1, p->rotation, u, out);
    return within(p, out, p->cv + k * 4, limit_at(p, k));
}

/* Does the sampler, interpolating decoded keys a..b, stay within budget at
 * every checkpoint between them? The answer is the same in any order: the
 * checkpoint that failed last (p->hint) is tried first. */
static int segment_ok(packing *p, int a, int b)
{
    float ta = p->kt[a], tb = p->kt[b];
    const float *v0 = p->deq + (size_t)a * 4, *v1 = p->deq + (size_t)b * 4;
    float d = p->rotation ? v0[0] * v1[0] + v0[1] * v1[1] + v0[2] * v1[2] + v0[3] * v1[3] : 0.0f;
    size_t k0 = (size_t)a * CHECKS + 1, k1 = (size_t)b * CHECKS;
    if (p->hint >= k0 && p->hint < k1 && !point_ok(p, p->hint, ta, tb, v0, v1, d)) return 0;
    for (size_t k = k0; k < k1; k++)
        if (!point_ok(p, k, ta, tb, v0, v1, d)) {
            p->hint = k;
            return 0;
        }
    return 1;
}

static int segment_fits(const void *p, int a, int b)
{
    return segment_ok((packing *)p, a, b);   /* the ctx is the builder's own packing */
}

/* The stored components of a track (the rotation's rebuilt one left out). */
static int stored_components(const packing *p, int *map)
{
    int r = p->rotation ? p->rebuilt : PACK_NONE, c = 0;
    for (int e = 0; e < (p->rotation ? 4 : 3); e++)
        if (e != r) map[c++] = e;
    return c;
}

/* Quantises segment seg of a segmented trial (its kept keys first ..
 * first + keys - 1, its min and extent already in p->seg_range) at the
 * widths w (one per stored component) into p->q and p->deq. 1 when every
 * key and every checkpoint from the key before the segment to its last
 * stays within the whole budget. */
static int quantise_segment(packing *p, int seg, int first, int keys, const int *w, const float *lo, const float *range)
{
    int c = p->each ? 3 : stored_components(p, (int[4]){0});
    int r = p->each ? p->seg_rebuilt[seg] : p->rotation ? p->rebuilt : PACK_NONE;
    const uint8_t *sr = p->seg_range + (size_t)seg * (size_t)c * 2;
    float base[4], step[4], levels[4];
    for (int s = 0; s < c; s++) {
        segment_scale(lo[s], range[s], sr[2 * s], sr[2 * s + 1], w[s], &base[s], &step[s]);
        levels[s] = w[s] ? (float)((1u << w[s]) - 1u) : 0.0f;
    }
    for (int i = first; i < first + keys; i++) {
        int at = p->kept[i];
        float st[4];
        for (int s = 0; s < c; s++) {
            uint32_t q = 0;
            if (w[s]) {
                float x = step[s] > 0 ? (p->sv[(size_t)at * 4 + s] - base[s]) / step[s] : 0.0f;
                x = x < 0 ? 0 : x > levels[s] ? levels[s] : x;
                q = (uint32_t)lrintf(x);
            }
            p->q[(size_t)at * c + s] = q;
            st[s] = segment_value_at(base[s], step[s], w[s], q);
        }
        float *d = p->deq + (size_t)at * 4, u[4];
        finish_key(st, c, r, d);
        memcpy(u, d, sizeof u);
        if (p->write_only) continue;
        if (p->rotation) mr_clip_normalize4(u);
        if (!within(p, u, p->v + (size_t)at * 4, limit_at(p, (size_t)at * CHECKS))) return 0;
    }
    /* then the intervals (the answer is the same in any order, and so is
     * what stays of q and deq: a segment ends on its widths written whole),
     * the one that failed last first */
    if (p->write_only || p->keys_only) return 1;
    int h = p->key_hint;
    if (h > 0 && h >= first && h < first + keys && !segment_ok(p, p->kept[h - 1], p->kept[h])) return 0;
    for (int i = first > 0 ? first : 1; i < first + keys; i++)
        if (!segment_ok(p, p->kept[i - 1], p->kept[i])) {
            p->key_hint = i;
            return 0;
        }
    return 1;
}

/* The widths w of a segment's components for its byte of widths (the
 * widest's width and the components taking one bit fewer), as the
 * samplers compute them; returns w. */
static const int *segment_widths(packing *p, int seg, int c, const float *range, uint8_t code, int *w)
{
    int rexp[4];
    range_exponents(range, c, rexp);
    segment_widths_of(code, p->seg_range + (size_t)seg * (size_t)c * 2, c, rexp, w);
    return w;
}

/* A segmented trial at `share`: the keys reduced on their exact values
 * within the rest of the budget, then each segment of kept keys quantised
 * over its own range (in 255ths of the track's) at the fewest bits that
 * keep every kept key and every checkpoint within the whole budget.
 * Fills p->kept, p->q, p->deq, p->seg_bits, p->seg_range, lo and range (per
 * stored component) and *stream (bytes); returns the kept count, -1 when a
 * segment needs more than MAX_BITS. */
static int trial_segmented(packing *p, double share, int each, int *comps, float *lo, float *range, size_t *stream)
{
    int n = p->n, map[4], c = each ? 3 : stored_components(p, map);
    *comps = c;
    p->each = each;
    memcpy(p->deq, p->v, (size_t)n * 4 * sizeof(float));
    int m = p->reduced;
    if (m == 0) {   /* the reduction is the same with each component rebuilt: done once */
        set_limits(p, 1.0 - share);
        m = p->reduced = mr_reduce_keys(n, segment_fits, p, p->kept);
        set_limits(p, 1.0);
    }
    /* the stored values: the track's components, or with `each` per
     * segment the three left when the one farthest from zero over the
     * segment's keys is rebuilt (its sign made positive at every key) */
    for (int seg = 0; seg < segment_count(m); seg++) {
        int first = seg * PACK_SEGMENT_KEYS, keys = m - first < PACK_SEGMENT_KEYS ? m - first : PACK_SEGMENT_KEYS;
        if (each) {
            int r = 0;
            float best = -1.0f;
            for (int e = 0; e < 4; e++) {
                float low = INFINITY;
                for (int i = first; i < first + keys; i++) low = fminf(low, fabsf(p->v[(size_t)p->kept[i] * 4 + e]));
                if (low > best) {
                    best = low;
                    r = e;
                }
            }
            p->seg_rebuilt[seg] = (uint8_t)r;
            for (int e = 0, s = 0; e < 4; e++)
                if (e != r) map[s++] = e;
            for (int i = first; i < first + keys; i++) {
                const float *q = p->v + (size_t)p->kept[i] * 4;
                float sign = q[r] < 0 ? -1.0f : 1.0f;
                for (int s = 0; s < 3; s++) p->sv[(size_t)p->kept[i] * 4 + s] = sign * q[map[s]];
            }
        } else {
            for (int i = first; i < first + keys; i++)
                for (int s = 0; s < c; s++) p->sv[(size_t)p->kept[i] * 4 + s] = p->v[(size_t)p->kept[i] * 4 + map[s]];
        }
    }
    for (int s = 0; s < c; s++) {
        lo[s] = INFINITY;
        float hi = -INFINITY;
        for (int i = 0; i < m; i++) {
            float x = p->sv[(size_t)p->kept[i] * 4 + s];
            lo[s] = fminf(lo[s], x);
            hi = fmaxf(hi, x);
        }
        range[s] = hi - lo[s];
    }
    size_t total = 0;
    int bits = 8;   /* the widest component's width, searched from the last segment's */
    for (int seg = 0; seg < segment_count(m); seg++) {
        int first = seg * PACK_SEGMENT_KEYS, keys = m - first < PACK_SEGMENT_KEYS ? m - first : PACK_SEGMENT_KEYS;
        uint8_t *sr = p->seg_range + (size_t)seg * (size_t)c * 2;
        for (int s = 0; s < c; s++) {
            float unit = range[s] * (1.0f / 255.0f), smin = INFINITY, smax = -INFINITY;
            for (int i = first; i < first + keys; i++) {
                float x = p->sv[(size_t)p->kept[i] * 4 + s];
                smin = fminf(smin, x);
                smax = fmaxf(smax, x);
            }
            float a = unit > 0 ? floorf((smin - lo[s]) / unit) : 0.0f;
            a = a < 0 ? 0 : a > 255 ? 255 : a;
            float e = unit > 0 ? ceilf((smax - (lo[s] + a * unit)) / unit) - 1.0f : 0.0f;
            sr[2 * s] = (uint8_t)a;
            sr[2 * s + 1] = (uint8_t)(e < 0 ? 0 : e > 255 ? 255 : e);
        }
        /* Each component's width follows the widest's (bits), one bit
         * fewer for each halving of its extent against the widest's, so
         * that their steps are about equal (segment_widths_of); the fewest
         * bits that pass; then a bit fewer for each of the first three
         * components alone where that still passes. */
        int w[4];
        if (quantise_segment(p, seg, first, keys, segment_widths(p, seg, c, range, (uint8_t)bits, w), lo, range)) {
            while (bits > 0 &&
                   quantise_segment(p, seg, first, keys, segment_widths(p, seg, c, range, (uint8_t)(bits - 1), w), lo, range))
                bits--;
        } else {
            do {
                if (++bits > MAX_BITS) break;
            } while (!quantise_segment(p, seg, first, keys, segment_widths(p, seg, c, range, (uint8_t)bits, w), lo, range));
        }
        /* No width keeps the checkpoints between its keys in budget: the
         * exact keys' own interpolation leaves it (a budget scaled below the
         * one the candidates were refined for). The keys alone decide then,
         * as in the one-width trials (trial_keys); the measure judges the
         * pack. */
        p->keys_only = bits > MAX_BITS;
        if (p->keys_only) {
            bits = 0;
            while (!quantise_segment(p, seg, first, keys, segment_widths(p, seg, c, range, (uint8_t)bits, w), lo, range))
                if (++bits > MAX_BITS) {
                    p->keys_only = 0;
                    return -1;
                }
        }
        unsigned code = (unsigned)bits;
        for (int s = 0; s < c && s < 3; s++) {
            if (segment_widths(p, seg, c, range, (uint8_t)code, w)[s] == 0) continue;
            unsigned fewer = code | 1u << (SEG_FEWER_SHIFT + s);
            if (quantise_segment(p, seg, first, keys, segment_widths(p, seg, c, range, (uint8_t)fewer, w), lo, range))
                code = fewer;
        }
        /* q and deq at the widths kept (they passed: only written again) */
        p->write_only = 1;
        quantise_segment(p, seg, first, keys, segment_widths(p, seg, c, range, (uint8_t)code, w), lo, range);
        p->write_only = 0;
        p->keys_only = 0;
        p->seg_bits[seg] = (uint8_t)code;
        for (int s = 0; s < c; s++) total += (size_t)keys * (size_t)w[s];
    }
    *stream = (total + 7) / 8;
    return m;
}

/* The largest error of holding value v over the whole track: at its
 * checkpoints (where a held value is farthest from a lerped or slerped
 * curve: at its keys), or at its one key. */
static double hold_error(const packing *p, const float *v)
{
    if (p->n == 1) return channel_error(p, v, p->keys->values);
    double worst = 0;
    for (size_t k = 0; k < (size_t)(p->n - 1) * CHECKS + 1; k++) {
        double e = channel_error(p, v, p->cv + k * 4);
        if (!(e <= worst)) worst = e;   /* NaN stays */
    }
    return worst;
}

static int all_finite(const float *v, int c)
{
    for (int e = 0; e < c; e++)
        if (!isfinite(v[e])) return 0;
    return 1;
}

/* Does holding the first key (a float key, as stored) stay within budget
 * everywhere: a constant track? hold_error(p, v) <= budget, which it
 * keeps in p->held where it computed it whole. With finite values
 * channel_error gives no NaN (the only value hold_error's largest may
 * forget), so the first error over the budget answers. */
static int constant_ok(packing *p)
{
    if (!p->held_known) {
        int c = p->rotation ? 4 : 3;
        size_t checks = (size_t)(p->n - 1) * CHECKS + 1;
        int finite = p->n > 1 && all_finite(p->v, c);
        for (size_t k = 0; finite && k < checks; k++) finite = all_finite(p->cv + k * 4, c);
        if (finite) {
            double worst = 0;
            for (size_t k = 0; k < checks; k++) {
                double e = channel_error(p, p->v, p->cv + k * 4);
                if (!(e <= p->budget)) return 0;
                if (!(e <= worst)) worst = e;
            }
            p->held = worst;
        } else {
            p->held = hold_error(p, p->v);
        }
        p->held_known = 1;
    }
    return p->held <= p->budget;
}

/* Greedy reduction of a trial's keys into p->kept: from each kept key, the
 * farthest key the segment reaches within budget (galloping, then
 * bisecting). STEP tracks keep every key. Returns the count. */

static int reduce(packing *p, int step_keys)
{
    if (!step_keys) return mr_reduce_keys(p->n, segment_fits, p, p->kept);
    for (int i = 0; i < p->n; i++) p->kept[i] = i;
    return p->n;
}

/* The cheaper way to place `count` keys spanning `span` points: a point
 * index each, or a bitmap (*code PACK_BITMAP, *words of it). */
static size_t points_size(int count, int span, int point_bytes, int *code, int *words)
{
    *words = (span + 31) / 32;
    size_t index = index_size(count, 0, point_bytes, 0), bitmap = index_size(count, PACK_BITMAP, 0, *words);
    *code = bitmap < index ? PACK_BITMAP : 0;
    return bitmap < index ? bitmap : index;
}

/* The bytes of a trial's key times: every key with the track's all_code
 * (*all set), or the cheaper of indices and bitmap over the kept keys. */
static size_t times_size(const packing *p, int m, int *all)
{
    int how, words;
    *all = m == p->n && p->all_code;
    if (*all) return index_size(m, p->all_code, 0, 0);
    return points_size(m, p->points[p->kept[m - 1]] - p->points[p->kept[0]] + 1, p->point_bytes, &how, &words);
}

/* Keeps the trial just made (p->kept, p->q, segments) when it is the
 * smallest yet. */
static void keep_if_smaller(packing *p, size_t size, int m, int all, int comps, int bits, const float *lo,
                            const float *step, size_t stream)
{
    if (size >= p->size) return;
    p->size = size;
    p->count = m;
    p->all = all;
    p->comps = comps;
    p->bits = bits;
    p->stream = stream;
    p->best_each = bits == 0 && p->each;
    memcpy(p->lo, lo, sizeof p->lo);
    memcpy(p->step, step, sizeof p->step);
    memcpy(p->best_kept, p->kept, (size_t)m * sizeof *p->kept);
    memcpy(p->best_q, p->q, (size_t)p->n * (size_t)comps * sizeof *p->q);
    if (bits == 0) {
        size_t segs = (size_t)segment_count(m);
        memcpy(p->best_seg_bits, p->seg_bits, segs);
        if (p->each) memcpy(p->best_seg_rebuilt, p->seg_rebuilt, segs);
        memcpy(p->best_seg_range, p->seg_range, segs * (size_t)comps * 2);
    }
}

/* Packs one track: a constant, or the smallest of the trials: for each
 * share, one width for all keys and a width per segment; float keys. */
static int pack_track(packing *p)
{
    const mr_track *tr = p->keys;
    if (prepare(p) != 0) return -1;
    set_limits(p, 1.0);
    int step_keys = tr->interp == MR_INTERP_STEP;
    p->code = p->rotation ? p->rebuilt : PACK_NONE;
    if (step_keys) p->code |= PACK_STEP;
    if (p->n == 1 || (!step_keys && !p->varies && constant_ok(p))) {   /* one float key */
        p->count = 1;
        p->comps = tr->components;
        p->bits = 32;
        p->code = PACK_NONE;
        p->best_kept[0] = 0;
        p->size = track_size(1, p->comps, 32, 0, 0, 0);
        return 0;
    }
    p->size = SIZE_MAX;
    /* Every key kept needs no time points when the keys are evenly spaced
     * (the formula; its keys also leave the pack's time points) or sit on
     * consecutive points: mocap keeps most keys, and a point index costs
     * more than a key saves. */
    p->all_code = p->uniform ? PACK_UNIFORM : p->points[p->n - 1] - p->points[0] == p->n - 1 ? PACK_DENSE : 0;
    /* For each share, the fewest bits whose keys stay within it (bisected:
     * more bits, smaller steps); then float keys. (Wider keys, nearer the
     * curve, let the reduction drop more, but never enough to pay on the
     * shared models.) */
    for (int sh = 0; sh <= SHARES; sh++) {
        int comps, bits = 32, m, all;
        float lo[4] = {0}, step[4] = {0};
        size_t stream;
        /* a rotation that stores four components tries its segments with a
         * component rebuilt per segment too (on the CMU takes, one that
         * rebuilds one for the whole track never won so) */
        int segmented = 0;
        p->reduced = 0;
        for (int each = 0; sh == 0 && !step_keys && each <= (p->rotation && p->rebuilt == PACK_NONE); each++)
            if ((m = trial_segmented(p, shares[sh], each, &comps, lo, step, &stream)) > 0) {
                size_t index = times_size(p, m, &all);
                keep_if_smaller(p, track_size(m, comps, 0, index, stream, each), m, all, comps, 0, lo, step, stream);
                segmented = 1;
            }
        p->reduced = 0;   /* the trials below reduce into kept again */
        if (segmented && p->segments_won && p->n >= LONG_TRACK) break;   /* a repack of a long track: segments won before */
        if (sh < SHARES) {
            int lo_b = MIN_BITS, hi_b = MAX_BITS + 1, last = 0;   /* hi_b: passes (MAX_BITS + 1: none known) */
            while (lo_b < hi_b) {
                int mid = (lo_b + hi_b) / 2;
                if (trial_keys(p, mid, shares[sh], &comps, lo, step) == 0) hi_b = mid;
                else lo_b = mid + 1;
                last = mid;
            }
            if (hi_b > MAX_BITS) continue;
            bits = hi_b;
            /* the keys at hi_b passed: the last trial left them, or they are
             * only written again */
            if (last != bits) {
                p->write_only = 1;
                trial_keys(p, bits, shares[sh], &comps, lo, step);
                p->write_only = 0;
            }
        } else if (trial_keys(p, bits, 1.0, &comps, lo, step) != 0) {
            continue;
        }
        m = reduce(p, step_keys);
        size_t size = track_size(m, comps, bits, times_size(p, m, &all), 0, 0);
        size_t every =
            p->all_code ? track_size(p->n, comps, bits, index_size(p->n, p->all_code, 0, 0), 0, 0) : SIZE_MAX;
        if (every < size) {   /* every key: no point indices */
            for (int i = 0; i < p->n; i++) p->kept[i] = i;
            m = p->n;
            size = every;
            all = 1;
        }
        keep_if_smaller(p, size, m, all, comps, bits, lo, step, 0);
    }
    if (p->bits == 32) p->code = (p->code & PACK_STEP) | PACK_NONE;
    if (p->bits == 0 && p->best_each) p->code = (p->code & ~PACK_REBUILT) | PACK_EACH;
    if (p->all) p->code |= p->all_code;
    return 0;
}

/* ORs the low `bits` bits of v (at most 32) into the zeroed stream q at
 * bit `bit`, a byte at a time. */
static void put_bits(uint8_t *q, size_t bit, uint32_t v, int bits)
{
    if (bits <= 0) return;
    uint64_t x = (uint64_t)(bits >= 32 ? v : v & ((1u << bits) - 1u)) << (bit & 7);
    for (uint8_t *at = q + (bit >> 3); x; x >>= 8) *at++ |= (uint8_t)x;
}

/* Writes a packed track at rec (p->size bytes, zeroed). */
static void write_track(const packing *p, uint8_t *rec)
{
    *(uint16_t *)rec = (uint16_t)p->count;
    rec[2] = (uint8_t)(p->code | (p->comps == 4 ? PACK_FOUR : 0));
    rec[3] = (uint8_t)p->bits;
    uint8_t *w = rec + 4;
    if (p->count > 1 && p->code & PACK_UNIFORM) {
        memcpy(w, &p->t0, sizeof p->t0);
        memcpy(w + 4, &p->dt, sizeof p->dt);
    } else if (p->count > 1 && p->code & PACK_DENSE) {
        memcpy(w, &p->point[0], sizeof p->point[0]);
    } else if (p->count > 1 && p->code & PACK_BITMAP) {
        uint16_t words = (uint16_t)p->words;
        memcpy(w, &p->point[0], sizeof p->point[0]);
        memcpy(w + 2, &words, sizeof words);
        uint32_t *bits = (uint32_t *)(w + 4);
        for (int e = 0; e < p->count; e++) {
            int b = p->point[e] - p->point[0];
            bits[b >> 5] |= 1u << (b & 31);
        }
    } else if (p->count > 1) {
        for (int e = 0; e < p->count; e++) {
            if (p->point_bytes == 1) w[e] = (uint8_t)p->point[e];
            else ((uint16_t *)w)[e] = p->point[e];
        }
    }
    w += index_size(p->count, p->code, p->point_bytes, p->words);
    if (p->bits == 32) {
        float *v = (float *)w;
        for (int e = 0; e < p->count; e++) {
            const float *src = p->v + (size_t)p->best_kept[e] * 4;   /* rotations normalised */
            memcpy(v + (size_t)e * p->comps, src, (size_t)p->comps * sizeof(float));
        }
        return;
    }
    if (p->bits == 0) {   /* segmented */
        int c = p->comps, segs = segment_count(p->count);
        uint32_t stream = (uint32_t)p->stream;
        memcpy(w, p->lo, (size_t)c * sizeof(float));
        memcpy(w + 4 * c, p->step, (size_t)c * sizeof(float));   /* the ranges */
        memcpy(w + 8 * c, &stream, sizeof stream);
        uint8_t *skips = w + 8 * c + 4, *h = skips + 4 * skip_count(p->count);
        memcpy(h, p->best_seg_bits, (size_t)segs);
        h += segs;
        if (p->best_each) {
            memcpy(h, p->best_seg_rebuilt, (size_t)segs);
            h += segs;
        }
        memcpy(h, p->best_seg_range, (size_t)segs * (size_t)c * 2);
        uint8_t *q = w + segment_head_size(p->count, c, p->best_each);
        size_t bit = 0;
        for (int e = 0; e < p->count; e++) {
            int widths[4], rexp[4], sg = e / PACK_SEGMENT_KEYS;
            if (e % PACK_SEGMENT_KEYS == 0 && sg > 0 && sg % PACK_SKIP_SEGMENTS == 0) {
                uint32_t at = (uint32_t)bit;
                memcpy(skips + 4 * (size_t)(sg / PACK_SKIP_SEGMENTS - 1), &at, sizeof at);
            }
            range_exponents(p->step, c, rexp);
            segment_widths_of(p->best_seg_bits[sg], p->best_seg_range + (size_t)sg * (size_t)c * 2, c, rexp, widths);
            for (int s = 0; s < c; s++) {
                int bits = widths[s];
                put_bits(q, bit, p->best_q[(size_t)p->best_kept[e] * c + s], bits);
                bit += (size_t)bits;
            }
        }
        return;
    }
    float *lo = (float *)w;
    memcpy(lo, p->lo, (size_t)p->comps * sizeof(float));
    uint8_t *h = (uint8_t *)(lo + p->comps);
    for (int e = 0; e < p->comps; e++) {
        uint16_t half = step_to_half(p->step[e]);   /* exact: the step already is a half */
        memcpy(h + 2 * e, &half, sizeof half);
    }
    uint8_t *q = h + 2 * p->comps;
    size_t bit = 0;
    for (int e = 0; e < p->count; e++)
        for (int s = 0; s < p->comps; s++, bit += (size_t)p->bits)
            put_bits(q, bit, p->best_q[(size_t)p->best_kept[e] * p->comps + s], p->bits);
}

/* The sorted distinct key times of every track with more than one key;
 * *count -1 when there are more than 65535. */
static float *time_points(const mr_clip *clip, int *count)
{
    size_t total = 0;
    for (int j = 0; j < clip->joint_count; j++)
        for (int k = 0; k < 3; k++) {
            const mr_track *tr = mr_clip_track(clip, j, k);
            if (tr->key_count > 1) total += (size_t)tr->key_count;
        }
    float *t = mr_alloc_array(total ? total : 1, sizeof *t);
    if (!t) return NULL;
    size_t n = 0;
    for (int j = 0; j < clip->joint_count; j++)
        for (int k = 0; k < 3; k++) {
            const mr_track *tr = mr_clip_track(clip, j, k);
            if (tr->key_count <= 1) continue;
            memcpy(t + n, tr->times, (size_t)tr->key_count * sizeof *t);
            n += (size_t)tr->key_count;
        }
    if (n == 0) {
        t[0] = 0.0f;
        *count = 1;
        return t;
    }
    size_t m = mr_clip_distinct_times(t, n);   /* the tracks' ascending times merged, or sorted */
    *count = m > 65535 ? -1 : (int)m;
    return t;
}

/* Does track p need time points: more than one key, not uniform? */
static int needs_points(const packing *p)
{
    return p->keys && p->count > 1 && !(p->code & PACK_UNIFORM);
}

/* The pack's time points: the times of the keys kept by the tracks that
 * need them (a subset of the points the tracks were packed against, so a
 * dense track stays on consecutive points), each such key's point in
 * p->point, and every track's final point_bytes and size. Returns the
 * points (count in *count, at least one), NULL without memory. The points
 * are the sorted distinct key times: marked on the points packed against
 * (points[], ascending and distinct, count of them), each key at its
 * p->points (whose time equals the key's), and read in order; a zero
 * takes the bits of the first key time that is one (-0 and 0 are equal,
 * and a stable sort keeps the first of equals). Without memory for the
 * marks, or with a key time that is NaN, they are sorted. */
static float *place_keys(packing *ps, int tracks, const float *points, int point_count, int *count)
{
    size_t total = 0;
    for (int i = 0; i < tracks; i++)
        if (needs_points(&ps[i])) total += (size_t)ps[i].count;
    float *t = mr_alloc_array(total ? total : 1, sizeof *t);
    int *rank = total ? mr_alloc_array((size_t)point_count, sizeof *rank) : NULL;
    if (!t) {
        free(rank);
        return NULL;
    }
    size_t m = 0;
    int zero_set = 0;
    float zero = 0.0f;
    for (int i = 0; rank && i < tracks; i++)
        for (int e = 0; needs_points(&ps[i]) && e < ps[i].count; e++) {
            float kt = ps[i].kt[ps[i].best_kept[e]];
            if (isnan(kt)) {
                free(rank);
                rank = NULL;
                break;
            }
            if (kt == 0.0f && !zero_set) {
                zero = kt;
                zero_set = 1;
            }
            rank[ps[i].points[ps[i].best_kept[e]]] = 1;
        }
    if (rank) {
        for (int k = 0; k < point_count; k++)
            if (rank[k]) {
                rank[k] = (int)m;
                t[m++] = points[k] == 0.0f ? zero : points[k];
            }
    } else {
        for (int i = 0; i < tracks; i++)
            for (int e = 0; needs_points(&ps[i]) && e < ps[i].count; e++) t[m++] = ps[i].kt[ps[i].best_kept[e]];
        if (m > 0) {
            qsort(t, m, sizeof *t, mr_clip_compare_floats);
            size_t u = 1;
            for (size_t i = 1; i < m; i++)
                if (t[i] != t[u - 1]) t[u++] = t[i];
            m = u;
        }
    }
    if (m == 0) t[m++] = 0.0f;
    int point_bytes = m <= 256 ? 1 : 2;
    for (int i = 0; i < tracks; i++) {
        packing *p = &ps[i];
        p->point_bytes = point_bytes;
        if (!needs_points(p)) continue;
        p->code = p->code0;   /* as packed: a placement before may have changed it */
        free(p->point);
        p->point = mr_alloc_array((size_t)p->count, sizeof *p->point);
        if (!p->point) {
            free(rank);
            free(t);
            return NULL;
        }
        for (int e = 0; e < p->count; e++) {
            if (rank) {
                p->point[e] = (uint16_t)rank[p->points[p->best_kept[e]]];
                continue;
            }
            const float *at = bsearch(&p->kt[p->best_kept[e]], t, m, sizeof *t, mr_clip_compare_floats);
            p->point[e] = (uint16_t)(at - t);
        }
        int span = p->point[p->count - 1] - p->point[0] + 1, how;
        if (!(p->code & PACK_DENSE && span == p->count)) {
            p->code &= ~PACK_DENSE;
            points_size(p->count, span, point_bytes, &how, &p->words);
            p->code |= how;
        }
        p->size = track_size(p->count, p->comps, p->bits, index_size(p->count, p->code, point_bytes, p->words),
                             p->stream, (p->code & PACK_REBUILT) == PACK_EACH);
    }
    free(rank);
    *count = (int)m;
    return t;
}

float mr_clip_pack_scale_at(const mr_clip_pack_scale *scale, int joint, float t)
{
    if (!scale || scale->windows < 1 || !scale->g) return 1.0f;
    return scale->g[(size_t)joint * (size_t)scale->windows + (size_t)scale_window(scale, t)];
}

struct mr_clip_pack_builder {
    const mr_clip *clip;
    const mr_clip_runtime *rt;
    int n;
    float *times;            /* the candidates' time points, while packing */
    int point_count, point_bytes;
    double f;                /* the tolerance over MR_CLIP_FIDELITY */
    packing *ps;             /* n * 3: every channel's last packing */
    long *source;            /* n: each joint's source keys */
    unsigned char *segmented;   /* n * 3: the first run kept segments (a repack tries only them) */
    unsigned char *varies;      /* n * 3: the first run found no constant (its budget is unscaled) */
    float **ct, **cv;           /* n * 3: each channel's checkpoints and exact values there, kept */
    size_t kept_bytes;          /* for the runs after (CHECKS_KEPT_MAX at most), or NULL */
    double *hold;               /* n * 3 * 2: a constant track's hold_error of its key and of the rest */
    unsigned char *hold_known;  /* n * 3: hold holds them (the same in every run) */
    int runs;
};

/* The most bytes of checkpoints a builder keeps between runs (sampling
 * the exact curves again, slerps, was a fifth of a repack's time). */
#define CHECKS_KEPT_MAX ((size_t)32 << 20)

void mr_clip_pack_builder_destroy(mr_clip_pack_builder *b)
{
    if (!b) return;
    for (int i = 0; b->ps && i < b->n * 3; i++) packing_free(&b->ps[i]);
    free(b->ps);
    free(b->times);
    free(b->source);
    free(b->segmented);
    free(b->varies);
    for (int i = 0; b->ct && i < b->n * 3; i++) free(b->ct[i]);
    for (int i = 0; b->cv && i < b->n * 3; i++) free(b->cv[i]);
    free(b->ct);
    free(b->cv);
    free(b->hold);
    free(b->hold_known);
    free(b);
}

mr_clip_pack_builder *mr_clip_pack_builder_create(const mr_clip *clip, const mr_clip_runtime *rt)
{
    if (!clip || !clip->tracks || clip->joint_count <= 0) return NULL;
    int n = clip->joint_count;
    for (int j = 0; j < n; j++)
        for (int k = 0; k < 3; k++) {
            const mr_track *tr = mr_clip_track(clip, j, k);
            if (tr->key_count > 1 && tr->interp == MR_INTERP_CUBIC) return NULL;
            if (tr->key_count > 65535) return NULL;
            for (size_t v = 0; v < (size_t)tr->key_count * (size_t)tr->components; v++)
                if (!(fabsf(tr->values[v]) <= PACK_VALUE_MAX)) return NULL;
        }
    mr_clip_pack_builder *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->clip = clip;
    b->rt = rt;
    b->n = n;
    b->times = time_points(clip, &b->point_count);
    b->ps = calloc((size_t)n * 3, sizeof *b->ps);
    b->source = calloc((size_t)n, sizeof *b->source);
    b->segmented = calloc((size_t)n * 3, 1);
    b->varies = calloc((size_t)n * 3, 1);
    b->ct = calloc((size_t)n * 3, sizeof *b->ct);
    b->cv = calloc((size_t)n * 3, sizeof *b->cv);
    b->hold = calloc((size_t)n * 6, sizeof *b->hold);
    b->hold_known = calloc((size_t)n * 3, 1);
    if (!b->times || b->point_count < 1 || !b->ps || !b->source || !b->segmented || !b->varies || !b->ct || !b->cv ||
        !b->hold || !b->hold_known) {
        mr_clip_pack_builder_destroy(b);
        return NULL;
    }
    b->point_bytes = b->point_count <= 256 ? 1 : 2;
    b->f = (rt && rt->thin_tolerance > 0 ? rt->thin_tolerance : MR_CLIP_FIDELITY) / MR_CLIP_FIDELITY;
    return b;
}

/* Packs joint j's channels at the scale; -1 without memory. */
static int pack_joint(mr_clip_pack_builder *b, int j, const mr_clip_pack_scale *scale)
{
    const mr_clip *clip = b->clip;
    const mr_clip_runtime *rt = b->rt;
    double f = b->f;
    for (int k = 0; k < 3; k++) packing_free(&b->ps[j * 3 + k]);
    b->source[j] = 0;
    double angle = f * (rt && rt->max_angle ? rt->max_angle[j] : MR_CLIP_DEFAULT_MAX_ANGLE);
    /* Each joint may move what it carries by 2 angle * reach: half by
     * its rotation, a quarter each by its translation and scale
     * (clip_runtime.h). What a translation or scale leaves of its share
     * (all of it when it never changes: one float key, or no track) goes
     * to the rotation, which is packed last. */
    double unused = 0.0;
    static const int order[3] = {0, 2, 1};
    for (int o = 0; o < 3; o++) {
        int k = order[o];
        packing *p = &b->ps[j * 3 + k];
        const mr_track *tr = mr_clip_track(clip, j, k);
        if (tr->key_count == 0) {
            if (k != 1) unused += 0.5;
            continue;
        }
        p->keys = tr;
        p->src = k == 0 ? &clip->tracks[j].t : k == 1 ? &clip->tracks[j].r : &clip->tracks[j].s;
        if (p->src->key_count == 0) p->src = tr;
        p->rotation = k == 1;
        p->scale = k == 2;
        p->times = b->times;
        p->factor = scale;
        p->joint = j;
        p->segments_won = b->runs > 0 && b->segmented[j * 3 + k];
        p->varies = b->runs > 0 && b->varies[j * 3 + k];
        if (b->hold_known[j * 3 + k]) {   /* a constant track of an earlier run */
            p->held = b->hold[(j * 3 + k) * 2];
            p->held_known = 1;
        }
        if (b->ct[j * 3 + k]) {   /* the checkpoints of the first run */
            p->ct = b->ct[j * 3 + k];
            p->cv = b->cv[j * 3 + k];
            b->ct[j * 3 + k] = b->cv[j * 3 + k] = NULL;
            p->checks_given = 1;
        }
        p->point_count = b->point_count;
        p->point_bytes = b->point_bytes;
        p->budget = k == 0 ? (rt && rt->max_move ? f * rt->max_move[j] : 0.0)
                    : k == 1 ? (1.0 + unused) * angle : 0.5 * angle;
        if (pack_track(p) != 0) return -1;
        /* A constant track: left out when the skeleton's rest value
         * (where sampling then reads) is within the budget too. */
        double used = 1.0;
        if (p->count == 1) {
            const float *key = p->v, *rest = rt && rt->rest ? rt->rest + (size_t)j * 10 + (k == 0 ? 0 : k == 1 ? 3 : 7) : NULL;
            double held = p->held_known ? p->held : hold_error(p, key);
            if (!b->hold_known[j * 3 + k]) {   /* the same in every run: the values and budget are */
                b->hold[(j * 3 + k) * 2] = held;
                b->hold[(j * 3 + k) * 2 + 1] = rest ? hold_error(p, rest) : INFINITY;
                b->hold_known[j * 3 + k] = 1;
            }
            double at_rest = b->hold[(j * 3 + k) * 2 + 1];
            if (at_rest <= p->budget && at_rest <= held + 0.5 * (p->budget - held)) {
                p->keys = NULL;   /* the channel keeps the rest value */
                held = at_rest;
            }
            used = p->budget > 0 ? held / p->budget : (held == 0 ? 0.0 : 1.0);
        }
        if (k != 1) unused += 0.5 * (1.0 - (used < 1.0 ? used : 1.0));
        b->source[j] += tr->key_count;
        if (b->runs == 0) {
            b->segmented[j * 3 + k] = p->count > 1 && p->bits == 0;
            b->varies[j * 3 + k] = p->n > 1 && p->count > 1;
        }
        p->code0 = p->code;
        /* only the result is needed from here on, and the checkpoints for
         * the next run */
        size_t checks = p->n > 1 ? (size_t)(p->n - 1) * CHECKS + 1 : 1, bytes = checks * 5 * sizeof(float);
        if (p->checks_given || (p->n > 1 && b->kept_bytes + bytes <= CHECKS_KEPT_MAX)) {
            if (!p->checks_given) b->kept_bytes += bytes;
            b->ct[j * 3 + k] = p->ct;
            b->cv[j * 3 + k] = p->cv;
        } else {
            free(p->ct);
            free(p->cv);
        }
        p->checks_given = 0;
        free(p->gk);
        free(p->cheap_at);
        p->gk = NULL;
        p->cheap_at = NULL;
        free(p->deq);
        free(p->q);
        free(p->kept);
        p->ct = p->cv = p->deq = NULL;
        p->q = NULL;
        p->kept = NULL;
    }
    return 0;
}

mr_clip_pack *mr_clip_pack_builder_run(mr_clip_pack_builder *b, const mr_clip_pack_scale *scale,
                                       const unsigned char *changed)
{
    if (!b) return NULL;
    const mr_clip_runtime *rt = b->rt;
    int n = b->n;
    for (int j = 0; j < n; j++) {
        if (rt && rt->cancel && atomic_load(rt->cancel)) return NULL;   /* the build was cancelled (clip_worker.h) */
        if (changed && !changed[j]) continue;
        if (pack_joint(b, j, scale) != 0) {
            for (int k = 0; k < 3; k++) packing_free(&b->ps[j * 3 + k]);
            b->source[j] = -1;   /* packed again at the next run */
            return NULL;
        }
    }
    b->runs++;
    long kept = 0, source = 0;
    for (int j = 0; j < n; j++) {
        if (b->source[j] < 0 && pack_joint(b, j, scale) != 0) return NULL;
        source += b->source[j];
        for (int k = 0; k < 3; k++)
            if (b->ps[j * 3 + k].keys) kept += b->ps[j * 3 + k].count;
    }
    int point_count = 0;
    packing *ps = b->ps;
    float *points = place_keys(ps, n * 3, b->times, b->point_count, &point_count);
    size_t present_bytes = pad4(((size_t)n * 3 + 7) / 8);
    size_t bytes = sizeof(mr_clip_pack) + (size_t)point_count * sizeof(float) + present_bytes;
    for (int i = 0; points && i < n * 3; i++)
        if (ps[i].keys) bytes += ps[i].size;
    bytes += 4;   /* slack for the sampler's 32-bit reads */
    mr_clip_pack *pack = points && bytes < PACK_MAX_BYTES ? calloc(1, bytes) : NULL;
    if (pack) {
        uint8_t *base = (uint8_t *)pack;
        pack->bytes = (uint32_t)bytes;
        pack->magic = MR_CLIP_PACK_MAGIC;
        pack->joint_count = n;
        pack->point_count = point_count;
        pack->point_bytes = point_count <= 256 ? 1 : 2;
        pack->tolerance = (float)(b->f * MR_CLIP_FIDELITY);
        pack->keys = (int32_t)kept;
        pack->source_keys = (int32_t)source;
        size_t at = sizeof *pack;
        pack->times = (uint32_t)at;
        memcpy(base + at, points, (size_t)point_count * sizeof(float));
        at += (size_t)point_count * sizeof(float);
        pack->present = (uint32_t)at;
        uint8_t *present = base + at;
        at += present_bytes;
        pack->tracks = (uint32_t)at;
        for (int i = 0; i < n * 3; i++) {
            if (!ps[i].keys) continue;
            present[i >> 3] |= (uint8_t)(1u << (i & 7));
            write_track(&ps[i], base + at);
            at += ps[i].size;
        }
    }
    free(points);
    return pack;
}

mr_clip_pack *mr_clip_pack_build(const mr_clip *clip, const mr_clip_runtime *rt, const mr_clip_pack_scale *scale)
{
    mr_clip_pack_builder *b = mr_clip_pack_builder_create(clip, rt);
    mr_clip_pack *pack = mr_clip_pack_builder_run(b, scale, NULL);
    mr_clip_pack_builder_destroy(b);
    return pack;
}

int mr_clip_pack_track_keys(const mr_clip_pack *pack, int joint, int channel)
{
    if (!pack || joint < 0 || joint >= pack->joint_count || channel < 0 || channel > 2) return 0;
    const uint8_t *base = (const uint8_t *)pack, *present = base + pack->present, *rec = base + pack->tracks;
    for (int i = 0; i < joint * 3 + channel; i++)
        if (has_track(present, i)) {
            rec += view_of(rec, pack->point_bytes).size;
        }
    return has_track(present, joint * 3 + channel) ? *(const uint16_t *)rec : 0;
}

/* ---- checking a block read from outside ------------------------------------------------ */


int mr_clip_pack_valid(const void *block, size_t bytes, int joint_count)
{
    const mr_clip_pack *pack = block;
    if (!block || bytes < sizeof *pack + 4 || ((uintptr_t)block & 3)) return 0;
    if (pack->magic != MR_CLIP_PACK_MAGIC || pack->bytes != bytes || pack->joint_count != joint_count ||
        joint_count <= 0 || pack->point_count < 1 || pack->point_count > 65535 ||
        pack->point_bytes != (pack->point_count <= 256 ? 1 : 2))
        return 0;
    size_t end = bytes - 4;   /* the slack stays out of every record */
    size_t tend = (size_t)pack->times + (size_t)pack->point_count * sizeof(float);
    size_t pend = (size_t)pack->present + pad4(((size_t)joint_count * 3 + 7) / 8);
    if (pack->times != sizeof *pack || tend != pack->present || pend != pack->tracks || pack->tracks > end)
        return 0;
    const uint8_t *base = block;
    const float *times = (const float *)(base + pack->times);
    /* ascending, each interval's reciprocal finite (what the samplers' alpha multiplies by) */
    for (int i = 0; i < pack->point_count; i++)
        if (!isfinite(times[i]) || (i > 0 && !(times[i] > times[i - 1] && isfinite(1.0f / (times[i] - times[i - 1])))))
            return 0;
    const uint8_t *present = base + pack->present;
    size_t off = pack->tracks;
    for (int i = 0; i < joint_count * 3; i++) {
        if (!has_track(present, i)) continue;
        if (off + 4 > end) return 0;
        const uint8_t *rec = base + off;
        /* the header first: the record must fit before view_of reads it */
        int count = *(const uint16_t *)rec, comps = rec[2] & PACK_FOUR ? 4 : 3, code = rec[2] & ~PACK_FOUR;
        int bits = rec[3], rotation = i % 3 == 1, rebuilt = code & PACK_REBUILT;
        int times_code = code & (PACK_DENSE | PACK_UNIFORM | PACK_BITMAP);
        int each = rebuilt == PACK_EACH;   /* a rotation's segments, each naming its rebuilt component */
        if (count < 1 || (code & ~(PACK_REBUILT | PACK_STEP | times_code)) || rebuilt > PACK_EACH ||
            (times_code & (times_code - 1)))   /* one way to give key times at most */
            return 0;
        if (!(bits == 32 || bits <= 24)) return 0;   /* 0: segmented */
        if (rotation ? !(comps == 4 ? rebuilt == PACK_NONE
                                    : (rebuilt < PACK_NONE && bits != 32) || (each && bits == 0))
                     : !(comps == 3 && rebuilt == PACK_NONE))
            return 0;
        int words = 0;
        if (count > 1 && code & PACK_BITMAP) {   /* its word count, inside before it is read */
            if (off + 8 > end) return 0;
            words = *(const uint16_t *)(rec + 6);
        }
        size_t index = index_size(count, code, pack->point_bytes, words), stream = 0;
        if (bits == 0) {   /* segmented: its head inside, then every width, and the stream's bytes */
            if (off + 4 + index + segment_head_size(count, comps, each) > end) return 0;
            const uint8_t *head = rec + 4 + index, *skips = head + (size_t)comps * 8 + 4;
            const uint8_t *seg_bits = skips + 4 * skip_count(count);
            uint32_t bytes32;
            memcpy(&bytes32, head + (size_t)comps * 8, sizeof bytes32);
            int segs = segment_count(count);
            float range[4];
            int rexp[4];
            memcpy(range, head + (size_t)comps * 4, (size_t)comps * sizeof(float));
            range_exponents(range, comps, rexp);
            const uint8_t *seg_rebuilt = seg_bits + segs, *seg_range = seg_rebuilt + (each ? segs : 0);
            uint64_t total = 0;
            for (int sg = 0; sg < segs; sg++) {
                int w[4];
                if (sg > 0 && sg % PACK_SKIP_SEGMENTS == 0) {   /* each skip where the walk puts it */
                    uint32_t at;
                    memcpy(&at, skips + 4 * (size_t)(sg / PACK_SKIP_SEGMENTS - 1), sizeof at);
                    if (at != total) return 0;
                }
                if ((seg_bits[sg] & SEG_WIDTH_MASK) > MAX_BITS) return 0;
                uint64_t key_bits = (uint64_t)segment_widths_of(seg_bits[sg], seg_range + (size_t)sg * (size_t)comps * 2,
                                                                comps, rexp, w);
                total += (uint64_t)(count - sg * PACK_SEGMENT_KEYS < PACK_SEGMENT_KEYS ? count - sg * PACK_SEGMENT_KEYS
                                                                                     : PACK_SEGMENT_KEYS) *
                         key_bits;
            }
            if (bytes32 != (total + 7) / 8) return 0;
            for (int sg = 0; each && sg < segs; sg++)
                if (seg_rebuilt[sg] > 3) return 0;
            stream = bytes32;
        }
        off += track_size(count, comps, bits, index, stream, each);
        if (off > end) return 0;
        track_view tv = view_of(rec, pack->point_bytes);
        if (tv.count > 1 && code & PACK_DENSE && (long)tv.first + tv.count > pack->point_count) return 0;
        if (tv.bitmap) {   /* the first key on bit 0, `count` bits, the last in the last word and on a point */
            long set = popcount_words(tv.bitmap, words);
            if (words < 1 || !(tv.bitmap[0] & 1u) || set != tv.count || !tv.bitmap[words - 1] ||
                (long)tv.first + bit_prev(&tv, words * 32 - 1) >= pack->point_count)
                return 0;
        }
        if (tv.count > 1 && code & PACK_UNIFORM) {   /* key times as the time points above */
            if (!isfinite(tv.t0) || !(tv.dt > 0) || !isfinite(tv.dt)) return 0;
            for (int k = 1; k < tv.count; k++) {
                float a = key_time(&tv, times, k - 1), b = key_time(&tv, times, k);
                if (!(b > a) || !isfinite(b) || !isfinite(1.0f / (b - a))) return 0;
            }
        }
        for (int k = 0; tv.count > 1 && tv.point_bytes && k < tv.count; k++)
            if (point_of(&tv, k) >= pack->point_count || (k > 0 && point_of(&tv, k) <= point_of(&tv, k - 1)))
                return 0;
        /* every value a key may decode to within PACK_VALUE_MAX (finite, and
         * its square too: the samplers' normalising stays finite) */
        if (tv.v) {
            for (size_t k = 0; k < (size_t)tv.count * (size_t)tv.comps; k++)
                if (!(fabsf(tv.v[k]) <= PACK_VALUE_MAX)) return 0;
        } else if (tv.range) {   /* a segment reaches lo + (255 + 256) / 255 of the range */
            for (int s = 0; s < tv.comps; s++)
                if (!(fabs(tv.lo[s]) + 2.01 * fabs(tv.range[s]) <= PACK_VALUE_MAX)) return 0;
        } else {
            for (int s = 0; s < tv.comps; s++)
                if (!(fabs(tv.lo[s]) + fabs(tv.step[s]) * (double)((1u << tv.bits) - 1u) <= PACK_VALUE_MAX)) return 0;
        }
    }
    return off == end;
}
