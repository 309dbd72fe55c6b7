/* datadir.c — finding marrow's shaders/, scripts/ and models/ from the
 * executable's location (see datadir.h). */
#define _GNU_SOURCE                    /* dladdr */
#include "core/datadir.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Checkout layouts first, then the installed ones (PREFIX/bin ->
 * PREFIX/share/marrow; the Lua module PREFIX/lib/lua/5.4/marrow.so, likewise). */
static const char *const candidates[] = {"/../..", "/../../..", "/..", "", "/../share/marrow",
                                         "/../../../share/marrow"};

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

/* The program's executable, then the file this code was loaded from: in a
 * plain lua5.4 that did require "marrow", marrow.so (its folder says where
 * the data is; lua5.4's own says nothing). */
static void find_root(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        if (mr_datadir_for_exe(exe, root, sizeof root)) return;
    }
    Dl_info info;
    char real[PATH_MAX];
    if (dladdr((void *)find_root, &info) && info.dli_fname && realpath(info.dli_fname, real))
        mr_datadir_for_exe(real, root, sizeof root);
}

const char *mr_datadir_root(void)
{
    pthread_once(&root_once, find_root);   /* scenes of `marrow test --jobs` ask at once */
    return root[0] ? root : NULL;
}
