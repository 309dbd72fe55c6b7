/* joint_map.h — which joint of a source skeleton drives which joint of a
 * target skeleton, for retargeting (retarget.h).
 *
 * A map is given (pairs of names) or found from the joints' names. The
 * automatic match reads each name as a side and a body part ("role"):
 *   - namespaces and rig prefixes are dropped: "mixamorig:LeftUpLeg",
 *     "Armature|hips", "Bip01 L Thigh";
 *   - the side comes from "Left"/"Right" or "L_"/"R_"/"l."... in front, a
 *     capital L or R before a capital ("LHipJoint", CMU), or ".L"/"_l"/
 *     "_left"/" R" at the end (Blender, Unreal-style mannequins);
 *   - the rest, lowercased without separators and digits, names the role:
 *       hips      hips pelvis hip (no side)
 *       spine     spine chest upperchest lowerback abdomen torso (a chain)
 *       neck      neck... (a chain)       head      head
 *       clavicle  clavicle collar shoulder (shoulder only when the side
 *                 has no clavicle/collar: Mixamo and CMU call the clavicle
 *                 LeftShoulder; astroBoy calls the upper arm L_shoulder)
 *       upperarm  upperarm arm uparm humerus (and shoulder, see above)
 *       forearm   forearm lowerarm elbow lowarm
 *       hand      hand wrist
 *       thigh     upleg thigh upperleg femur hip (with a side)
 *       calf      leg calf shin knee lowerleg lowleg
 *       foot      foot ankle
 *       toe       toe toes toebase ball toeball
 *     Names that only contain these words do not match ("headEnd",
 *     "LeftHandIndex1", "upperarm_twist_01_l", "tiptoe.R").
 * Sides follow the body, not the name, when one skeleton's names are
 * mirrored (Bob's "thigh.L" lies on his right: up from hips to head,
 * forward from feet to toes and the left-named thigh disagree with the
 * other skeleton's): left is then paired with right-named joints
 * (`swapped_sides`, and the report says so).
 * Per side and role the joint nearest the root is taken (astroBoy's
 * L_elbow over its twist joint L_forearm, L_knee_01 over L_knee_02); the
 * chains (spine, neck) are paired by rank, first with first and last with
 * last (a chain of one pairs with the other's last joint, the one the
 * arms or head hang from), the longer chain's extra joints left out. Joints left over after
 * the roles are paired by equal names (case-insensitive), so a skeleton
 * maps onto a copy of itself joint for joint.
 *
 * A map is an in-place struct (init/deinit); it allocates two arrays.
 */
#ifndef MR_ANIM_JOINT_MAP_H
#define MR_ANIM_JOINT_MAP_H

#include <stddef.h>

#include "anim/skeleton.h"

typedef enum mr_joint_role {
    MR_ROLE_NONE = -1,
    MR_ROLE_HIPS = 0, MR_ROLE_SPINE, MR_ROLE_NECK, MR_ROLE_HEAD,
    MR_ROLE_CLAVICLE, MR_ROLE_UPPERARM, MR_ROLE_FOREARM, MR_ROLE_HAND,
    MR_ROLE_THIGH, MR_ROLE_CALF, MR_ROLE_FOOT, MR_ROLE_TOE,
    MR_ROLE_COUNT
} mr_joint_role;

typedef enum mr_joint_side { MR_SIDE_CENTRE = 0, MR_SIDE_LEFT, MR_SIDE_RIGHT } mr_joint_side;

typedef struct mr_joint_map {
    int source_count;        /* joints of the source skeleton */
    int target_count;        /* joints of the target skeleton */
    int *source_of;          /* target_count entries: the source joint driving target joint j, or -1 */
    signed char *role_of;    /* target_count entries: the role j was matched by (MR_ROLE_*), */
                             /* MR_ROLE_NONE for name or given pairs and unmapped joints */
    int swapped_sides;       /* 1: left and right paired crosswise (mirrored names, see above) */
} mr_joint_map;

/* Reads a joint name as role and side (side may be NULL). MR_ROLE_SHOULDER
 * does not exist: "shoulder" comes back as MR_ROLE_CLAVICLE with *ambiguous
 * set to 1 (may be NULL) — mr_joint_map_auto resolves it per skeleton. */
mr_joint_role mr_joint_role_of(const char *name, mr_joint_side *side, int *ambiguous);

/* Short name of a role ("upperarm"), "" for MR_ROLE_NONE. */
const char *mr_joint_role_name(mr_joint_role role);

/* The joint of a skeleton with that role and side, nearest the root
 * (shoulders resolved as above), or -1. */
int mr_joint_map_find_role(const mr_skeleton *sk, mr_joint_role role, mr_joint_side side);

/* Finds the map from names (above). Fails only without memory. Deinit
 * with mr_joint_map_deinit. */
mr_status mr_joint_map_auto(mr_joint_map *map, const mr_skeleton *source, const mr_skeleton *target,
                            mr_error *err);

/* A given map: pair_count pairs of names, pairs[2i] a source joint and
 * pairs[2i+1] the target joint it drives. Fails (map left empty) on a name
 * that is not a joint of its skeleton or a target joint given twice. */
mr_status mr_joint_map_pairs(mr_joint_map *map, const mr_skeleton *source, const mr_skeleton *target,
                             const char *const *pairs, int pair_count, mr_error *err);

void mr_joint_map_deinit(mr_joint_map *map);

/* Number of target joints that have a source joint. */
int mr_joint_map_count(const mr_joint_map *map);

/* A report for people: one line per mapped pair ("thigh_l <- LeftUpLeg
 * (thigh, left)"), then the unmapped target and source joints. Returns a
 * malloc'ed string the caller frees, NULL without memory. */
char *mr_joint_map_report(const mr_joint_map *map, const mr_skeleton *source, const mr_skeleton *target);

#endif
