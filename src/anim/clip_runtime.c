/* clip_runtime.c — the runtime clip's builder (mr_clip_finish: slerp
 * refinement, then thinning and the SIMD bake from clip_optimize.c and
 * clip_dense.c) and its sampler. Reads the source clip (clip.h); nothing
 * there calls back (see clip_runtime.h). */
#include "anim/clip_runtime.h"

#include <limits.h>
#include <stdatomic.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "anim/clip_dense.h"
#include "anim/clip_interp.h"
#include "anim/clip_measure.h"
#include "anim/clip_optimize.h"
#include "anim/clip_pack.h"
#include "anim/clip_worker.h"
#include "anim/points.h"
#include "anim/morph.h"
#include "core/alloc.h"

/* True when p lies in the runtime's cache_block (clip_runtime.h): not to be freed. */
static int in_cache_block(const mr_clip_runtime *rt, const void *p)
{
    uintptr_t a = (uintptr_t)p, lo = (uintptr_t)rt->cache_block;
    return p && rt->cache_block && a >= lo && a - lo < rt->cache_block_size;
}

static void release(const mr_clip_runtime *rt, void *p)
{
    if (!in_cache_block(rt, p)) free(p);
}

static void track_release_in(const mr_clip_runtime *rt, mr_track *track)
{
    release(rt, track->times);
    release(rt, track->values);
    track->times = NULL;
    track->values = NULL;
    track->key_count = 0;
}

static void free_played(mr_clip_runtime *rt)
{
    if (rt->played)
        for (int j = 0; j < rt->joint_count; j++) {
            track_release_in(rt, &rt->played[j].t);
            track_release_in(rt, &rt->played[j].r);
            track_release_in(rt, &rt->played[j].s);
        }
    release(rt, rt->played);
    rt->played = NULL;
    rt->keys_added = 0;
    rt->keys_dropped = 0;
}

/* Drops what the builder made (a pending pack too); the settings stay. */
static void clear_built(mr_clip_runtime *rt)
{
    mr_clip_job_cancel(rt->job);
    rt->job = NULL;
    free_played(rt);
    if (!in_cache_block(rt, rt->dense)) mr_clip_dense_destroy(rt->dense);
    rt->dense = NULL;
    release(rt, rt->pack);
    rt->pack = NULL;
    rt->shared_keys = 0;
    rt->shared_times = NULL;
    rt->shared_rate = 0.0f;
}

void mr_clip_runtime_destroy(mr_clip_runtime *rt)
{
    if (!rt) return;
    clear_built(rt);
    if (rt->budget_src) rt->budget_src->release(rt->budget_src);
    release(rt, rt->max_angle);
    release(rt, rt->max_move);
    release(rt, rt->point_reach);
    release(rt, rt->rest);
    release(rt, rt->parents);
    free(rt);   /* the struct itself is always allocated on its own */
}

static void runtime_destroy(struct mr_clip_runtime *rt)
{
    mr_clip_runtime_destroy(rt);
}

mr_clip_runtime *mr_clip_runtime_of(mr_clip *clip)
{
    if (clip->runtime) return clip->runtime;
    mr_clip_runtime *rt = calloc(1, sizeof *rt);
    if (!rt) return NULL;
    rt->joint_count = clip->joint_count;
    rt->cache_block = clip->cache_block;
    rt->cache_block_size = clip->cache_block_size;
    clip->runtime = rt;
    clip->runtime_destroy = runtime_destroy;
    return rt;
}

unsigned long long mr_clip_pack_serial(void)
{
    static _Atomic unsigned long long next;
    return ++next;
}

/* Replaces *slot by a copy of the runtime's joint_count values (NULL: none). */
static mr_status set_floats(mr_clip_runtime *rt, float **slot, const float *values)
{
    float *copy = NULL;
    if (values) {
        copy = mr_alloc_array((size_t)rt->joint_count, sizeof *copy);
        if (!copy) return MR_ERR_NO_MEMORY;
        memcpy(copy, values, (size_t)rt->joint_count * sizeof *copy);
    }
    release(rt, *slot);
    *slot = copy;
    return MR_OK;
}

/* ---- slerp fidelity (see clip_runtime.h) --------------------------------------------- */

/* nlerp's largest angle error over a key interval spanning angle A (radians,
 * A <= pi) stays below NLERP_ERROR * A^3 (0.00401 for small A, 0.00459 at pi). */
#define NLERP_ERROR 0.0047

/* Pieces an interval of rotation angle `angle` needs so that nlerp stays
 * within max_angle of slerp on each. */
static int pieces_for(double angle, double max_angle)
{
    if (!(max_angle > 0) || !(angle > 0)) return 1;
    double m = ceil(angle * cbrt(NLERP_ERROR / max_angle) - 1e-9);
    if (m < 1) return 1;
    return m > MR_CLIP_MAX_PIECES ? MR_CLIP_MAX_PIECES : (int)m;
}

static double joint_max_angle(const mr_clip_runtime *rt, int j)
{
    return rt->max_angle ? rt->max_angle[j] : MR_CLIP_DEFAULT_MAX_ANGLE;
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
            mr_clip_slerp_keys(v0, v0 + 4, u[k], q);
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
static int refine_shared(const mr_clip *clip, mr_clip_runtime *rt, const float *times, int n)
{
    int *pieces = mr_alloc_array((size_t)n, sizeof *pieces);
    if (!pieces) return -1;
    int any = 0;
    for (int i = 0; i + 1 < n; i++) {
        pieces[i] = 1;
        for (int j = 0; j < clip->joint_count; j++) {
            const mr_track *r = &clip->tracks[j].r;
            if (r->key_count < 2 || r->interp != MR_INTERP_LINEAR) continue;
            int p = pieces_for(mr_clip_quat_angle(r->values + (size_t)i * 4, r->values + (size_t)(i + 1) * 4),
                               joint_max_angle(rt, j));
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
    if (ok) rt->played = mr_alloc_array((size_t)clip->joint_count, sizeof *rt->played);
    if (ok && !rt->played) ok = -1;
    for (int j = 0; ok > 0 && j < clip->joint_count; j++) {
        mr_track *src[3] = {&clip->tracks[j].t, &clip->tracks[j].r, &clip->tracks[j].s};
        mr_track *dst[3] = {&rt->played[j].t, &rt->played[j].r, &rt->played[j].s};
        for (int k = 0; k < 3 && ok > 0; k++) {
            dst[k]->components = src[k]->components;
            if (src[k]->key_count < 2) continue;
            if (resample_track(dst[k], src[k], count, t, seg, u) != MR_OK) ok = -1;
            else rt->keys_added += count - n;
        }
    }
    free(t);
    free(seg);
    free(u);
    return ok;
}

/* Refinement of each LINEAR rotation track on its own key times (clips
 * without a shared all-linear time line). */
static int refine_tracks(const mr_clip *clip, mr_clip_runtime *rt)
{
    for (int j = 0; j < clip->joint_count; j++) {
        if (rt->cancel && atomic_load(rt->cancel)) return -1;
        const mr_track *r = &clip->tracks[j].r;
        if (r->key_count < 2 || r->interp != MR_INTERP_LINEAR) continue;
        int n = r->key_count, any = 0;
        int *pieces = mr_alloc_array((size_t)n, sizeof *pieces);
        if (!pieces) return -1;
        for (int i = 0; i + 1 < n; i++) {
            pieces[i] = pieces_for(mr_clip_quat_angle(r->values + (size_t)i * 4, r->values + (size_t)(i + 1) * 4),
                                   joint_max_angle(rt, j));
            any |= pieces[i] > 1;
        }
        float *t = NULL;
        int *seg = NULL;
        double *u = NULL;
        int count = any ? split_times(r->times, n, pieces, &t, &seg, &u) : n;
        free(pieces);
        if (count < 0) return -1;
        if (count > n) {
            if (!rt->played) {
                rt->played = mr_alloc_array((size_t)clip->joint_count, sizeof *rt->played);
                if (!rt->played) count = -1;
                for (int k = 0; rt->played && k < clip->joint_count; k++) {
                    rt->played[k].t.components = 3;
                    rt->played[k].r.components = 4;
                    rt->played[k].s.components = 3;
                }
            }
            if (count > 0 && resample_track(&rt->played[j].r, r, count, t, seg, u) != MR_OK) count = -1;
            if (count > 0) rt->keys_added += count - n;
        }
        free(t);
        free(seg);
        free(u);
        if (count < 0) return -1;
    }
    return 0;
}

/* A per-joint setting of the runtime (the field at offset `field`, a
 * float *): every value above 0, or 0 too when zero_ok; NULL clears it. A
 * build in progress reads the settings: it is cancelled first. */
static mr_status set_setting(mr_clip *clip, size_t field, const float *values, int zero_ok)
{
    if (!clip) return MR_ERR_INVALID_ARGUMENT;
    mr_clip_cancel(clip);
    if (!values) {
        if (clip->runtime) set_floats(clip->runtime, (float **)((char *)clip->runtime + field), NULL);
        return MR_OK;
    }
    for (int j = 0; j < clip->joint_count; j++)
        if (!(values[j] > 0 || (zero_ok && values[j] == 0))) return MR_ERR_INVALID_ARGUMENT;
    mr_clip_runtime *rt = mr_clip_runtime_of(clip);
    return rt ? set_floats(rt, (float **)((char *)rt + field), values) : MR_ERR_NO_MEMORY;
}

mr_status mr_clip_set_max_angle(mr_clip *clip, const float *max_angle)
{
    return set_setting(clip, offsetof(mr_clip_runtime, max_angle), max_angle, 0);
}

mr_status mr_clip_set_max_move(mr_clip *clip, const float *max_move)
{
    return set_setting(clip, offsetof(mr_clip_runtime, max_move), max_move, 1);
}

mr_status mr_clip_set_point_reach(mr_clip *clip, const float *point_reach)
{
    return set_setting(clip, offsetof(mr_clip_runtime, point_reach), point_reach, 1);
}

mr_status mr_clip_set_budget_src(mr_clip *clip, mr_clip_budget_src *src)
{
    mr_clip_runtime *rt = mr_clip_runtime_of(clip);
    if (!rt) return MR_ERR_NO_MEMORY;
    if (src) src->retain(src);
    if (rt->budget_src) rt->budget_src->release(rt->budget_src);
    rt->budget_src = src;
    return MR_OK;
}

void mr_clip_adopt_budget(mr_clip *clip)
{
    mr_clip_runtime *rt = clip ? clip->runtime : NULL;
    if (!rt || !rt->budget_src) return;
    mr_clip_cancel(clip);   /* a build borrows the source: none outlives this reference */
    mr_clip_budget_src *src = rt->budget_src;
    const mr_clip_budget *b = src->resolve(src);
    /* without memory a budget stays the default: the clip still samples */
    if (b && b->max_angle) mr_clip_set_max_angle(clip, b->max_angle);
    if (b && b->max_move) mr_clip_set_max_move(clip, b->max_move);
    if (b && b->point_reach) mr_clip_set_point_reach(clip, b->point_reach);
    rt->budget_src = NULL;
    src->release(src);
}

mr_status mr_clip_set_rest(mr_clip *clip, const mr_skeleton *sk)
{
    if (!clip) return MR_ERR_INVALID_ARGUMENT;
    mr_clip_cancel(clip);
    if (!sk) {
        if (clip->runtime) {
            release(clip->runtime, clip->runtime->rest);
            release(clip->runtime, clip->runtime->parents);
            clip->runtime->rest = NULL;
            clip->runtime->parents = NULL;
        }
        return MR_OK;
    }
    if (sk->joint_count != clip->joint_count) return MR_ERR_JOINT_COUNT;
    mr_clip_runtime *rt = mr_clip_runtime_of(clip);
    float *rest = rt ? mr_alloc_array((size_t)clip->joint_count * 10, sizeof *rest) : NULL;
    /* the measure composes joints plainly (clip_measure.c): a skeleton
     * without parents, or one whose joints undo their parent's scale
     * (scale_comp), gives it none, so its clips keep the proven pack */
    int plain = sk->parents != NULL;
    for (int j = 0; plain && sk->scale_comp && j < clip->joint_count; j++) plain &= !sk->scale_comp[j];
    int *parents = rest && plain ? mr_alloc_array((size_t)clip->joint_count, sizeof *parents) : NULL;
    if (!rest || (plain && !parents)) {
        free(rest);
        return MR_ERR_NO_MEMORY;
    }
    if (parents) memcpy(parents, sk->parents, (size_t)clip->joint_count * sizeof *parents);
    for (int j = 0; j < clip->joint_count; j++) {
        memcpy(rest + (size_t)j * 10, sk->rest_t[j], 3 * sizeof(float));
        memcpy(rest + (size_t)j * 10 + 3, sk->rest_r[j], 4 * sizeof(float));
        memcpy(rest + (size_t)j * 10 + 7, sk->rest_s[j], 3 * sizeof(float));
    }
    release(rt, rt->rest);
    release(rt, rt->parents);
    rt->rest = rest;
    rt->parents = parents;
    return MR_OK;
}

mr_status mr_clip_optimize(mr_clip *clip, float tolerance)
{
    if (!clip || !(tolerance >= 0) || !isfinite(tolerance)) return MR_ERR_INVALID_ARGUMENT;
    mr_clip_runtime *rt = mr_clip_runtime_of(clip);
    if (!rt) return MR_ERR_NO_MEMORY;
    rt->thin_tolerance = tolerance > 0 ? tolerance : MR_CLIP_FIDELITY;
    mr_clip_finish(clip);
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

static void finish_unpacked(const mr_clip *clip, mr_clip_runtime *rt, const mr_track *ref, int linear);

void mr_clip_finish(mr_clip *clip)
{
    mr_clip_adopt_budget(clip);
    mr_clip_runtime *rt = mr_clip_runtime_of(clip);
    if (rt) clear_built(rt);
    for (int j = 0; j < clip->joint_count; j++) {
        mr_track_finish(&clip->tracks[j].t);
        mr_track_finish(&clip->tracks[j].r);
        mr_track_finish(&clip->tracks[j].s);
    }
    /* Refine where nlerp would leave slerp (the rule is in clip_runtime.h). Without
     * memory the clip samples unrefined. */
    if (!rt) return;   /* no memory: the source tracks are sampled as they are */
    int linear;
    const mr_track *ref = shared_line(clip, &linear);
    /* Optimised clips (mr_clip_optimize) are packed (clip_pack.h): the
     * refined keys are only its candidates, each track refined on its own
     * (the pack keeps no shared time line, and cutting every track where
     * one turns fast gave 01_03.bvh's 27 rotations 9% more keys than the
     * file's). Clips it does not take (CUBIC keys) are refined, thinned and
     * baked as before. */
    if (rt->thin_tolerance > 0) {
        if (clip->source_dropped && mr_clip_source(clip, NULL) != MR_OK) return;   /* nothing to build from */
        rt->pack = mr_clip_runtime_build_pack(clip, rt);
        if (rt->pack) {
            rt->serial = mr_clip_pack_serial();
            if (clip->source_on_demand) mr_clip_drop_source(clip);
            return;
        }
    }
    finish_unpacked(clip, rt, ref, linear);
}

mr_clip_pack *mr_clip_runtime_build_pack(const mr_clip *clip, mr_clip_runtime *rt)
{
    if (rt->budget_src && rt->cancel) {  /* a build's own runtime (mr_clip_finish took them first): borrowed */
        const mr_clip_budget *b = rt->budget_src->resolve(rt->budget_src);
        if (b) {
            rt->max_angle = (float *)b->max_angle;
            rt->max_move = (float *)b->max_move;
            rt->point_reach = (float *)b->point_reach;
        }
    }
    /* packed at the proven budgets, then where its measured error leaves room */
    mr_clip_pack *pack = refine_tracks(clip, rt) == 0 ? mr_clip_measure_build(clip, rt) : NULL;
    int added = rt->keys_added;
    free_played(rt);
    rt->keys_added = added;
    return pack;
}

/* Every track LINEAR or STEP, none over the pack's key limit: what
 * mr_clip_pack_build may take (it may still refuse, on values). */
static int may_pack(const mr_clip *clip)
{
    for (int j = 0; j < clip->joint_count; j++) {
        const mr_track *tr[3] = {&clip->tracks[j].t, &clip->tracks[j].r, &clip->tracks[j].s};
        for (int k = 0; k < 3; k++)
            if (tr[k]->key_count > 65535 || (tr[k]->key_count > 1 && tr[k]->interp == MR_INTERP_CUBIC)) return 0;
    }
    return 1;
}

/* The build of a clip the pack does not take (CUBIC keys) while its
 * budgets are pending (a load's clip): it only resolves them (every
 * joint's skinned reach, the costly part of such a clip's finish) off the
 * load's path, and leaves no pack, so mr_clip_settle finishes the clip
 * unpacked, as mr_clip_finish does, with those budgets. */
static mr_clip_pack *resolve_budget(const mr_clip *clip, mr_clip_runtime *rt)
{
    (void)clip;
    if (rt->budget_src && rt->cancel) rt->budget_src->resolve(rt->budget_src);
    return NULL;
}

void mr_clip_finish_later(mr_clip *clip)
{
    if (clip->source_dropped && mr_clip_source(clip, NULL) != MR_OK) return;   /* nothing to build from */
    mr_clip_runtime *rt = mr_clip_runtime_of(clip);
    int packs = rt && may_pack(clip);
    if (!rt || !(rt->thin_tolerance > 0) || (!packs && !rt->budget_src)) {
        mr_clip_finish(clip);
        return;
    }
    clear_built(rt);
    for (int j = 0; j < clip->joint_count; j++) {
        mr_track_finish(&clip->tracks[j].t);
        mr_track_finish(&clip->tracks[j].r);
        mr_track_finish(&clip->tracks[j].s);
    }
    rt->job = mr_clip_job_submit(clip, rt, packs ? mr_clip_runtime_build_pack : resolve_budget);
    if (!rt->job) mr_clip_finish(clip);   /* no thread or memory: here and now */
}

void mr_clip_hold_packs(void) { mr_clip_job_hold(); }

void mr_clip_release_packs(void) { mr_clip_job_release(); }

int mr_clip_packs_held(void) { return mr_clip_job_held(); }

void mr_clip_settle(const mr_clip *clip)
{
    mr_clip_runtime *rt = clip ? clip->runtime : NULL;
    if (rt && !rt->job) mr_clip_adopt_budget((mr_clip *)clip);   /* a clip that never packed, or was cancelled */
    if (!rt || !rt->job) return;
    int added = 0;
    mr_clip_pack *pack = mr_clip_job_wait(rt->job, &added);
    rt->job = NULL;
    mr_clip_adopt_budget((mr_clip *)clip);   /* what the build took (computed there) */
    if (pack) {
        /* the pack samples without the keys: given up first, then the pack
         * moves into this thread's heap, where they were (the worker's heap
         * keeps only temporaries: a library of packs fragments neither) */
        if (clip->source_on_demand) mr_clip_drop_source((mr_clip *)clip);
        mr_clip_pack *here = malloc(pack->bytes);
        if (here) {
            memcpy(here, pack, pack->bytes);
            free(pack);
            pack = here;
        }
        rt->pack = pack;
        rt->keys_added = added;
        rt->serial = mr_clip_pack_serial();
        return;
    }
    int linear;   /* the pack refused the clip: refined and baked as mr_clip_finish does */
    const mr_track *ref = shared_line(clip, &linear);
    finish_unpacked(clip, rt, ref, linear);
}

void mr_clip_cancel(mr_clip *clip)
{
    mr_clip_runtime *rt = clip ? clip->runtime : NULL;
    if (!rt || !rt->job) return;
    mr_clip_job_cancel(rt->job);
    rt->job = NULL;
}

int mr_clip_pending(const mr_clip *clip)
{
    return clip && clip->runtime && clip->runtime->job;
}

/* mr_clip_finish's steps for a clip that is not packed: the refinement,
 * thinning when asked for, the shared time line and its bake. */
static void finish_unpacked(const mr_clip *clip, mr_clip_runtime *rt, const mr_track *ref, int linear)
{
    rt->keys_added = 0;
    int done = ref && linear ? refine_shared(clip, rt, ref->times, ref->key_count) : 0;
    if (done == 0 && !(ref && linear)) done = refine_tracks(clip, rt);
    if (done < 0) free_played(rt);
    /* Thin what interpolation reproduces (clip_optimize.h); without memory
     * the clip may stay partly thinned, each track still a valid one. */
    mr_clip_thin(clip, rt, NULL);
    ref = shared_line(clip, &linear);
    if (!ref) return;
    rt->shared_keys = ref->key_count;
    rt->shared_times = ref->times;
    rt->shared_rate = ref->uniform_rate;
    rt->dense = mr_clip_dense_build(clip);
}

/* The sampler's per-track step: nlerp for LINEAR rotations (the refinement
 * keeps it within the fidelity bound). */
static inline void track_sample_fast(const mr_track *tr, float t, float *out)
{
    if (tr->key_count == 1) {
        mr_clip_hold_first(tr, out);
        return;
    }
    float a;
    int i = mr_clip_find_key(tr, t, &a);
    mr_clip_interp_track(tr, i, a, out);
}

static void sample_exact(const mr_clip *clip, const mr_skeleton *sk, float t, mr_pose *pose);

mr_status mr_clip_sample(const mr_clip *clip, const mr_skeleton *sk, float time, mr_wrap wrap,
                         mr_pose *pose)
{
    return mr_clip_sample_with(clip, sk, time, wrap, pose, NULL);
}

mr_status mr_clip_sample_model(const mr_clip *clip, const mr_skeleton *sk, float time, mr_wrap wrap,
                               mr_pose *pose, mat4 *model, mr_clip_cursor *cur)
{
    if (!clip || !sk || !model || (!pose && !cur)) return MR_ERR_INVALID_ARGUMENT;
    mr_clip_settle(clip);   /* never the unpacked keys of a clip being packed */
    if (!isfinite(time)) return MR_ERR_BAD_TIME;
    if (clip->joint_count <= 0 || !clip->tracks) return MR_ERR_EMPTY_CLIP;
    if (clip->joint_count != sk->joint_count || (pose && pose->joint_count != sk->joint_count))
        return MR_ERR_JOINT_COUNT;
    const mr_clip_runtime *rt = clip->runtime;
    if (rt && rt->pack && cur &&
        mr_clip_cursor_sample_model(cur, rt->pack, rt->serial, sk, mr_clip_wrap_time(clip, time, wrap), pose, model))
        return MR_OK;
    if (!pose && !(pose = mr_clip_cursor_scratch(cur, sk->joint_count))) return MR_ERR_NO_MEMORY;
    mr_status st = mr_clip_sample_with(clip, sk, time, wrap, pose, cur);
    return st == MR_OK ? mr_pose_to_model(sk, pose, model) : st;
}

mr_status mr_clip_sample_with(const mr_clip *clip, const mr_skeleton *sk, float time, mr_wrap wrap,
                              mr_pose *pose, mr_clip_cursor *cur)
{
    if (!clip || !sk || !pose) return MR_ERR_INVALID_ARGUMENT;
    mr_clip_settle(clip);
    if (!isfinite(time)) return MR_ERR_BAD_TIME;
    if (clip->joint_count <= 0 || !clip->tracks) return MR_ERR_EMPTY_CLIP;
    if (clip->joint_count != sk->joint_count || pose->joint_count != sk->joint_count)
        return MR_ERR_JOINT_COUNT;
    float t = mr_clip_wrap_time(clip, time, wrap);
    int n = sk->joint_count;
    const mr_clip_runtime *rt = clip->runtime;
    /* the played keys where there are some (mr_clip_track, read once here) */
    const mr_joint_tracks *played = rt ? rt->played : NULL;
    if (rt && rt->pack) {
        if (!cur || !mr_clip_cursor_sample(cur, rt->pack, rt->serial, sk, t, pose))
            mr_clip_pack_sample(rt->pack, sk, t, pose);
        return MR_OK;
    }
    if (rt && rt->shared_keys > 1) {
        /* Every animated track shares one time line (every MD5 clip, most
         * baked exports): find the key once. */
        float a;
        int i = mr_clip_find_key_in(rt->shared_times, rt->shared_keys, rt->shared_rate, t, &a);
        if (rt->dense) {
            mr_clip_dense_sample(rt->dense, sk, i, a, pose);
            return MR_OK;
        }
        for (int j = 0; j < n; j++) {
            const mr_joint_tracks *src = &clip->tracks[j], *p = played ? &played[j] : NULL;
            const mr_track *tt = p && p->t.key_count ? &p->t : &src->t;
            const mr_track *tr = p && p->r.key_count ? &p->r : &src->r;
            const mr_track *ts = p && p->s.key_count ? &p->s : &src->s;
            if (tt->key_count > 1) mr_clip_interp_track(tt, i, a, pose->t[j]);
            else if (tt->key_count) mr_clip_hold_first(tt, pose->t[j]);
            else glm_vec3_copy(sk->rest_t[j], pose->t[j]);
            if (tr->key_count > 1) mr_clip_interp_track(tr, i, a, pose->r[j]);
            else if (tr->key_count) mr_clip_hold_first(tr, pose->r[j]);
            else glm_vec4_copy(sk->rest_r[j], pose->r[j]);
            if (ts->key_count > 1) mr_clip_interp_track(ts, i, a, pose->s[j]);
            else if (ts->key_count) mr_clip_hold_first(ts, pose->s[j]);
            else glm_vec3_copy(sk->rest_s[j], pose->s[j]);
        }
        return MR_OK;
    }
    for (int j = 0; j < n; j++) {
        const mr_joint_tracks *src = &clip->tracks[j], *p = played ? &played[j] : NULL;
        const mr_track *tt = p && p->t.key_count ? &p->t : &src->t;
        const mr_track *tr = p && p->r.key_count ? &p->r : &src->r;
        const mr_track *ts = p && p->s.key_count ? &p->s : &src->s;
        if (tt->key_count) track_sample_fast(tt, t, pose->t[j]);
        else glm_vec3_copy(sk->rest_t[j], pose->t[j]);
        if (tr->key_count) track_sample_fast(tr, t, pose->r[j]);
        else glm_vec4_copy(sk->rest_r[j], pose->r[j]);
        if (ts->key_count) track_sample_fast(ts, t, pose->s[j]);
        else glm_vec3_copy(sk->rest_s[j], pose->s[j]);
    }
    return MR_OK;
}


/* ---- measuring the runtime (issue 30) --------------------------------------- */

static size_t track_bytes(const mr_track *tr)
{
    size_t per_key = (size_t)tr->components * (tr->interp == MR_INTERP_CUBIC ? 3 : 1);
    return (size_t)tr->key_count * (1 + per_key) * sizeof(float);
}

size_t mr_clip_runtime_bytes(const mr_clip *clip)
{
    if (!clip || !clip->tracks) return 0;
    mr_clip_settle(clip);
    const mr_clip_runtime *rt = clip->runtime;
    if (rt && rt->pack) return rt->pack->bytes;
    if (rt && rt->dense && rt->shared_keys > 1) {
        const mr_clip_dense *d = rt->dense;
        return (size_t)d->keys * 10 * (size_t)d->lanes * sizeof(float) + (size_t)d->rest_count * sizeof(int) +
               (size_t)rt->shared_keys * sizeof(float);
    }
    size_t n = 0;
    for (int j = 0; j < clip->joint_count; j++)
        for (int k = 0; k < 3; k++) n += track_bytes(mr_clip_track(clip, j, k));
    return n;
}

mr_status mr_clip_sample_keys(const mr_clip *clip, const mr_skeleton *sk, float time, mr_wrap wrap, mr_pose *pose)
{
    if (!clip || !sk || !pose) return MR_ERR_INVALID_ARGUMENT;
    if (!isfinite(time)) return MR_ERR_BAD_TIME;
    if (clip->joint_count <= 0 || !clip->tracks) return MR_ERR_EMPTY_CLIP;
    if (clip->joint_count != sk->joint_count || pose->joint_count != sk->joint_count) return MR_ERR_JOINT_COUNT;
    mr_status st = mr_clip_source(clip, NULL);   /* the keys, when not resident */
    if (st != MR_OK) return st;
    sample_exact(clip, sk, mr_clip_wrap_time(clip, time, wrap), pose);
    return MR_OK;
}

/* sample_exact keeping each track's last interval in memo (3 per joint,
 * zeroed before the first call; NULL: none): the same values. */
static void sample_exact_memo(const mr_clip *clip, const mr_skeleton *sk, float t, mr_pose *pose,
                              mr_clip_sample_memo *memo)
{
    if (!memo) {
        sample_exact(clip, sk, t, pose);
        return;
    }
    for (int j = 0; j < sk->joint_count; j++, memo += 3) {
        const mr_joint_tracks *jt = &clip->tracks[j];
        if (jt->t.key_count) mr_clip_sample_memo_at(&jt->t, t, pose->t[j], &memo[0]);
        else glm_vec3_copy(sk->rest_t[j], pose->t[j]);
        if (jt->r.key_count) mr_clip_sample_memo_at(&jt->r, t, pose->r[j], &memo[1]);
        else glm_vec4_copy(sk->rest_r[j], pose->r[j]);
        if (jt->s.key_count) mr_clip_sample_memo_at(&jt->s, t, pose->s[j], &memo[2]);
        else glm_vec3_copy(sk->rest_s[j], pose->s[j]);
    }
}

/* The exact pose of the source keys at t (already wrapped). */
static void sample_exact(const mr_clip *clip, const mr_skeleton *sk, float t, mr_pose *pose)
{
    for (int j = 0; j < sk->joint_count; j++) {
        const mr_joint_tracks *jt = &clip->tracks[j];
        if (jt->t.key_count) mr_track_sample(&jt->t, t, pose->t[j]);
        else glm_vec3_copy(sk->rest_t[j], pose->t[j]);
        if (jt->r.key_count) mr_track_sample(&jt->r, t, pose->r[j]);
        else glm_vec4_copy(sk->rest_r[j], pose->r[j]);
        if (jt->s.key_count) mr_track_sample(&jt->s, t, pose->s[j]);
        else glm_vec3_copy(sk->rest_s[j], pose->s[j]);
    }
}

mr_status mr_clip_runtime_error(const mr_clip *clip, const mr_skeleton *sk, float distance, int samples,
                                double *out)
{
    if (!clip || !sk || !out || !(distance >= 0) || samples < 2) return MR_ERR_INVALID_ARGUMENT;
    *out = 0;
    if (clip->joint_count <= 0 || !clip->tracks) return MR_ERR_EMPTY_CLIP;
    if (clip->joint_count != sk->joint_count) return MR_ERR_JOINT_COUNT;
    mr_status keys = mr_clip_source(clip, NULL);   /* the exact curves are the source keys' */
    if (keys != MR_OK) return keys;
    int n = sk->joint_count;
    mr_pose played = {0}, exact = {0};
    mat4 *ma = mr_alloc_array((size_t)n, sizeof *ma), *mb = mr_alloc_array((size_t)n, sizeof *mb);
    /* The samples go forward in time: the played pose through a playback
     * cursor (mr_clip_sample_model: mr_clip_sample's pose and
     * mr_pose_to_model's matrices, the same bits, without a search of
     * each track's keys at every sample), the exact one keeping each
     * track's interval (the same values as mr_track_sample). Without
     * memory for either, the searches. */
    mr_clip_cursor *cur = mr_clip_cursor_create(n);
    mr_clip_sample_memo *memo = mr_alloc_array((size_t)n * 3, sizeof *memo);
    mr_status st = ma && mb ? MR_OK : MR_ERR_NO_MEMORY;
    if (st == MR_OK && !cur) st = mr_pose_init(&played, n);
    if (st == MR_OK) st = mr_pose_init(&exact, n);
    double worst = 0;
    for (int i = 0; st == MR_OK && i < samples; i++) {
        float t = (float)((double)clip->duration * i / (samples - 1));
        t = mr_clip_wrap_time(clip, t, MR_WRAP_CLAMP);
        if (cur) {
            if ((st = mr_clip_sample_model(clip, sk, t, MR_WRAP_CLAMP, NULL, ma, cur)) != MR_OK) break;
        } else {
            if ((st = mr_clip_sample(clip, sk, t, MR_WRAP_CLAMP, &played)) != MR_OK) break;
            if ((st = mr_pose_to_model(sk, &played, ma)) != MR_OK) break;
        }
        sample_exact_memo(clip, sk, t, &exact, memo);
        if ((st = mr_pose_to_model(sk, &exact, mb)) != MR_OK) break;
        double e = mr_points_apart((const mat4 *)ma, (const mat4 *)mb, n, distance);
        if (e > worst) worst = e;
    }
    mr_pose_deinit(&played);
    mr_pose_deinit(&exact);
    mr_clip_cursor_destroy(cur);
    free(memo);
    free(ma);
    free(mb);
    if (st == MR_OK) *out = worst;
    return st;
}

size_t mr_clip_bytes(const mr_clip *cl)
{
    size_t n = sizeof *cl;
    for (int j = 0; j < cl->joint_count; j++) {
        n += track_bytes(&cl->tracks[j].t) + track_bytes(&cl->tracks[j].r) + track_bytes(&cl->tracks[j].s);
        const mr_joint_tracks *p = cl->runtime && cl->runtime->played ? &cl->runtime->played[j] : NULL;
        if (p) n += track_bytes(&p->t) + track_bytes(&p->r) + track_bytes(&p->s);
    }
    if (cl->runtime && cl->runtime->pack) n += cl->runtime->pack->bytes;
    for (int k = 0; cl->morph && k < cl->morph->channel_count; k++) {
        const mr_morph_channel *ch = &cl->morph->channels[k];
        n += (size_t)ch->key_count * (1 + (size_t)ch->target_count * (ch->interp == MR_INTERP_CUBIC ? 3 : 1)) *
             sizeof(float);
    }
    return n;
}
