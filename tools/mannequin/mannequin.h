/* mannequin.h — marrow's own model: a humanoid mannequin built by code.
 *
 * `make-mannequin DIR` (main.c, `make models`) writes it as DIR/mannequin.md5mesh plus
 * DIR/idle.md5anim, DIR/walk.md5anim, DIR/wave.md5anim, DIR/run.md5anim,
 * DIR/walk_inplace.md5anim, DIR/run_inplace.md5anim and
 * the prop DIR/sword.md5mesh; the committed
 * files under models/ are that output. Everything here is deterministic: no
 * clock, no randomness, every array fully written, so regenerating gives the
 * same bytes.
 *
 * Frame (MD5's, id Tech 4's): Z up, units of inches, +X forward (the figure
 * faces +X), +Y to the figure's left. It stands about 70 in (1.78 m) tall
 * with the soles on z = 0, the root above the origin. The bind pose is an
 * A-pose (arms 45 degrees below horizontal, legs straight). Every joint's
 * bind rotation is the identity, so a joint's local axes are the model's
 * axes at rest: a local rotation about Y swings a limb forward/back, about X
 * sideways, about Z twists it about the vertical.
 *
 * Joint names: lower case, words joined by '_', numbered spine joints, and
 * a side suffix "_l" / "_r" (the figure's own left and right). The 22 joints
 * in skeleton order (parents before children):
 *
 *   pelvis (root) > spine_01 > spine_02 > spine_03
 *     spine_03 > neck > head
 *     spine_03 > clavicle_l > upperarm_l > lowerarm_l > hand_l
 *     spine_03 > clavicle_r > upperarm_r > lowerarm_r > hand_r
 *   pelvis > thigh_l > calf_l > foot_l > ball_l
 *   pelvis > thigh_r > calf_r > foot_r > ball_r
 *
 * (calf = shin/knee joint, foot = ankle, ball = toes.) Meshes: "body" (light
 * neutral colour) and "shoes" (dark), closed surfaces swept along the bones
 * with smooth two-bone blends around every joint, no textures. MD5 stores
 * no colours or mesh names: the .md5mesh has empty shaders, so it reads back
 * as two untextured meshes "mesh0", "mesh1" in the reader's default colour.
 *
 * Clips, sampled at 30 frames per second:
 *   idle  4.0 s  breathing, weight shift, slight arm sway; loops
 *   walk  1.1 s  one gait cycle travelling forward (+X) 43 in per cycle
 *                (MR_MQ_WALK_STRIDE, 0.99 m/s): root motion authored in the
 *                clip, the pelvis moving at the planted foot's speed so a
 *                foot on the floor stays still in model space; loops (the
 *                last key is the first one a stride ahead); the left heel
 *                strikes at t = 0, the right at 0.55 s
 *   wave  2.0 s  raise the right arm, wave three times, lower it; starts and
 *                ends in the idle pose
 *   run   0.7 s  one running cycle travelling 66 in per cycle
 *                (MR_MQ_RUN_STRIDE, 2.4 m/s), loops; the same foot phases
 *                as walk (left foot lands at t = 0, the right at 0.35 s), so
 *                a synced walk <-> run cross-fade keeps the feet together
 *   walk_inplace, run_inplace  the same cycles on the spot (a treadmill:
 *                the planted foot slides back, the pelvis stays over the
 *                origin); first key equal to the last
 * Play walk and run with root motion extracted from "pelvis" (root_motion.h,
 * uniform) to move a character through the world; the in-place clips for a
 * figure that walks on the spot.
 *
 * The sword (mr_mannequin_sword, written as sword.md5mesh): a prop with one
 * joint "sword" at the middle of its grip, the grip along X (pommel at -X),
 * the blade from x = 3.2 to 33 in, its flat in the XZ plane, the guard
 * across Z; meshes "blade" (steel) and "hilt" (leather and brass). Held in
 * hand_r with marrow.attach and an offset (see examples/sword_in_hand.lua).
 */
#ifndef MR_MANNEQUIN_H
#define MR_MANNEQUIN_H

#include "anim/model.h"

/* Joint indices in skeleton order. */
enum {
    MR_MQ_PELVIS, MR_MQ_SPINE_01, MR_MQ_SPINE_02, MR_MQ_SPINE_03, MR_MQ_NECK, MR_MQ_HEAD,
    MR_MQ_CLAVICLE_L, MR_MQ_UPPERARM_L, MR_MQ_LOWERARM_L, MR_MQ_HAND_L,
    MR_MQ_CLAVICLE_R, MR_MQ_UPPERARM_R, MR_MQ_LOWERARM_R, MR_MQ_HAND_R,
    MR_MQ_THIGH_L, MR_MQ_CALF_L, MR_MQ_FOOT_L, MR_MQ_BALL_L,
    MR_MQ_THIGH_R, MR_MQ_CALF_R, MR_MQ_FOOT_R, MR_MQ_BALL_R,
    MR_MQ_JOINT_COUNT
};

/* Clip timing. */
#define MR_MQ_RATE 30           /* keys per second */
#define MR_MQ_IDLE_FRAMES 120   /* frames per loop: the clip has one more key */
#define MR_MQ_WALK_FRAMES 33
#define MR_MQ_WAVE_FRAMES 60
#define MR_MQ_RUN_FRAMES 21
#define MR_MQ_WALK_STRIDE 43.0  /* walk: inches travelled per cycle (+X) */
#define MR_MQ_RUN_STRIDE 66.0   /* run: inches travelled per cycle (+X) */

/* The whole mannequin: skeleton, meshes and the clips idle, walk, wave, run,
 * walk_inplace, run_inplace, in MD5's axes (model->axes = {MR_UP_Z,
 * 0.0254}), path "mannequin", format "mannequin", as a new model in *out
 * the caller frees with mr_model_destroy. MR_ERR_NO_MEMORY (and *out NULL)
 * when out of memory. */
mr_status mr_mannequin_build(mr_model **out);

/* The parts, for tests and tools. mr_mannequin_skeleton fills an
 * uninitialised sk (free with mr_skeleton_deinit). mr_mannequin_meshes
 * returns a new array of *count meshes (each freed with mr_mesh_deinit, then
 * the array with free()); normals are computed. mr_mannequin_clip builds the
 * named clip ("idle", "walk", "wave", "run", "walk_inplace", "run_inplace")
 * for that skeleton in *out (free with mr_clip_destroy); on failure *out is
 * NULL: MR_ERR_INVALID_ARGUMENT for another name or skeleton,
 * MR_ERR_NO_MEMORY. */
mr_status mr_mannequin_skeleton(mr_skeleton *sk);
mr_status mr_mannequin_meshes(const mr_skeleton *sk, mr_mesh **meshes, int *count);
mr_status mr_mannequin_clip(const mr_skeleton *sk, const char *name, mr_clip **out);
/* The sword prop as a model of one joint (axes as the mannequin's, path
 * "sword") in *out; MR_ERR_NO_MEMORY (and *out NULL) when out of memory.
 * Free with mr_model_destroy. */
mr_status mr_mannequin_sword(mr_model **out);

/* The mannequin with a ponytail (written as mannequin_tail.md5mesh, for
 * spring chains: examples/ponytail_follow_through.lua): the 22 joints
 * above, in the same order, then ponytail_01 .. ponytail_06 hanging from the
 * back of the head (ponytail_01 a child of head, each next one of the one
 * before; 2.8 in a bone, ponytail_06 the tip), and a third mesh "hair" on
 * them. No clips: the mannequin's clips drive its first 22 joints. */
#define MR_MQ_PONYTAIL_JOINTS 6
mr_status mr_mannequin_ponytail(mr_model **out);
/* The hair mesh along joints first .. first + count - 1 of sk (into *out). */
mr_status mr_mannequin_hair_mesh(const mr_skeleton *sk, int first, int count, mr_mesh *out);

#endif
