/* test_examples.c — every example still draws its checked-in picture.
 *
 * The list of examples is scripts/examples.sh's (derived from the example
 * files themselves: each takes its own picture at a fixed frame). Each
 * example runs headless with $MARROW (./marrow by default) just past that
 * frame, and its picture is compared with examples/NAME.png by the
 * comparer of `marrow test` (testkit/compare.h) at the goldens' default
 * tolerance. A failure names the share of pixels that differ and where;
 * if the change is meant, scripts/render_examples.sh renders them anew. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stb_image.h>

#include "test.h"
#include "testkit/compare.h"

static char tmpdir[64];

/* Runs one example and compares its picture; fails the current case. */
static void check_example(const char *marrow, const char *name, int frames)
{
    char cmd[1400], got[400], want[400];
    snprintf(cmd, sizeof cmd, "%s run --headless examples/%s.lua --frames %d --out %s >%s/%s.log 2>&1", marrow,
             name, frames, tmpdir, tmpdir, name);
    int rc = system(cmd);
    if (rc != 0) {                     /* its last lines, so the suite's output says why */
        char tail[600];
        snprintf(tail, sizeof tail, "tail -n 4 %s/%s.log", tmpdir, name);
        if (system(tail) != 0) fprintf(stderr, "(no log)\n");
    }
    CHECK_MSG(rc == 0, "%s exited with %d; see %s/%s.log", cmd, rc, tmpdir, name);
    snprintf(got, sizeof got, "%s/%s.png", tmpdir, name);
    snprintf(want, sizeof want, "examples/%s.png", name);
    int gw = 0, gh = 0, ww = 0, wh = 0, n;
    uint8_t *a = stbi_load(got, &gw, &gh, &n, 4), *e = stbi_load(want, &ww, &wh, &n, 4);
    CHECK_MSG(a != NULL, "no picture %s", got);
    CHECK_MSG(e != NULL, "no checked-in picture %s", want);
    if (a && e) {
        CHECK_MSG(gw == ww && gh == wh, "%s is %dx%d, %s %dx%d", got, gw, gh, want, ww, wh);
        if (gw == ww && gh == wh) {
            mr_compare_tol tol = mr_compare_default_tol();
            mr_compare_result r;
            mr_compare_images(e, a, gw, gh, &tol, NULL, &r);
            CHECK_MSG(r.pass, "%s against %s: %.3f%% of pixels differ (%.3f%% as anti-aliasing), largest "
                      "difference %d, in x %d..%d y %d..%d", got, want, 100 * r.diff_share, 100 * r.aa_share,
                      r.max_delta, r.box[0], r.box[2], r.box[1], r.box[3]);
        }
    }
    stbi_image_free(a);
    stbi_image_free(e);
}

TEST(the_list_is_the_example_files)
{
    /* scripts/examples.sh names every example file once, and the scripts
     * that run the examples take its list instead of keeping their own. */
    FILE *p = popen("sh scripts/examples.sh 2>&1 | wc -l; ls examples/*.lua | wc -l", "r");
    int listed = -1, files = -2;
    CHECK(p && fscanf(p, "%d %d", &listed, &files) == 2);
    if (p) pclose(p);
    CHECK_MSG(listed == files && files > 0, "scripts/examples.sh lists %d of %d examples", listed, files);
    int kept = system("grep -l 'hello:31' scripts/*.sh tests/*.sh >/dev/null 2>&1");
    CHECK_MSG(kept != 0, "a script keeps its own list of examples (grep -l hello:31 scripts/*.sh tests/*.sh)");
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/marrow-examples-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    const char *marrow = getenv("MARROW");
    if (!marrow || !*marrow) marrow = "./marrow";
    RUN(the_list_is_the_example_files);
    FILE *p = popen("sh scripts/examples.sh", "r");
    char line[256];
    while (p && fgets(line, sizeof line, p)) {
        char name[128];
        int frames;
        if (sscanf(line, "%127[^:]:%d", name, &frames) != 2) continue;
        /* One case per example, named after it. */
        char label[500];
        snprintf(label, sizeof label, "examples/%s.lua draws examples/%s.png", name, name);
        test_current = label;
        test_current_failed = 0;
        check_example(marrow, name, frames);
        if (test_current_failed) test_failed++;
        else {
            test_passed++;
            printf("  ok   %s\n", label);
        }
        fflush(stdout);
    }
    if (p) pclose(p);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) printf("  (could not remove %s)\n", tmpdir);
    return test_summary("examples");
}
