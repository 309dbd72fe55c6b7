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
 * scale and takes the shortest-path slerp of rotations (constant angular
 * speed, what glTF, assimp and the MD5 runtime mean); CUBIC is a Hermite
 * spline with glTF's layout: per key, in-tangent, value, out-tangent
 * (3 * components floats), tangents scaled by the key interval, rotations
 * normalised.
 *
 * Slerp fidelity. mr_clip_sample does not call acos/sin per joint: it
 * nlerps (normalised lerp), which matches slerp at the keys and at the
 * middle of an interval but lags or leads in between, by at most
 * 0.0047 * A^3 radians over an interval of rotation angle A (1 degree of
 * error at 90-degree keys). mr_clip_finish therefore refines, once per clip,
 * every LINEAR rotation interval whose A exceeds what the joint's error
 * budget allows: it cuts the interval into m equal parts with slerped keys
 * (translation and scale lerped, so their curves do not change), m the
 * smallest with 0.0047 * (A/m)^3 <= max_angle[joint], at most
 * MR_CLIP_MAX_PIECES. The refinement is a sampling cache beside the source
 * keys (`fine`): tracks, key counts, `info`, writers and Lua keep the
 * file's keys.
 *   - Shared time line (every MD5 clip, baked exports): all tracks of the
 *     clip are cut at the same times (the widest joint decides each
 *     interval), so the time line stays shared and the SIMD bake
 *     (clip_dense.h) bakes the refined keys; sampling cost per joint is
 *     unchanged, only the one key search per clip sees more keys.
 *   - Otherwise each LINEAR rotation track is cut on its own.
 *   - STEP and CUBIC tracks are not refined (they do not nlerp).
 *   - Loops: the sampler wraps time into [0, duration] and never
 *     interpolates from the last key back to the first, so there is no wrap
 *     interval to refine.
 * The budget: a rotation error of e radians at joint j moves a point at
 * distance L from it by at most e * L, and the errors of a chain add up.
 * mr_model_add_clip sets max_angle[j] = B / S_j, with B half of
 * MR_CLIP_FIDELITY times the model size (bounding-box diagonal) and S_j the
 * largest sum, along a root-to-leaf chain through j, of each joint's reach
 * (the farthest bind- or rest-pose vertex or joint that it moves), so any
 * vertex strays from the slerped pose by at most B. Clips outside a model
 * (and blends built from them) use MR_CLIP_DEFAULT_MAX_ANGLE: chains of up
 * to 32 joints each reaching as far as the model size. Not covered: animated
 * scale above 1 lengthens the lever arms beyond the bind-pose reach.
 * mr_track_sample (one track: root motion, writers) slerps exactly.
 *
 * Key thinning (clip_optimize.h), opt-in with mr_clip_optimize: after the
 * refinement, mr_clip_finish drops from the sampling layer the keys that
 * interpolation reproduces within a per-joint budget in model units; the
 * clip then stays within the tolerance (a fraction of the model size,
 * default MR_CLIP_FIDELITY) of its exact curves, nlerp included.
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
    float *max_angle;    /* joint_count radians (owned), the slerp error budget, or NULL */
    mr_joint_tracks *fine;  /* owned slerp refinement set by mr_clip_finish, or NULL; an */
                         /* entry with no keys means the source track is sampled as is */
    int fine_added;      /* keys the refinement added, over all tracks */
    float *max_move;     /* joint_count model units (owned), the thinning budget of */
                         /* translations, or NULL: 0 (clip_optimize.h) */
    float thin_tolerance;  /* 0: no thinning, else a fraction of the model size (clip_optimize.h) */
    int fine_dropped;    /* keys thinning dropped from the sampling layer, over all tracks */
    /* Memory the clip points into but does not own: a cached model's file
     * image (formats/cache.h), or NULL. Track keys, refinement keys, the bake
     * and the name may live there; mr_clip_finish and mr_clip_destroy never
     * free a pointer inside it (the model frees the image). Do not call
     * mr_track_init on such a clip's tracks: build a new clip instead. */
    const void *borrowed;
    size_t borrowed_size;
    struct mr_morph_tracks *morph;  /* morph weight tracks (anim/morph.h), owned, or NULL */
} mr_clip;

/* Slerp fidelity (see above): the largest sampling error, as a fraction of
 * the model size, that the refinement allows; the per-joint budget of clips
 * outside a model; the most parts one key interval is cut into. */
#define MR_CLIP_FIDELITY 1e-4f
#define MR_CLIP_DEFAULT_MAX_ANGLE (0.5f * MR_CLIP_FIDELITY / 32.0f)
#define MR_CLIP_MAX_PIECES 64

/* The shortest interval between two keys of a source track, in seconds:
 * mr_clip_validate refuses closer keys, and every loader refuses a file
 * whose key times (or frame time, frame rate) give closer ones, naming the
 * place. Below it a key rate stops being a float (about 3e-39 s gives an
 * infinite rate). Sampling itself never indexes outside the keys, whatever
 * the times (see find_key_in in clip.c). */
#define MR_CLIP_MIN_KEY_INTERVAL 1e-6f

/* Allocates a clip with joint_count empty tracks (components preset) in
 * *out; the name is copied (NULL: "clip"). MR_ERR_INVALID_ARGUMENT for a
 * joint_count outside 0..MR_MAX_JOINTS, MR_ERR_NO_MEMORY; *out is NULL on
 * failure. Free with mr_clip_destroy. */
mr_status mr_clip_create(const char *name, int joint_count, mr_clip **out);
void mr_clip_destroy(mr_clip *clip);

/* Adds a marker named name (copied) at time, kept sorted by time; a marker
 * at the same time as existing ones goes after them. Fails with
 * MR_ERR_INVALID_ARGUMENT for an empty name or a time outside [0, duration]
 * (set the duration first), MR_ERR_LIMIT beyond MR_MAX_MARKERS. Allocates
 * (load time, not per frame); mr_clip_destroy releases the markers. */
#define MR_MAX_MARKERS 4096
mr_status mr_clip_add_marker(mr_clip *clip, float time, const char *name);

/* Allocates key_count keys for a track (times and values zeroed). */
mr_status mr_track_init(mr_track *track, int key_count, mr_interp interp);
/* After filling times: detects even spacing (sets uniform_rate). */
void mr_track_finish(mr_track *track);

/* Finishes every track (mr_track_finish), builds the slerp refinement
 * (above), thins keys when asked to (mr_clip_optimize, clip_optimize.h)
 * and detects a time line shared by all sampled tracks, so sampling
 * finds the key once per clip instead of once per track. mr_model_add_clip
 * calls it; call it again after editing keys of a clip that is already in a
 * model. Allocates (load time); without memory the clip samples unrefined. */
void mr_clip_finish(mr_clip *clip);

/* Sets the per-joint slerp error budget in radians (joint_count values > 0,
 * copied), or the default with NULL. Takes effect at the next
 * mr_clip_finish. MR_ERR_INVALID_ARGUMENT for a value <= 0 or NaN. */
mr_status mr_clip_set_max_angle(mr_clip *clip, const float *max_angle);

/* The track mr_clip_sample plays for joint's channel (0 translation,
 * 1 rotation, 2 scale): the refinement's when there is one, else the source. */
const mr_track *mr_clip_track(const mr_clip *clip, int joint, int channel);

/* Deep checks, run once at load: ascending finite times at least
 * MR_CLIP_MIN_KEY_INTERVAL apart, finite values,
 * non-zero rotations, duration covering the keys, markers sorted and inside
 * [0, duration]. */
mr_status mr_clip_validate(const mr_clip *clip, mr_error *err);

/* Samples the clip at time into pose (all joints; untracked channels take
 * the skeleton's rest values). Fails without touching pose on a NaN/inf
 * time, mismatched joint counts, or an empty clip (no joints). */
mr_status mr_clip_sample(const mr_clip *clip, const mr_skeleton *sk, float time,
                         mr_wrap wrap, mr_pose *pose);

/* Samples one track at time (already wrapped) into out (components floats):
 * the exact curve (LINEAR rotations slerped, no refinement needed). */
void mr_track_sample(const mr_track *track, float time, float *out);

/* Wraps time into [0, duration] per mode. */
float mr_clip_wrap_time(const mr_clip *clip, float time, mr_wrap wrap);

/* Number of keys of the longest track (the "frame count" shown by info). */
int mr_clip_key_count(const mr_clip *clip);

#endif
