/* wrap_pose.c — marrow.pose and the pose userdata with all its methods:
 * local TRS per joint, lazily computed model-space matrices, blending, the
 * bone overrides and inverse kinematics; plus marrow.blend and marrow.attach.
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
 *   :two_bone_ik(upper, mid, end, target [, opts]) -> reached
 *       turns upper and mid so that end lands on target (or points at it
 *       when out of reach). opts: pole (direction the middle joint bends
 *       toward; default: keep the pose's bend plane), soft (0..<1: eases the
 *       last fraction of the reach), weight (0..1, default 1), space, transform
 *   :ik_chain(first, last, target [, opts]) -> reached, error
 *       turns every joint from first down to last's parent so that last
 *       reaches target (anim/ik_chain.h); error is the distance left (model
 *       units, or metres with space = "world"). opts: solver "fabrik" |
 *       "ccd" ["fabrik"], pole (a point the chain's bend faces), iterations
 *       [64], tolerance (distance counted as reached, default 1e-5 of the
 *       chain), weight [1], space, transform, limits = {[joint] = {cone =
 *       deg [, twist = {min, max}]} or {hinge = vec3, min = deg, max = deg}}
 *       for joints of the chain (relative to their rest rotation; kept in
 *       every result)
 *   :aim(chain, target [, opts]) -> angle left (degrees)
 *       chain = {{"spine_03", 0.2}, {"neck", 0.3}, {"head", 0.5}}: joints
 *       root-most first, each an ancestor of the next, with their share of
 *       the turn (summing to <= 1) and optionally a per-joint limit in
 *       degrees as a third element. opts: forward (the last joint's aim axis
 *       in its own frame, default {1, 0, 0}: the mannequin faces +X), offset
 *       (aim origin in that frame, default its origin), limit (degrees for
 *       every joint without its own), weight, space, transform
 *   :set_morph(name, w)            morph target `name`'s weight (anim/morph.h) on every
 *                                  mesh that has it; w a finite number
 *   :morph(name) -> w              its weight (the first mesh's)
 *       A pose starts with the meshes' default weights; clip:sample sets
 *       the clip's, copy/set/blend carry them, marrow.draw draws them.
 *   :close() (also __gc/__close) frees the arrays; using it afterwards raises
 *   "attempt to use a closed pose".
 *   marrow.blend(out, {pose, w [, mask]}, ... [, mask]) -> out
 *       weighted blend (rest pose fills total weights below 0.1); a trailing
 *       mask applies to the layers that have none; out may be an input
 *   marrow.attach(model, pose, joint [, offset] [, {transform, offset}]) -> mat4
 *       the joint's frame in world space: m[13], m[14], m[15] is the joint's
 *       world position, and a prop drawn with {transform = m} follows it;
 *       offset (a mat4 in the joint's frame, model units: inches for MD5)
 *       places the prop relative to the joint (a sword's grip in the hand).
 *       The prop's own coordinates are read in the character's frame, so
 *       an MD5 prop held by an MD5 character needs no conversion
 *
 * Mutating methods return the pose, so calls chain. Overrides go through
 * src/anim/override.h and apply to the local pose, so children follow; they
 * are meant to run after sampling and blending, before the pose is drawn.
 * IK targets (and the pole) are in model space by default (the pose's frame:
 * MD5 models in inches, Z up). With space = "world" they are world points
 * (Y-up metres, what marrow.draw and the camera use) and opts.transform is
 * where the model is drawn (the same mat4 given to marrow.draw, default
 * identity). IK edits only local rotations, so it composes with sampling,
 * blending and overrides; a mixer's on_pose callback is the usual place.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "anim/attach.h"
#include "anim/blend.h"
#include "anim/ik.h"
#include "anim/ik_chain.h"
#include "anim/morph.h"
#include "anim/override.h"
#include "core/quat.h"
#include "core/str.h"
#include "lua/ik_limits.h"
#include "lua/wrap.h"

#define MAX_BLEND 32

static int pose_release(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_udata(L, 1, MR_LUA_POSE);
    mr_lua_pose_drop_cursor(L, p);     /* idempotent: a second call finds none */
    p->pose.t = NULL;                  /* the arrays live in the userdata itself */
    p->pose.r = NULL;
    p->pose.s = NULL;
    p->model = NULL;
    p->model_valid = 0;
    return 0;
}

/* marrow.pose(skeleton | model | pose) */
static int l_pose(lua_State *L)
{
    if (luaL_testudata(L, 1, MR_LUA_POSE)) {
        mr_lua_pose *src = mr_lua_check_pose(L, 1);
        lua_getiuservalue(L, 1, 1);
        mr_lua_pose_copy_morph(mr_lua_push_pose(L, -1, &src->pose), src);
    } else if (luaL_testudata(L, 1, MR_LUA_SKELETON)) {
        lua_getiuservalue(L, 1, 1);
        mr_lua_push_pose(L, -1, NULL);
    } else if (luaL_testudata(L, 1, MR_LUA_MODEL)) {
        mr_lua_push_pose(L, 1, NULL);
    } else {
        return mr_lua_type_error(L, 1, "skeleton, model or pose");
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
    mr_lua_pose *p = mr_lua_check_udata(L, 1, MR_LUA_POSE);
    if (!p->pose.t) lua_pushliteral(L, "pose (closed)");
    else lua_pushfstring(L, "pose (%d joints)", p->pose.joint_count);
    return 1;
}

static int pose_copy(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1);
    lua_getiuservalue(L, 1, 1);
    mr_lua_pose_copy_morph(mr_lua_push_pose(L, -1, &p->pose), p);
    return 1;
}

static void check_same(lua_State *L, mr_lua_pose *a, mr_lua_pose *b, int arg)
{
    if (a->pose.joint_count != b->pose.joint_count)
        mr_lua_arg_error(L, arg, lua_pushfstring(L, "pose has %d joints, expected %d",
                                              b->pose.joint_count, a->pose.joint_count));
}

static int pose_set(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1), *o = mr_lua_check_pose(L, 2);
    check_same(L, p, o, 2);
    mr_pose_copy(&p->pose, &o->pose);
    mr_lua_pose_copy_morph(p, o);
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
        mr_lua_arg_check(L, n > 1e-12f && isfinite(n), 3, "rotation must be a non-zero finite quat");
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
    mr_lua_check_max_args(L, 2);
    mr_lua_push_mat4(L, mr_lua_pose_model(p)[j]);
    return 1;
}

static int pose_position(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1);
    int j = mr_lua_check_joint(L, 2, p->sk);
    mr_lua_check_max_args(L, 2);
    mr_lua_push_vec3(L, mr_lua_pose_model(p)[j][3]);
    return 1;
}

static int pose_blend(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1), *o = mr_lua_check_pose(L, 2);
    check_same(L, p, o, 2);
    lua_Number w = mr_lua_check_number(L, 3);
    mr_lua_arg_check(L, w >= 0.0 && w <= 1.0, 3, "weight must be within 0..1");
    mr_lua_check_max_args(L, 3);
    float fw = (float)w;
    if (fw == 1.0f) mr_pose_copy(&p->pose, &o->pose);  /* the ends are exact */
    for (int j = 0; fw > 0.0f && fw < 1.0f && j < p->pose.joint_count; j++) {
        glm_vec3_lerp(p->pose.t[j], o->pose.t[j], fw, p->pose.t[j]);
        glm_vec3_lerp(p->pose.s[j], o->pose.s[j], fw, p->pose.s[j]);
        mr_quat_nlerp(p->pose.r[j], o->pose.r[j], fw, p->pose.r[j]);
    }
    for (int k = 0; p->morph_count == o->morph_count && k < p->morph_count; k++)
        p->morph[k] = fw == 1.0f ? o->morph[k] : p->morph[k] + (o->morph[k] - p->morph[k]) * fw;
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

static const char *const spaces_local[] = {"local", NULL};
static const char *const spaces[] = {"local", "model", NULL};
static const char *const modes[] = {"add", "replace", NULL};

/* Reads opts at arg (nil or a table). */
static override_opts check_opts(lua_State *L, int arg, mr_override_mode default_mode, int allow_model)
{
    mr_lua_opts t = mr_lua_check_opts(L, arg, "opts");
    static const char *const keys[] = {"weight", "space", "mode", NULL};
    mr_lua_check_option_keys(L, &t, keys);
    override_opts o;
    o.weight = mr_lua_opt_num(L, &t, "weight", 1.0f, 0, 1);
    o.space = mr_lua_opt_enum(L, &t, "space", 0, allow_model ? spaces : spaces_local) ? MR_SPACE_MODEL
                                                                                       : MR_SPACE_LOCAL;
    o.mode = mr_lua_opt_enum(L, &t, "mode", default_mode == MR_OVERRIDE_REPLACE, modes) ? MR_OVERRIDE_REPLACE
                                                                                          : MR_OVERRIDE_ADD;
    return o;
}

static int override_result(lua_State *L, mr_status st, const char *what)
{
    if (st != MR_OK)
        return mr_lua_raise(L, "%s: %s (non-finite value?)", what, mr_status_string(st));
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
    mr_lua_check_max_args(L, 4);
    mr_status st = mr_override_rotation(p->sk, &p->pose, j, q, o.space, o.mode, o.weight);
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
    mr_lua_check_max_args(L, 4);
    mr_status st = mr_override_translation(p->sk, &p->pose, j, v, o.space, o.mode, o.weight);
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
    mr_lua_check_max_args(L, 4);
    mr_status st = mr_override_scale(p->sk, &p->pose, j, s, o.mode, o.weight);
    p->model_valid = 0;
    return override_result(L, st, "scale override");
}

/* ---- inverse kinematics ------------------------------------------------------ */

typedef struct ik_space {
    int world;
    mat4 to_world;           /* transform * display (world only) */
} ik_space;

static const char *const ik_spaces[] = {"model", "world", NULL};

static ik_space check_space(lua_State *L, const mr_lua_opts *o, const mr_lua_pose *p)
{
    ik_space s = {0};
    glm_mat4_identity(s.to_world);
    s.world = mr_lua_opt_enum(L, o, "space", 0, ik_spaces);
    mat4 t = GLM_MAT4_IDENTITY_INIT;
    mr_lua_opt_mat4(L, o, "transform", t);       /* checked even when unused */
    if (s.world) {
        mat4 d;
        mr_model_display_matrix(p->owner, d);
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
        mr_lua_arg_error(L, arg, "target is not finite or the transform is not invertible");
}

static void to_model_dir(const ik_space *s, float v[3], vec3 out)
{
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
    mr_lua_opts o = mr_lua_check_opts(L, 6, "opts");
    static const char *const keys[] = {"space", "transform", "weight", "soft", "pole", NULL};
    mr_lua_check_option_keys(L, &o, keys);
    ik_space s = check_space(L, &o, p);
    to_model_point(L, 5, &s, job.target);
    job.weight = mr_lua_opt_num(L, &o, "weight", 1.0f, 0, 1);
    job.soft = mr_lua_opt_num(L, &o, "soft", 0.0f, 0, 0.999);
    float pole[3];
    if (mr_lua_opt_vec3(L, &o, "pole", pole)) to_model_dir(&s, pole, job.pole);
    mr_error err = {0};
    mr_lua_check_max_args(L, 6);
    mr_status st = mr_ik_two_bone(&job, &err);
    if (st != MR_OK) return mr_lua_raise(L, "%s", err.msg[0] ? err.msg : mr_status_string(st));
    p->model_valid = 0;
    lua_pushboolean(L, job.reached);
    return 1;
}

static int pose_aim(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1);
    mr_lua_check_type(L, 2, LUA_TTABLE);
    int n = (int)luaL_len(L, 2);
    mr_lua_arg_check(L, n >= 1 && n <= MR_AIM_MAX_JOINTS, 2, "chain of 1 to 16 {joint, share} entries expected");
    mr_lua_opts o = mr_lua_check_opts(L, 4, "opts");
    static const char *const keys[] = {"space", "transform", "limit", "weight", "forward", "offset", NULL};
    mr_lua_check_option_keys(L, &o, keys);
    ik_space s = check_space(L, &o, p);
    float limit = mr_lua_opt_num(L, &o, "limit", 180.0f, 0, 180);
    int joints[MR_AIM_MAX_JOINTS];
    float shares[MR_AIM_MAX_JOINTS], limits[MR_AIM_MAX_JOINTS];
    for (int i = 0; i < n; i++) {
        if (lua_geti(L, 2, i + 1) != LUA_TTABLE)
            mr_lua_arg_error(L, 2, lua_pushfstring(L, "chain[%d] must be {joint, share [, limit]}", i + 1));
        int e = lua_gettop(L);
        lua_geti(L, e, 1);
        joints[i] = mr_lua_check_joint(L, lua_gettop(L), p->sk);
        lua_geti(L, e, 2);
        int isnum;
        lua_Number sh = lua_tonumberx(L, -1, &isnum);
        if (!isnum || !(sh >= 0 && sh <= 1))
            mr_lua_arg_error(L, 2, lua_pushfstring(L, "chain[%d]: share must be a number within 0..1", i + 1));
        shares[i] = (float)sh;
        lua_geti(L, e, 3);
        lua_Number lim = lua_isnil(L, -1) ? limit : lua_tonumberx(L, -1, &isnum);
        if (!lua_isnil(L, -1) && (!isnum || !(lim >= 0 && lim <= 180)))
            mr_lua_arg_error(L, 2, lua_pushfstring(L, "chain[%d]: limit must be degrees within 0..180", i + 1));
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
    job.weight = mr_lua_opt_num(L, &o, "weight", 1.0f, 0, 1);
    mr_lua_opt_vec3(L, &o, "forward", job.forward);
    mr_lua_opt_vec3(L, &o, "offset", job.offset);
    mr_error err = {0};
    mr_lua_check_max_args(L, 4);
    mr_status st = mr_ik_aim(&job, &err);
    if (st != MR_OK) return mr_lua_raise(L, "%s", err.msg[0] ? err.msg : mr_status_string(st));
    p->model_valid = 0;
    lua_pushnumber(L, glm_deg(job.error));
    return 1;
}

/* ---- chain IK ----------------------------------------------------------------- */

static int pose_ik_chain(lua_State *L)
{
    static const char *const keys[] = {"solver", "pole", "iterations", "tolerance", "weight",
                                       "limits", "space", "transform", NULL};
    static const char *const solvers[] = {"fabrik", "ccd", NULL};
    mr_lua_pose *p = mr_lua_check_pose(L, 1);
    mr_ik_chain_job job = {0};
    job.skeleton = p->sk;
    job.pose = &p->pose;
    job.first = mr_lua_check_joint(L, 2, p->sk);
    job.last = mr_lua_check_joint(L, 3, p->sk);
    int n = mr_ik_chain_length(p->sk, job.first, job.last);
    if (n < 2)
        mr_lua_arg_error(L, 2, lua_pushfstring(L, "'%s' is not an ancestor of '%s'", p->sk->names[job.first],
                                               p->sk->names[job.last]));
    if (n > MR_IK_CHAIN_MAX_JOINTS)
        mr_lua_arg_error(L, 2, lua_pushfstring(L, "the chain from '%s' to '%s' has %d joints, at most %d",
                                               p->sk->names[job.first], p->sk->names[job.last], n,
                                               MR_IK_CHAIN_MAX_JOINTS));
    mr_lua_opts o = mr_lua_check_opts(L, 5, "opts");
    mr_lua_check_option_keys(L, &o, keys);
    ik_space s = check_space(L, &o, p);
    to_model_point(L, 4, &s, job.target);
    job.solver = mr_lua_opt_enum(L, &o, "solver", 0, solvers) == 1 ? MR_IK_CCD : MR_IK_FABRIK;
    job.weight = mr_lua_opt_num(L, &o, "weight", 1.0f, 0, 1);
    job.iterations = mr_lua_opt_int(L, &o, "iterations", MR_IK_CHAIN_ITERATIONS, 1, MR_IK_CHAIN_MAX_ITERATIONS);
    job.tolerance = mr_lua_opt_num(L, &o, "tolerance", 0.0f, 0, 1e30);
    if (mr_lua_opt_field(L, &o, "pole") != LUA_TNIL) {
        lua_pop(L, 1);
        float pole[3];
        mr_lua_opt_vec3(L, &o, "pole", pole);
        if (s.world) {
            mat4 w;
            glm_mat4_copy((vec4 *)s.to_world, w);
            if (mr_attach_world_to_model(w, pole, job.pole) != MR_OK)
                mr_lua_opt_error(L, &o, "pole", "a finite point", 0);
        } else {
            glm_vec3_copy(pole, job.pole);
        }
        job.has_pole = 1;
    } else {
        lua_pop(L, 1);
    }
    int chain[MR_IK_CHAIN_MAX_JOINTS];
    for (int k = n - 1, j = job.last; k >= 0; k--, j = p->sk->parents[j]) chain[k] = j;
    mr_ik_limit lim[MR_IK_CHAIN_MAX_JOINTS];
    mr_lua_ik_limits(L, &o, p->sk, chain, n, lim);
    for (int k = 0; k < n && !job.limits; k++)
        if (lim[k].kind != MR_IK_LIMIT_NONE) job.limits = lim;
    mr_error err = {0};
    mr_status st = mr_ik_chain_run(&job, &err);
    if (st != MR_OK) return mr_lua_raise(L, "%s", err.msg[0] ? err.msg : mr_status_string(st));
    p->model_valid = 0;
    float e = job.error;
    if (s.world) {
        vec3 tip, a, b;
        mr_ik_point_to_model(p->sk, &p->pose, job.last, (vec3){0, 0, 0}, tip);
        glm_mat4_mulv3(s.to_world, tip, 1.0f, a);
        glm_mat4_mulv3(s.to_world, job.target, 1.0f, b);
        e = glm_vec3_distance(a, b);
    }
    lua_pushboolean(L, job.reached);
    lua_pushnumber(L, e);
    return 2;
}

/* ---- module functions --------------------------------------------------------- */

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
    mr_lua_arg_check(L, n <= MAX_BLEND, MAX_BLEND + 2, "at most 32 poses");
    mr_blend_layer layers[MAX_BLEND];
    for (int i = 0; i < n; i++) {
        int arg = i + 2;
        mr_lua_check_type(L, arg, LUA_TTABLE);
        lua_geti(L, arg, 1);
        if (!luaL_testudata(L, -1, MR_LUA_POSE))
            mr_lua_arg_error(L, arg, lua_pushfstring(L, "{pose, weight [, mask]} expected, [1] is a %s",
                                                  luaL_typename(L, -1)));
        mr_lua_pose *p = mr_lua_check_pose(L, -1);
        if (p->pose.joint_count != out->pose.joint_count)
            mr_lua_arg_error(L, arg, lua_pushfstring(L, "pose has %d joints, expected %d", p->pose.joint_count,
                                                  out->pose.joint_count));
        lua_geti(L, arg, 2);
        int isnum;
        lua_Number w = lua_tonumberx(L, -1, &isnum);
        if (!isnum || !(w >= 0 && w <= 1))
            mr_lua_arg_error(L, arg, lua_pushfstring(L, "weight must be a number within 0..1, got %s",
                                                  luaL_tolstring(L, -1, NULL)));
        if (lua_rawlen(L, arg) > 3)
            mr_lua_arg_error(L, arg, lua_pushfstring(L, "{pose, weight [, mask]} expected, got %d entries",
                                                  (int)lua_rawlen(L, arg)));
        lua_geti(L, arg, 3);
        const mr_mask *mask = shared;
        if (!lua_isnil(L, -1)) mask = &mr_lua_check_mask(L, lua_gettop(L), out->sk)->mask;
        layers[i] = (mr_blend_layer){&p->pose, (float)w, mask};
        lua_pop(L, 3);                 /* pose, weight, mask */
    }
    mr_blend_job job = {out->sk, n ? layers : NULL, n, 0.0f, &out->pose};
    mr_error err = {0};
    mr_status st = mr_blend_run(&job, &err);
    if (st != MR_OK) return mr_lua_raise(L, "%s", err.msg[0] ? err.msg : mr_status_string(st));
    out->model_valid = 0;
    lua_settop(L, 1);
    return 1;
}

static int l_attach(lua_State *L)
{
    mr_lua_model *m = mr_lua_check_model(L, 1);
    mr_lua_pose *p = mr_lua_check_pose_of(L, 2, &m->model->skeleton);
    int j = mr_lua_check_joint(L, 3, p->sk);
    mat4 offset = GLM_MAT4_IDENTITY_INIT, t = GLM_MAT4_IDENTITY_INIT;
    int has_offset;                             /* attach(model, pose, joint [, offset] [, opts]) */
    mr_lua_opts o = mr_lua_check_opts_after(L, 4, luaL_testudata(L, 4, MR_LUA_MAT4) != NULL, "opts", &has_offset);
    static const char *const keys[] = {"offset", "transform", NULL};
    mr_lua_check_option_keys(L, &o, keys);
    if (has_offset) mr_lua_check_mat4(L, 4, offset);
    mr_lua_opt_mat4(L, &o, "offset", offset);
    mr_lua_opt_mat4(L, &o, "transform", t);
    mr_lua_check_max_args(L, 5);
    mat4 world, d, dinv, joint, out;
    mr_model_display_matrix(m->model, d);
    glm_mat4_mul(t, d, world);                  /* T * D */
    glm_mat4_inv(d, dinv);
    glm_mat4_copy((vec4 *)mr_lua_pose_model(p)[j], joint);
    glm_mat4_mul(joint, offset, joint);         /* J * O: the prop in the joint's frame */
    glm_mat4_mul(world, joint, out);
    glm_mat4_mul(out, dinv, out);               /* T * D * J * O * D^-1 */
    mr_lua_push_mat4(L, out);
    return 1;
}

/* Calls fn for every weight slot of target name in p's model; returns how
 * many. */
static int morph_slots(mr_lua_pose *p, const char *name, float **first)
{
    int n = 0;
    *first = NULL;
    for (int i = 0, off = 0; i < p->owner->mesh_count; i++) {
        const mr_morph_set *set = p->owner->meshes[i].morph;
        if (!set) continue;
        int k = mr_morph_set_find(set, name);
        if (k >= 0 && off + k < p->morph_count) {
            if (!*first) *first = &p->morph[off + k];
            n++;
        }
        off += set->count;
    }
    return n;
}

static int no_target(lua_State *L, mr_lua_pose *p, const char *name)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    lua_pushfstring(L, "pose: the model has no morph target '%s' (targets:", name);
    luaL_addvalue(&b);
    int any = 0;
    for (int i = 0; i < p->owner->mesh_count; i++)
        for (int k = 0; p->owner->meshes[i].morph && k < p->owner->meshes[i].morph->count; k++) {
            luaL_addchar(&b, ' ');
            luaL_addstring(&b, p->owner->meshes[i].morph->targets[k].name);
            any = 1;
        }
    luaL_addstring(&b, any ? ")" : " none)");
    luaL_pushresult(&b);
    return mr_lua_raise(L, "%s", lua_tostring(L, -1));
}

static int pose_set_morph(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1);
    const char *name = mr_lua_check_string(L, 2);
    lua_Number w = mr_lua_check_number(L, 3);
    mr_lua_arg_check(L, isfinite(w), 3, "weight must be a finite number");
    float *first;
    if (!morph_slots(p, name, &first)) return no_target(L, p, name);
    for (int i = 0, off = 0; i < p->owner->mesh_count; i++) {
        const mr_morph_set *set = p->owner->meshes[i].morph;
        if (!set) continue;
        int k = mr_morph_set_find(set, name);
        if (k >= 0 && off + k < p->morph_count) p->morph[off + k] = (float)w;
        off += set->count;
    }
    lua_settop(L, 1);
    return 1;
}

static int pose_morph(lua_State *L)
{
    mr_lua_pose *p = mr_lua_check_pose(L, 1);
    const char *name = mr_lua_check_string(L, 2);
    float *first;
    if (!morph_slots(p, name, &first)) return no_target(L, p, name);
    lua_pushnumber(L, *first);
    return 1;
}

static const luaL_Reg pose_methods[] = {
    {"set_morph", pose_set_morph},
    {"morph", pose_morph},
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
    {"two_bone_ik", pose_two_bone_ik},
    {"aim", pose_aim},
    {"ik_chain", pose_ik_chain},
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
    mr_lua_newtype(L, MR_LUA_POSE, pose_meta, pose_methods);
    static const luaL_Reg funcs[] = {
        {"pose", l_pose}, {"blend", l_blend}, {"attach", l_attach},
        {NULL, NULL},
    };
    mr_lua_setfuncs(L, "marrow.", funcs);
}
