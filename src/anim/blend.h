/* blend.h — combining local poses: weighted blends, masked override layers
 * and additive deltas, plus building additive (delta) clips.
 *
 * All jobs work on local poses (mr_pose) of one skeleton, write into
 * caller-owned outputs, allocate nothing, and validate first: on a bad
 * argument they return an error status (and a one-line message in err when
 * given) without touching the output.
 *
 * mr_blend_run — N weighted poses -> one (the ozz-animation BlendingJob shape):
 *   per joint, w_i = layer weight * mask weight (mask may be NULL = 1);
 *   translation and scale are the weighted means, rotations are accumulated
 *   with their sign aligned to the running sum (so q and -q agree) and
 *   normalised (nlerp accumulation). When a joint's total weight is below the
 *   threshold, the skeleton's rest pose fills the gap with weight
 *   (threshold - total): the result eases to the rest pose instead of
 *   snapping, and with no weight at all it is the rest pose.
 *
 *   Speed: without masks and above the threshold, the job takes 8 joints
 *   at a time (AVX, when the CPU has it) or 4 (SSE) in one pass over memory,
 *   every layer accumulated in registers (blend_groups.h). The streaming
 *   form runs over the pose arrays 4 floats at a time and the rotations 4
 *   joints at a time. Every path keeps the scalar order of operations, so
 *   results are the per-joint rule's, bit for bit.
 *
 * mr_blend_override — override with a mask: per joint a = weight * mask,
 *   pose = lerp(pose, layer, a) (nlerp for rotations). a == 0 leaves the
 *   joint bit-for-bit unchanged; a == 1 copies the layer's values exactly.
 *
 * mr_blend_additive — additive: pose = pose (+) delta scaled by a = weight * mask:
 *   translation += a * delta.t, rotation = rotation * nlerp(identity,
 *   delta.r, a), scale *= 1 + a * (delta.s - 1). a == 0 leaves the joint
 *   bit-for-bit unchanged (weight 0 is the identity).
 *
 * mr_blend_make_additive_clip — a delta clip from a clip and a reference pose:
 *   per key, translation t - ref.t, rotation ref.r^-1 * q, scale s / ref.s,
 *   so that sampling the delta at time t and adding it to ref with weight 1
 *   gives the original clip at t.
 */
#ifndef MR_ANIM_BLEND_H
#define MR_ANIM_BLEND_H

#include "anim/clip_runtime.h"
#include "anim/mask.h"

#define MR_BLEND_THRESHOLD 0.1f   /* default rest-pose fallback threshold */

typedef struct mr_blend_layer {
    const mr_pose *pose;     /* local pose with the skeleton's joint count */
    float weight;            /* finite, >= 0 (weights need not sum to 1) */
    const mr_mask *mask;     /* per-joint factors, or NULL for all 1 */
} mr_blend_layer;

typedef struct mr_blend_job {
    const mr_skeleton *skeleton;   /* gives the joint count and the rest pose */
    const mr_blend_layer *layers;  /* layer_count entries (NULL when 0) */
    int layer_count;               /* 0 gives the rest pose */
    float threshold;               /* rest-pose fallback; 0 means MR_BLEND_THRESHOLD */
    mr_pose *out;                  /* caller-owned; may be one of the input poses */
} mr_blend_job;

/* Checks the job: skeleton and out present with equal joint counts, every
 * layer's pose present with that joint count, weights finite and >= 0, masks
 * of the right size, threshold finite and >= 0. */
mr_status mr_blend_validate(const mr_blend_job *job, mr_error *err);
/* Validates, then blends into job->out. */
mr_status mr_blend_run(const mr_blend_job *job, mr_error *err);

/* Streaming form of mr_blend_run, for callers that produce the inputs one
 * at a time (blend spaces, the mixer): no array of input poses is needed.
 *   mr_blend_begin(acc); mr_blend_add(acc, p_i, w_i) ...;
 *   mr_blend_end(acc, sk, sum of w_i, threshold);
 * acc is a caller-owned pose used as the accumulator, then holds the result;
 * between begin and end its contents are partial sums, not a pose. One
 * weight per input (no masks). Weights must be finite and >= 0; a NaN or
 * negative weight is refused (MR_ERR_INVALID_ARGUMENT) and adds nothing. */
mr_status mr_blend_begin(mr_pose *acc);
mr_status mr_blend_add(mr_pose *acc, const mr_pose *in, float weight);
mr_status mr_blend_end(mr_pose *acc, const mr_skeleton *sk, float total, float threshold);

/* Override layer (see above). weight in [0, 1]; mask NULL or of pose's size;
 * pose and layer of equal joint counts. */
mr_status mr_blend_override(mr_pose *pose, const mr_pose *layer, float weight, const mr_mask *mask);

/* Additive layer (see above). weight in [0, 1]; delta is a pose sampled from
 * an additive clip. */
mr_status mr_blend_additive(mr_pose *pose, const mr_pose *delta, float weight, const mr_mask *mask);

/* Builds a delta clip of clip against a reference pose: ref when not NULL,
 * otherwise clip itself sampled at ref_time (clamped to the clip). The new
 * clip is named "<name>.additive", has the same duration, rate, key times,
 * interpolation and markers, and a track on every channel (channels the
 * source leaves at rest get one key, rest relative to the reference), so
 * sampling it never falls back to the rest pose. On success *out owns the new
 * clip (free with mr_clip_destroy); on failure *out is NULL and err says why
 * (joint counts, NaN ref_time, a zero reference scale, no memory). */
mr_status mr_blend_make_additive_clip(const mr_clip *clip, const mr_skeleton *sk, const mr_pose *ref,
                                float ref_time, mr_clip **out, mr_error *err);

#endif
