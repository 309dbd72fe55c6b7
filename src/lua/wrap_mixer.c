/* wrap_mixer.c — marrow.mixer and the mixer and track userdata with all
 * their methods (a track's methods also work on a mixer, for track 1): the
 * choreography engine of src/anim/mixer.h for scripts.
 *
 *   marrow.mixer(model [, {tracks = 8, clips = 4}]) -> mixer
 *   mixer:track(i [, {additive = bool, mask = mask|false, weight = w}]) -> track
 *       tracks are stacked in index order (1 = the bottom); a track object
 *       stays valid as long as its mixer (it keeps the mixer alive)
 *   mixer:tracks() -> count
 *   Per track (track:f(...); mixer:f(...) is the same on track 1):
 *     :play(clip, opts)            opts: loop = "once"|"repeat"|"pingpong" (or
 *                                  true = "repeat"), repetitions (0 = forever),
 *                                  speed (negative plays backward), start
 *                                  (clip time), weight (the track's), restart,
 *                                  fade (seconds), curve = "smooth"|"linear",
 *                                  sync, root_motion
 *     :crossfade(clip, seconds [, opts])   play with opts.fade = seconds
 *     :queue(clip [, opts])        starts when the current clip ends; opts.delay,
 *                                  opts.fade and the play opts
 *     :play_blendspace(bs, x [, y] [, opts])   :set_param(x [, y])
 *     :stop([fade])  :pause()  :resume()  :seek(t)  :set_speed(s)
 *     :time() -> clip time   :weight() -> track weight   :set_weight(w [, fade])
 *     :clip_weight(clip) -> weight   the clip's share of the track's mix (0..1;
 *                                  instances and blend-space members summed,
 *                                  fading; the track's own weight not applied)
 *     :playing() -> {{clip, time, weight, speed, current, ended}, ...}
 *                                  (current first)
 *     :set_mask(mask | nil)  :set_additive(bool)
 *   mixer:set_mask(i, mask | nil)  the mask of track i
 *   mixer:clip_weight(clip) -> w   unlike the other track methods, every
 *                                  track: sum over tracks of track weight x the
 *                                  clip's share of that track (masks and the
 *                                  tracks layered above are not applied)
 *   mixer:update(dt)               advances time, fades and queues, then calls
 *                                  the event handlers of what happened
 *   mixer:pose([out]) -> pose      evaluates (sample, blend, layer, on_pose)
 *   mixer:on(event, fn) -> fn      fn(e) for every event named `event` (a marker
 *                                  name, "start", "loop", "end", or "*" for all),
 *                                  e = {name, clip, track, time, offset}
 *   mixer:off(event [, fn])        removes fn (or every handler of event)
 *   mixer:on_pose(fn | nil)        fn(pose) edits the layered local pose before
 *                                  model matrices are made (IK, overrides)
 *   mixer:set_root_motion(joint | nil [, {translation = true, yaw = true, uniform = true}])
 *   mixer:root_motion() -> vec3, yaw   motion of the last update in the model
 *                                  frame (model units) and degrees about up
 *   mixer:close()
 *
 * mixer:pose() without an argument evaluates into the mixer's own pose only
 * when something changed since the last call (an update, a play, ...), so
 * overrides a script applies to the returned pose in update() are still
 * there when draw() calls mixer:pose() again; mixer:pose(out) always
 * evaluates into out.
 *
 * Events are collected during the update by the C mixer and handed to the
 * Lua handlers after it returned, in the order they happened; an error in a
 * handler propagates out of mixer:update as any script error does (the
 * mixer stays consistent; later events of that update are not delivered).
 * Handlers may call any mixer function except update and close. The on_pose
 * callback runs inside the C evaluation under pcall; its error is raised
 * again once the evaluation has finished.
 *
 * User values keep everything the C mixer refers to alive: 1 = the model,
 * 2 = refs (lightuserdata clip/space -> the clip or blend space userdata),
 * 3 = handlers (event name -> list of functions), 4 = the own pose,
 * 5 = the on_pose function, 6 = a pending on_pose error.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "anim/mixer.h"
#include "anim/morph.h"
#include "lua/wrap.h"

enum { UV_MODEL = 1, UV_REFS, UV_HANDLERS, UV_POSE, UV_HOOK, UV_HOOK_ERR, UV_COUNT = UV_HOOK_ERR };

typedef struct mr_lua_mixer {
    mr_mixer *mx;            /* NULL once released */
    const mr_skeleton *sk;
    int tracks;
    int dirty;               /* the own pose is stale */
    int busy;                /* delivering events: update and close refused */
    lua_State *L;            /* during evaluation: for the pose hook */
    int self_idx, out_idx;   /* during evaluation: stack slots of mixer and pose */
    int hook_failed;
} mr_lua_mixer;

typedef struct mr_lua_track {
    int index;               /* 0-based; user value 1 = the mixer userdata */
} mr_lua_track;

static mr_lua_mixer *check_mixer(lua_State *L, int arg)
{
    mr_lua_mixer *m = mr_lua_check_udata(L, arg, MR_LUA_MIXER);
    if (!m->mx) mr_lua_raise(L, "attempt to use a closed mixer");
    return m;
}

/* self at index 1 is a mixer (track 0) or a track. Leaves the stack alone. */
static mr_lua_mixer *check_target(lua_State *L, int *track)
{
    mr_lua_track *t = luaL_testudata(L, 1, MR_LUA_TRACK);
    if (!t) {
        /* A track method (named "track:...") called on something else
         * expects a track; the same function on the mixer, a mixer. */
        const char *name = lua_tostring(L, lua_upvalueindex(1));
        if (name && !strncmp(name, "track:", 6) && !luaL_testudata(L, 1, MR_LUA_MIXER))
            mr_lua_type_error(L, 1, MR_LUA_TRACK);
        *track = 0;
        return check_mixer(L, 1);
    }
    lua_getiuservalue(L, 1, 1);
    mr_lua_mixer *m = mr_lua_check_udata(L, -1, MR_LUA_MIXER);
    lua_pop(L, 1);                     /* the track keeps the mixer alive */
    if (!m->mx) mr_lua_raise(L, "attempt to use a closed mixer");
    *track = t->index;
    return m;
}

static int fail(lua_State *L, mr_status st, const mr_error *err)
{
    /* The C mixer counts tracks from 0 ("mixer: track 0 plays nothing");
     * scripts count from 1, so such a message is told with the script's number. */
    int n, used = 0;
    if (sscanf(err->msg, "mixer: track %d%n", &n, &used) == 1 && used > 0)
        return mr_lua_raise(L, "track %d%s", n + 1, err->msg + used);
    return mr_lua_raise(L, "%s", err->msg[0] ? err->msg : mr_status_string(st));
}

/* The end of a mixer command: raise on failure, else mark the pose stale and
 * return the receiver for chaining. */
static int changed(lua_State *L, mr_lua_mixer *m, mr_status st, const mr_error *err)
{
    if (st != MR_OK) return fail(L, st, err);
    m->dirty = 1;
    lua_settop(L, 1);
    return 1;
}

/* Remembers the userdata at idx under key (keeps it alive while the mixer is).
 * The mixer userdata is found at self_idx (a mixer; for a track its user value). */
static void keep_ref(lua_State *L, int self, const void *key, int idx)
{
    idx = lua_absindex(L, idx);
    if (luaL_testudata(L, self, MR_LUA_TRACK)) {
        lua_getiuservalue(L, self, 1);
        lua_getiuservalue(L, -1, UV_REFS);
        lua_remove(L, -2);
    } else {
        lua_getiuservalue(L, self, UV_REFS);
    }
    lua_pushlightuserdata(L, (void *)key);
    lua_pushvalue(L, idx);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

static const char *const loops[] = {"once", "repeat", "pingpong", NULL};
static const char *const curves[] = {"smooth", "linear", NULL};

/* Reads play options at arg (nil or a table). */
static mr_play_opts check_play_opts(lua_State *L, int arg)
{
    mr_play_opts o = {0};
    mr_lua_opts t = mr_lua_check_opts(L, arg, "opts");
    if (!t.idx) return o;
    static const char *const keys[] = {"loop", "repetitions", "speed", "start", "weight", "fade", "delay",
                                       "curve", "sync", "root_motion", "restart", NULL};
    mr_lua_check_option_keys(L, &t, keys);
    static const mr_loop loop_modes[] = {MR_LOOP_ONCE, MR_LOOP_REPEAT, MR_LOOP_PINGPONG};
    int type = mr_lua_opt_field(L, &t, "loop");
    if (type == LUA_TBOOLEAN) o.loop = lua_toboolean(L, -1) ? MR_LOOP_REPEAT : MR_LOOP_ONCE;  /* true = "repeat" */
    else if (type != LUA_TNIL) o.loop = loop_modes[mr_lua_opt_enum(L, &t, "loop", 0, loops)];
    lua_pop(L, 1);
    o.repeat = mr_lua_opt_int(L, &t, "repetitions", 0, 0, 1000000);
    o.speed = mr_lua_opt_num(L, &t, "speed", 1.0f, -1e6, 1e6);
    o.frozen = o.speed == 0.0f;
    o.start = fmaxf(mr_lua_opt_num(L, &t, "start", 0.0f, -1e9, 1e9), 0.0f);   /* < 0: as absent */
    float weight = mr_lua_opt_num(L, &t, "weight", -1.0f, 0, 1);   /* absent: keep the track's */
    o.weight = weight > 0.0f ? weight : 0.0f;
    o.mute = weight == 0.0f;
    o.fade = mr_lua_opt_num(L, &t, "fade", 0.0f, 0, 1e6);
    o.delay = mr_lua_opt_num(L, &t, "delay", 0.0f, 0, 1e6);
    o.curve = mr_lua_opt_enum(L, &t, "curve", o.curve == MR_CURVE_LINEAR, curves) ? MR_CURVE_LINEAR
                                                                                    : MR_CURVE_SMOOTH;
    o.sync = mr_lua_opt_bool(L, &t, "sync", 0);
    o.root_motion = mr_lua_opt_bool(L, &t, "root_motion", 0);
    o.restart = mr_lua_opt_bool(L, &t, "restart", 0);
    return o;
}

/* A clip of the mixer's skeleton at arg. */
static const mr_clip *check_mixer_clip(lua_State *L, int arg, const mr_lua_mixer *m)
{
    const mr_clip *c = mr_lua_check_clip(L, arg)->clip;
    if (c->joint_count != m->sk->joint_count)
        mr_lua_arg_error(L, arg, lua_pushfstring(L, "clip '%s' animates %d joints but the mixer's skeleton has %d",
                                              c->name, c->joint_count, m->sk->joint_count));
    return c;
}

/* ---- marrow.mixer ---------------------------------------------------------------- */

static int l_mixer(lua_State *L)
{
    mr_lua_model *mo = mr_lua_check_model(L, 1);
    mr_mixer_desc d = {0};
    mr_lua_opts o = mr_lua_check_opts(L, 2, "opts");
    static const char *const keys[] = {"tracks", "clips", NULL};
    mr_lua_check_option_keys(L, &o, keys);
    if (o.idx) {
        d.max_tracks = (int)mr_lua_opt_num(L, &o, "tracks", 8, 1, MR_MIXER_MAX_TRACKS);
        d.max_clips_per_track = (int)mr_lua_opt_num(L, &o, "clips", 4, 2, MR_MIXER_MAX_CLIPS);
    }
    mr_lua_mixer *m = lua_newuserdatauv(L, sizeof *m, UV_COUNT);
    memset(m, 0, sizeof *m);           /* released state until the mixer exists */
    luaL_setmetatable(L, MR_LUA_MIXER);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, UV_MODEL);
    lua_newtable(L);
    lua_setiuservalue(L, -2, UV_REFS);
    lua_newtable(L);
    lua_setiuservalue(L, -2, UV_HANDLERS);
    mr_lua_push_pose(L, 1, NULL);
    lua_setiuservalue(L, -2, UV_POSE);
    mr_error err = {0};
    mr_mixer_create(&mo->model->skeleton, mo->model->axes.up, &d, &m->mx, &err);
    if (!m->mx) return fail(L, MR_ERR_NO_MEMORY, &err);
    m->sk = &mo->model->skeleton;
    m->tracks = mr_mixer_track_count(m->mx);
    m->dirty = 1;
    return 1;
}

static int mixer_release(lua_State *L)
{
    mr_lua_mixer *m = mr_lua_check_udata(L, 1, MR_LUA_MIXER);
    if (m->busy) return luaL_error(L, "mixer:close called from one of its callbacks");
    mr_mixer_destroy(m->mx);
    m->mx = NULL;
    return 0;
}

static int mixer_tostring(lua_State *L)
{
    mr_lua_mixer *m = mr_lua_check_udata(L, 1, MR_LUA_MIXER);
    if (!m->mx) lua_pushliteral(L, "mixer (closed)");
    else lua_pushfstring(L, "mixer (%d tracks, %d joints)", m->tracks, m->sk->joint_count);
    return 1;
}

static int check_track_index(lua_State *L, int arg, const mr_lua_mixer *m)
{
    lua_Integer i = mr_lua_check_integer(L, arg);
    mr_lua_arg_check(L, i >= 1 && i <= m->tracks, arg,
                  lua_pushfstring(L, "track %d out of range 1..%d", (int)i, m->tracks));
    return (int)i - 1;
}

static void set_mask_at(lua_State *L, mr_lua_mixer *m, int track, int arg)
{
    mr_error err = {0};
    const mr_mask *mask = NULL;
    if (!lua_isnoneornil(L, arg) && !(lua_isboolean(L, arg) && !lua_toboolean(L, arg)))
        mask = &mr_lua_check_mask(L, arg, m->sk)->mask;
    mr_status st = mr_mixer_set_mask(m->mx, track, mask, &err);
    if (st != MR_OK) fail(L, st, &err);
    m->dirty = 1;
}

static int mixer_track(lua_State *L)
{
    mr_lua_mixer *m = check_mixer(L, 1);
    int i = check_track_index(L, 2, m);
    mr_lua_opts o = mr_lua_check_opts(L, 3, "opts");
    static const char *const keys[] = {"mask", "additive", "weight", NULL};
    mr_lua_check_option_keys(L, &o, keys);
    if (o.idx) {
        mr_error err = {0};
        if (mr_lua_opt_field(L, &o, "mask") != LUA_TNIL) {
            int top = lua_gettop(L);
            if (!luaL_testudata(L, top, MR_LUA_MASK) && !(lua_isboolean(L, top) && !lua_toboolean(L, top)))
                mr_lua_opt_error(L, &o, "mask", "a mask or false", top);
            set_mask_at(L, m, i, top);
        }
        lua_pop(L, 1);
        if (mr_lua_opt_field(L, &o, "additive") != LUA_TNIL) {
            mr_status st = mr_mixer_set_additive(m->mx, i, lua_toboolean(L, -1), &err);
            if (st != MR_OK) return fail(L, st, &err);
        }
        lua_pop(L, 1);
        float w = mr_lua_opt_num(L, &o, "weight", -1, 0, 1);
        if (w >= 0) {
            mr_status st = mr_mixer_set_weight(m->mx, i, w, 0.0f, &err);
            if (st != MR_OK) return fail(L, st, &err);
        }
        m->dirty = 1;
    }
    mr_lua_track *t = lua_newuserdatauv(L, sizeof *t, 1);
    t->index = i;
    luaL_setmetatable(L, MR_LUA_TRACK);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    return 1;
}

static int mixer_tracks(lua_State *L)
{
    lua_pushinteger(L, check_mixer(L, 1)->tracks);
    return 1;
}

static int mixer_set_mask(lua_State *L)
{
    mr_lua_mixer *m = check_mixer(L, 1);
    set_mask_at(L, m, check_track_index(L, 2, m), 3);
    lua_settop(L, 1);
    return 1;
}

/* ---- per-track methods -------------------------------------------------------------- */

/* track:play / track:queue (clip, opts): the clip is kept alive by the mixer. */
static int clip_call(lua_State *L,
                     mr_status (*act)(mr_mixer *, int, const mr_clip *, const mr_play_opts *, mr_error *))
{
    int tr;
    mr_lua_mixer *m = check_target(L, &tr);
    const mr_clip *c = check_mixer_clip(L, 2, m);
    mr_play_opts o = check_play_opts(L, 3);
    mr_error err = {0};
    keep_ref(L, 1, c, 2);
    mr_status st = act(m->mx, tr, c, &o, &err);
    return changed(L, m, st, &err);
}

static int track_play(lua_State *L) { return clip_call(L, mr_mixer_play); }

static int track_crossfade(lua_State *L)
{
    int tr;
    mr_lua_mixer *m = check_target(L, &tr);
    const mr_clip *c = check_mixer_clip(L, 2, m);
    lua_Number s = mr_lua_check_number(L, 3);
    mr_lua_arg_check(L, s >= 0 && s <= 1e6, 3, "seconds must be a finite number >= 0");
    mr_play_opts o = check_play_opts(L, 4);
    mr_error err = {0};
    keep_ref(L, 1, c, 2);
    mr_status st = mr_mixer_crossfade(m->mx, tr, c, (float)s, o.curve, &o, &err);
    return changed(L, m, st, &err);
}

static int track_queue(lua_State *L) { return clip_call(L, mr_mixer_queue); }

static int track_play_blendspace(lua_State *L)
{
    int tr;
    mr_lua_mixer *m = check_target(L, &tr);
    const mr_blendspace *bs = &mr_lua_check_blendspace(L, 2, m->sk)->bs;
    lua_Number x = mr_lua_check_number(L, 3), y = 0;
    int has_y;                         /* (bs, x [, y] [, opts]) */
    int opts = mr_lua_check_opts_after(L, 4, lua_type(L, 4) == LUA_TNUMBER, "opts", &has_y).arg;
    if (has_y) y = mr_lua_check_number(L, 4);
    mr_lua_arg_check(L, isfinite(x) && isfinite(y), 3, "parameters must be finite numbers");
    mr_play_opts o = check_play_opts(L, opts);
    mr_error err = {0};
    keep_ref(L, 1, bs, 2);             /* the space keeps its clips alive */
    lua_getiuservalue(L, 2, 2);        /* and its clips are named in events */
    for (int i = 0; i < bs->count; i++) {
        lua_geti(L, -1, i + 1);
        keep_ref(L, 1, ((mr_lua_clip *)lua_touserdata(L, -1))->clip, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    mr_status st = mr_mixer_play_blendspace(m->mx, tr, bs, (float)x, (float)y, &o, &err);
    return changed(L, m, st, &err);
}

static int track_set_param(lua_State *L)
{
    int tr;
    mr_lua_mixer *m = check_target(L, &tr);
    lua_Number x = mr_lua_check_number(L, 2), y = mr_lua_opt_number(L, 3, 0);
    mr_lua_arg_check(L, isfinite(x) && isfinite(y), 2, "parameters must be finite numbers");
    mr_error err = {0};
    mr_status st = mr_mixer_set_param(m->mx, tr, (float)x, (float)y, &err);
    return changed(L, m, st, &err);
}

static int track_stop(lua_State *L)
{
    int tr;
    mr_lua_mixer *m = check_target(L, &tr);
    lua_Number f = mr_lua_opt_number(L, 2, 0);
    mr_lua_arg_check(L, f >= 0 && f <= 1e6, 2, "fade must be a finite number >= 0");
    mr_error err = {0};
    mr_status st = mr_mixer_stop(m->mx, tr, (float)f, &err);
    return changed(L, m, st, &err);
}

static int do_pause(lua_State *L, int paused)
{
    int tr;
    mr_lua_mixer *m = check_target(L, &tr);
    mr_error err = {0};
    mr_status st = mr_mixer_pause(m->mx, tr, paused, &err);
    if (st != MR_OK) return fail(L, st, &err);
    lua_settop(L, 1);
    return 1;
}

static int track_pause(lua_State *L) { return do_pause(L, 1); }
static int track_resume(lua_State *L) { return do_pause(L, 0); }

static int track_seek(lua_State *L)
{
    int tr;
    mr_lua_mixer *m = check_target(L, &tr);
    lua_Number t = mr_lua_check_number(L, 2);
    mr_lua_arg_check(L, isfinite(t), 2, "time must be a finite number");
    mr_error err = {0};
    mr_status st = mr_mixer_seek(m->mx, tr, (float)t, &err);
    return changed(L, m, st, &err);
}

static int track_set_speed(lua_State *L)
{
    int tr;
    mr_lua_mixer *m = check_target(L, &tr);
    lua_Number s = mr_lua_check_number(L, 2);
    mr_lua_arg_check(L, s >= -1e6 && s <= 1e6, 2, "speed must be a finite number");
    mr_error err = {0};
    mr_status st = mr_mixer_set_speed(m->mx, tr, (float)s, &err);
    if (st != MR_OK) return fail(L, st, &err);
    lua_settop(L, 1);
    return 1;
}

/* Pushes one number a mixer getter reads from the target track. */
static int push_track_number(lua_State *L, mr_status (*get)(const mr_mixer *, int, float *))
{
    int tr;
    mr_lua_mixer *m = check_target(L, &tr);
    float v = 0;
    get(m->mx, tr, &v);
    lua_pushnumber(L, v);
    return 1;
}

static int track_time(lua_State *L) { return push_track_number(L, mr_mixer_time); }
static int track_weight(lua_State *L) { return push_track_number(L, mr_mixer_weight); }

static int track_set_weight(lua_State *L)
{
    int tr;
    mr_lua_mixer *m = check_target(L, &tr);
    lua_Number w = mr_lua_check_number(L, 2), f = mr_lua_opt_number(L, 3, 0);
    mr_lua_arg_check(L, w >= 0 && w <= 1, 2, "weight must be within 0..1");
    mr_lua_arg_check(L, f >= 0 && f <= 1e6, 3, "fade must be a finite number >= 0");
    mr_error err = {0};
    mr_status st = mr_mixer_set_weight(m->mx, tr, (float)w, (float)f, &err);
    return changed(L, m, st, &err);
}

static int track_clip_weight(lua_State *L)
{
    int tr;
    mr_lua_mixer *m = check_target(L, &tr);
    const mr_clip *c = mr_lua_check_clip(L, 2)->clip;
    float w = 0;
    mr_mixer_clip_weight(m->mx, tr, c, &w);
    lua_pushnumber(L, w);
    return 1;
}

/* mixer:clip_weight(clip): the clip wherever it plays, not only on track 1:
 * the sum over the tracks of the track's weight times the clip's share of
 * the track (both fading). */
static int mixer_clip_weight(lua_State *L)
{
    mr_lua_mixer *m = check_mixer(L, 1);
    const mr_clip *c = mr_lua_check_clip(L, 2)->clip;
    float sum = 0;
    for (int i = 0; i < m->tracks; i++) {
        float share = 0, weight = 0;
        mr_mixer_clip_weight(m->mx, i, c, &share);
        mr_mixer_weight(m->mx, i, &weight);
        sum += share * weight;
    }
    lua_pushnumber(L, sum);
    return 1;
}

/* Pushes the clip userdata the mixer remembers for c (nil if unknown). */
static void push_ref(lua_State *L, int mixer_idx, const void *c)
{
    lua_getiuservalue(L, mixer_idx, UV_REFS);
    lua_pushlightuserdata(L, (void *)c);
    lua_rawget(L, -2);
    lua_remove(L, -2);
}

/* Pushes the mixer userdata of self (index 1); returns its absolute index. */
static int push_mixer_of(lua_State *L)
{
    if (luaL_testudata(L, 1, MR_LUA_TRACK)) lua_getiuservalue(L, 1, 1);
    else lua_pushvalue(L, 1);
    return lua_gettop(L);
}

static int track_playing(lua_State *L)
{
    int tr;
    mr_lua_mixer *m = check_target(L, &tr);
    mr_mixer_clip_info info[MR_MIXER_MAX_CLIPS];
    int n = mr_mixer_playing(m->mx, tr, info, MR_MIXER_MAX_CLIPS);
    if (n > MR_MIXER_MAX_CLIPS) n = MR_MIXER_MAX_CLIPS;
    int mi = push_mixer_of(L);
    lua_createtable(L, n > 0 ? n : 0, 0);
    for (int i = 0; i < n; i++) {
        lua_createtable(L, 0, 7);
        push_ref(L, mi, info[i].clip);
        lua_setfield(L, -2, "clip");
        lua_pushnumber(L, info[i].time);
        lua_setfield(L, -2, "time");
        lua_pushnumber(L, info[i].weight);
        lua_setfield(L, -2, "weight");
        lua_pushnumber(L, info[i].speed);
        lua_setfield(L, -2, "speed");
        lua_pushboolean(L, info[i].current);
        lua_setfield(L, -2, "current");
        lua_pushboolean(L, info[i].ended);
        lua_setfield(L, -2, "ended");
        lua_pushboolean(L, info[i].is_blendspace);
        lua_setfield(L, -2, "blendspace");
        lua_seti(L, -2, i + 1);
    }
    return 1;
}

static int track_set_mask(lua_State *L)
{
    int tr;
    mr_lua_mixer *m = check_target(L, &tr);
    set_mask_at(L, m, tr, 2);
    lua_settop(L, 1);
    return 1;
}

static int track_set_additive(lua_State *L)
{
    int tr;
    mr_lua_mixer *m = check_target(L, &tr);
    mr_lua_check_type(L, 2, LUA_TBOOLEAN);
    mr_error err = {0};
    mr_status st = mr_mixer_set_additive(m->mx, tr, lua_toboolean(L, 2), &err);
    return changed(L, m, st, &err);
}

static int track_index(lua_State *L)
{
    int tr;
    check_target(L, &tr);
    lua_pushinteger(L, tr + 1);
    return 1;
}

static int track_tostring(lua_State *L)
{
    mr_lua_track *t = mr_lua_check_udata(L, 1, MR_LUA_TRACK);
    lua_pushfstring(L, "track %d", t->index + 1);
    return 1;
}

/* ---- update, events, pose ------------------------------------------------------------ */

/* Calls the handlers in the list at `list` with the event table at ev, each
 * under pcall so busy can be cleared before an error is raised again.
 * Returns 0 when one failed (its message on top). */
static int call_handlers(lua_State *L, int list, int ev)
{
    int n = (int)luaL_len(L, list);
    for (int k = 1; k <= n; k++) {
        lua_geti(L, list, k);
        lua_pushvalue(L, ev);
        if (lua_pcall(L, 1, 0, 0) != LUA_OK) return 0;
    }
    return 1;
}

static int mixer_update(lua_State *L)
{
    mr_lua_mixer *m = check_mixer(L, 1);
    lua_Number dt = mr_lua_check_number(L, 2);
    mr_lua_arg_check(L, dt >= 0 && dt <= 1e6, 2, "dt must be a finite number >= 0");
    if (m->busy) return luaL_error(L, "mixer:update called from one of its event handlers");
    mr_error err = {0};
    mr_status st = mr_mixer_update(m->mx, (float)dt, &err);
    if (st != MR_OK) return fail(L, st, &err);
    m->dirty = 1;
    int count = 0;
    const mr_mixer_event *ev = mr_mixer_events(m->mx, &count);
    if (count == 0) return 0;
    lua_settop(L, 1);
    lua_getiuservalue(L, 1, UV_HANDLERS);            /* 2 */
    int any = lua_getfield(L, 2, "*") == LUA_TTABLE;  /* 3 */
    /* The event list stays valid while handlers run: they cannot update
     * (busy is set only around the calls, so no other error leaves it set). */
    for (int i = 0; i < count; i++) {
        int has = lua_getfield(L, 2, ev[i].name) == LUA_TTABLE;  /* 4 */
        if (!has && !any) {
            lua_settop(L, 3);
            continue;
        }
        lua_createtable(L, 0, 5);      /* 5 */
        lua_pushstring(L, ev[i].name);
        lua_setfield(L, 5, "name");
        push_ref(L, 1, ev[i].clip);
        lua_setfield(L, 5, "clip");
        lua_pushinteger(L, ev[i].track + 1);
        lua_setfield(L, 5, "track");
        lua_pushnumber(L, ev[i].time);
        lua_setfield(L, 5, "time");
        lua_pushnumber(L, ev[i].offset);
        lua_setfield(L, 5, "offset");
        m->busy = 1;
        int ok = (!has || call_handlers(L, 4, 5)) && (!any || call_handlers(L, 3, 5));
        m->busy = 0;
        if (!ok) {
            m->dirty = 1;
            return lua_error(L);
        }
        lua_settop(L, 3);
    }
    m->dirty = 1;                      /* handlers may have played clips */
    return 0;
}

/* The C pose hook: calls the script's on_pose function with the pose being
 * evaluated (under pcall; an error is raised again after evaluation). */
static void pose_hook(void *user, const mr_skeleton *sk, mr_pose *pose)
{
    (void)sk;
    (void)pose;                        /* the same arrays as the pose userdata at out_idx */
    mr_lua_mixer *m = user;
    lua_State *L = m->L;
    if (!L || m->hook_failed) return;
    if (!lua_checkstack(L, 4)) {
        m->hook_failed = 1;
        return;
    }
    lua_getiuservalue(L, m->self_idx, UV_HOOK);
    if (!lua_isfunction(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    lua_pushvalue(L, m->out_idx);
    ((mr_lua_pose *)lua_touserdata(L, m->out_idx))->model_valid = 0;
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        m->hook_failed = 1;
        lua_setiuservalue(L, m->self_idx, UV_HOOK_ERR);
    }
}

/* Evaluates into the pose userdata at out_idx. */
static void evaluate(lua_State *L, mr_lua_mixer *m, int out_idx)
{
    mr_lua_pose *p = mr_lua_check_pose(L, out_idx);
    if (p->pose.joint_count != m->sk->joint_count)
        mr_lua_arg_error(L, out_idx, lua_pushfstring(L, "pose has %d joints but the mixer's skeleton has %d",
                                                  p->pose.joint_count, m->sk->joint_count));
    m->L = L;
    m->self_idx = 1;
    m->out_idx = lua_absindex(L, out_idx);
    m->hook_failed = 0;
    mr_error err = {0};
    /* Morph weights first, so that on_pose may override them. */
    if (p->morph_count) mr_mixer_morph(m->mx, p->owner->meshes, p->owner->mesh_count, p->morph, p->morph_count);
    mr_status st = mr_mixer_evaluate(m->mx, &p->pose, NULL, &err);
    m->L = NULL;
    p->model_valid = 0;
    if (st != MR_OK) fail(L, st, &err);
    if (m->hook_failed) {
        m->hook_failed = 0;
        m->dirty = 1;
        lua_getiuservalue(L, 1, UV_HOOK_ERR);
        lua_pushnil(L);
        lua_setiuservalue(L, 1, UV_HOOK_ERR);
        if (lua_isnil(L, -1)) luaL_error(L, "on_pose: stack overflow");
        lua_error(L);
    }
}

static int mixer_pose(lua_State *L)
{
    mr_lua_mixer *m = check_mixer(L, 1);
    if (!lua_isnoneornil(L, 2)) {
        evaluate(L, m, 2);
        lua_settop(L, 2);
        return 1;
    }
    lua_settop(L, 1);
    lua_getiuservalue(L, 1, UV_POSE);
    if (m->dirty) {
        m->dirty = 0;
        evaluate(L, m, 2);
    }
    return 1;
}

static int mixer_on(lua_State *L)
{
    check_mixer(L, 1);
    const char *name = mr_lua_check_string(L, 2);
    mr_lua_check_type(L, 3, LUA_TFUNCTION);
    lua_getiuservalue(L, 1, UV_HANDLERS);
    if (lua_getfield(L, -1, name) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, -3, name);
    }
    lua_pushvalue(L, 3);
    lua_seti(L, -2, luaL_len(L, -2) + 1);
    lua_settop(L, 3);
    return 1;
}

static int mixer_off(lua_State *L)
{
    check_mixer(L, 1);
    const char *name = mr_lua_check_string(L, 2);
    if (!lua_isnoneornil(L, 3)) mr_lua_check_type(L, 3, LUA_TFUNCTION);
    lua_settop(L, 3);
    lua_getiuservalue(L, 1, UV_HANDLERS);     /* 4 */
    if (lua_isnoneornil(L, 3) || lua_getfield(L, 4, name) != LUA_TTABLE) {
        lua_pushnil(L);
        lua_setfield(L, 4, name);
        return 0;
    }
    /* A new list without fn (the old one may be being iterated). */
    int n = (int)luaL_len(L, 5), k = 0;
    lua_newtable(L);                   /* 6 */
    for (int i = 1; i <= n; i++) {
        lua_geti(L, 5, i);
        if (lua_rawequal(L, -1, 3)) lua_pop(L, 1);
        else lua_seti(L, 6, ++k);
    }
    if (k == 0) lua_pushnil(L);
    else lua_pushvalue(L, 6);
    lua_setfield(L, 4, name);
    return 0;
}

static int mixer_on_pose(lua_State *L)
{
    mr_lua_mixer *m = check_mixer(L, 1);
    int on = !lua_isnoneornil(L, 2);
    if (on) mr_lua_check_type(L, 2, LUA_TFUNCTION);
    lua_settop(L, 2);
    lua_setiuservalue(L, 1, UV_HOOK);
    mr_mixer_set_pose_hook(m->mx, on ? pose_hook : NULL, m);
    m->dirty = 1;
    return 0;
}

static int mixer_set_root_motion(lua_State *L)
{
    mr_lua_mixer *m = check_mixer(L, 1);
    int joint = -1;
    unsigned flags = 0;
    if (!lua_isnoneornil(L, 2)) {
        joint = mr_lua_check_joint(L, 2, m->sk);
        flags = MR_ROOT_TRANSLATION | MR_ROOT_YAW;
        mr_lua_opts o = mr_lua_check_opts(L, 3, "opts");
        static const char *const keys[] = {"translation", "yaw", "uniform", NULL};
        mr_lua_check_option_keys(L, &o, keys);
        flags = (mr_lua_opt_bool(L, &o, "translation", 1) ? MR_ROOT_TRANSLATION : 0) |
                (mr_lua_opt_bool(L, &o, "yaw", 1) ? MR_ROOT_YAW : 0) |
                (mr_lua_opt_bool(L, &o, "uniform", 1) ? MR_ROOT_UNIFORM : 0);
    }
    mr_error err = {0};
    mr_status st = mr_mixer_set_root_motion(m->mx, joint < 0 ? 0 : joint, flags, &err);
    return changed(L, m, st, &err);
}

static int mixer_root_motion(lua_State *L)
{
    mr_lua_mixer *m = check_mixer(L, 1);
    mr_root_delta d;
    mr_mixer_root_delta(m->mx, &d);
    mr_lua_push_vec3(L, d.translation);
    lua_pushnumber(L, glm_deg(d.yaw));
    return 2;
}

static const luaL_Reg track_methods[] = {
    {"play", track_play},         {"crossfade", track_crossfade},
    {"queue", track_queue},       {"play_blendspace", track_play_blendspace},
    {"set_param", track_set_param}, {"stop", track_stop},
    {"pause", track_pause},       {"resume", track_resume},
    {"seek", track_seek},         {"set_speed", track_set_speed},
    {"time", track_time},         {"weight", track_weight},
    {"set_weight", track_set_weight}, {"clip_weight", track_clip_weight},
    {"playing", track_playing},   {"set_additive", track_set_additive},
    {NULL, NULL},
};

static const luaL_Reg mixer_methods[] = {
    {"track", mixer_track},       {"tracks", mixer_tracks},
    {"set_mask", mixer_set_mask}, {"update", mixer_update},
    {"pose", mixer_pose},         {"on", mixer_on},
    {"off", mixer_off},           {"on_pose", mixer_on_pose},
    {"set_root_motion", mixer_set_root_motion}, {"root_motion", mixer_root_motion},
    {"clip_weight", mixer_clip_weight}, /* replaces the track-1 one */
    {"close", mixer_release},
    {NULL, NULL},
};

static const luaL_Reg mixer_meta[] = {
    {"__gc", mixer_release}, {"__close", mixer_release}, {"__tostring", mixer_tostring},
    {"__index", NULL},
    {NULL, NULL},
};

static const luaL_Reg track_meta[] = {
    {"__tostring", track_tostring}, {"__index", NULL},
    {NULL, NULL},
};

void mr_lua_open_mixer(lua_State *L)
{
    luaL_newmetatable(L, MR_LUA_MIXER);
    mr_lua_setfuncs(L, "mixer.", mixer_meta);
    lua_newtable(L);
    mr_lua_setfuncs(L, "mixer:", track_methods);   /* on the mixer they act on track 1 */
    mr_lua_setfuncs(L, "mixer:", mixer_methods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    static const luaL_Reg track_only[] = {
        {"set_mask", track_set_mask}, {"index", track_index},
        {NULL, NULL},
    };
    luaL_newmetatable(L, MR_LUA_TRACK);
    mr_lua_setfuncs(L, "track.", track_meta);
    lua_newtable(L);
    mr_lua_setfuncs(L, "track:", track_methods);
    mr_lua_setfuncs(L, "track:", track_only);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    mr_lua_pushfunc(L, l_mixer, "marrow.mixer", 0);
    lua_setfield(L, -2, "mixer");
}
