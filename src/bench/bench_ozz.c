/* bench_ozz.c — the ozz-animation section of `marrow bench` (bench.h).
 *
 * ozz-animation is not packaged by Debian, so marrow never links it: the
 * comparison is a program of its own, src/bench/ozz/compare.cc, built by
 * `make bench-ozz OZZ_SRC=DIR` (an ozz 0.16.0 source tree, built once into
 * build/ozz) into BUILD/bench/ozz_compare, next to BUILD/marrow. This
 * section looks for it there, beside the running executable
 * (/proc/self/exe: BIN_DIR/bench/ozz_compare), runs it with the bench's
 * models folder (and --quick under `marrow bench --quick`), and lets it
 * print what it measured in this run: memory and error of each library's
 * clip, and sample / local-to-model / blend times against ozz's. Without
 * the program it prints one line saying how to build it. No figure here is
 * recorded from an earlier run. The program links libmarrow statically, so
 * it measures the marrow it was built with: when the running executable is
 * newer, a line says so (run `make bench-ozz` again). */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench.h"

/* BIN_DIR/bench/ozz_compare for the running executable, into out; 0 when
 * it is not there (or not executable). *stale: 1 when the executable is
 * newer than the program. */
static int find_compare(char *out, size_t size, int *stale)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return 0;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return 0;
    struct stat self, st;
    int have_self = stat(exe, &self) == 0;
    *slash = '\0';
    if ((size_t)snprintf(out, size, "%s/bench/ozz_compare", exe) >= size) return 0;
    if (stat(out, &st) != 0 || !S_ISREG(st.st_mode) || access(out, X_OK) != 0) return 0;
    *stale = have_self && (self.st_mtim.tv_sec > st.st_mtim.tv_sec ||
                           (self.st_mtim.tv_sec == st.st_mtim.tv_sec && self.st_mtim.tv_nsec > st.st_mtim.tv_nsec));
    return 1;
}

void mr_bench_ozz(const mr_bench_opts *o)
{
    char prog[PATH_MAX + 32];
    int stale = 0;
    if (!find_compare(prog, sizeof prog, &stale)) {
        printf("== marrow beside ozz-animation 0.16: not built; `make bench-ozz OZZ_SRC=DIR` (DIR an\n"
               "   ozz-animation 0.16.0 source tree) builds and runs src/bench/ozz/compare.cc\n");
        return;
    }
    if (stale)
        printf("== note: %s is older than this marrow and measures the marrow it was linked with;\n"
               "   `make bench-ozz OZZ_SRC=DIR` again relinks it\n", prog);
    char *argv[] = {prog, "--models", (char *)o->root, o->quick ? "--quick" : NULL, NULL};
    fflush(stdout);   /* its lines follow ours */
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        execv(prog, argv);
        fprintf(stderr, "marrow bench: cannot run %s\n", prog);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        printf("== marrow beside ozz-animation: could not run %s\n", prog);
        return;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        printf("== marrow beside ozz-animation: %s failed (exit %d)\n", prog, WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        printf("== marrow beside ozz-animation: %s ended by signal %d\n", prog, WTERMSIG(status));
}
