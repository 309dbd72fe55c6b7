/* load.c — picks the loader by file extension (load.h). */
#include "formats/load.h"

#include "core/file.h"
#include "formats/collada.h"
#include "formats/gltf.h"
#include "formats/md5.h"

#include <string.h>

mr_status mr_model_load(const char *path, const char *const *anims, int anim_count,
                        mr_model **out, mr_error *err)
{
    if (out) *out = NULL;
    if (!path || !out || anim_count < 0 || (anim_count > 0 && !anims))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "load: no path, output or anim list");
    char ext[16];
    mr_path_ext(path, ext, sizeof ext);
    if (!ext[0])
        return mr_error_set(err, MR_ERR_BAD_FILE,
                            "%s: unsupported model format (no file extension; expected .md5mesh, .dae, .gltf or .glb)",
                            path);
    if (strcmp(ext, "dae") == 0) {
        if (anim_count > 0)
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                "%s: a COLLADA file brings its own clips; extra anim files (%s) are not "
                                "supported", path, anims[0]);
        return mr_collada_load(path, out, err);
    }
    if (strcmp(ext, "gltf") == 0 || strcmp(ext, "glb") == 0) {
        if (anim_count > 0)
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                "%s: a glTF file brings its own clips; extra anim files (%s) are not "
                                "supported", path, anims[0]);
        return mr_gltf_load(path, out, err);
    }
    if (strcmp(ext, "md5mesh") != 0)
        return mr_error_set(err, MR_ERR_BAD_FILE,
                            "%s: unsupported model format '.%s' (expected .md5mesh, .dae, .gltf or .glb)", path,
                            ext);
    mr_model *m;
    mr_status st = mr_md5_load_mesh(path, &m, err);
    if (st != MR_OK) return st;
    for (int i = 0; i < anim_count; i++) {
        st = mr_md5_load_anim(m, anims[i], err);
        if (st != MR_OK) {
            mr_model_free(m);
            return st;
        }
    }
    *out = m;
    return MR_OK;
}
