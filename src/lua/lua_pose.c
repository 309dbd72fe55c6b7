/* lua_pose.c — marrow.pose and the pose userdata: local TRS per joint,
 * lazily computed model-space matrices, blending, and the bone overrides.
 *
 *   marrow.pose(skeleton | model | pose) -> pose (rest pose, or a copy)
 *   #pose  :copy()  :set(other)  :rest()  :skeleton()
 *   :get_local(j) -> t, r, s       (also reachable as pose["local"](pose, j))
 *   :set_local(j, t, r, s)         nil keeps that part
 *   :model(j) -> mat4              model-space, computed once per change
 *   :position(j) -> vec3           model-space joint position
 *   :blend(other, w)               this = lerp/nlerp(this, other, w), in place
 *   :rotate(j, quat, opts)  :translate(j, vec3, opts)  :scale(j, vec3|number, opts)
 *   :set_rotation(j, quat, opts)  :set_translation(j, vec3, opts)
 *       opts.weight 0..1 [1], opts.space "local" | "model" ["local"],
 *       opts.mode "add" | "replace" [add; replace for set_*]
 *   :close() (also __gc/__close) frees the arrays; using it afterwards raises
 *   "attempt to use a closed pose".
 *
 * Mutating methods return the pose, so calls chain. Overrides go through
 * src/anim/override.h and apply to the local pose, so children follow; they
 * are meant to run after sampling and blending, before the pose is drawn.
 */
#include <stdint.h>
#include <string.h>

#include "anim/override.h"
#include "lua/lua_internal.h"

mr_lua_pose *mr_lua_check_pose(lua_State *L, int arg)
{
    mr_lua_pose *p = luaL_checkudata(L, arg, MR_LUA_POSE);
    if (!p->pose.t) luaL_error(L, "attempt to use a closed pose");
    return p;
}

static int pose_release(lua_State *L)
{
    mr_lua_pose *p = luaL_checkudata(L, 1, MR_LUA_POSE);
    p->pose.t = NULL;                  /* the arrays live in the userdata itself */
    p->pose.r = NULL;
    p->pose.s = NULL;
    p->model = NULL;
    p->model_valid = 0;
    return 0;
}

/* A pose's arrays live inside its userdata block, so they come from the
 * script's capped allocator and the GC sees their true size. Rotations and
 * matrices need 16-byte alignment (cglm SIMD); Lua aligns userdata to 8, so
 * the block has 15 spare bytes to align the arrays. */
static size_t pose_bytes(int n)
{
    return sizeof(mr_lua_pose) + 15 + (size_t)n * (sizeof(versor) + sizeof(mat4) + 2 * sizeof(vec3));
}

mr_lua_pose *mr_lua_push_pose(lua_State *L, int model_idx, const mr_pose *src)
{
    model_idx = lua_absindex(L, model_idx);
    mr_lua_model *m = mr_lua_check_model(L, model_idx);
    const mr_skeleton *sk = &m->model->skeleton;
    int n = sk->joint_count;
    mr_lua_pose *p = lua_newuserdatauv(L, pose_bytes(n), 1);
    memset(p, 0, sizeof *p);           /* released state until the arrays are set */
    luaL_setmetatable(L, MR_LUA_POSE);
    lua_pushvalue(L, model_idx);
    lua_setiuservalue(L, -2, 1);
    uintptr_t base = ((uintptr_t)(p + 1) + 15) & ~(uintptr_t)15;
    p->pose.r = (versor *)base;
    p->model = (mat4 *)(base + (size_t)n * sizeof(versor));
    p->pose.t = (vec3 *)((char *)p->model + (size_t)n * sizeof(mat4));
    p->pose.s = p->pose.t + n;
    p->pose.joint_count = n;
    p->sk = sk;
    p->entry = m->entry;
    if (src) mr_pose_copy(&p->pose, src);
    else mr_pose_set_rest(&p->pose, sk);
    return p;
}

const mat4 *mr_lua_pose_model(mr_lua_pose *p)
{
    if (!p->model_valid) {
        mr_pose_to_model(p->sk, &p->pose, p->model);
        p->model_valid = 1;
    }
    return (const mat4 *)p->model;
}

/* marrow.pose(skeleton | model | pose) */
static int l_pose(lua_State *L)
{
    if (luaL_testudata(L, 1, MR_LUA_POSE)) {
        mr_lua_pose *src = mr_lua_check_pose(L, 1);
        lua_getiuservalue(L, 1, 1);
        mr_lua_push_pose(L, -1, &src->pose);
    } else if (luaL_testudata(L, 1, MR_LUA_SKELETON)) {
        lua_getiuservalue(L, 1, 1);
        mr_lua_push_pose(L, -1, NULL);
    } else if (luaL_testudata(L, 1, MR_LUA_MODEL)) {
        mr_lua_push_pose(L, 1, NULL);
    } else {
        return luaL_typeerror(L, 1, "skeleton, model or pose");
    }
    return 1;
}

static int pose_len(lua_State *L)
{
    lua_pushinteger(L, mr_lua_check_pose(L, 1)->pose.joint_count);
    return 1;
}

static int pose_tostring(lua_State *L)
{
    mr_lua_pose *p = luaL_checkudata(L, 1, MR_LUA_POSE);
    if (!p->pose.t) lua_pushliteral(L, "pose (closed)");
    else lua_pushfstring(L, "pose (%d joints)", p->pose.joint_count);
    return 1;
}

static int pose_copy(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1);
    lua_getiuservalue(L, 1, 1);
    mr_lua_push_pose(L, -1, &p->pose);
    return 1;
}

static void check_same(lua_State *L, mr_lua_pose *a, mr_lua_pose *b, int arg)
{
    if (a->pose.joint_count != b->pose.joint_count)
        luaL_argerror(L, arg, lua_pushfstring(L, "pose has %d joints, expected %d",
                                              b->pose.joint_count, a->pose.joint_count));
}

static int pose_set(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1), *o = mr_lua_check_pose(L, 2);
    check_same(L, p, o, 2);
    mr_pose_copy(&p->pose, &o->pose);
    p->model_valid = 0;
    lua_settop(L, 1);
    return 1;
}

static int pose_rest(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1);
    mr_pose_set_rest(&p->pose, p->sk);
    p->model_valid = 0;
    lua_settop(L, 1);
    return 1;
}

static int pose_skeleton(lua_State *L)
{
    mr_lua_check_pose(L, 1);
    lua_getiuservalue(L, 1, 1);
    mr_lua_push_skeleton(L, -1);
    return 1;
}

static int pose_get_local(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1);
    int j = mr_lua_check_joint(L, 2, p->sk);
    mr_lua_push_vec3(L, p->pose.t[j]);
    mr_lua_push_quat(L, p->pose.r[j]);
    mr_lua_push_vec3(L, p->pose.s[j]);
    return 3;
}

static int pose_set_local(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1);
    int j = mr_lua_check_joint(L, 2, p->sk);
    float t[3], r[4], s[3];
    if (!lua_isnoneornil(L, 3)) mr_lua_check_vec3(L, 3, t);
    if (!lua_isnoneornil(L, 4)) {
        mr_lua_check_quat(L, 4, r);
        float n = sqrtf(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
        luaL_argcheck(L, n > 1e-12f && isfinite(n), 3, "rotation must be a non-zero finite quat");
        for (int k = 0; k < 4; k++) r[k] /= n;
    }
    if (lua_isnumber(L, 5)) s[0] = s[1] = s[2] = (float)lua_tonumber(L, 5);
    else if (!lua_isnoneornil(L, 5)) mr_lua_check_vec3(L, 5, s);
    /* Write only after every argument checked out. */
    if (!lua_isnoneornil(L, 3)) memcpy(p->pose.t[j], t, sizeof t);
    if (!lua_isnoneornil(L, 4)) memcpy(p->pose.r[j], r, sizeof r);
    if (!lua_isnoneornil(L, 5)) memcpy(p->pose.s[j], s, sizeof s);
    p->model_valid = 0;
    lua_settop(L, 1);
    return 1;
}

static int pose_model(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1);
    int j = mr_lua_check_joint(L, 2, p->sk);
    mr_lua_push_mat4(L, mr_lua_pose_model(p)[j]);
    return 1;
}

static int pose_position(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1);
    int j = mr_lua_check_joint(L, 2, p->sk);
    mr_lua_push_vec3(L, mr_lua_pose_model(p)[j][3]);
    return 1;
}

static int pose_blend(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1), *o = mr_lua_check_pose(L, 2);
    check_same(L, p, o, 2);
    lua_Number w = luaL_checknumber(L, 3);
    luaL_argcheck(L, w >= 0.0 && w <= 1.0, 3, "weight must be within 0..1");
    float fw = (float)w;
    if (fw == 1.0f) mr_pose_copy(&p->pose, &o->pose);  /* the ends are exact */
    for (int j = 0; fw > 0.0f && fw < 1.0f && j < p->pose.joint_count; j++) {
        glm_vec3_lerp(p->pose.t[j], o->pose.t[j], fw, p->pose.t[j]);
        glm_vec3_lerp(p->pose.s[j], o->pose.s[j], fw, p->pose.s[j]);
        mr_quat_nlerp(p->pose.r[j], o->pose.r[j], fw, p->pose.r[j]);
    }
    p->model_valid = 0;
    lua_settop(L, 1);
    return 1;
}

/* ---- overrides ------------------------------------------------------------------ */

typedef struct override_opts {
    float weight;
    mr_space space;
    mr_override_mode mode;
} override_opts;

/* Reads opts at arg (nil or a table). */
static override_opts check_opts(lua_State *L, int arg, mr_override_mode default_mode, int allow_model)
{
    override_opts o = {1.0f, MR_SPACE_LOCAL, default_mode};
    if (lua_isnoneornil(L, arg)) return o;
    luaL_checktype(L, arg, LUA_TTABLE);
    if (lua_getfield(L, arg, "weight") != LUA_TNIL) {
        int isnum;
        lua_Number w = lua_tonumberx(L, -1, &isnum);
        if (!isnum || !(w >= 0.0 && w <= 1.0))
            luaL_argerror(L, arg, lua_pushfstring(L, "opts.weight must be a number within 0..1, got %s",
                                                  luaL_tolstring(L, -1, NULL)));
        o.weight = (float)w;
    }
    lua_pop(L, 1);
    if (lua_getfield(L, arg, "space") != LUA_TNIL) {
        const char *s = lua_tostring(L, -1);
        if (s && !strcmp(s, "local")) o.space = MR_SPACE_LOCAL;
        else if (s && !strcmp(s, "model") && allow_model) o.space = MR_SPACE_MODEL;
        else
            luaL_argerror(L, arg, lua_pushfstring(L, allow_model
                                                         ? "opts.space must be 'local' or 'model', got %s"
                                                         : "opts.space must be 'local' here, got %s",
                                                  luaL_tolstring(L, -1, NULL)));
    }
    lua_pop(L, 1);
    if (lua_getfield(L, arg, "mode") != LUA_TNIL) {
        const char *s = lua_tostring(L, -1);
        if (s && !strcmp(s, "add")) o.mode = MR_OVERRIDE_ADD;
        else if (s && !strcmp(s, "replace")) o.mode = MR_OVERRIDE_REPLACE;
        else
            luaL_argerror(L, arg, lua_pushfstring(L, "opts.mode must be 'add' or 'replace', got %s",
                                                  luaL_tolstring(L, -1, NULL)));
    }
    lua_pop(L, 1);
    return o;
}

static int override_result(lua_State *L, mr_status st, const char *what)
{
    if (st != MR_OK)
        return luaL_error(L, "%s: %s (non-finite value?)", what, mr_status_string(st));
    lua_settop(L, 1);
    return 1;
}

static int do_rotate(lua_State *L, mr_override_mode mode)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1);
    int j = mr_lua_check_joint(L, 2, p->sk);
    float q[4];
    mr_lua_check_quat(L, 3, q);
    override_opts o = check_opts(L, 4, mode, 1);
    mr_status st = mr_pose_override_rotation(p->sk, &p->pose, j, q, o.space, o.mode, o.weight);
    p->model_valid = 0;
    return override_result(L, st, "rotation override");
}

static int do_translate(lua_State *L, mr_override_mode mode)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1);
    int j = mr_lua_check_joint(L, 2, p->sk);
    float v[3];
    mr_lua_check_vec3(L, 3, v);
    override_opts o = check_opts(L, 4, mode, 1);
    mr_status st = mr_pose_override_translation(p->sk, &p->pose, j, v, o.space, o.mode, o.weight);
    p->model_valid = 0;
    return override_result(L, st, "translation override");
}

static int pose_rotate(lua_State *L) { return do_rotate(L, MR_OVERRIDE_ADD); }
static int pose_set_rotation(lua_State *L) { return do_rotate(L, MR_OVERRIDE_REPLACE); }
static int pose_translate(lua_State *L) { return do_translate(L, MR_OVERRIDE_ADD); }
static int pose_set_translation(lua_State *L) { return do_translate(L, MR_OVERRIDE_REPLACE); }

static int pose_scale(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1);
    int j = mr_lua_check_joint(L, 2, p->sk);
    float s[3];
    if (lua_isnumber(L, 3)) s[0] = s[1] = s[2] = (float)lua_tonumber(L, 3);
    else mr_lua_check_vec3(L, 3, s);
    override_opts o = check_opts(L, 4, MR_OVERRIDE_ADD, 0);
    mr_status st = mr_pose_override_scale(p->sk, &p->pose, j, s, o.mode, o.weight);
    p->model_valid = 0;
    return override_result(L, st, "scale override");
}

static const luaL_Reg pose_methods[] = {
    {"copy", pose_copy},
    {"set", pose_set},
    {"rest", pose_rest},
    {"skeleton", pose_skeleton},
    {"get_local", pose_get_local},
    {"local", pose_get_local},
    {"set_local", pose_set_local},
    {"model", pose_model},
    {"position", pose_position},
    {"blend", pose_blend},
    {"rotate", pose_rotate},
    {"set_rotation", pose_set_rotation},
    {"translate", pose_translate},
    {"set_translation", pose_set_translation},
    {"scale", pose_scale},
    {"close", pose_release},
    {NULL, NULL},
};

static const luaL_Reg pose_meta[] = {
    {"__gc", pose_release}, {"__close", pose_release}, {"__len", pose_len},
    {"__tostring", pose_tostring}, {"__index", NULL},
    {NULL, NULL},
};

void mr_lua_open_pose(lua_State *L)
{
    luaL_newmetatable(L, MR_LUA_POSE);
    luaL_setfuncs(L, pose_meta, 0);
    luaL_newlib(L, pose_methods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    lua_pushcfunction(L, l_pose);
    lua_setfield(L, -2, "pose");
}
