/* springs.h — secondary motion: spring chains (hair, tails, straps) as the
 * VRM 1.0 spring bone (VRMC_springBone) defines them, run as a job over a
 * local pose.
 *
 * A spring joint rotates so that its tip (the `tail` joint, its direct
 * child) trails behind: each step, in the chain's centre space,
 *   next = tip + (tip - previous tip) * (1 - drag)       inertia
 *        + rest direction * stiffness * dt               back toward the rest
 *        + gravity direction * gravity power * dt        outside force
 * then the tip goes back to the bone's length from the joint, is pushed out
 * of the chain's colliders (spheres, capsules, planes; "inside" shapes keep
 * it in), and the joint's local rotation becomes its rest rotation turned
 * from the rest direction onto the tip. The rest direction is the tip's rest
 * offset rotated by the parent's current world rotation. Joints run in
 * skeleton order (parents first), so a chain's second joint sees its first
 * one already moved. The spring owns the rotation of its joints: the clip's
 * rotation of a spring joint is replaced, its translation and scale kept.
 *
 * Spaces: the world is `transform` (the character's placement) times model
 * space. Tips are kept in the chain's centre space: the world (center -1),
 * so a walking character drags its springs behind, or a joint's frame (e.g.
 * the hips), so only motion relative to that joint moves them. Parameters
 * are in model units (stiffness and gravity power: units per second, radii:
 * units) and scale with the transform.
 *
 * Two step modes:
 *   MR_SPRINGS_FIXED (default): the state advances in fixed steps of
 *     1/`rate` s (default 120 Hz: two steps a frame at 60 fps, a step short
 *     enough that a tip moving 1.5 m/s moves 1.25 cm a step, below the hit
 *     radii VRM avatars use, and cheap enough for 100 characters a frame;
 *     see `marrow bench`). The inputs (the pose's joints and the transform)
 *     at a step inside a frame follow the parabola through the last three
 *     frames' (a line through two just after a reset). What is drawn at a time between two steps is a
 *     fractional step from the last one (its inertia scaled by the fraction,
 *     not committed), so there is no lag of a step and no jitter as frames
 *     and steps slide past each other; at a time that falls on a step, every
 *     frame rate shows that same step. After every step the tip is projected
 *     onto the sphere of the bone's length outside every collider (the exact
 *     circle where the two meet, repeated for several colliders), so no tip
 *     ends inside a collider.
 *   MR_SPRINGS_FRAME: exactly one step of dt per update, as three-vrm 3.x
 *     computes it: VRM's reference collision response (one push out and one
 *     length fix per collider, in order), and a bone length measured from
 *     the joint to where its tip was after the previous update (three-vrm
 *     reads the child's world matrix before refreshing it). For comparison
 *     with other VRM tools; it ties the motion to the frame rate.
 *
 * Robustness: dt = 0 advances nothing and poses the joints from the state;
 * dt above MR_SPRINGS_MAX_DT is cut to it (fixed mode drops the rest of the
 * time); a transform that jumps farther than `teleport` (or turns more than
 * 90 degrees) in one update resets the springs to the new placement; a
 * zero-length bone or a zero rest offset leaves its joint at the rest
 * rotation. No NaN leaves the job for finite input.
 *
 * Cost: the step runs in double precision (the frame mode is compared with
 * three-vrm's doubles at 0.1 mm over thousands of steps; in float it drifts
 * to most of that). Chains that nothing else in the set reads, and that read
 * nothing another chain moves (their parent, centre and colliders hang
 * outside every spring, each joint's tip is the next joint, and no
 * collider, centre or other chain hangs below them: hair, tails, straps
 * on a body), step side by side in the four lanes of a vector, with the
 * same operations in the same order as one at a time: the results are the
 * same bits either way, and with or without AVX (core/cpu.h). The chains
 * wrap around the lanes (a fifth chain of 8 joints fills two more rows of
 * each lane, not eight rows of one), so two or more free chains take rows
 * of four joints, whatever their count. The lanes' constants (rest directions and rotations, stiffness,
 * ...) are held once for all the springs that have the same ones (the
 * characters of one rig, in either step mode, and their clones), so a crowd
 * reads one set from cache. Figures: `marrow bench --only springs`,
 * docs/PERFORMANCE.md.
 *
 * Ownership: mr_springs_create copies the description; the springs keep no
 * pointer to the skeleton, but every call must pass the same one (its joint
 * count is checked). mr_springs_update and mr_springs_reset allocate nothing.
 * Springs may be made, cloned, stepped and destroyed on different threads
 * (the shared constants are counted under a lock, and only read when
 * stepping); one springs is stepped by one thread at a time.
 */
#ifndef MR_ANIM_SPRINGS_H
#define MR_ANIM_SPRINGS_H

#include "anim/pose.h"

#define MR_SPRINGS_MAX_JOINTS 4096      /* spring joints in one set */
#define MR_SPRINGS_MAX_COLLIDERS 1024
#define MR_SPRINGS_MAX_DT 0.25          /* seconds one update may advance */
#define MR_SPRINGS_DEFAULT_RATE 120.0f  /* fixed steps per second */
#define MR_SPRINGS_VRM0_TIP 0.07f       /* VRM 0.x: a chain's last joint gets a tip this far out */

typedef enum { MR_SPRINGS_FIXED = 0, MR_SPRINGS_FRAME = 1 } mr_springs_step;
typedef enum { MR_COLLIDER_SPHERE = 0, MR_COLLIDER_CAPSULE, MR_COLLIDER_PLANE } mr_collider_shape;

typedef struct mr_spring_joint {
    int joint;               /* the joint the spring rotates */
    int tail;                /* its tip: a direct child of joint, or -1: a tip MR_SPRINGS_VRM0_TIP */
                             /* out along the joint's own rest offset (VRM 0.x chain ends) */
    float stiffness;         /* >= 0: pull back toward the rest direction */
    float drag;              /* 0..1: share of the velocity lost each step */
    float gravity_power;     /* >= 0 */
    float gravity_dir[3];    /* world direction, a unit vector (used as given, as VRM's reference does) */
    float radius;            /* >= 0: the tip's hit radius */
} mr_spring_joint;

typedef struct mr_spring_collider {
    int joint;               /* the joint it moves with */
    int shape;               /* mr_collider_shape */
    float offset[3];         /* centre (capsule: first end; plane: a point), joint-local */
    float tail[3];           /* capsule: second end, joint-local */
    float normal[3];         /* plane: outward normal, joint-local */
    float radius;            /* >= 0 (unused by planes) */
    int inside;              /* 1: keeps tips inside the sphere or capsule */
} mr_spring_collider;

typedef struct mr_spring_chain {
    int first, count;        /* its joints: desc.joints[first .. first + count - 1] */
    int center;              /* joint whose frame holds the tips, -1: the world */
    int collider_first, collider_count;   /* desc.chain_colliders[...]: collider indices */
} mr_spring_chain;

typedef struct mr_springs_desc {
    const mr_spring_joint *joints; int joint_count;
    const mr_spring_chain *chains; int chain_count;
    const mr_spring_collider *colliders; int collider_count;
    const int *chain_colliders; int chain_collider_count;
    int step;                /* mr_springs_step; 0 = fixed */
    float rate;              /* fixed steps per second, 0 = MR_SPRINGS_DEFAULT_RATE (10..2000) */
    float teleport;          /* world distance that counts as a teleport, 0 = 5x the longest chain */
} mr_springs_desc;

typedef struct mr_springs mr_springs;

/* Checks the description against sk: joints and colliders in range, each
 * tail a direct child of its joint, no joint in two springs, parameters in
 * range and finite, chains and collider lists inside their arrays. err names
 * what is wrong ("springs: chain 2 joint 3: drag must be in 0..1, got 1.5"). */
mr_status mr_springs_validate(const mr_skeleton *sk, const mr_springs_desc *desc, mr_error *err);
/* Validates and allocates the springs (state and scratch for sk). They
 * start unset: the first update (or a reset) places them at the pose. */
mr_status mr_springs_create(const mr_skeleton *sk, const mr_springs_desc *desc, mr_springs **out, mr_error *err);
void mr_springs_destroy(mr_springs *s);
/* A deep copy (state included), for a reloaded script. */
mr_status mr_springs_clone(const mr_springs *s, mr_springs **out);

/* Places every tip at its rest direction from the pose (transform NULL:
 * identity) and sets the spring joints' rotations in pose to rest. */
mr_status mr_springs_reset(mr_springs *s, const mr_skeleton *sk, mr_pose *pose, const float transform[16]);
/* Advances the springs by dt seconds (negative or NaN: 0) with pose as the
 * character's pose at the end of the step and transform its placement (NULL:
 * identity; column-major 4x4), and writes the spring joints' rotations into
 * pose. Fails only on a pose or skeleton that does not match. */
mr_status mr_springs_update(mr_springs *s, const mr_skeleton *sk, mr_pose *pose, double dt, const float transform[16]);

/* What the springs hold, for bindings and tests. */
int mr_springs_mode(const mr_springs *s);
int mr_springs_joint_count(const mr_springs *s);
const mr_spring_joint *mr_springs_joint(const mr_springs *s, int i);
int mr_springs_collider_count(const mr_springs *s);
const mr_spring_collider *mr_springs_collider(const mr_springs *s, int i);
int mr_springs_chain_count(const mr_springs *s);
const mr_spring_chain *mr_springs_chain(const mr_springs *s, int i);
const int *mr_springs_chain_colliders(const mr_springs *s);
/* Deepest penetration of a tip (with its hit radius) into the colliders of
 * its chain, for a pose and placement (world units; 0 when none). */
double mr_springs_penetration(const mr_springs *s, const mr_skeleton *sk, const mr_pose *pose, const float transform[16]);
/* How many chains step side by side (see Cost above); the others step one
 * joint at a time. */
int mr_springs_lane_chains(const mr_springs *s);
/* How many springs (s included) share s's lane constants: springs made for the same rig with the same
 * settings, and their clones, hold them once; 0 when s steps no chains side by side. */
int mr_springs_lane_sharers(const mr_springs *s);

#endif
