/* load.c — picks the loader by file extension (load.h). */
#include "formats/load.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/file.h"
#include "core/path.h"
#include "formats/bvh.h"
#include "formats/cache.h"
#include "formats/collada.h"
#include "formats/fbx.h"
#include "formats/gltf.h"
#include "formats/md5.h"

#define EXPECTED "expected .md5mesh, .dae, .gltf, .glb, .vrm, .fbx or .bvh"

/* The formats that bring their own clips, by extension. */
static const struct {
    const char *ext, *name;
    mr_status (*load)(const char *path, mr_model **out, mr_error *err);
} self_contained[] = {
    {"dae", "COLLADA", mr_collada_load},
    {"gltf", "glTF", mr_gltf_load},
    {"glb", "glTF", mr_gltf_load},
    {"vrm", "VRM", mr_gltf_load},
    {"bvh", "BVH", mr_bvh_load},
    {"fbx", "FBX", mr_fbx_load},
};

static mr_status load_md5(const char *path, const char *const *anims, int anim_count,
                          mr_model **out, mr_error *err)
{
    mr_model *m;
    mr_status st = mr_md5_load_mesh(path, &m, err);
    if (st != MR_OK) return st;
    for (int i = 0; i < anim_count; i++) {
        st = mr_md5_load_anim(m, anims[i], err);
        if (st != MR_OK) {
            mr_model_destroy(m);
            return st;
        }
    }
    *out = m;
    return MR_OK;
}

/* An FBX model and motions from other FBX files (fbx.h: mr_fbx_load_anims). */
static mr_status load_fbx(const char *path, const char *const *anims, int anim_count, mr_model **out,
                          mr_error *err)
{
    mr_model *m;
    mr_status st = mr_fbx_load(path, &m, err);
    if (st != MR_OK) return st;
    for (int i = 0; i < anim_count; i++) {
        char ext[16];
        mr_path_ext(anims[i], ext, sizeof ext);
        if (strcmp(ext, "fbx") != 0)
            st = mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                              "%s: motions for an FBX model come from FBX files (expected a .fbx file)", anims[i]);
        else
            st = mr_fbx_load_anims(m, anims[i], err);
        if (st != MR_OK) {
            mr_model_destroy(m);
            return st;
        }
    }
    *out = m;
    return MR_OK;
}

/* The source load: picks the reader by extension. */
static mr_status load_source(const char *path, const char *const *anims, int anim_count, mr_model **out,
                             mr_error *err)
{
    char ext[16];
    mr_path_ext(path, ext, sizeof ext);
    if (!ext[0])
        return mr_error_set(err, MR_ERR_BAD_FILE,
                            "%s: unsupported model format (no file extension; " EXPECTED ")", path);
    if (!strcmp(ext, "fbx") && anim_count > 0) return load_fbx(path, anims, anim_count, out, err);
    for (size_t i = 0; i < sizeof self_contained / sizeof self_contained[0]; i++) {
        if (strcmp(ext, self_contained[i].ext) != 0) continue;
        if (anim_count > 0)
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                "%s: a %s file brings its own clips; extra anim files (%s) are not "
                                "supported", path, self_contained[i].name, anims[0]);
        return self_contained[i].load(path, out, err);
    }
    if (!strcmp(ext, "md5anim"))
        return mr_error_set(err, MR_ERR_BAD_FILE,
                            "%s: an .md5anim holds clips without a skeleton's mesh (expected its "
                            ".md5mesh first, with this file among the anims)", path);
    if (strcmp(ext, "md5mesh") != 0)
        return mr_error_set(err, MR_ERR_BAD_FILE, "%s: unsupported model format '.%s' (" EXPECTED ")",
                            path, ext);
    return load_md5(path, anims, anim_count, out, err);
}

mr_status mr_load_model(const char *path, const char *const *anims, int anim_count,
                        mr_model **out, mr_error *err)
{
    if (out) *out = NULL;
    if (!path || !out || anim_count < 0 || (anim_count > 0 && !anims))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "load: no path, output or anim list");
    /* Every source is a regular file before anything (the cache included)
     * opens it: a FIFO or a device (../../dev/stdin) would block or never end. */
    for (int i = -1; i < anim_count; i++) {
        const char *p = i < 0 ? path : anims[i];
        struct stat st;
        if (stat(p, &st) == 0 && !S_ISREG(st.st_mode))
            return mr_error_set(err, MR_ERR_IO, "%s: not a regular file (expected a model file)", p);
        /* Nor a link out of its own folder (a link planted in a scene folder
         * would have its target read, and its first bytes shown in the
         * parse error). A missing file is left to the loader's message. */
        char *dir = lstat(p, &st) == 0 && S_ISLNK(st.st_mode) ? mr_path_dirname(p) : NULL;
        if (dir) {
            mr_error e = {0};
            char *real = mr_file_real_inside(dir, p, &e);
            free(dir);
            free(real);
            if (!real && e.status == MR_ERR_BAD_FILE)
                return mr_error_set(err, MR_ERR_BAD_FILE, "%s: a link out of its folder (expected a model file "
                                    "there; refused)", p);
        }
    }
    mr_cache_session s;
    if (mr_cache_begin(&s, path, anims, anim_count, out)) return MR_OK;
    mr_status st = load_source(path, anims, anim_count, out, err);
    mr_cache_end(&s, st == MR_OK ? *out : NULL);
    return st;
}
