/* bench_assimp.c — assimp's import of the bench files, for the load ratio
 * (see bench.h). assimp is opened at run time (dlopen of libassimp.so.5),
 * so marrow neither links nor needs it: without it the ratio column is
 * left out. The call is what an assimp user writes: aiImportFile with
 * aiProcess_Triangulate (the flag tests/tools/assimp_pose.c uses), then
 * aiReleaseImport; both are timed, as marrow's load is timed with its free. */
#include <dlfcn.h>
#include <stdio.h>

#include "bench/bench.h"

typedef const void *(*import_fn)(const char *path, unsigned flags);
typedef void (*release_fn)(const void *scene);
typedef unsigned (*version_fn)(void);

static void *lib;
static import_fn import_file;
static release_fn release_import;

#define AI_PROCESS_TRIANGULATE 0x8u

int mr_bench_assimp_open(char *version, size_t size)
{
    if (!lib) {
        static const char *const names[] = {"libassimp.so.5", "libassimp.so"};
        for (size_t i = 0; !lib && i < sizeof names / sizeof *names; i++) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!lib) return 0;
        *(void **)&import_file = dlsym(lib, "aiImportFile");
        *(void **)&release_import = dlsym(lib, "aiReleaseImport");
        if (!import_file || !release_import) {
            dlclose(lib);
            lib = NULL;
            return 0;
        }
    }
    version_fn major, minor, patch;
    *(void **)&major = dlsym(lib, "aiGetVersionMajor");
    *(void **)&minor = dlsym(lib, "aiGetVersionMinor");
    *(void **)&patch = dlsym(lib, "aiGetVersionPatch");
    if (major && minor && patch) snprintf(version, size, "%u.%u.%u", major(), minor(), patch());
    else snprintf(version, size, "?");
    return 1;
}

double mr_bench_assimp_load(const char *path)
{
    if (!lib) return -1.0;
    double t0 = mr_bench_now();
    const void *scene = import_file(path, AI_PROCESS_TRIANGULATE);
    if (!scene) return -1.0;
    release_import(scene);
    return mr_bench_now() - t0;
}
