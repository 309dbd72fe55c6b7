/* mixer.c — tracks of playing clips: cross-fades, queues, events, root
 * motion, layering (see mixer.h for the behaviour). */
#include "anim/mixer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/clip_runtime.h"
#include "core/alloc.h"

#define DEFAULT_TRACKS 8
#define DEFAULT_CLIPS 4
#define DEFAULT_EVENTS 256
#define MAX_EVENTS_LIMIT 65536
#define MAX_DROPPED_COUNTED 65536  /* listing stops after this many dropped events */
#define ROOT_SEGMENTS 1024         /* cycles per step summed exactly for root motion */
#define STEP_GUARD 256             /* sub-steps per track per update */

typedef struct source {
    const mr_clip *clip;           /* the clip, or NULL for a blend space */
    int is_space;
    mr_blendspace space;           /* copy */
    float px, py;                  /* blend-space parameter */
    float bw[MR_BLENDSPACE_MAX];   /* its weights at (px, py) */
} source;

typedef struct slot {
    int used;
    source src;
    mr_playhead ph;                /* clip seconds; phase (length 1) for a blend space */
    float speed;
    int sync, root_motion;
    int pending_start;             /* "start" not yet reported */
    int include_here;              /* next step reports crossings at its start position */
    float w0;                      /* weight when the running fade began (or its weight) */
    float start_time;              /* clip seconds it started at (for the "start" event) */
    unsigned serial;               /* start order */
} slot;

typedef struct queued {
    const mr_clip *clip;
    mr_play_opts opts;
} queued;

typedef struct track {
    slot *slots;
    int target;                    /* slot fading in during a fade, -1 for none (stop) */
    float fade_elapsed, fade_len;  /* fade_len > 0 while a fade runs */
    mr_curve curve;
    float weight, weight_from, weight_to, weight_elapsed, weight_len;
    int additive, has_mask, paused;
    mr_mask mask;
    queued queue[MR_MIXER_QUEUE];
    int q_count;
    int waiting;                   /* the current clip ended, counting the head's delay */
    float wait;
    mr_root_delta motion;          /* root motion of this update */
} track;

struct mr_mixer {
    const mr_skeleton *sk;
    mr_up_axis up;
    int track_count, clip_count, max_events;
    track *tracks;
    slot *slot_storage;
    mr_clip_cursor **cursors;       /* one per slot (same index): packed clips sample through it */
    mr_clip_cursor ***space_cursors; /* per slot, NULL until it first plays a blend space: */
                                    /* MR_BLENDSPACE_MAX cursors, one per clip of the space */
    mr_pose acc, tmp, tmp2;        /* scratch poses */
    mr_mixer_event *events;
    int event_count, dropped;
    mr_event_fn on_event;
    void *event_user;
    mr_pose_hook_fn hook;
    void *hook_user;
    mr_root_motion rm;
    mr_root_delta motion;
    unsigned serial;
    int busy;                      /* inside update (or delivering its events) */
};

static const char *const kind_names[] = {NULL, "start", "loop", "end"};

/* A slot's blend-space cursors (MR_BLENDSPACE_MAX, some NULL when making
 * them failed); takes NULL. */
static void free_space_cursors(mr_clip_cursor **c)
{
    for (int k = 0; c && k < MR_BLENDSPACE_MAX; k++) mr_clip_cursor_destroy(c[k]);
    free(c);
}

/* The rate opts ask for: 0 = 1, unless frozen. */
static float play_speed(const mr_play_opts *o)
{
    return o->frozen ? 0.0f : o->speed != 0.0f ? o->speed : 1.0f;
}

/* Sets the track's weight when opts ask for it (weight > 0, or mute). */
static void apply_weight(track *t, const mr_play_opts *o)
{
    if (!o->mute && !(o->weight > 0.0f)) return;
    t->weight = o->mute ? 0.0f : o->weight;
    t->weight_len = 0.0f;
}

/* ---- create / destroy ------------------------------------------------- */

mr_status mr_mixer_create(const mr_skeleton *sk, mr_up_axis up, const mr_mixer_desc *desc, mr_mixer **out,
                          mr_error *err)
{
    *out = NULL;
    if (!sk || sk->joint_count <= 0)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: needs a skeleton with joints");
    if (up != MR_UP_Y && up != MR_UP_Z && up != MR_UP_X)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: unknown up axis %d", (int)up);
    mr_mixer_desc d = desc ? *desc : (mr_mixer_desc){0};
    if (d.max_tracks == 0) d.max_tracks = DEFAULT_TRACKS;
    if (d.max_clips_per_track == 0) d.max_clips_per_track = DEFAULT_CLIPS;
    if (d.max_events == 0) d.max_events = DEFAULT_EVENTS;
    if (d.max_tracks < 1 || d.max_tracks > MR_MIXER_MAX_TRACKS)
        return mr_error_set(err, MR_ERR_LIMIT, "mixer: %d tracks requested, expected 1 to %d", d.max_tracks,
                            MR_MIXER_MAX_TRACKS);
    if (d.max_clips_per_track < 2 || d.max_clips_per_track > MR_MIXER_MAX_CLIPS)
        return mr_error_set(err, MR_ERR_LIMIT, "mixer: %d clips per track requested, expected 2 to %d",
                            d.max_clips_per_track, MR_MIXER_MAX_CLIPS);
    if (d.max_events < 1 || d.max_events > MAX_EVENTS_LIMIT)
        return mr_error_set(err, MR_ERR_LIMIT, "mixer: %d events requested, expected 1 to %d", d.max_events,
                            MAX_EVENTS_LIMIT);
    mr_mixer *mx = calloc(1, sizeof *mx);
    if (!mx) goto oom;
    mx->sk = sk;
    mx->up = up;
    mx->track_count = d.max_tracks;
    mx->clip_count = d.max_clips_per_track;
    mx->max_events = d.max_events;
    mx->tracks = mr_alloc_array((size_t)d.max_tracks, sizeof *mx->tracks);
    mx->slot_storage = mr_alloc_array((size_t)d.max_tracks * d.max_clips_per_track, sizeof *mx->slot_storage);
    mx->events = mr_alloc_array((size_t)d.max_events, sizeof *mx->events);
    mx->cursors = mr_alloc_array((size_t)d.max_tracks * d.max_clips_per_track, sizeof *mx->cursors);
    mx->space_cursors = calloc((size_t)d.max_tracks * d.max_clips_per_track, sizeof *mx->space_cursors);
    if (!mx->tracks || !mx->slot_storage || !mx->events || !mx->cursors || !mx->space_cursors) goto oom;
    for (size_t i = 0; i < (size_t)d.max_tracks * d.max_clips_per_track; i++)
        if (!(mx->cursors[i] = mr_clip_cursor_create(0))) goto oom;   /* room taken on a packed clip's first sample */
    if (mr_pose_init(&mx->acc, sk->joint_count) || mr_pose_init(&mx->tmp, sk->joint_count) ||
        mr_pose_init(&mx->tmp2, sk->joint_count))
        goto oom;
    for (int i = 0; i < d.max_tracks; i++) {
        track *t = &mx->tracks[i];
        t->slots = mx->slot_storage + (size_t)i * d.max_clips_per_track;
        t->target = -1;
        t->weight = 1.0f;
        if (mr_mask_init(&t->mask, sk->joint_count, 1.0f) != MR_OK) goto oom;
    }
    mr_root_motion_init(&mx->rm, sk, -1, up, 0);
    *out = mx;
    return MR_OK;
oom:
    mr_mixer_destroy(mx);
    return mr_error_set(err, MR_ERR_NO_MEMORY, "mixer: out of memory");
}

void mr_mixer_destroy(mr_mixer *mx)
{
    if (!mx) return;
    if (mx->tracks)
        for (int i = 0; i < mx->track_count; i++) mr_mask_deinit(&mx->tracks[i].mask);
    free(mx->tracks);
    for (size_t i = 0; mx->cursors && i < (size_t)mx->track_count * mx->clip_count; i++)
        mr_clip_cursor_destroy(mx->cursors[i]);
    free(mx->cursors);
    for (size_t i = 0; mx->space_cursors && i < (size_t)mx->track_count * mx->clip_count; i++)
        free_space_cursors(mx->space_cursors[i]);
    free(mx->space_cursors);
    free(mx->slot_storage);
    free(mx->events);
    mr_pose_deinit(&mx->acc);
    mr_pose_deinit(&mx->tmp);
    mr_pose_deinit(&mx->tmp2);
    free(mx);
}

int mr_mixer_track_count(const mr_mixer *mx) { return mx ? mx->track_count : 0; }

/* ---- weights ------------------------------------------------------------ */

static float curve_at(mr_curve c, float x)
{
    if (x <= 0.0f) return 0.0f;
    if (x >= 1.0f) return 1.0f;
    return c == MR_CURVE_LINEAR ? x : x * x * (3.0f - 2.0f * x);
}

static float slot_weight(const track *t, int i)
{
    const slot *s = &t->slots[i];
    if (!s->used) return 0.0f;
    if (!(t->fade_len > 0.0f)) return s->w0;
    float f = curve_at(t->curve, t->fade_elapsed / t->fade_len);
    return i == t->target ? s->w0 + (1.0f - s->w0) * f : s->w0 * (1.0f - f);
}

static float track_fill(const mr_mixer *mx, const track *t)
{
    float sum = 0.0f;
    for (int i = 0; i < mx->clip_count; i++) sum += slot_weight(t, i);
    return sum > 1.0f ? 1.0f : sum;
}

/* The slot fading in or playing; -1 when idle or fading out to nothing. */
static int current_slot(const mr_mixer *mx, const track *t)
{
    if (t->fade_len > 0.0f) return t->target;
    int best = -1;
    for (int i = 0; i < mx->clip_count; i++)
        if (t->slots[i].used && (best < 0 || t->slots[i].serial > t->slots[best].serial)) best = i;
    return best;
}

/* The most recently started slot (also while fading out). */
static int newest_slot(const mr_mixer *mx, const track *t)
{
    int best = -1;
    for (int i = 0; i < mx->clip_count; i++)
        if (t->slots[i].used && (best < 0 || t->slots[i].serial > t->slots[best].serial)) best = i;
    return best;
}

/* Freezes the current weights as the starting point of a new fade. */
static void snapshot_weights(const mr_mixer *mx, track *t)
{
    float w[MR_MIXER_MAX_CLIPS];
    for (int i = 0; i < mx->clip_count; i++) w[i] = slot_weight(t, i);
    for (int i = 0; i < mx->clip_count; i++) t->slots[i].w0 = w[i];
    t->fade_len = 0.0f;
    t->fade_elapsed = 0.0f;
    t->target = -1;
}

static void finish_fade(const mr_mixer *mx, track *t)
{
    for (int i = 0; i < mx->clip_count; i++) {
        slot *s = &t->slots[i];
        if (!s->used) continue;
        if (i == t->target) s->w0 = 1.0f;
        else s->used = 0;
    }
    t->fade_len = 0.0f;
    t->fade_elapsed = 0.0f;
    t->target = -1;
}

/* ---- sources ------------------------------------------------------------ */

static double source_seconds(const source *src)   /* cycle length in seconds */
{
    if (!src->is_space) return src->clip->duration;
    return mr_blendspace_duration(&src->space, src->bw);
}

static double source_units(const source *src)     /* playhead cycle length */
{
    return src->is_space ? 1.0 : src->clip->duration;
}

static const mr_clip *source_clip(const source *src)   /* the clip events name */
{
    if (!src->is_space) return src->clip;
    return src->space.clips[mr_blendspace_dominant(&src->space, src->bw)];
}

/* The clip whose markers fire: a blend space's heaviest clip among those
 * with markers and weight > 0, so a clip without markers (an idle) does
 * not silence the steps of the walk it blends with; else source_clip. */
static const mr_clip *marker_clip(const source *src)
{
    if (!src->is_space) return src->clip;
    int best = -1;
    for (int i = 0; i < src->space.count; i++)
        if (src->space.clips[i]->marker_count && src->bw[i] > 0.0f && (best < 0 || src->bw[i] > src->bw[best]))
            best = i;
    return best < 0 ? source_clip(src) : src->space.clips[best];
}

static int source_uses(const source *src, const mr_clip *clip)
{
    if (!src->is_space) return src->clip == clip;
    for (int i = 0; i < src->space.count; i++)
        if (src->space.clips[i] == clip) return 1;
    return 0;
}

static int same_source(const source *a, const source *b)
{
    if (a->is_space != b->is_space) return 0;
    if (!a->is_space) return a->clip == b->clip;
    return memcmp(&a->space, &b->space, sizeof a->space) == 0;
}

static int slot_backward(const slot *s) { return s->speed < 0.0f; }

static int slot_ended(const slot *s)
{
    return s->speed != 0.0f && mr_playhead_ended(&s->ph, slot_backward(s));
}

/* ---- argument checks ---------------------------------------------------- */

static mr_status check_track(const mr_mixer *mx, int track_index, mr_error *err)
{
    if (!mx) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: no mixer");
    if (track_index < 0 || track_index >= mx->track_count)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: track %d does not exist (tracks 0..%d)",
                            track_index, mx->track_count - 1);
    return MR_OK;
}

static mr_status check_clip(const mr_mixer *mx, const mr_clip *clip, mr_error *err)
{
    if (!clip) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: no clip");
    if (clip->joint_count != mx->sk->joint_count || !clip->tracks)
        return mr_error_set(err, MR_ERR_JOINT_COUNT, "mixer: clip '%s' has %d joints, skeleton has %d",
                            clip->name ? clip->name : "?", clip->joint_count, mx->sk->joint_count);
    if (!(isfinite(clip->duration) && clip->duration >= 0.0f))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: clip '%s' has duration %g",
                            clip->name ? clip->name : "?", clip->duration);
    return MR_OK;
}

static mr_status check_opts(const mr_play_opts *o, double length, int is_space, mr_error *err)
{
    if (o->loop != MR_LOOP_ONCE && o->loop != MR_LOOP_REPEAT && o->loop != MR_LOOP_PINGPONG)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: unknown loop mode %d", (int)o->loop);
    if (o->repeat < 0)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: repeat %d, expected >= 0 (0 = forever)",
                            o->repeat);
    if (!isfinite(o->speed))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: speed %g is not finite", o->speed);
    if (!isfinite(o->start) || o->start > length + 1e-6)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                            "mixer: start %g, expected a %s in [0, %g] (0 = the start for the direction)",
                            o->start, is_space ? "phase" : "clip time", length);
    if (!(o->weight >= 0.0f && o->weight <= 1.0f))        /* also refuses NaN */
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                            "mixer: weight %g, expected 0..1 (0 = keep the track's; .mute sets 0)", o->weight);
    if (!(isfinite(o->fade) && o->fade >= 0.0f))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: fade %g, expected seconds >= 0", o->fade);
    if (!(isfinite(o->delay) && o->delay >= 0.0f))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: delay %g, expected seconds >= 0", o->delay);
    if (o->curve != MR_CURVE_SMOOTH && o->curve != MR_CURVE_LINEAR)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: unknown fade curve %d", (int)o->curve);
    return MR_OK;
}

/* ---- starting clips ----------------------------------------------------- */

/* A free slot, or the lightest one dropped (remaining weights rescaled to
 * keep their sum). Call after snapshot_weights. */
static int take_slot(const mr_mixer *mx, track *t)
{
    int light = -1;
    for (int i = 0; i < mx->clip_count; i++) {
        if (!t->slots[i].used) return i;
        if (light < 0 || t->slots[i].w0 < t->slots[light].w0) light = i;
    }
    float dropped = t->slots[light].w0, keep = 0.0f;
    t->slots[light].used = 0;
    for (int i = 0; i < mx->clip_count; i++) keep += t->slots[i].used ? t->slots[i].w0 : 0.0f;
    if (keep > 0.0f && dropped > 0.0f)
        for (int i = 0; i < mx->clip_count; i++) t->slots[i].w0 *= (keep + dropped) / keep;
    return light;
}

/* Starts src on a track (arguments already checked). When src is already
 * the current, unfinished clip and restart is not asked for, it keeps its
 * time and takes the new speed, loop mode and (blend space) parameter
 * instead; returns 0 then. */
static int begin(mr_mixer *mx, track *t, const source *src, const mr_play_opts *o)
{
    int cur = current_slot(mx, t);
    if (!o->restart && cur >= 0 && same_source(&t->slots[cur].src, src) && !slot_ended(&t->slots[cur])) {
        slot *s = &t->slots[cur];
        apply_weight(t, o);
        if (src->is_space) {
            s->src.px = src->px;
            s->src.py = src->py;
            memcpy(s->src.bw, src->bw, sizeof s->src.bw);
        }
        double now = mr_playhead_time(&s->ph);
        s->speed = play_speed(o);
        s->root_motion = o->root_motion;
        mr_playhead_init(&s->ph, source_units(src), o->loop, o->repeat);
        mr_playhead_start(&s->ph, now, s->speed < 0.0f);
        return 0;
    }
    /* Phase to sync to: the heaviest clip playing now. */
    double phase = -1.0;
    if (o->sync) {
        int lead = -1;
        float best = -1.0f;
        for (int i = 0; i < mx->clip_count; i++)
            if (t->slots[i].used && slot_weight(t, i) > best) { best = slot_weight(t, i); lead = i; }
        if (lead >= 0) phase = mr_playhead_phase(&t->slots[lead].ph);
    }
    int idx;
    if (o->fade > 0.0f) {
        snapshot_weights(mx, t);
        idx = take_slot(mx, t);
        for (int i = 0; i < mx->clip_count; i++) t->slots[i].sync = o->sync;
        t->fade_len = o->fade;
        t->fade_elapsed = 0.0f;
        t->curve = o->curve;
        t->target = idx;
    } else {
        for (int i = 0; i < mx->clip_count; i++) t->slots[i].used = 0;
        t->fade_len = 0.0f;
        t->target = -1;
        idx = 0;
    }
    slot *s = &t->slots[idx];
    memset(s, 0, sizeof *s);
    s->used = 1;
    s->src = *src;
    s->speed = play_speed(o);
    s->sync = o->sync;
    s->root_motion = o->root_motion;
    s->pending_start = 1;
    s->include_here = 1;
    s->w0 = o->fade > 0.0f ? 0.0f : 1.0f;
    s->serial = ++mx->serial;
    double units = source_units(src);
    mr_playhead_init(&s->ph, units, o->loop, o->repeat);
    double start = o->start > 0.0f ? o->start : (s->speed < 0.0f ? units : 0.0);
    if (phase >= 0.0) start = phase * units;
    mr_playhead_start(&s->ph, start, s->speed < 0.0f);
    s->start_time = (float)(src->is_space ? start * source_clip(src)->duration : start);
    apply_weight(t, o);
    t->waiting = 0;
    return 1;
}

static mr_status play_source(mr_mixer *mx, int ti, const source *src, const mr_play_opts *opts, mr_error *err)
{
    mr_play_opts o = opts ? *opts : (mr_play_opts){0};
    mr_status st = check_opts(&o, source_units(src), src->is_space, err);
    if (st != MR_OK) return st;
    track *t = &mx->tracks[ti];
    if (begin(mx, t, src, &o)) t->q_count = 0;   /* a new choice replaces what was queued */
    return MR_OK;
}

mr_status mr_mixer_play(mr_mixer *mx, int track_index, const mr_clip *clip, const mr_play_opts *opts,
                        mr_error *err)
{
    mr_status st = check_track(mx, track_index, err);
    if (st == MR_OK) st = check_clip(mx, clip, err);
    if (st != MR_OK) return st;
    source src;
    memset(&src, 0, sizeof src);
    src.clip = clip;
    return play_source(mx, track_index, &src, opts, err);
}

mr_status mr_mixer_crossfade(mr_mixer *mx, int track_index, const mr_clip *clip, float seconds, mr_curve curve,
                             const mr_play_opts *opts, mr_error *err)
{
    mr_play_opts o = opts ? *opts : (mr_play_opts){0};
    o.fade = seconds;
    o.curve = curve;
    return mr_mixer_play(mx, track_index, clip, &o, err);
}

mr_status mr_mixer_play_blendspace(mr_mixer *mx, int track_index, const mr_blendspace *bs, float x, float y,
                                   const mr_play_opts *opts, mr_error *err)
{
    mr_status st = check_track(mx, track_index, err);
    if (st != MR_OK) return st;
    if ((st = mr_blendspace_validate(bs, mx->sk, err)) != MR_OK) return st;
    source src;
    memset(&src, 0, sizeof src);
    src.is_space = 1;
    src.space = *bs;
    src.px = x;
    src.py = y;
    if (mr_blendspace_weights(&src.space, x, y, src.bw) != MR_OK)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: blend-space parameter (%g, %g) is not finite",
                            x, y);
    return play_source(mx, track_index, &src, opts, err);
}

mr_status mr_mixer_set_param(mr_mixer *mx, int track_index, float x, float y, mr_error *err)
{
    mr_status st = check_track(mx, track_index, err);
    if (st != MR_OK) return st;
    track *t = &mx->tracks[track_index];
    int cur = current_slot(mx, t);
    if (cur < 0 || !t->slots[cur].src.is_space)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: track %d is not playing a blend space",
                            track_index);
    source *src = &t->slots[cur].src;
    float w[MR_BLENDSPACE_MAX];
    if (mr_blendspace_weights(&src->space, x, y, w) != MR_OK)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: blend-space parameter (%g, %g) is not finite",
                            x, y);
    memcpy(src->bw, w, sizeof w);
    src->px = x;
    src->py = y;
    return MR_OK;
}

mr_status mr_mixer_queue(mr_mixer *mx, int track_index, const mr_clip *clip, const mr_play_opts *opts,
                         mr_error *err)
{
    mr_status st = check_track(mx, track_index, err);
    if (st == MR_OK) st = check_clip(mx, clip, err);
    if (st != MR_OK) return st;
    mr_play_opts o = opts ? *opts : (mr_play_opts){0};
    if ((st = check_opts(&o, clip->duration, 0, err)) != MR_OK) return st;
    track *t = &mx->tracks[track_index];
    if (t->q_count >= MR_MIXER_QUEUE)
        return mr_error_set(err, MR_ERR_LIMIT, "mixer: track %d already has %d clips queued", track_index,
                            MR_MIXER_QUEUE);
    o.restart = 1;   /* a queued clip always starts, even when it is the same clip */
    t->queue[t->q_count].clip = clip;
    t->queue[t->q_count].opts = o;
    t->q_count++;
    return MR_OK;
}

mr_status mr_mixer_stop(mr_mixer *mx, int track_index, float fade, mr_error *err)
{
    mr_status st = check_track(mx, track_index, err);
    if (st != MR_OK) return st;
    if (!(isfinite(fade) && fade >= 0.0f))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: fade %g, expected seconds >= 0", fade);
    track *t = &mx->tracks[track_index];
    t->q_count = 0;
    t->waiting = 0;
    if (fade > 0.0f) {
        snapshot_weights(mx, t);
        t->fade_len = fade;
        t->target = -1;
        t->curve = MR_CURVE_SMOOTH;
    } else {
        for (int i = 0; i < mx->clip_count; i++) t->slots[i].used = 0;
        t->fade_len = 0.0f;
        t->target = -1;
    }
    return MR_OK;
}

mr_status mr_mixer_pause(mr_mixer *mx, int track_index, int paused, mr_error *err)
{
    mr_status st = check_track(mx, track_index, err);
    if (st != MR_OK) return st;
    mx->tracks[track_index].paused = paused != 0;
    return MR_OK;
}

mr_status mr_mixer_seek(mr_mixer *mx, int track_index, float time, mr_error *err)
{
    mr_status st = check_track(mx, track_index, err);
    if (st != MR_OK) return st;
    if (!isfinite(time)) return mr_error_set(err, MR_ERR_BAD_TIME, "mixer: seek time %g is not finite", time);
    track *t = &mx->tracks[track_index];
    int cur = current_slot(mx, t);
    if (cur < 0) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: track %d plays nothing", track_index);
    slot *s = &t->slots[cur];
    double secs = source_seconds(&s->src);
    double units = s->src.is_space ? (secs > 0.0 ? time / secs : 0.0) : time;
    mr_playhead_seek(&s->ph, units);
    s->include_here = 1;
    return MR_OK;
}

mr_status mr_mixer_set_speed(mr_mixer *mx, int track_index, float speed, mr_error *err)
{
    mr_status st = check_track(mx, track_index, err);
    if (st != MR_OK) return st;
    if (!isfinite(speed)) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: speed %g is not finite", speed);
    track *t = &mx->tracks[track_index];
    int cur = current_slot(mx, t);
    if (cur < 0) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: track %d plays nothing", track_index);
    t->slots[cur].speed = speed;
    return MR_OK;
}

/* ---- track settings ----------------------------------------------------- */

mr_status mr_mixer_set_weight(mr_mixer *mx, int track_index, float weight, float fade, mr_error *err)
{
    mr_status st = check_track(mx, track_index, err);
    if (st != MR_OK) return st;
    if (!(weight >= 0.0f && weight <= 1.0f))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: track weight %g, expected 0..1", weight);
    if (!(isfinite(fade) && fade >= 0.0f))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: fade %g, expected seconds >= 0", fade);
    track *t = &mx->tracks[track_index];
    if (fade > 0.0f) {
        t->weight_from = t->weight;
        t->weight_to = weight;
        t->weight_elapsed = 0.0f;
        t->weight_len = fade;
    } else {
        t->weight = weight;
        t->weight_len = 0.0f;
    }
    return MR_OK;
}

mr_status mr_mixer_set_mask(mr_mixer *mx, int track_index, const mr_mask *mask, mr_error *err)
{
    mr_status st = check_track(mx, track_index, err);
    if (st != MR_OK) return st;
    track *t = &mx->tracks[track_index];
    if (!mask) {
        t->has_mask = 0;
        return MR_OK;
    }
    if ((st = mr_mask_validate(mask, mx->sk, err)) != MR_OK) return st;
    mr_mask_copy(&t->mask, mask);
    t->has_mask = 1;
    return MR_OK;
}

mr_status mr_mixer_set_additive(mr_mixer *mx, int track_index, int additive, mr_error *err)
{
    mr_status st = check_track(mx, track_index, err);
    if (st != MR_OK) return st;
    mx->tracks[track_index].additive = additive != 0;
    return MR_OK;
}

mr_status mr_mixer_set_root_motion(mr_mixer *mx, int joint, unsigned flags, mr_error *err)
{
    if (!mx) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: no mixer");
    mr_root_motion rm;
    if (mr_root_motion_init(&rm, mx->sk, joint, mx->up, flags) != MR_OK)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                            "mixer: root motion joint %d / flags %u, expected a joint 0..%d and MR_ROOT_* flags",
                            joint, flags, mx->sk->joint_count - 1);
    mx->rm = rm;
    return MR_OK;
}

void mr_mixer_on_event(mr_mixer *mx, mr_event_fn fn, void *user)
{
    if (!mx) return;
    mx->on_event = fn;
    mx->event_user = user;
}

void mr_mixer_set_pose_hook(mr_mixer *mx, mr_pose_hook_fn fn, void *user)
{
    if (!mx) return;
    mx->hook = fn;
    mx->hook_user = user;
}

/* ---- update: events ----------------------------------------------------- */

typedef struct step_ctx {
    mr_mixer *mx;
    int track;
    const slot *s;
    const mr_clip *clip;           /* clip the events name */
    const mr_clip *marker_clip;    /* clip whose markers are crossed */
    double time_scale;             /* playhead units -> clip seconds */
    float offset, step;            /* the sub-step within the update */
} step_ctx;

static int push_event(mr_mixer *mx, const mr_mixer_event *e)
{
    if (mx->event_count < mx->max_events) {
        mx->events[mx->event_count++] = *e;
        return 1;
    }
    mx->dropped++;
    return mx->dropped < MAX_DROPPED_COUNTED;
}

static int on_crossing(void *user, const mr_crossing *c)
{
    step_ctx *x = user;
    mr_mixer_event e;
    e.kind = c->kind == MR_CROSS_MARKER ? MR_EVENT_MARKER : c->kind == MR_CROSS_LOOP ? MR_EVENT_LOOP : MR_EVENT_END;
    e.clip = x->clip;
    e.track = x->track;
    e.offset = x->offset + (float)c->frac * x->step;
    if (c->kind == MR_CROSS_MARKER) {
        e.clip = x->marker_clip;
        e.name = x->marker_clip->markers[c->marker].name;
        e.time = x->marker_clip->markers[c->marker].time;
    } else {
        e.name = kind_names[e.kind];
        e.time = (float)(c->time * x->time_scale);
    }
    return push_event(x->mx, &e);
}

static void emit_starts(mr_mixer *mx, int ti, float offset)
{
    track *t = &mx->tracks[ti];
    for (int i = 0; i < mx->clip_count; i++) {
        slot *s = &t->slots[i];
        if (!s->used || !s->pending_start) continue;
        s->pending_start = 0;
        mr_mixer_event e = {kind_names[MR_EVENT_START], MR_EVENT_START, source_clip(&s->src), ti,
                            s->start_time, offset};
        push_event(mx, &e);
    }
}

/* ---- update: time -------------------------------------------------------- */

/* Playhead units per second of slot i (sync-locked during a fade). */
static double slot_rate(const mr_mixer *mx, const track *t, int i, double shared_period)
{
    const slot *s = &t->slots[i];
    double secs = source_seconds(&s->src), units = source_units(&s->src);
    if (s->sync && t->fade_len > 0.0f && shared_period > 0.0 && secs > 0.0 && s->speed != 0.0f)
        return (s->speed < 0.0f ? -units : units) / shared_period;
    (void)mx;
    return secs > 0.0 ? s->speed * units / secs : s->speed;
}

/* Weighted mean of the synced clips' cycle periods (seconds per cycle). */
static double shared_period(const mr_mixer *mx, const track *t)
{
    if (!(t->fade_len > 0.0f)) return 0.0;
    double sum = 0.0, wsum = 0.0;
    for (int i = 0; i < mx->clip_count; i++) {
        const slot *s = &t->slots[i];
        double secs = s->used ? source_seconds(&s->src) : 0.0;
        if (!s->used || !s->sync || s->speed == 0.0f || !(secs > 0.0)) continue;
        float w = slot_weight(t, i);
        sum += w * secs / fabs(s->speed);
        wsum += w;
    }
    return wsum > 0.0 ? sum / wsum : 0.0;
}

typedef struct motion_ctx {
    const mr_mixer *mx;
    const slot *s;
    mr_root_delta acc;
} motion_ctx;

static void on_segment(void *user, double a, double b)
{
    motion_ctx *m = user;
    const source *src = &m->s->src;
    if (!src->is_space) {
        mr_root_motion_step(&m->mx->rm, src->clip, m->mx->sk, a, b, &m->acc);
        return;
    }
    mr_root_delta seg = {{0, 0, 0}, 0.0f};
    for (int i = 0; i < src->space.count; i++) {
        if (!(src->bw[i] > 0.0f)) continue;
        const mr_clip *c = src->space.clips[i];
        mr_root_delta one = {{0, 0, 0}, 0.0f};
        mr_root_motion_step(&m->mx->rm, c, m->mx->sk, a * c->duration, b * c->duration, &one);
        for (int k = 0; k < 3; k++) seg.translation[k] += src->bw[i] * one.translation[k];
        seg.yaw += src->bw[i] * one.yaw;
    }
    mr_root_motion_delta_compose(&m->mx->rm, &m->acc, &seg);
}

/* Advances every clip of the track by dt seconds. snap >= 0 moves that slot
 * exactly to its end (the step was cut to reach it). */
static void advance_slots(mr_mixer *mx, int ti, float dt, float offset, int snap)
{
    track *t = &mx->tracks[ti];
    double period = shared_period(mx, t);
    mr_root_delta step_motion = {{0, 0, 0}, 0.0f};
    float wsum = 0.0f;
    int motion = mx->rm.joint >= 0 && mx->rm.flags;
    for (int i = 0; i < mx->clip_count; i++) {
        slot *s = &t->slots[i];
        if (!s->used) continue;
        double delta = slot_rate(mx, t, i, period) * dt;
        if (i == snap) delta = slot_backward(s) ? -mr_playhead_remaining(&s->ph, 1) : mr_playhead_remaining(&s->ph, 0);
        float w = slot_weight(t, i);
        if (motion) {
            motion_ctx m = {mx, s, {{0, 0, 0}, 0.0f}};
            if (s->root_motion) mr_playhead_segments(&s->ph, delta, ROOT_SEGMENTS, on_segment, &m);
            for (int k = 0; k < 3; k++) step_motion.translation[k] += w * m.acc.translation[k];
            step_motion.yaw += w * m.acc.yaw;
            wsum += w;
        }
        const mr_clip *clip = source_clip(&s->src), *mc = marker_clip(&s->src);
        step_ctx x = {mx, ti, s, clip, mc, s->src.is_space ? clip->duration : 1.0, offset, dt};
        mr_marker_view mv = {mc->marker_count ? &mc->markers[0].time : NULL, sizeof(mr_marker),
                             mc->marker_count, s->src.is_space && mc->duration > 0 ? 1.0 / mc->duration : 1.0};
        mr_playhead_advance(&s->ph, delta, &mv, s->include_here, on_crossing, &x);
        s->include_here = 0;   /* crossings at the start position are reported now */
    }
    if (motion && wsum > 0.0f) {
        for (int k = 0; k < 3; k++) step_motion.translation[k] /= wsum;
        step_motion.yaw /= wsum;
        mr_root_motion_delta_compose(&mx->rm, &t->motion, &step_motion);
    }
}

static int queue_ready(const mr_mixer *mx, const track *t)
{
    int cur = current_slot(mx, t);
    return cur < 0 || slot_ended(&t->slots[cur]);
}

static void start_queued(mr_mixer *mx, track *t)
{
    queued head = t->queue[0];
    memmove(t->queue, t->queue + 1, (size_t)(t->q_count - 1) * sizeof *t->queue);
    t->q_count--;
    t->waiting = 0;
    source src;
    memset(&src, 0, sizeof src);
    src.clip = head.clip;
    begin(mx, t, &src, &head.opts);
}

static void update_track(mr_mixer *mx, int ti, float dt)
{
    track *t = &mx->tracks[ti];
    memset(&t->motion, 0, sizeof t->motion);
    if (t->paused) return;
    if (t->weight_len > 0.0f) {
        t->weight_elapsed += dt;
        float f = t->weight_elapsed >= t->weight_len ? 1.0f : t->weight_elapsed / t->weight_len;
        t->weight = t->weight_from + (t->weight_to - t->weight_from) * f;
        if (f >= 1.0f) t->weight_len = 0.0f;
    }
    float remaining = dt, offset = 0.0f;
    for (int guard = 0; guard < STEP_GUARD; guard++) {
        emit_starts(mx, ti, offset);
        if (t->q_count > 0 && queue_ready(mx, t)) {
            if (!t->waiting) {
                t->waiting = 1;
                t->wait = t->queue[0].opts.delay;
            }
            if (t->wait <= 0.0f) {
                start_queued(mx, t);
                continue;
            }
        }
        if (!(remaining > 0.0f)) break;
        float step = remaining;
        int snap = -1;
        if (t->fade_len > 0.0f && t->fade_len - t->fade_elapsed < step)
            step = fmaxf(t->fade_len - t->fade_elapsed, 0.0f);
        if (t->q_count > 0) {
            if (t->waiting) {
                if (t->wait < step) step = t->wait;
            } else {
                int cur = current_slot(mx, t);
                slot *s = &t->slots[cur];
                mr_playhead_finish_cycle(&s->ph, slot_backward(s));   /* an endless loop ends at its next wrap */
                double rate = fabs(slot_rate(mx, t, cur, shared_period(mx, t)));
                double left = mr_playhead_remaining(&s->ph, slot_backward(s));
                if (rate > 0.0 && left / rate <= step) {
                    step = (float)(left / rate);
                    snap = cur;
                }
            }
        }
        advance_slots(mx, ti, step, offset, snap);
        if (t->waiting) t->wait -= step;
        if (t->fade_len > 0.0f) {
            t->fade_elapsed += step;
            if (t->fade_elapsed >= t->fade_len) finish_fade(mx, t);
        }
        remaining -= step;
        offset += step;
        if (step <= 0.0f && snap < 0 && !(t->fade_len > 0.0f && t->fade_elapsed >= t->fade_len) &&
            !(t->q_count > 0 && queue_ready(mx, t)))
            break;   /* nothing moved and nothing will: avoid spinning */
    }
}

static void sort_events(mr_mixer *mx)
{
    /* Stable insertion sort by offset: each track's events are already in
     * order, so this only interleaves the tracks. */
    for (int i = 1; i < mx->event_count; i++) {
        mr_mixer_event e = mx->events[i];
        int j = i;
        while (j > 0 && mx->events[j - 1].offset > e.offset) {
            mx->events[j] = mx->events[j - 1];
            j--;
        }
        mx->events[j] = e;
    }
}

static void combine_motion(mr_mixer *mx)
{
    memset(&mx->motion, 0, sizeof mx->motion);
    if (mx->rm.joint < 0 || !mx->rm.flags) return;
    for (int i = 0; i < mx->track_count; i++) {
        track *t = &mx->tracks[i];
        float a = t->weight * track_fill(mx, t) * (t->has_mask ? t->mask.w[mx->rm.joint] : 1.0f);
        if (!(a > 0.0f)) continue;
        if (a > 1.0f) a = 1.0f;
        for (int k = 0; k < 3; k++)
            mx->motion.translation[k] = t->additive ? mx->motion.translation[k] + a * t->motion.translation[k]
                                                    : mx->motion.translation[k] * (1.0f - a) + a * t->motion.translation[k];
        mx->motion.yaw = t->additive ? mx->motion.yaw + a * t->motion.yaw
                                     : mx->motion.yaw * (1.0f - a) + a * t->motion.yaw;
    }
}

mr_status mr_mixer_update(mr_mixer *mx, float dt, mr_error *err)
{
    if (!mx) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: no mixer");
    if (!(isfinite(dt) && dt >= 0.0f))
        return mr_error_set(err, MR_ERR_BAD_TIME, "mixer: dt %g, expected finite seconds >= 0", dt);
    if (mx->busy)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: update called from inside an update's event callback");
    mx->busy = 1;
    mx->event_count = 0;
    mx->dropped = 0;
    for (int i = 0; i < mx->track_count; i++) update_track(mx, i, dt);
    sort_events(mx);
    combine_motion(mx);
    if (mx->on_event)
        for (int i = 0; i < mx->event_count; i++) mx->on_event(mx->event_user, &mx->events[i]);
    mx->busy = 0;
    return MR_OK;
}

/* ---- evaluate ----------------------------------------------------------- */

/* Removes root motion from a blend space's pose at phase: the weighted
 * mean of its clips' time-0 values (exact path) or paths (uniform). */
static void pin_space(const mr_mixer *mx, const source *src, double phase, mr_pose *pose)
{
    vec3 t = {0, 0, 0};
    float yaw = 0.0f;
    int uniform = (mx->rm.flags & MR_ROOT_UNIFORM) != 0;
    for (int i = 0; i < src->space.count; i++) {
        if (!(src->bw[i] > 0.0f)) continue;
        const mr_clip *c = src->space.clips[i];
        vec3 ti;
        float yi;
        if (uniform) mr_root_motion_path(&mx->rm, c, mx->sk, phase * c->duration, ti, &yi);
        else mr_root_motion_sample(&mx->rm, c, mx->sk, 0.0f, ti, &yi);
        for (int k = 0; k < 3; k++) t[k] += src->bw[i] * ti[k];
        yaw += src->bw[i] * yi;
    }
    if (uniform) mr_root_motion_unwind(&mx->rm, pose, t, yaw);
    else mr_root_motion_pin(&mx->rm, pose, t, yaw);
}

/* Slot i's blend-space cursors, made on its first blend space; NULL
 * without memory (the space then samples without them, as correctly). */
static mr_clip_cursor *const *space_cursors(mr_mixer *mx, size_t i)
{
    if (mx->space_cursors[i]) return mx->space_cursors[i];
    mr_clip_cursor **c = calloc(MR_BLENDSPACE_MAX, sizeof *c);
    for (int k = 0; c && k < MR_BLENDSPACE_MAX; k++)
        if (!(c[k] = mr_clip_cursor_create(0))) {
            free_space_cursors(c);
            return NULL;
        }
    return mx->space_cursors[i] = c;
}

static mr_status sample_slot(mr_mixer *mx, const slot *s, mr_pose *dst)
{
    mr_status st;
    int extract = s->root_motion && mx->rm.joint >= 0 && mx->rm.flags;
    if (!s->src.is_space) {
        float t = (float)mr_playhead_time(&s->ph);
        st = mr_clip_sample_with(s->src.clip, mx->sk, t, MR_WRAP_CLAMP, dst, mx->cursors[s - mx->slot_storage]);
        if (st == MR_OK && extract) mr_root_motion_remove(&mx->rm, s->src.clip, mx->sk, t, dst);
    } else {
        st = mr_blendspace_sample_with(&s->src.space, mx->sk, s->src.bw, (float)mr_playhead_time(&s->ph), &mx->tmp2,
                                       dst, space_cursors(mx, (size_t)(s - mx->slot_storage)));
        if (st == MR_OK && extract) pin_space(mx, &s->src, mr_playhead_time(&s->ph), dst);
    }
    return st;
}

mr_status mr_mixer_evaluate(mr_mixer *mx, mr_pose *out, mat4 *model, mr_error *err)
{
    if (!mx || !out) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mixer: evaluate needs a mixer and a pose");
    if (out->joint_count != mx->sk->joint_count)
        return mr_error_set(err, MR_ERR_JOINT_COUNT, "mixer: output pose has %d joints, skeleton has %d",
                            out->joint_count, mx->sk->joint_count);
    int covered = 0;   /* out holds a full pose written by an earlier track */
    for (int ti = 0; ti < mx->track_count; ti++) {
        track *t = &mx->tracks[ti];
        float fill = track_fill(mx, t), a = t->weight * fill;
        if (!(a > 0.0f)) continue;
        if (a > 1.0f) a = 1.0f;
        int live = 0, only = -1;
        for (int i = 0; i < mx->clip_count; i++)
            if (slot_weight(t, i) > 0.0f) { live++; only = i; }
        /* A full, unmasked override replaces everything below: write it
         * straight into out. */
        int direct = !t->additive && !t->has_mask && a >= 1.0f;
        mr_pose *dst = direct ? out : &mx->acc;
        if (!covered && !direct) mr_pose_set_rest(out, mx->sk);
        covered = 1;
        mr_status st;
        if (live == 1) {
            st = sample_slot(mx, &t->slots[only], dst);
        } else {
            mr_blend_begin(dst);
            float total = 0.0f;
            st = MR_OK;
            for (int i = 0; i < mx->clip_count && st == MR_OK; i++) {
                float w = slot_weight(t, i);
                if (!(w > 0.0f)) continue;
                if ((st = sample_slot(mx, &t->slots[i], &mx->tmp)) == MR_OK) mr_blend_add(dst, &mx->tmp, w);
                total += w;
            }
            if (st == MR_OK) st = mr_blend_end(dst, mx->sk, total, 1e-6f);
        }
        if (st != MR_OK)
            return mr_error_set(err, st, "mixer: track %d: cannot sample: %s", ti, mr_status_string(st));
        if (direct) continue;
        const mr_mask *mask = t->has_mask ? &t->mask : NULL;
        if (t->additive) mr_blend_additive(out, &mx->acc, a, mask);
        else mr_blend_override(out, &mx->acc, a, mask);
    }
    if (!covered) mr_pose_set_rest(out, mx->sk);
    if (mx->hook) mx->hook(mx->hook_user, mx->sk, out);
    if (model) return mr_pose_to_model(mx->sk, out, model);
    return MR_OK;
}

/* ---- queries ------------------------------------------------------------ */

const mr_mixer_event *mr_mixer_events(const mr_mixer *mx, int *count)
{
    if (count) *count = mx ? mx->event_count : 0;
    return mx ? mx->events : NULL;
}

int mr_mixer_events_dropped(const mr_mixer *mx) { return mx ? mx->dropped : 0; }

void mr_mixer_root_delta(const mr_mixer *mx, mr_root_delta *out)
{
    if (!out) return;
    if (!mx) { memset(out, 0, sizeof *out); return; }
    *out = mx->motion;
}

static float slot_clip_time(const slot *s)
{
    if (!s->src.is_space) return (float)mr_playhead_time(&s->ph);
    return (float)(mr_playhead_time(&s->ph) * source_clip(&s->src)->duration);
}

mr_status mr_mixer_time(const mr_mixer *mx, int track_index, float *time)
{
    mr_status st = check_track(mx, track_index, NULL);
    if (st != MR_OK || !time) return MR_ERR_INVALID_ARGUMENT;
    const track *t = &mx->tracks[track_index];
    int cur = current_slot(mx, t);
    if (cur < 0) cur = newest_slot(mx, t);
    *time = cur >= 0 ? slot_clip_time(&t->slots[cur]) : 0.0f;
    return MR_OK;
}

mr_status mr_mixer_weight(const mr_mixer *mx, int track_index, float *weight)
{
    mr_status st = check_track(mx, track_index, NULL);
    if (st != MR_OK || !weight) return MR_ERR_INVALID_ARGUMENT;
    *weight = mx->tracks[track_index].weight;
    return MR_OK;
}

mr_status mr_mixer_clip_weight(const mr_mixer *mx, int track_index, const mr_clip *clip, float *weight)
{
    mr_status st = check_track(mx, track_index, NULL);
    if (st != MR_OK || !weight) return MR_ERR_INVALID_ARGUMENT;
    const track *t = &mx->tracks[track_index];
    float sum = 0.0f;
    for (int i = 0; i < mx->clip_count; i++) {
        const slot *s = &t->slots[i];
        if (!s->used) continue;
        if (!s->src.is_space) {
            if (s->src.clip == clip) sum += slot_weight(t, i);
        } else {
            for (int k = 0; k < s->src.space.count; k++)
                if (s->src.space.clips[k] == clip) sum += slot_weight(t, i) * s->src.bw[k];
        }
    }
    *weight = sum;
    return MR_OK;
}

int mr_mixer_playing(const mr_mixer *mx, int track_index, mr_mixer_clip_info *out, int max)
{
    if (check_track(mx, track_index, NULL) != MR_OK) return -1;
    const track *t = &mx->tracks[track_index];
    int cur = current_slot(mx, t), n = 0;
    int order[MR_MIXER_MAX_CLIPS];
    if (cur >= 0) order[n++] = cur;
    for (int i = 0; i < mx->clip_count; i++)
        if (t->slots[i].used && i != cur) order[n++] = i;
    for (int k = 0; k < n && k < max && out; k++) {
        const slot *s = &t->slots[order[k]];
        out[k].clip = source_clip(&s->src);
        out[k].is_blendspace = s->src.is_space;
        out[k].time = slot_clip_time(s);
        out[k].weight = slot_weight(t, order[k]);
        out[k].speed = s->speed;
        out[k].current = order[k] == cur;
        out[k].ended = slot_ended(s);
    }
    return n;
}

void mr_mixer_forget(mr_mixer *mx, const mr_clip *clip)
{
    if (!mx || !clip) return;
    for (int ti = 0; ti < mx->track_count; ti++) {
        track *t = &mx->tracks[ti];
        int removed = 0;
        for (int i = 0; i < mx->clip_count; i++)
            removed |= t->slots[i].used && source_uses(&t->slots[i].src, clip);
        if (removed) {
            /* Freeze the weights, drop the clip's slots, and give the rest the
             * fill they had together (the fade, if any, ends here). */
            float fill = track_fill(mx, t), keep = 0.0f;
            snapshot_weights(mx, t);
            for (int i = 0; i < mx->clip_count; i++) {
                slot *s = &t->slots[i];
                if (s->used && source_uses(&s->src, clip)) s->used = 0;
                if (s->used) keep += s->w0;
            }
            for (int i = 0; i < mx->clip_count; i++)
                if (t->slots[i].used) t->slots[i].w0 = keep > 0.0f ? t->slots[i].w0 * fill / keep : fill;
        }
        int k = 0;
        for (int i = 0; i < t->q_count; i++)
            if (t->queue[i].clip != clip) t->queue[k++] = t->queue[i];
        t->q_count = k;
        if (!k) t->waiting = 0;
    }
}
