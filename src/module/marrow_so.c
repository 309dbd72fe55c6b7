/* marrow_so.c — the entry of marrow.so, the C module a plain Lua 5.4 loads
 * (`require "marrow"`; src/lua/module.c is its host), and its offscreen
 * renderer. It lives outside src/lua because rendering needs an EGL context
 * from src/platform.
 *
 * marrow.render() makes a headless EGL context and a renderer the first
 * time it is called (the size of marrow.window(): MR_DEFAULT_WIDTH x HEIGHT, core/defaults.h), attaches it to
 * the module's drawing, and renders what was drawn since the last render,
 * writing the screenshots asked for meanwhile. Without EGL it raises
 * "marrow.render: no OpenGL context (...)". The context and the renderer go
 * when the Lua state closes, after the module's context (its GPU models).
 */
#include <lauxlib.h>

#include "core/defaults.h"
#include "gfx/renderer.h"
#include "lua/draw.h"
#include "lua/script.h"
#include "lua/wrap.h"
#include "platform/window.h"

int luaopen_marrow(lua_State *L);

static void release(mr_lua_module *m)
{
    if (m->renderer) mr_renderer_destroy(m->renderer);
    if (m->win) mr_window_destroy(m->win);
    m->renderer = m->win = NULL;
}

static int render(lua_State *L)
{
    mr_lua_module *m = mr_lua_module_of(L);
    if (!m || !m->ctx) return luaL_error(L, "marrow.render: the module is closed");
    mr_error err = {0};
    if (!m->renderer && !m->tried) {
        m->tried = 1;
        int w = MR_DEFAULT_WIDTH, h = MR_DEFAULT_HEIGHT;
        mr_lua_host *host = mr_lua_host_of_ctx(m->ctx);
        if (host->width > 0 && host->height > 0) {
            w = host->width;
            h = host->height;
        }
        mr_window *win = NULL;
        mr_renderer *r = NULL;
        if (mr_window_create(&(mr_window_desc){.width = w, .height = h, .headless = 1}, &win, &err) == MR_OK &&
            mr_renderer_create(&(mr_renderer_desc){.width = w, .height = h, .quiet = 1}, &r, &err) == MR_OK) {
            m->win = win;
            m->renderer = r;
            mr_lua_draw_attach(m->ctx, r);
        } else if (win) {
            mr_window_destroy(win);
        }
        if (!m->renderer) {
            lua_pushfstring(L, "marrow.render: no OpenGL context (%s)", err.msg[0] ? err.msg : "EGL failed");
            lua_setfield(L, LUA_REGISTRYINDEX, "marrow.module.no_gl");
        }
    }
    if (!m->renderer) {
        lua_getfield(L, LUA_REGISTRYINDEX, "marrow.module.no_gl");
        return lua_error(L);
    }
    if (mr_lua_draw_render(m->ctx, NULL, &err) != MR_OK) return luaL_error(L, "marrow.render: %s", err.msg);
    return 0;
}

int luaopen_marrow(lua_State *L) { return mr_lua_module_open(L, render, release); }
