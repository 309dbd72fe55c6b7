/* frame.c — one frame of a script: update, draw, render (see frame.h). */
#include "lua/frame.h"

#include "lua/draw.h"

/* Keeps the first failure of a frame: its status, and its message in err. */
static void keep_first(mr_status *first, mr_status st)
{
    if (*first == MR_OK) *first = st;
}

mr_status mr_lua_frame_run(mr_lua_ctx *ctx, double dt, int stop_on_error, mr_error *err)
{
    mr_status st = mr_lua_update(ctx, dt, err);
    if (!(st && stop_on_error)) keep_first(&st, mr_lua_draw(ctx, st ? NULL : err));
    if (!(st && stop_on_error)) keep_first(&st, mr_lua_draw_render(ctx, NULL, st ? NULL : err));
    return st;
}

mr_status mr_lua_frame_step(mr_lua_ctx *ctx, double dt, int render, mr_error *err)
{
    mr_status st = mr_lua_update(ctx, dt, err);
    if (st == MR_OK) st = mr_lua_draw(ctx, err);
    if (st != MR_OK) {
        mr_lua_draw_drop(ctx);
        return st;
    }
    if (render || mr_lua_draw_screenshots_pending(ctx)) return mr_lua_draw_render(ctx, NULL, err);
    mr_lua_draw_drop(ctx);
    return MR_OK;
}

int mr_lua_frame_window(mr_lua_ctx *ctx, double dt)
{
    mr_lua_update(ctx, dt, NULL);
    mr_lua_draw(ctx, NULL);
    int skipped = 0;
    mr_lua_draw_render(ctx, &skipped, NULL);
    return !skipped;
}

mr_status mr_lua_frame_hidden(mr_lua_ctx *ctx, double dt, mr_error *err)
{
    mr_status st = mr_lua_update(ctx, dt, err);
    mr_lua_draw_drop(ctx);
    return st;
}
