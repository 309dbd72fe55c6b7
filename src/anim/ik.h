/* ik.h — inverse kinematics on a local pose: two-bone reach (arm or leg
 * toward a point, bending toward a pole vector) and aim (a head or eyes
 * turning toward a point, shared along a chain of joints).
 *
 * Both are jobs in the ozz shape: a plain struct of inputs, the pose they
 * edit in place, outputs, a validate step; they allocate nothing. They edit
 * only local rotations of the chain joints, so they compose with sampling,
 * blending, masks and bone overrides: run them on the layered local pose
 * (the mixer's pose hook is the place) before local-to-model. Targets and
 * pole vectors are in model space; mr_ik_point_to_model converts a point
 * given in a joint's local frame (and attach.h converts from world space).
 *
 * Two-bone: joints start -> mid -> end (mid a descendant of start, end of
 * mid; e.g. upperarm_r, lowerarm_r, hand_r or thigh_l, calf_l, foot_l). The
 * end lands on the target when it is within reach; beyond reach the chain
 * straightens and points at it. The bone lengths are those of the pose.
 * The chain bends in the plane holding start, target and the pole vector:
 * the middle joint moves toward `pole`. `soft` > 0 eases the last fraction
 * of the reach (soft * chain length) so the knee or elbow does not snap
 * straight: the end then stops short of targets in that band. `weight`
 * blends the solved rotations with the originals (0 leaves the pose
 * bit-for-bit unchanged).
 *
 * Aim: joints[0..count-1], each an ancestor of the next (e.g. spine_03,
 * neck, head). The last joint's `forward` axis (in its local frame), seen
 * from `offset` (a point in its local frame, e.g. between the eyes), turns
 * toward the target. Joint i takes share[i] of the correction still to do
 * (share[i] / (1 - shares before it)), limited to limits[i] radians, so
 * shares 0.2, 0.3, 0.5 turn the spine a little, the neck more, the head the
 * rest; shares summing to less than 1 aim only part of the way.
 */
#ifndef MR_ANIM_IK_H
#define MR_ANIM_IK_H

#include "anim/pose.h"

#define MR_AIM_MAX_JOINTS 16

typedef struct mr_two_bone_job {
    const mr_skeleton *skeleton;
    mr_pose *pose;           /* local pose, edited in place */
    int start, mid, end;     /* joint indices */
    vec3 target;             /* model space */
    vec3 pole;               /* model-space direction the middle joint bends toward;
                              * zero keeps the pose's current bend plane */
    float weight;            /* 0..1 */
    float soft;              /* 0 (off) .. < 1: softened fraction of the reach */
    int reached;             /* out: 1 when the end is on the target */
} mr_two_bone_job;

/* Checks the job: skeleton and pose present and matching, joints in range,
 * mid a descendant of start and end of mid, finite target and pole,
 * weight in [0, 1], soft in [0, 1). */
mr_status mr_ik_two_bone_validate(const mr_two_bone_job *job, mr_error *err);
/* Validates, then solves and edits the local rotations of start and mid. */
mr_status mr_ik_two_bone(mr_two_bone_job *job, mr_error *err);

typedef struct mr_aim_job {
    const mr_skeleton *skeleton;
    mr_pose *pose;           /* local pose, edited in place */
    const int *joints;       /* count joints, root-most first */
    const float *shares;     /* count shares in [0, 1], summing to <= 1 */
    const float *limits;     /* count max angles in radians (>= 0), or NULL for none */
    int count;               /* 1..MR_AIM_MAX_JOINTS */
    vec3 target;             /* model space */
    vec3 forward;            /* aim axis in the last joint's frame, non-zero */
    vec3 offset;             /* aim origin in the last joint's frame */
    float weight;            /* 0..1 */
    float error;             /* out: angle left between aim axis and target, radians */
} mr_aim_job;

/* Checks the job: joints in range and each an ancestor of the next, shares
 * and limits valid, finite target/forward/offset, forward non-zero, weight
 * in [0, 1]. */
mr_status mr_ik_aim_validate(const mr_aim_job *job, mr_error *err);
/* Validates, then turns the chain and edits its joints' local rotations. */
mr_status mr_ik_aim(mr_aim_job *job, mr_error *err);

/* Model-space position of a point given in joint's local frame (joint -1:
 * the point is already in model space). */
mr_status mr_ik_point_to_model(const mr_skeleton *sk, const mr_pose *pose, int joint, const vec3 local,
                                 vec3 out);

#endif
