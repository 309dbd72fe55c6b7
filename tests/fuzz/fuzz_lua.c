/* fuzz_lua.c — libFuzzer entry point for the Lua API (src/lua): random
 * calls with random arguments on loaded models, mixers, poses, masks,
 * blend spaces and math values. Built and run by `make fuzz` /
 * `make fuzz-smoke` (see fuzz.h).
 *
 * fuzz-seeds: luafuzz
 *
 * The input is not Lua source: tests/fuzz/fuzz_lua.lua reads it as a byte
 * stream that picks which function or method to call next, with which
 * arguments from a pool of values (the objects made so far, numbers such as
 * NaN, inf and 2^53, joint and clip names, option tables, functions that
 * call back into the API from event handlers and on_pose, ...). Lua errors
 * are the expected outcome of most calls; a crash, sanitizer report or leak
 * is a bug.
 *
 * One script context lives for the whole run, so the models are loaded once
 * (its cache); each input gets a fresh script state (mr_lua_start, one
 * update and draw, mr_lua_stop), as a live reload would. No renderer is
 * attached: the drawing calls are checked and recorded, then dropped
 * (draw.h), so no GL context is needed.
 */
#define FUZZ_OWN_INIT
#include "fuzz.h"
#include "lua/draw.h"
#include "lua/wrap.h"

#ifndef MR_FUZZ_ROOT
#define MR_FUZZ_ROOT "."
#endif

static mr_lua_ctx *ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* The models the driver loads (its arg[1..]). */
    char *args[] = {MR_FUZZ_ROOT "/models/mannequin.md5mesh", MR_FUZZ_ROOT "/models/mannequin.dae",
                    MR_FUZZ_ROOT "/models/sword.md5mesh"};
    mr_lua_desc d = {
        .script = MR_FUZZ_ROOT "/tests/fuzz/fuzz_lua.lua",
        .argc = 3,
        .argv = args,
        .headless = 1,
        .memory_limit = (size_t)64 << 20,
        .budget = 2.0,
        .scripts_dir = MR_FUZZ_ROOT "/scripts",
        .quiet = 1,
    };
    mr_lua_ctx_create(&d, &ctx);
    if (!ctx) abort();
    return 0;
}

static int set_input(lua_State *L)
{
    lua_pushlstring(L, lua_touserdata(L, 1), (size_t)lua_tointeger(L, 2));
    lua_setglobal(L, "FUZZ");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (mr_lua_start(ctx, NULL) != MR_OK) {
        /* load() of the driver itself failed: the harness is broken. */
        fprintf(stderr, "fuzz_lua: %s\n", mr_lua_error(ctx) ? mr_lua_error(ctx) : "start failed");
        abort();
    }
    lua_State *L = mr_lua_current_state(ctx);
    lua_pushcfunction(L, set_input);
    lua_pushlightuserdata(L, (void *)data);
    lua_pushinteger(L, (lua_Integer)size);
    if (lua_pcall(L, 2, 0, 0) != LUA_OK) lua_pop(L, 1);
    mr_lua_update(ctx, 1.0 / 30, NULL);
    mr_lua_draw(ctx, NULL);
    mr_lua_draw_render(ctx, NULL, NULL);
    mr_lua_end_frame(ctx);
    mr_lua_stop(ctx);
    mr_lua_set_error(ctx, NULL);
    return 0;
}
