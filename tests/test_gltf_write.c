/* test_gltf_write.c — mr_gltf_write (src/formats/gltf_write.c).
 *
 * The written files are read back by a small decoder written here from the
 * glTF 2.0 specification (jansson for the JSON, accessors decoded with
 * bounds checks; no code shared with the writer): decode_gltf turns a
 * written file into an mr_model again, and models_match compares it with
 * the model that was written (every joint, vertex, influence and key within
 * 1e-5 of the model size). The same models_match checks the round trip
 * through marrow's own reader (formats/gltf.h), from MD5 and from COLLADA.
 * assimp (tests/cli_gltf_write.sh) is the independent check of what the
 * numbers mean.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <stb_image_write.h>

#include "anim/axes.h"
#include "core/file.h"
#include "core/path.h"
#include "core/str.h"
#include "formats/gltf.h"
#include "formats/gltf_write.h"
#include "formats/load.h"
#include "test.h"
#include "test_files.h"

static char *tmp_dir(void)
{
    char tmpl[] = "/tmp/marrow-gltfw-XXXXXX";
    char *d = mkdtemp(tmpl);
    return d ? mr_str_dup(d) : NULL;
}

/* ---- a decoder from the specification ------------------------------------------- */

typedef struct gdoc {
    json_t *root;
    unsigned char *bin;  /* buffer 0 */
    size_t bin_len;
    char *file;          /* the whole file (a .glb: the container) */
    size_t file_len;
} gdoc;

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void gdoc_free(gdoc *d)
{
    json_decref(d->root);
    free(d->file);
    if (d->bin && (d->bin < (unsigned char *)d->file || d->bin >= (unsigned char *)d->file + d->file_len))
        free(d->bin);
    memset(d, 0, sizeof *d);
}

/* Reads a .gltf (+ its buffer's uri beside it) or a .glb; 0 on success. */
static int gdoc_read(const char *path, gdoc *d)
{
    memset(d, 0, sizeof *d);
    d->file = mr_file_read(path, &d->file_len, NULL);
    if (!d->file) return -1;
    const unsigned char *u = (const unsigned char *)d->file;
    json_error_t jerr;
    if (d->file_len >= 12 && le32(u) == 0x46546C67u) {
        if (le32(u + 4) != 2 || le32(u + 8) != d->file_len || d->file_len < 20) return -1;
        uint32_t jl = le32(u + 12);
        if (le32(u + 16) != 0x4E4F534Au || jl % 4 || 20 + (size_t)jl > d->file_len) return -1;
        d->root = json_loadb(d->file + 20, jl, 0, &jerr);
        size_t at = 20 + jl;
        if (at + 8 <= d->file_len) {
            uint32_t bl = le32(u + at);
            if (le32(u + at + 4) != 0x004E4942u || bl % 4 || at + 8 + bl != d->file_len) return -1;
            d->bin = (unsigned char *)d->file + at + 8;
            d->bin_len = bl;
        } else if (at != d->file_len) {
            return -1;
        }
    } else {
        d->root = json_loadb(d->file, d->file_len, 0, &jerr);
        const char *uri = json_string_value(json_object_get(json_array_get(json_object_get(d->root, "buffers"), 0),
                                                            "uri"));
        if (uri) {
            char *dir = mr_path_dirname(path), *bin = mr_path_join(dir, uri);
            d->bin = (unsigned char *)mr_file_read(bin, &d->bin_len, NULL);
            free(dir);
            free(bin);
            if (!d->bin) return -1;
        }
    }
    if (!d->root) return -1;
    json_t *buf = json_array_get(json_object_get(d->root, "buffers"), 0);
    if (buf && (size_t)json_integer_value(json_object_get(buf, "byteLength")) > d->bin_len) return -1;
    return 0;
}

static json_t *gget(const gdoc *d, const char *section, int index)
{
    return json_array_get(json_object_get(d->root, section), (size_t)index);
}

static int jint(const json_t *o, const char *key, int dflt)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (int)json_integer_value(v) : dflt;
}

static int type_size(const char *type)
{
    static const char *names[] = {"SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"};
    static const int sizes[] = {1, 2, 3, 4, 4, 9, 16};
    for (int i = 0; i < 7; i++)
        if (type && !strcmp(type, names[i])) return sizes[i];
    return 0;
}

/* An accessor as count * *comps floats (integers converted as they are,
 * not normalised); NULL when it does not fit its view or buffer. */
static float *accessor(const gdoc *d, int index, int *count, int *comps)
{
    json_t *a = gget(d, "accessors", index);
    json_t *v = gget(d, "bufferViews", jint(a, "bufferView", -1));
    int ct = jint(a, "componentType", 0), n = jint(a, "count", -1);
    int nc = type_size(json_string_value(json_object_get(a, "type")));
    size_t cs = ct == 5121 ? 1 : ct == 5123 ? 2 : ct == 5125 || ct == 5126 ? 4 : 0;
    if (!a || !v || !cs || !nc || n < 1) return NULL;
    size_t voff = (size_t)jint(v, "byteOffset", 0), vlen = (size_t)jint(v, "byteLength", 0);
    size_t aoff = (size_t)jint(a, "byteOffset", 0);
    size_t stride = (size_t)jint(v, "byteStride", 0);
    if (!stride) stride = cs * (size_t)nc;
    if (voff + vlen > d->bin_len || aoff + stride * (size_t)(n - 1) + cs * (size_t)nc > vlen) return NULL;
    if (voff % 4 || (aoff + voff) % cs) return NULL;
    float *out = malloc((size_t)n * (size_t)nc * sizeof *out);
    for (int i = 0; out && i < n; i++)
        for (int c = 0; c < nc; c++) {
            const unsigned char *p = d->bin + voff + aoff + stride * (size_t)i + cs * (size_t)c;
            float f;
            if (ct == 5126) {
                uint32_t bits = le32(p);
                memcpy(&f, &bits, 4);
            } else if (ct == 5125) {
                f = (float)le32(p);
            } else if (ct == 5123) {
                f = (float)(p[0] | p[1] << 8);
            } else {
                f = (float)p[0];
            }
            out[(size_t)i * nc + c] = f;
        }
    *count = n;
    *comps = nc;
    return out;
}

static void jfloats(const json_t *arr, float *out, int n)
{
    for (int i = 0; i < n && json_array_get(arr, (size_t)i); i++)
        out[i] = (float)json_number_value(json_array_get(arr, (size_t)i));
}

/* The decoded model, or NULL with *why set. Joints are the skin's joints
 * (else every node without a mesh), meshes the mesh nodes in order. */
static mr_model *decode_gltf(const char *path, const char **why)
{
    gdoc d;
    *why = "container";
    if (gdoc_read(path, &d)) {
        gdoc_free(&d);
        return NULL;
    }
    mr_model *m = NULL;
    mr_model_create(path, "gltf", &m);
    json_t *nodes = json_object_get(d.root, "nodes");
    int nn = (int)json_array_size(nodes);
    int *joint_of = malloc(sizeof(int) * (size_t)(nn + 1)), nj = 0;
    int *node_of = malloc(sizeof(int) * (size_t)(nn + 1));
    for (int i = 0; i < nn; i++) joint_of[i] = -1;
    json_t *skin = gget(&d, "skins", 0);
    if (skin) {
        for (size_t i = 0; i < json_array_size(json_object_get(skin, "joints")); i++) {
            int node = (int)json_integer_value(json_array_get(json_object_get(skin, "joints"), i));
            node_of[nj] = node;
            joint_of[node] = nj++;
        }
    } else {
        for (int i = 0; i < nn; i++)
            if (!json_object_get(json_array_get(nodes, (size_t)i), "mesh")) node_of[nj] = i, joint_of[i] = nj++;
    }
    mr_skeleton *sk = &m->skeleton;
    mr_skeleton_init(sk, nj);
    for (int j = 0; j < nj; j++) {
        json_t *n = json_array_get(nodes, (size_t)node_of[j]);
        sk->names[j] = mr_str_dup(json_string_value(json_object_get(n, "name")));
        jfloats(json_object_get(n, "translation"), sk->rest_t[j], 3);
        jfloats(json_object_get(n, "rotation"), sk->rest_r[j], 4);
        jfloats(json_object_get(n, "scale"), sk->rest_s[j], 3);
        json_t *ch = json_object_get(n, "children");
        for (size_t c = 0; c < json_array_size(ch); c++) {
            int child = (int)json_integer_value(json_array_get(ch, c));
            if (child >= 0 && child < nn && joint_of[child] >= 0) sk->parents[joint_of[child]] = j;
        }
    }
    int count, nc;
    if (skin) {
        float *ibm = accessor(&d, jint(skin, "inverseBindMatrices", -1), &count, &nc);
        *why = "inverse binds";
        if (!ibm || count != nj || nc != 16) goto fail;
        memcpy(sk->inverse_bind, ibm, sizeof(mat4) * (size_t)nj);
        free(ibm);
    }

    for (int i = 0; i < nn; i++) {
        json_t *n = json_array_get(nodes, (size_t)i);
        if (!json_object_get(n, "mesh")) continue;
        json_t *prim = json_array_get(json_object_get(gget(&d, "meshes", jint(n, "mesh", -1)), "primitives"), 0);
        json_t *attrs = json_object_get(prim, "attributes");
        int nv = 0, ni = 0;
        float *pos = accessor(&d, jint(attrs, "POSITION", -1), &nv, &nc);
        float *idx = accessor(&d, jint(prim, "indices", -1), &ni, &nc);
        int skinned = json_object_get(attrs, "JOINTS_0") != NULL;
        m->meshes = realloc(m->meshes, sizeof *m->meshes * (size_t)(m->mesh_count + 1));
        mr_mesh *me = &m->meshes[m->mesh_count++];
        memset(me, 0, sizeof *me);
        *why = "positions or indices";
        if (!pos || !idx || mr_mesh_init(me, nv, ni, skinned) != MR_OK) {
            free(pos);
            free(idx);
            goto fail;
        }
        me->name = mr_str_dup(json_string_value(json_object_get(n, "name")));
        memcpy(me->positions, pos, sizeof(vec3) * (size_t)nv);
        for (int k = 0; k < ni; k++) me->indices[k] = (uint32_t)idx[k];
        free(pos);
        free(idx);
        float *nrm = accessor(&d, jint(attrs, "NORMAL", -1), &count, &nc);
        float *uv = accessor(&d, jint(attrs, "TEXCOORD_0", -1), &count, &nc);
        *why = "normals or uvs";
        if (!nrm || !uv) {
            free(nrm);
            free(uv);
            goto fail;
        }
        memcpy(me->normals, nrm, sizeof(vec3) * (size_t)nv);
        for (int v = 0; v < nv; v++) me->uvs[v][0] = uv[2 * v], me->uvs[v][1] = 1 - uv[2 * v + 1];
        free(nrm);
        free(uv);
        for (int set = 0; skinned && set < 2; set++) {
            const char *jn = set ? "JOINTS_1" : "JOINTS_0", *wn = set ? "WEIGHTS_1" : "WEIGHTS_0";
            if (!json_object_get(attrs, jn)) continue;
            float *jt = accessor(&d, jint(attrs, jn, -1), &count, &nc);
            float *w = accessor(&d, jint(attrs, wn, -1), &count, &nc);
            *why = "influences";
            if (!jt || !w || count != nv || nc != 4) {
                free(jt);
                free(w);
                goto fail;
            }
            for (int v = 0; v < nv; v++)
                for (int k = 0; k < 4; k++) {
                    me->joints[v][set * 4 + k] = (uint16_t)jt[4 * v + k];
                    me->weights[v][set * 4 + k] = w[4 * v + k];
                }
            free(jt);
            free(w);
        }
        json_t *mat = gget(&d, "materials", jint(prim, "material", -1));
        me->material.name = mr_str_dup(json_string_value(json_object_get(mat, "name")));
        json_t *pbr = json_object_get(mat, "pbrMetallicRoughness");
        jfloats(json_object_get(pbr, "baseColorFactor"), me->material.diffuse, 4);
        json_t *tex = json_object_get(pbr, "baseColorTexture");
        if (tex) {
            json_t *img = gget(&d, "images", jint(gget(&d, "textures", jint(tex, "index", -1)), "source", -1));
            const char *uri = json_string_value(json_object_get(img, "uri"));
            me->material.diffuse_map = uri ? mr_str_dup(uri) : mr_str_fmt("bufferView %d %s", jint(img, "bufferView", -1),
                                                                        json_string_value(json_object_get(img, "mimeType")));
        }
    }

    for (size_t a = 0; a < json_array_size(json_object_get(d.root, "animations")); a++) {
        json_t *an = gget(&d, "animations", (int)a);
        mr_clip *clip = NULL;
        mr_clip_create(json_string_value(json_object_get(an, "name")), nj, &clip);
        json_t *samplers = json_object_get(an, "samplers"), *channels = json_object_get(an, "channels");
        for (size_t c = 0; c < json_array_size(channels); c++) {
            json_t *ch = json_array_get(channels, c);
            json_t *s = json_array_get(samplers, (size_t)jint(ch, "sampler", -1));
            json_t *target = json_object_get(ch, "target");
            const char *tpath = json_string_value(json_object_get(target, "path"));
            int node = jint(target, "node", -1);
            int j = node >= 0 && node < nn ? joint_of[node] : -1;
            const char *interp = json_string_value(json_object_get(s, "interpolation"));
            int keys, vn;
            float *times = accessor(&d, jint(s, "input", -1), &keys, &nc);
            float *vals = accessor(&d, jint(s, "output", -1), &vn, &nc);
            mr_interp mode = !interp || !strcmp(interp, "LINEAR") ? MR_INTERP_LINEAR
                           : !strcmp(interp, "STEP")              ? MR_INTERP_STEP
                                                                  : MR_INTERP_CUBIC;
            int which = !strcmp(tpath, "translation") ? 0 : !strcmp(tpath, "rotation") ? 1 : 2;
            mr_track *tr = j < 0 ? NULL : which == 0 ? &clip->tracks[j].t : which == 1 ? &clip->tracks[j].r
                                                                                       : &clip->tracks[j].s;
            *why = "animation sampler";
            if (!times || !vals || !tr || vn != keys * (mode == MR_INTERP_CUBIC ? 3 : 1) ||
                mr_track_init(tr, keys, mode) != MR_OK) {
                free(times);
                free(vals);
                mr_clip_destroy(clip);
                goto fail;
            }
            memcpy(tr->times, times, sizeof(float) * (size_t)keys);
            memcpy(tr->values, vals, sizeof(float) * (size_t)vn * (size_t)nc);
            mr_track_finish(tr);
            clip->duration = fmaxf(clip->duration, times[keys - 1]);
            free(times);
            free(vals);
        }
        json_t *extras = json_object_get(an, "extras");
        if (json_object_get(extras, "duration"))
            clip->duration = (float)json_number_value(json_object_get(extras, "duration"));
        clip->rate = (float)json_number_value(json_object_get(extras, "rate"));
        json_t *mk = json_object_get(extras, "markers");
        for (size_t k = 0; k < json_array_size(mk); k++)
            mr_clip_add_marker(clip, (float)json_number_value(json_object_get(json_array_get(mk, k), "time")),
                               json_string_value(json_object_get(json_array_get(mk, k), "name")));
        mr_model_add_clip(m, clip);
    }
    free(joint_of);
    free(node_of);
    gdoc_free(&d);
    *why = NULL;
    return m;
fail:
    free(joint_of);
    free(node_of);
    gdoc_free(&d);
    mr_model_destroy(m);
    return NULL;
}

/* ---- comparing models ------------------------------------------------------------- */

static int near(double a, double b, double tol) { return fabs(a - b) <= tol; }

/* q and -q are one rotation. */
static int quat_near(const float *a, const float *b, double tol)
{
    double dot = 0;
    for (int i = 0; i < 4; i++) dot += (double)a[i] * b[i];
    double s = dot < 0 ? -1 : 1;
    for (int i = 0; i < 4; i++)
        if (!near(a[i], s * b[i], tol)) return 0;
    return 1;
}

/* Sorted (joint, weight) pairs with positive weight, for comparing influences
 * independent of slot order. */
static int influences(const mr_mesh *me, int v, int *j, float *w)
{
    int n = 0;
    for (int k = 0; me->joints && k < MR_MAX_INFLUENCES; k++)
        if (me->weights[v][k] > 0) j[n] = me->joints[v][k], w[n++] = me->weights[v][k];
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && j[b - 1] > j[b]; b--) {
            int tj = j[b];
            float tw = w[b];
            j[b] = j[b - 1], w[b] = w[b - 1];
            j[b - 1] = tj, w[b - 1] = tw;
        }
    return n;
}

/* Every joint, written mesh, vertex, influence, clip and key of a agrees
 * with b within rel * the model size (angles, weights and unit vectors
 * within rel). Meshes without triangles in a are skipped (not written).
 * Reports the first difference through CHECK_MSG; returns 1 when all agree. */
static int models_match(const mr_model *a, const mr_model *b, double rel)
{
    vec3 lo, hi;
    double size = mr_model_bounds(a, lo, hi) ? glm_vec3_distance(lo, hi) : 1, tol = rel * size;
    const mr_skeleton *x = &a->skeleton, *y = &b->skeleton;
#define MATCH(cond, ...) do { if (!(cond)) { CHECK_MSG(0, __VA_ARGS__); return 0; } } while (0)
    MATCH(x->joint_count == y->joint_count, "joints: %d vs %d", x->joint_count, y->joint_count);
    for (int j = 0; j < x->joint_count; j++) {
        MATCH(y->names[j] && !strcmp(x->names[j], y->names[j]), "joint %d: %s vs %s", j, x->names[j],
              y->names[j] ? y->names[j] : "(none)");
        MATCH(x->parents[j] == y->parents[j], "joint %d parent %d vs %d", j, x->parents[j], y->parents[j]);
        for (int k = 0; k < 3; k++) {
            MATCH(near(x->rest_t[j][k], y->rest_t[j][k], tol), "joint %d rest t", j);
            MATCH(near(x->rest_s[j][k], y->rest_s[j][k], rel), "joint %d rest s", j);
        }
        MATCH(quat_near(x->rest_r[j], y->rest_r[j], rel), "joint %d rest r", j);
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++)
                MATCH(near(x->inverse_bind[j][c][r], y->inverse_bind[j][c][r], c == 3 ? tol : rel),
                      "joint %d inverse bind [%d][%d]", j, c, r);
    }
    int mb = 0;
    for (int i = 0; i < a->mesh_count; i++) {
        const mr_mesh *p = &a->meshes[i];
        if (p->vertex_count == 0 || p->index_count < 3) continue;
        MATCH(mb < b->mesh_count, "mesh %d missing", i);
        const mr_mesh *q = &b->meshes[mb++];
        MATCH(p->vertex_count == q->vertex_count && p->index_count == q->index_count, "mesh %d counts", i);
        MATCH(!p->joints == !q->joints, "mesh %d skinned %d vs %d", i, !!p->joints, !!q->joints);
        MATCH(!memcmp(p->indices, q->indices, sizeof *p->indices * (size_t)p->index_count), "mesh %d indices", i);
        for (int v = 0; v < p->vertex_count; v++) {
            for (int k = 0; k < 3; k++) {
                MATCH(near(p->positions[v][k], q->positions[v][k], tol), "mesh %d vertex %d position", i, v);
                MATCH(near(p->normals[v][k], q->normals[v][k], rel), "mesh %d vertex %d normal", i, v);
            }
            for (int k = 0; k < 2; k++) MATCH(near(p->uvs[v][k], q->uvs[v][k], rel), "mesh %d vertex %d uv", i, v);
            int ja[MR_MAX_INFLUENCES], jb[MR_MAX_INFLUENCES];
            float wa[MR_MAX_INFLUENCES], wb[MR_MAX_INFLUENCES];
            int na = influences(p, v, ja, wa), nb = influences(q, v, jb, wb);
            MATCH(na == nb, "mesh %d vertex %d: %d vs %d influences", i, v, na, nb);
            for (int k = 0; k < na; k++)
                MATCH(ja[k] == jb[k] && near(wa[k], wb[k], rel), "mesh %d vertex %d influence %d", i, v, k);
        }
        MATCH(near(p->material.diffuse[0], q->material.diffuse[0], rel) &&
                  near(p->material.diffuse[3], q->material.diffuse[3], rel),
              "mesh %d diffuse colour", i);
        MATCH(!p->material.diffuse_map == !q->material.diffuse_map, "mesh %d diffuse map", i);
    }
    MATCH(mb == b->mesh_count, "meshes: %d written vs %d", mb, b->mesh_count);
    MATCH(a->clip_count == b->clip_count, "clips: %d vs %d", a->clip_count, b->clip_count);
    for (int c = 0; c < a->clip_count; c++) {
        const mr_clip *p = a->clips[c], *q = b->clips[c];
        MATCH(!strcmp(p->name, q->name), "clip %d: %s vs %s", c, p->name, q->name);
        MATCH(near(p->duration, q->duration, 1e-6) && near(p->rate, q->rate, 1e-6), "clip %s duration/rate", p->name);
        MATCH(p->marker_count == q->marker_count, "clip %s markers", p->name);
        int any = 0;
        for (int j = 0; j < x->joint_count; j++)
            any |= p->tracks[j].t.key_count || p->tracks[j].r.key_count || p->tracks[j].s.key_count;
        if (!any) {  /* written as one channel holding joint 0's rest translation */
            const mr_track *t = &q->tracks[0].t;
            MATCH(t->key_count >= 1 && near(t->values[0], x->rest_t[0][0], tol) &&
                      near(t->values[3 * t->key_count - 1], x->rest_t[0][2], tol),
                  "clip %s: the placeholder channel", p->name);
            continue;
        }
        for (int j = 0; j < x->joint_count; j++)
            for (int ch = 0; ch < 3; ch++) {
                const mr_track *s = ch == 0 ? &p->tracks[j].t : ch == 1 ? &p->tracks[j].r : &p->tracks[j].s;
                const mr_track *t = ch == 0 ? &q->tracks[j].t : ch == 1 ? &q->tracks[j].r : &q->tracks[j].s;
                MATCH(s->key_count == t->key_count, "clip %s joint %d channel %d: %d vs %d keys", p->name, j, ch,
                      s->key_count, t->key_count);
                if (!s->key_count) continue;
                MATCH(s->interp == t->interp, "clip %s joint %d channel %d interpolation", p->name, j, ch);
                int per = s->interp == MR_INTERP_CUBIC ? 3 : 1;
                for (int k = 0; k < s->key_count; k++) {
                    MATCH(s->times[k] == t->times[k], "clip %s joint %d channel %d key %d time", p->name, j, ch, k);
                    for (int e = 0; e < per; e++) {
                        const float *u = s->values + ((size_t)k * per + e) * s->components;
                        const float *w = t->values + ((size_t)k * per + e) * s->components;
                        if (ch == 1 && per == 1) {
                            versor un;
                            glm_quat_normalize_to((float *)u, un);
                            MATCH(quat_near(un, w, rel), "clip %s joint %d rotation key %d", p->name, j, k);
                        } else {
                            for (int i = 0; i < s->components; i++)
                                MATCH(near(u[i], w[i], ch == 0 ? tol : rel), "clip %s joint %d channel %d key %d",
                                      p->name, j, ch, k);
                        }
                    }
                }
            }
    }
#undef MATCH
    return 1;
}

/* ---- a model to write ---------------------------------------------------------------- */

/* Y-up metres: 9 joints under one root; a skinned mesh with 1 to 8
 * influences per vertex and a PNG texture; a static mesh with a TGA
 * texture; an empty mesh (not written); clips with LINEAR, STEP and CUBIC
 * tracks, markers and a rate, and a clip without keys. */
static mr_model *test_model(const char *dir)
{
    mr_model *m = NULL;
    mr_model_create("test.dae", "collada", &m);
    static const char *names[9] = {"root", "spine", "arm \"left\"", "leg", "f0", "f1", "f2", "f3", "f\xc3\xa4"};
    static const int parents[9] = {-1, 0, 1, 0, 1, 1, 2, 2, 3};
    mr_skeleton_init(&m->skeleton, 9);
    for (int j = 0; j < 9; j++) {
        m->skeleton.names[j] = mr_str_dup(names[j]);
        m->skeleton.parents[j] = parents[j];
        glm_vec3_copy((vec3){0.1f * j, 0.5f + 0.25f * j, -0.05f * j}, m->skeleton.rest_t[j]);
        glm_quatv(m->skeleton.rest_r[j], 0.3f * j, (vec3){0.2f, 1, 0.1f * j});
        glm_vec3_copy((vec3){1, j == 3 ? 1.5f : 1, 1}, m->skeleton.rest_s[j]);
    }
    glm_quat_identity(m->skeleton.rest_r[0]);
    glm_vec3_zero(m->skeleton.rest_t[0]);
    mr_skeleton_compute_inverse_bind(&m->skeleton);

    char *png = mr_path_join(dir, "skin tex.png"), *tga = mr_path_join(dir, "static.tga");
    unsigned char rgba[4 * 4 * 4];
    for (int i = 0; i < 64; i++) rgba[i] = (unsigned char)(i * 4);
    stbi_write_png(png, 4, 4, 4, rgba, 16);
    stbi_write_tga(tga, 4, 4, 4, rgba);

    m->mesh_count = 3;
    m->meshes = calloc(3, sizeof *m->meshes);
    mr_mesh *me = &m->meshes[0];
    mr_mesh_init(me, 16, 42, 1);
    me->name = mr_str_dup("body");
    me->material.name = mr_str_dup("skin");
    me->material.diffuse_map = png;
    for (int v = 0; v < 16; v++) {
        glm_vec3_copy((vec3){(float)(v % 4) * 0.25f - 0.3f, (float)(v / 4) * 0.5f, 0.01f * v}, me->positions[v]);
        glm_vec3_normalize_to((vec3){0.1f * v, 1, 0.5f}, me->normals[v]);
        me->uvs[v][0] = 0.0625f * v, me->uvs[v][1] = 0.1f + 0.05f * v;
        int n = 1 + v % MR_MAX_INFLUENCES, js[MR_MAX_INFLUENCES];
        float w[MR_MAX_INFLUENCES];
        for (int k = 0; k < n; k++) js[k] = (v + k) % 9, w[k] = 1.0f + (float)(n - k);
        mr_mesh_pack_influences(js, w, n, NULL, me->joints[v], me->weights[v]);
    }
    for (int i = 0; i < 42; i++) me->indices[i] = (uint32_t)((i * 5 + i / 3) % 16);
    me = &m->meshes[1];
    me->name = mr_str_dup("nothing");  /* left empty: not written */
    mr_material_defaults(&me->material);
    me = &m->meshes[2];
    mr_mesh_init(me, 3, 3, 0);
    me->name = mr_str_dup("prop");
    me->material.diffuse_map = tga;
    me->material.diffuse[3] = 0.5f;
    glm_vec3_copy((vec3){0, 0, 0}, me->positions[0]);
    glm_vec3_copy((vec3){1, 0, 0}, me->positions[1]);
    glm_vec3_copy((vec3){0, 1, 0}, me->positions[2]);
    for (int v = 0; v < 3; v++) glm_vec3_copy((vec3){0, 0, 1}, me->normals[v]), me->indices[v] = (uint32_t)v;

    mr_clip *clip = NULL;
    mr_clip_create("walk", 9, &clip);
    clip->rate = 10;
    clip->duration = 0.5f;
    for (int j = 1; j < 4; j++) {
        mr_joint_tracks *jt = &clip->tracks[j];
        mr_track_init(&jt->r, 6, j == 3 ? MR_INTERP_STEP : MR_INTERP_LINEAR);
        mr_track_init(&jt->t, 6, MR_INTERP_LINEAR);
        for (int k = 0; k < 6; k++) {
            jt->r.times[k] = jt->t.times[k] = 0.1f * k;
            glm_quatv(jt->r.values + 4 * k, 0.2f * k + 0.1f * j, (vec3){1, 0.5f, 0});
            glm_vec3_copy((vec3){0.01f * k, m->skeleton.rest_t[j][1], 0}, jt->t.values + 3 * k);
        }
        mr_track_finish(&jt->r);
        mr_track_finish(&jt->t);
    }
    /* A cubic scale track on its own time line: in-tangent, value, out-tangent. */
    mr_track_init(&clip->tracks[3].s, 3, MR_INTERP_CUBIC);
    for (int k = 0; k < 3; k++) {
        clip->tracks[3].s.times[k] = 0.2f * k + 0.05f;
        for (int e = 0; e < 3; e++)
            for (int c = 0; c < 3; c++) clip->tracks[3].s.values[9 * k + 3 * e + c] = e == 1 ? 1 + 0.1f * k : 0.05f * c;
    }
    mr_track_finish(&clip->tracks[3].s);
    clip->duration = 0.5f;
    mr_clip_add_marker(clip, 0.2f, "step");
    mr_model_add_clip(m, clip);
    mr_clip_create("still", 9, &clip);  /* no keys at all */
    clip->duration = 1.25f;
    mr_model_add_clip(m, clip);
    return m;
}

static json_t *load_json(const char *path)
{
    gdoc d;
    if (gdoc_read(path, &d)) {
        gdoc_free(&d);
        return NULL;
    }
    json_t *root = json_incref(d.root);
    gdoc_free(&d);
    return root;
}

/* ---- tests ------------------------------------------------------------------------------ */

TEST(write_glb_decodes_to_the_written_model)
{
    char *dir = tmp_dir();
    if (!dir) return;
    mr_model *m = test_model(dir);
    char *path = mr_path_join(dir, "t.glb");
    mr_error err = {0};
    CHECK_MSG(mr_gltf_write(m, path, &err) == MR_OK, "%s", err.msg);
    const char *why;
    mr_model *back = decode_gltf(path, &why);
    CHECK_MSG(back != NULL, "decode: %s", why ? why : "?");
    if (back) CHECK(models_match(m, back, 1e-5));
    /* The .glb embeds both images: the PNG as it is, the TGA as PNG. */
    if (back) {
        CHECK_STR_CONTAINS(back->meshes[0].material.diffuse_map, "image/png");
        CHECK_STR_CONTAINS(back->meshes[1].material.diffuse_map, "image/png");
    }
    mr_model_destroy(back);
    mr_model_destroy(m);
    free(path);
    test_remove_tree(dir);
    free(dir);
}

TEST(write_gltf_and_bin_decode_to_the_written_model)
{
    char *dir = tmp_dir();
    if (!dir) return;
    mr_model *m = test_model(dir);
    char *path = mr_path_join(dir, "t.gltf"), *bin = mr_path_join(dir, "t.bin");
    mr_error err = {0};
    CHECK_MSG(mr_gltf_write(m, path, &err) == MR_OK, "%s", err.msg);
    CHECK(mr_file_exists(bin));
    const char *why;
    mr_model *back = decode_gltf(path, &why);
    CHECK_MSG(back != NULL, "decode: %s", why ? why : "?");
    if (back) CHECK(models_match(m, back, 1e-5));
    /* The PNG by a percent-encoded uri relative to the file, the TGA embedded. */
    if (back) {
        CHECK(back->meshes[0].material.diffuse_map && !strcmp(back->meshes[0].material.diffuse_map, "skin%20tex.png"));
        CHECK_STR_CONTAINS(back->meshes[1].material.diffuse_map, "image/png");
    }
    mr_model_destroy(back);
    mr_model_destroy(m);
    free(path);
    free(bin);
    test_remove_tree(dir);
    free(dir);
}

TEST(write_gltf_accessor_details_follow_the_specification)
{
    char *dir = tmp_dir();
    if (!dir) return;
    mr_model *m = test_model(dir);
    char *path = mr_path_join(dir, "t.gltf");
    mr_error err = {0};
    CHECK_MSG(mr_gltf_write(m, path, &err) == MR_OK, "%s", err.msg);
    json_t *root = load_json(path);
    CHECK(root != NULL);
    if (!root) goto out;
    json_t *acc = json_object_get(root, "accessors");
    /* POSITION carries min/max equal to the data's bounds. */
    json_t *prim = json_array_get(json_object_get(json_array_get(json_object_get(root, "meshes"), 0), "primitives"), 0);
    json_t *attrs = json_object_get(prim, "attributes");
    json_t *pa = json_array_get(acc, (size_t)jint(attrs, "POSITION", -1));
    vec3 lo = {1e9f, 1e9f, 1e9f}, hi = {-1e9f, -1e9f, -1e9f};
    for (int v = 0; v < 16; v++) {
        glm_vec3_minv(lo, m->meshes[0].positions[v], lo);
        glm_vec3_maxv(hi, m->meshes[0].positions[v], hi);
    }
    for (int k = 0; k < 3; k++) {
        CHECK((float)json_number_value(json_array_get(json_object_get(pa, "min"), (size_t)k)) == lo[k]);
        CHECK((float)json_number_value(json_array_get(json_object_get(pa, "max"), (size_t)k)) == hi[k]);
    }
    /* 8 influences in some vertices: two joint/weight sets; 4 joints fit bytes. */
    CHECK(json_object_get(attrs, "JOINTS_1") && json_object_get(attrs, "WEIGHTS_1"));
    CHECK(jint(json_array_get(acc, (size_t)jint(attrs, "JOINTS_0", -1)), "componentType", 0) == 5121);
    CHECK(jint(json_array_get(acc, (size_t)jint(prim, "indices", -1)), "componentType", 0) == 5123);
    /* The static mesh has no skin and no joints. */
    json_t *prim2 = json_array_get(json_object_get(json_array_get(json_object_get(root, "meshes"), 1), "primitives"), 0);
    CHECK(!json_object_get(json_object_get(prim2, "attributes"), "JOINTS_0"));
    json_t *nodes = json_object_get(root, "nodes");
    CHECK(json_array_size(nodes) == 11);  /* 9 joints, 2 written meshes */
    CHECK(jint(json_array_get(nodes, 9), "skin", -1) == 0 && !json_object_get(json_array_get(nodes, 10), "skin"));
    /* Every animation input has min and max; the key-less clip has a channel. */
    json_t *anims = json_object_get(root, "animations");
    CHECK(json_array_size(anims) == 2);
    for (size_t a = 0; a < json_array_size(anims); a++) {
        json_t *samplers = json_object_get(json_array_get(anims, a), "samplers");
        CHECK(json_array_size(samplers) > 0);
        for (size_t s = 0; s < json_array_size(samplers); s++) {
            json_t *in = json_array_get(acc, (size_t)jint(json_array_get(samplers, s), "input", -1));
            CHECK(json_object_get(in, "min") && json_object_get(in, "max"));
        }
    }
    /* Tracks with the same times share one input accessor: walk has 7
     * tracks on one time line and the cubic scale on its own. */
    json_t *walk = json_object_get(json_array_get(anims, 0), "samplers");
    int inputs[16], ni = 0;
    for (size_t s = 0; s < json_array_size(walk); s++) {
        int in = jint(json_array_get(walk, s), "input", -1), seen = 0;
        for (int i = 0; i < ni; i++) seen |= inputs[i] == in;
        if (!seen && ni < 16) inputs[ni++] = in;
    }
    CHECK(json_array_size(walk) == 7 && ni == 2);
    CHECK_STR_CONTAINS(json_string_value(json_object_get(json_array_get(walk, 6), "interpolation")), "CUBICSPLINE");
    /* The half-transparent material blends. */
    CHECK_STR_CONTAINS(json_string_value(json_object_get(json_array_get(json_object_get(root, "materials"), 1),
                                                         "alphaMode")), "BLEND");
    json_decref(root);
out:
    mr_model_destroy(m);
    free(path);
    test_remove_tree(dir);
    free(dir);
}

TEST(write_is_deterministic)
{
    char *dir = tmp_dir();
    if (!dir) return;
    mr_model *m = test_model(dir);
    char *a = mr_path_join(dir, "a.glb"), *b = mr_path_join(dir, "b.glb");
    CHECK(mr_gltf_write(m, a, NULL) == MR_OK && mr_gltf_write(m, b, NULL) == MR_OK);
    size_t na = 0, nb = 0;
    char *da = mr_file_read(a, &na, NULL), *db = mr_file_read(b, &nb, NULL);
    CHECK(da && db && na == nb && !memcmp(da, db, na));
    free(da);
    free(db);
    mr_model_destroy(m);
    free(a);
    free(b);
    test_remove_tree(dir);
    free(dir);
}

TEST(write_refuses_what_it_cannot_write)
{
    char *dir = tmp_dir();
    if (!dir) return;
    mr_model *m = test_model(dir);
    char *path = mr_path_join(dir, "t.glb");
    mr_error err = {0};
    char *fbx = mr_path_join(dir, "t.fbx");
    CHECK(mr_gltf_write(m, fbx, &err) == MR_ERR_INVALID_ARGUMENT);
    free(fbx);
    CHECK_STR_CONTAINS(err.msg, ".gltf, .glb or .vrm");
    CHECK(mr_gltf_write(m, "/nonexistent-dir/t.glb", &err) == MR_ERR_IO);
    CHECK(mr_gltf_write(NULL, path, &err) == MR_ERR_INVALID_ARGUMENT);
    /* Not in glTF's frame: refused, with the way out named. */
    m->axes.up = MR_UP_Z;
    CHECK(mr_gltf_write(m, path, &err) == MR_ERR_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err.msg, "Z-up");
    CHECK_STR_CONTAINS(err.msg, "mr_axes_convert_model");
    CHECK(!mr_file_exists(path));
    m->axes.up = MR_UP_Y;
    /* A weighted joint the skeleton does not have. */
    m->meshes[0].joints[3][0] = 17;
    CHECK(mr_gltf_write(m, path, &err) == MR_ERR_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err.msg, "vertex 3 uses joint 17 of 9");
    mr_model_destroy(m);
    free(path);
    test_remove_tree(dir);
    free(dir);
}

/* 300 joints need UNSIGNED_SHORT joint indices; 70000 vertices UNSIGNED_INT
 * indices; both decode back. */
TEST(write_uses_wider_types_for_many_joints_and_vertices)
{
    char *dir = tmp_dir();
    if (!dir) return;
    mr_model *m = NULL;
    mr_model_create("big", "collada", &m);
    mr_skeleton_init(&m->skeleton, 300);
    for (int j = 0; j < 300; j++) {
        m->skeleton.names[j] = mr_str_fmt("j%d", j);
        m->skeleton.parents[j] = j - 1;
        m->skeleton.rest_t[j][1] = 0.01f;
    }
    mr_skeleton_compute_inverse_bind(&m->skeleton);
    m->mesh_count = 1;
    m->meshes = calloc(1, sizeof *m->meshes);
    mr_mesh *me = &m->meshes[0];
    mr_mesh_init(me, 70000, 70002, 1);
    for (int v = 0; v < 70000; v++) {
        glm_vec3_copy((vec3){(float)(v % 100) * 0.01f, (float)(v / 100) * 0.004f, 0}, me->positions[v]);
        glm_vec3_copy((vec3){0, 0, 1}, me->normals[v]);
        me->joints[v][0] = (uint16_t)(v % 300);
        me->weights[v][0] = 1;
    }
    for (int i = 0; i < 70002; i++) me->indices[i] = (uint32_t)((i * 7919) % 70000);
    char *path = mr_path_join(dir, "big.glb");
    mr_error err = {0};
    CHECK_MSG(mr_gltf_write(m, path, &err) == MR_OK, "%s", err.msg);
    json_t *root = load_json(path);
    json_t *prim = json_array_get(json_object_get(json_array_get(json_object_get(root, "meshes"), 0), "primitives"), 0);
    json_t *acc = json_object_get(root, "accessors");
    CHECK(jint(json_array_get(acc, (size_t)jint(prim, "indices", -1)), "componentType", 0) == 5125);
    CHECK(jint(json_array_get(acc, (size_t)jint(json_object_get(prim, "attributes"), "JOINTS_0", -1)),
               "componentType", 0) == 5123);
    CHECK(!json_object_get(json_object_get(prim, "attributes"), "JOINTS_1"));
    json_decref(root);
    const char *why;
    mr_model *back = decode_gltf(path, &why);
    CHECK_MSG(back != NULL, "decode: %s", why ? why : "?");
    if (back) CHECK(models_match(m, back, 1e-5));
    mr_model_destroy(back);
    mr_model_destroy(m);
    free(path);
    test_remove_tree(dir);
    free(dir);
}

/* Loads model (+ anims), puts it into Y-up metres, writes it as name and
 * reads it back, through marrow's own reader or (through_reader = 0) the
 * decoder written here: every joint, vertex, influence and key within 1e-5
 * of the model size. */
static void round_trip(const char *model, const char *const *anims, int n, const char *name, int through_reader)
{
    char *dir = tmp_dir();
    if (!dir) return;
    mr_model *m = NULL, *back = NULL;
    mr_error err = {0};
    CHECK_MSG(mr_load_model(model, anims, n, &m, &err) == MR_OK, "%s", err.msg);
    if (!m) return;
    CHECK(mr_axes_convert_model(m, (mr_axes){MR_UP_Y, 1}, &err) == MR_OK);
    char *path = mr_path_join(dir, name);
    CHECK_MSG(mr_gltf_write(m, path, &err) == MR_OK, "%s", err.msg);
    if (through_reader) {
        CHECK_MSG(mr_gltf_load(path, &back, &err) == MR_OK, "%s: %s", name, err.msg);
    } else {
        const char *why = NULL;
        back = decode_gltf(path, &why);
        CHECK_MSG(back != NULL, "decode: %s", why ? why : "?");
    }
    if (back) CHECK_MSG(models_match(m, back, 1e-5), "%s back", name);
    mr_model_destroy(back);
    mr_model_destroy(m);
    free(path);
    test_remove_tree(dir);
    free(dir);
}

/* The MD5 mannequin, put into Y-up metres as `marrow convert` does: every
 * joint, vertex and key comes back through the decoder written here. */
TEST(write_mannequin_round_trips_every_joint_vertex_and_key)
{
    const char *anims[] = {"models/walk.md5anim", "models/wave.md5anim"};
    round_trip("models/mannequin.md5mesh", anims, 2, "mannequin.glb", 0);
}

TEST(md5_round_trips_through_the_gltf_reader)
{
    const char *anims[] = {"models/walk.md5anim", "models/wave.md5anim"};
    round_trip("models/mannequin.md5mesh", anims, 2, "mannequin.glb", 1);
    round_trip("models/mannequin.md5mesh", anims, 2, "mannequin.gltf", 1);
}

TEST(collada_round_trips_through_the_gltf_reader)
{
    round_trip("models/mannequin.dae", NULL, 0, "mannequin_dae.glb", 1);
    round_trip(SHARED_MODELS "lab101-bonesAssimpTest/bin/data/astroBoy_walk.dae", NULL, 0, "astroBoy.glb", 1);
}

int main(void)
{
    RUN(write_glb_decodes_to_the_written_model);
    RUN(write_gltf_and_bin_decode_to_the_written_model);
    RUN(write_gltf_accessor_details_follow_the_specification);
    RUN(write_is_deterministic);
    RUN(write_refuses_what_it_cannot_write);
    RUN(write_uses_wider_types_for_many_joints_and_vertices);
    RUN(write_mannequin_round_trips_every_joint_vertex_and_key);
    RUN(md5_round_trips_through_the_gltf_reader);
    RUN(collada_round_trips_through_the_gltf_reader);
    return test_summary("gltf_write");
}
