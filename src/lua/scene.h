/* scene.h — reads a regression scene's declaration, the global table
 * `scene` of a running script (see `marrow test`):
 *
 *   scene = { size = {320, 240}, fps = 30, frames = 60, shots = {0, 30, 59},
 *             tolerance = {threshold = 3, max_diff = 0.0005, max_aa = 0.01} }
 *
 * Every field but shots is optional; frames defaults to the last shot + 1.
 * Tolerance fields that are absent stay negative ("use the default").
 */
#ifndef MR_LUA_SCENE_H
#define MR_LUA_SCENE_H

#include <stddef.h>

#include "lua/script.h"

#define MR_SCENE_MAX_SHOTS 64

typedef struct mr_scene_decl {
    int width, height;              /* [320x240] */
    double fps;                     /* [30] */
    int frames;                     /* frames to run [last shot + 1] */
    int shots[MR_SCENE_MAX_SHOTS];  /* frame numbers, strictly increasing */
    int shot_count;
    int threshold;                  /* tolerance overrides; < 0 = not given */
    double max_diff, max_aa;
} mr_scene_decl;

/* Reads `scene` from the script's current state into *out. Returns 0, or -1
 * with a one-line message in err naming the script and the bad field
 * ("scene.shots[2] = 95 is not below scene.frames = 90"). */
int mr_lua_scene_read(mr_lua_ctx *ctx, mr_scene_decl *out, char *err, size_t err_size);

#endif
