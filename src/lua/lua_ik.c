/* lua_ik.c — inverse kinematics on a pose (src/anim/ik.h), as pose methods:
 *
 *   pose:two_bone_ik(upper, mid, end, target [, opts]) -> reached
 *       turns upper and mid so that end lands on target (or points at it
 *       when out of reach). opts: pole (direction the middle joint bends
 *       toward; default: keep the pose's bend plane), soft (0..<1: eases the
 *       last fraction of the reach), weight (0..1, default 1), space, transform
 *   pose:aim(chain, target [, opts]) -> angle left (degrees)
 *       chain = {{"spine_03", 0.2}, {"neck", 0.3}, {"head", 0.5}}: joints
 *       root-most first, each an ancestor of the next, with their share of
 *       the turn (summing to <= 1) and optionally a per-joint limit in
 *       degrees as a third element. opts: forward (the last joint's aim axis
 *       in its own frame, default {1, 0, 0}: the mannequin faces +X), offset
 *       (aim origin in that frame, default its origin), limit (degrees for
 *       every joint without its own), weight, space, transform
 *
 * Targets (and the pole) are in model space by default (the pose's frame:
 * MD5 models in inches, Z up). With space = "world" they are world points
 * (Y-up metres, what marrow.draw and the camera use) and opts.transform is
 * where the model is drawn (the same mat4 given to marrow.draw, default
 * identity). Both edit only local rotations, so they compose with sampling,
 * blending and overrides; a mixer's on_pose callback is the usual place.
 */
#include <math.h>
#include <string.h>

#include "anim/attach.h"
#include "anim/ik.h"
#include "lua/lua_internal.h"

typedef struct ik_space {
    int world;
    mat4 to_world;           /* transform * display (world only) */
} ik_space;

static float opt_num(lua_State *L, int opts, const char *name, float def, double lo, double hi)
{
    float v = def;
    if (lua_isnoneornil(L, opts)) return v;
    if (lua_getfield(L, opts, name) != LUA_TNIL) {
        int isnum;
        lua_Number n = lua_tonumberx(L, -1, &isnum);
        if (!isnum || !(n >= lo && n <= hi))
            luaL_argerror(L, opts, lua_pushfstring(L, "opts.%s must be a number within %f..%f, got %s", name, lo,
                                                   hi, luaL_tolstring(L, -1, NULL)));
        v = (float)n;
    }
    lua_pop(L, 1);
    return v;
}

static ik_space check_space(lua_State *L, int opts, const mr_lua_pose *p)
{
    ik_space s = {0};
    glm_mat4_identity(s.to_world);
    if (lua_isnoneornil(L, opts)) return s;
    luaL_checktype(L, opts, LUA_TTABLE);
    if (lua_getfield(L, opts, "space") != LUA_TNIL) {
        const char *str = lua_tostring(L, -1);
        if (lua_type(L, -1) == LUA_TSTRING && !strcmp(str, "world")) s.world = 1;
        else if (!(lua_type(L, -1) == LUA_TSTRING && !strcmp(str, "model")))
            luaL_argerror(L, opts, lua_pushfstring(L, "opts.space must be 'model' or 'world', got %s",
                                                   luaL_tolstring(L, -1, NULL)));
    }
    lua_pop(L, 1);
    if (s.world) {
        mat4 t = GLM_MAT4_IDENTITY_INIT, d;
        if (lua_getfield(L, opts, "transform") != LUA_TNIL) {
            if (!luaL_testudata(L, -1, MR_LUA_MAT4))
                luaL_argerror(L, opts, lua_pushfstring(L, "opts.transform must be a mat4, got %s", luaL_typename(L, -1)));
            mr_lua_check_mat4(L, lua_gettop(L), t);
        }
        lua_pop(L, 1);
        mr_model_display_matrix(p->entry->model, d);
        glm_mat4_mul(t, d, s.to_world);
    }
    return s;
}

static void to_model_point(lua_State *L, int arg, const ik_space *s, vec3 out)
{
    float v[3];
    mr_lua_check_vec3(L, arg, v);
    if (!s->world) {
        glm_vec3_copy(v, out);
        return;
    }
    mat4 w;
    glm_mat4_copy((vec4 *)s->to_world, w);
    if (mr_attach_world_to_model(w, v, out) != MR_OK)
        luaL_argerror(L, arg, "target is not finite or the transform is not invertible");
}

static void to_model_dir(lua_State *L, int idx, const ik_space *s, vec3 out)
{
    float v[3];
    mr_lua_check_vec3(L, idx, v);
    if (!s->world) {
        glm_vec3_copy(v, out);
        return;
    }
    mat4 inv;
    glm_mat4_inv((vec4 *)s->to_world, inv);
    glm_mat4_mulv3(inv, v, 0.0f, out);
}

static int pose_two_bone_ik(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1);
    mr_two_bone_job job = {0};
    job.skeleton = p->sk;
    job.pose = &p->pose;
    job.start = mr_lua_check_joint(L, 2, p->sk);
    job.mid = mr_lua_check_joint(L, 3, p->sk);
    job.end = mr_lua_check_joint(L, 4, p->sk);
    ik_space s = check_space(L, 6, p);
    to_model_point(L, 5, &s, job.target);
    job.weight = opt_num(L, 6, "weight", 1.0f, 0, 1);
    job.soft = opt_num(L, 6, "soft", 0.0f, 0, 0.999);
    if (!lua_isnoneornil(L, 6)) {
        if (lua_getfield(L, 6, "pole") != LUA_TNIL) to_model_dir(L, lua_gettop(L), &s, job.pole);
        lua_pop(L, 1);
    }
    mr_error err = {0};
    mr_status st = mr_ik_two_bone(&job, &err);
    if (st != MR_OK) return luaL_error(L, "two_bone_ik: %s", err.msg[0] ? err.msg : mr_status_string(st));
    p->model_valid = 0;
    lua_pushboolean(L, job.reached);
    return 1;
}

static int pose_aim(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    int n = (int)luaL_len(L, 2);
    luaL_argcheck(L, n >= 1 && n <= MR_AIM_MAX_JOINTS, 2, "chain of 1 to 16 {joint, share} entries expected");
    ik_space s = check_space(L, 4, p);
    float limit = opt_num(L, 4, "limit", 180.0f, 0, 180);
    int joints[MR_AIM_MAX_JOINTS];
    float shares[MR_AIM_MAX_JOINTS], limits[MR_AIM_MAX_JOINTS];
    for (int i = 0; i < n; i++) {
        if (lua_geti(L, 2, i + 1) != LUA_TTABLE)
            luaL_argerror(L, 2, lua_pushfstring(L, "chain[%d] must be {joint, share [, limit]}", i + 1));
        int e = lua_gettop(L);
        lua_geti(L, e, 1);
        joints[i] = mr_lua_check_joint(L, lua_gettop(L), p->sk);
        lua_geti(L, e, 2);
        int isnum;
        lua_Number sh = lua_tonumberx(L, -1, &isnum);
        if (!isnum || !(sh >= 0 && sh <= 1))
            luaL_argerror(L, 2, lua_pushfstring(L, "chain[%d]: share must be a number within 0..1", i + 1));
        shares[i] = (float)sh;
        lua_geti(L, e, 3);
        lua_Number lim = lua_isnil(L, -1) ? limit : lua_tonumberx(L, -1, &isnum);
        if (!lua_isnil(L, -1) && (!isnum || !(lim >= 0 && lim <= 180)))
            luaL_argerror(L, 2, lua_pushfstring(L, "chain[%d]: limit must be degrees within 0..180", i + 1));
        limits[i] = glm_rad((float)lim);
        lua_settop(L, e - 1);
    }
    mr_aim_job job = {0};
    job.skeleton = p->sk;
    job.pose = &p->pose;
    job.joints = joints;
    job.shares = shares;
    job.limits = limits;
    job.count = n;
    to_model_point(L, 3, &s, job.target);
    job.forward[0] = 1.0f;
    job.weight = opt_num(L, 4, "weight", 1.0f, 0, 1);
    if (!lua_isnoneornil(L, 4)) {
        if (lua_getfield(L, 4, "forward") != LUA_TNIL) mr_lua_check_vec3(L, lua_gettop(L), job.forward);
        lua_pop(L, 1);
        if (lua_getfield(L, 4, "offset") != LUA_TNIL) mr_lua_check_vec3(L, lua_gettop(L), job.offset);
        lua_pop(L, 1);
    }
    mr_error err = {0};
    mr_status st = mr_ik_aim(&job, &err);
    if (st != MR_OK) return luaL_error(L, "aim: %s", err.msg[0] ? err.msg : mr_status_string(st));
    p->model_valid = 0;
    lua_pushnumber(L, glm_deg(job.error));
    return 1;
}

void mr_lua_open_ik(lua_State *L)
{
    luaL_getmetatable(L, MR_LUA_POSE);
    lua_getfield(L, -1, "__index");
    lua_pushcfunction(L, pose_two_bone_ik);
    lua_setfield(L, -2, "two_bone_ik");
    lua_pushcfunction(L, pose_aim);
    lua_setfield(L, -2, "aim");
    lua_pop(L, 2);
}
