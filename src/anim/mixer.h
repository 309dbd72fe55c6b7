/* mixer.h — plays clips on stacked tracks (layers): cross-fades, queues,
 * loop modes, masks, additive layers, blend spaces, clip events and root
 * motion, then produces one local pose per frame.
 *
 *   mr_mixer *mx;
 *   mr_mixer_create(&model->skeleton, model->axes.up, NULL, &mx, &err);
 *   mr_play_opts o = {.loop = MR_LOOP_REPEAT};
 *   mr_mixer_play(mx, 0, walk, &o, &err);                 // track 0: base
 *   mr_mixer_set_mask(mx, 1, &upper_body);                // track 1: waving arm
 *   mr_mixer_play(mx, 1, wave, &o, &err);
 *   each frame:
 *     mr_mixer_update(mx, dt, &err);                      // time, fades, events
 *     mr_mixer_evaluate(mx, &pose, model_matrices, &err); // sample + blend + layer
 *
 * Tracks. A mixer has a fixed number of tracks (mr_mixer_desc.max_tracks),
 * all present from the start, evaluated in index order: track 0 is the
 * bottom. Each track has a weight (0..1, fadeable), an optional mask, and a
 * mode: override (default) replaces the layers below per joint by
 * weight x mask (mr_blend_override), additive adds its clips as deltas
 * (mr_blend_additive; play clips made with mr_blend_make_additive_clip there). Below
 * track 0 lies the skeleton's rest pose.
 *
 * Clips on a track. A track plays one current clip (or blend space) and,
 * during cross-fades, the clips fading out, up to max_clips_per_track at
 * once (beyond that the lightest is dropped). Within a track the clip
 * weights always sum to the track's fill: 1 while something plays, easing
 * from/to 0 only when fading in from an empty track or fading out with
 * mr_mixer_stop. A cross-fade of f(s) = curve(elapsed / seconds) gives the
 * incoming clip w0 + (1 - w0) f and every other clip w_i (1 - f), where the
 * w are the weights when the fade began: a new fade started mid-fade (A->B,
 * then ->C) starts from the current weights, so weights stay continuous and
 * sum to 1 at all times, with no dip. Outgoing clips keep playing (and
 * firing events) until their weight reaches 0.
 *
 * Time. Each clip plays at its own speed (negative plays backward) with a
 * loop mode (playhead.h): ONCE clamps at the end, REPEAT and PINGPONG run
 * `repeat` cycles (0 = forever) and then clamp. A clip queued with
 * mr_mixer_queue starts when the current one ends (a once clip at its end,
 * a finite loop after its last cycle, an endless loop at its next wrap),
 * after `delay` seconds, cross-fading when opts.fade > 0. Updates split dt
 * at these instants, so a large dt gives the same result as many small ones.
 * With opts.sync a cross-fade starts the incoming clip at the outgoing
 * clip's normalised phase and, during the fade, advances all synced clips
 * at a shared phase rate (cycle length = weighted mean of their cycle
 * lengths), so a walk -> run fade keeps the feet together.
 *
 * Events. Crossing a clip marker, a wrap ("loop"), the end of a finite
 * clip ("end") and starting a clip ("start") are recorded as events during
 * mr_mixer_update: each crossing exactly once, in order, whatever dt (with
 * several loops in one step each is reported), reversed under negative
 * speed, for every playing clip including those fading out. A blend space
 * names its heaviest clip in "start" and "loop" events, and fires the
 * markers of its heaviest clip among those that have markers (weight > 0),
 * so an idle without markers blended with a walk leaves the walk's steps
 * firing from the first one. After the
 * update, events are sorted by when they happened within it and delivered
 * to the callback set with mr_mixer_on_event (if any); the list also stays
 * readable with mr_mixer_events until the next update. The list holds
 * desc.max_events; more in one update are counted in dropped, not stored.
 *
 * Root motion. mr_mixer_set_root_motion(joint, flags) chooses the joint;
 * clips played with opts.root_motion then have its horizontal motion (and
 * yaw) removed from the pose, and each update reports the motion travelled
 * (root_motion.h: exact path, or uniform with MR_ROOT_UNIFORM), summed
 * across wraps, blended by clip and track weights. Play travelling clips
 * (root motion authored in them) with it; clips in place need none.
 *
 * Evaluation samples every clip with weight > 0, blends each track
 * (normalised weights), layers the tracks bottom-up, then calls the pose
 * hook (mr_mixer_set_pose_hook) which may edit the local pose (IK, bone
 * overrides) before the optional local-to-model.
 *
 * Ownership and lifetime. The mixer refers to the skeleton and clips, which
 * must outlive it (or call mr_mixer_forget(clip) before freeing a clip).
 * Masks and blend spaces are copied. All scratch memory is allocated by
 * mr_mixer_create; update and evaluate allocate nothing, but for one
 * thing: the first time a slot samples an optimised clip (packed,
 * anim/clip_pack.h), its playback cursor takes its room (a few KB, once),
 * and the first time a slot plays a blend space, it makes a cursor for each
 * of the space's clips (MR_BLENDSPACE_MAX small ones, their room likewise on
 * first use).
 *
 * Errors. Functions return MR_OK or a status with a one-line message in err
 * (when not NULL) and leave the mixer unchanged: MR_ERR_INVALID_ARGUMENT
 * (unknown track, NaN or out-of-range values, NULL), MR_ERR_JOINT_COUNT
 * (clip or mask of another skeleton), MR_ERR_BAD_TIME (NaN/inf/negative dt),
 * MR_ERR_LIMIT (too many tracks, queue full).
 */
#ifndef MR_ANIM_MIXER_H
#define MR_ANIM_MIXER_H

#include "anim/blendspace.h"
#include "anim/axes_type.h"
#include "anim/mesh.h"
#include "anim/playhead.h"
#include "anim/root_motion.h"

#define MR_MIXER_MAX_TRACKS 64
#define MR_MIXER_MAX_CLIPS 16        /* per track */
#define MR_MIXER_QUEUE 8             /* queued clips per track */

typedef struct mr_mixer mr_mixer;

/* Sizes; zero means the default. */
typedef struct mr_mixer_desc {
    int max_tracks;          /* default 8, at most MR_MIXER_MAX_TRACKS */
    int max_clips_per_track; /* clips playing at once on a track, default 4 (2..MR_MIXER_MAX_CLIPS) */
    int max_events;          /* events kept per update, default 256 */
} mr_mixer_desc;

typedef enum mr_curve {
    MR_CURVE_SMOOTH = 0,     /* smoothstep 3f^2 - 2f^3 */
    MR_CURVE_LINEAR,
} mr_curve;

/* How a clip plays. Zero-filled is the default: (mr_play_opts){0} plays
 * once, forward at speed 1, from its start, cutting, at the track's weight. */
typedef struct mr_play_opts {
    mr_loop loop;            /* MR_LOOP_ONCE (default), REPEAT, PINGPONG */
    int repeat;              /* REPEAT/PINGPONG: cycles (legs) to play, 0 = forever */
    float speed;             /* rate, negative plays backward; 0 = 1 (for speed 0 set frozen) */
    int frozen;              /* 1: play at speed 0 (the clip holds; mr_mixer_set_speed moves it) */
    float start;             /* clip time (blend space: phase) to start at; 0 = the start for
                              * the direction: 0, or the end when speed < 0 */
    float weight;            /* set the track's weight to this (0..1); 0 = keep it (for 0 set mute) */
    int mute;                /* 1: set the track's weight to 0 (fade it in with mr_mixer_set_weight) */
    float fade;              /* cross-fade seconds; 0 cuts (default 0) */
    mr_curve curve;          /* fade curve (default smooth) */
    float delay;             /* mr_mixer_queue: seconds after the current clip ends (default 0) */
    int sync;                /* match and lock normalised phase with the clips faded out */
    int root_motion;         /* extract root motion from this clip */
    int restart;             /* replay even if this clip is already the current one */
} mr_play_opts;

typedef enum mr_event_kind {
    MR_EVENT_MARKER = 0,     /* a clip marker (name is the marker's) */
    MR_EVENT_START,          /* "start": a clip began playing */
    MR_EVENT_LOOP,           /* "loop": a wrap or ping-pong turn */
    MR_EVENT_END,            /* "end": a finite clip reached its end */
} mr_event_kind;

typedef struct mr_mixer_event {
    const char *name;        /* marker name (owned by the clip) or "start"/"loop"/"end" */
    mr_event_kind kind;
    const mr_clip *clip;     /* the clip (a blend space's dominant clip) */
    int track;
    float time;              /* clip time of the crossing, seconds */
    float offset;            /* seconds into the update at which it happened */
} mr_mixer_event;

typedef void (*mr_event_fn)(void *user, const mr_mixer_event *event);
/* Called by mr_mixer_evaluate with the layered local pose before
 * local-to-model; may edit it (IK, overrides). */
typedef void (*mr_pose_hook_fn)(void *user, const mr_skeleton *sk, mr_pose *pose);

/* What a track is playing, for inspection (mr_mixer_playing). */
typedef struct mr_mixer_clip_info {
    const mr_clip *clip;     /* the clip, or a blend space's dominant clip */
    int is_blendspace;
    float time;              /* clip time (blend space: phase times dominant duration) */
    float weight;            /* weight within the track (the weights sum to the track's fill) */
    float speed;
    int current;             /* 1 for the clip fading in / playing, 0 for clips fading out */
    int ended;               /* reached its end and holds it */
} mr_mixer_clip_info;

/* A mixer in *out for skeleton sk whose model axes have the given up axis
 * (root motion's ground plane); desc may be NULL. On failure *out is NULL
 * and err says why: MR_ERR_INVALID_ARGUMENT (no skeleton, unknown up axis),
 * MR_ERR_LIMIT (bad sizes), MR_ERR_NO_MEMORY. Free with mr_mixer_destroy. */
mr_status mr_mixer_create(const mr_skeleton *sk, mr_up_axis up, const mr_mixer_desc *desc, mr_mixer **out,
                          mr_error *err);
void mr_mixer_destroy(mr_mixer *mx);
int mr_mixer_track_count(const mr_mixer *mx);

/* Plays clip on track: with opts->fade > 0 cross-fades from whatever the
 * track plays, otherwise cuts to it; clears the track's queue. opts NULL =
 * defaults. When clip is already the track's current clip and has not
 * ended, it is not restarted (so a script may call play every frame): it
 * keeps its clip time and takes the new speed, loop mode, repetitions,
 * root_motion and weight; opts->restart = 1 restarts it. */
mr_status mr_mixer_play(mr_mixer *mx, int track, const mr_clip *clip, const mr_play_opts *opts,
                        mr_error *err);
/* Same as play with opts->fade = seconds and opts->curve = curve. */
mr_status mr_mixer_crossfade(mr_mixer *mx, int track, const mr_clip *clip, float seconds, mr_curve curve,
                             const mr_play_opts *opts, mr_error *err);
/* Plays a blend space (copied; validated against the skeleton) at
 * parameter (x, y); its clips share one phase. Loop modes count cycles of
 * the blended cycle length. */
mr_status mr_mixer_play_blendspace(mr_mixer *mx, int track, const mr_blendspace *bs, float x, float y,
                                   const mr_play_opts *opts, mr_error *err);
/* Moves the parameter of the blend space the track currently plays. */
mr_status mr_mixer_set_param(mr_mixer *mx, int track, float x, float y, mr_error *err);
/* Queues clip to start when the current one ends (see above); opts->delay
 * waits, opts->fade cross-fades. Up to MR_MIXER_QUEUE per track. */
mr_status mr_mixer_queue(mr_mixer *mx, int track, const mr_clip *clip, const mr_play_opts *opts,
                         mr_error *err);
/* Fades everything on the track out over fade seconds (0: at once) and
 * clears its queue. */
mr_status mr_mixer_stop(mr_mixer *mx, int track, float fade, mr_error *err);
/* Freezes (1) or resumes (0) a track: time, fades and events. */
mr_status mr_mixer_pause(mr_mixer *mx, int track, int paused, mr_error *err);
/* Moves the current clip to clip time t (clamped to the clip) in its
 * current cycle; crossings are not reported for the jump, markers exactly
 * at t are reported by the next update. */
mr_status mr_mixer_seek(mr_mixer *mx, int track, float t, mr_error *err);
/* Changes the current clip's speed (negative plays backward). */
mr_status mr_mixer_set_speed(mr_mixer *mx, int track, float speed, mr_error *err);

/* Track settings. Weight in [0, 1], reached linearly over fade seconds. */
mr_status mr_mixer_set_weight(mr_mixer *mx, int track, float weight, float fade, mr_error *err);
/* Copies mask (the skeleton's joint count, weights in [0, 1]); NULL removes it. */
mr_status mr_mixer_set_mask(mr_mixer *mx, int track, const mr_mask *mask, mr_error *err);
/* 1: the track adds its clips as deltas; 0: it overrides (default). */
mr_status mr_mixer_set_additive(mr_mixer *mx, int track, int additive, mr_error *err);
/* Root-motion joint and MR_ROOT_* flags (0 turns extraction off). */
mr_status mr_mixer_set_root_motion(mr_mixer *mx, int joint, unsigned flags, mr_error *err);
/* Event callback (fn NULL: none). The callback may call any mixer function
 * except mr_mixer_update and mr_mixer_destroy. */
void mr_mixer_on_event(mr_mixer *mx, mr_event_fn fn, void *user);
void mr_mixer_set_pose_hook(mr_mixer *mx, mr_pose_hook_fn fn, void *user);

/* Advances every track by dt seconds (finite, >= 0). */
mr_status mr_mixer_update(mr_mixer *mx, float dt, mr_error *err);
/* Samples, blends, layers, runs the pose hook; writes the local pose to out
 * (the skeleton's joint count) and, when model is not NULL, its model-space
 * matrices (joint_count entries). */
mr_status mr_mixer_evaluate(mr_mixer *mx, mr_pose *out, mat4 *model, mr_error *err);

/* Events of the last update, sorted by offset; valid until the next update. */
const mr_mixer_event *mr_mixer_events(const mr_mixer *mx, int *count);
/* Events of the last update that did not fit in the list. */
int mr_mixer_events_dropped(const mr_mixer *mx);
/* Root motion of the last update (zero when off). */
void mr_mixer_root_delta(const mr_mixer *mx, mr_root_delta *out);

/* Queries. */
mr_status mr_mixer_time(const mr_mixer *mx, int track, float *time);       /* current clip time, 0 when idle */
mr_status mr_mixer_weight(const mr_mixer *mx, int track, float *weight);   /* the track's weight */
/* Sum of the weights of every instance of clip on the track (0 when absent). */
mr_status mr_mixer_clip_weight(const mr_mixer *mx, int track, const mr_clip *clip, float *weight);
/* Fills up to max infos, current clip first; returns how many the track plays
 * (or -1 for an unknown track). */
int mr_mixer_playing(const mr_mixer *mx, int track, mr_mixer_clip_info *out, int max);

/* Removes every use of clip (playing, queued, inside blend spaces) so it
 * can be freed. The clips left on a track share the weight the removed one
 * had (a running fade on that track ends there). */
void mr_mixer_forget(mr_mixer *mx, const mr_clip *clip);

/* The morph weights of a mixer's current state for the meshes of its model
 * (model->meshes, model->mesh_count; mixer_morph.c), in mr_draw_style's
 * layout: every mesh's targets in mesh order, count floats (out; a count
 * other than the meshes' writes the defaults
 * where it can). Starting from the meshes' default weights, tracks layer
 * bottom-up as joints do, without masks: each track's playing clips are
 * sampled at their times and blended by their weights (a clip without
 * morph weight tracks contributes the weights below it), then the track
 * replaces the weights below by its weight times its fill. A track none of
 * whose clips has morph weight tracks leaves them as they are (so additive
 * tracks, whose clips have none, add nothing). A blend space contributes
 * its dominant clip. Allocates nothing but a scratch array per call. */
void mr_mixer_morph(const mr_mixer *mx, const mr_mesh *meshes, int mesh_count, float *out, int count);

#endif
