/* ik_body.h — full-body IK on a local pose: goals for the hands, feet,
 * head and pelvis of a humanoid, met by moving the pelvis, bending the
 * spine and solving each limb, so that planted feet stay planted while the
 * hands reach.
 *
 * The rig (which joints are the pelvis, spine, head and the four limbs) is
 * data the caller gives: this file sits with the jobs on one pose and knows
 * nothing of joint names; ik_rig.h finds a rig from names the way
 * retargeting reads them.
 *
 * One solve, in order (the approach of the body solvers in engines: the
 * pelvis brings goals within reach, the spine bends, the limbs finish):
 *  1. pelvis: a pelvis goal moves (and turns) it by its weight; else the
 *     pelvis slides MR_IK_BODY_PELVIS_SHARE of the way toward hand and head
 *     goals that lie beyond the arms' (MR_IK_BODY_ARM_REACH of full
 *     extension) or the head's reach;
 *     either way the move is then cut back so that every foot goal stays
 *     within MR_IK_BODY_LEG_REACH of its leg's full extension (the feet win);
 *  2. spine: hand goals still out of reach and the head goal turn the spine
 *     joints (each about itself, by the least-squares small rotation that
 *     moves the shoulders and head where they should go: a bend or a twist),
 *     joint i taking 1.5/(count - i) of it (over-relaxed), at most `spine_limit` radians per
 *     joint and pass;
 *  3. head: a head rotation goal sets the head's model rotation;
 *  4. arms, then legs last (so the feet end exactly on their plants): a
 *     two-bone solve (ik.h) per limb with a goal, keeping the limb's bend
 *     plane; an end rotation goal sets the hand's or foot's model rotation.
 * Steps 1-2 run up to `iterations` times, while some goal is out of reach
 * and the pass brought it at least 3% closer.
 *
 * Limits (ik_chain.h's cone, twist and hinge, relative to each joint's
 * rest rotation): every limited joint is projected onto its limit before
 * the limbs are solved and after each spine turn or rotation goal, and a
 * limb with a limited joint is solved by chain IK (ik_chain.h, FABRIK) with
 * its limits instead of the two-bone solve, so no joint ends outside its
 * limits. A limit's bone axis is the joint's first child (ik_chain.h's
 * mr_ik_limit_bone with no chain child), also for the limbs' joints, whose
 * next joint on the limb is their first child in the rigs ik_rig.h finds.
 *
 * Each goal reports its error (distance left); `conflict` says that some
 * goal with weight > 0 could not be met (out of reach together with the
 * others: the pose is the best compromise, feet first). Allocates nothing;
 * plain float arithmetic in a fixed order (the same bits every run).
 */
#ifndef MR_ANIM_IK_BODY_H
#define MR_ANIM_IK_BODY_H

#include "anim/ik_chain.h"

#define MR_IK_RIG_MAX_SPINE 16
#define MR_IK_BODY_MAX_GOALS 16
#define MR_IK_BODY_ARM_REACH 0.98f   /* of an arm's full extension, when moving the pelvis and spine */
#define MR_IK_BODY_LEG_REACH 0.999f  /* of a leg's full extension, the most the pelvis may stretch it */
#define MR_IK_BODY_PELVIS_SHARE 0.5f /* of the pull the pelvis takes per pass (the spine the rest) */

typedef enum mr_ik_limb { MR_IK_ARM_L = 0, MR_IK_ARM_R, MR_IK_LEG_L, MR_IK_LEG_R, MR_IK_LIMB_COUNT } mr_ik_limb;

typedef struct mr_ik_rig {
    int pelvis;                          /* the joint the legs and spine hang from; -1: none */
    int spine[MR_IK_RIG_MAX_SPINE];      /* pelvis's child .. the chest (the arms' common ancestor), root first */
    int spine_count;
    int head;                            /* -1: none */
    int limb[MR_IK_LIMB_COUNT][3];       /* upper, middle, end (upper arm, forearm, hand; thigh, calf,
                                          * foot); -1 entries: that limb is missing */
} mr_ik_rig;

typedef struct mr_ik_goal {
    int joint;               /* a limb's end, the head or the pelvis */
    vec3 position;           /* model space */
    int has_rotation;
    versor rotation;         /* model-space rotation of the joint (has_rotation) */
    float weight;            /* 0..1 */
    float error;             /* out: distance left from the joint to position */
} mr_ik_goal;

typedef struct mr_ik_body_job {
    const mr_skeleton *skeleton;
    const mr_ik_rig *rig;
    mr_pose *pose;           /* local pose, edited in place */
    mr_ik_goal *goals;       /* goal_count goals, at most one per joint */
    int goal_count;          /* 0..MR_IK_BODY_MAX_GOALS */
    int iterations;          /* 0 = 16 */
    float spine_limit;       /* radians per spine joint per pass; 0 = 30 degrees */
    float tolerance;         /* model units; 0 = 1e-4 of the longest limb's reach */
    const mr_ik_limit *limits;  /* optional: joint_count limits indexed by joint (kind NONE: free),
                              * held in the result (see below) */
    mat4 *scratch;           /* optional: joint_count matrices the solve may work in (caller-owned;
                              * NULL: it walks parent chains instead, slower) */
    int fresh;               /* private: scratch matches the pose */
    /* outputs */
    int reached;             /* every goal with weight > 0 within tolerance */
    int conflict;            /* some goal with weight 1 was not met: a compromise */
} mr_ik_body_job;

/* Checks the rig against the skeleton (joints in range, each limb's joints
 * a chain, spine joints a chain from the pelvis) and the goals (joints that
 * are a limb's end, the head or the pelvis, each once; finite values,
 * weight in [0, 1]). */
mr_status mr_ik_body_validate(const mr_ik_body_job *job, mr_error *err);

/* Validates, then solves (see above) and fills the outputs. */
mr_status mr_ik_body_run(mr_ik_body_job *job, mr_error *err);

#endif
