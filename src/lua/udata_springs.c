/* udata_springs.c — pushing a springs userdata (wrap.h), below the binding
 * files: wrap_springs.c makes them, transfer.c hands them to a reloaded script. */
#include "anim/springs.h"
#include "lua/wrap.h"

mr_lua_springs *mr_lua_push_springs(lua_State *L, int model_idx, mr_springs *s)
{
    model_idx = lua_absindex(L, model_idx);
    mr_lua_model *m = mr_lua_check_model(L, model_idx);
    mr_lua_springs *u = lua_newuserdatauv(L, sizeof *u, 1);
    u->s = NULL;                       /* closed until it holds s */
    luaL_setmetatable(L, MR_LUA_SPRINGS);
    lua_pushvalue(L, model_idx);
    lua_setiuservalue(L, -2, 1);
    u->s = s;
    u->sk = &m->model->skeleton;
    u->owner = m->model;
    return u;
}
