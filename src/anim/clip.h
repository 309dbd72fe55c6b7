/* clip.h — source clips: per-joint translation/rotation/scale tracks of keys,
 * as a file or a script wrote them, and markers.
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
 * Sampling is the runtime clip's job (clip_runtime.h): mr_clip_finish builds
 * it from these keys (slerp refinement, optional key thinning, a shared time
 * line and its SIMD bake) and mr_clip_sample plays it. This file knows
 * nothing of it beyond the pointer it owns (mr_clip.runtime); the source
 * keys here are what loaders fill, writers and the Lua API read and
 * authoring edits, and they never change when a runtime is built.
 *
 * Markers name instants of a clip ("footstep" at 0.4 s); the mixer reports
 * them as events when playback crosses them (see mixer.h).
 *
 * mr_track_sample plays one source track exactly (LINEAR rotations
 * slerped): root motion and the writers use it.
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
    /* The runtime clip built from these keys (clip_runtime.h), owned, or
     * NULL before mr_clip_finish (or a budget setter) made one. After
     * editing keys, call mr_clip_finish again: the runtime is not rebuilt
     * by itself. mr_clip_destroy frees it by calling runtime_destroy (set
     * with it by mr_clip_runtime_of), so this file never calls the
     * runtime's code. */
    struct mr_clip_runtime *runtime;
    void (*runtime_destroy)(struct mr_clip_runtime *runtime);
    /* Memory the clip points into but does not own: a cached model's file
     * image (formats/cache.h; the model's own cache_block), or NULL. Track
     * keys, markers and the name may live there; mr_clip_destroy never
     * frees a pointer inside it (the model frees the image). Do not call
     * mr_track_init on such a clip's tracks: build a new clip instead. */
    const void *cache_block;
    size_t cache_block_size;
    struct mr_morph_tracks *morph;  /* morph weight tracks (anim/morph.h), owned, or NULL */
    /* Source keys on demand (mr_clip_source): while source_dropped, every
     * track holds no keys (the runtime, a pack, samples without them) and
     * source_reload, given source_ctx, puts the file's keys back. */
    int source_dropped;
    int source_key_count;  /* mr_clip_key_count's answer while dropped */
    int source_on_demand;  /* 1: given up once packed (loaded while mr_clip_keys_on_demand was on) */
    mr_status (*source_reload)(struct mr_clip *clip, void *ctx, mr_error *err);
    void *source_ctx;      /* owned: freed with source_ctx_free */
    void (*source_ctx_free)(void *ctx);
} mr_clip;

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
 * failure. Free with mr_clip_destroy, which also frees the clip's runtime. */
mr_status mr_clip_create(const char *name, int joint_count, mr_clip **out);
void mr_clip_destroy(mr_clip *clip);

/* Adds a marker named name (copied) at time, kept sorted by time; a marker
 * at the same time as existing ones goes after them. Fails with
 * MR_ERR_INVALID_ARGUMENT for an empty name or a time outside [0, duration]
 * (set the duration first), MR_ERR_LIMIT beyond MR_MAX_MARKERS. Allocates
 * (load time, not per frame); mr_clip_destroy releases the markers. */
#define MR_MAX_MARKERS 4096
mr_status mr_clip_add_marker(mr_clip *clip, float time, const char *name);

/* Source keys on demand (issue 46). A loader (formats/load.c) gives every
 * clip it returns a way to read its keys again from the file
 * (source_reload); when mr_clip_keys_on_demand is on, the runtime gives
 * the keys up once the clip is packed (clip_runtime.h: mr_clip_settle),
 * so a library of takes holds only its packs. Whatever reads source keys
 * (writers, retargeting, root motion, editing, error measures) calls
 * mr_clip_source first: MR_OK when the keys are resident (at once when
 * they never left), else the reload's status (the file gone or changed
 * since the load: MR_ERR_IO or MR_ERR_BAD_FILE, err says which). Takes a
 * const clip: the keys are part of what the clip is, only their residence
 * changes. Not thread-safe against other calls on the same clip. */
mr_status mr_clip_source(const mr_clip *clip, mr_error *err);

/* Frees the source keys of a clip that can reload them (source_reload
 * set; nothing otherwise) and whose sampling needs none (the caller
 * knows: clip_runtime.c calls it for packed clips); key counts are kept
 * for mr_clip_key_count. Keys inside cache_block are left where they
 * are (the model frees the block) but no longer referenced. */
void mr_clip_drop_source(mr_clip *clip);

/* Before editing a clip's keys: makes them resident (mr_clip_source) and
 * the clip's own, dropping the way back to the file (whose keys they no
 * longer are), so they are never given up. The reload's status. */
mr_status mr_clip_keep_source(mr_clip *clip, mr_error *err);

/* Process-wide: whether the clips loaded from now on give their source
 * keys up once packed (source_on_demand; default off: the command-line
 * tools keep them; the Lua host turns it on). */
void mr_clip_set_keys_on_demand(int on);
int mr_clip_keys_on_demand(void);

/* Allocates key_count keys for a track (times and values zeroed). */
mr_status mr_track_init(mr_track *track, int key_count, mr_interp interp);
/* mr_track_init for a caller that writes every time and value itself:
 * left unzeroed (a baked clip's 100,000 keys). */
mr_status mr_track_init_unset(mr_track *track, int key_count, mr_interp interp);
/* After filling times: detects even spacing (sets uniform_rate). */
void mr_track_finish(mr_track *track);

/* Deep checks, run once at load: ascending finite times at least
 * MR_CLIP_MIN_KEY_INTERVAL apart, finite values,
 * non-zero rotations, duration covering the keys, markers sorted and inside
 * [0, duration]. */
mr_status mr_clip_validate(const mr_clip *clip, mr_error *err);

/* Samples one track at time (already wrapped) into out (components floats):
 * the exact curve (LINEAR rotations slerped, no refinement needed). */
void mr_track_sample(const mr_track *track, float time, float *out);

/* Wraps time into [0, duration] per mode. */
float mr_clip_wrap_time(const mr_clip *clip, float time, mr_wrap wrap);

/* Number of keys of the longest track (the "frame count" shown by info). */
int mr_clip_key_count(const mr_clip *clip);

#endif
