/* clip_edit.h — authoring: keys with per-key easing, edited and baked into
 * a sampleable clip (what marrow.clip / clip:key build, issue 28).
 *
 * An mr_clip_edit is the authoring source of one clip: for every joint and
 * channel (0 translation, 1 rotation, 2 scale) a list of keys sorted by
 * time, each with a value (3 floats, or a unit quaternion x,y,z,w) and the
 * ease of the segment that STARTS at it (Blender's convention: a key's
 * interpolation governs the way to the next key; the last key's ease is
 * kept but unused). A channel without keys holds the skeleton's rest value.
 *
 * Eases remap the segment's normalised time u in [0, 1] before the values
 * are lerped (rotations: slerped the short way, any u, so back and elastic
 * overshoot): LINEAR, STEP (hold the key until the next), SMOOTH
 * (smoothstep), the tweening families as easings.net defines them (IN,
 * OUT, IN_OUT are the quadratic ones), and BEZIER, a CSS-style timing curve
 * through (0,0), (x1,y1), (x2,y2), (1,1) with 0 <= x1, x2 <= 1 (the key's
 * `bezier`: its two tangent handles in normalised time/value).
 *
 * Baking (mr_clip_edit_bake). mr_track has one interpolation per track, so
 * the edit is the source of the keys and eases (listing, editing, copying
 * on reload) and the clip gets what sampling and the writers need:
 *   - a channel whose segments are all LINEAR: a LINEAR track with exactly
 *     the keys; all STEP: a STEP track with the keys;
 *   - otherwise a LINEAR track: each key, and inside each eased segment as
 *     many extra keys (adaptive bisection of u) as keep the linear pieces
 *     within `tolerance` model units of the eased curve (a rotation of
 *     angle A moves points at most A * size away, a scale change dS by
 *     dS * size); a STEP segment inside such a track becomes a hold and a
 *     jump MR_CLIP_EDIT_STEP_GAP (plus 1e-6 of the time) before the next key.
 * So every format that holds linear keys saves the eased motion within the
 * tolerance, and loads back posing the same.
 *
 * Morph weights (issue 31). An edit made for a model with morph targets
 * (mr_clip_edit_set_weights) has one more channel per weight, in
 * morph.h's layout (every mesh's targets in mesh order): channel
 * MR_EDIT_WEIGHT, with `joint` the weight's index in that layout and
 * value[0] the weight. Its keys ease like the others; a weight without
 * keys holds its rest weight (the mesh's default). Baking gives the clip
 * one morph channel (clip->morph) per mesh that has a keyed weight: STEP
 * when all its weights' segments are STEP, else LINEAR with every weight's
 * keys and the eased segments' extra keys (within
 * MR_CLIP_EDIT_WEIGHT_TOLERANCE, weights being unitless) at the union of
 * their times. The edits (trim, reverse, retime, append) treat weight
 * channels as the joints' channels.
 *
 * Ownership: the edit owns its keys and its name; the clip it bakes into is
 * the caller's. Allocation happens on edits (not per frame).
 */
#ifndef MR_ANIM_CLIP_EDIT_H
#define MR_ANIM_CLIP_EDIT_H

#include "anim/clip.h"

typedef enum mr_ease {
    MR_EASE_LINEAR = 0,
    MR_EASE_STEP,
    MR_EASE_SMOOTH,
    MR_EASE_IN, MR_EASE_OUT, MR_EASE_IN_OUT,                      /* quadratic */
    MR_EASE_IN_CUBIC, MR_EASE_OUT_CUBIC, MR_EASE_IN_OUT_CUBIC,
    MR_EASE_IN_QUART, MR_EASE_OUT_QUART, MR_EASE_IN_OUT_QUART,
    MR_EASE_IN_QUINT, MR_EASE_OUT_QUINT, MR_EASE_IN_OUT_QUINT,
    MR_EASE_IN_SINE, MR_EASE_OUT_SINE, MR_EASE_IN_OUT_SINE,
    MR_EASE_IN_BACK, MR_EASE_OUT_BACK, MR_EASE_IN_OUT_BACK,
    MR_EASE_IN_ELASTIC, MR_EASE_OUT_ELASTIC, MR_EASE_IN_OUT_ELASTIC,
    MR_EASE_BEZIER,
    MR_EASE_COUNT
} mr_ease;

/* Names as scripts write them ("linear", "in_out_cubic", ...), NULL-ended;
 * mr_ease_names[e] names e. */
extern const char *const mr_ease_names[];

#define MR_CLIP_EDIT_STEP_GAP 1e-5f
/* The channel index of a morph weight (after translation, rotation, scale). */
#define MR_EDIT_WEIGHT 3
/* How far (unitless) baked weight keys may stray from an eased weight curve. */
#define MR_CLIP_EDIT_WEIGHT_TOLERANCE 5e-4f

/* The eased u (u in [0, 1]; back and elastic leave [0, 1] in between).
 * bezier: x1, y1, x2, y2 for MR_EASE_BEZIER, else unused (may be NULL). */
double mr_ease_apply(mr_ease ease, const float *bezier, double u);
/* The ease that plays a segment backwards: e'(u) = 1 - e(1 - u) (in <->
 * out; bezier handles mirrored into out_bezier). STEP has no mirror among
 * the eases (it would jump at the segment's start): it stays STEP. */
mr_ease mr_ease_mirror(mr_ease ease, const float *bezier, float *out_bezier);

typedef struct mr_edit_key {
    float time;
    float value[4];      /* 3 used for translation and scale */
    mr_ease ease;
    float bezier[4];     /* x1, y1, x2, y2 for MR_EASE_BEZIER */
} mr_edit_key;

typedef struct mr_edit_channel {
    int count, cap;
    mr_edit_key *keys;   /* count keys, ascending times (owned) */
} mr_edit_channel;

typedef struct mr_clip_edit {
    int joint_count;
    mr_edit_channel *ch; /* joint_count * 3 entries: ch[joint * 3 + channel] (owned) */
    float duration;      /* > 0 */
    float rate;          /* frames per second for the writers, > 0 */
    int weight_count;    /* morph weights (morph.h's layout); 0: the model has no targets */
    mr_edit_channel *w;  /* weight_count channels, key value[0] the weight (owned) */
    float *weight_rest;  /* weight_count weights of unkeyed channels (owned) */
    int mesh_count;      /* the model's meshes, for the layout */
    int *mesh_targets;   /* mesh_count target counts, 0 for a mesh without (owned) */
    int merged;          /* keys set less than MR_CLIP_MIN_KEY_INTERVAL * 10 from another key's time,
                          * which they replaced (mr_clip_edit_key); for a binding to say so */
    float merged_time[2];/* the last such: the new key's time and the time of the key it replaced */
} mr_clip_edit;

/* An empty edit (no keys). MR_ERR_INVALID_ARGUMENT for a joint count
 * outside 1..MR_MAX_JOINTS, a duration or rate not finite and > 0. */
mr_status mr_clip_edit_create(int joint_count, float duration, float rate, mr_clip_edit **out);
void mr_clip_edit_destroy(mr_clip_edit *edit);
/* Bytes the edit's keys take (its channels' capacity). */
size_t mr_clip_edit_bytes(const mr_clip_edit *edit);
/* Gives an edit without weight keys its model's weight layout: mesh_count
 * meshes, targets[i] morph targets on mesh i (0: none), rest the meshes'
 * default weights (sum of targets entries, copied). Replaces an earlier
 * layout and drops its weight keys. MR_ERR_INVALID_ARGUMENT for a negative
 * count or a non-finite rest weight; MR_ERR_NO_MEMORY. */
mr_status mr_clip_edit_set_weights(mr_clip_edit *edit, int mesh_count, const int *targets, const float *rest);
/* Whether any weight channel has keys. */
int mr_clip_edit_has_weight_keys(const mr_clip_edit *edit);
mr_status mr_clip_edit_copy(const mr_clip_edit *edit, mr_clip_edit **out);

/* Sets a key (a key closer than MR_CLIP_MIN_KEY_INTERVAL * 10 in time is
 * replaced). value: 3 floats, or 4 (normalised here; a zero quaternion is
 * MR_ERR_INVALID_ARGUMENT), or 1 for channel MR_EDIT_WEIGHT (joint: the
 * weight's index). MR_ERR_INVALID_ARGUMENT for a joint or channel
 * out of range, a time not in [0, duration], a non-finite value, a bezier
 * with x outside [0, 1]. */
mr_status mr_clip_edit_key(mr_clip_edit *edit, int joint, int channel, float time, const float *value,
                           mr_ease ease, const float *bezier);
/* Removes the keys within MR_CLIP_MIN_KEY_INTERVAL * 10 of time on the
 * channel (-1: all three joint channels); returns how many. */
int mr_clip_edit_remove(mr_clip_edit *edit, int joint, int channel, float time);

/* The authored curve of one channel at time (clamped to the keys): what
 * the baked clip reproduces within the tolerance (MR_EDIT_WEIGHT: out[0]).
 * Returns 0 (out untouched) for a channel without keys. */
int mr_clip_edit_eval(const mr_clip_edit *edit, int joint, int channel, float time, float *out);

/* New edits made from one: the part [t0, t1] moved to start at 0 (keys at
 * both ends, cut eased segments resampled as linear keys within tolerance);
 * played backwards (eases mirrored); stretched to a new duration; b after
 * a (b's keys shifted by a's duration; a key of b at its time 0 replaces
 * a's key at a's end). MR_ERR_INVALID_ARGUMENT for t0 >= t1 or outside the
 * duration, a duration not finite and > 0, joint (or weight) counts that differ. */
mr_status mr_clip_edit_trim(const mr_clip_edit *edit, float t0, float t1, float tolerance, float size,
                            mr_clip_edit **out);
mr_status mr_clip_edit_reverse(const mr_clip_edit *edit, mr_clip_edit **out);
mr_status mr_clip_edit_retime(const mr_clip_edit *edit, float duration, mr_clip_edit **out);
mr_status mr_clip_edit_append(const mr_clip_edit *a, const mr_clip_edit *b, mr_clip_edit **out);

/* Rewrites every track of clip (joint counts must match; a clip made with
 * mr_clip_create, never a cached model's clip) from the edit as described above, sets duration and rate and
 * calls mr_clip_finish; the clip's morph weight tracks are replaced by the
 * edit's (none without weight keys). tolerance: model units; size: the model size
 * (lever arm of rotations and scales). On MR_ERR_NO_MEMORY the clip keeps
 * its old tracks where the new one could not be made. */
mr_status mr_clip_edit_bake(const mr_clip_edit *edit, float tolerance, float size, mr_clip *clip);

#endif
