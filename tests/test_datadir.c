/* test_datadir.c — finding marrow's data folder from the executable
 * (src/core/datadir.c): a checkout's layout, the installed layout
 * (PREFIX/bin -> PREFIX/share/marrow), checkout first, and nothing found. */
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/datadir.h"
#include "test.h"

static char base[PATH_MAX];

/* Makes base/rel as a folder (with its parents) or, ending in a name with a
 * dot, as an empty file. */
static void make(const char *rel)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/%s", base, rel);
    for (char *s = p + strlen(base) + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0777);
            *s = '/';
        }
    if (strchr(strrchr(p, '/'), '.')) {
        FILE *f = fopen(p, "w");
        if (f) fclose(f);
    } else {
        mkdir(p, 0777);
    }
}

static int found_at(const char *exe_rel, const char *want_rel)
{
    char exe[PATH_MAX + 64], got[PATH_MAX], want[PATH_MAX + 64];
    snprintf(exe, sizeof exe, "%s/%s", base, exe_rel);
    int ok = mr_datadir_for_exe(exe, got, sizeof got);
    if (!want_rel) {
        if (ok || got[0]) printf("       %s: found '%s', want none\n", exe_rel, got);
        return !ok && !got[0];
    }
    snprintf(want, sizeof want, "%s/%s", base, want_rel);
    if (!ok || strcmp(got, want)) printf("       %s: got '%s', want '%s'\n", exe_rel, ok ? got : "(none)", want);
    return ok && !strcmp(got, want);
}

TEST(datadir_installed_layout_is_prefix_share_marrow)
{
    make("inst/bin/marrow.x");
    make("inst/share/marrow/shaders/model.vert");
    make("inst/share/marrow/scripts");
    CHECK(found_at("inst/bin/marrow.x", "inst/share/marrow"));
}

TEST(datadir_checkout_layout_from_build_folders)
{
    make("co/shaders/model.vert");
    make("co/scripts");
    make("co/build/release/tests");
    CHECK(found_at("co/build/release/marrow", "co"));
    CHECK(found_at("co/build/release/tests/test_x", "co"));
}

TEST(datadir_checkout_comes_before_installed_layout)
{
    /* co/build/share/marrow looks installed for co/build/bin/marrow, but
     * co itself (EXE/../..) is a checkout and is found first. */
    make("co/build/bin");
    make("co/build/share/marrow/shaders/model.vert");
    make("co/build/share/marrow/scripts");
    CHECK(found_at("co/build/bin/marrow", "co"));
}

TEST(datadir_needs_shaders_and_scripts)
{
    make("half/bin");
    make("half/share/marrow/shaders/model.vert");   /* no scripts/ */
    make("bare/bin");
    make("bare/share/marrow/scripts");               /* no shaders */
    CHECK(found_at("half/bin/marrow", NULL));
    CHECK(found_at("bare/bin/marrow", NULL));
    char out[8];
    CHECK(!mr_datadir_for_exe("no-slash", out, sizeof out) && !out[0]);
}

TEST(datadir_of_this_test_is_the_checkout)
{
    /* build/<dir>/tests/test_datadir: the checkout holding this file. */
    const char *root = mr_datadir_root();
    CHECK(root != NULL);
    if (root) {
        char p[PATH_MAX + 32];
        snprintf(p, sizeof p, "%s/tests/test_datadir.c", root);
        CHECK(access(p, R_OK) == 0);
    }
}

int main(void)
{
    snprintf(base, sizeof base, "/tmp/marrow-datadir-XXXXXX");
    if (!mkdtemp(base)) return 1;
    RUN(datadir_installed_layout_is_prefix_share_marrow);
    RUN(datadir_checkout_layout_from_build_folders);
    RUN(datadir_checkout_comes_before_installed_layout);
    RUN(datadir_needs_shaders_and_scripts);
    RUN(datadir_of_this_test_is_the_checkout);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0) printf("  (could not remove %s)\n", base);
    return test_summary("datadir");
}
