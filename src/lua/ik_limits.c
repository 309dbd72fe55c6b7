/* ik_limits.c — reading opts.limits, the joint limits of chain and body IK
 * (see ik_limits.h). */
#include <math.h>
#include <string.h>

#include "core/str.h"
#include "lua/ik_limits.h"

/* A joint named by the key at -1 of opts.limits (a name or a 1-based index). */
static int limit_joint(lua_State *L, const mr_lua_opts *o, const mr_skeleton *sk)
{
    if (lua_type(L, -1) == LUA_TNUMBER) {
        int isint;
        lua_Integer i = lua_tointegerx(L, -1, &isint);
        if (isint && i >= 1 && i <= sk->joint_count) return (int)i - 1;
        mr_lua_arg_error(L, o->arg, lua_pushfstring(L, "%s.limits: joint index %s out of range 1..%d", o->name,
                                                    mr_lua_describe(L, -1), sk->joint_count));
    }
    if (lua_type(L, -1) != LUA_TSTRING)
        mr_lua_arg_error(L, o->arg, lua_pushfstring(L, "%s.limits: keys must be joint names, got %s", o->name,
                                                    mr_lua_describe(L, -1)));
    const char *name = lua_tostring(L, -1);
    int j = mr_skeleton_find(sk, name);
    if (j >= 0) return j;
    int c = mr_str_closest(name, (const char *const *)sk->names, sk->joint_count, 4);
    return mr_lua_arg_error(L, o->arg, lua_pushfstring(L, "%s.limits: unknown joint '%s'%s%s%s", o->name, name,
                                                       c >= 0 ? "; did you mean '" : "", c >= 0 ? sk->names[c] : "",
                                                       c >= 0 ? "'?" : ""));
}

/* A number field of the limit table at t, degrees within lo..hi, as radians. */
static float limit_deg(lua_State *L, const mr_lua_opts *o, int t, const char *joint, const char *key, double lo,
                       double hi, int required)
{
    lua_getfield(L, t, key);
    int isnum;
    lua_Number v = lua_tonumberx(L, -1, &isnum);
    if (lua_isnil(L, -1) && !required) {
        lua_pop(L, 1);
        return 0.0f;
    }
    if (!isnum || lua_type(L, -1) != LUA_TNUMBER || !(v >= lo && v <= hi))
        mr_lua_arg_error(L, o->arg, lua_pushfstring(L, "%s.limits['%s'].%s must be degrees within %d..%d, got %s",
                                                    o->name, joint, key, (int)lo, (int)hi, mr_lua_describe(L, -1)));
    lua_pop(L, 1);
    return glm_rad((float)v);
}

void mr_lua_ik_limits(lua_State *L, const mr_lua_opts *o, const mr_skeleton *sk, const int *chain, int n,
                      mr_ik_limit *lim)
{
    memset(lim, 0, sizeof(*lim) * (size_t)n);
    int t = mr_lua_opt_field(L, o, "limits");
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    if (t != LUA_TTABLE) mr_lua_opt_error(L, o, "limits", "a table keyed by joint", lua_gettop(L));
    int tab = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, tab)) {
        int val = lua_gettop(L);
        lua_pushvalue(L, val - 1);
        int j = limit_joint(L, o, sk);
        lua_pop(L, 1);
        const char *jn = sk->names[j];
        int k = 0;
        while (k < n && chain[k] != j) k++;
        if (k == n)
            mr_lua_arg_error(L, o->arg, lua_pushfstring(L, "%s.limits: joint '%s' is not on the chain", o->name, jn));
        if (lua_type(L, val) != LUA_TTABLE)
            mr_lua_arg_error(L, o->arg, lua_pushfstring(L, "%s.limits['%s'] must be {cone = deg [, twist = {min, max}]}"
                                                        " or {hinge = vec3, min = deg, max = deg}, got %s",
                                                        o->name, jn, mr_lua_describe(L, val)));
        mr_ik_limit *l = &lim[k];
        lua_pushnil(L);
        while (lua_next(L, val)) {
            lua_pop(L, 1);
            const char *key = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
            if (strcmp(key, "cone") && strcmp(key, "twist") && strcmp(key, "hinge") && strcmp(key, "min") &&
                strcmp(key, "max"))
                mr_lua_arg_error(L, o->arg, lua_pushfstring(L, "%s.limits['%s'] has key %s; expected cone, twist,"
                                                            " hinge, min, max", o->name, jn, mr_lua_describe(L, -1)));
        }
        lua_getfield(L, val, "hinge");
        int hinge = !lua_isnil(L, -1);
        if (hinge) {
            if (!mr_lua_to_vec3(L, lua_gettop(L), l->axis) || glm_vec3_norm(l->axis) < 1e-9f ||
                !isfinite(l->axis[0] + l->axis[1] + l->axis[2]))
                mr_lua_arg_error(L, o->arg, lua_pushfstring(L, "%s.limits['%s'].hinge must be a non-zero vec3, got %s",
                                                            o->name, jn, mr_lua_describe(L, -2)));
            l->kind = MR_IK_LIMIT_HINGE;
            l->min = limit_deg(L, o, val, jn, "min", -180, 180, 1);
            l->max = limit_deg(L, o, val, jn, "max", -180, 180, 1);
            if (l->min > l->max)
                mr_lua_arg_error(L, o->arg, lua_pushfstring(L, "%s.limits['%s']: min is above max", o->name, jn));
            lua_getfield(L, val, "cone");
            lua_getfield(L, val, "twist");
            if (!lua_isnil(L, -1) || !lua_isnil(L, -2))
                mr_lua_arg_error(L, o->arg, lua_pushfstring(L, "%s.limits['%s']: a hinge takes no cone or twist",
                                                            o->name, jn));
            lua_pop(L, 2);
        } else {
            lua_getfield(L, val, "min");
            lua_getfield(L, val, "max");
            if (!lua_isnil(L, -1) || !lua_isnil(L, -2))
                mr_lua_arg_error(L, o->arg, lua_pushfstring(L, "%s.limits['%s']: min and max belong to a hinge"
                                                            " (twist = {min, max} for a cone)", o->name, jn));
            lua_pop(L, 2);
            l->kind = MR_IK_LIMIT_CONE;
            l->cone = limit_deg(L, o, val, jn, "cone", 0, 180, 1);
            lua_getfield(L, val, "twist");
            if (!lua_isnil(L, -1)) {
                int tw = lua_gettop(L), a, b;
                lua_Number lo = 0, hi = 0;
                int ok = lua_type(L, tw) == LUA_TTABLE && luaL_len(L, tw) == 2;
                if (ok) {
                    lua_geti(L, tw, 1);
                    lua_geti(L, tw, 2);
                    lo = lua_tonumberx(L, -2, &a);
                    hi = lua_tonumberx(L, -1, &b);
                    ok = a && b && lo >= -180 && hi <= 180 && lo <= hi;
                    lua_pop(L, 2);
                }
                if (!ok)
                    mr_lua_arg_error(L, o->arg, lua_pushfstring(L, "%s.limits['%s'].twist must be {min, max} degrees,"
                                                                " -180 <= min <= max <= 180", o->name, jn));
                l->has_twist = 1;
                l->twist_min = glm_rad((float)lo);
                l->twist_max = glm_rad((float)hi);
            }
            lua_pop(L, 1);
        }
        lua_settop(L, val - 1);
    }
    lua_settop(L, tab - 1);
}

