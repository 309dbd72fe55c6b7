/* clip_optimize.c — key thinning (see clip_optimize.h). */
#include "anim/clip_optimize.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "anim/key_reduce.h"
#include "core/alloc.h"

/* True when p lies in the runtime's cache_block (clip_runtime.h): the
 * model frees that memory, not us. */
static int in_cache_block(const mr_clip_runtime *rt, const void *p)
{
    uintptr_t a = (uintptr_t)p, lo = (uintptr_t)rt->cache_block;
    return p && rt->cache_block && a >= lo && a - lo < rt->cache_block_size;
}

/* Checkpoints per candidate interval: the key and the quarter points. */
#define CHECKS 4
/* Checkpoint data above this many bytes: the clip is not thinned. */
#define THIN_MAX_BYTES ((size_t)32 << 20)

/* One channel being thinned: its candidate keys (what the sampler plays
 * now: the refinement's or the source's) and the exact source curve at
 * every checkpoint. */
typedef struct chan {
    int joint, channel;      /* channel: 0 translation, 1 rotation, 2 scale */
    const mr_track *keys;
    double budget;
    float *ct;               /* (key_count - 1) * CHECKS + 1 checkpoint times */
    float *cv;               /* exact values there, components each */
} chan;

static void chan_free(chan *ch)
{
    free(ch->ct);
    free(ch->cv);
    ch->ct = ch->cv = NULL;
}

static int chan_init(chan *ch, const mr_clip *clip, int j, int k)
{
    const mr_track *keys = mr_clip_track(clip, j, k);
    const mr_track *src = k == 0 ? &clip->tracks[j].t : k == 1 ? &clip->tracks[j].r : &clip->tracks[j].s;
    const mr_clip_runtime *rt = clip->runtime;
    double f = rt->thin_tolerance / MR_CLIP_FIDELITY;   /* the budgets are set for MR_CLIP_FIDELITY */
    double angle = f * (rt->max_angle ? rt->max_angle[j] : MR_CLIP_DEFAULT_MAX_ANGLE);
    ch->joint = j;
    ch->channel = k;
    ch->keys = keys;
    ch->budget = k == 0 ? (rt->max_move ? f * rt->max_move[j] : 0.0) : k == 1 ? angle : 0.5 * angle;
    int n = keys->key_count, c = keys->components;
    size_t count = (size_t)(n - 1) * CHECKS + 1;
    ch->ct = mr_alloc_array(count, sizeof *ch->ct);
    ch->cv = mr_alloc_array(count * (size_t)c, sizeof *ch->cv);
    if (!ch->ct || !ch->cv) {
        chan_free(ch);
        return -1;
    }
    for (int i = 0; i < n; i++)
        for (int p = 0; p < (i + 1 < n ? CHECKS : 1); p++) {
            size_t at = (size_t)i * CHECKS + (size_t)p;
            float t = keys->times[i];
            if (p > 0) t += (keys->times[i + 1] - keys->times[i]) * (float)p / CHECKS;
            ch->ct[at] = t;
            if (p == 0) memcpy(ch->cv + at * c, keys->values + (size_t)i * c, (size_t)c * sizeof(float));
            else mr_track_sample(src, t, ch->cv + at * c);
        }
    return 0;
}

/* Angle (radians) between two unit-ish quaternions, well conditioned near 0. */
static double quat_angle(const float *q0, const double *q1)
{
    double d = 0, m = 0, p = 0;
    for (int c = 0; c < 4; c++) d += q0[c] * q1[c];
    double s = d < 0 ? -1.0 : 1.0;
    for (int c = 0; c < 4; c++) {
        double a = q0[c], b = s * q1[c];
        m += (a - b) * (a - b);
        p += (a + b) * (a + b);
    }
    return 4.0 * atan2(sqrt(m), sqrt(p));
}

/* Does interpolating keys a..b (as the sampler does) stay within budget at
 * every checkpoint between them? */
static int chan_ok(const chan *ch, int a, int b)
{
    const mr_track *tr = ch->keys;
    int c = tr->components;
    float ta = tr->times[a], tb = tr->times[b];
    const float *v0 = tr->values + (size_t)a * c, *v1 = tr->values + (size_t)b * c;
    float dot = 0;
    if (c == 4) dot = v0[0] * v1[0] + v0[1] * v1[1] + v0[2] * v1[2] + v0[3] * v1[3];
    for (size_t k = (size_t)a * CHECKS + 1; k < (size_t)b * CHECKS; k++) {
        float u = (ch->ct[k] - ta) / (tb - ta);
        const float *e = ch->cv + k * c;
        if (c == 4) {
            float w = dot < 0 ? -u : u, w0 = 1.0f - u;
            double q[4], len = 0;
            for (int i = 0; i < 4; i++) {
                q[i] = w0 * v0[i] + w * v1[i];
                len += q[i] * q[i];
            }
            if (!(len > 0)) return 0;
            len = 1.0 / sqrt(len);
            for (int i = 0; i < 4; i++) q[i] *= len;
            if (!(quat_angle(e, q) <= ch->budget)) return 0;
        } else {
            double d2 = 0, dmax = 0;
            for (int i = 0; i < 3; i++) {
                double d = (double)(v0[i] + u * (v1[i] - v0[i])) - e[i];
                d2 += d * d;
                if (fabs(d) > dmax) dmax = fabs(d);
            }
            if (!((ch->channel == 0 ? sqrt(d2) : dmax) <= ch->budget)) return 0;
        }
    }
    return 1;
}

static int all_ok(const chan *chs, int count, int a, int b)
{
    for (int i = 0; i < count; i++)
        if (!chan_ok(&chs[i], a, b)) return 0;
    return 1;
}

/* The channels a segment must fit (all of them share its keys). */
typedef struct chans {
    const chan *chs;
    int count;
} chans;

static int chans_fit(const void *ctx, int a, int b)
{
    const chans *c = ctx;
    return all_ok(c->chs, c->count, a, b);
}

/* Greedy thinning of n keys shared by chs (key_reduce.h); writes the kept
 * indices (first and last included) and returns their count. */
static int thin_run(const chan *chs, int count, int n, int *kept)
{
    chans c = {chs, count};
    return mr_reduce_keys(n, chans_fit, &c, kept);
}

static mr_track *played_slot(mr_clip_runtime *rt, int j, int k)
{
    return k == 0 ? &rt->played[j].t : k == 1 ? &rt->played[j].r : &rt->played[j].s;
}

/* Replaces channel ch's sampling track by its kept keys. */
static int write_kept(mr_clip_runtime *rt, const chan *ch, const int *kept, int m)
{
    const mr_track *keys = ch->keys;
    int c = keys->components;
    mr_track tmp = {.components = c};
    if (mr_track_init(&tmp, m, MR_INTERP_LINEAR) != MR_OK) return -1;
    for (int i = 0; i < m; i++) {
        tmp.times[i] = keys->times[kept[i]];
        memcpy(tmp.values + (size_t)i * c, keys->values + (size_t)kept[i] * c, (size_t)c * sizeof(float));
    }
    mr_track_finish(&tmp);
    rt->keys_dropped += keys->key_count - m;
    mr_track *slot = played_slot(rt, ch->joint, ch->channel);
    /* may be the candidate keys themselves (read above), or a cached file's */
    if (!in_cache_block(rt, slot->times)) free(slot->times);
    if (!in_cache_block(rt, slot->values)) free(slot->values);
    *slot = tmp;
    return 0;
}

static int ensure_played(mr_clip_runtime *rt)
{
    if (rt->played) return 0;
    rt->played = mr_alloc_array((size_t)rt->joint_count, sizeof *rt->played);
    if (!rt->played) return -1;
    for (int j = 0; j < rt->joint_count; j++) {
        rt->played[j].t.components = 3;
        rt->played[j].r.components = 4;
        rt->played[j].s.components = 3;
    }
    return 0;
}

/* Key count shared by every sampled track with more than one key (all
 * LINEAR, same times), or 0. */
static int shared_linear(const mr_clip *clip)
{
    const mr_track *ref = NULL;
    for (int j = 0; j < clip->joint_count; j++)
        for (int k = 0; k < 3; k++) {
            const mr_track *tr = mr_clip_track(clip, j, k);
            if (tr->key_count <= 1) continue;
            if (tr->interp != MR_INTERP_LINEAR) return 0;
            if (!ref) ref = tr;
            else if (tr->key_count != ref->key_count ||
                     memcmp(tr->times, ref->times, (size_t)tr->key_count * sizeof *tr->times) != 0)
                return 0;
        }
    return ref ? ref->key_count : 0;
}

static int thin_shared(const mr_clip *clip, mr_clip_runtime *rt, int n)
{
    int count = 0;
    size_t bytes = 0;
    for (int j = 0; j < clip->joint_count; j++)
        for (int k = 0; k < 3; k++)
            if (mr_clip_track(clip, j, k)->key_count > 1) {
                count++;
                bytes += ((size_t)(n - 1) * CHECKS + 1) * (k == 1 ? 5 : 4) * sizeof(float);
            }
    if (count == 0 || n <= 2 || bytes > THIN_MAX_BYTES) return 0;
    chan *chs = calloc((size_t)count, sizeof *chs);
    int *kept = mr_alloc_array((size_t)n, sizeof *kept);
    int ok = chs && kept ? 0 : -1, built = 0;
    for (int j = 0; ok == 0 && j < clip->joint_count; j++)
        for (int k = 0; ok == 0 && k < 3; k++)
            if (mr_clip_track(clip, j, k)->key_count > 1) {
                if (chan_init(&chs[built], clip, j, k) != 0) ok = -1;
                else built++;
            }
    int dropped = 0;
    if (ok == 0) {
        int m = thin_run(chs, count, n, kept);
        if (m < n && ensure_played(rt) != 0) ok = -1;
        for (int i = 0; ok == 0 && m < n && i < count; i++) {
            if (write_kept(rt, &chs[i], kept, m) != 0) ok = -1;
            else dropped += n - m;
        }
    }
    for (int i = 0; i < built; i++) chan_free(&chs[i]);
    free(chs);
    free(kept);
    return ok < 0 ? -1 : dropped;
}

static int thin_each(const mr_clip *clip, mr_clip_runtime *rt)
{
    int dropped = 0;
    for (int j = 0; j < clip->joint_count; j++)
        for (int k = 0; k < 3; k++) {
            const mr_track *tr = mr_clip_track(clip, j, k);
            int n = tr->key_count;
            if (n <= 2 || tr->interp != MR_INTERP_LINEAR) continue;
            if (((size_t)(n - 1) * CHECKS + 1) * (k == 1 ? 5 : 4) * sizeof(float) > THIN_MAX_BYTES) continue;
            chan ch;
            int *kept = mr_alloc_array((size_t)n, sizeof *kept);
            if (!kept || chan_init(&ch, clip, j, k) != 0) {
                free(kept);
                return -1;
            }
            int m = thin_run(&ch, 1, n, kept), ok = 0;
            if (m < n) ok = ensure_played(rt) == 0 && write_kept(rt, &ch, kept, m) == 0 ? 0 : -1;
            chan_free(&ch);
            free(kept);
            if (ok < 0) return -1;
            dropped += n - m;
        }
    return dropped;
}

mr_status mr_clip_thin(const mr_clip *clip, mr_clip_runtime *rt, int *dropped)
{
    if (dropped) *dropped = 0;
    if (!clip || !rt || clip->runtime != rt || !(rt->thin_tolerance > 0) || clip->joint_count <= 0 ||
        !clip->tracks)
        return MR_OK;
    int n = shared_linear(clip);
    int k = n > 1 ? thin_shared(clip, rt, n) : thin_each(clip, rt);
    if (k < 0) return MR_ERR_NO_MEMORY;
    if (dropped) *dropped = k;
    return MR_OK;
}
