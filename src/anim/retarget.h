/* retarget.h — playing a clip made for one skeleton on another.
 *
 * mr_retarget_clip builds a new clip for the target model from a clip of
 * the source model and a joint map (joint_map.h). All of it happens in the
 * target's model space: the source is brought there by the frame
 * conversion of the two models (frame.h: axes and units), so an MD5 clip
 * (Z-up inches) plays on a COLLADA model (Y-up metres) and back.
 *
 * Rotations. Each mapped target joint takes its source joint's motion
 * relative to the source's rest pose, in model space, not its local
 * rotation: with G the model-space rotation of a joint,
 *     G_target(t) = G_source(t) * G_source(rest)^-1 * A * G_target(rest)
 * so two skeletons whose joints have different local axes move alike.
 * A (on unless opts.keep_rest) aligns the rests first. The body as a
 * whole: B turns the target's up (hips to head) and across (right to left
 * thigh, or upper arm) onto the source's, for characters that face other
 * ways. So the target does not keep its own facing: in its model space it
 * faces (and walks) the way the source faces in the source's
 * (info->body_turn says by how much it turned); a caller that wants the
 * target's own facing turns it back where it is drawn. Then per joint: with two mapped child joints, the rotation turning
 * both bones toward them onto the source's; with one, the shortest turn of
 * that bone (turned by B) onto the source's, after B; with none, its
 * nearest mapped ancestor's A (B for none). So a T-pose clip lifts an
 * A-pose character's arms as far as the source's, not 45 degrees further.
 * Clavicles are not aligned (they take their ancestor's A): rigs place the
 * clavicle bone apart (CMU's rises 20 degrees from the spine, the
 * mannequin's lies level), and turning it onto the source's lifted the
 * shoulders by the difference in every frame; they move as the source's
 * move from its rest, and the upper arm's own alignment aims the arm.
 * Unmapped target joints keep their rest local rotation; every target joint
 * keeps its rest translation (its own bone lengths) and scale, except:
 *
 * Translation. The target's root of the map (the deepest joint above every
 * mapped joint; the pelvis of most rigs) moves by the displacement from
 * rest of the source's root of the map, times `scale`: by default the
 * ratio of the legs' lengths (thigh to foot, target over source, both in
 * the target's units), else the ratio of the models' heights. A map of a
 * part only (its source root neither a root joint nor the hips or above
 * them, e.g. just an arm) moves no joint's translation.
 *
 * Keys: at every key time of the source clip, with gaps longer than
 * 1/MR_RETARGET_MIN_RATE seconds cut evenly; the output is LINEAR.
 *
 * Contacts (opts.feet, opts.hands). The ground may move under the source:
 * a clip that walks in place (the mannequin's walk) runs its feet over a
 * treadmill. A clip whose root of the map strays a leg's length or more
 * sideways from its rest walks over standing ground (zero velocity).
 * Otherwise the ground's velocity is the one most of the source's feet share
 * between two keys at which they are low (within 2 % of a leg length of
 * their lowest point): the densest cluster of those horizontal velocities
 * (a tenth of the contact speed wide), or zero when at least half as many
 * are that near zero (a clip that moves its root: jitter of planted feet
 * must not read as a slow treadmill). A foot (hand)
 * of the source is in contact while it moves with the ground (within 0.25
 * leg lengths per second) and, for a foot, is low; two keys or more make a
 * contact. The target's limb (thigh/calf/foot or upperarm/forearm/hand, by
 * role) then holds its end joint on a point moving with the target's ground
 * (the source's ground velocity times `scale`): the point that keeps the
 * corrections smallest (the mean of where forward kinematics puts the end
 * over the contact), with the two-bone IK (ik.h), keeping the end joint's
 * model-space rotation. A held foot's height is the target's floor: its
 * rest height plus `scale` times how far the source's foot is above its
 * lowest point; and at any key where forward kinematics would put a foot
 * below that height, the IK lifts it there (feet never go through the
 * target's floor when the two rigs' legs bend differently). Within 0.15 s
 * of a contact the IK fades in and out. Between keys the IK is not
 * applied: the held joint drifts by the interpolation between two solved
 * keys only.
 *
 * Allocates (load time, not per frame). The source clip, models and map
 * are read only.
 */
#ifndef MR_ANIM_RETARGET_H
#define MR_ANIM_RETARGET_H

#include "anim/joint_map.h"
#include "anim/model.h"

#define MR_RETARGET_MIN_RATE 30.0f     /* keys per second at least */
#define MR_RETARGET_MAX_KEYS 200000    /* keys per track at most (MR_ERR_LIMIT) */
#define MR_RETARGET_MAX_CONTACTS 64    /* contacts listed in mr_retarget_info */

typedef struct mr_retarget_opts {
    float scale;             /* root translation scale; 0 = default (legs' ratio) */
    int feet;                /* 1: hold the feet on the source's contacts */
    int hands;               /* 1: the same for hands */
    int keep_rest;           /* 1: no rest alignment (A = identity) */
} mr_retarget_opts;

typedef struct mr_retarget_contact {
    int joint;               /* target joint held (foot or hand) */
    float start, end;        /* clip seconds, keys included */
    vec3 point;              /* where it was held at `start`, target model space (it then moves */
                             /* with mr_retarget_info.ground_velocity) */
} mr_retarget_contact;

typedef struct mr_retarget_info {
    float scale;             /* root translation scale used */
    int root_source, root_target;  /* the roots of the map (joint indices), -1 when nothing moves */
    int keys;                /* keys per track of the new clip */
    int contact_count;       /* contacts found (all; the first MR_RETARGET_MAX_CONTACTS listed) */
    mr_retarget_contact contacts[MR_RETARGET_MAX_CONTACTS];
    int unreached;           /* keys where an IK target was out of reach */
    vec3 ground_velocity;    /* the target's ground under the contacts, model units per second */
    float body_turn;         /* degrees B turns the target's body (see Rotations): a target
                              * that faced another way than the source now faces its way */
} mr_retarget_info;

/* Retargets clip (of source's skeleton) to target through map (source and
 * target joint counts must match it). opts and info may be NULL. On success
 * *out is a new clip of target's joint count named like clip, with its
 * duration, rate and markers; the caller owns it (mr_model_add_clip or
 * mr_clip_destroy; call mr_clip_finish before sampling a clip outside a
 * model). Fails with MR_ERR_JOINT_COUNT on mismatched counts,
 * MR_ERR_INVALID_ARGUMENT when nothing is mapped or the scale is not
 * finite and >= 0, MR_ERR_LIMIT beyond MR_RETARGET_MAX_KEYS; *out stays
 * NULL then. */
mr_status mr_retarget_clip(const mr_clip *clip, const mr_model *source, const mr_model *target,
                           const mr_joint_map *map, const mr_retarget_opts *opts, mr_clip **out,
                           mr_retarget_info *info, mr_error *err);

/* Length of a model's legs in its own units: thigh to calf to foot (joints
 * found by role, joint_map.h), the mean of both sides; 0 without legs. */
float mr_retarget_leg_length(const mr_skeleton *sk);

#endif
