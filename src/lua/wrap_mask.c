/* wrap_mask.c — the mask userdata (per-joint layer weights) with all its
 * methods, and marrow.mask_union. model:mask{...} (wrap_model.c) makes one.
 *
 *   mask + mask (union: max), mask * mask (intersection: min), mask * number
 *       (scaled, clamped to 0..1), -mask or mask:invert() (1 - w): new masks
 *   marrow.mask_union(a, b, ...) -> mask
 *   #mask  mask:get(j) -> w  mask:set(j, w) -> mask (in place)  mask:copy()
 *
 * A mask's weights live in its userdata block; user value 1 = the model.
 */
#include <math.h>
#include <string.h>

#include "lua/wrap.h"

/* A new mask like the one at idx (same model), with its weights copied. */
static mr_lua_mask *push_copy(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    mr_lua_mask *src = mr_lua_check_mask(L, idx, NULL);
    lua_getiuservalue(L, idx, 1);
    mr_lua_mask *m = mr_lua_push_mask(L, -1, 0.0f);
    lua_remove(L, -2);
    memcpy(m->mask.w, src->mask.w, sizeof(float) * (size_t)src->mask.joint_count);
    return m;
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
    m->mask.w[j] = (float)mr_lua_check_range(L, 3, "weight", 0, 1);
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
        mr_lua_arg_check(L, f >= 0 && isfinite(f), 2, "scale must be a finite number >= 0");
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

static const luaL_Reg mask_methods[] = {
    {"get", mask_get}, {"set", mask_set}, {"copy", mask_copy}, {"invert", mask_invert},
    {NULL, NULL},
};

static const luaL_Reg mask_meta[] = {
    {"__len", mask_len}, {"__tostring", mask_tostring}, {"__add", mask_add},
    {"__mul", mask_mul}, {"__unm", mask_invert},   {"__index", NULL},
    {NULL, NULL},
};

void mr_lua_open_mask(lua_State *L)
{
    mr_lua_newtype(L, MR_LUA_MASK, mask_meta, mask_methods);
    mr_lua_pushfunc(L, l_mask_union, "marrow.mask_union", 0);
    lua_setfield(L, -2, "mask_union");
}
