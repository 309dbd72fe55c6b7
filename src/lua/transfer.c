/* transfer.c — the reload hand-over (see transfer.h). The list of the
 * userdata types it can copy is the table `types` below, and nowhere else.
 *
 * Runs inside a protected call on the new state; only allocation-free,
 * error-free calls are made on the old one.
 */
#include <stdio.h>
#include <string.h>

#include "anim/springs.h"
#include "lua/transfer.h"
#include "lua/wrap.h"

#define MAX_DEPTH 64
#define MAX_VALUES 1000000

typedef struct transfer {
    lua_State *F, *T;        /* from, to */
    const mr_lua_transfer_types *types;
    int seen;                /* index in T of a table: lightuserdata(old table) -> new table */
    int count;
    int *dropped;
    char *where;
    size_t where_size;
} transfer;

/* Copiers: push onto T the copy of userdata u of F; 0 when it cannot be copied. */
static int copy_vec3(lua_State *T, void *u) { return mr_lua_push_vec3(T, u) != NULL; }
static int copy_quat(lua_State *T, void *u) { return mr_lua_push_quat(T, u) != NULL; }
static int copy_mat4(lua_State *T, void *u) { return mr_lua_push_mat4(T, (vec4 *)u) != NULL; }

static int copy_model(lua_State *T, void *u)
{
    mr_lua_model *m = u;
    if (!m->model) return 0;           /* released */
    mr_lua_push_model(T, m->model);
    return 1;
}

static int copy_skeleton(lua_State *T, void *u)
{
    mr_lua_push_model(T, ((mr_lua_skeleton *)u)->owner);
    mr_lua_push_skeleton(T, -1);
    lua_remove(T, -2);
    return 1;
}

static int copy_clip(lua_State *T, void *u)
{
    mr_lua_clip *c = u;
    if (c->edit) return mr_lua_clip_edit_transfer(T, c);  /* authored: its keys are copied */
    if (c->owned) return 0;            /* freed with the old state */
    mr_lua_push_model(T, c->owner);
    mr_lua_push_clip(T, -1, c->clip);
    lua_remove(T, -2);
    return 1;
}

static int copy_pose(lua_State *T, void *u)
{
    mr_lua_pose *p = u;
    if (!p->pose.t) return 0;          /* closed */
    mr_lua_push_model(T, p->owner);
    mr_lua_pose_copy_morph(mr_lua_push_pose(T, -1, &p->pose), p);
    lua_remove(T, -2);
    return 1;
}

static int copy_springs(lua_State *T, void *u)
{
    mr_lua_springs *s = u;
    mr_springs *c = NULL;
    if (!s->s || mr_springs_clone(s->s, &c) != MR_OK) return 0;   /* closed: dropped */
    mr_lua_push_model(T, s->owner);
    mr_lua_push_springs(T, -1, c);
    lua_remove(T, -2);
    return 1;
}

static const struct {
    const char *name;
    int (*copy)(lua_State *T, void *u);
} types[] = {
    {MR_LUA_VEC3, copy_vec3},   {MR_LUA_QUAT, copy_quat}, {MR_LUA_MAT4, copy_mat4},
    {MR_LUA_MODEL, copy_model}, {MR_LUA_SKELETON, copy_skeleton},
    {MR_LUA_CLIP, copy_clip},   {MR_LUA_POSE, copy_pose},
    {MR_LUA_SPRINGS, copy_springs},
};
#define TYPE_COUNT ((int)(sizeof types / sizeof *types))
_Static_assert(sizeof types / sizeof *types <= MR_LUA_TRANSFER_MAX, "raise MR_LUA_TRANSFER_MAX");

void mr_lua_transfer_prepare(lua_State *L, mr_lua_transfer_types *t)
{
    for (int i = 0; i < TYPE_COUNT; i++) {
        luaL_getmetatable(L, types[i].name);
        t->mt[i] = lua_topointer(L, -1);
        lua_pop(L, 1);
    }
}

static int our_type(transfer *t, int idx)
{
    if (!lua_getmetatable(t->F, idx)) return -1;
    const void *mt = lua_topointer(t->F, -1);
    lua_pop(t->F, 1);
    for (int i = 0; i < TYPE_COUNT; i++)
        if (t->types->mt[i] == mt) return i;
    return -1;
}

static void drop(transfer *t, const char *path, const char *what)
{
    if (!(*t->dropped)++) snprintf(t->where, t->where_size, "%s is a %s", path, what);
}

static void copy_value(transfer *t, int idx, int depth, const char *path);

static void copy_table(transfer *t, int idx, int depth, const char *path)
{
    lua_State *F = t->F, *T = t->T;
    const void *key = lua_topointer(F, idx);
    lua_pushlightuserdata(T, (void *)key);
    if (lua_rawget(T, t->seen) == LUA_TTABLE) return;   /* already copied: share it */
    lua_pop(T, 1);
    if (depth >= MAX_DEPTH) {
        luaL_error(T, "reload: the table returned by unload() is nested deeper than %d", MAX_DEPTH);
    }
    lua_newtable(T);
    lua_pushlightuserdata(T, (void *)key);
    lua_pushvalue(T, -2);
    lua_rawset(T, t->seen);
    if (!lua_checkstack(F, 4)) luaL_error(T, "reload: out of stack copying unload()'s table");
    luaL_checkstack(T, 6, "reload: copying unload()'s table");
    lua_pushnil(F);
    while (lua_next(F, idx)) {
        int kt = lua_type(F, -2);
        char sub[128];
        if (kt == LUA_TSTRING) snprintf(sub, sizeof sub, "%s.%s", path, lua_tostring(F, -2));
        else if (kt == LUA_TNUMBER && lua_isinteger(F, -2))
            snprintf(sub, sizeof sub, "%s[%lld]", path, (long long)lua_tointeger(F, -2));
        else snprintf(sub, sizeof sub, "%s[?]", path);
        if (kt != LUA_TSTRING && kt != LUA_TNUMBER && kt != LUA_TBOOLEAN) {
            drop(t, sub, "key that is not a string, number or boolean");
            lua_pop(F, 1);
            continue;
        }
        copy_value(t, lua_absindex(F, -2), depth + 1, path);  /* key (plain value) */
        copy_value(t, lua_absindex(F, -1), depth + 1, sub);
        if (lua_isnil(T, -2) || lua_isnil(T, -1)) lua_pop(T, 2);
        else lua_rawset(T, -3);
        lua_pop(F, 1);
    }
}

static void copy_value(transfer *t, int idx, int depth, const char *path)
{
    lua_State *F = t->F, *T = t->T;
    if (++t->count > MAX_VALUES)
        luaL_error(T, "reload: unload() returned more than %d values", MAX_VALUES);
    switch (lua_type(F, idx)) {
    case LUA_TNIL: lua_pushnil(T); return;
    case LUA_TBOOLEAN: lua_pushboolean(T, lua_toboolean(F, idx)); return;
    case LUA_TNUMBER:
        if (lua_isinteger(F, idx)) lua_pushinteger(T, lua_tointeger(F, idx));
        else lua_pushnumber(T, lua_tonumber(F, idx));
        return;
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(F, idx, &n);  /* a string already: no conversion */
        lua_pushlstring(T, s, n);
        return;
    }
    case LUA_TTABLE: copy_table(t, idx, depth, path); return;
    case LUA_TUSERDATA: break;
    default:
        drop(t, path, lua_typename(F, lua_type(F, idx)));
        lua_pushnil(T);
        return;
    }
    int type = our_type(t, idx);
    if (type >= 0 && types[type].copy(T, lua_touserdata(F, idx))) return;
    drop(t, path, "userdata that cannot be copied");
    lua_pushnil(T);
}

void mr_lua_transfer(lua_State *from, const mr_lua_transfer_types *types_of_from, int from_idx, lua_State *to,
                     int *dropped, char *where, size_t where_size)
{
    lua_newtable(to);
    transfer t = {from, to, types_of_from, lua_gettop(to), 0, dropped, where, where_size};
    copy_value(&t, lua_absindex(from, from_idx), 0, "state");
    lua_remove(to, t.seen);
}
