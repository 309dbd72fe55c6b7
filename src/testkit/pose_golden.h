/* pose_golden.h — pose goldens of `marrow test`: the model-space joint
 * transforms of every pose a shot's frame drew, written beside the golden
 * image as NAME.golden/FRAME.pose.json and compared with a tolerance in
 * model units, so a failure can say which joints moved and by how much
 * ("hand_l moved 4.1 cm, lowerarm_l 2.0 cm; upperarm_l turned 2.0°").
 *
 * Poses come from the CPU animation code, not the GPU: a pose golden passes
 * or fails the same on every machine. Numbers are written with 6
 * significant digits (well under the default tolerance), one joint a line:
 *
 *   {"marrow_pose": 1, "frame": 16, "draws": [
 *    {"model": "mannequin.md5mesh", "metres_per_unit": 0.0254, "joints": {
 *     "pelvis": [0, 38.2, 0.5, 0, 0, 0, 1],
 *     "hand_l": [17.1, 30.4, 2.2, 0.1, 0, 0.3, 0.94, 1, 1, 1.2]
 *    }}
 *   ]}
 *
 * A joint is [x, y, z, qx, qy, qz, qw] (position and rotation in model
 * space, qw >= 0), followed by its scale x, y, z when that is not 1. A draw
 * is one marrow.draw or marrow.draw_skeleton call of the frame (a draw whose
 * model and pose equal an earlier one's is listed once); draws are matched
 * by order, joints by name. The model is named by its file name only, so
 * goldens do not depend on where the checkout lives.
 *
 * A model with morph targets (anim/morph.h) adds its weights, one per
 * target name (the first mesh's where meshes share a name), after the
 * joints: ..., "joints": {...}, "morph": {"smile": 0.7, "blink": 0}}.
 * Weights compare within MR_POSE_MORPH_TOL; a draw without morph targets
 * writes no "morph" (files of such models are as before).
 */
#ifndef MR_TESTKIT_POSE_GOLDEN_H
#define MR_TESTKIT_POSE_GOLDEN_H

#include <stddef.h>

#include <cglm/cglm.h>

#include "anim/model.h"
#include "core/error.h"

#define MR_POSE_DEFAULT_METRES 0.0005  /* default tolerance: 0.5 mm, in each model's units */
#define MR_POSE_DEFAULT_ANGLE 0.05     /* degrees */
#define MR_POSE_SCALE_TOL 0.001        /* relative scale difference */
#define MR_POSE_MORPH_TOL 0.0001       /* morph weight difference */
#define MR_POSE_FILE_MAX (64u << 20)   /* bytes a pose golden may have */

typedef struct mr_pose_joint {
    char *name;
    float v[10];             /* position, rotation (x, y, z, w), scale */
} mr_pose_joint;

typedef struct mr_pose_draw {
    char *model;             /* file name of the model */
    double metres_per_unit;  /* of the model (0: unknown) */
    int joint_count;
    mr_pose_joint *joints;
    int morph_count;         /* morph target names and their weights (owned) */
    char **morph_names;
    float *morph;
} mr_pose_draw;

/* The poses drawn in one shot's frame. Zero-filled = empty. */
typedef struct mr_pose_shot {
    int draw_count, draw_cap;
    mr_pose_draw *draws;
} mr_pose_shot;

typedef struct mr_pose_tol {
    double distance;         /* model units; < 0 = MR_POSE_DEFAULT_METRES in each model's units */
    double angle;            /* degrees; < 0 = MR_POSE_DEFAULT_ANGLE */
} mr_pose_tol;

void mr_pose_shot_deinit(mr_pose_shot *s);
/* Empties s, keeping nothing. */
void mr_pose_shot_clear(mr_pose_shot *s);

/* Appends the pose of one draw of model: joints are its model-space joint
 * matrices (skeleton.joint_count of them), NULL for the bind pose. A draw
 * equal to one already in s is not added again. */
mr_status mr_pose_shot_add(mr_pose_shot *s, const mr_model *model, const mat4 *joints, mr_error *err);
/* The same with the draw's morph weights: morph_count floats in
 * mr_draw_style's layout (every mesh's targets in mesh order), or NULL for
 * the meshes' default weights; morph_count < 0 records none (a skeleton
 * draw; mr_pose_shot_add too). Recorded one per target name. A draw whose
 * joints equal an earlier one's is listed once, with the weights of the
 * one that has them. */
mr_status mr_pose_shot_add_morph(mr_pose_shot *s, const mr_model *model, const mat4 *joints, const float *morph,
                                 int morph_count, mr_error *err);

/* Writes s as the pose file of frame (format above), through
 * mr_file_write (a fresh temporary file renamed into place). */
mr_status mr_pose_shot_write(const mr_pose_shot *s, int frame, const char *path, mr_error *err);
/* The same as `name` inside the folder dirfd (mr_file_write_at: no link
 * followed); shown names it in messages. */
mr_status mr_pose_shot_write_at(const mr_pose_shot *s, int frame, int dirfd, const char *name, const char *shown,
                                mr_error *err);

/* Reads a pose file into s (which must be empty). Errors name the file, the
 * line and what was expected there; MR_ERR_IO when it cannot be opened. */
mr_status mr_pose_shot_read(mr_pose_shot *s, const char *path, mr_error *err);
/* The same for `name` inside the folder dirfd, read with mr_file_read_at:
 * a link, a FIFO, a device or a file over MR_POSE_FILE_MAX bytes is refused
 * (MR_ERR_BAD_FILE / MR_ERR_LIMIT) without reading what it points to;
 * MR_ERR_IO only when it is missing. */
mr_status mr_pose_shot_read_at(mr_pose_shot *s, int dirfd, const char *name, const char *shown, mr_error *err);

/* Compares actual with expected under tol (NULL: defaults). Returns 1 when
 * they match; msg receives one line either way: "poses match (2 drawn, 80
 * joints)" or what differs, the joints that moved most first:
 * "pose of mannequin.md5mesh differs in 9 of 41 joints: hand_l moved 4.1 cm,
 * lowerarm_l 2.0 cm; upperarm_l turned 2.0°". */
int mr_pose_shot_compare(const mr_pose_shot *expected, const mr_pose_shot *actual, const mr_pose_tol *tol,
                         char *msg, size_t msg_size);

#endif
