/* frame.c — one frame of a script: update, draw, render (see frame.h). */
#include "app/frame.h"

#include "lua/draw.h"

int mr_app_frame(mr_lua_ctx *ctx, double dt, int stop_on_error)
{
    int failed = mr_lua_update(ctx, dt) != 0;
    if (!(failed && stop_on_error)) failed |= mr_lua_draw(ctx) != 0;
    if (!(failed && stop_on_error)) failed |= mr_lua_gfx_render(ctx) != 0;
    return failed ? -1 : 0;
}
