/* wrap_clip_edit.c — authored clips: marrow.clip and the clip methods that
 * key and edit them (anim/clip_edit.h does the work).
 *
 *   marrow.clip(model, {name = "bow", duration = 2 [, rate = 30]}) -> clip
 *       an empty clip of the model's skeleton, owned by the script; every
 *       joint holds its rest pose until keyed. Usable wherever a clip is.
 *   clip:key(joint, t, {rotation = q, translation = v, scale = s | number}
 *            [, {ease = "linear", bezier = {x1, y1, x2, y2}}]) -> clip
 *   clip:key_pose(t, pose [, mask] [, {ease = ...}]) -> clip
 *       without a mask also keys the pose's morph weights (model with targets)
 *   clip:key_morph(target, t, w [, {ease = ..., bezier = ...}]) -> clip
 *       keys morph target `target`'s weight (on every mesh that has it, as
 *       pose:set_morph sets it); unkeyed weights hold the mesh's default
 *   clip:keys(joint) -> {{time =, channel = "rotation", value =, ease =}, ...}
 *   clip:morph_keys(target) -> {{time =, channel = "morph", target =, value = w, ease =}, ...}
 *       (the first mesh's keys of that target)
 *   clip:remove_key(joint, t [, channel]) -> count
 *   clip:move_key(joint, t, new_t [, channel]) -> count
 *   clip:trim(t0, t1) :reverse() :retime(duration) :append(other) -> new clip
 *       (markers go along, moved with the keys)
 *
 * The clip re-bakes after each edit (anim/clip_edit.h: eased segments as
 * linear keys within half of MR_CLIP_FIDELITY of the model size), so the
 * next sample, mixer step or save sees the new keys. udata.c makes the
 * userdata (mr_lua_push_authored_clip: a hidden box in user value 2 owns the
 * clip and its edit) and hands it over on reload (transfer.c: the keys are
 * copied into the new state and baked again).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/clip_edit.h"
#include "anim/model.h"
#include "anim/morph.h"
#include "lua/wrap.h"

static float tolerance(float size) { return 0.5f * MR_CLIP_FIDELITY * size; }

/* The methods check their arguments first (so a wrong argument is named as
 * such on any clip), then that self is authored. */
static mr_lua_clip *need_edit(lua_State *L, mr_lua_clip *c, int arg)
{
    if (!c->edit)
        mr_lua_arg_error(L, arg, lua_pushfstring(L, "clip '%s' is not an authored clip (make one with marrow.clip)",
                                                 c->clip->name));
    return c;
}

static mr_lua_clip *check_authored(lua_State *L, int arg) { return need_edit(L, mr_lua_check_clip(L, arg), arg); }

/* Bakes the authored clip at index 1 (c) again after an edit. */
static void rebake(lua_State *L, mr_lua_clip *c)
{
    if (mr_clip_edit_bake(c->edit, tolerance(c->size), c->size, c->owned) != MR_OK)
        mr_lua_raise(L, "out of memory baking clip '%s'", c->clip->name);
    mr_lua_authored_charge(L, 1);
}

/* ---- marrow.clip ------------------------------------------------------------------ */

/* Gives edit the model's morph weight layout (morph.h): one weight per
 * target of every mesh, resting at the mesh's defaults. */
static mr_status set_weight_layout(mr_clip_edit *edit, const mr_model *mo)
{
    int total = 0;
    for (int i = 0; i < mo->mesh_count; i++) total += mo->meshes[i].morph ? mo->meshes[i].morph->count : 0;
    if (!total) return MR_OK;
    int *targets = calloc((size_t)mo->mesh_count, sizeof *targets);
    float *rest = calloc((size_t)total, sizeof *rest);
    mr_status st = targets && rest ? MR_OK : MR_ERR_NO_MEMORY;
    for (int i = 0, off = 0; st == MR_OK && i < mo->mesh_count; i++) {
        const mr_morph_set *set = mo->meshes[i].morph;
        if (!set) continue;
        targets[i] = set->count;
        memcpy(rest + off, set->weights, (size_t)set->count * sizeof *rest);
        off += set->count;
    }
    if (st == MR_OK) st = mr_clip_edit_set_weights(edit, mo->mesh_count, targets, rest);
    free(targets);
    free(rest);
    return st;
}

static int l_clip(lua_State *L)
{
    mr_lua_model *m = mr_lua_check_model(L, 1);
    mr_lua_opts o = mr_lua_check_opts(L, 2, "opts");
    static const char *const keys[] = {"duration", "rate", "name", NULL};
    mr_lua_check_option_keys(L, &o, keys);
    if (mr_lua_opt_field(L, &o, "duration") == LUA_TNIL)
        return mr_lua_opt_error(L, &o, "duration", "a number of seconds > 0", lua_gettop(L));
    lua_pop(L, 1);
    float duration = mr_lua_opt_num(L, &o, "duration", 0.0f, 0.0, 1e6);
    if (!(duration >= MR_CLIP_MIN_KEY_INTERVAL)) {   /* 1e-300 is > 0 but a float of 0 */
        mr_lua_opt_field(L, &o, "duration");
        return mr_lua_opt_error(L, &o, "duration", "a number of seconds from 1e-06 (the shortest time between "
                                "keys) to 1e+06", lua_gettop(L));
    }
    float rate = mr_lua_opt_num(L, &o, "rate", 30.0f, 1e-3, 1e4);
    const char *name = "clip";
    int t = mr_lua_opt_field(L, &o, "name");
    if (t == LUA_TSTRING && strlen(lua_tostring(L, -1)) != lua_rawlen(L, -1))
        return mr_lua_opt_error(L, &o, "name", "a name without NUL bytes", lua_gettop(L));
    if (t == LUA_TSTRING && lua_tostring(L, -1)[0]) name = lua_tostring(L, -1);
    else if (t != LUA_TNIL) return mr_lua_opt_error(L, &o, "name", "a non-empty string", lua_gettop(L));
    mr_clip_edit *edit = NULL;
    if (mr_clip_edit_create(m->model->skeleton.joint_count, duration, rate, &edit) != MR_OK)
        return mr_lua_raise(L, "cannot make a clip of %d joints", m->model->skeleton.joint_count);
    if (set_weight_layout(edit, m->model) != MR_OK) {
        mr_clip_edit_destroy(edit);
        return mr_lua_raise(L, "out of memory making clip '%s'", name);
    }
    mr_lua_push_authored_clip(L, 1, name, edit);
    return 1;
}

/* ---- keys ---------------------------------------------------------------------------- */

static const char *const CHANNELS[] = {"translation", "rotation", "scale", NULL};

static float check_time(lua_State *L, int arg, const mr_lua_clip *c)
{
    lua_Number t = mr_lua_check_number(L, arg);
    if (!isfinite(t) || t < 0.0 || t > c->clip->duration)
        mr_lua_arg_error(L, arg, lua_pushfstring(L, "time must be within 0..%f (the clip's duration), got %s",
                                                 (double)c->clip->duration, mr_lua_describe(L, arg)));
    return (float)t;
}

/* The ease options at arg: ease and its bezier handles. */
static mr_ease check_ease(lua_State *L, int arg, float bezier[4])
{
    mr_lua_opts o = mr_lua_check_opts(L, arg, "opts");
    static const char *const keys[] = {"ease", "bezier", NULL};
    mr_lua_check_option_keys(L, &o, keys);
    mr_ease e = (mr_ease)mr_lua_opt_enum(L, &o, "ease", MR_EASE_LINEAR, mr_ease_names);
    int n = mr_lua_opt_list(L, &o, "bezier", 4);
    if (e == MR_EASE_BEZIER || n >= 0) {
        if (n != 4) return (mr_ease)mr_lua_opt_error(L, &o, "bezier", "a list {x1, y1, x2, y2} with ease = \"bezier\"",
                                                     lua_gettop(L));
        for (int i = 0; i < 4; i++) {
            lua_geti(L, -1, i + 1);
            bezier[i] = (float)lua_tonumber(L, -1);
            int ok = lua_type(L, -1) == LUA_TNUMBER && isfinite(bezier[i]) &&
                     (i % 2 || (bezier[i] >= 0.0f && bezier[i] <= 1.0f));
            lua_pop(L, 1);
            if (!ok) return (mr_ease)mr_lua_opt_error(L, &o, "bezier", "{x1, y1, x2, y2}, numbers, x1 and x2 in 0..1",
                                                      lua_gettop(L));
        }
        if (e != MR_EASE_BEZIER)
            return (mr_ease)mr_lua_opt_error(L, &o, "bezier", "given only with ease = \"bezier\"", lua_gettop(L));
    }
    lua_pop(L, 1);
    return e;
}

static void set_key(lua_State *L, mr_lua_clip *c, int joint, int channel, float t, const float *v, mr_ease e,
                    const float *bezier, int arg)
{
    int merged = c->edit->merged;
    mr_status st = mr_clip_edit_key(c->edit, joint, channel, t, v, e, bezier);
    if (merged == 0 && c->edit->merged > 0) {   /* said once per clip */
        char msg[256];
        snprintf(msg, sizeof msg, "clip '%s': the key at %.9g s replaced the key at %.9g s (keys less than %g s "
                 "apart are one key; said once per clip)", c->clip->name,
                 (double)c->edit->merged_time[0], (double)c->edit->merged_time[1],
                 (double)(MR_CLIP_MIN_KEY_INTERVAL * 10.0f));
        lua_warning(L, msg, 0);
    }
    if (st == MR_ERR_NO_MEMORY || st == MR_ERR_LIMIT) mr_lua_raise(L, "%s", mr_status_string(st));
    if (st != MR_OK)
        mr_lua_arg_error(L, arg, lua_pushfstring(L, "%s must be finite%s", CHANNELS[channel],
                                                 channel == 1 ? " and not zero" : ""));
}

static int clip_key(lua_State *L)
{
    mr_lua_clip *c = mr_lua_check_clip(L, 1);
    const mr_skeleton *sk = &c->owner->skeleton;
    int joint = mr_lua_check_joint(L, 2, sk);
    float t = check_time(L, 3, c);
    mr_lua_check_type(L, 4, LUA_TTABLE);
    float bezier[4] = {0};
    mr_ease e = check_ease(L, 5, bezier);
    float v[3][4];
    int have[3] = {0};
    lua_pushnil(L);
    while (lua_next(L, 4)) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
        int ch = -1;
        for (int i = 0; i < 3; i++)
            if (!strcmp(k, CHANNELS[i])) ch = i;
        if (ch < 0) {
            lua_pop(L, 1);
            return mr_lua_arg_error(L, 3, lua_pushfstring(L, "unknown field '%s' (expected rotation, translation, "
                                                          "scale)", lua_type(L, -1) == LUA_TSTRING ? k : "?"));
        }
        int ok;
        if (ch == 1) ok = mr_lua_to_quat(L, -1, v[1]);
        else if (ch == 2 && lua_type(L, -1) == LUA_TNUMBER) {
            v[2][0] = v[2][1] = v[2][2] = (float)lua_tonumber(L, -1);
            ok = 1;
        } else ok = mr_lua_to_vec3(L, -1, v[ch]);
        if (!ok)
            return mr_lua_arg_error(L, 3, lua_pushfstring(L, "%s must be a %s, got %s", CHANNELS[ch],
                                                          ch == 1 ? "quat" : ch == 2 ? "vec3 or number" : "vec3",
                                                          mr_lua_describe(L, -1)));
        have[ch] = 1;
        lua_pop(L, 1);
    }
    if (!have[0] && !have[1] && !have[2])
        return mr_lua_arg_error(L, 3, "keys nothing: give rotation, translation or scale");
    need_edit(L, c, 1);
    for (int ch = 0; ch < 3; ch++)
        if (have[ch]) set_key(L, c, joint, ch, t, v[ch], e, bezier, 3);
    rebake(L, c);
    lua_settop(L, 1);
    return 1;
}

static int clip_key_pose(lua_State *L)
{
    mr_lua_clip *c = mr_lua_check_clip(L, 1);
    const mr_skeleton *sk = &c->owner->skeleton;
    float t = check_time(L, 2, c);
    mr_lua_pose *p = mr_lua_check_pose_of(L, 3, sk);
    const mr_lua_mask *mask = NULL;
    int opts = 4;
    if (luaL_testudata(L, 4, MR_LUA_MASK)) {
        mask = mr_lua_check_mask(L, 4, sk);
        opts = 5;
    } else if (lua_isnil(L, 4) && !lua_isnone(L, 5)) {
        opts = 5;
    }
    float bezier[4] = {0};
    mr_ease e = check_ease(L, opts, bezier);
    need_edit(L, c, 1);
    for (int j = 0; j < sk->joint_count; j++) {
        if (mask && !(mask->mask.w[j] > 0.0f)) continue;
        set_key(L, c, j, 0, t, p->pose.t[j], e, bezier, 2);
        set_key(L, c, j, 1, t, p->pose.r[j], e, bezier, 2);
        set_key(L, c, j, 2, t, p->pose.s[j], e, bezier, 2);
    }
    for (int k = 0; !mask && p->morph_count == c->edit->weight_count && k < p->morph_count; k++) {
        mr_status st = mr_clip_edit_key(c->edit, k, MR_EDIT_WEIGHT, t, &p->morph[k], e, bezier);
        if (st == MR_ERR_NO_MEMORY || st == MR_ERR_LIMIT) mr_lua_raise(L, "%s", mr_status_string(st));
        if (st != MR_OK) mr_lua_arg_error(L, 3, "morph weights must be finite");
    }
    rebake(L, c);
    lua_settop(L, 1);
    return 1;
}

static int clip_keys(lua_State *L)
{
    mr_lua_clip *c = mr_lua_check_clip(L, 1);
    int joint = mr_lua_check_joint(L, 2, &c->owner->skeleton);
    need_edit(L, c, 1);
    const mr_edit_channel *ch = &c->edit->ch[joint * 3];
    int idx[3] = {0, 0, 0}, n = 0;
    lua_createtable(L, ch[0].count + ch[1].count + ch[2].count, 0);
    for (;;) {  /* merge the three channels by time, translation first at equal times */
        int best = -1;
        for (int k = 0; k < 3; k++)
            if (idx[k] < ch[k].count &&
                (best < 0 || ch[k].keys[idx[k]].time < ch[best].keys[idx[best]].time))
                best = k;
        if (best < 0) break;
        const mr_edit_key *key = &ch[best].keys[idx[best]++];
        lua_createtable(L, 0, 5);
        lua_pushnumber(L, key->time);
        lua_setfield(L, -2, "time");
        lua_pushstring(L, CHANNELS[best]);
        lua_setfield(L, -2, "channel");
        if (best == 1) mr_lua_push_quat(L, key->value);
        else mr_lua_push_vec3(L, key->value);
        lua_setfield(L, -2, "value");
        lua_pushstring(L, mr_ease_names[key->ease]);
        lua_setfield(L, -2, "ease");
        if (key->ease == MR_EASE_BEZIER) {
            lua_createtable(L, 4, 0);
            for (int i = 0; i < 4; i++) {
                lua_pushnumber(L, key->bezier[i]);
                lua_seti(L, -2, i + 1);
            }
            lua_setfield(L, -2, "bezier");
        }
        lua_seti(L, -2, ++n);
    }
    return 1;
}

/* Calls back for every weight slot of target name in the clip's model
 * (morph.h's layout); returns how many, or raises naming the targets. */
static int weight_slots(lua_State *L, const mr_lua_clip *c, const char *name, int arg, int *slots, int max)
{
    const mr_model *mo = c->owner;
    int n = 0;
    for (int i = 0, off = 0; i < mo->mesh_count; i++) {
        const mr_morph_set *set = mo->meshes[i].morph;
        if (!set) continue;
        int k = mr_morph_set_find(set, name);
        if (k >= 0 && off + k < c->edit->weight_count && n < max) slots[n++] = off + k;
        off += set->count;
    }
    if (n) return n;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    lua_pushfstring(L, "the model has no morph target '%s' (targets:", name);
    luaL_addvalue(&b);
    int any = 0;
    for (int i = 0; i < mo->mesh_count; i++)
        for (int k = 0; mo->meshes[i].morph && k < mo->meshes[i].morph->count; k++) {
            luaL_addchar(&b, ' ');
            luaL_addstring(&b, mo->meshes[i].morph->targets[k].name);
            any = 1;
        }
    luaL_addstring(&b, any ? ")" : " none)");
    luaL_pushresult(&b);
    return mr_lua_arg_error(L, arg, lua_tostring(L, -1));
}

enum { MAX_SLOTS = 256 };

static int clip_key_morph(lua_State *L)
{
    mr_lua_clip *c = mr_lua_check_clip(L, 1);
    const char *name = mr_lua_check_string(L, 2);
    float t = check_time(L, 3, c);
    lua_Number w = mr_lua_check_number(L, 4);
    mr_lua_arg_check(L, isfinite(w), 4, "weight must be a finite number");
    float bezier[4] = {0};
    mr_ease e = check_ease(L, 5, bezier);
    need_edit(L, c, 1);
    int slots[MAX_SLOTS];
    int n = weight_slots(L, c, name, 2, slots, MAX_SLOTS);
    float v = (float)w;
    for (int i = 0; i < n; i++) {
        mr_status st = mr_clip_edit_key(c->edit, slots[i], MR_EDIT_WEIGHT, t, &v, e, bezier);
        if (st != MR_OK) mr_lua_raise(L, "%s", mr_status_string(st));
    }
    rebake(L, c);
    lua_settop(L, 1);
    return 1;
}

static int clip_morph_keys(lua_State *L)
{
    mr_lua_clip *c = mr_lua_check_clip(L, 1);
    const char *name = mr_lua_check_string(L, 2);
    need_edit(L, c, 1);
    int slots[1];
    weight_slots(L, c, name, 2, slots, 1);
    const mr_edit_channel *ch = &c->edit->w[slots[0]];
    lua_createtable(L, ch->count, 0);
    for (int i = 0; i < ch->count; i++) {
        const mr_edit_key *key = &ch->keys[i];
        lua_createtable(L, 0, 6);
        lua_pushnumber(L, key->time);
        lua_setfield(L, -2, "time");
        lua_pushliteral(L, "morph");
        lua_setfield(L, -2, "channel");
        lua_pushstring(L, name);
        lua_setfield(L, -2, "target");
        lua_pushnumber(L, key->value[0]);
        lua_setfield(L, -2, "value");
        lua_pushstring(L, mr_ease_names[key->ease]);
        lua_setfield(L, -2, "ease");
        if (key->ease == MR_EASE_BEZIER) {
            lua_createtable(L, 4, 0);
            for (int q = 0; q < 4; q++) {
                lua_pushnumber(L, key->bezier[q]);
                lua_seti(L, -2, q + 1);
            }
            lua_setfield(L, -2, "bezier");
        }
        lua_seti(L, -2, i + 1);
    }
    return 1;
}

static int opt_channel(lua_State *L, int arg)
{
    if (lua_isnoneornil(L, arg)) return -1;
    return luaL_checkoption(L, arg, NULL, CHANNELS);
}

static int clip_remove_key(lua_State *L)
{
    mr_lua_clip *c = mr_lua_check_clip(L, 1);
    int joint = mr_lua_check_joint(L, 2, &c->owner->skeleton);
    float t = check_time(L, 3, c);
    int channel = opt_channel(L, 4);
    need_edit(L, c, 1);
    int n = mr_clip_edit_remove(c->edit, joint, channel, t);
    rebake(L, c);
    lua_pushinteger(L, n);
    return 1;
}

static int clip_move_key(lua_State *L)
{
    mr_lua_clip *c = mr_lua_check_clip(L, 1);
    int joint = mr_lua_check_joint(L, 2, &c->owner->skeleton);
    float t = check_time(L, 3, c), to = check_time(L, 4, c);
    int channel = opt_channel(L, 5), moved = 0;
    need_edit(L, c, 1);
    for (int ch = 0; ch < 3; ch++) {
        if (channel >= 0 && ch != channel) continue;
        mr_edit_channel *e = &c->edit->ch[joint * 3 + ch];
        for (int i = 0; i < e->count; i++) {
            if (fabsf(e->keys[i].time - t) >= MR_CLIP_MIN_KEY_INTERVAL * 10.0f) continue;
            mr_edit_key k = e->keys[i];
            mr_clip_edit_remove(c->edit, joint, ch, t);
            if (mr_clip_edit_key(c->edit, joint, ch, to, k.value, k.ease, k.bezier) != MR_OK)
                return mr_lua_raise(L, "out of memory");
            moved++;
            break;
        }
    }
    rebake(L, c);
    lua_pushinteger(L, moved);
    return 1;
}

/* ---- whole-clip edits -------------------------------------------------------------- */

/* Markers of src within [lo, hi], moved to a + b * t, onto dst (clamped to
 * its duration). */
static void copy_markers(const mr_clip *src, mr_clip *dst, float lo, float hi, double a, double b)
{
    for (int i = 0; i < src->marker_count; i++) {
        float t = src->markers[i].time;
        if (t < lo || t > hi) continue;
        double m = a + b * t;
        mr_clip_add_marker(dst, (float)fmin(fmax(m, 0.0), dst->duration), src->markers[i].name);
    }
}

/* Pushes the edit's new authored clip (named as c), with c's markers
 * mapped as copy_markers does. */
static int finish_edit(lua_State *L, mr_lua_clip *c, mr_status st, mr_clip_edit *out, float lo, float hi, double a,
                       double b)
{
    if (st != MR_OK) return mr_lua_raise(L, "clip '%s': %s", c->clip->name, mr_status_string(st));
    lua_getiuservalue(L, 1, 1);
    mr_lua_clip *n = mr_lua_push_authored_clip(L, -1, c->clip->name, out);
    copy_markers(c->clip, n->owned, lo, hi, a, b);
    return 1;
}

static int clip_trim(lua_State *L)
{
    mr_lua_clip *c = mr_lua_check_clip(L, 1);
    float t0 = check_time(L, 2, c), t1 = check_time(L, 3, c);
    mr_lua_arg_check(L, t1 - t0 > 1e-4f, 3, "end must come after start");
    need_edit(L, c, 1);
    mr_clip_edit *out = NULL;
    mr_status st = mr_clip_edit_trim(c->edit, t0, t1, tolerance(c->size), c->size, &out);
    return finish_edit(L, c, st, out, t0, t1, -t0, 1.0);
}

static int clip_reverse(lua_State *L)
{
    mr_lua_clip *c = check_authored(L, 1);
    mr_clip_edit *out = NULL;
    mr_status st = mr_clip_edit_reverse(c->edit, &out);
    return finish_edit(L, c, st, out, 0.0f, c->clip->duration, c->clip->duration, -1.0);
}

static int clip_retime(lua_State *L)
{
    mr_lua_clip *c = mr_lua_check_clip(L, 1);
    float d = (float)mr_lua_check_number(L, 2);
    mr_lua_arg_check(L, isfinite(d) && d > 0.0f, 2, "duration must be a number of seconds > 0");
    need_edit(L, c, 1);
    mr_clip_edit *out = NULL;
    mr_status st = mr_clip_edit_retime(c->edit, d, &out);
    return finish_edit(L, c, st, out, 0.0f, c->clip->duration, 0.0, (double)d / c->clip->duration);
}

static int clip_append(lua_State *L)
{
    mr_lua_clip *c = mr_lua_check_clip(L, 1);
    mr_lua_clip *o = check_authored(L, 2);
    need_edit(L, c, 1);
    if (o->owner != c->owner) return mr_lua_arg_error(L, 2, "clip of another model");
    mr_clip_edit *out = NULL;
    mr_status st = mr_clip_edit_append(c->edit, o->edit, &out);
    finish_edit(L, c, st, out, 0.0f, c->clip->duration, 0.0, 1.0);
    copy_markers(o->clip, mr_lua_check_clip(L, -1)->owned, 0.0f, o->clip->duration, c->clip->duration, 1.0);
    return 1;
}

static const luaL_Reg methods[] = {
    {"key", clip_key}, {"key_pose", clip_key_pose}, {"keys", clip_keys},
    {"key_morph", clip_key_morph}, {"morph_keys", clip_morph_keys},
    {"remove_key", clip_remove_key}, {"move_key", clip_move_key},
    {"trim", clip_trim}, {"reverse", clip_reverse}, {"retime", clip_retime}, {"append", clip_append},
    {NULL, NULL},
};

void mr_lua_open_authoring(lua_State *L)
{
    mr_lua_add_methods(L, MR_LUA_CLIP, methods);
    mr_lua_pushfunc(L, l_clip, "marrow.clip", 0);
    lua_setfield(L, -2, "clip");
}
