/* scene.c — reads the `scene` table of a regression scene script into a
 * plain struct (see scene.h). Runs as a call of the sandbox (protected, under
 * the time budget) so a table with odd metamethods can neither raise through
 * the host nor loop. */
#include "core/defaults.h"
#include "lua/scene.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lua/sandbox.h"
#include "lua/wrap.h"

typedef struct read_args {
    mr_scene_decl *d;
    mr_error err;            /* the first bad field (status MR_OK: none) */
    const char *script;
} read_args;

/* Reads number field `name` of the table at -1 (called `table` in messages); 0 when absent, 1 when
 * present (in *v), -1 when not a number (message written). */
static int num_field(lua_State *L, read_args *a, const char *table, const char *name, double *v)
{
    int t = lua_getfield(L, -1, name);
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return 0;
    }
    int ok = 0;
    *v = lua_tonumberx(L, -1, &ok);
    lua_pop(L, 1);
    if (!ok || !isfinite(*v)) {
        mr_error_set(&a->err, MR_ERR_BAD_FILE, "%s: %s.%s must be a number", a->script, table, name);
        return -1;
    }
    return 1;
}

#define FAIL(...) do { mr_error_set(&a->err, MR_ERR_BAD_FILE, __VA_ARGS__); return 0; } while (0)

static int read_scene(lua_State *L)
{
    read_args *a = lua_touserdata(L, 1);
    mr_scene_decl *d = a->d;
    const char *s = a->script;
    *d = (mr_scene_decl){.width = 320, .height = 240, .fps = MR_DEFAULT_FPS, .threshold = -1, .max_diff = -1,
                         .max_aa = -1, .pose_tol = -1, .pose_angle = -1};
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
    if (lua_getfield(L, -1, "scene") != LUA_TTABLE)
        FAIL("%s: no global table `scene` (e.g. scene = {size = {320, 240}, shots = {0, 30}})", s);
    if (lua_getfield(L, -1, "size") != LUA_TNIL) {
        lua_Integer w = 0, h = 0;
        if (lua_istable(L, -1)) {
            lua_geti(L, -1, 1);
            lua_geti(L, -2, 2);
            w = lua_isinteger(L, -2) ? lua_tointeger(L, -2) : 0;
            h = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
            lua_pop(L, 2);
        }
        if (w < 16 || h < 16 || w > 4096 || h > 4096)
            FAIL("%s: scene.size must be {width, height} in 16..4096", s);
        d->width = (int)w;
        d->height = (int)h;
    }
    lua_pop(L, 1);
    double v;
    int r = num_field(L, a, "scene", "fps", &v);
    if (r < 0) return 0;
    if (r && !(v > 0 && v <= 1000)) FAIL("%s: scene.fps must be in (0, 1000]", s);
    if (r) d->fps = v;
    double frames = 0;
    int have_frames = num_field(L, a, "scene", "frames", &frames);
    if (have_frames < 0) return 0;
    if (have_frames && !(frames >= 1 && frames <= 100000 && frames == floor(frames)))
        FAIL("%s: scene.frames must be a whole number in 1..100000", s);

    if (lua_getfield(L, -1, "shots") != LUA_TTABLE) FAIL("%s: scene.shots must be a list of frame numbers", s);
    lua_Integer n = luaL_len(L, -1);
    if (n < 1) FAIL("%s: scene.shots is empty", s);
    if (n > MR_SCENE_MAX_SHOTS) FAIL("%s: scene.shots has %lld entries (at most %d)", s, (long long)n, MR_SCENE_MAX_SHOTS);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, -1, i);
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 0 || lua_tointeger(L, -1) > 100000)
            FAIL("%s: scene.shots[%lld] must be a frame number >= 0", s, (long long)i);
        int f = (int)lua_tointeger(L, -1);
        lua_pop(L, 1);
        if (i > 1 && f <= d->shots[i - 2])
            FAIL("%s: scene.shots[%lld] = %d must be greater than the shot before it", s, (long long)i, f);
        d->shots[d->shot_count++] = f;
    }
    lua_pop(L, 1);
    int last = d->shots[d->shot_count - 1];
    d->frames = have_frames ? (int)frames : last + 1;
    if (last >= d->frames)
        FAIL("%s: scene.shots[%d] = %d is not below scene.frames = %d", s, d->shot_count, last, d->frames);

    if (lua_getfield(L, -1, "tolerance") != LUA_TNIL) {
        if (!lua_istable(L, -1)) FAIL("%s: scene.tolerance must be a table", s);
        if ((r = num_field(L, a, "scene.tolerance", "threshold", &v)) < 0) return 0;
        if (r && !(v >= 0 && v <= 255)) FAIL("%s: scene.tolerance.threshold must be in 0..255", s);
        if (r) d->threshold = (int)v;
        if ((r = num_field(L, a, "scene.tolerance", "max_diff", &v)) < 0) return 0;
        if (r && !(v >= 0 && v <= 1)) FAIL("%s: scene.tolerance.max_diff must be a share in 0..1", s);
        if (r) d->max_diff = v;
        if ((r = num_field(L, a, "scene.tolerance", "max_aa", &v)) < 0) return 0;
        if (r && !(v >= 0 && v <= 1)) FAIL("%s: scene.tolerance.max_aa must be a share in 0..1", s);
        if (r) d->max_aa = v;
        if ((r = num_field(L, a, "scene.tolerance", "pose", &v)) < 0) return 0;
        if (r && !(v >= 0)) FAIL("%s: scene.tolerance.pose must be a distance >= 0 in model units", s);
        if (r) d->pose_tol = v;
        if ((r = num_field(L, a, "scene.tolerance", "pose_angle", &v)) < 0) return 0;
        if (r && !(v >= 0 && v <= 180)) FAIL("%s: scene.tolerance.pose_angle must be degrees in 0..180", s);
        if (r) d->pose_angle = v;
    }
    lua_pop(L, 1);
    if (lua_getfield(L, -1, "ignore") != LUA_TNIL) {
        if (!lua_istable(L, -1)) FAIL("%s: scene.ignore must be a list of {x, y, w, h} and \"text\"", s);
        lua_Integer count = luaL_len(L, -1);
        for (lua_Integer i = 1; i <= count; i++) {
            lua_geti(L, -1, i);
            if (lua_type(L, -1) == LUA_TSTRING && !strcmp(lua_tostring(L, -1), "text")) {
                d->ignore_text = 1;
                lua_pop(L, 1);
                continue;
            }
            if (!lua_istable(L, -1))
                FAIL("%s: scene.ignore[%lld] must be {x, y, w, h} or \"text\"", s, (long long)i);
            if (d->ignore_count == MR_SCENE_MAX_IGNORE)
                FAIL("%s: scene.ignore has more than %d rectangles", s, MR_SCENE_MAX_IGNORE);
            int *box = d->ignore[d->ignore_count++];
            for (int k = 0; k < 4; k++) {
                lua_geti(L, -1, k + 1);
                if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < (k < 2 ? -4096 : 1) || lua_tointeger(L, -1) > 4096)
                    FAIL("%s: scene.ignore[%lld] must be {x, y, w, h}: whole pixels, w and h >= 1", s, (long long)i);
                box[k] = (int)lua_tointeger(L, -1);
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
    }
    return 0;
}

mr_status mr_lua_scene_read(mr_lua_ctx *ctx, mr_scene_decl *out, mr_error *err)
{
    const char *script = mr_lua_script(ctx);
    lua_State *L = mr_lua_current_state(ctx);
    if (!L) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "%s: the script is not running", script);
    int top = lua_gettop(L);
    read_args a = {.d = out, .script = script};
    /* Under the sandbox's budget and watchdog like any call into the script:
     * `scene` may have metamethods (a looping __index) that run here. */
    mr_error e = {0};
    mr_status st = mr_lua_sandbox_run(mr_lua_sandbox_of(L), read_scene, &a, "reading `scene`",
                                      mr_lua_host_of(L)->budget, &e);
    if (st != MR_OK)
        st = mr_error_set(err, st == MR_ERR_NO_MEMORY ? st : MR_ERR_SCRIPT, "%s: reading scene: %s", script,
                          e.msg[0] ? e.msg : "error");
    else if (a.err.status != MR_OK)
        st = mr_error_set(err, a.err.status, "%s", a.err.msg);
    lua_settop(L, top);
    return st;
}
