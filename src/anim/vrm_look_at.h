/* vrm_look_at.h — a VRM avatar's look-at (VRMC_vrm.lookAt, or VRM 0.x's
 * firstPerson settings) on a pose: the yaw and pitch of a target seen from
 * the look-at space, turned into eye rotations (type bone) or into the
 * weights of the lookLeft/Right/Up/Down expressions (type expression), as
 * the VRM 1.0 specification's lookAt.md defines them.
 *
 * Look-at space: its origin is look_at.offset in the head joint's frame;
 * its rotation is the head's model-space rotation times the inverse of the
 * head's rest model-space rotation, so at rest it is aligned with model
 * space whatever the head's rest rotation. For a target at local (x, y, z)
 * there (x, z mirrored for an avatar facing -Z, VRM 0.x):
 *   yaw   = atan2(x, z)                 degrees, > 0: toward the avatar's left
 *   pitch = atan2(-y, sqrt(x^2 + z^2))  degrees, > 0: down
 * Range maps: map(a) = output_scale * min(|a| / input_max, 1).
 * Bone: leftEye's yaw is outer.map(yaw) for yaw > 0 and -inner.map(-yaw)
 * otherwise (rightEye: inner for yaw > 0, outer otherwise); pitch is
 * down.map(pitch) for pitch > 0 and -up.map(-pitch) otherwise; the eye's
 * rotation E = Ry(yaw) * Rx(pitch) (the YXZ Euler order) is taken in the
 * eye's rest frame aligned with model space: local = P^-1 * E * P * rest,
 * P the eye's parent's rest model-space rotation (three-vrm's form; for the
 * identity rests of most avatars this is the specification's
 * localRotation = E). An avatar facing -Z turns E by 180 degrees about Y.
 * Expression: lookLeft = outer.map(yaw) for yaw > 0, lookRight =
 * outer.map(-yaw) for yaw < 0, lookDown = down.map(pitch) for pitch > 0,
 * lookUp = up.map(-pitch) for pitch < 0, the other of each pair 0.
 *
 * Nothing allocates; the target is in model space (a caller with a
 * placed character brings it there first).
 */
#ifndef MR_ANIM_VRM_LOOK_AT_H
#define MR_ANIM_VRM_LOOK_AT_H

#include "anim/vrm.h"

/* The range map of the specification (input_max floored at 0.01). */
double mr_vrm_look_at_map(const mr_vrm_range_map *m, double degrees);

/* Yaw and pitch (degrees) of target (model space) for pose. Fails
 * (MR_ERR_INVALID_ARGUMENT) when v has no look-at settings or no head
 * bone, or the pose does not match sk; a target at the origin gives 0, 0. */
mr_status mr_vrm_look_at_angles(const mr_skeleton *sk, const mr_vrm *v, const mr_pose *pose, const float target[3],
                                double *yaw, double *pitch);

/* Bone type: sets the leftEye and rightEye joints' local rotations (those
 * the avatar has) for yaw and pitch. */
void mr_vrm_look_at_eyes(const mr_skeleton *sk, const mr_vrm *v, mr_pose *pose, double yaw, double pitch);

/* Expression type: the weights of lookLeft, lookRight, lookUp, lookDown
 * (in that order) for yaw and pitch (not clamped: output_scale may exceed 1). */
void mr_vrm_look_at_weights(const mr_vrm *v, double yaw, double pitch, double w[4]);

#endif
