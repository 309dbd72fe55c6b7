/* scene.h — runs one regression scene headless and hands over the
 * pixels of each declared shot (used by `marrow test`).
 *
 * The scene is run the way `marrow run --headless` runs a script (same Lua
 * context settings: fixed dt = 1/fps, simulated clock, seeded math.random;
 * same frame step, lua/frame.h), in a surfaceless EGL context, with the frame
 * size, fps, frame count and shot frames taken from the script's `scene`
 * table (lua/scene.h). The table is read after the main chunk and load() have
 * run, so marrow.window() reports the default size until then.
 * What the script prints, and its errors, go to stdout/stderr as in
 * `marrow run` (`marrow test` sends them to OUT/SCENE/log.txt).
 * On a shot's frame the poses drawn (every marrow.draw and draw_skeleton,
 * testkit/pose_golden.h) and the boxes of the text drawn are recorded too.
 */
#ifndef MR_TESTKIT_SCENE_H
#define MR_TESTKIT_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include "lua/scene.h"
#include "testkit/pose_golden.h"

/* What else a shot's frame drew (valid during the callback only). */
typedef struct mr_scene_shot_info {
    const mr_pose_shot *poses;    /* the poses drawn, in drawing order */
    const int (*text_boxes)[4];   /* marrow.text boxes: x0, y0, x1, y1 inclusive, y down */
    int text_box_count;
} mr_scene_shot_info;

/* Called once per shot, in order, with the frame's RGBA8 pixels (top row
 * first, valid during the call only). Return 0 to go on, non-zero to stop. */
typedef int (*mr_shot_fn)(void *ud, int shot, int frame, const uint8_t *rgba, int width, int height,
                          const mr_scene_shot_info *info);

/* Runs script with relative marrow.screenshot paths under out_dir (may be
 * NULL). *decl receives the scene declaration (shot_count 0 when it could
 * not be read). Returns 0, or -1 with a message in err: script errors
 * (with traceback), a bad `scene` table, no GL context, or a script that
 * quit before its last shot. */
int mr_scene_run(const char *script, const char *out_dir, mr_scene_decl *decl, mr_shot_fn fn, void *ud,
                 char *err, size_t err_size);

#endif
