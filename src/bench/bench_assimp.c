/* bench_assimp.c — assimp's import of the bench files, for the load ratio
 * (see bench.h). assimp is opened at run time (dlopen of libassimp.so.5),
 * so marrow neither links nor needs it: without it the ratio column is
 * left out. The call is what an assimp user writes: aiImportFile with
 * aiProcess_Triangulate (the flag tests/tools/assimp_pose.c uses), then
 * aiReleaseImport; both are timed, as marrow's load is timed with its free.
 * mr_bench_assimp_load_welded adds the two steps that marrow's FBX reader
 * does as part of every load: corners welded into shared
 * vertices (aiProcess_JoinIdenticalVertices; Triangulate alone leaves
 * every corner its own vertex: mixamo.fbx 99,796 vertices, welded 28,374
 * as marrow's) and at most 8 influences a vertex (aiProcess_LimitBoneWeights
 * at marrow's 8 through aiImportFileExWithProperties). */
#include <dlfcn.h>
#include <stdio.h>

#include "bench/bench.h"

typedef const void *(*import_fn)(const char *path, unsigned flags);
typedef void (*release_fn)(const void *scene);
typedef unsigned (*version_fn)(void);

typedef void *(*store_fn)(void);
typedef void (*store_free_fn)(void *store);
typedef void (*set_int_fn)(void *store, const char *name, int value);
typedef const void *(*import_props_fn)(const char *path, unsigned flags, void *io, const void *store);

static void *lib;
static import_fn import_file;
static release_fn release_import;
static import_props_fn import_props;
static void *welded_store;   /* the property store of the welded import (made once, never freed) */

#define AI_PROCESS_TRIANGULATE 0x8u
#define AI_PROCESS_JOIN_IDENTICAL_VERTICES 0x2u
#define AI_PROCESS_LIMIT_BONE_WEIGHTS 0x200u

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
    if (!welded_store) {
        store_fn create;
        set_int_fn set_int;
        *(void **)&create = dlsym(lib, "aiCreatePropertyStore");
        *(void **)&set_int = dlsym(lib, "aiSetImportPropertyInteger");
        *(void **)&import_props = dlsym(lib, "aiImportFileExWithProperties");
        if (create && set_int && import_props && (welded_store = create()))
            set_int(welded_store, "PP_LBW_MAX_WEIGHTS", 8);  /* AI_CONFIG_PP_LBW_MAX_WEIGHTS: marrow keeps 8 */
    }
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

double mr_bench_assimp_load_welded(const char *path)
{
    if (!lib || !welded_store) return -1.0;
    double t0 = mr_bench_now();
    const void *scene = import_props(path, AI_PROCESS_TRIANGULATE | AI_PROCESS_JOIN_IDENTICAL_VERTICES |
                                               AI_PROCESS_LIMIT_BONE_WEIGHTS, NULL, welded_store);
    if (!scene) return -1.0;
    release_import(scene);
    return mr_bench_now() - t0;
}
