/* vrm_map.c — joint maps from a VRM avatar's humanoid bones (vrm_map.h). */
#include "anim/vrm_map.h"

#include <string.h>

#include "anim/vrm.h"

mr_joint_role mr_vrm_bone_role(int b, mr_joint_side *side)
{
    static const struct { const char *name; mr_joint_role role; } roles[] = {
        {"hips", MR_ROLE_HIPS}, {"spine", MR_ROLE_SPINE}, {"neck", MR_ROLE_NECK}, {"head", MR_ROLE_HEAD},
        {"Shoulder", MR_ROLE_CLAVICLE}, {"UpperArm", MR_ROLE_UPPERARM}, {"LowerArm", MR_ROLE_FOREARM},
        {"Hand", MR_ROLE_HAND}, {"UpperLeg", MR_ROLE_THIGH}, {"LowerLeg", MR_ROLE_CALF}, {"Foot", MR_ROLE_FOOT},
        {"Toes", MR_ROLE_TOE},
    };
    if (side) *side = MR_SIDE_CENTRE;
    if (b < 0 || b >= MR_VRM_BONE_COUNT) return MR_ROLE_NONE;
    const char *n = mr_vrm_bone_names[b];
    if (!strncmp(n, "left", 4) || !strncmp(n, "right", 5)) {
        if (side) *side = n[0] == 'l' ? MR_SIDE_LEFT : MR_SIDE_RIGHT;
        n += n[0] == 'l' ? 4 : 5;
    }
    for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++)
        if (!strcmp(n, roles[i].name)) return roles[i].role;
    return MR_ROLE_NONE;
}

/* The joint of sk playing bone b: from the humanoid map v, else by role. */
static int joint_for(const mr_vrm *v, const mr_skeleton *sk, int b)
{
    if (v && v->humanoid[b] >= 0) return v->humanoid[b];
    mr_joint_side side;
    mr_joint_role role = mr_vrm_bone_role(b, &side);
    return role == MR_ROLE_NONE ? -1 : mr_joint_map_find_role(sk, role, side);
}

mr_status mr_vrm_joint_map(mr_joint_map *map, const mr_model *source, const mr_model *target, mr_error *err)
{
    mr_status st = mr_joint_map_auto(map, &source->skeleton, &target->skeleton, err);
    if (st != MR_OK || (!source->vrm && !target->vrm)) return st;
    for (int b = 0; b < MR_VRM_BONE_COUNT; b++) {
        if (!(source->vrm && source->vrm->humanoid[b] >= 0) && !(target->vrm && target->vrm->humanoid[b] >= 0)) continue;
        int s = joint_for(source->vrm, &source->skeleton, b), t = joint_for(target->vrm, &target->skeleton, b);
        if (s < 0 || t < 0) continue;
        for (int j = 0; j < map->target_count; j++)   /* one target joint per source joint for a bone */
            if (j != t && map->source_of[j] == s) map->source_of[j] = -1, map->role_of[j] = MR_ROLE_NONE;
        map->source_of[t] = s;
        map->role_of[t] = (signed char)mr_vrm_bone_role(b, NULL);
    }
    return MR_OK;
}
