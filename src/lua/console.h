/* console.h — the on-screen console of a script context (internal to
 * src/lua): the last MR_LUA_CONSOLE_LINES printed lines, each with the script
 * time it was added, and whether the script hid it (marrow.console(false)).
 * The drawing glue reads it through mr_lua_console_get; nothing else looks
 * inside. */
#ifndef MR_LUA_CONSOLE_H
#define MR_LUA_CONSOLE_H

#include "lua/script.h"

typedef struct mr_lua_console {
    char line[MR_LUA_CONSOLE_LINES][160];
    double time[MR_LUA_CONSOLE_LINES];  /* script time each line was added */
    int head, count;
    int hidden;              /* marrow.console(false) */
} mr_lua_console;

/* Appends text (one line per '\n'; tabs become spaces to the next multiple
 * of 8; a long line is cut at 159 bytes), dropping the oldest lines. */
void mr_lua_console_put(mr_lua_console *c, const char *text, double time);
/* Line i (0 = the oldest kept) and the time it was added; NULL past the end. */
const char *mr_lua_console_get(const mr_lua_console *c, int i, double *time);

#endif
