/* mask.h — per-joint weights that restrict a layer to part of a skeleton.
 *
 * A mask holds one weight in [0, 1] per joint: 1 lets a layer fully replace
 * (or add to) that joint, 0 leaves the joint exactly as the layers below it
 * (bit for bit), values between blend. Masks are built once (at load or when
 * a script asks) with the helpers below and then only read per frame.
 *
 *   mr_mask m;
 *   mr_mask_init(&m, sk->joint_count, 0.0f);              // nothing
 *   mr_mask_set_subtree(&m, sk, mr_skeleton_find(sk, "spine_01"), 1.0f);  // upper body
 *   mr_mask_ramp(&m, sk, mr_skeleton_find(sk, "spine_01"), 3, 0.25f, 1.0f); // ease in
 *   ...
 *   mr_mask_deinit(&m);
 *
 * Ownership: the caller owns the mr_mask struct; mr_mask_init allocates the
 * weights and mr_mask_deinit frees them. Every helper works in place on
 * caller-owned masks, allocates nothing, and returns MR_OK or
 * MR_ERR_JOINT_COUNT (masks or skeleton of different sizes) /
 * MR_ERR_INVALID_ARGUMENT (joint out of range, weight not in [0, 1] or NaN).
 * A failing helper leaves its output untouched.
 */
#ifndef MR_ANIM_MASK_H
#define MR_ANIM_MASK_H

#include "anim/skeleton.h"

typedef struct mr_mask {
    int joint_count;
    float *w;            /* joint_count weights in [0, 1] */
} mr_mask;

/* Allocates joint_count weights, all set to fill (in [0, 1]). */
mr_status mr_mask_init(mr_mask *mask, int joint_count, float fill);
void mr_mask_deinit(mr_mask *mask);
/* Copies src's weights into dst (same joint count). */
mr_status mr_mask_copy(mr_mask *dst, const mr_mask *src);

/* Every weight becomes value. */
mr_status mr_mask_fill(mr_mask *mask, float value);
/* joint and all its descendants get weight; other joints are unchanged.
 * Start from mr_mask_init(.., 0) for "this subtree only". */
mr_status mr_mask_set_subtree(mr_mask *mask, const mr_skeleton *sk, int joint, float weight);
/* Falloff along a chain: joints of joint's subtree at depth d below joint
 * (joint itself is depth 0) get from + (to - from) * min(d, count-1)/(count-1),
 * so the weight ramps over count joints and holds `to` deeper down
 * (count 1: the whole subtree gets `to`). Other joints are unchanged. */
mr_status mr_mask_ramp(mr_mask *mask, const mr_skeleton *sk, int joint, int count, float from,
                       float to);

/* dst = max(a, b) (union), dst = min(a, b) (intersection), per joint.
 * dst may be a or b. */
mr_status mr_mask_union(mr_mask *dst, const mr_mask *a, const mr_mask *b);
mr_status mr_mask_intersect(mr_mask *dst, const mr_mask *a, const mr_mask *b);
/* Every weight multiplied by factor (>= 0), then clamped to [0, 1]. */
mr_status mr_mask_scale(mr_mask *mask, float factor);
/* Every weight w becomes 1 - w (the rest of the body). */
mr_status mr_mask_invert(mr_mask *mask);

/* Checks the mask against a skeleton: same joint count, weights finite and in
 * [0, 1]. err names the first bad joint. */
mr_status mr_mask_validate(const mr_mask *mask, const mr_skeleton *sk, mr_error *err);

#endif
