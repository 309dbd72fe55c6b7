/* wrap_clip.c — the clip userdata with all its methods, and marrow.additive.
 *
 *   clip:name() :duration() :rate() :sample(t, pose [, loop = true]) -> pose
 *   clip:marker(t, name) -> clip   adds a named instant (the mixer reports it);
 *       adding the same name at the same time again does nothing (reloads)
 *   clip:markers() -> {{time =, name =}, ...}
 *   clip:optimize([tolerance = 1e-4]) -> clip   packs it (mr_clip_optimize):
 *       sampled within tolerance (of the model's size, 1e-7 to 0.01) of its
 *       keys, at any time, from a fraction of the memory; again at the same
 *       tolerance does nothing (reloads); the first packing of a clip does
 *       not count against the time budget, later ones do
 *   clip:bytes() -> what sampling reads (mr_clip_runtime_bytes), what the clip
 *       holds (mr_clip_bytes: the runtime, and the source keys while resident)
 *   clip:error([samples = 121]) -> the largest error of the runtime against the
 *       source keys, a fraction of the model's size (mr_clip_runtime_error)
 *   clip:mirror([opts]) -> clip   left and right swapped across the model's
 *       mid-plane (anim/mirror.h); a new clip of the same model, owned by the
 *       script. opts: map = {left_joint = "right_joint", ...} for joints the
 *       names do not pair, name (default "<name>_mirror")
 *   marrow.additive(clip, reference_pose | time) -> clip
 *       the delta of clip against a pose (or clip's own pose at that time),
 *       for an additive mixer track; the new clip is owned by the script
 *
 *   marrow.retarget(clip, source_model, target_model [, opts]) -> clip, report
 *       clip (of source_model) played by target_model (anim/retarget.h); the
 *       new clip is owned by the script. opts: map = {source_joint =
 *       "target_joint", ...} (else the joints are paired by name,
 *       anim/joint_map.h), scale = root path scale (default: legs' ratio),
 *       feet = true / hands = true (hold contacts with IK), keep_rest = true
 *       (no rest-pose alignment). report: the map and what was left out.
 *
 * A clip is a view into its model (user value 1) unless a script made it
 * (marrow.additive, marrow.retarget): then a hidden box it holds frees it
 * (udata.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/clip_runtime.h"
#include "anim/mirror.h"
#include "anim/morph.h"
#include "anim/retarget.h"
#include "anim/vrm_map.h"
#include "lua/wrap.h"

/* ---- methods ----------------------------------------------------------------- */

static int clip_name(lua_State *L)
{
    lua_pushstring(L, mr_lua_check_clip(L, 1)->clip->name);
    return 1;
}

static int clip_duration(lua_State *L)
{
    lua_pushnumber(L, mr_lua_check_clip(L, 1)->clip->duration);
    return 1;
}

static int clip_rate(lua_State *L)
{
    lua_pushnumber(L, mr_lua_check_clip(L, 1)->clip->rate);
    return 1;
}

static int clip_sample(lua_State *L)
{
    const mr_clip *c = mr_lua_check_clip(L, 1)->clip;
    lua_Number t = mr_lua_check_number(L, 2);
    mr_lua_pose *p = mr_lua_check_pose(L, 3);
    int loop = lua_isnoneornil(L, 4) ? 1 : lua_toboolean(L, 4);
    mr_lua_arg_check(L, isfinite(t), 1, "time must be a finite number");
    if (c->joint_count != p->pose.joint_count)
        return mr_lua_raise(L, "clip '%s' animates %d joints but the pose has %d", c->name,
                          c->joint_count, p->pose.joint_count);
    /* A packed clip (every loaded clip's runtime) through the pose's cursor:
     * the same pose, bit for bit, without searching every track's keys
     * when the pose follows a playhead. The cursor is made on the pose's
     * second such sample: a pose sampled once (a temporary) does not pay
     * for making one (about 4 us on Bob, a sample searched costs 5). */
    mr_clip_settle(c);
    mr_clip_cursor *cur = NULL;
    if (c->runtime && c->runtime->pack && (p->cursor || p->packed_samples++ > 0)) cur = mr_lua_pose_cursor(L, p);
    mr_status st = mr_clip_sample_with(c, p->sk, (float)t, loop ? MR_WRAP_LOOP : MR_WRAP_CLAMP, &p->pose, cur);
    if (st != MR_OK)
        return mr_lua_raise(L, "clip '%s': %s", c->name, mr_status_string(st));
    /* Morph weights: the clip's channels (or the meshes' defaults). */
    for (int i = 0, off = 0; i < p->owner->mesh_count; i++) {
        const mr_mesh *mesh = &p->owner->meshes[i];
        if (!mesh->morph || off + mesh->morph->count > p->morph_count) continue;
        mr_morph_sample(c, mesh, i, (float)t, loop ? MR_WRAP_LOOP : MR_WRAP_CLAMP, p->morph + off);
        off += mesh->morph->count;
    }
    p->model_valid = 0;
    lua_settop(L, 3);
    return 1;
}

static int clip_tostring(lua_State *L)
{
    const mr_clip *c = mr_lua_check_clip(L, 1)->clip;
    char buf[64];
    snprintf(buf, sizeof buf, "%.3g s, %.3g fps", c->duration, c->rate);
    lua_pushfstring(L, "clip '%s' (%s)", c->name, buf);
    return 1;
}

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
        mr_lua_arg_check(L, isfinite(t), 2, "time must be a finite number");
        ref_time = (float)t;
    } else if (luaL_testudata(L, 2, MR_LUA_POSE)) {
        mr_lua_pose *p = mr_lua_check_pose(L, 2);
        if (p->pose.joint_count != sk->joint_count)
            mr_lua_arg_error(L, 2, lua_pushfstring(L, "pose has %d joints, expected %d", p->pose.joint_count,
                                                sk->joint_count));
        ref = &p->pose;
    } else if (!lua_isnoneornil(L, 2)) {
        return mr_lua_type_error(L, 2, "pose or time");
    }
    mr_clip *out = NULL;
    mr_error err = {0};
    mr_status st = mr_blend_make_additive_clip(c->clip, sk, ref, ref_time, &out, &err);
    if (st != MR_OK) return mr_lua_raise(L, "%s", err.msg[0] ? err.msg : mr_status_string(st));
    mr_clip_finish(out);
    mr_lua_push_owned_clip(L, model_idx, out);
    return 1;
}

/* opts.map as name pairs (source, target) in pairs[]; the strings stay in
 * the table at map_idx. Returns the pair count. */
static int map_pairs(lua_State *L, const mr_lua_opts *o, int map_idx, const char **pairs, int max)
{
    int n = 0;
    lua_pushnil(L);
    while (lua_next(L, map_idx)) {
        if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING)
            mr_lua_opt_error(L, o, "map", "a table of joint names (source = target)", map_idx);
        if (n >= max) mr_lua_opt_error(L, o, "map", "at most as many pairs as target joints", map_idx);
        pairs[2 * n] = lua_tostring(L, -2);
        pairs[2 * n + 1] = lua_tostring(L, -1);
        n++;
        lua_pop(L, 1);
    }
    return n;
}

static int l_retarget(lua_State *L)
{
    mr_lua_clip *c = mr_lua_check_clip(L, 1);
    mr_lua_model *src = mr_lua_check_model(L, 2);
    mr_lua_model *dst = mr_lua_check_model(L, 3);
    mr_lua_opts o = mr_lua_check_opts(L, 4, "opts");
    static const char *const keys[] = {"scale", "feet", "hands", "keep_rest", "map", NULL};
    mr_lua_check_option_keys(L, &o, keys);
    if (c->owner != src->model)
        return mr_lua_arg_error(L, 1, lua_pushfstring(L, "clip '%s' is not a clip of source_model", c->clip->name));
    mr_retarget_opts opts = {
        .scale = mr_lua_opt_num(L, &o, "scale", 0.0f, 0.0, 1e6),
        .feet = mr_lua_opt_bool(L, &o, "feet", 0),
        .hands = mr_lua_opt_bool(L, &o, "hands", 0),
        .keep_rest = mr_lua_opt_bool(L, &o, "keep_rest", 0),
    };
    const mr_skeleton *ss = &src->model->skeleton, *ts = &dst->model->skeleton;
    mr_joint_map map;
    mr_error err = {0};
    mr_status st;
    int t = mr_lua_opt_field(L, &o, "map");
    if (t == LUA_TTABLE) {
        const char **pairs = lua_newuserdatauv(L, sizeof(char *) * 2 * (size_t)(ts->joint_count + 1), 0);
        int n = map_pairs(L, &o, lua_gettop(L) - 1, pairs, ts->joint_count);
        st = mr_joint_map_pairs(&map, ss, ts, pairs, n, &err);
    } else if (t == LUA_TNIL) {
        st = mr_vrm_joint_map(&map, src->model, dst->model, &err);   /* names, and a VRM avatar's humanoid bones */
    } else {
        return mr_lua_opt_error(L, &o, "map", "a table of joint names (source = target)", lua_gettop(L));
    }
    if (st != MR_OK) return mr_lua_raise(L, "%s", err.msg);
    mr_clip *out = NULL;
    mr_retarget_info info;
    st = mr_retarget_clip(c->clip, src->model, dst->model, &map, &opts, &out, &info, &err);
    char *report = st == MR_OK ? mr_joint_map_report(&map, ss, ts) : NULL;
    mr_joint_map_deinit(&map);
    if (st != MR_OK) return mr_lua_raise(L, "%s", err.msg);
    mr_clip_finish(out);
    mr_lua_push_owned_clip(L, 3, out);
    lua_pushfstring(L, "%s", report ? report : "");
    free(report);
    if (opts.feet || opts.hands) {
        char line[128];
        snprintf(line, sizeof line, "root path scale %.4g; %d contacts held, %d keys out of reach\n",
                 (double)info.scale, info.contact_count, info.unreached);
        lua_pushstring(L, line);
    } else {
        char line[64];
        snprintf(line, sizeof line, "root path scale %.4g\n", (double)info.scale);
        lua_pushstring(L, line);
    }
    if (info.body_turn >= 1.0f) {
        char line[256];
        snprintf(line, sizeof line, "facing: the target is turned %.0f degrees to face the way the source faces "
                 "(it does not keep its own facing; turn it back in the draw transform)\n", (double)info.body_turn);
        lua_pushstring(L, line);
        lua_concat(L, 2);
    }
    lua_concat(L, 2);
    return 2;
}

static int clip_mirror(lua_State *L)
{
    static const char *const keys[] = {"map", "name", NULL};
    mr_lua_clip *c = mr_lua_check_clip(L, 1);
    mr_lua_opts o = mr_lua_check_opts(L, 2, "opts");
    mr_lua_check_option_keys(L, &o, keys);
    lua_getiuservalue(L, 1, 1);        /* the model */
    int model_idx = lua_gettop(L);
    const mr_skeleton *sk = &mr_lua_check_model(L, model_idx)->model->skeleton;
    const char *name = NULL;
    int t = mr_lua_opt_field(L, &o, "name");
    if (t == LUA_TSTRING && lua_tostring(L, -1)[0]) name = lua_tostring(L, -1);
    else if (t != LUA_TNIL) mr_lua_opt_error(L, &o, "name", "a non-empty string", lua_gettop(L));
    const char **pairs = NULL;
    int n = 0;
    t = mr_lua_opt_field(L, &o, "map");
    if (t == LUA_TTABLE) {
        pairs = lua_newuserdatauv(L, sizeof(char *) * 2 * (size_t)(sk->joint_count + 1), 0);
        n = map_pairs(L, &o, lua_gettop(L) - 1, pairs, sk->joint_count);
    } else if (t != LUA_TNIL) {
        return mr_lua_opt_error(L, &o, "map", "a table of joint names (left = right)", lua_gettop(L));
    }
    mr_mirror_map map;
    mr_error err = {0};
    mr_status st = mr_mirror_map_find(&map, sk, pairs, n, &err);
    if (st != MR_OK) return mr_lua_raise(L, "%s", err.msg);
    mr_clip *out = NULL;
    st = mr_mirror_clip(c->clip, sk, &map, name, &out, &err);
    mr_mirror_map_deinit(&map);
    if (st != MR_OK) return mr_lua_raise(L, "%s", err.msg);
    mr_clip_finish(out);
    mr_lua_push_owned_clip(L, model_idx, out);
    return 1;
}

static int clip_marker(lua_State *L)
{
    mr_lua_clip *c = mr_lua_check_clip(L, 1);
    lua_Number t = mr_lua_check_number(L, 2);
    const char *name = mr_lua_check_string(L, 3);
    mr_clip *clip = (mr_clip *)c->clip;  /* markers are added to the model's clip, once */
    mr_lua_arg_check(L, t >= 0 && t <= clip->duration, 2,
                  lua_pushfstring(L, "time must be within 0..%f", (double)clip->duration));
    mr_lua_arg_check(L, name[0], 3, "marker name must not be empty");
    for (int i = 0; i < clip->marker_count; i++)
        if (clip->markers[i].time == (float)t && !strcmp(clip->markers[i].name, name)) {
            lua_settop(L, 1);
            return 1;
        }
    mr_status st = mr_clip_add_marker(clip, (float)t, name);
    if (st != MR_OK) return mr_lua_raise(L, "%s", mr_status_string(st));
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

static int clip_optimize(lua_State *L)
{
    mr_clip *clip = (mr_clip *)mr_lua_check_clip(L, 1)->clip;   /* the model's clip, packed in place */
    lua_Number tol = mr_lua_opt_number(L, 2, MR_CLIP_FIDELITY);
    mr_lua_arg_check(L, tol >= 1e-7 && tol <= 0.01, 2, "tolerance must be a fraction of the model's size from "
                                                      "1e-7 to 0.01 (1%)");
    const mr_clip_runtime *rt = clip->runtime;
    if (!rt || rt->thin_tolerance != (float)tol) {
        /* The first packing of a clip is load work, forgiven by the budget
         * up to the paused-work allowance (sandbox.h); packing it again at
         * another tolerance counts, so a loop of them cannot run outside the
         * budget. */
        int first = !rt || !(rt->thin_tolerance > 0);
        double paused = first ? mr_lua_host_pause(L) : 0.0;
        mr_status st = mr_clip_optimize(clip, (float)tol);
        if (first) mr_lua_host_resume(L, paused);
        if (st != MR_OK) return mr_lua_raise(L, "clip '%s': %s", clip->name, mr_status_string(st));
    }
    lua_settop(L, 1);
    return 1;
}

static int clip_bytes(lua_State *L)
{
    const mr_clip *c = mr_lua_check_clip(L, 1)->clip;
    lua_pushinteger(L, (lua_Integer)mr_clip_runtime_bytes(c));   /* settles a pack being built */
    lua_pushinteger(L, (lua_Integer)mr_clip_bytes(c));
    return 2;
}

/* clip:error([samples = 121]): the largest distance, as a fraction of the
 * model's size, between the runtime's pose and the exact pose of the
 * source keys (read again from the file when not resident), at virtual
 * points size / 18 along each joint's axes (mr_clip_runtime_error). */
static int clip_error(lua_State *L)
{
    const mr_lua_clip *lc = mr_lua_check_clip(L, 1);
    lua_Integer samples = mr_lua_opt_integer(L, 2, 121);
    mr_lua_arg_check(L, samples >= 2 && samples <= 100001, 2, "samples must be from 2 to 100001");
    const mr_model *m = lc->owner;
    vec3 lo, hi;
    double size = m && mr_model_bounds(m, lo, hi) ? glm_vec3_distance(lo, hi) : 0.0;
    if (!m || !(size > 0))
        return mr_lua_arg_error(L, 1, "a clip of a model with a size (its error is measured against it)");
    double paused = mr_lua_host_pause(L);   /* reading the keys again is load work */
    double e = 0;
    mr_clip_settle(lc->clip);
    int away = lc->clip->source_dropped;
    mr_status st = mr_clip_runtime_error(lc->clip, &m->skeleton, (float)(MR_CLIP_POINT_DISTANCE * size),
                                         (int)samples, &e);
    if (away) mr_clip_drop_source((mr_clip *)lc->clip);   /* read for this, given up again */
    mr_lua_host_resume(L, paused);
    if (st != MR_OK) return mr_lua_raise(L, "clip '%s': %s", lc->clip->name, mr_status_string(st));
    lua_pushnumber(L, e / size);
    return 1;
}

static const luaL_Reg clip_methods[] = {
    {"name", clip_name}, {"duration", clip_duration}, {"rate", clip_rate},
    {"sample", clip_sample}, {"marker", clip_marker}, {"markers", clip_markers},
    {"optimize", clip_optimize}, {"bytes", clip_bytes}, {"error", clip_error}, {"mirror", clip_mirror},
    {NULL, NULL},
};

static const luaL_Reg clip_meta[] = {
    {"__tostring", clip_tostring}, {"__index", NULL},
    {NULL, NULL},
};

void mr_lua_open_clip(lua_State *L)
{
    mr_lua_newtype(L, MR_LUA_CLIP, clip_meta, clip_methods);
    mr_lua_pushfunc(L, l_additive, "marrow.additive", 0);
    lua_setfield(L, -2, "additive");
    mr_lua_pushfunc(L, l_retarget, "marrow.retarget", 0);
    lua_setfield(L, -2, "retarget");
}
