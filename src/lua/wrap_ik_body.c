/* wrap_ik_body.c — marrow.ik_body and the full-body IK solver type
 * (anim/ik_body.h, its rig found by anim/ik_rig.h).
 *
 *   marrow.ik_body(model [, opts]) -> solver
 *       finds the model's pelvis, spine, head, arms and legs from its joint
 *       names as retargeting does (raises when it finds no limb). opts:
 *       iterations (1..100, default 16), spine_limit (degrees per spine
 *       joint and pass, default 30), tolerance (model units, default 1e-4 of
 *       the longest limb), limits = {[joint] = {cone = deg [, twist = {min,
 *       max}]} or {hinge = vec3, min = deg, max = deg}} (as pose:ik_chain's;
 *       every solve keeps them)
 *   solver:solve(pose, goals) -> result
 *       goals = {[joint] = {position = vec3 [, rotation = quat] [, weight = w]}}
 *       for hands, feet, the head and the pelvis (model space; rotation a
 *       model-space rotation of that joint). Moves the pelvis and bends the
 *       spine so that the hands reach while the feet stay on their goals
 *       (feet are solved last). result = {reached = bool, conflict = bool,
 *       errors = {[joint] = distance left}}; conflict: some goal of weight 1
 *       was not met, the pose is the best compromise (feet first)
 *   solver:rig() -> {pelvis =, head =, spine = {...}, left_arm = {upper,
 *       middle, end}, right_arm =, left_leg =, right_leg =} joint names (a
 *       limb not found is absent)
 *
 * User value 1 is the model. A solver is not handed over on live reload
 * (make it again in load()).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "anim/ik_body.h"
#include "anim/ik_rig.h"
#include "anim/model.h"
#include "core/str.h"
#include "lua/ik_limits.h"
#include "lua/wrap.h"

#define MR_LUA_IK_BODY "ik_body"

typedef struct lua_ik_body {
    mr_ik_rig rig;
    const mr_model *model;
    int iterations;
    float spine_limit, tolerance;
    mat4 *scratch;           /* joint_count matrices, after this struct in the same block */
    mr_ik_limit *limits;     /* joint_count limits after them, or NULL without opts.limits */
} lua_ik_body;

/* Raises for a key of the option table that is not one of keys (the lead
 * may swap this for the project's common option checker). */
/* Raises for an unknown key of the table at idx (mr_lua_check_option_keys). */
static void check_keys(lua_State *L, int idx, int arg, const char *name, const char *const keys[])
{
    mr_lua_opts o = {.arg = arg, .idx = idx ? lua_absindex(L, idx) : 0, .name = name};
    mr_lua_check_option_keys(L, &o, keys);
}

static int l_ik_body(lua_State *L)
{
    static const char *const keys[] = {"iterations", "spine_limit", "tolerance", "limits", NULL};
    mr_lua_model *m = mr_lua_check_model(L, 1);
    mr_lua_opts o = mr_lua_check_opts(L, 2, "opts");
    check_keys(L, o.idx, 2, "opts", keys);
    const mr_skeleton *sk = &m->model->skeleton;
    size_t n = (size_t)sk->joint_count;
    size_t head = (sizeof(lua_ik_body) + 15) & ~(size_t)15;
    lua_ik_body *b = lua_newuserdatauv(L, head + sizeof(mat4) * n + 16 + sizeof(mr_ik_limit) * n, 1);
    memset(b, 0, sizeof *b);
    b->scratch = (mat4 *)(((uintptr_t)b + head + 15) & ~(uintptr_t)15);
    int solver_idx = lua_gettop(L);
    if (mr_lua_opt_field(L, &o, "limits") != LUA_TNIL) {
        lua_pop(L, 1);
        int *all = lua_newuserdatauv(L, sizeof(int) * (n ? n : 1), 0);
        for (size_t j = 0; j < n; j++) all[j] = (int)j;
        b->limits = (mr_ik_limit *)(b->scratch + n);
        mr_lua_ik_limits(L, &o, sk, all, (int)n, b->limits);
        lua_settop(L, solver_idx);
    } else {
        lua_pop(L, 1);
    }
    luaL_setmetatable(L, MR_LUA_IK_BODY);
    b->iterations = mr_lua_opt_int(L, &o, "iterations", 16, 1, 100);
    b->spine_limit = glm_rad(mr_lua_opt_num(L, &o, "spine_limit", 30.0f, 0, 180));
    b->tolerance = mr_lua_opt_num(L, &o, "tolerance", 0.0f, 0, 1e30);
    mr_error err = {0};
    if (mr_ik_rig_find(&m->model->skeleton, &b->rig, &err) != MR_OK)
        return mr_lua_raise(L, "%s: %s", m->model->path ? m->model->path : "model", err.msg);
    b->model = m->model;
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);     /* keeps the model alive */
    return 1;
}

static lua_ik_body *check_body(lua_State *L, int arg)
{
    return mr_lua_check_udata(L, arg, MR_LUA_IK_BODY);
}

/* The joint a goal's key names (a name or a 1-based index), or raises
 * naming the closest joint. */
static int goal_joint(lua_State *L, const mr_skeleton *sk, int key)
{
    if (lua_type(L, key) == LUA_TNUMBER) {
        int isint;
        lua_Integer i = lua_tointegerx(L, key, &isint);
        if (isint && i >= 1 && i <= sk->joint_count) return (int)i - 1;
    } else if (lua_type(L, key) == LUA_TSTRING) {
        const char *name = lua_tostring(L, key);
        int j = mr_skeleton_find(sk, name);
        if (j >= 0) return j;
        int c = mr_str_closest(name, (const char *const *)sk->names, sk->joint_count, 4);
        return mr_lua_arg_error(L, 3, lua_pushfstring(L, "goals: unknown joint '%s'%s%s%s", name,
                                                      c >= 0 ? "; did you mean '" : "", c >= 0 ? sk->names[c] : "",
                                                      c >= 0 ? "'?" : ""));
    }
    return mr_lua_arg_error(L, 3, lua_pushfstring(L, "goals must be keyed by joint names, got %s",
                                                  mr_lua_describe(L, key)));
}

static int body_solve(lua_State *L)
{
    static const char *const goal_keys[] = {"position", "rotation", "weight", NULL};
    lua_ik_body *b = check_body(L, 1);
    const mr_skeleton *sk = &b->model->skeleton;
    mr_lua_pose *p = mr_lua_check_pose_of(L, 2, sk);
    if (p->owner != b->model && p->sk != sk)
        return mr_lua_arg_error(L, 2, "pose of another model");
    mr_lua_check_type(L, 3, LUA_TTABLE);
    mr_ik_goal goals[MR_IK_BODY_MAX_GOALS];
    int n = 0;
    lua_pushnil(L);
    while (lua_next(L, 3)) {
        int val = lua_gettop(L);
        if (n >= MR_IK_BODY_MAX_GOALS)
            mr_lua_arg_error(L, 3, lua_pushfstring(L, "at most %d goals", MR_IK_BODY_MAX_GOALS));
        int j = goal_joint(L, sk, val - 1);
        const char *jn = sk->names[j];
        mr_ik_goal *g = &goals[n];
        memset(g, 0, sizeof *g);
        g->joint = j;
        if (lua_type(L, val) != LUA_TTABLE)
            mr_lua_arg_error(L, 3, lua_pushfstring(L, "goals['%s'] must be {position = vec3 [, rotation = quat]"
                                                   " [, weight = w]}, got %s", jn, mr_lua_describe(L, val)));
        char field[160];
        snprintf(field, sizeof field, "goals['%s']", jn);
        check_keys(L, val, 3, field, goal_keys);
        lua_getfield(L, val, "position");
        if (!mr_lua_to_vec3(L, lua_gettop(L), g->position))
            mr_lua_arg_error(L, 3, lua_pushfstring(L, "goals['%s'].position must be a vec3, got %s", jn,
                                                   mr_lua_describe(L, -1)));
        lua_pop(L, 1);
        lua_getfield(L, val, "rotation");
        if (!lua_isnil(L, -1)) {
            if (!mr_lua_to_quat(L, lua_gettop(L), g->rotation))
                mr_lua_arg_error(L, 3, lua_pushfstring(L, "goals['%s'].rotation must be a quat, got %s", jn,
                                                       mr_lua_describe(L, -1)));
            g->has_rotation = 1;
        }
        lua_pop(L, 1);
        lua_getfield(L, val, "weight");
        g->weight = 1.0f;
        if (!lua_isnil(L, -1)) {
            int isnum;
            lua_Number w = lua_tonumberx(L, -1, &isnum);
            if (!isnum || lua_type(L, -1) != LUA_TNUMBER || !(w >= 0 && w <= 1))
                mr_lua_arg_error(L, 3, lua_pushfstring(L, "goals['%s'].weight must be a number within 0..1, got %s",
                                                       jn, mr_lua_describe(L, -1)));
            g->weight = (float)w;
        }
        lua_settop(L, val - 1);
        n++;
    }
    mr_ik_body_job job = {0};
    job.skeleton = sk;
    job.rig = &b->rig;
    job.pose = &p->pose;
    job.goals = goals;
    job.goal_count = n;
    job.iterations = b->iterations;
    job.spine_limit = b->spine_limit;
    job.tolerance = b->tolerance;
    job.scratch = b->scratch;
    job.limits = b->limits;
    mr_error err = {0};
    if (mr_ik_body_validate(&job, &err) != MR_OK) return mr_lua_arg_error(L, 3, err.msg);
    mr_ik_body_run(&job, &err);
    p->model_valid = 0;
    lua_createtable(L, 0, 3);
    lua_pushboolean(L, job.reached);
    lua_setfield(L, -2, "reached");
    lua_pushboolean(L, job.conflict);
    lua_setfield(L, -2, "conflict");
    lua_createtable(L, 0, n);
    for (int i = 0; i < n; i++) {
        lua_pushnumber(L, goals[i].error);
        lua_setfield(L, -2, sk->names[goals[i].joint]);
    }
    lua_setfield(L, -2, "errors");
    return 1;
}

static void push_limb(lua_State *L, const mr_skeleton *sk, const int *lj, const char *key)
{
    if (lj[0] < 0) return;
    lua_createtable(L, 3, 0);
    for (int k = 0; k < 3; k++) {
        lua_pushstring(L, sk->names[lj[k]]);
        lua_seti(L, -2, k + 1);
    }
    lua_setfield(L, -2, key);
}

static int body_rig(lua_State *L)
{
    lua_ik_body *b = check_body(L, 1);
    const mr_skeleton *sk = &b->model->skeleton;
    const mr_ik_rig *r = &b->rig;
    lua_createtable(L, 0, 7);
    if (r->pelvis >= 0) {
        lua_pushstring(L, sk->names[r->pelvis]);
        lua_setfield(L, -2, "pelvis");
    }
    if (r->head >= 0) {
        lua_pushstring(L, sk->names[r->head]);
        lua_setfield(L, -2, "head");
    }
    lua_createtable(L, r->spine_count, 0);
    for (int i = 0; i < r->spine_count; i++) {
        lua_pushstring(L, sk->names[r->spine[i]]);
        lua_seti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "spine");
    push_limb(L, sk, r->limb[MR_IK_ARM_L], "left_arm");
    push_limb(L, sk, r->limb[MR_IK_ARM_R], "right_arm");
    push_limb(L, sk, r->limb[MR_IK_LEG_L], "left_leg");
    push_limb(L, sk, r->limb[MR_IK_LEG_R], "right_leg");
    return 1;
}

static int body_tostring(lua_State *L)
{
    lua_ik_body *b = check_body(L, 1);
    lua_pushfstring(L, "ik_body(%s)", b->model && b->model->path ? b->model->path : "?");
    return 1;
}

static const luaL_Reg methods[] = {
    {"solve", body_solve},
    {"rig", body_rig},
    {NULL, NULL},
};

static const luaL_Reg meta[] = {
    {"__tostring", body_tostring}, {"__index", NULL},
    {NULL, NULL},
};

void mr_lua_open_ikbody(lua_State *L)
{
    mr_lua_newtype(L, MR_LUA_IK_BODY, meta, methods);
    mr_lua_pushfunc(L, l_ik_body, "marrow.ik_body", 0);
    lua_setfield(L, -2, "ik_body");
}
