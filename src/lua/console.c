/* console.c — the ring of printed lines (see console.h). */
#include "lua/console.h"

#include <string.h>

void mr_lua_console_put(mr_lua_console *c, const char *text, double time)
{
    while (text) {
        const char *nl = strchr(text, '\n');
        size_t n = nl ? (size_t)(nl - text) : strlen(text);
        int slot = (c->head + c->count) % MR_LUA_CONSOLE_LINES;
        if (c->count == MR_LUA_CONSOLE_LINES) c->head = (c->head + 1) % MR_LUA_CONSOLE_LINES;
        else c->count++;
        /* Tabs become spaces up to the next multiple of 8 (the font has no tab). */
        char *out = c->line[slot];
        size_t cap = sizeof c->line[slot] - 1, len = 0;
        for (size_t i = 0; i < n && len < cap; i++) {
            if (text[i] == '\t') {
                do out[len++] = ' ';
                while (len % 8 && len < cap);
            } else {
                out[len++] = text[i];
            }
        }
        out[len] = '\0';
        c->time[slot] = time;
        text = nl ? nl + 1 : NULL;
    }
}

const char *mr_lua_console_get(const mr_lua_console *c, int i, double *time)
{
    if (i < 0 || i >= c->count) return NULL;
    int slot = (c->head + i) % MR_LUA_CONSOLE_LINES;
    if (time) *time = c->time[slot];
    return c->line[slot];
}
