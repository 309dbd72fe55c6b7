/* test_console.c — the console's lines (src/lua/console.c): long printed
 * lines are kept whole across ring slots, and the word wrapping the console
 * and the error panel use to fit the frame's width. */
#include <string.h>

#include "lua/console.h"
#include "test.h"

/* Every byte 10 pixels wide. */
static float ten_px(void *user, const char *s, size_t n)
{
    (void)user;
    (void)s;
    return 10.0f * (float)n;
}

static int wraps_to(const char *text, float width, const char *want, int want_lines)
{
    char out[256];
    int lines = mr_lua_console_wrap(text, width, ten_px, NULL, out, sizeof out);
    int ok = !strcmp(out, want) && lines == want_lines;
    if (!ok) printf("       '%s' at %g px: got '%s' (%d lines), want '%s' (%d)\n", text, (double)width, out, lines, want,
                    want_lines);
    return ok;
}

TEST(console_wrap_breaks_at_spaces_before_the_panel_edge)
{
    CHECK(wraps_to("short", 100, "short", 1));
    CHECK(wraps_to("aaaa bbbb cccc", 100, "aaaa bbbb\ncccc", 2));      /* 14 chars in 10 per line */
    CHECK(wraps_to("aaaa bbbb cccc", 90, "aaaa bbbb\ncccc", 2));       /* exactly fits */
    CHECK(wraps_to("aaaa bbbb cccc", 80, "aaaa\nbbbb\ncccc", 3));
    CHECK(wraps_to("aaaa   bbbb", 60, "aaaa\nbbbb", 2));               /* the spaces at the break go */
}

TEST(console_wrap_keeps_newlines_and_breaks_long_words)
{
    CHECK(wraps_to("one\ntwo three", 60, "one\ntwo\nthree", 3));
    CHECK(wraps_to("a\n\nb", 60, "a\n\nb", 3));
    CHECK(wraps_to("abcdefghij", 40, "abcd\nefgh\nij", 3));             /* wider than the panel alone */
    CHECK(wraps_to("x abcdefghij", 40, "x\nabcd\nefgh\nij", 4));
    CHECK(wraps_to("abc", 5, "a\nb\nc", 3));                          /* at least one byte a line */
}

TEST(console_wrap_never_overruns_out)
{
    char out[8];
    mr_lua_console_wrap("aaaa bbbb cccc dddd", 30, ten_px, NULL, out, sizeof out);
    CHECK(strlen(out) == 7);                                          /* cut, and NUL-terminated */
    CHECK(!strcmp(out, "aaa\na\nb"));
}

TEST(console_put_keeps_a_long_line_whole)
{
    mr_lua_console c = {0};
    char line[400];
    for (int i = 0; i < 399; i++) line[i] = (char)('a' + i % 26);
    line[399] = '\0';
    mr_lua_console_put(&c, line, 0.0);
    CHECK(c.count == 3);                                              /* 159 + 159 + 81 bytes */
    char joined[400] = "";
    for (int i = 0; mr_lua_console_get(&c, i, NULL); i++) strcat(joined, mr_lua_console_get(&c, i, NULL));
    CHECK(!strcmp(joined, line));
}

int main(void)
{
    RUN(console_wrap_breaks_at_spaces_before_the_panel_edge);
    RUN(console_wrap_keeps_newlines_and_breaks_long_words);
    RUN(console_wrap_never_overruns_out);
    RUN(console_put_keeps_a_long_line_whole);
    return test_summary("console");
}
