/* save.c — a model with chosen clips, written by extension (save.h). */
#include "formats/save.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/axes.h"
#include "core/path.h"
#include "core/str.h"
#include "formats/bvh_write.h"
#include "formats/collada.h"
#include "formats/gltf_write.h"
#include "formats/load.h"
#include "formats/md5.h"

int mr_save_kind(const char *path)
{
    char ext[16];
    const char *e = mr_path_ext(path, ext, sizeof ext);
    if (!e) return MR_SAVE_NONE;
    if (!strcmp(e, "glb") || !strcmp(e, "gltf")) return MR_SAVE_GLTF;
    if (!strcmp(e, "dae")) return MR_SAVE_COLLADA;
    if (!strcmp(e, "md5mesh")) return MR_SAVE_MD5MESH;
    if (!strcmp(e, "md5anim")) return MR_SAVE_MD5ANIM;
    if (!strcmp(e, "bvh")) return MR_SAVE_BVH;
    return MR_SAVE_NONE;
}

mr_status mr_save_check(const char *path, const mr_clip *const *clips, int clip_count, mr_error *err)
{
    int kind = mr_save_kind(path);
    if (kind == MR_SAVE_NONE)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "path: %s: unknown extension (expected .glb, .gltf, .dae, "
                            ".md5mesh, .md5anim or .bvh)", path);
    if (kind == MR_SAVE_MD5ANIM && clip_count != 1)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "opts.clips: %s: an .md5anim holds exactly one clip, got %d",
                            path, clip_count);
    if (kind == MR_SAVE_BVH && clip_count != 1)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "opts.clips: %s: a .bvh holds one skeleton and exactly one "
                            "clip, got %d", path, clip_count);
    if (kind == MR_SAVE_MD5MESH || kind == MR_SAVE_MD5ANIM || kind == MR_SAVE_BVH)
        for (int c = 0; c < clip_count; c++)
            for (int j = 0; j < clips[c]->joint_count; j++) {
                const mr_track *s = &clips[c]->tracks[j].s;
                int per = s->interp == MR_INTERP_CUBIC ? 9 : 3, off = s->interp == MR_INTERP_CUBIC ? 3 : 0;
                for (int k = 0; k < s->key_count; k++)
                    for (int i = 0; i < 3; i++)
                        if (fabsf(s->values[k * per + off + i] - 1.0f) > 1e-5f)
                            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                                "opts.clips: %s: %s cannot hold scale keys (clip '%s', joint %d "
                                                "has scale %g at %g s); save as .glb, .gltf or .dae",
                                                path, kind == MR_SAVE_BVH ? "BVH" : "MD5", clips[c]->name, j, (double)s->values[k * per + off + i],
                                                (double)s->times[k]);
            }
    return MR_OK;
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

mr_status mr_save_copy_clip(const mr_clip *clip, mr_clip **out)
{
    mr_status st = mr_clip_create(clip->name, clip->joint_count, out);
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
    if (st != MR_OK) {
        mr_clip_destroy(c);
        *out = NULL;
        return st;
    }
    mr_clip_finish(c);
    return MR_OK;
}

static mr_status write_md5(mr_model *m, const char *path, int mesh, int *written, mr_error *err)
{
    mr_axes md5_axes = {MR_UP_Z, 0.0254f};
    mr_status st = mr_axes_convert_model(m, md5_axes, err);
    if (st != MR_OK) return st;
    if (!mesh) {
        st = mr_md5_write_anim(m, m->clips[0], path, err);
        if (st == MR_OK) (*written)++;
        return st;
    }
    if ((st = mr_md5_write_mesh(m, path, err)) != MR_OK) return st;
    (*written)++;
    char *dir = mr_path_dirname(path);
    if (!dir) return mr_error_set(err, MR_ERR_NO_MEMORY, "%s: out of memory", path);
    for (int i = 0; st == MR_OK && i < m->clip_count; i++) {
        char *name = mr_str_fmt("%s.md5anim", m->clips[i]->name);
        for (char *c = name; c && *c; c++)
            if (*c == '/' || *c == '\\' || *c == ':' || (unsigned char)*c < 32) *c = '_';
        char *p = name ? mr_path_join(dir, name) : NULL;
        st = p ? mr_md5_write_anim(m, m->clips[i], p, err) : mr_error_set(err, MR_ERR_NO_MEMORY, "out of memory");
        if (st == MR_OK) (*written)++;
        free(name);
        free(p);
    }
    free(dir);
    return st;
}

mr_status mr_save_model(const mr_model *model, const mr_clip *const *clips, int clip_count, const char *path,
                        int *written, mr_error *err)
{
    int count = 0;
    if (written) *written = 0;
    mr_status st = mr_save_check(path, clips, clip_count, err);
    if (st != MR_OK) return st;
    for (int i = 0; i < clip_count; i++)
        if (clips[i]->joint_count != model->skeleton.joint_count)
            return mr_error_set(err, MR_ERR_JOINT_COUNT, "opts.clips[%d]: clip '%s' has %d joints, the model %d",
                                i + 1, clips[i]->name, clips[i]->joint_count, model->skeleton.joint_count);
    mr_model *m = NULL;
    st = mr_load_model(model->path, NULL, 0, &m, err);
    if (st != MR_OK) return st;
    if (m->skeleton.joint_count != model->skeleton.joint_count) {
        mr_model_destroy(m);
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "model: %s changed on disk since it was loaded", model->path);
    }
    for (int i = 0; i < m->clip_count; i++) mr_clip_destroy(m->clips[i]);
    m->clip_count = 0;
    m->axes = model->axes;  /* the loader gives the same; said for the clips' sake */
    for (int i = 0; i < clip_count && st == MR_OK; i++) {
        mr_clip *c = NULL;
        st = mr_save_copy_clip(clips[i], &c);
        if (st == MR_OK && (st = mr_model_add_clip(m, c)) != MR_OK) mr_clip_destroy(c);
        if (st != MR_OK) mr_error_set(err, st, "%s: copying clip '%s': %s", path, clips[i]->name, mr_status_string(st));
    }
    if (st == MR_OK) switch (mr_save_kind(path)) {
        case MR_SAVE_GLTF: {
            mr_axes gltf_axes = {MR_UP_Y, 1.0f};
            st = mr_axes_convert_model(m, gltf_axes, err);
            if (st == MR_OK) st = mr_gltf_write(m, path, err);
            if (st == MR_OK) count = 1;
            break;
        }
        case MR_SAVE_COLLADA:
            st = mr_collada_write(m, path, err);
            if (st == MR_OK) count = 1;
            break;
        case MR_SAVE_MD5MESH: st = write_md5(m, path, 1, &count, err); break;
        case MR_SAVE_MD5ANIM: st = write_md5(m, path, 0, &count, err); break;
        case MR_SAVE_BVH: {
            mr_axes bvh_axes = {MR_UP_Y, 0.01f};  /* centimetres: what the reader guesses for a person */
            st = mr_axes_convert_model(m, bvh_axes, err);
            if (st == MR_OK) st = mr_bvh_write(m, m->clips[0], path, err);
            if (st == MR_OK) count = 1;
            break;
        }
        default: st = MR_ERR_INVALID_ARGUMENT; break;
        }
    mr_model_destroy(m);
    if (written) *written = count;
    return st;
}
