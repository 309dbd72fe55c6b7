/* ik_rig.h — a humanoid's rig for full-body IK (ik_body.h) found from its
 * joint names, the way retargeting reads them (joint_map.h): the pelvis
 * (role hips, else the common ancestor of the thighs; moved up to the
 * common ancestor of that and the chest when the spine does not hang
 * from it, as astroBoy's "root" carries its "hips" and spine), the spine (the
 * joints from the pelvis's child down to the chest, the common ancestor of
 * the upper arms), the head, and each limb's three joints (upper arm,
 * forearm, hand; thigh, calf, foot). Works on the mannequin's, Bob's,
 * astroBoy's, CMU's and Mixamo's names. Sides are as the names say
 * (goals are keyed by joint, so a rig whose names are mirrored works all
 * the same). This file is retargeting-level: ik_body.c never includes it.
 */
#ifndef MR_ANIM_IK_RIG_H
#define MR_ANIM_IK_RIG_H

#include "anim/ik_body.h"

/* Fills rig from sk's names. Fails (rig zeroed) when neither an arm nor
 * a leg is found, naming what was missing. A limb that is not found is
 * left out (-1 entries); so is a spine longer than MR_IK_RIG_MAX_SPINE's
 * last joints. */
mr_status mr_ik_rig_find(const mr_skeleton *sk, mr_ik_rig *rig, mr_error *err);

#endif
