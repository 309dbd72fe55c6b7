/* vrm_constraints.h — VRMC_node_constraint evaluated on a pose: roll, aim
 * and rotation constraints (anim/vrm.h holds them, formats/gltf_vrm.c reads
 * them).
 *
 * Each constraint sets its destination joint's local rotation to
 *   slerp(dstRest, target, weight)
 * where dstRest is the destination's rest rotation and target is, with
 * srcRest and src the source's rest and current local rotations:
 *   rotation: dstRest * (srcRest^-1 * src)
 *   roll:     d = dstRest^-1 * src * srcRest^-1 * dstRest (the source's
 *             change in the destination's frame), target = dstRest * f * d
 *             with f the shortest turn taking d(axis) back onto axis: only
 *             the twist of d about the roll axis remains
 *   aim:      P the destination's parent's model-space rotation, a0 =
 *             P * dstRest * axis, a1 = the unit direction from the
 *             destination's model-space position to the source's, target =
 *             P^-1 * shortest_turn(a0, a1) * P * dstRest (dstRest when the
 *             two positions coincide)
 * as VRMC_node_constraint-1.0 and three-vrm define them. The constraint
 * owns its destination's rotation: what a clip or a script put there is
 * replaced (translation and scale are kept).
 *
 * Order: a constraint depends on every constraint on its source or the
 * source's ancestors (an aim constraint also on those on its destination's
 * parent and that parent's ancestors), three-vrm's rule; the constraints run
 * so that each comes after all it depends on. A dependency cycle is refused
 * when the order is made (at load).
 *
 * Model space stands for the world: the aim direction does not change under
 * a character placement of rotation, translation and uniform scale. The
 * parent's model-space rotation P is the product of the local rotations
 * (three-vrm decomposes the world matrix: the same unless the chain has
 * non-uniform scale).
 */
#ifndef MR_ANIM_VRM_CONSTRAINTS_H
#define MR_ANIM_VRM_CONSTRAINTS_H

#include "anim/vrm.h"

#define MR_VRM_MAX_CONSTRAINTS 65536

/* Checks n constraints against sk (joints and sources in range, a source
 * other than its destination, one constraint per destination, a known type
 * and axis, a finite weight in 0..1) and writes into order (n entries) an
 * order that runs every constraint after those it depends on. On failure
 * *bad (may be NULL) is the constraint at fault (for a cycle: the first one
 * met on it) and err says what is wrong, naming joints
 * ("constraints: circular dependency: A -> B -> A"). Allocates scratch
 * memory; MR_ERR_NO_MEMORY when that fails. */
mr_status mr_vrm_constraints_order(const mr_skeleton *sk, const mr_vrm_constraint *c, int n, int *order, int *bad,
                                   mr_error *err);

/* Evaluates v's constraints (v->constraint_order) on pose, whose joints
 * are sk's. Allocates nothing. Fails only when the pose does not match sk
 * or v holds no order. */
mr_status mr_vrm_constraints_apply(const mr_skeleton *sk, const mr_vrm *v, mr_pose *pose);

/* One constraint's target rotation before the weight (for tests and
 * bindings): out = the unweighted target above; pose as it stands. */
void mr_vrm_constraint_target(const mr_skeleton *sk, const mr_vrm_constraint *c, const mr_pose *pose, versor out);

#endif
