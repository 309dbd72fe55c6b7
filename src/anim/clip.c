/* clip.c — source clips: allocation, keys, markers, validation, and the
 * exact curve of one track. Knows nothing of the runtime clip
 * (clip_runtime.h) beyond freeing it through the clip's runtime_destroy. */
#include "anim/clip.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "anim/clip_interp.h"
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

/* True when p lies in the clip's cache_block (clip.h): not to be freed. */
static int in_cache_block(const mr_clip *clip, const void *p)
{
    uintptr_t a = (uintptr_t)p, lo = (uintptr_t)clip->cache_block;
    return p && clip->cache_block && a >= lo && a - lo < clip->cache_block_size;
}

static void release(const mr_clip *clip, void *p)
{
    if (!in_cache_block(clip, p)) free(p);
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

static _Atomic int keys_on_demand;

void mr_clip_set_keys_on_demand(int on)
{
    keys_on_demand = on != 0;
}

int mr_clip_keys_on_demand(void)
{
    return keys_on_demand;
}

mr_status mr_clip_source(const mr_clip *clip, mr_error *err)
{
    if (!clip) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "no clip");
    if (!clip->source_dropped) return MR_OK;
    mr_clip *c = (mr_clip *)clip;   /* the keys come back; the clip stays what it was */
    if (!c->source_reload) return mr_error_set(err, MR_ERR_IO, "clip '%s': its keys are not resident", c->name);
    mr_status st = c->source_reload(c, c->source_ctx, err);
    if (st == MR_OK) {
        c->source_dropped = 0;
    } else {   /* not again: a failed reload would repeat every call */
        if (c->source_ctx_free) c->source_ctx_free(c->source_ctx);
        c->source_reload = NULL;
        c->source_ctx = NULL;
        c->source_ctx_free = NULL;
    }
    return st;
}

mr_status mr_clip_keep_source(mr_clip *clip, mr_error *err)
{
    mr_status st = mr_clip_source(clip, err);
    if (st != MR_OK) return st;
    if (clip->source_ctx_free) clip->source_ctx_free(clip->source_ctx);
    clip->source_reload = NULL;
    clip->source_ctx = NULL;
    clip->source_ctx_free = NULL;
    clip->source_on_demand = 0;
    return MR_OK;
}

void mr_clip_drop_source(mr_clip *clip)
{
    if (!clip || !clip->source_reload || clip->source_dropped || !clip->tracks) return;
    int keys = mr_clip_key_count(clip);
    for (int j = 0; j < clip->joint_count; j++) {
        track_release_in(clip, &clip->tracks[j].t);
        track_release_in(clip, &clip->tracks[j].r);
        track_release_in(clip, &clip->tracks[j].s);
    }
    clip->source_key_count = keys;
    clip->source_dropped = 1;
}

void mr_clip_destroy(mr_clip *clip)
{
    if (!clip) return;
    if (clip->source_ctx_free) clip->source_ctx_free(clip->source_ctx);
    /* the runtime first: a pack being built off the caller's thread reads
     * the tracks until the runtime's destructor stops it */
    if (clip->runtime && clip->runtime_destroy) clip->runtime_destroy(clip->runtime);
    clip->runtime = NULL;
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

/* n elements of size bytes, zeroed or not, within mr_alloc_array's bounds */
static void *track_array(size_t n, size_t size, int zeroed)
{
    return zeroed ? mr_alloc_array(n, size) : mr_alloc_array_unset(n, size);
}

static mr_status track_alloc(mr_track *track, int key_count, mr_interp interp, int zeroed)
{
    track_release(track);
    if (key_count < 0) return MR_ERR_INVALID_ARGUMENT;
    size_t per_key = (size_t)track->components * (interp == MR_INTERP_CUBIC ? 3 : 1);
    track->times = track_array((size_t)key_count, sizeof *track->times, zeroed);
    track->values = per_key && (size_t)key_count <= SIZE_MAX / per_key
                        ? track_array((size_t)key_count * per_key, sizeof *track->values, zeroed)
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

mr_status mr_track_init(mr_track *track, int key_count, mr_interp interp)
{
    return track_alloc(track, key_count, interp, 1);
}

mr_status mr_track_init_unset(mr_track *track, int key_count, mr_interp interp)
{
    return track_alloc(track, key_count, interp, 0);
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

/* Whether every key of a track passes validate_track's checks, in one pass
 * without branches on the way (a loader's baked clip holds 100,000 keys):
 * a sufficient condition, so that a track it refuses is walked again by
 * the checks below, which say which key fails and why.
 *   - times: the first and last finite and each at least the interval
 *     after the one before; an infinite or NaN time between them would
 *     make a difference -inf or NaN;
 *   - values: v * 0 is 0 exactly when v is finite (NaN otherwise), and a
 *     sum of such zeros stays 0 until a NaN joins it; a rotation's four
 *     values (linear keys) are finite when their squared norm is;
 *   - rotations: that norm not under 1e-12, the same float sum. */
static int track_passes(const mr_track *track, int stride)
{
    const float *tm = track->times, *v = track->values;
    int n = track->key_count, ok = isfinite(tm[0]) && isfinite(tm[n - 1]);
    for (int i = 1; i < n; i++) ok &= (double)tm[i] - tm[i - 1] >= MR_CLIP_MIN_KEY_INTERVAL;
    if (track->components == 4) {
        const float *q = v + (track->interp == MR_INTERP_CUBIC ? 4 : 0);
        for (int i = 0; i < n; i++, q += stride) {
            float norm = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
            ok &= (norm >= 1e-12f) & (norm <= FLT_MAX);
        }
        if (stride == 4) return ok;
    }
    float zero = 0;
    for (size_t c = 0; c < (size_t)n * (size_t)stride; c++) zero += v[c] * 0.0f;
    return ok && zero == 0;
}

static mr_status validate_track(const mr_clip *clip, int joint, const mr_track *track,
                                const char *what, mr_error *err)
{
    if (track->key_count == 0) return MR_OK;
    if (!track->times || !track->values)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "clip '%s': joint %d %s track has no data",
                            clip->name, joint, what);
    int stride = track->components * (track->interp == MR_INTERP_CUBIC ? 3 : 1);
    if (track->key_count > 0 && track_passes(track, stride)) return MR_OK;
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

void mr_track_sample(const mr_track *tr, float t, float *out)
{
    if (tr->key_count == 1) {
        mr_clip_hold_first(tr, out);
        return;
    }
    float a;
    int i = mr_clip_find_key(tr, t, &a);
    if (tr->interp == MR_INTERP_LINEAR && tr->components == 4 && a > 0.0f && a < 1.0f) {
        double q[4];
        mr_clip_slerp_keys(tr->values + (size_t)i * 4, tr->values + (size_t)(i + 1) * 4, a, q);
        for (int c = 0; c < 4; c++) out[c] = (float)q[c];
        return;
    }
    mr_clip_interp_track(tr, i, a, out);
}

int mr_clip_key_count(const mr_clip *clip)
{
    if (clip->source_dropped) return clip->source_key_count;
    int n = 0;
    for (int j = 0; j < clip->joint_count; j++) {
        const mr_joint_tracks *jt = &clip->tracks[j];
        if (jt->t.key_count > n) n = jt->t.key_count;
        if (jt->r.key_count > n) n = jt->r.key_count;
        if (jt->s.key_count > n) n = jt->s.key_count;
    }
    return n;
}
