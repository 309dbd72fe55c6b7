/* datadir.c — finding marrow's shaders/, scripts/ and models/ from the
 * executable's location (see datadir.h). */
#include "core/datadir.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Checkout layouts first, then the installed one (PREFIX/bin -> PREFIX/share/marrow). */
static const char *const candidates[] = {"/../..", "/../../..", "/..", "", "/../share/marrow"};

static int qualifies(const char *root)
{
    char p[PATH_MAX + 32];
    struct stat st;
    if ((size_t)snprintf(p, sizeof p, "%s/shaders/model.vert", root) >= sizeof p) return 0;
    if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    snprintf(p, sizeof p, "%s/scripts", root);
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int mr_datadir_for_exe(const char *exe, char *out, size_t size)
{
    if (size) out[0] = '\0';
    const char *slash = exe ? strrchr(exe, '/') : NULL;
    if (!slash || (size_t)(slash - exe) >= PATH_MAX) return 0;
    char dir[PATH_MAX];
    memcpy(dir, exe, (size_t)(slash - exe));
    dir[slash - exe] = '\0';
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++) {
        char cand[PATH_MAX + 32], real[PATH_MAX];
        if ((size_t)snprintf(cand, sizeof cand, "%s%s", dir, candidates[i]) >= sizeof cand) continue;
        if (!realpath(cand, real) || !qualifies(real)) continue;
        if (strlen(real) >= size) return 0;
        memcpy(out, real, strlen(real) + 1);
        return 1;
    }
    return 0;
}

static char root[PATH_MAX];
static pthread_once_t root_once = PTHREAD_ONCE_INIT;

static void find_root(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return;
    exe[n] = '\0';
    mr_datadir_for_exe(exe, root, sizeof root);
}

const char *mr_datadir_root(void)
{
    pthread_once(&root_once, find_root);   /* scenes of `marrow test --jobs` ask at once */
    return root[0] ? root : NULL;
}
