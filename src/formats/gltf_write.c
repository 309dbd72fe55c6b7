/* gltf_write.c — mr_gltf_write: an mr_model as glTF 2.0 (.gltf + .bin, or .glb).
 *
 * The contract (what goes where) is in gltf_write.h. Layout of this file:
 * the binary buffer and accessors, images, then the JSON sections in the
 * order they are built (nodes, skin, meshes, animations), then the two
 * containers. Everything is built in memory first and written at the end.
 */
#include "formats/write_check.h"
#include "formats/gltf_write.h"
#include "formats/gltf_write_vrm.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <stb_image_write.h>

#include "anim/morph.h"
#include "core/alloc.h"
#include "core/file.h"
#include "core/image.h"
#include "core/path.h"
#include "core/str.h"

/* glTF constants (glTF 2.0 specification, 5.1 accessor.componentType,
 * 5.11 bufferView.target). */
enum {
    GL_UNSIGNED_BYTE = 5121,
    GL_UNSIGNED_SHORT = 5123,
    GL_UNSIGNED_INT = 5125,
    GL_FLOAT = 5126,
    GL_ARRAY_BUFFER = 34962,
    GL_ELEMENT_ARRAY_BUFFER = 34963,
};

#define GLB_MAGIC 0x46546C67u  /* "glTF" */
#define GLB_JSON 0x4E4F534Au   /* "JSON" */
#define GLB_BIN 0x004E4942u    /* "BIN\0" */

typedef struct gw {
    const mr_model *m;
    const char *path;
    char *dir;               /* directory of the written file */
    int glb;
    unsigned char *bin;      /* the one buffer */
    size_t n, cap;
    int oom;
    json_t *views, *accessors, *images, *textures;
    char **image_paths;      /* per image: the map path it came from */
    int image_count;
} gw;

/* ---- the binary buffer ------------------------------------------------------ */

static int host_little_endian(void)
{
    uint16_t x = 1;
    unsigned char b;
    memcpy(&b, &x, 1);
    return b == 1;
}

/* Appends count elements of size bytes (1, 2 or 4) in little-endian order. */
static void bin_put(gw *g, const void *data, size_t size, size_t count)
{
    if (g->oom) return;
    if (count && SIZE_MAX / size < count) {
        g->oom = 1;
        return;
    }
    size_t len = size * count;
    if (mr_alloc_reserve((void **)&g->bin, &g->cap, g->n + len + 4, 1)) {
        g->oom = 1;
        return;
    }
    unsigned char *dst = g->bin + g->n;
    memcpy(dst, data, len);
    if (size > 1 && !host_little_endian())
        for (size_t i = 0; i < count; i++)
            for (size_t a = 0, b = size - 1; a < b; a++, b--) {
                unsigned char t = dst[i * size + a];
                dst[i * size + a] = dst[i * size + b];
                dst[i * size + b] = t;
            }
    g->n += len;
}

static void bin_align4(gw *g)
{
    static const unsigned char zeros[4] = {0};
    if (g->n % 4) bin_put(g, zeros, 1, 4 - g->n % 4);
}

/* A JSON number for a float: the fewest digits that read back as v
 * (dumped with JSON_REAL_PRECISION(9), which prints that decimal again). */
static json_t *jfloat(float v)
{
    if (!isfinite(v)) v = 0;
    if (v == 0.0f) v = 0.0f;  /* no "-0" */
    char tmp[32];
    for (int digits = 6; digits <= 9; digits++) {
        snprintf(tmp, sizeof tmp, "%.*g", digits, (double)v);
        if (strtof(tmp, NULL) == v) break;
    }
    return json_real(strtod(tmp, NULL));
}

static json_t *jfloats(const float *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++) json_array_append_new(a, jfloat(v[i]));
    return a;
}

/* A bufferView over count elements of size bytes appended now; target 0
 * leaves the target out. Returns the view's index. */
static int add_view(gw *g, const void *data, size_t size, size_t count, int target)
{
    bin_align4(g);
    size_t offset = g->n;
    bin_put(g, data, size, count);
    json_t *v = json_object();
    json_object_set_new(v, "buffer", json_integer(0));
    if (offset) json_object_set_new(v, "byteOffset", json_integer((json_int_t)offset));
    json_object_set_new(v, "byteLength", json_integer((json_int_t)(size * count)));
    if (target) json_object_set_new(v, "target", json_integer(target));
    json_array_append_new(g->views, v);
    return (int)json_array_size(g->views) - 1;
}

static int type_components(const char *type)
{
    if (!strcmp(type, "SCALAR")) return 1;
    if (!strcmp(type, "VEC2")) return 2;
    if (!strcmp(type, "VEC3")) return 3;
    if (!strcmp(type, "VEC4")) return 4;
    return 16;  /* MAT4 */
}

static size_t component_size(int component_type)
{
    return component_type == GL_UNSIGNED_BYTE ? 1 : component_type == GL_UNSIGNED_SHORT ? 2 : 4;
}

/* An accessor over count elements of `type` in a view of its own. With
 * minmax, min and max per component (float data only). */
static int add_accessor(gw *g, const void *data, int component_type, int count, const char *type, int target,
                        int minmax)
{
    int nc = type_components(type);
    int view = add_view(g, data, component_size(component_type), (size_t)count * (size_t)nc, target);
    json_t *a = json_object();
    json_object_set_new(a, "bufferView", json_integer(view));
    json_object_set_new(a, "componentType", json_integer(component_type));
    json_object_set_new(a, "count", json_integer(count));
    json_object_set_new(a, "type", json_string(type));
    if (minmax && component_type == GL_FLOAT && count > 0) {
        const float *f = data;
        float lo[16], hi[16];
        for (int c = 0; c < nc; c++) lo[c] = hi[c] = f[c];
        for (int i = 1; i < count; i++)
            for (int c = 0; c < nc; c++) {
                float x = f[(size_t)i * nc + c];
                if (x < lo[c]) lo[c] = x;
                if (x > hi[c]) hi[c] = x;
            }
        json_object_set_new(a, "min", jfloats(lo, nc));
        json_object_set_new(a, "max", jfloats(hi, nc));
    }
    json_array_append_new(g->accessors, a);
    return (int)json_array_size(g->accessors) - 1;
}

/* ---- paths and images ---------------------------------------------------------- */

/* A relative path as a URI reference: everything but unreserved characters
 * and '/' percent-encoded (RFC 3986). New string. */
static char *uri_encode(const char *path)
{
    char *out = malloc(strlen(path) * 3 + 1);
    if (!out) return NULL;
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p))
            out[n++] = (char)*p;
        else
            n += (size_t)sprintf(out + n, "%%%02X", *p);
    }
    out[n] = '\0';
    return out;
}

typedef struct bytes {
    unsigned char *p;
    size_t n, cap;
    int failed;
} bytes;

static void bytes_append(void *ctx, void *data, int size)
{
    bytes *b = ctx;
    if (b->failed || size <= 0) return;
    if (mr_alloc_reserve((void **)&b->p, &b->cap, b->n + (size_t)size, 1)) {
        b->failed = 1;
        return;
    }
    memcpy(b->p + b->n, data, (size_t)size);
    b->n += (size_t)size;
}

static const char *image_mime(const unsigned char *d, size_t n)
{
    if (n >= 8 && !memcmp(d, "\x89PNG\r\n\x1a\n", 8)) return "image/png";
    if (n >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF) return "image/jpeg";
    return NULL;
}

/* The texture index for an image (one image and texture per distinct map
 * name), or -1 without memory. The image's bytes are mem when the model holds
 * them (an image embedded in the file it was read from), else the file map.
 * A .gltf refers to the file by relative uri when it lies in the output's
 * folder or below; otherwise (and in a .glb, and for images held in memory)
 * the image is embedded, so the output never points outside its folder
 * (an image that cannot be read there is named by its base name). */
static int texture_for(gw *g, const char *map, const unsigned char *mem, size_t mem_len)
{
    int count = g->image_count;
    for (int i = 0; i < count; i++)
        if (!strcmp(g->image_paths[i], map)) return i;
    char **paths = realloc(g->image_paths, (size_t)(count + 1) * sizeof *paths);
    if (!paths) return -1;
    g->image_paths = paths;
    if (!(paths[count] = mr_str_dup(map))) return -1;
    g->image_count++;

    json_t *img = json_object();
    char *stem = mr_path_stem(map);
    if (stem) json_object_set_new(img, "name", json_string(stem));
    free(stem);
    size_t len = mem_len;
    /* Read as the renderer reads it: a regular file inside the source
     * model's folder (a link out of it is not copied into the output). */
    char *src_dir = mem ? NULL : mr_file_model_dir(g->m->path);
    unsigned char *file = mem ? NULL : (unsigned char *)mr_file_read_inside(src_dir, map, &len, NULL);
    free(src_dir);
    const unsigned char *data = mem ? mem : file;
    const char *mime = data ? image_mime(data, len) : NULL;
    char *rel = mem ? NULL : mr_path_relative(g->dir, map);
    int inside = rel && strncmp(rel, "../", 3) != 0 && !strstr(rel, "/../") && strcmp(rel, "..") != 0;
    int embedded = 0;
    if (data && mime && (g->glb || !inside)) {
        json_object_set_new(img, "bufferView", json_integer(add_view(g, data, 1, len, 0)));
        json_object_set_new(img, "mimeType", json_string(mime));
        embedded = 1;
    } else if (data && !mime && len <= INT32_MAX) {
        /* Not a glTF image format: decode and embed as PNG. */
        int w, h, c;
        unsigned char *rgba = NULL;
        mr_image_decode(data, len, map, &rgba, &w, &h, &c, NULL);
        bytes png = {0};
        if (rgba && stbi_write_png_to_func(bytes_append, &png, w, h, 4, rgba, w * 4) && !png.failed) {
            json_object_set_new(img, "bufferView", json_integer(add_view(g, png.p, 1, png.n, 0)));
            json_object_set_new(img, "mimeType", json_string("image/png"));
            embedded = 1;
        }
        mr_image_free(rgba);
        free(png.p);
    }
    free(file);
    if (!embedded) {
        /* Unreadable and outside the folder: named by its base name, to be
         * found beside the output (a reader then warns if it is not). */
        char *uri = uri_encode(inside ? rel : mr_path_basename(map));
        if (!uri) g->oom = 1;
        else json_object_set_new(img, "uri", json_string(uri));
        free(uri);
    }
    free(rel);
    json_array_append_new(g->images, img);
    json_t *tex = json_object();
    json_object_set_new(tex, "source", json_integer(count));
    json_array_append_new(g->textures, tex);
    return count;
}

/* ---- nodes, skin, meshes ---------------------------------------------------------- */

static int is_skinned(const mr_model *m, const mr_mesh *me)
{
    return me->joints && me->weights && m->skeleton.joint_count > 0;
}

static int mesh_written(const mr_mesh *me)
{
    return me->vertex_count > 0 && me->index_count >= 3;
}

static json_t *joint_node(const mr_skeleton *sk, int j)
{
    json_t *n = json_object();
    json_object_set_new(n, "name", json_string(sk->names[j]));
    json_t *children = json_array();
    for (int c = j + 1; c < sk->joint_count; c++)
        if (sk->parents[c] == j) json_array_append_new(children, json_integer(c));
    if (json_array_size(children)) json_object_set_new(n, "children", children);
    else json_decref(children);
    const float *t = sk->rest_t[j], *r = sk->rest_r[j], *s = sk->rest_s[j];
    if (t[0] != 0 || t[1] != 0 || t[2] != 0) json_object_set_new(n, "translation", jfloats(t, 3));
    if (r[0] != 0 || r[1] != 0 || r[2] != 0 || r[3] != 1) json_object_set_new(n, "rotation", jfloats(r, 4));
    if (s[0] != 1 || s[1] != 1 || s[2] != 1) json_object_set_new(n, "scale", jfloats(s, 3));
    return n;
}

static json_t *material_json(gw *g, const mr_material *mat)
{
    json_t *j = json_object(), *pbr = json_object();
    if (mat->name) json_object_set_new(j, "name", json_string(mat->name));
    json_object_set_new(pbr, "baseColorFactor", jfloats(mat->diffuse, 4));
    if (mat->diffuse_map) {
        int t = texture_for(g, mat->diffuse_map, mat->diffuse_bytes, mat->diffuse_bytes_len);
        if (t >= 0) json_object_set_new(pbr, "baseColorTexture", json_pack("{s:i}", "index", t));
        else g->oom = 1;
    }
    json_object_set_new(pbr, "metallicFactor", json_integer(0));
    float shin = mat->shininess > 0 ? mat->shininess : 0;
    json_object_set_new(pbr, "roughnessFactor", jfloat(sqrtf(2.0f / (shin + 2.0f))));
    json_object_set_new(j, "pbrMetallicRoughness", pbr);
    if (mat->normal_map) {
        int t = texture_for(g, mat->normal_map, mat->normal_bytes, mat->normal_bytes_len);
        if (t >= 0) json_object_set_new(j, "normalTexture", json_pack("{s:i}", "index", t));
        else g->oom = 1;
    }
    if (mat->emission[0] > 0 || mat->emission[1] > 0 || mat->emission[2] > 0) {
        float e[3];
        for (int k = 0; k < 3; k++) e[k] = fminf(fmaxf(mat->emission[k], 0), 1);
        json_object_set_new(j, "emissiveFactor", jfloats(e, 3));
    }
    if (mat->diffuse[3] < 1) json_object_set_new(j, "alphaMode", json_string("BLEND"));
    return j;
}

/* JOINTS_set / WEIGHTS_set (influence slots 4*set .. 4*set+3) of a skinned mesh. */
static int add_influences(gw *g, const mr_mesh *me, int set, json_t *attrs)
{
    size_t nv = (size_t)me->vertex_count;
    int wide = g->m->skeleton.joint_count > 256;
    void *joints = mr_alloc_array(nv * 4, wide ? 2 : 1);
    float *weights = mr_alloc_array(nv * 4, sizeof *weights);
    if (!joints || !weights) {
        free(joints);
        free(weights);
        return -1;
    }
    for (size_t v = 0; v < nv; v++)
        for (int k = 0; k < 4; k++) {
            int slot = set * 4 + k;
            float w = me->weights[v][slot] > 0 ? me->weights[v][slot] : 0;
            int jt = w > 0 ? me->joints[v][slot] : 0;  /* unused slots: joint 0 weight 0 */
            if (wide) ((uint16_t *)joints)[v * 4 + k] = (uint16_t)jt;
            else ((uint8_t *)joints)[v * 4 + k] = (uint8_t)jt;
            weights[v * 4 + k] = w;
        }
    int jtype = wide ? GL_UNSIGNED_SHORT : GL_UNSIGNED_BYTE;
    json_object_set_new(attrs, set ? "JOINTS_1" : "JOINTS_0",
                        json_integer(add_accessor(g, joints, jtype, (int)nv, "VEC4", GL_ARRAY_BUFFER, 0)));
    json_object_set_new(attrs, set ? "WEIGHTS_1" : "WEIGHTS_0",
                        json_integer(add_accessor(g, weights, GL_FLOAT, (int)nv, "VEC4", GL_ARRAY_BUFFER, 0)));
    free(joints);
    free(weights);
    return 0;
}

static json_t *mesh_json(gw *g, const mr_mesh *me, int material)
{
    json_t *prim = json_object(), *attrs = json_object();
    int nv = me->vertex_count;
    json_object_set_new(attrs, "POSITION",
                        json_integer(add_accessor(g, me->positions, GL_FLOAT, nv, "VEC3", GL_ARRAY_BUFFER, 1)));
    json_object_set_new(attrs, "NORMAL",
                        json_integer(add_accessor(g, me->normals, GL_FLOAT, nv, "VEC3", GL_ARRAY_BUFFER, 0)));
    float *uv = mr_alloc_array((size_t)nv, 2 * sizeof *uv);
    if (uv) {
        for (int v = 0; v < nv; v++) {
            uv[2 * v] = me->uvs[v][0];
            uv[2 * v + 1] = 1.0f - me->uvs[v][1];  /* glTF: origin at the image's top-left */
        }
        json_object_set_new(attrs, "TEXCOORD_0",
                            json_integer(add_accessor(g, uv, GL_FLOAT, nv, "VEC2", GL_ARRAY_BUFFER, 0)));
        free(uv);
    } else {
        g->oom = 1;
    }
    if (is_skinned(g->m, me)) {
        int sets = mr_mesh_influence_count(me) > MR_INFLUENCE_SET ? 2 : 1;
        for (int s = 0; s < sets; s++)
            if (add_influences(g, me, s, attrs)) g->oom = 1;
    }
    json_object_set_new(prim, "attributes", attrs);
    if (nv <= 65535) {
        uint16_t *idx = mr_alloc_array((size_t)me->index_count, sizeof *idx);
        if (idx) {
            for (int i = 0; i < me->index_count; i++) idx[i] = (uint16_t)me->indices[i];
            json_object_set_new(prim, "indices", json_integer(add_accessor(g, idx, GL_UNSIGNED_SHORT, me->index_count,
                                                                           "SCALAR", GL_ELEMENT_ARRAY_BUFFER, 0)));
            free(idx);
        } else {
            g->oom = 1;
        }
    } else {
        json_object_set_new(prim, "indices", json_integer(add_accessor(g, me->indices, GL_UNSIGNED_INT,
                                                                       me->index_count, "SCALAR",
                                                                       GL_ELEMENT_ARRAY_BUFFER, 0)));
    }
    json_object_set_new(prim, "material", json_integer(material));
    json_t *mesh = json_object();
    if (me->name) json_object_set_new(mesh, "name", json_string(me->name));
    /* Morph targets: POSITION (and NORMAL) deltas, the default weights and
     * the names in extras.targetNames (what Blender writes and reads). */
    const mr_morph_set *set = me->morph;
    if (set && set->vertex_count == nv) {
        json_t *targets = json_array(), *weights = json_array(), *names = json_array();
        for (int k = 0; k < set->count; k++) {
            json_t *t = json_object();
            json_object_set_new(t, "POSITION", json_integer(add_accessor(g, set->targets[k].positions, GL_FLOAT, nv,
                                                                         "VEC3", GL_ARRAY_BUFFER, 1)));
            if (set->targets[k].normals)
                json_object_set_new(t, "NORMAL", json_integer(add_accessor(g, set->targets[k].normals, GL_FLOAT, nv,
                                                                           "VEC3", GL_ARRAY_BUFFER, 0)));
            json_array_append_new(targets, t);
            json_array_append_new(weights, jfloat(set->weights[k]));
            json_array_append_new(names, json_string(set->targets[k].name));
        }
        json_object_set_new(prim, "targets", targets);
        json_object_set_new(mesh, "weights", weights);
        json_object_set_new(mesh, "extras", json_pack("{s:o}", "targetNames", names));
    }
    json_object_set_new(mesh, "primitives", json_pack("[o]", prim));
    return mesh;
}

/* ---- animations ----------------------------------------------------------------------- */

typedef struct input_cache {
    const mr_track *track[3 * MR_MAX_JOINTS + 1];  /* tracks whose times became an accessor */
    int accessor[3 * MR_MAX_JOINTS + 1];
    int n;
} input_cache;

/* The input accessor for a track's times, shared with an earlier track of
 * the same clip that has the same times (MD5 clips: one for all). */
static int input_for(gw *g, input_cache *ic, const mr_track *tr)
{
    for (int i = 0; i < ic->n; i++)
        if (ic->track[i]->key_count == tr->key_count &&
            !memcmp(ic->track[i]->times, tr->times, (size_t)tr->key_count * sizeof *tr->times))
            return ic->accessor[i];
    int a = add_accessor(g, tr->times, GL_FLOAT, tr->key_count, "SCALAR", 0, 1);
    if (ic->n < (int)(sizeof ic->track / sizeof *ic->track)) {
        ic->track[ic->n] = tr;
        ic->accessor[ic->n++] = a;
    }
    return a;
}

static void add_channel(json_t *samplers, json_t *channels, int input, int output, const char *interp, int node,
                        const char *path)
{
    json_array_append_new(samplers, json_pack("{s:i,s:s,s:i}", "input", input, "interpolation", interp, "output",
                                              output));
    json_array_append_new(channels, json_pack("{s:i,s:{s:i,s:s}}", "sampler", (int)json_array_size(samplers) - 1,
                                              "target", "node", node, "path", path));
}

static int add_track(gw *g, input_cache *ic, const mr_track *tr, int node, int channel, json_t *samplers,
                     json_t *channels)
{
    static const char *const paths[3] = {"translation", "rotation", "scale"};
    int c = tr->components;
    int cubic = tr->interp == MR_INTERP_CUBIC;
    size_t nv = (size_t)tr->key_count * (size_t)c * (cubic ? 3 : 1);
    float *v = mr_alloc_array(nv, sizeof *v);
    if (!v) return -1;
    memcpy(v, tr->values, nv * sizeof *v);
    if (channel == 1 && !cubic)  /* glTF wants unit quaternions */
        for (size_t k = 0; k < nv; k += 4) {
            float len = sqrtf(v[k] * v[k] + v[k + 1] * v[k + 1] + v[k + 2] * v[k + 2] + v[k + 3] * v[k + 3]);
            if (len > 0)
                for (int i = 0; i < 4; i++) v[k + i] /= len;
        }
    int input = input_for(g, ic, tr);
    int output = add_accessor(g, v, GL_FLOAT, (int)(nv / (size_t)c), c == 4 ? "VEC4" : "VEC3", 0, 0);
    free(v);
    const char *interp = cubic ? "CUBICSPLINE" : tr->interp == MR_INTERP_STEP ? "STEP" : "LINEAR";
    add_channel(samplers, channels, input, output, interp, node, paths[channel]);
    return 0;
}

static json_t *animation_json(gw *g, const mr_clip *clip)
{
    const mr_skeleton *sk = &g->m->skeleton;
    input_cache *ic = calloc(1, sizeof *ic);
    if (!ic) {
        g->oom = 1;
        return NULL;
    }
    json_t *samplers = json_array(), *channels = json_array();
    float last = 0;
    for (int j = 0; j < clip->joint_count; j++) {
        const mr_track *tr[3] = {&clip->tracks[j].t, &clip->tracks[j].r, &clip->tracks[j].s};
        for (int k = 0; k < 3; k++) {
            if (!tr[k]->key_count) continue;
            if (add_track(g, ic, tr[k], j, k, samplers, channels)) g->oom = 1;
            last = fmaxf(last, tr[k]->times[tr[k]->key_count - 1]);
        }
    }
    free(ic);
    /* Morph weights: a channel on the node of each mesh they drive (mesh
     * nodes follow the joints, one per written mesh). */
    for (int c = 0; clip->morph && c < clip->morph->channel_count; c++) {
        const mr_morph_channel *ch = &clip->morph->channels[c];
        if (ch->mesh >= g->m->mesh_count || !mesh_written(&g->m->meshes[ch->mesh])) continue;
        int node = sk->joint_count;
        for (int i = 0; i < ch->mesh; i++) node += mesh_written(&g->m->meshes[i]);
        int cubic = ch->interp == MR_INTERP_CUBIC;
        int input = add_accessor(g, ch->times, GL_FLOAT, ch->key_count, "SCALAR", 0, 1);
        int output = add_accessor(g, ch->values, GL_FLOAT, ch->key_count * ch->target_count * (cubic ? 3 : 1),
                                  "SCALAR", 0, 0);
        add_channel(samplers, channels, input, output,
                    cubic ? "CUBICSPLINE" : ch->interp == MR_INTERP_STEP ? "STEP" : "LINEAR", node, "weights");
        last = fmaxf(last, ch->times[ch->key_count - 1]);
    }
    if (!json_array_size(channels)) {
        /* glTF needs a channel: hold joint 0's rest translation. */
        float times[2] = {0, clip->duration};
        float values[6];
        memcpy(values, sk->rest_t[0], 3 * sizeof *values);
        memcpy(values + 3, sk->rest_t[0], 3 * sizeof *values);
        int keys = clip->duration > 0 ? 2 : 1;
        int input = add_accessor(g, times, GL_FLOAT, keys, "SCALAR", 0, 1);
        int output = add_accessor(g, values, GL_FLOAT, keys, "VEC3", 0, 0);
        add_channel(samplers, channels, input, output, "LINEAR", 0, "translation");
        last = clip->duration;
    }
    json_t *a = json_object();
    json_object_set_new(a, "name", json_string(clip->name));
    json_object_set_new(a, "channels", channels);
    json_object_set_new(a, "samplers", samplers);
    json_t *extras = json_object();
    if (clip->duration > last) json_object_set_new(extras, "duration", jfloat(clip->duration));
    if (clip->rate > 0) json_object_set_new(extras, "rate", jfloat(clip->rate));
    if (clip->marker_count) {
        json_t *mk = json_array();
        for (int i = 0; i < clip->marker_count; i++)
            json_array_append_new(mk, json_pack("{s:o,s:s}", "time", jfloat(clip->markers[i].time), "name",
                                                clip->markers[i].name));
        json_object_set_new(extras, "markers", mk);
    }
    if (json_object_size(extras)) json_object_set_new(a, "extras", extras);
    else json_decref(extras);
    return a;
}

/* ---- the document ------------------------------------------------------------------- */

static json_t *build_document(gw *g)
{
    const mr_model *m = g->m;
    const mr_skeleton *sk = &m->skeleton;
    json_t *root = json_object();
    json_object_set_new(root, "asset", json_pack("{s:s,s:s}", "generator", "marrow", "version", "2.0"));
    g->views = json_array();
    g->accessors = json_array();
    g->images = json_array();
    g->textures = json_array();

    json_t *nodes = json_array(), *scene_nodes = json_array();
    for (int j = 0; j < sk->joint_count; j++) {
        json_array_append_new(nodes, joint_node(sk, j));
        if (sk->parents[j] < 0) json_array_append_new(scene_nodes, json_integer(j));
    }

    int any_skinned = 0;
    for (int i = 0; i < m->mesh_count; i++) any_skinned |= mesh_written(&m->meshes[i]) && is_skinned(m, &m->meshes[i]);
    json_t *skins = NULL;
    if (any_skinned) {
        json_t *skin = json_object(), *joints = json_array();
        int roots = 0, root_joint = 0;
        for (int j = 0; j < sk->joint_count; j++) {
            json_array_append_new(joints, json_integer(j));
            if (sk->parents[j] < 0) roots++, root_joint = j;
        }
        json_object_set_new(skin, "inverseBindMatrices",
                            json_integer(add_accessor(g, sk->inverse_bind, GL_FLOAT, sk->joint_count, "MAT4", 0, 0)));
        if (roots == 1) json_object_set_new(skin, "skeleton", json_integer(root_joint));
        json_object_set_new(skin, "joints", joints);
        skins = json_pack("[o]", skin);
    }

    json_t *meshes = json_array(), *materials = json_array();
    int *mesh_node = calloc((size_t)m->mesh_count + 1, sizeof *mesh_node);   /* for VRM expressions */
    if (!mesh_node) g->oom = 1;
    for (int i = 0; i < m->mesh_count; i++) {
        const mr_mesh *me = &m->meshes[i];
        if (mesh_node) mesh_node[i] = -1;
        if (!mesh_written(me)) continue;
        if (mesh_node) mesh_node[i] = (int)json_array_size(nodes);
        int index = (int)json_array_size(meshes);
        json_array_append_new(materials, material_json(g, &me->material));
        json_array_append_new(meshes, mesh_json(g, me, index));
        json_t *node = json_object();
        if (me->name) json_object_set_new(node, "name", json_string(me->name));
        json_object_set_new(node, "mesh", json_integer(index));
        if (is_skinned(m, me)) json_object_set_new(node, "skin", json_integer(0));
        json_array_append_new(scene_nodes, json_integer((json_int_t)json_array_size(nodes)));
        json_array_append_new(nodes, node);
    }

    json_t *anims = json_array();
    for (int c = 0; c < m->clip_count && sk->joint_count > 0; c++) {
        if (m->clips[c]->joint_count != sk->joint_count) continue;
        json_t *a = animation_json(g, m->clips[c]);
        if (a) json_array_append_new(anims, a);
    }

    json_object_set_new(root, "scene", json_integer(0));
    json_object_set_new(root, "scenes", json_pack("[{s:o}]", "nodes", scene_nodes));
    json_object_set_new(root, "nodes", nodes);
    /* Sections that would be empty are left out (glTF arrays need an item). */
    static const char *const names[] = {"meshes", "materials",   "textures",  "images",
                                        "skins",  "animations", "accessors", "bufferViews"};
    json_t *sections[] = {meshes, materials, g->textures, g->images, skins, anims, g->accessors, g->views};
    for (size_t i = 0; i < sizeof sections / sizeof *sections; i++) {
        if (sections[i] && json_array_size(sections[i])) json_object_set(root, names[i], sections[i]);
        json_decref(sections[i]);
    }
    g->views = g->accessors = g->images = g->textures = NULL;
    if (mesh_node) mr_gltf_write_vrm(root, m, mesh_node);
    free(mesh_node);
    return root;
}

/* ---- containers -------------------------------------------------------------------- */

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static mr_status write_glb(gw *g, const char *json, size_t json_len, mr_error *err)
{
    size_t jpad = (4 - json_len % 4) % 4, bpad = (4 - g->n % 4) % 4;
    size_t total = 12 + 8 + json_len + jpad + (g->n ? 8 + g->n + bpad : 0);
    if (total > UINT32_MAX)
        return mr_error_set(err, MR_ERR_LIMIT, "gltf: %s: %zu bytes: more than a .glb can hold (4 GiB)", g->path,
                            total);
    unsigned char *out = malloc(total);
    if (!out) return mr_error_set(err, MR_ERR_NO_MEMORY, "gltf: %s: out of memory", g->path);
    put_u32(out, GLB_MAGIC);
    put_u32(out + 4, 2);
    put_u32(out + 8, (uint32_t)total);
    put_u32(out + 12, (uint32_t)(json_len + jpad));
    put_u32(out + 16, GLB_JSON);
    memcpy(out + 20, json, json_len);
    memset(out + 20 + json_len, ' ', jpad);
    if (g->n) {
        unsigned char *b = out + 20 + json_len + jpad;
        put_u32(b, (uint32_t)(g->n + bpad));
        put_u32(b + 4, GLB_BIN);
        memcpy(b + 8, g->bin, g->n);
        memset(b + 8 + g->n, 0, bpad);
    }
    mr_error werr;
    int rc = mr_file_write(g->path, out, total, &werr);
    free(out);
    if (rc) return mr_error_set(err, werr.status, "gltf: %s", werr.msg);
    return MR_OK;
}

static mr_status check_model(const mr_model *m, const char *path, mr_error *err)
{
    if (m->axes.up != MR_UP_Y || m->axes.meters_per_unit != 1.0f)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                            "gltf: %s: cannot write: the model is %s-up in units of %g m; glTF is Y-up metres "
                            "(convert it with mr_axes_convert_model first)",
                            path, m->axes.up == MR_UP_Z ? "Z" : m->axes.up == MR_UP_X ? "X" : "Y",
                            (double)m->axes.meters_per_unit);
    mr_error verr;
    if (m->skeleton.joint_count && mr_skeleton_validate(&m->skeleton, &verr) != MR_OK)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "gltf: %s: cannot write: %s", path, verr.msg);
    for (int i = 0; i < m->mesh_count; i++) {
        const mr_mesh *me = &m->meshes[i];
        for (int k = 0; k < me->index_count; k++)
            if (me->indices[k] >= (uint32_t)me->vertex_count)
                return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                    "gltf: %s: cannot write: mesh %d index %d is %u of %d vertices", path, i, k,
                                    me->indices[k], me->vertex_count);
        if (!is_skinned(m, me)) continue;
        for (int v = 0; v < me->vertex_count; v++)
            for (int k = 0; k < MR_MAX_INFLUENCES; k++)
                if (me->joints[v][k] >= m->skeleton.joint_count && me->weights[v][k] > 0)
                    return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                        "gltf: %s: cannot write: mesh %d vertex %d uses joint %d of %d", path, i, v,
                                        me->joints[v][k], m->skeleton.joint_count);
    }
    return MR_OK;
}

mr_status mr_gltf_write(const mr_model *model, const char *path, mr_error *err)
{
    if (!model || !path) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "gltf: nothing to write");
    mr_status checked = mr_write_check_model(model, path, err);   /* every reader takes it back */
    if (checked != MR_OK) return checked;
    char ext[8];
    mr_path_ext(path, ext, sizeof ext);
    int glb = !strcmp(ext, "glb") || !strcmp(ext, "vrm");    /* a .vrm is a .glb */
    if (!glb && strcmp(ext, "gltf"))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "gltf: %s: expected a .gltf, .glb or .vrm file name", path);
    mr_status st = check_model(model, path, err);
    if (st != MR_OK) return st;

    gw g = {.m = model, .path = path, .glb = glb, .dir = mr_path_dirname(path)};
    json_t *doc = g.dir ? build_document(&g) : NULL;
    char *bin_name = NULL, *bin_path = NULL, *json = NULL;
    if (doc && g.n) {
        json_t *buffer = json_pack("{s:I}", "byteLength", (json_int_t)g.n);
        if (!glb) {
            /* Only URI-safe characters in the name: some readers (assimp
             * 5.2) do not decode percent-encoded buffer uris. */
            char *stem = mr_path_stem(path);
            bin_name = stem ? mr_str_fmt("%s.bin", stem) : NULL;
            for (char *c = bin_name; c && *c; c++)
                if (!strchr("-._~", *c) && !(*c >= 'A' && *c <= 'Z') && !(*c >= 'a' && *c <= 'z') &&
                    !(*c >= '0' && *c <= '9'))
                    *c = '_';
            bin_path = bin_name ? mr_path_join(g.dir, bin_name) : NULL;
            if (bin_name) json_object_set_new(buffer, "uri", json_string(bin_name));
            free(stem);
        }
        json_object_set_new(doc, "buffers", json_pack("[o]", buffer));
    }
    if (doc) json = json_dumps(doc, JSON_REAL_PRECISION(9) | (glb ? JSON_COMPACT : JSON_INDENT(1)));
    if (json && !glb) {  /* a text file ends with a newline */
        char *nl = mr_str_fmt("%s\n", json);
        free(json);
        json = nl;
    }
    if (!json || g.oom || (!glb && g.n && !bin_path)) {
        st = mr_error_set(err, MR_ERR_NO_MEMORY, "gltf: %s: out of memory building the document", path);
    } else if (glb) {
        st = write_glb(&g, json, strlen(json), err);
    } else {
        mr_error werr;
        size_t len = strlen(json);
        if ((g.n && mr_file_write(bin_path, g.bin, g.n, &werr)) || mr_file_write(path, json, len, &werr))
            st = mr_error_set(err, werr.status, "gltf: %s", werr.msg);
    }
    free(json);
    json_decref(doc);
    for (int i = 0; i < g.image_count; i++) free(g.image_paths[i]);
    free(g.image_paths);
    free(g.bin);
    free(g.dir);
    free(bin_name);
    free(bin_path);
    return st;
}
