/* frame.h — one frame of a running script, shared by `marrow run` and the
 * regression runner (src/testkit): update(dt), draw(),
 * then rendering (and the screenshots the script asked for). A frame whose
 * picture would be the last one again (nothing moved: see
 * mr_lua_draw_skip_unchanged) is neither rendered nor presented, so a still
 * scene costs almost nothing. How often frames run is the pacer's job
 * (platform/pacer.h). */
#ifndef MR_LUA_FRAME_H
#define MR_LUA_FRAME_H

#include "lua/script.h"

/* Runs update(dt), draw() and mr_lua_draw_render. With stop_on_error (headless
 * runs) the steps after a failing one are skipped. Returns MR_OK, or the
 * status of the first step that failed with its message in err (every
 * failure is also the context's error, see lua/script.h). The caller
 * presents the frame if it has a window, then calls mr_lua_end_frame. */
mr_status mr_lua_frame_run(mr_lua_ctx *ctx, double dt, int stop_on_error, mr_error *err);

/* A frame of the regression runner (src/testkit): update(dt) and draw()
 * always run, so what a script does in draw() (state it keeps, prints,
 * errors) happens on every frame as in `marrow run`; the recording is
 * rendered only when render is non-zero (a shot frame) or the script asked
 * for a marrow.screenshot, and dropped otherwise. Errors stop the frame as
 * with stop_on_error. Returns MR_OK, or a status with the message in err.
 * The caller then calls mr_lua_end_frame. */
mr_status mr_lua_frame_step(mr_lua_ctx *ctx, double dt, int render, mr_error *err);

/* A frame of a window: update(dt), draw(), render, each run whatever the
 * others did (errors are shown on screen, see lua/script.h). With
 * mr_lua_draw_skip_unchanged on, a frame equal to the last one is not
 * rendered again. Returns 1 when there is a new picture to present, 0 when
 * the renderer still holds the last one. */
int mr_lua_frame_window(mr_lua_ctx *ctx, double dt);

/* A frame of a window nobody can see: update(dt) only; nothing is drawn
 * and what update() recorded for drawing (or screenshots it asked for) is
 * dropped. Returns MR_OK, or update()'s status with the message in err.
 * The caller then calls mr_lua_end_frame. */
mr_status mr_lua_frame_hidden(mr_lua_ctx *ctx, double dt, mr_error *err);

#endif
