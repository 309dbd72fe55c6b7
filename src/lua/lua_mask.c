/* lua_mask.c — the mask userdata (per-joint layer weights), pose blending,
 * additive clips and clip markers for scripts.
 *
 *   model:mask{entry, ... [, subtree = true] [, weight = 1] [, invert = false]} -> mask
 *       each entry is a joint (name or 1-based index) or a table
 *       {joint, weight = w, subtree = bool, falloff = n}: the joint (and with
 *       subtree, default true, everything below it) gets weight; falloff = n
 *       ramps the weight down the chain instead: the joint gets w/n, the next
 *       joint 2w/n, ..., full w from the n-th joint on. Entries combine by
 *       maximum; invert gives 1 - w (the rest of the body). model:mask{} is
 *       all zeros, model:mask{invert = true} all ones.
 *   mask + mask (union: max), mask * mask (intersection: min), mask * number
 *       (scaled, clamped to 0..1), -mask or mask:invert() (1 - w): new masks
 *   marrow.mask_union(a, b, ...) -> mask
 *   #mask  mask:get(j) -> w  mask:set(j, w) -> mask (in place)  mask:copy()
 *   marrow.blend(out, {pose, w [, mask]}, ... [, mask]) -> out
 *       weighted blend (rest pose fills total weights below 0.1); a trailing
 *       mask applies to the layers that have none; out may be an input
 *   marrow.additive(clip, reference_pose | time) -> clip
 *       the delta of clip against a pose (or clip's own pose at that time),
 *       for an additive mixer track; the new clip is owned by the script
 *   clip:marker(t, name) -> clip   adds a named instant (the mixer reports it);
 *       adding the same name at the same time again does nothing (reloads)
 *   clip:markers() -> {{time =, name =}, ...}
 *
 * A mask's weights live in its userdata block; user value 1 = the model.
 */
#include <math.h>
#include <string.h>

#include "anim/blend.h"
#include "lua/lua_internal.h"

#define MAX_BLEND 32

mr_lua_mask *mr_lua_check_mask(lua_State *L, int arg, const mr_skeleton *sk)
{
    mr_lua_mask *m = luaL_checkudata(L, arg, MR_LUA_MASK);
    if (sk && m->mask.joint_count != sk->joint_count)
        luaL_argerror(L, arg, lua_pushfstring(L, "mask has %d joints, expected %d", m->mask.joint_count,
                                              sk->joint_count));
    return m;
}

/* New all-`fill` mask for the model at model_idx (or the same model as mask `like`). */
static mr_lua_mask *push_mask(lua_State *L, int model_idx, float fill)
{
    model_idx = lua_absindex(L, model_idx);
    mr_lua_model *mo = mr_lua_check_model(L, model_idx);
    int n = mo->model->skeleton.joint_count;
    mr_lua_mask *m = lua_newuserdatauv(L, sizeof *m + (size_t)n * sizeof(float), 1);
    m->mask.joint_count = n;
    m->mask.w = (float *)(m + 1);
    for (int j = 0; j < n; j++) m->mask.w[j] = fill;
    m->sk = &mo->model->skeleton;
    m->entry = mo->entry;
    luaL_setmetatable(L, MR_LUA_MASK);
    lua_pushvalue(L, model_idx);
    lua_setiuservalue(L, -2, 1);
    return m;
}

/* A new mask like the one at idx (same model), with its weights copied. */
static mr_lua_mask *push_copy(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    mr_lua_mask *src = mr_lua_check_mask(L, idx, NULL);
    lua_getiuservalue(L, idx, 1);
    mr_lua_mask *m = push_mask(L, -1, 0.0f);
    lua_remove(L, -2);
    memcpy(m->mask.w, src->mask.w, sizeof(float) * (size_t)src->mask.joint_count);
    return m;
}

static float check_weight(lua_State *L, int arg, int idx, const char *what)
{
    int isnum;
    lua_Number w = lua_tonumberx(L, idx, &isnum);
    if (!isnum || !(w >= 0 && w <= 1))
        luaL_argerror(L, arg, lua_pushfstring(L, "%s must be a number within 0..1, got %s", what,
                                              luaL_tolstring(L, idx, NULL)));
    return (float)w;
}

/* model:mask(spec) */
static int model_mask(lua_State *L)
{
    mr_lua_model *mo = mr_lua_check_model(L, 1);
    const mr_skeleton *sk = &mo->model->skeleton;
    if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    float weight = 1.0f;
    int subtree = 1, invert = 0;
    if (lua_istable(L, 2)) {
        if (lua_getfield(L, 2, "weight") != LUA_TNIL) weight = check_weight(L, 2, -1, "weight");
        lua_pop(L, 1);
        if (lua_getfield(L, 2, "subtree") != LUA_TNIL) subtree = lua_toboolean(L, -1);
        lua_pop(L, 1);
        if (lua_getfield(L, 2, "invert") != LUA_TNIL) invert = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    mr_lua_mask *out = push_mask(L, 1, 0.0f);     /* 3 */
    mr_lua_mask *tmp = push_mask(L, 1, 0.0f);     /* 4: one entry at a time */
    int n = lua_istable(L, 2) ? (int)luaL_len(L, 2) : 0;
    for (int i = 1; i <= n; i++) {
        lua_geti(L, 2, i);                        /* 5 */
        float w = weight;
        int sub = subtree, falloff = 0, j;
        if (lua_istable(L, 5)) {
            lua_geti(L, 5, 1);                    /* 6 */
            j = mr_lua_check_joint(L, 6, sk);
            lua_pop(L, 1);
            if (lua_getfield(L, 5, "weight") != LUA_TNIL) w = check_weight(L, 2, -1, "entry weight");
            lua_pop(L, 1);
            if (lua_getfield(L, 5, "subtree") != LUA_TNIL) sub = lua_toboolean(L, -1);
            lua_pop(L, 1);
            if (lua_getfield(L, 5, "falloff") != LUA_TNIL) {
                int isint;
                lua_Integer f = lua_tointegerx(L, -1, &isint);
                if (!isint || f < 1 || f > 1000)
                    luaL_argerror(L, 2, lua_pushfstring(L, "falloff must be a whole number of joints >= 1, got %s",
                                                        luaL_tolstring(L, -1, NULL)));
                falloff = (int)f;
            }
            lua_pop(L, 1);
        } else {
            j = mr_lua_check_joint(L, 5, sk);
        }
        mr_mask_fill(&tmp->mask, 0.0f);
        if (falloff > 0) mr_mask_ramp(&tmp->mask, sk, j, falloff, w / (float)falloff, w);
        else if (sub) mr_mask_set_subtree(&tmp->mask, sk, j, w);
        else tmp->mask.w[j] = w;
        mr_mask_union(&out->mask, &out->mask, &tmp->mask);
        lua_pop(L, 1);
    }
    if (invert) mr_mask_invert(&out->mask);
    lua_settop(L, 3);
    return 1;
}

static int mask_len(lua_State *L)
{
    lua_pushinteger(L, mr_lua_check_mask(L, 1, NULL)->mask.joint_count);
    return 1;
}

static int mask_tostring(lua_State *L)
{
    mr_lua_mask *m = mr_lua_check_mask(L, 1, NULL);
    int on = 0;
    for (int j = 0; j < m->mask.joint_count; j++) on += m->mask.w[j] > 0.0f;
    lua_pushfstring(L, "mask (%d of %d joints weighted)", on, m->mask.joint_count);
    return 1;
}

static int mask_get(lua_State *L)
{
    mr_lua_mask *m = mr_lua_check_mask(L, 1, NULL);
    lua_pushnumber(L, m->mask.w[mr_lua_check_joint(L, 2, m->sk)]);
    return 1;
}

static int mask_set(lua_State *L)
{
    mr_lua_mask *m = mr_lua_check_mask(L, 1, NULL);
    int j = mr_lua_check_joint(L, 2, m->sk);
    luaL_checknumber(L, 3);
    m->mask.w[j] = check_weight(L, 3, 3, "weight");
    lua_settop(L, 1);
    return 1;
}

static int mask_copy(lua_State *L)
{
    push_copy(L, 1);
    return 1;
}

static int mask_invert(lua_State *L)
{
    mr_lua_mask *m = push_copy(L, 1);
    mr_mask_invert(&m->mask);
    return 1;
}

static int mask_add(lua_State *L)
{
    mr_lua_mask *a = mr_lua_check_mask(L, 1, NULL);
    mr_lua_mask *b = mr_lua_check_mask(L, 2, a->sk);
    mr_lua_mask *m = push_copy(L, 1);
    mr_mask_union(&m->mask, &a->mask, &b->mask);
    return 1;
}

static int mask_mul(lua_State *L)
{
    if (lua_type(L, 1) == LUA_TNUMBER) lua_rotate(L, 1, 1);   /* number * mask */
    mr_lua_mask *a = mr_lua_check_mask(L, 1, NULL);
    if (lua_type(L, 2) == LUA_TNUMBER) {
        lua_Number f = lua_tonumber(L, 2);
        luaL_argcheck(L, f >= 0 && isfinite(f), 2, "scale must be a finite number >= 0");
        mr_lua_mask *m = push_copy(L, 1);
        mr_mask_scale(&m->mask, (float)f);
        return 1;
    }
    mr_lua_mask *b = mr_lua_check_mask(L, 2, a->sk);
    mr_lua_mask *m = push_copy(L, 1);
    mr_mask_intersect(&m->mask, &a->mask, &b->mask);
    return 1;
}

static int l_mask_union(lua_State *L)
{
    mr_lua_mask *a = mr_lua_check_mask(L, 1, NULL);
    int n = lua_gettop(L);
    for (int i = 2; i <= n; i++) mr_lua_check_mask(L, i, a->sk);
    mr_lua_mask *m = push_copy(L, 1);
    for (int i = 2; i <= n; i++) mr_mask_union(&m->mask, &m->mask, &mr_lua_check_mask(L, i, NULL)->mask);
    return 1;
}

/* ---- marrow.blend ------------------------------------------------------------------ */

static int l_blend(lua_State *L)
{
    mr_lua_pose *out = mr_lua_check_pose(L, 1);
    int top = lua_gettop(L);
    const mr_mask *shared = NULL;
    if (top >= 2 && luaL_testudata(L, top, MR_LUA_MASK)) {
        shared = &mr_lua_check_mask(L, top, out->sk)->mask;
        top--;
    }
    int n = top - 1;
    luaL_argcheck(L, n <= MAX_BLEND, MAX_BLEND + 2, "at most 32 poses");
    mr_blend_layer layers[MAX_BLEND];
    for (int i = 0; i < n; i++) {
        int arg = i + 2;
        luaL_checktype(L, arg, LUA_TTABLE);
        lua_geti(L, arg, 1);
        if (!luaL_testudata(L, -1, MR_LUA_POSE))
            luaL_argerror(L, arg, lua_pushfstring(L, "{pose, weight [, mask]} expected, [1] is a %s",
                                                  luaL_typename(L, -1)));
        mr_lua_pose *p = mr_lua_check_pose(L, -1);
        if (p->pose.joint_count != out->pose.joint_count)
            luaL_argerror(L, arg, lua_pushfstring(L, "pose has %d joints, expected %d", p->pose.joint_count,
                                                  out->pose.joint_count));
        lua_geti(L, arg, 2);
        int isnum;
        lua_Number w = lua_tonumberx(L, -1, &isnum);
        if (!isnum || !(w >= 0 && w <= 1e6))
            luaL_argerror(L, arg, lua_pushfstring(L, "weight must be a finite number >= 0, got %s",
                                                  luaL_tolstring(L, -1, NULL)));
        lua_geti(L, arg, 3);
        const mr_mask *mask = shared;
        if (!lua_isnil(L, -1)) mask = &mr_lua_check_mask(L, lua_gettop(L), out->sk)->mask;
        layers[i] = (mr_blend_layer){&p->pose, (float)w, mask};
        lua_pop(L, 3);                 /* pose, weight, mask */
    }
    mr_blend_job job = {out->sk, n ? layers : NULL, n, 0.0f, &out->pose};
    mr_error err = {0};
    mr_status st = mr_pose_blend(&job, &err);
    if (st != MR_OK) return luaL_error(L, "blend: %s", err.msg[0] ? err.msg : mr_status_string(st));
    out->model_valid = 0;
    lua_settop(L, 1);
    return 1;
}

/* ---- additive clips and markers ---------------------------------------------------- */

static int l_additive(lua_State *L)
{
    mr_lua_clip *c = mr_lua_check_clip(L, 1);
    lua_getiuservalue(L, 1, 1);        /* the model */
    int model_idx = lua_gettop(L);
    const mr_skeleton *sk = &mr_lua_check_model(L, model_idx)->model->skeleton;
    const mr_pose *ref = NULL;
    float ref_time = 0.0f;
    if (lua_type(L, 2) == LUA_TNUMBER) {
        lua_Number t = lua_tonumber(L, 2);
        luaL_argcheck(L, isfinite(t), 2, "time must be a finite number");
        ref_time = (float)t;
    } else if (luaL_testudata(L, 2, MR_LUA_POSE)) {
        mr_lua_pose *p = mr_lua_check_pose(L, 2);
        if (p->pose.joint_count != sk->joint_count)
            luaL_argerror(L, 2, lua_pushfstring(L, "pose has %d joints, expected %d", p->pose.joint_count,
                                                sk->joint_count));
        ref = &p->pose;
    } else if (!lua_isnoneornil(L, 2)) {
        return luaL_typeerror(L, 2, "pose or time");
    }
    mr_clip *out = NULL;
    mr_error err = {0};
    mr_status st = mr_clip_make_additive(c->clip, sk, ref, ref_time, &out, &err);
    if (st != MR_OK) return luaL_error(L, "additive: %s", err.msg[0] ? err.msg : mr_status_string(st));
    mr_clip_finish(out);
    mr_lua_push_owned_clip(L, model_idx, out);
    return 1;
}

static int clip_marker(lua_State *L)
{
    mr_lua_clip *c = mr_lua_check_clip(L, 1);
    lua_Number t = luaL_checknumber(L, 2);
    const char *name = luaL_checkstring(L, 3);
    mr_clip *clip = (mr_clip *)c->clip;  /* markers are added to the model's clip, once */
    luaL_argcheck(L, t >= 0 && t <= clip->duration, 2,
                  lua_pushfstring(L, "time must be within 0..%f", (double)clip->duration));
    luaL_argcheck(L, name[0], 3, "marker name must not be empty");
    for (int i = 0; i < clip->marker_count; i++)
        if (clip->markers[i].time == (float)t && !strcmp(clip->markers[i].name, name)) {
            lua_settop(L, 1);
            return 1;
        }
    mr_status st = mr_clip_add_marker(clip, (float)t, name);
    if (st != MR_OK) return luaL_error(L, "marker: %s", mr_status_string(st));
    lua_settop(L, 1);
    return 1;
}

static int clip_markers(lua_State *L)
{
    const mr_clip *c = mr_lua_check_clip(L, 1)->clip;
    lua_createtable(L, c->marker_count, 0);
    for (int i = 0; i < c->marker_count; i++) {
        lua_createtable(L, 0, 2);
        lua_pushnumber(L, c->markers[i].time);
        lua_setfield(L, -2, "time");
        lua_pushstring(L, c->markers[i].name);
        lua_setfield(L, -2, "name");
        lua_seti(L, -2, i + 1);
    }
    return 1;
}

/* ---- opener ------------------------------------------------------------------------- */

static const luaL_Reg mask_methods[] = {
    {"get", mask_get}, {"set", mask_set}, {"copy", mask_copy}, {"invert", mask_invert},
    {NULL, NULL},
};

static const luaL_Reg mask_meta[] = {
    {"__len", mask_len}, {"__tostring", mask_tostring}, {"__add", mask_add},
    {"__mul", mask_mul}, {"__unm", mask_invert},   {"__index", NULL},
    {NULL, NULL},
};

/* Adds f as method `name` of the type whose metatable is `type`. */
static void add_method(lua_State *L, const char *type, const char *name, lua_CFunction f)
{
    luaL_getmetatable(L, type);
    lua_getfield(L, -1, "__index");
    lua_pushcfunction(L, f);
    lua_setfield(L, -2, name);
    lua_pop(L, 2);
}

void mr_lua_open_mask(lua_State *L)
{
    luaL_newmetatable(L, MR_LUA_MASK);
    luaL_setfuncs(L, mask_meta, 0);
    luaL_newlib(L, mask_methods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    add_method(L, MR_LUA_MODEL, "mask", model_mask);
    add_method(L, MR_LUA_CLIP, "marker", clip_marker);
    add_method(L, MR_LUA_CLIP, "markers", clip_markers);
    lua_pushcfunction(L, l_mask_union);
    lua_setfield(L, -2, "mask_union");
    lua_pushcfunction(L, l_blend);
    lua_setfield(L, -2, "blend");
    lua_pushcfunction(L, l_additive);
    lua_setfield(L, -2, "additive");
}
