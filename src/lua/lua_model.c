/* lua_model.c — marrow.model and the model, skeleton and clip userdata, plus
 * the model cache they come from.
 *
 *   marrow.model(path [, {anims = {...}}]) -> model | nil, message
 *       Anything mr_model_load accepts. An anim given as a bare name ("walk")
 *       means walk.md5anim beside the mesh. Relative paths are tried as given,
 *       then beside the script, then under marrow's root. Models are cached by
 *       path + anims in the context, so a reload costs nothing.
 *   model:skeleton() :clips() :clip(name | index) :meshes() :bounds()
 *        :path() :format() :display_matrix()
 *   skeleton: #sk, :joint(name | index) -> index, :find(name) -> index | nil,
 *        :name(i) :parent(i) (0 for a root) :children(i) :names() :rest_pose()
 *   clip: :name() :duration() :rate() :sample(t, pose [, loop = true]) -> pose
 *
 * Joint indices are 1-based. A skeleton or clip keeps its model userdata
 * alive through user value 1. The cache owns the mr_models; a model
 * userdata only points at its cache entry.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/file.h"
#include "formats/load.h"
#include "lua/lua_internal.h"

/* ---- cache ------------------------------------------------------------------ */

static mr_cache_entry *cache_lookup(mr_lua_ctx *ctx, const char *key)
{
    for (int i = 0; i < ctx->cache_count; i++)
        if (!strcmp(ctx->cache[i]->key, key)) return ctx->cache[i];
    return NULL;
}

static mr_cache_entry *cache_insert(mr_lua_ctx *ctx, const char *key, mr_model *model)
{
    size_t cap = (size_t)ctx->cache_cap;
    if (mr_array_reserve((void **)&ctx->cache, &cap, (size_t)ctx->cache_count + 1,
                         sizeof *ctx->cache) != 0)
        return NULL;
    ctx->cache_cap = (int)cap;
    mr_cache_entry *e = calloc(1, sizeof *e);
    if (!e || !(e->key = mr_strdup(key))) {
        free(e);
        return NULL;
    }
    e->model = model;
    ctx->cache[ctx->cache_count++] = e;
    return e;
}

int mr_lua_cache_add(mr_lua_ctx *ctx, const char *key, mr_model *model)
{
    if (!ctx || !key || !model || cache_lookup(ctx, key)) return -1;
    return cache_insert(ctx, key, model) ? 0 : -1;
}

mr_cache_entry *mr_lua_cache_find(mr_lua_ctx *ctx, const char *key)
{
    return cache_lookup(ctx, key);
}

int mr_lua_cache_count(const mr_lua_ctx *ctx) { return ctx->cache_count; }
int mr_lua_cache_loads(const mr_lua_ctx *ctx) { return ctx->cache_loads; }

/* ---- checkers ---------------------------------------------------------------- */

mr_lua_model *mr_lua_check_model(lua_State *L, int arg)
{
    mr_lua_model *m = luaL_checkudata(L, arg, MR_LUA_MODEL);
    if (!m->model) luaL_error(L, "attempt to use a closed model");
    return m;
}

mr_lua_skeleton *mr_lua_check_skeleton(lua_State *L, int arg)
{
    return luaL_checkudata(L, arg, MR_LUA_SKELETON);
}

mr_lua_clip *mr_lua_check_clip(lua_State *L, int arg)
{
    return luaL_checkudata(L, arg, MR_LUA_CLIP);
}

void mr_lua_push_model(lua_State *L, mr_cache_entry *e)
{
    mr_lua_model *m = lua_newuserdatauv(L, sizeof *m, 0);
    m->model = NULL;                   /* released until set up */
    m->entry = NULL;
    luaL_setmetatable(L, MR_LUA_MODEL);
    m->entry = e;
    m->model = e->model;
}

void mr_lua_push_skeleton(lua_State *L, int model_idx)
{
    model_idx = lua_absindex(L, model_idx);
    mr_lua_model *m = mr_lua_check_model(L, model_idx);
    mr_lua_skeleton *s = lua_newuserdatauv(L, sizeof *s, 1);
    s->sk = &m->model->skeleton;
    s->entry = m->entry;
    luaL_setmetatable(L, MR_LUA_SKELETON);
    lua_pushvalue(L, model_idx);
    lua_setiuservalue(L, -2, 1);
}

void mr_lua_push_clip(lua_State *L, int model_idx, const mr_clip *clip)
{
    model_idx = lua_absindex(L, model_idx);
    mr_lua_model *m = mr_lua_check_model(L, model_idx);
    mr_lua_clip *c = lua_newuserdatauv(L, sizeof *c, 2);
    c->clip = clip;
    c->entry = m->entry;
    c->owned = NULL;
    luaL_setmetatable(L, MR_LUA_CLIP);
    lua_pushvalue(L, model_idx);
    lua_setiuservalue(L, -2, 1);
}

/* ---- joints ------------------------------------------------------------------ */

/* Case-insensitive edit distance, names cut at 63 characters. */
static int edit_distance(const char *a, const char *b)
{
    int la = (int)strnlen(a, 63), lb = (int)strnlen(b, 63);
    int row[64];
    for (int j = 0; j <= lb; j++) row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int up = row[j];
            int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            int best = diag + cost;
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* Pushes "; did you mean 'a', 'b'?" (or a hint listing names) for name. */
static void push_suggestions(lua_State *L, const mr_skeleton *sk, const char *name)
{
    int best[3] = {-1, -1, -1}, dist[3] = {1 << 30, 1 << 30, 1 << 30};
    int limit = (int)strlen(name) / 3;
    if (limit < 1) limit = 1;
    for (int j = 0; j < sk->joint_count; j++) {
        int d = edit_distance(name, sk->names[j]);
        if (d > limit) continue;
        for (int k = 0; k < 3; k++)
            if (d < dist[k]) {
                for (int m = 2; m > k; m--) {
                    dist[m] = dist[m - 1];
                    best[m] = best[m - 1];
                }
                dist[k] = d;
                best[k] = j;
                break;
            }
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    if (best[0] >= 0) {
        luaL_addstring(&b, "; did you mean ");
        for (int k = 0; k < 3 && best[k] >= 0; k++) {
            if (k) luaL_addstring(&b, k == 2 || best[k + 1 < 3 ? k + 1 : k] < 0 ? " or " : ", ");
            luaL_addchar(&b, '\'');
            luaL_addstring(&b, sk->names[best[k]]);
            luaL_addchar(&b, '\'');
        }
        luaL_addchar(&b, '?');
    } else if (sk->joint_count <= 16) {
        luaL_addstring(&b, "; joints are");
        for (int j = 0; j < sk->joint_count; j++) {
            luaL_addstring(&b, j ? ", '" : " '");
            luaL_addstring(&b, sk->names[j]);
            luaL_addchar(&b, '\'');
        }
    } else {
        lua_pushfstring(L, "; the skeleton has %d joints (skeleton:names() lists them)",
                        sk->joint_count);
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
}

int mr_lua_check_joint(lua_State *L, int arg, const mr_skeleton *sk)
{
    int t = lua_type(L, arg);
    if (t == LUA_TNUMBER) {
        int isint;
        lua_Integer i = lua_tointegerx(L, arg, &isint);
        if (!isint || i < 1 || i > sk->joint_count)
            luaL_argerror(L, arg, lua_pushfstring(L, "joint index %s out of range 1..%d",
                                                  luaL_tolstring(L, arg, NULL), sk->joint_count));
        return (int)i - 1;
    }
    if (t == LUA_TSTRING) {
        const char *name = lua_tostring(L, arg);
        int j = mr_skeleton_find(sk, name);
        if (j >= 0) return j;
        push_suggestions(L, sk, name);
        luaL_argerror(L, arg, lua_pushfstring(L, "unknown joint '%s'%s", name, lua_tostring(L, -1)));
    }
    return luaL_typeerror(L, arg, "joint name or index");
}

/* ---- marrow.model ---------------------------------------------------------- */

/* Pushes the resolved path of an anim entry: a bare name means NAME.md5anim
 * beside the mesh. */
static void push_anim_path(lua_State *L, const char *mesh, const char *anim)
{
    if (!strchr(anim, '/') && !strchr(anim, '.')) {
        const char *slash = strrchr(mesh, '/');
        if (slash) lua_pushfstring(L, "%s/%s.md5anim", lua_pushlstring(L, mesh, (size_t)(slash - mesh)), anim);
        else lua_pushfstring(L, "%s.md5anim", anim);
        if (slash) lua_remove(L, -2);
        return;
    }
    mr_lua_push_resolved(L, anim);
}

static int l_model(lua_State *L)
{
    mr_lua_ctx *ctx = mr_lua_state_of(L)->ctx;
    const char *path = luaL_checkstring(L, 1);
    if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TTABLE);

    /* A key added by the host (mr_lua_cache_add) matches as given. */
    mr_cache_entry *e = lua_isnoneornil(L, 2) ? cache_lookup(ctx, path) : NULL;
    if (e) {
        mr_lua_push_model(L, e);
        return 1;
    }

    int n = 0;
    if (lua_istable(L, 2)) {
        if (lua_getfield(L, 2, "anims") != LUA_TNIL) {
            luaL_argcheck(L, lua_istable(L, -1), 2, "opts.anims must be a list of paths");
            n = (int)luaL_len(L, -1);
            luaL_argcheck(L, n >= 0 && n <= 256, 2, "opts.anims: at most 256 anims");
        }
        lua_pop(L, 1);
    }
    /* Everything lives on the Lua stack, so an error frees it all. */
    mr_lua_push_resolved(L, path);
    int mesh_idx = lua_gettop(L);
    lua_pushvalue(L, mesh_idx);        /* the cache key */
    int key_idx = lua_gettop(L);
    lua_createtable(L, n, 0);          /* resolved anim paths */
    int anims_idx = lua_gettop(L);
    for (int i = 1; i <= n; i++) {
        lua_getfield(L, 2, "anims");
        lua_geti(L, -1, i);
        if (!lua_isstring(L, -1))
            return luaL_argerror(L, 2, lua_pushfstring(L, "opts.anims[%d] must be a path", i));
        push_anim_path(L, lua_tostring(L, mesh_idx), lua_tostring(L, -1));
        lua_pushvalue(L, -1);
        lua_seti(L, anims_idx, i);
        lua_pushfstring(L, "%s\n%s", lua_tostring(L, key_idx), lua_tostring(L, -1));
        lua_replace(L, key_idx);
        lua_pop(L, 3);
    }
    e = cache_lookup(ctx, lua_tostring(L, key_idx));
    if (!e) {
        const char *anims[256];
        for (int i = 0; i < n; i++) {
            lua_geti(L, anims_idx, i + 1);
            anims[i] = lua_tostring(L, -1);  /* kept alive by the anims table */
            lua_pop(L, 1);
        }
        mr_model *model = NULL;
        mr_error err = {0};
        double t0 = mr_lua_budget_clock();
        mr_status st = mr_model_load(lua_tostring(L, mesh_idx), anims, n, &model, &err);
        mr_lua_budget_extend(L, mr_lua_budget_clock() - t0);
        if (st != MR_OK) {
            luaL_pushfail(L);
            lua_pushstring(L, err.msg[0] ? err.msg : mr_status_string(st));
            return 2;
        }
        ctx->cache_loads++;
        e = cache_insert(ctx, lua_tostring(L, key_idx), model);
        if (!e) {
            mr_model_free(model);
            return luaL_error(L, "out of memory");
        }
    }
    mr_lua_push_model(L, e);
    return 1;
}

/* ---- model methods ---------------------------------------------------------- */

static int model_release(lua_State *L)
{
    mr_lua_model *m = luaL_checkudata(L, 1, MR_LUA_MODEL);
    m->model = NULL;                   /* the cache keeps the data */
    return 0;
}

static int model_tostring(lua_State *L)
{
    mr_lua_model *m = luaL_checkudata(L, 1, MR_LUA_MODEL);
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
        lua_Integer i = luaL_checkinteger(L, 2);
        luaL_argcheck(L, i >= 1 && i <= mo->clip_count, 2,
                      lua_pushfstring(L, "clip index out of range 1..%d", mo->clip_count));
        c = mo->clips[i - 1];
    } else {
        const char *name = luaL_checkstring(L, 2);
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
            return luaL_argerror(L, 2, lua_pushfstring(L, "no clip '%s' in %s (clips: %s)", name,
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

static const luaL_Reg model_methods[] = {
    {"skeleton", model_skeleton}, {"clips", model_clips},   {"clip", model_clip},
    {"meshes", model_meshes},     {"bounds", model_bounds}, {"path", model_path},
    {"format", model_format},     {"display_matrix", model_display_matrix},
    {NULL, NULL},
};

static const luaL_Reg model_meta[] = {
    {"__gc", model_release}, {"__close", model_release}, {"__tostring", model_tostring},
    {"__index", NULL},
    {NULL, NULL},
};

/* ---- skeleton ----------------------------------------------------------------- */

static int sk_len(lua_State *L)
{
    lua_pushinteger(L, mr_lua_check_skeleton(L, 1)->sk->joint_count);
    return 1;
}

static int sk_tostring(lua_State *L)
{
    const mr_skeleton *sk = mr_lua_check_skeleton(L, 1)->sk;
    lua_pushfstring(L, "skeleton (%d joints, root '%s')", sk->joint_count,
                    sk->joint_count ? sk->names[0] : "");
    return 1;
}

static int sk_gc(lua_State *L)
{
    (void)mr_lua_check_skeleton(L, 1);   /* a view: the model (user value) owns the data */
    return 0;
}

static int sk_joint(lua_State *L)
{
    const mr_skeleton *sk = mr_lua_check_skeleton(L, 1)->sk;
    lua_pushinteger(L, mr_lua_check_joint(L, 2, sk) + 1);
    return 1;
}

static int sk_find(lua_State *L)
{
    const mr_skeleton *sk = mr_lua_check_skeleton(L, 1)->sk;
    int j = mr_skeleton_find(sk, luaL_checkstring(L, 2));
    if (j < 0) luaL_pushfail(L);
    else lua_pushinteger(L, j + 1);
    return 1;
}

static int sk_name(lua_State *L)
{
    const mr_skeleton *sk = mr_lua_check_skeleton(L, 1)->sk;
    lua_pushstring(L, sk->names[mr_lua_check_joint(L, 2, sk)]);
    return 1;
}

static int sk_parent(lua_State *L)
{
    const mr_skeleton *sk = mr_lua_check_skeleton(L, 1)->sk;
    lua_pushinteger(L, sk->parents[mr_lua_check_joint(L, 2, sk)] + 1);
    return 1;
}

static int sk_children(lua_State *L)
{
    const mr_skeleton *sk = mr_lua_check_skeleton(L, 1)->sk;
    int j = mr_lua_check_joint(L, 2, sk), n = 0;
    lua_newtable(L);
    for (int c = j + 1; c < sk->joint_count; c++)
        if (sk->parents[c] == j) {
            lua_pushinteger(L, c + 1);
            lua_seti(L, -2, ++n);
        }
    return 1;
}

static int sk_names(lua_State *L)
{
    const mr_skeleton *sk = mr_lua_check_skeleton(L, 1)->sk;
    lua_createtable(L, sk->joint_count, 0);
    for (int j = 0; j < sk->joint_count; j++) {
        lua_pushstring(L, sk->names[j]);
        lua_seti(L, -2, j + 1);
    }
    return 1;
}

static int sk_rest_pose(lua_State *L)
{
    mr_lua_check_skeleton(L, 1);
    lua_getiuservalue(L, 1, 1);        /* the model */
    mr_lua_push_pose(L, -1, NULL);
    return 1;
}

static const luaL_Reg sk_methods[] = {
    {"joint", sk_joint},       {"find", sk_find},   {"name", sk_name},
    {"parent", sk_parent},     {"children", sk_children}, {"names", sk_names},
    {"rest_pose", sk_rest_pose},
    {NULL, NULL},
};

static const luaL_Reg sk_meta[] = {
    {"__len", sk_len}, {"__tostring", sk_tostring}, {"__gc", sk_gc}, {"__index", NULL},
    {NULL, NULL},
};

/* ---- clip ------------------------------------------------------------------------ */

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
    lua_Number t = luaL_checknumber(L, 2);
    mr_lua_pose *p = mr_lua_check_pose(L, 3);
    int loop = lua_isnoneornil(L, 4) ? 1 : lua_toboolean(L, 4);
    luaL_argcheck(L, isfinite(t), 1, "time must be a finite number");
    if (c->joint_count != p->pose.joint_count)
        return luaL_error(L, "clip '%s' animates %d joints but the pose has %d", c->name,
                          c->joint_count, p->pose.joint_count);
    mr_status st = mr_clip_sample(c, p->sk, (float)t, loop ? MR_WRAP_LOOP : MR_WRAP_CLAMP, &p->pose);
    if (st != MR_OK)
        return luaL_error(L, "clip '%s': %s", c->name, mr_status_string(st));
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

/* A clip made by a script is owned by a hidden box userdata (user value 2
 * of the clip userdata), whose __gc frees it. The clip's own metatable has
 * no __gc: a script can reach that one (getmetatable(clip).__gc(clip)) and
 * would free a clip that mixers still sample and the userdata still points
 * at. Nothing gives a script the box, so it is finalized only once the clip
 * userdata (which mixers keep in their refs) is unreachable. */
#define MR_LUA_CLIP_BOX "marrow.clipbox"

static int clip_box_gc(lua_State *L)
{
    mr_clip **box = luaL_checkudata(L, 1, MR_LUA_CLIP_BOX);
    mr_clip_free(*box);
    *box = NULL;
    return 0;
}

void mr_lua_push_owned_clip(lua_State *L, int model_idx, mr_clip *clip)
{
    model_idx = lua_absindex(L, model_idx);
    mr_clip **box = lua_newuserdatauv(L, sizeof *box, 0);
    *box = NULL;
    if (luaL_newmetatable(L, MR_LUA_CLIP_BOX)) {
        lua_pushcfunction(L, clip_box_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    *box = clip;                       /* from here on the box frees it */
    mr_lua_push_clip(L, model_idx, clip);
    ((mr_lua_clip *)lua_touserdata(L, -1))->owned = clip;
    lua_insert(L, -2);
    lua_setiuservalue(L, -2, 2);
}

static const luaL_Reg clip_methods[] = {
    {"name", clip_name}, {"duration", clip_duration}, {"rate", clip_rate},
    {"sample", clip_sample},
    {NULL, NULL},
};

static const luaL_Reg clip_meta[] = {
    {"__tostring", clip_tostring}, {"__index", NULL},
    {NULL, NULL},
};

/* ---- opener ------------------------------------------------------------------------ */

static void make_meta(lua_State *L, const char *name, const luaL_Reg *meta, const luaL_Reg *methods)
{
    luaL_newmetatable(L, name);
    luaL_setfuncs(L, meta, 0);
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}

void mr_lua_open_model(lua_State *L)
{
    make_meta(L, MR_LUA_MODEL, model_meta, model_methods);
    make_meta(L, MR_LUA_SKELETON, sk_meta, sk_methods);
    make_meta(L, MR_LUA_CLIP, clip_meta, clip_methods);
    lua_pushcfunction(L, l_model);
    lua_setfield(L, -2, "model");
}
