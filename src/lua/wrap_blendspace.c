/* wrap_blendspace.c — the blend space userdata (src/anim/blendspace.h) with
 * all its methods, and marrow.blendspace1d/2d.
 *
 *   marrow.blendspace1d(model, {{clip, x}, ...}) -> blendspace
 *   marrow.blendspace2d(model, {{clip, x, y}, ...}) -> blendspace
 *       clips of the model's skeleton placed at parameter values (1D: e.g.
 *       speed: idle 0, walk 1.5, run 4; 2D: velocities), at most 16
 *   bs:weights(param) -> {w1, w2, ...}   param: a number (1D) or {x, y} (2D)
 *   bs:duration(param) -> seconds        the blended cycle length
 *   bs:sample(param, phase, pose) -> pose
 *       every clip at the same normalised phase (0..1, wrapped) times its
 *       duration, blended by the weights at param: feet stay in step
 *   #bs (number of clips)   bs:dims()
 *   A mixer track plays one with track:play_blendspace(bs, x [, y] [, opts])
 *   and moves its parameter with track:set_param(x [, y]).
 *
 * User values (layout in wrap.h): 1 = the model, 2 = the list of clip
 * userdata (kept alive), 3 = a scratch pose for sampling.
 */
#include <math.h>
#include <string.h>

#include "anim/blendspace.h"
#include "lua/wrap.h"

static mr_lua_blendspace *check_bs(lua_State *L, int arg) { return mr_lua_check_blendspace(L, arg, NULL); }

static int make(lua_State *L, int dims)
{
    mr_lua_model *mo = mr_lua_check_model(L, 1);
    const mr_skeleton *sk = &mo->model->skeleton;
    mr_lua_check_type(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    mr_lua_blendspace *b = lua_newuserdatauv(L, sizeof *b, 3);   /* 3 */
    memset(b, 0, sizeof *b);
    b->sk = sk;
    mr_blendspace_init(&b->bs, dims);
    luaL_setmetatable(L, MR_LUA_BLENDSPACE);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, 3, 1);
    lua_newtable(L);                   /* 4: clips */
    int n = (int)luaL_len(L, 2);
    mr_lua_arg_check(L, n >= 1 && n <= MR_BLENDSPACE_MAX, 2, "1 to 16 clips expected");
    for (int i = 1; i <= n; i++) {
        if (lua_geti(L, 2, i) != LUA_TTABLE)                          /* 5 */
            mr_lua_arg_error(L, 2, lua_pushfstring(L, dims == 1 ? "entry %d: {clip, x} expected"
                                                             : "entry %d: {clip, x, y} expected", i));
        lua_geti(L, 5, 1);                                            /* 6 */
        if (!luaL_testudata(L, 6, MR_LUA_CLIP))
            mr_lua_arg_error(L, 2, lua_pushfstring(L, "entry %d: clip expected, got %s", i, luaL_typename(L, 6)));
        const mr_clip *c = mr_lua_check_clip(L, 6)->clip;
        if (c->joint_count != sk->joint_count)
            mr_lua_arg_error(L, 2, lua_pushfstring(L, "entry %d: clip '%s' animates %d joints, the model has %d", i,
                                                c->name, c->joint_count, sk->joint_count));
        float p[2] = {0, 0};
        for (int k = 0; k < dims; k++) {
            lua_geti(L, 5, 2 + k);
            int isnum;
            lua_Number v = lua_tonumberx(L, -1, &isnum);
            if (!isnum || !isfinite(v))
                mr_lua_arg_error(L, 2, lua_pushfstring(L, "entry %d: parameter %d must be a finite number", i, k + 1));
            p[k] = (float)v;
            lua_pop(L, 1);
        }
        mr_status st = mr_blendspace_add(&b->bs, c, p[0], p[1]);
        if (st != MR_OK)
            mr_lua_arg_error(L, 2, lua_pushfstring(L, "entry %d: %s (a point already taken?)", i, mr_status_string(st)));
        lua_seti(L, 4, i);             /* the clip userdata */
        lua_pop(L, 1);
    }
    mr_error err = {0};
    if (mr_blendspace_validate(&b->bs, sk, &err) != MR_OK) return mr_lua_raise(L, "%s", err.msg);
    lua_setiuservalue(L, 3, 2);
    mr_lua_push_pose(L, 1, NULL);
    lua_setiuservalue(L, 3, 3);
    return 1;
}

static int l_blendspace1d(lua_State *L) { return make(L, 1); }
static int l_blendspace2d(lua_State *L) { return make(L, 2); }

static void check_param(lua_State *L, int arg, const mr_lua_blendspace *b, float *x, float *y)
{
    *x = *y = 0;
    if (b->bs.dims == 1 && lua_type(L, arg) == LUA_TNUMBER) {
        *x = (float)lua_tonumber(L, arg);
    } else if (b->bs.dims == 2 && lua_istable(L, arg)) {
        lua_geti(L, arg, 1);
        lua_geti(L, arg, 2);
        *x = (float)lua_tonumber(L, -2);
        *y = (float)lua_tonumber(L, -1);
        if (!lua_isnumber(L, -2) || !lua_isnumber(L, -1)) mr_lua_arg_error(L, arg, "{x, y} expected");
        lua_pop(L, 2);
    } else {
        mr_lua_type_error(L, arg, b->bs.dims == 1 ? "number" : "{x, y}");
    }
    mr_lua_arg_check(L, isfinite(*x) && isfinite(*y), arg, "parameters must be finite");
}

static int bs_weights(lua_State *L)
{
    mr_lua_blendspace *b = check_bs(L, 1);
    float x, y, w[MR_BLENDSPACE_MAX];
    check_param(L, 2, b, &x, &y);
    mr_blendspace_weights(&b->bs, x, y, w);
    lua_createtable(L, b->bs.count, 0);
    for (int i = 0; i < b->bs.count; i++) {
        lua_pushnumber(L, w[i]);
        lua_seti(L, -2, i + 1);
    }
    return 1;
}

static int bs_duration(lua_State *L)
{
    mr_lua_blendspace *b = check_bs(L, 1);
    float x, y, w[MR_BLENDSPACE_MAX];
    check_param(L, 2, b, &x, &y);
    mr_blendspace_weights(&b->bs, x, y, w);
    lua_pushnumber(L, mr_blendspace_duration(&b->bs, w));
    return 1;
}

static int bs_sample(lua_State *L)
{
    mr_lua_blendspace *b = check_bs(L, 1);
    float x, y, w[MR_BLENDSPACE_MAX];
    check_param(L, 2, b, &x, &y);
    lua_Number phase = mr_lua_check_number(L, 3);
    mr_lua_arg_check(L, isfinite(phase), 3, "phase must be a finite number");
    mr_lua_pose *p = mr_lua_check_pose_of(L, 4, b->sk);
    lua_getiuservalue(L, 1, 3);
    mr_lua_pose *scratch = lua_touserdata(L, -1);
    lua_pop(L, 1);
    mr_blendspace_weights(&b->bs, x, y, w);
    mr_status st = mr_blendspace_sample(&b->bs, b->sk, w, (float)phase, &scratch->pose, &p->pose);
    if (st != MR_OK) return mr_lua_raise(L, "%s", mr_status_string(st));
    p->model_valid = 0;
    lua_settop(L, 4);
    return 1;
}

static int bs_len(lua_State *L)
{
    lua_pushinteger(L, check_bs(L, 1)->bs.count);
    return 1;
}

static int bs_dims(lua_State *L)
{
    lua_pushinteger(L, check_bs(L, 1)->bs.dims);
    return 1;
}

static int bs_tostring(lua_State *L)
{
    mr_lua_blendspace *b = check_bs(L, 1);
    lua_pushfstring(L, "blendspace (%dD, %d clips)", b->bs.dims, b->bs.count);
    return 1;
}

static const luaL_Reg bs_methods[] = {
    {"weights", bs_weights}, {"duration", bs_duration}, {"sample", bs_sample}, {"dims", bs_dims},
    {NULL, NULL},
};

static const luaL_Reg bs_meta[] = {
    {"__len", bs_len}, {"__tostring", bs_tostring}, {"__index", NULL},
    {NULL, NULL},
};

void mr_lua_open_blendspace(lua_State *L)
{
    mr_lua_newtype(L, MR_LUA_BLENDSPACE, bs_meta, bs_methods);
    static const luaL_Reg funcs[] = {
        {"blendspace1d", l_blendspace1d}, {"blendspace2d", l_blendspace2d},
        {NULL, NULL},
    };
    mr_lua_setfuncs(L, "marrow.", funcs);
}
