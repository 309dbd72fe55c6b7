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
        size_t i = 0;
        for (; i < n && len < cap; i++) {
            if (text[i] == '\t') {
                do out[len++] = ' ';
                while (len % 8 && len < cap);
            } else {
                out[len++] = text[i];
            }
        }
        out[len] = '\0';
        c->time[slot] = time;
        if (i < n) {                   /* a long line goes on in the next slot */
            text += i;
            continue;
        }
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

int mr_lua_console_wrap(const char *text, float width, float (*measure)(void *user, const char *s, size_t n),
                        void *user, char *out, size_t cap)
{
    size_t len = 0;
    int lines = 1;
    if (!cap) return 0;
    const char *line = text;           /* start of the current output line, in text */
    while (*text && len + 1 < cap) {
        const char *nl = strchr(text, '\n');
        const char *end = nl ? nl : text + strlen(text);
        /* The next word (with the spaces before it) of this input line. */
        const char *w = text;
        while (w < end && *w == ' ') w++;
        while (w < end && *w != ' ') w++;
        if (text > line && measure(user, line, (size_t)(w - line)) > width) {
            /* Break in the spaces before the word: they end the line. */
            while (*text == ' ') text++;
            out[len++] = '\n';
            lines++;
            line = text;
            continue;
        }
        /* A word that alone is wider than the panel: break it by characters. */
        const char *stop = w;
        if (text == line)
            while (stop > text + 1 && measure(user, line, (size_t)(stop - line)) > width) stop--;
        for (; text < stop && len + 1 < cap; text++) out[len++] = *text;
        if (text < w) {                /* broken word: go on in a new line */
            if (len + 1 < cap) out[len++] = '\n';
            lines++;
            line = text;
            continue;
        }
        if (text == end && nl && len + 1 < cap) {
            out[len++] = '\n';
            lines++;
            text = nl + 1;
            line = text;
        }
    }
    out[len] = '\0';
    return lines;
}
