/* frame.c — one frame of a script: update, draw, render; and frame pacing
 * (see frame.h). */
#include "app/frame.h"

#include "lua/draw.h"
#include "platform/window.h"

int mr_app_frame(mr_lua_ctx *ctx, double dt, int stop_on_error)
{
    int failed = mr_lua_update(ctx, dt) != 0;
    if (!(failed && stop_on_error)) failed |= mr_lua_draw(ctx) != 0;
    if (!(failed && stop_on_error)) failed |= mr_lua_gfx_render(ctx) < 0;
    return failed ? -1 : 0;
}

int mr_app_frame_window(mr_lua_ctx *ctx, double dt)
{
    mr_lua_update(ctx, dt);
    mr_lua_draw(ctx);
    return mr_lua_gfx_render(ctx) != 1;
}

int mr_app_frame_hidden(mr_lua_ctx *ctx, double dt)
{
    int failed = mr_lua_update(ctx, dt) != 0;
    mr_lua_gfx_drop(ctx);
    return failed ? -1 : 0;
}

void mr_pacer_init(mr_pacer *p, double cap)
{
    p->period = cap > 0 ? 1.0 / cap : 0;
    p->next = mr_time_now();
}

void mr_pacer_wait(mr_pacer *p, int visible)
{
    double period = visible ? p->period : 1.0 / MR_FRAME_IDLE_HZ;
    double now = mr_time_now();
    p->next += period;
    if (p->next < now) p->next = now;  /* late: no burst to catch up */
    mr_sleep_until(p->next);
}
