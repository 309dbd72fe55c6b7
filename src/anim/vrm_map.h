/* vrm_map.h — retargeting onto (or from) a VRM avatar without a name map:
 * its humanoid bone map (anim/vrm.h) says which joint is the hips, the left
 * upper arm, ..., so those pairs need no guessing from joint names. */
#ifndef MR_ANIM_VRM_MAP_H
#define MR_ANIM_VRM_MAP_H

#include "anim/joint_map.h"
#include "anim/model.h"

/* The role and side of VRM humanoid bone b (MR_ROLE_NONE for fingers, eyes,
 * jaw and the spine above its first joint). */
mr_joint_role mr_vrm_bone_role(int b, mr_joint_side *side);

/* mr_joint_map_auto's map, with every humanoid bone of a VRM target driven
 * by the source joint of the same bone (the source's own humanoid map, or
 * the joint its names give that role); a VRM source drives the target's
 * joints of its bones' roles the same way. Deinit with mr_joint_map_deinit. */
mr_status mr_vrm_joint_map(mr_joint_map *map, const mr_model *source, const mr_model *target, mr_error *err);

#endif
