/* test_error.c — core/error: messages longer than mr_error.msg. */
#include <stdlib.h>

#include "core/error.h"
#include "test.h"

/* A 5 MB joint name used to cut "...:LINE: expected ..." off the end. */
TEST(error_set_long_message_keeps_its_start_and_end)
{
    size_t n = 5u << 20;
    char *name = malloc(n + 1);
    memset(name, 'x', n);
    name[n] = '\0';
    mr_error err = {0};
    CHECK(mr_error_set(&err, MR_ERR_BAD_FILE, "bvh: a.bvh: joint '%s' at line %d: expected a shorter name", name, 42)
          == MR_ERR_BAD_FILE);
    CHECK(err.status == MR_ERR_BAD_FILE);
    CHECK(strlen(err.msg) == sizeof err.msg - 1);
    CHECK(strncmp(err.msg, "bvh: a.bvh: joint 'xxx", 22) == 0);
    CHECK_STR_CONTAINS(err.msg, "xxx ... xxx");
    size_t len = strlen(err.msg);
    const char *end = "' at line 42: expected a shorter name";
    CHECK(len > strlen(end) && !strcmp(err.msg + len - strlen(end), end));
    free(name);
}

TEST(error_set_cut_never_splits_a_utf8_character)
{
    char text[3000];
    size_t o = 0;
    while (o + 2 < sizeof text - 1) { text[o++] = (char)0xC3; text[o++] = (char)0xA9; }  /* é */
    text[o] = '\0';
    mr_error err = {0};
    mr_error_set(&err, MR_ERR_IO, "%s", text);
    const char *cut = strstr(err.msg, " ... ");
    CHECK(cut != NULL);
    if (cut) {
        CHECK((unsigned char)cut[-1] == 0xA9);            /* the head ends after a whole character */
        CHECK((unsigned char)cut[5] == 0xC3);             /* the tail starts with one */
    }
    CHECK(mr_error_set(NULL, MR_ERR_IO, "%s", text) == MR_ERR_IO);
}

TEST(gl_failures_have_their_own_status)
{
    /* A GL error is not "cannot read file": its own status and words. */
    CHECK(MR_ERR_GL != MR_ERR_IO);
    CHECK_STR_CONTAINS(mr_status_string(MR_ERR_GL), "OpenGL");
    CHECK(strcmp(mr_status_string(MR_ERR_GL), mr_status_string(MR_ERR_IO)) != 0);
}

int main(void)
{
    RUN(error_set_long_message_keeps_its_start_and_end);
    RUN(error_set_cut_never_splits_a_utf8_character);
    RUN(gl_failures_have_their_own_status);
    return test_summary("error");
}
