/* frame.c — one frame of a script: update, draw, render (see frame.h). */
#include "lua/frame.h"

#include "lua/draw.h"

int mr_lua_frame_run(mr_lua_ctx *ctx, double dt, int stop_on_error)
{
    int failed = mr_lua_update(ctx, dt) != 0;
    if (!(failed && stop_on_error)) failed |= mr_lua_draw(ctx) != 0;
    if (!(failed && stop_on_error)) failed |= mr_lua_draw_render(ctx) < 0;
    return failed ? -1 : 0;
}

int mr_lua_frame_step(mr_lua_ctx *ctx, double dt, int render)
{
    if (mr_lua_update(ctx, dt) != 0 || mr_lua_draw(ctx) != 0) {
        mr_lua_draw_drop(ctx);
        return -1;
    }
    if (render || mr_lua_draw_screenshots_pending(ctx)) return mr_lua_draw_render(ctx) < 0 ? -1 : 0;
    mr_lua_draw_drop(ctx);
    return 0;
}

int mr_lua_frame_window(mr_lua_ctx *ctx, double dt)
{
    mr_lua_update(ctx, dt);
    mr_lua_draw(ctx);
    return mr_lua_draw_render(ctx) != 1;
}

int mr_lua_frame_hidden(mr_lua_ctx *ctx, double dt)
{
    int failed = mr_lua_update(ctx, dt) != 0;
    mr_lua_draw_drop(ctx);
    return failed ? -1 : 0;
}
