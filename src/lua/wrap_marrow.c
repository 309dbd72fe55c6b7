/* wrap_marrow.c — the `marrow` module opener (preloaded: require "marrow")
 * and its small functions that are not about one type:
 *
 *   marrow.time()      simulated seconds since the start (fixed steps headless)
 *   marrow.frame()     frame number, 0 in the first frame
 *   marrow.window()    width, height of the frame in pixels
 *   marrow.headless()  true when running headless
 *   marrow.quit([code])  ends the run after this frame (os.exit does the same)
 *   marrow.version
 *
 * Each type's functions and methods are in its wrap_<type>.c (wrap.h lists
 * them); the opener calls each file's opener once.
 */
#include "core/version.h"
#include "lua/wrap.h"

static int l_time(lua_State *L)
{
    lua_pushnumber(L, mr_lua_host_of(L)->time);
    return 1;
}

static int l_frame(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)mr_lua_host_of(L)->frame);
    return 1;
}

static int l_window(lua_State *L)
{
    mr_lua_host *h = mr_lua_host_of(L);
    lua_pushinteger(L, h->width);
    lua_pushinteger(L, h->height);
    return 2;
}

static int l_headless(lua_State *L)
{
    lua_pushboolean(L, mr_lua_host_of(L)->headless);
    return 1;
}

static int l_quit(lua_State *L)
{
    mr_lua_host *h = mr_lua_host_of(L);
    h->quit = 1;
    h->quit_code = (int)mr_lua_opt_integer(L, 1, 0);
    return 0;
}

static const luaL_Reg funcs[] = {
    {"time", l_time}, {"frame", l_frame}, {"window", l_window}, {"headless", l_headless},
    {"quit", l_quit},
    {NULL, NULL},
};

int mr_lua_open_marrow(lua_State *L)
{
    lua_newtable(L);
    mr_lua_setfuncs(L, "marrow.", funcs);
    lua_pushliteral(L, "marrow " MR_VERSION);
    lua_setfield(L, -2, "version");
    mr_lua_open_math(L);
    mr_lua_open_model(L);
    mr_lua_open_skeleton(L);
    mr_lua_open_clip(L);
    mr_lua_open_authoring(L);
    mr_lua_open_pose(L);
    mr_lua_open_mask(L);
    mr_lua_open_blendspace(L);
    mr_lua_open_mixer(L);
    mr_lua_open_draw(L);
    mr_lua_open_springs(L);
    mr_lua_open_recorder(L);
    mr_lua_open_ikbody(L);
    mr_lua_open_save(L);
    return 1;
}
