/* console.h — the on-screen console of a script context (internal to
 * src/lua): the last MR_LUA_CONSOLE_LINES printed lines, each with the script
 * time it was added, and whether the script hid it (marrow.console(false)).
 * The drawing glue reads it through mr_lua_console_get; nothing else looks
 * inside. */
#ifndef MR_LUA_CONSOLE_H
#define MR_LUA_CONSOLE_H

#include <stddef.h>

/* Lines kept by the on-screen console. */
#define MR_LUA_CONSOLE_LINES 12

typedef struct mr_lua_console {
    char line[MR_LUA_CONSOLE_LINES][160];
    double time[MR_LUA_CONSOLE_LINES];  /* script time each line was added */
    int head, count;
    int hidden;              /* marrow.console(false) */
} mr_lua_console;

/* Appends text (one line per '\n'; tabs become spaces to the next multiple
 * of 8; a line longer than 159 bytes goes on in the next kept line instead
 * of being cut), dropping the oldest lines. */
void mr_lua_console_put(mr_lua_console *c, const char *text, double time);
/* Line i (0 = the oldest kept) and the time it was added; NULL past the end. */
const char *mr_lua_console_get(const mr_lua_console *c, int i, double *time);

/* Word-wraps text for a panel `width` pixels wide: copies it into out (cap
 * bytes, always NUL-terminated; what does not fit is dropped), turning the
 * space before a word that would pass width into '\n' (a word wider than
 * width alone is broken between characters). measure(user, s, n) gives the
 * width in pixels of the n bytes at s on one line. Existing '\n' are kept.
 * Returns the number of lines written. */
int mr_lua_console_wrap(const char *text, float width, float (*measure)(void *user, const char *s, size_t n),
                        void *user, char *out, size_t cap);

#endif
