/* test_path.c — path strings (src/core/path.c): base names, stems,
 * extensions, joins, and the absolute/relative forms the writers use to
 * refer to textures from their output's folder, and URL decoding. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/path.h"
#include "test.h"

static int same(char *got, const char *want)
{
    int ok = got && !strcmp(got, want);
    if (!ok) printf("       got '%s', want '%s'\n", got ? got : "(null)", want);
    free(got);
    return ok;
}

TEST(path_parts)
{
    char ext[8];
    CHECK(!strcmp(mr_path_basename("a/b/walk.md5anim"), "walk.md5anim"));
    CHECK(same(mr_path_dirname("a/b/walk.md5anim"), "a/b"));
    CHECK(same(mr_path_dirname("walk.md5anim"), "."));
    CHECK(same(mr_path_stem("a/walk.md5anim"), "walk"));
    CHECK(!strcmp(mr_path_ext("a/B.GLB", ext, sizeof ext), "glb"));
    CHECK(same(mr_path_join("dir/", "x.png"), "dir/x.png"));
    CHECK(same(mr_path_join("dir", "/abs/x.png"), "/abs/x.png"));
}

TEST(path_absolute_resolves_dots_textually)
{
    CHECK(same(mr_path_absolute("/a/./b/../c"), "/a/c"));
    CHECK(same(mr_path_absolute("/.."), "/"));
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd)) {
        char want[4200];
        snprintf(want, sizeof want, "%s/models/x.png", cwd);
        CHECK(same(mr_path_absolute("models/./tex/../x.png"), want));
    }
}

TEST(path_relative_climbs_only_as_far_as_needed)
{
    CHECK(same(mr_path_relative("/a/b", "/a/b/tex/x.png"), "tex/x.png"));
    CHECK(same(mr_path_relative("/a/b", "/a/c/x.png"), "../c/x.png"));
    CHECK(same(mr_path_relative("/a/bc", "/a/b/x.png"), "../b/x.png"));   /* whole components only */
    CHECK(same(mr_path_relative("/", "/a/x.png"), "a/x.png"));
    CHECK(same(mr_path_relative("/tmp/out", "/work/models/x.png"), "../../work/models/x.png"));
    CHECK(same(mr_path_relative("out", "out/x.png"), "x.png"));
}

TEST(path_url_decode_keeps_bad_escapes_and_counts_nul)
{
    size_t n = 0;
    CHECK(same(mr_path_url_decode("a%20b%2Fc", &n), "a b/c"));
    CHECK(same(mr_path_url_decode("50%% and %zz and %4", NULL), "50%% and %zz and %4"));
    char *s = mr_path_url_decode("x%00y", &n);
    CHECK(s && n == 3 && s[0] == 'x' && s[1] == '\0' && s[2] == 'y');
    free(s);
}

int main(void)
{
    RUN(path_parts);
    RUN(path_absolute_resolves_dots_textually);
    RUN(path_relative_climbs_only_as_far_as_needed);
    RUN(path_url_decode_keeps_bad_escapes_and_counts_nul);
    return test_summary("path");
}
