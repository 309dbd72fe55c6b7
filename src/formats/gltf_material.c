/* gltf_material.c — pbrMetallicRoughness to marrow's Blinn-Phong material
 * (the mapping is in gltf.h), textures and images. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "core/file.h"
#include "formats/gltf_internal.h"

/* Image behind textureInfo `ti` (at path): a file path, or embedded bytes
 * with a name. texcoord gets the textureInfo's texCoord set. */
static mr_status texture_image(gl_doc *d, gl_json *ti, const char *path, char **out_path, unsigned char **bytes,
                               size_t *blen, int *texcoord)
{
    int tex = -1, img = -1;
    long long tc = 0;
    mr_status st = gl_ref(d, ti, path, "index", GL_REQUIRED, "textures", &tex);
    if (st == MR_OK) st = gl_int(d, ti, path, "texCoord", GL_OPTIONAL, 0, 255, &tc);
    if (st != MR_OK) return st;
    *texcoord = (int)tc;
    char tpath[256], ipath[256];
    snprintf(tpath, sizeof tpath, "/textures/%d", tex);
    gl_json *t, *im;
    if ((st = gl_elem(d, "textures", tex, path, &t)) != MR_OK) return st;
    if ((st = gl_ref(d, t, tpath, "source", GL_OPTIONAL, "images", &img)) != MR_OK) return st;
    if (img < 0) return MR_OK;  /* only an extension's image (KTX2, WebP): none */
    snprintf(ipath, sizeof ipath, "/images/%d", img);
    if ((st = gl_elem(d, "images", img, tpath, &im)) != MR_OK) return st;
    const char *uri = NULL;
    int view = -1;
    if ((st = gl_str(d, im, ipath, "uri", GL_OPTIONAL, &uri)) != MR_OK) return st;
    if ((st = gl_ref(d, im, ipath, "bufferView", GL_OPTIONAL, "bufferViews", &view)) != MR_OK) return st;
    if (uri && strncmp(uri, "data:", 5) != 0) {
        if ((st = gl_local_path(d, ipath, uri, out_path)) != MR_OK) return st;
        /* A link out of the model's folder, a FIFO or a device: refused
         * here with its place, and by every reader later (core/file.h). */
        mr_error ferr = {0};
        if (mr_file_check_inside(d->dir, *out_path, &ferr) == MR_ERR_BAD_FILE)
            mr_model_warn(d->model, "%s: %s: 'uri' \"%s\" refused: %s; drawn as a checker", d->name, ipath, uri,
                          ferr.msg);
        return MR_OK;
    }
    const unsigned char *src = NULL;
    size_t len = 0;
    unsigned char *decoded = NULL;
    if (uri) {
        if ((st = gl_data_uri(d, ipath, uri, &decoded, &len)) != MR_OK) return st;
        src = decoded;
    } else if (view >= 0) {
        int stride;
        if ((st = gl_view_get(d, view, &src, &len, &stride)) != MR_OK) return st;
    } else {
        return gl_fail(d, ipath, "neither 'uri' nor 'bufferView' (expected one of them)");
    }
    if (decoded) {
        *bytes = decoded;
    } else if ((st = gl_alloc_raw(d, ipath, len, 1, bytes)) != MR_OK) {
        return st;
    } else {
        memcpy(*bytes, src, len);
    }
    *blen = len;
    *out_path = mr_str_fmt("%s#%s", d->name, ipath);
    if (!*out_path) return gl_fail_status(d, MR_ERR_NO_MEMORY, ipath, "out of memory");
    return MR_OK;
}

mr_status gl_material_read(gl_doc *d, int i, mr_material *out, int *uses_texcoord)
{
    *uses_texcoord = -1;
    if (i < 0) {
        free(out->name);
        out->name = mr_str_dup("default");
        return MR_OK;
    }
    char path[128], ppath[96];
    snprintf(path, sizeof path, "/materials/%d", i);
    snprintf(ppath, sizeof ppath, "%s/pbrMetallicRoughness", path);
    gl_json *m, *pbr = NULL, *ti = NULL, *nt = NULL;
    mr_status st = gl_elem(d, "materials", i, path, &m);
    if (st != MR_OK) return st;
    const char *name = NULL;
    if ((st = gl_str(d, m, path, "name", GL_OPTIONAL, &name)) != MR_OK) return st;
    free(out->name);
    out->name = name ? mr_str_dup(name) : mr_str_fmt("material%d", i);
    float base[4] = {1, 1, 1, 1}, emissive[3] = {0, 0, 0};
    double metal = 1, rough = 1;
    if ((st = gl_obj(d, m, path, "pbrMetallicRoughness", GL_OPTIONAL, &pbr)) != MR_OK) return st;
    if (pbr) {
        if ((st = gl_nums(d, pbr, ppath, "baseColorFactor", GL_OPTIONAL, 4, base)) != MR_OK) return st;
        if ((st = gl_num(d, pbr, ppath, "metallicFactor", GL_OPTIONAL, &metal)) != MR_OK) return st;
        if ((st = gl_num(d, pbr, ppath, "roughnessFactor", GL_OPTIONAL, &rough)) != MR_OK) return st;
        if ((st = gl_obj(d, pbr, ppath, "baseColorTexture", GL_OPTIONAL, &ti)) != MR_OK) return st;
    }
    if ((st = gl_nums(d, m, path, "emissiveFactor", GL_OPTIONAL, 3, emissive)) != MR_OK) return st;
    if ((st = gl_obj(d, m, path, "normalTexture", GL_OPTIONAL, &nt)) != MR_OK) return st;
    metal = fmin(fmax(metal, 0), 1);
    rough = fmin(fmax(rough, 0), 1);
    for (int c = 0; c < 4; c++) out->diffuse[c] = base[c];
    for (int c = 0; c < 3; c++) {
        out->ambient[c] = 0.2f * base[c];
        out->specular[c] = (float)((0.04 * (1 - metal) + base[c] * metal) * (1 - rough * 0.75));
        out->emission[c] = emissive[c];
    }
    out->ambient[3] = out->specular[3] = out->emission[3] = 1;
    double alpha = fmax(rough * rough, 0.03);
    out->shininess = (float)fmin(fmax(2.0 / (alpha * alpha) - 2.0, 2.0), 256.0);
    if (ti) {
        char tp[256];
        snprintf(tp, sizeof tp, "%s/baseColorTexture", ppath);
        if ((st = texture_image(d, ti, tp, &out->diffuse_map, &out->diffuse_bytes, &out->diffuse_bytes_len,
                                uses_texcoord)) != MR_OK)
            return st;
    }
    if (nt) {
        char tp[256];
        int tc;
        snprintf(tp, sizeof tp, "%s/normalTexture", path);
        if ((st = texture_image(d, nt, tp, &out->normal_map, &out->normal_bytes, &out->normal_bytes_len, &tc)) != MR_OK)
            return st;
    }
    return MR_OK;
}
