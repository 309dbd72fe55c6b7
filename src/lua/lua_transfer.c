/* lua_transfer.c — copies the value unload() returned from the old Lua state
 * into the new one, so load(state) gets the script's own state back after a
 * live reload.
 *
 * Copied: nil, booleans, numbers, strings, tables (shared and cyclic tables
 * stay shared and cyclic), vec3/quat/mat4, models (the same cache entry),
 * skeletons and clips (views into the copied model) and poses (a new pose
 * with the same values). Not copied, because they belong to the old state's
 * code: functions, coroutines and foreign userdata; they become nil and are
 * counted. Table keys of other types than string, number and boolean are
 * skipped the same way. Metatables of tables are not copied (they usually
 * hold functions). Depth is limited to 64 and size to 1,000,000 values.
 *
 * Runs inside a protected call on the new state (any error there is a Lua
 * error); only allocation-free, error-free calls are made on the old one.
 */
#include <string.h>

#include "lua/lua_internal.h"

#define MAX_DEPTH 64
#define MAX_VALUES 1000000

typedef struct transfer {
    mr_lua_state *from, *to;
    int seen;                /* index in `to` of a table: lightuserdata(old table) -> new table */
    int count;
    int *dropped;
    char *where;
    size_t where_size;
} transfer;

enum { T_VEC3, T_QUAT, T_MAT4, T_MODEL, T_SKELETON, T_CLIP, T_POSE };

static int our_type(transfer *t, int idx)
{
    lua_State *F = t->from->L;
    if (!lua_getmetatable(F, idx)) return -1;
    const void *mt = lua_topointer(F, -1);
    lua_pop(F, 1);
    for (int i = 0; i < 7; i++)
        if (t->from->mt[i] == mt) return i;
    return -1;
}

static void drop(transfer *t, const char *path, const char *what)
{
    if (!(*t->dropped)++) snprintf(t->where, t->where_size, "%s is a %s", path, what);
}

/* The model userdata for a cache entry, pushed on `to`. */
static void push_model_of(transfer *t, mr_cache_entry *e)
{
    mr_lua_push_model(t->to->L, e);
}

static void copy_value(transfer *t, int idx, int depth, const char *path);

static void copy_table(transfer *t, int idx, int depth, const char *path)
{
    lua_State *F = t->from->L, *T = t->to->L;
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
    lua_State *F = t->from->L, *T = t->to->L;
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
    void *u = lua_touserdata(F, idx);
    switch (our_type(t, idx)) {
    case T_VEC3: mr_lua_push_vec3(T, u); return;
    case T_QUAT: mr_lua_push_quat(T, u); return;
    case T_MAT4: mr_lua_push_mat4(T, (vec4 *)u); return;
    case T_MODEL: {
        mr_lua_model *m = u;
        if (!m->model) break;
        push_model_of(t, m->entry);
        return;
    }
    case T_SKELETON:
        push_model_of(t, ((mr_lua_skeleton *)u)->entry);
        mr_lua_push_skeleton(T, -1);
        lua_remove(T, -2);
        return;
    case T_CLIP:
        if (((mr_lua_clip *)u)->owned) break;   /* freed with the old state */
        push_model_of(t, ((mr_lua_clip *)u)->entry);
        mr_lua_push_clip(T, -1, ((mr_lua_clip *)u)->clip);
        lua_remove(T, -2);
        return;
    case T_POSE: {
        mr_lua_pose *p = u;
        if (!p->pose.t) break;
        push_model_of(t, p->entry);
        mr_lua_push_pose(T, -1, &p->pose);
        lua_remove(T, -2);
        return;
    }
    default: break;
    }
    drop(t, path, "userdata that cannot be copied");
    lua_pushnil(T);
}

void mr_lua_transfer(mr_lua_state *from, int from_idx, mr_lua_state *to, int *dropped, char *where,
                     size_t where_size)
{
    lua_State *T = to->L;
    lua_newtable(T);
    transfer t = {from, to, lua_gettop(T), 0, dropped, where, where_size};
    copy_value(&t, lua_absindex(from->L, from_idx), 0, "state");
    lua_remove(T, t.seen);
}
