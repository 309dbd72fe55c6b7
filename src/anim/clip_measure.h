/* clip_measure.h — the measured budget: a step of the runtime clip's
 * builder (clip_runtime.h; internal to src/anim) that spends what the
 * proven budget leaves unused.
 *
 * The packed clip (clip_pack.h) keeps every track within a share of the
 * tolerance that a per-chain bound gives it (model.c: the errors of every
 * joint along a chain, each at its farthest reach, added up). Errors of
 * the joints of a chain seldom peak at the same time or in the same
 * direction, so on mocap the pack's true error was 3-5x under the
 * tolerance (CMU 01_03: 3.6e-5 of the size at 1e-4). This step measures
 * the true error and repacks with each joint's budgets times a factor that
 * changes over time (mr_clip_pack_scale, windows of 8 key intervals): a
 * joint's factor in a window follows the largest measured error of the
 * joint and the joints below it (which its errors move) in that window and
 * the two beside it, aimed at 0.9 of the tolerance, at most 4x per round.
 * The first repack spreads the room; the next three take it back where
 * the measured error went over, the fourth returns those windows to the
 * proven budget, two more halve every loosening. It stops at the first
 * repack within the tolerance and keeps the smallest pack whose measured error stays within the
 * tolerance, and the pack built at the proven budgets when none does
 * (or when that one is already over: nothing to spend).
 *
 * The measure, at every checkpoint: each distinct key time of the source
 * tracks and the quarter points between them (what `marrow info` measures:
 * 4 times the keys), both poses (the pack's and the source keys' exact
 * one, LINEAR rotations slerped) through local-to-model, and for every
 * joint j
 *     |o - o'| + ||A - A'|| * reach_j  <=  tolerance * size
 * where o, A are the origin and the linear part (rotation and scale) of j's
 * model matrix, ||.|| the spectral norm and reach_j the farthest point j
 * itself carries (rt->point_reach, model.c: its skinned vertices in the
 * bind and rest poses, plus the virtual points' distance; a child's origin
 * is measured at the child). Any point within reach_j of j that moves with
 * j (a vertex skinned to it, the virtual points ACL and ozz measure along
 * its axes) is then within the tolerance: the left side bounds how far j's
 * transform moves it, and a vertex skinned to several joints moves by a
 * weighted mean of theirs. Without point_reach (budgets a caller set
 * through mr_clip_set_max_angle/_max_move alone), reach_j is the budget's
 * own, which also covers every point below j: read back with the size
 * from the budgets mr_model_add_clip gave
 * (max_move[j] = max_angle[j] * reach_j / 2; max_angle[j] = B / S_j, B half
 * the tolerance's model units at MR_CLIP_FIDELITY, S_j the heaviest chain
 * of reaches through j), so clips without a model's budgets (no max_move,
 * no rest pose or parents) keep the proven pack. Measured on CMU 01_03 at
 * 1e-4: with the budget's reach, 15.70:1 at an error of 9.1e-5 of the size
 * (`marrow info`); with each joint's own points, 16.14:1 at 9.8e-5. */
#ifndef MR_ANIM_CLIP_MEASURE_H
#define MR_ANIM_CLIP_MEASURE_H

#include "anim/clip_pack.h"

/* Builds the pack of clip's played keys (in rt) at the runtime's proven
 * budgets (mr_clip_pack_build with no scale) and returns the smallest pack
 * whose measured error is within rt's tolerance: a repacked one, or the
 * proven one (also without memory for the measure, or when the clip has
 * no measure); NULL where mr_clip_pack_build gives NULL, or when
 * cancelled. A repack packs again only the joints whose factors changed.
 * Reads clip and rt only. */
mr_clip_pack *mr_clip_measure_build(const mr_clip *clip, const mr_clip_runtime *rt);

/* The measure above for pack: the largest left side over right side of
 * any joint at any checkpoint (1 or less: within the tolerance) in
 * *worst; MR_ERR_INVALID_ARGUMENT when the clip has no measure (no
 * max_move, max_angle, rest pose or parents), MR_ERR_NO_MEMORY. */
mr_status mr_clip_measure_error(const mr_clip *clip, const mr_clip_runtime *rt, const mr_clip_pack *pack,
                                double *worst);

#endif
