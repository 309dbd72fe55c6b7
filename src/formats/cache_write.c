/* cache_write.c — a model to a cache file (cache.h, Layout; the bytes in
 * cache_layout.h): the file image with narrowed influences and indices and
 * shared arrays stored once, written atomically (a temporary file, then
 * rename(2)). Also the layout fingerprint, the one place that uses
 * MR_LOADER_HASH (the Makefile passes it for this file). */
#include "formats/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anim/clip_dense.h"
#include "anim/clip_pack.h"
#include "core/path.h"
#include "core/str.h"
#include "formats/cache_internal.h"

#ifndef MR_LOADER_HASH
#define MR_LOADER_HASH 0u   /* the Makefile passes a checksum of core, anim and formats */
#endif

/* What the reader and writer agree on besides MR_CACHE_VERSION: the code
 * that builds models (MR_LOADER_HASH: any change to a loader retires old
 * files), the sizes and field offsets of the structs stored as images
 * (mr_joint_tracks), and the sizes of the structs the records mirror (a new
 * field changes them and so retires old files until the records learn it).
 * Computed once per process (not once per load). */
uint64_t cache_layout_fingerprint(void)
{
    static _Atomic uint64_t once;  /* 0: not yet (a fingerprint of 0 is recomputed) */
    uint64_t known = atomic_load_explicit(&once, memory_order_relaxed);
    if (known) return known;
    const uint64_t v[] = {
        MR_LOADER_HASH,
        sizeof(void *), sizeof(mr_track), offsetof(mr_track, key_count), offsetof(mr_track, components),
        offsetof(mr_track, interp), offsetof(mr_track, times), offsetof(mr_track, values),
        offsetof(mr_track, uniform_rate), sizeof(mr_joint_tracks), sizeof(mr_clip_dense), sizeof(mr_clip),
        sizeof(mr_mesh), sizeof(mr_material), sizeof(mr_model), sizeof(mr_skeleton), sizeof(mr_marker),
        MR_MAX_INFLUENCES, sizeof(vec3), sizeof(versor), sizeof(mat4),
    };
    known = mr_cache_hash_portable(v, sizeof v);
    atomic_store_explicit(&once, known, memory_order_relaxed);
    return known;
}


/* ---- writer --------------------------------------------------------------- */

typedef struct wbuf {
    unsigned char *data;
    size_t len, cap;
    int failed;
    struct written_image { uint64_t at; size_t len; } images[64], times[16];
    int image_count, times_count;  /* times: a clip's latest distinct key time arrays */
    const char *model_path;  /* the path the model was loaded by (texture_prefix) */
} wbuf;

/* Appends n bytes (zeros when p is NULL) at an offset aligned to align;
 * returns the offset (0 after a failure: the write is then abandoned). */
static uint64_t put(wbuf *w, const void *p, size_t n, size_t align)
{
    if (w->failed) return 0;
    size_t at = (w->len + align - 1) / align * align;
    if (at + n > w->cap) {
        size_t cap = w->cap ? w->cap : 65536;
        while (cap < at + n) cap *= 2;
        unsigned char *g = realloc(w->data, cap);
        if (!g) {
            w->failed = 1;
            return 0;
        }
        memset(g + w->cap, 0, cap - w->cap);
        w->data = g;
        w->cap = cap;
    }
    if (p && n) memcpy(w->data + at, p, n);
    w->len = at + n;
    return at;
}

static uint64_t put_str(wbuf *w, const char *s) { return s ? put(w, s, strlen(s) + 1, 1) : 0; }
static uint64_t put_arr(wbuf *w, const void *p, size_t n) { return p ? put(w, p, n, CACHE_ALIGN) : 0; }

/* A track's key times, written once per clip when tracks share them (a
 * glTF export keys every channel at the same frames; TM.glb's 96 times
 * arrays are 2 distinct ones, 13 KB of its file): the cached tracks then
 * point at one copy. */
static uint64_t put_times(wbuf *w, const float *times, size_t n)
{
    size_t len = n * sizeof *times;
    for (int i = 0; i < w->times_count && i < 16; i++)
        if (w->times[i].len == len && !memcmp(w->data + w->times[i].at, times, len)) return w->times[i].at;
    uint64_t at = put_arr(w, times, len);
    if (!w->failed) w->times[w->times_count++ % 16] = (struct written_image){at, len};
    return at;
}

/* Writes n tracks as an mr_track image whose times/values hold offsets. */
static uint64_t put_tracks(wbuf *w, const mr_joint_tracks *jt, int joints)
{
    if (!jt) return 0;
    size_t bytes = (size_t)joints * sizeof *jt;
    mr_joint_tracks *img = calloc((size_t)joints ? (size_t)joints : 1, sizeof *img);
    if (!img) {
        w->failed = 1;
        return 0;
    }
    for (int j = 0; j < joints; j++)
        for (int c = 0; c < 3; c++) {
            const mr_track *src = c == 0 ? &jt[j].t : c == 1 ? &jt[j].r : &jt[j].s;
            mr_track *dst = c == 0 ? &img[j].t : c == 1 ? &img[j].r : &img[j].s;
            size_t vals = (size_t)src->key_count * (size_t)src->components * (src->interp == MR_INTERP_CUBIC ? 3 : 1);
            uint64_t t = src->key_count > 0 && src->times ? put_times(w, src->times, (size_t)src->key_count) : 0;
            uint64_t v = src->key_count > 0 ? put_arr(w, src->values, vals * sizeof(float)) : 0;
            dst->key_count = src->times && src->values ? src->key_count : 0;
            dst->components = src->components;
            dst->interp = src->interp;
            dst->uniform_rate = src->uniform_rate;
            uintptr_t tp = (uintptr_t)t, vp = (uintptr_t)v;
            memcpy(&dst->times, &tp, sizeof tp);
            memcpy(&dst->values, &vp, sizeof vp);
        }
    uint64_t at = put(w, img, bytes, CACHE_ALIGN);
    free(img);
    return at;
}

/* The offset already written for a clip's shared time line: it is one of
 * its tracks' times arrays (clip.h); 0 when it is not found. */
static uint64_t find_times(const wbuf *w, const mr_joint_tracks *img_at, const mr_joint_tracks *jt, int joints,
                           const float *times)
{
    if (!img_at || !jt) return 0;
    for (int j = 0; j < joints; j++) {
        const mr_track *s3[3] = {&jt[j].t, &jt[j].r, &jt[j].s};
        const mr_track *d3[3] = {&img_at[j].t, &img_at[j].r, &img_at[j].s};
        for (int c = 0; c < 3; c++)
            if (s3[c]->times == times && s3[c]->key_count > 0) {
                uintptr_t off;
                memcpy(&off, &d3[c]->times, sizeof off);
                (void)w;
                return (uint64_t)off;
            }
    }
    return 0;
}

static void put_clip(wbuf *w, const mr_clip *c, clip_rec *r)
{
    memset(r, 0, sizeof *r);
    w->times_count = 0;
    r->name = put_str(w, c->name);
    r->duration = c->duration;
    r->rate = c->rate;
    r->joint_count = c->joint_count;
    r->marker_count = c->markers ? c->marker_count : 0;
    if (r->marker_count > 0) {
        marker_rec *mk = calloc((size_t)r->marker_count, sizeof *mk);
        if (!mk) {
            w->failed = 1;
            return;
        }
        for (int i = 0; i < r->marker_count; i++) {
            mk[i].name = put_str(w, c->markers[i].name);
            mk[i].time = c->markers[i].time;
        }
        r->markers = put(w, mk, (size_t)r->marker_count * sizeof *mk, 8);
        free(mk);
    }
    r->tracks = put_tracks(w, c->tracks, c->joint_count);
    r->source_dropped = c->source_dropped != 0;
    r->source_key_count = c->source_dropped ? c->source_key_count : 0;
    static const mr_clip_runtime none;   /* a clip never finished: nothing built */
    const mr_clip_runtime *rt = c->runtime ? c->runtime : &none;
    r->played = put_tracks(w, rt->played, c->joint_count);
    r->keys_added = rt->keys_added;
    r->keys_dropped = rt->keys_dropped;
    r->thin_tolerance = rt->thin_tolerance;
    r->max_angle = put_arr(w, rt->max_angle, (size_t)c->joint_count * sizeof(float));
    r->max_move = put_arr(w, rt->max_move, (size_t)c->joint_count * sizeof(float));
    r->point_reach = put_arr(w, rt->point_reach, (size_t)c->joint_count * sizeof(float));
    r->shared_keys = rt->shared_keys;
    r->shared_rate = rt->shared_rate;
    if (rt->shared_keys > 0 && rt->shared_times && !w->failed) {
        const mr_joint_tracks *played_img = r->played ? (const mr_joint_tracks *)(w->data + r->played) : NULL;
        const mr_joint_tracks *src_img = r->tracks ? (const mr_joint_tracks *)(w->data + r->tracks) : NULL;
        r->shared_times = find_times(w, played_img, rt->played, c->joint_count, rt->shared_times);
        if (!r->shared_times) r->shared_times = find_times(w, src_img, c->tracks, c->joint_count, rt->shared_times);
        if (!r->shared_times)
            r->shared_times = put_arr(w, rt->shared_times, (size_t)rt->shared_keys * sizeof(float));
    }
    if (rt->pack) {   /* position independent: stored as it is */
        r->pack = put(w, rt->pack, rt->pack->bytes, 8);
        r->pack_bytes = (int32_t)rt->pack->bytes;
    }
    const mr_clip_dense *d = rt->dense;
    if (d && d->data) {
        r->dense = put(w, NULL, sizeof *d, CACHE_ALIGN);  /* the struct's slot, filled at load */
        r->dense_keys = d->keys;
        r->dense_joints = d->joints;
        r->dense_lanes = d->lanes;
        r->dense_rest_count = d->rest ? d->rest_count : 0;
        r->dense_data = put_arr(w, d->data, (size_t)d->keys * 10 * (size_t)d->lanes * sizeof(float));
        r->dense_rest = put_arr(w, d->rest, (size_t)r->dense_rest_count * sizeof(int));
    }
}

/* An embedded image, written once when several materials carry the same
 * bytes (a .glb's meshes share their textures): the cached meshes then
 * borrow one copy. */
static uint64_t put_image(wbuf *w, const unsigned char *p, size_t n)
{
    if (!p) return 0;
    for (int i = 0; i < w->image_count; i++)
        if (w->images[i].len == n && !memcmp(w->data + w->images[i].at, p, n)) return w->images[i].at;
    uint64_t at = put_arr(w, p, n);
    if (!w->failed && w->image_count < (int)(sizeof w->images / sizeof w->images[0]))
        w->images[w->image_count++] = (struct written_image){at, n};
    return at;
}

/* How many influence slots a mesh needs stored: one past the last slot
 * that holds, in any vertex, a joint other than 0 or a weight whose bits
 * are not +0.0f (mesh.h: unused slots are joint 0 weight 0, which the
 * reader restores byte for byte). */
static int used_slots(const mr_mesh *m)
{
    static const float zero = 0.0f;
    int slots = 0;
    for (int v = 0; v < m->vertex_count && slots < MR_MAX_INFLUENCES; v++)
        for (int k = MR_MAX_INFLUENCES - 1; k >= slots; k--)
            if (m->joints[v][k] != 0 || memcmp(&m->weights[v][k], &zero, sizeof zero) != 0) {
                slots = k + 1;
                break;
            }
    return slots;
}

/* How many distinct influence rows the mesh's vertices have (a row: a
 * vertex's first `slots` joints and weights, compared as bytes), with each
 * vertex's row in *row_of and each row's first vertex in *first (both
 * malloc'd); 0 (and NULLs) when there are more than CACHE_MAX_ROWS or without
 * memory. */
static size_t distinct_rows(const mr_mesh *m, int slots, uint32_t **first, uint16_t **row_of)
{
    size_t v = (size_t)m->vertex_count, cap = 64, rows = 0;
    while (cap < 2 * v) cap *= 2;
    uint32_t *table = calloc(cap, sizeof *table);  /* vertex + 1, 0 = empty */
    *first = malloc((v < CACHE_MAX_ROWS ? v : CACHE_MAX_ROWS) * sizeof **first + 1);
    *row_of = malloc(v * sizeof **row_of + 1);
    uint16_t *row_in_table = malloc(cap * sizeof *row_in_table);
    size_t jn = (size_t)slots * sizeof m->joints[0][0], wn = (size_t)slots * sizeof m->weights[0][0];
    int ok = table && *first && *row_of && row_in_table;
    for (size_t i = 0; ok && i < v; i++) {
        uint64_t h = 0x9E3779B97F4A7C15ull;
        const unsigned char *jb = (const unsigned char *)m->joints[i], *wb = (const unsigned char *)m->weights[i];
        for (size_t k = 0; k < jn; k++) h = (h ^ jb[k]) * 0x100000001B3ull;
        for (size_t k = 0; k < wn; k++) h = (h ^ wb[k]) * 0x100000001B3ull;
        size_t at = (size_t)(h ^ h >> 29) & (cap - 1);
        for (;; at = (at + 1) & (cap - 1)) {
            uint32_t u = table[at];
            if (!u) {
                if (rows == CACHE_MAX_ROWS) {
                    ok = 0;
                    break;
                }
                table[at] = (uint32_t)i + 1;
                row_in_table[at] = (uint16_t)rows;
                (*first)[rows] = (uint32_t)i;
                (*row_of)[i] = (uint16_t)rows++;
                break;
            }
            if (!memcmp(m->joints[u - 1], jb, jn) && !memcmp(m->weights[u - 1], wb, wn)) {
                (*row_of)[i] = row_in_table[at];
                break;
            }
        }
    }
    free(table);
    free(row_in_table);
    if (!ok) {
        free(*first);
        free(*row_of);
        *first = NULL;
        *row_of = NULL;
        return 0;
    }
    return rows;
}

/* Stores joints and weights with only the slots the mesh uses and joint
 * indices one byte wide when every joint is below 256; the reader widens
 * them back to 8 slots in arrays of their own. When the mesh's vertices
 * share few distinct influence rows (split vertices of one skinned point:
 * TM.glb's 4255 vertices have 441 rows), only those rows are stored, and
 * per vertex its row as a uint16: chosen when that takes at most half
 * the bytes. Otherwise a mesh that uses all 8 slots with wide joints is
 * stored as it is (read in place). */
static void put_influences(wbuf *w, const mr_mesh *m, mesh_rec *r)
{
    size_t v = (size_t)m->vertex_count;
    int slots = used_slots(m);
    unsigned max_joint = 0;
    for (size_t i = 0; i < v; i++)
        for (int k = 0; k < slots; k++) max_joint = m->joints[i][k] > max_joint ? m->joints[i][k] : max_joint;
    r->slots = slots;
    r->joint_bytes = max_joint < 256 ? 1 : 2;
    size_t row_bytes = (size_t)slots * ((size_t)r->joint_bytes + sizeof(float));
    uint32_t *first = NULL;
    uint16_t *row_of = NULL;
    size_t rows = slots > 0 && v > 0 ? distinct_rows(m, slots, &first, &row_of) : 0;
    if (rows && 2 * (rows * row_bytes + v * sizeof *row_of) > v * row_bytes) rows = 0;
    if (rows) {
        r->rows = (int32_t)rows;
        r->row_of = put(w, row_of, v * sizeof *row_of, CACHE_ALIGN);
    } else if (slots == MR_MAX_INFLUENCES && r->joint_bytes == 2) {
        r->joints = put_arr(w, m->joints, v * sizeof *m->joints);
        r->weights = put_arr(w, m->weights, v * sizeof *m->weights);
        free(first);
        free(row_of);
        return;
    }
    size_t count = rows ? rows : v, n = count * (size_t)slots;
    unsigned char *j = malloc(n * (size_t)r->joint_bytes + 1);
    float *wt = malloc(n * sizeof *wt + 1);
    if (!j || !wt) {
        w->failed = 1;
    } else {
        for (size_t e = 0; e < count; e++) {
            size_t i = rows ? first[e] : e;
            for (int k = 0; k < slots; k++) {
                size_t at = e * (size_t)slots + (size_t)k;
                if (r->joint_bytes == 1) j[at] = (unsigned char)m->joints[i][k];
                else memcpy(j + at * 2, &m->joints[i][k], 2);
                wt[at] = m->weights[i][k];
            }
        }
        /* a non-NULL offset even for 0 slots: the mesh stays skinned */
        r->joints = put(w, j, n * (size_t)r->joint_bytes, CACHE_ALIGN);
        r->weights = put(w, wt, n * sizeof *wt, CACHE_ALIGN);
    }
    free(j);
    free(wt);
    free(first);
    free(row_of);
}

/* Triangle indices as uint16 when every index fits (widened at load). */
static void put_indices(wbuf *w, const mr_mesh *m, mesh_rec *r)
{
    size_t n = (size_t)m->index_count;
    uint32_t max = 0;
    for (size_t i = 0; m->indices && i < n; i++) max = m->indices[i] > max ? m->indices[i] : max;
    r->index_bytes = m->indices && max <= UINT16_MAX ? 2 : 4;
    if (r->index_bytes == 4) {
        r->indices = put_arr(w, m->indices, n * sizeof(uint32_t));
        return;
    }
    uint16_t *narrow = malloc(n * sizeof *narrow + 1);
    if (!narrow) {
        w->failed = 1;
        return;
    }
    for (size_t i = 0; i < n; i++) narrow[i] = (uint16_t)m->indices[i];
    r->indices = put(w, narrow, n * sizeof *narrow, CACHE_ALIGN);
    free(narrow);
}

/* A texture path as the loader resolved it, stored so that it holds for a
 * load by another path to the same model (the cache file is keyed on the
 * absolute source path: "models/bob.md5mesh" and "/work/models/bob.md5mesh"
 * from another directory share it). A path in the model's folder, as the
 * model's path names that folder, is stored as CACHE_IN_MODEL_FOLDER and the
 * rest (texture_path() puts this load's folder back in front); any other
 * path is stored absolute. So a stored path starts with CACHE_IN_MODEL_FOLDER or
 * '/'. */
static uint64_t put_texture_path(wbuf *w, const char *path)
{
    if (!path) return 0;
    size_t n = cache_texture_prefix(w->model_path);
    int same_kind = (path[0] == '/') == (n > 0 && w->model_path[0] == '/');
    char *stored = same_kind && !strncmp(path, w->model_path, n) ? mr_str_fmt("%c%s", CACHE_IN_MODEL_FOLDER, path + n)
                                                                : mr_path_absolute(path);
    if (!stored) {
        w->failed = 1;
        return 0;
    }
    uint64_t at = put_str(w, stored);
    free(stored);
    return at;
}

static void put_mesh(wbuf *w, const mr_mesh *m, mesh_rec *r)
{
    memset(r, 0, sizeof *r);
    size_t v = (size_t)m->vertex_count;
    r->name = put_str(w, m->name);
    r->vertex_count = m->vertex_count;
    r->index_count = m->index_count;
    r->positions = put_arr(w, m->positions, v * sizeof(vec3));
    r->normals = put_arr(w, m->normals, v * sizeof(vec3));
    r->uvs = put_arr(w, m->uvs, v * sizeof(vec2));
    if (m->joints && m->weights) put_influences(w, m, r);
    put_indices(w, m, r);
    r->source_over4 = m->source_over4;
    r->source_over8 = m->source_over8;
    r->skinning = (int32_t)m->skinning;
    r->dq_blend = put_arr(w, m->dq_blend, v * sizeof *m->dq_blend);
    const mr_material *mt = &m->material;
    r->mat_name = put_str(w, mt->name);
    r->diffuse_map = put_texture_path(w, mt->diffuse_map);
    r->normal_map = put_texture_path(w, mt->normal_map);
    r->diffuse_bytes = put_image(w, mt->diffuse_bytes, mt->diffuse_bytes_len);
    r->normal_bytes = put_image(w, mt->normal_bytes, mt->normal_bytes_len);
    r->diffuse_len = mt->diffuse_bytes ? mt->diffuse_bytes_len : 0;
    r->normal_len = mt->normal_bytes ? mt->normal_bytes_len : 0;
    memcpy(r->diffuse, mt->diffuse, sizeof r->diffuse);
    memcpy(r->ambient, mt->ambient, sizeof r->ambient);
    memcpy(r->specular, mt->specular, sizeof r->specular);
    memcpy(r->emission, mt->emission, sizeof r->emission);
    r->shininess = mt->shininess;
}

/* The whole file image of model with the session's sources; NULL without memory. */
static unsigned char *serialize(const mr_cache_session *s, const mr_model *m, uint64_t key, size_t *len)
{
    wbuf w = {0};
    w.model_path = m->path;
    put(&w, NULL, sizeof(file_header), 1);
    /* Source records at a fixed place: right after the header. */
    uint64_t src_at = put(&w, NULL, (size_t)s->source_count * sizeof(source_rec), 8);
    for (int i = 0; i < s->source_count && !w.failed; i++) {
        const mr_cache_stamp *t = &s->stamps[i];
        source_rec rec = {t->size, t->mtime_ns, t->hash, put_str(&w, s->sources[i]), t->ctime_ns, t->taken_ns,
                          t->ino, t->dev};
        if (!w.failed) memcpy(w.data + src_at + (size_t)i * sizeof rec, &rec, sizeof rec);
    }

    model_rec mr = {0};
    const mr_skeleton *sk = &m->skeleton;
    int n = sk->joint_count;
    mr.format = put_str(&w, m->format);
    mr.axes_note = put_str(&w, m->axes_note);
    mr.up = (int32_t)m->axes.up;
    mr.meters_per_unit = m->axes.meters_per_unit;
    mr.joint_count = n;
    if (n > 0) {
        uint64_t *names = calloc((size_t)n, sizeof *names);
        if (!names) w.failed = 1;
        for (int j = 0; names && j < n; j++) names[j] = put_str(&w, sk->names ? sk->names[j] : NULL);
        if (names) mr.names = put(&w, names, (size_t)n * sizeof *names, CACHE_ALIGN);
        free(names);
        mr.parents = put_arr(&w, sk->parents, (size_t)n * sizeof(int));
        mr.rest_t = put_arr(&w, sk->rest_t, (size_t)n * sizeof(vec3));
        mr.rest_r = put_arr(&w, sk->rest_r, (size_t)n * sizeof(versor));
        mr.rest_s = put_arr(&w, sk->rest_s, (size_t)n * sizeof(vec3));
        mr.inverse_bind = put_arr(&w, sk->inverse_bind, (size_t)n * sizeof(mat4));
        mr.scale_comp = put_arr(&w, sk->scale_comp, (size_t)n);
    }
    mr.warning_count = m->warnings ? m->warning_count : 0;
    if (mr.warning_count > 0) {
        uint64_t *ws = calloc((size_t)mr.warning_count, sizeof *ws);
        if (!ws) w.failed = 1;
        for (int i = 0; ws && i < mr.warning_count; i++) ws[i] = put_str(&w, m->warnings[i]);
        if (ws) mr.warnings = put(&w, ws, (size_t)mr.warning_count * sizeof *ws, 8);
        free(ws);
    }
    mr.mesh_count = m->meshes ? m->mesh_count : 0;
    if (mr.mesh_count > 0) {
        mesh_rec *ms = calloc((size_t)mr.mesh_count, sizeof *ms);
        if (!ms) w.failed = 1;
        for (int i = 0; ms && i < mr.mesh_count; i++) put_mesh(&w, &m->meshes[i], &ms[i]);
        if (ms) mr.meshes = put(&w, ms, (size_t)mr.mesh_count * sizeof *ms, 8);
        free(ms);
    }
    mr.clip_count = m->clips ? m->clip_count : 0;
    if (mr.clip_count > 0) {
        clip_rec *cs = calloc((size_t)mr.clip_count, sizeof *cs);
        if (!cs) w.failed = 1;
        for (int i = 0; cs && i < mr.clip_count; i++) put_clip(&w, m->clips[i], &cs[i]);
        if (cs) mr.clips = put(&w, cs, (size_t)mr.clip_count * sizeof *cs, 8);
        free(cs);
    }
    uint64_t model_at = put(&w, &mr, sizeof mr, 8);
    put(&w, NULL, 0, CACHE_ALIGN);  /* whole blocks of CACHE_ALIGN bytes */
    if (w.failed) {
        free(w.data);
        return NULL;
    }
    file_header h = {0};
    memcpy(h.magic, CACHE_MAGIC, sizeof h.magic);
    h.version = MR_CACHE_VERSION;
    h.bom = CACHE_BOM;
    h.layout = cache_layout_fingerprint();
    h.key = key;
    h.file_size = w.len;
    h.payload_hash = mr_cache_hash(w.data + sizeof h, w.len - sizeof h);
    h.source_count = (uint32_t)s->source_count;
    h.model = model_at;
    memcpy(w.data, &h, sizeof h);
    *len = w.len;
    return w.data;
}

void cache_write_file(const mr_cache_session *s, const mr_model *m)
{
    size_t len = 0;
    unsigned char *img = serialize(s, m, s->key, &len);
    if (!img) return;
    if (len > cache_max_entry()) {  /* it would push most of the folder out */
        cache_stats.too_large++;
        free(img);
        return;
    }
    static unsigned counter;
    char *dir = mr_path_dirname(s->file);
    char *tmp = mr_str_fmt("%s.%ld.%u.tmp", s->file, (long)getpid(), counter++);
    if (!dir || !tmp) goto done;
    if (cache_make_dirs(dir) != 0) {
        cache_warn_once("create the cache folder", dir, errno);
        goto done;
    }
    if (!cache_folder_usable(dir)) goto done;  /* made by someone else since the session began */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        cache_warn_once("write in", dir, errno);
        goto done;
    }
    size_t put_n = 0;
    int e = 0;
    while (put_n < len) {
        ssize_t k = write(fd, img + put_n, len - put_n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            e = k < 0 ? errno : ENOSPC;
            break;
        }
        put_n += (size_t)k;
    }
    if (close(fd) != 0 && !e) e = errno;
    if (!e && rename(tmp, s->file) != 0) e = errno;
    if (e) {
        unlink(tmp);
        cache_warn_once("write", s->file, e);
    } else {
        cache_stats.writes++;
        cache_prune(dir, mr_path_basename(s->file));
    }
done:
    free(dir);
    free(tmp);
    free(img);
}

