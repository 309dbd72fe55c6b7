/* clip_pack.h — the packed clip: what mr_clip_sample reads for clips of
 * LINEAR and STEP keys, the last step of the runtime clip's builder
 * (clip_runtime.h; internal to src/anim, and stored as it is by the model
 * cache, formats/cache.h).
 *
 * Two things make it small, as in ozz-animation's optimiser and ACL:
 *   - per-track key reduction: each track keeps only the keys that linear
 *     interpolation (nlerp for rotations, exactly as the sampler computes
 *     it from the stored keys) needs to stay within the joint's error
 *     budget of the EXACT curve of the source keys (lerp, slerp), judged at
 *     every candidate key and at the quarter points between candidate keys
 *     (the candidates: the source keys, plus slerped ones where nlerp
 *     between two source keys would leave the budget, clip_runtime.h);
 *   - quantised keys: 4 to 24 bits per component over the track's own
 *     range (lo + q * step). A rotation stores three components and
 *     rebuilds the fourth, the one that stays farthest from zero over the
 *     whole track (its sign made positive at every key); a track whose
 *     every component passes near zero stores all four. Each track takes
 *     the share of its budget the quantisation may use at the keys (a
 *     quarter, half or three quarters), with the fewest bits that keep
 *     its keys within it, that gives it the fewest bytes after reduction;
 *     float keys when no width keeps its keys in budget. A track that
 *     never leaves its budget around its first key keeps that one float
 *     key;
 *   - segments, as ACL's: a track may instead cut its kept keys into
 *     segments of PACK_SEGMENT_KEYS (16), each quantised over its own
 *     range (a few 255ths of the track's) at its own width per component
 *     (0 to 24 bits: the widest component's, the fewest that keep its
 *     keys and every checkpoint from the key before it within the whole
 *     budget; the others a bit fewer for each bit their extent's size
 *     falls short of the largest, then a bit fewer for each of the first
 *     three where the checks still pass: one byte a segment gives them
 *     all, segment_widths_of; its keys reduced first within three
 *     quarters of the budget). Mocap, whose 120 keys a second barely reduce, needs about
 *     4 bits fewer per component so. A rotation that stores four
 *     components tries segments that each rebuild their own component
 *     (PACK_EACH: the one farthest from zero over the segment's keys).
 *
 * Budgets, per joint j, at tolerance T (f = T / MR_CLIP_FIDELITY), are the
 * ones the runtime clip already carries (clip_runtime.h):
 *   rotation     angle <= f * max_angle[j] * (1 + 1/2 for each of the
 *                joint's translation and scale that never changes in the
 *                clip: their share of the joint's budget, unused)
 *   translation  |d|   <= f * max_move[j]   (0 without max_move: exact)
 *   scale        max |d_k| <= f * max_angle[j] / 2
 * mr_model_add_clip sets them so that along any chain the errors add up to
 * at most T times the model size (bounding-box diagonal) at any time: the
 * proof is in clip_runtime.h (slerp fidelity) and model.c. The runtime
 * builder then repacks with a factor on them (mr_clip_pack_scale) where
 * the pack's measured error leaves room (clip_measure.h).
 *
 * Layout: one block, position independent (offsets from its start), so
 * the cache writes and maps it as bytes. The header (mr_clip_pack), the
 * time points (floats: the sorted distinct times of the keys kept by the
 * tracks that give their key times as points), a bit per joint and
 * channel (clear: the channel keeps the skeleton's rest value), then the
 * tracks of the set bits in channel order, each 4-byte aligned:
 *   uint16 count; a byte of code (PACK_* below, 0x80 when four components
 *   are stored); a byte of bits (32: float keys, 0: segmented);
 *   count > 1: a point index per key (1 or 2 bytes: point_bytes), ascending,
 *   padded to 4 bytes; or, for a dense track (PACK_DENSE: its keys sit on
 *   consecutive points), the first key's point as a uint16 and 2 bytes pad;
 *   or, for a bitmap track (PACK_BITMAP: cheaper than indices where a
 *   track keeps most of the points it spans), the first key's point and
 *   a count of 32-bit words (uint16 each), then the words: bit b set when
 *   point first + b holds a key;
 *   or, for a uniform track (PACK_UNIFORM: every source key kept, evenly
 *   spaced, as mocap and baked exports are), float t0 and double dt, key
 *   k's time being (float)(t0 + k * dt) computed in double, which the
 *   builder checks gives every source key's time exactly (its keys then
 *   need no time points, and are found without a search);
 *   quantised (bits 1-24): float lo[comps], the steps (the high halves of
 *   floats, 2 bytes each), then the keys' bit stream, padded to 4 bytes;
 *   segmented (bits 0): float lo[comps], float range[comps] (over the
 *   stored values: with PACK_EACH, slot s is a segment's s-th component
 *   left after the rebuilt one), uint32 bytes of the stream, a uint32
 *   skip per PACK_SKIP_SEGMENTS segments after the first ones (the bit
 *   where the next segment starts), per segment a byte of widths (the
 *   widest width in the low 5 bits, a bit each for the first three
 *   components taking one fewer: segment_widths_of), with PACK_EACH per
 *   segment a byte naming its rebuilt component (0-3), then per segment
 *   and component a byte of min and one of extent (the segment's values
 *   run from lo + min * range / 255 over (extent + 1) * range / 255, in
 *   2^width - 1 steps; a key's components follow each other at their
 *   segment's widths: segment_scale in clip_pack_read.h), padded to 4
 *   bytes, then the stream (each segment's keys at its widths), padded;
 *   float keys: float v[count * comps].
 * Four bytes of slack end the block (the sampler reads 32 bits at a time).
 *
 * Sampling finds the key of each animated track by binary search over its
 * key times (no allocation), or through a playback cursor. */
#ifndef MR_ANIM_CLIP_PACK_H
#define MR_ANIM_CLIP_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "anim/clip_runtime.h"

#define MR_CLIP_PACK_MAGIC 0x4b41504du   /* "MPAK" */

typedef struct mr_clip_pack {
    uint32_t bytes;        /* the whole block, this header included */
    uint32_t magic;        /* MR_CLIP_PACK_MAGIC */
    int32_t joint_count;
    int32_t point_count;   /* time points, >= 1 */
    int32_t point_bytes;   /* bytes of a key's point index: 1 (<= 256 points) or 2 */
    float tolerance;       /* the fraction of the model size it was built for */
    uint32_t times;        /* offset of float[point_count], ascending */
    uint32_t present;      /* offset of a bit per joint and channel (joint * 3 + channel): */
                           /* set when the channel has a track, clear: the skeleton's rest */
    uint32_t tracks;       /* offset of the first track; the others follow in channel order */
    int32_t keys;          /* keys kept, all tracks */
    int32_t source_keys;   /* keys of the tracks it was built from */
} mr_clip_pack;

enum {
    PACK_REBUILT = 0x7,    /* rotations: the component rebuilt (0..3), 4: none, */
                           /* 5 (PACK_EACH): segmented, the one each segment names */
    PACK_BITMAP = 0x8,     /* a bit per point from the first key's to the last's: no indices */
    PACK_NONE = 4,
    PACK_EACH = 5,
    PACK_STEP = 0x10,      /* hold each key until the next */
    PACK_DENSE = 0x20,     /* a key at every point from the first on: no point indices */
    PACK_UNIFORM = 0x40,   /* evenly spaced keys: their first time and spacing, no points */
};

/* A factor on each joint's budgets that changes over time, piecewise
 * constant: window w covers [t0 + w dt, t0 + (w + 1) dt) (the first and
 * last windows reach on to either end of time), g[joint * windows + w]
 * its factor. The measured budget (clip_measure.h) loosens the budgets
 * where the pack's measured error leaves room, and tightens them where it
 * does not. */
typedef struct mr_clip_pack_scale {
    int windows;
    float t0;
    double dt;
    const float *g;      /* joint_count * windows factors > 0 */
} mr_clip_pack_scale;

/* The factor of joint at time t (1 without a scale). */
float mr_clip_pack_scale_at(const mr_clip_pack_scale *scale, int joint, float t);

/* Builds the packed form of clip's played keys (mr_clip_track) at the
 * runtime's budgets, each times scale's factor at every checkpoint where
 * it is judged (scale NULL: the budgets as they are); NULL when the clip
 * does not qualify (a CUBIC track, more than 65535 time points or keys in
 * a track, a key value beyond 1e18, a block over 2 GiB) or without
 * memory. Reads clip and rt only. Free with free(). Whether a constant
 * track is left out (at rest) is judged at the unscaled budget. */
mr_clip_pack *mr_clip_pack_build(const mr_clip *clip, const mr_clip_runtime *rt, const mr_clip_pack_scale *scale);

/* mr_clip_pack_build in steps, for packing the same clip again at other
 * scales: the builder keeps every channel's packing, and a run packs again
 * only the joints marked in `changed` (NULL: every joint; the first run
 * must be NULL), then lays out a new pack (free it with free()). A long
 * track (256 candidate keys or more: mocap) whose first packing kept
 * segments is packed again with segments only (the other trials cost as
 * much, and lose again). create
 * gives NULL where mr_clip_pack_build would (a clip it does not take, no
 * memory); run NULL when cancelled or without memory. */
typedef struct mr_clip_pack_builder mr_clip_pack_builder;
mr_clip_pack_builder *mr_clip_pack_builder_create(const mr_clip *clip, const mr_clip_runtime *rt);
mr_clip_pack *mr_clip_pack_builder_run(mr_clip_pack_builder *b, const mr_clip_pack_scale *scale,
                                       const unsigned char *changed);
void mr_clip_pack_builder_destroy(mr_clip_pack_builder *b);   /* takes NULL */

/* Samples the pack at t (already wrapped) through cursor cur
 * (clip_cursor.c), binding it to pack and sk first when it was bound to
 * others (allocates then): serial (mr_clip_runtime.serial) tells packs
 * apart, whatever their addresses. Returns 0 without memory: cur is left
 * unbound and pose untouched. */
int mr_clip_cursor_sample(mr_clip_cursor *cur, const mr_clip_pack *pack, unsigned long long serial,
                          const mr_skeleton *sk, float t, mr_pose *pose);

/* mr_clip_cursor_sample into pose (NULL: none) that also puts the model
 * matrices of the pose in model (mr_pose_to_model's bits), from the
 * cursor's own rows of local transforms: no round trip through a pose. */
int mr_clip_cursor_sample_model(mr_clip_cursor *cur, const mr_clip_pack *pack, unsigned long long serial,
                                const mr_skeleton *sk, float t, mr_pose *pose, mat4 *model);

/* A pose of `joints` joints that cur owns (made or remade on demand; its
 * values are whatever was last written); NULL without memory. */
mr_pose *mr_clip_cursor_scratch(mr_clip_cursor *cur, int joints);

/* Keys the pack keeps for joint's channel (0 translation, 1 rotation,
 * 2 scale): 0 when the channel keeps the rest pose, 1 for a constant. */
int mr_clip_pack_track_keys(const mr_clip_pack *pack, int joint, int channel);

/* Checks a block read from outside (the cache): every offset, count and
 * index inside `bytes`, point indices ascending, components and codes
 * valid, every value a key decodes to within 1e18. 1 when it may be
 * sampled. */
int mr_clip_pack_valid(const void *block, size_t bytes, int joint_count);

/* Samples the pack at time t (already wrapped) into pose, searching each
 * track's keys: joints whose channels keep rest take sk's rest values.
 * Playback that moves on goes faster through a cursor (clip_cursor.c). */
void mr_clip_pack_sample(const mr_clip_pack *pack, const mr_skeleton *sk, float t, mr_pose *pose);

#endif
