/* wrap_marrow.c — the `marrow` module opener (preloaded: require "marrow")
 * and its small functions that are not about one type:
 *
 *   marrow.time()      simulated seconds since the start (fixed steps headless)
 *   marrow.frame()     frame number, 0 in the first frame
 *   marrow.window()    width, height of the frame in pixels
 *   marrow.headless()  true when running headless
 *   marrow.quit([code])  ends the run after this frame (os.exit does the same)
 *   marrow.version
 *   marrow.clips(folder [, opts]) -> clips, model, skipped
 *       a library: every take of folder (.bvh, .md5anim; not its subfolders),
 *       in name order, loaded as marrow.model loads it (the same paths, cache,
 *       --memory and errors) and bound to one skeleton: opts.model (a model;
 *       needed for .md5anim takes, each loaded as its anim) or else the first
 *       .bvh take's. clips: the clips in order, also under each take's file
 *       name; model: the skeleton's model; skipped: "file: why" for each take
 *       that did not load or has another skeleton. A load of more than a
 *       second prints a progress line to stderr each second and at the end
 *       (opts.progress = false: none).
 *
 * Each type's functions and methods are in its wrap_<type>.c (wrap.h lists
 * them); the opener calls each file's opener once.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/version.h"
#include "lua/wrap.h"

static int l_time(lua_State *L)
{
    lua_pushnumber(L, mr_lua_host_of(L)->time);
    return 1;
}

static int l_frame(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)mr_lua_host_of(L)->frame);
    return 1;
}

static int l_window(lua_State *L)
{
    mr_lua_host *h = mr_lua_host_of(L);
    lua_pushinteger(L, h->width);
    lua_pushinteger(L, h->height);
    return 2;
}

static int l_headless(lua_State *L)
{
    lua_pushboolean(L, mr_lua_host_of(L)->headless);
    return 1;
}

static int l_quit(lua_State *L)
{
    mr_lua_host *h = mr_lua_host_of(L);
    h->quit = 1;
    h->quit_code = (int)mr_lua_opt_integer(L, 1, 0);
    return 0;
}

/* ---- marrow.clips ----------------------------------------------------------- */

#define CLIPS_MAX_TAKES 100000
#define CLIPS_LOADER "marrow.clips: marrow.model"   /* the registry's key of marrow.model */

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* 1 for a .bvh take, 2 for an .md5anim one, 0 for anything else. */
static int take_kind(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot || dot == name) return 0;
    char ext[16];
    size_t n = 0;
    for (const char *c = dot + 1; *c && n + 1 < sizeof ext; c++) ext[n++] = (char)tolower((unsigned char)*c);
    ext[n] = '\0';
    return !strcmp(ext, "bvh") ? 1 : !strcmp(ext, "md5anim") ? 2 : 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Same joints, by count and by name in order: a clip of one plays on the other. */
static int same_skeleton(const mr_skeleton *a, const mr_skeleton *b)
{
    if (a->joint_count != b->joint_count) return 0;
    for (int j = 0; j < a->joint_count; j++)
        if (strcmp(a->names[j], b->names[j]) != 0) return 0;
    return 1;
}

/* Lists folder's takes into a new table at the top of the stack (file names,
 * sorted); raises when the folder cannot be read. */
static int list_takes(lua_State *L, const char *folder, const char *given)
{
    DIR *d = opendir(folder);
    if (!d) return mr_lua_raise(L, "%s: not a folder that can be read", given);
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) && count < CLIPS_MAX_TAKES) {
        if (e->d_name[0] == '.' || !take_kind(e->d_name)) continue;
        if (count == cap) {
            char **grown = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names);
            if (!grown) break;
            names = grown;
        }
        if (!(names[count] = strdup(e->d_name))) break;
        count++;
    }
    closedir(d);
    if (count) qsort(names, count, sizeof *names, by_name);
    lua_createtable(L, (int)count, 0);
    for (size_t i = 0; i < count; i++) {
        lua_pushstring(L, names[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
        free(names[i]);
    }
    free(names);
    return 0;
}

static int l_clips(lua_State *L)
{
    const char *given = mr_lua_check_string(L, 1);
    mr_lua_opts o = mr_lua_check_opts(L, 2, "opts");
    int progress = mr_lua_opt_bool(L, &o, "progress", 1);
    int bound = mr_lua_opt_field(L, &o, "model") != LUA_TNIL;   /* the skeleton's model, or nil for now */
    int bind_idx = lua_gettop(L);
    if (bound && !luaL_testudata(L, bind_idx, MR_LUA_MODEL)) mr_lua_opt_error(L, &o, "model", "a model", bind_idx);
    if (bound) mr_lua_check_model(L, bind_idx);   /* not released */
    mr_lua_host_resolve(L, given);               /* the paths marrow.model reads */
    const char *folder = lua_tostring(L, -1);
    int folder_idx = lua_gettop(L);
    list_takes(L, folder, given);
    int names_idx = lua_gettop(L);
    lua_Integer total = luaL_len(L, names_idx);
    lua_newtable(L);
    int clips_idx = lua_gettop(L);
    lua_newtable(L);
    int skipped_idx = lua_gettop(L);
    lua_Integer loaded = 0, skipped = 0;
    double t0 = seconds(), shown = t0;
    for (lua_Integer i = 1; i <= total; i++) {
        lua_rawgeti(L, names_idx, i);
        const char *name = lua_tostring(L, -1);
        int kind = take_kind(name);
        lua_pushfstring(L, "%s/%s", folder, name);
        int top = lua_gettop(L);
        lua_getfield(L, LUA_REGISTRYINDEX, CLIPS_LOADER);   /* marrow.model */
        if (kind == 2) {
            if (!bound) {
                lua_settop(L, top);
                lua_pushfstring(L, "%s: an .md5anim take needs opts.model (the md5mesh it animates)", name);
                lua_rawseti(L, skipped_idx, ++skipped);
                lua_pop(L, 2);
                continue;
            }
            lua_pushstring(L, mr_lua_check_model(L, bind_idx)->model->path);
            lua_createtable(L, 0, 1);
            lua_createtable(L, 1, 0);
            lua_pushvalue(L, top);
            lua_rawseti(L, -2, 1);
            lua_setfield(L, -2, "anims");
            lua_call(L, 2, 2);
        } else {
            lua_pushvalue(L, top);
            lua_call(L, 1, 2);
        }
        const mr_lua_model *lm = luaL_testudata(L, -2, MR_LUA_MODEL);
        const mr_model *m = lm ? lm->model : NULL;
        const char *why = NULL;
        if (!m) why = lua_tostring(L, -1);
        else if (m->clip_count < 1) why = "it holds no clip";
        else if (!bound) {
            lua_copy(L, top + 1, bind_idx);   /* the first take's model binds the rest */
            bound = 1;
        } else if (!same_skeleton(&m->skeleton, &mr_lua_check_model(L, bind_idx)->model->skeleton)) {
            why = "its skeleton is not the library's (joints differ)";
        }
        if (why) {
            lua_pushfstring(L, "%s: %s", name, why);
            lua_rawseti(L, skipped_idx, ++skipped);
        } else {
            mr_lua_push_clip(L, top + 1, m->clips[kind == 2 ? m->clip_count - 1 : 0]);
            lua_pushvalue(L, -1);
            lua_rawseti(L, clips_idx, ++loaded);
            lua_setfield(L, clips_idx, name);
        }
        lua_settop(L, top - 2);
        double now = seconds();
        if (progress && now - shown >= 1.0) {
            fprintf(stderr, "marrow.clips: %s: %lld of %lld takes (%.0f s)\n", given, (long long)i,
                    (long long)total, now - t0);
            shown = now;
        }
    }
    if (progress && shown > t0)
        fprintf(stderr, "marrow.clips: %s: %lld takes loaded, %lld skipped, %.1f s\n", given, (long long)loaded,
                (long long)skipped, seconds() - t0);
    (void)folder_idx;
    lua_pushvalue(L, clips_idx);
    lua_pushvalue(L, bind_idx);
    lua_pushvalue(L, skipped_idx);
    return 3;
}

static const luaL_Reg funcs[] = {
    {"time", l_time}, {"frame", l_frame}, {"window", l_window}, {"headless", l_headless},
    {"quit", l_quit},
    {NULL, NULL},
};

int mr_lua_open_marrow(lua_State *L)
{
    lua_newtable(L);
    mr_lua_setfuncs(L, "marrow.", funcs);
    lua_pushliteral(L, "marrow " MR_VERSION);
    lua_setfield(L, -2, "version");
    mr_lua_open_math(L);
    mr_lua_open_model(L);
    lua_getfield(L, -1, "model");   /* marrow.clips loads each take through it */
    lua_setfield(L, LUA_REGISTRYINDEX, CLIPS_LOADER);
    static const luaL_Reg library[] = {{"clips", l_clips}, {NULL, NULL}};
    mr_lua_setfuncs(L, "marrow.", library);
    mr_lua_open_skeleton(L);
    mr_lua_open_clip(L);
    mr_lua_open_authoring(L);
    mr_lua_open_pose(L);
    mr_lua_open_mask(L);
    mr_lua_open_blendspace(L);
    mr_lua_open_mixer(L);
    mr_lua_open_draw(L);
    mr_lua_open_springs(L);
    mr_lua_open_vrm(L);
    mr_lua_open_recorder(L);
    mr_lua_open_ikbody(L);
    mr_lua_open_save(L);
    return 1;
}
