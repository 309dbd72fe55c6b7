/* callbacks.c — callback names and the look-alike check (see callbacks.h). */
#include "lua/callbacks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <lauxlib.h>

#include "core/str.h"

#define CALLBACK_COUNT 7

const char *const mr_lua_callback_names[CALLBACK_COUNT + 1] = {
    "load", "update", "draw", "unload", "keypressed", "mousemoved", "resize", NULL,
};

/* Largest edit distance at which a global still "looks like" a callback. */
#define LOOKALIKE_DISTANCE 2

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int mr_lua_callbacks_check(lua_State *L, const char *script)
{
    const char *found[MR_LUA_CALLBACK_WARNINGS];
    int n = 0;
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
    int g = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, g)) {
        /* The key strings stay alive in the globals table until we are done. */
        if (n < MR_LUA_CALLBACK_WARNINGS && lua_type(L, -2) == LUA_TSTRING && lua_isfunction(L, -1) &&
            !lua_iscfunction(L, -1)) {
            const char *name = lua_tostring(L, -2);
            int exact = 0;
            for (int i = 0; i < CALLBACK_COUNT; i++) exact |= !strcmp(name, mr_lua_callback_names[i]);
            if (!exact && mr_str_closest(name, mr_lua_callback_names, CALLBACK_COUNT, LOOKALIKE_DISTANCE) >= 0)
                found[n++] = name;
        }
        lua_pop(L, 1);
    }
    qsort(found, (size_t)n, sizeof *found, by_name);   /* the table's order changes from run to run */
    for (int k = 0; k < n; k++) {
        const char *cb =
            mr_lua_callback_names[mr_str_closest(found[k], mr_lua_callback_names, CALLBACK_COUNT, LOOKALIKE_DISTANCE)];
        char line[256];
        snprintf(line, sizeof line, "%s: '%.80s' looks like '%s' (%s)", script, found[k], cb,
                 !strcasecmp(found[k], cb) ? "callbacks are lower case" : "a misspelled callback is never called");
        lua_warning(L, line, 0);
    }
    lua_pop(L, 1);
    return n;
}
