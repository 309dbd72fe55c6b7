/* override.h — single-bone overrides applied to a local pose after sampling
 * and blending, before local-to-model, so children follow the bone.
 *
 *   space LOCAL: values are in the parent joint's frame ("relative to the parent")
 *   space MODEL: values are in model space; converted through the parent's
 *                model-space transform (computed from the pose itself)
 *   mode ADD:     on top of the animated value (rotation q is applied after the
 *                 current one, translation is added, scale multiplies)
 *   mode REPLACE: the value becomes the given one
 *   weight 0..1:  0 leaves the pose untouched, 1 applies fully; rotations are
 *                 blended by shortest-path nlerp, translations/scales linearly.
 *
 * Functions validate (joint in range, finite values, weight in [0, 1]) and
 * allocate nothing. */
#ifndef MR_ANIM_OVERRIDE_H
#define MR_ANIM_OVERRIDE_H

#include "anim/pose.h"

typedef enum mr_space { MR_SPACE_LOCAL = 0, MR_SPACE_MODEL } mr_space;
typedef enum mr_override_mode { MR_OVERRIDE_ADD = 0, MR_OVERRIDE_REPLACE } mr_override_mode;

mr_status mr_override_rotation(const mr_skeleton *sk, mr_pose *pose, int joint,
                                    const versor q, mr_space space, mr_override_mode mode,
                                    float weight);
mr_status mr_override_translation(const mr_skeleton *sk, mr_pose *pose, int joint,
                                       const vec3 v, mr_space space, mr_override_mode mode,
                                       float weight);
mr_status mr_override_scale(const mr_skeleton *sk, mr_pose *pose, int joint,
                                 const vec3 s, mr_override_mode mode, float weight);

/* Model-space transform of joint j computed by walking its parent chain
 * (identity for j = -1), with the skeleton's inherit modes (scale_comp) as
 * mr_pose_to_model has them. O(depth); used by the MODEL space overrides,
 * IK and attachments. */
void mr_pose_model_matrix(const mr_skeleton *sk, const mr_pose *pose, int j, mat4 out);

#endif
