/* wrap_recorder.c — marrow.record and the recorder type (anim/record.h).
 *
 *   marrow.record(model [, {fps = 30}]) -> recorder
 *   recorder:capture(pose [, t] [, transform]) -> recorder
 *       t: seconds (default marrow.time()); a capture at the last time
 *       replaces that frame. transform: the mat4 the character was drawn
 *       with (marrow.draw's transform) -> root motion in the clip.
 *       The pose's morph weights are recorded too (model with targets).
 *   recorder:clip([name] [, {tolerance = model units, weight_tolerance = w}])
 *       -> clip, report
 *       an authored clip (marrow.clip's kind: keyable, saveable) whose keys
 *       stay within tolerance (default 0.01 % of the model size) of the
 *       recording, measured, and whose morph weights stay within
 *       weight_tolerance (unitless, default 1e-3); report = {error =,
 *       weight_error =, keys =, frames_keys =, checks =} (error in model
 *       units, as measured; weights that never left their rest get no keys).
 *   recorder:frames() -> count      recorder:clear() -> recorder
 *
 * User value 1 is the model. A recorder is not handed over on live reload
 * (it starts empty in the new state).
 */
#include <math.h>
#include <string.h>

#include "core/defaults.h"
#include "anim/model.h"
#include "anim/morph.h"
#include "anim/record.h"
#include "lua/wrap.h"

#define MR_LUA_RECORDER "recorder"

typedef struct lua_recorder {
    mr_record rec;
    mr_model *model;
    float fps;
    size_t charged;          /* bytes of frames counted in the host's held_bytes */
} lua_recorder;

/* What the recording's frames take now (its arrays' capacity). */
static size_t frame_bytes(const mr_record *rec)
{
    return (size_t)rec->cap * sizeof(float) * (1 + (size_t)rec->joint_count * 10 + (size_t)rec->weight_count);
}

/* The frames are host memory outside the Lua heap: they count against the
 * script's --memory with its heap and models. Raises past it. */
static void charge(lua_State *L, lua_recorder *r)
{
    mr_lua_host *h = mr_lua_host_of(L);
    size_t now = frame_bytes(&r->rec);
    h->held_bytes = h->held_bytes - r->charged + now;
    r->charged = now;
    size_t heap = mr_lua_host_heap(L), used = heap + h->model_bytes + h->held_bytes;
    if (h->memory_limit && used > h->memory_limit)
        mr_lua_raise(L, "recordings hold %d MiB, and with the script's %d MiB of Lua and %d MiB of models that "
                        "is past its memory limit of %d MiB (--memory): make a clip and clear the recorder",
                     (int)(h->held_bytes >> 20), (int)(heap >> 20), (int)(h->model_bytes >> 20),
                     (int)(h->memory_limit >> 20));
}

static lua_recorder *check_recorder(lua_State *L, int arg)
{
    lua_recorder *r = mr_lua_check_udata(L, arg, MR_LUA_RECORDER);
    if (!r->rec.joint_count) mr_lua_raise(L, "attempt to use a closed recorder");
    return r;
}

static int recorder_gc(lua_State *L)
{
    lua_recorder *r = luaL_checkudata(L, 1, MR_LUA_RECORDER);
    mr_record_deinit(&r->rec);
    mr_lua_host *h = mr_lua_host_of(L);
    h->held_bytes -= r->charged < h->held_bytes ? r->charged : h->held_bytes;
    r->charged = 0;
    return 0;
}

static float model_size(const mr_model *m)
{
    vec3 lo, hi;
    if (!mr_model_bounds(m, lo, hi)) return 1.0f;
    float s = glm_vec3_distance(lo, hi);
    return s > 0.0f && isfinite(s) ? s : 1.0f;
}

static int l_record(lua_State *L)
{
    mr_lua_model *m = mr_lua_check_model(L, 1);
    mr_lua_opts o = mr_lua_check_opts(L, 2, "opts");
    static const char *const keys[] = {"fps", NULL};
    mr_lua_check_option_keys(L, &o, keys);
    float fps = mr_lua_opt_num(L, &o, "fps", MR_DEFAULT_FPS, 1e-3, 1e4);
    if (!(fps > 0.0f)) {
        mr_lua_opt_field(L, &o, "fps");
        return mr_lua_opt_error(L, &o, "fps", "a number > 0", lua_gettop(L));
    }
    lua_recorder *r = lua_newuserdatauv(L, sizeof *r, 1);
    memset(r, 0, sizeof *r);
    luaL_setmetatable(L, MR_LUA_RECORDER);
    if (mr_record_init(&r->rec, m->model->skeleton.joint_count) != MR_OK)
        return mr_lua_raise(L, "model has no joints to record");
    r->model = m->model;
    r->fps = fps;
    const mr_model *mo = m->model;
    int total = 0;
    for (int i = 0; i < mo->mesh_count; i++) total += mo->meshes[i].morph ? mo->meshes[i].morph->count : 0;
    if (total) {  /* the weight layout of morph.h, resting at the meshes' defaults */
        int *targets = lua_newuserdatauv(L, (size_t)mo->mesh_count * sizeof *targets, 0);
        float *rest = lua_newuserdatauv(L, (size_t)total * sizeof *rest, 0);
        for (int i = 0, off = 0; i < mo->mesh_count; i++) {
            const mr_morph_set *set = mo->meshes[i].morph;
            targets[i] = set ? set->count : 0;
            if (set) memcpy(rest + off, set->weights, (size_t)set->count * sizeof *rest);
            off += targets[i];
        }
        if (mr_record_set_weights(&r->rec, mo->mesh_count, targets, rest) != MR_OK)
            return mr_lua_raise(L, "out of memory");
        lua_pop(L, 2);
    }
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    return 1;
}

static int recorder_capture(lua_State *L)
{
    lua_recorder *r = check_recorder(L, 1);
    const mr_skeleton *sk = &r->model->skeleton;
    mr_lua_pose *p = mr_lua_check_pose_of(L, 2, sk);
    double t = mr_lua_host_of(L)->time;
    int xarg = 3;
    if (lua_type(L, 3) == LUA_TNUMBER) {
        t = lua_tonumber(L, 3);
        xarg = 4;
    } else if (lua_isnil(L, 3)) {
        xarg = 4;
    }
    mr_lua_arg_check(L, isfinite(t), 2, "t must be a finite number");
    mat4 root, *rp = NULL;
    if (!lua_isnoneornil(L, xarg)) {
        mat4 x, d, di, tmp;
        mr_lua_check_mat4(L, xarg, x);
        mr_model_display_matrix(r->model, d);
        glm_mat4_inv(d, di);
        glm_mat4_mul(x, d, tmp);
        glm_mat4_mul(di, tmp, root);   /* the draw transform in the model's axes */
        rp = &root;
    }
    if (r->rec.count && t < r->rec.times[r->rec.count - 1])
        return mr_lua_arg_error(L, 2, lua_pushfstring(L, "t = %f is before the last capture (%f)", t,
                                                      (double)r->rec.times[r->rec.count - 1]));
    mr_status st = mr_record_capture(&r->rec, sk, (float)t, &p->pose, rp ? *rp : NULL);
    if (st == MR_ERR_LIMIT)
        return mr_lua_raise(L, "the recording is full (%d frames; at most %d MiB of frames): make a clip and clear it",
                            r->rec.count, (int)(MR_RECORD_MAX_BYTES >> 20));
    if (st != MR_OK) return mr_lua_raise(L, "%s", mr_status_string(st));
    if (r->rec.weight_count && p->morph_count == r->rec.weight_count &&
        mr_record_weights(&r->rec, p->morph) != MR_OK)
        return mr_lua_arg_error(L, 2, "the pose's morph weights must be finite");
    charge(L, r);
    lua_settop(L, 1);
    return 1;
}

static int recorder_clip(lua_State *L)
{
    lua_recorder *r = check_recorder(L, 1);
    const char *name = "recording";
    int oarg = 2;
    if (lua_type(L, 2) == LUA_TSTRING) {
        name = lua_tostring(L, 2);
        mr_lua_arg_check(L, name[0], 1, "name must not be empty");
        oarg = 3;
    } else if (lua_isnil(L, 2)) {
        oarg = 3;
    }
    mr_lua_opts o = mr_lua_check_opts(L, oarg, "opts");
    static const char *const keys[] = {"tolerance", "weight_tolerance", NULL};
    mr_lua_check_option_keys(L, &o, keys);
    float size = model_size(r->model);
    float tol = mr_lua_opt_num(L, &o, "tolerance", MR_CLIP_FIDELITY * size, 0.0, 1e9);
    r->rec.weight_tolerance = mr_lua_opt_num(L, &o, "weight_tolerance", MR_RECORD_WEIGHT_TOLERANCE, 0.0, 1e9);
    mr_clip_edit *edit = NULL;
    mr_record_result res;
    mr_error err = {0};
    double token = mr_lua_host_pause(L);
    mr_status st = mr_record_reduce(&r->rec, &r->model->skeleton, tol, size, r->fps, &edit, &res, &err);
    mr_lua_host_resume(L, token);
    if (st == MR_ERR_LIMIT)   /* asked to stop (core/cancel.h): past the budget and its paused-work allowance */
        return mr_lua_host_stop(L, "in recorder:clip, reducing %d frames (a clip of fewer frames, or a larger "
                                "tolerance, takes less)", r->rec.count);
    if (st != MR_OK) return mr_lua_raise(L, "%s", err.msg);
    lua_getiuservalue(L, 1, 1);
    mr_lua_push_authored_clip(L, -1, name, edit);
    lua_createtable(L, 0, 4);
    lua_pushnumber(L, res.error);
    lua_setfield(L, -2, "error");
    lua_pushnumber(L, res.weight_error);
    lua_setfield(L, -2, "weight_error");
    lua_pushinteger(L, res.keys_kept);
    lua_setfield(L, -2, "keys");
    lua_pushinteger(L, res.keys_total);
    lua_setfield(L, -2, "frames_keys");
    lua_pushinteger(L, res.checks);
    lua_setfield(L, -2, "checks");
    return 2;
}

static int recorder_frames(lua_State *L)
{
    lua_pushinteger(L, check_recorder(L, 1)->rec.count);
    return 1;
}

static int recorder_clear(lua_State *L)
{
    lua_recorder *r = check_recorder(L, 1);
    r->rec.count = 0;
    lua_settop(L, 1);
    return 1;
}

static int recorder_tostring(lua_State *L)
{
    lua_recorder *r = check_recorder(L, 1);
    lua_pushfstring(L, "recorder (%d frames)", r->rec.count);
    return 1;
}

static const luaL_Reg methods[] = {
    {"capture", recorder_capture}, {"clip", recorder_clip}, {"frames", recorder_frames},
    {"clear", recorder_clear},
    {NULL, NULL},
};

static const luaL_Reg meta[] = {
    {"__gc", recorder_gc}, {"__close", recorder_gc}, {"__tostring", recorder_tostring}, {"__index", NULL},
    {NULL, NULL},
};

void mr_lua_open_recorder(lua_State *L)
{
    mr_lua_newtype(L, MR_LUA_RECORDER, meta, methods);
    mr_lua_pushfunc(L, l_record, "marrow.record", 0);
    lua_setfield(L, -2, "record");
}
