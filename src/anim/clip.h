/* clip.h — animation clips: per-joint translation/rotation/scale tracks, and
 * sampling them into a pose.
 *
 * A track is a list of keys (ascending times in seconds, values of 3 or 4
 * floats). A track with no keys leaves that channel at the skeleton's rest
 * value, so a clip need only animate what moves. Clip time is the source
 * file's time: t = 0 is the document's time 0, and the clip lasts until
 * `duration`. Times before the first key hold the first key, after the last
 * key hold the last.
 *
 * Interpolation: STEP holds the previous key; LINEAR lerps translation and
 * scale and takes the shortest-path nlerp of rotations (normalised);
 * CUBIC is a Hermite spline with glTF's layout: per key, in-tangent, value,
 * out-tangent (3 * components floats), tangents scaled by the key interval.
 *
 * Markers name instants of a clip ("footstep" at 0.4 s); the mixer reports
 * them as events when playback crosses them (see mixer.h).
 *
 * Sampling allocates nothing. When a track's keys are evenly spaced
 * (`uniform_rate` > 0, set by mr_track_finish) the key is found in O(1);
 * otherwise by binary search.
 */
#ifndef MR_ANIM_CLIP_H
#define MR_ANIM_CLIP_H

#include "anim/pose.h"

typedef enum mr_interp {
    MR_INTERP_LINEAR = 0,
    MR_INTERP_STEP,
    MR_INTERP_CUBIC,
} mr_interp;

typedef enum mr_wrap {
    MR_WRAP_CLAMP = 0,   /* hold the ends */
    MR_WRAP_LOOP,        /* t modulo duration */
} mr_wrap;

typedef struct mr_track {
    int key_count;       /* 0: the channel keeps the rest pose */
    int components;      /* 3 for translation and scale, 4 for rotation */
    mr_interp interp;
    float *times;        /* key_count seconds, strictly ascending */
    float *values;       /* key_count*components, or 3*key_count*components for CUBIC */
    float uniform_rate;  /* keys per second when evenly spaced, else 0 */
} mr_track;

typedef struct mr_joint_tracks {
    mr_track t, r, s;
} mr_joint_tracks;

typedef struct mr_marker {
    float time;          /* seconds, 0 <= time <= duration */
    char *name;          /* owned, non-empty */
} mr_marker;

typedef struct mr_clip {
    char *name;
    float duration;      /* seconds, >= 0 */
    float rate;          /* source frames per second, 0 when the source has none */
    int joint_count;     /* must equal the skeleton's */
    mr_joint_tracks *tracks;  /* joint_count entries */
    int marker_count;
    mr_marker *markers;  /* marker_count entries sorted by time (owned), or NULL */
    int shared_keys;     /* set by mr_clip_finish: > 1 when every track with more than */
    const float *shared_times;  /* one key uses these same key times (borrowed) */
    float shared_rate;   /* their uniform_rate */
    struct mr_clip_dense *dense;  /* owned SIMD bake of a shared time line (clip_dense.h), or NULL */
} mr_clip;

/* Allocates a clip with joint_count empty tracks (components preset). The
 * name is copied. Free with mr_clip_free. */
mr_clip *mr_clip_make(const char *name, int joint_count);
void mr_clip_free(mr_clip *clip);

/* Adds a marker named name (copied) at time, kept sorted by time; a marker
 * at the same time as existing ones goes after them. Fails with
 * MR_ERR_INVALID_ARGUMENT for an empty name or a time outside [0, duration]
 * (set the duration first), MR_ERR_LIMIT beyond MR_MAX_MARKERS. Allocates
 * (load time, not per frame); mr_clip_free releases the markers. */
#define MR_MAX_MARKERS 4096
mr_status mr_clip_add_marker(mr_clip *clip, float time, const char *name);

/* Allocates key_count keys for a track (times and values zeroed). */
mr_status mr_track_alloc(mr_track *track, int key_count, mr_interp interp);
/* After filling times: detects even spacing (sets uniform_rate). */
void mr_track_finish(mr_track *track);

/* Finishes every track (mr_track_finish) and detects a time line shared by
 * all animated tracks, so sampling finds the key once per clip instead of
 * once per track. mr_model_add_clip calls it; call it again after editing
 * keys of a clip that is already in a model. */
void mr_clip_finish(mr_clip *clip);

/* Deep checks, run once at load: ascending finite times, finite values,
 * non-zero rotations, duration covering the keys, markers sorted and inside
 * [0, duration]. */
mr_status mr_clip_validate(const mr_clip *clip, mr_error *err);

/* Samples the clip at time into pose (all joints; untracked channels take
 * the skeleton's rest values). Fails without touching pose on a NaN/inf
 * time, mismatched joint counts, or an empty clip (no joints). */
mr_status mr_clip_sample(const mr_clip *clip, const mr_skeleton *sk, float time,
                         mr_wrap wrap, mr_pose *pose);

/* Samples one track at time (already wrapped) into out (components floats). */
void mr_track_sample(const mr_track *track, float time, float *out);

/* Wraps time into [0, duration] per mode. */
float mr_clip_wrap_time(const mr_clip *clip, float time, mr_wrap wrap);

/* Number of keys of the longest track (the "frame count" shown by info). */
int mr_clip_key_count(const mr_clip *clip);

#endif
