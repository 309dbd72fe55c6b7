/* scene.h — runs regression scenes headless and hands over the pixels of
 * each declared shot (used by `marrow test`).
 *
 * A scene is run the way `marrow run --headless` runs a script (same Lua
 * context settings: fixed dt = 1/fps, simulated clock, seeded math.random),
 * in a surfaceless EGL context, with the frame size, fps, frame count and
 * shot frames taken from the script's `scene` table (lua/scene.h). The table
 * is read after the main chunk and load() have run, so marrow.window()
 * reports the default size until then.
 * What the script prints, and its errors, go to stdout/stderr as in
 * `marrow run` (`marrow test` sends them to OUT/SCENE/log.txt).
 *
 * Frames: every frame runs update(dt) and draw(), so whatever a script does
 * in draw() (state it keeps there, prints, errors) happens exactly as in
 * `marrow run`. Only the shot frames, and frames in which the script called
 * marrow.screenshot, are rendered (lua/frame.h, mr_lua_frame_step): the
 * renderer keeps no state from one frame to the next, so a shot's pixels do
 * not depend on the frames before it being rendered, and skipping them
 * saves most of a scene's GPU work.
 *
 * Runners: a runner holds the GL context and the renderer (its compiled
 * shaders and llvmpipe's JIT code) for several scenes run one after another
 * in one process; each scene gets a fresh Lua context, and its models are
 * released when it ends. The renderer is resized to each scene's size and
 * keeps no picture state between frames, so a scene renders the same pixels
 * first in a fresh process or after other scenes. A scene that crashes takes
 * the process with it: `marrow test` runs runners in worker processes and
 * replaces a worker that died.
 *
 * On a shot's frame the poses drawn (every marrow.draw and draw_skeleton,
 * testkit/pose_golden.h) and the boxes of the text drawn are recorded too.
 */
#ifndef MR_TESTKIT_SCENE_H
#define MR_TESTKIT_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
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

typedef struct mr_scene_runner mr_scene_runner;

/* Opens a headless GL context and creates the renderer (compiling its
 * shaders). Fails (err says why) without a headless context or when the
 * shaders do not build. The calling thread must have no GL context current;
 * destroy the runner on the same thread. */
mr_status mr_scene_runner_create(mr_scene_runner **out, mr_error *err);
void mr_scene_runner_destroy(mr_scene_runner *runner);

/* Runs script with relative marrow.screenshot paths under out_dir (may be
 * NULL). *decl receives the scene declaration (shot_count 0 when it could
 * not be read). Returns MR_OK, or a status with the message in err: a
 * script error (its status, lua/script.h; the message with traceback), a
 * bad `scene` table (MR_ERR_BAD_FILE), a script that quit before its last
 * shot (MR_ERR_SCRIPT), a renderer failure (its status), MR_ERR_NO_MEMORY,
 * or fn asking to stop (MR_ERR_LIMIT). err holds what fits an mr_error;
 * mr_scene_runner_message gives the whole text. The runner stays usable
 * after a failed scene. */
mr_status mr_scene_runner_run(mr_scene_runner *runner, const char *script, const char *out_dir,
                              mr_scene_decl *decl, mr_shot_fn fn, void *ud, mr_error *err);
/* The whole message of the last failed run ("" after one that passed), a
 * script error's traceback included. Owned by the runner, valid until its
 * next run. */
const char *mr_scene_runner_message(const mr_scene_runner *runner);

/* One scene in a runner of its own (created and destroyed around it);
 * statuses as mr_scene_runner_run, the message cut to fit err. */
mr_status mr_scene_run(const char *script, const char *out_dir, mr_scene_decl *decl, mr_shot_fn fn, void *ud,
                       mr_error *err);

#endif
