/* draw.h — connects a script context to the renderer (src/gfx). draw.c is
 * the only file where Lua meets the renderer's API: attaching registers its
 * drawing hooks in the context, and the bindings (wrap_draw.c) reach it
 * only through them.
 *
 * During draw() the script's drawing calls (marrow.draw, draw_skeleton,
 * line, text, ...) are recorded into buffers owned by the context (grown
 * when a frame needs more, never shrunk, so a steady scene allocates
 * nothing per frame). mr_lua_draw_render then starts a renderer frame with
 * the script's camera and lights (set anywhere during the frame), replays
 * the recording, overlays the console and the current error, ends the frame
 * and writes the screenshots the script asked for.
 *
 * One frame records at most MR_LUA_DRAW_MAX_CALLS drawing calls and
 * MR_LUA_DRAW_MAX_TRIANGLES model triangles: past either the call raises an
 * error (the renderer's work is outside the script's time budget, so it is
 * bounded here).
 *
 * Attached with r = NULL (unit tests) the calls are recorded exactly the
 * same and mr_lua_draw_render drops them (a screenshot asked for is an
 * error). Never attached (bench, a fuzzer without GL), the drawing calls are
 * checked and dropped, and marrow.screenshot raises "no renderer in this run".
 */
#ifndef MR_LUA_DRAW_H
#define MR_LUA_DRAW_H

#include <cglm/cglm.h>

#include "core/error.h"
#include "lua/script.h"

#define MR_LUA_DRAW_MAX_CALLS 10000
#define MR_LUA_DRAW_MAX_TRIANGLES 10000000

struct mr_renderer;
struct mr_model;

/* Attaches r (not owned; NULL: record without drawing). Models are uploaded on first draw
 * and released by mr_lua_ctx_destroy, so destroy the context before the
 * renderer, with its GL context current. */
void mr_lua_draw_attach(mr_lua_ctx *ctx, struct mr_renderer *r);

/* Renders what draw() recorded (see above). *skipped (may be NULL) is 1
 * when the frame was skipped as unchanged (below), else 0. Returns MR_OK, or
 * when a screenshot could not be written or the renderer failed its status
 * with the message in err (the first failure of the frame; every failure
 * is also shown as the context's error, see lua/script.h). */
mr_status mr_lua_draw_render(mr_lua_ctx *ctx, int *skipped, mr_error *err);

/* For windowed hosts (off by default: headless runs and tests render every
 * frame). With on, mr_lua_draw_render skips a frame whose recording, camera,
 * scene, frame size, console lines shown and error shown are the same as
 * those of the frame it rendered last, and no screenshot was asked for: the
 * renderer still holds that picture, so the host need not present anything
 * new. mr_lua_draw_invalidate makes the next frame render whatever (after a
 * shader or script reload). */
void mr_lua_draw_skip_unchanged(mr_lua_ctx *ctx, int on);
void mr_lua_draw_invalidate(mr_lua_ctx *ctx);

/* Drops what was recorded and the screenshots asked for, without rendering
 * (a frame that is not drawn: a hidden window). */
void mr_lua_draw_drop(mr_lua_ctx *ctx);

/* Screenshots written since the renderer was attached (a headless host
 * warns when a run wrote none: nothing else of it is seen). */
int mr_lua_draw_screenshots(const mr_lua_ctx *ctx);

/* 1 when the script asked for a marrow.screenshot this frame (the frame
 * must then be rendered), else 0. */
int mr_lua_draw_screenshots_pending(const mr_lua_ctx *ctx);

/* Number of model draws recorded in the last draw() (for tests). */
int mr_lua_draw_recorded(const mr_lua_ctx *ctx);

/* Pose watcher (the regression runner's pose goldens): while set, fn is
 * called for every model or skeleton draw as it is recorded, with the
 * model (owned by the cache, valid during the call) and its model-space
 * joint matrices (model->skeleton.joint_count of them; NULL for a model
 * drawn in its bind pose), and a model draw's morph weights (morph_count
 * of them in mr_draw_style's layout; NULL: the meshes' defaults; a
 * skeleton draw: NULL and -1, it draws none).
 * fn NULL stops watching. Costs nothing unset. */
typedef void (*mr_lua_draw_pose_fn)(void *ud, const struct mr_model *model, const mat4 *joints,
                                    const float *morph, int morph_count);
void mr_lua_draw_watch_poses(mr_lua_ctx *ctx, mr_lua_draw_pose_fn fn, void *ud);

/* Draw watcher (`marrow run --record`): as the pose watcher, and also given
 * the draw's world matrix (transform * display matrix); called for model
 * draws and for skeleton draws of models without meshes. fn NULL stops. */
typedef void (*mr_lua_draw_world_fn)(void *ud, const struct mr_model *model, const mat4 *joints, const mat4 world);
void mr_lua_draw_watch_draws(mr_lua_ctx *ctx, mr_lua_draw_world_fn fn, void *ud);

/* Pixel boxes {x0, y0, x1, y1} (inclusive, y down, 2 pixels added around
 * for the drop shadow) of the marrow.text strings drawn in the frame
 * rendered last; *boxes valid until the next render. Returns how many
 * (0 without a renderer or font). */
int mr_lua_draw_text_boxes(const mr_lua_ctx *ctx, const int (**boxes)[4]);

#endif
