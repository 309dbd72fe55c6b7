/* wrap_springs.c — the springs userdata (spring chains, anim/springs.h) and
 * what a VRM avatar adds to models and poses:
 *
 *   marrow.springs(model, {chains = {{joints = {...}, stiffness =, drag =,
 *       gravity = vec3 | {power =, dir =}, radius =, center =, colliders = {i, ...}}, ...},
 *       colliders = {{joint =, radius =, offset =, tail =, inside =, normal =}, ...},
 *       step = "fixed" | "frame", rate =, teleport =}) -> springs
 *   springs:update(pose, dt [, transform]) -> pose   springs:reset(pose [, transform]) -> pose
 *   springs:penetration(pose [, transform]) -> deepest tip inside a collider (units)
 *   model:springs([{step =, rate =, teleport =}]) -> springs | nil, message   (the file's)
 *   model:humanoid() -> {hips = "J_Bip_C_Hips", ...} | nil    model:expressions() -> {names}
 *   pose:set_expression(name, w) -> pose    pose:expression(name) -> w
 *
 * A chain's joints run root first and end at the tip: n joints make n - 1
 * springs (VRM 1.0's rule). stiffness, drag, radius and gravity take one
 * value for the chain or a list with one per spring. A chain collides with
 * the colliders it lists (indices into colliders), all of them by default.
 * The springs keep the model alive (user value 1) and survive a reload with
 * their state (transfer.c copies them through mr_lua_push_springs).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/morph.h"
#include "anim/springs.h"
#include "anim/vrm.h"
#include "lua/wrap.h"

#define SPRING_LISTS 256             /* chains, colliders, joints a chain lists at most */

static mr_lua_springs *check_springs(lua_State *L, int arg)
{
    mr_lua_springs *s = mr_lua_check_udata(L, arg, MR_LUA_SPRINGS);
    if (!s->s) mr_lua_raise(L, "attempt to use a closed springs");
    return s;
}

/* Raises naming the first key of the table at idx that is not in allowed.
 * (A small checker of its own; the option helpers of args.c may take it over.) */
/* Raises for an unknown key of the table at idx (mr_lua_check_option_keys:
 * the closest known key named), where names the table in the message. */
static void check_keys(lua_State *L, int arg, int idx, const char *where, const char *const allowed[])
{
    mr_lua_opts o = {.arg = arg, .idx = lua_absindex(L, idx), .name = where};
    mr_lua_check_option_keys(L, &o, allowed);
}

/* A joint named (or 1-based numbered) by the value at idx. */
static int joint_at(lua_State *L, int arg, int idx, const mr_skeleton *sk, const char *where)
{
    if (lua_type(L, idx) == LUA_TSTRING) {
        const char *name = lua_tostring(L, idx);
        int j = mr_skeleton_find(sk, name);
        if (j < 0) mr_lua_arg_error(L, arg, lua_pushfstring(L, "%s: no joint '%s' in the model", where, name));
        return j;
    }
    if (lua_isinteger(L, idx)) {
        lua_Integer j = lua_tointeger(L, idx);
        if (j < 1 || j > sk->joint_count)
            mr_lua_arg_error(L, arg, lua_pushfstring(L, "%s: joint %d out of range 1..%d", where, (int)j, sk->joint_count));
        return (int)j - 1;
    }
    mr_lua_arg_error(L, arg, lua_pushfstring(L, "%s: expected a joint name or index, got %s", where, mr_lua_describe(L, idx)));
    return -1;
}

/* Number field key of the table at t: one value, or a list with one per
 * spring (k-th taken). def when absent. */
static float per_spring(lua_State *L, int arg, int t, const char *where, const char *key, int k, int n, float def,
                        double lo, double hi)
{
    lua_getfield(L, t, key);
    float v = def;
    if (lua_istable(L, -1)) {
        if (luaL_len(L, -1) != n)
            mr_lua_arg_error(L, arg, lua_pushfstring(L, "%s.%s: expected one value or a list of %d (one per spring)", where, key, n));
        lua_geti(L, -1, k + 1);
        lua_replace(L, -2);
    }
    if (!lua_isnil(L, -1)) {
        int isnum = 0;
        lua_Number x = lua_tonumberx(L, -1, &isnum);
        if (!isnum || !(x >= lo && x <= hi))
            mr_lua_arg_error(L, arg, lua_pushfstring(L, "%s.%s must be a number in %f..%f, got %s", where, key, lo, hi,
                                                     mr_lua_describe(L, -1)));
        v = (float)x;
    }
    lua_pop(L, 1);
    return v;
}

static int vec3_field(lua_State *L, int arg, int t, const char *where, const char *key, float out[3])
{
    lua_getfield(L, t, key);
    int present = !lua_isnil(L, -1);
    if (present && (!mr_lua_to_vec3(L, -1, out) || !isfinite(out[0]) || !isfinite(out[1]) || !isfinite(out[2])))
        mr_lua_arg_error(L, arg, lua_pushfstring(L, "%s.%s must be a vec3, got %s", where, key, mr_lua_describe(L, -1)));
    lua_pop(L, 1);
    return present;
}

/* gravity = vec3 (its length the power) or {power =, dir =}. */
static void gravity_field(lua_State *L, int arg, int t, const char *where, mr_spring_joint *j)
{
    lua_getfield(L, t, "gravity");
    if (lua_isnil(L, -1)) { lua_pop(L, 1); return; }
    float v[3];
    if (mr_lua_to_vec3(L, -1, v)) {
        float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (!isfinite(len)) mr_lua_arg_error(L, arg, lua_pushfstring(L, "%s.gravity must be finite", where));
        j->gravity_power = len;
        if (len > 0) for (int k = 0; k < 3; k++) j->gravity_dir[k] = v[k] / len;
    } else if (lua_istable(L, -1)) {
        int g = lua_gettop(L);
        static const char *const keys[] = {"power", "dir", NULL};
        char w[96];
        snprintf(w, sizeof w, "%s.gravity", where);
        check_keys(L, arg, g, w, keys);
        j->gravity_power = per_spring(L, arg, g, w, "power", 0, 1, 0, 0, 1e6);
        if (vec3_field(L, arg, g, w, "dir", j->gravity_dir) &&
            j->gravity_dir[0] == 0 && j->gravity_dir[1] == 0 && j->gravity_dir[2] == 0)
            mr_lua_arg_error(L, arg, lua_pushfstring(L, "%s.gravity.dir must not be zero", where));
    } else {
        mr_lua_arg_error(L, arg, lua_pushfstring(L, "%s.gravity must be a vec3 or {power =, dir =}, got %s", where,
                                                 mr_lua_describe(L, -1)));
    }
    lua_pop(L, 1);
}

static const char *const step_names[] = {"fixed", "frame", NULL};

/* step, rate and teleport of the option table at idx (0: none) into d. */
static void step_options(lua_State *L, int arg, int idx, mr_springs_desc *d)
{
    if (!idx) return;
    lua_getfield(L, idx, "step");
    if (!lua_isnil(L, -1)) {
        const char *s = lua_tostring(L, -1);
        int m = -1;
        for (int i = 0; s && lua_type(L, -1) == LUA_TSTRING && step_names[i]; i++) if (!strcmp(s, step_names[i])) m = i;
        if (m < 0) mr_lua_arg_error(L, arg, lua_pushfstring(L, "step must be \"fixed\" or \"frame\", got %s", mr_lua_describe(L, -1)));
        d->step = m;
    }
    lua_pop(L, 1);
    d->rate = per_spring(L, arg, idx, "opts", "rate", 0, 1, 0, 10, 2000);
    d->teleport = per_spring(L, arg, idx, "opts", "teleport", 0, 1, 0, 0, 1e9);
}

typedef struct build {
    mr_spring_joint *joints; int nj;
    mr_spring_chain *chains; int nc;
    mr_spring_collider *colliders; int ncol;
    int *list; int nlist;
} build;

/* Zeroed scratch memory the Lua collector frees (kept in the table at box),
 * so an argument error in the middle leaks nothing. */
static void *scratch(lua_State *L, int box, size_t size)
{
    void *p = lua_newuserdatauv(L, size ? size : 1, 0);
    memset(p, 0, size ? size : 1);
    lua_rawseti(L, box, (lua_Integer)lua_rawlen(L, box) + 1);
    return p;
}

/* Creates the springs and pushes them (the model at model_idx). */
static void push_new(lua_State *L, int model_idx, const mr_springs_desc *d, int arg)
{
    mr_lua_model *m = mr_lua_check_model(L, model_idx);
    mr_springs *s = NULL;
    mr_error err;
    mr_status st = mr_springs_create(&m->model->skeleton, d, &s, &err);
    if (st != MR_OK) mr_lua_arg_error(L, arg, err.msg);
    mr_lua_push_springs(L, model_idx, s);
}

static int l_springs(lua_State *L)
{
    mr_lua_model *m = mr_lua_check_model(L, 1);
    const mr_skeleton *sk = &m->model->skeleton;
    mr_lua_check_type(L, 2, LUA_TTABLE);
    static const char *const top_keys[] = {"chains", "colliders", "step", "rate", "teleport", NULL};
    check_keys(L, 2, 2, "opts", top_keys);
    mr_springs_desc d = {0};
    step_options(L, 2, 2, &d);
    lua_newtable(L);
    int box = lua_gettop(L);
    build bb = {0}, *b = &bb;
    lua_getfield(L, 2, "colliders");
    int ncol = 0;
    if (!lua_isnil(L, -1)) {
        if (!lua_istable(L, -1)) mr_lua_arg_error(L, 2, "colliders must be a list of tables");
        ncol = (int)luaL_len(L, -1);
        if (ncol < 0 || ncol > MR_SPRINGS_MAX_COLLIDERS) mr_lua_arg_error(L, 2, "colliders: too many");
    }
    b->colliders = scratch(L, box, ((size_t)ncol + 1) * sizeof *b->colliders);
    static const char *const col_keys[] = {"joint", "radius", "offset", "tail", "inside", "normal", "shape", NULL};
    for (int i = 0; i < ncol; i++) {
        char w[64];
        snprintf(w, sizeof w, "colliders[%d]", i + 1);
        lua_geti(L, -1, i + 1);
        int t = lua_gettop(L);
        if (!lua_istable(L, t)) mr_lua_arg_error(L, 2, lua_pushfstring(L, "%s must be a table", w));
        check_keys(L, 2, t, w, col_keys);
        mr_spring_collider *c = &b->colliders[i];
        lua_getfield(L, t, "joint");
        if (lua_isnil(L, -1)) mr_lua_arg_error(L, 2, lua_pushfstring(L, "%s.joint is missing", w));
        char wj[80];
        snprintf(wj, sizeof wj, "%s.joint", w);
        c->joint = joint_at(L, 2, -1, sk, wj);
        lua_pop(L, 1);
        c->radius = per_spring(L, 2, t, w, "radius", 0, 1, 0, 0, 1e6);
        vec3_field(L, 2, t, w, "offset", c->offset);
        c->shape = vec3_field(L, 2, t, w, "tail", c->tail) ? MR_COLLIDER_CAPSULE : MR_COLLIDER_SPHERE;
        if (vec3_field(L, 2, t, w, "normal", c->normal)) {
            c->shape = MR_COLLIDER_PLANE;
            if (c->normal[0] == 0 && c->normal[1] == 0 && c->normal[2] == 0)
                mr_lua_arg_error(L, 2, lua_pushfstring(L, "%s.normal must not be zero", w));
        }
        lua_getfield(L, t, "inside");
        c->inside = lua_toboolean(L, -1);
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
    b->ncol = ncol;
    lua_getfield(L, 2, "chains");
    if (!lua_istable(L, -1)) mr_lua_arg_error(L, 2, "chains must be a list of chains, got nothing");
    int nc = (int)luaL_len(L, -1);
    if (nc < 1 || nc > SPRING_LISTS) mr_lua_arg_error(L, 2, "chains must list 1..256 chains");
    int chains_idx = lua_gettop(L);
    b->chains = scratch(L, box, (size_t)nc * sizeof *b->chains);
    b->joints = scratch(L, box, (size_t)nc * SPRING_LISTS * sizeof *b->joints);
    b->list = scratch(L, box, (size_t)nc * ((size_t)ncol + 1) * sizeof *b->list);
    static const char *const chain_keys[] = {"joints", "stiffness", "drag", "gravity", "radius", "center", "colliders", NULL};
    for (int c = 0; c < nc; c++) {
        char w[64];
        snprintf(w, sizeof w, "chains[%d]", c + 1);
        lua_geti(L, chains_idx, c + 1);
        int t = lua_gettop(L);
        if (!lua_istable(L, t)) mr_lua_arg_error(L, 2, lua_pushfstring(L, "%s must be a table", w));
        check_keys(L, 2, t, w, chain_keys);
        lua_getfield(L, t, "joints");
        if (!lua_istable(L, -1)) mr_lua_arg_error(L, 2, lua_pushfstring(L, "%s.joints must be a list of joints", w));
        int n = (int)luaL_len(L, -1);
        if (n < 2 || n > SPRING_LISTS)
            mr_lua_arg_error(L, 2, lua_pushfstring(L, "%s.joints must list 2..%d joints (root first, the tip last)", w, SPRING_LISTS));
        int js[SPRING_LISTS];
        for (int k = 0; k < n; k++) {
            char wj[96];
            snprintf(wj, sizeof wj, "%s.joints[%d]", w, k + 1);
            lua_geti(L, -1, k + 1);
            js[k] = joint_at(L, 2, -1, sk, wj);
            lua_pop(L, 1);
            if (k && sk->parents[js[k]] != js[k - 1])
                mr_lua_arg_error(L, 2, lua_pushfstring(L, "%s: '%s' is not a child of '%s'", wj, sk->names[js[k]], sk->names[js[k - 1]]));
        }
        lua_pop(L, 1);
        mr_spring_chain *ch = &b->chains[c];
        ch->first = b->nj;
        ch->count = n - 1;
        lua_getfield(L, t, "center");
        char wc[80];
        snprintf(wc, sizeof wc, "%s.center", w);
        ch->center = lua_isnil(L, -1) ? -1 : joint_at(L, 2, -1, sk, wc);
        lua_pop(L, 1);
        for (int k = 0; k < n - 1; k++) {
            mr_spring_joint *j = &b->joints[b->nj++];
            j->joint = js[k];
            j->tail = js[k + 1];
            j->stiffness = per_spring(L, 2, t, w, "stiffness", k, n - 1, 1.0f, 0, 1e6);
            j->drag = per_spring(L, 2, t, w, "drag", k, n - 1, 0.4f, 0, 1);
            j->radius = per_spring(L, 2, t, w, "radius", k, n - 1, 0.0f, 0, 1e6);
            j->gravity_dir[1] = -1;
            gravity_field(L, 2, t, w, j);
        }
        ch->collider_first = b->nlist;
        lua_getfield(L, t, "colliders");
        if (lua_isnil(L, -1)) {
            for (int i = 0; i < ncol; i++) b->list[b->nlist++] = i;
        } else {
            if (!lua_istable(L, -1)) mr_lua_arg_error(L, 2, lua_pushfstring(L, "%s.colliders must be a list of collider numbers", w));
            int nl = (int)luaL_len(L, -1);
            if (nl < 0 || nl > ncol) mr_lua_arg_error(L, 2, lua_pushfstring(L, "%s.colliders lists more colliders than there are", w));
            for (int i = 0; i < nl; i++) {
                lua_geti(L, -1, i + 1);
                lua_Integer x = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
                if (x < 1 || x > ncol)
                    mr_lua_arg_error(L, 2, lua_pushfstring(L, "%s.colliders[%d]: expected a collider number 1..%d", w, i + 1, ncol));
                b->list[b->nlist++] = (int)x - 1;
                lua_pop(L, 1);
            }
        }
        ch->collider_count = b->nlist - ch->collider_first;
        lua_pop(L, 2);
    }
    b->nc = nc;
    d.joints = b->joints; d.joint_count = b->nj;
    d.chains = b->chains; d.chain_count = nc;
    d.colliders = b->colliders; d.collider_count = ncol;
    d.chain_colliders = b->list; d.chain_collider_count = b->nlist;
    push_new(L, 1, &d, 2);
    return 1;
}

/* The transform argument at arg (none or nil: identity). */
static const float *opt_transform(lua_State *L, int arg, mat4 out)
{
    if (lua_isnoneornil(L, arg)) return NULL;
    mr_lua_check_mat4(L, arg, out);
    return (const float *)out;
}

static int springs_update(lua_State *L)
{
    mr_lua_springs *s = check_springs(L, 1);
    mr_lua_pose *p = mr_lua_check_pose_of(L, 2, s->sk);
    lua_Number dt = mr_lua_check_number(L, 3);
    mr_lua_arg_check(L, dt >= 0 && !isnan(dt), 3, "dt must be >= 0");
    mat4 xf;
    const float *t = opt_transform(L, 4, xf);
    mr_springs_update(s->s, s->sk, &p->pose, dt, t);
    p->model_valid = 0;
    lua_settop(L, 2);
    return 1;
}

static int springs_reset(lua_State *L)
{
    mr_lua_springs *s = check_springs(L, 1);
    mr_lua_pose *p = mr_lua_check_pose_of(L, 2, s->sk);
    mat4 xf;
    mr_springs_reset(s->s, s->sk, &p->pose, opt_transform(L, 3, xf));
    p->model_valid = 0;
    lua_settop(L, 2);
    return 1;
}

static int springs_penetration(lua_State *L)
{
    mr_lua_springs *s = check_springs(L, 1);
    mr_lua_pose *p = mr_lua_check_pose_of(L, 2, s->sk);
    mat4 xf;
    lua_pushnumber(L, mr_springs_penetration(s->s, s->sk, &p->pose, opt_transform(L, 3, xf)));
    return 1;
}

static int springs_joints(lua_State *L)
{
    mr_lua_springs *s = check_springs(L, 1);
    int n = mr_springs_joint_count(s->s);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushstring(L, s->sk->names[mr_springs_joint(s->s, i)->joint]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int springs_tostring(lua_State *L)
{
    mr_lua_springs *s = mr_lua_check_udata(L, 1, MR_LUA_SPRINGS);
    if (!s->s) lua_pushliteral(L, "springs (closed)");
    else
        lua_pushfstring(L, "springs (%d chains, %d joints, %d colliders, %s step)", mr_springs_chain_count(s->s),
                        mr_springs_joint_count(s->s), mr_springs_collider_count(s->s), step_names[mr_springs_mode(s->s)]);
    return 1;
}

static int springs_gc(lua_State *L)
{
    mr_lua_springs *s = mr_lua_check_udata(L, 1, MR_LUA_SPRINGS);
    mr_springs_destroy(s->s);
    s->s = NULL;
    return 0;
}

/* ---- model and pose methods of a VRM avatar ------------------------------------ */

static int model_springs(lua_State *L)
{
    mr_lua_model *m = mr_lua_check_model(L, 1);
    int present = !lua_isnoneornil(L, 2);
    if (present) {
        mr_lua_check_type(L, 2, LUA_TTABLE);
        static const char *const keys[] = {"step", "rate", "teleport", NULL};
        check_keys(L, 2, 2, "opts", keys);
    }
    const mr_vrm *v = m->model->vrm;
    if (!v || !v->spring_joint_count) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: the file declares no springs", m->model->path ? m->model->path : "model");
        return 2;
    }
    mr_springs_desc d = mr_vrm_springs_desc(v);
    step_options(L, 2, present ? 2 : 0, &d);
    push_new(L, 1, &d, 1);
    return 1;
}

static int model_humanoid(lua_State *L)
{
    mr_lua_model *m = mr_lua_check_model(L, 1);
    const mr_vrm *v = m->model->vrm;
    int any = 0;
    for (int b = 0; v && b < MR_VRM_BONE_COUNT; b++) any |= v->humanoid[b] >= 0;
    if (!any) {
        lua_pushnil(L);
        return 1;
    }
    lua_newtable(L);
    for (int b = 0; b < MR_VRM_BONE_COUNT; b++) {
        if (v->humanoid[b] < 0) continue;
        lua_pushstring(L, m->model->skeleton.names[v->humanoid[b]]);
        lua_setfield(L, -2, mr_vrm_bone_names[b]);
    }
    return 1;
}

static int model_expressions(lua_State *L)
{
    mr_lua_model *m = mr_lua_check_model(L, 1);
    const mr_vrm *v = m->model->vrm;
    int n = v ? v->expression_count : 0;
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushstring(L, v->expressions[i].name);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static const char expr_key = 0;      /* registry: weak-keyed pose -> expression weights */

/* Pushes the weight table of the pose at idx (made when absent). */
static void expr_weights(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &expr_key) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_newtable(L);
        lua_pushliteral(L, "k");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &expr_key);
    }
    lua_pushvalue(L, idx);
    if (lua_rawget(L, -2) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, idx);
        lua_pushvalue(L, -2);
        lua_rawset(L, -4);
    }
    lua_remove(L, -2);
}

static int check_expression(lua_State *L, int arg, const mr_lua_pose *p)
{
    const mr_vrm *v = p->owner->vrm;
    const char *name = mr_lua_check_string(L, arg);
    int e = mr_vrm_expression_find(v, name);
    if (e < 0) {
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        int n = v ? v->expression_count : 0;
        for (int i = 0; i < n && i < 24; i++) {
            if (i) luaL_addstring(&b, ", ");
            luaL_addstring(&b, v->expressions[i].name);
        }
        luaL_pushresult(&b);
        mr_lua_arg_error(L, arg, lua_pushfstring(L, "no expression '%s' in the model (it has: %s)", name,
                                                 n ? lua_tostring(L, -1) : "none"));
    }
    return e;
}

static int pose_set_expression(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1);
    int e = check_expression(L, 2, p);
    float w = (float)mr_lua_check_range(L, 3, "weight", 0, 1);
    const mr_vrm *v = p->owner->vrm;
    expr_weights(L, 1);
    lua_pushnumber(L, w);
    lua_rawseti(L, -2, e + 1);
    float *weights = lua_newuserdatauv(L, sizeof(float) * (size_t)v->expression_count + 1, 0);
    for (int i = 0; i < v->expression_count; i++) {
        lua_rawgeti(L, -2, i + 1);
        weights[i] = (float)lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    int offsets_n = p->owner->mesh_count;
    int *offsets = lua_newuserdatauv(L, sizeof(int) * (size_t)offsets_n + 1, 0);
    for (int i = 0, off = 0; i < offsets_n; i++) {
        offsets[i] = off;
        off += p->owner->meshes[i].morph ? p->owner->meshes[i].morph->count : 0;
    }
    mr_vrm_expressions_apply(v, weights, offsets, p->morph, p->morph_count);
    lua_settop(L, 1);
    return 1;
}

static int pose_expression(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1);
    int e = check_expression(L, 2, p);
    expr_weights(L, 1);
    lua_rawgeti(L, -1, e + 1);
    lua_pushnumber(L, lua_tonumber(L, -1));
    return 1;
}

static const luaL_Reg springs_methods[] = {
    {"update", springs_update}, {"reset", springs_reset}, {"penetration", springs_penetration},
    {"joints", springs_joints}, {NULL, NULL},
};

static const luaL_Reg springs_meta[] = {
    {"__tostring", springs_tostring}, {"__gc", springs_gc}, {"__close", springs_gc}, {"__index", NULL},
    {NULL, NULL},
};

static const luaL_Reg model_methods[] = {
    {"springs", model_springs}, {"humanoid", model_humanoid}, {"expressions", model_expressions}, {NULL, NULL},
};

static const luaL_Reg pose_methods[] = {
    {"set_expression", pose_set_expression}, {"expression", pose_expression}, {NULL, NULL},
};

void mr_lua_open_springs(lua_State *L)
{
    mr_lua_newtype(L, MR_LUA_SPRINGS, springs_meta, springs_methods);
    mr_lua_pushfunc(L, l_springs, "marrow.springs", 0);
    lua_setfield(L, -2, "springs");
    mr_lua_add_methods(L, MR_LUA_MODEL, model_methods);
    mr_lua_add_methods(L, MR_LUA_POSE, pose_methods);
}
