/* record.h — recording poses frame by frame and reducing them to a clip
 * whose keys stay within a tolerance (what marrow.record does, issue 28).
 *
 * A recording holds, per captured frame, its time and every joint's local
 * translation, rotation and scale. A capture may carry a root transform
 * (model space to model space: where the character was drawn, brought into
 * the model's axes); it is multiplied onto every root joint's local
 * transform, so a character that travelled travels in the clip (root
 * motion). Rotations are stored hemisphere-continuous (each the sign of the
 * previous frame's), so linear keys between them turn the short way.
 *
 * Reduction (mr_record_reduce) makes an mr_clip_edit with LINEAR keys,
 * times shifted so the first capture is at 0. Each channel is simplified
 * greedily: a key is dropped when the straight (slerped) line between the
 * kept neighbours passes within a budget of every dropped frame (rotations:
 * angle times the model size; scales: change times the size). The error is
 * then MEASURED, not assumed: the reduced and the unreduced clip are both
 * sampled at every captured time, every midpoint between two captures and
 * 121 evenly spaced times, and the largest distance between where the two
 * put the same virtual point (each joint's origin and points
 * MR_CLIP_POINT_DISTANCE times the model size along its axes: the
 * runtime's measure, anim/points.h) is the error, so a turning hand or a
 * nodding head that lost keys shows in it. When it exceeds the
 * tolerance the budget halves and the reduction runs again (at most 12
 * times, then every key is kept: error 0).
 *
 * Morph weights (issue 31). A recording given its model's weight layout
 * (mr_record_set_weights) also holds every frame's morph weights
 * (morph.h's layout); a capture starts with the previous frame's weights
 * (the first with the rest weights) and mr_record_weights sets them. The
 * reduced edit has the same layout and a LINEAR weight channel per weight,
 * reduced like a translation channel (a weight that stays at its rest
 * value in every frame gets no keys) with the unitless weight_tolerance
 * (budget halving alongside the joints' budget); its error is measured at
 * the same times as the joints' (largest absolute weight difference), and
 * a round is accepted only when both errors are within their tolerances.
 *
 * Ownership: the recording owns its arrays (mr_record_init/_deinit);
 * captures allocate as the recording grows (amortised doubling).
 */
#ifndef MR_ANIM_RECORD_H
#define MR_ANIM_RECORD_H

#include "anim/clip_edit.h"
#include "anim/skeleton.h"

#define MR_RECORD_MAX_FRAMES (1 << 22)
/* The most bytes of frames one recording holds (memory outside the Lua heap,
 * so outside a script's memory cap): 256 MiB, 30 minutes of a 60-joint
 * model at 60 fps. */
#define MR_RECORD_MAX_BYTES ((size_t)256 << 20)
#define MR_RECORD_CHECKS 121

typedef struct mr_record {
    int joint_count;
    int count, cap;
    float *times;        /* count seconds, ascending (owned) */
    float *trs;          /* count * joint_count * 10: t xyz, r xyzw, s xyz (owned) */
    int weight_count;    /* morph weights per frame; 0: none */
    float *weights;      /* cap * weight_count (owned), or NULL */
    float weight_tolerance; /* unitless, default MR_RECORD_WEIGHT_TOLERANCE */
    int mesh_count;      /* the weight layout (mr_clip_edit_set_weights) */
    int *mesh_targets;   /* mesh_count (owned) */
    float *weight_rest;  /* weight_count (owned) */
} mr_record;

#define MR_RECORD_WEIGHT_TOLERANCE 1e-3f

typedef struct mr_record_result {
    float error;         /* measured, model units */
    int keys_kept, keys_total;
    int checks;          /* times measured */
    float weight_error;  /* measured, unitless (0 without weights) */
} mr_record_result;

mr_status mr_record_init(mr_record *rec, int joint_count);
void mr_record_deinit(mr_record *rec);

/* Gives an empty recording its model's morph weight layout (as
 * mr_clip_edit_set_weights: mesh_count meshes, targets per mesh, rest the
 * default weights, copied). MR_ERR_INVALID_ARGUMENT after captures or for a
 * bad layout; MR_ERR_NO_MEMORY. */
mr_status mr_record_set_weights(mr_record *rec, int mesh_count, const int *targets, const float *rest);
/* Sets the last capture's morph weights (weight_count floats).
 * MR_ERR_INVALID_ARGUMENT without a capture or with a non-finite weight. */
mr_status mr_record_weights(mr_record *rec, const float *weights);

/* Appends a frame at time (a time equal to the last capture's replaces that
 * frame). root: NULL or the transform put before every root joint.
 * MR_ERR_INVALID_ARGUMENT for a non-finite time or one before the last
 * capture, a pose of another joint count; MR_ERR_LIMIT past
 * MR_RECORD_MAX_FRAMES or MR_RECORD_MAX_BYTES. */
mr_status mr_record_capture(mr_record *rec, const mr_skeleton *sk, float time, const mr_pose *pose,
                            const mat4 root);

/* The reduced edit in *out (caller destroys), rate its frames per second;
 * tolerance in model units (0: keep every key), size the model size.
 * MR_ERR_INVALID_ARGUMENT with fewer than 2 captures (err says so). */
mr_status mr_record_reduce(const mr_record *rec, const mr_skeleton *sk, float tolerance, float size, float rate,
                           mr_clip_edit **out, mr_record_result *result, mr_error *err);

/* The distance between two clips of sk, sampled from their keys
 * (mr_clip_sample_keys, not their runtime packs), over the check times described
 * above (capture times taken from times[0..n), may be NULL), in *error:
 * the largest over those times of mr_points_apart (anim/points.h) at
 * distance model units (MR_CLIP_POINT_DISTANCE times the model size, as
 * the runtime measures), so leaf and twist rotations count; *checks: how
 * many times. */
mr_status mr_record_measure(const mr_clip *a, const mr_clip *b, const mr_skeleton *sk, const float *times, int n,
                            float duration, float distance, float *error, int *checks);

#endif
