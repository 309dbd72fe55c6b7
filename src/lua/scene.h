/* scene.h — reads a regression scene's declaration, the global table
 * `scene` of a running script (see `marrow test`):
 *
 *   scene = { size = {320, 240}, fps = 30, frames = 60, shots = {0, 30, 59},
 *             tolerance = {threshold = 3, max_diff = 0.0005, max_aa = 0.01,
 *                          pose = 0.02, pose_angle = 0.05},
 *             ignore = {{250, 4, 66, 20}, "text"} }
 *
 * Every field but shots is optional; frames defaults to the last shot + 1.
 * Tolerance fields that are absent stay negative ("use the default"); pose
 * is in model units, pose_angle in degrees (testkit/pose_golden.h).
 * ignore lists pixel rectangles {x, y, w, h} (y down from the top row; cut
 * to the frame) left out of the image comparison, and the layer "text": the
 * boxes of every marrow.text string of the shot's frame.
 */
#ifndef MR_LUA_SCENE_H
#define MR_LUA_SCENE_H

#include <stddef.h>

#include "lua/script.h"

#define MR_SCENE_MAX_SHOTS 64
#define MR_SCENE_MAX_IGNORE 32

typedef struct mr_scene_decl {
    int width, height;              /* [320x240] */
    double fps;                     /* [30] */
    int frames;                     /* frames to run [last shot + 1] */
    int shots[MR_SCENE_MAX_SHOTS];  /* frame numbers, strictly increasing */
    int shot_count;
    int threshold;                  /* tolerance overrides; < 0 = not given */
    double max_diff, max_aa;
    double pose_tol, pose_angle;    /* model units, degrees; < 0 = not given */
    int ignore[MR_SCENE_MAX_IGNORE][4];  /* x, y, w, h */
    int ignore_count;
    int ignore_text;                /* "text" was listed in scene.ignore */
} mr_scene_decl;

/* Reads `scene` from the script's current state into *out. Returns MR_OK,
 * or with a one-line message in err naming the script and the bad field
 * ("scene.shots[2] = 95 is not below scene.frames = 90"): MR_ERR_BAD_FILE
 * for a bad field, MR_ERR_SCRIPT when reading raised a Lua error,
 * MR_ERR_INVALID_ARGUMENT when no script is running. */
mr_status mr_lua_scene_read(mr_lua_ctx *ctx, mr_scene_decl *out, mr_error *err);

#endif
