/* wrap_skeleton.c — the skeleton userdata (a view into a model) and all its
 * methods:
 *
 *   #sk  sk:joint(name | index) -> index  sk:find(name) -> index | nil
 *   sk:name(i) sk:parent(i) (0 for a root) sk:children(i) sk:names()
 *   sk:rest_pose() -> pose
 *
 * Joint indices are 1-based; a joint argument takes a name or an index and
 * an unknown name is answered with the closest names (udata.c). User value
 * 1 = the model userdata.
 */
#include "lua/wrap.h"

/* ---- methods ----------------------------------------------------------------- */

static int sk_len(lua_State *L)
{
    lua_pushinteger(L, mr_lua_check_skeleton(L, 1)->sk->joint_count);
    return 1;
}

static int sk_tostring(lua_State *L)
{
    const mr_skeleton *sk = mr_lua_check_skeleton(L, 1)->sk;
    lua_pushfstring(L, "skeleton (%d joints, root '%s')", sk->joint_count,
                    sk->joint_count ? sk->names[0] : "");
    return 1;
}

static int sk_gc(lua_State *L)
{
    (void)mr_lua_check_skeleton(L, 1);   /* a view: the model (user value) owns the data */
    return 0;
}

static int sk_joint(lua_State *L)
{
    const mr_skeleton *sk = mr_lua_check_skeleton(L, 1)->sk;
    lua_pushinteger(L, mr_lua_check_joint(L, 2, sk) + 1);
    return 1;
}

static int sk_find(lua_State *L)
{
    const mr_skeleton *sk = mr_lua_check_skeleton(L, 1)->sk;
    int j = mr_skeleton_find(sk, mr_lua_check_string(L, 2));
    if (j < 0) luaL_pushfail(L);
    else lua_pushinteger(L, j + 1);
    return 1;
}

static int sk_name(lua_State *L)
{
    const mr_skeleton *sk = mr_lua_check_skeleton(L, 1)->sk;
    lua_pushstring(L, sk->names[mr_lua_check_joint(L, 2, sk)]);
    return 1;
}

static int sk_parent(lua_State *L)
{
    const mr_skeleton *sk = mr_lua_check_skeleton(L, 1)->sk;
    lua_pushinteger(L, sk->parents[mr_lua_check_joint(L, 2, sk)] + 1);
    return 1;
}

static int sk_children(lua_State *L)
{
    const mr_skeleton *sk = mr_lua_check_skeleton(L, 1)->sk;
    int j = mr_lua_check_joint(L, 2, sk), n = 0;
    lua_newtable(L);
    for (int c = j + 1; c < sk->joint_count; c++)
        if (sk->parents[c] == j) {
            lua_pushinteger(L, c + 1);
            lua_seti(L, -2, ++n);
        }
    return 1;
}

static int sk_names(lua_State *L)
{
    const mr_skeleton *sk = mr_lua_check_skeleton(L, 1)->sk;
    lua_createtable(L, sk->joint_count, 0);
    for (int j = 0; j < sk->joint_count; j++) {
        lua_pushstring(L, sk->names[j]);
        lua_seti(L, -2, j + 1);
    }
    return 1;
}

static int sk_rest_pose(lua_State *L)
{
    mr_lua_check_skeleton(L, 1);
    lua_getiuservalue(L, 1, 1);        /* the model */
    mr_lua_push_pose(L, -1, NULL);
    return 1;
}

static const luaL_Reg sk_methods[] = {
    {"joint", sk_joint},       {"find", sk_find},   {"name", sk_name},
    {"parent", sk_parent},     {"children", sk_children}, {"names", sk_names},
    {"rest_pose", sk_rest_pose},
    {NULL, NULL},
};

static const luaL_Reg sk_meta[] = {
    {"__len", sk_len}, {"__tostring", sk_tostring}, {"__gc", sk_gc}, {"__index", NULL},
    {NULL, NULL},
};

void mr_lua_open_skeleton(lua_State *L)
{
    mr_lua_newtype(L, MR_LUA_SKELETON, sk_meta, sk_methods);
}
