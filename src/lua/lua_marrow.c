/* lua_marrow.c — the `marrow` module opener (preloaded: require "marrow")
 * and its small functions that are not about one type:
 *
 *   marrow.time()      simulated seconds since the start (fixed steps headless)
 *   marrow.frame()     frame number, 0 in the first frame
 *   marrow.window()    width, height of the frame in pixels
 *   marrow.headless()  true when running headless
 *   marrow.quit([code])  ends the run after this frame (os.exit does the same)
 *   marrow.version
 *
 * The types live in lua_math.c (vec3, quat, mat4), lua_model.c (model,
 * skeleton, clip), lua_pose.c (pose) and lua_draw.c (drawing).
 */
#include "lua/lua_internal.h"

static int l_time(lua_State *L)
{
    lua_pushnumber(L, mr_lua_state_of(L)->ctx->time);
    return 1;
}

static int l_frame(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)mr_lua_state_of(L)->ctx->frame);
    return 1;
}

static int l_window(lua_State *L)
{
    mr_lua_ctx *ctx = mr_lua_state_of(L)->ctx;
    lua_pushinteger(L, ctx->width);
    lua_pushinteger(L, ctx->height);
    return 2;
}

static int l_headless(lua_State *L)
{
    lua_pushboolean(L, mr_lua_state_of(L)->ctx->desc.headless);
    return 1;
}

static int l_quit(lua_State *L)
{
    mr_lua_ctx *ctx = mr_lua_state_of(L)->ctx;
    ctx->quit = 1;
    ctx->quit_code = (int)luaL_optinteger(L, 1, 0);
    return 0;
}

static const luaL_Reg funcs[] = {
    {"time", l_time}, {"frame", l_frame}, {"window", l_window}, {"headless", l_headless},
    {"quit", l_quit},
    {NULL, NULL},
};

int luaopen_marrow(lua_State *L)
{
    luaL_newlib(L, funcs);
    lua_pushliteral(L, "marrow 0.1");
    lua_setfield(L, -2, "version");
    mr_lua_open_math(L);
    mr_lua_open_model(L);
    mr_lua_open_pose(L);
    mr_lua_open_draw(L);
    mr_lua_open_mask(L);
    mr_lua_open_blendspace(L);
    mr_lua_open_mixer(L);
    mr_lua_open_ik(L);
    return 1;
}
