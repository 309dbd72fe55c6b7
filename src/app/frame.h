/* frame.h — one frame of a running script, shared by `marrow run` and
 * `marrow test`: update(dt), draw(), then rendering (and the screenshots the
 * script asked for); and the pacing of windowed frame loops (`marrow run`,
 * `marrow view`).
 *
 * Pacing. A window asks for vsync, but many setups do not honour it (Xvfb,
 * llvmpipe, some compositors), and a loop that never waits then renders as
 * fast as it can: a core or more for a window nobody is looking at. So a
 * windowed loop sleeps at the end of each frame until the frame's deadline:
 * deadlines are 1/cap apart (default cap 60 fps; --fps-cap N, 0 = none),
 * absolute (a frame that took longer is not made up for by a burst: the
 * next deadline then starts from now), and the sleep is a real sleep
 * (clock_nanosleep), never a spin. Where vsync works at 60 Hz or less the
 * swap already waits and the sleep is ~0. While the window cannot be seen
 * (hidden, minimised) the loop only polls events and files and runs
 * update() at MR_FRAME_IDLE_HZ, without drawing. And a frame whose
 * picture would be the last one again (nothing moved: see
 * mr_lua_gfx_skip_unchanged) is neither rendered nor presented, so a still
 * scene costs almost nothing. */
#ifndef MR_APP_FRAME_H
#define MR_APP_FRAME_H

#include "lua/script.h"

#define MR_FRAME_DEFAULT_CAP 60.0   /* frames per second when no --fps-cap is given */
#define MR_FRAME_IDLE_HZ 20.0       /* loop rate while the window cannot be seen */

/* Runs update(dt), draw() and mr_lua_gfx_render. With stop_on_error (headless
 * runs) the steps after a failing one are skipped. Returns 0, or -1 when a
 * step failed (the context's error says why). The caller presents the frame
 * if it has a window, then calls mr_lua_end_frame. */
int mr_app_frame(mr_lua_ctx *ctx, double dt, int stop_on_error);

/* A frame of a window: update(dt), draw(), render, each run whatever the
 * others did (errors are shown on screen, see lua/script.h). With
 * mr_lua_gfx_skip_unchanged on, a frame equal to the last one is not
 * rendered again. Returns 1 when there is a new picture to present, 0 when
 * the renderer still holds the last one. */
int mr_app_frame_window(mr_lua_ctx *ctx, double dt);

/* A frame of a window nobody can see: update(dt) only; nothing is drawn
 * and what update() recorded for drawing (or screenshots it asked for) is
 * dropped. Returns 0, or -1 when update() failed. The caller then calls
 * mr_lua_end_frame. */
int mr_app_frame_hidden(mr_lua_ctx *ctx, double dt);

typedef struct mr_pacer {
    double period;             /* seconds per frame when visible; 0 = uncapped */
    double next;               /* deadline of the frame being made */
} mr_pacer;

/* A pacer for cap frames per second (0: no cap), starting now. */
void mr_pacer_init(mr_pacer *p, double cap);
/* Ends a frame: sleeps until its deadline (see above) and sets the next one.
 * visible = 0 paces at MR_FRAME_IDLE_HZ whatever the cap. Returns early when
 * a stop was requested (platform/stop.h). */
void mr_pacer_wait(mr_pacer *p, int visible);

#endif
