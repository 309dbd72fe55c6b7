/* frame.h — one frame of a running script, shared by `marrow run` and
 * `marrow test`: update(dt), draw(), then rendering (and the screenshots the
 * script asked for). */
#ifndef MR_APP_FRAME_H
#define MR_APP_FRAME_H

#include "lua/script.h"

/* Runs update(dt), draw() and mr_lua_gfx_render. With stop_on_error (headless
 * runs) the steps after a failing one are skipped. Returns 0, or -1 when a
 * step failed (the context's error says why). The caller presents the frame
 * if it has a window, then calls mr_lua_end_frame. */
int mr_app_frame(mr_lua_ctx *ctx, double dt, int stop_on_error);

#endif
