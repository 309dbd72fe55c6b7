/* wrap_model.c — marrow.model and the model userdata with all its methods.
 *
 *   marrow.model(path [, {anims = {...}}]) -> model | nil, message
 *       Anything mr_load_model accepts. An anim given as a bare name ("walk")
 *       means walk.md5anim beside the mesh; a file name ("walk.md5anim") is
 *       taken beside the mesh when it is there. Relative paths are tried as
 *       given, then beside the script, then under marrow's root. Models are
 *       cached by path + anims in the context (models.c), so a reload costs
 *       nothing. A missing file's message lists where it was looked for and a
 *       close name in those folders; the message is kept in the host
 *       (model_error) so a nil model argument later says why it is nil.
 *   model:skeleton() :clips() :clip(name | index) :meshes() :bounds()
 *        :path() :format() :display_matrix()
 *   model:morph_targets() -> {name, ...}: the names of the meshes' morph
 *       targets (anim/morph.h), each once, in mesh order; pose:set_morph
 *       takes them
 *   model:mask{entry, ... [, subtree = true] [, weight = 1] [, invert = false]} -> mask
 *       each entry is a joint (name or 1-based index) or a table
 *       {joint, weight = w, subtree = bool, falloff = n}: the joint (and with
 *       subtree, default true, everything below it) gets weight; falloff = n
 *       ramps the weight down the chain instead: the joint gets w/n, the next
 *       joint 2w/n, ..., full w from the n-th joint on. Entries combine by
 *       maximum; invert gives 1 - w (the rest of the body). model:mask{} is
 *       all zeros, model:mask{invert = true} all ones.
 *
 * Joint indices are 1-based. The cache owns the mr_models; a model userdata
 * only points at one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/clip_runtime.h"
#include "anim/morph.h"
#include "core/file.h"
#include "core/load_work.h"
#include "core/path.h"
#include "formats/load.h"
#include "lua/wrap.h"

/* ---- marrow.model ---------------------------------------------------------- */

/* Pushes where an anim entry is first looked for when it names no folder:
 * beside the mesh, as NAME.md5anim for a bare name. Returns 0 (nothing
 * pushed) for an entry with a folder. */
static int push_beside_mesh(lua_State *L, const char *mesh, const char *anim)
{
    if (strchr(anim, '/')) return 0;
    const char *slash = strrchr(mesh, '/');
    const char *ext = strchr(anim, '.') ? "" : ".md5anim";
    if (slash) lua_pushfstring(L, "%s/%s%s", lua_pushlstring(L, mesh, (size_t)(slash - mesh)), anim, ext);
    else lua_pushfstring(L, "%s%s", anim, ext);
    if (slash) lua_remove(L, -2);
    return 1;
}

/* Pushes the resolved path of an anim entry: a bare name means NAME.md5anim
 * beside the mesh; a file name ("walk.md5anim") is taken beside the mesh
 * when it is there, else resolved as a model path. */
static void push_anim_path(lua_State *L, const char *mesh, const char *anim)
{
    if (push_beside_mesh(L, mesh, anim)) {
        if (!strchr(anim, '.') || mr_file_exists(lua_tostring(L, -1))) return;
        lua_pop(L, 1);
    }
    mr_lua_host_resolve(L, anim);
}

/* ---- a missing file: where marrow looked, and a close name ------------------- */

/* Whether paths a and b name the same place: their folders resolve to the
 * same real path (or read the same when one does not exist) and their base
 * names agree. */
static int same_place(const char *a, const char *b)
{
    if (strcmp(mr_path_basename(a), mr_path_basename(b))) return 0;
    char *da = mr_path_dirname(a), *db = mr_path_dirname(b);
    char ra[PATH_MAX], rb[PATH_MAX];
    int same = da && db && (realpath(da, ra) && realpath(db, rb) ? !strcmp(ra, rb) : !strcmp(da, db));
    free(da);
    free(db);
    return same;
}

/* Pushes, for the entry `given` that was not found (mesh: the model's path,
 * or NULL for the model itself), the places it was looked for and the
 * closest name in their folders:
 *   "; looked for 'a', 'b' and 'c'; did you mean 'models/mannequin.md5mesh'?" */
static void push_missing(lua_State *L, const char *given, const char *mesh)
{
    const mr_lua_host *h = mr_lua_host_of(L);
    int top = lua_gettop(L), bare = 0;
    if (mesh && push_beside_mesh(L, mesh, given)) bare = !strchr(given, '.');
    if (!bare) {
        lua_pushstring(L, given);
        for (int i = 0; i < 2 && given[0] != '/'; i++) {
            if (!h->resolve_dirs[i]) continue;
            lua_pushfstring(L, "%s/%s", h->resolve_dirs[i], given);
            for (int k = top + 1; k < lua_gettop(L); k++)   /* the script's folder may be the cwd or the root */
                if (same_place(lua_tostring(L, k), lua_tostring(L, -1))) {
                    lua_pop(L, 1);
                    break;
                }
        }
    }
    int n = lua_gettop(L) - top;
    lua_pushliteral(L, "; looked for ");
    for (int i = 1; i <= n; i++)
        lua_pushfstring(L, "%s'%s'", i == 1 ? "" : i == n ? " and " : ", ", lua_tostring(L, top + i));
    /* The first folder that holds a close name gives the suggestion, written
     * the way the script wrote the path. */
    for (int i = 1; i <= n; i++) {
        const char *cand = lua_tostring(L, top + i), *base = mr_path_basename(cand);
        char *dir = mr_path_dirname(cand);
        size_t len = strlen(base);
        char *close = dir ? mr_file_closest(dir, base, len / 3 > 2 ? (int)(len / 3) : 2) : NULL;
        free(dir);
        if (!close) continue;
        size_t keep = (size_t)(mr_path_basename(given) - given), cl = strlen(close);
        if (bare && cl > 8 && !strcmp(close + cl - 8, ".md5anim")) close[cl - 8] = '\0';
        lua_pushliteral(L, "; did you mean '");
        lua_pushlstring(L, given, keep);
        lua_pushstring(L, close);
        lua_pushliteral(L, "'?");
        free(close);
        break;
    }
    lua_concat(L, lua_gettop(L) - top - n);
    lua_replace(L, top + 1);
    lua_settop(L, top + 1);
}

static int l_model(lua_State *L)
{
    mr_lua_models *cache = &mr_lua_host_of(L)->models;
    const char *path = mr_lua_check_string(L, 1);
    mr_lua_opts o = mr_lua_check_opts(L, 2, "opts");
    static const char *const keys[] = {"anims", NULL};
    mr_lua_check_option_keys(L, &o, keys);

    /* A key added by the host (mr_lua_cache_add) matches as given. */
    mr_model *model = o.idx ? NULL : mr_lua_models_lookup(cache, path);
    if (model) {
        mr_lua_push_model(L, model);
        return 1;
    }

    int n = mr_lua_opt_list(L, &o, "anims", 256);     /* the list or nil */
    int list_idx = lua_gettop(L);
    /* Everything lives on the Lua stack, so an error frees it all. */
    mr_lua_host_resolve(L, path);
    int mesh_idx = lua_gettop(L);
    lua_pushvalue(L, mesh_idx);        /* the cache key */
    int key_idx = lua_gettop(L);
    lua_createtable(L, n > 0 ? n : 0, 0);   /* resolved anim paths */
    int anims_idx = lua_gettop(L);
    for (int i = 1; i <= n; i++) {
        lua_geti(L, list_idx, i);
        if (!lua_isstring(L, -1)) {
            lua_pushfstring(L, "anims[%d]", i);
            mr_lua_opt_error(L, &o, lua_tostring(L, -1), "a path", -2);
        }
        push_anim_path(L, lua_tostring(L, mesh_idx), lua_tostring(L, -1));
        lua_pushvalue(L, -1);
        lua_seti(L, anims_idx, i);
        lua_pushfstring(L, "%s\n%s", lua_tostring(L, key_idx), lua_tostring(L, -1));
        lua_replace(L, key_idx);
        lua_pop(L, 2);
    }
    if (n < 0) n = 0;
    model = mr_lua_models_lookup(cache, lua_tostring(L, key_idx));
    if (!model) {
        const char *anims[256];
        for (int i = 0; i < n; i++) {
            lua_geti(L, anims_idx, i + 1);
            anims[i] = lua_tostring(L, -1);  /* kept alive by the anims table */
            lua_pop(L, 1);
        }
        mr_error err = {0};
        double paused = mr_load_work_begin();   /* loading is not the script's time (sandbox.h) */
        mr_clip_set_keys_on_demand(1);   /* packed clips give their keys up (anim/clip.h) */
        struct mr_load_later *later = NULL;
        mr_status st = mr_load_model_later(lua_tostring(L, mesh_idx), anims, n, &model, &later, &err);
        /* The model loaded before this one is counted again for what it
         * holds once its packs are in (they were built while this one
         * loaded): the keys they replace are gone. Settled here, not when
         * the worker is done, so what is counted never depends on timing. */
        mr_lua_host_settle_models(mr_lua_host_of(L));
        mr_lua_host_of(L)->cache_later = later;   /* written at the next load (or the end) */
        mr_load_work_end(paused);
        if (st != MR_OK) {
            int top = lua_gettop(L);
            lua_pushstring(L, err.msg[0] ? err.msg : mr_status_string(st));
            if (st == MR_ERR_IO && !mr_file_exists(lua_tostring(L, mesh_idx))) {
                push_missing(L, path, NULL);
            } else if (st == MR_ERR_IO) {
                for (int i = 0; i < n; i++)
                    if (!mr_file_exists(anims[i])) {
                        lua_geti(L, list_idx, i + 1);   /* as the script wrote it */
                        push_missing(L, lua_tostring(L, -1), lua_tostring(L, mesh_idx));
                        lua_remove(L, -2);
                        break;
                    }
            }
            lua_concat(L, lua_gettop(L) - top);
            mr_lua_host *h = mr_lua_host_of(L);
            snprintf(h->model_error, sizeof h->model_error, "%s", lua_tostring(L, -1));
            luaL_pushfail(L);
            lua_insert(L, -2);
            return 2;
        }
        /* Models count against the script's memory with its Lua heap. */
        mr_lua_host *h = mr_lua_host_of(L);
        size_t bytes = mr_model_bytes(model), heap = mr_lua_host_heap(L);
        if (h->memory_limit && heap + h->model_bytes + bytes > h->memory_limit) {
            mr_load_finish(h->cache_later, NULL);
            h->cache_later = NULL;
            mr_model_destroy(model);
            luaL_pushfail(L);
            lua_pushfstring(L, "%s: the model needs %d MiB, and with the %d MiB the script already uses "
                            "(Lua %d MiB, models %d MiB) that is past its memory limit of %d MiB (--memory)",
                            lua_tostring(L, mesh_idx), (int)(bytes >> 20) + 1,
                            (int)((heap + h->model_bytes) >> 20), (int)(heap >> 20), (int)(h->model_bytes >> 20),
                            (int)(h->memory_limit >> 20));
            return 2;
        }
        h->model_bytes += bytes;
        if (mr_lua_models_insert(cache, lua_tostring(L, key_idx), model, 1) != 0) {
            h->model_bytes -= bytes;
            mr_load_finish(h->cache_later, NULL);
            h->cache_later = NULL;
            mr_model_destroy(model);
            return mr_lua_raise(L, "out of memory");
        }
        h->model_pending = model;
        h->pending_bytes = bytes;
    }
    mr_lua_host_loaded(L, lua_tostring(L, mesh_idx));   /* io may read beside a loaded model */
    mr_lua_push_model(L, model);
    return 1;
}

/* ---- model methods ---------------------------------------------------------- */

static int model_release(lua_State *L)
{
    mr_lua_model *m = mr_lua_check_udata(L, 1, MR_LUA_MODEL);
    m->model = NULL;                   /* the cache keeps the data */
    return 0;
}

static int model_tostring(lua_State *L)
{
    mr_lua_model *m = mr_lua_check_udata(L, 1, MR_LUA_MODEL);
    if (!m->model) {
        lua_pushliteral(L, "model (closed)");
        return 1;
    }
    int v, t;
    mr_model_counts(m->model, &v, &t);
    lua_pushfstring(L, "model '%s' (%d joints, %d meshes, %d triangles, %d clips)", m->model->path,
                    m->model->skeleton.joint_count, m->model->mesh_count, t, m->model->clip_count);
    return 1;
}

static int model_skeleton(lua_State *L)
{
    mr_lua_check_model(L, 1);
    mr_lua_push_skeleton(L, 1);
    return 1;
}

static int model_clips(lua_State *L)
{
    mr_lua_model *m = mr_lua_check_model(L, 1);
    lua_createtable(L, m->model->clip_count, 0);
    for (int i = 0; i < m->model->clip_count; i++) {
        mr_lua_push_clip(L, 1, m->model->clips[i]);
        lua_seti(L, -2, i + 1);
    }
    return 1;
}

static int model_clip(lua_State *L)
{
    mr_lua_model *m = mr_lua_check_model(L, 1);
    const mr_model *mo = m->model;
    const mr_clip *c = NULL;
    if (lua_type(L, 2) == LUA_TNUMBER) {
        lua_Integer i = mr_lua_check_integer(L, 2);
        mr_lua_arg_check(L, i >= 1 && i <= mo->clip_count, 2,
                      lua_pushfstring(L, "clip index out of range 1..%d", mo->clip_count));
        c = mo->clips[i - 1];
    } else {
        const char *name = mr_lua_check_string(L, 2);
        c = mr_model_find_clip(mo, name);
        if (!c) {
            luaL_Buffer b;
            luaL_buffinit(L, &b);
            for (int i = 0; i < mo->clip_count; i++) {
                luaL_addstring(&b, i ? ", '" : "'");
                luaL_addstring(&b, mo->clips[i]->name);
                luaL_addchar(&b, '\'');
            }
            luaL_pushresult(&b);
            return mr_lua_arg_error(L, 2, lua_pushfstring(L, "no clip '%s' in %s (clips: %s)", name,
                                                       mo->path, mo->clip_count ? lua_tostring(L, -1)
                                                                                : "none"));
        }
    }
    mr_lua_push_clip(L, 1, c);
    return 1;
}

static int model_meshes(lua_State *L)
{
    mr_lua_model *m = mr_lua_check_model(L, 1);
    lua_createtable(L, m->model->mesh_count, 0);
    for (int i = 0; i < m->model->mesh_count; i++) {
        const mr_mesh *mesh = &m->model->meshes[i];
        lua_createtable(L, 0, 5);
        lua_pushstring(L, mesh->name ? mesh->name : "");
        lua_setfield(L, -2, "name");
        lua_pushinteger(L, mesh->vertex_count);
        lua_setfield(L, -2, "vertices");
        lua_pushinteger(L, mesh->index_count / 3);
        lua_setfield(L, -2, "triangles");
        lua_pushboolean(L, mesh->joints != NULL);
        lua_setfield(L, -2, "skinned");
        lua_pushstring(L, mesh->material.name ? mesh->material.name : "");
        lua_setfield(L, -2, "material");
        if (mesh->material.diffuse_map) {
            lua_pushstring(L, mesh->material.diffuse_map);
            lua_setfield(L, -2, "texture");
        }
        lua_seti(L, -2, i + 1);
    }
    return 1;
}

static int model_bounds(lua_State *L)
{
    mr_lua_model *m = mr_lua_check_model(L, 1);
    vec3 lo, hi;
    if (!mr_model_bounds(m->model, lo, hi)) {
        luaL_pushfail(L);
        return 1;
    }
    mr_lua_push_vec3(L, lo);
    mr_lua_push_vec3(L, hi);
    return 2;
}

static int model_path(lua_State *L)
{
    lua_pushstring(L, mr_lua_check_model(L, 1)->model->path);
    return 1;
}

static int model_format(lua_State *L)
{
    const char *f = mr_lua_check_model(L, 1)->model->format;
    lua_pushstring(L, f ? f : "");
    return 1;
}

static int model_display_matrix(lua_State *L)
{
    mat4 d;
    mr_model_display_matrix(mr_lua_check_model(L, 1)->model, d);
    mr_lua_push_mat4(L, d);
    return 1;
}

/* model:mask(spec): each entry into a scratch mask, combined by maximum. */
static int model_mask(lua_State *L)
{
    mr_lua_model *mo = mr_lua_check_model(L, 1);
    const mr_skeleton *sk = &mo->model->skeleton;
    mr_lua_opts spec = mr_lua_check_opts(L, 2, "");
    static const char *const keys[] = {MR_LUA_OPTS_LIST, "weight", "subtree", "invert", NULL};
    static const char *const entry_keys[] = {MR_LUA_OPTS_LIST, "weight", "subtree", "falloff", NULL};
    mr_lua_check_option_keys(L, &spec, keys);
    lua_settop(L, 2);
    float weight = mr_lua_opt_num(L, &spec, "weight", 1.0f, 0, 1);
    int subtree = mr_lua_opt_bool(L, &spec, "subtree", 1);
    int invert = mr_lua_opt_bool(L, &spec, "invert", 0);
    mr_lua_mask *out = mr_lua_push_mask(L, 1, 0.0f);     /* 3 */
    mr_lua_mask *tmp = mr_lua_push_mask(L, 1, 0.0f);     /* 4: one entry at a time */
    int n = spec.idx ? (int)luaL_len(L, 2) : 0;
    for (int i = 1; i <= n; i++) {
        lua_geti(L, 2, i);                                /* 5 */
        float w = weight;
        int sub = subtree, falloff = 0, j;
        if (lua_istable(L, 5)) {
            lua_geti(L, 5, 1);                            /* 6 */
            j = mr_lua_check_joint_in(L, 6, 2, lua_pushfstring(L, "entries[%d][1]: ", i), sk);
            lua_pop(L, 2);
            lua_pushfstring(L, "[%d]", i);               /* 6: the entry's name in messages */
            mr_lua_opts e = {2, 5, lua_tostring(L, 6)};
            mr_lua_check_option_keys(L, &e, entry_keys);
            w = mr_lua_opt_num(L, &e, "weight", weight, 0, 1);
            sub = mr_lua_opt_bool(L, &e, "subtree", subtree);
            falloff = mr_lua_opt_int(L, &e, "falloff", 0, 1, 1000);
            lua_pop(L, 1);
        } else {
            j = mr_lua_check_joint_in(L, 5, 2, lua_pushfstring(L, "entries[%d]: ", i), sk);
            lua_pop(L, 1);
        }
        mr_mask_fill(&tmp->mask, 0.0f);
        if (falloff > 0) mr_mask_ramp(&tmp->mask, sk, j, falloff, w / (float)falloff, w);
        else if (sub) mr_mask_set_subtree(&tmp->mask, sk, j, w);
        else tmp->mask.w[j] = w;
        mr_mask_union(&out->mask, &out->mask, &tmp->mask);
        lua_pop(L, 1);
    }
    if (invert) mr_mask_invert(&out->mask);
    lua_settop(L, 3);
    return 1;
}

static int model_morph_targets(lua_State *L)
{
    const mr_model *mo = mr_lua_check_model(L, 1)->model;
    lua_newtable(L);
    lua_Integer n = 0;
    for (int i = 0; i < mo->mesh_count; i++) {
        const mr_morph_set *set = mo->meshes[i].morph;
        for (int k = 0; set && k < set->count; k++) {
            int seen = 0;
            for (int e = 0; e < i && !seen; e++) seen = mr_morph_set_find(mo->meshes[e].morph, set->targets[k].name) >= 0;
            for (int e = 0; e < k && !seen; e++) seen = !strcmp(set->targets[e].name, set->targets[k].name);
            if (seen) continue;
            lua_pushstring(L, set->targets[k].name);
            lua_seti(L, -2, ++n);
        }
    }
    return 1;
}

static const luaL_Reg model_methods[] = {
    {"morph_targets", model_morph_targets},
    {"skeleton", model_skeleton}, {"clips", model_clips},   {"clip", model_clip},
    {"meshes", model_meshes},     {"bounds", model_bounds}, {"path", model_path},
    {"format", model_format},     {"display_matrix", model_display_matrix}, {"mask", model_mask},
    {NULL, NULL},
};

static const luaL_Reg model_meta[] = {
    {"__gc", model_release}, {"__close", model_release}, {"__tostring", model_tostring},
    {"__index", NULL},
    {NULL, NULL},
};

void mr_lua_open_model(lua_State *L)
{
    mr_lua_newtype(L, MR_LUA_MODEL, model_meta, model_methods);
    mr_lua_pushfunc(L, l_model, "marrow.model", 0);
    lua_setfield(L, -2, "model");
}
