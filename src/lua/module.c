/* module.c — the host of the marrow C module for a plain Lua 5.4
 * (`lua5.4`, LuaRocks), and how every binding finds its host in either kind
 * of state.
 *
 *   LUA_CPATH='build/pic/?.so;;' lua5.4 -e 'local m = require "marrow"'
 *
 * luaopen_marrow (src/module/marrow_so.c, the one symbol marrow.so
 * exports) calls mr_lua_module_open, which makes a host context
 * (mr_lua_ctx, script.h) that never starts a script, so it has no sandbox:
 * no memory cap, no time budget, no restricted standard library, paths
 * relative to the working directory. Its address lives in a full userdata
 * (the sentinel) in the registry under a private key; the sentinel's __gc
 * destroys the context, and with it the model cache, when the state
 * closes. The sentinel is made before any marrow userdata, so it is
 * finalised after all of them. The module table is the one `marrow run`
 * preloads (mr_lua_open_marrow): the same functions, the same errors.
 * Drawing calls are recorded; marrow.render() hands them to the render
 * function luaopen_marrow gave (an offscreen EGL renderer made on first
 * use, outside src/lua since it needs src/platform).
 *
 * Bindings reach their host only through mr_lua_host_of and the other
 * mr_lua_host_* functions (wrap.h), never through
 * the sandbox directly: in a state made by sandbox.c these read the
 * sandbox; in a state with the sentinel, the module's context.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/path.h"
#include "core/version.h"
#include "lua/draw.h"
#include "lua/script.h"
#include "lua/wrap.h"

static const char host_key;        /* registry[&host_key] = the sentinel */
#define SENTINEL "marrow.host"

/* The module's context, or NULL in a sandboxed state (no sentinel there:
 * scripts cannot reach the registry). */
static mr_lua_ctx *module_ctx(lua_State *L)
{
    mr_lua_ctx *ctx = NULL;
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &host_key) == LUA_TUSERDATA) ctx = ((mr_lua_module *)lua_touserdata(L, -1))->ctx;
    lua_pop(L, 1);
    return ctx;
}

mr_lua_host *mr_lua_host_of(lua_State *L)
{
    mr_lua_ctx *ctx = module_ctx(L);
    return ctx ? mr_lua_host_of_ctx(ctx) : mr_lua_sandbox_user(L);
}

void mr_lua_host_resolve(lua_State *L, const char *path)
{
    if (module_ctx(L)) lua_pushstring(L, path);   /* plain Lua: as given, from the working directory */
    else mr_lua_sandbox_push_resolved(L, path);
}

double mr_lua_host_pause(lua_State *L) { return module_ctx(L) ? 0 : mr_lua_sandbox_pause(L); }

int mr_lua_host_charge_write(lua_State *L, long long bytes)
{
    return module_ctx(L) ? 0 : mr_lua_sandbox_charge_write(L, bytes, bytes < 0);
}

void mr_lua_host_resume(lua_State *L, double token)
{
    if (!module_ctx(L)) mr_lua_sandbox_resume(L, token);   /* plain Lua has no budget */
}

int mr_lua_host_stop(lua_State *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *why = lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    if (!module_ctx(L)) return mr_lua_sandbox_stop(L, why);
    luaL_where(L, 1);   /* plain Lua has no budget: only a signal's stop gets here */
    lua_pushfstring(L, "stopped %s", why);
    lua_concat(L, 2);
    return lua_error(L);
}

void mr_lua_host_loaded(lua_State *L, const char *path)
{
    if (!module_ctx(L)) mr_lua_sandbox_allow_read(L, path); /* plain Lua's io is not confined */
}

int mr_lua_host_write_path(lua_State *L, const char *path)
{
    if (!module_ctx(L)) return mr_lua_sandbox_push_write_path(L, path);
    lua_pushstring(L, path);           /* plain Lua's io is not confined either */
    char *dir = mr_path_dirname(path);
    if (dir) mr_file_mkdirs(dir, NULL);
    free(dir);
    return 1;
}

size_t mr_lua_host_heap(lua_State *L)
{
    if (!module_ctx(L)) return mr_lua_sandbox_memory(mr_lua_sandbox_of(L));
    return (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024 + (size_t)lua_gc(L, LUA_GCCOUNTB, 0);
}

static int release_host(lua_State *L)
{
    mr_lua_module *box = luaL_checkudata(L, 1, SENTINEL);
    mr_lua_ctx_destroy(box->ctx);      /* with the GL context (if any) still current */
    box->ctx = NULL;
    if (box->release) box->release(box);
    box->release = NULL;
    return 0;
}

mr_lua_module *mr_lua_module_of(lua_State *L)
{
    mr_lua_module *box = NULL;
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &host_key) == LUA_TUSERDATA) box = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return box;
}

int mr_lua_module_open(lua_State *L, int (*render)(lua_State *L), void (*release)(mr_lua_module *m))
{
    if (!module_ctx(L)) {
        mr_lua_module *box = lua_newuserdatauv(L, sizeof *box, 0);
        memset(box, 0, sizeof *box);   /* released state first, then the context */
        luaL_newmetatable(L, SENTINEL);
        lua_pushcfunction(L, release_host);
        lua_setfield(L, -2, "__gc");
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "__metatable");
        lua_setmetatable(L, -2);
        mr_lua_desc desc = {.script = "(lua)", .headless = 1, .scripts_dir = ".", .quiet = 1};
        if (mr_lua_ctx_create(&desc, &box->ctx) != MR_OK) return luaL_error(L, "marrow: no memory for its context");
        mr_lua_host *h = mr_lua_host_of_ctx(box->ctx);
        h->memory_limit = 0;           /* a program of one's own: no --memory */
        h->render_self = render;
        box->release = release;
        mr_lua_draw_attach(box->ctx, NULL);   /* drawing is recorded until marrow.render() has a renderer */
        lua_rawsetp(L, LUA_REGISTRYINDEX, &host_key);
    }
    lua_pushcfunction(L, mr_lua_open_marrow);
    lua_call(L, 0, 1);
    return 1;
}
