/* model_copy.c — a deep copy of a model (model.h, mr_model_copy): what a
 * writer converts and writes instead of the live model or the file it came
 * from. Every array and string of the copy is its own allocation, also
 * where the source points into a cached load's file image. */
#include "anim/model.h"

#include <stdlib.h>
#include <string.h>

#include "anim/clip_runtime.h"
#include "anim/morph.h"
#include "anim/vrm.h"
#include "core/alloc.h"
#include "core/str.h"

/* A copy of n bytes of src into *dst (NULL for NULL or n == 0); 0 when out
 * of memory. */
static int dup_bytes(void *dst_ptr, const void *src, size_t n)
{
    void **dst = dst_ptr;
    *dst = NULL;
    if (!src || n == 0) return 1;
    *dst = malloc(n);
    if (!*dst) return 0;
    memcpy(*dst, src, n);
    return 1;
}

static int dup_str(char **dst, const char *src)
{
    *dst = src ? mr_str_dup(src) : NULL;
    return !src || *dst;
}

static mr_status copy_morph_set(const mr_morph_set *src, mr_morph_set **out)
{
    *out = NULL;
    if (!src) return MR_OK;
    mr_morph_set *s = NULL;
    mr_status st = mr_morph_set_create(src->count, src->vertex_count, &s);
    if (st != MR_OK) return st;
    size_t nv = (size_t)src->vertex_count;
    memcpy(s->weights, src->weights, (size_t)src->count * sizeof *s->weights);
    for (int k = 0; k < src->count && st == MR_OK; k++) {
        const mr_morph_target *t = &src->targets[k];
        free(s->targets[k].name);
        if (!dup_str(&s->targets[k].name, t->name)) st = MR_ERR_NO_MEMORY;
        if (nv) memcpy(s->targets[k].positions, t->positions, nv * sizeof *t->positions);
        if (st == MR_OK && t->normals) {
            st = mr_morph_set_add_normals(s, k);
            if (st == MR_OK && nv) memcpy(s->targets[k].normals, t->normals, nv * sizeof *t->normals);
        }
    }
    if (st != MR_OK) {
        mr_morph_set_destroy(s);
        return st;
    }
    *out = s;
    return MR_OK;
}

static mr_status copy_mesh(const mr_mesh *src, mr_mesh *dst)
{
    mr_status st = mr_mesh_init(dst, src->vertex_count, src->index_count, src->joints && src->weights);
    if (st != MR_OK) return st;
    size_t nv = (size_t)src->vertex_count;
    if (nv) {
        memcpy(dst->positions, src->positions, nv * sizeof *dst->positions);
        memcpy(dst->normals, src->normals, nv * sizeof *dst->normals);
        memcpy(dst->uvs, src->uvs, nv * sizeof *dst->uvs);
        if (dst->joints) {
            memcpy(dst->joints, src->joints, nv * sizeof *dst->joints);
            memcpy(dst->weights, src->weights, nv * sizeof *dst->weights);
        }
    }
    if (src->index_count) memcpy(dst->indices, src->indices, (size_t)src->index_count * sizeof *dst->indices);
    dst->source_over4 = src->source_over4;
    dst->source_over8 = src->source_over8;
    dst->skinning = src->skinning;
    if (src->dq_blend && !dup_bytes(&dst->dq_blend, src->dq_blend, nv * sizeof *src->dq_blend)) {
        mr_mesh_deinit(dst);
        return MR_ERR_NO_MEMORY;
    }
    const mr_material *ms = &src->material;
    mr_material *md = &dst->material;
    memcpy(md->diffuse, ms->diffuse, sizeof md->diffuse);
    memcpy(md->ambient, ms->ambient, sizeof md->ambient);
    memcpy(md->specular, ms->specular, sizeof md->specular);
    memcpy(md->emission, ms->emission, sizeof md->emission);
    md->shininess = ms->shininess;
    md->diffuse_bytes_len = ms->diffuse_bytes_len;
    md->normal_bytes_len = ms->normal_bytes_len;
    int ok = dup_str(&dst->name, src->name) && dup_str(&md->name, ms->name) &&
             dup_str(&md->diffuse_map, ms->diffuse_map) && dup_str(&md->normal_map, ms->normal_map) &&
             dup_bytes(&md->diffuse_bytes, ms->diffuse_bytes, ms->diffuse_bytes_len) &&
             dup_bytes(&md->normal_bytes, ms->normal_bytes, ms->normal_bytes_len);
    if (ok) st = copy_morph_set(src->morph, &dst->morph);
    else st = MR_ERR_NO_MEMORY;
    if (st != MR_OK) mr_mesh_deinit(dst);
    return st;
}

static mr_status copy_track(const mr_track *src, mr_track *dst)
{
    dst->components = src->components;
    mr_status st = mr_track_init(dst, src->key_count, src->interp);
    if (st != MR_OK) return st;
    int per = src->components * (src->interp == MR_INTERP_CUBIC ? 3 : 1);
    if (src->key_count) {
        memcpy(dst->times, src->times, (size_t)src->key_count * sizeof *dst->times);
        memcpy(dst->values, src->values, (size_t)src->key_count * per * sizeof *dst->values);
    }
    return MR_OK;
}

mr_status mr_model_copy_clip(const mr_clip *clip, mr_clip **out)
{
    *out = NULL;
    mr_status st = mr_clip_source(clip, NULL);   /* the file's keys, when they are not resident */
    if (st != MR_OK) return st;
    st = mr_clip_create(clip->name, clip->joint_count, out);
    if (st != MR_OK) return st;
    mr_clip *c = *out;
    c->duration = clip->duration;
    c->rate = clip->rate;
    for (int j = 0; j < clip->joint_count && st == MR_OK; j++) {
        st = copy_track(&clip->tracks[j].t, &c->tracks[j].t);
        if (st == MR_OK) st = copy_track(&clip->tracks[j].r, &c->tracks[j].r);
        if (st == MR_OK) st = copy_track(&clip->tracks[j].s, &c->tracks[j].s);
    }
    for (int i = 0; i < clip->marker_count && st == MR_OK; i++)
        st = mr_clip_add_marker(c, clip->markers[i].time, clip->markers[i].name);
    for (int i = 0; clip->morph && i < clip->morph->channel_count && st == MR_OK; i++) {
        const mr_morph_channel *src = &clip->morph->channels[i];
        mr_morph_channel *d = mr_morph_tracks_add(&c->morph, src->mesh, src->target_count, src->key_count, src->interp);
        if (!d) {
            st = MR_ERR_NO_MEMORY;
            break;
        }
        size_t per = (size_t)src->target_count * (src->interp == MR_INTERP_CUBIC ? 3 : 1);
        memcpy(d->times, src->times, (size_t)src->key_count * sizeof *d->times);
        memcpy(d->values, src->values, (size_t)src->key_count * per * sizeof *d->values);
    }
    if (st != MR_OK) {
        mr_clip_destroy(c);
        *out = NULL;
        return st;
    }
    mr_clip_finish(c);
    return MR_OK;
}

mr_status mr_model_copy(const mr_model *src, const mr_clip *const *clips, int clip_count, mr_model **out)
{
    *out = NULL;
    mr_model *m = NULL;
    mr_status st = mr_model_create(src->path, src->format, &m);
    if (st != MR_OK) return st;
    m->axes = src->axes;
    if (!dup_str(&m->axes_note, src->axes_note)) st = MR_ERR_NO_MEMORY;
    if (st == MR_OK && src->vrm && !(m->vrm = mr_vrm_copy(src->vrm))) st = MR_ERR_NO_MEMORY;
    if (st == MR_OK) st = mr_skeleton_copy(&m->skeleton, &src->skeleton);
    if (st == MR_OK && src->mesh_count > 0) {
        m->meshes = mr_alloc_array((size_t)src->mesh_count, sizeof *m->meshes);
        if (!m->meshes) st = MR_ERR_NO_MEMORY;
        for (int i = 0; i < src->mesh_count && st == MR_OK; i++) {
            st = copy_mesh(&src->meshes[i], &m->meshes[i]);
            if (st == MR_OK) m->mesh_count = i + 1;
        }
    }
    if (st == MR_OK && src->warning_count > 0) {
        m->warnings = mr_alloc_array((size_t)src->warning_count, sizeof *m->warnings);
        if (!m->warnings) st = MR_ERR_NO_MEMORY;
        for (int i = 0; i < src->warning_count && st == MR_OK; i++) {
            if (!dup_str(&m->warnings[i], src->warnings[i])) st = MR_ERR_NO_MEMORY;
            else m->warning_count = i + 1;
        }
    }
    for (int i = 0; i < clip_count && st == MR_OK; i++) {
        if (clips[i]->joint_count != src->skeleton.joint_count) {
            st = MR_ERR_JOINT_COUNT;
            break;
        }
        mr_clip *c = NULL;
        st = mr_model_copy_clip(clips[i], &c);
        if (st == MR_OK && (st = mr_model_add_clip(m, c)) != MR_OK) mr_clip_destroy(c);
    }
    if (st != MR_OK) {
        mr_model_destroy(m);
        return st;
    }
    *out = m;
    return MR_OK;
}
