/* rootmotion.h — extracting a root joint's motion over the ground from a
 * clip, so a character can walk through the world instead of on the spot.
 *
 * The ground plane is the model frame's plane perpendicular to its up axis
 * (mr_axes.up): XY for a Z-up model (MD5), XZ for a Y-up one. For the
 * chosen joint, "horizontal translation" is its local translation's
 * component in that plane and "yaw" its rotation about the up axis (the
 * twist of a swing-twist split); both are taken in the joint's parent frame,
 * the parent's rest pose mapping them to model space (a root joint's parent
 * frame is the model frame).
 *
 * Removing motion from a sampled pose pins the joint's horizontal
 * translation and yaw to their values at clip time 0; the vertical part and
 * the tilt (swing) stay, so a bob or a lean remains in the pose.
 *
 * The motion between two clip times is a 2D rigid step (translation in the
 * ground plane, model units, plus a yaw angle in radians, right-handed
 * about up), expressed in the frame of the pinned pose at the start of the
 * step. Steps compose: a character at world transform W moves to
 * W * translate(delta.translation) * rotate(up, delta.yaw). Within one
 * segment of a clip a turning path is taken as its chord; straight motion
 * is exact. Nothing here allocates.
 */
#ifndef MR_ANIM_ROOTMOTION_H
#define MR_ANIM_ROOTMOTION_H

#include "anim/clip.h"
#include "anim/model.h"

enum {
    MR_ROOT_TRANSLATION = 1,   /* extract horizontal translation */
    MR_ROOT_YAW = 2,           /* extract rotation about the up axis */
};

typedef struct mr_root_motion {
    int joint;           /* extracted joint, -1 when off */
    unsigned flags;      /* MR_ROOT_* */
    vec3 up;             /* model up axis in the joint's parent frame (unit) */
    mat3 to_model;       /* parent frame -> model frame (rest pose, with scale) */
    mr_up_axis up_axis;
} mr_root_motion;

typedef struct mr_root_delta {
    vec3 translation;    /* model frame, in the ground plane */
    float yaw;           /* radians about the up axis */
} mr_root_delta;

/* Sets up extraction for joint (flags MR_ROOT_*; 0 turns it off, joint is
 * then ignored). Fails for a joint out of range, unknown flags or up axis. */
mr_status mr_root_motion_init(mr_root_motion *rm, const mr_skeleton *sk, int joint, mr_up_axis up,
                              unsigned flags);

/* The joint's local translation and yaw in clip at time t (clamped; rest
 * values where the clip has no track). */
void mr_root_motion_sample(const mr_root_motion *rm, const mr_clip *clip, const mr_skeleton *sk, float t,
                           vec3 translation, float *yaw);
/* Pins the joint in pose to the horizontal part of translation and to yaw
 * (per rm->flags); the vertical part and the swing stay. */
void mr_root_motion_pin(const mr_root_motion *rm, mr_pose *pose, const vec3 translation, float yaw);
/* Pins to the clip's values at time 0: the sampled pose then stays in place. */
void mr_root_motion_remove(const mr_root_motion *rm, const mr_clip *clip, const mr_skeleton *sk,
                           mr_pose *pose);

/* Composes the motion of clip from time t0 to t1 (one stretch inside a
 * cycle, either direction) onto acc. */
void mr_root_motion_step(const mr_root_motion *rm, const mr_clip *clip, const mr_skeleton *sk, double t0,
                         double t1, mr_root_delta *acc);
/* Composes step onto acc (acc = acc then step). */
void mr_root_motion_delta_compose(const mr_root_motion *rm, mr_root_delta *acc, const mr_root_delta *step);

#endif
