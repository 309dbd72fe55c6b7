/* gltf_read.c — the glTF reader's entry points (gltf.h): container, scene,
 * animations, validation. */
#include "formats/gltf.h"

#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/str.h"
#include "formats/gltf_internal.h"

/* Extensions a file may require: the ones the reader implements, and the
 * ones that change only the look (ignored). */
static int extension_ok(const char *name)
{
    static const char *ok[] = {"KHR_mesh_quantization", "EXT_meshopt_compression", "KHR_texture_transform",
                               "KHR_materials_unlit", "KHR_materials_emissive_strength",
                               "KHR_materials_pbrSpecularGlossiness"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (!strcmp(name, ok[i])) return 1;
    return 0;
}

static mr_status read_model(gl_doc *d)
{
    gl_json *req = NULL;
    mr_status st = gl_arr(d, d->root, "", "extensionsRequired", GL_OPTIONAL, &req);
    if (st != MR_OK) return st;
    for (size_t i = 0; req && i < gl_json_size(req); i++) {
        const char *e = gl_json_string(gl_json_at(req, i));
        if (!e) return gl_fail(d, "/extensionsRequired", "entry %zu: expected a string", i);
        if (!extension_ok(e))
            return gl_fail(d, "/extensionsRequired", "requires %s, which marrow does not read (it reads "
                           "KHR_mesh_quantization and EXT_meshopt_compression)", e);
    }
    gl_scene s;
    st = gl_scene_read(d, &s);
    if (st == MR_OK) st = gl_anim_read(d, &s);
    if (st == MR_OK) st = gl_vrm_read(d, &s);
    gl_scene_free(&s);
    if (st != MR_OK) return st;
    mr_error verr;
    if (mr_skeleton_validate(&d->model->skeleton, &verr) != MR_OK) return gl_fail(d, "/nodes", "skeleton: %s", verr.msg);
    d->model->axes.up = MR_UP_Y;
    d->model->axes.meters_per_unit = 1.0f;
    d->model->axes_note = mr_str_dup("glTF: Y-up metres, +Z forward");
    return MR_OK;
}

mr_status mr_gltf_parse(const char *name, const void *buf, size_t len, mr_model **out, mr_error *err)
{
    if (!out) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "gltf: no output model");
    *out = NULL;
    if (!name || !buf) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "gltf: no input");
    mr_model *model = NULL;
    mr_model_create(name, "gltf", &model);
    if (!model) return mr_error_set(err, MR_ERR_NO_MEMORY, "gltf: %s: out of memory", name);
    gl_doc d;
    mr_status st = gl_doc_open(&d, name, buf, len, err);
    if (st == MR_OK) {
        d.model = model;
        st = read_model(&d);
    }
    gl_doc_close(&d);
    if (st != MR_OK) {
        mr_model_destroy(model);
        return st;
    }
    *out = model;
    return MR_OK;
}

mr_status mr_gltf_load(const char *path, mr_model **out, mr_error *err)
{
    if (!out) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "gltf: no output model");
    *out = NULL;
    if (!path) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "gltf: no path");
    size_t len;
    mr_error ioerr;
    char *buf = mr_file_read(path, &len, &ioerr);
    if (!buf) return mr_error_set(err, ioerr.status, "gltf: %s", ioerr.msg);
    mr_status st = mr_gltf_parse(path, buf, len, out, err);
    free(buf);
    return st;
}
