/* root_motion.h — extracting a root joint's motion over the ground from a
 * clip, so a character can walk through the world instead of on the spot.
 *
 * Walking in place vs travelling. A clip "in place" (the mannequin's
 * walk_inplace, run_inplace) keeps the figure over the origin: sampled as
 * it is, it walks on a treadmill. A travelling clip (the mannequin's walk
 * and run) has the root motion authored in it: its pelvis moves forward at
 * the speed of the planted foot, so the foot in contact stays still in
 * model space, and its last key is its first one a stride ahead. Sampled
 * plainly, a travelling loop walks away and jumps back at every wrap; with
 * root motion extracted from it (here, or mixer.h's opts.root_motion) the
 * pose stays over the character's origin and the step between two times
 * moves the character, so the feet stay planted in the world. Extracting
 * from a clip in place gives no motion (uniform) or its sway (exact path).
 *
 * The ground plane is the model frame's plane perpendicular to its up axis
 * (mr_axes.up): XY for a Z-up model (MD5), XZ for a Y-up one. For the
 * chosen joint, "horizontal translation" is its local translation's
 * component in that plane and "yaw" its rotation about the up axis (the
 * twist of a swing-twist split); both are taken in the joint's parent frame,
 * the parent's rest pose mapping them to model space (a root joint's parent
 * frame is the model frame).
 *
 * Two ways to extract:
 * - Exact path (flags without MR_ROOT_UNIFORM): the character follows the
 *   joint's horizontal translation and yaw. Removing motion from a sampled
 *   pose pins them to their values at clip time 0; the vertical part and
 *   the tilt (swing) stay, so a bob or a lean remains in the pose. A pelvis
 *   that sways and turns with each step makes the character sway and its
 *   heading wobble: right for a root joint that carries only the travel.
 * - Uniform (MR_ROOT_UNIFORM, marrow's Lua default): the character moves at
 *   constant speed and turn rate from the joint's state at time 0 to its
 *   state at the end of the clip (a straight line when the clip does not
 *   turn, else a circular arc): path(t). Removing motion applies
 *   path(t)^-1 to the joint (its translation and rotation), so the sway, the
 *   hip turn and the bob stay in the pose and the character's heading and
 *   speed stay constant. Right for a loop (a gait cycle) whose root is the
 *   pelvis; a clip in place gives no motion at all.
 *
 * The motion between two clip times is a 2D rigid step (translation in the
 * ground plane, model units, plus a yaw angle in radians, right-handed
 * about up), expressed in the frame of the pinned pose at the start of the
 * step. Steps compose: a character at world transform W moves to
 * W * translate(delta.translation) * rotate(up, delta.yaw). Within one
 * segment of a clip the exact path takes a turning path as its chord;
 * straight motion is exact. Nothing here allocates.
 */
#ifndef MR_ANIM_ROOTMOTION_H
#define MR_ANIM_ROOTMOTION_H

#include "anim/clip.h"
#include "anim/axes_type.h"

enum {
    MR_ROOT_TRANSLATION = 1,   /* extract horizontal translation */
    MR_ROOT_YAW = 2,           /* extract rotation about the up axis */
    MR_ROOT_UNIFORM = 4,       /* take the motion as uniform over the clip (above) */
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

/* Sets up extraction for joint (flags MR_ROOT_*; 0, or MR_ROOT_UNIFORM
 * alone, turns it off, joint is then ignored). Fails for a joint out of
 * range, unknown flags or up axis. */
mr_status mr_root_motion_init(mr_root_motion *rm, const mr_skeleton *sk, int joint, mr_up_axis up,
                              unsigned flags);

/* The joint's local translation and yaw in clip at time t (clamped; rest
 * values where the clip has no track). */
void mr_root_motion_sample(const mr_root_motion *rm, const mr_clip *clip, const mr_skeleton *sk, float t,
                           vec3 translation, float *yaw);
/* Pins the joint in pose to the horizontal part of translation and to yaw
 * (per rm->flags); the vertical part and the swing stay. */
void mr_root_motion_pin(const mr_root_motion *rm, mr_pose *pose, const vec3 translation, float yaw);
/* Removes the motion from pose, sampled from clip at time t: pins to the
 * clip's values at time 0 (exact path), or unwinds path(t) (uniform). The
 * pose then stays over the origin. */
void mr_root_motion_remove(const mr_root_motion *rm, const mr_clip *clip, const mr_skeleton *sk, float t,
                           mr_pose *pose);
/* Uniform extraction: where path(t) is at clip time t (clamped to the
 * clip): horizontal position in the joint's parent frame and yaw (radians)
 * relative to time 0; zeros when extraction is off. */
void mr_root_motion_path(const mr_root_motion *rm, const mr_clip *clip, const mr_skeleton *sk, double t,
                         vec3 position, float *yaw);
/* Applies the inverse of the path transform (position, yaw) to the joint in
 * pose: its translation becomes R(-yaw) (translation - position), its
 * rotation R(-yaw) rotation. */
void mr_root_motion_unwind(const mr_root_motion *rm, mr_pose *pose, const vec3 position, float yaw);

/* Composes the motion of clip from time t0 to t1 (one stretch inside a
 * cycle, either direction) onto acc: path(t0)^-1 path(t1) when uniform. */
void mr_root_motion_step(const mr_root_motion *rm, const mr_clip *clip, const mr_skeleton *sk, double t0,
                         double t1, mr_root_delta *acc);
/* Composes step onto acc (acc = acc then step). */
void mr_root_motion_delta_compose(const mr_root_motion *rm, mr_root_delta *acc, const mr_root_delta *step);

#endif
