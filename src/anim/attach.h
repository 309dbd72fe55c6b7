/* attach.h — where to draw a prop held by a joint (a sword in a hand, a hat
 * on a head), and conversions between world and model space.
 *
 *   model-space transform  M = joint_model * offset
 *   world transform        W = display * M
 *
 * joint_model is the joint's model-space matrix from the evaluated pose;
 * offset places the prop in the joint's frame (model units: inches for MD5,
 * metres for COLLADA); display is the model's frame-to-world matrix
 * (mr_model_display_matrix), times the character's placement when it has
 * one. The renderer and the Lua layer draw props with W. Points the world
 * knows (a door handle to reach for) become IK targets with
 * mr_attach_world_to_model. Nothing here allocates.
 */
#ifndef MR_ANIM_ATTACH_H
#define MR_ANIM_ATTACH_H

#include "anim/pose.h"

/* Offset matrix T * R * S; r and s may be NULL (identity, ones). Fails on
 * non-finite values or a zero rotation. */
mr_status mr_attach_offset(const vec3 t, const versor r, const vec3 s, mat4 out);

/* Model-space transform of a prop at joint: model[joint] * offset. model
 * may be NULL (the joint's chain is then composed from pose) or the pose's
 * model matrices (mr_pose_to_model); offset NULL is the identity. */
mr_status mr_attach_model(const mr_skeleton *sk, const mr_pose *pose, const mat4 *model, int joint,
                          const mat4 offset, mat4 out);

/* World transform: display * attach_model. */
void mr_attach_world(const mat4 display, const mat4 attach_model, mat4 out);

/* A world-space point in model space (through the inverse of display).
 * Fails when display is not invertible or the point is not finite. */
mr_status mr_attach_world_to_model(const mat4 display, const vec3 world, vec3 out);

#endif
