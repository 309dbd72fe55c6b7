/* clip_runtime.h — the runtime clip: what sampling reads, built from a
 * source clip (clip.h) by one builder, mr_clip_finish.
 *
 * The split follows ozz-animation's offline RawAnimation -> runtime
 * Animation. The source clip (mr_clip) holds the keys as a file or a script
 * wrote them; loaders fill it, writers and the Lua API read it, authoring
 * edits it. The runtime clip (mr_clip_runtime) holds everything the sampler
 * needs beyond those keys: the slerp refinement, thinned keys, the shared
 * time line and the SIMD bake, plus the budgets that decide them. Calls run
 * one way: the builder and the sampler read the source clip; clip.c never
 * calls into this file (mr_clip_destroy releases the runtime through the
 * destructor the builder leaves in mr_clip.runtime_destroy).
 *
 * Where it lives. A source clip owns at most one runtime clip
 * (mr_clip.runtime): mr_clip_finish builds it, mr_clip_destroy frees it,
 * so every caller keeps handing one mr_clip around (the model, the mixer,
 * blends, Lua). A clip never finished has no runtime and samples its source
 * tracks as they are (no refinement, no shared time line).
 *
 * Builder (mr_clip_finish), in order:
 *   1. mr_track_finish on every source track (key spacing);
 *   2. the slerp refinement (below) into `played`;
 *   3. when a tolerance is set (mr_clip_optimize; mr_model_add_clip sets
 *      MR_CLIP_FIDELITY for every clip of a model): the packed clip (clip_pack.h),
 *      keys reduced per track and quantised, from candidates refined track
 *      by track (a shared time line would cut every track where one turns
 *      fast), then repacked where its measured error leaves room
 *      (clip_measure.h: clips of a model); the sampler then reads only it,
 *      and steps 4-5 are skipped (the refined keys are freed);
 *   4. otherwise key thinning when asked for (clip_optimize.h: clips the
 *      pack does not take);
 *   5. the time line shared by all played tracks, and its SIMD bake
 *      (clip_dense.h).
 * The budgets (max_angle, max_move, thin_tolerance) are settings: they
 * survive a rebuild, so call mr_clip_finish again after editing the source
 * keys of a clip that was already finished.
 *
 * Slerp fidelity. mr_clip_sample does not call acos/sin per joint: it
 * nlerps (normalised lerp), which matches slerp at the keys and at the
 * middle of an interval but lags or leads in between, by at most
 * 0.0047 * A^3 radians over an interval of rotation angle A (1 degree of
 * error at 90-degree keys). The builder therefore refines every LINEAR
 * rotation interval whose A exceeds what the joint's error budget allows:
 * it cuts the interval into m equal parts with slerped keys (translation
 * and scale lerped, so their curves do not change), m the smallest with
 * 0.0047 * (A/m)^3 <= max_angle[joint], at most MR_CLIP_MAX_PIECES. The
 * refined keys go to `played`; the source tracks, key counts, `info`,
 * writers and Lua keep the file's keys.
 *   - Shared time line (every MD5 clip, baked exports): all tracks of the
 *     clip are cut at the same times (the widest joint decides each
 *     interval), so the time line stays shared and the SIMD bake
 *     bakes the refined keys; sampling cost per joint is unchanged, only
 *     the one key search per clip sees more keys.
 *   - Otherwise each LINEAR rotation track is cut on its own.
 *   - STEP and CUBIC tracks are not refined (they do not nlerp).
 *   - Loops: the sampler wraps time into [0, duration] and never
 *     interpolates from the last key back to the first, so there is no wrap
 *     interval to refine.
 * The budget: a rotation error of e radians at joint j moves a point at
 * distance L from it by at most e * L, and the errors of a chain add up.
 * mr_model_add_clip gives max_angle[j] = B / S_j (at once, or through
 * budget_src when the pack is built: below), with B half of
 * MR_CLIP_FIDELITY times the model size (bounding-box diagonal) and S_j the
 * largest sum, along a root-to-leaf chain through j, of each joint's reach
 * (the farthest bind- or rest-pose vertex or joint that it moves, plus
 * MR_CLIP_POINT_DISTANCE times the model size), so any vertex, and any
 * virtual point that distance along a joint's axes, strays from the
 * slerped pose by at most B. Clips outside a model
 * (and blends built from them) use MR_CLIP_DEFAULT_MAX_ANGLE: chains of up
 * to 32 joints each reaching as far as the model size. Not covered: animated
 * scale above 1 lengthens the lever arms beyond the bind-pose reach.
 * mr_track_sample (one source track: root motion, writers) slerps exactly.
 *
 * Sampling allocates nothing. When a track's keys are evenly spaced
 * (`uniform_rate` > 0, set by mr_track_finish) the key is found in O(1);
 * otherwise by binary search.
 *
 * Ownership. Everything the runtime points to is its own (freed by
 * mr_clip_runtime_destroy) except shared_times, which points into one of
 * the played or source tracks, and what lies inside cache_block: a cached
 * model's file image (formats/cache.h), which the model frees. */
#ifndef MR_ANIM_CLIP_RUNTIME_H
#define MR_ANIM_CLIP_RUNTIME_H

#include <stddef.h>

#include "anim/clip.h"

/* Slerp fidelity (see above): the largest sampling error, as a fraction of
 * the model size, that the refinement allows; the per-joint budget of clips
 * outside a model; the most parts one key interval is cut into. */
#define MR_CLIP_FIDELITY 1e-4f
#define MR_CLIP_DEFAULT_MAX_ANGLE (0.5f * MR_CLIP_FIDELITY / 32.0f)
#define MR_CLIP_MAX_PIECES 64
/* Where the error is measured besides vertices: virtual points this
 * fraction of the model size along each joint's axes (10 cm on a 1.8 m
 * character, ozz-animation's default distance). mr_model_add_clip adds it
 * to every joint's reach, so the bound covers them. */
#define MR_CLIP_POINT_DISTANCE (0.1 / 1.8)

/* A budget computed on first need: mr_model_add_clip gives a clip its
 * model's budgets this way, so that computing them (the skinned points'
 * reach of every joint) happens where the pack is built, off the load's
 * path. resolve computes them once (thread-safe: the first result is
 * kept) and returns them (NULL: none, the defaults apply); retain and
 * release count the references (each runtime holding one keeps one). */
typedef struct mr_clip_budget {
    const float *max_angle, *max_move, *point_reach;  /* joint_count each, or NULL */
} mr_clip_budget;
typedef struct mr_clip_budget_src mr_clip_budget_src;
struct mr_clip_budget_src {
    const mr_clip_budget *(*resolve)(mr_clip_budget_src *src);
    void (*retain)(mr_clip_budget_src *src);
    void (*release)(mr_clip_budget_src *src);
};

typedef struct mr_clip_runtime {
    int joint_count;     /* the source clip's */
    /* Settings: read by the builder, kept across rebuilds. */
    float *max_angle;    /* joint_count radians, the slerp error budget, or NULL: default */
    float *max_move;     /* joint_count model units, the thinning budget of */
                         /* translations, or NULL: 0 (clip_optimize.h) */
    float *point_reach;  /* joint_count model units: the farthest point the joint itself carries */
                         /* (a vertex skinned to it, a virtual point), which the measured budget */
                         /* uses (clip_measure.h), or NULL: the reach of the budgets */
    float thin_tolerance;  /* 0: no thinning, else a fraction of the model size (clip_optimize.h) */
    mr_clip_budget_src *budget_src;  /* budgets not yet taken (one reference; a build's own */
                         /* runtime borrows it): max_angle, max_move and point_reach come */
                         /* from it when the pack is built (mr_clip_adopt_budget) */
    float *rest;         /* joint_count * 10 floats (t xyz, r xyzw, s xyz): the skeleton's rest */
                         /* pose, or NULL; the packed clip leaves out tracks that hold it */
    int *parents;        /* joint_count: the skeleton's parents, with rest (the measured */
                         /* budget's local-to-model, clip_measure.h), or NULL */
    /* Built by mr_clip_finish. */
    mr_joint_tracks *played;  /* joint_count entries, or NULL: the keys the sampler plays */
                         /* where they differ from the source (refined or thinned); an */
                         /* entry with no keys means the source track is played as is */
    int keys_added;      /* keys the refinement added, over all tracks */
    int keys_dropped;    /* keys thinning dropped from the played keys, over all tracks */
    int shared_keys;     /* > 1 when every played track with more than one key */
    const float *shared_times;  /* uses these same key times (not owned) */
    float shared_rate;   /* their uniform_rate */
    struct mr_clip_dense *dense;  /* SIMD bake of a shared time line (clip_dense.h), or NULL */
    struct mr_clip_pack *pack;    /* the packed clip (clip_pack.h), or NULL: when set, the */
                         /* sampler reads only it (played and dense are not built) */
    unsigned long long serial;  /* new for every pack built or read: cursors bind to it */
    /* Off the load's path (mr_clip_finish_later, clip_worker.c). */
    struct mr_clip_job *job;  /* the pack being built for this runtime, or NULL */
    const _Atomic int *cancel;  /* in a build's own runtime: stop (no pack) when set */
    /* Memory the runtime points into but does not own (a cached model's file
     * image), or NULL: mr_clip_finish and mr_clip_runtime_destroy never free
     * a pointer inside it. Same value as the clip's cache_block. */
    const void *cache_block;
    size_t cache_block_size;
} mr_clip_runtime;

/* The builder: (re)builds clip->runtime from the source tracks (steps
 * above), creating it on the first call. mr_model_add_clip calls it; call it
 * again after editing keys of a clip that is already in a model. Allocates
 * (load time); without memory the clip samples unrefined. */
void mr_clip_finish(mr_clip *clip);

/* mr_clip_finish off the caller's path: for a clip whose runtime packs
 * (a tolerance set: mr_clip_optimize, or mr_model_add_clip, which packs
 * every clip of a model at MR_CLIP_FIDELITY) and whose keys the pack takes,
 * the pack is built by a worker thread (clip_worker.c) and the call returns
 * at once. A clip whose keys the pack does not take (CUBIC) but whose
 * budgets are pending (budget_src: a load's clip) is built the same way,
 * the build only resolving the budgets; mr_clip_settle then finishes it
 * unpacked, as mr_clip_finish would have. Otherwise it is mr_clip_finish.
 * The worker reads the source
 * keys and the runtime's settings while it builds: until mr_clip_settle
 * (or mr_clip_cancel) returns, nobody may change them (the setters below,
 * mr_clip_finish, mr_clip_optimize and mr_clip_destroy settle or cancel
 * by themselves; code that edits keys calls mr_clip_cancel first).
 *
 * Determinism: nothing samples a clip whose pack is pending. Every call
 * that reads what the builder makes (mr_clip_sample, _with, _model,
 * mr_clip_runtime_bytes, mr_clip_runtime_error) settles first, so a pose
 * never depends on whether the worker was done: it is always the pack's.
 * A settle takes the build over when the worker has not started it; its
 * wait and build are load work (core/load_work.h: a script's budget does
 * not count them).
 * Builds wait in a bounded queue: MR_CLIP_PENDING_MAX of any size, more
 * while the source keys they read come to at most MR_CLIP_PENDING_BYTES
 * (MR_CLIP_PENDING_JOBS at most); a further call waits for the oldest to
 * finish. A folder of takes loads at the pace packing allows, holding the
 * keys of a few clips beyond the packs, while a model with many clips (a
 * character with its motions: mixamo.fbx and a motion file, snoutx10k's
 * seven anims) loads without waiting for any pack. */
#define MR_CLIP_PENDING_MAX 4
#define MR_CLIP_PENDING_BYTES (32u << 20)
#define MR_CLIP_PENDING_JOBS 256
void mr_clip_finish_later(mr_clip *clip);

/* Packs queued while a hold is under way wait for its end before the
 * worker starts them: a loader (formats/load.c) holds them while it reads
 * a file, so that the pack of its first clip does not take a core from
 * the rest of the read (on a busy machine the worker preempted the load)
 * and a model freed at once (a failed load's, a bench's) costs no build.
 * A settle still builds its own clip at once; a full queue still drains.
 * Holds nest; every hold is released by its caller. */
void mr_clip_hold_packs(void);
void mr_clip_release_packs(void);
/* 1 while a hold is under way (a load's read): mr_model_add_clip then
 * leaves the model's budget to the pack's build (model.h). */
int mr_clip_packs_held(void);

/* Waits for the clip's pending pack (building it on this thread when no
 * worker has started it) and installs it; nothing when none is pending.
 * Takes a const clip: it completes the runtime, which the clip points to. */
void mr_clip_settle(const mr_clip *clip);

/* Drops the clip's pending pack, if any (stopping the worker's build of
 * it); the runtime is left with nothing built (call mr_clip_finish). */
void mr_clip_cancel(mr_clip *clip);

/* 1 while the clip's pack is pending. */
int mr_clip_pending(const mr_clip *clip);

/* An empty runtime for clip (settings zero, nothing built), created when
 * the clip has none, so settings can be given before the first build.
 * NULL without memory. */
mr_clip_runtime *mr_clip_runtime_of(mr_clip *clip);

/* A number no other pack of this process had or will have (the cache
 * reader gives one to each pack it reads). */
unsigned long long mr_clip_pack_serial(void);

/* Frees a runtime clip and what it owns (not what lies in its cache_block);
 * takes NULL. mr_clip_destroy calls it through mr_clip.runtime_destroy. */
void mr_clip_runtime_destroy(mr_clip_runtime *rt);

/* Sets the per-joint slerp error budget in radians (joint_count values > 0,
 * copied), or the default with NULL. Takes effect at the next
 * mr_clip_finish. MR_ERR_INVALID_ARGUMENT for a value <= 0 or NaN,
 * MR_ERR_NO_MEMORY. */
mr_status mr_clip_set_max_angle(mr_clip *clip, const float *max_angle);

/* Sets the per-joint translation budget at MR_CLIP_FIDELITY in model units
 * (joint_count values >= 0, copied; mr_model_add_clip gives it), or removes
 * it with NULL. Takes effect at the next mr_clip_finish.
 * MR_ERR_INVALID_ARGUMENT for a negative or NaN value, MR_ERR_NO_MEMORY. */
mr_status mr_clip_set_max_move(mr_clip *clip, const float *max_move);
/* Sets each joint's point reach (mr_clip_runtime.point_reach; NULL: none);
 * MR_ERR_INVALID_ARGUMENT for a value below 0 or NaN. */
mr_status mr_clip_set_point_reach(mr_clip *clip, const float *point_reach);

/* Gives the clip's runtime the budgets of src (one reference taken),
 * computed when they are first needed; replaces one given before. NULL
 * without a runtime (no memory: MR_ERR_NO_MEMORY). */
mr_status mr_clip_set_budget_src(mr_clip *clip, mr_clip_budget_src *src);

/* Takes the budgets of the runtime's budget_src into max_angle, max_move
 * and point_reach (computing them here when nothing has yet) and drops
 * it, cancelling a pending build first (it borrows the source): what
 * mr_clip_finish does first, mr_clip_settle once its build is done, and
 * code that changes the clip's model (anim/axes.c) before. */
void mr_clip_adopt_budget(mr_clip *clip);

/* Gives the runtime sk's rest pose and parents (copied; NULL removes
 * them; no parents where a joint of sk undoes its parent's scale,
 * scale_comp, which the measured budget does not model): the packed
 * clip (clip_pack.h) leaves out a track that holds its joint's rest value
 * within the track's budget, as ACL strips bind-pose tracks, and sampling
 * takes that value from the skeleton it is given. mr_model_add_clip sets
 * the model's. Takes effect at the next mr_clip_finish.
 * MR_ERR_JOINT_COUNT when sk has another joint count, MR_ERR_NO_MEMORY. */
mr_status mr_clip_set_rest(mr_clip *clip, const mr_skeleton *sk);

/* Optimising: sets the tolerance (a fraction of the model size; 0 =
 * default MR_CLIP_FIDELITY) and rebuilds here and now; every later
 * mr_clip_finish optimises at it too. Every clip a model is given
 * (mr_model_add_clip) already packs at MR_CLIP_FIDELITY: call this for
 * another tolerance, or for clips outside a model. Clips of LINEAR and
 * STEP keys are packed (clip_pack.h: about a tenth of the dense bake's
 * bytes; sampled through a cursor about as fast); others are thinned
 * (clip_optimize.h). Allocates (load time).
 * MR_ERR_INVALID_ARGUMENT for a negative, NaN or infinite tolerance,
 * MR_ERR_NO_MEMORY. Without memory for the thinning itself the clip samples
 * correctly, thinned less or not at all. */
mr_status mr_clip_optimize(mr_clip *clip, float tolerance);

/* The track mr_clip_sample plays for joint's channel (0 translation,
 * 1 rotation, 2 scale): the runtime's played keys when there are some, else
 * the source track. */
static inline const mr_track *mr_clip_track(const mr_clip *clip, int joint, int channel)
{
    const mr_clip_runtime *rt = clip->runtime;
    const mr_joint_tracks *f = rt && rt->played ? &rt->played[joint] : NULL;
    const mr_joint_tracks *jt = &clip->tracks[joint];
    if (channel == 0) return f && f->t.key_count ? &f->t : &jt->t;
    if (channel == 1) return f && f->r.key_count ? &f->r : &jt->r;
    return f && f->s.key_count ? &f->s : &jt->s;
}

/* Samples the clip at time into pose (all joints; untracked channels take
 * the skeleton's rest values). Fails without touching pose on a NaN/inf
 * time, mismatched joint counts, or an empty clip (no joints). */
mr_status mr_clip_sample(const mr_clip *clip, const mr_skeleton *sk, float time,
                         mr_wrap wrap, mr_pose *pose);

/* The exact pose of the source keys at time (mr_track_sample per channel:
 * LINEAR rotations slerped), not the runtime's: what writers and
 * retargeting read, since the default runtime is packed (within
 * MR_CLIP_FIDELITY of the model size of this). Slower than mr_clip_sample.
 * Fails as mr_clip_sample does. */
mr_status mr_clip_sample_keys(const mr_clip *clip, const mr_skeleton *sk, float time, mr_wrap wrap, mr_pose *pose);

/* A playback cursor: what one playhead keeps between samples of a clip so
 * that a packed clip (clip_pack.h) samples about as fast as the dense bake:
 * each track's two keys around the last time, decoded, and the next few
 * keys of a track that plays on (clip_cursor.c).
 * Give each playhead its own; it binds itself to whatever clip and
 * skeleton it is given (a clip of more joints than its room makes it
 * allocate), so one cursor may follow a playhead through clip changes. */
typedef struct mr_clip_cursor mr_clip_cursor;
/* A cursor with room for clips of up to `joints` joints (0: none yet):
 * sampling such clips through it allocates nothing; a larger clip makes it
 * allocate once. NULL without memory. */
mr_clip_cursor *mr_clip_cursor_create(int joints);
void mr_clip_cursor_destroy(mr_clip_cursor *cur);   /* takes NULL */
/* Bytes the cursor holds (its struct and arrays; takes NULL: 0). */
size_t mr_clip_cursor_bytes(const mr_clip_cursor *cur);

/* mr_clip_sample through a cursor (NULL: none): the same pose, bit for bit;
 * faster when time moves by less than a key interval between calls. */
mr_status mr_clip_sample_with(const mr_clip *clip, const mr_skeleton *sk, float time, mr_wrap wrap,
                              mr_pose *pose, mr_clip_cursor *cur);

/* mr_clip_sample_with, then mr_pose_to_model of the pose into model (the
 * same bits), in one step: a packed clip sampled through a cursor goes to
 * model matrices from the cursor's rows of local transforms, which saves
 * moving them into a pose and back out (docs/PERFORMANCE.md). pose NULL:
 * the caller wants only the model matrices (then a cursor is needed; it
 * lends a pose where the clip needs one). Fails as mr_clip_sample does,
 * touching neither pose nor model. */
mr_status mr_clip_sample_model(const mr_clip *clip, const mr_skeleton *sk, float time, mr_wrap wrap,
                               mr_pose *pose, mat4 *model, mr_clip_cursor *cur);

/* What the sampler reads, in bytes (issue 30's "runtime bytes"): a
 * packed clip's block; with a SIMD bake, its rows (keys * 10 * lanes floats), its list of rest channels
 * and the shared key times; otherwise, for every channel, the times and
 * values of the track mr_clip_track gives (a one-key track counts its one
 * key). A clip never finished counts its source tracks. Structs and the
 * budgets are not counted. */
size_t mr_clip_runtime_bytes(const mr_clip *clip);

/* The largest error the runtime leaves, measured as ACL and ozz measure
 * it: at `samples` evenly spaced times over [0, duration] (at least 2),
 * the pose mr_clip_sample plays and the exact pose of the source keys
 * (mr_track_sample: LINEAR rotations slerped) go through local-to-model,
 * and *out gets the largest distance, in model units, between where the
 * two put a virtual point: each joint's origin and the points `distance`
 * model units along its x, y and z axes (so rotation errors count with
 * their lever arm and propagate down the hierarchy). Allocates (two poses
 * and their matrices). MR_ERR_INVALID_ARGUMENT for a NULL argument, a
 * distance < 0 or NaN, samples < 2; MR_ERR_JOINT_COUNT when clip and
 * skeleton differ; MR_ERR_EMPTY_CLIP; MR_ERR_NO_MEMORY. */
mr_status mr_clip_runtime_error(const mr_clip *clip, const mr_skeleton *sk, float distance, int samples,
                                double *out);

/* Bytes a clip's keys hold: its source tracks, its runtime's played keys
 * and its morph weight channels (mr_model_bytes counts a model's clips so;
 * the Lua host counts authored clips against --memory). */
size_t mr_clip_bytes(const mr_clip *clip);

#endif
