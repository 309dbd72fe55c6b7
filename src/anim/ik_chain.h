/* ik_chain.h — chain IK on a local pose: the joints from `first` down to
 * `last` (every joint on the path between them) turn so that `last` reaches
 * a model-space target. Two solvers: FABRIK (default; forward and backward
 * reaching on the joint positions, then turned into rotations root first)
 * and CCD (cyclic coordinate descent, tip first; a pass that gains less
 * than 10% is followed by one FABRIK pass, which frees it from folds and
 * speeds up the crawl of a long chain near full reach). With limits, each
 * FABRIK pass is followed by a CCD pass, which works within them. Without
 * limits, FABRIK's passes move positions only (after two plain passes a
 * jump toward the limit of their crawl near full reach) and the best
 * positions turn into rotations once at the end.
 *
 * Both start by turning the first joint so the chain's tip points at the
 * target (the passes then only bend the chain).
 *
 * A job in the ozz shape: a plain struct of inputs, the pose it edits in
 * place, outputs; validate, then run. It allocates nothing: the chain lives
 * in fixed arrays of MR_IK_CHAIN_MAX_JOINTS. Only local rotations of the
 * chain joints (first .. the parent of last) change, so it composes with
 * sampling, blending, overrides and the two-bone job.
 *
 * Pole: with has_pole, the chain's bend plane faces the model-space point
 * `pole` (FABRIK turns each inner joint about the line of its neighbours
 * toward it every iteration; CCD turns the whole chain about the line from
 * first to its tip after every pass). A pole on the chain's line gives
 * no direction and is ignored for that joint.
 *
 * Limits (per chain joint, limits[i] for the i-th joint from first; NULL
 * for none) are on the joint's local rotation relative to its rest
 * rotation, d = rest^-1 * r:
 *   CONE:  the swing of d about the bone axis (the direction of the next
 *          chain joint in the joint's rest frame; for `last`, its first
 *          child, else its x axis) at most `cone` radians, and with
 *          has_twist the twist about that axis within twist_min..twist_max;
 *   HINGE: d a rotation about `axis` (in the rest frame) by min..max rad.
 * The projection onto the limits is the last step of every iteration and of
 * the solve (after weight), so every output holds them, the input's own
 * violations included: a limited joint ends within its limits even when
 * weight is 0. Projections keep a margin of MR_IK_LIMIT_MARGIN radians
 * inside the bounds so that a measure of the stored floats never reads a
 * violation.
 *
 * Degenerate input never yields NaN: a target on the chain's root, zero-
 * length bones and coincident joints (skipped: they have no direction), a
 * straight chain pointing at a target it must bend to reach (bent toward
 * the pole, else a fixed perpendicular), targets out of reach (the chain
 * points at them). The solve is plain float arithmetic in a fixed order:
 * the same input gives the same bits on every run.
 */
#ifndef MR_ANIM_IK_CHAIN_H
#define MR_ANIM_IK_CHAIN_H

#include "anim/pose.h"

#define MR_IK_CHAIN_MAX_JOINTS 64
#define MR_IK_CHAIN_ITERATIONS 64      /* iterations when the job says 0 */
#define MR_IK_CHAIN_MAX_ITERATIONS 1000
#define MR_IK_LIMIT_MARGIN 1e-5f      /* radians kept inside every limit */
#define MR_IK_HINGE_NOISE 1e-6f       /* radians off a hinge's axis read as rounding */

typedef enum mr_ik_solver { MR_IK_FABRIK = 0, MR_IK_CCD } mr_ik_solver;

typedef enum mr_ik_limit_kind { MR_IK_LIMIT_NONE = 0, MR_IK_LIMIT_CONE, MR_IK_LIMIT_HINGE } mr_ik_limit_kind;

typedef struct mr_ik_limit {
    mr_ik_limit_kind kind;
    float cone;              /* CONE: swing half-angle, radians 0..pi */
    int has_twist;           /* CONE: twist range given */
    float twist_min, twist_max;  /* CONE: radians, -pi..pi, min <= max */
    vec3 axis;               /* HINGE: axis in the joint's rest frame, non-zero */
    float min, max;          /* HINGE: radians, -pi..pi, min <= max */
} mr_ik_limit;

typedef struct mr_ik_chain_job {
    const mr_skeleton *skeleton;
    mr_pose *pose;           /* local pose, edited in place */
    int first, last;         /* first an ancestor of last; path of at most MR_IK_CHAIN_MAX_JOINTS */
    vec3 target;             /* model space */
    int has_pole;
    vec3 pole;               /* model-space point the bend faces (has_pole) */
    mr_ik_solver solver;
    int iterations;          /* 0 = MR_IK_CHAIN_ITERATIONS; at most MR_IK_CHAIN_MAX_ITERATIONS */
    float tolerance;         /* model units; 0 = 1e-5 of the chain's length */
    float weight;            /* 0..1: blend of the solved rotations with the input */
    const mr_ik_limit *limits;  /* one per chain joint from first, or NULL */
    /* outputs */
    int reached;             /* the tip within tolerance of the target */
    float error;             /* distance left from the tip to the target */
    int iterations_done;
    int joint_count;         /* joints on the chain, first .. last */
} mr_ik_chain_job;

/* Number of joints on the path first .. last (last's ancestors up to and
 * including first), or 0 when first is not last or an ancestor of it. */
int mr_ik_chain_length(const mr_skeleton *sk, int first, int last);

/* Checks the job: skeleton and pose present and matching, joints in range,
 * first a proper ancestor of last, the chain not longer than
 * MR_IK_CHAIN_MAX_JOINTS, finite target and pole, solver known, iterations,
 * tolerance (>= 0, finite) and weight in range, every limit valid. */
mr_status mr_ik_chain_validate(const mr_ik_chain_job *job, mr_error *err);

/* Validates, then solves: edits the local rotations of the chain joints and
 * fills the outputs. */
mr_status mr_ik_chain_run(mr_ik_chain_job *job, mr_error *err);

/* Checks one limit (what validate does per joint); NULL err allowed. */
mr_status mr_ik_limit_validate(const mr_ik_limit *limit, mr_error *err);

/* Projects local rotation r of a joint (rest rotation rest, bone axis in
 * its rest frame) onto the limit, in place. */
void mr_ik_limit_apply(const mr_ik_limit *limit, const versor rest, const vec3 bone, versor r);

/* How far r lies outside the limit, radians (0 inside): the largest of the
 * swing past the cone, the twist outside its range, or for a hinge the
 * rotation off its axis (less MR_IK_HINGE_NOISE, what storing the
 * projected quaternion as floats leaves) and the angle outside min..max. */
float mr_ik_limit_violation(const mr_ik_limit *limit, const versor rest, const vec3 bone, const versor r);

/* The bone axis a limit of chain joint j uses: the direction of `child`
 * (the next chain joint; -1 for the chain's last: its first child in the
 * skeleton, else x) in j's rest frame, i.e. child's rest translation. */
void mr_ik_limit_bone(const mr_skeleton *sk, int j, int child, vec3 out);

#endif
