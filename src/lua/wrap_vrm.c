/* wrap_vrm.c — a VRM avatar's node constraints and look-at on models and
 * poses (anim/vrm_constraints.h, anim/vrm_look_at.h):
 *
 *   model:constraints() -> {{joint =, source =, type = "roll"|"aim"|"rotation",
 *       axis = "X"|...|"PositiveX"|... (nil for rotation), weight =}, ...}
 *       in the order they are evaluated (empty when the file has none)
 *   model:look_at() -> {type = "bone"|"expression", offset = vec3, inner =,
 *       outer =, down =, up = {input_max =, output_scale =}} | nil
 *   pose:apply_constraints() -> pose
 *   pose:look_at(target [, {transform = mat4, apply = true}]) -> yaw, pitch
 *   pose:expression_materials() -> {{material =, type =, value = {r, g, b, a}
 *       | scale = {x, y}, offset = {x, y}}, ...}   (the expressions' material binds)
 *
 * A frame of a VRM avatar runs: the clip pose and the script's overrides,
 * pose:look_at, pose:apply_constraints, then springs:update (three-vrm's
 * order: look-at, expressions, constraints, springs).
 */
#include <math.h>

#include "anim/vrm.h"
#include "anim/vrm_constraints.h"
#include "anim/vrm_look_at.h"
#include "lua/wrap.h"

static const char *const type_names[] = {"roll", "aim", "rotation"};
static const char *const roll_axes[] = {"X", "Y", "Z"};
static const char *const aim_axes[] = {"PositiveX", "NegativeX", "PositiveY", "NegativeY", "PositiveZ", "NegativeZ"};

static int model_constraints(lua_State *L)
{
    mr_lua_model *m = mr_lua_check_model(L, 1);
    const mr_vrm *v = m->model->vrm;
    const mr_skeleton *sk = &m->model->skeleton;
    int n = v && v->constraints && v->constraint_order ? v->constraint_count : 0;
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        const mr_vrm_constraint *c = &v->constraints[v->constraint_order[i]];
        lua_createtable(L, 0, 5);
        lua_pushstring(L, sk->names[c->joint]);
        lua_setfield(L, -2, "joint");
        lua_pushstring(L, sk->names[c->source]);
        lua_setfield(L, -2, "source");
        lua_pushstring(L, type_names[c->type]);
        lua_setfield(L, -2, "type");
        if (c->type == MR_VRM_CONSTRAINT_ROLL) lua_pushstring(L, roll_axes[c->axis]);
        else if (c->type == MR_VRM_CONSTRAINT_AIM) lua_pushstring(L, aim_axes[c->axis]);
        else lua_pushnil(L);
        lua_setfield(L, -2, "axis");
        lua_pushnumber(L, c->weight);
        lua_setfield(L, -2, "weight");
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static void push_range(lua_State *L, const mr_vrm_range_map *r, const char *key)
{
    lua_createtable(L, 0, 2);
    lua_pushnumber(L, r->input_max);
    lua_setfield(L, -2, "input_max");
    lua_pushnumber(L, r->output_scale);
    lua_setfield(L, -2, "output_scale");
    lua_setfield(L, -2, key);
}

static int model_look_at(lua_State *L)
{
    mr_lua_model *m = mr_lua_check_model(L, 1);
    const mr_vrm *v = m->model->vrm;
    if (!v || !v->look_at.present) {
        lua_pushnil(L);
        return 1;
    }
    const mr_vrm_look_at *la = &v->look_at;
    lua_createtable(L, 0, 6);
    lua_pushstring(L, la->type == MR_VRM_LOOK_AT_EXPRESSION ? "expression" : "bone");
    lua_setfield(L, -2, "type");
    mr_lua_push_vec3(L, la->offset);
    lua_setfield(L, -2, "offset");
    push_range(L, &la->inner, "inner");
    push_range(L, &la->outer, "outer");
    push_range(L, &la->down, "down");
    push_range(L, &la->up, "up");
    return 1;
}

static int pose_apply_constraints(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1);
    lua_settop(L, 1);
    const mr_vrm *v = p->owner ? p->owner->vrm : NULL;
    if (!v || !v->constraint_count) return 1;
    if (mr_vrm_constraints_apply(p->sk, v, &p->pose) != MR_OK)
        return mr_lua_raise(L, "pose:apply_constraints: the pose does not match its model");
    p->model_valid = 0;
    return 1;
}

/* pose:set_expression(name, w) through the pose's own method (wrap_springs.c
 * keeps the expression weights); skipped when the avatar lacks name. */
static void set_expression(lua_State *L, const mr_vrm *v, const char *name, double w)
{
    if (mr_vrm_expression_find(v, name) < 0) return;
    if (!(w > 0)) w = 0;
    if (w > 1) w = 1;
    lua_getfield(L, 1, "set_expression");
    lua_pushvalue(L, 1);
    lua_pushstring(L, name);
    lua_pushnumber(L, w);
    lua_call(L, 3, 0);
}

static int pose_look_at(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1);
    float target[3];
    mr_lua_check_vec3(L, 2, target);
    mr_lua_opts o = mr_lua_check_opts(L, 3, "opts");
    static const char *const keys[] = {"transform", "apply", NULL};
    mr_lua_check_option_keys(L, &o, keys);
    mat4 xf;
    if (mr_lua_opt_mat4(L, &o, "transform", xf)) {
        mat4 inv;
        glm_mat4_inv(xf, inv);
        vec4 t = {target[0], target[1], target[2], 1}, r;
        glm_mat4_mulv(inv, t, r);
        if (!(isfinite(r[0]) && isfinite(r[1]) && isfinite(r[2])))
            return mr_lua_arg_error(L, 3, "opts.transform must be invertible");
        target[0] = r[0]; target[1] = r[1]; target[2] = r[2];
    }
    int apply = mr_lua_opt_bool(L, &o, "apply", 1);
    const mr_vrm *v = p->owner ? p->owner->vrm : NULL;
    if (!v || !v->look_at.present)
        return mr_lua_raise(L, "pose:look_at: the model declares no VRM look-at settings (VRMC_vrm.lookAt)");
    double yaw = 0, pitch = 0;
    if (mr_vrm_look_at_angles(p->sk, v, &p->pose, target, &yaw, &pitch) != MR_OK)
        return mr_lua_raise(L, "pose:look_at: the model has no humanoid head bone");
    if (apply && v->look_at.type == MR_VRM_LOOK_AT_BONE) {
        mr_vrm_look_at_eyes(p->sk, v, &p->pose, yaw, pitch);
        p->model_valid = 0;
    } else if (apply) {
        double w[4];
        static const char *const names[4] = {"lookLeft", "lookRight", "lookUp", "lookDown"};
        mr_vrm_look_at_weights(v, yaw, pitch, w);
        for (int k = 0; k < 4; k++) set_expression(L, v, names[k], w[k]);
    }
    lua_pushnumber(L, yaw);
    lua_pushnumber(L, pitch);
    return 2;
}

static int pose_expression_materials(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1);
    const mr_vrm *v = p->owner ? p->owner->vrm : NULL;
    int n = v ? v->material_bind_count : 0;
    lua_createtable(L, n ? 4 : 0, 0);
    if (!n) return 1;
    int e = v->expression_count;
    float *w = lua_newuserdatauv(L, sizeof(float) * (size_t)(2 * e + 1), 0);   /* weights, then effective ones */
    for (int i = 0; i < e; i++) {                 /* the weights pose:set_expression keeps */
        lua_getfield(L, 1, "expression");
        lua_pushvalue(L, 1);
        lua_pushstring(L, v->expressions[i].name);
        lua_call(L, 2, 1);
        w[i] = (float)lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    mr_vrm_expressions_effective(v, w, w + e);
    lua_pushvalue(L, -2);             /* the result above the weights, which stay on the stack while used */
    int out = 0;
    for (int b = 0; b < n; b++) {
        const mr_vrm_material_bind *mb = &v->material_binds[b];
        int seen = 0;
        for (int k = 0; k < b && !seen; k++)
            seen = v->material_binds[k].material == mb->material && v->material_binds[k].kind == mb->kind;
        if (seen) continue;
        float val[4];
        mr_vrm_material_value(v, w + e, mb->material, mb->kind, val);
        lua_createtable(L, 0, 4);
        lua_pushstring(L, mb->material_name);
        lua_setfield(L, -2, "material");
        lua_pushstring(L, mr_vrm_material_kinds[mb->kind]);
        lua_setfield(L, -2, "type");
        int fields = mb->kind == MR_VRM_MATERIAL_UV ? 2 : 1;
        static const char *const uv_keys[2] = {"scale", "offset"};
        for (int f = 0; f < fields; f++) {
            int count = mb->kind == MR_VRM_MATERIAL_UV ? 2 : 4;
            lua_createtable(L, count, 0);
            for (int k = 0; k < count; k++) {
                lua_pushnumber(L, val[f * 2 + k]);
                lua_rawseti(L, -2, k + 1);
            }
            lua_setfield(L, -2, mb->kind == MR_VRM_MATERIAL_UV ? uv_keys[f] : "value");
        }
        lua_rawseti(L, -2, ++out);
    }
    return 1;
}

static const luaL_Reg model_methods[] = {
    {"constraints", model_constraints}, {"look_at", model_look_at}, {NULL, NULL},
};

static const luaL_Reg pose_methods[] = {
    {"apply_constraints", pose_apply_constraints}, {"look_at", pose_look_at},
    {"expression_materials", pose_expression_materials}, {NULL, NULL},
};

void mr_lua_open_vrm(lua_State *L)
{
    mr_lua_add_methods(L, MR_LUA_MODEL, model_methods);
    mr_lua_add_methods(L, MR_LUA_POSE, pose_methods);
}
