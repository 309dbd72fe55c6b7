/* clip_measure.c — the measured budget (see clip_measure.h). */
#include "anim/clip_measure.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "anim/clip_interp.h"
#include "anim/pose.h"
#include "anim/skeleton.h"
#include "core/alloc.h"

/* Repacks after the proven one, each from the last one's measure, until
 * one is within the tolerance: the first spreads the room, the next take
 * it back where the measure went over (the last of them to the proven
 * budget), the last halve every loosening. */
#define ROUNDS 7
#define TAKE_BACK_ROUNDS 5
/* What each window's factor aims its measured error at (a fraction of the
 * tolerance), and how far one round moves a factor. */
#define AIM 0.9
#define GROW_MAX 4.0
#define SHRINK_MIN 0.5
#define FACTOR_MIN 0.25f
#define FACTOR_MAX 64.0f
/* Checkpoints per window: the factor's resolution in time (about a
 * segment of keys, clip_pack.h). */
#define WINDOW_CHECKS 32
/* The most source keys measured (a clip of more keeps the proven pack),
 * and the most joint-windows (fewer, longer windows beyond it). */
#define KEYS_MAX ((size_t)1 << 22)
#define CELLS_MAX ((size_t)1 << 22)
/* The most bytes the exact values kept for every round may take. */
#define CACHE_MAX ((size_t)32 << 20)

typedef struct measure {
    int n;
    double *reach;            /* per joint */
    double limit;             /* the tolerance in model units */
    int checks;
    float *ct;                /* checkpoint times, ascending */
    mr_skeleton sk;           /* the parents and the rest pose */
    mr_pose played, exact;
    mat4 *mp, *me;
    mr_clip_cursor *cur;      /* plays each pack in time order */
    unsigned long long serial;   /* the cursor's name for the pack it plays */
    float *rows;              /* the exact pose's model rows at every checkpoint (ROW_FLOATS */
                              /* per joint), or NULL: */
    float *cache;             /* the exact values of the animated channels at every */
    int cached;               /* checkpoint (cached floats each), or NULL: sampled each time */
    mr_clip_sample_memo *memo;   /* sample_exact's, 3 per joint */
    double *sub;              /* per joint, at one checkpoint: the worst ratio of it and below */
    int windows;
    float t0;
    double dt;
} measure;

static void measure_free(measure *m)
{
    free(m->reach);
    free(m->ct);
    mr_skeleton_deinit(&m->sk);
    mr_pose_deinit(&m->played);
    mr_pose_deinit(&m->exact);
    free(m->sub);
    free(m->rows);
    free(m->memo);
    free(m->cache);
    mr_clip_cursor_destroy(m->cur);
    free(m->mp);
    free(m->me);
}

/* What the measure reads of a joint's model matrix: its linear part by
 * columns, then its origin. */
#define ROW_FLOATS 12

static void store_rows(const mat4 *model, int n, float *rows)
{
    for (int j = 0; j < n; j++, rows += ROW_FLOATS)
        for (int c = 0; c < 4; c++) memcpy(rows + c * 3, model[j][c], 3 * sizeof(float));
}

/* The sorted distinct key times of the source tracks and the quarter
 * points between them; NULL without memory. */
static float *checkpoints(const mr_clip *clip, int *count)
{
    size_t total = 0;
    for (int j = 0; j < clip->joint_count; j++) {
        const mr_joint_tracks *jt = &clip->tracks[j];
        total += (size_t)jt->t.key_count + (size_t)jt->r.key_count + (size_t)jt->s.key_count;
    }
    if (total > KEYS_MAX) return NULL;
    float *t = mr_alloc_array(total + 1, sizeof *t);
    if (!t) return NULL;
    size_t n = 0;
    for (int j = 0; j < clip->joint_count; j++) {
        const mr_track *tr[3] = {&clip->tracks[j].t, &clip->tracks[j].r, &clip->tracks[j].s};
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < tr[k]->key_count; i++) t[n++] = tr[k]->times[i];
    }
    if (n == 0) t[n++] = 0.0f;
    size_t u = mr_clip_distinct_times(t, n);   /* the tracks' ascending times merged, or sorted */
    /* spread out from the back, the quarter points between */
    size_t m = (u - 1) * 4 + 1;
    float *grown = realloc(t, m * sizeof *t);
    if (!grown) {
        free(t);
        return NULL;
    }
    t = grown;
    for (size_t i = u; i-- > 0;) {
        t[i * 4] = t[i];
        if (i + 1 < u)
            for (int q = 1; q < 4; q++) {
                float a = t[i], b = t[(i + 1) * 4];
                t[i * 4 + (size_t)q] = a + (b - a) * (float)q / 4.0f;
            }
    }
    *count = (int)m;
    return t;
}

/* The exact values of the channels with keys at t (the others are left
 * as they are: the rest pose): mr_track_sample, each channel keeping its
 * last slerped interval in memo (3 per joint). */
static void sample_exact(const mr_clip *clip, int n, float t, mr_pose *pose, mr_clip_sample_memo *memo)
{
    for (int j = 0; j < n; j++, memo += 3) {
        const mr_joint_tracks *jt = &clip->tracks[j];
        if (jt->t.key_count) mr_clip_sample_memo_at(&jt->t, t, pose->t[j], &memo[0]);
        if (jt->r.key_count) mr_clip_sample_memo_at(&jt->r, t, pose->r[j], &memo[1]);
        if (jt->s.key_count) mr_clip_sample_memo_at(&jt->s, t, pose->s[j], &memo[2]);
    }
}

/* Reach and size from the budgets (clip_measure.h): 0 when there are none. */
static int measure_init(measure *m, const mr_clip *clip, const mr_clip_runtime *rt)
{
    memset(m, 0, sizeof *m);
    int n = m->n = clip->joint_count;
    if (!rt->max_angle || !rt->max_move || !rt->rest || !rt->parents || n <= 0) return 0;
    m->reach = mr_alloc_array((size_t)n, sizeof *m->reach);
    double *down = mr_alloc_array((size_t)n, sizeof *down), *up = mr_alloc_array((size_t)n, sizeof *up);
    int ok = m->reach && down && up;
    for (int j = 0; ok && j < n; j++) {
        if (rt->parents[j] >= j || rt->parents[j] < -1) ok = 0;
        else m->reach[j] = 2.0 * rt->max_move[j] / rt->max_angle[j];
    }
    /* B = max_angle[j] * S_j wherever the chain was not held at its floor */
    double b = 0.0;
    for (int j = 0; ok && j < n; j++) down[j] = m->reach[j] + (rt->parents[j] >= 0 ? down[rt->parents[j]] : 0.0);
    for (int j = 0; ok && j < n; j++) up[j] = m->reach[j];
    for (int j = n - 1; ok && j >= 0; j--) {
        int p = rt->parents[j];
        if (p >= 0 && up[j] + m->reach[p] > up[p]) up[p] = up[j] + m->reach[p];
    }
    for (int j = 0; ok && j < n; j++) {
        double s = (double)rt->max_angle[j] * (down[j] + up[j] - m->reach[j]);
        if (s > b) b = s;
    }
    free(down);
    free(up);
    /* B came from the budgets' reach; the measure takes each joint's own
     * points (point_reach) where the model gave them: a point moves with
     * the joints that carry it, and a child's origin is measured at the
     * child. */
    for (int j = 0; ok && rt->point_reach && j < n; j++)
        if (rt->point_reach[j] < m->reach[j]) m->reach[j] = rt->point_reach[j];
    double f = (rt->thin_tolerance > 0 ? rt->thin_tolerance : MR_CLIP_FIDELITY) / MR_CLIP_FIDELITY;
    /* the tolerance is 2 B at MR_CLIP_FIDELITY; a hair under it for the
     * budgets' float rounding */
    m->limit = 2.0 * b * f * (1.0 - 1e-5);
    if (!ok || !(m->limit > 0) || !isfinite(m->limit)) return 0;
    m->ct = checkpoints(clip, &m->checks);
    if (!m->ct || mr_skeleton_init(&m->sk, n) != MR_OK || mr_pose_init(&m->played, n) != MR_OK ||
        mr_pose_init(&m->exact, n) != MR_OK)
        return 0;
    m->mp = mr_alloc_array((size_t)n, sizeof *m->mp);
    m->me = mr_alloc_array((size_t)n, sizeof *m->me);
    m->sub = mr_alloc_array((size_t)n, sizeof *m->sub);
    m->cur = mr_clip_cursor_create(n);
    m->memo = mr_alloc_array((size_t)n * 3, sizeof *m->memo);
    if (!m->mp || !m->me || !m->sub || !m->cur || !m->memo) return 0;
    for (int j = 0; j < n; j++) {
        m->sk.parents[j] = rt->parents[j];
        memcpy(m->sk.rest_t[j], rt->rest + (size_t)j * 10, 3 * sizeof(float));
        memcpy(m->sk.rest_r[j], rt->rest + (size_t)j * 10 + 3, 4 * sizeof(float));
        memcpy(m->sk.rest_s[j], rt->rest + (size_t)j * 10 + 7, 3 * sizeof(float));
    }
    /* the exact pose: the channels without keys keep the rest values set
     * here; its model rows at every checkpoint are computed once (slerps,
     * local-to-model) and kept for every round when that takes at most
     * CACHE_MAX bytes, else the animated channels' values when they do */
    mr_pose_set_rest(&m->exact, &m->sk);
    if ((size_t)m->checks * (size_t)n * ROW_FLOATS * sizeof(float) <= CACHE_MAX &&
        (m->rows = mr_alloc_array((size_t)m->checks * (size_t)n * ROW_FLOATS, sizeof *m->rows))) {
        for (int i = 0; i < m->checks; i++) {
            sample_exact(clip, m->n, m->ct[i], &m->exact, m->memo);
            mr_pose_to_model(&m->sk, &m->exact, m->me);
            store_rows(m->me, n, m->rows + (size_t)i * (size_t)n * ROW_FLOATS);
        }
    }
    for (int j = 0; !m->rows && j < n; j++) {
        const mr_joint_tracks *jt = &clip->tracks[j];
        m->cached += (jt->t.key_count ? 3 : 0) + (jt->r.key_count ? 4 : 0) + (jt->s.key_count ? 3 : 0);
    }
    if (!m->rows && (size_t)m->cached * (size_t)m->checks * sizeof(float) <= CACHE_MAX &&
        (m->cache = mr_alloc_array((size_t)m->cached * (size_t)m->checks, sizeof *m->cache))) {
        for (int i = 0; i < m->checks; i++) {
            sample_exact(clip, m->n, m->ct[i], &m->exact, m->memo);
            float *at = m->cache + (size_t)i * (size_t)m->cached;
            for (int j = 0; j < n; j++) {
                const mr_joint_tracks *jt = &clip->tracks[j];
                if (jt->t.key_count) memcpy(at, m->exact.t[j], 3 * sizeof(float)), at += 3;
                if (jt->r.key_count) memcpy(at, m->exact.r[j], 4 * sizeof(float)), at += 4;
                if (jt->s.key_count) memcpy(at, m->exact.s[j], 3 * sizeof(float)), at += 3;
            }
        }
    }
    int units = (m->checks + WINDOW_CHECKS - 1) / WINDOW_CHECKS;
    float t0 = m->ct[0], t1 = m->ct[m->checks - 1];
    int most = (int)(CELLS_MAX / (size_t)n);
    m->windows = units < 1 || !(t1 > t0) ? 1 : units > most ? most : units;
    if (m->windows < 1) return 0;
    m->t0 = t0;
    m->dt = m->windows > 1 ? ((double)t1 - t0) / m->windows : 1.0;
    return 1;
}

/* d = the 3x3 linear part of a - b (b: its columns `stride` floats apart,
 * a mat4's or store_rows'), and the diagonal of s = d^T d (columns' dot
 * products). */
static inline void linear_diff(const mat4 a, const float *b, int stride, double d[3][3], double s[3][3])
{
#if defined(__SSE2__)
    /* two rows at a time: the same differences, squares and sums in order */
    for (int c = 0; c < 3; c++) {
        __m128d d01 = _mm_sub_pd(_mm_cvtps_pd(_mm_loadu_ps(a[c])),
                                 _mm_cvtps_pd(_mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)(b + c * stride))));
        __m128d sq = _mm_mul_pd(d01, d01);
        _mm_storeu_pd(d[c], d01);
        d[c][2] = (double)a[c][2] - b[c * stride + 2];
        s[c][c] = (_mm_cvtsd_f64(sq) + _mm_cvtsd_f64(_mm_unpackhi_pd(sq, sq))) + d[c][2] * d[c][2];
    }
#else
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) d[c][r] = (double)a[c][r] - b[c * stride + r];
    for (int i = 0; i < 3; i++) s[i][i] = d[i][0] * d[i][0] + d[i][1] * d[i][1] + d[i][2] * d[i][2];
#endif
}

/* The rest of s = d^T d: what linear_norm reads above the diagonal (and
 * its mirror). */
static void linear_gram(const double d[3][3], double s[3][3])
{
    s[0][1] = s[1][0] = d[0][0] * d[1][0] + d[0][1] * d[1][1] + d[0][2] * d[1][2];
    s[0][2] = s[2][0] = d[0][0] * d[2][0] + d[0][1] * d[2][1] + d[0][2] * d[2][2];
    s[1][2] = s[2][1] = d[1][0] * d[2][0] + d[1][1] * d[2][1] + d[1][2] * d[2][2];
}

/* What linear_norm(s, 0) is at most from s's diagonal alone: the largest
 * value its square root takes (its trace, as linear_norm clamps it, or its
 * largest diagonal entry), with the same rounding up; infinite unless the
 * trace is finite (then every entry of s is). */
static double diagonal_norm(const double s[3][3])
{
    double q = (s[0][0] + s[1][1] + s[2][2]) / 3.0, tr = 3.0 * q;
    if (!(tr <= DBL_MAX)) return INFINITY;
    double top = tr;   /* no NaN here: comparisons are fmax */
    for (int i = 0; i < 3; i++) top = s[i][i] > top ? s[i][i] : top;
    return sqrt(top > 0 ? top : 0.0) * (1.0 + 1e-6);
}

/* The spectral norm of the linear part whose linear_gram is s (exact), or
 * what it is at most without the cosine of an arc cosine (!exact: the
 * closed form with the cosine at its most, 1, and the same clamps, so never
 * under the exact value; where s is diagonal, the exact value). */
static double linear_norm(const double s[3][3], int exact)
{
    /* the largest eigenvalue of the symmetric s, in closed form */
    double p1 = s[0][1] * s[0][1] + s[0][2] * s[0][2] + s[1][2] * s[1][2];
    double q = (s[0][0] + s[1][1] + s[2][2]) / 3.0, top;
    if (p1 <= 1e-300) {
        top = fmax(s[0][0], fmax(s[1][1], s[2][2]));
    } else {
        double a0 = s[0][0] - q, a1 = s[1][1] - q, a2 = s[2][2] - q;
        double p2 = a0 * a0 + a1 * a1 + a2 * a2 + 2.0 * p1, p = sqrt(p2 / 6.0);
        if (exact) {
            double det = a0 * (a1 * a2 - s[1][2] * s[1][2]) - s[0][1] * (s[0][1] * a2 - s[1][2] * s[0][2]) +
                         s[0][2] * (s[0][1] * s[1][2] - a1 * s[0][2]);
            double r = det / (2.0 * p * p * p);
            r = r < -1.0 ? -1.0 : r > 1.0 ? 1.0 : r;
            top = q + 2.0 * p * cos(acos(r) / 3.0);
        } else {
            top = q + 2.0 * p;
        }
        /* never under the trace's third nor over the trace */
        double tr = 3.0 * q;
        top = top < q ? q : top > tr ? tr : top;
    }
    return sqrt(top > 0 ? top : 0.0) * (1.0 + 1e-6);
}


static int window_of(const measure *m, float t)
{
    double w = floor(((double)t - m->t0) / m->dt);
    return w < 0 ? 0 : w >= m->windows - 1 ? m->windows - 1 : (int)w;
}

/* The measure of pack: per joint and window the largest ratio of the
 * joint or any joint below it (ratio[joint * windows + w]; may be NULL),
 * the largest overall; -1 when cancelled. */
static double measure_pack(measure *m, const mr_clip *clip, const mr_clip_runtime *rt, const mr_clip_pack *pack,
                           float *ratio)
{
    if (ratio)
        for (size_t w = 0; w < (size_t)m->windows * (size_t)m->n; w++) ratio[w] = 0.0f;
    double worst = 0.0;
    m->serial++;   /* a pack of its own for the cursor, whatever its address */
    for (int i = 0; i < m->checks; i++) {
        if ((i & 255) == 0 && rt->cancel && atomic_load(rt->cancel)) return -1.0;
        float t = m->ct[i];
        if (!mr_clip_cursor_sample_model(m->cur, pack, m->serial, &m->sk, t, NULL, m->mp)) {
            mr_clip_pack_sample(pack, &m->sk, t, &m->played);   /* no memory for the cursor's rows */
            mr_pose_to_model(&m->sk, &m->played, m->mp);
        }
        /* the exact model rows: kept, or this checkpoint's matrices */
        const float *ex = (const float *)m->me;
        int joint_floats = 16, stride = 4;
        if (m->rows) {
            ex = m->rows + (size_t)i * (size_t)m->n * ROW_FLOATS;
            joint_floats = ROW_FLOATS;
            stride = 3;
        } else {
            if (m->cache) {
                const float *at = m->cache + (size_t)i * (size_t)m->cached;
                for (int j = 0; j < m->n; j++) {
                    const mr_joint_tracks *jt = &clip->tracks[j];
                    if (jt->t.key_count) memcpy(m->exact.t[j], at, 3 * sizeof(float)), at += 3;
                    if (jt->r.key_count) memcpy(m->exact.r[j], at, 4 * sizeof(float)), at += 4;
                    if (jt->s.key_count) memcpy(m->exact.s[j], at, 3 * sizeof(float)), at += 3;
                }
            } else {
                sample_exact(clip, m->n, t, &m->exact, m->memo);
            }
            mr_pose_to_model(&m->sk, &m->exact, m->me);
        }
        double here = 0.0;
        int w = window_of(m, t);
        for (int j = 0; j < m->n; j++) {
            const float *e_rows = ex + (size_t)j * (size_t)joint_floats, *o = e_rows + 3 * stride;
            double dx = (double)m->mp[j][3][0] - o[0], dy = (double)m->mp[j][3][1] - o[1],
                   dz = (double)m->mp[j][3][2] - o[2], d[3][3], s[3][3];
            double at = sqrt(dx * dx + dy * dy + dz * dz);
            linear_diff(m->mp[j], e_rows, stride, d, s);
            /* A joint whose bound is within both the worst so far and its window's ratio so far changes
             * neither (nor its parents' ratios, never under its own): its exact norm (a cosine of an
             * arc cosine) is left out, and it gives its parents nothing. A NaN anywhere (a NaN worst or
             * ratio is replaced by the next value), or a negative reach, takes the exact way. The bound
             * from the diagonal alone, never under the bound (each step rounds monotonically), decides
             * first where it is finite: within both, the bound is too. */
            float *r_at = ratio ? &ratio[(size_t)j * (size_t)m->windows + (size_t)w] : NULL;
            double coarse = (at + diagonal_norm(s) * m->reach[j]) / m->limit;
            if (m->reach[j] >= 0 && coarse < INFINITY && coarse <= worst && (!r_at || coarse <= (double)*r_at)) {
                m->sub[j] = 0.0;
                continue;
            }
            linear_gram(d, s);
            double bound = (at + linear_norm(s, 0) * m->reach[j]) / m->limit;
            if (m->reach[j] >= 0 && bound <= worst && (!r_at || bound <= (double)*r_at)) {
                m->sub[j] = 0.0;
                continue;
            }
            double e = at + linear_norm(s, 1) * m->reach[j];
            m->sub[j] = e / m->limit;
            if (!(e <= here)) here = e;   /* NaN stays */
        }
        here /= m->limit;
        if (!(here <= worst)) worst = here;
        if (ratio) {
            for (int j = m->n - 1; j > 0; j--) {
                int p = m->sk.parents[j];
                if (p >= 0 && !(m->sub[j] <= m->sub[p])) m->sub[p] = m->sub[j];
            }
            for (int j = 0; j < m->n; j++) {
                float *r = &ratio[(size_t)j * (size_t)m->windows + (size_t)w];
                if (!(m->sub[j] <= *r)) *r = (float)m->sub[j];
            }
        }
    }
    return isnan(worst) ? INFINITY : worst;
}

mr_status mr_clip_measure_error(const mr_clip *clip, const mr_clip_runtime *rt, const mr_clip_pack *pack,
                                double *worst)
{
    if (!clip || !rt || !pack || !worst || pack->joint_count != clip->joint_count) return MR_ERR_INVALID_ARGUMENT;
    measure m;
    int ok = measure_init(&m, clip, rt);
    mr_status st = ok ? MR_OK : m.limit > 0 ? MR_ERR_NO_MEMORY : MR_ERR_INVALID_ARGUMENT;
    if (ok) *worst = measure_pack(&m, clip, rt, pack, NULL);
    measure_free(&m);
    return st;
}

/* A joint's factor in a window for the next round, from its factor and
 * the measure near it (the worst ratio of the window and its neighbours):
 * the first round spreads the room, the take-backs lower what went over
 * (the last of them to the proven budget), the rounds after halve every
 * loosening. A factor left as it was gives its keys as they were. */
static float next_factor(int round, float g, double near)
{
    if (round >= TAKE_BACK_ROUNDS) return g > 1.0f ? 1.0f + 0.5f * (g - 1.0f) : g;
    if (round > 0 && !(near > 1.0)) return g;
    if (round == TAKE_BACK_ROUNDS - 1) return g < 1.0f ? g : 1.0f;
    double by = near > 0 ? AIM / near : GROW_MAX;
    by = by > GROW_MAX ? GROW_MAX : by < SHRINK_MIN ? SHRINK_MIN : by;
    float f = (float)(g * by);
    return f < FACTOR_MIN ? FACTOR_MIN : f > FACTOR_MAX ? FACTOR_MAX : f;
}

mr_clip_pack *mr_clip_measure_build(const mr_clip *clip, const mr_clip_runtime *rt)
{
    mr_clip_pack_builder *b = mr_clip_pack_builder_create(clip, rt);
    mr_clip_pack *proven = mr_clip_pack_builder_run(b, NULL, NULL), *best = proven;
    measure m;
    float *ratio = NULL, *g = NULL;
    unsigned char *changed = NULL;
    if (!proven || !measure_init(&m, clip, rt)) goto done;
    size_t cells = (size_t)m.windows * (size_t)m.n;
    ratio = mr_alloc_array(cells, sizeof *ratio);
    g = mr_alloc_array(cells, sizeof *g);
    changed = mr_alloc_array((size_t)m.n, 1);
    if (!ratio || !g || !changed) goto done;
    double worst = measure_pack(&m, clip, rt, proven, ratio);
    if (!(worst <= 1.0)) goto done;   /* cancelled, or no room to spend */
    for (size_t c = 0; c < cells; c++) g[c] = 1.0f;
    mr_clip_pack_scale scale = {m.windows, m.t0, m.dt, g};
    for (int round = 0; round < ROUNDS; round++) {
        memset(changed, 0, (size_t)m.n);
        for (size_t c = 0; c < cells; c++) {
            /* a window's keys reach into its neighbours: each factor
             * follows the worst of the three */
            int w = (int)(c % (size_t)m.windows);
            double near = ratio[c];
            if (w > 0 && ratio[c - 1] > near) near = ratio[c - 1];
            if (w + 1 < m.windows && ratio[c + 1] > near) near = ratio[c + 1];
            float next = next_factor(round, g[c], near);
            if (next != g[c]) changed[c / (size_t)m.windows] = 1;
            g[c] = next;
        }
        mr_clip_pack *pack = mr_clip_pack_builder_run(b, &scale, changed);
        if (!pack) break;   /* cancelled or no memory */
        worst = measure_pack(&m, clip, rt, pack, ratio);
        if (worst < 0) {
            free(pack);
            break;
        }
        if (worst <= 1.0 && pack->bytes < best->bytes) {
            free(best);
            best = pack;
        } else {
            free(pack);
        }
        if (worst <= 1.0) break;   /* later rounds change only what went over */
    }
done:
    free(ratio);
    free(g);
    free(changed);
    if (proven) measure_free(&m);
    mr_clip_pack_builder_destroy(b);
    if (best && rt->cancel && atomic_load(rt->cancel)) {   /* the build was cancelled: no pack */
        free(best);
        best = NULL;
    }
    return best;
}
